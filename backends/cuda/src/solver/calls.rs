//! The cuSOLVER call of each [`Lapack`] variant and its `_bufferSize` query (the plans that
//! order them are in [`cupy_core::gpu::solver`]). Batches loop the single-matrix calls on the
//! stream, with one workspace.

use super::*;
use cs::cublasFillMode_t::{CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
use cs::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
use cs::cusolverEigMode_t::{CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR};
use cupy_core::gpu::solver::{Fill, Lapack, SvdJob, Trans};
use cupy_core::kernel::ir::complex_of;
use std::ffi::c_void;

/// [`Lapack::Gesvdp`] fails (and the plan takes gesvd) when gesvdp's error estimate
/// `h_err_sigma` exceeds this many times `n eps`: the reconstruction tests allow 64 `n eps`.
const GESVDP_ERROR_FACTOR: f64 = 16.0;

fn host_ptr(h: &mut [u8]) -> *mut c_void {
    if h.is_empty() {
        std::ptr::null_mut()
    } else {
        h.as_mut_ptr() as *mut c_void
    }
}

fn vp(p: u64) -> *mut c_void {
    p as *mut c_void
}

fn ip(p: u64) -> *mut i32 {
    p as *mut i32
}

fn ok(what: &str, s: cs::cusolverStatus_t) -> std::result::Result<(), String> {
    if s == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {s:?}"))
    }
}

fn fill(f: Fill) -> cs::cublasFillMode_t {
    match f {
        Fill::Upper => CUBLAS_FILL_MODE_UPPER,
        Fill::Lower => CUBLAS_FILL_MODE_LOWER,
    }
}

fn jobz(vectors: bool) -> cs::cusolverEigMode_t {
    if vectors {
        CUSOLVER_EIG_MODE_VECTOR
    } else {
        CUSOLVER_EIG_MODE_NOVECTOR
    }
}

fn svd_job(j: SvdJob) -> std::ffi::c_schar {
    (match j {
        SvdJob::None => b'N',
        SvdJob::Some => b'S',
        SvdJob::All => b'A',
    }) as std::ffi::c_schar
}

