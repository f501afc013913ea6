//! Building and inspecting expressions: constructors, casts, children, dtype queries.

use super::*;

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
