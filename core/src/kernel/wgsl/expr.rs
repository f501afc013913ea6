//! Expressions: the recursive walk (with `let` hoisting of deep subtrees) and unary operators.

use super::binary::Narrowed;
use super::emitter::{f32lit, f64lit, opaque_zero_u32, Ctx, WgslEmitter, INLINE_DEPTH};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::{BinaryOp, Expr, ExprKind, UnaryOp};

/// `Some(sign bit)` when `e` is a float zero constant.
/// A raw operand's element index as WGSL text for `u32(..)`: a constant as an abstract integer
/// literal (naga's constant evaluator does not convert a 64-bit literal such as `u32(0li)`),
/// anything else as emitted.
pub(super) fn raw_index_text(index: &Expr, emitted: String) -> String {
    if let ExprKind::Const(v) = index.kind {
        if let crate::scalar::Scalar::Int64(i) = v.cast(DType::Int64) {
            if (0..=i64::from(i32::MAX)).contains(&i) {
                return i.to_string();
            }
        }
    }
    emitted
}

fn zero_const(e: &Expr) -> Option<bool> {
    match e.kind {
        ExprKind::Const(v) if e.ty.is_float() && v.to_f64() == 0.0 => {
            Some(v.to_f64().is_sign_negative())
        }
        _ => None,
    }
}

impl WgslEmitter {
    pub(super) fn expr(&mut self, e: &Expr, c: &Ctx) -> Result<String> {
        Ok(self.expr_d(e, c)?.0)
    }

    /// An expression and its nesting depth; subtrees deeper than [`INLINE_DEPTH`] are bound to
    /// `let` temporaries (in [`WgslEmitter::pre`]) first.
    fn expr_d(&mut self, e: &Expr, c: &Ctx) -> Result<(String, u32)> {
        let (s, d) = self.expr_node(e, c)?;
        if d > INLINE_DEPTH {
            let name = format!("t{}", self.tmp);
            self.tmp += 1;
            self.pre.push(format!("let {name} = {s};"));
            return Ok((name, 1));
        }
        Ok((s, d))
    }

