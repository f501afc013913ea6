//! complex64/complex128 on a real CUDA device (each test skips with a notice without one):
//! every complex catalogue kernel against the cpu backend (bit-exact, except math functions:
//! 16 ulps per part or normwise, the device libm rounding differently; `pow` 16 * (4 +
//! |ln |z||) ulps normwise), in contiguous/vectorized and transposed (strided/tiled) launches;
//! sum/prod/mean reductions; cuBLAS C/Z GEMM.

use crate::catalogue;
use crate::complex_ref::{self, PARTS};
use cupy_core::backend::{Backend, BackendProvider, GemmCall, Operand, ReductionCall};
use cupy_core::{DType, Layout, Scalar};
use cupy_cuda::{CudaBackend, CudaProvider};
use num_complex::Complex;

fn backend() -> Option<CudaBackend> {
    match CudaProvider.probe() {
        Ok(_) => Some(CudaBackend::open(0).expect("open cuda:0")),
        Err(why) => {
            eprintln!("NOTICE: no CUDA device ({why}); skipping GPU test");
            None
        }
    }
}

#[test]
fn complex_kernels_match_the_cpu_backend() {
    let Some(be) = backend() else { return };
    let mut fails = vec![];
    let mut n = 0;
    for k in catalogue::complex_elementwise() {
        // Pow is exp(b log a): the device libm's rounding is amplified by |b log a| (on the
        // H200 up to 256 ulps normwise for results near 1e200, 18 near |z| = 1 with a large
        // phase; bound 16 * (4 + |ln |z||)), and an overflowed part's sign follows cos/sin of
        // a huge phase.
        let pow = k.name.starts_with("Pow");
        let ulps = if pow || complex_ref::uses_libm(&k) {
            16
        } else {
            0
        };
        for transposed in [false, true] {
            let got = complex_ref::run_layout(&be, &k, transposed);
            let want = if transposed {
                complex_ref::cpu_outputs_transposed(&k)
            } else {
                complex_ref::cpu_outputs(&k)
            };
            for ((d, g), w) in k.outputs.iter().zip(&got).zip(&want) {
                if let Err(e) = complex_ref::compare_with(*d, g, w, ulps, pow) {
                    fails.push(format!("{} (transposed: {transposed}): {e}", k.name));
                }
            }
            n += 1;
        }
    }
    assert!(
        fails.is_empty(),
        "{} of {n} complex launches differ from the cpu backend:\n{}",
        fails.len(),
        fails.join("\n")
    );
    eprintln!("{n} complex launches equal the cpu backend's");
}

/// sum / prod / mean of finite complex values over each axis and both of a [29, 29] input
/// (and its transpose), against the cpu backend within the summation-order bound.
#[test]
fn complex_reductions_match_the_cpu_backend() {
    let Some(be) = backend() else { return };
    reductions_vs_cpu(&be);
}

/// The test's plumbing, run with the cpu backend against itself (no GPU needed).
#[test]
fn complex_reductions_plumbing_on_the_cpu_backend() {
    reductions_vs_cpu(&cupy_cpu::CpuBackend::new());
}

fn reductions_vs_cpu(be: &dyn Backend) {
    let cpu = cupy_cpu::CpuBackend::new();
    let r = PARTS.len();
    let finite: Vec<f64> = PARTS
        .iter()
        .copied()
        .filter(|v| v.is_finite() && v.abs() <= 4.0)
        .collect();
    for k in catalogue::complex_reductions() {
        let d = k.acc[0];
        let vals: Vec<Scalar> = (0..r * r)
            .map(|i| {
                let z = Complex::new(finite[i % finite.len()], finite[(i * 5 + 3) % finite.len()]);
                // Products of 29 factors stay finite with factors near 1.
                let z = if k.name.starts_with("prod") {
                    Complex::new(1.0 + z.re / 16.0, z.im / 16.0)
                } else {
                    z
                };
                Scalar::Complex128(z).cast(d)
            })
            .collect();
        let mut bytes = vec![0u8; r * r * d.itemsize()];
        for (i, v) in vals.iter().enumerate() {
            v.write_le_bytes(&mut bytes[i * d.itemsize()..(i + 1) * d.itemsize()]);
        }
        for (what, lay, out_shape, red_shape) in [
            ("axis 1", Layout::contiguous(&[r, r]), vec![r], vec![r]),
            (
                "axis 0",
                Layout {
                    shape: vec![r, r],
                    strides: vec![1, r as isize],
                    offset: 0,
                },
                vec![r],
                vec![r],
            ),
            ("all", Layout::contiguous(&[r * r]), vec![], vec![r * r]),
        ] {
            let run = |b: &dyn Backend| {
                let x = b.alloc(d, r * r).unwrap();
                b.write(&x, 0, &bytes).unwrap();
                let no = out_shape.iter().product::<usize>();
                let o = b.alloc(d, no).unwrap();
                let params: Vec<Scalar> = k
                    .params
                    .iter()
                    .map(|p| Scalar::Float64(red_shape.iter().product::<usize>() as f64).cast(*p))
                    .collect();
                b.reduce(&ReductionCall {
                    kernel: &k,
                    out_shape: out_shape.clone(),
                    reduce_shape: red_shape.clone(),
                    inputs: vec![Operand {
                        buffer: &x,
                        layout: lay.clone(),
                    }],
                    output: Operand {
                        buffer: &o,
                        layout: Layout::contiguous(&out_shape),
                    },
                    params,
                    extra_outputs: vec![],
                })
                .unwrap_or_else(|e| panic!("{} {what}: {e}", k.name));
                b.read(&o, 0, no).unwrap()
            };
            let (g, w) = (run(be), run(&cpu));
            // Reordered sums and products: within 64 ulps of each output's magnitude.
            complex_ref::compare(d, &g, &w, 64)
                .unwrap_or_else(|e| panic!("{} {what}: {e}", k.name));
        }
    }
}

