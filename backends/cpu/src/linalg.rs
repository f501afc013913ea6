//! Dense linear algebra ([`Backend::linalg`]) with faer, parallel over the batch with rayon.
//!
//! [`via_host`] is the whole implementation: it reads the call's input buffers through
//! [`Backend::read`], factors each matrix with faer and writes the outputs and the per-matrix
//! `info` back through [`Backend::write`]. The cpu backend calls it on itself; the frontend
//! calls it on a GPU backend whose `linalg` is `Unsupported` (the documented "hybrid" host round
//! trip of `docs/backends.md`), so every routine runs on every backend.
//!
//! Non-finite input (NaN/inf) never reaches an iterative faer routine (it cannot hang): `eig`
//! reports [`INFO_NONFINITE`] (NumPy: "Array must not contain infs or NaNs"), `svd` reports no
//! convergence (NumPy's answer for NaN), `eigh` returns NaN eigenvalues and vectors. LU, Cholesky
//! and QR are direct and propagate NaN as LAPACK does.

use cupy_core::backend::{Backend, LinalgCall, LinalgOp, QrMode};
use cupy_core::{DType, Error, Result};
use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{MatRef, Side};
use num_complex::Complex;
use rayon::prelude::*;

/// `info` of a matrix that holds NaN or inf where the op refuses it (`eig`).
pub const INFO_NONFINITE: i32 = -1;

/// The scalar operations the routines need beyond faer's, for f32, f64, c32 and c64.
pub(crate) trait La:
    faer::traits::ComplexField<Real = Self::Re> + Copy + bytemuck::Pod + Send + Sync + 'static
{
    /// The real type.
    type Re: faer::traits::RealField + Copy + bytemuck::Pod + Send + Sync + num_traits::Float;
    fn abs_f64(self) -> f64;
    fn finite(self) -> bool;
    fn conj_(self) -> Self;
    fn mul_(self, o: Self) -> Self;
    fn sub_(self, o: Self) -> Self;
    fn add_(self, o: Self) -> Self;
    fn div_(self, o: Self) -> Self;
    fn from_re(r: Self::Re) -> Self;
    fn re(self) -> Self::Re;
    fn is_zero_(self) -> bool;
}

