//! The Krylov solvers, transcribed from SciPy 1.17's `scipy.sparse.linalg._isolve` (`cg`,
//! `bicgstab`, `gmres` with restarts and its preconditioned-residual tolerance control, and
//! Paige & Saunders' `minres`) with the vectors on the device.

use super::super::{not_square, shapes_error};
use super::LinearOperator;
use crate::array::Array;
use crate::custom::fuse::{fuse, where_sym, Fused, Sym};
use crate::linalg::norms::norm as vnorm;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;
use num_complex::Complex;
use std::sync::{Arc, OnceLock};

type C64 = Complex<f64>;

/// A solver's `callback`: called with the current iterate `xk` (SciPy's `callback(xk)`).
pub type Callback = Arc<dyn Fn(&Array) + Send + Sync>;

/// The keywords of the iterative solvers (SciPy's `x0=None, rtol=1e-5, atol=0.0,
/// maxiter=None, M=None, callback=None`, and `gmres`'s `restart=None`).
#[derive(Clone)]
pub struct Solve {
    /// The starting guess (`None`: zeros).
    pub x0: Option<Array>,
    /// The relative tolerance (default 1e-5): converged when `||r|| <= max(atol, rtol *
    /// ||b||)` (MINRES: SciPy's own tests on `rtol`).
    pub rtol: f64,
    /// The absolute tolerance (default 0).
    pub atol: f64,
    /// The most iterations (`None`: SciPy's default, `10 n`; MINRES `5 n`; GMRES counts
    /// restart cycles).
    pub maxiter: Option<usize>,
    /// A preconditioner approximating `A^-1` (`M=`).
    pub m: Option<LinearOperator>,
    /// GMRES: the Krylov dimension between restarts (default 20).
    pub restart: Option<usize>,
    /// Called with the current solution after each iteration (`cg bicgstab cgs minres`:
    /// SciPy's `callback(xk)`; `gmres`: after each restart cycle, SciPy's
    /// `callback_type='x'`). The iterate is a device array; reading it synchronises.
    pub callback: Option<Callback>,
}

impl std::fmt::Debug for Solve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solve")
            .field("x0", &self.x0)
            .field("rtol", &self.rtol)
            .field("atol", &self.atol)
            .field("maxiter", &self.maxiter)
            .field("M", &self.m)
            .field("restart", &self.restart)
            .field("callback", &self.callback.as_ref().map(|_| "Fn(&Array)"))
            .finish()
    }
}

impl Default for Solve {
    fn default() -> Solve {
        Solve {
            x0: None,
            rtol: 1e-5,
            atol: 0.0,
            maxiter: None,
            m: None,
            restart: None,
            callback: None,
        }
    }
}

/// What every solver sets up (SciPy's `make_system`): the work dtype, `x`, and checks.
struct System {
    a: LinearOperator,
    m: Option<LinearOperator>,
    b: Array,
    x: Array,
    t: DType,
    n: usize,
    given_x0: bool,
    callback: Option<Callback>,
}

