//! Casts between columns, exactly `Scalar::cast`.

use super::{Col, C32, C64, D};
use cupy_core::DType;
use half::{bf16, f16};
use num_traits::AsPrimitive;

/// Real element types a cast can start from.
trait Real:
    Copy
    + PartialEq
    + Default
    + 'static
    + AsPrimitive<i8>
    + AsPrimitive<i16>
    + AsPrimitive<i32>
    + AsPrimitive<i64>
    + AsPrimitive<u8>
    + AsPrimitive<u16>
    + AsPrimitive<u32>
    + AsPrimitive<u64>
    + AsPrimitive<f32>
    + AsPrimitive<f64>
{
    const FLOAT: bool;
    /// True when the type is f32 (so float16/bfloat16 round from f32 as `Scalar::cast` does).
    const IS_F32: bool = false;
}
macro_rules! real {
    ($($t:ty => $f:expr),*) => {$( impl Real for $t { const FLOAT: bool = $f; } )*};
}
real!(u8 => false, i8 => false, i16 => false, i32 => false, i64 => false, u16 => false,
    u32 => false, u64 => false, f64 => true);
impl Real for f32 {
    const FLOAT: bool = true;
    const IS_F32: bool = true;
}

fn cast_real<T: Real>(d: &D<'_, T>, dst: DType) -> Col<'static> {
    #[inline(always)]
    fn small_uint<T, U: Copy + 'static>(x: T) -> U
    where
        T: Real + AsPrimitive<U>,
        i64: AsPrimitive<U>,
    {
        if T::FLOAT {
            let i: i64 = x.as_();
            i.as_()
        } else {
            x.as_()
        }
    }
    match dst {
        DType::Bool => Col::B(d.map(|x| (x != T::default()) as u8)),
        DType::Int8 => Col::I8(d.map(|x| x.as_())),
        DType::Int16 => Col::I16(d.map(|x| x.as_())),
        DType::Int32 => Col::I32(d.map(|x| x.as_())),
        DType::Int64 => Col::I64(d.map(|x| x.as_())),
        DType::UInt8 => Col::U8(d.map(small_uint::<T, u8>)),
        DType::UInt16 => Col::U16(d.map(small_uint::<T, u16>)),
        DType::UInt32 => Col::U32(d.map(small_uint::<T, u32>)),
        DType::UInt64 => Col::U64(d.map(|x| x.as_())),
        DType::Float16 => Col::F32(d.map(|x| {
            if T::IS_F32 {
                f16::from_f32(x.as_()).to_f32()
            } else {
                f16::from_f64(x.as_()).to_f32()
            }
        })),
        DType::BFloat16 => Col::F32(d.map(|x| {
            if T::IS_F32 {
                bf16::from_f32(x.as_()).to_f32()
            } else {
                bf16::from_f64(x.as_()).to_f32()
            }
        })),
        DType::Float32 => Col::F32(d.map(|x| x.as_())),
        DType::Float64 => Col::F64(d.map(|x| x.as_())),
        DType::Complex64 => Col::C32(d.map(|x| C32::new(x.as_(), 0.0))),
        DType::Complex128 => Col::C64(d.map(|x| C64::new(x.as_(), 0.0))),
    }
}

/// Casts a column of logical dtype `src` to `dst`, exactly as [`Scalar::cast`].
pub fn cast(c: &Col<'_>, src: DType, dst: DType) -> Col<'static> {
    if src == dst {
        return c.view().owned();
    }
    match c {
        Col::B(d) => cast_real(d, dst),
        Col::I8(d) => cast_real(d, dst),
        Col::I16(d) => cast_real(d, dst),
        Col::I32(d) => cast_real(d, dst),
        Col::I64(d) => cast_real(d, dst),
        Col::U8(d) => cast_real(d, dst),
        Col::U16(d) => cast_real(d, dst),
        Col::U32(d) => cast_real(d, dst),
        Col::U64(d) => cast_real(d, dst),
        // float16 <-> bfloat16 go through f64 in `Scalar::cast`; from an exact f32 value that is
        // the same single rounding.
        Col::F32(d) => cast_real(d, dst),
        Col::F64(d) => cast_real(d, dst),
        Col::C32(d) => match dst {
            DType::Bool => Col::B(d.map(|z| (z.re != 0.0 || z.im != 0.0) as u8)),
            DType::Complex128 => Col::C64(d.map(|z| C64::new(z.re as f64, z.im as f64))),
            _ => cast_real(&d.map(|z| z.re), dst),
        },
        Col::C64(d) => match dst {
            DType::Bool => Col::B(d.map(|z| (z.re != 0.0 || z.im != 0.0) as u8)),
            DType::Complex64 => Col::C32(d.map(|z| C32::new(z.re as f32, z.im as f32))),
            // `Scalar::cast` goes complex128 -> f64 real part -> target.
            _ => cast_real(&d.map(|z| z.re), dst),
        },
    }
}
