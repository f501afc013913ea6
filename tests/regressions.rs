//! Regressions from the fresh-clone review: each was a panic, an abort or a wrong value.

use crate::common;
use cupy::{s, DType, Error};

#[test]
fn too_big_shapes_are_errors_not_panics() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let e = cupy::zeros_with(&[1 << 32, 1 << 32], DType::Float32).unwrap_err();
            assert!(e.to_string().contains("too big"), "{dev}: {e}");
            let e = cupy::linspace_with(0.0, 1.0, 1 << 62, DType::Float32).unwrap_err();
            assert!(
                e.to_string().contains("too big") || matches!(e, Error::OutOfMemory { .. }),
                "{dev}: {e}"
            );
            let one = cupy::ones_with(&[1], DType::Float32).unwrap();
            assert!(one.broadcast_to(&[1 << 40, 1 << 40]).is_err(), "{dev}");
        });
        common::report(&format!("{} review_shapes ran", dev.kind()));
    }
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn extreme_indices_and_steps_follow_python() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::arange(10).unwrap();
            assert!(
                matches!(
                    a.slice(&s![usize::MAX]),
                    Err(Error::IndexOutOfBounds { .. })
                ),
                "{dev}"
            );
            assert_eq!(a.slice(&s![(usize::MAX - 1)..]).unwrap().size(), 0, "{dev}");
            // Python: a[::-2**63] == [9], a[::2**63-1] == [0]
            assert_eq!(
                a.slice(&s![..;isize::MIN])
                    .unwrap()
                    .to_vec::<i32>()
                    .unwrap(),
                vec![9],
                "{dev}"
            );
            assert_eq!(
                a.slice(&s![..;isize::MAX])
                    .unwrap()
                    .to_vec::<i32>()
                    .unwrap(),
                vec![0],
                "{dev}"
            );
        });
    }
}

#[test]
fn float_floor_divide_by_scalar_zero() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::array([1f32, -1., 0., 5., 7.]).unwrap();
            let r = cupy::floor_divide(&a, 0.0)
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            assert_eq!(&r[..2], &[f32::INFINITY, f32::NEG_INFINITY], "{dev}");
            assert!(r[2].is_nan(), "{dev}");
            assert_eq!(&r[3..], &[f32::INFINITY, f32::INFINITY], "{dev}");
        });
    }
}

#[test]
fn full_refuses_out_of_range_integers_and_dot_scales() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            assert!(
                matches!(
                    cupy::full_with(&[2], 300, DType::UInt8),
                    Err(Error::ScalarOverflow { .. })
                ),
                "{dev}"
            );
            assert_eq!(
                cupy::full_with(&[2], 255, DType::UInt8)
                    .unwrap()
                    .to_vec::<u8>()
                    .unwrap(),
                vec![255, 255]
            );
            let two = cupy::from_slice(&[2f32], &[]).unwrap();
            let v = cupy::array([1f32, 2., 3.]).unwrap();
            assert_eq!(
                cupy::dot(&two, &v).unwrap().to_vec::<f32>().unwrap(),
                vec![2., 4., 6.],
                "{dev}"
            );
            // out= larger than the inputs' broadcast shape (NumPy broadcasts into it).
            let out = cupy::zeros_with(&[2, 3], DType::Float32).unwrap();
            let x = cupy::array([1f32, 2., 3.]).unwrap();
            cupy::apply_out(&cupy::ufuncs::add, &[(&x).into(), 1.0.into()], &out).unwrap();
            assert_eq!(
                out.to_vec::<f32>().unwrap(),
                vec![2., 3., 4., 2., 3., 4.],
                "{dev}"
            );
        });
    }
}

