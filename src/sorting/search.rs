//! Searching: `argmax`, `argmin` (NumPy's "sorting, searching, and counting" family).
//!
//! Both are one tuple-accumulator reduction (value and index,
//! [`cupy_core::kernel::reductions::arg_extreme`]) with NumPy's rules: the first occurrence of
//! the extreme wins ties, a NaN is extreme (the first NaN wins: `argmax([1, nan, 3, nan])` is
//! 1), `-0.0` and `0.0` tie, complex values compare lexicographically (real part, then
//! imaginary part; a NaN in either part wins). The result is `int64`.

use crate::array::Array;
use crate::statistics::reduction::{normalize_axes, reduce_with, Axes};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::reductions::{arg_extreme, Extreme};

/// `numpy.argmax`/`argmin(a, axis, keepdims)`.
fn arg_reduce(which: Extreme, a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    let op = which.name();
    let axes = Axes::from(axis);
    let red = normalize_axes(op, &axes, a.ndim())?;
    if red.iter().any(|&i| a.shape()[i] == 0) {
        return Err(Error::invalid(
            op,
            format!("attempt to get {op} of an empty sequence"),
        ));
    }
    let k = arg_extreme(a.dtype(), which);
    reduce_with(op, &k, vec![], &[a], &axes, keepdims)
}

/// `numpy.argmax(a)`: the index of the (first) maximum in the flattened array, a 0-d `int64`
/// array. NaN counts as the maximum (the first NaN wins).
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty array ("attempt to get argmax of an empty
/// sequence"); dtype refusals (complex on wgpu); device errors.
pub fn argmax(a: &Array) -> Result<Array> {
    arg_reduce(Extreme::Max, a, None, false)
}

/// `numpy.argmax(a, axis=axis)`: indices of the (first) maxima along `axis`.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; as [`argmax`] when that axis is empty.
pub fn argmax_axis(a: &Array, axis: isize) -> Result<Array> {
    arg_reduce(Extreme::Max, a, Some(axis), false)
}

/// `numpy.argmax(a, axis=axis, keepdims=keepdims)`: `axis` `None` indexes the flattened
/// array; `keepdims` keeps the reduced axes (all of them for `None`) with length 1.
///
/// # Errors
/// As [`argmax_axis`].
pub fn argmax_with(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg_reduce(Extreme::Max, a, axis, keepdims)
}

/// `numpy.argmin(a)`: the index of the (first) minimum in the flattened array, a 0-d `int64`
/// array. NaN counts as the minimum (the first NaN wins).
///
/// # Errors
/// As [`argmax`].
pub fn argmin(a: &Array) -> Result<Array> {
    arg_reduce(Extreme::Min, a, None, false)
}

/// `numpy.argmin(a, axis=axis)`.
///
/// # Errors
/// As [`argmax_axis`].
pub fn argmin_axis(a: &Array, axis: isize) -> Result<Array> {
    arg_reduce(Extreme::Min, a, Some(axis), false)
}

/// `numpy.argmin(a, axis=axis, keepdims=keepdims)`.
///
/// # Errors
/// As [`argmax_axis`].
pub fn argmin_with(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg_reduce(Extreme::Min, a, axis, keepdims)
}

impl Array {
    /// `a.argmax()`: see [`argmax`].
    ///
    /// # Errors
    /// As [`argmax`].
    pub fn argmax(&self) -> Result<Array> {
        argmax(self)
    }

    /// `a.argmax(axis=axis)`: see [`argmax_axis`].
    ///
    /// # Errors
    /// As [`argmax_axis`].
    pub fn argmax_axis(&self, axis: isize) -> Result<Array> {
        argmax_axis(self, axis)
    }

    /// `a.argmax(axis=axis, keepdims=keepdims)`: see [`argmax_with`].
    ///
    /// # Errors
    /// As [`argmax_with`].
    pub fn argmax_with(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        argmax_with(self, axis, keepdims)
    }

    /// `a.argmin()`: see [`argmin`].
    ///
    /// # Errors
    /// As [`argmin`].
    pub fn argmin(&self) -> Result<Array> {
        argmin(self)
    }

    /// `a.argmin(axis=axis)`: see [`argmin_axis`].
    ///
    /// # Errors
    /// As [`argmin_axis`].
    pub fn argmin_axis(&self, axis: isize) -> Result<Array> {
        argmin_axis(self, axis)
    }

    /// `a.argmin(axis=axis, keepdims=keepdims)`: see [`argmin_with`].
    ///
    /// # Errors
    /// As [`argmin_with`].
    pub fn argmin_with(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        argmin_with(self, axis, keepdims)
    }
}
