//! Complex loops of NumPy's `exp2 expm1 log2 log1p` (NumPy's own formulas, `funcs.inc.src`)
//! and of the inverse trigonometric and hyperbolic functions, whose NumPy loops are FreeBSD's
//! `catrig.c` (`npy_casinh`, `npy_cacos`, `npy_catanh`, and `casin`/`catan`/`cacosh` from them).
//!
//! - Finite arguments: Kahan's formulas ("Branch cuts for complex elementary functions", 1987),
//!   built on the IR's complex `sqrt` (C99 Annex G signed zeros) with `1 - z` formed as
//!   `(1 - x) - iy` so the sign of a zero imaginary part picks the side of the branch cut:
//!   `asin z = atan2(x, Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z)))`,
//!   `acos z = 2 atan2(Re sqrt(1-z), Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))`,
//!   `acosh z = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan2(Im sqrt(z-1), Re sqrt(z+1))`,
//!   `atanh z = log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2` (and `1/z`
//!   on `|x|`, `|y|` with the signs put back), `asinh z = -i asin(iz)`, `asin z =
//!   swap(asinh(swap z))`, `atan z = swap(atanh(swap z))`, `acosh` from `acos`.
//! - Infinities, NaN, zeros, the axes and huge or tiny arguments: FreeBSD's branches (C99 G.6
//!   with its signs for the cases C99 leaves open).

use super::{arcsinh, bin, expm1, fconst, hypot, log1p, un, Bind};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

fn neg(a: Expr) -> Expr {
    un(U::Neg, a)
}
fn sel(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::select(c, a, b)
}

/// The bound parts of a complex value.
fn parts(b: &mut dyn Bind, z: Expr) -> (Expr, Expr) {
    let z = b.bind(z);
    (b.bind(un(U::Real, z.clone())), b.bind(un(U::Imag, z)))
}

/// `copysign(v, s)` for a non-NaN constant magnitude `v` (the sign bit of `s`, NaN: positive).
fn copysign(v: Expr, s: &Expr) -> Expr {
    let v2 = v.clone();
    sel(super::signbit(s.clone()), neg(v), v2)
}

/// C's fpclassify classes the special branches test.
struct Class {
    nan: Expr,
    inf: Expr,
    zero: Expr,
}

fn class(b: &mut dyn Bind, v: &Expr) -> Class {
    let t = v.ty;
    Class {
        nan: b.bind(un(U::IsNan, v.clone())),
        inf: b.bind(un(U::IsInf, v.clone())),
        zero: b.bind(bin(B::Eq, v.clone(), fconst(t, 0.0))),
    }
}

fn or(a: &Expr, c: &Expr) -> Expr {
    bin(B::Or, a.clone(), c.clone())
}
fn and(a: &Expr, c: &Expr) -> Expr {
    bin(B::And, a.clone(), c.clone())
}

/// `2^z = exp(z ln 2)` (NumPy's `nc_exp2`).
pub fn complex_exp2(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let t = x.ty;
    let k = fconst(t, std::f64::consts::LN_2);
    un(
        U::Exp,
        Expr::complex(bin(B::Mul, x, k.clone()), bin(B::Mul, y, k)),
    )
}

/// `e^z - 1` (NumPy's `nc_expm1`: `expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y`).
pub fn complex_expm1(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let t = x.ty;
    let a = b.bind(un(U::Sin, bin(B::Mul, y.clone(), fconst(t, 0.5))));
    let em1 = expm1(b, x.clone());
    let re = bin(
        B::Sub,
        bin(B::Mul, em1, un(U::Cos, y.clone())),
        bin(B::Mul, bin(B::Mul, fconst(t, 2.0), a.clone()), a),
    );
    let im = bin(B::Mul, un(U::Exp, x), un(U::Sin, y));
    Expr::complex(re, im)
}

