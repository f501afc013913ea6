//! Bessel functions of the first and second kinds of orders 0 and 1 (`j0`, `j1`, `y0`, `y1`),
//! as SciPy's `xsf` library computes them with Cephes (`xsf/cephes/j0.h`: `j0`, `y0`;
//! `xsf/cephes/j1.h`: `j1`, `y1`; Cephes' `j0.c` and `j1.c`), in the version SciPy 1.17 carries:
//! the same rational approximations, the same branch point (5) and special values. Each lane
//! computes both sides of a branch and `select`s.
//!
//! Below 5 a rational approximation in `z = x^2` (for `y0`/`y1`: plus `2/pi log(x) j(x)`);
//! above, Hankel's asymptotic form `sqrt(2 / (pi x)) (P cos(xn) - (5/x) Q sin(xn))` with
//! `xn = x - pi/4` (order 0) or `x - 3pi/4` (order 1) and `P`, `Q` rational in `25/x^2`.
//! Infinite arguments give NaN there (`cos(inf)`), as in SciPy 1.17.
//!
//! Written for float64 (the coefficients are Cephes' double ones); SciPy's float32 loops
//! compute in float64 and round, and so do the ufuncs declared from these.

// The coefficients as Cephes prints them (they round to the same doubles).
#![allow(clippy::excessive_precision)]

use super::super::{bin, fconst, un, Bind};
use super::{add, div, mul, p1evl, polevl, sub};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

fn lt(a: &Expr, v: f64) -> Expr {
    bin(B::Lt, a.clone(), fconst(a.ty, v))
}
fn le(a: &Expr, v: f64) -> Expr {
    bin(B::Le, a.clone(), fconst(a.ty, v))
}
fn eq(a: &Expr, v: f64) -> Expr {
    bin(B::Eq, a.clone(), fconst(a.ty, v))
}

const J0_PP: [f64; 7] = [
    7.96936729297347051624e-4,
    8.28352392107440799803e-2,
    1.23953371646414299388e0,
    5.44725003058768775090e0,
    8.74716500199817011941e0,
    5.30324038235394892183e0,
    9.99999999999999997821e-1,
];
const J0_PQ: [f64; 7] = [
    9.24408810558863637013e-4,
    8.56288474354474431428e-2,
    1.25352743901058953537e0,
    5.47097740330417105182e0,
    8.76190883237069594232e0,
    5.30605288235394617618e0,
    1.00000000000000000218e0,
];
const J0_QP: [f64; 8] = [
    -1.13663838898469149931e-2,
    -1.28252718670509318512e0,
    -1.95539544257735972385e1,
    -9.32060152123768231369e1,
    -1.77681167980488050595e2,
    -1.47077505154951170175e2,
    -5.14105326766599330220e1,
    -6.05014350600728481186e0,
];
const J0_QQ: [f64; 7] = [
    6.43178256118178023184e1,
    8.56430025976980587198e2,
    3.88240183605401609683e3,
    7.24046774195652478189e3,
    5.93072701187316984827e3,
    2.06209331660327847417e3,
    2.42005740240291393179e2,
];
const J0_YP: [f64; 8] = [
    1.55924367855235737965e4,
    -1.46639295903971606143e7,
    5.43526477051876500413e9,
    -9.82136065717911466409e11,
    8.75906394395366999549e13,
    -3.46628303384729719441e15,
    4.42733268572569800351e16,
    -1.84950800436986690637e16,
];
const J0_YQ: [f64; 7] = [
    1.04128353664259848412e3,
    6.26107330137134956842e5,
    2.68919633393814121987e8,
    8.64002487103935000337e10,
    2.02979612750105546709e13,
    3.17157752842975028269e15,
    2.50596256172653059228e17,
];
const J0_RP: [f64; 4] = [
    -4.79443220978201773821e9,
    1.95617491946556577543e12,
    -2.49248344360967716204e14,
    9.70862251047306323952e15,
];
const J0_RQ: [f64; 8] = [
    4.99563147152651017219e2,
    1.73785401676374683123e5,
    4.84409658339962045305e7,
    1.11855537045356834862e10,
    2.11277520115489217587e12,
    3.10518229857422583814e14,
    3.18121955943204943306e16,
    1.71086294081043136091e18,
];
const J0_DR1: f64 = 5.78318596294678452118e0;
const J0_DR2: f64 = 3.04712623436620863991e1;
const J1_RP: [f64; 4] = [
    -8.99971225705559398224e8,
    4.52228297998194034323e11,
    -7.27494245221818276015e13,
    3.68295732863852883286e15,
];
const J1_RQ: [f64; 8] = [
    6.20836478118054335476e2,
    2.56987256757748830383e5,
    8.35146791431949253037e7,
    2.21511595479792499675e10,
    4.74914122079991414898e12,
    7.84369607876235854894e14,
    8.95222336184627338078e16,
    5.32278620332680085395e18,
];
const J1_PP: [f64; 7] = [
    7.62125616208173112003e-4,
    7.31397056940917570436e-2,
    1.12719608129684925192e0,
    5.11207951146807644818e0,
    8.42404590141772420927e0,
    5.21451598682361504063e0,
    1.00000000000000000254e0,
];
const J1_PQ: [f64; 7] = [
    5.71323128072548699714e-4,
    6.88455908754495404082e-2,
    1.10514232634061696926e0,
    5.07386386128601488557e0,
    8.39985554327604159757e0,
    5.20982848682361821619e0,
    9.99999999999999997461e-1,
];
const J1_QP: [f64; 8] = [
    5.10862594750176621635e-2,
    4.98213872951233449420e0,
    7.58238284132545283818e1,
    3.66779609360150777800e2,
    7.10856304998926107277e2,
    5.97489612400613639965e2,
    2.11688757100572135698e2,
    2.52070205858023719784e1,
];
const J1_QQ: [f64; 7] = [
    7.42373277035675149943e1,
    1.05644886038262816351e3,
    4.98641058337653607651e3,
    9.56231892404756170795e3,
    7.99704160447350683650e3,
    2.82619278517639096600e3,
    3.36093607810698293419e2,
];
const J1_YP: [f64; 6] = [
    1.26320474790178026440e9,
    -6.47355876379160291031e11,
    1.14509511541823727583e14,
    -8.12770255501325109621e15,
    2.02439475713594898196e17,
    -7.78877196265950026825e17,
];
const J1_YQ: [f64; 8] = [
    5.94301592346128195359e2,
    2.35564092943068577943e5,
    7.34811944459721705660e7,
    1.87601316108706159478e10,
    3.88231277496238566008e12,
    6.20557727146953693363e14,
    6.87141087355300489866e16,
    3.97270608116560655612e18,
];
const J1_Z1: f64 = 1.46819706421238932572e1;
const J1_Z2: f64 = 4.92184563216946036703e1;

