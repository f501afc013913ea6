// ---- cupy-rs common C++ prelude (CUDA/HIP subset) ----
// Storage types are the NumPy byte layouts; compute types: bool, the integer types, float (also
// for float16/bfloat16, whose values are kept rounded to their type), double.
typedef signed char cp_i8;
typedef short cp_i16;
typedef int cp_i32;
typedef long long cp_i64;
typedef unsigned char cp_u8;
typedef unsigned short cp_u16;
typedef unsigned int cp_u32;
typedef unsigned long long cp_u64;

#define CP_DEV static __device__ __forceinline__

// Wrap-around arithmetic type of each integer type (unsigned, at least 32 bits).
template <typename T> struct cp_wu_t { typedef cp_u32 type; };
template <> struct cp_wu_t<cp_i64> { typedef cp_u64 type; };
template <> struct cp_wu_t<cp_u64> { typedef cp_u64 type; };
#define CP_WU(T) typename cp_wu_t<T>::type

template <typename T> CP_DEV T cp_wadd(T a, T b) { return (T)((CP_WU(T))a + (CP_WU(T))b); }
template <typename T> CP_DEV T cp_wsub(T a, T b) { return (T)((CP_WU(T))a - (CP_WU(T))b); }
template <typename T> CP_DEV T cp_wmul(T a, T b) { return (T)((CP_WU(T))a * (CP_WU(T))b); }
template <typename T> CP_DEV T cp_wneg(T a) { return (T)((CP_WU(T))0 - (CP_WU(T))a); }
template <typename T> CP_DEV bool cp_isneg(T a) { return ((T)-1 < (T)0) && a < (T)0; }
template <typename T> CP_DEV T cp_iabs(T a) { return cp_isneg(a) ? cp_wneg(a) : a; }

// Integer division family: 0 on a zero divisor; MIN / -1 wraps (NumPy's results).
template <typename T> CP_DEV T cp_idiv(T a, T b) {
  if (b == (T)0) return (T)0;
  if (cp_isneg(b) && b == (T)-1) return cp_wneg(a);
  return (T)(a / b);
}
template <typename T> CP_DEV T cp_ifloordiv(T a, T b) {
  if (b == (T)0) return (T)0;
  if (cp_isneg(b) && b == (T)-1) return cp_wneg(a);
  T q = (T)(a / b);
  if ((T)(a % b) != (T)0 && (cp_isneg(a) != cp_isneg(b))) q = (T)(q - (T)1);
  return q;
}
template <typename T> CP_DEV T cp_imod(T a, T b) {
  if (b == (T)0) return (T)0;
  if (cp_isneg(b) && b == (T)-1) return (T)0;
  T r = (T)(a % b);
  if (r != (T)0 && (cp_isneg(r) != cp_isneg(b))) r = (T)(r + b);
  return r;
}
// Exact integer power by squaring with wrap-around; negative exponents give 0 except for bases 1, -1.
template <typename T> CP_DEV T cp_ipow(T a, T b) {
  if (cp_isneg(b)) {
    if (a == (T)1) return (T)1;
    if (cp_isneg(a) && a == (T)-1) return (b & (T)1) ? (T)-1 : (T)1;
    return (T)0;
  }
  CP_WU(T) base = (CP_WU(T))a, r = 1;
  cp_u64 e = (cp_u64)b;
  while (e) {
    if (e & 1ull) r *= base;
    base *= base;
    e >>= 1;
  }
  return (T)r;
}
// NumPy's npy_lshift / npy_rshift: shifts past the width give 0 (or -1 for negative >>).
template <typename T, typename S> CP_DEV T cp_shl(T a, S b) {
  if ((cp_u64)b < sizeof(T) * 8) return (T)((CP_WU(T))a << (cp_u32)b);
  return (T)0;
}
template <typename T, typename S> CP_DEV T cp_shr(T a, S b) {
  if ((cp_u64)b < sizeof(T) * 8) return (T)(a >> (cp_u32)b);
  return cp_isneg(a) ? (T)-1 : (T)0;
}
// NaN-propagating maximum/minimum (NumPy maximum/minimum) and NaN-ignoring fmax/fmin.
template <typename T> CP_DEV T cp_max(T a, T b) { return (a >= b || a != a) ? a : b; }
template <typename T> CP_DEV T cp_min(T a, T b) { return (a <= b || a != a) ? a : b; }
template <typename T> CP_DEV T cp_fmax(T a, T b) { return (a >= b || b != b) ? a : b; }
template <typename T> CP_DEV T cp_fmin(T a, T b) { return (a <= b || b != b) ? a : b; }

