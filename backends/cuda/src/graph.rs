//! CUDA graphs (`cupy.cuda.graph`) through stream capture: `cuStreamBeginCapture_v2`,
//! `cuStreamEndCapture`, `cuGraphInstantiateWithFlags`, `cuGraphLaunch`, `cuGraphUpload`.
//!
//! While a stream captures, the pool holds the blocks given back on it
//! ([`cupy_core::gpu::pool::CachingPool::hold`]): temporaries of the captured ops (a GEMM's
//! staging copy, a reduction's partials, sort buffers) are used again by every launch, so
//! they belong to the graph and return to the pool when it is destroyed, on the stream of its
//! last launch. cuBLAS calls on a capturing stream use a workspace of the backend's
//! (`cublasSetWorkspace`, in `gemm.rs`), so no graph depends on the
//! handle's default workspace pool. Each launch is ordered after the previous launch of the
//! same graph (or its capture) when that was on another stream, and after the last library
//! call of another stream (the [`crate::streams::LibLane`]: graphs hold library work areas).

use crate::alloc::Pool;
use crate::CudaBackend;
use cudarc::driver::{result, sys, CudaContext};
use cupy_core::backend::{CaptureMode, GraphCapture, NativeGraph, NativeStream};
use cupy_core::{Error, Result};
use std::sync::{Arc, Mutex};

/// An instantiated CUDA graph and the pool blocks it holds.
pub struct CudaGraph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    ctx: Arc<CudaContext>,
    pool: Arc<Pool>,
    held: Vec<(u64, usize)>,
    /// The stream the graph last ran on (or was captured on): its raw handle, pool tag and
    /// the user stream object keeping the handle valid (`None`: the default stream).
    last: Mutex<(sys::CUstream, u64, Option<NativeStream>)>,
}

// SAFETY: graph handles are used under `last`'s lock for launches (CUDA asks that one graph
// is not used from two threads at once) and destroyed once.
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: created by cuGraphInstantiateWithFlags / cuStreamEndCapture, destroyed once;
        // a launch still queued keeps its resources until it completes.
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
        // The blocks go to the free list of the last launch's stream: its later work runs after
        // that launch. The stream object is still alive (held in `last`).
        let last = self.last.get_mut().unwrap_or_else(|e| e.into_inner());
        self.pool
            .0
            .give_all_on(last.1, std::mem::take(&mut self.held));
    }
}

fn capture_mode(mode: CaptureMode) -> sys::CUstreamCaptureMode {
    use sys::CUstreamCaptureMode as M;
    match mode {
        CaptureMode::Global => M::CU_STREAM_CAPTURE_MODE_GLOBAL,
        CaptureMode::ThreadLocal => M::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        CaptureMode::Relaxed => M::CU_STREAM_CAPTURE_MODE_RELAXED,
    }
}

impl CudaBackend {
    /// The raw stream and pool tag of `s` (`None`: the default stream).
    fn stream_and_tag(&self, op: &str, s: Option<&NativeStream>) -> Result<(sys::CUstream, u64)> {
        let raw = self.raw_stream(op, s)?;
        let tag = if raw == self.default_stream() {
            0
        } else {
            raw as u64
        };
        Ok((raw, tag))
    }

    fn capture_status(&self, raw: sys::CUstream) -> Result<sys::CUstreamCaptureStatus> {
        // SAFETY: a live stream of our (bound) context.
        unsafe { result::stream::is_capturing(raw) }
            .map_err(|e| self.err(format!("cuStreamIsCapturing failed: {e:?}")))
    }