fn make_system(op: &str, a: LinearOperator, b: &Array, o: &Solve) -> Result<System> {
    let (r, c) = a.shape();
    if r != c {
        return Err(not_square(op, "A", (r, c)));
    }
    let given_b = b;
    let b = if b.ndim() == 2 && b.shape()[1] == 1 {
        b.reshape(&[-1])?
    } else {
        b.clone()
    };
    if b.ndim() != 1 || b.shape()[0] != r {
        return Err(shapes_error(
            op,
            ("A", &[r, c]),
            ("b", given_b.shape()),
            format!("b must have {r} elements (shape ({r},) or ({r}, 1))"),
        ));
    }
    let t = cupy_core::promote::promote_types(a.dtype(), b.dtype());
    let t = match t {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => t,
        t if t.is_complex() => DType::Complex128,
        _ => DType::Float64,
    };
    let b = cast(&b, t)?;
    let (x, given) = match &o.x0 {
        Some(x0) => {
            if x0.size() != r {
                return Err(shapes_error(
                    op,
                    ("A", &[r, c]),
                    ("x0", x0.shape()),
                    format!("x0 must have {r} elements"),
                ));
            }
            (cast(&x0.reshape(&[-1])?, t)?, true)
        }
        None => (Array::zeros_on(b.device(), &[r], t)?, false),
    };
    if let Some(m) = &o.m {
        if m.shape() != (r, r) {
            return Err(shapes_error(
                op,
                ("A", &[r, c]),
                ("the preconditioner M", &[m.shape().0, m.shape().1]),
                "M must have A's shape",
            ));
        }
    }
    Ok(System {
        a,
        m: o.m.clone(),
        b,
        x,
        t,
        n: r,
        given_x0: given,
        callback: o.callback.clone(),
    })
}

impl System {
    fn av(&self, v: &Array) -> Result<Array> {
        cast(&self.a.matvec(v)?, self.t)
    }
    fn psolve(&self, v: &Array) -> Result<Array> {
        match &self.m {
            Some(m) => cast(&m.matvec(v)?, self.t),
            None => Ok(v.clone()),
        }
    }
    fn residual(&self, x: &Array) -> Result<Array> {
        &self.b - &self.av(x)?
    }
    /// `b - A x0`, or `b` when no `x0` was given.
    fn r0(&self) -> Result<Array> {
        if self.given_x0 {
            self.residual(&self.x)
        } else {
            Ok(self.b.clone())
        }
    }
    fn eps(&self) -> f64 {
        match self.t {
            DType::Float32 | DType::Complex64 => f32::EPSILON as f64,
            _ => f64::EPSILON,
        }
    }
    /// Calls the user's callback with `x`.
    fn call(&self, x: &Array) {
        if let Some(f) = &self.callback {
            f(x);
        }
    }
    /// A typed scalar of the work dtype.
    fn s(&self, z: C64) -> Scalar {
        Scalar::Complex128(z).cast(self.t)
    }
}

pub(super) fn cast(a: &Array, t: DType) -> Result<Array> {
    if a.dtype() == t {
        Ok(a.clone())
    } else {
        a.astype(t)
    }
}

/// `||v||_2` read back.
pub(super) fn nrm(v: &Array) -> Result<f64> {
    Ok(vnorm(v)?.item()?.to_f64())
}

/// Several 0-d arrays read back at once, as complex numbers (one synchronisation).
pub(super) fn read(parts: &[&Array]) -> Result<Vec<C64>> {
    let c: Vec<Array> = parts
        .iter()
        .map(|a| cast(a, DType::Complex128)?.reshape(&[1]))
        .collect::<Result<_>>()?;
    let r: Vec<&Array> = c.iter().collect();
    crate::manipulation::join::concatenate(&r, 0)?.to_vec::<C64>()
}

/// `vdot(a, b)` (`sum(conj(a) * b)`, a 0-d device array) as one product and one reduction:
/// `cupy::vdot` goes through GEMM, whose 1 x n x 1 case is slow on wgpu (130 ms for n = 10^4
/// on llvmpipe against 0.4 ms for this).
pub(super) fn vdot(a: &Array, b: &Array) -> Result<Array> {
    let ac = if a.dtype().is_complex() {
        crate::math::complex::conj(a)?
    } else {
        a.clone()
    };
    (&ac * b)?.sum()
}

/// `x + s * y` with `s` a 0-d device array or a scalar.
fn axpy<'a>(x: &Array, s: impl Into<Arg<'a>>, y: &'a Array) -> Result<Array> {
    x + &y.multiply(s)?
}

/// Iterations run between two reads of the residual norm in [`cg`]: the scalars stay on the
/// device in between, and an iteration that starts converged leaves `x` and `r` unchanged.
const CG_CHECK_EVERY: usize = 16;

