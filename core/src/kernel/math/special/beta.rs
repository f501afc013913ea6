//! The beta function and the log of its magnitude (`beta`, `betaln`), as SciPy 1.17.1
//! computes them: Cephes' `beta` and `lbeta` as SciPy's `xsf` library carries them
//! (`xsf/cephes/beta.h`), over the gamma family's `Gamma`, `lgam` and `rgamma`
//! ([`super::gamma`]). Cephes' recursion for a negative integer argument (`beta_negint`) goes
//! one level deep before reaching the general case or a pole, so it becomes a choice of the
//! general case's arguments (and a sign) instead of a second evaluation.
//!
//! Written for float64 (the thresholds are Cephes' double ones); SciPy's float32 loops compute
//! in float64 and round, and so do the ufuncs declared from these.

// Cephes' constants as it prints them (they round to the same doubles).
#![allow(clippy::excessive_precision)]

use super::super::{fconst, un, Bind};
use super::gamma::{gamma_and_gammaln, rgamma_of, MAXGAM};
use super::{add, div, is_int, mul, sub};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

/// Cephes' `MAXLOG`, `log(DBL_MAX)`: `beta`'s log form overflows above it.
const MAXLOG: f64 = 7.09782712893383996732E2;
/// Cephes' `ASYMP_FACTOR`: the asymptotic expansion serves `a > 1e6 max(|b|, 1)`.
const ASYMP_FACTOR: f64 = 1e6;

fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn abs(a: Expr) -> Expr {
    un(U::Abs, a)
}

/// The sign Cephes' `lgam_sgn` reports for `gamma(x)`: -1 on the negative non-integers whose
/// `floor(-x)` is even (`(-1, 0)`, `(-3, -2)`, ...), else 1 (the poles and `+-inf` included).
fn gamma_sign(x: &Expr) -> Expr {
    let t = x.ty;
    let q = un(U::Floor, un(U::Neg, x.clone()));
    let even = bin(
        B::Eq,
        mul(fconst(t, 2.0), un(U::Floor, mul(q.clone(), fconst(t, 0.5)))),
        q,
    );
    let negative = bin(
        B::And,
        bin(B::And, bin(B::Lt, x.clone(), fconst(t, 0.0)), even),
        un(U::Not, is_int(x)),
    );
    Expr::select(negative, fconst(t, -1.0), fconst(t, 1.0))
}

/// 1 for even `n`, -1 for odd (`n` an integer-valued float).
fn parity_sign(n: &Expr) -> Expr {
    let t = n.ty;
    let even = bin(
        B::Eq,
        mul(fconst(t, 2.0), un(U::Floor, mul(n.clone(), fconst(t, 0.5)))),
        n.clone(),
    );
    Expr::select(even, fconst(t, 1.0), fconst(t, -1.0))
}

/// True where `x` converts to a C `int` and back unchanged (`x == (int)x`: an integer in
/// `[-2^31, 2^31)`; NaN and the infinities do not).
fn is_c_int(x: &Expr) -> Expr {
    let t = x.ty;
    bin(
        B::And,
        is_int(x),
        bin(
            B::And,
            bin(B::Ge, x.clone(), fconst(t, -2147483648.0)),
            bin(B::Lt, x.clone(), fconst(t, 2147483648.0)),
        ),
    )
}

