//! The second launch of the ziggurat samplers: the slow lanes a packed launch deferred
//! ([`super::ziggurat::ziggurat_lanes`]), one per GPU thread.
//!
//! The packed launch appends the element numbers of its slow lanes (about 1.1% of them) to a
//! list of `segments` parts of `capacity` entries, counting each part's entries in a `uint32`
//! counter. This launch runs `segments * capacity` threads; thread `i` (part `i / capacity`,
//! entry `i % capacity`) finishes element `list[i]` when that entry was written: it recomputes
//! the element's first word(s) from its item's Philox block, runs
//! [`super::ziggurat::slow_value`] and stores the sampler's transform of it over the packed
//! launch's provisional value. The value depends only on the element, so the order in which
//! GPU threads appended does not matter: the arrays are the same on every backend.
//!
//! A full part cannot take an item's slow lanes; its counter then ends above the capacity, and
//! the part's `capacity` threads of this launch then finish every lane of every item of the
//! part, an item per thread per round ([`super::ziggurat::ziggurat_lanes_inline`]): listed
//! lanes get the same value twice. The launch has `segments * capacity` threads (it had one
//! per item as well, 2^26 mostly idle threads for 2^28 float32 normals: about 0.3 ms on an
//! H100).

use super::ziggurat::{slow_value, zig_lanes, ziggurat_lanes_inline, Zig};
use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use crate::random::builder::{add, and, bin, lt, mul, shr, sub, u32c, Builder};
use crate::random::packed::item_lanes;
use crate::random::philox::{Stream, STREAM_PARAMS};
use crate::random::ziggurat_tables as zt;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Most list parts a launch uses (a power of two: an item's part is `item & (parts - 1)`).
const MAX_SEGMENTS: usize = 1024;

/// Attempts a slow lane makes at most (as the packed launch's inline path).
pub(crate) const ATTEMPTS: i64 = 8;

/// The chance that one lane's layer draw falls outside its rectangle: one minus the mean over
/// the layers of `k[i] / 2^bits` (a lane's magnitude has 21 bits for the float32 normal's 1024
/// layers, 23 for the float32 exponential, 52 for float64; the tables' `k` are the rectangle
/// bounds on that scale).
fn slow_probability(zig: Zig, t: DType) -> f64 {
    let u32s = |k: &[u32]| (k.iter().map(|&x| f64::from(x)).sum::<f64>(), k.len());
    let f64s = |k: &[f64]| (k.iter().sum::<f64>(), k.len());
    let ((sum, layers), bits) = match (zig, t) {
        (Zig::Normal, DType::Float32) => (u32s(&zt::KNOR_F32), 21),
        (Zig::Exponential, DType::Float32) => (u32s(&zt::KEXP_F32), 23),
        (Zig::Normal, _) => (f64s(&zt::KNOR_F64), 52),
        (Zig::Exponential, _) => (f64s(&zt::KEXP_F64), 52),
    };
    (1.0 - sum / 2f64.powi(bits) / layers as f64).clamp(0.0, 1.0)
}

/// A capacity forced by [`set_list_capacity`] (0: none).
static FORCED_CAPACITY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Forces the capacity of every list part (`None`: the planned one), so that tests can make
/// the lists overflow: the arrays must not change (see the module docs).
pub fn set_list_capacity(capacity: Option<u32>) {
    FORCED_CAPACITY.store(capacity.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
}

/// The list of a launch of `items` packed items of dtype `t`: `(segments, capacity)`. A part
/// holds the slow lanes of `ceil(items / segments)` items at most; its capacity is the
/// expected count plus ten standard deviations plus 16 (a Poisson tail below 10^-20), or every
/// lane of its items when that is fewer (small launches then never overflow).
pub(crate) fn plan(zig: Zig, t: DType, items: usize) -> (u32, u32) {
    let (lanes, _, _) = zig_lanes(t);
    let segments = items.max(1).next_power_of_two().min(MAX_SEGMENTS);
    let most = items.div_ceil(segments).max(1) * lanes;
    let expected = slow_probability(zig, t) * most as f64;
    let capacity = (expected + 10.0 * expected.sqrt() + 16.0).ceil() as usize;
    let forced = FORCED_CAPACITY.load(std::sync::atomic::Ordering::Relaxed) as usize;
    let capacity = if forced > 0 { forced } else { capacity };
    (segments as u32, capacity.min(most) as u32)
}

/// The list operands of a launch planned by [`plan`]: zeroed counters and an unset list.
///
/// # Errors
/// Device errors.
pub(crate) fn operands(device: &Device, segments: u32, capacity: u32) -> Result<[Array; 2]> {
    Ok([
        Array::zeros_on(device, &[segments as usize], DType::UInt32)?,
        Array::empty_on(
            device,
            &[segments as usize * capacity as usize],
            DType::UInt32,
        )?,
    ])
}

/// The transform a ziggurat sampler applies to each standard draw (see `continuous.rs`).
pub(crate) type Transform<'a> = dyn Fn(&mut Builder, Expr, DType) -> Expr + 'a;

/// What the finishing kernel depends on besides the transform (which the op name fixes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    op: String,
    zig: Zig,
    dtype: DType,
    params: Vec<DType>,
    raws: Vec<DType>,
}

type Cache = HashMap<Key, (Arc<Kernel>, Arc<Vec<DType>>)>;

fn cache() -> std::sync::MutexGuard<'static, Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// A packed launch's parameter values and raw operands, its list's segments and capacity, and
/// its item count.
pub(crate) type Launched<'a> = (&'a [Scalar], &'a [&'a Array], u32, u32, usize);

