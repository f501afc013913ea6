//! All-reduces a float32 "gradient" (1 GiB by default) over the devices of the current backend
//! and prints the bandwidth as NCCL-tests does: `algbw = bytes / time`,
//! `busbw = algbw * 2 (n - 1) / n`.
//!
//! ```sh
//! # every device of the chosen backend, driven from this process (one thread, a group):
//! CUPY_BACKEND=cuda CUPY_NCCL_PATH=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))')/lib \
//!     cargo run --release --example allreduce            # or `-- --mib 256 --iters 20`
//! # one process per device (rank 0 publishes the unique id on 127.0.0.1:13333):
//! cargo run --release --example allreduce -- --nranks 2 --rank 0 &
//! cargo run --release --example allreduce -- --nranks 2 --rank 1
//! # without GPUs: two cpu devices
//! CUPY_BACKEND=cpu CUPY_CPU_DEVICES=2 cargo run --release --example allreduce -- --mib 64
//! ```
//!
//! With one device it all-reduces on a single-rank communicator (and says so): busbw is then 0.

use cp::distributed::{group, init_process_group, Communicator, InitOptions, ReduceOp};
use cp::{Array, DType, Device};
use cupy as cp;
use std::time::Instant;

fn arg(name: &str) -> Option<usize> {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn main() -> cp::Result<()> {
    let mib = arg("--mib").unwrap_or(1024);
    let iters = arg("--iters").unwrap_or(10).max(1);
    let n_elems = mib * (1 << 20) / 4;
    let bytes = (n_elems * 4) as f64;
    let current = Device::current()?;
    let kind = current.kind();
    let comms: Vec<Communicator> = match (arg("--nranks"), arg("--rank")) {
        (Some(n), Some(r)) => {
            let dev = Device::get(kind, r % Device::count(kind).max(1))?;
            let opts = InitOptions {
                device: Some(dev),
                ..Default::default()
            };
            vec![init_process_group(n, r, opts)?]
        }
        _ => {
            let devices: Vec<Device> = (0..Device::count(kind).max(1))
                .map(|i| Device::get(kind, i))
                .collect::<cp::Result<_>>()?;
            Communicator::init_all(&devices)?
        }
    };
    let n = comms[0].size();
    if n == 1 {
        println!("one device ({current}): all-reduce on a single-rank communicator");
    }
    for c in &comms {
        println!(
            "rank {} of {n} on {} ({}; {})",
            c.rank_id(),
            c.device(),
            if c.is_host() {
                "host communicator"
            } else {
                "vendor library"
            },
            cp::distributed::get_version(c.device())?
        );
    }
    let grads: Vec<Array> = comms
        .iter()
        .map(|c| {
            cp::with_device(c.device(), || {
                cp::full(&[n_elems], (c.rank_id() + 1) as f32)
            })
        })
        .collect::<cp::Result<_>>()?;
    let outs: Vec<Array> = grads
        .iter()
        .map(|g| Array::empty_on(g.device(), g.shape(), DType::Float32))
        .collect::<cp::Result<_>>()?;
    let step = || -> cp::Result<()> {
        group(|| {
            for (i, c) in comms.iter().enumerate() {
                c.all_reduce(&grads[i], &outs[i], ReduceOp::Sum)?;
            }
            Ok(())
        })?;
        for c in &comms {
            c.device().synchronize()?;
        }
        Ok(())
    };
    step()?; // warm-up (connections, kernels)
    let t0 = Instant::now();
    for _ in 0..iters {
        step()?;
    }
    let secs = t0.elapsed().as_secs_f64() / iters as f64;
    let want = (n * (n + 1) / 2) as f32;
    for o in &outs {
        let head = o.get(&cp::s![..4])?.to_vec::<f32>()?;
        assert!(head.iter().all(|&v| v == want), "{head:?} != {want}");
    }
    let algbw = bytes / secs / 1e9;
    let busbw = algbw * 2.0 * (n as f64 - 1.0) / n as f64;
    println!(
        "all_reduce sum float32 {mib} MiB over {n} rank(s): {:.3} ms, algbw {algbw:.2} GB/s, \
         busbw {busbw:.2} GB/s (values checked: {want})",
        secs * 1e3
    );
    Ok(())
}
