//! `cupy`'s mathematical functions: the ufuncs, one file per NumPy family.

pub mod ufunc;