/// `p = z + (rho / rho_prev) p`, in place (the new search direction).
fn cg_direction(p: Sym, z: Sym, rho: Sym, rho_prev: Sym) {
    p.assign(z + (rho / rho_prev) * p);
}

/// `vdot(p, q)`, one reduction kernel.
fn cg_curvature(p: Sym, q: Sym) -> Sym {
    (p.conj() * q).sum()
}

/// One update of `x` and `r` with `alpha = rho / pq`, skipped (both unchanged) when the
/// iteration started converged (`rr < atol2`); returns the new `||r||^2`.
/// Arguments: `x r p q rho pq rr atol2`.
fn cg_update(s: &[Sym]) -> Sym {
    let (x, r, p, q, rho, pq, rr, atol2) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
    let done = rr.less(atol2);
    let alpha = rho / pq;
    x.assign(where_sym(done, x, x + alpha * p));
    r.assign(where_sym(done, r, r - alpha * q));
    cg_norm2(r)
}

/// `||r||^2` (real), one reduction kernel.
fn cg_norm2(r: Sym) -> Sym {
    (r.conj() * r).real().sum()
}

type Fused4 = Fused<((Sym, Sym, Sym, Sym), ()), fn(Sym, Sym, Sym, Sym)>;
type Fused2 = Fused<((Sym, Sym), Sym), fn(Sym, Sym) -> Sym>;
type Fused1 = Fused<((Sym,), Sym), fn(Sym) -> Sym>;
type FusedN = Fused<(&'static [Sym], Sym), fn(&[Sym]) -> Sym>;

/// `cg`'s fused kernels, traced once per process.
struct CgKernels {
    direction: Fused4,
    curvature: Fused2,
    update: FusedN,
    norm2: Fused1,
}

fn cg_kernels() -> Result<&'static CgKernels> {
    static K: OnceLock<CgKernels> = OnceLock::new();
    if let Some(k) = K.get() {
        return Ok(k);
    }
    let k = CgKernels {
        direction: fuse(cg_direction as fn(Sym, Sym, Sym, Sym)).with_name("cg_direction")?,
        curvature: fuse(cg_curvature as fn(Sym, Sym) -> Sym).with_name("cg_curvature")?,
        update: fuse(cg_update as fn(&[Sym]) -> Sym).with_name("cg_update")?,
        norm2: fuse(cg_norm2 as fn(Sym) -> Sym).with_name("cg_norm2")?,
    };
    Ok(K.get_or_init(|| k))
}

