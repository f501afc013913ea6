//! Elementwise and reduction launches of the C++ backends (CUDA, HIP), written once: operand
//! checks, axis merging, the layout class and index width of a launch, the in-memory cache of
//! prepared kernels keyed by (kernel, specialisation), argument packing, grid sizing and the
//! reduction's split/finish scheme. A backend implements [`GpuDriver`] (compile and load a
//! module, launch a function on its stream, say how many SMs/CUs it has, ...) and forwards
//! `Backend::elementwise` / `Backend::reduce` to [`elementwise`] / [`reduce`].
//!
//! Everything that decides *what* to launch is a pure function here ([`ElementwisePlan`],
//! [`ReduceShapes`], [`ReduceLaunch`], [`grid_for`]) and is unit-tested without a GPU.
//!
//! What differs per backend is only what [`GpuDriver`] asks for: the C++ [`Flavor`], the number
//! of SMs/CUs (grid sizes scale with it), the warp/wavefront size (for `hip-kernels/`), the
//! occupancy query (CUDA answers; HIP uses the fallback of 4 blocks per CU), the disk cache and
//! compiler behind [`GpuDriver::load_module`], and the launch call itself.

use crate::backend::{dtype_unsupported, Backend, Buffer, ElementwiseCall, Operand, ReductionCall};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::cpp::{
    emit_elementwise, emit_reduce, reduce_vector_width, tiled_fits, vector_width, ArgValue,
    ArgsLayout, ElementwiseClass, ElementwiseSpec, Flavor, OperandRef, ReduceSpec, Slot, BLOCK,
    OUTER_BLOCK, TILE_BLOCK,
};
use crate::kernel::ir::{Kernel, ReduceKernel};
use crate::layout::{merge_axes, shape_size, Layout};
use crate::scalar::Scalar;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// One of a backend's buffers as the launch code sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevBuf {
    /// Device address of element 0.
    pub ptr: u64,
    /// Elements.
    pub len: usize,
    /// Element type.
    pub dtype: DType,
}

impl DevBuf {
    /// Device address of element `offset`.
    pub fn at(&self, offset: usize) -> u64 {
        self.ptr + (offset * self.dtype.itemsize()) as u64
    }
}

/// The driver calls of a C++ GPU backend (CUDA, HIP); everything else about elementwise,
/// reduction, scan and sort launches is shared (this module and `hip-kernels/sources.rs`).
pub trait GpuDriver: Backend + Sized {
    /// A loaded kernel function.
    type Func: Copy + Send + Sync + 'static;

    /// The C++ dialect the backend compiles.
    fn flavor(&self) -> Flavor;

    /// Streaming multiprocessors (CUDA) or compute units (HIP): grids scale with it.
    fn compute_units(&self) -> usize;

    /// Threads per warp (32) or wavefront (64 on CDNA/GCN, 32 on RDNA).
    fn warp_size(&self) -> u32;

    /// One of this device's buffers, or the backend's error for a foreign one.
    ///
    /// # Errors
    /// The backend's "not my buffer" error.
    fn dev_buf(&self, b: &Buffer, op: &str) -> Result<DevBuf>;

    /// Makes the device current on the calling thread (before launches and allocations).
    ///
    /// # Errors
    /// The driver's error.
    fn activate(&self) -> Result<()>;

    /// Compiles `source` (or finds it in the backend's caches, memory then disk), loads it and
    /// resolves `entries`, in order. The module stays loaded for the backend's life.
    ///
    /// # Errors
    /// `Error::Compile` with the compiler's log and the source; the driver's load errors.
    fn load_module(&self, name: &str, source: &str, entries: &[String]) -> Result<Vec<Self::Func>>;

    /// Queues `f` on the backend's stream with one by-value struct argument whose bytes are
    /// `args`. `what` names the kernel in errors.
    ///
    /// # Safety
    /// `f` takes exactly one struct laid out as `args`, and every device address in `args` is
    /// valid for everything the kernel does with it (the callers here check operands against
    /// their buffers).
    ///
    /// # Errors
    /// The driver's launch error.
    unsafe fn launch(
        &self,
        f: Self::Func,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [u8],
        what: &str,
    ) -> Result<()>;

    /// Resident blocks of `threads` threads per SM/CU for `f`, if the driver can tell (at
    /// least 1).
    fn occupancy(&self, f: Self::Func, threads: u32) -> Option<usize>;

