//! The buffer pool: storage buffers freed by arrays and temporaries are cached by size class
//! ([`size_class`], shared with the CUDA and HIP pools) and handed to the next allocation of that
//! class, so `x + y` does not pay for a fresh Vulkan allocation (and wgpu's zero-fill of it) per
//! op. Reuse needs no wait: every use of a buffer is recorded on the one queue in program order
//! (writes from the host submit the pending work first, see `write_host`), so work recorded after
//! a reuse runs after the work that used the buffer before. Dropping cached buffers
//! (`free_all_blocks`, out-of-memory, the limit) is also immediate: wgpu keeps a buffer alive until
//! the queued work using it is done.

use cupy_core::gpu::pool::{PoolLimit, PoolStats};
use std::collections::HashMap;
use std::sync::Mutex;

pub use cupy_core::gpu::pool::size_class;

#[derive(Default)]
struct State {
    bins: HashMap<u64, Vec<wgpu::Buffer>>,
    in_use: usize,
    cached: usize,
    n_free: usize,
    limit: PoolLimit,
}

/// The cached storage buffers of one device.
pub(crate) struct BufferPool {
    state: Mutex<State>,
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BufferPool({:?})", self.stats())
    }
}

impl BufferPool {
    /// An empty pool, limited by `CUPY_GPU_MEMORY_LIMIT` when it is a byte count (wgpu does
    /// not report the device's memory size, so a percentage is an error at allocation).
    pub(crate) fn new() -> BufferPool {
        BufferPool {
            state: Mutex::new(State {
                limit: PoolLimit::from_env(None),
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A cached buffer of `class` bytes, counted as in use; or `Ok(None)` when a new one may be
    /// created (counted by [`BufferPool::created`]). `Err` with the reason when the limit leaves
    /// no room after the cache was dropped (or `CUPY_GPU_MEMORY_LIMIT` does not parse).
    pub(crate) fn take(&self, class: u64) -> Result<Option<wgpu::Buffer>, String> {
        let mut s = self.lock();
        s.limit.env_ok()?;
        if let Some(b) = s.bins.get_mut(&class).and_then(|v| v.pop()) {
            s.cached -= class as usize;
            s.in_use += class as usize;
            s.n_free -= 1;
            return Ok(Some(b));
        }
        if s.limit.exceeded_by(s.in_use + s.cached + class as usize) {
            let freed = drop_cache(&mut s);
            if s.limit.exceeded_by(s.in_use + class as usize) {
                return Err(s.limit.refusal(s.in_use, freed));
            }
        }
        Ok(None)
    }

    /// Counts a newly created buffer of `class` bytes as in use.
    pub(crate) fn created(&self, class: u64) {
        self.lock().in_use += class as usize;
    }

    /// Takes a buffer of `class` bytes back into its bin.
    pub(crate) fn give(&self, buf: wgpu::Buffer, class: u64) {
        let mut s = self.lock();
        s.in_use = s.in_use.saturating_sub(class as usize);
        s.cached += class as usize;
        s.n_free += 1;
        s.bins.entry(class).or_default().push(buf);
    }

    /// Drops every cached buffer; returns the bytes released.
    pub(crate) fn trim(&self) -> usize {
        drop_cache(&mut self.lock())
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let s = self.lock();
        PoolStats {
            used_bytes: s.in_use,
            total_bytes: s.in_use + s.cached,
            n_free_blocks: s.n_free,
            limit: s.limit.get(),
        }
    }

    pub(crate) fn set_limit(&self, limit: Option<usize>) {
        self.lock().limit.set(limit);
    }
}

fn drop_cache(s: &mut State) -> usize {
    let freed = s.cached;
    s.bins.clear();
    s.cached = 0;
    s.n_free = 0;
    freed
}
