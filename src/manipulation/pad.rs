//! Padding (CuPy's `cupy/_padding/pad.py`): `pad` in the modes constant, edge, reflect,
//! symmetric, wrap, maximum, minimum, mean, median and linear_ramp. As NumPy does, one axis after the
//! other: the input is copied into the middle of the new array, then each axis's pad regions
//! are filled from the part already valid: `fill` (constant), one broadcast copy (edge, and
//! the statistic modes after one reduction per side; median sorts the window first), or
//! strided copies of at most one period each (reflect, symmetric, wrap); no kernels of its
//! own, no host round trip. The registry row is the `routine!` line after the function.

use super::narrow;
use crate::array::Array;
use crate::statistics::reduction::Reduce;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;

/// The padding mode of [`pad`] (`mode=` with its keyword arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadMode {
    /// `'constant'` with `constant_values=` (cast to the array's dtype).
    Constant(Scalar),
    /// `'edge'`: the edge value repeated.
    Edge,
    /// `'reflect'` (`reflect_type='even'`): mirrored about the edge, the edge not repeated.
    Reflect,
    /// `'symmetric'` (`reflect_type='even'`): mirrored including the edge.
    Symmetric,
    /// `'wrap'`: the other end, periodically.
    Wrap,
    /// `'maximum'` over `stat_length=` values at each edge (`None`: the whole axis).
    Maximum(Option<usize>),
    /// `'minimum'` over `stat_length=` values at each edge (`None`: the whole axis).
    Minimum(Option<usize>),
    /// `'mean'` over `stat_length=` values at each edge (`None`: the whole axis), rounded
    /// half to even for integer dtypes.
    Mean(Option<usize>),
    /// `'median'` over `stat_length=` values at each edge (`None`: the whole axis), rounded
    /// half to even for integer dtypes. (A NaN in the window does not propagate: the sort puts
    /// it last.)
    Median(Option<usize>),
    /// `'linear_ramp'` with `end_values=`: a ramp from the end value (at the array's edge of
    /// the padded array) towards the edge value, as NumPy's `linspace(end, edge, width,
    /// endpoint=False)` computes it for NumPy's `pad` (in float64, floored for integer dtypes;
    /// one synchronisation per side).
    LinearRamp(f64),
}

impl Default for PadMode {
    /// `mode='constant'`, `constant_values=0`.
    fn default() -> PadMode {
        PadMode::Constant(Scalar::Int64(0))
    }
}

