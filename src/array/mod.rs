//! [`Array`]: an n-dimensional view of a device buffer (`cupy.ndarray`).

mod fmt;
pub mod index;
mod operators;

use crate::device::Device;
use cupy_core::backend::Buffer;
use cupy_core::dtype::{DType, Element};
use cupy_core::error::{Error, Result};
use cupy_core::layout::{shape_size, Layout};
use cupy_core::scalar::Scalar;

/// Why a capturing stream refuses host-to-device copies.
const HOST_COPY: &str = "a copy from host memory is not captured (CUDA would replay whatever the \
                         staging buffer holds then); create the array before the capture";

/// An n-dimensional array on a device: a dtype, a [`Layout`] (shape, element strides, offset) and
/// a shared device buffer (`cupy.ndarray`).
///
/// Views (`reshape` when possible, `transpose`, `slice`, `broadcast_to`) share the buffer, so
/// they cost no copy; `clone()` is also a view (a new handle to the same elements). `copy()`
/// makes an independent array. Operators and ufuncs return `Result` (as candle does):
/// `let z = (&x + &y)?;`.
#[derive(Clone)]
pub struct Array {
    pub(crate) dtype: DType,
    pub(crate) layout: Layout,
    pub(crate) buffer: Buffer,
    pub(crate) device: Device,
}

impl Array {
    /// Assembles an array from parts (used by backends' tests and the frontend).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the layout addresses elements outside the buffer or the
    /// buffer's dtype differs.
    pub fn from_parts(device: Device, buffer: Buffer, layout: Layout) -> Result<Array> {
        cupy_core::layout::check_ndim("array", layout.ndim())?;
        let dtype = buffer.dtype();
        let (lo, hi) = layout.extent();
        if layout.size() > 0 && (lo < 0 || hi as usize > buffer.len()) {
            return Err(Error::invalid(
                "array",
                format!(
                    "layout {layout:?} addresses elements outside a buffer of {} elements",
                    buffer.len()
                ),
            ));
        }
        Ok(Array {
            dtype,
            layout,
            buffer: crate::cuda::order::track(&device, buffer),
            device,
        })
    }

    /// Allocates an uninitialized contiguous array (`cupy.empty`) on `device`.
    ///
    /// # Errors
    /// [`Error::DTypeNotSupported`] if the device cannot hold `dtype`; [`Error::OutOfMemory`].
    pub fn empty_on(device: &Device, shape: &[usize], dtype: DType) -> Result<Array> {
        check_dtype(device, "empty", dtype)?;
        let n = cupy_core::layout::checked_size("empty", shape, dtype.itemsize())?;
        let buffer = match crate::memory::allocate_from_user(device, dtype, n)? {
            Some(b) => b,
            None => device.backend().alloc(dtype, n)?,
        };
        let buffer = crate::cuda::order::track(device, buffer);
        Ok(Array {
            dtype,
            layout: Layout::contiguous(shape),
            buffer,
            device: device.clone(),
        })
    }

    /// Copies a host slice into a new array of `shape` (`cupy.asarray` of a NumPy array).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `data.len()` differs from the shape's size; device errors.
    pub fn from_slice_on<T: Element>(
        device: &Device,
        data: &[T],
        shape: &[usize],
    ) -> Result<Array> {
        if data.len() != shape_size(shape) {
            return Err(Error::invalid(
                "from_slice",
                format!(
                    "{} elements cannot fill shape {shape:?} ({} elements)",
                    data.len(),
                    shape_size(shape)
                ),
            ));
        }
        crate::cuda::graph::refuse(device, "from_slice (a host-to-device copy)", HOST_COPY)?;
        let a = Array::empty_on(device, shape, T::DTYPE)?;
        if !data.is_empty() {
            crate::cuda::order::order(device, &[], &[&a.buffer])?;
            device
                .backend()
                .write(&a.buffer, 0, T::slice_as_bytes(data))?;
        }
        Ok(a)
    }

    /// Copies NumPy-format bytes of `dtype` into a new array of `shape`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the byte count does not match; device errors.
    pub fn from_bytes_on(
        device: &Device,
        bytes: &[u8],
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        if bytes.len() != shape_size(shape) * dtype.itemsize() {
            return Err(Error::invalid(
                "frombuffer",
                format!(
                    "{} bytes do not hold shape {shape:?} of {dtype}",
                    bytes.len()
                ),
            ));
        }
        crate::cuda::graph::refuse(device, "frombuffer (a host-to-device copy)", HOST_COPY)?;
        let a = Array::empty_on(device, shape, dtype)?;
        if !bytes.is_empty() {
            crate::cuda::order::order(device, &[], &[&a.buffer])?;
            device.backend().write(&a.buffer, 0, bytes)?;
        }
        Ok(a)
    }

