//! Reductions (sum, prod, max, min, mean) against NumPy goldens: axis None/int/tuple/negative,
//! keepdims, 1-3-D inputs, reversed/transposed/broadcast views, empty axes, NaN propagation.

use crate::common::{self, axes, Golden, Operand, Tol};
use cupy::{Array, Axes, DType, Device, Error, Reduce, Reduction, Result};
use serde_json::Value;

fn reduction(name: &str) -> &'static Reduction {
    cupy::reduction(name).unwrap_or_else(|| panic!("no reduction {name}"))
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    cupy::reduce(
        reduction(case["op"].as_str().unwrap()),
        ops[0].array(),
        &Reduce {
            axis: axes(&k["axis"]),
            keepdims: k["keepdims"].as_bool().unwrap(),
            ..Default::default()
        },
    )
}

#[test]
fn reductions_match_numpy() {
    common::run_group(
        "reductions",
        exec,
        |g, case, _| match case["op"].as_str().unwrap() {
            "max" | "min" => Tol::EXACT,
            _ => common::scaled_tol(g, case),
        },
        |case, e| {
            // NumPy: ValueError "zero-size array to reduction operation maximum which has no identity".
            case["error"] == "ValueError"
                && matches!(e, Error::InvalidArgument { msg, .. } if msg.contains("zero-size array"))
                || common::generic_error_match(case, e)
        },
    );
}

/// The method forms give the same results as `reduce`.
#[test]
fn reduction_methods() {
    let mut t = common::Tally::new("reduction_methods");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
            let check = |name: &str, x: Array, want: Vec<f64>, shape: &[usize]| {
                let got = x.to_vec::<f64>().map_err(|e| e.to_string())?;
                if got != want || x.shape() != shape {
                    return Err(format!(
                        "{name}: got {got:?} {:?}, want {want:?} {shape:?}",
                        x.shape()
                    ));
                }
                Ok(())
            };
            check("sum", a.sum()?, vec![21.0], &[])?;
            check("prod", a.prod()?, vec![720.0], &[])?;
            check("max", a.max()?, vec![6.0], &[])?;
            check("min", a.min()?, vec![1.0], &[])?;
            check("mean", a.mean()?, vec![3.5], &[])?;
            check("sum_axis(0)", a.sum_axis(0)?, vec![5.0, 7.0, 9.0], &[3])?;
            check(
                "sum_axis([-1])",
                a.sum_with(Reduce {
                    axis: [-1].into(),
                    keepdims: true,
                    ..Default::default()
                })?,
                vec![6.0, 15.0],
                &[2, 1],
            )?;
            check("max_axis(vec)", a.max_axis(vec![0, 1])?, vec![6.0], &[])?;
            check(
                "mean_axis(All)",
                a.mean_with(Reduce {
                    keepdims: true,
                    ..Default::default()
                })?,
                vec![3.5],
                &[1, 1],
            )?;
            check("min_axis(1)", a.min_axis(1)?, vec![1.0, 4.0], &[2])?;
            check(
                "prod_axis(0)",
                a.prod_axis(-2)?,
                vec![4.0, 10.0, 18.0],
                &[3],
            )?;
            check(
                "cupy::sum",
                cupy::sum_with(&a, Axes::from(1))?,
                vec![6.0, 15.0],
                &[2],
            )?;
            check("cupy::mean", cupy::mean(&a)?, vec![3.5], &[])?;
            check("cupy::max", cupy::max(&a)?, vec![6.0], &[])?;
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}

