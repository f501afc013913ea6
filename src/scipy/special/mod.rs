//! `cupyx.scipy.special`: SciPy's special functions as ufuncs over IR compositions
//! ([`cupy_core::kernel::math::special`]), so every backend computes them with the same
//! algorithm; plus `logsumexp`, `softmax` and `log_softmax`, composed from reductions.
//!
//! The type rules are SciPy's loops (`f->f`/`d->d`, searched in SciPy's order:
//! [`Rule::SpecialFloatFirst`], [`Rule::SpecialDoubleFirst`]): float32 alone stays float32,
//! float64 stays, bool, integers and float16 go to float32 or float64 as SciPy's loop order
//! picks; complex inputs are refused (SciPy's complex loops of `xlogy` and friends are not here
//! yet). Where SciPy's float32 loop computes in float64 and rounds (the gamma, Bessel, basic
//! and beta families, `kl_div`, `erfc`, `erfcx`, `ndtr`, `log_ndtr`), so do these
//! (`via_double`); the other float32 loops compute in float32, as CuPy's kernels do.
//!
//! ```no_run
//! use cupy as cp;
//! use cp::scipy::special;
//! # fn main() -> cp::Result<()> {
//! let x = cp::linspace(-3.0, 3.0, 7)?;
//! let p = special::expit(&x)?; // the logistic sigmoid
//! let back = special::logit(&p)?;
//! let s = special::softmax(&x, None)?;
//! # Ok(()) }
//! ```
//!
//! [`Rule::SpecialFloatFirst`]: crate::math::ufunc::Rule::SpecialFloatFirst
//! [`Rule::SpecialDoubleFirst`]: crate::math::ufunc::Rule::SpecialDoubleFirst

pub mod basic;
pub mod bessel;
pub mod beta;
pub mod convenience;
pub mod error_function;
pub mod gamma;
pub mod log_softmax;

pub use basic::*;
pub use bessel::{i0, i0e, i1, i1e, j0, j1, k0, k0e, k1, k1e, y0, y1};
pub use beta::*;
pub use convenience::*;
pub use error_function::*;
pub use gamma::{digamma, gamma, gammaln, loggamma, psi, rgamma};

/// The ufunc objects of every family (`cupyx.scipy.special.<name>` as a value).
#[allow(non_upper_case_globals)]
pub mod ufuncs {
    pub use super::basic::ufuncs::*;
    pub use super::bessel::ufuncs::*;
    pub use super::beta::ufuncs::*;
    pub use super::convenience::ufuncs::*;
    pub use super::error_function::ufuncs::*;
    pub use super::gamma::ufuncs::*;
}
pub use log_softmax::{log_softmax, logsumexp, logsumexp_with, softmax, LogSumExp};

/// The families, in table order.
const FAMILIES: &[&[crate::math::ufunc::Ufunc]] = &[
    convenience::ALL,
    error_function::ALL,
    gamma::ALL,
    bessel::ALL,
    basic::ALL,
    beta::ALL,
];

/// Every `cupyx.scipy.special` ufunc cupy-rs declares.
pub fn all_ufuncs() -> impl Iterator<Item = &'static crate::math::ufunc::Ufunc> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// `f` computed in float64 for a float32 loop (`c`) and rounded back, as SciPy's float32 loops
/// of most functions do (for bodies whose float32 evaluation would lose digits); in `c`
/// otherwise.
fn via_double(
    c: cupy_core::dtype::DType,
    f: impl FnOnce(cupy_core::dtype::DType) -> cupy_core::kernel::ir::Expr,
) -> cupy_core::kernel::ir::Expr {
    match c {
        cupy_core::dtype::DType::Float32 => f(cupy_core::dtype::DType::Float64).cast(c),
        _ => f(c),
    }
}

/// The `cupyx.scipy.special` ufunc named `name`, if cupy-rs declares it.
pub fn ufunc(name: &str) -> Option<&'static crate::math::ufunc::Ufunc> {
    all_ufuncs().find(|u| u.name() == name)
}
