//! User kernels on every backend: `ElementwiseKernel`, `ReductionKernel` (CuPy's strings) and
//! `fuse` (traced closures) against NumPy references (tests/golden/gen/custom.py), plus
//! their error paths.

use crate::common::{self, axes, Golden, Operand, Tol};
use cupy::core::kernel::ir::{Kernel, ReduceKernel};
use cupy::{
    fuse, where_, Arg, Array, Axes, BackendKind, DType, Device, ElementwiseKernel, Error, Reduce,
    ReductionKernel, Result, Sym,
};
use serde_json::Value;

fn s<'a>(k: &'a Value, key: &str) -> &'a str {
    k[key].as_str().unwrap_or("")
}

/// A fused case's result: the array, or (for the hipRTC check) the traced IR.
enum FuseOut {
    Arr(Array),
    Ir(std::result::Result<ReduceKernel, Kernel>),
}

fn fuse_case(id: &str, args: &[Arg<'_>], ir: bool) -> Result<FuseOut> {
    // `name/k`: output k of a closure with several outputs.
    let (id, out) = match id.rsplit_once('/') {
        Some((base, k)) if k.parse::<usize>().is_ok() => (base, k.parse::<usize>().ok()),
        _ => (id, None),
    };
    macro_rules! go {
        ($f:expr) => {{
            let f = $f;
            if ir {
                // A function of several kernels: its first reduction (the merged one).
                FuseOut::Ir(match f.ir(args) {
                    Ok(k) => k,
                    Err(_) => match f.kernels(args)?.into_iter().next() {
                        Some(cupy::FusedKernel::Reduction(k)) => Ok(k),
                        Some(cupy::FusedKernel::Elementwise(k)) => Err(k),
                        None => unreachable!("a fused function runs a kernel"),
                    },
                })
            } else if let Some(k) = out {
                FuseOut::Arr(f.call_multi(args)?.remove(k))
            } else {
                FuseOut::Arr(f.call(args)?)
            }
        }};
    }
    let rows = || Reduce {
        axis: 1.into(),
        keepdims: true,
        ..Default::default()
    };
    let ddof1 = || Reduce {
        axis: 1.into(),
        ddof: 1,
        ..Default::default()
    };
    Ok(match id {
        "fuse/merged_sum_max_min" => go!(fuse(|x: Sym| {
            (x.sum_axis([0, 2]), x.max_axis([0, 2]), x.min_axis([0, 2]))
        })),
        "fuse/merged_moments" => go!(fuse(|x: Sym| (x.mean_axis(0), (x * x).mean_axis(0)))),
        "fuse/merged_var_weighted_sum" => go!(fuse(move |x: Sym, y: Sym| {
            (x.var_with(ddof1()), (x * y).sum_with(rows()))
        })),
        "fuse/merged_batchnorm_one_pass" => go!(fuse(|x: Sym| {
            let m = x.mean_axis(0);
            let v = (x * x).mean_axis(0) - m * m;
            (x - m) / (v + 1e-5).sqrt()
        })),
        "fuse/squared_diff_plus_sin" => go!(fuse(|x: Sym, y: Sym| (x - y) * (x - y) + x.sin())),
        "fuse/sum_of_squares" => go!(fuse(|x: Sym, y: Sym| ((x - y) * (x - y)).sum())),
        "fuse/axpy_weak_arg" => go!(fuse(|x: Sym, a: Sym, y: Sym| x * a + y)),
        "fuse/int_chain" => go!(fuse(|x: Sym, y: Sym| (x + 3) * y)),
        "fuse/where_relu" => go!(fuse(|x: Sym| where_(x.greater(0), x, 0.0))),
        "fuse/mean_axis0" => go!(fuse(|x: Sym| (x * 2.0).mean_axis(0))),
        "fuse/promote_int_float" => go!(fuse(|x: Sym, y: Sym| x * y - 1)),
        other => panic!("no fuse closure for {other}"),
    })
}

fn run_fuse(id: &str, args: &[Arg<'_>]) -> Result<Array> {
    match fuse_case(id, args, false)? {
        FuseOut::Arr(a) => Ok(a),
        FuseOut::Ir(_) => unreachable!(),
    }
}

fn elementwise_kernel(k: &Value) -> Result<ElementwiseKernel> {
    // CuPy's constructor with its `preamble=` keyword: a kernel of concrete types is checked
    // when built, so its preamble must come with it.
    ElementwiseKernel::new_with(
        s(k, "in_params"),
        s(k, "out_params"),
        s(k, "operation"),
        s(k, "name"),
        cupy::ElementwiseOptions {
            preamble: s(k, "preamble"),
            ..Default::default()
        },
    )
}

fn reduction_kernel(k: &Value) -> Result<ReductionKernel> {
    let kern = ReductionKernel::new(
        s(k, "in_params"),
        s(k, "out_params"),
        s(k, "map_expr"),
        s(k, "reduce_expr"),
        s(k, "post_map_expr"),
        k["identity"].as_str(),
        s(k, "name"),
    )?;
    match k.get("reduce_type").and_then(|v| v.as_str()) {
        Some(t) => kern.with_reduce_type(t),
        None => Ok(kern),
    }
}

fn out_arrays(g: &Golden, k: &Value, dev: &Device) -> Result<Vec<Array>> {
    match k.get("out") {
        Some(v) => v
            .as_array()
            .unwrap()
            .iter()
            .map(|n| g.array(n.as_str().unwrap()).upload(dev))
            .collect(),
        None => Ok(vec![]),
    }
}

fn exec(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let args: Vec<Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
    cupy::with_device(dev, || match case["op"].as_str().unwrap() {
        "elementwise" => {
            let kern = elementwise_kernel(k)?;
            let outs = out_arrays(g, k, dev)?;
            let out_refs: Vec<&Array> = outs.iter().collect();
            let size = k.get("size").and_then(|v| v.as_u64()).map(|v| v as usize);
            let mut res = kern.call_with(&args, &out_refs, size)?;
            // A raw input the kernel writes in place is the result.
            if let Some(j) = k.get("result_input").and_then(|v| v.as_u64()) {
                return Ok(ops[j as usize].array().clone());
            }
            Ok(res.remove(k["output"].as_u64().unwrap() as usize))
        }
        "reduction" => {
            reduction_kernel(k)?.call(&args, axes(&k["axis"]), k["keepdims"].as_bool().unwrap())
        }
        "fuse" => run_fuse(case["id"].as_str().unwrap(), &args),
        other => panic!("op {other}"),
    })
}

fn tol(case: &Value) -> Tol {
    let k = &case["kwargs"];
    let ulps = k["ulps"].as_u64().unwrap_or(0);
    let abs = k["abs"].as_f64().unwrap_or(0.0);
    if ulps == 0 && abs == 0.0 {
        Tol::EXACT
    } else {
        Tol::UlpsOrAbs(ulps, abs)
    }
}

#[test]
fn custom_kernels_match_numpy() {
    common::run_group(
        "custom",
        exec,
        |_, case, dev| match tol(case) {
            // Vulkan drivers may contract `a * b + c` into one fma (WGSL allows it; NVIDIA's
            // does): float results within 2 ulps. Nor do they keep the sign of zero everywhere.
            Tol::Exact { .. } if common::is_wgpu(dev) => {
                if case["dtype"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("float"))
                {
                    Tol::Ulps(2)
                } else {
                    Tol::Exact { zero_sign: false }
                }
            }
            Tol::UlpsOrAbs(n, a) if common::is_wgpu(dev) => Tol::UlpsOrAbs(n.max(2), a),
            t => t,
        },
        // NumPy's ValueError for an empty reduction without identity.
        |case, e| {
            case["error"] == "ValueError"
                && matches!(e, Error::InvalidArgument { .. })
                && e.to_string().contains("which has no identity")
        },
    );
}

fn parse_err(e: Error) -> (String, usize, usize, String) {
    match e {
        Error::Parse {
            part,
            line,
            column,
            snippet,
            ..
        } => (part, line, column, snippet),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn parse_errors_point_at_the_problem() {
    let e = ElementwiseKernel::new("float32 x", "float32 y", "float t = x;\ny = t +* 2;", "bad")
        .unwrap_err();
    let msg = e.to_string();
    let (part, line, col, snippet) = parse_err(e);
    assert_eq!(part, "operation");
    assert_eq!(line, 2, "{msg}");
    assert!((6..=8).contains(&col), "column {col}: {msg}");
    assert!(
        snippet.contains("y = t +* 2;") && snippet.contains('^'),
        "{snippet}"
    );

    let e =
        ElementwiseKernel::new("float32 x,, float32 y", "float32 z", "z = x", "bad").unwrap_err();
    assert_eq!(parse_err(e).0, "in_params");
    let e = ElementwiseKernel::new("float32 x", "float32 z", "z = undefined_name * x", "bad")
        .unwrap_err();
    assert!(e.to_string().contains("undefined_name"), "{e}");
    let e =
        ElementwiseKernel::new("float32 x", "float32 z", "z = frobnicate(x)", "bad").unwrap_err();
    assert!(e.to_string().contains("frobnicate"), "{e}");
    let e = ElementwiseKernel::new("float32 x", "float32 z", "while (1) { z = x; }", "bad")
        .unwrap_err();
    assert!(matches!(e, Error::Parse { .. }), "{e}");
    let e = ElementwiseKernel::new("float32 x", "float32 z", "x = 1; z = x;", "bad").unwrap_err();
    assert!(
        matches!(e, Error::Parse { .. }),
        "inputs are read-only: {e}"
    );
    assert!(
        ElementwiseKernel::new("float32 x", "float32 z", "z = x", "not an identifier").is_err()
    );
    // Concrete types: a loop bounded by a scalar parameter is valid at construction.
    ElementwiseKernel::new(
        "float32 x, int64 n",
        "float32 y",
        "float s = 0; for (long long j = 0; j < n; j++) s += x; y = s",
        "loop_n",
    )
    .unwrap();
    // identity=None is accepted (CuPy's); an empty identity string is not.
    ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "noid").unwrap();
    let e =
        ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some(" "), "noid").unwrap_err();
    assert!(e.to_string().contains("identity"), "{e}");
    // `_ind` misuse says what is supported.
    let e =
        ElementwiseKernel::new("float32 x", "float32 z", "z = x + _ind.size", "bad").unwrap_err();
    let (part, line, col, _) = parse_err(e.clone());
    assert_eq!((part.as_str(), line, col), ("operation", 1, 9));
    assert!(e.to_string().contains("`_ind.size()`"), "{e}");
    // A 100k-character line gives a short snippet; the column still counts the whole line.
    let long = format!("z = x{} +* 2", " + x".repeat(25_000));
    let e = ElementwiseKernel::new("float32 x", "float32 z", &long, "bad").unwrap_err();
    let (_, _, col, snippet) = parse_err(e);
    assert_eq!(col, long.find("+*").unwrap() + 2);
    assert!(
        snippet.len() < 200 && snippet.starts_with("..."),
        "{snippet}"
    );
}

#[test]
fn call_errors_are_clear() {
    let mut t = common::Tally::new("custom_errors");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3])?;
            let xi = Array::from_slice_on(&dev, &[1i32, 2, 3], &[3])?;
            let x4 = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[4])?;
            let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add_t")?;
            // Wrong argument count.
            let e = k.call(&[(&x).into()]).unwrap_err();
            assert!(e.to_string().contains("takes 2"), "{e}");
            // One placeholder bound to two dtypes.
            let e = k.call(&[(&x).into(), (&xi).into()]).unwrap_err();
            assert!(matches!(e, Error::TypeError { .. }), "{e}");
            // Shapes that do not broadcast.
            let e = k.call(&[(&x).into(), (&x4).into()]).unwrap_err();
            assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
            // A scalar for a raw parameter.
            let r = ElementwiseKernel::new("raw T x", "T z", "z = x[i]", "raw_t")?;
            let e = r.call_with(&[1.0.into()], &[], Some(3)).unwrap_err();
            assert!(e.to_string().contains("raw"), "{e}");
            // No array decides the loop size.
            let e = r.call(&[(&x).into()]).unwrap_err();
            assert!(e.to_string().contains("size"), "{e}");
            // Output placeholder nobody binds.
            let u = ElementwiseKernel::new("T x", "U z", "z = x", "unbound")?;
            let e = u.call(&[(&x).into()]).unwrap_err();
            assert!(e.to_string().contains('U'), "{e}");
            // out array of the wrong dtype: nothing is written.
            let out = Array::from_slice_on(&dev, &[7i32, 7, 7], &[3])?;
            let e = k
                .call_with(&[(&x).into(), (&x).into()], &[&out], None)
                .unwrap_err();
            assert!(matches!(e, Error::TypeError { .. }), "{e}");
            assert_eq!(out.to_vec::<i32>()?, vec![7, 7, 7]);
            // fuse: arity, scalar result.
            let f = fuse(|a: Sym, b: Sym| a + b);
            assert!(f.call(&[(&x).into()]).is_err());
            let f = fuse(|a: Sym| a.sqrt());
            let e = f.call(&[2.0.into()]).unwrap_err();
            assert!(e.to_string().contains("array"), "{e}");
            // fuse on bool subtract: NumPy's TypeError.
            let b = Array::from_slice_on(&dev, &[true, false], &[2])?;
            let f = fuse(|a: Sym, c: Sym| a - c);
            let e = f.call(&[(&b).into(), (&b).into()]).unwrap_err();
            assert!(matches!(e, Error::TypeError { .. }), "{e}");
            Ok(())
        });
        t.check(&dev, "call_errors", r);
    }
    t.finish();
}

