// radix_sort.cu, continued (appended to it as one module: core/src/gpu/sortscan/mod.rs, RADIX_SORT_CU):
// the digit passes' peer search, ranking, look-back and scatter (the onesweep and tiled
// paths), the finish, and the extern "C" entry points. Definitions it uses (SortArgs, the key
// maps, the tunables HK_SORT_*) are in radix_sort.cu.

// The lanes of the warp whose (valid) digit equals this lane's: one match instruction on
// NVIDIA with HK_SORT_MATCH 1 (sm_70+, 32-lane warps), else the warp multisplit of Merrill &
// Grimshaw (8 ballots). (HK_SORT_MATCH 2, the default on NVIDIA, finds them through shared
// memory in the ranking loop instead: 2.86 ms against 3.02 for the ballots and 3.83 for the
// match instruction, 2^26 float32 keys on the H100, hip-kernels/bench/sort_harness.cu.)
HK_DEV hk_lmask hk_match_digit(bool valid, hk_u32 d) {
#if defined(HK_CUDA) && HK_WARP_SIZE == 32 && HK_SORT_MATCH == 1
  return (hk_lmask)__match_any_sync(0xffffffffu, valid ? d : 256u);
#else
  hk_lmask peers = HK_BALLOT(valid);
#pragma unroll
  for (int bit = 0; bit < 8; ++bit) {
    const bool set = (d >> bit) & 1u;
    const hk_lmask bal = HK_BALLOT(set);
    peers &= set ? bal : ~bal;
  }
  return peers;
#endif
}

// Moves one tile's (key, value) pairs to their digit's slots, keeping input order (stable), in
// sub-tiles of HK_BLOCK * IT elements. Warp w ranks the sub-tile's elements
// [w * IT * WS, (w + 1) * IT * WS) in order, IT rounds of WS lanes (coalesced loads): the lanes
// of a round sharing a digit find each other with 8 ballots (the warp multisplit of Merrill &
// Grimshaw), and the warp's running count of that digit (wcnt, shared) gives the earlier ones.
// Then, thread d owning digit d: an exclusive scan of digit d over the warps and one block scan
// of the digit totals give every element its rank in the sub-tile, the pairs are staged in
// shared memory in rank order, and rank i is written to
// global slot = tile base[d] + (i - first rank of d): each digit's run is contiguous.
//
// HV: whether values move with the keys. The two instantiations are separate entries (a
// keys-only pass needs neither the value registers nor their staging, which doubles the blocks
// an SM holds); each returns at once when the sort's carry decision (`sort_carries`, made on the
// device by the init for keys-only float sorts) is the other one, so the plan may launch both.
// Onesweep (OS): the block takes the next tile number of the pass (tiles of HK_BLOCK * IT
// keys, rows one after another), and the tile's digit offsets come from the row's counts of
// the pass (ghist) and the look-back over the earlier tiles of the row (status words: bit 31
// inclusive prefix, bit 30 the tile's own count, 30 bits of count; 0 not yet published).
#define HK_LOOK_AGG 0x40000000u
#define HK_LOOK_INC 0x80000000u
#define HK_LOOK_VAL 0x3fffffffu

// Onesweep: the count of digit t in the row's tiles before `tile`, from their status words
// (their inclusive prefix where published, else their own counts, walking back, HK_SORT_LB
// words in flight); publishes this tile's inclusive prefix. `run`: the tile's count of digit t,
// already published as its own count.
HK_DEV hk_u32 sort_look_back(hk_u32* look, hk_u64 tile, unsigned t, hk_u32 run) {
  hk_u32 excl = 0;
  if (tile == 0) return 0;
  for (hk_i64 j = (hk_i64)tile - 1;;) {
    hk_u32 st[HK_SORT_LB];
#pragma unroll
    for (int q = 0; q < HK_SORT_LB; ++q) st[q] = j - q >= 0 ? hk_load_relaxed(look + (hk_u64)(j - q) * 256 + t) : 0u;
    bool done = false;
    int q = 0;
#pragma unroll
    for (int u = 0; u < HK_SORT_LB; ++u) {
      if (done || q != u || st[u] == 0) continue;
      excl += st[u] & HK_LOOK_VAL;
      if (st[u] & HK_LOOK_INC) done = true;
      ++q;
    }
    if (done) break;
    j -= q;
  }
  hk_store_relaxed(look + tile * 256 + t, HK_LOOK_INC | (excl + run));
  return excl;
}

