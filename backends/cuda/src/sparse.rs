//! cuSPARSE's generic API as the CUDA backend's [`SparseDriver`] (the plans, checks and
//! descriptor lifetimes are shared: `cupy_core::gpu::sparse`): SpMV and SpMM (`cusparseSpMV`,
//! `cusparseSpMM`), SpGEMM (`cusparseSpGEMM_workEstimation/compute/copy`) and the triangular
//! solves (`cusparseSpSV_bufferSize/analysis/solve`, and `cusparseSpSM_bufferSize/analysis/
//! solve` for several right-hand sides), loaded at run time through cudarc's dynamic loading
//! on the first call (one handle per backend, set to the thread's current stream before each
//! call). A missing libcusparse (or symbol) makes every call `Unsupported`, and the frontend
//! runs its IR kernels.
//!
//! The declarations come from cudarc's bindgen of `cusparse.h`; the ones used here were checked
//! against the CUDA 12.0-12.9 and 13.0 variants of that binding (cudarc 0.19.10,
//! `src/cusparse/sys/mod.rs`, whose `cfg(feature = "cuda-12xxx"/"cuda-13000")` blocks are
//! generated from each toolkit's header): the signatures of every function below are the same
//! in all of them, and so are the values used: `CUDA_R_32F/R_64F/C_32F/C_64F` = 0/1/4/5,
//! `CUSPARSE_INDEX_32I/64I` = 2/3, `CUSPARSE_INDEX_BASE_ZERO` = 0,
//! `CUSPARSE_OPERATION_NON_TRANSPOSE` = 0, `CUSPARSE_ORDER_ROW` = 2,
//! `CUSPARSE_SPMV_ALG_DEFAULT` = 0, `CUSPARSE_SPMM_ALG_DEFAULT` = 0, `CUSPARSE_SPGEMM_DEFAULT`
//! = 0, `CUSPARSE_SPSV_ALG_DEFAULT` = 0, `CUSPARSE_SPSM_ALG_DEFAULT` = 0,
//! `CUSPARSE_SPMAT_FILL_MODE/DIAG_TYPE` = 0/1, `CUSPARSE_FILL_MODE_LOWER/UPPER` = 0/1,
//! `CUSPARSE_DIAG_TYPE_NON_UNIT/UNIT` = 0/1, `CUSPARSE_STATUS_NOT_SUPPORTED` = 10.
//!
//! Limits (answered by `sparse_types`, so the frontend falls back): SpGEMM with int32 indices
//! only (cuSPARSE's SpGEMM takes 32-bit indices); values float32, float64, complex64,
//! complex128. SpSM takes `B` and `X` row-major (`CUSPARSE_ORDER_ROW`); a cuSPARSE refusing
//! that (`NOT_SUPPORTED`) sends the call to the native kernel. Descriptors of SpGEMM, SpSV and
//! SpSM own device state, so those calls wait for the stream before destroying them.

use crate::CudaBackend;
use cudarc::cusparse::sys as cs;
use cupy_core::backend::sparse::SparseRoutine;
use cupy_core::gpu::launch::GpuDriver;
use cupy_core::gpu::sparse::{
    library_error, unsupported, Apply, ApplyKind, Csr, Dense, DescrKind, Gemm, GemmStep, Raw,
    SparseDriver, SparseSession, Stage,
};
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
    crate::provider::CUSPARSE.open(
        |reason| reason,
        || {
            be.activate().map_err(|e| e.to_string())?;
            let mut handle = std::ptr::null_mut();
            // SAFETY: out-parameter; the context is bound.
            status("cusparseCreate", unsafe { cs::cusparseCreate(&mut handle) })?;
            Ok(CuSparse { handle })
        },
    )
}

fn status(what: &str, s: cs::cusparseStatus_t) -> std::result::Result<(), String> {
    if s == cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {s:?}"))
    }
}

/// cuSPARSE's value type (`cudaDataType`).
type Value = cs::cudaDataType;
/// cuSPARSE's index type.
type Index = cs::cusparseIndexType_t;

impl CudaBackend {
    fn cusparse(&self) -> std::result::Result<&CuSparse, String> {
        match self.sparse.get_or_init(|| create(self)) {
            Ok(s) => Ok(s),
            Err(e) => Err(e.clone()),
        }
    }

    fn sp_err(&self, msg: String) -> Error {
        library_error(self, false, msg)
    }
}

/// One cuSPARSE call sequence: the handle, bound to the current stream, under [`CALLS`].
pub struct Session<'a> {
    be: &'a CudaBackend,
    h: cs::cusparseHandle_t,
    _one: std::sync::MutexGuard<'static, ()>,
}

