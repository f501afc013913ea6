//! Histograms (NumPy's "Histograms", CuPy's `cupy/_statistics/histogram.py`): `histogram`
//! (bins as a count, edges or one of NumPy's width estimators, range, density, weights) and
//! `histogram2d`/`histogramdd` ([`super::histogramdd`]), with `bincount` in
//! [`super::counting`].
//!
//! Bin edges of a bin count are NumPy's: the range from `range=` or the data's min and max
//! (read back), expanded by 0.5 when empty, then `linspace` computed on the host step by step
//! in the dtype NumPy computes it in (so float32 data gets NumPy's float32 edges). Every
//! element finds its bin with one kernel: a binary search over the edges (NumPy's
//! `searchsorted(edges, x, 'right')`; an element equal to the last edge goes to the last bin;
//! NaN and elements outside the edges fall in two outlier slots), then the counts (or weights)
//! are added with atomic adds ([`crate::add_at`]) and the outliers dropped. Weights are
//! summed in float64 (complex128) and cast to the weights' dtype, as NumPy's `bincount`.

use crate::array::Array;
use crate::launch::elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, Stmt};
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

/// The `bins=` argument of the histograms.
#[derive(Clone, Debug)]
pub enum Bins {
    /// That many equal-width bins over the range.
    Count(usize),
    /// The bin edges (1-d, monotonically increasing; the last bin includes its right edge).
    Edges(Array),
    /// A bin-width estimator (NumPy's string `bins=`), computed from the data within the
    /// range; the data's extent over the width, rounded up, is the bin count.
    Estimator(BinEstimator),
}

/// NumPy's bin-width estimators (`numpy.histogram_bin_edges`' string `bins=`), with NumPy's
/// formulas (`numpy/lib/_histograms_impl.py`); `n` is the number of data in the range, `ptp`
/// their extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinEstimator {
    /// `'auto'`: the smaller width of `'fd'` and `'sturges'` (`'sturges'` when `'fd'`'s is 0).
    Auto,
    /// `'fd'` (Freedman-Diaconis): `2 IQR n^(-1/3)`.
    Fd,
    /// `'doane'`: `ptp / (1 + log2(n) + log2(1 + |g1| / sigma_g1))`, `g1` the skewness.
    Doane,
    /// `'scott'`: `(24 sqrt(pi) / n)^(1/3) std`.
    Scott,
    /// `'stone'`: the bin count in `1..=max(100, sqrt(n))` minimising Stone's estimate of the
    /// integrated squared error (one histogram per candidate).
    Stone,
    /// `'rice'`: `ptp / (2 n^(1/3))`.
    Rice,
    /// `'sturges'`: `ptp / (log2(n) + 1)`.
    Sturges,
    /// `'sqrt'`: `ptp / sqrt(n)`.
    Sqrt,
}

impl BinEstimator {
    /// The estimator of NumPy's name (`"auto"`, `"fd"`, ...), if there is one.
    pub fn from_name(name: &str) -> Option<BinEstimator> {
        Some(match name {
            "auto" => BinEstimator::Auto,
            "fd" => BinEstimator::Fd,
            "doane" => BinEstimator::Doane,
            "scott" => BinEstimator::Scott,
            "stone" => BinEstimator::Stone,
            "rice" => BinEstimator::Rice,
            "sturges" => BinEstimator::Sturges,
            "sqrt" => BinEstimator::Sqrt,
            _ => return None,
        })
    }
}

impl From<BinEstimator> for Bins {
    fn from(e: BinEstimator) -> Bins {
        Bins::Estimator(e)
    }
}

impl Default for Bins {
    /// NumPy's default, 10 bins.
    fn default() -> Bins {
        Bins::Count(10)
    }
}

impl From<usize> for Bins {
    fn from(n: usize) -> Bins {
        Bins::Count(n)
    }
}
impl From<&Array> for Bins {
    fn from(e: &Array) -> Bins {
        Bins::Edges(e.clone())
    }
}

