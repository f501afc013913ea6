//! SciPy's [`eigsh`] (a few eigenpairs of a Hermitian operator) and [`svds`] (a few singular
//! triplets), by a thick-restart Lanczos method (Wu & Simon 2000, equivalent to ARPACK's
//! implicitly restarted Lanczos in exact arithmetic) with full reorthogonalization.
//!
//! The Lanczos vectors stay on the device; each step projects the new vector on the basis
//! twice (classical Gram-Schmidt with reorthogonalization, DGKS) and reads the coefficients
//! back, so the small projected matrix `T = V^H A V` is kept on the host, where its
//! eigenproblem is solved (faer) for the Ritz values. A restart keeps the `k + (ncv - k) / 2`
//! most wanted Ritz vectors (one GEMM) and continues from the residual vector.

use super::super::{not_square, shapes_error};
use super::iterative::{cast, nrm, read};
use super::LinearOperator;
use crate::array::Array;
use crate::scipy::sparse::SparseMatrix;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use num_complex::Complex;

type C64 = Complex<f64>;

/// Which eigenvalues (SciPy's `which=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Which {
    /// Largest magnitude (the default).
    #[default]
    LM,
    /// Smallest magnitude (no shift-invert: slow for clustered small eigenvalues, as ARPACK's).
    SM,
    /// Largest algebraic.
    LA,
    /// Smallest algebraic.
    SA,
}

/// The keywords of [`eigsh`] (SciPy's `M=None, sigma=None, which='LM', v0=None, ncv=None,
/// maxiter=None, tol=0, return_eigenvectors=True, Minv=None`; `OPinv` and `mode` other than
/// `'normal'` are not supported).
#[derive(Clone, Debug)]
pub struct Eigsh {
    /// Which eigenvalues.
    pub which: Which,
    /// The starting vector (`None`: random, from a fixed seed).
    pub v0: Option<Array>,
    /// The number of Lanczos vectors (`None`: `min(n, max(2k + 1, 20))`); `k < ncv <= n`.
    pub ncv: Option<usize>,
    /// The most restarts (`None`: `10 n`).
    pub maxiter: Option<usize>,
    /// The relative accuracy of the eigenvalues (`0`: machine precision): a Ritz pair is
    /// converged when its residual is at most `tol * max(|theta|, eps^(2/3))` (ARPACK's test).
    pub tol: f64,
    /// Also return the eigenvectors (default true).
    pub return_eigenvectors: bool,
    /// Shift-invert about `sigma` (SciPy's `mode='normal'`): the Lanczos iteration runs on
    /// `(A - sigma I)^-1`, applied by a sparse LU of `A - sigma I` ([`super::splu`], on the
    /// host), and `which` selects among its eigenvalues `nu = 1 / (lambda - sigma)` (so the
    /// default `LM` gives the eigenvalues of `A` nearest `sigma`). `A` must be a sparse matrix
    /// (an operator made from one).
    pub sigma: Option<f64>,
    /// `M`: solve the generalized problem `A x = lambda M x` for a Hermitian positive definite
    /// `M` (SciPy's `M`). Without `sigma` the Lanczos iteration runs on `M^-1 A` in the
    /// `M` inner product (ARPACK's mode 2; `M^-1` from [`Eigsh::minv`], else a sparse LU of
    /// `M`, which must then be a sparse matrix); with `sigma` on `(A - sigma M)^-1 M` (mode 3,
    /// one sparse LU of `A - sigma M`). The eigenvectors are `M`-orthonormal.
    pub m: Option<LinearOperator>,
    /// `Minv`: `x -> M^-1 x` for the generalized problem without `sigma` (SciPy's `Minv`;
    /// only with `M`, not with `sigma`).
    pub minv: Option<LinearOperator>,
}

impl Default for Eigsh {
    fn default() -> Eigsh {
        Eigsh {
            which: Which::LM,
            v0: None,
            ncv: None,
            maxiter: None,
            tol: 0.0,
            return_eigenvectors: true,
            sigma: None,
            m: None,
            minv: None,
        }
    }
}

