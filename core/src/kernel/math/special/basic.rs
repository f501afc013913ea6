//! SciPy's basic special functions (`cbrt`, `exp2`, `exp10`, `radian`, `cosdg`, `sindg`,
//! `tandg`, `cotdg`, `cosm1`, `round`, the Box-Cox transforms), step by step as SciPy 1.17.1
//! computes them: Cephes as its `xsf` library carries it (xsf 0d0a593, the commit SciPy 1.17.1
//! pins: `cbrt.h`, `exp2.h`, `exp10.h`, `sindg.h`, `tandg.h`, `unity.h`, `round.h`) and
//! `scipy/special/_boxcox.pxd`. Cephes' branches are `select`s (every lane computes each side);
//! its integer tests on floats (octants, parities) are exact float arithmetic; its `frexp` is
//! the math library's exact one and its `ldexp` an exact product with a power of two (one
//! rounding where the result is subnormal), so where Cephes uses only `+ - * /` the result has
//! SciPy's bits.
//!
//! Written for float64 (the constants and thresholds are Cephes' double ones); SciPy's float32
//! loops compute in float64 and round, and so do the ufuncs declared from these (but `round`,
//! exact in either).

// The coefficients as Cephes prints them (they round to the same doubles).
#![allow(clippy::excessive_precision)]

use super::super::bits::{pow2, pow2_sub};
use super::super::{expm1, fconst, frexp, log1p, signbit, un, Bind};
use super::{add, div, mul, p1evl, polevl, sub};
use crate::dtype::DType;
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

fn lt(a: Expr, b: Expr) -> Expr {
    Expr::binary(B::Lt, a, b)
}
fn gt(a: Expr, b: Expr) -> Expr {
    Expr::binary(B::Gt, a, b)
}
fn eq(a: Expr, b: Expr) -> Expr {
    Expr::binary(B::Eq, a, b)
}
fn or(a: Expr, b: Expr) -> Expr {
    Expr::binary(B::Or, a, b)
}
fn and(a: Expr, b: Expr) -> Expr {
    Expr::binary(B::And, a, b)
}
fn neg(a: Expr) -> Expr {
    un(U::Neg, a)
}
fn abs(a: Expr) -> Expr {
    un(U::Abs, a)
}
fn floor(a: Expr) -> Expr {
    un(U::Floor, a)
}

/// `x - m floor(x / m)` for `x >= 0` and a power of two `m` (exact): `x mod m`.
fn mod_pow2(x: &Expr, m: f64) -> Expr {
    let t = x.ty;
    sub(
        x.clone(),
        mul(floor(mul(x.clone(), fconst(t, 1.0 / m))), fconst(t, m)),
    )
}

const CBRT_P: [f64; 5] = [
    -1.3466110473359520655053e-1,
    5.4664601366395524503440e-1,
    -9.5438224771509446525043e-1,
    1.1399983354717293273738e0,
    4.0238979564544752126924e-1,
];
const CBRT2: f64 = 1.2599210498948731647672;
const CBRT4: f64 = 1.5874010519681994747517;
const CBRT2I: f64 = 0.79370052598409973737585;
const CBRT4I: f64 = 0.62996052494743658238361;

