//! SciPy's [`onenormest`] (Higham & Tisseur 2000, block 1-norm estimation, `_onenormest.py`)
//! and [`expm_multiply`] (Al-Mohy & Higham 2011, the action of the matrix exponential,
//! `_expm_multiply.py`'s `_expm_multiply_simple`; its time grid by steps of `exp(hA)`), transcribed from SciPy 1.17 with the
//! vectors on the device. The estimator's decisions (which columns to keep, which unit vectors
//! to try next) are made on the host from small reads, and one read of the `n`-vector `h` per
//! iteration (at most `itmax` of them).

use super::super::{not_square, shapes_error};
use super::iterative::{cast, read};
use super::{norm, LinearOperator, SparseNorm};
use crate::array::Array;
use crate::scipy::sparse::base::SparseMatrix;
use crate::scipy::sparse::{eye_with, CsrMatrix, Format, SpEye};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use num_complex::Complex;

type C64 = Complex<f64>;

/// The keywords of [`onenormest_with`] (SciPy's `t=2, itmax=5`).
#[derive(Clone, Copy, Debug)]
pub struct OneNormEst {
    /// The number of columns of the block (more: more accurate and more expensive).
    pub t: usize,
    /// The most iterations (at least 2).
    pub itmax: usize,
}

impl Default for OneNormEst {
    fn default() -> OneNormEst {
        OneNormEst { t: 2, itmax: 5 }
    }
}

/// What [`onenormest_with`] returns (SciPy's `compute_v=True, compute_w=True`).
#[derive(Clone, Debug)]
pub struct OneNormEstimate {
    /// The estimate of `||A||_1`, a lower bound of it (equal to it when `t >= n`).
    pub est: f64,
    /// A unit vector (`||v||_1 = 1`) with `||A v||_1 = est`.
    pub v: Array,
    /// `A v`.
    pub w: Array,
}

/// SciPy's `onenormest(A)`: a lower bound of the 1-norm `||A||_1` of a square operator, from
/// `t = 2` columns and at most 5 iterations, without forming `A` (its `matvec` and `rmatvec`
/// only). Usually within a factor 3 of the norm, often exact; exact when `t >= n` (then `A` is
/// applied to the `n` unit vectors). The random `+-1` vectors come from a generator with a
/// fixed seed, so the estimate is reproducible (SciPy draws from NumPy's global state).
///
/// # Errors
/// As [`onenormest_with`].
pub fn onenormest(a: impl Into<LinearOperator>) -> Result<f64> {
    Ok(onenormest_with(a, OneNormEst::default())?.est)
}
routine!(onenormest as "cupyx.scipy.sparse.linalg.onenormest", Sparse, probe: super::super::probe, notes: "Higham & Tisseur block estimator (t=2), matvec/rmatvec only; fixed-seed random columns");

