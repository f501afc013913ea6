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
//! - Indices out of `0..len` of the raw operand are the kernel author's bug: the cpu backend
//!   drops such writes; on wgpu a write that stays inside the buffer lands there (past `len`,
//!   or before the operand for a negative index, which wraps: a view's neighbours are
//!   overwritten; seen on llvmpipe), one past the buffer is dropped; CUDA/HIP write out of
//!   bounds. Frontends check indices first (the kernel language guards every raw write with
//!   `0 <= index < len`).
//! - Backends: every backend supports `StoreRaw` for every dtype it stores. `AtomicRaw`: cpu
//!   all non-complex dtypes (and complex `Add`); CUDA/HIP all non-complex dtypes (8/16-bit types by a
//!   compare-and-swap loop on the containing 32-bit word, which every allocation covers);
//!   wgpu dtypes held in 32-bit words (bool, 8/16/32-bit integers, float16, bfloat16,
//!   float32) and `Add` of int64/uint64 (two 32-bit atomic adds with carry); float64 and
//!   64-bit integer `Max`/`Min` are refused with `DTypeNotSupported` (WGSL has only 32-bit
//!   atomics).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

mod reduce;
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

impl Expr {
    /// A constant.
    pub fn constant(v: Scalar) -> Expr {
        Expr {
            ty: v.dtype(),
            kind: ExprKind::Const(v),
        }
    }
    /// Input `k` of dtype `ty`.
    pub fn input(k: usize, ty: DType) -> Expr {
        Expr {
            ty,
            kind: ExprKind::Input(k),
        }
    }
    /// Parameter `k` of dtype `ty`.
    pub fn param(k: usize, ty: DType) -> Expr {
        Expr {
            ty,
            kind: ExprKind::Param(k),
        }
    }
    /// Local `k` of dtype `ty`.
    pub fn var(k: usize, ty: DType) -> Expr {
        Expr {
            ty,
            kind: ExprKind::Var(k),
        }
    }
    /// The flat element index.
    pub fn index() -> Expr {
        Expr {
            ty: DType::Int64,
            kind: ExprKind::Index,
        }
    }
    /// Element `index` of raw operand `raw` of dtype `ty`.
    pub fn load(raw: usize, ty: DType, index: Expr) -> Expr {
        Expr {
            ty,
            kind: ExprKind::Load {
                raw,
                index: Box::new(index),
            },
        }
    }
    /// A unary op; the result dtype follows [`UnaryOp::returns_bool`] and
    /// [`UnaryOp::returns_real_part`].
    pub fn unary(op: UnaryOp, a: Expr) -> Expr {
        let ty = if op.returns_bool() {
            DType::Bool
        } else if op.returns_real_part() {
            a.ty.real_dtype()
        } else {
            a.ty
        };
        Expr {
            ty,
            kind: ExprKind::Unary(op, Box::new(a)),
        }
    }
    /// A binary op; comparisons give `Bool`, [`BinaryOp::Complex`] the complex dtype of its
    /// parts, others the left operand's dtype.
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        let ty = if op.is_comparison() {
            DType::Bool
        } else if op == BinaryOp::Complex {
            complex_of(a.ty)
        } else {
            a.ty
        };
        Expr {
            ty,
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        }
    }
    /// The complex number `re + im·i` ([`BinaryOp::Complex`]; both float32 or both float64).
    pub fn complex(re: Expr, im: Expr) -> Expr {
        Expr::binary(BinaryOp::Complex, re, im)
    }
    /// Cast to `ty` (no node if already `ty`).
    pub fn cast(self, ty: DType) -> Expr {
        if self.ty == ty {
            self
        } else {
            Expr {
                ty,
                kind: ExprKind::Cast(Box::new(self)),
            }
        }
    }
    /// `cond ? a : b`.
    pub fn select(cond: Expr, a: Expr, b: Expr) -> Expr {
        Expr {
            ty: a.ty,
            kind: ExprKind::Select(Box::new(cond), Box::new(a), Box::new(b)),
        }
    }

    /// Calls `f` on this node and every descendant, parents first.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Const(_)
            | ExprKind::Input(_)
            | ExprKind::Param(_)
            | ExprKind::Var(_)
            | ExprKind::Index => {}
            ExprKind::Load { index, .. } => index.visit(f),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => a.visit(f),
            ExprKind::Binary(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            ExprKind::Select(c, a, b) => {
                c.visit(f);
                a.visit(f);
                b.visit(f);
            }
        }
    }

    /// Rebuilds the expression top-down: where `f` returns `Some(e)` the node is
    /// replaced by `e` (not visited further); elsewhere its children are rewritten.
    pub fn rewrite(&self, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
        if let Some(e) = f(self) {
            return e;
        }
        let kind = match &self.kind {
            ExprKind::Const(_)
            | ExprKind::Input(_)
            | ExprKind::Param(_)
            | ExprKind::Var(_)
            | ExprKind::Index => self.kind.clone(),
            ExprKind::Load { raw, index } => ExprKind::Load {
                raw: *raw,
                index: Box::new(index.rewrite(f)),
            },
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(a.rewrite(f))),
            ExprKind::Cast(a) => ExprKind::Cast(Box::new(a.rewrite(f))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(a.rewrite(f)), Box::new(b.rewrite(f)))
            }
            ExprKind::Select(c, a, b) => ExprKind::Select(
                Box::new(c.rewrite(f)),
                Box::new(a.rewrite(f)),
                Box::new(b.rewrite(f)),
            ),
        };
        Expr { ty: self.ty, kind }
    }

    /// Dtypes used anywhere in the expression (node results and operands).
    pub fn dtypes(&self, out: &mut Vec<DType>) {
        self.visit(&mut |e| {
            if !out.contains(&e.ty) {
                out.push(e.ty)
            }
        });
    }
}

