//! Buffers: allocation, host <-> device transfers and the conversions between NumPy bytes and
//! storage (see the crate docs: every dtype is NumPy's bytes, bool/int8/uint8/int16/uint16/
//! float16/bfloat16 packed in `u32` words; bool is normalised to 0/1 on upload).

use crate::pool::{size_class, BufferPool};
use crate::WgpuBackend;
use cupy_core::backend::{Backend, Buffer, DeviceBuffer};
use cupy_core::kernel::wgsl::{self};
use cupy_core::{DType, Error, Result};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A device allocation (see the crate docs for the storage of each dtype).
#[derive(Debug)]
pub struct WgpuBuffer {
    pub(crate) buf: wgpu::Buffer,
    pub(crate) dtype: DType,
    pub(crate) len: usize,
    pub(crate) id: u64,
    /// The size class the pool gave (bytes), and the pool it goes back to on drop.
    class: u64,
    pool: Option<Arc<BufferPool>>,
}

impl Drop for WgpuBuffer {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            // A clone is a second handle to the same buffer: the pool keeps it alive.
            pool.give(self.buf.clone(), self.class);
        }
    }
}

impl DeviceBuffer for WgpuBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Most bytes one `write_buffer` call carries.
const READ_CHUNK: u64 = 256 << 20;

/// Writes of at least this many bytes go through the write ring (staging.rs); smaller ones
/// through `write_buffer` (wgpu's own staging, no wait for a ring slot).
const UPLOAD_RING_FROM: u64 = 4 << 20;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Host NumPy bytes -> device storage words.
fn to_storage(dtype: DType, data: &[u8]) -> Vec<u8> {
    match dtype {
        DType::Bool => data.iter().map(|&b| (b != 0) as u8).collect(),
        _ => data.to_vec(),
    }
}

/// Device storage words -> host NumPy bytes, written into `dst` (one pass, no allocation).
fn from_storage_into(dtype: DType, words: &[u8], dst: &mut [u8]) {
    match dtype {
        DType::Bool => {
            for (d, &w) in dst.iter_mut().zip(words) {
                *d = (w != 0) as u8;
            }
        }
        _ => dst.copy_from_slice(&words[..dst.len()]),
    }
}

/// Whether device storage of `dtype` is its NumPy bytes (no widening, no normalising).
fn stored_as_is(dtype: DType) -> bool {
    word_bytes(dtype) == dtype.itemsize() && dtype != DType::Bool
}

pub(crate) fn word_bytes(dtype: DType) -> usize {
    wgsl::storage_bytes(dtype).unwrap_or(8)
}

impl WgpuBackend {
    pub(crate) fn check_len(&self, what: &str, len: usize) -> Result<()> {
        if len >= (1usize << 31) {
            return Err(Error::Unsupported {
                op: what.into(),
                backend: self.label(),
                reason: format!(
                    "{len} elements: the wgpu backend uses 32-bit indexing (fewer than 2^31 elements)"
                ),
            });
        }
        Ok(())
    }

    /// Reads `len` elements from element `offset` of `b` (after all queued work) and hands their
    /// storage words to `f` (small reads: the words, one copy out of the staging ring).
    pub(crate) fn read_mapped<R>(
        &self,
        b: &WgpuBuffer,
        offset: usize,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let mut v = vec![0u8; len * word_bytes(b.dtype)];
        self.read_words_into(b, offset, len, &mut v)?;
        Ok(f(&v))
    }

