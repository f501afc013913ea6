//! The HIP runtime (`libamdhip64`).
//!
//! Written against ROCm 5.2.3's `hip/hip_runtime_api.h` (Debian's libamdhip64-dev 5.2.3-8,
//! checked by the `ffi_header` test with the system C++ compiler) and cross-read against
//! ROCm/HIP's `include/hip/hip_runtime_api.h` at commit c5e11fcac824 (2024-10-16, ROCm 6.3
//! line): every function used here has the same C signature in both, `hipDeviceAttribute_t`
//! values used here are equal (MultiprocessorCount 63, WarpSize 87), and ROCm 6 adds
//! `hipGetDevicePropertiesR0600` with a larger `hipDeviceProp_t` ([`PROPS_R0600`]).

use super::{fn_table, size_t};
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

/// `hipError_t` (a C enum).
pub type hipError_t = c_int;
/// `hipDevice_t`.
pub type hipDevice_t = c_int;
/// `hipStream_t` (opaque).
pub type hipStream_t = *mut c_void;
/// `hipModule_t` (opaque).
pub type hipModule_t = *mut c_void;
/// `hipFunction_t` (opaque).
pub type hipFunction_t = *mut c_void;
/// `hipDeviceptr_t` (`void*`).
pub type hipDeviceptr_t = *mut c_void;
/// `hipEvent_t` (opaque).
pub type hipEvent_t = *mut c_void;
/// `hipMemcpyKind` (a C enum).
pub type hipMemcpyKind = c_int;
/// `hipDeviceAttribute_t` (a C enum).
pub type hipDeviceAttribute_t = c_int;
/// `hipGraph_t` (opaque).
pub type hipGraph_t = *mut c_void;
/// `hipGraphExec_t` (opaque).
pub type hipGraphExec_t = *mut c_void;
/// `hipStreamCaptureMode` (a C enum).
pub type hipStreamCaptureMode = c_int;
/// `hipStreamCaptureStatus` (a C enum).
pub type hipStreamCaptureStatus = c_int;
/// `hipDeviceProp_t`: never mirrored field by field; we pass a zeroed byte buffer of at least
/// [`PropsLayout::size`] bytes and read `gcnArchName` at its offset.
pub type hipDeviceProp_t = c_void;

/// `hipSuccess`.
pub const hipSuccess: hipError_t = 0;
/// `hipErrorInvalidValue`.
pub const hipErrorInvalidValue: hipError_t = 1;
/// `hipErrorOutOfMemory`.
pub const hipErrorOutOfMemory: hipError_t = 2;
/// `hipErrorNotInitialized`.
pub const hipErrorNotInitialized: hipError_t = 3;
/// `hipErrorInsufficientDriver`.
pub const hipErrorInsufficientDriver: hipError_t = 35;
/// `hipErrorNoDevice`: `hipGetDeviceCount` found no GPU.
pub const hipErrorNoDevice: hipError_t = 100;
/// `hipErrorInvalidDevice`.
pub const hipErrorInvalidDevice: hipError_t = 101;
/// `hipErrorNoBinaryForGpu`: a code object for another gfx target.
pub const hipErrorNoBinaryForGpu: hipError_t = 209;
/// `hipErrorNotReady`: `hipStreamQuery`/`hipEventQuery` on work not done yet.
pub const hipErrorNotReady: hipError_t = 600;

/// `hipStreamDefault` (flag of `hipStreamCreateWithFlags`).
pub const hipStreamDefault: c_uint = 0;
/// `hipStreamNonBlocking`: no implicit synchronization with the NULL stream.
pub const hipStreamNonBlocking: c_uint = 1;
/// `hipHostMallocPortable`: pinned memory usable from every device's context.
pub const hipHostMallocPortable: c_uint = 1;
/// `hipEventDefault` (flag of `hipEventCreateWithFlags`).
pub const hipEventDefault: c_uint = 0;
/// `hipEventDisableTiming`.
pub const hipEventDisableTiming: c_uint = 2;