/// A fused kernel is cached per signature but takes new scalar values each call, and a new
/// dtype traces anew.
#[test]
fn fuse_reuses_kernels_with_new_values() {
    let mut t = common::Tally::new("fuse_cache");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let f = fuse(|x: Sym, a: Sym| x * a + 1);
            let x = Array::from_slice_on(&dev, &[1.0f32, 2.0], &[2])?;
            assert_eq!(
                f.call(&[(&x).into(), 2.0.into()])?.to_vec::<f32>()?,
                vec![3.0, 5.0]
            );
            assert_eq!(
                f.call(&[(&x).into(), 3.0.into()])?.to_vec::<f32>()?,
                vec![4.0, 7.0]
            );
            let xi = Array::from_slice_on(&dev, &[1i32, 2], &[2])?;
            let r = f.call(&[(&xi).into(), 3.into()])?;
            assert_eq!(r.dtype(), DType::Int32);
            assert_eq!(r.to_vec::<i32>()?, vec![4, 7]);
            // Editing a kernel string never reuses the old kernel.
            let k1 = ElementwiseKernel::new("T x", "T y", "y = x + 1", "edit_me")?;
            let k2 = ElementwiseKernel::new("T x", "T y", "y = x + 2", "edit_me")?;
            assert_eq!(k1.call(&[(&xi).into()])?.to_vec::<i32>()?, vec![2, 3]);
            assert_eq!(k2.call(&[(&xi).into()])?.to_vec::<i32>()?, vec![3, 4]);
            Ok(())
        });
        t.check(&dev, "fuse_cache", r);
    }
    t.finish();
}

