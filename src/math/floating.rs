//! Floating-point predicates and manipulation (NumPy's "Floating functions").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math;
use cupy_core::scalar::Scalar;

ufuncs! {
    family: "floating";
    /// True where `x` is NaN (`numpy.isnan`); complex: either part.
    isnan(x): Predicate => |_, c| if c.is_inexact() { un(U::IsNan, x) } else { Expr::constant(Scalar::Bool(false)) };
    /// True where `x` is positive or negative infinity (`numpy.isinf`); complex: either part.
    isinf(x): Predicate => |_, c| if c.is_inexact() { un(U::IsInf, x) } else { Expr::constant(Scalar::Bool(false)) };
    /// True where `x` is neither infinite nor NaN (`numpy.isfinite`).
    isfinite(x): Predicate => |_, c| if c.is_inexact() { un(U::IsFinite, x) } else { Expr::constant(Scalar::Bool(true)) };
    /// True where the sign bit is set, `-0.0` included (`numpy.signbit`); the sign of a NaN is
    /// not seen (false).
    signbit(x): PredicateReal => |m, c| {
        if c.is_float() {
            math::signbit(m.bind(x))
        } else if c.is_signed_integer() {
            bin(B::Lt, x, Expr::constant(Scalar::zero(c)))
        } else {
            Expr::constant(Scalar::Bool(false))
        }
    };
    /// `|x1|` with the sign of `x2` (`numpy.copysign`).
    copysign(x1, x2): FloatReal => |m, _| math::copysign(m, x1, x2);
    /// True where `x` is `+inf` (`numpy.isposinf`); complex has no answer (TypeError).
    isposinf(x): PredicateReal => |_, c| {
        if c.is_float() {
            bin(B::Eq, x, math::fconst(c, f64::INFINITY))
        } else {
            Expr::constant(Scalar::Bool(false))
        }
    };
    /// True where `x` is `-inf` (`numpy.isneginf`); complex has no answer (TypeError).
    isneginf(x): PredicateReal => |_, c| {
        if c.is_float() {
            bin(B::Eq, x, math::fconst(c, f64::NEG_INFINITY))
        } else {
            Expr::constant(Scalar::Bool(false))
        }
    };
    /// `(mantissa, exponent)` with `x = mantissa * 2**exponent`, `0.5 <= |mantissa| < 1`
    /// (`numpy.frexp`); the exponent is int32, `(x, 0)` for zeros, infinities and NaN.
    frexp(x) -> (mantissa, exponent): Frexp => |m, _| math::frexp(m, x);
    /// `x1 * 2**x2`, correctly rounded (`numpy.ldexp`); the exponent is an integer array or a
    /// Rust integer (int32 range), the result has `x1`'s float dtype.
    ldexp(x1, x2): Ldexp => |m, _| math::ldexp(m, x1, x2);
    /// The next representable value after `x1` toward `x2` (`numpy.nextafter`), in the ulps of
    /// the operands' dtype (float16's own).
    nextafter(x1, x2): FloatBits => |m, c| {
        let w = work_dtype(c);
        math::nextafter(m, x1.cast(w), x2.cast(w), c)
    };
    /// The distance from `x` to the next representable value away from zero, with `x`'s sign
    /// (`numpy.spacing`; float16: toward `+inf`, NumPy's `npy_half_spacing`).
    spacing(x): FloatBits => |m, c| math::spacing(m, x.cast(work_dtype(c)), c);
}

/// The dtype float16/bfloat16 values are computed in (float32); float32 and float64 themselves.
fn work_dtype(c: cupy_core::dtype::DType) -> cupy_core::dtype::DType {
    if c == cupy_core::dtype::DType::Float64 {
        c
    } else {
        cupy_core::dtype::DType::Float32
    }
}
