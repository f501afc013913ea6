//! Float arithmetic on columns (NumPy's `npy_divmod`, NaN-propagating `maximum`/`minimum`,
//! `fmax`/`fmin`).

use super::{zip, Col, Elem, D};
use cupy_core::kernel::ir::{BinaryOp, UnaryOp};
use num_complex::Complex;
use num_traits::Float;

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

pub(super) fn float_bin<T: FloatOps>(
    op: BinaryOp,
    a: &D<'_, T>,
    b: &D<'_, T>,
) -> Result<Col<'static>, String>
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

pub(super) fn float_un<T: FloatOps>(op: UnaryOp, a: &D<'_, T>) -> Result<Col<'static>, String> {
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
