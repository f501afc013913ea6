//! Memory that cupy-rs does not own, wrapped without a copy (CuPy's `cupy.cuda.UnownedMemory`
//! with `cupy.ndarray(shape, dtype, memptr)`), and the address of an array's data
//! (`a.data.ptr`).

use crate::{Array, Device, Error, Result};
use cupy_core::layout::{checked_size, Layout};
use cupy_core::{DType, Element};
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
routine!(
    "numpy.ndarray views (zero-copy)",
    Transfer,
    notes: "Array::from_ndarray_owned (cpu: no copy), unsafe as_ndarray_view (cpu); other backends copy"
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
        if cupy_core::backend::check_external_alignment(address, dtype).is_err() {
            return Err(Error::invalid(
                "from_external",
                format!("address {address:#x} is not aligned for {dtype} (on {device})"),
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

impl Array {
    /// Moves an owned `ndarray` array onto `device`: on the cpu backend its buffer becomes the
    /// array's without a copy when it is in standard (C-contiguous) layout; elsewhere, or for
    /// another layout, the data are copied ([`Array::from_ndarray_on`]).
    ///
    /// # Errors
    /// Dtypes the device lacks; device errors while copying.
    pub fn from_ndarray_owned<T: Element, D: ndarray::Dimension + 'static>(
        device: &Device,
        a: ndarray::Array<T, D>,
    ) -> Result<Array> {
        if device.kind() != cupy_core::BackendKind::Cpu || !a.is_standard_layout() {
            return Array::from_ndarray_on(device, &a);
        }
        let shape = a.shape().to_vec();
        let address = a.as_ptr() as u64;
        // SAFETY: a standard-layout ndarray holds its `len` elements contiguously from
        // `as_ptr()` in host memory, aligned for `T`; moving it into the owner keeps its heap
        // buffer in place and alive as long as the array, and nothing else can reach it.
        unsafe { Array::from_external(device, address, &shape, T::DTYPE, a) }
    }

    /// A borrowed `ndarray` view of this array's elements, without a copy (cpu backend only:
    /// other backends' memory is not host memory; [`Array::to_ndarray`] copies from any).
    ///
    /// # Safety
    /// Nothing may write the array's buffer (through this array, a view of it, or an op's
    /// `out=`) while the view lives: the view is a shared Rust reference to that memory.
    ///
    /// # Errors
    /// [`Error::Unsupported`] off the cpu backend; [`Error::InvalidArgument`] when `T` is not
    /// the array's dtype.
    pub unsafe fn as_ndarray_view<T: Element>(&self) -> Result<ndarray::ArrayViewD<'_, T>> {
        if self.device().kind() != cupy_core::BackendKind::Cpu {
            return Err(Error::Unsupported {
                op: "as_ndarray_view".into(),
                backend: self.device().label(),
                reason: "the array is in device memory; to_ndarray copies it to the host".into(),
            });
        }
        if T::DTYPE != self.dtype() {
            return Err(Error::invalid(
                "as_ndarray_view",
                format!("the array's dtype is {}, not {}", self.dtype(), T::DTYPE),
            ));
        }
        // Queued work on the buffer finishes first (the cpu backend runs work as it is queued,
        // but a stream's ordering waits are honoured the same way).
        crate::cuda::order::order(self.device(), &[self.buffer()], &[])?;
        let first = self.data_ptr()? as *const T;
        let (dims, strides) = (self.shape(), &self.layout().strides);
        if dims.contains(&0) {
            return Ok(
                ndarray::ArrayViewD::from_shape(ndarray::IxDyn(dims), &[]).expect("an empty view")
            );
        }
        // ndarray takes non-negative strides: start at the lowest address, then reverse the
        // axes that run backwards.
        let mut low = 0isize;
        for (&n, &st) in dims.iter().zip(strides) {
            if st < 0 {
                low += (n as isize - 1) * st;
            }
        }
        let abs: Vec<usize> = strides.iter().map(|s| s.unsigned_abs()).collect();
        let shape = ndarray::ShapeBuilder::strides(ndarray::IxDyn(dims), ndarray::IxDyn(&abs));
        // SAFETY: the layout was checked to address elements inside the buffer when the array
        // was made, so every element reached from the lowest one with these strides is in it;
        // the caller's contract excludes writers while the view lives.
        let mut view = unsafe { ndarray::ArrayViewD::from_shape_ptr(shape, first.offset(low)) };
        for (i, &st) in strides.iter().enumerate() {
            if st < 0 {
                view.invert_axis(ndarray::Axis(i));
            }
        }
        Ok(view)
    }
}