/// Complex GEMM through cuBLAS: row-major, transposed views, a stride-0 batch, a reversed
/// (copied) operand and a strided output; integer-valued parts, so every result is exact.
#[test]
fn complex_gemm_layouts() {
    let Some(be) = backend() else { return };
    gemm_layouts(&be);
}

/// The same checks on the cpu backend (faer), which also proves the test's host reference.
#[test]
fn complex_gemm_layouts_on_the_cpu_backend() {
    gemm_layouts(&cupy_cpu::CpuBackend::new());
}

fn gemm_layouts(be: &dyn Backend) {
    let (batch, m, k, n) = (3usize, 17usize, 23usize, 13usize);
    let av: Vec<Complex<f64>> = (0..batch * m * k)
        .map(|i| Complex::new(((i * 7) % 13) as f64 - 6.0, ((i * 3) % 5) as f64 - 2.0))
        .collect();
    let bv: Vec<Complex<f64>> = (0..batch * k * n)
        .map(|i| Complex::new(((i * 5) % 11) as f64 - 5.0, ((i * 2) % 7) as f64 - 3.0))
        .collect();
    let at = |buf: &[Complex<f64>], l: &Layout, z: usize, i: usize, j: usize| {
        buf[(l.offset as isize
            + z as isize * l.strides[0]
            + i as isize * l.strides[1]
            + j as isize * l.strides[2]) as usize]
    };
    let cases = [
        (
            "row-major",
            Layout::contiguous(&[batch, m, k]),
            Layout::contiguous(&[batch, k, n]),
        ),
        (
            "A^T view",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, 1, m as isize],
                offset: 0,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
        (
            "B^T view",
            Layout::contiguous(&[batch, m, k]),
            Layout {
                shape: vec![batch, k, n],
                strides: vec![(k * n) as isize, 1, k as isize],
                offset: 0,
            },
        ),
        (
            "stride-0 batch A",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![0, k as isize, 1],
                offset: 0,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
        (
            "negative stride A",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, -(k as isize), 1],
                offset: (m - 1) * k,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
    ];
    for dt in [DType::Complex64, DType::Complex128] {
        let up = |v: &[Complex<f64>]| {
            let b = be.alloc(dt, v.len()).unwrap();
            let mut bytes = vec![0u8; v.len() * dt.itemsize()];
            for (i, z) in v.iter().enumerate() {
                Scalar::Complex128(*z)
                    .cast(dt)
                    .write_le_bytes(&mut bytes[i * dt.itemsize()..(i + 1) * dt.itemsize()]);
            }
            be.write(&b, 0, &bytes).unwrap();
            b
        };
        let (a, b) = (up(&av), up(&bv));
        for (name, al, bl) in &cases {
            for strided_c in [false, true] {
                let (c, cl, cstride) = if strided_c {
                    let c = be.alloc(dt, batch * m * n * 2).unwrap();
                    (
                        c,
                        Layout {
                            shape: vec![batch, m, n],
                            strides: vec![(m * n * 2) as isize, (2 * n) as isize, 2],
                            offset: 0,
                        },
                        2,
                    )
                } else {
                    (
                        be.alloc(dt, batch * m * n).unwrap(),
                        Layout::contiguous(&[batch, m, n]),
                        1,
                    )
                };
                be.gemm(&GemmCall {
                    a: Operand {
                        buffer: &a,
                        layout: al.clone(),
                    },
                    b: Operand {
                        buffer: &b,
                        layout: bl.clone(),
                    },
                    c: Operand {
                        buffer: &c,
                        layout: cl,
                    },
                })
                .unwrap_or_else(|e| panic!("{dt} {name}: {e}"));
                let bytes = be.read(&c, 0, batch * m * n * cstride).unwrap();
                for z in 0..batch {
                    for i in 0..m {
                        for j in 0..n {
                            let w: Complex<f64> = (0..k)
                                .map(|p| at(&av, al, z, i, p) * at(&bv, bl, z, p, j))
                                .sum();
                            let e = ((z * m + i) * n + j) * cstride;
                            let g = Scalar::from_le_bytes(
                                dt,
                                &bytes[e * dt.itemsize()..(e + 1) * dt.itemsize()],
                            );
                            // Numeric equality (a sum may end in -0.0 where the reference
                            // has 0.0; `Scalar`'s own equality is bitwise).
                            let numeric = |s: Scalar| match s.cast(DType::Complex128) {
                                Scalar::Complex128(c) => c,
                                _ => unreachable!("cast to complex128"),
                            };
                            assert_eq!(
                                numeric(g),
                                numeric(Scalar::Complex128(w).cast(dt)),
                                "{dt} {name} (strided C: {strided_c}) at [{z}, {i}, {j}]"
                            );
                        }
                    }
                }
            }
        }
        // k = 0: zeros.
        let c = be.alloc(dt, 4).unwrap();
        let e = be.alloc(dt, 0).unwrap();
        be.gemm(&GemmCall {
            a: Operand {
                buffer: &e,
                layout: Layout::contiguous(&[1, 2, 0]),
            },
            b: Operand {
                buffer: &e,
                layout: Layout::contiguous(&[1, 0, 2]),
            },
            c: Operand {
                buffer: &c,
                layout: Layout::contiguous(&[1, 2, 2]),
            },
        })
        .unwrap();
        let got = be.read(&c, 0, 4).unwrap();
        assert!(got.iter().all(|&b| b == 0), "{dt} k = 0 gives zeros");
    }
}
