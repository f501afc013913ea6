//! Complex-number ufuncs (NumPy's "Handling complex numbers").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math;
use cupy_core::scalar::Scalar;

ufuncs! {
    family: "complex";
    /// The real part (`numpy.real`); real inputs are returned unchanged (a copy: cupy-rs has no
    /// views that reinterpret a complex buffer).
    real(x): Magnitude => |_, c| if c.is_complex() { un(U::Real, x) } else { x };
    /// The imaginary part (`numpy.imag`); zeros of the input's dtype for real inputs (a copy,
    /// as [`real`]).
    imag(x): Magnitude => |_, c| {
        if c.is_complex() {
            un(U::Imag, x)
        } else {
            Expr::constant(Scalar::zero(c))
        }
    };
    /// The counterclockwise angle from the positive real axis, in radians (`numpy.angle`;
    /// [`angle_with`] gives degrees): `arctan2(imag, real)`, `arctan2(0, x)` for real `x`.
    angle(z): Angle => |m, c| {
        if c.is_complex() {
            math::complex_angle(m, z)
        } else {
            bin(B::Atan2, math::fconst(c, 0.0), z)
        }
    };
    /// The complex conjugate (`numpy.conjugate`); real inputs are returned unchanged (bool
    /// as int8, NumPy's loop).
    conjugate(x): SameBoolAsInt8 => |_, c| if c.is_complex() { un(U::Conj, x) } else { x };
}

ufunc_aliases! {
    /// `numpy.conj`: another name of `conjugate`.
    conj = conjugate(x);
}

/// The options of [`angle_with`]: NumPy's `deg` keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Angle {
    /// Degrees instead of radians.
    pub deg: bool,
}

impl From<bool> for Angle {
    fn from(deg: bool) -> Angle {
        Angle { deg }
    }
}

/// `numpy.angle(z, deg)`: [`angle`], times `180/pi` in the result's dtype when `deg` (NumPy's
/// `a *= 180/pi`).
///
/// # Errors
/// As [`angle`].
pub fn angle_with<'a>(
    z: impl Into<crate::math::ufunc::Arg<'a>>,
    options: impl Into<Angle>,
) -> cupy_core::error::Result<crate::array::Array> {
    let a = angle(z)?;
    if options.into().deg {
        crate::math::ufunc::apply(
            &super::ufuncs::multiply,
            &[(&a).into(), (180.0 / std::f64::consts::PI).into()],
            Some(&a),
        )
    } else {
        Ok(a)
    }
}
