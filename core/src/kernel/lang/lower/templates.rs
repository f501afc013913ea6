//! Function templates: explicit template arguments (types, or constant expressions such as
//! `3`, `N - 1`), deduction from the arguments' types (`T`, `complex<T>`, a template struct's
//! `P<T>`), and the `a < b > (c)` reading of a call of a name that is not a template.

use super::structs::ArgVal;
use super::*;
use crate::kernel::lang::syntax::{TArg, TParam};
use crate::kernel::lang::types::is_qualifier;

/// A template instance: the type parameters' dtypes and the non-type parameters' values.
pub(super) type Instance = (Vec<(String, DType)>, Vec<(String, Val)>);

impl Lowering<'_> {
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
                ArgVal::Struct(t, _) => self.err(pos, structs::struct_use(name, &t)),
                ArgVal::Void => self.err(pos, structs::void_use(name)),
            };
        }
        if let ([t], [arg]) = (targs, args) {
            let mid = match t {
                TArg::Expr(e) => Some(e.clone()),
                TArg::Type(w) if w.len() == 1 => {
                    Some(Ex::new(self.part, pos, ExK::Name(w[0].clone()))?)
                }
                TArg::Type(_) => None,
            };
            if let Some(mid) = mid {
                let lhs = Ex::new(self.part, pos, ExK::Name(name.to_string()))?;
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
                (Some(kind), TArg::Expr(e)) => {
                    let v = self.expr(e)?;
                    if v.lit.is_none() && fold(&v.e).is_none() {
                        return self.err(
                            e.pos,
                            format!(
                                "template argument of `{}` is not a constant expression",
                                tp.name
                            ),
                        );
                    }
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
                (None, TArg::Expr(e)) => {
                    let shown = match &e.k {
                        ExK::Int(s) => s.clone(),
                        _ => "an expression".into(),
                    };
                    return self.err(
                        pos,
                        format!("template parameter `{}` is a type, not `{shown}`", tp.name),
                    );
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
                let v = match v {
                    ArgVal::Scalar(v) => v,
                    // `const P<T>& p` with a `P<float>` argument: T is float.
                    ArgVal::Struct(ty, _) => {
                        let got = match ws[..] {
                            [w] => self.deduce_from_struct(w, ty, &tp.name),
                            _ => None,
                        };
                        if let Some(got) = got {
                            match strong {
                                Some(d) if d != got => {
                                    return self.err(
                                        pos,
                                        format!(
                                            "deduced conflicting types for template parameter \
                                             `{}` of `{fname}` ({d} and {got})",
                                            tp.name
                                        ),
                                    )
                                }
                                _ => strong = Some(got),
                            }
                        }
                        continue;
                    }
                    ArgVal::Void => continue,
                };
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

    /// The dtype template parameter `tp` takes when a parameter written `word` (`P<T>`)
    /// receives a struct of type `ty` (an instance `P<float32>`).
    fn deduce_from_struct(&self, word: &str, ty: &str, tp: &str) -> Option<DType> {
        let (base, texts) = structs::split_tmpl(word)?;
        let inst = self.struct_insts.get(ty)?;
        if inst.base != base {
            return None;
        }
        texts.iter().zip(&inst.args).find_map(|(t, a)| match a {
            structs::InstArg::Type(d) if t == tp => Some(*d),
            _ => None,
        })
    }
}
