//! Streams and events (`cupy.cuda.Stream`, `Event`, `get_elapsed_time`) on every listed backend:
//! work alternating between two streams gives NumPy's results (`tests/data/streams.npz`, written
//! by `tests/data/streams.py`), explicit event ordering, queries after synchronizing, elapsed
//! time, the current stream's nesting, and the errors.

use crate::common;
use cupy::cuda::{get_current_stream, get_elapsed_time, with_stream, Event, Stream};
use cupy::{Array, BackendKind, BackendProvider, Device, Error};

/// A private instance of `shared`'s device: on wgpu (one queue) and the cpu every stream is the
/// device's queue, so a query is only true when no test running beside has work queued there.
fn private(shared: &Device) -> Device {
    let b = match shared.kind() {
        BackendKind::Cpu => cupy_cpu::CpuProvider.open(0),
        BackendKind::Wgpu => cupy_wgpu::WgpuProvider.open(0),
        BackendKind::Cuda => cupy_cuda::CudaProvider.open(0),
        BackendKind::Hip => cupy_hip::HipProvider.open(0),
    };
    Device::from_backend(b.unwrap_or_else(|e| panic!("a second {shared} device: {e}")))
}

fn golden(name: &str) -> Vec<f32> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/streams.npz");
    let cpu = Device::get(BackendKind::Cpu, 0).unwrap();
    cupy::with_device(&cpu, || {
        let mut z = cupy::load_npz(path).unwrap();
        z.get(name).unwrap().to_vec::<f32>().unwrap()
    })
}

fn check(dev: &Device, what: &str, got: &Array) {
    assert_eq!(
        got.to_vec::<f32>().unwrap(),
        golden(what),
        "{}: {what} after alternating streams",
        dev.label()
    );
}

#[test]
fn alternating_streams_match_numpy() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let s1 = Stream::new().unwrap();
            let s2 = Stream::new_non_blocking().unwrap();
            let a = Array::from_slice_on(&dev, &golden("a"), &[64, 64]).unwrap();
            let b = with_stream(&s1, || ((&a * 2.0).unwrap() + 1.0).unwrap());
            let c = with_stream(&s2, || cupy::matmul(&b, &a.t()).unwrap());
            let d = with_stream(&s1, || c.sum_axis(0).unwrap());
            let e = with_stream(&s1, || (&b - 1.0).unwrap());
            with_stream(&s2, || b.fill(3.0).unwrap());
            let f = with_stream(&s1, || (&b + &d).unwrap());
            let g = with_stream(&s2, || cupy::cumsum(&d).unwrap());
            let h = with_stream(&s1, || cupy::sort(&(-&g).unwrap()).unwrap());
            // Read on the default stream, and on each of the two.
            check(&dev, "c", &c);
            with_stream(&s2, || check(&dev, "d", &d));
            with_stream(&s1, || check(&dev, "e", &e));
            check(&dev, "f", &f);
            check(&dev, "g", &g);
            check(&dev, "h", &h);
            // Arrays dropped while the streams live, then the streams: the next work is right.
            drop((b, c, d, e, f, g, h));
            drop((s1, s2));
            let again = cupy::matmul(&a, &a.t()).unwrap().sum_axis(0).unwrap();
            assert_eq!(again.shape(), &[64]);
        });
    }
}

#[test]
fn event_orders_two_streams() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
            let x = cupy::arange_with(0.0, 10_000.0, 1.0, cupy::DType::Float32).unwrap();
            let y = with_stream(&s1, || (&x * 3.0).unwrap());
            let done = s1.record().unwrap();
            s2.wait_event(&done).unwrap();
            let z = with_stream(&s2, || (&y + 1.0).unwrap());
            s2.synchronize().unwrap();
            assert!(
                s2.query().unwrap(),
                "{}: query after synchronize",
                dev.label()
            );
            assert!(done.query().unwrap());
            let want: Vec<f32> = (0..10_000).map(|i| i as f32 * 3.0 + 1.0).collect();
            assert_eq!(z.to_vec::<f32>().unwrap(), want, "{}", dev.label());
        });
    }
}