// NumPy's npy_divmod for floats: floor_divide and remainder.
#define CP_DIVMOD(NAME, T, FMOD, FLOOR, COPYSIGN)                         \
  CP_DEV T NAME##_floordiv(T a, T b) {                                    \
    if (b == (T)0) return a / b;                                          \
    T mod = FMOD(a, b);                                                   \
    T div = (a - mod) / b;                                                \
    if (mod != (T)0) {                                                    \
      if ((b < (T)0) != (mod < (T)0)) div -= (T)1;                        \
    }                                                                     \
    T fd;                                                                 \
    if (div != (T)0) {                                                    \
      fd = FLOOR(div);                                                    \
      if (div - fd > (T)0.5) fd += (T)1;                                  \
    } else {                                                              \
      fd = COPYSIGN((T)0, a / b);                                         \
    }                                                                     \
    return fd;                                                            \
  }                                                                       \
  CP_DEV T NAME##_mod(T a, T b) {                                         \
    T mod = FMOD(a, b);                                                   \
    if (b == (T)0) return mod;                                            \
    if (mod != (T)0) {                                                    \
      if ((b < (T)0) != (mod < (T)0)) mod += b;                           \
    } else {                                                              \
      mod = COPYSIGN((T)0, b);                                            \
    }                                                                     \
    return mod;                                                           \
  }
CP_DIVMOD(cp_f32, float, fmodf, floorf, copysignf)
CP_DIVMOD(cp_f64, double, fmod, floor, copysign)

// Float -> integer casts: truncate, saturate, NaN -> 0 (as Rust's `as`, which Scalar::cast uses).
template <typename T> CP_DEV T cp_sat_small(double d, double lo, double hi) {
  if (d != d) return (T)0;
  d = d < lo ? lo : d;
  d = d > hi ? hi : d;
  return (T)d;
}
CP_DEV cp_i64 cp_sat_i64(double d) {
  if (d != d) return 0;
  if (d >= 9223372036854775808.0) return 9223372036854775807ll;
  if (d <= -9223372036854775808.0) return (-9223372036854775807ll - 1);
  return (cp_i64)d;
}
CP_DEV cp_u64 cp_sat_u64(double d) {
  if (d != d || d <= 0.0) return 0;
  if (d >= 18446744073709551616.0) return 18446744073709551615ull;
  return (cp_u64)d;
}
CP_DEV cp_i8 cp_d2i8(double d) { return cp_sat_small<cp_i8>(d, -128.0, 127.0); }
CP_DEV cp_i16 cp_d2i16(double d) { return cp_sat_small<cp_i16>(d, -32768.0, 32767.0); }
CP_DEV cp_i32 cp_d2i32(double d) { return cp_sat_small<cp_i32>(d, -2147483648.0, 2147483647.0); }
CP_DEV cp_i64 cp_d2i64(double d) { return cp_sat_i64(d); }
CP_DEV cp_u8 cp_d2u8(double d) { return (cp_u8)cp_sat_i64(d); }
CP_DEV cp_u16 cp_d2u16(double d) { return (cp_u16)cp_sat_i64(d); }
CP_DEV cp_u32 cp_d2u32(double d) { return (cp_u32)cp_sat_i64(d); }
CP_DEV cp_u64 cp_d2u64(double d) { return cp_sat_u64(d); }

