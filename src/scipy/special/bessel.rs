//! The Bessel functions of integer order 0 and 1 (`j0`, `j1`, `y0`, `y1`, and the modified
//! `i0`, `i0e`, `i1`, `i1e`, `k0`, `k0e`, `k1`, `k1e`), one declaration each; the algorithms
//! (SciPy's Cephes) are in [`cupy_core::kernel::math::special`]. SciPy's loops are `d->d`
//! first, and its float32 loop computes in float64 and rounds; so do these.

use super::via_double;
use cupy_core::kernel::math::special as sp;

special_ufuncs! {
    family: "special: bessel";
    /// The Bessel function of the first kind of order 0 (`cupyx.scipy.special.j0`): 1 at 0,
    /// NaN at `+-inf` (as SciPy 1.17's Cephes `j0`).
    j0(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::j0(m, x.cast(t)));
    /// The Bessel function of the first kind of order 1 (`cupyx.scipy.special.j1`): odd, NaN
    /// at `+-inf` (Cephes' `j1`).
    j1(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::j1(m, x.cast(t)));
    /// The Bessel function of the second kind of order 0 (`cupyx.scipy.special.y0`): `-inf`
    /// at 0, NaN for `x < 0` and at `inf` (Cephes' `y0`).
    y0(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::y0(m, x.cast(t)));
    /// The Bessel function of the second kind of order 1 (`cupyx.scipy.special.y1`): `-inf`
    /// at 0, NaN for `x < 0` and at `inf` (Cephes' `y1`).
    y1(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::y1(m, x.cast(t)));
    /// The modified Bessel function of the first kind of order 0 (`cupyx.scipy.special.i0`):
    /// even, `inf` past `|x| = 709.78`, NaN at `+-inf` (Cephes' `i0`).
    i0(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::i0(m, x.cast(t)));
    /// `exp(-|x|) i0(x)` (`cupyx.scipy.special.i0e`): 0 at `+-inf` (Cephes' `i0e`).
    i0e(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::i0e(m, x.cast(t)));
    /// The modified Bessel function of the first kind of order 1 (`cupyx.scipy.special.i1`):
    /// odd, `+-inf` past `|x| = 709.78`, NaN at `+-inf` (Cephes' `i1`).
    i1(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::i1(m, x.cast(t)));
    /// `exp(-|x|) i1(x)` (`cupyx.scipy.special.i1e`): `+-0` at `+-inf` (Cephes' `i1e`).
    i1e(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::i1e(m, x.cast(t)));
    /// The modified Bessel function of the second kind of order 0 (`cupyx.scipy.special.k0`):
    /// `inf` at 0, NaN for `x < 0`, 0 at `inf` (Cephes' `k0`).
    k0(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::k0(m, x.cast(t)));
    /// `exp(x) k0(x)` (`cupyx.scipy.special.k0e`): `inf` at 0, NaN for `x < 0` (Cephes'
    /// `k0e`).
    k0e(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::k0e(m, x.cast(t)));
    /// The modified Bessel function of the second kind of order 1 (`cupyx.scipy.special.k1`):
    /// `inf` at 0, NaN for `x < 0`, 0 at `inf` (Cephes' `k1`).
    k1(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::k1(m, x.cast(t)));
    /// `exp(x) k1(x)` (`cupyx.scipy.special.k1e`): `inf` at 0, NaN for `x < 0` (Cephes'
    /// `k1e`).
    k1e(x): SpecialDoubleFirst => |m, c| via_double(c, |t| sp::k1e(m, x.cast(t)));
}
