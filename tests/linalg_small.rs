//! The one-kernel small-matrix path (`cupy::linalg::small`), forced on with
//! `with_small_kernels(SmallMode::On, ..)` so it runs on every listed backend (cpu included),
//! against the backend's own `linalg` (faer on cpu, its host hybrid or cuSOLVER elsewhere; forced
//! off the same way): batched random 1x1..4x4 float32/float64 `inv solve det slogdet cholesky
//! eigh eigvalsh`, checked by reconstruction (`A inv(A) = I`, `A x = b`, `L L^T = A`,
//! `A V = V diag(w)`, `V^T V = I`) and by comparison with the other path, all within
//! `TOL_FACTOR * n * eps(dtype)` (times the matrix's condition where it applies); a singular or
//! indefinite matrix inside a batch (NumPy's batched `LinAlgError`), an empty batch, 1x1, NaN
//! input, and the kernels' HIP C++ compiled by hipRTC.

use crate::common::{self, CaseError};
use cupy::linalg::small::{with_small_kernels, SmallMode, SMALL_MAX_N};
use cupy::{Array, DType, Device, Error};

const TOL_FACTOR: f64 = 64.0;
type R<T> = Result<T, CaseError>;

fn check(cond: bool, what: impl FnOnce() -> String) -> R<()> {
    if cond {
        Ok(())
    } else {
        Err(CaseError::Fail(what()))
    }
}

fn eps(t: DType) -> f64 {
    if t == DType::Float32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

fn on<T>(f: impl FnOnce() -> T) -> T {
    with_small_kernels(SmallMode::On, f)
}

fn off<T>(f: impl FnOnce() -> T) -> T {
    with_small_kernels(SmallMode::Off, f)
}

/// Deterministic values in `[-1, 1)`.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn upload(dev: &Device, v: &[f64], shape: &[usize], t: DType) -> cupy::Result<Array> {
    Array::from_slice_on(dev, v, shape)?.astype(t)
}

fn host(a: &Array) -> R<Vec<f64>> {
    Ok(a.astype(DType::Float64)?.to_vec::<f64>()?)
}

/// `x [m, k] @ y [k, n]`.
fn mm(x: &[f64], y: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                c[i * n + j] += x[i * k + p] * y[p * n + j];
            }
        }
    }
    c
}

fn t(x: &[f64], n: usize) -> Vec<f64> {
    (0..n * n).map(|e| x[(e % n) * n + e / n]).collect()
}

fn fro(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

fn eye(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|e| if e / n == e % n { 1.0 } else { 0.0 })
        .collect()
}

const BATCH: usize = 23;

