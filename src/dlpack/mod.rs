//! DLPack: zero-copy exchange of arrays with other libraries (PyTorch, JAX, NumPy, CuPy), as
//! CuPy's `cupy.from_dlpack` and `ndarray.__dlpack__` / `toDlpack`.
//!
//! [`Array::to_dlpack`] and [`Array::to_dlpack_versioned`] hand out a `DLManagedTensor` /
//! `DLManagedTensorVersioned` ([`ffi`]) whose data is the array's own memory (a CUDA or HIP
//! device pointer, or a host pointer for the cpu backend); the array stays alive until the
//! consumer calls the deleter. [`from_dlpack`] and [`from_dlpack_versioned`] wrap a foreign
//! tensor in place; its deleter runs when the last array viewing it drops.
//!
//! Device types: `kDLCPU` (and pinned host memory, `kDLCUDAHost`/`kDLROCMHost`) on the cpu
//! backend, `kDLCUDA`/`kDLCUDAManaged` on cuda, `kDLROCM` on hip. wgpu buffers have no address
//! another library could use, so wgpu arrays are refused with [`Error::Unsupported`].
//!
//! Ordering: export synchronizes the array's device first, so the consumer sees finished data.
//! Import does not know the producer's stream: the producer's work on the tensor must be
//! complete (PyTorch: `torch.cuda.synchronize()`, or a tensor produced on a stream that was
//! synchronized). A wrapped tensor's buffer drains cupy-rs's queue before calling the deleter,
//! so the owner never frees memory that queued work still reads.
//!
//! ```
//! use cupy as cp;
//! # fn main() -> cp::Result<()> {
//! let cpu = cp::Device::get(cp::BackendKind::Cpu, 0)?;    // wgpu arrays have no address
//! let a = cp::Array::from_slice_on(&cpu, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
//! let t = a.to_dlpack()?;                          // a DLManagedTensor for another library
//! let b = unsafe { cp::dlpack::from_dlpack(t)? }; // ... or back: no copy
//! assert_eq!(b.buffer().address(), a.buffer().address());
//! assert_eq!(b.to_vec::<f64>()?, a.to_vec::<f64>()?);
//! # Ok(()) }
//! ```

pub mod ffi;

use crate::array::Array;
use crate::device::Device;
use cupy_core::backend::BackendKind;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::Layout;
use ffi::{DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLTensor};
use std::ffi::c_void;

/// The registry probe of routines that wrap memory by address (DLPack, `from_external`, a user
/// allocator): the backend's [`cupy_core::backend::Primitive::ExternalMemory`].
pub(crate) fn probe(_: DType) -> Option<crate::registry::Need> {
    Some(crate::registry::Need::Primitive(
        cupy_core::backend::Primitive::ExternalMemory,
    ))
}
routine!(from_dlpack, Transfer, probe: probe, notes: "zero-copy; DLManagedTensor and the versioned structure");
routine!("cupy.ndarray.toDlpack", Transfer, probe: probe, notes: "Array::to_dlpack, to_dlpack_versioned");

/// The DLPack device of an array's device (`__dlpack_device__`).
///
/// # Errors
/// [`Error::Unsupported`] for wgpu (its buffers have no address).
pub fn dlpack_device(device: &Device) -> Result<DLDevice> {
    let (device_type, device_id) = match device.kind() {
        BackendKind::Cpu => (ffi::DL_CPU, 0),
        BackendKind::Cuda => (ffi::DL_CUDA, device.id() as i32),
        BackendKind::Hip => (ffi::DL_ROCM, device.id() as i32),
        BackendKind::Wgpu => {
            return Err(Error::Unsupported {
                op: "to_dlpack".into(),
                backend: device.label(),
                reason: "wgpu buffers have no address another library can use".into(),
            })
        }
    };
    Ok(DLDevice {
        device_type,
        device_id,
    })
}

/// The DLPack type of `dtype`.
pub fn dlpack_dtype(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => ffi::DL_BOOL,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => ffi::DL_INT,
        DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => ffi::DL_UINT,
        DType::Float16 | DType::Float32 | DType::Float64 => ffi::DL_FLOAT,
        DType::BFloat16 => ffi::DL_BFLOAT,
        DType::Complex64 | DType::Complex128 => ffi::DL_COMPLEX,
    };
    DLDataType {
        code,
        bits: (dtype.itemsize() * 8) as u8,
        lanes: 1,
    }
}

