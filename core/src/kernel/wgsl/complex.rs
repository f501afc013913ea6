//! complex64/complex128 as `vec2<f32>`/`vec2<f64>` (re, im): unary and binary operators, casts,
//! and the helper library ([`super::complex_lib`]) emitted only when a kernel uses it.
//!
//! complex128 needs `SHADER_F64`; its functions built on float64 `exp`, `log`, `sin`, `cos`,
//! `tan`, `atan2` use the software float64 library ([`super::real_lib64`], which also needs
//! `SHADER_INT64`).

use super::complex_lib::HELPERS;
use super::emitter::{f32lit, f64lit, opaque_infinity, opaque_zero_u32, WgslEmitter};
use super::real_lib::{bit_helper, sincos_large, BitOpts, REAL_HELPERS};
use super::real_lib64::{REAL_HELPERS_F64, TWO_OVER_PI_1280};
use super::WgslOptions;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{BinaryOp, UnaryOp};

/// The placeholder values of the part type `t` (longest names first: `$T` is a prefix of some).
fn substitutions(t: &str, int64: bool, zero_word: &str) -> Vec<(&'static str, String)> {
    let f = |x: f64| {
        if t == "f32" {
            f32lit(x as f32)
        } else {
            f64lit(x)
        }
    };
    let p2 = |k: i32| f(2f64.powi(k));
    let pi = std::f64::consts::PI;
    let f32_ = t == "f32";
    vec![
        ("$TANH1", f(if f32_ { 11.0 } else { 22.0 })),
        ("$TINY", p2(if f32_ { -60 } else { -500 })),
        ("$HUGE", p2(if f32_ { 60 } else { 500 })),
        ("$DOWNINV", p2(if f32_ { -100 } else { -600 })),
        ("$DOWN", p2(if f32_ { -70 } else { -600 })),
        ("$UPINV", p2(if f32_ { 70 } else { 600 })),
        ("$UP", p2(if f32_ { 100 } else { 600 })),
        ("$SQBIG", f(if f32_ { 1e37 } else { 1e307 })),
        ("$SQTINY", f(if f32_ { 1e-37 } else { 1e-307 })),
        ("$SQUP", p2(if f32_ { 24 } else { 54 })),
        ("$SQDOWN", p2(if f32_ { -12 } else { -27 })),
        ("$BIG", f(if f32_ { 9.0 } else { 20.0 })),
        ("$OVF", f(if f32_ { 88.0 } else { 709.0 })),
        ("$PI34", f(0.75 * pi)),
        ("$PI4", f(0.25 * pi)),
        ("$PI2", f(0.5 * pi)),
        ("$PI", f(pi)),
        ("$INF", opaque_infinity(t, int64, zero_word)),
        ("$NAN", f(f64::NAN)),
    ]
}