/// The complex dtype whose parts are `d` (float64 -> complex128, anything else -> complex64).
pub fn complex_of(d: DType) -> DType {
    if d == DType::Float64 {
        DType::Complex128
    } else {
        DType::Complex64
    }
}

impl Stmt {
    /// Calls `f` on every statement (pre-order) of a body.
    pub fn visit_all(body: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
        for s in body {
            f(s);
            match s {
                Stmt::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    Stmt::visit_all(then_body, f);
                    Stmt::visit_all(else_body, f);
                }
                Stmt::For { body, .. } => Stmt::visit_all(body, f),
                _ => {}
            }
        }
    }

    /// The expressions directly held by this statement.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Stmt::Let { value, .. } | Stmt::Assign { value, .. } | Stmt::Store { value, .. } => {
                vec![value]
            }
            Stmt::If { cond, .. } => vec![cond],
            Stmt::For { start, end, .. } => vec![start, end],
            Stmt::StoreRaw { index, value, .. } | Stmt::AtomicRaw { index, value, .. } => {
                vec![index, value]
            }
        }
    }
}

impl Kernel {
    /// The common case: `out0 = body(inputs...)` with one output and no locals.
    pub fn map(name: &str, inputs: Vec<DType>, params: Vec<DType>, value: Expr) -> Kernel {
        Kernel {
            name: name.into(),
            inputs,
            outputs: vec![value.ty],
            raws: vec![],
            params,
            locals: vec![],
            body: vec![Stmt::Store { output: 0, value }],
        }
    }

    /// True if the body writes raw operand `k` (by [`Stmt::StoreRaw`] or [`Stmt::AtomicRaw`]);
    /// backends bind such operands writable.
    pub fn writes_raw(&self, k: usize) -> bool {
        let mut w = false;
        Stmt::visit_all(&self.body, &mut |s| match s {
            Stmt::StoreRaw { raw, .. } | Stmt::AtomicRaw { raw, .. } if *raw == k => w = true,
            _ => {}
        });
        w
    }

    /// True if the body updates raw operand `k` with [`Stmt::AtomicRaw`].
    pub fn atomic_raw(&self, k: usize) -> bool {
        let mut w = false;
        Stmt::visit_all(&self.body, &mut |s| {
            if matches!(s, Stmt::AtomicRaw { raw, .. } if *raw == k) {
                w = true
            }
        });
        w
    }

    /// True if the body writes any raw operand.
    pub fn writes_raws(&self) -> bool {
        (0..self.raws.len()).any(|k| self.writes_raw(k))
    }

    /// Every dtype the kernel touches (operands, locals, every expression node).
    pub fn dtypes(&self) -> Vec<DType> {
        let mut out = vec![];
        for d in self
            .inputs
            .iter()
            .chain(&self.outputs)
            .chain(&self.raws)
            .chain(&self.params)
            .chain(&self.locals)
        {
            if !out.contains(d) {
                out.push(*d);
            }
        }
        Stmt::visit_all(&self.body, &mut |s| {
            for e in s.exprs() {
                e.dtypes(&mut out);
            }
        });
        out
    }

