//! Matrix products: `matmul` (with NumPy's 1-D promotion and batch broadcasting) and `dot`.

use crate::array::{check_dtype, same_device, Array};
use cupy_core::backend::{GemmCall, Operand};
use cupy_core::error::{Error, Result};
use cupy_core::layout::{broadcast_shapes, Layout};
use cupy_core::promote::promote_types;

/// Views `x` (ndim >= 2) as 3-D `[batch, r, c]` after broadcasting its batch axes to `batch`;
/// copies only when the batch axes cannot be merged into one stride.
fn as_batched(x: &Array, batch: &[usize]) -> Result<Layout> {
    let n = x.ndim();
    let (r, c) = (x.shape()[n - 2], x.shape()[n - 1]);
    let mut full = batch.to_vec();
    full.extend([r, c]);
    let l = x
        .layout
        .broadcast_to(&full)
        .expect("batch shape was broadcast from this operand");
    let nb = batch.len();
    let bsize: usize = batch.iter().product();
    // Merge the batch axes into one stride if they are evenly strided (or broadcast).
    let mut stride: Option<isize> = None;
    let mut ok = true;
    let mut expect: Option<isize> = None;
    for i in (0..nb).rev() {
        if l.shape[i] == 1 {
            continue;
        }
        match expect {
            None => {
                stride = Some(l.strides[i]);
                expect = Some(l.strides[i] * l.shape[i] as isize);
            }
            Some(e) => {
                if l.strides[i] != e {
                    ok = false;
                }
                expect = Some(e * l.shape[i] as isize);
            }
        }
    }
    if ok {
        return Ok(Layout {
            shape: vec![bsize, r, c],
            strides: vec![stride.unwrap_or(0), l.strides[nb], l.strides[nb + 1]],
            offset: l.offset,
        });
    }
    Err(Error::invalid("matmul", "batch axes need a copy"))
}

/// `numpy.matmul(a, b)` (the `@` operator): 1-D operands are promoted to matrices (and the
/// added axis removed afterwards), batch axes broadcast. Operands are promoted to a common dtype.
///
/// # Errors
/// [`Error::InvalidArgument`] for 0-d operands; [`Error::ShapeMismatch`] when the core dimensions
/// differ (`a.shape[-1] != b.shape[-2]`) or batch axes do not broadcast; [`Error::Unsupported`] /
/// [`Error::DTypeNotSupported`] when the device has no GEMM for the dtype.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let op = "matmul";
    let device = same_device(op, [a, b])?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::invalid(op, "matmul: Input operand does not have enough dimensions (0-d arrays are scalars; use multiply)"));
    }
    let t = promote_types(a.dtype(), b.dtype());
    check_dtype(&device, op, t)?;
    let a1 = a.ndim() == 1;
    let b1 = b.ndim() == 1;
    let a2 = if a1 {
        a.reshape(&[1, a.shape()[0] as isize])?
    } else {
        a.clone()
    };
    let b2 = if b1 {
        b.reshape(&[b.shape()[0] as isize, 1])?
    } else {
        b.clone()
    };
    let (na, nb) = (a2.ndim(), b2.ndim());
    let (m, k) = (a2.shape()[na - 2], a2.shape()[na - 1]);
    let (k2, n) = (b2.shape()[nb - 2], b2.shape()[nb - 1]);
    if k != k2 {
        return Err(Error::ShapeMismatch {
            op: format!("{op} (core dimension {k} vs {k2})"),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let batch =
        broadcast_shapes(op, &a2.shape()[..na - 2], &b2.shape()[..nb - 2]).map_err(|_| {
            Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: b.shape().to_vec(),
            }
        })?;
    let a3 = if a2.dtype() != t { a2.astype(t)? } else { a2 };
    let b3 = if b2.dtype() != t { b2.astype(t)? } else { b2 };
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    let c = if k == 0 {
        Array::zeros_on(&device, &out_shape, t)?
    } else {
        Array::empty_on(&device, &out_shape, t)?
    };
    if c.size() > 0 && k > 0 {
        let la = match as_batched(&a3, &batch) {
            Ok(l) => (a3.clone(), l),
            Err(_) => {
                let mut s = batch.clone();
                s.extend([m, k]);
                let x = a3.broadcast_to(&s)?.copy()?;
                let l = as_batched(&x, &batch)?;
                (x, l)
            }
        };
        let lb = match as_batched(&b3, &batch) {
            Ok(l) => (b3.clone(), l),
            Err(_) => {
                let mut s = batch.clone();
                s.extend([k, n]);
                let x = b3.broadcast_to(&s)?.copy()?;
                let l = as_batched(&x, &batch)?;
                (x, l)
            }
        };
        let bs: usize = batch.iter().product();
        let lc = Layout {
            shape: vec![bs, m, n],
            strides: vec![(m * n) as isize, n as isize, 1],
            offset: 0,
        };
        device.backend().gemm(&GemmCall {
            a: Operand {
                buffer: &la.0.buffer,
                layout: la.1,
            },
            b: Operand {
                buffer: &lb.0.buffer,
                layout: lb.1,
            },
            c: Operand {
                buffer: &c.buffer,
                layout: lc,
            },
        })?;
    }
    let mut final_shape: Vec<isize> = batch.iter().map(|&d| d as isize).collect();
    if !a1 {
        final_shape.push(m as isize);
    }
    if !b1 {
        final_shape.push(n as isize);
    }
    c.reshape(&final_shape)
}

/// `numpy.dot(a, b)` for 1-D and 2-D operands (where it equals `matmul`).
///
/// # Errors
/// As [`matmul`]; [`Error::Unsupported`] for operands of more than 2 dimensions.
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        // NumPy: dot with a scalar is multiplication.
        return crate::ops::ufunc::multiply(a, b);
    }
    if a.ndim() > 2 || b.ndim() > 2 {
        return Err(Error::Unsupported {
            op: "dot".into(),
            backend: a.device().label(),
            reason: "dot of arrays with more than 2 dimensions is not implemented; use matmul"
                .into(),
        });
    }
    matmul(a, b)
}

impl Array {
    /// `a @ b`; see [`matmul`].
    ///
    /// # Errors
    /// As [`matmul`].
    pub fn matmul(&self, b: &Array) -> Result<Array> {
        matmul(self, b)
    }
    /// `a.dot(b)`; see [`dot`].
    ///
    /// # Errors
    /// As [`dot`].
    pub fn dot(&self, b: &Array) -> Result<Array> {
        dot(self, b)
    }
}
