// Inclusive scans (cumsum, cumprod) along the last axis of a [batch, n] layout: one block per
// row, the row walked in chunks of HK_BLOCK elements, each chunk scanned across the block
// (hk_block_scan) and offset by the running total of the earlier chunks, so any n works.
// Integers wrap (computed in unsigned arithmetic), bool is or/and, float16/bfloat16 accumulate
// in float and are rounded once per output element; complex64/complex128 multiply as NumPy's
// loop (each part one fused multiply-add).
// Entry points (HK_BLOCK threads): cupy_scan_{sum,prod}_<dtype>(ScanArgs), grid = batch blocks
// (2-D when batch > 65535); for long rows the three reduce-then-scan passes
// cupy_scan_{totals,prefixes,apply}_{sum,prod}_<dtype>. The output is C-contiguous and may be
// the input (same layout: every pass reads an element before the one write of it).
#include "portability.h"

struct ScanArgs {
  hk_u64 in;   // address of the input's first element (its layout offset applied)
  hk_u64 out;  // address of the output's first element
  hk_i64 batch, n;
  hk_i64 s0, s1;  // input strides in elements
  hk_u64 partial;  // multi-block scans: [batch, ntiles] tile totals in the accumulator type
  hk_i64 ntiles;   // multi-block scans: tiles of HK_SCAN_TILE elements per row
};

#define HK_SCAN_TILE 8192

#define HK_INT_TAG(NAME, S, A)                                              \
  struct NAME {                                                             \
    typedef S St;                                                           \
    typedef A Acc;                                                          \
    static __device__ __forceinline__ A load(S x) { return (A)x; }          \
    static __device__ __forceinline__ S store(A a) { return (S)a; }         \
    static __device__ __forceinline__ A add(A a, A b) { return a + b; }     \
    static __device__ __forceinline__ A mul(A a, A b) { return a * b; }     \
    static __device__ __forceinline__ A id(bool prod) { return prod ? (A)1 : (A)0; } \
  };
// Signed integers accumulate in the unsigned type of their width (defined wrap-around).
HK_INT_TAG(t_int8, hk_i8, hk_u32)
HK_INT_TAG(t_int16, hk_i16, hk_u32)
HK_INT_TAG(t_int32, hk_i32, hk_u32)
HK_INT_TAG(t_int64, hk_i64, hk_u64)
HK_INT_TAG(t_uint8, hk_u8, hk_u32)
HK_INT_TAG(t_uint16, hk_u16, hk_u32)
HK_INT_TAG(t_uint32, hk_u32, hk_u32)
HK_INT_TAG(t_uint64, hk_u64, hk_u64)
HK_INT_TAG(t_float32, float, float)
HK_INT_TAG(t_float64, double, double)

struct t_bool {
  typedef hk_u8 St;
  typedef hk_u32 Acc;
  static __device__ __forceinline__ hk_u32 load(hk_u8 x) { return x != 0; }
  static __device__ __forceinline__ hk_u8 store(hk_u32 a) { return (hk_u8)(a != 0); }
  static __device__ __forceinline__ hk_u32 add(hk_u32 a, hk_u32 b) { return a | b; }
  static __device__ __forceinline__ hk_u32 mul(hk_u32 a, hk_u32 b) { return a & b; }
  static __device__ __forceinline__ hk_u32 id(bool prod) { return prod ? 1u : 0u; }
};
struct t_float16 {
  typedef hk_u16 St;
  typedef float Acc;
  static __device__ __forceinline__ float load(hk_u16 x) { return hk_h2f(x); }
  static __device__ __forceinline__ hk_u16 store(float a) { return hk_f2h(a); }
  static __device__ __forceinline__ float add(float a, float b) { return a + b; }
  static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
  static __device__ __forceinline__ float id(bool prod) { return prod ? 1.0f : 0.0f; }
};
struct t_bfloat16 {
  typedef hk_u16 St;
  typedef float Acc;
  static __device__ __forceinline__ float load(hk_u16 x) { return hk_bf2f(x); }
  static __device__ __forceinline__ hk_u16 store(float a) { return hk_f2bf(a); }
  static __device__ __forceinline__ float add(float a, float b) { return a + b; }
  static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
  static __device__ __forceinline__ float id(bool prod) { return prod ? 1.0f : 0.0f; }
};
// Complex: NumPy's multiply (re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br), as the IR).
#define HK_COMPLEX_TAG(NAME, C, R, FMA)                                                     \
  struct NAME {                                                                             \
    typedef C St;                                                                           \
    typedef C Acc;                                                                          \
    static __device__ __forceinline__ C load(C x) { return x; }                             \
    static __device__ __forceinline__ C store(C a) { return a; }                            \
    static __device__ __forceinline__ C add(C a, C b) {                                     \
      C r;                                                                                  \
      r.re = a.re + b.re;                                                                   \
      r.im = a.im + b.im;                                                                   \
      return r;                                                                             \
    }                                                                                       \
    static __device__ __forceinline__ C mul(C a, C b) {                                     \
      C r;                                                                                  \
      r.re = FMA(a.re, b.re, -(a.im * b.im));                                               \
      r.im = FMA(a.re, b.im, a.im * b.re);                                                  \
      return r;                                                                             \
    }                                                                                       \
    static __device__ __forceinline__ C id(bool prod) {                                     \
      C r;                                                                                  \
      r.re = prod ? (R)1 : (R)0;                                                            \
      r.im = (R)0;                                                                          \
      return r;                                                                             \
    }                                                                                       \
  };
