//! Padding (CuPy's `cupy/_padding/pad.py`): `pad` in the modes constant, edge, reflect,
//! symmetric, wrap, maximum, minimum, mean, median and linear_ramp. As NumPy does, one axis after the
//! other: the input is copied into the middle of the new array, then each axis's pad regions
//! are filled from the part already valid: `fill` (constant), one broadcast copy (edge, and
//! the statistic modes after one reduction per side; median sorts the window first), or
//! strided copies of at most one period each (reflect, symmetric, wrap); no kernels of its
//! own, no host round trip. `constant_values`, `stat_length` and `end_values` take NumPy's
//! per-side forms ([`PerSide`]), resolved to one `(before, after)` pair per axis before any
//! allocation. The registry row is the `routine!` line after the function.

use super::narrow;
use crate::array::Array;
use crate::statistics::reduction::Reduce;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;
use half::{bf16, f16};
use num_complex::Complex;

/// The padding mode of [`pad`] (`mode=` with its keyword arguments).
#[derive(Clone, Debug, PartialEq)]
pub enum PadMode {
    /// `'constant'` with `constant_values=`, converted to the array's dtype as NumPy stores a
    /// Python scalar (an integer, or a float's truncation, the integer dtype cannot hold is
    /// refused; with a float among the values, the integers are taken as float64 first, as
    /// NumPy's array of them is).
    Constant(PerSide<Scalar>),
    /// `'edge'`: the edge value repeated.
    Edge,
    /// `'reflect'` (`reflect_type='even'`): mirrored about the edge, the edge not repeated.
    Reflect,
    /// `'symmetric'` (`reflect_type='even'`): mirrored including the edge.
    Symmetric,
    /// `'wrap'`: the other end, periodically.
    Wrap,
    /// `'maximum'` over `stat_length=` values at each edge (`None`: the whole axis).
    Maximum(Option<PerSide<usize>>),
    /// `'minimum'` over `stat_length=` values at each edge (`None`: the whole axis).
    Minimum(Option<PerSide<usize>>),
    /// `'mean'` over `stat_length=` values at each edge (`None`: the whole axis), rounded
    /// half to even for integer dtypes.
    Mean(Option<PerSide<usize>>),
    /// `'median'` over `stat_length=` values at each edge (`None`: the whole axis), rounded
    /// half to even for integer dtypes. (A NaN in the window does not propagate: the sort puts
    /// it last.)
    Median(Option<PerSide<usize>>),
    /// `'linear_ramp'` with `end_values=`: a ramp from the end value (at the array's edge of
    /// the padded array) towards the edge value, as NumPy's `linspace(end, edge, width,
    /// endpoint=False)` computes it for NumPy's `pad` (in float64, floored for integer dtypes;
    /// with one pair per axis of a float or complex array, in the array's own precision, as
    /// NumPy's Python floats are weak there; one synchronisation per side).
    LinearRamp(PerSide<f64>),
}

impl Default for PadMode {
    /// `mode='constant'`, `constant_values=0`.
    fn default() -> PadMode {
        PadMode::Constant(Scalar::Int64(0).into())
    }
}

/// A `constant_values=`, `stat_length=` or `end_values=` of [`pad`] in NumPy's three forms:
/// one value for every side of every axis (`7.into()`), one `(before, after)` pair for every
/// axis (`(1, 2.5).into()`), or one pair per axis (`vec![(1, 2), (0, 3)].into()`, also from an
/// array or a slice of pairs; a single pair is used for every axis).
#[derive(Clone, Debug, PartialEq)]
pub enum PerSide<T> {
    /// `v`: every side of every axis.
    All(T),
    /// `(before, after)`: the same pair on every axis.
    Pair(T, T),
    /// `((before_0, after_0), ..., (before_N, after_N))`: axis `i` takes pair `i`.
    Axes(Vec<(T, T)>),
}