/// The real cube root (`scipy.special.cbrt`, Cephes' `cbrt`): `|x| = m 2^e` by `frexp`, a
/// degree-4 polynomial for `m^(1/3)` (9.2e-6), times `2^(1/3)` or `2^(2/3)` (or their
/// reciprocals below 1) for the remainder of `e / 3`, `2^(e/3)` by `ldexp`, two Newton steps;
/// the sign put back. `+-0`, `+-inf` and NaN are returned as they are.
pub fn cbrt(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let z = b.bind(abs(x.clone()));
    let (m, e) = frexp(b, z.clone());
    let m = b.bind(m);
    let e = b.bind(e.cast(t));
    let pos = b.bind(Expr::binary(B::Ge, e.clone(), fconst(t, 0.0)));
    // |e| / 3 and its remainder, as Cephes' integer division (exact: |e| <= 1074).
    let ae = b.bind(abs(e));
    let q = b.bind(floor(div(ae.clone(), fconst(t, 3.0))));
    let rem = b.bind(sub(ae, mul(fconst(t, 3.0), q.clone())));
    let f2 = Expr::select(pos.clone(), fconst(t, CBRT2), fconst(t, CBRT2I));
    let f4 = Expr::select(pos.clone(), fconst(t, CBRT4), fconst(t, CBRT4I));
    let p = b.bind(polevl(&m, &CBRT_P));
    let p = Expr::select(
        eq(rem.clone(), fconst(t, 1.0)),
        mul(p.clone(), f2),
        Expr::select(eq(rem, fconst(t, 2.0)), mul(p.clone(), f4), p),
    );
    // ldexp(p, n): 2^n is a normal number (|n| <= 358), so the product is exact.
    let n = Expr::select(pos, q.clone(), neg(q));
    let scale = pow2(b, n.cast(DType::Int32), t);
    let mut y = b.bind(mul(p, scale));
    for _ in 0..2 {
        let r = div(z.clone(), mul(y.clone(), y.clone()));
        y = b.bind(sub(
            y.clone(),
            mul(sub(y, r), fconst(t, 0.33333333333333333333)),
        ));
    }
    let special = or(
        eq(x.clone(), fconst(t, 0.0)),
        un(U::Not, un(U::IsFinite, x.clone())),
    );
    Expr::select(
        special,
        x.clone(),
        Expr::select(lt(x, fconst(t, 0.0)), neg(y.clone()), y),
    )
}

/// Cephes' `1 + 2 r P(r^2) / (Q(r^2) - r P(r^2))` scaled by `2^n` (`ldexp`), the last steps of
/// `exp2` and `exp10` (`r` bound, `n` an integer-valued float).
fn rational_exp(b: &mut dyn Bind, r: Expr, n: Expr, p: &[f64], q: &[f64]) -> Expr {
    let t = r.ty;
    let rr = b.bind(mul(r.clone(), r.clone()));
    let px = b.bind(mul(r, polevl(&rr, p)));
    let v = b.bind(div(px.clone(), sub(p1evl(&rr, q), px)));
    // ldexp(v, 1) is v + v exactly.
    let v = add(fconst(t, 1.0), add(v.clone(), v));
    ldexp_small(b, v, n)
}

/// C's `ldexp(v, n)` for `v` in `[1/2, 2)` and an integer-valued float `n` in `[-1024, 1024]`
/// (`exp2`'s and `exp10`'s range): one product with the exact `2^n` (a subnormal power below
/// -1022), which rounds once; `2^1024` as `2^1023` and a doubling (`y + y`, which a compiler
/// cannot fold into an overflowing constant).
fn ldexp_small(b: &mut dyn Bind, v: Expr, n: Expr) -> Expr {
    let t = v.ty;
    let n = b.bind(n);
    let m = Expr::binary(B::Min, n.clone(), fconst(t, 1023.0)).cast(DType::Int32);
    let p = pow2_sub(b, m, t);
    let y = b.bind(mul(v, p));
    Expr::select(gt(n, fconst(t, 1023.0)), add(y.clone(), y.clone()), y)
}

const EXP2_P: [f64; 3] = [
    2.30933477057345225087E-2,
    2.02020656693165307700E1,
    1.51390680115615096133E3,
];
const EXP2_Q: [f64; 2] = [2.33184211722314911771E2, 4.36821166879210612817E3];

/// `2^x` (`scipy.special.exp2`, Cephes' `exp2`): `x = n + r` with `n = floor(x + 1/2)`,
/// `2^r` by a rational approximation, then `ldexp`. `inf` above 1024, 0 below -1024, NaN kept.
pub fn exp2(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let n = b.bind(floor(add(x.clone(), fconst(t, 0.5))));
    let r = b.bind(sub(x.clone(), n.clone()));
    let v = rational_exp(b, r, n, &EXP2_P, &EXP2_Q);
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            gt(x.clone(), fconst(t, 1024.0)),
            fconst(t, f64::INFINITY),
            Expr::select(lt(x, fconst(t, -1024.0)), fconst(t, 0.0), v),
        ),
    )
}

