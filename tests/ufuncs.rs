//! Ufuncs against NumPy goldens: every dtype, strided/transposed/reversed/broadcast/size-0/0-d
//! operands, special values, integer division by zero, NEP 50 promotion with weak scalars.

use crate::common::{self, is_wgpu, Golden, Operand, Tol};
use cupy::{Array, DType, Device, Result, Ufunc};
use serde_json::Value;

fn ufunc(name: &str) -> &'static Ufunc {
    cupy::ufunc(name).unwrap_or_else(|| panic!("no ufunc {name}"))
}

/// Float tolerance per ufunc (module docs of `common` explain the classes).
pub fn tol(op: &str, dtype: DType, dev: &Device) -> Tol {
    let wgpu = is_wgpu(dev);
    let f16 = dtype == DType::Float16;
    match op {
        "maximum" | "minimum" | "fmax" | "fmin" => Tol::Exact { zero_sign: false },
        // Vulkan does not promise signed zeros unless a shader declares SignedZeroInfNanPreserve,
        // which naga does not emit; NVIDIA's driver returns -0 for some zero quotients.
        "floor_divide" if wgpu => Tol::Exact { zero_sign: false },
        "true_divide" | "sqrt" if wgpu => Tol::Ulps(3),
        "remainder" => Tol::Ulps(2),
        // float64 power on wgpu is the software fdlibm e_pow.c (< 1 ulp): the common 4.
        "power" if wgpu && dtype != DType::Float64 => Tol::UlpsOrAbs(16, 0.0),
        "power" => Tol::Ulps(if f16 { 1 } else { 4 }),
        // Vulkan allows atan2 4096 ulps; llvmpipe is within ~200 on these inputs.
        "arctan2" if wgpu && dtype == DType::Float32 => Tol::Ulps(256),
        "exp" | "log" | "sin" | "cos" | "tan" | "tanh" | "arctan2" => {
            if f16 {
                if wgpu {
                    Tol::UlpsOrAbs(2, 2f64.powi(-10))
                } else {
                    Tol::Ulps(1)
                }
            } else if wgpu && dtype == DType::Float32 {
                // Vulkan: exp 3+2|x| ulps, log/sin/cos/tan bounded only in absolute error
                // (2^-11 by the spec). Drivers do far better: llvmpipe within 2^-21, NVIDIA's
                // sin/tan measured 8e-7 (2^-20.3) on the H200; we hold them to 2^-19.
                Tol::UlpsOrAbs(32, 2f64.powi(-19))
            } else {
                Tol::Ulps(4)
            }
        }
        _ => Tol::EXACT,
    }
}

pub fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let u = ufunc(case["op"].as_str().unwrap());
    let args: Vec<cupy::Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
    cupy::apply(u, &args, None)
}

#[test]
fn ufuncs_match_numpy() {
    common::run_group(
        "ufuncs",
        exec,
        |_, case, dev| {
            tol(
                case["op"].as_str().unwrap(),
                common::dtype_of(&case["dtype"]),
                dev,
            )
        },
        common::generic_error_match,
    );
}

/// Float tolerance of the math-library ufuncs (compositions of the IR's exp/log/atan2/sqrt in
/// `cupy_core::kernel::math`): each step's rounding adds up, so a few ulps more than the
/// transcendental class; on wgpu float32 the driver's looser exp/log dominate (see [`tol`]).
pub fn math_tol(op: &str, dtype: DType, dev: &Device) -> Tol {
    let wgpu = is_wgpu(dev);
    match op {
        "trunc" | "rint" | "signbit" | "conjugate" | "copysign" | "fmod" => Tol::EXACT,
        _ if dtype.is_complex() => Tol::Complex(16),
        _ if dtype == DType::Float16 => {
            if wgpu {
                Tol::UlpsOrAbs(2, 2f64.powi(-10))
            } else {
                Tol::Ulps(1)
            }
        }
        _ if wgpu && matches!(dtype, DType::Float32) => Tol::UlpsOrAbs(64, 2f64.powi(-18)),
        _ => Tol::Ulps(8),
    }
}

