//! cupy-wgpu tests: one binary. They run on whatever adapter wgpu finds (llvmpipe in CI) and skip,
//! with a printed notice, when no adapter exists.

mod atomics;
mod backend;
mod loops;
mod packed;
mod raw;
