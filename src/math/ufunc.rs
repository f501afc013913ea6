//! Ufuncs as declarations: a NumPy ufunc is a name, a type rule and an IR body, declared once
//! with [`ufuncs!`](crate::math) in its family's file (as CuPy's `create_ufunc` one-liners). From
//! the declaration come the [`Ufunc`] object (`cupy::ufuncs::sin`), the free function
//! (`cupy::sin(x)`), the method (`a.sin()`), the `fuse` method (`Sym::sin`) and the registry row,
//! so nothing is listed twice.

use super::resolve::LoopOperand;
use crate::array::Array;
use crate::launch::Elementwise;
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel, Stmt};
use cupy_core::kernel::math::{Bind, Inline, Lets, Measure};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;
use num_complex::Complex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The most nodes [`Ufunc::inline_body`] builds (a few MB of IR; the emitters walk it as a tree).
pub const INLINE_LIMIT: u128 = 20_000;

/// The IR of a ufunc over operands already cast to the loop's compute dtype (the `DType`
/// argument); values used twice go through the [`Bind`].
pub type Body = fn(&mut dyn Bind, DType, Vec<Expr>) -> Expr;

/// The IR of every output of a ufunc with more than one (`divmod`, `modf`, `frexp`), over the
/// same operands and binder as [`Body`].
pub type Bodies = fn(&mut dyn Bind, DType, Vec<Expr>) -> Vec<Expr>;

/// A NumPy ufunc: `cupy::ufuncs::add` is `numpy.add`. Made by the declarations in the family
/// files of [`crate::math`]; compared and hashed by name.
#[derive(Clone, Copy)]
pub struct Ufunc {
    pub(crate) name: &'static str,
    pub(crate) nin: usize,
    /// Number of outputs (1, or 2 for `divmod`, `modf`, `frexp`).
    pub(crate) nout: usize,
    pub(crate) rule: Rule,
    /// The first output's IR (for a two-output ufunc, the first of [`Ufunc::bodies`]).
    pub(crate) body: Body,
    /// Every output's IR, for a ufunc with more than one output.
    pub(crate) bodies: Option<Bodies>,
    pub(crate) family: &'static str,
    /// The Python module that names it: `"cupy"`, or `"cupyx.scipy.special"`.
    pub(crate) module: &'static str,
    pub(crate) doc: &'static str,
}

impl PartialEq for Ufunc {
    fn eq(&self, other: &Ufunc) -> bool {
        self.name == other.name
    }
}
impl Eq for Ufunc {}
impl std::hash::Hash for Ufunc {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h)
    }
}
impl std::fmt::Debug for Ufunc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<ufunc '{}'>", self.name)
    }
}

/// How a ufunc maps its (promoted) input dtype to the loop's compute and output dtypes: the
/// classes of NumPy's loop tables (`ff->f`, `??->?`, ...) that the declarations share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `T -> T` (bool allowed).
    Same,
    /// `T -> T`; complex gives its real dtype (`absolute`).
    Magnitude,
    /// `T -> T`, bool refused.
    SameNoBool,
    /// `T -> T`, bool computed as int8 (NumPy's `??->b` loops of power/square).
    SameBoolAsInt8,
    /// As [`Rule::SameBoolAsInt8`], complex refused (floor_divide, remainder, fmod).
    SameBoolAsInt8Real,
    /// Integers and bool go to the float that holds them; floats and complex stay.
    Float,
    /// As [`Rule::Float`], complex refused (NumPy has no complex loop).
    FloatReal,
    /// Division: integers and bool go to float64.
    TrueDivide,
    /// `T, T -> bool`.
    Compare,
    /// Inputs converted to bool, result bool.
    Logical,
    /// Integers and bool only.
    Bitwise,
    /// Integers only (shifts); bool computed as int8.
    Integer,
    /// Integers, bool computed as int8; the result is uint8 (`bitwise_count`).
    BitCount,
    /// `floor`/`ceil`/`trunc`: integers and bool are returned unchanged (NumPy 2), floats
    /// rounded, complex refused.
    Rounding,
    /// `T -> bool` predicate on floats (integers: constant).
    Predicate,
    /// `T -> bool` on real numbers only (`signbit`).
    PredicateReal,
    /// As [`Rule::FloatReal`], two outputs `(float, int32)` (`frexp`).
    Frexp,
    /// `ldexp`: the float loop of the first operand, an int32 or int64 exponent (resolved per
    /// operand, see [`Ufunc::loop_for`]).
    Ldexp,
    /// `float_power`: float64 at least, complex128 for complex.
    FloatPower,
    /// As [`Rule::FloatReal`], but float16/bfloat16 are computed in their own dtype (the body
    /// sees it, to step by its ulps: `nextafter`, `spacing`).
    FloatBits,
    /// Integers only, bool refused (`gcd`, `lcm`).
    IntegerNoBool,
    /// `angle`: complex gives its real dtype, bool float64, integers the float that holds them.
    Angle,
    /// `where(condition, x, y)`: the condition as bool, `x` and `y` promoted together.
    Where,
    /// `round`'s steps: floats in their own dtype (each step rounded to it, as NumPy's
    /// `multiply`, `rint`, `true_divide` calls), complex part by part; integers refused.
    Round,
    /// SciPy's special-function loops listed `f->f` first (`entr`, `huber`, ...): bool and
    /// integers go to the float that holds them, at least float32; float16 and bfloat16
    /// compute and return float32; float32 and float64 stay; complex refused.
    SpecialFloatFirst,
    /// SciPy's special-function loops listed `d->d` first (`expit`, `xlogy`, `erf`, ...):
    /// float32 operands alone keep float32 (its exact loop); anything else, bool, integers and
    /// float16 included, computes in float64 (NumPy's search takes the first loop it can cast
    /// to); complex refused.
    SpecialDoubleFirst,
}