    /// Reads `len` elements from element `offset` of `b` (after all queued work) into `dst` as
    /// NumPy bytes (`len * itemsize` bytes), chunk by chunk through the read ring (staging.rs):
    /// the device copies the next chunks while the host copies one out.
    pub(crate) fn read_words_into(
        &self,
        b: &WgpuBuffer,
        offset: usize,
        len: usize,
        dst: &mut [u8],
    ) -> Result<()> {
        if offset.checked_add(len).is_none_or(|e| e > b.len) {
            return Err(Error::invalid(
                "read",
                format!("{len} elements at {offset} exceed a buffer of {}", b.len),
            ));
        }
        if len == 0 {
            return self.synchronize();
        }
        let wb = word_bytes(b.dtype) as u64;
        // Copies are in whole 4-byte words: packed 8/16-bit elements are cut out of them.
        let (lo, hi) = (offset as u64 * wb, (offset + len) as u64 * wb);
        let (start, end) = (lo / 4 * 4, hi.div_ceil(4) * 4);
        let dtype = b.dtype;
        self.download(&b.buf, start, end - start, &mut |bytes, at| {
            let c0 = start + at as u64;
            let c1 = c0 + bytes.len() as u64;
            let (s, e) = (c0.max(lo), c1.min(hi));
            if s < e {
                let src = &bytes[(s - c0) as usize..(e - c0) as usize];
                let out = &mut dst[(s - lo) as usize..(e - lo) as usize];
                if stored_as_is(dtype) {
                    crate::staging::par_copy(out, src);
                } else {
                    from_storage_into(dtype, src, out);
                }
            }
        })?;
        self.take_errors()?;
        self.check_guard()
    }

    pub(crate) fn alloc_words(&self, dtype: DType, len: usize) -> Result<WgpuBuffer> {
        let words = len.max(1).div_ceil(4) * 4;
        let size = (words as u64).saturating_mul(word_bytes(dtype) as u64);
        // A buffer may be larger than one storage binding: kernels bind windows of it
        // (window.rs); `max_buffer_size` is the limit.
        let max = self.limits.max_buffer_size;
        if size > max {
            return Err(Error::Unsupported {
                op: "alloc".into(),
                backend: self.label(),
                reason: format!(
                    "{len} elements of {dtype} need {size} bytes, more than one buffer holds on \
                     this adapter (max_buffer_size {max} bytes)"
                ),
            });
        }
        // Pooled by size class (a class never exceeds the buffer cap; if it would, the exact
        // size is used).
        let within = if size <= self.binding_cap {
            self.binding_cap
        } else {
            max
        };
        let class = (size_class(size as usize) as u64).min(within).max(size);
        let oom = |detail: String| Error::OutOfMemory {
            device: self.label(),
            requested: size as usize,
            detail,
        };
        let cached = self.pool.take(class).map_err(oom)?;
        let fresh = cached.is_none();
        let buf = match cached {
            Some(b) => b,
            None => match self.create_storage(class) {
                Ok(b) => b,
                Err(_) => {
                    // Out of memory: drop the cache and retry once (as the CUDA/HIP pools do).
                    let freed = self.pool.trim();
                    self.create_storage(class).map_err(|e| {
                        oom(format!("{e} (released {freed} cached bytes and retried)"))
                    })?
                }
            },
        };
        if fresh {
            self.pool.created(class);
        }
        Ok(WgpuBuffer {
            buf,
            dtype,
            len,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            class,
            pool: Some(self.pool.clone()),
        })
    }

    /// A new storage buffer of `size` bytes; `Err` with wgpu's out-of-memory report.
    fn create_storage(&self, size: u64) -> std::result::Result<wgpu::Buffer, String> {
        let guard = self.scope.lock();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let err = pollster::block_on(scope.pop());
        drop(guard);
        match err {
            Some(e) => Err(e.to_string()),
            None => Ok(buf),
        }
    }

