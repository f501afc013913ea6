//! `lil_matrix` / `lil_array`: row-based lists of lists, kept on the host (as SciPy keeps Python
//! lists; CuPy has no LIL): for building a matrix entry by entry before converting it to a
//! device format. Row `i` holds its column indices (`rows()[i]`, sorted) and values
//! (`data()[i]`); setting an entry to zero removes it, as SciPy does. Conversions read the
//! device arrays once or upload the host lists once; the matrix remembers its device.
//!
//! The host helpers shared with `dok.rs` ([`read_csr`], [`upload_csr`], [`host_value`]) are
//! here.

use super::base::{fit_index, value_dtype, Format, SparseMatrix};
use super::index::wrap;
use super::{CooMatrix, CsrMatrix, SparseInput};
use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;

/// A row-based list-of-lists sparse matrix on the host (SciPy's `lil_matrix`, `lil_array`).
#[derive(Clone, Debug)]
pub struct LilMatrix {
    rows: Vec<Vec<usize>>,
    data: Vec<Vec<Scalar>>,
    shape: (usize, usize),
    dtype: DType,
    device: Device,
}

/// SciPy's `lil_matrix(arg1, shape=None)`: from a dense array, `(data, (row, col))`,
/// `(data, indices, indptr)` (CSR) or a shape (an empty float64 matrix on the current device).
/// Device input is read to the host once (duplicates summed, explicit zeros kept, as SciPy's
/// `tolil`).
///
/// # Errors
/// As [`super::csr_matrix`].
pub fn lil_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<LilMatrix> {
    LilMatrix::from_input("lil_matrix", arg.into(), shape)
}

/// SciPy's `lil_array` (the same type here).
///
/// # Errors
/// As [`lil_matrix`].
pub fn lil_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<LilMatrix> {
    LilMatrix::from_input("lil_array", arg.into(), shape)
}
routine!(lil_matrix as "scipy.sparse.lil_matrix / lil_array", Sparse, probe: super::probe, notes: "host lists of lists (CuPy has no LIL); item get/set on the host, one read or upload per conversion");

/// `v` as a stored value of dtype `t` (a complex value into a real matrix is refused, as NumPy
/// refuses the assignment).
pub(crate) fn host_value(op: &str, v: Scalar, t: DType) -> Result<Scalar> {
    if v.dtype().is_complex() && !t.is_complex() && v.to_c128().im != 0.0 {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![v.dtype(), t],
            msg: format!("cannot store a complex value in a {t} matrix"),
        });
    }
    Ok(v.cast(t))
}

/// The canonical CSR `c` on the host: `indptr`, `indices` and values (one read of each).
pub(crate) fn read_csr(c: &CsrMatrix) -> Result<(Vec<i64>, Vec<i64>, Vec<Scalar>)> {
    let c = c.canonical()?;
    let ptr = c.indptr().astype(DType::Int64)?.to_vec::<i64>()?;
    let ind = c.indices().astype(DType::Int64)?.to_vec::<i64>()?;
    Ok((ptr, ind, c.data().to_scalars()?))
}

/// A canonical CSR matrix on `dev` from host rows (each sorted by column, no repeats).
pub(crate) fn upload_csr(
    dev: &Device,
    shape: (usize, usize),
    t: DType,
    rows: impl Iterator<Item = Vec<(usize, Scalar)>>,
) -> Result<CsrMatrix> {
    let mut ptr: Vec<i64> = vec![0];
    let mut ind: Vec<i64> = vec![];
    let mut bytes: Vec<u8> = vec![];
    let sz = t.itemsize();
    for row in rows {
        for (j, v) in row {
            ind.push(j as i64);
            let at = bytes.len();
            bytes.resize(at + sz, 0);
            v.cast(t).write_le_bytes(&mut bytes[at..]);
        }
        ptr.push(ind.len() as i64);
    }
    let nnz = ind.len();
    let it = fit_index(DType::Int32, shape.0.max(shape.1).max(nnz));
    let data = Array::from_bytes_on(dev, &bytes, &[nnz], t)?;
    let indices = Array::from_slice_on(dev, &ind, &[nnz])?.astype(it)?;
    let indptr = Array::from_slice_on(dev, &ptr, &[ptr.len()])?.astype(it)?;
    let c = super::compressed::Compressed::new_unchecked(
        data,
        indices,
        indptr,
        shape.0,
        shape.1,
        Some(true),
    );
    Ok(CsrMatrix { c })
}