/// `uint8_array / -2` is NumPy's float64 division (`[-1.5, -1.0, ...]`), not an overflow of the
/// weak integer into uint8.
#[test]
fn true_divide_of_unsigned_by_a_negative_python_int() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            for dt in [DType::UInt8, DType::UInt16, DType::UInt32] {
                let a = cupy::from_slice(&[3u8, 2, 0], &[3])
                    .unwrap()
                    .astype(dt)
                    .unwrap();
                let q = (&a / -2i64).unwrap();
                assert_eq!(q.dtype(), DType::Float64, "{dev:?} {dt}");
                assert_eq!(
                    q.to_vec::<f64>().unwrap(),
                    [-1.5, -1.0, -0.0],
                    "{dev:?} {dt}"
                );
            }
        });
    }
}

/// `asarray` takes a reference to a fixed-size array or a `Vec` (it did not compile).
#[test]
#[allow(clippy::needless_borrows_for_generic_args)] // the borrows are what is tested
fn asarray_of_references_to_host_data() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::asarray(&[1.0, 2.0]).unwrap();
            assert_eq!(
                (a.shape(), a.dtype()),
                (&[2][..], DType::Float64),
                "{dev:?}"
            );
            let v = vec![vec![1i32, 2], vec![3, 4]];
            let b = cupy::asarray(&v).unwrap();
            assert_eq!(b.shape(), &[2, 2], "{dev:?}");
            assert_eq!(b.to_vec::<i32>().unwrap(), [1, 2, 3, 4], "{dev:?}");
            let c = cupy::array(&[[1u8, 2], [3, 4]]).unwrap();
            assert_eq!(c.to_vec::<u8>().unwrap(), [1, 2, 3, 4], "{dev:?}");
        });
    }
}

/// NumPy 2 compares integer arrays with a Python int outside their range, and a signed integer
/// with a uint64, by value (issue 10, item 6): `int64 < 2**63` is all True, `uint8 == -1` all
/// False, `int64 == uint64` exact; a float64 comparison would round `2**63 - 1` to `2**63`.
#[test]
fn integer_comparisons_with_out_of_range_values_are_exact() {
    fn b(r: cupy::Result<cupy::Array>) -> Vec<bool> {
        r.unwrap().to_vec::<bool>().unwrap()
    }
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let big = 1u64 << 63;
            let a = cupy::from_slice(&[i64::MAX, -1, 0, i64::MIN], &[4]).unwrap();
            assert_eq!(b(cupy::less(&a, big)), [true; 4], "{dev}");
            assert_eq!(b(cupy::less_equal(&a, big)), [true; 4], "{dev}");
            assert_eq!(b(cupy::greater(&a, u64::MAX)), [false; 4], "{dev}");
            assert_eq!(b(cupy::greater_equal(&a, big)), [false; 4], "{dev}");
            assert_eq!(b(cupy::equal(&a, big)), [false; 4], "{dev}");
            assert_eq!(b(cupy::not_equal(&a, big)), [true; 4], "{dev}");
            // The scalar first, and below the range.
            assert_eq!(b(cupy::greater(big, &a)), [true; 4], "{dev}");
            assert_eq!(b(cupy::less(big, &a)), [false; 4], "{dev}");
            let below = -(1i128 << 63) - 1;
            assert_eq!(b(cupy::less(&a, below)), [false; 4], "{dev}");
            assert_eq!(b(cupy::greater(&a, below)), [true; 4], "{dev}");
            assert_eq!(b(cupy::less(below, &a)), [true; 4], "{dev}");
            // In range: exact in int64 (float64 would make i64::MAX - 1 equal i64::MAX).
            assert_eq!(
                b(cupy::equal(&a, i64::MAX)),
                [true, false, false, false],
                "{dev}"
            );
            let near = cupy::from_slice(&[i64::MAX - 1], &[1]).unwrap();
            assert_eq!(b(cupy::less(&near, i64::MAX)), [true], "{dev}");
            let u8s = cupy::from_slice(&[255u8, 0, 7], &[3]).unwrap();
            assert_eq!(b(cupy::equal(&u8s, -1)), [false; 3], "{dev}");
            assert_eq!(b(cupy::greater(&u8s, -1)), [true; 3], "{dev}");
            assert_eq!(b(cupy::less_equal(-1, &u8s)), [true; 3], "{dev}");
            assert_eq!(b(cupy::less(&u8s, 256)), [true; 3], "{dev}");
            let i8s = cupy::from_slice(&[-128i8, 127, -1], &[3]).unwrap();
            assert_eq!(b(cupy::greater(&i8s, 200)), [false; 3], "{dev}");
            assert_eq!(b(cupy::greater_equal(&i8s, -129)), [true; 3], "{dev}");
            let u64s = cupy::from_slice(&[u64::MAX, 0, big], &[3]).unwrap();
            assert_eq!(b(cupy::less(&u64s, -1)), [false; 3], "{dev}");
            assert_eq!(b(cupy::greater_equal(&u64s, -1)), [true; 3], "{dev}");
            assert_eq!(b(cupy::not_equal(-1, &u64s)), [true; 3], "{dev}");
            let bools = cupy::from_slice(&[true, false], &[2]).unwrap();
            assert_eq!(b(cupy::less(&bools, big)), [true; 2], "{dev}");
            // A signed integer against a uint64 (NumPy's qQ->? loop), both orders.
            let s = cupy::from_slice(&[i64::MAX, -1, (1 << 53) + 1, 5], &[4]).unwrap();
            let u = cupy::from_slice(&[big, u64::MAX, 1 << 53, 5], &[4]).unwrap();
            assert_eq!(b(cupy::equal(&s, &u)), [false, false, false, true], "{dev}");
            assert_eq!(b(cupy::less(&s, &u)), [true, true, false, false], "{dev}");
            assert_eq!(
                b(cupy::greater(&u, &s)),
                [true, true, false, false],
                "{dev}"
            );
            assert_eq!(
                b(cupy::greater_equal(&s, &u)),
                [false, false, true, true],
                "{dev}"
            );
            let s8 = s.astype(DType::Int8).unwrap();
            assert_eq!(b(cupy::less(&s8, &u)), [true, true, true, false], "{dev}");
            // A typed uint64 scalar is strong: the same exact loop.
            let t = cupy::Scalar::UInt64(big);
            assert_eq!(b(cupy::less(&a, t)), [true; 4], "{dev}");
        });
    }
}

