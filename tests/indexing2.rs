//! NumPy's indexing rules against NumPy goldens on every backend: `a[index]` with mixed
//! basic and advanced items (`Array::get`), `a[index] = v` (`Array::set`), `a[index] += v`
//! against `add.at`, `take`/`put` modes, `take_along_axis`/`put_along_axis`, `nonzero`,
//! `argwhere`, `flatnonzero`; and that a refused index leaves the array untouched.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Device, Error, IndexItem, IndexMode, Result, SliceItem};
use serde_json::Value;

/// The index of a case: its JSON items, arrays taken from `ops` (operand `k` is `ops[k]`).
fn index(items: &Value, ops: &[Operand]) -> Vec<IndexItem> {
    items
        .as_array()
        .expect("index")
        .iter()
        .map(|it| match it {
            Value::Bool(b) => IndexItem::Bool(*b),
            Value::Object(o) => {
                IndexItem::Array(ops[o["arr"].as_u64().unwrap() as usize].array().clone())
            }
            other => IndexItem::Basic(common::slice_item(other)),
        })
        .collect()
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let kw = &case["kwargs"];
    let axis = kw["axis"].as_i64().map(|a| a as isize);
    let mode = kw["mode"]
        .as_str()
        .map(IndexMode::parse)
        .transpose()?
        .unwrap_or_default();
    if ops.is_empty() {
        return exec_more(case, ops);
    }
    let a = ops[0].array();
    let last = ops.len() - 1;
    match case["op"].as_str().unwrap_or("") {
        "getitem" => a.get(&index(&kw["index"], &ops[1..])),
        op @ ("setitem" | "iadd" | "isub" | "imul") => {
            let idx = index(&kw["index"], &ops[1..last]);
            let v = ops[last].arg();
            match op {
                "setitem" => a.set(&idx, v)?,
                "iadd" => a.index_add(&idx, v)?,
                "isub" => a.index_sub(&idx, v)?,
                _ => a.index_mul(&idx, v)?,
            }
            Ok(a.clone())
        }
        "add.at" => {
            cupy::add_at(a, ops[1].array(), ops[2].array())?;
            Ok(a.clone())
        }
        "take" => {
            let out = kw["out"].as_u64().map(|k| ops[k as usize].array().clone());
            let opts = cupy::Take {
                axis,
                mode,
                out: out.clone(),
            };
            let r = cupy::take_with(a, ops[1].array(), opts)?;
            match out {
                // the values read back from `out` itself, which take returned
                Some(o) if r.shares_memory_with(&o) && r.shape() == o.shape() => Ok(o),
                Some(_) => Err(Error::invalid("take", "out= was not returned")),
                None => Ok(r),
            }
        }
        "put" => {
            cupy::put_with(a, ops[1].array(), ops[2].array(), mode)?;
            Ok(a.clone())
        }
        "take_along_axis" => cupy::take_along_axis(a, ops[1].array(), axis),
        "put_along_axis" => {
            cupy::put_along_axis(a, ops[1].array(), ops[2].array(), axis)?;
            Ok(a.clone())
        }
        "nonzero" => stack(&cupy::nonzero(a)?),
        "argwhere" => cupy::argwhere(a),
        "flatnonzero" => cupy::flatnonzero(a),
        _ => exec_more(case, ops),
    }
}

fn int(v: &Value) -> isize {
    v.as_i64().unwrap() as isize
}

fn order(v: &Value) -> cupy::Order {
    match v.as_str() {
        Some("F") => cupy::Order::F,
        _ => cupy::Order::C,
    }
}

fn stack(rows: &[Array]) -> Result<Array> {
    let refs: Vec<&Array> = rows.iter().collect();
    cupy::stack(&refs, 0)
}

