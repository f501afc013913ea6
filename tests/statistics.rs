//! Tuple-accumulator reductions against NumPy goldens (group `stats`): `argmax`/`argmin`
//! (first occurrence, first NaN, -0.0 vs 0.0, infinities, complex lexicographic order, views,
//! keepdims, empty axes) and `var`/`std` (ddof, axis tuples, keepdims, integer/float16/complex
//! inputs, n - ddof <= 0, empty axes, a 2^20-element float32 array with mean 1e4).

use crate::common::{self, axes, Golden, Operand, Tol};
use cupy::{Array, Axes, DType, Device, Error, Result};
use serde_json::Value;

/// The long case's input, `float32(10000 + (i % 1000) * 0.001)` as the generator builds it.
fn long_input(dev: &Device, n: usize) -> Result<Array> {
    let v: Vec<f32> = (0..n)
        .map(|i| (10000.0f64 + (i % 1000) as f64 * 0.001) as f32)
        .collect();
    Array::from_slice_on(dev, &v, &[n])
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let keepdims = k["keepdims"].as_bool().unwrap_or(false);
    let ddof = k["ddof"].as_u64().unwrap_or(0) as usize;
    match case["op"].as_str().unwrap() {
        op @ ("argmax" | "argmin") => {
            let axis = Axes::from(k["axis"].as_i64().map(|a| a as isize));
            let opts = cupy::Reduce {
                axis,
                ddof: 0,
                keepdims,
                ..Default::default()
            };
            if op == "argmax" {
                cupy::argmax_with(ops[0].array(), opts)
            } else {
                cupy::argmin_with(ops[0].array(), opts)
            }
        }
        "var" => cupy::var_with(
            ops[0].array(),
            cupy::Reduce {
                axis: axes(&k["axis"]),
                ddof,
                keepdims,
                ..Default::default()
            },
        ),
        "std" => cupy::std_with(
            ops[0].array(),
            cupy::Reduce {
                axis: axes(&k["axis"]),
                ddof,
                keepdims,
                ..Default::default()
            },
        ),
        op @ ("var_long" | "std_long") => {
            let x = long_input(dev, k["n"].as_u64().unwrap() as usize)?;
            if op == "var_long" {
                x.var_with(cupy::Reduce {
                    axis: Axes::All,
                    ddof,
                    keepdims: false,
                    ..Default::default()
                })
            } else {
                x.std_with(cupy::Reduce {
                    axis: Axes::All,
                    ddof,
                    keepdims: false,
                    ..Default::default()
                })
            }
        }
        op => panic!("stats op {op}"),
    }
}

#[test]
fn statistics_match_numpy() {
    common::run_group(
        "stats",
        exec,
        |g, case, _| match case["op"].as_str().unwrap() {
            "argmax" | "argmin" => Tol::EXACT,
            // Relative 1.3e-4 (float32 ulps near 0.083): the Chan fold in float32 lands about
            // 1e-5 from the exact variance here (NumPy's two passes 1.6e-6); the one-pass
            // E[x^2] - E[x]^2 in float32 would be off by 100%.
            "var_long" | "std_long" => Tol::Ulps(1024),
            _ => common::scaled_tol(g, case),
        },
        |case, e| {
            // NumPy: ValueError "attempt to get argmax of an empty sequence".
            case["error"] == "ValueError"
                && matches!(e, Error::InvalidArgument { msg, .. } if msg.contains("empty sequence"))
                || common::generic_error_match(case, e)
        },
    );
}

