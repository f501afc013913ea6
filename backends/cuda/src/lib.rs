//! cupy-cuda: the CUDA backend of cupy-rs.
//!
//! Everything NVIDIA is loaded at run time through cudarc's dynamic loading (libcuda, libnvrtc,
//! libcublas), so this crate builds without a CUDA install and a machine without the libraries
//! reports why in [`CudaProvider::probe`] instead of panicking.
//!
//! - One context (the device's primary context) and one stream per backend; all work is queued on
//!   that stream, in submission order. `read` and `synchronize` wait.
//! - A caching allocator ([`alloc`]) with size-class bins.
//! - Elementwise and reduction kernels are emitted by [`cupy_core::kernel::cpp`] and compiled by
//!   NVRTC for the device's exact `sm_XX` ([`compile`]), cached in memory and on disk.
//! - GEMM through cuBLAS (the `gemm` module).
#![warn(missing_docs)]

pub mod alloc;
pub mod compile;
mod gemm;
mod sortscan;
mod transfer;

pub use alloc::CudaBuffer;

use alloc::{size_class, Pool};
use compile::{CompileStats, Compiler, Module};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use cupy_core::backend::{
    dtype_unsupported, Backend, BackendKind, BackendProvider, Buffer, DeviceInfo, ElementwiseCall,
    GemmCall, NativeLanguage, Operand, RawArg, RawLaunch, ReductionCall,
};
use cupy_core::kernel::cpp::{
    emit_elementwise, emit_reduce, reduce_vector_width, tiled_fits, vector_width, ArgValue,
    ArgsLayout, ElementwiseClass, ElementwiseSpec, Flavor, OperandRef, ReduceSpec, Slot, BLOCK,
    OUTER_BLOCK, TILE_BLOCK,
};
use cupy_core::kernel::ir::{Kernel, ReduceKernel};
use cupy_core::layout::{merge_axes, shape_size, Layout};
use cupy_core::{DType, Error, Result, Scalar};
use std::collections::HashMap;
use std::ffi::c_void;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: reason.into(),
    }
}

/// Runs `f` with cudarc's missing-library panics turned into errors.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            Err(unavailable(format!("{what}: {msg}")))
        }
    }
}

fn driver_present() -> std::result::Result<(), String> {
    // SAFETY: only tries to open the library.
    let present = std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
    if present {
        Ok(())
    } else {
        Err("libcuda not found (no NVIDIA driver installed)".into())
    }
}

/// Finds CUDA devices.
#[derive(Debug, Default, Clone, Copy)]
pub struct CudaProvider;

fn device_info(index: usize) -> std::result::Result<DeviceInfo, String> {
    let dev = result::device::get(index as i32).map_err(|e| format!("cuDeviceGet: {e:?}"))?;
    let name = result::device::get_name(dev).map_err(|e| format!("cuDeviceGetName: {e:?}"))?;
    let attr = |a| {
        // SAFETY: plain attribute query on a valid device.
        unsafe { result::device::get_attribute(dev, a) }.unwrap_or(0)
    };
    let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    let sms = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    // SAFETY: valid device.
    let mem = unsafe { result::device::total_mem(dev) }
        .ok()
        .map(|m| m as u64);
    let mut driver = 0i32;
    // SAFETY: out-parameter.
    unsafe { sys::cuDriverGetVersion(&mut driver) };
    Ok(DeviceInfo {
        kind: BackendKind::Cuda,
        index,
        name,
        details: format!(
            "compute capability {major}.{minor}, {sms} SMs, CUDA driver {}.{}",
            driver / 1000,
            (driver % 1000) / 10
        ),
        software: false,
        total_memory: mem,
    })
}

impl BackendProvider for CudaProvider {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String> {
        driver_present()?;
        let r = std::panic::catch_unwind(|| -> std::result::Result<Vec<DeviceInfo>, String> {
            result::init().map_err(|e| format!("cuInit failed: {e:?}"))?;
            let n = result::device::get_count().map_err(|e| format!("cuDeviceGetCount: {e:?}"))?;
            if n <= 0 {
                return Err("no CUDA device found".into());
            }
            (0..n as usize).map(device_info).collect()
        });
        r.unwrap_or_else(|_| Err("the CUDA driver library failed to load".into()))
    }

    fn open(&self, index: usize) -> Result<Arc<dyn Backend>> {
        Ok(Arc::new(CudaBackend::open(index)?))
    }
}

