//! Order statistics (NumPy's "Order statistics": `max`/`amax`, `min`/`amin`).

use super::reduction::{no_dtype, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, ReduceKernel};
use cupy_core::scalar::Scalar;

/// `max` or `min` of `t` (NaN propagates; bool by or/and); complex is refused (NumPy orders
/// complex lexicographically; not yet here).
fn extreme(name: &str, max: bool, t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    no_dtype(name, opts)?;
    let op = match (t.is_bool(), max) {
        (true, true) => BinaryOp::Or,
        (true, false) => BinaryOp::And,
        (false, true) => BinaryOp::Max,
        (false, false) => BinaryOp::Min,
    };
    if t.is_complex() {
        return Err(Error::TypeError {
            op: name.into(),
            dtypes: vec![t],
            msg: "ordering of complex numbers is not supported yet".into(),
        });
    }
    let id = if max {
        Scalar::min_value(t)
    } else {
        Scalar::max_value(t)
    };
    Ok((ReduceKernel::simple(name, t, t, op, id, t), vec![]))
}

reductions! {
    family: "order";
    /// The maximum (`numpy.max`, `amax`; NaN propagates; an empty axis is an error).
    max / max_axis / max_with, empty "zero-size array to reduction operation maximum which has no identity" => |t, opts, _| extreme("max", true, t, opts);
    /// The minimum (`numpy.min`, `amin`; NaN propagates; an empty axis is an error).
    min / min_axis / min_with, empty "zero-size array to reduction operation minimum which has no identity" => |t, opts, _| extreme("min", false, t, opts);
}
