//! Reductions: the merged shapes, the entry (inner, outer, inner-vector) and split scheme, and
//! `Backend::reduce`.

use super::cache::prepare_reduce_opts;
use super::grid::INDEX64_FROM;
use super::{check_dtypes, check_operand, DevBuf, GpuDriver};
use crate::backend::ReductionCall;
use crate::error::{Error, Result};
use crate::kernel::cpp::{
    partial_bytes, reduce_vector_width, ArgValue, OperandRef, ReduceSpec, Slot, BLOCK, OUTER_BLOCK,
};
use crate::layout::{merge_axes, shape_size, Layout};

/// The merged iteration spaces of one reduction: output axes (inputs and output merged
/// together) and reduced axes (inputs merged together), and the module specialisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceShapes {
    /// Output elements (> 0).
    pub out_size: usize,
    /// Reduced elements per output (may be 0).
    pub red_size: usize,
    /// Merged output shape.
    pub oshape: Vec<usize>,
    /// Merged output-axes layouts: one per input (carrying the input's offset), then one per
    /// output.
    pub olays: Vec<Layout>,
    /// Merged reduced shape (`[1]` when nothing is reduced).
    pub rshape: Vec<usize>,
    /// Merged reduced-axes layouts, one per input.
    pub rlays: Vec<Layout>,
    /// The module specialisation: merged ranks, and 64-bit indices when out x reduced elements
    /// or any input's or the output's buffer reach 2^31.
    pub spec: ReduceSpec,
}

impl ReduceShapes {
    /// Splits and merges the layouts of a checked reduction. `ins` are the inputs' buffers and
    /// layouts (shape `out_shape ++ reduce_shape`), `outs` the outputs' (shape `out_shape`).
    pub fn new(
        out_shape: &[usize],
        reduce_shape: &[usize],
        ins: &[(DevBuf, &Layout)],
        outs: &[(DevBuf, &Layout)],
    ) -> ReduceShapes {
        let out_size = shape_size(out_shape);
        let ond0 = out_shape.len();
        let split = |l: &Layout, a: usize, b: usize| Layout {
            shape: l.shape[a..b].to_vec(),
            strides: l.strides[a..b].to_vec(),
            offset: l.offset,
        };
        let mut out_layouts: Vec<Layout> = ins.iter().map(|(_, l)| split(l, 0, ond0)).collect();
        out_layouts.extend(outs.iter().map(|o| o.1.clone()));
        let (oshape, olays) = merge_axes(out_shape, &out_layouts);
        let red_size = shape_size(reduce_shape);
        let (rshape, rlays): (Vec<usize>, Vec<Layout>) = if reduce_shape.is_empty() {
            (
                vec![1],
                ins.iter()
                    .map(|_| Layout {
                        shape: vec![1],
                        strides: vec![0],
                        offset: 0,
                    })
                    .collect(),
            )
        } else {
            let rl: Vec<Layout> = ins
                .iter()
                .map(|(_, l)| split(l, ond0, l.shape.len()))
                .collect();
            merge_axes(reduce_shape, &rl)
        };
        let big = out_size.saturating_mul(red_size.max(1)) >= INDEX64_FROM
            || ins.iter().any(|(b, _)| b.len >= INDEX64_FROM)
            || outs.iter().any(|o| o.0.len >= INDEX64_FROM);
        let spec = ReduceSpec {
            out_ndim: oshape.len(),
            red_ndim: rshape.len(),
            index64: big,
        };
        ReduceShapes {
            out_size,
            red_size,
            oshape,
            olays,
            rshape,
            rlays,
            spec,
        }
    }

    /// Which entry runs first: `Inner` (a block per output, threads along the reduced index)
    /// for one output, an empty reduction, or a unit-stride reduced axis of at least 32; of
    /// those, `Vectorized` when the reduced axis is one merged unit-stride axis of at least
    /// 4 vectors and every input row start is aligned to `rv` elements (at most 16 bytes);
    /// else `Outer` (threads across outputs). `ins` as for [`ReduceShapes::new`]; `rv` is
    /// [`reduce_vector_width`] of the kernel.
    pub fn entry(&self, ins: &[(DevBuf, &Layout)], rv: usize) -> ReduceEntry {
        let (out_size, red_size) = (self.out_size, self.red_size);
        let inner_unit = self
            .rlays
            .first()
            .is_some_and(|l| l.strides.last().map(|s| s.abs()) == Some(1));
        let use_inner = out_size == 1 || red_size == 0 || (inner_unit && red_size >= 32);
        let use_vec = use_inner
            && self.rshape.len() == 1
            && red_size >= 4 * rv
            && ins.iter().enumerate().all(|(i, (b, _))| {
                let al = (rv * b.dtype.itemsize()).min(16);
                let isz = b.dtype.itemsize() as isize;
                self.rlays[i].strides[0] == 1
                    && b.at(self.olays[i].offset) % al as u64 == 0
                    && self.olays[i]
                        .shape
                        .iter()
                        .zip(&self.olays[i].strides)
                        .all(|(&n, &st)| n == 1 || (st * isz) % al as isize == 0)
            });
        if use_vec {
            ReduceEntry::Vectorized
        } else if use_inner {
            ReduceEntry::Inner
        } else {
            ReduceEntry::Outer
        }
    }
}

