//! Pinned (page-locked) host memory for the frontend's pinned memory pool, and asynchronous
//! copies between it and device buffers on the current stream (`cuMemHostAlloc`,
//! `cuMemcpyHtoDAsync`, `cuMemcpyDtoHAsync`): the copy engine moves the data while kernels on
//! other streams run.

use crate::{CudaBackend, CudaBuffer};
use cudarc::driver::{result, sys};
use cupy_core::{Buffer, Error, Result};

impl CudaBackend {
    pub(crate) fn pinned_alloc_impl(&self, bytes: usize) -> Result<Option<u64>> {
        self.bind()?;
        // SAFETY: a plain pinned host allocation in the bound context, usable by every context
        // (PORTABLE); its contents are unset until the caller writes them.
        match unsafe { result::malloc_host(bytes.max(1), sys::CU_MEMHOSTALLOC_PORTABLE) } {
            Ok(p) => Ok(Some(p as u64)),
            Err(e) => Err(Error::OutOfMemory {
                device: self.info.label(),
                requested: bytes,
                detail: format!("pinned host memory: cuMemHostAlloc({bytes}): {e:?}"),
            }),
        }
    }

    /// # Safety
    /// As [`cupy_core::Backend::pinned_free`].
    pub(crate) unsafe fn pinned_free_impl(&self, address: u64) {
        let _ = self.bind();
        // SAFETY: the caller's contract (our allocation, no pending copy).
        let _ = unsafe { result::free_host(address as *mut _) };
    }

    /// The device address of `bytes` bytes from element `offset` of `b`, checked.
    fn async_range(&self, b: &Buffer, offset: usize, bytes: usize, op: &str) -> Result<u64> {
        let c: &CudaBuffer = self.buf(b, op)?;
        let isz = c.dtype.itemsize();
        let len = bytes / isz;
        if !bytes.is_multiple_of(isz) || offset.checked_add(len).is_none_or(|e| e > c.len) {
            return Err(Error::invalid(
                op,
                format!(
                    "{bytes} bytes at element {offset} do not fit a buffer of {} x {}",
                    c.len, c.dtype
                ),
            ));
        }
        Ok(Self::ptr_at(c, offset))
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
        let to = self.async_range(dst, offset, bytes, "write_async")?;
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the destination range is checked; the caller keeps `src` valid and unchanged
        // until the stream's work is done.
        let data = unsafe { std::slice::from_raw_parts(src, bytes) };
        unsafe { result::memcpy_htod_async(to, data, self.cur_stream()) }
            .map_err(|e| self.err(format!("asynchronous host-to-device copy failed: {e:?}")))
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
        let from = self.async_range(src, offset, bytes, "read_async")?;
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the source range is checked; the caller keeps `dst` valid and untouched until
        // the stream's work is done.
        let out = unsafe { std::slice::from_raw_parts_mut(dst, bytes) };
        unsafe { result::memcpy_dtoh_async(out, from, self.cur_stream()) }
            .map_err(|e| self.err(format!("asynchronous device-to-host copy failed: {e:?}")))
    }
}
