//! Lowering: type-checks the syntax tree and turns it into kernel IR.
//!
//! One engine serves two modes. In statement mode (an elementwise operation) locals are IR
//! locals and control flow is IR `If`/`For`. In expression mode (reduction expressions, whose
//! IR slots are single expressions) locals are symbolic values: a statement sequence is folded
//! into one expression by substitution, and `if`/`else` becomes `Select`.

mod call;
mod expr;
mod inline;
mod methods;
mod places;
mod stmt;
mod structs;
mod templates;

use std::collections::HashMap;

use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, ExprKind, Stmt, UnaryOp as U};
use crate::kernel::lang::syntax::{
    ind_misuse, perr, BOp, Ex, ExK, Func, LVal, PErr, PResult, St, TArg, UOp,
};
use crate::kernel::lang::types::{promote_int, resolve_type, usual, weak_with, Lit, Ty};
use crate::kernel::math::{self, Bind};
use crate::scalar::Scalar;

/// Largest expression (nodes) built by substitution in expression mode.
const MAX_NODES: usize = 50_000;
/// Deepest IR expression built by substitution in expression mode.
const MAX_IR_DEPTH: usize = 600;
/// Deepest chain of inlined preamble calls.
const MAX_INLINE: usize = 16;
/// The most elements a local array may have (each is a kernel local; a non-constant index
/// selects over all of them).
const MAX_ARRAY: usize = 64;

/// A typed value during lowering.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub e: Expr,
    /// An untyped literal (or a constant expression of literals): NumPy's weak scalar.
    pub weak: bool,
    /// The exact value of a (folded) literal.
    pub lit: Option<Lit>,
}

impl Val {
    fn strong(e: Expr) -> Val {
        Val {
            e,
            weak: false,
            lit: None,
        }
    }
    fn ty(&self) -> DType {
        self.e.ty
    }
}

/// What a name refers to.
#[derive(Clone, Debug)]
pub(crate) enum Sym {
    /// A local variable (slot: IR local in statement mode, env entry in expression mode).
    Local {
        slot: usize,
        ty: DType,
        /// Output number, for kernel outputs.
        out: Option<usize>,
        /// Its value if known to be uniform and not reassigned (for loop bounds).
        uniform: Option<Expr>,
    },
    /// A `for` loop variable: read-only, its value in terms of the IR loop counter.
    LoopVar { value: Expr },
    /// A read-only value (input, param, `a`/`b`).
    Fixed { e: Expr, what: &'static str },
    /// A raw operand.
    Raw { k: usize, ty: DType },
    /// A local array of `len` elements, locals named `name[0]` .. `name[len - 1]`.
    Array { len: usize, ty: DType },
    /// A variable of preamble struct `ty`, its fields the names `name.field`.
    Struct { ty: String },
    /// An array of `len` structs `ty`, its elements the structs `name[0]` .. `name[len - 1]`.
    StructArray { len: usize, ty: String },
}

/// The lowering state.
pub(crate) struct Lowering<'a> {
    pub part: &'static str,
    /// Placeholder values, and the template parameters of the function being inlined.
    pub types: std::borrow::Cow<'a, [(String, DType)]>,
    pub funcs: &'a HashMap<String, Func>,
    /// Preamble structs.
    pub structs: &'a HashMap<String, crate::kernel::lang::syntax::StructDef>,
    /// Per enclosing inlined function: its struct return type and the return leaves' slots.
    pub inline_struct: Vec<Option<structs::StructRet>>,
    /// The template structs' instances used so far, by name (`P<float32,3>`).
    pub struct_insts: HashMap<String, structs::StructInst>,
    /// The struct types of the enclosing member functions' objects (innermost last).
    pub this_struct: Vec<String>,
    /// Whether the preamble defines structs or overloaded operators (else operators are
    /// never looked up).
    pub has_operators: bool,
    /// `#define` macros: name -> (part, value).
    pub macros: &'a HashMap<String, (&'static str, Ex)>,
    /// Macros being expanded (recursion guard).
    pub expanding: Vec<String>,
    pub stmt_mode: bool,
    pub locals: Vec<DType>,
    pub env: Vec<Option<Expr>>,
    pub scopes: Vec<HashMap<String, Sym>>,
    pub sinks: Vec<Vec<Stmt>>,
    pub guards: Vec<Expr>,
    /// `i` is available.
    pub index_ok: bool,
    /// Param numbers of `_ind.size()`, `_in_ind.size()`, `_out_ind.size()`.
    pub size_ind: Option<usize>,
    pub size_in: Option<usize>,
    pub size_out: Option<usize>,
    pub uses_size: bool,
    /// Per output: read while possibly unassigned.
    pub out_read: Vec<bool>,
    /// Per output: definitely assigned on the current path.
    pub out_def: Vec<bool>,
    /// Per local slot (statement mode): the loop depth of its declaration, and whether its
    /// value was substituted into a loop bound.
    pub decl_depth: Vec<usize>,
    pub substituted: Vec<bool>,
    /// IR loop counters of the enclosing loops.
    pub loop_vars: Vec<usize>,
    /// Lowering a loop bound: locals with uniform values are substituted (slots recorded).
    pub bound_mode: Option<Vec<usize>>,
    /// Enclosing inlined functions: (name, return slot, return type, loop depth at the call).
    pub inline: Vec<(String, usize, DType, usize)>,
    /// First param number free for raw-operand lengths (`None`: raw arrays have no length
    /// here, so they cannot be written or asked their `size()`).
    pub raw_len_base: Option<usize>,
    /// (raw operand, which size, param): the `Int64` params holding raw operands' sizes,
    /// numbered from `raw_len_base` in this order.
    pub raw_lens: Vec<(usize, super::RawMeta, usize)>,
}

