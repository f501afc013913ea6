//! Streams and events on HIP (`hipStream*`, `hipEvent*` through the dynamic FFI), as
//! `cupy-cuda`'s `streams.rs` does them on CUDA.
//!
//! The backend's own stream is the default stream. A user stream is a
//! `hipStreamCreateWithFlags` stream (`hipStreamDefault` or `hipStreamNonBlocking`); every op
//! asks [`HipBackend::cur_stream`] for the thread's current one. Each stream has its own free
//! blocks in the pool; a destroyed stream's blocks pass to the default stream after it waits
//! for that stream's work. rocBLAS/rocFFT/rocSOLVER calls are ordered across streams (their
//! handles and plans hold one work area each, [`LibLane`]).

use super::*;
use cupy_core::backend::stream::{backend_key, current};
use cupy_core::backend::{NativeEvent, NativeStream};

/// A user stream (`cupy.cuda.Stream`) of a HIP device.
pub struct HipUserStream {
    pub(crate) raw: Handle,
    hip: Arc<Hip>,
    dev: i32,
    pool: Arc<Pool>,
    default: Handle,
    lane: Arc<LibLane>,
}

impl Drop for HipUserStream {
    fn drop(&mut self) {
        let _ = self.hip.set_device(self.dev);
        // SAFETY: live stream handles of our device; the event is destroyed after the wait
        // is queued (released when it completes); the stream once, its work still completes.
        unsafe {
            if let Ok(ev) = event_create(&self.hip, false) {
                let _ = self.hip.event_record(ev, self.raw.0);
                let _ = (self.hip.api.hipStreamWaitEvent)(self.default.0, ev, 0);
                let _ = self.hip.event_destroy(ev);
            }
            self.pool.inner.retag(self.raw.0 as u64, 0);
            self.lane.forget(self.raw.0, self.default.0);
            let _ = self.hip.stream_destroy(self.raw.0);
        }
    }
}

/// An event (`cupy.cuda.Event`) of a HIP device.
pub struct HipEvent {
    raw: Handle,
    hip: Arc<Hip>,
    dev: i32,
    timing: bool,
}

impl Drop for HipEvent {
    fn drop(&mut self) {
        let _ = self.hip.set_device(self.dev);
        // SAFETY: created by hipEventCreateWithFlags, destroyed once.
        let _ = unsafe { self.hip.event_destroy(self.raw.0) };
    }
}

/// `hipEventCreateWithFlags` (timing, or `hipEventDisableTiming`).
pub(super) fn event_create(
    hip: &Hip,
    timing: bool,
) -> std::result::Result<h::hipEvent_t, HipError> {
    let flags = if timing {
        h::hipEventDefault
    } else {
        h::hipEventDisableTiming
    };
    let mut e: h::hipEvent_t = std::ptr::null_mut();
    // SAFETY: out pointer to a local.
    hip.check("hipEventCreateWithFlags", unsafe {
        (hip.api.hipEventCreateWithFlags)(&mut e, flags)
    })?;
    Ok(e)
}

/// `hipSuccess` is done, `hipErrorNotReady` not yet, anything else an error.
fn ready(
    hip: &Hip,
    call: &'static str,
    code: h::hipError_t,
) -> std::result::Result<bool, HipError> {
    if code == h::hipErrorNotReady {
        return Ok(false);
    }
    hip.check(call, code).map(|_| true)
}

fn not_ours(op: &str) -> Error {
    Error::invalid(op, "the stream or event belongs to another device")
}

/// The stream of the last rocBLAS/rocFFT/rocSOLVER call (see the module docs).
#[derive(Default)]
pub(crate) struct LibLane {
    last: Mutex<usize>,
}

impl LibLane {
    fn forget(&self, raw: h::hipStream_t, default: h::hipStream_t) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if *last == raw as usize {
            *last = default as usize;
        }
    }
}

impl HipBackend {
    /// The thread's current stream of this device (the backend's own stream by default).
    pub(crate) fn cur_stream(&self) -> h::hipStream_t {
        match current(backend_key(self)) {
            Some(s) => s
                .downcast_ref::<HipUserStream>()
                .map_or(self.stream.0, |u| u.raw.0),
            None => self.stream.0,
        }
    }

    /// The pool's tag of the current stream (0: the default stream).
    pub(crate) fn stream_tag(&self) -> u64 {
        let s = self.cur_stream();
        if s == self.stream.0 {
            0
        } else {
            s as u64
        }
    }

    /// Orders the library call about to be queued on the current stream after the previous
    /// library call when that was on another stream ([`LibLane`]).
    pub(crate) fn order_library(&self) -> Result<()> {
        // As on cuda: not while capturing; the graph's launches are ordered instead.
        if self.current_capturing() {
            return Ok(());
        }
        let cur = self.cur_stream();
        let mut last = self.lane.last.lock().unwrap_or_else(|e| e.into_inner());
        let prev = std::mem::replace(&mut *last, cur as usize);
        if prev == 0 || prev == cur as usize {
            return Ok(());
        }
        let ev = event_create(&self.hip, false).map_err(|e| self.err(e))?;
        // SAFETY: `prev` is a live stream of our device (a dying user stream hands its place
        // to the default stream); the event is destroyed after the wait is queued.
        unsafe {
            let r = self
                .hip
                .event_record(ev, prev as h::hipStream_t)
                .and_then(|_| {
                    self.hip.check(
                        "hipStreamWaitEvent",
                        (self.hip.api.hipStreamWaitEvent)(cur, ev, 0),
                    )
                });
            let _ = self.hip.event_destroy(ev);
            r.map_err(|e| self.err(e))
        }
    }

