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
            let z = cupy::zeros(&[2, 2], DType::Float32)?;
            let o = cupy::ones(&[2, 2], DType::Float32)?;
            let s = (&z + &o)?;
            if s.to_vec::<f32>()? != vec![1.0; 4] || s.device() != &dev {
                return Err("zeros + ones".to_string().into());
            }
            let f = cupy::full(&[3], 2.5, DType::Float64)?;
            if f.to_vec::<f64>()? != vec![2.5; 3] {
                return Err("full".to_string().into());
            }
            let e = cupy::eye(2, None, 0, DType::Int64)?;
            if e.to_vec::<i64>()? != vec![1, 0, 0, 1] {
                return Err("eye".to_string().into());
            }
            let l = cupy::linspace(0.0, 1.0, 3, true, DType::Float64)?;
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
