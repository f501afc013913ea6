//! Trigonometric ufuncs (NumPy's "Trigonometric functions").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, UnaryOp as U};
use cupy_core::kernel::math;

ufuncs! {
    family: "trig";
    /// Sine (`numpy.sin`).
    sin(x): Float => |_, _| un(U::Sin, x);
    /// Cosine (`numpy.cos`).
    cos(x): Float => |_, _| un(U::Cos, x);
    /// Tangent (`numpy.tan`).
    tan(x): Float => |_, _| un(U::Tan, x);
    /// Inverse sine (`numpy.arcsin`), as `atan2(x, sqrt((1 - x)(1 + x)))`; complex with NumPy's
    /// branch cuts (`cupy_core::kernel::math::complex_arcsin`).
    arcsin(x): Float => |m, c| if c.is_complex() { math::complex_arcsin(m, x) } else { math::arcsin(m, x) };
    /// Inverse cosine (`numpy.arccos`), as `atan2(sqrt((1 - x)(1 + x)), x)`; complex with
    /// NumPy's branch cuts.
    arccos(x): Float => |m, c| if c.is_complex() { math::complex_arccos(m, x) } else { math::arccos(m, x) };
    /// Inverse tangent (`numpy.arctan`), as `atan2(x, 1)`; complex with NumPy's branch cuts.
    arctan(x): Float => |m, c| if c.is_complex() { math::complex_arctan(m, x) } else { math::arctan(x) };
    /// The angle of the point `(x2, x1)` (`numpy.arctan2`).
    arctan2(x1, x2): FloatReal => |_, _| bin(B::Atan2, x1, x2);
    /// `sqrt(x1^2 + x2^2)` without overflow (`numpy.hypot`).
    hypot(x1, x2): FloatReal => |m, _| math::hypot(m, x1, x2);
    /// Degrees to radians (`numpy.deg2rad`).
    deg2rad(x): FloatReal => |_, _| math::deg2rad(x);
    /// Radians to degrees (`numpy.rad2deg`).
    rad2deg(x): FloatReal => |_, _| math::rad2deg(x);
}

ufunc_aliases! {
    /// `numpy.radians`: another name of `deg2rad`.
    radians = deg2rad(x);
    /// `numpy.degrees`: another name of `rad2deg`.
    degrees = rad2deg(x);
    /// `numpy.acos` (NumPy 2, the array API's name): another name of `arccos`.
    acos = arccos(x);
    /// `numpy.asin` (NumPy 2): another name of `arcsin`.
    asin = arcsin(x);
    /// `numpy.atan` (NumPy 2): another name of `arctan`.
    atan = arctan(x);
    /// `numpy.atan2` (NumPy 2): another name of `arctan2`.
    atan2 = arctan2(x1, x2);
}
