//! Order statistics on sorted rows (NumPy's "Order statistics", CuPy's
//! `cupy/_statistics/order.py`): `median`, `quantile`, `percentile` and their `nan*` forms,
//! with NumPy's 13 `method=`s.
//!
//! The reduced axes are moved last and flattened, the rows sorted by the backend's sort (NaN
//! last), and one gather kernel picks, for each probability and row, the two neighbouring
//! order statistics and interpolates them as NumPy's `_lerp`. The virtual indexes are
//! computed on the host exactly as NumPy computes them, rounding each step to the dtype NumPy
//! computes in (the input's float dtype for a scalar `q`, float64 for an array of `q`s), so
//! `percentile` of float32 data with a scalar `q` is float32 as in NumPy.
//!
//! NaN: `median`/`quantile` give NaN for a slice holding one (the sorted row ends in it). The
//! `nan*` forms count each row's non-NaN elements (one reduction, read back) and interpolate
//! among those; a slice of only NaN gives NaN. An empty reduction: `median` and the `nan*`
//! forms give NaN (NumPy's mean of an empty slice; `nanquantile` of an empty array returns
//! `nanmean`'s shape, without the `q` axis, as NumPy); `quantile`/`percentile` are NumPy's
//! IndexError. Complex input: `median` sorts it lexicographically (cpu); `quantile` and
//! `percentile` refuse it (NumPy's TypeError). Integer `q` is taken as float (NumPy would keep
//! an integer result for integer data and `q`).

use super::reduction::{acc_of, normalize_axes, reduce_with, write_out, Axes};
pub use super::virtual_index::QuantileMethod;
use super::virtual_index::{pick, rnd, Pick};
use crate::array::Array;
use crate::launch::elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, UnaryOp as U};
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

/// Keyword arguments of the `quantile`/`percentile` family (`numpy.quantile(a, q, axis=None,
/// out=None, method='linear', keepdims=False, *, weights=None)`). An axis or a method converts
/// into it.
#[derive(Clone, Debug, Default)]
pub struct Quantile {
    /// The axes (`axis=`): [`Axes::All`] (`None`, the flattened array), one or several.
    pub axis: Axes,
    /// How a quantile between two order statistics is estimated (`method=`).
    pub method: QuantileMethod,
    /// Keep the reduced axes as length-1 axes (`keepdims=`).
    pub keepdims: bool,
    /// An array to write the result into (`out=`, NumPy's `same_kind` cast), returned. With
    /// `weights` it must have exactly the result's shape and takes the values cast as NumPy's
    /// item assignment casts them (`unsafe`).
    pub out: Option<Array>,
    /// One weight per element of `a` (`weights=`, NumPy 2.0), `quantile`/`percentile` with
    /// [`QuantileMethod::InvertedCdf`] only: `a`'s shape, or with `axis` given the lengths of
    /// those axes in the order `axis` names them (a 1-d array of the axis length for one axis);
    /// non-negative; any real dtype (summed in float64). The quantile of a row is its first
    /// sorted element whose cumulative weight reaches `q` times the row's total (elements of
    /// zero weight before it skipped); a row of zero total weight gives its smallest element, a
    /// row holding NaN gives NaN. The result has `a`'s dtype. The `nan*` forms refuse it.
    pub weights: Option<Array>,
}

impl<T: Into<Axes>> From<T> for Quantile {
    fn from(axis: T) -> Quantile {
        Quantile {
            axis: axis.into(),
            ..Default::default()
        }
    }
}

impl From<QuantileMethod> for Quantile {
    fn from(method: QuantileMethod) -> Quantile {
        Quantile {
            method,
            ..Default::default()
        }
    }
}

/// Keyword arguments of [`median_with`] and [`nanmedian_with`] (`axis=`, `keepdims=`, `out=`).
/// An axis converts into it.
#[derive(Clone, Debug, Default)]
pub struct Median {
    /// The axes (`axis=`; [`Axes::All`] is `None`).
    pub axis: Axes,
    /// Keep the reduced axes as length-1 axes (`keepdims=`).
    pub keepdims: bool,
    /// An array to write the result into (`out=`), returned.
    pub out: Option<Array>,
}

impl<T: Into<Axes>> From<T> for Median {
    fn from(axis: T) -> Median {
        Median {
            axis: axis.into(),
            ..Default::default()
        }
    }
}

