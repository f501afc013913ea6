//! The CUDA side of the caching device allocator: the driver calls. Size classes, free lists
//! and the out-of-memory retry are shared with the HIP backend ([`cupy_core::gpu::pool`]). A
//! block returns to the free list of the stream it was allocated on, so a block freed after its
//! last use was *queued* can be reused by later work on that stream without waiting. Before cached blocks are given back to the driver
//! (on OOM, or when the pool is dropped) the context is synchronized.

use cudarc::driver::{result, sys, CudaContext};
use cupy_core::gpu::pool::{AllocFailure, CachingPool, PoolDriver};
use cupy_core::{DType, DeviceBuffer};
use std::any::Any;
use std::sync::Arc;

pub use cupy_core::gpu::pool::size_class;

/// The CUDA driver calls of the pool.
pub struct CudaPoolDriver {
    pub(crate) ctx: Arc<CudaContext>,
}

impl PoolDriver for CudaPoolDriver {
    fn malloc(&self, bytes: usize) -> Result<u64, AllocFailure> {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: plain device allocation in the bound context.
        unsafe { result::malloc_sync(bytes) }.map_err(|e| AllocFailure {
            out_of_memory: e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            message: format!("cuMemAlloc({bytes}): {e:?}"),
        })
    }

    unsafe fn free(&self, ptr: u64) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: the caller's contract (an unused block of ours, device idle).
        let _ = unsafe { result::free_sync(ptr) };
    }

    fn synchronize(&self) {
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
    }

    fn mem_info(&self) -> Option<(usize, usize)> {
        let _ = self.ctx.bind_to_thread();
        result::mem_get_info().ok()
    }
}

/// The pool shared by a backend and all its buffers.
pub struct Pool(pub(crate) CachingPool<CudaPoolDriver>);

impl Pool {
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Arc<Pool> {
        Arc::new(Pool(CachingPool::new(CudaPoolDriver { ctx })))
    }

    /// (bytes in use, bytes cached).
    pub fn usage(&self) -> (usize, usize) {
        self.0.usage()
    }

    /// Takes a block of class `class` from stream `tag`'s cache, or allocates one.
    /// `Err(true)` = out of memory (after trimming the cache and retrying), `Err(false)` = other.
    pub(crate) fn take_on(
        &self,
        tag: u64,
        class: usize,
    ) -> Result<sys::CUdeviceptr, (bool, String)> {
        self.0
            .take_on(tag, class)
            .map_err(|e| (e.out_of_memory, e.detail))
    }

    /// Synchronizes and frees every cached block; returns the bytes released.
    pub fn trim(&self) -> usize {
        self.0.trim()
    }
}

/// A device allocation from the pool (returned to it on drop).
pub struct CudaBuffer {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) class: usize,
    /// The pool's tag of the stream it was allocated on (0: the default stream).
    pub(crate) stream: u64,
    pub(crate) len: usize,
    pub(crate) dtype: DType,
    pub(crate) pool: Arc<Pool>,
    /// Foreign memory (`wrap_external`, class 0): its owner's guard, dropped with the buffer.
    pub(crate) external: Option<cupy_core::KeepAlive>,
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
    fn address(&self) -> Option<u64> {
        Some(self.ptr)
    }
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        if self.external.is_some() {
            // Queued work may still use the foreign memory: drain before its owner frees it.
            self.pool.0.driver().synchronize();
            self.external = None;
            return;
        }
        if self.class > 0 {
            self.pool.0.give_on(self.stream, self.ptr, self.class);
        }
    }
}

// SAFETY: a device address is a plain integer; access is ordered through the stream.
unsafe impl Send for CudaBuffer {}
// SAFETY: as above.
unsafe impl Sync for CudaBuffer {}