/// The float dtype that holds a bool or integer dtype exactly (NumPy's loop choice).
fn float_of(d: DType) -> DType {
    match d.kind() {
        Kind::Bool | Kind::Int | Kind::UInt => match d.itemsize() {
            1 => DType::Float16,
            2 => DType::Float32,
            _ => DType::Float64,
        },
        _ => d,
    }
}

impl Ufunc {
    /// NumPy's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Number of inputs.
    pub fn nin(&self) -> usize {
        self.nin
    }

    /// Number of outputs (NumPy's `nout`: 2 for `divmod`, `modf`, `frexp`).
    pub fn nout(&self) -> usize {
        self.nout
    }

    /// The Python module that names it (`"cupy"`, or `"cupyx.scipy.special"` for the
    /// functions of [`crate::scipy::special`]).
    pub fn module(&self) -> &'static str {
        self.module
    }

    /// The family (the file of [`crate::math`] that declares it, as NumPy's docs group them).
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// The first line of its documentation.
    pub fn doc(&self) -> &'static str {
        self.doc
    }

    /// The type rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Resolves the loop for a promoted input dtype: `(compute dtype, output dtype)`.
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop (e.g. `subtract` on bool, `arctan2` on
    /// complex, bitwise ops on floats).
    pub fn resolve(&self, t: DType) -> Result<(DType, DType)> {
        let no_loop = |msg: String| Error::TypeError {
            op: self.name.into(),
            dtypes: vec![t],
            msg,
        };
        let no_complex = || {
            no_loop(format!(
                "ufunc '{}' is not defined for complex numbers (NumPy has no {t} loop)",
                self.name
            ))
        };
        Ok(match self.rule {
            Rule::Same => (t, t),
            Rule::Magnitude => (t, if t.is_complex() { t.real_dtype() } else { t }),
            Rule::SameNoBool => {
                if t.is_bool() {
                    return Err(no_loop(format!(
                        "numpy boolean {} is not supported; use logical_xor/logical_not",
                        self.name
                    )));
                }
                (t, t)
            }
            Rule::SameBoolAsInt8 | Rule::SameBoolAsInt8Real => {
                if t.is_complex() && self.rule == Rule::SameBoolAsInt8Real {
                    return Err(no_complex());
                }
                let c = if t.is_bool() { DType::Int8 } else { t };
                (c, c)
            }
            Rule::Float | Rule::FloatReal | Rule::Frexp | Rule::Ldexp | Rule::FloatBits => {
                if t.is_complex() && self.rule != Rule::Float {
                    return Err(no_complex());
                }
                let c = float_of(t);
                (c, c)
            }
            Rule::SpecialFloatFirst | Rule::SpecialDoubleFirst => {
                if t.is_complex() {
                    return Err(no_complex());
                }
                let c = match (self.rule, float_of(t)) {
                    (Rule::SpecialDoubleFirst, DType::Float32) if t == DType::Float32 => t,
                    (Rule::SpecialDoubleFirst, _) => DType::Float64,
                    (_, DType::Float16 | DType::BFloat16) => DType::Float32,
                    (_, c) => c,
                };
                (c, c)
            }
            Rule::TrueDivide => {
                let c = if t.is_integer() || t.is_bool() {
                    DType::Float64
                } else {
                    t
                };
                (c, c)
            }
            Rule::Compare => (t, DType::Bool),
            Rule::Logical => (DType::Bool, DType::Bool),
            Rule::Bitwise => {
                if !(t.is_integer() || t.is_bool()) {
                    return Err(no_loop(format!(
                        "ufunc '{}' needs integer or bool operands",
                        self.name
                    )));
                }
                (t, t)
            }
            Rule::Integer | Rule::BitCount => {
                if !t.is_integer() && !t.is_bool() {
                    return Err(no_loop(format!(
                        "ufunc '{}' needs integer operands (NumPy has no {t} loop)",
                        self.name
                    )));
                }
                // bool is computed as int8; bitwise_count's result is uint8 (its loops b->B ...).
                let c = if t.is_bool() { DType::Int8 } else { t };
                (
                    c,
                    if self.rule == Rule::BitCount {
                        DType::UInt8
                    } else {
                        c
                    },
                )
            }
            Rule::Rounding => {
                if t.is_complex() {
                    return Err(no_complex());
                }
                (t, t)
            }
            Rule::Predicate => (t, DType::Bool),
            Rule::PredicateReal => {
                if t.is_complex() {
                    return Err(no_complex());
                }
                (t, DType::Bool)
            }
            Rule::FloatPower => {
                let c = if t.is_complex() {
                    DType::Complex128
                } else {
                    DType::Float64
                };
                (c, c)
            }
            Rule::IntegerNoBool => {
                if !t.is_integer() {
                    return Err(no_loop(format!(
                        "ufunc '{}' needs integer operands (NumPy has no {t} loop)",
                        self.name
                    )));
                }
                (t, t)
            }
            Rule::Angle => match t {
                _ if t.is_complex() => (t, t.real_dtype()),
                DType::Bool => (DType::Float64, DType::Float64),
                _ => (float_of(t), float_of(t)),
            },
            Rule::Where => (t, t),
            Rule::Round => {
                if !t.is_inexact() {
                    return Err(no_loop(format!(
                        "'{}' steps need float or complex operands",
                        self.name
                    )));
                }
                (t, t)
            }
        })
    }

    /// NumPy's loop selection for operands of these strong dtypes and weak scalars (NEP 50):
    /// `(promoted dtype, compute dtype, first output dtype)`. Operand positions matter to a few
    /// loops (`ldexp`, `where`, exact integer comparisons): [`Ufunc::loop_for`] takes them in
    /// order; here the strong operands come first.
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop; [`Error::InvalidArgument`] with no operand.
    pub fn loop_types(
        &self,
        strong: &[DType],
        weak: &[WeakScalar],
    ) -> Result<(DType, DType, DType)> {
        let ops: Vec<LoopOperand> = strong
            .iter()
            .map(|&d| LoopOperand::Strong(d))
            .chain(weak.iter().map(|&w| LoopOperand::Weak(w)))
            .collect();
        let l = self.loop_for(&ops)?;
        Ok((l.params[0], l.compute, l.outputs[0]))
    }

    /// The IR body over operands already cast to the compute dtype `c`, with its shared values
    /// bound by `bind`.
    pub fn body(&self, bind: &mut dyn Bind, c: DType, args: Vec<Expr>) -> Expr {
        (self.body)(bind, c, args)
    }

    /// [`Ufunc::body`] with every value inlined (for single-expression IR slots: a reduction's
    /// combine, a fold step, a host-evaluated constant), or an [`Error::Unsupported`] when the
    /// inlined tree would pass [`INLINE_LIMIT`] nodes (`gcd`/`lcm` of 32- and 64-bit integers,
    /// `ldexp`, `nextafter`: their bodies reuse values many times).
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming `op` and the ufunc.
    pub fn inline_body(&self, op: &str, c: DType, args: Vec<Expr>) -> Result<Expr> {
        let mut m = Measure::default();
        let e = self.body(&mut m, c, args.clone());
        let size = m.size(&e);
        if size > INLINE_LIMIT {
            return Err(Error::Unsupported {
                op: op.to_string(),
                backend: "every backend".into(),
                reason: format!(
                    "the {c} body of {} would be an expression of about {size} nodes in this \
                     form (it reuses values, which a single-expression slot repeats); not here yet",
                    self.name
                ),
            });
        }
        Ok(self.body(&mut Inline, c, args))
    }

    /// The IR of every output (one per [`Ufunc::nout`]), over operands already cast to the
    /// compute dtype `c`, sharing the values bound by `bind`.
    pub fn bodies(&self, bind: &mut dyn Bind, c: DType, args: Vec<Expr>) -> Vec<Expr> {
        match self.bodies {
            Some(f) => f(bind, c, args),
            None => vec![(self.body)(bind, c, args)],
        }
    }
}

