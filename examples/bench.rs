//! cupy-rs side of the benchmark: the cases of `cupy_baseline.py` with the same names, one JSON
//! line each (`{"case", "lib": "cupy-rs", "backend", "ms", "clock", ...}`), median of repetitions
//! after warm-up. Each repetition is timed with device events where the backend has them
//! (`Backend::time_device`: CUDA and HIP events, wgpu timestamp queries where the adapter has
//! them; `"clock": "device"`, as CuPy times), else bracketed by device synchronizes on the host
//! clock (`"clock": "host"`; `CUPY_WGPU_HOST_CLOCK=1` gives wgpu's host-clock times).
//!
//! ```text
//! cargo run --release --example bench -- [--backend cuda|hip|wgpu|cpu] [--quick] [--only CASE]
//!     [--log-n N] [--reps N] [--sparse-grid G]
//! ```
//! `--sparse-grid G`: the Poisson grid of the sparse SpMV/SpGEMM cases (default 4000, quick 200).
//! `--quick` uses small sizes (for machines without a GPU); the default sizes match CuPy's.
//!
//! `first_compile_disk_cache` re-runs this program as a child process (hidden flag
//! `--child-first-call`, same `CUPY_CACHE_DIR`) that calls the kernel the parent compiled first:
//! the child pays no compile, only the disk cache.

use cupy as cp;
use cupy::core::kernel::ir::{BinaryOp, Expr, Kernel};
use cupy::{Array, BackendKind, DType, Device, Scalar};
use std::cell::Cell;
use std::time::Instant;

#[path = "bench/big.rs"]
mod big;
#[path = "bench/fusion.rs"]
mod fusion;
#[path = "bench/graph.rs"]
mod graph;
#[path = "bench/linalg.rs"]
mod linalg;
#[path = "bench/memory.rs"]
mod memory;
#[path = "bench/sparse.rs"]
mod sparse;

struct Bench {
    dev: Device,
    only: Option<String>,
    /// The clock of the last `time` call ("device" or "host").
    clock: Cell<&'static str>,
}

/// The never-before-seen elementwise kernel of this bench run: `x * 3.25 + c` with `c` unique.
fn fresh_kernel(unique: f32) -> Kernel {
    Kernel::map(
        "fresh_kernel",
        vec![DType::Float32],
        vec![],
        Expr::binary(
            BinaryOp::Add,
            Expr::binary(
                BinaryOp::Mul,
                Expr::input(0, DType::Float32),
                Expr::constant(Scalar::Float32(3.25)),
            ),
            Expr::constant(Scalar::Float32(unique)),
        ),
    )
}

/// Milliseconds of the first and second call of `fresh_kernel(unique)` on `dev`.
fn first_calls(dev: &Device, unique: f32) -> cp::Result<(f64, f64)> {
    let k = fresh_kernel(unique);
    let ones = Array::ones_on(dev, &[4], DType::Float32)?;
    dev.synchronize()?;
    let t = Instant::now();
    cp::launch::elementwise(&k, &[&ones], &[], vec![])?;
    dev.synchronize()?;
    let first = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    cp::launch::elementwise(&k, &[&ones], &[], vec![])?;
    dev.synchronize()?;
    Ok((first, t.elapsed().as_secs_f64() * 1e3))
}

impl Bench {
    fn want(&self, case: &str) -> bool {
        // `--only a,b`: the cases containing any of the comma-separated parts
        self.only
            .as_deref()
            .is_none_or(|o| o.split(',').any(|p| case.contains(p)))
    }

