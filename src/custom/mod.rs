//! User-defined kernels (`cupy.RawKernel`, `cupy.RawModule`).

pub mod raw;
