//! Member functions and overloaded operators of preamble structs.
//!
//! A member function is inlined as a function with the object as an implicit struct argument
//! `this` whose fields are also in scope by their bare names (`x`, `v[k]`, `this->x`). A
//! `const` member function reads them; any other one may write them, and its object, when it
//! is a place in local variables (`p.scale(2)`, `ps[j].scale(2)`), gets the fields' final
//! values back. An operator (`a + b`, `-a`, `a == b`, `a += b`) with a struct operand calls
//! the left operand's member `operator+` or a preamble function `operator+`.

use super::structs::{void_use, ArgVal};
use super::*;

/// The object of a member function call: its struct type, its leaf values, and whether the
/// function is `const`.
pub(super) struct This {
    pub sname: String,
    pub leaves: Vec<Val>,
    pub is_const: bool,
}

impl Lowering<'_> {
    /// Member function `name` of struct `sname` taking `nargs` arguments.
    pub(super) fn method_of(&self, sname: &str, name: &str, nargs: usize) -> Option<Func> {
        self.struct_def(sname)
            .methods
            .iter()
            .find(|f| f.name == name && f.params.len() == nargs)
            .cloned()
    }

    /// True inside a member function whose struct has a member function `name`: a bare call
    /// `name(...)` calls it on `this`, as C++'s class scope is searched first.
    pub(super) fn this_method(&self, name: &str) -> bool {
        self.this_struct
            .last()
            .is_some_and(|s| self.struct_def(s).methods.iter().any(|f| f.name == name))
    }

    /// Whether some `operator{sym}` of `arity` operands (a member taking one fewer, or a
    /// preamble function) satisfies `pred`.
    fn any_operator(&self, sym: &str, arity: usize, pred: impl Fn(&Func) -> bool) -> bool {
        let name = format!("operator{sym}");
        let free = self
            .funcs
            .get(&name)
            .is_some_and(|f| f.params.len() == arity && pred(f));
        free || self.structs.values().any(|d| {
            d.methods
                .iter()
                .any(|f| f.name == name && f.params.len() + 1 == arity && pred(f))
        })
    }

    /// True when `x` is a struct value, decided without lowering it: a struct variable or
    /// element, a call of a function (or member function, or operator) returning a struct.
    pub(super) fn is_struct_ex(&self, x: &Ex) -> bool {
        match &x.k {
            ExK::Name(n) => matches!(self.lookup(n), Some(Sym::Struct { .. })),
            ExK::Index(..) | ExK::Field(..) => match self.local_path(x) {
                Some((b, segs)) => matches!(
                    self.lookup(&Self::path_rep(&b, &segs)),
                    Some(Sym::Struct { .. })
                ),
                None => false,
            },
            ExK::Call(name, args) if self.this_method(name) => {
                let s = self.this_struct.last().expect("in a member function");
                self.method_of(s, name, args.len())
                    .is_some_and(|f| self.names_struct(&f.ret))
            }
            ExK::Call(name, _) | ExK::TCall(name, _, _) => self
                .funcs
                .get(name)
                .is_some_and(|f| self.names_struct(&f.ret)),
            ExK::Member(b, m, args) => {
                self.is_struct_ex(b)
                    && self.structs.values().any(|d| {
                        d.methods.iter().any(|f| {
                            f.name == *m
                                && f.params.len() == args.len()
                                && self.names_struct(&f.ret)
                        })
                    })
            }
            ExK::Binary(op, a, b) => {
                self.has_operators
                    && (self.is_struct_ex(a) || self.is_struct_ex(b))
                    && self.any_operator(op.symbol(), 2, |f| self.names_struct(&f.ret))
            }
            ExK::Unary(UOp::Neg, a) => {
                self.has_operators
                    && self.is_struct_ex(a)
                    && self.any_operator("-", 1, |f| self.names_struct(&f.ret))
            }
            _ => false,
        }
    }

    /// The arguments of a call of `f`: struct parameters take struct values, the others
    /// scalars (a struct variable passed for a scalar parameter is reported by the callee).
    pub(super) fn eval_args(&mut self, f: &Func, args: &[Ex]) -> PResult<Vec<ArgVal>> {
        let mut vals = vec![];
        for (a, (words, _, _)) in args.iter().zip(&f.params) {
            let by_type =
                f.tparams.iter().all(|t| !words.contains(&t.name)) && self.names_struct(words);
            vals.push(if by_type || self.is_struct_ex(a) {
                let (t, v) = self.struct_value(a, None)?;
                ArgVal::Struct(t, v)
            } else {
                ArgVal::Scalar(self.expr(a)?)
            });
        }
        Ok(vals)
    }

    /// Calls member function `name` on the struct value `base`; a non-`const` one writes its
    /// object back when `base` is a place in local variables.
    pub(super) fn method_call(
        &mut self,
        pos: usize,
        base: &Ex,
        name: &str,
        args: &[Ex],
    ) -> PResult<ArgVal> {
        let (sname, leaves) = self.struct_value(base, None)?;
        let Some(f) = self.method_of(&sname, name, args.len()) else {
            let def = &self.struct_def(&sname).name;
            return match self
                .struct_def(&sname)
                .methods
                .iter()
                .find(|f| f.name == name)
            {
                Some(f) => self.err(
                    pos,
                    format!(
                        "`{def}::{name}` takes {} arguments, {} given",
                        f.params.len(),
                        args.len()
                    ),
                ),
                None => self.err(
                    pos,
                    format!("struct `{def}` has no member function `{name}`"),
                ),
            };
        };
        let vals = self.eval_args(&f, args)?;
        let is_const = f.is_const;
        let this = This {
            sname: sname.clone(),
            leaves,
            is_const,
        };
        let (r, after) =
            self.inline_func(pos, &format!("{sname}::{name}"), &f, &[], vals, Some(this))?;
        if !is_const {
            // A temporary object (a call's result) keeps its changes to itself, as in C++.
            if let (Some((b, segs)), Some(after)) = (self.local_path(base), after) {
                self.store_struct_at(pos, (&b, &segs), &sname, &after)?;
            }
        }
        Ok(r)
    }

    /// `operator{sym}` applied to `operands` when one of them is a struct: the first operand's
    /// member operator, else a preamble function `operator{sym}`. `None` when no operand is a
    /// struct (the built-in operator applies).
    pub(super) fn operator_call(
        &mut self,
        pos: usize,
        sym: &str,
        operands: &[&Ex],
    ) -> PResult<Option<ArgVal>> {
        if !self.has_operators {
            return Ok(None);
        }
        let structs: Vec<bool> = operands.iter().map(|o| self.is_struct_ex(o)).collect();
        if !structs.iter().any(|s| *s) {
            return Ok(None);
        }
        let name = format!("operator{sym}");
        let n = operands.len();
        let rest: Vec<Ex> = operands[1..].iter().map(|o| (*o).clone()).collect();
        let free = self
            .funcs
            .get(&name)
            .filter(|f| f.params.len() == n)
            .cloned();
        if structs[0] {
            let (sname, leaves) = self.struct_value(operands[0], None)?;
            if let Some(f) = self.method_of(&sname, &name, n - 1) {
                let vals = self.eval_args(&f, &rest)?;
                let this = This {
                    sname: sname.clone(),
                    leaves,
                    is_const: f.is_const,
                };
                let qualified = format!("{sname}::{name}");
                return Ok(Some(
                    self.inline_func(pos, &qualified, &f, &[], vals, Some(this))?
                        .0,
                ));
            }
            if let Some(f) = free.filter(|f| self.names_struct(&f.params[0].0)) {
                let tail = Func {
                    params: f.params[1..].to_vec(),
                    ..f.clone()
                };
                let mut vals = vec![ArgVal::Struct(sname, leaves)];
                vals.extend(self.eval_args(&tail, &rest)?);
                return Ok(Some(self.inline_func(pos, &name, &f, &[], vals, None)?.0));
            }
            let def = self.struct_def(&sname).name.clone();
            return self.err(pos, format!("no `{name}` for struct `{def}`"));
        }
        match free {
            Some(f) => {
                let all: Vec<Ex> = operands.iter().map(|o| (*o).clone()).collect();
                let vals = self.eval_args(&f, &all)?;
                Ok(Some(self.inline_func(pos, &name, &f, &[], vals, None)?.0))
            }
            None => self.err(
                pos,
                format!("no `{name}` taking these operands (a struct on the right needs a preamble function `{name}`)"),
            ),
        }
    }

    /// A call's result used as a value: a scalar.
    pub(super) fn arg_scalar(&self, pos: usize, what: &str, r: ArgVal) -> PResult<Val> {
        match r {
            ArgVal::Scalar(v) => Ok(v),
            ArgVal::Struct(t, _) => self.err(pos, structs::struct_use(what, &t)),
            ArgVal::Void => self.err(pos, void_use(what)),
        }
    }

    /// An expression statement: a call whose result (a struct, or nothing) is discarded, or
    /// any expression.
    pub(super) fn expr_stmt(&mut self, e: &Ex) -> PResult<()> {
        match &e.k {
            ExK::Call(name, args) if self.this_method(name) => {
                let this = Ex::new(self.part, e.pos, ExK::Name("this".into()))?;
                self.method_call(e.pos, &this, name, args)?;
            }
            ExK::Call(name, args) if self.funcs.contains_key(name) => {
                self.inline_any(e.pos, name, &[], args)?;
            }
            ExK::TCall(name, targs, args) if self.funcs.contains_key(name) => {
                self.inline_any(e.pos, name, targs, args)?;
            }
            ExK::Member(b, m, args) if self.is_struct_ex(b) => {
                self.method_call(e.pos, b, m, args)?;
            }
            _ => {
                self.expr(e)?;
            }
        }
        Ok(())
    }
}
