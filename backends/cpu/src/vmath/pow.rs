//! `pow(x, y) = exp(y log|x|)` with C's sign rules for negative x. float32 runs through the
//! float64 cores (float64 error is far below float32's ulp); float64 carries log|x| as a
//! double-double (relative error about 2^-63) into exp, so that `y log|x|` keeps its
//! low bits (without them a result near 1e300 would lose ten bits). Zeros, infinities and NaN
//! (in either operand) take the scalar path.

use super::f64x::{exp_core, fast_two_sum, log_core, split, two_sum, LN2_HI, LN2_LO};
use super::{fma64, horner64, Fn2};

/// Whether finite y is an integer, and whether it is odd.
#[inline(always)]
fn parity32(y: f32) -> (bool, bool) {
    const P23: f32 = 8_388_608.0;
    let ay = y.abs();
    let big = ay >= P23; // every float32 from 2^23 up is an integer
    let t = ay + P23; // rounds ay to an integer whose parity is t's last bit
    let is_int = big || t - P23 == ay;
    let odd = if big {
        ay < 2.0 * P23 && y.to_bits() & 1 != 0
    } else {
        t.to_bits() & 1 != 0
    };
    (is_int, odd)
}

/// As [`parity32`] for float64.
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

/// `pow` of float32.
pub(crate) struct PowF32;
impl Fn2 for PowF32 {
    type T = f32;
    const SLOW: bool = true;
    #[inline(always)]
    fn lane<const F: bool>(x: f32, y: f32) -> (f32, bool) {
        let ax = x.abs();
        let bad = !(ax > 0.0 && ax < f32::INFINITY && y.abs() < f32::INFINITY);
        let l = log_core::<F, true>(ax as f64);
        let v = exp_core::<F, true, false>(y as f64 * l, 0.0) as f32;
        (signed!(f32, v, x, parity32(y)), bad)
    }
    fn libm(x: f32, y: f32) -> f32 {
        x.powf(y)
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
    let (e, m) = split(x);
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
    let tail = s3h * (s2h * horner64::<F>(s2h, &LOG_T));
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
        let v = exp_core::<F, false, true>(zh, zl);
        (signed!(f64, v, x, parity64(y)), bad)
    }
    fn libm(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
}
