//! Devices: discovery, the current device, `CUPY_BACKEND` / `CUPY_DEVICE`, `show_config()`.
//!
//! Discovery follows DESIGN.md: CUDA devices, then HIP devices, then wgpu hardware adapters,
//! then the CPU; a software Vulkan adapter (llvmpipe) is used only when `CUPY_BACKEND=wgpu`
//! (or [`Device::get`]) names it. Backends are probed lazily: a forced backend (or
//! [`Device::get`]) probes only its own family, automatic discovery stops at the first family
//! that opens, and [`show_config`] probes them all. A forced backend that is unavailable makes
//! the first operation that needs the current device fail with
//! [`crate::Error::BackendUnavailable`] naming the reason.

use cupy_core::discovery::{self, ProbeReport, Selection};
use cupy_core::{Backend, BackendKind, BackendProvider, DeviceInfo, Result};
use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// A handle to one opened device (`cupy.cuda.Device`, but for any backend). Cheap to clone;
/// equal when it is the same device.
#[derive(Clone)]
pub struct Device {
    backend: Arc<dyn Backend>,
}

impl Device {
    /// Wraps an opened backend (for backends' own tests and custom providers).
    pub fn from_backend(backend: Arc<dyn Backend>) -> Device {
        Device { backend }
    }
    /// The backend implementing this device.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }
    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }
    /// Backend family.
    pub fn kind(&self) -> BackendKind {
        self.info().kind
    }
    /// Index within the backend family (`cupy.cuda.Device().id`).
    pub fn id(&self) -> usize {
        self.info().index
    }
    /// `"wgpu:0 (NVIDIA H200)"`.
    pub fn label(&self) -> String {
        self.info().label()
    }
    /// Waits for all work queued on the device (`Device.synchronize()`).
    ///
    /// # Errors
    /// A device error that surfaced while waiting.
    pub fn synchronize(&self) -> Result<()> {
        crate::cuda::graph::refuse_device(self, "Device.synchronize", crate::cuda::graph::WAITS)?;
        self.backend.synchronize()
    }

    /// The current device of this thread: the innermost [`with_device`], else the process
    /// default chosen by discovery (`cupy.cuda.Device()`).
    ///
    /// # Errors
    /// [`crate::Error::BackendUnavailable`] / [`crate::Error::UnknownBackend`] when discovery cannot satisfy
    /// `CUPY_BACKEND` / `CUPY_DEVICE`.
    pub fn current() -> Result<Device> {
        if let Some(d) = STACK.with(|s| s.borrow().last().cloned()) {
            return Ok(d);
        }
        let rt = runtime();
        let mut cur = rt.default.lock().unwrap_or_else(|e| e.into_inner());
        if cur.is_none() {
            *cur = Some(rt.discover());
        }
        cur.clone().expect("set above")
    }

    /// Number of devices of a backend family (hardware and software adapters alike);
    /// 0 when the backend is unavailable (`cupy.cuda.runtime.getDeviceCount()`).
    pub fn count(kind: BackendKind) -> usize {
        runtime()
            .report(kind)
            .map_or(0, |r| r.result.as_ref().map_or(0, |d| d.len()))
    }

    /// Opens device `index` of a backend family (software adapters included).
    ///
    /// Only that family is probed (`Device::get(BackendKind::Cpu, 0)` never loads Vulkan).
    ///
    /// # Errors
    /// [`crate::Error::BackendUnavailable`] naming why the backend is not there;
    /// [`crate::Error::InvalidArgument`] for an index past its devices ("the cpu backend has 1
    /// device (index 1 requested)").
    pub fn get(kind: BackendKind, index: usize) -> Result<Device> {
        let rt = runtime();
        {
            let opened = rt.opened.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(d) = opened.iter().find(|d| d.kind() == kind && d.id() == index) {
                return Ok(d.clone());
            }
        }
        rt.open(
            Selection {
                backend: Some(kind),
                device: Some(index),
            },
            "Device::get",
        )
    }

    /// Every device of every backend, in discovery order (probes every backend).
    pub fn all() -> Vec<DeviceInfo> {
        runtime()
            .all_reports()
            .into_iter()
            .flat_map(|r| r.result.unwrap_or_default())
            .collect()
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.backend, &other.backend)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<Device {}>", self.label())
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