/// The finishing launch of a packed ziggurat launch of op `op`: `launched` holds its parameter
/// values and raw operands (tables at 0..3, the counters and the list at 3 and 4, the output
/// last), or is `None` while kernels are collected (the kernel is then collected only).
/// `params` are the packed kernel's parameter dtypes after the stream's (the sampler's own, then
/// the list's `segments - 1` and `capacity`, then items and element count).
///
/// # Errors
/// Device errors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    op: &str,
    zig: Zig,
    t: DType,
    device: &Device,
    params: &[DType],
    raws: &[DType],
    f: &Transform<'_>,
    launched: Option<Launched<'_>>,
) -> Result<()> {
    let key = Key {
        op: op.to_string(),
        zig,
        dtype: t,
        params: params.to_vec(),
        raws: raws.to_vec(),
    };
    let cached = cache().get(&key).cloned();
    let (kernel, dtypes) = match cached {
        Some(k) => k,
        None => {
            let k = build(op, zig, t, params, raws, f);
            k.validate()?;
            let dtypes = Arc::new(k.dtypes());
            let entry = (Arc::new(k), dtypes);
            cache().insert(key, entry.clone());
            entry
        }
    };
    let Some((values, raw_refs, segments, capacity, _items)) = launched else {
        crate::random::kernels::collect(&kernel);
        return Ok(());
    };
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[],
        raws: raw_refs,
        params: values.to_vec(),
        outs: vec![],
        device: Some(device),
        shape: Some(&[segments as usize * capacity as usize]),
    }
    .run_validated(&dtypes)?;
    Ok(())
}

