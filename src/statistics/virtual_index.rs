//! NumPy's `method=`s of `quantile`/`percentile` and their virtual indexes, computed on the
//! host exactly as NumPy's `_quantile` computes them (each step rounded to the dtype NumPy
//! computes in), for [`super::quantile`].

use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// NumPy's `method=` of `quantile`/`percentile` (Hyndman and Fan's nine, then NumPy's four
/// discontinuous variations of `linear`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QuantileMethod {
    /// H&F 1: the inverse of the empirical CDF (discontinuous).
    InvertedCdf,
    /// H&F 2: averaged at discontinuities.
    AveragedInvertedCdf,
    /// H&F 3: the nearest even order statistic (discontinuous).
    ClosestObservation,
    /// H&F 4: linear interpolation of the empirical CDF.
    InterpolatedInvertedCdf,
    /// H&F 5: piecewise linear, the midpoints of the steps.
    Hazen,
    /// H&F 6: `p(k) = k / (n + 1)`.
    Weibull,
    /// H&F 7, NumPy's default: `(n - 1) * q`.
    #[default]
    Linear,
    /// H&F 8: approximately median-unbiased.
    MedianUnbiased,
    /// H&F 9: approximately unbiased for normal data.
    NormalUnbiased,
    /// The lower neighbour (`floor((n - 1) * q)`).
    Lower,
    /// The higher neighbour (`ceil((n - 1) * q)`).
    Higher,
    /// The nearest neighbour (ties to even, as `numpy.around`).
    Nearest,
    /// The mean of the lower and higher neighbours.
    Midpoint,
}

impl QuantileMethod {
    /// Every method, in NumPy's order.
    pub const ALL: [QuantileMethod; 13] = [
        QuantileMethod::InvertedCdf,
        QuantileMethod::AveragedInvertedCdf,
        QuantileMethod::ClosestObservation,
        QuantileMethod::InterpolatedInvertedCdf,
        QuantileMethod::Hazen,
        QuantileMethod::Weibull,
        QuantileMethod::Linear,
        QuantileMethod::MedianUnbiased,
        QuantileMethod::NormalUnbiased,
        QuantileMethod::Lower,
        QuantileMethod::Higher,
        QuantileMethod::Nearest,
        QuantileMethod::Midpoint,
    ];

    /// NumPy's name (`"linear"`, `"median_unbiased"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            QuantileMethod::InvertedCdf => "inverted_cdf",
            QuantileMethod::AveragedInvertedCdf => "averaged_inverted_cdf",
            QuantileMethod::ClosestObservation => "closest_observation",
            QuantileMethod::InterpolatedInvertedCdf => "interpolated_inverted_cdf",
            QuantileMethod::Hazen => "hazen",
            QuantileMethod::Weibull => "weibull",
            QuantileMethod::Linear => "linear",
            QuantileMethod::MedianUnbiased => "median_unbiased",
            QuantileMethod::NormalUnbiased => "normal_unbiased",
            QuantileMethod::Lower => "lower",
            QuantileMethod::Higher => "higher",
            QuantileMethod::Nearest => "nearest",
            QuantileMethod::Midpoint => "midpoint",
        }
    }

    /// The method NumPy names `name`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown name (NumPy's ValueError), listing the valid
    /// ones.
    pub fn from_name(name: &str) -> Result<QuantileMethod> {
        QuantileMethod::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                let all: Vec<&str> = QuantileMethod::ALL.iter().map(|m| m.name()).collect();
                Error::invalid(
                    "quantile",
                    format!("{name:?} is not a valid method. Use one of: {all:?}"),
                )
            })
    }

    /// True for the methods that take an order statistic without interpolating.
    pub(crate) fn discrete(self) -> bool {
        matches!(
            self,
            QuantileMethod::InvertedCdf
                | QuantileMethod::ClosestObservation
                | QuantileMethod::Lower
                | QuantileMethod::Higher
                | QuantileMethod::Nearest
        )
    }
}

/// `x` rounded to dtype `g` (float16, float32 or float64), as each of NumPy's steps rounds.
pub(crate) fn rnd(g: DType, x: f64) -> f64 {
    match g {
        DType::Float16 => half::f16::from_f64(x).to_f64(),
        DType::Float32 => x as f32 as f64,
        _ => x,
    }
}

/// One pick of a row: the lower and upper order statistics and the interpolation weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pick {
    pub(crate) prev: i64,
    pub(crate) next: i64,
    pub(crate) gamma: f64,
}

/// NumPy's `_compute_virtual_index` in dtype `g`: `n*q + (alpha + q*(1 - alpha - beta)) - 1`.
fn virtual_index(g: DType, n: f64, q: f64, alpha: f64, beta: f64) -> f64 {
    let nq = rnd(g, rnd(g, n) * q);
    let c = rnd(g, 1.0 - alpha - beta);
    let inner = rnd(g, rnd(g, alpha) + rnd(g, q * c));
    rnd(g, rnd(g, nq + inner) - 1.0)
}

