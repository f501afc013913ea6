//! [`GpuDriver`] for [`HipBackend`]: the HIP calls (module builds through hipRTC, launches)
//! under the launch planning shared with the CUDA backend.

use super::*;

/// The HIP calls of the shared launch code ([`cupy_core::gpu::launch`]).
impl GpuDriver for HipBackend {
    type Func = Handle;

    fn flavor(&self) -> Flavor {
        Flavor::Hip
    }

    fn compute_units(&self) -> usize {
        self.cus
    }

    fn warp_size(&self) -> u32 {
        sortscan::warp_size(&self.arch)
    }

    fn dev_buf(&self, b: &Buffer, op: &str) -> Result<DevBuf> {
        self.buf(op, b).map(|b| DevBuf {
            ptr: b.ptr,
            len: b.len,
            dtype: b.dtype,
        })
    }

    fn activate(&self) -> Result<()> {
        self.current()
    }

    fn load_module(&self, name: &str, source: &str, entries: &[String]) -> Result<Vec<Handle>> {
        self.build(name, source, entries, &[])
    }

    fn load_module_opts(
        &self,
        name: &str,
        source: &str,
        entries: &[String],
        options: &[String],
    ) -> Result<Vec<Handle>> {
        self.build(name, source, entries, &kernels::user_flags(options))
    }

    unsafe fn launch(
        &self,
        f: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [u8],
        what: &str,
    ) -> Result<()> {
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: `f` takes one struct laid out as `args` whose device addresses are valid (the
        // caller's contract); the stream belongs to this device.
        unsafe {
            self.hip.launch(
                f.0,
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                0,
                self.cur_stream(),
                args,
            )
        }
        .map_err(|e| self.err(format!("launching {what} failed: {e}")))
    }

    fn occupancy(&self, _f: Handle, _threads: u32) -> Option<usize> {
        // Not queried on HIP (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor is not in our
        // FFI yet): the shared plan's fallback of 4 blocks per CU applies.
        None
    }

    fn kernel_caches(&self) -> &KernelCaches<Handle> {
        &self.kernels
    }
}