/// `_bufferSize` of `call`: (device, host) bytes.
pub(super) fn workspace(s: &Solver, call: &LapackCall) -> std::result::Result<WorkSize, String> {
    let (h, p, ty, rty) = (
        s.handle,
        s.params,
        cuda_type(call.dtype),
        cuda_type(call.dtype.real_dtype()),
    );
    let (mut dev, mut host) = (0usize, 0usize);
    match call.op {
        Lapack::Getrf { n, a, .. } => {
            let n = n as i64;
            // SAFETY: valid handle; `a` covers the matrix; out-parameters.
            let st = unsafe {
                cs::cusolverDnXgetrf_bufferSize(h, p, n, n, ty, vp(a), n, ty, &mut dev, &mut host)
            };
            ok("cusolverDnXgetrf_bufferSize", st)?;
        }
        // getrs takes no workspace.
        Lapack::Getrs { .. } => {}
        Lapack::Potrf { uplo, n, a, .. } => {
            let ni = n as i64;
            // SAFETY: valid handle; out-parameters.
            let st = unsafe {
                cs::cusolverDnXpotrf_bufferSize(
                    h,
                    p,
                    fill(uplo),
                    ni,
                    ty,
                    vp(a),
                    ni,
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXpotrf_bufferSize", st)?;
        }
        Lapack::Geqrf { m, n, a, tau, .. } => {
            let (mi, ni) = (m as i64, n as i64);
            // SAFETY: valid handle; out-parameters.
            let st = unsafe {
                cs::cusolverDnXgeqrf_bufferSize(
                    h,
                    p,
                    mi,
                    ni,
                    ty,
                    vp(a),
                    mi,
                    ty,
                    vp(tau),
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXgeqrf_bufferSize", st)?;
        }
        Lapack::Orgqr {
            m, n, k, a, tau, ..
        } => {
            let lwork = orgqr_lwork(s, call.dtype, m, n, k, a, tau)?;
            dev = lwork.max(0) as usize * call.dtype.itemsize();
        }
        Lapack::Syevd {
            vectors,
            uplo,
            n,
            a,
            w,
            ..
        } => {
            let ni = n as i64;
            // SAFETY: valid handle; out-parameters.
            let st = unsafe {
                cs::cusolverDnXsyevd_bufferSize(
                    h,
                    p,
                    jobz(vectors),
                    fill(uplo),
                    ni,
                    ty,
                    vp(a),
                    ni,
                    rty,
                    vp(w),
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXsyevd_bufferSize", st)?;
        }
        Lapack::Geev {
            vectors,
            n,
            a,
            w,
            vr,
            ..
        } => {
            let ni = n as i64;
            let cty = cuda_type(complex_of(call.dtype.real_dtype()));
            // SAFETY: valid handle; out-parameters (VL is not referenced: NOVECTOR).
            let st = unsafe {
                cs::cusolverDnXgeev_bufferSize(
                    h,
                    p,
                    CUSOLVER_EIG_MODE_NOVECTOR,
                    jobz(vectors),
                    ni,
                    ty,
                    vp(a),
                    ni,
                    cty,
                    vp(w),
                    ty,
                    std::ptr::null(),
                    ni,
                    ty,
                    vp(vr),
                    ni,
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXgeev_bufferSize", st)?;
        }
        Lapack::Gesvdp {
            vectors,
            n,
            a,
            s: sv,
            u,
            v,
            ..
        } => {
            let ni = n as i64;
            // SAFETY: valid handle; out-parameters.
            let st = unsafe {
                cs::cusolverDnXgesvdp_bufferSize(
                    h,
                    p,
                    jobz(vectors),
                    0,
                    ni,
                    ni,
                    ty,
                    vp(a),
                    ni,
                    rty,
                    vp(sv),
                    ty,
                    vp(u),
                    ni,
                    ty,
                    vp(v),
                    ni,
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXgesvdp_bufferSize", st)?;
        }
        Lapack::Gesvd {
            job,
            rows,
            cols,
            a,
            s: sv,
            u,
            vt,
            ..
        } => {
            let (ri, ci, j) = (rows as i64, cols as i64, svd_job(job));
            // SAFETY: valid handle; out-parameters.
            let st = unsafe {
                cs::cusolverDnXgesvd_bufferSize(
                    h,
                    p,
                    j,
                    j,
                    ri,
                    ci,
                    ty,
                    vp(a),
                    ri,
                    rty,
                    vp(sv),
                    ty,
                    vp(u),
                    ri,
                    ty,
                    vp(vt),
                    ci,
                    ty,
                    &mut dev,
                    &mut host,
                )
            };
            ok("cusolverDnXgesvd_bufferSize", st)?;
        }
    }
    Ok(WorkSize { device: dev, host })
}

/// Queues `call`: the single-matrix cuSOLVER call for each matrix of the batch.
///
/// # Safety
/// As [`SolverDriver::lapack`].
pub(super) unsafe fn lapack(
    s: &Solver,
    call: &LapackCall,
    work: Work<'_>,
) -> std::result::Result<(), String> {
    let (h, p, ty, rty) = (
        s.handle,
        s.params,
        cuda_type(call.dtype),
        cuda_type(call.dtype.real_dtype()),
    );
    let (batch, isz) = (call.batch as u64, call.dtype.itemsize() as u64);
    let rsz = call.dtype.real_dtype().itemsize() as u64;
    let (wp, dev) = (work.device, work.device_bytes);
    let host = work.host.len();
    let hw = work.host;
    match call.op {
        Lapack::Getrf { n, a, ipiv, info } => {
            let n = n as i64;
            let nn = (n * n) as u64;
            for b in 0..batch {
                // SAFETY: matrix b, its pivots and info lie in their buffers; workspaces as
                // queried.
                let st = unsafe {
                    cs::cusolverDnXgetrf(
                        h,
                        p,
                        n,
                        n,
                        ty,
                        vp(a + b * nn * isz),
                        n,
                        (ipiv + b * n as u64 * 8) as *mut i64,
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXgetrf", st)?;
            }
        }
        Lapack::Getrs {
            trans,
            n,
            nrhs,
            a,
            ipiv,
            b: x,
            info,
        } => {
            let op = match trans {
                Trans::N => CUBLAS_OP_N,
                Trans::T => CUBLAS_OP_T,
            };
            let n = n as i64;
            let (nn, nk) = ((n * n) as u64, n as u64 * nrhs as u64);
            for b in 0..batch {
                // SAFETY: matrix b's factors, pivots and right-hand sides lie in their buffers.
                let st = unsafe {
                    cs::cusolverDnXgetrs(
                        h,
                        p,
                        op,
                        n,
                        nrhs as i64,
                        ty,
                        vp(a + b * nn * isz),
                        n,
                        (ipiv + b * n as u64 * 8) as *const i64,
                        ty,
                        vp(x + b * nk * isz),
                        n,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXgetrs", st)?;
            }
        }
        Lapack::Potrf { uplo, n, a, info } => {
            let ni = n as i64;
            for b in 0..batch {
                // SAFETY: matrix b and its info lie in their buffers; workspaces as queried.
                let st = unsafe {
                    cs::cusolverDnXpotrf(
                        h,
                        p,
                        fill(uplo),
                        ni,
                        ty,
                        vp(a + b * (n * n) as u64 * isz),
                        ni,
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXpotrf", st)?;
            }
        }
        Lapack::Geqrf { m, n, a, tau, info } => {
            let (mi, ni, k) = (m as i64, n as i64, m.min(n) as u64);
            for b in 0..batch {
                // SAFETY: matrix b, its tau and info lie in their buffers.
                let st = unsafe {
                    cs::cusolverDnXgeqrf(
                        h,
                        p,
                        mi,
                        ni,
                        ty,
                        vp(a + b * (m * n) as u64 * isz),
                        mi,
                        ty,
                        vp(tau + b * k * isz),
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXgeqrf", st)?;
            }
        }
        Lapack::Orgqr {
            m,
            n,
            k,
            a,
            tau,
            info,
        } => {
            let lwork = (dev / call.dtype.itemsize()) as i32;
            // SAFETY: the caller's contract.
            unsafe { orgqr(s, call, (m, n, k), (a, tau, info), wp, lwork) }?;
        }
        Lapack::Syevd {
            vectors,
            uplo,
            n,
            a,
            w,
            info,
        } => {
            let (ni, nn) = (n as i64, (n * n) as u64);
            for b in 0..batch {
                // SAFETY: matrix b, its eigenvalues and info lie in their buffers.
                let st = unsafe {
                    cs::cusolverDnXsyevd(
                        h,
                        p,
                        jobz(vectors),
                        fill(uplo),
                        ni,
                        ty,
                        vp(a + b * nn * isz),
                        ni,
                        rty,
                        vp(w + b * n as u64 * rsz),
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXsyevd", st)?;
            }
        }
        Lapack::Geev {
            vectors,
            n,
            a,
            w,
            vr,
            info,
        } => {
            let (ni, nn) = (n as i64, (n * n) as u64);
            let cty = cuda_type(complex_of(call.dtype.real_dtype()));
            let csz = 2 * rsz;
            for b in 0..batch {
                let vrb = if vectors { vr + b * nn * isz } else { 0 };
                // SAFETY: matrix b, its eigenvalues, vectors and info lie in their buffers;
                // workspaces as queried; VL is not referenced (NOVECTOR).
                let st = unsafe {
                    cs::cusolverDnXgeev(
                        h,
                        p,
                        CUSOLVER_EIG_MODE_NOVECTOR,
                        jobz(vectors),
                        ni,
                        ty,
                        vp(a + b * nn * isz),
                        ni,
                        cty,
                        vp(w + b * n as u64 * csz),
                        ty,
                        std::ptr::null_mut(),
                        ni,
                        ty,
                        vp(vrb),
                        ni,
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXgeev", st)?;
            }
        }
        Lapack::Gesvdp {
            vectors,
            n,
            a,
            s: sv,
            u,
            v,
            info,
        } => {
            let (ni, nn) = (n as i64, (n * n) as u64);
            for b in 0..batch {
                let (ub, vb) = if vectors {
                    (u + b * nn * isz, v + b * nn * isz)
                } else {
                    (0, 0)
                };
                let mut err_sigma = 0.0f64;
                // SAFETY: matrix b, its singular values, vectors and info lie in their
                // buffers; workspaces as queried; `err_sigma` is a host out-parameter.
                let st = unsafe {
                    cs::cusolverDnXgesvdp(
                        h,
                        p,
                        jobz(vectors),
                        0,
                        ni,
                        ni,
                        ty,
                        vp(a + b * nn * isz),
                        ni,
                        rty,
                        vp(sv + b * n as u64 * rsz),
                        ty,
                        vp(ub),
                        ni,
                        ty,
                        vp(vb),
                        ni,
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                        &mut err_sigma,
                    )
                };
                ok("cusolverDnXgesvdp", st)?;
                // gesvdp's own estimate of its error: past the bound (a rank-deficient float32
                // matrix came back with its zero singular values at 0.55 on the H200), the
                // call fails and the plan takes gesvd instead.
                let eps = if call.dtype.real_dtype() == DType::Float32 {
                    f32::EPSILON as f64
                } else {
                    f64::EPSILON
                };
                let bound = GESVDP_ERROR_FACTOR * n as f64 * eps;
                if std::env::var_os("CUPY_SOLVER_TRACE").is_some() {
                    eprintln!(
                        "cusolverDnXgesvdp {} n={n} matrix {b}: h_err_sigma {err_sigma:e} (bound {bound:e})",
                        call.dtype
                    );
                }
                if err_sigma.is_nan() || err_sigma > bound {
                    return Err(format!(
                        "cusolverDnXgesvdp: error estimate h_err_sigma {err_sigma:e} above {bound:e}"
                    ));
                }
            }
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
            let (ri, ci, j) = (rows as i64, cols as i64, svd_job(job));
            let ucols = Lapack::gesvd_ucols(job, rows, cols);
            let at = |base: u64, b: u64, len: usize| {
                if base == 0 {
                    0
                } else {
                    base + b * len as u64 * isz
                }
            };
            for b in 0..batch {
                // SAFETY: matrix b, its singular values, vectors and info lie in their buffers.
                let st = unsafe {
                    cs::cusolverDnXgesvd(
                        h,
                        p,
                        j,
                        j,
                        ri,
                        ci,
                        ty,
                        vp(a + b * (rows * cols) as u64 * isz),
                        ri,
                        rty,
                        vp(sv + b * cols as u64 * rsz),
                        ty,
                        vp(at(u, b, rows * ucols)),
                        ri,
                        ty,
                        vp(at(vt, b, cols * cols)),
                        ci,
                        ty,
                        vp(wp),
                        dev,
                        host_ptr(hw),
                        host,
                        ip(info + b * 4),
                    )
                };
                ok("cusolverDnXgesvd", st)?;
            }
        }
    }
    Ok(())
}

/// orgqr/ungqr's `lwork` (elements of the dtype; the typed 32-bit API: there is no generic
/// one).
fn orgqr_lwork(
    s: &Solver,
    dt: DType,
    m: usize,
    qc: usize,
    k: usize,
    q: u64,
    tau: u64,
) -> std::result::Result<i32, String> {
    let (h, mi, ci, ki) = (s.handle, m as i32, qc as i32, k as i32);
    let mut lwork = 0i32;
    macro_rules! size {
        ($size:ident, $t:ty) => {{
            // SAFETY: valid handle; out-parameter.
            let st = unsafe {
                cs::$size(
                    h,
                    mi,
                    ci,
                    ki,
                    q as *const $t,
                    mi,
                    tau as *const $t,
                    &mut lwork,
                )
            };
            ok(stringify!($size), st)?;
        }};
    }
    match dt {
        DType::Float32 => size!(cusolverDnSorgqr_bufferSize, f32),
        DType::Float64 => size!(cusolverDnDorgqr_bufferSize, f64),
        DType::Complex64 => size!(cusolverDnCungqr_bufferSize, cs::cuComplex),
        _ => size!(cusolverDnZungqr_bufferSize, cs::cuDoubleComplex),
    }
    Ok(lwork)
}

/// orgqr/ungqr in place on the column-major `m x qc` matrices at `q` with `k` reflectors.
///
/// # Safety
/// As [`SolverDriver::lapack`]; `wp` holds `lwork` elements.
unsafe fn orgqr(
    s: &Solver,
    call: &LapackCall,
    (m, qc, k): (usize, usize, usize),
    (q, tau, info): (u64, u64, u64),
    wp: u64,
    lwork: i32,
) -> std::result::Result<(), String> {
    let (h, batch, isz) = (s.handle, call.batch as u64, call.dtype.itemsize() as u64);
    let (mi, ci, ki) = (m as i32, qc as i32, k as i32);
    macro_rules! run {
        ($run:ident, $t:ty) => {{
            for b in 0..batch {
                // SAFETY: matrix b and its tau lie in their buffers; workspace as queried.
                let st = unsafe {
                    cs::$run(
                        h,
                        mi,
                        ci,
                        ki,
                        (q + b * (m * qc) as u64 * isz) as *mut $t,
                        mi,
                        (tau + b * k as u64 * isz) as *const $t,
                        wp as *mut $t,
                        lwork,
                        ip(info + b * 4),
                    )
                };
                ok(stringify!($run), st)?;
            }
        }};
    }
    match call.dtype {
        DType::Float32 => run!(cusolverDnSorgqr, f32),
        DType::Float64 => run!(cusolverDnDorgqr, f64),
        DType::Complex64 => run!(cusolverDnCungqr, cs::cuComplex),
        _ => run!(cusolverDnZungqr, cs::cuDoubleComplex),
    }
    Ok(())
}
