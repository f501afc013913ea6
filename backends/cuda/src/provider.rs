//! Device discovery: [`CudaProvider`] (the driver's devices and what they can run) and the
//! guards that turn a missing or failing driver into [`Error::BackendUnavailable`].

use crate::CudaBackend;
use cudarc::cublas::sys::is_culib_present as cublas_present;
use cudarc::cufft::sys::is_culib_present as cufft_present;
use cudarc::cusolver::sys::is_culib_present as cusolver_present;
use cudarc::cusparse::sys::is_culib_present as cusparse_present;
use cudarc::driver::{result, sys};
use cudarc::nvrtc::sys::is_culib_present as nvrtc_present;
use cupy_core::backend::{Backend, BackendKind, BackendProvider, DeviceInfo};
use cupy_core::kernel::cpp::Flavor;
use cupy_core::kernel::ir::Kernel;
use cupy_core::{DType, Error, Result};
use std::sync::Arc;

pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: reason.into(),
    }
}

/// Runs `f` with cudarc's missing-library panics turned into errors.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
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

/// A CUDA library that cudarc opens on first use (and panics on, when the file or a symbol is
/// missing): its name, an example file name, and cudarc's presence check.
pub(crate) struct CuLib {
    /// What to install, e.g. "cuSPARSE".
    name: &'static str,
    /// A file that provides it, e.g. "libcusparse.so.12".
    soname: &'static str,
    /// cudarc's `is_culib_present` (only tries to open the file).
    present: unsafe fn() -> bool,
}

/// cuBLAS.
pub(crate) const CUBLAS: CuLib = CuLib::new("cuBLAS", "libcublas.so.13", cublas_present);
/// cuFFT.
pub(crate) const CUFFT: CuLib = CuLib::new("cuFFT", "libcufft.so.12", cufft_present);
/// cuSOLVER.
pub(crate) const CUSOLVER: CuLib = CuLib::new("cuSOLVER", "libcusolver.so.12", cusolver_present);
/// cuSPARSE.
pub(crate) const CUSPARSE: CuLib = CuLib::new("cuSPARSE", "libcusparse.so.12", cusparse_present);
/// NVRTC.
pub(crate) const NVRTC: CuLib =
    CuLib::new("the CUDA toolkit's NVRTC", "libnvrtc.so.13", nvrtc_present);

impl CuLib {
    const fn new(name: &'static str, soname: &'static str, present: unsafe fn() -> bool) -> CuLib {
        CuLib {
            name,
            soname,
            present,
        }
    }

    /// The file's stem, e.g. "libcusparse".
    fn stem(&self) -> &'static str {
        self.soname.split(".so").next().unwrap_or(self.soname)
    }

    /// Whether the library can be opened.
    pub(crate) fn present(&self) -> bool {
        // SAFETY: only tries to open the library; a panic is taken as absent.
        std::panic::catch_unwind(|| unsafe { (self.present)() }).unwrap_or(false)
    }

    /// "libcusparse not found (install cuSPARSE, e.g. libcusparse.so.12)".
    pub(crate) fn missing(&self) -> String {
        format!(
            "{} not found (install {}, e.g. {})",
            self.stem(),
            self.name,
            self.soname
        )
    }

    /// [`Error::BackendUnavailable`] saying the library is missing.
    pub(crate) fn unavailable(&self) -> Error {
        unavailable(self.missing())
    }

    /// Runs `f`, which opens the library's handle, if the library is present: its absence, or
    /// cudarc's panic on a missing symbol, becomes `Err(wrap(reason))`.
    pub(crate) fn open<T, E>(
        &self,
        wrap: impl Fn(String) -> E,
        f: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        if !self.present() {
            return Err(wrap(self.missing()));
        }
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
            Err(wrap(format!(
                "{} failed to load (a symbol is missing)",
                self.stem()
            )))
        })
    }
}

pub(crate) fn driver_present() -> std::result::Result<(), String> {
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

pub(crate) fn device_info(index: usize) -> std::result::Result<DeviceInfo, String> {
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

    fn check_kernel(&self, kernel: &Kernel) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_kernel(kernel, Flavor::Cuda)
    }

    fn check_reduction(
        &self,
        kernel: &cupy_core::kernel::ir::ReduceKernel,
    ) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_reduction(kernel, Flavor::Cuda)
    }

    fn check_primitive(
        &self,
        primitive: cupy_core::backend::Primitive,
        dtype: DType,
    ) -> std::result::Result<(), String> {
        cupy_core::gpu::support::check_primitive(primitive, dtype)
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
