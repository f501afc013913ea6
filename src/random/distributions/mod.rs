//! The samplers, written once as kernel IR: [`continuous`] (uniform, normal, exponential,
//! gamma and the distributions derived from them) and [`discrete`] (integers, Poisson,
//! binomial, geometric, ...), plus the building blocks they share here: uniforms from Philox
//! words, the two ziggurats (Marsaglia and Tsang, 2000) with their tables as raw operands, and
//! Marsaglia and Tsang's gamma method.

pub mod continuous;
pub mod discrete;

use super::builder::{add, and, bin, bool_c, div, fc, lt, mul, neg, not, shr, sub, u32c, Builder};
use super::fmath::{exp, log};
use super::philox::Stream;
use super::ziggurat_tables as zt;
use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp as B, Expr};
use std::sync::{Arc, Mutex};

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

/// Which ziggurat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Zig {
    /// The standard normal (tail start 3.654...).
    Normal,
    /// The standard exponential (tail start 7.697...).
    Exponential,
}

type TableCache = Mutex<Vec<(usize, Zig, DType, Arc<Vec<Array>>)>>;
static TABLES: TableCache = Mutex::new(Vec::new());

/// The ziggurat tables `[k, w, f]` of `zig` for dtype `t` on `device` (uploaded once per
/// device): `k` is uint32 for float32 (23-bit magnitudes), float64 for float64 (52-bit).
pub(crate) fn tables(device: &Device, zig: Zig, t: DType) -> Result<Vec<Array>> {
    let id = Arc::as_ptr(device.backend()) as *const () as usize;
    let mut cache = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, _, v)) = cache
        .iter()
        .find(|(i, z, d, _)| *i == id && *z == zig && *d == t)
    {
        return Ok(v.as_ref().clone());
    }
    let n = [256];
    let v = match (zig, t) {
        (Zig::Normal, DType::Float32) => vec![
            Array::from_slice_on(device, &zt::KNOR_F32, &n)?,
            f32_table(device, &zt::WNOR_F32)?,
            f32_table(device, &zt::FNOR_F32)?,
        ],
        (Zig::Normal, _) => vec![
            Array::from_slice_on(device, &zt::KNOR_F64, &n)?,
            Array::from_slice_on(device, &zt::WNOR_F64, &n)?,
            Array::from_slice_on(device, &zt::FNOR_F64, &n)?,
        ],
        (Zig::Exponential, DType::Float32) => vec![
            Array::from_slice_on(device, &zt::KEXP_F32, &n)?,
            f32_table(device, &zt::WEXP_F32)?,
            f32_table(device, &zt::FEXP_F32)?,
        ],
        (Zig::Exponential, _) => vec![
            Array::from_slice_on(device, &zt::KEXP_F64, &n)?,
            Array::from_slice_on(device, &zt::WEXP_F64, &n)?,
            Array::from_slice_on(device, &zt::FEXP_F64, &n)?,
        ],
    };
    cache.push((id, zig, t, Arc::new(v.clone())));
    Ok(v)
}

fn f32_table(device: &Device, v: &[f64; 256]) -> Result<Array> {
    let f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    Array::from_slice_on(device, &f, &[256])
}

/// The raw operand dtypes of a ziggurat's tables for float dtype `t`.
pub(crate) fn table_types(t: DType) -> [DType; 3] {
    if t == DType::Float32 {
        [DType::UInt32, t, t]
    } else {
        [t; 3]
    }
}

/// The magnitude, layer and sign of a ziggurat draw from block words `w`: float32 takes one
/// word (layer bits 0..8, sign bit 8, magnitude bits 9..32 for the normal; the exponential
/// skips bit 0 and has no sign), float64 two (52 magnitude bits).
fn zig_bits(b: &mut Builder, zig: Zig, t: DType, w: &[Expr; 4]) -> (Expr, Expr, Expr) {
    let (idx, sign, mag) = match (zig, t) {
        (Zig::Normal, DType::Float32) => (
            and(w[0].clone(), u32c(0xff)),
            and(shr(w[0].clone(), 8), u32c(1)),
            shr(w[0].clone(), 9),
        ),
        (Zig::Exponential, DType::Float32) => (
            and(shr(w[0].clone(), 1), u32c(0xff)),
            u32c(0),
            shr(w[0].clone(), 9),
        ),
        (Zig::Normal, _) => (
            and(w[0].clone(), u32c(0xff)),
            and(shr(w[0].clone(), 8), u32c(1)),
            // bits 9..61 of (w1:w0): 23 from w0, 29 from w1.
            b.let_(add(
                mul(
                    and(w[1].clone(), u32c(0x1fff_ffff)).cast(t),
                    fc(t, 2f64.powi(23)),
                ),
                shr(w[0].clone(), 9).cast(t),
            )),
        ),
        (Zig::Exponential, _) => (
            and(shr(w[0].clone(), 3), u32c(0xff)),
            u32c(0),
            // bits 11..63: 21 from w0, 31 from w1.
            b.let_(add(
                mul(
                    and(w[1].clone(), u32c(0x7fff_ffff)).cast(t),
                    fc(t, 2f64.powi(21)),
                ),
                shr(w[0].clone(), 11).cast(t),
            )),
        ),
    };
    (b.let_(idx), b.let_(sign), b.let_(mag))
}

