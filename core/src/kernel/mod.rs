//! Kernels as data: the scalar IR ([`ir`]) and its emitters.

pub mod cpp;
pub mod ir;
pub mod lang;
pub mod math;
pub mod reductions;
pub mod wgsl;

pub use ir::{BinaryOp, Expr, ExprKind, Kernel, ReduceKernel, Stmt, UnaryOp};
