//! Integer-array indexing against NumPy goldens on every backend: `take` (gather), `put`,
//! `ufunc.at` (`add_at`, `maximum_at`, `minimum_at`) and CuPy's `scatter_add/max/min` (scatter).

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let axis = case["kwargs"]["axis"].as_i64().map(|a| a as isize);
    let id = case["id"].as_str().unwrap_or("");
    let (a, i) = (ops[0].array(), ops[1].array());
    match case["op"].as_str().unwrap_or("") {
        "take" => return cupy::take_with(a, i, axis),
        "put" => a.put(i, ops[2].array())?,
        "add.at" if id.starts_with("add_at") => cupy::add_at(a, i, ops[2].array())?,
        "maximum.at" if id.starts_with("maximum_at") => cupy::maximum_at(a, i, ops[2].array())?,
        "minimum.at" if id.starts_with("minimum_at") => cupy::minimum_at(a, i, ops[2].array())?,
        "add.at" => a.scatter_add(i, ops[2].array(), axis)?,
        "maximum.at" => a.scatter_max(i, ops[2].array(), axis)?,
        "minimum.at" => a.scatter_min(i, ops[2].array(), axis)?,
        op => panic!("unknown op {op}"),
    }
    Ok(a.clone())
}

#[test]
fn indexing_matches_numpy() {
    common::run_group(
        "indexing",
        exec,
        |g, case, _| {
            if case.get("scale_max").is_some() {
                common::scaled_tol(g, case)
            } else {
                Tol::EXACT
            }
        },
        |case, e| {
            let want = case["message"].as_str().unwrap_or("");
            match case["error"].as_str().unwrap_or("") {
                "IndexError" if want.starts_with("arrays used as indices") => {
                    matches!(e, Error::TypeError { .. })
                }
                "IndexError" => {
                    matches!(e, Error::IndexOutOfBounds { .. })
                        && e.to_string()
                            .contains(want.split(" is out").next().unwrap_or(""))
                }
                "ValueError" => matches!(e, Error::ShapeMismatch { .. }),
                _ => common::generic_error_match(case, e),
            }
        },
    );
}

/// `put` with repeated indices keeps one of the values written there (NumPy: the last; the cpu
/// backend also the last), and never touches other elements.
#[test]
fn put_repeated_indices_keeps_a_written_value() {
    for dev in common::backends() {
        let n = 4096usize;
        let a = Array::from_slice_on(&dev, &[-1.0f32; 8], &[8]).unwrap();
        let idx: Vec<i64> = (0..n as i64).map(|j| j % 3).collect();
        let vals: Vec<f32> = (0..n).map(|j| j as f32).collect();
        let i = Array::from_slice_on(&dev, &idx, &[n]).unwrap();
        let v = Array::from_slice_on(&dev, &vals, &[n]).unwrap();
        a.put(&i, &v).unwrap();
        let got = a.to_vec::<f32>().unwrap();
        for (k, &g) in got.iter().enumerate().take(3) {
            assert!(
                g >= 0.0 && (g as usize) % 3 == k,
                "{dev:?}: element {k} = {g} was not written by an index {k}"
            );
        }
        assert!(got[3..].iter().all(|&x| x == -1.0), "{dev:?}: {got:?}");
        if dev.kind() == cupy::BackendKind::Cpu {
            assert_eq!(
                &got[..3],
                &[4095.0, 4093.0, 4094.0],
                "cpu: last writer wins"
            );
        }
    }
}

/// Many atomic updates of a few elements from a large launch: none is lost.
#[test]
fn add_at_many_collisions() {
    for dev in common::backends() {
        let n = 1 << 16;
        let idx: Vec<i32> = (0..n).map(|j| (j * 31) % 7).collect();
        let i = Array::from_slice_on(&dev, &idx, &[n as usize]).unwrap();
        let ones = Array::from_slice_on(&dev, &vec![1i32; n as usize], &[n as usize]).unwrap();
        let a = Array::from_slice_on(&dev, &[0i32; 7], &[7]).unwrap();
        cupy::add_at(&a, &i, &ones).unwrap();
        let got = a.to_vec::<i32>().unwrap();
        let mut want = [0i32; 7];
        for &j in &idx {
            want[j as usize] += 1;
        }
        assert_eq!(got, want, "{dev:?}");
        // int64 sums whose low words carry (on wgpu: two 32-bit atomic adds with carry).
        let big: Vec<i64> = (0..n as i64)
            .map(|j| (j * 0x1_0000_0fff) ^ ((j << 40) - 0x7fff_ffff))
            .collect();
        let b = Array::from_slice_on(&dev, &big, &[n as usize]).unwrap();
        let t = Array::from_slice_on(&dev, &[i64::MAX - 5, 0, -3, 1, 2, 3, 4], &[7]).unwrap();
        cupy::add_at(&t, &i, &b).unwrap();
        let mut want = [i64::MAX - 5, 0, -3, 1, 2, 3, 4];
        for (&j, &x) in idx.iter().zip(&big) {
            want[j as usize] = want[j as usize].wrapping_add(x);
        }
        assert_eq!(t.to_vec::<i64>().unwrap(), want, "{dev:?}");
        // float32 max with collisions, and NaN propagation.
        let f = Array::from_slice_on(&dev, &[0f32; 7], &[7]).unwrap();
        let vals: Vec<f32> = (0..n).map(|j| ((j * 17) % 1000) as f32).collect();
        let v = Array::from_slice_on(&dev, &vals, &[n as usize]).unwrap();
        cupy::maximum_at(&f, &i, &v).unwrap();
        let got = f.to_vec::<f32>().unwrap();
        let mut want = [0f32; 7];
        for (&j, &x) in idx.iter().zip(&vals) {
            want[j as usize] = want[j as usize].max(x);
        }
        assert_eq!(got, want, "{dev:?}");
    }
}

