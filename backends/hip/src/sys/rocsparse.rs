//! rocSPARSE's generic API (SpMV, SpMM, SpGEMM, SpSV, SpSM and their descriptors): the calls of the
//! HIP backend's `SparseLibrary` (`backend/sparse.rs`).
//!
//! rocSPARSE is not packaged for the CI's Debian release, so these declarations are checked for
//! well-formedness in CI (the `ffi_header` test) and against the real header where one is
//! installed (`rocsparse/rocsparse.h`). They were checked by hand, and by running that test's
//! generated C++ against the headers, at ROCm/rocSPARSE commit
//! 1c69e401f12351efb3f16700a8a557f3b772ab4e (2024-10-23, rocSPARSE 3.3.0, SOVERSION 1.0, the
//! ROCm 6.3 line: `library/include/rocsparse-types.h`, `rocsparse-auxiliary.h` and
//! `internal/generic/rocsparse_{spmv,spmm,spgemm,spsv,spsm}.h`, with one-line stand-ins for the
//! CMake-generated `rocsparse-export.h`/`rocsparse-version.h`); the signatures and values are
//! the same at tag rocm-6.0.0 (rocSPARSE 3.0.2). rocSPARSE 2.x (ROCm 5) has a different
//! `rocsparse_spmv` (no `stage` argument) under SOVERSION 0, so only `librocsparse.so.1` is
//! loaded and its version must be 3.0 or later ([`MIN_VERSION`]).
//!
//! Values (all C enums, `int`-sized): `rocsparse_status_success/not_implemented` = 0/2;
//! `rocsparse_operation_none` = 111; `rocsparse_index_base_zero` = 0;
//! `rocsparse_indextype_i32/i64` = 2/3; `rocsparse_datatype_f32_r/f64_r/f32_c/f64_c` =
//! 151/152/154/155; `rocsparse_order_row` = 0 (cuSPARSE's is 2); `rocsparse_spmv_alg_default`,
//! `rocsparse_spmm_alg_default`, `rocsparse_spgemm_alg_default`, `rocsparse_spsv_alg_default`,
//! `rocsparse_spsm_alg_default` = 0; stages `*_buffer_size` = 1,
//! `spmv/spmm/spsv/spsm_stage_preprocess` = 2, `spmv/spmm/spsv/spsm_stage_compute` = 3, `spgemm_stage_nnz` = 2, `spgemm_stage_compute` = 3;
//! `rocsparse_spmat_fill_mode/diag_type` = 0/1; `rocsparse_fill_mode_lower/upper` = 0/1;
//! `rocsparse_diag_type_non_unit/unit` = 0/1.

use super::hip::hipStream_t;
use super::{fn_table, size_t};
use std::ffi::{c_int, c_void};

/// `rocsparse_status`.
pub type rocsparse_status = i32;
/// `rocsparse_status_success`.
pub const rocsparse_status_success: rocsparse_status = 0;
/// `rocsparse_status_not_implemented`.
pub const rocsparse_status_not_implemented: rocsparse_status = 2;
/// `rocsparse_handle` (opaque).
pub type rocsparse_handle = *mut c_void;
/// `rocsparse_spmat_descr` (opaque).
pub type rocsparse_spmat_descr = *mut c_void;
/// `rocsparse_const_spmat_descr`.
pub type rocsparse_const_spmat_descr = *const c_void;
/// `rocsparse_dnvec_descr` (opaque).
pub type rocsparse_dnvec_descr = *mut c_void;
/// `rocsparse_const_dnvec_descr`.
pub type rocsparse_const_dnvec_descr = *const c_void;
/// `rocsparse_dnmat_descr` (opaque).
pub type rocsparse_dnmat_descr = *mut c_void;
/// `rocsparse_const_dnmat_descr`.
pub type rocsparse_const_dnmat_descr = *const c_void;

