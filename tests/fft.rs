//! `cupy.fft` against NumPy 2.2.6 goldens (tests/golden/gen/fft.py, gen/fft_radix.py), round
//! trips, long rows at sampled bins, and errors.
//!
//! Tolerance (documented in docs/differences.md, FFT): every float output within
//! `2 * n * eps * rms + 1 ulp`, `rms` the root mean square of NumPy's result and
//! `n = 4 * (ceil(log2(N)) + 2)`, `N` the transformed size (an FFT's error is about
//! `eps * log2(N) * rms`: Parseval), `eps` of the result dtype.

use crate::common::{self, Golden, Operand};
use cupy::fft::{self, Fft, FftN, Norm};
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

fn opt_isize(v: &Value) -> Option<isize> {
    v.as_i64().map(|x| x as isize)
}

fn norm(k: &Value) -> Result<Norm> {
    match k["norm"].as_str() {
        Some(s) => s.parse(),
        None => Ok(Norm::Backward),
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    match op {
        "fftfreq" | "rfftfreq" => {
            let (n, d) = (k["n"].as_u64().unwrap() as usize, k["d"].as_f64().unwrap());
            return cupy::with_device(dev, || {
                if op == "fftfreq" {
                    fft::fftfreq(n, d)
                } else {
                    fft::rfftfreq(n, d)
                }
            });
        }
        _ => {}
    }
    let a = ops[0].array();
    let out = match k.get("out") {
        Some(o) => Some(Array::empty_on(
            dev,
            &common::usizes(&o["shape"]),
            common::dtype_of(&o["dtype"]),
        )?),
        None => None,
    };
    let one = Fft {
        n: opt_isize(&k["n"]),
        axis: opt_isize(&k["axis"]).unwrap_or(-1),
        norm: norm(k)?,
        out: out.as_ref(),
    };
    let nd = || -> Result<FftN<'_>> {
        Ok(FftN {
            s: k.get("s").map(common::isizes),
            axes: k.get("axes").map(common::isizes),
            norm: norm(k)?,
            out: None,
        })
    };
    match op {
        "fft" => fft::fft_with(a, one),
        "ifft" => fft::ifft_with(a, one),
        "rfft" => fft::rfft_with(a, one),
        "irfft" => fft::irfft_with(a, one),
        "hfft" => fft::hfft_with(a, one),
        "ihfft" => fft::ihfft_with(a, one),
        "fft2" => fft::fft2_with(a, nd()?),
        "ifft2" => fft::ifft2_with(a, nd()?),
        "fftn" => fft::fftn_with(a, nd()?),
        "ifftn" => fft::ifftn_with(a, nd()?),
        "rfft2" => fft::rfft2_with(a, nd()?),
        "irfft2" => fft::irfft2_with(a, nd()?),
        "rfftn" => fft::rfftn_with(a, nd()?),
        "irfftn" => fft::irfftn_with(a, nd()?),
        "fftshift" | "ifftshift" => {
            let inv = op == "ifftshift";
            match k.get("axes") {
                Some(ax) if inv => fft::ifftshift_axes(a, &common::isizes(ax)),
                Some(ax) => fft::fftshift_axes(a, &common::isizes(ax)),
                None if inv => fft::ifftshift(a),
                None => fft::fftshift(a),
            }
        }
        other => panic!("fft golden op {other}"),
    }
}

/// NumPy's exception for a case against our error variant.
pub(crate) fn error_matches(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }
        ),
        "TypeError" | "UFuncTypeError" => matches!(e, Error::TypeError { .. }),
        "AxisError" | "IndexError" => matches!(
            e,
            Error::AxisOutOfRange { .. } | Error::InvalidArgument { .. }
        ),
        _ => false,
    }
}

#[test]
fn fft_matches_numpy() {
    common::run_group(
        "fft",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        error_matches,
    );
}

/// The mixed-radix and Bluestein paths (tests/golden/gen/fft_radix.py): 2/3/5/7-smooth lengths
/// in one pass and several, batches, strided and transposed axes, fft2, real transforms, and
/// non-smooth (Bluestein) lengths, complex128 and complex64; the tolerance of the module docs.
#[test]
fn fft_radix_matches_numpy() {
    common::run_group(
        "fft_radix",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        error_matches,
    );
}

