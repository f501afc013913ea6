//! Array manipulation, in the files of CuPy's `cupy/_manipulation`: [`basic`] (copies and
//! conversions: `copyto` (also `where=`), `astype`, `copy`, `fill`, `ascontiguousarray`,
//! `asfortranarray`), [`shape`] (`reshape`, `ravel`,
//! `flatten`), [`transpose`] (`transpose`, `swapaxes`, `moveaxis`, `rollaxis`, `a.T`),
//! [`dims`] (`broadcast_to`, `broadcast_arrays`, `expand_dims`, `squeeze`, `atleast_*d`),
//! [`join`] (`concatenate`, `stack` and its variants, `block`, `append`), [`split`] (`split`,
//! `array_split`, `hsplit`, `vsplit`, `dsplit`), [`rearrange`] (`flip`, `roll`, `rot90`) and
//! [`tiling`] (`tile`, `repeat`, `resize`, `delete`, `insert`, `trim_zeros`) and [`pad`]. The functions are re-exported at the
//! crate root (`cupy::reshape`), the methods are on [`Array`].
//!
//! Every routine is built from views plus `copy_from` into slices of one new array, so it
//! runs on every backend without kernels of its own; `copyto(where=)` is one select kernel,
//! and `repeat` with per-element counts, `delete` and `insert` are one gather (`take`).

pub mod basic;
pub mod dims;
pub mod join;
pub mod pad;
pub mod rearrange;
pub mod shape;
pub mod split;
pub mod tiling;
pub mod transpose;

use crate::array::Array;

/// The view `a[..., start:start+len:step, ...]` along `axis` (already normalized; the range
/// must lie inside the axis, `start` being the first element taken).
pub(crate) fn narrow(a: &Array, axis: usize, start: usize, len: usize, step: isize) -> Array {
    let mut l = a.layout.clone();
    if len > 0 {
        l.offset = (l.offset as isize + start as isize * l.strides[axis]) as usize;
    }
    l.shape[axis] = len;
    l.strides[axis] *= step;
    a.with_layout(l)
}
