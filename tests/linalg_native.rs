//! The backends' own `linalg` (on wgpu: the native kernels of `backends/wgpu/src/linalg/`,
//! checked to be taken with `cupy_wgpu::native_linalg_calls`) against the cpu backend's faer,
//! across block boundaries (n = 1, 2, 3, 17, 64, 65, 130; the blocks are 32 columns, 16 for QR),
//! float32 and float64, batched: `solve` and `inv` by comparison and residual, `det`/`slogdet`
//! by comparison, `cholesky` (both triangles) by comparison, `qr` raw by comparison with the cpu
//! backend's LAPACK-convention `geqr2` (same signs, same reflectors), reduced and complete by
//! reconstruction, orthogonality and `R` against raw's. Also singular and indefinite matrices
//! inside a batch (NumPy's batched `LinAlgError`), 0x0 matrices and empty batches, and tall
//! and wide QR. Sizes 1..4 run with the small-matrix kernels off, so they reach `linalg` too.

use crate::common::{self, CaseError};
use cupy::linalg as la;
use cupy::linalg::small::{with_small_kernels, SmallMode};
use cupy::{Array, BackendKind, DType, Device, Error};
use cupy_wgpu::{with_native_linalg, NativeLinalg};

type R<T> = Result<T, CaseError>;
const TOL_FACTOR: f64 = 64.0;

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

/// `[batch, m, n]` random matrices; `diag` added on the diagonal (well conditioned).
fn mats(batch: usize, m: usize, n: usize, diag: f64, seed: u64) -> Vec<f64> {
    let mut v = values(batch * m * n, seed);
    for b in 0..batch {
        for i in 0..m.min(n) {
            v[b * m * n + i * n + i] += diag;
        }
    }
    v
}

/// `[batch, n, n]` symmetric positive definite matrices `G G^T + n I`.
fn spd(batch: usize, n: usize, seed: u64) -> Vec<f64> {
    let g = values(batch * n * n, seed);
    let mut v = vec![0.0; batch * n * n];
    for b in 0..batch {
        let o = b * n * n;
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n).map(|p| g[o + i * n + p] * g[o + j * n + p]).sum();
                v[o + i * n + j] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
    }
    v
}

fn host(a: &Array) -> R<Vec<f64>> {
    Ok(a.astype(DType::Float64)?.to_vec::<f64>()?)
}

fn rel(a: &[f64], b: &[f64]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
    let s: f64 = b.iter().map(|y| y * y).sum::<f64>();
    (d / s.max(1e-300)).sqrt()
}

fn cpu() -> Device {
    Device::get(BackendKind::Cpu, 0).expect("the cpu backend opens")
}

/// Runs `f` with the small-matrix kernels off (so n <= 4 reaches `Backend::linalg`) and the
/// native wgpu factorizations forced on (llvmpipe's default is the host hybrid) and, on wgpu,
/// checks that it made at least `calls` native calls (unless `CUPY_WGPU_LINALG=0`).
fn native<T>(dev: &Device, calls: u64, f: impl FnOnce() -> R<T>) -> R<T> {
    let before = cupy_wgpu::native_linalg_calls();
    let (r, expected) = with_native_linalg(NativeLinalg::On, || {
        (
            with_small_kernels(SmallMode::Off, f),
            cupy_wgpu::native_linalg_expected(dev.info().software),
        )
    });
    let r = r?;
    if common::is_wgpu(dev) && expected {
        let made = cupy_wgpu::native_linalg_calls() - before;
        check(made >= calls, || {
            format!("{made} native wgpu linalg calls, expected {calls} (host hybrid taken?)")
        })?;
    }
    Ok(r)
}

const SIZES: [usize; 7] = [1, 2, 3, 17, 64, 65, 130];
const DTYPES: [DType; 2] = [DType::Float32, DType::Float64];

fn batch_of(n: usize) -> usize {
    if n <= 17 {
        3
    } else if n <= 65 {
        2
    } else {
        1
    }
}

