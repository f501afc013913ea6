//! 64-bit atomic updates (`add_at`, `maximum_at`, `minimum_at`, `scatter_add/max/min`, the
//! atomic path of `ufunc.at`) of float64, int64 and uint64 with heavy index collisions, on every
//! backend. On wgpu these are 64-bit atomics where the adapter has SHADER_INT64_ATOMIC_ALL_OPS and
//! 32-bit word pairs (carry adds, a spin lock for the rest) where not; run this module with
//! `CUPY_WGPU_INT64_ATOMICS=0` for the second path on any adapter.
//!
//! Integers are compared exactly (wrapping sums, max/min over the full 64-bit range, values
//! that differ only in the low or only in the high word). Float sums are of integer-valued
//! floats below 2^53 (exact in any order); the sum of `0.1 * k`, which depends on the order, is
//! compared with the sequential sum within `n * eps * sum(|x|)`.

use crate::common;
use cupy::{Array, Device};

const N: usize = 1 << 15;
/// Targets: few, so every element is updated thousands of times.
const M: usize = 7;

/// splitmix64: deterministic 64-bit values.
fn mix(j: u64) -> u64 {
    let mut z = j.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn indices(dev: &Device) -> (Vec<i64>, Array) {
    let idx: Vec<i64> = (0..N as u64).map(|j| (mix(j) % M as u64) as i64).collect();
    let a = Array::from_slice_on(dev, &idx, &[N]).unwrap();
    (idx, a)
}

/// 64-bit patterns that stress both words: full-range values, values sharing the high word and
/// differing in the low word, and values sharing the low word.
fn bits(j: usize) -> u64 {
    let r = mix(j as u64 ^ 0x5151);
    match j % 3 {
        0 => r,
        1 => 0x8000_0001_0000_0000 ^ (r & 0xffff_ffff),
        _ => (r & 0xffff_ffff_0000_0000) | 0x7fff_ffff,
    }
}

#[test]
fn int64_uint64_add_max_min_exact_under_collisions() {
    for dev in common::backends() {
        let (idx, i) = indices(&dev);
        let vi: Vec<i64> = (0..N).map(|j| bits(j) as i64).collect();
        let vu: Vec<u64> = (0..N).map(bits).collect();
        let init_i: Vec<i64> = (0..M as i64).map(|k| (k - 3) << 40).collect();
        let init_u: Vec<u64> = (0..M as u64).map(|k| k << 33).collect();
        let vi_a = Array::from_slice_on(&dev, &vi, &[N]).unwrap();
        let vu_a = Array::from_slice_on(&dev, &vu, &[N]).unwrap();
        for op in ["add", "max", "min"] {
            let mut want_i = init_i.clone();
            let mut want_u = init_u.clone();
            for ((&k, &x), &y) in idx.iter().zip(&vi).zip(&vu) {
                let (wi, wu) = (&mut want_i[k as usize], &mut want_u[k as usize]);
                match op {
                    "add" => {
                        *wi = wi.wrapping_add(x);
                        *wu = wu.wrapping_add(y);
                    }
                    "max" => {
                        *wi = (*wi).max(x);
                        *wu = (*wu).max(y);
                    }
                    _ => {
                        *wi = (*wi).min(x);
                        *wu = (*wu).min(y);
                    }
                }
            }
            // add_at/maximum_at/minimum_at, then scatter_* on a fresh copy.
            for scatter in [false, true] {
                let ti = Array::from_slice_on(&dev, &init_i, &[M]).unwrap();
                let tu = Array::from_slice_on(&dev, &init_u, &[M]).unwrap();
                for (t, v) in [(&ti, &vi_a), (&tu, &vu_a)] {
                    match (op, scatter) {
                        ("add", false) => cupy::add_at(t, &i, v),
                        ("max", false) => cupy::maximum_at(t, &i, v),
                        ("min", false) => cupy::minimum_at(t, &i, v),
                        ("add", true) => t.scatter_add(&i, v, None),
                        ("max", true) => t.scatter_max(&i, v, None),
                        _ => t.scatter_min(&i, v, None),
                    }
                    .unwrap_or_else(|e| panic!("{dev:?} {op} scatter={scatter}: {e}"));
                }
                assert_eq!(
                    ti.to_vec::<i64>().unwrap(),
                    want_i,
                    "{dev:?} int64 {op} scatter={scatter}"
                );
                assert_eq!(
                    tu.to_vec::<u64>().unwrap(),
                    want_u,
                    "{dev:?} uint64 {op} scatter={scatter}"
                );
            }
        }
    }
}

#[test]
fn float64_add_max_min_under_collisions() {
    for dev in common::backends() {
        let (idx, i) = indices(&dev);
        // Integer-valued floats: every partial sum is exact (|sum| < 2^53), so any order gives
        // the one true sum; max/min over distinct magnitudes of both signs (no ±0 ties).
        let v: Vec<f64> = (0..N)
            .map(|j| ((mix(j as u64 + 77) % 2_000_001) as f64 - 1_000_000.0) * 1024.0 + 0.5)
            .collect();
        let init: Vec<f64> = (0..M).map(|k| k as f64 * 1e9 - 3e9).collect();
        let va = Array::from_slice_on(&dev, &v, &[N]).unwrap();
        for op in ["add", "max", "min"] {
            let mut want = init.clone();
            for (&k, &x) in idx.iter().zip(&v) {
                let w = &mut want[k as usize];
                *w = match op {
                    "add" => *w + x,
                    "max" => w.max(x),
                    _ => w.min(x),
                };
            }
            for scatter in [false, true] {
                let t = Array::from_slice_on(&dev, &init, &[M]).unwrap();
                match (op, scatter) {
                    ("add", false) => cupy::add_at(&t, &i, &va),
                    ("max", false) => cupy::maximum_at(&t, &i, &va),
                    ("min", false) => cupy::minimum_at(&t, &i, &va),
                    ("add", true) => t.scatter_add(&i, &va, None),
                    ("max", true) => t.scatter_max(&i, &va, None),
                    _ => t.scatter_min(&i, &va, None),
                }
                .unwrap_or_else(|e| panic!("{dev:?} float64 {op}: {e}"));
                assert_eq!(
                    t.to_vec::<f64>().unwrap(),
                    want,
                    "{dev:?} float64 {op} scatter={scatter}"
                );
            }
        }
        // NaN propagates as NumPy's maximum.at/minimum.at: a NaN among the updates of element
        // 2 (and a NaN initial value of element 5) leaves NaN there, whatever the order.
        let mut vn = v.clone();
        let mid = N / 2 + idx[N / 2..].iter().position(|&k| k == 2).unwrap();
        vn[mid] = f64::NAN;
        let vna = Array::from_slice_on(&dev, &vn, &[N]).unwrap();
        for op in ["max", "min"] {
            let mut init = init.clone();
            init[5] = f64::NAN;
            let t = Array::from_slice_on(&dev, &init, &[M]).unwrap();
            if op == "max" {
                cupy::maximum_at(&t, &i, &vna).unwrap();
            } else {
                cupy::minimum_at(&t, &i, &vna).unwrap();
            }
            let got = t.to_vec::<f64>().unwrap();
            for (k, g) in got.iter().enumerate() {
                let nan = k == 2 || k == 5;
                assert_eq!(g.is_nan(), nan, "{dev:?} float64 {op} NaN at {k}: {got:?}");
            }
        }
    }
}

/// The order-dependent case: `0.1 * k` summed in an unspecified order, within the bound of any
/// summation order of the sequential sum; and a 2-D `scatter_add` along axis 0 with repeats.
#[test]
fn float64_add_order_dependent_and_2d() {
    for dev in common::backends() {
        let (idx, i) = indices(&dev);
        let v: Vec<f64> = (0..N).map(|j| 0.1 * (j % 97) as f64).collect();
        let t = Array::from_slice_on(&dev, &[0.0f64; M], &[M]).unwrap();
        let va = Array::from_slice_on(&dev, &v, &[N]).unwrap();
        cupy::add_at(&t, &i, &va).unwrap();
        let got = t.to_vec::<f64>().unwrap();
        let (mut want, mut abs, mut cnt) = ([0.0f64; M], [0.0f64; M], [0usize; M]);
        for (&k, &x) in idx.iter().zip(&v) {
            want[k as usize] += x;
            abs[k as usize] += x.abs();
            cnt[k as usize] += 1;
        }
        for k in 0..M {
            let tol = 2.0 * cnt[k] as f64 * f64::EPSILON * abs[k];
            assert!(
                (got[k] - want[k]).abs() <= tol,
                "{dev:?} element {k}: {} vs {} (tol {tol})",
                got[k],
                want[k]
            );
        }
        // 2-D: a (M, 3) float64 target, rows scattered with repeats (exact: integer values).
        let rows = 4096usize;
        let ridx: Vec<i64> = (0..rows)
            .map(|j| (mix(j as u64 * 3) % M as u64) as i64)
            .collect();
        let rv: Vec<f64> = (0..rows * 3).map(|j| (j % 1000) as f64 - 500.0).collect();
        let ta = Array::from_slice_on(&dev, &[1.0f64; M * 3], &[M, 3]).unwrap();
        let ri = Array::from_slice_on(&dev, &ridx, &[rows]).unwrap();
        let rva = Array::from_slice_on(&dev, &rv, &[rows, 3]).unwrap();
        ta.scatter_add(&ri, &rva, Some(0)).unwrap();
        let mut want = vec![1.0f64; M * 3];
        for (r, &k) in ridx.iter().enumerate() {
            for c in 0..3 {
                want[k as usize * 3 + c] += rv[r * 3 + c];
            }
        }
        assert_eq!(ta.to_vec::<f64>().unwrap(), want, "{dev:?} 2-D scatter_add");
    }
}
