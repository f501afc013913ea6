//! Bitwise ufuncs (NumPy's "Bit-twiddling functions").

use super::ufunc::{bin, un};
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math::Bind;
use cupy_core::scalar::Scalar;

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
    /// The number of 1-bits in `|x|` (`numpy.bitwise_count`, NumPy 2), as uint8; integers, bool
    /// counted as int8. Counted by bit-slicing sums (no population-count instruction is
    /// assumed of a backend); 64-bit integers as two 32-bit halves.
    bitwise_count(x): BitCount => |m, c| bit_count(m, c, x);
}

/// `popcount(|x|)` of an integer `x` of dtype `c`, as uint8 (see `bitwise_count`).
fn bit_count(m: &mut dyn Bind, c: DType, x: Expr) -> Expr {
    // |x| in the unsigned dtype of the same width (|MIN| wraps to MIN: one bit, as NumPy).
    let unsigned = match c.itemsize() {
        1 => DType::UInt8,
        2 => DType::UInt16,
        4 => DType::UInt32,
        _ => DType::UInt64,
    };
    let magnitude = if c.is_signed_integer() {
        un(U::Abs, x)
    } else {
        x
    };
    let v = m.bind(magnitude.cast(unsigned));
    let total = if c.itemsize() == 8 {
        let low = count32(m, v.clone().cast(DType::UInt32));
        let high = count32(m, bin(B::Shr, v, u64c(32)).cast(DType::UInt32));
        bin(B::Add, low, high)
    } else {
        count32(m, v.cast(DType::UInt32))
    };
    total.cast(DType::UInt8)
}

/// The 1-bits of a uint32 (the bit-slicing sums of "Hacker's Delight", 5-1).
fn count32(m: &mut dyn Bind, v: Expr) -> Expr {
    let c = |v: u32| Expr::constant(Scalar::UInt32(v));
    let v = m.bind(v);
    let v = m.bind(bin(
        B::Sub,
        v.clone(),
        bin(B::And, bin(B::Shr, v, c(1)), c(0x5555_5555)),
    ));
    let v = m.bind(bin(
        B::Add,
        bin(B::And, v.clone(), c(0x3333_3333)),
        bin(B::And, bin(B::Shr, v, c(2)), c(0x3333_3333)),
    ));
    let v = m.bind(bin(
        B::And,
        bin(B::Add, v.clone(), bin(B::Shr, v, c(4))),
        c(0x0f0f_0f0f),
    ));
    let v = m.bind(bin(B::Add, v.clone(), bin(B::Shr, v, c(8))));
    let v = m.bind(bin(B::Add, v.clone(), bin(B::Shr, v, c(16))));
    bin(B::And, v, c(0x3f))
}

fn u64c(v: u64) -> Expr {
    Expr::constant(Scalar::UInt64(v))
}

ufunc_aliases! {
    /// `numpy.bitwise_not`: another name of `invert`.
    bitwise_not = invert(x);
    /// `numpy.bitwise_invert` (NumPy 2, the array API's name): another name of `invert`.
    bitwise_invert = invert(x);
    /// `numpy.bitwise_left_shift` (NumPy 2): another name of `left_shift`.
    bitwise_left_shift = left_shift(x1, x2);
    /// `numpy.bitwise_right_shift` (NumPy 2): another name of `right_shift`.
    bitwise_right_shift = right_shift(x1, x2);
}
