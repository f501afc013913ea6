//! Inlining of preamble functions at their call sites: arguments bound to fresh locals (C
//! passes by value; struct arguments are copied leaf by leaf), template parameters bound per
//! call, the body lowered in its own scope, the return value (a scalar or a struct's leaves)
//! read back.

use super::*;

impl Lowering<'_> {
    pub(super) fn inline_call(&mut self, pos: usize, name: &str, args: &[Ex]) -> PResult<Val> {
        let r = self.inline_any(pos, name, &[], args)?;
        self.arg_scalar(pos, name, r)
    }

    /// Inlines a call of preamble function `name` (a template instantiated with `targs` and
    /// the arguments' types); its value is a scalar, a struct's leaves, or nothing (`void`).
    pub(super) fn inline_any(
        &mut self,
        pos: usize,
        name: &str,
        targs: &[TArg],
        args: &[Ex],
    ) -> PResult<structs::ArgVal> {
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
        if f.tparams.is_empty() && !targs.is_empty() {
            return self.err(pos, format!("`{name}` is not a template"));
        }
        self.check_depth(pos, name)?;
        let vals = self.eval_args(&f, args)?;
        Ok(self.inline_func(pos, name, &f, targs, vals, None)?.0)
    }

    fn check_depth(&self, pos: usize, name: &str) -> PResult<()> {
        if self.inline.iter().any(|(n, ..)| n == name) {
            return self.err(
                pos,
                format!("recursive call of `{name}` (recursion is not supported)"),
            );
        }
        if self.inline.len() >= MAX_INLINE {
            return self.err(pos, "preamble calls nested too deeply");
        }
        Ok(())
    }

    /// Inlines `f` (named `name` in messages and the recursion check) with evaluated
    /// arguments, and for a member function its object: the result, and the object's leaves
    /// after the call.
    pub(super) fn inline_func(
        &mut self,
        pos: usize,
        name: &str,
        f: &Func,
        targs: &[TArg],
        vals: Vec<structs::ArgVal>,
        this: Option<methods::This>,
    ) -> PResult<(structs::ArgVal, Option<Vec<Val>>)> {
        self.check_depth(pos, name)?;
        let (mut tbind, mut consts) = if f.tparams.is_empty() {
            (vec![], vec![])
        } else {
            self.instantiate(pos, name, &f.tparams, &f.params, targs, &vals)?
        };
        // A member function of a template struct's instance sees the instance's arguments
        // (after its own template parameters, which shadow them).
        if let Some(t) = &this {
            if let Some(inst) = self.struct_insts.get(&t.sname).cloned() {
                let structs = self.structs;
                let def = &structs[inst.base.as_str()];
                for (tp, a) in def.tparams.iter().zip(&inst.args) {
                    match a {
                        structs::InstArg::Type(d) => tbind.push((tp.name.clone(), *d)),
                        structs::InstArg::Const(v) => {
                            if !consts.iter().any(|(n, _)| *n == tp.name) {
                                consts.push((tp.name.clone(), Val::strong(c(*v))));
                            }
                        }
                    }
                }
            }
        }
        // The template's parameters shadow the kernel's placeholders while it is lowered.
        let saved_types = if tbind.is_empty() {
            None
        } else {
            let mut t = tbind.clone();
            t.extend(self.types.iter().cloned());
            Some(std::mem::replace(
                &mut self.types,
                std::borrow::Cow::Owned(t),
            ))
        };
        let in_method = this.is_some();
        if let Some(t) = &this {
            self.this_struct.push(t.sname.clone());
        }
        let r = self.inline_body(pos, name, f, vals, consts, this);
        if in_method {
            self.this_struct.pop();
        }
        if let Some(t) = saved_types {
            self.types = t;
        }
        r
    }

    fn inline_body(
        &mut self,
        pos: usize,
        name: &str,
        f: &Func,
        vals: Vec<structs::ArgVal>,
        consts: Vec<(String, Val)>,
        this: Option<methods::This>,
    ) -> PResult<(structs::ArgVal, Option<Vec<Val>>)> {
        use structs::ArgVal;
        // Types are resolved in the preamble.
        let caller_part = self.part;
        self.part = "preamble";
        let ret_struct = match self.struct_type(f.ret_pos, &f.ret) {
            Ok(s) => s,
            Err(e) => {
                self.part = caller_part;
                return Err(e);
            }
        };
        let ret_words: Vec<&String> = f
            .ret
            .iter()
            .filter(|w| !crate::kernel::lang::types::is_qualifier(w))
            .collect();
        let is_void = ret_words.len() == 1 && ret_words[0] == "void";
        let ret = if ret_struct.is_some() || is_void {
            Ok(Ty::D(DType::Bool))
        } else {
            self.resolve(f.ret_pos, &f.ret)
        };
        let ret = match ret {
            Ok(Ty::D(d)) => d,
            Ok(Ty::Auto) => {
                self.part = caller_part;
                return self.err(pos, "`auto` return types are not supported");
            }
            Err(e) => {
                self.part = caller_part;
                return Err(e);
            }
        };
        // Parameter types: a dtype, or a struct (`None`).
        let mut ptys: Vec<Option<DType>> = vec![];
        for ((words, pname, ppos), v) in f.params.iter().zip(&vals) {
            let st = match self.struct_type(*ppos, words) {
                Ok(s) => s,
                Err(e) => {
                    self.part = caller_part;
                    return Err(e);
                }
            };
            if let Some(st) = st {
                match v {
                    ArgVal::Struct(t, _) if *t == st => {}
                    ArgVal::Struct(t, _) => {
                        self.part = caller_part;
                        return self.err(
                            pos,
                            format!(
                                "`{name}`: cannot convert `{t}` to `{st}` (parameter `{pname}`)"
                            ),
                        );
                    }
                    ArgVal::Scalar(_) | ArgVal::Void => {
                        self.part = caller_part;
                        return self.err(
                            pos,
                            format!("`{name}`: parameter `{pname}` takes a `{st}` struct"),
                        );
                    }
                }
                ptys.push(None);
                continue;
            }
            if let ArgVal::Struct(t, _) = v {
                self.part = caller_part;
                return self.err(
                    pos,
                    format!("`{name}`: a `{t}` struct passed for parameter `{pname}`"),
                );
            }
            match self.resolve(*ppos, words) {
                Ok(Ty::D(d)) => ptys.push(Some(d)),
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
        // The return value's slots: one local, or a struct's leaves.
        let ret_leaves = match &ret_struct {
            Some(st) => {
                let lay = match self.layout(f.ret_pos, st) {
                    Ok(l) => l,
                    Err(e) => {
                        self.part = caller_part;
                        return Err(e);
                    }
                };
                let mut slots = vec![];
                for (_, s) in lay {
                    if let structs::Slot::Scalar(d) = s {
                        slots.push((self.new_local(d, c(Scalar::zero(d))), d));
                    }
                }
                Some((st.clone(), slots))
            }
            None => None,
        };
        self.part = caller_part;
        // Bind the arguments to fresh locals (C passes by value); struct arguments are
        // declared in the function's scope below.
        let mut scope = HashMap::new();
        let mut struct_args = vec![];
        for ((v, t), (_, pname, ppos)) in vals.into_iter().zip(&ptys).zip(&f.params) {
            match (v, t) {
                (ArgVal::Scalar(v), Some(t)) => {
                    let e = self.conv(&v, *t);
                    let uniform =
                        (self.stmt_mode && is_uniform(&e, &self.loop_vars)).then(|| e.clone());
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
                (ArgVal::Struct(st, leaves), _) => {
                    struct_args.push((pname.clone(), *ppos, st, leaves))
                }
                _ => unreachable!("argument kinds checked"),
            }
        }
        for (cname, v) in consts {
            scope.insert(
                cname,
                Sym::Fixed {
                    e: v.e,
                    what: "template parameters",
                },
            );
        }
        // A `void` function has no result slot (its `return;` only ends a path).
        let ret_slot = if is_void {
            usize::MAX
        } else {
            self.new_local(ret, c(Scalar::zero(ret)))
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
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
        self.inline_struct.push(ret_leaves.clone());
        let r = (|| {
            // A member function's object: `this`, its fields also by their bare names (in a
            // scope outside the parameters', which shadow them), read-only when `const`.
            if let Some(t) = &this {
                let slots = self.struct_alloc(pos, "this", &t.sname)?;
                for ((slot, ty), v) in slots.iter().zip(&t.leaves) {
                    self.store_slot(pos, *slot, *ty, v)?;
                }
                let lay = self.layout(pos, &t.sname)?;
                let mut names: Vec<String> = lay.iter().map(|(s, _)| format!("this{s}")).collect();
                names.push("this".into());
                for full in names {
                    let mut sym = self.lookup(&full).cloned().expect("declared");
                    if let (true, Sym::Local { slot, ty, .. }) = (t.is_const, &sym) {
                        let e = if self.stmt_mode {
                            Expr::var(*slot, *ty)
                        } else {
                            self.env[*slot].clone().expect("a field's value")
                        };
                        sym = Sym::Fixed {
                            e,
                            what: "the fields in a `const` member function",
                        };
                    }
                    let scope = self.scopes.last_mut().expect("scope");
                    if let Some(bare) = full.strip_prefix("this.") {
                        scope.insert(bare.to_string(), sym.clone());
                    }
                    scope.insert(full, sym);
                }
            }
            self.scopes.push(scope);
            for (pname, ppos, st, leaves) in &struct_args {
                let slots = self.struct_alloc(*ppos, pname, st)?;
                for ((slot, ty), v) in slots.iter().zip(leaves) {
                    self.store_slot(*ppos, *slot, *ty, v)?;
                }
            }
            let body = normalize_returns(f.body.clone());
            self.stmts(&body)?;
            // The object's fields after the body (a non-`const` member function's changes).
            let Some(t) = &this else {
                return Ok(None);
            };
            let lay = self.layout(pos, &t.sname)?;
            let mut after = vec![];
            for (suffix, _) in Self::leaves(&lay) {
                after.push(self.name(pos, &format!("this{suffix}"))?);
            }
            Ok(Some(after))
        })();
        self.inline.pop();
        self.inline_struct.pop();
        self.part = caller_part;
        self.scopes = saved_scopes;
        self.guards = saved_guards;
        self.bound_mode = saved_bound;
        self.index_ok = saved_index;
        (self.size_ind, self.size_in, self.size_out) = saved_sizes;
        let after = r?;
        if is_void {
            return Ok((ArgVal::Void, after));
        }
        let read = |cx: &Self, slot: usize, ty: DType| {
            if cx.stmt_mode {
                Expr::var(slot, ty)
            } else {
                cx.env[slot].clone().expect("ret")
            }
        };
        if let Some((st, slots)) = ret_leaves {
            let vals = slots
                .iter()
                .map(|&(s, d)| Val::strong(read(self, s, d)))
                .collect();
            return Ok((ArgVal::Struct(st, vals), after));
        }
        let v = read(self, ret_slot, ret);
        self.check_size(pos, &v)?;
        Ok((ArgVal::Scalar(Val::strong(v)), after))
    }
}
