//! cuSPARSE's generic API as the CUDA backend's [`SparseLibrary`]: SpMV and SpMM
//! (`cusparseSpMV`, `cusparseSpMM`), SpGEMM (`cusparseSpGEMM_workEstimation/compute/copy`) and
//! the triangular solves (`cusparseSpSV_bufferSize/analysis/solve`, and
//! `cusparseSpSM_bufferSize/analysis/solve` for several right-hand sides), loaded at run time through
//! cudarc's dynamic loading on the first call (one handle per backend, set to the thread's
//! current stream before each call). A missing libcusparse (or symbol) makes every call
//! `Unsupported`, and the frontend runs its IR kernels.
//!
//! The declarations come from cudarc's bindgen of `cusparse.h`; the ones used here were checked
//! against the CUDA 12.0-12.9 and 13.0 variants of that binding (cudarc 0.19.10,
//! `src/cusparse/sys/mod.rs`, whose `cfg(feature = "cuda-12xxx"/"cuda-13000")` blocks are
//! generated from each toolkit's header): the signatures of every function below are the same
//! in all of them, and so are the values used: `CUDA_R_32F/R_64F/C_32F/C_64F` = 0/1/4/5,
//! `CUSPARSE_INDEX_32I/64I` = 2/3, `CUSPARSE_INDEX_BASE_ZERO` = 0,
//! `CUSPARSE_OPERATION_NON_TRANSPOSE` = 0, `CUSPARSE_ORDER_ROW` = 2,
//! `CUSPARSE_SPMV_ALG_DEFAULT` = 0, `CUSPARSE_SPMM_ALG_DEFAULT` = 0, `CUSPARSE_SPGEMM_DEFAULT`
//! = 0, `CUSPARSE_SPSV_ALG_DEFAULT` = 0, `CUSPARSE_SPSM_ALG_DEFAULT` = 0, `CUSPARSE_SPMAT_FILL_MODE/DIAG_TYPE` = 0/1,
//! `CUSPARSE_FILL_MODE_LOWER/UPPER` = 0/1, `CUSPARSE_DIAG_TYPE_NON_UNIT/UNIT` = 0/1, `CUSPARSE_STATUS_NOT_SUPPORTED` = 10.
//!
//! Limits (answered by `check`, so the frontend falls back): SpGEMM with int32 indices only
//! (cuSPARSE's SpGEMM takes 32-bit indices); values float32, float64, complex64, complex128.
//! SpSM takes `B` and `X` row-major (`CUSPARSE_ORDER_ROW`); a cuSPARSE refusing that
//! (`NOT_SUPPORTED`) sends the call to the native kernel. Descriptors of SpGEMM, SpSV and SpSM own device state, so those calls wait for the stream before
//! destroying them.

use crate::CudaBackend;
use cudarc::cusparse::sys as cs;
use cupy_core::backend::sparse::{
    CsrAlloc, CsrRef, SpGemmCall, SpMvCall, SpSmCall, SpSvCall, SparseLibrary, SparseRoutine,
};
use cupy_core::backend::{Backend, Buffer};
use cupy_core::gpu::launch::GpuDriver;
use cupy_core::{DType, Error, Result};
use std::ffi::c_void;

/// The backend's cuSPARSE handle.
pub(crate) struct CuSparse {
    handle: cs::cusparseHandle_t,
}

// SAFETY: the handle is used under `CALLS` and bound to the caller's stream before each call.
unsafe impl Send for CuSparse {}
// SAFETY: as above.
unsafe impl Sync for CuSparse {}

impl Drop for CuSparse {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreate, destroyed once.
        let _ = std::panic::catch_unwind(|| unsafe { cs::cusparseDestroy(self.handle) });
    }
}

