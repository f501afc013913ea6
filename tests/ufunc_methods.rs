//! Ufunc keywords (`dtype=`, `where=`, `casting=`, `out=`) and methods (`reduce`, `accumulate`,
//! `reduceat`, `outer`, `at`) against NumPy goldens (group `ufunc_methods`), plus behaviour the
//! goldens cannot show (masked-out elements without `out`, in-place `at`).

use crate::common::{self, axes, Golden, Operand, Tol};
use cupy::{
    Array, Axes, Casting, DType, Device, Error, Result, Ufunc, UfuncAccumulate, UfuncOptions,
    UfuncReduce, WeakScalar,
};
use serde_json::Value;

fn ufunc(name: &str) -> &'static Ufunc {
    cupy::ufunc(name).unwrap_or_else(|| panic!("no ufunc {name}"))
}

fn opt_dtype(v: &Value) -> Option<DType> {
    v.as_str()
        .map(|s| DType::from_name(s).unwrap_or_else(|| panic!("dtype {s}")))
}

/// The index of a keyword's operand among the case inputs (`where`, `out`).
fn kw_index(k: &Value, name: &str) -> Option<usize> {
    k.get(name).and_then(|v| v.as_u64()).map(|v| v as usize)
}

fn exec_call(k: &Value, ops: &[Operand]) -> Result<Array> {
    let u = ufunc(k["ufunc"].as_str().unwrap());
    let w = kw_index(k, "where");
    let o = kw_index(k, "out");
    let args: Vec<cupy::Arg<'_>> = ops
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != w && Some(*i) != o)
        .map(|(_, op)| op.arg())
        .collect();
    let opts = UfuncOptions {
        out: o.map(|i| ops[i].array().clone()),
        dtype: opt_dtype(&k["dtype"]),
        where_: w.map(|i| ops[i].array().clone()),
        casting: Casting::parse(k["casting"].as_str().unwrap_or("same_kind"))?,
    };
    u.call_with(&args, opts)
}

fn weak_of(v: &Value) -> Option<WeakScalar> {
    if v.is_null() {
        return None;
    }
    let x = &v["value"];
    Some(match v["weak"].as_str().unwrap() {
        "int" => WeakScalar::Int(
            x.as_i64()
                .map(i128::from)
                .unwrap_or_else(|| x.as_u64().unwrap().into()),
        ),
        "bool" => WeakScalar::Bool(x.as_bool().unwrap()),
        _ => WeakScalar::Float(common::json_f64(x)),
    })
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    if op == "call" {
        return exec_call(k, ops);
    }
    let u = ufunc(k["ufunc"].as_str().unwrap());
    let out = kw_index(k, "out").map(|i| ops[i].array().clone());
    let acc = || UfuncAccumulate {
        axis: k["axis"].as_i64().unwrap_or(0) as isize,
        dtype: opt_dtype(&k["dtype"]),
        out: out.clone(),
    };
    match op {
        "reduce" => u.reduce_with(
            ops[0].array(),
            UfuncReduce {
                axis: axes(&k["axis"]),
                keepdims: k["keepdims"].as_bool().unwrap_or(false),
                dtype: opt_dtype(&k["dtype"]),
                initial: weak_of(&k["initial"]),
                where_: kw_index(k, "where").map(|i| ops[i].array().clone()),
                out: out.clone(),
            },
        ),
        "accumulate" if k["axis"].is_null() => Err(Error::invalid("accumulate", "axis=None")),
        "accumulate" => u.accumulate_with(ops[0].array(), acc()),
        "reduceat" => u.reduceat_with(ops[0].array(), ops[1].array(), acc()),
        "outer" => u.outer_with(
            ops[0].arg(),
            ops[1].arg(),
            UfuncOptions {
                dtype: opt_dtype(&k["dtype"]),
                ..Default::default()
            },
        ),
        "at" => {
            let a = ops[0].array();
            u.at(a, ops[1].array(), ops.get(2).map(|b| b.arg()))?;
            Ok(a.clone())
        }
        op => panic!("unknown op {op}"),
    }
}

