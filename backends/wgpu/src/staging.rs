//! Host transfers through rings of reused staging buffers: a transfer is cut into chunks of
//! [`chunk()`] bytes, and up to [`slots()`] chunks are in flight, so the host's copy of one chunk
//! (into or out of a mapped staging buffer) overlaps the device's copy of the others. The
//! staging buffers are made on first use and kept (dropped with the pool's cached blocks,
//! `free_all_blocks`); reads and writes have a ring each. Large host copies are split across
//! threads of rayon's pool ([`par_copy`]).

use crate::{backend_err, WgpuBackend};
use cupy_core::Result;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Bytes per chunk (and per staging buffer): 32 MiB, or `CUPY_WGPU_STAGING_MIB` MiB (1 to
/// 256), read once.
pub(crate) fn chunk() -> u64 {
    static V: OnceLock<u64> = OnceLock::new();
    *V.get_or_init(|| env_in("CUPY_WGPU_STAGING_MIB", 32, 1..=256) << 20)
}

/// Staging buffers per ring (chunks in flight): 4, or `CUPY_WGPU_STAGING_SLOTS` (1 to 16),
/// read once.
pub(crate) fn slots() -> usize {
    static V: OnceLock<u64> = OnceLock::new();
    *V.get_or_init(|| env_in("CUPY_WGPU_STAGING_SLOTS", 4, 1..=16)) as usize
}

/// The integer environment variable `name` if set and within `range`, else `default`.
fn env_in(name: &str, default: u64, range: std::ops::RangeInclusive<u64>) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|v| range.contains(v))
        .unwrap_or(default)
}

/// Where a transfer's time went, printed to stderr per transfer of at least 1 MiB when
/// `CUPY_WGPU_TRANSFER_TRACE=1` (for tuning the staging on a new adapter): queueing the
/// device's copies, waiting for the mappings, and the host's copies.
#[derive(Default)]
struct Trace {
    on: bool,
    queue: std::time::Duration,
    wait: std::time::Duration,
    host: std::time::Duration,
}

impl Trace {
    fn new() -> Trace {
        static ON: OnceLock<bool> = OnceLock::new();
        Trace {
            on: *ON.get_or_init(|| {
                std::env::var("CUPY_WGPU_TRANSFER_TRACE").is_ok_and(|v| v.trim() == "1")
            }),
            ..Trace::default()
        }
    }

    /// Runs `f`, adding its time to the part `pick` selects when tracing.
    fn time<R>(
        &mut self,
        pick: fn(&mut Trace) -> &mut std::time::Duration,
        f: impl FnOnce() -> R,
    ) -> R {
        if !self.on {
            return f();
        }
        let t0 = std::time::Instant::now();
        let r = f();
        *pick(self) += t0.elapsed();
        r
    }

    fn report(&self, what: &str, len: u64, total: std::time::Duration) {
        if self.on && len >= 1 << 20 {
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "cupy wgpu {what}: {len} bytes in {:.3} ms ({:.2} GB/s; chunk {} MiB, {} slots): \
                 queue {:.3} ms, map wait {:.3} ms, host copy {:.3} ms",
                ms(total),
                len as f64 / total.as_secs_f64().max(1e-9) / 1e9,
                chunk() >> 20,
                slots(),
                ms(self.queue),
                ms(self.wait),
                ms(self.host)
            );
        }
    }
}

/// Map states of a slot: not asked, asked, mapped, failed.
const IDLE: u8 = 0;
const PENDING: u8 = 1;
const MAPPED: u8 = 2;
const FAILED: u8 = 3;

/// One staging buffer and the state of its last `map_async`.
struct Slot {
    buf: wgpu::Buffer,
    state: Arc<AtomicU8>,
    /// The submission its pending map waits for.
    sub: Option<wgpu::SubmissionIndex>,
}

/// A ring of staging buffers of one direction.
#[derive(Default)]
pub(crate) struct Ring {
    slots: Vec<Slot>,
}

/// The backend's two rings.
#[derive(Default)]
pub(crate) struct Rings {
    pub(crate) read: Mutex<Ring>,
    pub(crate) write: Mutex<Ring>,
}