macro_rules! real_la {
    ($t:ty) => {
        impl La for $t {
            type Re = $t;
            fn abs_f64(self) -> f64 {
                (self as f64).abs()
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
            fn conj_(self) -> Self {
                self
            }
            fn mul_(self, o: Self) -> Self {
                self * o
            }
            fn sub_(self, o: Self) -> Self {
                self - o
            }
            fn add_(self, o: Self) -> Self {
                self + o
            }
            fn div_(self, o: Self) -> Self {
                self / o
            }
            fn from_re(r: $t) -> Self {
                r
            }
            fn re(self) -> $t {
                self
            }
            fn is_zero_(self) -> bool {
                self == 0.0
            }
        }
    };
}
real_la!(f32);
real_la!(f64);

macro_rules! complex_la {
    ($t:ty) => {
        impl La for Complex<$t> {
            type Re = $t;
            fn abs_f64(self) -> f64 {
                (self.re as f64).hypot(self.im as f64)
            }
            fn finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            fn conj_(self) -> Self {
                self.conj()
            }
            fn mul_(self, o: Self) -> Self {
                self * o
            }
            fn sub_(self, o: Self) -> Self {
                self - o
            }
            fn add_(self, o: Self) -> Self {
                self + o
            }
            fn div_(self, o: Self) -> Self {
                self / o
            }
            fn from_re(r: $t) -> Self {
                Complex::new(r, 0.0)
            }
            fn re(self) -> $t {
                self.re
            }
            fn is_zero_(self) -> bool {
                self.re == 0.0 && self.im == 0.0
            }
        }
    };
}
complex_la!(f32);
complex_la!(f64);

/// Checks a call's dtypes and buffer sizes against [`LinalgOp`]'s contract.
///
/// # Errors
/// [`Error::DTypeNotSupported`] for a dtype other than float32/float64/complex64/complex128;
/// [`Error::InvalidArgument`] for a wrong buffer count, dtype or size.
pub fn check_call(be: &dyn Backend, call: &LinalgCall<'_>) -> Result<()> {
    let op = call.op.name();
    if !matches!(
        call.dtype,
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128
    ) {
        return Err(Error::DTypeNotSupported {
            op: op.into(),
            dtype: call.dtype,
            device: be.info().label(),
            reason: "linalg factorizations take float32, float64, complex64 or complex128".into(),
        });
    }
    let (ins, outs) = call.checked_lens()?;
    let odt = call.op.out_dtypes(call.dtype);
    let bad = |what: &str, i: usize, b: &cupy_core::Buffer, len: usize, dt: DType| {
        if b.len() < len || b.dtype() != dt {
            Err(Error::invalid(
                op,
                format!(
                    "linalg {what} {i}: needs {len} x {dt}, got {} x {}",
                    b.len(),
                    b.dtype()
                ),
            ))
        } else {
            Ok(())
        }
    };
    for (i, (b, &l)) in call.inputs.iter().zip(&ins).enumerate() {
        bad("input", i, b, l, call.dtype)?;
    }
    for (i, (b, &l)) in call.outputs.iter().zip(&outs).enumerate() {
        bad("output", i, b, l, odt[i])?;
    }
    bad("info", 0, call.info, call.batch, DType::Int32)
}

/// Runs `call` on the host with faer: reads the inputs from `be`, writes outputs and `info`
/// back. The implementation of the cpu backend's `linalg`, and the frontend's hybrid path on
/// backends without a native one.
///
/// # Errors
/// As [`check_call`]; `be`'s read/write errors.
pub fn via_host(be: &dyn Backend, call: &LinalgCall<'_>) -> Result<()> {
    check_call(be, call)?;
    let (ins, _) = call.lens();
    let mut host = Vec::with_capacity(ins.len());
    for (b, &l) in call.inputs.iter().zip(&ins) {
        host.push(be.read(b, 0, l)?);
    }
    let (outs, info) = match call.dtype {
        DType::Float32 => run::<f32>(call, &host),
        DType::Float64 => run::<f64>(call, &host),
        DType::Complex64 => run::<Complex<f32>>(call, &host),
        _ => run::<Complex<f64>>(call, &host),
    };
    for (b, bytes) in call.outputs.iter().zip(&outs) {
        if !bytes.is_empty() {
            be.write(b, 0, bytes)?;
        }
    }
    be.write(call.info, 0, bytemuck::cast_slice(&info))
}

/// Row-major elements of `m`.
fn rows<T: Copy>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            v.push(m[(i, j)]);
        }
    }
    v
}

/// Row-major elements of `m`'s conjugate transpose.
fn rows_adjoint<T: La>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            v.push(m[(i, j)].conj_());
        }
    }
    v
}

fn bytes<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn identity<T: La>(n: usize) -> Vec<T> {
    let mut v = vec![T::from_re(<T::Re as num_traits::Zero>::zero()); n * n];
    for i in 0..n {
        v[i * n + i] = T::from_re(<T::Re as num_traits::One>::one());
    }
    v
}

