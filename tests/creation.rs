//! Creation routines and `astype` against NumPy goldens.

use crate::common::{self, dtype_of, json_f64, Golden, Operand, Tol};
use cupy::{Array, DType, Device, Result, Scalar};
use serde_json::Value;

fn shape(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn exec(_: &Golden, case: &Value, _: &[Operand], dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let dt = dtype_of(&k["dtype"]);
    match case["op"].as_str().unwrap() {
        "zeros" => Array::zeros_on(dev, &shape(&k["shape"]), dt),
        "ones" => Array::ones_on(dev, &shape(&k["shape"]), dt),
        "full" => {
            let v = &k["value"];
            let s = match v.as_i64() {
                Some(i) => Scalar::Int64(i),
                None => Scalar::Float64(json_f64(v)),
            };
            Array::full_on(dev, &shape(&k["shape"]), s, dt)
        }
        "eye" => Array::eye_on(
            dev,
            k["n"].as_u64().unwrap() as usize,
            k["m"].as_u64().map(|m| m as usize),
            k["k"].as_i64().unwrap() as isize,
            dt,
        ),
        "arange" => Array::arange_on(
            dev,
            json_f64(&k["start"]),
            json_f64(&k["stop"]),
            json_f64(&k["step"]),
            dt,
        ),
        "linspace" => Array::linspace_on(
            dev,
            json_f64(&k["start"]),
            json_f64(&k["stop"]),
            k["num"].as_u64().unwrap() as usize,
            k["endpoint"].as_bool().unwrap(),
            dt,
        ),
        op => panic!("creation op {op}"),
    }
}

#[test]
fn creation_matches_numpy() {
    common::run_group(
        "creation",
        exec,
        |_, case, _| match case["op"].as_str().unwrap() {
            // NumPy fills float aranges/linspaces in the target dtype; we compute in float64.
            "arange" | "linspace" => Tol::Ulps(1),
            _ => Tol::EXACT,
        },
        common::generic_error_match,
    );
}

#[test]
fn astype_matches_numpy() {
    common::run_group(
        "astype",
        |_, case, ops, _| ops[0].array().astype(dtype_of(&case["kwargs"]["dtype"])),
        |_, _, _| Tol::EXACT,
        common::generic_error_match,
    );
}

/// The free functions create on the current device (`with_device`).
#[test]
fn free_functions_use_current_device() {
    let mut t = common::Tally::new("current_device");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let a = cupy::arange(10)?;
            if a.device() != &dev || a.dtype() != DType::Int32 {
                return Err(format!("arange(10): {:?} on {}", a.dtype(), a.device()).into());
            }
            if a.to_vec::<i32>()? != (0..10).collect::<Vec<i32>>() {
                return Err("arange values".to_string().into());
            }
            let z = cupy::zeros_with(&[2, 2], DType::Float32)?;
            let o = cupy::ones_with(&[2, 2], DType::Float32)?;
            let s = (&z + &o)?;
            if s.to_vec::<f32>()? != vec![1.0; 4] || s.device() != &dev {
                return Err("zeros + ones".to_string().into());
            }
            let f = cupy::full(&[3], 2.5)?;
            if f.to_vec::<f64>()? != vec![2.5; 3] {
                return Err("full".to_string().into());
            }
            let e = cupy::eye_with(2, DType::Int64)?;
            if e.to_vec::<i64>()? != vec![1, 0, 0, 1] {
                return Err("eye".to_string().into());
            }
            let l = cupy::linspace(0.0, 1.0, 3)?;
            if l.to_vec::<f64>()? != vec![0.0, 0.5, 1.0] {
                return Err("linspace".to_string().into());
            }
            let x = cupy::array([[1i16, 2], [3, 4]])?;
            if x.shape() != [2, 2] || x.dtype() != DType::Int16 {
                return Err("array(nested)".to_string().into());
            }
            let y = cupy::asarray(vec![true, false])?;
            if y.to_vec::<bool>()? != vec![true, false] {
                return Err("asarray(bool)".to_string().into());
            }
            let nd = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
            let w = cupy::from_ndarray(&nd.t())?;
            if w.to_ndarray::<f32>()? != nd.t().into_dyn() {
                return Err("from_ndarray(transposed)".to_string().into());
            }
            let v = cupy::from_slice(&[1u64, 2, 3], &[3])?;
            let sc = v.to_scalars()?;
            if sc != vec![Scalar::UInt64(1), Scalar::UInt64(2), Scalar::UInt64(3)] {
                return Err("to_scalars".to_string().into());
            }
            let c = v.copy()?;
            if c.shares_memory_with(&v) || c.to_vec::<u64>()? != vec![1, 2, 3] {
                return Err("copy".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "free functions", r);
    }
    t.finish();
}

/// NumPy's defaults: float64 for `zeros`/`ones`/`empty`/`eye`/`identity`/`linspace`, `full`'s
/// dtype from the fill value, and the options structs of the `_with` forms.
#[test]
fn numpy_defaults() {
    use cupy::{Creation, Eye, Full, Linspace};
    let mut t = common::Tally::new("numpy_defaults");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let z = cupy::zeros(&[3, 3])?;
            if z.dtype() != DType::Float64 || z.shape() != [3, 3] || z.to_vec::<f64>()? != [0.0; 9]
            {
                return Err(format!("zeros((3, 3)): {z:?}").into());
            }
            let o = cupy::ones(&[2])?;
            let e = cupy::empty(&[4])?;
            let i = cupy::identity(2)?;
            let l = cupy::linspace(0.0, 1.0, 5)?;
            for (name, a) in [
                ("ones", &o),
                ("empty", &e),
                ("identity", &i),
                ("linspace", &l),
            ] {
                if a.dtype() != DType::Float64 {
                    return Err(format!("{name}: {}", a.dtype()).into());
                }
            }
            if i.to_vec::<f64>()? != [1.0, 0.0, 0.0, 1.0]
                || l.to_vec::<f64>()? != [0.0, 0.25, 0.5, 0.75, 1.0]
            {
                return Err("identity / linspace values".to_string().into());
            }
            // full: a Rust f64 is a Python float, i32/i64 a Python int, bool a bool; typed
            // Rust values (f32, u8) keep their type, as NumPy scalars do.
            for (v, want) in [
                (Scalar::from(7.0f64), DType::Float64),
                (Scalar::from(7i32), DType::Int64),
                (Scalar::from(7i64), DType::Int64),
                (Scalar::from(true), DType::Bool),
                (Scalar::from(7.0f32), DType::Float32),
                (Scalar::from(7u8), DType::UInt8),
            ] {
                let f = cupy::full(&[2], v)?;
                if f.dtype() != want || f.to_scalars()?[0].cast(want) != v.cast(want) {
                    return Err(format!("full(2, {v:?}): {f:?}").into());
                }
            }
            if cupy::full(&[2], 7)?.to_vec::<i64>()? != [7, 7] {
                return Err("full(2, 7) values".to_string().into());
            }
            // The _with forms: a DType converts into each options struct.
            let z32 = cupy::zeros_with(&[2, 2], DType::Float32)?;
            let o8 = cupy::ones_with(
                &[2],
                Creation {
                    dtype: DType::Int8,
                    ..Default::default()
                },
            )?;
            let f32s = cupy::full_with(&[2], 0.5, DType::Float32)?;
            if z32.dtype() != DType::Float32
                || o8.to_vec::<i8>()? != [1, 1]
                || f32s.to_vec::<f32>()? != [0.5, 0.5]
            {
                return Err("zeros_with / ones_with / full_with".to_string().into());
            }
            let ls = cupy::linspace_with(
                0.0,
                1.0,
                4,
                Linspace {
                    endpoint: false,
                    dtype: Some(DType::Float32),
                    ..Default::default()
                },
            )?;
            if ls.to_vec::<f32>()? != [0.0, 0.25, 0.5, 0.75] {
                return Err(format!("linspace(endpoint=False, float32): {ls:?}").into());
            }
            let ey = cupy::eye_with(
                3,
                Eye {
                    m: Some(4),
                    k: 1,
                    dtype: DType::Int32,
                    ..Default::default()
                },
            )?;
            let want = [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
            if ey.shape() != [3, 4] || ey.to_vec::<i32>()? != want {
                return Err(format!("eye(3, 4, k=1, int32): {ey:?}").into());
            }
            // device= picks the device regardless of the current one.
            let cpu = Device::get(cupy::BackendKind::Cpu, 0)?;
            let on = cupy::zeros_with(
                &[1],
                Creation {
                    device: Some(cpu.clone()),
                    ..Default::default()
                },
            )?;
            let fo = cupy::full_with(
                &[1],
                1,
                Full {
                    device: Some(cpu.clone()),
                    ..Default::default()
                },
            )?;
            if on.device() != &cpu || fo.device() != &cpu || fo.dtype() != DType::Int64 {
                return Err("device= in Creation / Full".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "defaults", r);
    }
    t.finish();
}

/// `asarray` takes host data, `ndarray` arrays and views of any dimension, and device arrays
/// (a view of the same buffer on the same device; a copy otherwise); `array` always copies.
#[test]
fn asarray_from_anything_array_like() {
    use cupy::ndarray::{self as nd, s};
    let mut t = common::Tally::new("asarray");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let h = nd::array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
            let a = cupy::asarray(&h)?;
            if a.shape() != [2, 3] || a.dtype() != DType::Float64 || a.device() != &dev {
                return Err(format!("asarray(&Array2<f64>): {a:?}").into());
            }
            if a.to_ndarray::<f64>()? != h.clone().into_dyn() {
                return Err("asarray(&Array2) values".to_string().into());
            }
            // Views: a transposed view, a strided column, a dynamic-dimension array by value.
            let tv = cupy::asarray(h.t())?;
            let col = cupy::asarray(h.slice(s![.., 1]))?;
            let d3 = nd::ArrayD::<i32>::from_shape_vec(nd::IxDyn(&[2, 1, 2]), vec![1, 2, 3, 4])
                .map_err(|e| e.to_string())?;
            let c3 = cupy::asarray(d3)?;
            if tv.to_vec::<f64>()? != [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
                || col.to_vec::<f64>()? != [2.0, 5.0]
                || c3.shape() != [2, 1, 2]
                || c3.to_vec::<i32>()? != [1, 2, 3, 4]
            {
                return Err("asarray of ndarray views".to_string().into());
            }
            // Device arrays: asarray shares the buffer, array copies.
            let same = cupy::asarray(&a)?;
            let copied = cupy::array(&a)?;
            if !same.shares_memory_with(&a) || copied.shares_memory_with(&a) {
                return Err("asarray(&Array) shares memory, array(&Array) copies"
                    .to_string()
                    .into());
            }
            if copied.to_vec::<f64>()? != a.to_vec::<f64>()? {
                return Err("array(&Array) values".to_string().into());
            }
            // An array on another device is copied to the current one.
            let cpu = Device::get(cupy::BackendKind::Cpu, 0)?;
            let there = Array::from_slice_on(&cpu, &[1.5f32, 2.5], &[2])?;
            let here = cupy::asarray(&there)?;
            if here.device() != &dev || here.to_vec::<f32>()? != [1.5, 2.5] {
                return Err(format!("asarray(array on cpu) on {dev}: {here:?}").into());
            }
            if (dev == cpu) != here.shares_memory_with(&there) {
                return Err("asarray copies only across devices".to_string().into());
            }
            let nested = cupy::asarray([[1u8, 2], [3, 4]])?;
            if nested.dtype() != DType::UInt8 || nested.shape() != [2, 2] {
                return Err("asarray(nested)".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "asarray", r);
    }
    t.finish();
}

/// `arange` as NumPy 2.4 computes it: the first two values converted to the dtype (truncated
/// for integers, refused when they do not fit), then `first + i * (second - first)` wrapping
/// in the dtype; bool aranges of at most two values; float64 steps taken as NumPy's
/// `(start + step) - start`. Expected values printed by NumPy.
#[test]
fn arange_follows_numpy_for_integer_bool_and_float_dtypes() {
    use cupy::Error;
    let ints: &[(f64, f64, f64, DType, &[i64])] = &[
        (4.0, 1.0, -1.2, DType::Int64, &[4, 2, 0]),
        (0.0, 5.0, 1.5, DType::Int64, &[0, 1, 2, 3]),
        (0.5, 5.0, 1.5, DType::Int64, &[0, 2, 4]),
        (1.7, 10.0, 2.6, DType::Int64, &[1, 4, 7, 10]),
        (-3.5, 4.0, 2.2, DType::Int32, &[-3, -1, 1, 3]),
        (0.0, 10.0, 2.5, DType::Int8, &[0, 2, 4, 6]),
        (
            0.0,
            300.0,
            37.5,
            DType::UInt8,
            &[0, 37, 74, 111, 148, 185, 222, 3],
        ),
        (5.9, -2.0, -1.3, DType::Int16, &[5, 4, 3, 2, 1, 0, -1]),
        (0.0, 1.0, 0.3, DType::Int64, &[0, 0, 0, 0]),
        (-0.5, 3.0, 0.7, DType::Int64, &[0, 0, 0, 0, 0]),
        (250.0, 260.0, 3.0, DType::UInt8, &[250, 253, 0, 3]),
        (
            0.0,
            1000.0,
            100.7,
            DType::Int8,
            &[0, 100, -56, 44, -112, -12, 88, -68, 32, -124],
        ),
        (10.9, 0.0, -3.0, DType::Int64, &[10, 7, 4, 1]),
        (3.0, -3.0, -1.0, DType::UInt8, &[3, 2, 1, 0, 255, 254]),
        (0.0, 10.0, 1099511627776.0, DType::Int8, &[0]),
        (300.0, 0.0, 1.0, DType::UInt8, &[]),
    ];
    let overflows: &[(f64, f64, f64, DType, &str)] = &[
        (-5.0, 5.0, 3.0, DType::UInt8, "-5"),
        (0.0, 300.0, 257.0, DType::UInt8, "257"),
        (200.5, 300.0, 1.0, DType::Int8, "200"),
        (300.0, 301.0, 1.0, DType::UInt8, "300"),
    ];
    let bools: &[(f64, f64, f64, Option<&[bool]>)] = &[
        (0.0, 5.0, 1.0, None),
        (0.0, 2.0, 1.0, Some(&[false, true])),
        (0.0, 1.0, 1.0, Some(&[false])),
        (1.0, 3.0, 1.0, Some(&[true, true])),
        (0.0, 2.0, 0.5, None),
        (3.0, 1.0, -1.0, Some(&[true, true])),
        (0.0, 0.0, 1.0, Some(&[])),
        (0.5, 2.0, 1.0, Some(&[true, true])),
        (-1.0, 1.0, 1.0, Some(&[true, false])),
        (0.0, 2.0, 1.5, Some(&[false, true])),
    ];
    let mut t = common::Tally::new("arange_numpy");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            for &(a, b, s, dt, want) in ints {
                let got = Array::arange_on(&dev, a, b, s, dt)?;
                let got: Vec<i64> = got.astype(DType::Int64)?.to_vec()?;
                if got.as_slice() != want || got.len() != want.len() {
                    return Err(
                        format!("arange({a}, {b}, {s}, {dt}) = {got:?}, want {want:?}").into(),
                    );
                }
            }
            for &(a, b, s, dt, v) in overflows {
                match Array::arange_on(&dev, a, b, s, dt) {
                    Err(Error::ScalarOverflow { value, dtype, .. })
                        if value == v && dtype == dt => {}
                    other => {
                        return Err(format!(
                            "arange({a}, {b}, {s}, {dt}): want overflow of {v}, got {:?}",
                            other.map(|x| x.shape().to_vec())
                        )
                        .into())
                    }
                }
            }
            for &(a, b, s, want) in bools {
                match (Array::arange_on(&dev, a, b, s, DType::Bool), want) {
                    (Ok(x), Some(w)) if x.dtype() == DType::Bool && x.to_vec::<bool>()? == w => {}
                    (Err(Error::TypeError { msg, .. }), None)
                        if msg.contains(
                            "only supported for booleans when the result has at most length 2",
                        ) => {}
                    (got, _) => {
                        return Err(format!(
                            "arange({a}, {b}, {s}, bool): {:?}, want {want:?}",
                            got.map(|x| x.to_vec::<bool>())
                        )
                        .into())
                    }
                }
            }
            // float64: NumPy's step is (start + step) - start (4.0 here, not 3.3).
            let f = Array::arange_on(&dev, 1e16, 1e16 + 100.0, 3.3, DType::Float64)?;
            let want: Vec<f64> = (0..31).map(|i| 1e16 + 4.0 * i as f64).collect();
            if f.to_vec::<f64>()? != want {
                return Err(
                    format!("arange(1e16, 1e16 + 100, 3.3) = {:?}", f.to_vec::<f64>()).into(),
                );
            }
            let f = Array::arange_on(&dev, 0.1, 1.0, 0.3, DType::Float64)?;
            if f.to_vec::<f64>()? != vec![0.1, 0.4, 0.7000000000000001] {
                return Err(format!("arange(0.1, 1, 0.3) = {:?}", f.to_vec::<f64>()).into());
            }
            Ok(())
        })();
        t.check(&dev, "arange", r);
    }
    t.finish();
}

