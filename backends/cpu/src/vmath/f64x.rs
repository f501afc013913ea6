//! float64 lanes (and the float64 cores that float32 `sin`, `cos` and `pow` widen to).
//!
//! Constants: splits of ln 2 and pi/2 are computed by `bench/vmath_constants.py` (mpmath, 300
//! bits); the 33-bit pi/2 pieces are the ones fdlibm's `e_rem_pio2.c` uses (any correct split
//! has them). Polynomial coefficients are Taylor coefficients rounded to the nearest double.

use super::{fma64, poly64, Fn1};

/// 1.5 * 2^52: `v + MAGIC` rounds `v` (|v| < 2^51) to an integer held in the low mantissa bits.
pub(super) const MAGIC: f64 = 6_755_399_441_055_744.0;
/// The bits of `MAGIC`.
pub(super) const MAGIC_BITS: u64 = 0x4338_0000_0000_0000;

/// Below this, exp underflows to +0 (exp(-745.14) is half the smallest subnormal).
const EXP_LO: f64 = -746.0;
/// Above this, exp overflows.
const EXP_HI: f64 = 710.0;
/// log2(e) (0x3ff71547652b82fe).
const LOG2E: f64 = std::f64::consts::LOG2_E;
/// ln 2 rounded to 42 significant bits (0x3fe62e42fefa3800): `n * LN2_HI` is exact for
/// |n| < 2^11.
pub(super) const LN2_HI: f64 = 0.693_147_180_559_890_3;
/// ln 2 - LN2_HI (0x3d2ef35793c76730).
pub(super) const LN2_LO: f64 = 5.497_923_018_708_371e-14;
/// 1/k!, k = 2..=13: exp(r) = 1 + r + r^2 (1/2 + r/6 + ...) (truncation below 2^-57 for
/// |r| <= ln2/2).
const EXP_Q: [f64; 12] = [
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];
/// `2^n` for |n| <= 1023 as two factors whose product is `2^n` for every n in -1077..=1025.
#[inline(always)]
fn scale2(t: f64) -> (f64, f64) {
    // n from the bits of `MAGIC + n`; n1 = floor(n / 2) via an offset (no arithmetic shift).
    let ni = t.to_bits().wrapping_sub(MAGIC_BITS) as i64;
    let n1 = ((ni.wrapping_add(2048) as u64) >> 1) as i64 - 1024;
    let n2 = ni.wrapping_sub(n1);
    let s1 = f64::from_bits((n1.wrapping_add(1023) as u64) << 52);
    let s2 = f64::from_bits((n2.wrapping_add(1023) as u64) << 52);
    (s1, s2)
}

/// exp(x + xl) (`xl` a small tail when `TAIL`, ignored where x is clamped): Cody & Waite's
/// reduction `x = n ln2 + r0 + d` (r0 exact, d = -n LN2_LO + xl), the Taylor polynomial, and
/// `2^n` as two factors so that subnormal results round once. The sum
/// `1 + r0 + (d + r^2 Q(r))` is carried as a double-double and rounded once (results within
/// about 0.51 ulp).
#[inline(always)]
pub(super) fn exp_core<const F: bool, const TAIL: bool>(x: f64, xl: f64) -> f64 {
    // NaN passes the clamp unchanged and stays NaN through every step.
    let xc = x.clamp(EXP_LO, EXP_HI);
    let t = fma64::<F>(xc, LOG2E, MAGIC);
    let n = t - MAGIC;
    let r0 = fma64::<F>(n, -LN2_HI, xc); // exact: n LN2_HI has 53 bits, |r0| < ln 2
    let d = if TAIL && xc == x {
        fma64::<F>(n, -LN2_LO, xl)
    } else {
        n * -LN2_LO
    };
    let r = r0 + d;
    let q = r * r * poly64::<F>(r, &EXP_Q);
    let (sh, sl) = fast_two_sum(r0, q);
    let (hi, lo) = fast_two_sum(1.0, sh);
    let p = hi + (lo + (sl + d));
    let (s1, s2) = scale2(t);
    p * s1 * s2
}

/// The bits of sqrt(1/2) rounded to float64.
const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
/// 2/(2k+1), k = 1..=10 (truncation below 2^-60 relative for |s| <= 0.1716).
const LOG_C: [f64; 10] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
];
/// `x = 2^e m`, m in [sqrt(1/2), sqrt(2)), for finite x > 0 (subnormals included when `SUB`):
/// (e, m).
#[inline(always)]
pub(super) fn split<const SUB: bool>(x: f64) -> (f64, f64) {
    // `SUB = false` leaves subnormals out (widened float32 inputs are never subnormal).
    let sub = SUB && x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let bits = xs.to_bits();
    // e + 1024, as an unsigned shift of an offset difference (no 64-bit arithmetic shift).
    let eb = bits
        .wrapping_sub(SQRT_HALF_BITS)
        .wrapping_add(0x4000_0000_0000_0000)
        >> 52;
    let m = f64::from_bits(bits.wrapping_sub(eb.wrapping_sub(1024) << 52));
    // eb as a double without a 64-bit integer conversion: the bits of 2^52 + eb.
    let e = f64::from_bits(0x4330_0000_0000_0000 | eb) - ((1u64 << 52) as f64 + 1024.0);
    (e - if sub { 54.0 } else { 0.0 }, m)
}

