//! cupy-rs wgpu backend: kernels from the IR emitted as WGSL ([`cupy_core::kernel::wgsl`]), run on
//! any Vulkan/Metal/DX12/GL adapter wgpu finds (including Mesa's llvmpipe).
//!
//! # Storage representation
//! A buffer holds NumPy's bytes for every dtype:
//!
//! | dtype | on the device |
//! | --- | --- |
//! | bool, int8, uint8 | 1 byte per element, packed 4 to a `u32` word (bool normalised to 0/1 on upload) |
//! | int16, uint16, float16, bfloat16 | 2 bytes per element, packed 2 to a `u32` word (kernels compute float16/bfloat16 in `f32` and round on every cast/store) |
//! | int32 / uint32 / float32 | native |
//! | int64 / uint64 | native, needs the adapter's `SHADER_INT64`, else `DTypeNotSupported` |
//! | float64 | native, needs `SHADER_F64`, else `DTypeNotSupported` ("float64 on a wgpu adapter without SHADER_F64") |
//! | complex64 | `vec2<f32>` (re, im): NumPy's bytes |
//! | complex128 | `vec2<f64>` (re, im), needs `SHADER_F64`, else `DTypeNotSupported` ("complex128 on a wgpu adapter without SHADER_F64") |
//!
//! How kernels write packed elements without racing on shared words (contiguous launches own
//! whole words; other writes clear and set their bits atomically) is in
//! `cupy_core::kernel::wgsl`'s "Packed small types". The hand-written scan, sort and GEMM
//! shaders take one 32-bit word per element: packed operands are cast into an
//! int32/uint32/float32 temporary around them (`widen.rs`); raw WGSL kernels see the packed `array<u32>` words. Transfers
//! are byte copies in whole words: a write that starts or ends inside a word reads the
//! neighbouring bytes back first (one round trip). Allocations are rounded up to a multiple
//! of four elements (and so of whole words) so contiguous float32/int32 kernels can use
//! `vec4` loads and stores; the pool counts the bytes (1 per bool/int8 element, 2 per
//! int16/float16).
//! A buffer may be larger than one storage binding (`max_storage_buffer_binding_size`: 128 MiB
//! on llvmpipe, 2 GiB on an H200), up to `max_buffer_size`: kernels then bind windows of it and
//! run per piece (`window.rs`; elementwise launches, reductions and sorts, see docs/backends.md);
//! other kernels binding such a buffer are refused with [`Error::Unsupported`] naming the
//! kernel. `CUPY_WGPU_BINDING_LIMIT` (bytes) or [`WgpuProvider::open_with_binding_limit`]
//! lower the cap (tests).
//!
//! Float64 transcendental functions (`exp log sin cos tan tanh arctan2 power` and what the math
//! library composes from them) are software WGSL (fdlibm's algorithms, `cupy_core`'s
//! `kernel/wgsl/real_lib64.rs`): Vulkan's builtins return garbage for f64. They need
//! `SHADER_INT64` besides `SHADER_F64` (refused with `DTypeNotSupported` without it).
//! Complex64 and complex128 run every complex routine. Complex atomics
//! (`add.at` of complex) are refused. int64/uint64/float64 atomics are 64-bit atomics with
//! `SHADER_INT64_ATOMIC_ALL_OPS` (requested where present; `CUPY_WGPU_INT64_ATOMICS=0` or
//! [`WgpuProvider::open_without_features`] leave it off), else pairs of 32-bit words (carry
//! adds, a spin lock in a per-device lock buffer for the rest).
//!
//! # Loop budgets (Mesa's llvmpipe)
//! llvmpipe runs at most 65,535 loop passes per vector of invocations and dispatch, shared by all
//! loops, then silently goes on with wrong values ([`cupy_core::kernel::wgsl::loops`]). On such an
//! adapter ([`loop_budget`]) the backend keeps every launch under the budget: IR kernels whose
//! loops go past it run in windows (one dispatch each, locals in a scratch buffer), GEMM runs K
//! in slices accumulated into C, scans run long rows in spans carrying the running total, and
//! reductions use more, shorter chunks. Every emitted loop is also checked (the loop guard): a
//! loop cut short anyway turns the next `read`/`synchronize` into [`Error::Backend`] naming the
//! kernel. Kernels that cannot be split are refused with [`Error::Unsupported`].
//!
//! # Asynchrony
//! Dispatches are recorded into one command encoder and submitted on `read`, `write`,
//! `synchronize`, or every [`SUBMIT_EVERY`] dispatches. Validation errors raised by wgpu are
//! collected and returned as [`Error::Backend`] by the next `read`/`synchronize`; shader
//! compilation errors are returned at launch as [`Error::Compile`] with the WGSL source.
//!
//! # Files
//! This file holds [`WgpuBackend`] and its `Backend` impl, which forwards to one file per
//! concern: `device.rs` (adapters, [`WgpuProvider`], opening a device), `buffer.rs` (allocation,
//! transfers, storage words), `queue.rs` (the pending encoder, submission, dispatch),
//! `pipeline.rs` (the pipeline cache), `guard.rs` (loop budgets and the loop guard),
//! `events.rs` (events on the one queue), `staging.rs` (host transfers in overlapped chunks), `elementwise.rs` (with `tiled.rs`: transposes through
//! workgroup-memory tiles), `reduce.rs`, `gemm.rs`, `sortscan.rs`, `radix.rs` (the radix sort of long rows), `sortbig.rs`
//! and `raw.rs` (the launches), `linalg/` (the dense factorizations: LU, Cholesky, QR), `window.rs` (arrays past
//! one storage binding).

