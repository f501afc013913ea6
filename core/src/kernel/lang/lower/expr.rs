//! Lowering of expressions: names, unary and binary operators, arithmetic with NumPy's
//! promotion of the language's types.

use super::*;

impl Lowering<'_> {
    pub(crate) fn expr(&mut self, x: &Ex) -> PResult<Val> {
        let pos = x.pos;
        match &x.k {
            ExK::Int(text) => {
                let (v, t, weak) =
                    crate::kernel::lang::types::int_literal(text).or_else(|m| self.err(pos, m))?;
                let lit = Lit::I(v as i128);
                Ok(Val {
                    e: c(lit.scalar(t)),
                    weak,
                    lit: Some(lit),
                })
            }
            ExK::Float(text) => {
                let (s, weak) = crate::kernel::lang::types::float_literal(text)
                    .or_else(|m| self.err(pos, m))?;
                Ok(Val {
                    e: c(s),
                    weak,
                    lit: Some(Lit::F(s.to_f64())),
                })
            }
            ExK::Bool(b) => Ok(Val::strong(c(Scalar::Bool(*b)))),
            ExK::Name(n) => self.name(pos, n),
            ExK::IndSize(which) => {
                let p = match which.as_str() {
                    "_ind" => self.size_ind,
                    "_in_ind" => self.size_in,
                    _ => self.size_out,
                };
                match p {
                    Some(k) => {
                        self.uses_size = true;
                        Ok(Val::strong(Expr::param(k, DType::Int64)))
                    }
                    None => {
                        let hint = if self.size_ind.is_some() {
                            " (an ElementwiseKernel has `_ind.size()`)"
                        } else if self.size_in.is_some() {
                            " (a ReductionKernel has `_in_ind.size()` and `_out_ind.size()`)"
                        } else {
                            ""
                        };
                        self.err(pos, format!("`{which}.size()` is not available here{hint}"))
                    }
                }
            }
            ExK::IndGet(which) => {
                // The flat C-order index of the current element: `i` of an ElementwiseKernel
                // (a ReductionKernel's `_in_ind.get()` is lowered in its map pass, as `_ind`).
                if which == "_ind" && self.size_ind.is_some() {
                    Ok(Val::strong(Expr::index()))
                } else {
                    self.err(
                        pos,
                        format!(
                            "`{which}.get()` is not available here (an ElementwiseKernel has \
                             `_ind.get()`, the flat index `i`; a ReductionKernel's map has \
                             `_in_ind.get()`)"
                        ),
                    )
                }
            }
            ExK::Index(base, ix) => {
                // An element of a local array, of an array of structs, a field's element.
                if let Some((b, segs)) = self.local_path(x) {
                    let alts = self.places(pos, &b, &segs)?;
                    return self.read_places(pos, &alts);
                }
                // `x.shape()[d]`, `x.strides()[d]` of a raw array, with a constant `d`.
                if let ExK::Member(inner, m, margs) = &base.k {
                    if !margs.is_empty() {
                        return self.err(pos, format!("`.{m}()` takes no arguments"));
                    }
                    if let (ExK::Name(n), "shape" | "strides") = (&inner.k, m.as_str()) {
                        if let Some(Sym::Raw { k, .. }) = self.lookup(n).cloned() {
                            let iv = self.expr(ix)?;
                            let d = match iv.lit {
                                Some(Lit::I(d)) if d >= 0 => d as usize,
                                _ => {
                                    return self.err(
                                        ix.pos,
                                        format!(
                                            "`{n}.{m}()[d]` takes a constant non-negative \
                                             integer d"
                                        ),
                                    )
                                }
                            };
                            let what = if m == "shape" {
                                crate::kernel::lang::RawMeta::Shape(d)
                            } else {
                                crate::kernel::lang::RawMeta::Stride(d)
                            };
                            return Ok(Val::strong(self.raw_meta(pos, k, what)?));
                        }
                    }
                }
                let (k, ty) = match &base.k {
                    ExK::Name(n) => match self.lookup(n) {
                        Some(Sym::Raw { k, ty }) => (*k, *ty),
                        Some(_) => {
                            return self.err(
                                pos,
                                format!("`{n}` is not a raw array: declare it `raw` to index it"),
                            )
                        }
                        None => return self.err(pos, format!("unknown name `{n}`")),
                    },
                    _ => return self.err(pos, "only raw array parameters can be indexed"),
                };
                // `x[idx]` with a local array `idx` of n indices: element (idx[0], ..,
                // idx[n-1]) of an n-dimensional raw array (CuPy's multi-dimensional index).
                let iv = match &ix.k {
                    ExK::Name(a) => match self.lookup(a).cloned() {
                        Some(Sym::Array { len, .. }) => {
                            let a = a.clone();
                            self.raw_meta(pos, k, crate::kernel::lang::RawMeta::Rank(len))?;
                            let mut flat = self.name(pos, &format!("{a}[0]"))?.e.cast(DType::Int64);
                            for d in 1..len {
                                let dim =
                                    self.raw_meta(pos, k, crate::kernel::lang::RawMeta::Shape(d))?;
                                let id = self.name(pos, &format!("{a}[{d}]"))?.e.cast(DType::Int64);
                                flat = bin(B::Add, bin(B::Mul, flat, dim), id);
                            }
                            Val::strong(flat)
                        }
                        _ => self.expr(ix)?,
                    },
                    _ => self.expr(ix)?,
                };
                if !(iv.ty().is_integer() || iv.ty().is_bool()) {
                    return self.err(
                        ix.pos,
                        format!("array index must be an integer, not {}", iv.ty()),
                    );
                }
                let mut idx = self.conv(&iv, DType::Int64);
                if !self.guards.is_empty() {
                    // Under `c && x[j]` or `c ? x[j] : ..`: read element 0 where `c` is false
                    // (C would not evaluate the read at all).
                    let mut g = self.guards[0].clone();
                    for h in &self.guards[1..] {
                        g = bin(B::And, g, h.clone());
                    }
                    idx = Expr::select(g, idx, c(Scalar::Int64(0)));
                }
                Ok(Val::strong(Expr::load(k, ty, idx)))
            }
            ExK::Call(name, args) => self.call(pos, name, args),
            ExK::TCall(name, targs, args) => self.targ_call(pos, name, targs, args),
            ExK::Field(..) if self.local_path(x).is_some() => {
                let (b, segs) = self.local_path(x).expect("a path");
                let alts = self.places(pos, &b, &segs)?;
                self.read_places(pos, &alts)
            }
            ExK::Field(base, f) => self.field_of(pos, base, f),
            ExK::Member(base, member, args) if self.is_struct_ex(base) => {
                let r = self.method_call(pos, base, member, args)?;
                self.arg_scalar(pos, member, r)
            }
            ExK::Member(base, member, args) => {
                if !args.is_empty() {
                    return self.err(
                        pos,
                        format!("`.{member}(...)` is not supported: only a struct's member functions take arguments"),
                    );
                }
                self.member(pos, base, member)
            }
            ExK::Cast(words, a) => {
                let t = self.resolve_d(pos, words)?;
                let v = self.expr(a)?;
                if v.ty().is_complex() && !t.is_complex() {
                    return self.err(pos, COMPLEX_TO_REAL);
                }
                Ok(Val::strong(self.conv(&v, t)))
            }
            ExK::Unary(op, a) => {
                if *op == UOp::Neg && self.has_operators {
                    if let Some(r) = self.operator_call(pos, "-", &[a])? {
                        return self.arg_scalar(pos, "operator-", r);
                    }
                }
                let v = self.expr(a)?;
                self.unary(pos, *op, v)
            }
            ExK::Binary(op, a, b) => self.binary(pos, *op, a, b),
            ExK::Cond(cx, a, b) => {
                let cv = self.expr(cx)?;
                let cb = self.to_bool(cx.pos, &cv)?;
                self.guards.push(cb.clone());
                let av = self.expr(a);
                self.guards.pop();
                let av = av?;
                self.guards.push(un(U::Not, cb.clone()));
                let bv = self.expr(b);
                self.guards.pop();
                let bv = bv?;
                let t = self.common(&av, &bv);
                let e = Expr::select(cb, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val {
                    e,
                    weak: av.weak && bv.weak,
                    lit: None,
                })
            }
        }
    }

    pub(super) fn name(&mut self, pos: usize, n: &str) -> PResult<Val> {
        if let Some(sym) = self.lookup(n).cloned() {
            return match sym {
                Sym::Local {
                    slot,
                    ty,
                    out,
                    uniform,
                } => {
                    if let Some(bound) = &mut self.bound_mode {
                        if let Some(u) = uniform {
                            bound.push(slot);
                            return Ok(Val::strong(u));
                        }
                    }
                    if let Some(k) = out {
                        if !self.out_def[k] {
                            self.out_read[k] = true;
                        }
                    }
                    if self.stmt_mode {
                        Ok(Val::strong(Expr::var(slot, ty)))
                    } else {
                        match &self.env[slot] {
                            Some(e) => Ok(Val::strong(e.clone())),
                            None => self.err(pos, format!("`{n}` is read before it is assigned")),
                        }
                    }
                }
                Sym::LoopVar { value } => Ok(Val::strong(value)),
                Sym::Fixed { e, .. } => Ok(Val::strong(e)),
                Sym::Raw { .. } => {
                    self.err(pos, format!("raw array `{n}` must be indexed (`{n}[j]`)"))
                }
                Sym::Array { .. } => {
                    self.err(pos, format!("local array `{n}` must be indexed (`{n}[j]`)"))
                }
                Sym::Struct { ty } => self.err(pos, structs::struct_use(n, &ty)),
                Sym::StructArray { .. } => {
                    self.err(pos, format!("array `{n}` must be indexed (`{n}[j]`)"))
                }
            };
        }
        if let Some((part, body)) = self.macros.get(n) {
            if self.expanding.iter().any(|m| m == n) || self.expanding.len() >= MAX_INLINE {
                return self.err(pos, format!("macro `{n}` expands recursively"));
            }
            let saved = std::mem::replace(&mut self.part, part);
            self.expanding.push(n.to_string());
            let r = self.expr(body);
            self.expanding.pop();
            self.part = saved;
            return r;
        }
        if n == "i" {
            return if self.index_ok {
                Ok(Val::strong(Expr::index()))
            } else {
                self.err(pos, "`i` (the element index) is not available here")
            };
        }
        let weak_f = |v: f64| {
            Ok(Val {
                e: c(Scalar::Float64(v)),
                weak: true,
                lit: Some(Lit::F(v)),
            })
        };
        let weak_i = |v: i128, t: DType| {
            Ok(Val {
                e: c(Lit::I(v).scalar(t)),
                weak: true,
                lit: Some(Lit::I(v)),
            })
        };
        use std::f64::consts as K;
        match n {
            "M_PI" => weak_f(K::PI),
            "M_E" => weak_f(K::E),
            "M_PI_2" => weak_f(K::FRAC_PI_2),
            "M_PI_4" => weak_f(K::FRAC_PI_4),
            "M_1_PI" => weak_f(K::FRAC_1_PI),
            "M_2_PI" => weak_f(K::FRAC_2_PI),
            "M_2_SQRTPI" => weak_f(K::FRAC_2_SQRT_PI),
            "M_SQRT2" => weak_f(K::SQRT_2),
            "M_SQRT1_2" => weak_f(K::FRAC_1_SQRT_2),
            "M_LN2" => weak_f(K::LN_2),
            "M_LN10" => weak_f(K::LN_10),
            "M_LOG2E" => weak_f(K::LOG2_E),
            "M_LOG10E" => weak_f(K::LOG10_E),
            "INFINITY" | "HUGE_VAL" | "CUDART_INF" => weak_f(f64::INFINITY),
            "NAN" | "CUDART_NAN" => weak_f(f64::NAN),
            "DBL_MAX" => weak_f(f64::MAX),
            "DBL_MIN" => weak_f(f64::MIN_POSITIVE),
            "DBL_EPSILON" => weak_f(f64::EPSILON),
            "CUDART_INF_F" | "HUGE_VALF" => Ok(Val::strong(c(Scalar::Float32(f32::INFINITY)))),
            "CUDART_NAN_F" => Ok(Val::strong(c(Scalar::Float32(f32::NAN)))),
            "FLT_MAX" => Ok(Val::strong(c(Scalar::Float32(f32::MAX)))),
            "FLT_MIN" => Ok(Val::strong(c(Scalar::Float32(f32::MIN_POSITIVE)))),
            "FLT_EPSILON" => Ok(Val::strong(c(Scalar::Float32(f32::EPSILON)))),
            "INT_MAX" => weak_i(i32::MAX as i128, DType::Int32),
            "INT_MIN" => weak_i(i32::MIN as i128, DType::Int32),
            "LLONG_MAX" | "LONG_MAX" => weak_i(i64::MAX as i128, DType::Int64),
            "LLONG_MIN" | "LONG_MIN" => weak_i(i64::MIN as i128, DType::Int64),
            "UINT_MAX" => Ok(Val::strong(c(Scalar::UInt32(u32::MAX)))),
            "ULLONG_MAX" | "ULONG_MAX" => Ok(Val::strong(c(Scalar::UInt64(u64::MAX)))),
            "_ind" | "_in_ind" | "_out_ind" => self.err(pos, ind_misuse(n, n)),
            _ => self.unknown(pos, n),
        }
    }

    /// The error for a name that is not declared; for `p.x`, whether `p` is a struct without
    /// that field or not a struct.
    pub(super) fn unknown<T>(&self, pos: usize, n: &str) -> PResult<T> {
        match n.rsplit_once('.') {
            Some((base, f)) => match self.lookup(base) {
                Some(Sym::Struct { ty }) => {
                    self.err(pos, format!("struct `{ty}` has no field `{f}`"))
                }
                Some(_) => self.err(pos, format!("`{base}` is not a struct (no field `{f}`)")),
                None => self.unknown(pos, base),
            },
            None => self.err(pos, format!("unknown name `{n}`")),
        }
    }

    pub(super) fn unary(&mut self, pos: usize, op: UOp, v: Val) -> PResult<Val> {
        match op {
            UOp::Not => {
                let b = self.to_bool(pos, &v)?;
                Ok(Val::strong(un(U::Not, b)))
            }
            UOp::Pos | UOp::Neg => {
                let t = promote_int(v.ty());
                if op == UOp::Pos {
                    return Ok(Val {
                        e: self.conv(&v, t),
                        ..v
                    });
                }
                if let Some(l) = v.lit {
                    let nl = match l {
                        Lit::I(i) => Lit::I(-i),
                        Lit::F(f) => Lit::F(-f),
                    };
                    // The literal's type, re-evaluated for the negated value (C keeps the type of
                    // the positive literal; `-2147483648` is int64 in both).
                    if v.weak || matches!(l, Lit::F(_)) || t.is_signed_integer() {
                        return Ok(Val {
                            e: c(nl.scalar(t)),
                            weak: v.weak,
                            lit: Some(nl),
                        });
                    }
                }
                Ok(Val {
                    e: un(U::Neg, self.conv(&v, t)),
                    weak: v.weak,
                    lit: None,
                })
            }
            UOp::BitNot => {
                if !(v.ty().is_integer() || v.ty().is_bool()) {
                    return self.err(pos, format!("`~` needs an integer operand, not {}", v.ty()));
                }
                let t = promote_int(v.ty());
                if let (Some(Lit::I(i)), true) = (v.lit, v.weak) {
                    let r = c(Lit::I(i).scalar(t));
                    let f = fold(&un(U::BitNot, r)).expect("const");
                    return Ok(Val {
                        e: c(f),
                        weak: true,
                        lit: Some(Lit::I(f.to_i128())),
                    });
                }
                Ok(Val::strong(un(U::BitNot, self.conv(&v, t))))
            }
        }
    }

    pub(super) fn binary(&mut self, pos: usize, op: BOp, a: &Ex, b: &Ex) -> PResult<Val> {
        if self.has_operators {
            if let Some(r) = self.operator_call(pos, op.symbol(), &[a, b])? {
                return self.arg_scalar(pos, &format!("operator{}", op.symbol()), r);
            }
        }
        let av = self.expr(a)?;
        if matches!(op, BOp::LAnd | BOp::LOr) {
            let ca = self.to_bool(a.pos, &av)?;
            let g = if op == BOp::LAnd {
                ca.clone()
            } else {
                un(U::Not, ca.clone())
            };
            self.guards.push(g);
            let bv = self.expr(b);
            self.guards.pop();
            let bv = bv?;
            let cb = self.to_bool(b.pos, &bv)?;
            let o = if op == BOp::LAnd { B::And } else { B::Or };
            return Ok(Val::strong(bin(o, ca, cb)));
        }
        let bv = self.expr(b)?;
        self.arith(pos, op, av, bv)
    }

    /// A binary operation on two lowered values (also used by compound assignment).
    pub(super) fn arith(&mut self, pos: usize, op: BOp, av: Val, bv: Val) -> PResult<Val> {
        if (av.ty().is_complex() || bv.ty().is_complex())
            && matches!(op, BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge)
        {
            return self.err(
                pos,
                format!(
                    "`{}` is not defined for complex values (compare real(z), imag(z) or abs(z))",
                    op.symbol()
                ),
            );
        }
        let weak = av.weak && bv.weak;
        let is_int = |t: DType| t.is_integer() || t.is_bool();
        match op {
            BOp::Shl | BOp::Shr => {
                if !is_int(av.ty()) || !is_int(bv.ty()) {
                    return self.err(
                        pos,
                        format!(
                            "`{}` needs integer operands, not {} and {}",
                            op.symbol(),
                            av.ty(),
                            bv.ty()
                        ),
                    );
                }
                let t = promote_int(av.ty());
                let o = if op == BOp::Shl { B::Shl } else { B::Shr };
                let e = bin(o, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val { e, weak, lit: None })
            }
            BOp::BitAnd | BOp::BitOr | BOp::BitXor => {
                if !is_int(av.ty()) || !is_int(bv.ty()) {
                    return self.err(
                        pos,
                        format!(
                            "`{}` needs integer operands, not {} and {}",
                            op.symbol(),
                            av.ty(),
                            bv.ty()
                        ),
                    );
                }
                let t = self.common(&av, &bv);
                let o = match op {
                    BOp::BitAnd => B::And,
                    BOp::BitOr => B::Or,
                    _ => B::Xor,
                };
                let e = bin(o, self.conv(&av, t), self.conv(&bv, t));
                Ok(Val { e, weak, lit: None })
            }
            BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge | BOp::Eq | BOp::Ne => {
                let t = self.common(&av, &bv);
                let o = match op {
                    BOp::Lt => B::Lt,
                    BOp::Le => B::Le,
                    BOp::Gt => B::Gt,
                    BOp::Ge => B::Ge,
                    BOp::Eq => B::Eq,
                    _ => B::Ne,
                };
                Ok(Val::strong(bin(o, self.conv(&av, t), self.conv(&bv, t))))
            }
            BOp::Add | BOp::Sub | BOp::Mul | BOp::Div | BOp::Rem => {
                let t = self.common(&av, &bv);
                if op == BOp::Rem && !is_int(t) {
                    return self.err(
                        pos,
                        "`%` needs integer operands; use fmod(x, y) for floating-point values",
                    );
                }
                // Fold weak literal arithmetic so `2.0 * M_PI * x` stays in x's precision.
                if let (true, Some(x), Some(y)) = (weak, av.lit, bv.lit) {
                    let r = match (x, y, t.is_float()) {
                        (Lit::F(_), _, _) | (_, Lit::F(_), _) | (_, _, true) => {
                            let (x, y) = (lit_f(x), lit_f(y));
                            Some(Lit::F(match op {
                                BOp::Add => x + y,
                                BOp::Sub => x - y,
                                BOp::Mul => x * y,
                                BOp::Div => x / y,
                                _ => f64::NAN,
                            }))
                        }
                        (Lit::I(x), Lit::I(y), false) => {
                            let r = match op {
                                BOp::Add => x.checked_add(y),
                                BOp::Sub => x.checked_sub(y),
                                BOp::Mul => x.checked_mul(y),
                                BOp::Div if y != 0 => x.checked_div(y),
                                BOp::Rem if y != 0 => x.checked_rem(y),
                                _ => None,
                            };
                            r.filter(|v| Lit::I(*v).scalar(t).to_i128() == *v)
                                .map(Lit::I)
                        }
                    };
                    if let Some(l) = r {
                        return Ok(Val {
                            e: c(l.scalar(t)),
                            weak: true,
                            lit: Some(l),
                        });
                    }
                }
                let x = self.conv(&av, t);
                let y = self.conv(&bv, t);
                let e = match op {
                    BOp::Add => bin(B::Add, x, y),
                    BOp::Sub => bin(B::Sub, x, y),
                    BOp::Mul => bin(B::Mul, x, y),
                    BOp::Div => bin(B::Div, x, y),
                    _ => {
                        // Constants (`N % 2` of a template parameter) fold.
                        if let (Some(a), Some(b)) = (fold(&x), fold(&y)) {
                            let (a, b) = (a.to_i128(), b.to_i128());
                            if b != 0 {
                                return Ok(Val::strong(c(Scalar::Int64((a % b) as i64).cast(t))));
                            }
                        }
                        // C's truncated remainder: a - (a / b) * b.
                        let x = self.bind(x);
                        let y = self.bind(y);
                        bin(B::Sub, x.clone(), bin(B::Mul, bin(B::Div, x, y.clone()), y))
                    }
                };
                Ok(Val { e, weak, lit: None })
            }
            BOp::LAnd | BOp::LOr => {
                let ca = self.to_bool(pos, &av)?;
                let cb = self.to_bool(pos, &bv)?;
                let o = if op == BOp::LAnd { B::And } else { B::Or };
                Ok(Val::strong(bin(o, ca, cb)))
            }
        }
    }
}
