//! Ufuncs as data: each NumPy ufunc is a name, a type-resolution rule and an IR body, as CuPy's
//! `create_ufunc` tables are. One definition serves every backend.

use crate::array::Array;
use crate::launch::Elementwise;
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, UnaryOp};
use cupy_core::promote::{result_type, WeakScalar};
use cupy_core::scalar::Scalar;
use num_complex::Complex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// A NumPy ufunc implemented by cupy-rs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Ufunc {
    Add,
    Subtract,
    Multiply,
    TrueDivide,
    FloorDivide,
    Remainder,
    Power,
    Maximum,
    Minimum,
    Fmax,
    Fmin,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    LeftShift,
    RightShift,
    Arctan2,
    Negative,
    Positive,
    Absolute,
    Sqrt,
    Square,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Ceil,
    LogicalNot,
    Invert,
    Isnan,
    Isinf,
    Isfinite,
}

/// How a ufunc maps its (promoted) input dtype to the loop's compute and output dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// `T -> T` (bool allowed).
    Same,
    /// `T -> T`, bool refused.
    SameNoBool,
    /// `T -> T`, bool computed as int8 (NumPy's `??->b` loops of floor_divide/remainder/power).
    SameBoolAsInt8,
    /// Integers and bool go to the float that holds them; floats stay.
    Float,
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
    /// `floor`/`ceil`: integers and bool are returned unchanged (NumPy 2), floats rounded.
    Rounding,
    /// `T -> bool` predicate on floats (integers: constant).
    Predicate,
}

impl Ufunc {
    /// Every ufunc (for the API coverage table).
    pub const ALL: [Ufunc; 44] = [
        Ufunc::Add,
        Ufunc::Subtract,
        Ufunc::Multiply,
        Ufunc::TrueDivide,
        Ufunc::FloorDivide,
        Ufunc::Remainder,
        Ufunc::Power,
        Ufunc::Maximum,
        Ufunc::Minimum,
        Ufunc::Fmax,
        Ufunc::Fmin,
        Ufunc::Equal,
        Ufunc::NotEqual,
        Ufunc::Less,
        Ufunc::LessEqual,
        Ufunc::Greater,
        Ufunc::GreaterEqual,
        Ufunc::LogicalAnd,
        Ufunc::LogicalOr,
        Ufunc::LogicalXor,
        Ufunc::BitwiseAnd,
        Ufunc::BitwiseOr,
        Ufunc::BitwiseXor,
        Ufunc::LeftShift,
        Ufunc::RightShift,
        Ufunc::Arctan2,
        Ufunc::Negative,
        Ufunc::Positive,
        Ufunc::Absolute,
        Ufunc::Sqrt,
        Ufunc::Square,
        Ufunc::Exp,
        Ufunc::Log,
        Ufunc::Sin,
        Ufunc::Cos,
        Ufunc::Tan,
        Ufunc::Tanh,
        Ufunc::Floor,
        Ufunc::Ceil,
        Ufunc::LogicalNot,
        Ufunc::Invert,
        Ufunc::Isnan,
        Ufunc::Isinf,
        Ufunc::Isfinite,
    ];