HK_COMPLEX_TAG(t_complex64, hk_c64, float, fmaf)
HK_COMPLEX_TAG(t_complex128, hk_c128, double, fma)

template <class Tag, bool PROD>
struct ScanOp {
  typedef typename Tag::Acc A;
  static __device__ __forceinline__ A id() { return Tag::id(PROD); }
  static __device__ __forceinline__ A f(A a, A b) { return PROD ? Tag::mul(a, b) : Tag::add(a, b); }
};

// Scans elements [lo, hi) of one row starting from `carry`, writing the output when `out` is
// set; returns the running total. Every thread of the block must call it.
template <class Tag, bool PROD>
__device__ typename Tag::Acc scan_range(const typename Tag::St* in, hk_i64 s1,
                                        typename Tag::St* out, hk_i64 lo, hk_i64 hi,
                                        typename Tag::Acc carry, bool has_carry) {
  typedef typename Tag::Acc A;
  typedef ScanOp<Tag, PROD> Op;
  __shared__ A sums[HK_MAX_WARPS];
  for (hk_i64 c0 = lo; c0 < hi; c0 += HK_BLOCK) {
    const hk_i64 j = c0 + threadIdx.x;
    A v = j < hi ? Tag::load(in[j * s1]) : Op::id();
    v = hk_block_scan<A, Op>(v, sums);
    const A total = sums[HK_MAX_WARPS - 1];
    // No combine with the identity: complex (1, 0) * (nan, 0) is (nan, nan), not (nan, 0).
    if (out && j < hi) out[j] = Tag::store(has_carry ? Op::f(carry, v) : v);
    carry = has_carry ? Op::f(carry, total) : total;
    has_carry = true;
    HK_SYNC();  // sums is rewritten by the next chunk
  }
  return carry;
}

// One block per row.
template <class Tag, bool PROD>
__device__ void scan_rows(const ScanArgs& a) {
  typedef typename Tag::St S;
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  const S* in = (const S*)a.in + (hk_i64)row * a.s0;
  S* out = (S*)a.out + (hk_i64)row * a.n;
  scan_range<Tag, PROD>(in, a.s1, out, 0, a.n, ScanOp<Tag, PROD>::id(), false);
}

// Long rows, reduce-then-scan: (1) every (tile, row) block writes its tile's total, (2) one
// block per row turns the totals into exclusive prefixes, (3) every (tile, row) block scans its
// tile from its prefix. Grids: (ntiles, batch), (batch), (ntiles, batch).
template <class Tag, bool PROD>
__device__ void scan_tile_totals(const ScanArgs& a) {
  typedef typename Tag::St S;
  typedef typename Tag::Acc A;
  const hk_i64 row = blockIdx.y, tile = blockIdx.x;
  const S* in = (const S*)a.in + row * a.s0;
  const hk_i64 lo = tile * HK_SCAN_TILE;
  const hk_i64 hi = lo + HK_SCAN_TILE < a.n ? lo + HK_SCAN_TILE : a.n;
  const A t = scan_range<Tag, PROD>(in, a.s1, (S*)0, lo, hi, ScanOp<Tag, PROD>::id(), false);
  if (threadIdx.x == 0) ((A*)a.partial)[row * a.ntiles + tile] = t;
}

