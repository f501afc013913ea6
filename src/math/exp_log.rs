//! Exponents and logarithms (NumPy's "Exponents and logarithms").

use super::ufunc::un;
use cupy_core::kernel::ir::UnaryOp as U;
use cupy_core::kernel::math;

ufuncs! {
    family: "exp_log";
    /// `e^x` elementwise (`numpy.exp`).
    exp(x): Float => |_, _| un(U::Exp, x);
    /// `2^x` elementwise (`numpy.exp2`); complex as `exp(x ln 2)`.
    exp2(x): Float => |m, c| if c.is_complex() { math::complex_exp2(m, x) } else { math::exp2(x) };
    /// `e^x - 1`, accurate near 0 (`numpy.expm1`); complex by NumPy's `nc_expm1`.
    expm1(x): Float => |m, c| if c.is_complex() { math::complex_expm1(m, x) } else { math::expm1(m, x) };
    /// The natural logarithm (`numpy.log`).
    log(x): Float => |_, _| un(U::Log, x);
    /// The base-2 logarithm (`numpy.log2`); complex part by part from `log`.
    log2(x): Float => |m, c| if c.is_complex() { math::complex_log2(m, x) } else { math::log2(x) };
    /// The base-10 logarithm (`numpy.log10`); complex part by part from `log`.
    log10(x): Float => |m, c| if c.is_complex() { math::complex_log10(m, x) } else { math::log10(x) };
    /// `log(1 + x)`, accurate near 0 (`numpy.log1p`); complex by NumPy's `nc_log1p`.
    log1p(x): Float => |m, c| if c.is_complex() { math::complex_log1p(m, x) } else { math::log1p(m, x) };
    /// `log(exp(x1) + exp(x2))` without overflow (`numpy.logaddexp`).
    logaddexp(x1, x2): FloatReal => |m, _| math::logaddexp(m, x1, x2, false);
    /// `log2(2^x1 + 2^x2)` without overflow (`numpy.logaddexp2`).
    logaddexp2(x1, x2): FloatReal => |m, _| math::logaddexp(m, x1, x2, true);
}
