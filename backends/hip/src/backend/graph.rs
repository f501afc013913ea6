//! HIP graphs through stream capture (`hipStreamBeginCapture`, `hipStreamEndCapture`,
//! `hipGraphInstantiateWithFlags`, `hipGraphLaunch`), as `cupy-cuda`'s `graph.rs` does them on
//! CUDA: the pool holds the blocks given back on a capturing stream for the graph, which
//! returns them on the stream of its last launch when destroyed; a launch on another stream
//! than the previous one (or the capture) waits for it, and is ordered as a library call.
//! `Graph.upload` does nothing (`hipGraphUpload` is not in ROCm 5.2). Compiled and its FFI
//! checked against ROCm's headers; never run on AMD hardware.

use super::streams::event_create;
use super::*;
use cupy_core::backend::{CaptureMode, GraphCapture, NativeGraph, NativeStream};

/// An instantiated HIP graph and the pool blocks it holds.
pub struct HipGraph {
    graph: Handle,
    exec: Handle,
    hip: Arc<Hip>,
    dev: i32,
    pool: Arc<Pool>,
    held: Vec<(u64, usize)>,
    /// The stream of the last launch (or the capture): raw handle, pool tag, and the user
    /// stream object keeping the handle valid (`None`: the default stream).
    last: Mutex<(Handle, u64, Option<NativeStream>)>,
}

impl Drop for HipGraph {
    fn drop(&mut self) {
        let _ = self.hip.set_device(self.dev);
        if let Ok(g) = &self.hip.graphs {
            // SAFETY: created by hipGraphInstantiateWithFlags / hipStreamEndCapture, destroyed
            // once; a queued launch completes.
            unsafe {
                let _ = (g.hipGraphExecDestroy)(self.exec.0);
                let _ = (g.hipGraphDestroy)(self.graph.0);
            }
        }
        let last = self.last.get_mut().unwrap_or_else(|e| e.into_inner());
        self.pool
            .inner
            .give_all_on(last.1, std::mem::take(&mut self.held));
    }
}

impl HipBackend {
    fn graph_api(&self, op: &str) -> Result<&h::HipGraphApi> {
        self.hip.graphs.as_ref().map_err(|e| Error::Unsupported {
            op: op.into(),
            backend: self.info.label(),
            reason: format!("the HIP runtime has no graph calls ({e})"),
        })
    }

    fn stream_and_tag(&self, op: &str, s: Option<&NativeStream>) -> Result<(h::hipStream_t, u64)> {
        let raw = self.raw_stream(op, s)?;
        let tag = if raw == self.stream.0 { 0 } else { raw as u64 };
        Ok((raw, tag))
    }

    fn capture_status(&self, op: &str, raw: h::hipStream_t) -> Result<h::hipStreamCaptureStatus> {
        let g = self.graph_api(op)?;
        let mut st: h::hipStreamCaptureStatus = h::hipStreamCaptureStatusNone;
        // SAFETY: a live stream of our device; out pointer to a local.
        self.hip
            .check("hipStreamIsCapturing", unsafe {
                (g.hipStreamIsCapturing)(raw, &mut st)
            })
            .map_err(|e| self.err(e))?;
        Ok(st)
    }

    /// Whether the thread's current stream is capturing (false where the runtime has no
    /// graphs).
    pub(crate) fn current_capturing(&self) -> bool {
        self.hip.graphs.is_ok()
            && matches!(
                self.capture_status("order_library", self.cur_stream()),
                Ok(s) if s != h::hipStreamCaptureStatusNone
            )
    }

    fn graph_of<'a>(&self, op: &str, g: &'a NativeGraph) -> Result<&'a HipGraph> {
        g.downcast_ref::<HipGraph>()
            .filter(|x| x.dev == self.dev && Arc::ptr_eq(&x.pool, &self.pool))
            .ok_or_else(|| Error::invalid(op, "the graph belongs to another device"))
    }
}

