//! `cupy.linalg`: matrix products (`matmul` with NumPy's 1-D promotion and batch broadcasting,
//! `dot`, and the products composed from them), the factorizations (through one backend
//! primitive, `Backend::linalg`), norms and `einsum`.
//!
//! Files by concern: [`mod@solve`] (LU, Cholesky, least squares), [`eigen`] (QR, eigen and singular
//! value decompositions), `primitive` (the path to the backend and its host hybrid), [`small`]
//! (batched small matrices in one IR kernel).

pub mod eigen;
pub mod einsum;
pub mod norms;
mod primitive;
pub mod products;
pub mod small;
pub mod solve;

pub use eigen::{
    eig, eigh, eigh_with, eigvals, eigvalsh, eigvalsh_with, qr, qr_mode, svd, svd_with, svdvals,
    Svd, SvdResult,
};
pub use einsum::einsum;
pub use norms::{cond, cond_with, matrix_norm, norm, norm_with, vector_norm, Norm, NormOrd};
pub use products::{
    cross, diagonal, inner, kron, linalg_trace as trace, matrix_power, matrix_transpose, multi_dot,
    outer, tensordot, vdot, vecdot, TensorAxes,
};
pub use solve::{
    cholesky, cholesky_with, det, inv, lstsq, lstsq_with, matrix_rank, pinv, pinv_with, slogdet,
    solve, tensorinv, tensorsolve, Lstsq,
};

use crate::array::{check_dtype, same_device, Array};
use cupy_core::backend::{GemmCall, Operand};
use cupy_core::error::{Error, Result};
use cupy_core::layout::{broadcast_shapes, Layout};
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

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
        crate::cuda::order::order(&device, &[&la.0.buffer, &lb.0.buffer], &[&c.buffer])?;
        let call = GemmCall {
            a: Operand {
                buffer: &la.0.buffer,
                layout: la.1.clone(),
            },
            b: Operand {
                buffer: &lb.0.buffer,
                layout: lb.1.clone(),
            },
            c: Operand {
                buffer: &c.buffer,
                layout: lc,
            },
        };
        let r = crate::cuda::record::submit(&device, crate::cuda::record::Call::Gemm(&call));
        match r {
            // No vendor BLAS has NumPy's wrap-around integer (or boolean) GEMM: one IR kernel
            // does it on every backend.
            Err(Error::DTypeNotSupported { .. } | Error::Unsupported { .. })
                if t.is_integer() || t.is_bool() =>
            {
                gemm_ir(&device, (&la.0, &la.1), (&lb.0, &lb.1), &c, [bs, m, n, k])?
            }
            r => r?,
        }
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
routine!(
    matmul,
    Linalg,
    probe: gemm,
    notes: "BLAS for floats and complex; integer and bool: one IR kernel with NumPy's wrap-around"
);

/// The registry probe of `matmul` and `dot`: integers and bool by the IR kernel, floats and
/// complex by the backend's GEMM.
fn gemm(t: cupy_core::dtype::DType) -> Option<crate::registry::Need> {
    use crate::registry::Need;
    Some(if t.is_integer() || t.is_bool() {
        Need::Kernel(gemm_ir_kernel(t))
    } else {
        Need::Primitive(cupy_core::backend::Primitive::Gemm)
    })
}

