// Tiled batched GEMM: C[b] = A[b] @ B[b] for any strides (batch strides may be 0).
// The Rust side replaces before compilation: `ELEM` the element type (f32, f64, vec2<f32> or
// vec2<f64> for complex), `MADD` the body of `madd` (c + a b; complex: the complex product),
// `BKV` the k slice (16; 8 for complex128, whose tiles would pass 16 KiB of workgroup memory),
// `TILE` = 64 BKV, `LOADS` = TILE / 256, `FIN` the rounding of the final C (float16/bfloat16,
// held as f32 words: `round_f16(x)`, its function inserted after `madd`; else `x`).
// A workgroup of 16x16 invocations computes a 64x64 tile of C, each invocation a 4x4 block;
// the K dimension advances in slices of 16 staged through workgroup memory.
// Out-of-range rows/columns/k are padded with zeros, so any m, n, k works.
// One dispatch covers k in [kb, ke) (kb a multiple of 16) and stores C, or adds to C when
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

const BM: u32 = 64u;
const BN: u32 = 64u;
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
  var acc: array<T, 16>;
  for (var i = 0u; i < 16u; i++) { acc[i] = T(0); }
  for (var k0 = mt.kb; k0 < mt.ke; k0 += BK) {
    for (var l = 0u; l < LOADSu; l++) {
      let e = li + l * 256u;
      // A tile: 64 rows x 16 k; consecutive invocations walk k (coalesced for row-major A).
      let mm = e / BK;
      let kk = e % BK;
      let gr = row0 + mm;
      let gk = k0 + kk;
      var va = T(0);
      if (gr < mt.m && gk < mt.k) {
        va = A[u32(abase + i32(gr) * mt.a_sm + i32(gk) * mt.a_sk)];
      }
      As[kk * BM + mm] = va;
      // B tile: 16 k x 64 cols; consecutive invocations walk n (coalesced for row-major B).
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
      var a: array<T, 4>;
      var b: array<T, 4>;
      for (var i = 0u; i < 4u; i++) {
        a[i] = As[kk * BM + lid.y + 16u * i];
        b[i] = Bs[kk * BN + lid.x + 16u * i];
      }
      for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) {
          acc[i * 4u + j] = madd(acc[i * 4u + j], a[i], b[j]);
        }
      }
    }
    workgroupBarrier();
  }
  let cbase = mt.c_off + bz * mt.c_sb;
  for (var i = 0u; i < 4u; i++) {
    let r = row0 + lid.y + 16u * i;
    for (var j = 0u; j < 4u; j++) {
      let c = col0 + lid.x + 16u * j;
      if (r < mt.m && c < mt.n) {
        let ci = u32(cbase + i32(r) * mt.c_sm + i32(c) * mt.c_sn);
        if (mt.accum != 0u) {
          C[ci] = fin(C[ci] + acc[i * 4u + j]);
        } else {
          C[ci] = fin(acc[i * 4u + j]);
        }
      }
    }
  }
}
