//! A caching device allocator for the backends with streams (CUDA, HIP).
//!
//! Requests are rounded to size classes ([`size_class`]). Each driver allocation (a *segment*)
//! starts as one block; freed blocks are cached per stream and reused by later allocations on
//! the same stream without waiting: on one stream, work queued after a block was freed runs
//! after the work that used it (as CuPy's pool, blocks are not shared between streams; the
//! frontend orders an array's uses on other streams before its block returns, and a stream that
//! goes away hands its blocks to the default stream after ordering it, [`CachingPool::retag`]).
//! Stream `0` is the backend's default stream.
//!
//! As CuPy's arena: a request takes the smallest cached block of its stream that holds it
//! (best fit), *split* when the rest is at least the smallest class (the rest stays cached);
//! a freed block is *coalesced* with free neighbours of its segment on its stream, so a segment
//! whose pieces are all free again is one block that can serve its full size or go back to the
//! driver. Only whole free segments go back to the driver: before that (on out-of-memory, over
//! the limit, `free_all_blocks`, or when the pool drops) the driver synchronizes. The driver
//! calls are the backend's ([`PoolDriver`]); everything else lives here.

mod limit;

pub use limit::{limit_from_env, parse_limit, PoolLimit};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

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

/// A failed driver allocation.
#[derive(Clone, Debug)]
pub struct AllocFailure {
    /// The driver said out of memory (as opposed to another error).
    pub out_of_memory: bool,
    /// The driver's message.
    pub message: String,
}

/// The driver calls a [`CachingPool`] needs.
pub trait PoolDriver: Send + Sync {
    /// Allocates `bytes` bytes of device memory; returns its address.
    ///
    /// # Errors
    /// [`AllocFailure`] saying whether the device is out of memory.
    fn malloc(&self, bytes: usize) -> Result<u64, AllocFailure>;

    /// Frees a block.
    ///
    /// # Safety
    /// `ptr` came from [`PoolDriver::malloc`], is freed once, and no queued work uses it (the
    /// pool calls [`PoolDriver::synchronize`] first).
    unsafe fn free(&self, ptr: u64);

    /// Waits until no queued work can use a cached block.
    fn synchronize(&self);

    /// `(free, total)` device bytes, if the driver can tell.
    fn mem_info(&self) -> Option<(usize, usize)>;
}

/// One block of a segment: in use, or cached for `stream`.
#[derive(Clone, Copy, Debug)]
struct Block {
    size: usize,
    /// The address of the segment (driver allocation) the block lies in.
    segment: u64,
    stream: u64,
    free: bool,
}

/// Blocks, free lists and byte counts of a pool.
#[derive(Default, Debug)]
struct PoolState {
    /// Every block of every segment, by address.
    blocks: BTreeMap<u64, Block>,
    /// Cached blocks as (stream, size, address): best fit is the first at or past a request.
    free: BTreeSet<(u64, usize, u64)>,
    /// Segment sizes by address.
    segments: BTreeMap<u64, usize>,
    in_use: usize,
    cached: usize,
    /// Most bytes in use plus cached ([`CachingPool::set_limit`]).
    limit: PoolLimit,
    /// Streams capturing a graph, and the blocks given back on them since the capture began
    /// ([`CachingPool::hold`]).
    holds: HashMap<u64, Vec<(u64, usize)>>,
}

impl PoolState {
    /// Takes the best-fitting cached block of `stream` for `class` bytes, split if worth it.
    fn take_cached(&mut self, stream: u64, class: usize) -> Option<u64> {
        let &(_, size, addr) = self
            .free
            .range((stream, class, 0)..=(stream, usize::MAX, u64::MAX))
            .next()?;
        self.free.remove(&(stream, size, addr));
        let b = self
            .blocks
            .get_mut(&addr)
            .expect("a cached block is listed");
        b.free = false;
        let rest = size - class;
        if rest >= MIN_BLOCK {
            b.size = class;
            let segment = b.segment;
            self.blocks.insert(
                addr + class as u64,
                Block {
                    size: rest,
                    segment,
                    stream,
                    free: true,
                },
            );
            self.free.insert((stream, rest, addr + class as u64));
        }
        let taken = self.blocks[&addr].size;
        self.cached -= taken;
        self.in_use += taken;
        Some(addr)
    }

    /// Caches the block at `addr` for `stream`, merged with free neighbours of its segment.
    fn release(&mut self, stream: u64, addr: u64) {
        let Some(b) = self.blocks.get(&addr).copied() else {
            debug_assert!(false, "release of an unknown block {addr:#x}");
            return;
        };
        if b.free {
            debug_assert!(false, "double release of {addr:#x}");
            return;
        }
        self.in_use -= b.size;
        self.cached += b.size;
        let (mut start, mut size) = (addr, b.size);
        let mergeable = |n: &Block| n.free && n.stream == stream && n.segment == b.segment;
        let next = self.blocks.range(addr + 1..).next().map(|(&a, n)| (a, *n));
        if let Some((next, n)) = next {
            if next == addr + b.size as u64 && mergeable(&n) {
                self.free.remove(&(stream, n.size, next));
                size += n.size;
                self.blocks.remove(&next);
            }
        }
        let prev = self.blocks.range(..addr).next_back().map(|(&a, p)| (a, *p));
        if let Some((prev, p)) = prev {
            if prev + p.size as u64 == addr && mergeable(&p) {
                self.free.remove(&(stream, p.size, prev));
                self.blocks.remove(&addr);
                start = prev;
                size += p.size;
            }
        }
        self.blocks.insert(
            start,
            Block {
                size,
                segment: b.segment,
                stream,
                free: true,
            },
        );
        self.free.insert((stream, size, start));
    }

