//! The small NVRTC kernels around cuSOLVER ([`crate::solver`]): the determinant and
//! `slogdet` from the LU factors (on the device, one thread per matrix), identity and
//! triangle fills, QR's `R` and `Q` set-up, and the non-finite input checks of `eigh`/`svd`.
//! One module holds every entry for the four dtypes (`_f32`, `_f64`, `_c64`, `_c128`); each
//! entry takes 64-bit arguments only (pointers and `long long`s), so the launch passes one
//! `u64` slot per argument.

use crate::CudaBackend;
use cudarc::driver::result;
use cupy_core::{DType, Error, Result};
use std::ffi::c_void;

/// The CUDA C++ source of the module.
pub(crate) const SOURCE: &str = r#"
struct c32 { float x, y; };
struct c64 { double x, y; };
typedef long long i64;

__device__ inline float mul_(float a, float b) { return a * b; }
__device__ inline double mul_(double a, double b) { return a * b; }
__device__ inline c32 mul_(c32 a, c32 b) { c32 r; r.x = a.x * b.x - a.y * b.y; r.y = a.x * b.y + a.y * b.x; return r; }
__device__ inline c64 mul_(c64 a, c64 b) { c64 r; r.x = a.x * b.x - a.y * b.y; r.y = a.x * b.y + a.y * b.x; return r; }
__device__ inline double abs_(float a) { return fabs((double)a); }
__device__ inline double abs_(double a) { return fabs(a); }
__device__ inline double abs_(c32 a) { return (double)hypotf(a.x, a.y); }
__device__ inline double abs_(c64 a) { return hypot(a.x, a.y); }
__device__ inline float unit_(float a, double ad) { return a / (float)ad; }
__device__ inline double unit_(double a, double ad) { return a / ad; }
__device__ inline c32 unit_(c32 a, double ad) { c32 r; r.x = a.x / (float)ad; r.y = a.y / (float)ad; return r; }
__device__ inline c64 unit_(c64 a, double ad) { c64 r; r.x = a.x / ad; r.y = a.y / ad; return r; }
__device__ inline bool fin_(float a) { return isfinite(a); }
__device__ inline bool fin_(double a) { return isfinite(a); }
__device__ inline bool fin_(c32 a) { return isfinite(a.x) && isfinite(a.y); }
__device__ inline bool fin_(c64 a) { return isfinite(a.x) && isfinite(a.y); }
template <class T> __device__ inline T re_(double v);
template <> __device__ inline float re_<float>(double v) { return (float)v; }
template <> __device__ inline double re_<double>(double v) { return v; }
template <> __device__ inline c32 re_<c32>(double v) { c32 r; r.x = (float)v; r.y = 0.0f; return r; }
template <> __device__ inline c64 re_<c64>(double v) { c64 r; r.x = v; r.y = 0.0; return r; }
template <class T> __device__ inline T nan_();
template <> __device__ inline float nan_<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ inline double nan_<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <> __device__ inline c32 nan_<c32>() { c32 r; r.x = nan_<float>(); r.y = r.x; return r; }
template <> __device__ inline c64 nan_<c64>() { c64 r; r.x = nan_<double>(); r.y = r.x; return r; }

__device__ inline i64 gid() { return (i64)blockIdx.x * (i64)blockDim.x + (i64)threadIdx.x; }

/* det = (-1)^(row swaps) * prod(diag(U)) of the column-major LU factors. */
template <class T> __device__ void det_k(i64 n, i64 batch, const T* lu, const i64* ipiv, T* out, int* info) {
    i64 b = gid();
    if (b >= batch) return;
    const T* a = lu + b * n * n;
    const i64* p = ipiv + b * n;
    bool neg = false;
    T d = re_<T>(1.0);
    for (i64 i = 0; i < n; ++i) if (p[i] != i + 1) neg = !neg;
    if (neg) d = re_<T>(-1.0);
    for (i64 i = 0; i < n; ++i) d = mul_(d, a[i * (n + 1)]);
    out[b] = d;
    info[b] = 0;
}

/* slogdet: sign = (-1)^swaps * prod(u / |u|), logabsdet = sum(log |u|) (double), (0, -inf)
   once a diagonal element is zero. */
