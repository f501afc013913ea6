//! Emitter tests: every emitted shader is parsed and validated by naga.

use super::elementwise::elementwise_n_words;
use super::emitter::word;
use super::*;
use crate::error::Error;
use crate::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, ReduceKernel, Stmt};
use crate::kernel::ir::{BinaryOp as B, UnaryOp as U};
use crate::layout::Layout;
use crate::scalar::Scalar;

const INTS: [DType; 8] = [
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
];
const FLOATS: [DType; 4] = [
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

fn opts() -> WgslOptions {
    WgslOptions {
        shader_f64: true,
        shader_int64: true,
        int64_atomics: true,
        fused_fma: true,
        device: "wgpu:0 (test)".into(),
    }
}

fn validate(src: &str) {
    let module = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::FLOAT64
            | naga::valid::Capabilities::SHADER_INT64
            | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS
            | naga::valid::Capabilities::SUBGROUP,
    );
    v.validate(&module)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
}

fn specs(k: &Kernel) -> Vec<ElementwiseSpec> {
    let b = BindingPlan::distinct_for(k);
    let mut v = vec![];
    for (ndim, contiguous) in [(1, true), (1, false), (2, false), (4, false)] {
        v.push(ElementwiseSpec {
            ndim,
            contiguous,
            vec4: false,
            wide_int64: false,
            bindings: b.clone(),
        });
    }
    v.push(ElementwiseSpec {
        ndim: 3,
        contiguous: false,
        vec4: false,
        wide_int64: true,
        bindings: b.clone(),
    });
    if vec4_eligible(k) {
        v.push(ElementwiseSpec {
            ndim: 1,
            contiguous: true,
            vec4: true,
            wide_int64: false,
            bindings: b,
        });
    }
    v
}

/// Every spec, plain, with a loop guard, and (not vec4) windowed with a guard.
fn check_kernel(k: &Kernel) -> usize {
    check_kernel_with(k, &opts())
}

/// [`check_kernel`] on an adapter with options `o`.
fn check_kernel_with(k: &Kernel, o: &WgslOptions) -> usize {
    let mut n = 0;
    for s in specs(k) {
        for (guard, window) in [(false, false), (true, false), (true, true), (false, true)] {
            if window && s.vec4 {
                continue;
            }
            let mode = LoopMode { guard, window };
            let sh = emit_elementwise_with(k, &s, o, mode)
                .unwrap_or_else(|e| panic!("kernel {} spec {s:?} {mode:?}: {e}", k.name));
            validate(&sh.source);
            let words = elementwise_n_words(k, &s) + mode.extra_words();
            assert_eq!(sh.meta.n_words, words.div_ceil(4) * 4);
            n += 1;
        }
    }
    n
}

fn bin(op: BinaryOp, d: DType) -> Kernel {
    Kernel::map(
        "bin",
        vec![d, d],
        vec![],
        Expr::binary(op, Expr::input(0, d), Expr::input(1, d)),
    )
}

const BINOPS: [BinaryOp; 23] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::FloorDiv,
    B::Mod,
    B::Pow,
    B::Max,
    B::Min,
    B::FMax,
    B::FMin,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::Shl,
    B::Shr,
    B::Atan2,
];

mod complex;
mod deep;
mod elementwise;
mod loop_guard;
mod reduce;
mod scatter;
mod tiled;

