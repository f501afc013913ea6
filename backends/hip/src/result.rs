//! Safe-ish wrappers over [`crate::sys`]: every call returns `Result` with the HIP/hipRTC/rocBLAS
//! error name, number and text (cudarc's `result` layer). Pointers to device memory are plain
//! `u64` addresses; nothing here owns device memory or queues work by itself.

use crate::sys::hip::{self as h, HipApi};
use crate::sys::hiprtc::{self as r, HiprtcApi};
use crate::sys::rocblas::{self as b, RocblasApi};
use crate::sys::{open_first, Lib};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A failed HIP runtime call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipError {
    /// The function called, e.g. `"hipMalloc"`.
    pub call: &'static str,
    /// The `hipError_t` number.
    pub code: i32,
    /// Its name, e.g. `"hipErrorNoDevice"`.
    pub name: String,
    /// Its description from `hipGetErrorString`.
    pub text: String,
}

impl fmt::Display for HipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({}): {}",
            self.call, self.name, self.code, self.text
        )
    }
}

impl std::error::Error for HipError {}

fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: ROCm returns static NUL-terminated strings for error names and texts.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// `HIP_VERSION` number (`major * 10^7 + minor * 10^5 + patch`) as `"major.minor.patch"`.
pub fn version_string(v: i32) -> String {
    format!("{}.{}.{}", v / 10_000_000, (v / 100_000) % 100, v % 100_000)
}

/// The loaded HIP runtime.
#[derive(Debug)]
pub struct Hip {
    /// Its function table.
    pub api: HipApi,
    /// `hipGetDevicePropertiesR0600` where the runtime has it (ROCm 6+).
    props_r0600: Option<h::GetPropsR0600>,
    /// The graph calls (stream capture), or the symbol that is missing.
    pub graphs: Result<h::HipGraphApi, String>,
    /// The library (kept open).
    pub lib: Lib,
}

static HIP: OnceLock<Result<Arc<Hip>, String>> = OnceLock::new();

impl Hip {
    /// Loads the HIP runtime once per process (later calls return the same result).
    ///
    /// # Errors
    /// The library names and paths tried, or the missing symbol.
    pub fn get() -> Result<Arc<Hip>, String> {
        HIP.get_or_init(|| {
            let lib = open_first(
                "the HIP runtime (libamdhip64)",
                h::LIB_NAMES,
                Some("hipInit"),
            )?;
            // SAFETY: the table was written for libamdhip64 (see sys::hip); `lib` lives in the
            // returned struct as long as the pointers.
            let api =
                unsafe { HipApi::load(&lib.lib) }.map_err(|e| format!("{}: {e}", lib.path))?;
            // SAFETY: optional symbol with the same C signature as hipGetDeviceProperties.
            let props_r0600 = unsafe {
                lib.lib
                    .get::<h::GetPropsR0600>(b"hipGetDevicePropertiesR0600\0")
            }
            .ok()
            .map(|s| *s);
            // SAFETY: the table was written for libamdhip64 (see sys::hip), as above.
            let graphs = unsafe { h::HipGraphApi::load(&lib.lib) };
            Ok(Arc::new(Hip {
                api,
                props_r0600,
                graphs,
                lib,
            }))
        })
        .clone()
    }

    /// Turns a `hipError_t` into a `Result`.
    pub fn check(&self, call: &'static str, code: h::hipError_t) -> Result<(), HipError> {
        if code == h::hipSuccess {
            return Ok(());
        }
        // SAFETY: both functions accept any value and return static strings.
        let (name, text) = unsafe {
            (
                cstr((self.api.hipGetErrorName)(code)),
                cstr((self.api.hipGetErrorString)(code)),
            )
        };
        Err(HipError {
            call,
            code,
            name,
            text,
        })
    }

    /// `hipInit(0)`.
    pub fn init(&self) -> Result<(), HipError> {
        // SAFETY: plain call.
        self.check("hipInit", unsafe { (self.api.hipInit)(0) })
    }

    /// `hipRuntimeGetVersion` (`HIP_VERSION` number; see [`version_string`]).
    pub fn runtime_version(&self) -> Result<i32, HipError> {
        let mut v: c_int = 0;
        // SAFETY: out pointer to a local.
        self.check("hipRuntimeGetVersion", unsafe {
            (self.api.hipRuntimeGetVersion)(&mut v)
        })?;
        Ok(v)
    }

