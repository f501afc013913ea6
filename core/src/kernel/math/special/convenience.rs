//! SciPy's "convenience functions" and information-theory functions, as its `xsf` library
//! writes them (`xsf/log_exp.h`, `xsf/specfun` wrappers, `scipy/special/_convex_analysis.pxd`,
//! `_xlogy.pxd`): the formulas and their special cases, with the project's `log1p`/`expm1`.

use super::super::{bin, expm1, fconst, log1p, un, Bind};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

/// The logistic sigmoid `1 / (1 + exp(-x))` (`scipy.special.expit`).
pub fn expit(x: Expr) -> Expr {
    let t = x.ty;
    bin(
        B::Div,
        fconst(t, 1.0),
        bin(B::Add, fconst(t, 1.0), un(U::Exp, un(U::Neg, x))),
    )
}

/// `log(x / (1 - x))` (`scipy.special.logit`); near 1/2, where that loses digits, SciPy's
/// `log1p(s) - log1p(-s)` with `s = 2 (x - 1/2)` (for `0.3 <= x <= 0.65`).
pub fn logit(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let away = un(
        U::Log,
        bin(B::Div, x.clone(), bin(B::Sub, fconst(t, 1.0), x.clone())),
    );
    let s = b.bind(bin(
        B::Mul,
        fconst(t, 2.0),
        bin(B::Sub, x.clone(), fconst(t, 0.5)),
    ));
    let lp = log1p(b, s.clone());
    let lm = log1p(b, un(U::Neg, s));
    let near = bin(B::Sub, lp, lm);
    let outside = bin(
        B::Or,
        bin(B::Lt, x.clone(), fconst(t, 0.3)),
        bin(B::Gt, x, fconst(t, 0.65)),
    );
    Expr::select(outside, away, near)
}

/// `log(expit(x))` without overflow (`scipy.special.log_expit`): `x - log1p(exp(x))` for
/// negative `x`, else `-log1p(exp(-x))`.
pub fn log_expit(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let neg = b.bind(bin(B::Lt, x.clone(), fconst(t, 0.0)));
    // exp of minus |x|: one log1p serves both branches.
    let e = b.bind(un(U::Exp, un(U::Neg, un(U::Abs, x.clone()))));
    let l = log1p(b, e);
    let l = b.bind(l);
    Expr::select(neg, bin(B::Sub, x, l.clone()), un(U::Neg, l))
}

/// `x * log(y)`, 0 where `x == 0` and `y` is not NaN (`scipy.special.xlogy`).
pub fn xlogy(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    x_times(b, x, y, |_, y| un(U::Log, y))
}

/// `x * log1p(y)`, 0 where `x == 0` and `y` is not NaN (`scipy.special.xlog1py`).
pub fn xlog1py(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    x_times(b, x, y, log1p)
}

/// `x * f(y)`, 0 where `x == 0` and `y` is not NaN (SciPy's `xlogy` family).
fn x_times(
    b: &mut dyn Bind,
    x: Expr,
    y: Expr,
    f: impl FnOnce(&mut dyn Bind, Expr) -> Expr,
) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let y = b.bind(y);
    let zero = bin(
        B::And,
        bin(B::Eq, x.clone(), fconst(t, 0.0)),
        un(U::Not, un(U::IsNan, y.clone())),
    );
    let fy = f(b, y);
    Expr::select(zero, fconst(t, 0.0), bin(B::Mul, x, fy))
}

/// The elementwise entropy `-x log(x)` (`scipy.special.entr`): 0 at 0, `-inf` below 0, NaN
/// kept.
pub fn entr(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let pos = un(U::Neg, bin(B::Mul, x.clone(), un(U::Log, x.clone())));
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            bin(B::Gt, x.clone(), fconst(t, 0.0)),
            pos,
            Expr::select(
                bin(B::Eq, x, fconst(t, 0.0)),
                fconst(t, 0.0),
                fconst(t, f64::NEG_INFINITY),
            ),
        ),
    )
}

