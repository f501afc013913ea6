//! Binary operators (NumPy semantics: wrapping, floor division, remainder, shifts, float32
//! `pow`/`atan2` helpers).

use super::emitter::{i32lit, WgslEmitter};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::{BinaryOp, Expr, ExprKind};
use crate::scalar::Scalar;

/// One operand of a comparison emitted in a 32-bit type (see
/// [`WgslEmitter::narrow_comparison`]).
pub(super) enum Narrowed<'e> {
    /// The narrow integer expression under the cast to `Int64`.
    Expr(&'e Expr),
    /// A constant, spelled in the 32-bit type.
    Lit(String),
}

impl WgslEmitter {
    /// A comparison of two `Int64` operands, each a narrow integer cast to `Int64` or a constant
    /// that fits the narrow integers' 32-bit value type (`i32` for int8/16/32, `u32` for
    /// uint8/16/32), when `Int64` is emitted as `i64`: the operator and the operands to compare
    /// in the 32-bit type instead. NumPy's result is the same; Mesa's llvmpipe evaluates
    /// `i64(x) < 0li` as false for a negative `x` (naga's SPIR-V is right), which sent negative
    /// `take`/`put`/`add_at` indices to the wrong element.
    pub(super) fn narrow_comparison<'e>(
        &self,
        op: BinaryOp,
        a: &'e Expr,
        b: &'e Expr,
    ) -> Option<(&'static str, Narrowed<'e>, Narrowed<'e>)> {
        use BinaryOp as B;
        let sym = match op {
            B::Eq => "==",
            B::Ne => "!=",
            B::Lt => "<",
            B::Le => "<=",
            B::Gt => ">",
            B::Ge => ">=",
            _ => return None,
        };
        if a.ty != DType::Int64 || b.ty != DType::Int64 || self.vty(DType::Int64) != "i64" {
            return None;
        }
        // (signed, operand) of a widened narrow integer; the constant of a literal.
        let widened = |e: &'e Expr| match &e.kind {
            ExprKind::Cast(x) => match x.ty {
                DType::Int8 | DType::Int16 | DType::Int32 => Some((true, x.as_ref())),
                DType::UInt8 | DType::UInt16 | DType::UInt32 => Some((false, x.as_ref())),
                _ => None,
            },
            _ => None,
        };
        let constant = |e: &Expr| match e.kind {
            ExprKind::Const(Scalar::Int64(v)) => Some(v),
            _ => None,
        };
        let lit = |signed: bool, v: i64| -> Option<Narrowed<'e>> {
            if signed {
                i32::try_from(v)
                    .ok()
                    .map(|v| Narrowed::Lit(i32lit(v as i64)))
            } else {
                u32::try_from(v)
                    .ok()
                    .map(|v| Narrowed::Lit(format!("{v}u")))
            }
        };
        let (x, y) = match (widened(a), widened(b)) {
            (Some((sa, x)), Some((sb, y))) if sa == sb => (Narrowed::Expr(x), Narrowed::Expr(y)),
            (Some((s, x)), None) => (Narrowed::Expr(x), lit(s, constant(b)?)?),
            (None, Some((s, y))) => (lit(s, constant(a)?)?, Narrowed::Expr(y)),
            _ => return None,
        };
        Some((sym, x, y))
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        d: DType,
        db: DType,
        a: String,
        b: String,
    ) -> Result<String> {
        use BinaryOp as B;
        let t = self.vty(d);
        let float = d.is_float();
        let f64_ = d == DType::Float64;
        let int = d.is_integer();
        let signed = d.is_signed_integer();
        let opname = format!("{op:?}").to_lowercase();
        if d == DType::Bool {
            return Ok(match op {
                B::Add | B::Or | B::Max | B::FMax => format!("({a} | {b})"),
                B::Mul | B::And | B::Min | B::FMin => format!("({a} & {b})"),
                B::Xor | B::Sub | B::Ne => format!("({a} != {b})"),
                B::Eq => format!("({a} == {b})"),
                B::Lt | B::Le | B::Gt | B::Ge => {
                    let sym = match op {
                        B::Lt => "<",
                        B::Le => "<=",
                        B::Gt => ">",
                        _ => ">=",
                    };
                    format!("(select(0u, 1u, {a}) {sym} select(0u, 1u, {b}))")
                }
                _ => {
                    return Err(self.unsupported(&opname, d, "not defined for bool operands"));
                }
            });
        }
        let z = self.zero(d);
        Ok(match op {
            B::Complex => return self.complex_binary(op, d, db, a, b),
            B::Add | B::Sub | B::Mul => {
                let sym = match op {
                    B::Add => "+",
                    B::Sub => "-",
                    _ => "*",
                };
                self.wrap(d, format!("({a} {sym} {b})"))
            }
            B::Div => {
                if float && !f64_ {
                    let fused = self.opts.fused_fma;
                    let h = self.helper("fdiv_f32", || fdiv_f32(fused));
                    format!("{h}({a}, {b})")
                } else if float && self.opts.fused_fma {
                    let h = self.helper("fdiv_f64", fdiv_f64);
                    format!("{h}({a}, {b})")
                } else if float {
                    format!("({a} / {b})")
                } else {
                    let name = format!("div_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a / b; }}\n")
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                }
            }
            B::FloorDiv => {
                if float {
                    let h = self.float_divmod(d);
                    format!("{h}({a}, {b}).x")
                } else if signed {
                    let name = format!("floordiv_{t}");
                    let one = self.ilit(d, 1);
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if (b == {z}) {{ return {z}; }}
  let q = a / b;
  let r = a % b;
  if (r != {z} && ((r < {z}) != (b < {z}))) {{ return q - {one}; }}
  return q;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                } else {
                    let name = format!("div_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a / b; }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Mod => {
                if float {
                    let h = self.float_divmod(d);
                    format!("{h}({a}, {b}).y")
                } else if signed {
                    let name = format!("mod_{t}");
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if (b == {z}) {{ return {z}; }}
  let r = a % b;
  if (r != {z} && ((r < {z}) != (b < {z}))) {{ return r + b; }}
  return r;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                } else {
                    let name = format!("mod_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ if (b == {z}) {{ return {z}; }} return a % b; }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Pow => {
                if f64_ {
                    // fdlibm's e_pow.c in software (real_lib64).
                    let h = self.cx_helper("power", "r_pow", DType::Complex128)?;
                    return Ok(format!("{h}({a}, {b})"));
                }
                if float && self.opts.shader_f64 && self.opts.shader_int64 {
                    // float32 through fdlibm's float64 pow (real_lib64) where the adapter has
                    // it: the builtin is exp2(y log2 x) in float32, tens of ulps off for large
                    // results on llvmpipe. Rounded once to float32 (overflow spelled out).
                    let p64 = self.cx_helper("power", "r_pow", DType::Complex128)?;
                    let round = self.f32_of_f64();
                    let h = self.helper("pow_f32", || {
                        POW_F32.replace(
                            "    r = pow(ax, y);",
                            &format!("    r = {round}({p64}(f64(ax), f64(y)));"),
                        )
                    });
                    format!("{h}({a}, {b})")
                } else if float {
                    let h = self.helper("pow_f32", || POW_F32.into());
                    format!("{h}({a}, {b})")
                } else {
                    let name = format!("pow_{t}");
                    let one = self.ilit(d, 1);
                    let neg = if signed {
                        let m1 = self.ilit(d, -1);
                        format!(
                            "  if (b < {z}) {{
    if (a == {one}) {{ return {one}; }}
    if (a == {m1}) {{ return select({one}, {m1}, (b & {one}) != {z}); }}
    return {z};
  }}
"
                        )
                    } else {
                        String::new()
                    };
                    let g = self.guard_line(&format!("e != {z}"));
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
{neg}  var r = {one};
  var x = a;
  var e = b;
  while (e != {z}) {{
    if ((e & {one}) != {z}) {{ r = r * x; }}
    x = x * x;
    e = e >> 1u;
  }}
{g}  return r;
}}
"
                        )
                    });
                    self.wrap(d, format!("{h}({a}, {b})"))
                }
            }
            B::Max | B::Min | B::FMax | B::FMin => {
                let gt = if matches!(op, B::Max | B::FMax) {
                    ">"
                } else {
                    "<"
                };
                if float {
                    let name = format!("{opname}_{t}");
                    let na = self.isnan(d, "a");
                    let nb = self.isnan(d, "b");
                    let prop = matches!(op, B::Max | B::Min);
                    let (ra, rb) = if prop { ("a", "b") } else { ("b", "a") };
                    let h = self.helper(&name, || {
                        format!(
                            "fn {name}(a: {t}, b: {t}) -> {t} {{
  if ({na}) {{ return {ra}; }}
  if ({nb}) {{ return {rb}; }}
  return select(b, a, a {gt} b);
}}
"
                        )
                    });
                    format!("{h}({a}, {b})")
                } else {
                    let name = format!("{opname}_{t}");
                    let h = self.helper(&name, || {
                        format!("fn {name}(a: {t}, b: {t}) -> {t} {{ return select(b, a, a {gt} b); }}\n")
                    });
                    format!("{h}({a}, {b})")
                }
            }
            B::Eq => format!("({a} == {b})"),
            B::Ne => {
                if float {
                    format!("(!({a} == {b}))")
                } else {
                    format!("({a} != {b})")
                }
            }
            B::Lt => format!("({a} < {b})"),
            B::Le => format!("({a} <= {b})"),
            B::Gt => format!("({a} > {b})"),
            B::Ge => format!("({a} >= {b})"),
            B::And | B::Or | B::Xor => {
                if !int {
                    return Err(self.unsupported(&opname, d, "bitwise ops need integers"));
                }
                let sym = match op {
                    B::And => "&",
                    B::Or => "|",
                    _ => "^",
                };
                format!("({a} {sym} {b})")
            }
            B::Shl | B::Shr => {
                if !int {
                    return Err(self.unsupported(&opname, d, "shifts need integers"));
                }
                let amount = self.shift_amount(db, &b);
                let wbits = if t.ends_with("64") { 64 } else { 32 };
                let bits = if self.narrow && matches!(d, DType::Int64 | DType::UInt64) {
                    32
                } else {
                    d.bits()
                };
                if op == B::Shl {
                    let s = format!("({a} << min({amount}, {}u))", wbits - 1);
                    format!("select({}, {z}, {amount} >= {bits}u)", self.wrap(d, s))
                } else if signed {
                    format!("({a} >> min({amount}, {}u))", wbits - 1)
                } else {
                    format!(
                        "select(({a} >> min({amount}, {}u)), {z}, {amount} >= {wbits}u)",
                        wbits - 1
                    )
                }
            }
            B::MulHi => {
                if d != DType::UInt32 {
                    return Err(self.unsupported("mulhi", d, "uint32 operands only"));
                }
                let h = self.helper("mulhi_u32", || MULHI_U32.into());
                format!("{h}({a}, {b})")
            }
            B::Atan2 => {
                if f64_ {
                    // fdlibm's e_atan2.c in software (real_lib64).
                    let h = self.cx_helper("arctan2", "r_atan2", DType::Complex128)?;
                    return Ok(format!("{h}({a}, {b})"));
                }
                if !float {
                    return Err(self.unsupported("atan2", d, "needs a float operand"));
                }
                if self.opts.shader_f64 && self.opts.shader_int64 {
                    // fdlibm's float64 atan2 rounded to float32 where the adapter has it: the
                    // float32 Cephes below was 3 ulps off on llvmpipe.
                    let h = self.cx_helper("arctan2", "r_atan2", DType::Complex128)?;
                    return Ok(format!("f32({h}(f64({a}), f64({b})))"));
                }
                // Cephes' atanf with C99's special values (complex_lib's `r_atan2`): the
                // builtin on llvmpipe is off by tens of ulps.
                let h = self.cx_helper("arctan2", "r_atan2", DType::Complex64)?;
                format!("{h}({a}, {b})")
            }
        })
    }

    /// A shift amount as u32 (negative amounts become 255: "too large").
    fn shift_amount(&self, db: DType, b: &str) -> String {
        let bt = self.vty(db);
        match bt {
            "bool" => format!("select(0u, 1u, {b})"),
            "u32" => format!("min({b}, 255u)"),
            "u64" => format!("u32(min({b}, 255lu))"),
            "i32" => format!("select(u32(min({b}, 255i)), 255u, {b} < 0i)"),
            "i64" => format!("select(u32(min({b}, 255li)), 255u, {b} < 0li)"),
            _ => "255u".into(),
        }
    }
}