/// Keyword arguments of [`histogram_with`] (`numpy.histogram(a, bins=10, range=None,
/// density=None, weights=None)`). A bin count converts into it.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// The bins (`bins=`).
    pub bins: Bins,
    /// The lower and upper range of the bins (`range=`); `None`: the data's min and max.
    pub range: Option<(f64, f64)>,
    /// A probability density (`density=`): each bin's count over the total and its width.
    pub density: bool,
    /// A weight per element of `a` (`weights=`, `a`'s shape).
    pub weights: Option<Array>,
}

impl From<usize> for Histogram {
    fn from(n: usize) -> Histogram {
        Histogram {
            bins: Bins::Count(n),
            ..Default::default()
        }
    }
}

/// `x` rounded to float dtype `d`.
fn rnd(d: DType, x: f64) -> f64 {
    match d {
        DType::Float16 => half::f16::from_f64(x).to_f64(),
        DType::Float32 => x as f32 as f64,
        _ => x,
    }
}

/// NumPy's `linspace(start, stop, num)` computed in dtype `l` (each step rounded).
///
/// # Errors
/// [`Error::OutOfMemory`] naming `op` when `num` values cannot be held on the host
/// ([`cupy_core::host::reserve_exact`]: a failed allocation would abort the process).
fn linspace_host(op: &str, start: f64, stop: f64, num: usize, l: DType) -> Result<Vec<f64>> {
    let div = num.saturating_sub(1) as f64;
    let delta = rnd(l, stop - start);
    let mut y: Vec<f64> = Vec::new();
    cupy_core::host::reserve_exact(op, &mut y, num, "the bin edges")?;
    y.extend((0..num).map(|i| rnd(l, i as f64)));
    if num > 1 {
        let step = rnd(l, delta / div);
        for v in y.iter_mut() {
            *v = if step == 0.0 {
                rnd(l, rnd(l, *v / div) * delta)
            } else {
                rnd(l, *v * step)
            };
        }
    } else {
        for v in y.iter_mut() {
            *v = rnd(l, *v * delta);
        }
    }
    for v in y.iter_mut() {
        *v = rnd(l, *v + start);
    }
    if num > 1 {
        y[num - 1] = stop;
    }
    Ok(y)
}

/// NumPy's `_get_outer_edges`: the range, or the data's (min, max) in the data's dtype `t`
/// (`None`: a Python float range), expanded by 0.5 when empty.
fn outer_edges(
    op: &str,
    a: &Array,
    range: Option<(f64, f64)>,
) -> Result<(f64, f64, Option<DType>)> {
    let t = a.dtype();
    let (lo, hi, scalar) = match range {
        Some((lo, hi)) => {
            if lo > hi {
                return Err(Error::invalid(
                    op,
                    "max must be larger than min in range parameter.",
                ));
            }
            if !(lo.is_finite() && hi.is_finite()) {
                return Err(Error::invalid(
                    op,
                    format!("supplied range of [{lo}, {hi}] is not finite"),
                ));
            }
            (lo, hi, None)
        }
        // Python ints 0 and 1: weak, so float data keeps its dtype
        None if a.size() == 0 => (0.0, 1.0, None),
        None => {
            let lo = a.min()?.astype(DType::Float64)?.to_vec::<f64>()?[0];
            let hi = a.max()?.astype(DType::Float64)?.to_vec::<f64>()?[0];
            if !(lo.is_finite() && hi.is_finite()) {
                return Err(Error::invalid(
                    op,
                    format!("autodetected range of [{lo}, {hi}] is not finite"),
                ));
            }
            (lo, hi, Some(t))
        }
    };
    if lo == hi {
        // numpy scalars of a float dtype subtract in it; ints and Python floats in float64
        let d = match scalar {
            Some(s) if s.is_float() => s,
            _ => DType::Float64,
        };
        return Ok((
            rnd(d, lo - 0.5),
            rnd(d, hi + 0.5),
            scalar.filter(|s| s.is_float()),
        ));
    }
    Ok((lo, hi, scalar))
}

