//! Dense linear algebra through rocSOLVER: the library calls of the shared plans
//! ([`cupy_core::gpu::solver`]: per-op plans, layouts, info handling, helper kernels), loaded
//! at run time on the first `linalg` call with its own rocBLAS handle on the backend's stream.
//!
//! Every call but orgqr/ungqr is one `_strided_batched` call for the whole batch (rocSOLVER has
//! no batched orgqr: it loops). rocSOLVER takes its internal workspace from the rocBLAS
//! handle's device memory (rocBLAS's default managed mode allocates as needed), so the only
//! workspace the plan provides is the `E` array of syevd/heevd and gesvd. rocSOLVER's geqrf
//! and getrs have no `info`: geqrf's is zeroed here, getrs's scratch is left alone.
//!
//! When rocSOLVER (or rocBLAS) cannot be loaded, every `linalg` call is `Unsupported` naming
//! rocSOLVER and the paths tried, and the frontend takes the host round trip; so it is with
//! `CUPY_ROCSOLVER=0`. `eig` is not native (host round trip). Never run on AMD hardware:
//! compiled, and its FFI checked by hand against rocSOLVER's header (`sys::rocsolver`).

use super::*;
use crate::result::{Rocblas, Rocsolver};
use crate::sys::rocblas::{
    rocblas_double_complex as Z, rocblas_float_complex as C, rocblas_handle, rocblas_int,
    rocblas_operation_none, rocblas_operation_transpose, rocblas_status,
};
use crate::sys::rocsolver as rs;
use cupy_core::backend::LinalgOp;
use cupy_core::gpu::solver::{
    Fill, Lapack, LapackCall, SolverDriver, SvdJob, Trans, Work, WorkSize,
};

/// rocSOLVER, rocBLAS and the backend's rocSOLVER handle.
pub(crate) struct RocSolver {
    api: Arc<Rocsolver>,
    blas: Arc<Rocblas>,
    handle: Handle,
}

impl RocSolver {
    /// Destroys the handle (the stream has drained).
    pub(crate) fn destroy(&self) {
        // SAFETY: created by rocblas_create_handle, destroyed once (at the backend's drop).
        let _ = unsafe { (self.blas.api.rocblas_destroy_handle)(self.handle.0) };
    }
}

/// The message of a missing rocSOLVER: names it and says where linalg goes instead.
pub fn unavailable_reason(why: &str) -> String {
    format!("rocSOLVER is needed for linalg on HIP (the frontend falls back to the host): {why}")
}

/// Loads rocSOLVER and rocBLAS (once per process).
///
/// # Errors
/// [`unavailable_reason`] naming the library and the paths tried.
pub fn load_rocsolver() -> std::result::Result<(Arc<Rocsolver>, Arc<Rocblas>), String> {
    let api = Rocsolver::get().map_err(|e| unavailable_reason(&e))?;
    let blas = Rocblas::get().map_err(|e| unavailable_reason(&e))?;
    Ok((api, blas))
}

fn open(be: &HipBackend) -> std::result::Result<RocSolver, String> {
    let (api, blas) = load_rocsolver()?;
    be.current().map_err(|e| e.to_string())?;
    let mut hd: rocblas_handle = std::ptr::null_mut();
    // SAFETY: out pointer to a local.
    blas.check("rocblas_create_handle", unsafe {
        (blas.api.rocblas_create_handle)(&mut hd)
    })
    .map_err(|e| unavailable_reason(&e.to_string()))?;
    // SAFETY: valid handle and the default stream (set to the current one per call).
    let set = blas.check("rocblas_set_stream", unsafe {
        (blas.api.rocblas_set_stream)(hd, be.stream.0)
    });
    if let Err(e) = set {
        // SAFETY: created above, not used again.
        unsafe { (blas.api.rocblas_destroy_handle)(hd) };
        return Err(unavailable_reason(&e.to_string()));
    }
    Ok(RocSolver {
        api,
        blas,
        handle: Handle(hd),
    })
}

fn fill(f: Fill) -> rs::rocblas_fill {
    match f {
        Fill::Upper => rs::rocblas_fill_upper,
        Fill::Lower => rs::rocblas_fill_lower,
    }
}

fn svect(j: SvdJob) -> rs::rocblas_svect {
    match j {
        SvdJob::None => rs::rocblas_svect_none,
        SvdJob::Some => rs::rocblas_svect_singular,
        SvdJob::All => rs::rocblas_svect_all,
    }
}