// Ranks a sub-tile's keys within their warp (IT rounds of WS lanes, in order): the lanes of a
// round sharing a digit find each other (hk_match_digit, or with HK_SORT_MATCH 2 a shared word
// per (warp, digit) each lane ORs its bit into), and the warp's running count of the digit,
// wcnt[warp][digit], gives the earlier ones: r[j] = that count + the group's lanes below.
// With HK_SORT_RANK_STORES 1 each key (and value) goes to its slot of the shared staging as soon
// as it is ranked, so no rank and no ranked key stays in a register through the later rounds and
// the look-back (the ranks kept until after the look-back spill: 3.1 M local-memory requests in
// a middle pass of 2^26 float32 keys, H100, 2026-12-07). The default since the twelfth session:
// on the H100 the library's sort of 2^26 float32 keys 1.935 ms against 1.982, argsort 3.207
// against 3.352 (the harness: spill stores 28 bytes against 64, middle passes 0.385 against
// 0.407 ms). HK_SORT_RANK_STORES 0 keeps the ranks in registers until after the look-back.
#ifndef HK_SORT_RANK_STORES
#define HK_SORT_RANK_STORES 1
#endif
template <class K, int IT, bool HV>
HK_DEV void sort_rank(hk_u32 (*wcnt)[256], hk_u32 (*mmask)[256], const K (&k)[IT], hk_u32 (&r)[IT],
                      K* sk, hk_u32* sv, const hk_u32 (&v)[IT],
                      int wbase, int cnt, hk_u32 shift, unsigned wid, unsigned lane) {
  const hk_lmask lt = (((hk_lmask)1) << lane) - 1;
  (void)mmask;
#pragma unroll
  for (int j = 0; j < IT; ++j) {
    const bool valid = wbase + j * HK_WARP_SIZE < cnt;
    const hk_u32 d = digit(k[j], shift);
#if HK_SORT_MMASK
    hk_u32* mm = &mmask[wid][d];
    if (valid) atomicOr(mm, 1u << lane);
    HK_SYNCWARP();
    const hk_lmask peers = valid ? *mm : 0u;
#else
    const hk_lmask peers = hk_match_digit(valid, d);
#endif
    const hk_u32 below = (hk_u32)HK_POPC(peers & lt);
#if HK_SORT_LEADER
    // the lowest lane of the digit's group updates the warp's count and broadcasts it
    hk_u32 old = 0;
    if (valid && below == 0) {
      old = wcnt[wid][d];
      wcnt[wid][d] = old + (hk_u32)HK_POPC(peers);
    }
    old = HK_SHFL(old, peers ? HK_FFS(peers) - 1 : (int)lane);  // (no peers: invalid lanes)
#if HK_SORT_MMASK
    if (valid && below == 0) *mm = 0;  // the group's word, clear for the next key
#endif
    HK_SYNCWARP();
#else
    const hk_u32 old = valid ? wcnt[wid][d] : 0u;
    HK_SYNCWARP();
    if (valid && below == 0) wcnt[wid][d] = old + (hk_u32)HK_POPC(peers);
    HK_SYNCWARP();
#endif
    r[j] = old + below;
#if HK_SORT_RANK_STORES
    if (valid) {
      sk[r[j]] = k[j];
      if (HV) sv[r[j]] = v[j];
    }
#else
    (void)sk, (void)sv, (void)v;
#endif
  }
}

template <class K, int IT, bool HV, bool OS>
struct SortShared {
  hk_u32 gbase[256], gadj[256], sums[HK_MAX_WARPS];  // gadj: gbase - the digit's first rank
  hk_u32 wcnt[HK_MAX_WARPS][256];
  K sk[HK_BLOCK * IT];
  hk_u32 sv[HV ? HK_BLOCK * IT : 1];
  hk_u32 sid;
  hk_u32 mmask[HK_SORT_MMASK ? HK_MAX_WARPS : 1][256];  // HK_SORT_MATCH 2: the peer masks
};