/// NumPy's bin count of an estimator: `ceil(extent / width)` over the outer edges `(lo, hi)`
/// ([`outer_edges`] of `range`), 1 for empty data or a zero width; at least a width of 1 for
/// integer data.
fn estimated_bins(
    op: &str,
    a: &Array,
    estimator: BinEstimator,
    range: Option<(f64, f64)>,
    (lo, hi): (f64, f64),
) -> Result<usize> {
    let flat = a.ravel()?;
    // The estimators see only the data within the range (NumPy's `a = a[keep]`).
    let x = match range {
        Some(_) => {
            let keep = crate::math::arithmetic::multiply(
                &crate::math::logic::greater_equal(&flat, lo)?,
                &crate::math::logic::less_equal(&flat, hi)?,
            )?;
            flat.get(&[crate::array::index::IndexItem::Array(keep)])?
        }
        None => flat,
    };
    if x.size() == 0 {
        return Ok(1);
    }
    let x = x.astype(DType::Float64)?;
    let width = bin_width(&x, estimator, (lo, hi))?;
    if width == 0.0 || width.is_nan() {
        return Ok(1);
    }
    let width = if a.dtype().is_integer() && width < 1.0 {
        1.0
    } else {
        width
    };
    let n = ((hi - lo) / width).ceil();
    if !(n >= 1.0 && n < (1u64 << 40) as f64) {
        return Err(Error::invalid(
            op,
            format!("the {estimator:?} estimator gives {n} bins over ({lo}, {hi})"),
        ));
    }
    Ok(n as usize)
}

/// The width of `estimator` for the float64 data `x` (not empty) within the outer edges
/// `range`, NumPy's `_hist_bin_*` (only `'stone'` reads the edges: its trial histograms span
/// them).
fn bin_width(x: &Array, estimator: BinEstimator, range: (f64, f64)) -> Result<f64> {
    let scalar = |a: Array| -> Result<f64> { Ok(a.item()?.to_f64()) };
    let n = x.size() as f64;
    let ptp = || scalar(crate::statistics::order::ptp(x)?);
    let sturges = || -> Result<f64> { Ok(ptp()? / (n.log2() + 1.0)) };
    let fd = || -> Result<f64> {
        let q = |p: f64| scalar(crate::statistics::quantile::percentile(x, p)?);
        Ok(2.0 * (q(75.0)? - q(25.0)?) * n.powf(-1.0 / 3.0))
    };
    Ok(match estimator {
        BinEstimator::Sqrt => ptp()? / n.sqrt(),
        BinEstimator::Sturges => sturges()?,
        BinEstimator::Rice => ptp()? / (2.0 * n.powf(1.0 / 3.0)),
        BinEstimator::Scott => {
            (24.0 * std::f64::consts::PI.sqrt() / n).powf(1.0 / 3.0)
                * scalar(crate::statistics::averages::std(x)?)?
        }
        BinEstimator::Fd => fd()?,
        BinEstimator::Auto => {
            let (f, s) = (fd()?, sturges()?);
            if f != 0.0 {
                f.min(s)
            } else {
                s
            }
        }
        BinEstimator::Doane => {
            if n <= 2.0 {
                return Ok(0.0);
            }
            let sg1 = (6.0 * (n - 2.0) / ((n + 1.0) * (n + 3.0))).sqrt();
            let sigma = scalar(crate::statistics::averages::std(x)?)?;
            if sigma <= 0.0 {
                return Ok(0.0);
            }
            let mean = scalar(crate::statistics::averages::mean(x)?)?;
            let z = crate::math::arithmetic::true_divide(
                &crate::math::arithmetic::subtract(x, mean)?,
                sigma,
            )?;
            let g1 = scalar(crate::statistics::averages::mean(
                &crate::math::arithmetic::power(&z, 3)?,
            )?)?;
            ptp()? / (1.0 + n.log2() + (1.0 + g1.abs() / sg1).log2())
        }
        BinEstimator::Stone => {
            let extent = ptp()?;
            if n <= 1.0 || extent == 0.0 {
                return Ok(0.0);
            }
            let upper = 100usize.max(n.sqrt() as usize);
            let mut best = (f64::INFINITY, 1usize);
            for bins in 1..=upper {
                let h = extent / bins as f64;
                let opts = Histogram {
                    bins: Bins::Count(bins),
                    range: Some(range),
                    ..Default::default()
                };
                let counts = histogram_with(x, opts)?.0.astype(DType::Float64)?;
                let p = crate::math::arithmetic::true_divide(&counts, n)?;
                let pp = scalar(crate::statistics::sums::sum(
                    &crate::math::arithmetic::multiply(&p, &p)?,
                )?)?;
                let j = (2.0 - (n + 1.0) * pp) / h;
                // NumPy's min(..., key=jhat): the first of equal minima.
                if j < best.0 {
                    best = (j, bins);
                }
            }
            extent / best.1 as f64
        }
    })
}

