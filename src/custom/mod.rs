//! User-defined kernels: [`fuse`](fuse::fuse) (traced closures) and CuPy's
//! `ElementwiseKernel`/`ReductionKernel` strings, which run on every backend, and
//! `RawKernel`/`RawModule` (backend-native source: CUDA/HIP C++ or WGSL).

pub mod elementwise;
pub mod fuse;
pub mod raw;