/// The dtype of a DLPack type, if cupy-rs has it.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the code, bits and lanes.
pub fn dtype_of(t: DLDataType) -> Result<DType> {
    let d = match (t.code, t.bits, t.lanes) {
        (ffi::DL_BOOL, 8, 1) => DType::Bool,
        (ffi::DL_INT, 8, 1) => DType::Int8,
        (ffi::DL_INT, 16, 1) => DType::Int16,
        (ffi::DL_INT, 32, 1) => DType::Int32,
        (ffi::DL_INT, 64, 1) => DType::Int64,
        (ffi::DL_UINT, 8, 1) => DType::UInt8,
        (ffi::DL_UINT, 16, 1) => DType::UInt16,
        (ffi::DL_UINT, 32, 1) => DType::UInt32,
        (ffi::DL_UINT, 64, 1) => DType::UInt64,
        (ffi::DL_FLOAT, 16, 1) => DType::Float16,
        (ffi::DL_FLOAT, 32, 1) => DType::Float32,
        (ffi::DL_FLOAT, 64, 1) => DType::Float64,
        (ffi::DL_BFLOAT, 16, 1) => DType::BFloat16,
        (ffi::DL_COMPLEX, 64, 1) => DType::Complex64,
        (ffi::DL_COMPLEX, 128, 1) => DType::Complex128,
        (code, bits, lanes) => {
            return Err(Error::invalid(
                "from_dlpack",
                format!("no dtype for DLPack type code {code}, {bits} bits, {lanes} lanes"),
            ))
        }
    };
    Ok(d)
}

/// What an exported tensor owns: the array (so its buffer stays alive) and the shape and
/// stride arrays the `DLTensor` points into.
struct Exported {
    _array: Array,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

impl Array {
    /// The DLPack device of this array (`__dlpack_device__`).
    ///
    /// # Errors
    /// As [`dlpack_device`].
    pub fn dlpack_device(&self) -> Result<DLDevice> {
        dlpack_device(self.device())
    }

    /// Exports this array as a `DLManagedTensor` (CuPy's `toDlpack`, the legacy structure;
    /// PyTorch's `torch.utils.dlpack.from_dlpack` takes it in a `"dltensor"` capsule). The
    /// memory is shared, not copied; the consumer owns the returned pointer and calls its
    /// deleter once.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on wgpu; device errors while synchronizing.
    pub fn to_dlpack(&self) -> Result<*mut DLManagedTensor> {
        let (tensor, ctx) = self.export()?;
        let managed = Box::new(DLManagedTensor {
            dl_tensor: tensor,
            manager_ctx: Box::into_raw(ctx) as *mut c_void,
            deleter: Some(delete_managed),
        });
        Ok(Box::into_raw(managed))
    }

    /// Exports this array as a `DLManagedTensorVersioned` (DLPack 1.0, flags 0: writable, not a
    /// copy). As [`Array::to_dlpack`] otherwise.
    ///
    /// # Errors
    /// As [`Array::to_dlpack`].
    pub fn to_dlpack_versioned(&self) -> Result<*mut DLManagedTensorVersioned> {
        let (tensor, ctx) = self.export()?;
        let managed = Box::new(DLManagedTensorVersioned {
            version: ffi::VERSION,
            manager_ctx: Box::into_raw(ctx) as *mut c_void,
            deleter: Some(delete_versioned),
            flags: 0,
            dl_tensor: tensor,
        });
        Ok(Box::into_raw(managed))
    }

