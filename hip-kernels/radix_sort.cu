// Stable sort along the last axis of C-contiguous [batch, n] keys (NumPy order: ascending, NaN
// last, -0.0 == 0.0), optionally moving int64 values with them (argsort).
//
// Keys are mapped to order-preserving unsigned bit patterns (K = u32 for keys of up to 4 bytes,
// u64 for 8): unsigned as is; signed with the sign bit flipped; floats with -0.0 folded onto
// +0.0, every NaN onto the all-ones pattern (after +inf), then the sign bit flipped for
// positives and all bits for negatives. What is sorted is the pair (mapped key, position in the
// row); the last pass gathers the original keys (and values) through the positions from copies
// made by the first pass, so NaN payloads and the sign of zero survive.
//
// Passes (all HK_BLOCK threads; `b` = row, grid y = rows for the tiled kernels):
//   cupy_sort_init_<dt>     copies keys (and values), writes mapped keys and positions 0..n-1
//   cupy_sort_block_<K>     rows of n <= HK_SORT_SMALL: one block per row ranks every element in
//                           shared memory (rank = #smaller + #equal-and-earlier: stable)
//   rows longer than that, per 8-bit digit (LSD radix, stable by construction):
//   cupy_sort_hist_<K>      per (row, tile of HK_TILE elements) digit counts, digit-major
//   (the plan)              per row inclusive scan of the 256 * ntiles counts (scan.cu)
//   cupy_sort_scatter_<K>   moves each tile's pairs to their digit's slot, in input order
//   cupy_sort_gather_<dt>   keys[b, j] = orig[b, pos[b, j]] (and values)
#include "portability.h"

#define HK_SORT_SMALL 1024
#define HK_TILE 8192

struct SortArgs {
  hk_u64 keys, vals, korig, vorig;   // vals/vorig 0 when no values are carried
  hk_u64 mk_in, pos_in, mk_out, pos_out;
  hk_u64 hist;
  hk_i64 batch, n, ntiles, shift;
  hk_u64 incl;  // inclusive scan of hist along each row (the plan runs scan.cu's cumsum)
};

HK_DEV hk_u32 map_key(hk_u8 x) { return x; }
HK_DEV hk_u32 map_key(hk_u16 x) { return x; }
HK_DEV hk_u32 map_key(hk_u32 x) { return x; }
HK_DEV hk_u64 map_key(hk_u64 x) { return x; }
HK_DEV hk_u32 map_key(hk_i8 x) { return (hk_u32)((hk_u8)x ^ 0x80u); }
HK_DEV hk_u32 map_key(hk_i16 x) { return (hk_u32)((hk_u16)x ^ 0x8000u); }
HK_DEV hk_u32 map_key(hk_i32 x) { return (hk_u32)x ^ 0x80000000u; }
HK_DEV hk_u64 map_key(hk_i64 x) { return (hk_u64)x ^ 0x8000000000000000ull; }
HK_DEV hk_u32 map_f32_bits(hk_u32 u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;  // NaN: last
  if (u == 0x80000000u) u = 0;                               // -0.0 == 0.0
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
HK_DEV hk_u32 map_key(float x) { return map_f32_bits(__float_as_uint(x)); }
HK_DEV hk_u64 map_key(double x) {
  hk_u64 u = (hk_u64)__double_as_longlong(x);
  if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0xffffffffffffffffull;
  if (u == 0x8000000000000000ull) u = 0;
  return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}
// float16 / bfloat16 keys: widen to float (exact), then as float32.
struct f16_key { hk_u16 b; };
struct bf16_key { hk_u16 b; };
HK_DEV hk_u32 map_key(f16_key x) { return map_f32_bits(__float_as_uint(hk_h2f(x.b))); }
HK_DEV hk_u32 map_key(bf16_key x) { return map_f32_bits(__float_as_uint(hk_bf2f(x.b))); }

template <class S, class K>
__device__ void sort_init(const SortArgs& a) {
  const hk_u64 total = (hk_u64)a.batch * (hk_u64)a.n;
  const S* keys = (const S*)a.keys;
  for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
       t += (hk_u64)gridDim.x * HK_BLOCK) {
    const S k = keys[t];
    ((S*)a.korig)[t] = k;
    if (a.vals) ((hk_i64*)a.vorig)[t] = ((const hk_i64*)a.vals)[t];
    ((K*)a.mk_in)[t] = map_key(k);
    ((hk_u32*)a.pos_in)[t] = (hk_u32)(t % (hk_u64)a.n);
  }
}

