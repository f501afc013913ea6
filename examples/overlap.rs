//! Copy/compute overlap with two streams, shown with events.
//!
//! Chunks of a host array in pinned memory (`cupy::empty_pinned`) are uploaded on one stream
//! while the previous chunk is computed on another; arrays remember the stream that wrote them,
//! so each computation waits for its own upload on the device, never on the host. Events
//! recorded around every copy and every computation give a timeline: where the copy of chunk
//! i + 1 starts before the computation of chunk i ends, the two overlapped. The same work on one
//! stream is timed first, for comparison.
//!
//! ```sh
//! cargo run --release --example overlap -- [--chunks 8] [--mib 64] [--rounds 20]
//! ```
//! On cuda and hip the copies run on the copy engine beside the kernels; on wgpu and the cpu
//! every stream is one queue, so the two timings agree.

use cp::cuda::{get_elapsed_time, with_stream, Event, Stream};
use cp::{Array, DType};
use cupy as cp;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `rounds` passes of a few elementwise ops over the chunk (the "compute").
fn compute(x: &Array, rounds: usize) -> cp::Result<Array> {
    let mut z = x.sin()?;
    for _ in 0..rounds {
        z = ((&z * 0.999f32)? + 0.001f32)?.sin()?;
    }
    Ok(z)
}

fn main() -> cp::Result<()> {
    let chunks = arg("--chunks", 8);
    let n = arg("--mib", 64) * (1 << 20) / 4;
    let rounds = arg("--rounds", 20);
    let dev = cp::Device::current()?;
    println!("device: {dev}; {chunks} chunks of {n} float32, {rounds} compute rounds each");

    let mut host = Vec::new();
    for c in 0..chunks {
        let mut p = cp::empty_pinned(&[n], DType::Float32)?;
        for (i, v) in p.as_mut_slice::<f32>()?.iter_mut().enumerate() {
            *v = ((i + c) % 1000) as f32 * 1e-3;
        }
        host.push(p);
    }
    let device_chunks: Vec<Array> = (0..chunks)
        .map(|_| cp::empty_with(&[n], DType::Float32))
        .collect::<cp::Result<_>>()?;
    let (copy, work) = (Stream::new_non_blocking()?, Stream::new_non_blocking()?);

    // Warm-up: compile the kernels, fill the pool.
    with_stream(&work, || -> cp::Result<()> {
        device_chunks[0].set_from_pinned(&host[0])?;
        compute(&device_chunks[0], rounds)?;
        Ok(())
    })?;
    work.synchronize()?;

    // One stream: copy, compute, copy, compute, ...
    let (start, end) = (Event::new()?, Event::new()?);
    start.record(&work)?;
    let mut results = Vec::new();
    with_stream(&work, || -> cp::Result<()> {
        for (d, h) in device_chunks.iter().zip(&host) {
            d.set_from_pinned(h)?;
            results.push(compute(d, rounds)?);
        }
        Ok(())
    })?;
    end.record(&work)?;
    end.synchronize()?;
    let serial = get_elapsed_time(&start, &end)?;
    let check = results.last().map(|r| r.sum()).transpose()?;
    results.clear();

    // Two streams: uploads on `copy`, computations on `work`, with events around each. Fresh
    // device arrays: a write waits for every stream that used the buffer before (on the device,
    // for all the work queued there so far), so reusing the chunks the one-stream run wrote on
    // `work` would order each upload after the computation queued just before it.
    let device_chunks: Vec<Array> = (0..chunks)
        .map(|_| cp::empty_with(&[n], DType::Float32))
        .collect::<cp::Result<_>>()?;
    let t0 = Event::new()?;
    t0.record(&copy)?;
    work.wait_event(&t0)?;
    let mut marks = Vec::new();
    for (d, h) in device_chunks.iter().zip(&host) {
        let (c0, c1, k1) = (Event::new()?, Event::new()?, Event::new()?);
        c0.record(&copy)?;
        with_stream(&copy, || d.set_from_pinned(h))?;
        c1.record(&copy)?;
        // The computation waits for the upload on the device (the array's stream record).
        let r = with_stream(&work, || compute(d, rounds))?;
        k1.record(&work)?;
        results.push(r);
        marks.push((c0, c1, k1));
    }
    let done = Event::new()?;
    done.record(&work)?;
    done.synchronize()?;
    copy.synchronize()?;
    let overlapped = get_elapsed_time(&t0, &done)?;
    let again = results.last().map(|r| r.sum()).transpose()?;
    assert_eq!(
        check.map(|c| c.to_vec::<f32>()).transpose()?,
        again.map(|c| c.to_vec::<f32>()).transpose()?,
        "the two schedules computed the same values"
    );

    println!("chunk  copy start..end (ms)   compute ends (ms)");
    let mut overlaps = 0;
    for (i, (c0, c1, k1)) in marks.iter().enumerate() {
        let (a, b, e) = (
            get_elapsed_time(&t0, c0)?,
            get_elapsed_time(&t0, c1)?,
            get_elapsed_time(&t0, k1)?,
        );
        let prev_end = match i {
            0 => f32::NEG_INFINITY,
            _ => get_elapsed_time(&t0, &marks[i - 1].2)?,
        };
        let overlap = a < prev_end;
        overlaps += overlap as usize;
        println!(
            "{i:>5}  {a:>8.3} .. {b:>8.3}        {e:>8.3}{}",
            if overlap {
                "   (copy began before the previous compute ended)"
            } else {
                ""
            }
        );
    }
    println!(
        "one stream: {serial:.3} ms; copy and compute on two streams: {overlapped:.3} ms \
         ({:.2}x); {overlaps} of {} copies overlapped a computation",
        serial / overlapped,
        chunks.saturating_sub(1)
    );
    Ok(())
}