/// The ufunc methods inline the ufunc's body into one expression: a body that reuses values
/// many times (int64 `gcd`'s unrolled Euclid steps, `nextafter`) grew exponentially and the
/// process ran out of memory. It is now an `Unsupported` error; small bodies still work.
#[test]
fn methods_refuse_bodies_too_large_to_inline() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let x = cupy::from_slice(&[12i64, 18, 8], &[3]).unwrap();
            let e = cupy::ufuncs::gcd.reduce(&x);
            assert!(
                matches!(e, Err(Error::Unsupported { .. })),
                "{dev:?}: {e:?}"
            );
            let f = cupy::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
            let e = cupy::ufuncs::nextafter.reduce(&f);
            assert!(
                matches!(e, Err(Error::Unsupported { .. })),
                "{dev:?}: {e:?}"
            );
            let i = cupy::from_slice(&[0i64], &[1]).unwrap();
            let e = cupy::ufuncs::gcd.at(&x, &i, Some(4i64.into()));
            assert!(
                matches!(e, Err(Error::Unsupported { .. })),
                "{dev:?}: {e:?}"
            );
            assert_eq!(
                x.to_vec::<i64>().unwrap(),
                [12, 18, 8],
                "{dev:?}: x unchanged"
            );
            let s = cupy::ufuncs::add.reduce(&x).unwrap();
            assert_eq!(s.to_vec::<i64>().unwrap(), [38], "{dev:?}");
            // A complex initial= on a float loop is NumPy's TypeError, not a dropped part.
            let opts = cupy::UfuncReduce {
                initial: Some(cupy::WeakScalar::Complex(num_complex::Complex::new(
                    1.0, 1.0,
                ))),
                ..Default::default()
            };
            let e = cupy::ufuncs::add.reduce_with(&f, opts);
            assert!(matches!(e, Err(Error::TypeError { .. })), "{dev:?}: {e:?}");
        });
    }
}

