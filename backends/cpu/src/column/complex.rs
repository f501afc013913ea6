//! Complex arithmetic on columns (NumPy's loops; see `cmath`).

use super::float::FloatOps;
use super::{zip, Col, Elem, D};
use crate::cmath;
use cupy_core::kernel::ir::{BinaryOp, UnaryOp};
use cupy_core::DType;
use num_complex::Complex;

pub(super) fn complex_bin<T: FloatOps>(
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
        FloorDiv | Mod | And | Or | Xor | Shl | Shr | Atan2 | MulHi | Complex => {
            return Err(format!("{op:?} is not defined for complex operands"))
        }
    }
    .owned())
}

pub(super) fn complex_un<T: FloatOps>(
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
