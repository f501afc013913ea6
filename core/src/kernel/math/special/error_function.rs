//! The error function family as SciPy computes it (its `xsf` library): `erf`, `erfc` and `ndtr`
//! from Cephes' `ndtr.c` (`xsf/cephes/ndtr.h`: Moshier's rational approximations `T/U` on
//! `|x| <= 1`, `P/Q` on `[1, 8)`, `R/S` beyond), `ndtri` from Cephes' `ndtri.c`
//! (`xsf/cephes/ndtri.h`), `erfcinv` as `xsf/cephes/erfinv.h` (`-ndtri(y/2)/sqrt(2)`),
//! `log_ndtr` as `xsf`'s (`log(erfcx(-t)/2) - t^2` below -1, else `log1p(-erfc(t)/2)`).
//!
//! `erfcx` (SciPy: S. G. Johnson's Faddeeva package) is computed here from Cephes' pieces:
//! `exp(x^2) erfc(x)` below 1, Cephes' `P/Q` and `R/S` (which are `erfc(x) exp(x^2)`) up to 50,
//! then the Faddeeva package's continued-fraction tail `((x^2)(x^2 + 4.5) + 2) / (x ((x^2)(x^2
//! + 5) + 3.75)) / sqrt(pi)` (`1 / (x sqrt(pi))` past `5e7`); `2 exp(x^2) - erfcx(-x)` below 0.
//!
//! `erfinv` (SciPy: Boost's) starts from Cephes' `ndtri` (`ndtri((1 + y)/2)/sqrt(2)`, or
//! `erfcinv(1 - |y|)` for `|y| >= 1/2`, where `1 - |y|` is exact) and takes two Newton steps on
//! `erf(x) = |y|` (`erfc(x) = 1 - |y|` for `|y| >= 1/2`, so the residual keeps its digits).

// The coefficients are quoted digit for digit as Cephes publishes them, so they can be checked
// against the source (f64 keeps what it can hold).
#![allow(clippy::excessive_precision)]

use super::super::{bin, fconst, log1p, un, Bind};
use super::{p1evl, polevl};
use crate::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};

// Cephes ndtr.c coefficients (Moshier), as xsf/cephes/ndtr.h.
const NDTR_P: [f64; 9] = [
    2.46196981473530512524E-10,
    5.64189564831068821977E-1,
    7.46321056442269912687E0,
    4.86371970985681366614E1,
    1.96520832956077098242E2,
    5.26445194995477358631E2,
    9.34528527171957607540E2,
    1.02755188689515710272E3,
    5.57535335369399327526E2,
];
const NDTR_Q: [f64; 8] = [
    1.32281951154744992508E1,
    8.67072140885989742329E1,
    3.54937778887819891062E2,
    9.75708501743205489753E2,
    1.82390916687909736289E3,
    2.24633760818710981792E3,
    1.65666309194161350182E3,
    5.57535340817727675546E2,
];
const NDTR_R: [f64; 6] = [
    5.64189583547755073984E-1,
    1.27536670759978104416E0,
    5.01905042251180477414E0,
    6.16021097993053585195E0,
    7.40974269950448939160E0,
    2.97886665372100240670E0,
];
const NDTR_S: [f64; 6] = [
    2.26052863220117276590E0,
    9.39603524938001434673E0,
    1.20489539808096656605E1,
    1.70814450747565897222E1,
    9.60896809063285878198E0,
    3.36907645100081516050E0,
];
const NDTR_T: [f64; 5] = [
    9.60497373987051638749E0,
    9.00260197203842689217E1,
    2.23200534594684319226E3,
    7.00332514112805075473E3,
    5.55923013010394962768E4,
];
const NDTR_U: [f64; 5] = [
    3.35617141647503099647E1,
    5.21357949780152679795E2,
    4.59432382970980127987E3,
    2.26290000613890934246E4,
    4.92673942608635921086E4,
];
// Cephes ndtri.c coefficients, as xsf/cephes/ndtri.h.
const NDTRI_P0: [f64; 5] = [
    -5.99633501014107895267E1,
    9.80010754185999661536E1,
    -5.66762857469070293439E1,
    1.39312609387279679503E1,
    -1.23916583867381258016E0,
];
const NDTRI_Q0: [f64; 8] = [
    1.95448858338141759834E0,
    4.67627912898881538453E0,
    8.63602421390890590575E1,
    -2.25462687854119370527E2,
    2.00260212380060660359E2,
    -8.20372256168333339912E1,
    1.59056225126211695515E1,
    -1.18331621121330003142E0,
];
const NDTRI_P1: [f64; 9] = [
    4.05544892305962419923E0,
    3.15251094599893866154E1,
    5.71628192246421288162E1,
    4.40805073893200834700E1,
    1.46849561928858024014E1,
    2.18663306850790267539E0,
    -1.40256079171354495875E-1,
    -3.50424626827848203418E-2,
    -8.57456785154685413611E-4,
];
const NDTRI_Q1: [f64; 8] = [
    1.57799883256466749731E1,
    4.53907635128879210584E1,
    4.13172038254672030440E1,
    1.50425385692907503408E1,
    2.50464946208309415979E0,
    -1.42182922854787788574E-1,
    -3.80806407691578277194E-2,
    -9.33259480895457427372E-4,
];
const NDTRI_P2: [f64; 9] = [
    3.23774891776946035970E0,
    6.91522889068984211695E0,
    3.93881025292474443415E0,
    1.33303460815807542389E0,
    2.01485389549179081538E-1,
    1.23716634817820021358E-2,
    3.01581553508235416007E-4,
    2.65806974686737550832E-6,
    6.23974539184983293730E-9,
];
const NDTRI_Q2: [f64; 8] = [
    6.02427039364742014255E0,
    3.67983563856160859403E0,
    1.37702099489081330271E0,
    2.16236993594496635890E-1,
    1.34204006088543189037E-2,
    3.28014464682127739104E-4,
    2.89247864745380683936E-6,
    6.79019408009981274425E-9,
];
/// Cephes' `MAXLOG`.
const MAXLOG: f64 = 7.09782712893383996843E2;
const SQRT1_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// `sqrt(pi) / 2`, the reciprocal of `erf`'s slope at 0.
const SQRTPI_2: f64 = 0.886_226_925_452_758;
/// `1 / sqrt(pi)`.
const ISPI: f64 = 0.564_189_583_547_756_3;

