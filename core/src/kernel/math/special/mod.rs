//! `cupyx.scipy.special`'s functions as IR compositions: one definition for every backend (the
//! ufuncs of [`cupy::scipy::special`](../../../../cupy/scipy/special/index.html)). Each takes
//! operands already converted to the float dtype it computes in (float32 or float64) and returns
//! an expression of that dtype. The algorithms are SciPy's (its `xsf` library, which carries
//! Cephes); each file names its sources.

mod convenience;
mod error_function;

pub use convenience::{
    entr, expit, huber, kl_div, log_expit, logit, pseudo_huber, rel_entr, xlog1py, xlogy,
};
pub use error_function::{erf, erfc, erfcinv, erfcx, erfinv, log_ndtr, ndtr, ndtri, p1evl, polevl};

mod gamma;

pub use gamma::{digamma, gamma, gammaln, loggamma, rgamma};
