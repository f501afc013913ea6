//! Host transfers through rings of reused staging buffers: a transfer is cut into chunks of
//! [`CHUNK`] bytes, and up to [`SLOTS`] chunks are in flight, so the host's copy of one chunk
//! (into or out of a mapped staging buffer) overlaps the device's copy of the others. The
//! staging buffers are made on first use and kept (dropped with the pool's cached blocks,
//! `free_all_blocks`); reads and writes have a ring each. Large host copies are split across
//! threads of rayon's pool ([`par_copy`]).

use crate::{backend_err, WgpuBackend};
use cupy_core::Result;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes per chunk (and per staging buffer).
pub(crate) const CHUNK: u64 = 16 << 20;
/// Staging buffers per ring (chunks in flight).
pub(crate) const SLOTS: usize = 4;

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

/// Pieces of a host copy of `len` bytes for the thread pool (one per 4 MiB, at most 8 and
/// the pool's threads).
fn copy_pieces(len: usize) -> usize {
    const PIECE: usize = 4 << 20;
    rayon::current_num_threads().min(8).min(len / PIECE).max(1)
}

/// Copies `src` into `dst` (same length), split across rayon's threads when large.
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
                size: CHUNK,
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
        {
            let mut p = self.lock_pending()?;
            self.submit_locked(&mut p);
        }
        let mut at = 0u64;
        let mut k = 0usize;
        while at < len {
            let n = CHUNK.min(len - at);
            let slot = self.slot(ring, k % SLOTS, true);
            self.wait_mapped(slot)?;
            {
                let mut view = slot.buf.get_mapped_range_mut(..n).map_err(|e| {
                    backend_err(&self.label(), format!("get_mapped_range_mut: {e}"))
                })?;
                fill(view.slice(..), at as usize);
            }
            slot.buf.unmap();
            slot.state.store(IDLE, Ordering::SeqCst);
            let sub = {
                let mut p = self.lock_pending()?;
                p.encoder(&self.device)
                    .copy_buffer_to_buffer(&slot.buf, 0, dst, offset + at, n);
                self.submit_locked(&mut p)
            };
            match sub {
                Some(sub) => self.map_after(slot, sub, true, CHUNK),
                None => return Err(backend_err(&self.label(), "an upload was not submitted")),
            }
            at += n;
            k += 1;
        }
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
        let chunks = len.div_ceil(CHUNK) as usize;
        let piece = |c: usize| {
            let at = c as u64 * CHUNK;
            (at, CHUNK.min(len - at))
        };
        // Queues chunk `c`'s copy into its slot, then its mapping.
        let start = |be: &WgpuBackend, ring: &mut Ring, c: usize| -> Result<()> {
            let (at, n) = piece(c);
            let slot = be.slot(ring, c % SLOTS, false);
            let sub = {
                let mut p = be.lock_pending()?;
                p.encoder(&be.device)
                    .copy_buffer_to_buffer(src, offset + at, &slot.buf, 0, n);
                be.submit_locked(&mut p)
            };
            match sub {
                Some(sub) => be.map_after(slot, sub, false, n.next_multiple_of(8).min(CHUNK)),
                None => return Err(backend_err(&be.label(), "a download was not submitted")),
            }
            Ok(())
        };
        for c in 0..chunks.min(SLOTS) {
            start(self, &mut ring, c)?;
        }
        let mut failed = None;
        for c in 0..chunks {
            let (at, n) = piece(c);
            let r = {
                let slot = self.slot(&mut ring, c % SLOTS, false);
                self.wait_mapped(slot).and_then(|()| {
                    {
                        let view = slot.buf.get_mapped_range(..n).map_err(|e| {
                            backend_err(&self.label(), format!("get_mapped_range: {e}"))
                        })?;
                        take(&view, at as usize);
                    }
                    slot.buf.unmap();
                    slot.state.store(IDLE, Ordering::SeqCst);
                    Ok(())
                })
            };
            if let Err(e) = r {
                failed = Some(e);
                break;
            }
            if c + SLOTS < chunks {
                start(self, &mut ring, c + SLOTS)?;
            }
        }
        if let Some(e) = failed {
            // Leave no slot mapped or pending for the next transfer.
            ring.slots.clear();
            return Err(e);
        }
        Ok(())
    }
}
