//! Manipulation routines (concatenate and the stack family, the split family, flip/roll/rot90,
//! moveaxis/rollaxis/transpose(axes)/atleast_*, broadcast_arrays, ravel/reshape orders,
//! flatten, tile/repeat/resize, append/insert/delete) against NumPy goldens, and the views
//! NumPy makes.

use crate::common::{self, dtype_of, isizes, usizes, Golden, Operand, Tol};
use cupy::{Array, Block, DType, Device, Error, Order, PadMode, PerSide, Result, Scalar, Sections};
use serde_json::Value;

fn opt_axis(v: &Value) -> Option<isize> {
    v.as_i64().map(|a| a as isize)
}

fn order(v: &Value) -> Order {
    match v.as_str().unwrap() {
        "C" => Order::C,
        "F" => Order::F,
        "A" => Order::A,
        _ => Order::K,
    }
}

fn sections(k: &Value) -> Sections {
    match k.get("sections") {
        Some(n) => Sections::Count(n.as_u64().unwrap() as usize),
        None => Sections::Indices(isizes(&k["indices"])),
    }
}

fn pairs(v: &Value) -> Vec<(usize, usize)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = usizes(p);
            (p[0], p[1])
        })
        .collect()
}

/// A `constant_values`/`stat_length`/`end_values` as the case gave it to NumPy: a number, a
/// `[before, after]` pair, or a list of pairs (one per axis).
fn per_side<T>(v: &Value, f: impl Fn(&Value) -> T) -> PerSide<T> {
    match v.as_array() {
        None => PerSide::All(f(v)),
        Some(l) if !l.is_empty() && l.iter().all(|x| !x.is_array()) => {
            PerSide::Pair(f(&l[0]), f(&l[1]))
        }
        Some(l) => PerSide::Axes(l.iter().map(|p| (f(&p[0]), f(&p[1]))).collect()),
    }
}

fn pad_mode(k: &Value) -> PadMode {
    let stat = k
        .get("stat_length")
        .map(|s| per_side(s, |v| v.as_u64().unwrap() as usize));
    match k["mode"].as_str().unwrap() {
        "constant" => PadMode::Constant(match k.get("value") {
            None => Scalar::Int64(0).into(),
            Some(v) => per_side(v, |v| match v.as_i64() {
                Some(i) => Scalar::Int64(i),
                None => Scalar::Float64(v.as_f64().unwrap()),
            }),
        }),
        "edge" => PadMode::Edge,
        "reflect" => PadMode::Reflect,
        "symmetric" => PadMode::Symmetric,
        "wrap" => PadMode::Wrap,
        "maximum" => PadMode::Maximum(stat),
        "minimum" => PadMode::Minimum(stat),
        "mean" => PadMode::Mean(stat),
        "median" => PadMode::Median(stat),
        "linear_ramp" => PadMode::LinearRamp(per_side(&k["end_values"], |v| v.as_f64().unwrap())),
        m => panic!("mode {m}"),
    }
}

/// The nested lists of a `block` case (leaves index the operands).
fn block_of(v: &Value, a: &[&Array]) -> Block {
    match v.as_array() {
        Some(l) => Block::List(l.iter().map(|x| block_of(x, a)).collect()),
        None => Block::Array(a[v.as_u64().unwrap() as usize].clone()),
    }
}

