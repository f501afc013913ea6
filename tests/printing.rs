//! Display reads like NumPy's `str`, Debug like its `repr` (goldens hold NumPy's own text).

use crate::common::{self, Golden};
use cupy::{DType, Device};

#[test]
fn arange_display() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::arange(10).expect("arange");
            assert_eq!(format!("{a}"), "[0 1 2 3 4 5 6 7 8 9]", "on {dev}");
            assert_eq!(
                format!("{a:?}"),
                "array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=int32)",
                "on {dev}"
            );
        });
    }
}

#[test]
fn float_2d_display_and_debug() {
    for dev in common::backends() {
        let a = cupy::Array::from_slice_on(&dev, &[1.0f32, 2.5, 3.0, 4.0], &[2, 2]).unwrap();
        assert_eq!(format!("{a}"), "[[1.  2.5]\n [3.  4. ]]", "on {dev}");
        assert_eq!(
            format!("{a:?}"),
            "array([[1. , 2.5],\n       [3. , 4. ]], dtype=float32)",
            "on {dev}"
        );
        let b = a.astype(DType::Float64).unwrap();
        assert_eq!(
            format!("{b:?}"),
            "array([[1. , 2.5],\n       [3. , 4. ]])",
            "on {dev}"
        );
    }
}

#[test]
fn printing_matches_numpy() {
    let g = Golden::load("printing");
    let mut t = common::Tally::new("printing");
    for dev in common::backends() {
        let dev: Device = dev;
        for case in &g.cases {
            let id = case["id"].as_str().unwrap();
            let r = (|| -> std::result::Result<(), common::CaseError> {
                let a = g
                    .array(case["inputs"][0]["array"].as_str().unwrap())
                    .upload(&dev)?;
                let (s, r) = (format!("{a}"), format!("{a:?}"));
                let (ws, wr) = (
                    case["str"].as_str().unwrap(),
                    case["repr"].as_str().unwrap(),
                );
                let mut bad = vec![];
                if s != ws {
                    bad.push(format!("str:\n got {s:?}\nwant {ws:?}"));
                }
                if r != wr {
                    bad.push(format!("repr:\n got {r:?}\nwant {wr:?}"));
                }
                if bad.is_empty() {
                    Ok(())
                } else {
                    Err(bad.join("\n").into())
                }
            })();
            t.check(&dev, id, r);
        }
    }
    t.finish();
}

/// `Display` of a `Scalar` (what `item()` returns) honours precision and width flags.
#[test]
fn scalar_display_flags() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::asarray([1.0f64, 2.0, 4.0]).unwrap();
            let m = a.mean().unwrap().item().unwrap();
            assert_eq!(format!("{m:.2}"), "2.33", "on {dev}");
            assert_eq!(format!("{m:8.3}"), "   2.333", "on {dev}");
            assert_eq!(format!("{:.1}", a.sum().unwrap().item().unwrap()), "7.0");
            let f = cupy::full(&[1], 0.125f32).unwrap().item().unwrap();
            assert_eq!(format!("{f:.2}|{f:<6}|"), "0.12|0.125 |", "on {dev}");
            let i = cupy::arange(3).unwrap().sum().unwrap().item().unwrap();
            assert_eq!(format!("{i:>4}"), "   3", "on {dev}");
        });
    }
}

/// `str` of a 0-d array (what `a.sum()` returns) is NumPy's scalar text, `repr` keeps the
/// array form: `str(np.array(9.0))` is `9.0`, `repr` is `array(9.)`.
#[test]
fn zero_d_display_is_numpy_scalar_str() {
    use cupy::num_complex::Complex;
    for dev in common::backends() {
        let f64s = [
            (9.0, "9.0"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (1e-5, "1e-05"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (123456789.0, "123456789.0"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (v, want) in f64s {
            let a = cupy::Array::from_slice_on(&dev, &[v], &[]).unwrap();
            assert_eq!(a.to_string(), want, "str(np.array({v:?})) on {dev}");
        }
        for (v, want) in [
            (9.0f64, "array(9.)"),
            (-0.0, "array(-0.)"),
            (1e-5, "array(1.e-05)"),
            (123456789.0, "array(1.23456789e+08)"),
        ] {
            let a = cupy::Array::from_slice_on(&dev, &[v], &[]).unwrap();
            assert_eq!(format!("{a:?}"), want, "repr(np.array({v:?})) on {dev}");
        }
        let f32s = [(2.5f32, "2.5"), (0.1, "0.1"), (3.0, "3.0")];
        for (v, want) in f32s {
            let a = cupy::Array::from_slice_on(&dev, &[v], &[]).unwrap();
            assert_eq!(a.to_string(), want, "str(np.float32({v})) on {dev}");
        }
        let b = cupy::Array::from_slice_on(&dev, &[true], &[]).unwrap();
        let i = cupy::Array::from_slice_on(&dev, &[-3i64], &[]).unwrap();
        assert_eq!((b.to_string(), i.to_string()), ("True".into(), "-3".into()));
        if dev.kind() != cupy::BackendKind::Wgpu {
            for (v, want) in [
                (Complex::new(1.0, 2.0), "(1+2j)"),
                (Complex::new(1.5, -0.25), "(1.5-0.25j)"),
                (Complex::new(0.0, 2.0), "2j"),
            ] {
                let a = cupy::Array::from_slice_on(&dev, &[v], &[]).unwrap();
                assert_eq!(a.to_string(), want, "str(np.complex128({v})) on {dev}");
            }
        }
    }
}