/// `rocsparse_operation`.
pub type rocsparse_operation = i32;
/// `rocsparse_operation_none`.
pub const rocsparse_operation_none: rocsparse_operation = 111;
/// `rocsparse_index_base`.
pub type rocsparse_index_base = i32;
/// `rocsparse_index_base_zero`.
pub const rocsparse_index_base_zero: rocsparse_index_base = 0;
/// `rocsparse_indextype`.
pub type rocsparse_indextype = i32;
/// `rocsparse_indextype_i32`.
pub const rocsparse_indextype_i32: rocsparse_indextype = 2;
/// `rocsparse_indextype_i64`.
pub const rocsparse_indextype_i64: rocsparse_indextype = 3;
/// `rocsparse_datatype`.
pub type rocsparse_datatype = i32;
/// `rocsparse_datatype_f32_r`.
pub const rocsparse_datatype_f32_r: rocsparse_datatype = 151;
/// `rocsparse_datatype_f64_r`.
pub const rocsparse_datatype_f64_r: rocsparse_datatype = 152;
/// `rocsparse_datatype_f32_c`.
pub const rocsparse_datatype_f32_c: rocsparse_datatype = 154;
/// `rocsparse_datatype_f64_c`.
pub const rocsparse_datatype_f64_c: rocsparse_datatype = 155;
/// `rocsparse_order`.
pub type rocsparse_order = i32;
/// `rocsparse_order_row`.
pub const rocsparse_order_row: rocsparse_order = 0;
/// `rocsparse_spmv_alg`.
pub type rocsparse_spmv_alg = i32;
/// `rocsparse_spmv_alg_default`.
pub const rocsparse_spmv_alg_default: rocsparse_spmv_alg = 0;
/// `rocsparse_spmv_stage`.
pub type rocsparse_spmv_stage = i32;
/// `rocsparse_spmv_stage_buffer_size`.
pub const rocsparse_spmv_stage_buffer_size: rocsparse_spmv_stage = 1;
/// `rocsparse_spmv_stage_preprocess`.
pub const rocsparse_spmv_stage_preprocess: rocsparse_spmv_stage = 2;
/// `rocsparse_spmv_stage_compute`.
pub const rocsparse_spmv_stage_compute: rocsparse_spmv_stage = 3;
/// `rocsparse_spmm_alg`.
pub type rocsparse_spmm_alg = i32;
/// `rocsparse_spmm_alg_default`.
pub const rocsparse_spmm_alg_default: rocsparse_spmm_alg = 0;
/// `rocsparse_spmm_stage`.
pub type rocsparse_spmm_stage = i32;
/// `rocsparse_spmm_stage_buffer_size`.
pub const rocsparse_spmm_stage_buffer_size: rocsparse_spmm_stage = 1;
/// `rocsparse_spmm_stage_preprocess`.
pub const rocsparse_spmm_stage_preprocess: rocsparse_spmm_stage = 2;
/// `rocsparse_spmm_stage_compute`.
pub const rocsparse_spmm_stage_compute: rocsparse_spmm_stage = 3;
/// `rocsparse_spgemm_alg`.
pub type rocsparse_spgemm_alg = i32;
/// `rocsparse_spgemm_alg_default`.
pub const rocsparse_spgemm_alg_default: rocsparse_spgemm_alg = 0;
/// `rocsparse_spgemm_stage`.
pub type rocsparse_spgemm_stage = i32;
/// `rocsparse_spgemm_stage_buffer_size`.
pub const rocsparse_spgemm_stage_buffer_size: rocsparse_spgemm_stage = 1;
/// `rocsparse_spgemm_stage_nnz`.
pub const rocsparse_spgemm_stage_nnz: rocsparse_spgemm_stage = 2;
/// `rocsparse_spgemm_stage_compute`.
pub const rocsparse_spgemm_stage_compute: rocsparse_spgemm_stage = 3;
/// `rocsparse_spsv_alg`.
pub type rocsparse_spsv_alg = i32;
/// `rocsparse_spsv_alg_default`.
pub const rocsparse_spsv_alg_default: rocsparse_spsv_alg = 0;
/// `rocsparse_spsv_stage`.
pub type rocsparse_spsv_stage = i32;
/// `rocsparse_spsv_stage_buffer_size`.
pub const rocsparse_spsv_stage_buffer_size: rocsparse_spsv_stage = 1;
/// `rocsparse_spsv_stage_preprocess`.
pub const rocsparse_spsv_stage_preprocess: rocsparse_spsv_stage = 2;
/// `rocsparse_spsv_stage_compute`.
pub const rocsparse_spsv_stage_compute: rocsparse_spsv_stage = 3;
/// `rocsparse_spsm_alg`.
pub type rocsparse_spsm_alg = i32;
/// `rocsparse_spsm_alg_default`.
pub const rocsparse_spsm_alg_default: rocsparse_spsm_alg = 0;
/// `rocsparse_spsm_stage`.
pub type rocsparse_spsm_stage = i32;
/// `rocsparse_spsm_stage_buffer_size`.
pub const rocsparse_spsm_stage_buffer_size: rocsparse_spsm_stage = 1;
/// `rocsparse_spsm_stage_preprocess`.
pub const rocsparse_spsm_stage_preprocess: rocsparse_spsm_stage = 2;
/// `rocsparse_spsm_stage_compute`.
pub const rocsparse_spsm_stage_compute: rocsparse_spsm_stage = 3;
/// `rocsparse_spmat_attribute`.
pub type rocsparse_spmat_attribute = i32;
/// `rocsparse_spmat_fill_mode`.
pub const rocsparse_spmat_fill_mode: rocsparse_spmat_attribute = 0;
/// `rocsparse_spmat_diag_type`.
pub const rocsparse_spmat_diag_type: rocsparse_spmat_attribute = 1;
/// `rocsparse_fill_mode`.
pub type rocsparse_fill_mode = i32;
/// `rocsparse_fill_mode_lower`.
pub const rocsparse_fill_mode_lower: rocsparse_fill_mode = 0;
/// `rocsparse_fill_mode_upper`.
pub const rocsparse_fill_mode_upper: rocsparse_fill_mode = 1;
/// `rocsparse_diag_type`.
pub type rocsparse_diag_type = i32;
/// `rocsparse_diag_type_non_unit`.
pub const rocsparse_diag_type_non_unit: rocsparse_diag_type = 0;
/// `rocsparse_diag_type_unit`.
pub const rocsparse_diag_type_unit: rocsparse_diag_type = 1;

