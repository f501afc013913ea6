//! Lowering of statements: declarations, assignments (raw writes included), `if`, `for`,
//! `return` in inlined functions.

use super::*;

impl Lowering<'_> {
    pub(crate) fn stmts(&mut self, body: &[St]) -> PResult<()> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    pub(super) fn scoped(&mut self, s: &St) -> PResult<()> {
        self.scopes.push(HashMap::new());
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    pub(super) fn stmt(&mut self, s: &St) -> PResult<()> {
        match s {
            St::Empty => Ok(()),
            St::Block(v) => {
                self.scopes.push(HashMap::new());
                let r = self.stmts(v);
                self.scopes.pop();
                r
            }
            St::Expr(e) => self.expr_stmt(e),
            St::Decl { pos, ty, vars } => {
                if let Some(st) = self.struct_type(*pos, ty)? {
                    for (dpos, name, init, array) in vars {
                        let (list, len) = match array {
                            Some((len, items)) => (Some(items.as_slice()), len.as_ref()),
                            None => (None, None),
                        };
                        self.struct_decl(*dpos, &st, name, (init.as_ref(), list, len))?;
                    }
                    return Ok(());
                }
                let t = self.resolve(*pos, ty)?;
                let konst = ty.iter().any(|w| w == "const" || w == "constexpr");
                for (dpos, name, init, array) in vars {
                    if let Some((len, items)) = array {
                        let Some(len) = len else {
                            return self.err(
                                *dpos,
                                "a `{...}` initialiser needs an array (`T a[n] = {...}`) or a struct",
                            );
                        };
                        let len = self.array_len(*dpos, len, &format!("local array `{name}`"))?;
                        self.array_decl(*dpos, t, konst, name, len, items)?;
                        continue;
                    }
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
            St::Assign { pos, lv, op, value } if self.is_path(lv) => {
                self.path_assign(*pos, lv, *op, RawRhs::Value(value))
            }
            St::IncDec { pos, lv, inc } if self.is_path(lv) => {
                let op = if *inc { BOp::Add } else { BOp::Sub };
                self.path_assign(*pos, lv, Some(op), RawRhs::One)
            }
            St::Assign { pos, lv, op, value } if lv.index.is_some() => {
                self.raw_write(*pos, lv, *op, RawRhs::Value(value))
            }
            St::IncDec { pos, lv, inc } if lv.index.is_some() => {
                let op = if *inc { BOp::Add } else { BOp::Sub };
                self.raw_write(*pos, lv, Some(op), RawRhs::One)
            }
            St::Assign { pos, lv, op, value } => {
                if let Some(Sym::Struct { ty }) = self.lookup(&lv.name).cloned() {
                    return match op {
                        None => self.struct_assign(*pos, (&lv.name, &[]), &ty, value),
                        Some(op) => {
                            let place = self.lval_ex(lv)?;
                            self.struct_compound(*pos, (&lv.name, &[]), &ty, *op, &place, value)
                        }
                    };
                }
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
                if slot == usize::MAX {
                    // A `void` function: `return;` ends the path.
                    return match value {
                        Some(v) => self.err(v.pos, "a `void` function cannot return a value"),
                        None => Ok(()),
                    };
                }
                let Some(value) = value else {
                    return self.err(*pos, "`return` needs a value");
                };
                if let Some(Some((st, slots))) = self.inline_struct.last().cloned() {
                    let (_, vals) = self.struct_value(value, Some(&st))?;
                    for ((slot, ty), v) in slots.iter().zip(&vals) {
                        self.store_slot(*pos, *slot, *ty, v)?;
                    }
                    return Ok(());
                }
                let v = self.expr(value)?;
                self.set_slot(*pos, slot, ty, &v)
            }
        }
    }

    /// True for an assignment target past a plain name or raw element: steps after an index
    /// (`ps[j].x`), or an element of an array of structs (`ps[j] = q`).
    fn is_path(&self, lv: &LVal) -> bool {
        !lv.tail.is_empty()
            || (lv.index.is_some()
                && matches!(self.lookup(&lv.name), Some(Sym::StructArray { .. })))
    }

    /// Sets local `slot` of type `ty` to `v` converted to it: an assignment statement in
    /// statement mode, else the slot's folded value.
    pub(super) fn set_slot(&mut self, pos: usize, slot: usize, ty: DType, v: &Val) -> PResult<()> {
        let e = self.conv(v, ty);
        self.check_size(pos, &e)?;
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

    /// `x[j] = v`, `x[j] op= v`, `x[j]++`: a guarded [`Stmt::StoreRaw`]. `j` is evaluated once;
    /// a write outside `0..x.size()` is dropped (on every backend: the guard is in the IR).
    /// Compound forms read, combine and write back in one element's steps, not atomically
    /// (CuPy's semantics: concurrent updates of one element race).
    pub(super) fn raw_write(
        &mut self,
        pos: usize,
        lv: &LVal,
        op: Option<BOp>,
        rhs: RawRhs<'_>,
    ) -> PResult<()> {
        let n = &lv.name;
        let (k, ty) = match self.lookup(n).cloned() {
            Some(Sym::Raw { k, ty }) => (k, ty),
            Some(Sym::Array { len, ty }) => return self.array_write(pos, lv, op, rhs, len, ty),
            Some(_) => {
                return self.err(
                    lv.pos,
                    format!("`{n}` is not a raw array: declare it `raw` to index it"),
                )
            }
            None => return self.unknown(lv.pos, n),
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

    /// `T name[len] = {items}`: one local per element (zero past the items), named
    /// `name[k]` (not an identifier, so no user name clashes), and `name` itself as the array.
    fn array_decl(
        &mut self,
        pos: usize,
        t: Ty,
        konst: bool,
        name: &str,
        len: usize,
        items: &[Ex],
    ) -> PResult<()> {
        let Ty::D(d) = t else {
            return self.err(pos, format!("local array `{name}` needs a type, not auto"));
        };
        if !self.stmt_mode {
            return self.err(pos, "local arrays are only available in statements");
        }
        if !(1..=MAX_ARRAY).contains(&len) {
            return self.err(
                pos,
                format!("local array `{name}` has {len} elements; 1 to {MAX_ARRAY} are supported"),
            );
        }
        if items.len() > len {
            return self.err(
                pos,
                format!("{} initialisers for `{name}[{len}]`", items.len()),
            );
        }
        if konst && items.is_empty() {
            return self.err(pos, format!("const `{name}` needs an initialiser"));
        }
        for k in 0..len {
            let value = match items.get(k) {
                Some(e) => {
                    let v = self.expr(e)?;
                    if v.ty().is_complex() && !d.is_complex() {
                        return self.err(e.pos, COMPLEX_TO_REAL);
                    }
                    self.conv(&v, d)
                }
                None => c(Scalar::zero(d)),
            };
            let slot = self.new_local(d, value);
            self.declare(
                pos,
                &format!("{name}[{k}]"),
                Sym::Local {
                    slot,
                    ty: d,
                    out: None,
                    uniform: None,
                },
            )?;
        }
        self.declare(pos, name, Sym::Array { len, ty: d })
    }

    /// The element index of a local array access: `Ok(k)` for a constant, `Err(idx)` (an
    /// `Int64` expression, bound to a local) otherwise.
    pub(super) fn array_index(
        &mut self,
        ix: &Ex,
        name: &str,
        len: usize,
    ) -> PResult<std::result::Result<usize, Expr>> {
        let iv = self.expr(ix)?;
        if !(iv.ty().is_integer() || iv.ty().is_bool()) {
            return self.err(
                ix.pos,
                format!("array index must be an integer, not {}", iv.ty()),
            );
        }
        if let Some(Lit::I(k)) = iv.lit {
            if k < 0 || k as usize >= len {
                return self.err(
                    ix.pos,
                    format!("index {k} is out of bounds for `{name}[{len}]`"),
                );
            }
            return Ok(Ok(k as usize));
        }
        let idx = self.conv(&iv, DType::Int64);
        Ok(Err(self.bind(idx)))
    }

    /// Reads `name[ix]` of a local array: the element's local for a constant index, else a
    /// select over the elements (an index out of range reads the last element).
    pub(super) fn array_read(
        &mut self,
        pos: usize,
        name: &str,
        len: usize,
        ix: &Ex,
    ) -> PResult<Val> {
        match self.array_index(ix, name, len)? {
            Ok(k) => self.name(pos, &format!("{name}[{k}]")),
            Err(idx) => {
                let mut v = self.name(pos, &format!("{name}[{}]", len - 1))?.e;
                for k in (0..len - 1).rev() {
                    let e = self.name(pos, &format!("{name}[{k}]"))?.e;
                    let hit = bin(B::Eq, idx.clone(), c(Scalar::Int64(k as i64)));
                    v = Expr::select(hit, e, v);
                }
                Ok(Val::strong(v))
            }
        }
    }

    /// `name[ix] (op)= rhs` of a local array: the element's local for a constant index, else
    /// each element keeps its value unless the index is its own (an index out of range writes
    /// nothing).
    fn array_write(
        &mut self,
        pos: usize,
        lv: &LVal,
        op: Option<BOp>,
        rhs: RawRhs<'_>,
        len: usize,
        ty: DType,
    ) -> PResult<()> {
        let n = lv.name.clone();
        let ix = lv.index.as_ref().expect("indexed lvalue");
        let at = self.array_index(ix, &n, len)?;
        let v = match rhs {
            RawRhs::Value(e) => self.expr(e)?,
            RawRhs::One => Val {
                e: c(Scalar::Int32(1)),
                weak: true,
                lit: Some(Lit::I(1)),
            },
        };
        let ks: Vec<usize> = match &at {
            Ok(k) => vec![*k],
            Err(_) => (0..len).collect(),
        };
        for k in ks {
            let elem = format!("{n}[{k}]");
            let new = match op {
                None => v.clone(),
                Some(op) => {
                    let cur = self.name(pos, &elem)?;
                    self.arith(pos, op, cur, v.clone())?
                }
            };
            if new.ty().is_complex() && !ty.is_complex() {
                return self.err(pos, COMPLEX_TO_REAL);
            }
            let new = match &at {
                Ok(_) => new,
                Err(idx) => {
                    let cur = self.name(pos, &elem)?.e;
                    let hit = bin(B::Eq, idx.clone(), c(Scalar::Int64(k as i64)));
                    Val::strong(Expr::select(hit, self.conv(&new, ty), cur))
                }
            };
            let target = LVal {
                pos: lv.pos,
                name: elem,
                index: None,
                tail: vec![],
            };
            self.assign(&target, new)?;
        }
        Ok(())
    }

    pub(super) fn read_lvalue(&mut self, lv: &LVal) -> PResult<Val> {
        if let Some(ix) = &lv.index {
            if let Some(Sym::Array { len, .. }) = self.lookup(&lv.name).cloned() {
                return self.array_read(lv.pos, &lv.name, len, ix);
            }
            return self.err(lv.pos, "raw arrays are read-only in custom kernels");
        }
        self.name(lv.pos, &lv.name)
    }

    pub(super) fn assign(&mut self, lv: &LVal, v: Val) -> PResult<()> {
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
            Some(Sym::Array { .. }) => self.err(
                lv.pos,
                format!("local array `{n}` must be indexed to be written (`{n}[j] = ...`)"),
            ),
            Some(Sym::Struct { ty }) => self.err(lv.pos, structs::struct_use(n, &ty)),
            Some(Sym::StructArray { .. }) => self.err(
                lv.pos,
                format!("array `{n}` must be indexed to be written (`{n}[j] = ...`)"),
            ),
            None if n == "i" => self.err(lv.pos, "cannot assign to `i`"),
            None if matches!(n.as_str(), "_ind" | "_in_ind" | "_out_ind") => {
                self.err(lv.pos, ind_misuse(n, n))
            }
            None => self.unknown(lv.pos, n),
        }
    }

    pub(super) fn for_loop(
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
        let [(vpos, var, Some(start), None)] = vars.as_slice() else {
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
                let (v, _, _) = crate::kernel::lang::types::int_literal(t).ok()?;
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
