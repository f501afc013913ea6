//! C++ types of dtypes, literals, load/store conversions, float16/bfloat16 rounding and casts.

use crate::dtype::DType;
use crate::error::Error;
use crate::scalar::Scalar;

/// The refusal of an op NumPy defines no complex loop for.
pub(super) fn complex_unsupported(op: impl std::fmt::Debug, d: DType) -> Error {
    Error::DTypeNotSupported {
        op: format!("{op:?}"),
        dtype: d,
        device: "C++ emitter".into(),
        reason: format!("{op:?} is not defined for complex numbers"),
    }
}

/// Storage (in-memory) C type of a dtype.
pub fn storage_type(d: DType) -> &'static str {
    match d {
        DType::Bool | DType::UInt8 => "cp_u8",
        DType::Int8 => "cp_i8",
        DType::Int16 => "cp_i16",
        DType::Int32 => "cp_i32",
        DType::Int64 => "cp_i64",
        DType::UInt16 | DType::Float16 | DType::BFloat16 => "cp_u16",
        DType::UInt32 => "cp_u32",
        DType::UInt64 => "cp_u64",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "cp_c64",
        DType::Complex128 => "cp_c128",
    }
}

/// Compute (register) C type of a dtype.
pub fn compute_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Float16 | DType::BFloat16 | DType::Float32 => "float",
        d => storage_type(d),
    }
}

pub(super) fn is_f32ish(d: DType) -> bool {
    matches!(d, DType::Float16 | DType::BFloat16 | DType::Float32)
}

/// Converts a storage value to its compute value.
pub(super) fn load_conv(d: DType, s: &str) -> String {
    match d {
        DType::Bool => format!("(({s}) != 0)"),
        DType::Float16 => format!("cp_h2f({s})"),
        DType::BFloat16 => format!("cp_bf2f({s})"),
        _ => s.to_string(),
    }
}

/// Converts a compute value to its storage value.
pub(super) fn store_conv(d: DType, s: &str) -> String {
    match d {
        DType::Bool => format!("((cp_u8)({s}))"),
        DType::Float16 => format!("cp_f2h({s})"),
        DType::BFloat16 => format!("cp_f2bf({s})"),
        _ => s.to_string(),
    }
}

/// Rounds an arithmetic result of a float16/bfloat16 node.
pub(super) fn round_to(d: DType, s: String) -> String {
    match d {
        DType::Float16 => format!("cp_rh({s})"),
        DType::BFloat16 => format!("cp_rbf({s})"),
        _ => s,
    }
}

fn float_lit(v: f64, single: bool) -> String {
    if v.is_finite() {
        let mut s = if single {
            format!("{:?}", v as f32)
        } else {
            format!("{v:?}")
        };
        if !s.contains(['.', 'e', 'E']) {
            s.push_str(".0");
        }
        if single {
            s.push('f');
        }
        format!("({s})")
    } else if single {
        format!("__uint_as_float(0x{:08x}u)", (v as f32).to_bits())
    } else {
        format!("__longlong_as_double(0x{:016x}ll)", v.to_bits())
    }
}

/// A C++ literal of the compute type of `s`.
pub(super) fn literal(s: Scalar) -> String {
    match s {
        Scalar::Bool(b) => (if b { "true" } else { "false" }).into(),
        Scalar::Int8(v) => format!("((cp_i8){v})"),
        Scalar::Int16(v) => format!("((cp_i16){v})"),
        Scalar::Int32(v) => format!("((cp_i32){}ll)", v),
        Scalar::Int64(v) if v == i64::MIN => "((cp_i64)(-9223372036854775807ll - 1))".into(),
        Scalar::Int64(v) => format!("((cp_i64){v}ll)"),
        Scalar::UInt8(v) => format!("((cp_u8){v}u)"),
        Scalar::UInt16(v) => format!("((cp_u16){v}u)"),
        Scalar::UInt32(v) => format!("((cp_u32){v}u)"),
        Scalar::UInt64(v) => format!("((cp_u64){v}ull)"),
        Scalar::Float16(v) => float_lit(v.to_f64(), true),
        Scalar::BFloat16(v) => float_lit(v.to_f64(), true),
        Scalar::Float32(v) => float_lit(v as f64, true),
        Scalar::Float64(v) => float_lit(v, false),
        Scalar::Complex64(c) => format!(
            "cp_cmake({}, {})",
            float_lit(c.re as f64, true),
            float_lit(c.im as f64, true)
        ),
        Scalar::Complex128(c) => format!(
            "cp_cmake({}, {})",
            float_lit(c.re, false),
            float_lit(c.im, false)
        ),
    }
}

/// A C++ zero of the compute type of `d` (complex: both parts +0).
pub(super) fn zero_value(d: DType) -> String {
    match d {
        DType::Complex64 => "cp_cmake(0.0f, 0.0f)".into(),
        DType::Complex128 => "cp_cmake(0.0, 0.0)".into(),
        d => format!("({})0", compute_type(d)),
    }
}

/// Casts from or to a complex dtype ([`crate::Scalar::cast`]: complex -> real takes the real
/// part, complex -> bool is `re != 0 || im != 0`, real -> complex has a +0 imaginary part).
fn complex_cast(from: DType, to: DType, e: &str) -> String {
    match (from, to) {
        (DType::Complex128, DType::Complex64) => format!("cp_to_c64({e})"),
        (DType::Complex64, DType::Complex128) => format!("cp_to_c128({e})"),
        (f, DType::Bool) if f.is_complex() => format!("cp_cnonzero({e})"),
        (f, t) if f.is_complex() => cast_expr(f.real_dtype(), t, &format!("({e}).re")),
        (f, t) => {
            let r = t.real_dtype();
            format!("cp_cmake({}, ({})0)", cast_expr(f, r, e), compute_type(r))
        }
    }
}

/// C++ for casting compute value `e` of dtype `from` to dtype `to` (Scalar::cast semantics).
pub(super) fn cast_expr(from: DType, to: DType, e: &str) -> String {
    if from == to {
        return e.to_string();
    }
    if from.is_complex() || to.is_complex() {
        return complex_cast(from, to, e);
    }
    if to == DType::Bool {
        return format!("(({e}) != 0)");
    }
    let from_float = from.is_float();
    match to {
        DType::Float16 => {
            if from == DType::Float32 || from == DType::BFloat16 {
                format!("cp_rh({e})")
            } else {
                format!("cp_h2f(cp_d2h((double)({e})))")
            }
        }
        DType::BFloat16 => {
            if from == DType::Float32 || from == DType::Float16 {
                format!("cp_rbf({e})")
            } else {
                format!("cp_bf2f(cp_d2bf((double)({e})))")
            }
        }
        DType::Float32 => format!("((float)({e}))"),
        DType::Float64 => format!("((double)({e}))"),
        t if t.is_integer() && from_float => {
            let f = match t {
                DType::Int8 => "cp_d2i8",
                DType::Int16 => "cp_d2i16",
                DType::Int32 => "cp_d2i32",
                DType::Int64 => "cp_d2i64",
                DType::UInt8 => "cp_d2u8",
                DType::UInt16 => "cp_d2u16",
                DType::UInt32 => "cp_d2u32",
                _ => "cp_d2u64",
            };
            format!("{f}((double)({e}))")
        }
        t => format!("(({})({e}))", compute_type(t)),
    }
}
