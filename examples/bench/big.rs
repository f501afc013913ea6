//! `--only big_`: float32 add, sum and sort of a 3 GiB array (past the 2 GiB storage binding of
//! an H200's Vulkan driver on wgpu), each checked against host values; `--big-gib G` sets the
//! size (default 3).

use super::{rand_f32, Bench};
use cupy as cp;
use cupy::{Array, DType, Device};

/// The big-array cases (see the module docs).
pub(crate) fn cases(b: &Bench, dev: &Device, gib: f64) {
    let n = (gib * (1u64 << 30) as f64 / 4.0) as usize;
    let sfx = format!("{gib}gib");
    let made = rand_f32(dev, n, 1).and_then(|x| Ok((x, rand_f32(dev, n, 2)?)));
    let (x, y) = match made {
        Ok(v) => v,
        Err(e) => return b.report(&format!("big_add_f32_{sfx}"), Err(e), |_| vec![]),
    };
    let host = |a: &Array, i: usize| -> cp::Result<f32> {
        Ok(a.slice(&cp::s![i as isize..(i + 1) as isize])?
            .to_vec::<f32>()?[0])
    };
    let case = format!("big_add_f32_{sfx}");
    if b.want(&case) {
        let z = Array::empty_on(dev, &[n], DType::Float32);
        let r = z.and_then(|z| {
            let ms = b.time(1, 5, || {
                cp::apply_out(&cp::ufuncs::add, &[(&x).into(), (&y).into()], &z).map(|_| ())
            })?;
            // Spot checks on both sides of the 2 GiB binding and at the end.
            for i in [0, (1usize << 29) - 1, 1 << 29, n - 1]
                .into_iter()
                .filter(|&i| i < n)
            {
                let (a, bb, c) = (host(&x, i)?, host(&y, i)?, host(&z, i)?);
                if c != a + bb {
                    return Err(cp::Error::invalid(
                        "big_add",
                        format!("z[{i}] = {c}, not {}", a + bb),
                    ));
                }
            }
            Ok(ms)
        });
        b.report(&case, r, |ms| vec![("GBps", 12.0 * n as f64 / ms / 1e6)]);
    }
    let case = format!("big_sum_f32_{sfx}");
    if b.want(&case) {
        let mut s = 0.0f32;
        let r = b
            .time(1, 5, || {
                s = x.sum()?.to_vec::<f32>()?[0];
                Ok(())
            })
            .and_then(|ms| {
                // Uniform [0, 1) values: the sum is n / 2 within a few parts in 10^4.
                let rel = (s as f64 / (n as f64 / 2.0) - 1.0).abs();
                if rel > 1e-2 {
                    return Err(cp::Error::invalid("big_sum", format!("sum {s} for n {n}")));
                }
                Ok(ms)
            });
        b.report(&case, r, |ms| vec![("GBps", 4.0 * n as f64 / ms / 1e6)]);
    }
    let case = format!("big_sort_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(0, 1, || cp::sort(&y).map(|_| ())).and_then(|ms| {
            let s = cp::sort(&y)?;
            let (lo, mid, hi) = (host(&s, 0)?, host(&s, n / 2)?, host(&s, n - 1)?);
            let ok = lo <= mid && mid <= hi && lo < 1e-3 && hi > 0.999 && (mid - 0.5).abs() < 1e-2;
            if !ok {
                return Err(cp::Error::invalid(
                    "big_sort",
                    format!("sorted ends {lo} {mid} {hi}"),
                ));
            }
            Ok(ms)
        });
        b.report(&case, r, |ms| vec![("Mkeys_per_s", n as f64 / ms / 1e3)]);
    }
}