/// log(x) for finite x > 0 (no special values): fdlibm's `e_log.c` scheme with the Taylor
/// series of atanh (see the float32 lane).
#[inline(always)]
fn log_core<const F: bool>(x: f64) -> f64 {
    let (e, m) = split::<true>(x);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * poly64::<F>(z, &LOG_C);
    let hfsq = 0.5 * f * f;
    let lo = fma64::<F>(s, hfsq + r, e * LN2_LO);
    fma64::<F>(e, LN2_HI, -((hfsq - lo) - f))
}

/// log(x) with NumPy's special values.
#[inline(always)]
fn log_lane<const F: bool>(x: f64) -> f64 {
    let res = log_core::<F>(x);
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x < 0.0 {
        f64::NAN
    } else if x.is_nan() || x == f64::INFINITY {
        x
    } else {
        res
    }
}

/// tanh x = x + x^3 g(x^2) for |x| < 0.55: g is the Chebyshev interpolant of degree 10 of
/// (tanh(sqrt z) - sqrt z) / z^(3/2) on z in [0, 0.3025] (`mpmath.chebyfit`,
/// `bench/vmath_constants.py`), error below 7.8e-18 (its Taylor series, 2^2n (2^2n - 1) B_2n /
/// (2n)!, would need 18 terms).
const TANH_C: [f64; 11] = [
    -0.333_333_333_333_333_3,
    0.133_333_333_333_327_14,
    -0.053_968_253_967_434_016,
    0.021_869_488_493_666_944,
    -0.008_863_234_397_814_355,
    0.003_592_110_378_689_024,
    -0.001_455_661_830_100_716,
    0.000_588_936_052_007_405_7,
    -0.000_234_634_741_088_723_7,
    8.511_313_685_577_672e-5,
    -2.060_276_537_636_634e-5,
];

/// tanh(x): the polynomial below |x| = 0.55, else sign(x) (1 - 2 / (exp(2|x|) + 1)) (where
/// 2 / (exp(2|x|) + 1) < 1/2, so the subtraction loses nothing).
#[inline(always)]
fn tanh_lane<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let z = x * x;
    // copysign: keeps tanh(-0) = -0 (the fma gives +0 there).
    let small = fma64::<F>(x * z, poly64::<F>(z, &TANH_C), x).copysign(x);
    let ex = exp_core::<F, false>(a + a, 0.0);
    let large = (1.0 - 2.0 / (ex + 1.0)).copysign(x);
    if a < 0.55 {
        small
    } else {
        large
    }
}

/// 2/pi (0x3fe45f306dc9c883).
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
/// pi/2 rounded to 33 significant bits (0x3ff921fb54400000): `j * PIO2_1` is exact for
/// |j| < 2^20.
const PIO2_1: f64 = 1.570_796_326_734_125_6;
/// The next 33 bits (0x3dd0b4611a600000).
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
/// pi/2 - PIO2_1 - PIO2_2 rounded (0x3ba3198a2e037073).
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;
/// pi/2 - PIO2_1 rounded (0x3dd0b4611a626331), the tail of the two-piece split.
const PIO2_1T: f64 = 6.077_100_506_506_192e-11;
/// Inputs below this magnitude take the float64 vector path (|j| < 2^20).
const SINCOS_BOUND: f64 = 1_048_576.0;
/// (-1)^k/(2k+1)!, k = 1..=8: sin r = r + r^3 (S1 + z S2 + ...), z = r^2 (truncation below
/// 2^-63 for |r| <= pi/4).
const SIN_C: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];
/// (-1)^k/(2k)!, k = 2..=8: cos r = 1 - z/2 + z^2 (C2 + z C3 + ...) (truncation below 2^-58).
const COS_C: [f64; 7] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
];
/// k = 1..=4 and 2..=5: float32 accuracy (truncation below 2^-28 and 2^-32).
const SIN_C_LOW: [f64; 4] = [-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0];
const COS_C_LOW: [f64; 4] = [1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3_628_800.0];

