//! User-defined kernels: [`fuse`](fuse::fuse) (traced closures) and CuPy's
//! `ElementwiseKernel`/`ReductionKernel` strings, which run on every backend, and
//! `RawKernel`/`RawModule` (backend-native source: CUDA/HIP C++ or WGSL).

pub mod elementwise;
pub mod fuse;
mod params;
pub mod raw;
mod reduce_first;
pub mod reduction;

use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;

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

/// Evaluates constant IR expressions (no inputs, parameters or locals) with the IR's semantics,
/// on the host: one single-element launch on the cpu backend (built into every binary), whose
/// block evaluator implements every IR node. Used where the frontend must know a value the
/// kernel strings imply (a `ReductionKernel` identity's neutrality, ops among `fuse`'s weak
/// scalars).
///
/// # Errors
/// [`Error::BackendUnavailable`] if the cpu backend does not open; IR validation errors.
pub(crate) fn eval_host(op: &str, exprs: Vec<cupy_core::kernel::ir::Expr>) -> Result<Vec<Scalar>> {
    use cupy_core::kernel::ir::{Kernel, Stmt};
    let cpu = crate::device::Device::get(crate::BackendKind::Cpu, 0)?;
    let kernel = Kernel {
        name: format!("{op}_host_eval"),
        inputs: vec![],
        outputs: exprs.iter().map(|e| e.ty).collect(),
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: exprs
            .into_iter()
            .enumerate()
            .map(|(output, value)| Stmt::Store { output, value })
            .collect(),
    };
    let outs = crate::launch::Elementwise {
        op,
        kernel: &kernel,
        inputs: &[],
        raws: &[],
        params: vec![],
        outs: vec![None; kernel.outputs.len()],
        device: Some(&cpu),
        shape: Some(&[1]),
    }
    .run()?;
    outs.iter().map(|a| a.item()).collect()
}
