//! `csr_matrix` / `csr_array`: compressed sparse rows.

use super::base::{cast, fit_index, value_dtype, Format, SparseMatrix};
use super::compressed::Compressed;
use super::{CooMatrix, CscMatrix, SparseInput};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::{flatnonzero, take};
use crate::sorting::{searchsorted_with, SearchSorted};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// A sparse matrix in compressed sparse row format (SciPy's `csr_matrix`, `csr_array`):
/// `indptr[i]..indptr[i+1]` are the positions in `indices` (columns) and `data` of row `i`.
#[derive(Clone, Debug)]
pub struct CsrMatrix {
    pub(crate) c: Compressed,
}

/// SciPy's `csr_matrix(arg1, shape=None)`: from a dense 2-d array, `(data, (row, col))`
/// (duplicates summed), `(data, indices, indptr)` (validated as SciPy's `check_format` with
/// `full_check=True`), or a shape `(M, N)` (an empty float64 matrix on the current device).
/// `shape` is required where SciPy cannot infer it (`(data, indices, indptr)` infers the
/// columns from the largest index, as SciPy does).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the op and shapes for inconsistent lengths, an index
/// out of range, a non-monotone `indptr`; [`Error::TypeError`] for unsupported dtypes.
pub fn csr_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CsrMatrix> {
    CsrMatrix::from_input("csr_matrix", arg.into(), shape)
}

/// SciPy's `csr_array` (the same type here: operations follow the sparse-array rules, e.g.
/// `sum(axis)` returns a 1-d array).
///
/// # Errors
/// As [`csr_matrix`].
pub fn csr_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CsrMatrix> {
    CsrMatrix::from_input("csr_array", arg.into(), shape)
}
routine!(csr_matrix as "cupyx.scipy.sparse.csr_matrix / csr_array", Sparse, probe: super::probe, notes: "float32/64, complex64/128 data; int32/int64 indices; row-per-invocation IR kernels");