impl WgslEmitter {
    /// The part type of a complex dtype.
    fn part(&self, d: DType) -> &'static str {
        if d == DType::Complex128 {
            "f64"
        } else {
            "f32"
        }
    }

    /// The refusal of a float64 helper that exists only in float32 (none today: every one has
    /// a software float64 version in [`super::real_lib64`]).
    fn c128_refusal(&self, op: &str) -> Error {
        self.unsupported(
            op,
            DType::Complex128,
            &format!("{op} on float64 parts has no software float64 version in the WGSL library"),
        )
    }

    /// The refusal of software float64 math on an adapter without 64-bit integers (it works on
    /// the bits of float64 values as `u64`).
    fn int64_refusal(&self, op: &str, d: DType) -> Error {
        let real = if d.is_complex() { d } else { DType::Float64 };
        self.unsupported(
            op,
            real,
            &format!(
                "{op} on float64 is computed in software (Vulkan's GLSL.std.450 {op} is defined \
                 for 16/32-bit floats only), which needs SHADER_INT64, and this adapter lacks it"
            ),
        )
    }

    /// Emits complex helper `name` for the parts of `d` (with the helpers it calls) and returns
    /// its function name; `op` names the operation in a refusal.
    pub(super) fn cx_helper(&mut self, op: &str, name: &str, d: DType) -> Result<String> {
        let t = self.part(d);
        let fname = format!("{name}_{t}");
        if self.helpers.iter().any(|(n, _)| *n == fname) {
            return Ok(fname);
        }
        let f64_override = if t == "f64" {
            REAL_HELPERS_F64.iter().find(|h| h.name == name)
        } else {
            None
        };
        let h = match f64_override {
            Some(h) => h,
            None => HELPERS
                .iter()
                .chain(REAL_HELPERS)
                .find(|h| h.name == name)
                .ok_or_else(|| Error::invalid("wgsl complex", format!("no helper {name}")))?,
        };
        if h.f32_only && t == "f64" {
            return Err(self.c128_refusal(op));
        }
        if f64_override.is_some() && !self.opts.shader_int64 {
            return Err(self.int64_refusal(op, d));
        }
        let oz = self.opaque_zero(t);
        let zu = opaque_zero_u32(&self.zero_word);
        let bits = BitOpts {
            shader_f64: self.opts.shader_f64,
            int64: self.opts.shader_int64,
            oz: &oz,
            zu: &zu,
            fused_fma: self.opts.fused_fma,
        };
        let src = match bit_helper(name, t, &bits) {
            Some(s) => s,
            None => {
                let mut s = h.src.to_string();
                if s.contains("$LARGE") {
                    let wide = self.opts.shader_f64 && self.opts.shader_int64;
                    s = s.replace("$LARGE", &sincos_large(wide));
                }
                if s.contains("$TWOOPI") {
                    let words: Vec<String> = TWO_OVER_PI_1280
                        .iter()
                        .map(|w| format!("{w:#x}u"))
                        .collect();
                    s = s.replace("$TWOOPI", &words.join(", "));
                }
                if s.contains("$GUARD") {
                    s = s.replace("$GUARD", &self.guard_line("n >= mask"));
                }
                for (k, v) in substitutions(t, self.opts.shader_int64, &self.zero_word) {
                    s = s.replace(k, &v);
                }
                s.replace("$T", t)
            }
        };
        // Registered before the dependencies: recursion stops at a helper already present.
        self.helpers.push((fname.clone(), src));
        for dep in h.deps {
            self.cx_helper(op, dep, d)?;
        }
        Ok(fname)
    }

    /// A unary op on a complex operand `a` of dtype `d`; `res` is the node's dtype.
    pub(super) fn complex_unary(
        &mut self,
        op: UnaryOp,
        res: DType,
        d: DType,
        a: String,
    ) -> Result<String> {
        let t = self.part(d);
        let opname = format!("{op:?}").to_lowercase();
        let call = |em: &mut WgslEmitter, name: &str| -> Result<String> {
            let h = em.cx_helper(&opname, name, d)?;
            Ok(format!("{h}({a})"))
        };
        Ok(match op {
            UnaryOp::Neg => format!("(-{a})"),
            UnaryOp::Conj => format!("({a} * vec2<{t}>(1.0, -1.0))"),
            UnaryOp::Real => format!("({a}).x"),
            UnaryOp::Imag => format!("({a}).y"),
            UnaryOp::Abs => {
                let v = call(self, "cx_abs")?;
                if res.is_complex() {
                    format!("vec2<{t}>({v}, {})", self.opaque_zero(t))
                } else {
                    self.cast(v, d.real_dtype(), res)
                }
            }
            UnaryOp::Not => format!("(!{})", call(self, "cx_nonzero")?),
            UnaryOp::Sqrt => call(self, "cx_sqrt")?,
            UnaryOp::Exp => call(self, "cx_exp")?,
            UnaryOp::Log => call(self, "cx_log")?,
            UnaryOp::Sin => call(self, "cx_sin")?,
            UnaryOp::Cos => call(self, "cx_cos")?,
            UnaryOp::Tan => call(self, "cx_tan")?,
            UnaryOp::Tanh => call(self, "cx_tanh")?,
            UnaryOp::IsNan => call(self, "cx_nan")?,
            UnaryOp::IsInf => call(self, "cx_isinf")?,
            UnaryOp::IsFinite => call(self, "cx_isfin")?,
            UnaryOp::BitNot | UnaryOp::Floor | UnaryOp::Ceil => {
                return Err(self.unsupported(
                    &opname,
                    d,
                    &format!("{op:?} is not defined for complex numbers"),
                ))
            }
        })
    }

    /// A binary op on complex operands of dtype `d` (NumPy's loops), or [`BinaryOp::Complex`]
    /// building one from two parts of dtype `d`.
    pub(super) fn complex_binary(
        &mut self,
        op: BinaryOp,
        d: DType,
        db: DType,
        a: String,
        b: String,
    ) -> Result<String> {
        if op == BinaryOp::Complex {
            let t = if d == DType::Float64 { "f64" } else { "f32" };
            let (x, y) = (self.cast(a, d, d), self.cast(b, db, d));
            return Ok(format!("vec2<{t}>({x}, {y})"));
        }
        if d != db {
            return Err(Error::invalid(
                format!("wgsl:{}", self.kname),
                format!("{op:?} of {d} and {db}"),
            ));
        }
        let opname = format!("{op:?}").to_lowercase();
        let call = |em: &mut WgslEmitter, name: &str, x: &str, y: &str| -> Result<String> {
            let h = em.cx_helper(&opname, name, d)?;
            Ok(format!("{h}({x}, {y})"))
        };
        Ok(match op {
            BinaryOp::Add => format!("({a} + {b})"),
            BinaryOp::Sub => format!("({a} - {b})"),
            BinaryOp::Mul => call(self, "cx_mul", &a, &b)?,
            BinaryOp::Div => call(self, "cx_div", &a, &b)?,
            BinaryOp::Pow => call(self, "cx_pow", &a, &b)?,
            BinaryOp::Max => call(self, "cx_max", &a, &b)?,
            BinaryOp::Min => call(self, "cx_min", &a, &b)?,
            BinaryOp::FMax => call(self, "cx_fmax", &a, &b)?,
            BinaryOp::FMin => call(self, "cx_fmin", &a, &b)?,
            BinaryOp::Eq => call(self, "cx_eq", &a, &b)?,
            BinaryOp::Ne => call(self, "cx_ne", &a, &b)?,
            BinaryOp::Lt => call(self, "cx_lt", &a, &b)?,
            BinaryOp::Le => call(self, "cx_le", &a, &b)?,
            BinaryOp::Gt => call(self, "cx_lt", &b, &a)?,
            BinaryOp::Ge => call(self, "cx_le", &b, &a)?,
            BinaryOp::FloorDiv
            | BinaryOp::Mod
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::Atan2
            | BinaryOp::MulHi
            | BinaryOp::Complex => {
                return Err(self.unsupported(
                    &opname,
                    d,
                    &format!("{op:?} is not defined for complex numbers"),
                ))
            }
        })
    }

    /// Casts from or to a complex dtype ([`crate::Scalar::cast`]: complex -> real takes the real
    /// part, complex -> bool is `re != 0 || im != 0`, real -> complex has a +0 imaginary part).
    pub(super) fn complex_cast(&mut self, s: String, from: DType, to: DType) -> Result<String> {
        Ok(match (from.is_complex(), to.is_complex()) {
            (true, true) => format!("vec2<{}>({s})", self.part(to)),
            (true, false) if to == DType::Bool => {
                let h = self.cx_helper("astype", "cx_nonzero", from)?;
                format!("{h}({s})")
            }
            (true, false) => self.cast(format!("({s}).x"), from.real_dtype(), to),
            (false, _) => {
                let t = self.part(to);
                let re = self.cast(s, from, to.real_dtype());
                format!("vec2<{t}>({re}, {})", self.opaque_zero(t))
            }
        })
    }
}

/// The WGSL source of the complex helpers `names` (e.g. `"cx_mul"`, `"cx_lt"`; with the helpers
/// they call) for the parts of the complex `dtype`, for hand-written shaders (the wgpu backend's
/// scan and sort), and the function name of each. `zero_word` is a `u32` expression of the
/// shader that the backend knows to be below 2^31 (it makes zeros the compiler cannot fold).
///
/// # Errors
/// `DTypeNotSupported` for a complex128 helper of the software float64 library on an adapter
/// without `SHADER_INT64`;
/// `InvalidArgument` for an unknown name.
pub fn complex_helpers(
    names: &[&str],
    dtype: DType,
    opts: &WgslOptions,
    zero_word: &str,
) -> Result<(Vec<String>, String)> {
    let mut em = WgslEmitter::new(opts, true, "complex helpers");
    em.zero_word = zero_word.into();
    let fns = names
        .iter()
        .map(|n| em.cx_helper(n, n, dtype))
        .collect::<Result<Vec<_>>>()?;
    let src = em.helpers.iter().map(|(_, s)| s.as_str()).collect();
    Ok((fns, src))
}
