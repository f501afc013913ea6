//! Sparse @ sparse (SpGEMM), device-resident and composed of array ops (the ESC scheme:
//! *expand* every product `A[i, j] * B[j, :]` into triplets, *sort* them by `(i, col)`,
//! *compress* equal keys by a segment sum):
//!
//! 1. per stored `A[i, j]`, the length of row `j` of `B` (`counts`), and their running sums
//!    `ends` (one read: the number of products);
//! 2. product `p` belongs to the `A` entry `s = searchsorted(ends, p, 'right')`, and takes `B`'s
//!    entry `indptr_B[j] + p - (ends[s] - counts[s])`;
//! 3. the triplets `(i, col_B, a * b)` become canonical CSR (lexsort + segment sum); zero sums
//!    are dropped, as SciPy's `csr_matmat` drops them.

use super::base::{cast, read_i64s, sub, wider_index, SparseMatrix};
use super::compressed::Compressed;
use super::CsrMatrix;
use crate::indexing::take;
use crate::sorting::{cumsum, searchsorted_with, SearchSorted, Side};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

routine!("cupyx.scipy.sparse @ (SpMV, SpMM: one IR kernel each; SpGEMM)", Sparse, probe: super::probe, notes: "CSR row per invocation (loop bound: the longest row); SpGEMM expand-sort-compress with array ops");

impl CsrMatrix {
    /// `A @ B` for a sparse `B` (SpGEMM): canonical CSR without stored zeros, in the promoted
    /// dtype.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] naming both shapes when `A`'s columns are not `B`'s rows;
    /// device errors.
    pub fn matmul(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        let op = "sparse @ sparse";
        let ((m, k), (k2, n)) = (self.shape(), other.shape());
        if k != k2 {
            return Err(Error::ShapeMismatch {
                op: format!("{op} (dimension mismatch)"),
                lhs: vec![m, k],
                rhs: vec![k2, n],
            });
        }
        let t = cupy_core::promote::promote_types(self.dtype(), other.dtype());
        let b = other.tocsr()?;
        let it = wider_index(self.c.index_dtype(), b.c.index_dtype());
        let dev = self.device().clone();
        if self.nnz() == 0 || b.nnz() == 0 {
            return CsrMatrix::empty(&dev, (m, n), t);
        }
        let i64t = DType::Int64;
        let bptr = cast(&b.c.indptr, i64t)?;
        let blen = (&sub(&bptr, 1, k) - &sub(&bptr, 0, k))?;
        let aj = cast(&self.c.indices, i64t)?;
        let counts = take(&blen, &aj)?;
        let ends = cumsum(&counts)?;
        let total = read_i64s(&[&sub(&ends, self.nnz() - 1, 1)])?[0] as usize;
        if total == 0 {
            return CsrMatrix::empty(&dev, (m, n), t);
        }
        let p = super::base::arange(&dev, total, i64t)?;
        let src = searchsorted_with(
            &ends,
            &p,
            SearchSorted {
                side: Side::Right,
                sorter: None,
            },
        )?;
        let start = (&take(&ends, &src)? - &take(&counts, &src)?)?;
        let bpos = (&(&take(&bptr, &take(&aj, &src)?)? + &p)? - &start)?;
        let rows = take(&cast(&self.c.major_indices()?, i64t)?, &src)?;
        let cols = take(&b.c.indices, &bpos)?;
        let vals = (&take(&cast(&self.c.data, t)?, &src)? * &take(&cast(&b.c.data, t)?, &bpos)?)?;
        let c = Compressed::from_triplets(&rows, &cols, &vals, m, n, it, true)?;
        Ok(CsrMatrix {
            c: c.without_zeros()?,
        })
    }
}