/// Cephes' `beta(a, b)` (`log` false) or `lbeta(a, b)` (`log` true).
fn beta_or_lbeta(b: &mut dyn Bind, x: Expr, y: Expr, log: bool) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let y = b.bind(y);
    let one = fconst(t, 1.0);
    let inf = fconst(t, f64::INFINITY);

    // A non-positive integer argument (Cephes' `beta_negint(n, other)`, `n` tested first for
    // `a`, then for `b`): finite only where `other` is a C int with `1 - n - other > 0`, as
    // `sgn(other) beta(1 - n - other, other)`, which is a pole again unless `other > 0`.
    // `1 - n` is C int arithmetic: it overflows (and fails the test) for `n < -2^31 + 2`; an
    // `n` below -2^31 fails `n == (int)n` and overflows at once.
    let a_np = b.bind(bin(
        B::And,
        bin(B::Le, x.clone(), fconst(t, 0.0)),
        is_int(&x),
    ));
    let b_np = b.bind(bin(
        B::And,
        bin(B::Le, y.clone(), fconst(t, 0.0)),
        is_int(&y),
    ));
    let negint = |b: &mut dyn Bind, n: &Expr, other: &Expr| -> (Expr, Expr) {
        let rest = b.bind(sub(sub(one.clone(), n.clone()), other.clone()));
        let ok = bin(
            B::And,
            bin(
                B::And,
                bin(B::Ge, n.clone(), fconst(t, -2147483646.0)),
                is_c_int(other),
            ),
            bin(B::Gt, rest.clone(), fconst(t, 0.0)),
        );
        // finite (general case at (rest, other)) only where also other > 0
        let finite = bin(
            B::And,
            ok.clone(),
            bin(B::Gt, other.clone(), fconst(t, 0.0)),
        );
        (b.bind(ok), b.bind(finite))
    };
    let (a_ok, a_fin) = negint(b, &x, &y);
    let (b_ok, b_fin) = negint(b, &y, &x);
    // The general case's arguments: (1 - a - b, b) or (1 - b - a, a) in the negint cases.
    let rest = b.bind(sub(sub(one.clone(), x.clone()), y.clone()));
    let rest_b = b.bind(sub(sub(one.clone(), y.clone()), x.clone()));
    let ga = b.bind(Expr::select(
        a_np.clone(),
        rest,
        Expr::select(b_np.clone(), rest_b, x.clone()),
    ));
    let gb = b.bind(Expr::select(
        a_np.clone(),
        y.clone(),
        Expr::select(b_np.clone(), x.clone(), y.clone()),
    ));

    // The general case: |a| >= |b| after a swap.
    let swap = b.bind(bin(B::Lt, abs(ga.clone()), abs(gb.clone())));
    let a = b.bind(Expr::select(swap.clone(), gb.clone(), ga.clone()));
    let bb = b.bind(Expr::select(swap, ga, gb));
    // gamma and lgam of a, b and a + b, each pair sharing its reduction.
    let (gam_b, lgb) = gamma_and_gammaln(b, bb.clone());
    let lgb = b.bind(lgb);
    let sgb = b.bind(gamma_sign(&bb));

    // Asymptotic expansion of log|B(a, b)| for a > 1e6 max(|b|, 1) (Cephes' lbeta_asymp).
    let asymp = bin(
        B::And,
        bin(
            B::Gt,
            abs(a.clone()),
            mul(fconst(t, ASYMP_FACTOR), abs(bb.clone())),
        ),
        bin(B::Gt, a.clone(), fconst(t, ASYMP_FACTOR)),
    );
    let one_b = b.bind(sub(one.clone(), bb.clone()));
    let a12 = b.bind(mul(mul(fconst(t, 12.0), a.clone()), a.clone()));
    let mut r = sub(lgb.clone(), mul(bb.clone(), un(U::Log, a.clone())));
    r = add(
        r,
        div(
            mul(bb.clone(), one_b.clone()),
            mul(fconst(t, 2.0), a.clone()),
        ),
    );
    r = add(
        r,
        div(
            mul(
                mul(bb.clone(), one_b.clone()),
                sub(one.clone(), mul(fconst(t, 2.0), bb.clone())),
            ),
            a12.clone(),
        ),
    );
    r = add(
        r,
        div(
            mul(
                mul(mul(un(U::Neg, bb.clone()), bb.clone()), one_b.clone()),
                one_b,
            ),
            mul(a12, a.clone()),
        ),
    );
    let r = b.bind(r);

    // Past MAXGAM: log-gamma, lgam(a) + (lgam(b) - lgam(a + b)), with the signs.
    let s = b.bind(add(a.clone(), bb.clone()));
    let maxgam = fconst(t, MAXGAM);
    let big = bin(
        B::Or,
        bin(B::Gt, abs(s.clone()), maxgam.clone()),
        bin(
            B::Or,
            bin(B::Gt, abs(a.clone()), maxgam.clone()),
            bin(B::Gt, abs(bb.clone()), maxgam),
        ),
    );
    let (gam_s, lgs) = gamma_and_gammaln(b, s.clone());
    let (gam_a, lga) = gamma_and_gammaln(b, a.clone());
    let lv = b.bind(add(lga, sub(lgb, lgs)));
    let lsign = b.bind(mul(mul(gamma_sign(&s), sgb.clone()), gamma_sign(&a)));

    // Otherwise gamma(a) gamma(b) / gamma(a + b), the product taken in the order that keeps
    // it in range.
    let rs = b.bind(rgamma_of(&s, gam_s));
    let da = abs(sub(abs(mul(gam_a.clone(), rs.clone())), one.clone()));
    let db = abs(sub(abs(mul(gam_b.clone(), rs.clone())), one));
    let prod = b.bind(Expr::select(
        bin(B::Gt, da, db),
        mul(mul(gam_b.clone(), rs.clone()), gam_a.clone()),
        mul(mul(gam_a, rs.clone()), gam_b),
    ));
    let small = Expr::select(
        un(U::IsInf, rs),
        inf.clone(),
        if log { un(U::Log, abs(prod)) } else { prod },
    );
    let (asym_v, big_v) = if log {
        (r, lv)
    } else {
        let big_v = Expr::select(
            bin(B::Gt, lv.clone(), fconst(t, MAXLOG)),
            mul(lsign.clone(), inf.clone()),
            mul(lsign, un(U::Exp, lv)),
        );
        (mul(sgb, un(U::Exp, r)), big_v)
    };
    let general = b.bind(Expr::select(asymp, asym_v, Expr::select(big, big_v, small)));

    // beta_negint's value: sgn(other) general (other > 0), sgn(other) inf (other <= 0), or
    // inf where its test fails; lbeta_negint drops the sign.
    let negint_value = |ok: Expr, fin: Expr, other: &Expr| -> Expr {
        let v = Expr::select(fin, general.clone(), inf.clone());
        let v = if log { v } else { mul(parity_sign(other), v) };
        Expr::select(ok, v, inf.clone())
    };
    let via_a = negint_value(a_ok, a_fin, &y);
    let via_b = negint_value(b_ok, b_fin, &x);
    Expr::select(a_np, via_a, Expr::select(b_np, via_b, general))
}

/// The beta function `B(a, b) = gamma(a) gamma(b) / gamma(a + b)` (`scipy.special.beta`,
/// Cephes' `beta`): the gamma ratio while `a`, `b` and `a + b` are within 171.62 of 0, the
/// log-gamma form beyond (`inf` past `exp(709.78)`), the asymptotic expansion for
/// `a > 1e6 max(|b|, 1)`. At a non-positive integer `n` it is finite only as Cephes' rule
/// `sgn(b) B(1 - n - b, b)` for a positive integer `b < 1 - n` (so `beta(-3, 2) = 1/6`), else
/// `+-inf`; NaN kept.
pub fn beta(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    beta_or_lbeta(b, x, y, false)
}

/// `log |B(a, b)|` (`scipy.special.betaln`, Cephes' `lbeta`): as [`beta`], with the log-gamma
/// form and the asymptotic expansion returned without `exp` (no overflow); `inf` at the poles.
pub fn betaln(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    beta_or_lbeta(b, x, y, true)
}
