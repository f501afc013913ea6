//! [`Stream`] and the thread's current stream per device.

use crate::device::Device;
use cupy_core::backend::stream::{backend_key, with_current};
use cupy_core::backend::NativeStream;
use cupy_core::{Error, Result};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// A queue of work on one device (`cupy.cuda.Stream`). Cheap to clone; clones are the same
/// stream. Work on one stream runs in order; work on two streams may overlap, except where an
/// array written on one is used on the other ([`crate::cuda`]'s ordering) or the user orders
/// it with [`Stream::wait_event`]. The device stream is destroyed when the last clone drops
/// (after its queued work, which is never cancelled).
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<Inner>,
}

// Field order is drop order: the native stream goes before the device that made it.
pub(crate) struct Inner {
    /// `None`: the device's default stream (every stream on a backend with one queue).
    pub(crate) native: Option<NativeStream>,
    pub(crate) device: Device,
    null: bool,
    non_blocking: bool,
}

impl Stream {
    /// A new stream on the current device (`cupy.cuda.Stream()`). On cuda and hip it is a
    /// device stream that synchronizes with the legacy NULL stream of foreign code
    /// (`cudaStreamDefault`); on wgpu and the cpu it is the device's one queue.
    ///
    /// # Errors
    /// Discovery errors; device errors creating the stream.
    pub fn new() -> Result<Stream> {
        Stream::new_on(&Device::current()?, false)
    }

    /// A new stream that does not synchronize with the legacy NULL stream
    /// (`cupy.cuda.Stream(non_blocking=True)`, `cudaStreamNonBlocking`).
    ///
    /// # Errors
    /// As [`Stream::new`].
    pub fn new_non_blocking() -> Result<Stream> {
        Stream::new_on(&Device::current()?, true)
    }

    /// A new stream on `device` (`non_blocking` as [`Stream::new_non_blocking`]).
    ///
    /// # Errors
    /// Device errors creating the stream.
    pub fn new_on(device: &Device, non_blocking: bool) -> Result<Stream> {
        let native = device.backend().stream_create(non_blocking)?;
        Ok(Stream {
            inner: Arc::new(Inner {
                device: device.clone(),
                native,
                null: false,
                non_blocking,
            }),
        })
    }

    /// The current device's default stream (`cupy.cuda.Stream.null`): where work goes outside
    /// any [`with_stream`]. On cuda and hip it is the backend's own stream (not the legacy
    /// NULL stream; see `docs/streams.md`).
    ///
    /// # Errors
    /// Discovery errors.
    pub fn null() -> Result<Stream> {
        Ok(Stream::null_on(&Device::current()?))
    }

    /// `device`'s default stream.
    pub fn null_on(device: &Device) -> Stream {
        Stream {
            inner: Arc::new(Inner {
                device: device.clone(),
                native: None,
                null: true,
                non_blocking: false,
            }),
        }
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// True for a default stream ([`Stream::null`]).
    pub fn is_null(&self) -> bool {
        self.inner.null
    }

    /// True for a stream made by [`Stream::new_non_blocking`].
    pub fn non_blocking(&self) -> bool {
        self.inner.non_blocking
    }

    /// True when both handles queue to the same device queue (on wgpu and the cpu every
    /// stream of a device does).
    pub fn same_queue(&self, other: &Stream) -> bool {
        self.device() == other.device() && self.queue_key() == other.queue_key()
    }

    /// 0 for the default queue, else the native stream's address.
    pub(crate) fn queue_key(&self) -> usize {
        self.inner
            .native
            .as_ref()
            .map_or(0, |n| Arc::as_ptr(n) as *const () as usize)
    }

    pub(crate) fn native(&self) -> Option<&NativeStream> {
        self.inner.native.as_ref()
    }

    /// Waits on the host until the work queued on this stream is done
    /// (`Stream.synchronize()`).
    ///
    /// # Errors
    /// Device errors that surfaced while waiting.
    pub fn synchronize(&self) -> Result<()> {
        super::graph::refuse_on(self, "Stream.synchronize", super::graph::WAITS)?;
        self.device().backend().stream_synchronize(self.native())
    }

    /// Whether the work queued on this stream is done, without waiting (`Stream.done`).
    ///
    /// # Errors
    /// Device errors.
    pub fn query(&self) -> Result<bool> {
        super::graph::refuse_on(self, "Stream.query", super::graph::WAITS)?;
        self.device().backend().stream_query(self.native())
    }

    /// Makes later work on this stream wait, on the device, for `event`'s record
    /// (`Stream.wait_event`). An event never recorded is complete: nothing waits.
    ///
    /// # Errors
    /// `InvalidArgument` naming both devices when the event belongs to another device.
    pub fn wait_event(&self, event: &super::Event) -> Result<()> {
        check_same("Stream.wait_event", self.device(), event.device())?;
        super::graph::refuse_on(
            self,
            "Stream.wait_event",
            "graphs captured across several streams are not supported",
        )?;
        self.device()
            .backend()
            .stream_wait_event(self.native(), event.native())
    }

    /// Records a new event on this stream (`Stream.record()`), with timing.
    ///
    /// # Errors
    /// Device errors.
    pub fn record(&self) -> Result<super::Event> {
        let e = super::Event::new_on(self.device(), false)?;
        e.record(self)?;
        Ok(e)
    }
}

/// `Ok` when `a` and `b` are one device, else an `InvalidArgument` naming both.
pub(crate) fn check_same(op: &str, a: &Device, b: &Device) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("the stream is on {a} and the event on {b}"),
        ))
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.is_null() && other.is_null() && self.device() == other.device())
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_null() {
            "null"
        } else if self.non_blocking() {
            "non-blocking"
        } else {
            "blocking"
        };
        write!(f, "<Stream {kind} on {}>", self.device().label())
    }
}

thread_local! {
    static STACK: RefCell<Vec<Stream>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `stream` as this thread's current stream of its device
/// (`with cupy.cuda.Stream():`): every op on that device queues there. Nests; the previous
/// stream is current again afterwards (also when `f` panics). Other devices' current streams
/// are untouched.
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            STACK.with(|s| s.borrow_mut().pop());
        }
    }
    if stream.native().is_some() {
        super::order::streams_in_use();
    }
    STACK.with(|s| s.borrow_mut().push(stream.clone()));
    let _pop = Pop;
    let key = backend_key(&**stream.device().backend());
    with_current(key, stream.inner.native.clone(), f)
}

/// This thread's current stream of the current device (`cupy.cuda.get_current_stream()`): the
/// innermost [`with_stream`] for it, else its [`Stream::null`].
///
/// # Errors
/// Discovery errors.
pub fn get_current_stream() -> Result<Stream> {
    Ok(get_current_stream_on(&Device::current()?))
}

/// This thread's current stream of `device`.
pub fn get_current_stream_on(device: &Device) -> Stream {
    STACK
        .with(|s| {
            s.borrow()
                .iter()
                .rev()
                .find(|st| st.device() == device)
                .cloned()
        })
        .unwrap_or_else(|| Stream::null_on(device))
}
