//! `fuse` (issue 19): shared trace values, several outputs, work after reductions in as few
//! kernels as the data dependencies allow, every ufunc of the table on symbols, typed scalar
//! constants, `dtype()` and `clear_cache`. Scenarios of CuPy's fusion tests, translated; the
//! expected values are computed here on the host (f64) or are exact.

use crate::userkernel::{ensure, on_each};
use cupy::math::ufunc::{apply_outs, Arg};
use cupy::{fuse, Array, DType, Operand, Reduce, Scalar, Sym};

fn close(got: &[f32], want: &[f64], rel: f64) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(&g, &w)| (g as f64 - w).abs() <= rel * w.abs().max(1e-6))
}

/// `s = s + s` 40 times: a linear trace (the values are shared), one kernel; reduced, the map
/// is too large to inline, so it is computed by a kernel of its own first.
#[test]
fn reused_values_share_nodes() {
    on_each("fuse_shared", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, -3.0], &[3])?;
        let double40 = |x: Sym| {
            let mut s = x;
            for _ in 0..40 {
                s = s + s;
            }
            s
        };
        let f = fuse(double40);
        let p = 2f32.powi(40);
        ensure(f.kernel_count(&[(&x).into()])? == 1, "one kernel")?;
        ensure(
            f.call(&[(&x).into()])?.to_vec::<f32>()? == [p, 2.0 * p, -3.0 * p],
            "s+s x40 values",
        )?;
        let g = fuse(move |x: Sym| double40(x).sum());
        ensure(g.kernel_count(&[(&x).into()])? == 2, "materialized map")?;
        ensure(
            g.call(&[(&x).into()])?.to_vec::<f32>()? == [0.0],
            "sum of s+s x40",
        )?;
        // A shorter one is inlined into the reduction: one kernel.
        let h = fuse(|x: Sym| {
            let mut s = x;
            for _ in 0..5 {
                s = s * s + s;
            }
            (s - s).sum()
        });
        ensure(h.kernel_count(&[(&x).into()])? == 1, "inlined map")?;
        ensure(
            h.call(&[(&x).into()])?.to_vec::<f32>()? == [0.0],
            "inlined value",
        )?;
        Ok(())
    });
}

/// Several outputs (a tuple), in one kernel when they share a shape.
#[test]
fn tuple_outputs() {
    on_each("fuse_tuple", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let y = Array::from_slice_on(dev, &[0.5f32, 4.0, -1.0], &[3])?;
        let f = fuse(|x: Sym, y: Sym| (x + y, x * y, (x - y).sum()));
        let args = [(&x).into(), (&y).into()];
        ensure(f.kernel_count(&args)? == 2, "elementwise + reduction")?;
        let out = f.call_multi(&args)?;
        ensure(out.len() == 3, "three outputs")?;
        ensure(out[0].to_vec::<f32>()? == [1.5, 6.0, 2.0], "x + y")?;
        ensure(out[1].to_vec::<f32>()? == [0.5, 8.0, -3.0], "x * y")?;
        ensure(
            out[2].to_vec::<f32>()? == [2.5] && out[2].ndim() == 0,
            "sum(x - y)",
        )?;
        let e = f.call(&args).unwrap_err();
        ensure(e.to_string().contains("call_multi"), format!("{e}"))?;
        // A Vec of outputs, and outputs of different shapes (two kernels).
        let g = fuse(|v: &[Sym]| vec![v[0] * 2.0, v[1].sum_axis(0) + 1.0]);
        let m = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        let out = g.call_multi(&[(&x).into(), (&m).into()])?;
        ensure(out[0].to_vec::<f32>()? == [2.0, 4.0, 6.0], "v0 * 2")?;
        ensure(out[1].to_vec::<f32>()? == [5.0, 7.0], "sum axis 0 + 1")?;
        Ok(())
    });
}

