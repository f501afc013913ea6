//! Host<->device copies.
//!
//! - Small transfers go straight between the caller's (pageable) memory and the device
//!   (`cuMemcpyHtoDAsync`/`cuMemcpyDtoHAsync`); the driver stages them itself.
//! - Large transfers (at least [`staging_threshold`] bytes) go through two pinned
//!   (page-locked, `cuMemHostAlloc`) staging buffers of [`CHUNK`] bytes: while the copy engine
//!   moves one chunk between the device and one pinned buffer, host threads (rayon) copy the
//!   previous chunk between the other pinned buffer and the caller's memory. Several host threads
//!   matter: a fresh destination (a new `Vec`) page-faults on first touch, and the faults are
//!   spread over the threads instead of serialising in one `memcpy`.
//!
//! `CUPY_CUDA_STAGING` picks the path: `off` (always direct), `on` (always staged), or a byte
//! threshold (default [`DEFAULT_THRESHOLD`]).

use cudarc::driver::{result, sys, CudaContext};
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// Bytes per staging chunk (each of the two pinned buffers holds one chunk).
pub const CHUNK: usize = 16 << 20;

/// Transfers of at least this many bytes are staged unless `CUPY_CUDA_STAGING` says otherwise.
pub const DEFAULT_THRESHOLD: usize = 8 << 20;

/// Host copies are split into pieces of this size across rayon's threads.
const PIECE: usize = 1 << 20;

/// The byte count from which transfers are staged through pinned memory (`usize::MAX`: never).
pub fn staging_threshold() -> usize {
    match std::env::var("CUPY_CUDA_STAGING") {
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "off" | "0" | "no" | "false" | "direct" | "pageable" => usize::MAX,
            "on" | "1" | "yes" | "true" | "pinned" => 1,
            s => s.parse().unwrap_or(DEFAULT_THRESHOLD),
        },
        Err(_) => DEFAULT_THRESHOLD,
    }
}

/// `dst.copy_from_slice(src)` spread over rayon's threads.
pub fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    if dst.len() <= 2 * PIECE {
        dst.copy_from_slice(src);
        return;
    }
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// One pinned buffer and the event marking the end of the last device copy that used it.
struct Pinned {
    ptr: *mut u8,
    event: sys::CUevent,
    /// A device copy using this buffer was queued and not yet waited for.
    pending: bool,
}

/// Two pinned staging buffers, allocated on first use and kept until the backend drops.
pub struct Staging {
    ctx: Arc<CudaContext>,
    bufs: Mutex<Option<[Pinned; 2]>>,
}

// SAFETY: the raw pointers are pinned host allocations and events owned by this struct; all use
// goes through the mutex.
unsafe impl Send for Staging {}
// SAFETY: as above.
unsafe impl Sync for Staging {}

fn derr(what: &str, e: impl std::fmt::Debug) -> String {
    format!("{what} failed: {e:?}")
}

impl Staging {
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Staging {
        Staging {
            ctx,
            bufs: Mutex::new(None),
        }
    }

