//! The frontend's side of native graphs (cuda, hip) against a spy backend: the cpu backend
//! with streams and a "driver capture" that logs what it is asked (no GPU here; the recorded
//! path of wgpu and the cpu is tested in `tests/graphs.rs`).

use super::{with_stream, Graph, Stream};
use crate::{Array, Device};
use cupy_core::backend::stream::{backend_key, current};
use cupy_core::backend::{
    Backend, Buffer, CaptureMode, DeviceInfo, ElementwiseCall, GemmCall, GraphCapture, NativeEvent,
    NativeGraph, NativeStream, ReductionCall,
};
use cupy_core::{BackendProvider, DType, Error, Result};
use std::sync::{Arc, Mutex};

#[derive(Debug)]
struct Spy {
    inner: Arc<dyn Backend>,
    next: Mutex<u32>,
    /// The stream capturing (0: the default one) and the calls it captured.
    capture: Mutex<Option<(u32, Vec<String>)>>,
    log: Mutex<Vec<String>>,
}

fn id(s: Option<&NativeStream>) -> u32 {
    s.map_or(0, |s| *s.downcast_ref::<u32>().expect("a spy stream"))
}

fn name(s: Option<&NativeStream>) -> String {
    match id(s) {
        0 => "default".into(),
        n => format!("s{n}"),
    }
}

impl Spy {
    fn push(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }

    /// True (and the call is logged as captured) when the current stream is capturing.
    fn captured(&self, what: &str) -> bool {
        let cur = id(current(backend_key(self)).as_ref());
        let mut c = self.capture.lock().unwrap();
        match c.as_mut() {
            Some((s, calls)) if *s == cur => {
                calls.push(what.into());
                true
            }
            _ => false,
        }
    }
}

impl Backend for Spy {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn supports_dtype(&self, dtype: DType) -> std::result::Result<(), String> {
        self.inner.supports_dtype(dtype)
    }
    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer> {
        self.inner.alloc(dtype, len)
    }
    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        self.inner.write(dst, offset, data)
    }
    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        self.inner.read(src, offset, len)
    }
    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        if self.captured("elementwise") {
            return Ok(());
        }
        self.inner.elementwise(call)
    }
    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        if self.captured("reduce") {
            return Ok(());
        }
        self.inner.reduce(call)
    }
    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        self.inner.gemm(call)
    }
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn graph_capture(&self) -> Option<&dyn GraphCapture> {
        Some(self)
    }
    fn stream_create(&self, _non_blocking: bool) -> Result<Option<NativeStream>> {
        let mut n = self.next.lock().unwrap();
        *n += 1;
        Ok(Some(Arc::new(*n)))
    }
    fn event_create(&self, _timing: bool) -> Result<NativeEvent> {
        Ok(Arc::new(Mutex::new(String::new())))
    }
    fn event_record(&self, event: &NativeEvent, stream: Option<&NativeStream>) -> Result<()> {
        let e = event.downcast_ref::<Mutex<String>>().unwrap();
        *e.lock().unwrap() = name(stream);
        Ok(())
    }
    fn stream_wait_event(&self, stream: Option<&NativeStream>, event: &NativeEvent) -> Result<()> {
        let e = event.downcast_ref::<Mutex<String>>().unwrap();
        let after = e.lock().unwrap().clone();
        self.push(format!("{} waits {after}", name(stream)));
        Ok(())
    }
}

impl GraphCapture for Spy {
    fn begin_capture(&self, stream: Option<&NativeStream>, mode: CaptureMode) -> Result<()> {
        self.push(format!("begin {} {mode:?}", name(stream)));
        *self.capture.lock().unwrap() = Some((id(stream), vec![]));
        Ok(())
    }
    fn end_capture(&self, stream: Option<&NativeStream>) -> Result<NativeGraph> {
        self.push(format!("end {}", name(stream)));
        let (_, calls) = self.capture.lock().unwrap().take().expect("capturing");
        Ok(Arc::new(calls))
    }
    fn is_capturing(&self, stream: Option<&NativeStream>) -> Result<bool> {
        Ok(matches!(*self.capture.lock().unwrap(), Some((s, _)) if s == id(stream)))
    }
    fn graph_launch(&self, graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        let calls = graph.downcast_ref::<Vec<String>>().unwrap();
        self.push(format!("launch {calls:?} on {}", name(stream)));
        Ok(())
    }
    fn graph_upload(&self, _graph: &NativeGraph, stream: Option<&NativeStream>) -> Result<()> {
        self.push(format!("upload on {}", name(stream)));
        Ok(())
    }
}

fn take(spy: &Spy) -> Vec<String> {
    std::mem::take(&mut *spy.log.lock().unwrap())
}

#[test]
fn native_capture_goes_to_the_driver_and_launches_are_ordered() {
    let spy = Arc::new(Spy {
        inner: cupy_cpu::CpuProvider.open(0).unwrap(),
        next: Mutex::new(0),
        capture: Mutex::new(None),
        log: Mutex::new(vec![]),
    });
    let dev = Device::from_backend(spy.clone());
    crate::with_device(&dev, || {
        let s = Stream::new().unwrap();
        let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
        let (g, y) = Graph::capture_on(&s, || (&x * 2.0)?.sum()).unwrap();
        assert_eq!(take(&spy), ["begin s1 Relaxed", "end s1"]);
        assert!(g.recorded_calls().is_none());
        // x, the product (made and dropped inside) and the sum.
        let d = format!("{g:?}");
        let kept: usize = (d.rsplit(", ").next().and_then(|t| t.split(' ').next()))
            .and_then(|n| n.parse().ok())
            .expect("a buffer count");
        assert!(kept >= 3, "{d}");
        g.upload_on(&s).unwrap();
        // x was written on the default stream: the launch on s1 waits for it.
        g.launch_on(&s).unwrap();
        let log = take(&spy);
        assert_eq!(log[..2], ["upload on s1", "s1 waits default"], "{log:?}");
        // The driver got the captured calls (the product, then the sum).
        let calls = log[2]
            .strip_suffix(" on s1")
            .expect("a launch on s1")
            .to_string();
        assert!(calls.starts_with(r#"launch ["elementwise""#), "{calls}");
        assert!(calls.contains(r#""reduce""#), "{calls}");
        assert_eq!(log.len(), 3, "{log:?}");
        // On the default stream: after the launch on s1 that wrote the graph's buffers.
        g.launch().unwrap();
        assert_eq!(
            take(&spy),
            [
                "default waits s1".to_string(),
                format!("{calls} on default")
            ]
        );
        // The spy ran nothing: y was never written, but stays readable.
        assert_eq!(y.shape(), &[] as &[usize]);
        // While capturing, a read to the host is refused before it reaches the backend.
        s.begin_capture().unwrap();
        assert!(s.is_capturing().unwrap());
        let r = with_stream(&s, || y.to_vec::<f32>());
        assert!(matches!(r, Err(Error::Unsupported { .. })), "{r:?}");
        let g2 = s.end_capture().unwrap();
        assert!(!s.is_capturing().unwrap());
        assert_eq!(take(&spy), ["begin s1 Relaxed", "end s1"]);
        drop((g, g2));
    });
}
