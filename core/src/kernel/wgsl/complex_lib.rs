//! The WGSL complex library: one function per helper, written once over the part type (`$T`,
//! `f32` or `f64`) and emitted only when a kernel uses it (with the helpers it calls).
//!
//! The algorithms are the C++ prelude's (`core/src/kernel/cpp/prelude.h`), which are NumPy's
//! loops: `*` with one fused multiply-add per part, `/` by Smith's method, the lexicographic
//! comparisons with NumPy's NaN rules, `npy_cpow`; the functions follow C99 Annex G (glibc's
//! special values). The real functions under them are float32 builtins wrapped so that special
//! values never depend on the driver (`r_exp`, `r_log`, `r_atan2`, ...); `hypot` is Borges'
//! fma-corrected square root ("An improved algorithm for hypot(a, b)", 2019) between power-of-two
//! scalings. Helpers marked `f32_only` call float32 builtins (Vulkan defines the transcendental
//! builtins for 16/32-bit floats only): for `f64` the emitter refuses the kernel instead.
//!
//! Placeholders besides `$T`: `$INF`/`$NAN` (literals of the part type), `$BIG`/`$OVF`/`$TANH1`
//! (thresholds of sinh/cosh and tanh, as `cp_r_big`/`cp_r_ovf`/`cp_r_tanh1`), `$HUGE`/`$TINY`
//! and the scalings `$DOWN`/`$UPINV`/`$UP`/`$DOWNINV` (hypot), `$SQBIG`/`$SQTINY`/`$SQUP`/
//! `$SQDOWN` (sqrt), `$PI`/`$PI2`/`$PI4`/`$PI34` (atan2), `$GUARD` (the loop guard line).

/// One helper: name (emitted as `{name}_{T}`), helpers it calls, whether it needs float32
/// builtins, source.
pub(super) struct Helper {
    pub(super) name: &'static str,
    pub(super) deps: &'static [&'static str],
    pub(super) f32_only: bool,
    pub(super) src: &'static str,
}

macro_rules! h {
    ($name:literal, [$($d:literal),*], $f32:expr, $src:literal) => {
        Helper { name: $name, deps: &[$($d),*], f32_only: $f32, src: $src }
    };
}

