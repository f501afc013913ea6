//! Typed columns of values (one block of lanes) and the IR's operations on them.
//!
//! A column is either uniform (`D::U`, one value for every lane: constants, parameters, loop
//! variables, broadcast inputs) or a vector of one value per lane (`D::V`, possibly borrowed
//! straight from a contiguous buffer). Every operation is one tight loop over the block.
//!
//! Representation: bool is a `u8` holding 0 or 1; float16 and bfloat16 are held in `f32` columns
//! whose values are always exactly representable in the narrow type (they are rounded after every
//! node that computes one, see [`round_narrow`]).

use cupy_core::kernel::ir::{BinaryOp, UnaryOp};
use cupy_core::{DType, Scalar};
use half::{bf16, f16};
use num_complex::Complex;
use num_traits::{AsPrimitive, Float};
use std::borrow::Cow;

pub type C32 = Complex<f32>;
pub type C64 = Complex<f64>;

/// Uniform value or one value per lane.
#[derive(Clone, Debug)]
pub enum D<'a, T: Clone + 'static> {
    /// The same value in every lane.
    U(T),
    /// One value per lane.
    V(Cow<'a, [T]>),
}

impl<T: Copy + 'static> D<'_, T> {
    /// A borrowed view.
    pub fn view(&self) -> D<'_, T> {
        match self {
            D::U(x) => D::U(*x),
            D::V(v) => D::V(Cow::Borrowed(&v[..])),
        }
    }
    /// Detaches from any borrowed storage.
    pub fn owned(self) -> D<'static, T> {
        match self {
            D::U(x) => D::U(x),
            D::V(v) => D::V(Cow::Owned(v.into_owned())),
        }
    }
    /// Value of lane `i`.
    #[inline]
    pub fn get(&self, i: usize) -> T {
        match self {
            D::U(x) => *x,
            D::V(v) => v[i],
        }
    }
    /// Applies `f` to every lane.
    #[inline]
    pub fn map<R: Copy>(&self, f: impl Fn(T) -> R) -> D<'static, R> {
        match self {
            D::U(x) => D::U(f(*x)),
            D::V(v) => D::V(Cow::Owned(v.iter().map(|&x| f(x)).collect())),
        }
    }
    /// `n` lanes as a vector.
    pub fn expand(&self, n: usize) -> Vec<T> {
        match self {
            D::U(x) => vec![*x; n],
            D::V(v) => v.to_vec(),
        }
    }
    /// Lanes `lo..hi` (a uniform stays uniform).
    pub fn slice(&self, lo: usize, hi: usize) -> D<'_, T> {
        match self {
            D::U(x) => D::U(*x),
            D::V(v) => D::V(Cow::Borrowed(&v[lo..hi])),
        }
    }
}

/// Lane-wise `f(a, b)`.
#[inline]
pub fn zip<A: Copy + 'static, B: Copy + 'static, R: Copy + 'static>(
    a: &D<'_, A>,
    b: &D<'_, B>,
    f: impl Fn(A, B) -> R,
) -> D<'static, R> {
    D::V(Cow::Owned(match (a, b) {
        (D::U(x), D::U(y)) => return D::U(f(*x, *y)),
        (D::V(x), D::U(y)) => {
            let y = *y;
            x.iter().map(|&x| f(x, y)).collect()
        }
        (D::U(x), D::V(y)) => {
            let x = *x;
            y.iter().map(|&y| f(x, y)).collect()
        }
        (D::V(x), D::V(y)) => x.iter().zip(y.iter()).map(|(&x, &y)| f(x, y)).collect(),
    }))
}