/// An emitted, compiled kernel ready to launch.
struct Prepared {
    module: Arc<Module>,
    entries: Vec<String>,
    /// `entries` resolved in `module` (same order).
    funcs: Vec<sys::CUfunction>,
    args: ArgsLayout,
    vector: usize,
    /// Resident blocks per SM of the `inner_vec` reduction entry (queried once).
    occupancy: OnceLock<usize>,
}

// SAFETY: function handles are usable from any thread with the context bound (as `Module`).
unsafe impl Send for Prepared {}
// SAFETY: as above.
unsafe impl Sync for Prepared {}

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
struct LaunchCache<K, S>(HashMap<u64, Vec<(K, S, Arc<Prepared>)>>);

impl<K, S> Default for LaunchCache<K, S> {
    fn default() -> Self {
        LaunchCache(HashMap::new())
    }
}

impl<K: QuickKey + Eq + Clone, S: Hash + Eq + Copy> LaunchCache<K, S> {
    fn hash(k: &K, s: &S) -> u64 {
        let mut h = FxHasher::default();
        k.quick_hash(&mut h);
        s.hash(&mut h);
        h.finish()
    }
    fn get(&self, h: u64, k: &K, s: &S) -> Option<Arc<Prepared>> {
        self.0
            .get(&h)?
            .iter()
            .find(|e| e.1 == *s && e.0 == *k)
            .map(|e| e.2.clone())
    }
    fn insert(&mut self, h: u64, k: &K, s: S, p: Arc<Prepared>) {
        let v = self.0.entry(h).or_default();
        if !v.iter().any(|e| e.1 == s && e.0 == *k) {
            v.push((k.clone(), s, p));
        }
    }
}

/// One CUDA device.
pub struct CudaBackend {
    // Field order is drop order: cuBLAS and modules go before the stream and context.
    blas: OnceLock<std::result::Result<gemm::Blas, Error>>,
    staging: transfer::Staging,
    info: DeviceInfo,
    sms: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    elementwise_cache: Mutex<LaunchCache<Kernel, ElementwiseSpec>>,
    reduce_cache: Mutex<LaunchCache<ReduceKernel, ReduceSpec>>,
    compiler: Compiler,
    pool: Arc<Pool>,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaBackend({})", self.info.label())
    }
}

/// Whether `strides` are the C-contiguous strides of `shape` (extent-1 axes may have any).
fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&n, &st) in shape.iter().zip(strides).rev() {
        if n != 1 && st != expect {
            return false;
        }
        expect = expect.wrapping_mul(n as isize);
    }
    shape.len() == strides.len()
}