/// SciPy's `cg(A, b, x0, rtol, atol, maxiter, M)`: conjugate gradients for a Hermitian
/// positive definite `A`. Returns `(x, info)`: 0 converged, else the iterations run.
///
/// The scalars stay on the device: an iteration is the operator's product and three fused
/// kernels (the direction, `p^H A p`, and the update of `x` and `r` with the new `||r||^2`),
/// plus `M`'s product and `r^H z` when `M` is given. `||r||^2` is read back every
/// 16 iterations (every iteration when a `callback` is given); an iteration that starts
/// with `||r||^2 < atol^2` (SciPy: `||r|| < atol`, compared here as squares in the work
/// dtype; a positive `atol` whose square underflows compares against the dtype's smallest
/// normal value) changes nothing, so the result and `info` are SciPy's.
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A` or a `b`/`x0`/`M` of another size (both
/// shapes named); what the operator returns.
pub fn cg(a: impl Into<LinearOperator>, b: &Array, opts: Solve) -> Result<(Array, i64)> {
    let s = make_system("cg", a.into(), b, &opts)?;
    let bnrm2 = nrm(&s.b)?;
    if bnrm2 == 0.0 {
        return Ok((s.b.clone(), 0));
    }
    let atol = opts.atol.max(opts.rtol * bnrm2);
    let maxiter = opts.maxiter.unwrap_or(s.n * 10);
    let k = cg_kernels()?;
    // The threshold in the real work dtype, so the host's comparison is the kernels'. A
    // positive `atol` whose square underflows there keeps the smallest normal value, so an
    // exact zero residual still converges (as `||r|| < atol` does).
    let real = s.t.real_dtype();
    let tiny = if real == DType::Float32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    let atol2 = Scalar::Float64(atol * atol).cast(real);
    let atol2 = if atol > 0.0 && atol2.to_f64() < tiny {
        Scalar::Float64(tiny).cast(real)
    } else {
        atol2
    };
    let below = |v: C64| v.re < atol2.to_f64();
    // Own copies: x and r are updated in place.
    let x = s.x.copy()?;
    let r = s.r0()?.copy()?;
    let mut rr = k.norm2.call(&[(&r).into()])?;
    let mut rr_start = read(&[&rr])?[0];
    let mut p: Option<Array> = None;
    let mut rho_prev: Option<Array> = None;
    let mut it = 0;
    loop {
        // SciPy's loop: `maxiter` once the iterations are spent (even if the last one
        // converged), else 0 when an iteration starts converged.
        if it >= maxiter {
            return Ok((x, maxiter as i64));
        }
        if below(rr_start) {
            return Ok((x, 0));
        }
        let batch = if s.callback.is_some() {
            1
        } else {
            CG_CHECK_EVERY.min(maxiter - it)
        };
        let mut rr_last = rr.clone();
        for _ in 0..batch {
            let (z, rho) = match &s.m {
                Some(_) => {
                    let z = s.psolve(&r)?;
                    let rho = vdot(&r, &z)?;
                    (z, rho)
                }
                None => (r.clone(), rr.clone()),
            };
            let pk = match (p.take(), &rho_prev) {
                (Some(p), Some(prev)) => {
                    k.direction.call_multi(&[
                        (&p).into(),
                        (&z).into(),
                        (&rho).into(),
                        prev.into(),
                    ])?;
                    p
                }
                _ => z.copy()?,
            };
            let q = s.av(&pk)?;
            let pq = k.curvature.call(&[(&pk).into(), (&q).into()])?;
            let next = k.update.call(&[
                (&x).into(),
                (&r).into(),
                (&pk).into(),
                (&q).into(),
                (&rho).into(),
                (&pq).into(),
                (&rr).into(),
                atol2.into(),
            ])?;
            rr_last = std::mem::replace(&mut rr, next);
            rho_prev = Some(rho);
            p = Some(pk);
            s.call(&x);
        }
        it += batch;
        let v = read(&[&rr_last, &rr])?;
        if below(v[0]) {
            // An iteration of this batch started converged: x stopped there.
            return Ok((x, 0));
        }
        rr_start = v[1];
    }
}
routine!(cg as "cupyx.scipy.sparse.linalg.cg / bicgstab / gmres / minres", Sparse, probe: super::super::probe, notes: "SciPy 1.17's algorithms; vectors on the device; cg: fused kernels, scalars on the device, the residual read every 16 iterations; the others read their scalars per iteration");

/// SciPy's `bicgstab(A, b, x0, rtol, atol, maxiter, M)`: BiCGSTAB for general `A`. Info: 0
/// converged, the iterations run when not, -10 (`rho` breakdown) or -11 (`omega` breakdown).
///
/// # Errors
/// As [`cg`].
pub fn bicgstab(a: impl Into<LinearOperator>, b: &Array, opts: Solve) -> Result<(Array, i64)> {
    let s = make_system("bicgstab", a.into(), b, &opts)?;
    let bnrm2 = nrm(&s.b)?;
    if bnrm2 == 0.0 {
        return Ok((s.b.clone(), 0));
    }
    let atol = opts.atol.max(opts.rtol * bnrm2);
    let maxiter = opts.maxiter.unwrap_or(s.n * 10);
    let rhotol = s.eps() * s.eps();
    let omegatol = rhotol;
    let mut x = s.x.clone();
    let mut r = s.r0()?;
    let rtilde = r.clone();
    let (mut p, mut v) = (r.clone(), r.clone());
    let (mut rho_prev, mut alpha, mut omega) =
        (C64::new(0.0, 0.0), C64::new(0.0, 0.0), C64::new(0.0, 0.0));
    for it in 0..maxiter {
        let rho_a = vdot(&rtilde, &r)?;
        let rn = vnorm(&r)?;
        let v2 = read(&[&rn, &rho_a])?;
        if v2[0].re < atol {
            return Ok((x, 0));
        }
        let rho = v2[1];
        if rho.norm() < rhotol {
            return Ok((x, -10));
        }
        if it > 0 {
            if omega.norm() < omegatol {
                return Ok((x, -11));
            }
            let beta = (rho / rho_prev) * (alpha / omega);
            p = (&(&p - &v.multiply(s.s(omega))?)?.multiply(s.s(beta))? + &r)?;
        } else {
            p = r.clone();
        }
        let phat = s.psolve(&p)?;
        v = s.av(&phat)?;
        let rv = read(&[&vdot(&rtilde, &v)?])?[0];
        if rv == C64::new(0.0, 0.0) {
            return Ok((x, -11));
        }
        alpha = rho / rv;
        r = (&r - &v.multiply(s.s(alpha))?)?;
        if nrm(&r)? < atol {
            x = axpy(&x, s.s(alpha), &phat)?;
            return Ok((x, 0));
        }
        let shat = s.psolve(&r)?;
        let t = s.av(&shat)?;
        let w = read(&[&vdot(&t, &r)?, &vdot(&t, &t)?])?;
        omega = w[0] / w[1];
        x = axpy(&axpy(&x, s.s(alpha), &phat)?, s.s(omega), &shat)?;
        r = (&r - &t.multiply(s.s(omega))?)?;
        rho_prev = rho;
        s.call(&x);
    }
    Ok((x, maxiter as i64))
}

/// LAPACK's `lartg` for complex numbers: `(c, s, r)` with `c` real, `[c s; -conj(s) c] [f; g]
/// = [r; 0]`.
fn lartg(f: C64, g: C64) -> (f64, C64, C64) {
    let zero = C64::new(0.0, 0.0);
    if g == zero {
        return (1.0, zero, f);
    }
    if f == zero {
        let a = g.norm();
        return (0.0, g.conj() / a, C64::new(a, 0.0));
    }
    let (af, ag) = (f.norm(), g.norm());
    let d = af.hypot(ag);
    let phase = f / af;
    (af / d, phase * g.conj() / d, phase * d)
}

