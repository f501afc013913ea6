//! The samplers, written once as kernel IR: [`continuous`] (uniform, normal, exponential,
//! gamma and the distributions derived from them) and [`discrete`] (integers, Poisson,
//! binomial, geometric, ...), plus the building blocks they share here: uniforms from Philox
//! words, the two ziggurats (Marsaglia and Tsang, 2000) with their tables as raw operands, and
//! Marsaglia and Tsang's gamma method.

pub mod continuous;
mod deferred;
pub mod discrete;

pub use deferred::set_list_capacity;
mod ziggurat;

pub(crate) use ziggurat::{table_types, tables, zig_lanes, ziggurat, ziggurat_lanes, Defer, Zig};

use super::builder::{add, bin, bool_c, div, fc, lt, mul, neg, not, shr, sub, u32c, Builder};
use super::fmath::log;
use super::philox::Stream;
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp as B, Expr};

/// A uniform float in `[0, 1)` from the Philox words `w` starting at `at`: float32 takes the
/// top 24 bits of one word (`(w >> 8) 2^-24`), float64 53 bits of two (`((a >> 5) 2^26 +
/// (b >> 6)) 2^-53`, NumPy's `next_double`); both conversions and products are exact.
pub(crate) fn uniform01(t: DType, w: &[Expr], at: usize) -> Expr {
    if t == DType::Float32 {
        mul(shr(w[at].clone(), 8).cast(t), fc(t, 2f64.powi(-24)))
    } else {
        let a = shr(w[at].clone(), 5).cast(t);
        let b = shr(w[at + 1].clone(), 6).cast(t);
        mul(add(mul(a, fc(t, 2f64.powi(26))), b), fc(t, 2f64.powi(-53)))
    }
}

/// `-log(1 - u)`: a standard exponential from a uniform `u` in `[0, 1)` (`1 - u` is exact).
pub(crate) fn neg_log1m(b: &mut Builder, u: Expr) -> Expr {
    let t = u.ty;
    let l = log(b, sub(fc(t, 1.0), u));
    neg(l)
}

/// Marsaglia and Tsang's gamma method ("A simple method for generating gamma variables",
/// ACM TOMS 26(3), 2000) for shape `a >= 1` (an expression of dtype `t`): `d = a - 1/3`,
/// `c = 1 / sqrt(9d)`; draw a normal `x` (the normal ziggurat, tables at `raw0`) and a uniform
/// `u`, `v = (1 + c x)^3`, accept `d v` if `v > 0` and `u < 1 - 0.0331 x^4` or `log u <
/// x^2/2 + d (1 - v + log v)`. Attempt `j` reads blocks `base + 16 j ..`: up to 9 for the
/// normal and the 16th for `u`. Returns a local.
pub(crate) fn gamma_mt(
    b: &mut Builder,
    s: &Stream,
    t: DType,
    raw0: usize,
    a: Expr,
    base: Expr,
    attempts: i64,
) -> Expr {
    let d = b.let_(sub(a, fc(t, 1.0 / 3.0)));
    let c = b.let_(div(
        fc(t, 1.0),
        Expr::unary(
            cupy_core::kernel::ir::UnaryOp::Sqrt,
            mul(fc(t, 9.0), d.clone()),
        ),
    ));
    let res = b.var(fc(t, 0.0));
    let done = b.var(bool_c(false));
    // Attempt `j` reads blocks from `base + 16 j`; the first runs unconditionally, the rest
    // behind one `if` (as in `ziggurat`).
    let attempt = |b: &mut Builder, blk: Expr| {
        let x = ziggurat(b, s, Zig::Normal, t, raw0, blk.clone(), 8);
        let v = b.let_(add(fc(t, 1.0), mul(c.clone(), x.clone())));
        let ublk = b.let_(add(blk, u32c(15)));
        let wu = s.block(b, ublk);
        let u = b.let_(uniform01(t, &wu, 0));
        let v3 = b.let_(mul(mul(v.clone(), v.clone()), v.clone()));
        let dv = b.let_(mul(d.clone(), v3.clone()));
        b.assign(&res, dv.clone());
        b.if_(bin(B::Gt, v, fc(t, 0.0)), |b| {
            let x2 = b.let_(mul(x.clone(), x.clone()));
            let squeeze = lt(
                u.clone(),
                sub(fc(t, 1.0), mul(fc(t, 0.0331), mul(x2.clone(), x2.clone()))),
            );
            b.if_else(
                squeeze,
                |b| b.assign(&done, bool_c(true)),
                |b| {
                    let lu = log(b, u.clone());
                    let lu = b.let_(lu);
                    let lv = log(b, v3.clone());
                    let rhs = add(
                        mul(fc(t, 0.5), x2.clone()),
                        mul(d.clone(), add(sub(fc(t, 1.0), v3.clone()), lv)),
                    );
                    b.if_(lt(lu, rhs), |b| b.assign(&done, bool_c(true)));
                },
            );
        });
    };
    attempt(b, base.clone());
    b.if_(not(done.clone()), |b| {
        b.for_(attempts - 1, |b, j| {
            b.if_(not(done.clone()), |b| {
                let blk = b.let_(add(
                    base.clone(),
                    mul(add(j.cast(DType::UInt32), u32c(1)), u32c(16)),
                ));
                attempt(b, blk);
            });
        });
    });
    res
}
