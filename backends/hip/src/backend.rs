//! The HIP backend: [`HipProvider`] (discovery) and [`HipBackend`] (one device, its streams, a
//! caching allocator, a module cache, rocBLAS for GEMM, rocFFT, rocSOLVER for linalg).
//!
//! Elementwise and reduction launches, the kernel caches, the disk cache and the scan/sort plans
//! are shared with the CUDA backend ([`cupy_core::gpu::launch`],
//! [`cupy_core::gpu::disk_cache`], [`cupy_core::gpu::sortscan`]); `driver.rs` implements
//! their [`GpuDriver`] trait with HIP calls, `raw.rs` the raw (user) kernels. The linalg plans
//! are shared too ([`cupy_core::gpu::solver`]); `solver.rs` implements their `SolverDriver`
//! with rocSOLVER; `sparse.rs` the sparse library calls with rocSPARSE.

use crate::cache;
use crate::kernels;
use crate::result::{version_string, Hip, HipError, Rocblas, Rtc};
use crate::sys::hip as h;
use crate::sys::rocblas as rb;
use cupy_core::backend::{
    dtype_unsupported, Backend, BackendKind, BackendProvider, Buffer, DeviceBuffer, DeviceInfo,
    ElementwiseCall, GemmCall, NativeEvent, NativeLanguage, NativeStream, Operand, RawLaunch,
    ReductionCall,
};
use cupy_core::gpu::disk_cache::{raw_module_key_named, CompileStats};
use cupy_core::gpu::launch::{self, DevBuf, GpuDriver, KernelCaches};
use cupy_core::gpu::pool::{size_class, AllocFailure, CachingPool, PoolDriver};
use cupy_core::kernel::cpp::Flavor;
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result, Scalar};
use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

mod driver;
mod fft;
mod gemm;
mod graph;
mod memory;
mod provider;
mod raw;
mod rccl;
mod solver;
mod sortscan;
mod sparse;
mod streams;

use gemm::*;
pub use graph::HipGraph;
use memory::*;
pub use memory::{Handle, HipBuffer};
use provider::*;
pub use provider::{probe_devices, HipProvider};
pub use solver::{load_rocsolver, unavailable_reason as rocsolver_unavailable_reason};
pub use streams::{HipEvent, HipUserStream};

struct Blas {
    api: Arc<Rocblas>,
    handle: Handle,
}

/// A loaded raw module and the lowered name of each of its name expressions.
type RawModuleEntry = (Handle, HashMap<String, String>);

/// One AMD GPU.
pub struct HipBackend {
    hip: Arc<Hip>,
    dev: i32,
    info: DeviceInfo,
    arch: String,
    cus: usize,
    stream: Handle,
    pool: Arc<Pool>,
    modules: Mutex<Vec<Handle>>,
    /// Prepared generated kernels and `hip-kernels/` modules (shared launch code).
    kernels: KernelCaches<Handle>,
    /// Disk hits and compiles.
    stats: CompileStats,
    /// Raw (user) modules by hash of (source, options), and their functions by name.
    /// Raw modules by key, with the lowered name of each of their name expressions.
    raw_modules: Mutex<HashMap<String, RawModuleEntry>>,
    raw_funcs: Mutex<HashMap<(String, String), Handle>>,
    blas: Mutex<Option<std::result::Result<Blas, String>>>,
    /// rocFFT plans ([`fft`]).
    fft_plans: fft::RocPlans,
    /// rocSOLVER and its handle ([`solver`]), opened on the first `linalg` call.
    solver: OnceLock<std::result::Result<solver::RocSolver, String>>,
    /// rocSPARSE and its handle (`sparse.rs`), opened on the first sparse library call.
    sparse: OnceLock<std::result::Result<sparse::RocSparse, String>>,
    /// Serialises submissions to the stream.
    submit: Mutex<()>,
    /// The stream of the last library call ([`streams`]).
    lane: Arc<streams::LibLane>,
    /// RCCL (`cupy::distributed`), set up on the first `collectives` call.
    collectives: OnceLock<rccl::HipCollectives>,
}

impl fmt::Debug for HipBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HipBackend({}, {})", self.info.label(), self.arch)
    }
}