/// The method and free-function forms, NumPy's values typed in.
#[test]
fn statistics_methods() {
    let mut t = common::Tally::new("statistics_methods");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f64, 5.0, 3.0, 5.0, -2.0, 0.5], &[2, 3])?;
            let ints = |x: Array, want: &[i64], shape: &[usize]| {
                let got = x.to_vec::<i64>().map_err(|e| e.to_string())?;
                if got != want || x.shape() != shape || x.dtype() != DType::Int64 {
                    return Err(format!("got {got:?} {:?} {}", x.shape(), x.dtype()));
                }
                Ok(())
            };
            ints(a.argmax()?, &[1], &[])?;
            ints(a.argmin()?, &[4], &[])?;
            ints(a.argmax_axis(0)?, &[1, 0, 0], &[3])?;
            ints(a.argmin_axis(-1)?, &[0, 1], &[2])?;
            ints(
                a.argmax_with(cupy::Reduce {
                    axis: Axes::All,
                    ddof: 0,
                    keepdims: true,
                    ..Default::default()
                })?,
                &[1],
                &[1, 1],
            )?;
            ints(
                cupy::argmin_with(
                    &a,
                    cupy::Reduce {
                        axis: 1.into(),
                        ddof: 0,
                        keepdims: true,
                        ..Default::default()
                    },
                )?,
                &[0, 1],
                &[2, 1],
            )?;
            ints(a.argmax_axis(1)?, &[1, 0], &[2])?;
            let nan = Array::from_slice_on(&dev, &[1.0f32, f32::NAN, 3.0, f32::NAN], &[4])?;
            ints(cupy::argmax(&nan)?, &[1], &[])?;
            ints(cupy::argmin(&nan)?, &[1], &[])?;
            let floats = |x: Array, want: &[f64], shape: &[usize]| {
                let got = x.to_vec::<f64>().map_err(|e| e.to_string())?;
                let ok = got.len() == want.len()
                    && got
                        .iter()
                        .zip(want)
                        .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0));
                if !ok || x.shape() != shape {
                    return Err(format!("got {got:?} {:?}, want {want:?}", x.shape()));
                }
                Ok(())
            };
            // np.var([[1, 5, 3], [5, -2, .5]]) = 6.3680555555555545
            let v = 6.3680555555555545f64;
            floats(a.var()?, &[v], &[])?;
            floats(a.std()?, &[v.sqrt()], &[])?;
            floats(cupy::var(&a)?, &[v], &[])?;
            floats(cupy::std(&a)?, &[v.sqrt()], &[])?;
            // ddof=1 along axis 1: [4.0, 12.583333333333334]
            floats(
                a.var_with(cupy::Reduce {
                    axis: 1.into(),
                    ddof: 1,
                    keepdims: false,
                    ..Default::default()
                })?,
                &[4.0, 12.583333333333334],
                &[2],
            )?;
            floats(
                cupy::std_with(
                    &a,
                    cupy::Reduce {
                        axis: 1.into(),
                        ddof: 1,
                        keepdims: true,
                        ..Default::default()
                    },
                )?,
                &[2.0, 12.583333333333334f64.sqrt()],
                &[2, 1],
            )?;
            floats(
                cupy::var_with(
                    &a,
                    cupy::Reduce {
                        axis: [0isize, 1].into(),
                        ddof: 0,
                        keepdims: true,
                        ..Default::default()
                    },
                )?,
                &[v],
                &[1, 1],
            )?;
            // n - ddof <= 0
            let v = cupy::var_with(
                &a,
                cupy::Reduce {
                    axis: 0.into(),
                    ddof: 2,
                    keepdims: false,
                    ..Default::default()
                },
            )?
            .to_vec::<f64>()?;
            if !(v[0].is_infinite() && v.len() == 3) {
                return Err(format!("var ddof=2 over 2 rows: {v:?}").into());
            }
            // errors name the op
            let e = Array::from_slice_on(&dev, &[0.0f32; 0], &[0, 3])?;
            match e.argmax() {
                Err(Error::InvalidArgument { op, msg })
                    if op == "argmax" && msg.contains("empty") => {}
                other => return Err(format!("argmax of empty: {other:?}").into()),
            }
            match a.argmin_axis(2) {
                Err(Error::AxisOutOfRange { .. }) => {}
                other => return Err(format!("argmin axis 2 of 2-d: {other:?}").into()),
            }
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}

/// The float32 sum of `2^CUPY_SUM_LOG2` elements (default 2^22; the issue asks 2^27) of
/// uniform [0, 1) values against the float64 sum of the same values: every backend folds in
/// blocks (the cpu backend pairwise, the GPU ones per-thread partial sums then trees), so the
/// relative error stays near float32's epsilon, where one serial float32 loop would lose
/// about `n * eps / 4` (0.2 at 2^27). Prints (and reports) the error per backend.
#[test]
fn sum_float32_accuracy() {
    let log2: u32 = std::env::var("CUPY_SUM_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(22);
    let n = 1usize << log2;
    let host: Vec<f32> = (0..n as u64)
        .map(|i| ((i.wrapping_mul(2654435761) ^ (i >> 7)) & 0xffff_ffff) as f32 / 4294967296.0)
        .collect();
    let exact: f64 = host.iter().map(|&x| x as f64).sum();
    let serial = host.iter().fold(0f32, |a, &x| a + x) as f64;
    let mut t = common::Tally::new("sum_float32_accuracy");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x = match Array::from_slice_on(&dev, &host, &[n]) {
                // llvmpipe binds 128 MiB (2^25 float32) at most; the H200's Vulkan driver 2 GiB
                Err(e @ Error::Unsupported { .. }) => {
                    return Err(common::CaseError::Skip(e.to_string()))
                }
                r => r?,
            };
            let s = x.sum()?.to_vec::<f32>()?[0] as f64;
            let m = x.mean()?.to_vec::<f32>()?[0] as f64;
            let rel = (s - exact).abs() / exact;
            let rel_mean = (m - exact / n as f64).abs() / (exact / n as f64);
            let line = format!(
                "float32 sum of 2^{log2} uniform [0,1) values on {}: relative error {rel:.3e} (mean {rel_mean:.3e}; a serial float32 loop: {:.3e})",
                dev.label(),
                (serial - exact).abs() / exact
            );
            println!("{line}");
            // Report lines start with the backend (CI counts the backends that ran).
            common::report(&format!("{} {line}", dev.kind()));
            if rel > 2e-6 || rel_mean > 2e-6 {
                return Err(line.into());
            }
            Ok(())
        })();
        t.check(&dev, "sum", r);
    }
    t.finish();
}