/// SciPy's `onenormest(A, t, itmax, compute_v=True, compute_w=True)`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square operator (its shape named), `t = 0` or
/// `itmax < 2`; what the operator returns (it needs `rmatvec` when `t < n`).
pub fn onenormest_with(a: impl Into<LinearOperator>, o: OneNormEst) -> Result<OneNormEstimate> {
    let op = "onenormest";
    let a = a.into();
    let (m, n) = a.shape();
    if m != n {
        return Err(not_square(op, "A", (m, n)));
    }
    if o.itmax < 2 {
        return Err(Error::invalid(op, "at least two iterations are required"));
    }
    if o.t < 1 {
        return Err(Error::invalid(op, "at least one column is required"));
    }
    let t = if a.dtype().is_complex() {
        DType::Complex128
    } else {
        DType::Float64
    };
    let dev = a.work_device()?;
    let unit = |i: usize| -> Result<Array> {
        let mut e = vec![0.0f64; n];
        if n > 0 {
            e[i] = 1.0;
        }
        cast(&Array::from_slice_on(&dev, &e, &[n])?, t)
    };
    let av = |x: &Array| cast(&a.matvec(x)?, t);
    let l1 = |y: &Array| crate::math::misc::absolute(y)?.sum();
    if n == 0 {
        let z = Array::zeros_on(&dev, &[0], t)?;
        return Ok(OneNormEstimate {
            est: 0.0,
            v: z.clone(),
            w: z,
        });
    }
    if o.t >= n {
        // Exact: A applied to every unit vector.
        let cols: Vec<Array> = (0..n).map(|j| av(&unit(j)?)).collect::<Result<_>>()?;
        let sums: Vec<Array> = cols.iter().map(l1).collect::<Result<_>>()?;
        let s = read(&sums.iter().collect::<Vec<_>>())?;
        let j = argmax(&s.iter().map(|z| z.re).collect::<Vec<_>>());
        return Ok(OneNormEstimate {
            est: s[j].re,
            v: unit(j)?,
            w: cols[j].clone(),
        });
    }
    let nt = o.t;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // X: column 0 all ones, the others random signs, none parallel to an earlier one.
    let mut xh: Vec<Vec<f64>> = vec![vec![1.0; n]];
    for i in 1..nt {
        let mut c = rng.signs(n);
        while xh[..i].iter().any(|p| parallel(p, &c)) {
            c = rng.signs(n);
        }
        xh.push(c);
    }
    let mut x: Vec<Array> = xh
        .iter()
        .map(|c| {
            let v: Vec<f64> = c.iter().map(|v| v / n as f64).collect();
            cast(&Array::from_slice_on(&dev, &v, &[n])?, t)
        })
        .collect::<Result<_>>()?;
    let mut ind_hist: Vec<usize> = vec![];
    let mut est_old = 0.0f64;
    let mut s_cols: Vec<Array> = vec![Array::zeros_on(&dev, &[n], t)?; nt];
    let mut k = 1;
    let mut ind: Vec<usize> = (0..nt).collect();
    let mut ind_best = 0usize;
    let mut w: Option<Array> = None;
    let mut est;
    loop {
        let y: Vec<Array> = x.iter().map(&av).collect::<Result<_>>()?;
        let mags: Vec<f64> = read(
            &y.iter()
                .map(l1)
                .collect::<Result<Vec<_>>>()?
                .iter()
                .collect::<Vec<_>>(),
        )?
        .iter()
        .map(|z| z.re)
        .collect();
        let best_j = argmax(&mags);
        est = mags[best_j];
        if est > est_old || k == 2 {
            if k >= 2 {
                ind_best = ind[best_j];
            }
            w = Some(y[best_j].clone());
        }
        if k >= 2 && est <= est_old {
            est = est_old;
            break;
        }
        est_old = est;
        let s_old = std::mem::take(&mut s_cols);
        if k > o.itmax {
            break;
        }
        s_cols = y.iter().map(sign_round_up).collect::<Result<_>>()?;
        // dots[i][j] = S_i . S_old_j; every column parallel to an old one: converged.
        let old_dots = dots(&s_cols, &s_old)?;
        let nf = n as f64;
        if old_dots.iter().all(|r| r.iter().any(|d| is_n(*d, nf))) {
            break;
        }
        if nt > 1 {
            for i in 0..nt {
                loop {
                    let mut need = dots(&s_cols[i..=i], &s_cols[..i])?[0]
                        .iter()
                        .any(|d| is_n(*d, nf));
                    need |= dots(&s_cols[i..=i], &s_old)?[0]
                        .iter()
                        .any(|d| is_n(*d, nf));
                    if !need {
                        break;
                    }
                    s_cols[i] = cast(&Array::from_slice_on(&dev, &rng.signs(n), &[n])?, t)?;
                }
            }
        }
        let z: Vec<Array> = s_cols
            .iter()
            .map(|s| cast(&a.rmatvec(s)?, t))
            .collect::<Result<_>>()?;
        let mut h = crate::math::misc::absolute(&z[0])?;
        for zj in &z[1..] {
            h = crate::math::misc::maximum(&h, &crate::math::misc::absolute(zj)?)?;
        }
        let h = h.astype(DType::Float64)?.to_vec::<f64>()?;
        let hmax = h.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if k >= 2 && hmax == h[ind_best] {
            break;
        }
        // Descending order of h (stable among equal values).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&p, &q| h[q].total_cmp(&h[p]));
        order.truncate(nt + ind_hist.len());
        ind = order;
        if nt > 1 {
            if ind[..nt].iter().all(|i| ind_hist.contains(i)) {
                break;
            }
            let (fresh, seen): (Vec<usize>, Vec<usize>) =
                ind.iter().partition(|i| !ind_hist.contains(i));
            ind = fresh.into_iter().chain(seen).collect();
        }
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = unit(ind[j])?;
        }
        let new: Vec<usize> = ind[..nt]
            .iter()
            .filter(|i| !ind_hist.contains(i))
            .cloned()
            .collect();
        ind_hist.extend(new);
        k += 1;
    }
    Ok(OneNormEstimate {
        est,
        v: unit(ind_best)?,
        w: match w {
            Some(w) => w,
            None => av(&unit(ind_best)?)?,
        },
    })
}

