//! A caching device allocator for the backends with streams (CUDA, HIP).
//!
//! Freed blocks go to per-stream, per-size-class free lists and are reused by later allocations
//! on the same stream without waiting: on one stream, work queued after a block was freed runs
//! after the work that used it (as CuPy's pool, blocks are not shared between streams; the
//! frontend orders an array's uses on other streams before its block returns, and a stream that
//! goes away hands its blocks to the default stream after ordering it, [`CachingPool::retag`]).
//! Stream `0` is the backend's default stream.
//! Before cached blocks are given back to the driver (on out-of-memory, or when the pool drops)
//! the driver synchronizes. The driver calls are the backend's ([`PoolDriver`]); everything else
//! lives here.

use std::collections::HashMap;
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

/// Free lists and byte counts of a pool.
#[derive(Default, Debug)]
struct PoolState {
    /// Free blocks by (stream, class).
    bins: HashMap<(u64, usize), Vec<u64>>,
    in_use: usize,
    cached: usize,
    n_free: usize,
    /// Most bytes in use plus cached ([`CachingPool::set_limit`]).
    limit: PoolLimit,
    /// Streams capturing a graph, and the blocks given back on them since the capture began
    /// ([`CachingPool::hold`]).
    holds: HashMap<u64, Vec<(u64, usize)>>,
}

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
            n_free_blocks: s.n_free,
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
            if let Some(p) = s.bins.get_mut(&(stream, class)).and_then(|v| v.pop()) {
                s.cached -= class;
                s.in_use += class;
                s.n_free -= 1;
                return Ok(p);
            }
            s.limit.exceeded_by(s.in_use + s.cached + class)
        };
        if over_limit {
            // As CuPy: release the cache, then refuse if the blocks in use alone leave no room.
            let freed = self.trim();
            let s = self.lock();
            if s.limit.exceeded_by(s.in_use + class) {
                return Err(PoolError {
                    out_of_memory: true,
                    detail: s.limit.refusal(s.in_use, freed),
                });
            }
        }
        let first = match self.driver.malloc(class) {
            Ok(p) => {
                self.lock().in_use += class;
                return Ok(p);
            }
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
            Ok(p) => {
                self.lock().in_use += class;
                Ok(p)
            }
            Err(e) => {
                let (used, _) = self.usage();
                let device = match self.driver.mem_info() {
                    Some((free, total)) => format!("{free} of {total} bytes free"),
                    None => "free memory unknown".into(),
                };
                Err(PoolError {
                    out_of_memory: e.out_of_memory,
                    detail: format!(
                        "pool: {used} bytes in use, 0 cached (released {freed} cached bytes and \
                         retried); device: {device}; driver: {}",
                        e.message
                    ),
                })
            }
        }
    }

    /// Gives a block of `class` bytes back to its free list.
    pub fn give(&self, ptr: u64, class: usize) {
        self.give_on(0, ptr, class)
    }

    /// Gives a block last used on `stream` back to that stream's free list (or to the graph
    /// being captured on `stream`, [`CachingPool::hold`]).
    pub fn give_on(&self, stream: u64, ptr: u64, class: usize) {
        let mut s = self.lock();
        if let Some(held) = s.holds.get_mut(&stream) {
            held.push((ptr, class));
            return;
        }
        s.in_use = s.in_use.saturating_sub(class);
        s.cached += class;
        s.n_free += 1;
        s.bins.entry((stream, class)).or_default().push(ptr);
    }

    /// Moves `from`'s free blocks to `to`'s lists (a stream that is destroyed, after `to` was
    /// made to wait for its work).
    pub fn retag(&self, from: u64, to: u64) {
        let mut s = self.lock();
        let keys: Vec<(u64, usize)> = s.bins.keys().filter(|k| k.0 == from).copied().collect();
        for k in keys {
            let v = s.bins.remove(&k).unwrap_or_default();
            s.bins.entry((to, k.1)).or_default().extend(v);
        }
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

    /// Gives `blocks` (from [`CachingPool::release`]) back to `stream`'s free lists.
    pub fn give_all_on(&self, stream: u64, blocks: Vec<(u64, usize)>) {
        for (ptr, class) in blocks {
            self.give_on(stream, ptr, class);
        }
    }

    /// Synchronizes and frees every cached block; returns the bytes released. While a graph
    /// is being captured ([`CachingPool::hold`]) nothing is released: synchronizing would
    /// invalidate the capture.
    pub fn trim(&self) -> usize {
        if !self.lock().holds.is_empty() {
            return 0;
        }
        self.driver.synchronize();
        let mut s = self.lock();
        let mut freed = 0;
        for ((_, class), ptrs) in s.bins.drain() {
            for p in ptrs {
                // SAFETY: a cached block is unused, and the device is idle (synchronized).
                unsafe { self.driver.free(p) };
                freed += class;
            }
        }
        s.cached = 0;
        s.n_free = 0;
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

/// Parses a memory limit as CuPy's `CUPY_GPU_MEMORY_LIMIT` takes it: a byte count (`"1073741824"`)
/// or a percentage of the device's memory (`"50%"`, which needs `total`). Unset or empty: `None`.
///
/// # Errors
/// A message naming the variable and its value when it is neither.
pub fn parse_limit(value: &str, total: Option<usize>) -> Result<Option<usize>, String> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(None);
    }
    let bad = || {
        format!("CUPY_GPU_MEMORY_LIMIT={value:?} is neither a byte count nor a percentage such as \"50%\"")
    };
    if let Some(pct) = v.strip_suffix('%') {
        let p: f64 = pct.trim().parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&p) {
            return Err(bad());
        }
        let total = total.ok_or_else(|| {
            format!("CUPY_GPU_MEMORY_LIMIT={value:?}: the device's memory size is unknown")
        })?;
        return Ok(Some((total as f64 * p / 100.0) as usize));
    }
    v.parse::<usize>().map(Some).map_err(|_| bad())
}

