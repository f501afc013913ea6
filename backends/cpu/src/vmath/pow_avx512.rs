//! `pow` of float32 written with AVX-512 intrinsics: the portable lane (`pow::PowF32`) spends
//! most of its time in two long float64 polynomials; here 16-entry tables held in registers
//! (`vpermi2pd`, one instruction per lookup, where a gather costs tens of cycles) shorten both
//! to a handful of terms, the scheme of ARM's optimized-routines `powf` (also glibc's):
//!
//! - ln|x| = e ln2 - ln(invc_i) + ln(1 + r), with |x| = 2^e z, z in [0.699, 1.398) (integer
//!   operations on the bits of |x| widened to float64), i one of 16 buckets of z, invc_i ~ 1/c_i (exactly 1 for the
//!   bucket of 1) and r = z invc_i - 1 (|r| < 0.0296, ln(1 + r) by its Taylor series to r^7);
//! - exp(z) = 2^(k/16) exp(z - k ln2/16), k = round(16 z / ln2), 2^(j/16) from a table and
//!   2^floor(k/16) added to its exponent, exp of the rest (below ln2/32) by Taylor to r^4
//!   (error below 2^-34).
//!
//! All in float64 (8 lanes per half of 16 float32 lanes), rounded once to float32; results
//! within 1 ulp (tested with the portable lane's tests). Zeros, infinities and NaN in either
//! operand take the scalar path; negative bases get C's sign rules in a masked step that runs
//! only when a block of 16 has one.

use core::arch::x86_64::*;

/// The offset of the mantissa interval, as float64 bits: |x| = 2^e z with z in [OFF, 2 OFF),
/// OFF = 0.69921875 (float32 bits 0x3f330000), so that 1 lies inside a bucket, away from the
/// interval's ends.
const OFF64: i64 = 0x3fe6_6000_0000_0000;
/// (1/c_i, -ln(1/c_i)) for the 16 buckets of z (each 2^19 float32 ulps wide): c_i the bucket's
/// midpoint, except c = 1 exactly for the bucket holding 1 (there ln|x| = ln(1 + r) without a
/// cancellation); 1/c_i rounded to float64, the logarithm of the rounded value
/// (`bench/vmath_constants.py`). |r| = |z / c_i - 1| < 0.0296.
const LOG_T: [(f64, f64); 16] = [
    (1.398_907_103_825_136_6, -0.335_691_291_638_141_54),
    (1.340_314_136_125_654_5, -0.292_904_016_432_932_7),
    (1.286_432_160_804_020_1, -0.251_872_619_755_070_1),
    (1.236_714_975_845_410_6, -0.212_458_651_214_193_36),
    (1.190_697_674_418_604_6, -0.174_539_416_351_899_65),
    (1.147_982_062_780_269, -0.138_005_673_019_443_7),
    (1.108_225_108_225_108_2, -0.102_759_733_957_768_94),
    (1.071_129_707_112_970_6, -0.068_713_892_548_051_73),
    (1.036_437_246_963_562_8, -0.035_789_107_851_585_29),
    (1.0, 0.0),
    (0.948_148_148_148_148_2, 0.053_244_514_518_812_24),
    (0.895_104_895_104_895_1, 0.110_814_366_340_290_11),
    (0.847_682_119_205_298, 0.165_249_572_895_307_17),
    (0.805_031_446_540_880_5, 0.216_873_938_300_614_3),
    (0.766_467_065_868_263_5, 0.265_963_548_497_137_9),
    (0.731_428_571_428_571_4, 0.312_755_710_003_896_9),
];
/// 2^(j/16), j = 0..16, rounded to float64.
const EXP2_T: [f64; 16] = [
    1.0,
    1.044_273_782_427_413_8,
    1.090_507_732_665_257_7,
    1.138_788_634_756_691_6,
    1.189_207_115_002_721,
    1.241_857_812_073_484,
    1.296_839_554_651_009_6,
    1.354_255_546_936_892_7,
    std::f64::consts::SQRT_2,
    1.476_826_145_939_499_3,
    1.542_210_825_407_940_7,
    1.610_490_331_949_254_3,
    1.681_792_830_507_429,
    1.756_252_160_373_299_5,
    1.834_008_086_409_342_4,
    1.915_206_561_397_147_4,
];
/// (-1)^(k+1)/k, k = 1..=7: ln(1 + r) = r (1 - r/2 + r^2/3 - ...); the truncation, below
/// 7.2e-14 for |r| < 0.0296, is under 2^-38 of ln|x| outside the bucket of 1
/// (|ln|x|| > 0.0197) and relative inside it.
const LOG1P_C: [f64; 7] = [1.0, -0.5, 1.0 / 3.0, -0.25, 0.2, -1.0 / 6.0, 1.0 / 7.0];
/// 1/k!, k = 0..=4.
const EXP_C: [f64; 5] = [1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0];

