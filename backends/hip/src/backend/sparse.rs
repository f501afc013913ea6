//! rocSPARSE's generic API as the HIP backend's [`SparseDriver`] (the plans, checks and
//! descriptor lifetimes are shared: `cupy_core::gpu::sparse`): SpMV/SpMM
//! (`rocsparse_spmv`/`rocsparse_spmm`, stages buffer size, preprocess, compute), SpGEMM
//! (`rocsparse_spgemm`, stages buffer size, nnz, compute) and the triangular solves
//! (`rocsparse_spsv`, `rocsparse_spsm` for several right-hand sides), loaded at run time
//! (`librocsparse.so.1`, rocSPARSE 3.x / ROCm 6: see `sys::rocsparse` for the header checked)
//! on the first call, with one handle per backend set to the thread's current stream before
//! each call.
//!
//! When rocSPARSE cannot be loaded (not installed, an older SOVERSION, a version below 3.0, a
//! missing symbol) every call is `Unsupported` naming rocSPARSE and why, and the frontend runs
//! its IR kernels. rocSPARSE keeps analysis data in the matrix descriptors (the preprocess
//! stages), so every call waits for its stream before destroying them. Never run on AMD
//! hardware: compiled, and its FFI checked against rocSPARSE's headers.

use super::*;
use crate::sys::rocsparse as rs;
use cupy_core::backend::sparse::SparseRoutine;
use cupy_core::gpu::sparse::{
    library_error, unsupported, Apply, ApplyKind, Csr, Dense, DescrKind, Gemm, GemmStep, Raw,
    SparseDriver, SparseSession, Stage,
};

/// The loaded rocSPARSE library.
pub(crate) struct Rocsparse {
    api: rs::RocsparseApi,
    _lib: crate::sys::Lib,
}

static ROCSPARSE: OnceLock<std::result::Result<Arc<Rocsparse>, String>> = OnceLock::new();

/// Loads rocSPARSE once per process.
fn load() -> std::result::Result<Arc<Rocsparse>, String> {
    ROCSPARSE
        .get_or_init(|| {
            // SAFETY: the table is written for rocSPARSE 3.x (sys::rocsparse), the only
            // SOVERSION tried; the library is kept alongside.
            let (api, lib) = unsafe {
                crate::sys::load_table(
                    "rocSPARSE 3.x (librocsparse.so.1, ROCm 6)",
                    rs::LIB_NAMES,
                    "rocsparse_spgemm",
                    rs::RocsparseApi::load,
                )
            }?;
            Ok(Arc::new(Rocsparse { api, _lib: lib }))
        })
        .clone()
}

/// The backend's rocSPARSE handle.
pub(crate) struct RocSparse {
    lib: Arc<Rocsparse>,
    handle: Handle,
}

impl RocSparse {
    /// Destroys the handle (the stream has drained).
    pub(crate) fn destroy(&self) {
        // SAFETY: created by rocsparse_create_handle, destroyed once (at the backend's drop).
        let _ = unsafe { (self.lib.api.rocsparse_destroy_handle)(self.handle.0) };
    }
}

fn status(what: &str, s: rs::rocsparse_status) -> std::result::Result<(), String> {
    if s == rs::rocsparse_status_success {
        return Ok(());
    }
    let name = rs::STATUS_NAMES
        .get(s as usize)
        .copied()
        .unwrap_or("unknown rocsparse_status");
    Err(format!("{what} failed: {name} ({s})"))
}

/// Opens rocSPARSE for `be`; `Err` says why it is unavailable.
pub(crate) fn open(be: &HipBackend) -> std::result::Result<RocSparse, String> {
    let lib = load()?;
    be.current().map_err(|e| e.to_string())?;
    let mut h: rs::rocsparse_handle = std::ptr::null_mut();
    // SAFETY: out pointer to a local.
    status("rocsparse_create_handle", unsafe {
        (lib.api.rocsparse_create_handle)(&mut h)
    })?;
    let mut version = 0;
    // SAFETY: valid handle; out pointer to a local.
    let v = status("rocsparse_get_version", unsafe {
        (lib.api.rocsparse_get_version)(h, &mut version)
    });
    if let Err(e) = v.and_then(|_| {
        if version < rs::MIN_VERSION {
            Err(format!(
                "rocSPARSE {}.{}.{} is older than 3.0 (ROCm 6), whose generic API cupy-hip declares",
                version / 100_000,
                version / 100 % 1000,
                version % 100
            ))
        } else {
            Ok(())
        }
    }) {
        // SAFETY: created above, not used again.
        unsafe { (lib.api.rocsparse_destroy_handle)(h) };
        return Err(e);
    }
    Ok(RocSparse {
        lib,
        handle: Handle(h),
    })
}

