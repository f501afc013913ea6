//! Type names (NumPy's and C's) and the usual arithmetic conversions, with NumPy-style weak
//! literals.

use crate::dtype::DType;
use crate::scalar::Scalar;

/// A resolved type name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// A concrete dtype.
    D(DType),
    /// `auto`: the initialiser's type.
    Auto,
}

/// Qualifiers and specifiers ignored in type names.
pub(crate) fn is_qualifier(w: &str) -> bool {
    matches!(
        w,
        "const"
            | "__device__"
            | "__host__"
            | "__forceinline__"
            | "__inline__"
            | "inline"
            | "static"
            | "volatile"
            | "register"
            | "constexpr"
            | "__restrict__"
    )
}

/// Resolves a type written with `words` (`["unsigned", "int"]`, `["T"]`, `["const", "float"]`).
pub(crate) fn resolve_type<S: AsRef<str>>(words: &[S], types: &[(String, DType)]) -> Option<Ty> {
    use DType::*;
    let ws: Vec<&str> = words
        .iter()
        .map(|w| w.as_ref())
        .filter(|w| !is_qualifier(w))
        .collect();
    let joined = ws.join(" ");
    let d = match joined.as_str() {
        "auto" => return Some(Ty::Auto),
        "bool" => Bool,
        "int8" | "char" | "signed char" | "int8_t" => Int8,
        "uint8" | "unsigned char" | "uint8_t" => UInt8,
        "int16" | "short" | "short int" | "signed short" | "signed short int" | "int16_t" => Int16,
        "uint16" | "unsigned short" | "unsigned short int" | "uint16_t" => UInt16,
        "int32" | "int" | "signed" | "signed int" | "int32_t" => Int32,
        "uint32" | "unsigned" | "unsigned int" | "uint32_t" => UInt32,
        "int64" | "long" | "long int" | "signed long" | "long long" | "long long int"
        | "signed long long" | "int64_t" | "ptrdiff_t" | "ssize_t" => Int64,
        "uint64"
        | "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t" => UInt64,
        "float16" | "half" | "__half" => Float16,
        "bfloat16" | "__nv_bfloat16" | "__hip_bfloat16" => BFloat16,
        "float32" | "float" => Float32,
        "float64" | "double" => Float64,
        "complex64" => Complex64,
        "complex128" => Complex128,
        w if w.starts_with("complex<") && w.ends_with('>') => {
            // `complex<float>`, `complex<double>`, `complex<T>` (T a float placeholder).
            let inner: Vec<&str> = w["complex<".len()..w.len() - 1].split(' ').collect();
            return match resolve_type(&inner, types) {
                Some(Ty::D(Float32)) => Some(Ty::D(Complex64)),
                Some(Ty::D(Float64)) => Some(Ty::D(Complex128)),
                _ => None,
            };
        }
        w => return types.iter().find(|(n, _)| n == w).map(|(_, d)| Ty::D(*d)),
    };
    Some(Ty::D(d))
}

/// Words that cannot be used as parameter or variable names.
pub(crate) fn is_reserved_name(w: &str) -> bool {
    matches!(
        w,
        "i" | "_ind"
            | "_in_ind"
            | "_out_ind"
            | "_J"
            | "if"
            | "else"
            | "for"
            | "while"
            | "do"
            | "return"
            | "break"
            | "continue"
            | "true"
            | "false"
            | "raw"
            | "auto"
            | "void"
            | "static_cast"
    ) || is_qualifier(w)
        || resolve_type(&[w], &[]).is_some()
}

/// C's integer promotion: types narrower than `int` (and bool) become `int32`.
pub(crate) fn promote_int(d: DType) -> DType {
    match d {
        DType::Bool | DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 => DType::Int32,
        d => d,
    }
}

fn float_rank(d: DType) -> u8 {
    match d {
        DType::Float16 | DType::BFloat16 => 1,
        DType::Float32 => 2,
        _ => 3,
    }
}

