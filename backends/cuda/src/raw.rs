//! Raw (user) kernel launches on CUDA: launch limits, the NVRTC module, by-value arguments,
//! `cuLaunchKernel` on the thread's current stream.

use crate::CudaBackend;
use cudarc::driver::{result, sys};
use cupy_core::backend::RawLaunch;
use cupy_core::gpu::launch;
use cupy_core::{Error, Result};
use std::ffi::c_void;

/// CUDA's launch limits, checked before the driver sees the launch: every dimension at least 1,
/// at most 1024 threads per block (1024 x 1024 x 64), grid at most 2^31-1 x 65535 x 65535.
pub fn check_raw_dims(op: &str, grid: [u32; 3], block: [u32; 3]) -> Result<()> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} and block {block:?} must be at least 1 in every dimension"),
        ));
    }
    let threads: u64 = block.iter().map(|&b| b as u64).product();
    if threads > 1024 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 {
        return Err(Error::invalid(
            op,
            format!(
                "block {block:?} ({threads} threads) exceeds the limit of 1024 threads per block \
                 (at most 1024 x 1024 x 64)"
            ),
        ));
    }
    if grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
        return Err(Error::invalid(
            op,
            format!("grid {grid:?} exceeds the limit of 2^31-1 x 65535 x 65535 blocks"),
        ));
    }
    Ok(())
}

impl CudaBackend {
    /// A raw (user) kernel launch: checks, NVRTC module, by-value arguments, `cuLaunchKernel`.
    pub(crate) fn raw_run(&self, call: &RawLaunch<'_>) -> Result<()> {
        let op = format!("RawKernel {}", call.name);
        check_raw_dims(&op, call.grid, call.block)?;
        // Argument bytes: one 16-byte-aligned slot per argument (device pointer or scalar).
        let mut slots = launch::raw_arg_slots(self, &op, call.args)?;
        self.bind()?;
        let module = self.compiler.raw_module(
            call.name,
            call.source,
            call.options,
            call.name_expressions,
        )?;
        let f = module.lookup(call.name).ok_or_else(|| Error::Compile {
            backend: self.info.label(),
            kernel: call.name.into(),
            log: format!(
                "the module has no kernel named {:?} (declare it `extern \"C\" __global__` so \
                 its name is not mangled, or give a template's instance as a name expression)",
                call.name
            ),
            source_code: call.source.into(),
        })?;
        let threads: u64 = call.block.iter().map(|&b| b as u64).product();
        // SAFETY: a loaded function; plain attribute query.
        let max_threads = unsafe {
            result::function::get_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .unwrap_or(1024)
        .max(1) as u64;
        if threads > max_threads {
            return Err(Error::invalid(
                &op,
                format!(
                    "block {:?} has {threads} threads but this kernel can run at most \
                     {max_threads} per block on {}",
                    call.block,
                    self.info.label()
                ),
            ));
        }
        if call.shared_mem > 48 * 1024 {
            // Opt in to more than 48 KiB of dynamic shared memory (the driver checks the limit).
            // SAFETY: a loaded function; attribute set before the launch that needs it.
            unsafe {
                result::function::set_function_attribute(
                    f,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    call.shared_mem as i32,
                )
            }
            .map_err(|e| {
                Error::invalid(
                    &op,
                    format!(
                        "{} bytes of dynamic shared memory are not available: {e:?}",
                        call.shared_mem
                    ),
                )
            })?;
        }
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s.as_mut_ptr() as *mut c_void)
            .collect();
        let g = (call.grid[0], call.grid[1], call.grid[2]);
        let b = (call.block[0], call.block[1], call.block[2]);
        // SAFETY: each parameter points at a slot holding the argument's bytes (device pointers
        // checked against their buffers, scalars at their C size); the kernel's signature is the
        // user's responsibility, as with cuLaunchKernel in CuPy. The stream is ours.
        unsafe { result::launch_kernel(f, g, b, call.shared_mem, self.cur_stream(), &mut params) }
            .map_err(|e| {
                self.err(format!(
                    "launching raw kernel {} (grid {:?}, block {:?}, shared_mem {}) failed: {e:?}",
                    call.name, call.grid, call.block, call.shared_mem
                ))
            })
    }
}
