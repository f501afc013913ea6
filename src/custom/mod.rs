//! User-defined kernels: [`fuse`](fuse::fuse) (traced closures) and CuPy's
//! `ElementwiseKernel`/`ReductionKernel` strings, which run on every backend, and
//! `RawKernel`/`RawModule` (backend-native source: CUDA/HIP C++ or WGSL).

pub mod elementwise;
pub mod fuse;
pub mod raw;
mod reduce_first;

use cupy_core::error::{Error, Result};

/// Checks a kernel name is a C identifier (letters, digits, `_`; not starting with a digit), as
/// generated sources and compiler entry points need.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` and the rejected name.
pub(crate) fn check_identifier(op: &str, name: &str) -> Result<()> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("{name:?} is not a kernel name (an identifier such as my_kernel)"),
        ))
    }
}