/// Every golden user kernel, lowered to the IR and emitted as HIP C++, compiles with AMD's
/// hipRTC for CDNA (gfx90a, wave64) and RDNA (gfx1030, wave32). CI has ROCm's runtime but no AMD
/// GPU; `CUPY_REQUIRE_HIP=1` turns a missing hipRTC into a failure.
#[test]
fn custom_kernels_compile_with_hiprtc() {
    use cupy::core::kernel::cpp::{
        emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
        ReduceSpec,
    };
    let Some(rtc) = common::hiprtc_or_skip() else {
        return;
    };
    let g = Golden::load("custom");
    let cpu = Device::get(BackendKind::Cpu, 0).expect("cpu device");
    let pre = prelude(Flavor::Hip);
    let mut body = String::new();
    let mut names = vec![];
    for (n, case) in g.cases.iter().enumerate() {
        let id = case["id"].as_str().unwrap();
        let k = &case["kwargs"];
        let ops = common::operands(&g, case, &cpu).expect("operands");
        let args: Vec<Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
        // A reduction without identity runs elementwise passes: compile those too.
        let mut passes = vec![];
        if case["op"] == "reduction" {
            passes = reduction_kernel(k).unwrap().pass_kernels(&args).unwrap();
        }
        let ir = match case["op"].as_str().unwrap() {
            "elementwise" if !passes.is_empty() => unreachable!(),
            "elementwise" => {
                let outs = out_arrays(&g, k, &cpu).expect("out arrays");
                let refs: Vec<&Array> = outs.iter().collect();
                Err(elementwise_kernel(k).unwrap().ir(&args, &refs).unwrap())
            }
            "reduction" => Ok(reduction_kernel(k).unwrap().ir(&args).unwrap()),
            _ => match fuse_case(id, &args, true).unwrap() {
                FuseOut::Ir(ir) => ir,
                FuseOut::Arr(_) => unreachable!(),
            },
        };
        // Complex kernels wait for the C++ emitter's complex support (and its wiring of the IR's
        // Real/Imag/Conj/Complex ops).
        let complex = match &ir {
            Err(kern) => kern.dtypes().iter().any(|d| d.is_complex()),
            Ok(kern) => kern.dtypes().iter().any(|d| d.is_complex()),
        };
        if complex {
            eprintln!("NOTICE: {id}: complex kernel not compiled (no complex in the C++ emitter)");
            continue;
        }
        for (p, mut kern) in passes.into_iter().enumerate() {
            kern.name = format!("{}_{n}_{p}", kern.name);
            let spec = ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Strided,
                index64: p % 2 == 0,
            };
            let e = emit_elementwise(&kern, &spec, Flavor::Hip)
                .unwrap_or_else(|e| panic!("{id}: HIP emission of pass {p} failed: {e}"));
            body.push_str(&e.source[pre.len()..]);
        }
        let emitted = match ir {
            Err(mut kern) => {
                kern.name = format!("{}_{n}", kern.name);
                let spec = ElementwiseSpec {
                    ndim: 2,
                    class: ElementwiseClass::Strided,
                    index64: n % 2 == 0,
                };
                emit_elementwise(&kern, &spec, Flavor::Hip)
            }
            Ok(mut kern) => {
                kern.name = format!("{}_{n}", kern.name);
                let spec = ReduceSpec {
                    out_ndim: 1,
                    red_ndim: 1 + n % 2,
                    index64: n % 2 == 0,
                };
                emit_reduce(&kern, &spec, Flavor::Hip)
            }
        };
        let e = emitted.unwrap_or_else(|e| panic!("{id}: HIP emission failed: {e}"));
        body.push_str(&e.source[pre.len()..]);
        names.push(id);
    }
    for target in ["gfx90a", "gfx1030"] {
        let opts = cupy_hip::kernels::compile_options(target);
        let src = format!("{pre}{body}");
        if let Err(e) = rtc.compile(&src, "custom_kernels.hip", &opts) {
            let log: Vec<&str> = e.log.lines().take(60).collect();
            panic!("hipRTC ({target}) failed: {}\n{}", e.text, log.join("\n"));
        }
        eprintln!("hipRTC {target}: {} user kernels compiled", names.len());
        common::report(&format!(
            "hip custom_kernels_compile_with_hiprtc {target} {} kernels",
            names.len()
        ));
    }
}