#[test]
fn synchronize_then_query_is_true() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let s = Stream::new().unwrap();
            let ev = Event::new().unwrap();
            assert!(ev.query().unwrap(), "an unrecorded event is complete");
            with_stream(&s, || {
                let x = cupy::ones(&[1 << 16]).unwrap();
                let _ = x.sum().unwrap();
                ev.record_current().unwrap();
            });
            ev.synchronize().unwrap();
            assert!(
                ev.query().unwrap(),
                "{}: event after synchronize",
                dev.label()
            );
            s.synchronize().unwrap();
            assert!(
                s.query().unwrap(),
                "{}: stream after synchronize",
                dev.label()
            );
            let null = Stream::null().unwrap();
            null.synchronize().unwrap();
            assert!(null.query().unwrap());
            dev.synchronize().unwrap();
        });
    }
}

#[test]
fn elapsed_time_is_non_negative() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let s = Stream::new().unwrap();
            let (start, end) = (Event::new().unwrap(), Event::new().unwrap());
            start.record(&s).unwrap();
            with_stream(&s, || {
                let x = cupy::ones(&[1 << 18]).unwrap();
                let _ = (&x * 2.0).unwrap().sum().unwrap();
            });
            end.record(&s).unwrap();
            end.synchronize().unwrap();
            let ms = get_elapsed_time(&start, &end).unwrap();
            assert!(ms >= 0.0 && ms.is_finite(), "{}: {ms} ms", dev.label());
            // The same event twice is 0 (it once locked one mutex twice and hung); the pair
            // the other way round is the negated time, as cudaEventElapsedTime.
            assert_eq!(
                get_elapsed_time(&end, &end).unwrap(),
                0.0,
                "{}",
                dev.label()
            );
            let back = get_elapsed_time(&end, &start).unwrap();
            assert!(
                back <= 0.0 && (back + ms).abs() <= 1e-3 * ms.max(1.0),
                "{back} vs {ms}"
            );
            // Timing disabled, or an event never recorded: a clear error.
            let quiet = Event::new_on(&dev, true).unwrap();
            quiet.record(&s).unwrap();
            quiet.synchronize().unwrap();
            let e = get_elapsed_time(&start, &quiet).unwrap_err();
            assert!(
                matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("timing"),
                "{e}"
            );
            let never = Event::new().unwrap();
            assert!(get_elapsed_time(&start, &never).is_err());
        });
    }
}

#[test]
fn with_stream_nests_and_restores() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let null = Stream::null().unwrap();
            assert!(get_current_stream().unwrap().is_null());
            assert_eq!(get_current_stream().unwrap(), null);
            let (s1, s2) = (Stream::new().unwrap(), Stream::new_non_blocking().unwrap());
            assert!(s2.non_blocking() && !s1.non_blocking() && !s1.is_null());
            with_stream(&s1, || {
                assert_eq!(get_current_stream().unwrap(), s1);
                with_stream(&s2, || assert_eq!(get_current_stream().unwrap(), s2));
                assert_eq!(get_current_stream().unwrap(), s1);
                with_stream(&null, || assert!(get_current_stream().unwrap().is_null()));
                // A panic inside restores the stream too.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    with_stream(&s2, || panic!("inside"))
                }));
                assert!(r.is_err());
                assert_eq!(get_current_stream().unwrap(), s1);
            });
            assert!(get_current_stream().unwrap().is_null());
        });
    }
}

#[test]
fn streams_and_events_of_two_devices_are_refused() {
    let devs = common::backends();
    let cpu = Device::get(BackendKind::Cpu, 0).unwrap();
    for dev in devs.iter().filter(|d| **d != cpu) {
        let s = Stream::new_on(dev, false).unwrap();
        let ev = Event::new_on(&cpu, false).unwrap();
        let e = s.wait_event(&ev).unwrap_err();
        assert!(
            e.to_string().contains(&dev.label()) && e.to_string().contains(&cpu.label()),
            "{e}"
        );
        assert!(ev.record(&s).is_err());
        let other = Event::new_on(dev, false).unwrap();
        assert!(get_elapsed_time(&ev, &other).is_err());
    }
}

#[test]
fn short_lived_arrays_on_a_stream() {
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            let pool = cupy::get_default_memory_pool().unwrap();
            dev.synchronize().unwrap();
            let s = Stream::new().unwrap();
            let x = cupy::ones(&[4096]).unwrap();
            for i in 0..200 {
                let y = with_stream(&s, || (&x * i as f64).unwrap());
                let z = (&y + 1.0).unwrap();
                drop(y);
                drop(z);
            }
            drop(s);
            dev.synchronize().unwrap();
            let v = x.to_vec::<f64>().unwrap();
            assert!(v.iter().all(|&t| t == 1.0));
            // Counters are shared with tests running beside; just check they are consistent.
            assert!(pool.total_bytes() >= pool.used_bytes());
        });
    }
}
