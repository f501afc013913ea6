//! Elementwise and reduction launches of the C++ backends (CUDA, HIP), written once: operand
//! checks, axis merging, the layout class and index width of a launch, the in-memory cache of
//! prepared kernels keyed by (kernel, specialisation), argument packing, grid sizing and the
//! reduction's split/finish scheme. A backend implements [`GpuDriver`] (compile and load a
//! module, launch a function on its stream, say how many SMs/CUs it has, ...) and forwards
//! `Backend::elementwise` / `Backend::reduce` to [`elementwise`] / [`reduce`].
//!
//! Everything that decides *what* to launch is a pure function here ([`ElementwisePlan`],
//! [`ReduceShapes`], [`ReduceLaunch`], [`grid_for`]) and is unit-tested without a GPU.
//!
//! What differs per backend is only what [`GpuDriver`] asks for: the C++ [`Flavor`], the number
//! of SMs/CUs (grid sizes scale with it), the warp/wavefront size (for `hip-kernels/`), the
//! occupancy query (CUDA answers; HIP uses the fallback of 4 blocks per CU), the disk cache and
//! compiler behind [`GpuDriver::load_module`], and the launch call itself.
//!
//! Files: this one ([`DevBuf`], [`GpuDriver`], operand checks), `cache.rs` (prepared kernels and
//! their caches), `grid.rs` (grid sizing, the 64-bit index threshold), `elementwise.rs` (the plan:
//! layout class, index width, packing, launch dims), `reduce.rs` (shapes, entries, splits),
//! `raw.rs` (raw-kernel argument slots).

use crate::backend::{dtype_unsupported, Backend, Buffer, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::cpp::Flavor;
use std::sync::{Mutex, MutexGuard};

/// One of a backend's buffers as the launch code sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevBuf {
    /// Device address of element 0.
    pub ptr: u64,
    /// Elements.
    pub len: usize,
    /// Element type.
    pub dtype: DType,
}

impl DevBuf {
    /// Device address of element `offset`.
    pub fn at(&self, offset: usize) -> u64 {
        self.ptr + (offset * self.dtype.itemsize()) as u64
    }
}

/// The driver calls of a C++ GPU backend (CUDA, HIP); everything else about elementwise,
/// reduction, scan and sort launches is shared (this module and [`super::sortscan`]).
pub trait GpuDriver: Backend + Sized {
    /// A loaded kernel function.
    type Func: Copy + Send + Sync + 'static;

    /// The C++ dialect the backend compiles.
    fn flavor(&self) -> Flavor;

    /// Streaming multiprocessors (CUDA) or compute units (HIP): grids scale with it.
    fn compute_units(&self) -> usize;

    /// Threads per warp (32) or wavefront (64 on CDNA/GCN, 32 on RDNA).
    fn warp_size(&self) -> u32;

    /// One of this device's buffers, or the backend's error for a foreign one.
    ///
    /// # Errors
    /// The backend's "not my buffer" error.
    fn dev_buf(&self, b: &Buffer, op: &str) -> Result<DevBuf>;

    /// Makes the device current on the calling thread (before launches and allocations).
    ///
    /// # Errors
    /// The driver's error.
    fn activate(&self) -> Result<()>;

    /// Compiles `source` (or finds it in the backend's caches, memory then disk), loads it and
    /// resolves `entries`, in order. The module stays loaded for the backend's life.
    ///
    /// # Errors
    /// `Error::Compile` with the compiler's log and the source; the driver's load errors.
    fn load_module(&self, name: &str, source: &str, entries: &[String]) -> Result<Vec<Self::Func>>;

    /// [`GpuDriver::load_module`] with a user kernel's compiler options (CuPy's `options=` of
    /// `ElementwiseKernel`), which the driver translates into its compiler's flags; the
    /// module is cached apart per option list. The default takes no options (empty:
    /// `load_module`; others: `Unsupported`).
    ///
    /// # Errors
    /// As [`GpuDriver::load_module`]; `Unsupported` for options this driver cannot pass.
    fn load_module_opts(
        &self,
        name: &str,
        source: &str,
        entries: &[String],
        options: &[String],
    ) -> Result<Vec<Self::Func>> {
        if options.is_empty() {
            self.load_module(name, source, entries)
        } else {
            Err(Error::Unsupported {
                op: name.into(),
                backend: self.info().label(),
                reason: "this backend passes no compiler options".into(),
            })
        }
    }

