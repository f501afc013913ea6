//! `cupy.fuse`: a closure over symbolic arrays, traced into one IR kernel so a chain of
//! elementwise ops (and an optional final reduction) reads and writes memory once.
//!
//! ```
//! use cupy::{fuse, Sym};
//! # fn main() -> cupy::Result<()> {
//! let x = cupy::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
//! let y = cupy::from_slice(&[0.5f32, 0.5, 0.5], &[3])?;
//! let f = fuse(|x: Sym, y: Sym| (x - y) * (x - y) + x.sin());
//! let z = f.call(&[(&x).into(), (&y).into()])?;
//! assert_eq!(z.dtype(), cupy::DType::Float32);
//! let total = fuse(|x: Sym, y: Sym| ((x - y) * (x - y)).sum());
//! assert_eq!(total.call(&[(&x).into(), (&y).into()])?.to_vec::<f32>()?, vec![8.75]);
//! # Ok(()) }
//! ```
//!
//! Tracing follows the array API exactly: every op on a [`Sym`] resolves its loop with the same
//! NumPy rules (NEP 50 weak scalars, [`Ufunc::loop_types`]) and the same IR bodies
//! ([`Ufunc::body`]) as the op on arrays, so a fused function returns what the unfused chain
//! returns, in one kernel. Rust numbers in the closure (`x * 2.0`) are weak scalars baked into
//! the kernel; scalar *arguments* of `call` become kernel parameters.
//!
//! A reduction (`sum`, `prod`, `max`, `min`, `mean`, ...) becomes one reduction kernel whose
//! `map` is the elementwise work before it; the work after reductions is one elementwise kernel
//! per output shape that reads the reduced values (see [`Fused::kernel_count`]). Values are
//! shared: every traced op is a kernel local.

use crate::array::Array;
use crate::math::resolve::LoopOperand;
use crate::math::ufunc::{Arg, Ufunc};
use crate::math::ufuncs;
use crate::statistics::reduction::{Axes, Reduce, Reduction};

mod plan;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, ExprKind, Kernel};
use cupy_core::kernel::math::{Bind, Lets};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;
pub use plan::FusedKernel;
use plan::{Stage, Traced};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// A symbolic array inside a [`fuse`] closure. Cheap to copy; only valid during its trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sym {
    trace: u32,
    id: u32,
}

#[derive(Clone, Debug)]
enum Val {
    /// A typed value: an expression over the trace's inputs (the array arguments, then the
    /// results of its reductions, see [`Trace::stages`]), parameters and the locals of
    /// [`Trace::lets`]. Every op's result is bound to a local, so reusing a value shares it.
    Strong(Expr),
    /// A weak scalar: a Rust number in the closure (`None`), a scalar argument of `call`
    /// (`Some(arg number)`) or an op among weak scalars that involves an argument
    /// (`Some(number of arguments + its index in Trace::derived)`), typed at each use by
    /// promotion. The value is the one at trace time (for an argument, the first call's).
    Weak(WeakScalar, Option<usize>),
    /// The first error of the chain.
    Failed(Error),
}

struct Trace {
    id: u32,
    vals: Vec<Val>,
    /// Kernel parameters: (weak source, dtype); the index is the parameter number. A source
    /// below `n_args` is that argument, above it an entry of `derived`.
    param_slots: Vec<(usize, DType)>,
    /// Shared values of the ufunc bodies traced so far, as kernel locals.
    lets: Lets,
    /// Number of arguments of the traced call.
    n_args: usize,
    /// Weak scalars computed from scalar arguments (see [`weak_op`]): expressions in their
    /// Python dtype over `Param(source)` (each source in its own Python dtype), evaluated on
    /// the host per call.
    derived: Vec<Expr>,
    /// Number of array arguments: `Input(k)` below it is array argument `k`, above it the
    /// result of reduction `stages[k - n_arrays]`.
    n_arrays: usize,
    /// The reductions traced so far, in order.
    stages: Vec<Stage>,
}

