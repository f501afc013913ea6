//! In-place updates inside a fused function: the compound assignments (`x += y`, CuPy's
//! in-place ufuncs), [`Sym::assign`] (CuPy's `x[...] = value`) and `out=`
//! ([`Sym::ufunc_out`]).
//!
//! A [`Sym`] is a variable, as a Python name bound to an array: an update changes the value
//! that every copy of it sees from then on. On an array argument of the fused function the
//! update is also written back into that array when the function runs. A scalar (a Rust
//! number, a scalar argument) is rebound instead, as `h += 1` rebinds a Python float.

use super::index::reaches;
use super::plan::ShapeCheck;
use super::plan::Source;
use super::weak::weak_expr;
use super::{with_trace, Operand, Sym, Trace, Ufunc, Val};
use crate::math::ufuncs;
use cupy_core::error::Error;
use cupy_core::kernel::ir::{Expr, ExprKind};
use cupy_core::kernel::math::Bind;
use cupy_core::promote::{can_cast_same_kind, WeakScalar};
use cupy_core::scalar::Scalar;
use std::collections::HashMap;

/// The casting rule of a write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Casting {
    /// `out=` and in-place ufuncs (NumPy's default for ufuncs).
    SameKind,
    /// `x[...] = value` (NumPy's assignment casts unsafely).
    Unsafe,
}

impl Sym {
    /// Applies ufunc `u` with NumPy's `out=` (`cupy.add(x, y, out=z)` in a fused function):
    /// one slot per output of `u` (`None`: a new value), or none at all. Each given `Sym`
    /// takes its result (cast under the `same_kind` rule, keeping its own shape) and is
    /// returned in its place. An array argument given as `out` is written in place when the
    /// function runs.
    ///
    /// Errors surface when the fused function runs: a cast that is not `same_kind`
    /// (`TypeError`), a result of a larger shape than the `out` value (`ShapeMismatch`, NumPy's
    /// "non-broadcastable output operand"), a wrong number of `out` slots, or a scalar as
    /// `out`.
    pub fn ufunc_out(u: &Ufunc, args: &[Operand], out: &[Option<Sym>]) -> Vec<Sym> {
        let res = Sym::ufunc(u, args);
        if out.is_empty() {
            return res;
        }
        if out.len() != res.len() {
            let e = Error::invalid(
                u.name(),
                format!(
                    "has {} outputs, but out= has {} entries",
                    res.len(),
                    out.len()
                ),
            );
            for o in out.iter().flatten() {
                o.store(Err(e.clone()));
            }
            return res.iter().map(|_| Sym::failed(e.clone())).collect();
        }
        res.into_iter()
            .zip(out)
            .map(|(r, o)| match o {
                Some(o) => {
                    o.write(r.into(), u.name(), Casting::SameKind);
                    *o
                }
                None => r,
            })
            .collect()
    }

    /// CuPy's `x[...] = value` (and `x[:] = value`): every element of `x` takes `value` (a
    /// `Sym`, a Rust number or a typed `Scalar`), broadcast to `x`'s shape and cast to its
    /// dtype as NumPy's assignment casts (unsafely: `1.5` into an int32 `x` is 1; a Rust
    /// integer out of the dtype's range is an error). On an array argument the assignment is
    /// written into it when the function runs. A `value` of a larger shape than `x` is a
    /// `ShapeMismatch` error when the function runs.
    pub fn assign(self, value: impl Into<Operand>) {
        self.write(value.into(), "assign", Casting::Unsafe);
    }

    /// CuPy's `out=` of a reduction in a fused function (`cupy.sum(x, axis=0, out=z)`):
    /// `reduced`, the result of a reduction method (`x.sum_axis(0)`, `x.max_with(..)`), is
    /// written into `out` and `out` is returned in its place. The result is cast under NumPy's
    /// `same_kind` rule (a float sum into an int32 `out` is a `TypeError`), and an `out` whose
    /// shape is not the result's (NumPy does not broadcast a reduction's result into `out`) is
    /// a `ShapeMismatch`, when the function runs. An array argument
    /// given as `out` is written in place: by the reduction kernel itself when `out` is
    /// C-contiguous, of the result's dtype and shape, and read by nothing else in the function
    /// (one kernel for `sum(x, out=z)`; use the reduction's own result for later work),
    /// otherwise by the kernel of the outputs of its shape.
    pub fn reduce_out(reduced: Sym, out: Sym) -> Sym {
        let is_reduction = with_trace(|t| match reduced.get(t) {
            Val::Strong(e) => match e.kind {
                ExprKind::Input(k) if k >= t.n_arrays => {
                    matches!(t.sources.get(k - t.n_arrays), Some(Source::Reduce(_)))
                }
                _ => false,
            },
            Val::Failed(_) => true,
            Val::Weak(..) => false,
        })
        .unwrap_or(true);
        if !is_reduction {
            let e = Error::invalid(
                "reduce_out",
                "fuse: the value written with reduce_out must be a reduction's result \
                 (use ufunc_out or assign for other values)",
            );
            out.store(Err(e.clone()));
            return Sym::failed(e);
        }
        out.write(
            reduced.into(),
            super::plan::REDUCTION_OUT,
            Casting::SameKind,
        );
        // Recorded so the plan can let the reduction kernel write the argument itself.
        with_trace(|t| {
            let (Val::Strong(r), Val::Strong(after)) = (reduced.get(t), out.get(t)) else {
                return;
            };
            let (ExprKind::Input(k), Some(&Some(arg))) =
                (r.kind, t.arg_inputs.get(out.id as usize))
            else {
                return;
            };
            if out.trace == t.id {
                t.reduce_outs.push((arg, k - t.n_arrays, after));
            }
        });
        out
    }