/// The diagonal, mask and grid routines.
fn exec_more(case: &Value, ops: &[Operand]) -> Result<Array> {
    let kw = &case["kwargs"];
    let mode = kw["mode"]
        .as_str()
        .map(IndexMode::parse)
        .transpose()?
        .unwrap_or_default();
    let arr = |k: usize| ops[k].array();
    let all: Vec<&Array> = ops
        .iter()
        .filter_map(|o| match o {
            Operand::Arr(a) => Some(a),
            Operand::Weak(_) => None,
        })
        .collect();
    match case["op"].as_str().unwrap_or("") {
        "diagonal" => cupy::diagonal(
            arr(0),
            int(&kw["offset"]),
            int(&kw["axis1"]),
            int(&kw["axis2"]),
        ),
        "diag" => cupy::diag(arr(0), int(&kw["k"])),
        "diagflat" => cupy::diagflat(arr(0), int(&kw["k"])),
        "tril" => cupy::tril(arr(0), int(&kw["k"])),
        "triu" => cupy::triu(arr(0), int(&kw["k"])),
        op @ ("tril_indices" | "triu_indices") => {
            let n = kw["n"].as_u64().unwrap() as usize;
            let m = kw["m"].as_u64().map(|m| m as usize);
            let f = if op == "tril_indices" {
                cupy::tril_indices
            } else {
                cupy::triu_indices
            };
            let (r, c) = f(n, int(&kw["k"]), m)?;
            stack(&[r, c])
        }
        "fill_diagonal" => {
            cupy::fill_diagonal(arr(0), ops[1].arg(), kw["wrap"].as_bool().unwrap())?;
            Ok(arr(0).clone())
        }
        "putmask" => {
            cupy::putmask(arr(0), arr(1), arr(2))?;
            Ok(arr(0).clone())
        }
        "place" => {
            cupy::place(arr(0), arr(1), arr(2))?;
            Ok(arr(0).clone())
        }
        "compress" => cupy::compress(arr(0), arr(1), kw["axis"].as_i64().map(|a| a as isize)),
        "extract" => cupy::extract(arr(0), arr(1)),
        "choose" => cupy::choose(arr(0), &all[1..], mode),
        "select" => {
            let n = kw["n"].as_u64().unwrap() as usize;
            let last = ops.len() - 1;
            cupy::select(&all[..n], &all[n..2 * n], ops[last].arg())
        }
        "indices" => cupy::indices(&common::usizes(&kw["dims"]), cupy::DType::Int64),
        "ix_get" => {
            let ix = cupy::ix_(&all[1..])?;
            let items: Vec<IndexItem> = ix.into_iter().map(IndexItem::Array).collect();
            arr(0).get(&items)
        }
        "ravel_multi_index" => cupy::ravel_multi_index(
            &all,
            &common::usizes(&kw["dims"]),
            mode,
            order(&kw["order"]),
        ),
        "unravel_index" => stack(&cupy::unravel_index(
            arr(0),
            &common::usizes(&kw["shape"]),
            order(&kw["order"]),
        )?),
        op => panic!("unknown op {op}"),
    }
}

#[test]
fn indexing2_matches_numpy() {
    common::run_group(
        "indexing2",
        exec,
        |_, _, _| Tol::EXACT,
        |case, e| match case["error"].as_str().unwrap_or("") {
            "IndexError" => matches!(
                e,
                Error::IndexOutOfBounds { .. } | Error::IndexError { .. } | Error::TypeError { .. }
            ),
            "ValueError" => matches!(
                e,
                Error::ShapeMismatch { .. } | Error::InvalidArgument { .. }
            ),
            "AxisError" => matches!(e, Error::AxisOutOfRange { .. }),
            _ => common::generic_error_match(case, e),
        },
    );
}

