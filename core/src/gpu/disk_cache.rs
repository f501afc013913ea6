//! The on-disk cache of compiled GPU modules (CUDA cubin/PTX, HIP code objects), shared by the
//! CUDA and HIP backends: where files live, how they are keyed, how they are written, and what
//! happens with an empty or corrupt entry. The backends only say how to compile and load.
//!
//! - Directory: `$CUPY_CACHE_DIR/<backend>/` (default `~/.cache/cupy-rs/<backend>/`; an empty
//!   `CUPY_CACHE_DIR` counts as unset), read when a module is looked up (not when the backend
//!   opens), so a test may point it elsewhere at any time.
//! - File: `<key>.<ext>` (`.cubin` for CUDA, `.hsaco` for HIP), where `key` is
//!   [`module_key`]: a stable hash of the source, the compiler and its version, the target
//!   architecture, the compile options and [`FORMAT_VERSION`].
//! - Writes are atomic (a uniquely named temporary file, then a rename), so a reader never sees a
//!   partial file; failures to write are ignored (the cache is an optimisation).
//! - An empty file is a miss; an entry the driver refuses to load is recompiled and overwritten.

use crate::error::Result;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Bumped whenever the key's recipe, the emitted code conventions, the compile options or the
/// file format change meaning (old files are then never read again).
///
/// Version 2: one key recipe for CUDA and HIP (options joined with `\u{1}`), files under a
/// per-backend directory (`cuda/`, `hip/`).
pub const FORMAT_VERSION: u32 = 2;

/// A stable 128-bit FNV-1a hash (two 64-bit lanes with different offsets), hex-encoded; every
/// part is followed by a `0xff` separator. Stable across runs and Rust versions (unlike
/// `DefaultHasher`).
pub fn stable_hash(parts: &[&[u8]]) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for p in parts {
        for &x in p.iter().chain([0xffu8].iter()) {
            a = (a ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ x as u64)
                .wrapping_mul(0x0000_0100_0000_01b3)
                .rotate_left(5);
        }
    }
    format!("{a:016x}{b:016x}")
}

/// The on-disk key of one compiled module. `compiler` names the compiler and its version
/// (`"nvrtc 13.0"`, `"hiprtc 5.2"`), `arch` the exact target (`"sm_90"`,
/// `"gfx90a:sramecc+:xnack-"`), `options` the full compile options, in order.
pub fn module_key(source: &str, compiler: &str, arch: &str, options: &[String]) -> String {
    stable_hash(&[
        source.as_bytes(),
        compiler.as_bytes(),
        arch.as_bytes(),
        options.join("\u{1}").as_bytes(),
        format!("format {FORMAT_VERSION}").as_bytes(),
    ])
}

/// The key of a raw (user) module in a backend's in-memory cache: its source and options.
pub fn raw_module_key(source: &str, options: &[String]) -> String {
    stable_hash(&[b"raw", source.as_bytes(), options.join("\u{1}").as_bytes()])
}

/// [`raw_module_key`] of a module compiled with name expressions (`RawModule`'s
/// `name_expressions`, which instantiate templates): the same key without any.
pub fn raw_module_key_named(source: &str, options: &[String], names: &[String]) -> String {
    if names.is_empty() {
        return raw_module_key(source, options);
    }
    stable_hash(&[
        b"raw",
        source.as_bytes(),
        options.join("\u{1}").as_bytes(),
        b"names",
        names.join("\u{1}").as_bytes(),
    ])
}

/// The options a disk key of a module with name expressions is computed from: `options`, then
/// one `name-expression=...` entry per expression (never passed to a compiler).
pub fn key_options_named(options: &[String], names: &[String]) -> Vec<String> {
    let mut v = options.to_vec();
    v.extend(names.iter().map(|n| format!("name-expression={n}")));
    v
}

/// The lowered (mangled) name of each name expression of a module: (expression, lowered
/// name), in the order the expressions were given.
pub type LoweredNames = Vec<(String, String)>;

/// Marks a cached image that carries the lowered names of its name expressions.
const LOWERED_MAGIC: &[u8] = b"cupy-rs lowered names 1\0";

