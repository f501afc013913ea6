//! Kernels covering every op and dtype class, shared by the hipRTC compile test and GPU tests.

use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel, UnaryOp};
use cupy_core::{DType, Scalar};

pub const REAL: [DType; 13] = [
    DType::Bool,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

pub const COMPLEX: [DType; 2] = [DType::Complex64, DType::Complex128];

pub fn binary_ops(d: DType) -> Vec<BinaryOp> {
    use BinaryOp::*;
    let cmp = [Eq, Ne, Lt, Le, Gt, Ge];
    let mut v: Vec<BinaryOp> = cmp.to_vec();
    if d.is_complex() {
        v.extend([Add, Sub, Mul, Div, Pow, Max, Min, FMax, FMin]);
    } else if d == DType::Bool {
        v.extend([And, Or, Xor, Add, Mul, Max, Min]);
    } else if d.is_integer() {
        v.extend([
            Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min, FMax, FMin, And, Or, Xor, Shl, Shr,
        ]);
    } else {
        v.extend([
            Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min, FMax, FMin, Atan2,
        ]);
    }
    v
}

pub fn unary_ops(d: DType) -> Vec<UnaryOp> {
    use UnaryOp::*;
    if d.is_complex() {
        vec![
            Neg, Abs, Not, Sqrt, Exp, Log, Sin, Cos, Tan, Tanh, IsNan, IsInf, IsFinite,
        ]
    } else if d == DType::Bool {
        vec![Not, BitNot, IsNan]
    } else if d.is_integer() {
        vec![Neg, Abs, Not, BitNot, IsNan, IsInf, IsFinite]
    } else {
        vec![
            Neg, Abs, Not, Sqrt, Exp, Log, Sin, Cos, Tan, Tanh, Floor, Ceil, IsNan, IsInf, IsFinite,
        ]
    }
}

pub fn short(d: DType) -> &'static str {
    match d {
        DType::Bool => "b",
        DType::Int8 => "i8",
        DType::Int16 => "i16",
        DType::Int32 => "i32",
        DType::Int64 => "i64",
        DType::UInt8 => "u8",
        DType::UInt16 => "u16",
        DType::UInt32 => "u32",
        DType::UInt64 => "u64",
        DType::Float16 => "f16",
        DType::BFloat16 => "bf16",
        DType::Float32 => "f32",
        DType::Float64 => "f64",
        DType::Complex64 => "c64",
        DType::Complex128 => "c128",
    }
}

pub fn binary(op: BinaryOp, d: DType) -> Kernel {
    Kernel::map(
        &format!("{op:?}_{}", short(d)),
        vec![d, d],
        vec![],
        Expr::binary(op, Expr::input(0, d), Expr::input(1, d)),
    )
}

pub fn unary(op: UnaryOp, d: DType) -> Kernel {
    Kernel::map(
        &format!("{op:?}_{}", short(d)),
        vec![d],
        vec![],
        Expr::unary(op, Expr::input(0, d)),
    )
}

pub fn cast(from: DType, to: DType) -> Kernel {
    Kernel::map(
        &format!("cast_{}_{}", short(from), short(to)),
        vec![from],
        vec![],
        Expr::input(0, from).cast(to),
    )
}

/// All elementwise kernels of the catalogue.
pub fn elementwise() -> Vec<Kernel> {
    let mut v = vec![];
    for d in REAL {
        for op in binary_ops(d) {
            v.push(binary(op, d));
        }
        for op in unary_ops(d) {
            v.push(unary(op, d));
        }
        for t in REAL {
            if t != d {
                v.push(cast(d, t));
            }
        }
        // fill (zero inputs) and arange-like index kernels
        v.push(Kernel::map(
            &format!("fill_{}", short(d)),
            vec![],
            vec![d],
            Expr::param(0, d),
        ));
        v.push(Kernel::map(
            &format!("arange_{}", short(d)),
            vec![],
            vec![DType::Float64, DType::Float64],
            Expr::binary(
                BinaryOp::Add,
                Expr::param(0, DType::Float64),
                Expr::binary(
                    BinaryOp::Mul,
                    Expr::index().cast(DType::Float64),
                    Expr::param(1, DType::Float64),
                ),
            )
            .cast(d),
        ));
    }
    v
}

/// Every complex elementwise kernel: each binary and unary op the IR defines for complex,
/// `absolute` typed real (NumPy's `F->f` loop), casts to and from every real dtype and between
/// the complex types, fill and an index kernel.
pub fn complex_elementwise() -> Vec<Kernel> {
    let mut v = vec![];
    for d in COMPLEX {
        for op in binary_ops(d) {
            v.push(binary(op, d));
        }
        for op in unary_ops(d) {
            v.push(unary(op, d));
        }
        v.push(Kernel::map(
            &format!("absolute_{}", short(d)),
            vec![d],
            vec![],
            Expr {
                ty: d.real_dtype(),
                kind: cupy_core::kernel::ir::ExprKind::Unary(
                    UnaryOp::Abs,
                    Box::new(Expr::input(0, d)),
                ),
            },
        ));
        for t in REAL.into_iter().chain(COMPLEX) {
            if t != d {
                v.push(cast(d, t));
                if !t.is_complex() {
                    v.push(cast(t, d));
                }
            }
        }
        v.push(Kernel::map(
            &format!("fill_{}", short(d)),
            vec![],
            vec![d],
            Expr::param(0, d),
        ));
        // z = p0 * i + (1 - 2j): complex constants, parameters, index casts.
        v.push(Kernel::map(
            &format!("ramp_{}", short(d)),
            vec![],
            vec![d],
            Expr::binary(
                BinaryOp::Add,
                Expr::binary(BinaryOp::Mul, Expr::param(0, d), Expr::index().cast(d)),
                Expr::constant(Scalar::Complex128(num_complex::Complex::new(1.0, -2.0)).cast(d)),
            ),
        ));
    }
    v
}

