//! User kernels on every backend: `ElementwiseKernel`, `ReductionKernel` (CuPy's strings) and
//! `fuse` (traced closures) against NumPy references (tests/golden/gen.py `gen_custom`), plus
//! their error paths.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{
    fuse, where_, Arg, Array, Axes, DType, Device, ElementwiseKernel, Error, ReductionKernel,
    Result, Sym,
};
use serde_json::Value;

fn axes(v: &Value) -> Axes {
    match v {
        Value::Null => Axes::All,
        Value::Number(n) => Axes::Some(vec![n.as_i64().unwrap() as isize]),
        Value::Array(a) => Axes::Some(a.iter().map(|x| x.as_i64().unwrap() as isize).collect()),
        other => panic!("axis {other}"),
    }
}

fn s<'a>(k: &'a Value, key: &str) -> &'a str {
    k[key].as_str().unwrap_or("")
}

fn run_fuse(id: &str, args: &[Arg<'_>]) -> Result<Array> {
    match id {
        "fuse/squared_diff_plus_sin" => {
            fuse(|x: Sym, y: Sym| (x - y) * (x - y) + x.sin()).call(args)
        }
        "fuse/sum_of_squares" => fuse(|x: Sym, y: Sym| ((x - y) * (x - y)).sum()).call(args),
        "fuse/axpy_weak_arg" => fuse(|x: Sym, a: Sym, y: Sym| x * a + y).call(args),
        "fuse/int_chain" => fuse(|x: Sym, y: Sym| (x + 3) * y).call(args),
        "fuse/where_relu" => fuse(|x: Sym| where_(x.greater(0), x, 0.0)).call(args),
        "fuse/mean_axis0" => fuse(|x: Sym| (x * 2.0).mean_axis(0, false)).call(args),
        "fuse/promote_int_float" => fuse(|x: Sym, y: Sym| x * y - 1).call(args),
        other => panic!("no fuse closure for {other}"),
    }
}

fn exec(g: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let args: Vec<Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
    cupy::with_device(dev, || match case["op"].as_str().unwrap() {
        "elementwise" => {
            let kern = ElementwiseKernel::new(
                s(k, "in_params"),
                s(k, "out_params"),
                s(k, "operation"),
                s(k, "name"),
            )?
            .with_preamble(s(k, "preamble"))?;
            let outs: Vec<Array> = match k.get("out") {
                Some(v) => v
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| g.array(n.as_str().unwrap()).upload(dev))
                    .collect::<Result<_>>()?,
                None => vec![],
            };
            let out_refs: Vec<&Array> = outs.iter().collect();
            let size = k.get("size").and_then(|v| v.as_u64()).map(|v| v as usize);
            let mut res = kern.call_with(&args, &out_refs, size)?;
            Ok(res.remove(k["output"].as_u64().unwrap() as usize))
        }
        "reduction" => {
            let mut kern = ReductionKernel::new(
                s(k, "in_params"),
                s(k, "out_params"),
                s(k, "map_expr"),
                s(k, "reduce_expr"),
                s(k, "post_map_expr"),
                Some(s(k, "identity")),
                s(k, "name"),
            )?;
            if let Some(t) = k.get("reduce_type").and_then(|v| v.as_str()) {
                kern = kern.with_reduce_type(t)?;
            }
            kern.call(&args, axes(&k["axis"]), k["keepdims"].as_bool().unwrap())
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
            // NVIDIA's Vulkan driver and llvmpipe do not keep the sign of zero everywhere.
            Tol::Exact { .. } if common::is_wgpu(dev) => Tol::Exact { zero_sign: false },
            t => t,
        },
        |_, _| false,
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
    let e = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", None, "noid").unwrap_err();
    assert!(e.to_string().contains("identity"), "{e}");
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
            // fuse: arity, reduction not last, scalar result.
            let f = fuse(|a: Sym, b: Sym| a + b);
            assert!(f.call(&[(&x).into()]).is_err());
            let f = fuse(|a: Sym| a.sum() + 1.0);
            let e = f.call(&[(&x).into()]).unwrap_err();
            assert!(e.to_string().contains("last"), "{e}");
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
