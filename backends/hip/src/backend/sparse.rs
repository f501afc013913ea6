//! rocSPARSE's generic API as the HIP backend's [`SparseLibrary`]: SpMV/SpMM
//! (`rocsparse_spmv`/`rocsparse_spmm`, stages buffer size, preprocess, compute), SpGEMM
//! (`rocsparse_spgemm`, stages buffer size, nnz, compute) and the triangular solves
//! (`rocsparse_spsv`, `rocsparse_spsm` for several right-hand sides), loaded at run time (`librocsparse.so.1`, rocSPARSE 3.x / ROCm 6: see
//! `sys::rocsparse` for the header checked) on the first call, with one handle per backend
//! set to the thread's current stream before each call.
//!
//! When rocSPARSE cannot be loaded (not installed, an older SOVERSION, a version below 3.0, a
//! missing symbol) every call is `Unsupported` naming rocSPARSE and why, and the frontend runs
//! its IR kernels. rocSPARSE keeps analysis data in the matrix descriptors (the SpMV/SpSV
//! preprocess stages), so every call waits for its stream before destroying them. Never run on
//! AMD hardware: compiled, and its FFI checked against rocSPARSE's headers.

use super::*;
use crate::sys::rocsparse as rs;
use cupy_core::backend::sparse::{
    CsrAlloc, CsrRef, SpGemmCall, SpMvCall, SpSmCall, SpSvCall, SparseLibrary, SparseRoutine,
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
            let lib = crate::sys::open_first(
                "rocSPARSE 3.x (librocsparse.so.1, ROCm 6)",
                rs::LIB_NAMES,
                Some("rocsparse_spgemm"),
            )?;
            // SAFETY: table written for rocSPARSE 3.x (sys::rocsparse); library kept alongside.
            let api = unsafe { rs::RocsparseApi::load(&lib.lib) }
                .map_err(|e| format!("rocSPARSE {}: {e}", lib.path))?;
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

fn value_type(dt: DType) -> Option<rs::rocsparse_datatype> {
    Some(match dt {
        DType::Float32 => rs::rocsparse_datatype_f32_r,
        DType::Float64 => rs::rocsparse_datatype_f64_r,
        DType::Complex64 => rs::rocsparse_datatype_f32_c,
        DType::Complex128 => rs::rocsparse_datatype_f64_c,
        _ => return None,
    })
}

fn index_type(dt: DType) -> rs::rocsparse_indextype {
    if dt == DType::Int64 {
        rs::rocsparse_indextype_i64
    } else {
        rs::rocsparse_indextype_i32
    }
}

/// The bytes of the scalar `v` (imaginary part 0) in `dt`, for `alpha`/`beta` (host pointer
/// mode, the handle's default).
fn scalar(dt: DType, v: f64) -> [u8; 16] {
    let mut b = [0u8; 16];
    match dt {
        DType::Float32 | DType::Complex64 => b[..4].copy_from_slice(&(v as f32).to_ne_bytes()),
        _ => b[..8].copy_from_slice(&v.to_ne_bytes()),
    }
    b
}

/// One call's descriptors, destroyed on drop (after the call waited for its stream).
struct Descrs<'a> {
    api: &'a rs::RocsparseApi,
    mats: Vec<rs::rocsparse_spmat_descr>,
    vecs: Vec<rs::rocsparse_dnvec_descr>,
    dense: Vec<rs::rocsparse_dnmat_descr>,
}

impl Drop for Descrs<'_> {
    fn drop(&mut self) {
        // SAFETY: each was created once by the matching rocsparse_create_* call.
        unsafe {
            for &m in &self.mats {
                (self.api.rocsparse_destroy_spmat_descr)(m);
            }
            for &v in &self.vecs {
                (self.api.rocsparse_destroy_dnvec_descr)(v);
            }
            for &d in &self.dense {
                (self.api.rocsparse_destroy_dnmat_descr)(d);
            }
        }
    }
}

impl HipBackend {
    fn rocsparse(&self) -> std::result::Result<&RocSparse, String> {
        match self.sparse.get_or_init(|| open(self)) {
            Ok(s) => Ok(s),
            Err(e) => Err(format!("rocSPARSE unavailable: {e}")),
        }
    }

    fn sp_unsupported(&self, routine: SparseRoutine, reason: String) -> Error {
        Error::Unsupported {
            op: format!("rocSPARSE {}", routine.name()),
            backend: self.info.label(),
            reason,
        }
    }