/// Every refused index or value leaves the target as it was.
#[test]
fn refused_assignments_leave_the_array_unchanged() {
    for dev in common::backends() {
        let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let a = Array::from_slice_on(&dev, &data, &[3, 4]).unwrap();
        let oob = Array::from_slice_on(&dev, &[0i64, 3], &[2]).unwrap();
        let oob4 = Array::from_slice_on(&dev, &[0i64, -5], &[2]).unwrap();
        let mask = Array::from_slice_on(&dev, &[true, false], &[2]).unwrap();
        let rows = Array::from_slice_on(&dev, &[0i64, 1], &[2]).unwrap();
        let three = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
        let errs = [
            a.set(&cupy::s![&oob], 1.0).unwrap_err(),
            a.set(&cupy::s![.., &oob4], 1.0).unwrap_err(),
            a.set(&cupy::s![&mask], 1.0).unwrap_err(),
            a.set(&cupy::s![0, 0, 0], 1.0).unwrap_err(),
            a.set(&cupy::s![&rows], &three).unwrap_err(),
            a.index_add(&cupy::s![&oob], 1.0).unwrap_err(),
            a.set(&cupy::s![5], 1.0).unwrap_err(),
        ];
        assert!(
            matches!(
                errs[0],
                Error::IndexOutOfBounds {
                    index: 3,
                    axis: 0,
                    size: 3,
                    ..
                }
            ),
            "{dev:?}: {:?}",
            errs[0]
        );
        assert!(
            matches!(errs[1], Error::IndexOutOfBounds { .. }),
            "{:?}",
            errs[1]
        );
        assert!(
            matches!(errs[2], Error::IndexError { .. }),
            "{dev:?}: {:?}",
            errs[2]
        );
        assert!(
            errs[2].to_string().contains("boolean index did not match"),
            "{}",
            errs[2]
        );
        assert!(matches!(errs[3], Error::IndexError { .. }), "{:?}", errs[3]);
        assert!(
            errs[3].to_string().contains("too many indices"),
            "{}",
            errs[3]
        );
        assert!(
            matches!(errs[4], Error::ShapeMismatch { .. }),
            "{:?}",
            errs[4]
        );
        assert!(
            matches!(errs[5], Error::IndexOutOfBounds { .. }),
            "{:?}",
            errs[5]
        );
        assert!(
            matches!(errs[6], Error::IndexOutOfBounds { .. }),
            "{:?}",
            errs[6]
        );
        assert_eq!(a.to_vec::<f32>().unwrap(), data, "{dev:?}: array changed");
        let b = a.broadcast_to(&[2, 3, 4]).unwrap();
        assert!(matches!(
            b.set(&[SliceItem::Index(0)], 1.0),
            Err(Error::InvalidArgument { .. })
        ));
        // NaN or an infinity into an integer array: NumPy's "cannot convert float NaN to integer".
        let ints = Array::from_slice_on(&dev, &[1i64, 2, 3], &[3]).unwrap();
        for v in [f64::NAN, f64::INFINITY] {
            let e = ints.set(&cupy::s![0], v).unwrap_err();
            assert!(e.to_string().contains("cannot convert float"), "{e}");
        }
        assert_eq!(ints.to_vec::<i64>().unwrap(), [1, 2, 3]);
    }
}

/// `a[idx] += 1` applies a repeated index once; `add.at` applies every occurrence.
#[test]
fn index_add_applies_repeats_once_unlike_add_at() {
    for dev in common::backends() {
        let a = Array::zeros_on(&dev, &[4], cupy::DType::Float32).unwrap();
        let b = a.copy().unwrap();
        let idx = Array::from_slice_on(&dev, &[1i32, 1, 1, 3], &[4]).unwrap();
        a.index_add(&cupy::s![&idx], 1.0f32).unwrap();
        assert_eq!(
            a.to_vec::<f32>().unwrap(),
            vec![0.0, 1.0, 0.0, 1.0],
            "{dev:?}"
        );
        let one = Array::full_on(&dev, &[], 1.0f32, cupy::DType::Float32).unwrap();
        cupy::add_at(&b, &idx, &one).unwrap();
        assert_eq!(
            b.to_vec::<f32>().unwrap(),
            vec![0.0, 3.0, 0.0, 1.0],
            "{dev:?}"
        );
    }
}

/// A basic index gives a view (writes through it reach the base), an advanced one a copy.
#[test]
fn basic_get_is_a_view_advanced_get_a_copy() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
        let v = a.get(&cupy::s![.., 1..]).unwrap();
        assert!(v.shares_memory_with(&a));
        let idx = Array::from_slice_on(&dev, &[0i64], &[1]).unwrap();
        let c = a.get(&cupy::s![&idx]).unwrap();
        assert!(!c.shares_memory_with(&a));
        v.fill(0).unwrap();
        assert_eq!(a.to_vec::<i32>().unwrap(), vec![1, 0, 0, 4, 0, 0]);
        assert_eq!(c.to_vec::<i32>().unwrap(), vec![1, 2, 3]);
    }
}

