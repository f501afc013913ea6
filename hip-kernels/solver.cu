// cupy-rs hand-written kernels: the small helpers around the dense solver libraries (cuSOLVER on
// CUDA, rocSOLVER on HIP; the plans are core/src/gpu/solver/): the determinant and slogdet from
// the LU factors (one thread per matrix), identity and triangle fills, QR's R and Q set-up, and
// the non-finite input checks of eigh/svd.
//
// Every entry is `cupy_solver_<family>_<dtype>` (dtype: float32, float64, complex64,
// complex128; `cupy_solver_nf_info` has none) and takes one `SolverArgs` by value: up to eight
// 64-bit slots (device addresses and counts), in the order each kernel documents. Launches use
// HK_BLOCK threads per block over a 1-D grid (see core/src/gpu/solver/kernels.rs).
#include "portability.h"

struct SolverArgs {
  hk_u64 s[8];
};

struct hk_solver_c32 {
  float x, y;
};
struct hk_solver_c64 {
  double x, y;
};
typedef hk_solver_c32 sc32;
typedef hk_solver_c64 sc64;

// Explicit specializations take no storage class (HK_DEV is `static`).
#define SK_SPEC __device__ __forceinline__

// +inf as a double (no <math.h> constants under NVRTC/hipRTC).
HK_DEV double sk_inf() { return __longlong_as_double(0x7ff0000000000000LL); }

HK_DEV float sk_mul(float a, float b) { return a * b; }
HK_DEV double sk_mul(double a, double b) { return a * b; }
HK_DEV sc32 sk_mul(sc32 a, sc32 b) {
  sc32 r;
  r.x = a.x * b.x - a.y * b.y;
  r.y = a.x * b.y + a.y * b.x;
  return r;
}
HK_DEV sc64 sk_mul(sc64 a, sc64 b) {
  sc64 r;
  r.x = a.x * b.x - a.y * b.y;
  r.y = a.x * b.y + a.y * b.x;
  return r;
}
HK_DEV double sk_abs(float a) { return fabs((double)a); }
HK_DEV double sk_abs(double a) { return fabs(a); }
HK_DEV double sk_abs(sc32 a) { return (double)hypotf(a.x, a.y); }
HK_DEV double sk_abs(sc64 a) { return hypot(a.x, a.y); }
HK_DEV float sk_unit(float a, double ad) { return a / (float)ad; }
HK_DEV double sk_unit(double a, double ad) { return a / ad; }
HK_DEV sc32 sk_unit(sc32 a, double ad) {
  sc32 r;
  r.x = a.x / (float)ad;
  r.y = a.y / (float)ad;
  return r;
}
HK_DEV sc64 sk_unit(sc64 a, double ad) {
  sc64 r;
  r.x = a.x / ad;
  r.y = a.y / ad;
  return r;
}
// Finite: |x| < inf (false for NaN), without the library's isfinite.
HK_DEV bool sk_fin(float a) { return fabs((double)a) < sk_inf(); }
HK_DEV bool sk_fin(double a) { return fabs(a) < sk_inf(); }
HK_DEV bool sk_fin(sc32 a) { return sk_fin(a.x) && sk_fin(a.y); }
HK_DEV bool sk_fin(sc64 a) { return sk_fin(a.x) && sk_fin(a.y); }
template <class T>
HK_DEV T sk_re(double v);
template <>
SK_SPEC float sk_re<float>(double v) { return (float)v; }
template <>
SK_SPEC double sk_re<double>(double v) { return v; }
template <>
SK_SPEC sc32 sk_re<sc32>(double v) {
  sc32 r;
  r.x = (float)v;
  r.y = 0.0f;
  return r;
}
template <>
SK_SPEC sc64 sk_re<sc64>(double v) {
  sc64 r;
  r.x = v;
  r.y = 0.0;
  return r;
}
template <class T>
HK_DEV T sk_nan();
template <>
SK_SPEC float sk_nan<float>() { return __int_as_float(0x7fc00000); }
template <>
SK_SPEC double sk_nan<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <>
SK_SPEC sc32 sk_nan<sc32>() {
  sc32 r;
  r.x = sk_nan<float>();
  r.y = r.x;
  return r;
}
template <>
SK_SPEC sc64 sk_nan<sc64>() {
  sc64 r;
  r.x = sk_nan<double>();
  r.y = r.x;
  return r;
}

HK_DEV hk_i64 sk_gid() { return (hk_i64)blockIdx.x * (hk_i64)blockDim.x + (hk_i64)threadIdx.x; }

