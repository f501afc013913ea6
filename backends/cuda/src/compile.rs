//! NVRTC compilation for the device's exact architecture, with an in-memory module cache keyed
//! by the source hash and the shared on-disk cache ([`cupy_core::gpu::disk_cache`]:
//! `CUPY_CACHE_DIR/cuda/<key>.cubin`, keyed by source + NVRTC version + arch + options + the
//! format version).

use cudarc::driver::{result, sys};
use cudarc::nvrtc;
use cupy_core::gpu::disk_cache::{
    key_options_named, module_key, pack_lowered, raw_module_key_named, stable_hash, unpack_lowered,
    DiskCache, LoweredNames,
};
use cupy_core::{Error, Result};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub use cupy_core::gpu::disk_cache::CompileStats;

/// The CUDA backend's directory of the shared disk cache.
const DISK: DiskCache = DiskCache::for_backend("cuda", "cubin", "cupy-cuda");

/// A loaded module and its functions.
pub struct Module {
    pub(crate) module: sys::CUmodule,
    pub(crate) funcs: HashMap<String, sys::CUfunction>,
    /// Functions looked up by name after loading (raw modules).
    pub(crate) looked_up: std::sync::Mutex<HashMap<String, sys::CUfunction>>,
    /// The lowered (mangled) name of each name expression the module was compiled with.
    pub(crate) lowered: HashMap<String, String>,
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

    /// The function named `name` (or by a name expression the module was compiled with),
    /// resolved with `cuModuleGetFunction` on first use (the context must be bound). `None` if
    /// the module has no such (unmangled) function.
    pub fn lookup(&self, name: &str) -> Option<sys::CUfunction> {
        let name = self.lowered.get(name).map_or(name, String::as_str);
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

/// The NVRTC flags of a user kernel's `options=` (`ElementwiseKernel`), added to the generated
/// code's own: `--use_fast_math` (also spelt `-use_fast_math`). `-D`/`--define-macro` are not
/// passed: they were applied to the kernel's text before it became IR, and as compiler macros
/// they would also rename identifiers of the generated prelude (`-DN=4` breaks its
/// `template <typename T, int N>`). `-std=` is dropped (the generated code is C++17, which an
/// older standard would not compile), and so are `-O0`..`-O3` (NVRTC takes no `-O` level).
pub fn user_flags(options: &[String]) -> Vec<String> {
    options
        .iter()
        .filter(|o| matches!(o.as_str(), "--use_fast_math" | "-use_fast_math"))
        .map(|_| "--use_fast_math".to_string())
        .collect()
}

/// The compiler for one device.
pub struct Compiler {
    pub(crate) cc: (i32, i32),
    pub(crate) label: String,
    pub(crate) cache: std::sync::Mutex<HashMap<String, Arc<Module>>>,
    pub(crate) stats: CompileStats,
}

fn nvrtc_missing() -> Error {
    crate::provider::NVRTC.unavailable()
}

/// NVRTC's version, or BackendUnavailable naming the library.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    if !crate::provider::NVRTC.present() {
        return Err(nvrtc_missing());
    }
    let r = std::panic::catch_unwind(|| {
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
        self.module_with(kernel, source, entries, None, &[], &[])
    }

    /// [`Compiler::module`] with `extra` NVRTC flags after the generated code's own (a user
    /// kernel's options, see [`user_flags`]); cached apart per flag list.
    pub fn module_opts(
        &self,
        kernel: &str,
        source: &str,
        entries: &[String],
        extra: &[String],
    ) -> Result<Arc<Module>> {
        self.module_with(kernel, source, entries, None, extra, &[])
    }

    /// Compiles (or finds) a raw (user) module with the user's NVRTC `options` and name
    /// expressions (`nvrtcAddNameExpression`), cached by (source, options, names); its
    /// functions are resolved by [`Module::lookup`], by name or name expression.
    pub fn raw_module(
        &self,
        kernel: &str,
        source: &str,
        options: &[String],
        names: &[String],
    ) -> Result<Arc<Module>> {
        self.module_with(kernel, source, &[], Some(options), &[], names)
    }

    fn module_with(
        &self,
        kernel: &str,
        source: &str,
        entries: &[String],
        raw: Option<&[String]>,
        extra: &[String],
        names: &[String],
    ) -> Result<Arc<Module>> {
        let key = match raw {
            None if extra.is_empty() => stable_hash(&[source.as_bytes()]),
            None => stable_hash(&[b"opts", source.as_bytes(), extra.join("\u{1}").as_bytes()]),
            Some(o) => raw_module_key_named(source, o, names),
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
        let t0 = std::time::Instant::now();
        let (major, minor) = nvrtc_version()?;
        let arch = format!("sm_{}{}", self.cc.0, self.cc.1);
        let opts = match raw {
            None => {
                let mut v = vec![
                    format!("--gpu-architecture={arch}"),
                    "-std=c++17".to_string(),
                    // No FMA contraction: a fused expression must round like NumPy's op-by-op
                    // result (unless the user asks for fast math).
                    "--fmad=false".to_string(),
                ];
                if extra.iter().any(|o| o == "--use_fast_math") {
                    v.pop();
                }
                v.extend(extra.iter().cloned());
                v
            }
            Some(user) => raw_options(&arch, user),
        };
        let key_opts = key_options_named(&opts, names);
        let disk_key = module_key(source, &format!("nvrtc {major}.{minor}"), &arch, &key_opts);
        // A module with name expressions caches their lowered names in front of its image.
        let (module, _) = DISK.load_or_compile(
            &disk_key,
            kernel,
            t0,
            &self.stats,
            || {
                let (image, lowered) = self.compile_named(kernel, source, &opts, names)?;
                Ok(if names.is_empty() {
                    image
                } else {
                    pack_lowered(&lowered, &image)
                })
            },
            |bytes| {
                let (lowered, image) = match names.is_empty() {
                    true => (vec![], bytes),
                    false => unpack_lowered(bytes)
                        .filter(|(l, _)| l.len() == names.len())
                        .ok_or_else(|| self.err("a cached module lost its lowered names"))?,
                };
                let mut m = self.load(image, entries)?;
                m.lowered = lowered.into_iter().collect();
                Ok(m)
            },
        )?;
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
            lowered: HashMap::new(),
        })
    }