template <class S>
__device__ void sort_gather(const SortArgs& a) {
  const hk_u64 total = (hk_u64)a.batch * (hk_u64)a.n;
  const hk_u32* pos = (const hk_u32*)a.pos_in;
  for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
       t += (hk_u64)gridDim.x * HK_BLOCK) {
    const hk_u64 src = (t / (hk_u64)a.n) * (hk_u64)a.n + pos[t];
    ((S*)a.keys)[t] = ((const S*)a.korig)[src];
    if (a.vals) ((hk_i64*)a.vals)[t] = ((const hk_i64*)a.vorig)[src];
  }
}

// Rows of at most HK_SORT_SMALL elements: rank sort in shared memory (positions are the input
// order, so ties are broken by index: stable).
template <class K>
__device__ void sort_block(const SortArgs& a) {
  __shared__ K sk[HK_SORT_SMALL];
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  const int n = (int)a.n;
  const K* mk = (const K*)a.mk_in + row * (hk_u64)n;
  for (int i = threadIdx.x; i < n; i += HK_BLOCK) sk[i] = mk[i];
  HK_SYNC();
  hk_u32* out = (hk_u32*)a.pos_out + row * (hk_u64)n;
  for (int i = threadIdx.x; i < n; i += HK_BLOCK) {
    const K k = sk[i];
    int r = 0;
    for (int j = 0; j < n; ++j) {
      const K o = sk[j];
      r += (o < k) || (o == k && j < i);
    }
    out[r] = (hk_u32)i;
  }
}

template <class K>
HK_DEV hk_u32 digit(K k, hk_i64 shift) { return (hk_u32)(k >> shift) & 0xffu; }

template <class K>
__device__ void sort_hist(const SortArgs& a) {
  __shared__ hk_u32 cnt[256];
  const hk_u64 row = blockIdx.y, tile = blockIdx.x;
  cnt[threadIdx.x] = 0;
  HK_SYNC();
  const K* mk = (const K*)a.mk_in + row * (hk_u64)a.n;
  const hk_i64 lo = (hk_i64)tile * HK_TILE;
  const hk_i64 hi = lo + HK_TILE < a.n ? lo + HK_TILE : a.n;
  for (hk_i64 i = lo + threadIdx.x; i < hi; i += HK_BLOCK) HK_ATOMIC_ADD(&cnt[digit(mk[i], a.shift)], 1u);
  HK_SYNC();
  ((hk_u32*)a.hist)[(row * 256 + threadIdx.x) * (hk_u64)a.ntiles + tile] = cnt[threadIdx.x];
}

