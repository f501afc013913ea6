//! `--only graph`: host time per op of 100 small adds (1,000 float32 elements, `out=`) launched
//! plainly and replayed through one graph (`cupy.cuda.graph`, issue 16), both on one
//! non-blocking stream: 100 repetitions of the 100 ops (or of one launch), one synchronize at
//! the end. The graph's output is checked against the plain one.

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
    let r = (|| -> cp::Result<(f64, f64)> {
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
        let timed = |f: &dyn Fn() -> cp::Result<()>| -> cp::Result<f64> {
            with_stream(&s, || {
                for _ in 0..10 {
                    f()?;
                }
                s.synchronize()?;
                let t = Instant::now();
                for _ in 0..REPS {
                    f()?;
                }
                s.synchronize()?;
                Ok(t.elapsed().as_secs_f64() * 1e3 / REPS as f64)
            })
        };
        let plain = timed(&ops)?;
        let want = out.to_vec::<f32>()?;
        out.fill(0.0)?;
        let (g, ()) = Graph::capture_on(&s, ops)?;
        g.upload_on(&s)?;
        let graph = timed(&|| g.launch_on(&s))?;
        if out.to_vec::<f32>()? != want {
            return Err(cp::Error::invalid("bench", "the graph's result differs"));
        }
        Ok((plain, graph))
    })();
    let per_op = |ms: f64| vec![("us_per_op", ms * 1e3 / OPS as f64)];
    match r {
        Ok((plain, graph)) => {
            b.report("small_add_x100_plain_f32_1000", Ok(plain), per_op);
            b.report("small_add_x100_graph_f32_1000", Ok(graph), per_op);
        }
        Err(e) => b.report("small_add_x100_graph_f32_1000", Err(e), |_| vec![]),
    }
}
