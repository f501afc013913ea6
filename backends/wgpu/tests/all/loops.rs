//! Long shader loops on the wgpu backend. Mesa's llvmpipe (CI's Vulkan driver) stops the loops of
//! an invocation after a shared budget of 65,535 iterations and then gives wrong numbers with no
//! error; these cases go past that budget and must still be right (the backend splits the work
//! across dispatches, or reports an error). Sizes stay small so each case runs well under a
//! second on llvmpipe. Skips with a notice when no adapter exists.

use cupy_core::backend::{
    ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall, ScanCall, ScanOp,
};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, Stmt};
use cupy_core::{Backend, BackendProvider, Buffer, DType, Element, Error, Layout, Scalar};
use cupy_wgpu::WgpuProvider;
use std::sync::{Arc, OnceLock};

fn dev() -> Option<Arc<dyn Backend>> {
    static DEV: OnceLock<Option<Arc<dyn Backend>>> = OnceLock::new();
    DEV.get_or_init(|| {
        let p = WgpuProvider;
        if let Err(e) = p.probe() {
            eprintln!("NOTICE: skipping wgpu loop tests: {e}");
            return None;
        }
        let idx = std::env::var("CUPY_DEVICE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        match p.open(idx) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("NOTICE: skipping wgpu loop tests: {e}");
                None
            }
        }
    })
    .clone()
}

/// The same adapter opened with a loop budget of 300 passes per invocation: every split path
/// (windows, K slices, scan spans, reduction chunks) runs at small sizes, on any driver.
fn small() -> Option<Arc<dyn Backend>> {
    static DEV: OnceLock<Option<Arc<dyn Backend>>> = OnceLock::new();
    DEV.get_or_init(|| {
        dev()?;
        let idx = std::env::var("CUPY_DEVICE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        WgpuProvider.open_with_loop_budget(idx, Some(300)).ok()
    })
    .clone()
}

fn is_llvmpipe(d: &Arc<dyn Backend>) -> bool {
    d.info().name.to_ascii_lowercase().contains("llvmpipe")
}

macro_rules! dev_or_skip {
    () => {
        match dev() {
            Some(d) => d,
            None => return,
        }
    };
}

fn up<T: Element>(d: &Arc<dyn Backend>, v: &[T]) -> Buffer {
    let b = d.alloc(T::DTYPE, v.len()).unwrap();
    d.write(&b, 0, T::slice_as_bytes(v)).unwrap();
    b
}

fn down<T: Element>(d: &Arc<dyn Backend>, b: &Buffer) -> Vec<T> {
    T::vec_from_bytes(&d.read(b, 0, b.len()).unwrap())
}

fn op(b: &Buffer, layout: Layout) -> Operand<'_> {
    Operand { buffer: b, layout }
}

fn i64c(v: i64) -> Expr {
    Expr::constant(Scalar::Int64(v))
}

fn var(k: usize, t: DType) -> Expr {
    Expr::var(k, t)
}

/// `out[i] = sum_{j < p0} (j % 7) + i` through an IR `For` (a user kernel's `for`).
fn long_for_kernel() -> Kernel {
    let i64t = DType::Int64;
    Kernel {
        name: "long_for".into(),
        inputs: vec![],
        outputs: vec![i64t],
        raws: vec![],
        params: vec![i64t],
        locals: vec![i64t, i64t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::index(),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: Expr::param(0, i64t),
                body: vec![Stmt::Assign {
                    var: 0,
                    value: Expr::binary(
                        B::Add,
                        var(0, i64t),
                        Expr::binary(B::Mod, var(1, i64t), i64c(7)),
                    ),
                }],
            },
            Stmt::Store {
                output: 0,
                value: var(0, i64t),
            },
        ],
    }
}

#[test]
fn ir_for_loop_past_65535_iterations() {
    let d = dev_or_skip!();
    let k = long_for_kernel();
    for (n, total) in [(100_000i64, 37usize), (65_536, 9), (3, 5), (0, 2)] {
        let out = d.alloc(DType::Int64, total).unwrap();
        d.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![total],
            inputs: vec![],
            outputs: vec![op(&out, Layout::contiguous(&[total]))],
            raws: vec![],
            params: vec![Scalar::Int64(n)],
        })
        .unwrap();
        let s: i64 = (0..n).map(|j| j % 7).sum();
        let want: Vec<i64> = (0..total as i64).map(|i| i + s).collect();
        assert_eq!(down::<i64>(&d, &out), want, "for of {n} iterations");
    }
}

