//! Lowering of preamble `struct`s: their layout, declarations (arrays of structs too),
//! whole-struct copies and values, and template structs' instances.
//!
//! A struct variable is one kernel local per scalar field, as a local array is one local per
//! element: the fields of `p` are the locals named `p.x`, `p.v[0]`, `p.a.x` (not identifiers,
//! so no user name clashes), and `p` itself is a [`Sym::Struct`]. An array of structs `ps[n]`
//! is a [`Sym::StructArray`] whose elements are the structs `ps[0]` .. `ps[n - 1]`. Struct
//! values (a name, an element, a call of a function returning a struct, a field of one, an
//! overloaded operator's result) are copied leaf by leaf. A template struct `P<float>` is an
//! instance named by its arguments' values (`P<float32>`), whose field types and array lengths
//! are resolved with them bound (see [`StructInst`]).

use super::*;
use crate::kernel::lang::syntax::{Seg, StructDef};
use crate::kernel::lang::types::is_qualifier;

/// Deepest nesting of structs in structs.
const MAX_STRUCT_DEPTH: usize = 8;

/// A struct return value: its type and the locals of its scalar leaves.
pub(crate) type StructRet = (String, Vec<(usize, DType)>);

/// One entry of a struct's layout, keyed by its path suffix (`.x`, `.v`, `.v[0]`, `.a.x`,
/// `.ps[1].x`).
#[derive(Clone, Debug)]
pub(super) enum Slot {
    Scalar(DType),
    Array(usize, DType),
    Struct(String),
    StructArray(usize, String),
}

/// A call's argument or result: a scalar value, a struct's type and leaf values, or nothing
/// (a `void` function's result).
#[derive(Clone, Debug)]
pub(super) enum ArgVal {
    Scalar(Val),
    Struct(String, Vec<Val>),
    Void,
}

/// A template argument of a struct instance.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InstArg {
    Type(DType),
    Const(Scalar),
}

/// An instance of a template struct (`P<float32, 3>`): the template's name and its arguments,
/// in the order of its parameters.
#[derive(Clone, Debug)]
pub(crate) struct StructInst {
    pub base: String,
    pub args: Vec<InstArg>,
}

/// `P<a,b>` split into `P` and the arguments' texts (commas inside `<>` and `()` kept).
pub(super) fn split_tmpl(word: &str) -> Option<(&str, Vec<String>)> {
    let open = word.find('<')?;
    let inner = word[open + 1..].strip_suffix('>')?;
    let (mut depth, mut cur, mut out) = (0i32, String::new(), vec![]);
    for ch in inner.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur.trim().to_string());
    Some((&word[..open], out))
}

