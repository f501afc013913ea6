//! Compositions of NumPy's arithmetic ufuncs that the IR has no node for: `cbrt`, `heaviside`,
//! `sign` (real and complex), the complex `reciprocal`, `modf`, `gcd`, `lcm`.
//!
//! - `cbrt`: `pow(|x|, 1/3)` refined by one Newton step (`y - (y - a / y^2) / 3`), the sign
//!   put back (`cbrt(-0.0)` is `-0.0`).
//! - complex `sign` and `reciprocal` follow NumPy's loops (`z / |z|` with its infinity rules;
//!   Smith's division of `1` by `z`, NumPy's order of operations, so zero signs agree).
//! - `gcd`/`lcm`: Euclid's algorithm on the magnitudes in the unsigned type of the same width
//!   (NumPy's `npy_gcdu`, so `gcd(int8 -128, -128)` wraps to -128 as there), unrolled to the
//!   largest step count of that width (Lamé's bound).

use super::{bin, fconst, signbit, un, Bind};
use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use crate::scalar::Scalar;

/// The cube root of a real float `x`.
pub fn cbrt(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let a = b.bind(un(U::Abs, x.clone()));
    let y = b.bind(bin(B::Pow, a.clone(), fconst(t, 1.0 / 3.0)));
    let newton = bin(
        B::Sub,
        y.clone(),
        bin(
            B::Div,
            bin(
                B::Sub,
                y.clone(),
                bin(B::Div, a.clone(), bin(B::Mul, y.clone(), y)),
            ),
            fconst(t, 3.0),
        ),
    );
    let special = bin(
        B::Or,
        bin(B::Eq, a.clone(), fconst(t, 0.0)),
        un(U::Not, un(U::IsFinite, a.clone())),
    );
    let r = b.bind(Expr::select(special, a, newton));
    Expr::select(signbit(x), un(U::Neg, r.clone()), r)
}

/// The Heaviside step of a real float `x`: 0 below zero, `h0` at zero, 1 above, NaN for NaN.
pub fn heaviside(b: &mut dyn Bind, x: Expr, h0: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            bin(B::Lt, x.clone(), fconst(t, 0.0)),
            fconst(t, 0.0),
            Expr::select(bin(B::Gt, x, fconst(t, 0.0)), fconst(t, 1.0), h0),
        ),
    )
}

/// The sign of a real `x` (integer or float): -1, 0 or 1 in `x`'s dtype; NaN stays NaN and both
/// zeros give `+0` (NumPy's loop).
pub fn sign(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let k = |v: i64| Expr::constant(Scalar::Int64(v).cast(t));
    let zero_or_nan = if t.is_float() {
        Expr::select(bin(B::Eq, x.clone(), k(0)), k(0), x.clone())
    } else {
        k(0)
    };
    Expr::select(
        bin(B::Gt, x.clone(), k(0)),
        k(1),
        Expr::select(bin(B::Lt, x, k(0)), k(-1), zero_or_nan),
    )
}

/// The sign of a complex `z`, `z / |z|` (NumPy 2): `0` at zero, NaN when `|z|` is NaN or both
/// parts are infinite, `±1` along the infinite part otherwise.
pub fn complex_sign(b: &mut dyn Bind, z: Expr) -> Expr {
    let z = b.bind(z);
    let re = b.bind(un(U::Real, z.clone()));
    let im = b.bind(un(U::Imag, z));
    let rt = re.ty;
    let abs = super::hypot(b, re.clone(), im.clone());
    let abs = b.bind(abs);
    let c = |v: f64| fconst(rt, v);
    let unit = |b: &mut dyn Bind, v: &Expr| {
        let v = b.bind(v.clone());
        Expr::select(bin(B::Gt, v, c(0.0)), c(1.0), c(-1.0))
    };
    let ure = unit(b, &re);
    let uim = unit(b, &im);
    let re_inf = b.bind(un(U::IsInf, re.clone()));
    let both_inf = bin(B::And, re_inf.clone(), un(U::IsInf, im.clone()));
    let nan = b.bind(bin(B::Or, un(U::IsNan, abs.clone()), both_inf));
    let inf = b.bind(un(U::IsInf, abs.clone()));
    let is_zero = b.bind(bin(B::Eq, abs.clone(), c(0.0)));
    let part = |v: Expr, inf_value: Expr| {
        let q = bin(B::Div, v, abs.clone());
        Expr::select(
            nan.clone(),
            c(f64::NAN),
            Expr::select(
                inf.clone(),
                inf_value,
                Expr::select(is_zero.clone(), c(0.0), q),
            ),
        )
    };
    let r = part(re, Expr::select(re_inf.clone(), ure, c(0.0)));
    let i = part(im, Expr::select(re_inf, c(0.0), uim));
    Expr::complex(r, i)
}