    /// NumPy's name.
    pub fn name(self) -> &'static str {
        use Ufunc::*;
        match self {
            Add => "add",
            Subtract => "subtract",
            Multiply => "multiply",
            TrueDivide => "true_divide",
            FloorDivide => "floor_divide",
            Remainder => "remainder",
            Power => "power",
            Maximum => "maximum",
            Minimum => "minimum",
            Fmax => "fmax",
            Fmin => "fmin",
            Equal => "equal",
            NotEqual => "not_equal",
            Less => "less",
            LessEqual => "less_equal",
            Greater => "greater",
            GreaterEqual => "greater_equal",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitwiseAnd => "bitwise_and",
            BitwiseOr => "bitwise_or",
            BitwiseXor => "bitwise_xor",
            LeftShift => "left_shift",
            RightShift => "right_shift",
            Arctan2 => "arctan2",
            Negative => "negative",
            Positive => "positive",
            Absolute => "absolute",
            Sqrt => "sqrt",
            Square => "square",
            Exp => "exp",
            Log => "log",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Tanh => "tanh",
            Floor => "floor",
            Ceil => "ceil",
            LogicalNot => "logical_not",
            Invert => "invert",
            Isnan => "isnan",
            Isinf => "isinf",
            Isfinite => "isfinite",
        }
    }

    /// Number of inputs.
    pub fn nin(self) -> usize {
        use Ufunc::*;
        match self {
            Negative | Positive | Absolute | Sqrt | Square | Exp | Log | Sin | Cos | Tan | Tanh
            | Floor | Ceil | LogicalNot | Invert | Isnan | Isinf | Isfinite => 1,
            _ => 2,
        }
    }

    fn rule(self) -> Rule {
        use Ufunc::*;
        match self {
            Add | Multiply | Maximum | Minimum | Fmax | Fmin | Absolute => Rule::Same,
            Subtract | Negative | Positive => Rule::SameNoBool,
            FloorDivide | Remainder | Power | Square => Rule::SameBoolAsInt8,
            Floor | Ceil => Rule::Rounding,
            TrueDivide => Rule::TrueDivide,
            Sqrt | Exp | Log | Sin | Cos | Tan | Tanh | Arctan2 => Rule::Float,
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual => Rule::Compare,
            LogicalAnd | LogicalOr | LogicalXor | LogicalNot => Rule::Logical,
            BitwiseAnd | BitwiseOr | BitwiseXor | Invert => Rule::Bitwise,
            LeftShift | RightShift => Rule::Integer,
            Isnan | Isinf | Isfinite => Rule::Predicate,
        }
    }

    /// Resolves the loop for a promoted input dtype: `(compute dtype, output dtype)`.
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop (e.g. `subtract` on bool, `sqrt` on complex
    /// where unsupported, bitwise ops on floats).
    pub fn resolve(self, t: DType) -> Result<(DType, DType)> {
        let no_loop = |msg: &str| Error::TypeError {
            op: self.name().into(),
            dtypes: vec![t],
            msg: msg.into(),
        };
        let float_of = |d: DType| match d.kind() {
            Kind::Bool | Kind::Int | Kind::UInt => match d.itemsize() {
                1 => DType::Float16,
                2 => DType::Float32,
                _ => DType::Float64,
            },
            _ => d,
        };
        Ok(match self.rule() {
            Rule::Same if self == Ufunc::Absolute && t.is_complex() => (t, t.real_dtype()),
            Rule::Same => (t, t),
            Rule::SameNoBool => {
                if t.is_bool() {
                    return Err(no_loop("numpy boolean subtract/negative is not supported; use logical_xor/logical_not"));
                }
                (t, t)
            }
            Rule::SameBoolAsInt8 => {
                if t.is_complex() && matches!(self, Ufunc::FloorDivide | Ufunc::Remainder) {
                    return Err(no_loop(
                        "floor_divide/remainder are not defined for complex numbers",
                    ));
                }
                let c = if t.is_bool() { DType::Int8 } else { t };
                (c, c)
            }
            Rule::Float => {
                if t.is_complex() && self == Ufunc::Arctan2 {
                    return Err(no_loop("arctan2 is not defined for complex numbers"));
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
                    return Err(no_loop("bitwise ops need integer or bool operands"));
                }
                (t, t)
            }
            Rule::Integer => {
                if t.is_bool() {
                    (DType::Int8, DType::Int8)
                } else if !t.is_integer() {
                    return Err(no_loop("shifts need integer operands"));
                } else {
                    (t, t)
                }
            }
            Rule::Rounding => {
                if t.is_complex() {
                    return Err(no_loop("floor/ceil are not defined for complex numbers"));
                }
                (t, t)
            }
            Rule::Predicate => (t, DType::Bool),
        })
    }

    /// NumPy's loop selection for operands of these strong dtypes and weak scalars (NEP 50):
    /// `(promoted dtype, compute dtype, output dtype)`.
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop; [`Error::InvalidArgument`] with no operand.
    pub fn loop_types(
        self,
        strong: &[DType],
        weak: &[WeakScalar],
    ) -> Result<(DType, DType, DType)> {
        let op = self.name();
        let mut t = result_type(op, strong, weak)?;
        if self.rule() == Rule::Compare && t.is_integer() {
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
        Ok((t, c, o))
    }

    /// The IR body over operands already cast to the compute dtype `c`.
    pub fn body(self, c: DType, mut args: Vec<Expr>) -> Expr {
        use Ufunc::*;
        let y = if args.len() > 1 {
            Some(args.pop().expect("two args"))
        } else {
            None
        };
        let x = args.pop().expect("at least one arg");
        let bin =
            |op: BinaryOp, y: Option<Expr>| Expr::binary(op, x.clone(), y.expect("binary ufunc"));
        let is_bool = c.is_bool();
        match self {
            Add if is_bool => bin(BinaryOp::Or, y),
            Multiply if is_bool => bin(BinaryOp::And, y),
            Maximum if is_bool => bin(BinaryOp::Or, y),
            Minimum if is_bool => bin(BinaryOp::And, y),
            Add => bin(BinaryOp::Add, y),
            Subtract => bin(BinaryOp::Sub, y),
            Multiply => bin(BinaryOp::Mul, y),
            TrueDivide => bin(BinaryOp::Div, y),
            FloorDivide => bin(BinaryOp::FloorDiv, y),
            Remainder => bin(BinaryOp::Mod, y),
            Power => bin(BinaryOp::Pow, y),
            Maximum => bin(BinaryOp::Max, y),
            Minimum => bin(BinaryOp::Min, y),
            Fmax => bin(
                if c.is_inexact() {
                    BinaryOp::FMax
                } else {
                    BinaryOp::Max
                },
                y,
            ),
            Fmin => bin(
                if c.is_inexact() {
                    BinaryOp::FMin
                } else {
                    BinaryOp::Min
                },
                y,
            ),
            Equal => bin(BinaryOp::Eq, y),
            NotEqual => bin(BinaryOp::Ne, y),
            Less => bin(BinaryOp::Lt, y),
            LessEqual => bin(BinaryOp::Le, y),
            Greater => bin(BinaryOp::Gt, y),
            GreaterEqual => bin(BinaryOp::Ge, y),
            LogicalAnd | BitwiseAnd => bin(BinaryOp::And, y),
            LogicalOr | BitwiseOr => bin(BinaryOp::Or, y),
            LogicalXor | BitwiseXor => bin(BinaryOp::Xor, y),
            LeftShift => bin(BinaryOp::Shl, y),
            RightShift => bin(BinaryOp::Shr, y),
            Arctan2 => bin(BinaryOp::Atan2, y),
            Negative => Expr::unary(UnaryOp::Neg, x),
            Positive => x,
            Absolute if is_bool => x,
            Absolute => Expr::unary(UnaryOp::Abs, x),
            Square => Expr::binary(BinaryOp::Mul, x.clone(), x),
            Sqrt => Expr::unary(UnaryOp::Sqrt, x),
            Exp => Expr::unary(UnaryOp::Exp, x),
            Log => Expr::unary(UnaryOp::Log, x),
            Sin => Expr::unary(UnaryOp::Sin, x),
            Cos => Expr::unary(UnaryOp::Cos, x),
            Tan => Expr::unary(UnaryOp::Tan, x),
            Tanh => Expr::unary(UnaryOp::Tanh, x),
            Floor | Ceil if !c.is_float() => x,
            Floor => Expr::unary(UnaryOp::Floor, x),
            Ceil => Expr::unary(UnaryOp::Ceil, x),
            LogicalNot => Expr::unary(UnaryOp::Not, x),
            Invert if is_bool => Expr::unary(UnaryOp::Not, x),
            Invert => Expr::unary(UnaryOp::BitNot, x),
            Isnan | Isinf | Isfinite if !c.is_inexact() => {
                Expr::constant(Scalar::Bool(self == Isfinite))
            }
            Isnan => Expr::unary(UnaryOp::IsNan, x),
            Isinf => Expr::unary(UnaryOp::IsInf, x),
            Isfinite => Expr::unary(UnaryOp::IsFinite, x),
        }
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
pub fn apply(u: Ufunc, args: &[Arg<'_>], out: Option<&Array>) -> Result<Array> {
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
    let body = u.body(c, exprs).cast(o).cast(out_dtype);
    let kernel = Arc::new(Kernel::map(op, in_dtypes, param_dtypes, body));
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
type KernelKey = (Ufunc, [Option<DType>; 3], Option<DType>);
/// A validated kernel and its [`Kernel::dtypes`].
type CachedKernel = (Arc<Kernel>, Arc<[DType]>);

thread_local! {
    /// Kernels of all-array ufunc calls already built on this thread.
    static KERNELS: RefCell<HashMap<KernelKey, CachedKernel>> = RefCell::new(HashMap::new());
}

/// The cache key of a call whose operands are all arrays (at most three), else `None`.
fn kernel_key(u: Ufunc, args: &[Arg<'_>], out: Option<&Array>) -> Option<KernelKey> {
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
    Some((u, dts, out.map(|a| a.dtype())))
}

macro_rules! ufunc_fns {
    (unary: $($f:ident => $u:ident),* ; binary: $($g:ident => $v:ident),*) => {
        $(
            #[doc = concat!("`numpy.", stringify!($f), "(x)` elementwise. See [`apply`] for errors.")]
            pub fn $f<'a>(x: impl Into<Arg<'a>>) -> Result<Array> {
                apply(Ufunc::$u, &[x.into()], None)
            }
        )*
        $(
            #[doc = concat!("`numpy.", stringify!($g), "(x1, x2)` elementwise with broadcasting. See [`apply`] for errors.")]
            pub fn $g<'a, 'b>(x1: impl Into<Arg<'a>>, x2: impl Into<Arg<'b>>) -> Result<Array> {
                apply(Ufunc::$v, &[x1.into(), x2.into()], None)
            }
        )*
    };
}

ufunc_fns!(
    unary: negative => Negative, positive => Positive, absolute => Absolute, abs => Absolute,
        sqrt => Sqrt, square => Square, exp => Exp, log => Log, sin => Sin, cos => Cos, tan => Tan,
        tanh => Tanh, floor => Floor, ceil => Ceil, logical_not => LogicalNot, invert => Invert,
        isnan => Isnan, isinf => Isinf, isfinite => Isfinite;
    binary: add => Add, subtract => Subtract, multiply => Multiply, divide => TrueDivide,
        true_divide => TrueDivide, floor_divide => FloorDivide, remainder => Remainder, power => Power,
        maximum => Maximum, minimum => Minimum, fmax => Fmax, fmin => Fmin, equal => Equal,
        not_equal => NotEqual, less => Less, less_equal => LessEqual, greater => Greater,
        greater_equal => GreaterEqual, logical_and => LogicalAnd, logical_or => LogicalOr,
        logical_xor => LogicalXor, bitwise_and => BitwiseAnd, bitwise_or => BitwiseOr,
        bitwise_xor => BitwiseXor, left_shift => LeftShift, right_shift => RightShift,
        arctan2 => Arctan2
);

impl Array {
    /// Copies into a new C-contiguous array on the same device (`a.copy()`).
    ///
    /// # Errors
    /// Device errors.
    pub fn copy(&self) -> Result<Array> {
        self.astype(self.dtype)
    }

    /// Converts to `dtype` (`a.astype(dtype)`, casting="unsafe", always a new array), with
    /// C semantics as [`Scalar::cast`] describes.
    ///
    /// # Errors
    /// [`Error::DTypeNotSupported`] if the device lacks either dtype; device errors.
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        let kernel = Kernel::map(
            "astype",
            vec![self.dtype],
            vec![],
            Expr::input(0, self.dtype).cast(dtype),
        );
        Elementwise {
            op: "astype",
            kernel: &kernel,
            inputs: &[self],
            raws: &[],
            params: vec![],
            outs: vec![None],
            device: None,
            shape: None,
        }
        .run_one()
    }

    /// Copies `src` into this array (`cupy.copyto(self, src)`, casting="same_kind"), broadcasting
    /// `src` to this array's shape.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], [`Error::TypeError`] (cast not same_kind), device errors.
    pub fn copy_from(&self, src: &Array) -> Result<()> {
        if !cupy_core::promote::can_cast_same_kind(src.dtype, self.dtype) {
            return Err(Error::TypeError {
                op: "copyto".into(),
                dtypes: vec![src.dtype, self.dtype],
                msg: "cannot cast with casting rule 'same_kind'".into(),
            });
        }
        let b = src
            .broadcast_to(self.shape())
            .map_err(|_| Error::ShapeMismatch {
                op: "copyto".into(),
                lhs: src.shape().to_vec(),
                rhs: self.shape().to_vec(),
            })?;
        let kernel = Kernel::map(
            "copyto",
            vec![src.dtype],
            vec![],
            Expr::input(0, src.dtype).cast(self.dtype),
        );
        Elementwise {
            op: "copyto",
            kernel: &kernel,
            inputs: &[&b],
            raws: &[],
            params: vec![],
            outs: vec![Some(self)],
            device: None,
            shape: None,
        }
        .run()?;
        Ok(())
    }

    /// Fills every element with `value` (`a.fill(value)`), cast to the array's dtype.
    ///
    /// # Errors
    /// Device errors; [`Error::InvalidArgument`] on a broadcast view.
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        let v = value.into().cast(self.dtype);
        let kernel = Kernel::map("fill", vec![], vec![self.dtype], Expr::param(0, self.dtype));
        Elementwise {
            op: "fill",
            kernel: &kernel,
            inputs: &[],
            raws: &[],
            params: vec![v],
            outs: vec![Some(self)],
            device: Some(&self.device),
            shape: Some(self.shape()),
        }
        .run()?;
        Ok(())
    }
}

/// Writes `ufunc(args)` into `out` (`numpy.add(x, y, out=out)`), returning `out`.
///
/// # Errors
/// As [`apply`]; also [`Error::ShapeMismatch`] when the result shape is not `out`'s shape.
pub fn apply_out(u: Ufunc, args: &[Arg<'_>], out: &Array) -> Result<Array> {
    apply(u, args, Some(out))
}
