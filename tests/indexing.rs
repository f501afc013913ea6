//! Integer-array indexing (`take`) against NumPy goldens on every backend.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let axis = case["kwargs"]["axis"].as_i64().map(|a| a as isize);
    cupy::take(ops[0].array(), ops[1].array(), axis)
}

#[test]
fn take_matches_numpy() {
    common::run_group(
        "indexing",
        exec,
        |_, _, _| Tol::EXACT,
        |case, e| match case["error"].as_str().unwrap_or("") {
            "IndexError" => {
                let want = case["message"].as_str().unwrap_or("");
                matches!(e, Error::IndexOutOfBounds { .. })
                    && e.to_string()
                        .contains(want.split(" is out").next().unwrap_or(""))
            }
            _ => common::generic_error_match(case, e),
        },
    );
}
