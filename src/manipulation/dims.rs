//! Changing the number of dimensions (CuPy's `cupy/_manipulation/dims.py`): `broadcast_to`,
//! `expand_dims`, `squeeze`, all views. Each routine's registry row is the `routine!` line
//! after it.

use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::normalize_axis;

impl Array {
    /// Broadcasts to `shape` (`cupy.broadcast_to`): a read-only-in-spirit view with zero strides.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if not broadcastable; [`Error::InvalidArgument`] for more than
    /// 64 dimensions.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        cupy_core::layout::checked_size("broadcast_to", shape, self.dtype.itemsize())?;
        self.layout
            .broadcast_to(shape)
            .map(|l| self.with_layout(l))
            .ok_or_else(|| Error::ShapeMismatch {
                op: "broadcast_to".into(),
                lhs: self.shape().to_vec(),
                rhs: shape.to_vec(),
            })
    }

    /// Inserts a length-1 axis at `axis` (`expand_dims`): a view.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a result of more than 64
    /// dimensions.
    pub fn expand_dims(&self, axis: isize) -> Result<Array> {
        cupy_core::layout::check_ndim("expand_dims", self.ndim() + 1)?;
        let ax = normalize_axis("expand_dims", axis, self.ndim() + 1)?;
        let mut l = self.layout.clone();
        l.shape.insert(ax, 1);
        l.strides.insert(ax, 0);
        Ok(self.with_layout(l))
    }

    /// Removes length-1 axes (`squeeze`): a view.
    pub fn squeeze(&self) -> Array {
        let mut l = self.layout.clone();
        let keep: Vec<usize> = (0..l.ndim()).filter(|&i| l.shape[i] != 1).collect();
        l.shape = keep.iter().map(|&i| self.layout.shape[i]).collect();
        l.strides = keep.iter().map(|&i| self.layout.strides[i]).collect();
        self.with_layout(l)
    }
}

/// `cupy.expand_dims(a, axis)`: a view; the function form of [`Array::expand_dims`].
///
/// # Errors
/// As [`Array::expand_dims`].
pub fn expand_dims(a: &Array, axis: isize) -> Result<Array> {
    a.expand_dims(axis)
}
routine!(expand_dims, Manipulation, notes: "views");

/// `cupy.squeeze(a)`: the length-1 axes removed, a view; the function form of
/// [`Array::squeeze`].
pub fn squeeze(a: &Array) -> Array {
    a.squeeze()
}
routine!(squeeze, Manipulation, notes: "views");

/// `cupy.broadcast_to(a, shape)`: a view with zero strides; the function form of
/// [`Array::broadcast_to`].
///
/// # Errors
/// As [`Array::broadcast_to`].
pub fn broadcast_to(a: &Array, shape: &[usize]) -> Result<Array> {
    a.broadcast_to(shape)
}
routine!(broadcast_to, Manipulation, notes: "views");