    /// `s` itself when it is a name, literal or element access, else a `let` temporary
    /// holding it (for operands the emitted code repeats).
    fn bind(&mut self, s: String) -> String {
        let simple = s.len() <= 48
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c));
        if simple {
            return s;
        }
        let name = format!("t{}", self.tmp);
        self.tmp += 1;
        self.pre.push(format!("let {name} = {s};"));
        name
    }

    fn expr_node(&mut self, e: &Expr, c: &Ctx) -> Result<(String, u32)> {
        self.check(e.ty)?;
        let mut depth = 0u32;
        let mut sub = |em: &mut WgslEmitter, x: &Expr| -> Result<String> {
            let (s, d) = em.expr_d(x, c)?;
            depth = depth.max(d);
            Ok(s)
        };
        let s = match &e.kind {
            ExprKind::Const(v) => self.lit(*v),
            ExprKind::Input(k) => c.inputs[*k].clone(),
            ExprKind::Param(k) => c.params[*k].clone(),
            ExprKind::Var(k) => c.vars[*k].clone(),
            ExprKind::Index => format!("{}({})", self.vty(DType::Int64), c.index),
            ExprKind::Load { raw, index } => {
                let ix = raw_index_text(index, sub(self, index)?);
                let r = &c.raws[*raw];
                if r.atomic && self.pair_atomic(e.ty) {
                    let h = self.pair_helpers(r.binding);
                    self.bits_value(e.ty, format!("{h}_ld({} + u32({ix}))", r.off))
                } else {
                    let addr = format!("{} + u32({ix})", r.off);
                    self.load_elem(r.binding, r.atomic, e.ty, &addr)
                }
            }
            ExprKind::Unary(op, a) => {
                let mut s = sub(self, a)?;
                if a.ty.is_complex() {
                    self.complex_unary(*op, e.ty, a.ty, s)?
                } else {
                    if matches!(op, UnaryOp::Sqrt) {
                        // Emitted twice: bind a compound operand once.
                        s = self.bind(s);
                    }
                    self.unary(*op, a.ty, s)?
                }
            }
            ExprKind::Binary(op, a, b) => {
                if let Some((sym, l, r)) = self.narrow_comparison(*op, a, b) {
                    // Widened narrow integers compared in their 32-bit type.
                    let mut side = |em: &mut WgslEmitter, s: Narrowed<'_>| match s {
                        Narrowed::Expr(x) => sub(em, x),
                        Narrowed::Lit(l) => Ok(l),
                    };
                    let (x, y) = (side(self, l)?, side(self, r)?);
                    format!("({x} {sym} {y})")
                } else if a.ty.is_complex() || b.ty.is_complex() || *op == BinaryOp::Complex {
                    let x = sub(self, a)?;
                    let y = sub(self, b)?;
                    self.complex_binary(*op, a.ty, b.ty, x, y)?
                } else {
                    let mut x = sub(self, a)?;
                    let mut y = sub(self, b)?;
                    if matches!(op, BinaryOp::Add | BinaryOp::Sub) {
                        x = self.opaque_const(a, x);
                        y = self.opaque_const(b, y);
                    }
                    let mut b_ty = b.ty;
                    if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                        let wide = b.ty.is_integer() && b.ty.itemsize() == 8;
                        if let (ExprKind::Const(v), true) = (&b.kind, wide) {
                            // A 64-bit constant amount, clamped here as a u32 literal (negative
                            // ones count as too large): naga's constant evaluator cannot
                            // convert a 64-bit constant to u32 (`u32(min(32lu, 255lu))`).
                            let v = v.to_i128();
                            y = format!("{}u", if v < 0 { 255 } else { v.min(255) });
                            b_ty = DType::UInt32;
                        }
                        y = self.bind(y);
                    }
                    let bits = self.vty(a.ty) == "f32"
                        || (a.ty == DType::Float64 && self.opts.shader_int64);
                    match (op, zero_const(a), zero_const(b)) {
                        (BinaryOp::Mul, _, Some(neg)) if bits => self.times_zero(a.ty, x, neg)?,
                        (BinaryOp::Mul, Some(neg), _) if bits => self.times_zero(a.ty, y, neg)?,
                        (BinaryOp::Mul, _, _) if bits => {
                            let prod = self.binary(*op, a.ty, b_ty, x, y)?;
                            self.opaque_product(a.ty, prod)
                        }
                        // Sums and differences too: NVIDIA's compiler reassociates chains of
                        // them (`(1 + x) - 1` to `x`, which undid Kahan's log1p and so
                        // arcsinh and the complex arcsin on the H200).
                        (BinaryOp::Add | BinaryOp::Sub, _, _) if bits && a.ty.is_float() => {
                            let sum = self.binary(*op, a.ty, b_ty, x, y)?;
                            self.opaque_product(a.ty, sum)
                        }
                        _ => self.binary(*op, a.ty, b_ty, x, y)?,
                    }
                }
            }
            // naga's constant evaluator cannot convert a 64-bit integer literal to a float
            // (`f64(2li)` fails to validate): the conversion is done here (round to nearest,
            // as the shader's would be).
            ExprKind::Cast(a) => {
                if let (
                    ExprKind::Const(v),
                    DType::Int64 | DType::UInt64,
                    DType::Float32 | DType::Float64,
                ) = (&a.kind, a.ty, e.ty)
                {
                    self.lit(v.cast(e.ty))
                } else {
                    let s = sub(self, a)?;
                    if a.ty.is_complex() || e.ty.is_complex() {
                        self.complex_cast(s, a.ty, e.ty)?
                    } else {
                        self.cast(s, a.ty, e.ty)
                    }
                }
            }
            ExprKind::Select(cond, a, b) => {
                let cs = sub(self, cond)?;
                let x = sub(self, a)?;
                let y = sub(self, b)?;
                format!("select({y}, {x}, {cs})")
            }
        };
        Ok((s, depth + 1))
    }

    /// `s` (the emission of `e`) hidden from the compiler when `e` is a nonzero float32/float64
    /// constant of a sum: each use ORs in a different zero (the sign bit of meta word 0, which
    /// is below 2^31, shifted), so the compiler can neither fold nor merge them. llvmpipe
    /// reassociates sums with constants (`(1 + x) - 1` to `x`), which undid Kahan's log1p of the
    /// math library (and so arcsinh, arcsin of small arguments).
    fn opaque_const(&mut self, e: &Expr, s: String) -> String {
        let ExprKind::Const(v) = e.kind else {
            return s;
        };
        if !matches!(e.ty, DType::Float32 | DType::Float64) || v.to_f64() == 0.0 {
            return s;
        }
        let k = self.tmp % 31;
        self.tmp += 1;
        let z = format!("(({} & 0x80000000u) >> {k}u)", self.zero_word);
        if e.ty == DType::Float64 && self.opts.shader_int64 {
            // Through the bits: `x + ±0` is no barrier for a compiler without signed zeros.
            format!("bitcast<f64>(bitcast<u64>({s}) | u64({z}))")
        } else if e.ty == DType::Float64 {
            format!("({s} + f64(bitcast<f32>({z})))")
        } else {
            format!("bitcast<f32>(bitcast<u32>({s}) | {z})")
        }
    }

    /// A float product (or sum) `p` the shader compiler cannot contract into a following add
    /// or reassociate with its neighbours: its bits XOR a zero it cannot see (the sign bit of
    /// meta word 0, shifted to the lowest bit). NVIDIA's Vulkan driver fuses
    /// `a * b + c` into an fma (naga emits no `NoContraction`), which changed NumPy's lerp of
    /// `quantile` by 4 ulps and broke the bit-identity of `cupy::random`'s transforms on the
    /// H200; IEEE's product followed by IEEE's sum is what every other backend computes.
    fn opaque_product(&mut self, d: DType, p: String) -> String {
        // In the lowest bit, as `r_pq` (a pure integer zero; the sign-bit form built a float -0
        // first). Tried while chasing a llvmpipe difference (see `r_pq`) that it did not fix.
        let z = format!("({} >> 31u)", self.zero_word);
        if d == DType::Float64 {
            format!("bitcast<f64>(bitcast<u64>({p}) ^ u64({z}))")
        } else {
            format!("bitcast<f32>(bitcast<u32>({p}) ^ {z})")
        }
    }

    /// `x * ±0` for float32 (float64 with 64-bit integers) spelled out (a zero with the xor of the signs; NaN for an infinite
    /// or NaN `x`): llvmpipe assumes no signed zeros and folds `x * 0` to `+0`, which lost the
    /// sign the math library's `rint` takes from `x * 0`.
    fn times_zero(&mut self, d: DType, x: String, neg: bool) -> Result<String> {
        let x = self.bind(x);
        if d == DType::Float64 {
            let h = self.cx_helper("multiply", "r_isfin", DType::Complex128)?;
            let flip = if neg { " ^ 0x8000000000000000lu" } else { "" };
            let nan = f64lit(f64::NAN);
            return Ok(format!(
                "select({nan}, bitcast<f64>((bitcast<u64>({x}){flip}) & 0x8000000000000000lu), {h}({x}))"
            ));
        }
        let h = self.cx_helper("multiply", "r_isfin", DType::Complex64)?;
        let flip = if neg { " ^ 0x80000000u" } else { "" };
        Ok(format!(
            "select(bitcast<f32>(0x7fc00000u), bitcast<f32>((bitcast<u32>({x}){flip}) & 0x80000000u), {h}({x}))"
        ))
    }

    fn unary(&mut self, op: UnaryOp, d: DType, a: String) -> Result<String> {
        let t = self.vty(d);
        let float = d.is_float();
        let f64_ = d == DType::Float64;
        Ok(match op {
            UnaryOp::Neg => match d {
                DType::Bool => a,
                // float32 (and float16/bfloat16, computed in f32) through the sign bit: NVIDIA's
                // Vulkan compiler folds `-f32(bool)` to +0.0 for false (NumPy: -0.0).
                _ if float && !f64_ => format!("bitcast<f32>(bitcast<u32>({a}) ^ 0x80000000u)"),
                _ if float => format!("(-{a})"),
                _ if d.is_signed_integer() => self.wrap(d, format!("(-{a})")),
                _ => self.wrap(d, format!("({} - {a})", self.zero(d))),
            },
            UnaryOp::Abs => {
                match d {
                    _ if float => format!("abs({a})"),
                    _ if d.is_signed_integer() => {
                        let z = self.zero(d);
                        let name = format!("abs_{t}");
                        let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}) -> {t} {{ return select(a, {z} - a, a < {z}); }}\n")
                    });
                        self.wrap(d, format!("{h}({a})"))
                    }
                    _ => a,
                }
            }
            UnaryOp::Real | UnaryOp::Imag | UnaryOp::Conj => {
                let name = format!("{op:?}").to_lowercase();
                return Err(self.unsupported(&name, d, "needs a complex operand"));
            }
            UnaryOp::Not => self.truthy(d, &a, true),
            UnaryOp::BitNot => match d {
                DType::Bool => format!("(!{a})"),
                _ if d.is_integer() => self.wrap(d, format!("(~{a})")),
                _ => return Err(self.unsupported("invert", d, "bitwise not needs an integer")),
            },
            UnaryOp::Sqrt
            | UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh => {
                let name = format!("{op:?}").to_lowercase();
                if !float {
                    return Err(self.unsupported(&name, d, "needs a float operand"));
                }
                if f64_ && op != UnaryOp::Sqrt {
                    // Software float64 (real_lib64's fdlibm ports): Vulkan's GLSL.std.450
                    // builtins are defined for 16/32-bit floats only.
                    let f = format!("r_{name}");
                    let h = self.cx_helper(&name, &f, DType::Complex128)?;
                    return Ok(format!("{h}({a})"));
                }
                let nan = if f64_ {
                    f64lit(f64::NAN)
                } else {
                    f32lit(f32::NAN)
                };
                let z = self.zero(d);
                match op {
                    // Correctly rounded (NumPy's) where the driver's is not (`r_sqrt`).
                    UnaryOp::Sqrt if !f64_ => {
                        let h = self.cx_helper("sqrt", "r_sqrt", DType::Complex64)?;
                        format!("select({h}({a}), {nan}, {a} < {z})")
                    }
                    UnaryOp::Sqrt => format!("select(sqrt({a}), {nan}, {a} < {z})"),
                    UnaryOp::Exp
                    | UnaryOp::Log
                    | UnaryOp::Tanh
                    | UnaryOp::Tan
                    | UnaryOp::Sin
                    | UnaryOp::Cos
                        if self.opts.shader_f64 && self.opts.shader_int64 =>
                    {
                        // fdlibm's float64 functions (real_lib64) rounded to float32 where the
                        // adapter has float64, a correctly rounded result but for near-ties:
                        // the builtin tanh (llvmpipe's through exp) loses relative accuracy
                        // near 0, and the float32 Cephes versions below were up to 4 ulps off
                        // on llvmpipe (tan) and 23 on NVIDIA's Vulkan driver (sin/cos, whose
                        // compiler reorders their float32 arithmetic; tests/accuracy32.rs).
                        let f = format!("r_{name}");
                        let h = self.cx_helper(&name, &f, DType::Complex128)?;
                        let round = self.f32_of_f64();
                        format!("{round}({h}(f64({a})))")
                    }
                    // float32 exp/log in software (complex_lib's Cephes `r_exp`/`r_log`):
                    // llvmpipe's builtins lose up to |x| ulps (exp) and all relative accuracy
                    // near 1 (log), which the math library's log1p/expm1/arcsin need.
                    UnaryOp::Log => {
                        let h = self.cx_helper("log", "r_log", DType::Complex64)?;
                        format!("{h}({a})")
                    }
                    UnaryOp::Exp | UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tan => {
                        // ... and sin/cos/tan (Cephes, Payne-Hanek past 8192): llvmpipe's lose
                        // accuracy with the argument.
                        let f = format!("r_{name}");
                        let h = self.cx_helper(&name, &f, DType::Complex64)?;
                        format!("{h}({a})")
                    }
                    UnaryOp::Tanh => {
                        let h = self.helper("tanh_f32", || {
                            "fn tanh_f32(x: f32) -> f32 { return select(tanh(clamp(x, -15.0f, 15.0f)), x, !(x == x)); }\n".into()
                        });
                        format!("{h}({a})")
                    }
                    _ => format!("{name}({a})"),
                }
            }
            UnaryOp::Floor | UnaryOp::Ceil => {
                if float {
                    format!("{}({a})", format!("{op:?}").to_lowercase())
                } else {
                    a
                }
            }
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => {
                if !float {
                    return Ok(if op == UnaryOp::IsFinite {
                        "true".into()
                    } else {
                        "false".into()
                    });
                }
                if f64_ && self.opts.shader_int64 {
                    // From the bits (see `isnan`): NaN/infinity tests a fast-math compiler
                    // cannot fold.
                    // The bound passes an opaque zero: a compiler that assumes no NaNs or
                    // infinities folds a literal bound (see `real_lib::bit_helper`).
                    let bits = format!("(bitcast<u64>({a}) & 0x7ffffffffffffffflu)");
                    let inf = format!(
                        "(0x7ff0000000000000lu + u64({}))",
                        opaque_zero_u32(&self.zero_word)
                    );
                    match op {
                        UnaryOp::IsNan => format!("({bits} > {inf})"),
                        UnaryOp::IsInf => format!("({bits} == {inf})"),
                        _ => format!("({bits} < {inf})"),
                    }
                } else if f64_ {
                    let inf = f64lit(f64::INFINITY);
                    match op {
                        UnaryOp::IsNan => format!("(!({a} == {a}))"),
                        UnaryOp::IsInf => format!("(abs({a}) == {inf})"),
                        _ => format!("(abs({a}) < {inf})"),
                    }
                } else {
                    let bits = format!("(bitcast<u32>({a}) & 0x7fffffffu)");
                    let inf = format!("(0x7f800000u + {})", opaque_zero_u32(&self.zero_word));
                    match op {
                        UnaryOp::IsNan => format!("({bits} > {inf})"),
                        UnaryOp::IsInf => format!("({bits} == {inf})"),
                        _ => format!("({bits} < {inf})"),
                    }
                }
            }
        })
    }

    /// `a != 0` as a bool (`negate`: `a == 0`).
    pub(super) fn truthy(&self, d: DType, a: &str, negate: bool) -> String {
        if d == DType::Bool {
            return if negate { format!("(!{a})") } else { a.into() };
        }
        let z = self.zero(d);
        if d.is_complex() {
            let all = format!("all({a} == {z})");
            return if negate { all } else { format!("(!{all})") };
        }
        if negate {
            format!("({a} == {z})")
        } else {
            format!("(!({a} == {z}))")
        }
    }
}
