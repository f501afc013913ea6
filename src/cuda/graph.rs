//! [`Graph`] (`cupy.cuda.graph.Graph`): a sequence of ops captured on a stream
//! ([`Stream::begin_capture`] .. [`Stream::end_capture`], or [`Graph::capture`]) and replayed by
//! [`Graph::launch`] on the same buffers.
//!
//! On cuda and hip the driver captures the stream (`cuStreamBeginCapture` in relaxed mode by
//! default, [`CaptureMode`]); on wgpu and the cpu the backend calls made during the capture are
//! recorded ([`super::record`]) and issued again at each launch. Either way captured work does
//! not run during the capture, and the graph keeps every buffer its work uses alive: arrays
//! created inside the capture stay valid after their handles drop and are rewritten by each
//! launch, and inputs changed between launches are read by the next one. Ops that would make
//! the host wait for the capturing stream (reads to the host, host-to-device copies,
//! synchronizations, linalg's status check) are refused with `Unsupported` naming the op.
//! See `docs/streams.md`.

use super::record::Recorded;
use super::stream::{get_current_stream_on, with_stream, Stream};
use crate::device::Device;
use cupy_core::backend::{Buffer, CaptureMode, NativeGraph};
use cupy_core::{Error, Result};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// How many captures are in progress in the process (ops check it before anything else).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static CAPTURES: Mutex<Vec<Arc<Capture>>> = Mutex::new(Vec::new());

fn captures() -> MutexGuard<'static, Vec<Arc<Capture>>> {
    CAPTURES.lock().unwrap_or_else(|e| e.into_inner())
}

/// A capture in progress on one stream.
pub(crate) struct Capture {
    stream: Stream,
    /// The driver captures (cuda, hip); else the calls are recorded here.
    native: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Every buffer the captured work uses, by address.
    keep: HashMap<usize, Buffer>,
    calls: Vec<Recorded>,
}

impl Capture {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `buffers` alive for the graph.
    pub(crate) fn keep(&self, buffers: &[&Buffer]) {
        let mut s = self.lock();
        for b in buffers {
            let key = Arc::as_ptr(b) as *const () as usize;
            s.keep.entry(key).or_insert_with(|| (*b).clone());
        }
    }

    /// Appends a recorded call (backends without native graphs).
    pub(crate) fn record(&self, call: Recorded) {
        self.lock().calls.push(call);
    }
}

/// Whether any capture is in progress in the process.
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed) > 0
}

/// The capture on `stream`, if it is capturing.
fn capture_on(stream: &Stream) -> Option<Arc<Capture>> {
    if !active() {
        return None;
    }
    captures().iter().find(|c| &c.stream == stream).cloned()
}

/// The capture on `device`'s current stream of this thread, if that stream is capturing.
pub(crate) fn current(device: &Device) -> Option<Arc<Capture>> {
    if !active() {
        return None;
    }
    capture_on(&get_current_stream_on(device))
}

/// The capture recording the calls of `device`'s current stream (a capture on a backend
/// without native graphs), if any.
pub(crate) fn recording(device: &Device) -> Option<Arc<Capture>> {
    current(device).filter(|c| !c.native)
}

/// Whether `stream` of `device` (`None`: its default stream) is capturing.
pub(crate) fn stream_capturing(device: &Device, stream: Option<&Stream>) -> bool {
    active()
        && match stream {
            Some(s) => capture_on(s).is_some(),
            None => capture_on(&Stream::null_on(device)).is_some(),
        }
}

fn refusal(device: &Device, stream: &Stream, op: &str, why: &str) -> Error {
    Error::Unsupported {
        op: op.into(),
        backend: device.label(),
        reason: format!(
            "{stream:?} is capturing a graph (Stream.begin_capture); {why}. End the capture \
             (Stream.end_capture) first"
        ),
    }
}

/// `Err(Unsupported)` naming `op` when `device`'s current stream is capturing: `op` would
/// make the host wait for work that is only being captured (`why`).
///
/// # Errors
/// As above.
pub(crate) fn refuse(device: &Device, op: &str, why: &str) -> Result<()> {
    match current(device) {
        Some(c) => Err(refusal(device, &c.stream, op, why)),
        None => Ok(()),
    }
}

/// As [`refuse`], for an op on `stream` itself (`Stream.synchronize`, `Event.record`).
///
/// # Errors
/// As above.
pub(crate) fn refuse_on(stream: &Stream, op: &str, why: &str) -> Result<()> {
    match capture_on(stream) {
        Some(c) => Err(refusal(stream.device(), &c.stream, op, why)),
        None => Ok(()),
    }
}