/// `log2 z = log(z) log2(e)`, part by part (NumPy's `nc_log2`).
pub fn complex_log2(b: &mut dyn Bind, z: Expr) -> Expr {
    let l = b.bind(un(U::Log, z));
    let rt = l.ty.real_dtype();
    let k = fconst(rt, std::f64::consts::LOG2_E);
    Expr::complex(
        bin(B::Mul, un(U::Real, l.clone()), k.clone()),
        bin(B::Mul, un(U::Imag, l), k),
    )
}

/// `log(1 + z) = log|1 + z| + i arg(1 + z)` (NumPy's `nc_log1p`).
pub fn complex_log1p(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let t = x.ty;
    let x1 = b.bind(bin(B::Add, x, fconst(t, 1.0)));
    let l = hypot(b, x1.clone(), y.clone());
    Expr::complex(un(U::Log, l), bin(B::Atan2, y, x1))
}

/// `sqrt(re + i im)`'s parts.
fn csqrt(b: &mut dyn Bind, re: Expr, im: Expr) -> (Expr, Expr) {
    parts(b, un(U::Sqrt, Expr::complex(re, im)))
}

/// Kahan's `asin` of a finite `x + iy`.
fn asin_finite(b: &mut dyn Bind, x: &Expr, y: &Expr) -> (Expr, Expr) {
    let t = x.ty;
    let one = || fconst(t, 1.0);
    let (r1, i1) = csqrt(b, bin(B::Sub, one(), x.clone()), neg(y.clone()));
    let (r2, i2) = csqrt(b, bin(B::Add, one(), x.clone()), y.clone());
    let den = bin(
        B::Sub,
        bin(B::Mul, r1.clone(), r2.clone()),
        bin(B::Mul, i1.clone(), i2.clone()),
    );
    let re = bin(B::Atan2, x.clone(), den);
    let im_arg = bin(B::Sub, bin(B::Mul, r1, i2), bin(B::Mul, i1, r2));
    let im_arg = b.bind(im_arg);
    (re, arcsinh(b, im_arg))
}

/// Selects between the result pairs of special and ordinary arguments.
fn pick(c: Expr, a: (Expr, Expr), o: (Expr, Expr)) -> (Expr, Expr) {
    (sel(c.clone(), a.0, o.0), sel(c, a.1, o.1))
}

/// `casinh(x + iy)` as `(re, im)` (NumPy's `npy_casinh`, FreeBSD's `catrig.c`).
fn asinh_parts(b: &mut dyn Bind, x: &Expr, y: &Expr) -> (Expr, Expr) {
    let t = x.ty;
    let c = |v: f64| fconst(t, v);
    let (cx, cy) = (class(b, x), class(b, y));
    // Finite: -i asin(iz), iz = -y + ix.
    let (p, q) = asin_finite(b, &neg(y.clone()), x);
    let (p, q) = (b.bind(p), b.bind(q));
    let mut r = (q, neg(p));
    r = pick(and(&cx.zero, &cy.zero), (x.clone(), y.clone()), r);
    // Infinite, no NaN: log|z| + ln 2 = inf, arg(|x| + i|y|).
    let arg = bin(B::Atan2, un(U::Abs, y.clone()), un(U::Abs, x.clone()));
    let inf = (copysign(c(f64::INFINITY), x), copysign_expr(b, arg, y));
    r = pick(or(&cx.inf, &cy.inf), inf, r);
    // NaN: (+-inf, NaN) along an infinite part, (NaN, +-0) on the real axis.
    let nan = c(f64::NAN);
    let with_nan = sel(
        cx.inf.clone(),
        x.clone(),
        sel(cy.inf.clone(), y.clone(), nan.clone()),
    );
    let im_nan = sel(
        and(&un(U::Not, or(&cx.inf, &cy.inf)), &cy.zero),
        y.clone(),
        nan,
    );
    pick(or(&cx.nan, &cy.nan), (with_nan, im_nan), r)
}

/// `copysign(v, s)` for any `v` (its magnitude with `s`'s sign bit).
fn copysign_expr(b: &mut dyn Bind, v: Expr, s: &Expr) -> Expr {
    let a = b.bind(un(U::Abs, v));
    copysign(a, s)
}

