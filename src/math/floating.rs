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
}