/// A 64-bit xorshift generator for the default starting vector.
fn random_vector(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

fn work_dtype(t: DType) -> DType {
    match t {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => t,
        t if t.is_complex() => DType::Complex128,
        _ => DType::Float64,
    }
}

fn eps_of(t: DType) -> f64 {
    match t {
        DType::Float32 | DType::Complex64 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// The eigenvalues (ascending) and eigenvectors (columns) of the symmetric `m x m` matrix `t`.
fn eig_sym(t: &[Vec<f64>]) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
    let m = t.len();
    let a = faer::Mat::<f64>::from_fn(m, m, |i, j| 0.5 * (t[i][j] + t[j][i]));
    let e = a
        .self_adjoint_eigen(faer::Side::Lower)
        .map_err(|_| Error::linalg("eigsh", "the projected eigenproblem did not converge"))?;
    let s = e.S().column_vector();
    let u = e.U();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&p, &q| s[p].total_cmp(&s[q]));
    let w = idx.iter().map(|&i| s[i]).collect();
    let y = (0..m)
        .map(|r| idx.iter().map(|&c| u[(r, c)]).collect())
        .collect();
    Ok((w, y))
}

/// The Ritz values' order, most wanted first.
fn wanted(theta: &[f64], which: Which) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..theta.len()).collect();
    let key = |i: usize| match which {
        Which::LM => -theta[i].abs(),
        Which::SM => theta[i].abs(),
        Which::LA => -theta[i],
        Which::SA => theta[i],
    };
    idx.sort_by(|&p, &q| key(p).total_cmp(&key(q)));
    idx
}

/// `sum_j v_j c_j` for the columns `v` and a coefficient matrix `c` (`m x l`, host): one GEMM.
fn combine(v: &[Array], c: &[Vec<f64>], cols: &[usize], t: DType) -> Result<Array> {
    let m = c.len();
    let refs: Vec<&Array> = v[..m].iter().collect();
    let vs = crate::manipulation::join::stack(&refs, 1)?;
    let flat: Vec<f64> = (0..m)
        .flat_map(|r| cols.iter().map(move |&j| c[r][j]))
        .collect();
    let y = cast(
        &Array::from_slice_on(vs.device(), &flat, &[m, cols.len()])?,
        t,
    )?;
    crate::linalg::matmul(&vs, &y)
}

/// SciPy's `eigsh(A, k, M, sigma, which, v0, ncv, maxiter, tol, return_eigenvectors, Minv)`:
/// `k` eigenvalues of a real symmetric or complex Hermitian operator (only its `matvec` is
/// used; with `M`, of `A x = lambda M x`: [`Eigsh::m`]), ascending, and their eigenvectors as
/// the columns of an `n x k` array (`None` when not asked for).
/// The eigenvalues are real (float64, or float32 for float32/complex64 operators); the
/// vectors have the operator's dtype (float64 for integers).
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square operator, an `M` or `v0` of another size;
/// [`Error::InvalidArgument`] for `Minv` without `M` or with `sigma`, an `M` that is neither a
/// sparse matrix nor given `Minv` (sigma None), `k = 0`, `k >= n` (SciPy refuses `k >= n` for sparse
/// matrices: use `eigh` of the dense matrix) or an `ncv` outside `k < ncv <= n`;
/// [`Error::LinAlgError`] when `maxiter` restarts do not converge (SciPy's
/// `ArpackNoConvergence`).
pub fn eigsh(a: impl Into<LinearOperator>, k: usize, o: Eigsh) -> Result<(Array, Option<Array>)> {
    let a = a.into();
    let op = "eigsh";
    if o.minv.is_some() && o.m.is_none() {
        return Err(Error::invalid(
            op,
            "Minv should not be specified with M = None.",
        ));
    }
    if o.minv.is_some() && o.sigma.is_some() {
        return Err(Error::invalid(
            op,
            "Minv should not be specified when sigma is",
        ));
    }
    if let Some(m) = &o.m {
        if m.shape() != a.shape() {
            let ((r, c), (mr, mc)) = (a.shape(), m.shape());
            return Err(shapes_error(
                op,
                ("A", &[r, c]),
                ("M", &[mr, mc]),
                "M must have A's shape",
            ));
        }
    }
    let (w, v) = match (o.sigma, &o.m) {
        (None, None) => lanczos(op, &a, None, k, &o)?,
        (None, Some(m)) => generalized(&a, m, k, &o)?,
        (Some(sigma), _) => shift_invert(&a, k, sigma, &o)?,
    };
    let t = work_dtype(match &o.m {
        Some(m) => cupy_core::promote::promote_types(a.dtype(), m.dtype()),
        None => a.dtype(),
    });
    let rt = if matches!(t, DType::Float32 | DType::Complex64) {
        DType::Float32
    } else {
        DType::Float64
    };
    let dev = a.work_device()?;
    let w = cast(&Array::from_slice_on(&dev, &w, &[k])?, rt)?;
    Ok((w, v))
}
routine!(eigsh as "cupyx.scipy.sparse.linalg.eigsh", Sparse, probe: super::super::probe, notes: "thick-restart Lanczos, full reorthogonalization; which LM/SM/LA/SA; sigma by a host sparse LU; M (generalized, M inner product) with Minv or a host sparse LU of M");

