//! Raw HIP C++ kernels (`RawKernel` / `RawModule` on the HIP backend): hipRTC compilation with
//! the user's options for one gfx target (cached on disk like generated kernels), launch limits,
//! and by-value argument packing. Everything here except the launch itself works without an AMD
//! GPU, which is how CI checks it.

use crate::cache;
use crate::result::Rtc;
use cupy_core::gpu::disk_cache::{CompileStats, LoweredNames};
use cupy_core::{Error, Result};

/// hipRTC options of a raw (user) module: `--offload-arch=<arch>` and `-O3` unless the user's
/// options choose them, then the user's options. No `-ffp-contract=off` (hipRTC's default, as
/// CuPy leaves it).
pub fn raw_compile_options(arch: &str, user: &[String]) -> Vec<String> {
    let has = |p: &[&str]| user.iter().any(|o| p.iter().any(|q| o.starts_with(q)));
    let mut v = vec![];
    if !has(&["--offload-arch", "--gpu-architecture", "-arch"]) {
        v.push(format!("--offload-arch={arch}"));
    }
    if !has(&["-O"]) {
        v.push("-O3".into());
    }
    v.extend(user.iter().cloned());
    v
}

/// Compiles a raw module for `arch` (e.g. `gfx90a` or `gfx90a:sramecc+:xnack-`) with the user's
/// `options`, through the disk cache (`CUPY_CACHE_DIR/hip`, keyed by source + hipRTC version +
/// arch + options + format version). `label` names the device in errors; `kernel` names the
/// program. Needs hipRTC, not a GPU.
///
/// # Errors
/// [`Error::Compile`] with hipRTC's log (file:line:column: error: ...) and the source;
/// [`Error::BackendUnavailable`] when hipRTC cannot be loaded.
pub fn compile_raw(
    label: &str,
    kernel: &str,
    source: &str,
    arch: &str,
    options: &[String],
) -> Result<Vec<u8>> {
    compile_raw_named(label, kernel, source, arch, options, &[]).map(|(code, _)| code)
}

/// [`compile_raw`] with name expressions (`RawModule`'s `name_expressions`): the code object
/// and each expression's lowered (mangled) name, in order.
///
/// # Errors
/// As [`compile_raw`]; a name expression hipRTC cannot lower.
pub fn compile_raw_named(
    label: &str,
    kernel: &str,
    source: &str,
    arch: &str,
    options: &[String],
    names: &[String],
) -> Result<(Vec<u8>, LoweredNames)> {
    build_raw(
        label,
        (kernel, source, arch),
        options,
        names,
        &CompileStats::default(),
        |code, lowered| Ok((code.to_vec(), lowered.to_vec())),
    )
}

/// As [`compile_raw_named`], handing the code object and the lowered names to `load` (an
/// unloadable cached one is recompiled).
pub(crate) fn build_raw<M>(
    label: &str,
    program: (&str, &str, &str),
    options: &[String],
    names: &[String],
    stats: &CompileStats,
    load: impl FnMut(&[u8], &[(String, String)]) -> Result<M>,
) -> Result<M> {
    let rtc = Rtc::get().map_err(|e| Error::BackendUnavailable {
        backend: "hip".into(),
        reason: format!("hipRTC unavailable: {e}"),
    })?;
    let opts = raw_compile_options(program.2, options);
    cache::compile_cached_named(&rtc, label, program, &opts, names, stats, load)
}

/// HIP's launch limits, checked before the runtime sees the launch: every dimension at least 1,
/// at most `max_threads` threads per block (1024 on current AMD GPUs), and grid x block at most
/// 2^32 - 1 threads per dimension (HIP counts grids in threads).
pub fn check_raw_dims(op: &str, grid: [u32; 3], block: [u32; 3], max_threads: u32) -> Result<()> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} and block {block:?} must be at least 1 in every dimension"),
        ));
    }
    let threads: u64 = block.iter().map(|&b| b as u64).product();
    if threads > max_threads as u64 {
        return Err(Error::invalid(
            op,
            format!(
                "block {block:?} has {threads} threads, more than the limit of {max_threads} \
                 threads per block"
            ),
        ));
    }
    if grid
        .iter()
        .zip(&block)
        .any(|(&g, &b)| g as u64 * b as u64 > u32::MAX as u64)
    {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} x block {block:?} exceeds 2^32 - 1 threads in a dimension"),
        ));
    }
    Ok(())
}

/// One kernel argument's bytes as `hipModuleLaunchKernel`'s `kernelParams` entry points to
/// (shared with CUDA).
pub use cupy_core::gpu::launch::raw_scalar_slot as scalar_slot;

#[cfg(test)]
mod tests {
    use super::*;
    use cupy_core::Scalar;

    #[test]
    fn options_and_limits() {
        assert_eq!(
            raw_compile_options("gfx90a", &["-DN=3".into()]),
            vec!["--offload-arch=gfx90a", "-O3", "-DN=3"]
        );
        assert_eq!(
            raw_compile_options("gfx90a", &["--offload-arch=gfx1030".into(), "-O1".into()]),
            vec!["--offload-arch=gfx1030", "-O1"]
        );
        assert!(check_raw_dims("k", [1, 1, 1], [1024, 1, 1], 1024).is_ok());
        assert!(check_raw_dims("k", [0, 1, 1], [1, 1, 1], 1024).is_err());
        assert!(check_raw_dims("k", [1, 1, 1], [64, 32, 1], 1024).is_err());
        assert!(check_raw_dims("k", [1 << 23, 1, 1], [1024, 1, 1], 1024).is_err());
        let s = scalar_slot(&Scalar::Bool(true));
        assert_eq!(s, [1, 0]);
        let s = scalar_slot(&Scalar::Float32(1.0).cast(cupy_core::DType::Float16));
        assert_eq!(s[0], 0x3c00);
    }
}