const EXP10_P: [f64; 4] = [
    4.09962519798587023075E-2,
    1.17452732554344059015E1,
    4.06717289936872725516E2,
    2.39423741207388267439E3,
];
const EXP10_Q: [f64; 3] = [
    8.50936160849306532625E1,
    1.27209271178345121210E3,
    2.07960819286001865907E3,
];
/// Cephes' `LOG210`, 3.32192809488736234787 (the same double).
const LOG210: f64 = std::f64::consts::LOG2_10;
const LG102A: f64 = 3.01025390625000000000E-1;
const LG102B: f64 = 4.60503898119521373889E-6;
const MAXL10: f64 = 308.2547155599167;

/// `10^x` (`scipy.special.exp10`, Cephes' `exp10`): `10^x = 10^g 2^n` with
/// `n = floor(x log2(10) + 1/2)` and `g = x - n log10(2)` (log10(2) in two parts), `10^g` by a
/// rational approximation, then `ldexp`. `inf` above 308.2547, 0 below -308.2547 (Cephes stops
/// there, short of the subnormals), NaN kept.
pub fn exp10(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let n = b.bind(floor(add(
        mul(fconst(t, LOG210), x.clone()),
        fconst(t, 0.5),
    )));
    let g = sub(x.clone(), mul(n.clone(), fconst(t, LG102A)));
    let g = b.bind(sub(g, mul(n.clone(), fconst(t, LG102B))));
    let v = rational_exp(b, g, n, &EXP10_P, &EXP10_Q);
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            gt(x.clone(), fconst(t, MAXL10)),
            fconst(t, f64::INFINITY),
            Expr::select(lt(x, fconst(t, -MAXL10)), fconst(t, 0.0), v),
        ),
    )
}

/// One arc second in radians (Cephes' `P64800`).
const ARCSEC: f64 = 4.848136811095359935899141023579479759563533023727e-6;

/// Degrees, minutes and seconds to radians (`scipy.special.radian(d, m, s)`, Cephes'
/// `radian`): `((d 60 + m) 60 + s) pi / 648000`.
pub fn radian(d: Expr, m: Expr, s: Expr) -> Expr {
    let t = d.ty;
    let v = add(mul(add(mul(d, fconst(t, 60.0)), m), fconst(t, 60.0)), s);
    mul(v, fconst(t, ARCSEC))
}

const SINCOF: [f64; 6] = [
    1.58962301572218447952E-10,
    -2.50507477628503540135E-8,
    2.75573136213856773549E-6,
    -1.98412698295895384658E-4,
    8.33333333332211858862E-3,
    -1.66666666666666307295E-1,
];
const COSCOF: [f64; 7] = [
    1.13678171382044553091E-11,
    -2.08758833757683644217E-9,
    2.75573155429816611547E-7,
    -2.48015872936186303776E-5,
    1.38888888888806666760E-3,
    -4.16666666666666348141E-2,
    4.99999999999999999798E-1,
];
/// Cephes' `PI180`, `pi / 180`.
const PI180: f64 = 1.74532925199432957692E-2;
/// Past this many degrees Cephes gives up (total loss of precision) and returns 0.
const LOSSTH: f64 = 1.0e14;

/// Cephes' octant reduction of `x >= 0` degrees for `sindg`/`cosdg`: `(j, z, zz)` with `j` in
/// `0..4` the octant modulo 180 degrees (zeros mapped to the origin), `z` the remainder in
/// radians (within 45 degrees of a multiple of 90) and `zz = z^2`, plus whether the octant
/// lies in the lower half-turn (`reflect`: the sign flips).
fn octant(b: &mut dyn Bind, x: &Expr) -> (Expr, Expr, Expr, Expr) {
    let t = x.ty;
    let y = b.bind(floor(div(x.clone(), fconst(t, 45.0))));
    // y mod 16 (Cephes strips the high bits so the int conversion cannot overflow).
    let z = b.bind(mod_pow2(&y, 16.0));
    let odd = b.bind(eq(mod_pow2(&z, 2.0), fconst(t, 1.0)));
    let j = b.bind(Expr::select(odd.clone(), add(z.clone(), fconst(t, 1.0)), z));
    let y = Expr::select(odd, add(y.clone(), fconst(t, 1.0)), y);
    let j = b.bind(mod_pow2(&j, 8.0));
    let reflect = b.bind(gt(j.clone(), fconst(t, 3.0)));
    let j = b.bind(Expr::select(
        reflect.clone(),
        sub(j.clone(), fconst(t, 4.0)),
        j,
    ));
    let z = b.bind(mul(
        sub(x.clone(), mul(y, fconst(t, 45.0))),
        fconst(t, PI180),
    ));
    let zz = b.bind(mul(z.clone(), z.clone()));
    (j, z, zz, reflect)
}

