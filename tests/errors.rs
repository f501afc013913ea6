//! Error variants and messages: every user error is a value naming the op and what was wrong,
//! and a failed op leaves its inputs intact.

use crate::common::{self, CaseError};
use cupy::core::discovery::Selection;
use cupy::{Array, BackendKind, DType, Device, Error};

type R = std::result::Result<(), CaseError>;

/// Asserts `r` is an error matching `pat`, whose message contains every `needle`.
macro_rules! expect_err {
    ($what:expr, $r:expr, $pat:pat $(if $guard:expr)?, [$($needle:expr),*]) => {{
        match $r {
            Ok(_) => return Err(format!("{}: expected an error, got Ok", $what).into()),
            Err(e) => {
                if !matches!(e, $pat $(if $guard)?) {
                    return Err(format!("{}: wrong variant: {e:?}", $what).into());
                }
                let msg = e.to_string();
                for n in [$($needle),*] {
                    let n: &str = n;
                    if !msg.contains(n) {
                        return Err(format!("{}: message {msg:?} lacks {n:?}", $what).into());
                    }
                }
            }
        }
    }};
}

fn per_backend(name: &str, f: impl Fn(&Device) -> R) {
    let mut t = common::Tally::new(name);
    for dev in common::backends() {
        let r = f(&dev);
        t.check(&dev, name, r);
    }
    t.finish();
}

#[test]
fn shape_mismatch_names_op_and_shapes() {
    per_backend("shape_mismatch", |dev| {
        let a = Array::zeros_on(dev, &[2, 3], DType::Float32)?;
        let b = Array::zeros_on(dev, &[4], DType::Float32)?;
        expect_err!("add", cupy::add(&a, &b), Error::ShapeMismatch { ref op, ref lhs, ref rhs } if op == "add" && lhs == &[2, 3] && rhs == &[4], ["add", "[2, 3]", "[4]"]);
        expect_err!(
            "a * b",
            &a * &b,
            Error::ShapeMismatch { .. },
            ["multiply", "[2, 3]", "[4]"]
        );
        Ok(())
    });
}

#[test]
fn unknown_backend_names() {
    let e = Selection::parse(Some("nope"), None);
    match e {
        Err(Error::UnknownBackend { ref value }) if value == "nope" => {
            let m = e.unwrap_err().to_string();
            assert!(
                m.contains("\"nope\"")
                    && m.contains("cuda")
                    && m.contains("wgpu")
                    && m.contains("cpu"),
                "{m}"
            );
        }
        other => panic!("Selection::parse(nope): {other:?}"),
    }
    assert!(matches!(
        BackendKind::parse("nope"),
        Err(Error::UnknownBackend { .. })
    ));
    assert_eq!(BackendKind::parse("CPU").unwrap(), Some(BackendKind::Cpu));
    assert_eq!(BackendKind::parse("wgpu").unwrap(), Some(BackendKind::Wgpu));
    assert_eq!(BackendKind::parse("auto").unwrap(), None);
    let s = Selection::parse(Some("cuda"), Some("1")).unwrap();
    assert_eq!((s.backend, s.device), (Some(BackendKind::Cuda), Some(1)));
    match Selection::parse(None, Some("minus one")) {
        Err(e @ Error::InvalidArgument { .. }) => {
            assert!(e.to_string().contains("CUPY_DEVICE"), "{e}")
        }
        other => panic!("CUPY_DEVICE=minus one: {other:?}"),
    }
}

#[test]
fn reshape_axis_index_step_errors() {
    per_backend("view_errors", |dev| {
        let a = Array::arange_on(dev, 0.0, 6.0, 1.0, DType::Int64)?;
        expect_err!(
            "reshape",
            a.reshape(&[4, 2]),
            Error::InvalidReshape { size: 6, .. },
            ["6", "[4, 2]"]
        );
        let m = a.reshape(&[2, 3])?;
        expect_err!(
            "sum axis",
            m.sum_axis(2),
            Error::AxisOutOfRange {
                axis: 2,
                ndim: 2,
                ..
            },
            ["sum", "axis 2", "dimension 2"]
        );
        expect_err!(
            "sum axis -3",
            m.sum_axis(-3),
            Error::AxisOutOfRange { .. },
            ["-3"]
        );
        expect_err!(
            "slice index",
            a.slice(&cupy::s![6]),
            Error::IndexOutOfBounds {
                index: 6,
                size: 6,
                ..
            },
            ["6"]
        );
        expect_err!(
            "slice index 2-D",
            m.slice(&cupy::s![0, -4]),
            Error::IndexOutOfBounds {
                index: -4,
                axis: 1,
                size: 3,
                ..
            },
            ["-4", "axis 1", "size 3"]
        );
        expect_err!(
            "zero step",
            a.slice(&cupy::s![..;0]),
            Error::InvalidArgument { .. },
            ["step"]
        );
        expect_err!(
            "transpose perm",
            m.transpose(&[0, 0]),
            Error::InvalidArgument { .. },
            []
        );
        expect_err!(
            "broadcast_to",
            m.broadcast_to(&[4, 3, 2]),
            Error::ShapeMismatch { .. },
            ["broadcast_to"]
        );
        Ok(())
    });
}

