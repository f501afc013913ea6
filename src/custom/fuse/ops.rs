//! Symbolic ops: ufuncs (NumPy's loop selection, the ufunc's IR body), reductions, casts, the
//! operators on [`Sym`], and `where`.

use super::weak::{weak_expr, weak_op};
use super::{with_trace, Reduce, Reduction, Source, Stage, Sym, Trace, Ufunc, Val};
use crate::math::resolve::LoopOperand;
use crate::math::ufuncs;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::Expr;
use cupy_core::kernel::math::Bind;
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

impl Sym {
    /// Applies ufunc `u` symbolically (NumPy's loop selection, the ufunc's IR body).
    pub(crate) fn apply(u: &Ufunc, args: &[Operand]) -> Sym {
        Sym::ufunc(u, args).remove(0)
    }

    /// Applies any ufunc of the table (`cupy::math::all_ufuncs()`, `cupy::ufuncs::add`)
    /// symbolically, with NumPy's loop selection and the ufunc's IR body: its outputs, one per
    /// `u.nout()` (two for `divmod`, `modf`, `frexp`). Operands are [`Sym`]s, Rust numbers or
    /// typed [`Scalar`]s. A wrong operand count makes the fused function return an error.
    pub fn ufunc(u: &Ufunc, args: &[Operand]) -> Vec<Sym> {
        let n = u.nout().max(1);
        with_trace(|t| {
            let vals = if args.len() != u.nin() {
                Err(Error::invalid(
                    u.name(),
                    format!("takes {} operands, got {}", u.nin(), args.len()),
                ))
            } else {
                apply_in(t, u, args)
            };
            match vals {
                Ok(v) => v.into_iter().map(|v| Sym::push(t, v)).collect(),
                Err(e) => (0..n)
                    .map(|_| Sym::push(t, Val::Failed(e.clone())))
                    .collect(),
            }
        })
        .unwrap_or_else(|| vec![Sym { trace: 0, id: 0 }; n])
    }

    pub(crate) fn reduce(self, r: Reduction, opts: Reduce) -> Sym {
        with_trace(|t| {
            let v = match self.get(t) {
                Val::Strong(_) if opts.out.is_some() => Val::Failed(Error::invalid(
                    r.name(),
                    "fuse: a fused reduction takes no Reduce::out array (write the result into a fused argument with Sym::reduce_out)",
                )),
                Val::Strong(_) if r.check.is_some() => Val::Failed(Error::invalid(
                    r.name(),
                    "fuse: this reduction checks its input's values first (NumPy's all-NaN error), so it is not fused; call it on an array",
                )),
                Val::Strong(_) if opts.initial.is_some() || opts.where_.is_some() => {
                    Val::Failed(Error::invalid(
                        r.name(),
                        "fuse: a fused reduction takes no initial= or where= (apply them to the fused function's inputs)",
                    ))
                }
                Val::Strong(map) => {
                    let ropts = Reduce {
                        dtype: opts.dtype,
                        ddof: opts.ddof,
                        ..Default::default()
                    };
                    match r.kernel_with(map.ty, &ropts, 1) {
                        Ok((rk, _)) => {
                            let st = Stage {
                                map,
                                r,
                                axes: opts.axis,
                                keepdims: opts.keepdims,
                                dtype: opts.dtype,
                                ddof: opts.ddof,
                                out: rk.output,
                            };
                            Val::Strong(t.push_source(Source::Reduce(st), rk.output))
                        }
                        Err(e) => Val::Failed(e),
                    }
                }
                Val::Weak(..) => Val::Failed(Error::invalid(
                    r.name(),
                    "fuse: a reduction needs an array operand, not a scalar",
                )),
                f @ Val::Failed(_) => f,
            };
            Sym::push(t, v)
        })
        .unwrap_or(Sym { trace: 0, id: 0 })
    }