/// From the 2026-12-02 review: `det` of a singular matrix was NaN (faer's factors past a zero
/// pivot), `eigh` of an empty matrix panicked inside faer, and `add_at` read a boolean index as
/// the integers 0 and 1.
#[test]
fn singular_det_empty_eigh_and_mask_add_at() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            for n in [3usize, 5] {
                let z = cupy::zeros(&[n, n]).unwrap();
                let d = cupy::linalg::det(&z).unwrap().to_vec::<f64>().unwrap();
                assert_eq!(d, [0.0], "{dev}: det(zeros({n}, {n}))");
            }
            let a = cupy::Array::from_slice_on(&dev, &[0.0f64, 1.0, 0.0, 1.0], &[2, 2]).unwrap();
            let d = cupy::linalg::det(&a).unwrap().to_vec::<f64>().unwrap();
            assert_eq!(d, [0.0], "{dev}: det([[0,1],[0,1]])");
            let (w, v) = cupy::linalg::eigh(&cupy::zeros(&[2, 0, 0]).unwrap()).unwrap();
            assert_eq!(
                (w.shape(), v.shape()),
                (&[2, 0][..], &[2, 0, 0][..]),
                "{dev}"
            );
            let t = cupy::zeros_with(&[4], DType::Int64).unwrap();
            let mask = cupy::Array::from_slice_on(&dev, &[true, false, true, false], &[4]).unwrap();
            cupy::add_at(&t, &mask, &cupy::full(&[], 1i64).unwrap()).unwrap();
            assert_eq!(
                t.to_vec::<i64>().unwrap(),
                [1, 0, 1, 0],
                "{dev}: add_at(mask)"
            );
            let short = cupy::Array::from_slice_on(&dev, &[true, false], &[2]).unwrap();
            let e = cupy::add_at(&t, &short, &cupy::full(&[], 1i64).unwrap()).unwrap_err();
            assert!(
                e.to_string().contains("boolean index did not match"),
                "{dev}: {e}"
            );
            assert_eq!(t.to_vec::<i64>().unwrap(), [1, 0, 1, 0], "{dev}: unchanged");
        });
        common::report(&format!("{} review_linalg_scatter ran", dev.kind()));
    }
}

/// Found by the break-it review (2026-12-06): faer's eigen solvers on matrices whose entries
/// lie near the float64 range's ends. `eigvals([[s, s], [-s, s]])` lost its complex pair at
/// `s = 1e-300` and `1e308`, and `eigvalsh` overflowed at `f64::MAX` and gave NaN at `1e308`.
/// They are now scaled by a power of two first, as LAPACK's geev/syevd do (NumPy's values).
#[test]
fn eigen_solvers_at_the_ends_of_the_float64_range() {
    use num_complex::Complex;
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let la = |v: [f64; 4]| cupy::Array::from_slice_on(&dev, &v, &[2, 2]).unwrap();
            for s in [1e-300, 1e-320, 1e308] {
                let w = cupy::linalg::eigvals(&la([s, s, -s, s])).unwrap();
                let mut w = w.to_vec::<Complex<f64>>().unwrap();
                w.sort_by(|a, b| a.im.total_cmp(&b.im));
                for (got, im) in w.iter().zip([-s, s]) {
                    let close = |x: f64, want: f64| (x - want).abs() <= (1e-12 * s).max(1e-323);
                    assert!(
                        close(got.re, s) && close(got.im, im),
                        "{dev}: eigvals([[s, s], [-s, s]]) at s = {s:e}: {w:?}"
                    );
                }
            }
            let w = cupy::linalg::eigvalsh(&la([f64::MAX, 0.0, 0.0, f64::MAX])).unwrap();
            let w = w.to_vec::<f64>().unwrap();
            assert_eq!(w, [f64::MAX, f64::MAX], "{dev}: eigvalsh(diag(MAX, MAX))");
            let w = cupy::linalg::eigvalsh(&la([1e308; 4])).unwrap();
            let w = w.to_vec::<f64>().unwrap();
            assert!(
                w[0].abs() <= 1e295 && w[1] == f64::INFINITY,
                "{dev}: eigvalsh(full(1e308)) {w:?} (NumPy: [0, inf])"
            );
            let w = cupy::linalg::eigvalsh(&la([1e-320; 4])).unwrap();
            let w = w.to_vec::<f64>().unwrap();
            assert!(
                w[0].abs() <= 1e-323 && (w[1] - 2e-320).abs() <= 1e-322,
                "{dev}: eigvalsh(full(1e-320)) {w:?} (NumPy: [0, 2e-320])"
            );
        });
    }
}