/// Work after a reduction: `x / sum(x)` in two kernels, `sqrt(sum(x) + 10)`, a batch-norm
/// (mean, var, normalize: three kernels, each depending on the one before).
#[test]
fn work_after_reductions() {
    on_each("fuse_after_reduction", |dev| {
        let xs = [1.0f32, 2.0, 3.0, 4.0];
        let x = Array::from_slice_on(dev, &xs, &[4])?;
        let f = fuse(|x: Sym| x / x.sum());
        ensure(
            f.kernel_count(&[(&x).into()])? <= 2,
            "x / sum(x) in <= 2 kernels",
        )?;
        ensure(
            f.call(&[(&x).into()])?.to_vec::<f32>()? == [0.1, 0.2, 0.3, 0.4],
            "x / sum(x)",
        )?;
        let g = fuse(|x: Sym| (x.sum() + 10.0).sqrt());
        // Vulkan bounds `sqrt` at 3 ulps, not correctly rounded (NVIDIA's driver uses it).
        let got = g.call(&[(&x).into()])?.to_vec::<f32>()?;
        let ulps = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).abs();
        ensure(got.len() == 1 && ulps(got[0], 20f32.sqrt()) <= 3, "sqrt")?;
        // Batch-norm over axis 0 of a (4, 3) float32 array.
        let (n, c) = (4usize, 3usize);
        let v: Vec<f32> = (0..n * c)
            .map(|i| ((i * 7) % 5) as f32 - 1.5 * i as f32)
            .collect();
        let a = Array::from_slice_on(dev, &v, &[n, c])?;
        let bn = fuse(|x: Sym| {
            let m = x.mean_axis(0);
            let d = x - m;
            let var = (d * d).mean_axis(0);
            d / (var + 1e-5).sqrt()
        });
        ensure(
            bn.kernel_count(&[(&a).into()])? == 3,
            "batch-norm in 3 kernels",
        )?;
        let mut want = vec![0.0f64; n * c];
        for j in 0..c {
            let col: Vec<f64> = (0..n).map(|i| v[i * c + j] as f64).collect();
            let m = col.iter().sum::<f64>() / n as f64;
            let var = col.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
            for i in 0..n {
                want[i * c + j] = (col[i] - m) / (var + 1e-5).sqrt();
            }
        }
        let got = bn.call(&[(&a).into()])?;
        ensure(got.shape() == [n, c], "batch-norm shape")?;
        ensure(
            close(&got.to_vec::<f32>()?, &want, 1e-5),
            "batch-norm values",
        )?;
        // keepdims and a reduction over axis 1 broadcast back.
        let rows = fuse(|x: Sym| {
            x - x.max_with(Reduce {
                axis: 1.into(),
                keepdims: true,
                ..Default::default()
            })
        });
        let got = rows.call(&[(&a).into()])?.to_vec::<f32>()?;
        for i in 0..n {
            let mx = (0..c).map(|j| v[i * c + j]).fold(f32::MIN, f32::max);
            for j in 0..c {
                ensure(
                    got[i * c + j] == v[i * c + j] - mx,
                    "x - max(x, 1, keepdims)",
                )?;
            }
        }
        // A reduction of a reduced value's use: sum(x - mean(x)) is 0.
        let z = fuse(|x: Sym| (x - x.mean()).sum());
        ensure(
            z.call(&[(&x).into()])?.to_vec::<f32>()? == [0.0],
            "sum(x - mean)",
        )?;
        // Reduced shapes that do not broadcast are NumPy's error.
        let bad = fuse(|x: Sym| x - x.sum_axis(1));
        ensure(bad.call(&[(&a).into()]).is_err(), "(4,3) - (4,) refused")?;
        Ok(())
    });
}

