//! The object-safe [`Backend`] trait every device implements, and the [`BackendProvider`] that
//! discovery uses to find devices.
//!
//! The frontend never matches on vendors: it builds kernels in the IR ([`crate::kernel`]),
//! simplifies their iteration space ([`crate::layout::merge_axes`]) and hands them to a backend.
//!
//! # Contract for implementors
//! - Work may be queued and run later (asynchrony); `read` and `synchronize` wait for everything
//!   queued before them. Ops are executed in the order they are submitted on each stream: a
//!   backend with several hardware queues queues each op on the thread's current stream
//!   ([`stream::current`]); `read` waits for that stream, `synchronize` for all of them. Ordering
//!   between streams is the frontend's (event waits, [`Backend::stream_wait_event`]), and a
//!   buffer's memory may be reused only by work ordered after its last use (cuda and hip keep
//!   free blocks per stream, `crate::gpu::pool`).
//! - Layouts handed to a backend are checked by the caller: every element they address lies
//!   inside its buffer, and output layouts address each element at most once (no zero strides).
//!   Inputs may alias outputs only element-for-element (same layout).
//! - A backend refuses a dtype it cannot store or compute with (`supports_dtype`, or a kernel that
//!   uses it) with [`Error::DTypeNotSupported`] before queueing any work, so nothing the user owns
//!   is modified by a failed call.
//! - Buffers store one element per index, whatever representation the device uses internally
//!   (wgpu widens 8/16-bit integers to 32-bit words); `write`/`read` speak NumPy's byte format.

mod calls;
pub mod collective;
pub mod graph;
mod linalg;
pub mod sparse;
pub mod stream;

pub use calls::*;
pub use graph::{CaptureMode, GraphCapture, NativeGraph};
pub use linalg::*;
pub use stream::{NativeEvent, NativeStream};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::pool::PoolStats;
use crate::kernel::ir::{Kernel, ReduceKernel};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// The four backend families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BackendKind {
    /// NVIDIA, through the CUDA driver, NVRTC and cuBLAS.
    Cuda,
    /// AMD, through the HIP runtime, hipRTC and rocBLAS.
    Hip,
    /// Any Vulkan/Metal/DX12 GPU through wgpu and WGSL.
    Wgpu,
    /// The host CPU.
    Cpu,
}

impl BackendKind {
    /// Discovery order: CUDA, HIP, wgpu, CPU.
    pub const ALL: [BackendKind; 4] = [
        BackendKind::Cuda,
        BackendKind::Hip,
        BackendKind::Wgpu,
        BackendKind::Cpu,
    ];

    /// Lower-case name as used by `CUPY_BACKEND`.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cuda => "cuda",
            BackendKind::Hip => "hip",
            BackendKind::Wgpu => "wgpu",
            BackendKind::Cpu => "cpu",
        }
    }

    /// Parses a `CUPY_BACKEND` value (case-insensitive); `auto` gives `None`.
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for anything else.
    pub fn parse(value: &str) -> Result<Option<BackendKind>> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "cuda" => Ok(Some(BackendKind::Cuda)),
            "hip" | "rocm" => Ok(Some(BackendKind::Hip)),
            "wgpu" | "vulkan" => Ok(Some(BackendKind::Wgpu)),
            "cpu" | "host" => Ok(Some(BackendKind::Cpu)),
            _ => Err(Error::UnknownBackend {
                value: value.into(),
            }),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a device is.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Backend family.
    pub kind: BackendKind,
    /// Index among that backend's devices.
    pub index: usize,
    /// Device name (e.g. `"NVIDIA H200"`, `"llvmpipe (LLVM 15.0.6, 256 bits)"`).
    pub name: String,
    /// Free text: driver, API, device type, compute capability.
    pub details: String,
    /// True for a software rasterizer (llvmpipe, SwiftShader), used only when asked for.
    pub software: bool,
    /// Total device memory in bytes, if known.
    pub total_memory: Option<u64>,
}

impl DeviceInfo {
    /// `"wgpu:0 (NVIDIA H200)"`.
    pub fn label(&self) -> String {
        format!("{}:{} ({})", self.kind, self.index, self.name)
    }
}

