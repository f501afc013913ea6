//! The pool's logic on a fake driver.

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
    mallocs: AtomicUsize,
    /// Live allocations: address -> bytes.
    live: std::sync::Mutex<std::collections::HashMap<u64, usize>>,
}

fn fake(cap: usize) -> Fake {
    Fake {
        cap,
        used: AtomicUsize::new(0),
        next: AtomicUsize::new(0),
        syncs: AtomicUsize::new(0),
        mallocs: AtomicUsize::new(0),
        live: Default::default(),
    }
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
        self.mallocs.fetch_add(1, Ordering::SeqCst);
        // Segments lie back to back, as a real driver may place them.
        let p = self.next.fetch_add(bytes, Ordering::SeqCst) as u64 + 4096;
        self.live.lock().unwrap().insert(p, bytes);
        Ok(p)
    }
    unsafe fn free(&self, ptr: u64) {
        let bytes = self.live.lock().unwrap().remove(&ptr).expect("freed once");
        self.used.fetch_sub(bytes, Ordering::SeqCst);
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
    let pool = CachingPool::new(fake(2048));
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
    let pool = CachingPool::new(fake(1 << 20));
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
fn stats_and_limit() {
    let pool = CachingPool::new(fake(1 << 20));
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
    // 0 disables the limit, as CuPy's set_limit(size=0).
    assert_eq!(parse_limit("0", None), Ok(None));
    assert_eq!(parse_limit("0%", None), Ok(None));
}

#[test]
fn blocks_split_and_coalesce() {
    let pool = CachingPool::new(fake(1 << 20));
    let big = pool.take(4096).unwrap();
    pool.give(big, 4096);
    // Two small requests are cut from the cached 4096-byte block: no new segment.
    let a = pool.take(1024).unwrap();
    let b = pool.take(1024).unwrap();
    assert_eq!((a, b), (big, big + 1024));
    assert_eq!(pool.driver().mallocs.load(Ordering::SeqCst), 1);
    assert_eq!(pool.stats().n_free_blocks, 1, "the 2048-byte rest");
    assert_eq!(pool.usage(), (2048, 2048));
    // A free segment piece of another stream is not used, nor merged.
    let c = pool.take_on(9, 1024).unwrap();
    assert!(c >= big + 4096, "a new segment for stream 9");
    // Freed in any order, the pieces merge back into one block of the segment.
    pool.give(a, 1024);
    assert_eq!(pool.stats().n_free_blocks, 2);
    pool.give(b, 1024);
    assert_eq!(pool.stats().n_free_blocks, 1, "a + b + rest coalesced");
    assert_eq!(pool.take(4096).unwrap(), big, "the whole segment again");
    pool.give(big, 4096);
    pool.give_on(9, c, 1024);
    // Only whole cached segments go back to the driver; a partly used one stays.
    let d = pool.take(512).unwrap();
    assert_eq!(pool.trim(), 1024, "stream 9's segment");
    assert_eq!(pool.usage(), (512, 4096 - 512));
    pool.give(d, 512);
    assert_eq!(pool.trim(), 4096);
    assert_eq!(pool.driver().used.load(Ordering::SeqCst), 0);
    assert_eq!(pool.stats(), PoolStats::default());
}

#[test]
fn a_rest_too_small_to_split_stays_with_the_block() {
    let pool = CachingPool::new(fake(1 << 20));
    let a = pool.take(1536).unwrap();
    pool.give(a, 1536);
    // 1536 - 1024 = 512 is the smallest block: split. 1536 - 1280 = 256 is not.
    let b = pool.take(1280).unwrap();
    assert_eq!(b, a);
    assert_eq!(pool.usage(), (1536, 0), "the whole block is in use");
    pool.give(b, 1280);
    assert_eq!(pool.usage(), (0, 1536));
    assert_eq!(pool.stats().n_free_blocks, 1);
}

/// Random takes and gives on three streams against a model: blocks in use never overlap and lie
/// in live driver allocations, the counters add up, and everything goes back at the end.
#[test]
fn random_traffic_keeps_blocks_disjoint() {
    let pool = CachingPool::new(fake(1 << 30));
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut held: Vec<(u64, u64, usize)> = vec![]; // (stream, address, class)
    for step in 0..20_000 {
        if held.is_empty() || (held.len() < 100 && rand(100) < 50) {
            let range = if rand(10) == 0 { 1 << 21 } else { 40_000 };
            let class = size_class(1 + rand(range) as usize);
            let stream = rand(3);
            let p = pool.take_on(stream, class).unwrap();
            for &(_, q, qc) in &held {
                assert!(
                    p + class as u64 <= q || q + qc as u64 <= p,
                    "step {step}: overlap"
                );
            }
            let live = pool.driver().live.lock().unwrap();
            assert!(
                live.iter()
                    .any(|(&s, &len)| p >= s && p + class as u64 <= s + len as u64),
                "step {step}: outside every segment"
            );
            drop(live);
            held.push((stream, p, class));
        } else {
            let (stream, p, class) = held.swap_remove(rand(held.len() as u64) as usize);
            pool.give_on(stream, p, class);
        }
        let (used, cached) = pool.usage();
        assert!(
            used >= held.iter().map(|h| h.2).sum::<usize>(),
            "step {step}"
        );
        assert_eq!(
            used + cached,
            pool.driver().used.load(Ordering::SeqCst),
            "step {step}: the pool holds what the driver gave"
        );
        if step % 5000 == 4999 {
            pool.trim();
        }
    }
    for (stream, p, class) in held.drain(..) {
        pool.give_on(stream, p, class);
    }
    assert_eq!(pool.usage().0, 0);
    pool.trim();
    assert_eq!(
        pool.driver().used.load(Ordering::SeqCst),
        0,
        "every segment went back"
    );
    assert_eq!(pool.stats().n_free_blocks, 0);
}

#[test]
fn holds_keep_blocks_for_a_graph() {
    let pool = CachingPool::new(fake(1 << 20));
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