/// The IR kernel of [`gemm_ir`] for dtype `t`. Params: `n, m, k`, then `a`'s batch/row/col
/// strides and offset, then `b`'s.
pub(crate) fn gemm_ir_kernel(t: cupy_core::dtype::DType) -> cupy_core::kernel::ir::Kernel {
    use cupy_core::dtype::DType;
    use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
    use cupy_core::scalar::Scalar;
    let i64c = |v: i64| Expr::constant(Scalar::Int64(v));
    let p = |k: usize| Expr::param(k, DType::Int64);
    let bin = |op, x, y| Expr::binary(op, x, y);
    // Params: n, m, k, a strides (3) + offset, b strides (3) + offset.
    // Locals: 0 acc, 1 k, 2 a's base address, 3 b's base address (hoisted out of the loop).
    let idx = Expr::index();
    let col = bin(BinaryOp::Mod, idx.clone(), p(0));
    let row = bin(BinaryOp::Mod, bin(BinaryOp::Div, idx.clone(), p(0)), p(1));
    let bat = bin(BinaryOp::Div, idx, bin(BinaryOp::Mul, p(0), p(1)));
    let kk = Expr::var(1, DType::Int64);
    let base = |b: usize, x: Expr| {
        bin(
            BinaryOp::Add,
            p(b + 3),
            bin(
                BinaryOp::Add,
                bin(BinaryOp::Mul, bat.clone(), p(b)),
                bin(BinaryOp::Mul, x, p(b + 1)),
            ),
        )
    };
    let a_base = base(3, row);
    // b's column term uses its column stride (param 9), its row term (k) its row stride (8).
    let b_base = bin(
        BinaryOp::Add,
        p(10),
        bin(
            BinaryOp::Add,
            bin(BinaryOp::Mul, bat.clone(), p(7)),
            bin(BinaryOp::Mul, col, p(9)),
        ),
    );
    let av = Expr::load(
        0,
        t,
        bin(
            BinaryOp::Add,
            Expr::var(2, DType::Int64),
            bin(BinaryOp::Mul, kk.clone(), p(5)),
        ),
    );
    let bv = Expr::load(
        1,
        t,
        bin(
            BinaryOp::Add,
            Expr::var(3, DType::Int64),
            bin(BinaryOp::Mul, kk, p(8)),
        ),
    );
    let acc = Expr::var(0, t);
    let step = if t.is_bool() {
        bin(BinaryOp::Or, acc.clone(), bin(BinaryOp::And, av, bv))
    } else {
        bin(BinaryOp::Add, acc.clone(), bin(BinaryOp::Mul, av, bv))
    };
    Kernel {
        name: "matmul_int".into(),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![t, t],
        params: vec![DType::Int64; 11],
        locals: vec![t, DType::Int64, DType::Int64, DType::Int64],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::zero(t)),
            },
            Stmt::Let {
                var: 2,
                value: a_base,
            },
            Stmt::Let {
                var: 3,
                value: b_base,
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: p(2),
                body: vec![Stmt::Assign {
                    var: 0,
                    value: step,
                }],
            },
            Stmt::Store {
                output: 0,
                value: acc,
            },
        ],
    }
}

/// Integer/boolean GEMM as one IR kernel: `c[b, i, j] = sum_k a[b, i, k] * b[b, k, j]`, in the
/// dtype with wrap-around (NumPy's integer `matmul` loop; bool is `any(a & b)`). Operands are
/// read through their strides (raw loads with the layouts as parameters); `c` is contiguous.
fn gemm_ir(
    device: &crate::device::Device,
    a: (&Array, &Layout),
    b: (&Array, &Layout),
    c: &Array,
    [bs, m, n, k]: [usize; 4],
) -> Result<()> {
    let t = c.dtype();
    let kernel = gemm_ir_kernel(t);
    let flat = |x: &Array| {
        let len = x.buffer.len();
        Array::from_parts(
            x.device().clone(),
            x.buffer.clone(),
            Layout {
                shape: vec![len],
                strides: vec![1],
                offset: 0,
            },
        )
    };
    let (fa, fb) = (flat(a.0)?, flat(b.0)?);
    let lay = |l: &Layout| {
        [
            Scalar::Int64(l.strides[0] as i64),
            Scalar::Int64(l.strides[1] as i64),
            Scalar::Int64(l.strides[2] as i64),
            Scalar::Int64(l.offset as i64),
        ]
    };
    let mut params = vec![
        Scalar::Int64(n as i64),
        Scalar::Int64(m as i64),
        Scalar::Int64(k as i64),
    ];
    params.extend(lay(a.1));
    params.extend(lay(b.1));
    let out = c.reshape(&[(bs * m * n) as isize])?;
    crate::launch::Elementwise {
        op: "matmul",
        kernel: &kernel,
        inputs: &[],
        raws: &[&fa, &fb],
        params,
        outs: vec![Some(&out)],
        device: Some(device),
        shape: Some(&[bs * m * n]),
    }
    .run()?;
    Ok(())
}

/// `numpy.dot(a, b)` for 1-D and 2-D operands (where it equals `matmul`).
///
/// # Errors
/// As [`matmul`]; [`Error::Unsupported`] for operands of more than 2 dimensions.
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        // NumPy: dot with a scalar is multiplication.
        return crate::math::arithmetic::multiply(a, b);
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
routine!(dot, Linalg, probe: gemm, notes: "1-D and 2-D operands; dtypes as matmul");

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

#[cfg(test)]
mod tests {
    #[test]
    fn print_gemm_ir_cuda() {
        use cupy_core::kernel::cpp::*;
        let k = super::gemm_ir_kernel(cupy_core::dtype::DType::Int32);
        for class in [ElementwiseClass::Contiguous, ElementwiseClass::Vectorized] {
            let spec = ElementwiseSpec {
                ndim: 1,
                class,
                index64: false,
            };
            let e = emit_elementwise(&k, &spec, Flavor::Cuda).unwrap();
            let pre = prelude(Flavor::Cuda).len();
            println!("{}", &e.source[pre..]);
        }
    }
}