/// `hipStreamCaptureModeGlobal`.
pub const hipStreamCaptureModeGlobal: hipStreamCaptureMode = 0;
/// `hipStreamCaptureModeThreadLocal`.
pub const hipStreamCaptureModeThreadLocal: hipStreamCaptureMode = 1;
/// `hipStreamCaptureModeRelaxed`.
pub const hipStreamCaptureModeRelaxed: hipStreamCaptureMode = 2;
/// `hipStreamCaptureStatusNone`: the stream is not capturing.
pub const hipStreamCaptureStatusNone: hipStreamCaptureStatus = 0;
/// `hipStreamCaptureStatusActive`.
pub const hipStreamCaptureStatusActive: hipStreamCaptureStatus = 1;

/// `hipMemcpyHostToDevice`.
pub const hipMemcpyHostToDevice: hipMemcpyKind = 1;
/// `hipMemcpyDeviceToHost`.
pub const hipMemcpyDeviceToHost: hipMemcpyKind = 2;
/// `hipMemcpyDeviceToDevice`.
pub const hipMemcpyDeviceToDevice: hipMemcpyKind = 3;

/// `hipDeviceAttributeMaxThreadsPerBlock` (56 in ROCm 5.2 and 6.x).
pub const hipDeviceAttributeMaxThreadsPerBlock: hipDeviceAttribute_t = 56;
/// `hipDeviceAttributeMultiprocessorCount` (63 in ROCm 5.2 and 6.x).
pub const hipDeviceAttributeMultiprocessorCount: hipDeviceAttribute_t = 63;
/// `hipDeviceAttributeWarpSize` (87 in ROCm 5.2 and 6.x).
pub const hipDeviceAttributeWarpSize: hipDeviceAttribute_t = 87;

/// Where `gcnArchName` sits in one version of `hipDeviceProp_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropsLayout {
    /// `sizeof(hipDeviceProp_t)`.
    pub size: usize,
    /// `offsetof(hipDeviceProp_t, gcnArchName)` (a `char[256]`).
    pub gcn_arch_name: usize,
}

/// ROCm 5.x `hipDeviceProp_t` (what `hipGetDeviceProperties` fills in 5.x; checked against the
/// 5.2 header by the `ffi_header` test).
pub const PROPS_R0000: PropsLayout = PropsLayout {
    size: 792,
    gcn_arch_name: 396,
};
/// ROCm 6.x `hipDeviceProp_tR0600` (filled by `hipGetDevicePropertiesR0600`); computed with gcc
/// from ROCm/HIP's header at c5e11fcac824 (x86-64 System V layout). Not checked in CI.
pub const PROPS_R0600: PropsLayout = PropsLayout {
    size: 1472,
    gcn_arch_name: 1160,
};
/// Bytes we hand to either `hipGetDeviceProperties*` (room for growth).
pub const PROPS_BUFFER: usize = 8192;

