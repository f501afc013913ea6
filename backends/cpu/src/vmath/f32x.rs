//! float32 lanes. `exp`, `log` and `tanh` run in float32 arithmetic; `sin` and `cos` widen to
//! float64 for the range reduction and the polynomial and round once at the end.
//!
//! Constants: splits of ln 2 and pi/2 are computed by `bench/vmath_constants.py` (mpmath, 300
//! bits); polynomial coefficients are Taylor coefficients (1/k!, 2/(2k+1)), rounded to the
//! nearest float.

use super::f64x;
use super::{fma32, poly32, Fn1};

/// 1.5 * 2^23: `v + MAGIC` rounds `v` (|v| < 2^22) to an integer held in the low mantissa bits.
const MAGIC: f32 = 12_582_912.0;
/// The bits of `MAGIC`.
const MAGIC_BITS: u32 = 0x4B40_0000;

/// Below this, exp underflows to +0 (exp(-103.97) is half the smallest subnormal).
const EXP_LO: f32 = -104.0;
/// Above this, exp overflows (exp(88.73) exceeds the largest float32).
const EXP_HI: f32 = 89.0;
/// log2(e).
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 rounded to 16 significant bits (0.693145751953125): `n * LN2_HI` is exact for
/// |n| < 2^8.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
/// ln 2 - LN2_HI rounded (1.4286068e-6).
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
/// 1/k!, k = 2..=7: exp(r) = 1 + r + r^2 (1/2 + r/6 + ...), enough for |r| <= ln2/2
/// (truncation < 2^-27).
const EXP_Q: [f32; 6] = [
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
];

/// exp(x) in float32 (Cody & Waite's reduction `x = n ln2 + r`, |r| <= ln2/2, then
/// `2^n exp(r)`; the scale is applied as two powers of two so that subnormal results round once).
#[inline(always)]
pub(super) fn exp_lane<const F: bool>(x: f32) -> f32 {
    // NaN passes the clamp unchanged and stays NaN through every step.
    let xc = x.clamp(EXP_LO, EXP_HI);
    let (p, t) = exp_reduced::<F>(xc);
    let ni = t.to_bits().wrapping_sub(MAGIC_BITS) as i32;
    let n1 = ni >> 1;
    let n2 = ni.wrapping_sub(n1);
    let s1 = f32::from_bits((n1.wrapping_add(127) as u32) << 23);
    let s2 = f32::from_bits((n2.wrapping_add(127) as u32) << 23);
    p * s1 * s2
}

/// exp(r) and `MAGIC + n` for `x = n ln2 + r` (x already clamped to [EXP_LO, EXP_HI]).
#[inline(always)]
fn exp_reduced<const F: bool>(xc: f32) -> (f32, f32) {
    let t = fma32::<F>(xc, LOG2E, MAGIC);
    let n = t - MAGIC;
    // Exact: n * LN2_HI has at most 24 bits and the difference is below ln 2 in magnitude.
    let r = fma32::<F>(n, -LN2_HI, xc);
    let r = fma32::<F>(n, -LN2_LO, r);
    // 1 + (r + r^2 Q(r)): the last addition rounds once onto a nearly exact sum.
    (1.0 + fma32::<F>(r * r, poly32::<F>(r, &EXP_Q), r), t)
}

/// The bits of sqrt(1/2) rounded to float32.
const SQRT_HALF_BITS: u32 = 0x3f35_04f3;
/// 2/(2k+1), k = 1..=4: `2 atanh(s) = 2s + s R(s^2)`, R(z) = z (2/3 + 2z/5 + ...);
/// |s| <= 0.1716 leaves a truncation below 2^-30 relative.
const LOG_C: [f32; 4] = [2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0];

/// `x = 2^e m`, m in [sqrt(1/2), sqrt(2)), for finite x > 0 (subnormals included): (e, m).
#[inline(always)]
pub(super) fn split(x: f32) -> (f32, f32) {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x }; // 2^23
    let bits = xs.to_bits();
    let e = (bits.wrapping_sub(SQRT_HALF_BITS) as i32) >> 23;
    let m = f32::from_bits(bits.wrapping_sub((e as u32) << 23));
    (e as f32 - if sub { 23.0 } else { 0.0 }, m)
}

