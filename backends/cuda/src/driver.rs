//! [`GpuDriver`] for [`CudaBackend`]: the driver calls (module loads through NVRTC, launches,
//! occupancy queries) under the launch planning shared with the HIP backend.

use crate::{compile, dev, CudaBackend, CudaFunction};
use cudarc::driver::{result, sys};
use cupy_core::backend::Buffer;
use cupy_core::gpu::launch::{DevBuf, GpuDriver, KernelCaches};
use cupy_core::kernel::cpp::Flavor;
use cupy_core::Result;
use std::ffi::c_void;

/// The CUDA driver calls of the shared launch code ([`cupy_core::gpu::launch`]).
impl GpuDriver for CudaBackend {
    type Func = CudaFunction;

    fn flavor(&self) -> Flavor {
        Flavor::Cuda
    }

    fn compute_units(&self) -> usize {
        self.sms
    }

    fn warp_size(&self) -> u32 {
        32
    }

    fn dev_buf(&self, b: &Buffer, op: &str) -> Result<DevBuf> {
        self.buf(b, op).map(dev)
    }

    fn activate(&self) -> Result<()> {
        self.bind()
    }

    fn load_module(
        &self,
        name: &str,
        source: &str,
        entries: &[String],
    ) -> Result<Vec<CudaFunction>> {
        self.load_module_opts(name, source, entries, &[])
    }

    fn load_module_opts(
        &self,
        name: &str,
        source: &str,
        entries: &[String],
        options: &[String],
    ) -> Result<Vec<CudaFunction>> {
        let module =
            self.compiler
                .module_opts(name, source, entries, &compile::user_flags(options))?;
        entries
            .iter()
            .map(|e| {
                module
                    .func(e)
                    .map(CudaFunction)
                    .ok_or_else(|| self.err(format!("missing entry {e}")))
            })
            .collect()
    }

    unsafe fn launch(
        &self,
        f: CudaFunction,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [u8],
        what: &str,
    ) -> Result<()> {
        let mut params = [args.as_mut_ptr() as *mut c_void];
        let (g, b) = ((grid[0], grid[1], grid[2]), (block[0], block[1], block[2]));
        // SAFETY: the argument bytes follow the kernel's struct layout and every pointer in it
        // is live (the caller's contract); the stream is ours.
        unsafe { result::launch_kernel(f.0, g, b, 0, self.cur_stream(), &mut params) }
            .map_err(|e| self.err(format!("launching {what} failed: {e:?}")))
    }

    fn occupancy(&self, f: CudaFunction, threads: u32) -> Option<usize> {
        // SAFETY: a loaded function; plain query.
        unsafe { result::occupancy::max_active_block_per_multiprocessor(f.0, threads as i32, 0) }
            .ok()
            .map(|n| n.max(1) as usize)
    }

    fn max_block_threads(&self, f: CudaFunction) -> Option<u32> {
        // SAFETY: a loaded function; plain query.
        unsafe {
            result::function::get_function_attribute(
                f.0,
                sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .ok()
        .map(|n| n.max(1) as u32)
    }

    fn kernel_caches(&self) -> &KernelCaches<CudaFunction> {
        &self.kernels
    }
}