/// One cuSPARSE call at a time (the handle is shared by the backend's threads).
static CALLS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Opens cuSPARSE; `Err` says why it is unavailable.
pub(crate) fn create(be: &CudaBackend) -> std::result::Result<CuSparse, String> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: only tries to open the library.
        if !unsafe { cs::is_culib_present() } {
            return Err("libcusparse not found (install cuSPARSE, e.g. libcusparse.so.12)".into());
        }
        be.activate().map_err(|e| e.to_string())?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: out-parameter; the context is bound.
        status("cusparseCreate", unsafe { cs::cusparseCreate(&mut handle) })?;
        Ok(CuSparse { handle })
    }));
    r.unwrap_or_else(|_| Err("libcusparse failed to load (a symbol is missing)".into()))
}

fn status(what: &str, s: cs::cusparseStatus_t) -> std::result::Result<(), String> {
    if s == cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {s:?}"))
    }
}

/// cuSPARSE's value type of a dtype.
fn value_type(dt: DType) -> Option<cs::cudaDataType> {
    Some(match dt {
        DType::Float32 => cs::cudaDataType::CUDA_R_32F,
        DType::Float64 => cs::cudaDataType::CUDA_R_64F,
        DType::Complex64 => cs::cudaDataType::CUDA_C_32F,
        DType::Complex128 => cs::cudaDataType::CUDA_C_64F,
        _ => return None,
    })
}

/// cuSPARSE's index type of a dtype.
fn index_type(dt: DType) -> cs::cusparseIndexType_t {
    if dt == DType::Int64 {
        cs::cusparseIndexType_t::CUSPARSE_INDEX_64I
    } else {
        cs::cusparseIndexType_t::CUSPARSE_INDEX_32I
    }
}

/// The bytes of the scalar `v` (real part; imaginary 0) in `dt`, for `alpha`/`beta`.
fn scalar(dt: DType, v: f64) -> [u8; 16] {
    let mut b = [0u8; 16];
    match dt {
        DType::Float32 | DType::Complex64 => b[..4].copy_from_slice(&(v as f32).to_ne_bytes()),
        _ => b[..8].copy_from_slice(&v.to_ne_bytes()),
    }
    b
}

/// Descriptors destroyed on drop (host objects of the library).
struct Descrs {
    mats: Vec<cs::cusparseSpMatDescr_t>,
    vecs: Vec<cs::cusparseDnVecDescr_t>,
    dense: Vec<cs::cusparseDnMatDescr_t>,
}

impl Drop for Descrs {
    fn drop(&mut self) {
        // SAFETY: each was created once by the matching cusparseCreate* call.
        unsafe {
            for &m in &self.mats {
                cs::cusparseDestroySpMat(m);
            }
            for &v in &self.vecs {
                cs::cusparseDestroyDnVec(v);
            }
            for &d in &self.dense {
                cs::cusparseDestroyDnMat(d);
            }
        }
    }
}

impl CudaBackend {
    fn cusparse(&self) -> std::result::Result<&CuSparse, String> {
        match self.sparse.get_or_init(|| create(self)) {
            Ok(s) => Ok(s),
            Err(e) => Err(e.clone()),
        }
    }

    fn sp_unsupported(&self, routine: SparseRoutine, reason: String) -> Error {
        Error::Unsupported {
            op: format!("cuSPARSE {}", routine.name()),
            backend: self.info().label(),
            reason,
        }
    }

    /// A cuSPARSE status as a `Result`: `CUSPARSE_STATUS_NOT_SUPPORTED` is `Unsupported` (the
    /// frontend then runs its kernels), any other failure a backend error.
    fn sp_status(&self, what: &str, s: cs::cusparseStatus_t) -> Result<()> {
        match status(what, s) {
            Ok(()) => Ok(()),
            Err(e) if s == cs::cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED => {
                Err(Error::Unsupported {
                    op: "cuSPARSE".into(),
                    backend: self.info().label(),
                    reason: e,
                })
            }
            Err(e) => Err(self.sp_err(e)),
        }
    }

    fn sp_err(&self, msg: String) -> Error {
        Error::Backend {
            backend: self.info().label(),
            msg: format!("cuSPARSE: {msg}"),
        }
    }

    fn addr(&self, b: &Buffer, op: &str) -> Result<*mut c_void> {
        Ok(self.dev_buf(b, op)?.ptr as *mut c_void)
    }