/// The oldest rocSPARSE whose generic API these declarations match (`rocsparse_get_version`'s
/// encoding `major * 100000 + minor * 100 + patch`: 3.0.0).
pub const MIN_VERSION: c_int = 300_000;

fn_table! {
    /// The rocSPARSE functions cupy-hip uses.
    pub struct RocsparseApi {
        fn rocsparse_create_handle(*mut rocsparse_handle) -> rocsparse_status;
        fn rocsparse_destroy_handle(rocsparse_handle) -> rocsparse_status;
        fn rocsparse_set_stream(rocsparse_handle, hipStream_t) -> rocsparse_status;
        fn rocsparse_get_version(rocsparse_handle, *mut c_int) -> rocsparse_status;
        fn rocsparse_create_csr_descr(
            *mut rocsparse_spmat_descr, i64, i64, i64, *mut c_void, *mut c_void, *mut c_void, rocsparse_indextype, rocsparse_indextype, rocsparse_index_base, rocsparse_datatype,
        ) -> rocsparse_status;
        fn rocsparse_destroy_spmat_descr(rocsparse_const_spmat_descr) -> rocsparse_status;
        fn rocsparse_create_dnvec_descr(
            *mut rocsparse_dnvec_descr, i64, *mut c_void, rocsparse_datatype,
        ) -> rocsparse_status;
        fn rocsparse_destroy_dnvec_descr(rocsparse_const_dnvec_descr) -> rocsparse_status;
        fn rocsparse_create_dnmat_descr(
            *mut rocsparse_dnmat_descr, i64, i64, i64, *mut c_void, rocsparse_datatype, rocsparse_order,
        ) -> rocsparse_status;
        fn rocsparse_destroy_dnmat_descr(rocsparse_const_dnmat_descr) -> rocsparse_status;
        fn rocsparse_spmat_set_attribute(
            rocsparse_spmat_descr, rocsparse_spmat_attribute, *const c_void, size_t,
        ) -> rocsparse_status;
        fn rocsparse_csr_set_pointers(
            rocsparse_spmat_descr, *mut c_void, *mut c_void, *mut c_void,
        ) -> rocsparse_status;
        fn rocsparse_spmat_get_size(
            rocsparse_const_spmat_descr, *mut i64, *mut i64, *mut i64,
        ) -> rocsparse_status;
        fn rocsparse_spmv(
            rocsparse_handle, rocsparse_operation, *const c_void, rocsparse_const_spmat_descr, rocsparse_const_dnvec_descr, *const c_void, rocsparse_dnvec_descr, rocsparse_datatype, rocsparse_spmv_alg, rocsparse_spmv_stage, *mut size_t, *mut c_void,
        ) -> rocsparse_status;
        fn rocsparse_spmm(
            rocsparse_handle, rocsparse_operation, rocsparse_operation, *const c_void, rocsparse_const_spmat_descr, rocsparse_const_dnmat_descr, *const c_void, rocsparse_dnmat_descr, rocsparse_datatype, rocsparse_spmm_alg, rocsparse_spmm_stage, *mut size_t, *mut c_void,
        ) -> rocsparse_status;
        fn rocsparse_spgemm(
            rocsparse_handle, rocsparse_operation, rocsparse_operation, *const c_void, rocsparse_const_spmat_descr, rocsparse_const_spmat_descr, *const c_void, rocsparse_const_spmat_descr, rocsparse_spmat_descr, rocsparse_datatype, rocsparse_spgemm_alg, rocsparse_spgemm_stage, *mut size_t, *mut c_void,
        ) -> rocsparse_status;
        fn rocsparse_spsv(
            rocsparse_handle, rocsparse_operation, *const c_void, rocsparse_const_spmat_descr, rocsparse_const_dnvec_descr, rocsparse_dnvec_descr, rocsparse_datatype, rocsparse_spsv_alg, rocsparse_spsv_stage, *mut size_t, *mut c_void,
        ) -> rocsparse_status;
        fn rocsparse_spsm(
            rocsparse_handle, rocsparse_operation, rocsparse_operation, *const c_void, rocsparse_const_spmat_descr, rocsparse_const_dnmat_descr, rocsparse_dnmat_descr, rocsparse_datatype, rocsparse_spsm_alg, rocsparse_spsm_stage, *mut size_t, *mut c_void,
        ) -> rocsparse_status;
    }
}

/// Library names tried: only SOVERSION 1 (rocSPARSE 3.x, ROCm 6), whose `rocsparse_spmv`
/// takes the `stage` argument declared above.
pub const LIB_NAMES: &[&str] = &["librocsparse.so.1"];

/// The `rocsparse_status` names, by value (rocsparse-types.h).
pub const STATUS_NAMES: &[&str] = &[
    "rocsparse_status_success",
    "rocsparse_status_invalid_handle",
    "rocsparse_status_not_implemented",
    "rocsparse_status_invalid_pointer",
    "rocsparse_status_invalid_size",
    "rocsparse_status_memory_error",
    "rocsparse_status_internal_error",
    "rocsparse_status_invalid_value",
    "rocsparse_status_arch_mismatch",
    "rocsparse_status_zero_pivot",
    "rocsparse_status_not_initialized",
    "rocsparse_status_type_mismatch",
    "rocsparse_status_requires_sorted_storage",
    "rocsparse_status_thrown_exception",
    "rocsparse_status_continue",
];
