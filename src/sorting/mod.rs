//! Scans and sorting: `cumsum`, `cumprod`, `sort`, `argsort` (NumPy's API and dtype rules);
//! searching (`argmax`, `argmin`) is in [`search`].
//!
//! Each moves the working axis last by copying a transposed view into a fresh C-contiguous
//! array (in the result dtype), runs the backend's [`Backend::scan`](cupy_core::Backend::scan) /
//! [`Backend::sort`](cupy_core::Backend::sort) on it as a `[batch, n]` layout, and returns the
//! result transposed back (a view of the fresh array).
//!
//! - `cumsum`/`cumprod`: bool and signed integers narrower than 64 bits accumulate in int64,
//!   unsigned ones in uint64 (as `sum`); float16/bfloat16 stay (each step rounded, as NumPy's
//!   float16 accumulate); floats and complex stay. Integer overflow wraps.
//! - `sort`/`argsort`: ascending, NaN last, stable (NumPy's `kind='stable'`: equal keys, and
//!   `-0.0`/`0.0`, keep their input order), so `argsort` gives the same indices as NumPy's
//!   `argsort(kind='stable')` on every backend. Complex numbers sort lexicographically (real
//!   part, then imaginary part), NaNs last, on the backends that sort them (cpu).

pub mod search;

use crate::array::Array;
use crate::registry::Need;
use cupy_core::backend::{Operand, Primitive, ScanCall, ScanOp, SortCall};
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::layout::{normalize_axis, Layout};

/// Keyword arguments of [`sort_with`] and [`argsort_with`] (and the methods): NumPy's `axis=`,
/// default `Some(-1)` (the last axis); `None` sorts the flattened array. Sorts are always
/// stable (`kind='stable'`). An axis converts into it: `cp::sort_with(&a, 0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// The axis to sort along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
}

impl Default for Sort {
    fn default() -> Sort {
        Sort { axis: Some(-1) }
    }
}
axis_options!(Sort);

/// Keyword arguments of [`cumsum_with`] and [`cumprod_with`]: NumPy's `axis=` (default `None`:
/// over the flattened array) and `dtype=` (the accumulation and result dtype; `None` is NumPy's
/// default, see [`scan_dtype`]). An axis converts into it: `a.cumsum_with(1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// The axis to accumulate along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
    /// The accumulation and result dtype (`dtype=`): int8 with `Some(DType::Int8)` wraps in int8.
    pub dtype: Option<DType>,
}
axis_options!(Scan);

/// The result dtype of `cumsum`/`cumprod` for an input dtype (NumPy's rule, as `sum`).
pub fn scan_dtype(t: DType) -> DType {
    match t.kind() {
        Kind::Bool | Kind::Int => DType::Int64,
        Kind::UInt => DType::UInt64,
        _ => t,
    }
}

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

fn back(c: Array, inv: Option<Vec<isize>>) -> Result<Array> {
    match inv {
        None => Ok(c),
        Some(inv) => c.transpose(&inv),
    }
}

fn scan(a: &Array, opts: Scan, op: ScanOp) -> Result<Array> {
    let name = match op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let axis = opts.axis;
    let dt = opts.dtype.unwrap_or_else(|| scan_dtype(a.dtype()));
    // NumPy treats a 0-d array as 1-d here: `cumsum(array(5), axis=0)` is `array([5])`.
    let a1;
    let a = if a.ndim() == 0 {
        a1 = a.reshape(&[1])?;
        &a1
    } else {
        a
    };
    let (c, inv, l) = rows(a, name, axis, dt)?;
    if c.size() > 0 {
        let o = Operand {
            buffer: &c.buffer,
            layout: l,
        };
        c.device.backend().scan(&ScanCall {
            op,
            input: o.clone(),
            output: o,
        })?;
    }
    back(c, inv)
}

fn sort_impl(a: &Array, axis: Option<isize>, with_indices: bool) -> Result<(Array, Option<Array>)> {
    let name = if with_indices { "argsort" } else { "sort" };
    let (c, inv, l) = rows(a, name, axis, a.dtype())?;
    let idx = if with_indices {
        let n = l.shape[1];
        let v = Array::arange_on(&c.device, 0.0, n as f64, 1.0, DType::Int64)?
            .broadcast_to(&l.shape)?
            .copy()?;
        Some(v.with_layout(c.layout.clone()))
    } else {
        None
    };
    if c.size() > 0 {
        c.device.backend().sort(&SortCall {
            keys: Operand {
                buffer: &c.buffer,
                layout: l.clone(),
            },
            values: idx.as_ref().map(|v| Operand {
                buffer: &v.buffer,
                layout: l.clone(),
            }),
        })?;
    }
    let idx = match idx {
        Some(v) => Some(back(v, inv.clone())?),
        None => None,
    };
    Ok((back(c, inv)?, idx))
}

/// `numpy.cumsum(a)`: running sums over the flattened array.
///
/// # Errors
/// Dtype refusals; device errors.
pub fn cumsum(a: &Array) -> Result<Array> {
    cumsum_with(a, Scan::default())
}

/// `numpy.cumsum(a, axis=..., dtype=...)`: `cp::cumsum_with(&a, 0)` along axis 0.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; as [`cumsum`].
pub fn cumsum_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    scan(a, opts.into(), ScanOp::Sum)
}
routine!(
    cumsum,
    Sorting,
    probe: scan_probe,
    notes: "axis None/int, dtype= (cumsum_with); cuda/hip: hip-kernels/ block scan"
);

