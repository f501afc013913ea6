//! The memory pool of a device, as CuPy's `cupy.cuda.MemoryPool` shows it
//! (`cupy.get_default_memory_pool()`): bytes in use and cached, freeing the cache, a limit.
//!
//! Every backend answers: cuda and hip cache freed device blocks by size class
//! (`cupy_core::gpu::pool`), wgpu caches storage buffers the same way, and the cpu backend,
//! which has no cache, counts its arrays' bytes (so `total_bytes == used_bytes` there and
//! `free_all_blocks` releases nothing). `CUPY_GPU_MEMORY_LIMIT` (bytes, or a percentage of the
//! device's memory where the backend knows it: not on wgpu) sets the limit when a device opens.
//!
//! Beside the pool: a user allocator for arrays' memory ([`set_allocator`], `allocator.rs`),
//! memory wrapped by address ([`crate::Array::from_external`], `external.rs`), and the pinned
//! host memory pool with asynchronous transfers ([`PinnedMemoryPool`], `pinned.rs`).

mod allocator;
mod external;
mod pinned;

pub(crate) use allocator::allocate as allocate_from_user;
pub use allocator::{get_allocator, set_allocator, using_allocator, Allocator};
pub use pinned::{
    empty_pinned, get_default_pinned_memory_pool, zeros_pinned, PinnedArray, PinnedMemoryPool,
};

use crate::{Device, Result};

/// A handle on one device's pool ([`get_default_memory_pool`], [`Device::memory_pool`]).
#[derive(Clone, Debug)]
pub struct MemoryPool {
    device: Device,
}

impl MemoryPool {
    fn stats(&self) -> cupy_core::gpu::pool::PoolStats {
        self.device.backend().pool_stats()
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Bytes of blocks in use by arrays (and the backend's live temporaries).
    pub fn used_bytes(&self) -> usize {
        self.stats().used_bytes
    }

    /// Bytes held from the device: in use plus cached.
    pub fn total_bytes(&self) -> usize {
        self.stats().total_bytes
    }

    /// Cached bytes, held but not in use.
    pub fn free_bytes(&self) -> usize {
        self.stats().free_bytes()
    }

    /// Cached blocks ready for reuse.
    pub fn n_free_blocks(&self) -> usize {
        self.stats().n_free_blocks
    }

    /// Gives every cached block back to the device (after queued work is done with them);
    /// returns the bytes released. Blocks in use are untouched.
    ///
    /// # Errors
    /// Device errors while synchronizing.
    pub fn free_all_blocks(&self) -> Result<usize> {
        self.device.backend().pool_free_all_blocks()
    }

    /// Limits the bytes the pool may hold (in use plus cached) to `size`; `0` removes the
    /// limit (CuPy's convention). An allocation over the limit first releases the cache, then
    /// fails with `Error::OutOfMemory` naming the limit; arrays already allocated are kept.
    ///
    /// # Errors
    /// Backend errors (every backend of this crate has a limit).
    pub fn set_limit(&self, size: usize) -> Result<()> {
        self.device
            .backend()
            .pool_set_limit((size > 0).then_some(size))
    }

    /// The limit in bytes; `0` when there is none (as CuPy's `get_limit`).
    pub fn get_limit(&self) -> usize {
        self.stats().limit.unwrap_or(0)
    }
}

/// `cupy.get_default_memory_pool()`: the pool of the current device.
///
/// # Errors
/// Device discovery errors.
pub fn get_default_memory_pool() -> Result<MemoryPool> {
    Ok(Device::current()?.memory_pool())
}
routine!(
    get_default_memory_pool as "cupy.get_default_memory_pool / cupy.cuda.MemoryPool",
    Devices,
    notes: "used_bytes total_bytes free_bytes n_free_blocks free_all_blocks set_limit get_limit; cpu counts arrays, caches nothing"
);

impl Device {
    /// This device's memory pool ([`MemoryPool`]).
    pub fn memory_pool(&self) -> MemoryPool {
        MemoryPool {
            device: self.clone(),
        }
    }
}
