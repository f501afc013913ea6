//! Miscellaneous ufuncs (NumPy's "Miscellaneous": square roots, absolute values, extrema).

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, UnaryOp as U};
use cupy_core::kernel::math;

ufuncs! {
    family: "misc";
    /// `|x|` elementwise (`numpy.absolute`); complex gives the magnitude in its real dtype
    /// (`hypot` of the parts).
    absolute(x): Magnitude => |_, c| if c.is_bool() { x } else { un(U::Abs, x) };
    /// The non-negative square root (`numpy.sqrt`), correctly rounded.
    sqrt(x): Float => |_, _| un(U::Sqrt, x);
    /// `x * x` elementwise (`numpy.square`).
    square(x): SameBoolAsInt8 => |m, _| { let x = m.bind(x); bin(B::Mul, x.clone(), x) };
    /// `|x|` of real numbers as floats (`numpy.fabs`); integers and bool go to the float that
    /// holds them, complex has no loop.
    fabs(x): FloatReal => |_, _| un(U::Abs, x);
    /// The real cube root (`numpy.cbrt`): `pow(|x|, 1/3)` and a Newton step, the sign kept.
    cbrt(x): FloatReal => |m, _| math::cbrt(m, x);
    /// -1, 0 or 1 by the sign of `x` (`numpy.sign`; NaN stays NaN); complex `z / |z|` (NumPy 2).
    sign(x): SameNoBool => |m, c| if c.is_complex() { math::complex_sign(m, x) } else { math::sign(m, x) };
    /// The Heaviside step: 0 for `x1 < 0`, `x2` at 0, 1 for `x1 > 0` (`numpy.heaviside`).
    heaviside(x1, x2): FloatReal => |m, _| math::heaviside(m, x1, x2);
    /// The greatest common divisor of `|x1|` and `|x2|` (`numpy.gcd`); integers only.
    gcd(x1, x2): IntegerNoBool => |m, _| math::gcd(m, x1, x2);
    /// The least common multiple of `|x1|` and `|x2|` (`numpy.lcm`); integers only, wrapping as
    /// NumPy's.
    lcm(x1, x2): IntegerNoBool => |m, _| math::lcm(m, x1, x2);
    /// The larger of `x1` and `x2`; NaN propagates (`numpy.maximum`).
    maximum(x1, x2): Same => |_, c| if c.is_bool() { bin(B::Or, x1, x2) } else { bin(B::Max, x1, x2) };
    /// The smaller of `x1` and `x2`; NaN propagates (`numpy.minimum`).
    minimum(x1, x2): Same => |_, c| if c.is_bool() { bin(B::And, x1, x2) } else { bin(B::Min, x1, x2) };
    /// The larger of `x1` and `x2`, ignoring NaN (`numpy.fmax`).
    fmax(x1, x2): Same => |_, c| bin(if c.is_inexact() { B::FMax } else { B::Max }, x1, x2);
    /// The smaller of `x1` and `x2`, ignoring NaN (`numpy.fmin`).
    fmin(x1, x2): Same => |_, c| bin(if c.is_inexact() { B::FMin } else { B::Min }, x1, x2);
}

ufunc_aliases! {
    /// `numpy.abs`: another name of `absolute`.
    abs = absolute(x);
}
