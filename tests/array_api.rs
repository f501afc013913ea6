//! NumPy 2's array-API names against NumPy goldens (`bitwise_count`, `concat`, `permute_dims`,
//! `unstack`, `cumulative_sum`, `cumulative_prod`), and the ufunc aliases (`acos`, `pow`,
//! `bitwise_left_shift`, ...) against the ufuncs they name; ufuncs called with scalars only.

use crate::common::{self, dtype_of, isizes, Golden, Operand, Tol};
use cupy::{Array, Cumulative, DType, Device, Error, Result};
use serde_json::Value;

fn opt_axis(v: &Value) -> Option<isize> {
    v.as_i64().map(|a| a as isize)
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let cumulative = || Cumulative {
        axis: opt_axis(&k["axis"]),
        dtype: k.get("dtype").map(dtype_of),
        include_initial: k["include_initial"].as_bool().unwrap_or(false),
    };
    let id = case["id"].as_str().unwrap();
    if id.starts_with("scalars/") {
        // Python scalars only: no array operand at all.
        let u = cupy::ufunc(case["op"].as_str().unwrap()).expect("a ufunc");
        let args: Vec<cupy::Arg<'_>> = ops.iter().map(|o| o.arg()).collect();
        return cupy::apply(u, &args, None);
    }
    let a: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
    match case["op"].as_str().unwrap() {
        "bitwise_count" => cupy::bitwise_count(a[0]),
        "concat" => cupy::concat(&a, opt_axis(&k["axis"])),
        "permute_dims" => cupy::permute_dims(a[0], &isizes(&k["axes"])),
        "unstack" => {
            let v = cupy::unstack(a[0], k["axis"].as_i64().unwrap() as isize)?;
            let want = case["pieces"].as_u64().unwrap() as usize;
            assert_eq!(v.len(), want, "{}: number of pieces", case["id"]);
            Ok(v[k["piece"].as_u64().unwrap() as usize].clone())
        }
        "cumulative_sum" => cupy::cumulative_sum(a[0], cumulative()),
        "cumulative_prod" => cupy::cumulative_prod(a[0], cumulative()),
        op => panic!("unknown op {op}"),
    }
}

fn expect_err(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap() {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }
        ),
        "AxisError" => matches!(e, Error::AxisOutOfRange { .. }),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn array_api_names_match_numpy() {
    common::run_group(
        "array_api",
        exec,
        |_, case, dev| match case["id"].as_str().unwrap().starts_with("scalars/") {
            true => crate::ufuncs::tol(case["op"].as_str().unwrap(), dtype_of(&case["dtype"]), dev),
            false => Tol::EXACT,
        },
        expect_err,
    );
}

