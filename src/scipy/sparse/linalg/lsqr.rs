//! SciPy's least-squares solvers [`lsqr`] (Paige & Saunders 1982) and [`lsmr`] (Fong &
//! Saunders 2011), transcribed from SciPy 1.17's `_isolve/lsqr.py` and `_isolve/lsmr.py`: the
//! vectors stay on the device, the scalar recurrences (Givens rotations, norm and condition
//! estimates, the stopping tests) run on the host from two or three small reads per iteration.

use super::super::shapes_error;
use super::iterative::{cast, nrm, read};
use super::LinearOperator;
use crate::array::Array;
use crate::linalg::norms::norm as vnorm;
use cupy_core::dtype::DType;
use cupy_core::error::Result;

/// The keywords of [`lsqr`] (SciPy's `damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8,
/// iter_lim=None, calc_var=False, x0=None`).
#[derive(Clone, Debug)]
pub struct Lsqr {
    /// The damping `d` of `min ||Ax - b||^2 + d^2 ||x - x0||^2` (default 0).
    pub damp: f64,
    /// Stopping tolerance on `||A^H r|| / (||A|| ||r||)` and the relative error of `A`.
    pub atol: f64,
    /// Stopping tolerance on `||r|| / ||b||` (the relative error of `b`).
    pub btol: f64,
    /// Stop when the estimate of `cond(Abar)` exceeds this (0: no limit).
    pub conlim: f64,
    /// The most iterations (`None`: SciPy's `2 n`).
    pub iter_lim: Option<usize>,
    /// Estimate the diagonal of `(A^H A + d^2 I)^-1` into [`LsqrResult::var`].
    pub calc_var: bool,
    /// The starting guess (`None`: zeros).
    pub x0: Option<Array>,
}

impl Default for Lsqr {
    fn default() -> Lsqr {
        Lsqr {
            damp: 0.0,
            atol: 1e-6,
            btol: 1e-6,
            conlim: 1e8,
            iter_lim: None,
            calc_var: false,
            x0: None,
        }
    }
}

/// What [`lsqr`] returns: SciPy's tuple `(x, istop, itn, r1norm, r2norm, anorm, acond,
/// arnorm, xnorm, var)` as named fields.
#[derive(Clone, Debug)]
pub struct LsqrResult {
    /// The solution.
    pub x: Array,
    /// Why it stopped: 0 `x = 0` is exact, 1 `Ax - b` small given `atol, btol`, 2 the
    /// least-squares solution is good given `atol`, 3 `cond(Abar)` exceeded `conlim`, 4-6 as
    /// 1-3 at machine precision, 7 the iteration limit.
    pub istop: i64,
    /// The iterations run.
    pub itn: usize,
    /// `||b - Ax||`.
    pub r1norm: f64,
    /// `sqrt(||b - Ax||^2 + damp^2 ||x - x0||^2)`.
    pub r2norm: f64,
    /// The Frobenius norm estimate of `Abar = [A; damp I]`.
    pub anorm: f64,
    /// The condition number estimate of `Abar`.
    pub acond: f64,
    /// `||A^H (b - Ax) - damp^2 (x - x0)||`.
    pub arnorm: f64,
    /// `||x||`.
    pub xnorm: f64,
    /// With `calc_var`, the estimate of `diag((A^H A + damp^2 I)^-1)` (zeros otherwise;
    /// `|dk|^2` is summed for complex systems).
    pub var: Array,
}

/// The keywords of [`lsmr`] (SciPy's `damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8,
/// maxiter=None, x0=None`).
#[derive(Clone, Debug)]
pub struct Lsmr {
    /// The damping of `min ||Ax - b||^2 + damp^2 ||x||^2` (default 0).
    pub damp: f64,
    /// Stopping tolerance on `||A^H r|| / (||A|| ||r||)`.
    pub atol: f64,
    /// Stopping tolerance on `||r|| / ||b||`.
    pub btol: f64,
    /// Stop when the estimate of `cond(Abar)` exceeds this (0: no limit).
    pub conlim: f64,
    /// The most iterations (`None`: SciPy's `min(m, n)`).
    pub maxiter: Option<usize>,
    /// The starting guess (`None`: zeros).
    pub x0: Option<Array>,
}