/// `numpy.cumprod(a)`: running products over the flattened array.
///
/// # Errors
/// As [`cumsum`].
pub fn cumprod(a: &Array) -> Result<Array> {
    cumprod_with(a, Scan::default())
}

/// `numpy.cumprod(a, axis=..., dtype=...)`.
///
/// # Errors
/// As [`cumsum_with`].
pub fn cumprod_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    scan(a, opts.into(), ScanOp::Prod)
}
routine!(cumprod, Sorting, probe: scan_probe, notes: "axis None/int");

/// `numpy.sort(a)`: a sorted copy along the last axis. Ascending, NaN last, stable.
///
/// # Errors
/// [`Error::AxisOutOfRange`] (a 0-d array has no axis -1, as in NumPy); dtype refusals (e.g.
/// complex on a GPU backend); device errors.
pub fn sort(a: &Array) -> Result<Array> {
    sort_with(a, Sort::default())
}

/// `numpy.sort(a, axis=...)`: `cp::sort_with(&a, 0)`, or `None` for the flattened array.
///
/// # Errors
/// As [`sort`].
pub fn sort_with(a: &Array, opts: impl Into<Sort>) -> Result<Array> {
    Ok(sort_impl(a, opts.into().axis, false)?.0)
}
routine!(
    sort,
    Sorting,
    probe: sort_probe,
    notes: "stable, NaN last (complex: NumPy's NaN classes); cuda/hip: hip-kernels/ radix sort"
);

/// `numpy.argsort(a, kind='stable')`: int64 indices that sort `a` along the last axis. Always
/// stable, so the result equals NumPy's with `kind='stable'` (NumPy's default quicksort may
/// order ties differently).
///
/// # Errors
/// As [`sort`].
pub fn argsort(a: &Array) -> Result<Array> {
    argsort_with(a, Sort::default())
}

/// `numpy.argsort(a, axis=..., kind='stable')` (`None`: indices into the flattened array).
///
/// # Errors
/// As [`sort`].
pub fn argsort_with(a: &Array, opts: impl Into<Sort>) -> Result<Array> {
    // NumPy treats a 0-d array as 1-d here: `argsort(array(5))` is `array([0])`.
    let a1;
    let a = if a.ndim() == 0 {
        a1 = a.reshape(&[1])?;
        &a1
    } else {
        a
    };
    let idx = sort_impl(a, opts.into().axis, true)?.1;
    idx.ok_or_else(|| Error::invalid("argsort", "no indices"))
}
routine!(argsort, Sorting, probe: sort_probe, notes: "kind='stable'");

impl Array {
    /// `a.cumsum()`: see [`cumsum`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumsum(&self) -> Result<Array> {
        cumsum(self)
    }

    /// `a.cumsum(axis=..., dtype=...)`: see [`cumsum_with`].
    ///
    /// # Errors
    /// As [`cumsum_with`].
    pub fn cumsum_with(&self, opts: impl Into<Scan>) -> Result<Array> {
        cumsum_with(self, opts)
    }

    /// `a.cumprod()`: see [`cumprod`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumprod(&self) -> Result<Array> {
        cumprod(self)
    }

    /// `a.cumprod(axis=..., dtype=...)`: see [`cumprod_with`].
    ///
    /// # Errors
    /// As [`cumsum_with`].
    pub fn cumprod_with(&self, opts: impl Into<Scan>) -> Result<Array> {
        cumprod_with(self, opts)
    }

    /// `a.sort()`: sorts in place along the last axis (NumPy's `ndarray.sort`), stable, NaN
    /// last. Views of the same data see the change. [`sort`] returns a sorted copy instead.
    ///
    /// # Errors
    /// As [`sort`].
    pub fn sort(&self) -> Result<()> {
        self.sort_with(Sort::default())
    }

    /// `a.sort(axis=...)` in place.
    ///
    /// # Errors
    /// As [`sort`]; [`Error::InvalidArgument`] for `axis: None` (an in-place sort keeps the
    /// shape; use [`sort_with`] for a flattened sorted copy).
    pub fn sort_with(&self, opts: impl Into<Sort>) -> Result<()> {
        let opts = opts.into();
        if opts.axis.is_none() {
            return Err(Error::invalid(
                "sort",
                "an in-place sort needs an axis (cupy.sort(a, axis=None) returns a flattened copy)",
            ));
        }
        let s = sort_with(self, opts)?;
        self.copy_from(&s)
    }

    /// `a.argsort()`: see [`argsort`].
    ///
    /// # Errors
    /// As [`argsort`].
    pub fn argsort(&self) -> Result<Array> {
        argsort(self)
    }

    /// `a.argsort(axis=...)`: see [`argsort_with`].
    ///
    /// # Errors
    /// As [`argsort`].
    pub fn argsort_with(&self, opts: impl Into<Sort>) -> Result<Array> {
        argsort_with(self, opts)
    }
}
routine!("ndarray.sort", Sorting, probe: sort_probe, notes: "in place; stable");

/// The registry probe of the scans: the backend's scan primitive.
fn scan_probe(_: DType) -> Option<Need> {
    Some(Need::Primitive(Primitive::Scan))
}

/// The registry probe of the sorts: the backend's sort primitive.
fn sort_probe(_: DType) -> Option<Need> {
    Some(Need::Primitive(Primitive::Sort))
}
