//! rocFFT (minimal: library setup/cleanup and plan lifetime, for the FFT work to come).
//!
//! Not packaged for the CI's Debian release: checked by hand against ROCm/rocFFT at commit
//! 89e4dcaf18fd (2024-10-24, rocFFT 1.0.32, the ROCm 6.3 line),
//! `library/include/rocfft/rocfft.h` (`rocfft_setup`, `rocfft_cleanup`, `rocfft_plan_create`,
//! `rocfft_plan_destroy`, `rocfft_get_version_string`; `rocfft_status_success` = 0, enums
//! counted from 0 in declaration order). SOVERSION 0 since ROCm 4.

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

/// `rocfft_status_success`.
pub const rocfft_status_success: rocfft_status = 0;

fn_table! {
    /// The rocFFT functions cupy-hip will use.
    pub struct RocfftApi {
        fn rocfft_setup() -> rocfft_status;
        fn rocfft_cleanup() -> rocfft_status;
        fn rocfft_get_version_string(*mut c_char, size_t) -> rocfft_status;
        fn rocfft_plan_create(
            *mut rocfft_plan, rocfft_result_placement, rocfft_transform_type, rocfft_precision,
            size_t, *const size_t, size_t, rocfft_plan_description,
        ) -> rocfft_status;
        fn rocfft_plan_destroy(rocfft_plan) -> rocfft_status;
    }
}

/// Library names tried.
pub const LIB_NAMES: &[&str] = &["librocfft.so.0", "librocfft.so"];
