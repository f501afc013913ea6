//! Elementwise launches: the plan (layout class, index width, merged axes), argument packing,
//! grid and block, and `Backend::elementwise`.

use super::cache::prepare_elementwise_opts;
use super::grid::{grid_for, is_c_contiguous, INDEX64_FROM};
use super::{check_dtypes, check_operand, DevBuf, GpuDriver};
use crate::backend::ElementwiseCall;
use crate::error::{Error, Result};
use crate::kernel::cpp::{
    tiled_fits, vector_width, ArgValue, ArgsLayout, ElementwiseClass, ElementwiseSpec, OperandRef,
    Slot, BLOCK, TILE_BLOCK,
};
use crate::kernel::ir::Kernel;
use crate::layout::{merge_axes, shape_size, Layout};
use crate::scalar::Scalar;

/// How one elementwise launch runs: its specialisation and merged iteration space. Operands are
/// the inputs, then the outputs (`ins`, `outs` of [`ElementwisePlan::new`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementwisePlan {
    /// The kernel specialisation.
    pub spec: ElementwiseSpec,
    /// Elements of the iteration space (> 0).
    pub size: usize,
    /// Every operand was C-contiguous: one axis of `size`, unit strides, no merging done.
    pub all_contiguous: bool,
    /// Merged shape (empty when `all_contiguous`).
    pub shape: Vec<usize>,
    /// Merged layouts, one per operand (empty when `all_contiguous`).
    pub layouts: Vec<Layout>,
}

impl ElementwisePlan {
    /// Plans `k` over `shape` (of `size > 0` elements). The layout class:
    /// - every operand 1-D (after merging) with stride 1: `Vectorized` when the kernel has a
    ///   vector width above 1 and every operand's first element is aligned to it (at most 16
    ///   bytes), else `Contiguous`;
    /// - two merged axes of at least 16, some operand faster along axis 0, and the kernel's tiles
    ///   fit shared memory: `Tiled`;
    /// - else `Strided` over the merged axes.
    ///
    /// 64-bit indices when the iteration space or any operand's (or raw operand's) buffer has
    /// 2^31 elements or more.
    pub fn new(
        k: &Kernel,
        shape: &[usize],
        ins: &[(DevBuf, &Layout)],
        outs: &[(DevBuf, &Layout)],
        raws: &[(DevBuf, usize)],
    ) -> ElementwisePlan {
        let size = shape_size(shape);
        let nops = ins.len() + outs.len();
        let buf_of = |i: usize| {
            if i < ins.len() {
                ins[i].0
            } else {
                outs[i - ins.len()].0
            }
        };
        let lay_of = |i: usize| {
            if i < ins.len() {
                ins[i].1
            } else {
                outs[i - ins.len()].1
            }
        };
        // Fast path: every operand C-contiguous (no axis merging, no allocation).
        let all_contiguous = (0..nops).all(|i| is_c_contiguous(shape, &lay_of(i).strides));
        let (mshape, mlayouts): (Vec<usize>, Vec<Layout>) = if all_contiguous {
            (vec![], vec![])
        } else {
            let layouts: Vec<Layout> = (0..nops).map(|i| lay_of(i).clone()).collect();
            merge_axes(shape, &layouts)
        };
        let nd = if all_contiguous { 1 } else { mshape.len() };
        let offset = |i: usize| {
            if all_contiguous {
                lay_of(i).offset
            } else {
                mlayouts[i].offset
            }
        };
        let contiguous = all_contiguous || (nd == 1 && mlayouts.iter().all(|l| l.strides[0] == 1));
        let big = size >= INDEX64_FROM
            || (0..nops).any(|i| buf_of(i).len >= INDEX64_FROM)
            || raws.iter().any(|(b, _)| b.len >= INDEX64_FROM);
        let class = if contiguous {
            let vec = vector_width(k);
            let aligned = vec > 1
                && (0..nops).all(|i| {
                    let b = buf_of(i);
                    let a = (vec * b.dtype.itemsize()).min(16) as u64;
                    b.at(offset(i)) % a == 0
                });
            if aligned {
                ElementwiseClass::Vectorized
            } else {
                ElementwiseClass::Contiguous
            }
        } else if nd == 2
            && mshape[0] >= 16
            && mshape[1] >= 16
            && mlayouts
                .iter()
                .any(|l| l.strides[0].abs() < l.strides[1].abs())
            && tiled_fits(k)
        {
            ElementwiseClass::Tiled
        } else {
            ElementwiseClass::Strided
        };
        ElementwisePlan {
            spec: ElementwiseSpec {
                ndim: nd,
                class,
                index64: big,
            },
            size,
            all_contiguous,
            shape: mshape,
            layouts: mlayouts,
        }
    }