/// NumPy's `_discrete_interpolation_to_boundaries`: `previous` where `cond(gamma, index)`,
/// else `previous + 1`, clipped at 0.
fn to_boundary(g: DType, index: f64, cond: impl Fn(f64, f64) -> bool) -> i64 {
    let prev = index.floor();
    let gamma = rnd(g, index - prev);
    let r = if cond(gamma, index) { prev } else { prev + 1.0 };
    (r as i64).max(0)
}

/// The pick of probability `q` (already in dtype `g`) in a sorted row of `n >= 1` valid
/// elements, as NumPy's `_quantile`.
pub(crate) fn pick(method: QuantileMethod, g: DType, n: usize, q: f64) -> Pick {
    let nf = n as f64;
    let last = n as i64 - 1;
    let lin = rnd(g, rnd(g, nf - 1.0) * q);
    let at = |i: i64| Pick {
        prev: i,
        next: i,
        gamma: 0.0,
    };
    let v = match method {
        QuantileMethod::InvertedCdf => {
            let i = rnd(g, rnd(g, nf * q) - 1.0);
            return at(to_boundary(g, i, |gm, _| gm == 0.0).min(last));
        }
        QuantileMethod::ClosestObservation => {
            let i = rnd(g, rnd(g, rnd(g, nf * q) - 1.0) - 0.5);
            return at(to_boundary(g, i, |gm, idx| {
                gm == 0.0 && idx.floor().rem_euclid(2.0) == 1.0
            })
            .min(last));
        }
        QuantileMethod::Lower => return at((lin.floor() as i64).clamp(0, last)),
        QuantileMethod::Higher => return at((lin.ceil() as i64).clamp(0, last)),
        QuantileMethod::Nearest => return at((lin.round_ties_even() as i64).clamp(0, last)),
        QuantileMethod::AveragedInvertedCdf => rnd(g, rnd(g, nf * q) - 1.0),
        QuantileMethod::InterpolatedInvertedCdf => virtual_index(g, nf, q, 0.0, 1.0),
        QuantileMethod::Hazen => virtual_index(g, nf, q, 0.5, 0.5),
        QuantileMethod::Weibull => virtual_index(g, nf, q, 0.0, 0.0),
        QuantileMethod::Linear => lin,
        QuantileMethod::MedianUnbiased => virtual_index(g, nf, q, 1.0 / 3.0, 1.0 / 3.0),
        QuantileMethod::NormalUnbiased => virtual_index(g, nf, q, 3.0 / 8.0, 3.0 / 8.0),
        QuantileMethod::Midpoint => rnd(g, 0.5 * rnd(g, lin.floor() + lin.ceil())),
    };
    // NumPy's _get_indexes: above the last index (or NaN) both neighbours are the last
    // element, below 0 both are the first; gamma is taken from the adjusted previous index.
    let (mut prev, mut next) = (v.floor(), v.floor() + 1.0);
    if v >= nf - 1.0 || v.is_nan() {
        prev = -1.0;
        next = -1.0;
    }
    if v < 0.0 {
        prev = 0.0;
        next = 0.0;
    }
    let mut gamma = rnd(g, v - prev);
    match method {
        QuantileMethod::AveragedInvertedCdf => gamma = if gamma == 0.0 { 0.5 } else { 1.0 },
        QuantileMethod::Midpoint => gamma = if v.rem_euclid(1.0) == 0.0 { 0.0 } else { 0.5 },
        _ => {}
    }
    let idx = |i: f64| if i < 0.0 { last } else { i as i64 };
    Pick {
        prev: idx(prev),
        next: idx(next),
        gamma,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_match_numpy_formulas() {
        let f = DType::Float64;
        // np.quantile(range(10), 0.3) -> virtual index 2.7
        let p = pick(QuantileMethod::Linear, f, 10, 0.3);
        assert_eq!((p.prev, p.next), (2, 3));
        assert!((p.gamma - 0.7).abs() < 1e-12);
        // q = 1 takes the last element twice
        let p = pick(QuantileMethod::Linear, f, 10, 1.0);
        assert_eq!((p.prev, p.next), (9, 9));
        assert_eq!(pick(QuantileMethod::Lower, f, 10, 0.35).prev, 3);
        assert_eq!(pick(QuantileMethod::Higher, f, 10, 0.35).prev, 4);
        // 0.5 * 9 = 4.5 rounds to even
        assert_eq!(pick(QuantileMethod::Nearest, f, 10, 0.5).prev, 4);
        assert_eq!(pick(QuantileMethod::InvertedCdf, f, 10, 0.3).prev, 2);
        assert_eq!(pick(QuantileMethod::InvertedCdf, f, 10, 0.0).prev, 0);
        let m = pick(QuantileMethod::Midpoint, f, 10, 0.3);
        assert_eq!((m.prev, m.next, m.gamma), (2, 3, 0.5));
        let w = pick(QuantileMethod::Weibull, f, 4, 0.1);
        assert_eq!((w.prev, w.next), (0, 0));
        for m in QuantileMethod::ALL {
            assert_eq!(QuantileMethod::from_name(m.name()).unwrap(), m);
        }
        assert!(QuantileMethod::from_name("cubic").is_err());
    }
}