/// Each alias is the ufunc it names: the same object, and the same bits from the function and
/// the method on every backend.
#[test]
fn ufunc_aliases_are_their_ufuncs() {
    use cupy::ufuncs as u;
    let pairs = [
        (u::acos, u::arccos),
        (u::asin, u::arcsin),
        (u::atan, u::arctan),
        (u::atan2, u::arctan2),
        (u::acosh, u::arccosh),
        (u::asinh, u::arcsinh),
        (u::atanh, u::arctanh),
        (u::pow, u::power),
        (u::r#mod, u::remainder),
        (u::bitwise_invert, u::invert),
        (u::bitwise_left_shift, u::left_shift),
        (u::bitwise_right_shift, u::right_shift),
    ];
    for (alias, name) in pairs {
        assert_eq!(alias.name(), name.name());
    }
    let mut t = common::Tally::new("ufunc_aliases");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x = Array::from_slice_on(&dev, &[0.25f32, -0.5, 0.75, 1.5], &[4])?;
            let h = Array::from_slice_on(&dev, &[1.5f32, 2.0, 3.25, 10.0], &[4])?;
            let i = Array::from_slice_on(&dev, &[-3i16, 5, 100, 7], &[4])?;
            let s = Array::from_slice_on(&dev, &[1i16, 2, 3, 0], &[4])?;
            let same =
                |what: &str, p: Array, q: Array| -> std::result::Result<(), common::CaseError> {
                    if p.dtype() != q.dtype() || p.to_bytes()? != q.to_bytes()? {
                        return Err(format!("{what}: the alias differs from its ufunc").into());
                    }
                    Ok(())
                };
            same("acos", cupy::acos(&x)?, cupy::arccos(&x)?)?;
            same("asin", cupy::asin(&x)?, x.arcsin()?)?;
            same("atan", x.atan()?, cupy::arctan(&x)?)?;
            same("atan2", cupy::atan2(&x, &h)?, cupy::arctan2(&x, &h)?)?;
            same("acosh", cupy::acosh(&h)?, cupy::arccosh(&h)?)?;
            same("asinh", cupy::asinh(&x)?, cupy::arcsinh(&x)?)?;
            same("atanh", cupy::atanh(&x)?, cupy::arctanh(&x)?)?;
            same("pow", cupy::pow(&h, 3)?, cupy::power(&h, 3)?)?;
            same("pow int", i.pow(&s)?, cupy::power(&i, &s)?)?;
            same("mod", cupy::r#mod(&i, 7)?, cupy::remainder(&i, 7)?)?;
            // np.mod(int16 [-3, 5, 100, 7], 7) is [4, 5, 2, 0] (the divisor's sign).
            if i.r#mod(7)?.to_vec::<i16>()? != vec![4, 5, 2, 0] {
                return Err(format!("mod int16: {:?}", i.r#mod(7)?.to_vec::<i16>()).into());
            }
            same(
                "bitwise_invert",
                cupy::bitwise_invert(&i)?,
                cupy::invert(&i)?,
            )?;
            same(
                "bitwise_left_shift",
                cupy::bitwise_left_shift(&i, &s)?,
                cupy::left_shift(&i, &s)?,
            )?;
            same(
                "bitwise_right_shift",
                cupy::bitwise_right_shift(&i, 1)?,
                cupy::right_shift(&i, 1)?,
            )?;
            // The values themselves (NumPy: np.pow(int16 [-3, 5, 100, 7], [1, 2, 3, 0]) and
            // np.bitwise_left_shift of the same).
            if i.pow(&s)?.to_vec::<i16>()? != vec![-3, 25, 16960, 1] {
                return Err(format!("pow int16: {:?}", i.pow(&s)?.to_vec::<i16>()).into());
            }
            if cupy::bitwise_left_shift(&i, &s)?.to_vec::<i16>()? != vec![-6, 20, 800, 7] {
                return Err("bitwise_left_shift int16".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "aliases", r);
    }
    t.finish();
}

/// `unstack` gives views of its input; `cumulative_sum` leaves it unchanged.
#[test]
fn unstack_views_and_cumulative_inputs() {
    let mut t = common::Tally::new("array_api_views");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 6.0, 1.0, DType::Int32)?.reshape(&[2, 3])?;
            let parts = cupy::unstack(&a, 1)?;
            if parts.len() != 3 || !parts.iter().all(|p| p.shares_memory_with(&a)) {
                return Err("unstack must give views".to_string().into());
            }
            parts[2].fill(-1)?;
            if a.to_vec::<i32>()? != vec![0, 1, -1, 3, 4, -1] {
                return Err(
                    format!("write through unstack's view: {:?}", a.to_vec::<i32>()).into(),
                );
            }
            let before = a.to_vec::<i32>()?;
            assert!(cupy::cumulative_sum(&a, Cumulative::default()).is_err());
            let c = cupy::cumulative_sum(&a, 1)?;
            if a.to_vec::<i32>()? != before || c.to_vec::<i64>()? != vec![0, 1, 0, 3, 7, 6] {
                return Err(format!("cumulative_sum(axis=1): {:?}", c.to_vec::<i64>()).into());
            }
            Ok(())
        })();
        t.check(&dev, "unstack and cumulative_sum", r);
    }
    t.finish();
}