    /// Packs the argument struct for the planned operands (the same `ins`, `outs`, `raws` as
    /// [`ElementwisePlan::new`]).
    ///
    /// # Errors
    /// As [`ArgsLayout::pack`].
    pub fn pack(
        &self,
        args: &ArgsLayout,
        ins: &[(DevBuf, &Layout)],
        outs: &[(DevBuf, &Layout)],
        raws: &[(DevBuf, usize)],
        params: &[Scalar],
    ) -> Result<Vec<u8>> {
        let nin = ins.len();
        let lay_of = |i: usize| {
            if i < nin {
                ins[i].1
            } else {
                outs[i - nin].1
            }
        };
        let offset = |i: usize| {
            if self.all_contiguous {
                lay_of(i).offset
            } else {
                self.layouts[i].offset
            }
        };
        let stride = |i: usize, d: usize| {
            if self.all_contiguous {
                1
            } else {
                self.layouts[i].strides[d]
            }
        };
        let extent = |d: usize| {
            if self.all_contiguous {
                self.size
            } else {
                self.shape[d]
            }
        };
        args.pack(|s| match s {
            Slot::Size => ArgValue::Int(self.size as i64),
            Slot::Shape(d) => ArgValue::Int(extent(d) as i64),
            Slot::Ptr(OperandRef::Input(i)) => ArgValue::Ptr(ins[i].0.at(offset(i))),
            Slot::Ptr(OperandRef::Output(i)) => ArgValue::Ptr(outs[i].0.at(offset(nin + i))),
            Slot::Ptr(OperandRef::Raw(i)) => ArgValue::Ptr(raws[i].0.at(raws[i].1)),
            Slot::Stride(OperandRef::Input(i), d) => ArgValue::Int(stride(i, d) as i64),
            Slot::Stride(OperandRef::Output(i), d) => ArgValue::Int(stride(nin + i, d) as i64),
            Slot::Param(i) => ArgValue::Scalar(params[i]),
            _ => ArgValue::Int(0),
        })
    }

    /// Grid and block: the tiled class strides over 32 x 32 tiles with [`TILE_BLOCK`] threads;
    /// the others over `size / vector` items with [`BLOCK`] threads (`vector` from the emitter).
    pub fn launch_dims(&self, vector: usize, units: usize) -> ([u32; 3], [u32; 3]) {
        self.launch_dims_block(vector, units, BLOCK)
    }

    /// [`ElementwisePlan::launch_dims`] with blocks of `block` threads (the tiled class keeps
    /// its [`TILE_BLOCK`]; plans for a user's block size are never tiled, see
    /// [`run_elementwise_block`]).
    pub fn launch_dims_block(
        &self,
        vector: usize,
        units: usize,
        block: usize,
    ) -> ([u32; 3], [u32; 3]) {
        if self.spec.class == ElementwiseClass::Tiled {
            let tiles = self.shape[0].div_ceil(32) * self.shape[1].div_ceil(32);
            let grid = grid_for(units, tiles, 1);
            return ([grid, 1, 1], [TILE_BLOCK.0 as u32, TILE_BLOCK.1 as u32, 1]);
        }
        let work = self.size.div_ceil(vector.max(1));
        let grid = if self.spec.class == ElementwiseClass::Strided {
            grid_for(units, work, block)
        } else {
            // Contiguous classes: one item per thread (the grid-stride loop runs once). On the
            // H200 a float32 copy of 2^28 elements took 0.549 ms with the grid capped at 32
            // blocks per SM and 0.511 ms uncapped (cudaMemcpy: 0.521 ms).
            work.div_ceil(block).clamp(1, i32::MAX as usize) as u32
        };
        ([grid, 1, 1], [block as u32, 1, 1])
    }
}