    /// `hipDriverGetVersion`.
    pub fn driver_version(&self) -> Result<i32, HipError> {
        let mut v: c_int = 0;
        // SAFETY: out pointer to a local.
        self.check("hipDriverGetVersion", unsafe {
            (self.api.hipDriverGetVersion)(&mut v)
        })?;
        Ok(v)
    }

    /// `hipGetDeviceCount`.
    pub fn device_count(&self) -> Result<usize, HipError> {
        let mut n: c_int = 0;
        // SAFETY: out pointer to a local.
        self.check("hipGetDeviceCount", unsafe {
            (self.api.hipGetDeviceCount)(&mut n)
        })?;
        Ok(n.max(0) as usize)
    }

    /// `hipSetDevice` (the current device is per host thread).
    pub fn set_device(&self, dev: i32) -> Result<(), HipError> {
        // SAFETY: plain call.
        self.check("hipSetDevice", unsafe { (self.api.hipSetDevice)(dev) })
    }

    /// `hipDeviceGetName`.
    pub fn device_name(&self, dev: i32) -> Result<String, HipError> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the length passed is the buffer's; the last byte stays NUL.
        self.check("hipDeviceGetName", unsafe {
            (self.api.hipDeviceGetName)(buf.as_mut_ptr(), 255, dev)
        })?;
        Ok(cstr(buf.as_ptr()))
    }

    /// `hipDeviceGetAttribute`.
    pub fn attribute(&self, attr: h::hipDeviceAttribute_t, dev: i32) -> Result<i32, HipError> {
        let mut v: c_int = 0;
        // SAFETY: out pointer to a local.
        self.check("hipDeviceGetAttribute", unsafe {
            (self.api.hipDeviceGetAttribute)(&mut v, attr, dev)
        })?;
        Ok(v)
    }

    /// `hipDeviceTotalMem`.
    pub fn total_mem(&self, dev: i32) -> Result<u64, HipError> {
        let mut v: usize = 0;
        // SAFETY: out pointer to a local.
        self.check("hipDeviceTotalMem", unsafe {
            (self.api.hipDeviceTotalMem)(&mut v, dev)
        })?;
        Ok(v as u64)
    }

    /// The device's full `gcnArchName` (e.g. `"gfx90a:sramecc+:xnack-"`), read from
    /// `hipGetDevicePropertiesR0600` (ROCm 6+) or `hipGetDeviceProperties` (5.x layout).
    pub fn arch_name(&self, dev: i32) -> Result<String, HipError> {
        let mut buf = vec![0u8; h::PROPS_BUFFER];
        let layout = if let Some(f) = self.props_r0600 {
            // SAFETY: the buffer is larger than hipDeviceProp_tR0600.
            self.check("hipGetDevicePropertiesR0600", unsafe {
                f(buf.as_mut_ptr() as *mut c_void, dev)
            })?;
            h::PROPS_R0600
        } else {
            // SAFETY: the buffer is larger than the 5.x hipDeviceProp_t.
            self.check("hipGetDeviceProperties", unsafe {
                (self.api.hipGetDeviceProperties)(buf.as_mut_ptr() as *mut c_void, dev)
            })?;
            h::PROPS_R0000
        };
        Ok(parse_arch_name(&buf, layout.gcn_arch_name))
    }

    /// `hipMemGetInfo` of the current device: (free, total).
    pub fn mem_info(&self) -> Result<(u64, u64), HipError> {
        let (mut f, mut t) = (0usize, 0usize);
        // SAFETY: out pointers to locals.
        self.check("hipMemGetInfo", unsafe {
            (self.api.hipMemGetInfo)(&mut f, &mut t)
        })?;
        Ok((f as u64, t as u64))
    }

    /// `hipMalloc` on the current device.
    pub fn malloc(&self, bytes: usize) -> Result<u64, HipError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: out pointer to a local.
        self.check("hipMalloc", unsafe { (self.api.hipMalloc)(&mut p, bytes) })?;
        Ok(p as u64)
    }

    /// `hipHostMalloc` (portable pinned host memory).
    pub fn host_malloc(&self, bytes: usize) -> Result<u64, HipError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: out pointer to a local.
        self.check("hipHostMalloc", unsafe {
            (self.api.hipHostMalloc)(&mut p, bytes, h::hipHostMallocPortable)
        })?;
        Ok(p as u64)
    }

    /// `hipHostFree`.
    ///
    /// # Safety
    /// `ptr` came from [`Hip::host_malloc`], is freed once, and no queued copy uses it.
    pub unsafe fn host_free(&self, ptr: u64) -> Result<(), HipError> {
        // SAFETY: the caller's contract.
        self.check("hipHostFree", unsafe {
            (self.api.hipHostFree)(ptr as *mut c_void)
        })
    }

    /// `hipFree`.
    ///
    /// # Safety
    /// `ptr` came from [`Hip::malloc`], is freed once, and no queued work still uses it.
    pub unsafe fn free(&self, ptr: u64) -> Result<(), HipError> {
        self.check("hipFree", (self.api.hipFree)(ptr as *mut c_void))
    }

    /// `hipMemcpyAsync` host to device.
    ///
    /// # Safety
    /// `dst` addresses `src.len()` bytes of device memory; `src` stays alive and unchanged
    /// until `stream` is synchronized.
    pub unsafe fn htod_async(
        &self,
        dst: u64,
        src: &[u8],
        stream: h::hipStream_t,
    ) -> Result<(), HipError> {
        self.check(
            "hipMemcpyAsync(HostToDevice)",
            (self.api.hipMemcpyAsync)(
                dst as *mut c_void,
                src.as_ptr() as *const c_void,
                src.len(),
                h::hipMemcpyHostToDevice,
                stream,
            ),
        )
    }

    /// `hipMemcpyAsync` device to host.
    ///
    /// # Safety
    /// `src` addresses `dst.len()` bytes of device memory; `dst` stays alive and untouched until
    /// `stream` is synchronized.
    pub unsafe fn dtoh_async(
        &self,
        dst: &mut [u8],
        src: u64,
        stream: h::hipStream_t,
    ) -> Result<(), HipError> {
        self.check(
            "hipMemcpyAsync(DeviceToHost)",
            (self.api.hipMemcpyAsync)(
                dst.as_mut_ptr() as *mut c_void,
                src as *const c_void,
                dst.len(),
                h::hipMemcpyDeviceToHost,
                stream,
            ),
        )
    }

    /// `hipMemcpyAsync` device to device.
    ///
    /// # Safety
    /// Both ranges are valid device memory of `bytes` bytes.
    pub unsafe fn dtod_async(
        &self,
        dst: u64,
        src: u64,
        bytes: usize,
        stream: h::hipStream_t,
    ) -> Result<(), HipError> {
        self.check(
            "hipMemcpyAsync(DeviceToDevice)",
            (self.api.hipMemcpyAsync)(
                dst as *mut c_void,
                src as *const c_void,
                bytes,
                h::hipMemcpyDeviceToDevice,
                stream,
            ),
        )
    }

    /// `hipMemsetAsync` of `bytes` bytes at `dst` to `value`.
    ///
    /// # Safety
    /// The range is valid device memory of `bytes` bytes.
    pub unsafe fn memset_async(
        &self,
        dst: u64,
        value: u8,
        bytes: usize,
        stream: h::hipStream_t,
    ) -> Result<(), HipError> {
        self.check(
            "hipMemsetAsync",
            (self.api.hipMemsetAsync)(dst as *mut c_void, value as i32, bytes, stream),
        )
    }

    /// `hipStreamCreate` on the current device.
    pub fn stream_create(&self) -> Result<h::hipStream_t, HipError> {
        let mut s: h::hipStream_t = std::ptr::null_mut();
        // SAFETY: out pointer to a local.
        self.check("hipStreamCreate", unsafe {
            (self.api.hipStreamCreate)(&mut s)
        })?;
        Ok(s)
    }

    /// `hipStreamSynchronize`.
    ///
    /// # Safety
    /// `s` is a live stream we created (or null, the default stream).
    pub unsafe fn stream_sync(&self, s: h::hipStream_t) -> Result<(), HipError> {
        self.check("hipStreamSynchronize", (self.api.hipStreamSynchronize)(s))
    }

    /// `hipStreamDestroy`.
    ///
    /// # Safety
    /// `s` came from [`Hip::stream_create`] and is not used afterwards.
    pub unsafe fn stream_destroy(&self, s: h::hipStream_t) -> Result<(), HipError> {
        self.check("hipStreamDestroy", (self.api.hipStreamDestroy)(s))
    }

    /// `hipModuleLoadData` of a code object (as hipRTC produced it).
    pub fn module_load(&self, image: &[u8]) -> Result<h::hipModule_t, HipError> {
        let mut m: h::hipModule_t = std::ptr::null_mut();
        // SAFETY: the image is a complete code object in host memory, read during the call.
        self.check("hipModuleLoadData", unsafe {
            (self.api.hipModuleLoadData)(&mut m, image.as_ptr() as *const c_void)
        })?;
        Ok(m)
    }

    /// `hipModuleGetFunction`.
    ///
    /// # Safety
    /// `m` is a loaded module.
    pub unsafe fn module_function(
        &self,
        m: h::hipModule_t,
        name: &str,
    ) -> Result<h::hipFunction_t, HipError> {
        let c = CString::new(name).map_err(|_| HipError {
            call: "hipModuleGetFunction",
            code: h::hipErrorInvalidValue,
            name: "hipErrorInvalidValue".into(),
            text: format!("kernel name {name:?} contains a NUL byte"),
        })?;
        let mut f: h::hipFunction_t = std::ptr::null_mut();
        // SAFETY: `m` is a loaded module; the name is NUL-terminated.
        self.check("hipModuleGetFunction", unsafe {
            (self.api.hipModuleGetFunction)(&mut f, m, c.as_ptr())
        })?;
        Ok(f)
    }

    /// `hipModuleUnload`.
    ///
    /// # Safety
    /// No queued or future launch uses the module's functions.
    pub unsafe fn module_unload(&self, m: h::hipModule_t) -> Result<(), HipError> {
        self.check("hipModuleUnload", (self.api.hipModuleUnload)(m))
    }

    /// `hipModuleLaunchKernel` of a kernel taking one by-value struct argument whose bytes are
    /// `args` (passed through `kernelParams`; HIP copies them at launch).
    ///
    /// # Safety
    /// `f` is a kernel whose single parameter has exactly `args`' layout, every device address
    /// in `args` is valid for what the kernel does, and `stream` belongs to the current device.
    pub unsafe fn launch(
        &self,
        f: h::hipFunction_t,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared: u32,
        stream: h::hipStream_t,
        args: &mut [u8],
    ) -> Result<(), HipError> {
        let mut params: [*mut c_void; 1] = [args.as_mut_ptr() as *mut c_void];
        self.check(
            "hipModuleLaunchKernel",
            (self.api.hipModuleLaunchKernel)(
                f,
                grid.0,
                grid.1,
                grid.2,
                block.0,
                block.1,
                block.2,
                shared,
                stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
        )
    }

    /// `hipEventCreate` on the current device.
    pub fn event_create(&self) -> Result<h::hipEvent_t, HipError> {
        let mut e: h::hipEvent_t = std::ptr::null_mut();
        // SAFETY: out pointer to a local.
        self.check("hipEventCreate", unsafe {
            (self.api.hipEventCreate)(&mut e)
        })?;
        Ok(e)
    }

    /// `hipEventRecord`.
    ///
    /// # Safety
    /// `e` is a live event and `stream` a live stream of the current device.
    pub unsafe fn event_record(
        &self,
        e: h::hipEvent_t,
        stream: h::hipStream_t,
    ) -> Result<(), HipError> {
        self.check("hipEventRecord", (self.api.hipEventRecord)(e, stream))
    }

    /// `hipEventSynchronize` then `hipEventElapsedTime` (milliseconds from `start` to `end`).
    ///
    /// # Safety
    /// Both are live events recorded on one stream.
    pub unsafe fn event_elapsed_ms(
        &self,
        start: h::hipEvent_t,
        end: h::hipEvent_t,
    ) -> Result<f32, HipError> {
        self.check("hipEventSynchronize", (self.api.hipEventSynchronize)(end))?;
        let mut ms = 0f32;
        self.check(
            "hipEventElapsedTime",
            (self.api.hipEventElapsedTime)(&mut ms, start, end),
        )?;
        Ok(ms)
    }

    /// `hipEventDestroy`.
    ///
    /// # Safety
    /// `e` is a live event, destroyed once.
    pub unsafe fn event_destroy(&self, e: h::hipEvent_t) -> Result<(), HipError> {
        self.check("hipEventDestroy", (self.api.hipEventDestroy)(e))
    }
}