/// float32 division correct on every driver: Vulkan bounds `OpFDiv` only for divisors in
/// [2^-126, 2^126] (NVIDIA's driver divides by a reciprocal, which is 0 past 2^126: `hypot`
/// of float32 near the overflow threshold lost its infinity), and a zero divisor's result is
/// spelled out from the bits (a driver assuming no signed zeros gave `1 / -0 = +inf`, which
/// broke `signbit` and so `fmod`'s sign of a zero). With `fused` (a hardware adapter, whose
/// `fma` rounds once) the driver's quotient, within Vulkan's 2.5 ulps, is corrected to the
/// correctly rounded one: three times, the neighbour one ulp up or down replaces it when its exact
/// remainder `fma(-q, y, x)` is smaller (the correctly rounded quotient has the smallest, and
/// no quotient of two floats lies halfway). So `/` gives the bits of the cpu and cuda backends,
/// which the random samplers' bit identity needs (a normal quotient; subnormal ones are flushed
/// by NVIDIA's driver anyway).
fn fdiv_f32(fused: bool) -> String {
    let step = "    {
      let up = bitcast<f32>(bitcast<u32>(q) + 1u);
      let dn = bitcast<f32>(bitcast<u32>(q) - 1u);
      let r = abs(fma(-q, y, x));
      if (abs(fma(-up, y, x)) < r) { q = up; } else if (abs(fma(-dn, y, x)) < r) { q = dn; }
    }
