//! The real float functions under the complex library ([`super::complex_lib`]), also used by
//! the emitter for the IR's float32 `exp`/`log`/`sin`/`cos`/`tan`/`atan2`: Cephes'
//! single-precision algorithms (Moshier), Kahan's log1p/expm1, exact special values, and the
//! guards against llvmpipe's fast-math folds (`r_opq`, `r_ss`, `r_zmul`, `r_fma`) and NVIDIA's
//! contraction of products into fmas (`r_pq`). float64 versions of the float32-only ones are
//! in [`super::real_lib64`].

use super::complex_lib::Helper;

macro_rules! h {
    ($name:literal, [$($d:literal),*], $f32:expr, $src:literal) => {
        Helper { name: $name, deps: &[$($d),*], f32_only: $f32, src: $src }
    };
}

/// The real helpers (`r_*`), same placeholders as [`super::complex_lib`].
pub(super) const REAL_HELPERS: &[Helper] = &[
    h!("r_isnan", [], false, ""),
    h!("r_signbit", [], false, ""),
    h!("r_copysign", ["r_signbit"], false, ""),
    h!("r_opq", [], false, ""),
    h!("r_pq", [], false, ""),
    h!("r_pos", [], false, ""),
    h!("r_fma", ["r_opq", "r_pq"], false, ""),
    h!("r_div", ["r_fma"], false, ""),
    h!("r_sqrt", [], false, ""),
    h!("r_isinf", [], false, ""),
    h!("r_isfin", [], false, ""),
    h!(
        "r_ss",
        ["r_isfin"],
        false,
        "// y - y (0, or NaN for an infinite or NaN y), spelled out: a driver that assumes no NaNs
// (llvmpipe) folds y - y to 0.
fn r_ss_$T(y: $T) -> $T { return select($NAN, $T(0.0), r_isfin_$T(y)); }
"
    ),
    h!(
        "r_zmul",
        [],
        true,
        "// x * y for a zero y and finite x (the zero with the xor of the signs), spelled out: a
// driver without signed zeros (llvmpipe) folds x * 0 to +0.
fn r_zmul_$T(x: $T, y: $T) -> $T {
  return bitcast<f32>(select(0u, 0x80000000u, (x < 0.0) != ((bitcast<u32>(y) & 0x80000000u) != 0u)));
}
"
    ),
    h!(
        "r_div0",
        ["r_isnan"],
        false,
        "// x / +0, spelled out (a driver may fold a division by a uniform zero as if infinities
// did not exist).
fn r_div0_$T(x: $T) -> $T {
  if (r_isnan_$T(x) || x == 0.0) { return $NAN; }
  return select($INF, -$INF, x < 0.0);
}
"
    ),
    h!(
        "r_hypot",
        ["r_isinf", "r_isnan", "r_fma", "r_pq", "r_pos"],
        false,
        "// hypot without overflow or underflow: one power-of-two scaling into the safe range, then
// Borges' fma-corrected sqrt(a^2 + b^2) (a >= b); an infinite part beats a NaN one. The
// order, the zero test and the scaling up of tiny parts work on the bits (r_pos), so a
// driver that flushes float32 subnormals (NVIDIA's) still scales them exactly.
fn r_hypot_$T(x: $T, y: $T) -> $T {
  let ax = abs(x);
  let ay = abs(y);
  if (r_isinf_$T(ax) || r_isinf_$T(ay)) { return $INF; }
  if (r_isnan_$T(ax) || r_isnan_$T(ay)) { return ax + ay; }
  let mn = r_pminmax_$T(ax, ay);
  let m = mn.y;
  let n = mn.x;
  if (r_pzero_$T(m)) { return $T(0.0); }
  var a = m;
  var b = n;
  var u = $T(1.0);
  if (m > $HUGE) {
    a = m * $DOWN;
    b = n * $DOWN;
    u = $UPINV;
  } else if (m < $TINY) {
    a = r_pup_$T(m);
    b = r_pup_$T(n);
    u = $DOWNINV;
  }
  // The products pass r_pq: the correction assumes each is rounded on its own (a driver that
  // contracts hs - aa into an fma breaks it).
  let h = sqrt(r_fma_$T(a, a, r_pq_$T(b * b)));
  let hs = r_pq_$T(h * h);
  let aa = r_pq_$T(a * a);
  let c = r_fma_$T(-b, b, hs - aa) + r_fma_$T(h, h, -hs) - r_fma_$T(a, a, -aa);
  return (h - c / r_pq_$T(2.0 * h)) * u;
}
"
    ),
    h!(
        "r_exp",
        ["r_isnan", "r_ldexp", "r_pq"],
        true,
        "// Cephes' expf: Cody-Waite reduction by ln 2, degree-6 polynomial (llvmpipe's builtin
// exp is exp2(x log2 e), which loses |x| ulps). Every product passes r_pq, so a driver that
// contracts `a * b + c` into fmas (NVIDIA's) gives the bits of the other backends.
fn r_exp_$T(x: $T) -> $T {
  if (r_isnan_$T(x)) { return x; }
  if (x > 88.72284f) { return $INF; }
  if (x < -103.97208f) { return 0.0; }
  let k = floor(r_pq_$T(x * 1.44269504088896341f) + 0.5f);
  // The high part passes r_pq too: NVIDIA's compiler reassociated (x - a) - b into
  // x - (a + b) where x was itself a difference (in pow), which lost the reduction.
  let hi = r_pq_$T(x - r_pq_$T(k * 0.693359375f));
  let r = hi - r_pq_$T(k * (-2.12194440e-4f));
  let z = r_pq_$T(r * r);
  var p = r_pq_$T(1.9875691500e-4f * r) + 1.3981999507e-3f;
  p = r_pq_$T(p * r) + 8.3334519073e-3f;
  p = r_pq_$T(p * r) + 4.1665795894e-2f;
  p = r_pq_$T(p * r) + 1.6666665459e-1f;
  p = r_pq_$T(p * r) + 5.0000001201e-1f;
  p = r_pq_$T(p * z) + r + 1.0f;
  return r_ldexp_$T(p, i32(k));
}
"
    ),
    h!(
        "r_ldexp",
        [],
        true,
        "// x 2^k for |k| <= 300 in two normal power-of-two factors (one rounding at most).
fn r_ldexp_$T(x: $T, k: i32) -> $T {
  let k1 = clamp(k / 2, -126, 127);
  let k2 = clamp(k - k1, -126, 127);
  return (x * bitcast<f32>(u32(k1 + 127) << 23u)) * bitcast<f32>(u32(k2 + 127) << 23u);
}
"
    ),
    h!(
        "r_log",
        ["r_isnan"],
        true,
        "// Cephes' logf: x = m 2^e with m in [sqrt(1/2), sqrt(2)), a degree-9 polynomial in m - 1.
fn r_log_$T(x0: $T) -> $T {
  if (r_isnan_$T(x0)) { return x0; }
  if (x0 < 0.0) { return $NAN; }
  if (x0 == 0.0) { return -$INF; }
  if (x0 == $INF) { return x0; }
  var x = x0;
  var e = 0i;
  if (x < 1.17549435e-38f) {
    x = x * 33554432.0f;
    e = -25i;
  }
  let b = bitcast<u32>(x);
  e = e + i32(b >> 23u) - 126i;
  var m = bitcast<f32>((b & 0x007fffffu) | 0x3f000000u);
  if (m < 0.707106781186547524f) {
    e = e - 1i;
    m = m + m - 1.0f;
  } else {
    m = m - 1.0f;
  }
  let fe = f32(e);
  let z = m * m;
  var y = ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m
    - 1.2420140846e-1f) * m + 1.4249322787e-1f) * m - 1.6668057665e-1f) * m
    + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m + 3.3333331174e-1f) * m * z;
  y = y + (-2.12194440e-4f) * fe;
  y = y - 0.5f * z;
  return (m + y) + 0.693359375f * fe;
}
"
    ),
    h!(
        "r_sincos",
        ["r_isfin"],
        true,
        "// Cephes' sinf/cosf: reduction by pi/4 in three parts below 8192, octant polynomials;
// .x = sin, .y = cos. Past 8192: Payne-Hanek with 2/pi to 192 bits (ARM optimized-routines'
// sincosf `reduce_large`) where the adapter has float64 and 64-bit integers, else a bounded
// reduction that is not accurate.
fn r_sincos_$T(x0: $T) -> vec2<$T> {
  if (!r_isfin_$T(x0)) { return vec2<$T>($NAN, $NAN); }
  let ax = abs(x0);
  var j: u32;
  var r: f32;
  if (ax < 8192.0f) {
    j = u32(ax * 1.27323954473516f);
    var y = f32(j);
    if ((j & 1u) != 0u) {
      j = j + 1u;
      y = y + 1.0f;
    }
    r = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  } else {
$LARGE  }
  j = j & 7u;
  let z = r * r;
  let sp = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
  let cp = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f)
    * z * z - 0.5f * z + 1.0f;
  let swap = (j & 2u) != 0u;
  var s = select(sp, cp, swap);
  var c = select(cp, sp, swap);
  if (j >= 4u) { s = -s; }
  if (j == 2u || j == 4u) { c = -c; }
  if ((bitcast<u32>(x0) & 0x80000000u) != 0u) { s = -s; }
  return vec2<$T>(s, c);
}
"
    ),
    h!(
        "r_sin",
        ["r_sincos"],
        false,
        "fn r_sin_$T(x: $T) -> $T { return r_sincos_$T(x).x; }\n"
    ),
    h!(
        "r_cos",
        ["r_sincos"],
        false,
        "fn r_cos_$T(x: $T) -> $T { return r_sincos_$T(x).y; }\n"
    ),
    h!(
        "r_tan",
        ["r_sincos"],
        false,
        "fn r_tan_$T(x: $T) -> $T {
  let sc = r_sincos_$T(x);
  return sc.x / sc.y;
}
"
    ),
    h!(
        "r_log1p",
        ["r_isinf", "r_log", "r_opq", "r_pq", "r_div"],
        false,
        "// Kahan's log1p: x * log(u) / (u - 1) with u = 1 + x (u passes r_pq: a compiler that
// reassociates sums, as NVIDIA's, folds (1 + x) - 1 to x).
fn r_log1p_$T(x: $T) -> $T {
  let u = r_pq_$T(r_opq_$T(1.0 + x));
  if (u == 1.0) { return x; }
  if (r_isinf_$T(u)) { return u; }
  return r_log_$T(u) * r_div_$T(x, u - 1.0);
}
"
    ),
    h!(
        "r_expm1",
        ["r_isinf", "r_exp", "r_log"],
        false,
        "// Kahan's expm1: (u - 1) * x / log(u) with u = exp(x).
fn r_expm1_$T(x: $T) -> $T {
  let u = r_exp_$T(x);
  if (u == 1.0) { return x; }
  let um = u - 1.0;
  if (um == -1.0) { return $T(-1.0); }
  if (r_isinf_$T(u)) { return u; }
  return um * x / r_log_$T(u);
}
"
    ),
    h!(
        "r_sinh",
        ["r_exp", "r_expm1", "r_copysign"],
        false,
        "// sinh from expm1 (no cancellation), e^|x| / 2 as two half-size factors past 20.
fn r_sinh_$T(x: $T) -> $T {
  let ax = abs(x);
  var r: $T;
  if (ax > 20.0) {
    let h = r_exp_$T(ax * 0.5);
    r = (h * 0.5) * h;
  } else {
    let e = r_expm1_$T(ax);
    r = (e + e / (e + 1.0)) * 0.5;
  }
  return r_copysign_$T(r, x);
}
"
    ),
    h!(
        "r_cosh",
        ["r_exp"],
        false,
        "fn r_cosh_$T(x: $T) -> $T {
  let ax = abs(x);
  if (ax > 20.0) {
    let h = r_exp_$T(ax * 0.5);
    return (h * 0.5) * h;
  }
  let e = r_exp_$T(ax);
  return (e + 1.0 / e) * 0.5;
}
"
    ),
    h!(
        "r_atan2",
        ["r_isnan", "r_isinf", "r_signbit", "r_copysign"],
        true,
        "// atan2 with C99's special values spelled out (zeros, infinities); elsewhere Cephes'
// atanf of the smaller over the larger magnitude (reduced by tan(pi/8)), then the octant.
fn r_atan2_$T(y: $T, x: $T) -> $T {
  if (r_isnan_$T(x) || r_isnan_$T(y)) { return x + y; }
  let xneg = r_signbit_$T(x);
  if (r_isinf_$T(x) && r_isinf_$T(y)) { return r_copysign_$T(select($PI4, $PI34, xneg), y); }
  if (y == 0.0 || r_isinf_$T(x)) { return r_copysign_$T(select($T(0.0), $PI, xneg), y); }
  if (x == 0.0 || r_isinf_$T(y)) { return r_copysign_$T($PI2, y); }
  let ax = abs(x);
  let ay = abs(y);
  let swap = ay > ax;
  // t = min / max in [0, 1]; a quotient that underflows is its own atan.
  let t = select(ay / ax, ax / ay, swap);
  var a: f32;
  if (t > 0.4142135623730950f) {
    let u = (t - 1.0f) / (t + 1.0f);
    let z = u * u;
    a = 0.785398163397448f + ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z
      + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * u + u);
  } else {
    let z = t * t;
    a = (((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z
      - 3.33329491539e-1f) * z * t + t;
  }
  if (swap) { a = 1.5707963267948966f - a; }
  if (xneg) { a = 3.14159265358979f - a; }
  return r_copysign_$T(a, y);
}
"
    ),
];