// FIRST / LAST (onesweep, SortArgs::kmap != 0): the first live pass reads the caller's keys and
// maps them (and makes the values: row positions, or the keys' bits); the last of two or more
// writes the sorted keys and values as sort_finish would (one live pass: the finish does).
// Separate instantiations, so the middle passes carry none of that work. (The first pass
// makes 3x the local-memory requests of the others and takes 0.50 ms against 0.41 in the H100
// harness; instantiating it per key map, the map a constant, made the middle passes 0.97 ms:
// reverted, 2026-12-07.)
template <class K, int IT, bool HV, bool OS, bool FIRST, bool LAST>
__device__ bool sort_scatter_body(const SortArgs& a, SortShared<K, IT, HV, OS>& sm, int before) {
  hk_u32* gbase = sm.gbase;
  hk_u32* sums = sm.sums;
  hk_u32 (*wcnt)[256] = sm.wcnt;
  K* sk = sm.sk;
  hk_u32* sv = sm.sv;
  const int p = (int)(a.shift / 8);
  const bool fb = (before & 1) != 0;
  const int kmap = OS ? (int)a.kmap : 0;
  const bool first = FIRST, last = LAST;
  const int vgen = FIRST ? (int)a.vmode : 0;  // 1 positions, 2 the keys' bits
  const hk_u32 shift = (hk_u32)a.shift;
  const unsigned t = threadIdx.x, lane = t % HK_WARP_SIZE, wid = t / HK_WARP_SIZE;
  hk_u64 row, tile;
  hk_i64 lo, hi;
  if (OS) {
    if (t == 0) sm.sid = HK_ATOMIC_ADD(sort_counter(a, p), 1u);
    HK_SYNC();
    const hk_u64 id = sm.sid;
    if (id >= (hk_u64)a.batch * (hk_u64)a.nos) return false;
    row = id / (hk_u64)a.nos;
    tile = id % (hk_u64)a.nos;
    lo = (hk_i64)tile * (HK_BLOCK * IT);
    hi = lo + HK_BLOCK * IT < a.n ? lo + HK_BLOCK * IT : a.n;
    // the pass's digit offsets in the row: an exclusive scan of its counts
    const hk_u32 gc = ((const hk_u32*)a.ghist)[(row * 8 + p) * 256 + t];
    gbase[t] = hk_block_scan<hk_u32, SortAdd>(gc, sums) - gc;
  } else {
    row = blockIdx.y;
    tile = blockIdx.x;
    const hk_u64 h = (row * 256 + t) * (hk_u64)a.ntiles + tile;
    gbase[t] = ((const hk_u32*)a.incl)[h] - ((const hk_u32*)a.hist)[h];  // exclusive
    lo = (hk_i64)tile * HK_TILE;
    hi = lo + HK_TILE < a.n ? lo + HK_TILE : a.n;
  }
  const hk_u64 off = row * (hk_u64)a.n;
  const K* mk = (const K*)(first ? sort_src(a) : fb ? a.mk_out : a.mk_in) + off;
  const hk_u32* vin = (const hk_u32*)(fb ? a.pos_out : a.pos_in) + off;
  K* mko = (K*)(fb ? a.mk_in : a.mk_out) + off;
  hk_u32* vout = (hk_u32*)(fb ? a.pos_in : a.pos_out) + off;
  // the last pass's outputs: the caller's keys and values, as sort_finish writes them
  K* fkeys = (K*)a.keys + off;
  const bool exact = !a.korig || ((const hk_u64*)a.ctl)[2] == 0;
  for (hk_i64 c0 = lo; c0 < hi; c0 += HK_BLOCK * IT) {
    // sub-tile relative indices from here on (32 bits)
    const int cnt = hi - c0 < HK_BLOCK * IT ? (int)(hi - c0) : HK_BLOCK * IT;
    const K* src = mk + c0;
    K k[IT];
    hk_u32 v[IT], r[IT];
    const int wbase = (int)(wid * IT * HK_WARP_SIZE + lane);
    // Every load of the sub-tile first: the ranking's warp barriers would otherwise keep one
    // load per warp in flight (measured on the H200: the pass was latency-bound at ~0.3 TB/s).
#pragma unroll
    for (int j = 0; j < IT; ++j) {
      const int i = wbase + j * HK_WARP_SIZE;
      const K x = i < cnt ? src[i] : (K)0;
      if (HV) {
        if (vgen == 1) {
          v[j] = (hk_u32)(c0 + i);
        } else if (vgen == 2) {
          v[j] = (hk_u32)x;
        } else {
          v[j] = i < cnt ? vin[c0 + i] : 0u;
        }
      }
      k[j] = first ? map_bits(x, kmap) : x;
    }
    for (int w = 0; w < HK_MAX_WARPS; ++w) wcnt[w][t] = 0;
#if HK_SORT_MMASK
    for (int w = 0; w < HK_MAX_WARPS; ++w) sm.mmask[w][t] = 0;
#endif
    hk_u32* look = 0;
    if (OS) {
      const hk_u64 nw = (hk_u64)a.batch * (hk_u64)a.nos * 256;
      look = (hk_u32*)a.look + (fb ? nw : 0) + row * (hk_u64)a.nos * 256;
      // zero the next live pass's word of this tile (the other buffer: the previous live
      // pass, finished, used it)
      ((hk_u32*)a.look)[(fb ? 0 : nw) + (row * (hk_u64)a.nos + tile) * 256 + t] = 0;
    }
    HK_SYNC();
    // The sub-tile's digit counts per warp, then thread t (digit t) scans them over the warps,
    // publishes the tile's count before the ranking (the "early counts" of CUB's onesweep: later
    // tiles' look-back rarely waits) and sets each warp's running count of digit t to its first
    // rank in the sub-tile, so the ranking gives every key its rank in the sub-tile directly
    // (the ranks of CUB's BlockRadixRankMatchEarlyCounts; counting after the ranking and
    // scanning then took 0.607 ms a pass against 0.540, H100 harness, 2026-12-06).
#pragma unroll
    for (int j = 0; j < IT; ++j)
      if (wbase + j * HK_WARP_SIZE < cnt) HK_ATOMIC_ADD(&wcnt[wid][digit(k[j], shift)], 1u);
    HK_SYNC();
    hk_u32 run = 0, wbefore[HK_MAX_WARPS];
#pragma unroll
    for (int w = 0; w < HK_MAX_WARPS; ++w) {
      wbefore[w] = run;
      run += wcnt[w][t];
    }
    if (OS) hk_store_relaxed(look + tile * 256 + t, (tile == 0 ? HK_LOOK_INC : HK_LOOK_AGG) | run);
    const hk_u32 firstrank = hk_block_scan<hk_u32, SortAdd>(run, sums) - run;
#pragma unroll
    for (int w = 0; w < HK_MAX_WARPS; ++w) wcnt[w][t] = firstrank + wbefore[w];
    HK_SYNC();
    sort_rank<K, IT, HV>(wcnt, sm.mmask, k, r, sk, sv, v, wbase, cnt, shift, wid, lane);
    if (OS) gbase[t] += sort_look_back(look, tile, t, run);
    sm.gadj[t] = gbase[t] - firstrank;  // a key's destination is gadj[digit] + its tile rank
#if !HK_SORT_RANK_STORES
    HK_SYNC();
#pragma unroll
    for (int j = 0; j < IT; ++j) {
      if (wbase + j * HK_WARP_SIZE < cnt) {
        sk[r[j]] = k[j];
        if (HV) sv[r[j]] = v[j];
      }
    }
#endif
    HK_SYNC();
    for (int i = t; i < cnt; i += HK_BLOCK) {
      const K kk = sk[i];
      const hk_u32 d = digit(kk, shift);
      const hk_u32 dst = sm.gadj[d] + (hk_u32)i;
      if (!last) {
        mko[dst] = kk;
        if (HV) vout[dst] = sv[i];
      } else if (!HV) {
        fkeys[dst] = unmap_bits(kk, kmap);  // keys only (sort_finish's unmap and flip cases)
      } else if (a.vmode == 2) {
        fkeys[dst] = (K)sv[i];  // the keys' bits carried
      } else {
        const hk_u32 pos = sv[i];  // argsort: the row position
        if (!a.nokeys) fkeys[dst] = exact ? unmap_bits(kk, kmap) : ((const K*)a.korig)[off + pos];
        if (a.iota) {
          ((hk_i64*)a.vals)[off + dst] = (hk_i64)pos;
        } else if (a.vals) {
          ((hk_i64*)a.vals)[off + dst] = ((const hk_i64*)a.vorig)[off + pos];
        }
      }
    }
    HK_SYNC();
    gbase[t] += run;
  }
  return true;
}

