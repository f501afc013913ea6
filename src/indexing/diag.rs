//! Diagonals and triangles: `diagonal` (a view), `diag`, `diagflat`, `tril`/`triu` (a select
//! against a triangle mask made by one IR kernel), `tril_indices`/`triu_indices` (the mask's
//! `nonzero`) and `fill_diagonal` (a strided `put`).

use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// `numpy.diagonal(a, offset, axis1, axis2)`: the diagonal of the 2-d sub-arrays over
/// `axis1`/`axis2`, offset `offset` (positive: above the main diagonal), as a **view** (NumPy's
/// is a read-only view; this one can be written). Those two axes are removed and the diagonal
/// is appended as the last axis.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two dimensions or `axis1 == axis2`;
/// [`Error::AxisOutOfRange`].
pub fn diagonal(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    let op = "diagonal";
    if a.ndim() < 2 {
        return Err(Error::invalid(
            op,
            "diag requires an array of at least two dimensions",
        ));
    }
    let (x1, x2) = (
        normalize_axis(op, axis1, a.ndim())?,
        normalize_axis(op, axis2, a.ndim())?,
    );
    if x1 == x2 {
        return Err(Error::invalid(op, "axis1 and axis2 cannot be the same"));
    }
    let l = a.layout();
    let (n1, n2) = (l.shape[x1] as isize, l.shape[x2] as isize);
    let (s1, s2) = (l.strides[x1], l.strides[x2]);
    let len = if offset >= 0 {
        n1.min(n2 - offset)
    } else {
        (n1 + offset).min(n2)
    }
    .max(0) as usize;
    let mut off = l.offset as isize;
    if len > 0 {
        off += if offset >= 0 {
            offset * s2
        } else {
            -offset * s1
        };
    }
    let mut shape = vec![];
    let mut strides = vec![];
    for d in 0..a.ndim() {
        if d != x1 && d != x2 {
            shape.push(l.shape[d]);
            strides.push(l.strides[d]);
        }
    }
    shape.push(len);
    strides.push(s1 + s2);
    Ok(a.with_layout(Layout {
        shape,
        strides,
        offset: off as usize,
    }))
}
routine!(diagonal as "cupy.diagonal / ndarray.diagonal", Indexing, notes: "a strided view (writable, unlike NumPy's read-only one)");

/// `numpy.diag(v, k)`: for a 1-d `v`, a new 2-d array with `v` on diagonal `k`; for a 2-d
/// `v`, its diagonal `k` (a view, see [`diagonal`]).
///
/// # Errors
/// [`Error::InvalidArgument`] for other numbers of dimensions; device errors.
pub fn diag(v: &Array, k: isize) -> Result<Array> {
    match v.ndim() {
        1 => {
            let n = v.size() + k.unsigned_abs();
            let out = Array::zeros_on(v.device(), &[n, n], v.dtype())?;
            diagonal(&out, k, 0, 1)?.copy_from(v)?;
            Ok(out)
        }
        2 => diagonal(v, k, 0, 1),
        _ => Err(Error::invalid("diag", "Input must be 1- or 2-d.")),
    }
}
routine!(diag, Indexing, notes: "1-d: zeros and a write through the diagonal view; 2-d: the diagonal view");

/// `numpy.diagflat(v, k)`: the flattened `v` on diagonal `k` of a new 2-d array.
///
/// # Errors
/// Device errors.
pub fn diagflat(v: &Array, k: isize) -> Result<Array> {
    diag(&v.reshape(&[-1])?, k)
}
routine!(diagflat, Indexing);

/// The `(n, m)` triangle mask: `j - i <= k` (`lower`) or `j - i >= k`, one IR kernel.
fn tri_mask(op: &str, device: &Device, n: usize, m: usize, k: isize, lower: bool) -> Result<Array> {
    let p = |j: usize| Expr::param(j, DType::Int64);
    let i = Expr::binary(BinaryOp::Div, Expr::index(), p(0));
    let j = Expr::binary(BinaryOp::Mod, Expr::index(), p(0));
    let d = Expr::binary(BinaryOp::Sub, j, i);
    let cond = Expr::binary(if lower { BinaryOp::Le } else { BinaryOp::Ge }, d, p(1));
    let kernel = Kernel::map("tri", vec![], vec![DType::Int64; 2], cond);
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[],
        raws: &[],
        params: vec![Scalar::Int64(m.max(1) as i64), Scalar::Int64(k as i64)],
        outs: vec![None],
        device: Some(device),
        shape: Some(&[n, m]),
    }
    .run_one()
}