/// The finishing kernel's IR (see the module docs).
fn build(
    op: &str,
    zig: Zig,
    t: DType,
    params: &[DType],
    raws: &[DType],
    f: &Transform<'_>,
) -> Kernel {
    let (lanes, per, blocks) = zig_lanes(t);
    let u = DType::UInt32;
    let (counters, list, out) = (3, 4, raws.len() - 1);
    let mut b = Builder::new();
    let s = Stream::new(&mut b);
    let own = STREAM_PARAMS + params.len() - 4;
    let segment_mask = Expr::param(own, u);
    let capacity = Expr::param(own + 1, u);
    let items = Expr::param(own + 2, u);
    let n = Expr::param(own + 3, u);
    let tid = b.let_(Expr::index().cast(u));
    let store = |b: &mut Builder, e: Expr, z: Expr| {
        let v = f(b, z, t);
        let v = b.let_(v);
        b.push_stmt(Stmt::StoreRaw {
            raw: out,
            index: e.cast(DType::Int64),
            value: v,
        });
    };
    // Part 1: list entry `tid`, if it was written.
    let part = b.let_(bin(B::FloorDiv, tid.clone(), capacity.clone()));
    let entry = b.let_(sub(tid.clone(), mul(part.clone(), capacity.clone())));
    let in_list = b.let_(lt(part.clone(), add(segment_mask.clone(), u32c(1))));
    b.if_(in_list.clone(), |b| {
        let count = b.let_(Expr::load(counters, u, part.clone().cast(DType::Int64)));
        // An overflowed part may have unwritten entries below its count: part 2 redoes all
        // of its items instead.
        let listed = bin(
            B::And,
            lt(entry.clone(), count.clone()),
            bin(B::Le, count, capacity.clone()),
        );
        b.if_(listed, |b| {
            let e = b.let_(Expr::load(list, u, tid.clone().cast(DType::Int64)));
            // Element e is lane q = e / items of item r = e % items; its first word is word
            // q * per of the item's blocks.
            let q = b.let_(bin(B::FloorDiv, e.clone(), items.clone()));
            let r = b.let_(sub(e.clone(), mul(q.clone(), items.clone())));
            let w0 = b.let_(mul(q, u32c(per as u32)));
            let block = s.block_with_index(b, r, shr(w0.clone(), 2));
            let at = b.let_(and(w0, u32c(3)));
            let words: Vec<Expr> = (0..per)
                .map(|k| {
                    let mut w = block[3].clone();
                    for j in (0..3).rev() {
                        let here = bin(B::Eq, add(at.clone(), u32c(k as u32)), u32c(j as u32));
                        w = Expr::select(here, block[j].clone(), w);
                    }
                    b.let_(w)
                })
                .collect();
            let es = s.at(e.clone());
            let z = slow_value(b, &es, zig, t, 0, &words, blocks, ATTEMPTS);
            store(b, e, z);
        });
    });
    // Part 2: a part whose list overflowed (counter > capacity): its `capacity` threads redo
    // every item of the part (items `part + segments * k`), each lane again, one item per
    // thread per round (lanes already listed get the same value twice).
    b.if_(in_list.clone(), |b| {
        let count = b.let_(Expr::load(counters, u, part.clone().cast(DType::Int64)));
        b.if_(bin(B::Gt, count, capacity.clone()), |b| {
            let segments = add(segment_mask.clone(), u32c(1));
            let per_part = bin(
                B::FloorDiv,
                add(items.clone(), segment_mask.clone()),
                segments.clone(),
            );
            let rounds = bin(
                B::FloorDiv,
                sub(add(per_part, capacity.clone()), u32c(1)),
                capacity.clone(),
            );
            // (an expression of parameters: loop bounds must be uniform)
            b.for_param(rounds.cast(DType::Int64), |b, m| {
                let k = add(entry.clone(), mul(m.cast(u), capacity.clone()));
                let item = b.let_(add(part.clone(), mul(k, segments.clone())));
                b.if_(lt(item.clone(), items.clone()), |b| {
                    let l = item_lanes(b, &s, item.clone(), lanes, blocks, &items, &n);
                    let z = ziggurat_lanes_inline(b, &s, zig, t, 0, &l, ATTEMPTS);
                    for (q, z) in z.into_iter().enumerate() {
                        let e = l.elements[q].clone();
                        b.if_(l.valid[q].clone(), |b| store(b, e, z));
                    }
                });
            });
        });
    });
    let mut all = Stream::params();
    all.extend_from_slice(params);
    b.finish_raw(&format!("{op}_slow_lanes"), all, raws.to_vec())
}
