//! The float64 real functions of the WGSL library, in software: Vulkan's GLSL.std.450
//! transcendental instructions are defined for 16/32-bit floats only (drivers return garbage
//! for f64), so `exp`, `log`, `sin`/`cos`/`tan`, `atan2`, `tanh` and `pow` of float64 are
//! written here from +, -, *, /, sqrt and bit operations on `u64` (the adapter needs
//! `SHADER_INT64` besides `SHADER_F64`).
//!
//! Algorithms and constants are those of fdlibm (Sun Microsystems, 1993/2004) as kept in
//! FreeBSD's msun (`e_exp.c`, `e_log.c`, `k_sin.c`, `k_cos.c`, `k_tan.c`, `e_rem_pio2.c`,
//! `s_atan.c`, `e_atan2.c`, `s_tanh.c`, `e_pow.c`; each documented there as < 1 ulp), written
//! anew in WGSL. Arguments of sin/cos/tan up to 2^20 pi/2 are reduced by fdlibm's three-step
//! Cody-Waite (`e_rem_pio2.c`'s "medium" case, good to 151 bits); larger ones by Payne-Hanek:
//! the 53-bit mantissa times a 192-bit window of 2/pi (1280 bits, as 32-bit limbs, chosen by
//! the exponent) gives x 2/pi mod 4 to 2^-128, converted to a double-double remainder.
//!
//! Compensated steps (the tails of Cody-Waite, k_cos, pow's splits) pass their products
//! through `r_pq` and their sums through `r_opq`: NVIDIA's compiler contracts `a * b + c`
//! into an fma and llvmpipe's reassociates sums, and either breaks an error term that assumes
//! IEEE's separately rounded operations.

use super::complex_lib::Helper;

macro_rules! h {
    ($name:literal, [$($d:literal),*], $src:literal) => {
        Helper { name: $name, deps: &[$($d),*], f32_only: false, src: $src }
    };
}

/// 2/pi to 1280 bits (computed from Machin's formula with integers; the first words match
/// fdlibm's `ipio2`), most significant first.
pub(super) const TWO_OVER_PI_1280: [u32; 40] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
];

