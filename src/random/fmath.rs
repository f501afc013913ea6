//! The float functions the distributions need, written on the IR with `+ - * /`, `floor`,
//! comparisons and selects only (each exactly rounded or exact on every backend), so no vendor
//! transcendental (which differ between WGSL drivers, NVIDIA and the host libm) decides a bit:
//!
//! - `log`: fdlibm's `e_log.c` / `e_logf.c` (Sun Microsystems, 1993; the float32 coefficients
//!   as in musl's `logf.c`): `x = 2^k m` with `m` in `[sqrt(2)/2, sqrt(2))`, `f = m - 1`,
//!   `s = f / (2 + f)` and a minimax polynomial in `s^2`; `m` and `k` come from core's exact
//!   `frexp`.
//! - `exp`: fdlibm's `e_exp.c` / `e_expf.c`: `k = round(x / ln2)`, `r = x - k ln2` in two parts
//!   (Cody and Waite), the rational `1 + 2r / (2 - c)`, then a product by `2^k` built from
//!   exact powers of two. Results below the smallest normal are flushed to 0 (the
//!   distributions only compare them or add them to larger values).
//! - `pow(x, y) = exp(y log x)` for `x > 0`.
//!
//! Accuracy: about 1 ulp for `log` and `exp` (fdlibm's bounds, not correctly rounded), which
//! is all a sampler needs; what matters here is that the same operations run everywhere. The
//! CUDA and HIP backends compile without FMA contraction (`--fmad=false`,
//! `-ffp-contract=off`), so they round each operation as the cpu backend does.

#![allow(clippy::excessive_precision)] // fdlibm's coefficients, as published

use super::builder::{add, bin, div, fc, mul, sub, Builder};
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, UnaryOp as U};
use cupy_core::kernel::math::frexp;
use cupy_core::scalar::Scalar;

/// `log(x)` for float32/float64 `x` (0 -> -inf, negative -> NaN, inf -> inf, NaN -> NaN).
pub(crate) fn log(b: &mut Builder, x: Expr) -> Expr {
    let t = x.ty;
    let x = b.let_(x);
    let (m, e) = frexp(b, x.clone());
    let m = b.let_(m);
    let small = b.let_(bin(
        B::Lt,
        m.clone(),
        fc(t, std::f64::consts::FRAC_1_SQRT_2),
    ));
    let m = b.let_(Expr::select(small.clone(), add(m.clone(), m.clone()), m));
    let k = b.let_(sub(e.cast(t), Expr::select(small, fc(t, 1.0), fc(t, 0.0))));
    let f = b.let_(sub(m, fc(t, 1.0)));
    let s = b.let_(div(f.clone(), add(fc(t, 2.0), f.clone())));
    let z = b.let_(mul(s.clone(), s.clone()));
    let w = b.let_(mul(z.clone(), z.clone()));
    let hfsq = b.let_(mul(mul(fc(t, 0.5), f.clone()), f.clone()));
    let r = if t == DType::Float32 {
        // musl logf.c (from FreeBSD's e_logf.c): |error| < 2^-25.
        let t1 = mul(
            w.clone(),
            add(fc(t, 0.40000972152), mul(w.clone(), fc(t, 0.24279078841))),
        );
        let t2 = mul(
            z.clone(),
            add(fc(t, 0.66666662693), mul(w, fc(t, 0.28498786688))),
        );
        b.let_(add(t2, t1))
    } else {
        let (lg1, lg2, lg3, lg4, lg5, lg6, lg7) = (
            6.666666666666735130e-01,
            3.999999999940941908e-01,
            2.857142874366239149e-01,
            2.222219843214978396e-01,
            1.818357216161805012e-01,
            1.531383769920937332e-01,
            1.479819860511658591e-01,
        );
        let t1 = mul(
            w.clone(),
            add(
                fc(t, lg2),
                mul(w.clone(), add(fc(t, lg4), mul(w.clone(), fc(t, lg6)))),
            ),
        );
        let t2 = mul(
            z.clone(),
            add(
                fc(t, lg1),
                mul(
                    z.clone(),
                    add(
                        fc(t, lg3),
                        mul(z.clone(), add(fc(t, lg5), mul(z, fc(t, lg7)))),
                    ),
                ),
            ),
        );
        b.let_(add(t2, t1))
    };
    let (ln2_hi, ln2_lo) = if t == DType::Float32 {
        (6.9313812256e-01, 9.0580006145e-06)
    } else {
        (6.93147180369123816490e-01, 1.90821492927058770002e-10)
    };
    // log = k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f)
    let inner = add(mul(s, add(hfsq.clone(), r)), mul(k.clone(), fc(t, ln2_lo)));
    let v = sub(mul(k, fc(t, ln2_hi)), sub(sub(hfsq, inner), f));
    let v = b.let_(v);
    let zero = bin(B::Eq, x.clone(), fc(t, 0.0));
    let neg = bin(B::Lt, x.clone(), fc(t, 0.0));
    let special = Expr::unary(U::Not, Expr::unary(U::IsFinite, x.clone()));
    Expr::select(
        zero,
        fc(t, f64::NEG_INFINITY),
        Expr::select(
            neg,
            fc(t, f64::NAN),
            Expr::select(special, bin(B::Add, x.clone(), x), v),
        ),
    )
}