impl Rings {
    /// Drops the staging buffers (they are made again on the next transfer).
    pub(crate) fn clear(&self) {
        for r in [&self.read, &self.write] {
            if let Ok(mut r) = r.lock() {
                r.slots.clear();
            }
        }
    }
}

/// Pieces of a host copy of `len` bytes for the thread pool: one per 2 MiB, at most the pool's
/// threads. Reads of a mapped staging buffer run at about 1.5 GB/s per thread on NVIDIA's
/// Vulkan driver (H100, 2026-12-06: the mapping is not host-cached), so a large copy takes every
/// thread.
fn copy_pieces(len: usize) -> usize {
    const PIECE: usize = 2 << 20;
    rayon::current_num_threads().min(len / PIECE).max(1)
}

/// Copies `src` (mapped staging memory) into `dst` (same length), split across rayon's threads
/// when large. (SSE4.1 streaming loads, Intel's guidance for write-combining memory, were tried
/// for the pieces: 1 GiB in 128 ms against 118 ms with plain copies on the H100's host,
/// 2026-12-06; the parallel pieces are what made reads fast.)
pub(crate) fn par_copy(dst: &mut [u8], src: &[u8]) {
    use rayon::prelude::*;
    let pieces = copy_pieces(src.len());
    if pieces == 1 || dst.len() != src.len() {
        dst.copy_from_slice(src);
        return;
    }
    let per = src.len().div_ceil(pieces);
    dst.par_chunks_mut(per)
        .zip(src.par_chunks(per))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// [`par_copy`] into mapped memory written only (`wgpu::WriteOnly`: it may be write-combined).
pub(crate) fn par_copy_to(mut dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    use rayon::prelude::*;
    let pieces = copy_pieces(src.len());
    if pieces == 1 || dst.len() != src.len() {
        dst.copy_from_slice(src);
        return;
    }
    /// The mapped memory's address, handed to the copying threads.
    #[derive(Clone, Copy)]
    struct Dst(*mut u8);
    // SAFETY: each piece writes its own disjoint range (below).
    unsafe impl Send for Dst {}
    unsafe impl Sync for Dst {}
    let base = Dst(dst.as_raw_element_ptr().as_ptr());
    let per = src.len().div_ceil(pieces);
    src.par_chunks(per).enumerate().for_each(|(k, c)| {
        let d = base;
        // SAFETY: `dst` is `src.len()` writable bytes, borrowed until this call returns; the
        // pieces `k * per ..` are disjoint and only written, never read.
        unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), d.0.add(k * per), c.len()) };
    });
}