#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn splat(v: f64) -> __m512d {
    _mm512_set1_pd(v)
}

/// A 16-entry table as two registers, for `_mm512_permutex2var_pd`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn table(t: [f64; 16]) -> (__m512d, __m512d) {
    (
        _mm512_loadu_pd(t.as_ptr()),
        _mm512_loadu_pd(t.as_ptr().add(8)),
    )
}

/// `c[0] + c[1] x + ...` by groups of four joined with x^4 (as the portable `poly64`): a short
/// dependency chain, so that the out-of-order core overlaps more blocks.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn poly(x: __m512d, c: &[f64]) -> __m512d {
    let x2 = _mm512_mul_pd(x, x);
    let x4 = _mm512_mul_pd(x2, x2);
    let group = |c: &[f64]| match c.len() {
        1 => splat(c[0]),
        2 => _mm512_fmadd_pd(splat(c[1]), x, splat(c[0])),
        3 => _mm512_fmadd_pd(
            splat(c[2]),
            x2,
            _mm512_fmadd_pd(splat(c[1]), x, splat(c[0])),
        ),
        _ => _mm512_fmadd_pd(
            _mm512_fmadd_pd(splat(c[3]), x, splat(c[2])),
            x2,
            _mm512_fmadd_pd(splat(c[1]), x, splat(c[0])),
        ),
    };
    let m = c.len().div_ceil(4);
    let mut acc = group(&c[4 * (m - 1)..]);
    for k in (0..m - 1).rev() {
        acc = _mm512_fmadd_pd(acc, x4, group(&c[4 * k..4 * k + 4]));
    }
    acc
}

/// |x|^y for 8 lanes: `ax` = |x| (finite, nonzero), `y` finite (other lanes give garbage).
/// The split |x| = 2^e z, z in [OFF, 2 OFF), runs on the float64 bits of the widened input
/// (float32 subnormals are normal there): the float64 bits are the float32 bits shifted left
/// by 29 and rebiased, so the bucket is bits 48..52 of `bits(|x|) - bits(OFF)`.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
unsafe fn pow8(
    ax: __m256,
    y: __m256,
    inv: (__m512d, __m512d),
    logc: (__m512d, __m512d),
    ex2: (__m512d, __m512d),
) -> __m256 {
    let x = _mm512_castpd_si512(_mm512_cvtps_pd(ax));
    let y = _mm512_cvtps_pd(y);
    let tmp = _mm512_sub_epi64(x, _mm512_set1_epi64(OFF64));
    let i = _mm512_and_si512(_mm512_srli_epi64::<48>(tmp), _mm512_set1_epi64(15));
    let eb = _mm512_srai_epi64::<52>(tmp);
    let z = _mm512_castsi512_pd(_mm512_sub_epi64(x, _mm512_slli_epi64::<52>(eb)));
    let e = _mm512_cvtepi64_pd(eb);
    let invc = _mm512_permutex2var_pd(inv.0, i, inv.1);
    let lc = _mm512_permutex2var_pd(logc.0, i, logc.1);
    let r = _mm512_fmsub_pd(z, invc, splat(1.0));
    let l = _mm512_fmadd_pd(
        r,
        poly(r, &LOG1P_C),
        _mm512_fmadd_pd(e, splat(std::f64::consts::LN_2), lc),
    );
    // exp(z) over float32's range (the clamp's ends round to 0 and inf).
    let z = _mm512_min_pd(
        _mm512_max_pd(_mm512_mul_pd(y, l), splat(-104.0)),
        splat(89.0),
    );
    let t = _mm512_fmadd_pd(
        z,
        splat(16.0 / std::f64::consts::LN_2),
        splat(super::f64x::MAGIC),
    );
    let k = _mm512_sub_pd(t, splat(super::f64x::MAGIC));
    let r = _mm512_fnmadd_pd(k, splat(std::f64::consts::LN_2 / 16.0), z);
    let kb = _mm512_sub_epi64(
        _mm512_castpd_si512(t),
        _mm512_set1_epi64(super::f64x::MAGIC_BITS as i64),
    );
    let j = _mm512_and_si512(kb, _mm512_set1_epi64(15));
    let s = _mm512_permutex2var_pd(ex2.0, j, ex2.1);
    let s = _mm512_castsi512_pd(_mm512_add_epi64(
        _mm512_castpd_si512(s),
        _mm512_slli_epi64::<52>(_mm512_srai_epi64::<4>(kb)),
    ));
    _mm512_cvtpd_ps(_mm512_mul_pd(poly(r, &EXP_C), s))
}

