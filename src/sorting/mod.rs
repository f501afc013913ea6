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
use cupy_core::backend::{Operand, ScanCall, ScanOp, SortCall};
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::layout::{normalize_axis, Layout};

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

fn scan(a: &Array, axis: Option<isize>, op: ScanOp) -> Result<Array> {
    let name = match op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let dt = scan_dtype(a.dtype());
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

/// `numpy.cumsum(a, axis)`: running sums along `axis` (`None`: over the flattened array).
///
/// # Errors
/// [`Error::AxisOutOfRange`]; dtype refusals; device errors.
pub fn cumsum(a: &Array, axis: Option<isize>) -> Result<Array> {
    scan(a, axis, ScanOp::Sum)
}

/// `numpy.cumprod(a, axis)`: running products along `axis` (`None`: flattened).
///
/// # Errors
/// As [`cumsum`].
pub fn cumprod(a: &Array, axis: Option<isize>) -> Result<Array> {
    scan(a, axis, ScanOp::Prod)
}

/// `numpy.sort(a, axis)`: a sorted copy along `axis` (NumPy's default is `Some(-1)`; `None`
/// sorts the flattened array). Ascending, NaN last, stable.
///
/// # Errors
/// [`Error::AxisOutOfRange`] (a 0-d array has no axis -1, as in NumPy); dtype refusals (e.g.
/// complex on a GPU backend); device errors.
pub fn sort(a: &Array, axis: Option<isize>) -> Result<Array> {
    Ok(sort_impl(a, axis, false)?.0)
}

/// `numpy.argsort(a, axis, kind='stable')`: int64 indices that sort `a` along `axis` (default
/// `Some(-1)`; `None`: indices into the flattened array). Always stable, so the result equals
/// NumPy's with `kind='stable'` (NumPy's default quicksort may order ties differently).
///
/// # Errors
/// As [`sort`].
pub fn argsort(a: &Array, axis: Option<isize>) -> Result<Array> {
    // NumPy treats a 0-d array as 1-d here: `argsort(array(5))` is `array([0])`.
    let a1;
    let a = if a.ndim() == 0 {
        a1 = a.reshape(&[1])?;
        &a1
    } else {
        a
    };
    let idx = sort_impl(a, axis, true)?.1;
    idx.ok_or_else(|| Error::invalid("argsort", "no indices"))
}

impl Array {
    /// `a.cumsum(axis)`: see [`cumsum`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumsum(&self, axis: Option<isize>) -> Result<Array> {
        cumsum(self, axis)
    }

    /// `a.cumprod(axis)`: see [`cumprod`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        cumprod(self, axis)
    }

    /// `a.sort(axis)`: sorts in place along `axis` (NumPy's `ndarray.sort`, default `-1`),
    /// stable, NaN last. Views of the same data see the change.
    ///
    /// # Errors
    /// As [`sort`].
    pub fn sort(&self, axis: isize) -> Result<()> {
        let s = sort(self, Some(axis))?;
        self.copy_from(&s)
    }

    /// `a.argsort(axis)`: see [`argsort`].
    ///
    /// # Errors
    /// As [`argsort`].
    pub fn argsort(&self, axis: Option<isize>) -> Result<Array> {
        argsort(self, axis)
    }
}
