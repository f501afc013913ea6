// Tiled batched GEMM: C[b] = A[b] @ B[b] for any strides (batch strides may be 0).
// The Rust side replaces before compilation: `ELEM` the element type (f32, f64, vec2<f32> or
// vec2<f64> for complex), `MADD` the body of `madd` (c + a b; complex: the complex product),
// `RTV` the invocation's block (4, or 8 for real types on hardware adapters; `RTSQ` its square), `BKV` the k slice
// (16; 8 for complex128 and for RTV = 8, so the tiles stay within 16 KiB of workgroup memory),
// `TILE` = 16 RTV BKV, `LOADS` = TILE / 256, `FIN` the rounding of the final C (float16/bfloat16,
// held as f32 words: `round_f16(x)`, its function inserted after `madd`; else `x`).
// A workgroup of 16x16 invocations computes a (16 RTV)^2 tile of C, each invocation an RTV x RTV
// block of rows lid.y + 16 i and columns lid.x + 16 j (so the reads of B's tile and the stores
// of C are consecutive across lid.x); the K dimension advances in slices of BKV staged through
// workgroup memory. With RTV = 8 an invocation reads 16 workgroup words per 64 products (4x4:
// 8 per 16): the variant for hardware adapters with room for 64 accumulators.
// The accumulator declarations, one k of the block product and the stores of C (the three
// upper-case marks in `main`) are written out by the Rust side (`gemm_block_text`): the
// accumulators as named scalars and the block's loads, products and stores as straight-line
// code, so no driver has to unroll a loop to keep them in registers.
// Out-of-range rows/columns/k are padded with zeros, so any m, n, k works.
// One dispatch covers k in [kb, ke) (kb a multiple of BK) and stores C, or adds to C when
// `accum` is set: drivers that cap shader loops (Mesa's llvmpipe) get K in several dispatches.
// Only the dispatch with `last` set rounds C (float16/bfloat16: f32 accumulation, one rounding).
alias T = ELEM;

struct Meta {
  m: u32, n: u32, k: u32, batch0: u32,
  a_off: i32, a_sb: i32, a_sm: i32, a_sk: i32,
  b_off: i32, b_sb: i32, b_sk: i32, b_sn: i32,
  c_off: i32, c_sb: i32, c_sm: i32, c_sn: i32,
  kb: u32, ke: u32, accum: u32, last: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> A: array<T>;
@group(0) @binding(2) var<storage, read> B: array<T>;
@group(0) @binding(3) var<storage, read_write> C: array<T>;

const RT: u32 = RTVu;
const BM: u32 = 16u * RT;
const BN: u32 = 16u * RT;
const BK: u32 = BKVu;

var<workgroup> As: array<T, TILE>; // [BK][BM]
var<workgroup> Bs: array<T, TILE>; // [BK][BN]

fn madd(c: T, a: T, b: T) -> T { return MADD; }
HELPERS
fn fin(x: T) -> T { if (mt.last != 0u) { return FIN; } return x; }

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let bz = i32(wid.z + mt.batch0);
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let abase = mt.a_off + bz * mt.a_sb;
  let bbase = mt.b_off + bz * mt.b_sb;
ACC_DECL
  for (var k0 = mt.kb; k0 < mt.ke; k0 += BK) {
    for (var l = 0u; l < LOADSu; l++) {
      let e = li + l * 256u;
      // A tile: BM rows x BK k; consecutive invocations walk k (coalesced for row-major A).
      let mm = e / BK;
      let kk = e % BK;
      let gr = row0 + mm;
      let gk = k0 + kk;
      var va = T(0);
      if (gr < mt.m && gk < mt.k) {
        va = A[u32(abase + i32(gr) * mt.a_sm + i32(gk) * mt.a_sk)];
      }
      As[kk * BM + mm] = va;
      // B tile: BK k x BN cols; consecutive invocations walk n (coalesced for row-major B).
      let kb = e / BN;
      let nb = e % BN;
      let gkb = k0 + kb;
      let gc = col0 + nb;
      var vb = T(0);
      if (gkb < mt.k && gc < mt.n) {
        vb = B[u32(bbase + i32(gkb) * mt.b_sk + i32(gc) * mt.b_sn)];
      }
      Bs[kb * BN + nb] = vb;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk++) {
INNER
    }
    workgroupBarrier();
  }
  let cbase = mt.c_off + bz * mt.c_sb;
STORE
}
