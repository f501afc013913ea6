//! The two ziggurats of Marsaglia and Tsang ("The Ziggurat Method for Generating Random
//! Variables", J. Stat. Software 5(8), 2000): 256 layers (1024 for the float32 normal), tables
//! as raw operands (`ziggurat_tables.rs`), the normal's tail by Marsaglia's method and the
//! exponential's by memorylessness. [`ziggurat`] draws one value from an element's own stream;
//! [`ziggurat_lanes`] draws the lanes of a packed launch (several elements from one pair of
//! Philox blocks, see [`crate::random::packed`]).

use super::{neg_log1m, uniform01};
use crate::array::Array;
use crate::device::Device;
use crate::random::builder::{
    add, and, bin, bool_c, div, fc, lt, mul, neg, not, shr, sub, u32c, xor, Builder,
};
use crate::random::fmath::exp;
use crate::random::philox::Stream;
use crate::random::ziggurat_tables as zt;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp as B, Expr};
use std::sync::{Arc, Mutex};
/// Which ziggurat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Zig {
    /// The standard normal (tail start 3.654...).
    Normal,
    /// The standard exponential (tail start 7.697...).
    Exponential,
}

type TableCache = Mutex<Vec<(usize, Zig, DType, Arc<Vec<Array>>)>>;
static TABLES: TableCache = Mutex::new(Vec::new());

/// The ziggurat tables `[k, w, f]` of `zig` for dtype `t` on `device` (uploaded once per
/// device): `k` is uint32 for float32 (23-bit magnitudes), float64 for float64 (52-bit).
pub(crate) fn tables(device: &Device, zig: Zig, t: DType) -> Result<Vec<Array>> {
    let id = Arc::as_ptr(device.backend()) as *const () as usize;
    let mut cache = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, _, v)) = cache
        .iter()
        .find(|(i, z, d, _)| *i == id && *z == zig && *d == t)
    {
        return Ok(v.as_ref().clone());
    }
    let u32s = |v: &[u32]| Array::from_slice_on(device, v, &[v.len()]);
    let f64s = |v: &[f64]| Array::from_slice_on(device, v, &[v.len()]);
    let v = match (zig, t) {
        (Zig::Normal, DType::Float32) => vec![
            u32s(&zt::KNOR_F32)?,
            f32_table(device, &zt::WNOR_F32)?,
            f32_table(device, &zt::FNOR_F32)?,
        ],
        (Zig::Normal, _) => vec![
            f64s(&zt::KNOR_F64)?,
            f64s(&zt::WNOR_F64)?,
            f64s(&zt::FNOR_F64)?,
        ],
        (Zig::Exponential, DType::Float32) => vec![
            u32s(&zt::KEXP_F32)?,
            f32_table(device, &zt::WEXP_F32)?,
            f32_table(device, &zt::FEXP_F32)?,
        ],
        (Zig::Exponential, _) => vec![
            f64s(&zt::KEXP_F64)?,
            f64s(&zt::WEXP_F64)?,
            f64s(&zt::FEXP_F64)?,
        ],
    };
    cache.push((id, zig, t, Arc::new(v.clone())));
    Ok(v)
}

fn f32_table(device: &Device, v: &[f64]) -> Result<Array> {
    let f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    Array::from_slice_on(device, &f, &[f.len()])
}

/// The raw operand dtypes of a ziggurat's tables for float dtype `t`.
pub(crate) fn table_types(t: DType) -> [DType; 3] {
    if t == DType::Float32 {
        [DType::UInt32, t, t]
    } else {
        [t; 3]
    }
}

