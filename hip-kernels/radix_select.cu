// Radix select (order statistics without a sort) over radix_sort.cu's key maps: appended to
// radix_sort.cu and radix_sort_passes.cu as one module (core/src/gpu/sortscan/mod.rs,
// RADIX_SORT_CU), so it uses their map_key, unmap_to and SortAdd and has no includes of its own.

// ---- Selection: order statistics without a sort ----------------------------------------------
// out[b, j0 + j] = the kth[j]-th smallest key of row b (NumPy order, NaN last), j < m <= 4, by
// MSD radix select on the mapped keys: per digit of HK_SEL_BITS (from the top), a histogram of
// the keys whose higher digits equal the prefix found so far, then the bucket holding the
// remaining rank is appended to the prefix (u32 keys: 3 digits, u64: 6). Each pass reads the
// keys once; nothing is moved. The selected key is unmapped (a NaN comes back as a NaN, -0.0 as
// +0.0: they are equal to it in the order).
//   cupy_select_init        state[b][j] = {prefix 0, rank kth[j]}, histograms zeroed
//   cupy_select_hist_<dt>   per (row, tile of HK_SEL_TILE): counts of the matching keys' digit
//                           in shared memory, added to the row's global histogram
//   cupy_select_pick_<K>    per row: the bucket holding the rank, prefix and rank updated,
//                           histogram zeroed for the next pass
//   cupy_select_out_<dt>    the unmapped prefixes
#define HK_SEL_BITS 11
#define HK_SEL_BINS (1 << HK_SEL_BITS)
#define HK_SEL_MAX 4
#define HK_SEL_TILE 65536

struct SelectArgs {
  hk_u64 keys, out, state, hist;  // state: u64 [batch][HK_SEL_MAX][2]; hist: u32 [batch][MAX][BINS]
  hk_i64 batch, n, ntiles;
  hk_i64 shift, bits;  // this pass's digit: bits [shift, shift + bits)
  hk_i64 m, mtot, j0;  // m ranks of this launch, written to out columns j0.. of mtot
  hk_i64 k0, k1, k2, k3;
};

template <class K>
HK_DEV K sel_mask(const SelectArgs& a) {  // the bits above the digit (already fixed)
  const int top = (int)(a.shift + a.bits);
  return top >= (int)(8 * sizeof(K)) ? (K)0 : (K)(~(K)0 << top);
}

extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_select_init(SelectArgs a) {
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  hk_u64* st = (hk_u64*)a.state + row * HK_SEL_MAX * 2;
  if (threadIdx.x < HK_SEL_MAX) {
    const hk_i64 ks[4] = {a.k0, a.k1, a.k2, a.k3};
    st[2 * threadIdx.x] = 0;
    st[2 * threadIdx.x + 1] = (hk_u64)ks[threadIdx.x];
  }
  hk_u32* h = (hk_u32*)a.hist + row * HK_SEL_MAX * HK_SEL_BINS;
  for (int i = threadIdx.x; i < HK_SEL_MAX * HK_SEL_BINS; i += HK_BLOCK) h[i] = 0;
}

template <class S, class K>
__device__ void select_hist(const SelectArgs& a) {
  __shared__ hk_u32 sh[HK_SEL_MAX][HK_SEL_BINS];
  const hk_u64 row = blockIdx.y, tile = blockIdx.x;
  const int m = (int)a.m;
  for (int i = threadIdx.x; i < HK_SEL_MAX * HK_SEL_BINS; i += HK_BLOCK) sh[i / HK_SEL_BINS][i % HK_SEL_BINS] = 0;
  const hk_u64* st = (const hk_u64*)a.state + row * HK_SEL_MAX * 2;
  K pre[HK_SEL_MAX];
#pragma unroll
  for (int j = 0; j < HK_SEL_MAX; ++j) pre[j] = j < m ? (K)st[2 * j] : (K)0;
  const K mask = sel_mask<K>(a);
  const hk_u32 dm = (1u << a.bits) - 1u;
  HK_SYNC();
  const S* keys = (const S*)a.keys + row * (hk_u64)a.n;
  const hk_i64 lo = (hk_i64)tile * HK_SEL_TILE;
  const hk_i64 hi = lo + HK_SEL_TILE < a.n ? lo + HK_SEL_TILE : a.n;
  for (hk_i64 i = lo + threadIdx.x; i < hi; i += HK_BLOCK) {
    const K mk = map_key(keys[i]);
    const hk_u32 d = (hk_u32)(mk >> a.shift) & dm;
#pragma unroll
    for (int j = 0; j < HK_SEL_MAX; ++j)
      if (j < m && (mk & mask) == pre[j]) HK_ATOMIC_ADD(&sh[j][d], 1u);
  }
  HK_SYNC();
  hk_u32* h = (hk_u32*)a.hist + row * HK_SEL_MAX * HK_SEL_BINS;
  for (int i = threadIdx.x; i < m * HK_SEL_BINS; i += HK_BLOCK) {
    const hk_u32 c = sh[i / HK_SEL_BINS][i % HK_SEL_BINS];
    if (c) HK_ATOMIC_ADD(&h[i], c);
  }
}

