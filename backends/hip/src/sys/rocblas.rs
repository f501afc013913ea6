//! rocBLAS (GEMM only for now).
//!
//! rocBLAS is not packaged for the CI's Debian release, so these declarations are not compiled
//! against a header in CI. They were checked by hand against ROCm/rocBLAS at commit b520bc83fa67
//! (2024-10-23, rocBLAS 4.4.0, SOVERSION 4.4, the ROCm 6.3 line):
//! `library/include/internal/rocblas-functions.h` (`rocblas_sgemm_strided_batched`,
//! `rocblas_dgemm_strided_batched`, `rocblas_cgemm_strided_batched`,
//! `rocblas_zgemm_strided_batched`, `rocblas_gemm_strided_batched_ex`),
//! `library/include/internal/rocblas-complex-types.h` (outside rocBLAS's own device build,
//! `rocblas_float_complex` is `typedef struct { float x, y; }` and `rocblas_double_complex`
//! `typedef struct { double x, y; }`: NumPy's complex64/complex128 layout),
//! `library/include/internal/rocblas-auxiliary.h` (`rocblas_create_handle`,
//! `rocblas_destroy_handle`, `rocblas_set_stream`) and `library/include/internal/rocblas-types.h`
//! (`rocblas_int` = `int32_t` unless built ILP64, `rocblas_stride` = `int64_t`,
//! `rocblas_operation_none/transpose` = 111/112, `rocblas_datatype_f16_r/f32_r/f64_r/bf16_r` =
//! 150/151/152/168, `rocblas_gemm_algo_standard` = 0, `rocblas_status_success` = 0). These
//! signatures and values are unchanged since rocBLAS 2.x (ROCm 4/5).

use super::fn_table;
use std::ffi::{c_char, c_void};

/// `rocblas_status` (a C enum).
pub type rocblas_status = i32;
/// `rocblas_handle` (opaque).
pub type rocblas_handle = *mut c_void;
/// `rocblas_int` (LP64 build).
pub type rocblas_int = i32;
/// `rocblas_stride`.
pub type rocblas_stride = i64;
/// `rocblas_operation` (a C enum).
pub type rocblas_operation = i32;
/// `rocblas_datatype` (a C enum).
pub type rocblas_datatype = i32;
/// `rocblas_gemm_algo` (a C enum).
pub type rocblas_gemm_algo = i32;
/// `hipStream_t`.
pub type hipStream_t = *mut c_void;

/// `rocblas_float_complex` (rocblas-complex-types.h, C view).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct rocblas_float_complex {
    /// Real part.
    pub x: f32,
    /// Imaginary part.
    pub y: f32,
}
/// `rocblas_double_complex` (rocblas-complex-types.h, C view).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct rocblas_double_complex {
    /// Real part.
    pub x: f64,
    /// Imaginary part.
    pub y: f64,
}

/// `rocblas_status_success`.
pub const rocblas_status_success: rocblas_status = 0;
/// `rocblas_operation_none`.
pub const rocblas_operation_none: rocblas_operation = 111;
/// `rocblas_operation_transpose`.
pub const rocblas_operation_transpose: rocblas_operation = 112;
/// `rocblas_datatype_f16_r`.
pub const rocblas_datatype_f16_r: rocblas_datatype = 150;
/// `rocblas_datatype_f32_r`.
pub const rocblas_datatype_f32_r: rocblas_datatype = 151;
/// `rocblas_datatype_f64_r`.
pub const rocblas_datatype_f64_r: rocblas_datatype = 152;
/// `rocblas_datatype_bf16_r`.
pub const rocblas_datatype_bf16_r: rocblas_datatype = 168;
/// `rocblas_gemm_algo_standard`.
pub const rocblas_gemm_algo_standard: rocblas_gemm_algo = 0;