impl WgpuBackend {
    /// The slot `i` of `ring`, made if missing (`usage`: the staging buffer's; a write ring's
    /// buffers are created mapped).
    fn slot<'a>(&self, ring: &'a mut Ring, i: usize, write: bool) -> &'a mut Slot {
        while ring.slots.len() <= i {
            let usage = if write {
                wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC
            } else {
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST
            };
            let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(if write {
                    "cupy-upload"
                } else {
                    "cupy-download"
                }),
                size: chunk(),
                usage,
                mapped_at_creation: write,
            });
            let state = Arc::new(AtomicU8::new(if write { MAPPED } else { IDLE }));
            ring.slots.push(Slot {
                buf,
                state,
                sub: None,
            });
        }
        &mut ring.slots[i]
    }

    /// Asks for `slot`'s mapping (its first `size` bytes) once the submission `sub` is done.
    fn map_after(&self, slot: &mut Slot, sub: wgpu::SubmissionIndex, write: bool, size: u64) {
        slot.state.store(PENDING, Ordering::SeqCst);
        let st = slot.state.clone();
        let mode = if write {
            wgpu::MapMode::Write
        } else {
            wgpu::MapMode::Read
        };
        slot.buf.map_async(mode, ..size, move |r| {
            st.store(if r.is_ok() { MAPPED } else { FAILED }, Ordering::SeqCst);
        });
        slot.sub = Some(sub);
    }

    /// Waits until `slot` is mapped (its submission done and the callback run).
    fn wait_mapped(&self, slot: &mut Slot) -> Result<()> {
        // Its submission, then (should the callback not have run with it) everything queued.
        for tries in 0..3 {
            match slot.state.load(Ordering::SeqCst) {
                MAPPED => return Ok(()),
                FAILED => {
                    slot.state.store(IDLE, Ordering::SeqCst);
                    return Err(backend_err(
                        &self.label(),
                        "map_async of a staging buffer failed",
                    ));
                }
                IDLE => {
                    return Err(backend_err(
                        &self.label(),
                        "a staging buffer was not mapped",
                    ))
                }
                _ => {}
            }
            let sub = if tries == 0 { slot.sub.clone() } else { None };
            self.wait_submission(sub)?;
        }
        // The submission is done, but wgpu runs map callbacks on whichever thread polls: one
        // another thread's poll took may still be running there (seen under concurrent tests
        // on llvmpipe). Wait for it, polling, for up to 10 s.
        let t0 = std::time::Instant::now();
        while t0.elapsed() < std::time::Duration::from_secs(10) {
            match slot.state.load(Ordering::SeqCst) {
                MAPPED => return Ok(()),
                FAILED => {
                    slot.state.store(IDLE, Ordering::SeqCst);
                    return Err(backend_err(
                        &self.label(),
                        "map_async of a staging buffer failed",
                    ));
                }
                _ => {}
            }
            let _ = self.device.poll(wgpu::PollType::Poll);
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        Err(backend_err(
            &self.label(),
            "a staging buffer's mapping did not complete after its copy",
        ))
    }

    /// Writes `bytes` (storage words, `dst` byte offset and length multiples of 4) into `dst`
    /// through the write ring, chunk by chunk; the pending work is submitted first, so the
    /// write lands after it. `fill(dst, at)` copies the source bytes from `at` into the mapped
    /// chunk `dst`.
    pub(crate) fn upload(
        &self,
        dst: &wgpu::Buffer,
        offset: u64,
        len: u64,
        fill: &(dyn Fn(wgpu::WriteOnly<'_, [u8]>, usize) + Sync),
    ) -> Result<()> {
        let mut ring = self
            .rings
            .write
            .lock()
            .map_err(|_| backend_err(&self.label(), "poisoned staging lock"))?;
        let r = self.upload_ring(&mut ring, dst, offset, len, fill);
        if r.is_err() {
            // Leave no slot mapped or pending for the next transfer.
            ring.slots.clear();
        }
        r
    }

    fn upload_ring(
        &self,
        ring: &mut Ring,
        dst: &wgpu::Buffer,
        offset: u64,
        len: u64,
        fill: &(dyn Fn(wgpu::WriteOnly<'_, [u8]>, usize) + Sync),
    ) -> Result<()> {
        let t0 = std::time::Instant::now();
        let mut trace = Trace::new();
        let (chunk, slots) = (chunk(), slots());
        {
            let mut p = self.lock_pending()?;
            self.submit_locked(&mut p);
        }
        let mut at = 0u64;
        let mut k = 0usize;
        while at < len {
            let n = chunk.min(len - at);
            let slot = self.slot(ring, k % slots, true);
            trace.time(|t| &mut t.wait, || self.wait_mapped(slot))?;
            trace.time(
                |t| &mut t.host,
                || -> Result<()> {
                    let mut view = slot.buf.get_mapped_range_mut(..n).map_err(|e| {
                        backend_err(&self.label(), format!("get_mapped_range_mut: {e}"))
                    })?;
                    fill(view.slice(..), at as usize);
                    Ok(())
                },
            )?;
            slot.buf.unmap();
            slot.state.store(IDLE, Ordering::SeqCst);
            let sub = trace.time(
                |t| &mut t.queue,
                || -> Result<_> {
                    let mut p = self.lock_pending()?;
                    p.encoder(&self.device).copy_buffer_to_buffer(
                        &slot.buf,
                        0,
                        dst,
                        offset + at,
                        n,
                    );
                    Ok(self.submit_locked(&mut p))
                },
            )?;
            match sub {
                Some(sub) => self.map_after(slot, sub, true, chunk),
                None => return Err(backend_err(&self.label(), "an upload was not submitted")),
            }
            at += n;
            k += 1;
        }
        trace.report("upload", len, t0.elapsed());
        Ok(())
    }

    /// Reads `len` bytes from byte `offset` of `src` (multiples of 4) through the read ring
    /// after all queued work, handing each chunk to `take(bytes, at)` (`at`: its place from
    /// `offset`) while the next chunks are copied.
    pub(crate) fn download(
        &self,
        src: &wgpu::Buffer,
        offset: u64,
        len: u64,
        take: &mut dyn FnMut(&[u8], usize),
    ) -> Result<()> {
        let mut ring = self
            .rings
            .read
            .lock()
            .map_err(|_| backend_err(&self.label(), "poisoned staging lock"))?;
        let t0 = std::time::Instant::now();
        let mut trace = Trace::new();
        let (chunk, slots) = (chunk(), slots());
        let chunks = len.div_ceil(chunk) as usize;
        let piece = |c: usize| {
            let at = c as u64 * chunk;
            (at, chunk.min(len - at))
        };
        // Queues chunk `c`'s copy into its slot, then its mapping.
        let start = |be: &WgpuBackend, ring: &mut Ring, c: usize| -> Result<()> {
            let (at, n) = piece(c);
            let slot = be.slot(ring, c % slots, false);
            let sub = {
                let mut p = be.lock_pending()?;
                p.encoder(&be.device)
                    .copy_buffer_to_buffer(src, offset + at, &slot.buf, 0, n);
                be.submit_locked(&mut p)
            };
            match sub {
                Some(sub) => be.map_after(slot, sub, false, n.next_multiple_of(8).min(chunk)),
                None => return Err(backend_err(&be.label(), "a download was not submitted")),
            }
            Ok(())
        };
        for c in 0..chunks.min(slots) {
            trace.time(|t| &mut t.queue, || start(self, &mut ring, c))?;
        }
        let mut failed = None;
        for c in 0..chunks {
            let (at, n) = piece(c);
            let r = {
                let slot = self.slot(&mut ring, c % slots, false);
                trace
                    .time(|t| &mut t.wait, || self.wait_mapped(slot))
                    .and_then(|()| {
                        trace.time(
                            |t| &mut t.host,
                            || -> Result<()> {
                                let view = slot.buf.get_mapped_range(..n).map_err(|e| {
                                    backend_err(&self.label(), format!("get_mapped_range: {e}"))
                                })?;
                                take(&view, at as usize);
                                Ok(())
                            },
                        )?;
                        slot.buf.unmap();
                        slot.state.store(IDLE, Ordering::SeqCst);
                        Ok(())
                    })
            };
            if let Err(e) = r {
                failed = Some(e);
                break;
            }
            if c + slots < chunks {
                trace.time(|t| &mut t.queue, || start(self, &mut ring, c + slots))?;
            }
        }
        trace.report("download", len, t0.elapsed());
        if let Some(e) = failed {
            // Leave no slot mapped or pending for the next transfer.
            ring.slots.clear();
            return Err(e);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::par_copy;

    /// Every head alignment and tail length gives the source's bytes, split or not.
    #[test]
    fn mapped_copies_are_exact_at_every_alignment() {
        let src: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect();
        for start in 0..20 {
            for len in [0, 1, 15, 16, 63, 64, 127, 128, 129, 200, 1000, 4000 - start] {
                let s = &src[start..start + len];
                let mut d = vec![0u8; len];
                par_copy(&mut d, s);
                assert_eq!(d, s, "start {start}, len {len}");
            }
        }
        let big: Vec<u8> = (0..(9 << 20) + 5).map(|i: usize| (i % 251) as u8).collect();
        let mut d = vec![0u8; big.len() - 3];
        par_copy(&mut d, &big[3..]);
        assert!(d == big[3..], "a parallel copy of 9 MiB from an odd offset");
    }
}
