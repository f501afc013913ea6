//! Rounding ufuncs (NumPy's "Rounding").

use super::ufunc::un;
use cupy_core::kernel::ir::{Expr, UnaryOp as U};
use cupy_core::kernel::math;

ufuncs! {
    family: "rounding";
    /// The largest integer `<= x` (`numpy.floor`); integers and bool are returned unchanged.
    floor(x): Rounding => |_, c| if c.is_float() { un(U::Floor, x) } else { x };
    /// The smallest integer `>= x` (`numpy.ceil`); integers and bool are returned unchanged.
    ceil(x): Rounding => |_, c| if c.is_float() { un(U::Ceil, x) } else { x };
    /// Rounds toward zero (`numpy.trunc`); integers and bool are returned unchanged.
    trunc(x): Rounding => |_, c| if c.is_float() { math::trunc(x) } else { x };
    /// Rounds toward zero (`numpy.fix`, a ufunc in CuPy); integers and bool are returned
    /// unchanged.
    fix(x): Rounding => |_, c| if c.is_float() { math::trunc(x) } else { x };
    /// Rounds to the nearest integer, half to even (`numpy.rint`); complex part by part.
    rint(x): Float => |m, c| {
        if c.is_complex() {
            let z = m.bind(x);
            let re = math::rint(m, un(U::Real, z.clone()));
            let im = math::rint(m, un(U::Imag, z));
            Expr::complex(re, im)
        } else {
            math::rint(m, x)
        }
    };
}
