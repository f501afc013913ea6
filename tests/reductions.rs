//! Reductions (sum, prod, max, min, mean) against NumPy goldens: axis None/int/tuple/negative,
//! keepdims, 1-3-D inputs, reversed/transposed/broadcast views, empty axes, NaN propagation.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Axes, Device, Error, Reduction, Result};
use serde_json::Value;

fn reduction(name: &str) -> Reduction {
    Reduction::ALL
        .into_iter()
        .find(|r| r.name() == name)
        .unwrap_or_else(|| panic!("no reduction {name}"))
}

fn axes(v: &Value) -> Axes {
    match v {
        Value::Null => Axes::All,
        Value::Number(n) => Axes::Some(vec![n.as_i64().unwrap() as isize]),
        Value::Array(a) => Axes::Some(a.iter().map(|x| x.as_i64().unwrap() as isize).collect()),
        other => panic!("axis {other}"),
    }
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    cupy::reduce(
        reduction(case["op"].as_str().unwrap()),
        ops[0].array(),
        axes(&k["axis"]),
        k["keepdims"].as_bool().unwrap(),
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
            check(
                "sum_axis(0)",
                a.sum_axis(0isize, false)?,
                vec![5.0, 7.0, 9.0],
                &[3],
            )?;
            check(
                "sum_axis([-1])",
                a.sum_axis([-1isize], true)?,
                vec![6.0, 15.0],
                &[2, 1],
            )?;
            check(
                "max_axis(vec)",
                a.max_axis(vec![0isize, 1], false)?,
                vec![6.0],
                &[],
            )?;
            check(
                "mean_axis(All)",
                a.mean_axis(Axes::All, true)?,
                vec![3.5],
                &[1, 1],
            )?;
            check(
                "min_axis(1)",
                a.min_axis(1isize, false)?,
                vec![1.0, 4.0],
                &[2],
            )?;
            check(
                "prod_axis(0)",
                a.prod_axis(0isize, false)?,
                vec![4.0, 10.0, 18.0],
                &[3],
            )?;
            check(
                "cupy::sum",
                cupy::sum(&a, 1isize, false)?,
                vec![6.0, 15.0],
                &[2],
            )?;
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}