/// sum / prod / mean of each complex dtype.
pub fn complex_reductions() -> Vec<ReduceKernel> {
    let mut v = vec![];
    for d in COMPLEX {
        v.push(ReduceKernel::simple(
            &format!("sum_{}", short(d)),
            d,
            d,
            BinaryOp::Add,
            Scalar::zero(d),
            d,
        ));
        v.push(ReduceKernel::simple(
            &format!("prod_{}", short(d)),
            d,
            d,
            BinaryOp::Mul,
            Scalar::one(d),
            d,
        ));
        let mut mean = ReduceKernel::simple(
            &format!("mean_{}", short(d)),
            d,
            d,
            BinaryOp::Add,
            Scalar::zero(d),
            d,
        );
        mean.params = vec![d];
        mean.post = Expr::binary(BinaryOp::Div, Expr::var(0, d), Expr::param(0, d));
        v.push(mean);
    }
    v
}

/// sum / max / min reductions of every real dtype.
pub fn reductions() -> Vec<ReduceKernel> {
    let mut v = vec![];
    for d in REAL {
        let acc = match d {
            DType::Float16 | DType::BFloat16 => DType::Float32,
            DType::Bool => DType::Int64,
            d if d.is_signed_integer() => DType::Int64,
            d if d.is_unsigned_integer() => DType::UInt64,
            d => d,
        };
        v.push(ReduceKernel::simple(
            &format!("sum_{}", short(d)),
            d,
            acc,
            BinaryOp::Add,
            Scalar::zero(acc),
            acc,
        ));
        v.push(ReduceKernel::simple(
            &format!("max_{}", short(d)),
            d,
            d,
            BinaryOp::Max,
            Scalar::min_value(d),
            d,
        ));
        v.push(ReduceKernel::simple(
            &format!("min_{}", short(d)),
            d,
            d,
            BinaryOp::Min,
            Scalar::max_value(d),
            d,
        ));
    }
    // mean: post = Var(0) / Param(0)
    let mut mean = ReduceKernel::simple(
        "mean_f32",
        DType::Float32,
        DType::Float32,
        BinaryOp::Add,
        Scalar::Float32(0.0),
        DType::Float32,
    );
    mean.params = vec![DType::Float32];
    mean.post = Expr::binary(
        BinaryOp::Div,
        Expr::var(0, DType::Float32),
        Expr::param(0, DType::Float32),
    );
    v.push(mean);
    v
}

/// The tuple-accumulator reductions: argmax/argmin (value, index) and var/std (count, mean,
/// M2) over the dtype classes that emit differently (narrow integers widened, float16 in
/// float32, 64-bit, bool, complex).
pub fn tuple_reductions() -> Vec<ReduceKernel> {
    use cupy_core::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    let mut v = vec![];
    for d in [
        DType::Bool,
        DType::Int8,
        DType::UInt8,
        DType::Int64,
        DType::UInt64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        for w in [Extreme::Max, Extreme::Min] {
            let mut k = arg_extreme(d, w);
            k.name = format!("{}_{}", k.name, short(d));
            v.push(k);
        }
    }
    for d in [
        DType::Int32,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        for m in [Moment::Var, Moment::Std] {
            let mut k = moments(d, m);
            k.name = format!("{}_{}", k.name, short(d));
            v.push(k);
        }
    }
    v.extend(merged_reductions());
    v
}

/// Reductions of several outputs (`ReduceKernel::merge`, as `fuse` merges independent
/// reductions): a plain sum (or max for bool), argmax (a tuple without fold) and, for numeric
/// dtypes, var (a Welford tuple with a fold and a parameter), each with its own output dtype.
pub fn merged_reductions() -> Vec<ReduceKernel> {
    use cupy_core::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    let mut v = vec![];
    for d in [
        DType::Bool,
        DType::Int8,
        DType::Int32,
        DType::Float16,
        DType::Float32,
        DType::Float64,
    ] {
        let first = if d == DType::Bool {
            ReduceKernel::simple("max", d, d, BinaryOp::Max, Scalar::Bool(false), d)
        } else {
            let acc = match d {
                DType::Int8 | DType::Int32 => DType::Int64,
                DType::Float16 => DType::Float32,
                d => d,
            };
            let out = if d == DType::Float16 { d } else { acc };
            ReduceKernel::simple(
                "sum",
                d,
                acc,
                BinaryOp::Add,
                Scalar::Int64(0).cast(acc),
                out,
            )
        };
        let mut parts = vec![first, arg_extreme(d, Extreme::Max)];
        if d != DType::Bool {
            parts.push(moments(d, Moment::Var));
        }
        let name = format!("merged_{}", short(d));
        v.push(ReduceKernel::merge(&name, &parts, 0).expect("merge"));
    }
    v
}