// ROLES (a bit mask): which bodies a kernel holds, 1 the first live pass's, 2 a middle pass's,
// 4 the last's (onesweep with SortArgs::kmap; the other paths run the middle body alone). A
// kernel returns at once on a pass whose body it does not hold, so kernels holding disjoint
// roles are queued together and the device runs the one that applies; each compiles with its
// own registers.
template <class K, int IT, bool HV, bool OS, int ROLES = 7>
__device__ void sort_scatter(const SortArgs& a) {
  __shared__ SortShared<K, IT, HV, OS> sm;
  const hk_u64 diff = sort_diff(a);
  const int p = (int)(a.shift / 8);
  if (!pass_live(diff, p)) return;
  if (sort_carries(a) != HV) return;
  const int before = live_before(diff, p);
  const bool fly = OS && a.kmap != 0;
  // Onesweep blocks fewer than the tiles (the plan's persistent grid for a launch that is
  // likely to return at once: the carrying pass of a keys-only float sort) take tiles until none
  // is left; tiles are taken in order, so the look-back waits only on running blocks.
  const bool more = OS && (hk_u64)gridDim.x * gridDim.y < (hk_u64)a.batch * (hk_u64)a.nos;
  if (fly && before == 0) {
    if (ROLES & 1)
      while (sort_scatter_body<K, IT, HV, OS, true, false>(a, sm, before) && more) {
      }
  } else if (fly && before == live_before(diff, (int)a.passes) - 1) {
    if (ROLES & 4)
      while (sort_scatter_body<K, IT, HV, OS, false, true>(a, sm, before) && more) {
      }
  } else if (ROLES & 2) {
    while (sort_scatter_body<K, IT, HV, OS, false, false>(a, sm, before) && more) {
    }
  }
}