impl<T: Clone> PerSide<T> {
    /// One `(before, after)` pair per axis of an array of `shape`, as NumPy broadcasts the
    /// argument `name` to shape `(ndim, 2)`; other numbers of pairs are refused.
    fn pairs(&self, op: &str, name: &str, shape: &[usize]) -> Result<Vec<(T, T)>> {
        let nd = shape.len();
        match self {
            PerSide::All(v) => Ok(vec![(v.clone(), v.clone()); nd]),
            PerSide::Pair(b, e) => Ok(vec![(b.clone(), e.clone()); nd]),
            PerSide::Axes(p) if p.len() == 1 => Ok(vec![p[0].clone(); nd]),
            PerSide::Axes(p) if p.len() == nd && nd > 0 => Ok(p.clone()),
            PerSide::Axes(p) => Err(Error::invalid(
                op,
                format!(
                    "{name} of {} pairs does not broadcast to the {nd} axes of an array of \
                     shape {shape:?} (one pair, or one per axis)",
                    p.len()
                ),
            )),
        }
    }

    /// Every value, sides in order.
    fn values(&self) -> Vec<&T> {
        match self {
            PerSide::All(v) => vec![v],
            PerSide::Pair(b, e) => vec![b, e],
            PerSide::Axes(p) => p.iter().flat_map(|(b, e)| [b, e]).collect(),
        }
    }

    /// The same form with `f` applied to every value.
    fn map<U>(&self, f: impl Fn(&T) -> U) -> PerSide<U> {
        match self {
            PerSide::All(v) => PerSide::All(f(v)),
            PerSide::Pair(b, e) => PerSide::Pair(f(b), f(e)),
            PerSide::Axes(p) => PerSide::Axes(p.iter().map(|(b, e)| (f(b), f(e))).collect()),
        }
    }
}

/// `PerSide::All` from one value.
macro_rules! per_side_from {
    ($t:ty => $($s:ty),*) => {$(
        impl From<$s> for PerSide<$t> {
            fn from(v: $s) -> PerSide<$t> {
                PerSide::All(v.into())
            }
        }
    )*};
}
per_side_from!(Scalar => Scalar, bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32,
    f64, Complex<f32>, Complex<f64>);
per_side_from!(f64 => f64, f32, i8, i16, i32, u8, u16, u32);
per_side_from!(usize => usize);

/// `PerSide::Pair` from a tuple and `PerSide::Axes` from pairs, of values converted into `$t`
/// (`$a`/`$b`: the element types taken; generic where literals still infer, as for `Scalar`).
macro_rules! per_side_pairs {
    ($t:ty; $($g:ident: $bound:path),*; $a:ty, $b:ty) => {
        impl<$($g: $bound),*> From<($a, $b)> for PerSide<$t> {
            fn from((b, e): ($a, $b)) -> PerSide<$t> {
                PerSide::Pair(b.into(), e.into())
            }
        }
        impl<$($g: $bound),*> From<Vec<($a, $b)>> for PerSide<$t> {
            fn from(p: Vec<($a, $b)>) -> PerSide<$t> {
                PerSide::Axes(p.into_iter().map(|(b, e)| (b.into(), e.into())).collect())
            }
        }
        impl<$($g: $bound,)* const N: usize> From<[($a, $b); N]> for PerSide<$t> {
            fn from(p: [($a, $b); N]) -> PerSide<$t> {
                PerSide::from(Vec::from(p))
            }
        }
        impl<$($g: $bound + Copy),*> From<&[($a, $b)]> for PerSide<$t> {
            fn from(p: &[($a, $b)]) -> PerSide<$t> {
                PerSide::from(p.to_vec())
            }
        }
    };
}
per_side_pairs!(Scalar; A: Into<Scalar>, B: Into<Scalar>; A, B);
per_side_pairs!(f64; A: Into<f64>, B: Into<f64>; A, B);
per_side_pairs!(usize; ; usize, usize);

/// One axis's padding: the mode with this axis's values for its two sides.
#[derive(Clone, Copy, Debug)]
enum AxisPad {
    /// The constants before and after, in the array's dtype.
    Constant(Scalar, Scalar),
    Edge,
    Reflect,
    Symmetric,
    Wrap,
    /// The statistic over `stat_length` values before and after (`None`: the whole axis).
    Stat(Stat, Option<usize>, Option<usize>),
    /// The end values before and after, and whether NumPy holds them as Python floats (weak).
    LinearRamp(f64, f64, bool),
}

/// The statistic of the modes maximum, minimum, mean and median.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stat {
    Maximum,
    Minimum,
    Mean,
    Median,
}