    fn alloc_pair() -> Result<[Pinned; 2], String> {
        let one = || -> Result<Pinned, String> {
            // SAFETY: plain pinned host allocation in the bound context; contents unset (we only
            // ever read what a copy wrote).
            let ptr = unsafe { result::malloc_host(CHUNK, sys::CU_MEMHOSTALLOC_PORTABLE) }
                .map_err(|e| derr("cuMemHostAlloc", e))? as *mut u8;
            let event = match result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) {
                Ok(ev) => ev,
                Err(e) => {
                    // SAFETY: just allocated above.
                    let _ = unsafe { result::free_host(ptr as *mut _) };
                    return Err(derr("cuEventCreate", e));
                }
            };
            Ok(Pinned {
                ptr,
                event,
                pending: false,
            })
        };
        let a = one()?;
        match one() {
            Ok(b) => Ok([a, b]),
            Err(e) => {
                Self::release(a);
                Err(e)
            }
        }
    }

    fn release(p: Pinned) {
        // SAFETY: the event and allocation are ours; waited for before release.
        unsafe {
            if p.pending {
                let _ = result::event::synchronize(p.event);
            }
            let _ = result::event::destroy(p.event);
            let _ = result::free_host(p.ptr as *mut _);
        }
    }

    fn wait(p: &mut Pinned) -> Result<(), String> {
        if p.pending {
            // SAFETY: a live event recorded on our stream.
            unsafe { result::event::synchronize(p.event) }
                .map_err(|e| derr("cuEventSynchronize", e))?;
            p.pending = false;
        }
        Ok(())
    }

    fn with_bufs<R>(
        &self,
        f: impl FnOnce(&mut [Pinned; 2]) -> Result<R, String>,
    ) -> Result<R, String> {
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(Self::alloc_pair()?);
        }
        f(g.as_mut().expect("allocated above"))
    }

    /// Copies `dst.len()` bytes from device address `src` into `dst` through the pinned buffers,
    /// after all work queued on `stream`; returns when `dst` holds them.
    ///
    /// # Safety
    /// `src .. src + dst.len()` must be a live device allocation in the bound context, and
    /// `stream` a live stream of that context.
    pub(crate) unsafe fn download(
        &self,
        stream: sys::CUstream,
        src: sys::CUdeviceptr,
        dst: &mut [u8],
    ) -> Result<(), String> {
        self.with_bufs(|bufs| {
            let total = dst.len();
            let n = total.div_ceil(CHUNK);
            let len_of = |i: usize| CHUNK.min(total - i * CHUNK);
            let enqueue = |bufs: &mut [Pinned; 2], i: usize| -> Result<(), String> {
                let p = &mut bufs[i % 2];
                Self::wait(p)?;
                // SAFETY: the pinned buffer holds CHUNK >= len_of(i) bytes and is not in use
                // (waited above); the device range is inside `src .. src + dst.len()`.
                unsafe {
                    let host = std::slice::from_raw_parts_mut(p.ptr, len_of(i));
                    result::memcpy_dtoh_async(host, src + (i * CHUNK) as u64, stream)
                        .map_err(|e| derr("cuMemcpyDtoHAsync", e))?;
                    result::event::record(p.event, stream).map_err(|e| derr("cuEventRecord", e))?;
                }
                p.pending = true;
                Ok(())
            };
            enqueue(bufs, 0)?;
            for (i, out) in dst.chunks_mut(CHUNK).enumerate() {
                if i + 1 < n {
                    enqueue(bufs, i + 1)?;
                }
                let p = &mut bufs[i % 2];
                Self::wait(p)?;
                // SAFETY: the copy into this buffer has completed (waited above).
                let host = unsafe { std::slice::from_raw_parts(p.ptr, out.len()) };
                parallel_copy(out, host);
            }
            Ok(())
        })
    }

    /// Queues a copy of `src` to device address `dst` through the pinned buffers; returns once
    /// `src` is no longer needed (the last chunk's device copy may still be running).
    ///
    /// # Safety
    /// `dst .. dst + src.len()` must be a live device allocation in the bound context, and
    /// `stream` a live stream of that context.
    pub(crate) unsafe fn upload(
        &self,
        stream: sys::CUstream,
        dst: sys::CUdeviceptr,
        src: &[u8],
    ) -> Result<(), String> {
        self.with_bufs(|bufs| {
            for (i, part) in src.chunks(CHUNK).enumerate() {
                let p = &mut bufs[i % 2];
                Self::wait(p)?;
                // SAFETY: the buffer holds CHUNK bytes and no device copy uses it (waited).
                let host = unsafe { std::slice::from_raw_parts_mut(p.ptr, part.len()) };
                parallel_copy(host, part);
                // SAFETY: pinned source stays alive and untouched until the event says done; the
                // device range is inside `dst .. dst + src.len()`.
                unsafe {
                    result::memcpy_htod_async(dst + (i * CHUNK) as u64, &*host, stream)
                        .map_err(|e| derr("cuMemcpyHtoDAsync", e))?;
                    result::event::record(p.event, stream).map_err(|e| derr("cuEventRecord", e))?;
                }
                p.pending = true;
            }
            Ok(())
        })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let taken = self
            .bufs
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some([a, b]) = taken {
            Self::release(a);
            Self::release(b);
        }
    }
}

/// Device-event timing of work queued on `stream` (milliseconds).
pub(crate) struct EventPair {
    start: sys::CUevent,
    end: sys::CUevent,
}

impl EventPair {
    pub(crate) fn new() -> Result<EventPair, String> {
        let start = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| derr("cuEventCreate", e))?;
        match result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT) {
            Ok(end) => Ok(EventPair { start, end }),
            Err(e) => {
                // SAFETY: created above, never recorded.
                let _ = unsafe { result::event::destroy(start) };
                Err(derr("cuEventCreate", e))
            }
        }
    }

    /// Records the start (`end == false`) or end marker on `stream`.
    ///
    /// # Safety
    /// `stream` must be a live stream of the bound context.
    pub(crate) unsafe fn record(&self, stream: sys::CUstream, end: bool) -> Result<(), String> {
        let ev = if end { self.end } else { self.start };
        // SAFETY: live events; the caller vouches for the stream.
        unsafe { result::event::record(ev, stream) }.map_err(|e| derr("cuEventRecord", e))
    }

    /// Waits for the end marker and returns the elapsed time in milliseconds.
    pub(crate) fn elapsed_ms(&self) -> Result<f32, String> {
        // SAFETY: live events, both recorded on one stream.
        unsafe {
            result::event::synchronize(self.end).map_err(|e| derr("cuEventSynchronize", e))?;
            result::event::elapsed(self.start, self.end).map_err(|e| derr("cuEventElapsedTime", e))
        }
    }
}

impl Drop for EventPair {
    fn drop(&mut self) {
        // SAFETY: our events; destroying a pending event is allowed (released on completion).
        unsafe {
            let _ = result::event::destroy(self.start);
            let _ = result::event::destroy(self.end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_copy_copies() {
        let src: Vec<u8> = (0..(5 * PIECE + 123))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut dst = vec![0u8; src.len()];
        parallel_copy(&mut dst, &src);
        assert_eq!(dst, src);
        let mut small = [0u8; 5];
        parallel_copy(&mut small, &src[..5]);
        assert_eq!(&small, &src[..5]);
    }
}
