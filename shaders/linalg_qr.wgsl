// One panel of the blocked Householder QR (LAPACK's geqrf: its panel geqr2 and larft) of
// row-major `m x n` matrices W[b], one workgroup of WG invocations per matrix, columns
// k0 .. k0 + kb (kb <= QKB) with k = min(m, n) reflectors in all. For column c, LAPACK's larfg:
// alpha = W(c, c), x = W(c + 1 .., c); x = 0 gives tau = 0 (H = I); else
// beta = -sign(alpha) sqrt(alpha^2 + |x|^2), tau = (beta - alpha) / beta, v = x / (alpha - beta)
// below a unit v(c), W(c, c) = beta. H^T = I - tau v v^T is applied to the panel's columns right
// of c (dot products for all of them in one tree reduction). TAU[b, c] = tau; the explicit V
// (unit diagonal, zeros above, rows k0 .. m of columns k0 .. k0 + kb) goes to V[b] (`[m, k]`)
// for the trailing update and orgqr's GEMMs; then larft's forward columnwise T
// (H_k0 .. H_k0+kb-1 = I - V T V^T, T upper triangular) goes to TT[b] (`[k, QKB]`, rows k0 ..).
// The Rust side replaces ELEM (f32, f64), WGSIZE (64) and QKB (16).
alias T = ELEM;
const WG: u32 = WGSIZEu;
const KB: u32 = QKBu;

struct Meta {
  batch: u32, m: u32, n: u32, k: u32,
  k0: u32, kb: u32, pad0: u32, pad1: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read_write> W: array<T>;
@group(0) @binding(2) var<storage, read_write> V: array<T>;
@group(0) @binding(3) var<storage, read_write> TT: array<T>;
@group(0) @binding(4) var<storage, read_write> TAU: array<T>;

var<workgroup> red: array<T, KB * WG>;

// Sums red[q * WG + 0 .. WG] into red[q * WG] for q < nq (nq uniform).
fn tree(lid: u32, nq: u32) {
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      for (var q = 0u; q < nq; q++) {
        red[q * WG + lid] = red[q * WG + lid] + red[q * WG + lid + s];
      }
    }
    workgroupBarrier();
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = wid.y * nw.x + wid.x;
  if (b >= mt.batch) { return; }
  let m = mt.m;
  let n = mt.n;
  let k = mt.k;
  let k0 = mt.k0;
  let ce = k0 + mt.kb;
  let base = b * m * n;
  let vb = b * m * k;
  for (var j = 0u; j < mt.kb; j++) {
    let c = k0 + j;
    let alpha = W[base + c * n + c];
    var ss = T(0);
    for (var i = c + 1u + lid; i < m; i += WG) {
      let x = W[base + i * n + c];
      ss = ss + x * x;
    }
    red[lid] = ss;
    tree(lid, 1u);
    let xn2 = red[0];
    var tau = T(0);
    var scal = T(1);
    var beta = alpha;
    if (xn2 != T(0)) {
      beta = -select(T(1), T(-1), alpha < T(0)) * sqrt(alpha * alpha + xn2);
      tau = (beta - alpha) / beta;
      scal = T(1) / (alpha - beta);
    }
    for (var i = k0 + lid; i < m; i += WG) {
      var v = T(0);
      if (i == c) {
        v = T(1);
      } else if (i > c) {
        v = W[base + i * n + c] * scal;
        W[base + i * n + c] = v;
      }
      V[vb + i * k + c] = v;
    }
    // Every invocation has read alpha before it is replaced.
    storageBarrier();
    if (lid == 0u) {
      W[base + c * n + c] = beta;
      TAU[b * k + c] = tau;
    }
    storageBarrier();
    let nq = ce - c - 1u;
    if (nq > 0u) {
      var acc: array<T, KB>;
      for (var q = 0u; q < nq; q++) { acc[q] = T(0); }
      for (var i = c + lid; i < m; i += WG) {
        var v = T(1);
        if (i > c) { v = W[base + i * n + c]; }
        for (var q = 0u; q < nq; q++) {
          acc[q] = acc[q] + v * W[base + i * n + c + 1u + q];
        }
      }
      for (var q = 0u; q < nq; q++) { red[q * WG + lid] = acc[q]; }
      tree(lid, nq);
      for (var i = c + lid; i < m; i += WG) {
        var v = T(1);
        if (i > c) { v = W[base + i * n + c]; }
        let tv = tau * v;
        for (var q = 0u; q < nq; q++) {
          let wi = base + i * n + c + 1u + q;
          W[wi] = W[wi] - tv * red[q * WG];
        }
      }
      storageBarrier();
    }
  }
  // larft: T(j, j) = tau_j, T(0 .. j, j) = -tau_j T(0 .. j, 0 .. j) (V(:, 0 .. j)^T v_j).
  let tb = (b * k + k0) * KB;
  for (var j = 0u; j < mt.kb; j++) {
    let c = k0 + j;
    let tj = TAU[b * k + c];
    if (j > 0u) {
      var acc: array<T, KB>;
      for (var p = 0u; p < j; p++) { acc[p] = T(0); }
      for (var i = c + lid; i < m; i += WG) {
        var v = T(1);
        if (i > c) { v = W[base + i * n + c]; }
        for (var p = 0u; p < j; p++) {
          acc[p] = acc[p] + W[base + i * n + k0 + p] * v;
        }
      }
      for (var p = 0u; p < j; p++) { red[p * WG + lid] = acc[p]; }
      tree(lid, j);
      if (lid < j) {
        var s = T(0);
        for (var p = lid; p < j; p++) { s = s + TT[tb + lid * KB + p] * red[p * WG]; }
        TT[tb + lid * KB + j] = -tj * s;
      }
    }
    if (lid == 0u) {
      TT[tb + j * KB + j] = tj;
      for (var p = 0u; p < j; p++) { TT[tb + j * KB + p] = T(0); }
    }
    storageBarrier();
  }
}
