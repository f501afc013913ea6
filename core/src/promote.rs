//! Type promotion: NumPy 2's rules (NEP 50), with Rust scalars as *weak* scalars.
//!
//! `promote_types` is `numpy.promote_types`; `result_type` takes arrays' dtypes (strong) and
//! weak scalars, as `numpy.result_type` does for Python scalars under NEP 50:
//! a weak scalar only decides the *kind* (bool < integer < float < complex); the precision comes
//! from the arrays. `f32_array * 2.0` stays float32; `uint8_array + 300` is an error.

use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use num_complex::Complex;

/// A Rust scalar used as an operand: weak, like a Python scalar under NEP 50.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeakScalar {
    /// `true`/`false`.
    Bool(bool),
    /// Any Rust integer.
    Int(i128),
    /// `f32` or `f64`.
    Float(f64),
    /// A complex number.
    Complex(Complex<f64>),
}

impl WeakScalar {
    /// NumPy's default dtype for the scalar alone (`bool`, `int64`, `float64`, `complex128`).
    pub fn default_dtype(self) -> DType {
        match self {
            WeakScalar::Bool(_) => DType::Bool,
            WeakScalar::Int(_) => DType::Int64,
            WeakScalar::Float(_) => DType::Float64,
            WeakScalar::Complex(_) => DType::Complex128,
        }
    }

    fn kind(self) -> Kind {
        match self {
            WeakScalar::Bool(_) => Kind::Bool,
            WeakScalar::Int(_) => Kind::Int,
            WeakScalar::Float(_) => Kind::Float,
            WeakScalar::Complex(_) => Kind::Complex,
        }
    }

    /// Converts to `dtype`.
    ///
    /// # Errors
    /// [`Error::ScalarOverflow`] if an integer does not fit an integer `dtype` (NEP 50).
    pub fn to_scalar(self, op: &str, dtype: DType) -> Result<Scalar> {
        match self {
            WeakScalar::Bool(b) => Ok(Scalar::Bool(b).cast(dtype)),
            WeakScalar::Int(i) => {
                if dtype.is_integer() {
                    let (lo, hi) = int_range(dtype);
                    if i < lo || i > hi {
                        return Err(Error::ScalarOverflow {
                            op: op.into(),
                            value: i.to_string(),
                            dtype,
                        });
                    }
                }
                if i >= i64::MIN as i128 && i <= i64::MAX as i128 {
                    Ok(Scalar::Int64(i as i64).cast(dtype))
                } else if i >= 0 && i <= u64::MAX as i128 {
                    Ok(Scalar::UInt64(i as u64).cast(dtype))
                } else {
                    Ok(Scalar::Float64(i as f64).cast(dtype))
                }
            }
            WeakScalar::Float(f) => Ok(Scalar::Float64(f).cast(dtype)),
            WeakScalar::Complex(c) => Ok(Scalar::Complex128(c).cast(dtype)),
        }
    }
}

/// Inclusive range of an integer dtype.
pub fn int_range(dtype: DType) -> (i128, i128) {
    match dtype {
        DType::Bool => (0, 1),
        DType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DType::UInt8 => (0, u8::MAX as i128),
        DType::UInt16 => (0, u16::MAX as i128),
        DType::UInt32 => (0, u32::MAX as i128),
        DType::UInt64 => (0, u64::MAX as i128),
        _ => (i128::MIN, i128::MAX),
    }
}

/// The smallest float type that holds every value of an integer (or bool) type, as NumPy
/// promotes integers with floats: 8-bit -> float16, 16-bit -> float32, 32/64-bit -> float64.
fn float_for_int(d: DType) -> DType {
    match d.itemsize() {
        1 => DType::Float16,
        2 => DType::Float32,
        _ => DType::Float64,
    }
}

fn float_rank(d: DType) -> u8 {
    match d {
        DType::Float16 | DType::BFloat16 => 0,
        DType::Float32 => 1,
        _ => 2,
    }
}

