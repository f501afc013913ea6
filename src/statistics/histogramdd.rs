//! Multi-dimensional histograms: `histogramdd` and `histogram2d` (NumPy's `histogramdd`
//! semantics: float64 counts, float64 edges per dimension), on the bin search and atomic adds
//! of [`super::histogram`]: each sample's slot per dimension (the two outlier slots included)
//! combined into one flat index, counted once, and the outlier slots cut off.

use super::histogram::{accumulate, atomic_probe, count_edges, given_edges, slots, Bins};
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// Keyword arguments of [`histogram2d_with`] (`numpy.histogram2d(x, y, bins=10, range=None,
/// density=None, weights=None)`).
#[derive(Clone, Debug)]
pub struct Histogram2d {
    /// The bins of `x` and of `y` (`bins=`: one value for both, or a pair).
    pub bins: [Bins; 2],
    /// The ranges of `x` and `y` (`range=`).
    pub range: Option<[(f64, f64); 2]>,
    /// A probability density (`density=`).
    pub density: bool,
    /// A weight per sample (`weights=`).
    pub weights: Option<Array>,
}

impl Default for Histogram2d {
    fn default() -> Histogram2d {
        Histogram2d {
            bins: [Bins::Count(10), Bins::Count(10)],
            range: None,
            density: false,
            weights: None,
        }
    }
}

/// `numpy.histogram2d(x, y)`: the float64 counts of the sample pairs in 10 x 10 bins, and the
/// x and y edges.
///
/// # Errors
/// As [`histogram2d_with`].
pub fn histogram2d(x: &Array, y: &Array) -> Result<(Array, Array, Array)> {
    histogram2d_with(x, y, Histogram2d::default())
}

/// `numpy.histogram2d(x, y, bins=..., range=..., density=..., weights=...)`.
///
/// # Errors
/// [`Error::InvalidArgument`] for `x` and `y` of different lengths and as
/// [`super::histogram::histogram_with`]; dtype and device errors.
pub fn histogram2d_with(x: &Array, y: &Array, o: Histogram2d) -> Result<(Array, Array, Array)> {
    let op = "histogram2d";
    if x.size() != y.size() || x.ndim() != 1 || y.ndim() != 1 {
        return Err(Error::invalid(op, "x and y must have the same length."));
    }
    let range = o.range.map(|r| r.to_vec());
    let (hist, mut edges) = histogram_nd(
        op,
        &[x.clone(), y.clone()],
        &o.bins,
        range.as_deref(),
        o.density,
        o.weights.as_ref(),
    )?;
    let ye = edges.pop().expect("two edges");
    let xe = edges.pop().expect("two edges");
    Ok((hist, xe, ye))
}
routine!(histogram2d, Statistics, probe: atomic_probe, notes: "bins (count or edges per axis), range, density, weights");

/// Keyword arguments of [`histogramdd_with`] (`numpy.histogramdd(sample, bins=10, range=None,
/// density=None, weights=None)`).
#[derive(Clone, Debug)]
pub struct HistogramDd {
    /// The bins (`bins=`): one for every dimension, or one per dimension.
    pub bins: Vec<Bins>,
    /// The range of each dimension (`range=`); `None`: each dimension's min and max.
    pub range: Option<Vec<(f64, f64)>>,
    /// A probability density (`density=`).
    pub density: bool,
    /// A weight per sample (`weights=`, length N).
    pub weights: Option<Array>,
}

impl Default for HistogramDd {
    fn default() -> HistogramDd {
        HistogramDd {
            bins: vec![Bins::Count(10)],
            range: None,
            density: false,
            weights: None,
        }
    }
}

impl From<usize> for HistogramDd {
    fn from(n: usize) -> HistogramDd {
        HistogramDd {
            bins: vec![Bins::Count(n)],
            ..Default::default()
        }
    }
}

/// `numpy.histogramdd(sample)`: the float64 counts of the `N` points of the `(N, D)` `sample`
/// in 10 bins per dimension, and the `D` float64 edge arrays.
///
/// # Errors
/// As [`histogramdd_with`].
pub fn histogramdd(sample: &Array) -> Result<(Array, Vec<Array>)> {
    histogramdd_with(sample, HistogramDd::default())
}