/// Every output of `call`, as bytes, and the info array.
fn run<T: La>(call: &LinalgCall<'_>, host: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<i32>) {
    let a: Vec<T> = bytemuck::pod_collect_to_vec(&host[0]);
    let rhs: Vec<T> = host
        .get(1)
        .map(|h| bytemuck::pod_collect_to_vec(h))
        .unwrap_or_default();
    let (m, n, r) = (call.m, call.n, call.nrhs);
    let op = call.op;
    let one = |i: usize| -> (Vec<Vec<u8>>, i32) {
        let ai = &a[i * m * n..(i + 1) * m * n];
        let bi = if r > 0 {
            &rhs[i * n * r..(i + 1) * n * r]
        } else {
            &[][..]
        };
        one_matrix::<T>(op, m, n, r, ai, bi)
    };
    // Parallel over the batch when there is more than one matrix; one large matrix uses faer's
    // own parallelism.
    let per: Vec<(Vec<Vec<u8>>, i32)> = if call.batch > 1 {
        (0..call.batch).into_par_iter().map(one).collect()
    } else {
        (0..call.batch).map(one).collect()
    };
    let nout = per.first().map_or(0, |p| p.0.len());
    let mut outs: Vec<Vec<u8>> = vec![Vec::new(); nout];
    let mut info = Vec::with_capacity(call.batch);
    for (parts, inf) in per {
        for (o, p) in outs.iter_mut().zip(parts) {
            o.extend_from_slice(&p);
        }
        info.push(inf);
    }
    (outs, info)
}

fn nan<T: La>() -> T {
    T::from_re(<T::Re as num_traits::Float>::nan())
}

/// LAPACK's scaling before an eigenvalue routine (as `dgeev`/`dsyevd` do when the largest
/// `|a_ij|` lies outside `[sqrt(safmin) / eps, eps / sqrt(safmin)]`): a power of two that
/// brings it into that range (exact), or 1. The scaled matrix's eigenvalues are divided by it
/// (faer alone loses complex pairs at 1e-300 and overflows at `f64::MAX`).
fn eigen_scale<T: La>(a: &[T]) -> T::Re {
    use num_traits::{Float, ToPrimitive};
    let one = <T::Re as num_traits::One>::one();
    let small = (<T::Re as Float>::min_positive_value().sqrt() / <T::Re as Float>::epsilon())
        .to_f64()
        .unwrap_or(0.0);
    let big = 1.0 / small;
    let anrm = a.iter().fold(0.0f64, |m, x| m.max(x.abs_f64()));
    let k = if anrm > 0.0 && anrm < small {
        (small / anrm).log2().ceil() as i32
    } else if anrm > big {
        -((anrm / big).log2().ceil() as i32)
    } else {
        return one;
    };
    (one + one).powi(k)
}

/// `a` times `scale` (a fresh copy), or `a` itself when `scale` is 1.
fn scaled<T: La>(a: &[T], scale: T::Re) -> std::borrow::Cow<'_, [T]> {
    if scale == <T::Re as num_traits::One>::one() {
        std::borrow::Cow::Borrowed(a)
    } else {
        std::borrow::Cow::Owned(a.iter().map(|&x| x.mul_(T::from_re(scale))).collect())
    }
}