fn sl(start: isize, stop: isize, step: isize) -> cupy::SliceItem {
    cupy::SliceItem::Slice {
        start: Some(start),
        stop: Some(stop),
        step,
    }
}

/// Raw writes: in-place use of one array as a raw input and a raw output, out-of-range writes
/// that leave the neighbours of a view alone, and the argument checks.
#[test]
fn raw_writes_in_place_and_bounds() {
    let mut t = common::Tally::new("custom_raw_writes");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let rev = ElementwiseKernel::new(
                "raw T x",
                "raw T y",
                "y[_ind.size() - 1 - i] = x[i]",
                "reverse",
            )?;
            // x is both the raw input and the raw output: it reads the values from before.
            let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
            let res = rev.call_with(&[(&x).into()], &[&x], Some(5))?;
            assert_eq!(x.to_vec::<f32>()?, vec![5.0, 4.0, 3.0, 2.0, 1.0]);
            assert_eq!(res[0].to_vec::<f32>()?, vec![5.0, 4.0, 3.0, 2.0, 1.0]);
            // A raw output allocated from `size` starts as zeros; rows of a 2-D out work too.
            let y = rev.call_with(&[(&x).into()], &[], Some(5))?.remove(0);
            assert_eq!(y.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
            // Writes outside the raw array are dropped: the neighbours in the buffer survive.
            let base = Array::from_slice_on(&dev, &[9i32; 10], &[10])?;
            let view = base.slice(&[sl(2, 6, 1)])?;
            let k = ElementwiseKernel::new("int32 j", "raw int32 y", "y[j] = j", "scatter_oob")?;
            let j = Array::from_slice_on(&dev, &[-2i32, -1, 0, 3, 4, 5, 1000], &[7])?;
            k.call_with(&[(&j).into()], &[&view], None)?;
            assert_eq!(
                base.to_vec::<i32>()?,
                vec![9, 9, 0, 9, 9, 3, 9, 9, 9, 9],
                "only y[0] and y[3] are in range"
            );
            // A strided raw output is written through a copy and copied back.
            let base = Array::from_slice_on(&dev, &[0i32; 8], &[8])?;
            let strided = base.slice(&[sl(1, 8, 2)])?;
            let k = ElementwiseKernel::new("", "raw int32 y", "y[i] = i + 1", "fill_strided")?;
            k.call_with(&[], &[&strided], Some(4))?;
            assert_eq!(base.to_vec::<i32>()?, vec![0, 1, 0, 2, 0, 3, 0, 4]);
            // A written raw argument of another dtype would lose the writes: TypeError.
            let xi = Array::from_slice_on(&dev, &[1i32, 2, 3], &[3])?;
            let k = ElementwiseKernel::new("raw float32 x", "float32 y", "x[i] = 1; y = 0", "w")?;
            let e = k.call_with(&[(&xi).into()], &[], Some(3)).unwrap_err();
            assert!(matches!(e, Error::TypeError { .. }), "{e}");
            assert_eq!(xi.to_vec::<i32>()?, vec![1, 2, 3]);
            // Raw outputs do not decide the loop size.
            let e = rev.call_with(&[(&x).into()], &[&x], None).unwrap_err();
            assert!(e.to_string().contains("size"), "{e}");
            // An elementwise input that aliases a written raw array reads the old values.
            let a = Array::from_slice_on(&dev, &[1i64, 2, 3, 4], &[4])?;
            let k = ElementwiseKernel::new(
                "T v, raw T y",
                "T z",
                "y[_ind.size() - 1 - i] = v * 10;\nz = v",
                "alias",
            )?;
            let z = k.call(&[(&a).into(), (&a).into()])?;
            assert_eq!(z.to_vec::<i64>()?, vec![1, 2, 3, 4]);
            assert_eq!(a.to_vec::<i64>()?, vec![40, 30, 20, 10]);
            Ok(())
        });
        t.check(&dev, "raw_writes", r);
    }
    t.finish();
}