/// The `q` argument: one probability (a Python scalar in NumPy: the result has no `q` axis and,
/// for float data, is computed in the data's dtype) or an array of them (a leading `q` axis,
/// computed in float64). Converts from `f64`, `f32`, slices, vectors and arrays of `f64`.
#[derive(Clone, Debug, PartialEq)]
pub struct Probabilities {
    values: Vec<f64>,
    shape: Vec<usize>,
    scalar: bool,
}

impl Probabilities {
    /// Probabilities of any shape (row-major `values`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `values` does not fill `shape`.
    pub fn with_shape(values: Vec<f64>, shape: &[usize]) -> Result<Probabilities> {
        if values.len() != shape.iter().product::<usize>() {
            return Err(Error::invalid(
                "quantile",
                format!("{} values do not fill q's shape {shape:?}", values.len()),
            ));
        }
        Ok(Probabilities {
            values,
            shape: shape.to_vec(),
            scalar: false,
        })
    }

    /// The probabilities held by an array (read to the host).
    ///
    /// # Errors
    /// Transfer errors.
    pub fn from_array(q: &Array) -> Result<Probabilities> {
        let v = q.astype(DType::Float64)?.to_vec::<f64>()?;
        Probabilities::with_shape(v, q.shape())
    }
}

impl From<f64> for Probabilities {
    fn from(q: f64) -> Probabilities {
        Probabilities {
            values: vec![q],
            shape: vec![],
            scalar: true,
        }
    }
}
impl From<f32> for Probabilities {
    fn from(q: f32) -> Probabilities {
        (q as f64).into()
    }
}
impl From<&[f64]> for Probabilities {
    fn from(q: &[f64]) -> Probabilities {
        Probabilities {
            values: q.to_vec(),
            shape: vec![q.len()],
            scalar: false,
        }
    }
}
impl From<Vec<f64>> for Probabilities {
    fn from(q: Vec<f64>) -> Probabilities {
        q.as_slice().into()
    }
}
impl<const N: usize> From<[f64; N]> for Probabilities {
    fn from(q: [f64; N]) -> Probabilities {
        q.as_slice().into()
    }
}

/// What a gather computes from the two picked order statistics `a <= b`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// NumPy's `_lerp(a, b, gamma)` in the result dtype.
    Lerp,
    /// `a` itself (the discrete methods).
    Take,
    /// `median`: `(a + b) / 2` in the mean's accumulator where the weight is nonzero (an even
    /// count), else `a`.
    Median,
}

/// The gather kernel: output element `(j, row)` from `prev`, `next`, `gamma` (inputs) and the
/// sorted rows (raw 0, `n` elements each; params: the number of rows and `n`); with `nan_check`
/// a row whose last element is NaN gives that NaN (`median`: NaN), as NumPy.
fn gather_kernel(v: DType, g: DType, out: DType, mode: Mode, nan_check: bool) -> Kernel {
    let i = DType::Int64;
    let (batch, n) = (Expr::param(0, i), Expr::param(1, i));
    let base = Expr::binary(
        B::Mul,
        Expr::binary(B::Mod, Expr::index(), batch),
        n.clone(),
    );
    let load = |off: Expr| Expr::load(0, v, Expr::binary(B::Add, base.clone(), off));
    let a = load(Expr::input(0, i));
    let b = load(Expr::input(1, i));
    let t = Expr::input(2, g);
    let r = match mode {
        Mode::Take => a,
        Mode::Lerp => {
            // each step rounded to its dtype, as NumPy's ufunc calls (float16 included)
            let t = t.cast(out);
            let diff = r16(r16(Expr::binary(B::Sub, b.clone(), a.clone())).cast(out));
            let mul = |x: Expr, y: Expr| r16(Expr::binary(B::Mul, x, y));
            let lo = r16(Expr::binary(
                B::Add,
                a.cast(out),
                mul(diff.clone(), t.clone()),
            ));
            let one = Expr::constant(Scalar::one(out));
            let hi = r16(Expr::binary(
                B::Sub,
                b.cast(out),
                mul(diff, r16(Expr::binary(B::Sub, one, t.clone()))),
            ));
            let half = Expr::constant(Scalar::Float64(0.5).cast(out));
            Expr::select(Expr::binary(B::Ge, t, half), hi, lo)
        }
        Mode::Median => {
            let acc = acc_of(out);
            let two = Expr::constant(Scalar::Float64(2.0).cast(acc));
            let avg = Expr::binary(
                B::Div,
                Expr::binary(B::Add, a.clone().cast(acc), b.cast(acc)),
                two,
            );
            let even = Expr::binary(B::Ne, t, Expr::constant(Scalar::zero(g)));
            Expr::select(even, avg, a.cast(acc)).cast(out)
        }
    };
    let r = if nan_check && (v.is_float() || v.is_complex()) {
        let last = load(Expr::binary(B::Sub, n, Expr::constant(Scalar::Int64(1))));
        let fill = match mode {
            Mode::Median => Expr::constant(Scalar::Float64(f64::NAN).cast(out)),
            _ => last.clone().cast(out),
        };
        Expr::select(Expr::unary(U::IsNan, last), fill, r)
    } else {
        r
    };
    let mut k = Kernel::map("quantile_pick", vec![i, i, g], vec![i, i], r);
    k.raws = vec![v];
    k
}

