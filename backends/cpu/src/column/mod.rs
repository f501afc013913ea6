//! Typed columns of values (one block of lanes) and the IR's operations on them.
//!
//! A column is either uniform (`D::U`, one value for every lane: constants, parameters, loop
//! variables, broadcast inputs) or a vector of one value per lane (`D::V`, possibly borrowed
//! straight from a contiguous buffer). Every operation is one tight loop over the block.
//!
//! Representation: bool is a `u8` holding 0 or 1; float16 and bfloat16 are held in `f32` columns
//! whose values are always exactly representable in the narrow type (they are rounded after every
//! node that computes one, see [`round_narrow`]).
//!
//! Files: this one (columns, the `binary`/`unary` dispatch, `select`), `cast.rs`, `int.rs`,
//! `float.rs`, `complex.rs` (the operations per element kind).

use self::complex::{complex_bin, complex_un};
use self::float::{float_bin, float_un};
use self::int::{bool_bin, int_bin, int_un};
use cupy_core::kernel::ir::{BinaryOp, UnaryOp};
use cupy_core::{DType, Scalar};
use half::{bf16, f16};
use num_complex::Complex;
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

mod cast;
mod complex;
mod float;
mod int;

pub use cast::cast;
pub use float::{np_fmax, np_fmin, np_max, np_min, vmath_into, VOp};
pub use int::IntOps;

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
        // Both arms read unconditionally and picked by index, so the loops have no branch on
        // the (often random: a sign, a rejection) condition; a uniform arm is one value.
        let n = c.len();
        let pick = |c: u8, a: T, b: T| [b, a][(c != 0) as usize];
        let mut out = Vec::with_capacity(n);
        match (a, b) {
            (D::V(a), D::V(b)) => {
                let n = n.min(a.len()).min(b.len());
                let (c, a, b) = (&c[..n], &a[..n], &b[..n]);
                out.extend((0..n).map(|i| pick(c[i], a[i], b[i])));
            }
            (D::V(a), D::U(b)) => {
                let n = n.min(a.len());
                let (c, a) = (&c[..n], &a[..n]);
                out.extend((0..n).map(|i| pick(c[i], a[i], *b)));
            }
            (D::U(a), D::V(b)) => {
                let n = n.min(b.len());
                let (c, b) = (&c[..n], &b[..n]);
                out.extend((0..n).map(|i| pick(c[i], *a, b[i])));
            }
            (D::U(a), D::U(b)) => out.extend(c.iter().map(|&c| pick(c, *a, *b))),
        }
        D::V(Cow::Owned(out))
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
