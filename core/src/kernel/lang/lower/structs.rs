//! Lowering of preamble `struct`s and template functions.
//!
//! A struct variable is one kernel local per scalar field, as a local array is one local per
//! element: the fields of `p` are the locals named `p.x`, `p.v[0]`, `p.a.x` (not identifiers,
//! so no user name clashes), and `p` itself is a [`Sym::Struct`]. Struct values (a name, a
//! call of a function returning a struct, a field of one) are copied leaf by leaf. Template
//! functions are instantiated at each call: the template parameters are deduced from the
//! arguments' types (or given, `f<float>(x)`, `f<3>(x)`) and bound while the body is lowered.

use super::*;
use crate::kernel::lang::syntax::{StructDef, TArg, TParam};
use crate::kernel::lang::types::is_qualifier;

/// Deepest nesting of structs in structs.
const MAX_STRUCT_DEPTH: usize = 8;

/// A template instance: the type parameters' dtypes and the non-type parameters' values.
pub(super) type Instance = (Vec<(String, DType)>, Vec<(String, Val)>);

/// A struct return value: its type and the locals of its scalar leaves.
pub(crate) type StructRet = (String, Vec<(usize, DType)>);

/// One entry of a struct's layout, keyed by its path suffix (`.x`, `.v`, `.v[0]`, `.a.x`).
#[derive(Clone, Debug)]
pub(super) enum Slot {
    Scalar(DType),
    Array(usize, DType),
    Struct(String),
}

/// A call's argument: a scalar value, or a struct's type and leaf values.
#[derive(Clone, Debug)]
pub(super) enum ArgVal {
    Scalar(Val),
    Struct(String, Vec<Val>),
}

