//! Streams and events of a [`super::Backend`] (CuPy's `cupy.cuda.Stream` and `Event`): opaque
//! native handles, the thread's current stream per device, and the host events that the trait's
//! defaults use.
//!
//! A backend with several hardware queues (CUDA, HIP) returns its own stream and event objects
//! from [`super::Backend::stream_create`] and [`super::Backend::event_create`] and downcasts
//! them when called; `None` is the device's default stream (the one every op used before
//! streams existed). When it queues work it asks [`current`] for the thread's current stream.
//! A backend with one queue (wgpu, the cpu) keeps the defaults: every stream is the default
//! stream, and events are [`HostEvent`]s.

use crate::error::{Error, Result};
use std::any::Any;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A backend's stream object (downcast by the backend that made it).
pub type NativeStream = Arc<dyn Any + Send + Sync>;

/// A backend's event object (downcast by the backend that made it).
pub type NativeEvent = Arc<dyn Any + Send + Sync>;

/// The identity of a backend object in [`current`]'s table: its address (a backend passes
/// `self`; the frontend the data pointer of its `Arc<dyn Backend>`, which is the same).
pub fn backend_key<B: ?Sized>(backend: &B) -> usize {
    backend as *const B as *const () as usize
}

thread_local! {
    static CURRENT: RefCell<Vec<(usize, Option<NativeStream>)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `stream` (`None`: the default stream) as this thread's current stream of the
/// backend `key` ([`backend_key`]); the previous one is restored afterwards, also on a panic.
pub fn with_current<R>(key: usize, stream: Option<NativeStream>, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            CURRENT.with(|s| s.borrow_mut().pop());
        }
    }
    CURRENT.with(|s| s.borrow_mut().push((key, stream)));
    let _pop = Pop;
    f()
}

/// This thread's current stream of the backend `key`: the innermost [`with_current`] for it,
/// `None` (the default stream) outside any.
pub fn current(key: usize) -> Option<NativeStream> {
    CURRENT.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .and_then(|(_, n)| n.clone())
    })
}

#[derive(Debug, Default)]
struct HostEventState {
    recorded: bool,
    done_at: Option<Instant>,
}

/// An event completed on the host: stamped with the host clock when the work before it is
/// known to be done (at once by the defaults, which synchronize; from a queue callback on
/// wgpu). Elapsed time is the difference of two stamps.
#[derive(Debug)]
pub struct HostEvent {
    timing: bool,
    state: Arc<Mutex<HostEventState>>,
}

impl HostEvent {
    /// A new, unrecorded event; `timing` as CuPy's `disable_timing=False`.
    pub fn new(timing: bool) -> HostEvent {
        HostEvent {
            timing,
            state: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HostEventState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the event recorded but not complete yet (work is still queued before it).
    pub fn mark_recorded(&self) {
        let mut s = self.lock();
        s.recorded = true;
        s.done_at = None;
    }

    /// Records the event and completes it now.
    pub fn complete_now(&self) {
        let mut s = self.lock();
        s.recorded = true;
        s.done_at = Some(Instant::now());
    }

    /// A callback that completes the event (stamping the host clock) when called, for a queue's
    /// "work done" notification. Calling it after a later record does not complete that one
    /// early: it is tied to the record it was made for only by order, so make it right after
    /// [`HostEvent::mark_recorded`].
    pub fn completer(&self) -> impl FnOnce() + Send + 'static {
        let state = Arc::clone(&self.state);
        move || {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            if s.done_at.is_none() {
                s.done_at = Some(Instant::now());
            }
        }
    }

    /// True when the work before the last record is done, or the event was never recorded
    /// (as `cudaEventQuery`).
    pub fn is_done(&self) -> bool {
        let s = self.lock();
        !s.recorded || s.done_at.is_some()
    }

    /// Milliseconds from `start`'s stamp to `end`'s: negative when `end` was stamped first, 0
    /// for the same event twice (as `cudaEventElapsedTime`).
    ///
    /// # Errors
    /// `InvalidArgument` when either event has timing disabled, was never recorded, or is not
    /// complete yet (CUDA's `cudaErrorNotReady`).
    pub fn elapsed_ms(start: &HostEvent, end: &HostEvent) -> Result<f32> {
        const OP: &str = "get_elapsed_time";
        if !start.timing || !end.timing {
            return Err(Error::invalid(
                OP,
                "an event was created with timing disabled",
            ));
        }
        // One lock at a time: `start` and `end` may be the same event.
        let stamp = |e: &HostEvent| {
            let s = e.lock();
            (s.recorded, s.done_at)
        };
        let ((ra, da), (rb, db)) = (stamp(start), stamp(end));
        if !ra || !rb {
            return Err(Error::invalid(OP, "both events must be recorded first"));
        }
        match (da, db) {
            (Some(t0), Some(t1)) => {
                let ms = |later: Instant, earlier: Instant| {
                    later.duration_since(earlier).as_secs_f64() as f32 * 1000.0
                };
                Ok(if t1 >= t0 { ms(t1, t0) } else { -ms(t0, t1) })
            }
            _ => Err(Error::invalid(
                OP,
                "an event is not complete yet (synchronize the end event first)",
            )),
        }
    }
}

/// `event` as a [`HostEvent`].
///
/// # Errors
/// `InvalidArgument` naming `op` when the event was made by another backend.
pub fn host_event<'a>(op: &str, event: &'a NativeEvent) -> Result<&'a HostEvent> {
    event
        .downcast_ref::<HostEvent>()
        .ok_or_else(|| Error::invalid(op, "the event belongs to another device"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_nests_per_backend() {
        let a: NativeStream = Arc::new(1u32);
        assert!(current(1).is_none());
        with_current(1, Some(a.clone()), || {
            assert!(current(1).is_some());
            assert!(current(2).is_none());
            with_current(1, None, || assert!(current(1).is_none()));
            assert!(Arc::ptr_eq(&current(1).unwrap(), &a));
        });
        assert!(current(1).is_none());
    }

    #[test]
    fn host_events_time_and_query() {
        let (s, e) = (HostEvent::new(true), HostEvent::new(true));
        assert!(s.is_done());
        assert!(HostEvent::elapsed_ms(&s, &e).is_err());
        s.complete_now();
        e.mark_recorded();
        assert!(!e.is_done());
        assert!(HostEvent::elapsed_ms(&s, &e).is_err());
        e.completer()();
        assert!(e.is_done());
        assert!(HostEvent::elapsed_ms(&s, &e).unwrap() >= 0.0);
        let n = HostEvent::new(false);
        n.complete_now();
        assert!(HostEvent::elapsed_ms(&s, &n).is_err());
    }
}
