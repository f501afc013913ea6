//! Array manipulation, in the files of CuPy's `cupy/_manipulation`: [`basic`] (copies and
//! conversions: `copyto`, `astype`, `copy`, `fill`), [`shape`] (`reshape`, `ravel`),
//! [`transpose`] (`transpose`, `swapaxes`, `a.T`) and [`dims`] (`broadcast_to`,
//! `expand_dims`, `squeeze`). The functions are re-exported at the crate root
//! (`cupy::reshape`), the methods are on [`Array`](crate::Array).

pub mod basic;
pub mod dims;
pub mod shape;
pub mod transpose;