/// [`eigsh`] with `M` and no `sigma` (ARPACK's mode 2): Lanczos on `M^-1 A` in the `M` inner
/// product.
fn generalized(
    a: &LinearOperator,
    m: &LinearOperator,
    k: usize,
    o: &Eigsh,
) -> Result<(Vec<f64>, Option<Array>)> {
    let op = "eigsh";
    let n = a.shape().0;
    let minv = match &o.minv {
        Some(mi) => mi.clone(),
        None => {
            let Some(mm) = m.matrix() else {
                return Err(Error::invalid(
                    op,
                    "M must be a sparse matrix to be factored (or pass Minv)",
                ));
            };
            let lu = super::splu(mm)?;
            LinearOperator::new((n, n), mm.dtype(), move |x| lu.solve(x)).with_device(mm.device())
        }
    };
    let t = cupy_core::promote::promote_types(a.dtype(), m.dtype());
    let a2 = a.clone();
    let mut opm = LinearOperator::new((n, n), t, move |x| minv.matvec(&a2.matvec(x)?));
    if let Some(d) = a.device().or(m.device()) {
        opm = opm.with_device(d);
    }
    lanczos(op, &opm, Some(m), k, o)
}

/// [`eigsh`] with `sigma` (see [`Eigsh::sigma`]): Lanczos on `(A - sigma I)^-1` (with `M`:
/// on `(A - sigma M)^-1 M` in the `M` inner product), then `lambda = sigma + 1 / nu`,
/// ascending.
fn shift_invert(
    a: &LinearOperator,
    k: usize,
    sigma: f64,
    o: &Eigsh,
) -> Result<(Vec<f64>, Option<Array>)> {
    let op = "eigsh";
    let Some(m) = a.matrix() else {
        return Err(Error::invalid(
            op,
            "sigma (shift-invert) needs a sparse matrix; a LinearOperator cannot be factored (OPinv is not supported)",
        ));
    };
    let (r, c) = m.shape();
    if r != c {
        return Err(not_square(op, "A", (r, c)));
    }
    let mmat = match &o.m {
        Some(mo) => Some(mo.matrix().cloned().ok_or_else(|| {
            Error::invalid(
                op,
                "sigma with M needs M as a sparse matrix (A - sigma M is factored)",
            )
        })?),
        None => None,
    };
    let shifted = if sigma == 0.0 {
        m.clone()
    } else {
        let b = match &mmat {
            Some(mm) => mm.clone(),
            None => crate::scipy::sparse::eye_with(
                r,
                crate::scipy::sparse::SpEye {
                    dtype: m.dtype(),
                    format: crate::scipy::sparse::Format::Csr,
                    device: Some(m.device().clone()),
                    ..Default::default()
                },
            )?
            .tocsr()?,
        };
        m.sub(&b.mul_scalar(sigma)?)?
    };
    let lu = super::splu(&shifted)?;
    let t = match &mmat {
        Some(mm) => cupy_core::promote::promote_types(a.dtype(), mm.dtype()),
        None => a.dtype(),
    };
    let inv = match mmat {
        Some(mm) => LinearOperator::new((r, r), t, move |x| lu.solve(&mm.dot(x)?)),
        None => LinearOperator::new((r, r), t, move |x| lu.solve(x)),
    }
    .with_device(m.device());
    let (nu, v) = lanczos(op, &inv, o.m.as_ref(), k, o)?;
    let mut order: Vec<(f64, usize)> = nu
        .iter()
        .enumerate()
        .map(|(i, &x)| (sigma + 1.0 / x, i))
        .collect();
    order.sort_by(|p, q| p.0.total_cmp(&q.0));
    let w = order.iter().map(|p| p.0).collect();
    let v = match v {
        Some(v) => {
            let cols: Vec<Array> = order
                .iter()
                .map(|&(_, i)| v.slice(&crate::s![.., i as isize]))
                .collect::<Result<_>>()?;
            let refs: Vec<&Array> = cols.iter().collect();
            Some(crate::manipulation::join::stack(&refs, 1)?)
        }
        None => None,
    };
    Ok((w, v))
}

