//! The emitter's state ([`WgslEmitter`]: options, helper functions, `let` temporaries, the
//! loop guard) and its value plumbing: WGSL types of dtypes, literals, load/store conversions,
//! wrapping of narrow integers, NaN tests.

use super::{packed_bits, storage_refusal, ParamRepr, WgslOptions};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::fmt::Write;

pub(super) fn word(i: usize) -> String {
    format!("mt.w[{}][{}]", i / 4, i % 4)
}

pub(super) fn iword(i: usize) -> String {
    format!("bitcast<i32>({})", word(i))
}

pub(super) fn i32lit(v: i64) -> String {
    if v == i32::MIN as i64 {
        "(-2147483647i - 1i)".into()
    } else if v < 0 {
        format!("(-{}i)", -v)
    } else {
        format!("{v}i")
    }
}

pub(super) fn i64lit(v: i64) -> String {
    if v == i64::MIN {
        "(-9223372036854775807li - 1li)".into()
    } else if v < 0 {
        format!("(-{}li)", -(v as i128))
    } else {
        format!("{v}li")
    }
}

pub(super) fn f32lit(x: f32) -> String {
    if x.is_nan() {
        "bitcast<f32>(0x7fc00000u)".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "bitcast<f32>(0x7f800000u)".into()
        } else {
            "bitcast<f32>(0xff800000u)".into()
        }
    } else if x != 0.0 && !x.is_normal() {
        format!("bitcast<f32>({:#x}u)", x.to_bits())
    } else if x.is_sign_negative() {
        format!("(-{:?}f)", -x)
    } else {
        format!("{x:?}f")
    }
}

pub(super) fn f64lit(x: f64) -> String {
    if x.is_nan() || x.is_infinite() {
        format!("f64({})", f32lit(x as f32))
    } else if x.is_sign_negative() {
        format!("(-{:e}lf)", -x)
    } else {
        format!("{x:e}lf")
    }
}

/// A +0 of part type `t` the shader compiler cannot see as a constant: the sign bit of `word`,
/// a `u32` known to the backend (not the compiler) to be below 2^31 (meta word 0, the launch's
/// element or output count, in the emitter's shaders). A driver without signed zeros (llvmpipe)
/// rewrites `0 - x` as `-x` and `x + 0` as `x` when it sees a literal zero, which turned the +0
/// imaginary part of a real cast to complex into -0 after a division.
pub(super) fn opaque_zero_of(word: &str, t: &str) -> String {
    let z = format!("bitcast<f32>({word} & 0x80000000u)");
    if t == "f64" {
        format!("f64({z})")
    } else {
        z
    }
}

/// A `u32` zero the shader compiler cannot see as a constant: `word >> 31` (see
/// [`opaque_zero_of`] for why `word` is below 2^31).
pub(super) fn opaque_zero_u32(word: &str) -> String {
    format!("({word} >> 31u)")
}

/// +infinity of part type `t` built from bits the compiler cannot fold ([`opaque_zero_u32`]).
/// WGSL lets an implementation assume that no infinities or NaNs occur, and NVIDIA's Vulkan
/// compiler acts on it: arithmetic on a literal infinity (`inf * sin(y)`) was folded to a
/// finite value there. A float64 infinity needs `SHADER_INT64` for its bit cast; without it
/// the literal is kept.
pub(super) fn opaque_infinity(t: &str, int64: bool, word: &str) -> String {
    let z = opaque_zero_u32(word);
    if t == "f32" {
        format!("bitcast<f32>(0x7f800000u + {z})")
    } else if int64 {
        format!("bitcast<f64>(0x7ff0000000000000lu + u64({z}))")
    } else {
        f64lit(f64::INFINITY)
    }
}

pub(super) struct Ctx {
    pub(super) inputs: Vec<String>,
    pub(super) params: Vec<String>,
    pub(super) vars: Vec<String>,
    pub(super) index: String,
    /// Per raw operand.
    pub(super) raws: Vec<RawCtx>,
}

/// How a raw operand is reached.
#[derive(Clone)]
pub(super) struct RawCtx {
    /// Binding number (into the plan's buffers): the array is `b{binding}`.
    pub(super) binding: usize,
    /// Offset expression (elements).
    pub(super) off: String,
    /// The binding is declared `array<atomic<..>>`: every access is atomic.
    pub(super) atomic: bool,
}