/// A concretely typed parameter refuses an array of another dtype, as CuPy's "Type is
/// mismatched" TypeError (no silent cast), for elementwise and reduction kernels, raw or not;
/// scalars are still cast.
#[test]
fn typed_params_refuse_other_array_dtypes() {
    let mut t = common::Tally::new("custom_type_mismatch");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let k = ElementwiseKernel::new(
                "float32 x, float32 a",
                "float32 y",
                "y = x * a",
                "scale32",
            )?;
            let xs = Array::from_slice_on(&dev, &[1.0f32, 2.0], &[2])?;
            let xi = Array::from_slice_on(&dev, &[1i32, 2], &[2])?;
            let mismatch = |e: Error, have: DType| match e {
                Error::TypeError { op, dtypes, msg }
                    if op == "scale32" || op == "rsum32" || op == "rawsum32" =>
                {
                    assert_eq!(dtypes, vec![DType::Float32, have]);
                    assert!(
                        msg.contains("type is mismatched") && msg.contains("parameter x"),
                        "{msg}"
                    );
                }
                e => panic!("want a TypeError, got {e}"),
            };
            // An int array for a float32 parameter is mismatched too (CuPy's rule).
            mismatch(
                k.call(&[(&xi).into(), 2.0.into()]).unwrap_err(),
                DType::Int32,
            );
            if let Ok(xd) = Array::from_slice_on(&dev, &[1.0f64, 2.0], &[2]) {
                mismatch(
                    k.call(&[(&xd).into(), 2.0.into()]).unwrap_err(),
                    DType::Float64,
                );
                let red = ReductionKernel::new(
                    "float32 x",
                    "float32 y",
                    "x",
                    "a + b",
                    "y = a",
                    Some("0"),
                    "rsum32",
                )?;
                mismatch(
                    red.call(&[(&xd).into()], Axes::All, false).unwrap_err(),
                    DType::Float64,
                );
            }
            let raw = ElementwiseKernel::new("raw float32 x", "float32 y", "y = x[0]", "rawsum32")?;
            mismatch(
                raw.call_with(&[(&xi).into()], &[], Some(2)).unwrap_err(),
                DType::Int32,
            );
            // Weak and typed scalars are cast to the declared type.
            assert_eq!(
                k.call(&[(&xs).into(), 3.into()])?.to_vec::<f32>()?,
                vec![3.0, 6.0]
            );
            let s = Arg::Typed(cupy::Scalar::Int16(2));
            assert_eq!(k.call(&[(&xs).into(), s])?.to_vec::<f32>()?, vec![2.0, 4.0]);
            Ok(())
        });
        t.check(&dev, "type mismatch", r);
    }
    t.finish();
}