/// A compiled image with the lowered (mangled) names of its name expressions in front, so a
/// module read back from the disk cache knows them without the compiler: the magic, a count,
/// then per name its expression and lowered name (each a little-endian `u32` length and the
/// bytes), then the image.
pub fn pack_lowered(lowered: &[(String, String)], image: &[u8]) -> Vec<u8> {
    let mut out = LOWERED_MAGIC.to_vec();
    out.extend((lowered.len() as u32).to_le_bytes());
    for (e, l) in lowered {
        for s in [e, l] {
            out.extend((s.len() as u32).to_le_bytes());
            out.extend(s.as_bytes());
        }
    }
    out.extend(image);
    out
}

/// The lowered names and the image of [`pack_lowered`]'s output; an image without them gives
/// no names. `None` for a truncated or malformed header.
pub fn unpack_lowered(bytes: &[u8]) -> Option<(LoweredNames, &[u8])> {
    let Some(mut rest) = bytes.strip_prefix(LOWERED_MAGIC) else {
        return Some((vec![], bytes));
    };
    let take_u32 = |rest: &mut &[u8]| -> Option<usize> {
        let (n, r) = rest.split_at_checked(4)?;
        *rest = r;
        Some(u32::from_le_bytes(n.try_into().ok()?) as usize)
    };
    let count = take_u32(&mut rest)?;
    let mut names = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let mut pair = [String::new(), String::new()];
        for s in &mut pair {
            let n = take_u32(&mut rest)?;
            let (b, r) = rest.split_at_checked(n)?;
            *s = String::from_utf8(b.to_vec()).ok()?;
            rest = r;
        }
        let [e, l] = pair;
        names.push((e, l));
    }
    Some((names, rest))
}

/// The cache's root: `CUPY_CACHE_DIR` when set and not empty, else `~/.cache/cupy-rs`; `None`
/// without either (no cache).
pub fn cache_root() -> Option<PathBuf> {
    match std::env::var_os("CUPY_CACHE_DIR") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".cache").join("cupy-rs")),
    }
}

/// Where a module came from, for tests and `show_config`.
#[derive(Default, Debug)]
pub struct CompileStats {
    /// Found in the in-memory cache.
    pub memory_hits: AtomicUsize,
    /// Loaded from the disk cache.
    pub disk_hits: AtomicUsize,
    /// Compiled (NVRTC or hipRTC).
    pub compiles: AtomicUsize,
}

/// Where [`DiskCache::load_or_compile`] got a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A cached file that loaded.
    Disk,
    /// Compiled now (and stored).
    Compiled,
}

/// One backend's directory of compiled modules (see the module docs).
#[derive(Clone, Debug)]
pub struct DiskCache {
    /// Sub-directory of [`cache_root`] (`"cuda"`, `"hip"`), or a fixed directory.
    place: Place,
    /// File extension, without the dot.
    ext: &'static str,
    /// Name printed by `CUPY_COMPILE_LOG` (`"cupy-cuda"`).
    log_name: &'static str,
}

#[derive(Clone, Debug)]
enum Place {
    Backend(&'static str),
    Fixed(Option<PathBuf>),
}

/// `CUPY_COMPILE_LOG` set (to anything but `0`): print where each module's time went.
fn compile_log() -> bool {
    static LOG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LOG.get_or_init(|| std::env::var("CUPY_COMPILE_LOG").is_ok_and(|v| v != "0"))
}

impl DiskCache {
    /// The cache of `backend` (a directory under [`cache_root`]) with files `<key>.<ext>`;
    /// `log_name` prefixes `CUPY_COMPILE_LOG` lines.
    pub const fn for_backend(
        backend: &'static str,
        ext: &'static str,
        log_name: &'static str,
    ) -> DiskCache {
        DiskCache {
            place: Place::Backend(backend),
            ext,
            log_name,
        }
    }

    /// A cache in a fixed directory (`None`: no cache at all), for tests.
    pub fn in_dir(dir: Option<PathBuf>, ext: &'static str) -> DiskCache {
        DiskCache {
            place: Place::Fixed(dir),
            ext,
            log_name: "cupy",
        }
    }