/// SciPy's `gmres(A, b, x0, rtol, atol, restart, maxiter, M)`: restarted GMRES (modified
/// Gram-Schmidt, Givens rotations, SciPy's tolerance control of the preconditioned residual
/// between restarts). `maxiter` counts restart cycles (default `10 n`), `restart` the inner
/// steps (default 20, at most `n`). Info: 0 converged, else `maxiter`. One read per inner step
/// (the new Hessenberg column).
///
/// # Errors
/// As [`cg`].
pub fn gmres(a: impl Into<LinearOperator>, b: &Array, opts: Solve) -> Result<(Array, i64)> {
    let s = make_system("gmres", a.into(), b, &opts)?;
    let n = s.n;
    let bnrm2 = nrm(&s.b)?;
    if bnrm2 == 0.0 {
        return Ok((s.b.clone(), 0));
    }
    let eps = s.eps();
    let maxiter = opts.maxiter.unwrap_or(n * 10);
    let restart = opts.restart.unwrap_or(20).min(n).max(1);
    let atol = opts.atol.max(opts.rtol * bnrm2);
    let mb_nrm2 = nrm(&s.psolve(&s.b)?)?;
    let mut ptol_max_factor = 1.0f64;
    let mut ptol = mb_nrm2 * ptol_max_factor.min(atol / bnrm2);
    let zero = C64::new(0.0, 0.0);
    let mut x = s.x.clone();
    let mut r = s.r0()?;
    if nrm(&r)? < atol {
        return Ok((x, 0));
    }
    let mut rnorm = f64::INFINITY;
    for _ in 0..maxiter {
        let v0 = s.psolve(&r)?;
        let tmp = nrm(&v0)?;
        let mut v = vec![v0.multiply(s.s(C64::new(1.0 / tmp, 0.0)))?];
        // h[col][k]: column `col` of the Hessenberg matrix (SciPy's h[col, k]).
        let mut h = vec![vec![zero; restart + 1]; restart];
        let mut givens = vec![(0.0f64, zero); restart];
        let mut big_s = vec![zero; restart + 1];
        big_s[0] = C64::new(tmp, 0.0);
        let mut breakdown = false;
        let mut presid = 0.0;
        let mut col = 0;
        for c in 0..restart {
            col = c;
            let mut w = s.psolve(&s.av(&v[c])?)?;
            let h0 = vnorm(&w)?;
            let mut dots = vec![];
            for vk in v.iter().take(c + 1) {
                let d = vdot(vk, &w)?;
                w = (&w - &vk.multiply(&d)?)?;
                dots.push(d);
            }
            let h1 = vnorm(&w)?;
            let mut parts: Vec<&Array> = vec![&h0, &h1];
            parts.extend(dots.iter());
            let got = read(&parts)?;
            let (h0, h1) = (got[0].re, got[1].re);
            h[c][..=c].copy_from_slice(&got[2..c + 3]);
            h[c][c + 1] = C64::new(h1, 0.0);
            if h1 <= eps * h0 {
                h[c][c + 1] = zero;
                breakdown = true;
                v.push(w);
            } else {
                v.push(w.multiply(s.s(C64::new(1.0 / h1, 0.0)))?);
            }
            for k in 0..c {
                let (cs, sn) = givens[k];
                let (n0, n1) = (h[c][k], h[c][k + 1]);
                h[c][k] = n0 * cs + sn * n1;
                h[c][k + 1] = -sn.conj() * n0 + n1 * cs;
            }
            let (cs, sn, mag) = lartg(h[c][c], h[c][c + 1]);
            givens[c] = (cs, sn);
            h[c][c] = mag;
            h[c][c + 1] = zero;
            let t = -sn.conj() * big_s[c];
            big_s[c] *= cs;
            big_s[c + 1] = t;
            presid = t.norm();
            if presid <= ptol || breakdown {
                break;
            }
        }
        if h[col][col] == zero {
            big_s[col] = zero;
        }
        let mut y: Vec<C64> = big_s[..=col].to_vec();
        for k in (1..=col).rev() {
            if y[k] != zero {
                y[k] /= h[k][k];
                let t = y[k];
                for j in 0..k {
                    y[j] -= t * h[k][j];
                }
            }
        }
        if y[0] != zero {
            y[0] /= h[0][0];
        }
        for (yk, vk) in y.iter().zip(&v) {
            x = axpy(&x, s.s(*yk), vk)?;
        }
        r = s.residual(&x)?;
        rnorm = nrm(&r)?;
        s.call(&x);
        if rnorm <= atol || breakdown {
            break;
        } else if presid <= ptol {
            ptol_max_factor = eps.max(0.25 * ptol_max_factor);
        } else {
            ptol_max_factor = (1.5 * ptol_max_factor).min(1.0);
        }
        ptol = presid * ptol_max_factor.min(atol / rnorm);
    }
    Ok((x, if rnorm <= atol { 0 } else { maxiter as i64 }))
}