/// A ufunc of Rust scalars only returns a 0-d array on the current device (NumPy converts
/// Python scalars); a typed scalar keeps its dtype and the weak one adapts
/// (`np.add(np.int8(100), 100)` is int8 -56), and `out=` receives the result.
#[test]
fn ufuncs_of_scalars_only() {
    let mut t = common::Tally::new("ufunc_scalars");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let s = cupy::add(cupy::Scalar::Int8(100), 100)?;
            if s.dtype() != DType::Int8 || s.ndim() != 0 || s.to_vec::<i8>()? != vec![-56] {
                return Err(
                    format!("int8(100) + 100: {:?} {:?}", s.dtype(), s.to_vec::<i8>()).into(),
                );
            }
            if s.device().label() != dev.label() {
                return Err(
                    format!("made on {} instead of {}", s.device().label(), dev.label()).into(),
                );
            }
            // One Rust integer past int64 is uint64, as NumPy converts 2**63 (np.negative(2**63)
            // is uint64 2**63, np.sqrt(2**63) float64); two of them overflow there as here.
            let big = 1u64 << 63;
            let n = cupy::negative(big)?;
            if n.dtype() != DType::UInt64 || n.to_vec::<u64>()? != vec![big] {
                return Err(format!("negative(2**63): {:?}", n.dtype()).into());
            }
            if cupy::sqrt(big)?.dtype() != DType::Float64 {
                return Err("sqrt(2**63) must be float64".to_string().into());
            }
            if !matches!(cupy::add(big, 1), Err(Error::ScalarOverflow { .. })) {
                return Err("add(2**63, 1) must overflow, as NumPy's".to_string().into());
            }
            match cupy::add(300, cupy::Scalar::UInt8(1)) {
                Err(Error::ScalarOverflow { .. }) => {}
                other => return Err(format!("300 + uint8(1): {other:?}").into()),
            }
            let out = Array::zeros_on(&dev, &[], DType::Float32)?;
            cupy::apply_with(
                &cupy::ufuncs::multiply,
                &[1.5.into(), 4.into()],
                &cupy::UfuncOptions {
                    out: Some(out.clone()),
                    ..Default::default()
                },
            )?;
            if out.to_vec::<f32>()? != vec![6.0] {
                return Err(format!("out= of 1.5 * 4: {:?}", out.to_vec::<f32>()).into());
            }
            Ok(())
        });
        t.check(&dev, "scalars only", r);
    }
    t.finish();
}

/// `bitwise_count(x, dtype=uint8)` names its only output dtype: the loop of `x`'s dtype is
/// taken (NumPy: `np.bitwise_count(int8 [-128, -1, 0, 127, 5], dtype=np.uint8)` is
/// `[1, 1, 0, 7, 2]`, the count of `|x|`, not of `x` cast to uint8), `np.bitwise_count(7,
/// dtype=np.uint8)` is `uint8(3)`, and another dtype has no loop.
#[test]
fn bitwise_count_dtype_uint8() {
    let mut t = common::Tally::new("bitwise_count_dtype");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let bc = &cupy::ufuncs::bitwise_count;
            let x = Array::from_slice_on(&dev, &[-128i8, -1, 0, 127, 5], &[5])?;
            let y = bc.call_with(&[(&x).into()], DType::UInt8)?;
            if y.dtype() != DType::UInt8 || y.to_vec::<u8>()? != vec![1, 1, 0, 7, 2] {
                return Err(
                    format!("int8, dtype=uint8: {:?} {:?}", y.dtype(), y.to_vec::<u8>()).into(),
                );
            }
            let w = x.astype(DType::Int64)?;
            let y = bc.call_with(&[(&w).into()], DType::UInt8)?;
            if y.to_vec::<u8>()? != vec![1, 1, 0, 7, 2] {
                return Err(format!("int64, dtype=uint8: {:?}", y.to_vec::<u8>()).into());
            }
            let b = Array::from_slice_on(&dev, &[true, false], &[2])?;
            if bc.call_with(&[(&b).into()], DType::UInt8)?.to_vec::<u8>()? != vec![1, 0] {
                return Err("bool, dtype=uint8".to_string().into());
            }
            let s = bc.call_with(&[7.into()], DType::UInt8)?;
            if s.ndim() != 0 || s.to_vec::<u8>()? != vec![3] {
                return Err(format!("7, dtype=uint8: {:?}", s.to_vec::<u8>()).into());
            }
            for d in [DType::UInt16, DType::Int8] {
                if !matches!(
                    bc.call_with(&[(&x).into()], d),
                    Err(Error::TypeError { .. })
                ) {
                    return Err(format!("dtype={d:?} must have no loop").into());
                }
            }
            let f = Array::from_slice_on(&dev, &[1.0f64], &[1])?;
            if !matches!(
                bc.call_with(&[(&f).into()], DType::UInt8),
                Err(Error::TypeError { .. })
            ) {
                return Err("float64 with dtype=uint8 must be refused"
                    .to_string()
                    .into());
            }
            Ok(())
        });
        t.check(&dev, "bitwise_count dtype=uint8", r);
    }
    t.finish();
}