    /// A device workspace of `bytes` (at least 1), returned to the pool when dropped (the
    /// pool reuses it only for work queued after ours on this stream).
    fn workspace(&self, bytes: usize) -> Result<(Buffer, *mut c_void)> {
        let b = self.alloc(DType::UInt8, bytes.max(1))?;
        let p = self.addr(&b, "cuSPARSE workspace")?;
        Ok((b, p))
    }

    /// A two-phase cuSPARSE call: `call(size, buffer)` once with a null buffer (the size
    /// query), then with a workspace of that size, which is returned (keep it alive until
    /// the stream has run the work queued with it).
    fn two_phase(
        &self,
        what: &str,
        mut call: impl FnMut(*mut usize, *mut c_void) -> cs::cusparseStatus_t,
    ) -> Result<Buffer> {
        let mut bytes = 0usize;
        self.sp_status(
            &format!("{what} (size)"),
            call(&mut bytes, std::ptr::null_mut()),
        )?;
        let (w, p) = self.workspace(bytes)?;
        self.sp_status(what, call(&mut bytes, p))?;
        Ok(w)
    }

    /// The CSR descriptor of `a`.
    fn csr_descr(
        &self,
        a: &CsrRef<'_>,
        d: &mut Descrs,
        op: &str,
    ) -> Result<cs::cusparseSpMatDescr_t> {
        let it = index_type(a.index_dtype());
        let vt = value_type(a.dtype()).expect("checked value dtype");
        let mut m = std::ptr::null_mut();
        // SAFETY: device addresses of live buffers the caller checked; out-parameter.
        let s = unsafe {
            cs::cusparseCreateCsr(
                &mut m,
                a.rows as i64,
                a.cols as i64,
                a.nnz as i64,
                self.addr(a.indptr, op)?,
                self.addr(a.indices, op)?,
                self.addr(a.data, op)?,
                it,
                it,
                cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                vt,
            )
        };
        self.sp_status("cusparseCreateCsr", s)?;
        d.mats.push(m);
        Ok(m)
    }

    fn dn_vec(
        &self,
        b: &Buffer,
        n: usize,
        dt: DType,
        d: &mut Descrs,
    ) -> Result<cs::cusparseDnVecDescr_t> {
        let mut v = std::ptr::null_mut();
        let vt = value_type(dt).expect("checked value dtype");
        // SAFETY: a live device buffer of `n` elements; out-parameter.
        let s = unsafe { cs::cusparseCreateDnVec(&mut v, n as i64, self.addr(b, "cuSPARSE")?, vt) };
        self.sp_status("cusparseCreateDnVec", s)?;
        d.vecs.push(v);
        Ok(v)
    }

    fn dn_mat(
        &self,
        b: &Buffer,
        rows: usize,
        k: usize,
        dt: DType,
        d: &mut Descrs,
    ) -> Result<cs::cusparseDnMatDescr_t> {
        let mut m = std::ptr::null_mut();
        let vt = value_type(dt).expect("checked value dtype");
        // SAFETY: a live row-major `rows x k` buffer; out-parameter.
        let s = unsafe {
            cs::cusparseCreateDnMat(
                &mut m,
                rows as i64,
                k as i64,
                k as i64,
                self.addr(b, "cuSPARSE")?,
                vt,
                cs::cusparseOrder_t::CUSPARSE_ORDER_ROW,
            )
        };
        self.sp_status("cusparseCreateDnMat", s)?;
        d.dense.push(m);
        Ok(m)
    }

    /// Binds the context, orders the call after other streams' library calls and sets the
    /// handle's stream; returns the handle.
    fn sp_begin(&self, routine: SparseRoutine) -> Result<cs::cusparseHandle_t> {
        let h = self
            .cusparse()
            .map_err(|r| self.sp_unsupported(routine, r))?
            .handle;
        self.activate()?;
        self.order_library().map_err(|e| self.sp_err(e))?;
        // SAFETY: valid handle; the thread's current stream of our context.
        let s = unsafe { cs::cusparseSetStream(h, self.stream_ptr() as cs::cudaStream_t) };
        self.sp_status("cusparseSetStream", s)?;
        Ok(h)
    }