#[test]
fn math_ufuncs_match_numpy() {
    common::run_group(
        "math",
        |g, case, ops, dev| {
            if case["op"] == "fmod" {
                if let Some(reason) = flushed_subnormals(g, case, dev) {
                    return Err(cupy::Error::DTypeNotSupported {
                        op: "fmod".into(),
                        dtype: DType::Float32,
                        device: dev.label(),
                        reason,
                    });
                }
            }
            exec(g, case, ops, dev)
        },
        |_, case, dev| {
            math_tol(
                case["op"].as_str().unwrap(),
                common::dtype_of(&case["dtype"]),
                dev,
            )
        },
        common::generic_error_match,
    );
}

/// `out=`: the result is cast into `out` (same_kind), written through a strided view, and the
/// rest of `out`'s buffer is untouched.
#[test]
fn ufunc_out_into_strided_view() {
    let mut t = common::Tally::new("ufunc_out");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3])?;
            let b = Array::from_slice_on(&dev, &[10.0f32, 20.0, 30.0], &[3])?;
            let base = Array::from_slice_on(&dev, &[-1.0f64; 6], &[6])?;
            let out = base.slice(&cupy::s![..;2])?;
            cupy::apply_out(&cupy::ufuncs::add, &[(&a).into(), (&b).into()], &out)?;
            let got = base.to_vec::<f64>()?;
            let want = vec![11.0, -1.0, 22.0, -1.0, 33.0, -1.0];
            if got != want {
                return Err(format!("add into base[::2]: got {got:?}, want {want:?}").into());
            }
            // out of a lower kind is refused (float64 result into int32 out).
            let oi = Array::zeros_on(&dev, &[3], DType::Int32)?;
            match cupy::apply_out(&cupy::ufuncs::true_divide, &[(&a).into(), (&b).into()], &oi) {
                Err(cupy::Error::TypeError { .. }) => {}
                other => {
                    return Err(
                        format!("divide into int32 out: want TypeError, got {other:?}").into(),
                    )
                }
            }
            Ok(())
        })();
        t.check(&dev, "apply_out", r);
    }
    t.finish();
}

/// Operators on &Array and Rust scalars (weak) give the ufunc results.
#[test]
fn operators_and_weak_scalars() {
    let mut t = common::Tally::new("operators");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 4.0], &[3])?;
            let b: Array = ((&a * 2.0f64)? + &a)?;
            if b.dtype() != DType::Float32 || b.to_vec::<f32>()? != vec![3.0, 6.0, 12.0] {
                return Err(format!("(a*2)+a: {:?} {:?}", b.dtype(), b.to_vec::<f32>()).into());
            }
            let c: Array = (1.0f64 / &a)?;
            if c.to_vec::<f32>()? != vec![1.0, 0.5, 0.25] {
                return Err("1/a".to_string().into());
            }
            let i = Array::from_slice_on(&dev, &[250u8, 3, 7], &[3])?;
            let j = (&i + 10i32)?;
            if j.dtype() != DType::UInt8 || j.to_vec::<u8>()? != vec![4, 13, 17] {
                return Err(format!("u8 + 10 wraps: {:?}", j.to_vec::<u8>()).into());
            }
            let k = (-&Array::from_slice_on(&dev, &[1i32, -2], &[2])?)?;
            if k.to_vec::<i32>()? != vec![-1, 2] {
                return Err("neg".to_string().into());
            }
            let m = (&i % 4i32)?;
            if m.to_vec::<u8>()? != vec![2, 3, 3] {
                return Err("rem".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "operators", r);
    }
    t.finish();
}