impl HipBackend {
    /// Opens device `index`.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] with the reason (library missing, no GPU, index out of range).
    pub fn open(index: usize) -> Result<HipBackend> {
        let devices = probe_devices().map_err(unavailable)?;
        let info = devices.get(index).cloned().ok_or_else(|| {
            unavailable(format!(
                "device index {index} requested but only {} HIP device(s) found",
                devices.len()
            ))
        })?;
        let hip = Hip::get().map_err(unavailable)?;
        let dev = index as i32;
        let label = info.label();
        let be = |e: HipError| Error::Backend {
            backend: label.clone(),
            msg: e.to_string(),
        };
        hip.set_device(dev).map_err(be)?;
        let arch = hip.arch_name(dev).map_err(be)?;
        if arch.is_empty() {
            return Err(unavailable(format!(
                "{label}: could not read the device's gcnArchName (unknown hipDeviceProp_t layout?)"
            )));
        }
        let cus = hip
            .attribute(h::hipDeviceAttributeMultiprocessorCount, dev)
            .unwrap_or(64)
            .max(1) as usize;
        let stream = Handle(hip.stream_create().map_err(be)?);
        let pool = Arc::new(Pool {
            inner: CachingPool::new(HipPoolDriver {
                hip: hip.clone(),
                dev,
                stream: Mutex::new(Some(stream)),
            }),
            label: label.clone(),
        });
        Ok(HipBackend {
            hip,
            dev,
            info,
            arch,
            cus,
            stream,
            pool,
            modules: Mutex::new(vec![]),
            kernels: KernelCaches::default(),
            stats: CompileStats::default(),
            raw_modules: Mutex::new(HashMap::new()),
            raw_funcs: Mutex::new(HashMap::new()),
            blas: Mutex::new(None),
            fft_plans: Default::default(),
            solver: OnceLock::new(),
            sparse: OnceLock::new(),
            submit: Mutex::new(()),
            lane: Default::default(),
            collectives: OnceLock::new(),
        })
    }

    /// The device's full gfx target (`gcnArchName`), e.g. `gfx90a:sramecc+:xnack-`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Compile-cache counters (disk hits, hipRTC compiles).
    pub fn compile_stats(&self) -> &CompileStats {
        &self.stats
    }

    fn err(&self, e: impl fmt::Display) -> Error {
        Error::Backend {
            backend: self.info.label(),
            msg: e.to_string(),
        }
    }

    fn current(&self) -> Result<()> {
        self.hip.set_device(self.dev).map_err(|e| self.err(e))
    }

    fn buf<'a>(&self, op: &str, b: &'a Buffer) -> Result<&'a HipBuffer> {
        b.as_any()
            .downcast_ref::<HipBuffer>()
            .ok_or_else(|| Error::DeviceMismatch {
                op: op.into(),
                lhs: self.info.label(),
                rhs: format!("{b:?}"),
            })
    }

    /// Compiles (or loads from the disk cache) `source` for this device and resolves `entries`.
    fn build(
        &self,
        name: &str,
        source: &str,
        entries: &[String],
        extra: &[String],
    ) -> Result<Vec<Handle>> {
        let rtc = Rtc::get().map_err(|e| self.err(format!("hipRTC unavailable: {e}")))?;
        let opts = kernels::compile_options_with(&self.arch, extra);
        self.current()?;
        let module = cache::compile_cached(
            &rtc,
            &self.info.label(),
            name,
            source,
            &self.arch,
            &opts,
            &self.stats,
            |code| {
                self.hip
                    .module_load(code)
                    .map_err(|e| self.err(format!("kernel {name}: {e}")))
            },
        )?;
        self.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Handle(module));
        entries
            .iter()
            .map(|en| {
                // SAFETY: `module` was just loaded and stays loaded until the backend drops.
                unsafe { self.hip.module_function(module, en) }
                    .map(Handle)
                    .map_err(|e| self.err(format!("kernel {name}: {e}")))
            })
            .collect()
    }

    fn check_dtypes(&self, op: &str, dtypes: &[DType]) -> Result<()> {
        for d in dtypes {
            if let Err(r) = self.supports_dtype(*d) {
                return Err(dtype_unsupported(op, *d, &self.info, r));
            }
        }
        Ok(())
    }

    fn rocblas(
        &self,
    ) -> Result<std::sync::MutexGuard<'_, Option<std::result::Result<Blas, String>>>> {
        let mut g = self.blas.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            let made = (|| -> std::result::Result<Blas, String> {
                let api = Rocblas::get()?;
                self.current().map_err(|e| e.to_string())?;
                let mut hd: rb::rocblas_handle = std::ptr::null_mut();
                // SAFETY: out pointer to a local.
                api.check("rocblas_create_handle", unsafe {
                    (api.api.rocblas_create_handle)(&mut hd)
                })
                .map_err(|e| e.to_string())?;
                Ok(Blas {
                    api,
                    handle: Handle(hd),
                })
            })();
            *g = Some(made);
        }
        if let Some(Err(e)) = &*g {
            return Err(Error::Unsupported {
                op: "matmul".into(),
                backend: self.info.label(),
                reason: format!("rocBLAS is needed for GEMM on HIP: {e}"),
            });
        }
        if let Some(Ok(b)) = &*g {
            // The caller holds the guard through its call: the handle's stream is the thread's
            // current stream for that call.
            self.current()?;
            // SAFETY: valid handle; the current stream of our device.
            b.api
                .check("rocblas_set_stream", unsafe {
                    (b.api.api.rocblas_set_stream)(b.handle.0, self.cur_stream())
                })
                .map_err(|e| self.err(e))?;
            self.order_library()?;
        }
        Ok(g)
    }

    /// Copies `src` (any layout) into `dst` (any layout) of the same shape with a generated
    /// elementwise kernel.
    fn copy(&self, src: &Operand<'_>, dst: &Operand<'_>) -> Result<()> {
        let d = dst.buffer.dtype();
        let k = Kernel::map(
            &format!("copy_{}", d.name()),
            vec![src.buffer.dtype()],
            vec![],
            Expr::input(0, src.buffer.dtype()).cast(d),
        );
        self.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: dst.layout.shape.clone(),
            inputs: vec![src.clone()],
            outputs: vec![dst.clone()],
            raws: vec![],
            params: vec![],
        })
    }
}

