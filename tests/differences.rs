//! Scans and differences against NumPy goldens (group `differences`): `cumsum`/`cumprod`
//! (complex included), `nancumsum`, `nancumprod`, `diff`, `ediff1d`, `gradient`, `trapezoid`.

use crate::common::{self, dtype_of, Golden, Operand, Tol};
use cupy::{Array, Device, Diff, Ediff1d, Error, Gradient, Result, Scan, Spacing, Trapezoid};
use serde_json::Value;

fn flag(k: &Value, name: &str) -> bool {
    k[name].as_bool() == Some(true)
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let a = ops[0].array();
    let mut rest = ops[1..].iter().map(|o| o.array().clone());
    match case["op"].as_str().unwrap() {
        op @ ("cumsum" | "cumprod" | "nancumsum" | "nancumprod") => {
            let s = Scan {
                axis: k["axis"].as_i64().map(|x| x as isize),
                dtype: k.get("dtype").map(dtype_of),
            };
            match op {
                "cumsum" => cupy::cumsum_with(a, s),
                "cumprod" => cupy::cumprod_with(a, s),
                "nancumsum" => cupy::nancumsum_with(a, s),
                _ => cupy::nancumprod_with(a, s),
            }
        }
        "diff" => {
            let prepend = if flag(k, "prepend") {
                rest.next()
            } else {
                None
            };
            let append = if flag(k, "append") { rest.next() } else { None };
            cupy::diff_with(
                a,
                Diff {
                    n: k["n"].as_u64().unwrap() as usize,
                    axis: k["axis"].as_i64().unwrap() as isize,
                    prepend,
                    append,
                },
            )
        }
        "ediff1d" => {
            let to_begin = if flag(k, "to_begin") {
                rest.next()
            } else {
                None
            };
            let to_end = if flag(k, "to_end") { rest.next() } else { None };
            cupy::ediff1d_with(a, Ediff1d { to_end, to_begin })
        }
        "gradient" => {
            let spacing = k["spacing"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .map(|s| match s.as_f64() {
                            Some(h) => Spacing::Uniform(h),
                            None => Spacing::Coordinates(rest.next().expect("coordinates")),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let axis = crate::nanstats::axes(&k["axis"]);
            let mut g = cupy::gradient_with(
                a,
                Gradient {
                    spacing,
                    axis,
                    edge_order: k["edge_order"].as_u64().unwrap() as usize,
                },
            )?;
            Ok(g.remove(k["out_index"].as_u64().unwrap() as usize))
        }
        "trapezoid" => cupy::trapezoid_with(
            a,
            Trapezoid {
                x: if flag(k, "x") { rest.next() } else { None },
                dx: k["dx"].as_f64().unwrap_or(1.0),
                axis: k["axis"].as_i64().unwrap() as isize,
            },
        ),
        op => panic!("differences op {op}"),
    }
}

#[test]
fn differences_match_numpy() {
    common::run_group(
        "differences",
        exec,
        |g, case, _| {
            if case.get("scale").is_some() {
                return common::scaled_tol(g, case);
            }
            match case["op"].as_str().unwrap() {
                // the same sequence of correctly rounded ufunc steps as NumPy
                "gradient" | "diff" | "ediff1d" => Tol::Ulps(2),
                _ => Tol::EXACT,
            }
        },
        |case, e| match case["error"].as_str().unwrap_or("") {
            "ValueError" => matches!(e, Error::InvalidArgument { .. }),
            _ => common::generic_error_match(case, e),
        },
    );
}
