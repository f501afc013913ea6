//! Indexing of CSR and CSC matrices (other formats: `tocsr()` first), as SciPy returns it:
//! `A[i]` (a `1 x n` matrix), `A[a:b:s]` and `A[:, a:b:s]` (matrices, any step, negative too),
//! fancy row indexing `A[[3, 1, 1]]` (repeats and negative indices allowed), the column forms,
//! and single element reads `A[i, j]` (duplicates summed).
//!
//! Selecting major lines (CSR rows, CSC columns) gathers whole lines on the device: the new
//! `indptr` is the running sum of the chosen lines' lengths and each output position finds its
//! source by a `searchsorted` in it. Selecting minor coordinates keeps the entries whose index
//! falls on the slice (`(j - start) % step == 0`) and renumbers them; the new `indptr` is the
//! running count of kept entries taken at the old line starts.

use super::base::{arange, cast, read_i64s, sub, SparseMatrix};
use super::compressed::Compressed;
use super::{CscMatrix, CsrMatrix};
use crate::array::Array;
use crate::indexing::{flatnonzero, take};
use crate::manipulation::join::concatenate;
use crate::sorting::{cumsum, searchsorted_with, SearchSorted, Side};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

routine!("cupyx.scipy.sparse indexing (A[i], A[a:b:s], A[:, a:b:s], A[[i, j, ...]], A[i, j])", Sparse, probe: super::probe, notes: "csr and csc; line gathers and minor-index filters on the device");

/// Python's `slice(start, stop, step).indices(len)`: `(start, step, count)`.
pub(crate) fn slice_indices(
    op: &str,
    len: usize,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
) -> Result<(isize, isize, usize)> {
    if step == 0 {
        return Err(Error::invalid(op, "slice step cannot be zero"));
    }
    let n = len as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let norm = |v: Option<isize>, default: isize| match v {
        None => default,
        Some(v) if v < 0 => {
            if step > 0 {
                clamp(v + n, 0, n)
            } else {
                clamp(v + n, -1, n - 1)
            }
        }
        Some(v) => {
            if step > 0 {
                clamp(v, 0, n)
            } else {
                clamp(v, -1, n - 1)
            }
        }
    };
    let (s, e) = if step > 0 {
        (norm(start, 0), norm(stop, n))
    } else {
        (norm(start, n - 1), norm(stop, -1))
    };
    let count = if step > 0 {
        if e > s {
            ((e - s - 1) / step + 1) as usize
        } else {
            0
        }
    } else if s > e {
        ((s - e - 1) / (-step) + 1) as usize
    } else {
        0
    };
    Ok((s, step, count))
}

/// An index `i` in `-len..len`, wrapped.
pub(crate) fn wrap(op: &str, i: isize, len: usize, what: &str) -> Result<usize> {
    let n = len as isize;
    if i < -n || i >= n {
        return Err(Error::IndexOutOfBounds {
            op: op.into(),
            index: i,
            axis: if what == "row" { 0 } else { 1 },
            size: len,
        });
    }
    Ok(if i < 0 { (i + n) as usize } else { i as usize })
}

impl Compressed {
    /// The major lines `idx` (int64, in range), in order, repeats allowed.
    fn take_lines(&self, idx: &Array) -> Result<Compressed> {
        let dev = self.device().clone();
        let it = self.index_dtype();
        let k = idx.size();
        let ptr = cast(&self.indptr, DType::Int64)?;
        if k == 0 || self.nnz() == 0 {
            return Ok(Compressed::new_unchecked(
                Array::empty_on(&dev, &[0], self.data.dtype())?,
                Array::empty_on(&dev, &[0], it)?,
                Array::zeros_on(&dev, &[k + 1], it)?,
                k,
                self.minor,
                Some(true),
            ));
        }
        let lens = (&sub(&ptr, 1, self.major) - &sub(&ptr, 0, self.major))?;
        let chosen = take(&lens, idx)?;
        let ends = cumsum(&chosen)?;
        let zero = Array::zeros_on(&dev, &[1], DType::Int64)?;
        let newptr = concatenate(&[&zero, &ends], 0)?;
        let total = read_i64s(&[&sub(&ends, k - 1, 1)])?[0] as usize;
        let canonical = self.canonical.get().copied().filter(|&c| c);
        if total == 0 {
            return Ok(Compressed::new_unchecked(
                Array::empty_on(&dev, &[0], self.data.dtype())?,
                Array::empty_on(&dev, &[0], it)?,
                cast(&newptr, it)?,
                k,
                self.minor,
                Some(true),
            ));
        }
        let p = arange(&dev, total, DType::Int64)?;
        let s = searchsorted_with(
            &ends,
            &p,
            SearchSorted {
                side: Side::Right,
                sorter: None,
            },
        )?;
        let src = (&(&take(&take(&ptr, idx)?, &s)? + &p)? - &take(&newptr, &s)?)?;
        Ok(Compressed::new_unchecked(
            take(&self.data, &src)?,
            take(&self.indices, &src)?,
            cast(&newptr, it)?,
            k,
            self.minor,
            canonical,
        ))
    }

