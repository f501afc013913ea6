//! cupy-cuda
