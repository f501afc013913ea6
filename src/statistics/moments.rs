//! Moments: `var`, `std` (NumPy's "averages and variances").
//!
//! One tuple-accumulator reduction (count, mean, M2; [`cupy_core::kernel::reductions::moments`])
//! folded with Chan et al.'s parallel combine, so a long array with a large mean keeps its
//! digits (`E[x^2] - E[x]^2` would not). NumPy's rules: the divisor is `max(n - ddof, 0)`, so
//! `n - ddof <= 0` gives inf (or NaN where every element equals the mean) and an empty
//! reduction gives NaN, as NumPy's values (NumPy also warns); integers and bool give float64;
//! float16 accumulates in float32 and returns float16; complex input gives the real variance
//! (`mean(|x - mean(x)|^2)`) in its real dtype.

use crate::array::Array;
use crate::statistics::reduction::{reduce_with, Axes};
use cupy_core::error::Result;
use cupy_core::kernel::reductions::{moments, Moment};
use cupy_core::scalar::Scalar;

fn moment(which: Moment, a: &Array, axis: Axes, ddof: usize, keepdims: bool) -> Result<Array> {
    let k = moments(a.dtype(), which);
    let ddof = Scalar::Float64(ddof as f64).cast(k.params[0]);
    reduce_with(which.name(), &k, vec![ddof], &[a], &axis, keepdims)
}

/// `numpy.var(a)`: the variance of all elements (`ddof` 0), a 0-d array.
///
/// # Errors
/// Dtype refusals; device errors.
pub fn var(a: &Array) -> Result<Array> {
    moment(Moment::Var, a, Axes::All, 0, false)
}

/// `numpy.var(a, axis=axis, ddof=ddof, keepdims=keepdims)`: `sum(|x - mean|^2) / max(n -
/// ddof, 0)` over `axis` (`Axes::All`, one axis or several).
///
/// # Errors
/// [`cupy_core::Error::AxisOutOfRange`], a repeated axis; as [`var`].
pub fn var_with(a: &Array, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    moment(Moment::Var, a, axis.into(), ddof, keepdims)
}

/// `numpy.std(a)`: the standard deviation of all elements (`ddof` 0), a 0-d array.
///
/// # Errors
/// As [`var`].
pub fn std(a: &Array) -> Result<Array> {
    moment(Moment::Std, a, Axes::All, 0, false)
}

/// `numpy.std(a, axis=axis, ddof=ddof, keepdims=keepdims)`: the square root of
/// [`var_with`].
///
/// # Errors
/// As [`var_with`].
pub fn std_with(a: &Array, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
    moment(Moment::Std, a, axis.into(), ddof, keepdims)
}

impl Array {
    /// `a.var()`: see [`var`].
    ///
    /// # Errors
    /// As [`var`].
    pub fn var(&self) -> Result<Array> {
        var(self)
    }

    /// `a.var(axis=axis, ddof=ddof, keepdims=keepdims)`: see [`var_with`].
    ///
    /// # Errors
    /// As [`var_with`].
    pub fn var_with(&self, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
        var_with(self, axis, ddof, keepdims)
    }

    /// `a.std()`: see [`std()`].
    ///
    /// # Errors
    /// As [`std()`].
    pub fn std(&self) -> Result<Array> {
        std(self)
    }

    /// `a.std(axis=axis, ddof=ddof, keepdims=keepdims)`: see [`std_with`].
    ///
    /// # Errors
    /// As [`std_with`].
    pub fn std_with(&self, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array> {
        std_with(self, axis, ddof, keepdims)
    }
}