/// inv, solve (k = 1 and 3, and a vector right-hand side), det and slogdet of a random batch.
fn lu_case(dev: &Device, ty: DType, n: usize) -> R<()> {
    let nn = n * n;
    let av = values(BATCH * nn, 11 + n as u64);
    let a = upload(dev, &av, &[BATCH, n, n], ty)?;
    let ha = host(&a)?;
    let tol = TOL_FACTOR * n as f64 * eps(ty);
    let inv = on(|| cupy::linalg::inv(&a))?;
    let inv_ref = off(|| cupy::linalg::inv(&a))?;
    check(inv.shape() == [BATCH, n, n] && inv.dtype() == ty, || {
        format!("inv {:?} {}", inv.shape(), inv.dtype())
    })?;
    let (hi, hr) = (host(&inv)?, host(&inv_ref)?);
    let mut conds = vec![];
    for b in 0..BATCH {
        let (ab, ib, rb) = (
            &ha[b * nn..(b + 1) * nn],
            &hi[b * nn..(b + 1) * nn],
            &hr[b * nn..(b + 1) * nn],
        );
        let cond = fro(ab) * fro(rb);
        conds.push(cond);
        let res = dist(&mm(ab, ib, n, n, n), &eye(n)) / n as f64;
        check(res <= tol * cond, || {
            format!("matrix {b}: ||A inv(A) - I|| = {res:e}, cond {cond:e}")
        })?;
        let d = dist(ib, rb) / fro(rb);
        check(d <= tol * cond, || {
            format!("matrix {b}: inv vs the backend's {d:e}, cond {cond:e}")
        })?;
    }
    for k in [1usize, 3] {
        let bv = values(BATCH * n * k, 5 + k as u64);
        let bm = upload(dev, &bv, &[BATCH, n, k], ty)?;
        let hb = host(&bm)?;
        let x = host(&on(|| cupy::linalg::solve(&a, &bm))?)?;
        let xr = host(&off(|| cupy::linalg::solve(&a, &bm))?)?;
        for b in 0..BATCH {
            let ab = &ha[b * nn..(b + 1) * nn];
            let (xb, bb, rb) = (
                &x[b * n * k..(b + 1) * n * k],
                &hb[b * n * k..(b + 1) * n * k],
                &xr[b * n * k..(b + 1) * n * k],
            );
            let res = dist(&mm(ab, xb, n, n, k), bb) / (fro(ab) * fro(xb)).max(1e-300);
            check(res <= tol, || {
                format!("matrix {b}, k {k}: ||A x - b|| {res:e}")
            })?;
            let d = dist(xb, rb) / fro(rb).max(1e-300);
            check(d <= tol * conds[b], || {
                format!("matrix {b}, k {k}: x vs the backend's {d:e}")
            })?;
        }
    }
    // A stack of vectors (NumPy 2: b of shape (n,) only; here one shared right-hand side).
    let bvec = upload(dev, &values(n, 3), &[n], ty)?;
    let a0 = a.get(&cupy::s![0])?;
    let x = host(&on(|| cupy::linalg::solve(&a0, &bvec))?)?;
    let xr = host(&off(|| cupy::linalg::solve(&a0, &bvec))?)?;
    check(dist(&x, &xr) <= tol * conds[0] * fro(&xr), || {
        format!("vector solve {x:?} vs {xr:?}")
    })?;
    let det = host(&on(|| cupy::linalg::det(&a))?)?;
    let det_ref = host(&off(|| cupy::linalg::det(&a))?)?;
    let (sg, la) = on(|| cupy::linalg::slogdet(&a))?;
    let (sg_ref, la_ref) = off(|| cupy::linalg::slogdet(&a))?;
    check(
        sg.dtype() == ty && la.dtype() == ty && sg.shape() == [BATCH],
        || format!("slogdet {} {} {:?}", sg.dtype(), la.dtype(), sg.shape()),
    )?;
    let (sg, la, sg_ref, la_ref) = (host(&sg)?, host(&la)?, host(&sg_ref)?, host(&la_ref)?);
    for b in 0..BATCH {
        let d = (det[b] - det_ref[b]).abs();
        check(d <= tol * conds[b] * det_ref[b].abs(), || {
            format!("matrix {b}: det {} vs {}", det[b], det_ref[b])
        })?;
        check(sg[b] == sg_ref[b] && sg[b] == det_ref[b].signum(), || {
            format!("matrix {b}: sign {} vs {}", sg[b], sg_ref[b])
        })?;
        check((la[b] - la_ref[b]).abs() <= tol * conds[b], || {
            format!("matrix {b}: logabsdet {} vs {}", la[b], la_ref[b])
        })?;
    }
    Ok(())
}

/// cholesky (both triangles read) of random SPD matrices whose other triangle is garbage.
fn cholesky_case(dev: &Device, ty: DType, n: usize) -> R<()> {
    let nn = n * n;
    let rv = values(BATCH * nn, 17 + n as u64);
    let garbage = values(BATCH * nn, 99);
    let tol = TOL_FACTOR * n as f64 * eps(ty);
    for upper in [false, true] {
        let mut spd = vec![0.0; BATCH * nn];
        let mut full = vec![];
        for b in 0..BATCH {
            let r = &rv[b * nn..(b + 1) * nn];
            let mut s = mm(r, &t(r, n), n, n, n);
            for i in 0..n {
                s[i * n + i] += 0.5;
            }
            for i in 0..n {
                for j in 0..n {
                    let read = if upper { j >= i } else { j <= i };
                    spd[b * nn + i * n + j] = if read {
                        s[i * n + j]
                    } else {
                        garbage[b * nn + i * n + j]
                    };
                }
            }
            full.push(s);
        }
        let a = upload(dev, &spd, &[BATCH, n, n], ty)?;
        let l = host(&on(|| cupy::linalg::cholesky_with(&a, upper))?)?;
        let lr = host(&off(|| cupy::linalg::cholesky_with(&a, upper))?)?;
        let ha = host(&a)?;
        for b in 0..BATCH {
            let lb = &l[b * nn..(b + 1) * nn];
            let zeros_ok = (0..nn).all(|e| {
                let (i, j) = (e / n, e % n);
                let other = if upper { j < i } else { j > i };
                !other || lb[e] == 0.0
            });
            check(zeros_ok, || {
                format!("matrix {b}: the other triangle {lb:?}")
            })?;
            // Rebuild the symmetric matrix as the dtype holds it.
            let mut s = full[b].clone();
            for i in 0..n {
                for j in 0..n {
                    let (r, c) = if upper {
                        (i.min(j), i.max(j))
                    } else {
                        (i.max(j), i.min(j))
                    };
                    s[i * n + j] = ha[b * nn + r * n + c];
                }
            }
            let rec = if upper {
                mm(&t(lb, n), lb, n, n, n)
            } else {
                mm(lb, &t(lb, n), n, n, n)
            };
            let res = dist(&rec, &s) / fro(&s);
            check(res <= tol, || {
                format!("matrix {b} (upper {upper}): ||L L^T - A|| {res:e}")
            })?;
            let d = dist(lb, &lr[b * nn..(b + 1) * nn]) / fro(lb);
            check(d <= tol * 10.0, || {
                format!("matrix {b}: L vs the backend's {d:e}")
            })?;
        }
    }
    Ok(())
}

