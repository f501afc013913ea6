//! Comparison and logic ufuncs (NumPy's "Comparison functions" and "Logic functions").

use super::ufunc::{bin, un};
use cupy_core::kernel::ir::{BinaryOp as B, UnaryOp as U};

ufuncs! {
    family: "logic";
    /// `x1 == x2` (`numpy.equal`).
    equal(x1, x2): Compare => |_, _| bin(B::Eq, x1, x2);
    /// `x1 != x2` (`numpy.not_equal`).
    not_equal(x1, x2): Compare => |_, _| bin(B::Ne, x1, x2);
    /// `x1 < x2` (`numpy.less`).
    less(x1, x2): Compare => |_, _| bin(B::Lt, x1, x2);
    /// `x1 <= x2` (`numpy.less_equal`).
    less_equal(x1, x2): Compare => |_, _| bin(B::Le, x1, x2);
    /// `x1 > x2` (`numpy.greater`).
    greater(x1, x2): Compare => |_, _| bin(B::Gt, x1, x2);
    /// `x1 >= x2` (`numpy.greater_equal`).
    greater_equal(x1, x2): Compare => |_, _| bin(B::Ge, x1, x2);
    /// `x1 and x2` on truth values (`numpy.logical_and`).
    logical_and(x1, x2): Logical => |_, _| bin(B::And, x1, x2);
    /// `x1 or x2` on truth values (`numpy.logical_or`).
    logical_or(x1, x2): Logical => |_, _| bin(B::Or, x1, x2);
    /// `x1 xor x2` on truth values (`numpy.logical_xor`).
    logical_xor(x1, x2): Logical => |_, _| bin(B::Xor, x1, x2);
    /// `not x` on truth values (`numpy.logical_not`).
    logical_not(x): Logical => |_, _| un(U::Not, x);
}