/// The magnitude, layer and sign of a ziggurat draw from block words `w`: float32 takes one
/// word (layer bits 0..10, sign bit 10, magnitude bits 11..32 for the normal's 1024 layers;
/// the exponential's 256 layers bits 1..9, magnitude bits 9..32, no sign), float64 two (52
/// magnitude bits).
fn zig_bits(b: &mut Builder, zig: Zig, t: DType, w: &[Expr]) -> (Expr, Expr, Expr) {
    let (idx, sign, mag) = match (zig, t) {
        (Zig::Normal, DType::Float32) => (
            and(w[0].clone(), u32c(0x3ff)),
            and(shr(w[0].clone(), 10), u32c(1)),
            shr(w[0].clone(), 11),
        ),
        (Zig::Exponential, DType::Float32) => (
            and(shr(w[0].clone(), 1), u32c(0xff)),
            u32c(0),
            shr(w[0].clone(), 9),
        ),
        (Zig::Normal, _) => (
            and(w[0].clone(), u32c(0xff)),
            and(shr(w[0].clone(), 8), u32c(1)),
            // bits 9..61 of (w1:w0): 23 from w0, 29 from w1.
            b.let_(add(
                mul(
                    and(w[1].clone(), u32c(0x1fff_ffff)).cast(t),
                    fc(t, 2f64.powi(23)),
                ),
                shr(w[0].clone(), 9).cast(t),
            )),
        ),
        (Zig::Exponential, _) => (
            and(shr(w[0].clone(), 3), u32c(0xff)),
            u32c(0),
            // bits 11..63: 21 from w0, 31 from w1.
            b.let_(add(
                mul(
                    and(w[1].clone(), u32c(0x7fff_ffff)).cast(t),
                    fc(t, 2f64.powi(21)),
                ),
                shr(w[0].clone(), 11).cast(t),
            )),
        ),
    };
    (b.let_(idx), b.let_(sign), b.let_(mag))
}

/// The state of one ziggurat draw (locals): the value so far, whether it is final, and
/// whether the normal's tail loop is running (with its sign).
struct ZigState {
    res: Expr,
    done: Expr,
    tail: Expr,
    tail_neg: Expr,
}

impl ZigState {
    fn new(b: &mut Builder, t: DType) -> ZigState {
        ZigState {
            res: b.var(fc(t, 0.0)),
            done: b.var(bool_c(false)),
            tail: b.var(bool_c(false)),
            tail_neg: b.var(bool_c(false)),
        }
    }
}

/// The tail start `r` of `zig` for dtype `t`.
fn tail_start(zig: Zig, t: DType) -> f64 {
    match (zig, t) {
        (Zig::Normal, DType::Float32) => zt::NOR_R_F32,
        (Zig::Normal, _) => zt::NOR_R,
        (Zig::Exponential, _) => zt::EXP_R,
    }
}

/// A layer draw from the words `w` (one for float32, two for float64): its layer, magnitude,
/// value `x = mag w[layer]`, sign, and whether it lies in the layer's rectangle (`fast`).
struct LayerDraw {
    idx: Expr,
    layer: Expr,
    x: Expr,
    negative: Expr,
    signed: Expr,
    fast: Expr,
}

fn layer_draw(b: &mut Builder, zig: Zig, t: DType, raw0: usize, w: &[Expr]) -> LayerDraw {
    let [kt, _, _] = table_types(t);
    let (idx, sign, mag) = zig_bits(b, zig, t, w);
    let layer = b.let_(idx.clone().cast(DType::Int64));
    let wv = Expr::load(raw0 + 1, t, layer.clone());
    let x = b.let_(mul(mag.clone().cast(t), wv));
    let negative = b.let_(bin(B::Ne, sign, u32c(0)));
    let signed = b.let_(Expr::select(negative.clone(), neg(x.clone()), x.clone()));
    let kv = Expr::load(raw0, kt, layer.clone());
    let fast = if kt == DType::UInt32 {
        lt(mag, kv)
    } else {
        lt(mag.cast(t), kv)
    };
    LayerDraw {
        idx,
        layer,
        x,
        negative,
        signed,
        fast: b.let_(fast),
    }
}

