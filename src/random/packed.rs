//! Packed launches: one GPU thread samples several elements from a few Philox blocks.
//!
//! A Philox4x32-10 block costs ten rounds of 32x32-bit products and gives 128 bits, while a
//! float32 uniform needs 24 of them: a kernel that computes one block per element is bound by
//! those products, not by memory. A packed launch runs `m = ceil(n / lanes)` items instead;
//! item `r` computes blocks `(r, 0, call)` .. `(r, B - 1, call)` of the counter space once, and
//! its lane `q` is element `e = q m + r`, so each of a thread's stores is coalesced with its
//! neighbours'. Draws an element needs beyond its lane's words (a rejection sampler's later
//! attempts) come from blocks `(e, B), (e, B + 1), ...`, which no item block can equal. The bits
//! depend only on the seed, call number, shape and dtype, as for a one-element-per-thread
//! launch, so they are the same on every backend.

use super::builder::{bool_c, lt, u32c, Builder};
use super::generator::Generator;
use super::philox::Stream;
use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A packed sampler's body: each lane's value from the builder, the item's stream and its lanes.
pub(crate) type LaneBody<'a> = dyn Fn(&mut Builder, &Stream, &Lanes) -> Result<Vec<Expr>> + 'a;

/// Work a packed sampler launches after its kernel, on the same stream (the ziggurats' deferred
/// slow lanes): given the device and, when launching, the kernel's parameter values and raw
/// operands (the output last); `None` while kernels are only collected
/// ([`super::kernels::sampler_kernels`]), when it builds and collects its kernels only.
pub(crate) type AfterLaunch<'a> =
    dyn Fn(&Device, Option<(&[Scalar], &[&Array])>) -> Result<()> + 'a;

/// The lanes of one packed item, as the sampler body sees them.
pub(crate) struct Lanes {
    /// The item's Philox words: 4 per block, blocks `(r, 0)`, `(r, 1)`, ... in order.
    pub words: Vec<Expr>,
    /// Each lane's element index (`UInt32` locals).
    pub elements: Vec<Expr>,
    /// Whether each lane's element exists (`Bool` locals; the last item may be short).
    pub valid: Vec<Expr>,
}

impl Generator {
    /// Runs a packed sampler (see the module docs): `lanes` elements per item from `blocks`
    /// Philox blocks; `build` returns each lane's value (dtype `dtype`). Parameters as
    /// [`Generator::launch`]; the output is written through a raw operand after `raws`. The
    /// built kernel is cached by op name, dtype, packing and operand dtypes, so `build` must
    /// depend on nothing else (runtime values are parameters). `after`, if any, runs next (see
    /// [`AfterLaunch`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_packed(
        &mut self,
        op: &str,
        shape: &[usize],
        dtype: DType,
        out: Option<&Array>,
        extra_params: Vec<(DType, Scalar)>,
        raws: &dyn Fn(&Device) -> Result<Vec<Array>>,
        lanes: usize,
        blocks: u32,
        build: &LaneBody<'_>,
        after: Option<&AfterLaunch<'_>>,
    ) -> Result<Array> {
        let (device, shape, n) = Self::target(op, shape, out)?;
        // Element numbers `item + q items` are u32 in the kernel: they must not wrap.
        if (n + lanes) as u64 > 1u64 << 32 {
            return Err(Error::invalid(
                op,
                format!("{n} elements: a packed sampler takes at most 2^32 - {lanes}"),
            ));
        }
        let mut raw_arrays = raws(&device)?;
        let items = n.div_ceil(lanes);
        let mut raw_types: Vec<DType> = raw_arrays.iter().map(|a| a.dtype()).collect();
        raw_types.push(dtype);
        let extra_types: Vec<DType> = extra_params.iter().map(|(d, _)| *d).collect();
        let key = KernelKey {
            op: op.to_string(),
            dtype,
            lanes,
            blocks,
            params: extra_types.clone(),
            raws: raw_types.clone(),
        };
        let cached = lock().get(&key).cloned();
        let (kernel, dtypes) = match cached {
            Some(k) => k,
            None => {
                let kernel = build_packed(op, lanes, blocks, extra_types, raw_types, build)?;
                kernel.validate()?;
                let entry = Arc::new(kernel);
                let dtypes = Arc::new(entry.dtypes());
                lock().insert(key, (entry.clone(), dtypes.clone()));
                (entry, dtypes)
            }
        };
        if super::kernels::collect(&kernel) {
            if let Some(after) = after {
                after(&device, None)?;
            }
            return Err(Error::invalid(op, "kernel collected, not launched"));
        }
        // The output: `out` itself when C-contiguous, else a new array (copied into `out`).
        let direct = out.filter(|o| o.is_c_contiguous()).cloned();
        let target = match &direct {
            Some(o) => o.clone(),
            None => Array::empty_on(&device, &shape, dtype)?,
        };
        if n > 0 {
            let mut values = self.next_call();
            values.extend(extra_params.into_iter().map(|(_, v)| v));
            values.extend([Scalar::UInt32(items as u32), Scalar::UInt32(n as u32)]);
            raw_arrays.push(target.clone());
            let raw_refs: Vec<&Array> = raw_arrays.iter().collect();
            Elementwise {
                op,
                kernel: &kernel,
                inputs: &[],
                raws: &raw_refs,
                params: values.clone(),
                outs: vec![],
                device: Some(&device),
                shape: Some(&[items]),
            }
            .run_validated(&dtypes)?;
            if let Some(after) = after {
                after(&device, Some((&values, &raw_refs)))?;
            }
        } else {
            let _ = self.next_call();
        }
        match out {
            Some(o) if direct.is_none() => {
                crate::manipulation::basic::copyto(o, &target)?;
                Ok(o.clone())
            }
            _ => Ok(target),
        }
    }
}