/// The outputs of `op` for one matrix `a` (row-major `m x n`) and right-hand side `b`.
fn one_matrix<T: La>(
    op: LinalgOp,
    m: usize,
    n: usize,
    r: usize,
    a: &[T],
    b: &[T],
) -> (Vec<Vec<u8>>, i32) {
    let am = MatRef::from_row_major_slice(a, m, n);
    let zero_re = <T::Re as num_traits::Zero>::zero();
    let one_re = <T::Re as num_traits::One>::one();
    let finite = || a.iter().all(|x| x.finite());
    match op {
        LinalgOp::Solve | LinalgOp::Inv => {
            let cols = if op == LinalgOp::Solve { r } else { n };
            if n == 0 {
                return (vec![Vec::new()], 0);
            }
            let lu = am.partial_piv_lu();
            let u = lu.U();
            if let Some(i) = (0..n).find(|&i| u[(i, i)].is_zero_()) {
                return (vec![bytes(&vec![nan::<T>(); n * cols])], i as i32 + 1);
            }
            let x = if op == LinalgOp::Solve {
                let mut x = MatRef::from_row_major_slice(b, n, r).to_owned();
                lu.solve_in_place(&mut x);
                x
            } else {
                lu.inverse()
            };
            (vec![bytes(&rows(x.as_ref()))], 0)
        }
        LinalgOp::Det | LinalgOp::Slogdet => {
            let (mut sign, mut logabs) = (T::from_re(one_re), 0.0f64);
            let mut det = T::from_re(one_re);
            // An exactly zero pivot makes the determinant 0 (LAPACK's getrf goes on past it;
            // faer's later factors are NaN there, and their product would be NaN).
            let mut zero_pivot = false;
            if n > 0 {
                let lu = am.partial_piv_lu();
                let u = lu.U();
                let (fwd, _) = lu.P().arrays();
                // The permutation's parity: n minus its number of cycles.
                let mut seen = vec![false; n];
                let mut swaps = 0usize;
                for s in 0..n {
                    let mut j = s;
                    let mut len = 0;
                    while !seen[j] {
                        seen[j] = true;
                        j = fwd[j];
                        len += 1;
                    }
                    swaps += len.max(1) - 1;
                }
                if swaps % 2 == 1 {
                    sign = T::from_re(-one_re);
                    det = sign;
                }
                for i in 0..n {
                    let d = u[(i, i)];
                    det = det.mul_(d);
                    let ad = d.abs_f64();
                    if ad == 0.0 {
                        zero_pivot = true;
                        sign = T::from_re(zero_re);
                        logabs = f64::NEG_INFINITY;
                    } else if logabs != f64::NEG_INFINITY {
                        let ad_t = T::from_re(<T::Re as num_traits::NumCast>::from(ad).unwrap());
                        sign = sign.mul_(d.div_(ad_t));
                        logabs += ad.ln();
                    }
                }
            }
            if zero_pivot {
                det = T::from_re(zero_re);
            }
            if op == LinalgOp::Det {
                (vec![bytes(&[det])], 0)
            } else {
                let la: T::Re = <T::Re as num_traits::NumCast>::from(logabs).unwrap();
                (vec![bytes(&[sign]), bytes(&[la])], 0)
            }
        }
        LinalgOp::Cholesky { upper } => {
            if n == 0 {
                return (vec![Vec::new()], 0);
            }
            let side = if upper { Side::Upper } else { Side::Lower };
            // LAPACK's potrf reads the real part of the diagonal only (a Hermitian matrix has
            // no other); faer would carry an imaginary part into L's diagonal.
            let mut real_diag = a.to_vec();
            for i in 0..n {
                real_diag[i * n + i] = T::from_re(a[i * n + i].re());
            }
            let am = MatRef::from_row_major_slice(&real_diag, m, n);
            match am.llt(side) {
                Ok(llt) => {
                    let l = llt.L();
                    let mut v = if upper { rows_adjoint(l) } else { rows(l) };
                    for i in 0..n {
                        for j in 0..n {
                            if (upper && j < i) || (!upper && j > i) {
                                v[i * n + j] = T::from_re(zero_re);
                            }
                        }
                    }
                    (vec![bytes(&v)], 0)
                }
                Err(faer::linalg::solvers::LltError::NonPositivePivot { index }) => {
                    (vec![bytes(&vec![nan::<T>(); n * n])], index as i32 + 1)
                }
            }
        }
        LinalgOp::Qr { mode } => qr::<T>(mode, m, n, a),
        LinalgOp::Eigh { upper, vectors } => {
            if n == 0 {
                // faer's scratch sizing underflows for an empty matrix.
                let mut o = vec![bytes::<T::Re>(&[])];
                if vectors {
                    o.push(bytes::<T>(&[]));
                }
                return (o, 0);
            }
            let fail = |code| {
                let mut o = vec![bytes(&vec![<T::Re as num_traits::Float>::nan(); n])];
                if vectors {
                    o.push(bytes(&vec![nan::<T>(); n * n]));
                }
                (o, code)
            };
            if !finite() {
                return fail(0);
            }
            let side = if upper { Side::Upper } else { Side::Lower };
            let scale = eigen_scale(a);
            let sa = scaled(a, scale);
            let am = MatRef::from_row_major_slice(&sa, m, n);
            if vectors {
                match am.self_adjoint_eigen(side) {
                    Ok(e) => {
                        let w: Vec<T::Re> = (0..n)
                            .map(|i| e.S().column_vector()[i].re() / scale)
                            .collect();
                        (vec![bytes(&w), bytes(&rows(e.U()))], 0)
                    }
                    Err(_) => fail(1),
                }
            } else {
                match am.self_adjoint_eigenvalues(side) {
                    Ok(w) => {
                        let w: Vec<T::Re> = w.into_iter().map(|x| x / scale).collect();
                        (vec![bytes(&w)], 0)
                    }
                    Err(_) => fail(1),
                }
            }
        }
        LinalgOp::Eig { vectors } => {
            let cn = Complex::new(
                <T::Re as num_traits::Float>::nan(),
                <T::Re as num_traits::Float>::nan(),
            );
            let fail = |code| {
                let mut o = vec![bytes(&vec![cn; n])];
                if vectors {
                    o.push(bytes(&vec![cn; n * n]));
                }
                (o, code)
            };
            if !finite() {
                return fail(INFO_NONFINITE);
            }
            if n == 0 {
                return (vec![Vec::new(); 1 + vectors as usize], 0);
            }
            let scale = eigen_scale(a);
            let sa = scaled(a, scale);
            let am = MatRef::from_row_major_slice(&sa, m, n);
            if vectors {
                match am.eigen() {
                    Ok(e) => {
                        let w: Vec<Complex<T::Re>> = (0..n)
                            .map(|i| e.S().column_vector()[i].unscale(scale))
                            .collect();
                        let mut v = rows(e.U());
                        // Unit 2-norm columns (LAPACK's geev normalization).
                        for j in 0..n {
                            let s: T::Re = (0..n).fold(zero_re, |s, i| s + v[i * n + j].norm_sqr());
                            let s = num_traits::Float::sqrt(s);
                            if s > zero_re {
                                for i in 0..n {
                                    v[i * n + j] /= s;
                                }
                            }
                        }
                        (vec![bytes(&w), bytes(&v)], 0)
                    }
                    Err(_) => fail(1),
                }
            } else {
                match am.eigenvalues() {
                    Ok(w) => {
                        let w: Vec<Complex<T::Re>> =
                            w.into_iter().map(|x| x.unscale(scale)).collect();
                        (vec![bytes(&w)], 0)
                    }
                    Err(_) => fail(1),
                }
            }
        }
        LinalgOp::Svd { full, vectors } => svd::<T>(full, vectors, m, n, a, finite()),
    }
}

