//! NVRTC compilation for the device's exact architecture, with an in-memory module cache keyed
//! by the source hash and an on-disk cache under `CUPY_CACHE_DIR` (default `~/.cache/cupy-rs`)
//! keyed by source hash + NVRTC version + arch + options + a format version.

use cudarc::driver::{result, sys};
use cudarc::nvrtc;
use cupy_core::{Error, Result};
use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Bumped whenever the cached file format or emitted code conventions change.
pub const CACHE_FORMAT: u32 = 1;

/// 128-bit FNV-1a (two independent 64-bit lanes); stable across runs and Rust versions.
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

/// A loaded module and its functions.
pub struct Module {
    pub(crate) module: sys::CUmodule,
    pub(crate) funcs: HashMap<String, sys::CUfunction>,
    /// Functions looked up by name after loading (raw modules).
    pub(crate) looked_up: std::sync::Mutex<HashMap<String, sys::CUfunction>>,
}

// SAFETY: module/function handles are usable from any thread with the context bound.
unsafe impl Send for Module {}
// SAFETY: as above.
unsafe impl Sync for Module {}

impl Module {
    /// The function named `name`.
    pub fn func(&self, name: &str) -> Option<sys::CUfunction> {
        self.funcs.get(name).copied()
    }

    /// The function named `name`, resolved with `cuModuleGetFunction` on first use (the
    /// context must be bound). `None` if the module has no such (unmangled) function.
    pub fn lookup(&self, name: &str) -> Option<sys::CUfunction> {
        if let Some(f) = self.func(name) {
            return Some(f);
        }
        let mut m = self.looked_up.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = m.get(name) {
            return Some(*f);
        }
        let c = CString::new(name).ok()?;
        // SAFETY: the module is loaded until the compiler drops.
        let f = unsafe { result::module::get_function(self.module, c) }.ok()?;
        m.insert(name.to_string(), f);
        Some(f)
    }
}

/// NVRTC options of a raw (user) module: the device's arch and C++17 unless the user's own
/// options choose them, then the user's options. No `--fmad=false` (NVRTC's default, as CuPy).
pub fn raw_options(arch: &str, user: &[String]) -> Vec<String> {
    let has = |p: &[&str]| user.iter().any(|o| p.iter().any(|q| o.starts_with(q)));
    let mut v = vec![];
    if !has(&["-arch", "--gpu-architecture"]) {
        v.push(format!("--gpu-architecture={arch}"));
    }
    if !has(&["-std", "--std"]) {
        v.push("-std=c++17".to_string());
    }
    v.extend(user.iter().cloned());
    v
}

/// Where a module came from, for tests and `show_config`.
#[derive(Default, Debug)]
pub struct CompileStats {
    /// Found in the in-memory cache.
    pub memory_hits: AtomicUsize,
    /// Loaded from the disk cache.
    pub disk_hits: AtomicUsize,
    /// Compiled with NVRTC.
    pub compiles: AtomicUsize,
}

/// The compiler for one device.
pub struct Compiler {
    pub(crate) cc: (i32, i32),
    pub(crate) label: String,
    pub(crate) cache: std::sync::Mutex<HashMap<String, Arc<Module>>>,
    pub(crate) stats: CompileStats,
}

fn nvrtc_missing() -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: "libnvrtc not found (install the CUDA toolkit's NVRTC, e.g. libnvrtc.so.13)".into(),
    }
}

/// NVRTC's version, or BackendUnavailable naming the library.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    let r = std::panic::catch_unwind(|| {
        // SAFETY: only checks whether the library can be opened.
        if !unsafe { nvrtc::sys::is_culib_present() } {
            return None;
        }
        let mut major = 0;
        let mut minor = 0;
        // SAFETY: plain out-parameters.
        let s = unsafe { nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
        (s == nvrtc::sys::nvrtcResult::NVRTC_SUCCESS).then_some((major, minor))
    });
    match r {
        Ok(Some(v)) => Ok(v),
        _ => Err(nvrtc_missing()),
    }
}

/// `CUPY_COMPILE_LOG` set (to anything but `0`): print where each module's time went.
fn compile_log() -> bool {
    static LOG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LOG.get_or_init(|| std::env::var("CUPY_COMPILE_LOG").is_ok_and(|v| v != "0"))
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUPY_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("cupy-rs"))
}

