//! `csc_matrix` / `csc_array`: compressed sparse columns, stored as the CSR form of the
//! transpose (see `compressed.rs`).

use super::base::{Format, SparseMatrix};
use super::compressed::Compressed;
use super::{CooMatrix, CsrMatrix, SparseInput};
use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::Result;

/// A sparse matrix in compressed sparse column format (SciPy's `csc_matrix`, `csc_array`):
/// `indptr[j]..indptr[j+1]` are the positions in `indices` (rows) and `data` of column `j`.
#[derive(Clone, Debug)]
pub struct CscMatrix {
    /// The transpose, compressed by its rows (major = this matrix's columns).
    pub(crate) c: Compressed,
}

/// SciPy's `csc_matrix(arg1, shape=None)`: as [`super::csr_matrix`], with
/// `(data, indices, indptr)` giving row indices per column.
///
/// # Errors
/// As [`super::csr_matrix`].
pub fn csc_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CscMatrix> {
    CscMatrix::from_input("csc_matrix", arg.into(), shape)
}

/// SciPy's `csc_array` (the same type here).
///
/// # Errors
/// As [`csc_matrix`].
pub fn csc_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CscMatrix> {
    CscMatrix::from_input("csc_array", arg.into(), shape)
}
routine!(csc_matrix as "cupyx.scipy.sparse.csc_matrix / csc_array", Sparse, probe: super::probe, notes: "stored as the CSR of the transpose; @ converts to CSR");

impl CscMatrix {
    fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
    ) -> Result<CscMatrix> {
        match arg {
            SparseInput::Compressed {
                data,
                indices,
                indptr,
            } => {
                let (m, n) = match shape {
                    Some(s) => s,
                    None => (
                        super::infer_minor(op, indices)?,
                        indptr.size().saturating_sub(1),
                    ),
                };
                Ok(CscMatrix {
                    c: Compressed::from_parts(op, data, indices, indptr, n, m, ("columns", "row"))?,
                })
            }
            other => CsrMatrix::from_input(op, other, shape)?.tocsc(),
        }
    }

    /// The stored values (`A.data`).
    pub fn data(&self) -> &Array {
        &self.c.data
    }
    /// The row of each value (`A.indices`).
    pub fn indices(&self) -> &Array {
        &self.c.indices
    }
    /// The column starts (`A.indptr`, length `cols + 1`).
    pub fn indptr(&self) -> &Array {
        &self.c.indptr
    }

    /// `A.has_canonical_format`.
    ///
    /// # Errors
    /// Device errors.
    pub fn has_canonical_format(&self) -> Result<bool> {
        self.c.has_canonical_format()
    }

    /// `A.sum_duplicates()`, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        self.c = self.c.canonicalized()?;
        Ok(())
    }

    /// `A.sort_indices()`, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn sort_indices(&mut self) -> Result<()> {
        self.c = self.c.sorted()?;
        Ok(())
    }

    /// `A.eliminate_zeros()`, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        self.c = self.c.without_zeros()?;
        Ok(())
    }

    /// `A.T`: the CSR matrix of the same arrays (no copy).
    pub fn transpose(&self) -> CsrMatrix {
        CsrMatrix { c: self.c.clone() }
    }

    /// `A.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CsrMatrix {
        self.transpose()
    }

    /// `A.conj()`.
    ///
    /// # Errors
    /// Device errors.
    pub fn conj(&self) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: super::map_data(&self.c, |d| crate::math::complex::conj(d))?,
        })
    }

    /// `A @ x` (converted to CSR first; see [`CsrMatrix::dot`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array) -> Result<Array> {
        super::check_matvec("csc_matrix @", self.shape(), x)?;
        self.tocsr()?.dot(x)
    }
}

impl SparseMatrix for CscMatrix {
    fn shape(&self) -> (usize, usize) {
        (self.c.minor, self.c.major)
    }
    fn dtype(&self) -> DType {
        self.c.data.dtype()
    }
    fn nnz(&self) -> usize {
        self.c.nnz()
    }
    fn format(&self) -> Format {
        Format::Csc
    }
    fn device(&self) -> &Device {
        self.c.device()
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        Ok(CooMatrix::new_unchecked(
            self.c.data.clone(),
            self.c.indices.clone(),
            self.c.major_indices()?,
            self.shape(),
            None,
        ))
    }
    fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.c.swapped()?,
        })
    }
    fn tocsc(&self) -> Result<CscMatrix> {
        Ok(self.clone())
    }
    fn toarray(&self) -> Result<Array> {
        self.c.to_dense()?.t().copy()
    }
}