    /// Queues `f` on the backend's stream with one by-value struct argument whose bytes are
    /// `args`. `what` names the kernel in errors.
    ///
    /// # Safety
    /// `f` takes exactly one struct laid out as `args`, and every device address in `args` is
    /// valid for everything the kernel does with it (the callers here check operands against
    /// their buffers).
    ///
    /// # Errors
    /// The driver's launch error.
    unsafe fn launch(
        &self,
        f: Self::Func,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [u8],
        what: &str,
    ) -> Result<()>;

    /// Resident blocks of `threads` threads per SM/CU for `f`, if the driver can tell (at
    /// least 1).
    fn occupancy(&self, f: Self::Func, threads: u32) -> Option<usize>;

    /// The most threads per block `f` can be launched with (its registers and shared memory
    /// allow), if the driver can tell (`cuFuncGetAttribute`'s MAX_THREADS_PER_BLOCK). `None`:
    /// the kernel's `__launch_bounds__` is trusted.
    fn max_block_threads(&self, f: Self::Func) -> Option<u32> {
        let _ = f;
        None
    }

    /// The backend's caches of prepared kernels.
    fn kernel_caches(&self) -> &KernelCaches<Self::Func>;
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `DTypeNotSupported` for the first of `dts` the backend refuses, naming `op`.
///
/// # Errors
/// As described.
pub fn check_dtypes<B: Backend + ?Sized>(be: &B, op: &str, dts: &[DType]) -> Result<()> {
    for d in dts {
        if let Err(reason) = be.supports_dtype(*d) {
            return Err(dtype_unsupported(op, *d, be.info(), reason));
        }
    }
    Ok(())
}

/// An emitter error names the emitter as the device; say which device it is.
fn relabel<B: Backend + ?Sized>(be: &B, e: Error) -> Error {
    match e {
        Error::DTypeNotSupported {
            op, dtype, reason, ..
        } => Error::DTypeNotSupported {
            op,
            dtype,
            device: be.info().label(),
            reason,
        },
        e => e,
    }
}

fn backend_err<B: Backend + ?Sized>(be: &B, msg: impl Into<String>) -> Error {
    Error::Backend {
        backend: be.info().label(),
        msg: msg.into(),
    }
}

/// Checks an operand: one of the backend's buffers, of `dtype`, with every addressed element
/// inside it.
///
/// # Errors
/// The backend's foreign-buffer error, or `InvalidArgument` naming `op`.
pub fn check_operand<D: GpuDriver>(
    be: &D,
    op: &str,
    o: &Operand<'_>,
    dtype: DType,
) -> Result<DevBuf> {
    let b = be.dev_buf(o.buffer, op)?;
    if b.dtype != dtype {
        return Err(Error::invalid(
            op,
            format!(
                "operand buffer is {} but the kernel expects {dtype}",
                b.dtype
            ),
        ));
    }
    let (lo, hi) = o.layout.extent();
    if o.layout.size() > 0 && (lo < 0 || hi as usize > b.len) {
        return Err(Error::invalid(
            op,
            format!(
                "layout {:?} addresses elements outside a buffer of {}",
                o.layout, b.len
            ),
        ));
    }
    Ok(b)
}

mod cache;
mod elementwise;
mod grid;
mod raw;
mod reduce;

pub use cache::{
    named_module, prepare_elementwise, prepare_elementwise_bounded, prepare_elementwise_opts,
    prepare_reduce, prepare_reduce_opts, KernelCaches, NamedModule, Prepared,
};
pub use elementwise::{
    check_block_size, elementwise, elementwise_block, elementwise_opts, run_elementwise,
    run_elementwise_block, run_elementwise_opts, ElementwisePlan,
};
pub use grid::{grid_for, is_c_contiguous, INDEX64_FROM};
pub use raw::{raw_arg_slots, raw_scalar_slot};
pub use reduce::{reduce, reduce_opts, ReduceEntry, ReduceLaunch, ReduceShapes, REDUCE_FINISH};

#[cfg(test)]
mod tests;