/// NumPy's keyword arguments through `Reduce`: `dtype=` (accumulation and result dtype, with
/// wrap-around in small integers), `keepdims=` with several axes, `out=`, and the refusals.
#[test]
fn reduce_options() {
    let mut t = common::Tally::new("reduce_options");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            // int8 sums: NumPy accumulates in int64 by default, and wraps with dtype=int8.
            let a = Array::from_slice_on(&dev, &[100i8, 100, 100, -5], &[2, 2])?;
            let s = a.sum()?;
            if s.dtype() != DType::Int64 || s.to_vec::<i64>()? != vec![295] {
                return Err(format!("sum(int8) = {s:?}").into());
            }
            let w = a.sum_with(Reduce {
                dtype: Some(DType::Int8),
                ..Default::default()
            })?;
            // 100 + 100 + 100 - 5 = 295 = 39 (mod 256), as numpy.sum(a, dtype=int8).
            if w.dtype() != DType::Int8 || w.to_vec::<i8>()? != vec![39] {
                return Err(format!("sum(int8, dtype=int8) = {w:?}").into());
            }
            let p = cupy::prod_with(
                &a,
                Reduce {
                    axis: 1.into(),
                    dtype: Some(DType::Int16),
                    ..Default::default()
                },
            )?;
            // 100 * 100 = 10000 fits int16; 100 * -5 = -500.
            if p.dtype() != DType::Int16 || p.to_vec::<i16>()? != vec![10000, -500] {
                return Err(format!("prod(int8, axis=1, dtype=int16) = {p:?}").into());
            }
            let f = Array::from_slice_on(&dev, &[1.5f32, 2.5, 3.0, 4.0, 5.0, 6.0], &[1, 2, 3])?;
            let k = cupy::sum_with(
                &f,
                Reduce {
                    axis: [0, 2].into(),
                    keepdims: true,
                    ..Default::default()
                },
            )?;
            if k.shape() != [1, 2, 1] || k.to_vec::<f32>()? != vec![7.0, 15.0] {
                return Err(format!("sum(axis=(0, 2), keepdims) = {k:?}").into());
            }
            let m = Array::from_slice_on(&dev, &[1i32, 2, 4, 5], &[4])?.mean_with(Reduce {
                dtype: Some(DType::Float32),
                ..Default::default()
            })?;
            if m.dtype() != DType::Float32 || m.to_vec::<f32>()? != vec![3.0] {
                return Err(format!("mean(int32, dtype=float32) = {m:?}").into());
            }
            let b = Array::from_slice_on(&dev, &[true, false, true], &[3])?;
            if b.sum()?.to_vec::<i64>()? != vec![2] {
                return Err("sum(bool) counts".to_string().into());
            }
            // out=: written in place (cast same_kind), and returned.
            let out = Array::zeros_on(&dev, &[2], DType::Float32)?;
            let r = f.reshape(&[2, 3])?.sum_with(Reduce {
                axis: 1.into(),
                out: Some(out.clone()),
                ..Default::default()
            })?;
            if !r.shares_memory_with(&out) || out.to_vec::<f32>()? != vec![7.0, 15.0] {
                return Err(format!("sum(out=) wrote {out:?}").into());
            }
            let bad = Array::zeros_on(&dev, &[3], DType::Float32)?;
            match f.sum_with(Reduce {
                axis: 2.into(),
                out: Some(bad),
                ..Default::default()
            }) {
                Err(Error::InvalidArgument { msg, .. }) if msg.contains("[1, 2]") => {}
                other => return Err(format!("sum(out of the wrong shape): {other:?}").into()),
            }
            let iout = Array::zeros_on(&dev, &[], DType::Int32)?;
            match f.sum_with(Reduce {
                out: Some(iout),
                ..Default::default()
            }) {
                Err(Error::TypeError { msg, .. }) if msg.contains("same_kind") => {}
                other => return Err(format!("sum(float32, out=int32): {other:?}").into()),
            }
            match f.max_with(Reduce {
                dtype: Some(DType::Float64),
                ..Default::default()
            }) {
                Err(Error::TypeError { msg, .. }) if msg.contains("dtype") => {}
                other => return Err(format!("max(dtype=): {other:?}").into()),
            }
            Ok(())
        })();
        t.check(&dev, "options", r);
    }
    t.finish();
}