    /// A value that is the error `e`.
    fn failed(e: Error) -> Sym {
        with_trace(|t| Sym::push(t, Val::Failed(e))).unwrap_or(Sym { trace: 0, id: 0 })
    }

    /// Writes `value` into this variable (`op` names the write in errors).
    fn write(self, value: Operand, op: &str, casting: Casting) {
        let new = with_trace(|t| write_val(t, self, value, op, casting));
        if let Some(v) = new {
            self.store(v);
        }
    }

    /// Makes `v` this variable's value; an array argument is marked written.
    fn store(self, v: std::result::Result<Val, Error>) {
        with_trace(|t| {
            if self.trace != t.id {
                return;
            }
            let id = self.id as usize;
            if let Some(&Some(k)) = t.arg_inputs.get(id) {
                if !t.written.contains(&k) {
                    t.written.push(k);
                }
            }
            t.vals[id] = v.unwrap_or_else(Val::Failed);
        });
    }

    /// `self = u(self, rhs)` in place (an array) or rebound (a scalar).
    fn update(&mut self, u: &Ufunc, rhs: Operand) {
        let me = *self;
        let array = with_trace(|t| match me.get(t) {
            Val::Strong(_) => match t.arg_inputs.get(me.id as usize) {
                Some(arg) => arg.is_some(),
                None => true,
            },
            _ => false,
        })
        .unwrap_or(false);
        if array {
            Sym::ufunc_out(u, &[me.into(), rhs], &[Some(me)]);
        } else {
            *self = Sym::apply(u, &[me.into(), rhs]);
        }
    }
}

/// The value `target` has after the write of `value`.
fn write_val(
    t: &mut Trace,
    target: Sym,
    value: Operand,
    op: &str,
    casting: Casting,
) -> std::result::Result<Val, Error> {
    let tgt = match target.get(t) {
        Val::Strong(e) => e,
        Val::Weak(..) => {
            return Err(Error::invalid(
                op,
                "fuse: a scalar cannot be written in place (out= and x[...] = need an array)",
            ))
        }
        Val::Failed(e) => return Err(e),
    };
    let ty = tgt.ty;
    let v = match value {
        Operand::Sym(s) => s.get(t),
        Operand::Weak(w) => Val::Weak(w, None),
        Operand::Typed(s) => Val::Strong(Expr::constant(s)),
    };
    let e = match v {
        Val::Failed(e) => return Err(e),
        Val::Strong(e) => {
            if casting == Casting::SameKind && !can_cast_same_kind(e.ty, ty) {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![e.ty, ty],
                    msg: format!(
                        "cannot cast ufunc '{op}' output from {} to {ty} with casting rule 'same_kind'",
                        e.ty
                    ),
                });
            }
            t.checks.push(ShapeCheck {
                op: op.into(),
                target: tgt.clone(),
                value: e.clone(),
            });
            e.cast(ty)
        }
        // A Python scalar is converted to the target's dtype: range-checked into an integer
        // one, else through its own Python type.
        Val::Weak(w, src) => match w {
            WeakScalar::Int(_) | WeakScalar::Bool(_) if ty.is_integer() || ty.is_bool() => {
                weak_expr(t, op, w, src, ty)?
            }
            _ => weak_expr(t, op, w, src, w.default_dtype())?.cast(ty),
        },
    };
    // The value keeps the target's shape: when it reads fewer inputs (a scalar, a smaller
    // array broadcast), it is selected against the target so the inputs that give the shape
    // stay.
    let (mut tin, mut vin) = (vec![], vec![]);
    reaches(t, &tgt, &mut HashMap::new(), &mut tin);
    reaches(t, &e, &mut HashMap::new(), &mut vin);
    let e = if tin.iter().all(|k| vin.contains(k)) {
        e
    } else {
        Expr::select(Expr::constant(Scalar::Bool(true)), e, tgt)
    };
    Ok(Val::Strong(t.lets.bind(e)))
}

macro_rules! sym_assign_ops {
    ($($tr:ident $m:ident => $u:ident),*) => {$(
        /// In place, as NumPy's in-place operator (the ufunc with `out=` the left operand):
        /// see [`Sym::ufunc_out`].
        impl<R: Into<Operand>> std::ops::$tr<R> for Sym {
            fn $m(&mut self, rhs: R) {
                self.update(&ufuncs::$u, rhs.into())
            }
        }
    )*};
}
sym_assign_ops!(
    AddAssign add_assign => add, SubAssign sub_assign => subtract,
    MulAssign mul_assign => multiply, DivAssign div_assign => true_divide,
    RemAssign rem_assign => remainder, BitAndAssign bitand_assign => bitwise_and,
    BitOrAssign bitor_assign => bitwise_or, BitXorAssign bitxor_assign => bitwise_xor,
    ShlAssign shl_assign => left_shift, ShrAssign shr_assign => right_shift
);
