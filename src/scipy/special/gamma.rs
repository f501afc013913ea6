//! The gamma family (`gamma`, `rgamma`, `gammaln`, `loggamma`, `digamma`/`psi`), one
//! declaration each; the algorithms (SciPy's Cephes) are in
//! [`cupy_core::kernel::math::special`]. SciPy's loops are `d->d` first, and its float32 loop
//! computes in float64 and rounds; so do these (the float32 range cannot hold Cephes'
//! intermediates: `33^32.5` in Stirling's formula, the reflection's `gamma(|x|)` past 35).

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: gamma";
    /// The gamma function (`cupyx.scipy.special.gamma`): `+-inf` at `+-0`, NaN at the
    /// negative integers and `-inf`, `inf` past 171.62 (Cephes' `Gamma`, as SciPy).
    gamma(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::gamma(m, x.cast(t)));
    /// The reciprocal gamma function `1 / gamma(x)` (`cupyx.scipy.special.rgamma`): 0 at the
    /// poles and at `+-inf`.
    rgamma(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::rgamma(m, x.cast(t)));
    /// `log |gamma(x)|` (`cupyx.scipy.special.gammaln`): `inf` at the poles (Cephes' `lgam`).
    gammaln(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::gammaln(m, x.cast(t)));
    /// The principal branch of `log(gamma(x))` for real `x` (`cupyx.scipy.special.loggamma`):
    /// `gammaln(x)` for `x >= 0`, NaN below (complex inputs are not supported).
    loggamma(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::loggamma(m, x.cast(t)));
    /// The digamma function `gamma'(x) / gamma(x)` (`cupyx.scipy.special.digamma`; also
    /// [`psi`]): `-inf` at `+0`, `inf` at `-0`, NaN at the negative integers (Cephes' `psi`).
    digamma(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::digamma(m, x.cast(t)));
    /// The digamma function (`cupyx.scipy.special.psi`, the same as [`digamma`]).
    psi(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::digamma(m, x.cast(t)));
}