    /// Checks the kernel is well formed: operand numbers in range, operand dtypes consistent,
    /// stored values of the output's (or raw operand's) dtype, raw indices `Int64`, loop bounds
    /// uniform. Backends may rely on it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the kernel and the first problem found.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::invalid(format!("kernel {}", self.name), msg));
        let mut problem: Option<String> = None;
        let check_expr = |e: &Expr, problem: &mut Option<String>| {
            e.visit(&mut |n| {
                if problem.is_none() {
                    *problem =
                        node_problem(n, &self.inputs, &self.params, &self.locals, &self.raws);
                }
            });
        };
        fn uniform(e: &Expr, loop_vars: &[usize]) -> bool {
            let mut ok = true;
            e.visit(&mut |n| match n.kind {
                ExprKind::Input(_) | ExprKind::Index | ExprKind::Load { .. } => ok = false,
                ExprKind::Var(v) if !loop_vars.contains(&v) => ok = false,
                _ => {}
            });
            ok
        }
        fn walk(
            k: &Kernel,
            body: &[Stmt],
            loop_vars: &mut Vec<usize>,
            problem: &mut Option<String>,
            check: &dyn Fn(&Expr, &mut Option<String>),
        ) {
            for s in body {
                for e in s.exprs() {
                    check(e, problem);
                }
                match s {
                    Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                        if k.locals.get(*var) != Some(&value.ty) && problem.is_none() {
                            *problem = Some(format!("local {var} assigned a {}", value.ty));
                        }
                    }
                    Stmt::Store { output, value } => {
                        if k.outputs.get(*output) != Some(&value.ty) && problem.is_none() {
                            *problem = Some(format!("output {output} stored a {}", value.ty));
                        }
                    }
                    Stmt::If {
                        cond,
                        then_body,
                        else_body,
                    } => {
                        if cond.ty != DType::Bool && problem.is_none() {
                            *problem = Some(format!("if condition is {}", cond.ty));
                        }
                        walk(k, then_body, loop_vars, problem, check);
                        walk(k, else_body, loop_vars, problem, check);
                    }
                    Stmt::For {
                        var,
                        start,
                        end,
                        body,
                    } => {
                        if problem.is_none()
                            && (k.locals.get(*var) != Some(&DType::Int64)
                                || start.ty != DType::Int64
                                || end.ty != DType::Int64)
                        {
                            *problem =
                                Some(format!("loop variable {var} and bounds must be int64"));
                        }
                        if problem.is_none()
                            && !(uniform(start, loop_vars) && uniform(end, loop_vars))
                        {
                            *problem = Some(format!("loop {var} has non-uniform bounds"));
                        }
                        loop_vars.push(*var);
                        walk(k, body, loop_vars, problem, check);
                        loop_vars.pop();
                    }
                    Stmt::StoreRaw { raw, index, value }
                    | Stmt::AtomicRaw {
                        raw, index, value, ..
                    } => {
                        if problem.is_none()
                            && (k.raws.get(*raw) != Some(&value.ty) || index.ty != DType::Int64)
                        {
                            *problem = Some(format!(
                                "raw {raw} written with a {} at an index of {} (raws {:?})",
                                value.ty, index.ty, k.raws
                            ));
                        }
                    }
                }
            }
        }
        walk(self, &self.body, &mut vec![], &mut problem, &check_expr);
        match problem {
            Some(p) => bad(p),
            None => Ok(()),
        }
    }
}

