//! Typed scalar values: kernel constants and parameters, fill values, reduction identities.

use crate::dtype::DType;
use half::{bf16, f16};
use num_complex::Complex;

/// One value of a known dtype.
///
/// Casts between scalars ([`Scalar::cast`]) follow C/NumPy `astype` rules: float to integer
/// truncates toward zero (out-of-range values saturate, where C leaves them undefined), integer
/// to narrower integer wraps, anything to bool is `!= 0`, complex to real drops the imaginary part.
///
/// Equality is identity: the same dtype and the same bytes (a NaN equals itself, `0.0` and
/// `-0.0` differ), consistent with `Hash`. Kernel caches key on IR constants this way; with
/// IEEE equality a kernel holding a NaN constant never found itself in the cache and was
/// re-emitted and reloaded on every call.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Scalar {
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float16(f16),
    BFloat16(bf16),
    Float32(f32),
    Float64(f64),
    Complex64(Complex<f32>),
    Complex128(Complex<f64>),
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Scalar) -> bool {
        if self.dtype() != other.dtype() {
            return false;
        }
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        let n = self.dtype().itemsize();
        self.write_le_bytes(&mut a[..n]);
        other.write_le_bytes(&mut b[..n]);
        a[..n] == b[..n]
    }
}

impl Eq for Scalar {}

impl std::hash::Hash for Scalar {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.dtype().hash(state);
        let mut bytes = [0u8; 16];
        let n = self.dtype().itemsize();
        self.write_le_bytes(&mut bytes[..n]);
        bytes[..n].hash(state);
    }
}

/// Applies `$body` with `$v` bound to the inner value of every variant.
#[macro_export]
#[doc(hidden)]
macro_rules! scalar_dispatch {
    ($s:expr, $v:ident => $body:expr) => {
        match $s {
            $crate::Scalar::Bool($v) => $body,
            $crate::Scalar::Int8($v) => $body,
            $crate::Scalar::Int16($v) => $body,
            $crate::Scalar::Int32($v) => $body,
            $crate::Scalar::Int64($v) => $body,
            $crate::Scalar::UInt8($v) => $body,
            $crate::Scalar::UInt16($v) => $body,
            $crate::Scalar::UInt32($v) => $body,
            $crate::Scalar::UInt64($v) => $body,
            $crate::Scalar::Float16($v) => $body,
            $crate::Scalar::BFloat16($v) => $body,
            $crate::Scalar::Float32($v) => $body,
            $crate::Scalar::Float64($v) => $body,
            $crate::Scalar::Complex64($v) => $body,
            $crate::Scalar::Complex128($v) => $body,
        }
    };
}