impl Bind for Lowering<'_> {
    fn bind(&mut self, e: Expr) -> Expr {
        Lowering::bind(self, e)
    }
}

/// The right-hand side of a raw write.
enum RawRhs<'e> {
    /// `x[j] = e` / `x[j] op= e`.
    Value(&'e Ex),
    /// `x[j]++` / `x[j]--`.
    One,
}

fn c(v: Scalar) -> Expr {
    Expr::constant(v)
}
fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn un(op: U, a: Expr) -> Expr {
    Expr::unary(op, a)
}

/// True if `e` only reads constants, params and the given loop counters.
pub(crate) fn is_uniform(e: &Expr, loop_vars: &[usize]) -> bool {
    let mut ok = true;
    e.visit(&mut |n| match n.kind {
        ExprKind::Input(_) | ExprKind::Index | ExprKind::Load { .. } => ok = false,
        ExprKind::Var(v) if !loop_vars.contains(&v) => ok = false,
        _ => {}
    });
    ok
}

/// Node count and depth of `e`, iteratively, stopping early past the limits.
fn too_big(e: &Expr) -> bool {
    let mut stack = vec![(e, 1usize)];
    let mut nodes = 0;
    while let Some((n, d)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_NODES || d > MAX_IR_DEPTH {
            return true;
        }
        match &n.kind {
            ExprKind::Load { index, .. } => stack.push((index, d + 1)),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => stack.push((a, d + 1)),
            ExprKind::Binary(_, a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            ExprKind::Select(x, a, b) => {
                stack.push((x, d + 1));
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            _ => {}
        }
    }
    false
}

/// Folds a constant expression (literals, casts, negation, `Select` of constants) to a scalar.
pub(crate) fn fold(e: &Expr) -> Option<Scalar> {
    match &e.kind {
        ExprKind::Const(v) => Some(*v),
        ExprKind::Cast(a) => Some(fold(a)?.cast(e.ty)),
        ExprKind::Unary(U::Neg, a) => {
            let v = fold(a)?;
            Some(match v {
                Scalar::Float16(x) => Scalar::Float16(-x),
                Scalar::BFloat16(x) => Scalar::BFloat16(-x),
                Scalar::Float32(x) => Scalar::Float32(-x),
                Scalar::Float64(x) => Scalar::Float64(-x),
                s if s.dtype().is_integer() => {
                    Scalar::Int64(0i64.wrapping_sub(s.to_i128() as i64)).cast(s.dtype())
                }
                _ => return None,
            })
        }
        ExprKind::Unary(U::BitNot, a) => {
            let v = fold(a)?;
            v.dtype()
                .is_integer()
                .then(|| Scalar::Int64(!(v.to_i128() as i64)).cast(v.dtype()))
        }
        // Integer arithmetic of constants (template arguments such as `N - 1`), wrapping in
        // the node's type as the kernel would.
        ExprKind::Binary(op, a, b) if a.ty.is_integer() || a.ty.is_bool() => {
            let (x, y) = (fold(a)?.to_i128(), fold(b)?.to_i128());
            let r = match op {
                B::Add => x.wrapping_add(y),
                B::Sub => x.wrapping_sub(y),
                B::Mul => x.wrapping_mul(y),
                B::Div if y != 0 => x / y,
                B::Shl if (0..64).contains(&y) => x << y,
                B::Shr if (0..64).contains(&y) => x >> y,
                B::And => x & y,
                B::Or => x | y,
                B::Xor => x ^ y,
                B::Eq => (x == y) as i128,
                B::Ne => (x != y) as i128,
                B::Lt => (x < y) as i128,
                B::Le => (x <= y) as i128,
                B::Gt => (x > y) as i128,
                B::Ge => (x >= y) as i128,
                _ => return None,
            };
            Some(if e.ty == DType::Bool {
                Scalar::Bool(r != 0)
            } else {
                Scalar::Int64(r as i64).cast(e.ty)
            })
        }
        ExprKind::Select(k, a, b) => match fold(k)? {
            Scalar::Bool(true) => fold(a),
            Scalar::Bool(false) => fold(b),
            _ => None,
        },
        _ => None,
    }
}

/// Moves statements that follow an `if` containing a `return` into its arms, so that every
/// `return` ends its path (then a return is an assignment of the result).
pub(crate) fn normalize_returns(stmts: Vec<St>) -> Vec<St> {
    fn has_return(s: &St) -> bool {
        match s {
            St::Return { .. } => true,
            St::If { then, els, .. } => has_return(then) || els.as_deref().is_some_and(has_return),
            St::Block(v) => v.iter().any(has_return),
            St::For { body, .. } => has_return(body),
            _ => false,
        }
    }
    let mut out = vec![];
    let mut it = stmts.into_iter();
    while let Some(s) = it.next() {
        match s {
            St::Return { .. } => {
                out.push(s);
                return out; // the rest is dead code
            }
            St::If {
                pos,
                cond,
                then,
                els,
            } if has_return(&then) || els.as_deref().is_some_and(has_return) => {
                let rest: Vec<St> = it.collect();
                let then2 = normalize_returns(vec![*then, St::Block(rest.clone())]);
                let mut e = vec![];
                if let Some(x) = els {
                    e.push(*x);
                }
                e.push(St::Block(rest));
                let els2 = normalize_returns(e);
                out.push(St::If {
                    pos,
                    cond,
                    then: Box::new(St::Block(then2)),
                    els: Some(Box::new(St::Block(els2))),
                });
                return out;
            }
            St::Block(v) if v.iter().any(has_return) => {
                let rest: Vec<St> = it.collect();
                let mut v2 = v;
                v2.push(St::Block(rest));
                out.push(St::Block(normalize_returns(v2)));
                return out;
            }
            s => out.push(s),
        }
    }
    out
}

pub(crate) const COMPLEX_TO_REAL: &str =
    "converting a complex value to a real type is not supported: take real(z), imag(z) or abs(z)";

const COMPLEX_NAMES: &str = "real imag conj abs arg norm polar exp log log10 sqrt pow sin cos \
tan sinh cosh tanh isnan isinf isfinite";

const MATH_NAMES: &str = "sqrt exp log sin cos tan tanh floor ceil fabs abs fmax fmin max min \
pow atan2 isnan isinf isfinite rsqrt exp2 exp10 log2 log10 log1p expm1 sinh cosh asin acos atan \
asinh acosh atanh trunc round rint nearbyint fmod hypot fma copysign signbit (and the f-suffixed \
forms: sqrtf, expf, ...)";

impl Lowering<'_> {
    fn err<T>(&self, pos: usize, msg: impl Into<String>) -> PResult<T> {
        perr(self.part, pos, msg)
    }

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn declare(&mut self, pos: usize, name: &str, sym: Sym) -> PResult<()> {
        if crate::kernel::lang::types::is_reserved_name(name) && name != "i" {
            return self.err(pos, format!("`{name}` is a reserved word"));
        }
        let scope = self.scopes.last_mut().expect("scope");
        if scope.contains_key(name) {
            return self.err(pos, format!("redeclaration of `{name}` in the same scope"));
        }
        scope.insert(name.to_string(), sym);
        Ok(())
    }

    /// A new local slot of `ty` initialised to `value`.
    fn new_local(&mut self, ty: DType, value: Expr) -> usize {
        if self.stmt_mode {
            let slot = self.locals.len();
            self.locals.push(ty);
            self.decl_depth.push(self.loop_vars.len());
            self.substituted.push(false);
            self.emit(Stmt::Let { var: slot, value });
            slot
        } else {
            self.env.push(Some(value));
            self.env.len() - 1
        }
    }

    fn emit(&mut self, s: Stmt) {
        self.sinks.last_mut().expect("sink").push(s);
    }

    /// Evaluates `e` once: a temporary local in statement mode, the expression itself otherwise.
    fn bind(&mut self, e: Expr) -> Expr {
        if !self.stmt_mode
            || matches!(
                e.kind,
                ExprKind::Const(_)
                    | ExprKind::Var(_)
                    | ExprKind::Param(_)
                    | ExprKind::Input(_)
                    | ExprKind::Index
            )
        {
            return e;
        }
        let ty = e.ty;
        let slot = self.new_local(ty, e);
        Expr::var(slot, ty)
    }

    fn check_size(&self, pos: usize, e: &Expr) -> PResult<()> {
        if !self.stmt_mode && too_big(e) {
            return self.err(
                pos,
                "expression too large once its statements are substituted into one expression",
            );
        }
        Ok(())
    }

    /// The `Int64` param holding raw operand `k`'s length (allocated on first use).
    fn raw_len(&mut self, pos: usize, k: usize) -> PResult<Expr> {
        self.raw_meta(pos, k, super::RawMeta::Size)
    }

    /// The `Int64` param holding size `what` of raw operand `k` (allocated on first use).
    pub(super) fn raw_meta(&mut self, pos: usize, k: usize, what: super::RawMeta) -> PResult<Expr> {
        let Some(base) = self.raw_len_base else {
            return self.err(pos, "raw arrays have no size here");
        };
        let p = match self.raw_lens.iter().find(|(r, w, _)| *r == k && *w == what) {
            Some(&(_, _, p)) => p,
            None => {
                let p = base + self.raw_lens.len();
                self.raw_lens.push((k, what, p));
                p
            }
        };
        Ok(Expr::param(p, DType::Int64))
    }

    /// Converts `v` to `t` (weak literals re-typed exactly).
    fn conv(&self, v: &Val, t: DType) -> Expr {
        match v.lit {
            Some(l) if v.weak || v.e.ty != t => c(l.scalar(t)),
            _ if v.weak => retype(&v.e, t),
            _ => v.e.clone().cast(t),
        }
    }

    /// [`Self::conv`] for the entry points.
    pub(crate) fn conv_pub(&self, v: &Val, t: DType) -> Expr {
        self.conv(v, t)
    }

    /// The common type of a binary arithmetic operation.
    fn common(&self, a: &Val, b: &Val) -> DType {
        // A weak integer literal that does not fit the other operand's (promoted) type is
        // typed as C types it (`3000000000 + k` is int64).
        let fits = |w: &Val, t: DType| match w.lit {
            Some(Lit::I(v)) if t.is_integer() || t.is_bool() => {
                let pt = promote_int(t);
                Lit::I(v).scalar(pt).to_i128() == v
            }
            _ => true,
        };
        match (a.weak, b.weak) {
            (true, false) if fits(a, b.ty()) => weak_with(a.ty(), b.ty()),
            (false, true) if fits(b, a.ty()) => weak_with(b.ty(), a.ty()),
            _ => usual(a.ty(), b.ty()),
        }
    }

    fn to_bool(&self, pos: usize, v: &Val) -> PResult<Expr> {
        if v.ty().is_complex() {
            return self.err(
                pos,
                "a complex value cannot be used as a condition: compare it (`z != 0`) or test a \
                 part (`real(z) > 0`)",
            );
        }
        Ok(if v.ty() == DType::Bool {
            v.e.clone()
        } else {
            bin(B::Ne, v.e.clone(), c(Scalar::zero(v.ty())))
        })
    }

    fn resolve(&self, pos: usize, words: &[String]) -> PResult<Ty> {
        match resolve_type(words, &self.types) {
            Some(t) => Ok(t),
            None => self.err(pos, format!("unknown type `{}`", words.join(" "))),
        }
    }

    fn resolve_d(&self, pos: usize, words: &[String]) -> PResult<DType> {
        match self.resolve(pos, words)? {
            Ty::D(d) => Ok(d),
            Ty::Auto => self.err(
                pos,
                "`auto` is only allowed in a declaration with an initialiser",
            ),
        }
    }

    // ---------------------------------------------------------------- expressions
}

/// Converts a weak (literal-only) float expression to float type `t` node by node, so
/// `x * (c ? 1.0 : 0.5)` on float32 needs no float64 arithmetic.
fn retype(e: &Expr, t: DType) -> Expr {
    if !(e.ty.is_float() && t.is_float()) {
        return e.clone().cast(t);
    }
    match &e.kind {
        ExprKind::Const(v) => c(v.cast(t)),
        ExprKind::Select(k, a, b) => Expr::select((**k).clone(), retype(a, t), retype(b, t)),
        ExprKind::Binary(op @ (B::Add | B::Sub | B::Mul | B::Div), a, b) => {
            bin(*op, retype(a, t), retype(b, t))
        }
        ExprKind::Unary(U::Neg, a) => un(U::Neg, retype(a, t)),
        _ => e.clone().cast(t),
    }
}

fn lit_f(l: Lit) -> f64 {
    match l {
        Lit::I(i) => i as f64,
        Lit::F(f) => f,
    }
}
