//! The integration test binary of cupy-rs: every golden (NumPy/SciPy) and behavioural test runs on
//! each backend `CUPY_TEST_BACKENDS` lists (default: cpu plus any other backend that opens).
//! One binary (modules below) so it links once and stages small for GPU machines.

mod common;

mod accuracy32;
mod accuracy64;
mod allocator;
mod array_api;
mod atomics64;
mod bigarray;
mod blocksize;

mod complex;

mod creation;
mod custom;
mod custom_reduction;
mod device;
mod differences;
mod distributed;
mod dlpack;
mod errors;
mod fft;
mod fusion;
mod fusion2;
mod fusion3;
mod fusion4;
mod graphs;
mod histograms;
mod indexing;
mod indexing2;
mod io;
mod linalg;
mod linalg_decomp;
mod linalg_native;
mod linalg_small;
mod loops;
mod manipulation;
mod matmul_half;
mod memory;
mod nanstats;
mod out_keywords;
mod packed;
mod printing;
mod props;
mod quantiles;
mod random;
mod raw;
mod reductions;
mod regressions;
mod scipy_fft;
mod sets;
mod signal;
mod sorting;
mod sorting_radix;
mod sparse;
mod sparse2;
mod sparse3;
mod sparse_errors;
mod sparse_linalg;
mod special;
mod statistics;
mod streams;
mod transposes;
mod ufunc_methods;
mod ufuncs;
mod userkernel;
mod usertemplates;
mod views;
