//! [`Event`] and [`get_elapsed_time`].

use super::stream::{check_same, get_current_stream_on, Stream};
use crate::device::Device;
use cupy_core::backend::NativeEvent;
use cupy_core::{Error, Result};
use std::fmt;

/// A marker in a stream's work (`cupy.cuda.Event`): it completes when the work queued on the
/// stream before its record is done. Cheap to clone; clones are the same event.
#[derive(Clone)]
pub struct Event {
    // Field order is drop order: the native event goes before the device that made it.
    native: NativeEvent,
    device: Device,
    timing: bool,
}

impl Event {
    /// A new event on the current device, with timing (`cupy.cuda.Event()`).
    ///
    /// # Errors
    /// Discovery errors; device errors.
    pub fn new() -> Result<Event> {
        Event::new_on(&Device::current()?, false)
    }

    /// A new event on `device`; `disable_timing` as CuPy's (such an event is cheaper to record
    /// on cuda and hip, and [`get_elapsed_time`] refuses it).
    ///
    /// # Errors
    /// Device errors.
    pub fn new_on(device: &Device, disable_timing: bool) -> Result<Event> {
        Ok(Event {
            native: device.backend().event_create(!disable_timing)?,
            device: device.clone(),
            timing: !disable_timing,
        })
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Whether timing is enabled.
    pub fn timing(&self) -> bool {
        self.timing
    }

    pub(crate) fn native(&self) -> &NativeEvent {
        &self.native
    }

    /// Records the event on `stream` (`Event.record(stream)`), replacing an earlier record.
    ///
    /// # Errors
    /// `InvalidArgument` naming both devices when `stream` is on another device; device errors.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        check_same("Event.record", stream.device(), &self.device)?;
        super::graph::refuse_on(
            stream,
            "Event.record",
            "events on a capturing stream (graphs across several streams, timing inside a \
             capture) are not supported",
        )?;
        self.device
            .backend()
            .event_record(&self.native, stream.native())
    }

    /// Records the event on the thread's current stream of its device (`Event.record()`).
    ///
    /// # Errors
    /// Device errors.
    pub fn record_current(&self) -> Result<()> {
        self.record(&get_current_stream_on(&self.device))
    }

    /// Waits on the host until the event completes (`Event.synchronize()`); an event never
    /// recorded is complete.
    ///
    /// # Errors
    /// Device errors that surfaced while waiting.
    pub fn synchronize(&self) -> Result<()> {
        self.device.backend().event_synchronize(&self.native)
    }

    /// Whether the event is complete, without waiting (`Event.done`).
    ///
    /// # Errors
    /// Device errors.
    pub fn query(&self) -> Result<bool> {
        self.device.backend().event_query(&self.native)
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<Event on {}>", self.device.label())
    }
}

/// Milliseconds between two completed events (`cupy.cuda.get_elapsed_time(start, end)`).
/// Synchronize `end` first. Device time on cuda and hip; on wgpu and the cpu the host clock at
/// which each event was seen complete (see `docs/streams.md`).
///
/// # Errors
/// `InvalidArgument` for events of two devices, with timing disabled, never recorded, or not
/// complete yet.
pub fn get_elapsed_time(start: &Event, end: &Event) -> Result<f32> {
    if start.device != end.device {
        return Err(Error::invalid(
            "get_elapsed_time",
            format!(
                "the events are on two devices ({} and {})",
                start.device, end.device
            ),
        ));
    }
    start
        .device
        .backend()
        .event_elapsed_ms(&start.native, &end.native)
}