    fn sp_sync(&self) -> Result<()> {
        // SAFETY: our bound context's current stream.
        unsafe { cudarc::driver::result::stream::synchronize(self.stream_ptr()) }
            .map_err(|e| self.sp_err(format!("stream synchronize: {e:?}")))
    }
}

/// The cuSPARSE routines (see the module docs).
impl SparseLibrary for CudaBackend {
    fn library(&self) -> &'static str {
        "cuSPARSE"
    }

    fn check(
        &self,
        routine: SparseRoutine,
        dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String> {
        if value_type(dtype).is_none() {
            return Err(format!(
                "cuSPARSE takes float32, float64, complex64 and complex128 values, not {dtype}"
            ));
        }
        match (routine, index) {
            (SparseRoutine::SpGemm, DType::Int32) => {}
            (SparseRoutine::SpGemm, _) => {
                return Err(format!(
                    "cuSPARSE's SpGEMM takes int32 indices, not {index}"
                ))
            }
            (_, DType::Int32 | DType::Int64) => {}
            _ => {
                return Err(format!(
                    "cuSPARSE takes int32 or int64 indices, not {index}"
                ))
            }
        }
        self.cusparse().map(|_| ())
    }

    fn spmv(&self, call: &SpMvCall<'_>) -> Result<()> {
        self.sp_guard(SparseRoutine::SpMv, || self.spmv_impl(call))
    }

    fn spgemm(&self, call: &SpGemmCall<'_>, alloc: &mut CsrAlloc<'_>) -> Result<usize> {
        self.sp_guard(SparseRoutine::SpGemm, || self.spgemm_impl(call, alloc))
    }

    fn spsv(&self, call: &SpSvCall<'_>) -> Result<()> {
        self.sp_guard(SparseRoutine::SpSv, || self.spsv_impl(call))
    }

    fn spsm(&self, call: &SpSmCall<'_>) -> Result<()> {
        self.sp_guard(SparseRoutine::SpSm, || self.spsm_impl(call))
    }
}