    /// The backend's caches of prepared kernels.
    fn kernel_caches(&self) -> &KernelCaches<Self::Func>;
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `DTypeNotSupported` for the first of `dts` the backend refuses, naming `op`.
///
/// # Errors
/// As described.
pub fn check_dtypes<B: Backend + ?Sized>(be: &B, op: &str, dts: &[DType]) -> Result<()> {
    for d in dts {
        if let Err(reason) = be.supports_dtype(*d) {
            return Err(dtype_unsupported(op, *d, be.info(), reason));
        }
    }
    Ok(())
}

/// An emitter error names the emitter as the device; say which device it is.
fn relabel<B: Backend + ?Sized>(be: &B, e: Error) -> Error {
    match e {
        Error::DTypeNotSupported {
            op, dtype, reason, ..
        } => Error::DTypeNotSupported {
            op,
            dtype,
            device: be.info().label(),
            reason,
        },
        e => e,
    }
}

fn backend_err<B: Backend + ?Sized>(be: &B, msg: impl Into<String>) -> Error {
    Error::Backend {
        backend: be.info().label(),
        msg: msg.into(),
    }
}

/// Checks an operand: one of the backend's buffers, of `dtype`, with every addressed element
/// inside it.
///
/// # Errors
/// The backend's foreign-buffer error, or `InvalidArgument` naming `op`.
pub fn check_operand<D: GpuDriver>(
    be: &D,
    op: &str,
    o: &Operand<'_>,
    dtype: DType,
) -> Result<DevBuf> {
    let b = be.dev_buf(o.buffer, op)?;
    if b.dtype != dtype {
        return Err(Error::invalid(
            op,
            format!(
                "operand buffer is {} but the kernel expects {dtype}",
                b.dtype
            ),
        ));
    }
    let (lo, hi) = o.layout.extent();
    if o.layout.size() > 0 && (lo < 0 || hi as usize > b.len) {
        return Err(Error::invalid(
            op,
            format!(
                "layout {:?} addresses elements outside a buffer of {}",
                o.layout, b.len
            ),
        ));
    }
    Ok(b)
}

// ---------------------------------------------------------------------------------------------
// Prepared kernels and their in-memory cache.

/// An emitted, compiled kernel ready to launch.
pub struct Prepared<F> {
    /// The emitter's entries, resolved in order (elementwise: 1; reduction:
    /// `[inner, outer, finish, inner_vec]`).
    pub funcs: Vec<F>,
    /// The argument struct every entry takes.
    pub args: ArgsLayout,
    /// Elements per thread iteration of the vectorized class (1 otherwise).
    pub vector: usize,
    /// Resident blocks per SM/CU of the `inner_vec` reduction entry (queried once).
    occupancy: OnceLock<usize>,
}

impl<F: Copy> Prepared<F> {
    fn func<B: Backend + ?Sized>(&self, be: &B, i: usize) -> Result<F> {
        self.funcs
            .get(i)
            .copied()
            .ok_or_else(|| backend_err(be, "missing entry"))
    }
}

/// A fast, non-cryptographic hasher (FxHash's multiply-rotate) for the launch caches.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64)
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64)
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64)
    }
}

/// The part of a kernel hashed for the launch caches: its name and signature, not its body
/// (hashing a whole IR tree on every launch costs more than comparing it once on a hit).
trait QuickKey {
    fn quick_hash(&self, h: &mut FxHasher);
}

impl QuickKey for Kernel {
    fn quick_hash(&self, h: &mut FxHasher) {
        self.name.hash(h);
        self.inputs.hash(h);
        self.outputs.hash(h);
        self.raws.hash(h);
        self.params.hash(h);
        self.locals.hash(h);
        self.body.len().hash(h);
    }
}

impl QuickKey for ReduceKernel {
    fn quick_hash(&self, h: &mut FxHasher) {
        self.name.hash(h);
        self.inputs.hash(h);
        self.params.hash(h);
        self.acc.hash(h);
        self.output.hash(h);
    }
}

/// Prepared kernels keyed by (kernel IR, specialisation), looked up by a hash of the borrowed
/// key's signature so that a hit neither clones nor allocates (the full IR is compared).
/// One cache entry: the kernel, its specialisation and what was prepared for them.
type Entry<K, S, F> = (K, S, Arc<Prepared<F>>);

struct LaunchCache<K, S, F>(HashMap<u64, Vec<Entry<K, S, F>>>);

impl<K, S, F> Default for LaunchCache<K, S, F> {
    fn default() -> Self {
        LaunchCache(HashMap::new())
    }
}

impl<K: QuickKey + Eq + Clone, S: Hash + Eq + Copy, F> LaunchCache<K, S, F> {
    fn hash(k: &K, s: &S) -> u64 {
        let mut h = FxHasher::default();
        k.quick_hash(&mut h);
        s.hash(&mut h);
        h.finish()
    }
    fn get(&self, h: u64, k: &K, s: &S) -> Option<Arc<Prepared<F>>> {
        self.0
            .get(&h)?
            .iter()
            .find(|e| e.1 == *s && e.0 == *k)
            .map(|e| e.2.clone())
    }
    fn insert(&mut self, h: u64, k: &K, s: S, p: Arc<Prepared<F>>) {
        let v = self.0.entry(h).or_default();
        if !v.iter().any(|e| e.1 == s && e.0 == *k) {
            v.push((k.clone(), s, p));
        }
    }
}

