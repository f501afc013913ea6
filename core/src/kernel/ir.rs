//! The scalar kernel IR: one definition of every elementwise and reduction op, emitted to WGSL,
//! C++ (CUDA/HIP) and evaluated on the CPU.
//!
//! A [`Kernel`] is a small typed program run once per element of an iteration space. It reads
//! its elementwise inputs at the current element ([`ExprKind::Input`]), uniform parameters
//! ([`ExprKind::Param`]), local variables, the flat element index, and raw (indexable) operands;
//! it writes its outputs at the current element ([`Stmt::Store`]). A [`ReduceKernel`] is CuPy's
//! `ReductionKernel` model: a map expression, a binary combine with an identity, and a post-map.
//!
//! # Semantics every emitter must honour
//! - Arithmetic is in the expression's dtype. Integer `Add`/`Sub`/`Mul`/`Neg` wrap (two's
//!   complement). Integer `Div` truncates toward zero, `FloorDiv` floors and `Mod` takes the sign of
//!   the divisor (NumPy's `floor_divide`/`remainder`); all three give 0 when the divisor is 0
//!   (NumPy's result, which it pairs with a warning).
//! - Float `Max`/`Min` propagate NaN (NumPy `maximum`/`minimum`); `FMax`/`FMin` ignore it
//!   (`fmax`/`fmin`). Float `FloorDiv` is `floor(a / b)` and float `Mod` is `a - floor(a/b)*b`
//!   with the sign of `b`, as NumPy's `npy_divmod` computes them.
//! - Integer `Pow` is exact repeated squaring with wrap-around; a negative exponent gives 0
//!   unless the base is 1 or -1 (NumPy raises there; kernels cannot).
//! - Comparisons and logical ops return `Bool`. `And`/`Or`/`Xor` are logical on `Bool` and
//!   bitwise on integers. `Shl`/`Shr` on integers; `Shr` is arithmetic for signed types.
//!   `MulHi` takes two `UInt32` operands only (the high word of their 64-bit product).
//! - Float16 and bfloat16 values are computed in float32 and rounded to their type on every
//!   `Cast` and store, so results equal NumPy's (which computes them the same way).
//! - `Cast` follows [`crate::Scalar::cast`] (complex -> real takes the real part, complex -> bool
//!   is `re != 0 || im != 0`, real -> complex has a `+0` imaginary part).
//! - Complex (complex64/complex128) arithmetic is NumPy's on x86-64: `Mul` fuses each part
//!   (`re = fma(ar, br, -(ai*bi))`, `im = fma(ar, bi, ai*br)`, NumPy's SIMD loop), `Div` is
//!   Smith's method (a zero divisor gives `re/|0|, im/|0|`), `Pow` is NumPy's `npy_cpow` (integer
//!   exponents below 100 by repeated products). Comparisons are lexicographic with NumPy's NaN
//!   rule (`a < b` when `a.re < b.re` and neither imaginary part is NaN, or the real parts are
//!   equal and `a.im < b.im`); `Max`/`Min` keep a NaN operand, `FMax`/`FMin` the other one.
//!   `Abs` is `hypot` (an infinite part wins over NaN), as a complex `(|z|, 0)` when the node is
//!   complex-typed or as the real dtype when the node is typed so. `Sqrt Exp Log Sin Cos Tan
//!   Tanh` follow C99 Annex G for special values, with glibc's signs where C99 leaves them open
//!   (NumPy calls glibc); `Not`/`IsNan`/`IsInf`/`IsFinite` look at both parts. `FloorDiv`,
//!   `Mod`, `Atan2`, bitwise ops, shifts, `Floor`, `Ceil` and `BitNot` are not defined for
//!   complex (NumPy has no loop): emitters refuse them with `DTypeNotSupported` naming the op.
//!   [`UnaryOp::Real`]/[`UnaryOp::Imag`] take a complex operand's parts (typed with its real
//!   dtype), [`UnaryOp::Conj`] negates the imaginary part, and [`BinaryOp::Complex`] builds a
//!   complex value from two float32 or float64 parts; all four are exact.
//!   Backends: cpu, CUDA and HIP compute complex; wgpu refuses complex dtypes.
//! - [`Stmt::For`] bounds must be *uniform*: built only from constants, parameters, and the
//!   variables of enclosing loops, so every element runs the same trip count
//!   ([`Kernel::validate`] checks this). Loops count up by one from `start` to `end - 1`.
//!
//! # Writing raw operands (scatter)
//! - [`Stmt::StoreRaw`] writes element `index` of a raw operand. When several elements of one
//!   launch write the same raw element, the result is one of the written values; which one is
//!   unspecified (NumPy's `put` keeps the last, GPUs cannot promise it; the cpu backend runs
//!   kernels that write raw operands on one thread in element order, so there the last element
//!   wins). A `Load` of a raw element that *another* element of the launch writes sees the old
//!   or the new value, unspecified; an element always sees its own earlier writes.
//! - [`Stmt::AtomicRaw`] is `raw[index] = op(raw[index], value)` as one atomic step per element:
//!   concurrent updates of one raw element are never lost, but their order is unspecified (so a
//!   float `Add` of several values may round differently from run to run). `Add` wraps on
//!   integers and is logical or on `Bool`; `Max`/`Min` are [`BinaryOp::Max`]/[`BinaryOp::Min`]
//!   (NaN propagates), or/and on `Bool`; float16/bfloat16 results are rounded to their type
//!   after every update. Complex elements: cpu `Add` only; CUDA/HIP/wgpu refuse them.
//!   With `old: Some(var)` the update is a fetch-and-add: local `var` gets the element's value
//!   from just before this element's update (so concurrent elements adding to one counter each
//!   get a distinct range: how a launch appends to a list). Only `Add` of `Int32`/`UInt32`
//!   operands fetches ([`Kernel::validate`] checks), on every backend (the cpu backend updates
//!   in element order, GPUs in an unspecified one).
//! - Indices out of `0..len` of the raw operand are the kernel author's bug: the cpu backend
//!   drops such writes; on wgpu a write that stays inside the buffer lands there (past `len`,
//!   or before the operand for a negative index, which wraps: a view's neighbours are
//!   overwritten; seen on llvmpipe), one past the buffer is dropped; CUDA/HIP write out of
//!   bounds. Frontends check indices first (the kernel language guards every raw write with
//!   `0 <= index < len`).
//! - Backends: every backend supports `StoreRaw` for every dtype it stores. `AtomicRaw`: cpu
//!   all non-complex dtypes (and complex `Add`); CUDA/HIP all non-complex dtypes (8/16-bit types by a
//!   compare-and-swap loop on the containing 32-bit word, which every allocation covers);
//!   wgpu all non-complex dtypes (int64/uint64/float64 as 64-bit atomics where the adapter
//!   has them, else 32-bit word pairs with carry adds and a spin lock: `kernel/wgsl/atomic.rs`).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

