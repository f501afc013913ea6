//! Searching and sets against NumPy goldens on every backend (group `sets`): searchsorted
//! (sides, sorter, views, mixed dtypes), digitize, lexsort, partition/argpartition, complex
//! sort/argsort (NaN classes) and sort_complex, unique (every return_* part, axis, equal_nan)
//! and NumPy 2's unique_*, isin/in1d, intersect1d (return_indices, assume_unique), union1d,
//! setdiff1d, setxor1d, with every dtype (complex skipped where a backend refuses it), 0-d and
//! size-0 operands and the error cases NumPy raises.
//!
//! Everything is exact. partition/argpartition are checked against NumPy's guarantee, not its
//! arrangement: each kth element equals the sorted array's, nothing before it is larger and
//! nothing after it smaller (NaN last); argpartition's indices are a permutation of each row and
//! the guarantee holds for `a[indices]`. The result (argpartition: `a[indices]`) is then sorted
//! and compared with NumPy's sort, which checks the values are the input's.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn axis_of(v: &Value) -> Option<isize> {
    v.as_i64().map(|a| a as isize)
}

/// The sort position of a decoded value: NaN after everything.
fn ord(x: f64) -> (u8, f64) {
    if x.is_nan() {
        (1, 0.0)
    } else {
        (0, x)
    }
}

/// Host values of `a` (C order) as f64 and its shape.
fn host(a: &Array) -> Result<(Vec<f64>, Vec<usize>)> {
    Ok((
        common::decode_f64(a.dtype(), &a.to_bytes()?),
        a.shape().to_vec(),
    ))
}

/// Rows along `axis` of a C-order buffer of `shape`: (outer, n, inner) strides.
fn rows_of(shape: &[usize], axis: Option<isize>) -> (usize, usize, usize) {
    match axis {
        None => (1, shape.iter().product(), 1),
        Some(ax) => {
            let k = if ax < 0 {
                ax + shape.len() as isize
            } else {
                ax
            } as usize;
            let outer = shape[..k].iter().product();
            let inner = shape[k + 1..].iter().product();
            (outer, shape[k], inner)
        }
    }
}

