//! Counting (NumPy's "Counting" and CuPy's `cupy/_statistics` / `cupy/_sorting/count.py`):
//! `count_nonzero` as a reduction.

use super::reduction::{no_dtype, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::scalar::Scalar;

/// `count_nonzero`: the int64 sum of `x != 0` (complex: either part; NaN counts).
fn count_nonzero_kernel(t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    no_dtype("count_nonzero", opts)?;
    let i = DType::Int64;
    let mut k = ReduceKernel::simple("count_nonzero", t, i, BinaryOp::Add, Scalar::Int64(0), i);
    k.map = vec![Expr::input(0, t).cast(DType::Bool).cast(i)];
    Ok((k, vec![]))
}

reductions! {
    family: "counting";
    /// The number of nonzero elements (`numpy.count_nonzero`), int64; NaN is nonzero.
    count_nonzero / count_nonzero_axis / count_nonzero_with => |t, opts, _| count_nonzero_kernel(t, opts);
}