mod expr;
mod kernel;
mod reduce;
#[cfg(test)]
mod tests;

pub use expr::complex_of;
pub(crate) use kernel::node_problem;
pub use reduce::ReduceKernel;

/// A typed scalar expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    /// The value's dtype.
    pub ty: DType,
    /// What computes it.
    pub kind: ExprKind,
}

/// The node kinds of [`Expr`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// A constant (its dtype equals the expression's).
    Const(Scalar),
    /// Elementwise input `k` at the current element.
    Input(usize),
    /// Uniform parameter `k`.
    Param(usize),
    /// Local variable `k` (see [`Kernel::locals`]). In a [`ReduceKernel`] of `n` accumulators,
    /// `combine` reads tuple `a` as `Var(0..n)` and tuple `b` as `Var(n..2n)` (with one
    /// accumulator: `Var(0)` is CuPy's `a` and `Var(1)` its `b`); `post` reads the reduced tuple
    /// as `Var(0..n)`.
    Var(usize),
    /// Flat (C-order) index of the current element in the iteration space; dtype `Int64`. In a
    /// [`ReduceKernel`]'s `map`: the element's flat C-order index within the reduced axes.
    Index,
    /// Element `index` (an `Int64` expression) of raw operand `raw`, counted from the raw
    /// operand's first element. Out-of-range reads are the kernel author's bug.
    Load {
        /// Raw operand number.
        raw: usize,
        /// Element index.
        index: Box<Expr>,
    },
    /// A unary op.
    Unary(UnaryOp, Box<Expr>),
    /// A binary op (both operands have the same dtype, except shift amounts).
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Conversion of the operand to this expression's dtype.
    Cast(Box<Expr>),
    /// `cond ? if_true : if_false` (`cond` is `Bool`; both arms have this expression's dtype).
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Unary operators. Math functions apply to float types (and complex where an emitter supports it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Neg,
    /// Absolute value (integers wrap at MIN as NumPy does).
    Abs,
    /// Logical not (`Bool` -> `Bool`).
    Not,
    /// Bitwise not on integers.
    BitNot,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Ceil,
    /// NaN test (result `Bool`).
    IsNan,
    /// Infinity test (result `Bool`).
    IsInf,
    /// Finite test (result `Bool`).
    IsFinite,
    /// Real part of a complex operand; the result has the operand's real dtype (complex64 ->
    /// float32, complex128 -> float64). Complex operands only.
    Real,
    /// Imaginary part of a complex operand (result dtype as [`UnaryOp::Real`]). Complex only.
    Imag,
    /// Complex conjugate `re - im·i` (exact: negates the imaginary part, including zeros and
    /// NaN). Complex operands only.
    Conj,
}

