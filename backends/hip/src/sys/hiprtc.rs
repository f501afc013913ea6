//! hipRTC, the HIP runtime compiler.
//!
//! Written against ROCm 5.2.3's `hip/hiprtc.h` (Debian's libamdhip64-dev 5.2.3-8; checked by
//! the `ffi_header` test) and cross-read against ROCm/HIP's `include/hip/hiprtc.h` at commit
//! c5e11fcac824 (ROCm 6.3 line), where these functions are unchanged. In ROCm 5.x the symbols
//! live in `libamdhip64`; ROCm 6 moved them to `libhiprtc.so.6` (7: `.so.7`).

use super::{fn_table, size_t};
use std::ffi::{c_char, c_int, c_void};

/// `hiprtcResult` (a C enum).
pub type hiprtcResult = c_int;
/// `hiprtcProgram` (opaque).
pub type hiprtcProgram = *mut c_void;

/// `HIPRTC_SUCCESS`.
pub const HIPRTC_SUCCESS: hiprtcResult = 0;
/// `HIPRTC_ERROR_COMPILATION`.
pub const HIPRTC_ERROR_COMPILATION: hiprtcResult = 6;

fn_table! {
    /// The hipRTC functions cupy-hip uses.
    pub struct HiprtcApi {
        fn hiprtcVersion(*mut c_int, *mut c_int) -> hiprtcResult;
        fn hiprtcGetErrorString(hiprtcResult) -> *const c_char;
        fn hiprtcCreateProgram(
            *mut hiprtcProgram, *const c_char, *const c_char, c_int,
            *mut *const c_char, *mut *const c_char,
        ) -> hiprtcResult;
        fn hiprtcCompileProgram(hiprtcProgram, c_int, *mut *const c_char) -> hiprtcResult;
        fn hiprtcGetProgramLogSize(hiprtcProgram, *mut size_t) -> hiprtcResult;
        fn hiprtcGetProgramLog(hiprtcProgram, *mut c_char) -> hiprtcResult;
        fn hiprtcGetCodeSize(hiprtcProgram, *mut size_t) -> hiprtcResult;
        fn hiprtcGetCode(hiprtcProgram, *mut c_char) -> hiprtcResult;
        fn hiprtcDestroyProgram(*mut hiprtcProgram) -> hiprtcResult;
        fn hiprtcAddNameExpression(hiprtcProgram, *const c_char) -> hiprtcResult;
        fn hiprtcGetLoweredName(hiprtcProgram, *const c_char, *mut *const c_char) -> hiprtcResult;
    }
}

/// Library names tried for hipRTC; when none loads, the HIP runtime library itself is used
/// (ROCm 5.x exports hipRTC from `libamdhip64`).
pub const LIB_NAMES: &[&str] = &[
    "libhiprtc.so.7",
    "libhiprtc.so.6",
    "libhiprtc.so.5",
    "libhiprtc.so",
];