impl Scalar {
    /// The scalar's dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int8(_) => DType::Int8,
            Scalar::Int16(_) => DType::Int16,
            Scalar::Int32(_) => DType::Int32,
            Scalar::Int64(_) => DType::Int64,
            Scalar::UInt8(_) => DType::UInt8,
            Scalar::UInt16(_) => DType::UInt16,
            Scalar::UInt32(_) => DType::UInt32,
            Scalar::UInt64(_) => DType::UInt64,
            Scalar::Float16(_) => DType::Float16,
            Scalar::BFloat16(_) => DType::BFloat16,
            Scalar::Float32(_) => DType::Float32,
            Scalar::Float64(_) => DType::Float64,
            Scalar::Complex64(_) => DType::Complex64,
            Scalar::Complex128(_) => DType::Complex128,
        }
    }

    /// Zero of `dtype`.
    pub fn zero(dtype: DType) -> Scalar {
        Scalar::Int64(0).cast(dtype)
    }

    /// One of `dtype`.
    pub fn one(dtype: DType) -> Scalar {
        Scalar::Int64(1).cast(dtype)
    }

    /// The value as a complex double (exact for every dtype except 64-bit integers beyond 2^53).
    pub fn to_c128(self) -> Complex<f64> {
        match self {
            Scalar::Complex64(c) => Complex::new(c.re as f64, c.im as f64),
            Scalar::Complex128(c) => c,
            s => Complex::new(s.to_f64(), 0.0),
        }
    }

    /// The real value as f64 (complex: the real part; bool: 0 or 1).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(v) => v as u8 as f64,
            Scalar::Int8(v) => v as f64,
            Scalar::Int16(v) => v as f64,
            Scalar::Int32(v) => v as f64,
            Scalar::Int64(v) => v as f64,
            Scalar::UInt8(v) => v as f64,
            Scalar::UInt16(v) => v as f64,
            Scalar::UInt32(v) => v as f64,
            Scalar::UInt64(v) => v as f64,
            Scalar::Float16(v) => v.to_f64(),
            Scalar::BFloat16(v) => v.to_f64(),
            Scalar::Float32(v) => v as f64,
            Scalar::Float64(v) => v,
            Scalar::Complex64(v) => v.re as f64,
            Scalar::Complex128(v) => v.re,
        }
    }

    /// Integer view: exact for integer and bool dtypes; floats truncate toward zero.
    pub fn to_i128(self) -> i128 {
        match self {
            Scalar::Bool(v) => v as i128,
            Scalar::Int8(v) => v as i128,
            Scalar::Int16(v) => v as i128,
            Scalar::Int32(v) => v as i128,
            Scalar::Int64(v) => v as i128,
            Scalar::UInt8(v) => v as i128,
            Scalar::UInt16(v) => v as i128,
            Scalar::UInt32(v) => v as i128,
            Scalar::UInt64(v) => v as i128,
            s => s.to_f64() as i128,
        }
    }

    /// True if the value is not zero (NumPy truthiness).
    pub fn is_nonzero(self) -> bool {
        match self {
            Scalar::Complex64(c) => c.re != 0.0 || c.im != 0.0,
            Scalar::Complex128(c) => c.re != 0.0 || c.im != 0.0,
            s if s.dtype().is_integer() || s.dtype().is_bool() => s.to_i128() != 0,
            s => s.to_f64() != 0.0,
        }
    }

    /// Casts to `dtype` with NumPy `astype` (C) semantics; see the type's docs.
    pub fn cast(self, dtype: DType) -> Scalar {
        if self.dtype() == dtype {
            return self;
        }
        let src = self.dtype();
        if src.is_integer() || src.is_bool() {
            let i = self.to_i128();
            return match dtype {
                DType::Bool => Scalar::Bool(i != 0),
                DType::Int8 => Scalar::Int8(i as i8),
                DType::Int16 => Scalar::Int16(i as i16),
                DType::Int32 => Scalar::Int32(i as i32),
                DType::Int64 => Scalar::Int64(i as i64),
                DType::UInt8 => Scalar::UInt8(i as u8),
                DType::UInt16 => Scalar::UInt16(i as u16),
                DType::UInt32 => Scalar::UInt32(i as u32),
                DType::UInt64 => Scalar::UInt64(i as u64),
                DType::Float16 => Scalar::Float16(f16::from_f64(i as f64)),
                DType::BFloat16 => Scalar::BFloat16(bf16::from_f64(i as f64)),
                DType::Float32 => Scalar::Float32(i as f32),
                DType::Float64 => Scalar::Float64(i as f64),
                DType::Complex64 => Scalar::Complex64(Complex::new(i as f32, 0.0)),
                DType::Complex128 => Scalar::Complex128(Complex::new(i as f64, 0.0)),
            };
        }
        let c = self.to_c128();
        let f = c.re;
        match dtype {
            DType::Bool => Scalar::Bool(self.is_nonzero()),
            DType::Int8 => Scalar::Int8(f as i8),
            DType::Int16 => Scalar::Int16(f as i16),
            DType::Int32 => Scalar::Int32(f as i32),
            DType::Int64 => Scalar::Int64(f as i64),
            DType::UInt8 => Scalar::UInt8(f as i64 as u8),
            DType::UInt16 => Scalar::UInt16(f as i64 as u16),
            DType::UInt32 => Scalar::UInt32(f as i64 as u32),
            DType::UInt64 => Scalar::UInt64(f as u64),
            DType::Float16 => Scalar::Float16(match self {
                Scalar::Float32(v) => f16::from_f32(v),
                _ => f16::from_f64(f),
            }),
            DType::BFloat16 => Scalar::BFloat16(match self {
                Scalar::Float32(v) => bf16::from_f32(v),
                _ => bf16::from_f64(f),
            }),
            DType::Float32 => Scalar::Float32(f as f32),
            DType::Float64 => Scalar::Float64(f),
            DType::Complex64 => Scalar::Complex64(Complex::new(c.re as f32, c.im as f32)),
            DType::Complex128 => Scalar::Complex128(c),
        }
    }

    /// Writes the value's little-endian bytes (`dst.len()` must be the dtype's item size).
    pub fn write_le_bytes(&self, dst: &mut [u8]) {
        fn put<T: bytemuck::Pod>(dst: &mut [u8], v: T) {
            dst.copy_from_slice(bytemuck::bytes_of(&v));
        }
        match *self {
            Scalar::Bool(v) => dst[0] = v as u8,
            Scalar::Int8(v) => put(dst, v),
            Scalar::Int16(v) => put(dst, v),
            Scalar::Int32(v) => put(dst, v),
            Scalar::Int64(v) => put(dst, v),
            Scalar::UInt8(v) => put(dst, v),
            Scalar::UInt16(v) => put(dst, v),
            Scalar::UInt32(v) => put(dst, v),
            Scalar::UInt64(v) => put(dst, v),
            Scalar::Float16(v) => put(dst, v),
            Scalar::BFloat16(v) => put(dst, v),
            Scalar::Float32(v) => put(dst, v),
            Scalar::Float64(v) => put(dst, v),
            Scalar::Complex64(v) => put(dst, v),
            Scalar::Complex128(v) => put(dst, v),
        }
    }

    /// Reads a value of `dtype` from little-endian bytes.
    pub fn from_le_bytes(dtype: DType, b: &[u8]) -> Scalar {
        fn get<T: bytemuck::Pod>(b: &[u8]) -> T {
            bytemuck::pod_read_unaligned(&b[..std::mem::size_of::<T>()])
        }
        match dtype {
            DType::Bool => Scalar::Bool(b[0] != 0),
            DType::Int8 => Scalar::Int8(get(b)),
            DType::Int16 => Scalar::Int16(get(b)),
            DType::Int32 => Scalar::Int32(get(b)),
            DType::Int64 => Scalar::Int64(get(b)),
            DType::UInt8 => Scalar::UInt8(get(b)),
            DType::UInt16 => Scalar::UInt16(get(b)),
            DType::UInt32 => Scalar::UInt32(get(b)),
            DType::UInt64 => Scalar::UInt64(get(b)),
            DType::Float16 => Scalar::Float16(get(b)),
            DType::BFloat16 => Scalar::BFloat16(get(b)),
            DType::Float32 => Scalar::Float32(get(b)),
            DType::Float64 => Scalar::Float64(get(b)),
            DType::Complex64 => Scalar::Complex64(get(b)),
            DType::Complex128 => Scalar::Complex128(get(b)),
        }
    }

    /// Smallest value of a real dtype (`-inf` for floats), the identity of `maximum`.
    pub fn min_value(dtype: DType) -> Scalar {
        match dtype {
            DType::Bool => Scalar::Bool(false),
            DType::Int8 => Scalar::Int8(i8::MIN),
            DType::Int16 => Scalar::Int16(i16::MIN),
            DType::Int32 => Scalar::Int32(i32::MIN),
            DType::Int64 => Scalar::Int64(i64::MIN),
            DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => Scalar::zero(dtype),
            d => Scalar::Float64(f64::NEG_INFINITY).cast(d),
        }
    }

    /// Largest value of a real dtype (`+inf` for floats), the identity of `minimum`.
    pub fn max_value(dtype: DType) -> Scalar {
        match dtype {
            DType::Bool => Scalar::Bool(true),
            DType::Int8 => Scalar::Int8(i8::MAX),
            DType::Int16 => Scalar::Int16(i16::MAX),
            DType::Int32 => Scalar::Int32(i32::MAX),
            DType::Int64 => Scalar::Int64(i64::MAX),
            DType::UInt8 => Scalar::UInt8(u8::MAX),
            DType::UInt16 => Scalar::UInt16(u16::MAX),
            DType::UInt32 => Scalar::UInt32(u32::MAX),
            DType::UInt64 => Scalar::UInt64(u64::MAX),
            d => Scalar::Float64(f64::INFINITY).cast(d),
        }
    }
}

