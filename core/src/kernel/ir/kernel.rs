//! Statements and kernels: traversal, the dtypes a kernel touches, and validation (each node
//! well typed, operands in range).

use super::*;

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
                if let Stmt::AtomicRaw {
                    op,
                    value,
                    old: Some(var),
                    ..
                } = s
                {
                    let fetchable = *op == AtomicOp::Add
                        && matches!(value.ty, DType::Int32 | DType::UInt32)
                        && k.locals.get(*var) == Some(&value.ty);
                    if problem.is_none() && !fetchable {
                        *problem = Some(format!(
                            "atomic {op:?} of a {} fetched into local {var}: only Add of \
                             int32/uint32 fetches, into a local of the same dtype",
                            value.ty
                        ));
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
pub(crate) fn node_problem(
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
        ExprKind::Binary(BinaryOp::MulHi, a, _)
            if a.ty != DType::UInt32 || n.ty != DType::UInt32 =>
        {
            Some(format!("MulHi of {} typed {} (uint32 only)", a.ty, n.ty))
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