// The inverse of map_key (a NaN comes back as a NaN, -0.0 as +0.0).
HK_DEV float unmap_f32(hk_u32 m) { return __uint_as_float((m & 0x80000000u) ? (m & 0x7fffffffu) : ~m); }
HK_DEV void unmap_to(hk_u32 m, hk_u8* o) { *o = (hk_u8)m; }
HK_DEV void unmap_to(hk_u32 m, hk_i8* o) { *o = (hk_i8)(hk_u8)(m ^ 0x80u); }
HK_DEV void unmap_to(hk_u32 m, hk_u16* o) { *o = (hk_u16)m; }
HK_DEV void unmap_to(hk_u32 m, hk_i16* o) { *o = (hk_i16)(hk_u16)(m ^ 0x8000u); }
HK_DEV void unmap_to(hk_u32 m, hk_u32* o) { *o = m; }
HK_DEV void unmap_to(hk_u32 m, hk_i32* o) { *o = (hk_i32)(m ^ 0x80000000u); }
HK_DEV void unmap_to(hk_u64 m, hk_u64* o) { *o = m; }
HK_DEV void unmap_to(hk_u64 m, hk_i64* o) { *o = (hk_i64)(m ^ 0x8000000000000000ull); }
HK_DEV void unmap_to(hk_u32 m, float* o) { *o = unmap_f32(m); }
HK_DEV void unmap_to(hk_u32 m, f16_key* o) { o->b = hk_f2h(unmap_f32(m)); }
HK_DEV void unmap_to(hk_u32 m, bf16_key* o) { o->b = hk_f2bf(unmap_f32(m)); }
HK_DEV void unmap_to(hk_u64 m, double* o) {
  *o = __longlong_as_double((hk_i64)((m & 0x8000000000000000ull) ? (m & 0x7fffffffffffffffull) : ~m));
}

// The sorted keys (and values) from the buffer the last live pass wrote.
template <class S, class R, class K>
__device__ void sort_finish(const SortArgs& a) {
  const hk_u64 total = (hk_u64)a.batch * (hk_u64)a.n;
  if (a.kmap) {
    // mapped on the fly: two or more live passes, the last wrote the outputs; none (every
    // key equal), the keys stay where they are and argsort's positions are in order
    const int live = live_before(sort_diff(a), (int)a.passes);
    if (live >= 2) return;
    if (live == 0) {
      if (a.src && !a.nokeys)  // every key equal: the sorted keys are the keys
        for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
             t += (hk_u64)gridDim.x * HK_BLOCK)
          ((S*)a.keys)[t] = ((const S*)a.src)[t];
      if (a.iota)
        for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
             t += (hk_u64)gridDim.x * HK_BLOCK)
          ((hk_i64*)a.vals)[t] = (hk_i64)(t % (hk_u64)a.n);
      return;
    }
  }
  const bool fb = from_b(sort_diff(a), (int)a.passes);
  const K* mk = (const K*)(fb ? a.mk_out : a.mk_in);
  const hk_u32* v = (const hk_u32*)(fb ? a.pos_out : a.pos_in);
  const bool unmap = !sort_carries(a) && a.vmode != 0;  // a float row without NaN or -0.0
  // argsort: keys unmapped where the map is invertible (integers: no copy was made; floats
  // without NaN or -0.0), else gathered from the copy
  const bool exact = !a.korig || ((const hk_u64*)a.ctl)[2] == 0;
  for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
       t += (hk_u64)gridDim.x * HK_BLOCK) {
    if (unmap) {
      unmap_to(mk[t], (S*)a.keys + t);
    } else if (a.vmode == 0) {
      ((R*)a.keys)[t] = (R)(mk[t] ^ (K)a.flip);
    } else if (a.vmode == 2) {
      ((R*)a.keys)[t] = (R)v[t];
    } else {
      const hk_u64 src = (t / (hk_u64)a.n) * (hk_u64)a.n + v[t];
      if (a.nokeys) {
      } else if (exact) {
        unmap_to(mk[t], (S*)a.keys + t);
      } else {
        ((S*)a.keys)[t] = ((const S*)a.korig)[src];
      }
      if (a.iota) {
        ((hk_i64*)a.vals)[t] = (hk_i64)v[t];
      } else if (a.vals) {
        ((hk_i64*)a.vals)[t] = ((const hk_i64*)a.vorig)[src];
      }
    }
  }
}