#[test]
fn matmul_core_dimension_mismatch() {
    per_backend("matmul_errors", |dev| {
        let a = Array::zeros_on(dev, &[2, 3], DType::Float32)?;
        let b = Array::zeros_on(dev, &[4, 5], DType::Float32)?;
        expect_err!("matmul", cupy::matmul(&a, &b), Error::ShapeMismatch { ref lhs, ref rhs, .. } if lhs == &[2, 3] && rhs == &[4, 5], ["matmul", "[2, 3]", "[4, 5]"]);
        expect_err!(
            "vdot lengths",
            cupy::linalg::vdot(&a, &b),
            Error::InvalidArgument { .. },
            ["vdot", "different lengths", "6", "[2, 3]", "20", "[4, 5]"]
        );
        expect_err!(
            "tensordot pairs",
            cupy::linalg::tensordot(&a, &b, 1),
            Error::InvalidArgument { .. },
            [
                "tensordot",
                "shape-mismatch for sum",
                "axis 1",
                "[2, 3]",
                "axis 0",
                "[4, 5]"
            ]
        );
        let s = Array::zeros_on(dev, &[], DType::Float32)?;
        expect_err!(
            "matmul 0-d",
            cupy::matmul(&s, &a),
            Error::InvalidArgument { .. },
            ["matmul"]
        );
        Ok(())
    });
}

#[test]
fn weak_scalar_overflow() {
    per_backend("weak_overflow", |dev| {
        let a = Array::from_slice_on(dev, &[1u8, 2], &[2])?;
        expect_err!(
            "u8 + 300",
            &a + 300,
            Error::ScalarOverflow {
                dtype: DType::UInt8,
                ..
            },
            ["300", "uint8"]
        );
        expect_err!(
            "u8 + -1",
            cupy::add(&a, -1),
            Error::ScalarOverflow { .. },
            ["-1", "uint8"]
        );
        let i = Array::from_slice_on(dev, &[1i8], &[1])?;
        expect_err!(
            "i8 * 1000",
            &i * 1000,
            Error::ScalarOverflow {
                dtype: DType::Int8,
                ..
            },
            ["1000", "int8"]
        );
        // NumPy's `a.fill(300)` and `np.pad(a, 1, constant_values=300)` on int8 raise
        // OverflowError; the array keeps its values.
        expect_err!(
            "i8.fill(300)",
            i.fill(300),
            Error::ScalarOverflow { .. },
            ["fill", "300", "int8"]
        );
        assert_eq!(i.to_vec::<i8>()?, vec![1]);
        expect_err!(
            "u8.fill(-1)",
            a.fill(-1),
            Error::ScalarOverflow { .. },
            ["fill", "-1", "uint8"]
        );
        expect_err!(
            "pad int8 300",
            cupy::pad(&i, &[(1, 1)], cupy::PadMode::Constant(300.into())),
            Error::ScalarOverflow { .. },
            ["pad", "300", "int8"]
        );
        let p = cupy::pad(&i, &[(1, 2)], cupy::PadMode::Constant((-128).into()))?;
        assert_eq!(p.to_vec::<i8>()?, vec![-128, 1, -128, -128]);
        // Per side, every value is converted, on a side padded by 0 too, and a float as Python's
        // int() does (NumPy's OverflowError and ValueError).
        expect_err!(
            "pad int8 (1, 300) on an unpadded side",
            cupy::pad(&i, &[(1, 0)], cupy::PadMode::Constant((1, 300).into())),
            Error::ScalarOverflow { .. },
            ["pad", "300", "int8"]
        );
        expect_err!(
            "pad int8 300.5",
            cupy::pad(
                &i,
                &[(1, 1)],
                cupy::PadMode::Constant(vec![(0, 300.5)].into())
            ),
            Error::ScalarOverflow { .. },
            ["pad", "300", "int8"]
        );
        expect_err!(
            "pad int8 NaN",
            cupy::pad(
                &i,
                &[(1, 1)],
                cupy::PadMode::Constant((0.0, f64::NAN).into())
            ),
            Error::InvalidArgument { .. },
            ["pad", "NaN", "int8"]
        );
        expect_err!(
            "pad int8 -inf",
            cupy::pad(
                &i,
                &[(1, 1)],
                cupy::PadMode::Constant(f64::NEG_INFINITY.into())
            ),
            Error::InvalidArgument { .. },
            ["pad", "inf", "int8"]
        );
        i.fill(-7)?;
        assert_eq!(i.to_vec::<i8>()?, vec![-7]);
        a.fill(2.9)?;
        assert_eq!(a.to_vec::<u8>()?, vec![2, 2]);
        // A float is converted as Python's int() does in NumPy's fill: 300.0 into int8 and
        // -1.5 into uint8 overflow (-1.5 truncates to -1), NaN is refused.
        expect_err!(
            "i8.fill(300.0)",
            i.fill(300.0),
            Error::ScalarOverflow { .. },
            ["fill", "300", "int8"]
        );
        expect_err!(
            "u8.fill(-1.5)",
            a.fill(-1.5),
            Error::ScalarOverflow { .. },
            ["fill", "-1", "uint8"]
        );
        expect_err!(
            "i8.fill(NaN)",
            i.fill(f64::NAN),
            Error::InvalidArgument { .. },
            ["fill", "NaN"]
        );
        assert_eq!(i.to_vec::<i8>()?, vec![-7]);
        assert_eq!(a.to_vec::<u8>()?, vec![2, 2]);
        a.fill(-0.5)?;
        assert_eq!(a.to_vec::<u8>()?, vec![0, 0]);
        Ok(())
    });
}