/// Knuth's TwoSum: `a + b = s + err` exactly.
#[inline(always)]
pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Dekker's Fast2Sum (|a| >= |b|): `a + b = s + err` exactly.
#[inline(always)]
pub(super) fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// Picks the quadrant's function and sign: q = j (+1 for cos) mod 4 selects sin, cos, -sin,
/// -cos of the reduced argument.
#[inline(always)]
fn quadrant(t: f64, cos: bool, s: f64, c: f64) -> f64 {
    let q = t.to_bits().wrapping_add(cos as u64);
    let v = if q & 1 != 0 { c } else { s };
    f64::from_bits(v.to_bits() ^ ((q & 2) << 62))
}

/// sin/cos of a float64 input: Cody & Waite's reduction `x = j pi/2 + r` with three pieces of
/// pi/2, the last subtraction kept as a double-double (rh, rl); fdlibm's `__kernel_sin` /
/// `__kernel_cos` forms of the Taylor polynomials with the tail. The flag asks for the scalar
/// path for |x| > 2^20 and where r cancelled to below |j| 2^-58 (the reduction's error is about
/// |j| 2^-118).
#[inline(always)]
fn sincos_lane<const F: bool, const COS: bool>(x: f64) -> (f64, bool) {
    let t = fma64::<F>(x, TWO_OVER_PI, MAGIC);
    let j = t - MAGIC;
    let r1 = fma64::<F>(j, -PIO2_1, x); // exact
    let w = j * PIO2_2; // exact
    let (rh, rl) = two_sum(r1, -w);
    // |rl| stays far below |rh| (|j PIO2_3| < 2^-68 |j| against |rh| >= 2^-58 |j|, else the
    // flag): no renormalisation (which would also turn rh = -0 into +0).
    let rl = fma64::<F>(j, -PIO2_3, rl);
    let z = rh * rh;
    let v = z * rh;
    // copysign: sin(-0) = -0 (the sum gives +0 there); |r| <= pi/4 keeps sin(r)'s sign r's.
    let s = (rh + fma64::<F>(v, poly64::<F>(z, &SIN_C), fma64::<F>(rl, -0.5 * z, rl))).copysign(rh);
    let hz = 0.5 * z;
    let w1 = 1.0 - hz;
    let c = w1 + (((1.0 - w1) - hz) + fma64::<F>(z * z, poly64::<F>(z, &COS_C), -(rh * rl)));
    let bad = x.abs() > SINCOS_BOUND || rh.abs() < j.abs() * 3.469_446_951_953_614e-18; // 2^-58
    (quadrant(t, COS, s, c), bad)
}

/// sin/cos of a float32 input widened to float64: a two-piece reduction (error about
/// |j| 2^-86 against r >= |j| 2^-40, else the flag) and short polynomials; float32 accuracy.
#[inline(always)]
pub(super) fn sincos_f32_core<const F: bool, const COS: bool>(x: f64) -> (f64, bool) {
    let t = fma64::<F>(x, TWO_OVER_PI, MAGIC);
    let j = t - MAGIC;
    let r = fma64::<F>(j, -PIO2_1, x); // exact
    let r = fma64::<F>(j, -PIO2_1T, r);
    let z = r * r;
    let s = fma64::<F>(z * r, poly64::<F>(z, &SIN_C_LOW), r).copysign(r);
    let c = fma64::<F>(z * z, poly64::<F>(z, &COS_C_LOW), fma64::<F>(z, -0.5, 1.0));
    let bad = r.abs() < j.abs() * 9.094_947_017_729_282e-13; // 2^-40
    (quadrant(t, COS, s, c), bad)
}

/// `exp` of float64.
pub(crate) struct Exp;
impl Fn1 for Exp {
    type T = f64;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f64) -> (f64, bool) {
        (exp_core::<F, false>(x, 0.0), false)
    }
    fn libm(x: f64) -> f64 {
        x.exp()
    }
}

/// `log` of float64.
pub(crate) struct Log;
impl Fn1 for Log {
    type T = f64;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f64) -> (f64, bool) {
        (log_lane::<F>(x), false)
    }
    fn libm(x: f64) -> f64 {
        x.ln()
    }
}

/// `tanh` of float64.
pub(crate) struct Tanh;
impl Fn1 for Tanh {
    type T = f64;
    const SLOW: bool = false;
    #[inline(always)]
    fn lane<const F: bool>(x: f64) -> (f64, bool) {
        (tanh_lane::<F>(x), false)
    }
    fn libm(x: f64) -> f64 {
        x.tanh()
    }
}

/// `sin` of float64.
pub(crate) struct Sin;
impl Fn1 for Sin {
    type T = f64;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f64) -> (f64, bool) {
        sincos_lane::<F, false>(x)
    }
    fn libm(x: f64) -> f64 {
        x.sin()
    }
}

/// `cos` of float64.
pub(crate) struct Cos;
impl Fn1 for Cos {
    type T = f64;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f64) -> (f64, bool) {
        sincos_lane::<F, true>(x)
    }
    fn libm(x: f64) -> f64 {
        x.cos()
    }
}