/// `numpy.promote_types(a, b)`; bfloat16 follows ml_dtypes (bfloat16 with float16 -> float32).
pub fn promote_types(a: DType, b: DType) -> DType {
    use Kind::*;
    if a == b {
        return a;
    }
    let (ka, kb) = (a.kind(), b.kind());
    match (ka, kb) {
        (Bool, _) => b,
        (_, Bool) => a,
        (Int, Int) | (UInt, UInt) => {
            if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        (Int, UInt) | (UInt, Int) => {
            let (s, u) = if ka == Int { (a, b) } else { (b, a) };
            if s.itemsize() > u.itemsize() {
                s
            } else if u.itemsize() < 8 {
                DType::int_of_size(u.itemsize() * 2, true).expect("valid size")
            } else {
                DType::Float64
            }
        }
        (Int | UInt, Float) | (Float, Int | UInt) => {
            let (i, f) = if kb == Float { (a, b) } else { (b, a) };
            let need = float_for_int(i);
            if float_rank(need) <= float_rank(f)
                && !(need == DType::Float16 && f == DType::BFloat16)
            {
                f
            } else if f == DType::BFloat16 && need == DType::Float16 {
                DType::BFloat16
            } else {
                need
            }
        }
        (Float, Float) => {
            if float_rank(a) != float_rank(b) {
                if float_rank(a) > float_rank(b) {
                    a
                } else {
                    b
                }
            } else {
                // float16 with bfloat16
                DType::Float32
            }
        }
        (Complex, Complex) => {
            if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        (Complex, _) | (_, Complex) => {
            let (c, o) = if ka == Complex { (a, b) } else { (b, a) };
            let real = promote_types(
                c.real_dtype(),
                if o.is_complex() { o.real_dtype() } else { o },
            );
            if float_rank(real) >= 2 {
                DType::Complex128
            } else {
                c
            }
        }
    }
}

/// NEP 50 `result_type` of strong dtypes (arrays, typed scalars) and weak Rust scalars.
///
/// # Errors
/// [`Error::InvalidArgument`] if there is nothing to promote.
pub fn result_type(op: &str, strong: &[DType], weak: &[WeakScalar]) -> Result<DType> {
    let Some(mut t) = strong.iter().copied().reduce(promote_types) else {
        return weak
            .iter()
            .map(|w| w.default_dtype())
            .reduce(promote_types)
            .ok_or_else(|| Error::invalid(op, "at least one array or dtype is required"));
    };
    for w in weak {
        let wk = w.kind();
        if wk <= t.kind() || (wk == Kind::Int && t.kind() == Kind::UInt) {
            continue;
        }
        t = match wk {
            Kind::Bool => t,
            Kind::Int | Kind::UInt => DType::Int64,
            Kind::Float => {
                if t.is_complex() {
                    t
                } else {
                    DType::Float64
                }
            }
            Kind::Complex => {
                if t.is_float() {
                    if t == DType::Float64 {
                        DType::Complex128
                    } else {
                        DType::Complex64
                    }
                } else {
                    DType::Complex128
                }
            }
        };
    }
    Ok(t)
}

/// `numpy.can_cast(from, to, casting="same_kind")`.
pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
    let rank = |k: Kind| match k {
        Kind::Bool => 0,
        Kind::UInt => 1,
        Kind::Int => 2,
        Kind::Float => 3,
        Kind::Complex => 4,
    };
    rank(from.kind()) <= rank(to.kind())
}

/// NumPy's `casting=` rule of a ufunc call: which conversions of the inputs to the loop's dtypes,
/// and of the loop's result to `out`, are allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Casting {
    /// `'no'`: the dtypes must be identical.
    No,
    /// `'equiv'`: identical up to byte order (cupy-rs has native byte order only, so as `No`).
    Equiv,
    /// `'safe'`: only conversions that preserve every value (`numpy.can_cast(..., 'safe')`).
    Safe,
    /// `'same_kind'` (NumPy's default): safe conversions, or within a kind (float64 to float32).
    #[default]
    SameKind,
    /// `'unsafe'`: any conversion (C casts: float to int truncates, integers wrap).
    Unsafe,
}

impl Casting {
    /// NumPy's name (`"same_kind"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Casting::No => "no",
            Casting::Equiv => "equiv",
            Casting::Safe => "safe",
            Casting::SameKind => "same_kind",
            Casting::Unsafe => "unsafe",
        }
    }

    /// Parses NumPy's name.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (NumPy's `ValueError`) for another string.
    pub fn parse(s: &str) -> Result<Casting> {
        Ok(match s {
            "no" => Casting::No,
            "equiv" => Casting::Equiv,
            "safe" => Casting::Safe,
            "same_kind" => Casting::SameKind,
            "unsafe" => Casting::Unsafe,
            other => {
                return Err(Error::invalid(
                    "casting",
                    format!(
                        "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got '{other}')"
                    ),
                ))
            }
        })
    }
}

impl std::fmt::Display for Casting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `numpy.can_cast(from, to, casting)` for dtypes.
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::No | Casting::Equiv => from == to,
        Casting::Safe => from == to || promote_types(from, to) == to,
        Casting::SameKind => {
            from == to || promote_types(from, to) == to || can_cast_same_kind(from, to)
        }
        Casting::Unsafe => true,
    }
}