/// A module loaded once per backend by name (the `hip-kernels/` files): its entries and their
/// functions, in the same order.
pub struct NamedModule<F> {
    /// Entry names.
    pub entries: Vec<String>,
    /// Their functions.
    pub funcs: Vec<F>,
}

impl<F: Copy> NamedModule<F> {
    /// The function of `entry`.
    pub fn func(&self, entry: &str) -> Option<F> {
        self.entries
            .iter()
            .position(|e| e == entry)
            .map(|i| self.funcs[i])
    }
}

/// A backend's in-memory kernel caches (one per device).
pub struct KernelCaches<F> {
    elementwise: Mutex<LaunchCache<Kernel, ElementwiseSpec, F>>,
    reduce: Mutex<LaunchCache<ReduceKernel, ReduceSpec, F>>,
    named: Mutex<HashMap<&'static str, Arc<NamedModule<F>>>>,
}

impl<F> Default for KernelCaches<F> {
    fn default() -> Self {
        KernelCaches {
            elementwise: Default::default(),
            reduce: Default::default(),
            named: Default::default(),
        }
    }
}

/// The elementwise kernel `k` specialised as `spec`, emitted, compiled and loaded on first use.
///
/// # Errors
/// `DTypeNotSupported` (the full check, body casts included, runs once per kernel), emitter
/// and compile errors.
pub fn prepare_elementwise<D: GpuDriver>(
    be: &D,
    k: &Kernel,
    spec: ElementwiseSpec,
) -> Result<Arc<Prepared<D::Func>>> {
    let caches = be.kernel_caches();
    let h = LaunchCache::<Kernel, ElementwiseSpec, D::Func>::hash(k, &spec);
    if let Some(p) = lock(&caches.elementwise).get(h, k, &spec) {
        return Ok(p);
    }
    check_dtypes(be, &k.name, &k.dtypes())?;
    let flavor = be.flavor();
    let e = super::on_big_stack(|| emit_elementwise(k, &spec, flavor))
        .ok_or_else(|| Error::invalid(&k.name, "the C++ emitter panicked"))?
        .map_err(|e| relabel(be, e))?;
    let funcs = be.load_module(&k.name, &e.source, &e.entries)?;
    let p = Arc::new(Prepared {
        funcs,
        args: e.args,
        vector: e.vector,
        occupancy: OnceLock::new(),
    });
    lock(&caches.elementwise).insert(h, k, spec, p.clone());
    Ok(p)
}

/// The reduction `k` specialised as `spec`, emitted, compiled and loaded on first use.
///
/// # Errors
/// Emitter and compile errors.
pub fn prepare_reduce<D: GpuDriver>(
    be: &D,
    k: &ReduceKernel,
    spec: ReduceSpec,
) -> Result<Arc<Prepared<D::Func>>> {
    let caches = be.kernel_caches();
    let h = LaunchCache::<ReduceKernel, ReduceSpec, D::Func>::hash(k, &spec);
    if let Some(p) = lock(&caches.reduce).get(h, k, &spec) {
        return Ok(p);
    }
    let e = emit_reduce(k, &spec, be.flavor()).map_err(|e| relabel(be, e))?;
    let funcs = be.load_module(&k.name, &e.source, &e.entries)?;
    let p = Arc::new(Prepared {
        funcs,
        args: e.args,
        vector: 1,
        occupancy: OnceLock::new(),
    });
    lock(&caches.reduce).insert(h, k, spec, p.clone());
    Ok(p)
}

/// The module called `name`, loaded on first use from `make()`'s (source, entries).
///
/// # Errors
/// As [`GpuDriver::load_module`].
pub fn named_module<D: GpuDriver>(
    be: &D,
    name: &'static str,
    make: impl FnOnce() -> (String, Vec<String>),
) -> Result<Arc<NamedModule<D::Func>>> {
    let caches = be.kernel_caches();
    if let Some(m) = lock(&caches.named).get(name) {
        return Ok(m.clone());
    }
    let (source, entries) = make();
    let funcs = be.load_module(name, &source, &entries)?;
    let m = Arc::new(NamedModule { entries, funcs });
    lock(&caches.named).insert(name, m.clone());
    Ok(m)
}

// ---------------------------------------------------------------------------------------------
// Grid sizing.