#[test]
fn to_vec_wrong_type() {
    per_backend("to_vec_type", |dev| {
        let a = Array::from_slice_on(dev, &[1i32, 2], &[2])?;
        expect_err!(
            "to_vec::<f32>",
            a.to_vec::<f32>(),
            Error::InvalidArgument { .. },
            ["to_vec::<f32>", "int32", "astype(float32)", "to_vec::<i32>"]
        );
        let b = Array::from_slice_on(dev, &[1.5f64], &[1])?;
        let msg = b.to_vec::<f32>().map(|_| ()).unwrap_err().to_string();
        if msg
            != "to_vec::<f32>: the array's dtype is float64; use astype(float32) first or to_vec::<f64>"
        {
            return Err(format!("to_vec::<f32> of float64: {msg:?}").into());
        }
        if msg.contains("loop") {
            return Err(format!("to_vec speaks of ufunc loops: {msg:?}").into());
        }
        expect_err!(
            "to_ndarray::<i64>",
            b.to_ndarray::<i64>(),
            Error::InvalidArgument { .. },
            ["to_ndarray::<i64>", "float64", "to_ndarray::<f64>"]
        );
        Ok(())
    });
}

/// Creation errors name the routine the user called and the sizes involved.
#[test]
fn creation_errors_name_the_routine() {
    per_backend("creation_errors", |dev| {
        cupy::with_device(dev, || -> R {
            expect_err!(
                "zeros too big",
                cupy::zeros(&[1 << 40, 1 << 40]),
                Error::InvalidArgument { .. },
                ["zeros: ", "8-byte elements"]
            );
            expect_err!(
                "ones overflow",
                cupy::full_with(&[2], 300, DType::UInt8),
                Error::ScalarOverflow { .. },
                ["full", "300", "uint8"]
            );
            expect_err!(
                "from_slice",
                cupy::from_slice(&[1.0f32, 2.0], &[3]),
                Error::InvalidArgument { .. },
                ["from_slice: ", "2 elements", "[3]"]
            );
            if dev.kind() == BackendKind::Wgpu {
                // complex128 functions built on float64 transcendentals run on wgpu (software
                // float64 math); they were refused before.
                let z = cupy::ones_with(&[2], DType::Complex128)?;
                let e = z.exp()?.to_vec::<num_complex::Complex<f64>>()?;
                // Within an ulp of e (NVIDIA's driver gives the float64 next to it).
                let e_bits = std::f64::consts::E.to_bits();
                assert!(
                    e.iter()
                        .all(|z| z.re.to_bits().abs_diff(e_bits) <= 1 && z.im == 0.0),
                    "exp complex128 on wgpu: {e:?}"
                );
            }
            Ok(())
        })
    });
}

