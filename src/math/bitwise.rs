//! Bitwise ufuncs (NumPy's "Bit-twiddling functions").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, UnaryOp as U};

ufuncs! {
    family: "bitwise";
    /// `x1 & x2` (`numpy.bitwise_and`); integers and bool.
    bitwise_and(x1, x2): Bitwise => |_, _| bin(B::And, x1, x2);
    /// `x1 | x2` (`numpy.bitwise_or`); integers and bool.
    bitwise_or(x1, x2): Bitwise => |_, _| bin(B::Or, x1, x2);
    /// `x1 ^ x2` (`numpy.bitwise_xor`); integers and bool.
    bitwise_xor(x1, x2): Bitwise => |_, _| bin(B::Xor, x1, x2);
    /// `~x` (`numpy.invert`); on bool, logical not.
    invert(x): Bitwise => |_, c| if c.is_bool() { un(U::Not, x) } else { un(U::BitNot, x) };
    /// `x1 << x2` (`numpy.left_shift`); integers.
    left_shift(x1, x2): Integer => |_, _| bin(B::Shl, x1, x2);
    /// `x1 >> x2`, arithmetic for signed types (`numpy.right_shift`); integers.
    right_shift(x1, x2): Integer => |_, _| bin(B::Shr, x1, x2);
}

ufunc_aliases! {
    /// `numpy.bitwise_not`: another name of `invert`.
    bitwise_not = invert(x);
}
