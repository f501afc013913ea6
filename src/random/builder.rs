//! A small statement builder for the random kernels: locals, nested `If`/`For` bodies and
//! helpers for the u32 and float arithmetic the distributions are written in.

use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, Stmt, UnaryOp as U};
use cupy_core::kernel::math::Bind;
use cupy_core::scalar::Scalar;

/// Builds one kernel body: every bound value becomes a local, bodies nest.
pub(crate) struct Builder {
    pub locals: Vec<DType>,
    stack: Vec<Vec<Stmt>>,
}

impl Bind for Builder {
    fn bind(&mut self, e: Expr) -> Expr {
        self.let_(e)
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            locals: vec![],
            stack: vec![vec![]],
        }
    }
    /// Appends statement `s` to the open body.
    pub fn push_stmt(&mut self, s: Stmt) {
        self.push(s);
    }
    fn push(&mut self, s: Stmt) {
        self.stack.last_mut().expect("open body").push(s);
    }
    /// A new local holding `e` (constants and locals are returned as they are).
    pub fn let_(&mut self, e: Expr) -> Expr {
        use cupy_core::kernel::ir::ExprKind as K;
        if matches!(e.kind, K::Const(_) | K::Var(_) | K::Param(_)) {
            return e;
        }
        self.var(e)
    }
    /// A new local holding `e`, always (for values assigned later).
    pub fn var(&mut self, e: Expr) -> Expr {
        let var = self.locals.len();
        let ty = e.ty;
        self.locals.push(ty);
        self.push(Stmt::Let { var, value: e });
        Expr::var(var, ty)
    }
    /// `v = e` for a local made by [`Builder::var`].
    pub fn assign(&mut self, v: &Expr, e: Expr) {
        if let cupy_core::kernel::ir::ExprKind::Var(var) = v.kind {
            self.push(Stmt::Assign { var, value: e });
        }
    }
    /// `if cond { then(self) }`.
    pub fn if_(&mut self, cond: Expr, then: impl FnOnce(&mut Builder)) {
        self.stack.push(vec![]);
        then(self);
        let then_body = self.stack.pop().expect("if body");
        self.push(Stmt::If {
            cond,
            then_body,
            else_body: vec![],
        });
    }
    /// `if cond { then(self) } else { other(self) }`.
    pub fn if_else(
        &mut self,
        cond: Expr,
        then: impl FnOnce(&mut Builder),
        other: impl FnOnce(&mut Builder),
    ) {
        self.stack.push(vec![]);
        then(self);
        let then_body = self.stack.pop().expect("if body");
        self.stack.push(vec![]);
        other(self);
        let else_body = self.stack.pop().expect("else body");
        self.push(Stmt::If {
            cond,
            then_body,
            else_body,
        });
    }
    /// `for k in 0..n { body(self, k) }` (`k` an `Int64` local).
    pub fn for_(&mut self, n: i64, body: impl FnOnce(&mut Builder, Expr)) {
        let var = self.locals.len();
        self.locals.push(DType::Int64);
        self.stack.push(vec![]);
        body(self, Expr::var(var, DType::Int64));
        let b = self.stack.pop().expect("for body");
        self.push(Stmt::For {
            var,
            start: Expr::constant(Scalar::Int64(0)),
            end: Expr::constant(Scalar::Int64(n)),
            body: b,
        });
    }
    /// `for k in 0..n { body(self, k) }` with a uniform `Int64` bound `n` (a parameter).
    pub fn for_param(&mut self, n: Expr, body: impl FnOnce(&mut Builder, Expr)) {
        let var = self.locals.len();
        self.locals.push(DType::Int64);
        self.stack.push(vec![]);
        body(self, Expr::var(var, DType::Int64));
        let b = self.stack.pop().expect("for body");
        self.push(Stmt::For {
            var,
            start: Expr::constant(Scalar::Int64(0)),
            end: n,
            body: b,
        });
    }
    /// A rejection loop of at most `n` attempts: `attempt(self, k)` with `k` the attempt number
    /// (a u32 expression), run while `done` is false. The first attempt runs unconditionally
    /// (`done` must start false) and the others behind one `if`, so lanes that all accepted at
    /// once skip the loop; either way attempt `k` is the `k`-th, so the bits do not depend on it.
    pub fn retry(&mut self, done: &Expr, n: i64, attempt: impl Fn(&mut Builder, Expr)) {
        attempt(self, u32c(0));
        let d = done.clone();
        self.if_(not(d.clone()), |b| {
            b.for_(n - 1, |b, k| {
                b.if_(not(d.clone()), |b| {
                    let k1 = b.let_(add(k.cast(DType::UInt32), u32c(1)));
                    attempt(b, k1);
                });
            });
        });
    }
    /// `raw[index] += value` atomically (`value` an int32/uint32), returning a new local with
    /// the element's value from before the add (see [`Stmt::AtomicRaw`]'s `old`).
    pub fn fetch_add(&mut self, raw: usize, index: Expr, value: Expr) -> Expr {
        let var = self.locals.len();
        self.locals.push(value.ty);
        let ty = value.ty;
        self.push(Stmt::AtomicRaw {
            raw,
            op: cupy_core::kernel::ir::AtomicOp::Add,
            index,
            value,
            old: Some(var),
        });
        Expr::var(var, ty)
    }
    /// Stores `value` (cast to `ty`) into output 0.
    pub fn store(&mut self, value: Expr) {
        self.push(Stmt::Store { output: 0, value });
    }
    /// The finished kernel (no inputs, one output of `out`, the given params and raws).
    pub fn finish(
        mut self,
        name: &str,
        out: DType,
        params: Vec<DType>,
        raws: Vec<DType>,
    ) -> Kernel {
        Kernel {
            name: name.into(),
            inputs: vec![],
            outputs: vec![out],
            raws,
            params,
            locals: self.locals,
            body: self.stack.pop().expect("body"),
        }
    }
    /// The finished kernel without inputs or outputs: it writes raw operands only.
    pub fn finish_raw(self, name: &str, params: Vec<DType>, raws: Vec<DType>) -> Kernel {
        let mut k = self.finish(name, DType::Bool, params, raws);
        k.outputs.clear();
        k
    }
}

