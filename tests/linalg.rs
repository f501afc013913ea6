//! matmul/dot against NumPy goldens (2-D, transposed and strided operands, 1-D promotion,
//! batched broadcasting, odd sizes, k = 0, mixed dtypes).

use crate::common::{self, Golden, Operand};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let (a, b) = (ops[0].array(), ops[1].array());
    match case["op"].as_str().unwrap() {
        "matmul" => cupy::matmul(a, b),
        "dot" => cupy::dot(a, b),
        op => panic!("linalg op {op}"),
    }
}

#[test]
fn linalg_matches_numpy() {
    common::run_group(
        "linalg",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        |case, e| {
            // NumPy: ValueError "matmul: Input operand 1 has a mismatch in its core dimension".
            case["error"] == "ValueError" && matches!(e, Error::ShapeMismatch { .. })
        },
    );
}

/// The method forms and `@`-style chaining.
#[test]
fn matmul_methods() {
    let mut t = common::Tally::new("matmul_methods");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
            let i = Array::eye_on(&dev, 2, None, 0, cupy::DType::Float32)?;
            let p = a.matmul(&i)?.dot(&a.t())?;
            let got = p.to_vec::<f32>()?;
            if got != vec![5.0, 11.0, 11.0, 25.0] {
                return Err(format!("a @ I @ a.T: {got:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}