/// An elementwise kernel storing `value`, whose shared subexpressions are the locals of `lets`.
pub(crate) fn kernel_with_lets(
    name: &str,
    inputs: Vec<DType>,
    params: Vec<DType>,
    lets: Lets,
    value: Expr,
) -> Kernel {
    kernel_with_lets_n(name, inputs, params, lets, vec![value])
}

/// An elementwise kernel storing `values` (one output each), whose shared subexpressions are
/// the locals of `lets`.
pub(crate) fn kernel_with_lets_n(
    name: &str,
    inputs: Vec<DType>,
    params: Vec<DType>,
    lets: Lets,
    values: Vec<Expr>,
) -> Kernel {
    let mut body = lets.stmts;
    let outputs = values.iter().map(|v| v.ty).collect();
    for (output, value) in values.into_iter().enumerate() {
        body.push(Stmt::Store { output, value });
    }
    Kernel {
        name: name.into(),
        inputs,
        outputs,
        raws: vec![],
        params,
        locals: lets.locals,
        body,
    }
}

/// An operand of a ufunc: an array, or a Rust scalar (weak, as Python scalars in NumPy 2).
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    /// An array (strong dtype).
    Array(&'a Array),
    /// A weak scalar.
    Weak(WeakScalar),
    /// A typed scalar (strong: promotes like a 0-d array of its dtype).
    Typed(Scalar),
}