/// Binary operators; see the module docs for their exact semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Max,
    Min,
    FMax,
    FMin,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Atan2,
    /// The high 32 bits of the full 64-bit product of two `UInt32` operands (`__umulhi`; the
    /// low half is `Mul`). Exact on every backend; Philox's rounds are built from it.
    MulHi,
    /// The complex number `a + b·i` from two reals of one dtype, float32 (result complex64) or
    /// float64 (result complex128); both parts are taken exactly (no arithmetic, so
    /// `Complex(inf, nan)` is `inf + nan·i`). Build it with [`Expr::complex`].
    Complex,
}

impl UnaryOp {
    /// True if the result is `Bool` whatever the operand.
    pub fn returns_bool(self) -> bool {
        matches!(
            self,
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite | UnaryOp::Not
        )
    }
    /// True for the ops that take the real or imaginary part (their result is the operand's
    /// real dtype).
    pub fn returns_real_part(self) -> bool {
        matches!(self, UnaryOp::Real | UnaryOp::Imag)
    }
    /// True for transcendental functions (which some devices lack for float64).
    pub fn is_transcendental(self) -> bool {
        matches!(
            self,
            UnaryOp::Exp
                | UnaryOp::Log
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tan
                | UnaryOp::Tanh
        )
    }
}

impl BinaryOp {
    /// True for comparisons (result `Bool`).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// The read-modify-write operations of [`Stmt::AtomicRaw`] (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `old + value` (integers wrap; logical or on `Bool`).
    Add,
    /// NumPy `maximum(old, value)` (NaN propagates; or on `Bool`).
    Max,
    /// NumPy `minimum(old, value)` (NaN propagates; and on `Bool`).
    Min,
}

impl AtomicOp {
    /// The binary op whose result the update stores.
    pub fn binary(self) -> BinaryOp {
        match self {
            AtomicOp::Add => BinaryOp::Add,
            AtomicOp::Max => BinaryOp::Max,
            AtomicOp::Min => BinaryOp::Min,
        }
    }
}

/// A statement of a kernel body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// Declares local `var` (dtype `Kernel::locals[var]`) with an initial value.
    Let {
        /// Local number.
        var: usize,
        /// Initial value.
        value: Expr,
    },
    /// Assigns local `var`.
    Assign {
        /// Local number.
        var: usize,
        /// New value.
        value: Expr,
    },
    /// Writes output `output` at the current element (cast by the caller to its dtype).
    Store {
        /// Output number.
        output: usize,
        /// Value (dtype equals the output's).
        value: Expr,
    },
    /// Conditional (per element).
    If {
        /// Condition (`Bool`).
        cond: Expr,
        /// Taken when true.
        then_body: Vec<Stmt>,
        /// Taken when false.
        else_body: Vec<Stmt>,
    },
    /// `for (var = start; var < end; ++var)` with uniform `Int64` bounds.
    For {
        /// Loop variable (a local of dtype `Int64`).
        var: usize,
        /// First value.
        start: Expr,
        /// One past the last value.
        end: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// Writes element `index` (`Int64`) of raw operand `raw` (see the module docs for races).
    StoreRaw {
        /// Raw operand number.
        raw: usize,
        /// Element index, counted from the raw operand's first element.
        index: Expr,
        /// Value (dtype equals the raw operand's).
        value: Expr,
    },
    /// Atomic `raw[index] = op(raw[index], value)` (see the module docs).
    AtomicRaw {
        /// Raw operand number.
        raw: usize,
        /// The update.
        op: AtomicOp,
        /// Element index (`Int64`).
        index: Expr,
        /// Value (dtype equals the raw operand's).
        value: Expr,
        /// `Some(var)`: local `var` receives the element's value from just before this update
        /// (fetch-and-add: `Add` of an `Int32`/`UInt32` raw operand only, see the module docs).
        old: Option<usize>,
    },
}

/// An elementwise kernel: the unit every backend compiles and caches (keyed by its hash).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// A C identifier, used in generated source and messages.
    pub name: String,
    /// Elementwise input dtypes.
    pub inputs: Vec<DType>,
    /// Output dtypes.
    pub outputs: Vec<DType>,
    /// Raw (indexable, contiguous) operand dtypes.
    pub raws: Vec<DType>,
    /// Uniform parameter dtypes.
    pub params: Vec<DType>,
    /// Local variable dtypes.
    pub locals: Vec<DType>,
    /// The body, run once per element.
    pub body: Vec<Stmt>,
}
