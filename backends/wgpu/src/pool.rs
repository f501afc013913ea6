//! The buffer pool: storage buffers freed by arrays and temporaries are cached by size class
//! ([`size_class`], shared with the CUDA and HIP pools) and handed to the next allocation of that
//! class, so `x + y` does not pay for a fresh Vulkan allocation (and wgpu's zero-fill of it) per
//! op. Reuse needs no wait: every use of a buffer is recorded on the one queue in program order
//! (writes from the host submit the pending work first, see `write_host`), so work recorded after
//! a reuse runs after the work that used the buffer before. Dropping cached buffers
//! (`free_all_blocks`, out-of-memory, the limit) is also immediate: wgpu keeps a buffer alive until
//! the queued work using it is done.
//!
//! The pool also keeps the bind groups of recent dispatches ([`BufferPool::bind_group`]): a bind
//! group holds its buffers, so every time the pool drops buffers it drops those bind groups
//! too, and a freed buffer is never kept alive by one.

use cupy_core::gpu::pool::{PoolLimit, PoolStats};
use std::collections::HashMap;
use std::sync::Mutex;

pub use cupy_core::gpu::pool::size_class;

/// Bind groups kept at most (the cache is dropped whole past it).
const MAX_BIND_GROUPS: usize = 4096;

/// What a dispatch's bind group binds: its layout, the meta buffer and the binding's size (the
/// meta words' place is a dynamic offset), and each storage buffer with its window
/// (`(start, size)` in bytes; `None`: the whole buffer).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct BindKey {
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) meta: (wgpu::Buffer, u64),
    pub(crate) buffers: Vec<(wgpu::Buffer, Option<(u64, u64)>)>,
}

#[derive(Default)]
struct State {
    bins: HashMap<u64, Vec<wgpu::Buffer>>,
    bind_groups: HashMap<BindKey, wgpu::BindGroup>,
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

    /// The cached bind group for `key`, or `make`'s (then cached).
    pub(crate) fn bind_group(
        &self,
        key: BindKey,
        make: impl FnOnce() -> wgpu::BindGroup,
    ) -> wgpu::BindGroup {
        let mut s = self.lock();
        if let Some(bg) = s.bind_groups.get(&key) {
            return bg.clone();
        }
        if s.bind_groups.len() >= MAX_BIND_GROUPS {
            s.bind_groups.clear();
        }
        let bg = make();
        s.bind_groups.insert(key, bg.clone());
        bg
    }

    /// Bind groups cached now (tests).
    #[cfg(test)]
    pub(crate) fn bind_groups(&self) -> usize {
        self.lock().bind_groups.len()
    }
}

fn drop_cache(s: &mut State) -> usize {
    let freed = s.cached;
    s.bins.clear();
    // Bind groups hold their buffers: the dropped ones must not live on in them.
    s.bind_groups.clear();
    s.cached = 0;
    s.n_free = 0;
    freed
}