/// Cephes' sine and cosine kernels on the reduced `z` (`zz = z^2`): `(sin, cos)`.
fn sincos_kernels(z: &Expr, zz: &Expr) -> (Expr, Expr) {
    let t = z.ty;
    let s = add(
        z.clone(),
        mul(z.clone(), mul(zz.clone(), polevl(zz, &SINCOF))),
    );
    let c = sub(fconst(t, 1.0), mul(zz.clone(), polevl(zz, &COSCOF)));
    (s, c)
}

/// The sine of `x` degrees (`scipy.special.sindg`, Cephes' `sindg` as SciPy 1.17.1 has it):
/// exact zeros at the multiples of 180, exact `+-1` at the odd multiples of 90; 0 past `1e14`
/// degrees and at `+-inf`; NaN kept.
pub fn sindg(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let neg_in = b.bind(lt(x.clone(), fconst(t, 0.0)));
    let ax = b.bind(abs(x));
    let (j, z, zz, reflect) = octant(b, &ax);
    let (s, c) = sincos_kernels(&z, &zz);
    let use_cos = or(eq(j.clone(), fconst(t, 1.0)), eq(j, fconst(t, 2.0)));
    let y = b.bind(Expr::select(use_cos, c, s));
    // The sign: negative input, flipped again in the lower half-turn.
    let negative = Expr::binary(B::Ne, neg_in, reflect);
    Expr::select(
        gt(ax, fconst(t, LOSSTH)),
        fconst(t, 0.0),
        Expr::select(negative, neg(y.clone()), y),
    )
}

/// The cosine of `x` degrees (`scipy.special.cosdg`, Cephes' `cosdg`): exact zeros at the odd
/// multiples of 90, exact `+-1` at the multiples of 180; 0 past `1e14` degrees and at `+-inf`;
/// NaN kept.
pub fn cosdg(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let ax = b.bind(abs(x));
    let (j, z, zz, reflect) = octant(b, &ax);
    let (s, c) = sincos_kernels(&z, &zz);
    let use_sin = b.bind(or(
        eq(j.clone(), fconst(t, 1.0)),
        eq(j.clone(), fconst(t, 2.0)),
    ));
    let y = b.bind(Expr::select(use_sin, s, c));
    let negative = Expr::binary(B::Ne, reflect, gt(j, fconst(t, 1.0)));
    Expr::select(
        gt(ax, fconst(t, LOSSTH)),
        fconst(t, 0.0),
        Expr::select(negative, neg(y.clone()), y),
    )
}

/// Cephes' `tancot` as SciPy 1.17.1 has it: the tangent (`cot` false) or cotangent of `x`
/// degrees, reduced modulo 180 and into `[0, 90]`; exact 0 (positive), `+-1` and `inf`
/// (positive) at the multiples of 45; 0 past `1e14` degrees and at `+-inf`; NaN kept.
fn tancot(b: &mut dyn Bind, x: Expr, cot: bool) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let neg_in = b.bind(lt(x.clone(), fconst(t, 0.0)));
    let ax = b.bind(Expr::select(neg_in.clone(), neg(x.clone()), x));
    let k = floor(div(ax.clone(), fconst(t, 180.0)));
    let r = b.bind(sub(ax.clone(), mul(fconst(t, 180.0), k)));
    let ninety = fconst(t, 90.0);
    let (r, flip) = if cot {
        let le = b.bind(Expr::binary(B::Le, r.clone(), ninety.clone()));
        (
            Expr::select(
                le.clone(),
                sub(ninety.clone(), r.clone()),
                sub(r, ninety.clone()),
            ),
            un(U::Not, le),
        )
    } else {
        let over = b.bind(gt(r.clone(), ninety.clone()));
        (
            Expr::select(over.clone(), sub(fconst(t, 180.0), r.clone()), r),
            over,
        )
    };
    let r = b.bind(r);
    let negative = b.bind(Expr::binary(B::Ne, neg_in, flip));
    let tan = b.bind(un(U::Tan, mul(r.clone(), fconst(t, PI180))));
    let signed = |v: Expr| Expr::select(negative.clone(), neg(v.clone()), v);
    let v = Expr::select(
        eq(r.clone(), fconst(t, 0.0)),
        fconst(t, 0.0),
        Expr::select(
            eq(r.clone(), fconst(t, 45.0)),
            signed(fconst(t, 1.0)),
            Expr::select(eq(r, ninety), fconst(t, f64::INFINITY), signed(tan)),
        ),
    );
    Expr::select(gt(ax, fconst(t, LOSSTH)), fconst(t, 0.0), v)
}