    /// A rocSPARSE status as a `Result`: `rocsparse_status_not_implemented` is `Unsupported`
    /// (the frontend then runs its kernels), any other failure a backend error.
    fn sp_status(&self, what: &str, s: rs::rocsparse_status) -> Result<()> {
        match status(what, s) {
            Ok(()) => Ok(()),
            Err(e) if s == rs::rocsparse_status_not_implemented => Err(Error::Unsupported {
                op: "rocSPARSE".into(),
                backend: self.info.label(),
                reason: e,
            }),
            Err(e) => Err(self.sp_err(e)),
        }
    }

    fn sp_err(&self, msg: String) -> Error {
        self.err(format!("rocSPARSE: {msg}"))
    }

    fn sp_addr(&self, b: &Buffer, op: &str) -> Result<*mut c_void> {
        Ok(self.dev_buf(b, op)?.ptr as *mut c_void)
    }

    /// A device workspace of `bytes` (at least 1) from the pool (reused only by work queued
    /// after ours on this stream).
    fn sp_workspace(&self, bytes: usize) -> Result<(Buffer, *mut c_void)> {
        let b = self.alloc(DType::UInt8, bytes.max(1))?;
        let p = self.sp_addr(&b, "rocSPARSE workspace")?;
        Ok((b, p))
    }

    fn sp_csr(
        &self,
        api: &rs::RocsparseApi,
        a: &CsrRef<'_>,
        d: &mut Descrs<'_>,
        op: &str,
    ) -> Result<rs::rocsparse_spmat_descr> {
        let it = index_type(a.index_dtype());
        let vt = value_type(a.dtype()).expect("checked value dtype");
        let mut m = std::ptr::null_mut();
        // SAFETY: device addresses of live buffers the caller checked; out pointer.
        let s = unsafe {
            (api.rocsparse_create_csr_descr)(
                &mut m,
                a.rows as i64,
                a.cols as i64,
                a.nnz as i64,
                self.sp_addr(a.indptr, op)?,
                self.sp_addr(a.indices, op)?,
                self.sp_addr(a.data, op)?,
                it,
                it,
                rs::rocsparse_index_base_zero,
                vt,
            )
        };
        self.sp_status("rocsparse_create_csr_descr", s)?;
        d.mats.push(m);
        Ok(m)
    }

    fn sp_vec(
        &self,
        api: &rs::RocsparseApi,
        b: &Buffer,
        n: usize,
        dt: DType,
        d: &mut Descrs<'_>,
    ) -> Result<rs::rocsparse_dnvec_descr> {
        let mut v = std::ptr::null_mut();
        let vt = value_type(dt).expect("checked value dtype");
        // SAFETY: a live device buffer of `n` elements; out pointer.
        let s = unsafe {
            (api.rocsparse_create_dnvec_descr)(&mut v, n as i64, self.sp_addr(b, "rocSPARSE")?, vt)
        };
        self.sp_status("rocsparse_create_dnvec_descr", s)?;
        d.vecs.push(v);
        Ok(v)
    }

    fn sp_mat(
        &self,
        api: &rs::RocsparseApi,
        b: &Buffer,
        rows: usize,
        k: usize,
        dt: DType,
        d: &mut Descrs<'_>,
    ) -> Result<rs::rocsparse_dnmat_descr> {
        let mut m = std::ptr::null_mut();
        let vt = value_type(dt).expect("checked value dtype");
        // SAFETY: a live row-major `rows x k` buffer; out pointer.
        let s = unsafe {
            (api.rocsparse_create_dnmat_descr)(
                &mut m,
                rows as i64,
                k as i64,
                k as i64,
                self.sp_addr(b, "rocSPARSE")?,
                vt,
                rs::rocsparse_order_row,
            )
        };
        self.sp_status("rocsparse_create_dnmat_descr", s)?;
        d.dense.push(m);
        Ok(m)
    }

    /// Checks the routine, makes the device current, orders the call after other streams'
    /// library calls and binds the handle to the current stream.
    fn sp_begin(&self, r: SparseRoutine, dt: DType, it: DType) -> Result<&RocSparse> {
        self.check(r, dt, it)
            .map_err(|e| self.sp_unsupported(r, e))?;
        let s = self.rocsparse().map_err(|e| self.sp_unsupported(r, e))?;
        self.current()?;
        self.order_library()?;
        // SAFETY: valid handle; the thread's current stream of our device.
        let st = unsafe { (s.lib.api.rocsparse_set_stream)(s.handle.0, self.cur_stream()) };
        self.sp_status("rocsparse_set_stream", st)?;
        Ok(s)
    }

