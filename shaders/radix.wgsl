// LSD radix sort along the last axis of C-contiguous [batch, n] keys (NumPy order: ascending,
// NaN last, -0.0 == 0.0), stable, carrying each key's position in its row (argsort), 8-bit
// digits. Portable: workgroup memory and workgroup barriers only (no subgroup operations, no
// inter-workgroup forward progress), so it runs on every adapter, llvmpipe included.
//
// Keys are first mapped to unsigned words whose order is NumPy's (`map_key`, from the Rust side):
// KT is `u32` (32-bit keys) or `vec2<u32>` (64-bit keys as (low, high) words; no SHADER_INT64 or
// SHADER_F64 needed here). Rows are cut into tiles of TILE keys (a tile never spans two rows);
// per pass (digit at bit `shift`):
//   up      per tile, its digit histogram -> hist[(row * DIG + digit) * tpr + tile]
//   hred    per block of TILE histogram entries, their sum -> bsum
//   hspine  one workgroup: exclusive scan of bsum
//   hdown   per block: exclusive scan of hist (+ bsum): as every row's counts sum to n, entry
//           (row, digit, tile) is then the flat position of the tile's first key with that digit
//   down    per tile: a stable local sort by the digit (two 4-bit counting passes: counters
//           [nibble][thread] scanned in workgroup memory, each thread holding KPT consecutive
//           keys), then every key goes to hist + its rank among the tile's keys of its digit
// Around the passes:
//   init    mapped keys and positions, copies of the raw keys (and int64 values) for the final
//           gather, and the OR of the mapped keys and of their complements (flags): a digit with
//           no differing bit is skipped by the Rust side
//   fin     keys[i] = orig[row, pos[i]] (values likewise, or the positions themselves)
// A sort without values first runs keys only: `init` writes no positions or raw copies but
// flags (word 4) any key that `unmap_key` does not give back bit for bit (a NaN, -0.0), the
// passes move keys only, and `fink` writes keys[i] = unmap_key(sorted[i]). Where a key was
// flagged, the Rust side reruns `init` with positions and takes the path above.
// The Rust side prepends the width's definitions (KT, KWORDS, lo, hi, mk), `map_key` and
// `unmap_key`, and keeps the lines marked /*V*/ (values), /*M*/ (values moved) or /*P*/
// (positions written) only where they apply, /*I*/ only where positions travel and /*K*/ only
// where they do not. Each section (from its marker line) is compiled alone with this header.

struct Meta {
  n: u32, batch: u32, tpr: u32, shift: u32,
  koff: u32, voff: u32, total: u32, nblk: u32,
  hlen: u32, pad0: u32, pad1: u32, pad2: u32,
}
@group(0) @binding(0) var<uniform> mt: Meta;

const WG: u32 = 128u;
const KPT: u32 = 16u;
const TILE: u32 = 2048u; // WG * KPT, and 16 nibble counters per invocation
const DIG: u32 = 256u;

// TILE words, one word of padding after every 32 (`pad`): the blocked accesses (stride KPT)
// then hit distinct banks.
var<workgroup> sm: array<u32, 2112>;

fn pad(q: u32) -> u32 { return q + (q >> 5u); }
var<workgroup> tot: array<u32, 128>;

fn group_index(wid: vec3<u32>, nw: vec3<u32>) -> u32 {
  return wid.y * nw.x + wid.x;
}

// The 8-bit digit at bit `s` of a mapped key's words.
fn digit(x: u32, y: u32, s: u32) -> u32 {
  if (s < 32u) { return (x >> s) & 0xffu; }
  return (y >> (s - 32u)) & 0xffu;
}

// A tile's row, its index in the row, its key count and its first key's flat index (up, down).
struct Tile { row: u32, tt: u32, cnt: u32, base: u32 }

fn tile_of(g: u32) -> Tile {
  let row = g / mt.tpr;
  let tt = g % mt.tpr;
  let start = tt * TILE;
  return Tile(row, tt, min(TILE, mt.n - start), row * mt.n + start);
}