/// `mode` resolved to one [`AxisPad`] per axis of `a` (NumPy's `_as_pairs` of the mode's
/// values); the constants cast to `a`'s dtype.
fn axis_pads(op: &str, a: &Array, mode: &PadMode) -> Result<Vec<AxisPad>> {
    let shape = a.shape();
    let stat = |s: Stat, len: &Option<PerSide<usize>>| -> Result<Vec<AxisPad>> {
        let pairs = match len {
            None => vec![(None, None); shape.len()],
            Some(l) => {
                let pairs = l.pairs(op, "stat_length", shape)?;
                if pairs.iter().any(|&(b, e)| b == 0 || e == 0) {
                    return Err(Error::invalid(
                        op,
                        "stat_length of 0 yields no value for padding",
                    ));
                }
                pairs.into_iter().map(|(b, e)| (Some(b), Some(e))).collect()
            }
        };
        Ok(pairs
            .into_iter()
            .map(|(b, e)| AxisPad::Stat(s, b, e))
            .collect())
    };
    let every = |p: AxisPad| Ok(vec![p; shape.len()]);
    match mode {
        PadMode::Constant(v) => {
            // NumPy makes one array of the values first: with a float or a complex among them,
            // the integers and bools become float64 (complex128 there: the same real value).
            let inexact = v.values().into_iter().any(|s| s.dtype().is_inexact());
            let v = v.map(|&s| {
                if inexact && !s.dtype().is_inexact() {
                    Scalar::Float64(s.to_f64())
                } else {
                    s
                }
            });
            v.pairs(op, "constant_values", shape)?
                .into_iter()
                .map(|(b, e)| {
                    let cast = |s| super::basic::assigned_value(op, s, a.dtype());
                    Ok(AxisPad::Constant(cast(b)?, cast(e)?))
                })
                .collect()
        }
        PadMode::Edge => every(AxisPad::Edge),
        PadMode::Reflect => every(AxisPad::Reflect),
        PadMode::Symmetric => every(AxisPad::Symmetric),
        PadMode::Wrap => every(AxisPad::Wrap),
        PadMode::Maximum(l) => stat(Stat::Maximum, l),
        PadMode::Minimum(l) => stat(Stat::Minimum, l),
        PadMode::Mean(l) => stat(Stat::Mean, l),
        PadMode::Median(l) => stat(Stat::Median, l),
        PadMode::LinearRamp(end) => {
            // NumPy reads one pair per axis back as Python floats (`tolist`), weak under NEP 50;
            // a value or a single pair stays a float64 NumPy scalar.
            let weak = matches!(end, PerSide::Axes(p) if p.len() > 1);
            Ok(end
                .pairs(op, "end_values", shape)?
                .into_iter()
                .map(|(b, e)| AxisPad::LinearRamp(b, e, weak))
                .collect())
        }
    }
}

/// `cupy.pad(array, pad_width, mode)`: a new array with `pad_width[i] = (before, after)`
/// elements added on axis `i` (one pair for every axis, or a single pair used for all). The
/// mode's `constant_values`, `stat_length` or `end_values` is a [`PerSide`]: one value, one
/// `(before, after)` pair, or one pair per axis.
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) for a `pad_width`, `constant_values`,
/// `stat_length` or `end_values` that is neither one pair nor one per axis, a non-constant mode
/// extending an empty axis, a `stat_length` of 0 on any side, or a NaN or infinite float
/// constant for an integer dtype; [`Error::ScalarOverflow`] for a constant (an integer, or a
/// float's truncation) the integer dtype cannot hold (NumPy's OverflowError); device errors.
pub fn pad(a: &Array, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    let op = "pad";
    let nd = a.ndim();
    let widths: Vec<(usize, usize)> = match pad_width.len() {
        1 => vec![pad_width[0]; nd],
        n if n == nd => pad_width.to_vec(),
        n => {
            return Err(Error::invalid(
                op,
                format!(
                    "pad_width of {n} pairs does not broadcast to the {nd} axes of an array of \
                     shape {:?}",
                    a.shape()
                ),
            ))
        }
    };
    let shape: Vec<usize> = (0..nd)
        .map(|i| {
            a.shape()[i]
                .checked_add(widths[i].0)
                .and_then(|d| d.checked_add(widths[i].1))
                .ok_or_else(|| Error::invalid(op, "pad_width is too large"))
        })
        .collect::<Result<_>>()?;
    let constant = matches!(mode, PadMode::Constant(_));
    if !constant {
        if let Some(i) = (0..nd).find(|&i| a.shape()[i] == 0 && widths[i] != (0, 0)) {
            return Err(Error::invalid(
                op,
                format!(
                    "can't extend empty axis {i} using modes other than 'constant' or 'empty' \
                     (shape {:?})",
                    a.shape()
                ),
            ));
        }
    }
    // As NumPy, the values of a non-constant mode are not read for an empty array (its result,
    // empty too, has nothing to pad).
    let pads = if constant || a.size() > 0 {
        axis_pads(op, a, &mode)?
    } else {
        Vec::new()
    };
    let out = Array::empty_on(a.device(), &shape, a.dtype())?;
    let mut center = out.clone();
    for (i, &(before, _)) in widths.iter().enumerate() {
        center = narrow(&center, i, before, a.shape()[i], 1);
    }
    if a.size() > 0 {
        center.copy_from(a)?;
    }
    for (ax, &pad) in pads.iter().enumerate() {
        let (before, after) = widths[ax];
        if before == 0 && after == 0 {
            continue;
        }
        // The region this axis pads: earlier axes already padded, later ones the original.
        let mut roi = out.clone();
        for (j, &(b, _)) in widths.iter().enumerate().skip(ax + 1) {
            roi = narrow(&roi, j, b, a.shape()[j], 1);
        }
        if roi.size() == 0 {
            continue;
        }
        pad_axis(&roi, ax, before, a.shape()[ax], after, pad)?;
    }
    Ok(out)
}
routine!(
    pad,
    Manipulation,
    notes: "constant edge reflect symmetric wrap maximum minimum mean median linear_ramp; strided copies"
);