/// What the bit-layout helpers ([`bit_helper`]) depend on besides the part type.
pub(super) struct BitOpts<'a> {
    /// The adapter has `SHADER_F64`.
    pub shader_f64: bool,
    /// The adapter has `SHADER_INT64`.
    pub int64: bool,
    /// A +0 of the part type the compiler cannot fold (`opaque_zero_of`).
    pub oz: &'a str,
    /// A `u32` zero the compiler cannot fold (`opaque_zero_u32`).
    pub zu: &'a str,
    /// The adapter's `fma` builtin is one rounding ([`super::WgslOptions::fused_fma`]):
    /// float64 `r_fma` is the builtin then. Dekker's emulation did not survive NVIDIA's
    /// optimizer (huge-argument sin/cos/tan were 2^-27 off on the H200 through the Payne-Hanek
    /// remainder's product error).
    pub fused_fma: bool,
}

/// The sources of the helpers whose text depends on the part type's bit layout.
///
/// The NaN/infinity tests compare the magnitude bits with a bound the compiler cannot see
/// (`0x7f800000 + zu`): WGSL allows a compiler to assume no NaNs or infinities exist, and
/// NVIDIA's folds a test on the bits of a computed value (`isfinite(abs(x))`, `isinf(-y)`)
/// into a constant when the bound is a literal.
pub(super) fn bit_helper(name: &str, t: &str, o: &BitOpts<'_>) -> Option<String> {
    let (shader_f64, int64, oz, zu) = (o.shader_f64, o.int64, o.oz, o.zu);
    let f32_ = t == "f32";
    Some(match name {
        // x itself through an operation with a value the compiler cannot know (+0 from the
        // meta words): llvmpipe's compiler reassociates float sums with constants and folds
        // x - x, which turned Kahan's (1 + x) - 1 into x.
        "r_opq" if f32_ => format!(
            "fn r_opq_f32(x: f32) -> f32 {{ return bitcast<f32>(bitcast<u32>(x) | {zu}); }}\n"
        ),
        // float64 through the bits where the adapter has 64-bit integers: `x + ±0` is no barrier
        // for a compiler that assumes no signed zeros (WGSL allows it; NVIDIA's folded it, and
        // Dekker's splits in r_fma with it: pow was 50 ulps off there).
        "r_opq" if int64 => format!(
            "fn r_opq_f64(x: f64) -> f64 {{ return bitcast<f64>(bitcast<u64>(x) | u64({zu})); }}\n"
        ),
        "r_opq" => format!("fn r_opq_f64(x: f64) -> f64 {{ return x + {oz}; }}\n"),
        // A product that the compiler cannot contract into a following add (as the emitter's
        // `opaque_product`): its bits XOR a zero the compiler cannot see, in the lowest bit.
        // Observed, cause unknown: on llvmpipe `r_pq_f32(a + b) + 1` gave `a + (b + 1)` in the
        // vec4 (contiguous) elementwise kernel but not in the strided one, with either bit, so
        // r_exp keeps its last sum unbarriered. NVIDIA's Vulkan
        // compiler fuses `a * b + c` (naga emits no `NoContraction`), which breaks the error
        // terms of compensated sums.
        "r_pq" if f32_ => format!(
            "fn r_pq_f32(p: f32) -> f32 {{ return bitcast<f32>(bitcast<u32>(p) ^ {zu}); }}\n"
        ),
        "r_pq" if int64 => format!(
            "fn r_pq_f64(p: f64) -> f64 {{ return bitcast<f64>(bitcast<u64>(p) ^ u64({zu})); }}\n"
        ),
        "r_pq" => format!("fn r_pq_f64(p: f64) -> f64 {{ return p + {oz}; }}\n"),
        // A fused multiply-add that is one rounding on every driver: llvmpipe lowers the fma
        // builtin to a multiply and an add. float32: exactly in float64 where the adapter has it
        // (the product is exact there; the sum's double rounding is off only at float32
        // ties), else the builtin (fused on GPUs). float64: Dekker's exact product (Veltkamp
        // splits) and Knuth's two-sum, rounded once at the end.
        // A correctly rounded quotient on drivers whose division is not (NVIDIA's Vulkan
        // driver divides through an approximate reciprocal: complex division and pow were ulps
        // off there). float32: in float64 where the adapter has it (a float64 quotient within an
        // ulp of float64 rounds to the correct float32 but for near-ties; Figueroa: double
        // rounding of a quotient is innocuous when 53 >= 2 * 24 + 2). float64: one correction by
        // the exact residual a - q b (Dekker's product in r_fma) where it cannot overflow; an
        // exact quotient (llvmpipe's) is left as it is, the residual being below half an ulp.
        "r_div" if f32_ && shader_f64 => {
            "fn r_div_f32(a: f32, b: f32) -> f32 { return f32(f64(a) / f64(b)); }\n".into()
        }
        "r_div" if f32_ => "fn r_div_f32(a: f32, b: f32) -> f32 { return a / b; }\n".into(),
        // A correctly rounded float32 square root on hardware adapters, whose builtin Vulkan
        // bounds only by 3 ulps (NVIDIA's was an ulp off at 1.01005): through float64 where the
        // adapter has it (innocuous double rounding, as r_div; the float64 root is within an ulp
        // of float64). llvmpipe's builtin is correctly rounded already; float64 keeps the builtin.
        "r_sqrt" if f32_ && shader_f64 && o.fused_fma => {
            "fn r_sqrt_f32(x: f32) -> f32 { return f32(sqrt(f64(x))); }\n".into()
        }
        "r_sqrt" => format!("fn r_sqrt_{t}(x: {t}) -> {t} {{ return sqrt(x); }}\n"),
        "r_div" => "fn r_div_f64(a: f64, b: f64) -> f64 {
  let q = a / b;
  if (q == 0.0lf || !(abs(q) < 1e280lf) || !(abs(a) < 1e280lf) || !(abs(b) < 1e280lf)
      || abs(a) < 1e-280lf || abs(b) < 1e-280lf) {
    return q;
  }
  let r = r_fma_f64(-q, b, a);
  return q + r / b;
}
".into(),
        "r_fma" if f32_ && shader_f64 => {
            "fn r_fma_f32(a: f32, b: f32, c: f32) -> f32 { return f32(f64(a) * f64(b) + f64(c)); }\n".into()
        }
        "r_fma" if f32_ => "fn r_fma_f32(a: f32, b: f32, c: f32) -> f32 { return fma(a, b, c); }\n".into(),
        "r_fma" if o.fused_fma => {
            "fn r_fma_f64(a: f64, b: f64, c: f64) -> f64 { return fma(a, b, c); }\n".into()
        }
        "r_fma" => "fn r_fma_f64(a: f64, b: f64, c: f64) -> f64 {
  // p passes r_pq: a compiler that contracts p + c into fma(a, b, c) breaks the two-sum below
  // (NVIDIA's: r_div, and so pow, were 1 ulp off there, pow's error then growing to 50).
  let p = r_pq_f64(a * b);
  // Exact (or as exact as the split allows) where a*b is 0, c is 0, or the split would
  // overflow; every intermediate passes r_opq so the compiler cannot fold the error terms.
  if (p == 0.0 || c == 0.0 || !(abs(p) < 1e300lf) || abs(a) > 1e290lf || abs(b) > 1e290lf) {
    return p + c;
  }
  let ca = r_opq_f64(134217729.0lf * a);
  let ah = ca - r_opq_f64(ca - a);
  let al = a - ah;
  let cb = r_opq_f64(134217729.0lf * b);
  let bh = cb - r_opq_f64(cb - b);
  let bl = b - bh;
  let e = ((r_opq_f64(ah * bh - p) + ah * bl) + al * bh) + al * bl;
  let s = r_opq_f64(p + c);
  let v = r_opq_f64(s - p);
  let err = (p - r_opq_f64(s - v)) + (c - v);
  return s + (err + e);
}
".into(),
        // Non-negative values: (min, max), zero test, times $UP (2^100 / 2^600), from the bits
        // for float32 (the integer order of non-negative floats is theirs; a flushing driver
        // would take a subnormal for zero in float compares and products).
        "r_pos" if f32_ => "fn r_pminmax_f32(a: f32, b: f32) -> vec2<f32> {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  return vec2<f32>(bitcast<f32>(min(ua, ub)), bitcast<f32>(max(ua, ub)));
}
fn r_pzero_f32(a: f32) -> bool { return bitcast<u32>(a) == 0u; }
fn r_pup_f32(a: f32) -> f32 {
  let u = bitcast<u32>(a);
  if (u < 0x00800000u) { return f32(u) * bitcast<f32>(0x27000000u); }
  return a * bitcast<f32>(0x71800000u);
}
"
        .into(),
        "r_pos" => "fn r_pminmax_f64(a: f64, b: f64) -> vec2<f64> { return vec2<f64>(min(a, b), max(a, b)); }