    /// Removes every segment that is one cached block; returns their addresses and sizes.
    fn whole_free_segments(&mut self) -> Vec<(u64, usize)> {
        let whole: Vec<(u64, usize)> = self
            .segments
            .iter()
            .filter(|(a, &len)| self.blocks.get(a).is_some_and(|b| b.free && b.size == len))
            .map(|(&a, &len)| (a, len))
            .collect();
        for &(a, len) in &whole {
            let b = self.blocks.remove(&a).expect("listed above");
            self.free.remove(&(b.stream, len, a));
            self.segments.remove(&a);
            self.cached -= len;
        }
        whole
    }
}

impl PoolState {
    /// Records a new segment of `size` bytes at `addr`, in use on `stream`; returns `addr`.
    fn add_segment(&mut self, stream: u64, addr: u64, size: usize) -> u64 {
        self.segments.insert(addr, size);
        self.blocks.insert(
            addr,
            Block {
                size,
                segment: addr,
                stream,
                free: false,
            },
        );
        self.in_use += size;
        addr
    }
}

/// The smallest block a split leaves behind (the smallest size class).
const MIN_BLOCK: usize = 512;

/// Why [`CachingPool::take`] failed.
#[derive(Clone, Debug)]
pub struct PoolError {
    /// Out of device memory even after the cache was released (else another driver error).
    pub out_of_memory: bool,
    /// The pool's and the device's state, and the driver's message.
    pub detail: String,
}

/// A caching allocator over one device's driver (see the module docs).
pub struct CachingPool<D: PoolDriver> {
    driver: D,
    state: Mutex<PoolState>,
}

impl<D: PoolDriver> CachingPool<D> {
    /// An empty pool, limited as `CUPY_GPU_MEMORY_LIMIT` says ([`limit_from_env`]).
    pub fn new(driver: D) -> Self {
        let total = driver.mem_info().map(|(_, t)| t);
        CachingPool {
            driver,
            state: Mutex::new(PoolState {
                limit: PoolLimit::from_env(total),
                ..PoolState::default()
            }),
        }
    }

    /// The pool's counters ([`PoolStats`]).
    pub fn stats(&self) -> PoolStats {
        let s = self.lock();
        PoolStats {
            used_bytes: s.in_use,
            total_bytes: s.in_use + s.cached,
            n_free_blocks: s.free.len(),
            limit: s.limit.get(),
        }
    }