    /// The major lines of a slice.
    fn slice_major(
        &self,
        op: &str,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<Compressed> {
        let (s, st, count) = slice_indices(op, self.major, start, stop, step)?;
        let idx = if count == 0 {
            Array::empty_on(self.device(), &[0], DType::Int64)?
        } else {
            (&(&arange(self.device(), count, DType::Int64)? * st as i64)? + s as i64)?
        };
        self.take_lines(&idx)
    }

    /// The minor coordinates of a slice, renumbered `0..count`.
    fn slice_minor(
        &self,
        op: &str,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<Compressed> {
        let (s, st, count) = slice_indices(op, self.minor, start, stop, step)?;
        let dev = self.device().clone();
        let it = self.index_dtype();
        if self.nnz() == 0 || count == 0 {
            return Ok(Compressed::new_unchecked(
                Array::empty_on(&dev, &[0], self.data.dtype())?,
                Array::empty_on(&dev, &[0], it)?,
                Array::zeros_on(&dev, &[self.major + 1], it)?,
                self.major,
                count,
                Some(true),
            ));
        }
        let j = cast(&self.indices, DType::Int64)?;
        let off = (&j - s as i64)?;
        let pos = off.floor_divide(st as i64)?;
        let on = off
            .remainder(st as i64)?
            .equal(0i64)?
            .logical_and(&pos.greater_equal(0i64)?)?
            .logical_and(&pos.less(count as i64)?)?;
        let keep = flatnonzero(&on)?;
        let zero = Array::zeros_on(&dev, &[1], DType::Int64)?;
        let cs = concatenate(&[&zero, &cumsum(&on.astype(DType::Int64)?)?], 0)?;
        let ptr = take(&cs, &cast(&self.indptr, DType::Int64)?)?;
        let canonical = if st > 0 {
            self.canonical.get().copied().filter(|&c| c)
        } else {
            None
        };
        Ok(Compressed::new_unchecked(
            take(&self.data, &keep)?,
            cast(&take(&pos, &keep)?, it)?,
            cast(&ptr, it)?,
            self.major,
            count,
            canonical,
        ))
    }

    /// Fancy major indices: int64, negatives wrapped, bounds checked (one read).
    pub(crate) fn fancy_lines(&self, op: &str, idx: &Array, what: &str) -> Result<Compressed> {
        if idx.ndim() != 1 || !(idx.dtype().is_integer()) {
            return Err(Error::invalid(
                op,
                format!(
                    "fancy {what} indices must be a 1-d integer array, got {} of shape {:?}",
                    idx.dtype(),
                    idx.shape()
                ),
            ));
        }
        let i = cast(idx, DType::Int64)?;
        if i.size() > 0 {
            let b = read_i64s(&[&i.min()?, &i.max()?])?;
            let n = self.major as i64;
            for v in b {
                if v < -n || v >= n {
                    return Err(Error::IndexOutOfBounds {
                        op: op.into(),
                        index: v as isize,
                        axis: if what == "row" { 0 } else { 1 },
                        size: self.major,
                    });
                }
            }
        }
        let i = crate::math::routines::where_(&i.less(0i64)?, &(&i + self.major as i64)?, &i)?;
        self.take_lines(&i)
    }

    /// `A[i, j]` by major line `i`, minor `j` (both in range): a 0-d array.
    fn element(&self, i: usize, j: usize) -> Result<Array> {
        let t = self.data.dtype();
        let b = read_i64s(&[&sub(&self.indptr, i, 2)])?;
        let (lo, hi) = (b[0] as usize, b[1] as usize);
        if hi == lo {
            return Array::zeros_on(self.device(), &[], t);
        }
        let d = sub(&self.data, lo, hi - lo);
        let ind = sub(&self.indices, lo, hi - lo);
        let z = Array::zeros_on(self.device(), &[], t)?;
        crate::math::routines::where_(&ind.equal(j as i64)?, &d, &z)?.sum()
    }
}

impl CsrMatrix {
    /// `A[i]`: row `i` (negative counts from the end) as a `1 x cols` matrix.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the row and the number of rows.
    pub fn row(&self, i: isize) -> Result<CsrMatrix> {
        let r = wrap("csr_matrix[i]", i, self.c.major, "row")? as isize;
        self.row_slice(Some(r), Some(r + 1), 1)
    }

    /// `A[start:stop:step]`: the rows of a slice (Python's rules: `None` ends, negatives
    /// count from the end, any nonzero step).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a zero step.
    pub fn row_slice(
        &self,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.c.slice_major("csr_matrix[a:b:s]", start, stop, step)?,
        })
    }