fn r_pzero_f64(a: f64) -> bool { return a == 0.0lf; }
fn r_pup_f64(a: f64) -> f64 { return a * 4.149515568880993e180lf; }
"
        .into(),
        "r_isnan" if f32_ => format!(
            "fn r_isnan_f32(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) > (0x7f800000u + {zu}); }}\n"
        ),
        // From the bits where the adapter has 64-bit integers: llvmpipe's compiler assumes no
        // NaNs and folds `x == x` to true.
        "r_isnan" if int64 => format!("fn r_isnan_f64(x: f64) -> bool {{
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > (0x7ff0000000000000lu + u64({zu}));
}}
"),
        "r_isnan" => "fn r_isnan_f64(x: f64) -> bool { return !(x == x); }\n".into(),
        // Infinity and finiteness from the bits too (a fast-math compiler may assume neither
        // NaNs nor infinities exist).
        "r_isinf" if f32_ => format!(
            "fn r_isinf_f32(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) == (0x7f800000u + {zu}); }}\n"
        ),
        "r_isfin" if f32_ => format!(
            "fn r_isfin_f32(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) < (0x7f800000u + {zu}); }}\n"
        ),
        "r_isinf" if int64 => format!("fn r_isinf_f64(x: f64) -> bool {{
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) == (0x7ff0000000000000lu + u64({zu}));
}}
"),
        "r_isfin" if int64 => format!("fn r_isfin_f64(x: f64) -> bool {{
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) < (0x7ff0000000000000lu + u64({zu}));
}}
"),
        "r_isinf" => "fn r_isinf_f64(x: f64) -> bool { return abs(x) == f64(bitcast<f32>(0x7f800000u)); }\n".into(),
        "r_isfin" => "fn r_isfin_f64(x: f64) -> bool { return abs(x) < f64(bitcast<f32>(0x7f800000u)); }\n".into(),
        "r_signbit" if f32_ => {
            "fn r_signbit_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x80000000u) != 0u; }\n".into()
        }
        // Without 64-bit bit casts: a zero's sign from the sign of its reciprocal.
        "r_signbit" => "fn r_signbit_f64(x: f64) -> bool { return x < 0.0 || (x == 0.0 && 1.0 / x < 0.0); }\n".into(),
        "r_copysign" if f32_ => {
            "fn r_copysign_f32(x: f32, y: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u));
}
"
            .into()
        }
        "r_copysign" => {
            "fn r_copysign_f64(x: f64, y: f64) -> f64 { return select(abs(x), -abs(x), r_signbit_f64(y)); }\n".into()
        }
        _ => return None,
    })
}

