//! Averages and variances (NumPy's "Averages and variances").
//!
//! `var`/`std` are one tuple-accumulator reduction (count, mean, M2;
//! [`cupy_core::kernel::reductions::moments`]) folded with Chan et al.'s parallel combine, so
//! a long array with a large mean keeps its digits (`E[x^2] - E[x]^2` would not). NumPy's
//! rules: the divisor is `max(n - ddof, 0)` ([`Reduce::ddof`]), so `n - ddof <= 0` gives inf
//! (or NaN where every element equals the mean) and an empty reduction gives NaN, as NumPy's
//! values (NumPy also warns); integers and bool give float64; float16 accumulates in float32
//! and returns float16; complex input gives the real variance (`mean(|x - mean(x)|^2)`) in
//! its real dtype. `dtype=` is not taken yet.

use super::reduction::{acc_of, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::kernel::reductions::{moments, Moment};
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

/// `var` or `std`: the moments kernel, `ddof` as its parameter.
fn moment(which: Moment, t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    if let Some(d) = opts.dtype {
        return Err(Error::invalid(
            which.name(),
            format!(
                "dtype= ({d}) of numpy.{} is not supported yet",
                which.name()
            ),
        ));
    }
    let k = moments(t, which);
    let ddof = Scalar::Float64(opts.ddof as f64).cast(k.params[0]);
    Ok((k, vec![ddof]))
}

reductions! {
    family: "averages";
    /// The arithmetic mean (`numpy.mean`; integers give float64, float16 accumulates in float32).
    mean / mean_axis / mean_with => |t, opts, count| mean_kernel(t, opts, count);
    /// The variance (`numpy.var`): `sum(|x - mean|^2) / max(n - ddof, 0)`, `ddof` from
    /// [`Reduce`]; integers give float64, complex its real dtype.
    var / var_axis / var_with => |t, opts, _| moment(Moment::Var, t, opts);
    /// The standard deviation (`numpy.std`), the square root of `var`.
    std / std_axis / std_with => |t, opts, _| moment(Moment::Std, t, opts);
}
