//! Scans and sorts (cumsum, cumprod, sort, argsort) against NumPy goldens on every backend: every
//! dtype, axis None/int/negative, transposed/reversed/broadcast views, empty and 0-d arrays,
//! NaN/-0.0/inf, integer extremes, many short rows and rows longer than one GPU block/workgroup.
//!
//! Tolerances: `sort`/`argsort` exact (compared with NumPy's `kind='stable'`, so ties and ±0
//! must keep their order); integer scans exact (wrap-around); float `cumsum`/`cumprod`
//! `Tol::Scaled` with the scan length and the scan of `|x|` (cumprod: `|result|`) as the
//! condition scale, since a parallel scan adds in another order than NumPy's sequential loop
//! (float16 accumulates per step in float16 on the cpu, as NumPy; GPU backends may round once).

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Device, Error, Result};

fn exec(_: &Golden, case: &serde_json::Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let axis = case["kwargs"]["axis"].as_i64().map(|a| a as isize);
    let a = ops[0].array();
    match case["op"].as_str().unwrap() {
        "cumsum" => cupy::cumsum_with(a, axis),
        "cumprod" => cupy::cumprod_with(a, axis),
        "sort" => cupy::sort_with(a, axis),
        "argsort" => cupy::argsort_with(a, axis),
        op => panic!("unknown op {op}"),
    }
}

#[test]
fn sorting_matches_numpy() {
    run_goldens();
}

/// The `sorting` goldens on every backend (`sorting_radix` runs them again with wgpu's radix
/// path forced).
pub(crate) fn run_goldens() {
    common::run_group(
        "sorting",
        exec,
        |g, case, _| match case["op"].as_str().unwrap() {
            "sort" | "argsort" => Tol::EXACT,
            _ => common::scaled_tol(g, case),
        },
        |case, e| {
            case["error"] == "AxisError" && matches!(e, Error::AxisOutOfRange { .. })
                || common::generic_error_match(case, e)
        },
    );
}

/// The in-place method `a.sort(axis)` and the method forms.
#[test]
fn sorting_methods() {
    let mut t = common::Tally::new("sorting_methods");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[3i32, 1, 2, 9, 7, 8], &[2, 3])?;
            let v = a.t(); // a view: sorting it sorts the columns of `a`
            v.sort()?;
            let got = a.to_vec::<i32>()?;
            if got != vec![3, 1, 2, 9, 7, 8] {
                // v = [[3,9],[1,7],[2,8]] is already sorted along its last axis
                return Err(format!("sort of a sorted view changed it: {got:?}").into());
            }
            a.sort_with(0)?;
            let got = a.to_vec::<i32>()?;
            if got != vec![3, 1, 2, 9, 7, 8] {
                return Err(format!("a.sort(0): {got:?}").into());
            }
            a.sort()?;
            let got = a.to_vec::<i32>()?;
            if got != vec![1, 2, 3, 7, 8, 9] {
                return Err(format!("a.sort(-1): {got:?}").into());
            }
            let b = Array::from_slice_on(&dev, &[2.0f32, f32::NAN, -1.0, 2.0], &[4])?;
            let i = b.argsort()?.to_vec::<i64>()?;
            if i != vec![2, 0, 3, 1] {
                return Err(format!("argsort: {i:?}").into());
            }
            let c = b.cumsum()?.to_vec::<f32>()?;
            if c[0] != 2.0 || !c[1].is_nan() {
                return Err(format!("cumsum: {c:?}").into());
            }
            let p = Array::from_slice_on(&dev, &[1u8, 2, 3, 4], &[2, 2])?.cumprod_with(0)?;
            if p.dtype() != cupy::DType::UInt64 || p.to_vec::<u64>()? != vec![1, 2, 3, 8] {
                return Err(format!("cumprod: {p:?}").into());
            }
            // The defaults: sort/argsort along the last axis, cumsum over the flattened array.
            let m = Array::from_slice_on(&dev, &[3i64, 1, 2, 0], &[2, 2])?;
            if cupy::sort(&m)?.to_vec::<i64>()? != vec![1, 3, 0, 2]
                || cupy::argsort(&m)?.to_vec::<i64>()? != vec![1, 0, 1, 0]
                || cupy::sort_with(&m, None)?.to_vec::<i64>()? != vec![0, 1, 2, 3]
                || cupy::cumsum(&m)?.to_vec::<i64>()? != vec![3, 4, 6, 6]
                || m.cumsum_with(1)?.to_vec::<i64>()? != vec![3, 4, 2, 2]
            {
                return Err("sort/argsort/cumsum defaults".to_string().into());
            }
            let w =
                Array::from_slice_on(&dev, &[100i8, 100, 100], &[3])?.cumsum_with(cupy::Scan {
                    dtype: Some(cupy::DType::Int8),
                    ..Default::default()
                })?;
            if w.dtype() != cupy::DType::Int8 || w.to_vec::<i8>()? != vec![100, -56, 44] {
                return Err(format!("cumsum(int8, dtype=int8): {w:?}").into());
            }
            if !matches!(m.sort_with(None), Err(Error::InvalidArgument { .. })) {
                return Err("in-place sort with axis=None is refused".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "methods", r);
    }
    t.finish();
}