/// C's usual arithmetic conversions for two (strong) operand types.
pub(crate) fn usual(a: DType, b: DType) -> DType {
    if a.is_complex() || b.is_complex() {
        return if a == DType::Complex128
            || b == DType::Complex128
            || a == DType::Float64
            || b == DType::Float64
        {
            DType::Complex128
        } else {
            DType::Complex64
        };
    }
    match (a.is_float(), b.is_float()) {
        (true, true) => {
            if a == b {
                a
            } else if float_rank(a) == float_rank(b) {
                DType::Float32 // float16 with bfloat16
            } else if float_rank(a) > float_rank(b) {
                a
            } else {
                b
            }
        }
        (true, false) => a,
        (false, true) => b,
        (false, false) => {
            let (a, b) = (promote_int(a), promote_int(b));
            if a == b {
                a
            } else if a.is_signed_integer() == b.is_signed_integer() {
                if a.itemsize() >= b.itemsize() {
                    a
                } else {
                    b
                }
            } else {
                let (u, s) = if a.is_unsigned_integer() {
                    (a, b)
                } else {
                    (b, a)
                };
                if u.itemsize() >= s.itemsize() {
                    u
                } else {
                    s
                }
            }
        }
    }
}

/// The common type of a weak literal of type `weak` with a strong operand of type `t`.
pub(crate) fn weak_with(weak: DType, t: DType) -> DType {
    if weak.is_float() {
        if t.is_inexact() {
            t
        } else {
            DType::Float64
        }
    } else if t.is_inexact() {
        t
    } else {
        promote_int(t)
    }
}

/// A literal's exact value (weak literals are re-typed from it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Lit {
    I(i128),
    F(f64),
}

impl Lit {
    /// The value as a scalar of `t`.
    pub(crate) fn scalar(self, t: DType) -> Scalar {
        match self {
            Lit::I(i) => {
                if let Ok(v) = i64::try_from(i) {
                    Scalar::Int64(v).cast(t)
                } else {
                    Scalar::UInt64(i as u64).cast(t)
                }
            }
            Lit::F(f) => Scalar::Float64(f).cast(t),
        }
    }
}

/// Parses an integer literal (`42`, `0x1F`, `017`, `10u`, `5ll`): its value and C type.
pub(crate) fn int_literal(text: &str) -> Result<(u128, DType, bool), String> {
    let lower = text.to_ascii_lowercase();
    let (digits, suffix) = {
        let hex = lower.starts_with("0x");
        let body_start = if hex { 2 } else { 0 };
        let end = lower[body_start..]
            .find(['u', 'l'])
            .map_or(lower.len(), |p| p + body_start);
        (&lower[..end], &lower[end..])
    };
    let v = if let Some(h) = digits.strip_prefix("0x") {
        u128::from_str_radix(h, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u128::from_str_radix(&digits[1..], 8)
            .map_err(|_| format!("invalid octal literal `{text}`"))?;
        u128::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<u128>()
    }
    .map_err(|_| format!("integer literal `{text}` is too large"))?;
    if v > u64::MAX as u128 {
        return Err(format!("integer literal `{text}` is too large"));
    }
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let t = if unsigned {
        if !long && v <= u32::MAX as u128 {
            DType::UInt32
        } else {
            DType::UInt64
        }
    } else if !long && v <= i32::MAX as u128 {
        DType::Int32
    } else if v <= i64::MAX as u128 {
        DType::Int64
    } else {
        DType::UInt64
    };
    Ok((v, t, suffix.is_empty()))
}

/// Parses a float literal (`1.5`, `2.`, `.5`, `1e-3`, `1.0f`): its scalar and whether it is weak.
pub(crate) fn float_literal(text: &str) -> Result<(Scalar, bool), String> {
    let (body, suf) = match text.chars().last() {
        Some('f' | 'F') => (&text[..text.len() - 1], 'f'),
        Some('l' | 'L') => (&text[..text.len() - 1], 'l'),
        _ => (text, ' '),
    };
    let bad = || format!("invalid float literal `{text}`");
    Ok(match suf {
        'f' => (
            Scalar::Float32(body.parse::<f32>().map_err(|_| bad())?),
            false,
        ),
        'l' => (
            Scalar::Float64(body.parse::<f64>().map_err(|_| bad())?),
            false,
        ),
        _ => (
            Scalar::Float64(body.parse::<f64>().map_err(|_| bad())?),
            true,
        ),
    })
}
