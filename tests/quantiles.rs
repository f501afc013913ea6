//! The sorted-row order statistics against NumPy goldens (group `quantiles`): `median`,
//! `quantile`, `percentile` and their `nan*` forms, NumPy's 13 methods, scalar and array `q`,
//! axis tuples, keepdims, NaN, empty axes and the errors.

use crate::common::{self, Golden, Operand, Tol};
use crate::nanstats::axes;
use cupy::{Array, Device, Error, Median, Probabilities, Quantile, QuantileMethod, Result};
use serde_json::Value;

fn probs(v: &Value) -> Probabilities {
    match v {
        Value::Number(n) => n.as_f64().unwrap().into(),
        Value::Array(rows) if rows.iter().all(|r| r.is_number()) => rows
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect::<Vec<f64>>()
            .into(),
        Value::Array(rows) => {
            let inner: Vec<Vec<f64>> = rows
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect()
                })
                .collect();
            let shape = [inner.len(), inner[0].len()];
            Probabilities::with_shape(inner.concat(), &shape).unwrap()
        }
        other => panic!("q {other}"),
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let a = ops[0].array();
    let keepdims = k["keepdims"].as_bool().unwrap_or(false);
    let op = case["op"].as_str().unwrap();
    if op == "median" || op == "nanmedian" {
        let o = Median {
            axis: axes(&k["axis"]),
            keepdims,
            out: None,
        };
        return if op == "median" {
            cupy::median_with(a, o)
        } else {
            cupy::nanmedian_with(a, o)
        };
    }
    let method = match k.get("method") {
        Some(m) => QuantileMethod::from_name(m.as_str().unwrap())?,
        None => QuantileMethod::Linear,
    };
    let operand = |name: &str| k[name].as_u64().map(|i| ops[i as usize].array().clone());
    let out = operand("out");
    let o = Quantile {
        axis: axes(&k["axis"]),
        method,
        keepdims,
        out: out.clone(),
        weights: operand("weights"),
    };
    let q = probs(&k["q"]);
    let r = match op {
        "quantile" => cupy::quantile_with(a, q, o),
        "percentile" => cupy::percentile_with(a, q, o),
        "nanquantile" => cupy::nanquantile_with(a, q, o),
        "nanpercentile" => cupy::nanpercentile_with(a, q, o),
        op => panic!("quantiles op {op}"),
    }?;
    match out {
        // the values read back from `out` itself, which the call returned
        Some(o) if r.shares_memory_with(&o) && r.shape() == o.shape() => Ok(o),
        Some(_) => Err(Error::invalid(op, "out= was not returned")),
        None => Ok(r),
    }
}

/// The text of NumPy's message up to its first value (`(`, `=`, `[`), without a final period:
/// the part a refusal of cupy-rs repeats.
fn message_head(case: &Value) -> &str {
    let m = case["message"].as_str().unwrap_or("");
    let end = m.find(['(', '=', '[']).unwrap_or(m.len());
    m[..end].trim_end_matches('.')
}

#[test]
fn quantiles_match_numpy() {
    common::run_group(
        "quantiles",
        exec,
        // NumPy's lerp `a + (b - a) * t` in one rounding each; a GPU compiler may contract it
        // into an fma (NVIDIA's Vulkan driver does: 4 ulps off NumPy on the H200 where the
        // lerp cancels), so wgpu is held to 4 ulps and the other backends to 1.
        |_, _, dev| {
            if dev.kind() == cupy::BackendKind::Wgpu {
                Tol::Ulps(4)
            } else {
                Tol::Ulps(1)
            }
        },
        |case, e| match case["error"].as_str().unwrap_or("") {
            "IndexError" => matches!(e, Error::IndexOutOfBounds { .. }),
            "ValueError" => {
                matches!(e, Error::InvalidArgument { msg, .. } if msg.contains(message_head(case)))
            }
            _ => common::generic_error_match(case, e),
        },
    );
}

/// The free functions with their defaults, NumPy's values typed in.
#[test]
fn quantile_functions() {
    let mut t = common::Tally::new("quantile_functions");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a =
                Array::from_slice_on(&dev, &[3.0f64, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], &[2, 4])?;
            let f = |x: Array| x.to_vec::<f64>().map_err(|e| e.to_string());
            // np.median(a) = 3.5; np.median(a, axis=1) = [2, 5.5]
            if f(cupy::median(&a)?)? != vec![3.5] || f(cupy::median_with(&a, 1)?)? != vec![2.0, 5.5]
            {
                return Err("median".to_string().into());
            }
            // np.percentile(a, [25, 50]) = [1.75, 3.5]
            let p = cupy::percentile(&a, [25.0, 50.0])?;
            if p.shape() != [2] || f(p)? != vec![1.75, 3.5] {
                return Err("percentile".to_string().into());
            }
            // np.quantile(a, 0.5, axis=0, method='lower') = [3, 1, 4, 1] vs [5, 9, 2, 6] -> [3, 1, 2, 1]
            let q = cupy::quantile_with(
                &a,
                0.5,
                Quantile {
                    axis: 0.into(),
                    method: QuantileMethod::Lower,
                    ..Default::default()
                },
            )?;
            if f(q)? != vec![3.0, 1.0, 2.0, 1.0] {
                return Err("quantile lower".to_string().into());
            }
            let n = Array::from_slice_on(&dev, &[1.0f32, f32::NAN, 3.0], &[3])?;
            if cupy::nanmedian(&n)?.to_vec::<f32>()? != vec![2.0] {
                return Err("nanmedian".to_string().into());
            }
            if !cupy::median(&n)?.to_vec::<f32>()?[0].is_nan() {
                return Err("median of NaN".to_string().into());
            }
            match cupy::quantile(&a, 2.0) {
                Err(Error::InvalidArgument { op, .. }) if op == "quantile" => {}
                other => return Err(format!("quantile(q=2): {other:?}").into()),
            }
            Ok(())
        })();
        t.check(&dev, "functions", r);
    }
    t.finish();
}