/// The relative entropy term `x log(x / y)` (`scipy.special.rel_entr`), or with `kl` the
/// Kullback-Leibler term `x log(x / y) - x + y` (`scipy.special.kl_div`), as SciPy's `xsf`:
/// NaN if either is NaN; where `x > 0` and `y > 0`, `x log1p((x - y) / y)` for a ratio `x / y`
/// in `(1/2, 2)` (no cancellation near 1), `x log(x / y)` while the ratio is a normal number,
/// else `x (log x - log y)` (`kl`: always `x log(x / y)`, as SciPy); 0 (`kl`: `y`) where `x == 0` and `y >= 0`; `inf` elsewhere.
pub fn rel_entr(b: &mut dyn Bind, x: Expr, y: Expr, kl: bool) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let y = b.bind(y);
    let zero = fconst(t, 0.0);
    let both_pos = bin(
        B::And,
        bin(B::Gt, x.clone(), zero.clone()),
        bin(B::Gt, y.clone(), zero.clone()),
    );
    let ratio = b.bind(bin(B::Div, x.clone(), y.clone()));
    let near = bin(
        B::And,
        bin(B::Gt, ratio.clone(), fconst(t, 0.5)),
        bin(B::Lt, ratio.clone(), fconst(t, 2.0)),
    );
    let smallest_normal = if t == crate::dtype::DType::Float32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    let normal = bin(
        B::And,
        bin(B::Gt, ratio.clone(), fconst(t, smallest_normal)),
        un(U::Not, un(U::IsInf, ratio.clone())),
    );
    let l1 = log1p(b, bin(B::Div, bin(B::Sub, x.clone(), y.clone()), y.clone()));
    let log_term = if kl {
        // SciPy's kl_div keeps the plain `log(x / y)`.
        un(U::Log, ratio)
    } else {
        Expr::select(
            near,
            l1,
            Expr::select(
                normal,
                un(U::Log, ratio),
                bin(B::Sub, un(U::Log, x.clone()), un(U::Log, y.clone())),
            ),
        )
    };
    let mut v = bin(B::Mul, x.clone(), log_term);
    if kl {
        v = bin(B::Add, bin(B::Sub, v, x.clone()), y.clone());
    }
    let at_zero = bin(
        B::And,
        bin(B::Eq, x.clone(), zero.clone()),
        bin(B::Ge, y.clone(), zero.clone()),
    );
    let nan = bin(B::Or, un(U::IsNan, x), un(U::IsNan, y.clone()));
    Expr::select(
        nan,
        fconst(t, f64::NAN),
        Expr::select(
            both_pos,
            v,
            Expr::select(at_zero, if kl { y } else { zero }, fconst(t, f64::INFINITY)),
        ),
    )
}

/// The Kullback-Leibler term `x log(x / y) - x + y` (`scipy.special.kl_div`); see [`rel_entr`].
pub fn kl_div(b: &mut dyn Bind, x: Expr, y: Expr) -> Expr {
    rel_entr(b, x, y, true)
}

/// Huber's loss (`scipy.special.huber(delta, r)`): `r^2 / 2` where `|r| <= delta`, else
/// `delta (|r| - delta / 2)`; `inf` for `delta < 0`.
pub fn huber(b: &mut dyn Bind, delta: Expr, r: Expr) -> Expr {
    let t = delta.ty;
    let d = b.bind(delta);
    let r = b.bind(r);
    let ar = b.bind(un(U::Abs, r.clone()));
    let inner = bin(B::Mul, fconst(t, 0.5), bin(B::Mul, r.clone(), r));
    let outer = bin(
        B::Mul,
        d.clone(),
        bin(B::Sub, ar.clone(), bin(B::Mul, fconst(t, 0.5), d.clone())),
    );
    Expr::select(
        bin(B::Lt, d.clone(), fconst(t, 0.0)),
        fconst(t, f64::INFINITY),
        Expr::select(bin(B::Le, ar, d), inner, outer),
    )
}

/// The pseudo-Huber loss (`scipy.special.pseudo_huber(delta, r)`): `delta^2 (sqrt(1 + (r /
/// delta)^2) - 1)`, computed as SciPy does as `delta^2 expm1(log1p((r / delta)^2) / 2)`; `inf`
/// for `delta < 0`, 0 where `delta` or `r` is 0.
pub fn pseudo_huber(b: &mut dyn Bind, delta: Expr, r: Expr) -> Expr {
    let t = delta.ty;
    let d = b.bind(delta);
    let r = b.bind(r);
    let v = b.bind(bin(B::Div, r.clone(), d.clone()));
    let l = log1p(b, bin(B::Mul, v.clone(), v));
    let e = expm1(b, bin(B::Mul, fconst(t, 0.5), l));
    let val = bin(B::Mul, bin(B::Mul, d.clone(), d.clone()), e);
    let zero = bin(
        B::Or,
        bin(B::Eq, d.clone(), fconst(t, 0.0)),
        bin(B::Eq, r, fconst(t, 0.0)),
    );
    Expr::select(
        bin(B::Lt, d, fconst(t, 0.0)),
        fconst(t, f64::INFINITY),
        Expr::select(zero, fconst(t, 0.0), val),
    )
}