/// A layer draw outside its rectangle: layer 0 enters the normal's tail loop (or, for the
/// exponential, returns `r` plus a fresh exponential); another layer takes the wedge test
/// `f[i] + u (f[i-1] - f[i]) < f(x)`. `u` builds the one extra uniform either needs.
fn layer_slow(
    b: &mut Builder,
    zig: Zig,
    t: DType,
    raw0: usize,
    d: &LayerDraw,
    u: &dyn Fn(&mut Builder) -> Expr,
    st: &ZigState,
) {
    let r = tail_start(zig, t);
    b.if_else(
        bin(B::Eq, d.idx.clone(), u32c(0)),
        |b| match zig {
            Zig::Normal => {
                b.assign(&st.tail, bool_c(true));
                b.assign(&st.tail_neg, d.negative.clone());
                b.assign(&st.res, d.signed.clone());
            }
            Zig::Exponential => {
                // Memoryless tail: r + a fresh exponential.
                let uv = u(b);
                let e = neg_log1m(b, uv);
                b.assign(&st.res, add(fc(t, r), e));
                b.assign(&st.done, bool_c(true));
            }
        },
        |b| {
            let fi = b.let_(Expr::load(raw0 + 2, t, d.layer.clone()));
            let fprev = Expr::load(
                raw0 + 2,
                t,
                sub(
                    d.layer.clone(),
                    Expr::constant(cupy_core::scalar::Scalar::Int64(1)),
                ),
            );
            let uv = u(b);
            let y = b.let_(add(fi.clone(), mul(uv, sub(fprev, fi))));
            let x = d.x.clone();
            let arg = match zig {
                Zig::Normal => mul(mul(fc(t, -0.5), x.clone()), x),
                Zig::Exponential => neg(x),
            };
            let e = exp(b, arg);
            let e = b.let_(e);
            b.assign(&st.res, d.signed.clone());
            b.if_(lt(y, e), |b| b.assign(&st.done, bool_c(true)));
        },
    );
}

/// One attempt from the block words `w`: a tail step while the tail loop runs (Marsaglia:
/// `x = -log(u1) / r`, `y = -log(u2)`, accept `2y > x^2`), otherwise a layer draw from `w[0..2]`
/// with its extra uniform from `w[2..4]`.
fn attempt(b: &mut Builder, zig: Zig, t: DType, raw0: usize, w: &[Expr; 4], st: &ZigState) {
    let r = tail_start(zig, t);
    b.if_else(
        st.tail.clone(),
        |b| {
            let e1 = neg_log1m(b, uniform01(t, w, 0));
            let xx = b.let_(div(e1, fc(t, r)));
            let yy = neg_log1m(b, uniform01(t, w, 2));
            let yy = b.let_(yy);
            let ok = bin(B::Gt, add(yy.clone(), yy), mul(xx.clone(), xx.clone()));
            b.if_(ok, |b| {
                let v = b.let_(add(fc(t, r), xx));
                b.assign(
                    &st.res,
                    Expr::select(st.tail_neg.clone(), neg(v.clone()), v),
                );
                b.assign(&st.done, bool_c(true));
            });
        },
        |b| {
            let d = layer_draw(b, zig, t, raw0, w);
            b.if_else(
                d.fast.clone(),
                |b| {
                    b.assign(&st.res, d.signed.clone());
                    b.assign(&st.done, bool_c(true));
                },
                |b| layer_slow(b, zig, t, raw0, &d, &|_| uniform01(t, w, 2), st),
            );
        },
    );
}

/// Attempts `first, first + 1, ...` (blocks of `s`) while `st` is not done, `n` at most.
/// They sit behind one `if` so a group of lanes that all accepted skips the loop (the attempt
/// numbers, hence the bits, are the same either way).
#[allow(clippy::too_many_arguments)]
fn retry(
    b: &mut Builder,
    s: &Stream,
    zig: Zig,
    t: DType,
    raw0: usize,
    first: Expr,
    n: i64,
    st: &ZigState,
) {
    b.if_(not(st.done.clone()), |b| {
        b.for_(n, |b, k| {
            b.if_(not(st.done.clone()), |b| {
                let blk = b.let_(add(first.clone(), k.cast(DType::UInt32)));
                let w = s.block(b, blk);
                attempt(b, zig, t, raw0, &w, st);
            });
        });
    });
}

/// A ziggurat sample of `zig` in dtype `t` (tables are raw operands `raw0..raw0 + 3`), from
/// blocks `base, base + 1, ...` of the element's stream, at most `attempts` of them. Returns a
/// local. Layers are accepted at once 99.57% (float32 normal, 1024 layers), 98.5% (float64
/// normal) and 97.8% (exponential) of the time (`tools/gen_ziggurat.py`'s tables); a
/// rejected wedge point starts over, the normal's tail repeats Marsaglia's tail step. After
/// `attempts` rejections (probability below 10^-15 for 8) the last candidate is kept, so the
/// result is deterministic.
pub(crate) fn ziggurat(
    b: &mut Builder,
    s: &Stream,
    zig: Zig,
    t: DType,
    raw0: usize,
    base: Expr,
    attempts: i64,
) -> Expr {
    let st = ZigState::new(b, t);
    let w = s.block(b, base.clone());
    attempt(b, zig, t, raw0, &w, &st);
    let first = b.let_(add(base, u32c(1)));
    retry(b, s, zig, t, raw0, first, attempts - 1, &st);
    st.res
}