/// Found by the review of the indexing routines: `take` with an axis refused a 0-d array,
/// which NumPy counts as 1-d (`np.take(np.array(5.), [0, -1], axis=0)` is `[5., 5.]`).
#[test]
fn take_with_an_axis_of_a_0d_array() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::from_slice(&[5.0f64], &[]).unwrap();
            let idx = cupy::from_slice(&[0i64, -1], &[2]).unwrap();
            for axis in [0, -1] {
                let t = a.take_with(&idx, axis).unwrap();
                assert_eq!(t.shape(), &[2], "{dev}");
                assert_eq!(t.to_vec::<f64>().unwrap(), vec![5.0, 5.0], "{dev}");
            }
            assert!(
                matches!(a.take_with(&idx, 1), Err(Error::AxisOutOfRange { .. })),
                "{dev}"
            );
            let oob = cupy::from_slice(&[1i64], &[1]).unwrap();
            assert!(
                matches!(a.take_with(&oob, 0), Err(Error::IndexOutOfBounds { .. })),
                "{dev}"
            );
        });
        common::report(&format!("{} take_0d_axis ran", dev.kind()));
    }
}

/// Found by the review of the manipulation routines: `insert` with a one-element index
/// sequence inserts all of `values` as a block there, as NumPy (it was a broadcast error).
/// Values from NumPy 2.4.
#[test]
fn insert_with_one_index_inserts_a_block() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let v = cupy::from_slice(&[7.0f64, 8.0], &[2]).unwrap();
            let a = cupy::arange(5).unwrap().astype(DType::Float64).unwrap();
            // np.insert(np.arange(5.), [1], [7., 8.])
            let r = cupy::insert(&a, &[1], &v, None).unwrap();
            assert_eq!(
                r.to_vec::<f64>().unwrap(),
                vec![0.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0],
                "{dev}"
            );
            let m = cupy::arange(6)
                .unwrap()
                .astype(DType::Float64)
                .unwrap()
                .reshape(&[2, 3])
                .unwrap();
            // np.insert(np.arange(6.).reshape(2, 3), [1], [7., 8.], axis=1)
            let r = cupy::insert(&m, &[1], &v, Some(1)).unwrap();
            assert_eq!(r.shape(), &[2, 5], "{dev}");
            let want = vec![0.0, 7.0, 8.0, 1.0, 2.0, 3.0, 7.0, 8.0, 4.0, 5.0];
            assert_eq!(r.to_vec::<f64>().unwrap(), want, "{dev}");
            // a column (2, 1) at [-1]: one new column, as NumPy
            let col = v.reshape(&[2, 1]).unwrap();
            let r = cupy::insert(&m, &[-1], &col, Some(1)).unwrap();
            let want = vec![0.0, 1.0, 7.0, 2.0, 3.0, 4.0, 8.0, 5.0];
            assert_eq!(r.to_vec::<f64>().unwrap(), want, "{dev}");
            assert!(cupy::insert(&a, &[6], &v, None).is_err(), "{dev}");
        });
        common::report(&format!("{} insert_one_index ran", dev.kind()));
    }
}

