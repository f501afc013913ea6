// Batched 1-D FFT kernels of the wgpu backend (backends/wgpu/src/fft.rs). One section per
// pipeline, after the common header; the Rust side replaces REAL (f32 or f64) and picks the
// section (a line starting with the marker, then its name). Every kernel is one invocation per element (or butterfly), 256 per
// workgroup, rows of `batch` rows; the meta words are named per section.
//
// - stage: one radix-2 Stockham autosort pass (Bainville, "OpenCL Fast Fourier Transform";
//   Govindaraju et al., SC08): for span ns = 1, 2, ..., m/2, butterfly j of each row reads
//   x[j], x[j + m/2], twiddles the second by exp(-+ i pi k / ns) (k = j mod ns, from the
//   host-computed table W[k * (m/2) / ns] of exp(-2 pi i t / m)), and writes the sum and
//   difference to (j - k) * 2 + k and that + ns. log2(m) passes leave natural order.
// - real_in (r2c): complex rows from real ones; half_out: the first n/2+1 terms of each row.
// - herm_in (c2r): the full Hermitian spectrum from the half; real_out: the real parts.
// - chirp_in / pointwise / chirp_out: Bluestein's chirp-z (x * w zero-padded to m, the product
//   with the transformed chirp, the scaled product with w).
// - copy: rows copied (n = 1).
alias R = REAL;
alias C = vec2<R>;
struct Meta { batch: u32, n: u32, m: u32, p0: u32, in_off: u32, out_off: u32, inv: u32, p1: u32 }
@group(0) @binding(0) var<uniform> mt: Meta;

fn cmul(a: C, b: C) -> C { return C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn tid(wid: vec3<u32>, nw: vec3<u32>, lid: u32) -> u32 { return (wid.y * nw.x + wid.x) * 256u + lid; }

//@@ stage
// n: row length (a power of two), p0: span ns.
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@group(0) @binding(3) var<storage, read> W: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let half = mt.n / 2u;
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * half) { return; }
  let row = t / half;
  let j = t % half;
  let ns = mt.p0;
  let k = j % ns;
  let ib = mt.in_off + row * mt.n;
  let ob = mt.out_off + row * mt.n;
  let x0 = X[ib + j];
  let x1 = X[ib + j + half];
  var w = W[k * (half / ns)];
  if (mt.inv != 0u) { w.y = -w.y; }
  let u = cmul(x1, w);
  let i = (j - k) * 2u + k;
  Y[ob + i] = x0 + u;
  Y[ob + i + ns] = x0 - u;
}

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

//@@ chirp_in
// n: signal length, m: padded length; A[row, k] = k < n ? x[row, k] * w[k] : 0.
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@group(0) @binding(3) var<storage, read> W: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.m) { return; }
  let row = t / mt.m;
  let k = t % mt.m;
  var v = C(R(0), R(0));
  if (k < mt.n) { v = cmul(X[mt.in_off + row * mt.n + k], W[k]); }
  Y[mt.out_off + t] = v;
}

//@@ pointwise
// m: row length; Y[row, k] = X[row, k] * B[k].
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@group(0) @binding(3) var<storage, read> W: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.m) { return; }
  Y[mt.out_off + t] = cmul(X[mt.in_off + t], W[t % mt.m]);
}

//@@ chirp_out
// n: signal length, m: padded length; y[row, k] = A[row, k] * w[k] (w holds the 1/m scale).
@group(0) @binding(1) var<storage, read> X: array<C>;
@group(0) @binding(2) var<storage, read_write> Y: array<C>;
@group(0) @binding(3) var<storage, read> W: array<C>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = tid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  let row = t / mt.n;
  let k = t % mt.n;
  Y[mt.out_off + t] = cmul(X[mt.in_off + row * mt.m + k], W[k]);
}
