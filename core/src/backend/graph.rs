//! Graphs (CuPy's `cupy.cuda.graph`): the stream capture of a backend whose driver has it
//! (CUDA, HIP).
//!
//! A backend with native graphs returns itself from [`super::Backend::graph_capture`]: work
//! queued on a capturing stream is recorded by the driver instead of run, and the instantiated
//! graph is replayed by [`GraphCapture::graph_launch`]. A backend without them (wgpu, the cpu)
//! keeps the default `None`; the frontend then records the backend calls made during the
//! capture and issues them again at each launch (`cupy::cuda::Graph`).
//!
//! # Contract for implementors
//! - Blocks the caching pool gets back on the capturing stream during the capture belong to
//!   the graph until it is destroyed (`crate::gpu::pool::CachingPool::hold`): the captured
//!   work still uses them at every launch.
//! - Nothing a capture needs may synchronize the host: the frontend refuses reads, writes and
//!   synchronizations on a capturing stream before they reach the backend.

use super::stream::NativeStream;
use crate::error::Result;
use std::any::Any;
use std::sync::Arc;

/// A backend's instantiated graph (downcast by the backend that made it). Dropping the last
/// clone destroys it; the blocks it held return to the pool.
pub type NativeGraph = Arc<dyn Any + Send + Sync>;

/// How strictly a capture refuses calls that are unsafe while capturing
/// (`cudaStreamCaptureMode`, CuPy's `begin_capture(mode=...)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// `cudaStreamCaptureModeGlobal`: unsafe calls (`cuMemAlloc`, module loads, synchronous
    /// copies) from any thread fail while this capture is in progress.
    Global,
    /// `cudaStreamCaptureModeThreadLocal`: unsafe calls fail on the capturing thread only.
    ThreadLocal,
    /// `cudaStreamCaptureModeRelaxed` (the default here): nothing is refused by the driver, so
    /// the memory pool may grow (`cuMemAlloc`) and kernels may be compiled and loaded on first
    /// use during a capture. cupy-rs refuses what would break a capture itself (host reads and
    /// writes, synchronizations).
    #[default]
    Relaxed,
}

/// Native stream capture of a backend ([`super::Backend::graph_capture`]). `None` as a stream
/// is the device's default stream.
pub trait GraphCapture: Send + Sync {
    /// Starts capturing the work queued on `stream` (`cudaStreamBeginCapture`).
    ///
    /// # Errors
    /// `InvalidArgument` when the stream is capturing already or belongs to another device;
    /// driver errors.
    fn begin_capture(&self, stream: Option<&NativeStream>, mode: CaptureMode) -> Result<()>;

    /// Ends the capture on `stream` and instantiates its graph (`cudaStreamEndCapture`,
    /// `cudaGraphInstantiate`).
    ///
    /// # Errors
    /// `InvalidArgument` when the stream is not capturing; the driver's error when the capture
    /// was invalidated.
    fn end_capture(&self, stream: Option<&NativeStream>) -> Result<NativeGraph>;

    /// Whether `stream` is capturing (`cudaStreamIsCapturing`).
    ///
    /// # Errors
    /// Driver errors; a stream of another device.
    fn is_capturing(&self, stream: Option<&NativeStream>) -> Result<bool>;

    /// Queues one replay of `graph` on `stream` (`cudaGraphLaunch`).
    ///
    /// # Errors
    /// `InvalidArgument` for a graph or stream of another device; driver errors.
    fn graph_launch(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()>;

    /// Uploads `graph`'s resources ahead of its first launch (`cudaGraphUpload`); backends
    /// without the call do nothing.
    ///
    /// # Errors
    /// As [`GraphCapture::graph_launch`].
    fn graph_upload(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()>;
}