/// The state of one shader's emission: the adapter's options, the helper functions and `let`
/// temporaries emitted so far, and the loop guard statement.
pub(super) struct WgslEmitter {
    pub(super) opts: WgslOptions,
    /// Index-like 64-bit integers are emitted as 32-bit.
    pub(super) narrow: bool,
    pub(super) helpers: Vec<(String, String)>,
    pub(super) kname: String,
    /// `let` temporaries of deep expressions, written before the statement that uses them.
    pub(super) pre: Vec<String>,
    /// Next temporary's number.
    pub(super) tmp: usize,
    /// The statement run when a loop ended early (see [`LoopMode::guard`](super::LoopMode::guard)).
    pub(super) guard: Option<String>,
    /// A `u32` expression below 2^31 the compiler cannot know (see [`opaque_zero_of`]).
    pub(super) zero_word: String,
}

/// Deepest expression (in IR nodes) emitted inline; deeper subtrees go through `let`
/// temporaries, so naga's parser (recursion limit 200) accepts any depth.
pub(super) const INLINE_DEPTH: u32 = 16;

pub(super) const ROUND_F16: &str = "fn round_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let a = b & 0x7fffffffu;
  let s = b & 0x80000000u;
  if (a > 0x7f800000u) { return x; }
  if (a >= 0x477ff000u) { return bitcast<f32>(s | 0x7f800000u); }
  if (a < 0x38800000u) {
    let v = round(bitcast<f32>(a) * 16777216.0f) * bitcast<f32>(0x33800000u);
    return bitcast<f32>(s | bitcast<u32>(v));
  }
  return bitcast<f32>(s | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
}
";

pub(super) const ROUND_BF16: &str = "fn round_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return x; }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}
";

/// float16 bits (low 16 bits of a `u32`) -> float32, from the bits (no builtin, whose
/// results for infinities WGSL leaves open): subnormals are `m * 2^-24`, exact in float32.
pub(super) const F16_F32: &str = "fn f16_f32(h: u32) -> f32 {
  let s = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) { return bitcast<f32>(s | bitcast<u32>(f32(m) * bitcast<f32>(0x33800000u))); }
  if (e == 31u) { return bitcast<f32>(s | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}
";

/// A float32 holding a float16 value (`round_f16`'s result) -> its float16 bits (`pack2x16float`
/// leaves values outside float16's finite range open, so this works on the bits).
pub(super) const F32_F16: &str = "fn f32_f16(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  let s = (b >> 16u) & 0x8000u;
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return s | 0x7e00u; }
  if (a >= 0x47800000u) { return s | 0x7c00u; }
  if (a < 0x38800000u) { return s | u32(bitcast<f32>(a) * 16777216.0f); }
  return s | ((a - 0x38000000u) >> 13u);
}
";

impl WgslEmitter {
    pub(super) fn new(opts: &WgslOptions, narrow: bool, kname: &str) -> WgslEmitter {
        WgslEmitter {
            opts: opts.clone(),
            narrow,
            helpers: vec![],
            kname: kname.into(),
            pre: vec![],
            tmp: 0,
            guard: None,
            zero_word: word(0),
        }
    }

    /// Writes the pending `let` temporaries at indentation `pad`.
    pub(super) fn flush_pre(&mut self, pad: &str, out: &mut String) {
        for l in self.pre.drain(..) {
            let _ = writeln!(out, "{pad}{l}");
        }
    }

    /// The guard statement after a loop whose condition `cond` must be false when it ends.
    pub(super) fn guard_after(&self, cond: &str, pad: &str, out: &mut String) {
        if let Some(g) = &self.guard {
            let _ = writeln!(out, "{pad}if ({cond}) {{ {g} }}");
        }
    }

    /// `guard` as one line to splice into helper code (empty without a guard).
    pub(super) fn guard_line(&self, cond: &str) -> String {
        match &self.guard {
            Some(g) => format!("  if ({cond}) {{ {g} }}\n"),
            None => String::new(),
        }
    }