/// The thick-restart Lanczos iteration on `a`, self-adjoint in the inner product
/// `<x, y> = x^H B y` (`b`: `B`, Hermitian positive definite; `None`: the identity): the `k`
/// wanted eigenvalues (ascending) and, when asked for, their (`B`-orthonormal) vectors.
fn lanczos(
    op: &str,
    a: &LinearOperator,
    b: Option<&LinearOperator>,
    k: usize,
    o: &Eigsh,
) -> Result<(Vec<f64>, Option<Array>)> {
    let (r, c) = a.shape();
    if r != c {
        return Err(not_square(op, "A", (r, c)));
    }
    let n = r;
    if k == 0 {
        return Err(Error::invalid(op, "k must be greater than 0."));
    }
    if k >= n {
        return Err(Error::invalid(
            op,
            format!("k must be less than ndim(A) = {n}, k={k} (use eigh of the dense matrix)"),
        ));
    }
    let m = match o.ncv {
        Some(m) => {
            if m <= k || m > n {
                return Err(Error::invalid(op, format!("ncv must be k<ncv<=n, ncv={m}")));
            }
            m
        }
        None => n.min((2 * k + 1).max(20)),
    };
    let t = work_dtype(a.dtype());
    let eps = eps_of(t);
    let tol = if o.tol > 0.0 { o.tol } else { eps };
    let eps23 = eps.powf(2.0 / 3.0);
    let maxiter = o.maxiter.unwrap_or(10 * n).max(1);
    let dev = a.work_device()?;
    let av = |x: &Array| cast(&a.matvec(x)?, t);
    // B x (the identity: x itself) and the B-norm of x given B x.
    let bx = |x: &Array| -> Result<Array> {
        match b {
            Some(b) => cast(&b.matvec(x)?, t),
            None => Ok(x.clone()),
        }
    };
    let bnorm = |x: &Array, bx: &Array| -> Result<f64> {
        if b.is_none() {
            return nrm(x);
        }
        // x^H M x and x^H x in one read: an M-norm squared that is negative beyond rounding
        // means M is not positive definite (SciPy's ARPACK runs on with meaningless values).
        let vdot = crate::linalg::products::vdot;
        let d = read(&[&vdot(x, bx)?, &vdot(x, x)?])?;
        if d[0].re < -1e-8 * d[1].re {
            return Err(Error::linalg(
                op,
                format!(
                    "M must be Hermitian positive definite: a Lanczos vector has x^H M x = {:e} \
                     with x^H x = {:e}",
                    d[0].re, d[1].re
                ),
            ));
        }
        Ok(d[0].re.max(0.0).sqrt())
    };
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let random = |seed: &mut u64| -> Result<Array> {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        cast(
            &Array::from_slice_on(&dev, &random_vector(n, *seed | 1), &[n])?,
            t,
        )
    };
    let v0 = match &o.v0 {
        Some(v0) => {
            if v0.size() != n {
                return Err(shapes_error(
                    op,
                    ("A", &[n, n]),
                    ("v0", v0.shape()),
                    format!("v0 must have {n} elements"),
                ));
            }
            cast(&v0.reshape(&[-1])?, t)?
        }
        None => random(&mut seed)?,
    };
    let bv0 = bx(&v0)?;
    let n0 = bnorm(&v0, &bv0)?;
    let mut v = vec![(&v0 * (1.0 / n0))?];
    let mut bv = vec![(&bv0 * (1.0 / n0))?];
    // w -= V ((BV)^H w), twice (DGKS), with V the stacked basis (two GEMVs a pass); the summed
    // coefficients, ||w|| before (with B: from the coefficients and the norm after, as
    // w = V c + w') and after, and B w.
    let orth = |w: &mut Array, v: &[Array], bv: &[Array]| -> Result<(Vec<f64>, f64, f64, Array)> {
        let vs = crate::manipulation::join::stack(&v.iter().collect::<Vec<_>>(), 1)?;
        let bvs = if b.is_some() {
            crate::manipulation::join::stack(&bv.iter().collect::<Vec<_>>(), 1)?
        } else {
            vs.clone()
        };
        let vh = if t.is_complex() {
            crate::math::complex::conj(&bvs.t())?
        } else {
            bvs.t()
        };
        let mut coef = vec![0.0; v.len()];
        let mut h0 = 0.0;
        for pass in 0..2 {
            let c = crate::linalg::matmul(&vh, w)?;
            let got = if pass == 0 {
                let h = crate::linalg::norms::norm(w)?;
                let both = crate::manipulation::join::concatenate(
                    &[
                        &cast(&c, DType::Complex128)?,
                        &cast(&h.reshape(&[1])?, DType::Complex128)?,
                    ],
                    0,
                )?;
                both.to_vec::<C64>()?
            } else {
                cast(&c, DType::Complex128)?.to_vec::<C64>()?
            };
            if pass == 0 {
                h0 = got[v.len()].re;
            }
            for (ci, g) in coef.iter_mut().zip(&got) {
                *ci += g.re;
            }
            *w = (&*w - &crate::linalg::matmul(&vs, &c)?)?;
        }
        let bw = bx(w)?;
        let beta = bnorm(w, &bw)?;
        if b.is_some() {
            h0 = (coef.iter().map(|c| c * c).sum::<f64>() + beta * beta).sqrt();
        }
        Ok((coef, h0, beta, bw))
    };
    let mut tm = vec![vec![0.0f64; m]; m];
    let mut start = 0usize;
    let mut beta_m;
    let mut iters = 0usize;
    loop {
        beta_m = 0.0;
        for j in start..m {
            let mut w = av(&v[j])?;
            let (coef, h0, mut beta, mut bw) = orth(&mut w, &v[..=j], &bv[..=j])?;
            for (i, ci) in coef.iter().enumerate() {
                tm[i][j] = *ci;
                tm[j][i] = *ci;
            }
            if beta <= 10.0 * eps * h0.max(f64::MIN_POSITIVE) {
                // An invariant subspace: continue from a random vector orthogonal to it.
                beta = 0.0;
                let mut z = random(&mut seed)?;
                let (_, _, zn, bz) = orth(&mut z, &v[..=j], &bv[..=j])?;
                w = (&z * (1.0 / zn))?;
                bw = if b.is_some() {
                    (&bz * (1.0 / zn))?
                } else {
                    w.clone()
                };
            } else {
                w = (&w * (1.0 / beta))?;
                bw = if b.is_some() {
                    (&bw * (1.0 / beta))?
                } else {
                    w.clone()
                };
            }
            if j + 1 < m {
                tm[j + 1][j] = beta;
                tm[j][j + 1] = beta;
            } else {
                beta_m = beta;
            }
            v.truncate(j + 1);
            v.push(w);
            bv.truncate(j + 1);
            bv.push(bw);
        }
        let (theta, y) = eig_sym(&tm)?;
        let order = wanted(&theta, o.which);
        let res = |i: usize| (beta_m * y[m - 1][i]).abs();
        let nconv = order[..k]
            .iter()
            .filter(|&&i| res(i) <= tol * theta[i].abs().max(eps23))
            .count();
        iters += 1;
        if nconv == k {
            let mut sel: Vec<usize> = order[..k].to_vec();
            sel.sort_by(|&p, &q| theta[p].total_cmp(&theta[q]));
            let w: Vec<f64> = sel.iter().map(|&i| theta[i]).collect();
            let vecs = if o.return_eigenvectors {
                Some(combine(&v, &y, &sel, t)?)
            } else {
                None
            };
            return Ok((w, vecs));
        }
        if iters >= maxiter {
            return Err(Error::linalg(
                op,
                format!(
                    "ARPACK error -1: No convergence ({iters} iterations, {nconv}/{k} eigenvectors converged){}",
                    if b.is_some() {
                        "; with M, the M inner product needs M Hermitian positive definite"
                    } else {
                        ""
                    }
                ),
            ));
        }
        // Thick restart: keep the l most wanted Ritz vectors, then the residual vector.
        let l = (k + (m - k) / 2).clamp(k, m - 1);
        let keep = &order[..l];
        let x = combine(&v, &y, keep, t)?;
        let resid = v[m].clone();
        v = (0..l)
            .map(|i| x.slice(&crate::s![.., i as isize]))
            .collect::<Result<_>>()?;
        v.push(resid);
        bv = if b.is_some() {
            let bxk = combine(&bv, &y, keep, t)?;
            let bresid = bv[m].clone();
            let mut nb: Vec<Array> = (0..l)
                .map(|i| bxk.slice(&crate::s![.., i as isize]))
                .collect::<Result<_>>()?;
            nb.push(bresid);
            nb
        } else {
            v.clone()
        };
        tm = vec![vec![0.0f64; m]; m];
        for (i, &ki) in keep.iter().enumerate() {
            tm[i][i] = theta[ki];
            tm[i][l] = beta_m * y[m - 1][ki];
            tm[l][i] = tm[i][l];
        }
        start = l;
    }
}