/// `Backend::elementwise` of a C++ backend: checks the call, then [`run_elementwise`].
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument` (operand counts, dtypes, shapes, ranges), compile and
/// launch errors.
pub fn elementwise<D: GpuDriver>(be: &D, call: &ElementwiseCall<'_>) -> Result<()> {
    elementwise_block(be, call, None)
}

/// Checks a user's block size: a power of two from 1 to 1024 (the CUDA/HIP limit, and the
/// largest `__launch_bounds__` the emitter writes).
///
/// # Errors
/// `InvalidArgument` naming `op` and the block size.
pub fn check_block_size(op: &str, block: u32) -> Result<()> {
    if block.is_power_of_two() && block <= 1024 {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("block_size must be a power of two from 1 to 1024, got {block}"),
        ))
    }
}

/// `Backend::elementwise_block` of a C++ backend (`block: None` is `Backend::elementwise`):
/// checks the call, then [`run_elementwise_block`].
///
/// # Errors
/// As [`elementwise`]; `InvalidArgument` for a block size that is not a power of two up to
/// 1024 or that the kernel's resources do not allow.
pub fn elementwise_block<D: GpuDriver>(
    be: &D,
    call: &ElementwiseCall<'_>,
    block: Option<u32>,
) -> Result<()> {
    elementwise_opts(be, call, block, &[])
}

/// `Backend::elementwise_opts` of a C++ backend: [`elementwise_block`] with the kernel compiled
/// with a user kernel's compiler `options` (see [`GpuDriver::load_module_opts`]).
///
/// # Errors
/// As [`elementwise_block`]; the driver's refusal of an option, compile errors.
pub fn elementwise_opts<D: GpuDriver>(
    be: &D,
    call: &ElementwiseCall<'_>,
    block: Option<u32>,
    options: &[String],
) -> Result<()> {
    let k = call.kernel;
    if let Some(b) = block {
        check_block_size(&k.name, b)?;
    }
    // Declared operand dtypes here; the body's own casts are checked when the kernel is first
    // prepared (prepare_elementwise), still before anything is queued.
    for d in [&k.inputs, &k.outputs, &k.raws, &k.params] {
        check_dtypes(be, &k.name, d)?;
    }
    if call.inputs.len() != k.inputs.len()
        || call.outputs.len() != k.outputs.len()
        || call.raws.len() != k.raws.len()
        || call.params.len() != k.params.len()
    {
        return Err(Error::invalid(
            &k.name,
            "operand counts do not match the kernel",
        ));
    }
    let mut ins = Vec::with_capacity(call.inputs.len());
    for (o, d) in call.inputs.iter().zip(&k.inputs) {
        ins.push((check_operand(be, &k.name, o, *d)?, &o.layout));
    }
    let mut outs = Vec::with_capacity(call.outputs.len());
    for (o, d) in call.outputs.iter().zip(&k.outputs) {
        outs.push((check_operand(be, &k.name, o, *d)?, &o.layout));
    }
    let mut raws = vec![];
    for (r, d) in call.raws.iter().zip(&k.raws) {
        let b = be.dev_buf(r.buffer, &k.name)?;
        if b.dtype != *d || r.offset + r.len > b.len {
            return Err(Error::invalid(
                &k.name,
                "raw operand dtype or range mismatch",
            ));
        }
        raws.push((b, r.offset));
    }
    for l in ins.iter().chain(&outs).map(|x| x.1) {
        if l.shape != call.shape {
            return Err(Error::invalid(
                &k.name,
                format!(
                    "operand shape {:?} != iteration shape {:?}",
                    l.shape, call.shape
                ),
            ));
        }
    }
    be.activate()?;
    run_elementwise_opts(
        be,
        k,
        &call.shape,
        (&ins, &outs, &raws),
        &call.params,
        block,
        options,
    )
}

/// Queues an elementwise launch on already-checked operands (a size-0 shape is a no-op).
///
/// # Errors
/// Compile and launch errors; `InvalidArgument` if an index does not fit the kernel's width.
pub fn run_elementwise<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    shape: &[usize],
    ins: &[(DevBuf, &Layout)],
    outs: &[(DevBuf, &Layout)],
    raws: &[(DevBuf, usize)],
    params: &[Scalar],
) -> Result<()> {
    run_elementwise_block(be, k, shape, ins, outs, raws, params, None)
}

/// [`run_elementwise`] with blocks of `block` threads (`None`: the backend's own [`BLOCK`]).
/// A plan for a user's block size is never of the tiled class (whose block shape is fixed);
/// above [`BLOCK`] threads the kernel is compiled with `__launch_bounds__(block)`, and a block
/// larger than the loaded kernel's resources allow (as the driver reports them) is refused
/// before the launch.
///
/// # Errors
/// As [`run_elementwise`]; `InvalidArgument` for a block the kernel cannot run with.
#[allow(clippy::too_many_arguments)]
pub fn run_elementwise_block<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    shape: &[usize],
    ins: &[(DevBuf, &Layout)],
    outs: &[(DevBuf, &Layout)],
    raws: &[(DevBuf, usize)],
    params: &[Scalar],
    block: Option<u32>,
) -> Result<()> {
    run_elementwise_opts(be, k, shape, (ins, outs, raws), params, block, &[])
}

/// Operands of a launch: inputs, outputs (each with its layout) and raw arrays (with offsets).
type Operands<'a, 'b> = (
    &'a [(DevBuf, &'b Layout)],
    &'a [(DevBuf, &'b Layout)],
    &'a [(DevBuf, usize)],
);

/// [`run_elementwise_block`] with the kernel compiled with a user kernel's compiler `options`.
///
/// # Errors
/// As [`run_elementwise_block`]; the driver's refusal of an option.
pub fn run_elementwise_opts<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    shape: &[usize],
    operands: Operands<'_, '_>,
    params: &[Scalar],
    block: Option<u32>,
    options: &[String],
) -> Result<()> {
    let (ins, outs, raws) = operands;
    if ins.len() != k.inputs.len()
        || outs.len() != k.outputs.len()
        || raws.len() != k.raws.len()
        || params.len() != k.params.len()
    {
        return Err(Error::invalid(
            &k.name,
            format!(
                "operand counts (inputs {}, outputs {}, raws {}, params {}) do not match the \
                 kernel ({}, {}, {}, {})",
                ins.len(),
                outs.len(),
                raws.len(),
                params.len(),
                k.inputs.len(),
                k.outputs.len(),
                k.raws.len(),
                k.params.len()
            ),
        ));
    }
    if shape_size(shape) == 0 {
        return Ok(());
    }
    let mut plan = ElementwisePlan::new(k, shape, ins, outs, raws);
    if block.is_some() && plan.spec.class == ElementwiseClass::Tiled {
        plan.spec.class = ElementwiseClass::Strided;
    }
    let threads = block.map_or(BLOCK, |b| b as usize);
    let bound = threads.max(BLOCK) as u32;
    let p = prepare_elementwise_opts(be, k, plan.spec, bound, options)?;
    let mut args = plan.pack(&p.args, ins, outs, raws, params)?;
    let (grid, block) = plan.launch_dims_block(p.vector, be.compute_units(), threads);
    let f = p.func(be, 0)?;
    if let Some(max) = be.max_block_threads(f) {
        if block[0] > max {
            return Err(Error::invalid(
                &k.name,
                format!(
                    "block_size {} is more than the {max} threads per block this kernel can run \
                     with on {} (its registers and shared memory)",
                    block[0],
                    be.info().label()
                ),
            ));
        }
    }
    // SAFETY: the argument bytes follow the kernel's struct layout (p.args); every pointer in it
    // addresses a checked operand of this backend.
    unsafe { be.launch(f, grid, block, &mut args, &k.name) }
}