impl Lowering<'_> {
    /// The struct named by type words (qualifiers ignored), if any.
    pub(super) fn struct_type(&self, words: &[String]) -> Option<String> {
        let ws: Vec<&String> = words.iter().filter(|w| !is_qualifier(w)).collect();
        (ws.len() == 1
            && self.structs.contains_key(ws[0].as_str())
            && resolve_type(&[ws[0].as_str()], &self.types).is_none())
        .then(|| ws[0].clone())
    }

    /// The layout of struct `sname`: every field, nested struct and array element, in order.
    pub(super) fn layout(&mut self, pos: usize, sname: &str) -> PResult<Vec<(String, Slot)>> {
        let mut out = vec![];
        self.layout_into(pos, sname, "", 0, &mut out)?;
        Ok(out)
    }

    fn layout_into(
        &mut self,
        pos: usize,
        sname: &str,
        prefix: &str,
        depth: usize,
        out: &mut Vec<(String, Slot)>,
    ) -> PResult<()> {
        if depth > MAX_STRUCT_DEPTH {
            return self.err(
                pos,
                format!("struct `{sname}` nests too deeply (a struct cannot contain itself)"),
            );
        }
        let structs = self.structs;
        let def: &StructDef = &structs[sname];
        for (ty, f, len, fpos) in &def.fields {
            let path = format!("{prefix}.{f}");
            if let Some(inner) = self.struct_type(ty) {
                if len.is_some() {
                    return perr("preamble", *fpos, "arrays of structs are not supported");
                }
                out.push((path.clone(), Slot::Struct(inner.clone())));
                self.layout_into(pos, &inner, &path, depth + 1, out)?;
                continue;
            }
            // Field types are resolved in the preamble (they may name the kernel's type
            // placeholders or an enclosing template's parameters).
            let saved = std::mem::replace(&mut self.part, "preamble");
            let d = self.resolve_d(*fpos, ty);
            self.part = saved;
            let d = d?;
            match *len {
                None => out.push((path, Slot::Scalar(d))),
                Some(n) => {
                    if !(1..=MAX_ARRAY).contains(&n) {
                        return perr(
                            "preamble",
                            *fpos,
                            format!("array field `{f}` has {n} elements; 1 to {MAX_ARRAY} are supported"),
                        );
                    }
                    out.push((path.clone(), Slot::Array(n, d)));
                    for k in 0..n {
                        out.push((format!("{path}[{k}]"), Slot::Scalar(d)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The scalar leaves of a layout: (suffix, dtype).
    fn leaves(lay: &[(String, Slot)]) -> Vec<(String, DType)> {
        lay.iter()
            .filter_map(|(s, k)| match k {
                Slot::Scalar(d) => Some((s.clone(), *d)),
                _ => None,
            })
            .collect()
    }

    /// Declares `path` a struct `sname` in the current scope, each scalar field a new local
    /// (zero); returns the leaves' local slots and types.
    pub(super) fn struct_alloc(
        &mut self,
        pos: usize,
        path: &str,
        sname: &str,
    ) -> PResult<Vec<(usize, DType)>> {
        let lay = self.layout(pos, sname)?;
        let mut slots = vec![];
        for (suffix, s) in lay {
            let name = format!("{path}{suffix}");
            match s {
                Slot::Scalar(d) => {
                    let slot = self.new_local(d, c(Scalar::zero(d)));
                    self.declare(
                        pos,
                        &name,
                        Sym::Local {
                            slot,
                            ty: d,
                            out: None,
                            uniform: None,
                        },
                    )?;
                    slots.push((slot, d));
                }
                Slot::Array(len, ty) => self.declare(pos, &name, Sym::Array { len, ty })?,
                Slot::Struct(s) => self.declare(pos, &name, Sym::Struct { ty: s })?,
            }
        }
        self.declare(
            pos,
            path,
            Sym::Struct {
                ty: sname.to_string(),
            },
        )?;
        Ok(slots)
    }

    /// Stores `v` into local `slot` of type `ty` (a struct leaf).
    pub(super) fn store_slot(
        &mut self,
        pos: usize,
        slot: usize,
        ty: DType,
        v: &Val,
    ) -> PResult<()> {
        if v.ty().is_complex() && !ty.is_complex() {
            return self.err(pos, COMPLEX_TO_REAL);
        }
        self.set_slot(pos, slot, ty, v)
    }

    /// Declares struct `name` of type `sname`, initialised from `init` (a struct value), from
    /// a `{...}` list (the scalar leaves in order, C's brace elision; zeros past the list), or
    /// zero.
    pub(super) fn struct_decl(
        &mut self,
        pos: usize,
        sname: &str,
        name: &str,
        init: Option<&Ex>,
        list: Option<&[Ex]>,
    ) -> PResult<()> {
        // The initialiser is evaluated before the name is in scope.
        let vals = match (init, list) {
            (Some(e), _) => Some(self.struct_value(e, Some(sname))?.1),
            (None, Some(items)) => {
                let mut v = vec![];
                for it in items {
                    v.push(self.expr(it)?);
                }
                Some(v)
            }
            (None, None) => None,
        };
        let slots = self.struct_alloc(pos, name, sname)?;
        if let Some(vals) = vals {
            if vals.len() > slots.len() {
                return self.err(
                    pos,
                    format!(
                        "{} initialisers for struct `{sname}`, which has {} scalar fields",
                        vals.len(),
                        slots.len()
                    ),
                );
            }
            for ((slot, ty), v) in slots.iter().zip(&vals) {
                self.store_slot(pos, *slot, *ty, v)?;
            }
        }
        Ok(())
    }

    /// `q = value` for a struct `q`: every leaf assigned.
    pub(super) fn struct_assign(&mut self, lv: &LVal, sname: &str, value: &Ex) -> PResult<()> {
        let (_, vals) = self.struct_value(value, Some(sname))?;
        let lay = self.layout(lv.pos, sname)?;
        for ((suffix, _), v) in Self::leaves(&lay).into_iter().zip(vals) {
            let target = LVal {
                pos: lv.pos,
                name: format!("{}{suffix}", lv.name),
                index: None,
            };
            self.assign(&target, v)?;
        }
        Ok(())
    }

    /// A struct value: its type and leaf values. `want` names the type it must have.
    pub(super) fn struct_value(
        &mut self,
        x: &Ex,
        want: Option<&str>,
    ) -> PResult<(String, Vec<Val>)> {
        let (ty, vals) = match &x.k {
            ExK::Name(n) => match self.lookup(n).cloned() {
                Some(Sym::Struct { ty }) => {
                    let lay = self.layout(x.pos, &ty)?;
                    let mut vals = vec![];
                    for (suffix, _) in Self::leaves(&lay) {
                        vals.push(self.name(x.pos, &format!("{n}{suffix}"))?);
                    }
                    (ty, vals)
                }
                Some(_) => return self.err(x.pos, format!("`{n}` is not a struct")),
                None => {
                    self.name(x.pos, n)?;
                    return self.err(x.pos, format!("`{n}` is not a struct"));
                }
            },
            ExK::Call(name, args) if self.funcs.contains_key(name) => {
                match self.inline_any(x.pos, name, &[], args)? {
                    ArgVal::Struct(t, v) => (t, v),
                    ArgVal::Scalar(_) => {
                        return self.err(x.pos, format!("`{name}` does not return a struct"))
                    }
                }
            }
            ExK::TCall(name, targs, args) if self.funcs.contains_key(name) => {
                match self.inline_any(x.pos, name, targs, args)? {
                    ArgVal::Struct(t, v) => (t, v),
                    ArgVal::Scalar(_) => {
                        return self.err(x.pos, format!("`{name}` does not return a struct"))
                    }
                }
            }
            ExK::Field(base, f) => {
                let (bt, bv) = self.struct_value(base, None)?;
                let lay = self.layout(x.pos, &bt)?;
                let key = format!(".{f}");
                let Some((_, Slot::Struct(ft))) = lay.iter().find(|(s, _)| *s == key).cloned()
                else {
                    return self.err(x.pos, format!("`{bt}` has no struct field `{f}`"));
                };
                let prefix = format!("{key}.");
                let vals = Self::leaves(&lay)
                    .into_iter()
                    .zip(bv)
                    .filter(|((s, _), _)| s.starts_with(&prefix))
                    .map(|(_, v)| v)
                    .collect();
                (ft, vals)
            }
            _ => {
                return self.err(
                    x.pos,
                    "expected a struct value (a struct variable or a call)",
                )
            }
        };
        if let Some(w) = want {
            if w != ty {
                return self.err(x.pos, format!("cannot convert `{ty}` to `{w}`"));
            }
        }
        Ok((ty, vals))
    }

    /// `value.field` of a struct value that is not a name (`make(x).a`).
    pub(super) fn field_of(&mut self, pos: usize, base: &Ex, f: &str) -> PResult<Val> {
        let (bt, bv) = self.struct_value(base, None)?;
        let lay = self.layout(pos, &bt)?;
        let key = format!(".{f}");
        match Self::leaves(&lay).iter().position(|(s, _)| *s == key) {
            Some(k) => Ok(bv[k].clone()),
            None if lay.iter().any(|(s, _)| *s == key) => self.err(
                pos,
                format!("field `{f}` of `{bt}` is not a scalar: name the value first"),
            ),
            None => self.err(pos, format!("`{bt}` has no field `{f}`")),
        }
    }

    /// `name<targs>(args)` in an expression: a template call, or (`name` not a template
    /// function) the comparisons `name < t > (arg)` it also spells.
    pub(super) fn targ_call(
        &mut self,
        pos: usize,
        name: &str,
        targs: &[TArg],
        args: &[Ex],
    ) -> PResult<Val> {
        if self.funcs.contains_key(name) {
            return match self.inline_any(pos, name, targs, args)? {
                ArgVal::Scalar(v) => Ok(v),
                ArgVal::Struct(t, _) => self.err(pos, struct_use(name, &t)),
            };
        }
        if let ([t], [arg]) = (targs, args) {
            let mid = match t {
                TArg::Int(s) => Some(ExK::Int(s.clone())),
                TArg::Type(w) if w.len() == 1 => Some(ExK::Name(w[0].clone())),
                TArg::Type(_) => None,
            };
            if let Some(mid) = mid {
                let lhs = Ex::new(self.part, pos, ExK::Name(name.to_string()))?;
                let mid = Ex::new(self.part, pos, mid)?;
                let lt = Ex::new(
                    self.part,
                    pos,
                    ExK::Binary(BOp::Lt, Box::new(lhs), Box::new(mid)),
                )?;
                return self.binary(pos, BOp::Gt, &lt, arg);
            }
        }
        self.err(
            pos,
            format!("`{name}` is not a template function of the preamble"),
        )
    }

    /// Binds the template parameters of `f` for one call: explicit arguments first, the rest
    /// deduced from the arguments' types (a strong argument wins over a literal). Returns the
    /// type bindings and the non-type parameters' values.
    pub(super) fn instantiate(
        &mut self,
        pos: usize,
        fname: &str,
        tparams: &[TParam],
        fparams: &[(Vec<String>, String, usize)],
        targs: &[TArg],
        vals: &[ArgVal],
    ) -> PResult<Instance> {
        if targs.len() > tparams.len() {
            return self.err(
                pos,
                format!(
                    "`{fname}` takes {} template arguments, {} given",
                    tparams.len(),
                    targs.len()
                ),
            );
        }
        let mut types: Vec<(String, DType)> = vec![];
        let mut consts: Vec<(String, Val)> = vec![];
        for (tp, ta) in tparams.iter().zip(targs) {
            match (&tp.kind, ta) {
                (None, TArg::Type(w)) => {
                    let d = self.resolve_d(pos, w)?;
                    types.push((tp.name.clone(), d));
                }
                (Some(kind), TArg::Int(s)) => {
                    let v = self.expr(&Ex::new(self.part, pos, ExK::Int(s.clone()))?)?;
                    consts.push((tp.name.clone(), self.nontype(pos, kind, v)?));
                }
                (Some(kind), TArg::Type(w)) if w.len() == 1 => {
                    // A name: a constant (`N` of an enclosing template, a macro).
                    let v = self.name(pos, &w[0])?;
                    if fold(&v.e).is_none() {
                        return self.err(
                            pos,
                            format!("template argument `{}` is not a constant", w[0]),
                        );
                    }
                    consts.push((tp.name.clone(), self.nontype(pos, kind, v)?));
                }
                (None, TArg::Int(s)) => {
                    return self.err(
                        pos,
                        format!("template parameter `{}` is a type, not `{s}`", tp.name),
                    )
                }
                (Some(_), TArg::Type(w)) => {
                    return self.err(
                        pos,
                        format!(
                            "template parameter `{}` is a value, not `{}`",
                            tp.name,
                            w.join(" ")
                        ),
                    )
                }
            }
        }
        for tp in &tparams[targs.len()..] {
            if tp.kind.is_some() {
                return self.err(
                    pos,
                    format!(
                        "cannot deduce the value of template parameter `{}` of `{fname}`: give it \
                         (`{fname}<...>(...)`)",
                        tp.name
                    ),
                );
            }
            let (mut strong, mut weak): (Option<DType>, Option<DType>) = (None, None);
            for ((words, _, _), v) in fparams.iter().zip(vals) {
                let ws: Vec<&str> = words
                    .iter()
                    .map(|w| w.as_str())
                    .filter(|w| !is_qualifier(w))
                    .collect();
                let ArgVal::Scalar(v) = v else { continue };
                let got = if ws == [tp.name.as_str()] {
                    v.ty()
                } else if ws.len() == 1 && ws[0] == format!("complex<{}>", tp.name) {
                    match v.ty() {
                        DType::Complex64 => DType::Float32,
                        DType::Complex128 => DType::Float64,
                        _ => continue,
                    }
                } else {
                    continue;
                };
                let seen = if v.weak { &mut weak } else { &mut strong };
                match *seen {
                    Some(d) if d != got => {
                        return self.err(
                            pos,
                            format!(
                                "deduced conflicting types for template parameter `{}` of \
                                 `{fname}` ({d} and {got})",
                                tp.name
                            ),
                        )
                    }
                    _ => *seen = Some(got),
                }
            }
            match strong.or(weak) {
                Some(d) => types.push((tp.name.clone(), d)),
                None => {
                    return self.err(
                        pos,
                        format!(
                            "cannot deduce template parameter `{}` of `{fname}` from the \
                             arguments: give it (`{fname}<float>(...)`)",
                            tp.name
                        ),
                    )
                }
            }
        }
        Ok((types, consts))
    }

    /// A non-type template argument converted to its parameter's type.
    fn nontype(&mut self, pos: usize, kind: &[String], v: Val) -> PResult<Val> {
        let d = self.resolve_d(pos, kind)?;
        if !(d.is_integer() || d.is_bool()) {
            return self.err(pos, "non-type template parameters must be integers");
        }
        let e = self.conv(&v, d);
        let lit = fold(&e).map(|s| Lit::I(s.to_i128()));
        Ok(Val {
            e,
            weak: false,
            lit,
        })
    }
}

/// The message for a struct value used where a scalar is needed.
pub(super) fn struct_use(what: &str, ty: &str) -> String {
    format!(
        "`{what}` is a `{ty}` struct: use it in a declaration (`{ty} p = ...`), an assignment, \
         as a function argument, or by field (`.x`)"
    )
}