    /// Sets the most bytes the pool may hold (in use plus cached), as CuPy's
    /// `MemoryPool.set_limit`; `None` removes the limit. Blocks already held are kept; the
    /// limit applies to later allocations.
    pub fn set_limit(&self, limit: Option<usize>) {
        self.lock().limit.set(limit);
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `(bytes in use, bytes cached)`.
    pub fn usage(&self) -> (usize, usize) {
        let s = self.lock();
        (s.in_use, s.cached)
    }

    /// A block of `class` bytes (a [`size_class`] value): a cached one, or a new one; on
    /// out-of-memory the cache is released and the allocation retried once.
    ///
    /// # Errors
    /// [`PoolError`] with the pool's and the device's state.
    pub fn take(&self, class: usize) -> Result<u64, PoolError> {
        self.take_on(0, class)
    }

    /// [`CachingPool::take`] for work on `stream` (reusing only that stream's free blocks).
    ///
    /// # Errors
    /// As [`CachingPool::take`].
    pub fn take_on(&self, stream: u64, class: usize) -> Result<u64, PoolError> {
        let over_limit = {
            let mut s = self.lock();
            if let Err(detail) = s.limit.env_ok() {
                return Err(PoolError {
                    out_of_memory: false,
                    detail,
                });
            }
            if let Some(p) = s.take_cached(stream, class) {
                return Ok(p);
            }
            s.limit.exceeded_by(s.in_use + s.cached + class)
        };
        if over_limit {
            // As CuPy: release the cache, then refuse if what is left leaves no room.
            let freed = self.trim();
            let s = self.lock();
            if s.limit.exceeded_by(s.in_use + s.cached + class) {
                return Err(PoolError {
                    out_of_memory: true,
                    detail: s.limit.refusal(s.in_use, freed),
                });
            }
        }
        let first = match self.driver.malloc(class) {
            Ok(p) => return Ok(self.lock().add_segment(stream, p, class)),
            Err(e) => e,
        };
        if !first.out_of_memory {
            return Err(PoolError {
                out_of_memory: false,
                detail: format!("allocating {class} bytes: {}", first.message),
            });
        }
        let freed = self.trim();
        match self.driver.malloc(class) {
            Ok(p) => Ok(self.lock().add_segment(stream, p, class)),
            Err(e) => {
                let (used, cached) = self.usage();
                let device = match self.driver.mem_info() {
                    Some((free, total)) => format!("{free} of {total} bytes free"),
                    None => "free memory unknown".into(),
                };
                Err(PoolError {
                    out_of_memory: e.out_of_memory,
                    detail: format!(
                        "pool: {used} bytes in use, {cached} cached in segments still in use \
                         (released {freed} cached bytes and retried); device: {device}; driver: {}",
                        e.message
                    ),
                })
            }
        }
    }

    /// Gives a block back to the default stream's cache.
    pub fn give(&self, ptr: u64, class: usize) {
        self.give_on(0, ptr, class)
    }

    /// Gives a block last used on `stream` back to that stream's cache, merged with the free
    /// blocks beside it in its segment (or to the graph being captured on `stream`,
    /// [`CachingPool::hold`]). `class` is the class it was taken for (the pool knows the
    /// block's size; a block too small to split may be larger).
    pub fn give_on(&self, stream: u64, ptr: u64, class: usize) {
        let mut s = self.lock();
        if let Some(held) = s.holds.get_mut(&stream) {
            held.push((ptr, class));
            return;
        }
        debug_assert!(s.blocks.get(&ptr).is_some_and(|b| b.size >= class));
        s.release(stream, ptr);
    }

    /// Starts holding the blocks given back on `stream` while it captures a graph: the
    /// captured work (kernels, library calls) still uses them when the graph is launched, so
    /// they must not be reused until the graph is destroyed. [`CachingPool::release`] ends
    /// the hold and hands them to the graph. `false` if `stream` is holding already.
    pub fn hold(&self, stream: u64) -> bool {
        let mut s = self.lock();
        if s.holds.contains_key(&stream) {
            return false;
        }
        s.holds.insert(stream, Vec::new());
        true
    }

    /// Ends [`CachingPool::hold`] on `stream` and returns the held `(address, class)` blocks
    /// (still counted in use), for the graph to give back ([`CachingPool::give_all_on`]) when
    /// it is destroyed.
    pub fn release(&self, stream: u64) -> Vec<(u64, usize)> {
        self.lock().holds.remove(&stream).unwrap_or_default()
    }

    /// Gives `blocks` (from [`CachingPool::release`]) back to `stream`'s cache.
    pub fn give_all_on(&self, stream: u64, blocks: Vec<(u64, usize)>) {
        for (ptr, class) in blocks {
            self.give_on(stream, ptr, class);
        }
    }

    /// Moves `from`'s free blocks to `to`'s lists (a stream that is destroyed, after `to` was
    /// made to wait for its work).
    pub fn retag(&self, from: u64, to: u64) {
        let mut s = self.lock();
        let moved: Vec<(u64, usize, u64)> = s
            .free
            .range((from, 0, 0)..=(from, usize::MAX, u64::MAX))
            .copied()
            .collect();
        for (_, size, addr) in moved {
            s.free.remove(&(from, size, addr));
            s.free.insert((to, size, addr));
            if let Some(b) = s.blocks.get_mut(&addr) {
                b.stream = to;
            }
        }
    }

    /// Synchronizes and gives every segment that is wholly cached back to the driver; returns
    /// the bytes released. Cached pieces of segments still partly in use stay.
    /// While a graph is being captured ([`CachingPool::hold`]) nothing is released:
    /// synchronizing would invalidate the capture.
    pub fn trim(&self) -> usize {
        if !self.lock().holds.is_empty() {
            return 0;
        }
        self.driver.synchronize();
        let whole = self.lock().whole_free_segments();
        let mut freed = 0;
        for (addr, len) in whole {
            // SAFETY: a whole cached segment is unused, and the device is idle (synchronized).
            unsafe { self.driver.free(addr) };
            freed += len;
        }
        freed
    }
}

/// The counters of a device's memory pool, as CuPy's `MemoryPool` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes of blocks in use by arrays and temporaries (`used_bytes()`).
    pub used_bytes: usize,
    /// Bytes the pool holds from the device: in use plus cached (`total_bytes()`).
    pub total_bytes: usize,
    /// Cached blocks ready for reuse (`n_free_blocks()`).
    pub n_free_blocks: usize,
    /// The limit on `total_bytes`, if one is set (`get_limit()`; CuPy reports 0 for none).
    pub limit: Option<usize>,
}

impl PoolStats {
    /// Cached bytes (`free_bytes()`): held from the device but not in use.
    pub fn free_bytes(&self) -> usize {
        self.total_bytes - self.used_bytes
    }
}

impl<D: PoolDriver> Drop for CachingPool<D> {
    fn drop(&mut self) {
        self.trim();
    }
}

#[cfg(test)]
mod tests;
