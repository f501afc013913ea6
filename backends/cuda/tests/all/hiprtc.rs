//! Compiles every emitted kernel of the catalogue with AMD's hipRTC (ROCm's libamdhip64, which
//! works without an AMD GPU) for gfx90a, proving the shared C++ compiles with AMD's compiler.
//! Skips with a notice when the library is not installed.

use crate::catalogue;
use cupy_core::kernel::cpp::{
    emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor, ReduceSpec,
};
use std::ffi::{c_char, c_int, c_void, CString};

type Create = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type Compile = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type LogSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type Log = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

pub struct HipRtc {
    lib: libloading::Library,
}

impl HipRtc {
    pub fn load() -> Option<HipRtc> {
        for name in [
            "libhiprtc.so",
            "libhiprtc.so.5",
            "libamdhip64.so",
            "libamdhip64.so.5",
        ] {
            // SAFETY: loading a system library; its initialisers are ROCm's.
            if let Ok(lib) = unsafe { libloading::Library::new(name) } {
                // SAFETY: symbol lookup only.
                if unsafe { lib.get::<Create>(b"hiprtcCreateProgram\0") }.is_ok() {
                    return Some(HipRtc { lib });
                }
            }
        }
        None
    }

    /// Compiles `src`; returns the code object size or the log.
    pub fn compile(&self, src: &str) -> Result<usize, String> {
        // ROCm 5.2's hipRTC is not safe to call from two threads at once (a parallel test run
        // crashed with SIGSEGV in CI): one compilation at a time per process.
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: hipRTC C API used as documented; all strings outlive the program.
        unsafe {
            let create: libloading::Symbol<Create> =
                self.lib.get(b"hiprtcCreateProgram\0").unwrap();
            let compile: libloading::Symbol<Compile> =
                self.lib.get(b"hiprtcCompileProgram\0").unwrap();
            let log_size: libloading::Symbol<LogSize> =
                self.lib.get(b"hiprtcGetProgramLogSize\0").unwrap();
            let log: libloading::Symbol<Log> = self.lib.get(b"hiprtcGetProgramLog\0").unwrap();
            let code_size: libloading::Symbol<LogSize> =
                self.lib.get(b"hiprtcGetCodeSize\0").unwrap();
            let destroy: libloading::Symbol<Destroy> =
                self.lib.get(b"hiprtcDestroyProgram\0").unwrap();
            let csrc = CString::new(src).unwrap();
            let name = CString::new("cupy.hip").unwrap();
            let mut prog: *mut c_void = std::ptr::null_mut();
            let r = create(
                &mut prog,
                csrc.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            assert_eq!(r, 0, "hiprtcCreateProgram");
            let opts = [
                CString::new("--offload-arch=gfx90a").unwrap(),
                CString::new("-O3").unwrap(),
            ];
            let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
            let r = compile(prog, ptrs.len() as c_int, ptrs.as_ptr());
            let mut n = 0usize;
            log_size(prog, &mut n);
            let mut buf = vec![0u8; n + 1];
            log(prog, buf.as_mut_ptr() as *mut c_char);
            let text = String::from_utf8_lossy(&buf)
                .trim_end_matches('\0')
                .to_string();
            let mut size = 0usize;
            code_size(prog, &mut size);
            destroy(&mut prog);
            if r != 0 {
                Err(text)
            } else {
                Ok(size)
            }
        }
    }
}

fn compile_all(rtc: &HipRtc, bodies: &[String], what: &str) {
    let pre = prelude(Flavor::Hip);
    let src = format!("{pre}{}", bodies.concat());
    if let Err(log) = rtc.compile(&src) {
        let lines: Vec<&str> = log.lines().take(60).collect();
        panic!("hipRTC failed on {what}:\n{}", lines.join("\n"));
    }
}

#[test]
fn hiprtc_compiles_every_elementwise_kernel() {
    let Some(rtc) = HipRtc::load() else {
        eprintln!("NOTICE: hipRTC (libamdhip64) not found; skipping the AMD compile check");
        return;
    };
    let pre_len = prelude(Flavor::Hip).len();
    let classes = [
        (
            "s1",
            ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Strided,
                index64: false,
            },
        ),
        (
            "s3",
            ElementwiseSpec {
                ndim: 3,
                class: ElementwiseClass::Strided,
                index64: true,
            },
        ),
        (
            "c",
            ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Contiguous,
                index64: false,
            },
        ),
        (
            "v",
            ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Vectorized,
                index64: false,
            },
        ),
        (
            "t",
            ElementwiseSpec {
                ndim: 2,
                class: ElementwiseClass::Tiled,
                index64: false,
            },
        ),
        (
            "v64",
            ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Vectorized,
                index64: true,
            },
        ),
    ];
    let kernels = catalogue::elementwise();
    let mut bodies = vec![];
    for (i, k) in kernels.iter().enumerate() {
        // every kernel in one class, rotating, plus a few in every class
        let chosen: Vec<_> = if i % 17 == 0 {
            classes.iter().collect()
        } else {
            vec![&classes[i % classes.len()]]
        };
        for (tag, spec) in chosen {
            let mut k = k.clone();
            k.name = format!("{}_{tag}", k.name);
            let e = emit_elementwise(&k, spec, Flavor::Hip)
                .unwrap_or_else(|e| panic!("{}: {e}", k.name));
            bodies.push(e.source[pre_len..].to_string());
        }
    }
    eprintln!("hipRTC: compiling {} elementwise kernels", bodies.len());
    for chunk in bodies.chunks(200) {
        compile_all(&rtc, chunk, "elementwise kernels");
    }
}

#[test]
fn hiprtc_compiles_every_reduction_kernel() {
    let Some(rtc) = HipRtc::load() else {
        eprintln!("NOTICE: hipRTC (libamdhip64) not found; skipping the AMD compile check");
        return;
    };
    let pre_len = prelude(Flavor::Hip).len();
    let mut bodies = vec![];
    for (i, k) in catalogue::reductions().iter().enumerate() {
        let spec = ReduceSpec {
            out_ndim: 1 + i % 3,
            red_ndim: 1 + i % 2,
            index64: i % 2 == 0,
        };
        let e = emit_reduce(k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        bodies.push(e.source[pre_len..].to_string());
    }
    compile_all(&rtc, &bodies, "reductions");
}