/// Blocks for `work` items at `per_block` items per block: at least 1, at most 32 per SM/CU
/// (every kernel loops grid-stride) and 2^31 - 1.
pub fn grid_for(units: usize, work: usize, per_block: usize) -> u32 {
    let blocks = work.div_ceil(per_block).max(1);
    blocks.min(units * 32).min(i32::MAX as usize) as u32
}

/// Whether `strides` are the C-contiguous strides of `shape` (extent-1 axes may have any).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&n, &st) in shape.iter().zip(strides).rev() {
        if n != 1 && st != expect {
            return false;
        }
        expect = expect.wrapping_mul(n as isize);
    }
    shape.len() == strides.len()
}

/// 64-bit index arithmetic is needed from this many elements (of the iteration space or of any
/// operand's buffer) on.
pub const INDEX64_FROM: usize = 1 << 31;

// ---------------------------------------------------------------------------------------------
// Elementwise.

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
        if self.spec.class == ElementwiseClass::Tiled {
            let tiles = self.shape[0].div_ceil(32) * self.shape[1].div_ceil(32);
            let grid = grid_for(units, tiles, 1);
            return ([grid, 1, 1], [TILE_BLOCK.0 as u32, TILE_BLOCK.1 as u32, 1]);
        }
        let work = self.size.div_ceil(vector.max(1));
        let grid = if self.spec.class == ElementwiseClass::Strided {
            grid_for(units, work, BLOCK)
        } else {
            // Contiguous classes: one item per thread (the grid-stride loop runs once). On the
            // H200 a float32 copy of 2^28 elements took 0.549 ms with the grid capped at 32
            // blocks per SM and 0.511 ms uncapped (cudaMemcpy: 0.521 ms).
            work.div_ceil(BLOCK).clamp(1, i32::MAX as usize) as u32
        };
        ([grid, 1, 1], [BLOCK as u32, 1, 1])
    }
}

