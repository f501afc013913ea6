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
//   or, rows shorter than 2^30 (the onesweep path of Adinets & Merrill, "Onesweep: a faster
//   least significant digit radix sort for GPUs", 2022): the init counts every digit of every
//   pass over whole rows (one read of the keys), and one kernel per digit,
//   cupy_sort_onesweep[k]_<K>, ranks a tile of HK_BLOCK * IT keys, publishes its digit counts,
//   looks back over the earlier tiles of its row for their prefix (decoupled look-back, tiles
//   numbered in the order their blocks start, so a block waits only on running ones) and
//   scatters: no histogram or scan passes.
#include "portability.h"

#define HK_SORT_SMALL 1024
#define HK_TILE 16384
#ifndef HK_SORT_IT32
#define HK_SORT_IT32 14
#endif
#ifndef HK_SORT_IT64
#define HK_SORT_IT64 8
#endif
#ifndef HK_SORT_MINB
#define HK_SORT_MINB 5
#endif
// the same for the passes that move values with the keys (argsort; more registers live)
#ifndef HK_SORT_MINBV
#define HK_SORT_MINBV 3
#endif
#ifndef HK_SORT_LB
#define HK_SORT_LB 4
#endif
// keys each thread of the init loads before counting them
#ifndef HK_SORT_TU
#define HK_SORT_TU 8
#endif
#ifndef HK_SORT_LEADER
#define HK_SORT_LEADER 1
#endif
// copies of the init's whole-row digit counts in shared memory (warps spread over them)
#ifndef HK_SORT_GH
#define HK_SORT_GH 1
#endif
// ... and lanes spread over HK_SORT_GHL of them (lane % HK_SORT_GHL; halved for 8-byte keys),
// each padded by a word so one digit's copies sit in distinct banks: a warp whose keys share a
// digit (the top digit of floats of one binade) meets on one word HK_SORT_GHL times less often.
// (H100, 2^26 float32, before the counts-only path: 1, 2, 4 and 8 copies all 2.12-2.13 ms,
// the init issue-bound; 4 keep 26.6 KiB a block, so 8 blocks of 256 threads fill an SM.)
#ifndef HK_SORT_GHL
#define HK_SORT_GHL 4
#endif
#ifndef HK_SORT_MATCH
#define HK_SORT_MATCH 2
#endif
// The ranking's peer search: 1 __match_any_sync, 0 eight ballots (Merrill & Grimshaw's warp
// multisplit), 2 a shared word per (warp, digit) every lane ORs its bit into (NVIDIA, 32-lane
// warps; else 0).
#if defined(HK_CUDA) && HK_WARP_SIZE == 32 && defined(HK_SORT_MATCH) && HK_SORT_MATCH == 2
#define HK_SORT_MMASK 1
#else
#define HK_SORT_MMASK 0
#endif

struct SortArgs {
  hk_u64 keys, vals, korig, vorig;   // vals/vorig 0 when no values are carried
  hk_u64 mk_in, pos_in, mk_out, pos_out;  // radix path: buffers A (in) and B (out)
  hk_u64 hist;
  hk_i64 batch, n, ntiles, shift;
  hk_u64 incl;  // inclusive scan of hist along each row (the plan runs scan.cu's cumsum)
  hk_u64 ctl;     // radix path: u64 {AND, OR} of every mapped key, any NaN/-0.0 (lossy only)
  hk_i64 vmode;   // radix path: value carried, 0 none (unmap), 1 position, 2 original bits
  hk_u64 flip;    // radix path, vmode 0: mapped key ^ flip = original bits
  hk_i64 passes;  // radix path: digit passes of the key
  hk_i64 lossy;   // radix path: a keys-only float sort (values dropped where no key is special)
  hk_i64 iota;    // the values are the row positions (argsort): written, not moved (contents ignored)
  hk_u64 ghist;   // onesweep: u32 [batch][8][256] digit counts of whole rows, every pass (else 0)
  hk_u64 look;    // onesweep: u32 [2][batch][nos][256] look-back status words
  hk_i64 nos;     // onesweep: tiles of HK_BLOCK * IT keys per row
  hk_i64 kmap;    // onesweep, 4- and 8-byte keys: 1 unsigned, 2 signed, 3 float: the first live
                  // pass maps the caller's keys as it reads them and the last (of two or more)
                  // writes the sorted keys (and values) where the finish would; 0: the init maps
  hk_u64 src;     // out of place: the keys are read from here (never written) and `keys` only
                  // receives the sorted keys; 0: sorted in place. korig may be src (no copy).
  hk_i64 nokeys;  // argsort wanting the values alone: the onesweep path leaves `keys` unwritten
};

