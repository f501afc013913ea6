//! The C structures of DLPack (`include/dlpack/dlpack.h` of dmlc/dlpack, version 1.0), laid out
//! as the header does, for handing tensors to and from other libraries (PyTorch, JAX, NumPy,
//! CuPy) without a copy.

use std::ffi::c_void;

/// `kDLCPU`: host memory.
pub const DL_CPU: i32 = 1;
/// `kDLCUDA`: CUDA device memory.
pub const DL_CUDA: i32 = 2;
/// `kDLCUDAHost`: pinned host memory (cudaMallocHost).
pub const DL_CUDA_HOST: i32 = 3;
/// `kDLROCM`: ROCm (HIP) device memory.
pub const DL_ROCM: i32 = 10;
/// `kDLROCMHost`: pinned host memory (hipMallocHost).
pub const DL_ROCM_HOST: i32 = 11;
/// `kDLCUDAManaged`: CUDA managed memory.
pub const DL_CUDA_MANAGED: i32 = 13;

/// `kDLInt`: signed integers.
pub const DL_INT: u8 = 0;
/// `kDLUInt`: unsigned integers.
pub const DL_UINT: u8 = 1;
/// `kDLFloat`: IEEE floating point.
pub const DL_FLOAT: u8 = 2;
/// `kDLBfloat`: bfloat16.
pub const DL_BFLOAT: u8 = 4;
/// `kDLComplex`: complex numbers (two floats per element; `bits` counts both).
pub const DL_COMPLEX: u8 = 5;
/// `kDLBool`: booleans (8 bits).
pub const DL_BOOL: u8 = 6;

/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
pub const FLAG_READ_ONLY: u64 = 1;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`.
pub const FLAG_IS_COPIED: u64 = 2;

/// The DLPack version these structures follow (`DLPACK_MAJOR_VERSION`, `DLPACK_MINOR_VERSION`).
pub const VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 0 };

/// `DLDevice`: device type (`DL_CPU`, `DL_CUDA`, `DL_ROCM`, ...) and index.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` (a C enum: 32 bits).
    pub device_type: i32,
    /// Device ordinal (0 for host memory).
    pub device_id: i32,
}

/// `DLDataType`: type code, bits per lane, lanes (always 1 here).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode` (`DL_INT`, `DL_FLOAT`, ...).
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes (vector types; cupy-rs exchanges scalars only).
    pub lanes: u16,
}

/// `DLTensor`: a borrowed strided view (strides in elements, `NULL` for C order).
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// Base address (a device pointer for device types other than the host).
    pub data: *mut c_void,
    /// Where `data` lives.
    pub device: DLDevice,
    /// Number of axes.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` element strides, or null for a C-contiguous tensor.
    pub strides: *mut i64,
    /// Bytes from `data` to element 0.
    pub byte_offset: u64,
}

/// `DLManagedTensor` (the unversioned exchange structure).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when done; frees `self` too. May be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version (ABI).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLManagedTensorVersioned` (the exchange structure since DLPack 1.0).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The producer's DLPack version.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when done; frees `self` too. May be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `FLAG_READ_ONLY`, `FLAG_IS_COPIED`.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}
