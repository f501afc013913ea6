//! cupy-rs wgpu backend: kernels from the IR emitted as WGSL ([`cupy_core::kernel::wgsl`]), run on
//! any Vulkan/Metal/DX12/GL adapter wgpu finds (including Mesa's llvmpipe).
//!
//! # Storage representation
//! A buffer holds **one element per storage word**, so no two invocations ever write the same
//! word (WGSL has no byte stores):
//!
//! | dtype | word on the device |
//! | --- | --- |
//! | bool | `u32` 0/1 |
//! | int8, int16 | `i32`, sign-extended |
//! | uint8, uint16 | `u32`, zero-extended |
//! | int32 / uint32 / float32 | native |
//! | float16, bfloat16 | `f32` holding a value of the type (kernels round on every cast/store) |
//! | int64 / uint64 | native, needs the adapter's `SHADER_INT64`, else `DTypeNotSupported` |
//! | float64 | native, needs `SHADER_F64`, else `DTypeNotSupported` ("float64 on a wgpu adapter without SHADER_F64") |
//! | complex64 / complex128 | not supported yet (`DTypeNotSupported`) |
//!
//! `write`/`read` convert from/to NumPy's byte format. Allocations are rounded up to a multiple
//! of four words so contiguous float32/int32 kernels can use `vec4` loads and stores.
//! A buffer must fit in one storage binding (`max_storage_buffer_binding_size`: 128 MiB on
//! llvmpipe, 2 GiB on an H200) and have fewer than 2^31 elements (32-bit index arithmetic);
//! larger allocations are refused with a clear error for now.
//!
//! Float64 transcendental functions are refused (Vulkan's builtins return garbage for f64).
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

use cupy_core::backend::{
    dtype_unsupported, Backend, BackendKind, BackendProvider, Buffer, DeviceBuffer, DeviceInfo,
    ElementwiseCall, GemmCall, NativeLanguage, Operand, RawLaunch, ReductionCall, ScanCall,
    SortCall,
};
use cupy_core::kernel::ir::{Expr, Kernel, ReduceKernel, Stmt};
use cupy_core::kernel::wgsl::loops::LoopPlan;
use cupy_core::kernel::wgsl::{
    self, BindingPlan, ElementwiseSpec, MetaLayout, ReduceMode, ReduceSpec, WgslOptions,
};
use cupy_core::layout::{contiguous_strides, Layout};
use cupy_core::{DType, Error, Result, Scalar};
use std::any::Any;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

mod raw;
mod sortscan;

/// Dispatches recorded before the encoder is submitted.
pub const SUBMIT_EVERY: usize = 64;

const GEMM_WGSL: &str = include_str!("../../../shaders/gemm.wgsl");

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

/// Finds wgpu adapters (Vulkan first, then the others wgpu finds; hardware before software).
#[derive(Debug, Default, Clone, Copy)]
pub struct WgpuProvider;

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // GL is left out unless WGPU_BACKEND asks for it: it duplicates the Vulkan adapter, lacks
    // compute features, and its EGL probe prints XDG_RUNTIME_DIR errors on headless machines.
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    wgpu::Instance::new(desc)
}

fn is_software(info: &wgpu::AdapterInfo) -> bool {
    let n = info.name.to_ascii_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || n.contains("llvmpipe")
        || n.contains("swiftshader")
        || n.contains("lavapipe")
}

fn sorted_adapters() -> Vec<wgpu::Adapter> {
    let inst = instance();
    let mut v = pollster::block_on(
        inst.enumerate_adapters(wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY)),
    );
    let rank = |a: &wgpu::Adapter| {
        let i = a.get_info();
        let be = match i.backend {
            wgpu::Backend::Vulkan => 0,
            wgpu::Backend::Metal => 1,
            wgpu::Backend::Dx12 => 2,
            _ => 3,
        };
        let ty = match i.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        };
        (is_software(&i) as u8, be, ty)
    };
    v.sort_by_key(rank);
    v
}

fn device_info(index: usize, a: &wgpu::Adapter) -> DeviceInfo {
    let i = a.get_info();
    DeviceInfo {
        kind: BackendKind::Wgpu,
        index,
        name: i.name.clone(),
        details: format!(
            "{:?} {:?}, driver {} {}",
            i.backend, i.device_type, i.driver, i.driver_info
        ),
        software: is_software(&i),
        total_memory: None,
    }
}

