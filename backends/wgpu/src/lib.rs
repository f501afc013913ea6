//! cupy-rs wgpu backend (in progress).
