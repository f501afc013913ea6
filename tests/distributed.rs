//! `cupy::distributed` (`cupyx.distributed`, `cupy.cuda.nccl`): every collective with real
//! values for float32, float64, int64 and bfloat16 on two cpu devices (private instances, so
//! the host communicator's rounds, groups and mailboxes run in CI), driven by a thread per rank
//! and by one thread in a group; a single-rank communicator on every listed backend (NCCL on
//! cuda, RCCL on hip, the host communicator on wgpu and the cpu); the unique-id bootstrap through
//! a file and TCP; peer copies and the device-mismatch errors; `CUPY_CPU_DEVICES`; bad inputs.

use crate::common;
use cupy::distributed::{
    get_unique_id_on, group, init_process_group, CommBackend, Communicator, InitOptions, ReduceOp,
};
use cupy::num_complex::Complex;
use cupy::{Array, BackendKind, DType, Device, Error};
use std::sync::Arc;
use std::time::Duration;

/// Cpu device `i` as its own backend instance (what `CUPY_CPU_DEVICES=n` gives).
fn cpu(i: usize) -> Device {
    Device::from_backend(Arc::new(cupy_cpu::CpuBackend::with_index(i)))
}

const DTYPES: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Int64,
    DType::BFloat16,
];

fn arr(dev: &Device, v: &[f64], t: DType) -> Array {
    Array::from_slice_on(dev, v, &[v.len()])
        .unwrap()
        .astype(t)
        .unwrap()
}

