//! Expressions: names of what an expression reads, math functions, unary and binary operators
//! (real and complex).

use super::types::{
    cast_expr, complex_unsupported, compute_type, is_f32ish, literal, load_conv, round_to,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{BinaryOp, Expr, ExprKind, UnaryOp};

/// How names of the things an expression reads are spelled at the emission point.
pub(super) struct Names<'a> {
    /// Compute-typed inputs.
    pub(super) inputs: &'a dyn Fn(usize) -> String,
    /// The flat index (an expression convertible to cp_i64).
    pub(super) index: String,
    /// The kernel's entry name (prefix of its atomic helpers).
    pub(super) entry: String,
}

fn math1(op: UnaryOp, d: DType) -> &'static str {
    let f = is_f32ish(d);
    match (op, f) {
        (UnaryOp::Sqrt, true) => "sqrtf",
        (UnaryOp::Sqrt, false) => "sqrt",
        (UnaryOp::Exp, true) => "expf",
        (UnaryOp::Exp, false) => "exp",
        (UnaryOp::Log, true) => "logf",
        (UnaryOp::Log, false) => "log",
        (UnaryOp::Sin, true) => "sinf",
        (UnaryOp::Sin, false) => "sin",
        (UnaryOp::Cos, true) => "cosf",
        (UnaryOp::Cos, false) => "cos",
        (UnaryOp::Tan, true) => "cp_tanf",
        (UnaryOp::Tan, false) => "tan",
        (UnaryOp::Tanh, true) => "tanhf",
        (UnaryOp::Tanh, false) => "tanh",
        (UnaryOp::Floor, true) => "floorf",
        (UnaryOp::Floor, false) => "floor",
        (UnaryOp::Ceil, true) => "ceilf",
        (UnaryOp::Ceil, false) => "ceil",
        (UnaryOp::Abs, true) => "fabsf",
        (_, _) => "fabs",
    }
}

pub(super) fn expr(e: &Expr, n: &Names<'_>) -> Result<String> {
    let d = e.ty;
    Ok(match &e.kind {
        ExprKind::Const(s) => literal(*s),
        ExprKind::Input(k) => (n.inputs)(*k),
        ExprKind::Param(k) => format!("p{k}"),
        ExprKind::Var(k) => format!("v{k}"),
        ExprKind::Index => format!("((cp_i64)({}))", n.index),
        ExprKind::Load { raw, index } => {
            let i = expr(index, n)?;
            load_conv(d, &format!("a.r{raw}[{i}]"))
        }
        ExprKind::Cast(a) => cast_expr(a.ty, d, &expr(a, n)?),
        ExprKind::Select(c, a, b) => {
            format!(
                "(({}) ? ({}) : ({}))",
                expr(c, n)?,
                expr(a, n)?,
                expr(b, n)?
            )
        }
        ExprKind::Unary(op, a) => unary(*op, d, a, n)?,
        ExprKind::Binary(op, a, b) => binary(*op, d, a, b, n)?,
    })
}

/// A unary op on a complex operand; `res` is the node's dtype (`Abs` may give the real dtype).
fn unary_complex(op: UnaryOp, res: DType, t: DType, x: &str) -> Result<String> {
    let f = |name: &str| format!("{name}({x})");
    Ok(match op {
        UnaryOp::Neg => f("cp_cneg"),
        UnaryOp::Conj => f("cp_cconj"),
        UnaryOp::Real => format!("(({x}).re)"),
        UnaryOp::Imag => format!("(({x}).im)"),
        UnaryOp::Abs if res.is_complex() => {
            let r = compute_type(t.real_dtype());
            format!("cp_cmake(cp_cabs({x}), ({r})0)")
        }
        UnaryOp::Abs => cast_expr(t.real_dtype(), res, &f("cp_cabs")),
        UnaryOp::Not => format!("(!cp_cnonzero({x}))"),
        UnaryOp::Sqrt => f("cp_csqrt"),
        UnaryOp::Exp => f("cp_cexp"),
        UnaryOp::Log => f("cp_clog"),
        UnaryOp::Sin => f("cp_csin"),
        UnaryOp::Cos => f("cp_ccos"),
        UnaryOp::Tan => f("cp_ctan"),
        UnaryOp::Tanh => f("cp_ctanh"),
        UnaryOp::IsNan => f("cp_cnan"),
        UnaryOp::IsInf => f("cp_cisinf"),
        UnaryOp::IsFinite => f("cp_cisfinite"),
        UnaryOp::BitNot | UnaryOp::Floor | UnaryOp::Ceil => return Err(complex_unsupported(op, t)),
    })
}