/// Lanes of `zig` per packed item for dtype `t`, the words each takes and the Philox blocks
/// of an item: float32 8 lanes of one word from two blocks, float64 8 lanes of two from four.
/// (Float32 took 16 lanes from four blocks until 2026-12-07: its packed kernel needed 76
/// registers a thread against 44 for 8 lanes, and took 546 us against 492 for 2^28 normals on
/// the H100, the slow-lane launch 90 against 88; fewer lanes than 8 spend more of each thread
/// on its own Philox rounds.)
pub(crate) fn zig_lanes(t: DType) -> (usize, usize, u32) {
    if t == DType::Float32 {
        (8, 1, 2)
    } else {
        (8, 2, 4)
    }
}

/// Where a packed launch defers its slow lanes (see [`ziggurat_lanes`] and `deferred.rs`):
/// raw operand numbers of the per-segment counters (`uint32 [segments]`, zero before the
/// launch) and of the list (`uint32 [segments * capacity]`), and the `uint32` parameters
/// `segments - 1` (a power of two minus one) and `capacity`.
pub(crate) struct Defer {
    pub counters: usize,
    pub list: usize,
    pub segment_mask: Expr,
    pub capacity: Expr,
}

/// The final value of a lane whose layer draw (from its word(s) `words`) fell outside its
/// rectangle, for element stream `es`: the wedge or tail test with the extra uniform from
/// block `B` of the element's stream (`B` = `blocks`, the item's block count), later attempts
/// from blocks `B + 1, B + 2, ...` (at most `attempts` in all). It depends only on the element,
/// its first word(s) and the key, so the packed launch and the deferred one agree bit for bit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn slow_value(
    b: &mut Builder,
    es: &Stream,
    zig: Zig,
    t: DType,
    raw0: usize,
    words: &[Expr],
    blocks: u32,
    attempts: i64,
) -> Expr {
    let st = ZigState::new(b, t);
    let d = layer_draw(b, zig, t, raw0, words);
    let extra = |b: &mut Builder| {
        let w = es.block_at(b, blocks);
        b.let_(uniform01(t, &w, 2))
    };
    layer_slow(b, zig, t, raw0, &d, &extra, &st);
    retry(b, es, zig, t, raw0, u32c(blocks + 1), attempts - 1, &st);
    st.res
}

/// Every lane's layer draw of a packed item: the signed values (locals) and the mask of the
/// valid lanes whose draw fell outside its rectangle (bit `q` for lane `q`, a local variable).
fn lane_draws(
    b: &mut Builder,
    zig: Zig,
    t: DType,
    raw0: usize,
    lanes: &crate::random::packed::Lanes,
) -> (Vec<Expr>, Expr) {
    let (count, per, _) = zig_lanes(t);
    let mut signed = Vec::with_capacity(count);
    let mut pending = u32c(0);
    for q in 0..count {
        let d = layer_draw(b, zig, t, raw0, &lanes.words[q * per..(q + 1) * per]);
        signed.push(d.signed.clone());
        let slow = bin(B::And, not(d.fast), lanes.valid[q].clone());
        let bit = Expr::select(slow, u32c(1 << q), u32c(0));
        pending = b.let_(bin(B::Or, pending, bit));
    }
    (signed, b.var(pending))
}

