//! Graphs (`cupy.cuda.graph`: `Stream.begin_capture`/`end_capture`, `Graph.launch`) on every
//! listed backend: a captured chain (elementwise, GEMM, reduction, scan, sort, arrays made
//! inside the capture) replayed after its input changed, against the values NumPy gives
//! (computed here in f64, exact in float32 for these small integers) and the eager result;
//! captured work not running before the launch; buffers kept alive by the graph; the ops refused
//! while capturing and the misuse errors.
//!
//! Each test captures on its own stream of a private device: on cuda and hip a capture refuses
//! `Device.synchronize` for its whole device, and the default stream is shared with every other
//! test (run these with `--test-threads=1` there: the primary context is shared too).

use crate::common;
use cupy::cuda::{with_stream, Event, Graph, Stream};
use cupy::{Array, BackendKind, BackendProvider, DType, Device, Error};

fn private(shared: &Device) -> Device {
    let b = match shared.kind() {
        BackendKind::Cpu => cupy_cpu::CpuProvider.open(0),
        BackendKind::Wgpu => cupy_wgpu::WgpuProvider.open(0),
        BackendKind::Cuda => cupy_cuda::CudaProvider.open(0),
        BackendKind::Hip => cupy_hip::HipProvider.open(0),
    };
    Device::from_backend(b.unwrap_or_else(|e| panic!("a second {shared} device: {e}")))
}

const N: usize = 8;

fn input(k: usize) -> Vec<f32> {
    (0..N * N)
        .map(|i| ((i * 7 + k) % 5) as f32 + k as f32)
        .collect()
}

fn weights() -> Vec<f32> {
    (0..N * N).map(|i| ((i * 3) % 7) as f32 - 3.0).collect()
}

/// NumPy: `z = (2 x + 1) @ w; t = z.sum(0); u = cumsum(t); v = sort(-u)`.
fn expected(x: &[f32], w: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
    let y: Vec<f64> = x.iter().map(|&v| 2.0 * v as f64 + 1.0).collect();
    let mut z = vec![0f64; N * N];
    for i in 0..N {
        for j in 0..N {
            z[i * N + j] = (0..N).map(|k| y[i * N + k] * w[k * N + j] as f64).sum();
        }
    }
    let t: Vec<f64> = (0..N).map(|j| (0..N).map(|i| z[i * N + j]).sum()).collect();
    let u: Vec<f64> = t
        .iter()
        .scan(0.0, |acc, v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    let mut v: Vec<f64> = u.iter().map(|x| -x).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let f = |a: Vec<f64>| a.into_iter().map(|x| x as f32).collect();
    (f(z), f(t), f(u), f(v))
}

#[test]
fn captured_chain_replays_on_new_inputs() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let w = Array::from_slice_on(&dev, &weights(), &[N, N]).unwrap();
            let x = Array::from_slice_on(&dev, &input(0), &[N, N]).unwrap();
            let s = Stream::new().unwrap();
            let (g, (z, t, u, v)) = Graph::capture_on(&s, || {
                let y = ((&x * 2.0)? + 1.0)?;
                let z = cupy::matmul(&y, &w)?;
                let t = z.sum_axis(0)?;
                let u = cupy::cumsum(&t)?;
                let v = cupy::sort(&(-&u)?)?;
                Ok((z, t, u, v))
            })
            .unwrap();
            assert!(!s.is_capturing().unwrap());
            if let Some(n) = g.recorded_calls() {
                assert!(n >= 5, "{}: {n} recorded calls", dev.label());
            }
            for k in 0..3 {
                let xk = input(k);
                let src = Array::from_slice_on(&dev, &xk, &[N, N]).unwrap();
                cupy::copyto(&x, &src).unwrap();
                if k == 1 {
                    g.launch().unwrap(); // on the default stream
                } else {
                    g.launch_on(&s).unwrap();
                }
                let (ez, et, eu, ev) = expected(&xk, &weights());
                let what = format!("{}: launch {k}", dev.label());
                assert_eq!(z.to_vec::<f32>().unwrap(), ez, "{what}: z");
                assert_eq!(t.to_vec::<f32>().unwrap(), et, "{what}: t");
                assert_eq!(u.to_vec::<f32>().unwrap(), eu, "{what}: u");
                assert_eq!(v.to_vec::<f32>().unwrap(), ev, "{what}: v");
                // The eager computation agrees.
                let eager = cupy::matmul(&((&x * 2.0).unwrap() + 1.0).unwrap(), &w)
                    .unwrap()
                    .sum_axis(0)
                    .unwrap();
                assert_eq!(eager.to_vec::<f32>().unwrap(), et, "{what}: eager");
            }
            // `x.fill` between launches is seen too.
            x.fill(1.0).unwrap();
            g.launch_on(&s).unwrap();
            let (_, et, _, _) = expected(&[1.0; N * N], &weights());
            assert_eq!(
                t.to_vec::<f32>().unwrap(),
                et,
                "{}: after fill",
                dev.label()
            );
        });
    }
}

