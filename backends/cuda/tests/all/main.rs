//! cupy-cuda tests: one binary (stages small for the GPU machine).
mod catalogue;
mod hiprtc;
