//! The WGSL complex library: one function per helper, written once over the part type (`$T`,
//! `f32` or `f64`) and emitted only when a kernel uses it (with the helpers it calls, from here
//! or from [`super::real_lib`]).
//!
//! The algorithms are the C++ prelude's (`core/src/kernel/cpp/prelude.h`), which are NumPy's
//! loops: `*` with one fused multiply-add per part, `/` by Smith's method, the lexicographic
//! comparisons with NumPy's NaN rules, `npy_cpow`; the functions follow C99 Annex G (glibc's
//! special values). Special values are returned as constants where the C++ computes them as
//! `y - y` or `x * (y - y)` (llvmpipe folds those). Helpers marked `f32_only` have float32
//! source (Cephes' single-precision algorithms); for `f64` the emitter takes the software
//! float64 version of the same name from [`super::real_lib64`] (Vulkan defines the
//! transcendental builtins for 16/32-bit floats only).
//!
//! Placeholders besides `$T`: `$INF`/`$NAN` (literals of the part type), `$BIG`/`$OVF`/`$TANH1`
//! (thresholds of sinh/cosh and tanh, as `cp_r_big`/`cp_r_ovf`/`cp_r_tanh1`), `$HUGE`/`$TINY`
//! and the scalings `$DOWN`/`$UPINV`/`$UP`/`$DOWNINV` (hypot), `$SQBIG`/`$SQTINY`/`$SQUP`/
//! `$SQDOWN` (sqrt), `$PI`/`$PI2`/`$PI4`/`$PI34` (atan2), `$GUARD` (the loop guard line),
//! `$LARGE` (sin/cos past 8192).

/// One helper: name (emitted as `{name}_{T}`), helpers it calls, whether its source is float32
/// only (then float64 takes [`super::real_lib64`]'s), source.
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

/// The complex helpers (`cx_*`); the real ones they call are [`super::real_lib::REAL_HELPERS`].
pub(super) const HELPERS: &[Helper] = &[
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
        ["r_pq"],
        false,
        "// The unfused product of NumPy's nc_prod (power's repeated products; r_pq keeps a driver
// from fusing them).
fn cx_mulnf_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  return vec2<$T>(r_pq_$T(a.x * b.x) - r_pq_$T(a.y * b.y), r_pq_$T(a.x * b.y) + r_pq_$T(a.y * b.x));
}
"
    ),
    h!(
        "cx_div",
        ["r_div0", "r_pq", "r_div"],
        false,
        "// NumPy's divide loop (Smith's method; a zero divisor gives re/|0|, im/|0|). Every
// product passes r_pq: NumPy rounds each one (a driver that contracts them into fmas, as
// NVIDIA's, was an ulp off); the quotients are r_div's (correctly rounded).
fn cx_div_$T(a: vec2<$T>, b: vec2<$T>) -> vec2<$T> {
  let abr = abs(b.x);
  let abi = abs(b.y);
  if (abr >= abi) {
    if (abr == 0.0 && abi == 0.0) { return vec2<$T>(r_div0_$T(a.x), r_div0_$T(a.y)); }
    let rat = r_div_$T(b.y, b.x);
    let scl = r_div_$T(1.0, b.x + r_pq_$T(b.y * rat));
    return vec2<$T>(r_pq_$T((a.x + r_pq_$T(a.y * rat)) * scl), r_pq_$T((a.y - r_pq_$T(a.x * rat)) * scl));
  }
  let rat = r_div_$T(b.x, b.y);
  let scl = r_div_$T(1.0, b.y + r_pq_$T(b.x * rat));
  return vec2<$T>(r_pq_$T((r_pq_$T(a.x * rat) + a.y) * scl), r_pq_$T((r_pq_$T(a.y * rat) - a.x) * scl));
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
        false,
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
        ["r_atan2", "r_isinf", "r_isnan", "r_log1p", "r_log", "r_hypot", "r_fma", "r_pq"],
        false,
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
    let s = r_pq_$T(ax * ax);
    let es = r_fma_$T(ax, ax, -s);
    let p = r_pq_$T(ay * ay);
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
        ["r_isinf", "r_isnan", "r_signbit", "r_copysign", "r_hypot", "r_ss", "r_sqrt", "r_div"],
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
    let t = r_sqrt_$T((x + r_hypot_$T(x, y)) * 0.5);
    return vec2<$T>(t * scale, r_div_$T(y, t + t) * scale);
  }
  let t = r_sqrt_$T((-x + r_hypot_$T(x, y)) * 0.5);
  return vec2<$T>(r_div_$T(abs(y), t + t) * scale, r_copysign_$T(t, y) * scale);
}
"
    ),
    h!(
        "cx_sinh",
        ["r_isfin", "r_isinf", "r_sinh", "r_cosh", "r_sin", "r_cos", "r_exp", "r_copysign"],
        false,
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
        false,
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
        false,
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
        false,
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
        false,
        "fn cx_cos_$T(z: vec2<$T>) -> vec2<$T> { return cx_cosh_$T(vec2<$T>(-z.y, z.x)); }\n"
    ),
    h!(
        "cx_tan",
        ["cx_tanh"],
        false,
        "fn cx_tan_$T(z: vec2<$T>) -> vec2<$T> {
  let w = cx_tanh_$T(vec2<$T>(-z.y, z.x));
  return vec2<$T>(w.y, -w.x);
}
"
    ),
    h!(
        "cx_pow",
        ["cx_mulnf", "cx_div", "cx_exp", "cx_log"],
        false,
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
