//! Order statistics (NumPy's "Order statistics"): `max`/`amax`, `min`/`amin`, `ptp` as
//! reductions (`median`, `percentile`, `quantile` work on sorted rows: `quantile.rs`).
//!
//! Complex values are ordered lexicographically (real part, then imaginary part), as NumPy's
//! `maximum`/`minimum` on complex; a NaN in either part propagates.

use super::reduction::{acc_of, no_dtype, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::scalar::Scalar;
use num_complex::Complex;

/// The identity of a lexicographic `max` (`max = true`) or `min` over `t`: the dtype's
/// smallest (largest) value, `-inf` (`+inf`) for floats, `complex(-inf, -inf)` for complex.
pub(crate) fn extreme_identity(t: DType, max: bool) -> Scalar {
    let inf = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    match t {
        DType::Complex64 => Scalar::Complex64(Complex::new(inf as f32, inf as f32)),
        DType::Complex128 => Scalar::Complex128(Complex::new(inf, inf)),
        t if max => Scalar::min_value(t),
        t => Scalar::max_value(t),
    }
}

/// The combine of `max`/`min` over `t`: or/and for bool, NaN-propagating max/min otherwise.
fn extreme_op(t: DType, max: bool) -> BinaryOp {
    match (t.is_bool(), max) {
        (true, true) => BinaryOp::Or,
        (true, false) => BinaryOp::And,
        (false, true) => BinaryOp::Max,
        (false, false) => BinaryOp::Min,
    }
}

/// `max` or `min` of `t` (NaN propagates; bool by or/and; complex lexicographic).
pub(crate) fn extreme(
    name: &str,
    max: bool,
    t: DType,
    opts: &Reduce,
) -> Result<(ReduceKernel, Vec<Scalar>)> {
    no_dtype(name, opts)?;
    let id = extreme_identity(t, max);
    Ok((
        ReduceKernel::simple(name, t, t, extreme_op(t, max), id, t),
        vec![],
    ))
}

/// The largest and smallest element of `t` in one reduction with two outputs (the maximum,
/// then the minimum in `extra_posts`), both of dtype `t`; `ptp` and the index bounds check
/// build on it.
pub(crate) fn max_min_kernel(name: &str, t: DType) -> ReduceKernel {
    let v = acc_of(t);
    let x = Expr::input(0, t).cast(v);
    let (hi, lo) = (Expr::var(0, v), Expr::var(1, v));
    let (bhi, blo) = (Expr::var(2, v), Expr::var(3, v));
    ReduceKernel {
        name: name.into(),
        inputs: vec![t],
        params: vec![],
        acc: vec![v, v],
        map: vec![x.clone(), x],
        combine: vec![
            Expr::binary(BinaryOp::Max, hi.clone(), bhi),
            Expr::binary(BinaryOp::Min, lo.clone(), blo),
        ],
        fold: vec![],
        identity: vec![extreme_identity(v, true), extreme_identity(v, false)],
        post: hi.cast(t),
        output: t,
        extra_posts: vec![lo.cast(t)],
    }
}

/// `ptp` of `t`: one tuple reduction (max, min), `max - min` in the input's dtype (integers
/// wrap, as NumPy's subtract); bool is NumPy's TypeError.
fn ptp_kernel(t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    no_dtype("ptp", opts)?;
    if t.is_bool() {
        return Err(Error::TypeError {
            op: "ptp".into(),
            dtypes: vec![t],
            msg: "numpy boolean subtract, the `-` operator, is not supported".into(),
        });
    }
    let mut k = max_min_kernel("ptp", t);
    let v = acc_of(t);
    k.post = Expr::binary(BinaryOp::Sub, Expr::var(0, v), Expr::var(1, v)).cast(t);
    k.extra_posts.clear();
    Ok((k, vec![]))
}

reductions! {
    family: "order";
    /// The maximum (`numpy.max`, `amax`; NaN propagates; complex lexicographic; an empty axis
    /// is an error unless `initial` is given).
    max / max_axis / max_with, empty "zero-size array to reduction operation maximum which has no identity", takes "initial where" => |t, opts, _| extreme("max", true, t, opts);
    /// The minimum (`numpy.min`, `amin`; NaN propagates; complex lexicographic; an empty axis
    /// is an error unless `initial` is given).
    min / min_axis / min_with, empty "zero-size array to reduction operation minimum which has no identity", takes "initial where" => |t, opts, _| extreme("min", false, t, opts);
    /// The range of values, `max - min` (`numpy.ptp`, "peak to peak"; NaN propagates; integers
    /// wrap in their dtype; bool is a TypeError; an empty axis is an error).
    ptp / ptp_axis / ptp_with, empty "zero-size array to reduction operation maximum which has no identity" => |t, opts, _| ptp_kernel(t, opts);
}