/// The reductions with their keywords: sum(axis, dtype), prod, max, min, nansum, nanprod, mean.
#[test]
fn fused_reductions() {
    on_each("fuse_reductions", |dev| {
        let v = [1.0f32, f32::NAN, 3.0, -2.0, 0.5, 4.0];
        let x = Array::from_slice_on(dev, &v, &[2, 3])?;
        let xi = Array::from_slice_on(dev, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        let arg = [(&x).into()];
        let one = |f: &dyn Fn(&[Arg<'_>]) -> cupy::Result<Array>| f(&arg);
        let r = one(&|a| fuse(|x: Sym| x.nansum_axis(0)).call(a))?;
        ensure(r.to_vec::<f32>()? == [-1.0, 0.5, 7.0], "nansum axis 0")?;
        let r = one(&|a| fuse(|x: Sym| x.nanprod_axis(1)).call(a))?;
        ensure(r.to_vec::<f32>()? == [3.0, -4.0], "nanprod axis 1")?;
        let r = one(&|a| fuse(|x: Sym| (x * 2.0).nanmean()).call(a))?;
        ensure(r.to_vec::<f32>()? == [2.6], "nanmean")?;
        let r = one(&|a| fuse(|x: Sym| x.max_axis(1)).call(a))?;
        ensure(r.to_vec::<f32>()?[0].is_nan(), "max propagates NaN")?;
        let r = one(&|a| fuse(|x: Sym| x.fmax(0.0).min_axis(0)).call(a))?;
        ensure(r.to_vec::<f32>()? == [0.0, 0.0, 3.0], "fmax then min")?;
        let ia = [(&xi).into()];
        let r = fuse(|x: Sym| x.prod()).call(&ia)?;
        ensure(
            r.dtype() == DType::Int64 && r.to_vec::<i64>()? == [720],
            "prod int64",
        )?;
        let r = fuse(|x: Sym| {
            x.sum_with(Reduce {
                axis: 1.into(),
                dtype: Some(DType::Float32),
                ..Default::default()
            })
        })
        .call(&ia)?;
        ensure(
            r.dtype() == DType::Float32 && r.to_vec::<f32>()? == [6.0, 15.0],
            "sum dtype",
        )?;
        let r = fuse(|x: Sym| x.mean_axis(0) * 2).call(&ia)?;
        ensure(r.to_vec::<f64>()? == [5.0, 7.0, 9.0], "mean then scale")?;
        Ok(())
    });
}

/// Every ufunc of the table traced on symbols gives what it gives on arrays (dtypes, values
/// and refusals), for float32 and int32 operands.
#[test]
fn every_ufunc_on_symbols() {
    on_each("fuse_every_ufunc", |dev| {
        let f = [
            Array::from_slice_on(dev, &[0.5f32, 1.5, -2.25, 3.0], &[4])?,
            Array::from_slice_on(dev, &[2.0f32, -0.75, 1.25, 0.5], &[4])?,
            Array::from_slice_on(dev, &[0.25f32, 0.5, 0.75, 1.0], &[4])?,
        ];
        let i = [
            Array::from_slice_on(dev, &[1i32, 2, -3, 4], &[4])?,
            Array::from_slice_on(dev, &[3i32, 1, 2, 5], &[4])?,
            Array::from_slice_on(dev, &[2i32, 2, 1, 3], &[4])?,
        ];
        let mut checked = 0;
        for u in cupy::math::all_ufuncs() {
            for ops in [&f, &i] {
                let args: Vec<Arg<'_>> = ops[..u.nin()].iter().map(Arg::Array).collect();
                let direct = apply_outs(u, &args, &vec![None; u.nout()]);
                let fused = fuse(move |v: &[Sym]| {
                    let o: Vec<Operand> = v.iter().map(|&s| s.into()).collect();
                    Sym::ufunc(u, &o)
                })
                .call_multi(&args);
                match (direct, fused) {
                    (Ok(d), Ok(g)) => {
                        ensure(d.len() == g.len(), format!("{}: outputs", u.name()))?;
                        for (a, b) in d.iter().zip(&g) {
                            let (sa, sb) = (a.to_scalars()?, b.to_scalars()?);
                            let same = a.dtype() == b.dtype()
                                && sa.iter().zip(&sb).all(|(p, q)| {
                                    let (p, q) = (p.to_f64(), q.to_f64());
                                    p == q
                                        || (p.is_nan() && q.is_nan())
                                        || (p - q).abs() <= 4.0 * f32::EPSILON as f64 * p.abs()
                                });
                            ensure(
                                same,
                                format!("{} on {}: {a:?} vs {b:?}", u.name(), a.dtype()),
                            )?;
                        }
                        checked += 1;
                    }
                    (Err(_), Err(_)) => {}
                    (Ok(_), Err(e)) => {
                        if !matches!(e, cupy::Error::DTypeNotSupported { .. }) {
                            return Err(format!("{}: fused failed: {e}", u.name()).into());
                        }
                    }
                    (Err(e), Ok(_)) => {
                        return Err(format!("{}: only fused works ({e})", u.name()).into())
                    }
                }
            }
        }
        ensure(checked > 100, format!("only {checked} ufunc loops checked"))?;
        Ok(())
    });
}

/// Typed scalar constants are strong (NumPy scalars), Rust numbers weak; `dtype()` on symbols;
/// `clear_cache` retraces.
#[test]
fn typed_constants_dtype_and_cache() {
    on_each("fuse_typed", |dev| {
        let h = Array::from_slice_on(dev, &[1i8, 2, 3], &[3])?;
        let f = fuse(|x: Sym| x + Scalar::Int16(300));
        let r = f.call(&[(&h).into()])?;
        ensure(
            r.dtype() == DType::Int16 && r.to_vec::<i16>()? == [301, 302, 303],
            "int16",
        )?;
        let f = fuse(|x: Sym| x * 2);
        ensure(
            f.call(&[(&h).into()])?.dtype() == DType::Int8,
            "weak stays int8",
        )?;
        let x = Array::from_slice_on(dev, &[1.5f32, 2.5], &[2])?;
        let f = fuse(|x: Sym| x * Scalar::Float64(2.0));
        let r = f.call(&[(&x).into()]);
        match r {
            Ok(r) => ensure(
                r.dtype() == DType::Float64 && r.to_vec::<f64>()? == [3.0, 5.0],
                "f32 * float64 scalar is float64",
            )?,
            Err(cupy::Error::DTypeNotSupported { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        // dtype() of symbols, and a cast to another operand's dtype.
        let f = fuse(|x: Sym, y: Sym| {
            assert_eq!(x.dtype(), Some(DType::Int8));
            assert_eq!(y.dtype(), Some(DType::Float32));
            assert_eq!((x + 1.0).dtype(), Some(DType::Float64));
            assert_eq!((y + 1).dtype(), Some(DType::Float32));
            x.astype(y.dtype().unwrap()) + y
        });
        let r = f.call(&[
            (&h).into(),
            (&Array::from_slice_on(dev, &[0.5f32], &[1])?).into(),
        ])?;
        ensure(r.to_vec::<f32>()? == [1.5, 2.5, 3.5], "astype(y.dtype())")?;
        // clear_cache: traced again, same values.
        let f = fuse(|x: Sym| x * x);
        let a = f.call(&[(&x).into()])?.to_vec::<f32>()?;
        ensure(f.cache_len() == 1, "cached")?;
        f.clear_cache();
        ensure(f.cache_len() == 0, "cleared")?;
        ensure(
            f.call(&[(&x).into()])?.to_vec::<f32>()? == a,
            "after clear_cache",
        )?;
        Ok(())
    });
}

/// The kernels of the new fused forms (tuple outputs, work after reductions, a materialized
/// map, two-output ufuncs, typed constants) compile with hipRTC.
#[test]
fn fused_kernels_compile_with_hiprtc() {
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let x = Array::from_slice_on(&cpu, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let a = [Arg::Array(&x)];
    let mut ks = vec![];
    ks.extend(fuse(|x: Sym| x / x.sum()).kernels(&a).unwrap());
    ks.extend(
        fuse(|x: Sym| {
            let m = x.mean_axis(0);
            let d = x - m;
            d / ((d * d).mean_axis(0) + 1e-5).sqrt()
        })
        .kernels(&a)
        .unwrap(),
    );
    ks.extend(
        fuse(|x: Sym| {
            let (q, r) = x.divmod(3.0);
            (q * Scalar::Float32(2.0), r, x.nansum_axis(1))
        })
        .kernels(&a)
        .unwrap(),
    );
    ks.extend(
        fuse(|x: Sym| {
            let mut s = x;
            for _ in 0..40 {
                s = s + s;
            }
            s.max()
        })
        .kernels(&a)
        .unwrap(),
    );
    assert_eq!(ks.len(), 2 + 3 + 2 + 2);
    crate::userkernel::compile_with_hiprtc("fused19", ks);
}