/// Cephes' `erf` for `|x| <= 1`: `x T(x^2) / U(x^2)`.
fn erf_small(b: &mut dyn Bind, x: Expr) -> Expr {
    let z = b.bind(bin(B::Mul, x.clone(), x.clone()));
    bin(
        B::Div,
        bin(B::Mul, x, polevl(&z, &NDTR_T)),
        p1evl(&z, &NDTR_U),
    )
}

/// Cephes' `erfc` for `|a| >= 1`: `exp(-a^2) P(|a|)/Q(|a|)` (`R/S` from 8), `2 - ` that for
/// negative `a`; 0 (2) where `-a^2 < -MAXLOG` or the product underflows.
fn erfc_tail(b: &mut dyn Bind, a: Expr) -> Expr {
    let t = a.ty;
    let x = b.bind(un(U::Abs, a.clone()));
    let z = b.bind(un(U::Neg, bin(B::Mul, a.clone(), a.clone())));
    let under = bin(B::Lt, z.clone(), fconst(t, -MAXLOG));
    let e = un(U::Exp, z);
    let pq = Expr::select(
        bin(B::Lt, x.clone(), fconst(t, 8.0)),
        bin(B::Div, polevl(&x, &NDTR_P), p1evl(&x, &NDTR_Q)),
        bin(B::Div, polevl(&x, &NDTR_R), p1evl(&x, &NDTR_S)),
    );
    // Cephes' `(z * p) / q`, with `p / q` rounded first: the same value to an ulp.
    let y = b.bind(bin(B::Mul, e, pq));
    let neg = b.bind(bin(B::Lt, a, fconst(t, 0.0)));
    let y = Expr::select(neg.clone(), bin(B::Sub, fconst(t, 2.0), y.clone()), y);
    let zero = bin(B::Or, under, bin(B::Eq, y.clone(), fconst(t, 0.0)));
    Expr::select(zero, Expr::select(neg, fconst(t, 2.0), fconst(t, 0.0)), y)
}