fn unary(op: UnaryOp, res: DType, a: &Expr, n: &Names<'_>) -> Result<String> {
    let t = a.ty;
    let x = expr(a, n)?;
    if t.is_complex() {
        return unary_complex(op, res, t, &x);
    }
    let ct = compute_type(t);
    Ok(match op {
        UnaryOp::Not => {
            if t == DType::Bool {
                format!("(!({x}))")
            } else {
                format!("(({x}) == 0)")
            }
        }
        UnaryOp::IsNan if t.is_float() => format!("(({x}) != ({x}))"),
        UnaryOp::IsInf if t.is_float() => {
            format!("(fabs((double)({x})) == __longlong_as_double(0x7ff0000000000000ll))")
        }
        UnaryOp::IsFinite if t.is_float() => {
            format!("(fabs((double)({x})) < __longlong_as_double(0x7ff0000000000000ll))")
        }
        UnaryOp::IsNan | UnaryOp::IsInf => "false".into(),
        UnaryOp::IsFinite => "true".into(),
        UnaryOp::BitNot if t == DType::Bool => format!("(!({x}))"),
        _ if t == DType::Bool => x,
        UnaryOp::Neg if t.is_integer() => format!("cp_wneg<{ct}>({x})"),
        UnaryOp::Abs if t.is_integer() => format!("cp_iabs<{ct}>({x})"),
        UnaryOp::BitNot if t.is_integer() => format!("(({ct})(~({x})))"),
        UnaryOp::Floor | UnaryOp::Ceil if t.is_integer() => x,
        UnaryOp::BitNot => {
            return Err(Error::invalid("C++ emitter", format!("bitwise not of {t}")))
        }
        _ if t.is_integer() => {
            // math function of an integer: in double, cast back (as Scalar::cast).
            let m = math1(op, DType::Float64);
            cast_expr(DType::Float64, t, &format!("{m}((double)({x}))"))
        }
        UnaryOp::Neg => round_to(t, format!("(-({x}))")),
        _ => round_to(t, format!("{}({x})", math1(op, t))),
    })
}

/// A binary op on complex operands (NumPy's loops, see the prelude).
fn binary_complex(op: BinaryOp, t: DType, x: &str, y: &str) -> Result<String> {
    let f = |name: &str| format!("{name}({x}, {y})");
    Ok(match op {
        BinaryOp::Add => f("cp_cadd"),
        BinaryOp::Sub => f("cp_csub"),
        BinaryOp::Mul => f("cp_cmul"),
        BinaryOp::Div => f("cp_cdiv"),
        BinaryOp::Pow => f("cp_cpow"),
        BinaryOp::Max => f("cp_cmax"),
        BinaryOp::Min => f("cp_cmin"),
        BinaryOp::FMax => f("cp_cfmax"),
        BinaryOp::FMin => f("cp_cfmin"),
        BinaryOp::Eq => f("cp_ceq"),
        BinaryOp::Ne => f("cp_cne"),
        BinaryOp::Lt => f("cp_clt"),
        BinaryOp::Le => f("cp_cle"),
        BinaryOp::Gt => format!("cp_clt({y}, {x})"),
        BinaryOp::Ge => format!("cp_cle({y}, {x})"),
        BinaryOp::FloorDiv
        | BinaryOp::Mod
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::Shl
        | BinaryOp::Shr
        | BinaryOp::Atan2
        | BinaryOp::MulHi
        | BinaryOp::Complex => return Err(complex_unsupported(op, t)),
    })
}

