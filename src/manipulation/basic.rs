//! Copies and conversions (CuPy's `cupy/_manipulation/basic.py` and the `ndarray` methods
//! `astype`, `copy`, `fill`): each is one elementwise IR kernel (a cast, or a parameter stored
//! into every element). Each routine's registry row is the `routine!` line after it.

use crate::array::Array;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::scalar::Scalar;

impl Array {
    /// Copies into a new C-contiguous array on the same device (`a.copy()`).
    ///
    /// # Errors
    /// Device errors.
    pub fn copy(&self) -> Result<Array> {
        self.astype(self.dtype)
    }

    /// Converts to `dtype` (`a.astype(dtype)`, casting="unsafe", always a new array), with
    /// C semantics as [`Scalar::cast`] describes.
    ///
    /// # Errors
    /// [`Error::DTypeNotSupported`] if the device lacks either dtype; device errors.
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        let kernel = Kernel::map(
            "astype",
            vec![self.dtype],
            vec![],
            Expr::input(0, self.dtype).cast(dtype),
        );
        Elementwise {
            op: "astype",
            kernel: &kernel,
            inputs: &[self],
            raws: &[],
            params: vec![],
            outs: vec![None],
            device: None,
            shape: None,
        }
        .run_one()
    }

    /// Copies `src` into this array (`cupy.copyto(self, src)`, casting="same_kind"), broadcasting
    /// `src` to this array's shape.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], [`Error::TypeError`] (cast not same_kind), device errors.
    pub fn copy_from(&self, src: &Array) -> Result<()> {
        if !cupy_core::promote::can_cast_same_kind(src.dtype, self.dtype) {
            return Err(Error::TypeError {
                op: "copyto".into(),
                dtypes: vec![src.dtype, self.dtype],
                msg: "cannot cast with casting rule 'same_kind'".into(),
            });
        }
        let b = src
            .broadcast_to(self.shape())
            .map_err(|_| Error::ShapeMismatch {
                op: "copyto".into(),
                lhs: src.shape().to_vec(),
                rhs: self.shape().to_vec(),
            })?;
        let kernel = Kernel::map(
            "copyto",
            vec![src.dtype],
            vec![],
            Expr::input(0, src.dtype).cast(self.dtype),
        );
        Elementwise {
            op: "copyto",
            kernel: &kernel,
            inputs: &[&b],
            raws: &[],
            params: vec![],
            outs: vec![Some(self)],
            device: None,
            shape: None,
        }
        .run()?;
        Ok(())
    }

    /// Fills every element with `value` (`a.fill(value)`), cast to the array's dtype.
    ///
    /// # Errors
    /// Device errors; [`Error::InvalidArgument`] on a broadcast view.
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        let v = value.into().cast(self.dtype);
        let kernel = Kernel::map("fill", vec![], vec![self.dtype], Expr::param(0, self.dtype));
        Elementwise {
            op: "fill",
            kernel: &kernel,
            inputs: &[],
            raws: &[],
            params: vec![v],
            outs: vec![Some(self)],
            device: Some(&self.device),
            shape: Some(self.shape()),
        }
        .run()?;
        Ok(())
    }
}
routine!("ndarray.astype", Conversion);
routine!("ndarray.copy", Conversion);
routine!(copyto, Conversion, notes: "Array::copy_from");
routine!("ndarray.fill", Conversion);

/// `cupy.copyto(dst, src)`: copies `src` into `dst` (casting="same_kind"), broadcasting `src`
/// to `dst`'s shape; the function form of [`Array::copy_from`].
///
/// # Errors
/// As [`Array::copy_from`].
pub fn copyto(dst: &Array, src: &Array) -> Result<()> {
    dst.copy_from(src)
}