/// A 64-bit xorshift generator for the estimator's random sign vectors.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn signs(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| if self.next() >> 63 == 0 { -1.0 } else { 1.0 })
            .collect()
    }
}

fn parallel(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() == a.len() as f64
}

fn is_n(d: C64, n: f64) -> bool {
    d.re == n && d.im == 0.0
}

fn argmax(v: &[f64]) -> usize {
    let mut j = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[j] {
            j = i;
        }
    }
    j
}

/// SciPy's `sign_round_up`: `y / |y|`, with 1 where `y` is 0.
fn sign_round_up(y: &Array) -> Result<Array> {
    let q = (y / &crate::math::misc::absolute(y)?)?;
    crate::math::routines::where_(&y.equal(0.0)?, 1.0, &q)
}

/// `a_i . b_j` (no conjugate, as SciPy's `np.dot`) for every pair, one read.
fn dots(a: &[Array], b: &[Array]) -> Result<Vec<Vec<C64>>> {
    if a.is_empty() || b.is_empty() {
        return Ok(vec![vec![]; a.len()]);
    }
    let d: Vec<Array> = a
        .iter()
        .flat_map(|x| b.iter().map(move |y| (x * y)?.sum()))
        .collect::<Result<_>>()?;
    let v = read(&d.iter().collect::<Vec<_>>())?;
    Ok(v.chunks(b.len()).map(|c| c.to_vec()).collect())
}

/// `theta_m` of Al-Mohy & Higham's Table 3.1 (double precision), SciPy's `_theta`.
const THETA: [(usize, f64); 35] = [
    (1, 2.29e-16),
    (2, 2.58e-8),
    (3, 1.39e-5),
    (4, 3.40e-4),
    (5, 2.40e-3),
    (6, 9.07e-3),
    (7, 2.38e-2),
    (8, 5.00e-2),
    (9, 8.96e-2),
    (10, 1.44e-1),
    (11, 2.14e-1),
    (12, 3.00e-1),
    (13, 4.00e-1),
    (14, 5.14e-1),
    (15, 6.41e-1),
    (16, 7.81e-1),
    (17, 9.31e-1),
    (18, 1.09),
    (19, 1.26),
    (20, 1.44),
    (21, 1.62),
    (22, 1.82),
    (23, 2.01),
    (24, 2.22),
    (25, 2.43),
    (26, 2.64),
    (27, 2.86),
    (28, 3.08),
    (29, 3.31),
    (30, 3.54),
    (35, 4.7),
    (40, 6.0),
    (45, 7.2),
    (50, 8.5),
    (55, 9.9),
];

fn theta(m: usize) -> Option<f64> {
    THETA.iter().find(|(k, _)| *k == m).map(|(_, v)| *v)
}

