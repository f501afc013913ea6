//! Sums and products (NumPy's "Sums, products, differences").

use super::reduction::{acc_of, widen, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, ReduceKernel};
use cupy_core::scalar::Scalar;

/// `sum` or `prod` of `t` with NumPy's dtypes (`dtype=` or the widened input); bool arithmetic
/// is logical, as NumPy's add/multiply loops for `?`.
pub(crate) fn sum_or_prod(
    name: &str,
    sum: bool,
    t: DType,
    opts: &Reduce,
) -> Result<(ReduceKernel, Vec<Scalar>)> {
    let out = opts.dtype.unwrap_or_else(|| widen(t));
    let acc = acc_of(out);
    let (op, id) = match (sum, acc.is_bool()) {
        (true, false) => (BinaryOp::Add, Scalar::zero(acc)),
        (false, false) => (BinaryOp::Mul, Scalar::one(acc)),
        (true, true) => (BinaryOp::Or, Scalar::Bool(false)),
        (false, true) => (BinaryOp::And, Scalar::Bool(true)),
    };
    Ok((ReduceKernel::simple(name, t, acc, op, id, out), vec![]))
}

reductions! {
    family: "sums";
    /// The sum (`numpy.sum`; small integers accumulate in (u)int64, float16 in float32).
    sum / sum_axis / sum_with, takes "initial where" => |t, opts, _| sum_or_prod("sum", true, t, opts);
    /// The product (`numpy.prod`; dtypes as `sum`).
    prod / prod_axis / prod_with, takes "initial where" => |t, opts, _| sum_or_prod("prod", false, t, opts);
}