/// `cupy.pad(array, pad_width, mode)`: a new array with `pad_width[i] = (before, after)`
/// elements added on axis `i` (one pair for every axis, or a single pair used for all).
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) for a `pad_width` that is neither one pair
/// nor one per axis, a non-constant mode extending an empty axis, or a `stat_length` of 0;
/// [`Error::ScalarOverflow`] for an integer constant the integer dtype cannot hold (NumPy's
/// OverflowError); device errors.
pub fn pad(a: &Array, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    let op = "pad";
    // The constant in the array's dtype, checked first (an integer it cannot hold is refused).
    let mode = match mode {
        PadMode::Constant(v) => PadMode::Constant(crate::creation::fill_value(op, v, a.dtype())?),
        m => m,
    };
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
    let out = Array::empty_on(a.device(), &shape, a.dtype())?;
    let mut center = out.clone();
    for (i, &(before, _)) in widths.iter().enumerate() {
        center = narrow(&center, i, before, a.shape()[i], 1);
    }
    if a.size() > 0 {
        center.copy_from(a)?;
    }
    if !matches!(mode, PadMode::Constant(_)) {
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
    if let PadMode::Maximum(Some(0))
    | PadMode::Minimum(Some(0))
    | PadMode::Mean(Some(0))
    | PadMode::Median(Some(0)) = mode
    {
        return Err(Error::invalid(
            op,
            "stat_length of 0 yields no value for padding",
        ));
    }
    for ax in 0..nd {
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
        pad_axis(&roi, ax, before, a.shape()[ax], after, mode)?;
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
    mode: PadMode,
) -> Result<()> {
    let total = before + n + after;
    let left = narrow(roi, ax, 0, before, 1);
    let right = narrow(roi, ax, before + n, after, 1);
    match mode {
        PadMode::Constant(v) => {
            for r in [&left, &right] {
                if r.size() > 0 {
                    r.fill(v)?;
                }
            }
        }
        PadMode::Edge => {
            edge(&left, &narrow(roi, ax, before, 1, 1))?;
            edge(&right, &narrow(roi, ax, before + n - 1, 1, 1))?;
        }
        PadMode::Maximum(len)
        | PadMode::Minimum(len)
        | PadMode::Mean(len)
        | PadMode::Median(len) => {
            let m = len.unwrap_or(n).min(n);
            let stat = |src: Array| -> Result<Array> {
                let opts = Reduce {
                    axis: (ax as isize).into(),
                    keepdims: true,
                    ..Default::default()
                };
                let s = match mode {
                    PadMode::Maximum(_) => crate::statistics::order::max_with(&src, opts)?,
                    PadMode::Minimum(_) => crate::statistics::order::min_with(&src, opts)?,
                    _ => {
                        let src = match mode {
                            PadMode::Median(_) => {
                                let sorted = crate::sorting::sort_with(&src, Some(ax as isize))?;
                                let even = usize::from(m.is_multiple_of(2));
                                narrow(&sorted, ax, m / 2 - even, 1 + even, 1)
                            }
                            _ => src.clone(),
                        };
                        let s = crate::statistics::averages::mean_with(&src, opts)?;
                        if src.dtype().is_integer() {
                            crate::math::rounding::rint(&s)?
                        } else {
                            s
                        }
                    }
                };
                s.astype(src.dtype())
            };
            // Both statistics come from the original values, before either side is written.
            let ls = stat(narrow(roi, ax, before, m, 1))?;
            let rs = stat(narrow(roi, ax, before + n - m, m, 1))?;
            edge(&left, &ls)?;
            edge(&right, &rs)?;
        }
        PadMode::LinearRamp(end) => {
            linear_ramp(roi, &left, ax, before, end, false)?;
            linear_ramp(roi, &right, ax, before + n - 1, end, true)?;
        }
        PadMode::Reflect if n == 1 => {
            let e = narrow(roi, ax, before, 1, 1);
            edge(&left, &e)?;
            edge(&right, &e)?;
        }
        PadMode::Reflect | PadMode::Symmetric | PadMode::Wrap => {
            let period = match mode {
                PadMode::Reflect => n - 1,
                _ => n,
            };
            // Left side, towards index 0: `lo` is the first valid index.
            let mut lo = before;
            while lo > 0 {
                let c = period.min(lo);
                let dst = narrow(roi, ax, lo - c, c, 1);
                let src = match mode {
                    PadMode::Reflect => narrow(roi, ax, lo + c, c, -1),
                    PadMode::Symmetric => narrow(roi, ax, lo + c - 1, c, -1),
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
                let src = match mode {
                    PadMode::Reflect => narrow(roi, ax, hi - 2, c, -1),
                    PadMode::Symmetric => narrow(roi, ax, hi - 1, c, -1),
                    _ => narrow(roi, ax, hi - n, c, 1),
                };
                dst.copy_from(&src)?;
                hi += c;
            }
        }
    }
    Ok(())
}

/// Fills `dst` (one pad region along `ax`) with NumPy's `linspace(end, roi[edge], width,
/// endpoint=False)`, reversed on the right side.
fn linear_ramp(
    roi: &Array,
    dst: &Array,
    ax: usize,
    edge_at: usize,
    end: f64,
    reverse: bool,
) -> Result<()> {
    use crate::math::{arithmetic, rounding};
    let w = dst.shape()[ax];
    if dst.size() == 0 {
        return Ok(());
    }
    let dtype = roi.dtype();
    // NumPy's end value is a NumPy scalar (float64 or int64, not weak), so the ramp is
    // computed in float64 (complex128 for complex arrays) and cast back.
    let ct = if dtype.is_complex() {
        cupy_core::dtype::DType::Complex128
    } else {
        cupy_core::dtype::DType::Float64
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
    if !(dtype.is_float() || dtype.is_complex()) {
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
