//! cupy-cuda tests: one binary (stages small for the GPU machine).
#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    clippy::redundant_closure
)]
mod catalogue;
mod complex;
mod complex_ref;
mod gpu;
mod hiprtc;
mod nccl_header;
mod raw;
mod sortscan;
mod tuple;
