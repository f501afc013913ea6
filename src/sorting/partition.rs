//! `partition`, `argpartition` (NumPy's API and guarantees).
//!
//! NumPy promises only that the element at each `kth` position is the one a full sort puts
//! there, with no larger element before it and no smaller one after it; the order inside the
//! pieces is unspecified. A stable sort keeps that promise, so both are the backend's sort
//! (O(n log n) radix passes on GPUs, where a selection would save little): the result is one of
//! the arrays NumPy may return, and `argpartition` equals `argsort(kind='stable')`.

use super::at_least_1d;
use super::sort::{argsort_with, sort_probe, sort_with};
use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::normalize_axis;

/// The `kth=` argument of [`partition`] / [`argpartition`]: one index or several (negative
/// ones count from the end). Converts from an integer, a slice or a `Vec`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kth(pub Vec<isize>);

impl From<isize> for Kth {
    fn from(k: isize) -> Kth {
        Kth(vec![k])
    }
}
impl From<i32> for Kth {
    fn from(k: i32) -> Kth {
        Kth(vec![k as isize])
    }
}
impl From<&[isize]> for Kth {
    fn from(k: &[isize]) -> Kth {
        Kth(k.to_vec())
    }
}
impl<const N: usize> From<[isize; N]> for Kth {
    fn from(k: [isize; N]) -> Kth {
        Kth(k.to_vec())
    }
}
impl From<Vec<isize>> for Kth {
    fn from(k: Vec<isize>) -> Kth {
        Kth(k)
    }
}

/// Checks every `kth` against the length of the partitioned axis (NumPy's ValueError
/// "kth(=5) out of bounds (5)"). An empty array is returned as it is, whatever `kth` (as
/// NumPy's, which checks no kth then).
fn check_kth(op: &str, a: &Array, kth: &Kth, axis: Option<isize>) -> Result<()> {
    let n = match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(op, ax, a.ndim())?],
    };
    if a.size() == 0 {
        return Ok(());
    }
    for &k in &kth.0 {
        if k >= n as isize || k < -(n as isize) {
            // NumPy names a negative kth after adding n.
            let shown = if k < 0 { k + n as isize } else { k };
            return Err(Error::invalid(
                op,
                format!("kth(={shown}) out of bounds ({n})"),
            ));
        }
    }
    Ok(())
}

/// `numpy.partition(a, kth)` along the last axis.
///
/// # Errors
/// As [`partition_with`].
pub fn partition(a: &Array, kth: impl Into<Kth>) -> Result<Array> {
    partition_with(a, kth, super::Sort::default())
}

/// `numpy.partition(a, kth, axis=...)` (`None`: the flattened array): a copy in which every
/// `kth` element is where a sort puts it, smaller-or-equal elements before it and
/// greater-or-equal ones after it (NaN last). Here the copy is fully sorted (see the module
/// docs).
///
/// # Errors
/// [`Error::InvalidArgument`] for a `kth` out of bounds (NumPy's ValueError);
/// [`Error::AxisOutOfRange`] (a 0-d array has no axis -1, as in NumPy); as [`sort_with`].
pub fn partition_with(
    a: &Array,
    kth: impl Into<Kth>,
    opts: impl Into<super::Sort>,
) -> Result<Array> {
    let axis = opts.into().axis;
    check_kth("partition", a, &kth.into(), axis)?;
    sort_with(a, axis)
}
routine!(
    partition,
    Sorting,
    probe: sort_probe,
    notes: "a full stable sort (meets NumPy's kth guarantee); kth int or sequence, axis None/int"
);

/// `numpy.argpartition(a, kth)` along the last axis.
///
/// # Errors
/// As [`argpartition_with`].
pub fn argpartition(a: &Array, kth: impl Into<Kth>) -> Result<Array> {
    argpartition_with(a, kth, super::Sort::default())
}

/// `numpy.argpartition(a, kth, axis=...)`: int64 indices that partition `a` (see
/// [`partition_with`]); here the stable argsort. A 0-d array counts as 1-d, as NumPy's.
///
/// # Errors
/// As [`partition_with`].
pub fn argpartition_with(
    a: &Array,
    kth: impl Into<Kth>,
    opts: impl Into<super::Sort>,
) -> Result<Array> {
    let axis = opts.into().axis;
    let a = at_least_1d(a)?;
    check_kth("argpartition", &a, &kth.into(), axis)?;
    argsort_with(&a, axis)
}
routine!(
    argpartition,
    Sorting,
    probe: sort_probe,
    notes: "the stable argsort (meets NumPy's kth guarantee)"
);

impl Array {
    /// `a.partition(kth)`: partitions in place along the last axis (NumPy's
    /// `ndarray.partition`); see [`partition_with`].
    ///
    /// # Errors
    /// As [`partition_with`].
    pub fn partition(&self, kth: impl Into<Kth>) -> Result<()> {
        self.partition_with(kth, super::Sort::default())
    }

    /// `a.partition(kth, axis=...)` in place.
    ///
    /// # Errors
    /// As [`partition_with`]; [`Error::InvalidArgument`] for `axis: None`.
    pub fn partition_with(&self, kth: impl Into<Kth>, opts: impl Into<super::Sort>) -> Result<()> {
        let opts = opts.into();
        if opts.axis.is_none() {
            return Err(Error::invalid(
                "partition",
                "an in-place partition needs an axis",
            ));
        }
        let p = partition_with(self, kth, opts)?;
        self.copy_from(&p)
    }

    /// `a.argpartition(kth)`; see [`argpartition_with`].
    ///
    /// # Errors
    /// As [`argpartition_with`].
    pub fn argpartition(&self, kth: impl Into<Kth>) -> Result<Array> {
        argpartition(self, kth)
    }
}
routine!(
    "ndarray.partition / ndarray.argpartition",
    Sorting,
    probe: sort_probe,
    notes: "partition in place (a full stable sort)"
);
