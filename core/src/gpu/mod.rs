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
//! - [`sortscan`]: the hand-written scan and sort kernels of `hip-kernels/` (embedded) and their
//!   launch plans, generic over the same trait.
//! - [`solver`]: dense linear algebra (`Backend::linalg`): the per-op plans over the library
//!   calls of a [`solver::SolverDriver`] (cuSOLVER, rocSOLVER) and their helper kernels
//!   (`hip-kernels/solver.cu`).
//!
//! What differs per backend is what its [`launch::GpuDriver`], [`pool::PoolDriver`] and
//! [`solver::SolverDriver`] implementations say: see `docs/backends.md`.

pub mod disk_cache;
pub mod launch;
pub mod nccl;
pub mod pool;
pub mod solver;
pub mod sortscan;
pub mod sparse;
pub mod support;

/// Stack of the thread [`on_big_stack`] runs work on: 256 MiB (reserved, not committed).
pub const BIG_STACK: usize = 256 << 20;

/// Runs `f` on a scoped thread with a [`BIG_STACK`] stack and returns its result; `None` when
/// it panicked or no thread could be spawned. Kernel emission and the run-time compilers
/// (NVRTC, hipRTC: in-process, on the caller's thread) recurse once per nesting level of an
/// expression: a `fuse`d chain of 500 ops overflowed the 2 MiB stack of a Rust test thread on
/// the H200.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("cupy-compile".into())
            .stack_size(BIG_STACK)
            .spawn_scoped(s, f)
            .ok()?
            .join()
            .ok()
    })
}