/// `a[mask] += v` (one select kernel, no count read) equals the gather/scatter path and
/// NumPy's result, for a leading mask and for a full-shape mask; a value of the selection's
/// shape takes the general path.
#[test]
fn masked_compound_assignment() {
    for dev in common::backends() {
        let data: Vec<i32> = (0..12).collect();
        let a = Array::from_slice_on(&dev, &data, &[3, 4]).unwrap();
        let rows = Array::from_slice_on(&dev, &[true, false, true], &[3]).unwrap();
        let inc = Array::from_slice_on(&dev, &[1i32, 2, 3, 4], &[4]).unwrap();
        a.index_add(&cupy::s![&rows], &inc).unwrap();
        assert_eq!(
            a.to_vec::<i32>().unwrap(),
            vec![1, 3, 5, 7, 4, 5, 6, 7, 9, 11, 13, 15],
            "{dev:?}"
        );
        let even = Array::from_slice_on(
            &dev,
            &data.iter().map(|v| v % 2 == 0).collect::<Vec<_>>(),
            &[3, 4],
        )
        .unwrap();
        let b = Array::from_slice_on(&dev, &data, &[3, 4]).unwrap();
        b.index_mul(&cupy::s![&even], 10).unwrap();
        assert_eq!(
            b.to_vec::<i32>().unwrap(),
            vec![0, 1, 20, 3, 40, 5, 60, 7, 80, 9, 100, 11],
            "{dev:?}"
        );
        // A value of the selection's shape (6 selected elements).
        let six = Array::from_slice_on(&dev, &[1i32, 1, 1, 1, 1, 1], &[6]).unwrap();
        b.index_sub(&cupy::s![&even], &six).unwrap();
        assert_eq!(
            b.to_vec::<i32>().unwrap(),
            vec![-1, 1, 19, 3, 39, 5, 59, 7, 79, 9, 99, 11],
            "{dev:?}"
        );
        // int += float is refused (same_kind), the array unchanged.
        assert!(matches!(
            b.index_add(&cupy::s![&even], 0.5),
            Err(Error::TypeError { .. })
        ));
        assert_eq!(b.to_vec::<i32>().unwrap()[0], -1);
        let c = cupy::choose(
            &Array::from_slice_on(&dev, &[1i64, 0], &[2]).unwrap(),
            &[
                &inc.get(&cupy::s![..2]).unwrap(),
                &six.get(&cupy::s![..2]).unwrap(),
            ],
            IndexMode::Raise,
        )
        .unwrap();
        assert_eq!(c.to_vec::<i32>().unwrap(), vec![1, 2]);
    }
}

/// Index arrays and values that alias the target are read before it is written
/// (`a[a_view] = a_other_view`). NumPy 2.2 reads them while writing (its result here is
/// `[3, 0, 0, 3]`); docs/differences.md says so.
#[test]
fn aliased_index_and_value() {
    for dev in common::backends() {
        let a = Array::from_slice_on(&dev, &[2i64, 0, 1, 3], &[4]).unwrap();
        let idx = a.get(&cupy::s![..3]).unwrap();
        let val = a.get(&cupy::s![1..]).unwrap();
        // Read first: idx = [2, 0, 1], val = [0, 1, 3].
        a.set(&cupy::s![&idx], &val).unwrap();
        assert_eq!(a.to_vec::<i64>().unwrap(), vec![1, 3, 0, 3], "{dev:?}");
    }
}

/// `a[idx]` and `take` check the indices inside the gather kernel (a flag read afterwards):
/// the same `IndexOutOfBounds` as a check before the gather, for every index dtype, negative
/// narrow indices in and out of range, and in-range gathers unchanged.
#[test]
fn gather_checks_bounds_in_the_kernel() {
    for dev in common::backends() {
        let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let a = Array::from_slice_on(&dev, &data, &[3, 4]).unwrap();
        let oob = |e: Error, i: isize, ax: usize, n: usize| {
            assert!(
                matches!(e, Error::IndexOutOfBounds { index, axis, size, .. }
                    if index == i && axis == ax && size == n),
                "{dev:?}: {e:?}"
            );
        };
        let i64s = Array::from_slice_on(&dev, &[0i64, 3], &[2]).unwrap();
        oob(a.get(&cupy::s![&i64s]).unwrap_err(), 3, 0, 3);
        let i32s = Array::from_slice_on(&dev, &[-5i32, 1], &[2]).unwrap();
        oob(a.get(&cupy::s![.., &i32s]).unwrap_err(), -5, 1, 4);
        let i8s = Array::from_slice_on(&dev, &[-4i8, 0], &[2]).unwrap();
        oob(a.get(&cupy::s![&i8s, &i8s]).unwrap_err(), -4, 0, 3);
        let u64s = Array::from_slice_on(&dev, &[1u64 << 63], &[1]).unwrap();
        assert!(a.get(&cupy::s![&u64s]).is_err(), "{dev:?}");
        let i16s = Array::from_slice_on(&dev, &[-13i16, 12], &[2]).unwrap();
        oob(a.take(&i16s).unwrap_err(), -13, 0, 12);
        let neg = Array::from_slice_on(&dev, &[-1i8, -3, 2], &[3]).unwrap();
        assert_eq!(
            a.get(&cupy::s![&neg, 1]).unwrap().to_vec::<f32>().unwrap(),
            [9.0, 1.0, 9.0],
            "{dev:?}"
        );
        assert_eq!(
            a.take(&neg.astype(cupy::DType::Int32).unwrap())
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            [11.0, 9.0, 2.0],
            "{dev:?}"
        );
        assert_eq!(a.to_vec::<f32>().unwrap(), data, "{dev:?}: array changed");
    }
}