// The tile's digit counters (up, down), zeroed by `zero_lh`.
var<workgroup> lh: array<atomic<u32>, 256>;

fn zero_lh(lid: u32) {
  for (var q = lid; q < DIG; q += WG) { atomicStore(&lh[q], 0u); }
}

// Exclusive scan of one value per invocation over the workgroup (tot ends inclusive).
fn scan_tot(lid: u32, s: u32) -> u32 {
  tot[lid] = s;
  workgroupBarrier();
  for (var o = 1u; o < WG; o <<= 1u) {
    var v = 0u;
    if (lid >= o) { v = tot[lid - o]; }
    workgroupBarrier();
    tot[lid] += v;
    workgroupBarrier();
  }
  return tot[lid] - s;
}

// Exclusive scan of sm[0..TILE) in place; tot[WG - 1] is the total afterwards.
fn scan_sm(lid: u32) {
  var s = 0u;
  for (var j = 0u; j < KPT; j++) { s += sm[pad(lid * KPT + j)]; }
  var run = scan_tot(lid, s);
  for (var j = 0u; j < KPT; j++) {
    let q = lid * KPT + j;
    let c = sm[pad(q)];
    sm[pad(q)] = run;
    run += c;
  }
  workgroupBarrier();
}

//@@ init
@group(0) @binding(1) var<storage, read> keys: array<KT>;
@group(0) @binding(2) var<storage, read_write> ka: array<KT>;
@group(0) @binding(3) var<storage, read_write> ia: array<u32>;
@group(0) @binding(4) var<storage, read_write> orig: array<KT>;
@group(0) @binding(5) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> vals: array<vec2<u32>>; /*M*/
@group(0) @binding(7) var<storage, read_write> vorig: array<vec2<u32>>; /*M*/

var<workgroup> wor: array<atomic<u32>, 5>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nw);
  if (lid < 5u) { atomicStore(&wor[lid], 0u); }
  workgroupBarrier();
  var o = KT();
  var a = KT();
  var inexact = false; /*K*/
  for (var j = 0u; j < KPT; j++) {
    let t = g * TILE + j * WG + lid;
    if (t < mt.total) {
      let r = keys[mt.koff + t];
      let m = map_key(r);
      ka[t] = m;
      ia[t] = t % mt.n; /*I*/
      orig[t] = r; /*I*/
      if (any(unmap_key(m) != r)) { inexact = true; } /*K*/
      vorig[t] = vals[mt.voff + t]; /*M*/
      o |= m;
      a |= ~m;
    }
  }
  atomicOr(&wor[0], lo(o));
  atomicOr(&wor[1], hi(o));
  atomicOr(&wor[2], lo(a));
  atomicOr(&wor[3], hi(a));
  if (inexact) { atomicOr(&wor[4], 1u); } /*K*/
  workgroupBarrier();
  if (lid < 5u) {
    let w = atomicLoad(&wor[lid]);
    if (w != 0u) { atomicOr(&flags[lid], w); }
  }
}

//@@ up
@group(0) @binding(1) var<storage, read> ka: array<KT>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nw);
  if (g >= mt.batch * mt.tpr) { return; }
  let t = tile_of(g);
  zero_lh(lid);
  workgroupBarrier();
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + lid;
    if (p < t.cnt) {
      let k = ka[t.base + p];
      atomicAdd(&lh[digit(lo(k), hi(k), mt.shift)], 1u);
    }
  }
  workgroupBarrier();
  for (var q = lid; q < DIG; q += WG) {
    hist[(t.row * DIG + q) * mt.tpr + t.tt] = atomicLoad(&lh[q]);
  }
}

//@@ hred
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read_write> bsum: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = group_index(wid, nw);
  if (b >= mt.nblk) { return; }
  var s = 0u;
  for (var j = 0u; j < KPT; j++) {
    let i = b * TILE + j * WG + lid;
    if (i < mt.hlen) { s += hist[i]; }
  }
  tot[lid] = s;
  workgroupBarrier();
  for (var o = WG / 2u; o > 0u; o >>= 1u) {
    if (lid < o) { tot[lid] += tot[lid + o]; }
    workgroupBarrier();
  }
  if (lid == 0u) { bsum[b] = tot[0]; }
}

