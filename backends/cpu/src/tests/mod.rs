//! Unit tests calling the backend directly with hand-built IR kernels and layouts.

use crate::*;
use cupy_core::backend::{ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, Stmt, UnaryOp as U};
use cupy_core::{DType, Element, Layout, Scalar};
use half::{bf16, f16};
use num_complex::Complex;

use DType::*;

fn be() -> CpuBackend {
    CpuBackend::new()
}

fn up<T: Element>(be: &CpuBackend, v: &[T]) -> Buffer {
    let b = be.alloc(T::DTYPE, v.len()).unwrap();
    be.write(&b, 0, T::slice_as_bytes(v)).unwrap();
    b
}

fn down<T: Element>(be: &CpuBackend, b: &Buffer) -> Vec<T> {
    T::vec_from_bytes(&be.read(b, 0, b.len()).unwrap())
}

fn c1(n: usize) -> Layout {
    Layout::contiguous(&[n])
}

fn inp(k: usize, t: DType) -> Expr {
    Expr::input(k, t)
}
fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn k1(t: DType, c: impl Into<Scalar>) -> Expr {
    Expr::constant(c.into().cast(t))
}

/// Runs a kernel over contiguous 1-D operands; returns output 0's buffer.
fn run_map(be: &CpuBackend, k: &Kernel, ins: &[&Buffer], n: usize, params: Vec<Scalar>) -> Buffer {
    let out = be.alloc(k.outputs[0], n).unwrap();
    let call = ElementwiseCall {
        kernel: k,
        shape: vec![n],
        inputs: ins
            .iter()
            .map(|b| Operand {
                buffer: b,
                layout: c1(n),
            })
            .collect(),
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(n),
        }],
        raws: vec![],
        params,
    };
    be.elementwise(&call).unwrap();
    out
}

/// `op(a, b)` elementwise over two vectors of `T`, result of type `R`.
fn binop<T: Element, R: Element>(op: B, a: &[T], b: &[T]) -> Vec<R> {
    let be = be();
    let t = T::DTYPE;
    let k = Kernel::map("t", vec![t, t], vec![], bin(op, inp(0, t), inp(1, t)));
    let (x, y) = (up(&be, a), up(&be, b));
    let o = run_map(&be, &k, &[&x, &y], a.len(), vec![]);
    down(&be, &o)
}

fn unop<T: Element, R: Element>(op: U, a: &[T]) -> Vec<R> {
    let be = be();
    let k = Kernel::map(
        "t",
        vec![T::DTYPE],
        vec![],
        Expr::unary(op, inp(0, T::DTYPE)),
    );
    let x = up(&be, a);
    let o = run_map(&be, &k, &[&x], a.len(), vec![]);
    down(&be, &o)
}

mod gemm;
mod kernels;
mod ops;
mod reduce;
mod scatter;
