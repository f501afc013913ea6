//! The FFT primitive through cuFFT (cudarc's `cufft`, loaded at run time): one
//! `cufftMakePlanMany64` plan per (length, batch, kind, precision) of this device, kept in an
//! LRU [`PlanCache`] (CuPy's `get_plan_cache()`: 16 plans by default, resizable and clearable
//! through [`cupy_core::Backend::fft_plan_cache`]). Plans run on the thread's current stream (set before each execution); cuFFT
//! allocates each plan's work area itself (auto-allocation), reported as the cache's bytes.
//!
//! Types: C2C/Z2Z (forward `CUFFT_FORWARD = -1`, inverse `CUFFT_INVERSE = +1`), R2C/D2Z,
//! C2R/Z2D (the C2R input is scratch: cuFFT overwrites it, which the call's contract allows).
//! Layouts are the contiguous `[batch, len]` rows of the call (`inembed = onembed = NULL`:
//! the basic layout, stride 1, distance = row length).

use crate::provider::CUFFT;
use crate::{CudaBackend, CudaBuffer};
use cudarc::cufft::sys as cf;
use cupy_core::fft::{FftCall, FftKind, PlanCache, PlanCacheInfo, PlanCacheOp, PlanKey};
use cupy_core::{DType, Error, Result};
use std::sync::Mutex;

/// A cuFFT plan handle, destroyed on drop.
#[derive(Debug)]
pub(crate) struct Plan(cf::cufftHandle);

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: created by cufftCreate, destroyed once (the cache owns it).
        let _ = std::panic::catch_unwind(|| unsafe { cf::cufftDestroy(self.0) });
    }
}

/// The device's plan cache.
pub(crate) type Plans = Mutex<PlanCache<Plan>>;

fn check(be: &CudaBackend, what: &str, r: cf::cufftResult) -> Result<()> {
    if r == cf::cufftResult::CUFFT_SUCCESS {
        Ok(())
    } else {
        Err(be.err(format!("cuFFT {what} failed: {r:?}")))
    }
}

fn cufft_type(kind: FftKind, complex: DType) -> cf::cufftType {
    let double = complex == DType::Complex128;
    match (kind, double) {
        (FftKind::C2C { .. }, false) => cf::cufftType::CUFFT_C2C,
        (FftKind::C2C { .. }, true) => cf::cufftType::CUFFT_Z2Z,
        (FftKind::R2C, false) => cf::cufftType::CUFFT_R2C,
        (FftKind::R2C, true) => cf::cufftType::CUFFT_D2Z,
        (FftKind::C2R, false) => cf::cufftType::CUFFT_C2R,
        (FftKind::C2R, true) => cf::cufftType::CUFFT_Z2D,
    }
}

/// Makes the plan of `key` on the backend's stream; returns it and its work-area bytes.
fn make_plan(be: &CudaBackend, key: PlanKey) -> Result<(Plan, usize)> {
    if !CUFFT.present() {
        return Err(CUFFT.unavailable());
    }
    let mut handle: cf::cufftHandle = 0;
    // SAFETY: out-parameter.
    check(be, "cufftCreate", unsafe { cf::cufftCreate(&mut handle) })?;
    let plan = Plan(handle);
    let (li, lo) = key.kind.row_lens(key.n);
    let mut n = [key.n as i64];
    let mut work = 0usize;
    // SAFETY: a fresh plan; `n` is readable for rank 1; null embeds select the basic layout.
    check(be, "cufftMakePlanMany64", unsafe {
        cf::cufftMakePlanMany64(
            plan.0,
            1,
            n.as_mut_ptr(),
            std::ptr::null_mut(),
            1,
            li as i64,
            std::ptr::null_mut(),
            1,
            lo as i64,
            cufft_type(key.kind, key.complex),
            key.batch as i64,
            &mut work,
        )
    })
    .map_err(|e| match e {
        Error::Backend { backend, msg } => Error::Backend {
            backend,
            msg: format!(
                "{msg} (plan: {} n={} batch={} {})",
                key.kind.name(),
                key.n,
                key.batch,
                key.complex
            ),
        },
        e => e,
    })?;
    Ok((plan, work))
}

/// [`cupy_core::Backend::fft`] on CUDA.
pub(crate) fn fft(be: &CudaBackend, call: &FftCall<'_>) -> Result<()> {
    call.validate()?;
    let op = "fft";
    let (ti, to) = call.kind.dtypes(call.complex);
    let ib: &CudaBuffer = be.buf(call.input.buffer, op)?;
    let ob: &CudaBuffer = be.buf(call.output.buffer, op)?;
    if call.batch() == 0 {
        return Ok(());
    }
    be.bind()?;
    let key = PlanKey::of(call);
    let idata =
        (ib.ptr + (call.input.layout.offset * ti.itemsize()) as u64) as *mut std::ffi::c_void;
    let odata =
        (ob.ptr + (call.output.layout.offset * to.itemsize()) as u64) as *mut std::ffi::c_void;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<()> {
        let mut cache = be.fft_plans.lock().unwrap_or_else(|e| e.into_inner());
        let plan = cache.get_or_make(key, || make_plan(be, key))?.0;
        be.order_library().map_err(|e| be.err(e))?;
        // SAFETY: valid plan; the thread's current stream (set per call, under the cache lock).
        check(be, "cufftSetStream", unsafe {
            cf::cufftSetStream(plan, be.stream_ptr() as cf::cudaStream_t)
        })?;
        // SAFETY: valid plan for these row counts and types; the pointers address
        // `batch * len` elements of our buffers (validated), queued on our stream.
        let status = unsafe {
            match (call.kind, call.complex == DType::Complex128) {
                (FftKind::C2C { inverse }, false) => cf::cufftExecC2C(
                    plan,
                    idata.cast(),
                    odata.cast(),
                    if inverse { 1 } else { -1 },
                ),
                (FftKind::C2C { inverse }, true) => cf::cufftExecZ2Z(
                    plan,
                    idata.cast(),
                    odata.cast(),
                    if inverse { 1 } else { -1 },
                ),
                (FftKind::R2C, false) => cf::cufftExecR2C(plan, idata.cast(), odata.cast()),
                (FftKind::R2C, true) => cf::cufftExecD2Z(plan, idata.cast(), odata.cast()),
                (FftKind::C2R, false) => cf::cufftExecC2R(plan, idata.cast(), odata.cast()),
                (FftKind::C2R, true) => cf::cufftExecZ2D(plan, idata.cast(), odata.cast()),
            }
        };
        check(
            be,
            &format!("exec ({} n={})", call.kind.name(), call.n),
            status,
        )
    }));
    r.unwrap_or_else(|_| Err(CUFFT.unavailable()))
}

/// [`cupy_core::Backend::fft_plan_cache`] on CUDA.
pub(crate) fn plan_cache(be: &CudaBackend, op: PlanCacheOp) -> Result<PlanCacheInfo> {
    be.bind()?;
    let mut cache = be.fft_plans.lock().unwrap_or_else(|e| e.into_inner());
    Ok(cache.control(op))
}
