//! `dok_matrix` / `dok_array`: a dictionary of keys, kept on the host (as SciPy keeps a Python
//! dict; CuPy has no DOK): `(row, column) -> value`, for building a matrix entry by entry.
//! Setting an entry to zero removes it, as SciPy does. Keys are kept in row-major order (SciPy's
//! dict keeps insertion order: docs/differences.md), so `tocoo`/`tocsr` are canonical.

use super::base::{value_dtype, Format, SparseMatrix};
use super::index::wrap;
use super::lil::{host_value, read_csr, upload_csr};
use super::{CooMatrix, CsrMatrix, SparseInput};
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::scalar::Scalar;
use std::collections::BTreeMap;

/// A dictionary-of-keys sparse matrix on the host (SciPy's `dok_matrix`, `dok_array`).
#[derive(Clone, Debug)]
pub struct DokMatrix {
    map: BTreeMap<(usize, usize), Scalar>,
    shape: (usize, usize),
    dtype: DType,
    device: Device,
}

/// SciPy's `dok_matrix(arg1, shape=None)`: from a dense array, `(data, (row, col))`,
/// `(data, indices, indptr)` (CSR) or a shape (an empty float64 matrix on the current device).
/// Device input is read to the host once (duplicates summed, explicit zeros kept).
///
/// # Errors
/// As [`super::csr_matrix`].
pub fn dok_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<DokMatrix> {
    DokMatrix::from_input("dok_matrix", arg.into(), shape)
}

/// SciPy's `dok_array` (the same type here).
///
/// # Errors
/// As [`dok_matrix`].
pub fn dok_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<DokMatrix> {
    DokMatrix::from_input("dok_array", arg.into(), shape)
}
routine!(dok_matrix as "scipy.sparse.dok_matrix / dok_array", Sparse, probe: super::probe, notes: "host map in row-major key order (CuPy has no DOK); item get/set on the host, one read or upload per conversion");

impl DokMatrix {
    fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
    ) -> Result<DokMatrix> {
        match arg {
            SparseInput::Shape(m, n) => Ok(DokMatrix::empty(
                &Device::current()?,
                (m, n),
                DType::Float64,
            )),
            other => DokMatrix::from_csr(&CsrMatrix::from_input(op, other, shape)?),
        }
    }

    /// An all-zero `shape` matrix of `dtype` whose conversions go to `device`.
    pub fn empty(device: &Device, shape: (usize, usize), dtype: DType) -> DokMatrix {
        DokMatrix {
            map: BTreeMap::new(),
            shape,
            dtype,
            device: device.clone(),
        }
    }

    /// The entries of `csr` (read once).
    pub(crate) fn from_csr(csr: &CsrMatrix) -> Result<DokMatrix> {
        let (ptr, ind, vals) = read_csr(csr)?;
        let mut m = DokMatrix::empty(csr.device(), csr.shape(), csr.dtype());
        for i in 0..csr.shape().0 {
            for k in ptr[i] as usize..ptr[i + 1] as usize {
                m.map.insert((i, ind[k] as usize), vals[k]);
            }
        }
        Ok(m)
    }

    /// `A[i, j]` (negative indices count from the end; 0 where nothing is stored).
    ///
    /// # Errors
    /// [`cupy_core::error::Error::IndexOutOfBounds`] naming the row or column and its length.
    pub fn get(&self, i: isize, j: isize) -> Result<Scalar> {
        let op = "dok_matrix[i, j]";
        let key = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        Ok(self
            .map
            .get(&key)
            .copied()
            .unwrap_or_else(|| Scalar::zero(self.dtype)))
    }

    /// `A[i, j] = v` (cast to the matrix's dtype; a zero removes the entry, as SciPy does).
    ///
    /// # Errors
    /// [`cupy_core::error::Error::IndexOutOfBounds`] naming the row or column;
    /// [`cupy_core::error::Error::TypeError`] for a complex value in a real matrix.
    pub fn set(&mut self, i: isize, j: isize, v: impl Into<Scalar>) -> Result<()> {
        let op = "dok_matrix[i, j] = v";
        let key = (
            wrap(op, i, self.shape.0, "row")?,
            wrap(op, j, self.shape.1, "column")?,
        );
        let v = host_value(op, v.into(), self.dtype)?;
        if v.is_nonzero() {
            self.map.insert(key, v);
        } else {
            self.map.remove(&key);
        }
        Ok(())
    }

    /// Stores a nonzero `v` at `(i, j)` (in range), for filling a new matrix.
    pub(crate) fn insert_stored(&mut self, i: usize, j: usize, v: Scalar) {
        self.map.insert((i, j), v);
    }

    /// The stored `((row, column), value)` pairs, in row-major order.
    pub fn items(&self) -> impl Iterator<Item = ((usize, usize), Scalar)> + '_ {
        self.map.iter().map(|(&k, &v)| (k, v))
    }
}

impl SparseMatrix for DokMatrix {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn nnz(&self) -> usize {
        self.map.len()
    }
    fn format(&self) -> Format {
        Format::Dok
    }
    fn device(&self) -> &Device {
        &self.device
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        self.tocsr()?.tocoo()
    }
    /// One upload (canonical CSR).
    fn tocsr(&self) -> Result<CsrMatrix> {
        let t = value_dtype("dok_matrix.tocsr", self.dtype)?;
        let mut rows: Vec<Vec<(usize, Scalar)>> = vec![vec![]; self.shape.0];
        for (&(i, j), &v) in &self.map {
            rows[i].push((j, v));
        }
        upload_csr(&self.device, self.shape, t, rows.into_iter())
    }
    fn todok(&self) -> Result<DokMatrix> {
        Ok(self.clone())
    }
}
