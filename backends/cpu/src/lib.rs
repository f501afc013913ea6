//! cupy-rs CPU backend (in progress).