    /// Copies an `ndarray` array to `device` (any memory order; the result is C-contiguous).
    ///
    /// # Errors
    /// Device errors.
    pub fn from_ndarray_on<T: Element, S: ndarray::Data<Elem = T>, D: ndarray::Dimension>(
        device: &Device,
        a: &ndarray::ArrayBase<S, D>,
    ) -> Result<Array> {
        if let Some(data) = a.as_slice() {
            // C-contiguous: written straight from the caller's memory.
            return Array::from_slice_on(device, data, a.shape());
        }
        let data: Vec<T> = a.iter().copied().collect();
        Array::from_slice_on(device, &data, a.shape())
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    /// Strides in *bytes*, as NumPy reports them.
    pub fn strides(&self) -> Vec<isize> {
        self.layout
            .strides
            .iter()
            .map(|s| s * self.dtype.itemsize() as isize)
            .collect()
    }
    /// The layout (element strides and offset).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// Bytes the elements occupy (`size * itemsize`).
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.itemsize()
    }
    /// The device holding the data.
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// The underlying buffer (shared by views).
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }
    /// True if C-contiguous.
    pub fn is_c_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// True if both arrays view the same buffer.
    pub fn shares_memory_with(&self, other: &Array) -> bool {
        std::sync::Arc::ptr_eq(&self.buffer, &other.buffer)
    }

    pub(crate) fn with_layout(&self, layout: Layout) -> Array {
        Array {
            dtype: self.dtype,
            layout,
            buffer: self.buffer.clone(),
            device: self.device.clone(),
        }
    }

    /// Reads the elements to the host in C order as `T` (`cupy.asnumpy(a).ravel().tolist()`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `T` is not the array's dtype (`"to_vec::<f32>: the array's
    /// dtype is float64; use astype(float32) first or to_vec::<f64>"`); device errors.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype {
            return Err(download_mismatch("to_vec", T::DTYPE, self.dtype));
        }
        let n = self.size();
        if T::DTYPE == DType::Bool || std::mem::size_of::<T>() != T::DTYPE.itemsize() {
            // bool has invalid bit patterns: read bytes and convert.
            return Ok(T::vec_from_bytes(&self.to_bytes()?));
        }
        // One host allocation (zeroed pages come lazily from the OS), filled by one device read.
        let mut v = zeroed_vec::<T>(n)?;
        // SAFETY: every `Element` except bool (handled above) is plain old data (integers,
        // floats, half types, `Complex<f32|f64>`) whose every bit pattern is valid, and the
        // slice covers exactly the vector's initialised elements.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>())
        };
        self.read_bytes_into(bytes)?;
        Ok(v)
    }

    /// Reads the elements to the host in C order as NumPy-format bytes.
    ///
    /// # Errors
    /// Device errors.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = zeroed_vec::<u8>(self.nbytes())?;
        self.read_bytes_into(&mut v)?;
        Ok(v)
    }

    /// Reads the elements in C order into `dst` (`nbytes()` bytes) with one device read.
    fn read_bytes_into(&self, dst: &mut [u8]) -> Result<()> {
        if self.size() == 0 {
            return Ok(());
        }
        crate::cuda::graph::refuse(
            &self.device,
            "reading an array to the host (to_vec, item, a mask's count, an index bounds check)",
            crate::cuda::graph::WAITS,
        )?;
        if self.is_c_contiguous() {
            crate::cuda::order::order(&self.device, &[&self.buffer], &[])?;
            return self
                .device
                .backend()
                .read_into(&self.buffer, self.layout.offset, dst);
        }
        let c = self.copy()?;
        crate::cuda::order::order(&c.device, &[&c.buffer], &[])?;
        c.device.backend().read_into(&c.buffer, 0, dst)
    }

    /// Reads the elements as typed scalars in C order.
    ///
    /// # Errors
    /// Device errors.
    pub fn to_scalars(&self) -> Result<Vec<Scalar>> {
        let b = self.to_bytes()?;
        let n = self.dtype.itemsize();
        Ok(b.chunks_exact(n)
            .map(|c| Scalar::from_le_bytes(self.dtype, c))
            .collect())
    }

    /// The single element of a size-1 array (`a.item()`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless the array has exactly one element.
    pub fn item(&self) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::invalid(
                "item",
                format!("can only convert an array of size 1, not {}", self.size()),
            ));
        }
        Ok(self.to_scalars()?[0])
    }

    /// Copies to an `ndarray::ArrayD<T>` on the host.
    ///
    /// # Errors
    /// As [`Array::to_vec`].
    pub fn to_ndarray<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        if T::DTYPE != self.dtype {
            return Err(download_mismatch("to_ndarray", T::DTYPE, self.dtype));
        }
        let v = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v)
            .map_err(|e| Error::invalid("to_ndarray", e.to_string()))
    }

    /// Moves (copies) the array to another device or backend (`cupy.asarray` under another
    /// device). A no-op view if already there.
    ///
    /// # Errors
    /// Device errors on either side; [`Error::DTypeNotSupported`] if the target cannot hold the dtype.
    pub fn to_device(&self, device: &Device) -> Result<Array> {
        if &self.device == device {
            return Ok(self.clone());
        }
        if self.device.kind() == device.kind() {
            if let Some(a) = self.peer_copy(device)? {
                return Ok(a);
            }
        }
        Array::from_bytes_on(device, &self.to_bytes()?, self.shape(), self.dtype)
    }

    /// `to_device` between two devices of one backend family without a host round trip, where
    /// the backend has a peer path ([`cupy_core::Backend::copy_from_peer`]: cuda's
    /// `cuMemcpyPeer`, with peer access enabled where the hardware has it); `None` otherwise.
    fn peer_copy(&self, device: &Device) -> Result<Option<Array>> {
        check_dtype(device, "to_device", self.dtype)?;
        // A copy of 0 bytes asks whether the backend has the path.
        let be = device.backend();
        let src_be = self.device.backend().as_ref();
        if !be.copy_from_peer(src_be, &self.buffer, 0, &self.buffer, 0, 0)? {
            return Ok(None);
        }
        let src = if self.layout.is_c_contiguous() {
            self.clone()
        } else {
            self.copy()?
        };
        let out = Array::empty_on(device, self.shape(), self.dtype)?;
        let bytes = self.size() * self.dtype.itemsize();
        // The source's queued writes finish first (its device's current stream).
        let s = crate::cuda::get_current_stream_on(&src.device);
        src.device.backend().stream_synchronize(s.native())?;
        crate::cuda::order::order(device, &[], &[&out.buffer])?;
        let isz = self.dtype.itemsize();
        let copied = device.backend().copy_from_peer(
            src.device.backend().as_ref(),
            &src.buffer,
            src.layout.offset * isz,
            &out.buffer,
            0,
            bytes,
        )?;
        Ok(copied.then_some(out))
    }
}

