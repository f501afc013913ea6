//! Integer and bool arithmetic on columns (NumPy semantics: wrapping, floor division,
//! remainder, shifts, division by zero gives 0).

use super::{zip, Col, Elem, D};
use cupy_core::kernel::ir::{BinaryOp, UnaryOp};

/// Integer operations with NumPy's results.
pub trait IntOps: Copy + Ord + Default + Elem {
    fn w_add(self, b: Self) -> Self;
    fn w_sub(self, b: Self) -> Self;
    fn w_mul(self, b: Self) -> Self;
    fn w_neg(self) -> Self;
    fn w_abs(self) -> Self;
    fn div0(self, b: Self) -> Self;
    fn floordiv0(self, b: Self) -> Self;
    fn mod0(self, b: Self) -> Self;
    fn ipow(self, b: Self) -> Self;
    fn shl_np(self, b: Self) -> Self;
    /// The high half of the double-width product (`BinaryOp::MulHi`).
    fn mulhi(self, b: Self) -> Self;
    fn shr_np(self, b: Self) -> Self;
    fn not(self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn xor(self, b: Self) -> Self;
}

macro_rules! int_ops {
    ($t:ty, $signed:expr) => {
        impl IntOps for $t {
            #[inline(always)]
            fn w_add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn w_sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline(always)]
            fn w_mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn w_neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn w_abs(self) -> Self {
                if self < 0 as $t {
                    self.wrapping_neg()
                } else {
                    self
                }
            }
            #[inline(always)]
            fn div0(self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    self.wrapping_div(b)
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn floordiv0(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let q = self.wrapping_div(b);
                let r = self.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn mod0(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r.wrapping_add(b)
                } else {
                    r
                }
            }
            #[allow(unused_comparisons)]
            fn ipow(self, b: Self) -> Self {
                if b < 0 as $t {
                    // NumPy raises; kernels give 0 unless the base is 1 or -1.
                    return if self == 1 {
                        1
                    } else if $signed && self == (0 as $t).wrapping_sub(1) {
                        if b & 1 == 1 {
                            self
                        } else {
                            1
                        }
                    } else {
                        0
                    };
                }
                let mut e = b as u64;
                let mut base = self;
                let mut acc: $t = 1;
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    e >>= 1;
                    if e > 0 {
                        base = base.wrapping_mul(base);
                    }
                }
                acc
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn mulhi(self, b: Self) -> Self {
                ((self as i128).wrapping_mul(b as i128) >> <$t>::BITS) as $t
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl_np(self, b: Self) -> Self {
                if b >= 0 as $t && (b as u64) < <$t>::BITS as u64 {
                    self << (b as u32)
                } else {
                    0
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr_np(self, b: Self) -> Self {
                if b >= 0 as $t && (b as u64) < <$t>::BITS as u64 {
                    self >> (b as u32)
                } else if self < 0 as $t {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn and(self, b: Self) -> Self {
                self & b
            }
            #[inline(always)]
            fn or(self, b: Self) -> Self {
                self | b
            }
            #[inline(always)]
            fn xor(self, b: Self) -> Self {
                self ^ b
            }
        }
    };
}
int_ops!(i8, true);
int_ops!(i16, true);
int_ops!(i32, true);
int_ops!(i64, true);
int_ops!(u8, false);
int_ops!(u16, false);
int_ops!(u32, false);
int_ops!(u64, false);

pub(super) fn int_bin<T: IntOps>(
    op: BinaryOp,
    a: &D<'_, T>,
    b: &D<'_, T>,
) -> Result<Col<'static>, String> {
    use BinaryOp::*;
    Ok(match op {
        Add => T::wrap(zip(a, b, T::w_add)),
        Sub => T::wrap(zip(a, b, T::w_sub)),
        Mul => T::wrap(zip(a, b, T::w_mul)),
        Div => T::wrap(zip(a, b, T::div0)),
        FloorDiv => T::wrap(zip(a, b, T::floordiv0)),
        Mod => T::wrap(zip(a, b, T::mod0)),
        Pow => T::wrap(zip(a, b, T::ipow)),
        Max | FMax => T::wrap(zip(a, b, |x, y| if x >= y { x } else { y })),
        Min | FMin => T::wrap(zip(a, b, |x, y| if x <= y { x } else { y })),
        Eq => Col::B(zip(a, b, |x, y| (x == y) as u8)),
        Ne => Col::B(zip(a, b, |x, y| (x != y) as u8)),
        Lt => Col::B(zip(a, b, |x, y| (x < y) as u8)),
        Le => Col::B(zip(a, b, |x, y| (x <= y) as u8)),
        Gt => Col::B(zip(a, b, |x, y| (x > y) as u8)),
        Ge => Col::B(zip(a, b, |x, y| (x >= y) as u8)),
        And => T::wrap(zip(a, b, T::and)),
        Or => T::wrap(zip(a, b, T::or)),
        Xor => T::wrap(zip(a, b, T::xor)),
        Shl => T::wrap(zip(a, b, T::shl_np)),
        Shr => T::wrap(zip(a, b, T::shr_np)),
        MulHi => T::wrap(zip(a, b, T::mulhi)),
        Atan2 => return Err("atan2 needs float operands".into()),
        Complex => return Err("complex() needs float operands".into()),
    }
    .owned())
}

pub(super) fn bool_bin(op: BinaryOp, a: &D<'_, u8>, b: &D<'_, u8>) -> Result<Col<'static>, String> {
    use BinaryOp::*;
    let r = match op {
        Add | Or | Max | FMax => zip(a, b, |x, y| x | y),
        Mul | And | Min | FMin => zip(a, b, |x, y| x & y),
        Sub | Xor | Ne => zip(a, b, |x, y| x ^ y),
        Eq => zip(a, b, |x, y| (x == y) as u8),
        Lt => zip(a, b, |x, y| (x < y) as u8),
        Le => zip(a, b, |x, y| (x <= y) as u8),
        Gt => zip(a, b, |x, y| (x > y) as u8),
        Ge => zip(a, b, |x, y| (x >= y) as u8),
        // bool ** bool, bool // bool: as uint8 arithmetic then != 0.
        Pow => zip(a, b, |x, y| (x.ipow(y) != 0) as u8),
        Div | FloorDiv => zip(a, b, |x, y| (x.div0(y) != 0) as u8),
        Mod => zip(a, b, |x, y| (x.mod0(y) != 0) as u8),
        Shl => zip(a, b, |x, y| (x.shl_np(y) != 0) as u8),
        Shr => zip(a, b, |x, y| (x.shr_np(y) != 0) as u8),
        MulHi => return Err("mulhi needs uint32 operands".into()),
        Atan2 => return Err("atan2 needs float operands".into()),
        Complex => return Err("complex() needs float operands".into()),
    };
    Ok(Col::B(r))
}

pub(super) fn int_un<T: IntOps>(op: UnaryOp, a: &D<'_, T>) -> Result<Col<'static>, String> {
    use UnaryOp::*;
    let zero = T::default();
    Ok(match op {
        Neg => T::wrap(a.map(T::w_neg)),
        Abs => T::wrap(a.map(T::w_abs)),
        BitNot => T::wrap(a.map(T::not)),
        Not => Col::B(a.map(|x| (x == zero) as u8)),
        Floor | Ceil => T::wrap(a.map(|x| x)),
        IsNan | IsInf => Col::B(a.map(|_| 0)),
        IsFinite => Col::B(a.map(|_| 1)),
        Sqrt | Exp | Log | Sin | Cos | Tan | Tanh => {
            return Err(format!("{op:?} needs a float operand"))
        }
        Real | Imag | Conj => return Err(format!("{op:?} needs a complex operand")),
    }
    .owned())
}
