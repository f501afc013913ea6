//! Truth-value reductions (NumPy's "Logic functions: truth value testing", CuPy's
//! `cupy/_logic/truth.py`): `any`, `all`.
//!
//! An element is true when it is nonzero (for complex, either part; NaN is true), as NumPy's
//! `bool(x)`. The result is bool; an empty reduction gives `any = False`, `all = True`.

use super::reduction::{no_dtype, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::scalar::Scalar;

/// `any` (`or` of the truth values) or `all` (`and`).
fn truth(name: &str, any: bool, t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    no_dtype(name, opts)?;
    let b = DType::Bool;
    let (op, id) = if any {
        (BinaryOp::Or, false)
    } else {
        (BinaryOp::And, true)
    };
    let mut k = ReduceKernel::simple(name, t, b, op, Scalar::Bool(id), b);
    k.map = vec![Expr::input(0, t).cast(b)];
    Ok((k, vec![]))
}

reductions! {
    family: "truth";
    /// Whether any element is true, nonzero (`numpy.any`; NaN is true; empty gives False).
    any / any_axis / any_with, takes "where" => |t, opts, _| truth("any", true, t, opts);
    /// Whether every element is true, nonzero (`numpy.all`; NaN is true; empty gives True).
    all / all_axis / all_with, takes "where" => |t, opts, _| truth("all", false, t, opts);
}
