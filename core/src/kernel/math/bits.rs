//! Exact decomposition and scaling of floats built from comparisons, selects and products with
//! powers of two (the IR has no bit casts): `frexp`, `ldexp`, `nextafter`, `spacing`. Each step
//! is exact (a float times a power of two that stays in range is exact), so every backend gives
//! NumPy's bits wherever the device keeps subnormals.
//!
//! - `frexp` scales `|x|` into `[0.5, 1)` by a binary search over the exponent (multiplying by
//!   `2^±2^k`, k from high to low), after lifting subnormals by `2^digits`.
//! - `ldexp` recombines `frexp`'s parts: one product with an exact power of two for a normal
//!   result, `rint` of the scaled value for a subnormal one (one rounding either way).
//! - `nextafter` adds or subtracts one ulp of the *storage* format (float16 steps by its own ulps
//!   although it computes in float32); `spacing` is NumPy's `npy_spacing`/`npy_half_spacing`.

use super::{bin, fconst, un, Bind};
use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use crate::scalar::Scalar;

/// The binary format of a float dtype: significand digits and the `frexp` exponents of its
/// smallest normal (`2^(emin - 1)`) and of its overflow threshold (`2^emax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Significand digits, the implicit bit included (53 for float64).
    pub digits: i32,
    /// The `frexp` exponent of the smallest normal number.
    pub emin: i32,
    /// Every finite value is below `2^emax`.
    pub emax: i32,
}

impl FloatFormat {
    /// The format of float16, bfloat16, float32 or float64 (any other dtype: float64's).
    pub fn of(t: DType) -> FloatFormat {
        let (digits, emin, emax) = match t {
            DType::Float16 => (11, -13, 16),
            DType::BFloat16 => (8, -125, 128),
            DType::Float32 => (24, -125, 128),
            _ => (53, -1021, 1024),
        };
        FloatFormat { digits, emin, emax }
    }
    /// The smallest positive subnormal, `2^(emin - digits)`.
    pub fn min_subnormal(self) -> f64 {
        // (2^-1074 as one powi is 1 / 2^1074 = 1 / inf = 0.)
        2f64.powi(self.emin) * 2f64.powi(-self.digits)
    }
    /// The largest finite value, `(2 - 2^(1 - digits)) 2^(emax - 1)`.
    pub fn max(self) -> f64 {
        (2.0 - 2f64.powi(1 - self.digits)) * 2f64.powi(self.emax - 1)
    }
}

fn i32c(v: i32) -> Expr {
    Expr::constant(Scalar::Int32(v))
}
/// Bits of the exponent searches: float64 exponents need 10 (`2^512`), float32's 7 (`2^64`).
fn search_bits(t: DType) -> i32 {
    if t == DType::Float64 {
        10
    } else {
        7
    }
}

/// `frexp(x)`: `(m, e)` with `x = m 2^e`, `0.5 <= |m| < 1` and `e` an int32; `(x, 0)` for zeros,
/// infinities and NaN (C's `frexp`). `x` is float32 or float64.
pub fn frexp(b: &mut dyn Bind, x: Expr) -> (Expr, Expr) {
    let t = x.ty;
    let f = FloatFormat::of(t);
    let x = b.bind(x);
    let ax = b.bind(un(U::Abs, x.clone()));
    let sub = b.bind(bin(B::Lt, ax.clone(), fconst(t, 2f64.powi(f.emin - 1))));
    let lifted = bin(B::Mul, ax.clone(), fconst(t, 2f64.powi(f.digits)));
    let mut m = b.bind(Expr::select(sub.clone(), lifted, ax));
    let mut e = b.bind(Expr::select(sub, i32c(-f.digits), i32c(0)));
    let bits = search_bits(t);
    for k in (0..bits).rev() {
        let p = 2f64.powi(1 << k);
        let big = b.bind(bin(B::Ge, m.clone(), fconst(t, p)));
        m = b.bind(Expr::select(
            big.clone(),
            bin(B::Mul, m.clone(), fconst(t, 1.0 / p)),
            m,
        ));
        e = b.bind(bin(B::Add, e, Expr::select(big, i32c(1 << k), i32c(0))));
    }
    // Now m < 2; lift values below 2^-(2^k) (m >= 2^-(2^(k+1)) holds before each step).
    for k in (0..bits).rev() {
        let p = 2f64.powi(1 << k);
        let small = b.bind(bin(B::Lt, m.clone(), fconst(t, 1.0 / p)));
        m = b.bind(Expr::select(
            small.clone(),
            bin(B::Mul, m.clone(), fconst(t, p)),
            m,
        ));
        e = b.bind(bin(B::Sub, e, Expr::select(small, i32c(1 << k), i32c(0))));
    }
    let ge1 = b.bind(bin(B::Ge, m.clone(), fconst(t, 1.0)));
    let m = Expr::select(ge1.clone(), bin(B::Mul, m.clone(), fconst(t, 0.5)), m);
    let e = bin(B::Add, e, Expr::select(ge1, i32c(1), i32c(0)));
    let special = b.bind(bin(
        B::Or,
        bin(B::Eq, x.clone(), fconst(t, 0.0)),
        un(U::Not, un(U::IsFinite, x.clone())),
    ));
    let neg = bin(B::Lt, x.clone(), fconst(t, 0.0));
    let m = b.bind(Expr::select(neg, un(U::Neg, m.clone()), m));
    (
        Expr::select(special.clone(), x, m),
        Expr::select(special, i32c(0), e),
    )
}

