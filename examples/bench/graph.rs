//! `--only graph`: host time per op of 100 small adds (1,000 float32 elements, `out=`) launched
//! plainly and replayed through one graph (`cupy.cuda.graph`, issue 16), both on one
//! non-blocking stream: 100 repetitions of the 100 ops (or of one launch), one synchronize at
//! the end. The graph's output is checked against the plain one. The plain case also reports
//! `enqueue_us_per_op`: the host time of the 100 x 100 calls alone (the synchronize after them
//! not counted; on a software adapter such as llvmpipe the device's work runs on the same CPU,
//! so `us_per_op` there is mostly the device's). The cases run with `dev` as the current device.

use super::{rand_f32, Bench};
use cupy as cp;
use cupy::cuda::{with_stream, Graph, Stream};
use cupy::{Array, DType, Device};
use std::time::Instant;

const OPS: usize = 100;
const REPS: usize = 100;

/// The graph cases (see the module docs).
pub(crate) fn cases(b: &Bench, dev: &Device) {
    if !b.want("small_add_x100") {
        return;
    }
    b.clock.set("host");
    let r = cp::with_device(dev, || -> cp::Result<(f64, f64, f64)> {
        let s = Stream::new_on(dev, true)?;
        let a = rand_f32(dev, 1000, 11)?;
        let c = rand_f32(dev, 1000, 12)?;
        let out = Array::empty_on(dev, &[1000], DType::Float32)?;
        let ops = || -> cp::Result<()> {
            for _ in 0..OPS {
                cp::apply_out(&cp::ufuncs::add, &[(&a).into(), (&c).into()], &out)?;
            }
            Ok(())
        };
        // (ms per repetition with the synchronize, ms per repetition of the calls alone)
        let timed = |f: &dyn Fn() -> cp::Result<()>| -> cp::Result<(f64, f64)> {
            with_stream(&s, || {
                for _ in 0..10 {
                    f()?;
                }
                s.synchronize()?;
                let t = Instant::now();
                for _ in 0..REPS {
                    f()?;
                }
                let calls = t.elapsed().as_secs_f64();
                s.synchronize()?;
                let all = t.elapsed().as_secs_f64();
                Ok((all * 1e3 / REPS as f64, calls * 1e3 / REPS as f64))
            })
        };
        let (plain, enqueue) = timed(&ops)?;
        let want = out.to_vec::<f32>()?;
        out.fill(0.0)?;
        let (g, ()) = Graph::capture_on(&s, ops)?;
        g.upload_on(&s)?;
        let (graph, _) = timed(&|| g.launch_on(&s))?;
        if out.to_vec::<f32>()? != want {
            return Err(cp::Error::invalid("bench", "the graph's result differs"));
        }
        Ok((plain, graph, enqueue))
    });
    let per_op = |ms: f64| vec![("us_per_op", ms * 1e3 / OPS as f64)];
    match r {
        Ok((plain, graph, enqueue)) => {
            b.report("small_add_x100_plain_f32_1000", Ok(plain), |ms| {
                let mut v = per_op(ms);
                v.push(("enqueue_us_per_op", enqueue * 1e3 / OPS as f64));
                v
            });
            b.report("small_add_x100_graph_f32_1000", Ok(graph), per_op);
        }
        Err(e) => b.report("small_add_x100_graph_f32_1000", Err(e), |_| vec![]),
    }
}