template <class Tag, bool PROD>
__device__ void scan_tile_prefixes(const ScanArgs& a) {
  typedef typename Tag::Acc A;
  typedef ScanOp<Tag, PROD> Op;
  __shared__ A sums[HK_MAX_WARPS];
  __shared__ A incs[HK_BLOCK];
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  A* p = (A*)a.partial + row * a.ntiles;
  A carry = Op::id();
  for (hk_i64 c0 = 0; c0 < a.ntiles; c0 += HK_BLOCK) {
    const hk_i64 j = c0 + threadIdx.x;
    const A v = j < a.ntiles ? p[j] : Op::id();
    const A inc = hk_block_scan<A, Op>(v, sums);
    const A total = sums[HK_MAX_WARPS - 1];
    // exclusive prefix = the previous thread's inclusive value (prod has no inverse)
    incs[threadIdx.x] = inc;
    HK_SYNC();
    const A prev = threadIdx.x == 0 ? Op::id() : incs[threadIdx.x - 1];
    // tile 0's prefix is never read (scan_tile_apply starts it without a carry)
    if (j < a.ntiles) p[j] = threadIdx.x == 0 ? carry : c0 == 0 ? prev : Op::f(carry, prev);
    carry = c0 == 0 ? total : Op::f(carry, total);
    HK_SYNC();
  }
}

template <class Tag, bool PROD>
__device__ void scan_tile_apply(const ScanArgs& a) {
  typedef typename Tag::St S;
  typedef typename Tag::Acc A;
  const hk_i64 row = blockIdx.y, tile = blockIdx.x;
  const S* in = (const S*)a.in + row * a.s0;
  S* out = (S*)a.out + row * a.n;
  const hk_i64 lo = tile * HK_SCAN_TILE;
  const hk_i64 hi = lo + HK_SCAN_TILE < a.n ? lo + HK_SCAN_TILE : a.n;
  const A carry = ((const A*)a.partial)[row * a.ntiles + tile];
  scan_range<Tag, PROD>(in, a.s1, out, lo, hi, carry, tile > 0);
}

#define HK_SCAN_OP(OP, DT, PROD)                                                               \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_##OP##_##DT(ScanArgs a) {     \
    scan_rows<t_##DT, PROD>(a);                                                                  \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_totals_##OP##_##DT(          \
      ScanArgs a) {                                                                              \
    scan_tile_totals<t_##DT, PROD>(a);                                                           \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_prefixes_##OP##_##DT(        \
      ScanArgs a) {                                                                              \
    scan_tile_prefixes<t_##DT, PROD>(a);                                                         \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_apply_##OP##_##DT(           \
      ScanArgs a) {                                                                              \
    scan_tile_apply<t_##DT, PROD>(a);                                                            \
  }
#define HK_SCAN_ENTRIES(DT) HK_SCAN_OP(sum, DT, false) HK_SCAN_OP(prod, DT, true)
HK_SCAN_ENTRIES(bool)
HK_SCAN_ENTRIES(int8)
HK_SCAN_ENTRIES(int16)
HK_SCAN_ENTRIES(int32)
HK_SCAN_ENTRIES(int64)
HK_SCAN_ENTRIES(uint8)
HK_SCAN_ENTRIES(uint16)
HK_SCAN_ENTRIES(uint32)
HK_SCAN_ENTRIES(uint64)
HK_SCAN_ENTRIES(float16)
HK_SCAN_ENTRIES(bfloat16)
HK_SCAN_ENTRIES(float32)
HK_SCAN_ENTRIES(float64)
HK_SCAN_ENTRIES(complex64)
HK_SCAN_ENTRIES(complex128)

