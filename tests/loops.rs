//! Long loops and deep expressions on every backend. Mesa's llvmpipe (the wgpu adapter of CI)
//! stops the loops of a shader invocation after 65,535 iterations in all and used to return
//! wrong numbers past that; naga used to refuse expressions nested more than 200 deep. Each case
//! stays small (well under a second on llvmpipe) and is checked against exact host arithmetic.

use crate::common;
use cupy::{fuse, Arg, Array, DType, ElementwiseKernel, Sym};

#[test]
fn user_kernel_for_loop_of_100000_iterations() {
    let k = ElementwiseKernel::new(
        "int64 x",
        "int64 y",
        "long long s = x; for (long long j = 0; j < 100000; j++) { s += j % 7; } y = s;",
        "long_for",
    )
    .unwrap();
    let want: i64 = (0..100_000i64).map(|j| j % 7).sum();
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let x = Array::from_slice_on(&dev, &[0i64, 1, 2, -5], &[4]).unwrap();
            let y = k.call(&[Arg::from(&x)]).unwrap().to_vec::<i64>().unwrap();
            assert_eq!(y, vec![want, want + 1, want + 2, want - 5], "{dev}");
        });
    }
}

#[test]
fn integer_matmul_with_k_70000() {
    let k = 70_000usize;
    let a: Vec<i32> = (0..2 * k).map(|i| (i % 13) as i32 - 6).collect();
    let b: Vec<i32> = (0..k * 3).map(|i| (i % 5) as i32 - 2).collect();
    let mut want = vec![0i32; 6];
    for i in 0..2 {
        for j in 0..3 {
            want[i * 3 + j] = (0..k).map(|p| a[i * k + p] * b[p * 3 + j]).sum();
        }
    }
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let ad = Array::from_slice_on(&dev, &a, &[2, k]).unwrap();
            let bd = Array::from_slice_on(&dev, &b, &[k, 3]).unwrap();
            match cupy::matmul(&ad, &bd) {
                Ok(c) => assert_eq!(c.to_vec::<i32>().unwrap(), want, "{dev}"),
                // cuda/hip refuse integer matmul (docs/backends.md, "Known problems").
                Err(e) => assert!(
                    matches!(e, cupy::Error::DTypeNotSupported { .. }),
                    "{dev}: {e}"
                ),
            }
        });
    }
}

#[test]
fn float_matmul_with_long_k() {
    // Exact in float32: small integers, sums below 2^24. On llvmpipe K goes in slices of 1,872
    // (one dispatch was wrong from K = 58,271 on: too slow a size for this test).
    let k = 8_000usize;
    let a: Vec<f32> = (0..3 * k).map(|i| ((i % 7) as f32) - 3.0).collect();
    let b: Vec<f32> = (0..k * 2).map(|i| ((i % 3) as f32) - 1.0).collect();
    let mut want = vec![0f32; 6];
    for i in 0..3 {
        for j in 0..2 {
            want[i * 2 + j] = (0..k).map(|p| a[i * k + p] * b[p * 2 + j]).sum();
        }
    }
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let ad = Array::from_slice_on(&dev, &a, &[3, k]).unwrap();
            let bd = Array::from_slice_on(&dev, &b, &[k, 2]).unwrap();
            let c = cupy::matmul(&ad, &bd).unwrap().to_vec::<f32>().unwrap();
            assert_eq!(c, want, "{dev}");
        });
    }
}

#[test]
fn sum_and_cumsum_of_a_70000_element_row() {
    let n = 70_000usize;
    let x: Vec<i32> = (0..2 * n).map(|i| (i % 11) as i32 - 5).collect();
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = Array::from_slice_on(&dev, &x, &[2, n]).unwrap();
            let s = a.sum_axis(1).unwrap().to_vec::<i64>().unwrap();
            let want: Vec<i64> = (0..2)
                .map(|r| x[r * n..(r + 1) * n].iter().map(|&v| v as i64).sum())
                .collect();
            assert_eq!(s, want, "{dev}");
            let c = cupy::cumsum_with(&a, 1).unwrap().to_vec::<i64>().unwrap();
            let mut acc = 0i64;
            for (i, got) in c.iter().enumerate() {
                if i % n == 0 {
                    acc = 0;
                }
                acc += x[i] as i64;
                assert_eq!(*got, acc, "{dev}: element {i}");
            }
        });
    }
}

#[test]
fn convolve2d_with_a_300_by_300_window() {
    // "valid" of two 300x300 arrays: one output, 90,000 taps in two nested loops.
    let n = 300usize;
    let a: Vec<f64> = (0..n * n).map(|i| (i % 7) as f64).collect();
    let b: Vec<f64> = (0..n * n).map(|i| (i % 3) as f64 - 1.0).collect();
    let want: f64 = (0..n * n).map(|i| a[i] * b[n * n - 1 - i]).sum();
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            if dev.backend().supports_dtype(DType::Float64).is_err() {
                return;
            }
            let ad = Array::from_slice_on(&dev, &a, &[n, n]).unwrap();
            let bd = Array::from_slice_on(&dev, &b, &[n, n]).unwrap();
            let c =
                cupy::scipy::signal::convolve2d_with(&ad, &bd, cupy::scipy::signal::Mode::Valid)
                    .unwrap();
            assert_eq!(c.to_vec::<f64>().unwrap(), vec![want], "{dev}");
        });
    }
}

#[test]
fn chains_of_250_and_500_terms() {
    let x = [1.5f32, -2.0, 0.25, 3.0];
    let f = fuse(|x: Sym| {
        let mut e = x;
        for _ in 0..499 {
            // Not `e += x`: `e` starts as an alias of the argument `x`, and an in-place update
            // of it would update `x` too (Python's semantics of `e = x; e += x`).
            let next = e + x;
            e = next;
        }
        e
    });
    // The kernel language takes expressions up to 256 levels deep: 250 terms (naga alone
    // stopped at 200).
    let body = format!("y = {};", vec!["x"; 250].join(" + "));
    let k = ElementwiseKernel::new("float32 x", "float32 y", &body, "chain").unwrap();
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let a = Array::from_slice_on(&dev, &x, &[4]).unwrap();
            let want: Vec<f32> = x.iter().map(|&v| v * 500.0).collect();
            let got = f.call(&[Arg::from(&a)]).unwrap().to_vec::<f32>().unwrap();
            assert_eq!(got, want, "{dev}: fuse");
            let got = k.call(&[Arg::from(&a)]).unwrap().to_vec::<f32>().unwrap();
            let want: Vec<f32> = x.iter().map(|&v| v * 250.0).collect();
            assert_eq!(got, want, "{dev}: ElementwiseKernel");
        });
    }
}