/// Runs an op that gives several arrays and picks the case's piece.
fn piece(case: &Value, r: Result<Vec<Array>>) -> Result<Array> {
    let v = r?;
    let want = case["pieces"].as_u64().unwrap() as usize;
    assert_eq!(v.len(), want, "{}: number of pieces", case["id"]);
    Ok(v[case["kwargs"]["piece"].as_u64().unwrap() as usize].clone())
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    let a: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
    let ax = || k["axis"].as_i64().unwrap() as isize;
    match case["op"].as_str().unwrap() {
        "concatenate" => cupy::concatenate(
            &a,
            cupy::Concat {
                axis: opt_axis(&k["axis"]),
                dtype: k.get("dtype").map(dtype_of),
            },
        ),
        "stack" => cupy::stack(&a, ax()),
        "hstack" => cupy::hstack(&a),
        "vstack" => cupy::vstack(&a),
        "dstack" => cupy::dstack(&a),
        "column_stack" => cupy::column_stack(&a),
        "append" => cupy::append(a[0], a[1], opt_axis(&k["axis"])),
        "split" => piece(case, cupy::split(a[0], sections(k), ax())),
        "array_split" => piece(case, cupy::array_split(a[0], sections(k), ax())),
        "hsplit" => piece(case, cupy::hsplit(a[0], sections(k))),
        "vsplit" => piece(case, cupy::vsplit(a[0], sections(k))),
        "dsplit" => piece(case, cupy::dsplit(a[0], sections(k))),
        "flip" => match k["axis"].as_array() {
            None => a[0].flip(None),
            Some(_) => a[0].flip(isizes(&k["axis"])),
        },
        "fliplr" => cupy::fliplr(a[0]),
        "flipud" => cupy::flipud(a[0]),
        "roll" => match (k["shift"].as_array(), k["axis"].as_array()) {
            (None, _) => cupy::roll(
                a[0],
                k["shift"].as_i64().unwrap() as isize,
                opt_axis(&k["axis"]),
            ),
            _ => cupy::roll_axes(a[0], &isizes(&k["shift"]), &isizes(&k["axis"])),
        },
        "rot90" => {
            let axes = isizes(&k["axes"]);
            cupy::rot90(a[0], k["k"].as_i64().unwrap() as isize, [axes[0], axes[1]])
        }
        "moveaxis" => cupy::moveaxis(a[0], &isizes(&k["source"]), &isizes(&k["destination"])),
        "rollaxis" => cupy::rollaxis(a[0], ax(), k["start"].as_i64().unwrap() as isize),
        "transpose" => cupy::transpose_axes(a[0], &isizes(&k["axes"])),
        "atleast_1d" => Ok(cupy::atleast_1d(a[0])),
        "atleast_2d" => Ok(cupy::atleast_2d(a[0])),
        "atleast_3d" => Ok(cupy::atleast_3d(a[0])),
        "broadcast_arrays" => piece(case, cupy::broadcast_arrays(&a)),
        "ravel" => cupy::ravel_with(a[0], order(&k["order"])),
        "flatten" => a[0].flatten_with(order(&k["order"])),
        "reshape" => cupy::reshape_with(a[0], &isizes(&k["shape"]), order(&k["order"])),
        "tile" => cupy::tile(a[0], &usizes(&k["reps"])),
        "repeat" => a[0].repeat(&usizes(&k["repeats"]), opt_axis(&k["axis"])),
        "resize" => cupy::resize(a[0], &usizes(&k["new_shape"])),
        "delete" => cupy::delete(a[0], &isizes(&k["obj"]), opt_axis(&k["axis"])),
        "insert" => cupy::insert(a[0], &isizes(&k["obj"]), a[1], opt_axis(&k["axis"])),
        "pad" => cupy::pad(a[0], &pairs(&k["pad_width"]), pad_mode(k)),
        "copyto_where" => {
            cupy::copyto_where(a[0], a[1], a[2])?;
            Ok(a[0].clone())
        }
        "ascontiguousarray" => {
            let r = cupy::ascontiguousarray(a[0])?;
            assert!(r.is_c_contiguous(), "{}", case["id"]);
            Ok(r)
        }
        "asfortranarray" => {
            let r = cupy::asfortranarray(a[0])?;
            assert!(r.is_f_contiguous(), "{}", case["id"]);
            Ok(r)
        }
        "insert_at" => cupy::insert_at(
            a[0],
            k["index"].as_i64().unwrap() as isize,
            a[1],
            opt_axis(&k["axis"]),
        ),
        "delete_mask" => cupy::delete_mask(
            a[0],
            &k["mask"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_bool().unwrap())
                .collect::<Vec<_>>(),
            opt_axis(&k["axis"]),
        ),
        "delete_slice" => cupy::delete_slice(
            a[0],
            opt_axis(&k["start"]),
            opt_axis(&k["stop"]),
            k["step"].as_i64().unwrap() as isize,
            opt_axis(&k["axis"]),
        ),
        "trim_zeros" => cupy::trim_zeros(a[0], k["trim"].as_str().unwrap(), opt_axis(&k["axis"])),
        "block" => cupy::block(block_of(&k["structure"], &a)),
        op => panic!("unknown op {op}"),
    }
}

