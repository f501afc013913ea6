//! LU and Cholesky routines (`solve`, `inv`, `det`, `slogdet`, `cholesky`, `tensorsolve`,
//! `tensorinv`) and the SVD-based `lstsq`, `pinv`, `matrix_rank`, each batched over leading
//! axes as NumPy 2 does.

use super::primitive::{
    assert_stacked_2d, assert_stacked_square, check_info, dense, factor, linalg_dtype, real_of,
    Factor,
};
use crate::array::{same_device, Array};
use cupy_core::backend::LinalgOp;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::broadcast_shapes;

/// The registry probe of the factorizations: the backend's `linalg` primitive (or its host
/// hybrid) for every dtype NumPy accepts (integers and bool promote to float64).
pub(crate) fn linalg_probe(t: DType) -> Option<crate::registry::Need> {
    if matches!(t, DType::Float16 | DType::BFloat16) {
        return None;
    }
    Some(crate::registry::Need::Primitive(
        cupy_core::backend::Primitive::Linalg,
    ))
}

/// `numpy.linalg.solve(a, b)`: `x` with `a @ x == b`, by LU with partial pivoting. `a` is
/// `[..., M, M]`; `b` is `[M]` (NumPy 2: a 1-D `b` is one vector) or `[..., M, K]`; batch
/// axes broadcast.
///
/// # Errors
/// [`Error::LinAlgError`] "Singular matrix" (any matrix of the batch with an exactly zero
/// pivot), or for non-square `a`; [`Error::ShapeMismatch`] when `b` does not fit;
/// [`Error::TypeError`] for float16.
pub fn solve(a: &Array, b: &Array) -> Result<Array> {
    let op = "solve";
    let device = same_device(op, [a, b])?;
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype(), b.dtype()])?;
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let vec = b.ndim() == 1;
    let b2 = if vec { b.reshape(&[-1, 1])? } else { b.clone() };
    if b2.ndim() < 2 || b2.shape()[b2.ndim() - 2] != n {
        return Err(Error::ShapeMismatch {
            op: format!("{op}: Input operand 1 has a mismatch in its core dimension 0"),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let k = b2.shape()[b2.ndim() - 1];
    let batch = if vec {
        a.shape()[..nd - 2].to_vec()
    } else {
        broadcast_shapes(op, &a.shape()[..nd - 2], &b2.shape()[..b2.ndim() - 2])?
    };
    let mut sa = batch.clone();
    sa.extend([n, n]);
    let mut sb = batch.clone();
    sb.extend([n, k]);
    let ad = dense(&a.broadcast_to(&sa)?, t)?;
    let bd = dense(&b2.broadcast_to(&sb)?, t)?;
    let _ = device;
    let x = if n == 0 || k == 0 {
        Array::zeros_on(a.device(), &sb, t)?
    } else {
        let (outs, info) = factor(Factor {
            op: LinalgOp::Solve,
            a: &ad,
            b: Some(&bd),
            outs: vec![(vec![n, k], t)],
        })?;
        check_info(op, &info, "Singular matrix")?;
        outs.into_iter().next().expect("one output")
    };
    if vec {
        let mut s: Vec<isize> = batch.iter().map(|&d| d as isize).collect();
        s.push(n as isize);
        x.reshape(&s)
    } else {
        Ok(x)
    }
}
routine!(solve as "cupy.linalg.solve", Linalg, probe: linalg_probe, notes: "LU with partial pivoting (faer; cuda: cuSOLVER; hip/wgpu: host hybrid; n <= 4 float32/float64 off cpu: one IR kernel)");

/// `numpy.linalg.inv(a)`: the inverse of each `[..., M, M]` matrix.
///
/// # Errors
/// [`Error::LinAlgError`] "Singular matrix", or for non-square input; [`Error::TypeError`] for
/// float16.
pub fn inv(a: &Array) -> Result<Array> {
    let op = "inv";
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let n = a.shape()[a.ndim() - 1];
    let ad = dense(a, t)?;
    if n == 0 {
        return Array::empty_on(a.device(), a.shape(), t);
    }
    let (outs, info) = factor(Factor {
        op: LinalgOp::Inv,
        a: &ad,
        b: None,
        outs: vec![(vec![n, n], t)],
    })?;
    check_info(op, &info, "Singular matrix")?;
    Ok(outs.into_iter().next().expect("one output"))
}
routine!(inv as "cupy.linalg.inv", Linalg, probe: linalg_probe, notes: "LU with partial pivoting (faer; cuda: cuSOLVER; hip/wgpu: host hybrid; n <= 4 float32/float64 off cpu: one IR kernel)");

/// `numpy.linalg.det(a)`: the determinant of each `[..., M, M]` matrix (LU's diagonal product);
/// a singular matrix gives 0, not an error.
///
/// # Errors
/// [`Error::LinAlgError`] for non-square input; [`Error::TypeError`] for float16.
pub fn det(a: &Array) -> Result<Array> {
    let op = "det";
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let ad = dense(a, t)?;
    let (outs, _) = factor(Factor {
        op: LinalgOp::Det,
        a: &ad,
        b: None,
        outs: vec![(vec![], t)],
    })?;
    Ok(outs.into_iter().next().expect("one output"))
}
routine!(det as "cupy.linalg.det", Linalg, probe: linalg_probe);

/// `numpy.linalg.slogdet(a)`: `(sign, logabsdet)` of each `[..., M, M]` matrix, `det = sign *
/// exp(logabsdet)`; a singular matrix gives `(0, -inf)`. `sign` has the input's dtype (a unit
/// complex number for complex input), `logabsdet` its real dtype.
///
/// # Errors
/// As [`det`].
pub fn slogdet(a: &Array) -> Result<(Array, Array)> {
    let op = "slogdet";
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let ad = dense(a, t)?;
    let (outs, _) = factor(Factor {
        op: LinalgOp::Slogdet,
        a: &ad,
        b: None,
        outs: vec![(vec![], t), (vec![], real_of(t))],
    })?;
    let mut it = outs.into_iter();
    Ok((it.next().expect("sign"), it.next().expect("logabsdet")))
}
routine!(slogdet as "cupy.linalg.slogdet", Linalg, probe: linalg_probe);

/// `numpy.linalg.cholesky(a)`: the lower factor `L` with `a = L @ L^H`, reading `a`'s lower
/// triangle.
///
/// # Errors
/// [`Error::LinAlgError`] "Matrix is not positive definite", or for non-square input;
/// [`Error::TypeError`] for float16.
pub fn cholesky(a: &Array) -> Result<Array> {
    cholesky_with(a, false)
}

/// `numpy.linalg.cholesky(a, upper=upper)`: with `upper`, the upper factor `U = L^H` (`a = U^H
/// @ U`), reading `a`'s upper triangle.
///
/// # Errors
/// As [`cholesky`].
pub fn cholesky_with(a: &Array, upper: bool) -> Result<Array> {
    let op = "cholesky";
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let n = a.shape()[a.ndim() - 1];
    let ad = dense(a, t)?;
    if n == 0 {
        return Array::empty_on(a.device(), a.shape(), t);
    }
    let (outs, info) = factor(Factor {
        op: LinalgOp::Cholesky { upper },
        a: &ad,
        b: None,
        outs: vec![(vec![n, n], t)],
    })?;
    check_info(op, &info, "Matrix is not positive definite")?;
    Ok(outs.into_iter().next().expect("one output"))
}
routine!(cholesky as "cupy.linalg.cholesky", Linalg, probe: linalg_probe, notes: "upper= in cholesky_with");

/// `numpy.linalg.tensorsolve(a, b)` (no `axes`): `x` with `tensordot(a, x, x.ndim) == b`;
/// `a.shape == b.shape + x.shape` and `prod(x.shape) == prod(b.shape)`.
///
/// # Errors
/// [`Error::LinAlgError`] for a shape that is not square once flattened, or a singular
/// system.
pub fn tensorsolve(a: &Array, b: &Array) -> Result<Array> {
    let op = "tensorsolve";
    let bn = b.ndim();
    if a.ndim() < bn || a.shape()[..bn] != *b.shape() {
        return Err(Error::ShapeMismatch {
            op: format!("{op}: a.shape must start with b.shape"),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let oldshape = a.shape()[bn..].to_vec();
    let prod: usize = oldshape.iter().product();
    if a.size() != prod * prod {
        return Err(Error::linalg(
            op,
            "Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])",
        ));
    }
    let a2 = a.reshape(&[prod as isize, prod as isize])?;
    let b2 = b.reshape(&[prod as isize])?;
    let x = solve(&a2, &b2)?;
    let s: Vec<isize> = oldshape.iter().map(|&d| d as isize).collect();
    x.reshape(&s)
}
routine!(tensorsolve as "cupy.linalg.tensorsolve", Linalg, probe: linalg_probe, notes: "axes=None only");

/// `numpy.linalg.tensorinv(a, ind)`: the inverse with respect to `tensordot(.., ind)`;
/// the result has shape `a.shape[ind:] + a.shape[:ind]`.
///
/// # Errors
/// [`Error::InvalidArgument`] for `ind == 0`; [`Error::LinAlgError`] as [`inv`].
pub fn tensorinv(a: &Array, ind: usize) -> Result<Array> {
    let op = "tensorinv";
    if ind == 0 || ind > a.ndim() {
        return Err(Error::invalid(op, "Invalid ind argument."));
    }
    let inv_shape: Vec<usize> = a.shape()[ind..]
        .iter()
        .chain(&a.shape()[..ind])
        .copied()
        .collect();
    let prod: usize = a.shape()[..ind].iter().product();
    let rest: usize = a.shape()[ind..].iter().product();
    let a2 = a.reshape(&[prod as isize, rest as isize])?;
    let ia = inv(&a2)?;
    let s: Vec<isize> = inv_shape.iter().map(|&d| d as isize).collect();
    ia.reshape(&s)
}
routine!(tensorinv as "cupy.linalg.tensorinv", Linalg, probe: linalg_probe);

/// The conjugate transpose of the last two axes.
pub(crate) fn adjoint(a: &Array) -> Result<Array> {
    let n = a.ndim() as isize;
    let t = a.swapaxes(n - 2, n - 1)?;
    if a.dtype().is_complex() {
        crate::math::complex::conjugate(&t)
    } else {
        Ok(t)
    }
}

/// The machine epsilon of a float dtype (of its real part for complex).
pub(crate) fn eps_of(t: DType) -> f64 {
    if real_of(t) == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `numpy.linalg.pinv(a)` (NumPy 2.2's default `rcond=1e-15`): the Moore-Penrose pseudo-inverse
/// of each `[..., M, N]` matrix from its SVD, discarding singular values at or below `rcond *
/// max(s)`.
///
/// # Errors
/// [`Error::LinAlgError`] "SVD did not converge" (e.g. NaN input) or for 1-D input.
pub fn pinv(a: &Array) -> Result<Array> {
    pinv_with(a, 1e-15)
}

/// `numpy.linalg.pinv(a, rcond)`.
///
/// # Errors
/// As [`pinv`].
pub fn pinv_with(a: &Array, rcond: f64) -> Result<Array> {
    let op = "pinv";
    assert_stacked_2d(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    if m == 0 || n == 0 {
        let mut s = a.shape()[..nd - 2].to_vec();
        s.extend([n, m]);
        return Array::zeros_on(a.device(), &s, t);
    }
    let r = super::eigen::svd_with(
        a,
        super::eigen::Svd {
            full_matrices: false,
            ..Default::default()
        },
    )?;
    let (u, s, vh) = (r.u.expect("u"), r.s, r.vh.expect("vh"));
    let smax = s.max_with(crate::Reduce {
        axis: (-1isize).into(),
        keepdims: true,
        ..Default::default()
    })?;
    let cutoff = crate::multiply(&smax, rcond)?;
    let large = crate::greater(&s, &cutoff)?;
    let safe = crate::where_(&large, &s, 1.0)?;
    let sinv = crate::where_(&large, &crate::reciprocal(&safe)?, 0.0)?;
    // pinv = V diag(1/s) U^H.
    let v = adjoint(&vh)?;
    let uh = adjoint(&u)?;
    let vs = crate::multiply(&v, &sinv.expand_dims(-2)?)?;
    let vs = if vs.dtype() != t { vs.astype(t)? } else { vs };
    super::matmul(&vs, &uh)
}
routine!(pinv as "cupy.linalg.pinv", Linalg, probe: linalg_probe, notes: "from the SVD; rcond in pinv_with");

/// `numpy.linalg.matrix_rank(A)`: the number of singular values above `max(s) * max(M, N) *
/// eps` per matrix (int64); for 0-D/1-D input, 1 unless every element is 0.
///
/// # Errors
/// As [`super::eigen::svdvals`].
pub fn matrix_rank(a: &Array) -> Result<Array> {
    let op = "matrix_rank";
    if a.ndim() < 2 {
        let nz = crate::not_equal(a, 0)?.any()?;
        return nz.astype(DType::Int64);
    }
    let t = linalg_dtype(op, &[a.dtype()])?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let s = super::eigen::svdvals(a)?;
    if m.min(n) == 0 {
        return Array::zeros_on(a.device(), &a.shape()[..nd - 2], DType::Int64);
    }
    let smax = s.max_with(crate::Reduce {
        axis: (-1isize).into(),
        keepdims: true,
        ..Default::default()
    })?;
    let tol = crate::multiply(&smax, m.max(n) as f64 * eps_of(t))?;
    crate::greater(&s, &tol)?.sum_with(crate::Reduce {
        axis: (-1isize).into(),
        dtype: Some(DType::Int64),
        ..Default::default()
    })
}
routine!(matrix_rank as "cupy.linalg.matrix_rank", Linalg, probe: linalg_probe, notes: "tol/rtol/hermitian not taken");

/// What [`lstsq`] returns (NumPy's tuple `(x, residuals, rank, s)`).
#[derive(Clone)]
pub struct Lstsq {
    /// The least-squares solution, `[N]` or `[N, K]`.
    pub x: Array,
    /// Squared residual norms per column `[K]` (`[1]` for 1-D `b`), or empty when `rank < N` or
    /// `M <= N`.
    pub residuals: Array,
    /// The rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending.
    pub s: Array,
}

/// `numpy.linalg.lstsq(a, b)` (NumPy 2's `rcond = eps * max(M, N)`): minimizes `||b - a x||`
/// for 2-D `a [M, N]` and `b [M]` or `[M, K]`, through the SVD.
///
/// # Errors
/// [`Error::LinAlgError`] "Incompatible dimensions", for non-2-D operands, or when the SVD
/// does not converge.
pub fn lstsq(a: &Array, b: &Array) -> Result<Lstsq> {
    lstsq_with(a, b, None)
}

/// `numpy.linalg.lstsq(a, b, rcond)`: singular values at or below `rcond * max(s)` count as 0.
///
/// # Errors
/// As [`lstsq`].
pub fn lstsq_with(a: &Array, b: &Array, rcond: Option<f64>) -> Result<Lstsq> {
    let op = "lstsq";
    same_device(op, [a, b])?;
    let vec = b.ndim() == 1;
    let b2 = if vec { b.reshape(&[-1, 1])? } else { b.clone() };
    if a.ndim() != 2 || b2.ndim() != 2 {
        return Err(Error::linalg(
            op,
            format!(
                "{}-dimensional array given. Array must be two-dimensional",
                if a.ndim() != 2 { a.ndim() } else { b.ndim() }
            ),
        ));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b2.shape()[0] != m {
        return Err(Error::linalg(op, "Incompatible dimensions"));
    }
    let t = linalg_dtype(op, &[a.dtype(), b.dtype()])?;
    let rt = real_of(t);
    let k = b2.shape()[1];
    let rcond = rcond.unwrap_or(eps_of(t) * m.max(n) as f64);
    let a = dense(a, t)?;
    let b2 = dense(&b2, t)?;
    let s_empty = || Array::empty_on(a.device(), &[0], rt);
    if m == 0 || n == 0 {
        let x = Array::zeros_on(a.device(), &[n, k], t)?;
        let x = if vec { x.reshape(&[n as isize])? } else { x };
        // No unknowns (rank 0 == n < m): every column of b is its residual, as in NumPy
        let residuals = if m > n {
            let sq = crate::math::misc::absolute(&b2)?;
            crate::multiply(&sq, &sq)?.sum_axis(0isize)?
        } else {
            s_empty()?
        };
        return Ok(Lstsq {
            x,
            residuals,
            rank: 0,
            s: s_empty()?,
        });
    }
    let r = super::eigen::svd_with(
        &a,
        super::eigen::Svd {
            full_matrices: false,
            ..Default::default()
        },
    )?;
    let (u, s, vh) = (r.u.expect("u"), r.s, r.vh.expect("vh"));
    let smax = s.max()?;
    let cutoff = crate::multiply(&smax, rcond)?;
    let large = crate::greater(&s, &cutoff)?;
    let rank = match large
        .sum_with(crate::Reduce {
            dtype: Some(DType::Int64),
            ..Default::default()
        })?
        .item()?
    {
        cupy_core::scalar::Scalar::Int64(v) => v as usize,
        other => other.to_f64() as usize,
    };
    let safe = crate::where_(&large, &s, 1.0)?;
    let sinv = crate::where_(&large, &crate::reciprocal(&safe)?, 0.0)?;
    // x = V diag(1/s) U^H b.
    let uhb = super::matmul(&adjoint(&u)?, &b2)?;
    let scaled = crate::multiply(&uhb, &sinv.expand_dims(-1)?)?;
    let scaled = if scaled.dtype() != t {
        scaled.astype(t)?
    } else {
        scaled
    };
    let x = super::matmul(&adjoint(&vh)?, &scaled)?;
    let residuals = if rank == n && m > n {
        let res = crate::subtract(&b2, &super::matmul(&a, &x)?)?;
        let sq = crate::math::misc::absolute(&res)?;
        let sq = crate::multiply(&sq, &sq)?;
        sq.sum_axis(0isize)?
    } else {
        s_empty()?
    };
    let x = if vec { x.reshape(&[n as isize])? } else { x };
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s,
    })
}
routine!(lstsq as "cupy.linalg.lstsq", Linalg, probe: linalg_probe, notes: "through the SVD (NumPy: gelsd)");