template <class T, class R> __device__ void slogdet_k(i64 n, i64 batch, const T* lu, const i64* ipiv, T* sign, R* logabs, int* info) {
    i64 b = gid();
    if (b >= batch) return;
    const T* a = lu + b * n * n;
    const i64* p = ipiv + b * n;
    bool neg = false;
    for (i64 i = 0; i < n; ++i) if (p[i] != i + 1) neg = !neg;
    T s = re_<T>(neg ? -1.0 : 1.0);
    double la = 0.0;
    const double ninf = -__longlong_as_double(0x7ff0000000000000LL);
    for (i64 i = 0; i < n; ++i) {
        T d = a[i * (n + 1)];
        double ad = abs_(d);
        if (ad == 0.0) { s = re_<T>(0.0); la = ninf; }
        else if (la != ninf) { s = mul_(s, unit_(d, ad)); la += log(ad); }
    }
    sign[b] = s;
    logabs[b] = (R)la;
    info[b] = 0;
}

/* A stack of [rows, cols] identity matrices (total = batch * rows * cols). */
template <class T> __device__ void eye_k(i64 total, i64 rows, i64 cols, T* out) {
    i64 i = gid();
    if (i >= total) return;
    i64 e = i % (rows * cols);
    out[i] = re_<T>(e / cols == e % cols ? 1.0 : 0.0);
}

/* Zeros below (upper != 0) or above (upper == 0) the diagonal of row-major [n, n] matrices. */
template <class T> __device__ void tri_zero_k(i64 total, i64 n, i64 upper, T* out) {
    i64 i = gid();
    if (i >= total) return;
    i64 e = i % (n * n), r = e / n, c = e % n;
    if (upper ? r > c : r < c) out[i] = re_<T>(0.0);
}

/* flags[m] = 1 when matrix m (per elements each) holds a NaN or an infinity (flags zeroed). */
template <class T> __device__ void nf_flag_k(i64 total, i64 per, const T* a, int* flags) {
    i64 i = gid();
    if (i >= total) return;
    if (!fin_(a[i])) flags[i / per] = 1;
}

/* Zeros every flagged matrix (so the solver sees a finite input). */
template <class T> __device__ void nf_zero_k(i64 total, i64 per, const int* flags, T* a) {
    i64 i = gid();
    if (i >= total) return;
    if (flags[i / per]) a[i] = re_<T>(0.0);
}

/* NaN in every flagged matrix of an output. */
template <class T> __device__ void nf_nan_k(i64 total, i64 per, const int* flags, T* a) {
    i64 i = gid();
    if (i >= total) return;
    if (flags[i / per]) a[i] = nan_<T>();
}

/* R of geqrf (column-major m x n, batch stride m * n) as row-major [rr, n]. */
template <class T> __device__ void qr_r_k(i64 total, i64 m, i64 n, i64 rr, const T* work, T* r) {
    i64 i = gid();
    if (i >= total) return;
    i64 b = i / (rr * n), e = i % (rr * n), row = e / n, col = e % n;
    r[i] = (row <= col && row < m) ? work[b * m * n + row + col * m] : re_<T>(0.0);
}

/* orgqr's input: column-major m x qc with the k reflectors of geqrf, identity columns after. */
template <class T> __device__ void qr_q_k(i64 total, i64 m, i64 n, i64 qc, i64 k, const T* work, T* q) {
    i64 i = gid();
    if (i >= total) return;
    i64 b = i / (m * qc), e = i % (m * qc), row = e % m, col = e / m;
    q[i] = col < k ? work[b * m * n + row + col * m] : re_<T>(row == col ? 1.0 : 0.0);
}

#define ENTRIES(S, T, R) \
extern "C" __global__ void det_##S(i64 n, i64 batch, const T* lu, const i64* ipiv, T* out, int* info) { det_k<T>(n, batch, lu, ipiv, out, info); } \
extern "C" __global__ void slogdet_##S(i64 n, i64 batch, const T* lu, const i64* ipiv, T* sign, R* logabs, int* info) { slogdet_k<T, R>(n, batch, lu, ipiv, sign, logabs, info); } \
extern "C" __global__ void eye_##S(i64 total, i64 rows, i64 cols, T* out) { eye_k<T>(total, rows, cols, out); } \
extern "C" __global__ void tri_zero_##S(i64 total, i64 n, i64 upper, T* out) { tri_zero_k<T>(total, n, upper, out); } \
extern "C" __global__ void nf_flag_##S(i64 total, i64 per, const T* a, int* flags) { nf_flag_k<T>(total, per, a, flags); } \
extern "C" __global__ void nf_zero_##S(i64 total, i64 per, const int* flags, T* a) { nf_zero_k<T>(total, per, flags, a); } \
extern "C" __global__ void nf_nan_##S(i64 total, i64 per, const int* flags, T* a) { nf_nan_k<T>(total, per, flags, a); } \
extern "C" __global__ void qr_r_##S(i64 total, i64 m, i64 n, i64 rr, const T* work, T* r) { qr_r_k<T>(total, m, n, rr, work, r); } \
extern "C" __global__ void qr_q_##S(i64 total, i64 m, i64 n, i64 qc, i64 k, const T* work, T* q) { qr_q_k<T>(total, m, n, qc, k, work, q); }