";
    let correct = if fused {
        format!(
            "  let mq = bitcast<u32>(q) & 0x7fffffffu;
  if (mq >= 0x00800000u && mq < 0x7f7fffffu) {{
{step}{step}{step}  }}
"
        )
    } else {
        String::new()
    };
    format!(
        "fn fdiv_f32(a: f32, b: f32) -> f32 {{
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  if ((ub & 0x7fffffffu) == 0u) {{
    if ((ua & 0x7fffffffu) == 0u || (ua & 0x7fffffffu) > 0x7f800000u) {{ return bitcast<f32>(0x7fc00000u); }}
    return bitcast<f32>(0x7f800000u | ((ua ^ ub) & 0x80000000u));
  }}
  let s = select(1.0f, 0.25f, (ub & 0x7fffffffu) > 0x7e800000u);
  let x = a * s;
  let y = b * s;
  var q = x / y;
{correct}  return q;
}}
"
    )
}

/// float64 division correctly rounded on hardware adapters (those whose `fma` rounds once):
/// Vulkan does not require a correctly rounded float64 `OpFDiv`, and NVIDIA's driver missed by
/// an ulp now and then (float64 normals of the random samplers differed from the cpu and cuda
/// backends in a few elements of 2^18). As [`fdiv_f32`]: up to three times, the neighbour an
/// ulp up or down replaces the quotient when its exact remainder `fma(-q, y, x)` is smaller.
/// The remainder is exact (representable) when `x`, `y` and `q` are normal and `|x|` is at
/// least 2^-960 (the remainder's last bit, about 2^-104 |x|, stays above 2^-1074) and below
/// 2^1020; outside those ranges (and for zero, infinite or NaN operands) the driver's
/// quotient stands, as llvmpipe's correctly rounded one always does.
fn fdiv_f64() -> String {
    let step = "    {
      let up = bitcast<f64>(bitcast<u64>(q) + 1lu);
      let dn = bitcast<f64>(bitcast<u64>(q) - 1lu);
      let r = abs(fma(-q, y, x));
      if (abs(fma(-up, y, x)) < r) { q = up; } else if (abs(fma(-dn, y, x)) < r) { q = dn; }
    }