/// Two-output ufuncs return a pair (NumPy's tuple); `out=` takes one slot per output; `apply`
/// (one result) refuses them.
#[test]
fn two_outputs_and_out_tuples() {
    let mut t = common::Tally::new("ufunc_nout2");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[7i32, -7, 7, -7, 5], &[5])?;
            let b = Array::from_slice_on(&dev, &[2i32, 2, -2, -2, 0], &[5])?;
            let (q, m) = cupy::divmod(&a, &b)?;
            if q.to_vec::<i32>()? != [3, -4, -4, 3, 0] || m.to_vec::<i32>()? != [1, 1, -1, -1, 0] {
                return Err(
                    format!("divmod: {:?} {:?}", q.to_vec::<i32>(), m.to_vec::<i32>()).into(),
                );
            }
            let (q2, _) = a.divmod(3)?;
            if q2.to_vec::<i32>()? != [2, -3, 2, -3, 1] {
                return Err(format!("a.divmod(3): {:?}", q2.to_vec::<i32>()).into());
            }
            // out= for the second output only; the first is new. Same-kind cast into int64.
            let r = Array::zeros_on(&dev, &[5], DType::Int64)?;
            let v = cupy::apply_outs(
                &cupy::ufuncs::divmod,
                &[(&a).into(), (&b).into()],
                &[None, Some(&r)],
            )?;
            if v.len() != 2
                || v[0].dtype() != DType::Int32
                || r.to_vec::<i64>()? != [1, 1, -1, -1, 0]
            {
                return Err(format!("divmod out=(None, r): {:?}", r.to_vec::<i64>()).into());
            }
            if cupy::ufuncs::divmod.nout() != 2 || cupy::ufuncs::add.nout() != 1 {
                return Err("nout".to_string().into());
            }
            match cupy::apply(&cupy::ufuncs::divmod, &[(&a).into(), (&b).into()], None) {
                Err(cupy::Error::InvalidArgument { .. }) => {}
                other => return Err(format!("apply(divmod): {other:?}").into()),
            }
            match cupy::apply_outs(
                &cupy::ufuncs::divmod,
                &[(&a).into(), (&b).into()],
                &[Some(&r)],
            ) {
                Err(cupy::Error::InvalidArgument { .. }) => {}
                other => return Err(format!("one out for two outputs: {other:?}").into()),
            }
            Ok(())
        })();
        t.check(&dev, "divmod", r);
    }
    t.finish();
}

/// Runs one case of the `ufuncs2` group: the new ufuncs by name (a two-output one returns output
/// `kwargs.out`), and the routines clip, where, round, nan_to_num, angle(deg=True).
pub fn exec2(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let op = case["op"].as_str().unwrap();
    let kw = &case["kwargs"];
    if let Some(reason) = flushed_subnormals(g, case, dev) {
        return Err(cupy::Error::DTypeNotSupported {
            op: op.into(),
            dtype: DType::Float32,
            device: dev.label(),
            reason,
        });
    }
    let args: Vec<cupy::Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
    match op {
        "clip" => {
            let mut rest = args[1..].iter().cloned();
            let mut side = |present: bool| -> cupy::Bound<'_> {
                if present {
                    rest.next().expect("bound").into()
                } else {
                    cupy::Bound::None
                }
            };
            let lo = side(kw["min"].as_bool().unwrap());
            let hi = side(kw["max"].as_bool().unwrap());
            cupy::clip(ops[0].array(), lo, hi)
        }
        "where" => cupy::where_(ops[0].array(), args[1].clone(), args[2].clone()),
        "round" => {
            let decimals = kw["decimals"].as_i64().unwrap() as i32;
            let out = kw["out_operand"]
                .as_u64()
                .map(|k| ops[k as usize].array().clone());
            let opts = cupy::Round {
                decimals,
                out: out.clone(),
            };
            let r = cupy::round_with(ops[0].array(), opts)?;
            match out {
                // the values read back from `out` itself, which round returned
                Some(o) if r.shares_memory_with(&o) && r.shape() == o.shape() => Ok(o),
                Some(_) => Err(cupy::Error::invalid("round", "out= was not returned")),
                None => Ok(r),
            }
        }
        "nan_to_num" => {
            let f = |k: &str| kw.get(k).map(common::json_f64);
            let o = cupy::NanToNum {
                nan: f("nan").unwrap_or(0.0),
                posinf: f("posinf"),
                neginf: f("neginf"),
                ..Default::default()
            };
            cupy::nan_to_num_with(ops[0].array(), o)
        }
        "angle" if kw.get("deg").is_some() => cupy::angle_with(args[0].clone(), true),
        _ => {
            let u = ufunc(op);
            match kw.get("out") {
                Some(k) => {
                    Ok(cupy::apply_outs(u, &args, &[])?.remove(k.as_u64().unwrap() as usize))
                }
                None => cupy::apply(u, &args, None),
            }
        }
    }
}