// Pivot i (1-based, LAPACK's) of a matrix's pivot row: 64-bit (cuSOLVER's 64-bit API) or 32-bit
// (rocSOLVER's rocblas_int) entries.
HK_DEV hk_i64 sk_piv(const void* p, hk_i64 i, hk_i64 piv32) {
  return piv32 ? (hk_i64)((const hk_i32*)p)[i] : ((const hk_i64*)p)[i];
}

// det = (-1)^(row swaps) * prod(diag(U)) of the column-major LU factors.
// Slots: n, batch, lu, ipiv, out, info, piv32.
template <class T>
HK_DEV void sk_det(const SolverArgs& a) {
  hk_i64 n = (hk_i64)a.s[0], batch = (hk_i64)a.s[1], piv32 = (hk_i64)a.s[6];
  hk_i64 b = sk_gid();
  if (b >= batch) return;
  const T* m = (const T*)a.s[2] + b * n * n;
  const char* p = (const char*)a.s[3] + b * n * (piv32 ? 4 : 8);
  bool neg = false;
  T d = sk_re<T>(1.0);
  for (hk_i64 i = 0; i < n; ++i)
    if (sk_piv(p, i, piv32) != i + 1) neg = !neg;
  if (neg) d = sk_re<T>(-1.0);
  for (hk_i64 i = 0; i < n; ++i) d = sk_mul(d, m[i * (n + 1)]);
  ((T*)a.s[4])[b] = d;
  ((int*)a.s[5])[b] = 0;
}

// slogdet: sign = (-1)^swaps * prod(u / |u|), logabsdet = sum(log |u|) (double), (0, -inf)
// once a diagonal element is zero. Slots: n, batch, lu, ipiv, sign, logabs, info, piv32.
template <class T, class R>
HK_DEV void sk_slogdet(const SolverArgs& a) {
  hk_i64 n = (hk_i64)a.s[0], batch = (hk_i64)a.s[1], piv32 = (hk_i64)a.s[7];
  hk_i64 b = sk_gid();
  if (b >= batch) return;
  const T* m = (const T*)a.s[2] + b * n * n;
  const char* p = (const char*)a.s[3] + b * n * (piv32 ? 4 : 8);
  bool neg = false;
  for (hk_i64 i = 0; i < n; ++i)
    if (sk_piv(p, i, piv32) != i + 1) neg = !neg;
  T s = sk_re<T>(neg ? -1.0 : 1.0);
  double la = 0.0;
  const double ninf = -sk_inf();
  for (hk_i64 i = 0; i < n; ++i) {
    T d = m[i * (n + 1)];
    double ad = sk_abs(d);
    if (ad == 0.0) {
      s = sk_re<T>(0.0);
      la = ninf;
    } else if (la != ninf) {
      s = sk_mul(s, sk_unit(d, ad));
      la += log(ad);
    }
  }
  ((T*)a.s[4])[b] = s;
  ((R*)a.s[5])[b] = (R)la;
  ((int*)a.s[6])[b] = 0;
}

// A stack of [rows, cols] identity matrices. Slots: total (batch * rows * cols), rows, cols, out.
template <class T>
HK_DEV void sk_eye(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], rows = (hk_i64)a.s[1], cols = (hk_i64)a.s[2];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  hk_i64 e = i % (rows * cols);
  ((T*)a.s[3])[i] = sk_re<T>(e / cols == e % cols ? 1.0 : 0.0);
}

// Zeros below (upper != 0) or above (upper == 0) the diagonal of row-major [n, n] matrices.
// Slots: total, n, upper, out.
template <class T>
HK_DEV void sk_tri_zero(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], n = (hk_i64)a.s[1], upper = (hk_i64)a.s[2];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  hk_i64 e = i % (n * n), r = e / n, c = e % n;
  if (upper ? r > c : r < c) ((T*)a.s[3])[i] = sk_re<T>(0.0);
}

// flags[m] = 1 when matrix m (per elements each) holds a NaN or an infinity (flags zeroed
// before). Slots: total, per, a, flags.
template <class T>
HK_DEV void sk_nf_flag(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], per = (hk_i64)a.s[1];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  if (!sk_fin(((const T*)a.s[2])[i])) ((int*)a.s[3])[i / per] = 1;
}

// Zeros every flagged matrix (so the solver sees a finite input). Slots: total, per, flags, a.
template <class T>
HK_DEV void sk_nf_zero(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], per = (hk_i64)a.s[1];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  if (((const int*)a.s[2])[i / per]) ((T*)a.s[3])[i] = sk_re<T>(0.0);
}

// NaN in every flagged matrix of an output. Slots: total, per, flags, a.
template <class T>
HK_DEV void sk_nf_nan(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], per = (hk_i64)a.s[1];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  if (((const int*)a.s[2])[i / per]) ((T*)a.s[3])[i] = sk_nan<T>();
}