/// uint64 indices of 2^63 or more under `mode='clip'` and `'wrap'`, into a view whose buffer
/// starts before it (the review of 2026-12-07 found `clip` reading and writing the element
/// before the view on wgpu): NumPy casts them to intp, so they are negative, clipped to 0 or
/// wrapped from the end (NumPy's `take` gives `[1 1]` for the clip case below; its `put` and
/// `choose` refuse uint64 indices, which cupy-rs takes as `take` does).
#[test]
fn uint64_indices_past_2_63_are_negative_under_clip_and_wrap() {
    for dev in common::backends() {
        let on = |v: &[i64]| Array::from_slice_on(&dev, v, &[v.len()]).unwrap();
        let u64s = |v: &[u64]| Array::from_slice_on(&dev, v, &[v.len()]).unwrap();
        let ints = |a: Array| a.to_vec::<i64>().unwrap();
        let base = on(&[100, 1, 2, 3, 4]);
        let view = base.slice(&cupy::s![1..]).unwrap();
        let big = u64s(&[u64::MAX, 1 << 63]);
        let take = |mode| ints(cupy::take_with(&view, &big, mode).unwrap());
        assert_eq!(take(IndexMode::Clip), [1, 1], "{dev:?}");
        // -1 and -2^63 modulo 4: 3 and 0
        assert_eq!(take(IndexMode::Wrap), [4, 1], "{dev:?}");
        cupy::put_with(&view, &u64s(&[u64::MAX]), &on(&[-7]), IndexMode::Clip).unwrap();
        assert_eq!(ints(base.clone()), [100, -7, 2, 3, 4], "{dev:?}");
        cupy::put_with(&view, &u64s(&[u64::MAX]), &on(&[-8]), IndexMode::Wrap).unwrap();
        assert_eq!(ints(base.clone()), [100, -7, 2, 3, -8], "{dev:?}");
        let (c0, c1) = (on(&[10, 11]), on(&[20, 21]));
        let chosen = cupy::choose(&u64s(&[u64::MAX, 1]), &[&c0, &c1], IndexMode::Clip).unwrap();
        assert_eq!(ints(chosen), [10, 21], "{dev:?}");
        let flat = cupy::ravel_multi_index(
            &[&u64s(&[u64::MAX]), &on(&[1])],
            &[3, 3],
            IndexMode::Clip,
            cupy::Order::C,
        )
        .unwrap();
        assert_eq!(ints(flat), [1], "{dev:?}");
    }
}

