//! Memory that cupy-rs does not own, wrapped without a copy (CuPy's `cupy.cuda.UnownedMemory`
//! with `cupy.ndarray(shape, dtype, memptr)`), and the address of an array's data
//! (`a.data.ptr`).

use crate::{Array, Device, Error, Result};
use cupy_core::layout::{checked_size, Layout};
use cupy_core::DType;
use std::any::Any;

routine!(
    "cupy.cuda.UnownedMemory",
    Transfer,
    probe: crate::dlpack::probe,
    notes: "unsafe Array::from_external(device, address, shape, dtype, owner): no copy"
);
routine!(
    "cupy.ndarray.data.ptr",
    Transfer,
    probe: crate::dlpack::probe,
    notes: "Array::data_ptr"
);

impl Array {
    /// Wraps `shape` elements of `dtype` at `address` as a C-contiguous array on `device`,
    /// without a copy. `owner` is kept alive as long as any array (or view) uses the memory and
    /// dropped after the device finished its queued work on it: pass what owns the memory (a
    /// cudarc `CudaSlice`, a `Vec`, a guard that frees it), or `()` if it outlives every use.
    ///
    /// With cudarc: `let (ptr, _sync) = slice.device_ptr(&stream);` then
    /// `Array::from_external(&dev, ptr, &[n], DType::Float32, slice)` (the slice moves into the
    /// array; cudarc's primary context is the one the cuda backend uses for that device index).
    ///
    /// # Safety
    /// `address` must point to `size * itemsize` bytes that `device` can read and write
    /// (device memory of its context on cuda and hip, host memory on the cpu), valid until
    /// `owner` drops, and not used by anyone else while cupy-rs uses it (cupy-rs does not order
    /// its streams against foreign work: finish that work first).
    ///
    /// # Errors
    /// [`Error::Unsupported`] on wgpu (its buffers have no address); [`Error::InvalidArgument`]
    /// for a misaligned or null address or a size that overflows; dtypes the device lacks.
    pub unsafe fn from_external(
        device: &Device,
        address: u64,
        shape: &[usize],
        dtype: DType,
        owner: impl Any + Send + Sync,
    ) -> Result<Array> {
        let len = checked_size("from_external", shape, dtype.itemsize())?;
        if address == 0 && len > 0 {
            return Err(Error::invalid(
                "from_external",
                format!("a null address for {shape:?} {dtype} on {device}"),
            ));
        }
        // SAFETY: the caller's contract, passed on.
        let buffer = unsafe {
            device
                .backend()
                .wrap_external(address, dtype, len, Box::new(owner))
        }
        .map_err(|e| match e {
            Error::Unsupported { backend, .. } => Error::Unsupported {
                op: "from_external".into(),
                backend,
                reason: "this backend's buffers have no address (wgpu)".into(),
            },
            other => other,
        })?;
        Array::from_parts(device.clone(), buffer, Layout::contiguous(shape))
    }

    /// The address of element `[0, 0, ...]` (`a.data.ptr` in CuPy): a device address on cuda and
    /// hip, a host address on the cpu. Valid while this array (or a view of its buffer) lives;
    /// queued work on it may still be running (synchronize before foreign code touches it).
    ///
    /// # Errors
    /// [`Error::Unsupported`] on wgpu, whose buffers have no address.
    pub fn data_ptr(&self) -> Result<u64> {
        let base = self.buffer().address().ok_or_else(|| Error::Unsupported {
            op: "data_ptr".into(),
            backend: self.device().label(),
            reason: "this backend's buffers have no address (wgpu)".into(),
        })?;
        Ok(base + (self.layout().offset * self.dtype().itemsize()) as u64)
    }
}
