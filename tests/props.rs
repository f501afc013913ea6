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

/// A transcendental ufunc case: op (exp log sin cos tanh power), float64 or float32, length
/// (crossing the cpu backend's 4096-lane blocks and 256-lane slow-path chunks), view (0
/// contiguous, 1 reversed, 2 every second element), seed.
#[derive(Debug, Clone)]
struct TSpec {
    op: usize,
    f64: bool,
    n: usize,
    view: u8,
    seed: u64,
}

const TOPS: [&str; 6] = ["exp", "log", "sin", "cos", "tanh", "power"];

fn tspec() -> impl Strategy<Value = TSpec> {
    (
        0..TOPS.len(),
        any::<bool>(),
        1usize..9000,
        0u8..3,
        any::<u64>(),
    )
        .prop_map(|(op, f64, n, view, seed)| TSpec {
            op,
            f64,
            n,
            view,
            seed,
        })
}

/// Values for `op`: log-uniform magnitudes over the function's interesting range (overflow,
/// underflow, subnormal results, huge sine arguments), random signs, and one in 16 a special
/// value (zeros, infinities, NaN, a subnormal).
fn tvalues(op: &str, wide: bool, n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (lo, hi): (f64, f64) = match (op, wide) {
        ("exp", false) => (-30.0, 7.0),
        ("exp", true) => (-30.0, 10.0),
        ("log", false) => (-149.0, 128.0),
        ("log", true) => (-1074.0, 1024.0),
        ("sin" | "cos", _) => (-20.0, 24.0),
        ("tanh", _) => (-30.0, 6.0),
        _ => (-20.0, 20.0),
    };
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        1.0,
        -1.0,
    ];
    let mut draw = |lo: f64, hi: f64, signed: bool| {
        let r = next();
        if r % 16 == 0 {
            return specials[(r >> 8) as usize % specials.len()];
        }
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let m = (lo + (hi - lo) * u).exp2();
        if signed && r & 0x10 != 0 {
            -m
        } else {
            m
        }
    };
    let x: Vec<f64> = (0..n).map(|_| draw(lo, hi, op != "log")).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let v = draw(-4.0, 5.0, true);
            if i % 4 == 0 {
                v.round()
            } else {
                v
            }
        })
        .collect();
    (x, y)
}

fn host_op(op: &str, x: f64, y: f64) -> f64 {
    match op {
        "exp" => x.exp(),
        "log" => x.ln(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tanh" => x.tanh(),
        _ => x.powf(y),
    }
}

fn to_bytes(v: &[f64], dt: DType) -> Vec<u8> {
    v.iter()
        .flat_map(|&x| {
            if dt == DType::Float32 {
                (x as f32).to_le_bytes().to_vec()
            } else {
                x.to_le_bytes().to_vec()
            }
        })
        .collect()
}

/// (result through the view, result of its contiguous copy, the host reference).
fn trun(dev: &Device, s: &TSpec) -> cupy::Result<(Array, Array, Vec<u8>)> {
    let op = TOPS[s.op];
    let dt = if s.f64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let step = if s.view == 2 { 2 } else { 1 };
    let (bx, by) = tvalues(op, s.f64, s.n * step, s.seed);
    let round = |v: f64| if s.f64 { v } else { v as f32 as f64 };
    let (bx, by): (Vec<f64>, Vec<f64>) = (
        bx.into_iter().map(round).collect(),
        by.into_iter().map(round).collect(),
    );
    let item = SliceItem::Slice {
        start: None,
        stop: None,
        step: if s.view == 1 { -1 } else { step as isize },
    };
    let view = |v: &[f64]| -> cupy::Result<Array> {
        Array::from_bytes_on(dev, &to_bytes(v, dt), &[v.len()], dt)?.slice(&[item])
    };
    let (a, b) = (view(&bx)?, view(&by)?);
    let logical = |v: &[f64]| -> Vec<f64> {
        match s.view {
            1 => v.iter().rev().copied().collect(),
            2 => v.iter().step_by(2).copied().collect(),
            _ => v.to_vec(),
        }
    };
    let (lx, ly) = (logical(&bx), logical(&by));
    let want: Vec<f64> = lx
        .iter()
        .zip(&ly)
        .map(|(&x, &y)| round(host_op(op, x, y)))
        .collect();
    let u = cupy::ufunc(op).expect("ufunc");
    let (ac, bc) = (a.copy()?, b.copy()?);
    let args = |x: &Array, y: &Array| -> cupy::Result<Array> {
        if op == "power" {
            cupy::apply(u, &[x.into(), y.into()], None)
        } else {
            cupy::apply(u, &[x.into()], None)
        }
    };
    Ok((args(&a, &b)?, args(&ac, &bc)?, to_bytes(&want, dt)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// exp, log, sin, cos, tanh and power of random float32/float64 values through views: on
    /// every backend the view and its contiguous copy give the same bits; on cpu the result is
    /// within 2 ulps of the C library evaluated in float64 (rounded once to float32).
    #[test]
    fn transcendental_ufuncs_match_libm(s in tspec()) {
        for dev in common::backends() {
            let (v, c, want) = match trun(&dev, &s) {
                Ok(r) => r,
                Err(cupy::Error::DTypeNotSupported { .. } | cupy::Error::Unsupported { .. }) => continue,
                Err(e) => return Err(TestCaseError::fail(format!("[{}] {s:?}: {e}", dev.label()))),
            };
            let sv = snapshot(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let sc = snapshot(&c).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&sv, &sc, "[{}] view vs contiguous copy differ for {:?}", dev.label(), s);
            // The GPU backends' accuracy is held to NumPy by the goldens (moderate inputs);
            // these ranges (overflow, huge sine arguments) are the cpu backend's contract.
            if dev.kind() == cupy::BackendKind::Cpu {
                if let Err(m) = common::compare_bytes(sv.0, &sv.2, &want, &common::Tol::Ulps(2)) {
                    return Err(TestCaseError::fail(format!("[{}] {:?}: {m}", dev.label(), s)));
                }
            }
        }
    }
}