impl HipBackend {
    fn rocsparse(&self) -> std::result::Result<&RocSparse, String> {
        match self.sparse.get_or_init(|| open(self)) {
            Ok(s) => Ok(s),
            Err(e) => Err(format!("rocSPARSE unavailable: {e}")),
        }
    }
}

/// One rocSPARSE call sequence: the handle, bound to the current stream, under the backend's
/// submission lock.
pub struct Session<'a> {
    be: &'a HipBackend,
    api: &'a rs::RocsparseApi,
    h: rs::rocsparse_handle,
    _g: std::sync::MutexGuard<'a, ()>,
}

impl Session<'_> {
    /// A rocSPARSE status as a `Result`: `rocsparse_status_not_implemented` is `Unsupported`
    /// (the frontend then runs its kernels), any other failure a backend error.
    fn ok(&self, what: &str, s: rs::rocsparse_status) -> Result<()> {
        let refused = s == rs::rocsparse_status_not_implemented;
        status(what, s).map_err(|e| library_error(self.be, refused, e))
    }
}

impl SparseDriver for HipBackend {
    type Value = rs::rocsparse_datatype;
    type Index = rs::rocsparse_indextype;
    const VALUES: [rs::rocsparse_datatype; 4] = [
        rs::rocsparse_datatype_f32_r,
        rs::rocsparse_datatype_f64_r,
        rs::rocsparse_datatype_f32_c,
        rs::rocsparse_datatype_f64_c,
    ];
    const INDICES: [rs::rocsparse_indextype; 2] =
        [rs::rocsparse_indextype_i32, rs::rocsparse_indextype_i64];
    type Session<'a> = Session<'a>;
    const LIBRARY: &'static str = "rocSPARSE";
    const SPGEMM_D: bool = true;

    fn sparse_types(
        &self,
        _routine: SparseRoutine,
        _dtype: DType,
        _index: DType,
    ) -> std::result::Result<(), String> {
        self.rocsparse().map(|_| ())
    }

    fn begin_sparse(&self, routine: SparseRoutine) -> Result<Session<'_>> {
        let g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let sp = self
            .rocsparse()
            .map_err(|reason| unsupported(self, routine, reason))?;
        self.current()?;
        self.order_library()?;
        let s = Session {
            be: self,
            api: &sp.lib.api,
            h: sp.handle.0,
            _g: g,
        };
        // SAFETY: valid handle; the thread's current stream of our device.
        let st = unsafe { (s.api.rocsparse_set_stream)(s.h, self.cur_stream()) };
        s.ok("rocsparse_set_stream", st)?;
        Ok(s)
    }

    fn sparse_sync(&self) -> Result<()> {
        // SAFETY: a live stream of our device.
        unsafe { self.hip.stream_sync(self.cur_stream()) }.map_err(|e| self.err(e))
    }
}

