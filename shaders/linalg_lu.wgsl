// One panel of the blocked right-looking LU with partial pivoting (LAPACK's getrf, its panel
// getf2) of row-major `n x n` matrices W[b], one workgroup of WG invocations per matrix: columns
// k0 .. k0 + kb are factored one by one. For column c: the pivot is the first entry of largest
// magnitude in rows c .. n (a tree reduction; ties keep the smaller row, as LAPACK's i?amax),
// recorded in IPIV (0-based row); whole rows c and p are swapped (all n columns, so the
// interchanges of the columns left of the panel, LAPACK's laswp, and of the trailing matrix are
// done here); the multipliers below the pivot are scaled by its reciprocal (a zero pivot leaves
// them and sets INFO to c + 1 if it is still 0, as getrf); and the panel's columns right of c
// get the rank-1 update. The factored panel, rows k0 .. n, is then copied to P[b] (`[n, kb]`,
// row i - k0): the L11 of the U12 triangular solve and the L21 of the trailing GEMM read it
// there (a buffer cannot be bound read-only and writable in one dispatch).
// The Rust side replaces ELEM (f32, f64) and WGSIZE (64 or 256).
alias T = ELEM;
const WG: u32 = WGSIZEu;

struct Meta {
  batch: u32, n: u32, k0: u32, kb: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read_write> W: array<T>;
@group(0) @binding(2) var<storage, read_write> P: array<T>;
@group(0) @binding(3) var<storage, read_write> IPIV: array<i32>;
@group(0) @binding(4) var<storage, read_write> INFO: array<i32>;

var<workgroup> sv: array<T, WG>;
var<workgroup> si: array<u32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = wid.y * nw.x + wid.x;
  if (b >= mt.batch) { return; }
  let n = mt.n;
  let base = b * n * n;
  let ce = mt.k0 + mt.kb;
  for (var j = 0u; j < mt.kb; j++) {
    let c = mt.k0 + j;
    var bv = T(-1);
    var bi = c;
    for (var i = c + lid; i < n; i += WG) {
      let v = abs(W[base + i * n + c]);
      if (v > bv) { bv = v; bi = i; }
    }
    sv[lid] = bv;
    si[lid] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
      if (lid < s) {
        let ov = sv[lid + s];
        let oi = si[lid + s];
        if (ov > sv[lid] || (ov == sv[lid] && oi < si[lid])) {
          sv[lid] = ov;
          si[lid] = oi;
        }
      }
      workgroupBarrier();
    }
    let p = workgroupUniformLoad(&si[0]);
    let pv = W[base + p * n + c];
    // Every invocation has read the pivot (and the column) before the rows are swapped.
    storageBarrier();
    if (lid == 0u) {
      IPIV[b * n + c] = i32(p);
      if (pv == T(0) && INFO[b] == 0) { INFO[b] = i32(c + 1u); }
    }
    if (p != c) {
      for (var q = lid; q < n; q += WG) {
        let x = W[base + c * n + q];
        W[base + c * n + q] = W[base + p * n + q];
        W[base + p * n + q] = x;
      }
    }
    storageBarrier();
    if (pv != T(0)) {
      let r = T(1) / pv;
      for (var i = c + 1u + lid; i < n; i += WG) {
        W[base + i * n + c] = W[base + i * n + c] * r;
      }
    }
    storageBarrier();
    for (var i = c + 1u + lid; i < n; i += WG) {
      let l = W[base + i * n + c];
      for (var q = c + 1u; q < ce; q++) {
        W[base + i * n + q] = W[base + i * n + q] - l * W[base + c * n + q];
      }
    }
    storageBarrier();
  }
  for (var i = mt.k0 + lid; i < n; i += WG) {
    for (var q = 0u; q < mt.kb; q++) {
      P[(b * n + i - mt.k0) * mt.kb + q] = W[base + i * n + mt.k0 + q];
    }
  }
}