// float16 / bfloat16 <-> float/double, round to nearest even, done with integer ops so CUDA and
// HIP give identical bits (NaNs are quieted as the `half` crate does).
CP_DEV float cp_h2f(cp_u16 h) {
  cp_u32 s = ((cp_u32)h & 0x8000u) << 16;
  cp_u32 e = ((cp_u32)h >> 10) & 0x1fu;
  cp_u32 m = (cp_u32)h & 0x3ffu;
  if (e == 0) {
    float v = (float)m * 5.9604644775390625e-8f;
    return s ? -v : v;
  }
  if (e == 31) return __uint_as_float(s | 0x7f800000u | (m << 13));
  return __uint_as_float(s | ((e + 112u) << 23) | (m << 13));
}
CP_DEV cp_u16 cp_f2h(float f) {
  cp_u32 x = __float_as_uint(f);
  cp_u32 sign = (x >> 16) & 0x8000u;
  cp_u32 ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (cp_u16)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return (cp_u16)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    cp_u32 m = (cp_u32)rintf(__uint_as_float(ax) * 16777216.0f);
    return (cp_u16)(sign | m);
  }
  cp_u32 r = ax - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  return (cp_u16)(sign | (r >> 13));
}
CP_DEV cp_u16 cp_d2h(double d) {
  cp_u64 x = (cp_u64)__double_as_longlong(d);
  cp_u32 sign = (cp_u32)(x >> 48) & 0x8000u;
  cp_u64 ax = x & 0x7fffffffffffffffull;
  if (ax > 0x7ff0000000000000ull) return (cp_u16)(sign | 0x7e00u | (cp_u32)((ax >> 42) & 0x3ffu));
  if (ax >= 0x40effe0000000000ull) return (cp_u16)(sign | 0x7c00u);
  if (ax < 0x3f10000000000000ull) {
    cp_u32 m = (cp_u32)rint(__longlong_as_double((cp_i64)ax) * 16777216.0);
    return (cp_u16)(sign | m);
  }
  cp_u64 r = ax - 0x3f00000000000000ull;
  r += 0x1ffffffffffull + ((r >> 42) & 1ull);
  return (cp_u16)(sign | (cp_u32)(r >> 42));
}
CP_DEV float cp_bf2f(cp_u16 b) { return __uint_as_float(((cp_u32)b) << 16); }
CP_DEV cp_u16 cp_f2bf(float f) {
  cp_u32 x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (cp_u16)((x >> 16) | 0x0040u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (cp_u16)(x >> 16);
}
CP_DEV cp_u16 cp_d2bf(double d) {
  cp_u64 x = (cp_u64)__double_as_longlong(d);
  cp_u32 sign = (cp_u32)(x >> 48) & 0x8000u;
  cp_u64 ax = x & 0x7fffffffffffffffull;
  if (ax > 0x7ff0000000000000ull) return (cp_u16)(sign | 0x7fc0u | (cp_u32)((ax >> 45) & 0x7fu));
  if (ax >= 0x47eff00000000000ull) return (cp_u16)(sign | 0x7f80u);
  if (ax < 0x3810000000000000ull) {
    // subnormal bfloat16: unit 2^-133 (scale in two steps to stay exact)
    cp_u32 m = (cp_u32)rint(__longlong_as_double((cp_i64)ax) * 1.0889035741470030830827987437816582766592e+40 /* 2^133 */);
    return (cp_u16)(sign | m);
  }
  cp_u64 r = ax - 0x3800000000000000ull;
  r += 0xfffffffffffull + ((r >> 45) & 1ull);
  return (cp_u16)(sign | (cp_u32)(r >> 45));
}
CP_DEV float cp_rh(float f) { return cp_h2f(cp_f2h(f)); }
// float32 tan through float64, rounded once: CUDA's tanf is documented to 4 ulps, and was 3
// ulps off at 1.3062453 on the H200 (tests/accuracy32.rs); float64 tan is within an ulp of
// float64, so the rounded result is NumPy's correctly rounded one but for near-ties.
CP_DEV float cp_tanf(float x) { return (float)tan((double)x); }
CP_DEV float cp_rbf(float f) { return cp_bf2f(cp_f2bf(f)); }

// Vectors of N storage elements, loaded and stored with one instruction when aligned.
template <typename T, int N> struct alignas(sizeof(T) * N > 16 ? 16 : sizeof(T) * N) cp_vec {
  T v[N];
};

// Warp shuffles for every compute type.
CP_DEV int cp_shfl_i32(int v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV bool cp_shfl_down(bool v, int off) { return cp_shfl_i32((int)v, off) != 0; }
CP_DEV cp_i8 cp_shfl_down(cp_i8 v, int off) { return (cp_i8)cp_shfl_i32((int)v, off); }
CP_DEV cp_u8 cp_shfl_down(cp_u8 v, int off) { return (cp_u8)cp_shfl_i32((int)v, off); }
CP_DEV cp_i16 cp_shfl_down(cp_i16 v, int off) { return (cp_i16)cp_shfl_i32((int)v, off); }
CP_DEV cp_u16 cp_shfl_down(cp_u16 v, int off) { return (cp_u16)cp_shfl_i32((int)v, off); }
CP_DEV cp_i32 cp_shfl_down(cp_i32 v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV cp_u32 cp_shfl_down(cp_u32 v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV cp_i64 cp_shfl_down(cp_i64 v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV cp_u64 cp_shfl_down(cp_u64 v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV float cp_shfl_down(float v, int off) { return CP_SHFL_DOWN(v, off); }
CP_DEV double cp_shfl_down(double v, int off) { return CP_SHFL_DOWN(v, off); }

// ---- complex64 / complex128 ----
// NumPy's layout (real, imaginary), aligned to the element's size. Plain aggregates (no
// constructors), so they can live in __shared__ memory, in the argument struct and in cp_vec.
// Semantics follow NumPy 2.x on x86-64 (the goldens' machine): `*` is its SIMD loop (each part
// one fused multiply-add), `/` its Smith division, comparisons its lexicographic CLT/CLE/...
// macros with their NaN rules, `**` its nc_pow; the functions follow C99 Annex G (glibc, which
// NumPy calls) including every special value. Kernels are compiled without FMA contraction, so
// the explicit fma() calls below are the only fused steps.
template <typename T> struct alignas(2 * sizeof(T)) cp_cx { T re, im; };
typedef cp_cx<float> cp_c64;
typedef cp_cx<double> cp_c128;
CP_DEV cp_c64 cp_cmake(float re, float im) { cp_c64 z; z.re = re; z.im = im; return z; }
CP_DEV cp_c128 cp_cmake(double re, double im) { cp_c128 z; z.re = re; z.im = im; return z; }

// Real functions overloaded on float/double, for the templates below.
#define CP_R1(NAME, FF, FD) \
  CP_DEV float NAME(float x) { return FF(x); } \
  CP_DEV double NAME(double x) { return FD(x); }
#define CP_R2(NAME, FF, FD) \
  CP_DEV float NAME(float x, float y) { return FF(x, y); } \
  CP_DEV double NAME(double x, double y) { return FD(x, y); }
CP_R1(cp_r_abs, fabsf, fabs)
CP_R1(cp_r_sqrt, sqrtf, sqrt)
CP_R1(cp_r_exp, expf, exp)
CP_R1(cp_r_log, logf, log)
CP_R1(cp_r_log1p, log1pf, log1p)
CP_R1(cp_r_sin, sinf, sin)
CP_R1(cp_r_cos, cosf, cos)
CP_R1(cp_r_tan, tanf, tan)
CP_R1(cp_r_sinh, sinhf, sinh)
CP_R1(cp_r_cosh, coshf, cosh)
CP_R1(cp_r_tanh, tanhf, tanh)
CP_R2(cp_r_atan2, atan2f, atan2)
CP_R2(cp_r_hypot_lib, hypotf, hypot)
CP_R2(cp_r_copysign, copysignf, copysign)
CP_DEV float cp_r_fma(float x, float y, float z) { return fmaf(x, y, z); }
CP_DEV double cp_r_fma(double x, double y, double z) { return fma(x, y, z); }
CP_DEV float cp_r_inf(float) { return __uint_as_float(0x7f800000u); }
CP_DEV double cp_r_inf(double) { return __longlong_as_double(0x7ff0000000000000ll); }
CP_DEV float cp_r_nan(float) { return __uint_as_float(0x7fc00000u); }
CP_DEV double cp_r_nan(double) { return __longlong_as_double(0x7ff8000000000000ll); }
// Per-precision thresholds: where cosh/sinh are exp(|x|)/2 to working precision, where
// exp(x) overflows (scaled below), where tanh(x) is 1 to working precision.
CP_DEV float cp_r_big(float) { return 9.0f; }
CP_DEV double cp_r_big(double) { return 20.0; }
CP_DEV float cp_r_ovf(float) { return 88.0f; }
CP_DEV double cp_r_ovf(double) { return 709.0; }
CP_DEV float cp_r_tanh1(float) { return 11.0f; }
CP_DEV double cp_r_tanh1(double) { return 22.0; }
#undef CP_R1
#undef CP_R2
template <typename T> CP_DEV bool cp_r_isnan(T x) { return x != x; }
template <typename T> CP_DEV bool cp_r_isinf(T x) { return cp_r_abs(x) == cp_r_inf(x); }
template <typename T> CP_DEV bool cp_r_isfinite(T x) { return cp_r_abs(x) < cp_r_inf(x); }
template <typename T> CP_DEV bool cp_r_signbit(T x) { return cp_r_copysign((T)1, x) < (T)0; }
// 2^k for a normal exponent k.
CP_DEV float cp_r_pow2(float, int k) { return __uint_as_float((cp_u32)(k + 127) << 23); }
CP_DEV double cp_r_pow2(double, int k) {
  return __longlong_as_double((cp_i64)(k + 1023) << 52);
}
// Exponent of the power-of-two scale cp_r_hypot applies to m = max(|x|, |y|): down when m*m
// would overflow, up when the squares would lose bits to underflow (float: m*2^100 of a
// subnormal m still squares to a normal number), none in between.
CP_DEV int cp_r_hypot_k(float m) {
  return m > cp_r_pow2(m, 60) ? -70 : (m < cp_r_pow2(m, -60) ? 100 : 0);
}
CP_DEV int cp_r_hypot_k(double m) {
  return m > cp_r_pow2(m, 500) ? -600 : (m < cp_r_pow2(m, -500) ? 600 : 0);
}
// hypot(x, y) without overflow or underflow for finite operands, whatever the device
// library's hypot does at the extremes (CUDA's gave inf for hypot(1, 1.797e308)): operands
// whose squares would overflow or underflow are scaled by one power of two (exact) into the
// range where even sqrt(x*x + y*y) is safe, the library's hypot is taken there, and the
// result scaled back (exact, or one rounding to a subnormal, or to inf when the true result
// is past the largest finite value). In between, and for the values of a scale-invariant
// (correctly rounded) hypot such as glibc's, the result is the library's own. An infinite
// operand gives inf even beside a NaN (C99 Annex F).
template <typename T> CP_DEV T cp_r_hypot(T x, T y) {
  const T ax = cp_r_abs(x), ay = cp_r_abs(y);
  if (cp_r_isinf(ax) || cp_r_isinf(ay)) return cp_r_inf(x);
  if (cp_r_isnan(ax) || cp_r_isnan(ay)) return ax + ay;
  const T m = ax > ay ? ax : ay;
  const int k = cp_r_hypot_k(m);
  if (k == 0) return cp_r_hypot_lib(ax, ay);
  const T s = cp_r_pow2(m, k);
  return cp_r_hypot_lib(ax * s, ay * s) * cp_r_pow2(m, -k);
}

template <typename T> CP_DEV cp_cx<T> cp_cadd(cp_cx<T> a, cp_cx<T> b) {
  return cp_cmake(a.re + b.re, a.im + b.im);
}
template <typename T> CP_DEV cp_cx<T> cp_csub(cp_cx<T> a, cp_cx<T> b) {
  return cp_cmake(a.re - b.re, a.im - b.im);
}
template <typename T> CP_DEV cp_cx<T> cp_cneg(cp_cx<T> a) { return cp_cmake(-a.re, -a.im); }
template <typename T> CP_DEV cp_cx<T> cp_cconj(cp_cx<T> a) { return cp_cmake(a.re, -a.im); }
// NumPy's multiply loop (npyv_muladdsub): re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br).
template <typename T> CP_DEV cp_cx<T> cp_cmul(cp_cx<T> a, cp_cx<T> b) {
  return cp_cmake(cp_r_fma(a.re, b.re, -(a.im * b.im)), cp_r_fma(a.re, b.im, a.im * b.re));
}
// The unfused product of NumPy's nc_prod (used by power, as NumPy does).
template <typename T> CP_DEV cp_cx<T> cp_cmul_nf(cp_cx<T> a, cp_cx<T> b) {
  return cp_cmake(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// NumPy's divide loop (Smith's method; a zero divisor gives re/|0|, im/|0|).
template <typename T> CP_DEV cp_cx<T> cp_cdiv(cp_cx<T> a, cp_cx<T> b) {
  const T abr = cp_r_abs(b.re), abi = cp_r_abs(b.im);
  if (abr >= abi) {
    if (abr == (T)0 && abi == (T)0) return cp_cmake(a.re / abr, a.im / abi);
    const T rat = b.im / b.re;
    const T scl = (T)1 / (b.re + b.im * rat);
    return cp_cmake((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  const T rat = b.re / b.im;
  const T scl = (T)1 / (b.im + b.re * rat);
  return cp_cmake((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
// NumPy's CEQ/CNE/CLT/CLE (an ordered comparison of the real parts needs both imaginary
// parts to be non-NaN); greater is less with the operands swapped.
template <typename T> CP_DEV bool cp_ceq(cp_cx<T> a, cp_cx<T> b) {
  return a.re == b.re && a.im == b.im;
}
template <typename T> CP_DEV bool cp_cne(cp_cx<T> a, cp_cx<T> b) {
  return a.re != b.re || a.im != b.im;
}
template <typename T> CP_DEV bool cp_clt(cp_cx<T> a, cp_cx<T> b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <typename T> CP_DEV bool cp_cle(cp_cx<T> a, cp_cx<T> b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
template <typename T> CP_DEV bool cp_cnan(cp_cx<T> a) { return a.re != a.re || a.im != a.im; }
// maximum/minimum keep a NaN operand (the first if both); fmax/fmin the non-NaN one.
template <typename T> CP_DEV cp_cx<T> cp_cmax(cp_cx<T> a, cp_cx<T> b) {
  return (cp_cnan(a) || cp_cle(b, a)) ? a : b;
}
template <typename T> CP_DEV cp_cx<T> cp_cmin(cp_cx<T> a, cp_cx<T> b) {
  return (cp_cnan(a) || cp_cle(a, b)) ? a : b;
}
template <typename T> CP_DEV cp_cx<T> cp_cfmax(cp_cx<T> a, cp_cx<T> b) {
  return (cp_cnan(b) || cp_cle(b, a)) ? a : b;
}
template <typename T> CP_DEV cp_cx<T> cp_cfmin(cp_cx<T> a, cp_cx<T> b) {
  return (cp_cnan(b) || cp_cle(a, b)) ? a : b;
}
template <typename T> CP_DEV bool cp_cnonzero(cp_cx<T> a) { return a.re != (T)0 || a.im != (T)0; }
template <typename T> CP_DEV bool cp_cisinf(cp_cx<T> a) {
  return cp_r_isinf(a.re) || cp_r_isinf(a.im);
}
template <typename T> CP_DEV bool cp_cisfinite(cp_cx<T> a) {
  return cp_r_isfinite(a.re) && cp_r_isfinite(a.im);
}
// |z| (an infinite part wins over a NaN one, as C's hypot).
template <typename T> CP_DEV T cp_cabs(cp_cx<T> z) {
  if (cp_r_isinf(z.re) || cp_r_isinf(z.im)) return cp_r_inf(z.re);
  return cp_r_hypot(z.re, z.im);
}
template <typename T> CP_DEV cp_cx<T> cp_cexp(cp_cx<T> z) {
  const T x = z.re, y = z.im;
  if (y == (T)0) return cp_cmake(cp_r_exp(x), y);
  if (!cp_r_isfinite(y)) {
    if (x == -cp_r_inf(x)) return cp_cmake((T)0, (T)0);
    if (x == cp_r_inf(x)) return cp_cmake(x, y - y);
    return cp_cmake(y - y, y - y);
  }
  const T c = cp_r_cos(y), s = cp_r_sin(y);
  if (x > cp_r_ovf(x)) {
    // exp(x) overflows before exp(x) * cos(y) may: two half-size factors.
    const T e = cp_r_exp(x * (T)0.5);
    return cp_cmake((e * c) * e, (e * s) * e);
  }
  const T e = cp_r_exp(x);
  return cp_cmake(e * c, e * s);
}
// log(|z|) with log1p near the unit circle (|z|^2 - 1 formed with exact products).
template <typename T> CP_DEV cp_cx<T> cp_clog(cp_cx<T> z) {
  const T x = z.re, y = z.im;
  const T im = cp_r_atan2(y, x);
  T ax = cp_r_abs(x), ay = cp_r_abs(y);
  if (cp_r_isinf(ax) || cp_r_isinf(ay)) return cp_cmake(cp_r_inf(x), im);
  if (cp_r_isnan(ax) || cp_r_isnan(ay)) return cp_cmake(cp_r_nan(x), im);
  if (ax < ay) { const T t = ax; ax = ay; ay = t; }
  if (ax == (T)0) return cp_cmake(-cp_r_inf(x), im);
  if (ax >= (T)0.5 && ax <= (T)1.5 && ay < (T)1) {
    const T s = ax * ax, es = cp_r_fma(ax, ax, -s);
    const T p = ay * ay, ep = cp_r_fma(ay, ay, -p);
    const T r2 = s + p;
    if (r2 > (T)0.5 && r2 < (T)2) {
      const T t = ((s - (T)1) + p) + (es + ep);
      return cp_cmake((T)0.5 * cp_r_log1p(t), im);
    }
  }
  return cp_cmake(cp_r_log(cp_r_hypot(ax, ay)), im);
}
template <typename T> CP_DEV cp_cx<T> cp_csqrt(cp_cx<T> z) {
  T x = z.re, y = z.im;
  const T inf = cp_r_inf(x);
  if (x == (T)0 && y == (T)0) return cp_cmake((T)0, y);
  if (cp_r_isinf(y)) return cp_cmake(inf, y);
  if (cp_r_isnan(x)) return cp_cmake(x, (y - y) / (y - y));
  if (cp_r_isinf(x)) {
    if (cp_r_signbit(x)) return cp_cmake(cp_r_abs(y - y), cp_r_copysign(inf, y));
    return cp_cmake(x, cp_r_copysign(y - y, y));
  }
  if (cp_r_isnan(y)) return cp_cmake(y, y);
  // Scale huge and tiny arguments so |x| + |z| neither overflows nor loses bits.
  const T big = sizeof(T) == 4 ? (T)1e37 : (T)1e307;
  const T tiny = sizeof(T) == 4 ? (T)1e-37 : (T)1e-307;
  T scale = (T)1;
  if (cp_r_abs(x) >= big || cp_r_abs(y) >= big) {
    x *= (T)0.25;
    y *= (T)0.25;
    scale = (T)2;
  } else if (cp_r_abs(x) < tiny && cp_r_abs(y) < tiny) {
    const T up = sizeof(T) == 4 ? (T)16777216.0 : (T)18014398509481984.0;  // 2^24, 2^54
    x *= up;
    y *= up;
    scale = sizeof(T) == 4 ? (T)2.44140625e-4 : (T)7.450580596923828125e-9;  // 2^-12, 2^-27
  }
  if (x >= (T)0) {
    const T t = cp_r_sqrt((x + cp_r_hypot(x, y)) * (T)0.5);
    return cp_cmake(t * scale, (y / (t + t)) * scale);
  }
  const T t = cp_r_sqrt((-x + cp_r_hypot(x, y)) * (T)0.5);
  return cp_cmake((cp_r_abs(y) / (t + t)) * scale, cp_r_copysign(t, y) * scale);
}
template <typename T> CP_DEV cp_cx<T> cp_csinh(cp_cx<T> z) {
  const T x = z.re, y = z.im;
  if (cp_r_isfinite(x) && cp_r_isfinite(y)) {
    if (y == (T)0) return cp_cmake(cp_r_sinh(x), y);
    const T c = cp_r_cos(y), s = cp_r_sin(y);
    const T ax = cp_r_abs(x);
    if (ax < cp_r_big(x)) return cp_cmake(cp_r_sinh(x) * c, cp_r_cosh(x) * s);
    if (ax < cp_r_ovf(x)) {
      const T h = cp_r_exp(ax) * (T)0.5;
      return cp_cmake(cp_r_copysign(h, x) * c, h * s);
    }
    const T e = cp_r_exp(ax * (T)0.5), h = e * (T)0.5;
    return cp_cmake((cp_r_copysign(h, x) * c) * e, (h * s) * e);
  }
  if (x == (T)0) return cp_cmake(x, y - y);
  if (y == (T)0) return cp_cmake(x, y);
  if (cp_r_isfinite(x)) return cp_cmake(y - y, x * (y - y));
  if (cp_r_isinf(x)) {
    if (!cp_r_isfinite(y)) return cp_cmake(x * x, x * (y - y));
    return cp_cmake(x * cp_r_cos(y), cp_r_inf(x) * cp_r_sin(y));
  }
  return cp_cmake((x * x) * (y - y), (x + x) * (y - y));
}
template <typename T> CP_DEV cp_cx<T> cp_ccosh(cp_cx<T> z) {
  const T x = z.re, y = z.im;
  if (cp_r_isfinite(x) && cp_r_isfinite(y)) {
    if (y == (T)0) return cp_cmake(cp_r_cosh(x), x * y);
    const T c = cp_r_cos(y), s = cp_r_sin(y);
    const T ax = cp_r_abs(x);
    if (ax < cp_r_big(x)) return cp_cmake(cp_r_cosh(x) * c, cp_r_sinh(x) * s);
    if (ax < cp_r_ovf(x)) {
      const T h = cp_r_exp(ax) * (T)0.5;
      return cp_cmake(h * c, cp_r_copysign(h, x) * s);
    }
    const T e = cp_r_exp(ax * (T)0.5), h = e * (T)0.5;
    return cp_cmake((h * c) * e, (cp_r_copysign(h, x) * s) * e);
  }
  if (x == (T)0) return cp_cmake(y - y, (T)0);
  if (y == (T)0) return cp_cmake(x * x, cp_r_isnan(x) ? y : cp_r_copysign((T)0, x) * y);
  if (cp_r_isfinite(x)) return cp_cmake(y - y, x * (y - y));
  if (cp_r_isinf(x)) {
    if (!cp_r_isfinite(y)) return cp_cmake(x * x, x * (y - y));
    return cp_cmake((x * x) * cp_r_cos(y), x * cp_r_sin(y));
  }
  return cp_cmake((x * x) * (y - y), (x + x) * (y - y));
}
// Kahan's tanh (as FreeBSD's ctanh).
template <typename T> CP_DEV cp_cx<T> cp_ctanh(cp_cx<T> z) {
  const T x = z.re, y = z.im;
  if (!cp_r_isfinite(x)) {
    if (cp_r_isnan(x)) return cp_cmake(x, y == (T)0 ? y : x * y);
    return cp_cmake(cp_r_copysign((T)1, x),
                    cp_r_copysign((T)0, cp_r_isinf(y) ? y : cp_r_sin(y) * cp_r_cos(y)));
  }
  if (!cp_r_isfinite(y)) return cp_cmake(x != (T)0 ? y - y : x, y - y);
  if (cp_r_abs(x) >= cp_r_tanh1(x)) {
    const T e = cp_r_exp(-cp_r_abs(x));
    return cp_cmake(cp_r_copysign((T)1, x), (T)4 * cp_r_sin(y) * cp_r_cos(y) * e * e);
  }
  const T t = cp_r_tan(y);
  const T beta = (T)1 + t * t;
  const T s = cp_r_sinh(x);
  const T rho = cp_r_sqrt((T)1 + s * s);
  const T den = (T)1 + beta * s * s;
  return cp_cmake((beta * rho * s) / den, t / den);
}
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
// (Where C99 leaves a sign unspecified, the signs are glibc's.)
template <typename T> CP_DEV cp_cx<T> cp_csin(cp_cx<T> z) {
  if (!cp_r_isfinite(z.re) && cp_r_isinf(z.im)) return cp_cmake(z.re - z.re, cp_r_inf(z.re));
  const cp_cx<T> w = cp_csinh(cp_cmake(-z.im, z.re));
  return cp_cmake(w.im, -w.re);
}
template <typename T> CP_DEV cp_cx<T> cp_ccos(cp_cx<T> z) { return cp_ccosh(cp_cmake(-z.im, z.re)); }
template <typename T> CP_DEV cp_cx<T> cp_ctan(cp_cx<T> z) {
  const cp_cx<T> w = cp_ctanh(cp_cmake(-z.im, z.re));
  return cp_cmake(w.im, -w.re);
}
// NumPy's npy_cpow: z**0 = 1; 0**w = 0 when re(w) > 0, else NaN; small integer exponents by
// repeated (unfused) products, a negative one then 1/...; otherwise exp(w log z) as C's cpow.
template <typename T> CP_DEV cp_cx<T> cp_cpow(cp_cx<T> a, cp_cx<T> b) {
  const T br = b.re, bi = b.im;
  if (br == (T)0 && bi == (T)0) return cp_cmake((T)1, (T)0);
  if (a.re == (T)0 && a.im == (T)0) {
    if (br > (T)0) return cp_cmake((T)0, (T)0);
    return cp_cmake(cp_r_nan(br), cp_r_nan(br));
  }
  if (bi == (T)0 && cp_r_abs(br) < (T)100 && br == (T)(int)br) {
    int n = (int)br;
    if (n == 1) return a;
    if (n == 2) return cp_cmul_nf(a, a);
    if (n == 3) return cp_cmul_nf(a, cp_cmul_nf(a, a));
    if (n < 0) n = -n;
    cp_cx<T> aa = cp_cmake((T)1, (T)0), p = a;
    int mask = 1;
    while (true) {
      if (n & mask) aa = cp_cmul_nf(aa, p);
      mask <<= 1;
      if (n < mask) break;
      p = cp_cmul_nf(p, p);
    }
    if (br < (T)0) aa = cp_cdiv(cp_cmake((T)1, (T)0), aa);
    return aa;
  }
  return cp_cexp(cp_cmul_nf(b, cp_clog(a)));
}
CP_DEV cp_c64 cp_to_c64(cp_c128 z) { return cp_cmake((float)z.re, (float)z.im); }
CP_DEV cp_c128 cp_to_c128(cp_c64 z) { return cp_cmake((double)z.re, (double)z.im); }
// Warp shuffles of complex values: the two parts separately.
CP_DEV cp_c64 cp_shfl_down(cp_c64 v, int off) {
  return cp_cmake(cp_shfl_down(v.re, off), cp_shfl_down(v.im, off));
}
CP_DEV cp_c128 cp_shfl_down(cp_c128 v, int off) {
  return cp_cmake(cp_shfl_down(v.re, off), cp_shfl_down(v.im, off));
}
// ---- end of prelude ----