/// `ravel_multi_index`/`unravel_index` refuse dims whose size overflows int64 (NumPy's
/// ValueError) instead of wrapping the strides, and take boolean indices as 0/1 as NumPy does.
#[test]
fn multi_index_dims_overflow_and_bool_indices() {
    for dev in common::backends() {
        let zero = Array::from_slice_on(&dev, &[0i64], &[1]).unwrap();
        let one = Array::from_slice_on(&dev, &[1i64], &[1]).unwrap();
        for dims in [
            vec![1usize << 30; 3],
            vec![1 << 40; 3],
            vec![1 << 31, 1 << 32],
            vec![1 << 62, 2],
            vec![0, 1 << 62, 4],
            vec![usize::MAX],
        ] {
            let idx: Vec<&Array> = vec![&zero; dims.len()];
            for order in [cupy::Order::C, cupy::Order::F] {
                for mode in [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip] {
                    let e = cupy::ravel_multi_index(&idx, &dims, mode, order).unwrap_err();
                    assert!(
                        matches!(e, Error::InvalidArgument { .. })
                            && e.to_string().contains("ravel_multi_index"),
                        "{dev:?} {dims:?}: {e:?}"
                    );
                }
                let e = cupy::unravel_index(&zero, &dims, order).unwrap_err();
                assert!(
                    matches!(e, Error::InvalidArgument { .. })
                        && e.to_string().contains("unravel_index"),
                    "{dev:?} {dims:?}: {e:?}"
                );
            }
        }
        // The largest size that fits still works: (2^31, 2^32 - 1).
        let dims = [1usize << 31, (1 << 32) - 1];
        let big = Array::from_slice_on(&dev, &[(1i64 << 31) - 1], &[1]).unwrap();
        let r = cupy::ravel_multi_index(&[&big, &one], &dims, IndexMode::Raise, cupy::Order::C)
            .unwrap();
        assert_eq!(
            r.to_vec::<i64>().unwrap(),
            [((1i64 << 31) - 1) * ((1 << 32) - 1) + 1]
        );
        // np.unravel_index([True, False], (7, 6)) == ([0, 0], [1, 0]).
        let t = Array::from_slice_on(&dev, &[true, false], &[2]).unwrap();
        let u = cupy::unravel_index(&t, &[7, 6], cupy::Order::C).unwrap();
        assert_eq!(u[0].to_vec::<i64>().unwrap(), [0, 0], "{dev:?}");
        assert_eq!(u[1].to_vec::<i64>().unwrap(), [1, 0], "{dev:?}");
        // np.unravel_index(np.array([True]), (1,)): index 1 is out of bounds for size 1.
        let e = cupy::unravel_index(&t, &[1], cupy::Order::C).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{dev:?}: {e:?}");
        // np.ravel_multi_index((np.array([True]), np.array([False])), (7, 6)) == [6].
        let tt = Array::from_slice_on(&dev, &[true], &[1]).unwrap();
        let ff = Array::from_slice_on(&dev, &[false], &[1]).unwrap();
        for mode in [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip] {
            let r = cupy::ravel_multi_index(&[&tt, &ff], &[7, 6], mode, cupy::Order::C).unwrap();
            assert_eq!(r.to_vec::<i64>().unwrap(), [6], "{dev:?} {mode:?}");
        }
        // Floats are still refused.
        let f = Array::from_slice_on(&dev, &[1.0f32], &[1]).unwrap();
        assert!(matches!(
            cupy::unravel_index(&f, &[7, 6], cupy::Order::C).unwrap_err(),
            Error::TypeError { .. }
        ));
    }
}

/// `fill_diagonal` of a wide broadcast view: the diagonal's end (`ncols^2`) saturates instead
/// of overflowing, and the read-only view is refused.
#[test]
fn fill_diagonal_of_a_huge_broadcast_view_is_refused() {
    for dev in common::backends() {
        let z = Array::zeros_on(&dev, &[], cupy::DType::Int8).unwrap();
        let wide = z.broadcast_to(&[1, 1 << 33]).unwrap();
        assert!(cupy::fill_diagonal(&wide, 1, false).is_err(), "{dev:?}");
        assert_eq!(z.to_vec::<i8>().unwrap(), [0], "{dev:?}");
    }
}

/// `s![]` takes every Rust integer type up to 64 bits (the review of 2026-12-07: `s![k]` with
/// `k: u64`, `u8` or `i16` did not compile); a `u64` past `isize::MAX` is out of bounds, not a
/// wrapped negative index.
#[test]
fn slice_items_of_every_integer_type() {
    for dev in common::backends() {
        let data: Vec<i64> = (0..10).collect();
        let a = Array::from_slice_on(&dev, &data, &[10]).unwrap();
        let get = |items: &[IndexItem]| a.get(items).unwrap().to_vec::<i64>().unwrap();
        let (k8, k16, ku64) = (3u8, -2i16, 4u64);
        assert_eq!(get(&cupy::s![k8]), [3], "{dev:?}");
        assert_eq!(get(&cupy::s![k16]), [8], "{dev:?}");
        assert_eq!(get(&cupy::s![ku64]), [4], "{dev:?}");
        assert_eq!(get(&cupy::s![1u8..4u8]), [1, 2, 3], "{dev:?}");
        assert_eq!(get(&cupy::s![-3i8..]), [7, 8, 9], "{dev:?}");
        assert_eq!(get(&cupy::s![..2u16]), [0, 1], "{dev:?}");
        assert_eq!(get(&cupy::s![6u64..;2]), [6, 8], "{dev:?}");
        let e = a.get(&cupy::s![u64::MAX]).unwrap_err();
        assert!(matches!(e, Error::IndexOutOfBounds { .. }), "{dev:?}: {e}");
    }
}