/// Elements of the `E` array syevd/heevd and gesvd need per matrix (real dtype).
fn e_len(op: &Lapack) -> usize {
    match *op {
        Lapack::Syevd { n, .. } => n,
        Lapack::Gesvd { cols, .. } => cols.saturating_sub(1).max(1),
        _ => 0,
    }
}

/// `rocblas_int` of a dimension the plan checked (< 2^31).
fn ri(v: usize) -> rocblas_int {
    v as rocblas_int
}

/// `rocblas_stride` of an element count.
fn st(v: usize) -> i64 {
    v as i64
}

/// The rocSOLVER calls of the shared solver plans ([`cupy_core::gpu::solver`]).
impl SolverDriver for HipBackend {
    const LIBRARY: &'static str = "rocSOLVER";
    const PIVOT: DType = DType::Int32;

    fn refusal(&self, op: LinalgOp) -> Option<String> {
        if std::env::var("CUPY_ROCSOLVER").is_ok_and(|v| v == "0") {
            return Some("CUPY_ROCSOLVER=0 (host round trip requested)".into());
        }
        if matches!(op, LinalgOp::Eig { .. }) {
            return Some("eig is not native on hip (host round trip)".into());
        }
        None
    }

    fn open_solver(&self) -> std::result::Result<(), String> {
        match self.solver.get_or_init(|| open(self)) {
            Ok(_) => Ok(()),
            Err(e) => Err(e.clone()),
        }
    }

    fn workspace(&self, call: &LapackCall) -> std::result::Result<WorkSize, String> {
        let r = call.dtype.real_dtype().itemsize();
        Ok(WorkSize {
            device: call.batch * e_len(&call.op) * r,
            host: 0,
        })
    }

    unsafe fn lapack(&self, call: &LapackCall, work: Work<'_>) -> std::result::Result<(), String> {
        let s = match self.solver.get() {
            Some(Ok(s)) => s,
            Some(Err(e)) => return Err(e.clone()),
            None => return Err("rocSOLVER not opened".into()),
        };
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: valid handle; the thread's current stream.
        s.blas
            .check("rocblas_set_stream", unsafe {
                (s.blas.api.rocblas_set_stream)(s.handle.0, self.cur_stream())
            })
            .map_err(|e| e.to_string())?;
        self.order_library().map_err(|e| e.to_string())?;
        // SAFETY: the caller's contract (addresses and workspace as documented).
        unsafe { run(self, s, call, &work) }
    }