/// The first type problem of one node (not its children), given the operand dtypes it may
/// read: `None` when the node is well typed.
pub(super) fn node_problem(
    n: &Expr,
    inputs: &[DType],
    params: &[DType],
    vars: &[DType],
    raws: &[DType],
) -> Option<String> {
    match &n.kind {
        ExprKind::Const(v) if v.dtype() != n.ty => Some(format!("constant {v:?} typed {}", n.ty)),
        ExprKind::Input(k) if inputs.get(*k) != Some(&n.ty) => {
            Some(format!("input {k} read as {} (inputs {inputs:?})", n.ty))
        }
        ExprKind::Param(k) if params.get(*k) != Some(&n.ty) => {
            Some(format!("param {k} read as {} (params {params:?})", n.ty))
        }
        ExprKind::Var(k) if vars.get(*k) != Some(&n.ty) => {
            Some(format!("local {k} read as {} (locals {vars:?})", n.ty))
        }
        ExprKind::Index if n.ty != DType::Int64 => Some(format!("index typed {}", n.ty)),
        ExprKind::Load { raw, index }
            if raws.get(*raw) != Some(&n.ty) || index.ty != DType::Int64 =>
        {
            Some(format!(
                "raw {raw} loaded as {} with index {}",
                n.ty, index.ty
            ))
        }
        ExprKind::Binary(op, a, b)
            if !matches!(op, BinaryOp::Shl | BinaryOp::Shr) && a.ty != b.ty =>
        {
            Some(format!("{op:?} of {} and {}", a.ty, b.ty))
        }
        ExprKind::Binary(BinaryOp::Complex, a, _)
            if !matches!(a.ty, DType::Float32 | DType::Float64) || n.ty != complex_of(a.ty) =>
        {
            Some(format!("Complex of {} parts typed {}", a.ty, n.ty))
        }
        ExprKind::Unary(op @ (UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj), a)
            if !a.ty.is_complex()
                || n.ty
                    != if *op == UnaryOp::Conj {
                        a.ty
                    } else {
                        a.ty.real_dtype()
                    } =>
        {
            Some(format!("{op:?} of {} typed {}", a.ty, n.ty))
        }
        ExprKind::Select(c, a, b) if c.ty != DType::Bool || a.ty != n.ty || b.ty != n.ty => Some(
            format!("select({}, {}, {}) typed {}", c.ty, a.ty, b.ty, n.ty),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_catches_mismatches() {
        let k = Kernel::map(
            "add",
            vec![DType::Float32, DType::Float32],
            vec![],
            Expr::binary(
                BinaryOp::Add,
                Expr::input(0, DType::Float32),
                Expr::input(1, DType::Float32),
            ),
        );
        k.validate().unwrap();
        let mut bad = k.clone();
        bad.inputs[1] = DType::Int32;
        assert!(bad.validate().is_err());
        let lp = Kernel {
            name: "loop".into(),
            inputs: vec![DType::Float32],
            outputs: vec![DType::Float32],
            raws: vec![],
            params: vec![],
            locals: vec![DType::Int64],
            body: vec![Stmt::For {
                var: 0,
                start: Expr::constant(Scalar::Int64(0)),
                end: Expr::input(0, DType::Float32).cast(DType::Int64),
                body: vec![],
            }],
        };
        assert!(lp
            .validate()
            .unwrap_err()
            .to_string()
            .contains("non-uniform"));
    }

    #[test]
    fn complex_parts_are_typed() {
        let z = Expr::input(0, DType::Complex64);
        assert_eq!(Expr::unary(UnaryOp::Real, z.clone()).ty, DType::Float32);
        assert_eq!(Expr::unary(UnaryOp::Imag, z.clone()).ty, DType::Float32);
        assert_eq!(Expr::unary(UnaryOp::Conj, z.clone()).ty, DType::Complex64);
        let re = Expr::input(1, DType::Float64);
        assert_eq!(Expr::complex(re.clone(), re.clone()).ty, DType::Complex128);
        let k = |value: Expr| Kernel {
            name: "c".into(),
            inputs: vec![DType::Complex64, DType::Float64],
            outputs: vec![value.ty],
            raws: vec![],
            params: vec![],
            locals: vec![],
            body: vec![Stmt::Store { output: 0, value }],
        };
        k(Expr::unary(UnaryOp::Imag, z.clone())).validate().unwrap();
        k(Expr::complex(re.clone(), re.clone())).validate().unwrap();
        // Parts of a real operand, or a complex of mistyped parts, are refused.
        assert!(k(Expr::unary(UnaryOp::Real, re.clone()))
            .validate()
            .is_err());
        let bad = Expr {
            ty: DType::Complex64,
            kind: ExprKind::Binary(BinaryOp::Complex, Box::new(re.clone()), Box::new(re)),
        };
        assert!(k(bad).validate().is_err());
    }

    #[test]
    fn raw_writes_validate_and_report() {
        let f = DType::Float32;
        let k = Kernel {
            name: "scatter".into(),
            inputs: vec![DType::Int64, f],
            outputs: vec![],
            raws: vec![f, f],
            params: vec![],
            locals: vec![],
            body: vec![Stmt::AtomicRaw {
                raw: 1,
                op: AtomicOp::Add,
                index: Expr::input(0, DType::Int64),
                value: Expr::input(1, f),
            }],
        };
        k.validate().unwrap();
        assert!(!k.writes_raw(0) && k.writes_raw(1) && k.atomic_raw(1) && k.writes_raws());
        let mut bad = k.clone();
        bad.raws[1] = DType::Int32;
        assert!(bad.validate().unwrap_err().to_string().contains("raw 1"));
        let mut bad = k.clone();
        bad.body = vec![Stmt::StoreRaw {
            raw: 0,
            index: Expr::input(1, f),
            value: Expr::input(1, f),
        }];
        assert!(bad.validate().is_err());
        bad.body = vec![Stmt::StoreRaw {
            raw: 0,
            index: Expr::input(0, DType::Int64),
            value: Expr::input(1, f),
        }];
        bad.validate().unwrap();
        assert!(bad.writes_raw(0) && !bad.atomic_raw(0));
    }
}
