//! `coo_matrix` / `coo_array`: coordinates (triplets).

use super::base::{
    cast, check_1d, fit_index, index_dtype, read_i64s, same_device, value_dtype, wider_index,
    Format, SparseMatrix,
};
use super::compressed::Compressed;
use super::{CscMatrix, CsrMatrix, DiaMatrix, SparseInput};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::{put, take};
use crate::sorting::{searchsorted, unique};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use std::sync::OnceLock;

/// A sparse matrix of `(row[k], col[k], data[k])` triplets (SciPy's `coo_matrix`,
/// `coo_array`); duplicates are allowed and sum in every conversion and product.
#[derive(Clone, Debug)]
pub struct CooMatrix {
    data: Array,
    row: Array,
    col: Array,
    shape: (usize, usize),
    canonical: OnceLock<bool>,
}

/// SciPy's `coo_matrix(arg1, shape=None)`: from a dense 2-d array, `(data, (row, col))` (the
/// shape inferred from the largest indices when `None`), or a shape.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the op and shapes for a negative index, an index past
/// the shape, arrays of different lengths, or a shape that cannot be inferred (no entries);
/// [`Error::TypeError`] for unsupported dtypes.
pub fn coo_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CooMatrix> {
    CooMatrix::from_input("coo_matrix", arg.into(), shape)
}

/// SciPy's `coo_array` (the same type here).
///
/// # Errors
/// As [`coo_matrix`].
pub fn coo_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
) -> Result<CooMatrix> {
    CooMatrix::from_input("coo_array", arg.into(), shape)
}
routine!(coo_matrix as "cupyx.scipy.sparse.coo_matrix / coo_array", Sparse, probe: super::probe, notes: "conversions sort with lexsort and sum duplicates with a segment kernel");

impl CooMatrix {
    fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
    ) -> Result<CooMatrix> {
        match arg {
            SparseInput::Coo { data, row, col } => CooMatrix::new(op, data, row, col, shape),
            other => CsrMatrix::from_input(op, other, shape)?.tocoo(),
        }
    }

    pub(crate) fn new_unchecked(
        data: Array,
        row: Array,
        col: Array,
        shape: (usize, usize),
        canonical: Option<bool>,
    ) -> CooMatrix {
        let c = OnceLock::new();
        if let Some(v) = canonical {
            let _ = c.set(v);
        }
        CooMatrix {
            data,
            row,
            col,
            shape,
            canonical: c,
        }
    }

    /// The `(data, (row, col))` constructor, validated (one read).
    ///
    /// # Errors
    /// As [`coo_matrix`].
    pub fn new(
        op: &str,
        data: &Array,
        row: &Array,
        col: &Array,
        shape: Option<(usize, usize)>,
    ) -> Result<CooMatrix> {
        check_1d(op, "data", data)?;
        check_1d(op, "row", row)?;
        check_1d(op, "col", col)?;
        same_device(op, data.device(), &[row, col])?;
        if row.size() != data.size() || col.size() != data.size() {
            return Err(Error::invalid(
                op,
                format!(
                    "row, column, and data array must all be the same length, got {}, {} and {}",
                    row.size(),
                    col.size(),
                    data.size()
                ),
            ));
        }
        let t = value_dtype(op, data.dtype())?;
        let it = wider_index(
            index_dtype(op, "row", row.dtype())?,
            index_dtype(op, "col", col.dtype())?,
        );
        let n = data.size();
        let bounds = if n > 0 {
            read_i64s(&[&row.min()?, &row.max()?, &col.min()?, &col.max()?])?
        } else {
            vec![0, -1, 0, -1]
        };
        let shape = match shape {
            Some(s) => s,
            None if n == 0 => {
                return Err(Error::invalid(
                    op,
                    "cannot infer dimensions from zero sized index arrays",
                ))
            }
            None => (
                (bounds[1] + 1).max(0) as usize,
                (bounds[3] + 1).max(0) as usize,
            ),
        };
        if n > 0 {
            if bounds[0] < 0 {
                return Err(Error::invalid(
                    op,
                    format!("negative row index found: {}", bounds[0]),
                ));
            }
            if bounds[2] < 0 {
                return Err(Error::invalid(
                    op,
                    format!("negative column index found: {}", bounds[2]),
                ));
            }
            if bounds[1] >= shape.0 as i64 {
                return Err(Error::invalid(
                    op,
                    format!(
                        "row index {} exceeds matrix dimensions {:?}",
                        bounds[1], shape
                    ),
                ));
            }
            if bounds[3] >= shape.1 as i64 {
                return Err(Error::invalid(
                    op,
                    format!(
                        "column index {} exceeds matrix dimensions {:?}",
                        bounds[3], shape
                    ),
                ));
            }
        }
        let it = fit_index(it, shape.0.max(shape.1));
        Ok(CooMatrix::new_unchecked(
            cast(data, t)?,
            cast(row, it)?,
            cast(col, it)?,
            shape,
            None,
        ))
    }

    /// The values (`A.data`).
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The row indices (`A.row`).
    pub fn row(&self) -> &Array {
        &self.row
    }
    /// The column indices (`A.col`).
    pub fn col(&self) -> &Array {
        &self.col
    }

    /// The index dtype.
    pub(crate) fn index_dtype(&self) -> DType {
        self.row.dtype()
    }

    fn compressed(&self, sum: bool) -> Result<Compressed> {
        Compressed::from_triplets(
            &self.row,
            &self.col,
            &self.data,
            self.shape.0,
            self.shape.1,
            self.index_dtype(),
            sum,
        )
    }

    /// `A.has_canonical_format`: sorted by row, then column, without duplicates (one read,
    /// cached).
    ///
    /// # Errors
    /// Device errors.
    pub fn has_canonical_format(&self) -> Result<bool> {
        if let Some(&v) = self.canonical.get() {
            return Ok(v);
        }
        let n = self.nnz();
        let v = if n < 2 {
            true
        } else {
            let s = |a: &Array, k: usize| super::base::sub(a, k, n - 1);
            let row_up = s(&self.row, 1).greater(&s(&self.row, 0))?;
            let same_row = s(&self.row, 1).equal(&s(&self.row, 0))?;
            let col_up = s(&self.col, 1).greater(&s(&self.col, 0))?;
            let ok = row_up.logical_or(&same_row.logical_and(&col_up)?)?.all()?;
            read_i64s(&[&ok])?[0] != 0
        };
        let _ = self.canonical.set(v);
        Ok(v)
    }

    /// `A.sum_duplicates()`: sorts by row, then column, and sums duplicates, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        if self.has_canonical_format()? {
            return Ok(());
        }
        let c = self.compressed(true)?;
        *self = CooMatrix::new_unchecked(
            c.data.clone(),
            c.major_indices()?,
            c.indices.clone(),
            self.shape,
            Some(true),
        );
        Ok(())
    }

    /// `A.eliminate_zeros()`: removes stored zeros, in place.
    ///
    /// # Errors
    /// Device errors.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        if self.nnz() == 0 {
            return Ok(());
        }
        let keep = crate::indexing::flatnonzero(&self.data)?;
        if keep.size() < self.nnz() {
            let canonical = self.canonical.get().copied().filter(|&c| c);
            *self = CooMatrix::new_unchecked(
                take(&self.data, &keep)?,
                take(&self.row, &keep)?,
                take(&self.col, &keep)?,
                self.shape,
                canonical,
            );
        }
        Ok(())
    }

    /// `A.T`: rows and columns swapped (no copy).
    pub fn transpose(&self) -> CooMatrix {
        CooMatrix::new_unchecked(
            self.data.clone(),
            self.col.clone(),
            self.row.clone(),
            (self.shape.1, self.shape.0),
            None,
        )
    }

    /// `A.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CooMatrix {
        self.transpose()
    }

    /// `A.conj()`.
    ///
    /// # Errors
    /// Device errors.
    pub fn conj(&self) -> Result<CooMatrix> {
        let data = if self.data.dtype().is_complex() {
            crate::math::complex::conj(&self.data)?
        } else {
            self.data.clone()
        };
        Ok(CooMatrix::new_unchecked(
            data,
            self.row.clone(),
            self.col.clone(),
            self.shape,
            self.canonical.get().copied(),
        ))
    }

    /// `A @ x` (through CSR; see [`CsrMatrix::dot`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array) -> Result<Array> {
        super::check_matvec("coo_matrix @", self.shape, x)?;
        self.tocsr()?.dot(x)
    }
}

