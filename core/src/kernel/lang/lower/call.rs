//! Lowering of calls: math functions (through `crate::kernel::math`), complex functions and
//! constructors and members (`x.size()`, `z.real()`); preamble functions are inlined by
//! `inline.rs`.

use super::*;

impl Lowering<'_> {
    pub(super) fn call(&mut self, pos: usize, name: &str, args: &[Ex]) -> PResult<Val> {
        // Functional cast `float(x)`, complex constructor `complex<float>(re, im)`.
        if let Some(Ty::D(t)) = resolve_type(&[name], &self.types) {
            if t.is_complex() {
                return self.complex_ctor(pos, name, t, args);
            }
            if args.len() != 1 {
                return self.err(pos, format!("`{name}(...)` conversion takes one argument"));
            }
            let v = self.expr(&args[0])?;
            if v.ty().is_complex() && !t.is_complex() {
                return self.err(pos, COMPLEX_TO_REAL);
            }
            return Ok(Val::strong(self.conv(&v, t)));
        }
        // Inside a member function, its struct's members come first (C++'s class scope).
        if self.this_method(name) {
            let this = Ex::new(self.part, pos, ExK::Name("this".into()))?;
            let r = self.method_call(pos, &this, name, args)?;
            return self.arg_scalar(pos, name, r);
        }
        if self.funcs.contains_key(name) {
            return self.inline_call(pos, name, args);
        }
        let mut vals = vec![];
        for a in args {
            vals.push(self.expr(a)?);
        }
        if matches!(
            name,
            "real" | "imag" | "conj" | "arg" | "norm" | "polar" | "proj"
        ) || vals.iter().any(|v| v.ty().is_complex())
        {
            return self.complex_math(pos, name, vals);
        }
        self.math(pos, name, vals)
    }

    /// `complex<float>()`, `complex<float>(x)` (a real or complex `x`), `complex<float>(re, im)`.
    pub(super) fn complex_ctor(
        &mut self,
        pos: usize,
        name: &str,
        t: DType,
        args: &[Ex],
    ) -> PResult<Val> {
        let mut vals = vec![];
        for a in args {
            vals.push(self.expr(a)?);
        }
        let part = t.real_dtype();
        match vals.as_slice() {
            [] => Ok(Val::strong(c(Scalar::zero(t)))),
            [v] => Ok(Val::strong(self.conv(v, t))),
            [re, im] => {
                for (v, a) in [(re, &args[0]), (im, &args[1])] {
                    if v.ty().is_complex() {
                        return self.err(
                            a.pos,
                            format!("`{name}(re, im)` takes real parts, not {}", v.ty()),
                        );
                    }
                }
                Ok(Val::strong(Expr::complex(
                    self.conv(re, part),
                    self.conv(im, part),
                )))
            }
            _ => self.err(
                pos,
                format!("`{name}(...)` takes at most two arguments (re, im)"),
            ),
        }
    }

    /// `value.member()`: `z.real()`, `z.imag()` of a complex value, `x.size()` of a raw array.
    pub(super) fn member(&mut self, pos: usize, base: &Ex, member: &str) -> PResult<Val> {
        if let ExK::Name(n) = &base.k {
            if let Some(Sym::Raw { k, .. }) = self.lookup(n).cloned() {
                return match member {
                    "size" => Ok(Val::strong(self.raw_len(pos, k)?)),
                    _ => self.err(
                        pos,
                        format!(
                            "`{n}.{member}()` is not supported: a raw array has `{n}.size()` \
                             (its number of elements), `{n}.shape()[d]`, `{n}.strides()[d]` \
                             and `{n}[j]`"
                        ),
                    ),
                };
            }
        }
        let v = self.expr(base)?;
        match member {
            "real" | "imag" if v.ty().is_complex() => self.complex_math(pos, member, vec![v]),
            "real" | "imag" => self.err(
                pos,
                format!("`.{member}()` needs a complex value, not {}", v.ty()),
            ),
            _ => self.err(
                pos,
                format!(
                    "member function `.{member}()` is not supported (complex values have \
                     `.real()` and `.imag()`, raw arrays `.size()`)"
                ),
            ),
        }
    }

    /// The complex functions (thrust::complex's, as CuPy's `complex<T>` provides them), and
    /// `real`/`imag`/`conj`/`arg`/`norm`/`polar` of real values.
    pub(super) fn complex_math(&mut self, pos: usize, name: &str, args: Vec<Val>) -> PResult<Val> {
        let arity = |cx: &Self, n: usize| -> PResult<()> {
            if args.len() != n {
                return cx.err(
                    pos,
                    format!(
                        "`{name}` takes {n} argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
            }
            Ok(())
        };
        let s = |v: Expr| Ok(Val::strong(v));
        // The float type a real argument computes in (C++'s std::real(int) is a double).
        let ftype = |t: DType| if t.is_float() { t } else { DType::Float64 };
        let cplx = args.first().is_some_and(|v| v.ty().is_complex());
        match name {
            "real" | "imag" | "conj" => {
                arity(self, 1)?;
                let v = &args[0];
                if cplx {
                    let op = match name {
                        "real" => U::Real,
                        "imag" => U::Imag,
                        _ => U::Conj,
                    };
                    return s(un(op, v.e.clone()));
                }
                let t = ftype(v.ty());
                s(if name == "imag" {
                    c(Scalar::zero(t))
                } else {
                    self.conv(v, t)
                })
            }
            "abs" if cplx => {
                arity(self, 1)?;
                let z = args[0].e.clone();
                let rt = z.ty.real_dtype();
                s(un(U::Abs, z).cast(rt))
            }
            "arg" => {
                arity(self, 1)?;
                let (re, im) = if cplx {
                    let z = self.bind(args[0].e.clone());
                    (un(U::Real, z.clone()), un(U::Imag, z))
                } else {
                    let t = ftype(args[0].ty());
                    (self.conv(&args[0], t), c(Scalar::zero(t)))
                };
                s(bin(B::Atan2, im, re))
            }
            "norm" => {
                arity(self, 1)?;
                if cplx {
                    return s(math::complex_norm(self, args[0].e.clone()));
                }
                let t = ftype(args[0].ty());
                let x = self.bind(self.conv(&args[0], t));
                s(bin(B::Mul, x.clone(), x))
            }
            "polar" => {
                if args.is_empty() || args.len() > 2 {
                    return self.err(pos, "`polar` takes 1 or 2 arguments (r, theta)");
                }
                if let Some(v) = args.iter().find(|v| v.ty().is_complex()) {
                    return self.err(pos, format!("`polar` takes real arguments, not {}", v.ty()));
                }
                let t = if args.len() == 2 {
                    self.common(&args[0], &args[1])
                } else {
                    args[0].ty()
                };
                let t = match ftype(t) {
                    DType::Float64 => DType::Float64,
                    _ => DType::Float32,
                };
                let r = self.bind(self.conv(&args[0], t));
                if args.len() == 1 {
                    return s(Expr::complex(r, c(Scalar::zero(t))));
                }
                let th = self.bind(self.conv(&args[1], t));
                s(Expr::complex(
                    bin(B::Mul, r.clone(), un(U::Cos, th.clone())),
                    bin(B::Mul, r, un(U::Sin, th)),
                ))
            }
            "exp" | "log" | "sqrt" | "sin" | "cos" | "tan" | "tanh" | "isnan" | "isinf"
            | "isfinite" => {
                arity(self, 1)?;
                let op = match name {
                    "exp" => U::Exp,
                    "log" => U::Log,
                    "sqrt" => U::Sqrt,
                    "sin" => U::Sin,
                    "cos" => U::Cos,
                    "tan" => U::Tan,
                    "tanh" => U::Tanh,
                    "isnan" => U::IsNan,
                    "isinf" => U::IsInf,
                    _ => U::IsFinite,
                };
                s(un(op, args[0].e.clone()))
            }
            "log10" => {
                arity(self, 1)?;
                s(math::complex_log10(self, args[0].e.clone()))
            }
            "sinh" | "cosh" => {
                arity(self, 1)?;
                let z = args[0].e.clone();
                s(if name == "sinh" {
                    math::complex_sinh(self, z)
                } else {
                    math::complex_cosh(self, z)
                })
            }
            "pow" => {
                arity(self, 2)?;
                let t = self.common(&args[0], &args[1]);
                let t = if t.is_complex() {
                    t
                } else {
                    crate::kernel::ir::complex_of(t)
                };
                s(bin(B::Pow, self.conv(&args[0], t), self.conv(&args[1], t)))
            }
            _ => self.err(
                pos,
                format!(
                    "`{name}` is not supported for complex values (supported: {COMPLEX_NAMES}, \
                     + - * /, == and !=)"
                ),
            ),
        }
    }

    pub(super) fn math(&mut self, pos: usize, name: &str, args: Vec<Val>) -> PResult<Val> {
        let tys: Vec<DType> = args.iter().map(|v| v.ty()).collect();
        // `__expf` -> `expf`, `sqrtf` -> (`sqrt`, float32).
        let bare = name.strip_prefix("__").unwrap_or(name);
        let known = |n: &str| {
            matches!(
                n,
                "sqrt"
                    | "exp"
                    | "log"
                    | "sin"
                    | "cos"
                    | "tan"
                    | "tanh"
                    | "floor"
                    | "ceil"
                    | "fabs"
                    | "fmax"
                    | "fmin"
                    | "pow"
                    | "atan2"
                    | "rsqrt"
                    | "exp2"
                    | "exp10"
                    | "log2"
                    | "log10"
                    | "log1p"
                    | "expm1"
                    | "sinh"
                    | "cosh"
                    | "asin"
                    | "acos"
                    | "atan"
                    | "asinh"
                    | "acosh"
                    | "atanh"
                    | "trunc"
                    | "round"
                    | "rint"
                    | "nearbyint"
                    | "fmod"
                    | "hypot"
                    | "fma"
                    | "copysign"
                    | "fdivide"
            )
        };
        let (base, f32v) = match bare.strip_suffix('f') {
            Some(b) if known(b) => (b, true),
            _ => (bare, false),
        };
        let arity = |n: usize| -> PResult<()> {
            if args.len() != n {
                return perr(
                    self.part,
                    pos,
                    format!(
                        "`{name}` takes {n} argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
            }
            Ok(())
        };
        // The float type the function computes in.
        let ftype = |t: DType| -> DType {
            if f32v {
                DType::Float32
            } else if t.is_float() {
                t
            } else {
                DType::Float64
            }
        };
        let one_f = |cx: &Self| -> (Expr, DType) {
            let t = ftype(args[0].ty());
            (cx.conv(&args[0], t), t)
        };
        let two_f = |cx: &Self| -> (Expr, Expr, DType) {
            let t = ftype(cx.common(&args[0], &args[1]));
            (cx.conv(&args[0], t), cx.conv(&args[1], t), t)
        };
        let s = |v: Expr| Ok(Val::strong(v));
        match base {
            "isnan" | "isinf" | "isfinite" | "signbit" if !f32v => {
                arity(1)?;
                if args[0].ty().is_integer() || args[0].ty().is_bool() {
                    let r = base == "isfinite";
                    if base == "signbit" {
                        let t = args[0].ty();
                        let x = self.conv(&args[0], t);
                        return s(if t.is_signed_integer() {
                            bin(B::Lt, x, c(Scalar::zero(t)))
                        } else {
                            c(Scalar::Bool(false))
                        });
                    }
                    return s(c(Scalar::Bool(r)));
                }
                let x = args[0].e.clone();
                let op = match base {
                    "isnan" => U::IsNan,
                    "isinf" => U::IsInf,
                    "isfinite" => U::IsFinite,
                    _ => {
                        let x = self.bind(x);
                        return s(math::signbit(x));
                    }
                };
                s(un(op, x))
            }
            "abs" if !f32v && (args.len() == 1 && (tys[0].is_integer() || tys[0].is_bool())) => {
                let t = promote_int(tys[0]);
                s(un(U::Abs, self.conv(&args[0], t)))
            }
            "max" | "min" if !f32v => {
                arity(2)?;
                let t = self.common(&args[0], &args[1]);
                let op = match (base, t.is_float()) {
                    ("max", true) => B::FMax,
                    ("max", false) => B::Max,
                    (_, true) => B::FMin,
                    _ => B::Min,
                };
                s(bin(op, self.conv(&args[0], t), self.conv(&args[1], t)))
            }
            "sqrt" | "exp" | "log" | "sin" | "cos" | "tan" | "tanh" | "floor" | "ceil" | "fabs"
            | "abs" => {
                arity(1)?;
                let (x, _) = one_f(self);
                let op = match base {
                    "sqrt" => U::Sqrt,
                    "exp" => U::Exp,
                    "log" => U::Log,
                    "sin" => U::Sin,
                    "cos" => U::Cos,
                    "tan" => U::Tan,
                    "tanh" => U::Tanh,
                    "floor" => U::Floor,
                    "ceil" => U::Ceil,
                    _ => U::Abs,
                };
                s(un(op, x))
            }
            "fmax" | "fmin" | "pow" | "atan2" | "fdivide" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                let op = match base {
                    "fmax" => B::FMax,
                    "fmin" => B::FMin,
                    "pow" => B::Pow,
                    "fdivide" => B::Div,
                    _ => B::Atan2,
                };
                s(bin(op, x, y))
            }
            "rsqrt" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::rsqrt(x))
            }
            "exp2" | "exp10" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "exp2" {
                    math::exp2(x)
                } else {
                    math::exp10(x)
                })
            }
            "log2" | "log10" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "log2" {
                    math::log2(x)
                } else {
                    math::log10(x)
                })
            }
            "log1p" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::log1p(self, x))
            }
            "expm1" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::expm1(self, x))
            }
            "sinh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::sinh(self, x))
            }
            "cosh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::cosh(self, x))
            }
            "atan" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arctan(x))
            }
            "asin" | "acos" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(if base == "asin" {
                    math::arcsin(self, x)
                } else {
                    math::arccos(self, x)
                })
            }
            "asinh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arcsinh(self, x))
            }
            "acosh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arccosh(self, x))
            }
            "atanh" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::arctanh(self, x))
            }
            "trunc" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::trunc(x))
            }
            "round" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::round_half_away(self, x))
            }
            "rint" | "nearbyint" => {
                arity(1)?;
                let (x, _) = one_f(self);
                s(math::rint(self, x))
            }
            "fmod" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::fmod(self, x, y))
            }
            "hypot" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::hypot(self, x, y))
            }
            "fma" => {
                arity(3)?;
                let t = ftype(usual(
                    self.common(&args[0], &args[1]),
                    self.common(&args[1], &args[2]),
                ));
                let (x, y, z) = (
                    self.conv(&args[0], t),
                    self.conv(&args[1], t),
                    self.conv(&args[2], t),
                );
                s(bin(B::Add, bin(B::Mul, x, y), z))
            }
            "copysign" => {
                arity(2)?;
                let (x, y, _) = two_f(self);
                s(math::copysign(self, x, y))
            }
            _ => self.err(
                pos,
                format!("unknown function `{name}` (supported math functions: {MATH_NAMES})"),
            ),
        }
    }
}