/// eigh and eigvalsh (both UPLO) of random symmetric matrices (the other triangle garbage).
fn eigh_case(dev: &Device, ty: DType, n: usize) -> R<()> {
    let nn = n * n;
    let rv = values(BATCH * nn, 23 + n as u64);
    let tol = TOL_FACTOR * n as f64 * eps(ty);
    let a = upload(dev, &rv, &[BATCH, n, n], ty)?;
    let ha = host(&a)?;
    for uplo in ["L", "U"] {
        let (w, v) = on(|| cupy::linalg::eigh_with(&a, uplo))?;
        check(
            w.dtype() == ty && v.dtype() == ty && w.shape() == [BATCH, n],
            || format!("eigh {} {} {:?}", w.dtype(), v.dtype(), w.shape()),
        )?;
        let (w, v) = (host(&w)?, host(&v)?);
        let wr = host(&off(|| cupy::linalg::eigvalsh_with(&a, uplo))?)?;
        let wv = host(&on(|| cupy::linalg::eigvalsh_with(&a, uplo))?)?;
        for b in 0..BATCH {
            let mut s = vec![0.0; nn];
            for i in 0..n {
                for j in 0..n {
                    let (r, c) = if uplo == "U" {
                        (i.min(j), i.max(j))
                    } else {
                        (i.max(j), i.min(j))
                    };
                    s[i * n + j] = ha[b * nn + r * n + c];
                }
            }
            let norm = fro(&s).max(1e-300);
            let (wb, vb) = (&w[b * n..(b + 1) * n], &v[b * nn..(b + 1) * nn]);
            check(wb.windows(2).all(|p| p[0] <= p[1]), || {
                format!("matrix {b}: not ascending {wb:?}")
            })?;
            let av = mm(&s, vb, n, n, n);
            let vw: Vec<f64> = (0..nn).map(|e| vb[e] * wb[e % n]).collect();
            let res = dist(&av, &vw) / norm;
            check(res <= tol, || {
                format!("matrix {b} ({uplo}): ||A V - V w|| {res:e}")
            })?;
            let orth = dist(&mm(&t(vb, n), vb, n, n, n), &eye(n));
            check(orth <= tol, || {
                format!("matrix {b} ({uplo}): ||V^T V - I|| {orth:e}")
            })?;
            for i in 0..n {
                let (x, y, z) = (wb[i], wr[b * n + i], wv[b * n + i]);
                check((x - y).abs() <= tol * norm && x == z, || {
                    format!("matrix {b} ({uplo}): w[{i}] {x} vs the backend's {y}, eigvalsh {z}")
                })?;
            }
        }
    }
    Ok(())
}

/// On wgpu with the native factorizations forced on (llvmpipe's default is the host hybrid).
#[test]
fn small_matches_backend() {
    cupy_wgpu::with_native_linalg(cupy_wgpu::NativeLinalg::On, small_matches_backend_body);
}

