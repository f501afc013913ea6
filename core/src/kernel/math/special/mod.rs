//! `cupyx.scipy.special`'s functions as IR compositions: one definition for every backend (the
//! ufuncs of [`cupy::scipy::special`](../../../../cupy/scipy/special/index.html)). Each takes
//! operands already converted to the float dtype it computes in (float32 or float64) and returns
//! an expression of that dtype. The algorithms are SciPy's (its `xsf` library, which carries
//! Cephes); each file names its sources.

mod basic;
mod bessel;
mod beta;
mod convenience;
mod error_function;
mod gamma;
mod modified_bessel;

use super::{bin, fconst, un, Bind};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

pub use basic::{
    boxcox, boxcox1p, cbrt, cosdg, cosm1, cotdg, exp10, exp2, inv_boxcox, inv_boxcox1p, radian,
    round, sindg, tandg,
};
pub use bessel::{j0, j1, y0, y1};
pub use beta::{beta, betaln};
pub use convenience::{
    entr, expit, huber, kl_div, log_expit, logit, pseudo_huber, rel_entr, xlog1py, xlogy,
};
pub use error_function::{erf, erfc, erfcinv, erfcx, erfinv, log_ndtr, ndtr, ndtri};
pub use gamma::{digamma, gamma, gammaln, loggamma, rgamma};
pub use modified_bessel::{i0, i0e, i1, i1e, k0, k0e, k1, k1e};

fn add(a: Expr, b: Expr) -> Expr {
    bin(B::Add, a, b)
}
fn sub(a: Expr, b: Expr) -> Expr {
    bin(B::Sub, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    bin(B::Mul, a, b)
}
fn div(a: Expr, b: Expr) -> Expr {
    bin(B::Div, a, b)
}

/// True where `x` is an integer (false for NaN; the infinities count).
fn is_int(x: &Expr) -> Expr {
    bin(B::Eq, un(U::Floor, x.clone()), x.clone())
}

/// Cephes' `polevl`: `coef[0] x^n + ... + coef[n]` by Horner's rule (highest degree first; `x`
/// should be bound, it is used once per coefficient).
pub fn polevl(x: &Expr, coef: &[f64]) -> Expr {
    let t = x.ty;
    let mut r = fconst(t, coef[0]);
    for &k in &coef[1..] {
        r = bin(B::Add, bin(B::Mul, r, x.clone()), fconst(t, k));
    }
    r
}

/// Cephes' `p1evl`: [`polevl`] with an implicit leading coefficient 1
/// (`x^n + coef[0] x^(n-1) + ... + coef[n-1]`).
pub fn p1evl(x: &Expr, coef: &[f64]) -> Expr {
    let t = x.ty;
    let mut r = bin(B::Add, x.clone(), fconst(t, coef[0]));
    for &k in &coef[1..] {
        r = bin(B::Add, bin(B::Mul, r, x.clone()), fconst(t, k));
    }
    r
}

/// Cephes' `chbevl`: the Chebyshev series `coef[0] T_{n-1}(x/2) + ... + coef[n-1] / 2` by
/// Clenshaw's recurrence, as Cephes sums it (`b0 = x b1 - b2 + coef[i]`, then
/// `(b0 - b2) / 2`); `x` is the doubled argument, in `[-2, 2]`. Each step is bound (`b0` is
/// used twice by the next).
pub fn chbevl(b: &mut dyn Bind, x: &Expr, coef: &[f64]) -> Expr {
    let t = x.ty;
    let mut b0 = fconst(t, coef[0]);
    let mut b1 = fconst(t, 0.0);
    let mut b2 = b1.clone();
    for &k in &coef[1..] {
        b2 = b1;
        b1 = b0;
        b0 = b.bind(bin(
            B::Add,
            bin(B::Sub, bin(B::Mul, x.clone(), b1.clone()), b2.clone()),
            fconst(t, k),
        ));
    }
    bin(B::Mul, fconst(t, 0.5), bin(B::Sub, b0, b2))
}
