//! cupy-cuda: the CUDA backend of cupy-rs.
//!
//! Everything NVIDIA is loaded at run time through cudarc's dynamic loading (libcuda, libnvrtc,
//! libcublas, libcusolver, libcusparse), so this crate builds without a CUDA install and a machine without the libraries
//! reports why in [`CudaProvider`]'s `probe` instead of panicking.
//!
//! - One context (the device's primary context) and a default stream per backend; work is queued
//!   on the thread's current stream (`cupy::cuda::with_stream`; the default one outside), in
//!   submission order per stream (`streams.rs`). `read` waits for the current stream,
//!   `synchronize` for the whole device.
//! - A caching allocator ([`alloc`]) with size-class bins.
//! - Elementwise and reduction kernels are emitted by [`cupy_core::kernel::cpp`] and compiled by
//!   NVRTC for the device's exact `sm_XX` ([`compile`]), cached in memory and on disk. Their
//!   launches (layout class, index width, grids, argument packing, the reduction's splits) and
//!   the scan/sort plans of `hip-kernels/` are shared with the HIP backend
//!   ([`cupy_core::gpu::launch`], [`cupy_core::gpu::sortscan`]): this crate implements
//!   [`GpuDriver`](cupy_core::gpu::launch::GpuDriver) with its driver calls.
//! - GEMM through cuBLAS (the `gemm` module); dense linear algebra through cuSOLVER (the
//!   `solver` module implements the library calls of [`cupy_core::gpu::solver`]'s shared
//!   plans; loaded on the first `linalg` call; `eig` still runs on the host).
//! - Sparse SpMV/SpMM, SpGEMM and triangular solves through cuSPARSE's generic API (the
//!   `sparse` module: [`cupy_core::backend::sparse::SparseLibrary`]), loaded on first use.
#![warn(missing_docs)]

pub mod alloc;
pub mod compile;
mod driver;
mod fft;
mod gemm;
mod graph;
pub mod nccl;
mod pinned;
mod provider;
mod raw;
mod solver;
mod sparse;
mod streams;
mod transfer;

// The hand-written kernels of `hip-kernels/` (shared with the HIP backend) and their scan and
// sort plans, compiled by NVRTC for warp size 32.
use cupy_core::gpu::sortscan as hk;

pub use alloc::CudaBuffer;
pub use graph::CudaGraph;
pub use provider::CudaProvider;
pub use raw::check_raw_dims;
pub use streams::{CudaEvent, CudaUserStream};

use alloc::{size_class, Pool};
use compile::{CompileStats, Compiler};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use cupy_core::backend::{
    dtype_unsupported, Backend, Buffer, DeviceInfo, ElementwiseCall, GemmCall, NativeEvent,
    NativeLanguage, NativeStream, Operand, RawLaunch, ReductionCall,
};
use cupy_core::gpu::launch::{self, DevBuf, KernelCaches};
use cupy_core::kernel::ir::Kernel;
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result, Scalar};
use provider::{device_info, driver_present, guarded, unavailable};
use std::sync::{Arc, OnceLock};

/// A CUDA function handle.
#[derive(Clone, Copy, Debug)]
pub struct CudaFunction(sys::CUfunction);

// SAFETY: function handles are usable from any thread with the context bound (as `Module`).
unsafe impl Send for CudaFunction {}
// SAFETY: as above.
unsafe impl Sync for CudaFunction {}