";
    format!(
        "fn fdiv_f64(x: f64, y: f64) -> f64 {{
  var q = x / y;
  let m = 0x7ffffffffffffffflu;
  let ax = bitcast<u64>(x) & m;
  let ay = bitcast<u64>(y) & m;
  let aq = bitcast<u64>(q) & m;
  if (ax >= 0x03f0000000000000lu && ax < 0x7fb0000000000000lu && ay >= 0x0010000000000000lu
      && ay < 0x7ff0000000000000lu && aq >= 0x0010000000000000lu && aq < 0x7feffffffffffffflu) {{
{step}{step}{step}  }}
  return q;
}}
"
    )
}

const POW_F32: &str = "fn pow_f32(x: f32, y: f32) -> f32 {
  if (y == 0.0f || x == 1.0f) { return 1.0f; }
  if (x == -1.0f && abs(y) == bitcast<f32>(0x7f800000u)) { return 1.0f; }
  if (!(x == x) || !(y == y)) { return x + y; }
  if (y == 1.0f) { return x; }
  if (y == 2.0f) { return x * x; }
  let ax = abs(x);
  var r: f32;
  if (ax == 0.0f) {
    r = select(bitcast<f32>(0x7f800000u), 0.0f, y > 0.0f);
  } else if (y == 0.5f) {
    r = sqrt(ax);
  } else if (y == -1.0f) {
    r = 1.0f / ax;
  } else {
    r = pow(ax, y);
  }
  if ((bitcast<u32>(x) & 0x80000000u) != 0u) {
    let yint = floor(y) == y;
    if (!yint && ax != 0.0f) { return bitcast<f32>(0x7fc00000u); }
    if (yint && abs(y) < 16777216.0f && fract(y * 0.5f) != 0.0f) { r = -r; }
  }
  return r;
}
";

