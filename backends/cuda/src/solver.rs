//! Dense linear algebra through cuSOLVER: the library calls of the shared plans
//! ([`cupy_core::gpu::solver`], which holds the per-op plans, the layout reasoning, info
//! handling and the helper kernels), loaded at run time on the first call: one `cusolverDn`
//! handle per backend, bound to its stream, and cuSOLVER's 64-bit generic API (`cusolverDnX*`,
//! one code path for float32/float64/complex64/complex128; orgqr/ungqr through the typed
//! 32-bit API, which has no generic form).
//!
//! Batches loop the per-matrix calls on the stream with one workspace (from the backend's
//! pool, sized by the `_bufferSize` query), since the calls are ordered.
//! A missing libcusolver, or any cuSOLVER symbol, makes the call `Unsupported`, as does
//! `CUPY_CUSOLVER=0` (to compare with, or fall back to, the host round trip); `eig` is not
//! native (host round trip).

use crate::CudaBackend;
use cudarc::cusolver::sys as cs;
use cudarc::driver::result;
use cupy_core::backend::LinalgOp;
use cupy_core::gpu::solver::{LapackCall, SolverDriver, Work, WorkSize};
use cupy_core::{DType, Result};

mod calls;

/// A cuSOLVER dense handle and its (default) parameter object.
pub(crate) struct Solver {
    handle: cs::cusolverDnHandle_t,
    params: cs::cusolverDnParams_t,
    /// The pinned host workspace of geev/gesvd calls, kept between calls and grown on demand
    /// (`(address, bytes)`; pinning hundreds of MiB per call cost more than the call's copies).
    pinned: std::sync::Mutex<(usize, usize)>,
}

// SAFETY: the handle's stream is set to the caller's current stream before each call, and
// library calls of two streams are ordered ([`crate::streams::LibLane`]).
unsafe impl Send for Solver {}
// SAFETY: as above.
unsafe impl Sync for Solver {}

impl Drop for Solver {
    fn drop(&mut self) {
        let (pinned, _) = *self.pinned.get_mut().unwrap_or_else(|e| e.into_inner());
        // SAFETY: created by cusolverDnCreate/CreateParams and cuMemHostAlloc, destroyed once
        // (every call using the host workspace synchronized its stream before returning).
        let _ = std::panic::catch_unwind(|| unsafe {
            if pinned != 0 {
                let _ = result::free_host(pinned as *mut std::ffi::c_void);
            }
            cs::cusolverDnDestroyParams(self.params);
            cs::cusolverDnDestroy(self.handle);
        });
    }
}

/// Opens cuSOLVER; `Err` says why it is unavailable.
pub(crate) fn create(be: &CudaBackend) -> std::result::Result<Solver, String> {
    crate::provider::CUSOLVER.open(
        |reason| reason,
        || {
            be.bind().map_err(|e| e.to_string())?;
            let mut handle = std::ptr::null_mut();
            // SAFETY: out-parameter; the context is bound.
            let s = unsafe { cs::cusolverDnCreate(&mut handle) };
            if s != cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
                return Err(format!("cusolverDnCreate failed: {s:?}"));
            }
            let mut params = std::ptr::null_mut();
            // SAFETY: valid handle and stream; out-parameter.
            let s = unsafe {
                let s = cs::cusolverDnSetStream(handle, be.stream_ptr() as cs::cudaStream_t);
                if s == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
                    cs::cusolverDnCreateParams(&mut params)
                } else {
                    s
                }
            };
            if s != cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
                // SAFETY: created above.
                unsafe { cs::cusolverDnDestroy(handle) };
                return Err(format!("cusolverDnSetStream/CreateParams failed: {s:?}"));
            }
            Ok(Solver {
                handle,
                params,
                pinned: std::sync::Mutex::new((0, 0)),
            })
        },
    )
}

/// cuSOLVER's data type of a linalg dtype.
fn cuda_type(dt: DType) -> cs::cudaDataType {
    match dt {
        DType::Float32 => cs::cudaDataType::CUDA_R_32F,
        DType::Float64 => cs::cudaDataType::CUDA_R_64F,
        DType::Complex64 => cs::cudaDataType::CUDA_C_32F,
        _ => cs::cudaDataType::CUDA_C_64F,
    }
}

/// The cuSOLVER calls of the shared solver plans ([`cupy_core::gpu::solver`]).
impl SolverDriver for CudaBackend {
    const LIBRARY: &'static str = "cuSOLVER";
    const PIVOT: DType = DType::Int64;
    const HAS_GESVDP: bool = true;