/// The weak scalar a value computed among weak scalars is (NumPy 2: an op of Python scalars
/// gives a Python scalar of the result's kind).
fn weak_of(v: Scalar) -> WeakScalar {
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
fn weak_op(t: &mut Trace, u: &Ufunc, vals: &[Val], types: (DType, DType, DType)) -> Result<Val> {
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
    let value = super::eval_host(op, vec![u.inline_body(op, c, now)?.cast(o)])?[0];
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
fn derived_values(op: &str, derived: &[Expr], args: &[Arg<'_>]) -> Result<Vec<Scalar>> {
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
    super::eval_host(op, full)
}

/// The expression of a weak scalar used at dtype `dt`: a constant for a Rust number in the
/// closure, a parameter (one per argument and dtype) for a scalar argument of `call`.
fn weak_expr(
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

thread_local! {
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}
static NEXT_TRACE: AtomicU32 = AtomicU32::new(1);

fn with_trace<R>(f: impl FnOnce(&mut Trace) -> R) -> Option<R> {
    TRACE.with(|t| t.borrow_mut().as_mut().map(f))
}

impl Sym {
    fn push(trace: &mut Trace, v: Val) -> Sym {
        trace.vals.push(v);
        Sym {
            trace: trace.id,
            id: (trace.vals.len() - 1) as u32,
        }
    }

    fn get(self, trace: &Trace) -> Val {
        if self.trace != trace.id {
            return Val::Failed(Error::invalid(
                "fuse",
                "a Sym was used outside the trace that created it",
            ));
        }
        trace.vals[self.id as usize].clone()
    }

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
                    "fuse: a fused reduction takes no out= (the fused function returns the result)",
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
                            t.stages.push(Stage {
                                map,
                                r,
                                axes: opts.axis,
                                keepdims: opts.keepdims,
                                dtype: opts.dtype,
                                ddof: opts.ddof,
                                out: rk.output,
                            });
                            Val::Strong(Expr::input(t.n_arrays + t.stages.len() - 1, rk.output))
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

fn apply_in(t: &mut Trace, u: &Ufunc, args: &[Operand]) -> Result<Vec<Val>> {
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

/// What a [`fuse`] closure returns: one [`Sym`], a tuple of up to four (several outputs, as a
/// CuPy fused function that returns a tuple), or a `Vec<Sym>`.
pub trait FuseOutput {
    /// The outputs, in order.
    fn syms(self) -> Vec<Sym>;
}

impl FuseOutput for Sym {
    fn syms(self) -> Vec<Sym> {
        vec![self]
    }
}

impl FuseOutput for Vec<Sym> {
    fn syms(self) -> Vec<Sym> {
        self
    }
}

macro_rules! fuse_output_tuple {
    ($(($($v:ident),*)),*) => {$(
        impl FuseOutput for ($(fuse_output_tuple!(@sym $v),)*) {
            fn syms(self) -> Vec<Sym> {
                let ($($v,)*) = self;
                vec![$($v),*]
            }
        }
    )*};
    (@sym $v:ident) => { Sym };
}
fuse_output_tuple!((a, b), (a, b, c), (a, b, c, d));

/// A closure that [`fuse`] can trace: `Fn(Sym, ..) -> R` with 1 to 6 arguments, or
/// `Fn(&[Sym]) -> R` for any number, where `R` is a [`FuseOutput`]. `M` only tells the arities
/// apart.
pub trait FuseFn<M>: Send + Sync {
    /// Number of arguments (`None`: any).
    fn arity(&self) -> Option<usize>;
    /// Runs the closure on `args`; its outputs.
    fn trace(&self, args: &[Sym]) -> Vec<Sym>;
}

impl<R: FuseOutput, F: Fn(&[Sym]) -> R + Send + Sync> FuseFn<(&[Sym], R)> for F {
    fn arity(&self) -> Option<usize> {
        None
    }
    fn trace(&self, args: &[Sym]) -> Vec<Sym> {
        self(args).syms()
    }
}

macro_rules! fuse_arity {
    ($($n:literal: ($($a:ident),*)),*) => {$(
        impl<R: FuseOutput, F: Fn($($a),*) -> R + Send + Sync> FuseFn<(($($a,)*), R)> for F {
            fn arity(&self) -> Option<usize> {
                Some($n)
            }
            fn trace(&self, args: &[Sym]) -> Vec<Sym> {
                let mut it = args.iter().copied();
                self($({ let _: Option<$a> = None; it.next().expect("arity checked") }),*).syms()
            }
        }
    )*};
}
fuse_arity!(
    1: (Sym),
    2: (Sym, Sym),
    3: (Sym, Sym, Sym),
    4: (Sym, Sym, Sym, Sym),
    5: (Sym, Sym, Sym, Sym, Sym),
    6: (Sym, Sym, Sym, Sym, Sym, Sym)
);

/// A fused function: [`fuse`]'s result. Traced per distinct argument signature (dtypes and
/// which arguments are arrays/scalars); the traced program is cached here (see
/// [`Fused::clear_cache`]) and each of its kernels compiled once per device by the backend's
/// kernel cache.
pub struct Fused<M, F: FuseFn<M>> {
    f: F,
    name: String,
    cache: Mutex<HashMap<Vec<Signature>, Traced>>,
    _m: std::marker::PhantomData<fn() -> M>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Signature {
    Array(DType),
    Typed(DType),
    Weak(u8),
}

/// Traces `f` (a closure over [`Sym`]s) into as few kernels as its data dependencies allow, as
/// `cupy.fuse` does: elementwise work is one kernel; each reduction is one reduction kernel
/// (its map is the elementwise work before it), and the work after a reduction
/// (`x / x.sum()`) is one more elementwise kernel that reads the reduced values.
///
/// Annotate the closure's parameters (`|x: Sym, y: Sym| ...`) so Rust can pick its arity.
/// The result's [`Fused::call`] takes the arguments as [`Arg`]s (arrays broadcast together,
/// scalars weak as in NumPy 2) and returns one array; [`Fused::call_multi`] returns every
/// output of a closure that returns a tuple.
pub fn fuse<M, F: FuseFn<M>>(f: F) -> Fused<M, F> {
    Fused {
        f,
        name: "fused".into(),
        cache: Mutex::new(HashMap::new()),
        _m: std::marker::PhantomData,
    }
}
routine!(fuse, CustomKernels, notes: "closures over Sym; work after reductions; tuple outputs");

impl<M, F: FuseFn<M>> Fused<M, F> {
    /// Names the kernels (a C identifier: letters, digits, `_`), for messages and profiles.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `name` is not an identifier.
    pub fn with_name(mut self, name: &str) -> Result<Self> {
        super::check_identifier("fuse", name)?;
        self.name = name.into();
        Ok(self)
    }

    /// Forgets the traced programs (CuPy's `clear_cache`): the next call traces the closure
    /// again. Compiled kernels stay in the backends' caches, keyed by their IR.
    pub fn clear_cache(&self) {
        self.cache.lock().expect("fuse cache").clear();
    }

    /// Number of traced signatures cached now.
    pub fn cache_len(&self) -> usize {
        self.cache.lock().expect("fuse cache").len()
    }

    fn traced(&self, args: &[Arg<'_>]) -> Result<Traced> {
        let sig: Vec<Signature> = args
            .iter()
            .map(|a| match a {
                Arg::Array(x) => Signature::Array(x.dtype()),
                Arg::Typed(s) => Signature::Typed(s.dtype()),
                Arg::Weak(w) => Signature::Weak(match w {
                    WeakScalar::Bool(_) => 0,
                    WeakScalar::Int(_) => 1,
                    WeakScalar::Float(_) => 2,
                    WeakScalar::Complex(_) => 3,
                }),
            })
            .collect();
        if let Some(t) = self.cache.lock().expect("fuse cache").get(&sig) {
            return Ok(t.clone());
        }
        let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
        let mut trace = Trace {
            id,
            vals: vec![],
            param_slots: vec![],
            lets: Lets::default(),
            n_args: args.len(),
            derived: vec![],
            n_arrays: args.iter().filter(|a| matches!(a, Arg::Array(_))).count(),
            stages: vec![],
        };
        let mut syms = Vec::with_capacity(args.len());
        let mut n_inputs = 0;
        for (k, a) in args.iter().enumerate() {
            let v = match a {
                Arg::Array(x) => {
                    n_inputs += 1;
                    Val::Strong(Expr::input(n_inputs - 1, x.dtype()))
                }
                Arg::Typed(s) => {
                    trace.param_slots.push((k, s.dtype()));
                    Val::Strong(Expr::param(trace.param_slots.len() - 1, s.dtype()))
                }
                // Typed per use (promotion), as a parameter: the value is set per call.
                Arg::Weak(w) => Val::Weak(*w, Some(k)),
            };
            syms.push(Sym::push(&mut trace, v));
        }
        let prev = TRACE.with(|t| t.borrow_mut().replace(trace));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.f.trace(&syms)));
        let trace = TRACE
            .with(|t| std::mem::replace(&mut *t.borrow_mut(), prev))
            .expect("trace installed above");
        let out = out.map_err(|_| Error::invalid("fuse", "the fused closure panicked"))?;
        if out.is_empty() {
            return Err(Error::invalid(
                &self.name,
                "the fused function has no output",
            ));
        }
        let mut outputs = Vec::with_capacity(out.len());
        for s in out {
            match s.get(&trace) {
                Val::Strong(e) => outputs.push(e),
                Val::Weak(..) => {
                    return Err(Error::invalid(
                        &self.name,
                        "the fused function returned a scalar, not an array expression",
                    ))
                }
                Val::Failed(e) => return Err(e),
            }
        }
        let traced = Traced {
            outputs,
            stages: trace.stages,
            n_arrays: trace.n_arrays,
            param_slots: trace.param_slots,
            lets: trace.lets,
            derived: trace.derived,
        };
        self.cache
            .lock()
            .expect("fuse cache")
            .insert(sig, traced.clone());
        Ok(traced)
    }

    /// The kernels one call with these arguments runs, in order (a reduction is one entry, run
    /// by the backend's reduction launcher). For inspection and ahead-of-time compilation.
    ///
    /// # Errors
    /// As [`Fused::call`].
    pub fn kernels(&self, args: &[Arg<'_>]) -> Result<Vec<FusedKernel>> {
        let (plan, _) = self.plan(args)?;
        Ok(plan.steps.into_iter().map(|s| s.kernel).collect())
    }

    /// The number of kernels one call with these arguments runs (`x / x.sum()`: 2, a reduction
    /// and the division; an elementwise chain: 1).
    ///
    /// # Errors
    /// As [`Fused::call`].
    pub fn kernel_count(&self, args: &[Arg<'_>]) -> Result<usize> {
        Ok(self.plan(args)?.0.steps.len())
    }

    /// The traced IR of a function that runs as one kernel: `Ok(Err(kernel))` for an
    /// elementwise result, `Ok(Ok(reduce_kernel))` for one reduction (its `map` is the fused
    /// expression).
    ///
    /// # Errors
    /// As [`Fused::call`]; [`Error::InvalidArgument`] when it runs several kernels (see
    /// [`Fused::kernels`]).
    pub fn ir(
        &self,
        args: &[Arg<'_>],
    ) -> Result<std::result::Result<cupy_core::kernel::ir::ReduceKernel, Kernel>> {
        let mut ks = self.kernels(args)?;
        if ks.len() != 1 {
            return Err(Error::invalid(
                &self.name,
                format!(
                    "the fused function runs {} kernels; see Fused::kernels",
                    ks.len()
                ),
            ));
        }
        Ok(match ks.remove(0) {
            FusedKernel::Elementwise(k) => Err(k),
            FusedKernel::Reduction(k) => Ok(k),
        })
    }

    fn plan(&self, args: &[Arg<'_>]) -> Result<(plan::Plan, Vec<Scalar>)> {
        let op = self.name.as_str();
        if let Some(n) = self.f.arity() {
            if n != args.len() {
                return Err(Error::invalid(
                    op,
                    format!("the fused function takes {n} arguments, got {}", args.len()),
                ));
            }
        }
        if !args.iter().any(|a| matches!(a, Arg::Array(_))) {
            return Err(Error::invalid(
                op,
                "a fused function needs an array argument",
            ));
        }
        let traced = self.traced(args)?;
        // Parameter values for this call.
        let derived = if traced.derived.is_empty() {
            vec![]
        } else {
            derived_values(op, &traced.derived, args)?
        };
        let mut params = Vec::with_capacity(traced.param_slots.len());
        for &(k, dt) in &traced.param_slots {
            params.push(match args.get(k) {
                Some(Arg::Typed(s)) => *s,
                Some(Arg::Weak(w)) => w.to_scalar(op, dt)?,
                Some(Arg::Array(_)) => unreachable!("array arguments are inputs"),
                None => weak_of(derived[k - args.len()]).to_scalar(op, dt)?,
            });
        }
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        Ok((plan::Plan::new(op, &traced, &arrays)?, params))
    }

    /// Runs the fused function on `args` (arrays, and Rust numbers as weak scalars); its one
    /// output.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong argument count, no array argument, a closure
    /// that returns a scalar, or one with several outputs (use [`Fused::call_multi`]); the
    /// errors of the ops it traces (type errors, shape mismatches, dtype refusals) as the
    /// unfused ops would give them.
    pub fn call(&self, args: &[Arg<'_>]) -> Result<Array> {
        let mut outs = self.call_multi(args)?;
        if outs.len() != 1 {
            return Err(Error::invalid(
                &self.name,
                format!(
                    "the fused function returns {} arrays; use call_multi",
                    outs.len()
                ),
            ));
        }
        Ok(outs.remove(0))
    }

    /// Runs the fused function on `args`; every output, in the closure's order.
    ///
    /// # Errors
    /// As [`Fused::call`].
    pub fn call_multi(&self, args: &[Arg<'_>]) -> Result<Vec<Array>> {
        let (plan, params) = self.plan(args)?;
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        plan.run(&self.name, &arrays, params)
    }
}