use cupy_core::backend::{
    dtype_unsupported, Backend, Buffer, DeviceInfo, ElementwiseCall, GemmCall, NativeLanguage,
    RawLaunch, ReductionCall, ScanCall, SortCall,
};
use cupy_core::kernel::wgsl::{self, WgslOptions};
use cupy_core::{DType, Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

mod buffer;
mod device;
mod elementwise;
mod events;
mod fft;
mod fft_plan;
mod gemm;
mod gemm_coop;
mod gemm_coop_text;
mod guard;
mod linalg;
mod pipeline;
mod pool;
mod queue;
mod radix;
mod raw;
mod reduce;
mod sortbig;
mod sortscan;
mod staging;
mod support;
mod tiled;
mod timing;
mod widen;
mod window;

pub use buffer::WgpuBuffer;
pub use device::WgpuProvider;
pub use gemm::{last_gemm_shape, with_gemm_block, with_gemm_shape, GemmShape};
pub use gemm_coop::CoopInfo;
pub use gemm_coop_text::{
    coop_direct, coop_text, coop_tile_bytes, coop_vec4, CoopShape, CoopStaging,
};
pub use guard::loop_budget;
pub use linalg::{
    native_linalg_calls, native_linalg_expected, native_linalg_mode, with_native_linalg,
    NativeLinalg,
};
pub use radix::{radix_min_row, with_sort_radix_min, RADIX_MIN_ROW};
pub use tiled::tiled_launches;

use buffer::word_bytes;
use elementwise::fits32;
use guard::{plan_budget, LoopGuard};
use pipeline::{hash_of, Pipe};
use queue::Pending;

/// Dispatches recorded before the encoder is submitted.
pub const SUBMIT_EVERY: usize = 64;

/// Why a device with these features cannot store `dtype` (`None` if it can).
pub fn dtype_refusal(features: wgpu::Features, dtype: DType) -> Option<String> {
    wgsl::storage_refusal(
        dtype,
        features.contains(wgpu::Features::SHADER_F64),
        features.contains(wgpu::Features::SHADER_INT64),
    )
}

fn backend_err(label: &str, msg: impl Into<String>) -> Error {
    Error::Backend {
        backend: label.into(),
        msg: msg.into(),
    }
}

/// One wgpu device.
pub struct WgpuBackend {
    info: DeviceInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    features: wgpu::Features,
    limits: wgpu::Limits,
    opts: WgslOptions,
    pending: Mutex<Pending>,
    pipes: Mutex<HashMap<u64, Arc<Pipe>>>,
    raw_pipes: Mutex<HashMap<u64, Arc<raw::RawPipe>>>,
    /// The FFT's twiddle and chirp tables ([`fft`]).
    fft_tables: fft::Tables,
    errors: Arc<Mutex<Vec<String>>>,
    /// Set once the device is lost (the driver's callback, or a panic inside `poll`): every later
    /// wait is an `Err` at once.
    lost: Arc<std::sync::atomic::AtomicBool>,
    /// wgpu's error-scope stack is per device: push/pop pairs must not interleave across threads.
    scope: Mutex<()>,
    /// Loop passes the driver runs per invocation, if it caps them (see [`loop_budget`]).
    loop_budget: Option<u64>,
    /// The loop guard (see [`wgsl::LoopMode`]): a 16-byte buffer, kernel names by guard word.
    guard: Option<LoopGuard>,
    /// The lock buffer of 64-bit atomic updates on pairs of 32-bit words (adapters without
    /// `SHADER_INT64_ATOMIC_ALL_OPS`; see `wgsl::atomic_lock`), made on first use.
    atomic_lock: std::sync::OnceLock<wgpu::Buffer>,
    /// Cached storage buffers ([`pool`]).
    pool: Arc<pool::BufferPool>,
    /// Most bytes one storage binding may hold ([`window::binding_cap`]).
    binding_cap: u64,
    /// The staging buffers of host transfers ([`staging`]).
    rings: staging::Rings,
    /// Reductions combine a workgroup's accumulators with subgroup shuffles: the adapter has
    /// `Features::SUBGROUP` and `CUPY_WGPU_SUBGROUPS=0` is not set.
    subgroups: bool,
    /// The adapter's cooperative matrices, where the device has
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX` ([`gemm_coop`]).
    coop: Option<gemm_coop::CoopInfo>,
    /// Timestamp queries for `time_device` ([`timing`]), made on first use.
    timer: std::sync::OnceLock<timing::Timer>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WgpuBackend({})", self.info.label())
    }
}

impl WgpuBackend {
    fn label(&self) -> String {
        self.info.label()
    }

    fn buf<'a>(&self, b: &'a Buffer, what: &str) -> Result<&'a WgpuBuffer> {
        b.as_any().downcast_ref::<WgpuBuffer>().ok_or_else(|| {
            Error::invalid(
                what,
                format!(
                    "buffer {b:?} does not belong to the wgpu backend {}",
                    self.label()
                ),
            )
        })
    }

    fn check_dtype(&self, op: &str, d: DType) -> Result<()> {
        match dtype_refusal(self.features, d) {
            Some(r) => Err(dtype_unsupported(op, d, &self.info, r)),
            None => Ok(()),
        }
    }
}

impl Backend for WgpuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn time_device(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        self.time_on_device(work)
    }

    fn supports_dtype(&self, dtype: DType) -> std::result::Result<(), String> {
        match dtype_refusal(self.features, dtype) {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Buffer> {
        self.check_dtype("alloc", dtype)?;
        Ok(Arc::new(self.alloc_words(dtype, len)?))
    }

    fn write(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<()> {
        self.write_host(dst, offset, data)
    }

    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        self.read_host(src, offset, len)
    }

    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.read_host_into(src, offset, dst)
    }

    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        self.run_elementwise(call)
    }

    fn elementwise_block(&self, call: &ElementwiseCall<'_>, block_size: u32) -> Result<()> {
        self.run_elementwise_block(call, block_size)
    }

    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        self.run_reduce(call)
    }

    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        self.run_gemm(call)
    }

    fn native_language(&self) -> Option<NativeLanguage> {
        Some(NativeLanguage::Wgsl)
    }

    fn raw_compile(&self, source: &str, _options: &[String], names: &[String]) -> Result<()> {
        no_name_expressions(self, "RawModule", names)?;
        self.raw_validate(source)
    }

    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        no_name_expressions(
            self,
            &format!("RawKernel {}", call.name),
            call.name_expressions,
        )?;
        self.raw_dispatch(call)
    }

    fn scan(&self, call: &ScanCall<'_>) -> Result<()> {
        sortscan::scan(self, call)
    }

    fn sort(&self, call: &SortCall<'_>) -> Result<()> {
        cupy_core::backend::refuse_sort_source(self, call)?;
        sortscan::sort(self, call)
    }

    fn fft(&self, call: &cupy_core::fft::FftCall<'_>) -> Result<()> {
        fft::fft(self, call)
    }

    fn linalg(&self, call: &cupy_core::backend::LinalgCall<'_>) -> Result<()> {
        self.run_linalg(call)
    }

    fn synchronize(&self) -> Result<()> {
        self.flush()?;
        self.wait()?;
        self.take_errors()?;
        self.check_guard()
    }
    fn pool_stats(&self) -> cupy_core::gpu::pool::PoolStats {
        self.pool.stats()
    }

    fn pool_free_all_blocks(&self) -> Result<usize> {
        self.rings.clear();
        Ok(self.pool.trim())
    }

    fn pool_set_limit(&self, limit: Option<usize>) -> Result<()> {
        self.pool.set_limit(limit);
        Ok(())
    }

    fn stream_query(&self, _stream: Option<&cupy_core::backend::NativeStream>) -> Result<bool> {
        self.stream_query_impl()
    }

    fn event_record(
        &self,
        event: &cupy_core::backend::NativeEvent,
        _stream: Option<&cupy_core::backend::NativeStream>,
    ) -> Result<()> {
        self.event_record_impl(event)
    }

    fn event_synchronize(&self, event: &cupy_core::backend::NativeEvent) -> Result<()> {
        self.event_synchronize_impl(event)
    }

    fn event_query(&self, event: &cupy_core::backend::NativeEvent) -> Result<bool> {
        self.event_query_impl(event)
    }
}

/// WGSL has no templates to instantiate: a module with `name_expressions` is refused.
fn no_name_expressions(be: &WgpuBackend, op: &str, names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    Err(Error::Unsupported {
        op: op.into(),
        backend: be.label(),
        reason: format!(
            "name_expressions ({names:?}) instantiate C++ templates for NVRTC/hipRTC; WGSL has \
             no templates (write one entry point per instance)"
        ),
    })
}
