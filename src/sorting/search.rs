//! Searching: `argmax`, `argmin` (NumPy's "sorting, searching, and counting" family), declared
//! as reductions ([`crate::statistics`]).
//!
//! Both are one tuple-accumulator reduction (value and index,
//! [`cupy_core::kernel::reductions::arg_extreme`]) with NumPy's rules: the first occurrence of
//! the extreme wins ties, a NaN is extreme (the first NaN wins: `argmax([1, nan, 3, nan])` is
//! 1), `-0.0` and `0.0` tie, complex values compare lexicographically (real part, then
//! imaginary part; a NaN in either part wins). The result is `int64`, the index into the
//! flattened array for `axis=None`. An empty axis is NumPy's error ("attempt to get argmax of
//! an empty sequence"); `axis` takes one axis or None, and `dtype=` is refused.

use crate::statistics::reduction::{no_dtype, Axes, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::kernel::reductions::{arg_extreme, Extreme};
use cupy_core::scalar::Scalar;

fn arg(which: Extreme, t: DType, opts: &Reduce) -> Result<(ReduceKernel, Vec<Scalar>)> {
    let op = which.name();
    no_dtype(op, opts)?;
    if let Axes::Some(axes) = &opts.axis {
        if axes.len() > 1 {
            return Err(Error::invalid(
                op,
                format!("axis must be one axis or None, got {axes:?} (numpy.{op} takes no tuple)"),
            ));
        }
    }
    Ok((arg_extreme(t, which), vec![]))
}

reductions! {
    family: "search";
    /// The index of the (first) maximum (`numpy.argmax`), int64; NaN counts as the maximum.
    argmax / argmax_axis / argmax_with, empty "attempt to get argmax of an empty sequence"
        => |t, opts, _| arg(Extreme::Max, t, opts);
    /// The index of the (first) minimum (`numpy.argmin`), int64; NaN counts as the minimum.
    argmin / argmin_axis / argmin_with, empty "attempt to get argmin of an empty sequence"
        => |t, opts, _| arg(Extreme::Min, t, opts);
}