fn lu_case(dev: &Device, t: DType, n: usize) -> R<()> {
    let (cpu, b) = (cpu(), batch_of(n));
    let tol = TOL_FACTOR * n as f64 * eps(t);
    let av = mats(b, n, n, 2.0, n as u64);
    let bv = values(b * n * 3, 99);
    let a = Array::from_slice_on(dev, &av, &[b, n, n])?.astype(t)?;
    let rhs = Array::from_slice_on(dev, &bv, &[b, n, 3])?.astype(t)?;
    let ac = Array::from_slice_on(&cpu, &av, &[b, n, n])?.astype(t)?;
    let rc = Array::from_slice_on(&cpu, &bv, &[b, n, 3])?.astype(t)?;
    let (x, xi, d, (sg, la_)) = native(dev, 4, || {
        Ok((
            host(&la::solve(&a, &rhs)?)?,
            host(&la::inv(&a)?)?,
            host(&la::det(&a)?)?,
            {
                let (s, l) = la::slogdet(&a)?;
                (host(&s)?, host(&l)?)
            },
        ))
    })?;
    let xw = host(&la::solve(&ac, &rc)?)?;
    let iw = host(&la::inv(&ac)?)?;
    let dw = host(&la::det(&ac)?)?;
    let (sw, lw) = la::slogdet(&ac)?;
    let (sw, lw) = (host(&sw)?, host(&lw)?);
    let e = rel(&x, &xw);
    check(e <= tol, || {
        format!("solve: relative difference {e:e} > {tol:e}")
    })?;
    let e = rel(&xi, &iw);
    check(e <= tol, || {
        format!("inv: relative difference {e:e} > {tol:e}")
    })?;
    for i in 0..b {
        let e = ((d[i] - dw[i]) / dw[i]).abs();
        check(e <= tol || (dw[i].is_infinite() && d[i] == dw[i]), || {
            format!("det[{i}] {} vs {}", d[i], dw[i])
        })?;
        check(sg[i] == sw[i], || {
            format!("slogdet sign[{i}] {} vs {}", sg[i], sw[i])
        })?;
        let e = (la_[i] - lw[i]).abs() / lw[i].abs().max(1.0);
        check(e <= tol, || {
            format!("logabsdet[{i}] {} vs {}", la_[i], lw[i])
        })?;
    }
    Ok(())
}