#[test]
fn captured_work_runs_only_at_launch() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
            let s = Stream::new().unwrap();
            let (g, ()) = Graph::capture_on(&s, || x.fill(5.0)).unwrap();
            assert_eq!(
                x.to_vec::<f32>().unwrap(),
                [1.0, 2.0, 3.0],
                "{}",
                dev.label()
            );
            g.upload_on(&s).unwrap();
            g.launch_on(&s).unwrap();
            assert_eq!(x.to_vec::<f32>().unwrap(), [5.0; 3], "{}", dev.label());
            // An in-place update accumulates over launches.
            let (g, ()) = Graph::capture_on(&s, || {
                let opts = cupy::UfuncOptions {
                    out: Some(x.clone()),
                    ..Default::default()
                };
                cupy::ufuncs::add
                    .call_with(&[(&x).into(), 1.0.into()], opts)
                    .map(|_| ())
            })
            .unwrap();
            for _ in 0..3 {
                g.launch_on(&s).unwrap();
            }
            assert_eq!(x.to_vec::<f32>().unwrap(), [8.0; 3], "{}", dev.label());
        });
    }
}

#[test]
fn graph_keeps_buffers_alive() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let n = 1000;
            let x = cupy::arange_with(0.0, n as f64, 1.0, DType::Float32).unwrap();
            let s = Stream::new().unwrap();
            let (g, c) = Graph::capture_on(&s, || {
                // `a` and `b` are made inside the capture and dropped at its end.
                let a = (&x * 3.0)?;
                let b = (&a + 1.0)?;
                &b + &x
            })
            .unwrap();
            drop(x);
            // Blocks freed now would be reused (and overwritten) by these.
            let junk: Vec<Array> = (0..8)
                .map(|_| with_stream(&s, || cupy::full_with(&[n], -7.0, DType::Float32)).unwrap())
                .collect();
            g.launch_on(&s).unwrap();
            let want: Vec<f32> = (0..n).map(|i| 4.0 * i as f32 + 1.0).collect();
            assert_eq!(c.to_vec::<f32>().unwrap(), want, "{}", dev.label());
            drop(junk);
            // The user's output dropped too: the graph still owns it and relaunches.
            drop(c);
            g.launch_on(&s).unwrap();
            s.synchronize().unwrap();
            drop(g);
            let again = cupy::arange_with(0.0, 4.0, 1.0, DType::Float32).unwrap();
            assert_eq!(again.to_vec::<f32>().unwrap(), [0.0, 1.0, 2.0, 3.0]);
        });
    }
}

fn refused(r: cupy::Result<impl std::fmt::Debug>, op: &str, dev: &Device) {
    match r {
        Err(e @ Error::Unsupported { .. }) => {
            let m = e.to_string();
            assert!(
                m.contains(op) && m.contains("capturing"),
                "{}: {m}",
                dev.label()
            );
        }
        other => panic!("{}: {op} during a capture gave {other:?}", dev.label()),
    }
}