    pub(super) fn raw_stream(&self, op: &str, s: Option<&NativeStream>) -> Result<h::hipStream_t> {
        match s {
            None => Ok(self.stream.0),
            Some(s) => s
                .downcast_ref::<HipUserStream>()
                .filter(|u| Arc::ptr_eq(&u.pool, &self.pool))
                .map(|u| u.raw.0)
                .ok_or_else(|| not_ours(op)),
        }
    }

    fn raw_event<'a>(&self, op: &str, e: &'a NativeEvent) -> Result<&'a HipEvent> {
        e.downcast_ref::<HipEvent>()
            .filter(|x| x.dev == self.dev && Arc::ptr_eq(&x.hip, &self.hip))
            .ok_or_else(|| not_ours(op))
    }

    pub(crate) fn stream_create_impl(&self, non_blocking: bool) -> Result<Option<NativeStream>> {
        self.current()?;
        let flags = if non_blocking {
            h::hipStreamNonBlocking
        } else {
            h::hipStreamDefault
        };
        let mut s: h::hipStream_t = std::ptr::null_mut();
        // SAFETY: out pointer to a local.
        self.hip
            .check("hipStreamCreateWithFlags", unsafe {
                (self.hip.api.hipStreamCreateWithFlags)(&mut s, flags)
            })
            .map_err(|e| self.err(e))?;
        Ok(Some(Arc::new(HipUserStream {
            raw: Handle(s),
            hip: self.hip.clone(),
            dev: self.dev,
            pool: self.pool.clone(),
            default: self.stream,
            lane: self.lane.clone(),
        })))
    }

    pub(crate) fn stream_synchronize_impl(&self, s: Option<&NativeStream>) -> Result<()> {
        let raw = self.raw_stream("Stream.synchronize", s)?;
        self.current()?;
        // SAFETY: a live stream of our device.
        unsafe { self.hip.stream_sync(raw) }.map_err(|e| self.err(e))
    }

    pub(crate) fn stream_query_impl(&self, s: Option<&NativeStream>) -> Result<bool> {
        let raw = self.raw_stream("Stream.query", s)?;
        self.current()?;
        // SAFETY: a live stream of our device.
        let code = unsafe { (self.hip.api.hipStreamQuery)(raw) };
        ready(&self.hip, "hipStreamQuery", code).map_err(|e| self.err(e))
    }

    pub(crate) fn stream_wait_event_impl(
        &self,
        s: Option<&NativeStream>,
        e: &NativeEvent,
    ) -> Result<()> {
        let raw = self.raw_stream("Stream.wait_event", s)?;
        let ev = self.raw_event("Stream.wait_event", e)?;
        self.current()?;
        // SAFETY: live stream and event of our device.
        let code = unsafe { (self.hip.api.hipStreamWaitEvent)(raw, ev.raw.0, 0) };
        self.hip
            .check("hipStreamWaitEvent", code)
            .map_err(|e| self.err(e))
    }

    pub(crate) fn event_create_impl(&self, timing: bool) -> Result<NativeEvent> {
        self.current()?;
        let raw = event_create(&self.hip, timing).map_err(|e| self.err(e))?;
        Ok(Arc::new(HipEvent {
            raw: Handle(raw),
            hip: self.hip.clone(),
            dev: self.dev,
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
        self.current()?;
        // SAFETY: live stream and event of our device.
        unsafe { self.hip.event_record(ev.raw.0, raw) }.map_err(|e| self.err(e))
    }

    pub(crate) fn event_synchronize_impl(&self, e: &NativeEvent) -> Result<()> {
        let ev = self.raw_event("Event.synchronize", e)?;
        self.current()?;
        // SAFETY: a live event of our device.
        let code = unsafe { (self.hip.api.hipEventSynchronize)(ev.raw.0) };
        self.hip
            .check("hipEventSynchronize", code)
            .map_err(|e| self.err(e))
    }

    pub(crate) fn event_query_impl(&self, e: &NativeEvent) -> Result<bool> {
        let ev = self.raw_event("Event.query", e)?;
        self.current()?;
        // SAFETY: a live event of our device.
        let code = unsafe { (self.hip.api.hipEventQuery)(ev.raw.0) };
        ready(&self.hip, "hipEventQuery", code).map_err(|e| self.err(e))
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
        self.current()?;
        let mut ms = 0f32;
        // SAFETY: live events of our device; out pointer to a local.
        let code = unsafe { (self.hip.api.hipEventElapsedTime)(&mut ms, a.raw.0, b.raw.0) };
        self.hip.check("hipEventElapsedTime", code).map_err(|e| {
            Error::invalid(
                OP,
                format!("{e} (both events recorded and the end one complete?)"),
            )
        })?;
        Ok(ms)
    }
}
