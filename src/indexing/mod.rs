//! NumPy's indexing routines: `a[index]` reading and writing ([`crate::Array::get`],
//! [`crate::Array::set`], `index_add` and the other `a[idx] op= v` forms), `take`/`put`
//! (gather/scatter IR kernels), `ufunc.at` and CuPy's `scatter_*`, `nonzero` and the mask
//! routines, the diagonal and triangle routines, and index grids.
//!
//! Every routine is built on the IR elementwise kernels (gathers as raw loads, scatters as raw
//! stores or atomics), so one declaration runs on every backend.

mod diag;
mod get;
mod grid;
mod index;
mod mask;
mod nonzero;
mod scatter;
mod take_put;

pub use diag::*;
pub use grid::*;
pub use mask::*;
pub use nonzero::*;
pub use scatter::*;
pub use take_put::*;

use crate::array::Array;
use crate::registry::Need;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::SliceItem;
use cupy_core::scalar::Scalar;

/// Integer (or bool) indices, or NumPy's `TypeError`.
pub(crate) fn check_index_dtype(op: &str, indices: &Array) -> Result<()> {
    if indices.dtype().is_integer() || indices.dtype().is_bool() {
        return Ok(());
    }
    Err(Error::TypeError {
        op: op.into(),
        dtypes: vec![indices.dtype()],
        msg: format!(
            "cannot cast array data from {} to int64 according to the rule 'safe'",
            indices.dtype()
        ),
    })
}

/// NumPy's `mode='raise'`: every index in `-n..n`, checked (min and max, one synchronisation)
/// before anything is written.
pub(crate) fn check_bounds(op: &str, indices: &Array, n: usize, axis: usize) -> Result<()> {
    if indices.size() == 0 {
        return Ok(());
    }
    let as_i128 = |s: Scalar| match s.cast(DType::Int64) {
        Scalar::Int64(v) if indices.dtype() != DType::UInt64 => v as i128,
        _ => match s.cast(DType::UInt64) {
            Scalar::UInt64(v) => v as i128,
            _ => 0,
        },
    };
    let (lo, hi) = match index_extremes(op, indices)? {
        Some([hi, lo]) => (as_i128(lo), as_i128(hi)),
        None => (
            as_i128(indices.min()?.item()?),
            as_i128(indices.max()?.item()?),
        ),
    };
    // NumPy reports the first offending index; with two candidates, the low one is reported
    // when it is out of range (the scan order of the data is not recovered).
    for v in [lo, hi] {
        if v >= n as i128 || v < -(n as i128) {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: v.clamp(isize::MIN as i128, isize::MAX as i128) as isize,
                axis,
                size: n,
            });
        }
    }
    Ok(())
}

/// Whether a gather's `mode='raise'` check of `indices` along an axis of length `n` can be
/// folded into the gather kernel ([`checked_position`], [`arm_flag`]): integer indices and a
/// non-empty axis (so the substitute position 0 is a valid element to load).
pub(crate) fn foldable_check(indices: &Array, n: usize) -> bool {
    indices.dtype().is_integer() && n > 0
}

/// The `Int64` position of index `j` (an expression of the index's own dtype, negative ones
/// counting from the end) along an axis of length `n`, with 0 substituted where it is out of
/// range, and the out-of-range condition: the bounds check folded into a gather.
pub(crate) fn checked_position(j: Expr, n: Expr) -> (Expr, Expr) {
    let pos = get::wrap_native(j, n.clone());
    let zero = Expr::constant(Scalar::Int64(0));
    let bad = Expr::binary(
        BinaryOp::Or,
        Expr::binary(BinaryOp::Lt, pos.clone(), zero.clone()),
        Expr::binary(BinaryOp::Ge, pos.clone(), n),
    );
    (Expr::select(bad.clone(), zero, pos), bad)
}