pub(super) const HELPERS: &[Helper] = &[
    h!("r_isnan", [], false, ""),
    h!("r_signbit", [], false, ""),
    h!("r_copysign", ["r_signbit"], false, ""),
    h!("r_opq", [], false, ""),
    h!("r_fma", ["r_opq"], false, ""),
    h!(
        "r_isinf",
        [],
        false,
        "fn r_isinf_$T(x: $T) -> bool { return abs(x) == $INF; }\n"
    ),
    h!(
        "r_isfin",
        [],
        false,
        "fn r_isfin_$T(x: $T) -> bool { return abs(x) < $INF; }\n"
    ),
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
        ["r_isinf", "r_isnan", "r_fma"],
        false,
        "// hypot without overflow or underflow: one power-of-two scaling into the safe range, then
// Borges' fma-corrected sqrt(a^2 + b^2) (a >= b); an infinite part beats a NaN one.
fn r_hypot_$T(x: $T, y: $T) -> $T {
  let ax = abs(x);
  let ay = abs(y);
  if (r_isinf_$T(ax) || r_isinf_$T(ay)) { return $INF; }
  if (r_isnan_$T(ax) || r_isnan_$T(ay)) { return ax + ay; }
  let m = max(ax, ay);
  let n = min(ax, ay);
  if (m == 0.0) { return $T(0.0); }
  var s = $T(1.0);
  var u = $T(1.0);
  if (m > $HUGE) { s = $DOWN; u = $UPINV; } else if (m < $TINY) { s = $UP; u = $DOWNINV; }
  let a = m * s;
  let b = n * s;
  let h = sqrt(r_fma_$T(a, a, b * b));
  let hs = h * h;
  let aa = a * a;
  let c = r_fma_$T(-b, b, hs - aa) + r_fma_$T(h, h, -hs) - r_fma_$T(a, a, -aa);
  return (h - c / (2.0 * h)) * u;
}
"
    ),
    h!(
        "r_exp",
        ["r_isnan", "r_ldexp"],
        true,
        "// Cephes' expf: Cody-Waite reduction by ln 2, degree-6 polynomial (llvmpipe's builtin
// exp is exp2(x log2 e), which loses |x| ulps).
fn r_exp_$T(x: $T) -> $T {
  if (r_isnan_$T(x)) { return x; }
  if (x > 88.72284f) { return $INF; }
  if (x < -103.97208f) { return 0.0; }
  let k = floor(x * 1.44269504088896341f + 0.5f);
  let r = (x - k * 0.693359375f) - k * (-2.12194440e-4f);
  let z = r * r;
  let p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r
    + 4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f) * z + r + 1.0f;
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
        true,
        "fn r_sin_$T(x: $T) -> $T { return r_sincos_$T(x).x; }\n"
    ),
    h!(
        "r_cos",
        ["r_sincos"],
        true,
        "fn r_cos_$T(x: $T) -> $T { return r_sincos_$T(x).y; }\n"
    ),
    h!(
        "r_tan",
        ["r_sincos"],
        true,
        "fn r_tan_$T(x: $T) -> $T {
  let sc = r_sincos_$T(x);
  return sc.x / sc.y;
}
"
    ),
    h!(
        "r_log1p",
        ["r_isinf", "r_log", "r_opq"],
        true,
        "// Kahan's log1p: x * log(u) / (u - 1) with u = 1 + x.
fn r_log1p_$T(x: $T) -> $T {
  let u = r_opq_$T(1.0 + x);
  if (u == 1.0) { return x; }
  if (r_isinf_$T(u)) { return u; }
  return r_log_$T(u) * (x / (u - 1.0));
}
"
    ),
    h!(
        "r_expm1",
        ["r_isinf", "r_exp", "r_log"],
        true,
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
        true,
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
        true,
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
    h!(
        "cx_mul",
        ["r_fma"],
        false,
        "// NumPy's multiply loop: re = fma(ar, br, -(ai bi)), im = fma(ar, bi, ai br).
fn cx_mul_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  return vec2<$T>(r_fma_$T(a.x, b.x, -(a.y * b.y)), r_fma_$T(a.x, b.y, a.y * b.x));
}
"
    ),
    h!(
        "cx_mulnf",
        [],
        false,
        "// The unfused product of NumPy's nc_prod (power's repeated products).
fn cx_mulnf_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  return vec2<$T>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
"
    ),
    h!(
        "cx_div",
        ["r_div0"],
        false,
        "// NumPy's divide loop (Smith's method; a zero divisor gives re/|0|, im/|0|).
fn cx_div_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  let abr = abs(b.x);
  let abi = abs(b.y);
  if (abr >= abi) {
    if (abr == 0.0 && abi == 0.0) { return vec2<$T>(r_div0_$T(a.x), r_div0_$T(a.y)); }
    let rat = b.y / b.x;
    let scl = 1.0 / (b.x + b.y * rat);
    return vec2<$T>((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
  }
  let rat = b.x / b.y;
  let scl = 1.0 / (b.y + b.x * rat);
  return vec2<$T>((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}
"
    ),
    h!(
        "cx_eq",
        [],
        false,
        "fn cx_eq_$T(a: vec2<$T>, b: vec2<$T>) -> bool { return a.x == b.x && a.y == b.y; }\n"
    ),
    h!(
        "cx_ne",
        [],
        false,
        "fn cx_ne_$T(a: vec2<$T>, b: vec2<$T>) -> bool { return !(a.x == b.x) || !(a.y == b.y); }\n"
    ),
    h!(
        "cx_lt",
        ["r_isnan"],
        false,
        "// NumPy's CLT: an ordered comparison of the real parts needs both imaginary parts non-NaN.
fn cx_lt_$T(a: vec2<$T>, b: vec2<$T>) -> bool {
  return (a.x < b.x && !r_isnan_$T(a.y) && !r_isnan_$T(b.y)) || (a.x == b.x && a.y < b.y);
}
"
    ),
    h!(
        "cx_le",
        ["r_isnan"],
        false,
        "fn cx_le_$T(a: vec2<$T>, b: vec2<$T>) -> bool {
  return (a.x < b.x && !r_isnan_$T(a.y) && !r_isnan_$T(b.y)) || (a.x == b.x && a.y <= b.y);
}
"
    ),
    h!(
        "cx_nan",
        ["r_isnan"],
        false,
        "fn cx_nan_$T(a: vec2<$T>) -> bool { return r_isnan_$T(a.x) || r_isnan_$T(a.y); }\n"
    ),
    h!(
        "cx_isinf",
        ["r_isinf"],
        false,
        "fn cx_isinf_$T(a: vec2<$T>) -> bool { return r_isinf_$T(a.x) || r_isinf_$T(a.y); }\n"
    ),
    h!(
        "cx_isfin",
        ["r_isfin"],
        false,
        "fn cx_isfin_$T(a: vec2<$T>) -> bool { return r_isfin_$T(a.x) && r_isfin_$T(a.y); }\n"
    ),
    h!(
        "cx_nonzero",
        [],
        false,
        "fn cx_nonzero_$T(a: vec2<$T>) -> bool { return !(a.x == 0.0) || !(a.y == 0.0); }\n"
    ),
    h!(
        "cx_max",
        ["cx_nan", "cx_le"],
        false,
        "// maximum/minimum keep a NaN operand (the first if both); fmax/fmin the non-NaN one.
fn cx_max_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> { return select(b, a, cx_nan_$T(a) || cx_le_$T(b, a)); }
"
    ),
    h!(
        "cx_min",
        ["cx_nan", "cx_le"],
        false,
        "fn cx_min_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> { return select(b, a, cx_nan_$T(a) || cx_le_$T(a, b)); }\n"
    ),
    h!(
        "cx_fmax",
        ["cx_nan", "cx_le"],
        false,
        "fn cx_fmax_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> { return select(b, a, cx_nan_$T(b) || cx_le_$T(b, a)); }\n"
    ),
    h!(
        "cx_fmin",
        ["cx_nan", "cx_le"],
        false,
        "fn cx_fmin_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> { return select(b, a, cx_nan_$T(b) || cx_le_$T(a, b)); }\n"
    ),
    h!(
        "cx_abs",
        ["r_hypot"],
        false,
        "fn cx_abs_$T(z: vec2<$T>) -> $T { return r_hypot_$T(z.x, z.y); }\n"
    ),
    h!(
        "cx_exp",
        ["r_isfin", "r_exp", "r_sin", "r_cos"],
        true,
        "fn cx_exp_$T(z: vec2<$T>) -> vec2<$T> {
  let x = z.x;
  let y = z.y;
  if (y == 0.0) { return vec2<$T>(r_exp_$T(x), y); }
  if (!r_isfin_$T(y)) {
    if (x == -$INF) { return vec2<$T>(0.0, 0.0); }
    if (x == $INF) { return vec2<$T>(x, $NAN); }
    return vec2<$T>($NAN, $NAN);
  }
  let c = r_cos_$T(y);
  let s = r_sin_$T(y);
  if (x > $OVF) {
    // exp(x) overflows before exp(x) cos(y) may: two half-size factors.
    let e = r_exp_$T(x * 0.5);
    return vec2<$T>((e * c) * e, (e * s) * e);
  }
  let e = r_exp_$T(x);
  return vec2<$T>(e * c, e * s);
}
"
    ),
    h!(
        "cx_log",
        ["r_atan2", "r_isinf", "r_isnan", "r_log1p", "r_log", "r_hypot", "r_fma"],
        true,
        "// log|z| with log1p near the unit circle (|z|^2 - 1 formed with exact products).
fn cx_log_$T(z: vec2<$T>) -> vec2<$T> {
  let x = z.x;
  let y = z.y;
  let im = r_atan2_$T(y, x);
  var ax = abs(x);
  var ay = abs(y);
  if (r_isinf_$T(ax) || r_isinf_$T(ay)) { return vec2<$T>($INF, im); }
  if (r_isnan_$T(ax) || r_isnan_$T(ay)) { return vec2<$T>($NAN, im); }
  if (ax < ay) {
    let t = ax;
    ax = ay;
    ay = t;
  }
  if (ax == 0.0) { return vec2<$T>(-$INF, im); }
  if (ax >= 0.5 && ax <= 1.5 && ay < 1.0) {
    let s = ax * ax;
    let es = r_fma_$T(ax, ax, -s);
    let p = ay * ay;
    let ep = r_fma_$T(ay, ay, -p);
    let r2 = s + p;
    if (r2 > 0.5 && r2 < 2.0) {
      let t = ((s - 1.0) + p) + (es + ep);
      return vec2<$T>(0.5 * r_log1p_$T(t), im);
    }
  }
  return vec2<$T>(r_log_$T(r_hypot_$T(ax, ay)), im);
}
"
    ),
    h!(
        "cx_sqrt",
        ["r_isinf", "r_isnan", "r_signbit", "r_copysign", "r_hypot", "r_ss"],
        false,
        "fn cx_sqrt_$T(z: vec2<$T>) -> vec2<$T> {
  var x = z.x;
  var y = z.y;
  if (x == 0.0 && y == 0.0) { return vec2<$T>(0.0, y); }
  if (r_isinf_$T(y)) { return vec2<$T>($INF, y); }
  if (r_isnan_$T(x)) { return vec2<$T>(x, $NAN); }
  if (r_isinf_$T(x)) {
    if (r_signbit_$T(x)) { return vec2<$T>(r_ss_$T(y), r_copysign_$T($INF, y)); }
    return vec2<$T>(x, r_copysign_$T(r_ss_$T(y), y));
  }
  if (r_isnan_$T(y)) { return vec2<$T>(y, y); }
  // Scale huge and tiny arguments so |x| + |z| neither overflows nor loses bits.
  var scale = $T(1.0);
  if (abs(x) >= $SQBIG || abs(y) >= $SQBIG) {
    x = x * 0.25;
    y = y * 0.25;
    scale = $T(2.0);
  } else if (abs(x) < $SQTINY && abs(y) < $SQTINY) {
    x = x * $SQUP;
    y = y * $SQUP;
    scale = $SQDOWN;
  }
  if (x >= 0.0) {
    let t = sqrt((x + r_hypot_$T(x, y)) * 0.5);
    return vec2<$T>(t * scale, (y / (t + t)) * scale);
  }
  let t = sqrt((-x + r_hypot_$T(x, y)) * 0.5);
  return vec2<$T>((abs(y) / (t + t)) * scale, r_copysign_$T(t, y) * scale);
}
"
    ),
    h!(
        "cx_sinh",
        ["r_isfin", "r_isinf", "r_sinh", "r_cosh", "r_sin", "r_cos", "r_exp", "r_copysign"],
        true,
        "fn cx_sinh_$T(z: vec2<$T>) -> vec2<$T> {
  let x = z.x;
  let y = z.y;
  if (r_isfin_$T(x) && r_isfin_$T(y)) {
    if (y == 0.0) { return vec2<$T>(r_sinh_$T(x), y); }
    let c = r_cos_$T(y);
    let s = r_sin_$T(y);
    let ax = abs(x);
    if (ax < $BIG) { return vec2<$T>(r_sinh_$T(x) * c, r_cosh_$T(x) * s); }
    if (ax < $OVF) {
      let h = r_exp_$T(ax) * 0.5;
      return vec2<$T>(r_copysign_$T(h, x) * c, h * s);
    }
    let e = r_exp_$T(ax * 0.5);
    let h = e * 0.5;
    return vec2<$T>((r_copysign_$T(h, x) * c) * e, (h * s) * e);
  }
  if (x == 0.0) { return vec2<$T>(x, $NAN); }
  if (y == 0.0) { return vec2<$T>(x, y); }
  if (r_isfin_$T(x)) { return vec2<$T>($NAN, $NAN); }
  if (r_isinf_$T(x)) {
    if (!r_isfin_$T(y)) { return vec2<$T>($INF, $NAN); }
    return vec2<$T>(x * r_cos_$T(y), $INF * r_sin_$T(y));
  }
  return vec2<$T>($NAN, $NAN);
}
"
    ),
    h!(
        "cx_cosh",
        ["r_isfin", "r_isinf", "r_isnan", "r_sinh", "r_cosh", "r_sin", "r_cos", "r_exp", "r_copysign", "r_zmul"],
        true,
        "fn cx_cosh_$T(z: vec2<$T>) -> vec2<$T> {
  let x = z.x;
  let y = z.y;
  if (r_isfin_$T(x) && r_isfin_$T(y)) {
    if (y == 0.0) { return vec2<$T>(r_cosh_$T(x), r_zmul_$T(x, y)); }
    let c = r_cos_$T(y);
    let s = r_sin_$T(y);
    let ax = abs(x);
    if (ax < $BIG) { return vec2<$T>(r_cosh_$T(x) * c, r_sinh_$T(x) * s); }
    if (ax < $OVF) {
      let h = r_exp_$T(ax) * 0.5;
      return vec2<$T>(h * c, r_copysign_$T(h, x) * s);
    }
    let e = r_exp_$T(ax * 0.5);
    let h = e * 0.5;
    return vec2<$T>((h * c) * e, (r_copysign_$T(h, x) * s) * e);
  }
  if (x == 0.0) { return vec2<$T>($NAN, 0.0); }
  if (y == 0.0) { return vec2<$T>(x * x, select(r_zmul_$T(x, y), y, r_isnan_$T(x))); }
  if (r_isfin_$T(x)) { return vec2<$T>($NAN, $NAN); }
  if (r_isinf_$T(x)) {
    if (!r_isfin_$T(y)) { return vec2<$T>($INF, $NAN); }
    return vec2<$T>((x * x) * r_cos_$T(y), x * r_sin_$T(y));
  }
  return vec2<$T>($NAN, $NAN);
}
"
    ),
    h!(
        "cx_tanh",
        ["r_isfin", "r_isnan", "r_isinf", "r_copysign", "r_sin", "r_cos", "r_exp", "r_tan", "r_sinh"],
        true,
        "// Kahan's tanh (as FreeBSD's ctanh).
fn cx_tanh_$T(z: vec2<$T>) -> vec2<$T> {
  let x = z.x;
  let y = z.y;
  if (!r_isfin_$T(x)) {
    if (r_isnan_$T(x)) { return vec2<$T>(x, select($NAN, y, y == 0.0)); }
    let sc = select(r_sin_$T(y) * r_cos_$T(y), y, r_isinf_$T(y));
    return vec2<$T>(r_copysign_$T(1.0, x), r_copysign_$T(0.0, sc));
  }
  if (!r_isfin_$T(y)) { return vec2<$T>(select(x, $NAN, !(x == 0.0)), $NAN); }
  if (abs(x) >= $TANH1) {
    let e = r_exp_$T(-abs(x));
    return vec2<$T>(r_copysign_$T(1.0, x), 4.0 * r_sin_$T(y) * r_cos_$T(y) * e * e);
  }
  let t = r_tan_$T(y);
  let beta = 1.0 + t * t;
  let s = r_sinh_$T(x);
  let rho = sqrt(1.0 + s * s);
  let den = 1.0 + beta * s * s;
  return vec2<$T>((beta * rho * s) / den, t / den);
}
"
    ),
    h!(
        "cx_sin",
        ["r_isfin", "r_isinf", "cx_sinh"],
        true,
        "// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz) (glibc's signs).
fn cx_sin_$T(z: vec2<$T>) -> vec2<$T> {
  if (!r_isfin_$T(z.x) && r_isinf_$T(z.y)) { return vec2<$T>($NAN, $INF); }
  let w = cx_sinh_$T(vec2<$T>(-z.y, z.x));
  return vec2<$T>(w.y, -w.x);
}
"
    ),
    h!(
        "cx_cos",
        ["cx_cosh"],
        true,
        "fn cx_cos_$T(z: vec2<$T>) -> vec2<$T> { return cx_cosh_$T(vec2<$T>(-z.y, z.x)); }\n"
    ),
    h!(
        "cx_tan",
        ["cx_tanh"],
        true,
        "fn cx_tan_$T(z: vec2<$T>) -> vec2<$T> {
  let w = cx_tanh_$T(vec2<$T>(-z.y, z.x));
  return vec2<$T>(w.y, -w.x);
}
"
    ),
    h!(
        "cx_pow",
        ["cx_mulnf", "cx_div", "cx_exp", "cx_log"],
        true,
        "// NumPy's npy_cpow: z**0 = 1; 0**w = 0 when re(w) > 0, else NaN; integer exponents below
// 100 by repeated unfused products (a negative one then 1/...); otherwise exp(w log z).
fn cx_pow_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  let br = b.x;
  let bi = b.y;
  if (br == 0.0 && bi == 0.0) { return vec2<$T>(1.0, 0.0); }
  if (a.x == 0.0 && a.y == 0.0) {
    if (br > 0.0) { return vec2<$T>(0.0, 0.0); }
    return vec2<$T>($NAN, $NAN);
  }
  if (bi == 0.0 && abs(br) < 100.0 && br == $T(i32(br))) {
    var n = i32(br);
    if (n == 1) { return a; }
    if (n == 2) { return cx_mulnf_$T(a, a); }
    if (n == 3) { return cx_mulnf_$T(a, cx_mulnf_$T(a, a)); }
    if (n < 0) { n = -n; }
    var aa = vec2<$T>(1.0, 0.0);
    var p = a;
    var mask = 1i;
    loop {
      if ((n & mask) != 0i) { aa = cx_mulnf_$T(aa, p); }
      mask = mask << 1u;
      if (n < mask) { break; }
      p = cx_mulnf_$T(p, p);
    }
$GUARD    if (br < 0.0) { aa = cx_div_$T(vec2<$T>(1.0, 0.0), aa); }
    return aa;
  }
  return cx_exp_$T(cx_mulnf_$T(b, cx_log_$T(a)));
}
"
    ),
];

