//! The backends compiled into this build, in discovery order (cuda, hip, wgpu, cpu). Each loads
//! its vendor libraries at run time, so this list costs nothing on a machine without them.

use cupy_core::BackendProvider;

/// Every backend provider of this build.
pub(crate) fn providers() -> Vec<Box<dyn BackendProvider>> {
    vec![
        Box::new(cupy_cuda::CudaProvider),
        Box::new(cupy_hip::HipProvider),
        Box::new(cupy_wgpu::WgpuProvider),
        Box::new(cupy_cpu::CpuProvider),
    ]
}