/// `out = sum_{p < P} sum_{q < Q} (p * Q + q) % 5` through two nested IR `For`s, in float32.
fn nested_kernel() -> Kernel {
    let (i64t, f) = (DType::Int64, DType::Float32);
    let idx = Expr::binary(
        B::Add,
        Expr::binary(B::Mul, var(1, i64t), Expr::param(1, i64t)),
        var(2, i64t),
    );
    Kernel {
        name: "nested_for".into(),
        inputs: vec![f],
        outputs: vec![f],
        raws: vec![],
        params: vec![i64t, i64t],
        locals: vec![f, i64t, i64t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::input(0, f),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: Expr::param(0, i64t),
                body: vec![Stmt::For {
                    var: 2,
                    start: i64c(0),
                    end: Expr::param(1, i64t),
                    body: vec![Stmt::Assign {
                        var: 0,
                        value: Expr::binary(
                            B::Add,
                            var(0, f),
                            Expr::binary(B::Mod, idx.clone(), i64c(5)).cast(f),
                        ),
                    }],
                }],
            },
            Stmt::Store {
                output: 0,
                value: var(0, f),
            },
        ],
    }
}

#[test]
fn nested_ir_loops_300_by_300() {
    let d = dev_or_skip!();
    let k = nested_kernel();
    for (p, q) in [(300i64, 300i64), (2, 40_000), (70_000, 1), (1, 3)] {
        let n = 20usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let xb = up(&d, &x);
        let out = d.alloc(DType::Float32, n).unwrap();
        d.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![n],
            inputs: vec![op(&xb, Layout::contiguous(&[n]))],
            outputs: vec![op(&out, Layout::contiguous(&[n]))],
            raws: vec![],
            params: vec![Scalar::Int64(p), Scalar::Int64(q)],
        })
        .unwrap();
        let s: i64 = (0..p * q).map(|j| j % 5).sum();
        let want: Vec<f32> = x.iter().map(|&v| v + s as f32).collect();
        assert_eq!(down::<f32>(&d, &out), want, "{p} x {q}");
    }
}

/// `c[i] = sum_k a[k] * b[k]` over raw operands (the shape of the integer GEMM kernel).
fn dot_kernel(t: DType) -> Kernel {
    let i64t = DType::Int64;
    let step = Expr::binary(
        B::Add,
        var(0, t),
        Expr::binary(
            B::Mul,
            Expr::load(0, t, var(1, i64t)),
            Expr::load(1, t, var(1, i64t)),
        ),
    );
    Kernel {
        name: "dot_int".into(),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![t, t],
        params: vec![i64t],
        locals: vec![t, i64t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::zero(t)),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: Expr::param(0, i64t),
                body: vec![Stmt::Assign {
                    var: 0,
                    value: step,
                }],
            },
            Stmt::Store {
                output: 0,
                value: var(0, t),
            },
        ],
    }
}

#[test]
fn integer_dot_with_k_70000() {
    let d = dev_or_skip!();
    let k = 70_000usize;
    let a: Vec<i32> = (0..k).map(|i| (i % 13) as i32 - 6).collect();
    let b: Vec<i32> = (0..k).map(|i| (i % 5) as i32).collect();
    let (ab, bb) = (up(&d, &a), up(&d, &b));
    let kern = dot_kernel(DType::Int32);
    let out = d.alloc(DType::Int32, 3).unwrap();
    d.elementwise(&ElementwiseCall {
        kernel: &kern,
        shape: vec![3],
        inputs: vec![],
        outputs: vec![op(&out, Layout::contiguous(&[3]))],
        raws: vec![
            RawOperand {
                buffer: &ab,
                offset: 0,
                len: k,
            },
            RawOperand {
                buffer: &bb,
                offset: 0,
                len: k,
            },
        ],
        params: vec![Scalar::Int64(k as i64)],
    })
    .unwrap();
    let want: i32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    assert_eq!(down::<i32>(&d, &out), vec![want; 3]);
}

#[test]
fn float_gemm_with_long_k() {
    let d = dev_or_skip!();
    // Sliced K: the backend assumes the tiled shader's inner loops are not unrolled (522 loop
    // passes per 16 k, so 1,872 k per dispatch on llvmpipe). Mesa 22.3.6 unrolls most of them:
    // one dispatch there was right up to k = 58,255 (examples/loop_probe.rs), too slow a size
    // for this test.
    // Then the double-buffered 8x8 shape (the float64 default on hardware adapters), whose
    // dispatches each load their first slice before the loop.
    float_gemm_with_long_k_body(&d);
    cupy_wgpu::with_gemm_shape(cupy_wgpu::GemmShape::parse("8x8x8d").unwrap(), || {
        float_gemm_with_long_k_body(&d)
    });
}

