//! A shared library for Python's `ctypes` that hands cupy-rs arrays to PyTorch and takes
//! PyTorch tensors back, both through DLPack without a copy. `bench/dlpack_torch.py` loads it
//! (`target/release/examples/libdlpack_torch.so`) and checks pointer equality and values.
//!
//! Every function returns null / NaN on error and keeps the message for
//! [`cupy_rs_last_error`].

use cupy::dlpack::{self, ffi::DLManagedTensor};
use std::ffi::{c_char, CString};
use std::sync::Mutex;

static LAST_ERROR: Mutex<Option<CString>> = Mutex::new(None);

fn fail(e: impl std::fmt::Display) {
    *LAST_ERROR.lock().unwrap_or_else(|p| p.into_inner()) =
        CString::new(e.to_string().replace('\0', " ")).ok();
}

/// `arange(n)` as float32 on the current device (`CUPY_BACKEND` or discovery), times `scale`,
/// exported as a `DLManagedTensor`; the array's element-0 address goes to `*address`.
///
/// # Safety
/// `address` is null or points to a writable u64.
#[no_mangle]
pub unsafe extern "C" fn cupy_rs_export_arange(
    n: i64,
    scale: f32,
    address: *mut u64,
) -> *mut DLManagedTensor {
    let run = || -> cupy::Result<*mut DLManagedTensor> {
        let a = (&cupy::arange(n as f64)?.astype(cupy::DType::Float32)? * f64::from(scale))?;
        if !address.is_null() {
            // SAFETY: the caller passes a writable u64 or null.
            unsafe { *address = a.buffer().address().unwrap_or(0) };
        }
        a.to_dlpack()
    };
    run().unwrap_or_else(|e| {
        fail(e);
        std::ptr::null_mut()
    })
}

/// Imports a `DLManagedTensor` (consumed on success), returns the sum of its elements as
/// float64 and the element-0 address in `*address`; NaN on error (the tensor is then not
/// consumed).
///
/// # Safety
/// `t` is a valid DLPack tensor nobody else consumes.
#[no_mangle]
pub unsafe extern "C" fn cupy_rs_import_sum(t: *mut DLManagedTensor, address: *mut u64) -> f64 {
    // SAFETY: the caller's contract.
    let run = || -> cupy::Result<f64> {
        let a = unsafe { dlpack::from_dlpack(t)? };
        if !address.is_null() {
            let first = a.buffer().address().unwrap_or(0)
                + (a.layout().offset * a.dtype().itemsize()) as u64;
            // SAFETY: the caller passes a writable u64 or null.
            unsafe { *address = first };
        }
        let s = cupy::sum(&a.astype(cupy::DType::Float64)?)?;
        Ok(s.to_vec::<f64>()?[0])
    };
    run().unwrap_or_else(|e| {
        fail(e);
        f64::NAN
    })
}

/// The current device's label (`"cuda:0 (NVIDIA H200)"`), for the report.
#[no_mangle]
pub extern "C" fn cupy_rs_device_label() -> *const c_char {
    static LABEL: Mutex<Option<CString>> = Mutex::new(None);
    let l = cupy::Device::current()
        .map(|d| d.label())
        .unwrap_or_else(|e| e.to_string());
    let mut g = LABEL.lock().unwrap_or_else(|p| p.into_inner());
    *g = CString::new(l).ok();
    g.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

/// The last error's message (valid until the next error), or null.
#[no_mangle]
pub extern "C" fn cupy_rs_last_error() -> *const c_char {
    LAST_ERROR
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map_or(std::ptr::null(), |c| c.as_ptr())
}