// Where the keys to sort are read (SortArgs::src).
HK_DEV hk_u64 sort_src(const SortArgs& a) { return a.src ? a.src : a.keys; }

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
  const S* keys = (const S*)sort_src(a);
  for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
       t += (hk_u64)gridDim.x * HK_BLOCK) {
    const S k = keys[t];
    ((S*)a.korig)[t] = k;
    if (a.vals && !a.iota) ((hk_i64*)a.vorig)[t] = ((const hk_i64*)a.vals)[t];
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
    if (a.iota) {
      ((hk_i64*)a.vals)[t] = (hk_i64)pos[t];  // argsort: the row position, not a copy
    } else if (a.vals) {
      ((hk_i64*)a.vals)[t] = ((const hk_i64*)a.vorig)[src];
    }
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

// ---- Rows longer than HK_SORT_SMALL: the radix passes ----------------------------------------
// Pass p is live unless digit p of (AND ^ OR) of every mapped key is 0 (all keys share it); a
// live pass reads buffer B when an odd number of live passes came before it, else A.
HK_DEV hk_u64 sort_diff(const SortArgs& a) {
  const hk_u64* c = (const hk_u64*)a.ctl;
  return c[0] ^ c[1];
}
HK_DEV bool pass_live(hk_u64 diff, int p) { return ((diff >> (8 * p)) & 0xffu) != 0; }
HK_DEV int live_before(hk_u64 diff, int p) {
  int c = 0;
  for (int q = 0; q < p; ++q) c += pass_live(diff, q) ? 1 : 0;
  return c;
}
HK_DEV bool from_b(hk_u64 diff, int p) { return (live_before(diff, p) & 1) != 0; }

// map_key / unmap_to on a 4- or 8-byte key's bits (SortArgs::kmap: 1 unsigned, 2 signed,
// 3 float), for the passes that map and unmap on the fly.
template <class K>
HK_DEV K map_bits(K u, int kmap) {
  // branch-free (the first pass maps every loaded key before ranking; branches there kept its
  // loads from being issued together)
  const K sign = (K)1 << (8 * sizeof(K) - 1);
  const K inf = sizeof(K) == 8 ? (K)0x7ff0000000000000ull : (K)0x7f800000u;
  const bool fl = kmap == 3;
  const bool nan = fl && (u & ~sign) > inf;  // NaN: last
  const K z = fl && u == sign ? (K)0 : u;    // -0.0 == 0.0
  const K f = (z & sign) ? ~z : (z | sign);
  const K r = fl ? f : kmap == 2 ? (u ^ sign) : u;
  return nan ? ~(K)0 : r;
}
template <class K>
HK_DEV K unmap_bits(K m, int kmap) {
  const K sign = (K)1 << (8 * sizeof(K) - 1);
  if (kmap == 2) return m ^ sign;
  if (kmap == 3) return (m & sign) ? (m & ~sign) : ~m;
  return m;
}

struct SortAdd {
  static __device__ __forceinline__ hk_u32 id() { return 0; }
  static __device__ __forceinline__ hk_u32 f(hk_u32 x, hk_u32 y) { return x + y; }
};

// The control words: {AND, OR, special} of the keys, then (onesweep) 8 u32 tile counters, one
// per pass; and (onesweep, grid-stride) the whole-row digit counts zeroed.
extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_ctl(SortArgs a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    ((hk_u64*)a.ctl)[0] = ~0ull;
    ((hk_u64*)a.ctl)[1] = 0;
    ((hk_u64*)a.ctl)[2] = 0;
    if (a.ghist)
      for (int p = 0; p < 4; ++p) ((hk_u64*)a.ctl)[3 + p] = 0;
  }
  if (a.ghist)
    for (hk_u64 i = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; i < (hk_u64)a.batch * 8 * 256;
         i += (hk_u64)gridDim.x * HK_BLOCK)
      ((hk_u32*)a.ghist)[i] = 0;
}
// Tile counter of pass p (onesweep).
HK_DEV hk_u32* sort_counter(const SortArgs& a, int p) { return (hk_u32*)((hk_u64*)a.ctl + 3) + p; }

