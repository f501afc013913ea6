//! The FFT primitive through rocFFT (loaded at run time; **never run here**: rocFFT is not
//! packaged for the CI's Debian release, so this compiles and refuses cleanly when the library
//! is missing). One not-in-place plan per (length, batch, kind, precision), packed layouts (the
//! contiguous `[batch, len]` rows of the call), an execution info bound to the thread's current stream at each execution;
//! rocFFT allocates the work area itself when a plan needs one. Plans are kept in the shared LRU
//! [`PlanCache`] (16 by default). The c2r input is scratch (rocFFT may overwrite it).

use super::*;
use crate::result::Rocfft;
use crate::sys::rocfft as rf;
use cupy_core::fft::{FftCall, FftKind, PlanCache, PlanCacheInfo, PlanCacheOp, PlanKey};

/// A rocFFT plan and its execution info, destroyed on drop.
pub(crate) struct RocPlan {
    api: Arc<Rocfft>,
    plan: Handle,
    info: Handle,
}

impl Drop for RocPlan {
    fn drop(&mut self) {
        // SAFETY: created by rocfft_plan_create / rocfft_execution_info_create, destroyed once.
        unsafe {
            let _ = (self.api.api.rocfft_execution_info_destroy)(self.info.0);
            let _ = (self.api.api.rocfft_plan_destroy)(self.plan.0);
        }
    }
}

/// The device's plan cache.
pub(crate) type RocPlans = Mutex<PlanCache<RocPlan>>;

fn make(api: &Arc<Rocfft>, key: PlanKey) -> std::result::Result<(RocPlan, usize), String> {
    let ty = match key.kind {
        FftKind::C2C { inverse: false } => rf::rocfft_transform_type_complex_forward,
        FftKind::C2C { inverse: true } => rf::rocfft_transform_type_complex_inverse,
        FftKind::R2C => rf::rocfft_transform_type_real_forward,
        FftKind::C2R => rf::rocfft_transform_type_real_inverse,
    };
    let prec = if key.complex == DType::Complex128 {
        rf::rocfft_precision_double
    } else {
        rf::rocfft_precision_single
    };
    let lengths = [key.n];
    let mut plan: rf::rocfft_plan = std::ptr::null_mut();
    // SAFETY: out pointer to a local; `lengths` holds `dimensions` (1) entries; a null
    // description selects the packed default layouts.
    api.check("rocfft_plan_create", unsafe {
        (api.api.rocfft_plan_create)(
            &mut plan,
            rf::rocfft_placement_notinplace,
            ty,
            prec,
            1,
            lengths.as_ptr(),
            key.batch,
            std::ptr::null_mut(),
        )
    })
    .map_err(|e| {
        format!(
            "{e} (plan: {} n={} batch={} {})",
            key.kind.name(),
            key.n,
            key.batch,
            key.complex
        )
    })?;
    let mut info: rf::rocfft_execution_info = std::ptr::null_mut();
    // SAFETY: out pointer to a local.
    if let Err(e) = api.check("rocfft_execution_info_create", unsafe {
        (api.api.rocfft_execution_info_create)(&mut info)
    }) {
        // SAFETY: the plan was created above.
        unsafe {
            let _ = (api.api.rocfft_plan_destroy)(plan);
        }
        return Err(e);
    }
    let p = RocPlan {
        api: api.clone(),
        plan: Handle(plan),
        info: Handle(info),
    };
    let mut work: usize = 0;
    // SAFETY: valid plan, out pointer to a local.
    api.check("rocfft_plan_get_work_buffer_size", unsafe {
        (api.api.rocfft_plan_get_work_buffer_size)(p.plan.0, &mut work)
    })?;
    Ok((p, work))
}

/// [`cupy_core::Backend::fft`] on HIP.
pub(crate) fn fft(be: &HipBackend, call: &FftCall<'_>) -> Result<()> {
    call.validate()?;
    let op = "fft";
    let ib = be.buf(op, call.input.buffer)?;
    let ob = be.buf(op, call.output.buffer)?;
    if call.batch() == 0 {
        return Ok(());
    }
    let api = Rocfft::get().map_err(|e| Error::Unsupported {
        op: format!("fft ({})", call.kind.name()),
        backend: be.info.label(),
        reason: format!("rocFFT is needed for FFTs on HIP: {e}"),
    })?;
    be.current()?;
    let (ti, to) = call.kind.dtypes(call.complex);
    let mut input = (ib.ptr + (call.input.layout.offset * ti.itemsize()) as u64) as *mut c_void;
    let mut output = (ob.ptr + (call.output.layout.offset * to.itemsize()) as u64) as *mut c_void;
    let key = PlanKey::of(call);
    let mut cache = be.fft_plans.lock().unwrap_or_else(|e| e.into_inner());
    let plan = cache.get_or_make(key, || make(&api, key).map_err(|e| be_err(be, e)))?;
    // SAFETY: valid info; the thread's current stream (set per call, under the cache lock).
    api.check("rocfft_execution_info_set_stream", unsafe {
        (api.api.rocfft_execution_info_set_stream)(plan.info.0, be.cur_stream())
    })
    .map_err(|e| be_err(be, e))?;
    be.order_library()?;
    // SAFETY: a valid plan for these rows; the pointer arrays hold one interleaved buffer each,
    // addressing `batch * len` elements of our buffers (validated); queued on our stream.
    api.check("rocfft_execute", unsafe {
        (api.api.rocfft_execute)(plan.plan.0, &mut input, &mut output, plan.info.0)
    })
    .map_err(|e| be_err(be, e))
}

fn be_err(be: &HipBackend, msg: String) -> Error {
    Error::Backend {
        backend: be.info.label(),
        msg,
    }
}

/// [`cupy_core::Backend::fft_plan_cache`] on HIP.
pub(crate) fn plan_cache(be: &HipBackend, op: PlanCacheOp) -> Result<PlanCacheInfo> {
    let mut cache = be.fft_plans.lock().unwrap_or_else(|e| e.into_inner());
    Ok(cache.control(op))
}