/// One CUDA device.
pub struct CudaBackend {
    // Field order is drop order: cuBLAS and modules go before the stream and context.
    blas: OnceLock<std::result::Result<gemm::Blas, Error>>,
    // cuSOLVER, opened on the first linalg call (`Err`: why it is unavailable).
    solver: OnceLock<std::result::Result<solver::Solver, String>>,
    // cuSPARSE, opened on the first sparse library call (`Err`: why it is unavailable).
    sparse: OnceLock<std::result::Result<sparse::CuSparse, String>>,
    fft_plans: fft::Plans,
    staging: transfer::Staging,
    info: DeviceInfo,
    sms: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    lane: Arc<streams::LibLane>,
    kernels: KernelCaches<CudaFunction>,
    compiler: Compiler,
    pool: Arc<Pool>,
    // NCCL (`cupy::distributed`), set up on the first `collectives` call; the library itself
    // loads on the first collective operation.
    collectives: OnceLock<cupy_core::gpu::nccl::NcclCollectives<nccl::CudaCommDevice>>,
    // Peer contexts this context has enabled access to (`to_device` between CUDA devices).
    peers: std::sync::Mutex<Vec<usize>>,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaBackend({})", self.info.label())
    }
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
            // SAFETY: we never use CudaSlice; our buffers are ordered by our streams and events.
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
                lane: Default::default(),
                compiler: Compiler::new(cc, label),
                kernels: Default::default(),
                blas: OnceLock::new(),
                solver: OnceLock::new(),
                sparse: OnceLock::new(),
                fft_plans: Default::default(),
                collectives: OnceLock::new(),
                peers: Default::default(),
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

    /// Checks an operand: our buffer, its dtype, and every addressed element inside it.
    fn operand<'a>(&self, op: &str, o: &Operand<'a>, dtype: DType) -> Result<&'a CudaBuffer> {
        launch::check_operand(self, op, o, dtype)?;
        self.buf(o.buffer, op)
    }

    fn ptr_at(b: &CudaBuffer, offset: usize) -> u64 {
        dev(b).at(offset)
    }

    /// Queues an elementwise launch on already-checked operands (shared planning:
    /// [`launch::run_elementwise`]).
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
        let ins: Vec<(DevBuf, &Layout)> = ins.iter().map(|(b, l)| (dev(b), *l)).collect();
        let outs: Vec<(DevBuf, &Layout)> = outs.iter().map(|(b, l)| (dev(b), *l)).collect();
        let raws: Vec<(DevBuf, usize)> = raws.iter().map(|(b, o)| (dev(b), *o)).collect();
        launch::run_elementwise(self, k, shape, &ins, &outs, &raws, params)
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

    /// The thread's current stream ([`CudaBackend::cur_stream`]), for the library handles.
    pub(crate) fn stream_ptr(&self) -> sys::CUstream {
        self.cur_stream()
    }

    /// The backend's own (default) stream.
    pub(crate) fn default_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let _ = self.stream.synchronize();
    }
}