/// The tangent of `x` degrees (`scipy.special.tandg`, Cephes' `tandg`): `inf` at the odd
/// multiples of 90, 0 at the multiples of 180, `+-1` at the odd multiples of 45.
pub fn tandg(b: &mut dyn Bind, x: Expr) -> Expr {
    tancot(b, x, false)
}

/// The cotangent of `x` degrees (`scipy.special.cotdg`, Cephes' `cotdg`): `inf` at the
/// multiples of 180, 0 at the odd multiples of 90, `+-1` at the odd multiples of 45.
pub fn cotdg(b: &mut dyn Bind, x: Expr) -> Expr {
    tancot(b, x, true)
}

const COSM1_COEF: [f64; 7] = [
    4.7377507964246204691685E-14,
    -1.1470284843425359765671E-11,
    2.0876754287081521758361E-9,
    -2.7557319214999787979814E-7,
    2.4801587301570552304991E-5,
    -1.3888888888888872993737E-3,
    4.1666666666666666609054E-2,
];

/// `cos(x) - 1` without cancellation near 0 (`scipy.special.cosm1`, Cephes' `cosm1`): on
/// `[-pi/4, pi/4]` the series `-x^2/2 + x^4 P(x^2)`, beyond `cos(x) - 1`. NaN at `+-inf`.
pub fn cosm1(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let xx = b.bind(mul(x.clone(), x.clone()));
    let series = add(
        mul(fconst(t, -0.5), xx.clone()),
        mul(mul(xx.clone(), xx.clone()), polevl(&xx, &COSM1_COEF)),
    );
    let pi4 = std::f64::consts::FRAC_PI_4;
    let outside = or(
        lt(x.clone(), fconst(t, -pi4)),
        gt(x.clone(), fconst(t, pi4)),
    );
    Expr::select(outside, sub(un(U::Cos, x), fconst(t, 1.0)), series)
}

/// Rounds half to even (`scipy.special.round`, Cephes' `round`): `floor(x)`, plus 1 where the
/// fraction is above one half or exactly one half with `floor(x)` odd. Unlike `numpy.rint` a
/// zero result from a negative `x` is `+0` (`round(-0.3)`), but `-0` stays `-0`. Exact in any
/// float dtype; `+-inf` and NaN kept.
pub fn round(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let y = b.bind(floor(x.clone()));
    let r = b.bind(sub(x, y.clone()));
    let odd = eq(
        sub(
            y.clone(),
            mul(fconst(t, 2.0), floor(mul(fconst(t, 0.5), y.clone()))),
        ),
        fconst(t, 1.0),
    );
    let up = or(
        gt(r.clone(), fconst(t, 0.5)),
        and(eq(r, fconst(t, 0.5)), odd),
    );
    Expr::select(up, add(y.clone(), fconst(t, 1.0)), y)
}

/// `copysign(1, l)`.
fn sign_of(l: &Expr) -> Expr {
    let t = l.ty;
    Expr::select(signbit(l.clone()), fconst(t, -1.0), fconst(t, 1.0))
}

/// The tail of SciPy's `boxcox`/`boxcox1p` for a log `lg` of the data: `expm1(l lg) / l` while
/// `l lg < 709.78`, else `copysign(1, l) exp(l lg - log|l|) - 1 / l` (no overflow).
fn boxcox_tail(b: &mut dyn Bind, lg: Expr, l: &Expr) -> Expr {
    let t = l.ty;
    let p = b.bind(mul(l.clone(), lg));
    let small = div(expm1(b, p.clone()), l.clone());
    let large = sub(
        mul(
            sign_of(l),
            un(U::Exp, sub(p.clone(), un(U::Log, abs(l.clone())))),
        ),
        div(fconst(t, 1.0), l.clone()),
    );
    Expr::select(lt(p, fconst(t, 709.78)), small, large)
}