/// NumPy's partition guarantee on the rows of `v` (see the module docs).
fn check_partition(v: &[f64], shape: &[usize], axis: Option<isize>, kth: &[isize]) -> Result<()> {
    let (outer, n, inner) = rows_of(shape, axis);
    for o in 0..outer {
        for i in 0..inner {
            let row: Vec<f64> = (0..n).map(|j| v[(o * n + j) * inner + i]).collect();
            let mut sorted = row.clone();
            sorted.sort_by(|a, b| ord(*a).partial_cmp(&ord(*b)).unwrap());
            for &k in kth {
                let k = if k < 0 { k + n as isize } else { k } as usize;
                let same = ord(row[k]) == ord(sorted[k]);
                let before = row[..k].iter().all(|x| ord(*x) <= ord(row[k]));
                let after = row[k + 1..].iter().all(|x| ord(*x) >= ord(row[k]));
                if !(same && before && after) {
                    return Err(Error::invalid(
                        "partition check",
                        format!("kth {k} of row {o},{i} breaks the partition guarantee: {row:?}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `a[indices]` along the rows, after checking each row of `idx` is a permutation of `0..n`.
fn gather_checked(a: &Array, idx: &Array, axis: Option<isize>) -> Result<Array> {
    let (v, shape) = host(a)?;
    let ix = idx.to_vec::<i64>()?;
    let (outer, n, inner) = rows_of(&shape, axis);
    let mut out = vec![0usize; v.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut seen = vec![false; n];
            for j in 0..n {
                let at = (o * n + j) * inner + i;
                let s = ix[at];
                if s < 0 || s as usize >= n || seen[s as usize] {
                    return Err(Error::invalid(
                        "argpartition check",
                        format!("row {o},{i} is no permutation"),
                    ));
                }
                seen[s as usize] = true;
                out[at] = (o * n + s as usize) * inner + i;
            }
        }
    }
    let flat = a.reshape(&[-1])?;
    let gi = Array::from_slice_on(
        a.device(),
        &out.iter().map(|&x| x as i64).collect::<Vec<_>>(),
        &[out.len()],
    )?;
    let shape: Vec<isize> = match axis {
        None => vec![-1],
        Some(_) => shape.iter().map(|&d| d as isize).collect(),
    };
    cupy::take(&flat, &gi)?.reshape(&shape)
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let kw = &case["kwargs"];
    let a = ops[0].array();
    let b = || ops[1].array();
    let part = kw["part"].as_str().unwrap_or("values");
    let assume_unique = kw["assume_unique"].as_bool().unwrap_or(false);
    match case["op"].as_str().unwrap() {
        "sort" => cupy::sort_with(a, axis_of(&kw["axis"])),
        "argsort" => cupy::argsort_with(a, axis_of(&kw["axis"])),
        "sort_complex" => cupy::sort_complex(a),
        "lexsort" => {
            let keys: Vec<&Array> = ops.iter().map(|o| o.array()).collect();
            cupy::lexsort_with(&keys, kw["axis"].as_i64().unwrap_or(-1) as isize)
        }
        op @ ("partition" | "argpartition") => {
            let kth: Vec<isize> = match &kw["kth"] {
                Value::Array(_) => common::isizes(&kw["kth"]),
                k => vec![k.as_i64().unwrap() as isize],
            };
            let axis = axis_of(&kw["axis"]);
            let vals = if op == "partition" {
                cupy::partition_with(a, kth.clone(), axis)?
            } else {
                let a1 = if a.ndim() == 0 {
                    a.reshape(&[1])?
                } else {
                    a.clone()
                };
                let idx = cupy::argpartition_with(a, kth.clone(), axis)?;
                gather_checked(&a1, &idx, axis)?
            };
            let (v, shape) = host(&vals)?;
            check_partition(&v, &shape, axis, &kth)?;
            cupy::sort_with(&vals, axis)
        }
        "searchsorted" => cupy::searchsorted_with(
            a,
            b(),
            cupy::SearchSorted {
                side: if kw["side"] == "right" {
                    cupy::Side::Right
                } else {
                    cupy::Side::Left
                },
                sorter: ops.get(2).map(|o| o.array()),
            },
        ),
        "digitize" => cupy::digitize_with(
            a,
            b(),
            cupy::Digitize {
                right: kw["right"].as_bool().unwrap_or(false),
            },
        ),
        "unique" => {
            let r = cupy::unique_with(
                a,
                cupy::Unique {
                    return_index: true,
                    return_inverse: true,
                    return_counts: true,
                    axis: axis_of(&kw["axis"]),
                    equal_nan: kw["equal_nan"].as_bool().unwrap_or(true),
                },
            )?;
            Ok(match part {
                "values" => r.values,
                "indices" => r.indices.unwrap(),
                "inverse" => r.inverse.unwrap(),
                _ => r.counts.unwrap(),
            })
        }
        "unique_values" => cupy::unique_values(a),
        "unique_counts" => {
            let r = cupy::unique_counts(a)?;
            Ok(if kw["part"] == 0 { r.values } else { r.counts })
        }
        "unique_inverse" => {
            let r = cupy::unique_inverse(a)?;
            Ok(if kw["part"] == 0 {
                r.values
            } else {
                r.inverse_indices
            })
        }
        "unique_all" => {
            let r = cupy::unique_all(a)?;
            Ok(match kw["part"].as_i64().unwrap() {
                0 => r.values,
                1 => r.indices,
                2 => r.inverse_indices,
                _ => r.counts,
            })
        }
        op @ ("isin" | "in1d") => {
            let o = cupy::IsIn {
                assume_unique: false,
                invert: kw["invert"].as_bool().unwrap_or(false),
            };
            if op == "isin" {
                cupy::isin_with(a, b(), o)
            } else {
                cupy::in1d_with(a, b(), o)
            }
        }
        "intersect1d" => {
            let r = cupy::intersect1d_with(
                a,
                b(),
                cupy::Intersect1d {
                    assume_unique,
                    return_indices: true,
                },
            )?;
            Ok(match part {
                "values" => r.values,
                "indices1" => r.indices1.unwrap(),
                _ => r.indices2.unwrap(),
            })
        }
        "union1d" => cupy::union1d(a, b()),
        "setdiff1d" => cupy::setdiff1d_with(a, b(), cupy::SetOpts { assume_unique }),
        "setxor1d" => cupy::setxor1d_with(a, b(), cupy::SetOpts { assume_unique }),
        op => panic!("unknown op {op}"),
    }
}

#[test]
fn sets_match_numpy() {
    common::run_group(
        "sets",
        exec,
        |_, _, _| Tol::EXACT,
        |case, e| match case["error"].as_str().unwrap_or("") {
            "AxisError" => matches!(e, Error::AxisOutOfRange { .. }),
            "ValueError" => matches!(e, Error::InvalidArgument { .. }),
            _ => common::generic_error_match(case, e),
        },
    );
}

/// The defaults, the method forms, and the errors NumPy has no golden for.
#[test]
fn sets_api() {
    let mut t = common::Tally::new("sets_api");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::from_slice_on(&dev, &[1.0f64, 2.0, 2.0, 3.0], &[4])?;
            let v = Array::from_slice_on(&dev, &[2.0f64, 0.0, 9.0], &[3])?;
            if cupy::searchsorted(&a, &v)?.to_vec::<i64>()? != vec![1, 0, 4] {
                return Err("searchsorted default side".to_string().into());
            }
            if cupy::searchsorted_with(&a, &v, cupy::Side::Right)?.to_vec::<i64>()? != vec![3, 0, 4]
            {
                return Err("searchsorted side=right".to_string().into());
            }
            let bad = Array::from_slice_on(&dev, &[0i64, 1, 2, 7], &[4])?;
            let e = cupy::searchsorted_with(
                &a,
                &v,
                cupy::SearchSorted {
                    side: cupy::Side::Left,
                    sorter: Some(&bad),
                },
            );
            if !matches!(e, Err(Error::IndexOutOfBounds { .. })) {
                return Err(format!("sorter index out of range: {e:?}").into());
            }
            let fs = Array::from_slice_on(&dev, &[0.0f64, 1.0, 2.0, 3.0], &[4])?;
            let e = cupy::searchsorted_with(
                &a,
                &v,
                cupy::SearchSorted {
                    side: cupy::Side::Left,
                    sorter: Some(&fs),
                },
            );
            if !matches!(e, Err(Error::TypeError { .. })) {
                return Err(format!("float sorter: {e:?}").into());
            }
            if cupy::unique(&a)?.to_vec::<f64>()? != vec![1.0, 2.0, 3.0] {
                return Err("unique".to_string().into());
            }
            if cupy::digitize(&v, &a)?.to_vec::<i64>()? != vec![3, 0, 4] {
                return Err("digitize".to_string().into());
            }
            let m = Array::from_slice_on(&dev, &[3i32, 1, 2, 9, 7, 8], &[2, 3])?;
            m.partition(1)?;
            if m.to_vec::<i32>()?[1] != 2 || m.to_vec::<i32>()?[4] != 8 {
                return Err(format!("a.partition(1): {:?}", m.to_vec::<i32>()?).into());
            }
            if !matches!(
                m.partition_with(0, None),
                Err(Error::InvalidArgument { .. })
            ) {
                return Err("in-place partition with axis=None is refused"
                    .to_string()
                    .into());
            }
            let p = m.argpartition([0isize, 2])?.to_vec::<i64>()?;
            if p != vec![0, 1, 2, 0, 1, 2] {
                return Err(format!("argpartition: {p:?}").into());
            }
            let keys = Array::from_slice_on(&dev, &[1i32, 0, 1, 0, 3, 3, 2, 2], &[2, 4])?;
            if cupy::lexsort_array(&keys, -1)?.to_vec::<i64>()? != vec![3, 2, 1, 0] {
                return Err("lexsort of a 2-d array".to_string().into());
            }
            let sv = Array::from_slice_on(&dev, &[1.5f64], &[1])?;
            if a.searchsorted(&sv)?.to_vec::<i64>()? != vec![1] {
                return Err("a.searchsorted".to_string().into());
            }
            // Weak scalars: an int into float64 data; 300 and -1 widen uint8 (NumPy's rule).
            let w = cupy::searchsorted_with(&a, 2, cupy::Side::Right)?;
            if w.shape() != [] as [usize; 0] || w.to_vec::<i64>()? != vec![3] {
                return Err(format!("searchsorted of a weak int: {w:?}").into());
            }
            let u8s = Array::from_slice_on(&dev, &[1u8, 200], &[2])?;
            if cupy::searchsorted(&u8s, 300)?.to_vec::<i64>()? != vec![2]
                || cupy::searchsorted(&u8s, -1)?.to_vec::<i64>()? != vec![0]
                || cupy::searchsorted(&u8s, 2.5)?.to_vec::<i64>()? != vec![1]
            {
                return Err("searchsorted weak scalars into uint8".to_string().into());
            }
            if !matches!(cupy::lexsort(&[]), Err(Error::TypeError { .. })) {
                return Err("lexsort of no keys".to_string().into());
            }
            // Every return_* combination gives the parts of the all-true call.
            let u = Array::from_slice_on(
                &dev,
                &[2.0f32, f32::NAN, 1.0, 2.0, f32::NAN, -0.0, 0.0],
                &[7],
            )?;
            let all = cupy::unique_with(
                &u,
                cupy::Unique {
                    return_index: true,
                    return_inverse: true,
                    return_counts: true,
                    ..Default::default()
                },
            )?;
            let v64 = |a: &Option<Array>| a.as_ref().map(|a| a.to_vec::<i64>()).transpose();
            for bits in 0..8 {
                let o = cupy::Unique {
                    return_index: bits & 1 != 0,
                    return_inverse: bits & 2 != 0,
                    return_counts: bits & 4 != 0,
                    ..Default::default()
                };
                let r = cupy::unique_with(&u, o)?;
                let same_values = r.values.to_bytes()? == all.values.to_bytes()?;
                let pick = |on: bool, a: &Option<Array>| if on { v64(a) } else { Ok(None) };
                if !same_values
                    || v64(&r.indices)? != pick(o.return_index, &all.indices)?
                    || v64(&r.inverse)? != pick(o.return_inverse, &all.inverse)?
                    || v64(&r.counts)? != pick(o.return_counts, &all.counts)?
                {
                    return Err(format!("unique return_* combination {o:?}").into());
                }
            }
            if all.counts.as_ref().map(|c| c.to_vec::<i64>()).transpose()? != Some(vec![2, 1, 2, 2])
            {
                return Err(format!("unique counts (equal_nan): {:?}", all.counts).into());
            }
            let x = Array::from_slice_on(&dev, &[1i64, 5, 3], &[3])?;
            let y = Array::from_slice_on(&dev, &[3i64, 4, 5], &[3])?;
            if cupy::intersect1d(&x, &y)?.to_vec::<i64>()? != vec![3, 5]
                || cupy::setdiff1d(&x, &y)?.to_vec::<i64>()? != vec![1]
                || cupy::setxor1d(&x, &y)?.to_vec::<i64>()? != vec![1, 4]
                || cupy::union1d(&x, &y)?.to_vec::<i64>()? != vec![1, 3, 4, 5]
                || cupy::isin(&x, &y)?.to_vec::<bool>()? != vec![false, true, true]
                || cupy::in1d(&x, &y)?.to_vec::<bool>()? != vec![false, true, true]
            {
                return Err("set defaults".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "api", r);
    }
    t.finish();
}

/// Random 1-d operands with few distinct values (ties, NaN, ±0 for floats): every backend gives
/// the same bytes for unique_all's parts (equal_nan=False), unique's values and counts
/// (equal_nan=True), searchsorted on both sides and isin, and `values[inverse]` rebuilds the
/// input with counts summing to its length.
mod props {
    use crate::common;
    use cupy::{Array, DType, Result};
    use proptest::prelude::*;

    const DTYPES: [DType; 7] = [
        DType::Bool,
        DType::Int8,
        DType::Int64,
        DType::UInt16,
        DType::Float16,
        DType::Float32,
        DType::Float64,
    ];

    fn data(dt: DType, n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let k = (s % 9) as i64 - 3;
                match dt {
                    DType::Bool => (k > 0) as i64 as f64,
                    DType::UInt16 => (k + 3) as f64,
                    d if d.is_float() && k == 5 => f64::NAN,
                    d if d.is_float() && k == -3 => -0.0,
                    _ => k as f64,
                }
            })
            .collect()
    }

    fn upload(dev: &cupy::Device, v: &[f64], dt: DType) -> Result<Array> {
        Array::from_slice_on(dev, v, &[v.len()])?.astype(dt)
    }

    fn run(dev: &cupy::Device, dt: DType, a: &[f64], b: &[f64]) -> Result<Vec<Vec<u8>>> {
        let x = upload(dev, a, dt)?;
        let y = cupy::sort(&upload(dev, b, dt)?)?;
        let all = cupy::unique_all(&x)?;
        let rebuilt = cupy::take(&all.values, &all.inverse_indices)?;
        let total: i64 = all.counts.to_vec::<i64>()?.iter().sum();
        let same = rebuilt.to_bytes()? == x.to_bytes()? || dt.is_float();
        if !same || total != a.len() as i64 {
            return Err(cupy::Error::invalid("props", "values[inverse] or counts"));
        }
        let u = cupy::unique_with(
            &x,
            cupy::Unique {
                return_counts: true,
                ..Default::default()
            },
        )?;
        let mut out = vec![];
        for arr in [
            all.values,
            all.indices,
            all.inverse_indices,
            all.counts,
            u.values,
            u.counts.unwrap(),
            cupy::searchsorted(&y, &x)?,
            cupy::searchsorted_with(&y, &x, cupy::Side::Right)?,
            cupy::isin(&x, &y)?,
        ] {
            out.push(arr.to_bytes()?);
        }
        Ok(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn backends_agree_on_unique_and_search(
            d in 0..DTYPES.len(), n in 0usize..300, m in 0usize..40, seed in any::<u64>()
        ) {
            let dt = DTYPES[d];
            let (a, b) = (data(dt, n, seed), data(dt, m, seed ^ 0x9e37));
            let mut first: Option<(String, Vec<Vec<u8>>)> = None;
            for dev in common::backends() {
                let r = match run(&dev, dt, &a, &b) {
                    Ok(r) => r,
                    Err(cupy::Error::DTypeNotSupported { .. }) => continue,
                    Err(e) => return Err(TestCaseError::fail(format!("[{}] {dt} n={n}: {e}", dev.label()))),
                };
                match &first {
                    None => first = Some((dev.label(), r)),
                    Some((l0, r0)) => prop_assert_eq!(r0, &r, "{} vs {} differ for {} n={}", l0, dev.label(), dt, n),
                }
            }
        }
    }
}

/// What the review of 2026-12-07 found: `digitize` with a NaN bin decides the direction as
/// NumPy's monotonicity check does (the first unequal neighbours, NaN unequal to all: `[0, nan]`
/// is decreasing), and `unique` of a 1-d array along axis 0 merges NaNs under `equal_nan` (NumPy
/// takes the flattened path for 1-d input). NumPy 2.4's values.
#[test]
fn nan_bins_and_one_dimensional_unique_along_an_axis() {
    for dev in common::backends() {
        let on = |v: &[f64]| Array::from_slice_on(&dev, v, &[v.len()]).unwrap();
        let nan = f64::NAN;
        let x = on(&[-1.0, 0.0, 0.5, 1.0, 2.0, nan, 3.0, f64::INFINITY]);
        let d = cupy::digitize(&x, &on(&[0.0, nan])).unwrap();
        assert_eq!(
            d.to_vec::<i64>().unwrap(),
            [2, 0, 0, 0, 0, 0, 0, 0],
            "{dev:?}"
        );
        // still refused: a rise after a fall
        assert!(
            cupy::digitize(&x, &on(&[1.0, 0.0, 2.0])).is_err(),
            "{dev:?}"
        );
        let a = on(&[2.0, nan, 1.0, 2.0, -0.0, 0.0, nan, 1.0]);
        let counted = |equal_nan| {
            let o = cupy::Unique {
                axis: Some(0),
                return_counts: true,
                equal_nan,
                ..Default::default()
            };
            let r = cupy::unique_with(&a, o).unwrap();
            let v = r.values.to_vec::<f64>().unwrap();
            (v.len(), r.counts.unwrap().to_vec::<i64>().unwrap())
        };
        assert_eq!(counted(true), (4, vec![2, 2, 2, 2]), "{dev:?}");
        assert_eq!(counted(false), (5, vec![2, 2, 2, 1, 1]), "{dev:?}");
    }
}