/// `numpy.histogramdd(sample, bins=..., range=..., density=..., weights=...)` of an `(N, D)`
/// `sample`: counts of shape `(bins_0, ..., bins_{D-1})`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a sample that is not 2-d, `bins` or `range` of another
/// length than 1 and `D` (`range`: `D`), weights of another length, an estimator in `bins`, and
/// as [`super::histogram::histogram_with`]; dtype and device errors.
pub fn histogramdd_with(
    sample: &Array,
    opts: impl Into<HistogramDd>,
) -> Result<(Array, Vec<Array>)> {
    let op = "histogramdd";
    let o = opts.into();
    if sample.ndim() != 2 {
        return Err(Error::invalid(
            op,
            format!(
                "sample must be an (N, D) array, not of shape {:?}",
                sample.shape()
            ),
        ));
    }
    let d = sample.shape()[1];
    let bins = match o.bins.len() {
        1 => vec![o.bins[0].clone(); d],
        n if n == d => o.bins.clone(),
        n => {
            return Err(Error::invalid(
                op,
                format!("The dimension of bins must be equal to the dimension of the sample x ({n} against {d})."),
            ))
        }
    };
    if let Some(r) = &o.range {
        if r.len() != d {
            return Err(Error::invalid(
                op,
                format!(
                    "range argument must have one entry per dimension ({} against {d})",
                    r.len()
                ),
            ));
        }
    }
    let coords: Vec<Array> = (0..d)
        .map(|k| crate::manipulation::narrow(sample, 1, k, 1, 1).reshape(&[-1]))
        .collect::<Result<_>>()?;
    histogram_nd(
        op,
        &coords,
        &bins,
        o.range.as_deref(),
        o.density,
        o.weights.as_ref(),
    )
}
routine!(histogramdd, Statistics, probe: atomic_probe, notes: "bins (count or edges per dimension), range, density, weights");

/// The histogram of the points whose coordinates are `coords` (D 1-d arrays of one length):
/// the float64 counts and each dimension's edges.
fn histogram_nd(
    op: &str,
    coords: &[Array],
    bins: &[Bins],
    range: Option<&[(f64, f64)]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Vec<Array>)> {
    let edges: Vec<Array> = coords
        .iter()
        .zip(bins)
        .enumerate()
        .map(|(i, (a, b))| match b {
            Bins::Count(n) => count_edges(op, a, *n, range.map(|r| r[i]), true),
            Bins::Edges(e) => given_edges(op, e),
            // NumPy's histogramdd takes no estimator names.
            Bins::Estimator(e) => Err(Error::invalid(
                op,
                format!("bins must be a count or edges, not the {e:?} estimator"),
            )),
        })
        .collect::<Result<_>>()?;
    if let Some(w) = weights {
        if w.size() != coords[0].size() {
            return Err(Error::invalid(
                op,
                "weights should have the same length as x.",
            ));
        }
    }
    // Slots per dimension: the bins plus the two outlier slots.
    let sizes: Vec<usize> = edges.iter().map(|e| e.size() + 1).collect();
    let total = sizes.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    let total =
        total.ok_or_else(|| Error::invalid(op, format!("{sizes:?} bins do not fit in memory")))?;
    cupy_core::layout::checked_size(op, &[total], 8)?;
    let mut flat: Option<Array> = None;
    for (a, (e, &n)) in coords.iter().zip(edges.iter().zip(&sizes)) {
        let s = slots(a, e)?;
        flat = Some(match flat {
            None => s,
            Some(f) => {
                crate::math::arithmetic::add(&crate::math::arithmetic::multiply(&f, n as i64)?, &s)?
            }
        });
    }
    let flat = flat.ok_or_else(|| Error::invalid(op, "a sample of no dimension"))?;
    let full = accumulate(&flat, total, weights)?.astype(DType::Float64)?;
    let shape: Vec<isize> = sizes.iter().map(|&n| n as isize).collect();
    let inner: Vec<crate::array::index::IndexItem> = sizes
        .iter()
        .map(|&n| crate::s![1..(n - 1) as isize][0].clone())
        .collect();
    let mut hist = full.reshape(&shape)?.get(&inner)?.copy()?;
    if density {
        let s = hist.sum()?;
        for (k, e) in edges.iter().enumerate() {
            let mut along = vec![1isize; edges.len()];
            along[k] = -1;
            let width = crate::math::sumprod::diff(e)?.reshape(&along)?;
            hist = crate::math::arithmetic::true_divide(&hist, &width)?;
        }
        hist = crate::math::arithmetic::true_divide(&hist, &s)?;
    }
    Ok((hist, edges))
}