/// A pool's limit on the bytes it holds: `set_limit`'s value, else `CUPY_GPU_MEMORY_LIMIT`'s as
/// read when the pool was made. A variable that does not parse is kept as the error every
/// allocation reports, until `set_limit` replaces it. Shared by the CUDA/HIP pool, the wgpu
/// buffer pool and the cpu backend's count.
#[derive(Clone, Debug, Default)]
pub struct PoolLimit {
    limit: Option<usize>,
    env_error: Option<String>,
}

impl PoolLimit {
    /// The limit `CUPY_GPU_MEMORY_LIMIT` sets ([`limit_from_env`]; `total`: the device's bytes,
    /// for a percentage).
    pub fn from_env(total: Option<usize>) -> PoolLimit {
        match limit_from_env(total) {
            Ok(limit) => PoolLimit {
                limit,
                env_error: None,
            },
            Err(e) => PoolLimit {
                limit: None,
                env_error: Some(e),
            },
        }
    }

    /// The limit in bytes, if there is one.
    pub fn get(&self) -> Option<usize> {
        self.limit
    }

    /// Sets (or with `None` removes) the limit; a bad `CUPY_GPU_MEMORY_LIMIT` is forgotten.
    pub fn set(&mut self, limit: Option<usize>) {
        self.limit = limit;
        self.env_error = None;
    }

