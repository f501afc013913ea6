//! Vendor-neutral pieces of the GPU backends (CUDA and HIP): logic that needs no driver, shared
//! so the two backends differ only in their driver calls. Next to the C++ emitter
//! ([`crate::kernel::cpp`]) that both already share.
//!
//! - [`pool`]: the caching device allocator (size classes, free lists, out-of-memory retry).

pub mod pool;
