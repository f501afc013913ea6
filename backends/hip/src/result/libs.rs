//! The ROCm libraries beside the runtime: rocBLAS ([`Rocblas`]), rocFFT ([`Rocfft`]) and
//! rocSOLVER ([`Rocsolver`]), each loaded once per process with its status check.

use super::cstr;
use crate::sys::rocblas::{self as b, RocblasApi};
use crate::sys::{load_table, Lib};
use std::ffi::c_char;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A failed rocBLAS call.
#[derive(Clone, Debug)]
pub struct BlasError {
    /// The function.
    pub call: &'static str,
    /// `rocblas_status`.
    pub status: i32,
    /// Its name.
    pub name: String,
}

impl fmt::Display for BlasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.call, self.name, self.status)
    }
}

/// The loaded rocBLAS.
#[derive(Debug)]
pub struct Rocblas {
    /// Its function table.
    pub api: RocblasApi,
    /// The library.
    pub lib: Lib,
}

static ROCBLAS: OnceLock<Result<Arc<Rocblas>, String>> = OnceLock::new();

impl Rocblas {
    /// Loads rocBLAS once per process.
    ///
    /// # Errors
    /// The paths tried or the missing symbol.
    pub fn get() -> Result<Arc<Rocblas>, String> {
        ROCBLAS
            .get_or_init(|| {
                // SAFETY: table written for rocBLAS (sys::rocblas); library kept alongside.
                let (api, lib) = unsafe {
                    load_table(
                        "rocBLAS (librocblas)",
                        b::LIB_NAMES,
                        "rocblas_create_handle",
                        RocblasApi::load,
                    )
                }?;
                Ok(Arc::new(Rocblas { api, lib }))
            })
            .clone()
    }

    /// Turns a `rocblas_status` into a `Result`.
    pub fn check(&self, call: &'static str, s: b::rocblas_status) -> Result<(), BlasError> {
        if s == b::rocblas_status_success {
            return Ok(());
        }
        // SAFETY: accepts any status; returns a static string.
        let mut name = cstr(unsafe { (self.api.rocblas_status_to_string)(s) });
        if name.is_empty() {
            name = b::STATUS_NAMES
                .get(s as usize)
                .map_or_else(|| "unknown rocblas_status".to_string(), |n| n.to_string());
        }
        Err(BlasError {
            call,
            status: s,
            name,
        })
    }
}

/// rocFFT, loaded (and `rocfft_setup` called) once per process.
pub struct Rocfft {
    /// Its function table.
    pub api: crate::sys::rocfft::RocfftApi,
    /// The library.
    pub lib: Lib,
}

static ROCFFT: OnceLock<Result<Arc<Rocfft>, String>> = OnceLock::new();

impl Rocfft {
    /// Loads rocFFT once per process and runs `rocfft_setup`.
    ///
    /// # Errors
    /// The paths tried, the missing symbol, or the failed setup.
    pub fn get() -> Result<Arc<Rocfft>, String> {
        ROCFFT
            .get_or_init(|| {
                // SAFETY: table written for rocFFT (sys::rocfft); library kept alongside.
                let (api, lib) = unsafe {
                    load_table(
                        "rocFFT (librocfft)",
                        crate::sys::rocfft::LIB_NAMES,
                        "rocfft_plan_create",
                        crate::sys::rocfft::RocfftApi::load,
                    )
                }?;
                let f = Rocfft { api, lib };
                // SAFETY: no arguments; called once.
                f.check("rocfft_setup", unsafe { (f.api.rocfft_setup)() })?;
                Ok(Arc::new(f))
            })
            .clone()
    }

    /// Turns a `rocfft_status` into a `Result` naming the call and the status.
    ///
    /// # Errors
    /// The call and status, as text.
    pub fn check(&self, call: &str, s: crate::sys::rocfft::rocfft_status) -> Result<(), String> {
        const NAMES: [&str; 9] = [
            "rocfft_status_success",
            "rocfft_status_failure",
            "rocfft_status_invalid_arg_value",
            "rocfft_status_invalid_dimensions",
            "rocfft_status_invalid_array_type",
            "rocfft_status_invalid_strides",
            "rocfft_status_invalid_distance",
            "rocfft_status_invalid_offset",
            "rocfft_status_invalid_work_buffer",
        ];
        if s == crate::sys::rocfft::rocfft_status_success {
            return Ok(());
        }
        let name = NAMES
            .get(s as usize)
            .copied()
            .unwrap_or("unknown rocfft_status");
        Err(format!("rocFFT {call} failed: {name} ({s})"))
    }
}

/// The loaded rocSOLVER (it takes rocBLAS handles: [`Rocblas`] is loaded alongside).
#[derive(Debug)]
pub struct Rocsolver {
    /// Its function table.
    pub api: crate::sys::rocsolver::RocsolverApi,
    /// The library.
    pub lib: Lib,
}

static ROCSOLVER: OnceLock<Result<Arc<Rocsolver>, String>> = OnceLock::new();

impl Rocsolver {
    /// Loads rocSOLVER once per process (`librocsolver.so.1`/`.so.0`, in `$ROCM_PATH/lib`,
    /// `$HIP_PATH/lib`, `/opt/rocm/lib`, then the system loader path).
    ///
    /// # Errors
    /// Names rocSOLVER and every path tried, or the missing symbol.
    pub fn get() -> Result<Arc<Rocsolver>, String> {
        ROCSOLVER
            .get_or_init(|| {
                // SAFETY: table written for rocSOLVER (sys::rocsolver); library kept alongside.
                let (api, lib) = unsafe {
                    load_table(
                        "rocSOLVER (librocsolver)",
                        crate::sys::rocsolver::LIB_NAMES,
                        "rocsolver_dgetrf_strided_batched",
                        crate::sys::rocsolver::RocsolverApi::load,
                    )
                }?;
                Ok(Arc::new(Rocsolver { api, lib }))
            })
            .clone()
    }

    /// The library's version string (`rocsolver_get_version_string`).
    pub fn version(&self) -> String {
        let mut buf = vec![0 as c_char; 128];
        // SAFETY: writes at most `len` bytes, NUL-terminated, into our buffer.
        let s = unsafe { (self.api.rocsolver_get_version_string)(buf.as_mut_ptr(), buf.len()) };
        if s != b::rocblas_status_success {
            return String::new();
        }
        cstr(buf.as_ptr())
    }
}