//@@ hspine
@group(0) @binding(1) var<storage, read_write> bsum: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
  var carry = 0u;
  for (var c = 0u; c < mt.nblk; c += TILE) {
    for (var j = 0u; j < KPT; j++) {
      let i = c + j * WG + lid;
      var v = 0u;
      if (i < mt.nblk) { v = bsum[i]; }
      sm[pad(j * WG + lid)] = v;
    }
    workgroupBarrier();
    scan_sm(lid);
    for (var j = 0u; j < KPT; j++) {
      let i = c + j * WG + lid;
      if (i < mt.nblk) { bsum[i] = sm[pad(j * WG + lid)] + carry; }
    }
    carry += tot[WG - 1u];
    workgroupBarrier();
  }
}

//@@ hdown
@group(0) @binding(1) var<storage, read_write> hist: array<u32>;
@group(0) @binding(2) var<storage, read> bsum: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = group_index(wid, nw);
  if (b >= mt.nblk) { return; }
  for (var j = 0u; j < KPT; j++) {
    let i = b * TILE + j * WG + lid;
    var v = 0u;
    if (i < mt.hlen) { v = hist[i]; }
    sm[pad(j * WG + lid)] = v;
  }
  workgroupBarrier();
  scan_sm(lid);
  let off = bsum[b];
  for (var j = 0u; j < KPT; j++) {
    let i = b * TILE + j * WG + lid;
    if (i < mt.hlen) { hist[i] = sm[pad(j * WG + lid)] + off; }
  }
}

//@@ down
@group(0) @binding(1) var<storage, read> ka: array<KT>;
@group(0) @binding(2) var<storage, read> ia: array<u32>;
@group(0) @binding(3) var<storage, read> hist: array<u32>;
@group(0) @binding(4) var<storage, read_write> kb: array<KT>;
@group(0) @binding(5) var<storage, read_write> ib: array<u32>;

var<workgroup> ls: array<u32, 256>;
var<workgroup> go: array<u32, 256>;

// The invocation's KPT keys (words x, y), positions, ranks, and nibbles/destinations.
var<private> rx: array<u32, 16>;
var<private> ry: array<u32, 16>;
var<private> ri: array<u32, 16>;
var<private> rr: array<u32, 16>;
var<private> rn: array<u32, 16>;

// The invocation's KPT words of sm once every invocation has written it: blocked (element
// lid * KPT + j) or striped (element j * WG + lid).
fn read_sm(lid: u32, striped: bool) -> array<u32, 16> {
  workgroupBarrier();
  var o: array<u32, 16>;
  for (var j = 0u; j < KPT; j++) { o[j] = sm[pad(select(lid * KPT + j, j * WG + lid, striped))]; }
  workgroupBarrier();
  return o;
}

