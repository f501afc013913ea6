//! Data types: NumPy's fifteen numeric dtypes and their properties.
//!
//! Names, kinds and character codes follow NumPy (`numpy.dtype(...).name`, `.kind`, `.char`).

use std::fmt;

/// An element type. Mirrors NumPy's `numpy.dtype` for the numeric types.
///
/// Every value exists on every backend; a backend that cannot store or compute with one refuses
/// it with [`crate::Error::DTypeNotSupported`] before any work is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `numpy.bool_`: one byte, 0 or 1.
    Bool,
    /// `numpy.int8`.
    Int8,
    /// `numpy.int16`.
    Int16,
    /// `numpy.int32`.
    Int32,
    /// `numpy.int64`.
    Int64,
    /// `numpy.uint8`.
    UInt8,
    /// `numpy.uint16`.
    UInt16,
    /// `numpy.uint32`.
    UInt32,
    /// `numpy.uint64`.
    UInt64,
    /// IEEE 754 binary16 (`numpy.float16`).
    Float16,
    /// bfloat16 (`ml_dtypes.bfloat16`, as CuPy/PyTorch use it).
    BFloat16,
    /// IEEE 754 binary32 (`numpy.float32`).
    Float32,
    /// IEEE 754 binary64 (`numpy.float64`).
    Float64,
    /// Two float32 (`numpy.complex64`).
    Complex64,
    /// Two float64 (`numpy.complex128`).
    Complex128,
}

/// The kind of a dtype, as NumPy's `dtype.kind` character groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `b`
    Bool,
    /// `u`
    UInt,
    /// `i`
    Int,
    /// `f`
    Float,
    /// `c`
    Complex,
}

impl DType {
    /// Every dtype, in NumPy's type-number order (bool, signed, unsigned, floats, complex).
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// Size of one element in bytes (`dtype.itemsize`).
    pub const fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::UInt16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::UInt32 | DType::Float32 => 4,
            DType::Int64 | DType::UInt64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// The dtype's kind.
    pub const fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => Kind::Int,
            DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => Kind::UInt,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => Kind::Float,
            DType::Complex64 | DType::Complex128 => Kind::Complex,
        }
    }

    /// NumPy's name (`dtype.name`), e.g. `"float32"`.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::UInt8 => "uint8",
            DType::UInt16 => "uint16",
            DType::UInt32 => "uint32",
            DType::UInt64 => "uint64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// NumPy's character code (`dtype.char`); bfloat16 has none in NumPy and uses `E`
    /// as ml_dtypes does.
    pub const fn char_code(self) -> char {
        match self {
            DType::Bool => '?',
            DType::Int8 => 'b',
            DType::Int16 => 'h',
            DType::Int32 => 'i',
            DType::Int64 => 'l',
            DType::UInt8 => 'B',
            DType::UInt16 => 'H',
            DType::UInt32 => 'I',
            DType::UInt64 => 'L',
            DType::Float16 => 'e',
            DType::BFloat16 => 'E',
            DType::Float32 => 'f',
            DType::Float64 => 'd',
            DType::Complex64 => 'F',
            DType::Complex128 => 'D',
        }
    }

    /// Parses a NumPy dtype name (`"float32"`, `"f4"`, `"int"`, `"bool"`, ...) or character code.
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "bool_" | "?" | "b1" => DType::Bool,
            "int8" | "i1" | "b" => DType::Int8,
            "int16" | "i2" | "h" => DType::Int16,
            "int32" | "i4" | "i" => DType::Int32,
            "int64" | "i8" | "l" | "int" | "q" => DType::Int64,
            "uint8" | "u1" | "B" => DType::UInt8,
            "uint16" | "u2" | "H" => DType::UInt16,
            "uint32" | "u4" | "I" => DType::UInt32,
            "uint64" | "u8" | "L" | "Q" | "uint" => DType::UInt64,
            "float16" | "f2" | "e" | "half" => DType::Float16,
            "bfloat16" | "E" => DType::BFloat16,
            "float32" | "f4" | "f" | "single" => DType::Float32,
            "float64" | "f8" | "d" | "float" | "double" => DType::Float64,
            "complex64" | "c8" | "F" => DType::Complex64,
            "complex128" | "c16" | "D" | "complex" => DType::Complex128,
            _ => return None,
        })
    }

    /// True for bool.
    pub const fn is_bool(self) -> bool {
        matches!(self.kind(), Kind::Bool)
    }
    /// True for signed and unsigned integers (not bool).
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }
    /// True for signed integers.
    pub const fn is_signed_integer(self) -> bool {
        matches!(self.kind(), Kind::Int)
    }
    /// True for unsigned integers.
    pub const fn is_unsigned_integer(self) -> bool {
        matches!(self.kind(), Kind::UInt)
    }
    /// True for real floating-point types.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), Kind::Float)
    }
    /// True for complex types.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), Kind::Complex)
    }
    /// True for float and complex (inexact) types, as `numpy.issubdtype(t, numpy.inexact)`.
    pub const fn is_inexact(self) -> bool {
        matches!(self.kind(), Kind::Float | Kind::Complex)
    }

    /// Bits of the type (for complex: of the whole pair).
    pub const fn bits(self) -> usize {
        self.itemsize() * 8
    }

    /// For complex types, the real component type (`complex64 -> float32`); others unchanged.
    pub const fn real_dtype(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }

    /// The signed/unsigned integer of `bytes` bytes.
    pub const fn int_of_size(bytes: usize, signed: bool) -> Option<DType> {
        Some(match (bytes, signed) {
            (1, true) => DType::Int8,
            (2, true) => DType::Int16,
            (4, true) => DType::Int32,
            (8, true) => DType::Int64,
            (1, false) => DType::UInt8,
            (2, false) => DType::UInt16,
            (4, false) => DType::UInt32,
            (8, false) => DType::UInt64,
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::from_name(s).ok_or_else(|| crate::Error::InvalidArgument {
            op: "dtype".into(),
            msg: format!("data type {s:?} not understood"),
        })
    }
}

/// A Rust type that is the host representation of a [`DType`]: `bool`, `i8`..`u64`,
/// `half::f16`, `half::bf16`, `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
///
/// Used by the typed host bridges (`Array::from_slice`, `Array::to_vec`).
pub trait Element: Copy + Send + Sync + fmt::Debug + 'static + private::Sealed {
    /// The dtype this type maps to.
    const DTYPE: DType;
    /// Converts to a typed scalar.
    fn to_scalar(self) -> crate::Scalar;
    /// Converts from a scalar of exactly this dtype (other dtypes are cast first).
    fn from_scalar(s: crate::Scalar) -> Self;
    /// Reinterprets a slice as bytes (native little-endian, as NumPy stores it).
    fn slice_as_bytes(v: &[Self]) -> &[u8];
    /// Reads elements from bytes (length must be a multiple of the item size).
    fn vec_from_bytes(b: &[u8]) -> Vec<Self>;
}