/// What a packed kernel's IR depends on: the sampler (its op name and dtype; runtime values are
/// parameters), the packing, and the operand dtypes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct KernelKey {
    op: String,
    dtype: DType,
    lanes: usize,
    blocks: u32,
    params: Vec<DType>,
    raws: Vec<DType>,
}

type KernelCache = HashMap<KernelKey, (Arc<Kernel>, Arc<Vec<DType>>)>;

/// Built packed kernels: the IR of a ziggurat sampler has thousands of nodes, and building,
/// validating and hashing it on every call cost more host time than the H200 took to run it.
fn lock() -> std::sync::MutexGuard<'static, KernelCache> {
    static CACHE: OnceLock<Mutex<KernelCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The lanes of packed item `item` (a u32 local) of stream `s`: its `blocks` Philox blocks'
/// words, and lane `q`'s element `item + q items` and whether it is below `n` (`items` and `n`
/// u32 expressions).
pub(crate) fn item_lanes(
    b: &mut Builder,
    s: &Stream,
    item: Expr,
    lanes: usize,
    blocks: u32,
    items: &Expr,
    n: &Expr,
) -> Lanes {
    let mut words = vec![];
    for k in 0..blocks {
        words.extend(s.block_with_index(b, item.clone(), u32c(k)));
    }
    let mut elements = vec![];
    let mut valid = vec![];
    for q in 0..lanes {
        let e = b.let_(Expr::binary(
            BinaryOp::Add,
            item.clone(),
            Expr::binary(
                BinaryOp::Mul,
                Expr::constant(Scalar::UInt32(q as u32)),
                items.clone(),
            ),
        ));
        valid.push(b.let_(lt(e.clone(), n.clone())));
        elements.push(e);
    }
    Lanes {
        words,
        elements,
        valid,
    }
}

/// The IR of a packed sampler (see [`Generator::launch_packed`]).
fn build_packed(
    op: &str,
    lanes: usize,
    blocks: u32,
    extra_types: Vec<DType>,
    raw_types: Vec<DType>,
    build: &LaneBody<'_>,
) -> Result<Kernel> {
    let mut b = Builder::new();
    let s = Stream::new(&mut b);
    let first_own = super::philox::STREAM_PARAMS + extra_types.len();
    let items_param = Expr::param(first_own, DType::UInt32);
    let n_param = Expr::param(first_own + 1, DType::UInt32);
    let item = b.let_(Expr::index().cast(DType::UInt32));
    let l = item_lanes(&mut b, &s, item, lanes, blocks, &items_param, &n_param);
    // Elements grow with the lane, so the item is whole when its last lane is valid: every
    // item but the last few. Its copy of the body has no per-lane checks (on CUDA those kept
    // 16 predicates alive through the lanes, spilled to registers and tested again at each
    // store); the other copy is the general one. The bits are the same either way.
    let whole = b.let_(lt(l.elements[lanes - 1].clone(), n_param.clone()));
    let all_valid = Lanes {
        words: l.words.clone(),
        elements: l.elements.clone(),
        valid: vec![bool_c(true); lanes],
    };
    let out_raw = raw_types.len() - 1;
    let failed = std::cell::RefCell::new(None);
    let body = |b: &mut Builder, l: &Lanes, checked: bool| match build(b, &s, l) {
        Ok(values) if values.len() == lanes => {
            for (q, v) in values.into_iter().enumerate() {
                let store = Stmt::StoreRaw {
                    raw: out_raw,
                    index: l.elements[q].clone().cast(DType::Int64),
                    value: v,
                };
                if checked {
                    b.if_(l.valid[q].clone(), |b| b.push_stmt(store));
                } else {
                    b.push_stmt(store);
                }
            }
        }
        Ok(_) => {
            *failed.borrow_mut() = Some(Error::invalid(op, "packed sampler: one value per lane"))
        }
        Err(e) => *failed.borrow_mut() = Some(e),
    };
    b.if_else(whole, |b| body(b, &all_valid, false), |b| body(b, &l, true));
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    let mut params = Stream::params();
    params.extend(extra_types);
    params.extend([DType::UInt32, DType::UInt32]);
    Ok(b.finish_raw(op, params, raw_types))
}