/// The keywords of [`svds`] (SciPy's `ncv=None, tol=0, which='LM', v0=None, maxiter=None,
/// return_singular_vectors=True`, solver `'arpack'`).
#[derive(Clone, Debug)]
pub struct Svds {
    /// The Lanczos vectors of the inner [`eigsh`].
    pub ncv: Option<usize>,
    /// The singular values' relative accuracy (`eigsh` gets `tol^2`; 0: machine precision).
    pub tol: f64,
    /// [`Which::LM`] (largest, the default) or [`Which::SM`] (smallest).
    pub which: Which,
    /// The starting vector, of length `min(m, n)`.
    pub v0: Option<Array>,
    /// The inner `eigsh`'s restarts.
    pub maxiter: Option<usize>,
    /// Also return `u` and `vh` (default true).
    pub return_singular_vectors: bool,
}

impl Default for Svds {
    fn default() -> Svds {
        Svds {
            ncv: None,
            tol: 0.0,
            which: Which::LM,
            v0: None,
            maxiter: None,
            return_singular_vectors: true,
        }
    }
}

/// What [`svds`] returns: `u` (`m x k`), `s` (`k`, ascending, as SciPy's), `vh` (`k x n`).
#[derive(Clone, Debug)]
pub struct SvdsResult {
    /// Left singular vectors (columns), when asked for.
    pub u: Option<Array>,
    /// The singular values, ascending.
    pub s: Array,
    /// Right singular vectors (rows), when asked for.
    pub vh: Option<Array>,
}