/// SciPy's `_compute_p_max`: the largest `p` with `p (p - 1) <= m_max + 1`.
fn p_max(m_max: usize) -> usize {
    let r = (m_max as f64).sqrt();
    let (lo, hi) = (r.floor() as usize, (r + 1.0).ceil() as usize);
    (lo..=hi)
        .filter(|p| p * (p - 1) <= m_max + 1)
        .max()
        .unwrap_or(1)
}

/// Al-Mohy & Higham's code fragment (3.1): `(m*, s)`, the Taylor degree and the number of
/// scaling steps. `d(p)` is `||A^p||_1^(1/p)` (estimated, cached by the caller).
fn fragment_3_1(
    a1: f64,
    n0: usize,
    m_max: usize,
    ell: usize,
    d: &mut dyn FnMut(usize) -> Result<f64>,
) -> Result<(usize, usize)> {
    let pm = p_max(m_max);
    let cond_3_13 =
        a1 <= (2 * ell * pm * (pm + 3)) as f64 * (theta(m_max).unwrap() / (n0 * m_max) as f64);
    let mut best: Option<(usize, usize)> = None;
    let mut consider = |m: usize, s: usize| {
        if best.is_none_or(|(bm, bs)| m * s < bm * bs) {
            best = Some((m, s));
        }
    };
    if cond_3_13 {
        for (m, th) in THETA {
            consider(m, (a1 / th).ceil() as usize);
        }
        let (m, s) = best.unwrap();
        return Ok((m, s));
    }
    for p in 2..=pm {
        for m in (p * (p - 1) - 1)..=m_max {
            if let Some(th) = theta(m) {
                let alpha = d(p)?.max(d(p + 1)?);
                consider(m, (alpha / th).ceil() as usize);
            }
        }
    }
    let (m, s) = best.unwrap();
    Ok((m, s.max(1)))
}

/// The infinity norm SciPy's `_exact_inf_norm` takes of a dense `B`: `max |b|` of a vector,
/// the largest absolute row sum of a matrix (a 0-d device array).
fn inf_norm(b: &Array) -> Result<Array> {
    let a = crate::math::misc::absolute(b)?;
    if b.ndim() == 1 {
        a.max()
    } else {
        a.sum_axis(1)?.max()
    }
}

/// SciPy's `expm_multiply(A, B)`: `exp(A) @ B` for a square sparse `A` and a vector or matrix
/// `B`, without forming `exp(A)` (Al-Mohy & Higham 2011, Algorithm 3.2: `A` is shifted by
/// `trace(A)/n`, the Taylor degree `m*` and the scaling `s` come from `||A||_1` and
/// [`onenormest`] estimates of `||A^p||_1`, then `s` steps of a truncated Taylor series, each
/// stopping early once the terms are below double precision). The result has the dtype
/// `promote(A, B)` (float64 for integers). One small read per Taylor term. The time grid
/// (`start, stop, num, endpoint`) is [`expm_multiply_with`].
///
/// # Errors
/// [`Error::InvalidArgument`] for a non-square `A`, a `B` whose first axis is not `A`'s order
/// (both shapes named) or a `B` of more than 2 dimensions.
pub fn expm_multiply(a: &dyn SparseMatrix, b: &Array) -> Result<Array> {
    expm_multiply_with(a, b, ExpmMultiply::default())
}
routine!(expm_multiply as "cupyx.scipy.sparse.linalg.expm_multiply", Sparse, probe: super::super::probe, notes: "Al-Mohy & Higham 2011; the start/stop/num/endpoint grid by steps of exp(hA)");

