//! A caching device allocator for backends that run all work on one stream (CUDA, HIP).
//!
//! Freed blocks go to per-size-class free lists and are reused by later allocations without
//! waiting: on one stream, work queued after a block was freed runs after the work that used it.
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
    bins: HashMap<usize, Vec<u64>>,
    in_use: usize,
    cached: usize,
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
    /// An empty pool.
    pub fn new(driver: D) -> Self {
        CachingPool {
            driver,
            state: Mutex::new(PoolState::default()),
        }
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
        {
            let mut s = self.lock();
            if let Some(p) = s.bins.get_mut(&class).and_then(|v| v.pop()) {
                s.cached -= class;
                s.in_use += class;
                return Ok(p);
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
        let mut s = self.lock();
        s.in_use = s.in_use.saturating_sub(class);
        s.cached += class;
        s.bins.entry(class).or_default().push(ptr);
    }

    /// Synchronizes and frees every cached block; returns the bytes released.
    pub fn trim(&self) -> usize {
        self.driver.synchronize();
        let mut s = self.lock();
        let mut freed = 0;
        for (class, ptrs) in s.bins.drain() {
            for p in ptrs {
                // SAFETY: a cached block is unused, and the device is idle (synchronized).
                unsafe { self.driver.free(p) };
                freed += class;
            }
        }
        s.cached = 0;
        freed
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
}
