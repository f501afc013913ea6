//! The error function family (`erf`, `erfc`, `erfcx`, `erfinv`, `erfcinv`, `ndtr`, `log_ndtr`,
//! `ndtri`), one declaration each; the algorithms (SciPy's Cephes and `xsf` formulas) are in
//! [`cupy_core::kernel::math::special`].
//!
//! float32 is computed in float32, except `erfc`, `erfcx`, `ndtr` and `log_ndtr`, which are
//! computed in float64 and rounded, as SciPy does: they take `exp(-x^2)`, whose relative error
//! grows with `x^2` (float32's rounding of `x^2` alone would cost up to ~40 ulps near the
//! underflow threshold).

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: error function";
    /// The error function `erf(x) = 2/sqrt(pi) ∫_0^x exp(-t^2) dt`
    /// (`cupyx.scipy.special.erf`); `±1` at `±inf`.
    erf(x): SpecialDoubleFirst => |m, _| sp::erf(m, x);
    /// The complementary error function `1 - erf(x)` (`cupyx.scipy.special.erfc`), accurate
    /// where `erf(x)` is near 1.
    erfc(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::erfc(m, x.cast(t)));
    /// The scaled complementary error function `exp(x^2) erfc(x)`
    /// (`cupyx.scipy.special.erfcx`), finite for large `x`; `inf` below -26.7.
    erfcx(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::erfcx(m, x.cast(t)));
    /// The inverse error function (`cupyx.scipy.special.erfinv`): `±inf` at `±1`, NaN
    /// outside `[-1, 1]`.
    erfinv(x): SpecialFloatFirst => |m, _| sp::erfinv(m, x);
    /// The inverse complementary error function (`cupyx.scipy.special.erfcinv`): `inf` at 0,
    /// `-inf` at 2, NaN outside `[0, 2]`.
    erfcinv(x): SpecialFloatFirst => |m, _| sp::erfcinv(m, x);
    /// The standard normal CDF `(1 + erf(x/sqrt(2)))/2` (`cupyx.scipy.special.ndtr`).
    ndtr(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::ndtr(m, x.cast(t)));
    /// The log of the standard normal CDF (`cupyx.scipy.special.log_ndtr`), accurate far
    /// into the lower tail.
    log_ndtr(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::log_ndtr(m, x.cast(t)));
    /// The inverse of the standard normal CDF (`cupyx.scipy.special.ndtri`): `-inf` at 0,
    /// `inf` at 1, NaN outside `[0, 1]`.
    ndtri(x): SpecialFloatFirst => |m, _| sp::ndtri(m, x);
}