fn float_gemm_with_long_k_body(d: &Arc<dyn Backend>) {
    let d = d.clone();
    let (m, n, k) = (2usize, 3usize, 8_000usize);
    let a: Vec<f32> = (0..m * k).map(|i| ((i % 7) as f32) - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i % 3) as f32) * 0.5).collect();
    let (ab, bb) = (up(&d, &a), up(&d, &b));
    let c = d.alloc(DType::Float32, m * n).unwrap();
    d.gemm(&GemmCall {
        a: op(&ab, Layout::contiguous(&[1, m, k])),
        b: op(&bb, Layout::contiguous(&[1, k, n])),
        c: op(&c, Layout::contiguous(&[1, m, n])),
    })
    .unwrap();
    let got = down::<f32>(&d, &c);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            let g = got[i * n + j] as f64;
            assert!(
                (g - want).abs() <= 1e-3 * want.abs().max(1.0),
                "c[{i},{j}] = {g}, want {want}"
            );
        }
    }
}

#[test]
fn cumsum_of_long_rows() {
    let d = dev_or_skip!();
    // 1,750,000 elements in one row: 6,836 chunks of 256, each costing about 10 loop passes
    // (llvmpipe stopped the single-dispatch scan after 1,677,600 elements).
    for (batch, n) in [(1usize, 1_750_000usize), (3, 70_000)] {
        let x: Vec<i32> = (0..batch * n).map(|i| (i % 3) as i32 - 1).collect();
        let xb = up(&d, &x);
        let y = d.alloc(DType::Int32, batch * n).unwrap();
        d.scan(&ScanCall {
            op: ScanOp::Sum,
            input: op(&xb, Layout::contiguous(&[batch, n])),
            output: op(&y, Layout::contiguous(&[batch, n])),
        })
        .unwrap();
        let got = down::<i32>(&d, &y);
        for r in 0..batch {
            let mut acc = 0i32;
            for j in 0..n {
                acc += x[r * n + j];
                assert_eq!(got[r * n + j], acc, "row {r} element {j} of {n}");
            }
        }
    }
}

fn run_long_for(d: &Arc<dyn Backend>, n: i64, total: usize) -> cupy_core::Result<Vec<i64>> {
    let k = long_for_kernel();
    let out = d.alloc(DType::Int64, total)?;
    d.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![total],
        inputs: vec![],
        outputs: vec![op(&out, Layout::contiguous(&[total]))],
        raws: vec![],
        params: vec![Scalar::Int64(n)],
    })?;
    Ok(i64::vec_from_bytes(&d.read(&out, 0, total)?))
}