    /// Runs NVRTC; returns a CUBIN (or PTX when the exact arch is not supported by this NVRTC).
    pub fn compile(&self, kernel: &str, source: &str, opts: &[String]) -> Result<Vec<u8>> {
        self.compile_named(kernel, source, opts, &[])
            .map(|(img, _)| img)
    }

    /// [`Compiler::compile`] of a program with name expressions (`nvrtcAddNameExpression`
    /// before compiling): also their lowered (mangled) names (`nvrtcGetLoweredName`), in order.
    pub fn compile_named(
        &self,
        kernel: &str,
        source: &str,
        opts: &[String],
        names: &[String],
    ) -> Result<(Vec<u8>, LoweredNames)> {
        let csrc = CString::new(source).map_err(|e| self.err(e.to_string()))?;
        let name = CString::new(format!("{kernel}.cu")).map_err(|e| self.err(e.to_string()))?;
        let cnames: Vec<CString> = names
            .iter()
            .map(|n| CString::new(n.as_str()).map_err(|e| self.err(e.to_string())))
            .collect::<Result<_>>()?;
        type Out = (Vec<u8>, LoweredNames);
        let run = |opts: &[String]| -> Result<std::result::Result<Out, String>> {
            let prog = nvrtc::result::create_program(&csrc, Some(&name))
                .map_err(|e| self.err(format!("nvrtcCreateProgram failed: {e:?}")))?;
            for (n, c) in names.iter().zip(&cnames) {
                // SAFETY: prog is live; the C string outlives the call (NVRTC copies it).
                let r = unsafe { nvrtc::sys::nvrtcAddNameExpression(prog, c.as_ptr()) };
                if r != nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
                    // SAFETY: destroy once.
                    let _ = unsafe { nvrtc::result::destroy_program(prog) };
                    return Err(self.err(format!("nvrtcAddNameExpression({n:?}) failed: {r:?}")));
                }
            }
            // SAFETY: prog is live until destroyed below.
            let res = unsafe { nvrtc::result::compile_program(prog, opts) };
            // SAFETY: as above.
            let log = unsafe { nvrtc::result::get_program_log(prog) }
                .map(|v| {
                    let b: Vec<u8> = v.iter().map(|&c| c as u8).take_while(|&c| c != 0).collect();
                    String::from_utf8_lossy(&b).into_owned()
                })
                .unwrap_or_default();
            // The lowered names live in the program: copied before it is destroyed.
            let mut lowered = vec![];
            if res.is_ok() {
                for (n, c) in names.iter().zip(&cnames) {
                    let mut p: *const c_char = std::ptr::null();
                    // SAFETY: a compiled program, an expression added above, an out pointer.
                    let r = unsafe { nvrtc::sys::nvrtcGetLoweredName(prog, c.as_ptr(), &mut p) };
                    if r != nvrtc::sys::nvrtcResult::NVRTC_SUCCESS || p.is_null() {
                        // SAFETY: destroy once.
                        let _ = unsafe { nvrtc::result::destroy_program(prog) };
                        return Ok(Err(format!(
                            "name expression {n:?}: nvrtcGetLoweredName failed ({r:?}); it must \
                             name a __global__ function or a function template's instance \
                             (`f<float>`)"
                        )));
                    }
                    // SAFETY: NVRTC returned a NUL-terminated string owned by the program.
                    let l = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
                    lowered.push((n.clone(), l));
                }
            }
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
                            Ok(Ok((buf, lowered)))
                        } else {
                            let ptx = nvrtc::result::get_ptx(prog)
                                .map_err(|e| self.err(format!("nvrtcGetPTX failed: {e:?}")))?;
                            let ptx = ptx.iter().map(|&c| c as u8).take_while(|&c| c != 0);
                            Ok(Ok((ptx.collect(), lowered)))
                        }
                    }
                }
            };
            // SAFETY: destroy once.
            let _ = unsafe { nvrtc::result::destroy_program(prog) };
            out
        };
        // NVRTC runs on a thread with a big stack (deep expressions; `on_big_stack`); a panic
        // there is cudarc finding no libnvrtc.
        let r = cupy_core::gpu::on_big_stack(|| run(opts)).ok_or_else(nvrtc_missing)??;
        match r {
            Ok(img) => Ok(img),
            Err(log) if log.contains("gpu-architecture") || log.contains("invalid value") => {
                // This NVRTC does not know the exact sm_XX: fall back to PTX for compute_XX.
                let ptx_opts: Vec<String> = opts
                    .iter()
                    .map(|o| o.replace("=sm_", "=compute_"))
                    .collect();
                match cupy_core::gpu::on_big_stack(|| run(&ptx_opts))
                    .ok_or_else(nvrtc_missing)??
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
