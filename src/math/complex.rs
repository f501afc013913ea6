//! Complex-number ufuncs (NumPy's "Handling complex numbers").

use super::ufunc::un;
use cupy_core::kernel::ir::UnaryOp as U;

ufuncs! {
    family: "complex";
    /// The complex conjugate (`numpy.conjugate`); real inputs are returned unchanged (bool
    /// as int8, NumPy's loop).
    conjugate(x): SameBoolAsInt8 => |_, c| if c.is_complex() { un(U::Conj, x) } else { x };
}

ufunc_aliases! {
    /// `numpy.conj`: another name of `conjugate`.
    conj = conjugate(x);
}