impl Hip {
    /// `hipModuleLaunchKernel` with one `kernelParams` entry per kernel parameter (raw kernels):
    /// `params[i]` points at the bytes of parameter `i`, which HIP copies at launch.
    ///
    /// # Safety
    /// `f` is a kernel whose parameters have the sizes of the pointed-to values, every device
    /// address among them is valid for what the kernel does, and `stream` belongs to the current
    /// device.
    pub unsafe fn launch_params(
        &self,
        f: h::hipFunction_t,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared: u32,
        stream: h::hipStream_t,
        params: &mut [*mut c_void],
    ) -> Result<(), HipError> {
        let p = if params.is_empty() {
            std::ptr::null_mut()
        } else {
            params.as_mut_ptr()
        };
        self.check(
            "hipModuleLaunchKernel",
            (self.api.hipModuleLaunchKernel)(
                f,
                grid.0,
                grid.1,
                grid.2,
                block.0,
                block.1,
                block.2,
                shared,
                stream,
                p,
                std::ptr::null_mut(),
            ),
        )
    }
}

/// Reads the NUL-terminated `gcnArchName` at `offset` of a `hipDeviceProp_t` buffer; if that
/// does not look like an arch name (`gfx...`), scans the buffer for one (guards against a layout
/// we have not seen).
pub fn parse_arch_name(buf: &[u8], offset: usize) -> String {
    let at = |o: usize| -> String {
        let s = &buf[o.min(buf.len())..];
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len()).min(256);
        String::from_utf8_lossy(&s[..end]).into_owned()
    };
    let s = at(offset);
    if s.starts_with("gfx") {
        return s;
    }
    (0..buf.len().saturating_sub(3))
        .find(|&o| &buf[o..o + 3] == b"gfx" && (o == 0 || buf[o - 1] == 0))
        .map(at)
        .unwrap_or_default()
}