/// CUDA's launch limits, checked before the driver sees the launch: every dimension at least 1,
/// at most 1024 threads per block (1024 x 1024 x 64), grid at most 2^31-1 x 65535 x 65535.
pub fn check_raw_dims(op: &str, grid: [u32; 3], block: [u32; 3]) -> Result<()> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} and block {block:?} must be at least 1 in every dimension"),
        ));
    }
    let threads: u64 = block.iter().map(|&b| b as u64).product();
    if threads > 1024 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 {
        return Err(Error::invalid(
            op,
            format!(
                "block {block:?} ({threads} threads) exceeds the limit of 1024 threads per block \
                 (at most 1024 x 1024 x 64)"
            ),
        ));
    }
    if grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} exceeds the limit of 2^31-1 x 65535 x 65535 blocks"),
        ));
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CudaBackend {
    /// Opens device `index` (its primary context and a new stream).
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] when the driver is missing or the device cannot be opened.
    pub fn open(index: usize) -> Result<CudaBackend> {
        driver_present().map_err(unavailable)?;
        guarded("opening the CUDA device", || {
            result::init().map_err(|e| unavailable(format!("cuInit failed: {e:?}")))?;
            let info = device_info(index).map_err(unavailable)?;
            // Load NVRTC (a large library) while the context comes up: the first kernel's disk
            // cache key needs its version even when nothing is compiled.
            std::thread::spawn(|| {
                let _ = compile::nvrtc_version();
            });
            let ctx = CudaContext::new(index).map_err(|e| {
                unavailable(format!("cuda:{index}: context creation failed: {e:?}"))
            })?;
            // SAFETY: we never use CudaSlice; our buffers are ordered by our one stream.
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx
                .new_stream()
                .map_err(|e| unavailable(format!("cuda:{index}: stream creation failed: {e:?}")))?;
            let cc = ctx
                .compute_capability()
                .map_err(|e| unavailable(format!("{e:?}")))?;
            let sms = ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(1)
                .max(1) as usize;
            let label = info.label();
            Ok(CudaBackend {
                info,
                sms,
                pool: Pool::new(ctx.clone()),
                staging: transfer::Staging::new(ctx.clone()),
                ctx,
                stream,
                compiler: Compiler::new(cc, label),
                elementwise_cache: Default::default(),
                reduce_cache: Default::default(),
                blas: OnceLock::new(),
            })
        })
    }

    /// Compile-cache counters (memory hits, disk hits, NVRTC compiles).
    pub fn compile_stats(&self) -> &CompileStats {
        &self.compiler.stats
    }

    /// Pool usage: (bytes in use, bytes cached).
    pub fn pool_usage(&self) -> (usize, usize) {
        self.pool.usage()
    }

    /// Compiles raw CUDA C++ and returns its module (used by tests and, later, `RawKernel`).
    ///
    /// # Errors
    /// [`Error::Compile`] with NVRTC's log and the source.
    pub fn compile_raw(&self, name: &str, source: &str, entries: &[String]) -> Result<()> {
        self.bind()?;
        self.compiler.module(name, source, entries).map(|_| ())
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        Error::Backend {
            backend: self.info.label(),
            msg: msg.into(),
        }
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| self.err(format!("binding the context: {e:?}")))
    }

    fn buf<'a>(&self, b: &'a Buffer, op: &str) -> Result<&'a CudaBuffer> {
        b.as_any().downcast_ref::<CudaBuffer>().ok_or_else(|| {
            Error::invalid(
                op,
                format!("buffer {b:?} does not belong to {}", self.info.label()),
            )
        })
    }

    fn check_dtypes(&self, op: &str, dts: &[DType]) -> Result<()> {
        for d in dts {
            if let Err(reason) = self.supports_dtype(*d) {
                return Err(dtype_unsupported(op, *d, &self.info, reason));
            }
        }
        Ok(())
    }

    fn relabel(&self, e: Error) -> Error {
        match e {
            Error::DTypeNotSupported {
                op, dtype, reason, ..
            } => Error::DTypeNotSupported {
                op,
                dtype,
                device: self.info.label(),
                reason,
            },
            e => e,
        }
    }

    fn launch(
        &self,
        func: sys::CUfunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        args: &mut [u8],
        what: &str,
    ) -> Result<()> {
        let mut params = [args.as_mut_ptr() as *mut c_void];
        // SAFETY: the argument bytes follow the kernel's struct layout (ArgsLayout), every pointer
        // in it is a live pool allocation checked by the caller, and the stream is ours.
        unsafe { result::launch_kernel(func, grid, block, 0, self.stream.cu_stream(), &mut params) }
            .map_err(|e| self.err(format!("launching {what} failed: {e:?}")))
    }

    fn grid_for(&self, work: usize, per_block: usize) -> u32 {
        let blocks = work.div_ceil(per_block).max(1);
        blocks.min(self.sms * 32).min(i32::MAX as usize) as u32
    }

    fn resolve(&self, module: &Module, entries: &[String]) -> Result<Vec<sys::CUfunction>> {
        entries
            .iter()
            .map(|e| {
                module
                    .func(e)
                    .ok_or_else(|| self.err(format!("missing entry {e}")))
            })
            .collect()
    }

    fn prepare_elementwise(&self, k: &Kernel, spec: ElementwiseSpec) -> Result<Arc<Prepared>> {
        let h = LaunchCache::<Kernel, ElementwiseSpec>::hash(k, &spec);
        if let Some(p) = lock(&self.elementwise_cache).get(h, k, &spec) {
            return Ok(p);
        }
        // The full dtype check (body casts included) runs once per kernel, before its first launch.
        self.check_dtypes(&k.name, &k.dtypes())?;
        let e = emit_elementwise(k, &spec, Flavor::Cuda).map_err(|e| self.relabel(e))?;
        let module = self.compiler.module(&k.name, &e.source, &e.entries)?;
        let funcs = self.resolve(&module, &e.entries)?;
        let p = Arc::new(Prepared {
            module,
            funcs,
            entries: e.entries,
            args: e.args,
            vector: e.vector,
            occupancy: OnceLock::new(),
        });
        lock(&self.elementwise_cache).insert(h, k, spec, p.clone());
        Ok(p)
    }

    fn prepare_reduce(&self, k: &ReduceKernel, spec: ReduceSpec) -> Result<Arc<Prepared>> {
        let h = LaunchCache::<ReduceKernel, ReduceSpec>::hash(k, &spec);
        if let Some(p) = lock(&self.reduce_cache).get(h, k, &spec) {
            return Ok(p);
        }
        let e = emit_reduce(k, &spec, Flavor::Cuda).map_err(|e| self.relabel(e))?;
        let module = self.compiler.module(&k.name, &e.source, &e.entries)?;
        let funcs = self.resolve(&module, &e.entries)?;
        let p = Arc::new(Prepared {
            module,
            funcs,
            entries: e.entries,
            args: e.args,
            vector: 1,
            occupancy: OnceLock::new(),
        });
        lock(&self.reduce_cache).insert(h, k, spec, p.clone());
        Ok(p)
    }

    /// Checks an operand: our buffer, its dtype, and every addressed element inside it.
    fn operand<'a>(&self, op: &str, o: &Operand<'a>, dtype: DType) -> Result<&'a CudaBuffer> {
        let b = self.buf(o.buffer, op)?;
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

    fn ptr_at(b: &CudaBuffer, offset: usize) -> u64 {
        b.ptr + (offset * b.dtype.itemsize()) as u64
    }

    /// Queues an elementwise launch on already-checked operands.
    #[allow(clippy::too_many_arguments)]
    fn run_elementwise(
        &self,
        k: &Kernel,
        shape: &[usize],
        ins: &[(&CudaBuffer, &Layout)],
        outs: &[(&CudaBuffer, &Layout)],
        raws: &[(&CudaBuffer, usize)],
        params: &[Scalar],
    ) -> Result<()> {
        let size = shape_size(shape);
        if size == 0 {
            return Ok(());
        }
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
        let stride = |i: usize, d: usize| {
            if all_contiguous {
                1
            } else {
                mlayouts[i].strides[d]
            }
        };
        let extent = |d: usize| if all_contiguous { size } else { mshape[d] };
        let contiguous = all_contiguous || (nd == 1 && mlayouts.iter().all(|l| l.strides[0] == 1));
        let big = size >= (1 << 31)
            || (0..nops).any(|i| buf_of(i).len >= (1 << 31))
            || raws.iter().any(|(b, _)| b.len >= (1 << 31));
        let class = if contiguous {
            let vec = vector_width(k);
            let aligned = vec > 1
                && (0..nops).all(|i| {
                    let b = buf_of(i);
                    let a = (vec * b.dtype.itemsize()).min(16) as u64;
                    Self::ptr_at(b, offset(i)) % a == 0
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
        let spec = ElementwiseSpec {
            ndim: nd,
            class,
            index64: big,
        };
        let p = self.prepare_elementwise(k, spec)?;
        let nin = ins.len();
        let mut args = p.args.pack(|s| match s {
            Slot::Size => ArgValue::Int(size as i64),
            Slot::Shape(d) => ArgValue::Int(extent(d) as i64),
            Slot::Ptr(OperandRef::Input(i)) => ArgValue::Ptr(Self::ptr_at(ins[i].0, offset(i))),
            Slot::Ptr(OperandRef::Output(i)) => {
                ArgValue::Ptr(Self::ptr_at(outs[i].0, offset(nin + i)))
            }
            Slot::Ptr(OperandRef::Raw(i)) => ArgValue::Ptr(Self::ptr_at(raws[i].0, raws[i].1)),
            Slot::Stride(OperandRef::Input(i), d) => ArgValue::Int(stride(i, d) as i64),
            Slot::Stride(OperandRef::Output(i), d) => ArgValue::Int(stride(nin + i, d) as i64),
            Slot::Param(i) => ArgValue::Scalar(params[i]),
            _ => ArgValue::Int(0),
        })?;
        let f = p.funcs[0];
        if class == ElementwiseClass::Tiled {
            let tiles = mshape[0].div_ceil(32) * mshape[1].div_ceil(32);
            let grid = self.grid_for(tiles, 1);
            let b = (TILE_BLOCK.0 as u32, TILE_BLOCK.1 as u32, 1);
            return self.launch(f, (grid, 1, 1), b, &mut args, &k.name);
        }
        let work = size.div_ceil(p.vector);
        let grid = self.grid_for(work, BLOCK);
        self.launch(f, (grid, 1, 1), (BLOCK as u32, 1, 1), &mut args, &k.name)
    }

    /// Copies `src` (any layout of `shape`) into a new contiguous buffer.
    pub(crate) fn contiguous_copy(&self, src: &CudaBuffer, layout: &Layout) -> Result<Buffer> {
        let n = layout.size();
        let out = self.alloc(src.dtype, n)?;
        let ob = self.buf(&out, "copy")?;
        let k = Kernel::map(
            "copy",
            vec![src.dtype],
            vec![],
            cupy_core::kernel::ir::Expr::input(0, src.dtype),
        );
        let ol = Layout::contiguous(&layout.shape);
        self.run_elementwise(&k, &layout.shape, &[(src, layout)], &[(ob, &ol)], &[], &[])?;
        Ok(out)
    }

    /// A raw (user) kernel launch: checks, NVRTC module, by-value arguments, `cuLaunchKernel`.
    fn raw_run(&self, call: &RawLaunch<'_>) -> Result<()> {
        let op = format!("RawKernel {}", call.name);
        check_raw_dims(&op, call.grid, call.block)?;
        // Argument bytes: one 16-byte-aligned slot per argument (device pointer or scalar).
        let mut slots: Vec<[u64; 2]> = Vec::with_capacity(call.args.len());
        for (i, a) in call.args.iter().enumerate() {
            let mut slot = [0u64; 2];
            match a {
                RawArg::Buffer { buffer, offset } => {
                    let b = self.buf(buffer, &op)?;
                    if *offset > b.len {
                        return Err(Error::invalid(
                            &op,
                            format!(
                                "argument {i}: offset {offset} is past the end of a buffer of {} \
                                 elements",
                                b.len
                            ),
                        ));
                    }
                    slot[0] = Self::ptr_at(b, *offset);
                }
                RawArg::Scalar(sc) => {
                    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut slot);
                    sc.write_le_bytes(&mut bytes[..sc.dtype().itemsize()]);
                }
            }
            slots.push(slot);
        }
        self.bind()?;
        let module = self
            .compiler
            .raw_module(call.name, call.source, call.options)?;
        let f = module.lookup(call.name).ok_or_else(|| Error::Compile {
            backend: self.info.label(),
            kernel: call.name.into(),
            log: format!(
                "the module has no kernel named {:?} (declare it `extern \"C\" __global__` so \
                 its name is not mangled)",
                call.name
            ),
            source_code: call.source.into(),
        })?;
        let threads: u64 = call.block.iter().map(|&b| b as u64).product();
        // SAFETY: a loaded function; plain attribute query.
        let max_threads = unsafe {
            result::function::get_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .unwrap_or(1024)
        .max(1) as u64;
        if threads > max_threads {
            return Err(Error::invalid(
                &op,
                format!(
                    "block {:?} has {threads} threads but this kernel can run at most \
                     {max_threads} per block on {}",
                    call.block,
                    self.info.label()
                ),
            ));
        }
        if call.shared_mem > 48 * 1024 {
            // Opt in to more than 48 KiB of dynamic shared memory (the driver checks the limit).
            // SAFETY: a loaded function; attribute set before the launch that needs it.
            unsafe {
                result::function::set_function_attribute(
                    f,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    call.shared_mem as i32,
                )
            }
            .map_err(|e| {
                Error::invalid(
                    &op,
                    format!(
                        "{} bytes of dynamic shared memory are not available: {e:?}",
                        call.shared_mem
                    ),
                )
            })?;
        }
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s.as_mut_ptr() as *mut c_void)
            .collect();
        let g = (call.grid[0], call.grid[1], call.grid[2]);
        let b = (call.block[0], call.block[1], call.block[2]);
        // SAFETY: each parameter points at a slot holding the argument's bytes (device pointers
        // checked against their buffers, scalars at their C size); the kernel's signature is the
        // user's responsibility, as with cuLaunchKernel in CuPy. The stream is ours.
        unsafe {
            result::launch_kernel(
                f,
                g,
                b,
                call.shared_mem,
                self.stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| {
            self.err(format!(
                "launching raw kernel {} (grid {:?}, block {:?}, shared_mem {}) failed: {e:?}",
                call.name, call.grid, call.block, call.shared_mem
            ))
        })
    }

    pub(crate) fn stream_ptr(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let _ = self.stream.synchronize();
    }
}

impl Backend for CudaBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn supports_dtype(&self, _dtype: DType) -> std::result::Result<(), String> {
        // Every dtype, complex included; ops without a complex kernel (sort, scan, atomic
        // scatter updates) refuse it themselves.
        Ok(())
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer> {
        self.check_dtypes("alloc", &[dtype])?;
        let bytes = len
            .checked_mul(dtype.itemsize())
            .ok_or_else(|| Error::OutOfMemory {
                device: self.info.label(),
                requested: usize::MAX,
                detail: format!("{len} elements of {dtype} overflow the address space"),
            })?;
        if bytes == 0 {
            return Ok(Arc::new(CudaBuffer {
                ptr: 0,
                class: 0,
                len,
                dtype,
                pool: self.pool.clone(),
            }));
        }
        self.bind()?;
        let class = size_class(bytes);
        match self.pool.take(class) {
            Ok(ptr) => Ok(Arc::new(CudaBuffer {
                ptr,
                class,
                len,
                dtype,
                pool: self.pool.clone(),
            })),
            Err((true, detail)) => Err(Error::OutOfMemory {
                device: self.info.label(),
                requested: bytes,
                detail,
            }),
            Err((false, msg)) => Err(self.err(msg)),
        }
    }

    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let b = self.buf(dst, "write")?;
        let isz = b.dtype.itemsize();
        if !data.len().is_multiple_of(isz) || offset + data.len() / isz > b.len {
            return Err(Error::invalid(
                "write",
                format!(
                    "{} bytes at element {offset} do not fit a buffer of {} x {}",
                    data.len(),
                    b.len,
                    b.dtype
                ),
            ));
        }
        if data.is_empty() {
            return Ok(());
        }
        self.bind()?;
        let dst = Self::ptr_at(b, offset);
        let stream = self.stream.cu_stream();
        if data.len() >= transfer::staging_threshold() {
            // SAFETY: destination range checked above; our stream and bound context.
            return unsafe { self.staging.upload(stream, dst, data) }
                .map_err(|e| self.err(format!("host-to-device copy (pinned staging): {e}")));
        }
        // SAFETY: destination range checked above; pageable source is staged before return.
        unsafe { result::memcpy_htod_async(dst, data, stream) }
            .map_err(|e| self.err(format!("host-to-device copy failed: {e:?}")))
    }

    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let b = self.buf(src, "read")?;
        let mut out = vec![0u8; len.saturating_mul(b.dtype.itemsize())];
        self.read_into(src, offset, &mut out)?;
        Ok(out)
    }

    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let b = self.buf(src, "read")?;
        let isz = b.dtype.itemsize();
        let len = dst.len() / isz;
        if !dst.len().is_multiple_of(isz) || offset.checked_add(len).is_none_or(|e| e > b.len) {
            return Err(Error::invalid(
                "read",
                format!(
                    "{} bytes at element {offset} do not fit a buffer of {} x {}",
                    dst.len(),
                    b.len,
                    b.dtype
                ),
            ));
        }
        self.bind()?;
        if dst.is_empty() {
            return self.synchronize();
        }
        let from = Self::ptr_at(b, offset);
        let stream = self.stream.cu_stream();
        if dst.len() >= transfer::staging_threshold() {
            // SAFETY: range checked; our stream and bound context; returns when `dst` is filled.
            return unsafe { self.staging.download(stream, from, dst) }
                .map_err(|e| self.err(format!("device-to-host copy (pinned staging): {e}")));
        }
        // SAFETY: range checked; we synchronize before `dst` is released to the caller.
        unsafe { result::memcpy_dtoh_async(dst, from, stream) }
            .map_err(|e| self.err(format!("device-to-host copy failed: {e:?}")))?;
        self.synchronize()
    }

    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        self.bind()?;
        let ev = transfer::EventPair::new().map_err(|e| self.err(e))?;
        let stream = self.stream.cu_stream();
        // SAFETY: our stream, bound context.
        unsafe { ev.record(stream, false) }.map_err(|e| self.err(e))?;
        work()?;
        self.bind()?;
        // SAFETY: as above.
        unsafe { ev.record(stream, true) }.map_err(|e| self.err(e))?;
        let ms = ev.elapsed_ms().map_err(|e| self.err(e))?;
        Ok(Some(ms as f64 / 1e3))
    }

    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        let k = call.kernel;
        // Declared operand dtypes here; the body's own casts are checked when the kernel is first
        // prepared (prepare_elementwise), still before anything is queued.
        for d in [&k.inputs, &k.outputs, &k.raws, &k.params] {
            self.check_dtypes(&k.name, d)?;
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
        let mut ins = vec![];
        for (o, d) in call.inputs.iter().zip(&k.inputs) {
            ins.push((self.operand(&k.name, o, *d)?, &o.layout));
        }
        let mut outs = Vec::with_capacity(call.outputs.len());
        for (o, d) in call.outputs.iter().zip(&k.outputs) {
            outs.push((self.operand(&k.name, o, *d)?, &o.layout));
        }
        let mut raws = vec![];
        for (r, d) in call.raws.iter().zip(&k.raws) {
            let b = self.buf(r.buffer, &k.name)?;
            if b.dtype != *d || r.offset + r.len > b.len {
                return Err(Error::invalid(
                    &k.name,
                    "raw operand dtype or range mismatch",
                ));
            }
            raws.push((b, r.offset));
        }
        for l in ins.iter().chain(&outs).map(|x| &x.1) {
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
        self.bind()?;
        self.run_elementwise(k, &call.shape, &ins, &outs, &raws, &call.params)
    }

    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        let k = call.kernel;
        self.check_dtypes(&k.name, &k.dtypes())?;
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
        let ond0 = call.out_shape.len();
        let full: Vec<usize> = call
            .out_shape
            .iter()
            .chain(&call.reduce_shape)
            .copied()
            .collect();
        let mut ins = vec![];
        for (o, d) in call.inputs.iter().zip(&k.inputs) {
            if o.layout.shape != full {
                return Err(Error::invalid(
                    &k.name,
                    format!("input shape {:?} != {full:?}", o.layout.shape),
                ));
            }
            ins.push((self.operand(&k.name, o, *d)?, o.layout.clone()));
        }
        let ob = self.operand(&k.name, &call.output, k.output)?;
        if call.output.layout.shape != call.out_shape {
            return Err(Error::invalid(&k.name, "output shape mismatch"));
        }
        // Merge output axes (inputs + output) and reduced axes (inputs) separately.
        let split = |l: &Layout, a: usize, b: usize| Layout {
            shape: l.shape[a..b].to_vec(),
            strides: l.strides[a..b].to_vec(),
            offset: l.offset,
        };
        let mut out_layouts: Vec<Layout> = ins.iter().map(|(_, l)| split(l, 0, ond0)).collect();
        out_layouts.push(call.output.layout.clone());
        let (oshape, olays) = merge_axes(&call.out_shape, &out_layouts);
        let red_size = shape_size(&call.reduce_shape);
        let (rshape, rlays): (Vec<usize>, Vec<Layout>) = if call.reduce_shape.is_empty() {
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
            merge_axes(&call.reduce_shape, &rl)
        };
        let big = out_size.saturating_mul(red_size.max(1)) >= (1 << 31)
            || ins.iter().any(|(b, _)| b.len >= (1 << 31))
            || ob.len >= (1 << 31);
        let spec = ReduceSpec {
            out_ndim: oshape.len(),
            red_ndim: rshape.len(),
            index64: big,
        };
        self.bind()?;
        let p = self.prepare_reduce(k, spec)?;
        // Kernel choice and splits.
        let inner_unit = rlays
            .first()
            .is_some_and(|l| l.strides.last().map(|s| s.abs()) == Some(1));
        let use_inner = out_size == 1 || red_size == 0 || (inner_unit && red_size >= 32);
        // The vectorized inner entry: one merged reduced axis of stride 1 in every input, and
        // every row start aligned to the vector.
        let rv = reduce_vector_width(k);
        let use_vec = use_inner
            && rshape.len() == 1
            && red_size >= 4 * rv
            && ins.iter().enumerate().all(|(i, (b, _))| {
                let al = (rv * b.dtype.itemsize()).min(16);
                let isz = b.dtype.itemsize() as isize;
                rlays[i].strides[0] == 1
                    && Self::ptr_at(b, olays[i].offset) % al as u64 == 0
                    && olays[i]
                        .shape
                        .iter()
                        .zip(&olays[i].strides)
                        .all(|(&n, &st)| n == 1 || (st * isz) % al as isize == 0)
            });
        let vec_entry = if use_vec {
            Some(
                p.module
                    .func(&p.entries[3])
                    .ok_or_else(|| self.err("missing entry"))?,
            )
        } else {
            None
        };
        let target = match vec_entry {
            Some(f) => {
                self.sms
                    * *p.occupancy.get_or_init(|| {
                        // SAFETY: a loaded function; plain query.
                        unsafe {
                            result::occupancy::max_active_block_per_multiprocessor(
                                f,
                                BLOCK as i32,
                                0,
                            )
                        }
                        .map(|n| n.max(1) as usize)
                        .unwrap_or(4)
                    })
            }
            None => self.sms * 4,
        };
        let (grid_x, per_split_min, units) = if use_vec {
            (out_size.min(self.sms * 64), BLOCK * rv * 4, out_size)
        } else if use_inner {
            (out_size.min(self.sms * 64), BLOCK * 8, out_size)
        } else {
            let tiles = out_size.div_ceil(OUTER_BLOCK.0);
            (tiles.min(self.sms * 64), OUTER_BLOCK.1 * 32, tiles)
        };
        let mut splits = 1usize;
        if units < target && red_size > per_split_min {
            splits = target
                .div_ceil(units)
                .min(red_size.div_ceil(per_split_min))
                .min(65535);
        }
        if splits > 1 {
            // Make every split non-empty.
            let chunk = red_size.div_ceil(splits);
            splits = red_size.div_ceil(chunk);
        }
        let partial = if splits > 1 {
            Some(self.alloc(k.acc, out_size * splits)?)
        } else {
            None
        };
        let partial_ptr = match &partial {
            Some(b) => self.buf(b, &k.name)?.ptr,
            None => 0,
        };
        let nin = ins.len();
        let mut args = p.args.pack(|s| match s {
            Slot::OutSize => ArgValue::Int(out_size as i64),
            Slot::RedSize => ArgValue::Int(red_size as i64),
            Slot::Splits => ArgValue::Int(splits as i64),
            Slot::Shape(d) => ArgValue::Int(oshape[d] as i64),
            Slot::RedShape(d) => ArgValue::Int(rshape[d] as i64),
            Slot::Ptr(OperandRef::Input(i)) => {
                // The input's offset is carried by its output-axes layout.
                ArgValue::Ptr(Self::ptr_at(ins[i].0, olays[i].offset))
            }
            Slot::Ptr(OperandRef::Output(_)) => ArgValue::Ptr(Self::ptr_at(ob, olays[nin].offset)),
            Slot::Ptr(OperandRef::Partial) => ArgValue::Ptr(partial_ptr),
            Slot::Stride(OperandRef::Input(i), d) => ArgValue::Int(olays[i].strides[d] as i64),
            Slot::Stride(OperandRef::Output(_), d) => ArgValue::Int(olays[nin].strides[d] as i64),
            Slot::RedStride(OperandRef::Input(i), d) => ArgValue::Int(rlays[i].strides[d] as i64),
            Slot::Param(i) => ArgValue::Scalar(call.params[i]),
            _ => ArgValue::Int(0),
        })?;
        let name = &k.name;
        if let Some(f) = vec_entry {
            let per = red_size.div_ceil(splits).div_ceil(rv * 4).max(1);
            let threads = per.next_power_of_two().clamp(64, BLOCK) as u32;
            self.launch(
                f,
                (grid_x as u32, splits as u32, 1),
                (threads, 1, 1),
                &mut args,
                name,
            )?;
        } else if use_inner {
            let per = red_size.div_ceil(splits).max(1);
            let threads = per.next_power_of_two().clamp(64, BLOCK) as u32;
            let f = p
                .module
                .func(&p.entries[0])
                .ok_or_else(|| self.err("missing entry"))?;
            self.launch(
                f,
                (grid_x as u32, splits as u32, 1),
                (threads, 1, 1),
                &mut args,
                name,
            )?;
        } else {
            let f = p
                .module
                .func(&p.entries[1])
                .ok_or_else(|| self.err("missing entry"))?;
            let b = (OUTER_BLOCK.0 as u32, OUTER_BLOCK.1 as u32, 1);
            self.launch(f, (grid_x as u32, splits as u32, 1), b, &mut args, name)?;
        }
        if splits > 1 {
            let f = p
                .module
                .func(&p.entries[2])
                .ok_or_else(|| self.err("missing entry"))?;
            let threads = splits.next_power_of_two().clamp(64, BLOCK) as u32;
            let g = out_size.min(self.sms * 64) as u32;
            self.launch(f, (g, 1, 1), (threads, 1, 1), &mut args, name)?;
        }
        drop(partial); // back to the pool; later work on this stream is ordered after it
        Ok(())
    }

    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        gemm::gemm(self, call)
    }

    fn native_language(&self) -> Option<NativeLanguage> {
        Some(NativeLanguage::Cuda)
    }

    fn raw_compile(&self, source: &str, options: &[String]) -> Result<()> {
        self.bind()?;
        self.compiler
            .raw_module("RawModule", source, options)
            .map(|_| ())
    }

    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        self.raw_run(call)
    }

    fn scan(&self, call: &cupy_core::backend::ScanCall<'_>) -> Result<()> {
        sortscan::scan(self, call)
    }

    fn sort(&self, call: &cupy_core::backend::SortCall<'_>) -> Result<()> {
        sortscan::sort(self, call)
    }

    fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.stream
            .synchronize()
            .map_err(|e| self.err(format!("synchronize failed: {e:?}")))
    }
}
