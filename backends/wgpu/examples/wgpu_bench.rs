//! Quick throughput check of the wgpu backend's emitted kernels (median of 5 runs of `reps`
//! launches, wall time around `synchronize`). `cargo run -p cupy-wgpu --release --example wgpu_bench`
//! (`big`: the H200 sizes). `wgpu_bench small`: host time per dispatch of a 1,000-element add
//! (batches of 50 recorded between synchronizes, which are not timed: no submit and no device
//! work on the host's cores while the calls are timed; median of 200 batches).
use cupy_core::backend::{ElementwiseCall, GemmCall, Operand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel};
use cupy_core::{Backend, BackendProvider, DType, Layout, Scalar};
use std::time::Instant;

fn time(d: &dyn Backend, reps: usize, f: &dyn Fn()) -> f64 {
    f();
    d.synchronize().unwrap();
    let mut v = vec![];
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        d.synchronize().unwrap();
        v.push(t.elapsed().as_secs_f64() * 1e3 / reps as f64);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[2]
}

fn main() {
    let p = cupy_wgpu::WgpuProvider;
    let list = p.probe().expect("no wgpu adapter");
    println!("{:?}", list);
    let d = p.open(0).unwrap();
    let d = d.as_ref();
    if std::env::args().nth(1).is_some_and(|s| s == "small") {
        small(d);
        return;
    }
    let big = std::env::args().nth(1).map(|s| s == "big").unwrap_or(false);
    let (n, side) = if big {
        (1usize << 28, 16384usize)
    } else {
        (1 << 22, 2048)
    };
    let f = DType::Float32;
    let a = d.alloc(f, n).unwrap();
    let b = d.alloc(f, n).unwrap();
    let c = d.alloc(f, n).unwrap();
    let l = Layout::contiguous(&[n]);
    let add = Kernel::map(
        "add",
        vec![f, f],
        vec![],
        Expr::binary(B::Add, Expr::input(0, f), Expr::input(1, f)),
    );
    let ms = time(d, 20, &|| {
        d.elementwise(&ElementwiseCall {
            kernel: &add,
            shape: vec![n],
            inputs: vec![
                Operand {
                    buffer: &a,
                    layout: l.clone(),
                },
                Operand {
                    buffer: &b,
                    layout: l.clone(),
                },
            ],
            outputs: vec![Operand {
                buffer: &c,
                layout: l.clone(),
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap()
    });
    println!(
        "{{\"case\":\"add f32 {n}\",\"ms\":{ms:.4},\"GB/s\":{:.1}}}",
        12.0 * n as f64 / ms / 1e6
    );
    let sum = ReduceKernel::simple("sum", f, f, B::Add, Scalar::Float32(0.0), f);
    let out = d.alloc(f, side).unwrap();
    let ms = time(d, 20, &|| {
        d.reduce(&ReductionCall {
            kernel: &sum,
            out_shape: vec![],
            reduce_shape: vec![n],
            inputs: vec![Operand {
                buffer: &a,
                layout: l.clone(),
            }],
            output: Operand {
                buffer: &out,
                layout: Layout::contiguous(&[]),
            },
            params: vec![],
            extra_outputs: vec![],
        })
        .unwrap()
    });
    println!(
        "{{\"case\":\"sum f32 {n}\",\"ms\":{ms:.4},\"GB/s\":{:.1}}}",
        4.0 * n as f64 / ms / 1e6
    );
    let sq = side * side;
    for axis in [0, 1] {
        let lay = if axis == 0 {
            Layout {
                shape: vec![side, side],
                strides: vec![1, side as isize],
                offset: 0,
            }
        } else {
            Layout::contiguous(&[side, side])
        };
        let ms = time(d, 20, &|| {
            d.reduce(&ReductionCall {
                kernel: &sum,
                out_shape: vec![side],
                reduce_shape: vec![side],
                inputs: vec![Operand {
                    buffer: &a,
                    layout: lay.clone(),
                }],
                output: Operand {
                    buffer: &out,
                    layout: Layout::contiguous(&[side]),
                },
                params: vec![],
                extra_outputs: vec![],
            })
            .unwrap()
        });
        println!(
            "{{\"case\":\"sum axis={axis} {side}^2 f32\",\"ms\":{ms:.4},\"GB/s\":{:.1}}}",
            4.0 * sq as f64 / ms / 1e6
        );
    }
    let m = if big { 4096 } else { 1024 };
    let lm = Layout::contiguous(&[1, m, m]);
    let ms = time(d, 3, &|| {
        d.gemm(&GemmCall {
            a: Operand {
                buffer: &a,
                layout: lm.clone(),
            },
            b: Operand {
                buffer: &b,
                layout: lm.clone(),
            },
            c: Operand {
                buffer: &c,
                layout: lm.clone(),
            },
        })
        .unwrap()
    });
    println!(
        "{{\"case\":\"matmul {m}^3 f32\",\"ms\":{ms:.4},\"TFLOP/s\":{:.2}}}",
        2.0 * (m as f64).powi(3) / ms / 1e9
    );
}

/// `wgpu_bench small` (see the module docs).
fn small(d: &dyn Backend) {
    let f = DType::Float32;
    let n = 1000;
    let (a, b, c) = (
        d.alloc(f, n).unwrap(),
        d.alloc(f, n).unwrap(),
        d.alloc(f, n).unwrap(),
    );
    let l = Layout::contiguous(&[n]);
    let add = Kernel::map(
        "add",
        vec![f, f],
        vec![],
        Expr::binary(B::Add, Expr::input(0, f), Expr::input(1, f)),
    );
    let call = || {
        d.elementwise(&ElementwiseCall {
            kernel: &add,
            shape: vec![n],
            inputs: vec![
                Operand {
                    buffer: &a,
                    layout: l.clone(),
                },
                Operand {
                    buffer: &b,
                    layout: l.clone(),
                },
            ],
            outputs: vec![Operand {
                buffer: &c,
                layout: l.clone(),
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap()
    };
    const BATCH: usize = 50;
    let mut us = vec![];
    for rep in 0..220 {
        d.synchronize().unwrap();
        let t = Instant::now();
        for _ in 0..BATCH {
            call();
        }
        if rep >= 20 {
            us.push(t.elapsed().as_secs_f64() * 1e6 / BATCH as f64);
        }
    }
    d.synchronize().unwrap();
    us.sort_by(|x, y| x.partial_cmp(y).unwrap());
    println!(
        "{{\"case\":\"host us per dispatch, add f32 {n}\",\"median\":{:.2},\"p10\":{:.2},\"p90\":{:.2}}}",
        us[us.len() / 2],
        us[us.len() / 10],
        us[us.len() * 9 / 10]
    );
}
