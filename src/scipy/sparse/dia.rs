//! `dia_matrix` / `dia_array`: diagonals. `data[k, j]` is the value at `(j - offsets[k], j)`
//! (indexed by column, as SciPy stores them).

use super::base::{cast, index_dtype, read_i64s, same_device, value_dtype, Format, SparseMatrix};
use super::{CooMatrix, CsrMatrix};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::take;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// A sparse matrix of diagonals (SciPy's `dia_matrix`, `dia_array`).
#[derive(Clone, Debug)]
pub struct DiaMatrix {
    data: Array,
    offsets: Array,
    shape: (usize, usize),
}

/// SciPy's `dia_matrix((data, offsets), shape=(M, N))`: `data` is `[n_diagonals, L]` (a 1-d
/// `data` is one diagonal), `offsets` one integer per diagonal (0 the main one, `k > 0` above
/// it), all distinct.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the shapes for a `data`/`offsets` length mismatch,
/// repeated offsets or more than 2 dimensions; [`Error::TypeError`] for unsupported dtypes.
pub fn dia_matrix(data: &Array, offsets: &Array, shape: (usize, usize)) -> Result<DiaMatrix> {
    DiaMatrix::new(data, offsets, shape)
}

/// SciPy's `dia_array` (the same type here).
///
/// # Errors
/// As [`dia_matrix`].
pub fn dia_array(data: &Array, offsets: &Array, shape: (usize, usize)) -> Result<DiaMatrix> {
    DiaMatrix::new(data, offsets, shape)
}
routine!(dia_matrix as "cupyx.scipy.sparse.dia_matrix / dia_array", Sparse, probe: super::probe, notes: "converted to COO/CSR for products and arithmetic");

impl DiaMatrix {
    /// The validated constructor (one read of the offsets).
    ///
    /// # Errors
    /// As [`dia_matrix`].
    pub fn new(data: &Array, offsets: &Array, shape: (usize, usize)) -> Result<DiaMatrix> {
        let op = "dia_matrix";
        same_device(op, data.device(), &[offsets])?;
        let data = match data.ndim() {
            2 => data.clone(),
            1 => data.reshape(&[1, -1])?,
            _ => {
                return Err(Error::invalid(
                    op,
                    format!(
                        "data array must have 1 or 2 dimensions, got shape {:?}",
                        data.shape()
                    ),
                ))
            }
        };
        let offsets = match offsets.ndim() {
            0 => offsets.reshape(&[1])?,
            1 => offsets.clone(),
            _ => {
                return Err(Error::invalid(
                    op,
                    format!(
                        "offsets array must have 0 or 1 dimension, got shape {:?}",
                        offsets.shape()
                    ),
                ))
            }
        };
        let it = index_dtype(op, "offsets", offsets.dtype())?;
        if offsets.size() != data.shape()[0] {
            return Err(Error::invalid(
                op,
                format!(
                    "number of diagonals ({}) does not match the number of offsets ({}): data {:?}, offsets {:?}",
                    data.shape()[0],
                    offsets.size(),
                    data.shape(),
                    offsets.shape()
                ),
            ));
        }
        let mut v = read_i64s(&[&offsets])?;
        v.sort_unstable();
        if v.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::invalid(op, "offset array contains duplicate values"));
        }
        let t = value_dtype(op, data.dtype())?;
        DiaMatrix::new_unchecked(cast(&data, t)?, cast(&offsets, it)?, shape)
    }

    pub(crate) fn new_unchecked(
        data: Array,
        offsets: Array,
        shape: (usize, usize),
    ) -> Result<DiaMatrix> {
        Ok(DiaMatrix {
            data,
            offsets,
            shape,
        })
    }

    /// The diagonals (`A.data`, `[n_diagonals, L]`).
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The offsets (`A.offsets`).
    pub fn offsets(&self) -> &Array {
        &self.offsets
    }

    /// `A.T` (through COO).
    ///
    /// # Errors
    /// Device errors.
    pub fn transpose(&self) -> Result<DiaMatrix> {
        self.tocoo()?.transpose().todia()
    }

    /// `A @ x` (through CSR; see [`CsrMatrix::dot`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array) -> Result<Array> {
        super::check_matvec("dia_matrix @", self.shape, x)?;
        self.tocsr()?.dot(x)
    }
}

impl SparseMatrix for DiaMatrix {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// SciPy's count for DIA: the stored positions that fall inside the matrix.
    fn nnz(&self) -> usize {
        let Ok(offs) = read_i64s(&[&self.offsets]) else {
            return 0;
        };
        let (m, n) = (self.shape.0 as i64, self.shape.1 as i64);
        let l = self.data.shape()[1] as i64;
        offs.iter()
            .map(|&k| {
                // columns j in [max(k, 0), min(m + k, n, L))
                let lo = k.max(0);
                let hi = (m + k).min(n).min(l);
                (hi - lo).max(0) as usize
            })
            .sum()
    }
    fn format(&self) -> Format {
        Format::Dia
    }
    fn device(&self) -> &Device {
        self.data.device()
    }
    /// The stored values inside the matrix that are nonzero (SciPy's `dia.tocoo` drops the
    /// zeros of the padding), ordered by diagonal, then column.
    fn tocoo(&self) -> Result<CooMatrix> {
        let dev = self.device().clone();
        let (m, n) = self.shape;
        let (nd, l) = (self.data.shape()[0], self.data.shape()[1]);
        let it = super::base::fit_index(DType::Int32, m.max(n).max(nd * l));
        if nd * l == 0 {
            return Ok(CooMatrix::new_unchecked(
                Array::empty_on(&dev, &[0], self.dtype())?,
                Array::empty_on(&dev, &[0], it)?,
                Array::empty_on(&dev, &[0], it)?,
                self.shape,
                Some(true),
            ));
        }
        let cols = super::base::arange(&dev, l, DType::Int64)?.reshape(&[1, -1])?;
        let offs = cast(&self.offsets, DType::Int64)?.reshape(&[-1, 1])?;
        let rows = (&cols - &offs)?;
        let inside = rows
            .greater_equal(0i64)?
            .logical_and(&rows.less(m as i64)?)?
            .logical_and(&cols.less(n as i64)?)?
            .logical_and(&self.data.not_equal(0i64)?)?;
        let keep = crate::indexing::flatnonzero(&inside)?;
        let data = take(&self.data, &keep)?;
        let r = cast(&take(&rows, &keep)?, it)?;
        let c = cast(&keep.remainder(l as i64)?, it)?;
        Ok(CooMatrix::new_unchecked(data, r, c, self.shape, None))
    }
    fn todia(&self) -> Result<DiaMatrix> {
        Ok(self.clone())
    }
    fn tocsr(&self) -> Result<CsrMatrix> {
        self.tocoo()?.tocsr()
    }
}