/// The ziggurat samples of a packed item's lanes (see [`zig_lanes`]; tables at `raw0`), for the
/// packed launch.
///
/// Every lane first draws a layer from its own word(s) of the item's blocks. The ~1% whose
/// draw falls outside its rectangle ("slow" lanes) get their final value from [`slow_value`],
/// which depends only on the lane's element, word(s) and the key, in a second launch
/// (`deferred.rs`) that runs them with whole groups of GPU threads busy: the item adds its
/// count of slow lanes to its segment's counter (segment = item `&` `segment_mask`) and, if the
/// segment's part of the list has room, appends their element numbers there. (Finished here,
/// with the 256-layer table and 16 lanes, the slow path cost every group of 32 threads a pass
/// per item, since its 512 lanes almost always held a slow lane, and its registers cut the
/// occupancy to a quarter: 1.40 ms for 2^28 float32 normals on the H200.) A slow lane keeps
/// its provisional value until then. Lanes past the end (`valid` false) are not counted.
pub(crate) fn ziggurat_lanes(
    b: &mut Builder,
    zig: Zig,
    t: DType,
    raw0: usize,
    lanes: &crate::random::packed::Lanes,
    defer: &Defer,
) -> Vec<Expr> {
    let count = zig_lanes(t).0;
    let (res, pending) = lane_draws(b, zig, t, raw0, lanes);
    let has = |p: &Expr, q: usize| bin(B::Ne, and(p.clone(), u32c(1 << q)), u32c(0));
    b.if_(bin(B::Ne, pending.clone(), u32c(0)), |b| {
        let mut slow = u32c(0);
        for q in 0..count {
            slow = add(slow, and(shr(pending.clone(), q as u32), u32c(1)));
        }
        let slow = b.let_(slow);
        let item = lanes.elements[0].clone();
        let seg = b.let_(and(item, defer.segment_mask.clone()));
        let base = b.fetch_add(defer.counters, seg.clone().cast(DType::Int64), slow.clone());
        b.if_(
            bin(B::Le, add(base.clone(), slow), defer.capacity.clone()),
            |b| {
                let slot = b.var(add(mul(seg, defer.capacity.clone()), base));
                for q in 0..count {
                    b.if_(has(&pending, q), |b| {
                        b.push_stmt(cupy_core::kernel::ir::Stmt::StoreRaw {
                            raw: defer.list,
                            index: slot.clone().cast(DType::Int64),
                            value: lanes.elements[q].clone(),
                        });
                        b.assign(&slot, add(slot.clone(), u32c(1)));
                    });
                }
            },
        );
    });
    res
}

/// The final ziggurat samples of a packed item's lanes, all in one thread: each lane's layer
/// draw, then the slow lanes one at a time in lane order through [`slow_value`] (so a group of
/// GPU threads runs the slow path about once per item, not once per lane). The same values as
/// [`ziggurat_lanes`] followed by its deferred launch; for the items whose list part
/// overflowed (`deferred.rs`). Lanes past the end (`valid` false) are not finished.
pub(crate) fn ziggurat_lanes_inline(
    b: &mut Builder,
    s: &Stream,
    zig: Zig,
    t: DType,
    raw0: usize,
    lanes: &crate::random::packed::Lanes,
    attempts: i64,
) -> Vec<Expr> {
    let (count, per, blocks) = zig_lanes(t);
    let (signed, pending) = lane_draws(b, zig, t, raw0, lanes);
    let res: Vec<Expr> = signed.into_iter().map(|v| b.var(v)).collect();
    let any = |p: &Expr| bin(B::Ne, p.clone(), u32c(0));
    b.if_(any(&pending), |b| {
        b.for_(count as i64, |b, _| {
            b.if_(any(&pending), |b| {
                // The lowest pending lane: its bit, word(s) and element.
                let low = b.let_(and(pending.clone(), sub(u32c(0), pending.clone())));
                let mut words: Vec<Expr> = lanes.words[..per].to_vec();
                let mut element = lanes.elements[0].clone();
                for q in 1..count {
                    let here = bin(B::Eq, low.clone(), u32c(1 << q));
                    for (k, w) in words.iter_mut().enumerate() {
                        *w =
                            Expr::select(here.clone(), lanes.words[q * per + k].clone(), w.clone());
                    }
                    element = Expr::select(here, lanes.elements[q].clone(), element);
                }
                let words: Vec<Expr> = words.into_iter().map(|w| b.let_(w)).collect();
                let es = s.at(b.let_(element));
                let v = slow_value(b, &es, zig, t, raw0, &words, blocks, attempts);
                for (q, r) in res.iter().enumerate() {
                    b.if_(bin(B::Eq, low.clone(), u32c(1 << q)), |b| {
                        b.assign(r, v.clone());
                    });
                }
                b.assign(&pending, xor(pending.clone(), low));
            });
        });
    });
    res
}