/// `e` rounded to its own dtype when that is float16/bfloat16 (whose arithmetic the IR computes
/// in float32): a cast through float32, which every backend rounds.
fn r16(e: Expr) -> Expr {
    match e.ty {
        DType::Float16 | DType::BFloat16 => {
            let t = e.ty;
            e.cast(DType::Float32).cast(t)
        }
        _ => e,
    }
}

/// Which statistic [`order_stat`] computes.
#[derive(Clone, Copy, Debug)]
enum Stat {
    Median,
    Quantile {
        method: QuantileMethod,
        percent: bool,
    },
}

/// The common body of the order statistics: `q` (for quantiles), `nan` for the `nan*` forms.
#[allow(clippy::too_many_arguments)]
fn order_stat(
    op: &str,
    a: &Array,
    q: Option<&Probabilities>,
    stat: Stat,
    axis: &Axes,
    keepdims: bool,
    out: Option<&Array>,
    nan: bool,
    weights: Option<&Array>,
) -> Result<Array> {
    let v = a.dtype();
    let has_nan = v.is_float() || v.is_complex();
    let finish = |r: Array| match out {
        Some(o) => write_out(op, &r, o),
        None => Ok(r),
    };
    let red = normalize_axes(op, axis, a.ndim())?;
    let keep: Vec<usize> = (0..a.ndim()).filter(|i| !red.contains(i)).collect();
    let n: usize = red.iter().map(|&i| a.shape()[i]).product();
    let batch: usize = keep.iter().map(|&i| a.shape()[i]).product();
    let kept_shape: Vec<usize> = (0..a.ndim())
        .filter(|i| keepdims || !red.contains(i))
        .map(|i| if red.contains(&i) { 1 } else { a.shape()[i] })
        .collect();
    let mean_dtype = if v.is_integer() || v.is_bool() {
        DType::Float64
    } else {
        v
    };
    // the probabilities in the dtype NumPy computes them in, checked
    let (g, qs, q_shape) = match (stat, q) {
        (Stat::Quantile { percent, .. }, Some(q)) => {
            if v.is_complex() {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![v],
                    msg: "a must be an array of real numbers".into(),
                });
            }
            let g = if q.scalar && v.is_float() {
                v
            } else {
                DType::Float64
            };
            let qs: Vec<f64> = q
                .values
                .iter()
                .map(|&x| {
                    if percent {
                        rnd(g, rnd(g, x) / 100.0)
                    } else {
                        rnd(g, x)
                    }
                })
                .collect();
            if !qs.iter().all(|&x| (0.0..=1.0).contains(&x)) {
                return Err(Error::invalid(
                    op,
                    if percent {
                        "Percentiles must be in the range [0, 100]"
                    } else {
                        "Quantiles must be in the range [0, 1]"
                    },
                ));
            }
            (g, qs, q.shape.clone())
        }
        _ => (DType::Float64, vec![0.5], vec![]),
    };
    if let (Some(weights), Stat::Quantile { method, .. }) = (weights, stat) {
        return super::weighted::Weighted {
            op,
            a,
            weights,
            method,
            axis,
            red: &red,
            qs: &qs,
            g,
            q_shape: &q_shape,
            kept_shape: &kept_shape,
            out,
        }
        .run();
    }
    let (mode, out_dtype) = match stat {
        Stat::Median => (Mode::Median, mean_dtype),
        Stat::Quantile { method, .. } if method.discrete() => (Mode::Take, v),
        Stat::Quantile { .. } => (Mode::Lerp, promote_types(v, g)),
    };
    // empty reductions: NumPy's mean of an empty slice (NaN), or IndexError for quantile
    if n == 0 || (nan && a.size() == 0) {
        if let (Stat::Quantile { .. }, false) = (stat, nan) {
            if batch > 0 {
                return Err(Error::IndexOutOfBounds {
                    op: op.into(),
                    index: -1,
                    axis: 0,
                    size: 0,
                });
            }
        }
        let dt = if nan && a.size() == 0 {
            mean_dtype
        } else {
            out_dtype
        };
        let shape = if nan && a.size() == 0 || q_shape.is_empty() {
            kept_shape
        } else {
            q_shape.iter().chain(&kept_shape).copied().collect()
        };
        return finish(Array::full_on(
            a.device(),
            &shape,
            Scalar::Float64(f64::NAN),
            dt,
        )?);
    }
    if let Stat::Quantile { method, .. } = stat {
        if v.is_bool() && !method.discrete() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![v],
                msg: "numpy boolean subtract, the `-` operator, is not supported".into(),
            });
        }
    }
    // sorted rows [batch, n], NaN last
    let perm: Vec<isize> = keep.iter().chain(&red).map(|&i| i as isize).collect();
    let rows = a.transpose(&perm)?.reshape(&[batch as isize, n as isize])?;
    let per_row_counts = nan && has_nan;
    // the same positions in every row: selected (with the last, for the NaN check) where the
    // backend selects, else the rows sorted
    let selected = if per_row_counts {
        None
    } else {
        let method = match stat {
            Stat::Quantile { method, .. } => Some(method),
            Stat::Median => None,
        };
        let mut at: Vec<usize> = qs
            .iter()
            .flat_map(|&q| {
                let p = match method {
                    Some(m) => pick(m, g, n, q),
                    None => median_pick(n),
                };
                [p.prev as usize, p.next as usize]
            })
            .collect();
        if has_nan {
            at.push(n - 1);
        }
        at.sort_unstable();
        at.dedup();
        select_rows(&rows, &at)?.map(|sel| (sel, at))
    };
    let (sorted, positions) = match selected {
        Some((sel, at)) => (sel, Some(at)),
        None => (crate::sorting::sort_with(&rows, -1)?, None),
    };
    // the row length of `sorted` and where a sorted position is in it
    let row_len = positions.as_ref().map_or(n, |p| p.len());
    let place = |i: i64| match &positions {
        Some(p) => p.binary_search(&(i as usize)).map_or(i, |j| j as i64),
        None => i,
    };
    let counts: Option<Vec<i64>> = if per_row_counts {
        let mut k = ReduceKernel::simple(
            "count_valid",
            v,
            DType::Int64,
            B::Add,
            Scalar::Int64(0),
            DType::Int64,
        );
        k.map =
            vec![Expr::unary(U::Not, Expr::unary(U::IsNan, Expr::input(0, v))).cast(DType::Int64)];
        let c = reduce_with(op, &k, vec![], &[&sorted], &Axes::from(-1isize), false)?;
        Some(c.to_vec::<i64>()?)
    } else {
        None
    };
    // the picks, per probability (and per row where the counts differ)
    let method = match stat {
        Stat::Quantile { method, .. } => Some(method),
        Stat::Median => None,
    };
    let pick_of = |q: f64, cnt: usize| -> Pick {
        if cnt == 0 {
            // an all-NaN row: the last element (a NaN)
            return Pick {
                prev: n as i64 - 1,
                next: n as i64 - 1,
                gamma: 0.0,
            };
        }
        match method {
            Some(m) => pick(m, g, cnt, q),
            None => median_pick(cnt),
        }
    };
    let k = qs.len();
    let per_row = counts.is_some();
    let cols = if per_row { batch } else { 1 };
    let mut picks = Vec::with_capacity(k * cols);
    for &q in &qs {
        match &counts {
            Some(c) => picks.extend(c.iter().map(|&c| pick_of(q, c as usize))),
            None => picks.push(pick_of(q, n)),
        }
    }
    let dev = a.device();
    let shape2 = [k, cols];
    let prev: Vec<i64> = picks.iter().map(|p| place(p.prev)).collect();
    let next: Vec<i64> = picks.iter().map(|p| place(p.next)).collect();
    let gamma: Vec<f64> = picks.iter().map(|p| p.gamma).collect();
    let prev = Array::from_slice_on(dev, &prev, &shape2)?;
    let next = Array::from_slice_on(dev, &next, &shape2)?;
    let gamma = Array::from_slice_on(dev, &gamma, &shape2)?.astype(g)?;
    let full = [k, batch];
    let ins = [
        prev.broadcast_to(&full)?,
        next.broadcast_to(&full)?,
        gamma.broadcast_to(&full)?,
    ];
    let kernel = gather_kernel(v, g, out_dtype, mode, !nan);
    let r = if k * batch == 0 {
        Array::empty_on(dev, &full, out_dtype)?
    } else {
        let refs: Vec<&Array> = ins.iter().collect();
        let params = vec![Scalar::Int64(batch as i64), Scalar::Int64(row_len as i64)];
        elementwise(&kernel, &refs, &[&sorted], params)?.remove(0)
    };
    let shape: Vec<isize> = q_shape
        .iter()
        .chain(&kept_shape)
        .map(|&d| d as isize)
        .collect();
    finish(r.reshape(&shape)?)
}

