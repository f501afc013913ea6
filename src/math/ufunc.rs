//! Ufuncs as declarations: a NumPy ufunc is a name, a type rule and an IR body, declared once
//! with [`ufuncs!`](crate::math) in its family's file (as CuPy's `create_ufunc` one-liners). From
//! the declaration come the [`Ufunc`] object (`cupy::ufuncs::sin`), the free function
//! (`cupy::sin(x)`), the method (`a.sin()`), the `fuse` method (`Sym::sin`) and the registry row,
//! so nothing is listed twice.

use crate::array::Array;
use crate::launch::Elementwise;
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel, Stmt};
use cupy_core::kernel::math::{Bind, Lets};
use cupy_core::promote::{result_type, WeakScalar};
use cupy_core::scalar::Scalar;
use num_complex::Complex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The IR of a ufunc over operands already cast to the loop's compute dtype (the `DType`
/// argument); values used twice go through the [`Bind`].
pub type Body = fn(&mut dyn Bind, DType, Vec<Expr>) -> Expr;

/// A NumPy ufunc: `cupy::ufuncs::add` is `numpy.add`. Made by the declarations in the family
/// files of [`crate::math`]; compared and hashed by name.
#[derive(Clone, Copy)]
pub struct Ufunc {
    pub(crate) name: &'static str,
    pub(crate) nin: usize,
    pub(crate) rule: Rule,
    pub(crate) body: Body,
    pub(crate) family: &'static str,
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
    /// `floor`/`ceil`/`trunc`: integers and bool are returned unchanged (NumPy 2), floats
    /// rounded, complex refused.
    Rounding,
    /// `T -> bool` predicate on floats (integers: constant).
    Predicate,
    /// `T -> bool` on real numbers only (`signbit`).
    PredicateReal,
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
            Rule::Float | Rule::FloatReal => {
                if t.is_complex() && self.rule == Rule::FloatReal {
                    return Err(no_complex());
                }
                let c = float_of(t);
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
            Rule::Integer => {
                if t.is_bool() {
                    (DType::Int8, DType::Int8)
                } else if !t.is_integer() {
                    return Err(no_loop(format!(
                        "ufunc '{}' needs integer operands",
                        self.name
                    )));
                } else {
                    (t, t)
                }
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
        })
    }

    /// NumPy's loop selection for operands of these strong dtypes and weak scalars (NEP 50):
    /// `(promoted dtype, compute dtype, output dtype)`.
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop; [`Error::InvalidArgument`] with no operand.
    pub fn loop_types(
        &self,
        strong: &[DType],
        weak: &[WeakScalar],
    ) -> Result<(DType, DType, DType)> {
        let op = self.name;
        if self.rule == Rule::TrueDivide && !strong.is_empty() {
            // NumPy's true_divide of integer arrays loops in float64 whatever the Python int
            // (`uint8_array / -2` is `[-1.5, ...]`, not an overflow of uint8).
            let ints = strong.iter().all(|d| d.is_integer() || d.is_bool());
            let out_of_range = weak.iter().any(|w| match *w {
                WeakScalar::Int(i) => strong.iter().any(|&d| {
                    let (lo, hi) =
                        cupy_core::promote::int_range(if d.is_bool() { DType::Int8 } else { d });
                    i < lo || i > hi
                }),
                _ => false,
            });
            if ints && out_of_range {
                return Ok((DType::Float64, DType::Float64, DType::Float64));
            }
        }
        let mut t = result_type(op, strong, weak)?;
        if self.rule == Rule::Compare && t.is_integer() {
            // NumPy 2 compares integer arrays with out-of-range Python ints by value (`uint8 < -1` is
            // all False): widen the comparison so the scalar fits.
            let (lo, hi) = cupy_core::promote::int_range(t);
            for w in weak {
                if let WeakScalar::Int(i) = *w {
                    if i < lo || i > hi {
                        t = if t != DType::UInt64 && i >= i64::MIN as i128 && i <= i64::MAX as i128
                        {
                            DType::Int64
                        } else {
                            DType::Float64
                        };
                    }
                }
            }
        }
        let (c, o) = self.resolve(t)?;
        // NumPy's float16 loops compute in float32 and round the result once (`npy_half`
        // converts); bfloat16 likewise. Compositions of several steps need that too.
        let c = match c {
            DType::Float16 | DType::BFloat16 => DType::Float32,
            c => c,
        };
        Ok((t, c, o))
    }

    /// The IR body over operands already cast to the compute dtype `c`, with its shared values
    /// bound by `bind`.
    pub fn body(&self, bind: &mut dyn Bind, c: DType, args: Vec<Expr>) -> Expr {
        (self.body)(bind, c, args)
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
    let mut body = lets.stmts;
    let outputs = vec![value.ty];
    body.push(Stmt::Store { output: 0, value });
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
weak_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// Applies a ufunc to its operands, NumPy semantics (broadcasting, NEP 50 promotion).
/// `out`, when given, receives the result (cast with `same_kind` rules) and is returned.
///
/// # Errors
/// [`Error::ShapeMismatch`] (naming the ufunc and both shapes), [`Error::TypeError`] (no loop),
/// [`Error::ScalarOverflow`] (weak integer out of range), [`Error::DTypeNotSupported`],
/// [`Error::DeviceMismatch`], or [`Error::InvalidArgument`] for a wrong operand count or no array.
pub fn apply(u: &Ufunc, args: &[Arg<'_>], out: Option<&Array>) -> Result<Array> {
    let op = u.name();
    if args.len() != u.nin() {
        return Err(Error::invalid(
            op,
            format!("takes {} operands, got {}", u.nin(), args.len()),
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
    let mut strong = vec![];
    let mut weak = vec![];
    for a in args {
        match a {
            Arg::Array(x) => strong.push(x.dtype()),
            Arg::Typed(s) => strong.push(s.dtype()),
            Arg::Weak(w) => weak.push(*w),
        }
    }
    if !args.iter().any(|a| matches!(a, Arg::Array(_))) {
        return Err(Error::invalid(op, "at least one operand must be an array"));
    }
    let (t, c, o) = u.loop_types(&strong, &weak)?;
    let mut inputs: Vec<&Array> = vec![];
    let mut in_dtypes = vec![];
    let mut params = vec![];
    let mut param_dtypes = vec![];
    let mut exprs = vec![];
    for a in args {
        match a {
            Arg::Array(x) => {
                exprs.push(Expr::input(inputs.len(), x.dtype()).cast(c));
                in_dtypes.push(x.dtype());
                inputs.push(x);
            }
            Arg::Weak(w) => {
                // A weak scalar is converted to the promoted dtype (checking integer range) and
                // passed as a uniform parameter.
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
    let out_dtype = out.map_or(o, |a| a.dtype());
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
    let mut lets = Lets::default();
    let body = u.body(&mut lets, c, exprs).cast(o).cast(out_dtype);
    let kernel = Arc::new(kernel_with_lets(op, in_dtypes, param_dtypes, lets, body));
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
        outs: vec![out],
        device: None,
        shape: None,
    }
    .run_one()
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