/// `2^n` exactly, for an int32 `n` in the normal range of `t` (float32: `-126..=127`, float64:
/// `-1022..=1023`): a product of `2^(±2^k)` over the bits of `|n|`.
pub(super) fn pow2(b: &mut dyn Bind, n: Expr, t: DType) -> Expr {
    let n = b.bind(n);
    let an = b.bind(un(U::Abs, n.clone()));
    let neg = b.bind(bin(B::Lt, n, i32c(0)));
    let mut r = fconst(t, 1.0);
    for k in 0..search_bits(t) {
        let p = 2f64.powi(1 << k);
        let bit = bin(
            B::Ne,
            bin(B::And, bin(B::Shr, an.clone(), i32c(k)), i32c(1)),
            i32c(0),
        );
        let factor = Expr::select(
            bit,
            Expr::select(neg.clone(), fconst(t, 1.0 / p), fconst(t, p)),
            fconst(t, 1.0),
        );
        r = b.bind(bin(B::Mul, r, factor));
    }
    r
}

/// `2^n` exactly for an int32 `n` down to the smallest subnormal of `t` (and up to its largest
/// normal power).
pub(super) fn pow2_sub(b: &mut dyn Bind, n: Expr, t: DType) -> Expr {
    let f = FloatFormat::of(t);
    let n = b.bind(n);
    let lo = b.bind(bin(B::Lt, n.clone(), i32c(f.emin - 1)));
    let shifted = Expr::select(lo.clone(), bin(B::Add, n.clone(), i32c(f.digits)), n);
    let p = pow2(b, shifted, t);
    let p = b.bind(p);
    Expr::select(
        lo,
        bin(B::Mul, p.clone(), fconst(t, 2f64.powi(-f.digits))),
        p,
    )
}

/// `ldexp(x, n) = x 2^n` correctly rounded, `x` float32 or float64, `n` any integer
/// expression: `x = m 2^e` by [`frexp`], then `2m 2^(e+n-1)` with one product by an exact power
/// of two in the normal range, and subnormal results as `rint(2m 2^(e+n-1) / s) s` (`s` the
/// smallest subnormal), so the only rounding is `rint`'s. Every product has a data-dependent
/// operand, so a compiler that reassociates float products (llvmpipe does) cannot fold two
/// scale factors into one that overflows.
pub fn ldexp(b: &mut dyn Bind, x: Expr, n: Expr) -> Expr {
    let t = x.ty;
    let f = FloatFormat::of(t);
    let x = b.bind(x);
    // Past this every result has saturated (0 or inf): clamp before narrowing to int32.
    let lim = 4 * (f.emax - f.emin + f.digits) as i64;
    let nt = n.ty;
    let n = bin(
        B::Max,
        bin(B::Min, n, Expr::constant(Scalar::Int64(lim).cast(nt))),
        Expr::constant(Scalar::Int64(-lim).cast(nt)),
    )
    .cast(DType::Int32);
    let (m, e) = frexp(b, x.clone());
    let m = b.bind(m);
    // 2m in [1, 2) by an addition (no constant to fold), k the exponent of 2m.
    let m2 = b.bind(bin(B::Add, m.clone(), m));
    let k = b.bind(bin(B::Sub, bin(B::Add, e, n), i32c(1)));
    let emin1 = f.emin - 1;
    let emax1 = f.emax - 1;
    let normal = b.bind(bin(B::Ge, k.clone(), i32c(emin1)));
    let over = bin(B::Gt, k.clone(), i32c(emax1));
    let pk = pow2(
        b,
        bin(B::Min, bin(B::Max, k.clone(), i32c(emin1)), i32c(emax1)),
        t,
    );
    let r_normal = bin(B::Mul, m2.clone(), pk);
    // Subnormal: q = 2m 2^k / s has at most `digits` integer bits; below 1/4 it rounds to 0.
    let shift = -(f.emin - f.digits);
    let qk = bin(
        B::Min,
        bin(B::Max, bin(B::Add, k, i32c(shift)), i32c(-2)),
        i32c(f.digits),
    );
    let pq = pow2(b, qk, t);
    let q = bin(B::Mul, m2.clone(), pq);
    let j = super::rint(b, q);
    let r_sub = bin(B::Mul, j, fconst(t, f.min_subnormal()));
    let inf = Expr::select(
        bin(B::Lt, m2, fconst(t, 0.0)),
        fconst(t, f64::NEG_INFINITY),
        fconst(t, f64::INFINITY),
    );
    let r = Expr::select(over, inf, Expr::select(normal, r_normal, r_sub));
    let special = bin(
        B::Or,
        bin(B::Eq, x.clone(), fconst(t, 0.0)),
        un(U::Not, un(U::IsFinite, x.clone())),
    );
    Expr::select(special, x, r)
}