/// As [`refuse`], when any stream of `device` is capturing (`Device.synchronize`).
///
/// # Errors
/// As above.
///
/// Only devices with native capture refuse (a driver's device-wide wait would break the
/// capture); on wgpu and the cpu a capture records calls without queuing them, so another
/// thread's device-wide wait has nothing to wait for there.
pub(crate) fn refuse_device(device: &Device, op: &str, why: &str) -> Result<()> {
    if !active() || device.backend().graph_capture().is_none() {
        return Ok(());
    }
    let found = captures()
        .iter()
        .find(|c| c.stream.device() == device)
        .cloned();
    match found {
        Some(c) => Err(refusal(device, &c.stream, op, why)),
        None => Ok(()),
    }
}

/// Why a capturing stream refuses what would make the host wait for it.
pub(crate) const WAITS: &str = "the host would wait for work that is captured, not run";

impl Stream {
    /// Starts capturing the work queued on this stream into a graph
    /// (`Stream.begin_capture()`), in [`CaptureMode::Relaxed`]. Until [`Stream::end_capture`],
    /// ops on this stream are captured, not run.
    ///
    /// # Errors
    /// As [`Stream::begin_capture_with`].
    pub fn begin_capture(&self) -> Result<()> {
        self.begin_capture_with(CaptureMode::default())
    }

    /// [`Stream::begin_capture`] with a capture mode (`Stream.begin_capture(mode=...)`; wgpu
    /// and the cpu ignore it).
    ///
    /// # Errors
    /// `InvalidArgument` when the stream is capturing already (captures do not nest) or
    /// belongs to another device than the current one; driver errors.
    pub fn begin_capture_with(&self, mode: CaptureMode) -> Result<()> {
        const OP: &str = "Stream.begin_capture";
        let device = self.device();
        let cur = Device::current()?;
        if &cur != device {
            return Err(Error::invalid(
                OP,
                format!(
                    "the stream is on {device} but the current device is {cur} (capture inside \
                     with_device)"
                ),
            ));
        }
        let mut list = captures();
        if list.iter().any(|c| &c.stream == self) {
            return Err(Error::invalid(
                OP,
                format!("{self:?} is capturing already (captures do not nest)"),
            ));
        }
        let native = match device.backend().graph_capture() {
            Some(g) => {
                g.begin_capture(self.native(), mode)?;
                true
            }
            None => false,
        };
        list.push(Arc::new(Capture {
            stream: self.clone(),
            native,
            state: Mutex::default(),
        }));
        ACTIVE.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// Ends the capture begun by [`Stream::begin_capture`] and returns its graph
    /// (`Stream.end_capture()`).
    ///
    /// # Errors
    /// `InvalidArgument` when the stream is not capturing; the driver's error when the capture
    /// was invalidated (the capture is over either way).
    pub fn end_capture(&self) -> Result<Graph> {
        let cap = {
            let mut list = captures();
            let Some(i) = list.iter().position(|c| &c.stream == self) else {
                return Err(Error::invalid(
                    "Stream.end_capture",
                    format!("{self:?} is not capturing (call Stream.begin_capture first)"),
                ));
            };
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
            list.remove(i)
        };
        let device = self.device();
        let state = std::mem::take(&mut *cap.lock());
        let kind = match device.backend().graph_capture() {
            Some(g) if cap.native => Kind::Native(g.end_capture(self.native())?),
            _ => Kind::Recorded(state.calls),
        };
        Ok(Graph {
            inner: Arc::new(Inner {
                kind,
                keep: state.keep.into_values().collect(),
                device: device.clone(),
            }),
        })
    }

    /// Whether this stream is capturing a graph (`Stream.is_capturing()`).
    ///
    /// # Errors
    /// Driver errors (cuda, hip).
    pub fn is_capturing(&self) -> Result<bool> {
        let ours = capture_on(self).is_some();
        match self.device().backend().graph_capture() {
            Some(g) if ours => g.is_capturing(self.native()),
            _ => Ok(ours),
        }
    }
}

/// A captured sequence of ops (`cupy.cuda.graph.Graph`), replayed on the same buffers by
/// [`Graph::launch`]. Cheap to clone; clones are the same graph. It keeps every buffer its
/// work uses alive until the last clone drops (then the device graph is destroyed and the
/// buffers return to the pool).
#[derive(Clone)]
pub struct Graph {
    inner: Arc<Inner>,
}

// Field order is drop order: the device graph goes before the buffers it uses.
struct Inner {
    kind: Kind,
    keep: Vec<Buffer>,
    device: Device,
}

enum Kind {
    Native(NativeGraph),
    Recorded(Vec<Recorded>),
}

impl Graph {
    /// Captures the ops `f` queues on the current device's current stream and returns the
    /// graph with `f`'s result (CuPy: `s.begin_capture(); ...; g = s.end_capture()`). The
    /// ops do not run now: [`Graph::launch`] runs them. Arrays `f` returns are valid (their
    /// contents are written by each launch).
    ///
    /// ```
    /// # fn main() -> cupy::Result<()> {
    /// use cupy::cuda::Graph;
    /// let x = cupy::arange(4.0)?;
    /// let (g, y) = Graph::capture(|| (&x * 2.0)?.sum())?;
    /// g.launch()?;
    /// assert_eq!(y.item()?.to_f64(), 12.0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Stream::begin_capture`]'s errors, `f`'s error (the capture is ended and dropped), and
    /// [`Stream::end_capture`]'s.
    pub fn capture<R>(f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
        let stream = super::get_current_stream()?;
        capture_with(&stream, f)
    }