/// log(x) in float32: fdlibm's `e_log.c` scheme (x = 2^e m with m in [sqrt(1/2), sqrt(2)),
/// f = m - 1, s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R)), with the Taylor series
/// of atanh for R.
#[inline(always)]
pub(super) fn log_lane<const F: bool>(x: f32) -> f32 {
    let (e, m) = split(x);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * poly32::<F>(z, &LOG_C);
    let hfsq = 0.5 * f * f;
    let lo = fma32::<F>(s, hfsq + r, e * LN2_LO);
    let res = fma32::<F>(e, LN2_HI, -((hfsq - lo) - f));
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if x < 0.0 {
        f32::NAN
    } else if x.is_nan() || x == f32::INFINITY {
        x
    } else {
        res
    }
}

/// tanh x = x + x^3 g(x^2) for |x| < 0.55, g the Chebyshev interpolant of degree 4 (as the
/// float64 lane's, `bench/vmath_constants.py`), error below 1.4e-8 (2^-26 of tanh).
const TANH_C: [f32; 5] = [
    -0.333_333_3,
    0.133_331_13,
    -0.053_909_43,
    0.021_309_389,
    -0.006_610_227_7,
];
/// Below this |x|, tanh is the polynomial; above, 1 - 2/(exp(2|x|) + 1), which then has
/// no cancellation (2/(exp(2|x|) + 1) < 1/2).
const TANH_SMALL: f32 = 0.55;

/// tanh(x): the polynomial below |x| = 0.55, else sign(x) (1 - 2 / (exp(2|x|) + 1)).
#[inline(always)]
pub(super) fn tanh_lane<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    // copysign: keeps tanh(-0) = -0 (the fma gives +0 there).
    let small = fma32::<F>(x * z, poly32::<F>(z, &TANH_C), x).copysign(x);
    // exp(2|x|) for 2|x| in [0, 88] (beyond, tanh is 1 in float32 anyway): one power of two,
    // 2^n with n in 0..=127, scales it.
    let a2 = a + a;
    let (p, t) = exp_reduced::<F>(if a2 > 88.0 { 88.0 } else { a2 }); // NaN stays NaN
    let ex = p * f32::from_bits(t.to_bits().wrapping_sub(MAGIC_BITS).wrapping_add(127) << 23);
    let large = (1.0 - 2.0 / (ex + 1.0)).copysign(x);
    if a < TANH_SMALL {
        small
    } else {
        large
    }
}

/// sin and cos of float32 inputs below this magnitude take the vector path (the reduction's
/// multiples of pi/2 stay below 2^20, where `j * PIO2_1` is exact in float64).
const SINCOS_BOUND: f32 = 1_048_576.0;

/// sin(x) (`COS = false`) or cos(x), the flag set for |x| > 2^20 (and infinities).
#[inline(always)]
fn sincos_lane<const F: bool, const COS: bool>(x: f32) -> (f32, bool) {
    let (v, bad) = f64x::sincos_f32_core::<F, COS>(x as f64);
    (v as f32, bad || x.abs() > SINCOS_BOUND)
}

/// `exp` of float32.
pub(crate) struct Exp;
impl Fn1 for Exp {
    type T = f32;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f32) -> (f32, bool) {
        (exp_lane::<F>(x), false)
    }
    fn libm(x: f32) -> f32 {
        x.exp()
    }
}

/// `log` of float32.
pub(crate) struct Log;
impl Fn1 for Log {
    type T = f32;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f32) -> (f32, bool) {
        (log_lane::<F>(x), false)
    }
    fn libm(x: f32) -> f32 {
        x.ln()
    }
}

/// `tanh` of float32.
pub(crate) struct Tanh;
impl Fn1 for Tanh {
    type T = f32;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f32) -> (f32, bool) {
        (tanh_lane::<F>(x), false)
    }
    fn libm(x: f32) -> f32 {
        x.tanh()
    }
}

/// `sin` of float32.
pub(crate) struct Sin;
impl Fn1 for Sin {
    type T = f32;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f32) -> (f32, bool) {
        sincos_lane::<F, false>(x)
    }
    fn libm(x: f32) -> f32 {
        // float64's sine rounded to float32: within 0.5 ulp plus float64's error.
        (x as f64).sin() as f32
    }
}

/// `cos` of float32.
pub(crate) struct Cos;
impl Fn1 for Cos {
    type T = f32;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f32) -> (f32, bool) {
        sincos_lane::<F, true>(x)
    }
    fn libm(x: f32) -> f32 {
        (x as f64).cos() as f32
    }
}
