//! `argmax`/`argmin` (axis None, 0, 1) and the elementwise `maximum`/`minimum` of CSR matrices
//! (other formats: `tocsr()` first), composed of array ops on the device.
//!
//! The arg-reductions follow NumPy's rule on the dense matrix: the first index (row-major for
//! `axis=None`) holding the extreme value, implicit zeros included. Per line, the extreme is the
//! segment max/min of the canonical matrix (implicit zeros counted), and the answer is the
//! earlier of the first stored entry equal to it and, when the extreme is 0, the first implicit
//! zero (the first position `k` whose stored column is not `k`). "First in a line" is a
//! `searchsorted` of the sorted candidate positions against the line starts.

use super::base::{arange, cast, sub, SparseMatrix};
use super::compressed::Compressed;
use super::kernels::Seg;
use super::CsrMatrix;
use crate::array::Array;
use crate::indexing::{flatnonzero, take};
use crate::math::routines::where_;
use crate::sorting::searchsorted;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

routine!("cupyx.scipy.sparse argmax / argmin / maximum / minimum", Sparse, probe: super::probe, notes: "CSR methods (other formats: tocsr); arg-reductions with axis None/0/1 as NumPy on the dense matrix");

/// For each line `r` (starts `lo[r]`, ends `hi[r]`, int64), the first of the sorted int64
/// positions `cand` in `lo[r]..hi[r]`: `(found, position)` (position meaningless where not found).
fn first_in_lines(cand: &Array, lo: &Array, hi: &Array) -> Result<(Array, Array)> {
    let n = lo.size();
    let dev = lo.device();
    if cand.size() == 0 {
        return Ok((
            Array::zeros_on(dev, &[n], DType::Bool)?,
            Array::zeros_on(dev, &[n], DType::Int64)?,
        ));
    }
    let last = cand.size() as i64 - 1;
    let p = cast(&searchsorted(cand, lo)?, DType::Int64)?.minimum(last)?;
    let pos = take(cand, &p)?;
    let found = pos.less(hi)?.logical_and(&pos.greater_equal(lo)?)?;
    Ok((found, pos))
}

/// Where `data` holds the extreme `ext` (broadcast): equal to it, or NaN where it is NaN (NumPy's
/// `argmax`/`argmin` return the first NaN, and NaN equals nothing).
fn same_or_nan(data: &Array, ext: &Array) -> Result<Array> {
    data.equal(ext)?
        .logical_or(&data.isnan()?.logical_and(&ext.isnan()?)?)
}

/// The arg-reduction of each major line of a canonical `c` (int64, length `major`).
fn line_arg(c: &Compressed, max: bool) -> Result<Array> {
    let dev = c.device().clone();
    let major = c.major;
    let ptr = cast(&c.indptr, DType::Int64)?;
    let lo = sub(&ptr, 0, major);
    let hi = sub(&ptr, 1, major);
    let len = (&hi - &lo)?;
    // The extreme of each line, implicit zeros counted.
    let ext = c.line_reduce(if max { Seg::Max } else { Seg::Min })?;
    let nnz = c.nnz();
    let rows = cast(&c.major_indices()?, DType::Int64)?;
    let cols = cast(&c.indices, DType::Int64)?;
    // First stored entry equal to the extreme.
    let (found, pos) = if nnz == 0 {
        first_in_lines(&Array::empty_on(&dev, &[0], DType::Int64)?, &lo, &hi)?
    } else {
        let hit = same_or_nan(&c.data, &take(&ext, &rows)?)?;
        first_in_lines(&cast(&flatnonzero(&hit)?, DType::Int64)?, &lo, &hi)?
    };
    let stored_col = if nnz == 0 {
        Array::zeros_on(&dev, &[major], DType::Int64)?
    } else {
        take(&cols, &pos.minimum(nnz as i64 - 1)?)?
    };
    // First implicit zero: the first k with indices[lo + k] != k, else len (when len < minor).
    let missing = if nnz == 0 {
        len.clone()
    } else {
        let k = (&arange(&dev, nnz, DType::Int64)? - &take(&lo, &rows)?)?;
        let gap = cols.not_equal(&k)?;
        let (f, p) = first_in_lines(&cast(&flatnonzero(&gap)?, DType::Int64)?, &lo, &hi)?;
        let kp = (&p - &lo)?;
        where_(&f, &kp, &len)?
    };
    let zero_wins = ext.equal(0i64)?.logical_and(&len.less(c.minor as i64)?)?;
    let big = i64::MAX;
    let a = where_(&found, &stored_col, big)?;
    let b = where_(&zero_wins, &missing, big)?;
    let r = a.minimum(&b)?;
    // A line with neither (only possible for minor == 0, refused earlier) gives 0.
    where_(&r.equal(big)?, 0i64, &r)
}