impl Default for Lsmr {
    fn default() -> Lsmr {
        Lsmr {
            damp: 0.0,
            atol: 1e-6,
            btol: 1e-6,
            conlim: 1e8,
            maxiter: None,
            x0: None,
        }
    }
}

/// What [`lsmr`] returns: SciPy's tuple `(x, istop, itn, normr, normar, norma, conda, normx)`.
#[derive(Clone, Debug)]
pub struct LsmrResult {
    /// The solution.
    pub x: Array,
    /// Why it stopped (the codes of [`LsqrResult::istop`]).
    pub istop: i64,
    /// The iterations run.
    pub itn: usize,
    /// `||b - Ax||`.
    pub normr: f64,
    /// `||A^H (b - Ax)||`.
    pub normar: f64,
    /// The Frobenius norm estimate of `Abar`.
    pub norma: f64,
    /// The condition number estimate of `Abar`.
    pub conda: f64,
    /// `||x||`.
    pub normx: f64,
}

/// SciPy's `_sym_ortho`: a stable Givens rotation `(c, s, r)` with `[c s; -s c] [a; b] = [r; 0]`.
fn sym_ortho(a: f64, b: f64) -> (f64, f64, f64) {
    let sign = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    if b == 0.0 {
        (sign(a), 0.0, a.abs())
    } else if a == 0.0 {
        (0.0, sign(b), b.abs())
    } else if b.abs() > a.abs() {
        let tau = a / b;
        let s = sign(b) / (1.0 + tau * tau).sqrt();
        let c = s * tau;
        (c, s, b / s)
    } else {
        let tau = b / a;
        let c = sign(a) / (1.0 + tau * tau).sqrt();
        let s = c * tau;
        (c, s, a / c)
    }
}

/// The checks and the work dtype of both solvers (`result_type(A, b, float)`): `b` as a 1-d
/// vector of that dtype, and `x0` when given.
fn setup(
    op: &str,
    a: &LinearOperator,
    b: &Array,
    x0: Option<&Array>,
) -> Result<(Array, DType, Option<Array>)> {
    let (m, n) = a.shape();
    let b1 = if b.ndim() == 2 && b.shape()[1] == 1 {
        b.reshape(&[-1])?
    } else {
        b.clone()
    };
    if b1.ndim() != 1 || b1.shape()[0] != m {
        return Err(shapes_error(
            op,
            ("A", &[m, n]),
            ("b", b.shape()),
            format!("b must have {m} elements (shape ({m},) or ({m}, 1))"),
        ));
    }
    let mut t = cupy_core::promote::promote_types(a.dtype(), b1.dtype());
    if let Some(x0) = x0 {
        t = cupy_core::promote::promote_types(t, x0.dtype());
    }
    let t = if t.is_complex() {
        DType::Complex128
    } else {
        DType::Float64
    };
    let x0 = match x0 {
        Some(x0) => {
            if x0.size() != n {
                return Err(shapes_error(
                    op,
                    ("A", &[m, n]),
                    ("x0", x0.shape()),
                    format!("x0 must have {n} elements"),
                ));
            }
            Some(cast(&x0.reshape(&[-1])?, t)?.copy()?)
        }
        None => None,
    };
    Ok((cast(&b1, t)?, t, x0))
}