    fn refusal(&self, _op: LinalgOp) -> Option<String> {
        if std::env::var("CUPY_CUSOLVER").is_ok_and(|v| v == "0") {
            return Some("CUPY_CUSOLVER=0 (host round trip requested)".into());
        }
        None
    }

    fn open_solver(&self) -> std::result::Result<(), String> {
        match self.solver.get_or_init(|| create(self)) {
            Ok(_) => Ok(()),
            Err(reason) => Err(reason.clone()),
        }
    }

    fn workspace(&self, call: &LapackCall) -> std::result::Result<WorkSize, String> {
        calls::workspace(self.handle()?, call)
    }

    unsafe fn lapack(&self, call: &LapackCall, work: Work<'_>) -> std::result::Result<(), String> {
        let s = self.handle()?;
        self.order_library()?;
        // SAFETY: valid handle; the thread's current stream.
        let st =
            unsafe { cs::cusolverDnSetStream(s.handle, self.stream_ptr() as cs::cudaStream_t) };
        if st != cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            return Err(format!("cusolverDnSetStream failed: {st:?}"));
        }
        let bytes = work.host.len();
        if bytes == 0 {
            // SAFETY: the caller's contract (addresses and workspace as documented).
            return unsafe { calls::lapack(s, call, work) };
        }
        // A host workspace (geev's, gesvd's) in pinned memory, as NVIDIA's samples advise: the
        // library copies through it during the call. Kept for later calls (grown when too
        // small); the stream has run before the call returns, so the next call may reuse it.
        let mut cache = s.pinned.lock().unwrap_or_else(|e| e.into_inner());
        if cache.1 < bytes {
            if cache.0 != 0 {
                // SAFETY: ours, and no queued work uses it (the last call synchronized).
                let _ = unsafe { result::free_host(cache.0 as *mut std::ffi::c_void) };
                *cache = (0, 0);
            }
            // SAFETY: plain pinned allocation in the bound context.
            let p = unsafe { result::malloc_host(bytes, 0) }
                .map_err(|e| format!("cuMemHostAlloc of the host workspace: {e:?}"))?;
            *cache = (p as usize, bytes);
        }
        let pinned = cache.0 as *mut u8;
        // SAFETY: `pinned` holds at least `bytes` bytes, ours while `cache` is locked.
        let host = unsafe { std::slice::from_raw_parts_mut(pinned, bytes) };
        let work = Work {
            device: work.device,
            device_bytes: work.device_bytes,
            host,
        };
        // SAFETY: the caller's contract; the host workspace is as sized.
        let r = unsafe { calls::lapack(s, call, work) };
        // SAFETY: our stream; then nothing queued reads `pinned` any more.
        let synced = unsafe { result::stream::synchronize(self.stream_ptr()) };
        drop(cache);
        synced.map_err(|e| format!("stream synchronize after the host workspace: {e:?}"))?;
        r
    }

    unsafe fn copy_device(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        // SAFETY: both ranges lie in live buffers (the caller's contract); our stream and
        // bound context.
        unsafe { result::memcpy_dtod_async(dst, src, bytes, self.stream_ptr()) }
            .map_err(|e| self.err(format!("device copy failed: {e:?}")))
    }

    unsafe fn zero_device(&self, dst: u64, bytes: usize) -> Result<()> {
        // SAFETY: the range lies in a live buffer (the caller's contract); our stream.
        unsafe { result::memset_d8_async(dst, 0, bytes, self.stream_ptr()) }
            .map_err(|e| self.err(format!("device memset failed: {e:?}")))
    }
}

impl CudaBackend {
    /// The opened cuSOLVER handle ([`SolverDriver::open_solver`] ran first).
    fn handle(&self) -> std::result::Result<&Solver, String> {
        match self.solver.get() {
            Some(Ok(s)) => Ok(s),
            Some(Err(e)) => Err(e.clone()),
            None => Err("cuSOLVER not opened".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_map_to_cusolver_types() {
        assert_eq!(cuda_type(DType::Float32), cs::cudaDataType::CUDA_R_32F);
        assert_eq!(cuda_type(DType::Float64), cs::cudaDataType::CUDA_R_64F);
        assert_eq!(cuda_type(DType::Complex64), cs::cudaDataType::CUDA_C_32F);
        assert_eq!(cuda_type(DType::Complex128), cs::cudaDataType::CUDA_C_64F);
    }
}