/// The error function `erf(x)` (`scipy.special.erf`), Cephes' `erf`: `x T(x^2)/U(x^2)` for
/// `|x| <= 1`, else `1 - erfc(|x|)` with `x`'s sign.
pub fn erf(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let small = erf_small(b, x.clone());
    let tail = erfc_tail(b, un(U::Abs, x.clone()));
    let big = b.bind(bin(B::Sub, fconst(t, 1.0), tail));
    let big = Expr::select(
        bin(B::Lt, x.clone(), fconst(t, 0.0)),
        un(U::Neg, big.clone()),
        big,
    );
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            bin(B::Gt, un(U::Abs, x.clone()), fconst(t, 1.0)),
            big,
            small,
        ),
    )
}

/// The complementary error function `1 - erf(x)` (`scipy.special.erfc`), Cephes' `erfc`:
/// `1 - erf(x)` for `|x| < 1`, else `exp(-x^2) P/Q` (see the module docs).
pub fn erfc(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let small = bin(B::Sub, fconst(t, 1.0), erf_small(b, x.clone()));
    let tail = erfc_tail(b, x.clone());
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            bin(B::Lt, un(U::Abs, x.clone()), fconst(t, 1.0)),
            small,
            tail,
        ),
    )
}

/// The standard normal CDF (`scipy.special.ndtr`), Cephes' `ndtr`: with `t = x/sqrt(2)`,
/// `(1 + erf(t))/2` for `|t| < 1`, else `erfc(|t|)/2` (`1 - ` that for positive `t`).
pub fn ndtr(b: &mut dyn Bind, a: Expr) -> Expr {
    let t = a.ty;
    let a = b.bind(a);
    let x = b.bind(bin(B::Mul, a.clone(), fconst(t, SQRT1_2)));
    let z = b.bind(un(U::Abs, x.clone()));
    let small = bin(
        B::Add,
        fconst(t, 0.5),
        bin(B::Mul, fconst(t, 0.5), erf_small(b, x.clone())),
    );
    let y = erfc_tail(b, z.clone());
    let y = b.bind(bin(B::Mul, fconst(t, 0.5), y));
    let tail = Expr::select(
        bin(B::Gt, x, fconst(t, 0.0)),
        bin(B::Sub, fconst(t, 1.0), y.clone()),
        y,
    );
    Expr::select(
        un(U::IsNan, a.clone()),
        a,
        Expr::select(bin(B::Lt, z, fconst(t, 1.0)), small, tail),
    )
}

/// The inverse of the standard normal CDF (`scipy.special.ndtri`), Cephes' `ndtri`: `-inf` at
/// 0, `inf` at 1, NaN outside `[0, 1]`.
pub fn ndtri(b: &mut dyn Bind, y0: Expr) -> Expr {
    let t = y0.ty;
    let e2 = 0.13533528323661269189; // exp(-2)
    let y0 = b.bind(y0);
    let flip = b.bind(bin(B::Gt, y0.clone(), fconst(t, 1.0 - e2)));
    let y = b.bind(Expr::select(
        flip.clone(),
        bin(B::Sub, fconst(t, 1.0), y0.clone()),
        y0.clone(),
    ));
    // Around 1/2: w + w^3 P0(w^2)/Q0(w^2), times sqrt(2 pi).
    let w = b.bind(bin(B::Sub, y.clone(), fconst(t, 0.5)));
    let w2 = b.bind(bin(B::Mul, w.clone(), w.clone()));
    let mid = bin(
        B::Add,
        w.clone(),
        bin(
            B::Mul,
            w,
            bin(
                B::Div,
                bin(B::Mul, w2.clone(), polevl(&w2, &NDTRI_P0)),
                p1evl(&w2, &NDTRI_Q0),
            ),
        ),
    );
    let mid = bin(B::Mul, mid, fconst(t, 2.50662827463100050242E0));
    // Tails: x = sqrt(-2 log y), x - log(x)/x - P(1/x)/(x Q(1/x)).
    let x = b.bind(un(
        U::Sqrt,
        bin(B::Mul, fconst(t, -2.0), un(U::Log, y.clone())),
    ));
    let x0 = bin(
        B::Sub,
        x.clone(),
        bin(B::Div, un(U::Log, x.clone()), x.clone()),
    );
    let z = b.bind(bin(B::Div, fconst(t, 1.0), x.clone()));
    let x1 = Expr::select(
        bin(B::Lt, x, fconst(t, 8.0)),
        bin(
            B::Div,
            bin(B::Mul, z.clone(), polevl(&z, &NDTRI_P1)),
            p1evl(&z, &NDTRI_Q1),
        ),
        bin(
            B::Div,
            bin(B::Mul, z.clone(), polevl(&z, &NDTRI_P2)),
            p1evl(&z, &NDTRI_Q2),
        ),
    );
    let r = b.bind(bin(B::Sub, x0, x1));
    let tail = Expr::select(flip, r.clone(), un(U::Neg, r));
    let v = Expr::select(bin(B::Gt, y, fconst(t, e2)), mid, tail);
    let outside = bin(
        B::Or,
        bin(B::Lt, y0.clone(), fconst(t, 0.0)),
        bin(B::Gt, y0.clone(), fconst(t, 1.0)),
    );
    Expr::select(
        bin(B::Eq, y0.clone(), fconst(t, 0.0)),
        fconst(t, f64::NEG_INFINITY),
        Expr::select(
            bin(B::Eq, y0.clone(), fconst(t, 1.0)),
            fconst(t, f64::INFINITY),
            Expr::select(
                bin(B::Or, outside, un(U::IsNan, y0)),
                fconst(t, f64::NAN),
                v,
            ),
        ),
    )
}

