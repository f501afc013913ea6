//! rocSOLVER: the LAPACK calls of the shared solver plans (`cupy_core::gpu::solver`), one
//! `_strided_batched` call per batch where rocSOLVER has one (getrf, getrs, potrf, geqrf,
//! syevd/heevd, gesvd) and the single-matrix orgqr/ungqr (no batched form). rocSOLVER uses
//! rocBLAS handles and types ([`super::rocblas`]).
//!
//! rocSOLVER is not packaged for the CI's Debian release (bookworm has no rocSOLVER package),
//! so these declarations are not compiled against its header in CI: the `ffi_header` test does
//! that when `rocsolver/rocsolver.h` is installed (under `$ROCM_PATH/include`,
//! `/opt/rocm/include` or `/usr/include`), and otherwise checks they are well-formed C++.
//! They were checked against ROCm/rocSOLVER at commit f7e1b6add9961fbcf14d5a47fa2c807540d32c70
//! (2024-10-17, rocSOLVER 3.28.0, SOVERSION 0.4, the ROCm 6.3 line) and ROCm/rocBLAS at commit
//! b520bc83fa67045bed4544f33ba83ce3a7c39c44 (rocBLAS 4.4.0): by hand, and by running that test
//! against those headers (`library/include/rocsolver/*.h`, `library/include/rocblas.h` and
//! `internal/*.h`, with one-line stand-ins for the CMake-generated `*-export.h`/`*-version.h`):
//! every signature below and every value (`rocblas_svect_all/singular/overwrite/none` =
//! 191..194, `rocblas_outofplace/inplace` = 201/202, `rocblas_evect_original/tridiagonal/none`
//! = 211..213, `rocblas_esort_none/ascending` = 251/252 from rocsolver-extra-types.h;
//! `rocblas_fill_upper/lower/full` = 121..123, `rocblas_operation_*` = 111..113,
//! `rocblas_int` = `int32_t` in the LP64 build that ROCm ships, from rocblas-types.h) matched.
//! These signatures are unchanged since rocSOLVER 3.11 (ROCm 4.1), which added syevd/heevd.

use super::rocblas::{
    rocblas_double_complex, rocblas_float_complex, rocblas_handle, rocblas_int, rocblas_operation,
    rocblas_status, rocblas_stride,
};
use super::{fn_table, size_t};
use std::ffi::c_char;

/// `rocblas_fill` (a C enum, rocblas-types.h).
pub type rocblas_fill = i32;
/// `rocblas_fill_upper`.
pub const rocblas_fill_upper: rocblas_fill = 121;
/// `rocblas_fill_lower`.
pub const rocblas_fill_lower: rocblas_fill = 122;
/// `rocblas_fill_full`.
pub const rocblas_fill_full: rocblas_fill = 123;
/// `rocblas_operation_conjugate_transpose` (rocblas-types.h; none/transpose are in
/// [`super::rocblas`]).
pub const rocblas_operation_conjugate_transpose: rocblas_operation = 113;

/// `rocblas_svect` (a C enum, rocsolver-extra-types.h): which singular vectors gesvd computes.
pub type rocblas_svect = i32;
/// `rocblas_svect_all`: the whole `U` (or `V'`).
pub const rocblas_svect_all: rocblas_svect = 191;
/// `rocblas_svect_singular`: the first `min(m, n)` columns of `U` (rows of `V'`).
pub const rocblas_svect_singular: rocblas_svect = 192;
/// `rocblas_svect_overwrite`: the singular vectors over `A`.
pub const rocblas_svect_overwrite: rocblas_svect = 193;
/// `rocblas_svect_none`.
pub const rocblas_svect_none: rocblas_svect = 194;

/// `rocblas_workmode` (a C enum, rocsolver-extra-types.h): gesvd's `fast_alg`.
pub type rocblas_workmode = i32;
/// `rocblas_outofplace`: faster, more workspace.
pub const rocblas_outofplace: rocblas_workmode = 201;
/// `rocblas_inplace`.
pub const rocblas_inplace: rocblas_workmode = 202;

/// `rocblas_evect` (a C enum, rocsolver-extra-types.h).
pub type rocblas_evect = i32;
/// `rocblas_evect_original`: eigenvectors of the original matrix.
pub const rocblas_evect_original: rocblas_evect = 211;
/// `rocblas_evect_tridiagonal` (not supported by syevd).
pub const rocblas_evect_tridiagonal: rocblas_evect = 212;
/// `rocblas_evect_none`.
pub const rocblas_evect_none: rocblas_evect = 213;

