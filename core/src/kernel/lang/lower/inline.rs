//! Inlining of preamble functions at their call sites: arguments bound to fresh locals (C
//! passes by value; struct arguments are copied leaf by leaf), template parameters bound per
//! call, the body lowered in its own scope, the return value (a scalar or a struct's leaves)
//! read back.

use super::*;

impl Lowering<'_> {
    pub(super) fn inline_call(&mut self, pos: usize, name: &str, args: &[Ex]) -> PResult<Val> {
        match self.inline_any(pos, name, &[], args)? {
            structs::ArgVal::Scalar(v) => Ok(v),
            structs::ArgVal::Struct(t, _) => self.err(pos, structs::struct_use(name, &t)),
        }
    }

    /// Inlines a call of preamble function `name` (a template instantiated with `targs` and
    /// the arguments' types); its value is a scalar or a struct's leaves.
    pub(super) fn inline_any(
        &mut self,
        pos: usize,
        name: &str,
        targs: &[TArg],
        args: &[Ex],
    ) -> PResult<structs::ArgVal> {
        use structs::ArgVal;
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
        if f.tparams.is_empty() && !targs.is_empty() {
            return self.err(pos, format!("`{name}` is not a template"));
        }
        // Arguments: struct parameters take struct values, the others scalars.
        let mut vals = vec![];
        for (a, (words, _, _)) in args.iter().zip(&f.params) {
            let is_struct = f.tparams.iter().all(|t| !words.contains(&t.name))
                && self.struct_type(words).is_some();
            vals.push(if is_struct {
                let (t, v) = self.struct_value(a, None)?;
                ArgVal::Struct(t, v)
            } else {
                match &a.k {
                    ExK::Name(n) if matches!(self.lookup(n), Some(Sym::Struct { .. })) => {
                        let (t, v) = self.struct_value(a, None)?;
                        ArgVal::Struct(t, v)
                    }
                    _ => ArgVal::Scalar(self.expr(a)?),
                }
            });
        }
        let (tbind, consts) = if f.tparams.is_empty() {
            (vec![], vec![])
        } else {
            self.instantiate(pos, name, &f.tparams, &f.params, targs, &vals)?
        };
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
        let r = self.inline_body(pos, name, &f, vals, consts);
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
    ) -> PResult<structs::ArgVal> {
        use structs::ArgVal;
        // Types are resolved in the preamble.
        let caller_part = self.part;
        self.part = "preamble";
        let ret_struct = self.struct_type(&f.ret);
        let ret = if ret_struct.is_some() {
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
        // Parameter types: a dtype, or a struct (`None`).
        let mut ptys: Vec<Option<DType>> = vec![];
        for ((words, pname, ppos), v) in f.params.iter().zip(&vals) {
            if let Some(st) = self.struct_type(words) {
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
                    ArgVal::Scalar(_) => {
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
        self.inline_struct.push(ret_leaves.clone());
        let r = (|| {
            for (pname, ppos, st, leaves) in &struct_args {
                let slots = self.struct_alloc(*ppos, pname, st)?;
                for ((slot, ty), v) in slots.iter().zip(leaves) {
                    self.store_slot(*ppos, *slot, *ty, v)?;
                }
            }
            let body = normalize_returns(f.body.clone());
            self.stmts(&body)
        })();
        self.inline.pop();
        self.inline_struct.pop();
        self.part = caller_part;
        self.scopes = saved_scopes;
        self.guards = saved_guards;
        self.bound_mode = saved_bound;
        self.index_ok = saved_index;
        (self.size_ind, self.size_in, self.size_out) = saved_sizes;
        r?;
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
            return Ok(ArgVal::Struct(st, vals));
        }
        let v = read(self, ret_slot, ret);
        self.check_size(pos, &v)?;
        Ok(ArgVal::Scalar(Val::strong(v)))
    }
}
