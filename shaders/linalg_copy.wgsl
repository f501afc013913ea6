// Batched matrix copies of the wgpu linalg (backends/wgpu/src/linalg/): for every matrix b < batch
// and element (i, j) of a `rows x cols` matrix, D(b, i, j) = S(b, i, j) through any strides, with
// `mode`:
//   0  every element
//   1  the lower triangle (j <= i), zeros above
//   2  the upper triangle or trapezoid (j >= i), zeros below
//   3  the identity (S is not read)
//   4  D is left as it is (S is not read) except for the NaNs below
// and, with `nanfail`, NaN in every element of a matrix whose INFO is non-zero (a failed
// factorization's outputs, as the cpu backend writes them). The Rust side replaces ELEM by the
// element type (f32 or f64). `zero` is always 0: NaN is computed as zero / zero at run time
// (WGSL has no NaN literal).
alias T = ELEM;

struct Meta {
  batch: u32, rows: u32, cols: u32, mode: u32,
  s_off: i32, s_bs: i32, s_sr: i32, s_sc: i32,
  d_off: i32, d_bs: i32, d_sr: i32, d_sc: i32,
  nanfail: u32, zero: u32, pad0: u32, pad1: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> S: array<T>;
@group(0) @binding(2) var<storage, read_write> D: array<T>;
@group(0) @binding(3) var<storage, read> INFO: array<i32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let e = (wid.y * nw.x + wid.x) * 64u + lid;
  let per = mt.rows * mt.cols;
  if (e >= mt.batch * per) { return; }
  let b = e / per;
  let r = e % per;
  let i = r / mt.cols;
  let j = r % mt.cols;
  let di = u32(mt.d_off + i32(b) * mt.d_bs + i32(i) * mt.d_sr + i32(j) * mt.d_sc);
  let failed = mt.nanfail != 0u && INFO[b] != 0;
  if (mt.mode == 4u) {
    if (failed) { D[di] = T(mt.zero) / T(mt.zero); }
    return;
  }
  var v = T(0);
  if (mt.mode == 3u) {
    if (i == j) { v = T(1); }
  } else if (mt.mode == 0u || (mt.mode == 1u && j <= i) || (mt.mode == 2u && j >= i)) {
    v = S[u32(mt.s_off + i32(b) * mt.s_bs + i32(i) * mt.s_sr + i32(j) * mt.s_sc)];
  }
  if (failed) { v = T(mt.zero) / T(mt.zero); }
  D[di] = v;
}