fn tol(g: &Golden, case: &Value, dev: &Device) -> Tol {
    let k = &case["kwargs"];
    let name = k["ufunc"].as_str().unwrap();
    let dt = common::dtype_of(&case["dtype"]);
    let op = case["op"].as_str().unwrap();
    match op {
        "call" | "outer" => crate::ufuncs::tol(name, dt, dev),
        "at" => match name {
            "maximum" | "minimum" | "fmax" | "fmin" => Tol::Exact { zero_sign: false },
            "power" => crate::ufuncs::tol(name, dt, dev),
            "true_divide" if common::is_wgpu(dev) => Tol::Ulps(8),
            _ => Tol::EXACT,
        },
        _ => match name {
            "maximum" | "minimum" | "fmax" | "fmin" => Tol::Exact { zero_sign: false },
            // Folds of Vulkan's float32 atan2 (4096 ulps allowed, ~200 seen on llvmpipe): each
            // step's error carries into the next.
            "arctan2" | "power" if common::is_wgpu(dev) && dt == DType::Float32 => {
                Tol::UlpsOrAbs(1024, 2f64.powi(-17))
            }
            // Sums and products in another order (trees on the GPU, pairwise in NumPy), float16
            // folded in float32 by NumPy and rounded per step by the in-order fold.
            _ if case.get("scale").is_some() => common::scaled_tol(g, case),
            _ => Tol::EXACT,
        },
    }
}

fn expect_err(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }
        ),
        "IndexError" => matches!(e, Error::IndexOutOfBounds { .. }),
        "AxisError" => matches!(e, Error::AxisOutOfRange { .. }),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn ufunc_methods_match_numpy() {
    common::run_group("ufunc_methods", exec, tol, expect_err);
}

