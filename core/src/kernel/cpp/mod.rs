//! IR -> C++ (the common CUDA/HIP subset): elementwise and reduction kernels.
//!
//! One emitter serves NVRTC (CUDA) and hipRTC (HIP); the flavours ([`Flavor`], the thin dialect
//! in `dialect.rs`) differ only in [`prelude`] (warp size and shuffle spelling). Emission is a pure function of the kernel and a
//! *specialisation* (ndim of the merged iteration space, contiguity class, index width), never of
//! concrete sizes: shapes, strides, pointers and parameters travel in one argument struct passed
//! by value, whose layout [`ArgsLayout`] describes so a backend can pack it.
//!
//! Semantics (see [`super::ir`]): integers wrap and divide by zero to 0; floor division and
//! remainder follow NumPy; float16/bfloat16 are computed in float and rounded to their type after
//! every arithmetic node, cast and store (which equals NumPy's op-by-op evaluation); casts
//! follow [`crate::Scalar::cast`] (float -> int truncates and saturates, NaN -> 0).
//!
//! Complex64/complex128 are `cp_c64`/`cp_c128` (the prelude's `{re, im}` aggregates, aligned to
//! their size) in memory and in registers, in every launch class. Their arithmetic is NumPy's
//! on x86-64: `*` fused as NumPy's SIMD loop, `/` Smith's method, comparisons lexicographic with
//! NumPy's NaN rules, `**` NumPy's `nc_pow`; the math functions (`sqrt exp log sin cos tan tanh`,
//! `abs` as `hypot`) follow C99 Annex G special values (glibc's, which NumPy calls). Ops NumPy
//! has no complex loop for (`floor_divide`, `remainder`, bitwise, shifts, `arctan2`, `floor`,
//! `ceil`, bitwise not) and atomic updates of complex elements are refused with
//! [`Error::DTypeNotSupported`](crate::Error::DTypeNotSupported) naming the op.
//!
//! Files: `dialect.rs` (CUDA/HIP differences, the prelude), `types.rs` (C types, literals,
//! conversions, casts), `expr.rs` and `stmt.rs` (the body), `atomic.rs` (atomic updates),
//! `args.rs` (the argument struct), `elementwise.rs` and `reduce.rs` (the kernels).

use crate::kernel::ir::Kernel;

mod args;
mod atomic;
mod dialect;
mod elementwise;
mod expr;
mod reduce;
mod stmt;
mod types;

pub use args::{ArgField, ArgValue, ArgsLayout, OperandRef, Slot};
pub use dialect::{prelude, Flavor, COMMON_PRELUDE};
pub use elementwise::{emit_elementwise, emit_elementwise_bounded, vector_width};
pub use reduce::{emit_reduce, partial_bytes, reduce_vector_width};
pub use types::{compute_type, storage_type};

/// Threads per block every emitted kernel is written for (`__launch_bounds__`).
pub const BLOCK: usize = 256;
/// Block shape of the outer-axis reduction kernel (x across output columns, y along the
/// reduced axis).
pub const OUTER_BLOCK: (usize, usize) = (32, 8);

/// How the operands of an elementwise launch are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementwiseClass {
    /// Any strides (per operand, per axis).
    Strided,
    /// Every operand is 1-D with stride 1.
    Contiguous,
    /// As `Contiguous`, and every operand pointer is aligned to [`vector_width`] elements:
    /// vector loads/stores plus a scalar tail.
    Vectorized,
    /// Two axes (`ndim` 2), any strides, walked in 32x32 tiles staged through shared memory so
    /// that operands whose fast axis is axis 0 (a transposed view) are read and written
    /// coalesced too. Launch with blocks of [`TILE_BLOCK`] threads (the grid strides over
    /// tiles). Only for kernels where [`tiled_fits`] holds.
    Tiled,
}

/// Block shape of the [`ElementwiseClass::Tiled`] kernel: 32 x 8 threads over a 32 x 32 tile.
pub const TILE_BLOCK: (usize, usize) = (32, 8);

/// Whether a kernel's operand tiles fit the shared memory the tiled class uses (32 x 33
/// elements per input and output, at most 40 KiB together).
pub fn tiled_fits(k: &Kernel) -> bool {
    let bytes: usize = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .map(|d| 32 * 33 * d.itemsize())
        .sum();
    bytes <= 40 * 1024
}

/// The specialisation of an elementwise kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// Number of axes of the merged iteration shape (1 for the contiguous classes).
    pub ndim: usize,
    /// Layout class.
    pub class: ElementwiseClass,
    /// 64-bit index arithmetic (else 32-bit; valid while every operand has < 2^31 elements).
    pub index64: bool,
}

/// The specialisation of a reduction module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// Axes of the (merged) output shape, at least 1.
    pub out_ndim: usize,
    /// Axes of the (merged) reduced shape, at least 1.
    pub red_ndim: usize,
    /// 64-bit index arithmetic.
    pub index64: bool,
}

/// An emitted module: source and entry points.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Full source (prelude included).
    pub source: String,
    /// Entry points (`extern "C" __global__` names). Elementwise: one. Reduction:
    /// `[inner, outer, finish, inner_vec]`.
    pub entries: Vec<String>,
    /// The argument struct every entry takes by value.
    pub args: ArgsLayout,
    /// Elements per thread iteration of the vectorized class (1 otherwise).
    pub vector: usize,
}

/// A sanitized C identifier for a kernel name.
pub fn entry_name(name: &str) -> String {
    let mut s = String::from("cupy_");
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_complex;
