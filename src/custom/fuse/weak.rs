//! Weak scalars inside a trace: Rust numbers and scalar arguments, ops among them computed on
//! the host (NEP 50), and their expressions at a use's dtype.

use super::{Trace, Val};
use crate::math::ufunc::{Arg, Ufunc};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{Expr, ExprKind};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// The weak scalar a value computed among weak scalars is (NumPy 2: an op of Python scalars
/// gives a Python scalar of the result's kind).
pub(super) fn weak_of(v: Scalar) -> WeakScalar {
    let d = v.dtype();
    if d.is_bool() {
        WeakScalar::Bool(v.is_nonzero())
    } else if d.is_integer() {
        WeakScalar::Int(v.to_i128())
    } else if d.is_complex() {
        match v.cast(DType::Complex128) {
            Scalar::Complex128(z) => WeakScalar::Complex(z),
            _ => unreachable!("cast to complex128"),
        }
    } else {
        WeakScalar::Float(v.to_f64())
    }
}

/// Ufunc `u` among weak scalars only, in the loop `(pt, c, o)` NumPy picks for them alone
/// (float64, int64, complex128 or bool): the result stays weak, as NEP 50 makes an op of two
/// Python floats a Python float (so `x_f32 * (h * h)` stays float32). Computed on the host
/// with the ufunc's own IR body: at trace time for the value (constants fold for good), and,
/// when a scalar argument of `call` takes part, per call from the argument values (a derived
/// source, see [`Trace::derived`]).
pub(super) fn weak_op(
    t: &mut Trace,
    u: &Ufunc,
    vals: &[Val],
    types: (DType, DType, DType),
) -> Result<Val> {
    let (pt, c, o) = types;
    let op = u.name();
    let (mut exprs, mut now) = (vec![], vec![]);
    let mut from_args = false;
    for v in vals {
        let Val::Weak(w, src) = v else {
            unreachable!("weak operands only")
        };
        let value = Expr::constant(w.to_scalar(op, pt)?);
        now.push(value.clone().cast(c));
        exprs.push(match src {
            None => value.cast(c),
            Some(j) => {
                from_args = true;
                Expr::param(*j, w.default_dtype()).cast(pt).cast(c)
            }
        });
    }
    let value = crate::custom::eval_host(op, vec![u.inline_body(op, c, now)?.cast(o)])?[0];
    if !from_args {
        return Ok(Val::Weak(weak_of(value), None));
    }
    t.derived.push(u.inline_body(op, c, exprs)?.cast(o));
    Ok(Val::Weak(
        weak_of(value),
        Some(t.n_args + t.derived.len() - 1),
    ))
}

/// The values of a trace's derived weak scalars for one call's arguments.
pub(super) fn derived_values(op: &str, derived: &[Expr], args: &[Arg<'_>]) -> Result<Vec<Scalar>> {
    let mut full: Vec<Expr> = Vec::with_capacity(derived.len());
    for e in derived {
        let mut err = None;
        let f = e.rewrite(&mut |x| match x.kind {
            ExprKind::Param(j) if j < args.len() => match args[j] {
                Arg::Weak(w) => match w.to_scalar(op, x.ty) {
                    Ok(v) => Some(Expr::constant(v)),
                    Err(e) => {
                        err = Some(e);
                        Some(x.clone())
                    }
                },
                _ => unreachable!("derived sources are weak arguments"),
            },
            ExprKind::Param(j) => Some(full[j - args.len()].clone()),
            _ => None,
        });
        if let Some(e) = err {
            return Err(e);
        }
        full.push(f);
    }
    crate::custom::eval_host(op, full)
}

/// The expression of a weak scalar used at dtype `dt`: a constant for a Rust number in the
/// closure, a parameter (one per argument and dtype) for a scalar argument of `call`.
pub(super) fn weak_expr(
    t: &mut Trace,
    op: &str,
    w: WeakScalar,
    arg: Option<usize>,
    dt: DType,
) -> Result<Expr> {
    let value = w.to_scalar(op, dt)?;
    Ok(match arg {
        None => Expr::constant(value),
        Some(arg) => {
            let k = match t.param_slots.iter().position(|&s| s == (arg, dt)) {
                Some(k) => k,
                None => {
                    t.param_slots.push((arg, dt));
                    t.param_slots.len() - 1
                }
            };
            Expr::param(k, dt)
        }
    })
}
