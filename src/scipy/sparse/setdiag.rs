//! `setdiag(values, k)` of CSR, CSC and COO matrices: the entries of diagonal `k` that
//! `values` covers are replaced (stored explicitly, zeros included, as SciPy stores them), the
//! rest of the matrix is kept. Built on the device: the canonical triplets off the replaced
//! positions, joined with the new ones, compressed again.

use super::base::{arange, cast, SparseMatrix};
use super::compressed::Compressed;
use super::{CooMatrix, CscMatrix, CsrMatrix};
use crate::array::Array;
use crate::indexing::{flatnonzero, take};
use crate::manipulation::join::concatenate;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

routine!("cupyx.scipy.sparse setdiag", Sparse, probe: super::probe, notes: "csr/csc/coo; a 0-d values array broadcasts along the diagonal");

/// Diagonal `k` of a compressed `c` (by rows: CSR, or the CSR of a CSC's transpose) set from
/// `values` (0-d: broadcast; 1-d: its first entries, cut to the diagonal's length).
fn set_compressed(op: &str, c: &Compressed, values: &Array, k: isize) -> Result<Compressed> {
    let (m, n) = (c.major, c.minor);
    if (k > 0 && k as usize >= n) || (k < 0 && k.unsigned_abs() >= m) {
        return Err(Error::invalid(
            op,
            format!("k = {k} exceeds matrix dimensions ({m}, {n})"),
        ));
    }
    if m == 0 || n == 0 {
        return Ok(c.clone());
    }
    let diag_len = if k < 0 {
        (m - k.unsigned_abs()).min(n)
    } else {
        m.min(n - k as usize)
    };
    let len = match values.ndim() {
        0 => diag_len,
        1 => diag_len.min(values.size()),
        _ => {
            return Err(Error::invalid(
                op,
                format!("values must be 0-d or 1-d, got shape {:?}", values.shape()),
            ))
        }
    };
    if len == 0 {
        return Ok(c.clone());
    }
    let t = c.data.dtype();
    let dev = c.device().clone();
    let x = if values.ndim() == 0 {
        crate::manipulation::dims::broadcast_to(&cast(values, t)?, &[len])?.copy()?
    } else {
        cast(&super::base::sub(values, 0, len), t)?
    };
    let r0 = (-k).max(0) as i64;
    let a = c.canonicalized()?;
    let it = super::base::fit_index(a.index_dtype(), m.max(n).max(a.nnz() + len));
    let new_r = (&arange(&dev, len, DType::Int64)? + r0)?;
    let new_c = (&new_r + k as i64)?;
    let (rows, cols, data) = if a.nnz() == 0 {
        (new_r, new_c, x)
    } else {
        let r = cast(&a.major_indices()?, DType::Int64)?;
        let col = cast(&a.indices, DType::Int64)?;
        let on = (&col - &r)?
            .equal(k as i64)?
            .logical_and(&r.greater_equal(r0)?)?
            .logical_and(&r.less(r0 + len as i64)?)?;
        let keep = flatnonzero(&on.logical_not()?)?;
        (
            concatenate(&[&take(&r, &keep)?, &new_r], 0)?,
            concatenate(&[&take(&col, &keep)?, &new_c], 0)?,
            concatenate(&[&take(&a.data, &keep)?, &x], 0)?,
        )
    };
    Compressed::from_triplets(&rows, &cols, &data, m, n, it, true)
}

impl CsrMatrix {
    /// `A.setdiag(values, k)`, in place: `values` a 0-d array (broadcast along diagonal `k`)
    /// or 1-d (its first entries set; a longer one is cut to the diagonal). The values are
    /// cast to the matrix dtype; zeros are stored explicitly (SciPy's rule); the result is
    /// canonical.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `k` is outside the matrix (SciPy's "k exceeds matrix
    /// dimensions", naming the shape) or `values` has more than 1 dimension.
    pub fn setdiag(&mut self, values: &Array, k: isize) -> Result<()> {
        self.c = set_compressed("setdiag", &self.c, values, k)?;
        Ok(())
    }
}

impl CscMatrix {
    /// `A.setdiag(values, k)`, in place (see [`CsrMatrix::setdiag`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::setdiag`].
    pub fn setdiag(&mut self, values: &Array, k: isize) -> Result<()> {
        // Stored as the CSR of the transpose: diagonal k of A is diagonal -k of A^T.
        self.c = set_compressed("setdiag", &self.c, values, -k).map_err(|e| match e {
            Error::InvalidArgument { .. } => {
                let (m, n) = self.shape();
                Error::invalid(
                    "setdiag",
                    format!(
                        "k = {k} exceeds matrix dimensions ({m}, {n}) or values are not 0-d/1-d"
                    ),
                )
            }
            e => e,
        })?;
        Ok(())
    }
}

impl CooMatrix {
    /// `A.setdiag(values, k)`, in place (through CSR; see [`CsrMatrix::setdiag`]); the result
    /// is canonical.
    ///
    /// # Errors
    /// As [`CsrMatrix::setdiag`].
    pub fn setdiag(&mut self, values: &Array, k: isize) -> Result<()> {
        let mut c = self.tocsr()?;
        c.setdiag(values, k)?;
        *self = c.tocoo()?;
        Ok(())
    }
}