/// SciPy's `minres(A, b, x0, rtol, maxiter, M)` (Paige & Saunders' MINRES for symmetric,
/// possibly indefinite `A`; `M` symmetric positive definite; `shift` 0). `atol` is not used
/// (SciPy's minres has none). Info: 0 converged (any of SciPy's stopping tests), `maxiter`
/// when the iterations ran out. Real dtypes only.
///
/// # Errors
/// As [`cg`]; [`Error::TypeError`] for complex systems; [`Error::InvalidArgument`] for an
/// indefinite preconditioner or a non-symmetric matrix detected on the way (SciPy's
/// ValueErrors).
pub fn minres(a: impl Into<LinearOperator>, b: &Array, opts: Solve) -> Result<(Array, i64)> {
    let op = "minres";
    let s = make_system(op, a.into(), b, &opts)?;
    if s.t.is_complex() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![s.t],
            msg: "minres is implemented for real systems only".into(),
        });
    }
    let n = s.n;
    let rtol = opts.rtol;
    let maxiter = opts.maxiter.unwrap_or(5 * n);
    let eps = s.eps();
    let mut x = s.x.clone();
    let mut r1 = s.r0()?;
    let mut y = s.psolve(&r1)?;
    let beta1 = read(&[&vdot(&r1, &y)?])?[0].re;
    if beta1 < 0.0 {
        return Err(Error::invalid(op, "indefinite preconditioner"));
    } else if beta1 == 0.0 {
        return Ok((x, 0));
    }
    if nrm(&s.b)? == 0.0 {
        return Ok((s.b.clone(), 0));
    }
    let beta1 = beta1.sqrt();
    let (mut oldb, mut beta, mut dbar, mut epsln) = (0.0f64, beta1, 0.0f64, 0.0f64);
    let (mut phibar, mut rhs1, mut rhs2, mut tnorm2) = (beta1, beta1, 0.0f64, 0.0f64);
    let (mut gmax, mut gmin) = (0.0f64, f64::MAX);
    let (mut cs, mut sn) = (-1.0f64, 0.0f64);
    let zeros = Array::zeros_on(s.b.device(), &[n], s.t)?;
    let (mut w, mut w2) = (zeros.clone(), zeros);
    let mut r2 = r1.clone();
    let mut istop = 0;
    let mut itn = 0;
    let c = |v: f64| s.s(C64::new(v, 0.0));
    while itn < maxiter {
        itn += 1;
        let v = y.multiply(c(1.0 / beta))?;
        y = s.av(&v)?;
        if itn >= 2 {
            y = (&y - &r1.multiply(c(beta / oldb))?)?;
        }
        let alfa_a = vdot(&v, &y)?;
        y = (&y - &r2.multiply(&(&alfa_a / beta)?)?)?;
        r1 = r2;
        r2 = y.clone();
        y = s.psolve(&r2)?;
        oldb = beta;
        let got = read(&[&alfa_a, &vdot(&r2, &y)?])?;
        let alfa = got[0].re;
        let beta2 = got[1].re;
        if beta2 < 0.0 {
            return Err(Error::invalid(op, "non-symmetric matrix"));
        }
        beta = beta2.sqrt();
        tnorm2 += alfa * alfa + oldb * oldb + beta * beta;
        if itn == 1 && beta / beta1 <= 10.0 * eps {
            istop = -1;
        }
        let oldeps = epsln;
        let delta = cs * dbar + sn * alfa;
        let gbar = sn * dbar - cs * alfa;
        epsln = sn * beta;
        dbar = -cs * beta;
        let root = gbar.hypot(dbar);
        let gamma = gbar.hypot(beta).max(eps);
        cs = gbar / gamma;
        sn = beta / gamma;
        let phi = cs * phibar;
        phibar *= sn;
        let denom = 1.0 / gamma;
        let w1 = w2;
        w2 = w;
        w = (&(&v - &w1.multiply(c(oldeps))?)? - &w2.multiply(c(delta))?)?.multiply(c(denom))?;
        x = axpy(&x, c(phi), &w)?;
        s.call(&x);
        gmax = gmax.max(gamma);
        gmin = gmin.min(gamma);
        let z = rhs1 / gamma;
        rhs1 = rhs2 - delta * z;
        rhs2 = -epsln * z;
        let anorm = tnorm2.sqrt();
        let ynorm = nrm(&x)?;
        let epsx = anorm * ynorm * eps;
        let rnorm = phibar;
        let test1 = if ynorm == 0.0 || anorm == 0.0 {
            f64::INFINITY
        } else {
            rnorm / (anorm * ynorm)
        };
        let test2 = if anorm == 0.0 {
            f64::INFINITY
        } else {
            root / anorm
        };
        let acond = gmax / gmin;
        if istop == 0 {
            if 1.0 + test2 <= 1.0 {
                istop = 2;
            }
            if 1.0 + test1 <= 1.0 {
                istop = 1;
            }
            if itn >= maxiter {
                istop = 6;
            }
            if acond >= 0.1 / eps {
                istop = 4;
            }
            if epsx >= beta1 {
                istop = 3;
            }
            if test2 <= rtol {
                istop = 2;
            }
            if test1 <= rtol {
                istop = 1;
            }
        }
        if istop != 0 {
            break;
        }
    }
    Ok((
        x,
        if istop == 6 || istop == 0 {
            maxiter as i64
        } else {
            0
        },
    ))
}