/// Negative int8/int16/int32 indices in a kernel that also reads or writes a 64-bit operand
/// (float64, int64): llvmpipe evaluated `i64(b0[a0]) < 0li` as false for -1 (FACTS.md), so
/// `take`, `put`, `add_at` and `scatter_add` read or wrote the wrong element. Values from NumPy:
/// `a = np.arange(10.0) * 1.5; np.take(a, idx)` (and of `a.astype(np.int64)`), `np.put`,
/// `np.add.at` with the same indices.
#[test]
fn negative_narrow_indices_with_64_bit_operands() {
    let idx = [-1i64, 0, -10, 3, -4, 9];
    let base: Vec<f64> = (0..10).map(|j| j as f64 * 1.5).collect();
    // np.take(a, idx)
    let taken = [13.5, 0.0, 0.0, 4.5, 9.0, 13.5];
    // b = np.zeros(10); np.put(b, [-1, 0, -8, 4, -4], [1, 2, 3, 4, 5]) (distinct targets: which
    // of repeated put indices wins is unspecified on GPUs)
    let put_idx = [-1i64, 0, -8, 4, -4];
    let put = [2.0, 0.0, 3.0, 0.0, 4.0, 0.0, 5.0, 0.0, 0.0, 1.0];
    // c = np.zeros(10, np.int64); np.add.at(c, idx, [10, 20, 30, 40, 50, 60])
    let added = [50i64, 0, 0, 40, 0, 0, 50, 0, 0, 70];
    for dev in common::backends() {
        for dt in [cupy::DType::Int8, cupy::DType::Int16, cupy::DType::Int32] {
            let i = Array::from_slice_on(&dev, &idx, &[6])
                .unwrap()
                .astype(dt)
                .unwrap();
            let a = Array::from_slice_on(&dev, &base, &[10]).unwrap();
            let t = cupy::take(&a, &i).unwrap();
            assert_eq!(t.to_vec::<f64>().unwrap(), taken, "{dev:?} take {dt}");
            let ai = a.astype(cupy::DType::Int64).unwrap();
            let ti = cupy::take(&ai, &i).unwrap();
            assert_eq!(
                ti.to_vec::<i64>().unwrap(),
                [13, 0, 0, 4, 9, 13],
                "{dev:?} take int64 {dt}"
            );
            let b = Array::from_slice_on(&dev, &[0f64; 10], &[10]).unwrap();
            let i5 = Array::from_slice_on(&dev, &put_idx, &[5])
                .unwrap()
                .astype(dt)
                .unwrap();
            let v = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5]).unwrap();
            b.put(&i5, &v).unwrap();
            assert_eq!(b.to_vec::<f64>().unwrap(), put, "{dev:?} put {dt}");
            let c = Array::from_slice_on(&dev, &[0i64; 10], &[10]).unwrap();
            let w = Array::from_slice_on(&dev, &[10i64, 20, 30, 40, 50, 60], &[6]).unwrap();
            cupy::add_at(&c, &i, &w).unwrap();
            assert_eq!(c.to_vec::<i64>().unwrap(), added, "{dev:?} add_at {dt}");
            let s = Array::from_slice_on(&dev, &[0i64; 10], &[10]).unwrap();
            s.scatter_add(&i, &w, None).unwrap();
            assert_eq!(
                s.to_vec::<i64>().unwrap(),
                added,
                "{dev:?} scatter_add {dt}"
            );
        }
        common::report(&format!("{} negative_narrow_indices ran", dev.kind()));
    }
}