/// A ziggurat sample of `zig` in dtype `t` (tables are raw operands `raw0..raw0 + 3`), from
/// blocks `base, base + 1, ...` of the element's stream, at most `attempts` of them. Returns a
/// local. Layers are accepted at once 98.9% (normal) / 98.8% (exponential) of the time; a
/// rejected wedge point starts over, the normal's tail repeats Marsaglia's tail step. After
/// `attempts` rejections (probability below 10^-15 for 8) the last candidate is kept, so the
/// result is deterministic.
pub(crate) fn ziggurat(
    b: &mut Builder,
    s: &Stream,
    zig: Zig,
    t: DType,
    raw0: usize,
    base: Expr,
    attempts: i64,
) -> Expr {
    let [kt, _, _] = table_types(t);
    let res = b.var(fc(t, 0.0));
    let done = b.var(bool_c(false));
    let tail = b.var(bool_c(false));
    let tail_neg = b.var(bool_c(false));
    let r = match zig {
        Zig::Normal => zt::NOR_R,
        Zig::Exponential => zt::EXP_R,
    };
    // One attempt reads block `blk`. The first runs unconditionally; the rest sit behind
    // one `if` so a group of lanes that all accepted skips the loop (the attempt numbers,
    // hence the bits, are the same either way).
    let attempt = |b: &mut Builder, blk: Expr| {
        let w = s.block(b, blk);
        let (res, done, tail, tail_neg) =
            (res.clone(), done.clone(), tail.clone(), tail_neg.clone());
        b.if_else(
            tail.clone(),
            |b| {
                // Marsaglia's normal tail: x = -log(u1) / r, y = -log(u2), accept 2y > x^2.
                let e1 = neg_log1m(b, uniform01(t, &w, 0));
                let xx = b.let_(div(e1, fc(t, r)));
                let yy = neg_log1m(b, uniform01(t, &w, 2));
                let yy = b.let_(yy);
                let ok = bin(B::Gt, add(yy.clone(), yy), mul(xx.clone(), xx.clone()));
                b.if_(ok, |b| {
                    let v = b.let_(add(fc(t, r), xx));
                    b.assign(&res, Expr::select(tail_neg.clone(), neg(v.clone()), v));
                    b.assign(&done, bool_c(true));
                });
            },
            |b| {
                let (idx, sign, mag) = zig_bits(b, zig, t, &w);
                let i64idx = b.let_(idx.clone().cast(DType::Int64));
                let wv = Expr::load(raw0 + 1, t, i64idx.clone());
                let x = b.let_(mul(mag.clone().cast(t), wv));
                let negative = b.let_(bin(B::Ne, sign, u32c(0)));
                let sx = b.let_(Expr::select(negative.clone(), neg(x.clone()), x.clone()));
                let kv = Expr::load(raw0, kt, i64idx.clone());
                let fast = if kt == DType::UInt32 {
                    lt(mag, kv)
                } else {
                    lt(mag.cast(t), kv)
                };
                b.if_else(
                    fast,
                    |b| {
                        b.assign(&res, sx.clone());
                        b.assign(&done, bool_c(true));
                    },
                    |b| {
                        b.if_else(
                            bin(B::Eq, idx.clone(), u32c(0)),
                            |b| match zig {
                                Zig::Normal => {
                                    b.assign(&tail, bool_c(true));
                                    b.assign(&tail_neg, negative.clone());
                                    b.assign(&res, sx.clone());
                                }
                                Zig::Exponential => {
                                    // Memoryless tail: r + a fresh exponential.
                                    let e = neg_log1m(b, uniform01(t, &w, 2));
                                    b.assign(&res, add(fc(t, r), e));
                                    b.assign(&done, bool_c(true));
                                }
                            },
                            |b| {
                                let fi = Expr::load(raw0 + 2, t, i64idx.clone());
                                let fprev = Expr::load(
                                    raw0 + 2,
                                    t,
                                    sub(
                                        i64idx.clone(),
                                        Expr::constant(cupy_core::scalar::Scalar::Int64(1)),
                                    ),
                                );
                                let fi = b.let_(fi);
                                let u = uniform01(t, &w, 2);
                                let y = b.let_(add(fi.clone(), mul(u, sub(fprev, fi))));
                                let arg = match zig {
                                    Zig::Normal => mul(mul(fc(t, -0.5), x.clone()), x.clone()),
                                    Zig::Exponential => neg(x.clone()),
                                };
                                let e = exp(b, arg);
                                let e = b.let_(e);
                                b.assign(&res, sx.clone());
                                b.if_(lt(y, e), |b| b.assign(&done, bool_c(true)));
                            },
                        );
                    },
                );
            },
        );
    };
    attempt(b, base.clone());
    b.if_(not(done.clone()), |b| {
        b.for_(attempts - 1, |b, k| {
            b.if_(not(done.clone()), |b| {
                let blk = b.let_(add(add(base.clone(), u32c(1)), k.cast(DType::UInt32)));
                attempt(b, blk);
            });
        });
    });
    res
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
