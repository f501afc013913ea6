//! Adapters: discovery (sorted: hardware before software, Vulkan first), opening a device with
//! the features this backend uses, the provider.

use crate::{loop_budget, LoopGuard, WgpuBackend};
use cupy_core::backend::{Backend, BackendKind, BackendProvider, DeviceInfo};
use cupy_core::kernel::wgsl::WgslOptions;
use cupy_core::{Error, Result};
use std::any::Any;
use std::sync::{Arc, Mutex};

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

pub(crate) fn sorted_adapters() -> Vec<wgpu::Adapter> {
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

    fn check_kernel(
        &self,
        kernel: &cupy_core::kernel::ir::Kernel,
    ) -> std::result::Result<(), String> {
        crate::support::check_kernel(kernel)
    }

    fn check_reduction(
        &self,
        kernel: &cupy_core::kernel::ir::ReduceKernel,
    ) -> std::result::Result<(), String> {
        crate::support::check_reduction(kernel)
    }

    fn check_primitive(
        &self,
        primitive: cupy_core::backend::Primitive,
        dtype: cupy_core::DType,
    ) -> std::result::Result<(), String> {
        crate::support::check_primitive(primitive, dtype)
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

    /// Opens adapter `index` with the wgpu `features` left off even where the adapter has them
    /// (tests: without `SHADER_INT64_ATOMIC_ALL_OPS` the int64/uint64/float64 atomic updates
    /// run on pairs of 32-bit words, the path of adapters without 64-bit atomics).
    ///
    /// # Errors
    /// As [`BackendProvider::open`].
    pub fn open_without_features(
        &self,
        index: usize,
        features: wgpu::Features,
    ) -> Result<Arc<dyn Backend>> {
        self.open_masked(index, None, features)
    }

    /// Opens adapter `index` with storage bindings of at most `bytes` bytes (rounded down to
    /// 256, at least 1 KiB; never above the adapter's cap), as `CUPY_WGPU_BINDING_LIMIT` does:
    /// tests of arrays past one binding at small sizes.
    ///
    /// # Errors
    /// As [`BackendProvider::open`].
    pub fn open_with_binding_limit(&self, index: usize, bytes: u64) -> Result<Arc<dyn Backend>> {
        self.open_capped(index, None, wgpu::Features::empty(), Some(bytes))
    }

    fn open_with(&self, index: usize, budget: Option<Option<u64>>) -> Result<Arc<dyn Backend>> {
        self.open_masked(index, budget, wgpu::Features::empty())
    }

    fn open_masked(
        &self,
        index: usize,
        budget: Option<Option<u64>>,
        off: wgpu::Features,
    ) -> Result<Arc<dyn Backend>> {
        self.open_capped(index, budget, off, None)
    }

    fn open_capped(
        &self,
        index: usize,
        budget: Option<Option<u64>>,
        off: wgpu::Features,
        cap: Option<u64>,
    ) -> Result<Arc<dyn Backend>> {
        let r = std::panic::catch_unwind(|| -> Result<Arc<dyn Backend>> {
            let adapters = sorted_adapters();
            let a = adapters
                .into_iter()
                .nth(index)
                .ok_or_else(|| Error::BackendUnavailable {
                    backend: "wgpu".into(),
                    reason: format!("no wgpu adapter with index {index}"),
                })?;
            let mut be = WgpuBackend::with_budget(index, a, budget, off)?;
            if let Some(c) = cap {
                be.binding_cap = be.binding_cap.min((c / 256 * 256).max(1024));
            }
            Ok(Arc::new(be))
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

impl WgpuBackend {
    /// Opens a device on `adapter` with the features this backend uses (SHADER_F64,
    /// SHADER_INT64, SHADER_F16, SHADER_INT64_ATOMIC_ALL_OPS, SUBGROUP where present) and the
    /// adapter's own limits.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] if the device cannot be created.
    pub fn new(index: usize, adapter: wgpu::Adapter) -> Result<WgpuBackend> {
        WgpuBackend::with_budget(index, adapter, None, wgpu::Features::empty())
    }

    /// As [`WgpuBackend::new`], with the loop budget given (`Some`) instead of detected and the
    /// features `off` left off. `CUPY_WGPU_INT64_ATOMICS=0` leaves `SHADER_INT64_ATOMIC_ALL_OPS`
    /// off (the 32-bit-pair atomics of adapters without it, on any adapter).
    fn with_budget(
        index: usize,
        adapter: wgpu::Adapter,
        budget: Option<Option<u64>>,
        off: wgpu::Features,
    ) -> Result<WgpuBackend> {
        let info = device_info(index, &adapter);
        let budget = budget.unwrap_or_else(|| loop_budget(&adapter.get_info()));
        let mut wanted = wgpu::Features::SHADER_F64
            | wgpu::Features::SHADER_INT64
            | wgpu::Features::SHADER_F16
            | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS
            | wgpu::Features::SUBGROUP
            | crate::timing::FEATURES;
        if std::env::var("CUPY_WGPU_INT64_ATOMICS").is_ok_and(|v| v.trim() == "0") {
            wanted.remove(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS);
        }
        // Cooperative matrices (tensor cores) for the float16 GEMM (`gemm_coop.rs`): wgpu's
        // experimental feature, requested by default on NVIDIA's Vulkan driver, where it was
        // tested (H100, 2026-12-07: float16 8192 at 82.6 TFLOP/s against 22.9 through the
        // float32 path; the crate's tests 36/36 and the facade's matmul groups with it on),
        // and elsewhere only with `CUPY_WGPU_COOP=1`; `CUPY_WGPU_COOP=0` turns it off.
        if coop_wanted(&adapter.get_info()) {
            wanted |= wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
        }
        let features = adapter.features() & wanted & !off;
        let coop_on = features.contains(
            wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
                | wgpu::Features::SHADER_F16
                | wgpu::Features::SUBGROUP,
        );
        let features = if coop_on {
            features
        } else {
            features - wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
        };
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("cupy-rs"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: if coop_on {
                // SAFETY: only the cooperative-matrix GEMM uses an experimental feature; its
                // pipeline is built on first use, and a failure there sends every GEMM back to
                // the tiled kernel (`gemm_coop.rs`).
                unsafe { wgpu::ExperimentalFeatures::enabled() }
            } else {
                wgpu::ExperimentalFeatures::disabled()
            },
            ..Default::default()
        };
        let coop = coop_on.then(|| {
            let ai = adapter.get_info();
            crate::gemm_coop::CoopInfo::new(
                &adapter.cooperative_matrix_properties(),
                ai.subgroup_min_size,
                ai.subgroup_max_size,
            )
        });
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
        let lost: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let (lost_flag, lost_sink) = (lost.clone(), errors.clone());
        device.set_device_lost_callback(move |reason, message| {
            lost_flag.store(true, std::sync::atomic::Ordering::SeqCst);
            if let Ok(mut v) = lost_sink.lock() {
                v.push(format!("the device was lost ({reason:?}): {message}"));
            }
        });
        let opts = WgslOptions {
            shader_f64: features.contains(wgpu::Features::SHADER_F64),
            shader_int64: features.contains(wgpu::Features::SHADER_INT64),
            int64_atomics: features.contains(
                wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            ),
            fused_fma: !info.software,
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
            limits: limits.clone(),
            opts,
            pending: Mutex::default(),
            pipes: Mutex::default(),
            raw_pipes: Mutex::default(),
            fft_tables: Mutex::default(),
            errors,
            lost,
            scope: Mutex::default(),
            loop_budget: budget,
            guard,
            atomic_lock: std::sync::OnceLock::new(),
            pool: Arc::new(crate::pool::BufferPool::new()),
            binding_cap: crate::window::binding_cap(&limits),
            rings: Default::default(),
            subgroups: features.contains(wgpu::Features::SUBGROUP)
                && !std::env::var("CUPY_WGPU_SUBGROUPS").is_ok_and(|v| v.trim() == "0"),
            coop,
            timer: std::sync::OnceLock::new(),
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
}

/// Whether to request cooperative matrices (see the device's feature list): `CUPY_WGPU_COOP=1`
/// or `0` decides; unset, NVIDIA's proprietary driver (PCI vendor 0x10de, the driver the
/// cooperative GEMM was tested on) says yes and every other adapter no.
fn coop_wanted(info: &wgpu::AdapterInfo) -> bool {
    match std::env::var("CUPY_WGPU_COOP").map(|v| v.trim().to_string()) {
        Ok(v) if v == "1" => true,
        Ok(v) if v == "0" => false,
        _ => info.vendor == 0x10de && info.driver.contains("NVIDIA"),
    }
}
