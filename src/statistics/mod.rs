//! Reductions and statistics.

pub mod moments;
pub mod reduction;
