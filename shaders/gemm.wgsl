// Tiled batched GEMM: C[b] = A[b] @ B[b] for any strides (batch strides may be 0).
// The Rust side (`backends/wgpu/src/gemm.rs`, `gemm_block_text`) replaces before compilation: `ELEM`
// the element type (f32, f64, vec2<f32> or vec2<f64> for complex), `MADD` the body of `madd`
// (c + a b; complex: the complex product), `RMV` x `RNV` the invocation's block of C (rows x
// columns), `BKV` the k slice, `NBUFV` the number of workgroup tile buffers (2: double-buffered),
// `ASZ`/`BSZ` their sizes,
// `FIN` the rounding of the final C (float16/bfloat16 held as f32 words: `round_f16(x)`, its
// function inserted at `HELPERS`; else `x`), and the marks in `main` with generated code.
// A workgroup of 16x16 invocations computes a (16 RM) x (16 RN) tile of C, each invocation an
// RM x RN block of rows lid.y + 16 i and columns lid.x + 16 j (so the reads of B's tile and the
// stores of C are consecutive across lid.x); the K dimension advances in slices of BK staged
// through workgroup memory. The accumulators are named scalars and the block's loads, products
// and stores straight-line code (or loops over a local array with `CUPY_WGPU_GEMM_LOOPS=1`).
// Each slice's global loads go to registers (`FETCH`) before they are written to workgroup
// memory (`COMMIT`). Double-buffered (NBUF = 2), the next slice's loads are issued before the
// current slice's products and committed to the other buffer after them: one barrier per slice
// and the global latency hidden behind the products.
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

const RM: u32 = RMVu;
const RN: u32 = RNVu;
const BM: u32 = 16u * RM;
const BN: u32 = 16u * RN;
const BK: u32 = BKVu;
const NBUF: u32 = NBUFVu;

var<workgroup> As: array<T, ASZ>; // [NBUF][BK][BM]
var<workgroup> Bs: array<T, BSZ>; // [NBUF][BK][BN]

fn madd(c: T, a: T, b: T) -> T { return MADD; }
HELPERS
fn fin(x: T) -> T { if (mt.last != 0u) { return FIN; } return x; }

// Element `e` (< BM BK) of the A tile at k0: BM rows x BK k; consecutive invocations walk k
// (coalesced for row-major A). Zero outside A.
fn load_a(abase: i32, row0: u32, k0: u32, e: u32) -> T {
  let gr = row0 + e / BK;
  let gk = k0 + e % BK;
  if (gr < mt.m && gk < mt.k) {
    return A[u32(abase + i32(gr) * mt.a_sm + i32(gk) * mt.a_sk)];
  }
  return T(0);
}

// Element `e` (< BK BN) of the B tile at k0: BK k x BN columns; consecutive invocations walk
// n (coalesced for row-major B). Zero outside B.
fn load_b(bbase: i32, col0: u32, k0: u32, e: u32) -> T {
  let gk = k0 + e / BN;
  let gc = col0 + e % BN;
  if (gk < mt.k && gc < mt.n) {
    return B[u32(bbase + i32(gk) * mt.b_sk + i32(gc) * mt.b_sn)];
  }
  return T(0);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let bz = i32(wid.z + mt.batch0);
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let abase = mt.a_off + bz * mt.a_sb;
  let bbase = mt.b_off + bz * mt.b_sb;
ACC_DECL
PROLOGUE
  for (var k0 = mt.kb; k0 < mt.ke; k0 += BK) {
FETCH
    for (var kk = 0u; kk < BK; kk++) {
INNER
    }
COMMIT
  }
  let cbase = mt.c_off + bz * mt.c_sb;
STORE
}
