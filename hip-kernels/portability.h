// cupy-rs hand-written kernels: the one portability header of the common CUDA/HIP subset.
//
// Compiled at run time by NVRTC (CUDA) and hipRTC (HIP) with no system headers. The backend
// prepends `#define HK_WARP_SIZE N` (32 on NVIDIA and RDNA, 64 on CDNA/GCN) and pastes this file
// in place of the `#include "portability.h"` line (see sources.rs), so the warp size is a
// compile-time constant on both vendors.
#ifndef HK_PORTABILITY_H
#define HK_PORTABILITY_H

#ifndef HK_WARP_SIZE
#error "HK_WARP_SIZE must be defined by the backend (32 or 64)"
#endif

#if defined(__HIP__) || defined(__HIPCC_RTC__) || defined(__HIP_PLATFORM_AMD__)
#define HK_HIP 1
// HIP's shuffles take no mask (ROCm 5.x); width = the whole wavefront.
#define HK_SHFL_UP(v, d) __shfl_up((v), (d), HK_WARP_SIZE)
#define HK_SHFL(v, l) __shfl((v), (l), HK_WARP_SIZE)
// A wavefront runs in lockstep: only the compiler must not move shared accesses across.
#define HK_SYNCWARP() __builtin_amdgcn_wave_barrier()
#else
#define HK_CUDA 1
#define HK_SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d), HK_WARP_SIZE)
#define HK_SHFL(v, l) __shfl_sync(0xffffffffu, (v), (l), HK_WARP_SIZE)
// Orders the shared-memory accesses of a warp's lanes (independent thread scheduling).
#define HK_SYNCWARP() __syncwarp()
#endif

#define HK_SYNC() __syncthreads()
#define HK_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#define HK_DEV static __device__ __forceinline__
// Launch bounds with a minimum of resident blocks per multiprocessor (a register cap) on CUDA;
// HIP's second argument means waves per execution unit, so it gets the thread bound alone.
#ifdef HK_HIP
#define HK_BOUNDS_MINB(n) __launch_bounds__(HK_BLOCK)
#else
#define HK_BOUNDS_MINB(n) __launch_bounds__(HK_BLOCK, n)
#endif

// Threads per block of every kernel in hip-kernels/ (the launches use exactly this).
#define HK_BLOCK 256
#define HK_MAX_WARPS (HK_BLOCK / HK_WARP_SIZE)

typedef signed char hk_i8;
typedef short hk_i16;
typedef int hk_i32;
typedef long long hk_i64;
typedef unsigned char hk_u8;
typedef unsigned short hk_u16;
typedef unsigned int hk_u32;
typedef unsigned long long hk_u64;

