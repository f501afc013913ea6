//! Kernel cache keys and the on-disk code-object cache (`CUPY_CACHE_DIR`, default
//! `~/.cache/cupy-rs`, files under `hip/`).

use std::path::PathBuf;

/// Bumped whenever the emitted code, the compile options or the file format change meaning.
pub const FORMAT_VERSION: u32 = 1;

/// A stable 128-bit FNV-1a hash (two 64-bit lanes with different offsets), hex-encoded. Stable
/// across Rust versions and runs, unlike `DefaultHasher`.
pub fn stable_hash(parts: &[&[u8]]) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for p in parts {
        for &x in p.iter().chain(&[0xffu8]) {
            a = (a ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ x as u64)
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    format!("{a:016x}{b:016x}")
}

/// The on-disk key of one compiled module: source hash + hipRTC version + gfx arch + options +
/// [`FORMAT_VERSION`].
pub fn module_key(source: &str, rtc_version: (i32, i32), arch: &str, options: &[String]) -> String {
    let v = format!(
        "hiprtc {}.{} fmt {FORMAT_VERSION}",
        rtc_version.0, rtc_version.1
    );
    let opts = options.join("\u{1}");
    stable_hash(&[
        source.as_bytes(),
        v.as_bytes(),
        arch.as_bytes(),
        opts.as_bytes(),
    ])
}

/// The cache directory for HIP code objects, if one can be determined.
pub fn cache_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("CUPY_CACHE_DIR") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/cupy-rs"),
    };
    Some(base.join("hip"))
}

/// Reads a cached code object.
pub fn load(key: &str) -> Option<Vec<u8>> {
    let p = cache_dir()?.join(format!("{key}.hsaco"));
    std::fs::read(p).ok().filter(|b| !b.is_empty())
}

/// Stores a code object (atomically: temporary file, then rename). Failures are ignored: the
/// cache is an optimisation.
pub fn store(key: &str, code: &[u8]) {
    let Some(dir) = cache_dir() else { return };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, code).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(format!("{key}.hsaco")));
    }
    let _ = std::fs::remove_file(&tmp);
}