fn small_matches_backend_body() {
    let mut tally = common::Tally::new("small_matches_backend");
    for dev in common::backends() {
        for ty in [DType::Float32, DType::Float64] {
            for n in 1..=SMALL_MAX_N {
                let r = lu_case(&dev, ty, n);
                tally.check(&dev, &format!("lu/{ty}/{n}"), r);
                let r = cholesky_case(&dev, ty, n);
                tally.check(&dev, &format!("cholesky/{ty}/{n}"), r);
                let r = eigh_case(&dev, ty, n);
                tally.check(&dev, &format!("eigh/{ty}/{n}"), r);
            }
        }
    }
    tally.finish();
}

fn linalg_err(e: Option<Error>, op: &str, reason: &str) -> R<()> {
    check(
        matches!(&e, Some(Error::LinAlgError { op: o, reason: r }) if o == op && r == reason),
        || format!("{op}: want LinAlgError {reason:?}, got {e:?}"),
    )
}

/// Singular and indefinite matrices in a batch, pivoting on a zero leading entry, an empty
/// batch, 1x1 matrices, integer input (float64), NaN input.
/// On wgpu with the native factorizations forced on (llvmpipe's default is the host hybrid).
#[test]
fn small_edge_cases() {
    cupy_wgpu::with_native_linalg(cupy_wgpu::NativeLinalg::On, small_edge_cases_body);
}