// Keys whose map is not invertible (float NaN and -0.0): a keys-only float sort whose row
// holds none moves the mapped keys alone and unmaps them.
template <class S>
HK_DEV bool sort_special(S) { return false; }
HK_DEV bool special_f32_bits(hk_u32 u) { return (u & 0x7fffffffu) > 0x7f800000u || u == 0x80000000u; }
HK_DEV bool sort_special(float x) { return special_f32_bits(__float_as_uint(x)); }
HK_DEV bool sort_special(f16_key x) { return special_f32_bits(__float_as_uint(hk_h2f(x.b))); }
HK_DEV bool sort_special(bf16_key x) { return special_f32_bits(__float_as_uint(hk_bf2f(x.b))); }
HK_DEV bool sort_special(double x) {
  const hk_u64 u = (hk_u64)__double_as_longlong(x);
  return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull || u == 0x8000000000000000ull;
}
// Values are carried unless the sort is keys-only-lossy (a float) and no key is special
// (ctl[2]: any key of the sort special, set by the init for every float sort).
HK_DEV bool sort_carries(const SortArgs& a) {
  return a.vmode != 0 && !(a.lossy && ((const hk_u64*)a.ctl)[2] == 0);
}

// Per-warp digit counters summed into the tile's column of the digit-major histogram.
HK_DEV void write_tile_hist(const SortArgs& a, hk_u32 (*wh)[256], hk_u64 row, hk_u64 tile) {
  HK_SYNC();
  hk_u32 c = 0;
  for (int w = 0; w < HK_MAX_WARPS; ++w) c += wh[w][threadIdx.x];
  ((hk_u32*)a.hist)[(row * 256 + threadIdx.x) * (hk_u64)a.ntiles + tile] = c;
}