/// A convolve2d-style kernel: loops over a window, `If` bounds, raw loads, index arithmetic.
pub(crate) fn convolve_kernel(d: DType) -> Kernel {
    let i64_ = DType::Int64;
    let c = |v: i64| Expr::constant(Scalar::Int64(v));
    let (w, kh, kw) = (
        Expr::param(0, i64_),
        Expr::param(1, i64_),
        Expr::param(2, i64_),
    );
    let h = Expr::param(3, i64_);
    let row = Expr::binary(B::Div, Expr::index(), w.clone());
    let col = Expr::binary(B::Mod, Expr::index(), w.clone());
    // locals: 0 acc (d), 1 ky, 2 kx, 3 y, 4 x
    let y = Expr::binary(B::Sub, Expr::binary(B::Add, row, Expr::var(1, i64_)), c(1));
    let x = Expr::binary(B::Sub, Expr::binary(B::Add, col, Expr::var(2, i64_)), c(1));
    let inb = Expr::binary(
        B::And,
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(3, i64_), c(0)),
            Expr::binary(B::Lt, Expr::var(3, i64_), h),
        ),
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(4, i64_), c(0)),
            Expr::binary(B::Lt, Expr::var(4, i64_), w.clone()),
        ),
    );
    let img = Expr::load(
        0,
        d,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(3, i64_), w),
            Expr::var(4, i64_),
        ),
    );
    let ker = Expr::load(
        1,
        d,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(1, i64_), kw.clone()),
            Expr::var(2, i64_),
        ),
    );
    Kernel {
        name: "convolve2d".into(),
        inputs: vec![],
        outputs: vec![d],
        raws: vec![d, d],
        params: vec![i64_, i64_, i64_, i64_],
        locals: vec![d, i64_, i64_, i64_, i64_],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::zero(d)),
            },
            Stmt::For {
                var: 1,
                start: c(0),
                end: kh,
                body: vec![Stmt::For {
                    var: 2,
                    start: c(0),
                    end: kw,
                    body: vec![
                        Stmt::Let { var: 3, value: y },
                        Stmt::Let { var: 4, value: x },
                        Stmt::If {
                            cond: inb,
                            then_body: vec![Stmt::Assign {
                                var: 0,
                                value: Expr::binary(
                                    B::Add,
                                    Expr::var(0, d),
                                    Expr::binary(B::Mul, img, ker),
                                ),
                            }],
                            else_body: vec![],
                        },
                    ],
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, d),
            },
        ],
    }
}

fn rspecs(k: &ReduceKernel) -> Vec<ReduceSpec> {
    let mut v = vec![];
    for mode in [ReduceMode::ThreadPerOutput, ReduceMode::GroupPerOutput] {
        for (o, r) in [(0, 1), (1, 1), (2, 0), (1, 2), (0, 3)] {
            for partial in [false, true] {
                let out = if partial { k.acc.clone() } else { k.outputs() };
                let spec = ReduceSpec {
                    out_ndim: o,
                    red_ndim: r,
                    mode,
                    partial,
                    wide_int64: false,
                    vec4: false,
                    subgroup: false,
                    bindings: BindingPlan::distinct(&k.inputs, &out, &[]),
                };
                if mode == ReduceMode::GroupPerOutput {
                    // vec4 loads (where the kernel allows them) and subgroup trees.
                    v.push(ReduceSpec {
                        vec4: r == 1 && reduce_vec4_eligible(k),
                        subgroup: true,
                        ..spec.clone()
                    });
                }
                v.push(spec);
            }
        }
    }
    v
}

/// `raw0[idx] (op)= value` (`op` None: a plain store), optionally also reading the element back
/// into an output.
pub(crate) fn scatter_kernel(d: DType, op: Option<AtomicOp>, read_back: bool) -> Kernel {
    let i = Expr::input(0, DType::Int64);
    let v = Expr::input(1, d);
    let w = match op {
        None => Stmt::StoreRaw {
            raw: 0,
            index: i.clone(),
            value: v,
        },
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index: i.clone(),
            value: v,
            old: None,
        },
    };
    let mut body = vec![w];
    if read_back {
        body.push(Stmt::Store {
            output: 0,
            value: Expr::load(0, d, i),
        });
    }
    Kernel {
        name: format!("scatter_{}_{op:?}", d.name()),
        inputs: vec![DType::Int64, d],
        outputs: if read_back { vec![d] } else { vec![] },
        raws: vec![d],
        params: vec![],
        locals: vec![],
        body,
    }
}
