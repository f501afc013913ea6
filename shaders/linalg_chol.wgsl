// The diagonal block of the blocked right-looking Cholesky (LAPACK's potrf, its unblocked
// potf2, row-major lower triangle of W[b] `[n, n]`), one workgroup of 64 invocations per matrix:
// columns k0 .. k0 + kb of the block rows k0 .. k0 + kb. For column c: the pivot d = W(c, c)
// must be positive (not NaN), else INFO becomes c + 1 (if still 0) and the block stops, as potrf;
// L(c, c) = sqrt(d), the column below is scaled by its reciprocal, and the block's lower triangle
// right of c gets the rank-1 update. The factored L11 is copied to P[b] (`[kb, kb]`, zeros
// above the diagonal): the triangular solve for L21 reads it there (W is written by it). kb <= 64.
// The Rust side replaces ELEM (f32, f64).
alias T = ELEM;

struct Meta {
  batch: u32, n: u32, k0: u32, kb: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read_write> W: array<T>;
@group(0) @binding(2) var<storage, read_write> P: array<T>;
@group(0) @binding(3) var<storage, read_write> INFO: array<i32>;

var<workgroup> sd: T;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = wid.y * nw.x + wid.x;
  if (b >= mt.batch) { return; }
  let n = mt.n;
  let base = b * n * n;
  let k0 = mt.k0;
  let ce = k0 + mt.kb;
  for (var j = 0u; j < mt.kb; j++) {
    let c = k0 + j;
    if (lid == 0u) { sd = W[base + c * n + c]; }
    let d = workgroupUniformLoad(&sd);
    if (!(d > T(0))) {
      if (lid == 0u && INFO[b] == 0) { INFO[b] = i32(c + 1u); }
      break;
    }
    let s = sqrt(d);
    let r = T(1) / s;
    let i = c + 1u + lid;
    if (i < ce) { W[base + i * n + c] = W[base + i * n + c] * r; }
    if (lid == 0u) { W[base + c * n + c] = s; }
    storageBarrier();
    if (i < ce) {
      let l = W[base + i * n + c];
      for (var q = c + 1u; q <= i; q++) {
        W[base + i * n + q] = W[base + i * n + q] - l * W[base + q * n + c];
      }
    }
    storageBarrier();
  }
  if (lid < mt.kb) {
    for (var q = 0u; q < mt.kb; q++) {
      var v = T(0);
      if (q <= lid) { v = W[base + (k0 + lid) * n + k0 + q]; }
      P[(b * mt.kb + lid) * mt.kb + q] = v;
    }
  }
}
