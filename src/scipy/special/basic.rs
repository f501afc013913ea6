//! SciPy's basic special functions (`cbrt`, `exp2`, `exp10`, `radian`, `cosdg`, `sindg`,
//! `tandg`, `cotdg`, `cosm1`, `round`) and the Box-Cox transforms (`boxcox`, `boxcox1p`,
//! `inv_boxcox`, `inv_boxcox1p`), one declaration each; the algorithms (Cephes as SciPy's
//! `xsf` carries it, and `_boxcox.pxd`) are in [`cupy_core::kernel::math::special`].
//!
//! SciPy's loops are `d->d` first, but `f->f` first for `round` and the Box-Cox transforms
//! (so bool, int8, int16 and float16 give float32 there); every float32 loop computes in
//! float64 and rounds, and so do these (`round` is exact in float32 and computes there).
//! `cbrt`, `exp2` and `round` have no `fuse` method (NumPy's `cbrt`, `exp2` hold the names;
//! `Sym::round` would read as NumPy's): `Sym::ufunc(&special::ufuncs::cbrt, ..)` applies them.

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: basic";
    /// The real cube root (`cupyx.scipy.special.cbrt`, Cephes' `cbrt`); `-cbrt(-x)` below 0,
    /// `+-0`, `+-inf` and NaN kept. (NumPy's [`cbrt`](crate::cbrt) is a separate ufunc.)
    cbrt(x) [no_fuse_method]: SpecialDoubleFirst => |m, c| via_double(c, |t| sp::cbrt(m, x.cast(t)));
    /// `2^x` (`cupyx.scipy.special.exp2`, Cephes' `exp2`): `inf` above 1024, 0 below -1024.
    /// (NumPy's [`exp2`](crate::exp2) is a separate ufunc.)
    exp2(x) [no_fuse_method]: SpecialDoubleFirst => |m, c| via_double(c, |t| sp::exp2(m, x.cast(t)));
    /// `10^x` (`cupyx.scipy.special.exp10`, Cephes' `exp10`): `inf` above 308.2547, 0 below
    /// -308.2547.
    exp10(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::exp10(m, x.cast(t)));
    /// Degrees, arc minutes and arc seconds to radians (`cupyx.scipy.special.radian(d, m,
    /// s)`): `((d 60 + m) 60 + s) pi / 648000`.
    radian(d, mi, s): SpecialDoubleFirst => |_, c| via_double(c, |t| sp::radian(d.cast(t), mi.cast(t), s.cast(t)));
    /// The cosine of an angle in degrees (`cupyx.scipy.special.cosdg`): exact at the
    /// multiples of 90; 0 past `1e14` degrees and at `+-inf`.
    cosdg(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::cosdg(m, x.cast(t)));
    /// The sine of an angle in degrees (`cupyx.scipy.special.sindg`): exact at the multiples
    /// of 90; 0 past `1e14` degrees and at `+-inf`.
    sindg(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::sindg(m, x.cast(t)));
    /// The tangent of an angle in degrees (`cupyx.scipy.special.tandg`): exact 0, `+-1` and
    /// `inf` at the multiples of 45; 0 past `1e14` degrees and at `+-inf`.
    tandg(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::tandg(m, x.cast(t)));
    /// The cotangent of an angle in degrees (`cupyx.scipy.special.cotdg`): exact 0, `+-1` and
    /// `inf` at the multiples of 45; 0 past `1e14` degrees and at `+-inf`.
    cotdg(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::cotdg(m, x.cast(t)));
    /// `cos(x) - 1`, accurate near 0 (`cupyx.scipy.special.cosm1`); NaN at `+-inf`.
    cosm1(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::cosm1(m, x.cast(t)));
    /// Rounds to the nearest integer, half to even (`cupyx.scipy.special.round`, Cephes'
    /// `round`); `round(-0.3)` is `+0`. (NumPy's [`round`](crate::round) is another routine.)
    round(x) [no_fuse_method]: SpecialFloatFirst => |m, _| sp::round(m, x);
    /// The Box-Cox transform `(x^lmbda - 1) / lmbda`, `log(x)` for `lmbda` 0
    /// (`cupyx.scipy.special.boxcox(x, lmbda)`); NaN for `x < 0`.
    boxcox(x, lmbda): SpecialFloatFirst => |m, c| via_double(c, |t| sp::boxcox(m, x.cast(t), lmbda.cast(t)));
    /// The Box-Cox transform of `1 + x`, `((1 + x)^lmbda - 1) / lmbda`, `log1p(x)` for
    /// `lmbda` 0 (`cupyx.scipy.special.boxcox1p(x, lmbda)`); NaN for `x < -1`.
    boxcox1p(x, lmbda): SpecialFloatFirst => |m, c| via_double(c, |t| sp::boxcox1p(m, x.cast(t), lmbda.cast(t)));
    /// The inverse Box-Cox transform `(lmbda y + 1)^(1/lmbda)`, `exp(y)` for `lmbda` 0
    /// (`cupyx.scipy.special.inv_boxcox(y, lmbda)`).
    inv_boxcox(y, lmbda): SpecialFloatFirst => |m, c| via_double(c, |t| sp::inv_boxcox(m, y.cast(t), lmbda.cast(t)));
    /// The inverse of `boxcox1p`, `(lmbda y + 1)^(1/lmbda) - 1`, `expm1(y)` for `lmbda` 0
    /// (`cupyx.scipy.special.inv_boxcox1p(y, lmbda)`).
    inv_boxcox1p(y, lmbda): SpecialFloatFirst => |m, c| via_double(c, |t| sp::inv_boxcox1p(m, y.cast(t), lmbda.cast(t)));
}