/// The sources of the helpers whose text depends on the part type's bit layout.
pub(super) fn bit_helper(
    name: &str,
    t: &str,
    shader_f64: bool,
    int64: bool,
    oz: &str,
) -> Option<String> {
    let f32_ = t == "f32";
    Some(match name {
        // x itself through an operation with a value the compiler cannot know (+0 from the
        // meta words): llvmpipe's compiler reassociates float sums with constants and folds
        // x - x, which turned Kahan's (1 + x) - 1 into x.
        "r_opq" if f32_ => format!(
            "fn r_opq_f32(x: f32) -> f32 {{ return bitcast<f32>(bitcast<u32>(x) | bitcast<u32>({oz})); }}\n"
        ),
        "r_opq" => format!("fn r_opq_f64(x: f64) -> f64 {{ return x + {oz}; }}\n"),
        // A fused multiply-add that is one rounding on every driver: llvmpipe lowers the fma
        // builtin to a multiply and an add. float32: exactly in float64 where the adapter has it
        // (the product is exact there; the sum's double rounding is off only at float32
        // ties), else the builtin (fused on GPUs). float64: Dekker's exact product (Veltkamp
        // splits) and Knuth's two-sum, rounded once at the end.
        "r_fma" if f32_ && shader_f64 => {
            "fn r_fma_f32(a: f32, b: f32, c: f32) -> f32 { return f32(f64(a) * f64(b) + f64(c)); }\n".into()
        }
        "r_fma" if f32_ => "fn r_fma_f32(a: f32, b: f32, c: f32) -> f32 { return fma(a, b, c); }\n".into(),
        "r_fma" => "fn r_fma_f64(a: f64, b: f64, c: f64) -> f64 {
  let p = a * b;
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
        "r_isnan" if f32_ => {
            "fn r_isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n".into()
        }
        // From the bits where the adapter has 64-bit integers: llvmpipe's compiler assumes no
        // NaNs and folds `x == x` to true.
        "r_isnan" if int64 => "fn r_isnan_f64(x: f64) -> bool {
  return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}
".into(),
        "r_isnan" => "fn r_isnan_f64(x: f64) -> bool { return !(x == x); }\n".into(),
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