fn dev(b: &CudaBuffer) -> DevBuf {
    DevBuf {
        ptr: b.ptr,
        len: b.len,
        dtype: b.dtype,
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
                stream: 0,
                len,
                dtype,
                pool: self.pool.clone(),
                external: None,
            }));
        }
        self.bind()?;
        let class = size_class(bytes);
        let tag = self.stream_tag();
        match self.pool.take_on(tag, class) {
            Ok(ptr) => Ok(Arc::new(CudaBuffer {
                ptr,
                class,
                stream: tag,
                len,
                dtype,
                pool: self.pool.clone(),
                external: None,
            })),
            Err((true, detail)) => Err(Error::OutOfMemory {
                device: self.info.label(),
                requested: bytes,
                detail,
            }),
            Err((false, msg)) => Err(self.err(msg)),
        }
    }

    unsafe fn wrap_external(
        &self,
        address: u64,
        dtype: DType,
        len: usize,
        keep_alive: cupy_core::KeepAlive,
    ) -> Result<Buffer> {
        self.check_dtypes("from_dlpack", &[dtype])?;
        cupy_core::backend::check_external_alignment(address, dtype)?;
        // Class 0: never given back to the pool; `external` drops with the buffer.
        Ok(Arc::new(CudaBuffer {
            ptr: address,
            class: 0,
            stream: 0,
            len,
            dtype,
            pool: self.pool.clone(),
            external: Some(keep_alive),
        }))
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
        let stream = self.cur_stream();
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
        let stream = self.cur_stream();
        if dst.len() >= transfer::staging_threshold() {
            // SAFETY: range checked; our stream and bound context; returns when `dst` is filled.
            return unsafe { self.staging.download(stream, from, dst) }
                .map_err(|e| self.err(format!("device-to-host copy (pinned staging): {e}")));
        }
        // SAFETY: range checked; we synchronize before `dst` is released to the caller.
        unsafe { result::memcpy_dtoh_async(dst, from, stream) }
            .map_err(|e| self.err(format!("device-to-host copy failed: {e:?}")))?;
        // SAFETY: the current stream of the bound context.
        unsafe { result::stream::synchronize(stream) }
            .map_err(|e| self.err(format!("synchronize failed: {e:?}")))
    }

    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        self.bind()?;
        let ev = transfer::EventPair::new().map_err(|e| self.err(e))?;
        let stream = self.cur_stream();
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
        launch::elementwise(self, call)
    }

    fn elementwise_block(&self, call: &ElementwiseCall<'_>, block_size: u32) -> Result<()> {
        launch::elementwise_block(self, call, Some(block_size))
    }

    fn elementwise_opts(
        &self,
        call: &ElementwiseCall<'_>,
        block_size: Option<u32>,
        options: &[String],
    ) -> Result<()> {
        launch::elementwise_opts(self, call, block_size, options)
    }

    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        launch::reduce(self, call)
    }

    fn reduce_opts(&self, call: &ReductionCall<'_>, options: &[String]) -> Result<()> {
        launch::reduce_opts(self, call, options)
    }

    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        gemm::gemm(self, call)
    }

    fn linalg(&self, call: &cupy_core::backend::LinalgCall<'_>) -> Result<()> {
        cupy_core::gpu::solver::linalg(self, call)
    }

    fn sparse_library(&self) -> Option<&dyn cupy_core::backend::sparse::SparseLibrary> {
        Some(self)
    }

    fn native_language(&self) -> Option<NativeLanguage> {
        Some(NativeLanguage::Cuda)
    }

    fn raw_compile(&self, source: &str, options: &[String], names: &[String]) -> Result<()> {
        self.bind()?;
        self.compiler
            .raw_module("RawModule", source, options, names)
            .map(|_| ())
    }

    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        self.raw_run(call)
    }

    fn scan(&self, call: &cupy_core::backend::ScanCall<'_>) -> Result<()> {
        hk::scan(self, call)
    }

    fn sort_reads_source(&self) -> bool {
        true
    }

    fn sort(&self, call: &cupy_core::backend::SortCall<'_>) -> Result<()> {
        hk::sort(self, call)
    }

    fn fft(&self, call: &cupy_core::fft::FftCall<'_>) -> Result<()> {
        fft::fft(self, call)
    }

    fn fft_plan_cache(
        &self,
        op: cupy_core::fft::PlanCacheOp,
    ) -> Result<cupy_core::fft::PlanCacheInfo> {
        fft::plan_cache(self, op)
    }

    fn compresses(&self) -> bool {
        true
    }

    fn compress(&self, call: &cupy_core::backend::CompressCall<'_>) -> Result<()> {
        hk::compress(self, call)
    }

    fn select(&self, call: &cupy_core::backend::SelectCall<'_>) -> Result<()> {
        hk::select(self, call)
    }

    fn collectives(&self) -> Option<&dyn cupy_core::backend::collective::CollectiveBackend> {
        Some(self.collectives.get_or_init(|| {
            cupy_core::gpu::nccl::NcclCollectives::new(
                &nccl::NCCL,
                nccl::load,
                "cuda",
                nccl::CudaCommDevice {
                    label: self.info.label(),
                    ctx: self.ctx.clone(),
                    default: self.stream.clone(),
                    key: cupy_core::backend::stream::backend_key(self),
                },
            )
        }))
    }

    fn copy_from_peer(
        &self,
        _src_device: &dyn Backend,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        self.peer_copy(src, src_offset, dst, dst_offset, bytes)
    }

    fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.ctx
            .synchronize()
            .map_err(|e| self.err(format!("synchronize failed: {e:?}")))
    }

    fn stream_create(&self, non_blocking: bool) -> Result<Option<NativeStream>> {
        self.stream_create_impl(non_blocking)
    }

    fn stream_synchronize(&self, stream: Option<&NativeStream>) -> Result<()> {
        self.stream_synchronize_impl(stream)
    }

    fn stream_query(&self, stream: Option<&NativeStream>) -> Result<bool> {
        self.stream_query_impl(stream)
    }

    fn stream_wait_event(&self, stream: Option<&NativeStream>, event: &NativeEvent) -> Result<()> {
        self.stream_wait_event_impl(stream, event)
    }

    fn event_create(&self, timing: bool) -> Result<NativeEvent> {
        self.event_create_impl(timing)
    }

    fn event_record(&self, event: &NativeEvent, stream: Option<&NativeStream>) -> Result<()> {
        self.event_record_impl(event, stream)
    }

    fn event_synchronize(&self, event: &NativeEvent) -> Result<()> {
        self.event_synchronize_impl(event)
    }

    fn event_query(&self, event: &NativeEvent) -> Result<bool> {
        self.event_query_impl(event)
    }

    fn event_elapsed_ms(&self, start: &NativeEvent, end: &NativeEvent) -> Result<f32> {
        self.event_elapsed_impl(start, end)
    }
    fn pinned_alloc(&self, bytes: usize) -> Result<Option<u64>> {
        self.pinned_alloc_impl(bytes)
    }

    unsafe fn pinned_free(&self, address: u64) {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.pinned_free_impl(address) }
    }

    unsafe fn write_async(
        &self,
        dst: &Buffer,
        offset: usize,
        src: *const u8,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.write_async_impl(dst, offset, src, bytes) }
    }

    unsafe fn read_async(
        &self,
        src: &Buffer,
        offset: usize,
        dst: *mut u8,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.read_async_impl(src, offset, dst, bytes) }
    }

    fn pool_stats(&self) -> cupy_core::gpu::pool::PoolStats {
        self.pool.0.stats()
    }

    fn graph_capture(&self) -> Option<&dyn cupy_core::backend::GraphCapture> {
        Some(self)
    }

    fn pool_free_all_blocks(&self) -> Result<usize> {
        self.bind()?;
        Ok(self.pool.trim())
    }

    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        self.pool.0.set_limit(limit);
        Ok(())
    }
}