/// Complex inverse hyperbolic sine (NumPy's `npy_casinh`).
pub fn complex_arcsinh(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (re, im) = asinh_parts(b, &x, &y);
    Expr::complex(re, im)
}

/// Complex inverse sine: `casin z = swap(casinh(swap z))` (FreeBSD's `casin`).
pub fn complex_arcsin(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (re, im) = asinh_parts(b, &y, &x);
    Expr::complex(im, re)
}

/// `cacos(x + iy)` as `(re, im)` (FreeBSD's `cacos`).
fn acos_parts(b: &mut dyn Bind, x: &Expr, y: &Expr) -> (Expr, Expr) {
    let t = x.ty;
    let c = |v: f64| fconst(t, v);
    let (cx, cy) = (class(b, x), class(b, y));
    let one = || c(1.0);
    let (r1, i1) = csqrt(b, bin(B::Sub, one(), x.clone()), neg(y.clone()));
    let (r2, i2) = csqrt(b, bin(B::Add, one(), x.clone()), y.clone());
    let fre = bin(B::Mul, c(2.0), bin(B::Atan2, r1.clone(), r2.clone()));
    let im_arg = b.bind(bin(B::Sub, bin(B::Mul, r2, i1), bin(B::Mul, i2, r1)));
    let fim = arcsinh(b, im_arg);
    let mut r = (fre, fim);
    let at_one = and(&bin(B::Eq, x.clone(), one()), &cy.zero);
    r = pick(at_one, (c(0.0), neg(y.clone())), r);
    // Infinite, no NaN: |arg z| and -+inf.
    let sy = super::signbit(y.clone());
    let inf = (
        un(U::Abs, bin(B::Atan2, y.clone(), x.clone())),
        sel(sy, c(f64::INFINITY), c(f64::NEG_INFINITY)),
    );
    r = pick(or(&cx.inf, &cy.inf), inf, r);
    let nan = c(f64::NAN);
    let nre = sel(
        cx.inf.clone(),
        nan.clone(),
        sel(
            cy.inf.clone(),
            nan.clone(),
            sel(cx.zero.clone(), c(std::f64::consts::FRAC_PI_2), nan.clone()),
        ),
    );
    let nim = sel(
        cx.inf.clone(),
        c(f64::NEG_INFINITY),
        sel(cy.inf.clone(), neg(y.clone()), nan),
    );
    pick(or(&cx.nan, &cy.nan), (nre, nim), r)
}

/// Complex inverse cosine (FreeBSD's `cacos`).
pub fn complex_arccos(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (re, im) = acos_parts(b, &x, &y);
    Expr::complex(re, im)
}

/// Complex inverse hyperbolic cosine, from `cacos` (FreeBSD's `cacosh`):
/// `(|Im acos z|, copysign(Re acos z, Im z))`, NaN parts moved as there.
pub fn complex_arccosh(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (rx, ry) = acos_parts(b, &x, &y);
    let (rx, ry) = (b.bind(rx), b.bind(ry));
    let (nx, ny) = (
        b.bind(un(U::IsNan, rx.clone())),
        b.bind(un(U::IsNan, ry.clone())),
    );
    let ary = un(U::Abs, ry.clone());
    let re = sel(ny.clone(), ry.clone(), ary.clone());
    let im = sel(nx, rx.clone(), sel(ny, ry, copysign_expr(b, rx, &y)));
    Expr::complex(re, im)
}