/// The edges of `bins` equal bins for `a` (`histogram`: in NumPy's `bin_type`, the result type
/// of the range and `a`, at least float; `histogram2d`: in `linspace`'s own dtype).
pub(super) fn count_edges(
    op: &str,
    a: &Array,
    bins: usize,
    range: Option<(f64, f64)>,
    two_d: bool,
) -> Result<Array> {
    if bins < 1 {
        return Err(Error::invalid(
            op,
            "`bins` must be positive, when an integer",
        ));
    }
    edges_between(op, a, bins, outer_edges(op, a, range)?, two_d)
}

/// [`count_edges`] for outer edges already found (`bins >= 1`).
fn edges_between(
    op: &str,
    a: &Array,
    bins: usize,
    (lo, hi, scalar): (f64, f64, Option<DType>),
    two_d: bool,
) -> Result<Array> {
    // linspace's dtype: the range's (float64 for Python floats and integer scalars)
    let l = match scalar {
        Some(s) if s.is_float() => s,
        _ => DType::Float64,
    };
    let t = a.dtype();
    let out = if two_d {
        l
    } else {
        // NumPy's bin_type = result_type(first, last, a), at least float
        let b = match scalar {
            Some(s) => promote_types(s, t),
            None if t.is_float() => t,
            None => DType::Float64,
        };
        if b.is_integer() || b.is_bool() {
            DType::Float64
        } else {
            b
        }
    };
    // The edges are built on the host: a count whose edges cannot be held there is refused
    // (NumPy raises MemoryError).
    let edges = bins.checked_add(1).ok_or_else(|| {
        Error::invalid(
            op,
            format!("bins = {bins}: the bin edges do not fit in memory"),
        )
    })?;
    cupy_core::layout::checked_size(op, &[edges], 8)?;
    let e: Vec<f64> = linspace_host(op, lo, hi, edges, l)?
        .into_iter()
        .map(|x| rnd(out, x))
        .collect();
    if e.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid(
            op,
            format!("Too many bins for data range. Cannot create {bins} finite-sized bins."),
        ));
    }
    Array::from_slice_on(a.device(), &e, &[edges])?.astype(out)
}

/// Given edges, checked monotonic (NumPy's ValueError otherwise).
pub(super) fn given_edges(op: &str, e: &Array) -> Result<Array> {
    if e.ndim() != 1 {
        return Err(Error::invalid(op, "`bins` must be 1d, when an array"));
    }
    let v = e.astype(DType::Float64)?.to_vec::<f64>()?;
    if v.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::invalid(
            op,
            "`bins` must increase monotonically, when an array",
        ));
    }
    Ok(e.clone())
}

