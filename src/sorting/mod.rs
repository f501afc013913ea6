//! Sorting, searching and counting (NumPy's family of that name) and the set routines:
//!
//! - [`scan`](mod@scan): `cumsum`, `cumprod`;
//! - [`sort`](mod@sort): `sort`, `argsort`, `lexsort`, `sort_complex` (and the in-place method);
//! - [`partition`](mod@partition): `partition`, `argpartition`;
//! - [`search`]: `argmax`, `argmin` (reductions), `searchsorted`, `digitize`;
//! - [`unique`](mod@unique): `unique` (return_index/inverse/counts, axis, equal_nan) and NumPy 2's
//!   `unique_values`, `unique_counts`, `unique_inverse`, `unique_all`;
//! - [`sets`]: `isin`, `in1d`, `intersect1d`, `union1d`, `setdiff1d`, `setxor1d`.
//!
//! Scans and sorts move the working axis last by copying a transposed view into a fresh
//! C-contiguous array (in the result dtype), run the backend's
//! [`Backend::scan`](cupy_core::Backend::scan) / [`Backend::sort`](cupy_core::Backend::sort) on
//! it as a `[batch, n]` layout, and return the result transposed back (a view of the fresh
//! array).
//!
//! Sorts are stable (NumPy's `kind='stable'`: equal keys, and `-0.0`/`0.0`, keep their input
//! order), ascending, NaN last; complex numbers sort lexicographically with NumPy's NaN classes
//! (`R + Rj`, `R + nanj`, `nan + Rj`, `nan + nanj`). A backend whose sort primitive has no
//! complex instantiation (cuda, hip) gets complex sorts composed from stable real sorts of the
//! parts (see [`sort`](mod@sort)); everything else (binary search, compaction, run detection) is one
//! IR kernel each (`kernels.rs`), so every routine here is one code path on every backend.

pub mod partition;
pub mod scan;
pub mod search;
pub mod sets;
pub mod sort;
pub mod unique;

mod kernels;
#[cfg(test)]
mod tests;

use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::layout::{normalize_axis, Layout};

pub use partition::{argpartition, argpartition_with, partition, partition_with, Kth};
pub use scan::{
    cumprod, cumprod_with, cumsum, cumsum_with, cumulative_prod, cumulative_sum, scan_dtype,
    Cumulative, Scan,
};
pub use search::{
    digitize, digitize_with, searchsorted, searchsorted_with, Digitize, SearchSorted, Side,
};
pub use sets::{
    in1d, in1d_with, intersect1d, intersect1d_with, isin, isin_with, setdiff1d, setdiff1d_with,
    setxor1d, setxor1d_with, union1d, Intersect1d, Intersection, IsIn, SetOpts,
};
pub use sort::{
    argsort, argsort_with, lexsort, lexsort_array, lexsort_with, sort, sort_complex, sort_with,
    Lexsort, Sort,
};
pub use unique::{
    unique, unique_all, unique_counts, unique_inverse, unique_values, unique_with, Unique,
    UniqueAll, UniqueCounts, UniqueInverse, UniqueResult,
};

/// A fresh C-contiguous copy of `a` in `dtype` with `axis` moved last (`None`: flattened), the
/// permutation that undoes the move (`None` when flattened), and the `[batch, n]` layout.
fn rows(
    a: &Array,
    op: &str,
    axis: Option<isize>,
    dtype: DType,
) -> Result<(Array, Option<Vec<isize>>, Layout)> {
    match axis {
        None => {
            let c = a.astype(dtype)?;
            let n = c.size();
            let c = c.with_layout(Layout::contiguous(&[n]));
            Ok((c, None, Layout::contiguous(&[1, n])))
        }
        Some(ax) => {
            let nd = a.ndim();
            let k = normalize_axis(op, ax, nd)?;
            let perm: Vec<isize> = (0..nd)
                .filter(|&i| i != k)
                .chain([k])
                .map(|i| i as isize)
                .collect();
            let c = a.transpose(&perm)?.astype(dtype)?;
            let n = a.shape()[k];
            let batch: usize = c.shape()[..nd - 1].iter().product();
            // inverse: axis k of the result is the last axis of c
            let mut inv = vec![0isize; nd];
            for (i, &p) in perm.iter().enumerate() {
                inv[p as usize] = i as isize;
            }
            Ok((c, Some(inv), Layout::contiguous(&[batch, n])))
        }
    }
}

/// The count and int64 positions of the true elements of a 1-D bool `mask` by the backend's
/// own compaction; `None` unless [`kernels::backend_compacts`].
pub(crate) fn compact_positions(op: &str, mask: &Array) -> Result<Option<(usize, Array)>> {
    if !kernels::backend_compacts(mask, 1) {
        return Ok(None);
    }
    let (_, count, mut outs) = kernels::compress(op, mask, &[kernels::Src::Index], false)?;
    Ok(Some((count, outs.remove(0))))
}

fn back(c: Array, inv: Option<Vec<isize>>) -> Result<Array> {
    match inv {
        None => Ok(c),
        Some(inv) => c.transpose(&inv),
    }
}

/// NumPy treats a 0-d array as 1-d in `argsort`, `cumsum` and friends: `a` reshaped to `[1]`.
fn at_least_1d(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        a.reshape(&[1])
    } else {
        Ok(a.clone())
    }
}
