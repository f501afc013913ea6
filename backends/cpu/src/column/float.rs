//! Float arithmetic on columns (NumPy's `npy_divmod`, NaN-propagating `maximum`/`minimum`,
//! `fmax`/`fmin`); exp, log, sin, cos, tanh and pow run the vector routines of [`crate::vmath`].

use super::{zip, Col, Elem, D};
use crate::vmath::VMath;
use cupy_core::kernel::ir::{BinaryOp, UnaryOp};
use num_complex::Complex;
use num_traits::Float;
use std::borrow::Cow;

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
pub trait FloatOps: Float + Elem + VMath {}
impl FloatOps for f32 {}
impl FloatOps for f64 {}

/// `f` (a slice function of [`crate::vmath`]) over a column; a uniform runs as one lane, so it
/// gets the same value a vector lane would.
fn vmap<T: FloatOps>(a: &D<'_, T>, f: fn(&[T], &mut [T])) -> D<'static, T> {
    match a {
        D::U(x) => {
            let mut o = [T::zero()];
            f(&[*x], &mut o);
            D::U(o[0])
        }
        D::V(v) => {
            let mut o = vec![T::zero(); v.len()];
            f(v, &mut o);
            D::V(Cow::Owned(o))
        }
    }
}

/// Binary `f` of [`crate::vmath`] over two columns (a uniform operand is expanded).
fn vzip<T: FloatOps>(a: &D<'_, T>, b: &D<'_, T>, f: fn(&[T], &[T], &mut [T])) -> D<'static, T> {
    let n = match (a, b) {
        (D::U(x), D::U(y)) => {
            let mut o = [T::zero()];
            f(&[*x], &[*y], &mut o);
            return D::U(o[0]);
        }
        (D::V(v), _) | (_, D::V(v)) => v.len(),
    };
    let (ea, eb);
    let x: &[T] = match a {
        D::V(v) => v,
        D::U(_) => {
            ea = a.expand(n);
            &ea
        }
    };
    let y: &[T] = match b {
        D::V(v) => v,
        D::U(_) => {
            eb = b.expand(n);
            &eb
        }
    };
    let mut o = vec![T::zero(); n];
    f(x, y, &mut o);
    D::V(Cow::Owned(o))
}

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

/// The operations [`vmath_into`] writes straight into an output.
#[derive(Clone, Copy, Debug)]
pub enum VOp {
    /// exp, log, sin, cos or tanh.
    Un(UnaryOp),
    /// pow.
    Pow,
}

impl VOp {
    /// The unary ops with a vector routine.
    pub fn of(op: UnaryOp) -> Option<VOp> {
        use UnaryOp::*;
        matches!(op, Exp | Log | Sin | Cos | Tanh).then_some(VOp::Un(op))
    }
}

/// `op(a[, b])` for `n` lanes written to `dst` (float32 or float64 as `a`); false, with nothing
/// written, for a uniform unary operand, other types, or an operand overlapping `dst`.
///
/// # Safety
/// `dst` must be valid for writing `n` elements of `a`'s type, and nothing else may access
/// that memory during the call except through `a` or `b` (overlap is detected and refused).
pub unsafe fn vmath_into(
    op: VOp,
    a: &Col<'_>,
    b: Option<&Col<'_>>,
    dst: *mut u8,
    n: usize,
) -> bool {
    unsafe fn go<T: FloatOps>(
        op: VOp,
        a: &D<'_, T>,
        b: Option<&D<'_, T>>,
        dst: *mut T,
        n: usize,
    ) -> bool {
        let apart = |v: &[T]| {
            let (p, q) = (v.as_ptr() as usize, dst as usize);
            let bytes = n * std::mem::size_of::<T>();
            p + std::mem::size_of_val(v) <= q || q + bytes <= p
        };
        let ea;
        let x: &[T] = match a {
            D::V(v) if v.len() == n && apart(v) => v,
            D::U(_) if matches!(op, VOp::Pow) => {
                ea = a.expand(n);
                &ea
            }
            _ => return false,
        };
        match (op, b) {
            (VOp::Un(op), None) => {
                use UnaryOp::*;
                let f: fn(&[T], &mut [T]) = match op {
                    Exp => T::vexp,
                    Log => T::vlog,
                    Sin => T::vsin,
                    Cos => T::vcos,
                    Tanh => T::vtanh,
                    _ => return false,
                };
                // SAFETY: the caller's contract; `x` does not overlap.
                f(x, std::slice::from_raw_parts_mut(dst, n));
                true
            }
            (VOp::Pow, Some(b)) => {
                let e;
                let y: &[T] = match b {
                    D::V(v) if v.len() == n && apart(v) => v,
                    D::V(_) => return false,
                    D::U(_) => {
                        e = b.expand(n);
                        &e
                    }
                };
                T::vpow(x, y, std::slice::from_raw_parts_mut(dst, n));
                true
            }
            _ => false,
        }
    }
    match (a, b) {
        (Col::F32(x), None) => go(op, x, None, dst as *mut f32, n),
        (Col::F64(x), None) => go(op, x, None, dst as *mut f64, n),
        (Col::F32(x), Some(Col::F32(y))) => go(op, x, Some(y), dst as *mut f32, n),
        (Col::F64(x), Some(Col::F64(y))) => go(op, x, Some(y), dst as *mut f64, n),
        _ => false,
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
        Pow => T::wrap(vzip(a, b, T::vpow)),
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
        And | Or | Xor | Shl | Shr | MulHi => return Err(format!("{op:?} needs integer operands")),
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
        Exp => T::wrap(vmap(a, T::vexp)),
        Log => T::wrap(vmap(a, T::vlog)),
        Sin => T::wrap(vmap(a, T::vsin)),
        Cos => T::wrap(vmap(a, T::vcos)),
        Tan => T::wrap(a.map(|x| x.tan())),
        Tanh => T::wrap(vmap(a, T::vtanh)),
        Floor => T::wrap(a.map(|x| x.floor())),
        Ceil => T::wrap(a.map(|x| x.ceil())),
        IsNan => Col::B(a.map(|x| x.is_nan() as u8)),
        IsInf => Col::B(a.map(|x| x.is_infinite() as u8)),
        IsFinite => Col::B(a.map(|x| x.is_finite() as u8)),
        Real | Imag | Conj => return Err(format!("{op:?} needs a complex operand")),
    }
    .owned())
}