/// The base target of a full arch name: `"gfx90a:sramecc+:xnack-"` -> `"gfx90a"`.
pub fn base_arch(full: &str) -> &str {
    full.split(':').next().unwrap_or(full)
}

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

/// A failed rocBLAS call.
#[derive(Clone, Debug)]
pub struct BlasError {
    /// The function.
    pub call: &'static str,
    /// `rocblas_status`.
    pub status: i32,
    /// Its name.
    pub name: String,
}

impl fmt::Display for BlasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.call, self.name, self.status)
    }
}

/// The loaded rocBLAS.
#[derive(Debug)]
pub struct Rocblas {
    /// Its function table.
    pub api: RocblasApi,
    /// The library.
    pub lib: Lib,
}

static ROCBLAS: OnceLock<Result<Arc<Rocblas>, String>> = OnceLock::new();

impl Rocblas {
    /// Loads rocBLAS once per process.
    ///
    /// # Errors
    /// The paths tried or the missing symbol.
    pub fn get() -> Result<Arc<Rocblas>, String> {
        ROCBLAS
            .get_or_init(|| {
                let lib = open_first(
                    "rocBLAS (librocblas)",
                    b::LIB_NAMES,
                    Some("rocblas_create_handle"),
                )?;
                // SAFETY: table written for rocBLAS (sys::rocblas); library kept alongside.
                let api = unsafe { RocblasApi::load(&lib.lib) }
                    .map_err(|e| format!("{}: {e}", lib.path))?;
                Ok(Arc::new(Rocblas { api, lib }))
            })
            .clone()
    }