/// The float32 cases of the bit-exact ufuncs (`frexp ldexp nextafter spacing modf heaviside`,
/// and `fmod`, whose subnormal operands a flushing device reads as zeros) that hold a subnormal
/// input or result, on a device that flushes float32 subnormals (NVIDIA's
/// Vulkan driver): they are built from float comparisons and products, which such a device
/// evaluates as if subnormals were zero, so they are skipped there with this reason (listed in
/// docs/backends.md).
fn flushed_subnormals(g: &Golden, case: &Value, dev: &Device) -> Option<String> {
    let op = case["op"].as_str().unwrap();
    if !matches!(
        op,
        "frexp" | "ldexp" | "nextafter" | "spacing" | "modf" | "heaviside" | "fmod"
    ) {
        return None;
    }
    let named = |v: &Value| v.as_str().map(|n| g.array(n));
    let mut arrays: Vec<_> = case["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("array").and_then(named))
        .collect();
    arrays.extend(case.get("expected").and_then(named));
    let subnormal = arrays.iter().any(common::has_f32_subnormal);
    (subnormal && common::flushes_f32_subnormals(dev)).then(|| {
        "the device flushes float32 subnormals to zero (FTZ), and this case holds one".into()
    })
}

/// Float tolerance of the `ufuncs2` group: exact for the routines built from exact steps
/// (sign, fix, frexp, ldexp, nextafter, spacing, modf, gcd, clip, where, round on the cpu, ...),
/// the transcendental classes of [`tol`] and [`math_tol`] for the others.
pub fn tol2(case: &Value, dev: &Device) -> Tol {
    let op = case["op"].as_str().unwrap();
    let dtype = common::dtype_of(&case["dtype"]);
    let wgpu = is_wgpu(dev);
    let out = case["kwargs"].get("out").and_then(|k| k.as_u64());
    match op {
        "divmod" if out == Some(0) => tol("floor_divide", dtype, dev),
        "divmod" => tol("remainder", dtype, dev),
        "clip" => Tol::Exact { zero_sign: false },
        "float_power" if dtype.is_complex() => Tol::Complex(16),
        "float_power" => tol("power", dtype, dev),
        "angle" if case["kwargs"].get("deg").is_some() && dtype == DType::Float16 => Tol::Ulps(1),
        "angle" => tol("arctan2", dtype, dev),
        "cbrt" => math_tol("cbrt", dtype, dev),
        _ if dtype.is_complex() && case["id"].as_str().unwrap().contains("/complex") => {
            // The complex loops (Kahan's formulas for glibc's casin & co., NumPy's own exp2,
            // expm1, log2, log1p): normwise, as the math group's complex functions.
            Tol::Complex(16)
        }
        "sign" | "reciprocal" if dtype.is_complex() => Tol::Complex(4),
        "reciprocal" | "round" if wgpu => Tol::Ulps(3),
        // Vulkan does not promise signed zeros (llvmpipe folds `x * 0`): the zero stepped to
        // from the smallest subnormal may come out +0.
        "nextafter" | "ldexp" if wgpu => Tol::Exact { zero_sign: false },
        _ => Tol::EXACT,
    }
}

#[test]
fn new_ufuncs_and_routines_match_numpy() {
    common::run_group(
        "ufuncs2",
        exec2,
        |_, case, dev| tol2(case, dev),
        |case, e| match (case["op"].as_str(), case["error"].as_str()) {
            // round(out=): refusals name round (NumPy names the failing step's ufunc)
            (Some("round"), Some("ValueError")) => {
                matches!(e, cupy::Error::ShapeMismatch { op, .. } if op == "round")
            }
            (Some("round"), Some("TypeError")) => {
                matches!(e, cupy::Error::TypeError { op, .. } if op == "round")
            }
            _ => common::generic_error_match(case, e),
        },
    );
}

/// Every ufunc and routine kernel (each ufunc for every dtype it has a loop for, `ldexp` with
/// both exponent loops; NumPy's and `cupyx.scipy.special`'s) compiles with AMD's hipRTC for gfx90a, from the shared C++ emitter (the
/// HIP flavour; CUDA's differs in the prelude only). Runs with `CUPY_REQUIRE_HIP=1` (as CI
/// does; about a minute on two cores), which also makes a missing hipRTC a failure.
#[test]
fn every_ufunc_kernel_compiles_with_hiprtc() {
    use cupy::core::kernel::cpp::{
        emit_elementwise, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
    };
    if std::env::var("CUPY_REQUIRE_HIP").as_deref() != Ok("1") {
        println!("notice: ufunc kernels not compiled with hipRTC (set CUPY_REQUIRE_HIP=1)");
        return;
    }
    let rtc = match cupy_hip::result::Rtc::get() {
        Ok(r) => r,
        Err(e) => panic!("CUPY_REQUIRE_HIP=1 but hipRTC does not load: {e}"),
    };
    let mut kernels = vec![];
    for (i, u) in cupy::all_ufuncs()
        .chain(cupy::math::routines::CORES)
        .chain(cupy::scipy::special::all_ufuncs())
        .enumerate()
    {
        for t in DType::ALL {
            let mut sigs = vec![vec![t; u.nin()]];
            if u.name() == "ldexp" {
                sigs = vec![vec![t, DType::Int32], vec![t, DType::Int64]];
            }
            for (j, dts) in sigs.iter().enumerate() {
                let name = format!("k{i}_{}_{}_{j}", u.name(), t.name());
                if let Ok(k) = u.kernel(dts, &name) {
                    kernels.push(k);
                }
            }
        }
    }
    let spec = ElementwiseSpec {
        ndim: 1,
        class: ElementwiseClass::Strided,
        index64: false,
    };
    let pre = prelude(Flavor::Hip);
    let mut sources = vec![];
    for k in &kernels {
        match emit_elementwise(k, &spec, Flavor::Hip) {
            Ok(e) => sources.push((k.name.clone(), e.source[pre.len()..].to_string())),
            // The emitter refuses what NumPy has but the C++ backends lack (its verdict is the
            // registry's `no <dtype>`).
            Err(cupy::Error::DTypeNotSupported { .. }) => {}
            Err(e) => panic!("{}: {e}", k.name),
        }
    }
    let opts = cupy_hip::kernels::compile_options("gfx90a");
    for chunk in sources.chunks(160) {
        let body: String = chunk.iter().map(|k| k.1.as_str()).collect();
        let src = format!("{pre}{body}");
        if let Err(e) = rtc.compile(&src, "ufuncs.hip", &opts) {
            let log: Vec<&str> = e.log.lines().take(40).collect();
            panic!(
                "hipRTC failed on ufunc kernels {}..{}: {}\n{}",
                chunk[0].0,
                chunk[chunk.len() - 1].0,
                e.text,
                log.join("\n")
            );
        }
    }
    println!("hipRTC gfx90a: {} ufunc kernels compiled", sources.len());
}

/// The routines keep NumPy's call shapes: `clip(a, None, 5)`, `a.clip(&lo, &hi)`,
/// `where_(&c, &x, 0.0)`, `round_with(&a, 2)`, `a.round()`, `nan_to_num(&a)`,
/// `angle_with(&z, true)`, and the two-output functions return pairs.
#[test]
fn routines_take_numpy_call_shapes() {
    let mut t = common::Tally::new("routine_calls");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[-2.5f32, 0.25, 3.0, 7.5], &[4])?;
            let check = |what: &str,
                         got: Vec<f32>,
                         want: &[f32]|
             -> std::result::Result<(), common::CaseError> {
                if got != want {
                    return Err(format!("{what}: got {got:?}, want {want:?}").into());
                }
                Ok(())
            };
            check(
                "clip(a, None, 5)",
                cupy::clip(&a, None, 5)?.to_vec()?,
                &[-2.5, 0.25, 3.0, 5.0],
            )?;
            check(
                "clip(a, 0, None)",
                cupy::clip(&a, 0, None)?.to_vec()?,
                &[0.0, 0.25, 3.0, 7.5],
            )?;
            let lo = Array::from_slice_on(&dev, &[0.0f32, 1.0, 1.0, 1.0], &[4])?;
            let hi = Array::from_slice_on(&dev, &[6.0f32], &[1])?;
            check(
                "a.clip(&lo, &hi)",
                a.clip(&lo, &hi)?.to_vec()?,
                &[0.0, 1.0, 3.0, 6.0],
            )?;
            let c = cupy::greater(&a, 1.0)?;
            check(
                "where_(&c, &a, 0.0)",
                cupy::where_(&c, &a, 0.0)?.to_vec()?,
                &[0.0, 0.0, 3.0, 7.5],
            )?;
            check(
                "round_with(&a, 1)",
                cupy::round_with(&a, 1)?.to_vec()?,
                &[-2.5, 0.2, 3.0, 7.5],
            )?;
            check("a.round()", a.round()?.to_vec()?, &[-2.0, 0.0, 3.0, 8.0])?;
            let (m, e) = cupy::frexp(&a)?;
            check("frexp mantissa", m.to_vec()?, &[-0.625, 0.5, 0.75, 0.9375])?;
            if e.dtype() != DType::Int32 || e.to_vec::<i32>()? != [2, -1, 2, 3] {
                return Err(format!("frexp exponent: {:?}", e.to_vec::<i32>()).into());
            }
            check(
                "ldexp(m, e)",
                cupy::ldexp(&m, &e)?.to_vec()?,
                &[-2.5, 0.25, 3.0, 7.5],
            )?;
            let (f, i) = a.modf()?;
            check(
                "modf",
                [f.to_vec::<f32>()?, i.to_vec()?].concat(),
                &[-0.5, 0.25, 0.0, 0.5, -2.0, 0.0, 3.0, 7.0],
            )?;
            let inf = Array::from_slice_on(&dev, &[f32::NAN, f32::INFINITY, 1.0], &[3])?;
            check(
                "nan_to_num",
                cupy::nan_to_num(&inf)?.to_vec()?,
                &[0.0, f32::MAX, 1.0],
            )?;
            Ok(())
        })();
        t.check(&dev, "routine calls", r);
    }
    t.finish();
}

/// `cupy::ufunc` finds NumPy's other names too (`numpy.divide` is the ufunc `true_divide` is
/// here): `ufunc("divide")` was `None` though `cupy::divide` exists.
#[test]
fn ufunc_lookup_takes_numpy_aliases() {
    for (alias, name) in [
        ("divide", "true_divide"),
        ("abs", "absolute"),
        ("conj", "conjugate"),
        ("bitwise_not", "invert"),
        ("degrees", "rad2deg"),
        ("radians", "deg2rad"),
    ] {
        let u = cupy::ufunc(alias).unwrap_or_else(|| panic!("no ufunc {alias}"));
        assert_eq!(u.name(), name);
    }
    assert!(cupy::ufunc("no_such_ufunc").is_none());
    let mut t = common::Tally::new("ufunc_aliases");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[8.0f32, 2.0, 2.0], &[3])?;
            let r = cupy::ufunc("divide").unwrap().reduce(&a)?;
            if r.to_vec::<f32>()? != [2.0] {
                return Err(format!("divide.reduce([8, 2, 2]) = {r:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "divide.reduce", r);
    }
    t.finish();
}
