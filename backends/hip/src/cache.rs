//! hipRTC compilation through the shared on-disk cache ([`cupy_core::gpu::disk_cache`]:
//! `CUPY_CACHE_DIR/hip/<key>.hsaco`, keyed by source + hipRTC version + gfx target + options +
//! the format version). Used for generated kernels, `hip-kernels/` and raw (user) modules.

use crate::result::Rtc;
use cupy_core::gpu::disk_cache::{
    key_options_named, module_key, pack_lowered, unpack_lowered, CompileStats, DiskCache,
};
use cupy_core::{Error, Result};

/// The HIP backend's directory of the shared disk cache.
pub const DISK: DiskCache = DiskCache::for_backend("hip", "hsaco", "cupy-hip");

/// The disk key of a module compiled by hipRTC `version` for `arch` with `options`.
pub fn hip_module_key(source: &str, version: (i32, i32), arch: &str, options: &[String]) -> String {
    module_key(
        source,
        &format!("hiprtc {}.{}", version.0, version.1),
        arch,
        options,
    )
}

/// Compiles `source` (program `name`) with hipRTC for `arch` with `options`, or takes the code
/// object from the disk cache when `load` accepts it (an empty or unloadable entry is replaced).
/// `label` names the device in errors.
///
/// # Errors
/// [`Error::Compile`] with hipRTC's log and the source (its backend names the hipRTC version
/// and the target); `load`'s error for a freshly compiled object; version-query errors.
#[allow(clippy::too_many_arguments)]
pub fn compile_cached<M>(
    rtc: &Rtc,
    label: &str,
    name: &str,
    source: &str,
    arch: &str,
    options: &[String],
    stats: &CompileStats,
    mut load: impl FnMut(&[u8]) -> Result<M>,
) -> Result<M> {
    let program = (name, source, arch);
    compile_cached_named(rtc, label, program, options, &[], stats, |code, _| {
        load(code)
    })
}

/// [`compile_cached`] of a program with name expressions (`names`, see
/// [`Rtc::compile_named`]): `load` also gets each expression's lowered name, which the disk
/// cache keeps in front of the code object.
///
/// # Errors
/// As [`compile_cached`].
pub fn compile_cached_named<M>(
    rtc: &Rtc,
    label: &str,
    (name, source, arch): (&str, &str, &str),
    options: &[String],
    names: &[String],
    stats: &CompileStats,
    mut load: impl FnMut(&[u8], &[(String, String)]) -> Result<M>,
) -> Result<M> {
    let t0 = std::time::Instant::now();
    let ver = rtc.version().map_err(|e| Error::Backend {
        backend: label.into(),
        msg: e.to_string(),
    })?;
    let key = hip_module_key(source, ver, arch, &key_options_named(options, names));
    let compile = || {
        rtc.compile_named(source, &format!("{name}.hip"), options, names)
            .map(|(code, _log, lowered)| match names.is_empty() {
                true => code,
                false => pack_lowered(&lowered, &code),
            })
            .map_err(|e| Error::Compile {
                backend: format!("{label} (hipRTC {}.{}, {arch})", ver.0, ver.1),
                kernel: name.into(),
                log: e.to_string(),
                source_code: source.into(),
            })
    };
    let unpack = |bytes: &[u8]| -> Result<M> {
        if names.is_empty() {
            return load(bytes, &[]);
        }
        match unpack_lowered(bytes) {
            Some((lowered, code)) if lowered.len() == names.len() => load(code, &lowered),
            _ => Err(Error::Backend {
                backend: label.into(),
                msg: "a cached module lost its lowered names".into(),
            }),
        }
    };
    DISK.load_or_compile(&key, name, t0, stats, compile, unpack)
        .map(|(m, _)| m)
}
