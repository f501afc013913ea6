//! Device memory: raw handles, the caching allocator's HIP calls and [`HipBuffer`].

use super::*;

/// A raw HIP handle (stream, module, function, rocBLAS handle) that we only use under the
/// backend's rules (HIP handles are usable from any host thread).
#[derive(Clone, Copy, Debug)]
pub struct Handle(pub(crate) *mut c_void);
// SAFETY: HIP streams, modules, functions and rocBLAS handles are thread-safe objects of the
// runtime; we serialise use where ordering matters (streams, events, mutex-guarded submission).
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

/// The HIP driver calls of the caching allocator (shared logic: [`cupy_core::gpu::pool`];
/// freed blocks are reused by later allocations on the same stream, ordered after their use).
pub(crate) struct HipPoolDriver {
    pub(crate) hip: Arc<Hip>,
    pub(crate) dev: i32,
    /// The backend's stream while it lives (`None` once destroyed).
    pub(crate) stream: Mutex<Option<Handle>>,
}

impl PoolDriver for HipPoolDriver {
    fn malloc(&self, bytes: usize) -> std::result::Result<u64, AllocFailure> {
        let _ = self.hip.set_device(self.dev);
        self.hip.malloc(bytes).map_err(|e| AllocFailure {
            out_of_memory: e.code == h::hipErrorOutOfMemory,
            message: e.to_string(),
        })
    }

    unsafe fn free(&self, ptr: u64) {
        let _ = self.hip.set_device(self.dev);
        // SAFETY: the caller's contract (an unused block from hipMalloc, stream drained).
        let _ = unsafe { self.hip.free(ptr) };
    }

    fn synchronize(&self) {
        let _ = self.hip.set_device(self.dev);
        // Every stream of the device (blocks are cached per stream).
        // SAFETY: plain call.
        let _ = unsafe { (self.hip.api.hipDeviceSynchronize)() };
    }

    fn mem_info(&self) -> Option<(usize, usize)> {
        let _ = self.hip.set_device(self.dev);
        self.hip
            .mem_info()
            .ok()
            .map(|(f, t)| (f as usize, t as usize))
    }
}

/// The caching allocator of one device.
pub(crate) struct Pool {
    pub(crate) inner: CachingPool<HipPoolDriver>,
    pub(crate) label: String,
}

impl Pool {
    /// A block of at least `bytes` bytes for work on stream `tag` (0: the default stream):
    /// `(address, size class)`.
    pub(crate) fn alloc_on(&self, tag: u64, bytes: usize) -> Result<(u64, usize)> {
        let class = size_class(bytes);
        match self.inner.take_on(tag, class) {
            Ok(p) => Ok((p, class)),
            Err(e) if e.out_of_memory => Err(Error::OutOfMemory {
                device: self.label.clone(),
                requested: bytes,
                detail: e.detail,
            }),
            Err(e) => Err(Error::Backend {
                backend: self.label.clone(),
                msg: e.detail,
            }),
        }
    }

    fn release(&self, tag: u64, p: u64, size: usize) {
        self.inner.give_on(tag, p, size);
    }

    /// Frees every cached block (after the stream drains, so no queued work uses them).
    pub(crate) fn empty_cache(&self) {
        self.inner.trim();
    }

    pub(crate) fn stream(&self) -> &Mutex<Option<Handle>> {
        &self.inner.driver().stream
    }
}

/// A device allocation of the HIP backend.
pub struct HipBuffer {
    pub(crate) ptr: u64,
    /// The pool's tag of the stream it was allocated on (0: the default stream).
    pub(crate) stream: u64,
    pub(crate) len: usize,
    pub(crate) dtype: DType,
    pub(crate) bytes: usize,
    pub(crate) pool: Arc<Pool>,
    /// Foreign memory (`wrap_external`, `bytes == 0`): its owner's guard, dropped with the
    /// buffer.
    pub(crate) external: Option<cupy_core::KeepAlive>,
}

impl fmt::Debug for HipBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HipBuffer({} x {}, {:#x} on {})",
            self.len, self.dtype, self.ptr, self.pool.label
        )
    }
}

impl HipBuffer {
    /// Device address of element `k`.
    pub fn addr(&self, k: usize) -> u64 {
        self.ptr + (k * self.dtype.itemsize()) as u64
    }
}

impl Drop for HipBuffer {
    fn drop(&mut self) {
        if self.external.is_some() {
            // Queued work may still use the foreign memory: drain before its owner frees it.
            cupy_core::gpu::pool::PoolDriver::synchronize(self.pool.inner.driver());
            self.external = None;
            return;
        }
        if self.bytes > 0 {
            self.pool.release(self.stream, self.ptr, self.bytes);
        }
    }
}

impl DeviceBuffer for HipBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn address(&self) -> Option<u64> {
        Some(self.ptr)
    }
}

/// Pinned host memory and asynchronous copies on the current stream (the frontend's pinned
/// memory pool; `hipHostMalloc`, `hipMemcpyAsync`).
impl HipBackend {
    pub(crate) fn pinned_alloc_impl(&self, bytes: usize) -> Result<Option<u64>> {
        self.current()?;
        self.hip
            .host_malloc(bytes.max(1))
            .map(Some)
            .map_err(|e| Error::OutOfMemory {
                device: self.info.label(),
                requested: bytes,
                detail: format!("pinned host memory: {e}"),
            })
    }

    /// # Safety
    /// As [`cupy_core::Backend::pinned_free`].
    pub(crate) unsafe fn pinned_free_impl(&self, address: u64) {
        let _ = self.current();
        // SAFETY: the caller's contract.
        let _ = unsafe { self.hip.host_free(address) };
    }

    /// The device address of `bytes` bytes from element `offset` of `b`, checked.
    fn async_range(&self, op: &str, b: &Buffer, offset: usize, bytes: usize) -> Result<u64> {
        let h = self.buf(op, b)?;
        let item = h.dtype.itemsize();
        if !bytes.is_multiple_of(item) || offset.checked_add(bytes / item).is_none_or(|e| e > h.len)
        {
            return Err(Error::invalid(
                op,
                format!(
                    "{bytes} bytes at element {offset} do not fit a buffer of {} x {}",
                    h.len, h.dtype
                ),
            ));
        }
        Ok(h.addr(offset))
    }

    /// # Safety
    /// As [`cupy_core::Backend::write_async`].
    pub(crate) unsafe fn write_async_impl(
        &self,
        dst: &Buffer,
        offset: usize,
        src: *const u8,
        bytes: usize,
    ) -> Result<()> {
        let to = self.async_range("write_async", dst, offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        self.current()?;
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: range checked; the caller keeps `src` valid and unchanged until the stream is
        // done.
        let data = unsafe { std::slice::from_raw_parts(src, bytes) };
        unsafe { self.hip.htod_async(to, data, self.cur_stream()) }.map_err(|e| self.err(e))
    }

    /// # Safety
    /// As [`cupy_core::Backend::read_async`].
    pub(crate) unsafe fn read_async_impl(
        &self,
        src: &Buffer,
        offset: usize,
        dst: *mut u8,
        bytes: usize,
    ) -> Result<()> {
        let from = self.async_range("read_async", src, offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        self.current()?;
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: range checked; the caller keeps `dst` valid and untouched until the stream is
        // done.
        let out = unsafe { std::slice::from_raw_parts_mut(dst, bytes) };
        unsafe { self.hip.dtoh_async(out, from, self.cur_stream()) }.map_err(|e| self.err(e))
    }
}