    /// The dtype of the value (`x.dtype` in CuPy's fused functions): an array's, or a weak
    /// scalar's Python type (float64, int64, complex128 or bool; it takes the other operand's
    /// type in an op). `None` outside a trace or for a value whose computation failed (the
    /// fused function then returns that error).
    pub fn dtype(self) -> Option<DType> {
        with_trace(|t| match self.get(t) {
            Val::Strong(e) => Some(e.ty),
            Val::Weak(w, _) => Some(w.default_dtype()),
            Val::Failed(_) => None,
        })
        .flatten()
    }

    /// `x.astype(dtype)` (an unsafe cast, as NumPy's default).
    pub fn astype(self, dtype: DType) -> Sym {
        with_trace(|t| {
            let v = match self.get(t) {
                Val::Strong(e) => Val::Strong(t.lets.bind(e.cast(dtype))),
                // A scalar argument's value is set per call (a parameter), a Rust number's now.
                Val::Weak(w, src) => match weak_expr(t, "astype", w, src, dtype) {
                    Ok(e) => Val::Strong(e),
                    Err(e) => Val::Failed(e),
                },
                f @ Val::Failed(_) => f,
            };
            Sym::push(t, v)
        })
        .unwrap_or(Sym { trace: 0, id: 0 })
    }
}

/// An operand of a symbolic op: a [`Sym`], a Rust number (weak, as a Python scalar) or a
/// typed [`Scalar`] (strong, as a NumPy scalar: `x_f16 * Scalar::Float32(2.0)` is float32).
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    /// A symbolic array.
    Sym(Sym),
    /// A weak scalar.
    Weak(WeakScalar),
    /// A typed constant.
    Typed(Scalar),
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Typed(s)
    }
}

impl From<Sym> for Operand {
    fn from(s: Sym) -> Operand {
        Operand::Sym(s)
    }
}
macro_rules! operand_from {
    ($($t:ty => $w:expr),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Operand {
                #[allow(clippy::redundant_closure_call)]
                Operand::Weak(($w)(v))
            }
        }
    )*};
}
operand_from!(
    f64 => WeakScalar::Float,
    f32 => |v: f32| WeakScalar::Float(v as f64),
    bool => WeakScalar::Bool,
    i32 => |v: i32| WeakScalar::Int(v as i128),
    i64 => |v: i64| WeakScalar::Int(v as i128),
    u32 => |v: u32| WeakScalar::Int(v as i128),
    u64 => |v: u64| WeakScalar::Int(v as i128),
    usize => |v: usize| WeakScalar::Int(v as i128)
);

pub(super) fn apply_in(t: &mut Trace, u: &Ufunc, args: &[Operand]) -> Result<Vec<Val>> {
    let op = u.name();
    let vals: Vec<Val> = args
        .iter()
        .map(|a| match a {
            Operand::Sym(s) => s.get(t),
            Operand::Weak(w) => Val::Weak(*w, None),
            Operand::Typed(v) => Val::Strong(Expr::constant(*v)),
        })
        .collect();
    let mut strong = vec![];
    let mut weak = vec![];
    for v in &vals {
        match v {
            Val::Strong(e) => strong.push(e.ty),
            Val::Weak(w, _) => weak.push(*w),
            Val::Failed(e) => return Err(e.clone()),
        }
    }
    let ops: Vec<LoopOperand> = vals
        .iter()
        .map(|v| match v {
            Val::Strong(e) => LoopOperand::Strong(e.ty),
            Val::Weak(w, _) => LoopOperand::Weak(*w),
            _ => unreachable!("filtered above"),
        })
        .collect();
    let lp = u.loop_for(&ops)?;
    if strong.is_empty() {
        if u.nout() != 1 {
            return Err(Error::invalid(
                op,
                "fuse: a ufunc of two outputs needs an array operand",
            ));
        }
        return Ok(vec![weak_op(
            t,
            u,
            &vals,
            (lp.params[0], lp.compute, lp.outputs[0]),
        )?]);
    }
    let mut exprs = Vec::with_capacity(vals.len());
    for (k, v) in vals.into_iter().enumerate() {
        exprs.push(match v {
            Val::Strong(e) => e.cast(lp.inputs[k]),
            Val::Weak(w, arg) => weak_expr(t, op, w, arg, lp.params[k])?.cast(lp.inputs[k]),
            _ => unreachable!("filtered above"),
        });
    }
    let exprs = lp.operands(&mut t.lets, exprs);
    let values = u.bodies(&mut t.lets, lp.compute, exprs);
    // Bound to locals: a reused value is shared, not copied (`s = s + s` stays linear).
    Ok(values
        .into_iter()
        .zip(&lp.outputs)
        .map(|(v, &o)| Val::Strong(t.lets.bind(v.cast(o))))
        .collect())
}

