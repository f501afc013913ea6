//! rocSOLVER (minimal: LU and Cholesky factorizations, for the linalg work to come). rocSOLVER
//! uses rocBLAS handles and types ([`super::rocblas`]).
//!
//! Not packaged for the CI's Debian release: checked by hand against ROCm/rocSOLVER at commit
//! f7e1b6add996 (2024-10-17, rocSOLVER 3.28.0, the ROCm 6.3 line),
//! `library/include/rocsolver/rocsolver-functions.h` (`rocsolver_sgetrf`, `rocsolver_dgetrf`,
//! `rocsolver_spotrf`, `rocsolver_dpotrf`, `rocsolver_get_version_string`);
//! `rocblas_fill_upper/lower` = 121/122 from rocBLAS's rocblas-types.h.

use super::rocblas::{rocblas_handle, rocblas_int, rocblas_status};
use super::{fn_table, size_t};
use std::ffi::c_char;

/// `rocblas_fill` (a C enum).
pub type rocblas_fill = i32;
/// `rocblas_fill_upper`.
pub const rocblas_fill_upper: rocblas_fill = 121;
/// `rocblas_fill_lower`.
pub const rocblas_fill_lower: rocblas_fill = 122;

fn_table! {
    /// The rocSOLVER functions cupy-hip will use.
    pub struct RocsolverApi {
        fn rocsolver_get_version_string(*mut c_char, size_t) -> rocblas_status;
        fn rocsolver_sgetrf(
            rocblas_handle, rocblas_int, rocblas_int, *mut f32, rocblas_int,
            *mut rocblas_int, *mut rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dgetrf(
            rocblas_handle, rocblas_int, rocblas_int, *mut f64, rocblas_int,
            *mut rocblas_int, *mut rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_spotrf(
            rocblas_handle, rocblas_fill, rocblas_int, *mut f32, rocblas_int, *mut rocblas_int,
        ) -> rocblas_status;
        fn rocsolver_dpotrf(
            rocblas_handle, rocblas_fill, rocblas_int, *mut f64, rocblas_int, *mut rocblas_int,
        ) -> rocblas_status;
    }
}

/// Library names tried.
pub const LIB_NAMES: &[&str] = &["librocsolver.so.0", "librocsolver.so"];
