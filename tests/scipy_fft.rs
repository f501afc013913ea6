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
        )?;
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

/// `next_fast_len` of large targets answers at once (the 5-smooth search walked every integer
/// above the target, hours past 2^40) and refuses what SciPy refuses (a target above
/// `usize::MAX / 11` looped forever once the walk wrapped past `usize::MAX`).
#[test]
fn next_fast_len_large_targets() {
    for dev in common::backends() {
        // Host arithmetic: the same answer whatever the device.
        cupy::with_device(&dev, || {
            let max = usize::MAX / 11;
            let cases: [(usize, usize, usize); 4] = [
                (1_099_511_627_777, 1_099_535_990_784, 1_100_753_141_760),
                (
                    1_125_899_906_842_625,
                    1_125_924_854_562_816,
                    1_127_171_217_162_240,
                ),
                (
                    1_000_000_000_000_007,
                    1_000_010_753_280_000,
                    1_001_129_150_390_625,
                ),
                (max, 1_676_991_887_214_336_000, 1_677_721_600_000_000_000),
            ];
            for (t, c, r) in cases {
                assert_eq!(sfft::next_fast_len(t, false).unwrap(), c, "{t} on {dev}");
                assert_eq!(
                    sfft::next_fast_len(t, true).unwrap(),
                    r,
                    "{t} real on {dev}"
                );
            }
            // SciPy's sums over 0..=3000 (every small case, including 0).
            let sum = |real| {
                (0..=3000)
                    .map(|t| sfft::next_fast_len(t, real).unwrap())
                    .sum::<usize>()
            };
            assert_eq!((sum(false), sum(true)), (4_526_161, 4_588_157), "on {dev}");
            for t in [max + 1, usize::MAX] {
                let e = sfft::next_fast_len(t, true).unwrap_err().to_string();
                assert!(
                    e.contains("next_fast_len") && e.contains("too large"),
                    "{e}"
                );
            }
        });
    }
}