/// Fills the pad regions of `roi` along `ax` (`before` + `n` valid + `after`).
fn pad_axis(
    roi: &Array,
    ax: usize,
    before: usize,
    n: usize,
    after: usize,
    pad: AxisPad,
) -> Result<()> {
    let total = before + n + after;
    let left = narrow(roi, ax, 0, before, 1);
    let right = narrow(roi, ax, before + n, after, 1);
    match pad {
        AxisPad::Constant(lv, rv) => {
            for (r, v) in [(&left, lv), (&right, rv)] {
                if r.size() > 0 {
                    r.fill(v)?;
                }
            }
        }
        AxisPad::Edge => {
            edge(&left, &narrow(roi, ax, before, 1, 1))?;
            edge(&right, &narrow(roi, ax, before + n - 1, 1, 1))?;
        }
        AxisPad::Stat(s, llen, rlen) => {
            let (lm, rm) = (llen.unwrap_or(n).min(n), rlen.unwrap_or(n).min(n));
            // Both statistics come from the original values, before either side is written.
            let ls = (left.size() > 0)
                .then(|| stat(&narrow(roi, ax, before, lm, 1), ax, s))
                .transpose()?;
            let rs = (right.size() > 0)
                .then(|| stat(&narrow(roi, ax, before + n - rm, rm, 1), ax, s))
                .transpose()?;
            if let Some(ls) = ls {
                edge(&left, &ls)?;
            }
            if let Some(rs) = rs {
                edge(&right, &rs)?;
            }
        }
        AxisPad::LinearRamp(lend, rend, weak) => {
            linear_ramp(roi, &left, ax, before, (lend, weak), false)?;
            linear_ramp(roi, &right, ax, before + n - 1, (rend, weak), true)?;
        }
        AxisPad::Reflect if n == 1 => {
            let e = narrow(roi, ax, before, 1, 1);
            edge(&left, &e)?;
            edge(&right, &e)?;
        }
        AxisPad::Reflect | AxisPad::Symmetric | AxisPad::Wrap => {
            let period = match pad {
                AxisPad::Reflect => n - 1,
                _ => n,
            };
            // Left side, towards index 0: `lo` is the first valid index.
            let mut lo = before;
            while lo > 0 {
                let c = period.min(lo);
                let dst = narrow(roi, ax, lo - c, c, 1);
                let src = match pad {
                    AxisPad::Reflect => narrow(roi, ax, lo + c, c, -1),
                    AxisPad::Symmetric => narrow(roi, ax, lo + c - 1, c, -1),
                    _ => narrow(roi, ax, lo - c + n, c, 1),
                };
                dst.copy_from(&src)?;
                lo -= c;
            }
            // Right side: `hi` is one past the last valid index.
            let mut hi = before + n;
            while hi < total {
                let c = period.min(total - hi);
                let dst = narrow(roi, ax, hi, c, 1);
                let src = match pad {
                    AxisPad::Reflect => narrow(roi, ax, hi - 2, c, -1),
                    AxisPad::Symmetric => narrow(roi, ax, hi - 1, c, -1),
                    _ => narrow(roi, ax, hi - n, c, 1),
                };
                dst.copy_from(&src)?;
                hi += c;
            }
        }
    }
    Ok(())
}