// R of geqrf (column-major m x n, batch stride m * n) as row-major [rr, n].
// Slots: total, m, n, rr, work, r.
template <class T>
HK_DEV void sk_qr_r(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], m = (hk_i64)a.s[1], n = (hk_i64)a.s[2], rr = (hk_i64)a.s[3];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  const T* work = (const T*)a.s[4];
  hk_i64 b = i / (rr * n), e = i % (rr * n), row = e / n, col = e % n;
  ((T*)a.s[5])[i] = (row <= col && row < m) ? work[b * m * n + row + col * m] : sk_re<T>(0.0);
}

// orgqr's input: column-major m x qc with the k reflectors of geqrf, identity columns after.
// Slots: total, m, n, qc, k, work, q.
template <class T>
HK_DEV void sk_qr_q(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], m = (hk_i64)a.s[1], n = (hk_i64)a.s[2], qc = (hk_i64)a.s[3],
         k = (hk_i64)a.s[4];
  hk_i64 i = sk_gid();
  if (i >= total) return;
  const T* work = (const T*)a.s[5];
  hk_i64 b = i / (m * qc), e = i % (m * qc), row = e % m, col = e / m;
  ((T*)a.s[6])[i] = col < k ? work[b * m * n + row + col * m] : sk_re<T>(row == col ? 1.0 : 0.0);
}

#define SK_ENTRIES(S, T, R)                                                                   \
  extern "C" __global__ void cupy_solver_det_##S(SolverArgs a) { sk_det<T>(a); }             \
  extern "C" __global__ void cupy_solver_slogdet_##S(SolverArgs a) { sk_slogdet<T, R>(a); }  \
  extern "C" __global__ void cupy_solver_eye_##S(SolverArgs a) { sk_eye<T>(a); }             \
  extern "C" __global__ void cupy_solver_tri_zero_##S(SolverArgs a) { sk_tri_zero<T>(a); }   \
  extern "C" __global__ void cupy_solver_nf_flag_##S(SolverArgs a) { sk_nf_flag<T>(a); }     \
  extern "C" __global__ void cupy_solver_nf_zero_##S(SolverArgs a) { sk_nf_zero<T>(a); }     \
  extern "C" __global__ void cupy_solver_nf_nan_##S(SolverArgs a) { sk_nf_nan<T>(a); }       \
  extern "C" __global__ void cupy_solver_qr_r_##S(SolverArgs a) { sk_qr_r<T>(a); }           \
  extern "C" __global__ void cupy_solver_qr_q_##S(SolverArgs a) { sk_qr_q<T>(a); }

SK_ENTRIES(float32, float, float)
SK_ENTRIES(float64, double, double)
SK_ENTRIES(complex64, sc32, float)
SK_ENTRIES(complex128, sc64, double)

// geev's right eigenvectors of a real matrix as complex columns: VR (column-major n x n,
// batch stride n * n, real) holds a conjugate pair w[j], w[j + 1] (w[j].y > 0) as
// VR[:, j] +- i VR[:, j + 1] (LAPACK's packing); out is row-major [n, n] complex with v[:, j]
// in column j. Slots: total, n, w (complex), vr, out.
template <class T, class C>
HK_DEV void sk_geev_vr(const SolverArgs& a) {
  hk_i64 total = (hk_i64)a.s[0], n = (hk_i64)a.s[1];
  hk_i64 t = sk_gid();
  if (t >= total) return;
  const C* w = (const C*)a.s[2];
  const T* vr = (const T*)a.s[3];
  hk_i64 b = t / (n * n), e = t % (n * n), i = e / n, j = e % n;
  const T* m = vr + b * n * n;
  T im = w[b * n + j].y;
  C r;
  if (im > (T)0) {
    r.x = m[j * n + i];
    r.y = m[(j + 1) * n + i];
  } else if (im < (T)0) {
    r.x = m[(j - 1) * n + i];
    r.y = -m[j * n + i];
  } else {
    r.x = m[j * n + i];
    r.y = (T)0;
  }
  ((C*)a.s[4])[t] = r;
}
extern "C" __global__ void cupy_solver_geev_vr_float32(SolverArgs a) { sk_geev_vr<float, sc32>(a); }
extern "C" __global__ void cupy_solver_geev_vr_float64(SolverArgs a) { sk_geev_vr<double, sc64>(a); }

// info[m] = value for every flagged matrix. Slots: batch, flags, info, value.
extern "C" __global__ void cupy_solver_nf_info(SolverArgs a) {
  hk_i64 batch = (hk_i64)a.s[0];
  hk_i64 b = sk_gid();
  if (b >= batch) return;
  if (((const int*)a.s[1])[b]) ((int*)a.s[2])[b] = (int)(hk_i64)a.s[3];
}
