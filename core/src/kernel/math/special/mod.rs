//! `cupyx.scipy.special`'s functions as IR compositions: one definition for every backend (the
//! ufuncs of [`cupy::scipy::special`](../../../../cupy/scipy/special/index.html)). Each takes
//! operands already converted to the float dtype it computes in (float32 or float64) and returns
//! an expression of that dtype. The algorithms are SciPy's (its `xsf` library, which carries
//! Cephes); each file names its sources.

mod convenience;
mod error_function;
mod gamma;

use super::{bin, fconst};
use crate::kernel::ir::{BinaryOp as B, Expr};

pub use convenience::{
    entr, expit, huber, kl_div, log_expit, logit, pseudo_huber, rel_entr, xlog1py, xlogy,
};
pub use error_function::{erf, erfc, erfcinv, erfcx, erfinv, log_ndtr, ndtr, ndtri};
pub use gamma::{digamma, gamma, gammaln, loggamma, rgamma};

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
