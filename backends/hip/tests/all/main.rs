//! cupy-hip tests: one binary. They need no AMD GPU: they load the real HIP runtime (ROCm's
//! libamdhip64, which works without a device), check our FFI against ROCm's headers with the
//! system C++ compiler, and compile every generated kernel family with hipRTC for several gfx
//! targets. Each test skips with a NOTICE when ROCm is absent, unless `CUPY_REQUIRE_HIP=1`.

// The hand-written kernels of hip-kernels/ (shared by emu and kernels).
use cupy_core::gpu::sortscan as hk_sources;

mod emu;
mod emu_complex;
mod ffi_header;
mod kernels;
mod raw;
mod runtime;

/// True when the environment demands the ROCm pieces be present (CI).
pub fn required() -> bool {
    std::env::var("CUPY_REQUIRE_HIP").is_ok_and(|v| v == "1")
}

/// Skips (returns `true`) with a notice, or panics when [`required`].
pub fn skip(why: &str) -> bool {
    if required() {
        panic!("CUPY_REQUIRE_HIP=1 but {why}");
    }
    eprintln!("NOTICE: skipping: {why}");
    true
}
