// det and slogdet from an LU factorization (W[b] `[n, n]`, IPIV 0-based), one invocation per
// matrix: the product of U's diagonal times the interchanges' sign (D = det), or, with `log`,
// D = the sign and L = log|det|. log|det| is the pivots' binary exponents times ln 2 plus the
// log of the product of their mantissas, the product kept in [1, 2^32) by steps of 2^32 (frexp
// of f64 gives an i64 exponent in naga, which needs SHADER_INT64) and reduced to
// [1/sqrt 2, sqrt 2) at the end, by the series log m = 2 atanh((m - 1) / (m + 1)) (|s| < 0.172:
// 14 terms reach float64's precision; WGSL's log is not exact for f64 on Vulkan). The
// normalizing loops are bounded (inf and NaN stay as they are). An exactly zero pivot gives det 0 and
// (0, -inf), as the cpu backend; NaN propagates. The Rust side replaces ELEM (f32, f64).
alias T = ELEM;

struct Meta {
  batch: u32, n: u32, log: u32, zero: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read> W: array<T>;
@group(0) @binding(2) var<storage, read> IPIV: array<i32>;
@group(0) @binding(3) var<storage, read_write> D: array<T>;
@group(0) @binding(4) var<storage, read_write> L: array<T>;

struct Norm { m: T, e: i32 }

// x = m 2^e with m in [1, 2^32) for a finite non-zero x (at most 40 steps each way).
fn norm32(x: T) -> Norm {
  var m = x;
  var e = 0i;
  for (var t = 0u; t < 40u && m >= T(4294967296.0); t++) { m = m * T(2.3283064365386963e-10); e = e + 32i; }
  for (var t = 0u; t < 40u && m > T(0) && m < T(1); t++) { m = m * T(4294967296.0); e = e - 32i; }
  return Norm(m, e);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = (wid.y * nw.x + wid.x) * 64u + lid;
  if (b >= mt.batch) { return; }
  let n = mt.n;
  var det = T(1);
  var sgn = T(1);
  var m = T(1);
  var ex = 0i;
  var zero = false;
  for (var c = 0u; c < n; c++) {
    let d = W[b * n * n + c * n + c];
    if (u32(IPIV[b * n + c]) != c) { det = -det; sgn = -sgn; }
    det = det * d;
    if (d == T(0)) { zero = true; }
    if (d < T(0)) { sgn = -sgn; }
    let md = norm32(abs(d));
    m = m * md.m;
    ex = ex + md.e;
    let mm = norm32(m);
    m = mm.m;
    ex = ex + mm.e;
  }
  if (zero) { det = T(0); }
  if (mt.log == 0u) {
    D[b] = det;
    return;
  }
  for (var t = 0u; t < 32u && m >= T(2); t++) { m = m * T(0.5); ex = ex + 1i; }
  if (m > T(1.4142135623730950)) { m = m * T(0.5); ex = ex + 1i; }
  let s = (m - T(1)) / (m + T(1));
  let s2 = s * s;
  var term = s;
  var sum = T(0);
  for (var k = 0u; k < 14u; k++) {
    sum = sum + term / T(2u * k + 1u);
    term = term * s2;
  }
  var la = T(ex) * T(0.69314718055994530942) + T(2) * sum;
  if (zero) { sgn = T(0); la = T(-1) / T(mt.zero); }
  D[b] = sgn;
  L[b] = la;
}
