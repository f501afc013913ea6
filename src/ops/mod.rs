//! Array operations, each defined once over the kernel IR.

pub mod creation;
pub mod indexing;
pub mod launch;
pub mod linalg;
pub mod operators;
pub mod reduce;
pub mod signal;
pub mod sorting;
pub mod ufunc;