/// Scalars only: the first weak scalar becomes an array of NumPy's result type of all the weak
/// scalars (a Python int with a float is float64), not of its own kind: `np.add(2**63, 1.0)` is
/// `float64(9.223372036854776e18)` and `np.multiply(2**63, 1j)` complex128 (2**63 is past
/// int64), and `np.add(1, 2.5, casting='no')` is `float64(3.5)` (no int64 operand to cast).
#[test]
fn ufuncs_of_weak_scalars_take_their_result_type() {
    let mut t = common::Tally::new("ufunc_weak_scalars");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let big = 1u64 << 63;
            let s = cupy::add(big, 1.0)?;
            if s.dtype() != DType::Float64 || s.to_vec::<f64>()? != vec![big as f64] {
                return Err(format!("2**63 + 1.0: {:?} {:?}", s.dtype(), s.to_vec::<f64>()).into());
            }
            let c = cupy::multiply(big, num_complex::Complex::new(0.0, 1.0))?;
            let want = num_complex::Complex::new(0.0, big as f64);
            if c.dtype() != DType::Complex128
                || c.to_vec::<num_complex::Complex<f64>>()? != vec![want]
            {
                return Err(format!("2**63 * 1j: {:?}", c.dtype()).into());
            }
            let n = cupy::apply_with(
                &cupy::ufuncs::add,
                &[1.into(), 2.5.into()],
                &cupy::UfuncOptions {
                    casting: cupy::Casting::No,
                    ..Default::default()
                },
            )?;
            if n.dtype() != DType::Float64 || n.to_vec::<f64>()? != vec![3.5] {
                return Err(format!("add(1, 2.5, casting='no'): {:?}", n.to_vec::<f64>()).into());
            }
            // Unchanged: bool with int is int64, and two ints past int64 stay refused.
            let b = cupy::add(true, 2)?;
            if b.dtype() != DType::Int64 || b.to_vec::<i64>()? != vec![3] {
                return Err("True + 2".to_string().into());
            }
            if !matches!(cupy::add(big, 1), Err(Error::ScalarOverflow { .. })) {
                return Err("2**63 + 1 must overflow int64".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "weak scalars only", r);
    }
    t.finish();
}