/// `where=` without `out`: the selected elements are the ufunc's values (the others are
/// unspecified, as NumPy's uninitialised ones).
#[test]
fn where_without_out() {
    let mut t = common::Tally::new("where_without_out");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[4])?;
            let m = Array::from_slice_on(&dev, &[true, false, true, false], &[4])?;
            let r = cupy::ufuncs::multiply.call_with(
                &[(&a).into(), 10.0.into()],
                UfuncOptions {
                    where_: Some(m),
                    ..Default::default()
                },
            )?;
            let got = r.to_vec::<f32>()?;
            if r.shape() != [4] || got[0] != 10.0 || got[2] != 30.0 {
                return Err(format!("multiply where=[T,F,T,F]: got {got:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "where", r);
    }
    t.finish();
}

/// The kernels of the ufunc methods (in-order reduce, plain and masked, accumulate, reduceat,
/// `at`, and the one-kernel reductions plain, masked and with `initial`), emitted as HIP C++,
/// compile with AMD's hipRTC for CDNA (gfx90a) and RDNA (gfx1030). Every method's kernel
/// shape is compiled for every dtype class, with ufuncs whose bodies differ in kind (integer
/// and float arithmetic, NaN-propagating extremes, bool logic, a math-library function); the
/// bodies themselves are the ufunc kernels' (compiled by cupy-hip's test for every op), and
/// all binary ufuncs' method kernels together take hipRTC about ten minutes, too long for CI.
/// `CUPY_REQUIRE_HIP=1` turns a missing hipRTC into a failure.
#[test]
fn ufunc_method_kernels_compile_with_hiprtc() {
    use cupy::core::kernel::cpp::{
        emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
        ReduceSpec,
    };
    let Some(rtc) = common::hiprtc_or_skip() else {
        return;
    };
    let pre = prelude(Flavor::Hip);
    let dtypes = [
        DType::Bool,
        DType::Int8,
        DType::Int64,
        DType::UInt16,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];
    let mut body = String::new();
    let mut n = 0usize;
    for name in ["add", "subtract", "maximum", "logical_and", "arctan2"] {
        let u = ufunc(name);
        for t in dtypes {
            let Ok((ks, reds)) = u.method_kernels(t) else {
                continue;
            };
            for mut k in ks {
                k.name = format!("{}_{}_{n}", k.name, t.name());
                let spec = ElementwiseSpec {
                    ndim: 1,
                    class: ElementwiseClass::Strided,
                    index64: n.is_multiple_of(2),
                };
                let e = emit_elementwise(&k, &spec, Flavor::Hip)
                    .unwrap_or_else(|e| panic!("{}: HIP emission failed: {e}", k.name));
                body.push_str(&e.source[pre.len()..]);
                n += 1;
            }
            for mut k in reds {
                k.name = format!("{}_{}_{n}", k.name, t.name());
                let spec = ReduceSpec {
                    out_ndim: 1 + n % 2,
                    red_ndim: 1 + n % 2,
                    index64: n.is_multiple_of(2),
                };
                let e = emit_reduce(&k, &spec, Flavor::Hip)
                    .unwrap_or_else(|e| panic!("{}: HIP emission failed: {e}", k.name));
                body.push_str(&e.source[pre.len()..]);
                n += 1;
            }
        }
    }
    for target in ["gfx90a", "gfx1030"] {
        let opts = cupy_hip::kernels::compile_options(target);
        let src = format!("{pre}{body}");
        if let Err(e) = rtc.compile(&src, "ufunc_methods.hip", &opts) {
            let log: Vec<&str> = e.log.lines().take(60).collect();
            panic!("hipRTC ({target}) failed: {}\n{}", e.text, log.join("\n"));
        }
        eprintln!("hipRTC {target}: {n} ufunc method kernels compiled");
        common::report(&format!(
            "hip ufunc_method_kernels_compile_with_hiprtc {target} {n} kernels"
        ));
    }
}

/// Lengths past one block and one thread's tile: the one-kernel and in-order reductions,
/// accumulate on the scan and the in-order kernel, reduceat and `at` with many repeats,
/// against values computed on the host.
#[test]
fn methods_at_scale() {
    let mut t = common::Tally::new("methods_at_scale");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let n = 5000usize;
            let host: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 201 - 100).collect();
            let a = Array::from_slice_on(&dev, &host, &[2, n / 2])?;
            let u = |name| ufunc(name);
            let fail = |what: &str, got: String, want: String| -> common::CaseError {
                format!("{what}: got {got}, want {want}").into()
            };
            // add.reduce over both axes (int32 accumulates in int64).
            let s = u("add").reduce_with(&a, Axes::All)?.to_vec::<i64>()?;
            let want: i64 = host.iter().map(|&v| v as i64).sum();
            if s != [want] {
                return Err(fail("add.reduce", format!("{s:?}"), format!("[{want}]")));
            }
            // subtract.reduce along axis 1 (in order).
            let d = u("subtract").reduce_with(&a, 1)?.to_vec::<i32>()?;
            let half = n / 2;
            let want: Vec<i32> = (0..2)
                .map(|r| {
                    let row = &host[r * half..(r + 1) * half];
                    row[1..].iter().fold(row[0], |acc, &v| acc.wrapping_sub(v))
                })
                .collect();
            if d != want {
                return Err(fail(
                    "subtract.reduce",
                    format!("{d:?}"),
                    format!("{want:?}"),
                ));
            }
            // maximum.accumulate (in order) and add.accumulate (scan) along axis 1.
            let m = u("maximum").accumulate_with(&a, 1)?.to_vec::<i32>()?;
            let c = u("add").accumulate_with(&a, -1)?.to_vec::<i64>()?;
            for r in 0..2 {
                let (mut mx, mut sum) = (i32::MIN, 0i64);
                for k in 0..half {
                    let v = host[r * half + k];
                    mx = mx.max(v);
                    sum += v as i64;
                    if m[r * half + k] != mx || c[r * half + k] != sum {
                        return Err(fail(
                            &format!("accumulate at [{r}, {k}]"),
                            format!("{} / {}", m[r * half + k], c[r * half + k]),
                            format!("{mx} / {sum}"),
                        ));
                    }
                }
            }
            // reduceat with long segments.
            let idx = Array::from_slice_on(&dev, &[0i64, 1000, 900, 2400], &[4])?;
            let ra = u("add").reduceat_with(&a, &idx, 1)?.to_vec::<i64>()?;
            let seg = |r: usize, lo: usize, hi: usize| -> i64 {
                host[r * half + lo..r * half + hi]
                    .iter()
                    .map(|&v| v as i64)
                    .sum()
            };
            let want: Vec<i64> = (0..2)
                .flat_map(|r| {
                    [
                        seg(r, 0, 1000),
                        host[r * half + 1000] as i64,
                        seg(r, 900, 2400),
                        seg(r, 2400, half),
                    ]
                })
                .collect();
            if ra != want {
                return Err(fail("add.reduceat", format!("{ra:?}"), format!("{want:?}")));
            }
            // add.at (atomic) and multiply.at (in order) with many repeats of a few indices.
            let reps: Vec<i64> = (0..3000).map(|i| (i * 37) % 5).collect();
            let idx = Array::from_slice_on(&dev, &reps, &[reps.len()])?;
            let acc = Array::from_slice_on(&dev, &[0i64; 5], &[5])?;
            u("add").at(&acc, &idx, Some(3i64.into()))?;
            let got = acc.to_vec::<i64>()?;
            let mut want = [0i64; 5];
            for &j in &reps {
                want[j as usize] += 3;
            }
            if got != want {
                return Err(fail("add.at", format!("{got:?}"), format!("{want:?}")));
            }
            let prod = Array::from_slice_on(&dev, &[1i32; 5], &[5])?;
            let vals: Vec<i32> = (0..3000).map(|i| if i % 3 == 0 { -1 } else { 1 }).collect();
            let v = Array::from_slice_on(&dev, &vals, &[vals.len()])?;
            u("multiply").at(&prod, &idx, Some((&v).into()))?;
            let got = prod.to_vec::<i32>()?;
            let mut want = [1i32; 5];
            for (k, &j) in reps.iter().enumerate() {
                want[j as usize] *= vals[k];
            }
            if got != want {
                return Err(fail("multiply.at", format!("{got:?}"), format!("{want:?}")));
            }
            Ok(())
        })();
        t.check(&dev, "scale", r);
    }
    t.finish();
}