/// Cephes' `SQRT2OPI`, `sqrt(2/pi)`.
const SQRT2OPI: f64 = 7.9788456080286535587989e-1;
/// Cephes' `THPIO4`, `3 pi / 4`.
const THPIO4: f64 = 2.35619449019234492885;

/// The asymptotic form's pieces for `x > 5`: `(P, (5/x) Q, xn)` with `P`, `Q` Cephes' rationals
/// in `25/x^2` (order 0: `PP/PQ`, `QP/QQ` of `j0.h`, `25 / (x x)` formed as Cephes does; order
/// 1: those of `j1.h`, `(5/x)^2`) and `xn = x - pi/4` or `x - 3pi/4`.
fn hankel(b: &mut dyn Bind, x: &Expr, order1: bool) -> (Expr, Expr, Expr) {
    let t = x.ty;
    let w = b.bind(div(fconst(t, 5.0), x.clone()));
    let (pp, pq, qp, qq, shift) = if order1 {
        (&J1_PP, &J1_PQ, &J1_QP, &J1_QQ, THPIO4)
    } else {
        (&J0_PP, &J0_PQ, &J0_QP, &J0_QQ, std::f64::consts::FRAC_PI_4)
    };
    let z = if order1 {
        mul(w.clone(), w.clone())
    } else {
        div(fconst(t, 25.0), mul(x.clone(), x.clone()))
    };
    let z = b.bind(z);
    let p = b.bind(div(polevl(&z, pp), polevl(&z, pq)));
    let q = div(polevl(&z, qp), p1evl(&z, qq));
    let wq = b.bind(mul(w, q));
    let xn = b.bind(sub(x.clone(), fconst(t, shift)));
    (p, wq, xn)
}

/// `(s sqrt(2/pi)) / sqrt(x)`, the asymptotic form's scale as Cephes applies it.
fn hankel_scale(s: Expr, x: &Expr) -> Expr {
    let t = x.ty;
    div(mul(s, fconst(t, SQRT2OPI)), un(U::Sqrt, x.clone()))
}

/// Cephes' `j0` on `[0, 5]`: `1 - x^2/4` below `1e-5`, else `(z - r1^2)(z - r2^2) R(z)`
/// (`z = x^2`, `r1`, `r2` the first two zeros).
fn j0_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let z = b.bind(mul(x.clone(), x.clone()));
    let p = mul(
        sub(z.clone(), fconst(t, J0_DR1)),
        sub(z.clone(), fconst(t, J0_DR2)),
    );
    let p = div(mul(p, polevl(&z, &J0_RP)), p1evl(&z, &J0_RQ));
    let tiny = sub(fconst(t, 1.0), div(z, fconst(t, 4.0)));
    Expr::select(lt(x, 1.0e-5), tiny, p)
}

