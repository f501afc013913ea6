//! The beta family (`beta`, `betaln`), one declaration each; the algorithms (Cephes' `beta`
//! and `lbeta` as SciPy's `xsf` carries them) are in [`cupy_core::kernel::math::special`].
//! SciPy's loops are `d->d` first, and its float32 loop computes in float64 and rounds; so do
//! these.

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: beta";
    /// The beta function `B(a, b) = gamma(a) gamma(b) / gamma(a + b)`
    /// (`cupyx.scipy.special.beta`): `+-inf` at the poles (a non-positive integer argument,
    /// but Cephes' finite `sgn(b) B(1 - a - b, b)` for a positive integer `b < 1 - a`), 0 where
    /// it underflows, `inf` where it overflows.
    beta(a, b): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::beta(m, a.cast(t), b.cast(t)));
    /// `log |B(a, b)|` (`cupyx.scipy.special.betaln`), finite where `beta` overflows; `inf` at
    /// the poles.
    betaln(a, b): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::betaln(m, a.cast(t), b.cast(t)));
}
