//! Lowering: type-checks the syntax tree and turns it into kernel IR.
//!
//! One engine serves two modes. In statement mode (an elementwise operation) locals are IR
//! locals and control flow is IR `If`/`For`. In expression mode (reduction expressions, whose
//! IR slots are single expressions) locals are symbolic values: a statement sequence is folded
//! into one expression by substitution, and `if`/`else` becomes `Select`.

use std::collections::HashMap;

use super::syntax::{ind_misuse, perr, BOp, Ex, ExK, Func, LVal, PErr, PResult, St, UOp};
use super::types::{promote_int, resolve_type, usual, weak_with, Lit, Ty};
use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, ExprKind, Stmt, UnaryOp as U};
use crate::kernel::math::{self, Bind};
use crate::scalar::Scalar;

/// Largest expression (nodes) built by substitution in expression mode.
const MAX_NODES: usize = 50_000;
/// Deepest IR expression built by substitution in expression mode.
const MAX_IR_DEPTH: usize = 600;
/// Deepest chain of inlined preamble calls.
const MAX_INLINE: usize = 16;

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
}

/// The lowering state.
pub(crate) struct Cx<'a> {
    pub part: &'static str,
    pub types: &'a [(String, DType)],
    pub funcs: &'a HashMap<String, Func>,
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
    /// (raw operand, param) pairs: the `Int64` params holding raw operands' lengths, numbered
    /// from `raw_len_base` in this order.
    pub raw_lens: Vec<(usize, usize)>,
}