/// Cephes' `y0`/`y1` (`order1`) from the value `small` on `(0, 5]`: Hankel's asymptotic form
/// above 5, `-inf` at `+-0`, NaN for `x < 0`.
fn second_kind(b: &mut dyn Bind, x: &Expr, small: Expr, order1: bool) -> Expr {
    let t = x.ty;
    let (p, wq, xn) = hankel(b, x, order1);
    let large = add(mul(p, un(U::Sin, xn.clone())), mul(wq, un(U::Cos, xn)));
    let large = hankel_scale(large, x);
    let small = Expr::select(
        eq(x, 0.0),
        fconst(t, f64::NEG_INFINITY),
        Expr::select(lt(x, 0.0), fconst(t, f64::NAN), small),
    );
    Expr::select(le(x, 5.0), small, large)
}

/// The Bessel function of the first kind of order 0 (`scipy.special.j0`, Cephes' `j0.c` as in
/// SciPy's `xsf`): even; a rational approximation on `[0, 5]`, Hankel's asymptotic form above.
/// `j0(0) = 1`; NaN at `+-inf` (SciPy 1.17's Cephes takes `cos(inf)`) and for NaN.
pub fn j0(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(un(U::Abs, x));
    let small = j0_small(b, &x);
    let (p, wq, xn) = hankel(b, &x, false);
    let large = sub(mul(p, un(U::Cos, xn.clone())), mul(wq, un(U::Sin, xn)));
    let large = hankel_scale(large, &x);
    Expr::select(le(&x, 5.0), small, large)
}

/// The Bessel function of the second kind of order 0 (`scipy.special.y0`, Cephes' `y0` of
/// `j0.c` as in SciPy's `xsf`): on `(0, 5]` the rational approximation of
/// `y0(x) - 2/pi log(x) j0(x)` plus that term, Hankel's asymptotic form above. `-inf` at `+-0`,
/// NaN for `x < 0`, at `inf` (`sin(inf)`) and for NaN.
pub fn y0(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let z = b.bind(mul(x.clone(), x.clone()));
    let w = div(polevl(&z, &J0_YP), p1evl(&z, &J0_YQ));
    let j = j0_small(b, &x);
    let small = add(
        w,
        mul(
            mul(
                fconst(t, std::f64::consts::FRAC_2_PI),
                un(U::Log, x.clone()),
            ),
            j,
        ),
    );
    second_kind(b, &x, small, false)
}

/// Cephes' `j1` on `[0, 5]` (and `-0`): `R(z) x (z - r1^2)(z - r2^2)`, `z = x^2`.
fn j1_small(b: &mut dyn Bind, x: &Expr) -> Expr {
    let t = x.ty;
    let z = b.bind(mul(x.clone(), x.clone()));
    let w = div(polevl(&z, &J1_RP), p1evl(&z, &J1_RQ));
    mul(
        mul(mul(w, x.clone()), sub(z.clone(), fconst(t, J1_Z1))),
        sub(z, fconst(t, J1_Z2)),
    )
}

/// The Bessel function of the first kind of order 1 (`scipy.special.j1`, Cephes' `j1.c` as in
/// SciPy's `xsf`): odd (`-j1(-x)` for `x < 0`; `-0` is kept); a rational approximation on
/// `[0, 5]`, Hankel's asymptotic form above. NaN at `+-inf` (SciPy 1.17's Cephes takes
/// `cos(inf)`) and for NaN.
pub fn j1(b: &mut dyn Bind, x: Expr) -> Expr {
    let x = b.bind(x);
    let neg = b.bind(lt(&x, 0.0));
    let a = b.bind(Expr::select(neg.clone(), un(U::Neg, x.clone()), x.clone()));
    let small = j1_small(b, &a);
    let (p, wq, xn) = hankel(b, &a, true);
    let large = sub(mul(p, un(U::Cos, xn.clone())), mul(wq, un(U::Sin, xn)));
    let large = hankel_scale(large, &a);
    let r = b.bind(Expr::select(le(&a, 5.0), small, large));
    Expr::select(neg, un(U::Neg, r.clone()), r)
}

/// The Bessel function of the second kind of order 1 (`scipy.special.y1`, Cephes' `y1` of
/// `j1.c` as in SciPy's `xsf`): on `(0, 5]` `x R(x^2) + 2/pi (j1(x) log(x) - 1/x)`, Hankel's
/// asymptotic form above. `-inf` at `+-0`, NaN for `x < 0`, at `inf` (`sin(inf)`) and for NaN.
pub fn y1(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let z = b.bind(mul(x.clone(), x.clone()));
    let w = mul(x.clone(), div(polevl(&z, &J1_YP), p1evl(&z, &J1_YQ)));
    let j = j1_small(b, &x);
    let small = add(
        w,
        mul(
            fconst(t, std::f64::consts::FRAC_2_PI),
            sub(
                mul(j, un(U::Log, x.clone())),
                div(fconst(t, 1.0), x.clone()),
            ),
        ),
    );
    second_kind(b, &x, small, true)
}