/// The slot of each element: `searchsorted(edges, x, 'right')`, one less for an element equal
/// to the last edge (0 and `len(edges)` are the outliers; NaN gives 0). Compared in
/// `promote(x, edges)`.
fn slot_kernel(xt: DType, et: DType) -> Kernel {
    let c = promote_types(xt, et);
    let i = DType::Int64;
    let (lo, hi, mid, it) = (0usize, 1usize, 2usize, 3usize);
    let var = |k: usize| Expr::var(k, i);
    let ne = Expr::param(0, i);
    let steps = Expr::param(1, i);
    let x = Expr::input(0, xt).cast(c);
    let edge = |k: Expr| Expr::load(0, et, k).cast(c);
    let one = Expr::constant(Scalar::Int64(1));
    let body = vec![
        Stmt::Let {
            var: lo,
            value: Expr::constant(Scalar::Int64(0)),
        },
        Stmt::Let {
            var: hi,
            value: ne.clone(),
        },
        Stmt::Let {
            var: mid,
            value: Expr::constant(Scalar::Int64(0)),
        },
        Stmt::For {
            var: it,
            start: Expr::constant(Scalar::Int64(0)),
            end: steps,
            body: vec![Stmt::If {
                cond: Expr::binary(B::Lt, var(lo), var(hi)),
                then_body: vec![
                    Stmt::Assign {
                        var: mid,
                        value: Expr::binary(
                            B::Div,
                            Expr::binary(B::Add, var(lo), var(hi)),
                            Expr::constant(Scalar::Int64(2)),
                        ),
                    },
                    Stmt::If {
                        cond: Expr::binary(B::Le, edge(var(mid)), x.clone()),
                        then_body: vec![Stmt::Assign {
                            var: lo,
                            value: Expr::binary(B::Add, var(mid), one.clone()),
                        }],
                        else_body: vec![Stmt::Assign {
                            var: hi,
                            value: var(mid),
                        }],
                    },
                ],
                else_body: vec![],
            }],
        },
        Stmt::Store {
            output: 0,
            value: Expr::select(
                Expr::binary(
                    B::Eq,
                    x.clone(),
                    edge(Expr::binary(B::Sub, ne, one.clone())),
                ),
                Expr::binary(B::Sub, var(lo), one),
                var(lo),
            ),
        },
    ];
    Kernel {
        name: "histogram_slot".into(),
        inputs: vec![xt],
        outputs: vec![i],
        raws: vec![et],
        params: vec![i, i],
        locals: vec![i; 4],
        body,
    }
}

/// The slots of `x` (flattened) against `edges`.
pub(super) fn slots(x: &Array, edges: &Array) -> Result<Array> {
    let ne = edges.size();
    let steps = (usize::BITS - ne.leading_zeros()) as i64 + 1;
    let k = slot_kernel(x.dtype(), edges.dtype());
    let e = edges.copy()?;
    let params = vec![Scalar::Int64(ne as i64), Scalar::Int64(steps)];
    Ok(elementwise(&k, &[&x.ravel()?], &[&e], params)?.remove(0))
}

/// Adds one (or the weight) of every element at its slot into `n` slots: int64 counts, or the
/// weights summed in float64/complex128.
pub(crate) fn accumulate(slot: &Array, n: usize, weights: Option<&Array>) -> Result<Array> {
    let dev = slot.device();
    match weights {
        None => {
            let out = Array::zeros_on(dev, &[n], DType::Int64)?;
            let one = Array::full_on(dev, &[], Scalar::Int64(1), DType::Int64)?;
            if slot.size() > 0 {
                crate::indexing::add_at(&out, slot, &one)?;
            }
            Ok(out)
        }
        Some(w) => {
            let acc = if w.dtype().is_complex() {
                DType::Complex128
            } else {
                DType::Float64
            };
            let out = Array::zeros_on(dev, &[n], acc)?;
            if slot.size() > 0 {
                crate::indexing::add_at(&out, slot, &w.ravel()?.astype(acc)?)?;
            }
            Ok(out)
        }
    }
}

