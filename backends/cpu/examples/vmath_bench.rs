//! Per-core cost of the cpu backend's vector math (`cupy_cpu::vmath`): each function over
//! 16,384 elements (cache-resident, so memory does not count), repeated, timed on one thread.
//! Prints nanoseconds per element and the implied milliseconds for 2^24 elements on one core.
//!
//! ```text
//! cargo run --release -p cupy-cpu --example vmath_bench          # the widest loop the CPU has
//! CUPY_CPU_SIMD=avx2 cargo run --release -p cupy-cpu --example vmath_bench
//! ```
//! `REPS=N` sets the repetitions (default 5000). On Linux the figure is the thread's CPU time
//! (`/proc/thread-self/schedstat`), so other jobs on the machine disturb it little; elsewhere
//! it is wall time.

use cupy_cpu::vmath::{Isa, VMath};
use std::time::Instant;

/// Nanoseconds of CPU time of this thread (wall time where the kernel does not say).
fn now_ns(start: Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or_else(|| start.elapsed().as_nanos() as u64)
}

fn main() {
    let n = 1 << 14;
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let start = Instant::now();
    let time = |name: &str, f: &mut dyn FnMut()| {
        f();
        let mut ts: Vec<f64> = (0..3)
            .map(|_| {
                let t = now_ns(start);
                for _ in 0..reps {
                    f();
                }
                (now_ns(start) - t) as f64 / (n * reps) as f64
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        println!(
            "{name:10} {:6.3} ns/element, {:7.2} ms for 2^24 on one core",
            ts[1],
            ts[1] * (1 << 24) as f64 / 1e6
        );
    };
    println!("vector math loop: {}", Isa::current().name());
    // exp/sin/cos/tanh on [-10, 10), log and pow's base on (0, 5], pow's exponent on [-10, 10).
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 20000) as f32 * 0.001 - 10.0)
        .collect();
    let p: Vec<f32> = x.iter().map(|v| v.abs() * 0.5 + 0.0078125).collect();
    let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let pd: Vec<f64> = p.iter().map(|&v| v as f64).collect();
    let (mut y, mut yd) = (vec![0f32; n], vec![0f64; n]);
    time("copy f32", &mut || y.copy_from_slice(&x));
    time("exp f32", &mut || f32::vexp(&x, &mut y));
    time("log f32", &mut || f32::vlog(&p, &mut y));
    time("sin f32", &mut || f32::vsin(&x, &mut y));
    time("cos f32", &mut || f32::vcos(&x, &mut y));
    time("tanh f32", &mut || f32::vtanh(&x, &mut y));
    time("pow f32", &mut || f32::vpow(&p, &x, &mut y));
    time("exp f64", &mut || f64::vexp(&xd, &mut yd));
    time("log f64", &mut || f64::vlog(&pd, &mut yd));
    time("sin f64", &mut || f64::vsin(&xd, &mut yd));
    time("cos f64", &mut || f64::vcos(&xd, &mut yd));
    time("tanh f64", &mut || f64::vtanh(&xd, &mut yd));
    time("pow f64", &mut || f64::vpow(&pd, &xd, &mut yd));
}
