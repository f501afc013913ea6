//! Discovery: the HIP runtime's devices and [`HipProvider`].

use super::*;

pub(crate) const NAME: &str = "hip";

pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: NAME.into(),
        reason: reason.into(),
    }
}

/// Describes the loaded runtime for messages: `"HIP runtime 5.2.21153 (libamdhip64.so.5)"`.
pub(crate) fn runtime_label(hip: &Hip) -> String {
    match hip.runtime_version() {
        Ok(v) => format!(
            "HIP runtime {} loaded from {}",
            version_string(v),
            hip.lib.path
        ),
        Err(e) => format!(
            "HIP runtime of unknown version loaded from {} ({e})",
            hip.lib.path
        ),
    }
}

/// Lists the HIP devices, or says why there are none (library missing, no GPU, ...).
pub fn probe_devices() -> std::result::Result<Vec<DeviceInfo>, String> {
    let hip = Hip::get()?;
    let label = runtime_label(&hip);
    let no_gpu = |e: &HipError| {
        if e.code == h::hipErrorNoDevice {
            format!("{label}; {e}: no AMD GPU found")
        } else {
            format!("{label}; {e}")
        }
    };
    // Without a GPU, ROCm 5.2's hipInit fails with hipErrorInvalidDevice (101) and
    // hipGetDeviceCount with hipErrorNoDevice (100): report the latter, which says what is wrong.
    let init = hip.init();
    let n = match (init, hip.device_count()) {
        (_, Err(e)) => return Err(no_gpu(&e)),
        (Err(e), Ok(_)) => return Err(no_gpu(&e)),
        (Ok(()), Ok(n)) => n,
    };
    if n == 0 {
        return Err(format!(
            "{label}; hipGetDeviceCount returned 0 devices: no AMD GPU found"
        ));
    }
    let driver = hip
        .driver_version()
        .map(version_string)
        .unwrap_or_else(|e| format!("unknown ({e})"));
    (0..n)
        .map(|i| {
            let d = i as i32;
            let name = hip
                .device_name(d)
                .map_err(|e| format!("{label}; device {i}: {e}"))?;
            let arch = hip.arch_name(d).unwrap_or_default();
            let cus = hip
                .attribute(h::hipDeviceAttributeMultiprocessorCount, d)
                .unwrap_or(0);
            Ok(DeviceInfo {
                kind: BackendKind::Hip,
                index: i,
                name,
                details: format!("{label}, driver {driver}, {arch}, {cus} compute units"),
                software: false,
                total_memory: hip.total_mem(d).ok(),
            })
        })
        .collect()
}

/// Discovery entry point of the HIP backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct HipProvider;

impl BackendProvider for HipProvider {
    fn kind(&self) -> BackendKind {
        BackendKind::Hip
    }

    fn check_kernel(&self, kernel: &Kernel) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_kernel(kernel, Flavor::Hip)
    }

    fn check_reduction(
        &self,
        kernel: &cupy_core::kernel::ir::ReduceKernel,
    ) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_reduction(kernel, Flavor::Hip)
    }

    fn check_primitive(
        &self,
        primitive: cupy_core::backend::Primitive,
        dtype: DType,
    ) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_primitive(primitive, dtype)
    }

    fn probe(&self) -> std::result::Result<Vec<DeviceInfo>, String> {
        std::panic::catch_unwind(probe_devices)
            .unwrap_or_else(|_| Err("the HIP probe panicked (bug in cupy-hip)".into()))
    }

    fn open(&self, index: usize) -> Result<Arc<dyn Backend>> {
        Ok(Arc::new(HipBackend::open(index)?))
    }
}
