//! NumPy's `where=` and `initial=` of the reductions, as rewrites of a built [`ReduceKernel`]
//! shared by every reduction that takes them (and the `nan*` families' NaN replacement):
//!
//! - `where=` ([`masked`]): the bool mask becomes one more input and each accumulator's map is
//!   `mask ? map : identity`, so a masked-out element is the combine's identity (for the tuple
//!   kernels: a count of 0, so `mean`/`var` divide by the number of true elements);
//! - `initial=` ([`with_initial`]): the post-map reads `combine(initial, folded)`, so the value
//!   is counted once whatever the backend's grouping (a `sum`'s identity cannot be replaced by
//!   it);
//! - NaN replacement ([`replace_nan`]): every read of the input in the map becomes
//!   `isnan(x) ? value : x`, NumPy's `_replace_nan` of `nansum`, `nanprod`, `nanargmax`.

use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, ExprKind, ReduceKernel, UnaryOp};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// The `where=` mask of a reduction of `a`: bool (NumPy casts it with the `safe` rule, so any
/// other dtype is a [`Error::TypeError`]) and broadcast to `a`'s shape.
///
/// # Errors
/// [`Error::TypeError`] for a non-bool mask; [`Error::ShapeMismatch`] when it does not
/// broadcast to `a` (NumPy's ValueError); [`Error::DeviceMismatch`].
pub(crate) fn where_mask(op: &str, mask: &Array, a: &Array) -> Result<Array> {
    if mask.dtype() != DType::Bool {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![mask.dtype()],
            msg: format!(
                "Cannot cast the where= mask from dtype('{}') to dtype('bool') according to the rule 'safe'",
                mask.dtype()
            ),
        });
    }
    crate::array::same_device(op, [a, mask])?;
    mask.broadcast_to(a.shape())
        .map_err(|_| Error::ShapeMismatch {
            op: op.into(),
            lhs: a.shape().to_vec(),
            rhs: mask.shape().to_vec(),
        })
}

/// `k` with one more input, a bool mask, selecting each accumulator's map or its identity.
pub(crate) fn masked(mut k: ReduceKernel) -> ReduceKernel {
    let m = Expr::input(k.inputs.len(), DType::Bool);
    k.inputs.push(DType::Bool);
    k.map = k
        .map
        .iter()
        .zip(&k.identity)
        .map(|(e, &id)| Expr::select(m.clone(), e.clone(), Expr::constant(id)))
        .collect();
    // A masked-out element maps to the identity, not to one element: the fold would count it.
    k.fold.clear();
    k
}

/// The value of `initial=` in dtype `t` (the reduction's loop dtype), as NumPy converts a
/// Python scalar: integers must fit an integer `t`; a float into an integer loop truncates,
/// and NaN or an infinity there is an error.
///
/// # Errors
/// [`Error::ScalarOverflow`] for an integer out of range; [`Error::InvalidArgument`] for a NaN
/// or infinite float into an integer loop (NumPy's ValueError/OverflowError); a complex
/// value into a real loop is a [`Error::TypeError`].
pub(crate) fn initial_value(op: &str, v: WeakScalar, t: DType) -> Result<Scalar> {
    match v {
        WeakScalar::Float(f) if (t.is_integer() || t.is_bool()) && !f.is_finite() => {
            Err(Error::invalid(
                op,
                format!(
                    "cannot convert float {} to integer (initial= of an integer reduction)",
                    if f.is_nan() { "NaN" } else { "infinity" }
                ),
            ))
        }
        WeakScalar::Complex(_) if !t.is_complex() => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: format!("a complex initial= cannot be converted to the {t} loop"),
        }),
        v => v.to_scalar(op, t),
    }
}

/// `k` whose post-map reads `combine(initial, folded)` (single-accumulator kernels).
///
/// # Errors
/// [`Error::InvalidArgument`] for a tuple kernel (no reduction that takes `initial=` is one).
pub(crate) fn with_initial(mut k: ReduceKernel, initial: Scalar) -> Result<ReduceKernel> {
    if k.is_tuple() {
        return Err(Error::invalid(
            k.name.as_str(),
            "initial= is not taken by this reduction",
        ));
    }
    let acc = k.acc[0];
    let init = Expr::constant(initial.cast(acc));
    let folded = k.combine[0].rewrite(&mut |e| match e.kind {
        ExprKind::Var(0) => Some(init.clone()),
        ExprKind::Var(1) => Some(Expr::var(0, acc)),
        _ => None,
    });
    k.post = k.post.rewrite(&mut |e| match e.kind {
        ExprKind::Var(0) => Some(folded.clone()),
        _ => None,
    });
    Ok(k)
}

/// `k` whose map reads `isnan(x) ? value : x` wherever it reads input 0 (a float or complex
/// input; other dtypes have no NaN and are returned unchanged).
pub(crate) fn replace_nan(mut k: ReduceKernel, value: Scalar) -> ReduceKernel {
    let t = k.inputs[0];
    if !(t.is_float() || t.is_complex()) {
        return k;
    }
    let x = Expr::input(0, t);
    let repl = Expr::select(
        Expr::unary(UnaryOp::IsNan, x.clone()),
        Expr::constant(value.cast(t)),
        x,
    );
    k.map = k
        .map
        .iter()
        .map(|e| {
            e.rewrite(&mut |n| match n.kind {
                ExprKind::Input(0) => Some(repl.clone()),
                _ => None,
            })
        })
        .collect();
    k
}

/// `k` (a kernel over an input of dtype `d`) reading an input of dtype `t` cast to `d`: NumPy's
/// `dtype=` of the reductions that compute in it (`var`, `std`).
pub(crate) fn retype_input(mut k: ReduceKernel, t: DType) -> ReduceKernel {
    let d = k.inputs[0];
    if d == t {
        return k;
    }
    k.inputs[0] = t;
    let x = Expr::input(0, t).cast(d);
    k.map = k
        .map
        .iter()
        .map(|e| {
            e.rewrite(&mut |n| match n.kind {
                ExprKind::Input(0) => Some(x.clone()),
                _ => None,
            })
        })
        .collect();
    k
}
