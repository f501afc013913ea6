// Inclusive scans (cumsum, cumprod) along the last axis of a [batch, n] layout: one block per
// row, the row walked in chunks of HK_BLOCK elements, each chunk scanned across the block
// (hk_block_scan) and offset by the running total of the earlier chunks, so any n works.
// Integers wrap (computed in unsigned arithmetic), bool is or/and, float16/bfloat16 accumulate
// in float and are rounded once per output element.
// Entry points: cupy_scan_{sum,prod}_<dtype>(ScanArgs), HK_BLOCK threads, grid = batch blocks
// (2-D when batch > 65535). The output is C-contiguous and may be the input (same layout).
#include "portability.h"

struct ScanArgs {
  hk_u64 in;   // address of the input's first element (its layout offset applied)
  hk_u64 out;  // address of the output's first element
  hk_i64 batch, n;
  hk_i64 s0, s1;  // input strides in elements
};

#define HK_INT_TAG(NAME, S, A)                                              \
  struct NAME {                                                             \
    typedef S St;                                                           \
    typedef A Acc;                                                          \
    static __device__ __forceinline__ A load(S x) { return (A)x; }          \
    static __device__ __forceinline__ S store(A a) { return (S)a; }         \
    static __device__ __forceinline__ A add(A a, A b) { return a + b; }     \
    static __device__ __forceinline__ A mul(A a, A b) { return a * b; }     \
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
};
struct t_float16 {
  typedef hk_u16 St;
  typedef float Acc;
  static __device__ __forceinline__ float load(hk_u16 x) { return hk_h2f(x); }
  static __device__ __forceinline__ hk_u16 store(float a) { return hk_f2h(a); }
  static __device__ __forceinline__ float add(float a, float b) { return a + b; }
  static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
};
struct t_bfloat16 {
  typedef hk_u16 St;
  typedef float Acc;
  static __device__ __forceinline__ float load(hk_u16 x) { return hk_bf2f(x); }
  static __device__ __forceinline__ hk_u16 store(float a) { return hk_f2bf(a); }
  static __device__ __forceinline__ float add(float a, float b) { return a + b; }
  static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
};

template <class Tag, bool PROD>
struct ScanOp {
  typedef typename Tag::Acc A;
  static __device__ __forceinline__ A id() { return PROD ? (A)1 : (A)0; }
  static __device__ __forceinline__ A f(A a, A b) { return PROD ? Tag::mul(a, b) : Tag::add(a, b); }
};

template <class Tag, bool PROD>
__device__ void scan_rows(const ScanArgs& a) {
  typedef typename Tag::Acc A;
  typedef typename Tag::St S;
  typedef ScanOp<Tag, PROD> Op;
  __shared__ A sums[HK_MAX_WARPS];
  const hk_u64 row = hk_block_id();
  if (row >= (hk_u64)a.batch) return;
  const S* in = (const S*)a.in + (hk_i64)row * a.s0;
  S* out = (S*)a.out + (hk_i64)row * a.n;
  A carry = Op::id();
  for (hk_i64 c0 = 0; c0 < a.n; c0 += HK_BLOCK) {
    const hk_i64 j = c0 + threadIdx.x;
    A v = j < a.n ? Tag::load(in[j * a.s1]) : Op::id();
    v = hk_block_scan<A, Op>(v, sums);
    const A total = sums[HK_MAX_WARPS - 1];
    if (j < a.n) out[j] = Tag::store(Op::f(carry, v));
    carry = Op::f(carry, total);
    HK_SYNC();  // sums is rewritten by the next chunk
  }
}

#define HK_SCAN_ENTRIES(DT)                                                                   \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_sum_##DT(ScanArgs a) {     \
    scan_rows<t_##DT, false>(a);                                                              \
  }                                                                                           \
  extern "C" __global__ void __launch_bounds__(HK_BLOCK) cupy_scan_prod_##DT(ScanArgs a) {    \
    scan_rows<t_##DT, true>(a);                                                               \
  }
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