/// A device allocation holding `len` elements of `dtype`. Backends downcast through `as_any`.
pub trait DeviceBuffer: Any + Send + Sync + fmt::Debug {
    /// Element count.
    fn len(&self) -> usize;
    /// True if it holds no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element dtype.
    fn dtype(&self) -> DType;
    /// For downcasting to the backend's concrete type.
    fn as_any(&self) -> &dyn Any;
    /// The address of element 0 in the device's address space (a CUDA/HIP device pointer, a
    /// host pointer on the cpu), for zero-copy exchange (DLPack); `None` where buffers have no
    /// address a foreign library could use (wgpu).
    fn address(&self) -> Option<u64> {
        None
    }
    /// The frontend's per-buffer stream bookkeeping when this buffer is the frontend's
    /// wrapper around a backend's buffer (which delegates everything else, `as_any` included);
    /// `None` for a backend's own buffers.
    fn tracker(&self) -> Option<&(dyn Any + Send + Sync)> {
        None
    }
}

/// `Ok` when `address` is aligned to `dtype`'s component size (what every backend's kernels
/// need of a [`Backend::wrap_external`] address: a complex number's part, else the element).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the address, dtype and alignment.
pub fn check_external_alignment(address: u64, dtype: DType) -> Result<()> {
    let align = match dtype {
        DType::Complex64 => 4,
        DType::Complex128 => 8,
        d => d.itemsize().max(1),
    } as u64;
    if !address.is_multiple_of(align) {
        return Err(Error::invalid(
            "from_dlpack",
            format!("address {address:#x} of {dtype} data is not aligned to {align} bytes"),
        ));
    }
    Ok(())
}

/// What keeps foreign memory alive while a [`Buffer`] made by [`Backend::wrap_external`] uses
/// it: dropped (once) when the buffer drops, e.g. calling a DLPack deleter.
pub type KeepAlive = Box<dyn Any + Send + Sync>;

/// A shared handle to a device allocation (views of one array share it).
pub type Buffer = Arc<dyn DeviceBuffer>;

/// A device. Object safe; shared as `Arc<dyn Backend>`. See the module docs for the contract.
pub trait Backend: Send + Sync + fmt::Debug {
    /// What the device is.
    fn info(&self) -> &DeviceInfo;

    /// `Ok(())` if the device can store and compute with `dtype`, else the reason.
    fn supports_dtype(&self, dtype: DType) -> std::result::Result<(), String>;

    /// Allocates `len` elements of `dtype` (contents unspecified).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the pool's state; [`Error::DTypeNotSupported`].
    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer>;

    /// Writes `data` (NumPy bytes of `data.len() / itemsize` elements) starting at element `offset`.
    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()>;

    /// Reads `len` elements from element `offset` as NumPy bytes, after all queued work.
    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>>;

    /// Queues an elementwise kernel.
    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()>;

    /// Queues an elementwise kernel launched with blocks (workgroups) of `block_size` threads,
    /// a power of two from 1 to 1024 (CuPy's `block_size=` of a user kernel). Backends without
    /// blocks ignore it: the default runs [`Backend::elementwise`] (the cpu backend). GPU
    /// backends launch with that block size or refuse it with `InvalidArgument` naming the
    /// limit it passes (the adapter's workgroup limits on wgpu, the kernel's resources on
    /// CUDA/HIP); results never depend on it.
    ///
    /// # Errors
    /// As [`Backend::elementwise`]; `InvalidArgument` for a block size the device or kernel
    /// cannot launch.
    fn elementwise_block(&self, call: &ElementwiseCall<'_>, block_size: u32) -> Result<()> {
        let _ = block_size;
        self.elementwise(call)
    }

    /// Queues a user kernel (`ElementwiseKernel`) with CuPy's `options=` compiler flags and
    /// an optional block size. Backends that compile C++ (cuda, hip) pass the flags their
    /// compiler takes to NVRTC/hipRTC; the default ignores them (the cpu backend evaluates the
    /// IR and wgpu compiles generated WGSL, which have no such flags; `-D` macros were applied
    /// to the kernel's text before it became IR, on every backend).
    ///
    /// # Errors
    /// As [`Backend::elementwise_block`]; compile errors for flags the compiler rejects.
    fn elementwise_opts(
        &self,
        call: &ElementwiseCall<'_>,
        block_size: Option<u32>,
        options: &[String],
    ) -> Result<()> {
        let _ = options;
        match block_size {
            Some(b) => self.elementwise_block(call, b),
            None => self.elementwise(call),
        }
    }

