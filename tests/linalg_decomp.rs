//! The non-unique factors of `cupy::linalg` (qr, svd, eig, eigh) checked by reconstruction on
//! every backend: `||A - Q R||`, `||U S Vh - A||`, `||A V - V diag(w)||` relative to `||A||`, and
//! the orthogonality of Q, U, Vh and eigh's V, all within `TOL_FACTOR * n * eps(dtype)`
//! (`TOL_FACTOR = 64`; eig's relative residual within the same bound times the eigenvector
//! matrix's condition, which is small for these random inputs). Also: batched and transposed
//! inputs, complex dtypes, and the error kinds (NaN input, non-square, float16).

use crate::common::{self, CaseError};
use cupy::num_complex::Complex;
use cupy::{Array, DType, Device, Error};

type C = Complex<f64>;
const TOL_FACTOR: f64 = 64.0;

/// A host copy as complex128: the shape and the elements in C order.
fn host(a: &Array) -> Result<(Vec<usize>, Vec<C>), CaseError> {
    Ok((
        a.shape().to_vec(),
        a.astype(DType::Complex128)?.to_vec::<C>()?,
    ))
}

/// Frobenius norm of the difference of two equally long vectors.
fn diff(a: &[C], b: &[C]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm_sqr())
        .sum::<f64>()
        .sqrt()
}

fn fro(a: &[C]) -> f64 {
    a.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
}

/// `x [m, k] @ y [k, n]` for matrix `b` of a stack.
fn mm(x: &[C], y: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
    let mut c = vec![C::new(0.0, 0.0); m * n];
    for i in 0..m {
        for p in 0..k {
            let xv = x[i * k + p];
            for j in 0..n {
                c[i * n + j] += xv * y[p * n + j];
            }
        }
    }
    c
}

/// `x^H` of an `[m, n]` matrix.
fn adj(x: &[C], m: usize, n: usize) -> Vec<C> {
    let mut t = vec![C::new(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = x[i * n + j].conj();
        }
    }
    t
}

fn eye(n: usize) -> Vec<C> {
    let mut e = vec![C::new(0.0, 0.0); n * n];
    for i in 0..n {
        e[i * n + i] = C::new(1.0, 0.0);
    }
    e
}