fn expect_err(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap() {
        "ValueError" => matches!(
            e,
            Error::InvalidArgument { .. }
                | Error::ShapeMismatch { .. }
                | Error::InvalidReshape { .. }
        ),
        "AxisError" => matches!(e, Error::AxisOutOfRange { .. }),
        "IndexError" => matches!(
            e,
            Error::IndexOutOfBounds { .. } | Error::AxisOutOfRange { .. }
        ),
        _ => common::generic_error_match(case, e),
    }
}

#[test]
fn manipulation_matches_numpy() {
    common::run_group("manipulation", exec, |_, _, _| Tol::EXACT, expect_err);
}

/// NumPy returns views from split, flip, rot90, moveaxis, atleast_*, broadcast_arrays and a
/// contiguous ravel; concatenate, roll, tile, repeat and flatten return new arrays; the inputs
/// are untouched by every routine and by a refused call.
#[test]
fn views_where_numpy_gives_views() {
    let mut t = common::Tally::new("manipulation_views");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 12.0, 1.0, DType::Int32)?.reshape(&[3, 4])?;
            let views: Vec<(&str, Array)> = vec![
                ("split", cupy::split(&a, 2, 1)?[1].clone()),
                ("flip", a.flip(None)?),
                ("rot90", cupy::rot90(&a, 1, [0, 1])?),
                ("moveaxis", cupy::moveaxis(&a, &[0], &[-1])?),
                ("rollaxis", cupy::rollaxis(&a, 1, 0)?),
                ("atleast_3d", cupy::atleast_3d(&a)),
                (
                    "broadcast_arrays",
                    cupy::broadcast_arrays(&[&a])?[0].clone(),
                ),
                ("ravel K of T", a.t().ravel_with(Order::K)?),
                ("ravel F of T", a.t().ravel_with(Order::F)?),
                ("reshape F of T", a.t().reshape_with(&[2, 6], Order::F)?),
                ("ascontiguousarray", cupy::ascontiguousarray(&a)?),
                ("asfortranarray of T", cupy::asfortranarray(&a.t())?),
            ];
            for (name, v) in &views {
                if !v.shares_memory_with(&a) {
                    return Err(format!("{name} must be a view").into());
                }
            }
            let copies: Vec<(&str, Array)> = vec![
                ("concatenate", cupy::concatenate(&[&a], 0)?),
                ("roll", cupy::roll(&a, 1, None)?),
                ("tile", cupy::tile(&a, &[1])?),
                ("repeat", a.repeat(&[1], None)?),
                ("flatten", a.flatten()?),
                ("ravel F", a.ravel_with(Order::F)?),
                ("asfortranarray", cupy::asfortranarray(&a)?),
                ("pad", cupy::pad(&a, &[(0, 0)], PadMode::Edge)?),
            ];
            for (name, v) in &copies {
                if v.shares_memory_with(&a) {
                    return Err(format!("{name} must be a new array").into());
                }
            }
            // A write through a split piece lands in the base.
            cupy::split(&a, [1], 0)?[0].fill(-1)?;
            let want: Vec<i32> = [-1, -1, -1, -1].into_iter().chain(4..12).collect();
            if a.to_vec::<i32>()? != want {
                return Err(format!("write through split: {:?}", a.to_vec::<i32>()?).into());
            }
            // Refused calls leave the inputs as they were.
            let b = Array::arange_on(&dev, 0.0, 3.0, 1.0, DType::Int32)?;
            if cupy::concatenate(&[&a, &b], 0).is_ok() || cupy::insert(&b, &[9], &b, None).is_ok() {
                return Err("refused calls succeeded".to_string().into());
            }
            if a.to_vec::<i32>()? != want || b.to_vec::<i32>()? != vec![0, 1, 2] {
                return Err("inputs changed by a refused call".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "manipulation views", r);
    }
    t.finish();
}