/// A typed column.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum Col<'a> {
    B(D<'a, u8>),
    I8(D<'a, i8>),
    I16(D<'a, i16>),
    I32(D<'a, i32>),
    I64(D<'a, i64>),
    U8(D<'a, u8>),
    U16(D<'a, u16>),
    U32(D<'a, u32>),
    U64(D<'a, u64>),
    F32(D<'a, f32>),
    F64(D<'a, f64>),
    C32(D<'a, C32>),
    C64(D<'a, C64>),
}

/// Runs `$body` with `$d` bound to the inner `D` of any variant.
macro_rules! each_col {
    ($c:expr, $d:ident => $body:expr) => {
        match $c {
            Col::B($d) => $body,
            Col::I8($d) => $body,
            Col::I16($d) => $body,
            Col::I32($d) => $body,
            Col::I64($d) => $body,
            Col::U8($d) => $body,
            Col::U16($d) => $body,
            Col::U32($d) => $body,
            Col::U64($d) => $body,
            Col::F32($d) => $body,
            Col::F64($d) => $body,
            Col::C32($d) => $body,
            Col::C64($d) => $body,
        }
    };
}

/// Maps every variant to the same variant.
macro_rules! map_col {
    ($c:expr, $d:ident => $body:expr) => {
        match $c {
            Col::B($d) => Col::B($body),
            Col::I8($d) => Col::I8($body),
            Col::I16($d) => Col::I16($body),
            Col::I32($d) => Col::I32($body),
            Col::I64($d) => Col::I64($body),
            Col::U8($d) => Col::U8($body),
            Col::U16($d) => Col::U16($body),
            Col::U32($d) => Col::U32($body),
            Col::U64($d) => Col::U64($body),
            Col::F32($d) => Col::F32($body),
            Col::F64($d) => Col::F64($body),
            Col::C32($d) => Col::C32($body),
            Col::C64($d) => Col::C64($body),
        }
    };
}
#[allow(unused_imports)]
pub(crate) use each_col;
pub(crate) use map_col;

/// Element types of columns.
pub trait Elem: Copy + Send + Sync + 'static {
    /// Wraps a column of this type.
    fn wrap(d: D<'_, Self>) -> Col<'_>;
}
macro_rules! elem {
    ($($t:ty => $v:ident),*) => {$(
        impl Elem for $t {
            #[inline]
            fn wrap(d: D<'_, Self>) -> Col<'_> {
                Col::$v(d)
            }
        }
    )*};
}
elem!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64, C32 => C32, C64 => C64);
// u8 is both bool and uint8; wrapping as uint8 here, bool columns are built explicitly.
impl Elem for u8 {
    fn wrap(d: D<'_, Self>) -> Col<'_> {
        Col::U8(d)
    }
}

impl<'a> Col<'a> {
    /// A borrowed view.
    pub fn view(&self) -> Col<'_> {
        map_col!(self, d => d.view())
    }
    /// Detaches from borrowed storage.
    pub fn owned(self) -> Col<'static> {
        map_col!(self, d => d.owned())
    }
    /// True for a uniform column.
    pub fn is_uniform(&self) -> bool {
        each_col!(self, d => matches!(d, D::U(_)))
    }
    /// Lanes `lo..hi`.
    pub fn slice(&self, lo: usize, hi: usize) -> Col<'_> {
        map_col!(self, d => d.slice(lo, hi))
    }
    /// Expanded to `n` owned lanes.
    pub fn expand(&self, n: usize) -> Col<'static> {
        map_col!(self, d => D::V(Cow::Owned(d.expand(n))))
    }
    /// Number of lanes of a vector column (`None` if uniform).
    pub fn len(&self) -> Option<usize> {
        each_col!(self, d => match d { D::U(_) => None, D::V(v) => Some(v.len()) })
    }
    /// Lane `i` as a scalar of `dtype` (the column's logical dtype).
    pub fn scalar_at(&self, i: usize, dtype: DType) -> Scalar {
        match self {
            Col::B(d) => Scalar::Bool(d.get(i) != 0),
            Col::I8(d) => Scalar::Int8(d.get(i)),
            Col::I16(d) => Scalar::Int16(d.get(i)),
            Col::I32(d) => Scalar::Int32(d.get(i)),
            Col::I64(d) => Scalar::Int64(d.get(i)),
            Col::U8(d) => Scalar::UInt8(d.get(i)),
            Col::U16(d) => Scalar::UInt16(d.get(i)),
            Col::U32(d) => Scalar::UInt32(d.get(i)),
            Col::U64(d) => Scalar::UInt64(d.get(i)),
            Col::F32(d) => match dtype {
                DType::Float16 => Scalar::Float16(f16::from_f32(d.get(i))),
                DType::BFloat16 => Scalar::BFloat16(bf16::from_f32(d.get(i))),
                _ => Scalar::Float32(d.get(i)),
            },
            Col::F64(d) => Scalar::Float64(d.get(i)),
            Col::C32(d) => Scalar::Complex64(d.get(i)),
            Col::C64(d) => Scalar::Complex128(d.get(i)),
        }
    }
}

/// Concatenates columns of the same variant (uniforms expanded by `lens`).
pub fn concat(cols: &[Col<'_>], lens: &[usize]) -> Col<'static> {
    macro_rules! cat {
        ($v:ident) => {{
            let mut out = Vec::with_capacity(lens.iter().sum());
            for (c, &n) in cols.iter().zip(lens) {
                match c {
                    Col::$v(D::U(x)) => out.extend(std::iter::repeat_n(*x, n)),
                    Col::$v(D::V(v)) => out.extend_from_slice(v),
                    _ => unreachable!("concat of mixed columns"),
                }
            }
            Col::$v(D::V(Cow::Owned(out)))
        }};
    }
    match &cols[0] {
        Col::B(_) => cat!(B),
        Col::I8(_) => cat!(I8),
        Col::I16(_) => cat!(I16),
        Col::I32(_) => cat!(I32),
        Col::I64(_) => cat!(I64),
        Col::U8(_) => cat!(U8),
        Col::U16(_) => cat!(U16),
        Col::U32(_) => cat!(U32),
        Col::U64(_) => cat!(U64),
        Col::F32(_) => cat!(F32),
        Col::F64(_) => cat!(F64),
        Col::C32(_) => cat!(C32),
        Col::C64(_) => cat!(C64),
    }
}

/// A uniform column holding `s`.
pub fn scalar_col(s: Scalar) -> Col<'static> {
    match s {
        Scalar::Bool(v) => Col::B(D::U(v as u8)),
        Scalar::Int8(v) => Col::I8(D::U(v)),
        Scalar::Int16(v) => Col::I16(D::U(v)),
        Scalar::Int32(v) => Col::I32(D::U(v)),
        Scalar::Int64(v) => Col::I64(D::U(v)),
        Scalar::UInt8(v) => Col::U8(D::U(v)),
        Scalar::UInt16(v) => Col::U16(D::U(v)),
        Scalar::UInt32(v) => Col::U32(D::U(v)),
        Scalar::UInt64(v) => Col::U64(D::U(v)),
        Scalar::Float16(v) => Col::F32(D::U(v.to_f32())),
        Scalar::BFloat16(v) => Col::F32(D::U(v.to_f32())),
        Scalar::Float32(v) => Col::F32(D::U(v)),
        Scalar::Float64(v) => Col::F64(D::U(v)),
        Scalar::Complex64(v) => Col::C32(D::U(v)),
        Scalar::Complex128(v) => Col::C64(D::U(v)),
    }
}

/// Rounds an `f32` column to float16/bfloat16 when `ty` is one of them.
pub fn round_narrow(c: Col<'_>, ty: DType) -> Col<'_> {
    match (ty, c) {
        (DType::Float16, Col::F32(d)) => Col::F32(d.map(|x| f16::from_f32(x).to_f32())),
        (DType::BFloat16, Col::F32(d)) => Col::F32(d.map(|x| bf16::from_f32(x).to_f32())),
        (_, c) => c,
    }
}

// ---------------------------------------------------------------------------------------------
// Casts (exactly `Scalar::cast`).

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

// ---------------------------------------------------------------------------------------------
// Integer arithmetic (NumPy semantics).

/// Integer operations with NumPy's results.
pub trait IntOps: Copy + Ord + Default + Elem {
    fn w_add(self, b: Self) -> Self;
    fn w_sub(self, b: Self) -> Self;
    fn w_mul(self, b: Self) -> Self;
    fn w_neg(self) -> Self;
    fn w_abs(self) -> Self;
    fn div0(self, b: Self) -> Self;
    fn floordiv0(self, b: Self) -> Self;
    fn mod0(self, b: Self) -> Self;
    fn ipow(self, b: Self) -> Self;
    fn shl_np(self, b: Self) -> Self;
    fn shr_np(self, b: Self) -> Self;
    fn not(self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn xor(self, b: Self) -> Self;
}

macro_rules! int_ops {
    ($t:ty, $signed:expr) => {
        impl IntOps for $t {
            #[inline(always)]
            fn w_add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn w_sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline(always)]
            fn w_mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn w_neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn w_abs(self) -> Self {
                if self < 0 as $t {
                    self.wrapping_neg()
                } else {
                    self
                }
            }
            #[inline(always)]
            fn div0(self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    self.wrapping_div(b)
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn floordiv0(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let q = self.wrapping_div(b);
                let r = self.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn mod0(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r.wrapping_add(b)
                } else {
                    r
                }
            }
            #[allow(unused_comparisons)]
            fn ipow(self, b: Self) -> Self {
                if b < 0 as $t {
                    // NumPy raises; kernels give 0 unless the base is 1 or -1.
                    return if self == 1 {
                        1
                    } else if $signed && self == (0 as $t).wrapping_sub(1) {
                        if b & 1 == 1 {
                            self
                        } else {
                            1
                        }
                    } else {
                        0
                    };
                }
                let mut e = b as u64;
                let mut base = self;
                let mut acc: $t = 1;
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    e >>= 1;
                    if e > 0 {
                        base = base.wrapping_mul(base);
                    }
                }
                acc
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl_np(self, b: Self) -> Self {
                if b >= 0 as $t && (b as u64) < <$t>::BITS as u64 {
                    self << (b as u32)
                } else {
                    0
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr_np(self, b: Self) -> Self {
                if b >= 0 as $t && (b as u64) < <$t>::BITS as u64 {
                    self >> (b as u32)
                } else if self < 0 as $t {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn and(self, b: Self) -> Self {
                self & b
            }
            #[inline(always)]
            fn or(self, b: Self) -> Self {
                self | b
            }
            #[inline(always)]
            fn xor(self, b: Self) -> Self {
                self ^ b
            }
        }
    };
}
int_ops!(i8, true);
int_ops!(i16, true);
int_ops!(i32, true);
int_ops!(i64, true);
int_ops!(u8, false);
int_ops!(u16, false);
int_ops!(u32, false);
int_ops!(u64, false);

fn int_bin<T: IntOps>(op: BinaryOp, a: &D<'_, T>, b: &D<'_, T>) -> Result<Col<'static>, String> {
    use BinaryOp::*;
    Ok(match op {
        Add => T::wrap(zip(a, b, T::w_add)),
        Sub => T::wrap(zip(a, b, T::w_sub)),
        Mul => T::wrap(zip(a, b, T::w_mul)),
        Div => T::wrap(zip(a, b, T::div0)),
        FloorDiv => T::wrap(zip(a, b, T::floordiv0)),
        Mod => T::wrap(zip(a, b, T::mod0)),
        Pow => T::wrap(zip(a, b, T::ipow)),
        Max | FMax => T::wrap(zip(a, b, |x, y| if x >= y { x } else { y })),
        Min | FMin => T::wrap(zip(a, b, |x, y| if x <= y { x } else { y })),
        Eq => Col::B(zip(a, b, |x, y| (x == y) as u8)),
        Ne => Col::B(zip(a, b, |x, y| (x != y) as u8)),
        Lt => Col::B(zip(a, b, |x, y| (x < y) as u8)),
        Le => Col::B(zip(a, b, |x, y| (x <= y) as u8)),
        Gt => Col::B(zip(a, b, |x, y| (x > y) as u8)),
        Ge => Col::B(zip(a, b, |x, y| (x >= y) as u8)),
        And => T::wrap(zip(a, b, T::and)),
        Or => T::wrap(zip(a, b, T::or)),
        Xor => T::wrap(zip(a, b, T::xor)),
        Shl => T::wrap(zip(a, b, T::shl_np)),
        Shr => T::wrap(zip(a, b, T::shr_np)),
        Atan2 => return Err("atan2 needs float operands".into()),
        Complex => return Err("complex() needs float operands".into()),
    }
    .owned())
}

fn bool_bin(op: BinaryOp, a: &D<'_, u8>, b: &D<'_, u8>) -> Result<Col<'static>, String> {
    use BinaryOp::*;
    let r = match op {
        Add | Or | Max | FMax => zip(a, b, |x, y| x | y),
        Mul | And | Min | FMin => zip(a, b, |x, y| x & y),
        Sub | Xor | Ne => zip(a, b, |x, y| x ^ y),
        Eq => zip(a, b, |x, y| (x == y) as u8),
        Lt => zip(a, b, |x, y| (x < y) as u8),
        Le => zip(a, b, |x, y| (x <= y) as u8),
        Gt => zip(a, b, |x, y| (x > y) as u8),
        Ge => zip(a, b, |x, y| (x >= y) as u8),
        // bool ** bool, bool // bool: as uint8 arithmetic then != 0.
        Pow => zip(a, b, |x, y| (x.ipow(y) != 0) as u8),
        Div | FloorDiv => zip(a, b, |x, y| (x.div0(y) != 0) as u8),
        Mod => zip(a, b, |x, y| (x.mod0(y) != 0) as u8),
        Shl => zip(a, b, |x, y| (x.shl_np(y) != 0) as u8),
        Shr => zip(a, b, |x, y| (x.shr_np(y) != 0) as u8),
        Atan2 => return Err("atan2 needs float operands".into()),
        Complex => return Err("complex() needs float operands".into()),
    };
    Ok(Col::B(r))
}

// ---------------------------------------------------------------------------------------------
// Float arithmetic.

/// NumPy's `npy_divmod`: (floor quotient, remainder with the divisor's sign).
#[inline(always)]
pub fn npy_divmod<T: Float>(a: T, b: T) -> (T, T) {
    let zero = T::zero();
    let m = a % b;
    if b == zero {
        return (a / b, m);
    }
    let mut div = (a - m) / b;
    let mut m = m;
    if m != zero {
        if (b < zero) != (m < zero) {
            m = m + b;
            div = div - T::one();
        }
    } else {
        m = zero.copysign(b);
    }
    let fl = if div != zero {
        let mut fl = div.floor();
        if div - fl > T::from(0.5).unwrap_or(zero) {
            fl = fl + T::one();
        }
        fl
    } else {
        zero.copysign(a / b)
    };
    (fl, m)
}

#[inline(always)]
fn np_floordiv<T: Float>(a: T, b: T) -> T {
    if b == T::zero() {
        a / b
    } else {
        npy_divmod(a, b).0
    }
}

#[inline(always)]
fn np_rem<T: Float>(a: T, b: T) -> T {
    if b == T::zero() {
        a % b
    } else {
        npy_divmod(a, b).1
    }
}

/// Float element types.
pub trait FloatOps: Float + Elem {}
impl FloatOps for f32 {}
impl FloatOps for f64 {}

#[inline(always)]
pub fn np_max<T: Float>(a: T, b: T) -> T {
    if a >= b || a.is_nan() {
        a
    } else {
        b
    }
}
#[inline(always)]
pub fn np_min<T: Float>(a: T, b: T) -> T {
    if a <= b || a.is_nan() {
        a
    } else {
        b
    }
}
#[inline(always)]
pub fn np_fmax<T: Float>(a: T, b: T) -> T {
    if a >= b || b.is_nan() {
        a
    } else {
        b
    }
}
#[inline(always)]
pub fn np_fmin<T: Float>(a: T, b: T) -> T {
    if a <= b || b.is_nan() {
        a
    } else {
        b
    }
}

fn float_bin<T: FloatOps>(op: BinaryOp, a: &D<'_, T>, b: &D<'_, T>) -> Result<Col<'static>, String>
where
    Complex<T>: Elem,
{
    use BinaryOp::*;
    Ok(match op {
        Complex => <num_complex::Complex<T> as Elem>::wrap(zip(a, b, |x, y| {
            num_complex::Complex::new(x, y)
        })),
        Add => T::wrap(zip(a, b, |x, y| x + y)),
        Sub => T::wrap(zip(a, b, |x, y| x - y)),
        Mul => T::wrap(zip(a, b, |x, y| x * y)),
        Div => T::wrap(zip(a, b, |x, y| x / y)),
        FloorDiv => T::wrap(zip(a, b, np_floordiv)),
        Mod => T::wrap(zip(a, b, np_rem)),
        Pow => T::wrap(zip(a, b, |x, y| x.powf(y))),
        Max => T::wrap(zip(a, b, np_max)),
        Min => T::wrap(zip(a, b, np_min)),
        FMax => T::wrap(zip(a, b, np_fmax)),
        FMin => T::wrap(zip(a, b, np_fmin)),
        Eq => Col::B(zip(a, b, |x, y| (x == y) as u8)),
        Ne => Col::B(zip(a, b, |x, y| (x != y) as u8)),
        Lt => Col::B(zip(a, b, |x, y| (x < y) as u8)),
        Le => Col::B(zip(a, b, |x, y| (x <= y) as u8)),
        Gt => Col::B(zip(a, b, |x, y| (x > y) as u8)),
        Ge => Col::B(zip(a, b, |x, y| (x >= y) as u8)),
        Atan2 => T::wrap(zip(a, b, |x, y| x.atan2(y))),
        And | Or | Xor | Shl | Shr => return Err(format!("{op:?} needs integer operands")),
    }
    .owned())
}

// ---------------------------------------------------------------------------------------------
// Complex arithmetic (NumPy's loops; see `cmath`).

use crate::cmath;

fn complex_bin<T: FloatOps>(
    op: BinaryOp,
    a: &D<'_, Complex<T>>,
    b: &D<'_, Complex<T>>,
) -> Result<Col<'static>, String>
where
    Complex<T>: Elem,
{
    use BinaryOp::*;
    let w = <num_complex::Complex<T> as Elem>::wrap;
    Ok(match op {
        Add => w(zip(a, b, |x, y| x + y)),
        Sub => w(zip(a, b, |x, y| x - y)),
        Mul => w(zip(a, b, cmath::mul)),
        Div => w(zip(a, b, cmath::div)),
        Pow => w(zip(a, b, cmath::pow)),
        Max => w(zip(a, b, cmath::max)),
        Min => w(zip(a, b, cmath::min)),
        FMax => w(zip(a, b, cmath::fmax)),
        FMin => w(zip(a, b, cmath::fmin)),
        Eq => Col::B(zip(a, b, |x, y| (x == y) as u8)),
        Ne => Col::B(zip(a, b, |x, y| (x != y) as u8)),
        Lt => Col::B(zip(a, b, |x, y| cmath::lt(x, y) as u8)),
        Le => Col::B(zip(a, b, |x, y| cmath::le(x, y) as u8)),
        Gt => Col::B(zip(a, b, |x, y| cmath::lt(y, x) as u8)),
        Ge => Col::B(zip(a, b, |x, y| cmath::le(y, x) as u8)),
        FloorDiv | Mod | And | Or | Xor | Shl | Shr | Atan2 | Complex => {
            return Err(format!("{op:?} is not defined for complex operands"))
        }
    }
    .owned())
}

/// Lane-wise binary op on two columns of the same variant.
pub fn binary(op: BinaryOp, a: &Col<'_>, b: &Col<'_>) -> Result<Col<'static>, String> {
    match (a, b) {
        (Col::B(x), Col::B(y)) => bool_bin(op, x, y),
        (Col::I8(x), Col::I8(y)) => int_bin(op, x, y),
        (Col::I16(x), Col::I16(y)) => int_bin(op, x, y),
        (Col::I32(x), Col::I32(y)) => int_bin(op, x, y),
        (Col::I64(x), Col::I64(y)) => int_bin(op, x, y),
        (Col::U8(x), Col::U8(y)) => int_bin(op, x, y),
        (Col::U16(x), Col::U16(y)) => int_bin(op, x, y),
        (Col::U32(x), Col::U32(y)) => int_bin(op, x, y),
        (Col::U64(x), Col::U64(y)) => int_bin(op, x, y),
        (Col::F32(x), Col::F32(y)) => float_bin(op, x, y),
        (Col::F64(x), Col::F64(y)) => float_bin(op, x, y),
        (Col::C32(x), Col::C32(y)) => complex_bin(op, x, y),
        (Col::C64(x), Col::C64(y)) => complex_bin(op, x, y),
        _ => Err(format!("{op:?} of mismatched operand types")),
    }
}

fn int_un<T: IntOps>(op: UnaryOp, a: &D<'_, T>) -> Result<Col<'static>, String> {
    use UnaryOp::*;
    let zero = T::default();
    Ok(match op {
        Neg => T::wrap(a.map(T::w_neg)),
        Abs => T::wrap(a.map(T::w_abs)),
        BitNot => T::wrap(a.map(T::not)),
        Not => Col::B(a.map(|x| (x == zero) as u8)),
        Floor | Ceil => T::wrap(a.map(|x| x)),
        IsNan | IsInf => Col::B(a.map(|_| 0)),
        IsFinite => Col::B(a.map(|_| 1)),
        Sqrt | Exp | Log | Sin | Cos | Tan | Tanh => {
            return Err(format!("{op:?} needs a float operand"))
        }
        Real | Imag | Conj => return Err(format!("{op:?} needs a complex operand")),
    }
    .owned())
}

fn float_un<T: FloatOps>(op: UnaryOp, a: &D<'_, T>) -> Result<Col<'static>, String> {
    use UnaryOp::*;
    Ok(match op {
        Neg => T::wrap(a.map(|x| -x)),
        Abs => T::wrap(a.map(|x| x.abs())),
        Not => Col::B(a.map(|x| (x == T::zero()) as u8)),
        BitNot => return Err("bitwise not needs an integer operand".into()),
        Sqrt => T::wrap(a.map(|x| x.sqrt())),
        Exp => T::wrap(a.map(|x| x.exp())),
        Log => T::wrap(a.map(|x| x.ln())),
        Sin => T::wrap(a.map(|x| x.sin())),
        Cos => T::wrap(a.map(|x| x.cos())),
        Tan => T::wrap(a.map(|x| x.tan())),
        Tanh => T::wrap(a.map(|x| x.tanh())),
        Floor => T::wrap(a.map(|x| x.floor())),
        Ceil => T::wrap(a.map(|x| x.ceil())),
        IsNan => Col::B(a.map(|x| x.is_nan() as u8)),
        IsInf => Col::B(a.map(|x| x.is_infinite() as u8)),
        IsFinite => Col::B(a.map(|x| x.is_finite() as u8)),
        Real | Imag | Conj => return Err(format!("{op:?} needs a complex operand")),
    }
    .owned())
}

fn complex_un<T: FloatOps>(
    op: UnaryOp,
    a: &D<'_, Complex<T>>,
    res: DType,
) -> Result<Col<'static>, String>
where
    Complex<T>: Elem,
{
    use UnaryOp::*;
    let w = <Complex<T> as Elem>::wrap;
    Ok(match op {
        Neg => w(a.map(|x| -x)),
        Abs => {
            if res.is_complex() {
                w(a.map(|x| Complex::new(cmath::abs(x), T::zero())))
            } else {
                T::wrap(a.map(cmath::abs))
            }
        }
        Not => Col::B(a.map(|x| (x.re == T::zero() && x.im == T::zero()) as u8)),
        Sqrt => w(a.map(cmath::sqrt)),
        Exp => w(a.map(cmath::exp)),
        Log => w(a.map(cmath::log)),
        Sin => w(a.map(cmath::sin)),
        Cos => w(a.map(cmath::cos)),
        Tan => w(a.map(cmath::tan)),
        Tanh => w(a.map(cmath::tanh)),
        IsNan => Col::B(a.map(|x| cmath::isnan(x) as u8)),
        IsInf => Col::B(a.map(|x| (x.re.is_infinite() || x.im.is_infinite()) as u8)),
        IsFinite => Col::B(a.map(|x| (x.re.is_finite() && x.im.is_finite()) as u8)),
        Real => T::wrap(a.map(|x| x.re)),
        Imag => T::wrap(a.map(|x| x.im)),
        Conj => w(a.map(|x| x.conj())),
        BitNot | Floor | Ceil => return Err(format!("{op:?} is not defined for complex")),
    }
    .owned())
}

/// Lane-wise unary op; `res` is the node's result dtype (used by complex `Abs`).
pub fn unary(op: UnaryOp, a: &Col<'_>, res: DType) -> Result<Col<'static>, String> {
    match a {
        Col::B(x) => Ok(match op {
            UnaryOp::Not | UnaryOp::BitNot => Col::B(x.map(|v| v ^ 1)),
            UnaryOp::Abs | UnaryOp::Floor | UnaryOp::Ceil => Col::B(x.view().owned()),
            UnaryOp::IsNan | UnaryOp::IsInf => Col::B(x.map(|_| 0)),
            UnaryOp::IsFinite => Col::B(x.map(|_| 1)),
            _ => return Err(format!("{op:?} is not defined for bool")),
        }),
        Col::I8(x) => int_un(op, x),
        Col::I16(x) => int_un(op, x),
        Col::I32(x) => int_un(op, x),
        Col::I64(x) => int_un(op, x),
        Col::U8(x) => int_un(op, x),
        Col::U16(x) => int_un(op, x),
        Col::U32(x) => int_un(op, x),
        Col::U64(x) => int_un(op, x),
        Col::F32(x) => float_un(op, x),
        Col::F64(x) => float_un(op, x),
        Col::C32(x) => complex_un(op, x, res),
        Col::C64(x) => complex_un(op, x, res),
    }
}

/// `cond ? a : b` lane-wise (`cond` is a bool column).
pub fn select(cond: &Col<'_>, a: &Col<'_>, b: &Col<'_>) -> Result<Col<'static>, String> {
    let Col::B(c) = cond else {
        return Err("select condition is not bool".into());
    };
    if let D::U(c) = c {
        return Ok(if *c != 0 {
            a.view().owned()
        } else {
            b.view().owned()
        });
    }
    let D::V(c) = c else { unreachable!() };
    fn sel<T: Copy + 'static>(c: &[u8], a: &D<'_, T>, b: &D<'_, T>) -> D<'static, T> {
        D::V(Cow::Owned(match (a, b) {
            (D::V(a), D::V(b)) => c
                .iter()
                .zip(a.iter().zip(b.iter()))
                .map(|(&c, (&a, &b))| if c != 0 { a } else { b })
                .collect(),
            _ => c
                .iter()
                .enumerate()
                .map(|(i, &c)| if c != 0 { a.get(i) } else { b.get(i) })
                .collect(),
        }))
    }
    Ok(match (a, b) {
        (Col::B(x), Col::B(y)) => Col::B(sel(c, x, y)),
        (Col::I8(x), Col::I8(y)) => Col::I8(sel(c, x, y)),
        (Col::I16(x), Col::I16(y)) => Col::I16(sel(c, x, y)),
        (Col::I32(x), Col::I32(y)) => Col::I32(sel(c, x, y)),
        (Col::I64(x), Col::I64(y)) => Col::I64(sel(c, x, y)),
        (Col::U8(x), Col::U8(y)) => Col::U8(sel(c, x, y)),
        (Col::U16(x), Col::U16(y)) => Col::U16(sel(c, x, y)),
        (Col::U32(x), Col::U32(y)) => Col::U32(sel(c, x, y)),
        (Col::U64(x), Col::U64(y)) => Col::U64(sel(c, x, y)),
        (Col::F32(x), Col::F32(y)) => Col::F32(sel(c, x, y)),
        (Col::F64(x), Col::F64(y)) => Col::F64(sel(c, x, y)),
        (Col::C32(x), Col::C32(y)) => Col::C32(sel(c, x, y)),
        (Col::C64(x), Col::C64(y)) => Col::C64(sel(c, x, y)),
        _ => return Err("select arms of different types".into()),
    })
}

/// The column variant's zero (uniform) for a logical dtype.
pub fn zero_col(dtype: DType) -> Col<'static> {
    scalar_col(Scalar::zero(dtype))
}