    /// Queues a reduction.
    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()>;

    /// [`Backend::reduce`] compiled with a user kernel's compiler options (a
    /// `ReductionKernel`'s `options=`, as [`Backend::elementwise_opts`]). The C++ backends pass
    /// them to NVRTC/hipRTC; the default ignores them (the cpu backend evaluates the IR and
    /// WGSL has no such switches).
    ///
    /// # Errors
    /// As [`Backend::reduce`].
    fn reduce_opts(&self, call: &ReductionCall<'_>, options: &[String]) -> Result<()> {
        let _ = options;
        self.reduce(call)
    }

    /// Queues a matrix product.
    fn gemm(&self, call: &GemmCall<'_>) -> Result<()>;

    /// Waits for all queued work.
    fn synchronize(&self) -> Result<()>;

    /// The memory pool's counters (CuPy's `MemoryPool`); a backend without a pool reports
    /// zeros.
    fn pool_stats(&self) -> PoolStats {
        PoolStats::default()
    }

    /// Wraps memory allocated elsewhere (another library's tensor) as a buffer of `len`
    /// elements of `dtype` without copying; `keep_alive` drops when the buffer does.
    ///
    /// # Safety
    /// `address` must point to at least `len * dtype.itemsize()` bytes that this device can
    /// read and write (device memory of its context for CUDA/HIP, host memory for the cpu),
    /// aligned to the element's component size, valid until `keep_alive` drops, and not
    /// written by anyone else while the array is in use.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where buffers have no address ([`DeviceBuffer::address`]);
    /// a misaligned address.
    unsafe fn wrap_external(
        &self,
        address: u64,
        dtype: DType,
        len: usize,
        keep_alive: KeepAlive,
    ) -> Result<Buffer> {
        let _ = (address, dtype, len, keep_alive);
        Err(Error::Unsupported {
            op: "from_dlpack".into(),
            backend: self.info().label(),
            reason: "this backend's buffers cannot wrap foreign memory".into(),
        })
    }

    /// Frees every cached block of the pool (`MemoryPool.free_all_blocks`); returns the bytes
    /// released. A backend without a pool has none.
    ///
    /// # Errors
    /// Device errors while synchronizing.
    fn pool_free_all_blocks(&self) -> Result<usize> {
        Ok(0)
    }

    /// Limits the bytes the pool may hold (`MemoryPool.set_limit`); `None` removes the limit.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where the backend has no pool.
    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        let _ = limit;
        Err(Error::Unsupported {
            op: "MemoryPool.set_limit".into(),
            backend: self.info().label(),
            reason: "this backend has no memory pool".into(),
        })
    }