/// Names of `rocblas_status` values 0..=15 (rocblas-types.h, rocBLAS 4.4).
pub const STATUS_NAMES: [&str; 16] = [
    "rocblas_status_success",
    "rocblas_status_invalid_handle",
    "rocblas_status_not_implemented",
    "rocblas_status_invalid_pointer",
    "rocblas_status_invalid_size",
    "rocblas_status_memory_error",
    "rocblas_status_internal_error",
    "rocblas_status_perf_degraded",
    "rocblas_status_size_query_mismatch",
    "rocblas_status_size_increased",
    "rocblas_status_size_unchanged",
    "rocblas_status_invalid_value",
    "rocblas_status_continue",
    "rocblas_status_check_numerics_fail",
    "rocblas_status_excluded_from_build",
    "rocblas_status_arch_mismatch",
];

fn_table! {
    /// The rocBLAS functions cupy-hip uses.
    pub struct RocblasApi {
        fn rocblas_create_handle(*mut rocblas_handle) -> rocblas_status;
        fn rocblas_destroy_handle(rocblas_handle) -> rocblas_status;
        fn rocblas_set_stream(rocblas_handle, hipStream_t) -> rocblas_status;
        fn rocblas_status_to_string(rocblas_status) -> *const c_char;
        fn rocblas_sgemm_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_operation,
            rocblas_int, rocblas_int, rocblas_int,
            *const f32, *const f32, rocblas_int, rocblas_stride,
            *const f32, rocblas_int, rocblas_stride,
            *const f32, *mut f32, rocblas_int, rocblas_stride,
            rocblas_int,
        ) -> rocblas_status;
        fn rocblas_dgemm_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_operation,
            rocblas_int, rocblas_int, rocblas_int,
            *const f64, *const f64, rocblas_int, rocblas_stride,
            *const f64, rocblas_int, rocblas_stride,
            *const f64, *mut f64, rocblas_int, rocblas_stride,
            rocblas_int,
        ) -> rocblas_status;
        fn rocblas_cgemm_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_operation,
            rocblas_int, rocblas_int, rocblas_int,
            *const rocblas_float_complex,
            *const rocblas_float_complex, rocblas_int, rocblas_stride,
            *const rocblas_float_complex, rocblas_int, rocblas_stride,
            *const rocblas_float_complex,
            *mut rocblas_float_complex, rocblas_int, rocblas_stride,
            rocblas_int,
        ) -> rocblas_status;
        fn rocblas_zgemm_strided_batched(
            rocblas_handle, rocblas_operation, rocblas_operation,
            rocblas_int, rocblas_int, rocblas_int,
            *const rocblas_double_complex,
            *const rocblas_double_complex, rocblas_int, rocblas_stride,
            *const rocblas_double_complex, rocblas_int, rocblas_stride,
            *const rocblas_double_complex,
            *mut rocblas_double_complex, rocblas_int, rocblas_stride,
            rocblas_int,
        ) -> rocblas_status;
        fn rocblas_gemm_strided_batched_ex(
            rocblas_handle, rocblas_operation, rocblas_operation,
            rocblas_int, rocblas_int, rocblas_int,
            *const c_void,
            *const c_void, rocblas_datatype, rocblas_int, rocblas_stride,
            *const c_void, rocblas_datatype, rocblas_int, rocblas_stride,
            *const c_void,
            *const c_void, rocblas_datatype, rocblas_int, rocblas_stride,
            *mut c_void, rocblas_datatype, rocblas_int, rocblas_stride,
            rocblas_int, rocblas_datatype, rocblas_gemm_algo, i32, u32,
        ) -> rocblas_status;
    }
}

/// Library names tried, newest first: ROCm 7 (`.so.5`), 6 (`.so.4`), 5 (`.so.0`; 4.x used
/// `.so.0` too), `.so.3` for older 6.x pre-releases, unversioned.
pub const LIB_NAMES: &[&str] = &[
    "librocblas.so.5",
    "librocblas.so.4",
    "librocblas.so.3",
    "librocblas.so.0",
    "librocblas.so",
];