/// Whether a weak (Python) scalar may be converted to `to` under `casting`: NumPy 2 checks the
/// kind of an integer, float or complex scalar only (its value is checked when it is converted,
/// [`WeakScalar::to_scalar`]): an integer goes to any integer, float or complex dtype, a float
/// to floats and complex, a complex to complex. A bool is a strong `bool` there (`casting='no'`
/// refuses `int8_array + true`). `'unsafe'` allows every conversion.
pub fn can_cast_weak(w: WeakScalar, to: DType, casting: Casting) -> bool {
    if casting == Casting::Unsafe {
        return true;
    }
    match w {
        WeakScalar::Bool(_) => can_cast(DType::Bool, to, casting),
        WeakScalar::Int(_) => !to.is_bool(),
        WeakScalar::Float(_) => to.is_inexact(),
        WeakScalar::Complex(_) => to.is_complex(),
    }
}

macro_rules! weak_from {
    ($variant:ident: $($t:ty),*) => {$(
        impl From<$t> for WeakScalar {
            fn from(v: $t) -> WeakScalar {
                WeakScalar::$variant(v.into())
            }
        }
    )*};
}
weak_from!(Int: i8, i16, i32, i64, u8, u16, u32, u64);
weak_from!(Float: f32, f64);
impl From<bool> for WeakScalar {
    fn from(v: bool) -> WeakScalar {
        WeakScalar::Bool(v)
    }
}
impl From<Complex<f64>> for WeakScalar {
    fn from(v: Complex<f64>) -> WeakScalar {
        WeakScalar::Complex(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn numpy_promotion_table() {
        assert_eq!(promote_types(Int8, UInt8), Int16);
        assert_eq!(promote_types(Int64, UInt64), Float64);
        assert_eq!(promote_types(Int32, UInt32), Int64);
        assert_eq!(promote_types(UInt8, Float16), Float16);
        assert_eq!(promote_types(Int16, Float16), Float32);
        assert_eq!(promote_types(Int32, Float32), Float64);
        assert_eq!(promote_types(Int8, Float32), Float32);
        assert_eq!(promote_types(Bool, Int8), Int8);
        assert_eq!(promote_types(Float32, Complex64), Complex64);
        assert_eq!(promote_types(Float64, Complex64), Complex128);
        assert_eq!(promote_types(Float16, BFloat16), Float32);
    }

    #[test]
    fn nep50_weak_scalars() {
        assert_eq!(
            result_type("m", &[Float32], &[WeakScalar::Float(2.0)]).unwrap(),
            Float32
        );
        assert_eq!(
            result_type("m", &[Int8], &[WeakScalar::Int(2)]).unwrap(),
            Int8
        );
        assert_eq!(
            result_type("m", &[UInt8], &[WeakScalar::Int(2)]).unwrap(),
            UInt8
        );
        assert_eq!(
            result_type("m", &[Int32], &[WeakScalar::Float(2.0)]).unwrap(),
            Float64
        );
        assert_eq!(
            result_type("m", &[Bool], &[WeakScalar::Int(2)]).unwrap(),
            Int64
        );
        assert_eq!(
            result_type(
                "m",
                &[Float32],
                &[WeakScalar::Complex(Complex::new(0.0, 1.0))]
            )
            .unwrap(),
            Complex64
        );
        assert!(WeakScalar::Int(300).to_scalar("add", UInt8).is_err());
        assert!(WeakScalar::Int(-1).to_scalar("add", UInt8).is_err());
    }

    #[test]
    fn numpy_can_cast() {
        use Casting::*;
        assert!(can_cast(Int8, Int8, No) && !can_cast(Int8, Int16, No));
        assert!(can_cast(Int8, Int16, Safe) && !can_cast(Int16, Int8, Safe));
        assert!(can_cast(Int64, Float64, Safe) && !can_cast(Int16, Float16, Safe));
        assert!(!can_cast(UInt64, Int64, Safe) && can_cast(Bool, Complex64, Safe));
        assert!(can_cast(Float64, Float32, SameKind) && !can_cast(Float64, Int32, SameKind));
        assert!(can_cast(Float64, Bool, Unsafe));
        assert!(can_cast_weak(WeakScalar::Int(1), Int8, No));
        assert!(!can_cast_weak(WeakScalar::Float(1.5), Int8, SameKind));
        assert!(!can_cast_weak(WeakScalar::Int(1), Bool, Safe));
        assert_eq!(Casting::parse("same_kind").unwrap(), SameKind);
        assert!(Casting::parse("bogus").is_err());
        assert_eq!(WeakScalar::from(3i32), WeakScalar::Int(3));
    }
}
