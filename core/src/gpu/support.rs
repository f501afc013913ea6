//! What the CUDA and HIP backends can run, answered without a device: the C++ emitter's
//! verdict (shared by both). Used for `docs/api-coverage.md`.

use crate::kernel::cpp::{self, ElementwiseClass, ElementwiseSpec, Flavor, ReduceSpec};
use crate::kernel::ir::{Kernel, ReduceKernel};

/// `Ok` when the C++ emitter accepts `k` as a contiguous elementwise launch.
///
/// # Errors
/// The emitter's refusal, as text.
pub fn check_kernel(k: &Kernel, flavor: Flavor) -> Result<(), String> {
    k.validate().map_err(|e| e.to_string())?;
    let spec = ElementwiseSpec {
        ndim: 1,
        class: ElementwiseClass::Contiguous,
        index64: false,
    };
    cpp::emit_elementwise(k, &spec, flavor)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `Ok` when the C++ emitter accepts `k` as a one-axis reduction.
///
/// # Errors
/// The emitter's refusal, as text.
pub fn check_reduction(k: &ReduceKernel, flavor: Flavor) -> Result<(), String> {
    let spec = ReduceSpec {
        out_ndim: 1,
        red_ndim: 1,
        index64: false,
    };
    cpp::emit_reduce(k, &spec, flavor)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