fn binary(op: BinaryOp, d: DType, a: &Expr, b: &Expr, n: &Names<'_>) -> Result<String> {
    let t = a.ty;
    let x = expr(a, n)?;
    let y = expr(b, n)?;
    if op == BinaryOp::Complex {
        // Two float32/float64 parts -> complex64/complex128 (exact).
        let r = compute_type(d.real_dtype());
        return Ok(format!("cp_cmake(({r})({x}), ({r})({y}))"));
    }
    if t.is_complex() || b.ty.is_complex() {
        if a.ty != b.ty {
            return Err(Error::invalid(
                "C++ emitter",
                format!("{op:?} of {} and {}", a.ty, b.ty),
            ));
        }
        return binary_complex(op, t, &x, &y);
    }
    let ct = compute_type(t);
    if op.is_comparison() {
        let o = match op {
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            _ => ">=",
        };
        return Ok(format!("(({x}) {o} ({y}))"));
    }
    if t == DType::Bool {
        return Ok(match op {
            BinaryOp::Add | BinaryOp::Or | BinaryOp::Max | BinaryOp::FMax => {
                format!("(({x}) || ({y}))")
            }
            BinaryOp::Mul | BinaryOp::And | BinaryOp::Min | BinaryOp::FMin => {
                format!("(({x}) && ({y}))")
            }
            BinaryOp::Xor | BinaryOp::Sub => format!("(({x}) != ({y}))"),
            _ => {
                let r = binary_int(
                    op,
                    DType::UInt8,
                    &format!("((cp_u8)({x}))"),
                    &format!("((cp_u8)({y}))"),
                    DType::UInt8,
                )?;
                format!("(({r}) != 0)")
            }
        });
    }
    if t.is_integer() {
        return binary_int(op, t, &x, &y, b.ty);
    }
    let f = is_f32ish(t);
    let fl = if f { "cp_f32" } else { "cp_f64" };
    let r = match op {
        BinaryOp::Add => format!("(({x}) + ({y}))"),
        BinaryOp::Sub => format!("(({x}) - ({y}))"),
        BinaryOp::Mul => format!("(({x}) * ({y}))"),
        BinaryOp::Div => format!("(({x}) / ({y}))"),
        BinaryOp::FloorDiv => format!("{fl}_floordiv({x}, {y})"),
        BinaryOp::Mod => format!("{fl}_mod({x}, {y})"),
        BinaryOp::Pow => format!("{}({x}, {y})", if f { "powf" } else { "pow" }),
        BinaryOp::Atan2 => format!("{}({x}, {y})", if f { "atan2f" } else { "atan2" }),
        BinaryOp::Max => format!("cp_max<{ct}>({x}, {y})"),
        BinaryOp::Min => format!("cp_min<{ct}>({x}, {y})"),
        BinaryOp::FMax => format!("cp_fmax<{ct}>({x}, {y})"),
        BinaryOp::FMin => format!("cp_fmin<{ct}>({x}, {y})"),
        other => {
            return Err(Error::invalid(
                "C++ emitter",
                format!("{other:?} is not defined for {t}"),
            ))
        }
    };
    Ok(round_to(d, r))
}

fn binary_int(op: BinaryOp, t: DType, x: &str, y: &str, yt: DType) -> Result<String> {
    let ct = compute_type(t);
    Ok(match op {
        BinaryOp::Add => format!("cp_wadd<{ct}>({x}, {y})"),
        BinaryOp::Sub => format!("cp_wsub<{ct}>({x}, {y})"),
        // The low word of the same 64-bit product as `MulHi`: NVRTC then emits one
        // IMAD.WIDE.U32 for a Philox round's `Mul` and `MulHi` instead of two multiplies.
        BinaryOp::Mul if t == DType::UInt32 => {
            format!("((unsigned int)((unsigned long long)({x}) * (unsigned long long)({y})))")
        }
        BinaryOp::Mul => format!("cp_wmul<{ct}>({x}, {y})"),
        BinaryOp::Div => format!("cp_idiv<{ct}>({x}, {y})"),
        BinaryOp::FloorDiv => format!("cp_ifloordiv<{ct}>({x}, {y})"),
        BinaryOp::Mod => format!("cp_imod<{ct}>({x}, {y})"),
        BinaryOp::Pow => format!("cp_ipow<{ct}>({x}, {y})"),
        BinaryOp::Max | BinaryOp::FMax => format!("cp_max<{ct}>({x}, {y})"),
        BinaryOp::Min | BinaryOp::FMin => format!("cp_min<{ct}>({x}, {y})"),
        BinaryOp::And => format!("(({ct})(({x}) & ({y})))"),
        BinaryOp::Or => format!("(({ct})(({x}) | ({y})))"),
        BinaryOp::Xor => format!("(({ct})(({x}) ^ ({y})))"),
        BinaryOp::Shl => format!("cp_shl<{ct}, {}>({x}, {y})", compute_type(yt)),
        BinaryOp::Shr => format!("cp_shr<{ct}, {}>({x}, {y})", compute_type(yt)),
        // NVRTC and hipRTC turn this into one mul.hi.u32 / v_mul_hi_u32.
        BinaryOp::MulHi => format!(
            "((unsigned int)(((unsigned long long)({x}) * (unsigned long long)({y})) >> 32))"
        ),
        BinaryOp::Atan2 => cast_expr(
            DType::Float64,
            t,
            &format!("atan2((double)({x}), (double)({y}))"),
        ),
        _ => unreachable!("comparisons handled by the caller"),
    })
}