fn eps(t: DType) -> f64 {
    if t.real_dtype() == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// A random-ish `[.., m, n]` matrix stack of dtype `t` (deterministic).
fn matrix(dev: &Device, shape: &[usize], t: DType, seed: u64) -> cupy::Result<Array> {
    let n: usize = shape.iter().product();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let v: Vec<C> = (0..n).map(|_| C::new(next(), next())).collect();
    let a = Array::from_slice_on(dev, &v, shape)?;
    if t.is_complex() {
        a.astype(t)
    } else {
        cupy::real(&a)?.astype(t)
    }
}

fn check(cond: bool, what: impl FnOnce() -> String) -> Result<(), CaseError> {
    if cond {
        Ok(())
    } else {
        Err(CaseError::Fail(what()))
    }
}

const DTYPES: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

fn qr_case(dev: &Device, t: DType, shape: &[usize], mode: &str) -> Result<(), CaseError> {
    let a = matrix(dev, shape, t, 7)?;
    let v = cupy::linalg::qr_mode(&a, mode)?;
    let (q, r) = (&v[0], &v[1]);
    check(q.dtype() == t && r.dtype() == t, || {
        format!("dtypes {} {}", q.dtype(), r.dtype())
    })?;
    let (sa, ha) = host(&a)?;
    let (sq, hq) = host(q)?;
    let (sr, hr) = host(r)?;
    let nd = sa.len();
    let (m, n) = (sa[nd - 2], sa[nd - 1]);
    let kq = sq[nd - 1];
    check(
        sr[nd - 2] == kq && sr[nd - 1] == n && sq[nd - 2] == m,
        || format!("shapes q {sq:?} r {sr:?} for a {sa:?} ({mode})"),
    )?;
    let batch = ha.len() / (m * n).max(1);
    let tol = TOL_FACTOR * m.max(n) as f64 * eps(t);
    for b in 0..batch {
        let ab = &ha[b * m * n..(b + 1) * m * n];
        let qb = &hq[b * m * kq..(b + 1) * m * kq];
        let rb = &hr[b * kq * n..(b + 1) * kq * n];
        let rec = diff(&mm(qb, rb, m, kq, n), ab) / fro(ab).max(1e-300);
        check(rec <= tol, || {
            format!("||A - QR||/||A|| = {rec:e} > {tol:e}")
        })?;
        let orth = diff(&mm(&adj(qb, m, kq), qb, kq, m, kq), &eye(kq));
        check(orth <= tol, || {
            format!("||Q^H Q - I|| = {orth:e} > {tol:e}")
        })?;
        for i in 0..kq {
            for j in 0..n.min(i) {
                check(rb[i * n + j].norm() == 0.0, || format!("R[{i},{j}] != 0"))?;
            }
        }
    }
    Ok(())
}

/// On wgpu with the native factorizations forced on (llvmpipe's default is the host hybrid),
/// checked to have run there.
#[test]
fn qr_reconstructs() {
    common::with_native_wgpu_linalg(qr_reconstructs_body);
}

fn qr_reconstructs_body() {
    let mut t = common::Tally::new("qr_reconstructs");
    for dev in common::backends() {
        for dt in DTYPES {
            for (shape, mode) in [
                (&[5usize, 3][..], "reduced"),
                (&[3, 5], "reduced"),
                (&[5, 3], "complete"),
                (&[2, 4, 4], "reduced"),
                (&[2, 3, 2], "complete"),
            ] {
                let r = qr_case(&dev, dt, shape, mode);
                t.check(&dev, &format!("qr/{dt}/{shape:?}/{mode}"), r);
            }
        }
    }
    t.finish();
}

/// `svd` of a `shape` stack checked by reconstruction and orthogonality; with `rank`, the
/// matrices are products of `[.., m, rank]` and `[.., rank, n]` factors, so all but `rank`
/// singular values are zero (to rounding).
fn svd_case(
    dev: &Device,
    t: DType,
    shape: &[usize],
    full: bool,
    rank: Option<usize>,
) -> Result<(), CaseError> {
    let a = match rank {
        None => matrix(dev, shape, t, 11)?,
        Some(r) => {
            let nd = shape.len();
            let (mut left, mut right) = (shape.to_vec(), shape.to_vec());
            left[nd - 1] = r;
            right[nd - 2] = r;
            cupy::matmul(&matrix(dev, &left, t, 12)?, &matrix(dev, &right, t, 13)?)?
        }
    };
    let r = cupy::linalg::svd_with(
        &a,
        cupy::linalg::Svd {
            full_matrices: full,
            ..Default::default()
        },
    )?;
    let (u, s, vh) = (r.u.unwrap(), r.s, r.vh.unwrap());
    check(s.dtype() == t.real_dtype() && u.dtype() == t, || {
        format!("dtypes s {} u {}", s.dtype(), u.dtype())
    })?;
    let (sa, ha) = host(&a)?;
    let (su, hu) = host(&u)?;
    let (_, hs) = host(&s)?;
    let (sv, hv) = host(&vh)?;
    let nd = sa.len();
    let (m, n) = (sa[nd - 2], sa[nd - 1]);
    let k = m.min(n);
    let (ku, kv) = (su[nd - 1], sv[nd - 2]);
    check(
        ku == if full { m } else { k } && kv == if full { n } else { k },
        || format!("u {su:?} vh {sv:?} for {sa:?} full={full}"),
    )?;
    let batch = ha.len() / (m * n);
    let tol = TOL_FACTOR * m.max(n) as f64 * eps(t);
    for b in 0..batch {
        let ab = &ha[b * m * n..(b + 1) * m * n];
        let ub = &hu[b * m * ku..(b + 1) * m * ku];
        let vb = &hv[b * kv * n..(b + 1) * kv * n];
        let sb = &hs[b * k..(b + 1) * k];
        for i in 1..k {
            check(sb[i - 1].re >= sb[i].re, || {
                format!("s not descending: {sb:?}")
            })?;
        }
        if let Some(r) = rank {
            let small = sb[r..].iter().map(|x| x.re).fold(0.0, f64::max);
            check(small <= tol * sb[0].re, || {
                format!("rank {r}: s[{r}..] up to {small:e}, s[0] = {:e}", sb[0].re)
            })?;
        }
        // U[:, :k] * s @ Vh[:k, :].
        let mut us = vec![C::new(0.0, 0.0); m * k];
        for i in 0..m {
            for j in 0..k {
                us[i * k + j] = ub[i * ku + j] * sb[j];
            }
        }
        let rec = diff(&mm(&us, &vb[..k * n], m, k, n), ab) / fro(ab);
        check(rec <= tol, || {
            format!("||U S Vh - A||/||A|| = {rec:e} > {tol:e}")
        })?;
        let ou = diff(&mm(&adj(ub, m, ku), ub, ku, m, ku), &eye(ku));
        let ov = diff(&mm(vb, &adj(vb, kv, n), kv, n, kv), &eye(kv));
        check(ou <= tol && ov <= tol, || {
            format!("orthogonality: ||U^H U - I|| = {ou:e}, ||Vh Vh^H - I|| = {ov:e}")
        })?;
    }
    Ok(())
}

#[test]
fn svd_reconstructs() {
    let mut t = common::Tally::new("svd_reconstructs");
    for dev in common::backends() {
        for dt in DTYPES {
            // Square orders of 64 and more take gesvdp on cuda (its own path), with the
            // rank-deficient case its polar factor must complete.
            for (shape, full, rank) in [
                (&[6usize, 4][..], true, None),
                (&[6, 4], false, None),
                (&[3, 5], true, None),
                (&[2, 3, 3], false, None),
                (&[64, 64], true, None),
                (&[2, 65, 65], false, None),
                (&[64, 64], true, Some(5)),
            ] {
                let r = svd_case(&dev, dt, shape, full, rank);
                t.check(
                    &dev,
                    &format!("svd/{dt}/{shape:?}/full={full}/rank={rank:?}"),
                    r,
                );
            }
        }
    }
    t.finish();
}

/// `||A V - V diag(w)|| / ||A||` per matrix of a stack.
fn eig_residual(ha: &[C], hw: &[C], hv: &[C], n: usize) -> Vec<f64> {
    let batch = ha.len() / (n * n);
    (0..batch)
        .map(|b| {
            let ab = &ha[b * n * n..(b + 1) * n * n];
            let vb = &hv[b * n * n..(b + 1) * n * n];
            let wb = &hw[b * n..(b + 1) * n];
            let av = mm(ab, vb, n, n, n);
            let mut vw = vb.to_vec();
            for i in 0..n {
                for j in 0..n {
                    vw[i * n + j] *= wb[j];
                }
            }
            diff(&av, &vw) / fro(ab)
        })
        .collect()
}

fn eig_case(dev: &Device, t: DType, shape: &[usize], hermitian: bool) -> Result<(), CaseError> {
    let a0 = matrix(dev, shape, t, 5)?;
    let a = if hermitian {
        let nd = a0.ndim() as isize;
        let ah = cupy::conj(&a0.swapaxes(nd - 2, nd - 1)?)?;
        cupy::multiply(&cupy::add(&a0, &ah)?, 0.5)?
    } else {
        a0
    };
    let (w, v) = if hermitian {
        cupy::linalg::eigh(&a)?
    } else {
        cupy::linalg::eig(&a)?
    };
    if hermitian {
        check(w.dtype() == t.real_dtype() && v.dtype() == t, || {
            format!("eigh dtypes {} {}", w.dtype(), v.dtype())
        })?;
    } else if t.is_complex() {
        check(w.dtype() == t && v.dtype() == t, || {
            format!("eig dtypes {} {}", w.dtype(), v.dtype())
        })?;
    }
    let (sa, ha) = host(&a)?;
    let (_, hw) = host(&w)?;
    let (_, hv) = host(&v)?;
    let n = sa[sa.len() - 1];
    let tol = TOL_FACTOR * n as f64 * eps(t) * if hermitian { 1.0 } else { 10.0 };
    for (b, r) in eig_residual(&ha, &hw, &hv, n).into_iter().enumerate() {
        check(r <= tol, || {
            format!("matrix {b}: ||AV - V diag(w)||/||A|| = {r:e} > {tol:e}")
        })?;
    }
    for b in 0..ha.len() / (n * n) {
        let vb = &hv[b * n * n..(b + 1) * n * n];
        if hermitian {
            let o = diff(&mm(&adj(vb, n, n), vb, n, n, n), &eye(n));
            check(o <= tol, || format!("||V^H V - I|| = {o:e}"))?;
            let wb = &hw[b * n..(b + 1) * n];
            for i in 1..n {
                check(wb[i - 1].re <= wb[i].re, || {
                    format!("w not ascending {wb:?}")
                })?;
            }
        } else {
            for j in 0..n {
                let nrm: f64 = (0..n).map(|i| vb[i * n + j].norm_sqr()).sum::<f64>().sqrt();
                check((nrm - 1.0).abs() <= tol, || {
                    format!("column {j} norm {nrm}")
                })?;
            }
        }
    }
    Ok(())
}

#[test]
fn eig_and_eigh_reconstruct() {
    let mut t = common::Tally::new("eig_and_eigh_reconstruct");
    for dev in common::backends() {
        for dt in DTYPES {
            for (shape, herm) in [
                (&[6usize, 6][..], false),
                (&[2, 4, 4], false),
                (&[6, 6], true),
                (&[3, 3, 3], true),
            ] {
                let r = eig_case(&dev, dt, shape, herm);
                t.check(&dev, &format!("eig/{dt}/{shape:?}/hermitian={herm}"), r);
            }
        }
    }
    t.finish();
}

/// eig of a real matrix with complex eigenvalues is complex; with real ones, real (NumPy).
/// svd(hermitian=True) reconstructs; NaN input errors or gives NaN without hanging.
#[test]
fn eig_dtypes_and_nonfinite() {
    let mut t = common::Tally::new("eig_dtypes_and_nonfinite");
    for dev in common::backends() {
        let r = (|| -> Result<(), CaseError> {
            let rot = Array::from_slice_on(&dev, &[0.0f64, -1.0, 1.0, 0.0], &[2, 2])?;
            let (w, v) = cupy::linalg::eig(&rot)?;
            check(
                w.dtype() == DType::Complex128 && v.dtype() == DType::Complex128,
                || format!("rotation: {} {}", w.dtype(), v.dtype()),
            )?;
            let mut im: Vec<f64> = w.to_vec::<C>()?.iter().map(|c| c.im).collect();
            im.sort_by(f64::total_cmp);
            check(
                (im[0] + 1.0).abs() < 1e-12 && (im[1] - 1.0).abs() < 1e-12,
                || format!("rotation eigenvalues {im:?}"),
            )?;
            let diag = Array::from_slice_on(&dev, &[2.0f32, 0.0, 0.0, 3.0], &[2, 2])?;
            let (w, _) = cupy::linalg::eig(&diag)?;
            check(w.dtype() == DType::Float32, || {
                format!("real eig dtype {}", w.dtype())
            })?;
            let nan = Array::from_slice_on(&dev, &[f64::NAN, 1.0, 1.0, 2.0], &[2, 2])?;
            let e = cupy::linalg::eig(&nan).err();
            check(
                matches!(&e, Some(Error::LinAlgError { op, reason }) if op == "eig" && reason.contains("infs or NaNs")),
                || format!("eig(NaN): {e:?}"),
            )?;
            let e = cupy::linalg::svd(&nan).err();
            check(matches!(e, Some(Error::LinAlgError { .. })), || {
                format!("svd(NaN): {e:?}")
            })?;
            let w = cupy::linalg::eigvalsh(&nan)?.to_vec::<f64>()?;
            check(w.iter().all(|x| x.is_nan()), || {
                format!("eigvalsh(NaN) {w:?}")
            })?;
            let inv = cupy::linalg::inv(&nan)?.to_vec::<f64>()?;
            check(inv.iter().any(|x| x.is_nan()), || {
                format!("inv(NaN) {inv:?}")
            })?;
            // svd(hermitian=True) of a symmetric indefinite matrix.
            let h = Array::from_slice_on(
                &dev,
                &[2.0f64, 1.0, 0.0, 1.0, -3.0, 1.0, 0.0, 1.0, 1.0],
                &[3, 3],
            )?;
            let r = cupy::linalg::svd_with(
                &h,
                cupy::linalg::Svd {
                    hermitian: true,
                    ..Default::default()
                },
            )?;
            let (u, s, vh) = (r.u.unwrap(), r.s, r.vh.unwrap());
            let want = cupy::linalg::svdvals(&h)?.to_vec::<f64>()?;
            let got = s.to_vec::<f64>()?;
            check(
                got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12),
                || format!("hermitian svd s {got:?} vs {want:?}"),
            )?;
            let us = cupy::multiply(&u, &s.expand_dims(0)?)?;
            let rec = cupy::matmul(&us, &vh)?;
            let d = cupy::subtract(&rec, &h)?.to_vec::<f64>()?;
            check(d.iter().all(|x| x.abs() < 1e-12), || {
                format!("U S Vh - A = {d:?}")
            })?;
            // Errors.
            let e = cupy::linalg::eig(&Array::zeros_on(&dev, &[2, 3], DType::Float64)?).err();
            check(matches!(e, Some(Error::LinAlgError { .. })), || {
                format!("non-square {e:?}")
            })?;
            let e = cupy::linalg::qr_mode(&rot, "bogus").err();
            check(matches!(e, Some(Error::InvalidArgument { .. })), || {
                format!("qr mode {e:?}")
            })?;
            let e = cupy::linalg::eigh_with(&rot, "X").err();
            check(matches!(e, Some(Error::InvalidArgument { .. })), || {
                format!("UPLO {e:?}")
            })?;
            Ok(())
        })();
        t.check(&dev, "eig_dtypes_and_nonfinite", r);
    }
    t.finish();
}
