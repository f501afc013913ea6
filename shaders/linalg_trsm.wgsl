// Batched triangular solve with many right-hand sides (BLAS's trsm, left side): for matrix
// b < batch and column c < ncols, x = T^-1 x where T is the kb x kb triangle (lower, or upper
// with bit 0 of `flags`; unit diagonal with bit 1) and x is column c of X, both through any
// strides: T(r, q) = TM[t_off + b t_bs + r t_sr + q t_sc], X(r, c) likewise. The solution is
// written to X and, with bit 2 of `flags`, to Y (the operand of the GEMM update that follows:
// X cannot be bound twice). One invocation per (matrix, column); kb <= 32 (held in `xs`).
// The Rust side replaces ELEM (f32, f64).
alias T = ELEM;

struct Meta {
  batch: u32, kb: u32, ncols: u32, flags: u32,
  t_off: i32, t_bs: i32, t_sr: i32, t_sc: i32,
  x_off: i32, x_bs: i32, x_sr: i32, x_sc: i32,
  y_off: i32, y_bs: i32, y_sr: i32, y_sc: i32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> TM: array<T>;
@group(0) @binding(2) var<storage, read_write> X: array<T>;
@group(0) @binding(3) var<storage, read_write> Y: array<T>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let e = (wid.y * nw.x + wid.x) * 64u + lid;
  if (e >= mt.batch * mt.ncols) { return; }
  let b = i32(e / mt.ncols);
  let c = i32(e % mt.ncols);
  let kb = mt.kb;
  let tb = mt.t_off + b * mt.t_bs;
  let xb = mt.x_off + b * mt.x_bs + c * mt.x_sc;
  var xs: array<T, 32>;
  for (var r = 0u; r < kb; r++) { xs[r] = X[u32(xb + i32(r) * mt.x_sr)]; }
  let upper = (mt.flags & 1u) != 0u;
  let unit = (mt.flags & 2u) != 0u;
  for (var t = 0u; t < kb; t++) {
    var r = t;
    if (upper) { r = kb - 1u - t; }
    var s = xs[r];
    if (upper) {
      for (var q = r + 1u; q < kb; q++) {
        s = s - TM[u32(tb + i32(r) * mt.t_sr + i32(q) * mt.t_sc)] * xs[q];
      }
    } else {
      for (var q = 0u; q < r; q++) {
        s = s - TM[u32(tb + i32(r) * mt.t_sr + i32(q) * mt.t_sc)] * xs[q];
      }
    }
    if (!unit) { s = s / TM[u32(tb + i32(r) * (mt.t_sr + mt.t_sc))]; }
    xs[r] = s;
  }
  let yb = mt.y_off + b * mt.y_bs + c * mt.y_sc;
  let copy = (mt.flags & 4u) != 0u;
  for (var r = 0u; r < kb; r++) {
    X[u32(xb + i32(r) * mt.x_sr)] = xs[r];
    if (copy) { Y[u32(yb + i32(r) * mt.y_sr)] = xs[r]; }
  }
}