    /// `A[:, start:stop:step]`: the columns of a slice.
    ///
    /// # Errors
    /// As [`CsrMatrix::row_slice`].
    pub fn col_slice(
        &self,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self
                .c
                .slice_minor("csr_matrix[:, a:b:s]", start, stop, step)?,
        })
    }

    /// `A[:, j]`: column `j` as a `rows x 1` matrix.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the column and the number of columns.
    pub fn col(&self, j: isize) -> Result<CsrMatrix> {
        let c = wrap("csr_matrix[:, j]", j, self.c.minor, "column")? as isize;
        self.col_slice(Some(c), Some(c + 1), 1)
    }

    /// `A[idx]` for a 1-d integer array `idx` (fancy row indexing: any order, repeats,
    /// negatives): `len(idx) x cols`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] for an index outside `-rows..rows`; [`Error::InvalidArgument`]
    /// for a non-integer or non-1-d `idx`.
    pub fn rows(&self, idx: &Array) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.c.fancy_lines("csr_matrix[[i, ...]]", idx, "row")?,
        })
    }

    /// `A[:, idx]` (fancy column indexing, through CSC).
    ///
    /// # Errors
    /// As [`CsrMatrix::rows`], for columns.
    pub fn cols(&self, idx: &Array) -> Result<CsrMatrix> {
        self.tocsc()?.cols(idx)?.tocsr()
    }

    /// `A[i, j]`: one element (duplicates summed), a 0-d array of the matrix dtype.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the axis and its size.
    pub fn get(&self, i: isize, j: isize) -> Result<Array> {
        let r = wrap("csr_matrix[i, j]", i, self.c.major, "row")?;
        let c = wrap("csr_matrix[i, j]", j, self.c.minor, "column")?;
        self.c.element(r, c)
    }
}

impl CscMatrix {
    /// `A[i]`: row `i` as a `1 x cols` CSC matrix.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the row and the number of rows.
    pub fn row(&self, i: isize) -> Result<CscMatrix> {
        let r = wrap("csc_matrix[i]", i, self.c.minor, "row")? as isize;
        self.row_slice(Some(r), Some(r + 1), 1)
    }

    /// `A[start:stop:step]`: the rows of a slice.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a zero step.
    pub fn row_slice(
        &self,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self.c.slice_minor("csc_matrix[a:b:s]", start, stop, step)?,
        })
    }

    /// `A[:, start:stop:step]`: the columns of a slice.
    ///
    /// # Errors
    /// As [`CscMatrix::row_slice`].
    pub fn col_slice(
        &self,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self
                .c
                .slice_major("csc_matrix[:, a:b:s]", start, stop, step)?,
        })
    }

    /// `A[:, j]`: column `j` as a `rows x 1` CSC matrix.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the column and the number of columns.
    pub fn col(&self, j: isize) -> Result<CscMatrix> {
        let c = wrap("csc_matrix[:, j]", j, self.c.major, "column")? as isize;
        self.col_slice(Some(c), Some(c + 1), 1)
    }

    /// `A[idx]` (fancy row indexing, through CSR; the result CSC as SciPy's).
    ///
    /// # Errors
    /// As [`CsrMatrix::rows`].
    pub fn rows(&self, idx: &Array) -> Result<CscMatrix> {
        self.tocsr()?.rows(idx)?.tocsc()
    }

    /// `A[:, idx]` (fancy column indexing: whole columns gathered).
    ///
    /// # Errors
    /// As [`CsrMatrix::rows`], for columns.
    pub fn cols(&self, idx: &Array) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self
                .c
                .fancy_lines("csc_matrix[:, [j, ...]]", idx, "column")?,
        })
    }

    /// `A[i, j]`: one element (duplicates summed), a 0-d array.
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the axis and its size.
    pub fn get(&self, i: isize, j: isize) -> Result<Array> {
        let r = wrap("csc_matrix[i, j]", i, self.c.minor, "row")?;
        let c = wrap("csc_matrix[i, j]", j, self.c.major, "column")?;
        self.c.element(c, r)
    }
}
