//! From pest's pairs to the syntax tree ([`Builder`]).

use super::*;

/// Builds the AST from pest pairs. `is_type` says whether a cast's words name a type (for the
/// C ambiguity of `(x) - 1`: a cast if `x` is a type, a subtraction otherwise).
pub(crate) struct Builder<'a> {
    pub part: &'static str,
    pub is_type: &'a dyn Fn(&[String]) -> bool,
}

pub(crate) enum Tok {
    Operand(Ex),
    Op(BOp, usize),
}

impl Builder<'_> {
    fn pos(p: &Pair<'_, Rule>) -> usize {
        p.as_span().start()
    }

    /// An `expr` pair.
    pub fn expr(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        debug_assert_eq!(p.as_rule(), Rule::expr);
        let mut inner = p.into_inner().filter(not_punct);
        let first = self.bin_expr(inner.next().expect("bin_expr"))?;
        // `c0 ? e0 : c1 ? e1 : last` -- right-associative.
        let mut parts = vec![];
        while let Some(mid) = inner.next() {
            let mid = self.expr(mid)?;
            let rhs = self.bin_expr(inner.next().expect("bin_expr"))?;
            parts.push((mid, rhs));
        }
        if parts.is_empty() {
            return Ok(first);
        }
        let mut conds = vec![first];
        let mut mids = vec![];
        for (m, r) in parts {
            mids.push(m);
            conds.push(r);
        }
        let mut acc = conds.pop().expect("else");
        while let Some(m) = mids.pop() {
            let c = conds.pop().expect("cond");
            let pos = c.pos;
            acc = Ex::new(
                self.part,
                pos,
                ExK::Cond(Box::new(c), Box::new(m), Box::new(acc)),
            )?;
        }
        Ok(acc)
    }

    fn bin_expr(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let mut toks = vec![];
        for q in p.into_inner().filter(not_punct) {
            if q.as_rule() == Rule::unary {
                self.unary_toks(q, &mut toks)?;
            } else {
                let op = BOp::from_rule(q.as_rule()).expect("infix op");
                toks.push(Tok::Op(op, Self::pos(&q)));
            }
        }
        // Shunting-yard (iterative: long chains do not recurse).
        let mut vals: Vec<Ex> = vec![];
        let mut ops: Vec<(BOp, usize)> = vec![];
        let reduce = |vals: &mut Vec<Ex>, op: BOp, pos: usize| -> PResult<()> {
            let b = vals.pop().expect("rhs");
            let a = vals.pop().expect("lhs");
            let _ = pos;
            let at = a.pos;
            vals.push(Ex::new(
                self.part,
                at,
                ExK::Binary(op, Box::new(a), Box::new(b)),
            )?);
            Ok(())
        };
        for t in toks {
            match t {
                Tok::Operand(e) => vals.push(e),
                Tok::Op(op, pos) => {
                    while let Some(&(top, tpos)) = ops.last() {
                        if top.prec() >= op.prec() {
                            ops.pop();
                            reduce(&mut vals, top, tpos)?;
                        } else {
                            break;
                        }
                    }
                    ops.push((op, pos));
                }
            }
        }
        while let Some((op, pos)) = ops.pop() {
            reduce(&mut vals, op, pos)?;
        }
        Ok(vals.pop().expect("value"))
    }

    /// Pushes the tokens of one `unary` pair: usually one operand, but a non-type "cast"
    /// `(x) - y` becomes the operand `x`, the operator `-`, and what follows.
    fn unary_toks(&self, p: Pair<'_, Rule>, toks: &mut Vec<Tok>) -> PResult<()> {
        enum Pre {
            Op(UOp, usize),
            Cast(Vec<String>, usize),
        }
        let mut pres = vec![];
        let mut post = None;
        for q in p.into_inner().filter(not_punct) {
            let pos = Self::pos(&q);
            match q.as_rule() {
                Rule::op_neg => pres.push(Pre::Op(UOp::Neg, pos)),
                Rule::op_pos => pres.push(Pre::Op(UOp::Pos, pos)),
                Rule::op_not => pres.push(Pre::Op(UOp::Not, pos)),
                Rule::op_bitnot => pres.push(Pre::Op(UOp::BitNot, pos)),
                Rule::cast_prefix => {
                    let words = Self::words(q.into_inner().find(not_punct).expect("type_words"));
                    pres.push(Pre::Cast(words, pos));
                }
                Rule::postfix_expr => post = Some(self.postfix(q)?),
                r => unreachable!("unary: {r:?}"),
            }
        }
        let operand = post.expect("postfix_expr");
        let apply = |pres: Vec<Pre>, mut e: Ex| -> PResult<Ex> {
            for pre in pres.into_iter().rev() {
                e = match pre {
                    Pre::Op(op, pos) => Ex::new(self.part, pos, ExK::Unary(op, Box::new(e)))?,
                    Pre::Cast(w, pos) => Ex::new(self.part, pos, ExK::Cast(w, Box::new(e)))?,
                };
            }
            Ok(e)
        };
        let mut cur: Vec<Pre> = vec![];
        let mut iter = pres.into_iter();
        while let Some(pre) = iter.next() {
            match pre {
                Pre::Cast(words, pos) if !(self.is_type)(&words) => {
                    if words.len() != 1 {
                        return perr(
                            self.part,
                            pos + 1,
                            format!("unknown type `{}`", words.join(" ")),
                        );
                    }
                    // `(x) - y`: a parenthesised name followed by a binary operator.
                    let name = Ex::new(self.part, pos + 1, ExK::Name(words[0].clone()))?;
                    toks.push(Tok::Operand(apply(std::mem::take(&mut cur), name)?));
                    match iter.next() {
                        Some(Pre::Op(UOp::Neg, p2)) => toks.push(Tok::Op(BOp::Sub, p2)),
                        Some(Pre::Op(UOp::Pos, p2)) => toks.push(Tok::Op(BOp::Add, p2)),
                        _ => {
                            return perr(
                                self.part,
                                pos + 1,
                                format!(
                                    "`{}` is not a type (expected an operator after `({})`)",
                                    words[0], words[0]
                                ),
                            )
                        }
                    }
                }
                other => cur.push(other),
            }
        }
        toks.push(Tok::Operand(apply(cur, operand)?));
        Ok(())
    }

    fn postfix(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let mut inner = p.into_inner().filter(not_punct);
        let mut e = self.primary(inner.next().expect("primary"))?;
        for suf in inner {
            let at = e.pos;
            if suf.as_rule() == Rule::member_suffix {
                let mut si = suf.into_inner().filter(not_punct);
                let name = si.next().expect("member name").as_str().to_string();
                let args = si.map(|a| self.expr(a)).collect::<PResult<Vec<_>>>()?;
                e = Ex::new(self.part, at, ExK::Member(Box::new(e), name, args))?;
                continue;
            }
            if suf.as_rule() == Rule::field_suffix {
                let field = suf
                    .into_inner()
                    .find(|q| q.as_rule() == Rule::ident)
                    .expect("field name")
                    .as_str();
                // A field of a named struct is the name `p.x` (so `p.x`, `p.v[k]` and nested
                // `p.a.x` resolve as names); of another value, a field expression.
                let k = match e.k {
                    ExK::Name(n) => ExK::Name(format!("{n}.{field}")),
                    k => ExK::Field(
                        Box::new(Ex {
                            pos: e.pos,
                            depth: e.depth,
                            k,
                        }),
                        field.to_string(),
                    ),
                };
                e = Ex::new(self.part, at, k)?;
                continue;
            }
            let ix = self.expr(suf.into_inner().find(not_punct).expect("expr"))?;
            e = Ex::new(self.part, at, ExK::Index(Box::new(e), Box::new(ix)))?;
        }
        Ok(e)
    }

    fn primary(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let pos = Self::pos(&p);
        let k = match p.as_rule() {
            Rule::float_lit => ExK::Float(p.as_str().to_string()),
            Rule::int_lit => ExK::Int(p.as_str().to_string()),
            Rule::bool_lit => ExK::Bool(p.as_str() == "true"),
            Rule::ident => ExK::Name(p.as_str().to_string()),
            Rule::deref_this => ExK::Name("this".into()),
            Rule::ind_size => ExK::IndSize(
                p.into_inner()
                    .find(not_punct)
                    .expect("ind_name")
                    .as_str()
                    .to_string(),
            ),
            Rule::ind_get => ExK::IndGet(
                p.into_inner()
                    .find(not_punct)
                    .expect("ind_name")
                    .as_str()
                    .to_string(),
            ),
            Rule::paren => return self.expr(p.into_inner().find(not_punct).expect("expr")),
            Rule::call => {
                let mut inner = p
                    .into_inner()
                    .filter(not_punct)
                    .filter(|q| q.as_rule() != Rule::ns_prefix);
                let name = inner.next().expect("ident").as_str().to_string();
                let args = inner.map(|a| self.expr(a)).collect::<PResult<Vec<_>>>()?;
                ExK::Call(name, args)
            }
            Rule::targ_call => {
                let mut inner = p.into_inner().filter(not_punct);
                let name = inner.next().expect("ident").as_str().to_string();
                let mut targs = vec![];
                let mut args = vec![];
                for q in inner {
                    if q.as_rule() == Rule::targ {
                        let t = q.into_inner().next().expect("targ");
                        targs.push(if t.as_rule() == Rule::targ_expr {
                            TArg::Expr(self.bin_expr(t)?)
                        } else {
                            TArg::Type(Self::words(t))
                        });
                    } else {
                        args.push(self.expr(q)?);
                    }
                }
                ExK::TCall(name, targs, args)
            }
            Rule::tmpl_call => {
                let mut inner = p.into_inner().filter(not_punct);
                let ty = inner.next().expect("tmpl_type");
                let name = Self::words_of_one(ty);
                let args = inner.map(|a| self.expr(a)).collect::<PResult<Vec<_>>>()?;
                ExK::Call(name, args)
            }
            Rule::ind_other => {
                let text: String = p.as_str().split_whitespace().collect();
                let obj = p
                    .into_inner()
                    .find(|q| q.as_rule() == Rule::ind_name)
                    .map_or("_ind", |q| q.as_str());
                return perr(self.part, pos, ind_misuse(obj, &text));
            }
            Rule::static_cast => {
                let mut inner = p.into_inner().filter(not_punct);
                let words = Self::words(inner.next().expect("type_words"));
                let e = self.expr(inner.next().expect("expr"))?;
                ExK::Cast(words, Box::new(e))
            }
            r => unreachable!("primary: {r:?}"),
        };
        Ex::new(self.part, pos, k)
    }

    /// The words of a `type_words`/`type_spec` pair; `complex<float>` (with any namespace) is
    /// one word, written `complex<float>`.
    fn words(p: Pair<'_, Rule>) -> Vec<String> {
        p.into_inner()
            .filter(not_punct)
            .map(|w| match w.as_rule() {
                Rule::tmpl_type => Self::words_of_one(w),
                Rule::tmpl_name => Self::tmpl_name_word(w),
                _ => w.as_str().to_string(),
            })
            .collect()
    }

    /// `P<float,N + 1>` for a `tmpl_name` pair: the name, then each argument's text (spaces
    /// collapsed), read back by the lowering.
    fn tmpl_name_word(p: Pair<'_, Rule>) -> String {
        let mut inner = p.into_inner();
        let name = inner.next().expect("ident").as_str();
        let args: Vec<String> = inner
            .map(|t| t.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        format!("{name}<{}>", args.join(","))
    }

    /// `complex<float>` for a `tmpl_type` pair.
    pub(crate) fn words_of_one(p: Pair<'_, Rule>) -> String {
        let inner = p
            .into_inner()
            .find(|q| q.as_rule() == Rule::type_words)
            .map(Self::words)
            .unwrap_or_default();
        format!("complex<{}>", inner.join(" "))
    }

    fn lvalue(&self, p: Pair<'_, Rule>) -> PResult<LVal> {
        let pos = Self::pos(&p);
        let mut name = String::new();
        let mut tail = vec![];
        for q in p.into_inner().filter(not_punct) {
            if q.as_rule() == Rule::ident {
                if tail.is_empty() {
                    if !name.is_empty() {
                        name.push('.');
                    }
                    name.push_str(q.as_str());
                } else {
                    tail.push(Seg::Field(q.as_str().to_string()));
                }
            } else {
                tail.push(Seg::Index(
                    self.expr(q.into_inner().find(not_punct).expect("expr"))?,
                ));
            }
        }
        // `name[j]`: the plain indexed form; anything longer keeps its steps.
        let index = match tail.as_slice() {
            [Seg::Index(_)] => match tail.pop() {
                Some(Seg::Index(ix)) => Some(ix),
                _ => unreachable!("one index"),
            },
            _ => None,
        };
        Ok(LVal {
            pos,
            name,
            index,
            tail,
        })
    }

    fn decl_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut inner = p.into_inner().filter(not_punct);
        let ty = Self::words(inner.next().expect("type_spec"));
        let mut vars = vec![];
        for d in inner {
            let dpos = Self::pos(&d);
            let mut di = d.into_inner().filter(not_punct);
            let name = di.next().expect("ident").as_str().to_string();
            let mut array = None;
            let mut init = None;
            for q in di {
                match q.as_rule() {
                    Rule::array_len => {
                        let len = self.expr(q.into_inner().find(not_punct).expect("expr"))?;
                        array = Some((Some(len), vec![]));
                    }
                    Rule::init_list => {
                        let items = q
                            .into_inner()
                            .filter(not_punct)
                            .map(|e| self.expr(e))
                            .collect::<PResult<Vec<_>>>()?;
                        match &mut array {
                            Some((_, v)) => *v = items,
                            // A struct's initialiser list (checked when lowered).
                            None => array = Some((None, items)),
                        }
                    }
                    _ => init = Some(self.expr(q)?),
                }
            }
            if array.is_some() && init.is_some() {
                return Err(PErr {
                    part: self.part,
                    pos: dpos,
                    msg: format!("array `{name}` takes a `{{...}}` initialiser list"),
                });
            }
            vars.push((dpos, name, init, array));
        }
        Ok(St::Decl { pos, ty, vars })
    }

    fn assign_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut inner = p.into_inner().filter(not_punct);
        let lv = self.lvalue(inner.next().expect("lvalue"))?;
        let op = match inner.next().expect("assign_op").as_str() {
            "=" => None,
            "+=" => Some(BOp::Add),
            "-=" => Some(BOp::Sub),
            "*=" => Some(BOp::Mul),
            "/=" => Some(BOp::Div),
            "%=" => Some(BOp::Rem),
            "&=" => Some(BOp::BitAnd),
            "|=" => Some(BOp::BitOr),
            "^=" => Some(BOp::BitXor),
            "<<=" => Some(BOp::Shl),
            ">>=" => Some(BOp::Shr),
            o => unreachable!("assign op {o}"),
        };
        let value = self.expr(inner.next().expect("expr"))?;
        Ok(St::Assign { pos, lv, op, value })
    }

    fn incdec_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut lv = None;
        let mut inc = true;
        for q in p.into_inner().filter(not_punct) {
            match q.as_rule() {
                Rule::op_inc => inc = true,
                Rule::op_dec => inc = false,
                Rule::lvalue => lv = Some(self.lvalue(q)?),
                r => unreachable!("incdec: {r:?}"),
            }
        }
        Ok(St::IncDec {
            pos,
            lv: lv.expect("lvalue"),
            inc,
        })
    }

    /// One statement pair (any of the `stmt` alternatives, or a bare core form).
    pub fn stmt(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        Ok(match p.as_rule() {
            Rule::block => St::Block(
                p.into_inner()
                    .filter(not_punct)
                    .map(|s| self.stmt(s))
                    .collect::<PResult<_>>()?,
            ),
            Rule::if_stmt => {
                let mut arms: Vec<(usize, Ex, St)> = vec![];
                let mut els = None;
                let mut inner = p.into_inner().filter(not_punct);
                inner.next(); // kw_if
                let c = self.expr(inner.next().expect("cond"))?;
                let t = self.stmt(inner.next().expect("then"))?;
                arms.push((pos, c, t));
                for q in inner {
                    let qpos = Self::pos(&q);
                    match q.as_rule() {
                        Rule::else_if => {
                            let mut qi = q.into_inner().filter(not_punct);
                            qi.next();
                            qi.next();
                            let c = self.expr(qi.next().expect("cond"))?;
                            let t = self.stmt(qi.next().expect("then"))?;
                            arms.push((qpos, c, t));
                        }
                        Rule::else_part => {
                            let mut qi = q.into_inner().filter(not_punct);
                            qi.next();
                            els = Some(Box::new(self.stmt(qi.next().expect("else"))?));
                        }
                        r => unreachable!("if: {r:?}"),
                    }
                }
                let mut acc = els;
                while let Some((ipos, cond, then)) = arms.pop() {
                    acc = Some(Box::new(St::If {
                        pos: ipos,
                        cond,
                        then: Box::new(then),
                        els: acc,
                    }));
                }
                *acc.expect("if")
            }
            Rule::for_stmt => {
                let mut inner = p.into_inner().filter(not_punct);
                inner.next(); // kw_for
                let init = inner.next().expect("init").into_inner().find(not_punct);
                let init = match init {
                    Some(q) if q.as_rule() == Rule::decl_core => Some(Box::new(self.decl_core(q)?)),
                    Some(q) => Some(Box::new(self.assign_core(q)?)),
                    None => None,
                };
                let cond = match inner.next().expect("cond").into_inner().find(not_punct) {
                    Some(q) => Some(self.expr(q)?),
                    None => None,
                };
                let step = match inner.next().expect("step").into_inner().find(not_punct) {
                    Some(q) if q.as_rule() == Rule::incdec_core => {
                        Some(Box::new(self.incdec_core(q)?))
                    }
                    Some(q) => Some(Box::new(self.assign_core(q)?)),
                    None => None,
                };
                let body = Box::new(self.stmt(inner.next().expect("body"))?);
                St::For {
                    pos,
                    init,
                    cond,
                    step,
                    body,
                }
            }
            Rule::return_stmt => {
                let mut inner = p.into_inner().filter(not_punct);
                inner.next();
                let value = match inner.next() {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                St::Return { pos, value }
            }
            Rule::empty_stmt => St::Empty,
            Rule::decl_stmt => self.decl_core(p.into_inner().find(not_punct).expect("decl"))?,
            Rule::incdec_stmt => {
                self.incdec_core(p.into_inner().find(not_punct).expect("incdec"))?
            }
            Rule::assign_stmt => {
                self.assign_core(p.into_inner().find(not_punct).expect("assign"))?
            }
            Rule::expr_stmt => St::Expr(self.expr(p.into_inner().find(not_punct).expect("expr"))?),
            Rule::decl_core => self.decl_core(p)?,
            Rule::assign_core => self.assign_core(p)?,
            Rule::incdec_core => self.incdec_core(p)?,
            Rule::expr => St::Expr(self.expr(p)?),
            r => unreachable!("stmt: {r:?}"),
        })
    }

    /// Statements of an `operation` or `post_stmts` top rule.
    pub fn stmts(&self, top: Pair<'_, Rule>) -> PResult<Vec<St>> {
        top.into_inner()
            .filter(not_punct)
            .filter(|p| p.as_rule() != Rule::EOI)
            .map(|p| self.stmt(p))
            .collect()
    }

    /// Template parameters of a `template_head` pair.
    fn tparams(p: Pair<'_, Rule>) -> Vec<TParam> {
        p.into_inner()
            .filter(|q| q.as_rule() == Rule::tparam)
            .map(|q| {
                let pos = Self::pos(&q);
                let mut qi = q.into_inner().filter(not_punct);
                let first = qi.next().expect("tparam kind");
                let name = qi.next().expect("tparam name").as_str().to_string();
                let kind = (first.as_rule() != Rule::tparam_kind).then(|| Self::words(first));
                TParam { pos, name, kind }
            })
            .collect()
    }

    /// A `struct_def` pair.
    fn struct_def(&self, p: Pair<'_, Rule>) -> PResult<StructDef> {
        let pos = Self::pos(&p);
        let mut name = String::new();
        let mut tparams = vec![];
        let mut fields = vec![];
        let mut methods = vec![];
        for q in p.into_inner().filter(not_punct) {
            match q.as_rule() {
                Rule::template_head => tparams = self.tparams_checked(q)?,
                Rule::kw_struct | Rule::access => {}
                Rule::ident => name = q.as_str().to_string(),
                Rule::method_def => methods.push(self.func(q)?),
                Rule::field_decl => {
                    let mut qi = q.into_inner().filter(not_punct);
                    let ty = Self::words(qi.next().expect("type_spec"));
                    for f in qi {
                        let fpos = Self::pos(&f);
                        let mut fi = f.into_inner();
                        let fname = fi.next().expect("ident").as_str().to_string();
                        let len = match fi.next() {
                            Some(l) => {
                                Some(self.expr(l.into_inner().find(not_punct).expect("expr"))?)
                            }
                            None => None,
                        };
                        fields.push((ty.clone(), fname, len, fpos));
                    }
                }
                r => unreachable!("struct: {r:?}"),
            }
        }
        Ok(StructDef {
            pos,
            name,
            tparams,
            fields,
            methods,
        })
    }

    /// Struct definitions of a `preamble`.
    pub fn structs(&self, top: Pair<'_, Rule>) -> PResult<Vec<StructDef>> {
        top.into_inner()
            .filter(|p| p.as_rule() == Rule::struct_def)
            .map(|p| self.struct_def(p))
            .collect()
    }

    /// Forward declarations of a `preamble` (`float f(float);`, `struct P;`).
    pub fn decls(&self, top: Pair<'_, Rule>) -> Vec<Decl> {
        top.into_inner()
            .filter(|p| matches!(p.as_rule(), Rule::func_decl | Rule::struct_fwd))
            .map(|p| {
                let pos = Self::pos(&p);
                let is_fn = p.as_rule() == Rule::func_decl;
                let inner: Vec<Pair<'_, Rule>> = p.into_inner().filter(not_punct).collect();
                let name = inner
                    .iter()
                    .find(|q| matches!(q.as_rule(), Rule::fname | Rule::ident))
                    .map(|q| Self::fname(q.clone()))
                    .unwrap_or_default();
                let params = is_fn.then(|| {
                    inner
                        .iter()
                        .filter(|q| q.as_rule() == Rule::fparam_decl)
                        .count()
                });
                Decl { pos, name, params }
            })
            .collect()
    }

    /// The name of a `fname` pair: an identifier, or `operator+` for an operator.
    fn fname(p: Pair<'_, Rule>) -> String {
        if p.as_rule() == Rule::ident {
            return p.as_str().to_string();
        }
        match p.into_inner().next() {
            Some(q) if q.as_rule() == Rule::op_name => {
                let sym = q.into_inner().find(|r| r.as_rule() == Rule::op_sym);
                format!("operator{}", sym.map_or("", |r| r.as_str()))
            }
            Some(q) => q.as_str().to_string(),
            None => String::new(),
        }
    }

    /// Template parameters of a `template_head`, refusing a name given twice (as C++ does).
    fn tparams_checked(&self, p: Pair<'_, Rule>) -> PResult<Vec<TParam>> {
        let tparams = Self::tparams(p);
        for (i, t) in tparams.iter().enumerate() {
            if tparams[..i].iter().any(|u| u.name == t.name) {
                return perr(
                    self.part,
                    t.pos,
                    format!("template parameter `{}` is declared twice", t.name),
                );
            }
        }
        Ok(tparams)
    }

    /// A `func_def` or `method_def` pair.
    fn func(&self, f: Pair<'_, Rule>) -> PResult<Func> {
        let pos = Self::pos(&f);
        let mut inner = f.into_inner().filter(not_punct).peekable();
        let tparams = match inner.peek() {
            Some(q) if q.as_rule() == Rule::template_head => {
                self.tparams_checked(inner.next().expect("template_head"))?
            }
            _ => vec![],
        };
        let ret_pair = inner.next().expect("type_spec");
        let ret_pos = Self::pos(&ret_pair);
        let ret = Self::words(ret_pair);
        let name = Self::fname(inner.next().expect("fname"));
        let mut params = vec![];
        let mut body = vec![];
        let mut is_const = false;
        for q in inner {
            match q.as_rule() {
                Rule::fparam => {
                    let ppos = Self::pos(&q);
                    let mut qi = q.into_inner().filter(not_punct);
                    let tyq = qi.next().expect("type");
                    let by_ref = tyq.as_rule() == Rule::fparam_ty;
                    let ty = Self::words(tyq);
                    let mut nq = qi.next().expect("name");
                    if nq.as_rule() == Rule::ref_mark {
                        nq = qi.next().expect("name");
                    }
                    if by_ref && !ty.iter().any(|w| w == "const") {
                        return perr(
                            self.part,
                            ppos,
                            "only `const` reference parameters are supported (`const T& x`, \
                             read as a value); a function cannot write its caller's variables",
                        );
                    }
                    let n = nq.as_str().to_string();
                    params.push((ty, n, ppos));
                }
                Rule::kw_const => is_const = true,
                Rule::block => {
                    body = q
                        .into_inner()
                        .filter(not_punct)
                        .map(|s| self.stmt(s))
                        .collect::<PResult<_>>()?;
                }
                r => unreachable!("func: {r:?}"),
            }
        }
        Ok(Func {
            pos,
            name,
            tparams,
            ret,
            ret_pos,
            params,
            body,
            is_const,
        })
    }

    /// Function definitions of a `preamble`.
    pub fn funcs(&self, top: Pair<'_, Rule>) -> PResult<Vec<Func>> {
        top.into_inner()
            .filter(not_punct)
            .filter(|p| p.as_rule() == Rule::func_def)
            .map(|f| self.func(f))
            .collect()
    }
}