// Moves one tile's pairs to their digit's slots, keeping input order (stable). Per chunk of
// HK_BLOCK elements: each warp finds the lanes sharing a lane's digit with 9 ballots (digit bits
// 0..7 plus the "no element" bit 8; the warp multisplit of Merrill & Grimshaw's radix sort), the
// warps' per-digit counts are scanned in shared memory, and
// slot = tile base[d] + earlier warps' count of d + earlier lanes of this warp with d.
template <class K>
__device__ void sort_scatter(const SortArgs& a) {
  __shared__ hk_u32 base[256];
  __shared__ hk_u32 wcnt[HK_MAX_WARPS][256];
  const unsigned lane = threadIdx.x % HK_WARP_SIZE, wid = threadIdx.x / HK_WARP_SIZE;
  const hk_lmask lt = (((hk_lmask)1) << lane) - 1;
  const hk_u64 row = blockIdx.y, tile = blockIdx.x;
  const hk_u64 h = (row * 256 + threadIdx.x) * (hk_u64)a.ntiles + tile;
  base[threadIdx.x] = ((const hk_u32*)a.incl)[h] - ((const hk_u32*)a.hist)[h];  // exclusive
  const K* mk = (const K*)a.mk_in + row * (hk_u64)a.n;
  const hk_u32* pos = (const hk_u32*)a.pos_in + row * (hk_u64)a.n;
  K* mko = (K*)a.mk_out + row * (hk_u64)a.n;
  hk_u32* poso = (hk_u32*)a.pos_out + row * (hk_u64)a.n;
  const hk_i64 lo = (hk_i64)tile * HK_TILE;
  const hk_i64 hi = lo + HK_TILE < a.n ? lo + HK_TILE : a.n;
  for (hk_i64 c0 = lo; c0 < hi; c0 += HK_BLOCK) {
    const hk_i64 i = c0 + threadIdx.x;
    const bool valid = i < hi;
    K k = 0;
    hk_u32 p = 0, d = 256;  // 256: no element
    if (valid) {
      k = mk[i];
      p = pos[i];
      d = digit(k, a.shift);
    }
    for (int w = 0; w < HK_MAX_WARPS; ++w) wcnt[w][threadIdx.x] = 0;
    hk_lmask peers = ~(hk_lmask)0;
    for (int bit = 0; bit < 9; ++bit) {
      const bool set = (d >> bit) & 1u;
      const hk_lmask bal = HK_BALLOT(set);
      peers &= set ? bal : ~bal;
    }
    const hk_u32 rank = HK_POPC(peers & lt);
    HK_SYNC();
    if (valid && rank == 0) wcnt[wid][d] = HK_POPC(peers);
    HK_SYNC();
    hk_u32 run = 0;  // thread t owns digit t: exclusive scan over the warps
    for (int w = 0; w < HK_MAX_WARPS; ++w) {
      const hk_u32 c = wcnt[w][threadIdx.x];
      wcnt[w][threadIdx.x] = run;
      run += c;
    }
    HK_SYNC();
    if (valid) {
      const hk_u32 dst = base[d] + wcnt[wid][d] + rank;
      mko[dst] = k;
      poso[dst] = p;
    }
    HK_SYNC();
    base[threadIdx.x] += run;
  }
}

#define HK_SORT_K(K)                                                                          \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_block_##K(SortArgs a) {    \
    sort_block<hk_##K>(a);                                                                    \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_hist_##K(SortArgs a) {     \
    sort_hist<hk_##K>(a);                                                                     \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_scatter_##K(SortArgs a) {  \
    sort_scatter<hk_##K>(a);                                                                  \
  }
HK_SORT_K(u32)
HK_SORT_K(u64)

#define HK_SORT_DT(DT, S, K)                                                                  \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_init_##DT(SortArgs a) {    \
    sort_init<S, K>(a);                                                                       \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_gather_##DT(SortArgs a) {  \
    sort_gather<S>(a);                                                                        \
  }
HK_SORT_DT(bool, hk_u8, hk_u32)
HK_SORT_DT(int8, hk_i8, hk_u32)
HK_SORT_DT(int16, hk_i16, hk_u32)
HK_SORT_DT(int32, hk_i32, hk_u32)
HK_SORT_DT(int64, hk_i64, hk_u64)
HK_SORT_DT(uint8, hk_u8, hk_u32)
HK_SORT_DT(uint16, hk_u16, hk_u32)
HK_SORT_DT(uint32, hk_u32, hk_u32)
HK_SORT_DT(uint64, hk_u64, hk_u64)
HK_SORT_DT(float16, f16_key, hk_u32)
HK_SORT_DT(bfloat16, bf16_key, hk_u32)
HK_SORT_DT(float32, float, hk_u32)
HK_SORT_DT(float64, double, hk_u64)