impl Session<'_> {
    /// A cuSPARSE status as a `Result`: `CUSPARSE_STATUS_NOT_SUPPORTED` is `Unsupported` (the
    /// frontend then runs its kernels), any other failure a backend error.
    fn ok(&self, what: &str, s: cs::cusparseStatus_t) -> Result<()> {
        let refused = s == cs::cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED;
        status(what, s).map_err(|e| library_error(self.be, refused, e))
    }

    fn attr<T>(
        &self,
        m: Raw,
        attr: cs::cusparseSpMatAttribute_t,
        v: &mut T,
        what: &str,
    ) -> Result<()> {
        // SAFETY: valid descriptor; the value is read during the call.
        let s = unsafe {
            cs::cusparseSpMatSetAttribute(
                m as _,
                attr,
                v as *mut T as *mut c_void,
                std::mem::size_of::<T>(),
            )
        };
        self.ok(what, s)
    }
}

impl SparseDriver for CudaBackend {
    type Value = Value;
    type Index = Index;
    const VALUES: [Value; 4] = [
        Value::CUDA_R_32F,
        Value::CUDA_R_64F,
        Value::CUDA_C_32F,
        Value::CUDA_C_64F,
    ];
    const INDICES: [Index; 2] = [Index::CUSPARSE_INDEX_32I, Index::CUSPARSE_INDEX_64I];
    type Session<'a> = Session<'a>;
    const LIBRARY: &'static str = "cuSPARSE";
    const SPGEMM_D: bool = false;

    fn sparse_types(
        &self,
        routine: SparseRoutine,
        _dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String> {
        if routine == SparseRoutine::SpGemm && index != DType::Int32 {
            return Err(format!(
                "cuSPARSE's SpGEMM takes int32 indices, not {index}"
            ));
        }
        self.cusparse().map(|_| ())
    }

    fn begin_sparse(&self, routine: SparseRoutine) -> Result<Session<'_>> {
        let h = self
            .cusparse()
            .map_err(|reason| unsupported(self, routine, reason))?
            .handle;
        let one = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        self.activate()?;
        self.order_library().map_err(|e| self.sp_err(e))?;
        let s = Session {
            be: self,
            h,
            _one: one,
        };
        // SAFETY: valid handle; the thread's current stream of our context.
        let st = unsafe { cs::cusparseSetStream(h, self.stream_ptr() as cs::cudaStream_t) };
        s.ok("cusparseSetStream", st)?;
        Ok(s)
    }

    fn sparse_sync(&self) -> Result<()> {
        // SAFETY: our bound context's current stream.
        unsafe { cudarc::driver::result::stream::synchronize(self.stream_ptr()) }
            .map_err(|e| self.sp_err(format!("stream synchronize: {e:?}")))
    }
}

