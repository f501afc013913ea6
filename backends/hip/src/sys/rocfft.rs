//! rocFFT: library setup/cleanup, plans, execution info (stream, work buffer) and execution,
//! for the HIP backend's FFT primitive (backends/hip/src/backend/fft.rs).
//!
//! Not packaged for the CI's Debian release: checked by hand against ROCm/rocFFT at commit
//! 89e4dcaf18fd (2024-10-24, rocFFT 1.0.32, the ROCm 6.3 line) and again at 8540d4903f38
//! (`library/include/rocfft/rocfft.h`: `rocfft_setup`, `rocfft_cleanup`, `rocfft_plan_create`,
//! `rocfft_plan_destroy`, `rocfft_get_version_string`, `rocfft_execute(const rocfft_plan, void*
//! in_buffer[], void* out_buffer[], rocfft_execution_info)`,
//! `rocfft_plan_get_work_buffer_size(const rocfft_plan, size_t*)`,
//! `rocfft_execution_info_create(rocfft_execution_info*)`,
//! `rocfft_execution_info_destroy(rocfft_execution_info)`,
//! `rocfft_execution_info_set_stream(rocfft_execution_info, void*)`,
//! `rocfft_execution_info_set_work_buffer(rocfft_execution_info, void*, const size_t)`;
//! `rocfft_status_success` = 0, enums counted from 0 in declaration order: placement in
//! place/not in place, transform complex forward/inverse/real forward/real inverse, precision
//! single/double/half). SOVERSION 0 since ROCm 4.

use super::{fn_table, size_t};
use std::ffi::{c_char, c_void};

/// `rocfft_status` (a C enum).
pub type rocfft_status = i32;
/// `rocfft_plan` (opaque).
pub type rocfft_plan = *mut c_void;
/// `rocfft_plan_description` (opaque; null for simple transforms).
pub type rocfft_plan_description = *mut c_void;
/// `rocfft_result_placement`: 0 in place, 1 not in place.
pub type rocfft_result_placement = i32;
/// `rocfft_transform_type`: 0 complex forward, 1 complex inverse, 2 real forward, 3 real inverse.
pub type rocfft_transform_type = i32;
/// `rocfft_precision`: 0 single, 1 double, 2 half.
pub type rocfft_precision = i32;

/// `rocfft_execution_info` (opaque).
pub type rocfft_execution_info = *mut c_void;

/// `rocfft_placement_notinplace`.
pub const rocfft_placement_notinplace: rocfft_result_placement = 1;
/// `rocfft_transform_type_complex_forward`.
pub const rocfft_transform_type_complex_forward: rocfft_transform_type = 0;
/// `rocfft_transform_type_complex_inverse`.
pub const rocfft_transform_type_complex_inverse: rocfft_transform_type = 1;
/// `rocfft_transform_type_real_forward`.
pub const rocfft_transform_type_real_forward: rocfft_transform_type = 2;
/// `rocfft_transform_type_real_inverse`.
pub const rocfft_transform_type_real_inverse: rocfft_transform_type = 3;
/// `rocfft_precision_single`.
pub const rocfft_precision_single: rocfft_precision = 0;
/// `rocfft_precision_double`.
pub const rocfft_precision_double: rocfft_precision = 1;

/// `rocfft_status_success`.
pub const rocfft_status_success: rocfft_status = 0;

fn_table! {
    /// The rocFFT functions cupy-hip uses.
    pub struct RocfftApi {
        fn rocfft_setup() -> rocfft_status;
        fn rocfft_cleanup() -> rocfft_status;
        fn rocfft_get_version_string(*mut c_char, size_t) -> rocfft_status;
        fn rocfft_plan_create(
            *mut rocfft_plan, rocfft_result_placement, rocfft_transform_type, rocfft_precision,
            size_t, *const size_t, size_t, rocfft_plan_description,
        ) -> rocfft_status;
        fn rocfft_plan_destroy(rocfft_plan) -> rocfft_status;
        fn rocfft_execute(
            rocfft_plan, *mut *mut c_void, *mut *mut c_void, rocfft_execution_info,
        ) -> rocfft_status;
        fn rocfft_plan_get_work_buffer_size(rocfft_plan, *mut size_t) -> rocfft_status;
        fn rocfft_execution_info_create(*mut rocfft_execution_info) -> rocfft_status;
        fn rocfft_execution_info_destroy(rocfft_execution_info) -> rocfft_status;
        fn rocfft_execution_info_set_stream(rocfft_execution_info, *mut c_void) -> rocfft_status;
        fn rocfft_execution_info_set_work_buffer(
            rocfft_execution_info, *mut c_void, size_t,
        ) -> rocfft_status;
    }
}

/// Library names tried.
pub const LIB_NAMES: &[&str] = &["librocfft.so.0", "librocfft.so"];