template <class S, class R, class K>
__device__ void sort_tinit(const SortArgs& a) {
  __shared__ hk_u32 wh[HK_MAX_WARPS][256];
  // the init's copies of the whole-row counts: [HK_SORT_GH * ghl][passes * 256 + 1]
  constexpr int ghl = sizeof(K) == 8 && HK_SORT_GHL > 1 ? HK_SORT_GHL / 2 : HK_SORT_GHL;
  constexpr int ghs = (int)sizeof(K) * 256 + 1;
  __shared__ hk_u32 gh[HK_SORT_GH * ghl * ghs];
  __shared__ K sand[HK_BLOCK], sor[HK_BLOCK];
  __shared__ int sspecial;
  const unsigned t = threadIdx.x, wid = t / HK_WARP_SIZE;
  const hk_u64 row = blockIdx.y, tile = blockIdx.x;
  const bool os = a.ghist != 0;
  hk_u32* const mygh = gh + ((wid % HK_SORT_GH) * ghl + (t % HK_WARP_SIZE) % ghl) * ghs;
  const bool fly = os && a.kmap != 0;  // the first pass maps (and makes the values) itself
  const int np = (int)a.passes;
  for (int w = 0; w < HK_MAX_WARPS; ++w) wh[w][t] = 0;
  if (os)
    for (int i = t; i < HK_SORT_GH * ghl * ghs; i += HK_BLOCK) gh[i] = 0;
  if (t == 0) sspecial = 0;
  HK_SYNC();
  const hk_u64 base = row * (hk_u64)a.n;
  bool special = false;
  const hk_i64 lo = (hk_i64)tile * HK_TILE;
  const hk_i64 hi = lo + HK_TILE < a.n ? lo + HK_TILE : a.n;
  K vand = ~(K)0, vor = 0;
  const S* src = (const S*)sort_src(a);
  // The onesweep path whose first pass maps the keys itself and whose init copies nothing (no
  // original keys or values kept): only the counts, the AND/OR and the special flag, every pass
  // unrolled, 32-bit tile indices (the general loop below issued about 100 instructions per
  // warp of keys and took 0.27 ms for 2^26 float32 keys on the H100, 1 TB/s).
  const bool counts_only = fly && np == (int)sizeof(K) && !a.vorig &&
                           !(a.vmode == 1 && a.korig && a.korig != a.src);
  if (counts_only) {
    const S* s = src + base + (hk_u64)lo;
    const int cnt = (int)(hi - lo);
    for (int i0 = (int)t; i0 < cnt; i0 += HK_BLOCK * HK_SORT_TU) {
      S xs[HK_SORT_TU];
#pragma unroll
      for (int u = 0; u < HK_SORT_TU; ++u) {
        const int i = i0 + u * HK_BLOCK;
        xs[u] = i < cnt ? s[i] : S();
      }
#pragma unroll
      for (int u = 0; u < HK_SORT_TU; ++u) {
        if (i0 + u * HK_BLOCK >= cnt) break;
        const K m = map_key(xs[u]);
        vand &= m;
        vor |= m;
        special |= sort_special(xs[u]);
#pragma unroll
        for (int p = 0; p < (int)sizeof(K); ++p) HK_ATOMIC_ADD(&mygh[p * 256 + ((hk_u32)(m >> (8 * p)) & 0xffu)], 1u);
      }
    }
  }
  // HK_SORT_TU keys per thread loaded before any is counted (the shared atomics would
  // otherwise keep one load per thread in flight)
  for (hk_i64 i0 = lo + t; !counts_only && i0 < hi; i0 += (hk_i64)HK_BLOCK * HK_SORT_TU) {
    S xs[HK_SORT_TU];
#pragma unroll
    for (int u = 0; u < HK_SORT_TU; ++u) {
      const hk_i64 i = i0 + (hk_i64)u * HK_BLOCK;
      xs[u] = i < hi ? src[base + (hk_u64)i] : S();
    }
#pragma unroll
    for (int u = 0; u < HK_SORT_TU; ++u) {
      const hk_i64 i = i0 + (hk_i64)u * HK_BLOCK;
      if (i >= hi) continue;
      const hk_u64 g = base + (hk_u64)i;
      const S x = xs[u];
      const K m = map_key(x);
      if (!fly) ((K*)a.mk_in)[g] = m;
      if (a.vmode == 1) {
        if (!fly) ((hk_u32*)a.pos_in)[g] = (hk_u32)i;
        if (a.korig && a.korig != a.src) ((S*)a.korig)[g] = x;  // (src: the copy exists)
      } else if (a.vmode == 2 && !fly) {
        ((hk_u32*)a.pos_in)[g] = (hk_u32)((const R*)src)[g];
      }
      if (a.vorig) ((hk_i64*)a.vorig)[g] = ((const hk_i64*)a.vals)[g];
      vand &= m;
      vor |= m;
      special |= sort_special(x);
      if (os) {
        for (int p = 0; p < np; ++p) HK_ATOMIC_ADD(&mygh[p * 256 + digit(m, 8 * p)], 1u);
      } else {
        HK_ATOMIC_ADD(&wh[wid][(hk_u32)m & 0xffu], 1u);
      }
    }
  }
  if (special) sspecial = 1;
  sand[t] = vand;
  sor[t] = vor;
  for (unsigned s = HK_BLOCK / 2; s > 0; s >>= 1) {
    HK_SYNC();
    if (t < s) {
      sand[t] &= sand[t + s];
      sor[t] |= sor[t + s];
    }
  }
  if (t == 0) {
    atomicAnd((hk_u64*)a.ctl, (hk_u64)sand[0]);
    atomicOr((hk_u64*)a.ctl + 1, (hk_u64)sor[0]);
    if (sspecial) atomicOr((hk_u64*)a.ctl + 2, 1ull);
  }
  if (os) {
    // the row's counts of every pass, and the first live pass's look-back words of the
    // onesweep tiles inside this tile zeroed (every onesweep tile overlapping this tile:
    // neighbouring tiles may both zero one that straddles them)
    for (int p = 0; p < np; ++p) {
      hk_u32 c = 0;
      for (int q = 0; q < HK_SORT_GH * ghl; ++q) c += gh[q * ghs + p * 256 + t];
      if (c) HK_ATOMIC_ADD((hk_u32*)a.ghist + (row * 8 + p) * 256 + t, c);
    }
    const hk_i64 ost = HK_BLOCK * (sizeof(K) == 8 ? HK_SORT_IT64 : HK_SORT_IT32);
    for (hk_i64 q = lo / ost; q < (hi + ost - 1) / ost; ++q)
      ((hk_u32*)a.look)[(row * (hk_u64)a.nos + (hk_u64)q) * 256 + t] = 0;
  } else {
    write_tile_hist(a, wh, row, tile);
  }
}

// Digit counts of pass `shift / 8` (> 0) per (row, tile) of the buffer the pass reads.
template <class K>
__device__ void sort_hist(const SortArgs& a) {
  __shared__ hk_u32 wh[HK_MAX_WARPS][256];
  const hk_u64 diff = sort_diff(a);
  const int p = (int)(a.shift / 8);
  if (!pass_live(diff, p)) return;
  const unsigned t = threadIdx.x, wid = t / HK_WARP_SIZE;
  const hk_u64 row = blockIdx.y, tile = blockIdx.x;
  for (int w = 0; w < HK_MAX_WARPS; ++w) wh[w][t] = 0;
  HK_SYNC();
  const K* mk = (const K*)(from_b(diff, p) ? a.mk_out : a.mk_in) + row * (hk_u64)a.n;
  const hk_i64 lo = (hk_i64)tile * HK_TILE;
  const hk_i64 hi = lo + HK_TILE < a.n ? lo + HK_TILE : a.n;
  for (hk_i64 i = lo + t; i < hi; i += HK_BLOCK) HK_ATOMIC_ADD(&wh[wid][digit(mk[i], a.shift)], 1u);
  write_tile_hist(a, wh, row, tile);
}