/// The first entry of a reduction launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceEntry {
    /// `<name>_inner`: one block per output (grid-stride), threads along the reduced index.
    Inner,
    /// `<name>_outer`: [`OUTER_BLOCK`] threads, x across consecutive outputs.
    Outer,
    /// `<name>_inner_vec`: as `Inner` with vector loads.
    Vectorized,
}

impl ReduceEntry {
    /// Its index in the emitter's entries (`[inner, outer, finish, inner_vec]`).
    pub fn index(self) -> usize {
        match self {
            ReduceEntry::Inner => 0,
            ReduceEntry::Outer => 1,
            ReduceEntry::Vectorized => 3,
        }
    }
}

/// Index of the finish entry in the emitter's reduction entries.
pub const REDUCE_FINISH: usize = 2;

/// Grids and blocks of one reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceLaunch {
    /// The first entry.
    pub entry: ReduceEntry,
    /// Partial accumulators per output (1: the first pass writes the outputs).
    pub splits: usize,
    /// Grid of the first pass (`[outputs or tiles, splits, 1]`).
    pub grid: [u32; 3],
    /// Block of the first pass.
    pub block: [u32; 3],
    /// Grid and block of the finish pass (when `splits > 1`).
    pub finish: Option<([u32; 3], [u32; 3])>,
}

impl ReduceLaunch {
    /// Plans the passes for `units` SMs/CUs. The reduced axis is split when there are fewer
    /// blocks of work than the device holds (`units x occupancy` for the vectorized entry,
    /// `units x 4` otherwise) and each split keeps a minimum of work; every split is
    /// non-empty. `rv` is the vector width, `occupancy` the vectorized entry's resident blocks
    /// per unit (ignored by the other entries).
    pub fn new(
        units: usize,
        out_size: usize,
        red_size: usize,
        entry: ReduceEntry,
        rv: usize,
        occupancy: usize,
    ) -> ReduceLaunch {
        let target = match entry {
            ReduceEntry::Vectorized => units * occupancy,
            _ => units * 4,
        };
        let (grid_x, per_split_min, work) = match entry {
            ReduceEntry::Vectorized => (out_size.min(units * 64), BLOCK * rv * 4, out_size),
            ReduceEntry::Inner => (out_size.min(units * 64), BLOCK * 8, out_size),
            ReduceEntry::Outer => {
                let tiles = out_size.div_ceil(OUTER_BLOCK.0);
                (tiles.min(units * 64), OUTER_BLOCK.1 * 32, tiles)
            }
        };
        let mut splits = 1usize;
        if work < target && red_size > per_split_min {
            splits = target
                .div_ceil(work)
                .min(red_size.div_ceil(per_split_min))
                .min(65535);
        }
        if splits > 1 {
            // Make every split non-empty.
            let chunk = red_size.div_ceil(splits);
            splits = red_size.div_ceil(chunk);
        }
        let threads = |per: usize| per.next_power_of_two().clamp(64, BLOCK) as u32;
        let block = match entry {
            ReduceEntry::Vectorized => {
                let per = red_size.div_ceil(splits).div_ceil(rv * 4).max(1);
                [threads(per), 1, 1]
            }
            ReduceEntry::Inner => [threads(red_size.div_ceil(splits).max(1)), 1, 1],
            ReduceEntry::Outer => [OUTER_BLOCK.0 as u32, OUTER_BLOCK.1 as u32, 1],
        };
        let finish = (splits > 1).then(|| {
            let g = out_size.min(units * 64) as u32;
            ([g, 1, 1], [threads(splits), 1, 1])
        });
        ReduceLaunch {
            entry,
            splits,
            grid: [grid_x as u32, splits as u32, 1],
            block,
            finish,
        }
    }
}