ENTRIES(f32, float, float)
ENTRIES(f64, double, double)
ENTRIES(c64, c32, float)
ENTRIES(c128, c64, double)

/* info[m] = value for every flagged matrix. */
extern "C" __global__ void nf_info(i64 batch, const int* flags, int* info, i64 value) {
    i64 b = gid();
    if (b >= batch) return;
    if (flags[b]) info[b] = (int)value;
}
"#;

/// The kernel families of [`SOURCE`] (each with the four dtype suffixes).
const FAMILIES: [&str; 9] = [
    "det", "slogdet", "eye", "tri_zero", "nf_flag", "nf_zero", "nf_nan", "qr_r", "qr_q",
];

/// The entry-name suffix of a dtype (`None` for dtypes the solver does not take).
pub(crate) fn suffix(dt: DType) -> Option<&'static str> {
    Some(match dt {
        DType::Float32 => "f32",
        DType::Float64 => "f64",
        DType::Complex64 => "c64",
        DType::Complex128 => "c128",
        _ => return None,
    })
}

/// Every entry point of [`SOURCE`].
pub(crate) fn entries() -> Vec<String> {
    let mut v: Vec<String> = FAMILIES
        .iter()
        .flat_map(|f| ["f32", "f64", "c64", "c128"].map(|s| format!("{f}_{s}")))
        .collect();
    v.push("nf_info".into());
    v
}

/// The entry `family` for dtype `dt` (`nf_info` has no suffix).
pub(crate) fn entry(family: &str, dt: DType) -> Result<String> {
    if family == "nf_info" {
        return Ok(family.into());
    }
    suffix(dt)
        .map(|s| format!("{family}_{s}"))
        .ok_or_else(|| Error::invalid(family, format!("no solver kernel for {dt}")))
}

/// Launches `name` over `threads` threads (256 per block) with 64-bit arguments `args`.
pub(crate) fn launch(be: &CudaBackend, name: &str, threads: usize, args: &[u64]) -> Result<()> {
    if threads == 0 {
        return Ok(());
    }
    let module = be.compiler.module("cusolver_helpers", SOURCE, &entries())?;
    let f = module
        .func(name)
        .ok_or_else(|| be.err(format!("missing solver kernel {name}")))?;
    let blocks = threads.div_ceil(256);
    if blocks > i32::MAX as usize {
        return Err(be.err(format!("{name}: {threads} threads exceed the grid limit")));
    }
    let mut slots: Vec<u64> = args.to_vec();
    let mut params: Vec<*mut c_void> = slots
        .iter_mut()
        .map(|s| s as *mut u64 as *mut c_void)
        .collect();
    // SAFETY: every entry of SOURCE takes exactly `args.len()` 64-bit arguments (the caller
    // passes live device pointers of the documented sizes); the stream is the backend's.
    unsafe {
        result::launch_kernel(
            f,
            (blocks as u32, 1, 1),
            (256, 1, 1),
            0,
            be.stream_ptr(),
            &mut params,
        )
    }
    .map_err(|e| be.err(format!("launching {name} failed: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_declares_every_entry() {
        let e = entries();
        assert_eq!(e.len(), FAMILIES.len() * 4 + 1);
        assert!(SOURCE.contains("void nf_info("));
        for f in FAMILIES {
            assert!(SOURCE.contains(&format!("void {f}_##S(")), "{f}");
        }
        assert_eq!(entry("det", DType::Complex64).unwrap(), "det_c64");
        assert_eq!(entry("nf_info", DType::Float32).unwrap(), "nf_info");
        assert!(entry("det", DType::Int32).is_err());
    }
}
