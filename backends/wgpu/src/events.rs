//! Events on wgpu's one queue. Every stream is the queue ([`cupy_core::Backend::stream_create`]'s
//! default). Recording an event submits the work recorded so far and registers a completion
//! marker (`Queue::on_submitted_work_done`) that stamps the host clock when wgpu reports the
//! work done, or when a poll finds the queue empty (wgpu fires a marker registered on an idle
//! queue only at a later submission); `query` polls the device without blocking,
//! `synchronize` waits for the queue. Elapsed time is therefore the host time between the
//! moments the two markers were seen complete: the device is polled when an event is
//! recorded, so a start marker on an idle queue is stamped at once, and an end marker at the
//! latest when its `synchronize` returns from the wait.

use crate::WgpuBackend;
use cupy_core::backend::stream::{host_event, HostEvent};
use cupy_core::backend::NativeEvent;
use cupy_core::Result;

impl WgpuBackend {
    /// Polls the device once without blocking (firing the callbacks of finished work); true
    /// when nothing submitted before the poll is still running.
    fn poll_once(&self) -> Result<bool> {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.device.poll(wgpu::PollType::Poll)
        }));
        match r {
            Ok(Ok(status)) => Ok(status.is_queue_empty()),
            Ok(Err(e)) => Err(crate::backend_err(&self.label(), format!("poll: {e}"))),
            // A lost device: the wait reports it.
            Err(_) => self.wait().map(|_| true),
        }
    }

    /// Polls (twice at most: the first reaps finished work, the second sees the queue empty)
    /// and completes `ev` when everything submitted so far is done.
    fn poll_event(&self, ev: &HostEvent) -> Result<()> {
        if ev.is_done() {
            return Ok(());
        }
        if self.poll_once()? || self.poll_once()? {
            ev.completer()();
        }
        Ok(())
    }

    /// Submits the recorded work and a completion marker for `ev`.
    fn submit_marker(&self, ev: &HostEvent) -> Result<()> {
        let mut p = self.lock_pending()?;
        self.submit_locked(&mut p);
        ev.mark_recorded();
        self.queue.on_submitted_work_done(ev.completer());
        drop(p);
        self.poll_event(ev)
    }

    pub(crate) fn event_record_impl(&self, event: &NativeEvent) -> Result<()> {
        self.submit_marker(host_event("Event.record", event)?)
    }

    pub(crate) fn event_query_impl(&self, event: &NativeEvent) -> Result<bool> {
        let ev = host_event("Event.query", event)?;
        self.poll_event(ev)?;
        Ok(ev.is_done())
    }

    pub(crate) fn event_synchronize_impl(&self, event: &NativeEvent) -> Result<()> {
        let ev = host_event("Event.synchronize", event)?;
        if !ev.is_done() {
            self.wait()?;
            // The work before the marker is done (its callback fired, or would only at a
            // later submission after an idle queue).
            ev.completer()();
        }
        self.take_errors()
    }

    /// Whether the queue is idle: a marker after everything submitted, polled once.
    pub(crate) fn stream_query_impl(&self) -> Result<bool> {
        let ev = HostEvent::new(false);
        self.submit_marker(&ev)?;
        Ok(ev.is_done())
    }
}
