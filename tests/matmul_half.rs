//! float16 and bfloat16 `matmul` on every backend: accumulated in float32 and rounded once per
//! element, as NumPy's float16 loop does (`HALF_matmul_inner_noblas` sums in float).
//!
//! Exact cases use values whose float32 sums are exact in any order (multiples of 1/4 below
//! 2^11, so products are multiples of 1/16 and sums stay below 2^20), and so one rounding of
//! the true sum is the only right answer; `k = 4000` runs K in several dispatches on llvmpipe
//! and checks that only the last one rounds. Random values are compared with a float32
//! accumulation rounded once, within one ulp of the result type (the order of the float32 sum
//! may move a result across a rounding boundary).

use crate::common;
use cupy::half::{bf16, f16};
use cupy::{Array, DType};

fn mix(j: u64) -> u64 {
    let mut z = j.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `a @ b` of row-major `[m, k] @ [k, n]` in float64 (exact for the exact cases).
fn reference(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

/// Quarter-integers in [-2, 2] (exact case) or uniform in [-1, 1) rounded to the type.
fn values(n: usize, seed: u64, exact: bool, dt: DType) -> Vec<f64> {
    (0..n)
        .map(|j| {
            let r = mix(j as u64 * 7 + seed);
            let x = if exact {
                ((r % 17) as f64 - 8.0) / 4.0
            } else {
                (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            };
            round(dt, x)
        })
        .collect()
}

fn round(dt: DType, x: f64) -> f64 {
    if dt == DType::Float16 {
        f16::from_f64(x).to_f64()
    } else {
        bf16::from_f64(x).to_f64()
    }
}

/// One ulp of the type at `x`.
fn ulp(dt: DType, x: f64) -> f64 {
    let (mant, min_exp) = if dt == DType::Float16 {
        (10, -14)
    } else {
        (7, -126)
    };
    let e = if x == 0.0 {
        min_exp
    } else {
        (x.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

fn upload(dev: &cupy::Device, v: &[f64], shape: &[usize], dt: DType) -> Array {
    let a = Array::from_slice_on(dev, v, shape).unwrap();
    a.astype(dt).unwrap()
}

#[test]
fn half_matmul_accumulates_in_float32_and_rounds_once() {
    for dev in common::backends() {
        for dt in [DType::Float16, DType::BFloat16] {
            for (m, k, n, exact) in [
                (5, 300, 7, true),
                (3, 4000, 2, true),
                (70, 33, 65, false),
                (1, 1, 1, false),
            ] {
                let av = values(m * k, 1, exact, dt);
                let bv = values(k * n, 2, exact, dt);
                let a = upload(&dev, &av, &[m, k], dt);
                let b = upload(&dev, &bv, &[k, n], dt);
                let c = a
                    .matmul(&b)
                    .unwrap_or_else(|e| panic!("{dev:?} {dt} matmul: {e}"));
                assert_eq!(c.dtype(), dt);
                assert_eq!(c.shape(), &[m, n]);
                let got = c.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
                let want: Vec<f64> = reference(&av, &bv, m, k, n)
                    .into_iter()
                    .map(|x| round(dt, x))
                    .collect();
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    let tol = if exact { 0.0 } else { ulp(dt, *w) };
                    assert!(
                        (g - w).abs() <= tol,
                        "{dev:?} {dt} [{m}x{k}]@[{k}x{n}] element {i}: {g} vs {w} (tol {tol})"
                    );
                }
            }
        }
        // Batched and transposed operands go through the same kernel.
        let av = values(2 * 9 * 20, 3, true, DType::Float16);
        let a = upload(&dev, &av, &[2, 20, 9], DType::Float16)
            .transpose(&[0, 2, 1])
            .unwrap();
        let bv = values(20 * 4, 4, true, DType::Float16);
        let b = upload(&dev, &bv, &[20, 4], DType::Float16);
        let got = a
            .matmul(&b)
            .unwrap()
            .astype(DType::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        for bi in 0..2 {
            let at: Vec<f64> = (0..9 * 20)
                .map(|x| av[bi * 180 + (x % 20) * 9 + x / 20])
                .collect();
            let want: Vec<f64> = reference(&at, &bv, 9, 20, 4)
                .into_iter()
                .map(|x| round(DType::Float16, x))
                .collect();
            assert_eq!(
                &got[bi * 36..(bi + 1) * 36],
                &want[..],
                "{dev:?} batch {bi}"
            );
        }
    }
}
