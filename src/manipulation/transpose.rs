//! Transpose-like operations (CuPy's `cupy/_manipulation/transpose.py`): `transpose`,
//! `moveaxis`, `rollaxis`,
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

/// `cupy.transpose(a, axes)`: axis `i` of the result is axis `axes[i]` of `a`, a view; the
/// function form of [`Array::transpose`].
///
/// # Errors
/// As [`Array::transpose`].
pub fn transpose_axes(a: &Array, axes: &[isize]) -> Result<Array> {
    a.transpose(axes)
}
routine!(
    transpose_axes as "cupy.transpose (axes)",
    Manipulation,
    notes: "views"
);

/// `numpy.permute_dims(a, axes)` (NumPy 2, the array API's name): [`transpose_axes`], a view.
///
/// # Errors
/// As [`Array::transpose`].
pub fn permute_dims(a: &Array, axes: &[isize]) -> Result<Array> {
    a.transpose(axes)
}
routine!(permute_dims, Manipulation, notes: "views");

impl Array {
    /// Moves axes `source` to positions `destination`, the others keeping their order
    /// (`moveaxis`): a view.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](cupy_core::Error::InvalidArgument) for lengths that differ or
    /// repeated axes; [`Error::AxisOutOfRange`](cupy_core::Error::AxisOutOfRange).
    pub fn moveaxis(&self, source: &[isize], destination: &[isize]) -> Result<Array> {
        let op = "moveaxis";
        let n = self.ndim();
        let src = super::rearrange::axis_list(op, source, n)?;
        let dst = super::rearrange::axis_list(op, destination, n)?;
        if src.len() != dst.len() {
            return Err(cupy_core::Error::invalid(
                op,
                format!(
                    "`source` and `destination` arguments must have the same number of \
                     elements ({source:?} and {destination:?})"
                ),
            ));
        }
        let mut order: Vec<usize> = (0..n).filter(|a| !src.contains(a)).collect();
        let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        pairs.sort_unstable();
        for (d, s) in pairs {
            order.insert(d, s);
        }
        let perm: Vec<isize> = order.into_iter().map(|a| a as isize).collect();
        self.transpose(&perm)
    }
}

/// `cupy.moveaxis(a, source, destination)`: a view; the function form of
/// [`Array::moveaxis`].
///
/// # Errors
/// As [`Array::moveaxis`].
pub fn moveaxis(a: &Array, source: &[isize], destination: &[isize]) -> Result<Array> {
    a.moveaxis(source, destination)
}
routine!(moveaxis, Manipulation, notes: "views");

/// `cupy.rollaxis(a, axis, start=0)`: moves `axis` back until it lies before position
/// `start`, a view.
///
/// # Errors
/// [`Error::AxisOutOfRange`](cupy_core::Error::AxisOutOfRange) for `axis` outside
/// `[-ndim, ndim)` or `start` outside `[-ndim, ndim]`.
pub fn rollaxis(a: &Array, axis: isize, start: isize) -> Result<Array> {
    let n = a.ndim();
    let ax = normalize_axis("rollaxis", axis, n)?;
    let ni = n as isize;
    if start < -ni || start > ni {
        return Err(cupy_core::Error::AxisOutOfRange {
            op: "rollaxis (start)".into(),
            axis: start,
            ndim: n + 1,
        });
    }
    let mut start = if start < 0 { start + ni } else { start } as usize;
    if ax < start {
        start -= 1;
    }
    if ax == start {
        return Ok(a.clone());
    }
    let mut order: Vec<isize> = (0..ni).filter(|&i| i as usize != ax).collect();
    order.insert(start, ax as isize);
    a.transpose(&order)
}
routine!(rollaxis, Manipulation, notes: "views");