/// Prints the value as its Rust type does, honouring the formatter's flags: `{:.2}` (precision),
/// `{:8.3}` (width), `{:+}`, `{:<8}` and so on (`format!("{:.2}", a.sum()?.item()?)`).
impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        scalar_dispatch!(self, v => std::fmt::Display::fmt(v, f))
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                Scalar::$v(v)
            }
        }
    )*};
}
scalar_from!(bool => Bool, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8,
    u16 => UInt16, u32 => UInt32, u64 => UInt64, f16 => Float16, bf16 => BFloat16, f32 => Float32,
    f64 => Float64, Complex<f32> => Complex64, Complex<f64> => Complex128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_honours_flags() {
        assert_eq!(format!("{:.2}", Scalar::Float64(1.23456)), "1.23");
        assert_eq!(format!("{:8.3}", Scalar::Float32(2.5)), "   2.500");
        assert_eq!(
            format!("{:.1}", Scalar::Float16(f16::from_f32(1.25))),
            "1.2"
        );
        assert_eq!(format!("{:4}", Scalar::Int32(7)), "   7");
        assert_eq!(
            format!("{:.2}", Scalar::Complex128(Complex::new(1.0, -2.5))),
            "1.00-2.50i"
        );
        assert_eq!(format!("{}", Scalar::Float64(0.5)), "0.5");
    }

    #[test]
    fn casts_follow_c() {
        assert_eq!(Scalar::Float64(-2.7).cast(DType::Int32), Scalar::Int32(-2));
        assert_eq!(Scalar::Int64(300).cast(DType::UInt8), Scalar::UInt8(44));
        assert_eq!(Scalar::Int64(-1).cast(DType::UInt16), Scalar::UInt16(65535));
        assert_eq!(Scalar::Float32(0.5).cast(DType::Bool), Scalar::Bool(true));
        assert_eq!(Scalar::Float64(-1.0).cast(DType::UInt8), Scalar::UInt8(255));
        let mut b = [0u8; 8];
        Scalar::Float64(1.5).write_le_bytes(&mut b);
        assert_eq!(
            Scalar::from_le_bytes(DType::Float64, &b),
            Scalar::Float64(1.5)
        );
    }
}
