//! Ordering of arrays used on several streams.
//!
//! Every array's buffer is wrapped ([`track`]) with a record of the stream it was allocated on,
//! the stream that last wrote it and the streams that read it since. Before an op is queued on
//! the current stream, [`order`] makes that stream wait (a device event, no host wait) for the
//! last write of each input (read after write) and for every use of each output (write after
//! read or write). When the buffer drops, its allocation stream waits for the other streams
//! that used it before the block returns to that stream's pool, so the block's next user runs
//! after them. Until a non-default stream is first made current, every stream is the default
//! one and all of this is one atomic load per op.

use super::stream::{get_current_stream_on, Stream};
use crate::device::Device;
use cupy_core::backend::{Buffer, DeviceBuffer};
use cupy_core::{DType, Result};
use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

static STREAMS_IN_USE: AtomicBool = AtomicBool::new(false);

/// Called when a non-default stream is first made current.
pub(crate) fn streams_in_use() {
    STREAMS_IN_USE.store(true, Ordering::SeqCst);
}

/// Whether any op may need ordering (a non-default stream was made current in the process).
pub(crate) fn active() -> bool {
    STREAMS_IN_USE.load(Ordering::Relaxed)
}

/// Whether [`order`] has anything to do: ordering between streams ([`active`]), or a graph
/// capture keeping the buffers of its ops; callers skip gathering buffers otherwise.
pub(crate) fn needed() -> bool {
    active() || super::graph::active()
}

/// `None` is the default stream (and every stream of a one-queue backend).
type On = Option<Stream>;

fn key(s: &On) -> usize {
    s.as_ref().map_or(0, |s| s.queue_key())
}

fn current(device: &Device) -> On {
    if !active() {
        return None;
    }
    let s = get_current_stream_on(device);
    s.native().is_some().then_some(s)
}

#[derive(Default)]
struct Mark {
    alloc: On,
    writer: On,
    readers: Vec<On>,
}

/// The frontend's wrapper of a backend buffer (see the module docs).
struct Tracked {
    inner: Buffer,
    device: Device,
    mark: Mutex<Mark>,
}

impl std::fmt::Debug for Tracked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl DeviceBuffer for Tracked {
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn dtype(&self) -> DType {
        self.inner.dtype()
    }
    fn as_any(&self) -> &dyn Any {
        self.inner.as_any()
    }
    fn address(&self) -> Option<u64> {
        self.inner.address()
    }
    fn tracker(&self) -> Option<&(dyn Any + Send + Sync)> {
        Some(&self.mark)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if !active() {
            return;
        }
        let m = self.mark.get_mut().unwrap_or_else(|e| e.into_inner());
        // A wait on a capturing stream would be captured (and one for work outside the capture
        // invalidates it on cuda): the block goes to the graph the capture is making
        // (`CachingPool::hold`), which returns it after its own launches.
        if super::graph::stream_capturing(&self.device, m.alloc.as_ref()) {
            return;
        }
        let mut others: Vec<On> = vec![];
        for s in std::iter::once(m.writer.clone()).chain(m.readers.iter().cloned()) {
            if key(&s) != key(&m.alloc) && !others.iter().any(|o| key(o) == key(&s)) {
                others.push(s);
            }
        }
        for o in &others {
            // Errors cannot be returned from a drop; a failed wait leaves the device in an
            // error state that the next op reports.
            let _ = wait(&self.device, &m.alloc, o);
        }
    }
}

/// Wraps a backend buffer for stream tracking (a buffer already wrapped is returned as is).
pub(crate) fn track(device: &Device, buffer: Buffer) -> Buffer {
    if buffer.tracker().is_some() {
        return buffer;
    }
    let on = current(device);
    Arc::new(Tracked {
        inner: buffer,
        device: device.clone(),
        mark: Mutex::new(Mark {
            alloc: on.clone(),
            writer: on,
            readers: vec![],
        }),
    })
}

fn mark_of(b: &Buffer) -> Option<&Mutex<Mark>> {
    b.tracker()?.downcast_ref::<Mutex<Mark>>()
}

/// Makes `on` wait on the device for the work queued so far on `after`.
fn wait(device: &Device, on: &On, after: &On) -> Result<()> {
    let be = device.backend();
    let ev = be.event_create(false)?;
    be.event_record(&ev, after.as_ref().and_then(|s| s.native()))?;
    be.stream_wait_event(on.as_ref().and_then(|s| s.native()), &ev)
}

/// Orders an op about to be queued on `device`'s current stream after the last writes of
/// `reads` and every use of `writes`, and records the op's use of them. While that stream is
/// capturing a graph, only keeps the buffers for the graph.
///
/// # Errors
/// Device errors recording or waiting for events.
pub(crate) fn order(device: &Device, reads: &[&Buffer], writes: &[&Buffer]) -> Result<()> {
    if let Some(cap) = super::graph::current(device) {
        // Captured work runs at the graph's launches, which are ordered then
        // (`Graph::launch_on`); the graph keeps the buffers alive.
        cap.keep(reads);
        cap.keep(writes);
        return Ok(());
    }
    if !active() {
        return Ok(());
    }
    let cur = current(device);
    let ck = key(&cur);
    let mut after: Vec<On> = vec![];
    let add = |s: On, after: &mut Vec<On>| {
        if key(&s) != ck && !after.iter().any(|o| key(o) == key(&s)) {
            after.push(s);
        }
    };
    for b in reads {
        let Some(m) = mark_of(b) else { continue };
        let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
        // A stream among the readers already waited for the last write.
        if !m.readers.iter().any(|r| key(r) == ck) {
            add(m.writer.clone(), &mut after);
            m.readers.push(cur.clone());
        }
    }
    for b in writes {
        let Some(m) = mark_of(b) else { continue };
        let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
        if !m.readers.iter().any(|r| key(r) == ck) {
            add(m.writer.clone(), &mut after);
        }
        for r in std::mem::take(&mut m.readers) {
            add(r, &mut after);
        }
        m.writer = cur.clone();
    }
    for a in &after {
        wait(device, &cur, a)?;
    }
    Ok(())
}
