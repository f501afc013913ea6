// LAPACK's laswp for getrs: the row interchanges of an LU factorization (IPIV, 0-based, in
// order) applied to every column of X[b] (`[n, ncols]`, row-major), one invocation per
// (matrix, column). The Rust side replaces ELEM (f32, f64).
alias T = ELEM;

struct Meta {
  batch: u32, n: u32, ncols: u32, pad: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> IPIV: array<i32>;
@group(0) @binding(2) var<storage, read_write> X: array<T>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let e = (wid.y * nw.x + wid.x) * 64u + lid;
  if (e >= mt.batch * mt.ncols) { return; }
  let b = e / mt.ncols;
  let col = e % mt.ncols;
  let base = b * mt.n * mt.ncols + col;
  for (var c = 0u; c < mt.n; c++) {
    let p = u32(IPIV[b * mt.n + c]);
    if (p != c) {
      let x = X[base + c * mt.ncols];
      X[base + c * mt.ncols] = X[base + p * mt.ncols];
      X[base + p * mt.ncols] = x;
    }
  }
}