impl CsrMatrix {
    pub(crate) fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
    ) -> Result<CsrMatrix> {
        match arg {
            SparseInput::Dense(a) => {
                let m = CsrMatrix::from_dense(a)?;
                super::check_shape(op, m.shape(), shape)?;
                Ok(m)
            }
            SparseInput::Coo { data, row, col } => {
                CooMatrix::new(op, data, row, col, shape)?.tocsr()
            }
            SparseInput::Compressed {
                data,
                indices,
                indptr,
            } => {
                let (m, n) = match shape {
                    Some(s) => s,
                    None => {
                        let m = indptr.size().saturating_sub(1);
                        (m, super::infer_minor(op, indices)?)
                    }
                };
                Ok(CsrMatrix {
                    c: Compressed::from_parts(op, data, indices, indptr, m, n, ("rows", "column"))?,
                })
            }
            SparseInput::Shape(m, n) => {
                CsrMatrix::empty(&Device::current()?, (m, n), DType::Float64)
            }
        }
    }

    /// An all-zero `shape` matrix of `dtype` on `device` (int32 indices).
    ///
    /// # Errors
    /// [`Error::TypeError`] for an unsupported dtype; device errors.
    pub fn empty(device: &Device, shape: (usize, usize), dtype: DType) -> Result<CsrMatrix> {
        let t = value_dtype("csr_matrix", dtype)?;
        let it = fit_index(DType::Int32, shape.0.max(shape.1));
        Ok(CsrMatrix {
            c: Compressed::new_unchecked(
                Array::empty_on(device, &[0], t)?,
                Array::empty_on(device, &[0], it)?,
                Array::zeros_on(device, &[shape.0 + 1], it)?,
                shape.0,
                shape.1,
                Some(true),
            ),
        })
    }

    /// The matrix of the nonzeros of a dense 2-d array (a 1-d array is one row), canonical,
    /// int32 indices (int64 past 2^31).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more than 2 dimensions or a 0-d array;
    /// [`Error::TypeError`] for an unsupported dtype.
    pub fn from_dense(a: &Array) -> Result<CsrMatrix> {
        let op = "csr_matrix";
        let a = match a.ndim() {
            2 => a.clone(),
            1 => a.reshape(&[1, -1])?,
            _ => {
                return Err(Error::invalid(
                    op,
                    format!(
                        "expected a dense 2-d array (or 1-d row), got shape {:?}",
                        a.shape()
                    ),
                ))
            }
        };
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let t = value_dtype(op, a.dtype())?;
        let a = cast(&a, t)?;
        let dev = a.device().clone();
        let it = fit_index(DType::Int32, (m * n).max(1));
        if m * n == 0 {
            return CsrMatrix::empty(&dev, (m, n), t);
        }
        let flat = flatnonzero(&a)?;
        let data = take(&a, &flat)?;
        let cols = cast(&flat.remainder(n as i64)?, it)?;
        let rows = flat.floor_divide(n as i64)?;
        let lines = super::base::arange(&dev, m + 1, DType::Int64)?;
        let indptr = if flat.size() == 0 {
            Array::zeros_on(&dev, &[m + 1], it)?
        } else {
            cast(
                &searchsorted_with(&rows, &lines, SearchSorted::default())?,
                it,
            )?
        };
        Ok(CsrMatrix {
            c: Compressed::new_unchecked(data, cols, indptr, m, n, Some(true)),
        })
    }

    /// The stored values (`A.data`).
    pub fn data(&self) -> &Array {
        &self.c.data
    }
    /// The column of each value (`A.indices`).
    pub fn indices(&self) -> &Array {
        &self.c.indices
    }
    /// The row starts (`A.indptr`, length `rows + 1`).
    pub fn indptr(&self) -> &Array {
        &self.c.indptr
    }

    /// `A.has_canonical_format`: indices sorted in every row and no duplicates (one read, then
    /// cached).
    ///
    /// # Errors
    /// Device errors.
    pub fn has_canonical_format(&self) -> Result<bool> {
        self.c.has_canonical_format()
    }

    /// `A.sum_duplicates()`: sorts the indices and sums duplicates, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        self.c = self.c.canonicalized()?;
        Ok(())
    }

    /// `A.sort_indices()`: sorts the indices of every row, in place (duplicates kept).
    ///
    /// # Errors
    /// Device errors.
    pub fn sort_indices(&mut self) -> Result<()> {
        self.c = self.c.sorted()?;
        Ok(())
    }

    /// `A.eliminate_zeros()`: removes stored zeros, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        self.c = self.c.without_zeros()?;
        Ok(())
    }

    /// A canonical copy (sorted indices, duplicates summed; `self` when already canonical).
    ///
    /// # Errors
    /// Device errors.
    pub fn canonical(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.c.canonicalized()?,
        })
    }

    /// `A.T` / `A.transpose()`: the CSC matrix of the same arrays (no copy).
    pub fn transpose(&self) -> CscMatrix {
        CscMatrix { c: self.c.clone() }
    }

    /// `A.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CscMatrix {
        self.transpose()
    }

    /// `A.conj()`: complex conjugate values (a copy; real matrices are returned as they are).
    ///
    /// # Errors
    /// Device errors.
    pub fn conj(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: super::map_data(&self.c, |d| crate::math::complex::conj(d))?,
        })
    }

    /// `A @ x`: a dense vector (SpMV, the result 1-d of length `rows`) or a dense matrix `[cols,
    /// k]` (SpMM, `[rows, k]`), in the promoted dtype of the matrix and `x` (NumPy's rule).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming both shapes when `x`'s first axis is not `cols`;
    /// [`Error::InvalidArgument`] for `x` of more than 2 dimensions; dtype errors.
    pub fn dot(&self, x: &Array) -> Result<Array> {
        let op = "csr_matrix @";
        let t = super::product_dtype(op, self.dtype(), x)?;
        super::check_matvec(op, self.shape(), x)?;
        self.c.matvec(op, x, t)
    }
}

impl SparseMatrix for CsrMatrix {
    fn shape(&self) -> (usize, usize) {
        (self.c.major, self.c.minor)
    }
    fn dtype(&self) -> DType {
        self.c.data.dtype()
    }
    fn nnz(&self) -> usize {
        self.c.nnz()
    }
    fn format(&self) -> Format {
        Format::Csr
    }
    fn device(&self) -> &Device {
        self.c.device()
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        Ok(CooMatrix::new_unchecked(
            self.c.data.clone(),
            self.c.major_indices()?,
            self.c.indices.clone(),
            self.shape(),
            self.c.canonical.get().copied(),
        ))
    }
    fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(self.clone())
    }
    fn as_csr(&self) -> Option<&CsrMatrix> {
        Some(self)
    }
    fn tocsc(&self) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self.c.swapped()?,
        })
    }
    fn toarray(&self) -> Result<Array> {
        self.c.to_dense()
    }
}