impl CsrMatrix {
    fn arg_extreme(&self, axis: super::Axis, max: bool) -> Result<Array> {
        let op = if max { "argmax" } else { "argmin" };
        if self.dtype().is_complex() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![self.dtype()],
                msg: "complex sparse matrices have no ordering here".into(),
            });
        }
        let (m, n) = self.shape();
        match axis {
            None => {
                if m * n == 0 {
                    return Err(Error::invalid(
                        op,
                        format!("Cannot apply {op} to an empty matrix (shape ({m}, {n}))"),
                    ));
                }
                // NumPy's rule on the flat (row-major) matrix: the first stored entry equal to
                // the extreme, or the first implicit zero when the extreme is 0. One read.
                let a = self.canonical()?;
                let dev = self.device().clone();
                let mn = (m * n) as i64;
                let ext = if max {
                    self.max(None)?
                } else {
                    self.min(None)?
                };
                let nnz = a.nnz();
                let (mut first_hit, mut first_gap) = (mn, nnz as i64);
                let ext_v;
                if nnz == 0 {
                    ext_v = 0.0;
                } else {
                    let r = cast(&a.c.major_indices()?, DType::Int64)?;
                    let flat = (&(&r * n as i64)? + &cast(&a.c.indices, DType::Int64)?)?;
                    let hit = same_or_nan(&a.c.data, &ext)?;
                    let hits = where_(&hit, &flat, mn)?.min()?;
                    let k = arange(&dev, nnz, DType::Int64)?;
                    let gaps = where_(&flat.not_equal(&k)?, &k, nnz as i64)?.min()?;
                    let e = cast(&ext, DType::Float64)?;
                    let parts = [hits.reshape(&[1])?, gaps.reshape(&[1])?];
                    let v = crate::concatenate(&[&parts[0], &parts[1]], 0)?.to_vec::<i64>()?;
                    ext_v = e.item()?.to_f64();
                    first_hit = v[0];
                    first_gap = v[1];
                }
                let mut best = first_hit;
                if ext_v == 0.0 && (nnz as i64) < mn {
                    best = best.min(first_gap);
                }
                if best >= mn {
                    best = 0;
                }
                Array::from_slice_on(&dev, &[best], &[])
            }
            Some(ax) => {
                let ax = match ax {
                    0 | -2 => 0,
                    1 | -1 => 1,
                    _ => {
                        return Err(Error::AxisOutOfRange {
                            op: op.into(),
                            axis: ax,
                            ndim: 2,
                        })
                    }
                };
                let (reduced, kept) = if ax == 0 { (m, n) } else { (n, m) };
                if reduced == 0 {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "Cannot apply {op} along a zero-sized dimension (shape ({m}, {n}), axis {ax})"
                        ),
                    ));
                }
                if kept == 0 {
                    // No lines to reduce: NumPy's (and SciPy's) empty result.
                    return Array::zeros_on(self.device(), &[0], DType::Int64);
                }
                let c = if ax == 1 {
                    self.c.canonicalized()?
                } else {
                    self.c.swapped()?.canonicalized()?
                };
                line_arg(&c, max)
            }
        }
    }

    /// `A.argmax(axis)`: the index of the first largest entry, implicit zeros included, as
    /// NumPy's `argmax` of `A.toarray()`: `None` a 0-d int64 array (row-major flat index),
    /// `Some(0)` one row index per column, `Some(1)` one column index per row (1-d int64, as
    /// SciPy's sparse arrays). Where a stored zero is the extreme SciPy 1.17 compares a data
    /// position with an index (`min(extreme_index, zero_ind)`); this returns NumPy's answer.
    /// A NaN is the extreme, as in NumPy: the first NaN's index (SciPy 1.17 returns an
    /// implicit zero's). An axis whose lines are empty (`axis=1` of a `0 x n` matrix) gives an
    /// empty array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty matrix without an axis, or a reduced axis of
    /// length 0 (naming the shape);
    /// [`Error::TypeError`] for complex values; [`Error::AxisOutOfRange`].
    pub fn argmax(&self, axis: super::Axis) -> Result<Array> {
        self.arg_extreme(axis, true)
    }

    /// `A.argmin(axis)`: see [`CsrMatrix::argmax`].
    ///
    /// # Errors
    /// As [`CsrMatrix::argmax`].
    pub fn argmin(&self, axis: super::Axis) -> Result<Array> {
        self.arg_extreme(axis, false)
    }

    fn max_min(&self, other: &dyn SparseMatrix, max: bool) -> Result<CsrMatrix> {
        let op = if max { "maximum" } else { "minimum" };
        if self.shape() != other.shape() {
            let (a, b) = (self.shape(), other.shape());
            return Err(super::shapes_error(
                op,
                ("A", &[a.0, a.1]),
                ("B", &[b.0, b.1]),
                "the shapes must be equal (inconsistent shapes)",
            ));
        }
        let t = cupy_core::promote::promote_types(self.dtype(), other.dtype());
        let (m, n) = self.shape();
        let (a, b) = (self.tocoo()?, other.tocoo()?);
        if a.nnz() + b.nnz() == 0 {
            return CsrMatrix::empty(self.device(), (m, n), t);
        }
        let it = super::base::wider_index(a.index_dtype(), b.index_dtype());
        let dev = self.device().clone();
        let row = crate::concatenate(&[&cast(a.row(), it)?, &cast(b.row(), it)?], 0)?;
        let col = crate::concatenate(&[&cast(a.col(), it)?, &cast(b.col(), it)?], 0)?;
        let za = Array::zeros_on(&dev, &[a.nnz()], t)?;
        let zb = Array::zeros_on(&dev, &[b.nnz()], t)?;
        let da = crate::concatenate(&[&cast(a.data(), t)?, &zb], 0)?;
        let db = crate::concatenate(&[&za, &cast(b.data(), t)?], 0)?;
        // The same keys sort the same way: both sums share one structure (the union).
        let ca = Compressed::from_triplets(&row, &col, &da, m, n, it, true)?;
        let cb = Compressed::from_triplets(&row, &col, &db, m, n, it, true)?;
        let v = if max {
            ca.data.maximum(&cb.data)?
        } else {
            ca.data.minimum(&cb.data)?
        };
        let c = super::map_data(&ca, |_| Ok(v.clone()))?;
        Ok(CsrMatrix {
            c: c.without_zeros()?,
        })
    }

    /// `A.maximum(B)` for a sparse `B` of the same shape: the elementwise larger value (implicit
    /// zeros take part), canonical CSR without stored zeros, as SciPy's `csr_binop_csr`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming both shapes; device errors.
    pub fn maximum(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        self.max_min(other, true)
    }

    /// `A.minimum(B)`: see [`CsrMatrix::maximum`].
    ///
    /// # Errors
    /// As [`CsrMatrix::maximum`].
    pub fn minimum(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        self.max_min(other, false)
    }

    fn max_min_scalar(&self, s: f64, max: bool) -> Result<CsrMatrix> {
        let dense_result = if max { s > 0.0 } else { s < 0.0 } || s.is_nan();
        if dense_result {
            // SciPy: "Taking maximum with a positive number results in a dense matrix" (it
            // returns the dense result as a sparse matrix of the same format).
            let d = self.toarray()?;
            let r = if max { d.maximum(s)? } else { d.minimum(s)? };
            return CsrMatrix::from_dense(&r);
        }
        let a = self.canonical()?;
        let c = super::map_data(&a.c, |d| if max { d.maximum(s) } else { d.minimum(s) })?;
        Ok(CsrMatrix {
            c: c.without_zeros()?,
        })
    }

    /// `A.maximum(s)` for a real scalar: for `s > 0` every entry changes, and the result is the
    /// dense `maximum(A.toarray(), s)` stored as CSR (SciPy warns and does the same); for
    /// `s <= 0` the stored values only, zeros dropped. NEP 50: `s` is weak.
    ///
    /// # Errors
    /// Dtype errors.
    pub fn maximum_scalar(&self, s: f64) -> Result<CsrMatrix> {
        self.max_min_scalar(s, true)
    }

    /// `A.minimum(s)`: as [`CsrMatrix::maximum_scalar`], dense for `s < 0`.
    ///
    /// # Errors
    /// Dtype errors.
    pub fn minimum_scalar(&self, s: f64) -> Result<CsrMatrix> {
        self.max_min_scalar(s, false)
    }

    /// `A.maximum(X)` for a dense `X` (broadcast): the dense `maximum(A.toarray(), X)`.
    ///
    /// # Errors
    /// Broadcasting errors naming the shapes.
    pub fn maximum_dense(&self, x: &Array) -> Result<Array> {
        self.toarray()?.maximum(x)
    }

    /// `A.minimum(X)` for a dense `X`: the dense `minimum(A.toarray(), X)`.
    ///
    /// # Errors
    /// Broadcasting errors naming the shapes.
    pub fn minimum_dense(&self, x: &Array) -> Result<Array> {
        self.toarray()?.minimum(x)
    }
}
