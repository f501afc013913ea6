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

/// NumPy's `str`/`repr` where the golden cases did not reach: `nan`/`inf` widen the finite
/// values' column, every exponent of an array has the longest one's digits, lines wrap one
/// column per bracket level before 75 (without trailing blanks), the repr's `dtype=`/`shape=`
/// go on a new line past the width, and an empty array's repr names its dtype and shape.
/// (`str` of an empty multi-dimensional array keeps its brackets: docs/differences.md.)
#[test]
fn printing_edges_match_numpy() {
    for dev in common::backends() {
        let cases = [
        ("nan_inf", cupy::Array::from_slice_on(&dev, &[f64::NAN, f64::INFINITY, -f64::INFINITY, 1.5, 0.0], &[5]).unwrap(), Some("[ nan  inf -inf  1.5  0. ]"), "array([ nan,  inf, -inf,  1.5,  0. ])"),
        ("wide_exponents", cupy::Array::from_slice_on(&dev, &[1e-100, 1e5], &[2]).unwrap(), Some("[1.e-100 1.e+005]"), "array([1.e-100, 1.e+005])"),
        ("subnormal", cupy::Array::from_slice_on(&dev, &[5e-324, 1.0], &[2]).unwrap(), Some("[5.e-324 1.e+000]"), "array([5.e-324, 1.e+000])"),
        ("int64_100", cupy::Array::from_slice_on(&dev, &(0..100i64).collect::<Vec<_>>(), &[100]).unwrap(), Some("[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71\n 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95\n 96 97 98 99]"), "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,\n       34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,\n       51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67,\n       68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84,\n       85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99])"),
        ("float32_30", cupy::Array::from_slice_on(&dev, &(0..30).map(|i| i as f32 * 1.1f32).collect::<Vec<_>>(), &[30]).unwrap(), Some("[ 0.         1.1        2.2        3.3000002  4.4        5.5\n  6.6000004  7.7000003  8.8        9.900001  11.        12.1\n 13.200001  14.3       15.400001  16.5       17.6       18.7\n 19.800001  20.9       22.        23.1       24.2       25.300001\n 26.400002  27.5       28.6       29.7       30.800001  31.900002 ]"), "array([ 0.       ,  1.1      ,  2.2      ,  3.3000002,  4.4      ,\n        5.5      ,  6.6000004,  7.7000003,  8.8      ,  9.900001 ,\n       11.       , 12.1      , 13.200001 , 14.3      , 15.400001 ,\n       16.5      , 17.6      , 18.7      , 19.800001 , 20.9      ,\n       22.       , 23.1      , 24.2      , 25.300001 , 26.400002 ,\n       27.5      , 28.6      , 29.7      , 30.800001 , 31.900002 ],\n      dtype=float32)"),
        ("float64_3x30", cupy::Array::from_slice_on(&dev, &(0..90).map(|i| i as f64 + 0.5).collect::<Vec<_>>(), &[3, 30]).unwrap(), Some("[[ 0.5  1.5  2.5  3.5  4.5  5.5  6.5  7.5  8.5  9.5 10.5 11.5 12.5 13.5\n  14.5 15.5 16.5 17.5 18.5 19.5 20.5 21.5 22.5 23.5 24.5 25.5 26.5 27.5\n  28.5 29.5]\n [30.5 31.5 32.5 33.5 34.5 35.5 36.5 37.5 38.5 39.5 40.5 41.5 42.5 43.5\n  44.5 45.5 46.5 47.5 48.5 49.5 50.5 51.5 52.5 53.5 54.5 55.5 56.5 57.5\n  58.5 59.5]\n [60.5 61.5 62.5 63.5 64.5 65.5 66.5 67.5 68.5 69.5 70.5 71.5 72.5 73.5\n  74.5 75.5 76.5 77.5 78.5 79.5 80.5 81.5 82.5 83.5 84.5 85.5 86.5 87.5\n  88.5 89.5]]"), "array([[ 0.5,  1.5,  2.5,  3.5,  4.5,  5.5,  6.5,  7.5,  8.5,  9.5, 10.5,\n        11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5,\n        22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5],\n       [30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5, 40.5,\n        41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5, 50.5, 51.5,\n        52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5],\n       [60.5, 61.5, 62.5, 63.5, 64.5, 65.5, 66.5, 67.5, 68.5, 69.5, 70.5,\n        71.5, 72.5, 73.5, 74.5, 75.5, 76.5, 77.5, 78.5, 79.5, 80.5, 81.5,\n        82.5, 83.5, 84.5, 85.5, 86.5, 87.5, 88.5, 89.5]])"),
        ("empty_f64", cupy::Array::from_slice_on::<f64>(&dev, &[], &[0]).unwrap(), Some("[]"), "array([], dtype=float64)"),
        ("empty_2x0", cupy::Array::from_slice_on::<f64>(&dev, &[], &[2, 0]).unwrap(), None::<&str>, "array([], shape=(2, 0), dtype=float64)"),
        ("empty_0x3_i32", cupy::Array::from_slice_on::<i32>(&dev, &[], &[0, 3]).unwrap(), None::<&str>, "array([], shape=(0, 3), dtype=int32)"),
        ];
        for (name, a, s, r) in cases {
            if let Some(s) = s {
                assert_eq!(format!("{a}"), s, "str of {name} on {dev}");
            }
            assert_eq!(format!("{a:?}"), r, "repr of {name} on {dev}");
        }
        let big =
            cupy::Array::from_slice_on(&dev, &(0..2000i64).collect::<Vec<_>>(), &[2, 10, 10, 10])
                .unwrap();
        let r = format!("{big:?}");
        assert!(
            r.ends_with(" 1999]]]],\n      shape=(2, 10, 10, 10))"),
            "{r} on {dev}"
        );
    }
}
