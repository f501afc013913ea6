//! The ordering of [`super::order`] against a spy backend: the cpu backend with streams that
//! log every event record and wait (the cpu and wgpu backends have one queue, so their streams
//! never need ordering and the frontend never issues a wait there).

use super::{with_stream, Stream};
use crate::{Array, Device};
use cupy_core::backend::{
    Backend, Buffer, DeviceInfo, ElementwiseCall, GemmCall, NativeEvent, NativeStream,
    ReductionCall,
};
use cupy_core::{BackendProvider, DType, Result};
use std::sync::{Arc, Mutex};

#[derive(Debug)]
struct Spy {
    inner: Arc<dyn Backend>,
    next: Mutex<u32>,
    log: Mutex<Vec<String>>,
}

fn name(s: Option<&NativeStream>) -> String {
    s.map_or("default".into(), |s| {
        format!("s{}", s.downcast_ref::<u32>().expect("a spy stream"))
    })
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
    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.inner.read_into(src, offset, dst)
    }
    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        self.inner.elementwise(call)
    }
    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        self.inner.reduce(call)
    }
    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        self.inner.gemm(call)
    }
    fn synchronize(&self) -> Result<()> {
        Ok(())
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
        self.log
            .lock()
            .unwrap()
            .push(format!("{} waits {after}", name(stream)));
        Ok(())
    }
}

fn spy() -> (Device, Arc<Spy>) {
    let spy = Arc::new(Spy {
        inner: cupy_cpu::CpuProvider.open(0).unwrap(),
        next: Mutex::new(0),
        log: Mutex::new(vec![]),
    });
    (Device::from_backend(spy.clone()), spy)
}

fn take(spy: &Spy) -> Vec<String> {
    std::mem::take(&mut *spy.log.lock().unwrap())
}

#[test]
fn uses_on_other_streams_wait_for_the_last_write_and_reads() {
    let (dev, spy) = spy();
    crate::with_device(&dev, || {
        let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
        let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
        // The backend sees the thread's current stream under its own address (what cuda and
        // hip look up when they queue work).
        let key = cupy_core::backend::stream::backend_key(&*spy);
        assert!(cupy_core::backend::stream::current(key).is_none());
        with_stream(&s2, || {
            let cur = cupy_core::backend::stream::current(key).expect("s2 is current");
            assert_eq!(cur.downcast_ref::<u32>(), Some(&2));
        });
        // Written on the default stream, read on s1: s1 waits for the default stream.
        let y = with_stream(&s1, || (&x * 2.0).unwrap());
        assert_eq!(take(&spy), ["s1 waits default"]);
        // Read again on s1 (its own write and an already-ordered input): no wait.
        let z = with_stream(&s1, || (&y + &x).unwrap());
        assert_eq!(take(&spy), Vec::<String>::new());
        // y (written on s1) read on s2: read after write.
        let w = with_stream(&s2, || (&y - 1.0).unwrap());
        assert_eq!(take(&spy), ["s2 waits s1"]);
        // x read on s1 and the default stream, now written on s2: write after read.
        with_stream(&s2, || x.fill(7.0).unwrap());
        let mut log = take(&spy);
        log.sort();
        assert_eq!(log, ["s2 waits default", "s2 waits s1"]);
        // Read on the default stream (to the host): waits for s2's write.
        assert_eq!(x.to_vec::<f32>().unwrap(), [7.0; 3]);
        assert_eq!(take(&spy), ["default waits s2"]);
        assert_eq!(w.to_vec::<f32>().unwrap(), [1.0, 3.0, 5.0]);
        assert_eq!(z.to_vec::<f32>().unwrap(), [3.0, 6.0, 9.0]);
        take(&spy);
        // w was allocated on s2 and read by the default stream: its block goes back after s2
        // waits for that read.
        drop(w);
        assert_eq!(take(&spy), ["s2 waits default"]);
        // y: allocated and written on s1, read by s1, s2 and nobody else: s1 waits for s2.
        drop(y);
        assert_eq!(take(&spy), ["s1 waits s2"]);
        // Nothing used on another stream: no waits at all.
        assert_eq!(with_stream(&s2, || square_of_three(&dev)), 9.0);
        assert_eq!(take(&spy), Vec::<String>::new());
    });
}

/// An array made, used and dropped on the current stream only.
fn square_of_three(dev: &Device) -> f32 {
    let a = Array::from_slice_on(dev, &[3.0f32], &[1]).unwrap();
    let b = (&a * &a).unwrap();
    b.to_vec::<f32>().unwrap()[0]
}
