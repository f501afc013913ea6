//! Hyperbolic ufuncs (NumPy's "Hyperbolic functions").

use super::ufunc::un;
use cupy_core::kernel::ir::UnaryOp as U;
use cupy_core::kernel::math;

ufuncs! {
    family: "hyperbolic";
    /// Hyperbolic sine (`numpy.sinh`), from `expm1`; complex by `sinh x cos y + i cosh x sin y`.
    sinh(x): Float => |m, c| if c.is_complex() { math::complex_sinh(m, x) } else { math::sinh(m, x) };
    /// Hyperbolic cosine (`numpy.cosh`); complex by `cosh x cos y + i sinh x sin y`.
    cosh(x): Float => |m, c| if c.is_complex() { math::complex_cosh(m, x) } else { math::cosh(m, x) };
    /// Hyperbolic tangent (`numpy.tanh`).
    tanh(x): Float => |_, _| un(U::Tanh, x);
    /// Inverse hyperbolic sine (`numpy.arcsinh`); complex with NumPy's branch cuts.
    arcsinh(x): Float => |m, c| if c.is_complex() { math::complex_arcsinh(m, x) } else { math::arcsinh(m, x) };
    /// Inverse hyperbolic cosine (`numpy.arccosh`); complex with NumPy's branch cuts.
    arccosh(x): Float => |m, c| if c.is_complex() { math::complex_arccosh(m, x) } else { math::arccosh(m, x) };
    /// Inverse hyperbolic tangent (`numpy.arctanh`); complex with NumPy's branch cuts.
    arctanh(x): Float => |m, c| if c.is_complex() { math::complex_arctanh(m, x) } else { math::arctanh(m, x) };
}

ufunc_aliases! {
    /// `numpy.asinh` (NumPy 2, the array API's name): another name of `arcsinh`.
    asinh = arcsinh(x);
    /// `numpy.acosh` (NumPy 2): another name of `arccosh`.
    acosh = arccosh(x);
    /// `numpy.atanh` (NumPy 2): another name of `arctanh`.
    atanh = arctanh(x);
}