impl Bind for Cx<'_> {
    fn bind(&mut self, e: Expr) -> Expr {
        Cx::bind(self, e)
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

impl Cx<'_> {
    fn err<T>(&self, pos: usize, msg: impl Into<String>) -> PResult<T> {
        perr(self.part, pos, msg)
    }

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn declare(&mut self, pos: usize, name: &str, sym: Sym) -> PResult<()> {
        if super::types::is_reserved_name(name) && name != "i" {
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
        let Some(base) = self.raw_len_base else {
            return self.err(pos, "raw arrays have no size here");
        };
        let p = match self.raw_lens.iter().find(|(r, _)| *r == k) {
            Some(&(_, p)) => p,
            None => {
                let p = base + self.raw_lens.len();
                self.raw_lens.push((k, p));
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
        match resolve_type(words, self.types) {
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

    pub(crate) fn expr(&mut self, x: &Ex) -> PResult<Val> {
        let pos = x.pos;
        match &x.k {
            ExK::Int(text) => {
                let (v, t, weak) = super::types::int_literal(text).or_else(|m| self.err(pos, m))?;
                let lit = Lit::I(v as i128);
                Ok(Val {
                    e: c(lit.scalar(t)),
                    weak,
                    lit: Some(lit),
                })
            }
            ExK::Float(text) => {
                let (s, weak) = super::types::float_literal(text).or_else(|m| self.err(pos, m))?;
                Ok(Val {
                    e: c(s),
                    weak,
                    lit: Some(Lit::F(s.to_f64())),
                })
            }
            ExK::Bool(b) => Ok(Val::strong(c(Scalar::Bool(*b)))),
            ExK::Name(n) => self.name(pos, n),
            ExK::IndSize(which) => {
                let p = match which.as_str() {
                    "_ind" => self.size_ind,
                    "_in_ind" => self.size_in,
                    _ => self.size_out,
                };
                match p {
                    Some(k) => {
                        self.uses_size = true;
                        Ok(Val::strong(Expr::param(k, DType::Int64)))
                    }
                    None => {
                        let hint = if self.size_ind.is_some() {
                            " (an ElementwiseKernel has `_ind.size()`)"
                        } else if self.size_in.is_some() {
                            " (a ReductionKernel has `_in_ind.size()` and `_out_ind.size()`)"
                        } else {
                            ""
                        };
                        self.err(pos, format!("`{which}.size()` is not available here{hint}"))
                    }
                }
            }
            ExK::Index(base, ix) => {
                let (k, ty) = match &base.k {
                    ExK::Name(n) => match self.lookup(n) {
                        Some(Sym::Raw { k, ty }) => (*k, *ty),
                        Some(_) => {
                            return self.err(
                                pos,
                                format!("`{n}` is not a raw array: declare it `raw` to index it"),
                            )
                        }
                        None => return self.err(pos, format!("unknown name `{n}`")),
                    },
                    _ => return self.err(pos, "only raw array parameters can be indexed"),
                };
                let iv = self.expr(ix)?;
                if !(iv.ty().is_integer() || iv.ty().is_bool()) {
                    return self.err(
                        ix.pos,
                        format!("array index must be an integer, not {}", iv.ty()),
                    );
                }
                let mut idx = self.conv(&iv, DType::Int64);
                if !self.guards.is_empty() {
                    // Under `c && x[j]` or `c ? x[j] : ..`: read element 0 where `c` is false
                    // (C would not evaluate the read at all).
                    let mut g = self.guards[0].clone();
                    for h in &self.guards[1..] {
                        g = bin(B::And, g, h.clone());
                    }
                    idx = Expr::select(g, idx, c(Scalar::Int64(0)));
                }
                Ok(Val::strong(Expr::load(k, ty, idx)))
            }
            ExK::Call(name, args) => self.call(pos, name, args),
            ExK::Member(base, member) => self.member(pos, base, member),
            ExK::Cast(words, a) => {
                let t = self.resolve_d(pos, words)?;
                let v = self.expr(a)?;
                if v.ty().is_complex() && !t.is_complex() {
                    return self.err(pos, COMPLEX_TO_REAL);
                }
                Ok(Val::strong(self.conv(&v, t)))
            }
            ExK::Unary(op, a) => {
                let v = self.expr(a)?;
                self.unary(pos, *op, v)
            }
            ExK::Binary(op, a, b) => self.binary(pos, *op, a, b),
            ExK::Cond(cx, a, b) => {
                let cv = self.expr(cx)?;
                let cb = self.to_bool(cx.pos, &cv)?;
                self.guards.push(cb.clone());
                let av = self.expr(a);
                self.guards.pop();
                let av = av?;
                self.guards.push(un(U::Not, cb.clone()));
                let bv = self.expr(b);
                self.guards.pop();
                let bv = bv?;
                let t = self.common(&av, &bv);
                let e = Expr::select(cb, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val {
                    e,
                    weak: av.weak && bv.weak,
                    lit: None,
                })
            }
        }
    }

    fn name(&mut self, pos: usize, n: &str) -> PResult<Val> {
        if let Some(sym) = self.lookup(n).cloned() {
            return match sym {
                Sym::Local {
                    slot,
                    ty,
                    out,
                    uniform,
                } => {
                    if let Some(bound) = &mut self.bound_mode {
                        if let Some(u) = uniform {
                            bound.push(slot);
                            return Ok(Val::strong(u));
                        }
                    }
                    if let Some(k) = out {
                        if !self.out_def[k] {
                            self.out_read[k] = true;
                        }
                    }
                    if self.stmt_mode {
                        Ok(Val::strong(Expr::var(slot, ty)))
                    } else {
                        match &self.env[slot] {
                            Some(e) => Ok(Val::strong(e.clone())),
                            None => self.err(pos, format!("`{n}` is read before it is assigned")),
                        }
                    }
                }
                Sym::LoopVar { value } => Ok(Val::strong(value)),
                Sym::Fixed { e, .. } => Ok(Val::strong(e)),
                Sym::Raw { .. } => {
                    self.err(pos, format!("raw array `{n}` must be indexed (`{n}[j]`)"))
                }
            };
        }
        if let Some((part, body)) = self.macros.get(n) {
            if self.expanding.iter().any(|m| m == n) || self.expanding.len() >= MAX_INLINE {
                return self.err(pos, format!("macro `{n}` expands recursively"));
            }
            let saved = std::mem::replace(&mut self.part, part);
            self.expanding.push(n.to_string());
            let r = self.expr(body);
            self.expanding.pop();
            self.part = saved;
            return r;
        }
        if n == "i" {
            return if self.index_ok {
                Ok(Val::strong(Expr::index()))
            } else {
                self.err(pos, "`i` (the element index) is not available here")
            };
        }
        let weak_f = |v: f64| {
            Ok(Val {
                e: c(Scalar::Float64(v)),
                weak: true,
                lit: Some(Lit::F(v)),
            })
        };
        let weak_i = |v: i128, t: DType| {
            Ok(Val {
                e: c(Lit::I(v).scalar(t)),
                weak: true,
                lit: Some(Lit::I(v)),
            })
        };
        use std::f64::consts as K;
        match n {
            "M_PI" => weak_f(K::PI),
            "M_E" => weak_f(K::E),
            "M_PI_2" => weak_f(K::FRAC_PI_2),
            "M_PI_4" => weak_f(K::FRAC_PI_4),
            "M_1_PI" => weak_f(K::FRAC_1_PI),
            "M_2_PI" => weak_f(K::FRAC_2_PI),
            "M_2_SQRTPI" => weak_f(K::FRAC_2_SQRT_PI),
            "M_SQRT2" => weak_f(K::SQRT_2),
            "M_SQRT1_2" => weak_f(K::FRAC_1_SQRT_2),
            "M_LN2" => weak_f(K::LN_2),
            "M_LN10" => weak_f(K::LN_10),
            "M_LOG2E" => weak_f(K::LOG2_E),
            "M_LOG10E" => weak_f(K::LOG10_E),
            "INFINITY" | "HUGE_VAL" | "CUDART_INF" => weak_f(f64::INFINITY),
            "NAN" | "CUDART_NAN" => weak_f(f64::NAN),
            "DBL_MAX" => weak_f(f64::MAX),
            "DBL_MIN" => weak_f(f64::MIN_POSITIVE),
            "DBL_EPSILON" => weak_f(f64::EPSILON),
            "CUDART_INF_F" | "HUGE_VALF" => Ok(Val::strong(c(Scalar::Float32(f32::INFINITY)))),
            "CUDART_NAN_F" => Ok(Val::strong(c(Scalar::Float32(f32::NAN)))),
            "FLT_MAX" => Ok(Val::strong(c(Scalar::Float32(f32::MAX)))),
            "FLT_MIN" => Ok(Val::strong(c(Scalar::Float32(f32::MIN_POSITIVE)))),
            "FLT_EPSILON" => Ok(Val::strong(c(Scalar::Float32(f32::EPSILON)))),
            "INT_MAX" => weak_i(i32::MAX as i128, DType::Int32),
            "INT_MIN" => weak_i(i32::MIN as i128, DType::Int32),
            "LLONG_MAX" | "LONG_MAX" => weak_i(i64::MAX as i128, DType::Int64),
            "LLONG_MIN" | "LONG_MIN" => weak_i(i64::MIN as i128, DType::Int64),
            "UINT_MAX" => Ok(Val::strong(c(Scalar::UInt32(u32::MAX)))),
            "ULLONG_MAX" | "ULONG_MAX" => Ok(Val::strong(c(Scalar::UInt64(u64::MAX)))),
            "_ind" | "_in_ind" | "_out_ind" => self.err(pos, ind_misuse(n, n)),
            _ => self.err(pos, format!("unknown name `{n}`")),
        }
    }

    fn unary(&mut self, pos: usize, op: UOp, v: Val) -> PResult<Val> {
        match op {
            UOp::Not => {
                let b = self.to_bool(pos, &v)?;
                Ok(Val::strong(un(U::Not, b)))
            }
            UOp::Pos | UOp::Neg => {
                let t = promote_int(v.ty());
                if op == UOp::Pos {
                    return Ok(Val {
                        e: self.conv(&v, t),
                        ..v
                    });
                }
                if let Some(l) = v.lit {
                    let nl = match l {
                        Lit::I(i) => Lit::I(-i),
                        Lit::F(f) => Lit::F(-f),
                    };
                    // The literal's type, re-evaluated for the negated value (C keeps the type of
                    // the positive literal; `-2147483648` is int64 in both).
                    if v.weak || matches!(l, Lit::F(_)) || t.is_signed_integer() {
                        return Ok(Val {
                            e: c(nl.scalar(t)),
                            weak: v.weak,
                            lit: Some(nl),
                        });
                    }
                }
                Ok(Val {
                    e: un(U::Neg, self.conv(&v, t)),
                    weak: v.weak,
                    lit: None,
                })
            }
            UOp::BitNot => {
                if !(v.ty().is_integer() || v.ty().is_bool()) {
                    return self.err(pos, format!("`~` needs an integer operand, not {}", v.ty()));
                }
                let t = promote_int(v.ty());
                if let (Some(Lit::I(i)), true) = (v.lit, v.weak) {
                    let r = c(Lit::I(i).scalar(t));
                    let f = fold(&un(U::BitNot, r)).expect("const");
                    return Ok(Val {
                        e: c(f),
                        weak: true,
                        lit: Some(Lit::I(f.to_i128())),
                    });
                }
                Ok(Val::strong(un(U::BitNot, self.conv(&v, t))))
            }
        }
    }

    fn binary(&mut self, pos: usize, op: BOp, a: &Ex, b: &Ex) -> PResult<Val> {
        let av = self.expr(a)?;
        if matches!(op, BOp::LAnd | BOp::LOr) {
            let ca = self.to_bool(a.pos, &av)?;
            let g = if op == BOp::LAnd {
                ca.clone()
            } else {
                un(U::Not, ca.clone())
            };
            self.guards.push(g);
            let bv = self.expr(b);
            self.guards.pop();
            let bv = bv?;
            let cb = self.to_bool(b.pos, &bv)?;
            let o = if op == BOp::LAnd { B::And } else { B::Or };
            return Ok(Val::strong(bin(o, ca, cb)));
        }
        let bv = self.expr(b)?;
        self.arith(pos, op, av, bv)
    }

    /// A binary operation on two lowered values (also used by compound assignment).
    fn arith(&mut self, pos: usize, op: BOp, av: Val, bv: Val) -> PResult<Val> {
        if (av.ty().is_complex() || bv.ty().is_complex())
            && matches!(op, BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge)
        {
            return self.err(
                pos,
                format!(
                    "`{}` is not defined for complex values (compare real(z), imag(z) or abs(z))",
                    op.symbol()
                ),
            );
        }
        let weak = av.weak && bv.weak;
        let is_int = |t: DType| t.is_integer() || t.is_bool();
        match op {
            BOp::Shl | BOp::Shr => {
                if !is_int(av.ty()) || !is_int(bv.ty()) {
                    return self.err(
                        pos,
                        format!(
                            "`{}` needs integer operands, not {} and {}",
                            op.symbol(),
                            av.ty(),
                            bv.ty()
                        ),
                    );
                }
                let t = promote_int(av.ty());
                let o = if op == BOp::Shl { B::Shl } else { B::Shr };
                let e = bin(o, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val { e, weak, lit: None })
            }
            BOp::BitAnd | BOp::BitOr | BOp::BitXor => {
                if !is_int(av.ty()) || !is_int(bv.ty()) {
                    return self.err(
                        pos,
                        format!(
                            "`{}` needs integer operands, not {} and {}",
                            op.symbol(),
                            av.ty(),
                            bv.ty()
                        ),
                    );
                }
                let t = self.common(&av, &bv);
                let o = match op {
                    BOp::BitAnd => B::And,
                    BOp::BitOr => B::Or,
                    _ => B::Xor,
                };
                let e = bin(o, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val { e, weak, lit: None })
            }
            BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge | BOp::Eq | BOp::Ne => {
                let t = self.common(&av, &bv);
                let o = match op {
                    BOp::Lt => B::Lt,
                    BOp::Le => B::Le,
                    BOp::Gt => B::Gt,
                    BOp::Ge => B::Ge,
                    BOp::Eq => B::Eq,
                    _ => B::Ne,
                };
                Ok(Val::strong(bin(o, self.conv(&av, t), self.conv(&bv, t))))
            }
            BOp::Add | BOp::Sub | BOp::Mul | BOp::Div | BOp::Rem => {
                let t = self.common(&av, &bv);
                if op == BOp::Rem && !is_int(t) {
                    return self.err(
                        pos,
                        "`%` needs integer operands; use fmod(x, y) for floating-point values",
                    );
                }
                // Fold weak literal arithmetic so `2.0 * M_PI * x` stays in x's precision.
                if let (true, Some(x), Some(y)) = (weak, av.lit, bv.lit) {
                    let r = match (x, y, t.is_float()) {
                        (Lit::F(_), _, _) | (_, Lit::F(_), _) | (_, _, true) => {
                            let (x, y) = (lit_f(x), lit_f(y));
                            Some(Lit::F(match op {
                                BOp::Add => x + y,
                                BOp::Sub => x - y,
                                BOp::Mul => x * y,
                                BOp::Div => x / y,
                                _ => f64::NAN,
                            }))
                        }
                        (Lit::I(x), Lit::I(y), false) => {
                            let r = match op {
                                BOp::Add => x.checked_add(y),
                                BOp::Sub => x.checked_sub(y),
                                BOp::Mul => x.checked_mul(y),
                                BOp::Div if y != 0 => x.checked_div(y),
                                BOp::Rem if y != 0 => x.checked_rem(y),
                                _ => None,
                            };
                            r.filter(|v| Lit::I(*v).scalar(t).to_i128() == *v)
                                .map(Lit::I)
                        }
                    };
                    if let Some(l) = r {
                        return Ok(Val {
                            e: c(l.scalar(t)),
                            weak: true,
                            lit: Some(l),
                        });
                    }
                }
                let x = self.conv(&av, t);
                let y = self.conv(&bv, t);
                let e = match op {
                    BOp::Add => bin(B::Add, x, y),
                    BOp::Sub => bin(B::Sub, x, y),
                    BOp::Mul => bin(B::Mul, x, y),
                    BOp::Div => bin(B::Div, x, y),
                    _ => {
                        // C's truncated remainder: a - (a / b) * b.
                        let x = self.bind(x);
                        let y = self.bind(y);
                        bin(B::Sub, x.clone(), bin(B::Mul, bin(B::Div, x, y.clone()), y))
                    }
                };
                Ok(Val { e, weak, lit: None })
            }
            BOp::LAnd | BOp::LOr => {
                let ca = self.to_bool(pos, &av)?;
                let cb = self.to_bool(pos, &bv)?;
                let o = if op == BOp::LAnd { B::And } else { B::Or };
                Ok(Val::strong(bin(o, ca, cb)))
            }
        }
    }

    // ---------------------------------------------------------------- calls

    fn call(&mut self, pos: usize, name: &str, args: &[Ex]) -> PResult<Val> {
        // Functional cast `float(x)`, complex constructor `complex<float>(re, im)`.
        if let Some(Ty::D(t)) = resolve_type(&[name], self.types) {
            if t.is_complex() {
                return self.complex_ctor(pos, name, t, args);
            }
            if args.len() != 1 {
                return self.err(pos, format!("`{name}(...)` conversion takes one argument"));
            }
            let v = self.expr(&args[0])?;
            if v.ty().is_complex() && !t.is_complex() {
                return self.err(pos, COMPLEX_TO_REAL);
            }
            return Ok(Val::strong(self.conv(&v, t)));
        }
        if self.funcs.contains_key(name) {
            return self.inline_call(pos, name, args);
        }
        let mut vals = vec![];
        for a in args {
            vals.push(self.expr(a)?);
        }
        if matches!(
            name,
            "real" | "imag" | "conj" | "arg" | "norm" | "polar" | "proj"
        ) || vals.iter().any(|v| v.ty().is_complex())
        {
            return self.complex_math(pos, name, vals);
        }
        self.math(pos, name, vals)
    }

    /// `complex<float>()`, `complex<float>(x)` (a real or complex `x`), `complex<float>(re, im)`.
    fn complex_ctor(&mut self, pos: usize, name: &str, t: DType, args: &[Ex]) -> PResult<Val> {
        let mut vals = vec![];
        for a in args {
            vals.push(self.expr(a)?);
        }
        let part = t.real_dtype();
        match vals.as_slice() {
            [] => Ok(Val::strong(c(Scalar::zero(t)))),
            [v] => Ok(Val::strong(self.conv(v, t))),
            [re, im] => {
                for (v, a) in [(re, &args[0]), (im, &args[1])] {
                    if v.ty().is_complex() {
                        return self.err(
                            a.pos,
                            format!("`{name}(re, im)` takes real parts, not {}", v.ty()),
                        );
                    }
                }
                Ok(Val::strong(Expr::complex(
                    self.conv(re, part),
                    self.conv(im, part),
                )))
            }
            _ => self.err(
                pos,
                format!("`{name}(...)` takes at most two arguments (re, im)"),
            ),
        }
    }

    /// `value.member()`: `z.real()`, `z.imag()` of a complex value, `x.size()` of a raw array.
    fn member(&mut self, pos: usize, base: &Ex, member: &str) -> PResult<Val> {
        if let ExK::Name(n) = &base.k {
            if let Some(Sym::Raw { k, .. }) = self.lookup(n).cloned() {
                return match member {
                    "size" => Ok(Val::strong(self.raw_len(pos, k)?)),
                    _ => self.err(
                        pos,
                        format!(
                            "`{n}.{member}()` is not supported: a raw array has `{n}.size()` \
                             (its number of elements) and `{n}[j]`"
                        ),
                    ),
                };
            }
        }
        let v = self.expr(base)?;
        match member {
            "real" | "imag" if v.ty().is_complex() => self.complex_math(pos, member, vec![v]),
            "real" | "imag" => self.err(
                pos,
                format!("`.{member}()` needs a complex value, not {}", v.ty()),
            ),
            _ => self.err(
                pos,
                format!(
                    "member function `.{member}()` is not supported (complex values have \
                     `.real()` and `.imag()`, raw arrays `.size()`)"
                ),
            ),
        }
    }

    /// The complex functions (thrust::complex's, as CuPy's `complex<T>` provides them), and
    /// `real`/`imag`/`conj`/`arg`/`norm`/`polar` of real values.
    fn complex_math(&mut self, pos: usize, name: &str, args: Vec<Val>) -> PResult<Val> {
        let arity = |cx: &Self, n: usize| -> PResult<()> {
            if args.len() != n {
                return cx.err(
                    pos,
                    format!(
                        "`{name}` takes {n} argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
            }
            Ok(())
        };
        let s = |v: Expr| Ok(Val::strong(v));
        // The float type a real argument computes in (C++'s std::real(int) is a double).
        let ftype = |t: DType| if t.is_float() { t } else { DType::Float64 };
        let cplx = args.first().is_some_and(|v| v.ty().is_complex());
        match name {
            "real" | "imag" | "conj" => {
                arity(self, 1)?;
                let v = &args[0];
                if cplx {
                    let op = match name {
                        "real" => U::Real,
                        "imag" => U::Imag,
                        _ => U::Conj,
                    };
                    return s(un(op, v.e.clone()));
                }
                let t = ftype(v.ty());
                s(if name == "imag" {
                    c(Scalar::zero(t))
                } else {
                    self.conv(v, t)
                })
            }
            "abs" if cplx => {
                arity(self, 1)?;
                let z = args[0].e.clone();
                let rt = z.ty.real_dtype();
                s(un(U::Abs, z).cast(rt))
            }
            "arg" => {
                arity(self, 1)?;
                let (re, im) = if cplx {
                    let z = self.bind(args[0].e.clone());
                    (un(U::Real, z.clone()), un(U::Imag, z))
                } else {
                    let t = ftype(args[0].ty());
                    (self.conv(&args[0], t), c(Scalar::zero(t)))
                };
                s(bin(B::Atan2, im, re))
            }
            "norm" => {
                arity(self, 1)?;
                if cplx {
                    return s(math::complex_norm(self, args[0].e.clone()));
                }
                let t = ftype(args[0].ty());
                let x = self.bind(self.conv(&args[0], t));
                s(bin(B::Mul, x.clone(), x))
            }
            "polar" => {
                if args.is_empty() || args.len() > 2 {
                    return self.err(pos, "`polar` takes 1 or 2 arguments (r, theta)");
                }
                if let Some(v) = args.iter().find(|v| v.ty().is_complex()) {
                    return self.err(pos, format!("`polar` takes real arguments, not {}", v.ty()));
                }
                let t = if args.len() == 2 {
                    self.common(&args[0], &args[1])
                } else {
                    args[0].ty()
                };
                let t = match ftype(t) {
                    DType::Float64 => DType::Float64,
                    _ => DType::Float32,
                };
                let r = self.bind(self.conv(&args[0], t));
                if args.len() == 1 {
                    return s(Expr::complex(r, c(Scalar::zero(t))));
                }
                let th = self.bind(self.conv(&args[1], t));
                s(Expr::complex(
                    bin(B::Mul, r.clone(), un(U::Cos, th.clone())),
                    bin(B::Mul, r, un(U::Sin, th)),
                ))
            }
            "exp" | "log" | "sqrt" | "sin" | "cos" | "tan" | "tanh" | "isnan" | "isinf"
            | "isfinite" => {
                arity(self, 1)?;
                let op = match name {
                    "exp" => U::Exp,
                    "log" => U::Log,
                    "sqrt" => U::Sqrt,
                    "sin" => U::Sin,
                    "cos" => U::Cos,
                    "tan" => U::Tan,
                    "tanh" => U::Tanh,
                    "isnan" => U::IsNan,
                    "isinf" => U::IsInf,
                    _ => U::IsFinite,
                };
                s(un(op, args[0].e.clone()))
            }
            "log10" => {
                arity(self, 1)?;
                s(math::complex_log10(self, args[0].e.clone()))
            }
            "sinh" | "cosh" => {
                arity(self, 1)?;
                let z = args[0].e.clone();
                s(if name == "sinh" {
                    math::complex_sinh(self, z)
                } else {
                    math::complex_cosh(self, z)
                })
            }
            "pow" => {
                arity(self, 2)?;
                let t = self.common(&args[0], &args[1]);
                let t = if t.is_complex() {
                    t
                } else {
                    crate::kernel::ir::complex_of(t)
                };
                s(bin(B::Pow, self.conv(&args[0], t), self.conv(&args[1], t)))
            }
            _ => self.err(
                pos,
                format!(
                    "`{name}` is not supported for complex values (supported: {COMPLEX_NAMES}, \
                     + - * /, == and !=)"
                ),
            ),
        }
    }

    fn math(&mut self, pos: usize, name: &str, args: Vec<Val>) -> PResult<Val> {
        let tys: Vec<DType> = args.iter().map(|v| v.ty()).collect();
        // `__expf` -> `expf`, `sqrtf` -> (`sqrt`, float32).
        let bare = name.strip_prefix("__").unwrap_or(name);
        let known = |n: &str| {
            matches!(
                n,
                "sqrt"
                    | "exp"
                    | "log"
                    | "sin"
                    | "cos"
                    | "tan"
                    | "tanh"
                    | "floor"
                    | "ceil"
                    | "fabs"
                    | "fmax"
                    | "fmin"
                    | "pow"
                    | "atan2"
                    | "rsqrt"
                    | "exp2"
                    | "exp10"
                    | "log2"
                    | "log10"
                    | "log1p"
                    | "expm1"
                    | "sinh"
                    | "cosh"
                    | "asin"
                    | "acos"
                    | "atan"
                    | "asinh"
                    | "acosh"
                    | "atanh"
                    | "trunc"
                    | "round"
                    | "rint"
                    | "nearbyint"
                    | "fmod"
                    | "hypot"
                    | "fma"
                    | "copysign"
                    | "fdivide"
            )
        };
        let (base, f32v) = match bare.strip_suffix('f') {
            Some(b) if known(b) => (b, true),
            _ => (bare, false),
        };
        let arity = |n: usize| -> PResult<()> {
            if args.len() != n {
                return perr(
                    self.part,
                    pos,
                    format!(
                        "`{name}` takes {n} argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
            }
            Ok(())
        };
        // The float type the function computes in.
        let ftype = |t: DType| -> DType {
            if f32v {
                DType::Float32
            } else if t.is_float() {
                t
            } else {
                DType::Float64
            }
        };
        let one_f = |cx: &Self| -> (Expr, DType) {
            let t = ftype(args[0].ty());
            (cx.conv(&args[0], t), t)
        };
        let two_f = |cx: &Self| -> (Expr, Expr, DType) {
            let t = ftype(cx.common(&args[0], &args[1]));
            (cx.conv(&args[0], t), cx.conv(&args[1], t), t)
        };
        let s = |v: Expr| Ok(Val::strong(v));
        match base {
            "isnan" | "isinf" | "isfinite" | "signbit" if !f32v => {
                arity(1)?;
                if args[0].ty().is_integer() || args[0].ty().is_bool() {
                    let r = base == "isfinite";
                    if base == "signbit" {
                        let t = args[0].ty();
                        let x = self.conv(&args[0], t);
                        return s(if t.is_signed_integer() {
                            bin(B::Lt, x, c(Scalar::zero(t)))
                        } else {
                            c(Scalar::Bool(false))
                        });
                    }
                    return s(c(Scalar::Bool(r)));
                }
                let x = args[0].e.clone();
                let op = match base {
                    "isnan" => U::IsNan,
                    "isinf" => U::IsInf,
                    "isfinite" => U::IsFinite,
                    _ => {
                        let x = self.bind(x);
                        return s(math::signbit(x));
                    }
                };
                s(un(op, x))
            }
            "abs" if !f32v && (args.len() == 1 && (tys[0].is_integer() || tys[0].is_bool())) => {
                let t = promote_int(tys[0]);
                s(un(U::Abs, self.conv(&args[0], t)))
            }
            "max" | "min" if !f32v => {
                arity(2)?;
                let t = self.common(&args[0], &args[1]);
                let op = match (base, t.is_float()) {
                    ("max", true) => B::FMax,
                    ("max", false) => B::Max,
                    (_, true) => B::FMin,
                    _ => B::Min,
                };
                s(bin(op, self.conv(&args[0], t), self.conv(&args[1], t)))
            }
            "sqrt" | "exp" | "log" | "sin" | "cos" | "tan" | "tanh" | "floor" | "ceil" | "fabs"
            | "abs" => {
                arity(1)?;
                let (x, _) = one_f(self);
                let op = match base {
                    "sqrt" => U::Sqrt,
                    "exp" => U::Exp,
                    "log" => U::Log,
                    "sin" => U::Sin,
                    "cos" => U::Cos,
                    "tan" => U::Tan,
                    "tanh" => U::Tanh,
                    "floor" => U::Floor,
                    "ceil" => U::Ceil,
                    _ => U::Abs,
                };
                s(un(op, x))
            }
            "fmax" | "fmin" | "pow" | "atan2" | "fdivide" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                let op = match base {
                    "fmax" => B::FMax,
                    "fmin" => B::FMin,
                    "pow" => B::Pow,
                    "fdivide" => B::Div,
                    _ => B::Atan2,
                };
                s(bin(op, x, y))
            }
            "rsqrt" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::rsqrt(x))
            }
            "exp2" | "exp10" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "exp2" {
                    math::exp2(x)
                } else {
                    math::exp10(x)
                })
            }
            "log2" | "log10" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "log2" {
                    math::log2(x)
                } else {
                    math::log10(x)
                })
            }
            "log1p" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::log1p(self, x))
            }
            "expm1" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::expm1(self, x))
            }
            "sinh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::sinh(self, x))
            }
            "cosh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::cosh(self, x))
            }
            "atan" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arctan(x))
            }
            "asin" | "acos" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "asin" {
                    math::arcsin(self, x)
                } else {
                    math::arccos(self, x)
                })
            }
            "asinh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arcsinh(self, x))
            }
            "acosh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arccosh(self, x))
            }
            "atanh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arctanh(self, x))
            }
            "trunc" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::trunc(x))
            }
            "round" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::round_half_away(self, x))
            }
            "rint" | "nearbyint" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::rint(self, x))
            }
            "fmod" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::fmod(self, x, y))
            }
            "hypot" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::hypot(self, x, y))
            }
            "fma" => {
                arity(3)?;
                let t = ftype(usual(
                    self.common(&args[0], &args[1]),
                    self.common(&args[1], &args[2]),
                ));
                let (x, y, z) = (
                    self.conv(&args[0], t),
                    self.conv(&args[1], t),
                    self.conv(&args[2], t),
                );
                s(bin(B::Add, bin(B::Mul, x, y), z))
            }
            "copysign" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::copysign(self, x, y))
            }
            _ => self.err(
                pos,
                format!("unknown function `{name}` (supported math functions: {MATH_NAMES})"),
            ),
        }
    }

    fn inline_call(&mut self, pos: usize, name: &str, args: &[Ex]) -> PResult<Val> {
        if self.inline.iter().any(|(n, ..)| n == name) {
            return self.err(
                pos,
                format!("recursive call of `{name}` (recursion is not supported)"),
            );
        }
        if self.inline.len() >= MAX_INLINE {
            return self.err(pos, "preamble calls nested too deeply");
        }
        let f = self.funcs.get(name).expect("function").clone();
        if args.len() != f.params.len() {
            return self.err(
                pos,
                format!(
                    "`{name}` takes {} arguments, {} given",
                    f.params.len(),
                    args.len()
                ),
            );
        }
        let mut vals = vec![];
        for a in args {
            vals.push(self.expr(a)?);
        }
        // Types are resolved in the preamble.
        let caller_part = self.part;
        self.part = "preamble";
        let ret = self.resolve(f.ret_pos, &f.ret);
        let ret = match ret {
            Ok(Ty::D(d)) => d,
            Ok(Ty::Auto) => {
                self.part = caller_part;
                return self.err(pos, "`auto` return types are not supported");
            }
            Err(e) => {
                self.part = caller_part;
                return Err(if f.ret.iter().any(|w| w == "void") {
                    PErr {
                        msg: "void functions are not supported (a function must return a value)"
                            .into(),
                        ..e
                    }
                } else {
                    e
                });
            }
        };
        let mut ptys = vec![];
        for (words, _, ppos) in &f.params {
            match self.resolve(*ppos, words) {
                Ok(Ty::D(d)) => ptys.push(d),
                Ok(Ty::Auto) => {
                    self.part = caller_part;
                    return self.err(*ppos, "`auto` parameters are not supported");
                }
                Err(e) => {
                    self.part = caller_part;
                    return Err(e);
                }
            }
        }
        self.part = caller_part;
        // Bind the arguments to fresh locals (C passes by value).
        let mut scope = HashMap::new();
        for ((v, t), (_, pname, _)) in vals.iter().zip(&ptys).zip(&f.params) {
            let e = self.conv(v, *t);
            let uniform = (self.stmt_mode && is_uniform(&e, &self.loop_vars)).then(|| e.clone());
            let slot = self.new_local(*t, e);
            scope.insert(
                pname.clone(),
                Sym::Local {
                    slot,
                    ty: *t,
                    out: None,
                    uniform,
                },
            );
        }
        let ret_slot = self.new_local(ret, c(Scalar::zero(ret)));
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let saved_guards = std::mem::take(&mut self.guards);
        let saved_bound = self.bound_mode.take();
        let saved_index = std::mem::replace(&mut self.index_ok, false);
        let saved_sizes = (
            self.size_ind.take(),
            self.size_in.take(),
            self.size_out.take(),
        );
        self.part = "preamble";
        self.inline
            .push((name.to_string(), ret_slot, ret, self.loop_vars.len()));
        let body = normalize_returns(f.body.clone());
        let r = self.stmts(&body);
        self.inline.pop();
        self.part = caller_part;
        self.scopes = saved_scopes;
        self.guards = saved_guards;
        self.bound_mode = saved_bound;
        self.index_ok = saved_index;
        (self.size_ind, self.size_in, self.size_out) = saved_sizes;
        r?;
        let v = if self.stmt_mode {
            Expr::var(ret_slot, ret)
        } else {
            self.env[ret_slot].clone().expect("ret")
        };
        self.check_size(pos, &v)?;
        Ok(Val::strong(v))
    }

    // ---------------------------------------------------------------- statements

    pub(crate) fn stmts(&mut self, body: &[St]) -> PResult<()> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn scoped(&mut self, s: &St) -> PResult<()> {
        self.scopes.push(HashMap::new());
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    fn stmt(&mut self, s: &St) -> PResult<()> {
        match s {
            St::Empty => Ok(()),
            St::Block(v) => {
                self.scopes.push(HashMap::new());
                let r = self.stmts(v);
                self.scopes.pop();
                r
            }
            St::Expr(e) => {
                self.expr(e)?;
                Ok(())
            }
            St::Decl { pos, ty, vars } => {
                let t = self.resolve(*pos, ty)?;
                let konst = ty.iter().any(|w| w == "const" || w == "constexpr");
                for (dpos, name, init) in vars {
                    let (d, value) = match (t, init) {
                        (Ty::D(d), Some(e)) => {
                            let v = self.expr(e)?;
                            if v.ty().is_complex() && !d.is_complex() {
                                return self.err(e.pos, COMPLEX_TO_REAL);
                            }
                            (d, self.conv(&v, d))
                        }
                        (Ty::D(d), None) => {
                            if konst {
                                return self
                                    .err(*dpos, format!("const `{name}` needs an initialiser"));
                            }
                            (d, c(Scalar::zero(d)))
                        }
                        (Ty::Auto, Some(e)) => {
                            let v = self.expr(e)?;
                            (v.ty(), v.e)
                        }
                        (Ty::Auto, None) => {
                            return self.err(*dpos, format!("`auto {name}` needs an initialiser"))
                        }
                    };
                    self.check_size(*dpos, &value)?;
                    let uniform = (self.stmt_mode && is_uniform(&value, &self.loop_vars))
                        .then(|| value.clone());
                    let slot = self.new_local(d, value);
                    self.declare(
                        *dpos,
                        name,
                        Sym::Local {
                            slot,
                            ty: d,
                            out: None,
                            uniform,
                        },
                    )?;
                }
                Ok(())
            }
            St::Assign { pos, lv, op, value } if lv.index.is_some() => {
                self.raw_write(*pos, lv, *op, RawRhs::Value(value))
            }
            St::IncDec { pos, lv, inc } if lv.index.is_some() => {
                let op = if *inc { BOp::Add } else { BOp::Sub };
                self.raw_write(*pos, lv, Some(op), RawRhs::One)
            }
            St::Assign { pos, lv, op, value } => {
                let v = self.expr(value)?;
                let v = match op {
                    None => v,
                    Some(op) => {
                        let cur = self.read_lvalue(lv)?;
                        self.arith(*pos, *op, cur, v)?
                    }
                };
                self.assign(lv, v)
            }
            St::IncDec { pos, lv, inc } => {
                let cur = self.read_lvalue(lv)?;
                let one = Val {
                    e: c(Scalar::Int32(1)),
                    weak: true,
                    lit: Some(Lit::I(1)),
                };
                let v = self.arith(*pos, if *inc { BOp::Add } else { BOp::Sub }, cur, one)?;
                self.assign(lv, v)
            }
            St::If {
                pos: _,
                cond,
                then,
                els,
            } => {
                let cv = self.expr(cond)?;
                let cb = self.to_bool(cond.pos, &cv)?;
                let saved_def = self.out_def.clone();
                if self.stmt_mode {
                    self.sinks.push(vec![]);
                    let r = self.scoped(then);
                    let then_body = self.sinks.pop().expect("sink");
                    r?;
                    let then_def = std::mem::replace(&mut self.out_def, saved_def.clone());
                    self.sinks.push(vec![]);
                    let r = match els {
                        Some(e) => self.scoped(e),
                        None => Ok(()),
                    };
                    let else_body = self.sinks.pop().expect("sink");
                    r?;
                    for (d, t) in self.out_def.iter_mut().zip(then_def) {
                        *d = *d && t;
                    }
                    self.emit(Stmt::If {
                        cond: cb,
                        then_body,
                        else_body,
                    });
                } else {
                    let saved_env = self.env.clone();
                    self.scoped(then)?;
                    let then_env = std::mem::replace(&mut self.env, saved_env);
                    let then_def = std::mem::replace(&mut self.out_def, saved_def);
                    if let Some(e) = els {
                        self.scoped(e)?;
                    }
                    for (d, t) in self.out_def.iter_mut().zip(then_def) {
                        *d = *d && t;
                    }
                    for (k, te) in then_env.iter().enumerate().take(self.env.len()) {
                        let merged = match (te, &self.env[k]) {
                            (Some(a), Some(b)) if a == b => Some(a.clone()),
                            (Some(a), Some(b)) => {
                                Some(Expr::select(cb.clone(), a.clone(), b.clone()))
                            }
                            _ => None,
                        };
                        if let Some(m) = &merged {
                            self.check_size(cond.pos, m)?;
                        }
                        self.env[k] = merged;
                    }
                }
                Ok(())
            }
            St::For { pos, .. } if !self.stmt_mode => self.err(
                *pos,
                format!(
                    "loops are not supported in {} (it must fold to one expression)",
                    self.part
                ),
            ),
            St::For {
                pos,
                init,
                cond,
                step,
                body,
            } => self.for_loop(*pos, init.as_deref(), cond.as_ref(), step.as_deref(), body),
            St::Return { pos, value } => {
                let Some((_, slot, ty, depth)) = self.inline.last().cloned() else {
                    return self.err(*pos, "`return` is not allowed in an operation");
                };
                if self.loop_vars.len() > depth {
                    return self.err(*pos, "`return` inside a loop is not supported");
                }
                let Some(value) = value else {
                    return self.err(*pos, "`return` needs a value");
                };
                let v = self.expr(value)?;
                let e = self.conv(&v, ty);
                self.check_size(*pos, &e)?;
                if self.stmt_mode {
                    self.emit(Stmt::Assign {
                        var: slot,
                        value: e,
                    });
                } else {
                    self.env[slot] = Some(e);
                }
                Ok(())
            }
        }
    }

    /// `x[j] = v`, `x[j] op= v`, `x[j]++`: a guarded [`Stmt::StoreRaw`]. `j` is evaluated once;
    /// a write outside `0..x.size()` is dropped (on every backend: the guard is in the IR).
    /// Compound forms read, combine and write back in one element's steps, not atomically
    /// (CuPy's semantics: concurrent updates of one element race).
    fn raw_write(
        &mut self,
        pos: usize,
        lv: &LVal,
        op: Option<BOp>,
        rhs: RawRhs<'_>,
    ) -> PResult<()> {
        let n = &lv.name;
        let (k, ty) = match self.lookup(n).cloned() {
            Some(Sym::Raw { k, ty }) => (k, ty),
            Some(_) => {
                return self.err(
                    lv.pos,
                    format!("`{n}` is not a raw array: declare it `raw` to index it"),
                )
            }
            None => return self.err(lv.pos, format!("unknown name `{n}`")),
        };
        if !self.stmt_mode || self.raw_len_base.is_none() {
            return self.err(lv.pos, "raw arrays cannot be written here");
        }
        let ix = lv.index.as_ref().expect("indexed lvalue");
        let iv = self.expr(ix)?;
        if !(iv.ty().is_integer() || iv.ty().is_bool()) {
            return self.err(
                ix.pos,
                format!("array index must be an integer, not {}", iv.ty()),
            );
        }
        let idx = self.conv(&iv, DType::Int64);
        let idx = self.bind(idx);
        let len = self.raw_len(lv.pos, k)?;
        let in_range = bin(
            B::And,
            bin(B::Ge, idx.clone(), c(Scalar::Int64(0))),
            bin(B::Lt, idx.clone(), len),
        );
        self.sinks.push(vec![]);
        let r = (|| -> PResult<()> {
            let v = match rhs {
                RawRhs::Value(e) => self.expr(e)?,
                RawRhs::One => Val {
                    e: c(Scalar::Int32(1)),
                    weak: true,
                    lit: Some(Lit::I(1)),
                },
            };
            let v = match op {
                None => v,
                Some(op) => {
                    let cur = Val::strong(Expr::load(k, ty, idx.clone()));
                    self.arith(pos, op, cur, v)?
                }
            };
            if v.ty().is_complex() && !ty.is_complex() {
                return self.err(pos, COMPLEX_TO_REAL);
            }
            let value = self.conv(&v, ty);
            self.emit(Stmt::StoreRaw {
                raw: k,
                index: idx.clone(),
                value,
            });
            Ok(())
        })();
        let body = self.sinks.pop().expect("sink");
        r?;
        self.emit(Stmt::If {
            cond: in_range,
            then_body: body,
            else_body: vec![],
        });
        Ok(())
    }

    fn read_lvalue(&mut self, lv: &LVal) -> PResult<Val> {
        if lv.index.is_some() {
            return self.err(lv.pos, "raw arrays are read-only in custom kernels");
        }
        self.name(lv.pos, &lv.name)
    }

    fn assign(&mut self, lv: &LVal, v: Val) -> PResult<()> {
        if lv.index.is_some() {
            return self.err(lv.pos, "raw arrays are read-only in custom kernels");
        }
        let n = &lv.name;
        match self.lookup(n).cloned() {
            Some(Sym::Local { slot, ty, out, .. }) => {
                if v.ty().is_complex() && !ty.is_complex() {
                    return self.err(lv.pos, COMPLEX_TO_REAL);
                }
                let e = self.conv(&v, ty);
                self.check_size(lv.pos, &e)?;
                // A reassigned local is no longer a known uniform value.
                for s in self.scopes.iter_mut().rev() {
                    if let Some(Sym::Local { uniform, .. }) = s.get_mut(n) {
                        *uniform = None;
                        break;
                    }
                }
                if let Some(k) = out {
                    self.out_def[k] = true;
                }
                if self.stmt_mode {
                    if self.substituted[slot] && self.loop_vars.len() > self.decl_depth[slot] {
                        return self.err(
                            lv.pos,
                            format!("`{n}` is a loop bound and cannot be modified inside the loop"),
                        );
                    }
                    self.emit(Stmt::Assign {
                        var: slot,
                        value: e,
                    });
                } else {
                    self.env[slot] = Some(e);
                }
                Ok(())
            }
            Some(Sym::LoopVar { .. }) => self.err(
                lv.pos,
                format!("the loop variable `{n}` cannot be modified in the loop body"),
            ),
            Some(Sym::Fixed { what, .. }) => self.err(
                lv.pos,
                format!("cannot assign to `{n}`: {what} are read-only"),
            ),
            Some(Sym::Raw { .. }) => self.err(
                lv.pos,
                format!("raw array `{n}` must be indexed to be written (`{n}[j] = ...`)"),
            ),
            None if n == "i" => self.err(lv.pos, "cannot assign to `i`"),
            None if matches!(n.as_str(), "_ind" | "_in_ind" | "_out_ind") => {
                self.err(lv.pos, ind_misuse(n, n))
            }
            None => self.err(lv.pos, format!("unknown name `{n}`")),
        }
    }

    fn for_loop(
        &mut self,
        pos: usize,
        init: Option<&St>,
        cond: Option<&Ex>,
        step: Option<&St>,
        body: &St,
    ) -> PResult<()> {
        const MSG: &str = "only counted loops `for (int j = A; j < B; j++)` (or `<=`, `>`, `>=`, \
                           `j += c`, `j--`) with uniform bounds are supported";
        let bad = |cx: &Self, p: usize, what: &str| cx.err(p, format!("{what}: {MSG}"));
        let Some(St::Decl {
            pos: dpos,
            ty,
            vars,
        }) = init
        else {
            return bad(self, pos, "the loop must declare its variable");
        };
        let [(vpos, var, Some(start))] = vars.as_slice() else {
            return bad(
                self,
                *dpos,
                "the loop must declare one initialised variable",
            );
        };
        let vt = match self.resolve(*dpos, ty)? {
            Ty::D(d) if d.is_integer() => d,
            Ty::Auto => DType::Int32,
            Ty::D(d) => {
                return self.err(
                    *dpos,
                    format!("the loop variable must be an integer, not {d}"),
                )
            }
        };
        // Step: +s or -s with s a positive integer literal.
        let lit_step = |e: &Ex| -> Option<i64> {
            if let ExK::Int(t) = &e.k {
                let (v, _, _) = super::types::int_literal(t).ok()?;
                (v > 0 && v < (1 << 31)).then_some(v as i64)
            } else {
                None
            }
        };
        let is_var = |e: &Ex| matches!(&e.k, ExK::Name(n) if n == var);
        let stepv: Option<i64> = match step {
            Some(St::IncDec { lv, inc, .. }) if lv.name == *var && lv.index.is_none() => {
                Some(if *inc { 1 } else { -1 })
            }
            Some(St::Assign {
                lv,
                op: Some(op @ (BOp::Add | BOp::Sub)),
                value,
                ..
            }) if lv.name == *var && lv.index.is_none() => {
                lit_step(value).map(|s| if *op == BOp::Add { s } else { -s })
            }
            Some(St::Assign {
                lv,
                op: None,
                value,
                ..
            }) if lv.name == *var && lv.index.is_none() => match &value.k {
                ExK::Binary(BOp::Add, a, b) if is_var(a) => lit_step(b),
                ExK::Binary(BOp::Add, a, b) if is_var(b) => lit_step(a),
                ExK::Binary(BOp::Sub, a, b) if is_var(a) => lit_step(b).map(|s| -s),
                _ => None,
            },
            _ => None,
        };
        let Some(stepv) = stepv else {
            return bad(self, pos, "unsupported loop step");
        };
        // Condition: var OP bound (or bound OP var).
        let Some(cond) = cond else {
            return bad(self, pos, "the loop needs a condition");
        };
        let (op, bound) = match &cond.k {
            ExK::Binary(op, a, b) if is_var(a) => (*op, &**b),
            ExK::Binary(op, a, b) if is_var(b) => (
                match op {
                    BOp::Lt => BOp::Gt,
                    BOp::Le => BOp::Ge,
                    BOp::Gt => BOp::Lt,
                    BOp::Ge => BOp::Le,
                    o => *o,
                },
                &**a,
            ),
            _ => return bad(self, cond.pos, "unsupported loop condition"),
        };
        let inclusive = match (op, stepv > 0) {
            (BOp::Lt, true) | (BOp::Gt, false) => false,
            (BOp::Ne, _) if stepv.abs() == 1 => false,
            (BOp::Le, true) | (BOp::Ge, false) => true,
            _ => {
                return bad(
                    self,
                    cond.pos,
                    "the condition does not match the step direction",
                )
            }
        };
        // Bounds, with uniform locals substituted.
        let uniform_bound = |cx: &mut Self, e: &Ex| -> PResult<(Expr, Vec<usize>)> {
            cx.bound_mode = Some(vec![]);
            let r = cx.expr(e);
            let used = cx.bound_mode.take().unwrap_or_default();
            let v = r?;
            if !(v.ty().is_integer() || v.ty().is_bool()) {
                return cx.err(
                    e.pos,
                    format!("loop bounds must be integers, not {}", v.ty()),
                );
            }
            let x = cx.conv(&v, DType::Int64);
            if !is_uniform(&x, &cx.loop_vars) {
                return cx.err(
                    e.pos,
                    format!(
                        "loop bound is not uniform (it must be built from constants, parameters, \
                         const locals and enclosing loop variables, not inputs, `i` or raw \
                         reads): {MSG}"
                    ),
                );
            }
            Ok((x, used))
        };
        let (a, mut used) = uniform_bound(self, start)?;
        let (b, used_b) = uniform_bound(self, bound)?;
        used.extend(used_b);
        for s in used {
            self.substituted[s] = true;
        }
        let i64c = |v: i64| c(Scalar::Int64(v));
        let s = stepv.abs();
        let (start_e, end_e, value_of): (Expr, Expr, Box<dyn Fn(Expr) -> Expr>) = if stepv == 1 {
            let end = if inclusive {
                bin(B::Add, b, i64c(1))
            } else {
                b
            };
            (a, end, Box::new(|v| v))
        } else {
            let extra = if inclusive { s } else { s - 1 };
            let span = if stepv > 0 {
                bin(B::Sub, b, a.clone())
            } else {
                bin(B::Sub, a.clone(), b)
            };
            let count = bin(B::Div, bin(B::Add, span, i64c(extra)), i64c(s));
            let a2 = a.clone();
            let f: Box<dyn Fn(Expr) -> Expr> = if stepv > 0 {
                Box::new(move |v| bin(B::Add, a2.clone(), bin(B::Mul, v, i64c(s))))
            } else {
                Box::new(move |v| bin(B::Sub, a2.clone(), bin(B::Mul, v, i64c(s))))
            };
            (i64c(0), count, f)
        };
        let v = self.locals.len();
        self.locals.push(DType::Int64);
        self.decl_depth.push(self.loop_vars.len());
        self.substituted.push(false);
        let value = value_of(Expr::var(v, DType::Int64)).cast(vt);
        let saved_def = self.out_def.clone();
        self.scopes.push(HashMap::new());
        let r = self.declare(*vpos, var, Sym::LoopVar { value });
        self.loop_vars.push(v);
        self.sinks.push(vec![]);
        let r = r.and_then(|_| self.scoped(body));
        let body_ir = self.sinks.pop().expect("sink");
        self.loop_vars.pop();
        self.scopes.pop();
        // A loop with constant bounds that runs at least once keeps the body's assignments.
        let runs = matches!(
            (fold(&start_e), fold(&end_e)),
            (Some(Scalar::Int64(a)), Some(Scalar::Int64(b))) if a < b
        );
        if !runs {
            self.out_def = saved_def;
        }
        r?;
        self.emit(Stmt::For {
            var: v,
            start: start_e,
            end: end_e,
            body: body_ir,
        });
        Ok(())
    }
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