/// SciPy's `cgs(A, b, x0, rtol, atol, maxiter, M)`: conjugate gradient squared for general
/// `A`. Info: 0 converged, the iterations run when not, -10 (`rho` breakdown) or -11 (a zero
/// `rtilde . A p`). Two reads per iteration (the residual norm with `rho`, then `rv`).
///
/// # Errors
/// As [`cg`].
pub fn cgs(a: impl Into<LinearOperator>, b: &Array, opts: Solve) -> Result<(Array, i64)> {
    let s = make_system("cgs", a.into(), b, &opts)?;
    let bnrm2 = nrm(&s.b)?;
    if bnrm2 == 0.0 {
        return Ok((s.b.clone(), 0));
    }
    let atol = opts.atol.max(opts.rtol * bnrm2);
    let maxiter = opts.maxiter.unwrap_or(s.n * 10);
    let rhotol = s.eps() * s.eps();
    let mut x = s.x.clone();
    let mut r = s.r0()?;
    let rtilde = r.clone();
    let mut rho_prev = C64::new(0.0, 0.0);
    let (mut p, mut u, mut q) = (r.clone(), r.clone(), r.clone());
    for it in 0..maxiter {
        let rn = vnorm(&r)?;
        let rho_a = vdot(&rtilde, &r)?;
        let v2 = read(&[&rn, &rho_a])?;
        if v2[0].re < atol {
            return Ok((x, 0));
        }
        let rho = v2[1];
        if rho.norm() < rhotol {
            return Ok((x, -10));
        }
        if it > 0 {
            let beta = s.s(rho / rho_prev);
            u = axpy(&r, beta, &q)?;
            p = (&(&p.multiply(beta)? + &q)?.multiply(beta)? + &u)?;
        }
        // (First spin: p and u start as r, the initial residual.)
        let phat = s.psolve(&p)?;
        let vhat = s.av(&phat)?;
        let rv = read(&[&vdot(&rtilde, &vhat)?])?[0];
        if rv == C64::new(0.0, 0.0) {
            return Ok((x, -11));
        }
        let alpha = s.s(rho / rv);
        q = (&u - &vhat.multiply(alpha)?)?;
        let uhat = s.psolve(&(&u + &q)?)?;
        x = axpy(&x, alpha, &uhat)?;
        r = s.residual(&x)?;
        rho_prev = rho;
        s.call(&x);
    }
    Ok((x, maxiter as i64))
}
