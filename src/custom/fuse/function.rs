//! The fused function: the closure traits, tracing per argument signature, planning and
//! running its kernels.

use super::plan::{self, FusedKernel, Traced};
use super::weak::{derived_values, weak_of};
use super::{Sym, Trace, Val, NEXT_TRACE, TRACE};
use crate::array::Array;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::kernel::math::Lets;
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// What a [`fuse`] closure returns: one [`Sym`], a tuple of up to four (several outputs, as a
/// CuPy fused function that returns a tuple), a `Vec<Sym>`, or nothing (`()`, a function that
/// only writes its arguments in place).
pub trait FuseOutput {
    /// The outputs, in order.
    fn syms(self) -> Vec<Sym>;
}

impl FuseOutput for Sym {
    fn syms(self) -> Vec<Sym> {
        vec![self]
    }
}

/// A closure with no return value (it writes its arguments in place): `call_multi` returns no
/// arrays.
impl FuseOutput for () {
    fn syms(self) -> Vec<Sym> {
        vec![]
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
routine!(
    fuse,
    CustomKernels,
    notes: "closures over Sym; work after reductions; tuple outputs; in-place updates, assign, out=; newaxis indexing"
);

impl<M, F: FuseFn<M>> Fused<M, F> {
    /// Names the kernels (a C identifier: letters, digits, `_`), for messages and profiles.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `name` is not an identifier.
    pub fn with_name(mut self, name: &str) -> Result<Self> {
        crate::custom::check_identifier("fuse", name)?;
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
            sources: vec![],
            arg_inputs: vec![],
            written: vec![],
            checks: vec![],
            reduce_outs: vec![],
        };
        let mut syms = Vec::with_capacity(args.len());
        let mut n_inputs = 0;
        for (k, a) in args.iter().enumerate() {
            let v = match a {
                Arg::Array(x) => {
                    n_inputs += 1;
                    trace.arg_inputs.push(Some(n_inputs - 1));
                    Val::Strong(Expr::input(n_inputs - 1, x.dtype()))
                }
                Arg::Typed(s) => {
                    trace.arg_inputs.push(None);
                    trace.param_slots.push((k, s.dtype()));
                    Val::Strong(Expr::param(trace.param_slots.len() - 1, s.dtype()))
                }
                // Typed per use (promotion), as a parameter: the value is set per call.
                Arg::Weak(w) => {
                    trace.arg_inputs.push(None);
                    Val::Weak(*w, Some(k))
                }
            };
            syms.push(Sym::push(&mut trace, v));
        }
        let prev = TRACE.with(|t| t.borrow_mut().replace(trace));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.f.trace(&syms)));
        let trace = TRACE
            .with(|t| std::mem::replace(&mut *t.borrow_mut(), prev))
            .expect("trace installed above");
        let out = out.map_err(|_| Error::invalid("fuse", "the fused closure panicked"))?;
        // The arguments written in place: their values at the end of the trace.
        let mut writes = Vec::with_capacity(trace.written.len());
        for &k in &trace.written {
            let id = trace
                .arg_inputs
                .iter()
                .position(|&a| a == Some(k))
                .expect("a written input is an argument");
            match &trace.vals[id] {
                Val::Strong(e) => writes.push((k, e.clone())),
                Val::Failed(e) => return Err(e.clone()),
                Val::Weak(..) => unreachable!("array arguments stay arrays"),
            }
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
            writes,
            checks: trace.checks,
            reduce_outs: trace.reduce_outs,
            sources: trace.sources,
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
        Ok(plan.steps.into_iter().filter_map(|s| s.kernel).collect())
    }

    /// The number of kernels one call with these arguments runs (`x / x.sum()`: 2, a reduction
    /// and the division; an elementwise chain: 1).
    ///
    /// # Errors
    /// As [`Fused::call`].
    pub fn kernel_count(&self, args: &[Arg<'_>]) -> Result<usize> {
        Ok(self
            .plan(args)?
            .0
            .steps
            .iter()
            .filter(|s| s.kernel.is_some())
            .count())
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
    /// output. Array arguments the closure writes are written in place.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong argument count, no array argument, a closure
    /// that returns a scalar, or one with no or several outputs (use [`Fused::call_multi`]);
    /// an in-place write of a shape or dtype the argument cannot hold (NumPy's
    /// "non-broadcastable output operand", a cast that is not `same_kind`); the
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

    /// Runs the fused function on `args`; every output, in the closure's order (none for a
    /// closure with no return value). Array arguments the closure writes (`x += y`,
    /// `x.assign(v)`, [`Sym::ufunc_out`]) are written in place.
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
