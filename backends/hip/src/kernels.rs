//! The hipRTC options of generated kernels. Everything else about turning IR kernels into
//! launches (the HIP flavour of the shared C++ emitter, layout class, index width, grids, the
//! reduction's splits) is shared with CUDA: [`cupy_core::kernel::cpp`] and
//! [`cupy_core::gpu::launch`].

/// The hipRTC flags of a user kernel's `options=` (`ElementwiseKernel`): `--use_fast_math`
/// (also `-use_fast_math`) as clang's `-ffast-math`, and `-O0`..`-O3` (replacing the default
/// `-O3`). `-D`/`--define-macro` are not passed: they were applied to the kernel's text before
/// it became IR, and as compiler macros they would also rename identifiers of the generated
/// prelude. `-std=` is dropped: the generated code is C++17.
pub fn user_flags(options: &[String]) -> Vec<String> {
    options
        .iter()
        .filter_map(|o| {
            if matches!(o.as_str(), "-O0" | "-O1" | "-O2" | "-O3") {
                Some(o.clone())
            } else if matches!(o.as_str(), "--use_fast_math" | "-use_fast_math") {
                Some("-ffast-math".into())
            } else {
                None
            }
        })
        .collect()
}

/// [`compile_options`] with a user kernel's flags (see [`user_flags`]) after them: an `-O`
/// level replaces the default one, `-ffast-math` drops `-ffp-contract=off`.
pub fn compile_options_with(arch: &str, extra: &[String]) -> Vec<String> {
    let mut v = compile_options(arch);
    if extra.iter().any(|o| o.starts_with("-O")) {
        v.retain(|o| !o.starts_with("-O"));
    }
    if extra.iter().any(|o| o == "-ffast-math") {
        v.retain(|o| o != "-ffp-contract=off");
    }
    v.extend(extra.iter().cloned());
    v
}

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