    unsafe fn copy_device(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: both ranges lie in live buffers (the caller's contract); our stream.
        unsafe { self.hip.dtod_async(dst, src, bytes, self.cur_stream()) }.map_err(|e| self.err(e))
    }

    unsafe fn zero_device(&self, dst: u64, bytes: usize) -> Result<()> {
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the range lies in a live buffer (the caller's contract); our stream.
        unsafe { self.hip.memset_async(dst, 0, bytes, self.cur_stream()) }.map_err(|e| self.err(e))
    }
}

/// Turns a rocSOLVER status into the plan's error text.
fn check(s: &RocSolver, call: &'static str, st: rocblas_status) -> std::result::Result<(), String> {
    s.blas
        .check(call, st)
        .map_err(|e| format!("{call} failed: {} ({})", e.name, e.status))
}

/// One `_strided_batched` call per variant (a loop for orgqr/ungqr), typed by the dtype.
///
/// # Safety
/// As [`SolverDriver::lapack`].
unsafe fn run(
    be: &HipBackend,
    s: &RocSolver,
    call: &LapackCall,
    work: &Work<'_>,
) -> std::result::Result<(), String> {
    let (h, f, bc) = (s.handle.0, &s.api.api, ri(call.batch));
    let (dt, e) = (call.dtype, work.device);
    // Calls `$f32`/`$f64`/`$c64`/`$c128` with the dtype's pointer type `$t` (and real type
    // `$r`) bound, by the call's dtype.
    macro_rules! typed {
        (|$t:ident, $r:ident, $fnc:ident| $body:expr, [$s:ident, $d:ident, $c:ident, $z:ident]) => {{
            let status = match dt {
                DType::Float32 => {
                    #[allow(dead_code)]
                    type $t = f32;
                    #[allow(dead_code)]
                    type $r = f32;
                    let $fnc = f.$s;
                    $body
                }
                DType::Float64 => {
                    #[allow(dead_code)]
                    type $t = f64;
                    #[allow(dead_code)]
                    type $r = f64;
                    let $fnc = f.$d;
                    $body
                }
                DType::Complex64 => {
                    #[allow(dead_code)]
                    type $t = C;
                    #[allow(dead_code)]
                    type $r = f32;
                    let $fnc = f.$c;
                    $body
                }
                _ => {
                    #[allow(dead_code)]
                    type $t = Z;
                    #[allow(dead_code)]
                    type $r = f64;
                    let $fnc = f.$z;
                    $body
                }
            };
            let name = match dt {
                DType::Float32 => stringify!($s),
                DType::Float64 => stringify!($d),
                DType::Complex64 => stringify!($c),
                _ => stringify!($z),
            };
            check(s, name, status)
        }};
    }
    match call.op {
        // `refusal` keeps eig on the host hybrid: no rocSOLVER geev is declared here.
        Lapack::Geev { .. } => Err("rocSOLVER geev is not used (eig takes the host path)".into()),
        Lapack::Gesvdp { .. } => Err("rocSOLVER has no gesvdp (HAS_GESVDP is false)".into()),
        Lapack::Getrf { n, a, ipiv, info } => typed!(
            |T, R, g| {
                // SAFETY: the batch of matrices, pivots and infos lie in their buffers.
                unsafe {
                    g(
                        h,
                        ri(n),
                        ri(n),
                        a as *mut T,
                        ri(n),
                        st(n * n),
                        ipiv as *mut rocblas_int,
                        st(n),
                        info as *mut rocblas_int,
                        bc,
                    )
                }
            },
            [
                rocsolver_sgetrf_strided_batched,
                rocsolver_dgetrf_strided_batched,
                rocsolver_cgetrf_strided_batched,
                rocsolver_zgetrf_strided_batched
            ]
        ),
        Lapack::Getrs {
            trans,
            n,
            nrhs,
            a,
            ipiv,
            b,
            ..
        } => {
            let op = match trans {
                Trans::N => rocblas_operation_none,
                Trans::T => rocblas_operation_transpose,
            };
            typed!(
                |T, R, g| {
                    // SAFETY: the factors, pivots and right-hand sides lie in their buffers.
                    unsafe {
                        g(
                            h,
                            op,
                            ri(n),
                            ri(nrhs),
                            a as *mut T,
                            ri(n),
                            st(n * n),
                            ipiv as *const rocblas_int,
                            st(n),
                            b as *mut T,
                            ri(n),
                            st(n * nrhs),
                            bc,
                        )
                    }
                },
                [
                    rocsolver_sgetrs_strided_batched,
                    rocsolver_dgetrs_strided_batched,
                    rocsolver_cgetrs_strided_batched,
                    rocsolver_zgetrs_strided_batched
                ]
            )
        }
        Lapack::Potrf { uplo, n, a, info } => typed!(
            |T, R, g| {
                // SAFETY: the matrices and infos lie in their buffers.
                unsafe {
                    g(
                        h,
                        fill(uplo),
                        ri(n),
                        a as *mut T,
                        ri(n),
                        st(n * n),
                        info as *mut rocblas_int,
                        bc,
                    )
                }
            },
            [
                rocsolver_spotrf_strided_batched,
                rocsolver_dpotrf_strided_batched,
                rocsolver_cpotrf_strided_batched,
                rocsolver_zpotrf_strided_batched
            ]
        ),
        Lapack::Geqrf { m, n, a, tau, info } => {
            // rocSOLVER's geqrf has no info: it succeeds for valid arguments.
            // SAFETY: `info` holds `batch` int32s (the plan's checked buffer); our stream.
            unsafe {
                be.hip
                    .memset_async(info, 0, call.batch * 4, be.cur_stream())
            }
            .map_err(|e| e.to_string())?;
            let k = m.min(n);
            typed!(
                |T, R, g| {
                    // SAFETY: the matrices and their scalars lie in their buffers.
                    unsafe {
                        g(
                            h,
                            ri(m),
                            ri(n),
                            a as *mut T,
                            ri(m),
                            st(m * n),
                            tau as *mut T,
                            st(k),
                            bc,
                        )
                    }
                },
                [
                    rocsolver_sgeqrf_strided_batched,
                    rocsolver_dgeqrf_strided_batched,
                    rocsolver_cgeqrf_strided_batched,
                    rocsolver_zgeqrf_strided_batched
                ]
            )
        }
        Lapack::Orgqr {
            m, n, k, a, tau, ..
        } => {
            let isz = dt.itemsize() as u64;
            for b in 0..call.batch as u64 {
                let (ab, tb) = (a + b * (m * n) as u64 * isz, tau + b * k as u64 * isz);
                typed!(
                    |T, R, g| {
                        // SAFETY: matrix b and its scalars lie in their buffers.
                        unsafe { g(h, ri(m), ri(n), ri(k), ab as *mut T, ri(m), tb as *mut T) }
                    },
                    [
                        rocsolver_sorgqr,
                        rocsolver_dorgqr,
                        rocsolver_cungqr,
                        rocsolver_zungqr
                    ]
                )?;
            }
            Ok(())
        }
        Lapack::Syevd {
            vectors,
            uplo,
            n,
            a,
            w,
            info,
        } => {
            let evect = if vectors {
                rs::rocblas_evect_original
            } else {
                rs::rocblas_evect_none
            };
            typed!(
                |T, R, g| {
                    // SAFETY: the matrices, eigenvalues, E (the workspace: batch * n reals)
                    // and infos lie in their buffers.
                    unsafe {
                        g(
                            h,
                            evect,
                            fill(uplo),
                            ri(n),
                            a as *mut T,
                            ri(n),
                            st(n * n),
                            w as *mut R,
                            st(n),
                            e as *mut R,
                            st(n),
                            info as *mut rocblas_int,
                            bc,
                        )
                    }
                },
                [
                    rocsolver_ssyevd_strided_batched,
                    rocsolver_dsyevd_strided_batched,
                    rocsolver_cheevd_strided_batched,
                    rocsolver_zheevd_strided_batched
                ]
            )
        }
        Lapack::Gesvd {
            job,
            rows,
            cols,
            a,
            s: sv,
            u,
            vt,
            info,
        } => {
            let ucols = Lapack::gesvd_ucols(job, rows, cols);
            let ne = e_len(&call.op);
            typed!(
                |T, R, g| {
                    // SAFETY: the matrices, singular values, vectors (null for none), E (the
                    // workspace) and infos lie in their buffers.
                    unsafe {
                        g(
                            h,
                            svect(job),
                            svect(job),
                            ri(rows),
                            ri(cols),
                            a as *mut T,
                            ri(rows),
                            st(rows * cols),
                            sv as *mut R,
                            st(cols),
                            u as *mut T,
                            ri(rows),
                            st(rows * ucols),
                            vt as *mut T,
                            ri(cols),
                            st(cols * cols),
                            e as *mut R,
                            st(ne),
                            rs::rocblas_outofplace,
                            info as *mut rocblas_int,
                            bc,
                        )
                    }
                },
                [
                    rocsolver_sgesvd_strided_batched,
                    rocsolver_dgesvd_strided_batched,
                    rocsolver_cgesvd_strided_batched,
                    rocsolver_zgesvd_strided_batched
                ]
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_array_sizes() {
        let syevd = Lapack::Syevd {
            vectors: true,
            uplo: Fill::Upper,
            n: 5,
            a: 0,
            w: 0,
            info: 0,
        };
        assert_eq!(e_len(&syevd), 5);
        let gesvd = |cols| Lapack::Gesvd {
            job: SvdJob::None,
            rows: 4,
            cols,
            a: 0,
            s: 0,
            u: 0,
            vt: 0,
            info: 0,
        };
        assert_eq!(e_len(&gesvd(3)), 2);
        assert_eq!(e_len(&gesvd(1)), 1);
        let potrf = Lapack::Potrf {
            uplo: Fill::Lower,
            n: 3,
            a: 0,
            info: 0,
        };
        assert_eq!(e_len(&potrf), 0);
        assert_eq!(svect(SvdJob::Some), rs::rocblas_svect_singular);
        assert_eq!(fill(Fill::Lower), rs::rocblas_fill_lower);
    }

    #[test]
    fn missing_rocsolver_is_a_clear_reason() {
        // CI has the HIP runtime but no rocSOLVER: the reason names it and the paths tried.
        match load_rocsolver() {
            Ok(_) => eprintln!("NOTICE: rocSOLVER is installed here; the error path is not taken"),
            Err(e) => {
                eprintln!("linalg on HIP without rocSOLVER: Unsupported: {e}");
                assert!(e.contains("rocSOLVER"), "{e}");
                assert!(e.contains("librocsolver.so.0"), "{e}");
                assert!(e.contains("host"), "{e}");
            }
        }
    }
}