fn panic_msg(p: Box<dyn Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

impl BackendProvider for WgpuProvider {
    fn kind(&self) -> BackendKind {
        BackendKind::Wgpu
    }

    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String> {
        let r = std::panic::catch_unwind(|| {
            sorted_adapters()
                .iter()
                .enumerate()
                .map(|(i, a)| device_info(i, a))
                .collect::<Vec<_>>()
        });
        match r {
            Ok(v) if v.is_empty() => {
                Err("wgpu found no adapter (no Vulkan/Metal/DX12/GL driver)".into())
            }
            Ok(v) => Ok(v),
            Err(p) => Err(format!("wgpu panicked while probing: {}", panic_msg(p))),
        }
    }

    fn open(&self, index: usize) -> Result<Arc<dyn Backend>> {
        self.open_with(index, None)
    }
}

impl WgpuProvider {
    /// Opens adapter `index` as if its driver ran at most `budget` loop passes per invocation
    /// (`None`: no cap), whatever the driver (see [`loop_budget`]): the launches that split
    /// long loops across dispatches run then at small sizes, on any adapter (tests). The budget
    /// must not exceed the driver's own cap.
    ///
    /// # Errors
    /// As [`BackendProvider::open`].
    pub fn open_with_loop_budget(
        &self,
        index: usize,
        budget: Option<u64>,
    ) -> Result<Arc<dyn Backend>> {
        self.open_with(index, Some(budget))
    }

    fn open_with(&self, index: usize, budget: Option<Option<u64>>) -> Result<Arc<dyn Backend>> {
        let r = std::panic::catch_unwind(|| -> Result<Arc<dyn Backend>> {
            let adapters = sorted_adapters();
            let a = adapters
                .into_iter()
                .nth(index)
                .ok_or_else(|| Error::BackendUnavailable {
                    backend: "wgpu".into(),
                    reason: format!("no wgpu adapter with index {index}"),
                })?;
            Ok(Arc::new(WgpuBackend::with_budget(index, a, budget)?))
        });
        r.unwrap_or_else(|p| {
            Err(Error::BackendUnavailable {
                backend: "wgpu".into(),
                reason: format!(
                    "wgpu panicked while opening adapter {index}: {}",
                    panic_msg(p)
                ),
            })
        })
    }
}

/// A device allocation (one storage word per element, see the crate docs).
#[derive(Debug)]
pub struct WgpuBuffer {
    buf: wgpu::Buffer,
    dtype: DType,
    len: usize,
    id: u64,
}

impl DeviceBuffer for WgpuBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

struct Pipe {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    meta: MetaLayout,
}

#[derive(Default)]
struct Pending {
    encoder: Option<wgpu::CommandEncoder>,
    count: usize,
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
    errors: Arc<Mutex<Vec<String>>>,
    /// wgpu's error-scope stack is per device: push/pop pairs must not interleave across threads.
    scope: Mutex<()>,
    /// Loop passes the driver runs per invocation, if it caps them (see [`loop_budget`]).
    loop_budget: Option<u64>,
    /// The loop guard (see [`wgsl::LoopMode`]): a 16-byte buffer, kernel names by guard word.
    guard: Option<LoopGuard>,
}

/// Host side of the loop guard.
struct LoopGuard {
    buf: wgpu::Buffer,
    /// Kernel names; a guard word is an index here plus one.
    names: Mutex<Vec<String>>,
    /// A guarded kernel was recorded since the last check.
    dirty: std::sync::atomic::AtomicBool,
}

/// Budget the launch planner uses out of the driver's (the cost model is an upper bound; this
/// leaves room for what it does not see).
fn plan_budget(b: u64) -> u64 {
    b - b / 16
}

/// Loop passes one invocation may run on this adapter: Mesa's llvmpipe (lavapipe) stops every
/// loop of an invocation after 65,535 passes in all and goes on with wrong values
/// ([`wgsl::loops`]); other drivers are not known to cap loops. `CUPY_WGPU_LOOP_BUDGET=N`
/// overrides it (`0`: no budget), e.g. to run the split-launch paths on a hardware GPU.
pub fn loop_budget(info: &wgpu::AdapterInfo) -> Option<u64> {
    if let Ok(v) = std::env::var("CUPY_WGPU_LOOP_BUDGET") {
        if let Ok(n) = v.trim().parse::<u64>() {
            return (n > 0).then_some(n.max(64));
        }
    }
    let n = format!("{} {}", info.name, info.driver).to_ascii_lowercase();
    (n.contains("llvmpipe") || n.contains("lavapipe")).then_some(wgsl::loops::LLVMPIPE_LOOP_BUDGET)
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WgpuBackend({})", self.info.label())
    }
}

fn hash_of<T: Hash>(v: &T) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// Host NumPy bytes -> device storage words.
fn to_storage(dtype: DType, data: &[u8]) -> Vec<u8> {
    match dtype {
        DType::Bool => data
            .iter()
            .flat_map(|&b| ((b != 0) as u32).to_le_bytes())
            .collect(),
        DType::Int8 => data
            .iter()
            .flat_map(|&b| (b as i8 as i32).to_le_bytes())
            .collect(),
        DType::UInt8 => data
            .iter()
            .flat_map(|&b| (b as u32).to_le_bytes())
            .collect(),
        DType::Int16 => data
            .chunks_exact(2)
            .flat_map(|c| (i16::from_le_bytes([c[0], c[1]]) as i32).to_le_bytes())
            .collect(),
        DType::UInt16 => data
            .chunks_exact(2)
            .flat_map(|c| (u16::from_le_bytes([c[0], c[1]]) as u32).to_le_bytes())
            .collect(),
        DType::Float16 => data
            .chunks_exact(2)
            .flat_map(|c| {
                half::f16::from_le_bytes([c[0], c[1]])
                    .to_f32()
                    .to_le_bytes()
            })
            .collect(),
        DType::BFloat16 => data
            .chunks_exact(2)
            .flat_map(|c| {
                half::bf16::from_le_bytes([c[0], c[1]])
                    .to_f32()
                    .to_le_bytes()
            })
            .collect(),
        _ => data.to_vec(),
    }
}

/// Device storage words -> host NumPy bytes.
fn from_storage(dtype: DType, words: &[u8]) -> Vec<u8> {
    let n = words.len() / word_bytes(dtype).max(1);
    let mut out = vec![0u8; n * dtype.itemsize()];
    from_storage_into(dtype, words, &mut out);
    out
}

