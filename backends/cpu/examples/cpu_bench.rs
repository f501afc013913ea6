//! Quick timings of the CPU backend against the NumPy anchors in FACTS.md (median of runs).
use cupy_core::backend::{ElementwiseCall, GemmCall, Operand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, UnaryOp as U};
use cupy_core::{Backend, DType, Layout, Scalar};
use cupy_cpu::CpuBackend;
use std::time::Instant;

fn time(name: &str, reps: usize, mut f: impl FnMut()) {
    f();
    let mut ts: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{name}: {:.2} ms", ts[ts.len() / 2]);
}

fn main() {
    let be = CpuBackend::new();
    println!("{}", be.info().name);
    let n = 1usize << 24;
    let f32s = |n: usize| {
        let b = be.alloc(DType::Float32, n).unwrap();
        let v: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
        be.write(&b, 0, bytemuck::cast_slice(&v)).unwrap();
        b
    };
    let (a, b, c) = (f32s(n), f32s(n), f32s(n));
    let l = Layout::contiguous(&[n]);
    let t = DType::Float32;
    let add = Kernel::map(
        "add",
        vec![t, t],
        vec![],
        Expr::binary(B::Add, Expr::input(0, t), Expr::input(1, t)),
    );
    let op = |b| Operand {
        buffer: b,
        layout: l.clone(),
    };
    time("add f32 2^24 (out=)", 9, || {
        be.elementwise(&ElementwiseCall {
            kernel: &add,
            shape: vec![n],
            inputs: vec![op(&a), op(&b)],
            outputs: vec![op(&c)],
            raws: vec![],
            params: vec![],
        })
        .unwrap()
    });
    let exp = Kernel::map(
        "exp",
        vec![t],
        vec![],
        Expr::unary(U::Exp, Expr::input(0, t)),
    );
    time("exp f32 2^24 (out=)", 5, || {
        be.elementwise(&ElementwiseCall {
            kernel: &exp,
            shape: vec![n],
            inputs: vec![op(&a)],
            outputs: vec![op(&c)],
            raws: vec![],
            params: vec![],
        })
        .unwrap()
    });
    let sum = ReduceKernel::simple("sum", t, t, B::Add, Scalar::Int64(0), t);
    let o = be.alloc(t, 4096).unwrap();
    time("sum f32 2^24", 9, || {
        be.reduce(&ReductionCall {
            kernel: &sum,
            out_shape: vec![],
            reduce_shape: vec![n],
            inputs: vec![op(&a)],
            output: Operand {
                buffer: &o,
                layout: Layout::contiguous(&[]),
            },
            params: vec![],
            extra_outputs: vec![],
        })
        .unwrap()
    });
    let m = 4096usize;
    time("sum axis0 4096^2 f32", 9, || {
        be.reduce(&ReductionCall {
            kernel: &sum,
            out_shape: vec![m],
            reduce_shape: vec![m],
            inputs: vec![Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![m, m],
                    strides: vec![1, m as isize],
                    offset: 0,
                },
            }],
            output: Operand {
                buffer: &o,
                layout: Layout::contiguous(&[m]),
            },
            params: vec![],
            extra_outputs: vec![],
        })
        .unwrap()
    });
    time("sum axis1 4096^2 f32", 9, || {
        be.reduce(&ReductionCall {
            kernel: &sum,
            out_shape: vec![m],
            reduce_shape: vec![m],
            inputs: vec![Operand {
                buffer: &a,
                layout: Layout::contiguous(&[m, m]),
            }],
            output: Operand {
                buffer: &o,
                layout: Layout::contiguous(&[m]),
            },
            params: vec![],
            extra_outputs: vec![],
        })
        .unwrap()
    });
    let copy = Kernel::map("copy", vec![t], vec![], Expr::input(0, t));
    time("transpose copy 4096^2 f32", 5, || {
        be.elementwise(&ElementwiseCall {
            kernel: &copy,
            shape: vec![m, m],
            inputs: vec![Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![m, m],
                    strides: vec![1, m as isize],
                    offset: 0,
                },
            }],
            outputs: vec![Operand {
                buffer: &c,
                layout: Layout::contiguous(&[m, m]),
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap()
    });
    let g = 2048usize;
    let gl = Layout::contiguous(&[1, g, g]);
    time("matmul 2048 f32", 5, || {
        be.gemm(&GemmCall {
            a: Operand {
                buffer: &a,
                layout: gl.clone(),
            },
            b: Operand {
                buffer: &b,
                layout: gl.clone(),
            },
            c: Operand {
                buffer: &c,
                layout: gl.clone(),
            },
        })
        .unwrap()
    });
    // tiny-kernel overhead
    let small = f32s(16);
    let sl = Layout::contiguous(&[16]);
    let sop = |b| Operand {
        buffer: b,
        layout: sl.clone(),
    };
    time("1000 x add f32[16]", 5, || {
        for _ in 0..1000 {
            be.elementwise(&ElementwiseCall {
                kernel: &add,
                shape: vec![16],
                inputs: vec![sop(&small), sop(&small)],
                outputs: vec![sop(&c)],
                raws: vec![],
                params: vec![],
            })
            .unwrap()
        }
    });
}