/// Arms gather `kernel` (its raw operands already listed) with the bounds check folded into
/// it: renamed `<name>_checked`, a one-element int32 raw operand appended, and `flag[0] = 1`
/// stored first where `bad` holds. Every writer stores the same value, so the racing plain
/// stores need no atomics (and the cpu backend keeps such a kernel parallel). Returns the flag
/// operand, zero, for the launch. Refused up front while the stream captures a graph (the
/// flag's read would be refused after the gather was captured).
pub(crate) fn arm_flag(op: &str, kernel: &mut Kernel, bad: Expr, like: &Array) -> Result<Array> {
    crate::cuda::graph::refuse(
        like.device(),
        &format!("{op} (an index bounds check)"),
        crate::cuda::graph::WAITS,
    )?;
    let raw = kernel.raws.len();
    kernel.name = format!("{}_checked", kernel.name);
    kernel.raws.push(DType::Int32);
    kernel.body.insert(
        0,
        Stmt::If {
            cond: bad,
            then_body: vec![Stmt::StoreRaw {
                raw,
                index: Expr::constant(Scalar::Int64(0)),
                value: Expr::constant(Scalar::Int32(1)),
            }],
            else_body: vec![],
        },
    );
    Array::zeros_on(like.device(), &[1], DType::Int32)
}

/// Reads an [`arm_flag`] flag (one synchronisation): true if some index was out of range.
pub(crate) fn flag_set(flag: &Array) -> Result<bool> {
    Ok(flag.item()?.is_nonzero())
}

/// The largest and smallest index of an integer index array: one reduction with two outputs
/// written into one 2-element buffer, one read (`None` for bool indices).
fn index_extremes(op: &str, indices: &Array) -> Result<Option<[Scalar; 2]>> {
    use crate::statistics::order::max_min_kernel;
    use crate::statistics::reduction::{reduce_into_multi, Axes};
    let t = indices.dtype();
    if !t.is_integer() {
        return Ok(None);
    }
    let kernel = max_min_kernel("index_bounds", t);
    let both = Array::empty_on(indices.device(), &[2], t)?;
    let hi = both.slice(&[SliceItem::Index(0)])?;
    let lo = both.slice(&[SliceItem::Index(1)])?;
    reduce_into_multi(
        op,
        &kernel,
        vec![],
        &[indices],
        &Axes::All,
        &[false, false],
        &[],
        &[Some(&hi), Some(&lo)],
    )?;
    let v = both.to_scalars()?;
    Ok(Some([v[0], v[1]]))
}

/// A C-contiguous array to scatter into: `a` itself, or a copy to write back afterwards.
pub(crate) fn scatter_target(a: &Array) -> Result<(Array, bool)> {
    if a.is_c_contiguous() {
        Ok((a.clone(), false))
    } else {
        Ok((a.copy()?, true))
    }
}

/// `a` unless it shares memory with `target` (then a copy, so reads see the old values).
pub(crate) fn detached(a: &Array, target: &Array) -> Result<Array> {
    if a.shares_memory_with(target) {
        a.copy()
    } else {
        Ok(a.clone())
    }
}

/// `j < 0 ? j + n : j` for an index of `dtype` read by `e`, as `Int64`.
pub(crate) fn wrapped_index(e: Expr, n: Expr) -> Expr {
    let j = e.cast(DType::Int64);
    Expr::select(
        Expr::binary(BinaryOp::Lt, j.clone(), Expr::constant(Scalar::Int64(0))),
        Expr::binary(BinaryOp::Add, j.clone(), n),
        j,
    )
}

/// The registry probe of `take`: a raw load at an integer index.
pub(crate) fn gather(t: DType) -> Option<Need> {
    let mut k = Kernel::map(
        "take",
        vec![DType::Int64],
        vec![],
        Expr::load(0, t, Expr::input(0, DType::Int64)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

/// The registry probe of `put` (a raw write at an integer index) and of `add.at` and the
/// `scatter_*` routines (an atomic update with `op`).
pub(crate) fn scatter(t: DType, op: Option<AtomicOp>) -> Need {
    let (index, value) = (Expr::input(0, DType::Int64), Expr::input(1, t));
    let stmt = match op {
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index,
            value,
            old: None,
        },
        None => Stmt::StoreRaw {
            raw: 0,
            index,
            value,
        },
    };
    Need::Kernel(Kernel {
        name: "scatter".into(),
        inputs: vec![DType::Int64, t],
        outputs: vec![],
        raws: vec![t],
        params: vec![],
        locals: vec![],
        body: vec![stmt],
    })
}
