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
// ---- end of prelude ----