    /// Median milliseconds of `f` over `reps` runs after `warm` warm-up runs.
    fn time(
        &self,
        warm: usize,
        reps: usize,
        mut f: impl FnMut() -> cp::Result<()>,
    ) -> cp::Result<f64> {
        for _ in 0..warm {
            f()?;
        }
        self.dev.synchronize()?;
        let mut ts = Vec::with_capacity(reps);
        let mut clock = "device";
        for _ in 0..reps {
            let t = Instant::now();
            let dev_s = self.dev.backend().time_device(&mut f)?;
            self.dev.synchronize()?;
            let host_ms = t.elapsed().as_secs_f64() * 1e3;
            match dev_s {
                Some(s) => ts.push(s * 1e3),
                None => {
                    clock = "host";
                    ts.push(host_ms);
                }
            }
        }
        self.clock.set(clock);
        ts.sort_by(|a, b| a.total_cmp(b));
        Ok(ts[ts.len() / 2])
    }

    fn out(&self, case: &str, ms: f64, extra: &[(&str, f64)]) {
        let mut s = format!(
            "{{\"case\": \"{case}\", \"lib\": \"cupy-rs\", \"backend\": \"{}\", \"device\": \"{}\", \"ms\": {:.4}, \"clock\": \"{}\"",
            self.dev.kind(),
            self.dev.info().name.replace('"', "'"),
            ms,
            self.clock.get()
        );
        for (k, v) in extra {
            s.push_str(&format!(", \"{k}\": {v:.3}"));
        }
        s.push('}');
        println!("{s}");
    }