thread_local! {
    static STACK: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `device` as this thread's current device (`with cupy.cuda.Device(n):`).
pub fn with_device<R>(device: &Device, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            STACK.with(|s| s.borrow_mut().pop());
        }
    }
    STACK.with(|s| s.borrow_mut().push(device.clone()));
    let _pop = Pop;
    f()
}

/// Sets the process-wide default device (what [`Device::current`] returns outside
/// [`with_device`]), as `CUPY_BACKEND`/`CUPY_DEVICE` would at start-up.
pub fn set_default_device(device: &Device) {
    *runtime().default.lock().unwrap_or_else(|e| e.into_inner()) = Some(Ok(device.clone()));
}

struct Runtime {
    providers: Vec<Box<dyn BackendProvider>>,
    /// One probe report per provider (same order), filled the first time that family is needed:
    /// a forced `CUPY_BACKEND=cpu` never probes wgpu (whose Vulkan loader prints
    /// `XDG_RUNTIME_DIR` noise on headless machines), nor does a machine where CUDA opens first.
    reports: Vec<OnceLock<ProbeReport>>,
    default: Mutex<Option<Result<Device>>>,
    opened: Mutex<Vec<Device>>,
}

impl Runtime {
    /// The probe report of one family (probing it on first use); `None` if not compiled in.
    fn report(&self, kind: BackendKind) -> Option<ProbeReport> {
        let i = self.providers.iter().position(|p| p.kind() == kind)?;
        Some(
            self.reports[i]
                .get_or_init(|| discovery::probe_one(self.providers[i].as_ref()))
                .clone(),
        )
    }

    /// Every family's report, in discovery order (probes them all: `show_config`).
    fn all_reports(&self) -> Vec<ProbeReport> {
        BackendKind::ALL
            .iter()
            .filter_map(|&k| self.report(k))
            .collect()
    }

    fn discover(&self) -> Result<Device> {
        let sel = Selection::from_env()?;
        let op = match std::env::var("CUPY_DEVICE") {
            Ok(v) if sel.device.is_some() => format!("CUPY_DEVICE={}", v.trim()),
            _ => "discovery".to_string(),
        };
        self.open(sel, &op)
    }

    /// Selects and opens a device, keeping one handle per (backend, index): a device opened
    /// twice (by discovery and by `Device::get`) is the same `Device`.
    fn open(&self, sel: Selection, op: &str) -> Result<Device> {
        let providers: Vec<&dyn BackendProvider> =
            self.providers.iter().map(|p| p.as_ref()).collect();
        let d = Device {
            backend: discovery::select(&providers, &|k| self.report(k), sel, op)?,
        };
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = opened
            .iter()
            .find(|o| o.kind() == d.kind() && o.id() == d.id())
        {
            return Ok(o.clone());
        }
        opened.push(d.clone());
        Ok(d)
    }
}

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let providers = crate::backends::providers();
        Runtime {
            reports: providers.iter().map(|_| OnceLock::new()).collect(),
            providers,
            default: Mutex::new(None),
            opened: Mutex::new(vec![]),
        }
    })
}

/// The text [`show_config`] prints: every backend probed with its devices or the reason it is
/// unavailable, the environment selection, and the current device.
pub fn config_string() -> String {
    let sel = Selection::from_env();
    let current = Device::current().map(|d| d.label());
    let mut s = discovery::format_config(
        &runtime().all_reports(),
        *sel.as_ref().unwrap_or(&Selection::default()),
        &current,
    );
    if let Err(e) = sel {
        s.push_str(&format!("environment error: {e}\n"));
    }
    s
}

/// Prints the configuration (`cupy.show_config()`): every backend probed, with its devices or
/// the reason it is unavailable.
pub fn show_config() {
    print!("{}", config_string());
}
routine!(
    show_config,
    Devices,
    probe: |t| (t == cupy_core::DType::Float32).then_some(crate::registry::Need::Store)
);
