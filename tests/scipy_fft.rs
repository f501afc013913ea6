//! `cupyx.scipy.fft` (dct/idct/dst/idst types 1-4, next_fast_len) against SciPy 1.17.1
//! goldens (tests/golden/gen/scipy_fft.py); the tolerance of tests/fft.rs.

use crate::common::{self, Golden, Operand};
use cupy::fft::Norm;
use cupy::scipy::fft::{self as sfft, Dct};
use cupy::{Array, Device, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let op = case["op"].as_str().unwrap();
    if op == "next_fast_len" {
        let n = sfft::next_fast_len(
            k["n"].as_u64().unwrap() as usize,
            k["real"].as_bool().unwrap(),
        );
        return Array::from_slice_on(dev, &[n as i64], &[]);
    }
    let o = Dct {
        kind: k["type"].as_u64().unwrap_or(2) as u8,
        n: k["n"].as_i64().map(|v| v as isize),
        axis: k["axis"].as_i64().unwrap_or(-1) as isize,
        norm: match k["norm"].as_str() {
            Some(s) => s.parse()?,
            None => Norm::Backward,
        },
    };
    let a = ops[0].array();
    match op {
        "dct" => sfft::dct_with(a, o),
        "idct" => sfft::idct_with(a, o),
        "dst" => sfft::dst_with(a, o),
        "idst" => sfft::idst_with(a, o),
        other => panic!("scipy_fft golden op {other}"),
    }
}

#[test]
fn scipy_fft_matches_scipy() {
    common::run_group(
        "scipy_fft",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        crate::fft::error_matches,
    );
}