    /// Marks the CSR descriptor `m` as the lower or upper triangle, with a unit or stored
    /// diagonal (SpSV, SpSM).
    fn sp_tri_attrs(
        &self,
        api: &rs::RocsparseApi,
        m: rs::rocsparse_spmat_descr,
        lower: bool,
        unit_diagonal: bool,
    ) -> Result<()> {
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
                (api.rocsparse_spmat_set_attribute)(
                    m,
                    attr,
                    v as *const i32 as *const c_void,
                    std::mem::size_of::<i32>(),
                )
            };
            self.sp_status(what, st)?;
        }
        Ok(())
    }

    fn sp_sync(&self) -> Result<()> {
        // SAFETY: a live stream of our device.
        unsafe { self.hip.stream_sync(self.cur_stream()) }.map_err(|e| self.err(e))
    }
}

/// The rocSPARSE routines (see the module docs).
impl SparseLibrary for HipBackend {
    fn library(&self) -> &'static str {
        "rocSPARSE"
    }

    fn check(
        &self,
        routine: SparseRoutine,
        dtype: DType,
        index: DType,
    ) -> std::result::Result<(), String> {
        if value_type(dtype).is_none() {
            return Err(format!(
                "rocSPARSE takes float32, float64, complex64 and complex128 values, not {dtype}"
            ));
        }
        if !matches!(index, DType::Int32 | DType::Int64) {
            return Err(format!(
                "rocSPARSE takes int32 or int64 indices, not {index}"
            ));
        }
        let _ = routine;
        self.rocsparse().map(|_| ())
    }

    fn spmv(&self, call: &SpMvCall<'_>) -> Result<()> {
        let op = "rocSPARSE SpMV";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.sp_begin(SparseRoutine::SpMv, dt, a.index_dtype())?;
        let api = &s.lib.api;
        let h = s.handle.0;
        let mut d = Descrs {
            api,
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.sp_csr(api, a, &mut d, op)?;
        let vt = value_type(dt).expect("checked");
        let (alpha, beta) = (scalar(dt, 1.0), scalar(dt, 0.0));
        let (al, be) = (
            alpha.as_ptr() as *const c_void,
            beta.as_ptr() as *const c_void,
        );
        let no = rs::rocsparse_operation_none;
        if call.vector {
            let x = self.sp_vec(api, call.x, a.cols, dt, &mut d)?;
            let y = self.sp_vec(api, call.y, a.rows, dt, &mut d)?;
            let alg = rs::rocsparse_spmv_alg_default;
            let run = |stage, buf: *mut c_void, size: usize, what| -> Result<usize> {
                let mut bytes = size;
                // SAFETY: descriptors of live buffers; host scalars; the workspace as sized.
                let st = unsafe {
                    (api.rocsparse_spmv)(h, no, al, m, x, be, y, vt, alg, stage, &mut bytes, buf)
                };
                self.sp_status(what, st)?;
                Ok(bytes)
            };
            let bytes = run(
                rs::rocsparse_spmv_stage_buffer_size,
                std::ptr::null_mut(),
                0,
                "rocsparse_spmv (buffer size)",
            )?;
            let (_w, wp) = self.sp_workspace(bytes)?;
            run(
                rs::rocsparse_spmv_stage_preprocess,
                wp,
                bytes,
                "rocsparse_spmv (preprocess)",
            )?;
            run(
                rs::rocsparse_spmv_stage_compute,
                wp,
                bytes,
                "rocsparse_spmv (compute)",
            )?;
            self.sp_sync()
        } else {
            let x = self.sp_mat(api, call.x, a.cols, call.k, dt, &mut d)?;
            let y = self.sp_mat(api, call.y, a.rows, call.k, dt, &mut d)?;
            let alg = rs::rocsparse_spmm_alg_default;
            let run = |stage, buf: *mut c_void, size: usize, what| -> Result<usize> {
                let mut bytes = size;
                // SAFETY: as for SpMV.
                let st = unsafe {
                    (api.rocsparse_spmm)(
                        h, no, no, al, m, x, be, y, vt, alg, stage, &mut bytes, buf,
                    )
                };
                self.sp_status(what, st)?;
                Ok(bytes)
            };
            let bytes = run(
                rs::rocsparse_spmm_stage_buffer_size,
                std::ptr::null_mut(),
                0,
                "rocsparse_spmm (buffer size)",
            )?;
            let (_w, wp) = self.sp_workspace(bytes)?;
            run(
                rs::rocsparse_spmm_stage_preprocess,
                wp,
                bytes,
                "rocsparse_spmm (preprocess)",
            )?;
            run(
                rs::rocsparse_spmm_stage_compute,
                wp,
                bytes,
                "rocsparse_spmm (compute)",
            )?;
            self.sp_sync()
        }
    }

    fn spgemm(&self, call: &SpGemmCall<'_>, alloc: &mut CsrAlloc<'_>) -> Result<usize> {
        let op = "rocSPARSE SpGEMM";
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
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.sp_begin(SparseRoutine::SpGemm, dt, it)?;
        let api = &s.lib.api;
        let h = s.handle.0;
        let mut d = Descrs {
            api,
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let ma = self.sp_csr(api, a, &mut d, op)?;
        let mb = self.sp_csr(api, b, &mut d, op)?;
        let (vt, ity) = (value_type(dt).expect("checked"), index_type(it));
        let (mut mc, mut md) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: C over the caller's indptr (rows + 1 elements), entries set later; D an empty
        // 0 x 0 matrix (beta is 0), as rocSPARSE's example makes it; out pointers.
        unsafe {
            let st = (api.rocsparse_create_csr_descr)(
                &mut mc,
                a.rows as i64,
                b.cols as i64,
                0,
                self.sp_addr(call.c_indptr, op)?,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                ity,
                ity,
                rs::rocsparse_index_base_zero,
                vt,
            );
            self.sp_status("rocsparse_create_csr_descr (C)", st)?;
            d.mats.push(mc);
            let st = (api.rocsparse_create_csr_descr)(
                &mut md,
                0,
                0,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                ity,
                ity,
                rs::rocsparse_index_base_zero,
                vt,
            );
            self.sp_status("rocsparse_create_csr_descr (D)", st)?;
            d.mats.push(md);
        }
        let (alpha, beta) = (scalar(dt, 1.0), scalar(dt, 0.0));
        let (al, be) = (
            alpha.as_ptr() as *const c_void,
            beta.as_ptr() as *const c_void,
        );
        let no = rs::rocsparse_operation_none;
        let alg = rs::rocsparse_spgemm_alg_default;
        let run = |stage, buf: *mut c_void, size: usize, what| -> Result<usize> {
            let mut bytes = size;
            // SAFETY: descriptors of live buffers; host scalars; the workspace as sized.
            let st = unsafe {
                (api.rocsparse_spgemm)(
                    h, no, no, al, ma, mb, be, md, mc, vt, alg, stage, &mut bytes, buf,
                )
            };
            self.sp_status(what, st)?;
            Ok(bytes)
        };
        let bytes = run(
            rs::rocsparse_spgemm_stage_buffer_size,
            std::ptr::null_mut(),
            0,
            "rocsparse_spgemm (buffer size)",
        )?;
        let (_w, wp) = self.sp_workspace(bytes)?;
        run(
            rs::rocsparse_spgemm_stage_nnz,
            wp,
            bytes,
            "rocsparse_spgemm (nnz)",
        )?;
        self.sp_sync()?;
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: valid descriptor; out pointers.
        let st = unsafe { (api.rocsparse_spmat_get_size)(mc, &mut rows, &mut cols, &mut nnz) };
        self.sp_status("rocsparse_spmat_get_size", st)?;
        let nnz = nnz.max(0) as usize;
        let (ci, cd) = alloc(nnz)?;
        if ci.len() < nnz || cd.len() < nnz || ci.dtype() != it || cd.dtype() != dt {
            return Err(Error::invalid(
                op,
                "the C buffers do not match C's size and dtypes",
            ));
        }
        // SAFETY: live buffers of `nnz` elements (checked) and the caller's indptr.
        let st = unsafe {
            (api.rocsparse_csr_set_pointers)(
                mc,
                self.sp_addr(call.c_indptr, op)?,
                self.sp_addr(&ci, op)?,
                self.sp_addr(&cd, op)?,
            )
        };
        self.sp_status("rocsparse_csr_set_pointers", st)?;
        run(
            rs::rocsparse_spgemm_stage_compute,
            wp,
            bytes,
            "rocsparse_spgemm (compute)",
        )?;
        self.sp_sync()?;
        Ok(nnz)
    }

    fn spsv(&self, call: &SpSvCall<'_>) -> Result<()> {
        let op = "rocSPARSE SpSV";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        if a.rows != a.cols || call.b.dtype() != dt || call.x.dtype() != dt {
            return Err(Error::invalid(op, "A must be square and b, x of A's dtype"));
        }
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.sp_begin(SparseRoutine::SpSv, dt, a.index_dtype())?;
        let api = &s.lib.api;
        let h = s.handle.0;
        let mut d = Descrs {
            api,
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.sp_csr(api, a, &mut d, op)?;
        self.sp_tri_attrs(api, m, call.lower, call.unit_diagonal)?;
        let x = self.sp_vec(api, call.b, a.rows, dt, &mut d)?;
        let y = self.sp_vec(api, call.x, a.rows, dt, &mut d)?;
        let vt = value_type(dt).expect("checked");
        let alpha = scalar(dt, 1.0);
        let al = alpha.as_ptr() as *const c_void;
        let no = rs::rocsparse_operation_none;
        let alg = rs::rocsparse_spsv_alg_default;
        let run = |stage, buf: *mut c_void, size: usize, what| -> Result<usize> {
            let mut bytes = size;
            // SAFETY: descriptors of live buffers; host scalar; the workspace as sized.
            let st = unsafe {
                (api.rocsparse_spsv)(h, no, al, m, x, y, vt, alg, stage, &mut bytes, buf)
            };
            self.sp_status(what, st)?;
            Ok(bytes)
        };
        let bytes = run(
            rs::rocsparse_spsv_stage_buffer_size,
            std::ptr::null_mut(),
            0,
            "rocsparse_spsv (buffer size)",
        )?;
        let (_w, wp) = self.sp_workspace(bytes)?;
        run(
            rs::rocsparse_spsv_stage_preprocess,
            wp,
            bytes,
            "rocsparse_spsv (preprocess)",
        )?;
        run(
            rs::rocsparse_spsv_stage_compute,
            wp,
            bytes,
            "rocsparse_spsv (compute)",
        )?;
        self.sp_sync()
    }
    fn spsm(&self, call: &SpSmCall<'_>) -> Result<()> {
        let op = "rocSPARSE SpSM";
        let a = &call.a;
        a.check(op)?;
        let dt = a.dtype();
        if a.rows != a.cols || call.b.dtype() != dt || call.x.dtype() != dt {
            return Err(Error::invalid(op, "A must be square and B, X of A's dtype"));
        }
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.sp_begin(SparseRoutine::SpSm, dt, a.index_dtype())?;
        let api = &s.lib.api;
        let h = s.handle.0;
        let mut d = Descrs {
            api,
            mats: vec![],
            vecs: vec![],
            dense: vec![],
        };
        let m = self.sp_csr(api, a, &mut d, op)?;
        self.sp_tri_attrs(api, m, call.lower, call.unit_diagonal)?;
        let b = self.sp_mat(api, call.b, a.rows, call.k, dt, &mut d)?;
        let x = self.sp_mat(api, call.x, a.rows, call.k, dt, &mut d)?;
        let vt = value_type(dt).expect("checked");
        let alpha = scalar(dt, 1.0);
        let al = alpha.as_ptr() as *const c_void;
        let no = rs::rocsparse_operation_none;
        let alg = rs::rocsparse_spsm_alg_default;
        let run = |stage, buf: *mut c_void, size: usize, what| -> Result<usize> {
            let mut bytes = size;
            // SAFETY: descriptors of live buffers; host scalar; the workspace as sized.
            let st = unsafe {
                (api.rocsparse_spsm)(h, no, no, al, m, b, x, vt, alg, stage, &mut bytes, buf)
            };
            self.sp_status(what, st)?;
            Ok(bytes)
        };
        let bytes = run(
            rs::rocsparse_spsm_stage_buffer_size,
            std::ptr::null_mut(),
            0,
            "rocsparse_spsm (buffer size)",
        )?;
        let (_w, wp) = self.sp_workspace(bytes)?;
        run(
            rs::rocsparse_spsm_stage_preprocess,
            wp,
            bytes,
            "rocsparse_spsm (preprocess)",
        )?;
        run(
            rs::rocsparse_spsm_stage_compute,
            wp,
            bytes,
            "rocsparse_spsm (compute)",
        )?;
        self.sp_sync()
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
        assert_eq!(value_type(DType::Float64), Some(152));
        assert_eq!(value_type(DType::Complex64), Some(154));
        assert_eq!(value_type(DType::Int32), None);
        assert_eq!(index_type(DType::Int64), 3);
        assert_eq!(scalar(DType::Float64, 1.0)[..8], 1.0f64.to_ne_bytes());
    }
}
