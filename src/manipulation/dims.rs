//! Changing the number of dimensions (CuPy's `cupy/_manipulation/dims.py`): `broadcast_to`,
//! `broadcast_arrays`, `expand_dims`, `squeeze`, `atleast_1d/2d/3d`, all views. Each routine's registry row is the `routine!` line
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

    /// At least one dimension (`atleast_1d`): a 0-d array becomes shape `(1,)`; a view.
    pub fn atleast_1d(&self) -> Array {
        self.with_leading_axes(1)
    }

    /// At least two dimensions (`atleast_2d`): `()` becomes `(1, 1)`, `(N,)` becomes `(1, N)`;
    /// a view.
    pub fn atleast_2d(&self) -> Array {
        self.with_leading_axes(2)
    }

    /// At least three dimensions (`atleast_3d`): `()` becomes `(1, 1, 1)`, `(N,)` becomes
    /// `(1, N, 1)`, `(M, N)` becomes `(M, N, 1)`; a view.
    pub fn atleast_3d(&self) -> Array {
        let mut l = self.layout.clone();
        match l.ndim() {
            0 => {
                l.shape = vec![1, 1, 1];
                l.strides = vec![0, 0, 0];
            }
            1 => {
                l.shape = vec![1, l.shape[0], 1];
                l.strides = vec![0, l.strides[0], 0];
            }
            2 => {
                l.shape.push(1);
                l.strides.push(0);
            }
            _ => {}
        }
        self.with_layout(l)
    }

    /// Prepends length-1 axes until there are `n` (`atleast_1d`/`atleast_2d`).
    fn with_leading_axes(&self, n: usize) -> Array {
        let mut l = self.layout.clone();
        while l.ndim() < n {
            l.shape.insert(0, 1);
            l.strides.insert(0, 0);
        }
        self.with_layout(l)
    }
}

/// `cupy.atleast_1d(a)`: a view with at least one dimension ([`Array::atleast_1d`]).
pub fn atleast_1d(a: &Array) -> Array {
    a.atleast_1d()
}
routine!(atleast_1d, Manipulation, notes: "views; one array per call");

/// `cupy.atleast_2d(a)`: a view with at least two dimensions ([`Array::atleast_2d`]).
pub fn atleast_2d(a: &Array) -> Array {
    a.atleast_2d()
}
routine!(atleast_2d, Manipulation, notes: "views; one array per call");

/// `cupy.atleast_3d(a)`: a view with at least three dimensions ([`Array::atleast_3d`]).
pub fn atleast_3d(a: &Array) -> Array {
    a.atleast_3d()
}
routine!(atleast_3d, Manipulation, notes: "views; one array per call");

/// `cupy.broadcast_arrays(*arrays)`: every array broadcast to their common shape, as views
/// with zero strides.
///
/// # Errors
/// [`Error::ShapeMismatch`] naming the shapes that do not broadcast.
pub fn broadcast_arrays(arrays: &[&Array]) -> Result<Vec<Array>> {
    let mut shape: Vec<usize> = vec![];
    for a in arrays {
        shape = cupy_core::layout::broadcast_shapes("broadcast_arrays", &shape, a.shape())?;
    }
    arrays.iter().map(|a| a.broadcast_to(&shape)).collect()
}
routine!(broadcast_arrays, Manipulation, notes: "views");

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