fn svd<T: La>(
    full: bool,
    vectors: bool,
    m: usize,
    n: usize,
    a: &[T],
    finite: bool,
) -> (Vec<Vec<u8>>, i32) {
    let k = m.min(n);
    let am = MatRef::from_row_major_slice(a, m, n);
    let rnan = <T::Re as num_traits::Float>::nan();
    let (um, vn) = if full { (m, n) } else { (k, k) };
    let fail = || {
        let mut o = vec![bytes(&vec![rnan; k])];
        if vectors {
            o.push(bytes(&vec![nan::<T>(); m * um]));
            o.push(bytes(&vec![nan::<T>(); vn * n]));
        }
        (o, 1)
    };
    if !finite {
        return fail();
    }
    if k == 0 {
        let mut o = vec![Vec::new()];
        if vectors {
            o.push(bytes(&if full { identity::<T>(m) } else { Vec::new() }));
            o.push(bytes(&if full { identity::<T>(n) } else { Vec::new() }));
        }
        return (o, 0);
    }
    if !vectors {
        return match am.singular_values() {
            Ok(s) => (vec![bytes(&s)], 0),
            Err(_) => fail(),
        };
    }
    let s = if full { am.svd() } else { am.thin_svd() };
    match s {
        Ok(s) => {
            let w: Vec<T::Re> = (0..k).map(|i| s.S().column_vector()[i].re()).collect();
            (
                vec![bytes(&w), bytes(&rows(s.U())), bytes(&rows_adjoint(s.V()))],
                0,
            )
        }
        Err(_) => fail(),
    }
}