    /// [`Graph::capture`] on `stream`: `f` runs with `stream` current
    /// (`with stream: stream.begin_capture(); ...`).
    ///
    /// # Errors
    /// As [`Graph::capture`].
    pub fn capture_on<R>(stream: &Stream, f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
        with_stream(stream, || capture_with(stream, f))
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// Runs the captured ops once more on the current stream of the graph's device
    /// (`Graph.launch()`): asynchronously, as the ops themselves would.
    ///
    /// # Errors
    /// As [`Graph::launch_on`].
    pub fn launch(&self) -> Result<()> {
        self.launch_on(&get_current_stream_on(self.device()))
    }

    /// Runs the captured ops on `stream` (`Graph.launch(stream)`). The launch is ordered after
    /// the work of other streams that wrote or read the graph's buffers, as an op using them
    /// would be (`docs/streams.md`).
    ///
    /// # Errors
    /// `InvalidArgument` for a stream of another device; `Unsupported` when `stream` is
    /// capturing (graphs are not captured into graphs here); device errors.
    pub fn launch_on(&self, stream: &Stream) -> Result<()> {
        const OP: &str = "Graph.launch";
        self.check_stream(OP, stream)?;
        refuse_on(
            stream,
            OP,
            "launching a graph inside a capture is not supported",
        )?;
        let device = self.device();
        with_stream(stream, || {
            let keep: Vec<&Buffer> = self.inner.keep.iter().collect();
            // The graph may write any of its buffers: order it as an op writing them all.
            super::order::order(device, &[], &keep)?;
            let be = device.backend();
            match (&self.inner.kind, be.graph_capture()) {
                (Kind::Native(g), Some(gc)) => gc.graph_launch(g, stream.native()),
                (Kind::Recorded(calls), _) => calls.iter().try_for_each(|c| c.issue(&**be)),
                (Kind::Native(_), None) => Err(Error::invalid(OP, "the graph is not native")),
            }
        })
    }

    /// Uploads the graph to the device ahead of its first launch, on the current stream
    /// (`Graph.upload()`; `cudaGraphUpload`). Nothing to do on hip, wgpu and the cpu.
    ///
    /// # Errors
    /// As [`Graph::upload_on`].
    pub fn upload(&self) -> Result<()> {
        self.upload_on(&get_current_stream_on(self.device()))
    }

    /// [`Graph::upload`] on `stream` (`Graph.upload(stream)`).
    ///
    /// # Errors
    /// `InvalidArgument` for a stream of another device; device errors.
    pub fn upload_on(&self, stream: &Stream) -> Result<()> {
        self.check_stream("Graph.upload", stream)?;
        match (&self.inner.kind, self.device().backend().graph_capture()) {
            (Kind::Native(g), Some(gc)) => gc.graph_upload(g, stream.native()),
            _ => Ok(()),
        }
    }

    /// The number of recorded backend calls (wgpu, cpu); `None` where the driver captured
    /// the graph (cuda, hip).
    pub fn recorded_calls(&self) -> Option<usize> {
        match &self.inner.kind {
            Kind::Recorded(c) => Some(c.len()),
            Kind::Native(_) => None,
        }
    }

    fn check_stream(&self, op: &str, stream: &Stream) -> Result<()> {
        if stream.device() != self.device() {
            return Err(Error::invalid(
                op,
                format!(
                    "the graph is on {} and the stream on {}",
                    self.device(),
                    stream.device()
                ),
            ));
        }
        Ok(())
    }
}

/// Begins a capture on `stream`, runs `f`, ends the capture (also when `f` fails or panics).
fn capture_with<R>(stream: &Stream, f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
    struct End<'a>(Option<&'a Stream>);
    impl Drop for End<'_> {
        fn drop(&mut self) {
            if let Some(s) = self.0 {
                let _ = s.end_capture();
            }
        }
    }
    stream.begin_capture()?;
    let mut end = End(Some(stream));
    let r = f();
    end.0 = None;
    let g = stream.end_capture();
    let r = r?;
    Ok((g?, r))
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.kind {
            Kind::Native(_) => write!(f, "<Graph on {} (device graph)", self.device().label())?,
            Kind::Recorded(c) => write!(
                f,
                "<Graph on {} ({} recorded calls)",
                self.device().label(),
                c.len()
            )?,
        }
        write!(f, ", {} buffers>", self.inner.keep.len())
    }
}
