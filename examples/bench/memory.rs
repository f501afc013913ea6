//! Memory cases (issue 16): `h2d_pinned_*` / `d2h_pinned_*`, copies between a device array and
//! a pinned host array on the current stream (`a.set(pinned)` / `a.get(out=pinned)` in CuPy),
//! and `alloc_free_f32_1MiB`, the pool's host time for one 1 MiB allocation and its drop.

use super::Bench;
use cupy as cp;
use cupy::{Array, DType, Device};
use std::time::Instant;

/// The memory cases for `n` float32 elements (see the module docs).
pub(crate) fn cases(b: &Bench, dev: &Device, n: usize, quick: bool) {
    let case = if quick {
        "h2d_pinned_4MiB"
    } else {
        "h2d_pinned_1GiB"
    };
    let gb = |ms: f64| vec![("GBps", 4.0 * n as f64 / ms / 1e6)];
    if b.want(case) || b.want(&case.replace("h2d", "d2h")) {
        let r = (|| {
            let mut p = cp::empty_pinned(&[n], DType::Float32)?;
            p.as_mut_slice::<f32>()?
                .iter_mut()
                .enumerate()
                .for_each(|(i, v)| *v = i as f32);
            let d = Array::empty_on(dev, &[n], DType::Float32)?;
            let up = b.time(1, 5, || d.set_from_pinned(&p))?;
            let down = b.time(1, 5, || d.get_into_pinned(&mut p))?;
            Ok::<_, cp::Error>((up, down))
        })();
        let (up, down) = match r {
            Ok((u, d)) => (Ok(u), Ok(d)),
            Err(e) => (Err(e.clone()), Err(e)),
        };
        b.report(case, up, gb);
        b.report(&case.replace("h2d", "d2h"), down, gb);
    }

    if b.want("alloc_free_f32_1MiB") {
        b.clock.set("host");
        // Pool latency: 10,000 allocations of 1 MiB, each dropped at once (host time per pair).
        let r = (|| {
            for _ in 0..100 {
                drop(Array::empty_on(dev, &[1 << 18], DType::Float32)?);
            }
            let t = Instant::now();
            for _ in 0..10_000 {
                drop(Array::empty_on(dev, &[1 << 18], DType::Float32)?);
            }
            Ok(t.elapsed().as_secs_f64() * 1e3)
        })();
        b.report("alloc_free_f32_1MiB", r, |ms| {
            vec![("us_per_op", ms * 1e3 / 10_000.0)]
        });
    }
}