/// `numpy.histogram(a)`: counts in 10 equal bins over the data's range, and the 11 edges.
///
/// # Errors
/// As [`histogram_with`].
pub fn histogram(a: &Array) -> Result<(Array, Array)> {
    histogram_with(a, Histogram::default())
}

/// `numpy.histogram(a, bins=..., range=..., density=..., weights=...)`: the counts (int64, or
/// the weights' dtype; float64 with `density`) and the bin edges.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bin count of 0, edges that decrease, a reversed or
/// non-finite range, data with a non-finite min/max and no range, weights of another shape
/// (NumPy's ValueErrors); dtype and device errors (float64 atomics on wgpu).
pub fn histogram_with(a: &Array, opts: impl Into<Histogram>) -> Result<(Array, Array)> {
    let op = "histogram";
    let o = opts.into();
    let a = if a.dtype().is_bool() {
        a.astype(DType::UInt8)?
    } else {
        a.clone()
    };
    if let Some(w) = &o.weights {
        if w.shape() != a.shape() {
            return Err(Error::invalid(
                op,
                "weights should have the same shape as a.",
            ));
        }
    }
    if a.dtype().is_complex() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![a.dtype()],
            msg: "complex data cannot be binned".into(),
        });
    }
    let edges = match &o.bins {
        Bins::Count(n) => count_edges(op, &a, *n, o.range, false)?,
        Bins::Edges(e) => given_edges(op, e)?,
        Bins::Estimator(e) => {
            // The outer edges once: the estimator's extent and the edges' range.
            let outer = outer_edges(op, &a, o.range)?;
            let n = estimated_bins(op, &a, *e, o.range, (outer.0, outer.1))?;
            edges_between(op, &a, n, outer, false)?
        }
    };
    let nb = edges.size().saturating_sub(1);
    let slot = slots(&a, &edges)?;
    let full = accumulate(&slot, nb + 2, o.weights.as_ref())?;
    let mut n = full.slice(&crate::s![1..(nb + 1) as isize])?.copy()?;
    if let Some(w) = &o.weights {
        n = n.astype(w.dtype())?;
    }
    if o.density {
        let db = crate::math::sumprod::diff(&edges.astype(DType::Float64)?)?;
        let total = n.sum()?;
        n = crate::math::arithmetic::true_divide(
            &crate::math::arithmetic::true_divide(&n, &db)?,
            &total,
        )?;
    }
    Ok((n, edges))
}
routine!(histogram, Statistics, probe: atomic_probe, notes: "bins (count, edges or a NumPy estimator: auto fd doane scott stone rice sturges sqrt), range, density, weights");

/// The registry probe of the histograms: the slot search and the int64 atomic add.
pub(super) fn atomic_probe(t: DType) -> Option<crate::registry::Need> {
    if t.is_complex() {
        return None;
    }
    Some(crate::registry::Need::Kernel(slot_kernel(
        t,
        DType::Float64,
    )))
}

/// The slot kernels (for the backends' compile checks).
#[cfg(test)]
pub(crate) fn every_kernel() -> Vec<Kernel> {
    let mut v = vec![];
    for x in [
        DType::UInt8,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
    ] {
        for e in [DType::Float16, DType::Float32, DType::Float64, DType::Int64] {
            v.push(slot_kernel(x, e));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_matches_numpy() {
        // np.linspace(0, 1, 11)[3] == 0.30000000000000004
        let v = linspace_host("t", 0.0, 1.0, 11, DType::Float64).unwrap();
        assert_eq!(v[3], 0.30000000000000004);
        assert_eq!(v[10], 1.0);
        // np.linspace(np.float32(-1.5), np.float32(2.25), 7) in float32
        let f = linspace_host("t", -1.5, 2.25, 7, DType::Float32).unwrap();
        assert_eq!(f[1], (-0.875f32) as f64);
    }
}
