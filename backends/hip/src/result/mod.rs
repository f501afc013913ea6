//! Safe-ish wrappers over [`crate::sys`]: every call returns `Result` with the HIP/hipRTC/rocBLAS
//! error name, number and text (cudarc's `result` layer). Pointers to device memory are plain
//! `u64` addresses; nothing here owns device memory or queues work by itself.
//!
//! The HIP runtime ([`Hip`]) is here; hipRTC ([`Rtc`]) in `hiprtc.rs`; rocBLAS, rocFFT and
//! rocSOLVER in `libs.rs`.

use crate::sys::hip::{self as h, HipApi};
use crate::sys::{load_table, Lib};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::sync::{Arc, OnceLock};

mod hiprtc;
mod libs;

pub use hiprtc::{NamedResult, Rtc, RtcError};
pub use libs::{BlasError, Rocblas, Rocfft, Rocsolver};

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
            // SAFETY: the table was written for libamdhip64 (see sys::hip); `lib` lives in the
            // returned struct as long as the pointers.
            let (api, lib) = unsafe {
                load_table(
                    "the HIP runtime (libamdhip64)",
                    h::LIB_NAMES,
                    "hipInit",
                    HipApi::load,
                )
            }?;
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