/// The statistic `s` of the window `src` along `ax` (kept as a length-1 axis), in `src`'s
/// dtype: the mean and the median rounded half to even for integer dtypes (NumPy's
/// `_round_if_needed`); the median as the mean of the middle one or two sorted values.
fn stat(src: &Array, ax: usize, s: Stat) -> Result<Array> {
    let opts = Reduce {
        axis: (ax as isize).into(),
        keepdims: true,
        ..Default::default()
    };
    let r = match s {
        Stat::Maximum => crate::statistics::order::max_with(src, opts)?,
        Stat::Minimum => crate::statistics::order::min_with(src, opts)?,
        Stat::Mean | Stat::Median => {
            let w = match s {
                Stat::Median => {
                    let m = src.shape()[ax];
                    let sorted = crate::sorting::sort_with(src, Some(ax as isize))?;
                    let even = usize::from(m.is_multiple_of(2));
                    narrow(&sorted, ax, m / 2 - even, 1 + even, 1)
                }
                _ => src.clone(),
            };
            let r = crate::statistics::averages::mean_with(&w, opts)?;
            if w.dtype().is_integer() {
                crate::math::rounding::rint(&r)?
            } else {
                r
            }
        }
    };
    r.astype(src.dtype())
}

/// Fills `dst` (one pad region along `ax`) with NumPy's `linspace(end, roi[edge], width,
/// endpoint=False)`, reversed on the right side; `end` is the end value and whether it is weak.
fn linear_ramp(
    roi: &Array,
    dst: &Array,
    ax: usize,
    edge_at: usize,
    (end, weak): (f64, bool),
    reverse: bool,
) -> Result<()> {
    use crate::math::{arithmetic, rounding};
    use cupy_core::dtype::DType;
    let w = dst.shape()[ax];
    if dst.size() == 0 {
        return Ok(());
    }
    let dtype = roi.dtype();
    // A float64 NumPy end value (not weak) makes linspace compute in float64 (complex128 for
    // complex arrays), cast back; a weak one leaves a float or complex array's own precision.
    // Integer arrays compute in float64 either way.
    let ct = if weak && dtype.is_inexact() {
        dtype
    } else if dtype.is_complex() {
        DType::Complex128
    } else {
        DType::Float64
    };
    let edge = narrow(roi, ax, edge_at, 1, 1).astype(ct)?;
    let delta = arithmetic::subtract(&edge, end)?;
    let step = arithmetic::true_divide(&delta, w as f64)?;
    let mut shape = vec![1isize; roi.ndim()];
    shape[ax] = w as isize;
    let idx = Array::arange_on(roi.device(), 0.0, w as f64, 1.0, ct)?.reshape(&shape)?;
    // NumPy's linspace: `i * step`, but `i / width * delta` for every edge when any step is 0
    // (its denormal handling, gh-5437); telling which costs one synchronisation.
    let zero = crate::statistics::order::max(&crate::math::logic::equal(&step, 0.0)?)?
        .item()?
        .is_nonzero();
    let ramp = if zero {
        arithmetic::multiply(&arithmetic::true_divide(&idx, w as f64)?, &delta)?
    } else {
        arithmetic::multiply(&idx, &step)?
    };
    let mut y = arithmetic::add(&ramp, end)?;
    // NumPy's linspace floors for integer dtypes only: bool takes any nonzero value as true.
    if dtype.is_integer() {
        y = rounding::floor(&y)?;
    }
    if reverse {
        y = narrow(&y, ax, w - 1, w, -1);
    }
    dst.copy_from(&y.astype(dtype)?)
}

/// Copies `src` (length 1 along the padded axis) into every position of `dst`.
fn edge(dst: &Array, src: &Array) -> Result<()> {
    if dst.size() == 0 {
        return Ok(());
    }
    dst.copy_from(src)
}