// v[j] placed at sm[pad(rr[j])], then read back blocked or striped (`read_sm`).
fn shuffle(v: array<u32, 16>, lid: u32, striped: bool) -> array<u32, 16> {
  for (var j = 0u; j < KPT; j++) { sm[pad(rr[j])] = v[j]; }
  return read_sm(lid, striped);
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nw);
  if (g >= mt.batch * mt.tpr) { return; }
  let t = tile_of(g);
  let row = t.row;
  let tt = t.tt;
  let cnt = t.cnt;
  let base = t.base;
  let s = mt.shift;
  zero_lh(lid);
  // Load striped (coalesced), keep blocked: element p = lid * KPT + j. Padding (p >= cnt) has
  // all-ones keys, so it sorts after every key of the tile.
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + lid;
    var w = 0xffffffffu;
    if (p < cnt) { w = lo(ka[base + p]); }
    sm[pad(p)] = w;
  }
  rx = read_sm(lid, false);
  if (KWORDS == 2u) {
    for (var j = 0u; j < KPT; j++) {
      let p = j * WG + lid;
      var w = 0xffffffffu;
      if (p < cnt) { w = hi(ka[base + p]); }
      sm[pad(p)] = w;
    }
    ry = read_sm(lid, false);
  }
  for (var j = 0u; j < KPT; j++) { /*I*/
    let p = j * WG + lid; /*I*/
    var w = 0u; /*I*/
    if (p < cnt) { w = ia[base + p]; } /*I*/
    sm[pad(p)] = w; /*I*/
  } /*I*/
  ri = read_sm(lid, false); /*I*/
  for (var j = 0u; j < KPT; j++) {
    if (lid * KPT + j < cnt) { atomicAdd(&lh[digit(rx[j], ry[j], s)], 1u); }
  }
  workgroupBarrier();
  // Where each digit starts in the tile (ls) and in the output (go).
  let c0 = atomicLoad(&lh[2u * lid]);
  let c1 = atomicLoad(&lh[2u * lid + 1u]);
  let ex = scan_tot(lid, c0 + c1);
  ls[2u * lid] = ex;
  ls[2u * lid + 1u] = ex + c0;
  go[2u * lid] = hist[(row * DIG + 2u * lid) * mt.tpr + tt];
  go[2u * lid + 1u] = hist[(row * DIG + 2u * lid + 1u) * mt.tpr + tt];
  // Two stable counting passes on the digit's low, then high nibble.
  for (var sub = 0u; sub < 2u; sub++) {
    for (var j = 0u; j < KPT; j++) { sm[pad(lid * KPT + j)] = 0u; }
    workgroupBarrier();
    for (var j = 0u; j < KPT; j++) {
      let nb = (digit(rx[j], ry[j], s) >> (4u * sub)) & 15u;
      let q = nb * WG + lid;
      rn[j] = nb;
      rr[j] = sm[pad(q)];
      sm[pad(q)] = rr[j] + 1u;
    }
    workgroupBarrier();
    scan_sm(lid);
    for (var j = 0u; j < KPT; j++) { rr[j] += sm[pad(rn[j] * WG + lid)]; }
    workgroupBarrier();
    if (sub == 0u) {
      rx = shuffle(rx, lid, false);
      if (KWORDS == 2u) { ry = shuffle(ry, lid, false); }
      ri = shuffle(ri, lid, false); /*I*/
    }
  }
  // rr[j] is now the key's place in the tile sorted by digit: scatter from there, striped.
  for (var j = 0u; j < KPT; j++) {
    let d = digit(rx[j], ry[j], s);
    rn[j] = go[d] + rr[j] - ls[d];
  }
  rn = shuffle(rn, lid, true);
  rx = shuffle(rx, lid, true);
  if (KWORDS == 2u) { ry = shuffle(ry, lid, true); }
  ri = shuffle(ri, lid, true); /*I*/
  for (var j = 0u; j < KPT; j++) {
    if (j * WG + lid < cnt) {
      kb[rn[j]] = mk(rx[j], ry[j]);
      ib[rn[j]] = ri[j]; /*I*/
    }
  }
}

//@@ fin
@group(0) @binding(1) var<storage, read_write> keys: array<KT>;
@group(0) @binding(2) var<storage, read> ia: array<u32>;
@group(0) @binding(3) var<storage, read> orig: array<KT>;
@group(0) @binding(4) var<storage, read_write> vals: array<vec2<u32>>; /*V*/
@group(0) @binding(5) var<storage, read> vorig: array<vec2<u32>>; /*M*/

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = group_index(wid, nw) * WG + lid;
  if (t >= mt.total) { return; }
  let pos = ia[t];
  let src = (t / mt.n) * mt.n + pos;
  keys[mt.koff + t] = orig[src];
  vals[mt.voff + t] = vorig[src]; /*M*/
  vals[mt.voff + t] = vec2<u32>(pos, 0u); /*P*/
}

//@@ fink
@group(0) @binding(1) var<storage, read_write> keys: array<KT>;
@group(0) @binding(2) var<storage, read> sorted: array<KT>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = group_index(wid, nw) * WG + lid;
  if (t >= mt.total) { return; }
  keys[mt.koff + t] = unmap_key(sorted[t]);
}