    /// Whether the thread's current stream is capturing (library calls then bind the capture
    /// workspace and skip the cross-stream wait of [`CudaBackend::order_library`]).
    pub(crate) fn current_capturing(&self) -> bool {
        matches!(
            self.capture_status(self.cur_stream()),
            Ok(sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
        )
    }

    /// Makes `cur` wait on the device for the work queued so far on `prev`.
    fn wait_stream(&self, cur: sys::CUstream, prev: sys::CUstream) -> Result<()> {
        let ev = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| self.err(format!("cuEventCreate failed: {e:?}")))?;
        // SAFETY: live streams of our context; the event is destroyed after the wait is
        // queued (released when it completes).
        unsafe {
            let r = result::event::record(ev, prev).and_then(|_| {
                result::stream::wait_event(cur, ev, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
            });
            let _ = result::event::destroy(ev);
            r.map_err(|e| self.err(format!("ordering a graph launch: {e:?}")))
        }
    }

    fn graph_of<'a>(&self, op: &str, g: &'a NativeGraph) -> Result<&'a CudaGraph> {
        g.downcast_ref::<CudaGraph>()
            .filter(|c| Arc::ptr_eq(&c.ctx, &self.ctx))
            .ok_or_else(|| Error::invalid(op, "the graph belongs to another device"))
    }
}

impl GraphCapture for CudaBackend {
    fn begin_capture(&self, stream: Option<&NativeStream>, mode: CaptureMode) -> Result<()> {
        const OP: &str = "Stream.begin_capture";
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.bind()?;
        if self.capture_status(raw)? != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
            || !self.pool.0.hold(tag)
        {
            return Err(Error::invalid(OP, "the stream is capturing already"));
        }
        // SAFETY: a live stream of our bound context.
        unsafe { result::stream::begin_capture(raw, capture_mode(mode)) }.map_err(|e| {
            let _ = self.pool.0.release(tag);
            self.err(format!("cuStreamBeginCapture failed: {e:?}"))
        })
    }

    fn end_capture(&self, stream: Option<&NativeStream>) -> Result<NativeGraph> {
        const OP: &str = "Stream.end_capture";
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.bind()?;
        // SAFETY: a live stream of our bound context.
        let ended = unsafe { result::stream::end_capture(raw) };
        let held = self.pool.0.release(tag);
        let graph = match ended {
            Ok(g) if !g.is_null() => g,
            r => {
                // Nothing captured ran or will run: the blocks are free again.
                self.pool.0.give_all_on(tag, held);
                return Err(match r {
                    Err(e) => self.err(format!(
                        "cuStreamEndCapture failed: {e:?} (the capture was invalidated by an \
                         operation CUDA does not allow while capturing)"
                    )),
                    Ok(_) => Error::invalid(OP, "the stream is not capturing"),
                });
            }
        };
        // SAFETY: a graph just captured.
        let exec =
            match unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) } {
                Ok(x) => x,
                Err(e) => {
                    // SAFETY: created above, destroyed once.
                    let _ = unsafe { result::graph::destroy(graph) };
                    self.pool.0.give_all_on(tag, held);
                    return Err(self.err(format!("cuGraphInstantiate failed: {e:?}")));
                }
            };
        Ok(Arc::new(CudaGraph {
            graph,
            exec,
            ctx: self.ctx.clone(),
            pool: self.pool.clone(),
            held,
            last: Mutex::new((raw, tag, stream.cloned())),
        }))
    }

    fn is_capturing(&self, stream: Option<&NativeStream>) -> Result<bool> {
        let (raw, _) = self.stream_and_tag("Stream.is_capturing", stream)?;
        self.bind()?;
        Ok(self.capture_status(raw)? != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }

    fn graph_launch(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        const OP: &str = "Graph.launch";
        let g = self.graph_of(OP, graph)?;
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.bind()?;
        let mut last = g.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.0 != raw {
            self.wait_stream(raw, last.0)?;
        }
        // The graph's library calls use their handles' work areas: order it as a library call.
        self.order_library().map_err(|e| self.err(e))?;
        // SAFETY: a live graph of our context, launched under `last`'s lock.
        unsafe { result::graph::launch(g.exec, raw) }
            .map_err(|e| self.err(format!("cuGraphLaunch failed: {e:?}")))?;
        *last = (raw, tag, stream.cloned());
        Ok(())
    }

    fn graph_upload(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        const OP: &str = "Graph.upload";
        let g = self.graph_of(OP, graph)?;
        let (raw, _) = self.stream_and_tag(OP, stream)?;
        self.bind()?;
        let _held = g.last.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a live graph of our context.
        unsafe { result::graph::upload(g.exec, raw) }
            .map_err(|e| self.err(format!("cuGraphUpload failed: {e:?}")))
    }
}
