//! Streams and events on CUDA (`cuStream*`, `cuEvent*` through cudarc's driver API).
//!
//! The backend's own stream (made when the device opened) is the default stream: work goes
//! there outside any `with_stream`. A user stream is a `cuStreamCreate` stream
//! (`CU_STREAM_DEFAULT`, or `CU_STREAM_NON_BLOCKING`); every op asks
//! [`CudaBackend::cur_stream`] for the thread's current one. The pool keeps each stream's free
//! blocks apart ([`cupy_core::gpu::pool`]); when a user stream is destroyed, the default stream
//! first waits for its work and then takes over its cached blocks.

use crate::alloc::Pool;
use crate::CudaBackend;
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use cupy_core::backend::stream::{backend_key, current};
use cupy_core::backend::{NativeEvent, NativeStream};
use cupy_core::{Error, Result};
use std::sync::Arc;

/// A user stream (`cupy.cuda.Stream`) of a CUDA device.
pub struct CudaUserStream {
    pub(crate) raw: sys::CUstream,
    ctx: Arc<CudaContext>,
    pool: Arc<Pool>,
    default: Arc<CudaStream>,
    lane: Arc<LibLane>,
}

// SAFETY: a stream handle may be used from any thread with its context bound.
unsafe impl Send for CudaUserStream {}
// SAFETY: as above.
unsafe impl Sync for CudaUserStream {}

impl Drop for CudaUserStream {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // Order the default stream after this stream's work, then let it reuse the blocks
        // cached for this stream (the handle value may be reused by a later stream).
        if let Ok(ev) = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) {
            // SAFETY: live stream and event of the bound context; the event is destroyed after
            // the wait is queued (released when it completes).
            unsafe {
                let _ = result::event::record(ev, self.raw);
                let _ = result::stream::wait_event(
                    self.default.cu_stream(),
                    ev,
                    sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                );
                let _ = result::event::destroy(ev);
            }
        }
        self.pool.0.retag(self.raw as u64, 0);
        self.lane.forget(self.raw, self.default.cu_stream());
        // SAFETY: created by cuStreamCreate, destroyed once; queued work still completes.
        let _ = unsafe { result::stream::destroy(self.raw) };
    }
}

/// An event (`cupy.cuda.Event`) of a CUDA device.
pub struct CudaEvent {
    raw: sys::CUevent,
    ctx: Arc<CudaContext>,
    timing: bool,
}

// SAFETY: an event handle may be used from any thread with its context bound.
unsafe impl Send for CudaEvent {}
// SAFETY: as above.
unsafe impl Sync for CudaEvent {}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: created by cuEventCreate, destroyed once.
        let _ = unsafe { result::event::destroy(self.raw) };
    }
}

fn not_ours(op: &str) -> Error {
    Error::invalid(op, "the stream or event belongs to another device")
}

impl CudaBackend {
    /// The thread's current stream of this device (the backend's own stream by default).
    pub(crate) fn cur_stream(&self) -> sys::CUstream {
        match current(backend_key(self)) {
            Some(s) => s
                .downcast_ref::<CudaUserStream>()
                .map_or(self.stream.cu_stream(), |u| u.raw),
            None => self.stream.cu_stream(),
        }
    }

    /// The pool's tag of the current stream (0: the default stream).
    pub(crate) fn stream_tag(&self) -> u64 {
        let s = self.cur_stream();
        if s == self.stream.cu_stream() {
            0
        } else {
            s as u64
        }
    }

    pub(crate) fn raw_stream(&self, op: &str, s: Option<&NativeStream>) -> Result<sys::CUstream> {
        match s {
            None => Ok(self.stream.cu_stream()),
            Some(s) => s
                .downcast_ref::<CudaUserStream>()
                .filter(|u| Arc::ptr_eq(&u.ctx, &self.ctx))
                .map(|u| u.raw)
                .ok_or_else(|| not_ours(op)),
        }
    }