impl WgslEmitter {
    /// The name of the helper that rounds a float64 to float32 with IEEE's overflow
    /// ([`F32_OF_F64`]), added to the shader once.
    pub(super) fn f32_of_f64(&mut self) -> String {
        self.helper("f32_of_f64", || F32_OF_F64.into())
    }
}

/// A float64 rounded to float32 with IEEE's overflow (a magnitude from half an ulp past
/// `f32::MAX` on is infinite) spelled out: WGSL leaves an out-of-range conversion to the driver.
const F32_OF_F64: &str = "fn f32_of_f64(d: f64) -> f32 {
  if (abs(d) >= 3.4028235677973366e38lf) { return select(bitcast<f32>(0x7f800000u), bitcast<f32>(0xff800000u), d < 0.0lf); }
  return f32(d);
}
";

/// The high word of a 32x32-bit product from 16-bit halves (WGSL has no 64-bit integers
/// without an extension); every partial sum stays below 2^32.
const MULHI_U32: &str = "fn mulhi_u32(a: u32, b: u32) -> u32 {
  let al = a & 0xffffu;
  let ah = a >> 16u;
  let bl = b & 0xffffu;
  let bh = b >> 16u;
  let u = ah * bl + ((al * bl) >> 16u);
  let v = al * bh + (u & 0xffffu);
  return ah * bh + (u >> 16u) + (v >> 16u);
}
";
