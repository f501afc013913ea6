//! Transpose-like operations (CuPy's `cupy/_manipulation/transpose.py`): `transpose`,
//! `swapaxes` and `a.T`, all views. Each routine's registry row is the `routine!` line after it.

use crate::array::Array;
use cupy_core::error::Result;
use cupy_core::layout::normalize_axis;

impl Array {
    /// Reverses the axes (`a.T`): a view.
    pub fn t(&self) -> Array {
        self.with_layout(self.layout.transposed())
    }

    /// Permutes the axes (`transpose(axes)`): a view.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](cupy_core::Error::InvalidArgument) unless `axes` is a
    /// permutation of the axes.
    pub fn transpose(&self, axes: &[isize]) -> Result<Array> {
        Ok(self.with_layout(self.layout.permute(axes)?))
    }

    /// Swaps two axes (`swapaxes`): a view.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`](cupy_core::Error::AxisOutOfRange).
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array> {
        let n = self.ndim();
        let (a, b) = (
            normalize_axis("swapaxes", a, n)?,
            normalize_axis("swapaxes", b, n)?,
        );
        let mut perm: Vec<isize> = (0..n as isize).collect();
        perm.swap(a, b);
        self.transpose(&perm)
    }
}

/// `cupy.transpose(a)`: reversed axes, a view.
pub fn transpose(a: &Array) -> Array {
    a.t()
}
routine!(transpose, Manipulation, notes: "views");

/// `cupy.swapaxes(a, axis1, axis2)`: a view; the function form of [`Array::swapaxes`].
///
/// # Errors
/// As [`Array::swapaxes`].
pub fn swapaxes(a: &Array, axis1: isize, axis2: isize) -> Result<Array> {
    a.swapaxes(axis1, axis2)
}
routine!(swapaxes, Manipulation, notes: "views");
