//! Vendor-neutral pieces of the GPU backends (CUDA and HIP): logic that needs no driver, shared
//! so the two backends differ only in their driver calls. Next to the C++ emitter
//! ([`crate::kernel::cpp`]) that both already share.
//!
//! - [`pool`]: the caching device allocator (size classes, free lists, out-of-memory retry).
//! - [`launch`]: elementwise and reduction launches (operand checks, axis merging, layout class,
//!   index width, grid sizing, argument packing, the reduction's split scheme, the in-memory
//!   cache of prepared kernels), generic over the [`launch::GpuDriver`] trait.
//! - [`disk_cache`]: the on-disk cache of compiled modules (`CUPY_CACHE_DIR`, key, atomic write,
//!   empty/corrupt entries).
//!
//! The scan and sort plans for the hand-written kernels of `hip-kernels/` live next to those
//! kernels (`hip-kernels/sources.rs`), generic over the same trait.
//!
//! What differs per backend is what its [`launch::GpuDriver`] and [`pool::PoolDriver`]
//! implementations say: see `docs/backends.md`.

pub mod disk_cache;
pub mod launch;
pub mod pool;