/// SciPy's `lsqr(A, b, damp, atol, btol, conlim, iter_lim, calc_var, x0)`: the least-squares
/// solution of `Ax = b` (any shape, any rank; damped with `damp`) by Paige & Saunders' LSQR.
/// `A` needs `rmatvec` (`A^H x`; sparse matrices and dense arrays have it). The work dtype is
/// float64 or complex128 (SciPy's `result_type(A, b, float)`). Two small reads per iteration.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a `b` or `x0` of another length (both shapes named); what the
/// operator returns (an operator without `rmatvec` is refused at the first iteration).
pub fn lsqr(a: impl Into<LinearOperator>, b: &Array, o: Lsqr) -> Result<LsqrResult> {
    let a = a.into();
    let (b, t, x0) = setup("lsqr", &a, b, o.x0.as_ref())?;
    let n = a.shape().1;
    let dev = b.device().clone();
    let av = |v: &Array| cast(&a.matvec(v)?, t);
    let atv = |u: &Array| cast(&a.rmatvec(u)?, t);
    let iter_lim = o.iter_lim.unwrap_or(2 * n);
    let eps = f64::EPSILON;
    let damp = o.damp;
    let mut var = Array::zeros_on(&dev, &[n], DType::Float64)?;
    let ctol = if o.conlim > 0.0 { 1.0 / o.conlim } else { 0.0 };
    let (mut anorm, mut acond, dampsq) = (0.0f64, 0.0f64, damp * damp);
    let (mut ddnorm, mut res2, mut xnorm, mut xxnorm, mut z) = (0.0f64, 0.0, 0.0, 0.0, 0.0);
    let (mut cs2, mut sn2) = (-1.0f64, 0.0f64);
    let bnorm = nrm(&b)?;
    let (mut x, mut u, mut beta) = match x0 {
        None => (Array::zeros_on(&dev, &[n], t)?, b.clone(), bnorm),
        Some(x0) => {
            let u = (&b - &av(&x0)?)?;
            let beta = nrm(&u)?;
            (x0, u, beta)
        }
    };
    let (mut v, mut alfa) = if beta > 0.0 {
        u = (&u * (1.0 / beta))?;
        let v = atv(&u)?;
        let alfa = nrm(&v)?;
        (v, alfa)
    } else {
        (x.copy()?, 0.0)
    };
    if alfa > 0.0 {
        v = (&v * (1.0 / alfa))?;
    }
    let mut w = v.clone();
    let (mut rhobar, mut phibar) = (alfa, beta);
    let (mut r1norm, mut r2norm) = (beta, beta);
    let mut arnorm = alfa * beta;
    let (mut itn, mut istop) = (0usize, 0i64);
    let done = |x: Array, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var| {
        Ok(LsqrResult {
            x,
            istop,
            itn,
            r1norm,
            r2norm,
            anorm,
            acond,
            arnorm,
            xnorm,
            var,
        })
    };
    if arnorm == 0.0 {
        return done(
            x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var,
        );
    }
    while itn < iter_lim {
        itn += 1;
        u = (&av(&v)? - &(&u * alfa)?)?;
        let got = read(&[&vnorm(&u)?, &vnorm(&w)?])?;
        beta = got[0].re;
        let wnorm = got[1].re;
        if beta > 0.0 {
            u = (&u * (1.0 / beta))?;
            anorm = (anorm * anorm + alfa * alfa + beta * beta + dampsq).sqrt();
            v = (&atv(&u)? - &(&v * beta)?)?;
            let got = read(&[&vnorm(&v)?])?;
            alfa = got[0].re;
            if alfa > 0.0 {
                v = (&v * (1.0 / alfa))?;
            }
        }
        let (rhobar1, psi) = if damp > 0.0 {
            let rhobar1 = rhobar.hypot(damp);
            let (cs1, sn1) = (rhobar / rhobar1, damp / rhobar1);
            let psi = sn1 * phibar;
            phibar *= cs1;
            (rhobar1, psi)
        } else {
            (rhobar, 0.0)
        };
        let (cs, sn, rho) = sym_ortho(rhobar1, beta);
        let theta = sn * alfa;
        rhobar = -cs * alfa;
        let phi = cs * phibar;
        phibar *= sn;
        let tau = sn * phi;
        let (t1, t2) = (phi / rho, -theta / rho);
        if o.calc_var {
            let dk2 = crate::math::misc::absolute(&w)?;
            var = (&var + &(&(&dk2 * &dk2)? * (1.0 / (rho * rho)))?)?;
        }
        x = (&x + &(&w * t1)?)?;
        w = (&v + &(&w * t2)?)?;
        ddnorm += (wnorm / rho).powi(2);
        let delta = sn2 * rho;
        let gambar = -cs2 * rho;
        let rhs = phi - delta * z;
        let zbar = rhs / gambar;
        xnorm = (xxnorm + zbar * zbar).sqrt();
        let gamma = gambar.hypot(theta);
        cs2 = gambar / gamma;
        sn2 = theta / gamma;
        z = rhs / gamma;
        xxnorm += z * z;
        acond = anorm * ddnorm.sqrt();
        let res1 = phibar * phibar;
        res2 += psi * psi;
        let rnorm = (res1 + res2).sqrt();
        arnorm = alfa * tau.abs();
        if damp > 0.0 {
            let r1sq = rnorm * rnorm - dampsq * xxnorm;
            r1norm = r1sq.abs().sqrt();
            if r1sq < 0.0 {
                r1norm = -r1norm;
            }
        } else {
            r1norm = rnorm;
        }
        r2norm = rnorm;
        let test1 = rnorm / bnorm;
        let test2 = arnorm / (anorm * rnorm + eps);
        let test3 = 1.0 / (acond + eps);
        let t1 = test1 / (1.0 + anorm * xnorm / bnorm);
        let rtol = o.btol + o.atol * anorm * xnorm / bnorm;
        if itn >= iter_lim {
            istop = 7;
        }
        if 1.0 + test3 <= 1.0 {
            istop = 6;
        }
        if 1.0 + test2 <= 1.0 {
            istop = 5;
        }
        if 1.0 + t1 <= 1.0 {
            istop = 4;
        }
        if test3 <= ctol {
            istop = 3;
        }
        if test2 <= o.atol {
            istop = 2;
        }
        if test1 <= rtol {
            istop = 1;
        }
        if istop != 0 {
            break;
        }
    }
    done(
        x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var,
    )
}
routine!(lsqr as "cupyx.scipy.sparse.linalg.lsqr", Sparse, probe: super::super::probe, notes: "SciPy 1.17's LSQR; vectors on the device, two reads per iteration");