/// `fuse`: ops among weak scalars stay weak (NEP 50), so `1 - x*x / (h*h)` with a float32 `x`
/// and a Rust number `h` is float32 as the unfused chain; the weak value follows each call's
/// argument, and `astype` of a scalar argument too.
#[test]
fn fuse_weak_scalar_ops_stay_weak() {
    let mut t = common::Tally::new("fuse_weak_ops");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let x = Array::from_slice_on(&dev, &[0.0f32, 1.0, 2.0, 3.0, 0.5], &[5])?;
            let f = fuse(|x: Sym, h: Sym| 1.0 - (x * x) / (h * h));
            let y = f.call(&[(&x).into(), 2.0.into()])?;
            assert_eq!(y.dtype(), DType::Float32);
            // np.float32(1) - x*x / np.float32(4.0), then / 16.
            assert_eq!(y.to_vec::<f32>()?, vec![1.0, 0.75, 0.0, -1.25, 0.9375]);
            let y = f.call(&[(&x).into(), 4.0.into()])?;
            assert_eq!(
                y.to_vec::<f32>()?,
                vec![1.0, 0.9375, 0.75, 0.4375, 0.984375]
            );
            // Integers: n * 3 stays a weak int, so int8 + 6 is int8; 300 does not fit int8.
            let xi = Array::from_slice_on(&dev, &[1i8, -2, 100], &[3])?;
            let fi = fuse(|x: Sym, n: Sym| x + n * 3);
            let yi = fi.call(&[(&xi).into(), 2.into()])?;
            assert_eq!(yi.dtype(), DType::Int8);
            assert_eq!(yi.to_vec::<i8>()?, vec![7, 4, 106]);
            let e = fi.call(&[(&xi).into(), 100.into()]).unwrap_err();
            assert!(matches!(e, Error::ScalarOverflow { .. }), "{e}");
            // astype of a scalar argument takes each call's value.
            let fa = fuse(|x: Sym, a: Sym| x + a.astype(DType::Float32));
            assert_eq!(
                fa.call(&[(&x).into(), 2.0.into()])?.to_vec::<f32>()?,
                vec![2.0, 3.0, 4.0, 5.0, 2.5]
            );
            assert_eq!(
                fa.call(&[(&x).into(), 3.0.into()])?.to_vec::<f32>()?,
                vec![3.0, 4.0, 5.0, 6.0, 3.5]
            );
            Ok(())
        });
        t.check(&dev, "weak ops", r);
    }
    t.finish();
}