impl Compiler {
    pub(crate) fn new(cc: (i32, i32), label: String) -> Compiler {
        Compiler {
            cc,
            label,
            cache: Default::default(),
            stats: Default::default(),
        }
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        Error::Backend {
            backend: self.label.clone(),
            msg: msg.into(),
        }
    }

    /// Compiles (or finds) `source` and resolves `entries`.
    pub fn module(&self, kernel: &str, source: &str, entries: &[String]) -> Result<Arc<Module>> {
        self.module_with(kernel, source, entries, None)
    }

    /// Compiles (or finds) a raw (user) module with the user's NVRTC `options`, cached by
    /// (source, options); its functions are resolved by [`Module::lookup`].
    pub fn raw_module(
        &self,
        kernel: &str,
        source: &str,
        options: &[String],
    ) -> Result<Arc<Module>> {
        self.module_with(kernel, source, &[], Some(options))
    }

    fn module_with(
        &self,
        kernel: &str,
        source: &str,
        entries: &[String],
        raw: Option<&[String]>,
    ) -> Result<Arc<Module>> {
        let key = match raw {
            None => stable_hash(&[source.as_bytes()]),
            Some(o) => stable_hash(&[b"raw", source.as_bytes(), o.join("\u{1}").as_bytes()]),
        };
        if let Some(m) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            self.stats.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(m.clone());
        }
        let log = compile_log();
        let t0 = std::time::Instant::now();
        let (major, minor) = nvrtc_version()?;
        let t_version = t0.elapsed();
        let arch = format!("sm_{}{}", self.cc.0, self.cc.1);
        let opts = match raw {
            None => vec![
                format!("--gpu-architecture={arch}"),
                "-std=c++17".to_string(),
                // No FMA contraction: a fused expression must round like NumPy's op-by-op result.
                "--fmad=false".to_string(),
            ],
            Some(user) => raw_options(&arch, user),
        };
        let disk_key = stable_hash(&[
            source.as_bytes(),
            format!("nvrtc {major}.{minor}").as_bytes(),
            arch.as_bytes(),
            opts.join(if raw.is_some() { "\u{1}" } else { " " })
                .as_bytes(),
            format!("format {CACHE_FORMAT}").as_bytes(),
        ]);
        let path = cache_dir().map(|d| d.join(format!("{disk_key}.cubin")));
        let mut image: Option<Vec<u8>> = None;
        if let Some(p) = &path {
            if let Ok(bytes) = std::fs::read(p) {
                if !bytes.is_empty() {
                    image = Some(bytes);
                }
            }
        }
        let from_disk = image.is_some();
        let t_read = t0.elapsed();
        let image = match image {
            Some(i) => i,
            None => {
                let img = self.compile(kernel, source, &opts)?;
                self.stats.compiles.fetch_add(1, Ordering::Relaxed);
                if let Some(p) = &path {
                    if let Some(dir) = p.parent() {
                        let _ = std::fs::create_dir_all(dir);
                    }
                    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
                    if std::fs::write(&tmp, &img).is_ok() {
                        let _ = std::fs::rename(&tmp, p);
                    }
                }
                img
            }
        };
        let t_compiled = t0.elapsed();
        let module = match self.load(&image, entries) {
            Ok(m) => m,
            Err(e) if from_disk => {
                // A stale or corrupt cache entry: recompile.
                let _ = e;
                let img = self.compile(kernel, source, &opts)?;
                self.stats.compiles.fetch_add(1, Ordering::Relaxed);
                if let Some(p) = &path {
                    let _ = std::fs::write(p, &img);
                }
                self.load(&img, entries)?
            }
            Err(e) => return Err(e),
        };
        if from_disk {
            self.stats.disk_hits.fetch_add(1, Ordering::Relaxed);
        }
        if log {
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "cupy-cuda: module {kernel} ({}): nvrtc version {:.3} ms, disk lookup {:.3} ms, \
                 compile {:.3} ms, load {:.3} ms, total {:.3} ms",
                if from_disk { "disk cache" } else { "compiled" },
                ms(t_version),
                ms(t_read - t_version),
                ms(t_compiled - t_read),
                ms(t0.elapsed() - t_compiled),
                ms(t0.elapsed())
            );
        }
        let m = Arc::new(module);
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, m.clone());
        Ok(m)
    }

    fn load(&self, image: &[u8], entries: &[String]) -> Result<Module> {
        let mut img = image.to_vec();
        img.push(0); // harmless for a cubin, required for PTX
                     // SAFETY: a cubin/PTX image produced by NVRTC; the context is bound by the caller.
        let module = unsafe { result::module::load_data(img.as_ptr() as *const _) }
            .map_err(|e| self.err(format!("cuModuleLoadData failed: {e:?}")))?;
        let mut funcs = HashMap::new();
        for name in entries {
            let c = CString::new(name.as_str()).map_err(|e| self.err(e.to_string()))?;
            // SAFETY: the module was just loaded.
            let f = unsafe { result::module::get_function(module, c) }
                .map_err(|e| self.err(format!("cuModuleGetFunction({name}) failed: {e:?}")))?;
            funcs.insert(name.clone(), f);
        }
        Ok(Module {
            module,
            funcs,
            looked_up: Default::default(),
        })
    }

    /// Runs NVRTC; returns a CUBIN (or PTX when the exact arch is not supported by this NVRTC).
    pub fn compile(&self, kernel: &str, source: &str, opts: &[String]) -> Result<Vec<u8>> {
        let csrc = CString::new(source).map_err(|e| self.err(e.to_string()))?;
        let name = CString::new(format!("{kernel}.cu")).map_err(|e| self.err(e.to_string()))?;
        let run = |opts: &[String]| -> Result<std::result::Result<Vec<u8>, String>> {
            let prog = nvrtc::result::create_program(&csrc, Some(&name))
                .map_err(|e| self.err(format!("nvrtcCreateProgram failed: {e:?}")))?;
            // SAFETY: prog is live until destroyed below.
            let res = unsafe { nvrtc::result::compile_program(prog, opts) };
            // SAFETY: as above.
            let log = unsafe { nvrtc::result::get_program_log(prog) }
                .map(|v| {
                    let b: Vec<u8> = v.iter().map(|&c| c as u8).take_while(|&c| c != 0).collect();
                    String::from_utf8_lossy(&b).into_owned()
                })
                .unwrap_or_default();
            let out = match res {
                Err(_) => Ok(Err(log)),
                Ok(()) => {
                    let cubin = opts.iter().any(|o| o.contains("=sm_"));
                    // SAFETY: the program compiled; sizes come from NVRTC.
                    unsafe {
                        if cubin {
                            let mut n = 0usize;
                            nvrtc::sys::nvrtcGetCUBINSize(prog, &mut n);
                            let mut buf = vec![0u8; n];
                            nvrtc::sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char);
                            Ok(Ok(buf))
                        } else {
                            let ptx = nvrtc::result::get_ptx(prog)
                                .map_err(|e| self.err(format!("nvrtcGetPTX failed: {e:?}")))?;
                            Ok(Ok(ptx
                                .iter()
                                .map(|&c| c as u8)
                                .take_while(|&c| c != 0)
                                .collect()))
                        }
                    }
                }
            };
            // SAFETY: destroy once.
            let _ = unsafe { nvrtc::result::destroy_program(prog) };
            out
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(opts)))
            .map_err(|_| nvrtc_missing())??;
        match r {
            Ok(img) => Ok(img),
            Err(log) if log.contains("gpu-architecture") || log.contains("invalid value") => {
                // This NVRTC does not know the exact sm_XX: fall back to PTX for compute_XX.
                let ptx_opts: Vec<String> = opts
                    .iter()
                    .map(|o| o.replace("=sm_", "=compute_"))
                    .collect();
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&ptx_opts)))
                    .map_err(|_| nvrtc_missing())??
                {
                    Ok(img) => Ok(img),
                    Err(log) => Err(Error::Compile {
                        backend: self.label.clone(),
                        kernel: kernel.into(),
                        log,
                        source_code: source.into(),
                    }),
                }
            }
            Err(log) => Err(Error::Compile {
                backend: self.label.clone(),
                kernel: kernel.into(),
                log,
                source_code: source.into(),
            }),
        }
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        for (_, m) in self.cache.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            if let Ok(m) = Arc::try_unwrap(m) {
                // SAFETY: no function of the module is referenced any more.
                let _ = unsafe { result::module::unload(m.module) };
            }
        }
    }
}