/// `2^k` for an integer-valued float `k` in the normal exponent range of `t` (exact).
fn pow2(b: &mut Builder, k: Expr) -> Expr {
    let t = k.ty;
    let n = b.let_(k.cast(DType::Int32));
    let neg = b.let_(bin(B::Lt, n.clone(), Expr::constant(Scalar::Int32(0))));
    let a = b.let_(Expr::select(neg.clone(), Expr::unary(U::Neg, n.clone()), n));
    let bits = if t == DType::Float64 { 10 } else { 7 };
    let mut p = fc(t, 1.0);
    for j in 0..bits {
        let bit = bin(
            B::Ne,
            bin(B::And, a.clone(), Expr::constant(Scalar::Int32(1 << j))),
            Expr::constant(Scalar::Int32(0)),
        );
        let f = 2f64.powi(1 << j);
        let factor = Expr::select(neg.clone(), fc(t, 1.0 / f), fc(t, f));
        p = b.let_(Expr::select(bit, mul(p.clone(), factor), p));
    }
    p
}

/// `exp(x)` for float32/float64 `x` (results below the smallest normal flush to 0; overflow
/// gives inf; NaN gives NaN).
pub(crate) fn exp(b: &mut Builder, x: Expr) -> Expr {
    let t = x.ty;
    let (lo_lim, hi_lim) = if t == DType::Float32 {
        (-87.0, 88.7)
    } else {
        (-708.0, 709.7)
    };
    let x = b.let_(x);
    let xc = b.let_(bin(
        B::Min,
        bin(B::Max, x.clone(), fc(t, lo_lim)),
        fc(t, hi_lim),
    ));
    let k = b.let_(Expr::unary(
        U::Floor,
        add(mul(xc.clone(), fc(t, std::f64::consts::LOG2_E)), fc(t, 0.5)),
    ));
    let (ln2_hi, ln2_lo) = if t == DType::Float32 {
        (6.9314575195e-01, 1.4286067653e-06)
    } else {
        (6.93147180369123816490e-01, 1.90821492927058770002e-10)
    };
    let hi = b.let_(sub(xc, mul(k.clone(), fc(t, ln2_hi))));
    let lo = b.let_(mul(k.clone(), fc(t, ln2_lo)));
    let r = b.let_(sub(hi.clone(), lo.clone()));
    let rr = b.let_(mul(r.clone(), r.clone()));
    let poly = if t == DType::Float32 {
        mul(
            rr.clone(),
            add(fc(t, 1.6666625440e-1), mul(rr, fc(t, -2.7667332906e-3))),
        )
    } else {
        let (p1, p2, p3, p4, p5) = (
            1.66666666666666019037e-01,
            -2.77777777770155933842e-03,
            6.61375632143793436117e-05,
            -1.65339022054652515390e-06,
            4.13813679705723846039e-08,
        );
        mul(
            rr.clone(),
            add(
                fc(t, p1),
                mul(
                    rr.clone(),
                    add(
                        fc(t, p2),
                        mul(
                            rr.clone(),
                            add(
                                fc(t, p3),
                                mul(rr.clone(), add(fc(t, p4), mul(rr, fc(t, p5)))),
                            ),
                        ),
                    ),
                ),
            ),
        )
    };
    let c = b.let_(sub(r.clone(), poly));
    // y = 1 - ((lo - (r c) / (2 - c)) - hi)
    let y = sub(
        fc(t, 1.0),
        sub(sub(lo, div(mul(r, c.clone()), sub(fc(t, 2.0), c))), hi),
    );
    let y = b.let_(y);
    let p = pow2(b, k);
    let v = mul(y, p);
    let under = bin(B::Lt, x.clone(), fc(t, lo_lim));
    let over = bin(B::Gt, x.clone(), fc(t, hi_lim));
    Expr::select(
        under,
        fc(t, 0.0),
        Expr::select(
            over,
            fc(t, f64::INFINITY),
            Expr::select(Expr::unary(U::IsNan, x.clone()), x, v),
        ),
    )
}

/// `x^y = exp(y log x)` for `x > 0` (`x = 0` gives 0 for `y > 0`).
pub(crate) fn pow(b: &mut Builder, x: Expr, y: Expr) -> Expr {
    let l = log(b, x);
    let l = b.let_(l);
    let p = mul(y, l);
    exp(b, p)
}

/// `log(gamma(x))` for float64 `x >= 1`: Stirling's series to `x^-7` after lifting `x` past
/// 7 by the recurrence `gamma(x + 1) = x gamma(x)` (absolute error below 10^-12).
pub(crate) fn lgamma(b: &mut Builder, x: Expr) -> Expr {
    let t = x.ty;
    let z = b.var(x);
    let prod = b.var(fc(t, 1.0));
    for _ in 0..7 {
        let small = bin(B::Lt, z.clone(), fc(t, 7.0));
        b.assign(
            &prod,
            Expr::select(small.clone(), mul(prod.clone(), z.clone()), prod.clone()),
        );
        b.assign(
            &z,
            Expr::select(small, add(z.clone(), fc(t, 1.0)), z.clone()),
        );
    }
    let lz = log(b, z.clone());
    let lz = b.let_(lz);
    let iz = b.let_(div(fc(t, 1.0), z.clone()));
    let iz2 = b.let_(mul(iz.clone(), iz.clone()));
    // 1/(12z) - 1/(360z^3) + 1/(1260z^5) - 1/(1680z^7)
    let series = mul(
        iz,
        add(
            fc(t, 1.0 / 12.0),
            mul(
                iz2.clone(),
                add(
                    fc(t, -1.0 / 360.0),
                    mul(
                        iz2.clone(),
                        add(fc(t, 1.0 / 1260.0), mul(iz2, fc(t, -1.0 / 1680.0))),
                    ),
                ),
            ),
        ),
    );
    let st = add(
        add(
            sub(mul(sub(z.clone(), fc(t, 0.5)), lz), z),
            fc(t, 0.918_938_533_204_672_8),
        ),
        series,
    );
    let st = b.let_(st);
    let lp = log(b, prod);
    sub(st, lp)
}