/// `Backend::reduce` of a C++ backend: checks, merges, plans, packs and queues one or two passes
/// (the second folds the partial accumulators of a split reduction).
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument`, compile, allocation and launch errors.
pub fn reduce<D: GpuDriver>(be: &D, call: &ReductionCall<'_>) -> Result<()> {
    reduce_opts(be, call, &[])
}

/// [`reduce`] with the kernel compiled with a user kernel's compiler `options`
/// (`Backend::reduce_opts`; the driver translates them, see [`GpuDriver::load_module_opts`]).
///
/// # Errors
/// As [`reduce`]; the driver's refusal of an option.
pub fn reduce_opts<D: GpuDriver>(
    be: &D,
    call: &ReductionCall<'_>,
    options: &[String],
) -> Result<()> {
    let k = call.kernel;
    check_dtypes(be, &k.name, &k.dtypes())?;
    let out_size = shape_size(&call.out_shape);
    if out_size == 0 {
        return Ok(());
    }
    if call.inputs.len() != k.inputs.len() || call.params.len() != k.params.len() {
        return Err(Error::invalid(
            &k.name,
            "operand counts do not match the kernel",
        ));
    }
    let full: Vec<usize> = call
        .out_shape
        .iter()
        .chain(&call.reduce_shape)
        .copied()
        .collect();
    let mut ins = Vec::with_capacity(call.inputs.len());
    for (o, d) in call.inputs.iter().zip(&k.inputs) {
        if o.layout.shape != full {
            return Err(Error::invalid(
                &k.name,
                format!("input shape {:?} != {full:?}", o.layout.shape),
            ));
        }
        ins.push((check_operand(be, &k.name, o, *d)?, &o.layout));
    }
    call.check_outputs()?;
    let mut obs = Vec::with_capacity(k.n_outputs());
    for m in 0..k.n_outputs() {
        let o = call.output_of(m);
        if o.layout.shape != call.out_shape {
            return Err(Error::invalid(&k.name, "output shape mismatch"));
        }
        obs.push((check_operand(be, &k.name, o, k.output_of(m))?, &o.layout));
    }
    let rs = ReduceShapes::new(&call.out_shape, &call.reduce_shape, &ins, &obs);
    be.activate()?;
    let p = prepare_reduce_opts(be, k, rs.spec, options)?;
    let rv = reduce_vector_width(k);
    let entry = rs.entry(&ins, rv);
    let first = p.func(be, entry.index())?;
    let occupancy = match entry {
        ReduceEntry::Vectorized => *p
            .occupancy
            .get_or_init(|| be.occupancy(first, BLOCK as u32).unwrap_or(4)),
        _ => 4,
    };
    let plan = ReduceLaunch::new(
        be.compute_units(),
        out_size,
        rs.red_size,
        entry,
        rv,
        occupancy,
    );
    let partial = if plan.splits > 1 {
        let n = out_size * plan.splits;
        Some(if k.is_tuple() {
            // One 16-byte aligned segment per accumulator (the emitter's layout).
            be.alloc(crate::dtype::DType::UInt8, partial_bytes(k, n))?
        } else {
            be.alloc(k.acc[0], n)?
        })
    } else {
        None
    };
    let partial_ptr = match &partial {
        Some(b) => be.dev_buf(b, &k.name)?.ptr,
        None => 0,
    };
    let nin = ins.len();
    let (oshape, olays, rshape, rlays) = (&rs.oshape, &rs.olays, &rs.rshape, &rs.rlays);
    let mut args = p.args.pack(|s| match s {
        Slot::OutSize => ArgValue::Int(out_size as i64),
        Slot::RedSize => ArgValue::Int(rs.red_size as i64),
        Slot::Splits => ArgValue::Int(plan.splits as i64),
        Slot::Shape(d) => ArgValue::Int(oshape[d] as i64),
        Slot::RedShape(d) => ArgValue::Int(rshape[d] as i64),
        // The input's offset is carried by its output-axes layout.
        Slot::Ptr(OperandRef::Input(i)) => ArgValue::Ptr(ins[i].0.at(olays[i].offset)),
        Slot::Ptr(OperandRef::Output(m)) => ArgValue::Ptr(obs[m].0.at(olays[nin + m].offset)),
        Slot::Ptr(OperandRef::Partial) => ArgValue::Ptr(partial_ptr),
        Slot::Stride(OperandRef::Input(i), d) => ArgValue::Int(olays[i].strides[d] as i64),
        Slot::Stride(OperandRef::Output(m), d) => ArgValue::Int(olays[nin + m].strides[d] as i64),
        Slot::RedStride(OperandRef::Input(i), d) => ArgValue::Int(rlays[i].strides[d] as i64),
        Slot::Param(i) => ArgValue::Scalar(call.params[i]),
        _ => ArgValue::Int(0),
    })?;
    let name = &k.name;
    // SAFETY: the argument bytes follow the module's struct layout (p.args); every pointer in it
    // addresses a checked operand or the partial buffer of `out_size * splits` accumulators.
    unsafe { be.launch(first, plan.grid, plan.block, &mut args, name) }?;
    if let Some((grid, block)) = plan.finish {
        let f = p.func(be, REDUCE_FINISH)?;
        // SAFETY: as above.
        unsafe { be.launch(f, grid, block, &mut args, name) }?;
    }
    drop(partial); // back to the pool; later work on the stream is ordered after it
    Ok(())
}
