//! Casts between dtypes (`Scalar::cast` semantics, float -> integer helpers).

use super::emitter::{f32lit, f64lit, i32lit, i64lit, WgslEmitter};
use crate::dtype::DType;
use crate::scalar::Scalar;

impl WgslEmitter {
    pub(super) fn cast(&mut self, s: String, from: DType, to: DType) -> String {
        if from == to {
            return s;
        }
        let (ft, tt) = (self.vty(from), self.vty(to));
        if to == DType::Bool {
            return self.truthy(from, &s, false);
        }
        if from == DType::Bool {
            let (one, zero) = (self.lit(Scalar::one(to)), self.lit(Scalar::zero(to)));
            return format!("select({zero}, {one}, {s})");
        }
        let round = |em: &mut WgslEmitter, v: String| -> String {
            match to {
                DType::Float16 => em.store_conv(DType::Float16, v),
                DType::BFloat16 => em.store_conv(DType::BFloat16, v),
                _ => v,
            }
        };
        if from.is_integer() && to.is_integer() {
            let v = match (ft, tt) {
                (a, b) if a == b => s,
                ("i32", "u32") | ("u32", "i32") | ("i64", "u64") | ("u64", "i64") => {
                    format!("bitcast<{tt}>({s})")
                }
                ("u32", "i64") => format!("bitcast<i64>(u64({s}))"),
                ("i32", "u64") => format!("bitcast<u64>(i64({s}))"),
                _ => format!("{tt}({s})"),
            };
            return self.wrap(to, v);
        }
        if from.is_integer() && to.is_float() {
            let v = format!("{tt}({s})");
            return round(self, v);
        }
        if from.is_float() && to.is_float() {
            let v = if ft == tt { s } else { format!("{tt}({s})") };
            return round(self, v);
        }
        // float -> integer: truncate toward zero, saturate (NaN -> 0), as `Scalar::cast`.
        let name = format!("cast_{ft}_{}", to.name());
        let h = self.helper(&name, || float_to_int(&name, ft, tt, to));
        format!("{h}({s})")
    }
}

/// A float -> integer conversion helper with `Scalar::cast` semantics.
fn float_to_int(name: &str, ft: &str, tt: &str, to: DType) -> String {
    let fl = |x: f64| -> String {
        if ft == "f64" {
            f64lit(x)
        } else {
            f32lit(x as f32)
        }
    };
    let zero = if tt.ends_with("64") {
        format!("0{}", if tt == "i64" { "li" } else { "lu" })
    } else if tt == "i32" {
        "0i".into()
    } else {
        "0u".into()
    };
    let body = match to {
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 if tt.starts_with('i') => {
            let bits = if tt == "i64" && to == DType::Int64 {
                64
            } else {
                to.bits().min(32) as i32
            };
            let lim = fl(2f64.powi(bits - 1));
            let nlim = fl(-(2f64.powi(bits - 1)));
            let (max, min) = if bits == 64 {
                (i64lit(i64::MAX), i64lit(i64::MIN))
            } else {
                let m = (1i64 << (bits - 1)) - 1;
                (i32lit(m), i32lit(-m - 1))
            };
            format!(
                "  if (!(x == x)) {{ return {zero}; }}\n  if (x >= {lim}) {{ return {max}; }}\n  if (x <= {nlim}) {{ return {min}; }}\n  return {tt}(x);\n"
            )
        }
        DType::UInt64 if tt == "u64" => {
            let lim = fl(2f64.powi(64));
            format!(
                "  if (!(x == x) || x <= {}) {{ return 0lu; }}\n  if (x >= {lim}) {{ return 18446744073709551615lu; }}\n  return u64(x);\n",
                fl(0.0)
            )
        }
        _ => {
            // `f as i64 as uN` (also narrow-mode Int64/UInt64 as 32-bit): saturate at the i64
            // range, then keep the low bits.
            let mask = match to {
                DType::UInt8 => "0xffu",
                DType::UInt16 => "0xffffu",
                _ => "0xffffffffu",
            };
            format!(
                "  if (!(x == x)) {{ return {zero}; }}
  let t = trunc(x);
  var m: u32;
  if (t >= {p63}) {{ m = {mask}; }}
  else if (t <= {n63}) {{ m = 0u; }}
  else if (abs(t) < {p31}) {{ m = bitcast<u32>(i32(t)) & {mask}; }}
  else {{
    let q = t - floor(t / {p32}) * {p32};
    m = u32(q) & {mask};
  }}
  return m;
",
                p63 = fl(2f64.powi(63)),
                n63 = fl(-(2f64.powi(63))),
                p32 = fl(2f64.powi(32)),
                p31 = fl(2f64.powi(31)),
            )
        }
    };
    format!("fn {name}(x: {ft}) -> {tt} {{\n{body}}}\n")
}