/// The Box-Cox transform `(x^l - 1) / l` (`scipy.special.boxcox(x, lmbda)`, SciPy's
/// `_boxcox.pxd`): `log(x)` for `|l| < 1e-19`, else `expm1(l log x) / l` while
/// `l log x < 709.78`, beyond `copysign(1, l) exp(l log x - log|l|) - 1 / l` (no overflow).
/// NaN for `x < 0`.
pub fn boxcox(b: &mut dyn Bind, x: Expr, l: Expr) -> Expr {
    let t = x.ty;
    let l = b.bind(l);
    let lg = b.bind(un(U::Log, x));
    let tail = boxcox_tail(b, lg.clone(), &l);
    Expr::select(lt(abs(l), fconst(t, 1e-19)), lg, tail)
}

/// The Box-Cox transform of `1 + x`, `((1 + x)^l - 1) / l` (`scipy.special.boxcox1p`):
/// `log1p(x)` for `|l| < 1e-19` or where `|log1p(x)| < 1e-289` (and `|l| < 1e273`), else as
/// [`boxcox`] with `log1p(x)`.
pub fn boxcox1p(b: &mut dyn Bind, x: Expr, l: Expr) -> Expr {
    let t = x.ty;
    let l = b.bind(l);
    let lg = log1p(b, x);
    let lg = b.bind(lg);
    let tail = boxcox_tail(b, lg.clone(), &l);
    let al = b.bind(abs(l));
    let plain = or(
        lt(al.clone(), fconst(t, 1e-19)),
        and(
            lt(abs(lg.clone()), fconst(t, 1e-289)),
            lt(al, fconst(t, 1e273)),
        ),
    );
    Expr::select(plain, lg, tail)
}

/// The inverse transforms' exponent: `log1p(l x) / l` while `l x < 1.79e308`, else
/// `(log(copysign(1, l) (x + 1 / l)) + log|l|) / l` (no overflow of `l x`).
fn inv_boxcox_arg(b: &mut dyn Bind, x: &Expr, l: &Expr) -> Expr {
    let t = x.ty;
    let p = b.bind(mul(l.clone(), x.clone()));
    let small = div(log1p(b, p.clone()), l.clone());
    let large = div(
        add(
            un(
                U::Log,
                mul(sign_of(l), add(x.clone(), div(fconst(t, 1.0), l.clone()))),
            ),
            un(U::Log, abs(l.clone())),
        ),
        l.clone(),
    );
    Expr::select(lt(p, fconst(t, 1.79e308)), small, large)
}

/// The inverse Box-Cox transform `(l y + 1)^(1/l)` (`scipy.special.inv_boxcox(y, lmbda)`):
/// `exp(y)` for `l == 0`, else `exp(log1p(l y) / l)`.
pub fn inv_boxcox(b: &mut dyn Bind, x: Expr, l: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let l = b.bind(l);
    let a = inv_boxcox_arg(b, &x, &l);
    Expr::select(eq(l, fconst(t, 0.0)), un(U::Exp, x), un(U::Exp, a))
}

/// The inverse of [`boxcox1p`], `(l y + 1)^(1/l) - 1` (`scipy.special.inv_boxcox1p(y,
/// lmbda)`): `expm1(y)` for `l == 0`, `y` where `|l y| < 1e-154`, else
/// `expm1(log1p(l y) / l)`.
pub fn inv_boxcox1p(b: &mut dyn Bind, x: Expr, l: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let l = b.bind(l);
    // One expm1 serves both: of x where l == 0, of the transformed exponent elsewhere.
    let zero = b.bind(eq(l.clone(), fconst(t, 0.0)));
    let a = inv_boxcox_arg(b, &x, &l);
    let arg = Expr::select(zero.clone(), x.clone(), a);
    let e = expm1(b, arg);
    let tiny = lt(abs(mul(l, x.clone())), fconst(t, 1e-154));
    Expr::select(zero.clone(), e.clone(), Expr::select(tiny, x, e))
}