impl<'a> From<&'a Array> for Arg<'a> {
    fn from(a: &'a Array) -> Arg<'a> {
        Arg::Array(a)
    }
}
impl<'a> From<&'a &'a Array> for Arg<'a> {
    fn from(a: &'a &'a Array) -> Arg<'a> {
        Arg::Array(a)
    }
}
impl From<Scalar> for Arg<'_> {
    fn from(s: Scalar) -> Self {
        Arg::Typed(s)
    }
}
impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Weak(WeakScalar::Bool(v))
    }
}
impl From<f64> for Arg<'_> {
    fn from(v: f64) -> Self {
        Arg::Weak(WeakScalar::Float(v))
    }
}
impl From<f32> for Arg<'_> {
    fn from(v: f32) -> Self {
        Arg::Weak(WeakScalar::Float(v as f64))
    }
}
impl From<Complex<f64>> for Arg<'_> {
    fn from(v: Complex<f64>) -> Self {
        Arg::Weak(WeakScalar::Complex(v))
    }
}
macro_rules! weak_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(v: $t) -> Self {
                Arg::Weak(WeakScalar::Int(v as i128))
            }
        }
    )*};
}
weak_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, usize);

/// Applies a ufunc to its operands, NumPy semantics (broadcasting, NEP 50 promotion).
/// `out`, when given, receives the result (cast with `same_kind` rules) and is returned.
///
/// # Errors
/// [`Error::ShapeMismatch`] (naming the ufunc and both shapes), [`Error::TypeError`] (no loop),
/// [`Error::ScalarOverflow`] (weak integer out of range), [`Error::DTypeNotSupported`],
/// [`Error::DeviceMismatch`], or [`Error::InvalidArgument`] for a wrong operand count, no array,
/// or a ufunc of two outputs (see [`apply_outs`]).
pub fn apply(u: &Ufunc, args: &[Arg<'_>], out: Option<&Array>) -> Result<Array> {
    let op = u.name();
    if args.len() != u.nin() {
        return Err(Error::invalid(
            op,
            format!("takes {} operands, got {}", u.nin(), args.len()),
        ));
    }
    if u.nout() != 1 {
        return Err(Error::invalid(
            op,
            format!(
                "has {} outputs: apply_outs returns them all (NumPy's tuple)",
                u.nout()
            ),
        ));
    }
    // Hot path (`a + b` on arrays): the kernel depends only on the ufunc, the operand dtypes and
    // the out dtype, so it is built once per thread and reused (no IR construction, and the
    // backends see the same kernel every call).
    let key = kernel_key(u, args, out);
    if let Some(k) = key.and_then(|key| KERNELS.with(|c| c.borrow().get(&key).cloned())) {
        let inputs: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        return Ok(Elementwise {
            op,
            kernel: &k.0,
            inputs: &inputs,
            raws: &[],
            params: vec![],
            outs: vec![out],
            device: None,
            shape: None,
        }
        .run_validated(&k.1)?
        .remove(0));
    }
    Ok(launch(u, args, &[out], key)?.remove(0))
}

/// Applies a ufunc of any number of outputs (`numpy.divmod(x1, x2)` returns a tuple; so does
/// [`apply_outs`] here, as a `Vec`). `outs` is NumPy's `out=` tuple: empty, or one slot per
/// output (`None` where a new array is wanted); each given array receives its result (cast with
/// `same_kind` rules) and is returned in its place.
///
/// # Errors
/// As [`apply`]; [`Error::InvalidArgument`] when `outs` has neither 0 nor `nout` slots.
pub fn apply_outs(u: &Ufunc, args: &[Arg<'_>], outs: &[Option<&Array>]) -> Result<Vec<Array>> {
    let op = u.name();
    if args.len() != u.nin() {
        return Err(Error::invalid(
            op,
            format!("takes {} operands, got {}", u.nin(), args.len()),
        ));
    }
    let none = vec![None; u.nout()];
    let outs = match outs.len() {
        0 => &none[..],
        n if n == u.nout() => outs,
        n => {
            return Err(Error::invalid(
                op,
                format!("has {} outputs, but out= has {n} entries", u.nout()),
            ))
        }
    };
    launch(u, args, outs, None)
}

/// A ufunc called with scalars only (`numpy.add(1, 2)`): NumPy converts its Python scalars to
/// arrays, so the result is an array (0-d). The first typed scalar, or else the first weak one
/// in NumPy's result type of all the weak ones (int64, float64, complex128 or bool: a Python
/// int with a float is float64, so `np.add(2**63, 1.0)` converts 2**63 to float64), becomes a
/// 0-d array on `out`'s device or the current device; the others stay as they are
/// (`np.add(np.int8(1), 2)` is int8). `into`, when given, is the dtype a weak scalar converts
/// to instead (the loop's input dtype that `dtype=` picked: `np.add(300, 2, dtype=np.int8)` is
/// an OverflowError). Returns its position and the array.
///
/// # Errors
/// [`Error::ScalarOverflow`] for an integer outside the result type (int64) or `into`; device
/// errors.
pub(crate) fn scalar_operand(
    op: &str,
    args: &[Arg<'_>],
    out: Option<&Array>,
    into: Option<DType>,
) -> Result<(usize, Array)> {
    let k = args
        .iter()
        .position(|a| matches!(a, Arg::Typed(_)))
        .unwrap_or(0);
    let value = match (&args[k], into) {
        (Arg::Typed(s), _) => *s,
        (Arg::Weak(w), Some(t)) => w.to_scalar(op, t)?,
        // One Python int past int64 (`np.negative(2**63)`): NumPy's conversion makes it uint64.
        (Arg::Weak(WeakScalar::Int(i)), None)
            if args.len() == 1 && *i > i64::MAX as i128 && *i <= u64::MAX as i128 =>
        {
            Scalar::UInt64(*i as u64)
        }
        (Arg::Weak(w), None) => {
            let (_, weak) = super::options::split_args(args);
            w.to_scalar(op, cupy_core::promote::result_type(op, &[], &weak)?)?
        }
        (Arg::Array(_), _) => unreachable!("called without array operands"),
    };
    let device = match out {
        Some(o) => o.device().clone(),
        None => crate::device::Device::current()?,
    };
    Ok((k, Array::full_on(&device, &[], value, value.dtype())?))
}

/// [`apply_outs`] after the argument checks: resolves the loop, builds (and, with a `key`,
/// caches) the kernel and runs it.
fn launch(
    u: &Ufunc,
    args: &[Arg<'_>],
    outs: &[Option<&Array>],
    key: Option<KernelKey>,
) -> Result<Vec<Array>> {
    let op = u.name();
    let ops: Vec<LoopOperand> = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => LoopOperand::Strong(x.dtype()),
            Arg::Typed(s) => LoopOperand::Strong(s.dtype()),
            Arg::Weak(w) => LoopOperand::Weak(*w),
        })
        .collect();
    if !args.iter().any(|a| matches!(a, Arg::Array(_))) {
        let (k, first) = scalar_operand(op, args, outs.iter().flatten().next().copied(), None)?;
        let mut with_array = args.to_vec();
        with_array[k] = Arg::Array(&first);
        return launch(u, &with_array, outs, None);
    }
    let lp = u.loop_for(&ops)?;
    let mut inputs: Vec<&Array> = vec![];
    let mut in_dtypes = vec![];
    let mut params = vec![];
    let mut param_dtypes = vec![];
    let mut exprs = vec![];
    for (k, a) in args.iter().enumerate() {
        let c = lp.inputs[k];
        match a {
            Arg::Array(x) => {
                exprs.push(Expr::input(inputs.len(), x.dtype()).cast(c));
                in_dtypes.push(x.dtype());
                inputs.push(x);
            }
            Arg::Weak(w) => {
                // A weak scalar is converted to the promoted dtype (checking integer range) and
                // passed as a uniform parameter.
                let t = lp.params[k];
                let s = w.to_scalar(op, t)?;
                exprs.push(Expr::param(params.len(), t).cast(c));
                param_dtypes.push(t);
                params.push(s);
            }
            Arg::Typed(s) => {
                exprs.push(Expr::param(params.len(), s.dtype()).cast(c));
                param_dtypes.push(s.dtype());
                params.push(*s);
            }
        }
    }
    let mut out_dtypes = Vec::with_capacity(lp.outputs.len());
    for (&o, out) in lp.outputs.iter().zip(outs) {
        if let Some(a) = out {
            if !cupy_core::promote::can_cast_same_kind(o, a.dtype()) {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![o, a.dtype()],
                    msg: format!(
                        "cannot cast ufunc output from {o} to {} with casting rule 'same_kind'",
                        a.dtype()
                    ),
                });
            }
        }
        out_dtypes.push(out.map_or(o, |a| a.dtype()));
    }
    let mut lets = Lets::default();
    let exprs = lp.operands(&mut lets, exprs);
    let values = u
        .bodies(&mut lets, lp.compute, exprs)
        .into_iter()
        .zip(lp.outputs.iter().zip(&out_dtypes))
        .map(|(v, (&o, &d))| v.cast(o).cast(d))
        .collect();
    let kernel = Arc::new(kernel_with_lets_n(
        op,
        in_dtypes,
        param_dtypes,
        lets,
        values,
    ));
    if let Some(key) = key {
        // Cached only once valid: a hit skips validation.
        kernel.validate()?;
        let dtypes: Arc<[DType]> = kernel.dtypes().into();
        KERNELS.with(|c| c.borrow_mut().insert(key, (kernel.clone(), dtypes)));
    }
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &inputs,
        raws: &[],
        params,
        outs: outs.to_vec(),
        device: None,
        shape: None,
    }
    .run()
}