impl LilMatrix {
    fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
    ) -> Result<LilMatrix> {
        match arg {
            SparseInput::Shape(m, n) => Ok(LilMatrix::empty(
                &Device::current()?,
                (m, n),
                DType::Float64,
            )),
            other => LilMatrix::from_csr(&CsrMatrix::from_input(op, other, shape)?),
        }
    }

    /// An all-zero `shape` matrix of `dtype` whose conversions go to `device`.
    pub fn empty(device: &Device, shape: (usize, usize), dtype: DType) -> LilMatrix {
        LilMatrix {
            rows: vec![vec![]; shape.0],
            data: vec![vec![]; shape.0],
            shape,
            dtype,
            device: device.clone(),
        }
    }

    /// The lists of `csr` (read once).
    pub(crate) fn from_csr(csr: &CsrMatrix) -> Result<LilMatrix> {
        let (ptr, ind, vals) = read_csr(csr)?;
        let mut m = LilMatrix::empty(csr.device(), csr.shape(), csr.dtype());
        for i in 0..csr.shape().0 {
            let (s, e) = (ptr[i] as usize, ptr[i + 1] as usize);
            m.rows[i] = ind[s..e].iter().map(|&j| j as usize).collect();
            m.data[i] = vals[s..e].to_vec();
        }
        Ok(m)
    }

    /// `A.rows`: the column indices of each row (sorted).
    pub fn rows(&self) -> &[Vec<usize>] {
        &self.rows
    }
    /// `A.data`: the values of each row, in the order of [`LilMatrix::rows`].
    pub fn data(&self) -> &[Vec<Scalar>] {
        &self.data
    }

    /// The row lists, for filling a new matrix (columns sorted, values nonzero).
    pub(crate) fn lists_mut(&mut self) -> (&mut [Vec<usize>], &mut [Vec<Scalar>]) {
        (&mut self.rows, &mut self.data)
    }

    /// `A[i, j]` (negative indices count from the end; 0 where nothing is stored).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the row or column and its length.
    pub fn get(&self, i: isize, j: isize) -> Result<Scalar> {
        let op = "lil_matrix[i, j]";
        let r = wrap(op, i, self.shape.0, "row")?;
        let c = wrap(op, j, self.shape.1, "column")?;
        Ok(match self.rows[r].binary_search(&c) {
            Ok(k) => self.data[r][k],
            Err(_) => Scalar::zero(self.dtype),
        })
    }

    /// `A[i, j] = v` (cast to the matrix's dtype; a zero removes the entry, as SciPy does).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] naming the row or column; [`Error::TypeError`] for a complex
    /// value in a real matrix.
    pub fn set(&mut self, i: isize, j: isize, v: impl Into<Scalar>) -> Result<()> {
        let op = "lil_matrix[i, j] = v";
        let r = wrap(op, i, self.shape.0, "row")?;
        let c = wrap(op, j, self.shape.1, "column")?;
        let v = host_value(op, v.into(), self.dtype)?;
        match (self.rows[r].binary_search(&c), v.is_nonzero()) {
            (Ok(k), true) => self.data[r][k] = v,
            (Ok(k), false) => {
                self.rows[r].remove(k);
                self.data[r].remove(k);
            }
            (Err(k), true) => {
                self.rows[r].insert(k, c);
                self.data[r].insert(k, v);
            }
            (Err(_), false) => {}
        }
        Ok(())
    }
}

impl SparseMatrix for LilMatrix {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }
    fn format(&self) -> Format {
        Format::Lil
    }
    fn device(&self) -> &Device {
        &self.device
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        self.tocsr()?.tocoo()
    }
    /// One upload (canonical CSR).
    fn tocsr(&self) -> Result<CsrMatrix> {
        let t = value_dtype("lil_matrix.tocsr", self.dtype)?;
        let rows = self
            .rows
            .iter()
            .zip(&self.data)
            .map(|(r, d)| r.iter().copied().zip(d.iter().copied()).collect());
        upload_csr(&self.device, self.shape, t, rows)
    }
    fn tolil(&self) -> Result<LilMatrix> {
        Ok(self.clone())
    }
}