    /// Turns a `rocblas_status` into a `Result`.
    pub fn check(&self, call: &'static str, s: b::rocblas_status) -> Result<(), BlasError> {
        if s == b::rocblas_status_success {
            return Ok(());
        }
        // SAFETY: accepts any status; returns a static string.
        let mut name = cstr(unsafe { (self.api.rocblas_status_to_string)(s) });
        if name.is_empty() {
            name = b::STATUS_NAMES
                .get(s as usize)
                .map_or_else(|| "unknown rocblas_status".to_string(), |n| n.to_string());
        }
        Err(BlasError {
            call,
            status: s,
            name,
        })
    }
}

/// rocFFT, loaded (and `rocfft_setup` called) once per process.
pub struct Rocfft {
    /// Its function table.
    pub api: crate::sys::rocfft::RocfftApi,
    /// The library.
    pub lib: Lib,
}

static ROCFFT: OnceLock<Result<Arc<Rocfft>, String>> = OnceLock::new();

impl Rocfft {
    /// Loads rocFFT once per process and runs `rocfft_setup`.
    ///
    /// # Errors
    /// The paths tried, the missing symbol, or the failed setup.
    pub fn get() -> Result<Arc<Rocfft>, String> {
        ROCFFT
            .get_or_init(|| {
                let lib = open_first(
                    "rocFFT (librocfft)",
                    crate::sys::rocfft::LIB_NAMES,
                    Some("rocfft_plan_create"),
                )?;
                // SAFETY: table written for rocFFT (sys::rocfft); library kept alongside.
                let api = unsafe { crate::sys::rocfft::RocfftApi::load(&lib.lib) }
                    .map_err(|e| format!("{}: {e}", lib.path))?;
                let f = Rocfft { api, lib };
                // SAFETY: no arguments; called once.
                f.check("rocfft_setup", unsafe { (f.api.rocfft_setup)() })?;
                Ok(Arc::new(f))
            })
            .clone()
    }