mod private {
    pub trait Sealed {}
}

macro_rules! pod_element {
    ($t:ty, $d:ident) => {
        impl private::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> crate::Scalar {
                crate::Scalar::$d(self)
            }
            fn from_scalar(s: crate::Scalar) -> Self {
                match s.cast(DType::$d) {
                    crate::Scalar::$d(v) => v,
                    _ => unreachable!("Scalar::cast returns the asked dtype"),
                }
            }
            fn slice_as_bytes(v: &[Self]) -> &[u8] {
                bytemuck::cast_slice(v)
            }
            fn vec_from_bytes(b: &[u8]) -> Vec<Self> {
                bytemuck::pod_collect_to_vec(b)
            }
        }
    };
}

pod_element!(i8, Int8);
pod_element!(i16, Int16);
pod_element!(i32, Int32);
pod_element!(i64, Int64);
pod_element!(u8, UInt8);
pod_element!(u16, UInt16);
pod_element!(u32, UInt32);
pod_element!(u64, UInt64);
pod_element!(half::f16, Float16);
pod_element!(half::bf16, BFloat16);
pod_element!(f32, Float32);
pod_element!(f64, Float64);
pod_element!(num_complex::Complex<f32>, Complex64);
pod_element!(num_complex::Complex<f64>, Complex128);

impl private::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_scalar(self) -> crate::Scalar {
        crate::Scalar::Bool(self)
    }
    fn from_scalar(s: crate::Scalar) -> Self {
        s.is_nonzero()
    }
    fn slice_as_bytes(v: &[Self]) -> &[u8] {
        // SAFETY: bool is one byte holding 0 or 1, as NumPy's bool_.
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len()) }
    }
    fn vec_from_bytes(b: &[u8]) -> Vec<Self> {
        b.iter().map(|&x| x != 0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Some(d));
            assert_eq!(DType::from_name(&d.char_code().to_string()), Some(d), "{d}");
        }
        assert_eq!(DType::Float64.itemsize(), 8);
        assert_eq!(DType::Complex64.real_dtype(), DType::Float32);
    }
}
