//! `pow(x, y) = exp(y log|x|)` with C's sign rules for negative x. float32 runs its log and
//! exp in float64 (float64 error is far below float32's ulp); float64 carries log|x| as a
//! double-double (relative error about 2^-63) into exp, so that `y log|x|` keeps its
//! low bits (without them a result near 1e300 would lose ten bits). Zeros, infinities and NaN
//! (in either operand) take the scalar path.

use super::f64x::{exp_core, fast_two_sum, split, two_sum, LN2_HI, LN2_LO, MAGIC, MAGIC_BITS};
use super::{fma64, poly64, Fn2};

/// Whether finite y is an integer, and whether it is odd.
#[inline(always)]
fn parity64(y: f64) -> (bool, bool) {
    const P52: f64 = 4_503_599_627_370_496.0;
    let ay = y.abs();
    let big = ay >= P52;
    let t = ay + P52;
    let is_int = big || t - P52 == ay;
    let odd = if big {
        ay < 2.0 * P52 && y.to_bits() & 1 != 0
    } else {
        t.to_bits() & 1 != 0
    };
    (is_int, odd)
}

/// `|x|^y` signed as C's pow: negative x with an odd integer y negates, with a non-integer y
/// gives NaN.
macro_rules! signed {
    ($t:ty, $v:expr, $x:expr, $int_odd:expr) => {{
        let (is_int, odd) = $int_odd;
        let v: $t = $v;
        if $x < 0.0 {
            if !is_int {
                <$t>::NAN
            } else if odd {
                -v
            } else {
                v
            }
        } else {
            v
        }
    }};
}

/// ln(1 + f) / f for f in [sqrt(1/2) - 1, sqrt(2) - 1]: the Chebyshev interpolant of degree 13
/// (`mpmath.chebyfit`, `bench/vmath_constants.py`), relative error below 3.5e-12 (2^-38), no
/// division.
const LOG1P_C: [f64; 14] = [
    0.999_999_999_998_086_9,
    -0.499_999_999_929_718_05,
    0.333_333_334_795_741,
    -0.250_000_020_481_643_94,
    0.199_999_829_591_273_1,
    -0.166_664_901_425_816_25,
    0.142_863_661_024_346_28,
    -0.125_066_407_034_311_07,
    0.111_029_882_797_863_34,
    -0.098_789_698_109_920_54,
    0.090_545_055_509_250_04,
    -0.093_428_814_519_668_43,
    0.090_897_545_094_535_18,
    -0.047_177_590_533_593_855,
];
/// 1/k!, k = 0..=8: exp(r) for |r| <= ln2/2 to 2^-32.
const EXP_C8: [f64; 9] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
];

/// `pow` of float32: the exponent/mantissa split in float32 (as the float32 log), then
/// ln|x| = e ln2 + f P(f) and exp(y ln|x|) in float64 with float32-sized polynomials (the
/// float64 error, below 2^-31 relative after the product with y, is far under float32's ulp),
/// rounded once to float32.
pub(crate) struct PowF32;
impl Fn2 for PowF32 {
    type T = f32;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f32, y: f32) -> (f32, bool) {
        // Zero, infinity or NaN in x (|x| bits outside 1..=MAX), infinity or NaN in y.
        let ab = x.to_bits() & 0x7fff_ffff;
        let bad = ab.wrapping_sub(1) >= 0x7f7f_ffff || y.to_bits() & 0x7fff_ffff >= 0x7f80_0000;
        let (x, y) = (x as f64, y as f64);
        let (e, m) = split::<false>(x.abs());
        let f = m - 1.0; // exact
        let lnx = fma64::<F>(e, std::f64::consts::LN_2, f * poly64::<F>(f, &LOG1P_C));
        // exp(z) over float32's range (clamped: the ends give 0 and inf after rounding).
        let z = (y * lnx).clamp(-104.0, 89.0);
        let t = fma64::<F>(z, std::f64::consts::LOG2_E, MAGIC);
        let r = fma64::<F>(t - MAGIC, -std::f64::consts::LN_2, z);
        let n = t.to_bits().wrapping_sub(MAGIC_BITS);
        let v = poly64::<F>(r, &EXP_C8) * f64::from_bits(n.wrapping_add(1023) << 52);
        (signed!(f64, v, x, parity64(y)) as f32, bad)
    }
    fn libm(x: f32, y: f32) -> f32 {
        x.powf(y)
    }
    #[cfg(target_arch = "x86_64")]
    fn avx512(a: &[f32], b: &[f32], y: &mut [f32]) -> bool {
        // SAFETY: called for `Isa::Avx512` only, which `Isa::available` checked; map2 checked
        // the lengths.
        unsafe { super::pow_avx512::pow_f32(a, b, y) };
        true
    }
}