impl Lowering<'_> {
    /// The struct named by type words (qualifiers ignored), if any: a plain struct, or an
    /// instance of a template struct (`P<float>`, instantiated here). Inside a template
    /// struct's member function, its bare name is the instance being lowered.
    ///
    /// # Errors
    /// A template struct without arguments, bad template arguments.
    pub(super) fn struct_type(&mut self, pos: usize, words: &[String]) -> PResult<Option<String>> {
        let ws: Vec<&String> = words.iter().filter(|w| !is_qualifier(w)).collect();
        let [w] = ws[..] else {
            return Ok(None);
        };
        if let Some((base, args)) = split_tmpl(w) {
            return match self.structs.get(base) {
                Some(def) if !def.tparams.is_empty() => {
                    self.struct_instance(pos, base, &args).map(Some)
                }
                Some(_) => self.err(pos, format!("struct `{base}` is not a template")),
                None => Ok(None),
            };
        }
        let Some(def) = self.structs.get(w.as_str()) else {
            return Ok(None);
        };
        if resolve_type(&[w.as_str()], &self.types).is_some() {
            return Ok(None);
        }
        if def.tparams.is_empty() {
            return Ok(Some(w.clone()));
        }
        // The injected name: `P` inside a member function of an instance of `P`.
        if let Some(cur) = self.this_struct.last() {
            if self.struct_insts.get(cur).is_some_and(|i| i.base == *w) {
                return Ok(Some(cur.clone()));
            }
        }
        self.err(
            pos,
            format!("template struct `{w}` needs its template arguments (`{w}<...>`)"),
        )
    }

    /// True when type words name a struct or a template struct, whatever its arguments (no
    /// instantiation: `P<T>` with `T` not yet bound counts).
    pub(super) fn names_struct(&self, words: &[String]) -> bool {
        let ws: Vec<&String> = words.iter().filter(|w| !is_qualifier(w)).collect();
        let [w] = ws[..] else {
            return false;
        };
        let base = split_tmpl(w).map_or(w.as_str(), |(b, _)| b);
        self.structs.contains_key(base) && resolve_type(&[base], &self.types).is_none()
    }

    /// The instance of template struct `base` for these argument texts, named by their values
    /// (`P<float32,3>`).
    fn struct_instance(&mut self, pos: usize, base: &str, texts: &[String]) -> PResult<String> {
        let structs = self.structs;
        let def = &structs[base];
        if texts.len() != def.tparams.len() {
            return self.err(
                pos,
                format!(
                    "template struct `{base}` takes {} template arguments, {} given",
                    def.tparams.len(),
                    texts.len()
                ),
            );
        }
        let mut args = vec![];
        let mut shown = vec![];
        for (tp, text) in def.tparams.iter().zip(texts) {
            let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            match &tp.kind {
                None => {
                    let Some(Ty::D(d)) = resolve_type(&words, &self.types) else {
                        return self.err(
                            pos,
                            format!(
                                "template argument `{text}` of `{base}` is not a type (parameter \
                                 `{}`)",
                                tp.name
                            ),
                        );
                    };
                    shown.push(d.name().to_string());
                    args.push(InstArg::Type(d));
                }
                Some(kind) => {
                    let v = self.text_const(pos, text)?;
                    let d = self.resolve_d(pos, kind)?;
                    if !(d.is_integer() || d.is_bool()) {
                        return self.err(pos, "non-type template parameters must be integers");
                    }
                    let s = v.cast(d);
                    shown.push(s.to_i128().to_string());
                    args.push(InstArg::Const(s));
                }
            }
        }
        let key = format!("{base}<{}>", shown.join(","));
        self.struct_insts.entry(key.clone()).or_insert(StructInst {
            base: base.to_string(),
            args,
        });
        Ok(key)
    }

    /// The constant value of a template argument's text (`3`, `N + 1`).
    fn text_const(&mut self, pos: usize, text: &str) -> PResult<Scalar> {
        use crate::kernel::lang::syntax::{parse, Builder, Rule};
        let relocate = |e: PErr| PErr {
            part: self.part,
            pos,
            msg: format!("template argument `{text}`: {}", e.msg),
        };
        let types = self.types.to_vec();
        let is_type = crate::kernel::lang::is_type_fn(&types);
        let b = Builder {
            part: self.part,
            is_type: &is_type,
        };
        let ex = parse(self.part, Rule::expr_only, text)
            .map_err(relocate)
            .and_then(|mut p| {
                let top = p.next().expect("expr_only");
                b.expr(top.into_inner().next().expect("expr"))
                    .map_err(relocate)
            })?;
        let ex = Ex { pos, ..ex };
        let v = self.expr(&ex)?;
        match fold(&v.e) {
            Some(s) if s.dtype().is_integer() || s.dtype().is_bool() => Ok(s),
            _ => self.err(
                pos,
                format!("template argument `{text}` is not a constant integer expression"),
            ),
        }
    }

    /// The definition of struct `sname` (a plain struct, or an instance's template).
    pub(super) fn struct_def(&self, sname: &str) -> &StructDef {
        let base = self
            .struct_insts
            .get(sname)
            .map_or(sname, |i| i.base.as_str());
        &self.structs[base]
    }

    /// Runs `f` with an instance's template arguments bound (types shadow the kernel's
    /// placeholders, constants are names in a new scope); plain structs bind nothing.
    pub(super) fn with_struct_scope<R>(
        &mut self,
        sname: &str,
        f: impl FnOnce(&mut Self) -> PResult<R>,
    ) -> PResult<R> {
        let Some(inst) = self.struct_insts.get(sname).cloned() else {
            return f(self);
        };
        let structs = self.structs;
        let def = &structs[inst.base.as_str()];
        let mut types = vec![];
        let mut scope = HashMap::new();
        for (tp, a) in def.tparams.iter().zip(&inst.args) {
            match a {
                InstArg::Type(d) => types.push((tp.name.clone(), *d)),
                InstArg::Const(v) => {
                    scope.insert(
                        tp.name.clone(),
                        Sym::Fixed {
                            e: c(*v),
                            what: "template parameters",
                        },
                    );
                }
            }
        }
        types.extend(self.types.iter().cloned());
        let saved = std::mem::replace(&mut self.types, std::borrow::Cow::Owned(types));
        self.scopes.push(scope);
        let r = f(self);
        self.scopes.pop();
        self.types = saved;
        r
    }

    /// The constant length of an array (`[4]`, `[N]`, `[N + 1]`), 1 to [`MAX_ARRAY`].
    pub(super) fn array_len(&mut self, pos: usize, len: &Ex, what: &str) -> PResult<usize> {
        let v = self.expr(len)?;
        let k = match (v.lit, fold(&v.e)) {
            (Some(Lit::I(k)), _) => k,
            (_, Some(s)) if s.dtype().is_integer() => s.to_i128(),
            _ => {
                return self.err(
                    len.pos,
                    format!(
                        "the length of {what} must be a constant integer (a literal, a macro, a \
                         template parameter, or an expression of them)"
                    ),
                )
            }
        };
        if !(1..=MAX_ARRAY as i128).contains(&k) {
            return self.err(
                pos,
                format!("{what} has {k} elements; 1 to {MAX_ARRAY} are supported"),
            );
        }
        Ok(k as usize)
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
        let fields = self.struct_def(sname).fields.clone();
        // Field types and lengths are resolved in the preamble, with an instance's template
        // arguments bound (they may also name the kernel's type placeholders).
        let saved = std::mem::replace(&mut self.part, "preamble");
        let kinds = self.with_struct_scope(sname, |cx| {
            let mut kinds = vec![];
            for (ty, f, len, fpos) in &fields {
                let len = match len {
                    Some(l) => Some(cx.array_len(*fpos, l, &format!("array field `{f}`"))?),
                    None => None,
                };
                let kind = match cx.struct_type(*fpos, ty)? {
                    Some(inner) => Err(inner),
                    None => Ok(cx.resolve_d(*fpos, ty)?),
                };
                kinds.push((f.clone(), len, kind));
            }
            Ok(kinds)
        });
        self.part = saved;
        for (f, len, kind) in kinds? {
            let path = format!("{prefix}.{f}");
            match (kind, len) {
                (Err(inner), None) => {
                    out.push((path.clone(), Slot::Struct(inner.clone())));
                    self.layout_into(pos, &inner, &path, depth + 1, out)?;
                }
                (Err(inner), Some(n)) => {
                    out.push((path.clone(), Slot::StructArray(n, inner.clone())));
                    for k in 0..n {
                        let el = format!("{path}[{k}]");
                        out.push((el.clone(), Slot::Struct(inner.clone())));
                        self.layout_into(pos, &inner, &el, depth + 1, out)?;
                    }
                }
                (Ok(d), None) => out.push((path, Slot::Scalar(d))),
                (Ok(d), Some(n)) => {
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
    pub(super) fn leaves(lay: &[(String, Slot)]) -> Vec<(String, DType)> {
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
                Slot::StructArray(len, ty) => {
                    self.declare(pos, &name, Sym::StructArray { len, ty })?
                }
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
    /// zero. With `len`, an array of `len` such structs (`P ps[3];`, a `{...}` list filling
    /// the elements' leaves in order).
    pub(super) fn struct_decl(
        &mut self,
        pos: usize,
        sname: &str,
        name: &str,
        (init, list, len): (Option<&Ex>, Option<&[Ex]>, Option<&Ex>),
    ) -> PResult<()> {
        let n = match len {
            Some(l) => Some(self.array_len(pos, l, &format!("array `{name}`"))?),
            None => None,
        };
        // The initialiser is evaluated before the name is in scope.
        let vals = match (init, list) {
            (Some(e), _) if n.is_some() => {
                return self.err(
                    e.pos,
                    format!("array `{name}` takes a `{{...}}` initialiser list"),
                )
            }
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
        let mut slots = vec![];
        match n {
            None => slots = self.struct_alloc(pos, name, sname)?,
            Some(n) => {
                for k in 0..n {
                    slots.extend(self.struct_alloc(pos, &format!("{name}[{k}]"), sname)?);
                }
                self.declare(
                    pos,
                    name,
                    Sym::StructArray {
                        len: n,
                        ty: sname.to_string(),
                    },
                )?;
            }
        }
        if let Some(vals) = vals {
            if vals.len() > slots.len() {
                let what = match n {
                    Some(n) => format!("`{sname} {name}[{n}]`"),
                    None => format!("struct `{sname}`"),
                };
                return self.err(
                    pos,
                    format!(
                        "{} initialisers for {what}, which has {} scalar fields",
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

    /// `q = value` for a struct place `q` (`q`, `ps[j]`, `a.ps[j].q`): every leaf assigned.
    pub(super) fn struct_assign(
        &mut self,
        pos: usize,
        (base, segs): (&str, &[Seg]),
        sname: &str,
        value: &Ex,
    ) -> PResult<()> {
        let (_, vals) = self.struct_value(value, Some(sname))?;
        self.store_struct_at(pos, (base, segs), sname, &vals)
    }

    /// Writes leaf values `vals` of struct type `sname` into the struct place `base` + `segs`.
    pub(super) fn store_struct_at(
        &mut self,
        pos: usize,
        (base, segs): (&str, &[Seg]),
        sname: &str,
        vals: &[Val],
    ) -> PResult<()> {
        let alts = self.places(pos, base, segs)?;
        let lay = self.layout(pos, sname)?;
        for ((suffix, _), v) in Self::leaves(&lay).into_iter().zip(vals) {
            let at: Vec<(Option<Expr>, String)> = alts
                .iter()
                .map(|(c, n)| (c.clone(), format!("{n}{suffix}")))
                .collect();
            self.write_places(pos, &at, v.clone())?;
        }
        Ok(())
    }

    /// A struct value: its type and leaf values. `want` names the type it must have.
    pub(super) fn struct_value(
        &mut self,
        x: &Ex,
        want: Option<&str>,
    ) -> PResult<(String, Vec<Val>)> {
        let result = |cx: &Self, what: &str, r: ArgVal| match r {
            ArgVal::Struct(t, v) => Ok((t, v)),
            _ => cx.err(x.pos, format!("`{what}` does not return a struct")),
        };
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
                Some(Sym::StructArray { .. }) => {
                    return self.err(x.pos, format!("array `{n}` must be indexed (`{n}[j]`)"))
                }
                Some(_) => return self.err(x.pos, format!("`{n}` is not a struct")),
                None => {
                    self.name(x.pos, n)?;
                    return self.err(x.pos, format!("`{n}` is not a struct"));
                }
            },
            ExK::Index(..) | ExK::Field(..) if self.local_path(x).is_some() => {
                let (base, segs) = self.local_path(x).expect("a path");
                let alts = self.places(x.pos, &base, &segs)?;
                self.struct_at(x.pos, &alts)?
            }
            ExK::Call(name, args) if self.funcs.contains_key(name) => {
                let r = self.inline_any(x.pos, name, &[], args)?;
                result(self, name, r)?
            }
            ExK::Call(name, args) if self.this_method(name) => {
                let this = Ex::new(self.part, x.pos, ExK::Name("this".into()))?;
                let r = self.method_call(x.pos, &this, name, args)?;
                result(self, name, r)?
            }
            ExK::TCall(name, targs, args) if self.funcs.contains_key(name) => {
                let r = self.inline_any(x.pos, name, targs, args)?;
                result(self, name, r)?
            }
            ExK::Member(base, m, args) => {
                let r = self.method_call(x.pos, base, m, args)?;
                result(self, m, r)?
            }
            ExK::Binary(op, a, b) => match self.operator_call(x.pos, op.symbol(), &[a, b])? {
                Some(r) => result(self, &format!("operator{}", op.symbol()), r)?,
                None => return self.err(x.pos, "expected a struct value"),
            },
            ExK::Unary(UOp::Neg, a) => match self.operator_call(x.pos, "-", &[a])? {
                Some(r) => result(self, "operator-", r)?,
                None => return self.err(x.pos, "expected a struct value"),
            },
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
}

/// The message for the result of a `void` function used as a value.
pub(super) fn void_use(what: &str) -> String {
    format!("`{what}` returns nothing (`void`): call it as a statement")
}

/// The message for a struct value used where a scalar is needed.
pub(super) fn struct_use(what: &str, ty: &str) -> String {
    format!(
        "`{what}` is a `{ty}` struct: use it in a declaration (`{ty} p = ...`), an assignment, \
         as a function argument, or by field (`.x`)"
    )
}