/// SciPy's `lsmr(A, b, damp, atol, btol, conlim, maxiter, x0)`: Fong & Saunders' LSMR for
/// `min ||Ax - b||^2 + damp^2 ||x||^2` (`A` of any shape; needs `rmatvec`). The work dtype is
/// float64 or complex128 (SciPy's `result_type(A, b, float)`). Three small reads per iteration.
///
/// # Errors
/// As [`lsqr`].
pub fn lsmr(a: impl Into<LinearOperator>, b: &Array, o: Lsmr) -> Result<LsmrResult> {
    let a = a.into();
    let (b, t, x0) = setup("lsmr", &a, b, o.x0.as_ref())?;
    let (m, n) = a.shape();
    let dev = b.device().clone();
    let av = |v: &Array| cast(&a.matvec(v)?, t);
    let atv = |u: &Array| cast(&a.rmatvec(u)?, t);
    let maxiter = o.maxiter.unwrap_or(m.min(n));
    let damp = o.damp;
    let normb = nrm(&b)?;
    let (mut x, mut u, mut beta) = match x0 {
        None => (Array::zeros_on(&dev, &[n], t)?, b.clone(), normb),
        Some(x0) => {
            let u = (&b - &av(&x0)?)?;
            let beta = nrm(&u)?;
            (x0, u, beta)
        }
    };
    let (mut v, mut alpha) = if beta > 0.0 {
        u = (&u * (1.0 / beta))?;
        let v = atv(&u)?;
        let alpha = nrm(&v)?;
        (v, alpha)
    } else {
        (Array::zeros_on(&dev, &[n], t)?, 0.0)
    };
    if alpha > 0.0 {
        v = (&v * (1.0 / alpha))?;
    }
    let mut itn = 0usize;
    let mut zetabar = alpha * beta;
    let mut alphabar = alpha;
    let (mut rho, mut rhobar, mut cbar, mut sbar) = (1.0f64, 1.0f64, 1.0f64, 0.0f64);
    let mut h = v.clone();
    let mut hbar = Array::zeros_on(&dev, &[n], t)?;
    let (mut betadd, mut betad, mut rhodold) = (beta, 0.0f64, 1.0f64);
    let (mut tautildeold, mut thetatilde, mut zeta, mut d) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut norma2 = alpha * alpha;
    let (mut maxrbar, mut minrbar) = (0.0f64, 1e100f64);
    let mut norma = norma2.sqrt();
    let mut conda = 1.0f64;
    let mut normx = 0.0f64;
    let mut istop = 0i64;
    let ctol = if o.conlim > 0.0 { 1.0 / o.conlim } else { 0.0 };
    let mut normr = beta;
    let mut normar = alpha * beta;
    let result = |x, istop, itn, normr, normar, norma, conda, normx| {
        Ok(LsmrResult {
            x,
            istop,
            itn,
            normr,
            normar,
            norma,
            conda,
            normx,
        })
    };
    if normar == 0.0 {
        return result(x, istop, itn, normr, normar, norma, conda, normx);
    }
    if normb == 0.0 {
        let z = Array::zeros_on(&dev, &[n], t)?;
        return result(z, istop, itn, normr, normar, norma, conda, normx);
    }
    while itn < maxiter {
        itn += 1;
        u = (&av(&v)? - &(&u * alpha)?)?;
        beta = read(&[&vnorm(&u)?])?[0].re;
        if beta > 0.0 {
            u = (&u * (1.0 / beta))?;
            v = (&atv(&u)? - &(&v * beta)?)?;
            alpha = read(&[&vnorm(&v)?])?[0].re;
            if alpha > 0.0 {
                v = (&v * (1.0 / alpha))?;
            }
        }
        let (chat, shat, alphahat) = sym_ortho(alphabar, damp);
        let rhoold = rho;
        let (c, s, rho_new) = sym_ortho(alphahat, beta);
        rho = rho_new;
        let thetanew = s * alpha;
        alphabar = c * alpha;
        let rhobarold = rhobar;
        let zetaold = zeta;
        let thetabar = sbar * rho;
        let rhotemp = cbar * rho;
        let (cb, sb, rb) = sym_ortho(cbar * rho, thetanew);
        (cbar, sbar, rhobar) = (cb, sb, rb);
        zeta = cbar * zetabar;
        zetabar *= -sbar;
        hbar = (&h + &(&hbar * (-(thetabar * rho / (rhoold * rhobarold))))?)?;
        x = (&x + &(&hbar * (zeta / (rho * rhobar)))?)?;
        h = (&v + &(&h * (-(thetanew / rho)))?)?;
        let betaacute = chat * betadd;
        let betacheck = -shat * betadd;
        let betahat = c * betaacute;
        betadd = -s * betaacute;
        let thetatildeold = thetatilde;
        let (ctildeold, stildeold, rhotildeold) = sym_ortho(rhodold, thetabar);
        thetatilde = stildeold * rhobar;
        rhodold = ctildeold * rhobar;
        betad = -stildeold * betad + ctildeold * betahat;
        tautildeold = (zetaold - thetatildeold * tautildeold) / rhotildeold;
        let taud = (zeta - thetatilde * tautildeold) / rhodold;
        d += betacheck * betacheck;
        normr = (d + (betad - taud).powi(2) + betadd * betadd).sqrt();
        norma2 += beta * beta;
        norma = norma2.sqrt();
        norma2 += alpha * alpha;
        maxrbar = maxrbar.max(rhobarold);
        if itn > 1 {
            minrbar = minrbar.min(rhobarold);
        }
        conda = maxrbar.max(rhotemp) / minrbar.min(rhotemp);
        normar = zetabar.abs();
        normx = nrm(&x)?;
        let test1 = normr / normb;
        let test2 = if norma * normr != 0.0 {
            normar / (norma * normr)
        } else {
            f64::INFINITY
        };
        let test3 = 1.0 / conda;
        let t1 = test1 / (1.0 + norma * normx / normb);
        let rtol = o.btol + o.atol * norma * normx / normb;
        if itn >= maxiter {
            istop = 7;
        }
        if 1.0 + test3 <= 1.0 {
            istop = 6;
        }
        if 1.0 + test2 <= 1.0 {
            istop = 5;
        }
        if 1.0 + t1 <= 1.0 {
            istop = 4;
        }
        if test3 <= ctol {
            istop = 3;
        }
        if test2 <= o.atol {
            istop = 2;
        }
        if test1 <= rtol {
            istop = 1;
        }
        if istop > 0 {
            break;
        }
    }
    result(x, istop, itn, normr, normar, norma, conda, normx)
}
routine!(lsmr as "cupyx.scipy.sparse.linalg.lsmr", Sparse, probe: super::super::probe, notes: "SciPy 1.17's LSMR; vectors on the device, three reads per iteration");
