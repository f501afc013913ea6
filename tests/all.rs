//! The integration test binary of cupy-rs: every golden (NumPy/SciPy) and behavioural test runs on
//! each backend `CUPY_TEST_BACKENDS` lists (default: cpu plus any other backend that opens).
//! One binary (modules below) so it links once and stages small for GPU machines.

mod common;

mod complex;

mod creation;
mod custom;
mod device;
mod differences;
mod errors;
mod histograms;
mod indexing;
mod indexing2;
mod linalg;
mod linalg_decomp;
mod loops;
mod manipulation;
mod nanstats;
mod printing;
mod props;
mod quantiles;
mod random;
mod raw;
mod reductions;
mod regressions;
mod sets;
mod signal;
mod sorting;
mod statistics;
mod ufunc_methods;
mod ufuncs;
mod views;