/// `pad`'s `constant_values`, `stat_length` and `end_values` in each form a [`PerSide`] converts
/// from (a value, a pair, an array, a `Vec` or a slice of pairs) give NumPy's results; a number
/// of pairs that is neither 1 nor the array's rank is an `Err` naming `pad`, the argument and
/// the shape, as are a `stat_length` of 0 on any side and a constant out of the dtype's range.
#[test]
fn pad_per_side_forms_and_errors() {
    let mut t = common::Tally::new("pad_per_side");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1i32, 2, 3, 4], &[2, 2])?;
            let w = [(1, 0), (0, 1)];
            let c = |m: PadMode| -> Result<Vec<i32>> { cupy::pad(&a, &w, m)?.to_vec::<i32>() };
            let want = vec![7, 7, 7, 1, 2, 7, 3, 4, 7];
            for m in [
                PadMode::Constant(7.into()),
                PadMode::Constant((7, 7.9).into()),
                PadMode::Constant([(7, 7), (7, 7)].into()),
                PadMode::Constant(vec![(7i64, 7u8)].into()),
                PadMode::Constant((&[(7.0, 7.5)][..]).into()),
            ] {
                if c(m.clone())? != want {
                    return Err(format!("{m:?}: {:?}", c(m.clone())?).into());
                }
            }
            // (before, after) per axis: axis 0 before = 5 (padded first, over the original
            // columns), then axis 1 after = -6 over every row.
            let per_axis = PadMode::Constant(vec![(5, 9), (8, -6)].into());
            if c(per_axis)? != vec![5, 5, -6, 1, 2, -6, 3, 4, -6] {
                return Err("constant_values per axis".to_string().into());
            }
            // stat_length: a usize literal, a pair, pairs; end_values: f64 or integers.
            let b = Array::from_slice_on(&dev, &[1.0f64, 5.0, 2.0, 8.0], &[4])?;
            let stat = |m: PadMode| -> Result<Vec<f64>> { cupy::pad(&b, &[(1, 1)], m)?.to_vec() };
            if stat(PadMode::Maximum(Some(2.into())))? != vec![5.0, 1.0, 5.0, 2.0, 8.0, 8.0]
                || stat(PadMode::Minimum(Some((1, 3).into())))?
                    != vec![1.0, 1.0, 5.0, 2.0, 8.0, 2.0]
                || stat(PadMode::Mean(Some([(2usize, 4)].into())))?
                    != vec![3.0, 1.0, 5.0, 2.0, 8.0, 4.0]
                || stat(PadMode::LinearRamp((0, 10).into()))? != vec![0.0, 1.0, 5.0, 2.0, 8.0, 10.0]
                || stat(PadMode::LinearRamp(3.into()))? != vec![3.0, 1.0, 5.0, 2.0, 8.0, 3.0]
            {
                return Err("stat_length / end_values forms".to_string().into());
            }
            // Wrong numbers of pairs: NumPy's ValueError (shape (n, 2) against (ndim, 2)).
            for (name, m) in [
                ("constant_values", PadMode::Constant(vec![(1, 1); 3].into())),
                ("constant_values", PadMode::Constant(PerSide::Axes(vec![]))),
                ("stat_length", PadMode::Median(Some(vec![(1, 1); 3].into()))),
                (
                    "end_values",
                    PadMode::LinearRamp(vec![(1.0, 1.0); 3].into()),
                ),
            ] {
                let e = cupy::pad(&a, &w, m.clone()).expect_err(name);
                let msg = e.to_string();
                if !matches!(e, Error::InvalidArgument { .. })
                    || !["pad", name, "[2, 2]", "2 axes"]
                        .iter()
                        .all(|n| msg.contains(n))
                {
                    return Err(format!("{m:?}: {e:?}").into());
                }
            }
            // A stat_length of 0 on one side of one axis (even one padded by 0); none on a 0-d
            // array, which has no side.
            for m in [
                PadMode::Maximum(Some(vec![(1, 1), (0, 1)].into())),
                PadMode::Mean(Some(vec![(1, 0), (1, 1)].into())),
            ] {
                let e = cupy::pad(&a, &w, m.clone()).expect_err("stat_length 0");
                if !matches!(e, Error::InvalidArgument { .. }) || !e.to_string().contains("pad") {
                    return Err(format!("{m:?}: {e:?}").into());
                }
            }
            let z = Array::from_slice_on(&dev, &[3i32], &[])?;
            if cupy::pad(&z, &[(2, 2)], PadMode::Maximum(Some(0.into())))?.to_vec::<i32>()?
                != vec![3]
            {
                return Err("0-d stat_length 0".to_string().into());
            }
            // An integer the dtype cannot hold, on an unpadded side too.
            let e = cupy::pad(
                &a.astype(DType::UInt8)?,
                &w,
                PadMode::Constant(vec![(0, 0), (-1, 0)].into()),
            )
            .expect_err("uint8 -1");
            if !matches!(e, Error::ScalarOverflow { .. }) || !e.to_string().contains("pad") {
                return Err(format!("uint8 -1: {e:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "pad per side", r);
    }
    t.finish();
}

/// Sizes and axes at the ends of `usize`/`isize` are refused with an error naming the op (no
/// overflow panic, no wrapped result, no huge allocation), the inputs unchanged; a 0-d array
/// repeats along axis 0 as NumPy 2 does.
#[test]
fn extreme_sizes_and_axes_are_refused() {
    for dev in common::backends() {
        let a = Array::arange_on(&dev, 0.0, 12.0, 1.0, DType::Int64)
            .unwrap()
            .reshape(&[3, 4])
            .unwrap();
        let b = Array::arange_on(&dev, 0.0, 6.0, 1.0, DType::Int64)
            .unwrap()
            .reshape(&[2, 3])
            .unwrap();
        let v = Array::from_slice_on(&dev, &[1i64, 2, 3], &[3]).unwrap();
        let refused = |r: Result<Array>, op: &str, what: &str| {
            let e = r.expect_err(what);
            assert!(e.to_string().contains(op), "{dev:?} {what}: {e}");
            e
        };
        // pad: a stat_length of 0 yields no value, for the median as for the others.
        for m in [
            PadMode::Median(Some(0.into())),
            PadMode::Mean(Some(0.into())),
            PadMode::Maximum(Some(0.into())),
        ] {
            let e = refused(cupy::pad(&v, &[(2, 3)], m), "pad", "pad stat_length 0");
            assert!(matches!(e, Error::InvalidArgument { .. }), "{dev:?}: {e:?}");
        }
        // rot90: NumPy's ValueError for axes out of range, however extreme.
        for axes in [
            [isize::MIN, 0],
            [0, isize::MIN],
            [isize::MAX, isize::MIN + 5],
            [isize::MIN, isize::MAX],
        ] {
            let e = cupy::rot90(&a, 1, axes).unwrap_err();
            assert!(
                matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("rot90"),
                "{dev:?} rot90 {axes:?}: {e:?}"
            );
        }
        // Other axis arguments at isize::MIN: AxisOutOfRange, no negation overflow.
        for r in [
            cupy::moveaxis(&a, &[isize::MIN], &[0]),
            cupy::expand_dims(&a, isize::MIN),
            cupy::swapaxes(&a, isize::MIN, 0),
            cupy::rollaxis(&a, 0, isize::MIN),
            cupy::roll(&a, 1, Some(isize::MIN)),
            cupy::flip(&a, isize::MIN),
            cupy::concatenate(&[&a, &a], isize::MIN),
            cupy::stack(&[&a, &a], isize::MIN),
            cupy::repeat(&a, &[2], Some(isize::MIN)),
        ] {
            let e = r.unwrap_err();
            assert!(matches!(e, Error::AxisOutOfRange { .. }), "{dev:?}: {e:?}");
        }
        assert!(matches!(
            cupy::split(&a, 2, isize::MIN).unwrap_err(),
            Error::AxisOutOfRange { .. }
        ));
        // roll: shifts on a repeated axis add up exactly (NumPy's Python integers):
        // 2 * isize::MAX = 2^64 - 2 = 2 (mod 3).
        let r = cupy::roll_axes(&v, &[isize::MAX, isize::MAX], &[0, 0]).unwrap();
        assert_eq!(r.to_vec::<i64>().unwrap(), [2, 3, 1], "{dev:?}");
        // -2^63 = 1 (mod 3).
        let r = cupy::roll(&v, isize::MIN, None).unwrap();
        assert_eq!(r.to_vec::<i64>().unwrap(), [3, 1, 2], "{dev:?}");
        // tile / repeat: products and sums that overflow, or results that can't fit.
        refused(cupy::tile(&b, &[usize::MAX, 2]), "tile", "tile usize::MAX");
        refused(cupy::tile(&b, &[1 << 62]), "tile", "tile 2^62");
        refused(
            cupy::repeat(&b, &[1 << 62], Some(0)),
            "repeat",
            "repeat 2^62 axis 0",
        );
        refused(cupy::repeat(&b, &[1 << 62], None), "repeat", "repeat 2^62");
        refused(
            cupy::repeat(&b, &[usize::MAX], Some(1)),
            "repeat",
            "repeat MAX axis 1",
        );
        refused(
            cupy::repeat(&b, &[usize::MAX, 1, 1], Some(1)),
            "repeat",
            "repeat per-element sum overflow",
        );
        refused(
            cupy::repeat(&b, &[1 << 61, 1 << 61, 0], Some(1)),
            "repeat",
            "repeat per-element 2^62",
        );
        // repeat of a 0-d array: the 1-d array of its element, along axis 0 or -1 too.
        let z0 = Array::full_on(&dev, &[], 7i64, DType::Int64).unwrap();
        for axis in [None, Some(0), Some(-1)] {
            let r = cupy::repeat(&z0, &[3], axis).unwrap();
            assert_eq!(r.shape(), [3], "{dev:?} {axis:?}");
            assert_eq!(r.to_vec::<i64>().unwrap(), [7, 7, 7], "{dev:?} {axis:?}");
        }
        assert_eq!(
            cupy::repeat(&z0, &[2], Some(0))
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            [7, 7]
        );
        for axis in [1, -2] {
            let e = cupy::repeat(&z0, &[3], Some(axis)).unwrap_err();
            assert!(matches!(e, Error::AxisOutOfRange { .. }), "{dev:?}: {e:?}");
        }
        assert!(cupy::repeat(&z0, &[1, 2], Some(0)).is_err(), "{dev:?}");
        // array_split: a section count whose views can't exist is refused before allocating.
        let x = Array::arange_on(&dev, 0.0, 10.0, 1.0, DType::Int64).unwrap();
        for k in [usize::MAX, 1 << 62] {
            let e = cupy::array_split(&x, k, 0).unwrap_err();
            assert!(e.to_string().contains("array_split"), "{dev:?}: {e}");
        }
        assert_eq!(cupy::array_split(&x, 12usize, 0).unwrap().len(), 12);
        // concatenate / block: axis lengths that overflow when added (broadcast views).
        let big = Array::zeros_on(&dev, &[1], DType::Int8)
            .unwrap()
            .broadcast_to(&[1 << 62])
            .unwrap();
        refused(
            cupy::concatenate(&[&big, &big, &big, &big], 0),
            "concatenate",
            "concatenate 4 x 2^62",
        );
        refused(
            cupy::block(Block::List(
                (0..4).map(|_| Block::Array(big.clone())).collect(),
            )),
            "block",
            "block 4 x 2^62",
        );
        // Nothing above changed the inputs.
        assert_eq!(a.to_vec::<i64>().unwrap(), (0..12).collect::<Vec<i64>>());
        assert_eq!(b.to_vec::<i64>().unwrap(), (0..6).collect::<Vec<i64>>());
        assert_eq!(v.to_vec::<i64>().unwrap(), [1, 2, 3]);
    }
}