/// The Rust element type of a dtype, as a reader writes it in `to_vec::<T>()`.
pub(crate) fn rust_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "i8",
        DType::Int16 => "i16",
        DType::Int32 => "i32",
        DType::Int64 => "i64",
        DType::UInt8 => "u8",
        DType::UInt16 => "u16",
        DType::UInt32 => "u32",
        DType::UInt64 => "u64",
        DType::Float16 => "f16",
        DType::BFloat16 => "bf16",
        DType::Float32 => "f32",
        DType::Float64 => "f64",
        DType::Complex64 => "Complex<f32>",
        DType::Complex128 => "Complex<f64>",
    }
}

/// A download (`to_vec::<T>`, `to_ndarray::<T>`) asked for an element type other than the
/// array's dtype.
fn download_mismatch(op: &str, wanted: DType, have: DType) -> Error {
    Error::invalid(
        format!("{op}::<{}>", rust_type(wanted)),
        format!(
            "the array's dtype is {have}; use astype({wanted}) first or {op}::<{}>",
            rust_type(have)
        ),
    )
}

/// Refuses a dtype the device cannot hold, naming the op.
pub(crate) fn check_dtype(device: &Device, op: &str, dtype: DType) -> Result<()> {
    device
        .backend()
        .supports_dtype(dtype)
        .map_err(|reason| Error::DTypeNotSupported {
            op: op.into(),
            dtype,
            device: device.label(),
            reason,
        })
}

/// Checks that all arrays live on one device.
pub(crate) fn same_device<'a>(
    op: &str,
    arrays: impl IntoIterator<Item = &'a Array>,
) -> Result<Device> {
    let mut it = arrays.into_iter();
    let first = it
        .next()
        .ok_or_else(|| Error::invalid(op, "no array operands"))?;
    for a in it {
        if a.device != first.device {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: first.device.label(),
                rhs: a.device.label(),
            });
        }
    }
    Ok(first.device.clone())
}

/// A vector of `n` zero-initialised `T` from one `alloc_zeroed` (calloc: large allocations get
/// lazily zeroed pages from the OS, so nothing is written twice).
fn zeroed_vec<T: Element>(n: usize) -> Result<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| Error::OutOfMemory {
        device: "host".into(),
        requested: usize::MAX,
        detail: format!("{n} elements of {} overflow the address space", T::DTYPE),
    })?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: non-zero size; the memory is zeroed, which is a valid value of every `Element`
    // (false, 0, +0.0); the vector takes ownership with the layout it was allocated with.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            return Err(Error::OutOfMemory {
                device: "host".into(),
                requested: layout.size(),
                detail: "allocating the host copy of an array".into(),
            });
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}