/// SciPy's `svds(A, k, ncv, tol, which, v0, maxiter, return_singular_vectors)` with its
/// default `'arpack'` solver semantics: [`eigsh`] of `A^H A` (or `A A^H` when `A` is wide) for
/// the `k` largest (or smallest) eigenpairs, then the singular triplets from an SVD of the
/// `min(m, n) x k` product `A V` (as SciPy does). `A` needs `rmatvec`.
///
/// # Errors
/// [`Error::InvalidArgument`] for `k = 0` or `k >= min(m, n)`, or `which` other than LM/SM;
/// as [`eigsh`].
pub fn svds(a: impl Into<LinearOperator>, k: usize, o: Svds) -> Result<SvdsResult> {
    let op = "svds";
    let a = a.into();
    let (m, n) = a.shape();
    let small = m.min(n);
    if k == 0 || k >= small {
        return Err(Error::invalid(
            op,
            format!(
                "k must be between 1 and min(A.shape) = {small} (exclusive), k={k}, A is {m}x{n}"
            ),
        ));
    }
    if !matches!(o.which, Which::LM | Which::SM) {
        return Err(Error::invalid(op, "which must be LM or SM"));
    }
    let transpose = m < n;
    let t = work_dtype(a.dtype());
    let (a1, a2) = (a.clone(), a.clone());
    // X = A (tall) or A^H (wide); X^H X is small x small.
    let x_dot = move |x: &Array| -> Result<Array> {
        if transpose {
            a1.rmatvec(x)
        } else {
            a1.matvec(x)
        }
    };
    let xh_dot = move |x: &Array| -> Result<Array> {
        if transpose {
            a2.matvec(x)
        } else {
            a2.rmatvec(x)
        }
    };
    let xd = x_dot.clone();
    let mut xhx = LinearOperator::new((small, small), t, move |x| xh_dot(&xd(x)?));
    if let Some(d) = a.device() {
        xhx = xhx.with_device(d);
    }
    let (_, eigvec) = eigsh(
        xhx,
        k,
        Eigsh {
            which: o.which,
            v0: o.v0.clone(),
            ncv: o.ncv,
            maxiter: o.maxiter,
            tol: o.tol * o.tol,
            return_eigenvectors: true,
            ..Default::default()
        },
    )?;
    let eigvec = crate::linalg::eigen::qr(&eigvec.expect("vectors"))?.0;
    let cols: Vec<Array> = (0..k)
        .map(|j| {
            cast(
                &x_dot(&eigvec.slice(&crate::s![.., j as isize])?.copy()?)?,
                t,
            )
        })
        .collect::<Result<_>>()?;
    let av = crate::manipulation::join::stack(&cols.iter().collect::<Vec<_>>(), 1)?;
    let r = crate::linalg::eigen::svd_with(
        &av,
        crate::linalg::eigen::Svd {
            full_matrices: false,
            compute_uv: o.return_singular_vectors,
            hermitian: false,
        },
    )?;
    let s = r.s.flip(0)?;
    if !o.return_singular_vectors {
        return Ok(SvdsResult {
            u: None,
            s,
            vh: None,
        });
    }
    let herm = |x: &Array| crate::math::complex::conj(&x.t());
    let u = r.u.expect("u").flip(1)?;
    let vh = r.vh.expect("vh").flip(0)?;
    let (u, vh) = if transpose {
        (crate::linalg::matmul(&eigvec, &herm(&vh)?)?, herm(&u)?)
    } else {
        (u, crate::linalg::matmul(&vh, &herm(&eigvec)?)?)
    };
    Ok(SvdsResult {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}
routine!(svds as "cupyx.scipy.sparse.linalg.svds", Sparse, probe: super::super::probe, notes: "eigsh of A^H A (SciPy's arpack semantics), then an SVD of A V");