    fn report(
        &self,
        case: &str,
        r: cp::Result<f64>,
        extra: impl Fn(f64) -> Vec<(&'static str, f64)>,
    ) {
        match r {
            Ok(ms) => self.out(case, ms, &extra(ms)),
            Err(e) => println!(
                "{{\"case\": \"{case}\", \"lib\": \"cupy-rs\", \"backend\": \"{}\", \"ms\": -1, \"error\": {:?}}}",
                self.dev.kind(),
                e.to_string().lines().next().unwrap_or("")
            ),
        }
    }
}

fn rand_f32(dev: &Device, n: usize, seed: u32) -> cp::Result<Array> {
    // A cheap deterministic pseudo-random fill (not zeros: zeros can flatter kernels).
    let host: Vec<f32> = (0..n as u32)
        .map(|i| {
            let mut x = i
                .wrapping_mul(2654435761)
                .wrapping_add(seed.wrapping_mul(0x9E3779B9));
            x ^= x >> 15;
            x = x.wrapping_mul(0x2C1B3C6D);
            x ^= x >> 12;
            (x >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect();
    Array::from_slice_on(dev, &host, &[n])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let child = arg("--child-first-call");
    let dev = match arg("--backend") {
        Some(b) => {
            let kind =
                BackendKind::parse(&b)?.ok_or("--backend auto: leave the flag out instead")?;
            Device::get(kind, 0)?
        }
        None => Device::current()?,
    };
    if let Some(u) = child {
        // Child of `first_compile_disk_cache`: first (and second) call of the parent's kernel.
        let (first, second) = first_calls(&dev, u.parse()?)?;
        println!("{first} {second}");
        return Ok(());
    }
    let b = Bench {
        dev: dev.clone(),
        only: arg("--only"),
        clock: Cell::new("host"),
    };
    if b.only.as_deref().is_some_and(|o| o.starts_with("big_")) {
        let gib = arg("--big-gib").map_or(Ok(3.0), |v| v.parse::<f64>())?;
        big::cases(&b, &dev, gib);
        return Ok(());
    }
    eprintln!(
        "bench on {} ({})",
        dev.label(),
        if quick { "quick sizes" } else { "full sizes" }
    );

    // `--log-n N`: 2^N elements instead of the default size (the cpu comparisons use 24);
    // `--reps N`: timed repetitions of the transcendental ufunc cases (default 10).
    let log_n = match arg("--log-n") {
        Some(v) => v.parse::<usize>()?,
        None if quick => 20,
        None => 28,
    };
    let reps = match arg("--reps") {
        Some(v) => v.parse::<usize>()?.max(1),
        None => 10,
    };
    let n = 1usize << log_n;
    let side = 1usize << (log_n / 2);
    let sfx = format!("2^{log_n}");
    let (x, y) = (rand_f32(&dev, n, 1)?, rand_f32(&dev, n, 2)?);
    let z = Array::empty_on(&dev, &[n], DType::Float32)?;
    let gb = |bytes: f64| move |ms: f64| vec![("GBps", bytes / ms / 1e6)];

    let case = format!("add_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || {
            cp::apply_out(&cp::ufuncs::add, &[(&x).into(), (&y).into()], &z).map(|_| ())
        });
        b.report(&case, r, gb(12.0 * n as f64));
    }
    let case = format!("add_alloc_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || (&x + &y).map(|_| ()));
        b.report(&case, r, gb(12.0 * n as f64));
    }
    let case = format!("copy_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || z.copy_from(&x));
        b.report(&case, r, gb(8.0 * n as f64));
    }
    let case = format!("sum_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || x.sum().map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    // Tuple-accumulator reductions: (value, index) and (count, mean, M2).
    let case = format!("argmax_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || x.argmax().map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    let case = format!("var_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || x.var().map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    // Order statistic on sorted rows (the backend's sort, then one gather kernel).
    let case = format!("median_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(1, 3, || cp::median(&x).map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    let x2 = x.reshape(&[side as isize, side as isize])?;
    for (axis, name) in [(0isize, "sum_axis0"), (1, "sum_axis1")] {
        let case = format!("{name}_f32_{side}^2");
        if b.want(&case) {
            let r = b.time(3, 10, || x2.sum_axis(axis).map(|_| ()));
            b.report(&case, r, gb(4.0 * n as f64));
        }
    }
    let case = format!("transpose_copy_f32_{side}^2");
    if b.want(&case) {
        let r = b.time(3, 10, || x2.t().copy().map(|_| ()));
        b.report(&case, r, gb(8.0 * n as f64));
    }
    // Indexing (issue 15), the peers' cases: `a[a > 0.5] = 0` (one select kernel with the
    // scalar as a parameter, no count read) and `a[idx]` with 2^(log_n - 2) random int64
    // indices (one gather kernel with the bounds check folded in, one 4-byte flag read).
    let case = format!("mask_assign_f32_{sfx}");
    if b.want(&case) {
        let r = (|| {
            let xm = x.copy()?;
            let m = cp::greater(&x, 0.5)?;
            b.time(3, 10, || xm.set(&cp::s![&m], 0.0f32))
        })();
        b.report(&case, r, gb(9.0 * n as f64));
    }
    let glog = log_n - 2;
    let case = format!("gather_f32_2^{glog}_of_{sfx}");
    if b.want(&case) {
        let r = (|| {
            let k = 1usize << glog;
            let host: Vec<i64> = (0..k as u64)
                .map(|i| {
                    let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i >> 7);
                    (h % n as u64) as i64
                })
                .collect();
            let idx = Array::from_slice_on(&dev, &host, &[k])?;
            b.time(3, 10, || x.get(&cp::s![&idx]).map(|_| ()))
        })();
        b.report(&case, r, gb(16.0 * (1u64 << glog) as f64));
    }
    // Sort: CuPy's `cp.sort(x[: 1 << 26])` (a copy of a slice of random floats).
    let sort_log = log_n - 2;
    let case = format!("sort_f32_2^{sort_log}");
    if b.want(&case) {
        let xs = x.slice(&cp::s![0..1usize << sort_log])?;
        let r = b.time(2, 5, || cp::sort(&xs).map(|_| ()));
        b.report(&case, r, |ms| {
            vec![("Gkeys_s", (1u64 << sort_log) as f64 / ms / 1e6)]
        });
    }
    // The same sort on 64-bit keys (the radix sort's eight passes on wgpu) and on int32 keys
    // below 1000 (two of four digits differ: the rest are skipped).
    for name in ["sort_f64", "sort_i32small"] {
        let case = format!("{name}_2^{sort_log}");
        if b.want(&case) {
            let r = (|| {
                let xs = x.slice(&cp::s![0..1usize << sort_log])?;
                let keys = match name {
                    "sort_f64" => xs.astype(DType::Float64)?,
                    _ => (&xs * 1000.0)?.astype(DType::Int32)?,
                };
                b.time(2, 5, || cp::sort(&keys).map(|_| ()))
            })();
            b.report(&case, r, |ms| {
                vec![("Gkeys_s", (1u64 << sort_log) as f64 / ms / 1e6)]
            });
        }
    }
    // FFTs (issue 14): CuPy's `cp.fft.fft(c64)`, `cp.fft.rfft(f32)`, `cp.fft.fft2(c128)` and a
    // prime-ish length (2^20 + 7 = 1048583 is prime: Bluestein / the vendor's chirp-z).
    let fft_log = log_n - 4;
    let cx = |n: usize| -> cp::Result<Array> {
        let re = rand_f32(&dev, n, 3)?.astype(DType::Float64)?;
        let im = rand_f32(&dev, n, 4)?.astype(DType::Float64)?;
        let j = Array::from_slice_on(&dev, &[cp::num_complex::Complex::new(0.0f64, 1.0)], &[])?;
        &re + &(&im * &j)?
    };
    let case = format!("fft_c64_2^{fft_log}");
    if b.want(&case) {
        let r = (|| {
            let c = cx(1 << fft_log)?.astype(DType::Complex64)?;
            b.time(3, 10, || cp::fft::fft(&c).map(|_| ()))
        })();
        b.report(&case, r, gb(16.0 * (1u64 << fft_log) as f64));
    }
    let case = format!("rfft_f32_2^{fft_log}");
    if b.want(&case) {
        let r = (|| {
            let xr = x.slice(&cp::s![0..1usize << fft_log])?.copy()?;
            b.time(3, 10, || cp::fft::rfft(&xr).map(|_| ()))
        })();
        b.report(&case, r, gb(12.0 * (1u64 << fft_log) as f64));
    }
    let fside = 1usize << (fft_log / 2);
    let case = format!("fft2_c128_{fside}^2");
    if b.want(&case) {
        let r = (|| {
            let c = cx(fside * fside)?.reshape(&[fside as isize, fside as isize])?;
            b.time(2, 5, || cp::fft::fft2(&c).map(|_| ()))
        })();
        b.report(&case, r, gb(2.0 * 16.0 * (fside * fside) as f64));
    }
    let plog = log_n - 8;
    let case = format!("fft_c64_prime_2^{plog}+7");
    if b.want(&case) {
        let r = (|| {
            let c = cx((1 << plog) + 7)?.astype(DType::Complex64)?;
            b.time(3, 10, || cp::fft::fft(&c).map(|_| ()))
        })();
        b.report(&case, r, gb(16.0 * ((1u64 << plog) + 7) as f64));
    }
    // Mixed-radix lengths (the wgpu FFT's radix-3 stages, a power of two times 3): 3^13 and
    // 2^20 * 3 at the default size.
    let l3 = ((fft_log as f64) * 2f64.ln() / 3f64.ln()).floor() as u32 - 2;
    let m3 = fft_log - 4;
    for (case, len) in [
        (format!("fft_c64_3^{l3}"), 3usize.pow(l3)),
        (format!("fft_c64_2^{m3}*3"), 3usize << m3),
    ] {
        if b.want(&case) {
            let r = (|| {
                let c = cx(len)?.astype(DType::Complex64)?;
                b.time(3, 10, || cp::fft::fft(&c).map(|_| ()))
            })();
            b.report(&case, r, gb(16.0 * len as f64));
        }
    }
    // argsort and unique of the same keys (peers_baseline.py's cases): the sort with indices;
    // the sort, run marks, a scan, one read of the count and the compaction.
    for name in ["argsort", "unique"] {
        let case = format!("{name}_f32_2^{sort_log}");
        if b.want(&case) {
            let xs = x.slice(&cp::s![0..1usize << sort_log])?;
            let r = b.time(1, 3, || match name {
                "argsort" => cp::argsort(&xs).map(|_| ()),
                _ => cp::unique(&xs).map(|_| ()),
            });
            b.report(&case, r, |ms| {
                vec![("Gkeys_s", (1u64 << sort_log) as f64 / ms / 1e6)]
            });
        }
    }
    // User kernels (issue 5): CuPy's ElementwiseKernel/ReductionKernel strings and fuse.
    let case = format!("squared_diff_f32_{sfx}");
    if b.want(&case) {
        let r = (|| {
            let sq = cp::ElementwiseKernel::new(
                "float32 x, float32 y",
                "float32 z",
                "z = (x - y) * (x - y)",
                "squared_diff",
            )?;
            b.time(3, 10, || {
                sq.call_with(&[(&x).into(), (&y).into()], &[&z], None)
                    .map(|_| ())
            })
        })();
        b.report(&case, r, gb(12.0 * n as f64));
    }
    let case = format!("reductionkernel_sum_f32_{sfx}");
    if b.want(&case) {
        let r = (|| {
            let sum_kernel = cp::ReductionKernel::new(
                "T x",
                "T y",
                "x",
                "a + b",
                "y = a",
                Some("0"),
                "sum_kernel",
            )?;
            b.time(3, 10, || {
                sum_kernel
                    .call(&[(&x).into()], cp::Axes::All, false)
                    .map(|_| ())
            })
        })();
        b.report(&case, r, gb(4.0 * n as f64));
    }
    // cupy.random: Philox4x32-10 kernels (bit-identical on every backend), float32 output.
    let case = format!("randn_f32_{sfx}");
    if b.want(&case) {
        let mut rng = cp::random::default_rng(0);
        let r = cp::with_device(&dev, || {
            b.time(2, 5, || {
                rng.standard_normal_with(&[n], DType::Float32).map(|_| ())
            })
        });
        b.report(&case, r, gb(4.0 * n as f64));
    }
    let case = format!("random_f32_{sfx}");
    if b.want(&case) {
        let mut rng = cp::random::default_rng(0);
        let r = cp::with_device(&dev, || {
            b.time(2, 5, || rng.random_with(&[n], DType::Float32).map(|_| ()))
        });
        b.report(&case, r, gb(4.0 * n as f64));
    }
    // A 4-op chain `(x * 2 + y) * x - y`, fused into one kernel and as four ufunc calls.
    let case = format!("fused_chain4_f32_{sfx}");
    if b.want(&case) {
        let f = cp::fuse(|x: cp::Sym, y: cp::Sym| (x * 2.0 + y) * x - y);
        let r = b.time(3, 10, || f.call(&[(&x).into(), (&y).into()]).map(|_| ()));
        b.report(&case, r, gb(12.0 * n as f64));
    }
    let case = format!("unfused_chain4_f32_{sfx}");
    if b.want(&case) {
        let r = b.time(3, 10, || {
            let t = ((&(&(&x * 2.0)? + &y)? * &x)? - &y)?;
            drop(t);
            Ok(())
        });
        b.report(&case, r, gb(12.0 * n as f64));
    }
    fusion::batchnorm_cases(&b, &dev, quick)?;
    drop((x2, z));

    // Transcendental ufuncs into a preallocated out= (issue 11: the cpu backend against NumPy;
    // `bench/numpy_cpu_baseline.py` has the same case names and builds the same inputs from the
    // same pseudo-random fill): a = 20x - 10 in [-10, 10) for exp/sin/cos/tanh, p = 10x + 2^-7
    // in (0, 10) for log and power's base, e = 4y - 2 in [-2, 2) for power's exponent.
    for (dt, tag) in [(DType::Float32, "f32"), (DType::Float64, "f64")] {
        let names = ["exp", "log", "sin", "cos", "tanh", "power"];
        let cases = names.map(|f| format!("{f}_{tag}_{sfx}"));
        if !cases.iter().any(|c| b.want(c)) {
            continue;
        }
        let a = (&(&x * 20.0)? - 10.0)?.astype(dt)?;
        let p = (&(&x * 10.0)? + 0.0078125)?.astype(dt)?;
        let e = (&(&y * 4.0)? - 2.0)?.astype(dt)?;
        let o = Array::empty_on(&dev, &[n], dt)?;
        for (name, case) in names.iter().zip(&cases) {
            if !b.want(case) {
                continue;
            }
            let u = cp::ufunc(name).ok_or("missing ufunc")?;
            let args: Vec<cp::Arg<'_>> = match *name {
                "log" => vec![(&p).into()],
                "power" => vec![(&p).into(), (&e).into()],
                _ => vec![(&a).into()],
            };
            let r = b.time(2, reps, || cp::apply_out(u, &args, &o).map(|_| ()));
            b.report(case, r, gb(2.0 * dt.itemsize() as f64 * n as f64));
        }
    }

    let mm = if quick { 256 } else { 8192 };
    for dt in [DType::Float32, DType::Float64, DType::Float16] {
        let case = format!("matmul_{}_{mm}", dt.name());
        if !b.want(&case) {
            continue;
        }
        let r = (|| {
            let a = rand_f32(&dev, mm * mm, 3)?
                .reshape(&[mm as isize, mm as isize])?
                .astype(dt)?;
            let c = rand_f32(&dev, mm * mm, 4)?
                .reshape(&[mm as isize, mm as isize])?
                .astype(dt)?;
            b.time(2, 5, || cp::matmul(&a, &c).map(|_| ()))
        })();
        b.report(&case, r, |ms| {
            vec![("TFLOPs", 2.0 * (mm as f64).powi(3) / ms / 1e9)]
        });
    }

    let (ci, ck) = if quick { (256, 15) } else { (2048, 32) };
    let case = format!("convolve2d_f64_{ci}_k{ck}");
    if b.want(&case) {
        let r = (|| {
            let img = rand_f32(&dev, ci * ci, 5)?
                .reshape(&[ci as isize, ci as isize])?
                .astype(DType::Float64)?;
            let ker = rand_f32(&dev, ck * ck, 6)?
                .reshape(&[ck as isize, ck as isize])?
                .astype(DType::Float64)?;
            b.time(1, 5, || {
                cp::scipy::signal::convolve2d(&img, &ker).map(|_| ())
            })
        })();
        b.report(&case, r, |_| vec![]);
    }

    linalg::linalg_cases(&b, &dev, quick);
    let grid = arg("--sparse-grid")
        .map(|v| v.parse::<usize>())
        .transpose()?;
    sparse::sparse_cases(&b, &dev, quick, grid);

    let case = if quick {
        "h2d_pageable_4MiB".to_string()
    } else {
        "h2d_pageable_1GiB".to_string()
    };
    let want_copies = b.want(&case) || b.want(&case.replace("h2d_pageable", "h2d_direct"));
    let host: Vec<f32> = if want_copies {
        (0..n).map(|i| i as f32).collect()
    } else {
        Vec::new()
    };
    if b.want(&case) {
        let r = b.time(1, 5, || Array::from_slice_on(&dev, &host, &[n]).map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    let case = case.replace("h2d", "d2h");
    if b.want(&case) {
        let r = b.time(1, 5, || x.to_vec::<f32>().map(|_| ()));
        b.report(&case, r, gb(4.0 * n as f64));
    }
    if dev.kind() == BackendKind::Cuda {
        // The same transfers without the pinned staging path (driver-staged pageable copies),
        // so one run shows which route is faster (CUPY_CUDA_STAGING picks it per transfer).
        std::env::set_var("CUPY_CUDA_STAGING", "off");
        let h2d = case.replace("d2h_pageable", "h2d_direct");
        if b.want(&h2d) {
            let r = b.time(1, 5, || Array::from_slice_on(&dev, &host, &[n]).map(|_| ()));
            b.report(&h2d, r, gb(4.0 * n as f64));
        }
        let d2h = case.replace("d2h_pageable", "d2h_direct");
        if b.want(&d2h) {
            let r = b.time(1, 5, || x.to_vec::<f32>().map(|_| ()));
            b.report(&d2h, r, gb(4.0 * n as f64));
        }
        std::env::remove_var("CUPY_CUDA_STAGING");
    }
    drop((x, y, host));

    memory::cases(&b, &dev, n, quick);

    // A kernel no process has compiled before: a unique constant changes its source.
    let unique = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_nanos()
        % 1_000_000) as f32;
    let want_disk = b.want("first_compile_disk_cache");
    if b.want("first_compile_elementwise") || want_disk {
        b.clock.set("host");
        let r = first_calls(&dev, unique);
        if b.want("first_compile_elementwise") {
            b.report(
                "first_compile_elementwise",
                r.as_ref().map(|t| t.0).map_err(|e| e.clone()),
                |_| vec![],
            );
        }
    }
    if want_disk {
        // A new process (empty in-memory caches) calls the same kernel: only the disk cache.
        let r = (|| -> Result<(f64, f64, f64), Box<dyn std::error::Error>> {
            let t = Instant::now();
            let out = std::process::Command::new(std::env::current_exe()?)
                .args([
                    "--backend",
                    dev.kind().name(),
                    "--child-first-call",
                    &unique.to_string(),
                ])
                // The CUDA compiler's per-module breakdown (version probe, disk lookup, load).
                .env("CUPY_COMPILE_LOG", "1")
                .stderr(std::process::Stdio::inherit())
                .output()?;
            let total = t.elapsed().as_secs_f64() * 1e3;
            if !out.status.success() {
                return Err(format!("child exited with {}", out.status).into());
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut it = text.split_whitespace().map(|v| v.parse::<f64>());
            match (it.next(), it.next()) {
                (Some(Ok(a)), Some(Ok(c))) => Ok((a, c, total)),
                _ => Err(format!("unexpected child output {text:?}").into()),
            }
        })();
        b.clock.set("host");
        match r {
            Ok((first, second, total)) => b.out(
                "first_compile_disk_cache",
                first,
                &[("second_call_ms", second), ("child_process_ms", total)],
            ),
            Err(e) => b.report(
                "first_compile_disk_cache",
                Err(cp::Error::invalid("bench", e.to_string())),
                |_| vec![],
            ),
        }
    }

    graph::cases(&b, &dev);
    if b.want("small_add_f32_1000") {
        b.clock.set("host");
        // Host overhead per op: 10,000 adds of 1,000 float32 elements, one synchronize at the end.
        let r = (|| {
            let a = rand_f32(&dev, 1000, 7)?;
            let c = rand_f32(&dev, 1000, 8)?;
            let out = Array::empty_on(&dev, &[1000], DType::Float32)?;
            for _ in 0..100 {
                cp::apply_out(&cp::ufuncs::add, &[(&a).into(), (&c).into()], &out)?;
            }
            dev.synchronize()?;
            let t = Instant::now();
            for _ in 0..10_000 {
                cp::apply_out(&cp::ufuncs::add, &[(&a).into(), (&c).into()], &out)?;
            }
            dev.synchronize()?;
            Ok(t.elapsed().as_secs_f64() * 1e3)
        })();
        b.report("small_add_f32_1000", r, |ms| {
            vec![("us_per_op", ms * 1e3 / 10_000.0)]
        });
    }
    Ok(())
}
