//! Reductions and statistics.

pub mod reduction;
