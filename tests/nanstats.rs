//! The reductions' keywords and the NaN-aware and counting reductions against NumPy goldens
//! (group `nanstats`): `initial=`, `where=` (broadcast masks, all-false slices, max/min
//! without initial), `dtype=`, `ddof`; the `nan*` reductions (all-NaN slices, empty axes),
//! `ptp`, `count_nonzero`, `any`, `all`, complex `max`/`min`, and `average` (weights,
//! `returned`).

use crate::common::{self, dtype_of, json_f64, Golden, Operand, Tol};
use cupy::{Array, Average, Axes, Device, Error, Reduce, Result, WeakScalar};
use serde_json::Value;

pub(crate) fn axes(v: &Value) -> Axes {
    match v {
        Value::Null => Axes::All,
        Value::Number(n) => Axes::Some(vec![n.as_i64().unwrap() as isize]),
        Value::Array(a) => Axes::Some(a.iter().map(|x| x.as_i64().unwrap() as isize).collect()),
        other => panic!("axis {other}"),
    }
}

/// A weak scalar written as gen.py writes scalar inputs.
pub(crate) fn weak(v: &Value) -> WeakScalar {
    let x = &v["value"];
    match v["weak"].as_str().unwrap() {
        "int" => WeakScalar::Int(x.as_i64().unwrap() as i128),
        "bool" => WeakScalar::Bool(x.as_bool().unwrap()),
        "float" => WeakScalar::Float(json_f64(x)),
        k => panic!("weak kind {k}"),
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let keepdims = k["keepdims"].as_bool().unwrap_or(false);
    match case["op"].as_str().unwrap() {
        op @ ("average" | "average_returned") => {
            let opts = Average {
                axis: axes(&k["axis"]),
                weights: ops.get(1).map(|w| w.array().clone()),
                keepdims,
            };
            let (avg, scl) = cupy::average_returned(ops[0].array(), opts)?;
            Ok(if op == "average" { avg } else { scl })
        }
        name => {
            let r = cupy::reduction(name).unwrap_or_else(|| panic!("no reduction {name}"));
            let opts = Reduce {
                axis: axes(&k["axis"]),
                keepdims,
                ddof: k["ddof"].as_u64().unwrap_or(0) as usize,
                dtype: k.get("dtype").map(dtype_of),
                initial: k.get("initial").map(weak),
                where_: if k["where"].as_bool() == Some(true) {
                    Some(ops[1].array().clone())
                } else {
                    None
                },
                out: None,
            };
            cupy::reduce(r, ops[0].array(), &opts)
        }
    }
}

/// NumPy's ValueError messages and the words our `InvalidArgument` carries for each.
const VALUE_ERRORS: &[(&str, &str)] = &[
    ("zero-size array", "zero-size array"),
    ("empty sequence", "empty sequence"),
    ("All-NaN slice", "All-NaN slice"),
    ("does not have an identity", "does not have an identity"),
    ("Weights sum to zero", "Weights sum to zero"),
    ("Shape of weights", "Shape of weights"),
];

/// Whether `e` is our error for the NumPy exception `case` records.
pub(crate) fn value_error_match(case: &Value, e: &Error) -> bool {
    let msg = case["message"].as_str().unwrap_or("");
    if case["error"] == "ValueError" {
        if let Error::InvalidArgument { msg: m, .. } = e {
            return VALUE_ERRORS
                .iter()
                .any(|(np, ours)| msg.contains(np) && m.contains(ours));
        }
        return false;
    }
    common::generic_error_match(case, e)
}

#[test]
fn nanstats_match_numpy() {
    common::run_group(
        "nanstats",
        exec,
        |g, case, _| {
            let op = case["op"].as_str().unwrap();
            match op {
                _ if case.get("scale").is_some() => common::scaled_tol(g, case),
                "average" | "average_returned" => Tol::Ulps(4),
                _ => Tol::Exact { zero_sign: false },
            }
        },
        value_error_match,
    );
}

/// The keywords through the method forms, NumPy's values typed in.
#[test]
fn reduce_keywords() {
    let mut t = common::Tally::new("reduce_keywords");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f64, 5.0, f64::NAN, 5.0, -2.0, 0.5], &[2, 3])?;
            let f = |x: Array| x.to_vec::<f64>().map_err(|e| e.to_string());
            let mask = Array::from_slice_on(&dev, &[true, false, true], &[3])?;
            // np.nansum(a, axis=1, where=[T, F, T], initial=10) = [11, 15.5]
            let s = a.nansum_with(Reduce {
                axis: 1.into(),
                where_: Some(mask.clone()),
                initial: Some(WeakScalar::Int(10)),
                ..Default::default()
            })?;
            if f(s.clone())? != vec![11.0, 15.5] {
                return Err(format!("nansum(where, initial) = {s:?}").into());
            }
            // np.nanmax(a, axis=0) = [5, 5, 0.5]; np.max(a) = nan
            if f(a.nanmax_axis(0)?)? != vec![5.0, 5.0, 0.5] {
                return Err("nanmax axis 0".to_string().into());
            }
            if !f(a.max()?)?[0].is_nan() {
                return Err("max propagates NaN".to_string().into());
            }
            // An infinite element makes NumPy's `x - mean` NaN: np.var([1, 1, inf]),
            // np.var([-inf, 7]), np.std([inf]) and np.nanvar([1, inf, nan]) are all nan, and
            // np.nanvar([1, nan, 2]) = 0.25 (the NaN counted out of the mean too).
            for (v, nan_version) in [
                (vec![1.0, 1.0, f64::INFINITY], false),
                (vec![f64::NEG_INFINITY, 7.0], false),
                (vec![f64::INFINITY], false),
                (vec![1.0, f64::INFINITY, f64::NAN], true),
            ] {
                let x = Array::from_slice_on(&dev, &v, &[v.len()])?;
                let r = if nan_version { x.nanvar()? } else { x.var()? };
                let sd = if nan_version { x.nanstd()? } else { x.std()? };
                if !(f(r)?[0].is_nan() && f(sd)?[0].is_nan()) {
                    return Err(format!("var/std of {v:?} is not nan").into());
                }
            }
            let x = Array::from_slice_on(&dev, &[1.0f64, f64::NAN, 2.0], &[3])?;
            if f(x.nanvar()?)? != vec![0.25] {
                return Err("nanvar([1, nan, 2])".to_string().into());
            }
            // np.ptp(a, axis=1) = [nan, 7]
            let p = f(a.ptp_axis(1)?)?;
            if !(p[0].is_nan() && p[1] == 7.0) {
                return Err(format!("ptp = {p:?}").into());
            }
            // np.mean(a, axis=1, where=[T, F, T]) = [nan, 0.5 * (5 + 0.5)]
            let m = f(a.mean_with(Reduce {
                axis: 1.into(),
                where_: Some(mask),
                ..Default::default()
            })?)?;
            if !(m[0].is_nan() && m[1] == 2.75) {
                return Err(format!("mean(where) = {m:?}").into());
            }
            let c = a.count_nonzero()?.to_vec::<i64>()?;
            if c != vec![6] {
                return Err(format!("count_nonzero = {c:?}").into());
            }
            if a.all()?.to_vec::<bool>()? != vec![true] || !a.any_axis(0)?.to_vec::<bool>()?[0] {
                return Err("any/all".to_string().into());
            }
            // np.nanargmin(a, axis=1) = [0, 1]
            if a.nanargmin_axis(1)?.to_vec::<i64>()? != vec![0, 1] {
                return Err("nanargmin".to_string().into());
            }
            // np.average([[1, 5], [3, 7]], axis=1, weights=[3, 1]) = [2, 4]
            let b = Array::from_slice_on(&dev, &[1.0f64, 5.0, 3.0, 7.0], &[2, 2])?;
            let w = Array::from_slice_on(&dev, &[3.0f64, 1.0], &[2])?;
            let avg = cupy::average_with(
                &b,
                Average {
                    axis: 1.into(),
                    weights: Some(w),
                    ..Default::default()
                },
            )?;
            if f(avg.clone())? != vec![2.0, 4.0] {
                return Err(format!("average = {avg:?}").into());
            }
            // refusals name the op and the keyword
            match a.argmax_with(Reduce {
                initial: Some(WeakScalar::Int(0)),
                ..Default::default()
            }) {
                Err(Error::TypeError { op, msg, .. })
                    if op == "argmax" && msg.contains("initial") => {}
                other => return Err(format!("argmax(initial=): {other:?}").into()),
            }
            let im = Array::from_slice_on(&dev, &[1i32, 0, 1], &[3])?;
            match a.sum_with(Reduce {
                where_: Some(im),
                ..Default::default()
            }) {
                Err(Error::TypeError { msg, .. }) if msg.contains("bool") => {}
                other => return Err(format!("sum(where=int32): {other:?}").into()),
            }
            // fused: the nan* rewrite splices into the traced map; ddof= reaches var
            let f = cupy::fuse(|x: cupy::Sym| (x * 2.0).nansum());
            let fs = f.call(&[(&a).into()])?.to_vec::<f64>()?;
            if fs != vec![2.0 * 9.5] {
                return Err(format!("fused nansum = {fs:?}").into());
            }
            let b2 = Array::from_slice_on(&dev, &[1.0f64, 2.0, 4.0], &[3])?;
            let fv = cupy::fuse(|x: cupy::Sym| {
                x.var_with(Reduce {
                    ddof: 1,
                    ..Default::default()
                })
            });
            // np.var([1, 2, 4], ddof=1) = 2.333...
            let v = fv.call(&[(&b2).into()])?.to_vec::<f64>()?[0];
            if (v - 7.0 / 3.0).abs() > 1e-12 {
                return Err(format!("fused var(ddof=1) = {v}").into());
            }
            let bad = Array::from_slice_on(&dev, &[true, false], &[2])?;
            match a.sum_with(Reduce {
                where_: Some(bad),
                ..Default::default()
            }) {
                Err(Error::ShapeMismatch { .. }) => {}
                other => return Err(format!("sum(where of shape [2]): {other:?}").into()),
            }
            Ok(())
        })();
        t.check(&dev, "keywords", r);
    }
    t.finish();
}