#[test]
fn split_paths_under_a_small_budget() {
    let Some(d) = small() else { return };
    // Elementwise windows: one loop, nested loops (the inner one inside every window).
    for (n, total) in [(1000i64, 300usize), (299, 5), (7, 3)] {
        let s: i64 = (0..n).map(|j| j % 7).sum();
        let want: Vec<i64> = (0..total as i64).map(|i| i + s).collect();
        assert_eq!(run_long_for(&d, n, total).unwrap(), want, "for of {n}");
    }
    let k = nested_kernel();
    for (p, q) in [(30i64, 40i64), (3, 250)] {
        let n = 9usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let xb = up(&d, &x);
        let out = d.alloc(DType::Float32, n).unwrap();
        d.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![n],
            inputs: vec![op(&xb, Layout::contiguous(&[n]))],
            outputs: vec![op(&out, Layout::contiguous(&[n]))],
            raws: vec![],
            params: vec![Scalar::Int64(p), Scalar::Int64(q)],
        })
        .unwrap();
        let s: i64 = (0..p * q).map(|j| j % 5).sum();
        let want: Vec<f32> = x.iter().map(|&v| v + s as f32).collect();
        assert_eq!(down::<f32>(&d, &out), want, "{p} x {q}");
    }
    // One iteration past the budget cannot be split: a clear error, not wrong numbers.
    let e = d
        .elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![4],
            inputs: vec![op(&up(&d, &[0f32; 4]), Layout::contiguous(&[4]))],
            outputs: vec![op(
                &d.alloc(DType::Float32, 4).unwrap(),
                Layout::contiguous(&[4]),
            )],
            raws: vec![],
            params: vec![Scalar::Int64(2), Scalar::Int64(400)],
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::Unsupported { .. }) && e.to_string().contains("loop"),
        "{e}"
    );
    // GEMM in K slices of 16.
    let (m, n, kk) = (5usize, 3usize, 203usize);
    let a: Vec<f32> = (0..m * kk).map(|i| ((i % 7) as f32) - 3.0).collect();
    let b: Vec<f32> = (0..kk * n).map(|i| ((i % 3) as f32) * 0.5).collect();
    let c = d.alloc(DType::Float32, m * n).unwrap();
    d.gemm(&GemmCall {
        a: op(&up(&d, &a), Layout::contiguous(&[1, m, kk])),
        b: op(&up(&d, &b), Layout::contiguous(&[1, kk, n])),
        c: op(&c, Layout::contiguous(&[1, m, n])),
    })
    .unwrap();
    let got = down::<f32>(&d, &c);
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..kk).map(|p| a[i * kk + p] * b[p * n + j]).sum();
            assert_eq!(got[i * n + j], want, "c[{i},{j}]");
        }
    }
    // Scans in spans of 26 chunks (6,656 elements), in place and not.
    let (batch, len) = (2usize, 20_000usize);
    let x: Vec<f32> = (0..batch * len).map(|i| (i % 5) as f32).collect();
    for aliased in [false, true] {
        let xb = up(&d, &x);
        let y = if aliased {
            xb.clone()
        } else {
            d.alloc(DType::Float32, batch * len).unwrap()
        };
        d.scan(&ScanCall {
            op: ScanOp::Sum,
            input: op(&xb, Layout::contiguous(&[batch, len])),
            output: op(&y, Layout::contiguous(&[batch, len])),
        })
        .unwrap();
        let got = down::<f32>(&d, &y);
        for r in 0..batch {
            let mut acc = 0f32;
            for j in 0..len {
                acc += x[r * len + j];
                assert_eq!(
                    got[r * len + j],
                    acc,
                    "aliased {aliased} row {r} element {j}"
                );
            }
        }
    }
    // Reductions: whole array (workgroup per output) and along a strided axis (invocation per
    // output), chunked so every invocation stays under the budget; a float remainder in the map
    // (a helper loop of up to 560 passes per element) too.
    let len = 100_000usize;
    let x: Vec<f32> = (0..len).map(|i| (i % 10) as f32).collect();
    let xb = up(&d, &x);
    let sum = ReduceKernel::simple(
        "sum",
        DType::Float32,
        DType::Float32,
        B::Add,
        Scalar::Float32(0.0),
        DType::Float32,
    );
    let mut summod = sum.clone();
    summod.name = "sum_mod3".into();
    summod.map[0] = Expr::binary(
        B::Mod,
        Expr::input(0, DType::Float32),
        Expr::constant(Scalar::Float32(3.0)),
    );
    for (k, want) in [(&sum, 450_000f32), (&summod, 90_000f32)] {
        for (shape, red, strides) in [
            (vec![], vec![len], vec![1isize]),
            (vec![10], vec![len / 10], vec![1, 10]),
        ] {
            let out_n: usize = shape.iter().product();
            let out = d.alloc(DType::Float32, out_n.max(1)).unwrap();
            let mut full = shape.clone();
            full.extend(&red);
            d.reduce(&ReductionCall {
                kernel: k,
                out_shape: shape.clone(),
                reduce_shape: red.clone(),
                inputs: vec![op(
                    &xb,
                    Layout {
                        shape: full,
                        strides,
                        offset: 0,
                    },
                )],
                output: op(&out, Layout::contiguous(&shape)),
                params: vec![],
                extra_outputs: vec![],
            })
            .unwrap();
            let got: f32 = down::<f32>(&d, &out).iter().sum();
            assert_eq!(got, want, "{} over {shape:?} x {red:?}", k.name);
        }
    }
}

#[test]
fn loops_cut_by_the_driver_are_reported() {
    let Some(d0) = dev() else { return };
    if !is_llvmpipe(&d0) {
        return;
    }
    // Told the driver's cap is huge, the backend launches one dispatch; llvmpipe cuts the loop
    // and the guard turns the wrong result into an error at the read.
    let d = WgpuProvider
        .open_with_loop_budget(0, Some(1 << 40))
        .unwrap();
    let e = run_long_for(&d, 100_000, 4).unwrap_err();
    assert!(e.to_string().contains("long_for"), "{e}");
    assert!(e.to_string().contains("cut short"), "{e}");
    // The guard is reset: the next launch within the cap is fine.
    let s: i64 = (0..1000).map(|j| j % 7).sum();
    assert_eq!(run_long_for(&d, 1000, 2).unwrap(), vec![s, s + 1]);
}