    /// `Backend::write`: NumPy bytes into element `offset` of `dst` (queued in order).
    pub(crate) fn write_host(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let b = self.buf(dst, "write")?;
        let isz = b.dtype.itemsize();
        if data.len() / isz * isz != data.len() || offset + data.len() / isz > b.len {
            return Err(Error::invalid(
                "write",
                format!(
                    "{} bytes at element {offset} do not fit a buffer of {} {}",
                    data.len(),
                    b.len,
                    b.dtype
                ),
            ));
        }
        if data.is_empty() {
            return Ok(());
        }
        // Types stored as their NumPy bytes go to wgpu's staging copy directly; narrow types
        // are widened once (to_storage).
        let widened;
        let words = if stored_as_is(b.dtype) {
            data
        } else {
            widened = to_storage(b.dtype, data);
            &widened
        };
        let lo = offset * word_bytes(b.dtype);
        let hi = lo + words.len();
        if lo.is_multiple_of(4) && hi.is_multiple_of(4) && words.len() as u64 >= UPLOAD_RING_FROM {
            // Large writes: chunks through the write ring (staging.rs), the host's copy of
            // one overlapping the device's copies of the others.
            return self.upload(&b.buf, lo as u64, words.len() as u64, &|d, at| {
                let n = d.len();
                crate::staging::par_copy_to(d, &words[at..at + n]);
            });
        }
        if lo.is_multiple_of(4) && hi.is_multiple_of(4) {
            let mut p = self.lock_pending()?;
            self.submit_locked(&mut p);
            // In pieces of at most READ_CHUNK bytes (wgpu stages each write whole).
            for (i, part) in words.chunks(READ_CHUNK as usize).enumerate() {
                let at = lo as u64 + i as u64 * READ_CHUNK;
                self.queue.write_buffer(&b.buf, at, part);
            }
            return Ok(());
        }
        // Packed elements not on word boundaries: whole words are written, the bytes of other
        // elements in the first and last word read back first (after the queued work). Bytes
        // past the last element are padding.
        let (start, end) = (lo / 4 * 4, hi.div_ceil(4) * 4);
        let mut bytes = vec![0u8; end - start];
        let elems_end = b.len * word_bytes(b.dtype);
        let head = lo - start;
        if head > 0 {
            let w = self.read_words(b, start, 4)?;
            bytes[..4].copy_from_slice(&w);
        }
        if !hi.is_multiple_of(4) && hi < elems_end {
            let w = self.read_words(b, end - 4, 4)?;
            let n = bytes.len();
            bytes[n - 4..].copy_from_slice(&w);
        }
        bytes[head..head + words.len()].copy_from_slice(words);
        let mut p = self.lock_pending()?;
        self.submit_locked(&mut p);
        self.queue.write_buffer(&b.buf, start as u64, &bytes);
        Ok(())
    }

    /// `len` bytes at byte `start` (both multiples of 4) of `b`, after the queued work.
    fn read_words(&self, b: &WgpuBuffer, start: usize, len: usize) -> Result<Vec<u8>> {
        let wb = word_bytes(b.dtype);
        // Whole elements covering the bytes (`start` and `len` are multiples of 4 and of `wb`
        // for the packed dtypes that need this).
        let first = start / wb;
        let n = (len / wb).min(b.len.saturating_sub(first));
        let mut out = self.read_mapped(b, first, n, |w| w.to_vec())?;
        out.resize(len, 0);
        Ok(out)
    }

    /// `Backend::read`: `len` elements from `offset` as NumPy bytes.
    pub(crate) fn read_host(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let b = self.buf(src, "read")?;
        let mut v = vec![0u8; len.saturating_mul(b.dtype.itemsize())];
        self.read_words_into(b, offset, len, &mut v)?;
        Ok(v)
    }

    /// `Backend::read_into`: elements from `offset` of `src` as NumPy bytes into `dst`.
    pub(crate) fn read_host_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let b = self.buf(src, "read")?;
        let isz = b.dtype.itemsize();
        if !dst.len().is_multiple_of(isz) {
            return Err(Error::invalid(
                "read",
                format!("{} bytes are not whole elements of {}", dst.len(), b.dtype),
            ));
        }
        let len = dst.len() / isz;
        self.read_words_into(b, offset, len, dst)
    }
}
