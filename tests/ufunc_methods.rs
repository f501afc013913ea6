//! Ufunc keywords (`dtype=`, `where=`, `casting=`, `out=`) and methods (`reduce`, `accumulate`,
//! `reduceat`, `outer`, `at`) against NumPy goldens (group `ufunc_methods`), plus behaviour the
//! goldens cannot show (masked-out elements without `out`, in-place `at`).

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Casting, DType, Device, Error, Result, Ufunc, UfuncOptions};
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

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    match case["op"].as_str().unwrap() {
        "call" => exec_call(k, ops),
        op => panic!("unknown op {op}"),
    }
}

fn tol(case: &Value, dev: &Device) -> Tol {
    let k = &case["kwargs"];
    let name = k["ufunc"].as_str().unwrap();
    let dt = common::dtype_of(&case["dtype"]);
    match case["op"].as_str().unwrap() {
        "call" => crate::ufuncs::tol(name, dt, dev),
        _ => Tol::EXACT,
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
    common::run_group(
        "ufunc_methods",
        exec,
        |_, case, dev| tol(case, dev),
        expect_err,
    );
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
