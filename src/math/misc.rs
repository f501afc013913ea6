//! Miscellaneous ufuncs (NumPy's "Miscellaneous": square roots, absolute values, extrema).

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, UnaryOp as U};

ufuncs! {
    family: "misc";
    /// `|x|` elementwise (`numpy.absolute`); complex gives the magnitude in its real dtype
    /// (`hypot` of the parts).
    absolute(x): Magnitude => |_, c| if c.is_bool() { x } else { un(U::Abs, x) };
    /// The non-negative square root (`numpy.sqrt`), correctly rounded.
    sqrt(x): Float => |_, _| un(U::Sqrt, x);
    /// `x * x` elementwise (`numpy.square`).
    square(x): SameBoolAsInt8 => |m, _| { let x = m.bind(x); bin(B::Mul, x.clone(), x) };
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