impl Drop for HipBackend {
    fn drop(&mut self) {
        let _ = self.hip.set_device(self.dev);
        // SAFETY: our stream; everything below is destroyed once, after the stream drained.
        unsafe {
            let _ = (self.hip.api.hipDeviceSynchronize)();
            // rocFFT plans (their execution infos name our stream) go first.
            self.fft_plans
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .control(cupy_core::fft::PlanCacheOp::Clear);
            if let Some(Ok(s)) = self.solver.take() {
                s.destroy();
            }
            if let Some(Ok(s)) = self.sparse.take() {
                s.destroy();
            }
            if let Some(Ok(b)) = self
                .blas
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .take()
            {
                let _ = (b.api.api.rocblas_destroy_handle)(b.handle.0);
            }
            for m in self
                .modules
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .drain(..)
            {
                let _ = self.hip.module_unload(m.0);
            }
        }
        self.pool.empty_cache();
        *self.pool.stream().lock().unwrap_or_else(|e| e.into_inner()) = None;
        // SAFETY: no work remains on the stream and nothing refers to it any more.
        let _ = unsafe { self.hip.stream_destroy(self.stream.0) };
    }
}

impl Backend for HipBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn supports_dtype(&self, _dtype: DType) -> std::result::Result<(), String> {
        // Every dtype, complex included; ops without a complex kernel (sort, scan, atomic
        // scatter updates) refuse it themselves.
        Ok(())
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer> {
        self.supports_dtype(dtype)
            .map_err(|r| dtype_unsupported("alloc", dtype, &self.info, r))?;
        let bytes = len
            .checked_mul(dtype.itemsize())
            .ok_or_else(|| Error::OutOfMemory {
                device: self.info.label(),
                requested: usize::MAX,
                detail: format!("{len} elements of {dtype} overflow the address space"),
            })?;
        let tag = self.stream_tag();
        let (ptr, size) = if bytes == 0 {
            (0, 0)
        } else {
            self.pool.alloc_on(tag, bytes)?
        };
        Ok(Arc::new(HipBuffer {
            ptr,
            stream: tag,
            len,
            dtype,
            bytes: size,
            pool: self.pool.clone(),
            external: None,
        }))
    }