/// Dekker's TwoProduct: `a * b = p + e` exactly (one FMA when `F`, else Veltkamp's splitting).
#[inline(always)]
fn two_prod<const F: bool>(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if F {
        (p, a.mul_add(b, -p))
    } else {
        let split = |v: f64| {
            let c = 134_217_729.0 * v; // 2^27 + 1
            let h = c - (c - v);
            (h, v - h)
        };
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }
}

/// 2/3 as a double-double.
const C23_HI: f64 = 2.0 / 3.0;
const C23_LO: f64 = 3.700_743_415_417_188e-17;
/// 2/(2k+1), k = 2..=11: log(m) = 2s + (2/3) s^3 + s^3 z (2/5 + 2z/7 + ...), z = s^2; the sum
/// after 2/3 is below 2^-12 of log(m), so float64 suffices for it (truncation below 2^-66).
const LOG_T: [f64; 10] = [
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
    2.0 / 23.0,
];

/// log(x) for finite x > 0 as a double-double (hi, lo): the scheme of the float64 log with
/// s = f / (2 + f), 2s and (2/3) s^3 carried in double-double arithmetic.
#[inline(always)]
fn log_dd<const F: bool>(x: f64) -> (f64, f64) {
    let (e, m) = split::<true>(x);
    let f = m - 1.0;
    let d = 2.0 + f;
    let dl = (2.0 - d) + f; // exact: d + dl = 2 + f
    let sh = f / d;
    let (p, pe) = two_prod::<F>(sh, d);
    let sl = (((f - p) - pe) - sh * dl) / d; // s = sh + sl
    let (s2h, s2l) = two_prod::<F>(sh, sh);
    let s2l = fma64::<F>(sh + sh, sl, s2l);
    let (s3h, s3l) = two_prod::<F>(s2h, sh);
    let s3l = fma64::<F>(s2h, sl, fma64::<F>(s2l, sh, s3l));
    let (t3h, t3l) = two_prod::<F>(s3h, C23_HI);
    let t3l = fma64::<F>(s3h, C23_LO, fma64::<F>(s3l, C23_HI, t3l));
    let tail = s3h * (s2h * poly64::<F>(s2h, &LOG_T));
    let (h, l) = two_sum(e * LN2_HI, sh + sh);
    let (h, l2) = fast_two_sum(h, t3h);
    let lo = l + l2 + ((sl + sl) + t3l + tail + e * LN2_LO);
    fast_two_sum(h, lo)
}

/// `pow` of float64.
pub(crate) struct PowF64;
impl Fn2 for PowF64 {
    type T = f64;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f64, y: f64) -> (f64, bool) {
        let ax = x.abs();
        let bad = !(ax > 0.0 && ax < f64::INFINITY && y.abs() < f64::INFINITY);
        let (lh, ll) = log_dd::<F>(ax);
        let (zh, zl) = two_prod::<F>(y, lh);
        let zl = fma64::<F>(y, ll, zl);
        // Veltkamp's split overflows for |y| > 2^996 (where only x = 1 keeps zh in range).
        let zl = if F || zl.abs() < f64::INFINITY {
            zl
        } else {
            0.0
        };
        let v = exp_core::<F, true>(zh, zl);
        (signed!(f64, v, x, parity64(y)), bad)
    }
    fn libm(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
}