/// `nextafter(x, y)`: the value after `x` toward `y` in the format of `storage` (C's
/// `nextafter`; NaN if either is NaN, `y` if they are equal, `x` for float16 as NumPy's
/// `npy_half_nextafter`), `x` and `y` computed in float32 (float16, bfloat16, float32) or
/// float64.
pub fn nextafter(b: &mut dyn Bind, x: Expr, y: Expr, storage: DType) -> Expr {
    let t = x.ty;
    let f = FloatFormat::of(storage);
    let x = b.bind(x);
    let y = b.bind(y);
    let (m, e) = frexp(b, x.clone());
    let (m, e) = (b.bind(m), b.bind(e));
    let zero = fconst(t, 0.0);
    let up = b.bind(bin(B::Gt, y.clone(), x.clone()));
    let away = b.bind(un(
        U::Not,
        bin(B::Xor, up.clone(), bin(B::Gt, x.clone(), zero.clone())),
    ));
    // One ulp of x's binade (subnormals: the smallest subnormal); toward zero from a power of
    // two the step halves.
    let eu = bin(B::Sub, bin(B::Max, e.clone(), i32c(f.emin)), i32c(f.digits));
    let half = bin(
        B::And,
        un(U::Not, away),
        bin(
            B::And,
            bin(B::Eq, un(U::Abs, m), fconst(t, 0.5)),
            bin(B::Gt, e, i32c(f.emin)),
        ),
    );
    let eu = bin(B::Sub, eu, Expr::select(half, i32c(1), i32c(0)));
    let step = pow2_sub(b, eu, t);
    let step = b.bind(step);
    let r = bin(
        B::Add,
        x.clone(),
        Expr::select(up, step.clone(), un(U::Neg, step)),
    );
    // Rounded to the storage format: float16's max + ulp overflows there, not in float32.
    let r = b.bind(r.cast(storage).cast(t));
    // From the smallest subnormal toward zero: a zero of x's sign.
    let r = Expr::select(
        bin(B::Eq, r.clone(), fconst(t, 0.0)),
        bin(B::Mul, x.clone(), fconst(t, 0.0)),
        r,
    );
    let tiny = fconst(t, f.min_subnormal());
    let from_zero = Expr::select(
        bin(B::Gt, y.clone(), zero.clone()),
        tiny.clone(),
        un(U::Neg, tiny),
    );
    let big = fconst(t, f.max());
    let from_inf = Expr::select(
        bin(B::Gt, x.clone(), zero.clone()),
        big.clone(),
        un(U::Neg, big),
    );
    let nan = bin(B::Or, un(U::IsNan, x.clone()), un(U::IsNan, y.clone()));
    Expr::select(
        nan,
        bin(B::Add, x.clone(), y.clone()),
        Expr::select(
            bin(B::Eq, x.clone(), y.clone()),
            // Equal: C returns y; NumPy's float16 loop x (they differ on signed zeros).
            if storage == DType::Float16 {
                x.clone()
            } else {
                y
            },
            Expr::select(
                bin(B::Eq, x.clone(), zero),
                from_zero,
                Expr::select(un(U::IsInf, x), from_inf, r),
            ),
        ),
    )
}

/// `spacing(x)`: the distance from `x` to the next value of `storage`'s format away from zero,
/// with `x`'s sign (NumPy's `npy_spacing`; `+min_subnormal` at both zeros, NaN at infinities);
/// float16 steps toward `+inf` (`npy_half_spacing`: positive for negative `x`).
pub fn spacing(b: &mut dyn Bind, x: Expr, storage: DType) -> Expr {
    let t = x.ty;
    let f = FloatFormat::of(storage);
    let x = b.bind(x);
    let inf = fconst(t, f64::INFINITY);
    let target = if storage == DType::Float16 {
        inf
    } else {
        Expr::select(super::signbit(x.clone()), un(U::Neg, inf.clone()), inf)
    };
    let n = nextafter(b, x.clone(), target, storage);
    let s = bin(B::Sub, n, x.clone());
    let s = if storage == DType::Float16 {
        s
    } else {
        Expr::select(
            bin(B::Eq, x.clone(), fconst(t, 0.0)),
            fconst(t, f.min_subnormal()),
            s,
        )
    };
    Expr::select(un(U::IsFinite, x), s, fconst(t, f64::NAN))
}