/// The keywords of [`expm_multiply_with`] (SciPy's `start=None, stop=None, num=None,
/// endpoint=None`): all `None` is the single action `exp(A) @ B`; otherwise `start` and
/// `stop` are required and the result holds `exp(t_k A) @ B` for the `num` (default 50)
/// times `t_k` of `numpy.linspace(start, stop, num, endpoint)` (`endpoint` default true).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpmMultiply {
    /// The first time.
    pub start: Option<f64>,
    /// The last time (included when `endpoint`).
    pub stop: Option<f64>,
    /// The number of times (default 50).
    pub num: Option<usize>,
    /// Whether `stop` is one of the times (default true).
    pub endpoint: Option<bool>,
}

/// SciPy's `expm_multiply(A, B, start=, stop=, num=, endpoint=)`: [`expm_multiply`], or with
/// a time grid (see [`ExpmMultiply`]) an array of shape `[num, *B.shape]` whose entry `k` is
/// `exp(t_k A) @ B`. As SciPy's `_expm_multiply_interval`, the first entry is computed from
/// `t_0 A`, each next one from the previous by one action of `exp(h A)` (`h` the grid step;
/// its Taylor degree and scaling chosen once).
///
/// # Errors
/// As [`expm_multiply`]; [`Error::InvalidArgument`] when a grid keyword is given without both
/// `start` and `stop`, for a non-finite `start`/`stop`, or fewer than two times (as SciPy).
pub fn expm_multiply_with(a: &dyn SparseMatrix, b: &Array, o: ExpmMultiply) -> Result<Array> {
    let op = "expm_multiply";
    let (m, n) = a.shape();
    if m != n {
        return Err(not_square(op, "A", (m, n)));
    }
    if b.ndim() == 0 || b.ndim() > 2 {
        return Err(Error::invalid(
            op,
            format!(
                "expected B to be like a matrix or a vector, got shape {:?}",
                b.shape()
            ),
        ));
    }
    if b.shape()[0] != n {
        return Err(shapes_error(
            op,
            ("A", &[m, n]),
            ("B", b.shape()),
            format!("B's first dimension must be {n}"),
        ));
    }
    let t = cupy_core::promote::promote_types(a.dtype(), b.dtype());
    let t = if t.is_complex() || t.is_float() {
        t
    } else {
        DType::Float64
    };
    let csr = a.tocsr()?.canonical()?;
    let b = cast(b, t)?;
    let csr = CsrMatrix {
        c: crate::scipy::sparse::map_data(&csr.c, |d| cast(d, t))?,
    };
    let grid = o.start.is_some() || o.stop.is_some() || o.num.is_some() || o.endpoint.is_some();
    if !grid {
        if n == 0 || b.size() == 0 {
            return b.copy();
        }
        return Action::new(&csr, 1.0, b.shape(), t)?.apply(b);
    }
    let (Some(start), Some(stop)) = (o.start, o.stop) else {
        return Err(Error::invalid(
            op,
            "a time grid needs both start and stop (num and endpoint are optional)",
        ));
    };
    if !start.is_finite() || !stop.is_finite() {
        return Err(Error::invalid(
            op,
            format!("start and stop must be finite, got {start} and {stop}"),
        ));
    }
    let num = o.num.unwrap_or(50);
    if num < 2 {
        return Err(Error::invalid(
            op,
            format!("at least two time points are required, num is {num}"),
        ));
    }
    let endpoint = o.endpoint.unwrap_or(true);
    // numpy.linspace's step.
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let h = (stop - start) / div as f64;
    let mut xs = Vec::with_capacity(num);
    let empty = n == 0 || b.size() == 0;
    let x0 = if empty {
        b.copy()?
    } else {
        Action::new(&csr, start, b.shape(), t)?.apply(b)?
    };
    xs.push(x0);
    let step = if empty {
        None
    } else {
        Some(Action::new(&csr, h, xs[0].shape(), t)?)
    };
    for k in 1..num {
        let next = match &step {
            Some(s) => s.apply(xs[k - 1].clone())?,
            None => xs[k - 1].copy()?,
        };
        xs.push(next);
    }
    let refs: Vec<&Array> = xs.iter().collect();
    crate::manipulation::join::stack(&refs, 0)
}

