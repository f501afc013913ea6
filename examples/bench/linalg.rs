//! The linalg cases of `bench/cupy_baseline.py` (issue 13).

use super::{rand_f32, Bench};
use cupy as cp;
use cupy::{Array, DType, Device};

/// A random `[batch.., n, n]` float64 matrix stack (float32 when `f32`), made comfortably
/// non-singular by `n` on the diagonal.
fn rand_mats(dev: &Device, batch: usize, n: usize, f32: bool, seed: u32) -> cp::Result<Array> {
    let a =
        rand_f32(dev, batch * n * n, seed)?.reshape(&[batch as isize, n as isize, n as isize])?;
    let dt = if f32 { DType::Float32 } else { DType::Float64 };
    let e = Array::eye_on(dev, n, None, 0, dt)?;
    let a = cp::add(&a.astype(dt)?, &cp::multiply(&e, n as f64)?)?;
    if batch == 1 {
        a.reshape(&[n as isize, n as isize])
    } else {
        Ok(a)
    }
}

/// `randn(n, n) @ randn(n, n)` in float64, the matrix `bench/cupy_baseline.py` and
/// `peers_baseline.py` give `eig`/`eigh`/`svd` (their QR sweeps depend on the spectrum, so a
/// different kind of matrix would not compare like with like).
fn normal_product(dev: &Device, n: usize, seed: u64) -> cp::Result<Array> {
    let mut rng = cp::random::default_rng(seed);
    let mut normal = || -> cp::Result<Array> {
        let out = Array::empty_on(dev, &[n, n], DType::Float64)?;
        rng.standard_normal_with(
            &[],
            cp::random::Sample {
                dtype: Some(DType::Float64),
                out: Some(out),
            },
        )
    };
    let (a, b) = (normal()?, normal()?);
    cp::matmul(&a, &b)
}

/// The linalg cases of `bench/cupy_baseline.py` (issue 13): inv/solve f64 at 4096 and 10000,
/// inv/solve/cholesky/qr f32 at 4096 (`--quick`: 256 and 512), eig/eigh/svd f64 at 1024 and
/// 2048, and 100,000 batched 3x3 float32 inv/solve/eigh.
pub(crate) fn linalg_cases(b: &Bench, dev: &Device, quick: bool) {
    use cp::linalg as la;
    let big: &[usize] = if quick { &[256] } else { &[4096, 10000] };
    for &n in big {
        let case = format!("inv_f64_{n}");
        if b.want(&case) {
            let r = rand_mats(dev, 1, n, false, 21)
                .and_then(|a| b.time(1, 3, || la::inv(&a).map(|_| ())));
            b.report(&case, r, |ms| {
                vec![("GFLOPs", 2.0 * (n as f64).powi(3) / ms / 1e6)]
            });
        }
        let case = format!("solve_f64_{n}_k16");
        if b.want(&case) {
            let r = (|| {
                let a = rand_mats(dev, 1, n, false, 22)?;
                let rhs = rand_f32(dev, n * 16, 23)?
                    .reshape(&[n as isize, 16])?
                    .astype(DType::Float64)?;
                b.time(1, 3, || la::solve(&a, &rhs).map(|_| ()))
            })();
            b.report(&case, r, |_| vec![]);
        }
    }
    // float32 factorizations (issue 13: wgpu's native kernels against cuda): inv, solve with 16
    // right-hand sides, cholesky of A A^T, reduced qr; operands made before the timing.
    let f32s: &[usize] = if quick { &[256, 512] } else { &[4096] };
    for &n in f32s {
        let run = |case: String,
                   prep: &dyn Fn() -> cp::Result<Vec<Array>>,
                   f: &dyn Fn(&[Array]) -> cp::Result<()>| {
            if b.want(&case) {
                let r = prep().and_then(|ops| b.time(1, 3, || f(&ops)));
                b.report(&case, r, |_| vec![]);
            }
        };
        let a = || rand_mats(dev, 1, n, true, 31);
        run(format!("inv_f32_{n}"), &|| Ok(vec![a()?]), &|o| {
            la::inv(&o[0]).map(|_| ())
        });
        run(
            format!("solve_f32_{n}_k16"),
            &|| {
                Ok(vec![
                    a()?,
                    rand_f32(dev, n * 16, 32)?.reshape(&[n as isize, 16])?,
                ])
            },
            &|o| la::solve(&o[0], &o[1]).map(|_| ()),
        );
        run(
            format!("cholesky_f32_{n}"),
            &|| {
                let a = a()?;
                Ok(vec![cp::matmul(&a, &a.t())?])
            },
            &|o| la::cholesky(&o[0]).map(|_| ()),
        );
        run(format!("qr_f32_{n}"), &|| Ok(vec![a()?]), &|o| {
            la::qr(&o[0]).map(|_| ())
        });
    }
    let mid: &[usize] = if quick { &[128] } else { &[1024, 2048] };
    for &n in mid {
        let a = normal_product(dev, n, 24);
        let case = format!("eig_f64_{n}");
        if b.want(&case) {
            let r = a
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|a| b.time(1, 3, || la::eig(a).map(|_| ())));
            b.report(&case, r, |_| vec![]);
        }
        let case = format!("eigh_f64_{n}");
        if b.want(&case) {
            let r = a.as_ref().map_err(Clone::clone).and_then(|a| {
                let s = cp::add(a, &a.t())?;
                b.time(1, 3, || la::eigh(&s).map(|_| ()))
            });
            b.report(&case, r, |_| vec![]);
        }
        let case = format!("svd_f64_{n}");
        if b.want(&case) {
            let r = a
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|a| b.time(1, 3, || la::svd(a).map(|_| ())));
            b.report(&case, r, |_| vec![]);
        }
    }
    let batch = if quick { 1000 } else { 100_000 };
    let case = format!("inv_f32_{batch}x3x3");
    if b.want(&case) {
        let r = rand_mats(dev, batch, 3, true, 25)
            .and_then(|a| b.time(2, 10, || la::inv(&a).map(|_| ())));
        b.report(&case, r, |_| vec![]);
    }
    let case = format!("solve_f32_{batch}x3x3");
    if b.want(&case) {
        let r = (|| {
            let a = rand_mats(dev, batch, 3, true, 26)?;
            let rhs = rand_f32(dev, batch * 3, 27)?.reshape(&[batch as isize, 3, 1])?;
            b.time(2, 10, || la::solve(&a, &rhs).map(|_| ()))
        })();
        b.report(&case, r, |_| vec![]);
    }
    let case = format!("eigh_f32_{batch}x3x3");
    if b.want(&case) {
        let r = (|| {
            let a = rand_mats(dev, batch, 3, true, 28)?;
            let s = cp::add(&a, &a.swapaxes(-1, -2)?)?;
            b.time(2, 10, || la::eigh(&s).map(|_| ()))
        })();
        b.report(&case, r, |_| vec![]);
    }
}