/// Rows too long for goldens (several passes, an odd pass count, Bluestein through a 7-smooth
/// inner length, a batch): 24 bins of each row against the DFT summed on the host in float64
/// (exponents `j k mod n` exact in integers), within the module's tolerance with
/// `rms = sqrt(sum |x|^2)` (Parseval: the spectrum's root mean square).
#[test]
fn fft_long_rows_at_sampled_bins() {
    use cupy::num_complex::Complex;
    let mut t = common::Tally::new("fft long rows");
    let cases: &[(usize, usize, DType)] = &[
        (1, 70000, DType::Complex64),
        (1, 177147, DType::Complex64),
        (1, 131073, DType::Complex64),
        (3, 25000, DType::Complex64),
        (1, 1 << 17, DType::Complex128),
        (2, 4 * 3 * 5 * 7 * 9 * 11, DType::Complex128),
    ];
    for dev in common::backends() {
        for &(batch, n, dt) in cases {
            let id = format!("{dt}/{batch}x{n}");
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let v = |i: usize| ((i * 7919 % 1009) as f64 / 504.5) - 1.0;
                let host: Vec<Complex<f64>> = (0..batch * n)
                    .map(|i| Complex::new(v(2 * i), v(2 * i + 1)))
                    .collect();
                let x = Array::from_slice_on(&dev, &host, &[batch, n])?.astype(dt)?;
                let y = fft::fft(&x)?
                    .astype(DType::Complex128)?
                    .to_vec::<Complex<f64>>()?;
                // The input as the device holds it (complex64 rounds it).
                let xs = x.astype(DType::Complex128)?.to_vec::<Complex<f64>>()?;
                let eps = if dt == DType::Complex64 {
                    f32::EPSILON as f64
                } else {
                    f64::EPSILON
                };
                let tol_n = 4.0 * ((n as f64).log2().ceil() + 2.0);
                for b in 0..batch {
                    let row = &xs[b * n..(b + 1) * n];
                    let rms = row.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
                    let bound = 2.0 * tol_n * eps * rms;
                    let bins = (0..24).map(|i| match i {
                        0 => 0,
                        1 => 1,
                        2 => n - 1,
                        3 => n / 2,
                        _ => (i * 104729 + b * 31) % n,
                    });
                    for k in bins {
                        let want: Complex<f64> = row
                            .iter()
                            .enumerate()
                            .map(|(j, &xj)| {
                                let q = (j as u128 * k as u128 % n as u128) as f64;
                                let a = -2.0 * std::f64::consts::PI * q / n as f64;
                                xj * Complex::new(a.cos(), a.sin())
                            })
                            .sum();
                        let err = (y[b * n + k] - want).norm();
                        if err.is_nan() || err > bound {
                            return Err(format!(
                                "row {b} bin {k}: |got - want| = {err:e} > {bound:e}"
                            )
                            .into());
                        }
                    }
                }
                Ok(())
            })();
            t.check(&dev, &id, r);
        }
    }
    t.finish();
}

