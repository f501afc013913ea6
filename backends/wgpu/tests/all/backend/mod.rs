//! Tests of the wgpu backend on whatever adapter wgpu finds (llvmpipe in CI). They skip, with a
//! printed notice, when no adapter exists.

use cupy_core::backend::{ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, Stmt, UnaryOp as U};
use cupy_core::{Backend, BackendProvider, Buffer, DType, Element, Error, Layout, Scalar};
use cupy_wgpu::{dtype_refusal, WgpuProvider};
use half::{bf16, f16};
use std::sync::{Arc, OnceLock};

fn dev() -> Option<Arc<dyn Backend>> {
    static DEV: OnceLock<Option<Arc<dyn Backend>>> = OnceLock::new();
    DEV.get_or_init(|| {
        let p = WgpuProvider;
        let list = match p.probe() {
            Ok(l) => l,
            Err(e) => {
                eprintln!("NOTICE: skipping wgpu backend tests: {e}");
                return None;
            }
        };
        let idx = std::env::var("CUPY_DEVICE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        eprintln!("wgpu tests on {}", list[idx].label());
        match p.open(idx) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("NOTICE: skipping wgpu backend tests: {e}");
                None
            }
        }
    })
    .clone()
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

fn run(
    d: &Arc<dyn Backend>,
    k: &Kernel,
    shape: &[usize],
    inputs: Vec<Operand<'_>>,
    outputs: Vec<Operand<'_>>,
    params: Vec<Scalar>,
) {
    d.elementwise(&ElementwiseCall {
        kernel: k,
        shape: shape.to_vec(),
        inputs,
        outputs,
        raws: vec![],
        params,
    })
    .unwrap();
}

fn bin(op_: B, t: DType) -> Kernel {
    Kernel::map(
        "bin",
        vec![t, t],
        vec![],
        Expr::binary(op_, Expr::input(0, t), Expr::input(1, t)),
    )
}

/// Applies a binary kernel to two 1-D arrays, contiguous.
fn bin_vals<T: Element, R: Element>(d: &Arc<dyn Backend>, o: B, a: &[T], b: &[T]) -> Vec<R> {
    let k = bin(o, T::DTYPE);
    let (x, y) = (up(d, a), up(d, b));
    let z = d.alloc(R::DTYPE, a.len()).unwrap();
    let l = Layout::contiguous(&[a.len()]);
    run(
        d,
        &k,
        &[a.len()],
        vec![op(&x, l.clone()), op(&y, l.clone())],
        vec![op(&z, l)],
        vec![],
    );
    down(d, &z)
}

mod bigarray;
mod convolve;
mod elementwise;
mod gemm;
mod reduce;
mod refusals;
mod tiled;
mod timing;
mod transfers;