    /// Turns a `rocfft_status` into a `Result` naming the call and the status.
    ///
    /// # Errors
    /// The call and status, as text.
    pub fn check(&self, call: &str, s: crate::sys::rocfft::rocfft_status) -> Result<(), String> {
        const NAMES: [&str; 9] = [
            "rocfft_status_success",
            "rocfft_status_failure",
            "rocfft_status_invalid_arg_value",
            "rocfft_status_invalid_dimensions",
            "rocfft_status_invalid_array_type",
            "rocfft_status_invalid_strides",
            "rocfft_status_invalid_distance",
            "rocfft_status_invalid_offset",
            "rocfft_status_invalid_work_buffer",
        ];
        if s == crate::sys::rocfft::rocfft_status_success {
            return Ok(());
        }
        let name = NAMES
            .get(s as usize)
            .copied()
            .unwrap_or("unknown rocfft_status");
        Err(format!("rocFFT {call} failed: {name} ({s})"))
    }
}

/// The loaded rocSOLVER (it takes rocBLAS handles: [`Rocblas`] is loaded alongside).
#[derive(Debug)]
pub struct Rocsolver {
    /// Its function table.
    pub api: crate::sys::rocsolver::RocsolverApi,
    /// The library.
    pub lib: Lib,
}

static ROCSOLVER: OnceLock<Result<Arc<Rocsolver>, String>> = OnceLock::new();

impl Rocsolver {
    /// Loads rocSOLVER once per process (`librocsolver.so.1`/`.so.0`, in `$ROCM_PATH/lib`,
    /// `$HIP_PATH/lib`, `/opt/rocm/lib`, then the system loader path).
    ///
    /// # Errors
    /// Names rocSOLVER and every path tried, or the missing symbol.
    pub fn get() -> Result<Arc<Rocsolver>, String> {
        ROCSOLVER
            .get_or_init(|| {
                let lib = open_first(
                    "rocSOLVER (librocsolver)",
                    crate::sys::rocsolver::LIB_NAMES,
                    Some("rocsolver_dgetrf_strided_batched"),
                )?;
                // SAFETY: table written for rocSOLVER (sys::rocsolver); library kept alongside.
                let api = unsafe { crate::sys::rocsolver::RocsolverApi::load(&lib.lib) }
                    .map_err(|e| format!("rocSOLVER {}: {e}", lib.path))?;
                Ok(Arc::new(Rocsolver { api, lib }))
            })
            .clone()
    }

    /// The library's version string (`rocsolver_get_version_string`).
    pub fn version(&self) -> String {
        let mut buf = vec![0 as c_char; 128];
        // SAFETY: writes at most `len` bytes, NUL-terminated, into our buffer.
        let s = unsafe { (self.api.rocsolver_get_version_string)(buf.as_mut_ptr(), buf.len()) };
        if s != b::rocblas_status_success {
            return String::new();
        }
        cstr(buf.as_ptr())
    }
}
