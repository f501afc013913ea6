//! hipRTC ([`Rtc`]): loading it, compiling a program with name expressions, and its errors.

use super::{cstr, Hip};
use crate::sys::hiprtc::{self as r, HiprtcApi};
use crate::sys::{open_first, Lib};
use std::ffi::{c_char, c_int, CString};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A compiled code object, the compiler log, and the lowered name of each name expression; or
/// the failure ([`Rtc::compile_named`]).
pub type NamedResult = Result<(Vec<u8>, String, Vec<(String, String)>), RtcError>;

/// A failed hipRTC compile: the result code and the compiler log.
#[derive(Clone, Debug)]
pub struct RtcError {
    /// The call that failed.
    pub call: &'static str,
    /// `hiprtcResult`.
    pub code: i32,
    /// `hiprtcGetErrorString`.
    pub text: String,
    /// The program log (empty unless compilation ran).
    pub log: String,
}

impl fmt::Display for RtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.call, self.text, self.code)?;
        if !self.log.is_empty() {
            write!(f, "\n{}", self.log)?;
        }
        Ok(())
    }
}

#[derive(Debug)]
enum RtcLib {
    Own(#[allow(dead_code)] Lib),
    Runtime(#[allow(dead_code)] Arc<Hip>),
}

/// The loaded hipRTC.
#[derive(Debug)]
pub struct Rtc {
    /// Its function table.
    pub api: HiprtcApi,
    /// Where it was loaded from.
    pub path: String,
    _lib: RtcLib,
}

static RTC: OnceLock<Result<Arc<Rtc>, String>> = OnceLock::new();

impl Rtc {
    /// Loads hipRTC once per process: `libhiprtc` (ROCm 6+), else the HIP runtime library, which
    /// exports it in ROCm 5.x.
    ///
    /// # Errors
    /// Both failures, with the paths tried.
    pub fn get() -> Result<Arc<Rtc>, String> {
        RTC.get_or_init(|| {
            let own = open_first(
                "hipRTC (libhiprtc)",
                r::LIB_NAMES,
                Some("hiprtcCreateProgram"),
            );
            let (lib, path) = match own {
                Ok(l) => {
                    let p = l.path.clone();
                    (RtcLib::Own(l), p)
                }
                Err(e1) => match Hip::get() {
                    Ok(h) => {
                        let p = h.lib.path.clone();
                        (RtcLib::Runtime(h), p)
                    }
                    Err(e2) => return Err(format!("{e1}; and {e2}")),
                },
            };
            let l = match &lib {
                RtcLib::Own(l) => &l.lib,
                RtcLib::Runtime(h) => &h.lib.lib,
            };
            // SAFETY: the table was written for hipRTC (see sys::hiprtc); the library is kept
            // alive in the returned struct.
            let api = unsafe { HiprtcApi::load(l) }.map_err(|e| format!("{path}: {e}"))?;
            Ok(Arc::new(Rtc {
                api,
                path,
                _lib: lib,
            }))
        })
        .clone()
    }

    fn err(&self, call: &'static str, code: r::hiprtcResult, log: String) -> RtcError {
        // SAFETY: accepts any value, returns a static string.
        let text = cstr(unsafe { (self.api.hiprtcGetErrorString)(code) });
        RtcError {
            call,
            code,
            text,
            log,
        }
    }

    /// `hiprtcVersion`: (major, minor).
    pub fn version(&self) -> Result<(i32, i32), RtcError> {
        let (mut a, mut b) = (0, 0);
        // SAFETY: out pointers to locals.
        let c = unsafe { (self.api.hiprtcVersion)(&mut a, &mut b) };
        if c != r::HIPRTC_SUCCESS {
            return Err(self.err("hiprtcVersion", c, String::new()));
        }
        Ok((a, b))
    }

    /// Compiles one source with `options`; returns the code object and the log (warnings).
    ///
    /// # Errors
    /// The failing call, its code and the compiler log.
    pub fn compile(
        &self,
        src: &str,
        name: &str,
        options: &[String],
    ) -> Result<(Vec<u8>, String), RtcError> {
        self.compile_named(src, name, options, &[])
            .map(|(code, log, _)| (code, log))
    }

    /// [`Rtc::compile`] of a program with name expressions (`hiprtcAddNameExpression` before
    /// compiling): also their lowered (mangled) names (`hiprtcGetLoweredName`), in order.
    ///
    /// # Errors
    /// As [`Rtc::compile`]; a name expression hipRTC cannot lower.
    pub fn compile_named(
        &self,
        src: &str,
        name: &str,
        options: &[String],
        names: &[String],
    ) -> NamedResult {
        // hipRTC (ROCm 5.2 at least) is not safe to call from two threads at once: a parallel
        // test run crashed with SIGSEGV. One compilation at a time per process.
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let bad = |what: &str| RtcError {
            call: "hiprtcCreateProgram",
            code: -1,
            text: format!("{what} contains a NUL byte"),
            log: String::new(),
        };
        let csrc = CString::new(src).map_err(|_| bad("source"))?;
        let cname = CString::new(name).map_err(|_| bad("program name"))?;
        let copts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).map_err(|_| bad("option")))
            .collect::<Result<_, _>>()?;
        let cnames: Vec<CString> = names
            .iter()
            .map(|n| CString::new(n.as_str()).map_err(|_| bad("name expression")))
            .collect::<Result<_, _>>()?;
        let mut optp: Vec<*const c_char> = copts.iter().map(|c| c.as_ptr()).collect();
        let mut prog: r::hiprtcProgram = std::ptr::null_mut();
        // SAFETY: all strings outlive the program; no headers.
        let c = unsafe {
            (self.api.hiprtcCreateProgram)(
                &mut prog,
                csrc.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if c != r::HIPRTC_SUCCESS {
            return Err(self.err("hiprtcCreateProgram", c, String::new()));
        }
        struct Guard<'a>(&'a HiprtcApi, r::hiprtcProgram);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                // SAFETY: destroys the program created above, once.
                unsafe { (self.0.hiprtcDestroyProgram)(&mut self.1) };
            }
        }
        let g = Guard(&self.api, prog);
        for c in &cnames {
            // SAFETY: a live program; hipRTC copies the string.
            let r = unsafe { (self.api.hiprtcAddNameExpression)(g.1, c.as_ptr()) };
            if r != r::HIPRTC_SUCCESS {
                return Err(self.err("hiprtcAddNameExpression", r, String::new()));
            }
        }
        // hipRTC runs on a thread with a big stack (deep expressions recurse in the compiler;
        // `cupy_core::gpu::on_big_stack`); the pointers cross as addresses.
        let (compile, pg, po, n) = (
            self.api.hiprtcCompileProgram,
            g.1 as usize,
            optp.as_mut_ptr() as usize,
            optp.len() as c_int,
        );
        // SAFETY: valid program; option pointers live in `copts` (and `optp`), which outlive the
        // scoped thread; the program is used by that thread alone until it returns.
        let c = cupy_core::gpu::on_big_stack(move || unsafe {
            compile(pg as r::hiprtcProgram, n, po as *mut *const c_char)
        })
        .unwrap_or(r::HIPRTC_ERROR_COMPILATION);
        let log = self.log(g.1);
        if c != r::HIPRTC_SUCCESS {
            return Err(self.err("hiprtcCompileProgram", c, log));
        }
        // The lowered names live in the program: copied before it is destroyed.
        let mut lowered = Vec::with_capacity(names.len());
        for (n, c) in names.iter().zip(&cnames) {
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: a compiled program, an expression added above, an out pointer.
            let r = unsafe { (self.api.hiprtcGetLoweredName)(g.1, c.as_ptr(), &mut p) };
            if r != r::HIPRTC_SUCCESS || p.is_null() {
                let mut e = self.err("hiprtcGetLoweredName", r, log);
                e.text = format!(
                    "name expression {n:?}: {} (it must name a __global__ function or a function \
                     template's instance, `f<float>`)",
                    e.text
                );
                return Err(e);
            }
            // A NUL-terminated string owned by the program (alive until the guard drops).
            lowered.push((n.clone(), cstr(p)));
        }
        let mut n = 0usize;
        // SAFETY: out pointer to a local.
        let c = unsafe { (self.api.hiprtcGetCodeSize)(g.1, &mut n) };
        if c != r::HIPRTC_SUCCESS {
            return Err(self.err("hiprtcGetCodeSize", c, log));
        }
        let mut code = vec![0u8; n];
        // SAFETY: the buffer has the size hipRTC reported.
        let c = unsafe { (self.api.hiprtcGetCode)(g.1, code.as_mut_ptr() as *mut c_char) };
        if c != r::HIPRTC_SUCCESS {
            return Err(self.err("hiprtcGetCode", c, log));
        }
        if code.is_empty() {
            return Err(RtcError {
                call: "hiprtcGetCode",
                code: 0,
                text: "hipRTC returned an empty code object".into(),
                log,
            });
        }
        Ok((code, log, lowered))
    }

    fn log(&self, prog: r::hiprtcProgram) -> String {
        let mut n = 0usize;
        // SAFETY: valid program; buffer sized as reported (+1 for a NUL).
        unsafe {
            if (self.api.hiprtcGetProgramLogSize)(prog, &mut n) != r::HIPRTC_SUCCESS || n == 0 {
                return String::new();
            }
            let mut buf = vec![0u8; n + 1];
            if (self.api.hiprtcGetProgramLog)(prog, buf.as_mut_ptr() as *mut c_char)
                != r::HIPRTC_SUCCESS
            {
                return String::new();
            }
            let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
            String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
        }
    }
}