/// The median's positions in a sorted row of `cnt` elements: the middle one, or the two middle
/// ones (weight 1: their mean).
fn median_pick(cnt: usize) -> Pick {
    let h = (cnt / 2) as i64;
    if cnt % 2 == 1 {
        Pick {
            prev: h,
            next: h,
            gamma: 0.0,
        }
    } else {
        Pick {
            prev: h - 1,
            next: h,
            gamma: 1.0,
        }
    }
}

/// Most ranks selected instead of sorting the rows (each 4 costs the GPU select about one
/// read of the keys per digit).
const MAX_SELECT: usize = 12;

/// `[batch, at.len()]`: element `at[j]` of each sorted row of `rows` (`[batch, n]`), by the
/// backend's select; `None` where it has none (then the caller sorts) or `at` is long.
fn select_rows(rows: &Array, at: &[usize]) -> Result<Option<Array>> {
    // A recorded capture cannot learn whether the backend selects (its answer comes when the
    // call runs): the sort path is recorded instead.
    if at.len() > MAX_SELECT
        || rows.dtype().is_complex()
        || crate::cuda::graph::recording(rows.device()).is_some()
    {
        return Ok(None);
    }
    let c = if rows.is_c_contiguous() {
        rows.clone()
    } else {
        rows.copy()?
    };
    let batch = c.shape()[0];
    let out = Array::empty_on(c.device(), &[batch, at.len()], c.dtype())?;
    crate::cuda::order::order(c.device(), &[&c.buffer], &[&out.buffer])?;
    let r = c.device.backend().select(&cupy_core::backend::SelectCall {
        keys: cupy_core::backend::Operand {
            buffer: &c.buffer,
            layout: c.layout.clone(),
        },
        kth: at,
        out: cupy_core::backend::Operand {
            buffer: &out.buffer,
            layout: out.layout.clone(),
        },
    });
    match r {
        Ok(()) => Ok(Some(out)),
        Err(Error::Unsupported { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `numpy.median(a)`: the median of the flattened array (the mean of the two middle values of
/// an even count; integers give float64; NaN if any element is NaN; NaN for an empty array).
///
/// # Errors
/// As [`median_with`].
pub fn median(a: &Array) -> Result<Array> {
    median_with(a, Median::default())
}

/// `numpy.median(a, axis=..., keepdims=..., out=...)`.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; dtype refusals of the backend's sort (complex on GPU backends);
/// device errors.
pub fn median_with(a: &Array, opts: impl Into<Median>) -> Result<Array> {
    let o = opts.into();
    order_stat(
        "median",
        a,
        None,
        Stat::Median,
        &o.axis,
        o.keepdims,
        o.out.as_ref(),
        false,
        None,
    )
}
routine!(median, Statistics, probe: sort_probe, notes: "axis (int or tuple), keepdims, out");

/// `numpy.nanmedian(a)`: the median of the non-NaN elements (NaN for a slice of only NaN).
///
/// # Errors
/// As [`median_with`].
pub fn nanmedian(a: &Array) -> Result<Array> {
    nanmedian_with(a, Median::default())
}

/// `numpy.nanmedian(a, axis=..., keepdims=..., out=...)`.
///
/// # Errors
/// As [`median_with`].
pub fn nanmedian_with(a: &Array, opts: impl Into<Median>) -> Result<Array> {
    let o = opts.into();
    order_stat(
        "nanmedian",
        a,
        None,
        Stat::Median,
        &o.axis,
        o.keepdims,
        o.out.as_ref(),
        true,
        None,
    )
}
routine!(nanmedian, Statistics, probe: sort_probe, notes: "axis (int or tuple), keepdims, out");

macro_rules! quantile_fns {
    ($($name:ident / $with:ident: $percent:literal, $nan:literal, $what:literal;)*) => {$(
        #[doc = concat!("`numpy.", stringify!($name), "(a, q)`: ", $what, " over the flattened array with")]
        /// the default `method='linear'`; a scalar `q` gives a 0-d array, an array of `q` a
        /// leading axis of `q`'s shape.
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($with), "`].")]
        pub fn $name(a: &Array, q: impl Into<Probabilities>) -> Result<Array> {
            $with(a, q, Quantile::default())
        }

        #[doc = concat!("`numpy.", stringify!($name), "(a, q, axis=..., method=..., keepdims=..., out=...)`: ", $what, ".")]
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] for a probability outside the range (NumPy's
        /// ValueError); [`Error::TypeError`] for complex input, or bool input with an
        /// interpolating method; [`Error::IndexOutOfBounds`] for an empty reduction of the
        /// non-`nan` forms (NumPy's IndexError); axis, sort dtype and device errors. With
        /// [`Quantile::weights`]: [`Error::InvalidArgument`] for another method than
        /// `inverted_cdf`, weights of the wrong shape or a negative weight (NumPy's
        /// ValueError), and an `out` of another shape; [`Error::TypeError`] for weights of
        /// another shape than `a` without `axis`; [`Error::Unsupported`] from the `nan*` forms.
        pub fn $with(
            a: &Array,
            q: impl Into<Probabilities>,
            opts: impl Into<Quantile>,
        ) -> Result<Array> {
            let o = opts.into();
            let op = stringify!($name);
            if $nan && o.weights.is_some() {
                return Err(Error::Unsupported {
                    op: op.into(),
                    backend: "every backend".into(),
                    reason: "weights= of the nan* forms is not implemented (quantile and \
                             percentile take it)".into(),
                });
            }
            let stat = Stat::Quantile { method: o.method, percent: $percent };
            order_stat(op, a, Some(&q.into()), stat, &o.axis, o.keepdims, o.out.as_ref(), $nan, o.weights.as_ref())
        }
    )*};
}

quantile_fns! {
    quantile / quantile_with: false, false, "the `q`-th quantiles (`0 <= q <= 1`)";
    percentile / percentile_with: true, false, "the `q`-th percentiles (`0 <= q <= 100`)";
    nanquantile / nanquantile_with: false, true, "the quantiles of the non-NaN elements";
    nanpercentile / nanpercentile_with: true, true, "the percentiles of the non-NaN elements";
}
routine!(quantile, Statistics, probe: sort_probe, notes: "axis (int or tuple), method (13), keepdims, out, weights (inverted_cdf)");
routine!(percentile, Statistics, probe: sort_probe, notes: "axis (int or tuple), method (13), keepdims, out, weights (inverted_cdf)");
routine!(nanquantile, Statistics, probe: sort_probe, notes: "axis (int or tuple), method (13), keepdims, out");
routine!(nanpercentile, Statistics, probe: sort_probe, notes: "axis (int or tuple), method (13), keepdims, out");

/// The registry probe of the sorted-row statistics: the backend's sort.
fn sort_probe(_: DType) -> Option<crate::registry::Need> {
    Some(crate::registry::Need::Primitive(
        cupy_core::backend::Primitive::Sort,
    ))
}

/// Every gather kernel shape the order statistics build (for the backends' compile checks).
#[cfg(test)]
pub(crate) fn every_gather_kernel() -> Vec<Kernel> {
    let mut v = vec![];
    for t in [
        DType::Bool,
        DType::Int8,
        DType::Int64,
        DType::UInt8,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex128,
    ] {
        for g in [DType::Float16, DType::Float32, DType::Float64] {
            let lerp = promote_types(t, g);
            let mean = if t.is_integer() || t.is_bool() {
                DType::Float64
            } else {
                t
            };
            for (mode, out) in [(Mode::Lerp, lerp), (Mode::Take, t), (Mode::Median, mean)] {
                for nan in [false, true] {
                    v.push(gather_kernel(t, g, out, mode, nan));
                }
            }
        }
    }
    v
}