#[test]
fn convolve2d_errors() {
    per_backend("convolve2d_errors", |dev| {
        let a = Array::zeros_on(dev, &[4, 4], DType::Float32)?;
        let k = Array::ones_on(dev, &[2, 2], DType::Float32)?;
        expect_err!(
            "bad mode",
            "circular".parse::<cupy::scipy::signal::Mode>(),
            Error::InvalidArgument { .. },
            ["circular"]
        );
        let v = Array::zeros_on(dev, &[4], DType::Float32)?;
        expect_err!(
            "1-D input",
            cupy::scipy::signal::convolve2d_with(&v, &k, cupy::scipy::signal::Mode::Same),
            Error::InvalidArgument { .. },
            ["2"]
        );
        let w = Array::zeros_on(dev, &[2, 2, 2], DType::Float32)?;
        expect_err!(
            "3-D kernel",
            cupy::scipy::signal::convolve2d(&a, &w),
            Error::InvalidArgument { .. },
            []
        );
        Ok(())
    });
}

#[test]
fn max_of_empty() {
    per_backend("max_empty", |dev| {
        let a = Array::zeros_on(dev, &[0], DType::Float32)?;
        expect_err!(
            "max()",
            a.max(),
            Error::InvalidArgument { .. },
            ["zero-size array", "maximum"]
        );
        expect_err!(
            "min()",
            a.min(),
            Error::InvalidArgument { .. },
            ["zero-size array", "minimum"]
        );
        let s = a.sum()?.to_vec::<f32>()?;
        if s != vec![0.0] {
            return Err(format!("sum of empty: {s:?}").into());
        }
        let m = a.mean()?.to_vec::<f32>()?;
        if !(m.len() == 1 && m[0].is_nan()) {
            return Err(format!("mean of empty: {m:?}").into());
        }
        Ok(())
    });
}

/// `compress` and `extract` end in a `take`; their errors name the routine called.
#[test]
fn compress_extract_errors_name_the_routine() {
    per_backend("compress_extract_errors", |dev| {
        let a = Array::arange_on(dev, 0.0, 3.0, 1.0, DType::Float32)?;
        let c = Array::from_slice_on(dev, &[true, false, false, false, true], &[5])?;
        expect_err!(
            "compress(c, a, 0)",
            cupy::compress(&c, &a, Some(0)),
            Error::IndexOutOfBounds { ref op, index: 4, size: 3, .. } if op == "compress",
            ["compress", "index 4", "size 3"]
        );
        expect_err!(
            "compress(c, a)",
            cupy::compress(&c, &a, None),
            Error::IndexOutOfBounds { ref op, .. } if op == "compress",
            ["compress", "index 4"]
        );
        expect_err!(
            "compress(c, a, 1)",
            cupy::compress(&c, &a, Some(1)),
            Error::AxisOutOfRange { ref op, axis: 1, ndim: 1 } if op == "compress",
            ["compress", "axis 1"]
        );
        expect_err!(
            "extract(c, a)",
            cupy::extract(&c, &a),
            Error::IndexOutOfBounds { ref op, index: 4, size: 3, .. } if op == "extract",
            ["extract", "index 4"]
        );
        Ok(())
    });
}