/// `1 / z` for a complex `z`, as NumPy's loop: Smith's method on the larger part
/// (`r = im/re, d = re + im r -> (1/d, -r/d)`, or the mirror).
pub fn complex_reciprocal(b: &mut dyn Bind, z: Expr) -> Expr {
    let z = b.bind(z);
    let re = b.bind(un(U::Real, z.clone()));
    let im = b.bind(un(U::Imag, z));
    let rt = re.ty;
    let one = fconst(rt, 1.0);
    let by_re = b.bind(bin(B::Le, un(U::Abs, im.clone()), un(U::Abs, re.clone())));
    // by_re: r = im / re, d = re + im r; else r = re / im, d = re r + im.
    let r = b.bind(Expr::select(
        by_re.clone(),
        bin(B::Div, im.clone(), re.clone()),
        bin(B::Div, re.clone(), im.clone()),
    ));
    let d = b.bind(Expr::select(
        by_re.clone(),
        bin(B::Add, re.clone(), bin(B::Mul, im.clone(), r.clone())),
        bin(B::Add, bin(B::Mul, re, r.clone()), im),
    ));
    let out_re = Expr::select(
        by_re.clone(),
        bin(B::Div, one.clone(), d.clone()),
        bin(B::Div, r.clone(), d.clone()),
    );
    let out_im = Expr::select(
        by_re,
        bin(B::Div, un(U::Neg, r), d.clone()),
        bin(B::Div, un(U::Neg, one), d),
    );
    Expr::complex(out_re, out_im)
}

/// `modf(x)`: `(fractional part, integral part)` of a real float, both with `x`'s sign (C's
/// `modf`: `modf(-inf)` is `(-0.0, -inf)`, NaN gives NaN twice).
pub fn modf(b: &mut dyn Bind, x: Expr) -> (Expr, Expr) {
    let t = x.ty;
    let x = b.bind(x);
    let int = b.bind(super::trunc(x.clone()));
    let frac = Expr::select(
        un(U::IsInf, x.clone()),
        fconst(t, 0.0),
        bin(B::Sub, x.clone(), int.clone()),
    );
    let frac = b.bind(frac);
    let afrac = b.bind(un(U::Abs, frac.clone()));
    let signed = Expr::select(signbit(x), un(U::Neg, afrac.clone()), afrac);
    (Expr::select(un(U::IsNan, frac.clone()), frac, signed), int)
}

/// The greatest common divisor of two integers of one dtype, non-negative except where the
/// magnitude wraps (NumPy: `gcd(-128, -128)` in int8 is -128).
pub fn gcd(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    let t = x.ty;
    gcd_unsigned(b, x, y).1.cast(t)
}

/// The least common multiple of two integers of one dtype: `|x| / gcd * |y|` with wrap-around
/// in the unsigned type of the same width, 0 if either is 0 (NumPy's `npy_lcm`).
pub fn lcm(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    let t = x.ty;
    let ((ax, ay), g) = gcd_unsigned(b, x, y);
    let u = ax.ty;
    let zero = Expr::constant(Scalar::zero(u));
    let l = bin(B::Mul, bin(B::Div, ax, g.clone()), ay);
    Expr::select(bin(B::Eq, g, zero.clone()), zero, l).cast(t)
}

/// `((|x|, |y|), gcd)` in the unsigned type of `x`'s width.
fn gcd_unsigned(b: &mut dyn Bind, x: Expr, y: Expr) -> ((Expr, Expr), Expr) {
    let t = x.ty;
    let u = DType::int_of_size(t.itemsize(), false).unwrap_or(t);
    let mag = |b: &mut dyn Bind, v: Expr| {
        let v = if t.is_signed_integer() {
            un(U::Abs, v)
        } else {
            v
        };
        b.bind(v.cast(u))
    };
    let ax = mag(b, x);
    let ay = mag(b, y);
    let zero = Expr::constant(Scalar::zero(u));
    // Lamé: Euclid takes at most ~1.44 bits steps; one more orders the pair.
    let steps = t.bits() * 3 / 2 + 3;
    let (mut a, mut c) = (ax.clone(), ay.clone());
    for _ in 0..steps {
        let na = b.bind(bin(B::Mod, c.clone(), a.clone()));
        let nc = b.bind(Expr::select(bin(B::Eq, a.clone(), zero.clone()), c, a));
        a = na;
        c = nc;
    }
    ((ax, ay), c)
}
