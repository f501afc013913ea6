//! The backends compiled into this build, in discovery order.

use cupy_core::BackendProvider;

/// Every backend provider of this build.
pub(crate) fn providers() -> Vec<Box<dyn BackendProvider>> {
    vec![Box::new(cupy_cpu::CpuProvider)]
}