/// `ifft(fft(x)) == x` and `irfft(rfft(x), n) == x` within float tolerance, at lengths with
/// every kind of factor (2^k, 3/5/7-smooth, primes, 2^k + 1), in both precisions.
#[test]
fn fft_round_trips() {
    let mut t = common::Tally::new("fft round trips");
    for dev in common::backends() {
        for &n in &[1usize, 2, 6, 60, 64, 97, 128, 257, 1009, 4097, 30030] {
            for dt in [DType::Complex64, DType::Complex128] {
                let id = format!("roundtrip/{dt}/n{n}");
                let r = (|| -> std::result::Result<(), common::CaseError> {
                    let v = |i: usize| ((i * 37 % 101) as f64 / 50.0) - 1.0;
                    let host: Vec<cupy::num_complex::Complex<f64>> = (0..n)
                        .map(|i| cupy::num_complex::Complex::new(v(2 * i), v(2 * i + 1)))
                        .collect();
                    let x = Array::from_slice_on(&dev, &host, &[n])?.astype(dt)?;
                    let y = fft::ifft(&fft::fft(&x)?)?;
                    let err = cupy::abs(&(&y - &x)?)?.max()?.item()?.to_f64();
                    let eps = if dt == DType::Complex64 {
                        1.2e-7
                    } else {
                        2.3e-16
                    };
                    let bound = 8.0 * eps * (n as f64).log2().max(1.0) * 2.0;
                    if err.is_nan() || err > bound {
                        return Err(format!("max |ifft(fft(x)) - x| = {err:e} > {bound:e}").into());
                    }
                    let xr = cupy::real(&x)?;
                    let yr = fft::irfft_with(
                        &fft::rfft(&xr)?,
                        Fft {
                            n: Some(n as isize),
                            ..Default::default()
                        },
                    )?;
                    let err = cupy::abs(&(&yr - &xr)?)?.max()?.item()?.to_f64();
                    if err.is_nan() || err > bound {
                        return Err(
                            format!("max |irfft(rfft(x)) - x| = {err:e} > {bound:e}").into()
                        );
                    }
                    Ok(())
                })();
                t.check(&dev, &id, r);
            }
        }
    }
    t.finish();
}

/// The results are ordinary arrays: `fft` of a transposed 2-D view along axis 0 is the
/// transpose of `fft` of the copy along axis 1, and `out=` receives the values.
#[test]
fn fft_axis_and_out() {
    let mut t = common::Tally::new("fft axis/out");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let host: Vec<f64> = (0..24).map(|i| (i as f64 * 0.37).sin()).collect();
            let a = Array::from_slice_on(&dev, &host, &[4, 6])?;
            let f0 = fft::fft_with(
                &a.t(),
                Fft {
                    axis: 0,
                    ..Default::default()
                },
            )?;
            let f1 = fft::fft(&a)?.t();
            let d = cupy::abs(&(&f0 - &f1)?)?.max()?.item()?.to_f64();
            if d > 1e-12 {
                return Err(format!("axis 0 of the transpose differs by {d:e}").into());
            }
            let out = Array::zeros_on(&dev, &[4, 6], DType::Complex128)?;
            let r = fft::fft_with(
                &a,
                Fft {
                    out: Some(&out),
                    ..Default::default()
                },
            )?;
            let d = cupy::abs(&(&out - &fft::fft(&a)?)?)?
                .max()?
                .item()?
                .to_f64();
            if d != 0.0 || !r.shares_memory_with(&out) {
                return Err(format!("out= differs by {d:e} or is not the result").into());
            }
            Ok(())
        })();
        t.check(&dev, "axis/out", r);
    }
    t.finish();
}

/// `cupy.fft.config.get_plan_cache()`: cuda/hip keep an LRU of vendor plans (16 by default,
/// resizable, clearable); cpu and wgpu report an empty cache of capacity 0.
#[test]
fn fft_plan_cache_control() {
    let mut t = common::Tally::new("fft plan cache");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let cache = fft::config::PlanCache::of(&dev);
            let x = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
            fft::fft(&x)?;
            fft::rfft(&x)?;
            let vendor = matches!(dev.kind(), cupy::BackendKind::Cuda | cupy::BackendKind::Hip);
            // Other tests share the device (and its cache), so only bounds are checked there.
            let (size, cur) = (cache.get_size()?, cache.get_curr_size()?);
            if vendor && (size != 16 || cur == 0 || cur > size) || !vendor && (size, cur) != (0, 0)
            {
                return Err(format!("capacity {size}, cached {cur}").into());
            }
            cache.set_size(1)?;
            let cur = cache.get_curr_size()?;
            cache.clear()?;
            cache.set_size(if vendor { 16 } else { 0 })?;
            if cur > 1 {
                return Err(format!("{cur} plans cached after set_size(1)").into());
            }
            let y = fft::fft(&x)?.to_vec::<cupy::num_complex::Complex<f64>>()?;
            if (y[0].re - 15.0).abs() > 1e-12 || y[0].im.abs() > 1e-12 {
                return Err(format!("fft(x)[0] = {}", y[0]).into());
            }
            Ok(())
        })();
        t.check(&dev, "plan cache", r);
    }
    t.finish();
}
