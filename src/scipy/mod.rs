//! `cupyx.scipy`: SciPy-compatible routines.

pub mod signal;
