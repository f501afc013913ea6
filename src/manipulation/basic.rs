//! Copies and conversions (CuPy's `cupy/_manipulation/basic.py` and the `ndarray` methods
//! `astype`, `copy`, `fill`): each is one elementwise IR kernel (a cast, or a parameter stored
//! into every element). Each routine's registry row is the `routine!` line after it.

use crate::array::Array;
use crate::launch::Elementwise;
use crate::manipulation::shape::Order;
use crate::registry::Need;
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

    /// Copies into a new array laid out in `order` (`a.copy(order=...)`): [`Order::C`]
    /// row-major, [`Order::F`] column-major, [`Order::A`] F when this array is
    /// Fortran-contiguous and not C-contiguous (else C), [`Order::K`] the order this array's
    /// elements lie in memory (axes by decreasing stride magnitude, NumPy's rule; negative
    /// strides become positive).
    ///
    /// # Errors
    /// Device errors.
    pub fn copy_with(&self, order: Order) -> Result<Array> {
        let order = match order {
            Order::A if self.is_f_contiguous() && !self.is_c_contiguous() => Order::F,
            Order::A => Order::C,
            o => o,
        };
        match order {
            Order::C => self.copy(),
            Order::F => Ok(self.t().copy()?.t()),
            _ => {
                // K: allocate C-ordered in the permuted shape (biggest stride first), permute
                // back, copy in.
                let st = &self.layout.strides;
                let mut perm: Vec<usize> = (0..self.ndim()).collect();
                perm.sort_by_key(|&k| std::cmp::Reverse(st[k].unsigned_abs()));
                let shape: Vec<usize> = perm.iter().map(|&k| self.shape()[k]).collect();
                let mut inverse = vec![0isize; perm.len()];
                for (j, &k) in perm.iter().enumerate() {
                    inverse[k] = j as isize;
                }
                let out = Array::empty_on(&self.device, &shape, self.dtype)?.transpose(&inverse)?;
                out.copy_from(self)?;
                Ok(out)
            }
        }
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
    /// [`Error::ScalarOverflow`] for an integer value, or a float whose truncation, the integer
    /// dtype cannot hold (NumPy's OverflowError; the array is unchanged);
    /// [`Error::InvalidArgument`] for a NaN or infinite float into an integer dtype (NumPy's
    /// ValueError/OverflowError) and on a broadcast view; device errors.
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        let v = assigned_value("fill", value.into(), self.dtype)?;
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
/// `value` in `dtype` as NumPy converts a Python scalar stored into an array (`a.fill(x)`,
/// `a[...] = x`, `pad`'s `constant_values`): an integer the integer dtype cannot hold is refused,
/// and a float goes into an integer dtype through Python's int(): NaN and infinities are
/// refused, and so is a truncated value the dtype cannot hold (no saturation). Errors name `op`.
pub(crate) fn assigned_value(op: &str, value: Scalar, dtype: DType) -> Result<Scalar> {
    if dtype.is_integer() && value.dtype().is_float() {
        let f = value.to_f64();
        if !f.is_finite() {
            return Err(Error::invalid(
                op,
                format!("cannot convert float {f} to integer (dtype {dtype})"),
            ));
        }
        let (lo, hi) = cupy_core::promote::int_range(dtype);
        let t = f.trunc();
        if t < lo as f64 || t > hi as f64 {
            return Err(Error::ScalarOverflow {
                op: op.into(),
                value: format!("{t}"),
                dtype,
            });
        }
    }
    crate::creation::fill_value(op, value, dtype)
}
routine!("ndarray.astype", Conversion);
routine!("ndarray.copy", Conversion);
routine!(copyto, Conversion, notes: "Array::copy_from");

/// `cupy.copy(a)`: a new array with `a`'s elements, in the memory order of `a` (NumPy's default
/// `order='K'`; [`Array::copy`] is C-ordered as `ndarray.copy()`).
///
/// # Errors
/// Device errors.
pub fn copy(a: &Array) -> Result<Array> {
    a.copy_with(Order::K)
}
routine!(copy, Creation, notes: "order='K'; Array::copy_with for the others");

/// `cupy.copy(a, order=...)`: see [`Array::copy_with`].
///
/// # Errors
/// Device errors.
pub fn copy_with(a: &Array, order: Order) -> Result<Array> {
    a.copy_with(order)
}
routine!("ndarray.fill", Conversion);

/// `cupy.copyto(dst, src)`: copies `src` into `dst` (casting="same_kind"), broadcasting `src`
/// to `dst`'s shape; the function form of [`Array::copy_from`].
///
/// # Errors
/// As [`Array::copy_from`].
pub fn copyto(dst: &Array, src: &Array) -> Result<()> {
    dst.copy_from(src)
}

/// `cupy.copyto(dst, src, where=mask)`: copies `src` into `dst` where `mask` is true (both
/// broadcast to `dst`'s shape; casting="same_kind"); one elementwise select kernel.
///
/// # Errors
/// [`Error::TypeError`] for a non-bool `mask` or a cast that is not same_kind;
/// [`Error::ShapeMismatch`] when `src` or `mask` does not broadcast to `dst`; device errors.
pub fn copyto_where(dst: &Array, src: &Array, mask: &Array) -> Result<()> {
    let op = "copyto";
    if mask.dtype != DType::Bool {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![mask.dtype],
            msg: "where= must be a bool array (casting='safe')".into(),
        });
    }
    if !cupy_core::promote::can_cast_same_kind(src.dtype, dst.dtype) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![src.dtype, dst.dtype],
            msg: "cannot cast with casting rule 'same_kind'".into(),
        });
    }
    let bc = |a: &Array| {
        a.broadcast_to(dst.shape())
            .map_err(|_| Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: dst.shape().to_vec(),
            })
    };
    let (s, m) = (bc(src)?, bc(mask)?);
    let kernel = Kernel::map(
        "copyto_where",
        vec![src.dtype, DType::Bool, dst.dtype],
        vec![],
        Expr::select(
            Expr::input(1, DType::Bool),
            Expr::input(0, src.dtype).cast(dst.dtype),
            Expr::input(2, dst.dtype),
        ),
    );
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[&s, &m, dst],
        raws: &[],
        params: vec![],
        outs: vec![Some(dst)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(())
}
routine!(
    copyto_where as "cupy.copyto (where=)",
    Conversion,
    probe: |t| Some(Need::Kernel(Kernel::map(
        "copyto_where",
        vec![t, DType::Bool, t],
        vec![],
        Expr::select(Expr::input(1, DType::Bool), Expr::input(0, t), Expr::input(2, t)),
    ))),
    notes: "one select kernel"
);

/// `cupy.ascontiguousarray(a)`: `a` itself (a view) when C-contiguous, else a C-contiguous
/// copy; as NumPy, at least 1-D (a 0-d array becomes shape `(1,)`).
///
/// # Errors
/// Device errors from the copy.
pub fn ascontiguousarray(a: &Array) -> Result<Array> {
    let a = &a.atleast_1d();
    if a.is_c_contiguous() {
        Ok(a.clone())
    } else {
        a.copy()
    }
}
routine!(ascontiguousarray, Manipulation, notes: "a view when already C-contiguous");

/// `cupy.asfortranarray(a)`: `a` itself (a view) when Fortran-contiguous, else a
/// Fortran-ordered copy; as NumPy, at least 1-D.
///
/// # Errors
/// Device errors from the copy.
pub fn asfortranarray(a: &Array) -> Result<Array> {
    let a = &a.atleast_1d();
    if a.is_f_contiguous() {
        Ok(a.clone())
    } else {
        Ok(a.t().copy()?.t())
    }
}
routine!(asfortranarray, Manipulation, notes: "a view when already Fortran-contiguous");