    pub(super) fn helper(&mut self, name: &str, code: impl FnOnce() -> String) -> String {
        if !self.helpers.iter().any(|(n, _)| n == name) {
            let c = code();
            self.helpers.push((name.into(), c));
        }
        name.into()
    }

    pub(super) fn unsupported(&self, op: &str, dtype: DType, reason: &str) -> Error {
        Error::DTypeNotSupported {
            op: if op == self.kname {
                op.to_string()
            } else {
                format!("{} ({op})", self.kname)
            },
            dtype,
            device: self.opts.device.clone(),
            reason: reason.into(),
        }
    }

    pub(super) fn check(&self, d: DType) -> Result<()> {
        if let Some(r) = storage_refusal(d, self.opts.shader_f64, true) {
            return Err(self.unsupported(&self.kname, d, &r));
        }
        if matches!(d, DType::Int64 | DType::UInt64) && !self.narrow && !self.opts.shader_int64 {
            return Err(self.unsupported(
                &self.kname,
                d,
                &format!("{d} on a wgpu adapter without SHADER_INT64"),
            ));
        }
        Ok(())
    }

    /// WGSL value type.
    pub(super) fn vty(&self, d: DType) -> &'static str {
        match d {
            DType::Bool => "bool",
            DType::Int8 | DType::Int16 | DType::Int32 => "i32",
            DType::UInt8 | DType::UInt16 | DType::UInt32 => "u32",
            DType::Int64 => {
                if self.narrow {
                    "i32"
                } else {
                    "i64"
                }
            }
            DType::UInt64 => {
                if self.narrow {
                    "u32"
                } else {
                    "u64"
                }
            }
            DType::Float16 | DType::BFloat16 | DType::Float32 => "f32",
            DType::Float64 => "f64",
            DType::Complex64 => "vec2<f32>",
            DType::Complex128 => "vec2<f64>",
        }
    }

    /// WGSL storage word type (packed 8/16-bit elements: their `u32` words).
    pub(super) fn sty(&self, d: DType) -> &'static str {
        match d {
            DType::Bool
            | DType::Int8
            | DType::UInt8
            | DType::Int16
            | DType::UInt16
            | DType::Float16
            | DType::BFloat16 => "u32",
            DType::Int64 => "i64",
            DType::UInt64 => "u64",
            _ => self.vty(d),
        }
    }

    pub(super) fn param_repr(&self, d: DType) -> ParamRepr {
        match self.vty(d) {
            "bool" | "u32" => ParamRepr::U32,
            "i32" => ParamRepr::I32,
            "f32" => ParamRepr::F32,
            "f64" => ParamRepr::F64,
            "i64" => ParamRepr::I64,
            "vec2<f32>" => ParamRepr::C64,
            "vec2<f64>" => ParamRepr::C128,
            _ => ParamRepr::U64,
        }
    }

    pub(super) fn param_expr(&self, k: usize, d: DType) -> String {
        if d == DType::Bool {
            format!("(mt.p{k} != 0u)")
        } else {
            format!("mt.p{k}")
        }
    }

    /// A +0 of part type `t` the compiler cannot fold (see [`opaque_zero_of`]).
    pub(super) fn opaque_zero(&self, t: &str) -> String {
        opaque_zero_of(&self.zero_word, t)
    }

    /// +infinity (or -infinity) of part type `t` as [`opaque_infinity`].
    pub(super) fn infinity(&self, t: &str, negative: bool) -> String {
        let inf = opaque_infinity(t, self.opts.shader_int64, &self.zero_word);
        if negative {
            format!("(-{inf})")
        } else {
            inf
        }
    }

    /// `lit` unless `x` is +0, then [`WgslEmitter::opaque_zero`].
    fn opaque_or(&self, x: f64, lit: String, t: &str) -> String {
        if x == 0.0 && x.is_sign_positive() {
            self.opaque_zero(t)
        } else {
            lit
        }
    }

    pub(super) fn zero(&self, d: DType) -> String {
        self.lit(Scalar::zero(d))
    }

    pub(super) fn lit(&self, v: Scalar) -> String {
        match v {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int8(x) => i32lit(x as i64),
            Scalar::Int16(x) => i32lit(x as i64),
            Scalar::Int32(x) => i32lit(x as i64),
            Scalar::UInt8(x) => format!("{x}u"),
            Scalar::UInt16(x) => format!("{x}u"),
            Scalar::UInt32(x) => format!("{x}u"),
            Scalar::Int64(x) => {
                if self.narrow {
                    i32lit(x)
                } else {
                    i64lit(x)
                }
            }
            Scalar::UInt64(x) => {
                if self.narrow {
                    format!("{x}u")
                } else {
                    format!("{x}lu")
                }
            }
            Scalar::Float16(x) => f32lit(x.to_f32()),
            Scalar::BFloat16(x) => f32lit(x.to_f32()),
            // Infinities from bits the compiler cannot fold (see `opaque_infinity`).
            Scalar::Float32(x) if x.is_infinite() => self.infinity("f32", x < 0.0),
            Scalar::Float64(x) if x.is_infinite() => self.infinity("f64", x < 0.0),
            Scalar::Float32(x) => f32lit(x),
            Scalar::Float64(x) => f64lit(x),
            Scalar::Complex64(c) => {
                let p = |x: f32| self.opaque_or(x as f64, f32lit(x), "f32");
                format!("vec2<f32>({}, {})", p(c.re), p(c.im))
            }
            Scalar::Complex128(c) => {
                let p = |x: f64| self.opaque_or(x, f64lit(x), "f64");
                format!("vec2<f64>({}, {})", p(c.re), p(c.im))
            }
        }
    }

    /// Literal of `v` in dtype `d` (for helper code).
    pub(super) fn ilit(&self, d: DType, v: i64) -> String {
        self.lit(Scalar::Int64(v).cast(d))
    }

    pub(super) fn load_conv(&self, d: DType, s: String) -> String {
        if d == DType::Bool {
            format!("({s} != 0u)")
        } else {
            s
        }
    }

    /// The element at address `addr` (a `u32` expression, in elements) of binding `b{binding}`
    /// of dtype `d`, as a value; `atomic`: the binding is `array<atomic<..>>`. Packed elements
    /// go through a helper `ld_b{binding}(a)` that extracts (and sign-extends) the element's
    /// bits from its word.
    pub(super) fn load_elem(
        &mut self,
        binding: usize,
        atomic: bool,
        d: DType,
        addr: &str,
    ) -> String {
        let Some(bits) = packed_bits(d) else {
            let slot = format!("b{binding}[{addr}]");
            return if atomic {
                self.word_value(d, format!("atomicLoad(&{slot})"))
            } else {
                self.load_conv(d, slot)
            };
        };
        if d == DType::Float16 {
            self.helper("f16_f32", || F16_F32.into());
        }
        let name = format!("ld_b{binding}");
        let vt = self.vty(d);
        self.helper(&name, || {
            let (q, r) = if bits == 8 { ("2u", "3u") } else { ("1u", "1u") };
            let w = if atomic {
                format!("atomicLoad(&b{binding}[a >> {q}])")
            } else {
                format!("b{binding}[a >> {q}]")
            };
            let v = match d {
                DType::Bool => format!("extractBits(w, sh, {bits}u) != 0u"),
                DType::Float16 => "f16_f32(extractBits(w, sh, 16u))".to_string(),
                DType::BFloat16 => "bitcast<f32>(extractBits(w, sh, 16u) << 16u)".to_string(),
                DType::Int8 | DType::Int16 => format!("extractBits(bitcast<i32>(w), sh, {bits}u)"),
                _ => format!("extractBits(w, sh, {bits}u)"),
            };
            format!(
                "fn {name}(a: u32) -> {vt} {{\n  let w = {w};\n  let sh = (a & {r}) * {bits}u;\n  return {v};\n}}\n"
            )
        })
        .to_string()
            + &format!("({addr})")
    }

    /// The low bits of packed dtype `d`'s value `v` as a `u32` (the element's bits in its
    /// word, before the shift; the caller masks).
    /// float16/bfloat16 values are rounded to the type first (as every store rounds).
    pub(super) fn packed_value(&mut self, d: DType, v: String) -> String {
        match d {
            DType::Bool => format!("select(0u, 1u, {v})"),
            DType::Int8 | DType::Int16 => format!("bitcast<u32>({v})"),
            DType::Float16 => {
                let r = self.store_conv(d, v);
                let f = self.helper("f32_f16", || F32_F16.into());
                format!("{f}({r})")
            }
            DType::BFloat16 => {
                let r = self.store_conv(d, v);
                format!("(bitcast<u32>({r}) >> 16u)")
            }
            _ => v,
        }
    }

    /// A statement storing value `v` of packed dtype `d` at address `addr` of the atomic binding
    /// `b{binding}`: `atomicAnd` clears the element's bits, `atomicOr` sets them, so lanes
    /// writing other elements of the same word never race (each touches only its own bits).
    pub(super) fn store_packed_atomic(
        &mut self,
        binding: usize,
        d: DType,
        addr: &str,
        v: String,
    ) -> String {
        let bits = packed_bits(d).unwrap_or(32);
        let name = format!("st_b{binding}");
        self.helper(&name, || {
            let (q, r, m) = if bits == 8 {
                ("2u", "3u", "0xffu")
            } else {
                ("1u", "1u", "0xffffu")
            };
            format!(
                "fn {name}(a: u32, v: u32) {{\n  let i = a >> {q};\n  let sh = (a & {r}) * {bits}u;\n  atomicAnd(&b{binding}[i], ~({m} << sh));\n  atomicOr(&b{binding}[i], (v & {m}) << sh);\n}}\n"
            )
        });
        let pv = self.packed_value(d, v);
        format!("{name}({addr}, {pv});")
    }

    pub(super) fn store_conv(&mut self, d: DType, v: String) -> String {
        match d {
            DType::Bool => format!("select(0u, 1u, {v})"),
            DType::Float16 => format!("{}({v})", self.helper("round_f16", || ROUND_F16.into())),
            DType::BFloat16 => format!("{}({v})", self.helper("round_bf16", || ROUND_BF16.into())),
            _ => v,
        }
    }

    /// Wraps an integer value of dtype `d` (held in a 32-bit word) to its range.
    pub(super) fn wrap(&self, d: DType, s: String) -> String {
        match d {
            DType::Int8 => format!("(({s} << 24u) >> 24u)"),
            DType::Int16 => format!("(({s} << 16u) >> 16u)"),
            DType::UInt8 => format!("({s} & 0xffu)"),
            DType::UInt16 => format!("({s} & 0xffffu)"),
            _ => s,
        }
    }

    /// NumPy's `npy_divmod` (floor quotient in `.x`, remainder with the divisor's sign in `.y`)
    /// over an exact `fmod`: WGSL's float `%` is `a - b * trunc(a / b)`, which loses the
    /// remainder when the quotient rounds (`1 % 0.1`), so the remainder is found by binary long
    /// division: subtracting `|b| * 2^k` for falling `k` (each subtraction exact by Sterbenz's
    /// lemma, each halving exact).
    pub(super) fn float_divmod(&mut self, d: DType) -> String {
        let t = self.vty(d);
        let f64_ = d == DType::Float64;
        let lit = |x: f64| if f64_ { f64lit(x) } else { f32lit(x as f32) };
        let (z, one, half, nan, inf, negz) = (
            lit(0.0),
            lit(1.0),
            lit(0.5),
            lit(f64::NAN),
            lit(f64::INFINITY),
            lit(-0.0),
        );
        let nx = self.isnan(d, "x");
        let ny = self.isnan(d, "y");
        // `s > 0` ends the doubling too: a driver that flushes subnormal operands of `*` (NVIDIA)
        // but not of `==` doubles a subnormal `ay` to 0, and `0 <= r / 2` held forever. Such a
        // driver treats `ay` as 0, so the remainder is NaN, as for a zero divisor.
        let g1 = self.guard_line(&format!("s <= r * {half} && s > {z}"));
        // `s <= ay`, not `s == ay`: a driver that flushes subnormals (NVIDIA) halves `s` past a
        // subnormal `ay` to 0, and `s == ay` never held (an endless loop lost the H200's device).
        let g2 = self.guard_line("s > ay");
        // Both loops are bounded by the doubling count (`s = ay * 2^k` exactly, so halving k
        // times returns to `ay`): whatever a driver does with NaN tests, subnormals or
        // `x == x` folding, neither loop can run forever (the H200's Vulkan driver hung in
        // float64 `fmod` with unbounded loops). 2^-1074 .. 2^1024 is 2098 doublings; float32 277.
        let kmax = if f64_ { 2100 } else { 280 };
        let fmod = format!("fmod_{t}");
        self.helper(&fmod, || {
            format!(
                "fn {fmod}(x: {t}, y: {t}) -> {t} {{
  if ({nx} || {ny} || abs(x) == {inf} || y == {z}) {{ return {nan}; }}
  if (abs(y) == {inf}) {{ return x; }}
  var r = abs(x);
  let ay = abs(y);
  if (ay == {z}) {{ return {nan}; }}
  var s = ay;
  var k = 0u;
  while (s <= r * {half} && s > {z} && k < {kmax}u) {{ s = s * 2.0; k = k + 1u; }}
{g1}  if (s == {z} || k >= {kmax}u) {{ return {nan}; }}
  loop {{
    if (r >= s) {{ r = r - s; }}
    if (s <= ay || k == 0u) {{ break; }}
    s = s * {half};
    k = k - 1u;
  }}
{g2}  return select(r, -r, x < {z});
}}
"
            )
        });
        // Signed zeros through bits on f32: NVIDIA's Vulkan compiler folds `select(0.0, -0.0, c)`
        // as if zeros had no sign (seen on the H200).
        let signed_zero = |cond: &str| {
            if f64_ {
                format!("select({z}, {negz}, {cond})")
            } else {
                format!("bitcast<f32>(select(0u, 0x80000000u, {cond}))")
            }
        };
        let zero_b = signed_zero(&format!("b < {z}"));
        let na = self.isnan(d, "a");
        let bneg = if f64_ {
            format!("({one} / b < {z})")
        } else {
            "((bitcast<u32>(b) & 0x80000000u) != 0u)".to_string()
        };
        let zero_q = signed_zero(&format!("q < {z} || (q == {z} && {one} / q < {z})"));
        let name = format!("divmod_{t}");
        self.helper(&name, || {
            format!(
                "fn {name}(a: {t}, b: {t}) -> vec2<{t}> {{
  let m0 = {fmod}(a, b);
  // Division by zero is spelled out: a driver may fold `a / 0` as if infinities did not exist
  // (llvmpipe returned 0 for a uniform 0.0 divisor).
  if (b == {z}) {{
    if (a == {z} || {na}) {{ return vec2<{t}>({nan}, m0); }}
    return vec2<{t}>(select({inf}, -{inf}, (a < {z}) != {bneg}), m0);
  }}
  let q0 = a / b;
  var div = (a - m0) / b;
  var m = m0;
  if (!(m == {z})) {{
    if ((b < {z}) != (m < {z})) {{ m = m + b; div = div - {one}; }}
  }} else {{
    m = {zero_b};
  }}
  var fl: {t};
  if (!(div == {z})) {{
    fl = floor(div);
    if (div - fl > {half}) {{ fl = fl + {one}; }}
  }} else {{
    let q = q0;
    fl = {zero_q};
  }}
  return vec2<{t}>(fl, m);
}}
"
            )
        })
    }

    pub(super) fn isnan(&mut self, d: DType, s: &str) -> String {
        match d {
            // From the bits where the adapter has 64-bit integers: a compiler that assumes no
            // NaNs (llvmpipe; NVIDIA's under its fast-math) folds `x == x` to true.
            // The bound passes an opaque zero (see `real_lib::bit_helper`).
            DType::Float64 if self.opts.shader_int64 => {
                let z = opaque_zero_u32(&self.zero_word);
                format!(
                    "((bitcast<u64>({s}) & 0x7ffffffffffffffflu) > (0x7ff0000000000000lu + u64({z})))"
                )
            }
            DType::Float64 => format!("(!({s} == {s}))"),
            _ => {
                let z = opaque_zero_u32(&self.zero_word);
                let name = self.helper("isnan_f32", || {
                    format!(
                        "fn isnan_f32(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) > (0x7f800000u + {z}); }}\n"
                    )
                });
                format!("{name}({s})")
            }
        }
    }
}