/// `y[i] = a[i] ** b[i]` for float32.
///
/// # Safety
/// The CPU must have AVX-512 F and DQ; the slices must have equal lengths.
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")]
pub(super) unsafe fn pow_f32(a: &[f32], b: &[f32], y: &mut [f32]) {
    let mut inv = [0f64; 16];
    let mut lc = [0f64; 16];
    for (k, &(u, v)) in LOG_T.iter().enumerate() {
        inv[k] = u;
        lc[k] = v;
    }
    let (inv, lc, ex2) = (table(inv), table(lc), table(EXP2_T));
    let n = y.len();
    let mut i = 0;
    while i < n {
        let len = (n - i).min(16);
        let live: __mmask16 = if len == 16 { 0xffff } else { (1u16 << len) - 1 };
        let x = _mm512_maskz_loadu_ps(live, a.as_ptr().add(i));
        let e = _mm512_maskz_loadu_ps(live, b.as_ptr().add(i));
        let xi = _mm512_castps_si512(x);
        let ab = _mm512_and_si512(xi, _mm512_set1_epi32(0x7fff_ffff));
        let ey = _mm512_and_si512(_mm512_castps_si512(e), _mm512_set1_epi32(0x7fff_ffff));
        // Zero, infinity or NaN in x (|x| bits outside 1..=MAX), infinity or NaN in y.
        let bad = (_mm512_cmpge_epu32_mask(
            _mm512_sub_epi32(ab, _mm512_set1_epi32(1)),
            _mm512_set1_epi32(0x7f7f_ffff),
        ) | _mm512_cmpge_epu32_mask(ey, _mm512_set1_epi32(0x7f80_0000)))
            & live;
        let ax = _mm512_castsi512_ps(ab);
        let lo = pow8(
            _mm512_castps512_ps256(ax),
            _mm512_castps512_ps256(e),
            inv,
            lc,
            ex2,
        );
        let hi = pow8(
            _mm512_extractf32x8_ps::<1>(ax),
            _mm512_extractf32x8_ps::<1>(e),
            inv,
            lc,
            ex2,
        );
        let mut v = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi);
        let neg = _mm512_cmplt_ps_mask(x, _mm512_setzero_ps()) & live;
        if neg != 0 {
            // C's rule: an odd integer y negates, a non-integer y gives NaN.
            let ay = _mm512_castsi512_ps(ey);
            let p23 = _mm512_set1_ps(8_388_608.0);
            let big = _mm512_cmple_ps_mask(p23, ay);
            let t = _mm512_add_ps(ay, p23);
            let int = big | _mm512_cmpeq_ps_mask(_mm512_sub_ps(t, p23), ay);
            let one = _mm512_set1_epi32(1);
            let odd_small = _mm512_test_epi32_mask(_mm512_castps_si512(t), one) & !big;
            let odd_big = big
                & _mm512_cmplt_ps_mask(ay, _mm512_set1_ps(16_777_216.0))
                & _mm512_test_epi32_mask(_mm512_castps_si512(e), one);
            let flip = neg & int & (odd_small | odd_big);
            v = _mm512_castsi512_ps(_mm512_mask_xor_epi32(
                _mm512_castps_si512(v),
                flip,
                _mm512_castps_si512(v),
                _mm512_set1_epi32(i32::MIN),
            ));
            v = _mm512_mask_mov_ps(v, neg & !int, _mm512_set1_ps(f32::NAN));
        }
        _mm512_mask_storeu_ps(y.as_mut_ptr().add(i), live, v);
        if bad != 0 {
            for k in 0..len {
                if bad & (1 << k) != 0 {
                    y[i + k] = a[i + k].powf(b[i + k]);
                }
            }
        }
        i += 16;
    }
}
