//! The hipRTC options of generated kernels. Everything else about turning IR kernels into
//! launches (the HIP flavour of the shared C++ emitter, layout class, index width, grids, the
//! reduction's splits) is shared with CUDA: [`cupy_core::kernel::cpp`] and
//! [`cupy_core::gpu::launch`].

/// hipRTC options for one gfx target. `arch` may carry target features
/// (`gfx90a:sramecc+:xnack-`): the code object must match the device's mode to load.
pub fn compile_options(arch: &str) -> Vec<String> {
    // No FMA contraction: a fused expression must round like NumPy's op-by-op result.
    vec![
        format!("--offload-arch={arch}"),
        "-O3".into(),
        "-ffp-contract=off".into(),
    ]
}