/// Key of an all-array ufunc call: the ufunc, up to three operand dtypes, the `out` dtype.
type KernelKey = (&'static str, [Option<DType>; 3], Option<DType>);
/// A validated kernel and its [`Kernel::dtypes`].
type CachedKernel = (Arc<Kernel>, Arc<[DType]>);

thread_local! {
    /// Kernels of all-array ufunc calls already built on this thread.
    static KERNELS: RefCell<HashMap<KernelKey, CachedKernel>> = RefCell::new(HashMap::new());
}

/// The cache key of a call whose operands are all arrays (at most three), else `None`.
fn kernel_key(u: &Ufunc, args: &[Arg<'_>], out: Option<&Array>) -> Option<KernelKey> {
    if args.len() > 3 {
        return None;
    }
    let mut dts = [None; 3];
    for (d, a) in dts.iter_mut().zip(args) {
        match a {
            Arg::Array(x) => *d = Some(x.dtype()),
            _ => return None,
        }
    }
    Some((u.name, dts, out.map(|a| a.dtype())))
}

/// Writes `ufunc(args)` into `out` (`numpy.add(x, y, out=out)`), returning `out`.
///
/// # Errors
/// As [`apply`]; also [`Error::ShapeMismatch`] when the result shape is not `out`'s shape.
pub fn apply_out(u: &Ufunc, args: &[Arg<'_>], out: &Array) -> Result<Array> {
    apply(u, args, Some(out))
}

/// `Expr::binary`, short for the declarations.
pub(crate) fn bin(op: cupy_core::kernel::ir::BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// `Expr::unary`, short for the declarations.
pub(crate) fn un(op: cupy_core::kernel::ir::UnaryOp, a: Expr) -> Expr {
    Expr::unary(op, a)
}