// Stream compaction (numpy.compress, a[mask], unique's run starts): the elements of up to
// HK_COMPRESS_SRC sources where a bool mask of n elements is true, in order, written densely
// to their outputs. Reduce, then scan, then scatter, over tiles of HK_BLOCK * HK_COMPRESS_IT
// mask elements: cupy_compress_count writes each tile's count of true elements,
// cupy_compress_scan (one block) turns the counts into exclusive offsets, and cupy_compress
// ranks each tile's kept elements (ballots, then a scan of the per-(round, warp) counts) and
// copies them from every source; a warp's stores are contiguous. (A single pass with a
// decoupled look-back took 0.52-0.60 ms for 2^26 mask bytes on the H100: the tiles reach their
// look-back almost at once, so the walks grow long.) The caller counted the kept elements
// beforehand (the outputs' length); nothing is written at or past `count`.
// Grids: count and compress ntiles blocks (2-D past 65535), scan one block.
#define HK_COMPRESS_IT 16
#define HK_COMPRESS_SRC 4
struct CompressArgs {
  hk_u64 mask;                    // bool [n]
  hk_u64 src[HK_COMPRESS_SRC];    // a source's first element; 0: the element's index (int64)
  hk_u64 dst[HK_COMPRESS_SRC];    // its output (the kept elements, densely)
  hk_i64 width[HK_COMPRESS_SRC];  // bytes per element (1, 2, 4, 8 or 16); 0: no such source
  hk_i64 n;
  hk_u64 offs;    // u64 [ntiles]: the tiles' counts, then (after the scan) their offsets
  hk_i64 ntiles;
  hk_i64 count;   // the outputs' length: no element is written at or past it
};

struct CompressAdd {
  static __device__ __forceinline__ hk_u64 f(hk_u64 x, hk_u64 y) { return x + y; }
  static __device__ __forceinline__ hk_u64 id() { return 0; }
};
struct hk_u128 {
  hk_u64 lo, hi;
};

extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_compress_count(CompressArgs a) {
  __shared__ hk_u64 sums[HK_MAX_WARPS];
  const hk_u64 tile = hk_block_id();
  const hk_i64 lo = (hk_i64)tile * (HK_BLOCK * HK_COMPRESS_IT);
  const hk_u8* m = (const hk_u8*)a.mask;
  hk_u64 c = 0;
#pragma unroll
  for (int j = 0; j < HK_COMPRESS_IT; ++j) {
    const hk_i64 i = lo + (hk_i64)j * HK_BLOCK + threadIdx.x;
    c += (i < a.n && m[i] != 0) ? 1u : 0u;
  }
  hk_block_scan<hk_u64, CompressAdd>(c, sums);
  if (threadIdx.x == 0) ((hk_u64*)a.offs)[tile] = sums[HK_MAX_WARPS - 1];
}

// One block; HK_COMPRESS_SCAN_IT consecutive tiles per thread and chunk (one tile per thread
// took 48 us for the 16384 tiles of 2^26 mask bytes on the H100: 64 dependent chunks).
#define HK_COMPRESS_SCAN_IT 8
extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_compress_scan(CompressArgs a) {
  __shared__ hk_u64 sums[HK_MAX_WARPS];
  hk_u64* offs = (hk_u64*)a.offs;
  hk_u64 carry = 0;
  for (hk_i64 c0 = 0; c0 < a.ntiles; c0 += HK_BLOCK * HK_COMPRESS_SCAN_IT) {
    const hk_i64 k0 = c0 + (hk_i64)threadIdx.x * HK_COMPRESS_SCAN_IT;
    hk_u64 v[HK_COMPRESS_SCAN_IT], own = 0;
#pragma unroll
    for (int j = 0; j < HK_COMPRESS_SCAN_IT; ++j) {
      v[j] = k0 + j < a.ntiles ? offs[k0 + j] : 0u;
      own += v[j];
    }
    hk_u64 at = carry + hk_block_scan<hk_u64, CompressAdd>(own, sums) - own;
#pragma unroll
    for (int j = 0; j < HK_COMPRESS_SCAN_IT; ++j) {
      if (k0 + j < a.ntiles) offs[k0 + j] = at;
      at += v[j];
    }
    carry += sums[HK_MAX_WARPS - 1];
    HK_SYNC();  // sums is reused by the next chunk's scan
  }
}