pub(crate) fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
pub(crate) fn un(op: U, a: Expr) -> Expr {
    Expr::unary(op, a)
}
pub(crate) fn u32c(v: u32) -> Expr {
    Expr::constant(Scalar::UInt32(v))
}
/// A float constant of dtype `t` (float32 constants are rounded to float32 first).
pub(crate) fn fc(t: DType, v: f64) -> Expr {
    if t == DType::Float32 {
        Expr::constant(Scalar::Float32(v as f32))
    } else {
        Expr::constant(Scalar::Float64(v))
    }
}
pub(crate) fn add(a: Expr, b: Expr) -> Expr {
    bin(B::Add, a, b)
}
pub(crate) fn sub(a: Expr, b: Expr) -> Expr {
    bin(B::Sub, a, b)
}
pub(crate) fn mul(a: Expr, b: Expr) -> Expr {
    bin(B::Mul, a, b)
}
pub(crate) fn div(a: Expr, b: Expr) -> Expr {
    bin(B::Div, a, b)
}
pub(crate) fn xor(a: Expr, b: Expr) -> Expr {
    bin(B::Xor, a, b)
}
pub(crate) fn and(a: Expr, b: Expr) -> Expr {
    bin(B::And, a, b)
}
pub(crate) fn shr(a: Expr, n: u32) -> Expr {
    bin(B::Shr, a, u32c(n))
}
pub(crate) fn lt(a: Expr, b: Expr) -> Expr {
    bin(B::Lt, a, b)
}
pub(crate) fn not(a: Expr) -> Expr {
    un(U::Not, a)
}
pub(crate) fn bool_c(v: bool) -> Expr {
    Expr::constant(Scalar::Bool(v))
}
pub(crate) fn neg(a: Expr) -> Expr {
    un(U::Neg, a)
}