impl SparseMatrix for CooMatrix {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.data.dtype()
    }
    fn nnz(&self) -> usize {
        self.data.size()
    }
    fn format(&self) -> Format {
        Format::Coo
    }
    fn device(&self) -> &Device {
        self.data.device()
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        Ok(self.clone())
    }
    fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.compressed(true)?,
        })
    }
    fn tocsc(&self) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: Compressed::from_triplets(
                &self.col,
                &self.row,
                &self.data,
                self.shape.1,
                self.shape.0,
                self.index_dtype(),
                true,
            )?,
        })
    }
    fn todia(&self) -> Result<DiaMatrix> {
        let dev = self.device().clone();
        let (m, n) = self.shape;
        let mut a = self.clone();
        a.sum_duplicates()?;
        if a.nnz() == 0 {
            return DiaMatrix::new_unchecked(
                Array::zeros_on(&dev, &[0, n], self.dtype())?,
                Array::empty_on(&dev, &[0], DType::Int32)?,
                (m, n),
            );
        }
        let ks = (&cast(&a.col, DType::Int64)? - &cast(&a.row, DType::Int64)?)?;
        let offsets = unique(&ks)?;
        let nd = offsets.size();
        let which = searchsorted(&offsets, &ks)?;
        let flat = (&(&which * (n as i64))? + &cast(&a.col, DType::Int64)?)?;
        let data = Array::zeros_on(&dev, &[nd * n], self.dtype())?;
        put(&data, &flat, &a.data)?;
        DiaMatrix::new_unchecked(
            data.reshape(&[nd as isize, n as isize])?,
            cast(&offsets, fit_index(DType::Int32, m.max(n)))?,
            (m, n),
        )
    }
    fn toarray(&self) -> Result<Array> {
        self.compressed(false)?.to_dense()
    }
}