    /// The directory, if there is one.
    pub fn dir(&self) -> Option<PathBuf> {
        match &self.place {
            Place::Backend(b) => cache_root().map(|r| r.join(b)),
            Place::Fixed(d) => d.clone(),
        }
    }

    /// The file of `key`.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.dir().map(|d| d.join(format!("{key}.{}", self.ext)))
    }

    /// The cached bytes of `key`; `None` when missing, unreadable or empty.
    pub fn read(&self, key: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(key)?)
            .ok()
            .filter(|b| !b.is_empty())
    }

    /// Stores `bytes` under `key` atomically (a temporary file unique to this process and call,
    /// then a rename over the final name). Returns whether the file was written; failures are
    /// otherwise ignored, and no temporary file is left behind.
    pub fn write(&self, key: &str, bytes: &[u8]) -> bool {
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        let (Some(dir), Some(path)) = (self.dir(), self.path(key)) else {
            return false;
        };
        if std::fs::create_dir_all(&dir).is_err() {
            return false;
        }
        let tmp = dir.join(format!(
            "{key}.{}.{}.tmp",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let ok = std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, &path).is_ok();
        if !ok {
            let _ = std::fs::remove_file(&tmp);
        }
        ok
    }

    /// The module of `key`: a cached file that `load` accepts, else `compile`d, `load`ed and
    /// stored (an empty or corrupt file is replaced). `started` is when the caller began (the
    /// key's computation, a compiler-version query) for the `CUPY_COMPILE_LOG` line; `name`
    /// names the module there. Counts disk hits and compiles in `stats`.
    ///
    /// # Errors
    /// `compile`'s error (the backend's `Error::Compile` with the log), or `load`'s error for a
    /// freshly compiled image.
    pub fn load_or_compile<M>(
        &self,
        key: &str,
        name: &str,
        started: Instant,
        stats: &CompileStats,
        mut compile: impl FnMut() -> Result<Vec<u8>>,
        mut load: impl FnMut(&[u8]) -> Result<M>,
    ) -> Result<(M, Origin)> {
        let t_key = started.elapsed();
        let image = self.read(key);
        let t_read = started.elapsed();
        let cached = image.and_then(|img| load(&img).ok());
        let (module, origin, t_compiled) = match cached {
            Some(m) => {
                stats.disk_hits.fetch_add(1, Ordering::Relaxed);
                (m, Origin::Disk, t_read)
            }
            None => {
                let img = compile()?;
                stats.compiles.fetch_add(1, Ordering::Relaxed);
                let t_compiled = started.elapsed();
                let m = load(&img)?;
                self.write(key, &img);
                (m, Origin::Compiled, t_compiled)
            }
        };
        if compile_log() {
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            let total = started.elapsed();
            eprintln!(
                "{}: module {name} ({}): compiler version + key {:.3} ms, disk lookup {:.3} ms, \
                 compile {:.3} ms, load {:.3} ms, total {:.3} ms",
                self.log_name,
                match origin {
                    Origin::Disk => "disk cache",
                    Origin::Compiled => "compiled",
                },
                ms(t_key),
                ms(t_read.saturating_sub(t_key)),
                ms(t_compiled.saturating_sub(t_read)),
                ms(total.saturating_sub(t_compiled)),
                ms(total)
            );
        }
        Ok((module, origin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn tmp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "cupy-disk-cache-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn stable_hash_is_stable() {
        // Fixed values: a change here orphans every cache on every machine (bump the format).
        assert_eq!(
            stable_hash(&[]),
            format!(
                "{:016x}{:016x}",
                0xcbf2_9ce4_8422_2325u64, 0x6c62_272e_07bb_0142u64
            )
        );
        assert_eq!(stable_hash(&[b"a"]), stable_hash(&[b"a"]));
        assert_ne!(stable_hash(&[b"ab"]), stable_hash(&[b"a", b"b"]));
        assert_eq!(stable_hash(&[b"x"]).len(), 32);
    }

    #[test]
    fn key_covers_source_compiler_arch_options_and_format() {
        let opts = vec!["--gpu-architecture=sm_90".to_string(), "-std=c++17".into()];
        let k = module_key("src", "nvrtc 13.0", "sm_90", &opts);
        assert_eq!(k, module_key("src", "nvrtc 13.0", "sm_90", &opts));
        assert_eq!(
            k,
            stable_hash(&[
                b"src",
                b"nvrtc 13.0",
                b"sm_90",
                "--gpu-architecture=sm_90\u{1}-std=c++17".as_bytes(),
                format!("format {FORMAT_VERSION}").as_bytes()
            ])
        );
        assert_ne!(k, module_key("src2", "nvrtc 13.0", "sm_90", &opts));
        assert_ne!(k, module_key("src", "nvrtc 12.8", "sm_90", &opts));
        assert_ne!(k, module_key("src", "nvrtc 13.0", "sm_80", &opts));
        assert_ne!(k, module_key("src", "nvrtc 13.0", "sm_90", &opts[..1]));
        // The option boundaries count: ["a b"] is not ["a", "b"].
        assert_ne!(
            module_key("s", "c", "a", &["-a -b".into()]),
            module_key("s", "c", "a", &["-a".into(), "-b".into()])
        );
        // gfx targets with their features are distinct targets.
        assert_ne!(
            module_key("s", "hiprtc 5.2", "gfx90a", &[]),
            module_key("s", "hiprtc 5.2", "gfx90a:sramecc+:xnack-", &[])
        );
        assert_ne!(
            raw_module_key("s", &[]),
            raw_module_key("s", &["-O1".into()])
        );
        assert_eq!(
            raw_module_key_named("s", &[], &[]),
            raw_module_key("s", &[])
        );
        assert_ne!(
            raw_module_key_named("s", &[], &["f<int>".into()]),
            raw_module_key("s", &[])
        );
    }

    /// Lowered names travel with the image in the cache; plain images pass through; a
    /// truncated header is refused.
    #[test]
    fn lowered_names_pack_and_unpack() {
        let names = vec![
            ("f<int>".to_string(), "_Z1fIiEvPT_".to_string()),
            ("g".to_string(), "g".to_string()),
        ];
        let packed = pack_lowered(&names, b"\x7fELF image");
        let (got, img) = unpack_lowered(&packed).expect("well formed");
        assert_eq!((got, img), (names, &b"\x7fELF image"[..]));
        assert_eq!(unpack_lowered(b"plain"), Some((vec![], &b"plain"[..])));
        assert_eq!(unpack_lowered(&packed[..LOWERED_MAGIC.len() + 6]), None);
        assert_eq!(
            key_options_named(&["-O1".into()], &["f<int>".into()]),
            ["-O1", "name-expression=f<int>"]
        );
    }

    #[test]
    fn write_is_atomic_and_read_skips_empty_files() {
        let dir = tmp_dir("rw");
        let c = DiskCache::in_dir(Some(dir.join("sub")), "bin");
        assert_eq!(c.read("k"), None);
        assert!(c.write("k", b"image"));
        assert_eq!(c.read("k").as_deref(), Some(&b"image"[..]));
        assert_eq!(c.path("k").unwrap(), dir.join("sub").join("k.bin"));
        // Overwrite in place; no temporary files remain.
        assert!(c.write("k", b"image2"));
        assert_eq!(c.read("k").as_deref(), Some(&b"image2"[..]));
        let names: Vec<String> = std::fs::read_dir(dir.join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["k.bin".to_string()]);
        // An empty file is a miss.
        std::fs::write(c.path("e").unwrap(), b"").unwrap();
        assert_eq!(c.read("e"), None);
        // No directory: nothing is cached, nothing fails.
        let none = DiskCache::in_dir(None, "bin");
        assert!(!none.write("k", b"x"));
        assert_eq!(none.read("k"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn concurrent_writers_leave_one_whole_file() {
        let dir = tmp_dir("race");
        let c = DiskCache::in_dir(Some(dir.clone()), "bin");
        let big: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..8 {
                        c.write("k", &big);
                        if let Some(got) = c.read("k") {
                            assert_eq!(got.len(), big.len());
                        }
                    }
                });
            }
        });
        assert_eq!(c.read("k").unwrap(), big);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fake driver: "compiles" to `GOOD`, loads only images starting with `GOOD`.
    fn run(c: &DiskCache, stats: &CompileStats, compiles: &mut usize) -> Result<(String, Origin)> {
        c.load_or_compile(
            "key",
            "m",
            Instant::now(),
            stats,
            || {
                *compiles += 1;
                Ok(b"GOOD module".to_vec())
            },
            |img| {
                if img.starts_with(b"GOOD") {
                    Ok(String::from_utf8_lossy(img).into_owned())
                } else {
                    Err(Error::invalid("load", "corrupt image"))
                }
            },
        )
    }

    #[test]
    fn load_or_compile_hits_disk_and_replaces_empty_or_corrupt_entries() {
        let dir = tmp_dir("loc");
        let c = DiskCache::in_dir(Some(dir.clone()), "bin");
        let stats = CompileStats::default();
        let mut compiles = 0;
        // Miss: compiled and stored.
        let (m, o) = run(&c, &stats, &mut compiles).unwrap();
        assert_eq!(
            (m.as_str(), o, compiles),
            ("GOOD module", Origin::Compiled, 1)
        );
        assert_eq!(c.read("key").as_deref(), Some(&b"GOOD module"[..]));
        // Hit.
        let (_, o) = run(&c, &stats, &mut compiles).unwrap();
        assert_eq!((o, compiles), (Origin::Disk, 1));
        // Empty file: recompiled and rewritten.
        std::fs::write(c.path("key").unwrap(), b"").unwrap();
        let (_, o) = run(&c, &stats, &mut compiles).unwrap();
        assert_eq!((o, compiles), (Origin::Compiled, 2));
        assert_eq!(c.read("key").as_deref(), Some(&b"GOOD module"[..]));
        // Corrupt file (the driver refuses it): recompiled and overwritten.
        std::fs::write(c.path("key").unwrap(), b"garbage").unwrap();
        let (_, o) = run(&c, &stats, &mut compiles).unwrap();
        assert_eq!((o, compiles), (Origin::Compiled, 3));
        assert_eq!(c.read("key").as_deref(), Some(&b"GOOD module"[..]));
        assert_eq!(stats.compiles.load(Ordering::Relaxed), 3);
        assert_eq!(stats.disk_hits.load(Ordering::Relaxed), 1);
        // A compile error propagates and stores nothing.
        let e = c
            .load_or_compile(
                "bad",
                "m",
                Instant::now(),
                &stats,
                || Err::<Vec<u8>, _>(Error::invalid("compile", "log")),
                |_| Ok(()),
            )
            .unwrap_err();
        assert!(e.to_string().contains("log"));
        assert_eq!(c.read("bad"), None);
        // A freshly compiled image that does not load: the error, and nothing stored.
        let e = c
            .load_or_compile(
                "unloadable",
                "m",
                Instant::now(),
                &stats,
                || Ok(b"x".to_vec()),
                |_| Err::<(), _>(Error::invalid("load", "bad image")),
            )
            .unwrap_err();
        assert!(e.to_string().contains("bad image"));
        assert_eq!(c.read("unloadable"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn backend_directories_follow_cupy_cache_dir() {
        // Only this test in core touches the variable.
        let dir = tmp_dir("env");
        std::env::set_var("CUPY_CACHE_DIR", &dir);
        let cuda = DiskCache::for_backend("cuda", "cubin", "cupy-cuda");
        let hip = DiskCache::for_backend("hip", "hsaco", "cupy-hip");
        assert_eq!(cuda.path("k").unwrap(), dir.join("cuda").join("k.cubin"));
        assert_eq!(hip.path("k").unwrap(), dir.join("hip").join("k.hsaco"));
        std::env::set_var("CUPY_CACHE_DIR", "");
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            assert_eq!(
                cuda.dir().unwrap(),
                PathBuf::from(home).join(".cache/cupy-rs/cuda")
            );
        }
        std::env::remove_var("CUPY_CACHE_DIR");
    }
}
