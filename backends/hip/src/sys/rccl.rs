//! RCCL (`librccl.so`): the collectives of `cupy::distributed` on AMD GPUs. RCCL keeps NCCL's C
//! API (names, signatures, enum values), so the table converts into the shared
//! [`cupy_core::gpu::nccl::NcclFns`] that the CUDA backend's NCCL fills too.
//!
//! rccl.h is not packaged for the CI's Debian release, so these declarations are not compiled
//! against it in CI: the `ffi_header` test does that when `rccl/rccl.h` is installed (under
//! `$ROCM_PATH/include`, `/opt/rocm/include`, `/usr/include`, or `CUPY_RCCL_INCLUDE`), and
//! otherwise checks they are well-formed C++. They were checked against ROCm/rccl at commit
//! 0cbce2a7571c907554199fad7e905f16ec0a565c (2024-10-24, RCCL 2.21.5, `src/nccl.h.in`, installed
//! as `rccl/rccl.h`): by hand, and by running that test against that header (its CMake
//! `${NCCL_*}` placeholders filled with 2, 21, 5): every signature below and every value
//! (`ncclSuccess` 0; `ncclInt8 ncclUint8 ncclInt32 ncclUint32 ncclInt64 ncclUint64 ncclFloat16
//! ncclFloat32 ncclFloat64 ncclBfloat16` = 0..9; `ncclSum ncclProd ncclMax ncclMin ncclAvg` =
//! 0..4; `sizeof(ncclUniqueId)` 128) matched. The same declarations and values are NCCL's
//! (2.10 and later, where `ncclAvg` and `ncclBfloat16` appeared).
//!
//! Never run: no AMD GPU here.

use super::fn_table;
use super::hip::hipStream_t;
use super::size_t;
use std::ffi::{c_char, c_int, c_void};

/// `ncclResult_t` (a C enum; `ncclSuccess` = 0).
pub type ncclResult_t = i32;
/// `ncclSuccess`.
pub const ncclSuccess: ncclResult_t = 0;
/// `ncclComm_t` (`struct ncclComm*`).
pub type ncclComm_t = *mut c_void;
/// `ncclDataType_t` (a C enum).
pub type ncclDataType_t = i32;
/// `ncclRedOp_t` (a C enum).
pub type ncclRedOp_t = i32;
/// `ncclUniqueId` (`struct { char internal[128]; }`).
pub type ncclUniqueId = cupy_core::gpu::nccl::NcclUniqueId;

/// The library names tried, in order (ROCm ships `librccl.so.1`).
pub const LIB_NAMES: &[&str] = &["librccl.so.1", "librccl.so"];

/// `ncclDataType_t` values (rccl.h), in [`cupy_core::backend::collective::WireType`]'s order.
pub const DATA_TYPES: [(&str, i32); 10] = [
    ("ncclInt8", 0),
    ("ncclUint8", 1),
    ("ncclInt32", 2),
    ("ncclUint32", 3),
    ("ncclInt64", 4),
    ("ncclUint64", 5),
    ("ncclFloat16", 6),
    ("ncclFloat32", 7),
    ("ncclFloat64", 8),
    ("ncclBfloat16", 9),
];

/// `ncclRedOp_t` values (rccl.h), in [`cupy_core::backend::collective::ReduceOp`]'s order.
pub const RED_OPS: [(&str, i32); 5] = [
    ("ncclSum", 0),
    ("ncclProd", 1),
    ("ncclMax", 2),
    ("ncclMin", 3),
    ("ncclAvg", 4),
];

fn_table! {
    /// RCCL's entry points.
    pub struct RcclApi {
        fn ncclGetVersion(*mut c_int) -> ncclResult_t;
        fn ncclGetUniqueId(*mut ncclUniqueId) -> ncclResult_t;
        fn ncclCommInitRank(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> ncclResult_t;
        fn ncclCommDestroy(ncclComm_t) -> ncclResult_t;
        fn ncclGetErrorString(ncclResult_t) -> *const c_char;
        fn ncclGetLastError(ncclComm_t) -> *const c_char;
        fn ncclAllReduce(*const c_void, *mut c_void, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclReduce(*const c_void, *mut c_void, size_t, ncclDataType_t, ncclRedOp_t, c_int, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclBroadcast(*const c_void, *mut c_void, size_t, ncclDataType_t, c_int, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclReduceScatter(*const c_void, *mut c_void, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclAllGather(*const c_void, *mut c_void, size_t, ncclDataType_t, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclSend(*const c_void, size_t, ncclDataType_t, c_int, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclRecv(*mut c_void, size_t, ncclDataType_t, c_int, ncclComm_t, hipStream_t) -> ncclResult_t;
        fn ncclGroupStart() -> ncclResult_t;
        fn ncclGroupEnd() -> ncclResult_t;
    }
}

impl RcclApi {
    /// The shared table (the same C signatures; `ncclResult_t`, `ncclDataType_t` and
    /// `ncclRedOp_t` are C `int`s, `hipStream_t` a pointer).
    pub fn to_nccl_fns(&self) -> cupy_core::gpu::nccl::NcclFns {
        cupy_core::gpu::nccl::NcclFns {
            get_version: self.ncclGetVersion,
            get_unique_id: self.ncclGetUniqueId,
            comm_init_rank: self.ncclCommInitRank,
            comm_destroy: self.ncclCommDestroy,
            get_error_string: self.ncclGetErrorString,
            get_last_error: Some(self.ncclGetLastError),
            all_reduce: self.ncclAllReduce,
            reduce: self.ncclReduce,
            broadcast: self.ncclBroadcast,
            reduce_scatter: self.ncclReduceScatter,
            all_gather: self.ncclAllGather,
            send: self.ncclSend,
            recv: self.ncclRecv,
            group_start: self.ncclGroupStart,
            group_end: self.ncclGroupEnd,
        }
    }
}
