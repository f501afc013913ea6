//! Changing the shape (CuPy's `cupy/_manipulation/shape.py`): `reshape` and `ravel`, views
//! where NumPy makes views. Each routine's registry row is the `routine!` line after it.

use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::Layout;

impl Array {
    /// Gives a new shape without changing the data; one axis may be -1 (inferred). A view when
    /// the strides allow (NumPy's rules), otherwise a copy (`cupy.reshape`).
    ///
    /// # Errors
    /// [`Error::InvalidReshape`] when sizes differ; [`Error::InvalidArgument`] when more than one
    /// axis is -1 or `shape` has more than 64 dimensions (NumPy's limit).
    pub fn reshape(&self, shape: &[isize]) -> Result<Array> {
        cupy_core::layout::check_ndim("reshape", shape.len())?;
        let err = || Error::InvalidReshape {
            from: self.shape().to_vec(),
            to: shape.to_vec(),
            size: self.size(),
        };
        let mut infer = None;
        let mut known = 1usize;
        for (i, &d) in shape.iter().enumerate() {
            if d == -1 {
                if infer.is_some() {
                    return Err(Error::invalid(
                        "reshape",
                        "can only specify one unknown dimension",
                    ));
                }
                infer = Some(i);
            } else if d < 0 {
                return Err(err());
            } else {
                known = known.checked_mul(d as usize).ok_or_else(err)?;
            }
        }
        let mut new: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(i) = infer {
            if known == 0 || !self.size().is_multiple_of(known) {
                return Err(err());
            }
            new[i] = self.size() / known;
        } else if known != self.size() {
            return Err(err());
        }
        match self.layout.reshape_view(&new) {
            Some(l) => Ok(self.with_layout(l)),
            None => Ok(self.copy()?.with_layout(Layout::contiguous(&new))),
        }
    }

    /// Flattens to 1-D (`ravel`): a view when contiguous, else a copy.
    ///
    /// # Errors
    /// Device errors from the copy.
    pub fn ravel(&self) -> Result<Array> {
        self.reshape(&[-1])
    }
}

/// `cupy.reshape(a, shape)`.
///
/// # Errors
/// As [`Array::reshape`].
pub fn reshape(a: &Array, shape: &[isize]) -> Result<Array> {
    a.reshape(shape)
}
routine!(reshape, Manipulation, notes: "views where NumPy makes views");

/// `cupy.ravel(a)`.
///
/// # Errors
/// As [`Array::ravel`].
pub fn ravel(a: &Array) -> Result<Array> {
    a.ravel()
}
routine!(ravel, Manipulation, notes: "views where NumPy makes views");