/// `Backend::elementwise` of a C++ backend: checks the call, then [`run_elementwise`].
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument` (operand counts, dtypes, shapes, ranges), compile and
/// launch errors.
pub fn elementwise<D: GpuDriver>(be: &D, call: &ElementwiseCall<'_>) -> Result<()> {
    let k = call.kernel;
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
    run_elementwise(be, k, &call.shape, &ins, &outs, &raws, &call.params)
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
    let plan = ElementwisePlan::new(k, shape, ins, outs, raws);
    let p = prepare_elementwise(be, k, plan.spec)?;
    let mut args = plan.pack(&p.args, ins, outs, raws, params)?;
    let (grid, block) = plan.launch_dims(p.vector, be.compute_units());
    let f = p.func(be, 0)?;
    // SAFETY: the argument bytes follow the kernel's struct layout (p.args); every pointer in it
    // addresses a checked operand of this backend.
    unsafe { be.launch(f, grid, block, &mut args, &k.name) }
}

// ---------------------------------------------------------------------------------------------
// Reductions.

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
    /// Merged output-axes layouts: one per input (carrying the input's offset), then the
    /// output's.
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
    /// layouts (shape `out_shape ++ reduce_shape`), `out` the output's (shape `out_shape`).
    pub fn new(
        out_shape: &[usize],
        reduce_shape: &[usize],
        ins: &[(DevBuf, &Layout)],
        out: (DevBuf, &Layout),
    ) -> ReduceShapes {
        let out_size = shape_size(out_shape);
        let ond0 = out_shape.len();
        let split = |l: &Layout, a: usize, b: usize| Layout {
            shape: l.shape[a..b].to_vec(),
            strides: l.strides[a..b].to_vec(),
            offset: l.offset,
        };
        let mut out_layouts: Vec<Layout> = ins.iter().map(|(_, l)| split(l, 0, ond0)).collect();
        out_layouts.push(out.1.clone());
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
            || out.0.len >= INDEX64_FROM;
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
    let ob = check_operand(be, &k.name, &call.output, k.output)?;
    if call.output.layout.shape != call.out_shape {
        return Err(Error::invalid(&k.name, "output shape mismatch"));
    }
    let rs = ReduceShapes::new(
        &call.out_shape,
        &call.reduce_shape,
        &ins,
        (ob, &call.output.layout),
    );
    be.activate()?;
    let p = prepare_reduce(be, k, rs.spec)?;
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
        Some(be.alloc(k.acc[0], out_size * plan.splits)?)
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
        Slot::Ptr(OperandRef::Output(_)) => ArgValue::Ptr(ob.at(olays[nin].offset)),
        Slot::Ptr(OperandRef::Partial) => ArgValue::Ptr(partial_ptr),
        Slot::Stride(OperandRef::Input(i), d) => ArgValue::Int(olays[i].strides[d] as i64),
        Slot::Stride(OperandRef::Output(_), d) => ArgValue::Int(olays[nin].strides[d] as i64),
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

// ---------------------------------------------------------------------------------------------
// Raw (user) kernels.

/// One raw-kernel argument as the launch's `kernelParams` entry points to: a device address, or
/// a scalar at its C size (bool 1 byte, float16/bfloat16 2, complex as two floats), little
/// endian, in a zeroed 16-byte slot.
pub fn raw_scalar_slot(s: &Scalar) -> [u64; 2] {
    let mut bytes = [0u8; 16];
    s.write_le_bytes(&mut bytes[..s.dtype().itemsize()]);
    let (lo, hi) = bytes.split_at(8);
    [
        u64::from_le_bytes(lo.try_into().expect("8 bytes")),
        u64::from_le_bytes(hi.try_into().expect("8 bytes")),
    ]
}

/// The argument slots of a raw launch (`op` names it in errors): buffers become the address of
/// their element `offset` (at most their length), scalars [`raw_scalar_slot`].
///
/// # Errors
/// The backend's foreign-buffer error; `InvalidArgument` for an offset past a buffer's end.
pub fn raw_arg_slots<D: GpuDriver>(
    be: &D,
    op: &str,
    args: &[crate::backend::RawArg<'_>],
) -> Result<Vec<[u64; 2]>> {
    use crate::backend::RawArg;
    let mut slots = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match a {
            RawArg::Buffer { buffer, offset } => {
                let b = be.dev_buf(buffer, op)?;
                if *offset > b.len {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "argument {i}: offset {offset} is past the end of a buffer of {} \
                             elements",
                            b.len
                        ),
                    ));
                }
                slots.push([b.at(*offset), 0]);
            }
            RawArg::Scalar(s) => slots.push(raw_scalar_slot(s)),
        }
    }
    Ok(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ir::{BinaryOp, Expr};

    fn add(d: DType) -> Kernel {
        Kernel::map(
            "add",
            vec![d, d],
            vec![],
            Expr::binary(BinaryOp::Add, Expr::input(0, d), Expr::input(1, d)),
        )
    }

    fn buf(ptr: u64, len: usize, dtype: DType) -> DevBuf {
        DevBuf { ptr, len, dtype }
    }

    fn plan(k: &Kernel, shape: &[usize], ops: &[(DevBuf, Layout)]) -> ElementwisePlan {
        let v: Vec<(DevBuf, &Layout)> = ops.iter().map(|(b, l)| (*b, l)).collect();
        let nin = k.inputs.len();
        ElementwisePlan::new(k, shape, &v[..nin], &v[nin..], &[])
    }

    #[test]
    fn contiguous_classes_and_alignment() {
        let k = add(DType::Float32);
        assert_eq!(vector_width(&k), 4);
        let l = Layout::contiguous(&[1000]);
        let b = buf(1 << 20, 1000, DType::Float32);
        let p = plan(
            &k,
            &[1000],
            &[(b, l.clone()), (b, l.clone()), (b, l.clone())],
        );
        assert!(p.all_contiguous);
        assert_eq!(
            p.spec,
            ElementwiseSpec {
                ndim: 1,
                class: ElementwiseClass::Vectorized,
                index64: false
            }
        );
        // A view starting one element in: not 16-byte aligned.
        let mut off = Layout::contiguous(&[999]);
        off.offset = 1;
        let l999 = Layout::contiguous(&[999]);
        let p = plan(
            &k,
            &[999],
            &[(b, off), (b, l999.clone()), (b, l999.clone())],
        );
        assert_eq!(p.spec.class, ElementwiseClass::Contiguous);
        // Offset 4 f32 = 16 bytes: aligned again.
        let mut off4 = Layout::contiguous(&[996]);
        off4.offset = 4;
        let l996 = Layout::contiguous(&[996]);
        let p = plan(&k, &[996], &[(b, off4), (b, l996.clone()), (b, l996)]);
        assert_eq!(p.spec.class, ElementwiseClass::Vectorized);
        // float64: 2 per vector, 16-byte alignment.
        let k64 = add(DType::Float64);
        assert_eq!(vector_width(&k64), 2);
        let b64 = buf(8, 10, DType::Float64);
        let l10 = Layout::contiguous(&[10]);
        let p = plan(
            &k64,
            &[10],
            &[(b64, l10.clone()), (b64, l10.clone()), (b64, l10)],
        );
        assert_eq!(p.spec.class, ElementwiseClass::Contiguous);
        // A 2-D C-contiguous array is one contiguous launch; a sliced row end merges to 1-D too.
        let l2 = Layout::contiguous(&[8, 16]);
        let b2 = buf(0, 128, DType::Float32);
        let p = plan(
            &k,
            &[8, 16],
            &[(b2, l2.clone()), (b2, l2.clone()), (b2, l2)],
        );
        assert_eq!(
            (p.spec.ndim, p.spec.class),
            (1, ElementwiseClass::Vectorized)
        );
        // Broadcast (stride 0) inputs are strided.
        let bc = Layout {
            shape: vec![8, 16],
            strides: vec![0, 1],
            offset: 0,
        };
        let c = Layout::contiguous(&[8, 16]);
        let p = plan(&k, &[8, 16], &[(b2, bc), (b2, c.clone()), (b2, c)]);
        assert_eq!((p.spec.ndim, p.spec.class), (2, ElementwiseClass::Strided));
    }

    #[test]
    fn tiled_and_strided_classes() {
        let k = add(DType::Float32);
        let b = buf(0, 64 * 64, DType::Float32);
        let c = Layout::contiguous(&[64, 32]);
        let t = Layout::contiguous(&[32, 64]).transposed();
        let p = plan(
            &k,
            &[64, 32],
            &[(b, t.clone()), (b, c.clone()), (b, c.clone())],
        );
        assert_eq!(
            p.spec,
            ElementwiseSpec {
                ndim: 2,
                class: ElementwiseClass::Tiled,
                index64: false
            }
        );
        let (grid, block) = p.launch_dims(1, 132);
        assert_eq!(grid, [2, 1, 1]); // 64 / 32 x 32 / 32 tiles
        assert_eq!(block, [32, 8, 1]);
        // Too narrow for tiles: strided.
        let c8 = Layout::contiguous(&[64, 8]);
        let t8 = Layout::contiguous(&[8, 64]).transposed();
        let p = plan(&k, &[64, 8], &[(b, t8), (b, c8.clone()), (b, c8)]);
        assert_eq!(p.spec.class, ElementwiseClass::Strided);
        // Three axes: strided with 3 dims.
        let t3 = Layout::contiguous(&[4, 4, 4]).permute(&[2, 1, 0]).unwrap();
        let c3 = Layout::contiguous(&[4, 4, 4]);
        let p = plan(&k, &[4, 4, 4], &[(b, t3), (b, c3.clone()), (b, c3)]);
        assert_eq!((p.spec.ndim, p.spec.class), (3, ElementwiseClass::Strided));
        // Reversed 1-D view: merged to one axis of stride -1, strided class.
        let r = Layout {
            shape: vec![100],
            strides: vec![-1],
            offset: 99,
        };
        let c1 = Layout::contiguous(&[100]);
        let p = plan(&k, &[100], &[(b, r), (b, c1.clone()), (b, c1)]);
        assert_eq!((p.spec.ndim, p.spec.class), (1, ElementwiseClass::Strided));
    }

    #[test]
    fn index_width() {
        let k = add(DType::Float32);
        let l = Layout::contiguous(&[16]);
        let small = buf(0, 16, DType::Float32);
        let p = plan(
            &k,
            &[16],
            &[(small, l.clone()), (small, l.clone()), (small, l.clone())],
        );
        assert!(!p.spec.index64);
        // A small view of a buffer of 2^31 elements: 64-bit (offsets may pass 2^31).
        let huge = buf(0, 1 << 31, DType::Float32);
        let p = plan(
            &k,
            &[16],
            &[(huge, l.clone()), (small, l.clone()), (small, l.clone())],
        );
        assert!(p.spec.index64);
        let just = buf(0, (1 << 31) - 1, DType::Float32);
        let p = plan(
            &k,
            &[16],
            &[(just, l.clone()), (small, l.clone()), (small, l.clone())],
        );
        assert!(!p.spec.index64);
        // A raw operand's buffer counts too.
        let v = [(small, &l), (small, &l)];
        let p = ElementwisePlan::new(&k, &[16], &v, &[(small, &l)], &[(huge, 0)]);
        assert!(p.spec.index64);
        // So does the iteration space (a broadcast input of one element).
        let n = 1usize << 31;
        let bc = Layout {
            shape: vec![n],
            strides: vec![0],
            offset: 0,
        };
        let out = Layout::contiguous(&[n]);
        let big_out = buf(0, n, DType::Float32);
        let one = buf(0, 1, DType::Float32);
        let p = plan(&k, &[n], &[(one, bc.clone()), (one, bc), (big_out, out)]);
        assert!(p.spec.index64);
        // Packing a 32-bit kernel with a 64-bit value is refused by ArgsLayout::pack.
    }

    #[test]
    fn grid_sizing() {
        assert_eq!(grid_for(132, 0, 256), 1);
        assert_eq!(grid_for(132, 1, 256), 1);
        assert_eq!(grid_for(132, 257, 256), 2);
        assert_eq!(grid_for(132, 1 << 30, 256), 132 * 32);
        assert_eq!(grid_for(1 << 30, usize::MAX / 2, 1), i32::MAX as u32);
        let k = add(DType::Float32);
        let l = Layout::contiguous(&[1 << 20]);
        let b = buf(0, 1 << 20, DType::Float32);
        let p = plan(&k, &[1 << 20], &[(b, l.clone()), (b, l.clone()), (b, l)]);
        // 2^20 / 4 per thread / 256 threads = 1024 blocks; contiguous classes are not capped
        // at 32 blocks per SM (one item per thread).
        assert_eq!(p.launch_dims(4, 132), ([1024, 1, 1], [256, 1, 1]));
        assert_eq!(p.launch_dims(4, 8), ([1024, 1, 1], [256, 1, 1]));
    }

    #[test]
    fn packing_follows_the_plan() {
        use crate::kernel::cpp::ArgField;
        let k = add(DType::Float32);
        let b = buf(0x1000, 100, DType::Float32);
        let mut off = Layout::contiguous(&[10]);
        off.offset = 3;
        let c = Layout::contiguous(&[10]);
        let ins = [(b, &off), (b, &c)];
        let outs = [(b, &c)];
        let p = ElementwisePlan::new(&k, &[10], &ins, &outs, &[]);
        let field = |slot, offset, size| ArgField { slot, offset, size };
        let layout = ArgsLayout {
            fields: vec![
                field(Slot::Size, 0, 4),
                field(Slot::Ptr(OperandRef::Input(0)), 8, 8),
                field(Slot::Ptr(OperandRef::Output(0)), 16, 8),
            ],
            size: 24,
            params: vec![],
        };
        let bytes = p.pack(&layout, &ins, &outs, &[], &[]).unwrap();
        assert_eq!(&bytes[0..4], &10i32.to_le_bytes());
        assert_eq!(&bytes[8..16], &(0x1000u64 + 12).to_le_bytes());
        assert_eq!(&bytes[16..24], &0x1000u64.to_le_bytes());
    }

    #[test]
    fn raw_scalar_slots() {
        assert_eq!(raw_scalar_slot(&Scalar::Bool(true)), [1, 0]);
        assert_eq!(raw_scalar_slot(&Scalar::Int8(-1)), [0xff, 0]);
        let h = Scalar::Float32(1.0).cast(DType::Float16);
        assert_eq!(raw_scalar_slot(&h), [0x3c00, 0]);
        assert_eq!(
            raw_scalar_slot(&Scalar::Float64(1.0)),
            [1.0f64.to_bits(), 0]
        );
        assert_eq!(raw_scalar_slot(&Scalar::Int64(-2)), [(-2i64) as u64, 0]);
    }

    fn sum(d: DType) -> ReduceKernel {
        ReduceKernel::simple("sum", d, d, BinaryOp::Add, Scalar::zero(d), d)
    }

    fn shapes(
        out: &[usize],
        red: &[usize],
        input: (DevBuf, &Layout),
        output: (DevBuf, &Layout),
    ) -> ReduceShapes {
        ReduceShapes::new(out, red, &[input], output)
    }

    #[test]
    fn reduction_shapes_and_entries() {
        let k = sum(DType::Float32);
        let rv = reduce_vector_width(&k);
        assert_eq!(rv, 4);
        // Full sum of a contiguous vector: one output, vectorized, split across the device.
        let n = 1 << 24;
        let x = buf(0, n, DType::Float32);
        let y = buf(0, 1, DType::Float32);
        let lx = Layout::contiguous(&[n]);
        let ly = Layout::contiguous(&[]);
        let s = shapes(&[], &[n], (x, &lx), (y, &ly));
        assert_eq!(
            (s.out_size, s.red_size, s.oshape.clone(), s.rshape.clone()),
            (1, n, vec![1], vec![n])
        );
        assert!(!s.spec.index64);
        assert_eq!(s.entry(&[(x, &lx)], rv), ReduceEntry::Vectorized);
        let l = ReduceLaunch::new(132, 1, n, ReduceEntry::Vectorized, rv, 8);
        // target 132 x 8 = 1056 blocks; splits limited by 2^24 / (256 * 16) = 4096.
        assert_eq!(l.splits, 1056);
        assert_eq!(l.grid, [1, 1056, 1]);
        assert_eq!(l.block, [256, 1, 1]);
        assert_eq!(l.finish, Some(([1, 1, 1], [256, 1, 1])));
        // Misaligned start: plain inner entry.
        let mut lo = Layout::contiguous(&[n - 1]);
        lo.offset = 1;
        let s = shapes(&[], &[n - 1], (x, &lo), (y, &ly));
        assert_eq!(s.entry(&[(x, &lo)], rv), ReduceEntry::Inner);
        // sum(axis=0) of a C-contiguous [4096, 4096]: reduced stride 4096, outputs contiguous.
        let m = 4096;
        let x2 = buf(0, m * m, DType::Float32);
        let y2 = buf(0, m, DType::Float32);
        let t = Layout::contiguous(&[m, m]).transposed(); // out axis (stride 1), red (stride m)
        let ly2 = Layout::contiguous(&[m]);
        let s = shapes(&[m], &[m], (x2, &t), (y2, &ly2));
        assert_eq!(s.entry(&[(x2, &t)], rv), ReduceEntry::Outer);
        let l = ReduceLaunch::new(132, m, m, ReduceEntry::Outer, rv, 4);
        assert_eq!(l.block, [32, 8, 1]);
        // 128 tiles < 528 targets: splits = min(ceil(528 / 128), ceil(4096 / 256)) = 5, then
        // made non-empty: chunk 820 -> 5 splits.
        assert_eq!((l.splits, l.grid), (5, [128, 5, 1]));
        assert_eq!(l.finish, Some(([4096, 1, 1], [64, 1, 1])));
        // sum(axis=1) of [100000, 8]: many short rows, no split, 64 threads.
        let x3 = buf(0, 800_000, DType::Float32);
        let y3 = buf(0, 100_000, DType::Float32);
        let l3 = Layout::contiguous(&[100_000, 8]);
        let ly3 = Layout::contiguous(&[100_000]);
        let s = shapes(&[100_000], &[8], (x3, &l3), (y3, &ly3));
        // Reduced axis of 8 (< 32) with outputs strided: the outer entry.
        assert_eq!(s.entry(&[(x3, &l3)], rv), ReduceEntry::Outer);
        let l = ReduceLaunch::new(132, 100_000, 8, ReduceEntry::Inner, rv, 4);
        assert_eq!((l.splits, l.grid, l.block), (1, [8448, 1, 1], [64, 1, 1]));
        assert_eq!(l.finish, None);
    }

    #[test]
    fn reduction_edge_cases() {
        let k = sum(DType::Float64);
        let rv = reduce_vector_width(&k);
        assert_eq!(rv, 2);
        let x = buf(0, 10, DType::Float64);
        let y = buf(0, 10, DType::Float64);
        // Nothing reduced: [1] with stride 0; one block per output.
        let l = Layout::contiguous(&[10]);
        let s = shapes(&[10], &[], (x, &l), (y, &l));
        assert_eq!((s.red_size, s.rshape.clone()), (1, vec![1]));
        assert_eq!(s.rlays[0].strides, vec![0]);
        assert_eq!(s.entry(&[(x, &l)], rv), ReduceEntry::Outer);
        // An empty reduction (reduce_shape [0]): inner, no split.
        let e = Layout::contiguous(&[10, 0]);
        let s = shapes(&[10], &[0], (x, &e), (y, &l));
        assert_eq!(s.red_size, 0);
        assert_eq!(s.entry(&[(x, &e)], rv), ReduceEntry::Inner);
        let lw = ReduceLaunch::new(132, 10, 0, ReduceEntry::Inner, rv, 4);
        assert_eq!((lw.splits, lw.block, lw.finish), (1, [64, 1, 1], None));
        // 64-bit indices from out x reduced elements or any buffer at 2^31.
        let n = 1usize << 16;
        let xs = buf(0, (n / 2 - 1) * n, DType::Float64);
        let lx = Layout::contiguous(&[n / 2 - 1, n]);
        let ys = buf(0, n / 2 - 1, DType::Float64);
        let ly = Layout::contiguous(&[n / 2 - 1]);
        assert!(
            !shapes(&[n / 2 - 1], &[n], (xs, &lx), (ys, &ly))
                .spec
                .index64
        );
        let lx2 = Layout::contiguous(&[n, n / 2 + 1]);
        let xs2 = buf(0, n * (n / 2 + 1), DType::Float64);
        let ys2 = buf(0, n, DType::Float64);
        let ly2 = Layout::contiguous(&[n]);
        assert!(
            shapes(&[n], &[n / 2 + 1], (xs2, &lx2), (ys2, &ly2))
                .spec
                .index64
        );
        let huge = buf(0, 1 << 31, DType::Float64);
        assert!(shapes(&[10], &[], (huge, &l), (y, &l)).spec.index64);
        // Splits never exceed 65535 and every split has work.
        for red in [1usize << 20, 1 << 26, 3_000_001, 4097] {
            for units in [1usize, 8, 132, 304] {
                let p = ReduceLaunch::new(units, 1, red, ReduceEntry::Inner, rv, 4);
                assert!(p.splits <= 65535);
                let chunk = red.div_ceil(p.splits);
                assert!(chunk * (p.splits - 1) < red, "{red} {units}: empty split");
                assert!(p.block[0] >= 64 && p.block[0] <= BLOCK as u32);
            }
        }
    }
}