/// Found by the review of the indexing routines: `choose` bound every choice in one kernel,
/// so 31 or more choices failed to compile on wgpu (llvmpipe binds 32 storage buffers) while
/// the cpu backend ran them (NumPy takes up to 64).
#[test]
fn choose_from_many_choices() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            // choice k is [k, -k] (float64), except choice 20, a (2, 1) int32 column
            let cs: Vec<cupy::Array> = (0..40)
                .map(|k| match k {
                    20 => cupy::from_slice(&[100i32, 200], &[2, 1]).unwrap(),
                    _ => cupy::from_slice(&[k as f64, -(k as f64)], &[2]).unwrap(),
                })
                .collect();
            let refs: Vec<&cupy::Array> = cs.iter().collect();
            let a = cupy::from_slice(&[39i64, 17, 20, 0], &[2, 2]).unwrap();
            let r = cupy::choose(&a, &refs, cupy::IndexMode::Raise).unwrap();
            assert_eq!(
                (r.shape(), r.dtype()),
                (&[2, 2][..], DType::Float64),
                "{dev}"
            );
            let want = vec![39.0, -17.0, 200.0, 0.0];
            assert_eq!(r.to_vec::<f64>().unwrap(), want, "{dev}");
            // wrap: -1 is choice 39, 41 is choice 1 (broadcast to (2, 2) by choice 20)
            let w = cupy::from_slice(&[-1i64, 41], &[2]).unwrap();
            let r = cupy::choose(&w, &refs, cupy::IndexMode::Wrap).unwrap();
            let want = vec![39.0, -1.0, 39.0, -1.0];
            assert_eq!(r.to_vec::<f64>().unwrap(), want, "{dev}");
            let bad = cupy::from_slice(&[40i64], &[1]).unwrap();
            assert!(
                cupy::choose(&bad, &refs, cupy::IndexMode::Raise).is_err(),
                "{dev}"
            );
        });
        common::report(&format!("{} choose_many ran", dev.kind()));
    }
}

#[test]
fn sort_complex_of_a_0d_array_names_itself() {
    // It named `sort` (found by the review of 2026-12-07); bool becomes complex128 as NumPy.
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = cupy::from_slice(&[5.0f64], &[]).unwrap();
            match cupy::sort_complex(&a) {
                Err(cupy::Error::AxisOutOfRange { op, .. }) => assert_eq!(op, "sort_complex"),
                other => panic!("{dev}: {:?}", other.map(|r| r.shape().to_vec())),
            }
            let b = cupy::from_slice(&[true, false], &[2]).unwrap();
            let r = cupy::sort_complex(&b).unwrap();
            assert_eq!(r.dtype(), cupy::DType::Complex128, "{dev}");
        });
    }
}

#[test]
fn partition_of_an_empty_array_checks_no_kth() {
    // NumPy returns an empty array whatever kth (found by the review of 2026-12-07: refused).
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let e = cupy::from_slice::<f64>(&[], &[0]).unwrap();
            assert_eq!(cupy::partition(&e, 0).unwrap().shape(), [0], "{dev}");
            assert_eq!(cupy::argpartition(&e, 3).unwrap().shape(), [0], "{dev}");
            let e2 = cupy::from_slice::<f64>(&[], &[0, 3]).unwrap();
            let p = cupy::partition_with(&e2, 5, 1).unwrap();
            assert_eq!(p.shape(), [0, 3], "{dev}");
            let full = cupy::from_slice(&[3.0f64, 1.0, 2.0], &[3]).unwrap();
            assert!(cupy::partition(&full, 3).is_err(), "{dev}");
        });
    }
}
