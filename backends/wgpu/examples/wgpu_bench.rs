//! Quick throughput check of the wgpu backend's emitted kernels (median of 5 runs of `reps`
//! launches, wall time around `synchronize`). `cargo run -p cupy-wgpu --release --example wgpu_bench`
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