/// Device storage words -> host NumPy bytes, written into `dst` (one pass, no allocation).
fn from_storage_into(dtype: DType, words: &[u8], dst: &mut [u8]) {
    let w32 = || {
        words
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    };
    match dtype {
        DType::Bool => {
            for (d, w) in dst.iter_mut().zip(w32()) {
                *d = (w != 0) as u8;
            }
        }
        DType::Int8 | DType::UInt8 => {
            for (d, w) in dst.iter_mut().zip(w32()) {
                *d = w as u8;
            }
        }
        DType::Int16 | DType::UInt16 => {
            for (d, w) in dst.chunks_exact_mut(2).zip(w32()) {
                d.copy_from_slice(&(w as u16).to_le_bytes());
            }
        }
        DType::Float16 => {
            for (d, w) in dst.chunks_exact_mut(2).zip(w32()) {
                d.copy_from_slice(&half::f16::from_f32(f32::from_bits(w)).to_le_bytes());
            }
        }
        DType::BFloat16 => {
            for (d, w) in dst.chunks_exact_mut(2).zip(w32()) {
                d.copy_from_slice(&half::bf16::from_f32(f32::from_bits(w)).to_le_bytes());
            }
        }
        _ => dst.copy_from_slice(&words[..dst.len()]),
    }
}

/// Whether device storage of `dtype` is its NumPy bytes (no widening).
fn stored_as_is(dtype: DType) -> bool {
    word_bytes(dtype) == dtype.itemsize()
}

fn word_bytes(dtype: DType) -> usize {
    wgsl::storage_bytes(dtype).unwrap_or(8)
}

/// Splits a 1-D workgroup count into a 2-D grid (x at most 65535).
fn grid(groups: u64) -> (u32, u32) {
    if groups <= 65535 {
        (groups as u32, 1)
    } else {
        let y = groups.div_ceil(65535);
        (groups.div_ceil(y) as u32, y as u32)
    }
}

impl WgpuBackend {
    /// Opens a device on `adapter` with the features this backend uses (SHADER_F64,
    /// SHADER_INT64, SHADER_F16 where present) and the adapter's own limits.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] if the device cannot be created.
    pub fn new(index: usize, adapter: wgpu::Adapter) -> Result<WgpuBackend> {
        WgpuBackend::with_budget(index, adapter, None)
    }