/// `take_along_axis` and `put_along_axis` are an indexing underneath; their errors name the
/// routine called, and a refused `put_along_axis` writes nothing.
#[test]
fn along_axis_errors_name_the_routine() {
    per_backend("along_axis_errors", |dev| {
        let a = Array::arange_on(dev, 0.0, 6.0, 1.0, DType::Float32)?.reshape(&[2, 3])?;
        let oob = Array::from_slice_on(dev, &[0i64, 3], &[2, 1])?;
        let wide = Array::from_slice_on(dev, &[0i64, 1, 2], &[3, 1])?;
        let v = Array::from_slice_on(dev, &[-1.0f32], &[1])?;
        expect_err!(
            "take_along_axis(a, oob, 1)",
            cupy::take_along_axis(&a, &oob, Some(1)),
            Error::IndexOutOfBounds { ref op, index: 3, size: 3, .. } if op == "take_along_axis",
            ["take_along_axis", "index 3"]
        );
        expect_err!(
            "take_along_axis(a, wide, 1)",
            cupy::take_along_axis(&a, &wide, Some(1)),
            Error::IndexError { ref op, .. } if op == "take_along_axis",
            ["take_along_axis", "[3, 1]"]
        );
        expect_err!(
            "put_along_axis(a, oob, v, 1)",
            cupy::put_along_axis(&a, &oob, &v, Some(1)),
            Error::IndexOutOfBounds { ref op, index: 3, .. } if op == "put_along_axis",
            ["put_along_axis", "index 3"]
        );
        let at = a.t();
        let flat = Array::from_slice_on(dev, &[0i64, 6], &[2])?;
        expect_err!(
            "put_along_axis(a.T, flat, v, None)",
            cupy::put_along_axis(&at, &flat, &v, None),
            Error::IndexOutOfBounds { ref op, index: 6, .. } if op == "put_along_axis",
            ["put_along_axis", "index 6"]
        );
        if a.to_vec::<f32>()? != vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0] {
            return Err("a refused put_along_axis wrote to its array"
                .to_string()
                .into());
        }
        Ok(())
    });
}

#[test]
fn type_errors_from_missing_loops() {
    per_backend("type_errors", |dev| {
        let b = Array::from_slice_on(dev, &[true, false], &[2])?;
        expect_err!(
            "bool - bool",
            &b - &b,
            Error::TypeError { .. },
            ["subtract"]
        );
        let f = Array::from_slice_on(dev, &[1.0f32], &[1])?;
        expect_err!(
            "float & float",
            &f & &f,
            Error::TypeError { .. },
            ["bitwise_and"]
        );
        Ok(())
    });
}

#[test]
fn device_mismatch() {
    let Some((d0, d1)) = common::backend_pair() else {
        println!("device_mismatch: skipped (needs two backends, e.g. CUPY_TEST_BACKENDS=cpu,wgpu)");
        return;
    };
    let a = Array::from_slice_on(&d0, &[1.0f32, 2.0], &[2]).unwrap();
    let b = Array::from_slice_on(&d1, &[1.0f32, 2.0], &[2]).unwrap();
    match cupy::add(&a, &b) {
        Err(e @ Error::DeviceMismatch { .. }) => {
            let m = e.to_string();
            assert!(
                m.contains("add") && m.contains(&d0.label()) && m.contains(&d1.label()),
                "{m}"
            );
        }
        other => panic!("add across devices: {other:?}"),
    }
    assert!(matches!(
        cupy::matmul(&a, &b),
        Err(Error::DeviceMismatch { .. })
    ));
    // routines composed of others name themselves
    let m = Array::from_slice_on(&d1, &[true, false], &[2]).unwrap();
    for (what, r) in [
        ("compress", cupy::compress(&m, &a, None)),
        ("extract", cupy::extract(&m, &a)),
        ("union1d", cupy::union1d(&a, &b)),
        ("intersect1d", cupy::intersect1d(&a, &b)),
    ] {
        match r {
            Err(Error::DeviceMismatch { op, .. }) if op == what => {}
            other => panic!("{what} across devices: {other:?}"),
        }
    }
    // to_device moves it; then the op works.
    let c = cupy::add(&a, &b.to_device(&d0).unwrap()).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn failed_ops_leave_inputs_intact() {
    per_backend("inputs_intact", |dev| {
        let a = Array::from_slice_on(dev, &[1.5f32, -2.0, 3.25], &[3])?;
        let b = Array::from_slice_on(dev, &[7u8, 8], &[2])?;
        let out = Array::from_slice_on(dev, &[9i32, 9, 9], &[3])?;
        let _ = cupy::add(&a, &b);
        let _ = &b + 300;
        let _ = cupy::apply_out(&cupy::ufuncs::add, &[(&a).into(), (&a).into()], &out);
        let _ = a.reshape(&[2, 2]);
        let _ = a.sum_axis(3);
        let _ = cupy::matmul(&a, &b);
        let _ = cupy::scipy::signal::convolve2d_with(&a, &a, cupy::scipy::signal::Mode::Same);
        if a.to_vec::<f32>()? != vec![1.5, -2.0, 3.25] || b.to_vec::<u8>()? != vec![7, 8] {
            return Err("an input changed after a failed op".to_string().into());
        }
        if out.to_vec::<i32>()? != vec![9, 9, 9] {
            return Err(format!(
                "out changed after a refused cast: {:?}",
                out.to_vec::<i32>()
            )
            .into());
        }
        Ok(())
    });
}
