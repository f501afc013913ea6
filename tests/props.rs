//! Property tests: random shapes, layouts (transposed, reversed, stepped, broadcast) and dtypes
//! for add/multiply/sum. Every backend must agree bit for bit with every other (values are
//! multiples of 1/4 small enough that these sums and products are exact in every float dtype
//! used), and a view operand must give the same result as its contiguous copy.

use crate::common;
use cupy::{Array, Axes, DType, Device, Scalar, SliceItem};
use proptest::prelude::*;

const DTYPES: [DType; 9] = [
    DType::Bool,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt32,
    DType::Float32,
    DType::Float64,
];

#[derive(Debug, Clone)]
struct Spec {
    dtype: usize,
    shape: Vec<usize>,
    t1: (u8, usize),
    t2: (u8, usize),
    seed: u64,
    op: u8,
    axis: Option<usize>,
    keepdims: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0..DTYPES.len(),
        prop::collection::vec(0usize..6, 1..4),
        (0u8..5, 0usize..3),
        (0u8..5, 0usize..3),
        any::<u64>(),
        0u8..3,
        prop::option::of(0usize..3),
        any::<bool>(),
    )
        .prop_map(|(dtype, shape, t1, t2, seed, op, axis, keepdims)| Spec {
            dtype,
            shape,
            t1,
            t2,
            seed,
            op,
            axis,
            keepdims,
        })
}

fn values(n: usize, seed: u64, dtype: DType) -> Vec<u8> {
    let mut s = seed | 1;
    let mut out = vec![0u8; n * dtype.itemsize()];
    for c in out.chunks_exact_mut(dtype.itemsize()) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let k = (s % 127) as i64 - 63;
        let sc = if dtype.is_float() {
            Scalar::Float64(k as f64 / 4.0)
        } else if dtype.is_bool() {
            Scalar::Bool(k & 1 == 1)
        } else if matches!(dtype, DType::UInt8 | DType::UInt32) {
            Scalar::Int64(k.abs())
        } else {
            Scalar::Int64(k)
        };
        sc.cast(dtype).write_le_bytes(c);
    }
    out
}

/// An operand of `shape` built as a view of a base array through transform `t`.
fn operand(
    dev: &Device,
    dtype: DType,
    shape: &[usize],
    t: (u8, usize),
    seed: u64,
) -> cupy::Result<Array> {
    let nd = shape.len();
    let ax = t.1 % nd;
    let mut base = shape.to_vec();
    match t.0 {
        1 => base.reverse(),
        3 => base[ax] *= 2,
        4 => base[ax] = 1,
        _ => {}
    }
    let n: usize = base.iter().product();
    let a = Array::from_bytes_on(dev, &values(n, seed, dtype), &base, dtype)?;
    let full = SliceItem::Slice {
        start: None,
        stop: None,
        step: 1,
    };
    let mut items = vec![full; nd];
    match t.0 {
        1 => Ok(a.t()),
        2 => {
            items[ax] = SliceItem::Slice {
                start: None,
                stop: None,
                step: -1,
            };
            a.slice(&items)
        }
        3 => {
            items[ax] = SliceItem::Slice {
                start: None,
                stop: None,
                step: 2,
            };
            a.slice(&items)
        }
        4 => a.broadcast_to(shape),
        _ => Ok(a),
    }
}

/// Runs the spec on one device: (result of views, result of contiguous copies).
fn run(dev: &Device, s: &Spec) -> cupy::Result<(Array, Array)> {
    let dt = DTYPES[s.dtype];
    let a = operand(dev, dt, &s.shape, s.t1, s.seed)?;
    let b = operand(
        dev,
        dt,
        &s.shape,
        s.t2,
        s.seed.wrapping_mul(31).wrapping_add(7),
    )?;
    let (ac, bc) = (a.copy()?, b.copy()?);
    let axes = match s.axis {
        Some(x) if x < s.shape.len() => Axes::Some(vec![x as isize]),
        _ => Axes::All,
    };
    Ok(match s.op {
        0 => (cupy::add(&a, &b)?, cupy::add(&ac, &bc)?),
        1 => (cupy::multiply(&a, &b)?, cupy::multiply(&ac, &bc)?),
        _ => (
            cupy::sum_with(
                &a,
                cupy::Reduce {
                    axis: axes.clone(),
                    keepdims: s.keepdims,
                    ..Default::default()
                },
            )?,
            cupy::sum_with(
                &ac,
                cupy::Reduce {
                    axis: axes,
                    keepdims: s.keepdims,
                    ..Default::default()
                },
            )?,
        ),
    })
}

type Snapshot = (DType, Vec<usize>, Vec<u8>);

fn snapshot(a: &Array) -> cupy::Result<Snapshot> {
    Ok((a.dtype(), a.shape().to_vec(), a.to_bytes()?))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn backends_agree_on_add_multiply_sum(s in spec()) {
        let mut first: Option<(String, Snapshot)> = None;
        for dev in common::backends() {
            let (v, c) = match run(&dev, &s) {
                Ok(r) => r,
                Err(cupy::Error::DTypeNotSupported { .. }) => continue,
                Err(e) => return Err(TestCaseError::fail(format!("[{}] {s:?}: {e}", dev.label()))),
            };
            let sv = snapshot(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let sc = snapshot(&c).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&sv, &sc, "[{}] views vs contiguous copies differ for {:?}", dev.label(), s);
            match &first {
                None => first = Some((dev.label(), sv)),
                Some((l0, s0)) => prop_assert_eq!(s0, &sv, "{} vs {} differ for {:?}", l0, dev.label(), s),
            }
        }
    }
}
