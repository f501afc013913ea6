// Batched GEMM through cooperative matrices (tensor cores): Ct[b] = A[b] @ B[b], A and B float16
// (`AB` = f16, read as f16 from storage) or float32 (`AB` = f32, CUPY_TF32), accumulated
// in float32 S x S fragments (`coop_mat{S}x{S}<f32, C>`) and stored to a float32 Ct padded to
// whole tiles (the Rust side casts it into the caller's C). The Rust side (`gemm_coop_text.rs`)
// replaces `SV` (the fragment size, 16 or 8), `ABT`, `WMV` x `WNV` (subgroups of a workgroup),
// `FMV` x `FNV` (fragments of C per subgroup), `SGV` (the subgroup size), `PAIR_A`/`PAIR_B`
// (the element-wise global reads) and the marks in `main` (straight-line fragment code).
// `WORD` is the operands' element type: `AB`, or `vec4<AB>` where the Rust side reads them as
// whole vec4s along their unit-stride axis. `LOOP` is the K loop the Rust side writes: staging
// through workgroup memory, single or double-buffered (`coop_text`), then the fragments.
// A workgroup of WM WN subgroups computes a BM x BN tile (BM = WM FM S, BN = WN FN S); each
// K slice of BK (`BKV`: 32 unless the shape's fifth part says 16 or 64) is staged through
// workgroup memory (A as [BM][LDA], B as [BK][LDB], rows padded by 8 elements, so every
// fragment's start and row stride are multiples of 16 bytes), each invocation loading pairs
// (or vec4s) of consecutive k (A) or n (B), zero outside the operands.
ENABLE_F16
enable wgpu_cooperative_matrix;

alias AB = ABT;

struct Meta {
  m: u32, n: u32, k: u32, batch0: u32,
  a_off: i32, a_sb: i32, a_sm: i32, a_sk: i32,
  b_off: i32, b_sb: i32, b_sk: i32, b_sn: i32,
  c_sb: u32, c_ld: u32, pad0: u32, pad1: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> Ag: array<WORD>;
@group(0) @binding(2) var<storage, read> Bg: array<WORD>;
@group(0) @binding(3) var<storage, read_write> Ct: array<f32>;

const S: u32 = SVu;
const WM: u32 = WMVu;
const WN: u32 = WNVu;
const FM: u32 = FMVu;
const FN: u32 = FNVu;
const BM: u32 = WMVu * FMVu * SVu;
const BN: u32 = WNVu * FNVu * SVu;
const BK: u32 = BKVu;
const LDA: u32 = BKVu + 8u;
const LDB: u32 = BN + 8u;
const WG: u32 = WMVu * WNVu * SGVu;

// NBUF copies of each staging tile (2: double-buffered).
var<workgroup> As: array<AB, ASZ * NBUF>;
var<workgroup> Bs: array<AB, BSZ * NBUF>;

PAIR_A
PAIR_B

@compute @workgroup_size(WGSZ)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(subgroup_id) sid: u32) {
  let bz = wid.z + mt.batch0;
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let abase = mt.a_off + i32(bz) * mt.a_sb;
  let bbase = mt.b_off + i32(bz) * mt.b_sb;
  let fr = (sid / WN) * FM * S;
  let fc = (sid % WN) * FN * S;
ACC_DECL
LOOP
  // naga 30's SPIR-V writer needs coopStore's matrix, index and stride as named values.
  let cld = mt.c_ld;
  let cbase = bz * mt.c_sb + (row0 + fr) * mt.c_ld + col0 + fc;
STORE
}