#[test]
fn host_synchronizing_ops_are_refused_while_capturing() {
    for shared in common::backends() {
        let dev = private(&shared);
        cupy::with_device(&dev, || {
            let x = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
            let one = Array::from_slice_on(&dev, &[9.0f32], &[1]).unwrap();
            let s = Stream::new().unwrap();
            s.begin_capture().unwrap();
            assert!(s.is_capturing().unwrap());
            with_stream(&s, || {
                let y = (&x + 1.0).unwrap();
                refused(y.to_vec::<f32>(), "reading an array to the host", &dev);
                refused(one.item(), "reading an array to the host", &dev);
                let mask = cupy::greater(&x, 2.0).unwrap();
                refused(
                    x.get(&[cupy::IndexItem::Array(mask)]),
                    "reading an array to the host",
                    &dev,
                );
                refused(
                    Array::from_slice_on(&dev, &[1.0f32], &[1]),
                    "from_slice",
                    &dev,
                );
                refused(cupy::linalg::inv(&x), "inv", &dev);
                refused(s.synchronize(), "Stream.synchronize", &dev);
                refused(s.query(), "Stream.query", &dev);
                if matches!(dev.kind(), BackendKind::Cuda | BackendKind::Hip) {
                    refused(dev.synchronize(), "Device.synchronize", &dev);
                } else {
                    // Recorded calls are not queued: a device-wide wait has nothing to wait for.
                    dev.synchronize().unwrap();
                }
                refused(Event::new().unwrap().record(&s), "Event.record", &dev);
                // Nested capture.
                match s.begin_capture() {
                    Err(Error::InvalidArgument { op, msg }) => {
                        assert!(
                            op.contains("begin_capture") && msg.contains("already"),
                            "{msg}"
                        )
                    }
                    r => panic!("{}: nested capture gave {r:?}", dev.label()),
                }
            });
            let g = s.end_capture().unwrap();
            // After the capture everything works again.
            g.launch_on(&s).unwrap();
            s.synchronize().unwrap();
            dev.synchronize().unwrap();
            assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
        });
    }
}

#[test]
fn misuse_errors_name_the_op() {
    for shared in common::backends() {
        let dev = private(&shared);
        let other = private(&shared);
        cupy::with_device(&dev, || {
            let s = Stream::new().unwrap();
            match s.end_capture() {
                Err(Error::InvalidArgument { op, msg }) => {
                    assert_eq!(op, "Stream.end_capture");
                    assert!(msg.contains("not capturing"), "{msg}");
                }
                r => panic!("{}: end_capture without begin gave {r:?}", dev.label()),
            }
            // A stream of another device than the current one.
            let foreign = Stream::new_on(&other, false).unwrap();
            match foreign.begin_capture() {
                Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, "Stream.begin_capture"),
                r => panic!("{}: capture on another device gave {r:?}", dev.label()),
            }
            assert!(!foreign.is_capturing().unwrap());
            let x = cupy::ones_with(&[4], DType::Float32).unwrap();
            let (g, y) = Graph::capture_on(&s, || &x * 2.0).unwrap();
            match g.launch_on(&foreign) {
                Err(Error::InvalidArgument { op, msg }) => {
                    assert_eq!(op, "Graph.launch");
                    assert!(msg.contains("graph is on"), "{msg}");
                }
                r => panic!("{}: launch on another device gave {r:?}", dev.label()),
            }
            // A failing closure ends the capture and returns its error.
            let r = Graph::capture_on(&s, || {
                let _ = (&x + 1.0)?;
                Err::<(), _>(Error::invalid("user", "stop"))
            });
            assert!(matches!(r, Err(Error::InvalidArgument { ref op, .. }) if op == "user"));
            assert!(!s.is_capturing().unwrap());
            // Launching inside another capture is refused.
            s.begin_capture().unwrap();
            refused(with_stream(&s, || g.launch()), "Graph.launch", &dev);
            s.end_capture().unwrap();
            g.launch().unwrap();
            assert_eq!(y.to_vec::<f32>().unwrap(), [2.0; 4]);
        });
    }
}