fn vals(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

/// Rank `r`'s input: `(r + 1) * [1, 2, 3, 4]`, minus 3 on the last element (so max/min differ).
fn input(r: usize) -> Vec<f64> {
    let k = (r + 1) as f64;
    vec![k, 2.0 * k, 3.0 * k, 4.0 * k - 3.0 * (r as f64)]
}

/// Every collective on rank `c`, with the values of `n` ranks checked.
fn exercise(c: &Communicator, t: DType) {
    let (n, r, dev) = (c.size(), c.rank_id(), c.device().clone());
    let tag = format!("{dev} rank {r}/{n} {t}");
    let x = arr(&dev, &input(r), t);
    let ins: Vec<Vec<f64>> = (0..n).map(input).collect();
    let fold = |f: fn(f64, f64) -> f64| -> Vec<f64> {
        (0..4)
            .map(|i| ins.iter().map(|v| v[i]).reduce(f).unwrap())
            .collect()
    };
    let out = Array::zeros_on(&dev, &[4], t).unwrap();
    c.all_reduce(&x, &out, ReduceOp::Sum).unwrap();
    assert_eq!(vals(&out), fold(|a, b| a + b), "{tag}: all_reduce sum");
    c.all_reduce(&x, &out, ReduceOp::Max).unwrap();
    assert_eq!(vals(&out), fold(f64::max), "{tag}: all_reduce max");
    c.all_reduce(&x, &out, ReduceOp::Min).unwrap();
    assert_eq!(vals(&out), fold(f64::min), "{tag}: all_reduce min");
    c.all_reduce(&x, &out, ReduceOp::Prod).unwrap();
    assert_eq!(vals(&out), fold(|a, b| a * b), "{tag}: all_reduce prod");
    // In place.
    let y = arr(&dev, &input(r), t);
    c.all_reduce(&y, &y, ReduceOp::Sum).unwrap();
    assert_eq!(vals(&y), fold(|a, b| a + b), "{tag}: all_reduce in place");
    // reduce to the last rank: only it is written.
    let root = n - 1;
    let out = arr(&dev, &[-1.0; 4], t);
    c.reduce(&x, &out, root, ReduceOp::Sum).unwrap();
    let want = if r == root {
        fold(|a, b| a + b)
    } else {
        vec![-1.0; 4]
    };
    assert_eq!(vals(&out), want, "{tag}: reduce to {root}");
    // broadcast from rank 0.
    let b = arr(&dev, &input(r), t);
    c.broadcast(&b, 0).unwrap();
    assert_eq!(vals(&b), input(0), "{tag}: broadcast");
    // all_gather of 2 elements per rank.
    let g = Array::zeros_on(&dev, &[2 * n], t).unwrap();
    c.all_gather(&x, &g, 2).unwrap();
    let want: Vec<f64> = ins.iter().flat_map(|v| v[..2].to_vec()).collect();
    assert_eq!(vals(&g), want, "{tag}: all_gather");
    // reduce_scatter: 2 elements per rank of a 2n-element input.
    let big: Vec<f64> = (0..2 * n)
        .map(|i| (i + 1) as f64 * (r + 1) as f64)
        .collect();
    let s_in = arr(&dev, &big, t);
    let s_out = Array::zeros_on(&dev, &[2], t).unwrap();
    c.reduce_scatter(&s_in, &s_out, 2, ReduceOp::Sum).unwrap();
    let tri = (n * (n + 1) / 2) as f64;
    let want: Vec<f64> = (2 * r..2 * r + 2).map(|i| (i + 1) as f64 * tri).collect();
    assert_eq!(vals(&s_out), want, "{tag}: reduce_scatter");
    // avg (float types; int64 truncates).
    c.all_reduce(&x, &out, ReduceOp::Avg).unwrap();
    let want: Vec<f64> = fold(|a, b| a + b)
        .iter()
        .map(|s| {
            if t == DType::Int64 {
                (s / n as f64).trunc()
            } else {
                s / n as f64
            }
        })
        .collect();
    assert_eq!(vals(&out), want, "{tag}: all_reduce avg");
    // send/recv around the ring (a group, so every send and receive progresses together).
    let to = (r + 1) % n;
    let from = (r + n - 1) % n;
    let got = Array::zeros_on(&dev, &[4], t).unwrap();
    group(|| {
        c.send(&x, to)?;
        c.recv(&got, from)
    })
    .unwrap();
    assert_eq!(vals(&got), input(from), "{tag}: send/recv from {from}");
    let got2 = Array::zeros_on(&dev, &[4], t).unwrap();
    c.send_recv(&x, &got2, to)
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    if n <= 2 {
        assert_eq!(vals(&got2), input(to), "{tag}: send_recv with {to}");
    }
    c.barrier().unwrap();
}

#[test]
fn collectives_thread_per_rank_two_cpu_devices() {
    let comms = Communicator::init_all(&[cpu(0), cpu(1)]).unwrap();
    assert!(comms.iter().all(|c| c.is_host() && c.size() == 2));
    std::thread::scope(|s| {
        for c in &comms {
            s.spawn(move || {
                for t in DTYPES {
                    cupy::with_device(c.device(), || exercise(c, t));
                }
            });
        }
    });
}

#[test]
fn collectives_one_thread_in_groups() {
    let comms = Communicator::init_all(&[cpu(0), cpu(1), cpu(2)]).unwrap();
    for t in DTYPES {
        let xs: Vec<Array> = comms
            .iter()
            .map(|c| arr(c.device(), &input(c.rank_id()), t))
            .collect();
        let outs: Vec<Array> = comms
            .iter()
            .map(|c| Array::zeros_on(c.device(), &[4], t).unwrap())
            .collect();
        group(|| {
            for (i, c) in comms.iter().enumerate() {
                c.all_reduce(&xs[i], &outs[i], ReduceOp::Sum)?;
            }
            Ok(())
        })
        .unwrap();
        for o in &outs {
            assert_eq!(
                vals(o),
                vec![6.0, 12.0, 18.0, 15.0],
                "{t}: grouped all_reduce"
            );
        }
        let gs: Vec<Array> = comms
            .iter()
            .map(|c| Array::zeros_on(c.device(), &[3], t).unwrap())
            .collect();
        group(|| {
            for (i, c) in comms.iter().enumerate() {
                c.all_gather(&xs[i], &gs[i], 1)?;
                c.barrier()?;
            }
            Ok(())
        })
        .unwrap();
        for g in &gs {
            assert_eq!(vals(g), vec![1.0, 2.0, 3.0], "{t}: grouped all_gather");
        }
    }
}

#[test]
fn complex_and_bool_follow_numpy() {
    let comms = Communicator::init_all(&[cpu(0), cpu(1)]).unwrap();
    let xs: Vec<Array> = comms
        .iter()
        .map(|c| {
            let k = c.rank_id() as f32;
            let v = [Complex::new(1.0 + k, k), Complex::new(-2.0f32, 0.5)];
            Array::from_slice_on(c.device(), &v, &[2]).unwrap()
        })
        .collect();
    let outs: Vec<Array> = xs.iter().map(|x| x.empty_like().unwrap()).collect();
    group(|| {
        for (i, c) in comms.iter().enumerate() {
            c.all_reduce(&xs[i], &outs[i], ReduceOp::Sum)?;
        }
        Ok(())
    })
    .unwrap();
    let got = outs[1].to_vec::<Complex<f32>>().unwrap();
    assert_eq!(got, vec![Complex::new(3.0, 1.0), Complex::new(-4.0, 1.0)]);
    match comms[0].all_reduce(&xs[0], &outs[0], ReduceOp::Max) {
        Err(e @ Error::TypeError { .. }) => {
            assert!(e.to_string().contains("only sum and avg"), "{e}")
        }
        other => panic!("complex max: {other:?}"),
    }
    let bs: Vec<Array> = comms
        .iter()
        .map(|c| Array::from_slice_on(c.device(), &[true, c.rank_id() == 1, false], &[3]).unwrap())
        .collect();
    let (o_sum, o_prod): (Vec<Array>, Vec<Array>) = bs
        .iter()
        .map(|b| (b.empty_like().unwrap(), b.empty_like().unwrap()))
        .unzip();
    group(|| {
        for (i, c) in comms.iter().enumerate() {
            c.all_reduce(&bs[i], &o_sum[i], ReduceOp::Sum)?;
            c.all_reduce(&bs[i], &o_prod[i], ReduceOp::Prod)?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(o_sum[0].to_vec::<bool>().unwrap(), vec![true, true, false]);
    assert_eq!(
        o_prod[0].to_vec::<bool>().unwrap(),
        vec![true, false, false]
    );
}

/// A single-rank communicator on every listed backend: NCCL on cuda (set `CUPY_NCCL_PATH` to
/// pip's `nvidia/nccl/lib`), RCCL on hip, the host communicator on wgpu and the cpu.
#[test]
fn single_rank_on_every_backend() {
    for dev in common::backends() {
        let opts = InitOptions {
            device: Some(dev.clone()),
            ..Default::default()
        };
        let c = init_process_group(1, 0, opts).unwrap_or_else(|e| {
            panic!("{dev}: a single-rank communicator (on cuda set CUPY_NCCL_PATH to NCCL): {e}")
        });
        let lib = cupy::distributed::get_version(&dev).unwrap();
        println!("{dev}: {c:?}, library {lib}");
        assert_eq!(
            c.is_host(),
            matches!(dev.kind(), BackendKind::Wgpu | BackendKind::Cpu)
        );
        for t in DTYPES {
            if dev.backend().supports_dtype(t).is_err() {
                println!("{dev}: {t} not stored, skipped");
                continue;
            }
            cupy::with_device(&dev, || exercise(&c, t));
        }
        // A stream other than the default one (on cuda, NCCL runs on it).
        cupy::with_device(&dev, || {
            let s = cupy::cuda::Stream::new().unwrap();
            cupy::cuda::with_stream(&s, || {
                let x = arr(&dev, &[1.0, 2.0], DType::Float32);
                let y = (&x * 3.0).unwrap();
                c.all_reduce(&y, &y, ReduceOp::Sum).unwrap();
                assert_eq!(vals(&y), vec![3.0, 6.0], "{dev}: all_reduce on a stream");
            });
        });
    }
}

/// The host communicator with a rank on each listed backend beside a cpu rank (on wgpu this is
/// how several ranks run in CI; on cuda and hip it is `CommBackend::Host`).
#[test]
fn host_communicator_across_backends() {
    for dev in common::backends() {
        let comms = Communicator::init_all_with(&[cpu(7), dev.clone()], CommBackend::Host).unwrap();
        for t in [DType::Float32, DType::Int64] {
            let xs: Vec<Array> = comms
                .iter()
                .map(|c| arr(c.device(), &input(c.rank_id()), t))
                .collect();
            let gs: Vec<Array> = comms
                .iter()
                .map(|c| Array::zeros_on(c.device(), &[4], t).unwrap())
                .collect();
            group(|| {
                for (i, c) in comms.iter().enumerate() {
                    c.all_reduce(&xs[i], &xs[i], ReduceOp::Max)?;
                    c.all_gather(&xs[i], &gs[i], 2)?;
                }
                Ok(())
            })
            .unwrap();
            for (x, g) in xs.iter().zip(&gs) {
                assert_eq!(vals(x), vec![2.0, 4.0, 6.0, 5.0], "{dev} {t}: max");
                assert_eq!(vals(g), vec![2.0, 4.0, 2.0, 4.0], "{dev} {t}: all_gather");
            }
        }
    }
}

#[test]
fn bootstrap_through_a_file_and_tcp() {
    let dir = std::env::temp_dir().join(format!("cupy-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    for how in ["file", "tcp"] {
        let devs = [cpu(0), cpu(1)];
        let file = dir.join("uid");
        std::thread::scope(|s| {
            for (r, d) in devs.iter().enumerate() {
                let file = file.clone();
                s.spawn(move || {
                    if r == 0 {
                        // The reader (rank 1) starts first: it must wait for rank 0.
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    let opts = InitOptions {
                        file: (how == "file").then_some(file),
                        port: Some(port),
                        device: Some(d.clone()),
                        timeout: Duration::from_secs(20),
                        ..Default::default()
                    };
                    let c = init_process_group(2, r, opts)
                        .unwrap_or_else(|e| panic!("{how}: rank {r}: {e}"));
                    let x = arr(d, &input(r), DType::Float32);
                    c.all_reduce(&x, &x, ReduceOp::Sum).unwrap();
                    assert_eq!(vals(&x), vec![3.0, 6.0, 9.0, 9.0], "{how}: rank {r}");
                });
            }
        });
    }
    // No rank 0: a clear error after the timeout, not a hang.
    let opts = InitOptions {
        file: Some(dir.join("never")),
        device: Some(cpu(1)),
        timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let e = init_process_group(2, 1, opts).unwrap_err().to_string();
    assert!(e.contains("did not publish the unique id"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn to_device_between_devices_and_mismatch_errors() {
    let (a, b) = (cpu(0), cpu(1));
    let x = Array::from_slice_on(&a, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let y = x.to_device(&b).unwrap();
    assert_eq!(y.device(), &b);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    // A strided view moves too.
    let v = x.get(&cupy::s![..;2]).unwrap().to_device(&b).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), vec![1.0, 3.0]);
    match &x + &y {
        Err(Error::DeviceMismatch { lhs, rhs, .. }) => {
            assert!(
                lhs.starts_with("cpu:0") && rhs.starts_with("cpu:1"),
                "{lhs} / {rhs}"
            )
        }
        other => panic!("adding arrays of two devices: {other:?}"),
    }
    // Between backends (wgpu where listed).
    for dev in common::backends() {
        let z = x.to_device(&dev).unwrap();
        assert_eq!(z.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0], "{dev}");
    }
}

#[test]
fn bad_inputs_are_errors_and_change_nothing() {
    let comms = Communicator::init_all(&[cpu(0), cpu(1)]).unwrap();
    let c = &comms[0];
    let d = c.device();
    let x = arr(d, &[1.0, 2.0, 3.0, 4.0], DType::Float32);
    let out = arr(d, &[9.0; 4], DType::Float32);
    let err = |r: cupy::Result<()>| r.expect_err("an error").to_string();
    // Another device.
    let other = arr(&cpu(1), &[1.0; 4], DType::Float32);
    let e = err(c.all_reduce(&other, &out, ReduceOp::Sum));
    assert!(
        e.contains("all_reduce") && e.contains("cpu:0") && e.contains("cpu:1"),
        "{e}"
    );
    // dtype, size, layout, root, peer.
    let e = err(c.all_reduce(&x, &arr(d, &[0.0; 4], DType::Float64), ReduceOp::Sum)).to_lowercase();
    assert!(e.contains("float32") && e.contains("float64"), "{e}");
    let e = err(c.all_reduce(&x, &arr(d, &[0.0; 3], DType::Float32), ReduceOp::Sum));
    assert!(e.contains("[4]") && e.contains("[3]"), "{e}");
    let strided = arr(d, &[0.0; 8], DType::Float32)
        .get(&cupy::s![..;2])
        .unwrap();
    let e = err(c.all_reduce(&x, &strided, ReduceOp::Sum));
    assert!(e.contains("not C-contiguous"), "{e}");
    let e = err(c.broadcast(&out, 2));
    assert!(e.contains("root 2"), "{e}");
    let e = err(c.send(&x, 5));
    assert!(e.contains("peer 5"), "{e}");
    let e = err(c.reduce_scatter(&x, &out, 3, ReduceOp::Sum));
    assert!(e.contains("at least 6"), "{e}");
    let i16s = arr(d, &[1.0; 4], DType::Int16);
    let e = err(c.all_reduce(&i16s, &i16s, ReduceOp::Sum));
    assert!(e.contains("16-bit"), "{e}");
    let bools = Array::from_slice_on(d, &[true; 2], &[2]).unwrap();
    let e = err(c.all_reduce(&bools, &bools, ReduceOp::Avg));
    assert!(e.contains("bool"), "{e}");
    assert_eq!(vals(&out), vec![9.0; 4], "refused calls wrote nothing");
    let e = Communicator::init_all(&[]).unwrap_err().to_string();
    assert!(e.contains("no devices"), "{e}");
    let e = cupy::distributed::group_end().unwrap_err().to_string();
    assert!(e.contains("no group is open"), "{e}");
    let id = get_unique_id_on(d, CommBackend::Host).unwrap();
    let e = Communicator::new_on(d, &id, 2, 2, Duration::from_secs(1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("rank 2 is not one of 2 ranks"), "{e}");
    // On a backend without NCCL, asking for it is refused.
    let e = get_unique_id_on(d, CommBackend::Nccl)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no collective library"), "{e}");
}

#[test]
fn a_missing_or_disagreeing_rank_is_an_error_not_a_hang() {
    // Rank 1 never joins.
    let id = get_unique_id_on(&cpu(0), CommBackend::Host).unwrap();
    let e = Communicator::new_on(&cpu(0), &id, 2, 0, Duration::from_millis(200))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rank(s) [1]") && e.contains("did not join"),
        "{e}"
    );
    // Both join; rank 1 never calls the collective.
    let comms = Communicator::init_all(&[cpu(0), cpu(1)]).unwrap();
    let t0 = std::time::Instant::now();
    // init_all's communicators wait 120 s: use one thread per rank with a short-timeout pair.
    let id = get_unique_id_on(&cpu(0), CommBackend::Host).unwrap();
    let pair: Vec<Communicator> = std::thread::scope(|s| {
        let h: Vec<_> = (0..2)
            .map(|r| {
                s.spawn(move || {
                    Communicator::new_on(&cpu(r), &id, 2, r, Duration::from_millis(300)).unwrap()
                })
            })
            .collect();
        h.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let y = arr(pair[0].device(), &[1.0], DType::Float32);
    let e = pair[0]
        .all_reduce(&y, &y, ReduceOp::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("rank(s) [1] did not take part"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    let e = pair[0].barrier().unwrap_err().to_string();
    assert!(e.contains("broken"), "{e}");
    // The ranks disagree on the count: both get the error.
    std::thread::scope(|s| {
        for (r, c) in comms.iter().enumerate() {
            s.spawn(move || {
                let a = arr(c.device(), &vec![1.0; 2 + r], DType::Float32);
                let e = c.all_reduce(&a, &a, ReduceOp::Sum).unwrap_err().to_string();
                assert!(e.contains("the ranks disagree"), "rank {r}: {e}");
                assert_eq!(vals(&a), vec![1.0; 2 + r], "rank {r}: unchanged");
            });
        }
    });
}

/// `CUPY_CPU_DEVICES=2` in a child process (the variable is read once, at discovery).
#[test]
fn cpu_devices_from_the_environment() {
    common::run_ignored_child(
        "distributed::cpu_devices_child",
        &[
            ("CUPY_CPU_DEVICES", "2"),
            ("CUPY_BACKEND", "cpu"),
            ("CUPY_TEST_BACKENDS", "cpu"),
        ],
    );
}

#[test]
#[ignore = "run by cpu_devices_from_the_environment with CUPY_CPU_DEVICES=2"]
fn cpu_devices_child() {
    assert_eq!(Device::count(BackendKind::Cpu), 2);
    let d0 = Device::get(BackendKind::Cpu, 0).unwrap();
    let d1 = Device::get(BackendKind::Cpu, 1).unwrap();
    assert_ne!(d0, d1);
    assert!(Device::get(BackendKind::Cpu, 2).is_err());
    let x = cupy::with_device(&d1, || cupy::arange(4).unwrap());
    assert_eq!(x.device(), &d1);
    let y = x.to_device(&d0).unwrap();
    assert!(matches!(&x + &y, Err(Error::DeviceMismatch { .. })));
    let comms = Communicator::init_all(&[d0, d1]).unwrap();
    std::thread::scope(|s| {
        for c in &comms {
            s.spawn(move || exercise(c, DType::Float64));
        }
    });
}