// Relaxed device-scope load and store of a word other blocks of the running kernel update
// (look-back status words): not cached in the SM/CU's L1, ordered only against accesses to the
// same word. On NVIDIA through PTX's `ld/st.relaxed.gpu` (a `volatile` access is system-scope,
// LDG.E.STRONG.SYS, measured slower in the sort's look-back on the H100).
#ifndef HK_RELAXED_ASM
#define HK_RELAXED_ASM 1
#endif
#if defined(HK_HIP) || defined(HK_EMU)
HK_DEV hk_u32 hk_load_relaxed(hk_u32* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
HK_DEV void hk_store_relaxed(hk_u32* p, hk_u32 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#elif HK_RELAXED_ASM
HK_DEV hk_u32 hk_load_relaxed(hk_u32* p) {
  hk_u32 v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
HK_DEV void hk_store_relaxed(hk_u32* p, hk_u32 v) { asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v)); }
#else
HK_DEV hk_u32 hk_load_relaxed(hk_u32* p) { return *(volatile hk_u32*)p; }
HK_DEV void hk_store_relaxed(hk_u32* p, hk_u32 v) { atomicExch(p, v); }
#endif

// A warp's lane mask, ballots and population counts (HK_WARP_SIZE bits).
#if HK_WARP_SIZE == 64
typedef hk_u64 hk_lmask;
#define HK_POPC(m) __popcll(m)
#define HK_FFS(m) __ffsll((long long)(m))
#else
typedef hk_u32 hk_lmask;
#define HK_POPC(m) __popc(m)
#define HK_FFS(m) __ffs((int)(m))
#endif
#ifdef HK_HIP
#define HK_BALLOT(p) ((hk_lmask)__ballot(p))
#else
#define HK_BALLOT(p) ((hk_lmask)__ballot_sync(0xffffffffu, (p)))
#endif

// float16 / bfloat16 bits <-> float, round to nearest even, in integer ops (identical on both
// vendors; the same conversions as the IR's C++ prelude).
HK_DEV float hk_h2f(hk_u16 h) {
  hk_u32 s = ((hk_u32)h & 0x8000u) << 16;
  hk_u32 e = ((hk_u32)h >> 10) & 0x1fu;
  hk_u32 m = (hk_u32)h & 0x3ffu;
  if (e == 0) {
    float v = (float)m * 5.9604644775390625e-8f;
    return s ? -v : v;
  }
  if (e == 31) return __uint_as_float(s | 0x7f800000u | (m << 13));
  return __uint_as_float(s | ((e + 112u) << 23) | (m << 13));
}
HK_DEV hk_u16 hk_f2h(float f) {
  hk_u32 x = __float_as_uint(f);
  hk_u32 sign = (x >> 16) & 0x8000u;
  hk_u32 ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (hk_u16)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return (hk_u16)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    hk_u32 m = (hk_u32)rintf(__uint_as_float(ax) * 16777216.0f);
    return (hk_u16)(sign | m);
  }
  hk_u32 r = ax - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  return (hk_u16)(sign | (r >> 13));
}
HK_DEV float hk_bf2f(hk_u16 b) { return __uint_as_float(((hk_u32)b) << 16); }
HK_DEV hk_u16 hk_f2bf(float f) {
  hk_u32 x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (hk_u16)((x >> 16) | 0x0040u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (hk_u16)(x >> 16);
}

// Linear block index over a 2-D grid (rows beyond 65535 use gridDim.y).
HK_DEV hk_u64 hk_block_id() { return (hk_u64)blockIdx.y * gridDim.x + blockIdx.x; }

// Complex values as two parts (complex64 / complex128 storage and accumulators).
struct hk_c64 {
  float re, im;
};
struct hk_c128 {
  double re, im;
};

// A shuffle of any scanned value: one shuffle for scalars, one per part for complex.
template <class A>
HK_DEV A hk_shfl_up_v(A v, unsigned d) {
  return HK_SHFL_UP(v, d);
}
HK_DEV hk_c64 hk_shfl_up_v(hk_c64 v, unsigned d) {
  hk_c64 r;
  r.re = HK_SHFL_UP(v.re, d);
  r.im = HK_SHFL_UP(v.im, d);
  return r;
}
HK_DEV hk_c128 hk_shfl_up_v(hk_c128 v, unsigned d) {
  hk_c128 r;
  r.re = HK_SHFL_UP(v.re, d);
  r.im = HK_SHFL_UP(v.im, d);
  return r;
}

// Inclusive scan of one value per thread across the block (HK_BLOCK threads), warp shuffles
// then one warp over the warp totals. `sums` is shared scratch of HK_MAX_WARPS elements; on
// return sums[HK_MAX_WARPS - 1] holds the block total. Every thread of the block must call it.
template <class A, class Op>
HK_DEV A hk_block_scan(A v, A* sums) {
  const unsigned lane = threadIdx.x % HK_WARP_SIZE;
  const unsigned wid = threadIdx.x / HK_WARP_SIZE;
  for (unsigned o = 1; o < HK_WARP_SIZE; o <<= 1) {
    A y = hk_shfl_up_v(v, o);
    if (lane >= o) v = Op::f(y, v);
  }
  if (lane == HK_WARP_SIZE - 1) sums[wid] = v;
  HK_SYNC();
  if (wid == 0) {
    A w = lane < HK_MAX_WARPS ? sums[lane] : Op::id();
    for (unsigned o = 1; o < HK_MAX_WARPS; o <<= 1) {
      A y = hk_shfl_up_v(w, o);
      if (lane >= o) w = Op::f(y, w);
    }
    if (lane < HK_MAX_WARPS) sums[lane] = w;
  }
  HK_SYNC();
  if (wid > 0) v = Op::f(sums[wid - 1], v);
  return v;
}

#endif  // HK_PORTABILITY_H