impl CudaBackend {
    /// Runs `f`, turning a panic (cudarc's for a symbol missing from an older libcusparse)
    /// into `Unsupported`.
    fn sp_guard<T>(&self, r: SparseRoutine, f: impl FnOnce() -> Result<T>) -> Result<T> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(v) => v,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                Err(self.sp_unsupported(r, msg))
            }
        }
    }

    fn spmv_impl(&self, call: &SpMvCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpMv;
        let op = "cuSPARSE SpMV";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        self.check(r, dt, a.index_dtype())
            .map_err(|e| self.sp_unsupported(r, e))?;
        let _one = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let h = self.sp_begin(r)?;
        let mut d = Descrs {
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.csr_descr(a, &mut d, op)?;
        let vt = value_type(dt).expect("checked");
        let (alpha, beta) = (scalar(dt, 1.0), scalar(dt, 0.0));
        let (al, be) = (
            alpha.as_ptr() as *const c_void,
            beta.as_ptr() as *const c_void,
        );
        let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let mut bytes = 0usize;
        if call.vector {
            let x = self.dn_vec(call.x, a.cols, dt, &mut d)?;
            let y = self.dn_vec(call.y, a.rows, dt, &mut d)?;
            let alg = cs::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
            // SAFETY: descriptors of live buffers; host scalars of the compute type.
            let s =
                unsafe { cs::cusparseSpMV_bufferSize(h, nt, al, m, x, be, y, vt, alg, &mut bytes) };
            self.sp_status("cusparseSpMV_bufferSize", s)?;
            let (_w, wp) = self.workspace(bytes)?;
            // SAFETY: as above, with the workspace sized by the query.
            let s = unsafe { cs::cusparseSpMV(h, nt, al, m, x, be, y, vt, alg, wp) };
            self.sp_status("cusparseSpMV", s)
        } else {
            let x = self.dn_mat(call.x, a.cols, call.k, dt, &mut d)?;
            let y = self.dn_mat(call.y, a.rows, call.k, dt, &mut d)?;
            let alg = cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
            // SAFETY: as for SpMV.
            let s = unsafe {
                cs::cusparseSpMM_bufferSize(h, nt, nt, al, m, x, be, y, vt, alg, &mut bytes)
            };
            self.sp_status("cusparseSpMM_bufferSize", s)?;
            let (_w, wp) = self.workspace(bytes)?;
            // SAFETY: as above.
            let s = unsafe { cs::cusparseSpMM(h, nt, nt, al, m, x, be, y, vt, alg, wp) };
            self.sp_status("cusparseSpMM", s)
        }
    }

    fn spgemm_impl(&self, call: &SpGemmCall<'_>, alloc: &mut CsrAlloc<'_>) -> Result<usize> {
        let r = SparseRoutine::SpGemm;
        let op = "cuSPARSE SpGEMM";
        let (a, b) = (&call.a, &call.b);
        a.check(op)?;
        b.check(op)?;
        let (dt, it) = (a.dtype(), a.index_dtype());
        if b.dtype() != dt
            || b.index_dtype() != it
            || call.c_indptr.dtype() != it
            || a.cols != b.rows
        {
            return Err(Error::invalid(
                op,
                "A, B and C's indptr must share dtypes, A.cols == B.rows",
            ));
        }
        self.check(r, dt, it)
            .map_err(|e| self.sp_unsupported(r, e))?;
        let _one = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let h = self.sp_begin(r)?;
        let mut d = Descrs {
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let ma = self.csr_descr(a, &mut d, op)?;
        let mb = self.csr_descr(b, &mut d, op)?;
        let vt = value_type(dt).expect("checked");
        let ity = index_type(it);
        let mut mc = std::ptr::null_mut();
        // SAFETY: an empty C over the caller's indptr buffer (rows + 1 elements); out-parameter.
        let s = unsafe {
            cs::cusparseCreateCsr(
                &mut mc,
                a.rows as i64,
                b.cols as i64,
                0,
                self.addr(call.c_indptr, op)?,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                ity,
                ity,
                cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                vt,
            )
        };
        self.sp_status("cusparseCreateCsr (C)", s)?;
        d.mats.push(mc);
        let mut sd = std::ptr::null_mut();
        // SAFETY: out-parameter.
        let s = unsafe { cs::cusparseSpGEMM_createDescr(&mut sd) };
        self.sp_status("cusparseSpGEMM_createDescr", s)?;
        let res = (|| -> Result<usize> {
            let (alpha, beta) = (scalar(dt, 1.0), scalar(dt, 0.0));
            let (al, be) = (
                alpha.as_ptr() as *const c_void,
                beta.as_ptr() as *const c_void,
            );
            let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
            let alg = cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;
            // SAFETY (both calls): valid descriptors; a null buffer with the size query, then
            // a workspace of the size asked for.
            let _w1 = self.two_phase("cusparseSpGEMM_workEstimation", |bytes, buf| unsafe {
                cs::cusparseSpGEMM_workEstimation(
                    h, nt, nt, al, ma, mb, be, mc, vt, alg, sd, bytes, buf,
                )
            })?;
            // SAFETY: as above; the workspaces stay alive until the stream drains below.
            let _w2 = self.two_phase("cusparseSpGEMM_compute", |bytes, buf| unsafe {
                cs::cusparseSpGEMM_compute(h, nt, nt, al, ma, mb, be, mc, vt, alg, sd, bytes, buf)
            })?;
            let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
            // SAFETY: valid descriptor; out-parameters.
            let s = unsafe { cs::cusparseSpMatGetSize(mc, &mut rows, &mut cols, &mut nnz) };
            self.sp_status("cusparseSpMatGetSize", s)?;
            let nnz = nnz.max(0) as usize;
            let (ci, cd) = alloc(nnz)?;
            if ci.len() < nnz || cd.len() < nnz || ci.dtype() != it || cd.dtype() != dt {
                return Err(Error::invalid(
                    op,
                    "the C buffers do not match C's size and dtypes",
                ));
            }
            // SAFETY: live buffers of `nnz` elements (checked) and the caller's indptr.
            let s = unsafe {
                cs::cusparseCsrSetPointers(
                    mc,
                    self.addr(call.c_indptr, op)?,
                    self.addr(&ci, op)?,
                    self.addr(&cd, op)?,
                )
            };
            self.sp_status("cusparseCsrSetPointers", s)?;
            // SAFETY: every descriptor and buffer is live; the copy is queued on our stream.
            let s = unsafe { cs::cusparseSpGEMM_copy(h, nt, nt, al, ma, mb, be, mc, vt, alg, sd) };
            self.sp_status("cusparseSpGEMM_copy", s)?;
            // The descriptor's device state and the workspaces must outlive the copy.
            self.sp_sync()?;
            Ok(nnz)
        })();
        // SAFETY: created above; nothing queued uses it any more (synchronized, or failed).
        unsafe { cs::cusparseSpGEMM_destroyDescr(sd) };
        res
    }

    fn spsv_impl(&self, call: &SpSvCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpSv;
        let op = "cuSPARSE SpSV";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        if a.rows != a.cols || call.b.dtype() != dt || call.x.dtype() != dt {
            return Err(Error::invalid(op, "A must be square and b, x of A's dtype"));
        }
        self.check(r, dt, a.index_dtype())
            .map_err(|e| self.sp_unsupported(r, e))?;
        let _one = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let h = self.sp_begin(r)?;
        let mut d = Descrs {
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.csr_descr(a, &mut d, op)?;
        self.tri_attrs(m, call.lower, call.unit_diagonal)?;
        let x = self.dn_vec(call.b, a.rows, dt, &mut d)?;
        let y = self.dn_vec(call.x, a.rows, dt, &mut d)?;
        let vt = value_type(dt).expect("checked");
        let mut sd = std::ptr::null_mut();
        // SAFETY: out-parameter.
        let s = unsafe { cs::cusparseSpSV_createDescr(&mut sd) };
        self.sp_status("cusparseSpSV_createDescr", s)?;
        let res = (|| -> Result<()> {
            let alpha = scalar(dt, 1.0);
            let al = alpha.as_ptr() as *const c_void;
            let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
            let alg = cs::cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT;
            let mut bytes = 0usize;
            // SAFETY: valid descriptors; out-parameter.
            let s =
                unsafe { cs::cusparseSpSV_bufferSize(h, nt, al, m, x, y, vt, alg, sd, &mut bytes) };
            self.sp_status("cusparseSpSV_bufferSize", s)?;
            let (_w, wp) = self.workspace(bytes)?;
            // SAFETY: the workspace is as sized and alive until the stream drains below.
            let s = unsafe { cs::cusparseSpSV_analysis(h, nt, al, m, x, y, vt, alg, sd, wp) };
            self.sp_status("cusparseSpSV_analysis", s)?;
            // SAFETY: as above.
            let s = unsafe { cs::cusparseSpSV_solve(h, nt, al, m, x, y, vt, alg, sd) };
            self.sp_status("cusparseSpSV_solve", s)?;
            self.sp_sync()
        })();
        // SAFETY: created above; nothing queued uses it any more.
        unsafe { cs::cusparseSpSV_destroyDescr(sd) };
        res
    }

    /// Marks the CSR descriptor `m` as the lower or upper triangle, with a unit or stored
    /// diagonal (SpSV, SpSM).
    fn tri_attrs(
        &self,
        m: cs::cusparseSpMatDescr_t,
        lower: bool,
        unit_diagonal: bool,
    ) -> Result<()> {
        let mut fill = if lower {
            cs::cusparseFillMode_t::CUSPARSE_FILL_MODE_LOWER
        } else {
            cs::cusparseFillMode_t::CUSPARSE_FILL_MODE_UPPER
        };
        let mut diag = if unit_diagonal {
            cs::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_UNIT
        } else {
            cs::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_NON_UNIT
        };
        // SAFETY: valid descriptor; the attribute values are read during the calls.
        let s = unsafe {
            cs::cusparseSpMatSetAttribute(
                m,
                cs::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_FILL_MODE,
                &mut fill as *mut _ as *mut c_void,
                std::mem::size_of::<cs::cusparseFillMode_t>(),
            )
        };
        self.sp_status("cusparseSpMatSetAttribute (fill mode)", s)?;
        // SAFETY: as above.
        let s = unsafe {
            cs::cusparseSpMatSetAttribute(
                m,
                cs::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_DIAG_TYPE,
                &mut diag as *mut _ as *mut c_void,
                std::mem::size_of::<cs::cusparseDiagType_t>(),
            )
        };
        self.sp_status("cusparseSpMatSetAttribute (diag type)", s)
    }

    fn spsm_impl(&self, call: &SpSmCall<'_>) -> Result<()> {
        let r = SparseRoutine::SpSm;
        let op = "cuSPARSE SpSM";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        if a.rows != a.cols || call.b.dtype() != dt || call.x.dtype() != dt {
            return Err(Error::invalid(op, "A must be square and B, X of A's dtype"));
        }
        self.check(r, dt, a.index_dtype())
            .map_err(|e| self.sp_unsupported(r, e))?;
        let _one = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let h = self.sp_begin(r)?;
        let mut d = Descrs {
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.csr_descr(a, &mut d, op)?;
        self.tri_attrs(m, call.lower, call.unit_diagonal)?;
        let b = self.dn_mat(call.b, a.rows, call.k, dt, &mut d)?;
        let x = self.dn_mat(call.x, a.rows, call.k, dt, &mut d)?;
        let vt = value_type(dt).expect("checked");
        let mut sd = std::ptr::null_mut();
        // SAFETY: out-parameter.
        let s = unsafe { cs::cusparseSpSM_createDescr(&mut sd) };
        self.sp_status("cusparseSpSM_createDescr", s)?;
        let res = (|| -> Result<()> {
            let alpha = scalar(dt, 1.0);
            let al = alpha.as_ptr() as *const c_void;
            let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
            let alg = cs::cusparseSpSMAlg_t::CUSPARSE_SPSM_ALG_DEFAULT;
            let mut bytes = 0usize;
            // SAFETY: valid descriptors; out-parameter.
            let s = unsafe {
                cs::cusparseSpSM_bufferSize(h, nt, nt, al, m, b, x, vt, alg, sd, &mut bytes)
            };
            self.sp_status("cusparseSpSM_bufferSize", s)?;
            let (_w, wp) = self.workspace(bytes)?;
            // SAFETY: the workspace is as sized and alive until the stream drains below.
            let s = unsafe { cs::cusparseSpSM_analysis(h, nt, nt, al, m, b, x, vt, alg, sd, wp) };
            self.sp_status("cusparseSpSM_analysis", s)?;
            // SAFETY: as above.
            let s = unsafe { cs::cusparseSpSM_solve(h, nt, nt, al, m, b, x, vt, alg, sd) };
            self.sp_status("cusparseSpSM_solve", s)?;
            self.sp_sync()
        })();
        // SAFETY: created above; nothing queued uses it any more.
        unsafe { cs::cusparseSpSM_destroyDescr(sd) };
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_map_to_cusparse_types() {
        assert_eq!(
            value_type(DType::Float32),
            Some(cs::cudaDataType::CUDA_R_32F)
        );
        assert_eq!(
            value_type(DType::Complex128),
            Some(cs::cudaDataType::CUDA_C_64F)
        );
        assert_eq!(value_type(DType::Int32), None);
        assert_eq!(index_type(DType::Int32) as u32, 2);
        assert_eq!(index_type(DType::Int64) as u32, 3);
        assert_eq!(cs::cusparseOrder_t::CUSPARSE_ORDER_ROW as u32, 2);
        assert_eq!(
            scalar(DType::Complex64, 1.0)[..8],
            [0, 0, 128, 63, 0, 0, 0, 0]
        );
    }
}
