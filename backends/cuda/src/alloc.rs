//! A caching device allocator: freed blocks go to size-class bins and are reused. All work runs
//! on one stream, so a block freed after its last use was *queued* can be reused by later work
//! on that stream without waiting. Before cached blocks are given back to the driver (on OOM, or
//! when the pool is dropped) the context is synchronized.

use cudarc::driver::{result, sys, CudaContext};
use cupy_core::{DType, DeviceBuffer};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Rounds a request up to its size class: multiples of 512 B up to 1 MiB, then steps of 1/8 of
/// the next power of two (at most 12.5% waste).
pub fn size_class(bytes: usize) -> usize {
    if bytes <= 512 {
        return 512;
    }
    if bytes <= 1 << 20 {
        return bytes.div_ceil(512) * 512;
    }
    let step = bytes.next_power_of_two() / 8;
    bytes.div_ceil(step) * step
}

#[derive(Default)]
pub(crate) struct PoolState {
    bins: HashMap<usize, Vec<sys::CUdeviceptr>>,
    pub(crate) in_use: usize,
    pub(crate) cached: usize,
}

/// The pool shared by a backend and all its buffers.
pub struct Pool {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) state: Mutex<PoolState>,
}

impl Pool {
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Arc<Pool> {
        Arc::new(Pool {
            ctx,
            state: Mutex::new(PoolState::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// (bytes in use, bytes cached).
    pub fn usage(&self) -> (usize, usize) {
        let s = self.lock();
        (s.in_use, s.cached)
    }

    /// Takes a block of class `class` from the cache, or allocates one.
    /// `Err(true)` = out of memory (after trimming the cache and retrying), `Err(false)` = other.
    pub(crate) fn take(&self, class: usize) -> Result<sys::CUdeviceptr, (bool, String)> {
        {
            let mut s = self.lock();
            if let Some(p) = s.bins.get_mut(&class).and_then(|v| v.pop()) {
                s.cached -= class;
                s.in_use += class;
                return Ok(p);
            }
        }
        let _ = self.ctx.bind_to_thread();
        // SAFETY: plain device allocation in the bound context.
        match unsafe { result::malloc_sync(class) } {
            Ok(p) => {
                self.lock().in_use += class;
                Ok(p)
            }
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let freed = self.trim();
                // SAFETY: as above.
                match unsafe { result::malloc_sync(class) } {
                    Ok(p) => {
                        self.lock().in_use += class;
                        Ok(p)
                    }
                    Err(e2) => {
                        let (used, _) = self.usage();
                        let (free, total) = result::mem_get_info().unwrap_or((0, 0));
                        Err((
                            e2.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                            format!(
                                "pool: {used} bytes in use, 0 cached (released {freed} cached bytes and retried); device: {free} of {total} bytes free; driver: {e2:?}"
                            ),
                        ))
                    }
                }
            }
            Err(e) => Err((false, format!("cuMemAlloc({class}) failed: {e:?}"))),
        }
    }

    /// Gives a block back to its bin.
    pub(crate) fn give(&self, ptr: sys::CUdeviceptr, class: usize) {
        let mut s = self.lock();
        s.in_use -= class;
        s.cached += class;
        s.bins.entry(class).or_default().push(ptr);
    }

    /// Synchronizes and frees every cached block; returns the bytes released.
    pub fn trim(&self) -> usize {
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
        let mut s = self.lock();
        let mut freed = 0;
        for (class, ptrs) in s.bins.drain() {
            for p in ptrs {
                // SAFETY: the block is unused (cached) and the device is idle.
                let _ = unsafe { result::free_sync(p) };
                freed += class;
            }
        }
        s.cached = 0;
        freed
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.trim();
    }
}

/// A device allocation from the pool (returned to it on drop).
pub struct CudaBuffer {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) class: usize,
    pub(crate) len: usize,
    pub(crate) dtype: DType,
    pub(crate) pool: Arc<Pool>,
}

impl CudaBuffer {
    /// Device address of element 0.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
}

impl std::fmt::Debug for CudaBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaBuffer({} x {}, 0x{:x})",
            self.len, self.dtype, self.ptr
        )
    }
}

impl DeviceBuffer for CudaBuffer {
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

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        if self.class > 0 {
            self.pool.give(self.ptr, self.class);
        }
    }
}

// SAFETY: a device address is a plain integer; access is ordered through the stream.
unsafe impl Send for CudaBuffer {}
// SAFETY: as above.
unsafe impl Sync for CudaBuffer {}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(1), 512);
        assert_eq!(size_class(513), 1024);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1), (1 << 20) + (1 << 18));
        let big = 3_000_000_000usize;
        let c = size_class(big);
        assert!(c >= big && c - big <= big / 8);
    }
}
