//! `round(out=)`, `take(out=)` and `quantile(weights=)` beyond the goldens (groups `ufuncs2`,
//! `indexing2`, `quantiles`): the returned array is `out` itself, `out` is unchanged after a
//! refusal, the refusals name the routine, and values typed in from NumPy 2.2.6.

use crate::common;
use cupy::{Array, DType, Error, IndexMode, Quantile, QuantileMethod, Round, Take};

/// `numpy.full(shape, v, dtype)` on `dev`.
fn full(dev: &cupy::Device, shape: &[usize], v: f64, dtype: DType) -> Array {
    Array::full_on(dev, shape, v, dtype).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn round_into_out() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[2.675f64, -1.5, 0.5, 1234.5678], &[4]).unwrap();
        let round = |out: &Array, decimals| {
            cupy::round_with(
                &a,
                Round {
                    decimals,
                    out: Some(out.clone()),
                },
            )
        };
        // np.round(a, 2, out=float32)
        let o32 = full(&dev, &[4], 7.0, DType::Float32);
        let r = round(&o32, 2).unwrap();
        assert!(r.shares_memory_with(&o32), "{dev:?}");
        let want: Vec<f32> = vec![2.68, -1.5, 0.5, 1234.57];
        assert_eq!(o32.to_vec::<f32>().unwrap(), want, "{dev:?}");
        // a float16 out: the scaling already writes into it, and 123456.78 overflows float16
        let o16 = full(&dev, &[4], 0.0, DType::Float16);
        round(&o16, 2).unwrap();
        assert_eq!(f64s(&o16)[3], f64::INFINITY, "{dev:?}");
        // float64 out of shape (1, 4) (a broadcasts to it)
        let o = full(&dev, &[1, 4], 0.0, DType::Float64);
        round(&o, 2).unwrap();
        assert_eq!(f64s(&o), [2.68, -1.5, 0.5, 1234.57], "{dev:?}");
        // float32 data into a float64 out: rint and the division in float64 (2.68, not
        // float32's 2.68 widened, 2.680000066757202)
        let a32 = a.astype(DType::Float32).unwrap();
        let o = full(&dev, &[4], 0.0, DType::Float64);
        cupy::round_with(
            &a32,
            Round {
                decimals: 2,
                out: Some(o.clone()),
            },
        )
        .unwrap();
        assert_eq!(f64s(&o)[0], 2.68, "{dev:?}");
        // refusals name round and leave out as it was
        let int_out = full(&dev, &[4], 7.0, DType::Int64);
        let wide = full(&dev, &[5], 7.0, DType::Float64);
        let other = full(&dev, &[2, 2], 7.0, DType::Float64);
        for (out, what) in [(&int_out, "int64"), (&wide, "(5,)"), (&other, "(2, 2)")] {
            match round(out, 1) {
                Err(Error::TypeError { op, .. } | Error::ShapeMismatch { op, .. })
                    if op == "round" => {}
                other => panic!("{dev:?}: round into {what}: {other:?}"),
            }
            assert!(
                f64s(out).iter().all(|&v| v == 7.0),
                "{dev:?}: {what} written"
            );
        }
        let z = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[4])
            .unwrap()
            .astype(DType::Complex128)
            .unwrap();
        let real = full(&dev, &[4], 7.0, DType::Float64);
        let e = cupy::round_with(
            &z,
            Round {
                decimals: 0,
                out: Some(real.clone()),
            },
        );
        assert!(matches!(e, Err(Error::TypeError { .. })), "{dev:?}: {e:?}");
        assert_eq!(f64s(&real), [7.0; 4], "{dev:?}");
        // bool with decimals != 0: refused without out, rounds into a float out
        let b = Array::from_slice_on(&dev, &[true, false], &[2]).unwrap();
        assert!(cupy::round_with(&b, 2).is_err(), "{dev:?}");
        let bo = full(&dev, &[2], 0.0, DType::Float64);
        b.round_with(Round {
            decimals: 2,
            out: Some(bo.clone()),
        })
        .unwrap();
        assert_eq!(f64s(&bo), [1.0, 0.0], "{dev:?}");
        // in place: out is a
        let x = Array::from_slice_on(&dev, &[0.125f64, 15.0, -25.0], &[3]).unwrap();
        cupy::round_with(
            &x,
            Round {
                decimals: -1,
                out: Some(x.clone()),
            },
        )
        .unwrap();
        assert_eq!(f64s(&x), [0.0, 20.0, -20.0], "{dev:?}");
    }
}