// One block per row: thread t owns bins [t * PER, (t + 1) * PER) of the digit.
template <class K>
__device__ void select_pick(const SelectArgs& a) {
  __shared__ hk_u32 sums[HK_MAX_WARPS];
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  const int PER = HK_SEL_BINS / HK_BLOCK;
  hk_u64* st = (hk_u64*)a.state + row * HK_SEL_MAX * 2;
  hk_u32* hrow = (hk_u32*)a.hist + row * HK_SEL_MAX * HK_SEL_BINS;
  const hk_u32 nb = 1u << a.bits;
  for (int j = 0; j < (int)a.m; ++j) {
    hk_u32* h = hrow + j * HK_SEL_BINS;
    hk_u32 c[HK_SEL_BINS / HK_BLOCK];
    hk_u32 s = 0;
    for (int q = 0; q < PER; ++q) {
      const hk_u32 b = threadIdx.x * PER + q;
      c[q] = b < nb ? h[b] : 0u;
      s += c[q];
    }
    const hk_u32 before = hk_block_scan<hk_u32, SortAdd>(s, sums) - s;
    const hk_u64 k = st[2 * j + 1];  // read by every thread before the one owner writes
    HK_SYNC();
    if (k >= before && k < (hk_u64)before + s) {
      hk_u32 acc = before;
      for (int q = 0; q < PER; ++q) {
        if (k < (hk_u64)acc + c[q]) {
          const hk_u64 b = threadIdx.x * PER + q;
          st[2 * j] |= b << a.shift;
          st[2 * j + 1] = k - acc;
          break;
        }
        acc += c[q];
      }
    }
    for (int q = 0; q < PER; ++q) h[threadIdx.x * PER + q] = 0;
    HK_SYNC();
  }
}

template <class S, class K>
__device__ void select_out(const SelectArgs& a) {
  const hk_u64 total = (hk_u64)a.batch * (hk_u64)a.m;
  for (hk_u64 t = (hk_u64)blockIdx.x * HK_BLOCK + threadIdx.x; t < total;
       t += (hk_u64)gridDim.x * HK_BLOCK) {
    const hk_u64 row = t / (hk_u64)a.m, j = t % (hk_u64)a.m;
    const K mk = (K)((const hk_u64*)a.state)[(row * HK_SEL_MAX + j) * 2];
    unmap_to(mk, (S*)a.out + row * (hk_u64)a.mtot + (hk_u64)a.j0 + j);
  }
}

#define HK_SELECT_K(K)                                                                       \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_select_pick_##K(SelectArgs a) { \
    select_pick<hk_##K>(a);                                                                  \
  }
HK_SELECT_K(u32)
HK_SELECT_K(u64)

#define HK_SELECT_DT(DT, S, K)                                                               \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_select_hist_##DT(SelectArgs a) { \
    select_hist<S, K>(a);                                                                    \
  }                                                                                          \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_select_out_##DT(SelectArgs a) {  \
    select_out<S, K>(a);                                                                     \
  }
HK_SELECT_DT(bool, hk_u8, hk_u32)
HK_SELECT_DT(int8, hk_i8, hk_u32)
HK_SELECT_DT(int16, hk_i16, hk_u32)
HK_SELECT_DT(int32, hk_i32, hk_u32)
HK_SELECT_DT(int64, hk_i64, hk_u64)
HK_SELECT_DT(uint8, hk_u8, hk_u32)
HK_SELECT_DT(uint16, hk_u16, hk_u32)
HK_SELECT_DT(uint32, hk_u32, hk_u32)
HK_SELECT_DT(uint64, hk_u64, hk_u64)
HK_SELECT_DT(float16, f16_key, hk_u32)
HK_SELECT_DT(bfloat16, bf16_key, hk_u32)
HK_SELECT_DT(float32, float, hk_u32)
HK_SELECT_DT(float64, double, hk_u64)