/// `catanh(x + iy)` as `(re, im)` (FreeBSD's `catanh`).
fn atanh_parts(b: &mut dyn Bind, x: &Expr, y: &Expr) -> (Expr, Expr) {
    let t = x.ty;
    let c = |v: f64| fconst(t, v);
    let (cx, cy) = (class(b, x), class(b, y));
    use std::f64::consts::{FRAC_PI_2, LN_2};
    let (eps, recip_eps, tiny) = if t == crate::dtype::DType::Float64 {
        (
            f64::EPSILON,
            1.0 / f64::EPSILON,
            (3.0 * f64::EPSILON).sqrt() / 2.0,
        )
    } else {
        let e = f32::EPSILON as f64;
        (e, 1.0 / e, (3.0 * e).sqrt() / 2.0)
    };
    let one = || c(1.0);
    let ax = b.bind(un(U::Abs, x.clone()));
    let ay = b.bind(un(U::Abs, y.clone()));
    let axm1 = bin(B::Sub, ax.clone(), one());
    let den = bin(
        B::Add,
        bin(B::Mul, axm1.clone(), axm1),
        bin(B::Mul, ay.clone(), ay.clone()),
    );
    let q = b.bind(bin(B::Div, bin(B::Mul, c(4.0), ax.clone()), den));
    let rx = bin(B::Mul, c(0.25), log1p(b, q));
    let ax_one = b.bind(bin(B::Eq, ax.clone(), one()));
    let ay_small = b.bind(bin(B::Lt, ay.clone(), c(eps)));
    let rx = sel(
        and(&ax_one, &ay_small),
        bin(B::Mul, bin(B::Sub, c(LN_2), un(U::Log, ay.clone())), c(0.5)),
        rx,
    );
    let omx2 = b.bind(bin(
        B::Mul,
        bin(B::Sub, one(), ax.clone()),
        bin(B::Add, one(), ax.clone()),
    ));
    let two_ay = bin(B::Mul, c(2.0), ay.clone());
    let ry = sel(
        ax_one.clone(),
        bin(B::Atan2, c(2.0), neg(ay.clone())),
        sel(
            ay_small,
            bin(B::Atan2, two_ay.clone(), omx2.clone()),
            bin(
                B::Atan2,
                two_ay,
                bin(B::Sub, omx2, bin(B::Mul, ay.clone(), ay.clone())),
            ),
        ),
    );
    let ry = bin(B::Mul, ry, c(0.5));
    let rx = b.bind(rx);
    let ry = b.bind(ry);
    let mut r = (copysign(rx, x), copysign(ry, y));
    // Tiny: z.
    let is_tiny = and(
        &bin(B::Lt, ax.clone(), c(tiny)),
        &bin(B::Lt, ay.clone(), c(tiny)),
    );
    r = pick(is_tiny, (x.clone(), y.clone()), r);
    // Huge (or infinite, no NaN): Re(1/z), +-pi/2.
    let h = hypot(b, x.clone(), y.clone());
    let h = b.bind(h);
    let recip = sel(
        cx.inf.clone(),
        bin(B::Div, one(), x.clone()),
        bin(B::Div, bin(B::Div, x.clone(), h.clone()), h),
    );
    let huge = or(
        &bin(B::Gt, ax.clone(), c(recip_eps)),
        &bin(B::Gt, ay.clone(), c(recip_eps)),
    );
    let pi2 = copysign(c(FRAC_PI_2), y);
    r = pick(huge, (recip, pi2.clone()), r);
    // NaN.
    let nan = c(f64::NAN);
    let nre = sel(or(&cx.inf, &cy.inf), copysign(c(0.0), x), nan.clone());
    let nim = sel(cy.inf.clone(), pi2, nan);
    r = pick(or(&cx.nan, &cy.nan), (nre, nim), r);
    // The real axis inside [-1, 1] (real atanh) and the imaginary axis (real atan).
    let x_axis = and(&cy.zero, &bin(B::Le, ax, one()));
    let real_atanh = super::arctanh(b, x.clone());
    r = pick(x_axis, (real_atanh, y.clone()), r);
    let atan_y = bin(B::Atan2, y.clone(), one());
    pick(cx.zero.clone(), (x.clone(), atan_y), r)
}

/// Complex inverse hyperbolic tangent (NumPy's `npy_catanh`, FreeBSD's `catanh`).
pub fn complex_arctanh(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (re, im) = atanh_parts(b, &x, &y);
    Expr::complex(re, im)
}

/// Complex inverse tangent: `catan z = swap(catanh(swap z))` (FreeBSD's `catan`).
pub fn complex_arctan(b: &mut dyn Bind, z: Expr) -> Expr {
    let (x, y) = parts(b, z);
    let (re, im) = atanh_parts(b, &y, &x);
    Expr::complex(im, re)
}