/// `rocblas_esort` (a C enum, rocsolver-extra-types.h; for the Jacobi eigensolvers, not used
/// yet).
pub type rocblas_esort = i32;
/// `rocblas_esort_none`.
pub const rocblas_esort_none: rocblas_esort = 251;
/// `rocblas_esort_ascending`.
pub const rocblas_esort_ascending: rocblas_esort = 252;

fn_table! {
    /// The rocSOLVER functions cupy-hip uses.
    pub struct RocsolverApi {
        fn rocsolver_get_version_string(*mut c_char, size_t) -> rocblas_status;
        fn rocsolver_sgetrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dgetrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cgetrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zgetrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_sgetrs_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_int, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *const rocblas_int, rocblas_stride, *mut f32, rocblas_int, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dgetrs_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_int, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *const rocblas_int, rocblas_stride, *mut f64, rocblas_int, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cgetrs_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_int, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *const rocblas_int, rocblas_stride, *mut rocblas_float_complex, rocblas_int, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zgetrs_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_int, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *const rocblas_int, rocblas_stride, *mut rocblas_double_complex, rocblas_int, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_spotrf_strided_batched(
            rocblas_handle, rocblas_fill, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dpotrf_strided_batched(
            rocblas_handle, rocblas_fill, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cpotrf_strided_batched(
            rocblas_handle, rocblas_fill, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zpotrf_strided_batched(
            rocblas_handle, rocblas_fill, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_sgeqrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dgeqrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cgeqrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut rocblas_float_complex, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zgeqrf_strided_batched(
            rocblas_handle, rocblas_int, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut rocblas_double_complex, rocblas_stride, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_ssyevd_strided_batched(
            rocblas_handle, rocblas_evect, rocblas_fill, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, *mut f32, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dsyevd_strided_batched(
            rocblas_handle, rocblas_evect, rocblas_fill, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, *mut f64, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cheevd_strided_batched(
            rocblas_handle, rocblas_evect, rocblas_fill, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, *mut f32, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zheevd_strided_batched(
            rocblas_handle, rocblas_evect, rocblas_fill, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, *mut f64, rocblas_stride, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_sgesvd_strided_batched(
            rocblas_handle, rocblas_svect, rocblas_svect, rocblas_int, rocblas_int, *mut f32, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, *mut f32, rocblas_int, rocblas_stride, *mut f32, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, rocblas_workmode, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dgesvd_strided_batched(
            rocblas_handle, rocblas_svect, rocblas_svect, rocblas_int, rocblas_int, *mut f64, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, *mut f64, rocblas_int, rocblas_stride, *mut f64, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, rocblas_workmode, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_cgesvd_strided_batched(
            rocblas_handle, rocblas_svect, rocblas_svect, rocblas_int, rocblas_int, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut rocblas_float_complex, rocblas_int, rocblas_stride, *mut f32, rocblas_stride, rocblas_workmode, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_zgesvd_strided_batched(
            rocblas_handle, rocblas_svect, rocblas_svect, rocblas_int, rocblas_int, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut rocblas_double_complex, rocblas_int, rocblas_stride, *mut f64, rocblas_stride, rocblas_workmode, *mut rocblas_int, rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_sorgqr(
            rocblas_handle, rocblas_int, rocblas_int, rocblas_int, *mut f32, rocblas_int, *mut f32,
        ) -> rocblas_status;
        fn rocsolver_dorgqr(
            rocblas_handle, rocblas_int, rocblas_int, rocblas_int, *mut f64, rocblas_int, *mut f64,
        ) -> rocblas_status;
        fn rocsolver_cungqr(
            rocblas_handle, rocblas_int, rocblas_int, rocblas_int, *mut rocblas_float_complex, rocblas_int, *mut rocblas_float_complex,
        ) -> rocblas_status;
        fn rocsolver_zungqr(
            rocblas_handle, rocblas_int, rocblas_int, rocblas_int, *mut rocblas_double_complex, rocblas_int, *mut rocblas_double_complex,
        ) -> rocblas_status;
    }
}

/// Library names tried, newest first: `.so.1` (in case a ROCm 7 release bumps it), `.so.0`
/// (ROCm 4.x to 6.x: SOVERSION 0.x), unversioned.
pub const LIB_NAMES: &[&str] = &["librocsolver.so.1", "librocsolver.so.0", "librocsolver.so"];