/// Scalars only with `dtype=`: NumPy converts the Python scalars to the loop's dtype, range
/// checked: `np.add(300, 2, dtype=np.int8)` is an OverflowError (it was int8 46: 300 became an
/// int64 array first, then wrapped), `np.add(2**63, 1, dtype=np.float64)` is 9.223372036854776e18
/// and `np.add(1.5, 2, dtype=np.int8)` a casting TypeError.
#[test]
fn ufuncs_of_scalars_with_dtype() {
    let mut t = common::Tally::new("ufunc_scalars_dtype");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let add = &cupy::ufuncs::add;
            match add.call_with(&[300.into(), 2.into()], DType::Int8) {
                Err(Error::ScalarOverflow { .. }) => {}
                other => return Err(format!("add(300, 2, dtype=int8): {other:?}").into()),
            }
            match add.call_with(&[2.into(), 300.into()], DType::Int8) {
                Err(Error::ScalarOverflow { .. }) => {}
                other => return Err(format!("add(2, 300, dtype=int8): {other:?}").into()),
            }
            let big = 1u64 << 63;
            let f = add.call_with(&[big.into(), 1.into()], DType::Float64)?;
            if f.dtype() != DType::Float64 || f.to_vec::<f64>()? != vec![big as f64] {
                return Err(
                    format!("add(2**63, 1, dtype=float64): {:?}", f.to_vec::<f64>()).into(),
                );
            }
            let u = add.call_with(&[big.into(), 1.into()], DType::UInt64)?;
            if u.to_vec::<u64>()? != vec![big + 1] {
                return Err(format!("add(2**63, 1, dtype=uint64): {:?}", u.to_vec::<u64>()).into());
            }
            if !matches!(
                add.call_with(&[1.5.into(), 2.into()], DType::Int8),
                Err(Error::TypeError { .. })
            ) {
                return Err("add(1.5, 2, dtype=int8) must be a TypeError"
                    .to_string()
                    .into());
            }
            let s = add.call_with(&[100.into(), 27.into()], DType::Int8)?;
            if s.dtype() != DType::Int8 || s.to_vec::<i8>()? != vec![127] {
                return Err(format!("add(100, 27, dtype=int8): {:?}", s.to_vec::<i8>()).into());
            }
            let l = cupy::ufuncs::logical_and.call_with(&[2.into(), 0.into()], DType::Bool)?;
            if l.to_vec::<bool>()? != vec![false] {
                return Err("logical_and(2, 0, dtype=bool)".to_string().into());
            }
            let q = cupy::ufuncs::sqrt.call_with(&[2.into()], DType::Float32)?;
            if q.dtype() != DType::Float32 || q.to_vec::<f32>()? != vec![2f32.sqrt()] {
                return Err("sqrt(2, dtype=float32)".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "scalars with dtype=", r);
    }
    t.finish();
}

/// `clip(a, a_min, a_max, out=...)`: NumPy writes into `out` with a same_kind cast
/// (`np.clip(int8 arange(5), 1, 3, out=int16 zeros)` is `[1, 1, 2, 3, 3]`) and refuses an `out`
/// the result does not cast to (int8 into uint8), leaving it unchanged.
#[test]
fn clip_into_out() {
    let mut t = common::Tally::new("clip_out");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 5.0, 1.0, DType::Int8)?;
            let out = Array::zeros_on(&dev, &[5], DType::Int16)?;
            let r = cupy::clip_with(&a, 1, 3, Some(&out))?;
            if !r.shares_memory_with(&out) || out.to_vec::<i16>()? != vec![1, 1, 2, 3, 3] {
                return Err(format!("clip into int16 out: {:?}", out.to_vec::<i16>()).into());
            }
            let upper = Array::zeros_on(&dev, &[5], DType::Int16)?;
            cupy::clip_with(&a, None, 2, Some(&upper))?;
            if upper.to_vec::<i16>()? != vec![0, 1, 2, 2, 2] {
                return Err(format!("clip(None, 2) into out: {:?}", upper.to_vec::<i16>()).into());
            }
            let bad = Array::full_on(&dev, &[5], 9, DType::UInt8)?;
            match cupy::clip_with(&a, 1, 3, Some(&bad)) {
                Err(Error::TypeError { .. }) => {}
                other => return Err(format!("clip int8 into uint8: {other:?}").into()),
            }
            if bad.to_vec::<u8>()? != vec![9; 5] {
                return Err("a refused clip changed its out".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "clip out", r);
    }
    t.finish();
}
