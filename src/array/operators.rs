//! Rust operators on arrays. Every operator returns `Result<Array>` (as candle does), so shape
//! and dtype errors surface as values: `let z = (&x + &y)?;`, `let w = (&x * 2.0)?;`.
//! Rust scalars are weak (NEP 50): `f32_array * 2.0` stays float32.

use crate::array::Array;
use crate::math::ufunc::{apply, Arg};
use crate::math::ufuncs;
use cupy_core::error::Result;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Sub};

macro_rules! binop {
    ($tr:ident, $m:ident, $u:ident) => {
        impl $tr<&Array> for &Array {
            type Output = Result<Array>;
            fn $m(self, rhs: &Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(self), Arg::Array(rhs)], None)
            }
        }
        impl $tr<Array> for &Array {
            type Output = Result<Array>;
            fn $m(self, rhs: Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(self), Arg::Array(&rhs)], None)
            }
        }
        impl $tr<&Array> for Array {
            type Output = Result<Array>;
            fn $m(self, rhs: &Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(&self), Arg::Array(rhs)], None)
            }
        }
        impl $tr<Array> for Array {
            type Output = Result<Array>;
            fn $m(self, rhs: Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(&self), Arg::Array(&rhs)], None)
            }
        }
        impl<T: ScalarOperand> $tr<T> for &Array {
            type Output = Result<Array>;
            fn $m(self, rhs: T) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(self), rhs.into()], None)
            }
        }
        impl<T: ScalarOperand> $tr<T> for Array {
            type Output = Result<Array>;
            fn $m(self, rhs: T) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::Array(&self), rhs.into()], None)
            }
        }
        binop!(@scalars $tr, $m, $u, f64, i64);
    };
    (@scalars $tr:ident, $m:ident, $u:ident, $($t:ty),*) => {$(
        impl $tr<&Array> for $t {
            type Output = Result<Array>;
            fn $m(self, rhs: &Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::from(self), Arg::Array(rhs)], None)
            }
        }
        impl $tr<Array> for $t {
            type Output = Result<Array>;
            fn $m(self, rhs: Array) -> Result<Array> {
                apply(&ufuncs::$u, &[Arg::from(self), Arg::Array(&rhs)], None)
            }
        }
    )*};
}

/// Rust scalars usable on the right of an operator with an array (`&a * 2.0`, `&a + 1`). They
/// are weak (NEP 50). Unsuffixed literals work: the generic impl lets them fall back to `f64`/`i32`.
/// On the left (`2.0 * &a`) only `f64` and `i64` are accepted, so literals still infer.
pub trait ScalarOperand: Into<Arg<'static>> + Copy {}
macro_rules! scalar_operand {
    ($($t:ty),*) => {$( impl ScalarOperand for $t {} )*};
}
scalar_operand!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

binop!(Add, add, add);
binop!(Sub, sub, subtract);
binop!(Mul, mul, multiply);
binop!(Div, div, true_divide);
binop!(Rem, rem, remainder);
binop!(BitAnd, bitand, bitwise_and);
binop!(BitOr, bitor, bitwise_or);
binop!(BitXor, bitxor, bitwise_xor);

impl Neg for &Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        apply(&ufuncs::negative, &[Arg::Array(self)], None)
    }
}
impl Neg for Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        apply(&ufuncs::negative, &[Arg::Array(&self)], None)
    }
}
impl Not for &Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        apply(&ufuncs::invert, &[Arg::Array(self)], None)
    }
}