    /// As [`WgpuBackend::new`], with the loop budget given (`Some`) instead of detected.
    fn with_budget(
        index: usize,
        adapter: wgpu::Adapter,
        budget: Option<Option<u64>>,
    ) -> Result<WgpuBackend> {
        let info = device_info(index, &adapter);
        let budget = budget.unwrap_or_else(|| loop_budget(&adapter.get_info()));
        let wanted =
            wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_F16;
        let features = adapter.features() & wanted;
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("cupy-rs"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
            Error::BackendUnavailable {
                backend: "wgpu".into(),
                reason: format!("{}: request_device failed: {e}", info.label()),
            }
        })?;
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let opts = WgslOptions {
            shader_f64: features.contains(wgpu::Features::SHADER_F64),
            shader_int64: features.contains(wgpu::Features::SHADER_INT64),
            device: info.label(),
        };
        let guard = budget.map(|_| LoopGuard {
            buf: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cupy-loop-guard"),
                size: 16,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            names: Mutex::default(),
            dirty: Default::default(),
        });
        Ok(WgpuBackend {
            info,
            device,
            queue,
            features,
            limits,
            opts,
            pending: Mutex::default(),
            pipes: Mutex::default(),
            raw_pipes: Mutex::default(),
            errors,
            scope: Mutex::default(),
            loop_budget: budget,
            guard,
        })
    }

    /// The enabled wgpu features.
    pub fn features(&self) -> wgpu::Features {
        self.features
    }

    /// The device limits.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Loop passes one invocation may run (`None`: the driver does not cap loops).
    pub fn loop_budget(&self) -> Option<u64> {
        self.loop_budget
    }

    /// The guard word of kernel `name` (marks the guard as to be checked), if guards are on.
    fn guard_word(&self, name: &str) -> Option<u32> {
        let g = self.guard.as_ref()?;
        let mut names = g.names.lock().ok()?;
        let i = match names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                names.push(name.to_string());
                names.len() - 1
            }
        };
        g.dirty.store(true, Ordering::Relaxed);
        Some(i as u32 + 1)
    }

    /// Records, into `enc`, the copy of the guard to `staging` and its reset, if a guarded kernel
    /// ran since the last check; returns the staging buffer to map afterwards.
    fn guard_copy(&self, enc: &mut wgpu::CommandEncoder) -> Option<wgpu::Buffer> {
        let g = self.guard.as_ref()?;
        if !g.dirty.swap(false, Ordering::Relaxed) {
            return None;
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cupy-loop-guard-read"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_buffer_to_buffer(&g.buf, 0, &staging, 0, 16);
        enc.clear_buffer(&g.buf, 0, None);
        Some(staging)
    }

    /// Maps a guard staging buffer (after the device finished) and turns a tripped guard into
    /// an error naming the kernel.
    fn guard_result(&self, staging: Option<wgpu::Buffer>) -> Result<()> {
        let Some(staging) = staging else {
            return Ok(());
        };
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| backend_err(&self.label(), format!("poll: {e}")))?;
        if !matches!(rx.recv(), Ok(Ok(()))) {
            return Err(backend_err(&self.label(), "mapping the loop guard failed"));
        }
        let w = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| backend_err(&self.label(), format!("get_mapped_range: {e}")))?;
            u32::from_le_bytes([view[0], view[1], view[2], view[3]])
        };
        staging.unmap();
        if w == 0 {
            return Ok(());
        }
        let name = self
            .guard
            .as_ref()
            .and_then(|g| g.names.lock().ok()?.get(w as usize - 1).cloned())
            .unwrap_or_else(|| "?".into());
        Err(backend_err(
            &self.label(),
            format!(
                "kernel {name}: a shader loop was cut short by the driver's loop limit ({} loop \
                 iterations per invocation, shared by all its loops; Mesa's llvmpipe stops loops \
                 there), so results computed since the last synchronization are wrong; use the \
                 cpu backend or a hardware GPU for this size",
                self.loop_budget.unwrap_or(0)
            ),
        ))
    }

    /// Checks the loop guard after all recorded work (a no-op unless a guarded kernel ran).
    fn check_guard(&self) -> Result<()> {
        if !self
            .guard
            .as_ref()
            .is_some_and(|g| g.dirty.load(Ordering::Relaxed))
        {
            return Ok(());
        }
        let staging = {
            let mut p = self.lock_pending()?;
            let enc = p.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            let st = self.guard_copy(enc);
            self.submit_locked(&mut p);
            st
        };
        self.guard_result(staging)
    }

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

    fn take_errors(&self) -> Result<()> {
        let errs: Vec<String> = match self.errors.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(_) => vec![],
        };
        if errs.is_empty() {
            Ok(())
        } else {
            Err(backend_err(&self.label(), errs.join("\n")))
        }
    }

    fn lock_pending(&self) -> Result<std::sync::MutexGuard<'_, Pending>> {
        self.pending
            .lock()
            .map_err(|_| backend_err(&self.label(), "poisoned queue lock"))
    }

    /// Submits the recorded work; the caller holds the pending lock, so submissions (and
    /// `write_buffer` calls made under the same lock) keep program order across threads.
    fn submit_locked(&self, p: &mut Pending) {
        p.count = 0;
        if let Some(e) = p.encoder.take() {
            self.queue.submit([e.finish()]);
        }
    }

    fn flush(&self) -> Result<()> {
        let mut p = self.lock_pending()?;
        self.submit_locked(&mut p);
        Ok(())
    }

    /// Compiles (or finds) a pipeline; `key` identifies the source.
    fn pipeline(
        &self,
        key: u64,
        kernel: &str,
        make: &dyn Fn() -> Result<(String, MetaLayout, Vec<bool>)>,
    ) -> Result<Arc<Pipe>> {
        if let Some(p) = self.pipes.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(p);
        }
        let (source, meta, rw) = make()?;
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        for (i, &w) in rw.iter().enumerate() {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 1 + i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: !w },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let guard = self.scope.lock();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(kernel),
                source: wgpu::ShaderSource::Wgsl(source.as_str().into()),
            });
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(kernel),
                entries: &entries,
            });
        let pl = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(kernel),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel),
                layout: Some(&pl),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        let err = pollster::block_on(scope.pop());
        drop(guard);
        if let Some(e) = err {
            return Err(Error::Compile {
                backend: self.label(),
                kernel: kernel.into(),
                log: e.to_string(),
                source_code: source,
            });
        }
        let p = Arc::new(Pipe {
            pipeline,
            layout,
            meta,
        });
        if let Ok(mut m) = self.pipes.lock() {
            m.insert(key, p.clone());
        }
        Ok(p)
    }

    /// Records one dispatch of `groups` workgroups (split into a 2-D grid).
    fn dispatch(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[&wgpu::Buffer],
        groups: u64,
    ) -> Result<()> {
        if groups == 0 {
            return Ok(());
        }
        let max = self.limits.max_compute_workgroups_per_dimension as u64;
        if groups > max * max {
            return Err(backend_err(
                &self.label(),
                format!("launch of {groups} workgroups is too large"),
            ));
        }
        let (gx, gy) = grid(groups);
        self.dispatch3(pipe, meta, buffers, (gx, gy, 1))
    }

    fn dispatch3(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[&wgpu::Buffer],
        g: (u32, u32, u32),
    ) -> Result<()> {
        let ubuf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cupy-meta"),
                contents: meta,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: ubuf.as_entire_binding(),
        }];
        for (i, b) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: 1 + i as u32,
                resource: b.as_entire_binding(),
            });
        }
        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipe.layout,
            entries: &entries,
        });
        self.encode(&pipe.pipeline, &bg, g)
    }

    /// Records one dispatch of `pipeline` with `bg` at group 0 into the pending encoder.
    fn encode(
        &self,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        g: (u32, u32, u32),
    ) -> Result<()> {
        let mut p = self.lock_pending()?;
        {
            let enc = p.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(g.0, g.1, g.2);
            }
            p.count += 1;
        }
        if p.count >= SUBMIT_EVERY {
            self.submit_locked(&mut p);
        }
        Ok(())
    }

    fn check_len(&self, what: &str, len: usize) -> Result<()> {
        if len >= (1usize << 31) {
            return Err(Error::Unsupported {
                op: what.into(),
                backend: self.label(),
                reason: format!(
                    "{len} elements: the wgpu backend uses 32-bit indexing (fewer than 2^31 elements)"
                ),
            });
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_reduce(
        &self,
        k: &ReduceKernel,
        out_shape: &[usize],
        reduce_shape: &[usize],
        inputs: &[(&WgpuBuffer, &Layout)],
        output: (&WgpuBuffer, Option<&Layout>),
        params: &[Scalar],
        mode: ReduceMode,
        chunks: usize,
        chunk_len: usize,
        wide: bool,
    ) -> Result<()> {
        let partial = output.1.is_none();
        let out_dtype = if partial { k.acc[0] } else { k.output };
        let plan = BindingPlan::new(
            &inputs
                .iter()
                .map(|(b, _)| (b.id, b.dtype))
                .collect::<Vec<_>>(),
            &[(output.0.id, out_dtype)],
            &[],
        );
        let spec = ReduceSpec {
            out_ndim: out_shape.len(),
            red_ndim: reduce_shape.len(),
            mode,
            partial,
            wide_int64: wide,
            bindings: plan.clone(),
        };
        let lmode = wgsl::LoopMode {
            guard: self.loop_budget.is_some(),
            window: false,
        };
        let key = hash_of(&("reduce", k, &spec, lmode));
        let opts = &self.opts;
        let pipe = self.pipeline(key, &k.name, &|| {
            let sh = wgsl::emit_reduction_with(k, &spec, opts, lmode)?;
            let mut rw: Vec<bool> = plan.buffers.iter().map(|b| b.1).collect();
            rw.extend(std::iter::repeat_n(true, lmode.extra_bindings()));
            Ok((sh.source, sh.meta, rw))
        })?;
        let mut words = wgsl::reduction_words(
            out_shape,
            reduce_shape,
            chunks,
            chunk_len,
            &inputs.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
            output.1,
        );
        if lmode.guard {
            words.extend(self.guard_word(&k.name));
        }
        let meta = pipe.meta.pack(params, &words);
        let mut bufs: Vec<&wgpu::Buffer> = vec![&output.0.buf; plan.buffers.len()];
        for (i, (b, _)) in inputs.iter().enumerate() {
            bufs[plan.inputs[i]] = &b.buf;
        }
        bufs[plan.outputs[0]] = &output.0.buf;
        if let (true, Some(g)) = (lmode.guard, &self.guard) {
            bufs.push(&g.buf);
        }
        let n_out: usize = out_shape.iter().product();
        let units = (n_out * chunks) as u64;
        let groups = match mode {
            ReduceMode::GroupPerOutput => units,
            ReduceMode::ThreadPerOutput => units.div_ceil(wgsl::WORKGROUP_SIZE as u64),
        };
        self.dispatch(&pipe, &meta, &bufs, groups)
    }

    /// Copies `len` elements from element `offset` of `b` into a mapped staging buffer (after all
    /// queued work) and hands its storage words to `f`: one copy out of the mapping.
    fn read_mapped<R>(
        &self,
        b: &WgpuBuffer,
        offset: usize,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        if offset.checked_add(len).is_none_or(|e| e > b.len) {
            return Err(Error::invalid(
                "read",
                format!("{len} elements at {offset} exceed a buffer of {}", b.len),
            ));
        }
        if len == 0 {
            self.synchronize()?;
            return Ok(f(&[]));
        }
        let wb = word_bytes(b.dtype) as u64;
        let size = len as u64 * wb;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cupy-read"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let guard_staging;
        {
            let mut p = self.lock_pending()?;
            let enc = p.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            enc.copy_buffer_to_buffer(&b.buf, offset as u64 * wb, &staging, 0, size);
            guard_staging = self.guard_copy(enc);
            self.submit_locked(&mut p);
        }
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| backend_err(&self.label(), format!("poll: {e}")))?;
        self.take_errors()?;
        self.guard_result(guard_staging)?;
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(backend_err(&self.label(), format!("map_async: {e}"))),
            Err(_) => return Err(backend_err(&self.label(), "map_async callback dropped")),
        }
        let out = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| backend_err(&self.label(), format!("get_mapped_range: {e}")))?;
            f(&view)
        };
        staging.unmap();
        Ok(out)
    }

    fn alloc_words(&self, dtype: DType, len: usize) -> Result<WgpuBuffer> {
        self.check_len("alloc", len)?;
        let words = len.max(1).div_ceil(4) * 4;
        let size = (words * word_bytes(dtype)) as u64;
        let max = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        if size > max {
            return Err(Error::Unsupported {
                op: "alloc".into(),
                backend: self.label(),
                reason: format!(
                    "{len} elements of {dtype} need {size} bytes, more than one storage binding \
                     holds on this adapter ({max} bytes); splitting arrays across bindings is not \
                     implemented yet"
                ),
            });
        }
        let guard = self.scope.lock();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let err = pollster::block_on(scope.pop());
        drop(guard);
        if let Some(e) = err {
            return Err(Error::OutOfMemory {
                device: self.label(),
                requested: size as usize,
                detail: e.to_string(),
            });
        }
        Ok(WgpuBuffer {
            buf,
            dtype,
            len,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }
}

/// True if the kernel's WGSL has loops: `For`s, or helper functions that loop (float
/// floor-divide/remainder, integer power, compare-and-swap atomics).
fn kernel_loops(k: &Kernel) -> bool {
    let mut l = false;
    Stmt::visit_all(&k.body, &mut |s| {
        l |= matches!(s, Stmt::For { .. } | Stmt::AtomicRaw { .. })
            || s.exprs()
                .iter()
                .any(|e| wgsl::loops::helper_passes(e, false) > 0);
    });
    l
}

fn fits32(d: DType, v: &Scalar) -> bool {
    match (d, v) {
        (DType::Int64, s) => i32::try_from(s.to_i128()).is_ok(),
        (DType::UInt64, s) => u32::try_from(s.to_i128()).is_ok(),
        _ => true,
    }
}

impl Backend for WgpuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
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
        let b = self.buf(dst, "write")?;
        let isz = b.dtype.itemsize();
        if data.len() / isz * isz != data.len() || offset + data.len() / isz > b.len {
            return Err(Error::invalid(
                "write",
                format!(
                    "{} bytes at element {offset} do not fit a buffer of {} {}",
                    data.len(),
                    b.len,
                    b.dtype
                ),
            ));
        }
        if data.is_empty() {
            return Ok(());
        }
        // Types stored as their NumPy bytes go to wgpu's staging copy directly; narrow types
        // are widened once (to_storage).
        let widened;
        let words = if stored_as_is(b.dtype) {
            data
        } else {
            widened = to_storage(b.dtype, data);
            &widened
        };
        let mut p = self.lock_pending()?;
        self.submit_locked(&mut p);
        self.queue
            .write_buffer(&b.buf, (offset * word_bytes(b.dtype)) as u64, words);
        Ok(())
    }

    fn read(&self, src: &Buffer, offset: usize, len: usize) -> Result<Vec<u8>> {
        let b = self.buf(src, "read")?;
        self.read_mapped(b, offset, len, |words| from_storage(b.dtype, words))
    }

    fn read_into(&self, src: &Buffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        let b = self.buf(src, "read")?;
        let isz = b.dtype.itemsize();
        if !dst.len().is_multiple_of(isz) {
            return Err(Error::invalid(
                "read",
                format!("{} bytes are not whole elements of {}", dst.len(), b.dtype),
            ));
        }
        let len = dst.len() / isz;
        self.read_mapped(b, offset, len, |words| {
            from_storage_into(b.dtype, words, dst)
        })
    }

    fn elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        let k = call.kernel;
        for d in k.dtypes() {
            self.check_dtype(&k.name, d)?;
        }
        let total: usize = call.shape.iter().product();
        if total == 0 {
            return Ok(());
        }
        self.check_len(&k.name, total)?;
        if call.inputs.len() != k.inputs.len()
            || call.outputs.len() != k.outputs.len()
            || call.raws.len() != k.raws.len()
            || call.params.len() != k.params.len()
        {
            return Err(Error::invalid(
                &k.name,
                "operand or parameter count does not match the kernel",
            ));
        }
        let ins: Vec<&WgpuBuffer> = call
            .inputs
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let outs: Vec<&WgpuBuffer> = call
            .outputs
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let raws: Vec<&WgpuBuffer> = call
            .raws
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let mismatch = ins
            .iter()
            .zip(&k.inputs)
            .chain(outs.iter().zip(&k.outputs))
            .chain(raws.iter().zip(&k.raws))
            .find(|(b, d)| b.dtype != **d);
        if let Some((b, d)) = mismatch {
            return Err(Error::invalid(
                &k.name,
                format!(
                    "operand buffer of dtype {} where the kernel expects {d}",
                    b.dtype
                ),
            ));
        }
        let layouts: Vec<&Layout> = call
            .inputs
            .iter()
            .chain(&call.outputs)
            .map(|o| &o.layout)
            .collect();
        let contiguous = layouts.iter().all(|l| l.is_c_contiguous());
        let narrow = wgsl::elementwise_narrow(k, false);
        let wide = narrow
            && k.params
                .iter()
                .zip(&call.params)
                .any(|(d, v)| !fits32(*d, v));
        if wide && !self.opts.shader_int64 {
            return Err(dtype_unsupported(
                &k.name,
                DType::Int64,
                &self.info,
                "an int64 parameter beyond 32 bits on a wgpu adapter without SHADER_INT64",
            ));
        }
        // Loops on a driver that caps them (llvmpipe): guard every loop; split kernels whose
        // loops go past the budget into windows; no vec4 (four bodies per invocation).
        let has_for = {
            let mut f = false;
            Stmt::visit_all(&k.body, &mut |s| f |= matches!(s, Stmt::For { .. }));
            f
        };
        let lplan = match self.loop_budget {
            Some(b) if has_for => wgsl::loops::plan_elementwise(
                k,
                &call.params,
                wgsl::elementwise_narrow(k, wide),
                plan_budget(b),
                &self.label(),
            )?,
            _ => LoopPlan::Single,
        };
        let mode = wgsl::LoopMode {
            guard: self.loop_budget.is_some() && kernel_loops(k),
            window: matches!(lplan, LoopPlan::Windows(_)),
        };
        let vec4 = contiguous
            && wgsl::vec4_eligible(k)
            && layouts.iter().all(|l| l.offset % 4 == 0)
            && total >= 4
            && !(self.loop_budget.is_some() && has_for);
        let mut plan = BindingPlan::new(
            &ins.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
            &outs.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
            &raws.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
        );
        // Raw operands the kernel writes (scatter) are bound read_write.
        plan.mark_raw_writes(k);
        let spec = ElementwiseSpec {
            ndim: call.shape.len().max(1),
            contiguous,
            vec4,
            wide_int64: wide,
            bindings: plan.clone(),
        };
        let key = hash_of(&("elementwise", k, &spec, mode));
        let opts = &self.opts;
        let pipe = self.pipeline(key, &k.name, &|| {
            let sh = wgsl::emit_elementwise_with(k, &spec, opts, mode)?;
            let mut rw: Vec<bool> = plan.buffers.iter().map(|b| b.1).collect();
            rw.extend(std::iter::repeat_n(true, mode.extra_bindings()));
            Ok((sh.source, sh.meta, rw))
        })?;
        let raw_offsets: Vec<usize> = call.raws.iter().map(|r| r.offset).collect();
        let mut words = wgsl::elementwise_words(&spec, &call.shape, &layouts, &raw_offsets);
        let guard_word = if mode.guard {
            self.guard_word(&k.name)
        } else {
            None
        };
        let mut bufs: Vec<&wgpu::Buffer> = vec![
            &ins.first()
                .or(outs.first())
                .or(raws.first())
                .ok_or_else(|| Error::invalid(&k.name, "a kernel without operands"))?
                .buf;
            plan.buffers.len()
        ];
        for (i, b) in ins.iter().enumerate() {
            bufs[plan.inputs[i]] = &b.buf;
        }
        for (i, b) in outs.iter().enumerate() {
            bufs[plan.outputs[i]] = &b.buf;
        }
        for (i, b) in raws.iter().enumerate() {
            bufs[plan.raws[i]] = &b.buf;
        }
        if let (true, Some(g)) = (mode.guard, &self.guard) {
            bufs.push(&g.buf);
        }
        let LoopPlan::Windows(windows) = lplan else {
            words.extend(guard_word);
            let meta = pipe.meta.pack(&call.params, &words);
            let threads = if vec4 { total.div_ceil(4) } else { total } as u64;
            return self.dispatch(
                &pipe,
                &meta,
                &bufs,
                threads.div_ceil(wgsl::WORKGROUP_SIZE as u64),
            );
        };
        // Windowed: every window is one dispatch over a slab of elements whose locals fit one
        // scratch binding; locals travel between windows through the scratch buffer.
        let sw = wgsl::scratch_words(k, wide).max(1);
        let max_bytes = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size) as usize;
        let slab = (max_bytes / 16 / sw).min(total).max(1);
        let scratch = self.alloc_words(DType::UInt32, slab * sw)?;
        bufs.push(&scratch.buf);
        let mut base = 0usize;
        while base < total {
            let len = slab.min(total - base);
            for (wi, w) in windows.iter().enumerate() {
                let mut ws = words.clone();
                ws[0] = len as u32;
                ws.extend(w.words(wi, windows.len(), base));
                ws.extend(guard_word);
                let meta = pipe.meta.pack(&call.params, &ws);
                self.dispatch(
                    &pipe,
                    &meta,
                    &bufs,
                    (len as u64).div_ceil(wgsl::WORKGROUP_SIZE as u64),
                )?;
            }
            base += len;
        }
        Ok(())
    }

    fn reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        let k = call.kernel;
        k.validate()?;
        if k.is_tuple() {
            return Err(k.tuple_unsupported("wgpu"));
        }
        for d in k.dtypes() {
            self.check_dtype(&k.name, d)?;
        }
        let n_out: usize = call.out_shape.iter().product();
        if n_out == 0 {
            return Ok(());
        }
        let n_red: usize = call.reduce_shape.iter().product();
        self.check_len(&k.name, n_out.saturating_mul(n_red.max(1)))?;
        let ins: Vec<(&WgpuBuffer, &Layout)> = call
            .inputs
            .iter()
            .map(|o| Ok((self.buf(o.buffer, &k.name)?, &o.layout)))
            .collect::<Result<_>>()?;
        let out = self.buf(call.output.buffer, &k.name)?;
        if out.dtype != k.output
            || ins.len() != k.inputs.len()
            || ins.iter().zip(&k.inputs).any(|((b, _), d)| b.dtype != *d)
        {
            return Err(Error::invalid(
                &k.name,
                "operand dtypes or count do not match the reduction kernel",
            ));
        }
        let narrow = wgsl::reduce_narrow(k, false);
        let wide = narrow
            && k.params
                .iter()
                .zip(&call.params)
                .any(|(d, v)| !fits32(*d, v));
        let r_nd = call.reduce_shape.len();
        let inner_contig = r_nd > 0
            && call.reduce_shape[r_nd - 1] > 1
            && ins
                .first()
                .is_some_and(|(_, l)| l.strides.last().is_some_and(|s| s.abs() == 1));
        let (mode, mut chunks) = if n_red <= 1 {
            (ReduceMode::ThreadPerOutput, 1)
        } else if inner_contig && n_red >= 256 {
            let c = if n_out >= 2048 {
                1
            } else {
                (4096usize.div_ceil(n_out)).min(n_red.div_ceil(8192))
            };
            (ReduceMode::GroupPerOutput, c.max(1))
        } else {
            let c = if n_out >= 65536 {
                1
            } else {
                (262144usize.div_ceil(n_out)).min(n_red.div_ceil(512))
            };
            (ReduceMode::ThreadPerOutput, c.max(1))
        };
        if let (Some(b), true) = (self.loop_budget, n_red > 0) {
            // Each invocation's loop stays under the driver's loop budget: its passes are the
            // chunk's elements it visits (one per pass, with the map's and combine's helper
            // loops), plus 8 tree steps.
            let narrow = wgsl::reduce_narrow(k, wide);
            let per = 1
                + wgsl::loops::helper_passes(&k.map[0], narrow)
                + wgsl::loops::helper_passes(&k.combine[0], narrow);
            let fixed = 16
                + 9 * (1 + wgsl::loops::helper_passes(&k.combine[0], narrow))
                + wgsl::loops::helper_passes(&k.post, narrow);
            let passes = (plan_budget(b).saturating_sub(fixed) / per).max(2) - 1;
            let stride = if mode == ReduceMode::GroupPerOutput {
                wgsl::WORKGROUP_SIZE as u64
            } else {
                1
            };
            let max_chunk = (passes * stride) as usize;
            chunks = chunks.max(n_red.div_ceil(max_chunk));
        }
        let chunk_len = if n_red == 0 {
            1
        } else {
            n_red.div_ceil(chunks)
        };
        if n_red > 0 {
            chunks = n_red.div_ceil(chunk_len);
        }
        if chunks == 1 {
            return self.launch_reduce(
                k,
                &call.out_shape,
                &call.reduce_shape,
                &ins,
                (out, Some(&call.output.layout)),
                &call.params,
                mode,
                1,
                chunk_len,
                wide,
            );
        }
        // Two passes: partial accumulators at [chunk * n_out + o], then a reduction over chunks.
        let partial_buf: Buffer = Arc::new(self.alloc_words(k.acc[0], n_out * chunks)?);
        let partial = self.buf(&partial_buf, &k.name)?;
        self.launch_reduce(
            k,
            &call.out_shape,
            &call.reduce_shape,
            &ins,
            (partial, None),
            &call.params,
            mode,
            chunks,
            chunk_len,
            wide,
        )?;
        let k2 = ReduceKernel {
            name: format!("{}_pass2", k.name),
            inputs: vec![k.acc[0]],
            params: k.params.clone(),
            acc: k.acc.clone(),
            map: vec![Expr::input(0, k.acc[0])],
            combine: k.combine.clone(),
            identity: k.identity.clone(),
            post: k.post.clone(),
            output: k.output,
        };
        let mut shape = call.out_shape.clone();
        shape.push(chunks);
        let mut strides = contiguous_strides(&call.out_shape);
        strides.push(n_out as isize);
        let pl = Layout {
            shape,
            strides,
            offset: 0,
        };
        if self.loop_budget.is_some() && chunks < n_red {
            // Under a loop budget the chunks are reduced like any input (chunked again if many).
            return self.reduce(&ReductionCall {
                kernel: &k2,
                out_shape: call.out_shape.clone(),
                reduce_shape: vec![chunks],
                inputs: vec![Operand {
                    buffer: &partial_buf,
                    layout: pl,
                }],
                output: call.output.clone(),
                params: call.params.clone(),
            });
        }
        let mode2 = if n_out < 64 {
            ReduceMode::GroupPerOutput
        } else {
            ReduceMode::ThreadPerOutput
        };
        self.launch_reduce(
            &k2,
            &call.out_shape,
            &[chunks],
            &[(partial, &pl)],
            (out, Some(&call.output.layout)),
            &call.params,
            mode2,
            1,
            chunks,
            wide,
        )
    }

    fn gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        let (a, b, c) = (
            self.buf(call.a.buffer, "matmul")?,
            self.buf(call.b.buffer, "matmul")?,
            self.buf(call.c.buffer, "matmul")?,
        );
        let d = a.dtype;
        if b.dtype != d || c.dtype != d {
            return Err(Error::invalid(
                "matmul",
                format!("mixed dtypes {} @ {} -> {}", d, b.dtype, c.dtype),
            ));
        }
        let elem = match d {
            DType::Float32 => "f32",
            DType::Float64 => {
                self.check_dtype("matmul", d)?;
                "f64"
            }
            _ => {
                return Err(dtype_unsupported(
                    "matmul",
                    d,
                    &self.info,
                    format!("the wgpu GEMM kernel handles float32 and float64, not {d}"),
                ))
            }
        };
        let dims = |o: &Operand<'_>, what: &str| -> Result<[usize; 3]> {
            if o.layout.shape.len() != 3 {
                return Err(Error::invalid(
                    "matmul",
                    format!(
                        "{what} must have layout shape [batch, rows, cols], got {:?}",
                        o.layout.shape
                    ),
                ));
            }
            Ok([o.layout.shape[0], o.layout.shape[1], o.layout.shape[2]])
        };
        let [batch, m, kk] = dims(&call.a, "a")?;
        let [_, _, n] = dims(&call.b, "b")?;
        if m == 0 || n == 0 || batch == 0 {
            return Ok(());
        }
        let key = hash_of(&("gemm", elem));
        let pipe = self.pipeline(key, &format!("gemm_{elem}"), &|| {
            Ok((
                GEMM_WGSL.replace("ELEM", elem),
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 20,
                },
                vec![false, false, true],
            ))
        })?;
        let st = |o: &Operand<'_>| -> [i32; 4] {
            [
                o.layout.offset as i32,
                o.layout.strides[0] as i32,
                o.layout.strides[1] as i32,
                o.layout.strides[2] as i32,
            ]
        };
        let maxz = self.limits.max_compute_workgroups_per_dimension as usize;
        // K per dispatch: all of it, unless the driver caps loops. Per slice of 16 k the shader
        // runs about 522 loop passes (its inner loops: 5 + 16 * 32 + 4 + 1); 64 more cover the
        // set-up and store loops.
        let kc = match self.loop_budget {
            Some(b) => ((plan_budget(b).saturating_sub(64) / 530).max(1) * 16) as usize,
            None => kk.max(1),
        };
        let mut b0 = 0;
        while b0 < batch {
            let nb = (batch - b0).min(maxz);
            let mut kb = 0usize;
            loop {
                let ke = (kb + kc).min(kk);
                let mut w: Vec<u32> = vec![m as u32, n as u32, kk as u32, b0 as u32];
                for o in [&call.a, &call.b, &call.c] {
                    w.extend(st(o).iter().map(|&x| x as u32));
                }
                w.extend([kb as u32, ke as u32, u32::from(kb > 0), 0]);
                let meta = pipe.meta.pack(&[], &w);
                self.dispatch3(
                    &pipe,
                    &meta,
                    &[&a.buf, &b.buf, &c.buf],
                    (n.div_ceil(64) as u32, m.div_ceil(64) as u32, nb as u32),
                )?;
                kb = ke;
                if kb >= kk {
                    break;
                }
            }
            b0 += nb;
        }
        Ok(())
    }

    fn native_language(&self) -> Option<NativeLanguage> {
        Some(NativeLanguage::Wgsl)
    }

    fn raw_compile(&self, source: &str, _options: &[String]) -> Result<()> {
        self.raw_validate(source)
    }

    fn raw_launch(&self, call: &RawLaunch<'_>) -> Result<()> {
        self.raw_dispatch(call)
    }

    fn scan(&self, call: &ScanCall<'_>) -> Result<()> {
        sortscan::scan(self, call)
    }

    fn sort(&self, call: &SortCall<'_>) -> Result<()> {
        sortscan::sort(self, call)
    }

    fn synchronize(&self) -> Result<()> {
        self.flush()?;
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| backend_err(&self.label(), format!("poll: {e}")))?;
        self.take_errors()?;
        self.check_guard()
    }
}