macro_rules! sym_operators {
    ($($tr:ident $m:ident => $u:ident),*) => {$(
        impl<R: Into<Operand>> std::ops::$tr<R> for Sym {
            type Output = Sym;
            fn $m(self, rhs: R) -> Sym {
                Sym::apply(&ufuncs::$u, &[self.into(), rhs.into()])
            }
        }
        sym_operators!(@lhs $tr $m $u: f64, f32, i32, i64, u32, u64, usize);
    )*};
    (@lhs $tr:ident $m:ident $u:ident: $($t:ty),*) => {$(
        impl std::ops::$tr<Sym> for $t {
            type Output = Sym;
            fn $m(self, rhs: Sym) -> Sym {
                Sym::apply(&ufuncs::$u, &[self.into(), rhs.into()])
            }
        }
    )*};
}
sym_operators!(
    Add add => add, Sub sub => subtract, Mul mul => multiply, Div div => true_divide,
    Rem rem => remainder, BitAnd bitand => bitwise_and, BitOr bitor => bitwise_or,
    BitXor bitxor => bitwise_xor, Shl shl => left_shift, Shr shr => right_shift
);

impl std::ops::Neg for Sym {
    type Output = Sym;
    fn neg(self) -> Sym {
        self.negative()
    }
}

/// `cupy.where`-like select inside a fused function: `cond ? x : y` with NumPy's promotion of
/// `x` and `y` (`cond` is converted to bool); [`crate::where_`] on a [`Sym`] condition.
pub(crate) fn where_sym(cond: Sym, x: impl Into<Operand>, y: impl Into<Operand>) -> Sym {
    let (x, y) = (x.into(), y.into());
    with_trace(|t| {
        let v = (|| -> Result<Val> {
            let c = match cond.get(t) {
                Val::Strong(e) => e.cast(DType::Bool),
                Val::Failed(e) => return Err(e),
                _ => {
                    return Err(Error::invalid(
                        "where",
                        "fuse: the condition must be an array",
                    ))
                }
            };
            // Promote x and y as `maximum` does (same rule: result of both).
            let a = apply_in(t, &ufuncs::add, &[x, y])?.remove(0);
            let ty = match a {
                Val::Strong(e) => e.ty,
                // Two weak scalars: their own (Python) type, as NumPy's `where(c, 1.0, 0)`.
                Val::Weak(w, _) => w.default_dtype(),
                _ => unreachable!("apply_in gives Strong or Weak"),
            };
            let mut side = |o: Operand| -> Result<Expr> {
                Ok(match o {
                    Operand::Sym(s) => match s.get(t) {
                        Val::Strong(e) => e.cast(ty),
                        Val::Weak(w, arg) => weak_expr(t, "where", w, arg, ty)?,
                        Val::Failed(e) => return Err(e),
                    },
                    Operand::Weak(w) => weak_expr(t, "where", w, None, ty)?,
                    Operand::Typed(v) => Expr::constant(v).cast(ty),
                })
            };
            let (ex, ey) = (side(x)?, side(y)?);
            Ok(Val::Strong(t.lets.bind(Expr::select(c, ex, ey))))
        })()
        .unwrap_or_else(Val::Failed);
        Sym::push(t, v)
    })
    .unwrap_or(Sym { trace: 0, id: 0 })
}