fn chol_case(dev: &Device, t: DType, n: usize) -> R<()> {
    let (cpu, b) = (cpu(), batch_of(n));
    let tol = TOL_FACTOR * n as f64 * eps(t);
    let av = spd(b, n, 5 + n as u64);
    let a = Array::from_slice_on(dev, &av, &[b, n, n])?.astype(t)?;
    let ac = Array::from_slice_on(&cpu, &av, &[b, n, n])?.astype(t)?;
    for upper in [false, true] {
        let l = native(dev, 1, || host(&la::cholesky_with(&a, upper)?))?;
        let lw = host(&la::cholesky_with(&ac, upper)?)?;
        let e = rel(&l, &lw);
        check(e <= tol, || {
            format!("cholesky(upper={upper}): {e:e} > {tol:e}")
        })?;
        // The other triangle is exactly zero.
        for (i, v) in l.iter().enumerate() {
            let (r, c) = ((i / n) % n, i % n);
            if (upper && c < r) || (!upper && c > r) {
                check(*v == 0.0, || {
                    format!("cholesky(upper={upper})[{r},{c}] = {v}")
                })?;
            }
        }
    }
    Ok(())
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

fn qr_case(dev: &Device, t: DType, b: usize, m: usize, n: usize) -> R<()> {
    let cpu = cpu();
    let k = m.min(n);
    let tol = TOL_FACTOR * m.max(n) as f64 * eps(t);
    let av = mats(b, m, n, 0.0, 3 + m as u64 * 7 + n as u64);
    let a = Array::from_slice_on(dev, &av, &[b, m, n])?.astype(t)?;
    let ac = Array::from_slice_on(&cpu, &av, &[b, m, n])?.astype(t)?;
    let (raw, red, com) = native(dev, 3, || {
        let raw = la::qr_mode(&a, "raw")?;
        let red = la::qr_mode(&a, "reduced")?;
        let com = la::qr_mode(&a, "complete")?;
        let h = |v: &Vec<Array>| -> R<(Vec<f64>, Vec<f64>)> { Ok((host(&v[0])?, host(&v[1])?)) };
        Ok((h(&raw)?, h(&red)?, h(&com)?))
    })?;
    let rw = la::qr_mode(&ac, "raw")?;
    let (hw, tw) = (host(&rw[0])?, host(&rw[1])?);
    let e = rel(&raw.0, &hw);
    check(e <= tol, || format!("qr raw h: {e:e} > {tol:e}"))?;
    let e = rel(&raw.1, &tw);
    check(e <= tol.max(1e-300) || tw.iter().all(|&x| x == 0.0), || {
        format!("qr raw tau: {e:e} > {tol:e}")
    })?;
    for (mode, (q, r), kq) in [("reduced", &red, k), ("complete", &com, m)] {
        for bi in 0..b {
            let ab = &av[bi * m * n..(bi + 1) * m * n];
            let qb = &q[bi * m * kq..(bi + 1) * m * kq];
            let rb = &r[bi * kq * n..(bi + 1) * kq * n];
            let e = rel(&mm(qb, rb, m, kq, n), ab);
            check(e <= tol, || format!("{mode}: ||A - QR||/||A|| = {e:e}"))?;
            let mut qt = vec![0.0; m * kq];
            for i in 0..m {
                for j in 0..kq {
                    qt[j * m + i] = qb[i * kq + j];
                }
            }
            let g = mm(&qt, qb, kq, m, kq);
            let mut eye = vec![0.0; kq * kq];
            for i in 0..kq {
                eye[i * kq + i] = 1.0;
            }
            let e = rel(&g, &eye) * (kq as f64).sqrt();
            check(e <= tol, || format!("{mode}: ||Q^T Q - I|| = {e:e}"))?;
            // R is raw's upper trapezoid (h is column-major: R[i, j] = h[j, i]).
            for i in 0..kq {
                for j in 0..n {
                    let want = if j >= i && i < k {
                        hw[bi * m * n + j * m + i]
                    } else {
                        0.0
                    };
                    let got = rb[i * n + j];
                    check((got - want).abs() <= tol * (1.0 + want.abs()) * 4.0, || {
                        format!("{mode}: R[{i},{j}] = {got}, raw's {want}")
                    })?;
                }
            }
        }
    }
    Ok(())
}

#[test]
fn native_factorizations_match_cpu() {
    let mut t = common::Tally::new("native_factorizations_match_cpu");
    for dev in common::backends() {
        for dt in DTYPES {
            for n in SIZES {
                t.check(&dev, &format!("lu/{dt}/{n}"), lu_case(&dev, dt, n));
                t.check(&dev, &format!("cholesky/{dt}/{n}"), chol_case(&dev, dt, n));
                t.check(
                    &dev,
                    &format!("qr/{dt}/{n}"),
                    qr_case(&dev, dt, batch_of(n), n, n),
                );
            }
            for (b, m, n) in [
                (2, 40, 17),
                (2, 17, 40),
                (1, 130, 33),
                (1, 33, 70),
                (3, 5, 1),
                (2, 1, 4),
            ] {
                t.check(
                    &dev,
                    &format!("qr/{dt}/{b}x{m}x{n}"),
                    qr_case(&dev, dt, b, m, n),
                );
            }
        }
    }
    t.finish();
}

/// A singular matrix (or an indefinite one for cholesky) inside a batch fails the call with
/// NumPy's message; det of a singular matrix is 0; NaN outputs never hang.
#[test]
fn native_failures() {
    let mut t = common::Tally::new("native_failures");
    for dev in common::backends() {
        for dt in DTYPES {
            let r = (|| -> R<()> {
                let n = 40;
                let mut av = mats(3, n, n, 2.0, 11);
                // Matrix 1: column 35 zero (U[35, 35] is exactly zero in any elimination order).
                for i in 0..n {
                    av[n * n + i * n + 35] = 0.0;
                }
                let a = Array::from_slice_on(&dev, &av, &[3, n, n])?.astype(dt)?;
                let e = native(&dev, 0, || Ok(la::inv(&a)))?;
                check(
                    matches!(&e, Err(Error::LinAlgError { reason, .. }) if reason == "Singular matrix"),
                    || format!("inv of a singular batch: {e:?}"),
                )?;
                let rhs = Array::ones_on(&dev, &[3, n, 2], dt)?;
                let e = native(&dev, 0, || Ok(la::solve(&a, &rhs)))?;
                check(matches!(e, Err(Error::LinAlgError { .. })), || {
                    format!("solve of a singular batch: {e:?}")
                })?;
                let d = native(&dev, 1, || host(&la::det(&a)?))?;
                check(d[1] == 0.0 && d[0] != 0.0, || format!("det {d:?}"))?;
                // Not positive definite: a negative diagonal entry past the first block.
                let mut sv = spd(2, n, 3);
                sv[n * n + 35 * n + 35] = -1e3;
                let s = Array::from_slice_on(&dev, &sv, &[2, n, n])?.astype(dt)?;
                let e = native(&dev, 0, || Ok(la::cholesky(&s)))?;
                check(
                    matches!(&e, Err(Error::LinAlgError { reason, .. })
                        if reason == "Matrix is not positive definite"),
                    || format!("cholesky of an indefinite batch: {e:?}"),
                )?;
                Ok(())
            })();
            t.check(&dev, &format!("singular/{dt}"), r);
            let r = (|| -> R<()> {
                // 0x0 matrices and empty batches.
                for shape in [&[0usize, 0][..], &[0, 5, 5], &[2, 0, 0]] {
                    let a = Array::zeros_on(&dev, shape, dt)?;
                    let x = la::inv(&a)?;
                    check(x.shape() == shape, || format!("inv shape {:?}", x.shape()))?;
                    let l = la::cholesky(&a)?;
                    check(l.shape() == shape, || {
                        format!("cholesky shape {:?}", l.shape())
                    })?;
                    let d = la::det(&a)?;
                    let want = if shape.len() == 3 && shape[0] == 2 {
                        vec![1.0, 1.0]
                    } else if shape.len() == 2 {
                        vec![1.0]
                    } else {
                        vec![]
                    };
                    let got = host(&d)?;
                    check(got == want, || format!("det of {shape:?}: {got:?}"))?;
                }
                let a = Array::zeros_on(&dev, &[0, 4, 3], dt)?;
                let q = la::qr_mode(&a, "complete")?;
                check(
                    q[0].shape() == [0, 4, 4] && q[1].shape() == [0, 4, 3],
                    || {
                        format!(
                            "qr of an empty batch: {:?} {:?}",
                            q[0].shape(),
                            q[1].shape()
                        )
                    },
                )?;
                let a = Array::zeros_on(&dev, &[4, 0], dt)?;
                let q = native(&dev, 0, || Ok(la::qr_mode(&a, "complete")?))?;
                let qh = host(&q[0])?;
                check(
                    q[0].shape() == [4, 4]
                        && qh
                            .iter()
                            .enumerate()
                            .all(|(i, &v)| v == if i % 5 == 0 { 1.0 } else { 0.0 }),
                    || format!("qr of 4x0: q {qh:?}"),
                )?;
                Ok(())
            })();
            t.check(&dev, &format!("empty/{dt}"), r);
            // Past llvmpipe's loop budget the call goes to the host hybrid (nothing queued).
            if common::is_wgpu(&dev) && dev.info().software && dt == DType::Float32 {
                let r = (|| -> R<()> {
                    let (m, n) = (2400, 4);
                    let av = mats(1, m, n, 0.0, 17);
                    let a = Array::from_slice_on(&dev, &av, &[m, n])?.astype(dt)?;
                    let ac = Array::from_slice_on(&cpu(), &av, &[m, n])?.astype(dt)?;
                    let before = cupy_wgpu::native_linalg_calls();
                    let tau = with_native_linalg(NativeLinalg::On, || la::qr_mode(&a, "raw"))?;
                    let made = cupy_wgpu::native_linalg_calls() - before;
                    check(made == 0, || {
                        format!("{made} native calls past the loop budget")
                    })?;
                    let (got, want) = (host(&tau[1])?, host(&la::qr_mode(&ac, "raw")?[1])?);
                    check(rel(&got, &want) <= 1e-6, || {
                        format!("tau {got:?} vs {want:?}")
                    })
                })();
                t.check(&dev, "loop_budget_fallback", r);
            }
        }
    }
    t.finish();
}