impl SparseSession for Session<'_> {
    type Value = rs::rocsparse_datatype;
    type Index = rs::rocsparse_indextype;

    fn holds_state(&self, _routine: SparseRoutine) -> bool {
        true
    }

    fn csr(&self, p: &Csr<rs::rocsparse_datatype, rs::rocsparse_indextype>) -> Result<Raw> {
        let mut m = std::ptr::null_mut();
        let base = rs::rocsparse_index_base_zero;
        // SAFETY: device addresses of live buffers the plan checked (or null for an empty
        // matrix); out pointer.
        let s = unsafe {
            (self.api.rocsparse_create_csr_descr)(
                &mut m, p.rows, p.cols, p.nnz, p.indptr, p.indices, p.data, p.index, p.index, base,
                p.value,
            )
        };
        self.ok("rocsparse_create_csr_descr", s)?;
        Ok(m)
    }

    fn vector(&self, v: &Dense<rs::rocsparse_datatype>) -> Result<Raw> {
        let mut d = std::ptr::null_mut();
        let create = self.api.rocsparse_create_dnvec_descr;
        // SAFETY: a live device buffer of `rows` elements; out pointer.
        let s = unsafe { create(&mut d, v.rows, v.ptr, v.value) };
        self.ok("rocsparse_create_dnvec_descr", s)?;
        Ok(d)
    }

    fn matrix(&self, m: &Dense<rs::rocsparse_datatype>) -> Result<Raw> {
        let mut d = std::ptr::null_mut();
        let (create, row) = (
            self.api.rocsparse_create_dnmat_descr,
            rs::rocsparse_order_row,
        );
        // SAFETY: a live row-major `rows x cols` buffer; out pointer.
        let s = unsafe { create(&mut d, m.rows, m.cols, m.cols, m.ptr, m.value, row) };
        self.ok("rocsparse_create_dnmat_descr", s)?;
        Ok(d)
    }

    fn routine_descr(&self, _routine: SparseRoutine) -> Result<Raw> {
        Ok(std::ptr::null_mut())
    }

    fn destroy(&self, kind: DescrKind, d: Raw) {
        // SAFETY: each was created once by this session's matching call; the plan waited for
        // the stream.
        unsafe {
            match kind {
                DescrKind::Sparse => (self.api.rocsparse_destroy_spmat_descr)(d),
                DescrKind::Vector => (self.api.rocsparse_destroy_dnvec_descr)(d),
                DescrKind::Matrix => (self.api.rocsparse_destroy_dnmat_descr)(d),
                DescrKind::Routine(_) => return,
            };
        }
    }

    fn triangle(&self, a: Raw, lower: bool, unit_diagonal: bool) -> Result<()> {
        let fill: rs::rocsparse_fill_mode = if lower {
            rs::rocsparse_fill_mode_lower
        } else {
            rs::rocsparse_fill_mode_upper
        };
        let diag: rs::rocsparse_diag_type = if unit_diagonal {
            rs::rocsparse_diag_type_unit
        } else {
            rs::rocsparse_diag_type_non_unit
        };
        for (attr, v, what) in [
            (
                rs::rocsparse_spmat_fill_mode,
                &fill,
                "rocsparse_spmat_set_attribute (fill mode)",
            ),
            (
                rs::rocsparse_spmat_diag_type,
                &diag,
                "rocsparse_spmat_set_attribute (diag type)",
            ),
        ] {
            // SAFETY: valid descriptor; an `int`-sized enum value read during the call.
            let st = unsafe {
                (self.api.rocsparse_spmat_set_attribute)(
                    a,
                    attr,
                    v as *const i32 as *const c_void,
                    std::mem::size_of::<i32>(),
                )
            };
            self.ok(what, st)?;
        }
        Ok(())
    }

    fn apply(
        &self,
        c: &Apply<rs::rocsparse_datatype>,
        stage: Stage,
        bytes: &mut usize,
        buf: Raw,
    ) -> Result<()> {
        let (al, be) = (c.alpha, c.beta);
        let (h, vt, api) = (self.h, c.value, self.api);
        let no = rs::rocsparse_operation_none;
        let (a, x, y) = (c.a, c.x, c.y);
        // The stage values are the same for every routine (sys::rocsparse).
        let st = match stage {
            Stage::Size => rs::rocsparse_spmv_stage_buffer_size,
            Stage::Prepare => rs::rocsparse_spmv_stage_preprocess,
            Stage::Run => rs::rocsparse_spmv_stage_compute,
        };
        // SAFETY (every call): descriptors of live buffers made by the plan; host scalars; a
        // workspace of the size the query answered (null with the query).
        let (what, s) = unsafe {
            match c.kind {
                ApplyKind::SpMv => (
                    "rocsparse_spmv",
                    (api.rocsparse_spmv)(
                        h,
                        no,
                        al,
                        a,
                        x,
                        be,
                        y,
                        vt,
                        rs::rocsparse_spmv_alg_default,
                        st,
                        bytes,
                        buf,
                    ),
                ),
                ApplyKind::SpMm => (
                    "rocsparse_spmm",
                    (api.rocsparse_spmm)(
                        h,
                        no,
                        no,
                        al,
                        a,
                        x,
                        be,
                        y,
                        vt,
                        rs::rocsparse_spmm_alg_default,
                        st,
                        bytes,
                        buf,
                    ),
                ),
                ApplyKind::SpSv => (
                    "rocsparse_spsv",
                    (api.rocsparse_spsv)(
                        h,
                        no,
                        al,
                        a,
                        x,
                        y,
                        vt,
                        rs::rocsparse_spsv_alg_default,
                        st,
                        bytes,
                        buf,
                    ),
                ),
                ApplyKind::SpSm => (
                    "rocsparse_spsm",
                    (api.rocsparse_spsm)(
                        h,
                        no,
                        no,
                        al,
                        a,
                        x,
                        y,
                        vt,
                        rs::rocsparse_spsm_alg_default,
                        st,
                        bytes,
                        buf,
                    ),
                ),
            }
        };
        self.ok(&format!("{what} ({stage:?})"), s)
    }

    fn spgemm(
        &self,
        c: &Gemm<rs::rocsparse_datatype>,
        step: GemmStep,
        query: bool,
        bytes: &mut usize,
        buf: Raw,
    ) -> Result<()> {
        let st = match (step, query) {
            (GemmStep::Estimate, true) => rs::rocsparse_spgemm_stage_buffer_size,
            (GemmStep::Estimate, false) => rs::rocsparse_spgemm_stage_nnz,
            (GemmStep::Compute, _) => {
                // rocSPARSE computes the entries in the last stage only.
                *bytes = 0;
                return Ok(());
            }
            (GemmStep::Finish, _) => rs::rocsparse_spgemm_stage_compute,
        };
        let (al, be) = (c.alpha, c.beta);
        let buf = if query { std::ptr::null_mut() } else { buf };
        // SAFETY: descriptors made by the plan (C over the caller's indptr, its entries set
        // before the compute stage; D an empty 0 x 0 matrix, as rocSPARSE's example makes it,
        // beta being 0); host scalars; the workspace as sized.
        let s = unsafe {
            (self.api.rocsparse_spgemm)(
                self.h,
                rs::rocsparse_operation_none,
                rs::rocsparse_operation_none,
                al,
                c.a,
                c.b,
                be,
                c.d,
                c.c,
                c.value,
                rs::rocsparse_spgemm_alg_default,
                st,
                bytes,
                buf,
            )
        };
        self.ok(&format!("rocsparse_spgemm ({step:?})"), s)
    }

    fn nnz(&self, a: Raw) -> Result<usize> {
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: valid descriptor; out pointers.
        let s = unsafe { (self.api.rocsparse_spmat_get_size)(a, &mut rows, &mut cols, &mut nnz) };
        self.ok("rocsparse_spmat_get_size", s)?;
        Ok(nnz.max(0) as usize)
    }

    fn set_pointers(&self, a: Raw, p: [Raw; 3]) -> Result<()> {
        // SAFETY: live buffers the plan checked against C's size.
        let s = unsafe { (self.api.rocsparse_csr_set_pointers)(a, p[0], p[1], p[2]) };
        self.ok("rocsparse_csr_set_pointers", s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without rocSPARSE (as in CI) loading is an `Err` naming the library and what was tried.
    #[test]
    fn missing_rocsparse_is_a_clear_error() {
        match load() {
            Ok(_) => eprintln!("rocSPARSE is installed here"),
            Err(e) => assert!(
                e.contains("rocSPARSE") && e.contains("librocsparse.so.1") && e.contains("Tried"),
                "{e}"
            ),
        }
    }

    #[test]
    fn dtypes_map_to_rocsparse_types() {
        use cupy_core::gpu::sparse::{index_code, value_code};
        assert_eq!(value_code::<HipBackend>(DType::Float64), Some(152));
        assert_eq!(value_code::<HipBackend>(DType::Complex64), Some(154));
        assert_eq!(value_code::<HipBackend>(DType::Int32), None);
        assert_eq!(index_code::<HipBackend>(DType::Int64), Some(3));
        assert_eq!(HipBackend::VALUES, [151, 152, 154, 155]);
    }
}
