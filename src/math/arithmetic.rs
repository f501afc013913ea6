//! Arithmetic ufuncs (NumPy's "Arithmetic operations").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math;
use cupy_core::scalar::Scalar;

ufuncs! {
    family: "arithmetic";
    /// `x1 + x2` elementwise (`numpy.add`); on bool, logical or.
    add(x1, x2): Same => |_, c| if c.is_bool() { bin(B::Or, x1, x2) } else { bin(B::Add, x1, x2) };
    /// `x1 - x2` elementwise (`numpy.subtract`); bool has no loop.
    subtract(x1, x2): SameNoBool => |_, _| bin(B::Sub, x1, x2);
    /// `x1 * x2` elementwise (`numpy.multiply`); on bool, logical and.
    multiply(x1, x2): Same => |_, c| if c.is_bool() { bin(B::And, x1, x2) } else { bin(B::Mul, x1, x2) };
    /// `x1 / x2` elementwise (`numpy.true_divide`); integers divide in float64.
    true_divide(x1, x2): TrueDivide => |_, _| bin(B::Div, x1, x2);
    /// `floor(x1 / x2)` elementwise (`numpy.floor_divide`); integer division by 0 gives 0.
    floor_divide(x1, x2): SameBoolAsInt8Real => |_, _| bin(B::FloorDiv, x1, x2);
    /// The remainder with the sign of the divisor (`numpy.remainder`, Python's `%`).
    remainder(x1, x2): SameBoolAsInt8Real => |_, _| bin(B::Mod, x1, x2);
    /// The remainder with the sign of the dividend (`numpy.fmod`, C's `fmod`); integer division
    /// by 0 gives 0.
    fmod(x1, x2): SameBoolAsInt8Real => |m, c| {
        if c.is_float() {
            math::fmod(m, x1, x2)
        } else {
            // C's `%` on integers: x - trunc(x / y) * y (the IR's integer Div truncates).
            let x = m.bind(x1);
            let y = m.bind(x2);
            let zero = Expr::constant(Scalar::zero(c));
            let r = bin(B::Sub, x.clone(), bin(B::Mul, bin(B::Div, x, y.clone()), y.clone()));
            Expr::select(bin(B::Eq, y, zero.clone()), zero, r)
        }
    };
    /// `(x1 // x2, x1 % x2)` in one call (`numpy.divmod`): `floor_divide` and `remainder`
    /// (integer division by 0 gives `(0, 0)`).
    divmod(x1, x2) -> (quotient, remainder): SameBoolAsInt8Real => |m, _| {
        let (a, b) = (m.bind(x1), m.bind(x2));
        (bin(B::FloorDiv, a.clone(), b.clone()), bin(B::Mod, a, b))
    };
    /// `x1 ** x2` elementwise (`numpy.power`); integers by exact repeated squaring.
    power(x1, x2): SameBoolAsInt8 => |_, _| bin(B::Pow, x1, x2);
    /// `x1 ** x2` in float64 or complex128 at least (`numpy.float_power`).
    float_power(x1, x2): FloatPower => |_, _| bin(B::Pow, x1, x2);
    /// `1 / x` elementwise (`numpy.reciprocal`); integers divide as C does (`1 / 2` is 0,
    /// `1 / 0` gives 0), bool as int8; complex by NumPy's Smith division.
    reciprocal(x): SameBoolAsInt8 => |m, c| {
        if c.is_complex() {
            math::complex_reciprocal(m, x)
        } else if c.is_signed_integer() && c.itemsize() >= 4 {
            // NumPy computes `(T)(1.0 / x)`: at 0 the infinity converts to INT_MIN on x86-64
            // (0 for the narrower types, whose conversion goes through int32).
            let x = m.bind(x);
            let zero = Expr::constant(Scalar::zero(c));
            let min = Expr::constant(Scalar::min_value(c));
            Expr::select(
                bin(B::Eq, x.clone(), zero),
                min,
                bin(B::Div, Expr::constant(Scalar::Int64(1).cast(c)), x),
            )
        } else {
            bin(B::Div, Expr::constant(Scalar::Int64(1).cast(c)), x)
        }
    };
    /// `(fractional, integral)` parts of `x`, both with its sign (`numpy.modf`, C's `modf`).
    modf(x) -> (fractional, integral): FloatReal => |m, _| math::modf(m, x);
    /// `-x` elementwise (`numpy.negative`); bool has no loop.
    negative(x): SameNoBool => |_, _| un(U::Neg, x);
    /// `+x` elementwise (`numpy.positive`), a copy.
    positive(x): SameNoBool => |_, _| x;
}

ufunc_aliases! {
    /// `numpy.divide`: another name of `true_divide`.
    divide = true_divide(x1, x2);
    /// `numpy.pow` (NumPy 2, the array API's name): another name of `power`.
    pow = power(x1, x2);
    /// `numpy.mod`: another name of `remainder` (`mod` is a Rust keyword: call it
    /// `cupy::r#mod`, or `remainder`).
    r#mod = remainder(x1, x2);
}