/// `diag_indices`, `diag_indices_from` and `mask_indices` give NumPy's indices
/// (`np.mask_indices(3, np.triu, 1)` is `([0, 0, 1], [1, 2, 2])`), and index the diagonal.
#[test]
fn diag_and_mask_indices() {
    let mut t = common::Tally::new("diag_mask_indices");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let d = cupy::diag_indices(3, 2)?;
            if d.len() != 2
                || d.iter()
                    .any(|a| a.to_vec::<i64>().ok() != Some(vec![0, 1, 2]))
            {
                return Err("diag_indices(3, 2)".to_string().into());
            }
            if !cupy::diag_indices(3, 0)?.is_empty() || cupy::diag_indices(0, 2)?[0].size() != 0 {
                return Err("diag_indices of ndim 0 / n 0".to_string().into());
            }
            let a =
                Array::arange_on(&dev, 0.0, 8.0, 1.0, cupy::DType::Int32)?.reshape(&[2, 2, 2])?;
            let idx = cupy::diag_indices_from(&a)?;
            let items: Vec<IndexItem> = idx.iter().map(|i| IndexItem::Array(i.clone())).collect();
            if a.get(&items)?.to_vec::<i32>()? != vec![0, 7] {
                return Err("a[diag_indices_from(a)] of a 2x2x2 arange"
                    .to_string()
                    .into());
            }
            for bad in [&[2usize, 3][..], &[2][..]] {
                let b = Array::zeros_on(&dev, bad, cupy::DType::Float32)?;
                if !matches!(
                    cupy::diag_indices_from(&b),
                    Err(Error::InvalidArgument { .. })
                ) {
                    return Err(
                        format!("diag_indices_from of shape {bad:?} must be refused").into(),
                    );
                }
            }
            let (r, c) = cupy::mask_indices(3, cupy::triu, 1)?;
            if r.to_vec::<i64>()? != vec![0, 0, 1] || c.to_vec::<i64>()? != vec![1, 2, 2] {
                return Err(format!(
                    "mask_indices(3, triu, 1): {:?} {:?}",
                    r.to_vec::<i64>(),
                    c.to_vec::<i64>()
                )
                .into());
            }
            let (r, c) = cupy::mask_indices(2, cupy::tril, 0)?;
            if r.to_vec::<i64>()? != vec![0, 1, 1] || c.to_vec::<i64>()? != vec![0, 0, 1] {
                return Err("mask_indices(2, tril, 0)".to_string().into());
            }
            Ok(())
        });
        t.check(&dev, "diag and mask indices", r);
    }
    t.finish();
}

/// `ndindex` walks a shape in C order (`list(np.ndindex(2, 3))`); `ndenumerate` pairs each
/// index with its value.
#[test]
fn ndindex_and_ndenumerate() {
    let all: Vec<Vec<usize>> = cupy::ndindex(&[2, 3]).collect();
    let want: Vec<Vec<usize>> = (0..2)
        .flat_map(|i| (0..3).map(move |j| vec![i, j]))
        .collect();
    assert_eq!(all, want);
    assert_eq!(
        cupy::ndindex(&[]).collect::<Vec<_>>(),
        vec![Vec::<usize>::new()]
    );
    assert_eq!(cupy::ndindex(&[3, 0, 2]).count(), 0);
    assert_eq!(
        cupy::ndindex(&[4]).collect::<Vec<_>>(),
        vec![vec![0], vec![1], vec![2], vec![3]]
    );
    let mut t = common::Tally::new("ndenumerate");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 6.0, 1.0, cupy::DType::Int16)?.reshape(&[3, 2])?;
            let e = cupy::ndenumerate::<i16>(&a.t())?;
            let want = vec![
                (vec![0, 0], 0i16),
                (vec![0, 1], 2),
                (vec![0, 2], 4),
                (vec![1, 0], 1),
                (vec![1, 1], 3),
                (vec![1, 2], 5),
            ];
            if e != want {
                return Err(format!("ndenumerate(a.T): {e:?}").into());
            }
            if cupy::ndenumerate::<f32>(&a).is_ok() {
                return Err("ndenumerate::<f32> of an int16 array must be refused"
                    .to_string()
                    .into());
            }
            Ok(())
        })();
        t.check(&dev, "ndenumerate", r);
    }
    t.finish();
}