    fn export(&self) -> Result<(DLTensor, Box<Exported>)> {
        let device = self.dlpack_device()?;
        let base = self.buffer().address().ok_or_else(|| Error::Unsupported {
            op: "to_dlpack".into(),
            backend: self.device().label(),
            reason: "the buffer has no address".into(),
        })?;
        self.device().synchronize()?;
        let l = self.layout();
        let mut ctx = Box::new(Exported {
            _array: self.clone(),
            shape: l.shape.iter().map(|&d| d as i64).collect(),
            strides: l.strides.iter().map(|&s| s as i64).collect(),
        });
        let data = if self.size() == 0 {
            std::ptr::null_mut()
        } else {
            (base + (l.offset * self.dtype().itemsize()) as u64) as *mut c_void
        };
        let tensor = DLTensor {
            data,
            device,
            ndim: l.ndim() as i32,
            dtype: dlpack_dtype(self.dtype()),
            shape: ctx.shape.as_mut_ptr(),
            strides: ctx.strides.as_mut_ptr(),
            byte_offset: 0,
        };
        Ok((tensor, ctx))
    }
}

unsafe extern "C" fn delete_managed(p: *mut DLManagedTensor) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` came from `Box::into_raw` in `to_dlpack`, its context likewise; the
    // consumer calls the deleter once.
    unsafe {
        let m = Box::from_raw(p);
        drop(Box::from_raw(m.manager_ctx as *mut Exported));
    }
}

unsafe extern "C" fn delete_versioned(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY: as `delete_managed`, for `to_dlpack_versioned`.
    unsafe {
        let m = Box::from_raw(p);
        drop(Box::from_raw(m.manager_ctx as *mut Exported));
    }
}

/// A foreign tensor: its deleter runs when the wrapping buffer drops, once the import
/// succeeded (`armed`; an import that fails leaves the tensor to its caller).
struct Consumed {
    tensor: Tensor,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[derive(Clone, Copy)]
enum Tensor {
    Legacy(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

// SAFETY: the pointer is only used once, to call the producer's deleter, which DLPack allows
// from any thread.
unsafe impl Send for Consumed {}
// SAFETY: as above; no shared access happens through it.
unsafe impl Sync for Consumed {}

impl Drop for Consumed {
    fn drop(&mut self) {
        if !self.armed.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        // SAFETY: the producer's deleter, called once, on the pointer it handed out.
        unsafe {
            match self.tensor {
                Tensor::Legacy(p) => {
                    if let Some(d) = (*p).deleter {
                        d(p)
                    }
                }
                Tensor::Versioned(p) => {
                    if let Some(d) = (*p).deleter {
                        d(p)
                    }
                }
            }
        }
    }
}

/// Wraps a foreign `DLManagedTensor` as an array without copying (`cupy.from_dlpack`). The
/// array (and every view of it) shares the tensor's memory; the tensor's deleter runs when the
/// last of them drops. On `Err` the tensor is not consumed: the caller still owns it.
///
/// # Safety
/// `tensor` must be a valid `DLManagedTensor` that nobody else consumes; its memory must stay
/// valid until the deleter is called and must not be written by others while arrays use it;
/// the producer's work on it must be complete (see the module docs).
///
/// # Errors
/// [`Error::InvalidArgument`] for a null pointer, a type cupy-rs lacks, a bad shape or
/// strides, a misaligned address; [`Error::Unsupported`] for a device type no backend takes;
/// the device's errors when it cannot be opened.
pub unsafe fn from_dlpack(tensor: *mut DLManagedTensor) -> Result<Array> {
    if tensor.is_null() {
        return Err(Error::invalid("from_dlpack", "null DLManagedTensor"));
    }
    // SAFETY: the caller's contract: a valid tensor.
    let t = unsafe { &(*tensor).dl_tensor };
    // SAFETY: as above.
    unsafe { wrap(t, Tensor::Legacy(tensor)) }
}

/// As [`from_dlpack`] for a `DLManagedTensorVersioned` (DLPack 1.x). A read-only tensor
/// (`FLAG_READ_ONLY`) is refused, since cupy-rs arrays are always writable.
///
/// # Safety
/// As [`from_dlpack`].
///
/// # Errors
/// As [`from_dlpack`]; a major version other than 1; the read-only flag.
pub unsafe fn from_dlpack_versioned(tensor: *mut DLManagedTensorVersioned) -> Result<Array> {
    if tensor.is_null() {
        return Err(Error::invalid(
            "from_dlpack",
            "null DLManagedTensorVersioned",
        ));
    }
    // SAFETY: the caller's contract: a valid tensor.
    let m = unsafe { &*tensor };
    if m.version.major != ffi::VERSION.major {
        return Err(Error::invalid(
            "from_dlpack",
            format!(
                "DLPack version {}.{}: this build reads major version {}",
                m.version.major,
                m.version.minor,
                ffi::VERSION.major
            ),
        ));
    }
    if m.flags & ffi::FLAG_READ_ONLY != 0 {
        return Err(Error::invalid(
            "from_dlpack",
            "the tensor is read-only and cupy-rs arrays are writable (copy it first)",
        ));
    }
    // SAFETY: as above.
    unsafe { wrap(&m.dl_tensor, Tensor::Versioned(tensor)) }
}

/// The backend and device index that hold a DLPack device's memory.
fn device_of(d: DLDevice) -> Result<Device> {
    let kind = match d.device_type {
        ffi::DL_CPU | ffi::DL_CUDA_HOST | ffi::DL_ROCM_HOST => return Device::get(BackendKind::Cpu, 0),
        ffi::DL_CUDA | ffi::DL_CUDA_MANAGED => BackendKind::Cuda,
        ffi::DL_ROCM => BackendKind::Hip,
        other => {
            return Err(Error::Unsupported {
                op: "from_dlpack".into(),
                backend: format!("DLPack device type {other}"),
                reason: "cupy-rs takes kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged, kDLROCM and kDLROCMHost"
                    .into(),
            })
        }
    };
    let index = usize::try_from(d.device_id)
        .map_err(|_| Error::invalid("from_dlpack", format!("device id {}", d.device_id)))?;
    Device::get(kind, index)
}

/// The view a `DLTensor` describes, wrapped in place; `owner` runs the deleter later.
///
/// # Safety
/// `t` is valid (see [`from_dlpack`]).
unsafe fn wrap(t: &DLTensor, tensor: Tensor) -> Result<Array> {
    let dtype = dtype_of(t.dtype)?;
    let ndim = usize::try_from(t.ndim)
        .map_err(|_| Error::invalid("from_dlpack", format!("ndim {}", t.ndim)))?;
    cupy_core::layout::check_ndim("from_dlpack", ndim)?;
    if ndim > 0 && t.shape.is_null() {
        return Err(Error::invalid(
            "from_dlpack",
            format!("ndim {ndim} with a null shape"),
        ));
    }
    // SAFETY: `shape` (and `strides` when not null) hold `ndim` values (the caller's contract).
    let shape_raw: &[i64] = if ndim == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(t.shape, ndim) }
    };
    let shape = shape_raw
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| {
            Error::invalid(
                "from_dlpack",
                format!("negative extent in shape {shape_raw:?}"),
            )
        })?;
    let size = cupy_core::layout::checked_size("from_dlpack", &shape, dtype.itemsize())?;
    let strides: Vec<i64> = if t.strides.is_null() || ndim == 0 {
        cupy_core::layout::contiguous_strides(&shape)
            .iter()
            .map(|&s| s as i64)
            .collect()
    } else {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(t.strides, ndim) }.to_vec()
    };
    // Lowest and highest element the view touches, relative to element 0.
    let (mut lo, mut hi) = (0i128, 0i128);
    if size > 0 {
        for (&d, &s) in shape.iter().zip(&strides) {
            let span = (d as i128 - 1) * s as i128;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
    }
    let item = dtype.itemsize() as i128;
    let len = if size == 0 { 0 } else { hi - lo + 1 };
    let too_big = || {
        Error::invalid(
            "from_dlpack",
            format!("shape {shape:?} with strides {strides:?} spans too much memory"),
        )
    };
    let len = usize::try_from(len).map_err(|_| too_big())?;
    len.checked_mul(dtype.itemsize()).ok_or_else(too_big)?;
    let first = t.data as u64 as i128 + t.byte_offset as i128 + lo * item;
    let address = u64::try_from(if size == 0 { 0 } else { first }).map_err(|_| too_big())?;
    if size > 0 && t.data.is_null() {
        return Err(Error::invalid(
            "from_dlpack",
            "null data pointer with elements",
        ));
    }
    let device = device_of(t.device)?;
    device
        .backend()
        .supports_dtype(dtype)
        .map_err(|reason| Error::DTypeNotSupported {
            op: "from_dlpack".into(),
            dtype,
            device: device.label(),
            reason,
        })?;
    cupy_core::backend::check_external_alignment(address, dtype)?;
    let armed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let owner = Consumed {
        tensor,
        armed: armed.clone(),
    };
    // SAFETY: the caller's contract: `len` elements at `address` on that device, valid until
    // the deleter (owned by the buffer) runs.
    let buffer = unsafe {
        device
            .backend()
            .wrap_external(address, dtype, len, Box::new(owner))?
    };
    let layout = Layout {
        shape,
        strides: strides.iter().map(|&s| s as isize).collect(),
        offset: (-lo) as usize,
    };
    let a = Array::from_parts(device, buffer, layout)?;
    armed.store(true, std::sync::atomic::Ordering::SeqCst);
    Ok(a)
}