    unsafe fn wrap_external(
        &self,
        address: u64,
        dtype: DType,
        len: usize,
        keep_alive: cupy_core::KeepAlive,
    ) -> Result<Buffer> {
        cupy_core::backend::check_external_alignment(address, dtype)?;
        // `bytes == 0`: never released to the pool; `external` drops with the buffer.
        Ok(Arc::new(HipBuffer {
            ptr: address,
            stream: 0,
            len,
            dtype,
            bytes: 0,
            pool: self.pool.clone(),
            external: Some(keep_alive),
        }))
    }

    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let b = self.buf("write", dst)?;
        let item = b.dtype.itemsize();
        if !data.len().is_multiple_of(item) || offset + data.len() / item > b.len {
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
        self.current()?;
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: bounds checked above; we wait for the copy before `data` is released.
        unsafe { self.hip.htod_async(b.addr(offset), data, self.cur_stream()) }
            .map_err(|e| self.err(e))?;
        // SAFETY: our stream.
        unsafe { self.hip.stream_sync(self.cur_stream()) }.map_err(|e| self.err(e))
    }

    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let b = self.buf("read", src)?;
        let mut out = vec![0u8; len.saturating_mul(b.dtype.itemsize())];
        self.read_into(src, offset, &mut out)?;
        Ok(out)
    }

    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let b = self.buf("read", src)?;
        let item = b.dtype.itemsize();
        let len = dst.len() / item;
        if !dst.len().is_multiple_of(item) || offset.checked_add(len).is_none_or(|e| e > b.len) {
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
        if dst.is_empty() {
            return self.synchronize();
        }
        self.current()?;
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: bounds checked; we synchronize before `dst` is released to the caller.
        unsafe { self.hip.dtoh_async(dst, b.addr(offset), self.cur_stream()) }
            .map_err(|e| self.err(e))?;
        // SAFETY: our stream.
        unsafe { self.hip.stream_sync(self.cur_stream()) }.map_err(|e| self.err(e))
    }

    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        self.current()?;
        struct Ev<'a>(&'a Hip, *mut c_void);
        impl Drop for Ev<'_> {
            fn drop(&mut self) {
                // SAFETY: created by event_create, destroyed once.
                let _ = unsafe { self.0.event_destroy(self.1) };
            }
        }
        let start = Ev(&self.hip, self.hip.event_create().map_err(|e| self.err(e))?);
        let end = Ev(&self.hip, self.hip.event_create().map_err(|e| self.err(e))?);
        {
            let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: live event, our stream.
            unsafe { self.hip.event_record(start.1, self.cur_stream()) }
                .map_err(|e| self.err(e))?;
        }
        work()?;
        self.current()?;
        {
            let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: as above.
            unsafe { self.hip.event_record(end.1, self.cur_stream()) }.map_err(|e| self.err(e))?;
        }
        // SAFETY: both recorded on our stream.
        let ms = unsafe { self.hip.event_elapsed_ms(start.1, end.1) }.map_err(|e| self.err(e))?;
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
        gemm(self, call)
    }

    fn native_language(&self) -> Option<NativeLanguage> {
        Some(NativeLanguage::Hip)
    }

    fn raw_compile(&self, source: &str, options: &[String], names: &[String]) -> Result<()> {
        self.raw_module("RawModule", source, options, names)
            .map(|_| ())
    }

    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        self.raw_run(call)
    }

    fn scan(&self, call: &cupy_core::backend::ScanCall<'_>) -> Result<()> {
        sortscan::hk::scan(self, call)
    }

    fn sort_reads_source(&self) -> bool {
        true
    }

    fn sort(&self, call: &cupy_core::backend::SortCall<'_>) -> Result<()> {
        sortscan::hk::sort(self, call)
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
        sortscan::hk::compress(self, call)
    }

    fn select(&self, call: &cupy_core::backend::SelectCall<'_>) -> Result<()> {
        sortscan::hk::select(self, call)
    }

    fn linalg(&self, call: &cupy_core::backend::LinalgCall<'_>) -> Result<()> {
        cupy_core::gpu::solver::linalg(self, call)
    }

    fn sparse_library(&self) -> Option<&dyn cupy_core::backend::sparse::SparseLibrary> {
        Some(self)
    }

    fn collectives(&self) -> Option<&dyn cupy_core::backend::collective::CollectiveBackend> {
        Some(self.collectives.get_or_init(|| self.make_collectives()))
    }

    fn synchronize(&self) -> Result<()> {
        self.current()?;
        // SAFETY: plain call on the current device (every stream).
        let code = unsafe { (self.hip.api.hipDeviceSynchronize)() };
        self.hip
            .check("hipDeviceSynchronize", code)
            .map_err(|e| self.err(e))
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

    fn pool_stats(&self) -> cupy_core::gpu::pool::PoolStats {
        self.pool.inner.stats()
    }

    fn graph_capture(&self) -> Option<&dyn cupy_core::backend::GraphCapture> {
        Some(self)
    }

    fn pool_free_all_blocks(&self) -> Result<usize> {
        self.current()?;
        Ok(self.pool.inner.trim())
    }

    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        self.pool.inner.set_limit(limit);
        Ok(())
    }
}