/// The float64 overrides of the real helpers (`r_*_f64`), looked up before
/// [`super::real_lib::REAL_HELPERS`] for `f64`; `$TWOOPI` is the 2/pi table's initializer.
pub(super) const REAL_HELPERS_F64: &[Helper] = &[
    h!(
        "r_w64",
        [],
        "// The 32-bit words of a float64 and back; 2^k for -1022 <= k <= 1023.
fn r_hi_f64(x: f64) -> u32 { return u32(bitcast<u64>(x) >> 32u); }
fn r_lo_f64(x: f64) -> u32 { return u32(bitcast<u64>(x) & 0xfffffffflu); }
fn r_mk_f64(hi: u32, lo: u32) -> f64 { return bitcast<f64>((u64(hi) << 32u) | u64(lo)); }
fn r_p2_f64(k: i32) -> f64 { return bitcast<f64>(u64(k + 1023i) << 52u); }
fn r_trunc32_f64(x: f64) -> f64 { return bitcast<f64>(bitcast<u64>(x) & 0xffffffff00000000lu); }
"
    ),
    h!(
        "r_zmul",
        [],
        "// x * y for a zero y and finite x (the zero with the xor of the signs), spelled out.
fn r_zmul_f64(x: f64, y: f64) -> f64 {
  let s = (bitcast<u64>(x) ^ bitcast<u64>(y)) & 0x8000000000000000lu;
  return bitcast<f64>(s);
}
"
    ),
    h!(
        "r_ldexp",
        ["r_w64"],
        "// x 2^k for |k| <= 2000 in two factors (one rounding at most: the first is exact for the
// arguments here).
fn r_ldexp_f64(x: f64, k: i32) -> f64 {
  let k1 = clamp(k / 2, -1022, 1023);
  let k2 = clamp(k - k1, -1022, 1023);
  return (x * r_p2_f64(k1)) * r_p2_f64(k2);
}
"
    ),
    h!(
        "r_exp",
        ["r_isnan", "r_ldexp", "r_opq", "r_pq", "r_div"],
        "// fdlibm e_exp.c: x = k ln2 + (hi - lo), |r| <= ln2 / 2, exp(r) = 1 + r + r c / (2 - c)
// with c = r - r^2 (P1 + ... + P5 r^8); then 2^k.
fn r_exp_f64(x: f64) -> f64 {
  if (r_isnan_f64(x)) { return x; }
  if (x > 7.09782712893383973096e+02lf) { return f64(bitcast<f32>(0x7f800000u)); }
  if (x < -7.45133219101941108420e+02lf) { return 0.0lf; }
  if (abs(x) < 3.725290298461914e-9lf) { return 1.0lf + x; }
  let k = floor(x * 1.44269504088896338700e+00lf + 0.5lf);
  let hi = x - r_pq_f64(k * 6.93147180369123816490e-01lf);
  let lo = r_pq_f64(k * 1.90821492927058770002e-10lf);
  let r = r_opq_f64(hi - lo);
  let t = r * r;
  let c = r - t * (1.66666666666666019037e-01lf + t * (-2.77777777770155933842e-03lf
    + t * (6.61375632143793436117e-05lf + t * (-1.65339022054652515390e-06lf
    + t * 4.13813679705723846039e-08lf))));
  let y = 1.0lf + (r_opq_f64(r_opq_f64(r_div_f64(r_pq_f64(r * c), 2.0lf - c)) - lo) + hi);
  return r_ldexp_f64(y, i32(k));
}
"
    ),
    h!(
        "r_log",
        ["r_isnan", "r_w64", "r_pq", "r_opq", "r_div"],
        "// fdlibm e_log.c: x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2), s = f / (2 + f),
// log(1 + f) = f - (hfsq - s (hfsq + R(s^2))), R of degree 7 (Lg1..Lg7); + k ln2 (hi, lo).
fn r_log_f64(x0: f64) -> f64 {
  if (r_isnan_f64(x0)) { return x0; }
  if (x0 < 0.0lf) { return f64(bitcast<f32>(0x7fc00000u)); }
  if (x0 == 0.0lf) { return f64(bitcast<f32>(0xff800000u)); }
  if (x0 == f64(bitcast<f32>(0x7f800000u))) { return x0; }
  if (x0 == 1.0lf) { return 0.0lf; }
  var x = x0;
  var k = 0i;
  if (x < 2.2250738585072014e-308lf) {
    x = x * 18014398509481984.0lf;
    k = -54i;
  }
  var hx = r_hi_f64(x);
  hx = hx + (0x3ff00000u - 0x3fe6a09eu);
  k = k + i32(hx >> 20u) - 0x3ffi;
  hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
  let m = r_mk_f64(hx, r_lo_f64(x));
  let f = m - 1.0lf;
  let hfsq = r_pq_f64(0.5lf * f * f);
  let s = r_div_f64(f, 2.0lf + f);
  let z = s * s;
  let w = z * z;
  let t1 = w * (3.999999999940941908e-01lf + w * (2.222219843214978396e-01lf
    + w * 1.531383769920937332e-01lf));
  let t2 = z * (6.666666666666735130e-01lf + w * (2.857142874366239149e-01lf
    + w * (1.818357216161805012e-01lf + w * 1.479819860511658591e-01lf)));
  let r = t2 + t1;
  let dk = f64(k);
  let a = r_opq_f64(r_pq_f64(s * (hfsq + r)) + r_pq_f64(dk * 1.90821492927058770002e-10lf));
  return r_opq_f64(r_opq_f64(a - hfsq) + f) + r_pq_f64(dk * 6.93147180369123816490e-01lf);
}
"
    ),
    h!(
        "r_ksin",
        ["r_pq", "r_opq"],
        "// fdlibm k_sin.c / k_cos.c on [-pi/4, pi/4], x + y the reduced argument (|y| < ulp(x)/2).
fn r_ksin_f64(x: f64, y: f64) -> f64 {
  let z = x * x;
  let w = z * z;
  let r = 8.33333333332248946124e-03lf + z * (-1.98412698298579493134e-04lf
    + z * 2.75573137070700676789e-06lf) + z * w * (-2.50507602534068634195e-08lf
    + z * 1.58969099521155010221e-10lf);
  let v = z * x;
  return x - r_opq_f64(r_opq_f64(r_pq_f64(z * r_opq_f64(0.5lf * y - r_pq_f64(v * r))) - y)
    - r_pq_f64(v * -1.66666666666666324348e-01lf));
}
fn r_kcos_f64(x: f64, y: f64) -> f64 {
  let z = x * x;
  let w = z * z;
  let r = z * (4.16666666666666019037e-02lf + z * (-1.38888888888741095749e-03lf
    + z * 2.48015872894767294178e-05lf)) + w * w * (-2.75573143513906633035e-07lf
    + z * (2.08757232129817482790e-09lf + z * -1.13596475577881948265e-11lf));
  let hz = r_pq_f64(0.5lf * z);
  let u = r_opq_f64(1.0lf - hz);
  return u + r_opq_f64(r_opq_f64(r_opq_f64(1.0lf - u) - hz) + r_opq_f64(r_pq_f64(z * r)
    - r_pq_f64(x * y)));
}
"
    ),
    h!(
        "r_rem_pio2",
        ["r_w64", "r_pq", "r_opq", "r_fma"],
        "// |x| = n pi/2 + (y0 + y1), |y0 + y1| <= pi/4 (about): .x = n mod 4, .y = y0, .z = y1.
// Below 2^20 pi/2: fdlibm's medium case (pi/2 in 33-bit pieces, up to three rounds);
// above: Payne-Hanek.
fn r_rem_pio2_f64(ax: f64) -> vec3<f64> {
  if (ax <= 7.85398163397448278999e-01lf) { return vec3<f64>(0.0lf, ax, 0.0lf); }
  let ix = r_hi_f64(ax);
  if (ix < 0x413921fbu) {
    let fnn = round(ax * 6.36619772367581382433e-01lf);
    var r = ax - r_pq_f64(fnn * 1.57079632673412561417e+00lf);
    var w = r_pq_f64(fnn * 6.07710050650619224932e-11lf);
    var y0 = r_opq_f64(r - w);
    let ex = i32(ix >> 20u);
    if (ex - i32((r_hi_f64(y0) >> 20u) & 0x7ffu) > 16i) {
      let t = r;
      w = r_pq_f64(fnn * 6.07710050630396597660e-11lf);
      r = r_opq_f64(t - w);
      w = r_pq_f64(fnn * 2.02226624879595063154e-21lf) - r_opq_f64(r_opq_f64(t - r) - w);
      y0 = r_opq_f64(r - w);
      if (ex - i32((r_hi_f64(y0) >> 20u) & 0x7ffu) > 49i) {
        let t2 = r;
        w = r_pq_f64(fnn * 2.02226624871116645580e-21lf);
        r = r_opq_f64(t2 - w);
        w = r_pq_f64(fnn * 8.47842766036889956997e-32lf) - r_opq_f64(r_opq_f64(t2 - r) - w);
        y0 = r_opq_f64(r - w);
      }
    }
    let y1 = r_opq_f64(r_opq_f64(r - y0) - w);
    let q = fnn - 4.0lf * floor(fnn * 0.25lf);
    return vec3<f64>(q, y0, y1);
  }
  // Payne-Hanek. ax = M 2^s (M the 53-bit integer mantissa, s = e - 1075); the window W of
  // 192 bits of 2/pi starts at bit s - 1 (bit 1 is the first after the binary point; the
  // table has 64 zero bits in front), so that ax 2/pi = M W 2^-190 mod 4 up to < 2^-137.
  var tbl = array<u32, 42>(0u, 0u, $TWOOPI);
  let bits = bitcast<u64>(ax);
  let e = i32(bits >> 52u);
  let mant = (bits & 0xffffffffffffflu) | 0x10000000000000lu;
  let pos = u32(e - 1013i);
  let q0 = pos / 32u;
  let sh = pos % 32u;
  var v: array<u32, 6>;
  for (var j = 0u; j < 6u; j = j + 1u) {
    let a = tbl[q0 + j];
    let b = tbl[q0 + j + 1u];
    var wj = a;
    if (sh != 0u) { wj = (a << sh) | (b >> (32u - sh)); }
    v[5u - j] = wj;
  }
  let u = array<u32, 2>(u32(mant & 0xfffffffflu), u32(mant >> 32u));
  var p: array<u32, 8>;
  for (var i = 0u; i < 2u; i = i + 1u) {
    var carry = 0lu;
    for (var j = 0u; j < 6u; j = j + 1u) {
      let t = u64(u[i]) * u64(v[j]) + u64(p[i + j]) + carry;
      p[i + j] = u32(t & 0xfffffffflu);
      carry = t >> 32u;
    }
    p[i + 6u] = u32(carry);
  }
  var n = p[5] >> 30u;
  var hi = (u64(p[5] & 0x3fffffffu) << 34u) | (u64(p[4]) << 2u) | u64(p[3] >> 30u);
  var lo = (u64(p[3] & 0x3fffffffu) << 34u) | (u64(p[2]) << 2u) | u64(p[1] >> 30u);
  var neg = false;
  if ((hi >> 63u) != 0lu) {
    // Past one half: the remainder is fraction - 1 (two's complement negation).
    n = n + 1u;
    neg = true;
    lo = ~lo + 1lu;
    hi = ~hi + select(0lu, 1lu, lo == 0lu);
  }
  var ee = -128i;
  if (hi == 0lu) {
    hi = lo;
    lo = 0lu;
    ee = ee - 64i;
  }
  let h32 = u32(hi >> 32u);
  var z = select(countLeadingZeros(h32), 32u + countLeadingZeros(u32(hi)), h32 == 0u);
  if (z > 0u && z < 64u) {
    hi = (hi << z) | (lo >> (64u - z));
    lo = lo << z;
  }
  ee = ee - i32(z);
  let top = hi >> 11u;
  let a = (f64(u32(top >> 32u)) * 4294967296.0lf + f64(u32(top))) * r_p2_f64(ee + 75i);
  let b = ((f64(u32(hi & 0x7fflu)) * 4294967296.0lf + f64(u32(lo >> 32u))) * 4294967296.0lf
    + f64(u32(lo))) * r_p2_f64(ee);
  // (a + b) pi/2 as a double-double (the product's error exactly, by r_fma).
  let ph = r_pq_f64(a * 1.57079632679489655800e+00lf);
  let pe = r_fma_f64(a, 1.57079632679489655800e+00lf, -ph);
  let t = pe + r_pq_f64(a * 6.12323399573676603587e-17lf) + r_pq_f64(b * 1.57079632679489655800e+00lf);
  var y0 = r_opq_f64(ph + t);
  var y1 = r_opq_f64(t - r_opq_f64(y0 - ph));
  if (neg) {
    y0 = -y0;
    y1 = -y1;
  }
  return vec3<f64>(f64(n & 3u), y0, y1);
}
"
    ),
    h!(
        "r_sincos",
        ["r_isfin", "r_rem_pio2", "r_ksin", "r_signbit"],
        "// fdlibm s_sin.c / s_cos.c: .x = sin, .y = cos.
fn r_sincos_f64(x: f64) -> vec2<f64> {
  if (!r_isfin_f64(x)) {
    let nan = f64(bitcast<f32>(0x7fc00000u));
    return vec2<f64>(nan, nan);
  }
  let ax = abs(x);
  if (ax < 7.450580596923828e-9lf) { return vec2<f64>(x, 1.0lf); }
  let red = r_rem_pio2_f64(ax);
  let s0 = r_ksin_f64(red.y, red.z);
  let c0 = r_kcos_f64(red.y, red.z);
  let n = u32(red.x);
  var s = select(s0, c0, (n & 1u) != 0u);
  var c = select(c0, s0, (n & 1u) != 0u);
  if (n == 1u || n == 2u) { c = -c; }
  if (n >= 2u) { s = -s; }
  if (r_signbit_f64(x)) { s = -s; }
  return vec2<f64>(s, c);
}
"
    ),
    h!(
        "r_tan",
        ["r_isfin", "r_rem_pio2", "r_w64", "r_signbit", "r_pq", "r_opq"],
        "// fdlibm s_tan.c / k_tan.c: tan(y0 + y1) (odd n: -1/tan) on [-pi/4, pi/4], by
// tan(pi/4 - x) past 0.6744.
fn r_tan_f64(x0: f64) -> f64 {
  if (!r_isfin_f64(x0)) { return f64(bitcast<f32>(0x7fc00000u)); }
  let ax0 = abs(x0);
  if (ax0 < 7.450580596923828e-9lf) { return x0; }
  let red = r_rem_pio2_f64(ax0);
  let odd = (u32(red.x) & 1u) != 0u;
  var x = red.y;
  var y = red.z;
  let neg = x < 0.0lf;
  let big = abs(x) >= 0.6744lf;
  if (big) {
    if (neg) {
      x = -x;
      y = -y;
    }
    x = r_opq_f64(7.85398163397448278999e-01lf - x) + r_opq_f64(3.06161699786838301793e-17lf - y);
    y = 0.0lf;
  }
  let z = x * x;
  let w = z * z;
  let r1 = 1.33333333333201242699e-01lf + w * (2.18694882948595424599e-02lf
    + w * (3.59207910759131235356e-03lf + w * (5.88041240820264096874e-04lf
    + w * (7.81794442939557092300e-05lf + w * -1.85586374855275456654e-05lf))));
  let v1 = z * (5.39682539762260521377e-02lf + w * (8.86323982359930005737e-03lf
    + w * (1.45620945432529025516e-03lf + w * (2.46463134818469906812e-04lf
    + w * (7.14072491382608190305e-05lf + w * 2.59073051863633712884e-05lf)))));
  let s = z * x;
  let r = y + r_pq_f64(z * (r_pq_f64(s * (r1 + v1)) + y)) + r_pq_f64(s * 3.33333333333334091986e-01lf);
  let ww = r_opq_f64(x + r);
  var res: f64;
  if (big) {
    let sg = select(1.0lf, -1.0lf, odd);
    let v = sg - 2.0lf * (x + (r - r_pq_f64(ww * ww) / (ww + sg)));
    res = select(v, -v, neg);
  } else if (!odd) {
    res = ww;
  } else {
    // -1 / (x + r) accurately (fdlibm: a0 + a (1 + a0 w0 + a0 v) with truncated a0, w0).
    let w0 = r_trunc32_f64(ww);
    let v = r_opq_f64(r - r_opq_f64(w0 - x));
    let a = -1.0lf / ww;
    let a0 = r_trunc32_f64(a);
    res = a0 + a * r_opq_f64(r_opq_f64(1.0lf + r_pq_f64(a0 * w0)) + r_pq_f64(a0 * v));
  }
  if (r_signbit_f64(x0)) { return -res; }
  return res;
}
"
    ),
    h!(
        "r_atan",
        ["r_isnan", "r_w64", "r_pq", "r_opq"],
        "// fdlibm s_atan.c for x >= 0: reduction to |t| <= 7/16 by atan(0.5), atan(1), atan(1.5),
// atan(inf) (hi + lo), then an odd polynomial of degree 23 (AT0..AT10).
fn r_atan_f64(x0: f64) -> f64 {
  if (r_isnan_f64(x0)) { return x0; }
  var x = x0;
  let ix = r_hi_f64(x);
  if (ix >= 0x44100000u) { return 1.57079632679489655800e+00lf; }
  var id = -1i;
  if (ix < 0x3fdc0000u) {
    if (ix < 0x3e400000u) { return x; }
  } else if (ix < 0x3fe60000u) {
    id = 0i;
    x = r_opq_f64(2.0lf * x - 1.0lf) / (2.0lf + x);
  } else if (ix < 0x3ff30000u) {
    id = 1i;
    x = r_opq_f64(x - 1.0lf) / (x + 1.0lf);
  } else if (ix < 0x40038000u) {
    id = 2i;
    x = r_opq_f64(x - 1.5lf) / (1.0lf + 1.5lf * x);
  } else {
    id = 3i;
    x = -1.0lf / x;
  }
  let z = x * x;
  let w = z * z;
  let s1 = z * (3.33333333333329318027e-01lf + w * (1.42857142725034663711e-01lf
    + w * (9.09088713343650656196e-02lf + w * (6.66107313738753120669e-02lf
    + w * (4.97687799461593236017e-02lf + w * 1.62858201153657823623e-02lf)))));
  let s2 = w * (-1.99999999998764832476e-01lf + w * (-1.11111104054623557880e-01lf
    + w * (-7.69187620504482999495e-02lf + w * (-5.83357013379057348645e-02lf
    + w * -3.65315727442169155270e-02lf))));
  let xs = r_pq_f64(x * (s1 + s2));
  if (id < 0i) { return x - xs; }
  var hi = 4.63647609000806093515e-01lf;
  var lo = 2.26987774529616870924e-17lf;
  if (id == 1i) {
    hi = 7.85398163397448278999e-01lf;
    lo = 3.06161699786838301793e-17lf;
  } else if (id == 2i) {
    hi = 9.82793723247329054082e-01lf;
    lo = 1.39033110312309984516e-17lf;
  } else if (id == 3i) {
    hi = 1.57079632679489655800e+00lf;
    lo = 6.12323399573676603587e-17lf;
  }
  return hi - r_opq_f64(r_opq_f64(xs - lo) - x);
}
"
    ),
    h!(
        "r_atan2",
        ["r_isnan", "r_isinf", "r_signbit", "r_copysign", "r_atan", "r_w64", "r_opq"],
        "// fdlibm e_atan2.c: C99's special values, then atan(|y / x|) and the quadrant with pi in
// two parts.
fn r_atan2_f64(y: f64, x: f64) -> f64 {
  if (r_isnan_f64(x) || r_isnan_f64(y)) { return x + y; }
  let pi = 3.1415926535897931160e+00lf;
  let pilo = 1.2246467991473531772e-16lf;
  let xneg = r_signbit_f64(x);
  if (r_isinf_f64(x) && r_isinf_f64(y)) {
    return r_copysign_f64(select(7.85398163397448278999e-01lf, 2.35619449019234492885e+00lf, xneg), y);
  }
  if (y == 0.0lf || r_isinf_f64(x)) { return r_copysign_f64(select(0.0lf, pi, xneg), y); }
  if (x == 0.0lf || r_isinf_f64(y)) { return r_copysign_f64(1.57079632679489655800e+00lf, y); }
  let ix = r_hi_f64(x) & 0x7fffffffu;
  let iy = r_hi_f64(y) & 0x7fffffffu;
  var z: f64;
  if (ix + (64u << 20u) < iy) {
    z = 1.57079632679489655800e+00lf + 0.5lf * pilo;
  } else if (xneg && iy + (64u << 20u) < ix) {
    z = 0.0lf;
  } else {
    z = r_atan_f64(abs(y / x));
  }
  if (xneg) { z = pi - r_opq_f64(z - pilo); }
  return r_copysign_f64(z, y);
}
"
    ),
    h!(
        "r_expm1",
        ["r_isnan", "r_w64", "r_ldexp", "r_opq", "r_pq"],
        "// fdlibm s_expm1.c: x = k ln2 + r (hi - lo, with the correction c), expm1(r) from the
// rational R(r^2 / 2) (Q1..Q5), then 2^k (r - e + 1) - 1 arranged by the size of k.
fn r_expm1_f64(x0: f64) -> f64 {
  if (r_isnan_f64(x0)) { return x0; }
  var x = x0;
  let hx = r_hi_f64(x) & 0x7fffffffu;
  let neg = x < 0.0lf;
  if (hx >= 0x4043687au) {
    if (neg) { return -1.0lf; }
    if (x > 7.09782712893383973096e+02lf) { return f64(bitcast<f32>(0x7f800000u)); }
  }
  var k = 0i;
  var c = 0.0lf;
  if (hx > 0x3fd62e42u) {
    var hi: f64;
    var lo: f64;
    if (hx < 0x3ff0a2b2u) {
      if (!neg) {
        hi = x - 6.93147180369123816490e-01lf;
        lo = 1.90821492927058770002e-10lf;
        k = 1i;
      } else {
        hi = x + 6.93147180369123816490e-01lf;
        lo = -1.90821492927058770002e-10lf;
        k = -1i;
      }
    } else {
      let t = trunc(1.44269504088896338700e+00lf * x + select(0.5lf, -0.5lf, neg));
      k = i32(t);
      hi = x - r_pq_f64(t * 6.93147180369123816490e-01lf);
      lo = r_pq_f64(t * 1.90821492927058770002e-10lf);
    }
    x = r_opq_f64(hi - lo);
    c = r_opq_f64(r_opq_f64(hi - x) - lo);
  } else if (hx < 0x3c900000u) {
    return x;
  }
  let hfx = 0.5lf * x;
  let hxs = r_pq_f64(x * hfx);
  let r1 = 1.0lf + hxs * (-3.33333333333331316428e-02lf + hxs * (1.58730158725481460165e-03lf
    + hxs * (-7.93650757867487942473e-05lf + hxs * (4.00821782732936239552e-06lf
    + hxs * -2.01099218183624371326e-07lf))));
  let t = 3.0lf - r1 * hfx;
  var e = hxs * ((r1 - t) / (6.0lf - x * t));
  if (k == 0i) { return x - r_opq_f64(r_pq_f64(x * e) - hxs); }
  e = r_opq_f64(r_pq_f64(x * r_opq_f64(e - c)) - c);
  e = r_opq_f64(e - hxs);
  if (k == -1i) { return 0.5lf * r_opq_f64(x - e) - 0.5lf; }
  if (k == 1i) {
    if (x < -0.25lf) { return -2.0lf * r_opq_f64(e - r_opq_f64(x + 0.5lf)); }
    return 1.0lf + 2.0lf * r_opq_f64(x - e);
  }
  if (k < 0i || k > 56i) {
    let y = r_opq_f64(r_opq_f64(x - e) + 1.0lf);
    return r_ldexp_f64(y, k) - 1.0lf;
  }
  let twopk = r_p2_f64(k);
  let uf = r_p2_f64(-k);
  if (k < 20i) { return r_opq_f64(r_opq_f64(x - e) + r_opq_f64(1.0lf - uf)) * twopk; }
  return r_opq_f64(r_opq_f64(x - r_opq_f64(e + uf)) + 1.0lf) * twopk;
}
"
    ),
    h!(
        "r_tanh",
        ["r_isnan", "r_expm1", "r_copysign"],
        "// fdlibm s_tanh.c: 1 - 2 / (expm1(2|x|) + 2) for |x| >= 1, -t / (t + 2) with
// t = expm1(-2|x|) below, +-1 past 22, x itself below 2^-55.
fn r_tanh_f64(x: f64) -> f64 {
  if (r_isnan_f64(x)) { return x; }
  let ax = abs(x);
  var z: f64;
  if (ax > 22.0lf) {
    z = 1.0lf;
  } else if (ax < 2.7755575615628914e-17lf) {
    return x;
  } else if (ax >= 1.0lf) {
    let t = r_expm1_f64(2.0lf * ax);
    z = 1.0lf - 2.0lf / (t + 2.0lf);
  } else {
    let t = r_expm1_f64(-2.0lf * ax);
    z = -t / (t + 2.0lf);
  }
  return r_copysign_f64(z, x);
}
"
    ),
    h!(
        "r_pow",
        ["r_isnan", "r_isinf", "r_w64", "r_ldexp", "r_opq", "r_copysign", "r_div"],
        "// fdlibm e_pow.c: C99 Annex F's special values; log2|x| = t1 + t2 to about 2^-64 (the
// (x - 1)/(x + 1) series, 21-bit splits), y log2|x| = p_h + p_l, 2^(p_h + p_l) with
// e_exp.c's polynomial.
fn r_pow_f64(x: f64, y: f64) -> f64 {
  let inf = f64(bitcast<f32>(0x7f800000u));
  let nan = f64(bitcast<f32>(0x7fc00000u));
  if (y == 0.0lf || x == 1.0lf) { return 1.0lf; }
  if (r_isnan_f64(x) || r_isnan_f64(y)) { return x + y; }
  let hx = bitcast<i32>(r_hi_f64(x));
  let hy = bitcast<i32>(r_hi_f64(y));
  var ix = u32(hx & 0x7fffffffi);
  let iy = u32(hy & 0x7fffffffi);
  let ay = abs(y);
  var ax = abs(x);
  // 0: y not an integer, 1: odd, 2: even.
  var yisint = 0i;
  if (!r_isinf_f64(y) && y == floor(y)) {
    yisint = select(1i, 2i, ay >= 9007199254740992.0lf || 0.5lf * y == floor(0.5lf * y));
  }
  if (r_isinf_f64(y)) {
    if (x == -1.0lf) { return 1.0lf; }
    if (ax > 1.0lf) { return select(0.0lf, inf, hy >= 0i); }
    return select(inf, 0.0lf, hy >= 0i);
  }
  if (y == 1.0lf) { return x; }
  if (y == -1.0lf && !(x == 0.0lf) && !r_isinf_f64(x)) { return 1.0lf / x; }
  if (y == 2.0lf) { return x * x; }
  if (y == 0.5lf && hx >= 0i) { return sqrt(x); }
  if (x == 0.0lf || r_isinf_f64(x) || ax == 1.0lf) {
    var z = ax;
    if (hy < 0i) { z = select(select(1.0lf / z, 0.0lf, r_isinf_f64(z)), inf, z == 0.0lf); }
    if (hx < 0i) {
      if (ax == 1.0lf && yisint == 0i) { return nan; }
      if (yisint == 1i) { z = -z; }
    }
    return z;
  }
  var s = 1.0lf;
  if (hx < 0i) {
    if (yisint == 0i) { return nan; }
    if (yisint == 1i) { s = -1.0lf; }
  }
  let over = r_copysign_f64(inf, s);
  let under = r_copysign_f64(0.0lf, s);
  var t1: f64;
  var t2: f64;
  if (iy > 0x41e00000u) {
    // |y| > 2^31: over/underflow unless x is within 2^-20 of 1.
    if (iy > 0x43f00000u) {
      if (ix <= 0x3fefffffu) { return select(0.0lf, inf, hy < 0i); }
      return select(0.0lf, inf, hy > 0i);
    }
    if (ix < 0x3fefffffu) { return select(under, over, hy < 0i); }
    if (ix > 0x3ff00000u) { return select(under, over, hy > 0i); }
    let t = ax - 1.0lf;
    let w = (t * t) * (0.5lf - t * (0.3333333333333333333333lf - t * 0.25lf));
    let u = 1.44269502162933349609e+00lf * t;
    let v = t * 1.92596299112661746887e-08lf - w * 1.44269504088896338700e+00lf;
    t1 = r_trunc32_f64(r_opq_f64(u + v));
    t2 = v - r_opq_f64(t1 - u);
  } else {
    var n = 0i;
    if (ix < 0x00100000u) {
      ax = ax * 9007199254740992.0lf;
      n = -53i;
      ix = r_hi_f64(ax);
    }
    n = n + i32(ix >> 20u) - 0x3ffi;
    let j = ix & 0x000fffffu;
    ix = j | 0x3ff00000u;
    var k = 0u;
    if (j <= 0x3988eu) {
      k = 0u;
    } else if (j < 0xbb67au) {
      k = 1u;
    } else {
      n = n + 1i;
      ix = ix - 0x00100000u;
    }
    ax = r_mk_f64(ix, r_lo_f64(ax));
    let bp = select(1.0lf, 1.5lf, k == 1u);
    let dp_h = select(0.0lf, 5.84962487220764160156e-01lf, k == 1u);
    let dp_l = select(0.0lf, 1.35003920212974897128e-08lf, k == 1u);
    // ss = s_h + s_l = (x - bp) / (x + bp).
    let u = ax - bp;
    let v = r_div_f64(1.0lf, ax + bp);
    let ss = u * v;
    let s_h = r_trunc32_f64(ss);
    var t_h = r_mk_f64(((ix >> 1u) | 0x20000000u) + 0x00080000u + (k << 18u), 0u);
    var t_l = ax - r_opq_f64(t_h - bp);
    let s_l = v * r_opq_f64(r_opq_f64(u - s_h * t_h) - s_h * t_l);
    var s2 = ss * ss;
    var r = s2 * s2 * (5.99999999999994648725e-01lf + s2 * (4.28571428578550184252e-01lf
      + s2 * (3.33333329818377432918e-01lf + s2 * (2.72728123808534006489e-01lf
      + s2 * (2.30660745775561754067e-01lf + s2 * 2.06975017800338417784e-01lf)))));
    r = r + s_l * (s_h + ss);
    s2 = s_h * s_h;
    t_h = r_trunc32_f64(r_opq_f64(r_opq_f64(3.0lf + s2) + r));
    t_l = r - r_opq_f64(r_opq_f64(t_h - 3.0lf) - s2);
    let uu = s_h * t_h;
    let vv = s_l * t_h + t_l * ss;
    let p_h = r_trunc32_f64(r_opq_f64(uu + vv));
    let p_l = vv - r_opq_f64(p_h - uu);
    let z_h = 9.61796700954437255859e-01lf * p_h;
    let z_l = -7.02846165095275826516e-09lf * p_h + p_l * 9.61796693925975554329e-01lf + dp_l;
    let t = f64(n);
    t1 = r_trunc32_f64(r_opq_f64(r_opq_f64(r_opq_f64(z_h + z_l) + dp_h) + t));
    t2 = z_l - r_opq_f64(r_opq_f64(r_opq_f64(t1 - t) - dp_h) - z_h);
  }
  // (y1 + y2)(t1 + t2) with y1 the top 32 bits of y.
  let y1 = r_trunc32_f64(y);
  let p_l = (y - y1) * t1 + y * t2;
  var p_h = y1 * t1;
  var z = r_opq_f64(p_l + p_h);
  let j = bitcast<i32>(r_hi_f64(z));
  let i = r_lo_f64(z);
  if (j >= 0x40900000i) {
    if ((u32(j - 0x40900000i) | i) != 0u) { return over; }
    if (p_l + 8.0085662595372944372e-17lf > r_opq_f64(z - p_h)) { return over; }
  } else if ((j & 0x7fffffffi) >= 0x4090cc00i) {
    if (((bitcast<u32>(j) - 0xc090cc00u) | i) != 0u) { return under; }
    if (p_l <= r_opq_f64(z - p_h)) { return under; }
  }
  let ia = j & 0x7fffffffi;
  var k = (ia >> 20u) - 0x3ffi;
  var n = 0i;
  if (ia > 0x3fe00000i) {
    n = j + (0x00100000i >> u32(k + 1i));
    k = ((n & 0x7fffffffi) >> 20u) - 0x3ffi;
    let tt = r_mk_f64(bitcast<u32>(n & ~(0x000fffffi >> u32(k))), 0u);
    n = ((n & 0x000fffffi) | 0x00100000i) >> u32(20i - k);
    if (j < 0i) { n = -n; }
    p_h = r_opq_f64(p_h - tt);
  }
  let t = r_trunc32_f64(r_opq_f64(p_l + p_h));
  let u = t * 6.93147182464599609375e-01lf;
  let v = r_opq_f64(p_l - r_opq_f64(t - p_h)) * 6.93147180559945286227e-01lf
    + t * -1.90465429995776804525e-09lf;
  z = r_opq_f64(u + v);
  let w = v - r_opq_f64(z - u);
  let tz = z * z;
  let q = z - tz * (1.66666666666666019037e-01lf + tz * (-2.77777777770155933842e-03lf
    + tz * (6.61375632143793436117e-05lf + tz * (-1.65339022054652515390e-06lf
    + tz * 4.13813679705723846039e-08lf))));
  let rr = r_div_f64(z * q, q - 2.0lf) - (w + z * w);
  z = 1.0lf - r_opq_f64(rr - z);
  return s * r_ldexp_f64(z, n);
}
"
    ),
];
