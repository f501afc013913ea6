//! What CSR and CSC share: [`Compressed`], a matrix stored by *major* lines (CSR: rows, CSC:
//! columns) with `indptr` (length `major + 1`), `indices` (minor coordinates) and `data`.
//! A CSC matrix of shape `(m, n)` is the compressed form of its transpose, `(n, m)` by rows,
//! so every routine here is written once, for rows.
//!
//! Everything runs on the arrays' device through frontend ops (lexsort, take, searchsorted,
//! flatnonzero, cumulative and elementwise ops) and the row kernels of `kernels.rs`. Results
//! that depend on data (the number of unique entries, the longest row) are read back, one
//! small read each, as CuPy does.

use super::base::{arange, cast, check_1d, fit_index, index_dtype, read_i64s, sub, value_dtype};
use super::kernels::{self, Seg, Which};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::{flatnonzero, take};
use crate::launch::Elementwise;
use crate::manipulation::join::concatenate;
use crate::sorting::{lexsort, searchsorted_with, SearchSorted, Side};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;
use std::sync::OnceLock;

/// A compressed sparse matrix by major lines (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Compressed {
    /// The stored values (`nnz`).
    pub data: Array,
    /// The minor coordinate of each value (`nnz`, int32 or int64).
    pub indices: Array,
    /// Line starts (`major + 1`, the dtype of `indices`).
    pub indptr: Array,
    /// The number of major lines.
    pub major: usize,
    /// The length of a major line.
    pub minor: usize,
    /// Sorted minor indices and no duplicates in each line (computed on demand).
    pub canonical: OnceLock<bool>,
    /// The longest line (computed on demand).
    pub max_len: OnceLock<usize>,
}

impl Compressed {
    /// Wraps arrays known to be valid; `canonical` when known.
    pub fn new_unchecked(
        data: Array,
        indices: Array,
        indptr: Array,
        major: usize,
        minor: usize,
        canonical: Option<bool>,
    ) -> Compressed {
        let c = OnceLock::new();
        if let Some(v) = canonical {
            let _ = c.set(v);
        }
        Compressed {
            data,
            indices,
            indptr,
            major,
            minor,
            canonical: c,
            max_len: OnceLock::new(),
        }
    }