    /// `Err` with the reason when `CUPY_GPU_MEMORY_LIMIT` did not parse.
    ///
    /// # Errors
    /// The parse error's message.
    pub fn env_ok(&self) -> Result<(), String> {
        match &self.env_error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Whether holding `bytes` would pass the limit.
    pub fn exceeded_by(&self, bytes: usize) -> bool {
        self.limit.is_some_and(|l| bytes > l)
    }

    /// The out-of-memory detail of a refused allocation: the limit, the bytes in use and the
    /// cached bytes released before refusing.
    pub fn refusal(&self, in_use: usize, released: usize) -> String {
        format!(
            "the pool's limit is {} bytes (set_limit or CUPY_GPU_MEMORY_LIMIT) and {in_use} are \
             in use (released {released} cached bytes)",
            self.limit.unwrap_or(0)
        )
    }
}

/// [`parse_limit`] of the `CUPY_GPU_MEMORY_LIMIT` environment variable.
///
/// # Errors
/// As [`parse_limit`].
pub fn limit_from_env(total: Option<usize>) -> Result<Option<usize>, String> {
    match std::env::var("CUPY_GPU_MEMORY_LIMIT") {
        Ok(v) => parse_limit(&v, total),
        Err(_) => Ok(None),
    }
}

impl<D: PoolDriver> Drop for CachingPool<D> {
    fn drop(&mut self) {
        self.trim();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

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

    /// A fake device of `cap` bytes.
    struct Fake {
        cap: usize,
        used: AtomicUsize,
        next: AtomicUsize,
        syncs: AtomicUsize,
    }

    impl PoolDriver for Fake {
        fn malloc(&self, bytes: usize) -> Result<u64, AllocFailure> {
            if self.used.load(Ordering::SeqCst) + bytes > self.cap {
                return Err(AllocFailure {
                    out_of_memory: true,
                    message: "fake OOM".into(),
                });
            }
            self.used.fetch_add(bytes, Ordering::SeqCst);
            Ok(self.next.fetch_add(bytes, Ordering::SeqCst) as u64 + 4096)
        }
        unsafe fn free(&self, _ptr: u64) {
            // The fake only counts classes of 1024 bytes in this test.
            self.used.fetch_sub(1024, Ordering::SeqCst);
        }
        fn synchronize(&self) {
            self.syncs.fetch_add(1, Ordering::SeqCst);
        }
        fn mem_info(&self) -> Option<(usize, usize)> {
            Some((self.cap - self.used.load(Ordering::SeqCst), self.cap))
        }
    }

    #[test]
    fn reuse_trim_and_oom() {
        let pool = CachingPool::new(Fake {
            cap: 2048,
            used: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            syncs: AtomicUsize::new(0),
        });
        let a = pool.take(1024).unwrap();
        let b = pool.take(1024).unwrap();
        assert_eq!(pool.usage(), (2048, 0));
        pool.give(a, 1024);
        assert_eq!(pool.usage(), (1024, 1024));
        // Reused without the driver.
        assert_eq!(pool.take(1024).unwrap(), a);
        pool.give(a, 1024);
        // A new class does not fit: the cache is released, and the retry succeeds.
        let c = pool.take(1024 + 512);
        assert!(c.is_err(), "1536 + 1024 > 2048");
        let e = c.unwrap_err();
        assert!(
            e.out_of_memory && e.detail.contains("released 1024"),
            "{e:?}"
        );
        assert_eq!(pool.usage(), (1024, 0));
        assert!(pool.driver().syncs.load(Ordering::SeqCst) >= 1);
        pool.give(b, 1024);
        assert_eq!(pool.trim(), 1024);
    }

    #[test]
    fn blocks_stay_with_their_stream() {
        let pool = CachingPool::new(Fake {
            cap: 1 << 20,
            used: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            syncs: AtomicUsize::new(0),
        });
        let a = pool.take_on(7, 512).unwrap();
        pool.give_on(7, a, 512);
        // Another stream does not get stream 7's block; stream 7 does.
        let b = pool.take_on(0, 512).unwrap();
        assert_ne!(a, b);
        assert_eq!(pool.take_on(7, 512).unwrap(), a);
        pool.give_on(7, a, 512);
        // Stream 7 goes away: its blocks pass to the default stream.
        pool.retag(7, 0);
        assert_eq!(pool.take_on(0, 512).unwrap(), a);
        pool.give(a, 512);
        pool.give(b, 512);
        assert_eq!(pool.stats().n_free_blocks, 2);
    }

    #[test]
    fn holds_keep_blocks_for_a_graph() {
        let pool = CachingPool::new(Fake {
            cap: 1 << 20,
            used: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            syncs: AtomicUsize::new(0),
        });
        let a = pool.take_on(7, 512).unwrap();
        assert!(pool.hold(7));
        assert!(!pool.hold(7));
        pool.give_on(7, a, 512);
        // Held: not reusable, still in use.
        assert_eq!(pool.usage(), (512, 0));
        let b = pool.take_on(7, 512).unwrap();
        assert_ne!(a, b);
        assert_eq!(pool.trim(), 0);
        let held = pool.release(7);
        assert_eq!(held, vec![(a, 512)]);
        pool.give_all_on(7, held);
        assert_eq!(pool.usage(), (512, 512));
        assert_eq!(pool.take_on(7, 512).unwrap(), a);
        pool.give_on(7, b, 512);
        assert_eq!(pool.release(7), vec![]);
    }

    #[test]
    fn stats_and_limit() {
        let pool = CachingPool::new(Fake {
            cap: 1 << 20,
            used: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            syncs: AtomicUsize::new(0),
        });
        pool.set_limit(Some(2048));
        let a = pool.take(1024).unwrap();
        pool.give(a, 1024);
        assert_eq!(
            pool.stats(),
            PoolStats {
                used_bytes: 0,
                total_bytes: 1024,
                n_free_blocks: 1,
                limit: Some(2048)
            }
        );
        assert_eq!(pool.stats().free_bytes(), 1024);
        // 1024 cached + 1536 > 2048: the cache goes, then 1536 fits.
        let b = pool.take(1536).unwrap();
        assert_eq!(pool.stats().n_free_blocks, 0);
        // 1536 in use + 1024 > 2048: refused, naming the limit; the pool is unchanged.
        let e = pool.take(1024).unwrap_err();
        assert!(
            e.out_of_memory && e.detail.contains("limit is 2048"),
            "{e:?}"
        );
        assert_eq!(pool.stats().used_bytes, 1536);
        pool.give(b, 1536);
        pool.set_limit(None);
        assert!(pool.take(4096).is_ok());
    }

    #[test]
    fn limit_values() {
        assert_eq!(parse_limit("", None), Ok(None));
        assert_eq!(parse_limit("1024", None), Ok(Some(1024)));
        assert_eq!(parse_limit("50%", Some(1000)), Ok(Some(500)));
        assert!(parse_limit("50%", None).unwrap_err().contains("unknown"));
        assert!(parse_limit("lots", None).unwrap_err().contains("\"lots\""));
        assert!(parse_limit("150%", Some(1)).is_err());
    }
}