fn small_edge_cases_body() {
    let mut tally = common::Tally::new("small_edge_cases");
    for dev in common::backends() {
        let r = on(|| -> R<()> {
            let f = DType::Float64;
            // Three matrices: a permutation (pivoting needed), a singular one, a regular one.
            let v = [0.0, 1.0, 1.0, 0.0, 1.0, 2.0, 2.0, 4.0, 2.0, 1.0, 1.0, 3.0];
            let a = upload(&dev, &v, &[3, 2, 2], f)?;
            linalg_err(cupy::linalg::inv(&a).err(), "inv", "Singular matrix")?;
            let b = upload(&dev, &[1.0; 6], &[3, 2, 1], f)?;
            linalg_err(
                cupy::linalg::solve(&a, &b).err(),
                "solve",
                "Singular matrix",
            )?;
            let det = host(&cupy::linalg::det(&a)?)?;
            check(det == [-1.0, 0.0, 5.0], || format!("det {det:?}"))?;
            let (s, l) = cupy::linalg::slogdet(&a)?;
            let (s, l) = (host(&s)?, host(&l)?);
            check(
                s == [-1.0, 0.0, 1.0] && l[0] == 0.0 && l[1] == f64::NEG_INFINITY,
                || format!("slogdet {s:?} {l:?}"),
            )?;
            check((l[2] - 5f64.ln()).abs() < 1e-15, || {
                format!("log 5: {}", l[2])
            })?;
            let p = a.get(&cupy::s![0])?;
            let pi = host(&cupy::linalg::inv(&p)?)?;
            check(pi == [0.0, 1.0, 1.0, 0.0], || {
                format!("inv of a swap {pi:?}")
            })?;
            // A zero column: singular at the first pivot; det 0.
            let z = upload(
                &dev,
                &[0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 1.0],
                &[3, 3],
                f,
            )?;
            check(host(&cupy::linalg::det(&z)?)? == [0.0], || {
                "det of a zero column".into()
            })?;
            linalg_err(cupy::linalg::inv(&z).err(), "inv", "Singular matrix")?;
            // Cholesky: the second matrix is indefinite.
            let c = upload(
                &dev,
                &[4.0, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 1.0],
                &[2, 2, 2],
                f,
            )?;
            linalg_err(
                cupy::linalg::cholesky(&c).err(),
                "cholesky",
                "Matrix is not positive definite",
            )?;
            let l = host(&cupy::linalg::cholesky(&c.get(&cupy::s![0])?)?)?;
            check(l == [2.0, 0.0, 1.0, 2f64.sqrt()], || {
                format!("cholesky {l:?}")
            })?;
            // Empty batch.
            let e = Array::zeros_on(&dev, &[0, 3, 3], DType::Float32)?;
            check(cupy::linalg::inv(&e)?.shape() == [0, 3, 3], || {
                "inv of []".into()
            })?;
            let (w, v) = cupy::linalg::eigh(&e)?;
            check(w.shape() == [0, 3] && v.shape() == [0, 3, 3], || {
                "eigh of []".into()
            })?;
            check(cupy::linalg::det(&e)?.shape() == [0], || "det of []".into())?;
            // 1x1, integer input (computed in float64).
            let one = Array::from_slice_on(&dev, &[4i32, -2], &[2, 1, 1])?;
            let i1 = cupy::linalg::inv(&one)?;
            let hi1 = host(&i1)?;
            check(i1.dtype() == f && hi1 == [0.25, -0.5], || {
                format!("inv 1x1 {hi1:?}")
            })?;
            let (w, v) = cupy::linalg::eigh(&one)?;
            check(host(&w)? == [4.0, -2.0] && host(&v)? == [1.0, 1.0], || {
                "eigh 1x1".into()
            })?;
            check(host(&cupy::linalg::det(&one)?)? == [4.0, -2.0], || {
                "det 1x1".into()
            })?;
            let l1 = host(&cupy::linalg::cholesky(&one.get(&cupy::s![0])?)?)?;
            check(l1 == [2.0], || format!("cholesky 1x1 {l1:?}"))?;
            // Already diagonal (every rotation is the identity, 0/0 caught): sorted exactly,
            // V a permutation. Then a repeated eigenvalue: Q diag(2, 2, 5) Q^T.
            let d = upload(
                &dev,
                &[3.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0],
                &[3, 3],
                f,
            )?;
            let (w, v) = cupy::linalg::eigh(&d)?;
            let (w, v) = (host(&w)?, host(&v)?);
            check(w == [1.0, 2.0, 3.0], || format!("eigh(diag) w {w:?}"))?;
            check(v == [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], || {
                format!("eigh(diag) v {v:?}")
            })?;
            let (c, s) = (0.6f64, 0.8f64);
            let q = [c, -s, 0.0, s * c, c * c, -s, s * s, s * c, c];
            let qd: Vec<f64> = (0..9).map(|e| q[e] * [2.0, 2.0, 5.0][e % 3]).collect();
            let m = mm(&qd, &t(&q, 3), 3, 3, 3);
            for ty in [DType::Float32, f] {
                let w = host(&cupy::linalg::eigvalsh(&upload(&dev, &m, &[3, 3], ty)?)?)?;
                let tol = TOL_FACTOR * 3.0 * eps(ty) * 5.0;
                check(
                    (w[0] - 2.0).abs() < tol
                        && (w[1] - 2.0).abs() < tol
                        && (w[2] - 5.0).abs() < tol,
                    || format!("eigvalsh of a repeated pair ({ty}) {w:?}"),
                )?;
            }
            // NaN input: no hang; NaN results as the backends' linalg gives them.
            let nan = upload(
                &dev,
                &[f64::NAN, 1.0, 1.0, 2.0, 1.0, 0.0, 0.0, 1.0],
                &[2, 2, 2],
                f,
            )?;
            let w = host(&cupy::linalg::eigvalsh(&nan)?)?;
            check(
                w[..2].iter().all(|x| x.is_nan()) && w[2..] == [1.0, 1.0],
                || format!("eigvalsh(NaN) {w:?}"),
            )?;
            let (_, v) = cupy::linalg::eigh(&nan)?;
            let v = host(&v)?;
            check(v[..4].iter().all(|x| x.is_nan()), || {
                format!("eigh(NaN) v {v:?}")
            })?;
            let inv = host(&cupy::linalg::inv(&nan)?)?;
            check(
                inv[..4].iter().any(|x| x.is_nan()) && inv[4..] == [1.0, 0.0, 0.0, 1.0],
                || format!("inv(NaN) {inv:?}"),
            )?;
            let d = host(&cupy::linalg::det(&nan)?)?;
            check(d[0].is_nan() && d[1] == 1.0, || format!("det(NaN) {d:?}"))?;
            linalg_err(
                cupy::linalg::cholesky(&nan).err(),
                "cholesky",
                "Matrix is not positive definite",
            )?;
            Ok(())
        });
        tally.check(&dev, "edge cases", r);
    }
    tally.finish();
}

/// Every small-matrix kernel, emitted as HIP C++, compiles with hipRTC (gfx90a); the CUDA
/// flavour is emitted too. `CUPY_REQUIRE_HIP=1` turns a missing hipRTC into a failure.
#[test]
fn small_kernels_compile_with_hiprtc() {
    common::elementwise_kernels_compile_with_hiprtc(
        "linalg_small_kernels",
        &cupy::linalg::small::small_kernels(),
    );
}