// Sub-tile items per thread (HK_SORT_IT32/64) and the scatter's minimum resident blocks per SM
// (HK_SORT_MINB keys only, HK_SORT_MINBV with values: caps their registers on CUDA). Keys only,
// sort_harness.cu on the H100 (2026-12-06, 2^26 float32): 3 blocks of 80 registers 2.56 ms,
// 4 of 64 (32 bytes spilled) 2.33, 5 of 48 2.16 (passes 0.45 ms), 6 of 40 with IT 8 2.63; IT 10
// at 5 blocks 2.38, IT 13 at 5 blocks 2.17, IT 14 2.13 with 16 bytes spilled (the default). The
// shared memory stays under 48 KiB (argsort's passes at IT 14: 256 x 14 x (4 + 4) bytes of
// staging and 16 KiB of per-warp counts and match words, 46 KiB).
// cupy_sort_scatter_<K> moves values, cupy_sort_scatterk_<K> keys only.
#define HK_SORT_K(K, IT)                                                                      \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_block_##K(SortArgs a) {    \
    sort_block<hk_##K>(a);                                                                    \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_hist_##K(SortArgs a) {     \
    sort_hist<hk_##K>(a);                                                                     \
  }                                                                                           \
  extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINBV) cupy_sort_scatter_##K(SortArgs a) { \
    sort_scatter<hk_##K, IT, true, false>(a);                                                 \
  }                                                                                           \
  extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINB) cupy_sort_scatterk_##K(SortArgs a) { \
    sort_scatter<hk_##K, IT, false, false>(a);                                                \
  }                                                                                           \
  extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINBV) cupy_sort_onesweep_##K(SortArgs a) { \
    sort_scatter<hk_##K, IT, true, true>(a);                                                  \
  }                                                                                           \
  extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINB) cupy_sort_onesweepk_##K(SortArgs a) { \
    sort_scatter<hk_##K, IT, false, true>(a);                                                 \
  }
HK_SORT_K(u32, HK_SORT_IT32)
HK_SORT_K(u64, HK_SORT_IT64)

#define HK_SORT_DT(DT, S, R, K)                                                               \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_init_##DT(SortArgs a) {    \
    sort_init<S, K>(a);                                                                       \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_gather_##DT(SortArgs a) {  \
    sort_gather<S>(a);                                                                        \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_tinit_##DT(SortArgs a) {   \
    sort_tinit<S, R, K>(a);                                                                   \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_sort_finish_##DT(SortArgs a) {  \
    sort_finish<S, R, K>(a);                                                                  \
  }
HK_SORT_DT(bool, hk_u8, hk_u8, hk_u32)
HK_SORT_DT(int8, hk_i8, hk_u8, hk_u32)
HK_SORT_DT(int16, hk_i16, hk_u16, hk_u32)
HK_SORT_DT(int32, hk_i32, hk_u32, hk_u32)
HK_SORT_DT(int64, hk_i64, hk_u64, hk_u64)
HK_SORT_DT(uint8, hk_u8, hk_u8, hk_u32)
HK_SORT_DT(uint16, hk_u16, hk_u16, hk_u32)
HK_SORT_DT(uint32, hk_u32, hk_u32, hk_u32)
HK_SORT_DT(uint64, hk_u64, hk_u64, hk_u64)
HK_SORT_DT(float16, f16_key, hk_u16, hk_u32)
HK_SORT_DT(bfloat16, bf16_key, hk_u16, hk_u32)
HK_SORT_DT(float32, float, hk_u32, hk_u32)
HK_SORT_DT(float64, double, hk_u64, hk_u64)