impl GraphCapture for HipBackend {
    fn begin_capture(&self, stream: Option<&NativeStream>, mode: CaptureMode) -> Result<()> {
        const OP: &str = "Stream.begin_capture";
        let g = self.graph_api(OP)?;
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.current()?;
        if self.capture_status(OP, raw)? != h::hipStreamCaptureStatusNone
            || !self.pool.inner.hold(tag)
        {
            return Err(Error::invalid(OP, "the stream is capturing already"));
        }
        let mode = match mode {
            CaptureMode::Global => h::hipStreamCaptureModeGlobal,
            CaptureMode::ThreadLocal => h::hipStreamCaptureModeThreadLocal,
            CaptureMode::Relaxed => h::hipStreamCaptureModeRelaxed,
        };
        // SAFETY: a live stream of our device.
        let r = self.hip.check("hipStreamBeginCapture", unsafe {
            (g.hipStreamBeginCapture)(raw, mode)
        });
        r.map_err(|e| {
            let _ = self.pool.inner.release(tag);
            self.err(e)
        })
    }

    fn end_capture(&self, stream: Option<&NativeStream>) -> Result<NativeGraph> {
        const OP: &str = "Stream.end_capture";
        let g = self.graph_api(OP)?;
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.current()?;
        let mut graph: h::hipGraph_t = std::ptr::null_mut();
        // SAFETY: a live stream of our device; out pointer to a local.
        let ended = self.hip.check("hipStreamEndCapture", unsafe {
            (g.hipStreamEndCapture)(raw, &mut graph)
        });
        let held = self.pool.inner.release(tag);
        if let Err(e) = ended {
            self.pool.inner.give_all_on(tag, held);
            return Err(self.err(e));
        }
        if graph.is_null() {
            self.pool.inner.give_all_on(tag, held);
            return Err(Error::invalid(OP, "the stream is not capturing"));
        }
        let mut exec: h::hipGraphExec_t = std::ptr::null_mut();
        // SAFETY: a graph just captured; out pointer to a local.
        let r = self.hip.check("hipGraphInstantiateWithFlags", unsafe {
            (g.hipGraphInstantiateWithFlags)(&mut exec, graph, 0)
        });
        if let Err(e) = r {
            // SAFETY: created above, destroyed once.
            let _ = unsafe { (g.hipGraphDestroy)(graph) };
            self.pool.inner.give_all_on(tag, held);
            return Err(self.err(e));
        }
        Ok(Arc::new(HipGraph {
            graph: Handle(graph),
            exec: Handle(exec),
            hip: self.hip.clone(),
            dev: self.dev,
            pool: self.pool.clone(),
            held,
            last: Mutex::new((Handle(raw), tag, stream.cloned())),
        }))
    }

    fn is_capturing(&self, stream: Option<&NativeStream>) -> Result<bool> {
        const OP: &str = "Stream.is_capturing";
        let (raw, _) = self.stream_and_tag(OP, stream)?;
        self.current()?;
        Ok(self.capture_status(OP, raw)? != h::hipStreamCaptureStatusNone)
    }

    fn graph_launch(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        const OP: &str = "Graph.launch";
        let api = self.graph_api(OP)?;
        let g = self.graph_of(OP, graph)?;
        let (raw, tag) = self.stream_and_tag(OP, stream)?;
        self.current()?;
        let mut last = g.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.0 .0 != raw {
            let ev = event_create(&self.hip, false).map_err(|e| self.err(e))?;
            // SAFETY: live streams of our device (`last` keeps a user stream alive); the event
            // is destroyed after the wait is queued.
            let r = unsafe {
                let r = self.hip.event_record(ev, last.0 .0).and_then(|_| {
                    self.hip.check(
                        "hipStreamWaitEvent",
                        (self.hip.api.hipStreamWaitEvent)(raw, ev, 0),
                    )
                });
                let _ = self.hip.event_destroy(ev);
                r
            };
            r.map_err(|e| self.err(e))?;
        }
        self.order_library()?;
        // SAFETY: a live graph of our device, launched under `last`'s lock.
        self.hip
            .check("hipGraphLaunch", unsafe {
                (api.hipGraphLaunch)(g.exec.0, raw)
            })
            .map_err(|e| self.err(e))?;
        *last = (Handle(raw), tag, stream.cloned());
        Ok(())
    }

    fn graph_upload(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        const OP: &str = "Graph.upload";
        self.graph_of(OP, graph)?;
        self.stream_and_tag(OP, stream)?;
        Ok(())
    }
}