#[test]
fn take_into_out() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[0.5f64, 1.5, 2.5, 3.5, 4.5, 5.5], &[2, 3]).unwrap();
        let idx = Array::from_slice_on(&dev, &[2i64, 0], &[2]).unwrap();
        let take = |out: &Array, idx: &Array, mode| {
            cupy::take_with(
                &a,
                idx,
                Take {
                    axis: Some(1),
                    mode,
                    out: Some(out.clone()),
                },
            )
        };
        // a float32 out of float64 data: NumPy casts float32 -> float64 safely, so it takes
        // the values (cast back unsafely)
        let o = full(&dev, &[2, 2], 7.0, DType::Float32);
        let r = take(&o, &idx, IndexMode::Raise).unwrap();
        assert!(
            r.shares_memory_with(&o) && r.dtype() == DType::Float32,
            "{dev:?}"
        );
        assert_eq!(f64s(&o), [2.5, 0.5, 5.5, 3.5], "{dev:?}");
        // refusals: an index out of bounds, another shape, an out wider than a
        let oob = Array::from_slice_on(&dev, &[5i64, 0], &[2]).unwrap();
        let same = full(&dev, &[2, 2], 7.0, DType::Float64);
        let flat = full(&dev, &[4], 7.0, DType::Float64);
        let wide = full(&dev, &[2, 2], 7.0, DType::Complex128);
        let e = take(&same, &oob, IndexMode::Raise);
        assert!(
            matches!(e, Err(Error::IndexOutOfBounds { index: 5, .. })),
            "{dev:?}: {e:?}"
        );
        assert_eq!(
            f64s(&same),
            [7.0; 4],
            "{dev:?}: written before the IndexError"
        );
        let e = take(&flat, &idx, IndexMode::Clip);
        assert!(
            matches!(&e, Err(Error::ShapeMismatch { op, .. }) if op == "take"),
            "{dev:?}: {e:?}"
        );
        let e = take(&wide, &idx, IndexMode::Wrap);
        assert!(
            matches!(&e, Err(Error::TypeError { op, .. }) if op == "take"),
            "{dev:?}: {e:?}"
        );
        assert_eq!(f64s(&flat), [7.0; 4], "{dev:?}");
        // a broadcast (read-only) out, refused by take itself
        let bcast = full(&dev, &[2], 7.0, DType::Float64)
            .broadcast_to(&[2, 2])
            .unwrap();
        let e = take(&bcast, &idx, IndexMode::Raise);
        assert!(
            matches!(&e, Err(Error::InvalidArgument { op, .. }) if op == "take"),
            "{dev:?}: {e:?}"
        );
        // out is a: the values are gathered before they are written (np.take(x, rev, out=x))
        let x = Array::from_slice_on(&dev, &[1i32, 2, 3, 4], &[4]).unwrap();
        let rev = Array::from_slice_on(&dev, &[3i64, 2, 1, 0], &[4]).unwrap();
        x.take_with(
            &rev,
            Take {
                out: Some(x.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(x.to_vec::<i32>().unwrap(), [4, 3, 2, 1], "{dev:?}");
    }
}

#[test]
fn weighted_quantiles() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[3.0f64, 1.0, 4.0, 1.0, 5.0, 9.0], &[2, 3]).unwrap();
        let w = Array::from_slice_on(&dev, &[1i64, 0, 3, 2, 1, 1], &[2, 3]).unwrap();
        let opts = |axis: Option<isize>, weights: &Array| Quantile {
            axis: axis.map_or(cupy::Axes::All, Into::into),
            method: QuantileMethod::InvertedCdf,
            weights: Some(weights.clone()),
            ..Default::default()
        };
        // np.quantile(a, [0, .25, .5, 1], axis=1, method='inverted_cdf', weights=w)
        // = [[3, 1], [3, 1], [4, 1], [4, 9]] (the zero weight of 1 skips it at q=0)
        let r = cupy::quantile_with(&a, [0.0, 0.25, 0.5, 1.0], opts(Some(1), &w)).unwrap();
        assert_eq!(r.shape(), [4, 2], "{dev:?}");
        assert_eq!(
            f64s(&r),
            [3.0, 1.0, 3.0, 1.0, 4.0, 1.0, 4.0, 9.0],
            "{dev:?}"
        );
        // one weight per element of the axis: np.percentile(a, 50, axis=0, weights=[1, 3], ...)
        let w1 = Array::from_slice_on(&dev, &[1.0f32, 3.0], &[2]).unwrap();
        let p = cupy::percentile_with(&a, 50.0, opts(Some(0), &w1)).unwrap();
        assert_eq!(f64s(&p), [1.0, 5.0, 9.0], "{dev:?}");
        // refusals
        let e = cupy::quantile_with(
            &a,
            0.5,
            Quantile {
                method: QuantileMethod::Linear,
                ..opts(None, &w)
            },
        );
        assert!(
            matches!(&e, Err(Error::InvalidArgument { op, msg }) if op == "quantile" && msg.contains("inverted_cdf")),
            "{dev:?}: {e:?}"
        );
        let neg = Array::from_slice_on(&dev, &[1.0f64, -1.0, 0.0], &[3]).unwrap();
        let e = cupy::percentile_with(&a, 50.0, opts(Some(1), &neg));
        assert!(
            matches!(&e, Err(Error::InvalidArgument { op, msg }) if op == "percentile" && msg.contains("non-negative")),
            "{dev:?}: {e:?}"
        );
        let e = cupy::quantile_with(&a, 0.5, opts(None, &w1));
        assert!(matches!(e, Err(Error::TypeError { .. })), "{dev:?}: {e:?}");
        let e = cupy::quantile_with(&a, 0.5, opts(Some(1), &w1));
        assert!(
            matches!(e, Err(Error::InvalidArgument { .. })),
            "{dev:?}: {e:?}"
        );
        let e = cupy::nanquantile_with(&a, 0.5, opts(None, &w));
        assert!(
            matches!(e, Err(Error::Unsupported { .. })),
            "{dev:?}: {e:?}"
        );
        // out: exactly the result's shape; unchanged when the weights are refused
        let out = full(&dev, &[2], 7.0, DType::Float64);
        let o = Quantile {
            out: Some(out.clone()),
            ..opts(Some(1), &neg)
        };
        assert!(cupy::quantile_with(&a, 0.5, o).is_err(), "{dev:?}");
        assert_eq!(f64s(&out), [7.0, 7.0], "{dev:?}");
        let o = Quantile {
            out: Some(out.clone()),
            ..opts(Some(1), &w)
        };
        let r = cupy::quantile_with(&a, 0.5, o).unwrap();
        assert!(r.shares_memory_with(&out), "{dev:?}");
        assert_eq!(f64s(&out), [4.0, 1.0], "{dev:?}");
        let o = Quantile {
            out: Some(full(&dev, &[1, 2], 0.0, DType::Float64)),
            ..opts(Some(1), &w)
        };
        assert!(
            matches!(
                cupy::quantile_with(&a, 0.5, o),
                Err(Error::InvalidArgument { .. })
            ),
            "{dev:?}"
        );
    }
}