    fn raw_event<'a>(&self, op: &str, e: &'a NativeEvent) -> Result<&'a CudaEvent> {
        e.downcast_ref::<CudaEvent>()
            .filter(|c| Arc::ptr_eq(&c.ctx, &self.ctx))
            .ok_or_else(|| not_ours(op))
    }

    pub(crate) fn stream_create_impl(&self, non_blocking: bool) -> Result<Option<NativeStream>> {
        use result::stream::StreamKind;
        self.bind()?;
        let kind = if non_blocking {
            StreamKind::NonBlocking
        } else {
            StreamKind::Default
        };
        let raw = result::stream::create(kind)
            .map_err(|e| self.err(format!("cuStreamCreate failed: {e:?}")))?;
        Ok(Some(Arc::new(CudaUserStream {
            raw,
            ctx: self.ctx.clone(),
            pool: self.pool.clone(),
            default: self.stream.clone(),
            lane: self.lane.clone(),
        })))
    }

    pub(crate) fn stream_synchronize_impl(&self, s: Option<&NativeStream>) -> Result<()> {
        let raw = self.raw_stream("Stream.synchronize", s)?;
        self.bind()?;
        // SAFETY: a live stream of our context.
        unsafe { result::stream::synchronize(raw) }
            .map_err(|e| self.err(format!("cuStreamSynchronize failed: {e:?}")))
    }

    pub(crate) fn stream_query_impl(&self, s: Option<&NativeStream>) -> Result<bool> {
        let raw = self.raw_stream("Stream.query", s)?;
        self.bind()?;
        // SAFETY: a live stream of our context.
        ready(unsafe { sys::cuStreamQuery(raw) })
            .map_err(|e| self.err(format!("cuStreamQuery failed: {e:?}")))
    }

    pub(crate) fn stream_wait_event_impl(
        &self,
        s: Option<&NativeStream>,
        e: &NativeEvent,
    ) -> Result<()> {
        let raw = self.raw_stream("Stream.wait_event", s)?;
        let ev = self.raw_event("Stream.wait_event", e)?;
        self.bind()?;
        // SAFETY: live stream and event of our context.
        unsafe {
            result::stream::wait_event(raw, ev.raw, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
        }
        .map_err(|e| self.err(format!("cuStreamWaitEvent failed: {e:?}")))
    }

    pub(crate) fn event_create_impl(&self, timing: bool) -> Result<NativeEvent> {
        self.bind()?;
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let raw = result::event::create(flags)
            .map_err(|e| self.err(format!("cuEventCreate failed: {e:?}")))?;
        Ok(Arc::new(CudaEvent {
            raw,
            ctx: self.ctx.clone(),
            timing,
        }))
    }

    pub(crate) fn event_record_impl(
        &self,
        e: &NativeEvent,
        s: Option<&NativeStream>,
    ) -> Result<()> {
        let raw = self.raw_stream("Event.record", s)?;
        let ev = self.raw_event("Event.record", e)?;
        self.bind()?;
        // SAFETY: live stream and event of our context.
        unsafe { result::event::record(ev.raw, raw) }
            .map_err(|e| self.err(format!("cuEventRecord failed: {e:?}")))
    }

    pub(crate) fn event_synchronize_impl(&self, e: &NativeEvent) -> Result<()> {
        let ev = self.raw_event("Event.synchronize", e)?;
        self.bind()?;
        // SAFETY: a live event of our context.
        unsafe { result::event::synchronize(ev.raw) }
            .map_err(|e| self.err(format!("cuEventSynchronize failed: {e:?}")))
    }

    pub(crate) fn event_query_impl(&self, e: &NativeEvent) -> Result<bool> {
        let ev = self.raw_event("Event.query", e)?;
        self.bind()?;
        // SAFETY: a live event of our context.
        ready(unsafe { sys::cuEventQuery(ev.raw) })
            .map_err(|e| self.err(format!("cuEventQuery failed: {e:?}")))
    }

    pub(crate) fn event_elapsed_impl(&self, a: &NativeEvent, b: &NativeEvent) -> Result<f32> {
        const OP: &str = "get_elapsed_time";
        let (a, b) = (self.raw_event(OP, a)?, self.raw_event(OP, b)?);
        if !a.timing || !b.timing {
            return Err(Error::invalid(
                OP,
                "an event was created with timing disabled",
            ));
        }
        self.bind()?;
        // SAFETY: live events of our context.
        unsafe { result::event::elapsed(a.raw, b.raw) }.map_err(|e| {
            Error::invalid(
                OP,
                format!(
                    "cuEventElapsedTime: {e:?} (both events recorded and the end one complete?)"
                ),
            )
        })
    }
}

/// `CUDA_SUCCESS` is done, `CUDA_ERROR_NOT_READY` not yet, anything else an error.
fn ready(r: sys::CUresult) -> std::result::Result<bool, sys::CUresult> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(e),
    }
}

/// The stream of the last cuBLAS/cuFFT/cuSOLVER call. Their handles and plans hold one work
/// area each, so a library call on another stream first waits (on the device) for the previous
/// one: library calls of two streams do not overlap each other; everything else may.
#[derive(Default)]
pub(crate) struct LibLane {
    last: std::sync::Mutex<usize>,
}

impl CudaBackend {
    /// Orders the library call about to be queued on the current stream after the previous
    /// library call when that was on another stream ([`LibLane`]).
    pub(crate) fn order_library(&self) -> std::result::Result<(), String> {
        // A wait on a capturing stream for an event recorded outside the capture would
        // invalidate it; the graph's launches are ordered instead (`graph.rs`).
        if self.current_capturing() {
            return Ok(());
        }
        let cur = self.cur_stream();
        let mut last = self.lane.last.lock().unwrap_or_else(|e| e.into_inner());
        let prev = std::mem::replace(&mut *last, cur as usize);
        if prev == 0 || prev == cur as usize {
            return Ok(());
        }
        let ev = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| format!("cuEventCreate: {e:?}"))?;
        // SAFETY: `prev` is a live stream of our context (a user stream's drop goes through
        // the default stream, and the default stream outlives the backend's calls); the event
        // is destroyed after the wait is queued.
        unsafe {
            let r = result::event::record(ev, prev as sys::CUstream).and_then(|_| {
                result::stream::wait_event(cur, ev, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
            });
            let _ = result::event::destroy(ev);
            r.map_err(|e| format!("ordering library calls across streams: {e:?}"))
        }
    }
}

impl LibLane {
    /// Hands `raw`'s place as the last library stream to `default` (`raw` is being destroyed
    /// after `default` was ordered after it).
    fn forget(&self, raw: sys::CUstream, default: sys::CUstream) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if *last == raw as usize {
            *last = default as usize;
        }
    }
}
