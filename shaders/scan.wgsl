// Inclusive scan along the last axis of a [batch, n] layout (cumsum/cumprod), one workgroup per
// row, looping over chunks of 256 elements and carrying the running total between chunks, so any
// n works. One dispatch covers elements [e_lo, e_hi) of every row (e_lo a multiple of 256): it
// starts from the running total in CA[row] when e_lo > 0 and leaves it there when e_hi < n, so a
// driver that caps shader loops (Mesa's llvmpipe) gets long rows in several dispatches.
// The Rust side replaces before compilation:
//   ELEM     the storage word type (u32, i32, f32, i64, u64, f64)
//   ACC      the accumulation type (f32 for float16/bfloat16 words, else ELEM)
//   IDENT    the identity in ACC (0 or 1)
//   COMBINE  the combining expression of `a` and `b` (a + b, a * b, a | b, a & b)
//   STORE    the store conversion of `v` (wrap to 8/16 bits, round to float16/bfloat16, or v)
//   CAB      the binding number of the carry buffer CA (after Y and X)
// Lines marked /*X*/ are dropped when the input is the output (same buffer and layout), and X is
// then read through Y (a buffer cannot be bound twice with one of the bindings writable).
alias T = ELEM;
alias A = ACC;

struct Meta {
  batch: u32, n: u32, in_off: i32, in_s0: i32,
  in_s1: i32, out_off: u32, e_lo: u32, e_hi: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;
@group(0) @binding(1) var<storage, read_write> Y: array<T>;
@group(0) @binding(2) var<storage, read> X: array<T>; /*X*/
@group(0) @binding(CAB) var<storage, read_write> CA: array<A>;

var<workgroup> sh: array<A, 256>;

fn combine(a: A, b: A) -> A { return COMBINE; }
fn store_conv(v: A) -> T { return STORE; }
//HELPERS

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nw.x + wid.x;
  if (row >= mt.batch) { return; }
  let ibase = mt.in_off + i32(row) * mt.in_s0;
  let obase = mt.out_off + row * mt.n;
  var carry = A(IDENT);
  // NumPy's accumulate copies the first element (the identity is never combined in: 1 * z is
  // not z for a complex z with a NaN part, 0 + -0 is +0).
  var first = mt.e_lo == 0u;
  if (mt.e_lo > 0u) { carry = CA[row]; }
  let e_hi = min(mt.e_hi, mt.n);
  for (var c0 = mt.e_lo; c0 < e_hi; c0 += 256u) {
    let j = c0 + lid;
    var v = A(IDENT);
    if (j < mt.n) {
      v = A(X[u32(ibase + i32(j) * mt.in_s1)]);
    }
    sh[lid] = v;
    for (var o = 1u; o < 256u; o <<= 1u) {
      workgroupBarrier();
      var w = sh[lid];
      if (lid >= o) { w = combine(sh[lid - o], w); }
      workgroupBarrier();
      sh[lid] = w;
    }
    workgroupBarrier();
    if (j < mt.n) {
      Y[obase + j] = store_conv(select(combine(carry, sh[lid]), sh[lid], first));
    }
    carry = select(combine(carry, sh[255]), sh[255], first);
    first = false;
    workgroupBarrier();
  }
  if (lid == 0u && e_hi < mt.n) { CA[row] = carry; }
}