// A kept element's position (the sources without an array: int64).
template <class T>
HK_DEV T compress_index(hk_i64 i, const T*) { return (T)i; }
HK_DEV hk_u128 compress_index(hk_i64, const hk_u128*) { return hk_u128{0, 0}; }

// Source s's kept elements of the tile: every round's load issued before any store (the
// pointers may alias as far as the compiler knows; a load, then its store, round by round, kept
// one load per thread in flight: 0.40 ms for unique's 2^26 mask on the H100).
template <class T>
HK_DEV void compress_rounds(const CompressArgs& a, int s, hk_i64 lo, const bool (&keep)[HK_COMPRESS_IT],
                            const hk_u64* before, const hk_lmask (&bal)[HK_COMPRESS_IT]) {
  const unsigned t = threadIdx.x, lane = t % HK_WARP_SIZE, wid = t / HK_WARP_SIZE;
  const hk_lmask lt = (((hk_lmask)1) << lane) - 1;
  const T* from = (const T*)a.src[s];
  T* to = (T*)a.dst[s];
  T v[HK_COMPRESS_IT];
#pragma unroll
  for (int j = 0; j < HK_COMPRESS_IT; ++j) {
    const hk_i64 i = lo + (hk_i64)j * HK_BLOCK + t;
    v[j] = !keep[j] ? T() : from ? from[i] : compress_index(i, from);
  }
#pragma unroll
  for (int j = 0; j < HK_COMPRESS_IT; ++j) {
    const hk_u64 at = before[j * HK_MAX_WARPS + wid] + (hk_u64)HK_POPC(bal[j] & lt);
    // (a caller's count too small: never past the outputs)
    if (keep[j] && at < (hk_u64)a.count) to[at] = v[j];
  }
}

extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_compress(CompressArgs a) {
  __shared__ hk_u64 before[HK_COMPRESS_IT * HK_MAX_WARPS];  // kept before (round, warp) in the tile
  __shared__ hk_u64 sums[HK_MAX_WARPS];
  const unsigned t = threadIdx.x, lane = t % HK_WARP_SIZE, wid = t / HK_WARP_SIZE;
  const hk_u64 tile = hk_block_id();
  const hk_i64 lo = (hk_i64)tile * (HK_BLOCK * HK_COMPRESS_IT);
  const hk_u8* m = (const hk_u8*)a.mask;
  bool keep[HK_COMPRESS_IT];
  hk_lmask bal[HK_COMPRESS_IT];
#pragma unroll
  for (int j = 0; j < HK_COMPRESS_IT; ++j) {
    const hk_i64 i = lo + (hk_i64)j * HK_BLOCK + t;
    keep[j] = i < a.n && m[i] != 0;
  }
#pragma unroll
  for (int j = 0; j < HK_COMPRESS_IT; ++j) {
    bal[j] = HK_BALLOT(keep[j]);
    if (lane == 0) before[j * HK_MAX_WARPS + wid] = (hk_u64)HK_POPC(bal[j]);
  }
  HK_SYNC();
  // entry t = (round t / warps, warp t % warps), in element order: an exclusive scan of them
  const hk_u64 c = t < HK_COMPRESS_IT * HK_MAX_WARPS ? before[t] : 0u;
  const hk_u64 incl = hk_block_scan<hk_u64, CompressAdd>(c, sums);
  const hk_u64 base = ((const hk_u64*)a.offs)[tile];
  if (t < HK_COMPRESS_IT * HK_MAX_WARPS) before[t] = base + incl - c;
  HK_SYNC();
  for (int s = 0; s < HK_COMPRESS_SRC; ++s) {
    switch (a.width[s]) {
      case 1: compress_rounds<hk_u8>(a, s, lo, keep, before, bal); break;
      case 2: compress_rounds<hk_u16>(a, s, lo, keep, before, bal); break;
      case 4: compress_rounds<hk_u32>(a, s, lo, keep, before, bal); break;
      case 8: compress_rounds<hk_u64>(a, s, lo, keep, before, bal); break;
      case 16: compress_rounds<hk_u128>(a, s, lo, keep, before, bal); break;
      default: break;
    }
  }
}
