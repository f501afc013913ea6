//! User-defined kernels that run on every backend: [`fuse`](fuse::fuse) (traced closures),
//! and CuPy's `ElementwiseKernel`/`ReductionKernel` strings.

pub mod elementwise;
pub mod fuse;