fn qr<T: La>(mode: QrMode, m: usize, n: usize, a: &[T]) -> (Vec<Vec<u8>>, i32) {
    let k = m.min(n);
    let zero = T::from_re(<T::Re as num_traits::Zero>::zero());
    if mode == QrMode::Raw {
        let (h, tau) = householder_qr(m, n, a);
        return (vec![bytes(&h), bytes(&tau)], 0);
    }
    if k == 0 {
        let q = if mode == QrMode::Complete {
            identity::<T>(m)
        } else {
            Vec::new()
        };
        let r = if mode == QrMode::Complete {
            vec![zero; m * n]
        } else {
            Vec::new()
        };
        return (vec![bytes(&q), bytes(&r)], 0);
    }
    let am = MatRef::from_row_major_slice(a, m, n);
    let f = am.qr();
    let (q, rr) = if mode == QrMode::Complete {
        (f.compute_Q(), m)
    } else {
        (f.compute_thin_Q(), k)
    };
    // R's upper trapezoid, zeros below (faer's R may hold fewer than `rr` rows).
    let rf = f.R();
    let mut r = vec![zero; rr * n];
    for i in 0..rr.min(rf.nrows()) {
        for j in i..n {
            r[i * n + j] = rf[(i, j)];
        }
    }
    (vec![bytes(&rows(q.as_ref())), bytes(&r)], 0)
}

/// LAPACK's unblocked `geqr2` (Householder reflectors `H = I - tau v v^H`, `v[0] = 1`, `beta =
/// -sign(Re alpha) ||x||`, as `larfg`), so `mode="raw"` returns LAPACK's (and NumPy's) `h` and
/// `tau`: `h` is the factored matrix in column-major order (`[n, m]` read in C order).
fn householder_qr<T: La>(m: usize, n: usize, a: &[T]) -> (Vec<T>, Vec<T>) {
    let k = m.min(n);
    let zero = T::from_re(<T::Re as num_traits::Zero>::zero());
    // Column-major working copy: w[j * m + i] = a[i, j].
    let mut w = vec![zero; m * n];
    for i in 0..m {
        for j in 0..n {
            w[j * m + i] = a[i * n + j];
        }
    }
    let mut tau = vec![zero; k];
    for c in 0..k {
        let col = c * m;
        let alpha = w[col + c];
        let xnorm2: f64 = (c + 1..m).map(|i| w[col + i].abs_f64().powi(2)).sum();
        let alpha_im_zero = (alpha.sub_(T::from_re(alpha.re()))).is_zero_();
        if xnorm2 == 0.0 && alpha_im_zero {
            continue;
        }
        let anorm = alpha.abs_f64();
        let ar: f64 = <f64 as num_traits::NumCast>::from(alpha.re()).unwrap();
        let beta = -ar.signum() * (anorm * anorm + xnorm2).sqrt();
        let beta_t = T::from_re(<T::Re as num_traits::NumCast>::from(beta).unwrap());
        let t = beta_t.sub_(alpha).div_(beta_t);
        let scal = T::from_re(<T::Re as num_traits::One>::one()).div_(alpha.sub_(beta_t));
        for i in c + 1..m {
            w[col + i] = w[col + i].mul_(scal);
        }
        w[col + c] = beta_t;
        tau[c] = t;
        // Apply H^H = I - conj(tau) v v^H to the columns right of c.
        let tc = t.conj_();
        for j in c + 1..n {
            let cj = j * m;
            // s = v^H a_j, v = [1, w[col + c + 1..]].
            let mut s = w[cj + c];
            for i in c + 1..m {
                s = s.add_(w[col + i].conj_().mul_(w[cj + i]));
            }
            let s = tc.mul_(s);
            w[cj + c] = w[cj + c].sub_(s);
            for i in c + 1..m {
                w[cj + i] = w[cj + i].sub_(w[col + i].mul_(s));
            }
        }
    }
    (w, tau)
}
