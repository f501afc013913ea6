// Stable sort along the last axis of C-contiguous [batch, n] keys (NumPy order: ascending, NaN
// last, -0.0 == 0.0), optionally moving int64 values with them (argsort).
//
// Method: a bitonic sort of (key, original position) pairs, ties broken by the position, which
// makes it stable. Rows are padded to N = next power of two (padding sorts after every real
// element), laid end to end in temporaries `tk`/`ti` of `total` elements (a multiple of the
// block E = min(1024, ...) elements). Since the final merge of every N-block is ascending, one
// network over the flat temporaries sorts each row. Passes (entry points, split by the Rust side
// at the `//@@` markers, each compiled as `main`):
//   init    tk/ti from the keys; copies of the keys (and values) for the final gather
//   local   every stage whose distance j < E, in workgroup memory: all of k <= E (mt.k == 0), or
//           the tail of one merge k > E
//   global  one compare-exchange stage (k, j >= E) in global memory
//   gather  keys[i] = orig[row, ti[i]] (and values) for the n real elements of each row
// The Rust side replaces ELEM (the storage word type) and LESS (the key order of `a`, `b`);
// lines marked /*V*/ are dropped when no values are carried.
alias K = ELEM;

struct Meta {
  n: u32, N: u32, total: u32, k: u32,
  j: u32, batch: u32, koff: u32, voff: u32,
  e: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;

fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn key_less(a: K, b: K) -> bool { return LESS; }

// (ka, ia) sorts before (kb, ib): positions >= n are padding and sort last (by position).
fn before(ka: K, ia: u32, kb: K, ib: u32) -> bool {
  let pa = ia >= mt.n;
  let pb = ib >= mt.n;
  if (pa || pb) {
    if (pa && pb) { return ia < ib; }
    return pb;
  }
  if (key_less(ka, kb)) { return true; }
  if (key_less(kb, ka)) { return false; }
  return ia < ib;
}

fn gid(wid: vec3<u32>, nw: vec3<u32>, lid: u32) -> u32 {
  return (wid.y * nw.x + wid.x) * 256u + lid;
}

// Lower index of compare pair p at distance j (a power of two).
fn pair_lo(p: u32, j: u32) -> u32 {
  return ((p & ~(j - 1u)) << 1u) | (p & (j - 1u));
}

fn ascending(i: u32, k: u32) -> bool {
  return k >= mt.N || (i & k) == 0u;
}

//@@ init
@group(0) @binding(1) var<storage, read> keys: array<K>;
@group(0) @binding(2) var<storage, read_write> tk: array<K>;
@group(0) @binding(3) var<storage, read_write> ti: array<u32>;
@group(0) @binding(4) var<storage, read_write> orig: array<K>;
@group(0) @binding(5) var<storage, read> vals: array<i64>; /*V*/
@group(0) @binding(6) var<storage, read_write> vorig: array<i64>; /*V*/

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = gid(wid, nw, lid);
  if (t >= mt.total) { return; }
  let b = t / mt.N;
  let jj = t % mt.N;
  ti[t] = jj;
  if (b < mt.batch && jj < mt.n) {
    let s = b * mt.n + jj;
    let v = keys[mt.koff + s];
    tk[t] = v;
    orig[s] = v;
    vorig[s] = vals[mt.voff + s]; /*V*/
  } else {
    tk[t] = K();
  }
}

//@@ local
@group(0) @binding(1) var<storage, read_write> tk: array<K>;
@group(0) @binding(2) var<storage, read_write> ti: array<u32>;

var<workgroup> sk: array<K, 1024>;
var<workgroup> si: array<u32, 1024>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let block = wid.y * nw.x + wid.x;
  let e = mt.e;
  let base = block * e;
  if (base >= mt.total) { return; }
  for (var q = lid; q < e; q += 256u) {
    sk[q] = tk[base + q];
    si[q] = ti[base + q];
  }
  var k = 2u;
  var kend = min(e, mt.N); // stages k > N would compare across rows
  if (mt.k != 0u) {
    k = mt.k;
    kend = mt.k;
  }
  for (; k <= kend; k <<= 1u) {
    for (var j = min(k >> 1u, e >> 1u); j > 0u; j >>= 1u) {
      workgroupBarrier();
      for (var p = lid; p < (e >> 1u); p += 256u) {
        let i = pair_lo(p, j);
        let l = i + j;
        let ka = sk[i];
        let ia = si[i];
        let kb = sk[l];
        let ib = si[l];
        var swap: bool;
        if (ascending(base + i, k)) { swap = before(kb, ib, ka, ia); } else { swap = before(ka, ia, kb, ib); }
        if (swap) {
          sk[i] = kb; si[i] = ib;
          sk[l] = ka; si[l] = ia;
        }
      }
    }
  }
  workgroupBarrier();
  for (var q = lid; q < e; q += 256u) {
    tk[base + q] = sk[q];
    ti[base + q] = si[q];
  }
}

//@@ global
@group(0) @binding(1) var<storage, read_write> tk: array<K>;
@group(0) @binding(2) var<storage, read_write> ti: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = gid(wid, nw, lid);
  if (p >= (mt.total >> 1u)) { return; }
  let i = pair_lo(p, mt.j);
  let l = i + mt.j;
  let ka = tk[i];
  let ia = ti[i];
  let kb = tk[l];
  let ib = ti[l];
  var swap: bool;
  if (ascending(i, mt.k)) { swap = before(kb, ib, ka, ia); } else { swap = before(ka, ia, kb, ib); }
  if (swap) {
    tk[i] = kb; ti[i] = ib;
    tk[l] = ka; ti[l] = ia;
  }
}

//@@ gather
@group(0) @binding(1) var<storage, read_write> keys: array<K>;
@group(0) @binding(2) var<storage, read> ti: array<u32>;
@group(0) @binding(3) var<storage, read> orig: array<K>;
@group(0) @binding(4) var<storage, read_write> vals: array<i64>; /*V*/
@group(0) @binding(5) var<storage, read> vorig: array<i64>; /*V*/

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = gid(wid, nw, lid);
  if (t >= mt.batch * mt.n) { return; }
  let b = t / mt.n;
  let jj = t % mt.n;
  let src = b * mt.n + ti[b * mt.N + jj];
  keys[mt.koff + t] = orig[src];
  vals[mt.voff + t] = vorig[src]; /*V*/
}
