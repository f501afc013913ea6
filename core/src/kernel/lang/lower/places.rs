//! Places reached through local arrays and arrays of structs (`ps[j].x`, `poly.pts[j].v[k]`,
//! `a[j]`): a path from a local name through fields and indices.
//!
//! A constant index names one element's locals directly. A non-constant index makes the path
//! a list of alternatives, each a condition (`j == k`) and the element's name: a read selects
//! among them (an index out of range reads the last element), a write updates each element
//! whose condition holds (an index out of range writes nothing), as for local arrays.

use super::*;
use crate::kernel::lang::syntax::Seg;

/// Most elements a path with non-constant indices may select among.
const MAX_PLACES: usize = 4096;

/// Alternatives of a place: (condition, the element's name); one without condition when
/// every index is constant.
pub(super) type Places = Vec<(Option<Expr>, String)>;

impl Lowering<'_> {
    /// The path (base name, steps) of an expression naming a place in local structs or arrays;
    /// `None` for anything else (raw arrays, calls, values).
    pub(super) fn local_path(&self, x: &Ex) -> Option<(String, Vec<Seg>)> {
        fn walk(x: &Ex) -> Option<(String, Vec<Seg>)> {
            match &x.k {
                ExK::Name(n) => Some((n.clone(), vec![])),
                ExK::Index(b, ix) => {
                    let (n, mut s) = walk(b)?;
                    s.push(Seg::Index((**ix).clone()));
                    Some((n, s))
                }
                ExK::Field(b, f) => {
                    let (n, mut s) = walk(b)?;
                    s.push(Seg::Field(f.clone()));
                    Some((n, s))
                }
                _ => None,
            }
        }
        let (base, segs) = walk(x)?;
        matches!(
            self.lookup(&base),
            Some(Sym::Struct { .. } | Sym::StructArray { .. } | Sym::Array { .. })
        )
        .then_some((base, segs))
    }

    /// The name of a path's element 0 (every index taken as 0): the symbol it names has the
    /// kind of every element the path can reach.
    pub(super) fn path_rep(base: &str, segs: &[Seg]) -> String {
        let mut n = base.to_string();
        for s in segs {
            match s {
                Seg::Field(f) => n = format!("{n}.{f}"),
                Seg::Index(_) => n.push_str("[0]"),
            }
        }
        n
    }

    /// The alternatives of place `base` + `segs`. Each index is evaluated once.
    pub(super) fn places(&mut self, pos: usize, base: &str, segs: &[Seg]) -> PResult<Places> {
        let mut alts: Places = vec![(None, base.to_string())];
        for seg in segs {
            let rep = alts[0].1.clone();
            match seg {
                Seg::Field(f) => {
                    match self.lookup(&rep) {
                        Some(Sym::Struct { .. }) => {
                            if self.lookup(&format!("{rep}.{f}")).is_none() {
                                return self.unknown(pos, &format!("{rep}.{f}"));
                            }
                        }
                        Some(_) => {
                            return self
                                .err(pos, format!("`{rep}` is not a struct (no field `{f}`)"))
                        }
                        None => return self.unknown(pos, &rep),
                    }
                    for a in &mut alts {
                        a.1 = format!("{}.{f}", a.1);
                    }
                }
                Seg::Index(ix) => {
                    let len = match self.lookup(&rep) {
                        Some(Sym::Array { len, .. } | Sym::StructArray { len, .. }) => *len,
                        Some(_) => return self.err(pos, format!("`{rep}` is not an array")),
                        None => return self.unknown(pos, &rep),
                    };
                    match self.array_index(ix, &rep, len)? {
                        Ok(k) => {
                            for a in &mut alts {
                                a.1 = format!("{}[{k}]", a.1);
                            }
                        }
                        Err(idx) => {
                            if alts.len() * len > MAX_PLACES {
                                return self.err(
                                    pos,
                                    format!(
                                        "this access selects among more than {MAX_PLACES} \
                                         elements (non-constant indices into nested arrays)"
                                    ),
                                );
                            }
                            let mut out = Vec::with_capacity(alts.len() * len);
                            for (cond, n) in alts {
                                for k in 0..len {
                                    let hit = bin(B::Eq, idx.clone(), c(Scalar::Int64(k as i64)));
                                    let cond = match &cond {
                                        Some(c0) => bin(B::And, c0.clone(), hit),
                                        None => hit,
                                    };
                                    out.push((Some(cond), format!("{n}[{k}]")));
                                }
                            }
                            alts = out;
                        }
                    }
                }
            }
        }
        Ok(alts)
    }

    /// The scalar at a place: the element's value, or a select among the alternatives (the
    /// last one where no condition holds).
    pub(super) fn read_places(&mut self, pos: usize, alts: &Places) -> PResult<Val> {
        let (last, rest) = alts.split_last().expect("a place");
        let mut v = self.name(pos, &last.1)?;
        if rest.is_empty() {
            return Ok(v);
        }
        for (cond, n) in rest.iter().rev() {
            let e = self.name(pos, n)?.e;
            v = Val::strong(Expr::select(cond.clone().expect("a condition"), e, v.e));
        }
        Ok(v)
    }

    /// Writes scalar `v` to a place: each alternative keeps its value unless its condition
    /// holds.
    pub(super) fn write_places(&mut self, pos: usize, alts: &Places, v: Val) -> PResult<()> {
        for (cond, n) in alts {
            let target = LVal {
                pos,
                name: n.clone(),
                index: None,
                tail: vec![],
            };
            let new = match (cond, self.lookup(n).cloned()) {
                (Some(cond), Some(Sym::Local { ty, .. })) => {
                    if v.ty().is_complex() && !ty.is_complex() {
                        return self.err(pos, COMPLEX_TO_REAL);
                    }
                    let cur = self.name(pos, n)?.e;
                    Val::strong(Expr::select(cond.clone(), self.conv(&v, ty), cur))
                }
                _ => v.clone(),
            };
            self.assign(&target, new)?;
        }
        Ok(())
    }

    /// The struct at a place: its type and leaf values (selects among the alternatives).
    pub(super) fn struct_at(&mut self, pos: usize, alts: &Places) -> PResult<(String, Vec<Val>)> {
        let rep = alts[0].1.clone();
        let ty = match self.lookup(&rep) {
            Some(Sym::Struct { ty }) => ty.clone(),
            Some(Sym::StructArray { ty, .. }) => {
                let ty = self.struct_def(ty).name.clone();
                return self.err(
                    pos,
                    format!("`{rep}` is an array of `{ty}`: index it (`{rep}[j]`)"),
                );
            }
            _ => return self.err(pos, format!("`{rep}` is not a struct")),
        };
        let lay = self.layout(pos, &ty)?;
        let mut vals = vec![];
        for (suffix, _) in Self::leaves(&lay) {
            let at: Places = alts
                .iter()
                .map(|(c, n)| (c.clone(), format!("{n}{suffix}")))
                .collect();
            vals.push(self.read_places(pos, &at)?);
        }
        Ok((ty, vals))
    }

    /// `place (op)= rhs` for a place with steps past its name (`ps[j].x = v`, `ps[j] = q`,
    /// `a[j] += 1` of a local array): the place's alternatives computed once.
    pub(super) fn path_assign(
        &mut self,
        pos: usize,
        lv: &LVal,
        op: Option<BOp>,
        rhs: RawRhs<'_>,
    ) -> PResult<()> {
        let mut segs = vec![];
        if let Some(ix) = &lv.index {
            segs.push(Seg::Index(ix.clone()));
        }
        segs.extend(lv.tail.iter().cloned());
        if let Some(Sym::Struct { ty }) = self.lookup(&Self::path_rep(&lv.name, &segs)).cloned() {
            let RawRhs::Value(value) = rhs else {
                return self.err(pos, format!("`++`/`--` of a `{ty}` struct"));
            };
            return match op {
                None => self.struct_assign(pos, (&lv.name, &segs), &ty, value),
                Some(op) => {
                    let place = self.lval_ex(lv)?;
                    self.struct_compound(pos, (&lv.name, &segs), &ty, op, &place, value)
                }
            };
        }
        let alts = self.places(lv.pos, &lv.name, &segs)?;
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
                let cur = self.read_places(pos, &alts)?;
                self.arith(pos, op, cur, v)?
            }
        };
        self.write_places(pos, &alts, v)
    }

    /// The expression reading an assignable place (for operators on struct places).
    pub(super) fn lval_ex(&self, lv: &LVal) -> PResult<Ex> {
        let mut e = Ex::new(self.part, lv.pos, ExK::Name(lv.name.clone()))?;
        let mut segs = vec![];
        if let Some(ix) = &lv.index {
            segs.push(Seg::Index(ix.clone()));
        }
        segs.extend(lv.tail.iter().cloned());
        for s in segs {
            let k = match s {
                Seg::Index(ix) => ExK::Index(Box::new(e), Box::new(ix)),
                Seg::Field(f) => ExK::Field(Box::new(e), f),
            };
            e = Ex::new(self.part, lv.pos, k)?;
        }
        Ok(e)
    }

    /// `q op= value` for a struct place: the struct's member `operator op=` (which writes the
    /// object), else `q = q op value`.
    pub(super) fn struct_compound(
        &mut self,
        pos: usize,
        place: (&str, &[Seg]),
        sname: &str,
        op: BOp,
        place_ex: &Ex,
        value: &Ex,
    ) -> PResult<()> {
        let assign_op = format!("operator{}=", op.symbol());
        if self.method_of(sname, &assign_op, 1).is_some() {
            self.method_call(pos, place_ex, &assign_op, std::slice::from_ref(value))?;
            return Ok(());
        }
        if self
            .method_of(sname, &format!("operator{}", op.symbol()), 1)
            .is_none()
            && !self.funcs.contains_key(&format!("operator{}", op.symbol()))
        {
            return self.err(
                pos,
                format!(
                    "compound assignment of a `{sname}` struct needs `operator{}=` or \
                     `operator{}`",
                    op.symbol(),
                    op.symbol()
                ),
            );
        }
        let e = Ex::new(
            self.part,
            pos,
            ExK::Binary(op, Box::new(place_ex.clone()), Box::new(value.clone())),
        )?;
        self.struct_assign(pos, place, sname, &e)
    }
}
