// Batched 1-D FFT kernels of the wgpu backend (backends/wgpu/src/fft.rs). One section per
// pipeline, after the common header; the Rust side replaces REAL (f32 or f64) and picks the
// section (a line starting with the marker, then its name). Every kernel is one invocation per element (or butterfly), 256 per
// workgroup, rows of `batch` rows; the meta words are named per section.
//
// - block: one Stockham autosort pass of combined radix L (Govindaraju et al., SC08; Bainville,
//   "OpenCL Fast Fourier Transform") whose L-point sub-transforms run in workgroup memory. For
//   rows of n points, span S (the product of the earlier passes' radices) and c = n / L, column
//   j of a row (j < c, k = j mod S) reads v[r] = x[j + r c] (r < L), twiddles v[r] by
//   exp(-2 pi i r k / (S L)), takes the L-point DFT V in workgroup memory (a Stockham sequence of
//   radix 2/3/4/5/7/8 stages, ping-ponging between two halves of `sh`) and writes V[r] to
//   (j - k) L + k + r S. One workgroup takes T consecutive columns (T L <= TLMAX); passes whose
//   radices multiply to n leave natural order, and a row of n <= TLMAX is one pass (S = 1, L = n).
//   The inverse conjugates on load and store (conj(DFT(conj x))), so one set of forward tables
//   serves both directions.
// - real_in (r2c): complex rows from real ones; half_out: the first n/2+1 terms of each row.
// - herm_in (c2r): the full Hermitian spectrum from the half; real_out: the real parts.
// - copy: rows copied (n = 1).
alias R = REAL;
alias C = vec2<R>;
struct Meta { batch: u32, n: u32, m: u32, p0: u32, in_off: u32, out_off: u32, inv: u32, p1: u32,
              q0: u32, q1: u32, q2: u32, q3: u32, q4: u32, q5: u32, q6: u32, q7: u32,
              r0: u32, r1: u32, r2: u32, r3: u32, r4: u32, r5: u32, r6: u32, r7: u32 }
@group(0) @binding(0) var<uniform> mt: Meta;

fn cmul(a: C, b: C) -> C { return C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn tid(wid: vec3<u32>, nw: vec3<u32>, lid: u32) -> u32 { return (wid.y * nw.x + wid.x) * 256u + lid; }

//@@ copy
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  Y[mt.out_off + t] = X[mt.in_off + t];
}

//@@ real_in
// n: row length.
@group(0) @binding(1) var<storage, read> X: array<R>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  Y[mt.out_off + t] = C(X[mt.in_off + t], R(0));
}

//@@ half_out
// n: full row length, m: kept terms (n/2+1).
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.m) { return; }
  let row = t / mt.m;
  let k = t % mt.m;
  Y[mt.out_off + t] = X[mt.in_off + row * mt.n + k];
}

//@@ herm_in
// n: full row length, m: given terms (n/2+1).
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  let row = t / mt.n;
  let j = t % mt.n;
  var v: C;
  if (j < mt.m) {
    v = X[mt.in_off + row * mt.m + j];
  } else {
    let c = X[mt.in_off + row * mt.m + (mt.n - j)];
    v = C(c.x, -c.y);
  }
  Y[mt.out_off + t] = v;
}

//@@ real_out
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<R>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  Y[mt.out_off + t] = X[mt.in_off + t].x;
}

//@@ block
// m: L, p0: S, p1: T (columns per workgroup), q0: the stage radices (4 bits each, first stage in
// the low bits), q1: the stage count, q2: offset in W of the stage twiddles (L - 1 of them; the
// stage of span s at q2 + s - 1, exp(-2 pi i r kk / (s q)) at kk (q - 1) + r - 1), q3: bit 0 load
// and bit 1 store a column's points contiguously (else consecutive columns together), q4/q5: offsets
// in W of the pass twiddle halves hi[t >> q6] and lo[t & (2^q6 - 1)] (exp(-2 pi i t / (S L)) for
// t = r k is hi * lo: two small tables in place of one of S (L - 1) entries). Bluestein's steps
// fused into the first and last passes: r0 / r1 the input / output row lengths (the position
// p = j + r c of a point in its row reads zero past r0; outputs past r1 are dropped), q7 bit 0
// multiplies loads by A[r2 + p] (before the inverse's conjugation), bit 1 stores by A[r3 + p]
// (after it).
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@group(0) @binding(3) var<storage, read> W: array<C>;
@group(0) @binding(4) var<storage, read> A: array<C>;
const TLMAX: u32 = TLMAX_VALUEu;
var<workgroup> sh: array<C, 2u * TLMAX>;

//STAGES

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let L = mt.m;
  let S = mt.p0;
  let T = mt.p1;
  let n = mt.n;
  let cols = n / L;
  let total = mt.batch * cols;
  let c0 = (wid.y * nw.x + wid.x) * T;
  let cnt = T * L;
  let lomask = (1u << mt.q6) - 1u;
  for (var e = lid; e < cnt; e += 256u) {
    var tc = e % T;
    var r = e / T;
    if ((mt.q3 & 1u) != 0u) { tc = e / L; r = e % L; }
    let c = c0 + tc;
    if (c < total) {
      let row = c / cols;
      let j = c % cols;
      let pos = j + r * cols;
      var v = C(R(0), R(0));
      if (pos < mt.r0) {
        v = X[mt.in_off + row * mt.r0 + pos];
        if ((mt.q7 & 1u) != 0u) { v = cmul(v, A[mt.r2 + pos]); }
      }
      if (mt.inv != 0u) { v.y = -v.y; }
      if (S > 1u && r > 0u) {
        let t = r * (j % S);
        v = cmul(v, cmul(W[mt.q4 + (t >> mt.q6)], W[mt.q5 + (t & lomask)]));
      }
      sh[tc * L + r] = v;
    }
  }
  workgroupBarrier();
  var src = 0u;
  var s = 1u;
  for (var st = 0u; st < mt.q1; st++) {
    let q = (mt.q0 >> (4u * st)) & 15u;
    let dst = TLMAX - src;
    switch q {
//SWITCH
      default: {}
    }
    workgroupBarrier();
    src = dst;
    s *= q;
  }
  for (var e = lid; e < cnt; e += 256u) {
    var tc = e % T;
    var r = e / T;
    if ((mt.q3 & 2u) != 0u) { tc = e / L; r = e % L; }
    let c = c0 + tc;
    if (c < total) {
      let row = c / cols;
      let j = c % cols;
      let k = j % S;
      let pos = (j - k) * L + k + r * S;
      if (pos < mt.r1) {
        var v = sh[src + tc * L + r];
        if (mt.inv != 0u) { v.y = -v.y; }
        if ((mt.q7 & 2u) != 0u) { v = cmul(v, A[mt.r3 + pos]); }
        Y[mt.out_off + row * mt.r1 + pos] = v;
      }
    }
  }
}

//@@ stage_tpl
// One radix-RADIX stage of span s over the T columns of L points in `sh` (from half src to dst).
fn stageRADIX(src: u32, dst: u32, s: u32, L: u32, T: u32, lid: u32) {
  let per = L / RADIXu;
  let cnt = T * per;
  for (var b = lid; b < cnt; b += 256u) {
    let tc = b / per;
    let jj = b % per;
    let kk = jj % s;
    let ib = src + tc * L + jj;
    var v: array<C, 8>;
    //LOAD
    if (s > 1u) {
      let tb = mt.q2 + s - 1u + kk * (RADIXu - 1u);
      //TWIDDLE
    }
    v = dftRADIX(v);
    let ob = dst + tc * L + (jj - kk) * RADIXu + kk;
    //STORE
  }
}