/// `at` refuses a broadcast (read-only) target and bool masks as indices; `reduce` of a unary
/// ufunc is NumPy's ValueError; `outer` keeps `out=` and `where=` and takes two scalars.
#[test]
fn method_refusals_and_outer_keywords() {
    let mut t = common::Tally::new("method_refusals");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3])?;
            let idx = Array::from_slice_on(&dev, &[0i64, 0], &[2])?;
            let b = a.reshape(&[1, 3])?.broadcast_to(&[2, 3])?;
            let e = ufunc("add").at(&b, &idx, Some(1.0.into()));
            if !matches!(e, Err(Error::InvalidArgument { .. })) {
                return Err(format!("add.at on a broadcast view: {e:?}").into());
            }
            let mask = Array::from_slice_on(&dev, &[true, false], &[2])?;
            let e = ufunc("add").at(&a, &mask, Some(1.0.into()));
            if !matches!(e, Err(Error::TypeError { .. })) {
                return Err(format!("add.at with a bool mask: {e:?}").into());
            }
            let e = ufunc("sqrt").reduce(&a);
            if !matches!(e, Err(Error::InvalidArgument { .. })) {
                return Err(format!("sqrt.reduce: {e:?}").into());
            }
            // Two-output ufuncs have no reduce/at, and apply_with takes one out= (NumPy).
            let e = ufunc("divmod").reduce(&a);
            if !matches!(e, Err(Error::InvalidArgument { .. })) {
                return Err(format!("divmod.reduce: {e:?}").into());
            }
            let e = ufunc("divmod").at(&a, &idx, Some(1.0.into()));
            if !matches!(e, Err(Error::InvalidArgument { .. })) {
                return Err(format!("divmod.at: {e:?}").into());
            }
            let opts = UfuncOptions {
                dtype: Some(DType::Float64),
                ..Default::default()
            };
            let e = cupy::apply_with(ufunc("divmod"), &[(&a).into(), (&a).into()], &opts);
            if !matches!(e, Err(Error::InvalidArgument { .. })) {
                return Err(format!("apply_with(divmod): {e:?}").into());
            }
            let out = Array::from_slice_on(&dev, &[-1.0f64; 6], &[3, 2])?;
            let w = Array::from_slice_on(&dev, &[true, false], &[2])?;
            let x = Array::from_slice_on(&dev, &[10.0f32, 20.0], &[2])?;
            let r = ufunc("add").outer_with(
                &a,
                &x,
                UfuncOptions {
                    out: Some(out.clone()),
                    where_: Some(w),
                    ..Default::default()
                },
            )?;
            let got = r.to_vec::<f64>()?;
            let want = vec![11.0, -1.0, 12.0, -1.0, 13.0, -1.0];
            if got != want || out.to_vec::<f64>()? != want {
                return Err(format!("add.outer out/where: got {got:?}, want {want:?}").into());
            }
            // gcd's methods are refused (its body is too large to inline), naming the method.
            let g = Array::from_slice_on(&dev, &[12i32, 18], &[2])?;
            let gi = Array::from_slice_on(&dev, &[0i64], &[1])?;
            for (name, e) in [
                ("gcd.reduce", ufunc("gcd").reduce(&g)),
                ("gcd.accumulate", ufunc("gcd").accumulate(&g)),
                ("gcd.reduceat", ufunc("gcd").reduceat(&g, &gi)),
            ] {
                match e {
                    Err(e) if e.to_string().starts_with(name) => {}
                    other => return Err(format!("{name}: {other:?}").into()),
                }
            }
            // Two scalars: NumPy makes both arrays (`add.outer(2, 3.5)` is `array(5.5)`).
            let s = cupy::with_device(&dev, || ufunc("add").outer(2i64, 3.5f64))?;
            if s.ndim() != 0 || s.dtype() != DType::Float64 || s.to_vec::<f64>()? != [5.5] {
                return Err(format!("add.outer(2, 3.5): {s:?}").into());
            }
            if s.device() != &dev {
                return Err(format!("add.outer(2, 3.5) ran on {:?}", s.device()).into());
            }
            Ok(())
        })();
        t.check(&dev, "refusals", r);
    }
    t.finish();
}