impl SparseSession for Session<'_> {
    type Value = Value;
    type Index = Index;

    fn holds_state(&self, routine: SparseRoutine) -> bool {
        routine != SparseRoutine::SpMv
    }

    fn csr(&self, p: &Csr<Value, Index>) -> Result<Raw> {
        let mut m = std::ptr::null_mut();
        let base = cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO;
        // SAFETY: device addresses of live buffers the plan checked (or null for an empty C);
        // out-parameter.
        let s = unsafe {
            cs::cusparseCreateCsr(
                &mut m, p.rows, p.cols, p.nnz, p.indptr, p.indices, p.data, p.index, p.index, base,
                p.value,
            )
        };
        self.ok("cusparseCreateCsr", s)?;
        Ok(m as Raw)
    }

    fn vector(&self, v: &Dense<Value>) -> Result<Raw> {
        let mut d = std::ptr::null_mut();
        // SAFETY: a live device buffer of `rows` elements; out-parameter.
        let s = unsafe { cs::cusparseCreateDnVec(&mut d, v.rows, v.ptr, v.value) };
        self.ok("cusparseCreateDnVec", s)?;
        Ok(d as Raw)
    }

    fn matrix(&self, m: &Dense<Value>) -> Result<Raw> {
        let mut d = std::ptr::null_mut();
        let row = cs::cusparseOrder_t::CUSPARSE_ORDER_ROW;
        // SAFETY: a live row-major `rows x cols` buffer; out-parameter.
        let s =
            unsafe { cs::cusparseCreateDnMat(&mut d, m.rows, m.cols, m.cols, m.ptr, m.value, row) };
        self.ok("cusparseCreateDnMat", s)?;
        Ok(d as Raw)
    }

    fn routine_descr(&self, routine: SparseRoutine) -> Result<Raw> {
        let mut d = std::ptr::null_mut();
        // SAFETY (each): out-parameter.
        match routine {
            SparseRoutine::SpMv => return Ok(std::ptr::null_mut()),
            SparseRoutine::SpSv => {
                let s = unsafe { cs::cusparseSpSV_createDescr(&mut d as *mut _ as *mut _) };
                self.ok("cusparseSpSV_createDescr", s)?;
            }
            SparseRoutine::SpSm => {
                let s = unsafe { cs::cusparseSpSM_createDescr(&mut d as *mut _ as *mut _) };
                self.ok("cusparseSpSM_createDescr", s)?;
            }
            SparseRoutine::SpGemm => {
                let s = unsafe { cs::cusparseSpGEMM_createDescr(&mut d as *mut _ as *mut _) };
                self.ok("cusparseSpGEMM_createDescr", s)?;
            }
        }
        Ok(d)
    }

    fn destroy(&self, kind: DescrKind, d: Raw) {
        // SAFETY: each was created once by this session's matching call; nothing queued uses
        // it any more (the plan waited where the descriptor holds device state).
        unsafe {
            match kind {
                DescrKind::Sparse => cs::cusparseDestroySpMat(d as _),
                DescrKind::Vector => cs::cusparseDestroyDnVec(d as _),
                DescrKind::Matrix => cs::cusparseDestroyDnMat(d as _),
                DescrKind::Routine(SparseRoutine::SpSv) => cs::cusparseSpSV_destroyDescr(d as _),
                DescrKind::Routine(SparseRoutine::SpSm) => cs::cusparseSpSM_destroyDescr(d as _),
                DescrKind::Routine(SparseRoutine::SpGemm) => {
                    cs::cusparseSpGEMM_destroyDescr(d as _)
                }
                DescrKind::Routine(SparseRoutine::SpMv) => return,
            };
        }
    }

    fn triangle(&self, a: Raw, lower: bool, unit_diagonal: bool) -> Result<()> {
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
        use cs::cusparseSpMatAttribute_t as A;
        self.attr(
            a,
            A::CUSPARSE_SPMAT_FILL_MODE,
            &mut fill,
            "cusparseSpMatSetAttribute (fill mode)",
        )?;
        self.attr(
            a,
            A::CUSPARSE_SPMAT_DIAG_TYPE,
            &mut diag,
            "cusparseSpMatSetAttribute (diag type)",
        )
    }

    fn apply(&self, c: &Apply<Value>, stage: Stage, bytes: &mut usize, buf: Raw) -> Result<()> {
        let (al, be) = (c.alpha, c.beta);
        let (h, vt) = (self.h, c.value);
        let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let a = c.a as _;
        let spmv = cs::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
        let spmm = cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
        let spsv = cs::cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT;
        let spsm = cs::cusparseSpSMAlg_t::CUSPARSE_SPSM_ALG_DEFAULT;
        // SAFETY (every call): descriptors of live buffers made by the plan; host scalars of
        // the compute type; a workspace of the size the query answered.
        let (what, s) = unsafe {
            match (c.kind, stage) {
                (ApplyKind::SpMv, Stage::Size) => (
                    "cusparseSpMV_bufferSize",
                    cs::cusparseSpMV_bufferSize(
                        h, nt, al, a, c.x as _, be, c.y as _, vt, spmv, bytes,
                    ),
                ),
                (ApplyKind::SpMv, Stage::Run) => (
                    "cusparseSpMV",
                    cs::cusparseSpMV(h, nt, al, a, c.x as _, be, c.y as _, vt, spmv, buf),
                ),
                (ApplyKind::SpMm, Stage::Size) => (
                    "cusparseSpMM_bufferSize",
                    cs::cusparseSpMM_bufferSize(
                        h, nt, nt, al, a, c.x as _, be, c.y as _, vt, spmm, bytes,
                    ),
                ),
                (ApplyKind::SpMm, Stage::Run) => (
                    "cusparseSpMM",
                    cs::cusparseSpMM(h, nt, nt, al, a, c.x as _, be, c.y as _, vt, spmm, buf),
                ),
                (ApplyKind::SpMv | ApplyKind::SpMm, Stage::Prepare) => return Ok(()),
                (ApplyKind::SpSv, Stage::Size) => (
                    "cusparseSpSV_bufferSize",
                    cs::cusparseSpSV_bufferSize(
                        h, nt, al, a, c.x as _, c.y as _, vt, spsv, c.op as _, bytes,
                    ),
                ),
                (ApplyKind::SpSv, Stage::Prepare) => (
                    "cusparseSpSV_analysis",
                    cs::cusparseSpSV_analysis(
                        h, nt, al, a, c.x as _, c.y as _, vt, spsv, c.op as _, buf,
                    ),
                ),
                (ApplyKind::SpSv, Stage::Run) => (
                    "cusparseSpSV_solve",
                    cs::cusparseSpSV_solve(h, nt, al, a, c.x as _, c.y as _, vt, spsv, c.op as _),
                ),
                (ApplyKind::SpSm, Stage::Size) => (
                    "cusparseSpSM_bufferSize",
                    cs::cusparseSpSM_bufferSize(
                        h, nt, nt, al, a, c.x as _, c.y as _, vt, spsm, c.op as _, bytes,
                    ),
                ),
                (ApplyKind::SpSm, Stage::Prepare) => (
                    "cusparseSpSM_analysis",
                    cs::cusparseSpSM_analysis(
                        h, nt, nt, al, a, c.x as _, c.y as _, vt, spsm, c.op as _, buf,
                    ),
                ),
                (ApplyKind::SpSm, Stage::Run) => (
                    "cusparseSpSM_solve",
                    cs::cusparseSpSM_solve(
                        h, nt, nt, al, a, c.x as _, c.y as _, vt, spsm, c.op as _,
                    ),
                ),
            }
        };
        self.ok(what, s)
    }

    fn spgemm(
        &self,
        c: &Gemm<Value>,
        step: GemmStep,
        query: bool,
        bytes: &mut usize,
        buf: Raw,
    ) -> Result<()> {
        let (al, be) = (c.alpha, c.beta);
        let (h, vt) = (self.h, c.value);
        let nt = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;
        let (a, b, m, d) = (c.a as _, c.b as _, c.c as _, c.op as _);
        let buf = if query { std::ptr::null_mut() } else { buf };
        // SAFETY (every call): descriptors made by the plan; a null buffer with the size query,
        // then a workspace of the size asked for.
        let (what, s) = unsafe {
            match step {
                GemmStep::Estimate => (
                    "cusparseSpGEMM_workEstimation",
                    cs::cusparseSpGEMM_workEstimation(
                        h, nt, nt, al, a, b, be, m, vt, alg, d, bytes, buf,
                    ),
                ),
                GemmStep::Compute => (
                    "cusparseSpGEMM_compute",
                    cs::cusparseSpGEMM_compute(h, nt, nt, al, a, b, be, m, vt, alg, d, bytes, buf),
                ),
                GemmStep::Finish => (
                    "cusparseSpGEMM_copy",
                    cs::cusparseSpGEMM_copy(h, nt, nt, al, a, b, be, m, vt, alg, d),
                ),
            }
        };
        self.ok(what, s)
    }

    fn nnz(&self, a: Raw) -> Result<usize> {
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: valid descriptor; out-parameters.
        let s = unsafe { cs::cusparseSpMatGetSize(a as _, &mut rows, &mut cols, &mut nnz) };
        self.ok("cusparseSpMatGetSize", s)?;
        Ok(nnz.max(0) as usize)
    }

    fn set_pointers(&self, a: Raw, p: [Raw; 3]) -> Result<()> {
        // SAFETY: live buffers the plan checked against C's size.
        let s = unsafe { cs::cusparseCsrSetPointers(a as _, p[0], p[1], p[2]) };
        self.ok("cusparseCsrSetPointers", s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_map_to_cusparse_types() {
        use cupy_core::gpu::sparse::{index_code, value_code};
        assert_eq!(
            value_code::<CudaBackend>(DType::Float32),
            Some(Value::CUDA_R_32F)
        );
        assert_eq!(
            value_code::<CudaBackend>(DType::Complex128),
            Some(Value::CUDA_C_64F)
        );
        assert_eq!(value_code::<CudaBackend>(DType::Int32), None);
        assert_eq!(
            CudaBackend::VALUES.map(|v| v as u32),
            [0, 1, 4, 5],
            "CUDA_R_32F/R_64F/C_32F/C_64F"
        );
        assert_eq!(
            index_code::<CudaBackend>(DType::Int32).map(|i| i as u32),
            Some(2)
        );
        assert_eq!(
            index_code::<CudaBackend>(DType::Int64).map(|i| i as u32),
            Some(3)
        );
        assert_eq!(cs::cusparseOrder_t::CUSPARSE_ORDER_ROW as u32, 2);
    }
}