/// The inverse complementary error function (`scipy.special.erfcinv`), Cephes'
/// `-ndtri(y/2)/sqrt(2)` on `(0, 2)`: `inf` at 0, `-inf` at 2, NaN outside `[0, 2]`.
pub fn erfcinv(b: &mut dyn Bind, y: Expr) -> Expr {
    let t = y.ty;
    let y = b.bind(y);
    let n = ndtri(b, bin(B::Mul, fconst(t, 0.5), y.clone()));
    let v = bin(B::Mul, un(U::Neg, n), fconst(t, SQRT1_2));
    let outside = bin(
        B::Or,
        bin(B::Lt, y.clone(), fconst(t, 0.0)),
        bin(B::Gt, y.clone(), fconst(t, 2.0)),
    );
    Expr::select(
        bin(B::Eq, y.clone(), fconst(t, 0.0)),
        fconst(t, f64::INFINITY),
        Expr::select(
            bin(B::Eq, y.clone(), fconst(t, 2.0)),
            fconst(t, f64::NEG_INFINITY),
            Expr::select(bin(B::Or, outside, un(U::IsNan, y)), fconst(t, f64::NAN), v),
        ),
    )
}

/// The inverse error function (`scipy.special.erfinv`): `±inf` at `±1`, NaN outside
/// `[-1, 1]`, `±0` kept; see the module docs for the method.
pub fn erfinv(b: &mut dyn Bind, y: Expr) -> Expr {
    let t = y.ty;
    let y = b.bind(y);
    let ay = b.bind(un(U::Abs, y.clone()));
    let small = b.bind(bin(B::Lt, ay.clone(), fconst(t, 0.5)));
    let q = b.bind(bin(B::Sub, fconst(t, 1.0), ay.clone()));
    let p = Expr::select(
        small.clone(),
        bin(
            B::Mul,
            fconst(t, 0.5),
            bin(B::Add, ay.clone(), fconst(t, 1.0)),
        ),
        bin(B::Mul, fconst(t, 0.5), q.clone()),
    );
    let n = ndtri(b, p);
    let n = b.bind(n);
    let mut x = b.bind(bin(
        B::Mul,
        Expr::select(small.clone(), n.clone(), un(U::Neg, n)),
        fconst(t, SQRT1_2),
    ));
    for _ in 0..2 {
        let e = erf(b, x.clone());
        let ec = erfc(b, x.clone());
        let r = Expr::select(
            small.clone(),
            bin(B::Sub, e, ay.clone()),
            bin(B::Sub, q.clone(), ec),
        );
        let slope = bin(
            B::Mul,
            fconst(t, SQRTPI_2),
            un(U::Exp, bin(B::Mul, x.clone(), x.clone())),
        );
        x = b.bind(bin(B::Sub, x.clone(), bin(B::Mul, r, slope)));
    }
    let v = Expr::select(
        bin(B::Lt, y.clone(), fconst(t, 0.0)),
        un(U::Neg, x.clone()),
        x,
    );
    Expr::select(
        bin(B::Eq, y.clone(), fconst(t, 0.0)),
        y.clone(),
        Expr::select(
            bin(B::Eq, ay.clone(), fconst(t, 1.0)),
            Expr::select(
                bin(B::Lt, y.clone(), fconst(t, 0.0)),
                fconst(t, f64::NEG_INFINITY),
                fconst(t, f64::INFINITY),
            ),
            Expr::select(
                bin(B::Or, bin(B::Gt, ay, fconst(t, 1.0)), un(U::IsNan, y)),
                fconst(t, f64::NAN),
                v,
            ),
        ),
    )
}