fn triangle(m: &Array, k: isize, lower: bool) -> Result<Array> {
    let op = if lower { "tril" } else { "triu" };
    if m.ndim() == 0 {
        return Err(Error::invalid(op, "input array must be at least 1-d"));
    }
    let s = m.shape();
    let (rows, cols) = if m.ndim() == 1 {
        (s[0], s[0])
    } else {
        (s[m.ndim() - 2], s[m.ndim() - 1])
    };
    let mask = tri_mask(op, m.device(), rows, cols, k, lower)?;
    let zero = Array::zeros_on(m.device(), &[], m.dtype())?;
    crate::where_(&mask, m, &zero)
}

/// `numpy.tril(m, k)`: `m` with the elements above diagonal `k` zeroed (over the last two
/// axes; a 1-d `m` is broadcast to a square, as NumPy).
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d `m`; device errors.
pub fn tril(m: &Array, k: isize) -> Result<Array> {
    triangle(m, k, true)
}
routine!(tril, Indexing, notes: "where against a triangle mask kernel");

/// `numpy.triu(m, k)`: `m` with the elements below diagonal `k` zeroed; see [`tril`].
///
/// # Errors
/// As [`tril`].
pub fn triu(m: &Array, k: isize) -> Result<Array> {
    triangle(m, k, false)
}
routine!(triu, Indexing, notes: "where against a triangle mask kernel");

/// `numpy.tril_indices(n, k, m)`: the (row, column) int64 indices of the lower triangle
/// (`j - i <= k`) of an `(n, m)` array (`m` defaults to `n`: pass `None`), in C order, on the
/// current device.
///
/// # Errors
/// Device errors.
pub fn tril_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    tri_indices(&Device::current()?, n, k, m.unwrap_or(n), true)
}
routine!(tril_indices, Indexing, notes: "nonzero of the triangle mask");

/// `numpy.triu_indices(n, k, m)`: the indices of the upper triangle (`j - i >= k`); see
/// [`tril_indices`].
///
/// # Errors
/// Device errors.
pub fn triu_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    tri_indices(&Device::current()?, n, k, m.unwrap_or(n), false)
}
routine!(triu_indices, Indexing, notes: "nonzero of the triangle mask");

/// `numpy.tril_indices_from(arr, k)`: [`tril_indices`] for `arr`'s (2-d) shape, on its device.
///
/// # Errors
/// [`Error::InvalidArgument`] unless `arr` is 2-d.
pub fn tril_indices_from(arr: &Array, k: isize) -> Result<(Array, Array)> {
    let (n, m) = two_d("tril_indices_from", arr)?;
    tri_indices(arr.device(), n, k, m, true)
}
routine!(tril_indices_from, Indexing);

/// `numpy.triu_indices_from(arr, k)`: [`triu_indices`] for `arr`'s (2-d) shape.
///
/// # Errors
/// As [`tril_indices_from`].
pub fn triu_indices_from(arr: &Array, k: isize) -> Result<(Array, Array)> {
    let (n, m) = two_d("triu_indices_from", arr)?;
    tri_indices(arr.device(), n, k, m, false)
}
routine!(triu_indices_from, Indexing);

fn two_d(op: &str, arr: &Array) -> Result<(usize, usize)> {
    if arr.ndim() != 2 {
        return Err(Error::invalid(op, "input array must be 2-d"));
    }
    Ok((arr.shape()[0], arr.shape()[1]))
}

fn tri_indices(
    device: &Device,
    n: usize,
    k: isize,
    m: usize,
    lower: bool,
) -> Result<(Array, Array)> {
    let op = if lower {
        "tril_indices"
    } else {
        "triu_indices"
    };
    let mask = tri_mask(op, device, n, m, k, lower)?;
    let mut rows = super::nonzero::nonzero_rows(op, &mask)?;
    let c = rows.pop().expect("two rows");
    let r = rows.pop().expect("two rows");
    Ok((r, c))
}

/// `numpy.diag_indices(n, ndim)`: `ndim` copies of `arange(n)` (int64, on the current device),
/// the index of the main diagonal of an `(n, ..., n)` array (`a.get` or `a.set` with them).
///
/// # Errors
/// Device errors.
pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Array>> {
    diag_indices_on(&Device::current()?, n, ndim)
}
routine!(diag_indices, Indexing, notes: "arange copies");

