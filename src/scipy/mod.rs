//! `cupyx.scipy`: SciPy-compatible routines.

pub mod fft;
pub mod signal;
pub mod sparse;
pub mod special;