/// `erfcx` for `x >= 0` (see the module docs).
fn erfcx_pos(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let x2 = b.bind(bin(B::Mul, x.clone(), x.clone()));
    let small = bin(
        B::Mul,
        un(U::Exp, x2.clone()),
        bin(B::Sub, fconst(t, 1.0), erf_small(b, x.clone())),
    );
    let pq = bin(B::Div, polevl(&x, &NDTR_P), p1evl(&x, &NDTR_Q));
    let rs = bin(B::Div, polevl(&x, &NDTR_R), p1evl(&x, &NDTR_S));
    let cf = bin(
        B::Div,
        bin(
            B::Mul,
            fconst(t, ISPI),
            bin(
                B::Add,
                bin(B::Mul, x2.clone(), bin(B::Add, x2.clone(), fconst(t, 4.5))),
                fconst(t, 2.0),
            ),
        ),
        bin(
            B::Mul,
            x.clone(),
            bin(
                B::Add,
                bin(B::Mul, x2.clone(), bin(B::Add, x2, fconst(t, 5.0))),
                fconst(t, 3.75),
            ),
        ),
    );
    let far = bin(B::Div, fconst(t, ISPI), x.clone());
    Expr::select(
        bin(B::Lt, x.clone(), fconst(t, 1.0)),
        small,
        Expr::select(
            bin(B::Lt, x.clone(), fconst(t, 8.0)),
            pq,
            Expr::select(
                bin(B::Lt, x.clone(), fconst(t, 50.0)),
                rs,
                Expr::select(bin(B::Lt, x, fconst(t, 5e7)), cf, far),
            ),
        ),
    )
}

/// The scaled complementary error function `exp(x^2) erfc(x)` (`scipy.special.erfcx`): `inf`
/// below -26.7 (as the Faddeeva package), `2 exp(x^2) - erfcx(-x)` below 0.
pub fn erfcx(b: &mut dyn Bind, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.bind(x);
    let ax = b.bind(un(U::Abs, x.clone()));
    let p = erfcx_pos(b, ax);
    let p = b.bind(p);
    let neg = bin(
        B::Sub,
        bin(
            B::Mul,
            fconst(t, 2.0),
            un(U::Exp, bin(B::Mul, x.clone(), x.clone())),
        ),
        p.clone(),
    );
    Expr::select(
        un(U::IsNan, x.clone()),
        x.clone(),
        Expr::select(
            bin(B::Lt, x.clone(), fconst(t, -26.7)),
            fconst(t, f64::INFINITY),
            Expr::select(bin(B::Lt, x, fconst(t, 0.0)), neg, p),
        ),
    )
}

/// The log of the standard normal CDF (`scipy.special.log_ndtr`), as `xsf`: with `t =
/// x/sqrt(2)`, `log(erfcx(-t)/2) - t^2` for `x < -1` (no underflow), else `log1p(-erfc(t)/2)`.
pub fn log_ndtr(b: &mut dyn Bind, a: Expr) -> Expr {
    let ty = a.ty;
    let a = b.bind(a);
    let t = b.bind(bin(B::Mul, a.clone(), fconst(ty, SQRT1_2)));
    let ex = erfcx(b, un(U::Neg, t.clone()));
    let low = bin(
        B::Sub,
        un(U::Log, bin(B::Mul, ex, fconst(ty, 0.5))),
        bin(B::Mul, t.clone(), t.clone()),
    );
    let ec = erfc(b, t);
    let high = log1p(b, un(U::Neg, bin(B::Mul, ec, fconst(ty, 0.5))));
    Expr::select(
        un(U::IsNan, a.clone()),
        a.clone(),
        Expr::select(bin(B::Lt, a, fconst(ty, -1.0)), low, high),
    )
}