fn_table! {
    /// The HIP runtime functions cupy-hip uses.
    pub struct HipApi {
        fn hipInit(c_uint) -> hipError_t;
        fn hipGetDeviceCount(*mut c_int) -> hipError_t;
        fn hipSetDevice(c_int) -> hipError_t;
        fn hipDeviceGetName(*mut c_char, c_int, hipDevice_t) -> hipError_t;
        fn hipDeviceGetAttribute(*mut c_int, hipDeviceAttribute_t, c_int) -> hipError_t;
        fn hipGetDeviceProperties(*mut hipDeviceProp_t, c_int) -> hipError_t;
        fn hipDeviceTotalMem(*mut size_t, hipDevice_t) -> hipError_t;
        fn hipRuntimeGetVersion(*mut c_int) -> hipError_t;
        fn hipDriverGetVersion(*mut c_int) -> hipError_t;
        fn hipGetErrorName(hipError_t) -> *const c_char;
        fn hipGetErrorString(hipError_t) -> *const c_char;
        fn hipDeviceSynchronize() -> hipError_t;
        fn hipMalloc(*mut *mut c_void, size_t) -> hipError_t;
        fn hipFree(*mut c_void) -> hipError_t;
        fn hipMemGetInfo(*mut size_t, *mut size_t) -> hipError_t;
        fn hipMemcpy(*mut c_void, *const c_void, size_t, hipMemcpyKind) -> hipError_t;
        fn hipMemcpyAsync(*mut c_void, *const c_void, size_t, hipMemcpyKind, hipStream_t) -> hipError_t;
        fn hipHostMalloc(*mut *mut c_void, size_t, c_uint) -> hipError_t;
        fn hipHostFree(*mut c_void) -> hipError_t;
        fn hipMemsetAsync(*mut c_void, c_int, size_t, hipStream_t) -> hipError_t;
        fn hipMemcpyHtoD(hipDeviceptr_t, *mut c_void, size_t) -> hipError_t;
        fn hipMemcpyDtoH(*mut c_void, hipDeviceptr_t, size_t) -> hipError_t;
        fn hipStreamCreate(*mut hipStream_t) -> hipError_t;
        fn hipStreamCreateWithFlags(*mut hipStream_t, c_uint) -> hipError_t;
        fn hipStreamQuery(hipStream_t) -> hipError_t;
        fn hipStreamWaitEvent(hipStream_t, hipEvent_t, c_uint) -> hipError_t;
        fn hipStreamSynchronize(hipStream_t) -> hipError_t;
        fn hipStreamDestroy(hipStream_t) -> hipError_t;
        fn hipModuleLoadData(*mut hipModule_t, *const c_void) -> hipError_t;
        fn hipModuleGetFunction(*mut hipFunction_t, hipModule_t, *const c_char) -> hipError_t;
        fn hipModuleUnload(hipModule_t) -> hipError_t;
        fn hipModuleLaunchKernel(
            hipFunction_t, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
            hipStream_t, *mut *mut c_void, *mut *mut c_void,
        ) -> hipError_t;
        fn hipEventCreate(*mut hipEvent_t) -> hipError_t;
        fn hipEventCreateWithFlags(*mut hipEvent_t, c_uint) -> hipError_t;
        fn hipEventQuery(hipEvent_t) -> hipError_t;
        fn hipEventRecord(hipEvent_t, hipStream_t) -> hipError_t;
        fn hipEventSynchronize(hipEvent_t) -> hipError_t;
        fn hipEventElapsedTime(*mut f32, hipEvent_t, hipEvent_t) -> hipError_t;
        fn hipEventDestroy(hipEvent_t) -> hipError_t;
    }
}

fn_table! {
    /// HIP graphs (stream capture), loaded apart from [`HipApi`] so that a runtime without
    /// them still opens (the graph calls then say why). The same C signatures in ROCm 5.2's
    /// header (checked by the `ffi_header` test) and ROCm 6.x's. `hipGraphUpload` is not in
    /// ROCm 5.2 and is not used (`Graph.upload` does nothing on hip).
    pub struct HipGraphApi {
        fn hipStreamBeginCapture(hipStream_t, hipStreamCaptureMode) -> hipError_t;
        fn hipStreamEndCapture(hipStream_t, *mut hipGraph_t) -> hipError_t;
        fn hipStreamIsCapturing(hipStream_t, *mut hipStreamCaptureStatus) -> hipError_t;
        fn hipGraphInstantiateWithFlags(*mut hipGraphExec_t, hipGraph_t, c_ulonglong) -> hipError_t;
        fn hipGraphLaunch(hipGraphExec_t, hipStream_t) -> hipError_t;
        fn hipGraphExecDestroy(hipGraphExec_t) -> hipError_t;
        fn hipGraphDestroy(hipGraph_t) -> hipError_t;
    }
}

/// ROCm 6+ only: `hipGetDevicePropertiesR0600` (same C signature as `hipGetDeviceProperties`,
/// larger struct, [`PROPS_R0600`]).
pub type GetPropsR0600 = unsafe extern "C" fn(*mut hipDeviceProp_t, c_int) -> hipError_t;

/// Library names tried for the HIP runtime, newest first (ROCm 7.x, 6.x, 5.x, unversioned).
pub const LIB_NAMES: &[&str] = &[
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "libamdhip64.so",
];