    /// SciPy's `(data, indices, indptr)` constructor with its `check_format` (full check):
    /// lengths, `indptr[0] == 0`, `indptr` non-decreasing, `indptr[-1] <= len(indices)` (longer
    /// `data`/`indices` are cut to `indptr[-1]`), indices in `0..minor`. One read.
    pub fn from_parts(
        op: &str,
        data: &Array,
        indices: &Array,
        indptr: &Array,
        major: usize,
        minor: usize,
        names: (&str, &str),
    ) -> Result<Compressed> {
        check_1d(op, "data", data)?;
        check_1d(op, "indices", indices)?;
        check_1d(op, "indptr", indptr)?;
        let dev = data.device();
        super::base::same_device(op, dev, &[indices, indptr])?;
        let it = super::base::wider_index(
            index_dtype(op, "indices", indices.dtype())?,
            index_dtype(op, "indptr", indptr.dtype())?,
        );
        let it = fit_index(it, major.max(minor).max(indices.size()));
        let t = value_dtype(op, data.dtype())?;
        if indptr.size() != major + 1 {
            return Err(Error::invalid(
                op,
                format!(
                    "index pointer size {} should be {} ({} + 1 for shape ({}, {}))",
                    indptr.size(),
                    major + 1,
                    names.0,
                    if names.0 == "rows" { major } else { minor },
                    if names.0 == "rows" { minor } else { major },
                ),
            ));
        }
        if indices.size() != data.size() {
            return Err(Error::invalid(
                op,
                format!(
                    "indices and data should have the same size, got {} and {}",
                    indices.size(),
                    data.size()
                ),
            ));
        }
        let indptr = cast(indptr, it)?;
        let indices = cast(indices, it)?;
        let data = cast(data, t)?;
        // One read: indptr[0], indptr[-1], min(diff(indptr)), min/max of the indices.
        let first = sub(&indptr, 0, 1);
        let last = sub(&indptr, major, 1);
        let mut parts = vec![first, last];
        if major > 0 {
            let d = (&sub(&indptr, 1, major) - &sub(&indptr, 0, major))?;
            parts.push(d.min()?.reshape(&[1])?);
        }
        if indices.size() > 0 {
            parts.push(indices.min()?.reshape(&[1])?);
            parts.push(indices.max()?.reshape(&[1])?);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        let v = read_i64s(&refs)?;
        if v[0] != 0 {
            return Err(Error::invalid(
                op,
                format!("index pointer should start with 0, got {}", v[0]),
            ));
        }
        if v[1] < 0 || v[1] as usize > indices.size() {
            return Err(Error::invalid(
                op,
                format!(
                    "last value of index pointer ({}) should be at most the size of indices and data ({})",
                    v[1],
                    indices.size()
                ),
            ));
        }
        let mut k = 2;
        if major > 0 {
            if v[k] < 0 {
                return Err(Error::invalid(
                    op,
                    "index pointer values must form a non-decreasing sequence",
                ));
            }
            k += 1;
        }
        let nnz = v[1] as usize;
        let cut = nnz < indices.size();
        let (indices, data) = if cut {
            (sub(&indices, 0, nnz), sub(&data, 0, nnz))
        } else {
            (indices, data)
        };
        if nnz > 0 {
            // The bounds of every stored index; when a tail past indptr[-1] was cut off, of
            // the kept part only (SciPy ignores the tail): a second read in that case.
            let (mut lo, mut hi) = (v[k], v[k + 1]);
            if cut {
                let b = read_i64s(&[&indices.min()?, &indices.max()?])?;
                (lo, hi) = (b[0], b[1]);
            }
            if lo < 0 {
                return Err(Error::invalid(
                    op,
                    format!("{} index values must be >= 0, found {lo}", names.1),
                ));
            }
            if hi >= minor as i64 {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{} index {hi} out of range: must be < {minor} (the number of {}s)",
                        names.1, names.1
                    ),
                ));
            }
        }
        Ok(Compressed::new_unchecked(
            data, indices, indptr, major, minor, None,
        ))
    }

    /// The number of stored values.
    pub fn nnz(&self) -> usize {
        self.data.size()
    }

    /// The device.
    pub fn device(&self) -> &Device {
        self.data.device()
    }

    /// The index dtype.
    pub fn index_dtype(&self) -> DType {
        self.indices.dtype()
    }

    /// The major coordinate of every stored value (the index dtype): `searchsorted(indptr[1:],
    /// arange(nnz), side='right')`.
    pub fn major_indices(&self) -> Result<Array> {
        let it = self.index_dtype();
        let nnz = self.nnz();
        if nnz == 0 || self.major == 0 {
            return Array::empty_on(self.device(), &[0], it);
        }
        let pos = arange(self.device(), nnz, it)?;
        let ends = sub(&self.indptr, 1, self.major);
        let r = searchsorted_with(
            &ends,
            &pos,
            SearchSorted {
                side: Side::Right,
                sorter: None,
            },
        )?;
        cast(&r, it)
    }

    /// The longest line (one read, cached).
    pub fn max_len(&self) -> Result<usize> {
        if let Some(&v) = self.max_len.get() {
            return Ok(v);
        }
        let v = if self.major == 0 || self.nnz() == 0 {
            0
        } else {
            let d = (&sub(&self.indptr, 1, self.major) - &sub(&self.indptr, 0, self.major))?;
            read_i64s(&[&d.max()?])?[0].max(0) as usize
        };
        let _ = self.max_len.set(v);
        Ok(v)
    }

    /// Sorted indices without duplicates in every line (one read, cached).
    pub fn has_canonical_format(&self) -> Result<bool> {
        if let Some(&v) = self.canonical.get() {
            return Ok(v);
        }
        let n = self.nnz();
        let v = if n < 2 {
            true
        } else {
            let rows = self.major_indices()?;
            let new_line = sub(&rows, 1, n - 1).not_equal(&sub(&rows, 0, n - 1))?;
            let up = sub(&self.indices, 1, n - 1).greater(&sub(&self.indices, 0, n - 1))?;
            let ok = new_line.logical_or(&up)?.all()?;
            read_i64s(&[&ok])?[0] != 0
        };
        let _ = self.canonical.set(v);
        Ok(v)
    }

    /// The canonical compressed matrix of triplets (major, minor, value): sorted by major, then
    /// minor (stable), duplicates summed when `sum` (else kept, sorted). `it` is the index dtype.
    pub fn from_triplets(
        major_idx: &Array,
        minor_idx: &Array,
        data: &Array,
        major: usize,
        minor: usize,
        it: DType,
        sum: bool,
    ) -> Result<Compressed> {
        let dev = data.device().clone();
        let it = fit_index(it, major.max(minor).max(data.size()));
        let n = data.size();
        let (mut r, mut c, mut d) = if n == 0 {
            (
                Array::empty_on(&dev, &[0], it)?,
                Array::empty_on(&dev, &[0], it)?,
                data.clone(),
            )
        } else {
            let perm = lexsort(&[minor_idx, major_idx])?;
            (
                cast(&take(major_idx, &perm)?, it)?,
                cast(&take(minor_idx, &perm)?, it)?,
                take(data, &perm)?,
            )
        };
        if sum && n > 1 {
            let new_key = sub(&r, 1, n - 1)
                .not_equal(&sub(&r, 0, n - 1))?
                .logical_or(&sub(&c, 1, n - 1).not_equal(&sub(&c, 0, n - 1))?)?;
            let first = Array::full_on(&dev, &[1], true, DType::Bool)?;
            let flags = concatenate(&[&first, &new_key], 0)?;
            let starts = flatnonzero(&flags)?;
            let u = starts.size();
            if u < n {
                let end = Array::full_on(&dev, &[1], Scalar::Int64(n as i64), DType::Int64)?;
                let ptr = concatenate(&[&starts, &end], 0)?;
                d = segment_reduce(&ptr, &d, u, Seg::Sum, 0, None)?;
                r = take(&r, &starts)?;
                c = take(&c, &starts)?;
            }
        }
        let indptr = if major == 0 {
            Array::zeros_on(&dev, &[1], it)?
        } else if r.size() == 0 {
            Array::zeros_on(&dev, &[major + 1], it)?
        } else {
            let lines = arange(&dev, major + 1, it)?;
            cast(&searchsorted_with(&r, &lines, SearchSorted::default())?, it)?
        };
        Ok(Compressed::new_unchecked(
            d,
            c,
            indptr,
            major,
            minor,
            Some(sum || n < 2),
        ))
    }

    /// The same matrix in canonical form (a copy; `self` when already canonical).
    pub fn canonicalized(&self) -> Result<Compressed> {
        if self.has_canonical_format()? {
            return Ok(self.clone());
        }
        let rows = self.major_indices()?;
        Compressed::from_triplets(
            &rows,
            &self.indices,
            &self.data,
            self.major,
            self.minor,
            self.index_dtype(),
            true,
        )
    }

    /// SciPy's `sort_indices`: minor indices sorted in every line (duplicates kept).
    pub fn sorted(&self) -> Result<Compressed> {
        if self.has_canonical_format()? {
            return Ok(self.clone());
        }
        let rows = self.major_indices()?;
        let mut c = Compressed::from_triplets(
            &rows,
            &self.indices,
            &self.data,
            self.major,
            self.minor,
            self.index_dtype(),
            false,
        )?;
        c.indptr = self.indptr.clone();
        c.canonical = OnceLock::new();
        Ok(c)
    }

    /// SciPy's `eliminate_zeros`: the stored zeros removed (order kept).
    pub fn without_zeros(&self) -> Result<Compressed> {
        if self.nnz() == 0 {
            return Ok(self.clone());
        }
        // One reduction first: most matrices store no zeros, and then nothing is gathered.
        if read_i64s(&[&self.data.count_nonzero()?])?[0] as usize == self.nnz() {
            return Ok(self.clone());
        }
        self.keep(&flatnonzero(&self.data)?)
    }

    /// The entries of the lower (`lower`) or upper triangle, the diagonal's too when `diag`
    /// (order kept).
    pub fn triangle(&self, lower: bool, diag: bool) -> Result<Compressed> {
        if self.nnz() == 0 {
            return Ok(self.clone());
        }
        let i64t = DType::Int64;
        let rows = cast(&self.major_indices()?, i64t)?;
        let cols = cast(&self.indices, i64t)?;
        let inside = match (lower, diag) {
            (true, true) => cols.less_equal(&rows)?,
            (true, false) => cols.less(&rows)?,
            (false, true) => cols.greater_equal(&rows)?,
            (false, false) => cols.greater(&rows)?,
        };
        self.keep(&flatnonzero(&inside)?)
    }

    /// The entries at positions `keep` (sorted, from `flatnonzero`), order kept; `self` when
    /// that is all of them.
    fn keep(&self, keep: &Array) -> Result<Compressed> {
        if keep.size() == self.nnz() {
            return Ok(self.clone());
        }
        let rows = self.major_indices()?;
        let r = take(&rows, keep)?;
        let it = self.index_dtype();
        let indptr = if self.major == 0 || r.size() == 0 {
            Array::zeros_on(self.device(), &[self.major + 1], it)?
        } else {
            let lines = arange(self.device(), self.major + 1, it)?;
            cast(&searchsorted_with(&r, &lines, SearchSorted::default())?, it)?
        };
        let canonical = self.canonical.get().copied().filter(|&c| c);
        Ok(Compressed::new_unchecked(
            take(&self.data, keep)?,
            cast(&take(&self.indices, keep)?, it)?,
            indptr,
            self.major,
            self.minor,
            canonical,
        ))
    }

    /// The same matrix compressed by minor lines (SciPy's `csr_tocsc`): indices sorted in
    /// every line, duplicates kept (adjacent, in their original order).
    pub fn swapped(&self) -> Result<Compressed> {
        let rows = self.major_indices()?;
        let mut c = Compressed::from_triplets(
            &self.indices,
            &rows,
            &self.data,
            self.minor,
            self.major,
            self.index_dtype(),
            false,
        )?;
        c.canonical = OnceLock::new();
        if let Some(true) = self.canonical.get() {
            let _ = c.canonical.set(true);
        }
        Ok(c)
    }

    /// Dense `[major, minor]` (C order), duplicates summed (the `todense` kernel).
    pub fn to_dense(&self) -> Result<Array> {
        let t = self.data.dtype();
        let out = Array::zeros_on(self.device(), &[self.major, self.minor], t)?;
        if self.nnz() == 0 || self.major == 0 {
            return Ok(out);
        }
        let (k, dtypes) = kernels::cached(Which::Todense, t, self.index_dtype())?;
        Elementwise {
            op: "toarray",
            kernel: &k,
            inputs: &[],
            raws: &[&self.indptr, &self.indices, &self.data, &out],
            params: vec![
                Scalar::Int64(self.max_len()? as i64),
                Scalar::Int64(self.minor as i64),
            ],
            outs: vec![],
            device: Some(self.device()),
            shape: Some(&[self.major]),
        }
        .run_validated(&dtypes)?;
        Ok(out)
    }

    /// `y = A x` by major lines: `x` 1-d of length `minor` (SpMV) or 2-d `[minor, k]` (SpMM),
    /// both already in the value dtype `t`.
    pub fn matvec(&self, op: &str, x: &Array, t: DType) -> Result<Array> {
        let data = cast(&self.data, t)?;
        let x = cast(x, t)?;
        let spmm = x.ndim() == 2;
        let k = if spmm { x.shape()[1] } else { 1 };
        let shape: Vec<usize> = if spmm {
            vec![self.major, k]
        } else {
            vec![self.major]
        };
        if self.nnz() == 0 || self.major == 0 || k == 0 {
            return Array::zeros_on(self.device(), &shape, t);
        }
        if let Some(y) = super::library::spmv(self, &x, t)? {
            return Ok(y);
        }
        let which = if spmm { Which::Spmm } else { Which::Spmv };
        let (kern, dtypes) = kernels::cached(which, t, self.index_dtype())?;
        let mut params = vec![Scalar::Int64(self.max_len()? as i64)];
        if spmm {
            params.push(Scalar::Int64(k as i64));
        }
        let flat = [self.major * k];
        let y = Elementwise {
            op,
            kernel: &kern,
            inputs: &[],
            raws: &[&self.indptr, &self.indices, &data, &x],
            params,
            outs: vec![],
            device: Some(self.device()),
            shape: Some(&flat),
        }
        .run_validated(&dtypes)?
        .remove(0);
        y.reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())
    }

    /// A reduction of each major line's values (length `major`; see `kernels::segment`).
    pub fn line_reduce(&self, s: Seg) -> Result<Array> {
        let t = self.data.dtype();
        if self.major == 0 {
            return Array::empty_on(self.device(), &[0], t);
        }
        if self.nnz() == 0 {
            return Array::zeros_on(self.device(), &[self.major], t);
        }
        let c = self.canonicalized()?;
        segment_reduce(&c.indptr, &c.data, c.major, s, c.minor, Some(c.max_len()?))
    }
}

/// `seg(data[ptr[i]..ptr[i+1]])` for `i < n` (`ptr` int32/int64 of length `n + 1`);
/// `max_len` is read back when not given.
pub(crate) fn segment_reduce(
    ptr: &Array,
    data: &Array,
    n: usize,
    s: Seg,
    minor: usize,
    max_len: Option<usize>,
) -> Result<Array> {
    let max_len = match max_len {
        Some(m) => m,
        None => {
            let d = (&sub(ptr, 1, n) - &sub(ptr, 0, n))?;
            read_i64s(&[&d.max()?])?[0].max(0) as usize
        }
    };
    let (k, dtypes) = kernels::cached(Which::Segment(s), data.dtype(), ptr.dtype())?;
    Elementwise {
        op: "sparse segment reduce",
        kernel: &k,
        inputs: &[],
        raws: &[ptr, data],
        params: vec![Scalar::Int64(max_len as i64), Scalar::Int64(minor as i64)],
        outs: vec![],
        device: Some(data.device()),
        shape: Some(&[n]),
    }
    .run_validated(&dtypes)
    .map(|mut v| v.remove(0))
}
