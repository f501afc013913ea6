//! `cupy.fft.config`: the per-device FFT plan cache (CuPy's `get_plan_cache()`).

use crate::device::Device;
use cupy_core::fft::{PlanCacheInfo, PlanCacheOp};
use cupy_core::Result;

/// The plan cache of one device (CuPy's `cupy.fft._cache.PlanCache`): cuFFT plans on CUDA, keyed
/// by (length, batch, kind, precision); a backend without one (cpu: rustfft's planners keep every
/// plan; wgpu: tables only) reports an empty cache of capacity 0.
#[derive(Clone, Debug)]
pub struct PlanCache {
    device: Device,
}

/// `cupy.fft.config.get_plan_cache()`: the plan cache of the current device.
///
/// # Errors
/// [`cupy_core::Error::BackendUnavailable`] when no device can be opened.
pub fn get_plan_cache() -> Result<PlanCache> {
    Ok(PlanCache {
        device: Device::current()?,
    })
}
routine!(get_plan_cache as "cupy.fft.config.get_plan_cache", Fft, notes: "cuda: an LRU of cuFFT plans (16 by default)");

impl PlanCache {
    /// The plan cache of `device`.
    pub fn of(device: &Device) -> PlanCache {
        PlanCache {
            device: device.clone(),
        }
    }

    fn control(&self, op: PlanCacheOp) -> Result<PlanCacheInfo> {
        self.device.backend().fft_plan_cache(op)
    }

    /// The capacity in plans (`get_size`).
    ///
    /// # Errors
    /// Device errors.
    pub fn get_size(&self) -> Result<usize> {
        Ok(self.control(PlanCacheOp::Query)?.capacity)
    }

    /// Sets the capacity, evicting the least recently used plans beyond it (`set_size`; 0:
    /// only the latest call's plan is kept).
    ///
    /// # Errors
    /// Device errors.
    pub fn set_size(&self, size: usize) -> Result<()> {
        self.control(PlanCacheOp::SetSize(size)).map(|_| ())
    }

    /// The number of cached plans (`get_curr_size`).
    ///
    /// # Errors
    /// Device errors.
    pub fn get_curr_size(&self) -> Result<usize> {
        Ok(self.control(PlanCacheOp::Query)?.cached)
    }

    /// Device bytes the cached plans hold (`get_curr_memsize`).
    ///
    /// # Errors
    /// Device errors.
    pub fn get_curr_memsize(&self) -> Result<usize> {
        Ok(self.control(PlanCacheOp::Query)?.bytes)
    }

    /// Destroys every cached plan (`clear`).
    ///
    /// # Errors
    /// Device errors.
    pub fn clear(&self) -> Result<()> {
        self.control(PlanCacheOp::Clear).map(|_| ())
    }
}