    /// Reads `dst.len() / itemsize` elements from element `offset` into `dst` as NumPy bytes,
    /// after all queued work. The default goes through [`Backend::read`]; backends override it
    /// to copy once.
    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let item = src.dtype().itemsize();
        let v = self.read(src, offset, dst.len() / item.max(1))?;
        dst.copy_from_slice(&v);
        Ok(())
    }

    /// Device-side timing: queues a start marker, calls `work` (which queues device work),
    /// queues an end marker, waits, and returns the elapsed device time in seconds (CUDA/HIP
    /// events). `None` where the device has no timer; the caller then times on the host.
    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        work()?;
        Ok(None)
    }

    /// The language of native kernels ([`Backend::raw_launch`]), if the device takes any.
    fn native_language(&self) -> Option<NativeLanguage> {
        None
    }

    /// Compiles (and caches) a native module without launching it, so compile errors surface
    /// early. [`Error::Compile`] carries the compiler log. `name_expressions` (C++ on
    /// CUDA/HIP: `"f<float>"`, a template's instantiations) are added to the program before it
    /// is compiled, as `RawModule`'s `name_expressions` (nvrtcAddNameExpression /
    /// hiprtcAddNameExpression); a launch then finds a kernel by its name expression.
    fn raw_compile(
        &self,
        source: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<()> {
        let _ = (source, options, name_expressions);
        Err(Error::Unsupported {
            op: "RawModule".into(),
            backend: self.info().label(),
            reason: "this backend takes no native kernel source".into(),
        })
    }

    /// Queues a native kernel launch (compiling and caching the module on first use).
    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        Err(Error::Unsupported {
            op: format!("RawKernel {}", call.name),
            backend: self.info().label(),
            reason: "this backend takes no native kernel source".into(),
        })
    }

    /// Queues an inclusive scan ([`ScanCall`]).
    fn scan(&self, call: &ScanCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "scan".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Whether [`Backend::sort`] reads [`SortCall::source`] (an out-of-place sort: no copy of
    /// the keys first). Backends that answer `false` (the default) refuse a call with a source.
    fn sort_reads_source(&self) -> bool {
        false
    }

    /// Queues a sort ([`SortCall`]).
    fn sort(&self, call: &SortCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "sort".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Whether [`Backend::compress`] is implemented: the frontend otherwise compacts through a
    /// scan of the mask and an elementwise scatter.
    fn compresses(&self) -> bool {
        false
    }

    /// Queues a stream compaction ([`CompressCall`]), when [`Backend::compresses`].
    fn compress(&self, call: &CompressCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "compress".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Queues a batched 1-D FFT ([`crate::fft::FftCall`]).
    fn fft(&self, call: &crate::fft::FftCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: format!("fft ({})", call.kind.name()),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Queues a selection ([`SelectCall`]). Callers fall back to [`Backend::sort`] on
    /// [`Error::Unsupported`] (the default).
    fn select(&self, call: &SelectCall<'_>) -> Result<()> {
        let _ = call;
        Err(Error::Unsupported {
            op: "select".into(),
            backend: self.info().label(),
            reason: "not implemented on this backend".into(),
        })
    }

    /// Controls the device's FFT plan cache (keyed by length, batch, kind, precision; the
    /// device is the backend). The default: a backend without one reports an empty cache.
    fn fft_plan_cache(&self, op: crate::fft::PlanCacheOp) -> Result<crate::fft::PlanCacheInfo> {
        let _ = op;
        Ok(crate::fft::PlanCacheInfo::default())
    }

    /// Queues a batched dense factorization ([`LinalgCall`]). The default is `Unsupported`;
    /// the frontend then runs the cpu backend's faer implementation through a host round trip
    /// (documented in `docs/backends.md`).
    fn linalg(&self, call: &LinalgCall<'_>) -> Result<()> {
        Err(Error::Unsupported {
            op: call.op.name().into(),
            backend: self.info().label(),
            reason: "no native dense linear algebra on this backend".into(),
        })
    }

    /// The device's native stream capture (CUDA/HIP graphs, [`graph`]); `None` (the default)
    /// where the frontend records the calls of a capture instead (wgpu, the cpu).
    fn graph_capture(&self) -> Option<&dyn GraphCapture> {
        None
    }

    /// The device's collective library (NCCL, RCCL: [`collective`]); `None` where the vendor
    /// has none (the frontend's host communicator serves wgpu and the cpu).
    fn collectives(&self) -> Option<&dyn collective::CollectiveBackend> {
        None
    }

    /// The device's vendor sparse library (cuSPARSE, rocSPARSE: [`sparse`]); `None` (the
    /// default) where the vendor has none (the frontend's IR kernels serve wgpu and the cpu).
    fn sparse_library(&self) -> Option<&dyn sparse::SparseLibrary> {
        None
    }

    /// Copies `bytes` bytes from `src` (from byte `src_offset`), a buffer of another device
    /// `src_device` of the same backend family, into `dst` at byte `dst_offset` on this device,
    /// without a host round trip (`cuMemcpyPeerAsync`). `Ok(false)` where the backend has no
    /// such path (the caller then copies through the host). A call with `bytes == 0` copies
    /// nothing and answers whether the path exists.
    ///
    /// # Errors
    /// Device errors.
    fn copy_from_peer(
        &self,
        src_device: &dyn Backend,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        let _ = (src_device, src, src_offset, dst, dst_offset, bytes);
        Ok(false)
    }

    // ---- streams and events ([`stream`]) ----

    /// Creates a stream (`cupy.cuda.Stream(non_blocking=...)`). The default `Ok(None)`: the
    /// device has one queue, and every stream is its default stream (wgpu, the cpu).
    ///
    /// # Errors
    /// Device errors.
    fn stream_create(&self, non_blocking: bool) -> Result<Option<NativeStream>> {
        let _ = non_blocking;
        Ok(None)
    }

    /// Waits for the work queued on `stream` (`None`: the default stream). The default waits
    /// for the whole device.
    ///
    /// # Errors
    /// Device errors that surfaced while waiting.
    fn stream_synchronize(&self, stream: Option<&NativeStream>) -> Result<()> {
        let _ = stream;
        self.synchronize()
    }

    /// Whether all work queued on `stream` is done, without waiting for it. The default
    /// (for backends that run work as it is queued, or wait anyway) synchronizes and says yes.
    ///
    /// # Errors
    /// Device errors.
    fn stream_query(&self, stream: Option<&NativeStream>) -> Result<bool> {
        self.stream_synchronize(stream)?;
        Ok(true)
    }

    /// Makes future work on `stream` wait until `event`'s record is done (on the device, not
    /// the host). The default does nothing: its events complete when recorded.
    ///
    /// # Errors
    /// Device errors; an event of another backend.
    fn stream_wait_event(&self, stream: Option<&NativeStream>, event: &NativeEvent) -> Result<()> {
        let _ = (stream, event);
        Ok(())
    }

    /// Creates an event (`cupy.cuda.Event`); `timing` as `disable_timing=False`. The default is
    /// a [`stream::HostEvent`].
    ///
    /// # Errors
    /// Device errors.
    fn event_create(&self, timing: bool) -> Result<NativeEvent> {
        Ok(Arc::new(stream::HostEvent::new(timing)))
    }

    /// Records `event` on `stream`: it completes when the work queued there before it is
    /// done. The default waits for the device, then stamps the host clock.
    ///
    /// # Errors
    /// Device errors; an event of another backend.
    fn event_record(&self, event: &NativeEvent, stream: Option<&NativeStream>) -> Result<()> {
        let ev = stream::host_event("Event.record", event)?;
        self.stream_synchronize(stream)?;
        ev.complete_now();
        Ok(())
    }

    /// Waits on the host until `event` completes (an unrecorded event is complete).
    ///
    /// # Errors
    /// Device errors; an event of another backend.
    fn event_synchronize(&self, event: &NativeEvent) -> Result<()> {
        stream::host_event("Event.synchronize", event).map(|_| ())
    }

    /// Whether `event` is complete, without waiting.
    ///
    /// # Errors
    /// Device errors; an event of another backend.
    fn event_query(&self, event: &NativeEvent) -> Result<bool> {
        Ok(stream::host_event("Event.query", event)?.is_done())
    }

    /// Milliseconds between two completed events (`cupy.cuda.get_elapsed_time`).
    ///
    /// # Errors
    /// `InvalidArgument` for events with timing disabled, unrecorded or not complete; events of
    /// another backend.
    fn event_elapsed_ms(&self, start: &NativeEvent, end: &NativeEvent) -> Result<f32> {
        stream::HostEvent::elapsed_ms(
            stream::host_event("get_elapsed_time", start)?,
            stream::host_event("get_elapsed_time", end)?,
        )
    }

    /// Page-locked (pinned) host memory of `bytes` bytes for fast, asynchronous transfers
    /// (`cuMemHostAlloc`, `hipHostMalloc`); returns its host address. `Ok(None)` where the
    /// backend has none: the caller uses ordinary host memory (cpu, wgpu).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the driver refuses.
    fn pinned_alloc(&self, bytes: usize) -> Result<Option<u64>> {
        let _ = bytes;
        Ok(None)
    }

    /// Frees a block of [`Backend::pinned_alloc`].
    ///
    /// # Safety
    /// `address` came from this backend's `pinned_alloc`, is freed once, and no queued copy
    /// uses it.
    unsafe fn pinned_free(&self, address: u64) {
        let _ = address;
    }

    /// Queues a copy of `bytes` bytes of host memory at `src` into `dst` from element
    /// `offset`, on the current stream, and returns without waiting where the device can
    /// (cuda and hip, from pinned memory); the default copies at once through
    /// [`Backend::write`].
    ///
    /// # Safety
    /// `src` holds `bytes` readable bytes that stay valid and unchanged until the current
    /// stream's queued work is done.
    ///
    /// # Errors
    /// As [`Backend::write`].
    unsafe fn write_async(
        &self,
        dst: &Buffer,
        offset: usize,
        src: *const u8,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        let data = unsafe { std::slice::from_raw_parts(src, bytes) };
        self.write(dst, offset, data)
    }

    /// Queues a copy of `bytes` bytes of `src` from element `offset` into host memory at `dst`,
    /// on the current stream, without waiting where the device can; the default copies at
    /// once through [`Backend::read_into`] (after all queued work).
    ///
    /// # Safety
    /// `dst` holds `bytes` writable bytes that stay valid, and are neither read nor written by
    /// the host, until the current stream's queued work is done.
    ///
    /// # Errors
    /// As [`Backend::read_into`].
    unsafe fn read_async(
        &self,
        src: &Buffer,
        offset: usize,
        dst: *mut u8,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(dst, bytes) };
        self.read_into(src, offset, out)
    }
}

/// A backend primitive that is not an IR kernel, for capability queries
/// ([`BackendProvider::check_primitive`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// [`Backend::gemm`] of a float or complex dtype.
    Gemm,
    /// [`Backend::sort`] (sort and argsort).
    Sort,
    /// [`Backend::scan`] (cumsum, cumprod).
    Scan,
    /// [`Backend::raw_launch`] of backend-native source (the dtype is ignored).
    RawKernel,
    /// [`Backend::fft`] of a complex dtype (complex64, complex128: the precision).
    Fft,
    /// [`Backend::linalg`] of a float32/float64/complex64/complex128 matrix.
    Linalg,
    /// Zero-copy exchange (DLPack): [`DeviceBuffer::address`] and [`Backend::wrap_external`].
    ExternalMemory,
}

/// Finds and opens the devices of one backend family. Probing never panics: a missing library or
/// driver is an `Err` with the reason, kept for `show_config()`.
pub trait BackendProvider: Send + Sync {
    /// The family.
    fn kind(&self) -> BackendKind;
    /// Lists devices, or says why there are none.
    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String>;
    /// Opens device `index` of the list `probe` returned.
    fn open(&self, index: usize) -> Result<Arc<dyn Backend>>;
    /// Whether this backend's code generation accepts an elementwise `kernel`, for a device with
    /// every optional feature the backend can use (no device is opened; e.g. wgpu assumes
    /// `SHADER_F64` and `SHADER_INT64`). `Err` says why not. `docs/api-coverage.md` is made from
    /// these answers.
    fn check_kernel(&self, kernel: &Kernel) -> std::result::Result<(), String> {
        kernel.validate().map_err(|e| e.to_string())
    }
    /// As [`BackendProvider::check_kernel`], for a reduction kernel.
    fn check_reduction(&self, kernel: &ReduceKernel) -> std::result::Result<(), String> {
        let _ = kernel;
        Ok(())
    }
    /// Whether this backend implements `primitive` for `dtype` (no device is opened; the same
    /// rule the backend applies when called). The default: not implemented.
    fn check_primitive(
        &self,
        primitive: Primitive,
        dtype: DType,
    ) -> std::result::Result<(), String> {
        let _ = dtype;
        Err(format!("{primitive:?} is not implemented by this backend"))
    }
}

/// Helper for backends: the standard refusal of a dtype.
pub fn dtype_unsupported(
    op: &str,
    dtype: DType,
    info: &DeviceInfo,
    reason: impl Into<String>,
) -> Error {
    Error::DTypeNotSupported {
        op: op.into(),
        dtype,
        device: info.label(),
        reason: reason.into(),
    }
}