/// `exp(t A) @ X` for the `X` of one shape (see [`expm_multiply`]): the shifted `t A`, its
/// Taylor degree `m*` and scaling `s`, chosen once.
struct Action {
    shifted: CsrMatrix,
    mu: C64,
    m_star: usize,
    s: usize,
    t: DType,
}

impl Action {
    fn new(csr: &CsrMatrix, time: f64, b_shape: &[usize], t: DType) -> Result<Action> {
        let n = csr.shape().0;
        let n0 = if b_shape.len() == 1 { 1 } else { b_shape[1] };
        let csr = if time == 1.0 {
            csr.clone()
        } else {
            csr.mul_scalar(time)?
        };
        let tr = read(&[&csr.diagonal(0)?.sum()?])?[0];
        let mu = tr / n as f64;
        let shifted = if mu == C64::new(0.0, 0.0) {
            csr
        } else {
            let eye = eye_with(
                n,
                SpEye {
                    dtype: t,
                    format: Format::Csr,
                    device: Some(csr.device().clone()),
                    ..Default::default()
                },
            )?
            .tocsr()?;
            let shift = if t.is_complex() {
                eye.mul_scalar(mu)?
            } else {
                eye.mul_scalar(mu.re)?
            };
            csr.sub(&shift)?
        };
        let a1 = norm(&shifted, SparseNorm::One)?.item()?.to_f64();
        let (m_star, s) = if a1 == 0.0 {
            (0, 1)
        } else {
            let mut cache: Vec<(usize, f64)> = vec![];
            let op_a = shifted.clone();
            let mut d = |p: usize| -> Result<f64> {
                if let Some((_, v)) = cache.iter().find(|(q, _)| *q == p) {
                    return Ok(*v);
                }
                let est = onenormest(matrix_power(&op_a, p))?;
                let v = est.powf(1.0 / p as f64);
                cache.push((p, v));
                Ok(v)
            };
            fragment_3_1(a1, n0, 55, 2, &mut d)?
        };
        Ok(Action {
            shifted,
            mu,
            m_star,
            s,
            t,
        })
    }

    /// `exp(t A) @ b` (`b` of the action's dtype and shape).
    fn apply(&self, b: Array) -> Result<Array> {
        let (s, t) = (self.s, self.t);
        let tol = 2f64.powi(-53);
        let eta = (self.mu / s as f64).exp();
        let scale = |x: &Array| -> Result<Array> {
            if t.is_complex() {
                x.multiply(eta)
            } else {
                x * eta.re
            }
        };
        let mut f = b.clone();
        let mut bb = b;
        for _ in 0..s {
            let mut c1 = read(&[&inf_norm(&bb)?])?[0].re;
            for j in 0..self.m_star {
                let coeff = 1.0 / (s * (j + 1)) as f64;
                bb = (&self.shifted.dot(&bb)? * coeff)?;
                f = (&f + &bb)?;
                let got = read(&[&inf_norm(&bb)?, &inf_norm(&f)?])?;
                let c2 = got[0].re;
                if c1 + c2 <= tol * got[1].re {
                    break;
                }
                c1 = c2;
            }
            f = scale(&f)?;
            bb = f.clone();
        }
        Ok(f)
    }
}

/// `A^p` as an operator (`matvec` applied `p` times; `rmatvec` likewise).
fn matrix_power(a: &CsrMatrix, p: usize) -> LinearOperator {
    let base = LinearOperator::from(a);
    let (b1, b2) = (base.clone(), base.clone());
    LinearOperator::new(base.shape(), base.dtype(), move |x| {
        let mut y = x.clone();
        for _ in 0..p {
            y = b1.matvec(&y)?;
        }
        Ok(y)
    })
    .with_device(a.device())
    .with_rmatvec(move |x| {
        let mut y = x.clone();
        for _ in 0..p {
            y = b2.rmatvec(&y)?;
        }
        Ok(y)
    })
}
