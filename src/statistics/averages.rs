//! Averages and variances (NumPy's "Averages and variances").

use super::reduction::{acc_of, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::scalar::Scalar;

/// `mean` of `count` elements of `t`: the sum in the accumulator, divided by `count` in the
/// post-map; integers give float64 (NumPy), an integer `dtype=` sums in it and divides in
/// float64.
fn mean_kernel(t: DType, opts: &Reduce, count: usize) -> Result<(ReduceKernel, Vec<Scalar>)> {
    let out = opts.dtype.unwrap_or(if t.is_integer() || t.is_bool() {
        DType::Float64
    } else {
        t
    });
    let acc = acc_of(out);
    let mut k = ReduceKernel::simple("mean", t, acc, BinaryOp::Add, Scalar::zero(acc), out);
    Ok(if acc.is_inexact() {
        k.params = vec![acc];
        k.post = Expr::binary(BinaryOp::Div, Expr::var(0, acc), Expr::param(0, acc)).cast(out);
        (k, vec![Scalar::Float64(count as f64).cast(acc)])
    } else {
        let f = DType::Float64;
        k.params = vec![f];
        k.post =
            Expr::binary(BinaryOp::Div, Expr::var(0, acc).cast(f), Expr::param(0, f)).cast(out);
        (k, vec![Scalar::Float64(count as f64)])
    })
}

reductions! {
    family: "averages";
    /// The arithmetic mean (`numpy.mean`; integers give float64, float16 accumulates in float32).
    mean / mean_axis / mean_with => |t, opts, count| mean_kernel(t, opts, count);
}
