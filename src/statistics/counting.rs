//! Counting (NumPy's "Counting" and CuPy's `cupy/_statistics` / `cupy/_sorting/count.py`):
//! `count_nonzero` as a reduction, and `bincount` (atomic adds, as the histograms).

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

/// Keyword arguments of [`bincount_with`] (`numpy.bincount(x, weights=None, minlength=0)`).
#[derive(Clone, Debug, Default)]
pub struct Bincount {
    /// A weight per element of `x` (`weights=`): the result sums them (float64).
    pub weights: Option<crate::array::Array>,
    /// The least length of the result (`minlength=`).
    pub minlength: usize,
}

/// `numpy.bincount(x)`: the number of occurrences of each value `0..=max(x)` of a 1-d array
/// of non-negative integers, int64.
///
/// # Errors
/// As [`bincount_with`].
pub fn bincount(x: &crate::array::Array) -> Result<crate::array::Array> {
    bincount_with(x, Bincount::default())
}

/// `numpy.bincount(x, weights=..., minlength=...)`: counts (int64), or the sums of the weights
/// at each value (float64), of length `max(max(x) + 1, minlength)`. The maximum is read back
/// (one synchronisation), as the result's length depends on it.
///
/// # Errors
/// [`cupy_core::Error::InvalidArgument`] for `x` not 1-d, a negative value, weights of another
/// length (NumPy's ValueErrors); [`cupy_core::Error::TypeError`] for non-integer `x` and
/// complex weights; dtype and device errors (float64 atomics on wgpu).
pub fn bincount_with(x: &crate::array::Array, opts: Bincount) -> Result<crate::array::Array> {
    use cupy_core::error::Error;
    let op = "bincount";
    let t = x.dtype();
    if !(t.is_bool() || t.is_integer()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: format!(
                "Cannot cast array data from dtype('{t}') to dtype('int64') according to the rule 'safe'"
            ),
        });
    }
    if x.ndim() != 1 {
        return Err(Error::invalid(
            op,
            "object too deep for desired array (x must be 1-d)",
        ));
    }
    if let Some(w) = &opts.weights {
        if w.dtype().is_complex() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![w.dtype()],
                msg: "Cannot cast array data from the complex weights to dtype('float64') according to the rule 'safe'".into(),
            });
        }
        if w.size() != x.size() {
            return Err(Error::invalid(
                op,
                "The weights and list don't have the same length.",
            ));
        }
    }
    let len = if x.size() == 0 {
        opts.minlength
    } else {
        let lo = x.min()?.astype(DType::Float64)?.to_vec::<f64>()?[0];
        if lo < 0.0 {
            return Err(Error::invalid(
                op,
                "'list' argument must have no negative elements",
            ));
        }
        let hi = x.max()?.astype(DType::UInt64)?.to_vec::<u64>()?[0];
        (hi as usize).saturating_add(1).max(opts.minlength)
    };
    let idx = x.astype(DType::Int64)?;
    super::histogram::accumulate(&idx, len, opts.weights.as_ref())
}
routine!(bincount, Statistics, probe: bincount_probe, notes: "weights, minlength");

/// The registry probe of `bincount`: the int64 atomic add.
fn bincount_probe(t: DType) -> Option<crate::registry::Need> {
    if !(t.is_bool() || t.is_integer()) {
        return None;
    }
    Some(crate::registry::Need::Kernel(
        cupy_core::kernel::ir::Kernel {
            name: "bincount".into(),
            inputs: vec![DType::Int64],
            outputs: vec![],
            raws: vec![DType::Int64],
            params: vec![],
            locals: vec![],
            body: vec![cupy_core::kernel::ir::Stmt::AtomicRaw {
                raw: 0,
                op: cupy_core::kernel::ir::AtomicOp::Add,
                index: Expr::input(0, DType::Int64),
                value: Expr::constant(Scalar::Int64(1)),
                old: None,
            }],
        },
    ))
}