/// The `$LARGE` branch of `r_sincos` (|x| >= 8192): sets the even octant `j` and the remainder
/// `r` in [-pi/4, pi/4].
pub(super) fn sincos_large(f64_and_int64: bool) -> String {
    if !f64_and_int64 {
        return "    // Without float64 and 64-bit integers: bounded, not accurate.
    let q = floor(ax * 0.636619772f);
    j = u32(q - 4.0f * floor(q * 0.25f)) * 2u;
    r = clamp(ax - q * 1.5707963f, -0.7853982f, 0.7853982f);
"
        .into();
    }
    // 2/pi to 192 bits, as 24 windows of 32 bits 8 bits apart.
    const TWO_OVER_PI: [u32; 6] = [
        0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
    ];
    let bit = |k: usize| (TWO_OVER_PI[k / 32] >> (31 - k % 32)) & 1;
    let words: Vec<String> = (0..24)
        .map(|i| {
            let lo = if i < 3 { 0 } else { 8 * (i - 3) };
            let hi = 8 * (i + 1);
            let mut w = 0u32;
            for k in lo..hi {
                w = (w << 1) | bit(k);
            }
            format!("{w:#x}u")
        })
        .collect();
    let pi63 = super::emitter::f64lit(std::f64::consts::PI * 2f64.powi(-63));
    format!(
        "    // Payne-Hanek: the 24-bit mantissa times 96 bits of 2/pi chosen by the exponent gives
    // x 2/pi in 2.62 fixed point: the quadrant in the top bits, the remainder below.
    var tbl = array<u32, 24>({});
    let xi = bitcast<u32>(ax);
    let idx = (xi >> 26u) & 15u;
    let m = ((xi & 0xffffffu) | 0x800000u) << ((xi >> 23u) & 7u);
    let p0 = m * tbl[idx];
    let p1 = u64(m) * u64(tbl[idx + 4u]);
    let p2 = u64(m) * u64(tbl[idx + 8u]);
    var res = ((p2 >> 32u) | (u64(p0) << 32u)) + p1;
    let n = (res + (1lu << 61u)) >> 62u;
    res = res - (n << 62u);
    r = f32(f64(bitcast<i64>(res)) * {pi63});
    j = u32(n & 3lu) * 2u;
",
        words.join(", ")
    )
}