/// The `_like` routines with `dtype=` and `shape=` (NumPy: `np.full_like(a, 7.9, dtype=np.int16,
/// shape=(2, 2))` is `[[7, 7], [7, 7]]` int16), on the prototype's device.
#[test]
fn like_routines_take_dtype_and_shape() {
    let mut t = common::Tally::new("like_with");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 6.0, 1.0, DType::Float32)?.reshape(&[2, 3])?;
            let z = cupy::zeros_like_with(&a, DType::Int8)?;
            if z.dtype() != DType::Int8 || z.shape() != [2, 3] || z.to_vec::<i8>()? != vec![0; 6] {
                return Err(format!("zeros_like int8: {:?} {:?}", z.dtype(), z.shape()).into());
            }
            let shape = cupy::Like {
                dtype: None,
                shape: Some(vec![4]),
            };
            let o = cupy::ones_like_with(&a, shape.clone())?;
            if o.dtype() != DType::Float32 || o.to_vec::<f32>()? != vec![1.0; 4] {
                return Err(format!("ones_like shape (4,): {:?}", o.to_vec::<f32>()).into());
            }
            let e = cupy::empty_like_with(&a, shape)?;
            if e.shape() != [4] || e.dtype() != DType::Float32 || e.device().label() != dev.label()
            {
                return Err(format!("empty_like shape (4,): {:?}", e.shape()).into());
            }
            let f = cupy::full_like_with(
                &a,
                7.9,
                cupy::Like {
                    dtype: Some(DType::Int16),
                    shape: Some(vec![2, 2]),
                },
            )?;
            if f.dtype() != DType::Int16 || f.to_vec::<i16>()? != vec![7; 4] {
                return Err(format!("full_like 7.9 int16: {:?}", f.to_vec::<i16>()).into());
            }
            if cupy::full_like_with(&a, 300, DType::Int8).is_ok() {
                return Err("full_like 300 into int8 must be refused".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "like with", r);
    }
    t.finish();
}