/// `numpy.diag_indices_from(arr)`: [`diag_indices`] for `arr` (at least 2-d, every axis of one
/// length), on its device.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two dimensions or unequal lengths (NumPy's
/// ValueError).
pub fn diag_indices_from(arr: &Array) -> Result<Vec<Array>> {
    let op = "diag_indices_from";
    if arr.ndim() < 2 {
        return Err(Error::invalid(op, "input array must be at least 2-d"));
    }
    let s = arr.shape();
    if s.iter().any(|&d| d != s[0]) {
        return Err(Error::invalid(
            op,
            format!("All dimensions of input must be of equal length (shape {s:?})"),
        ));
    }
    diag_indices_on(arr.device(), s[0], arr.ndim())
}
routine!(diag_indices_from, Indexing, notes: "arange copies");

fn diag_indices_on(device: &Device, n: usize, ndim: usize) -> Result<Vec<Array>> {
    let idx = Array::arange_on(device, 0.0, n as f64, 1.0, DType::Int64)?;
    (0..ndim).map(|_| idx.copy()).collect()
}

/// `numpy.mask_indices(n, mask_func, k)`: the (row, column) indices where
/// `mask_func(ones((n, n)), k)` is non-zero, on the current device; `mask_func` is a function of
/// `(array, k)` such as [`crate::triu`] or [`crate::tril`].
///
/// # Errors
/// What `mask_func` returns; [`Error::InvalidArgument`] when its result is not `(n, n)`.
pub fn mask_indices(
    n: usize,
    mask_func: impl Fn(&Array, isize) -> Result<Array>,
    k: isize,
) -> Result<(Array, Array)> {
    let op = "mask_indices";
    let ones = Array::ones_on(&Device::current()?, &[n, n], DType::Int64)?;
    let m = mask_func(&ones, k)?;
    if m.shape() != [n, n] {
        return Err(Error::invalid(
            op,
            format!("mask_func returned shape {:?}, not ({n}, {n})", m.shape()),
        ));
    }
    let mut rows = super::nonzero::nonzero_rows(op, &m)?;
    let c = rows.pop().expect("two rows");
    let r = rows.pop().expect("two rows");
    Ok((r, c))
}
routine!(mask_indices, Indexing, notes: "nonzero of mask_func(ones((n, n)), k)");

/// `numpy.fill_diagonal(a, val, wrap)`, in place: writes `val` (a Rust scalar, or an array
/// whose flattened values repeat along the diagonal) on the main diagonal of `a` (2-d, or
/// every axis of one length). For a tall 2-d `a`, `wrap = true` continues the diagonal below
/// the first square block every `ncols + 1` rows, as NumPy's.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two dimensions, or unequal lengths beyond 2-d;
/// [`Error::ScalarOverflow`] for a Rust integer outside `a`'s dtype; device errors.
pub fn fill_diagonal<'v>(a: &Array, val: impl Into<Arg<'v>>, wrap: bool) -> Result<()> {
    let op = "fill_diagonal";
    if a.ndim() < 2 {
        return Err(Error::invalid(op, "array must be at least 2-d"));
    }
    let s = a.shape();
    let (step, end) = if a.ndim() == 2 {
        let step = s[1] + 1;
        (
            step,
            if wrap {
                a.size()
            } else {
                s[1].saturating_mul(s[1]).min(a.size())
            },
        )
    } else {
        if s.iter().any(|&d| d != s[0]) {
            return Err(Error::invalid(
                op,
                "All dimensions of input must be of equal length",
            ));
        }
        let mut acc = 1usize;
        let mut step = 1usize;
        for &d in &s[..s.len() - 1] {
            acc *= d;
            step += acc;
        }
        (step, a.size())
    };
    let val = super::get::value_array(op, a, val.into())?;
    if end == 0 || val.size() == 0 {
        return Ok(());
    }
    let idx = Array::arange_on(a.device(), 0.0, end as f64, step as f64, DType::Int64)?;
    super::put(a, &idx, &val)
}
routine!(fill_diagonal, Indexing, probe: |t| Some(super::scatter(t, None)), notes: "put at a strided arange (values repeat)");

impl Array {
    /// `a.diagonal(offset, axis1, axis2)`; see [`diagonal`].
    ///
    /// # Errors
    /// As [`diagonal`].
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        diagonal(self, offset, axis1, axis2)
    }
}
