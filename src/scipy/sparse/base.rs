//! What every format shares: the [`SparseMatrix`] trait, the [`Sparse`] enum (a matrix of any
//! format, returned by the constructors that take a `format=`), [`Format`], and the dtype,
//! validation and host-read helpers of the other files.

use super::{BsrMatrix, CooMatrix, CscMatrix, CsrMatrix, DiaMatrix, DokMatrix, LilMatrix};
use crate::array::Array;
use crate::device::Device;
use crate::manipulation::narrow;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// A sparse format (SciPy's `format` attribute and `format=` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Compressed sparse rows.
    Csr,
    /// Compressed sparse columns.
    Csc,
    /// Coordinates (triplets).
    Coo,
    /// Diagonals.
    Dia,
    /// Block sparse rows.
    Bsr,
    /// Lists of lists (rows of column lists, on the host).
    Lil,
    /// Dictionary of keys (on the host).
    Dok,
}

impl Format {
    /// SciPy's name: `"csr"`, `"csc"`, `"coo"`, `"dia"`, `"bsr"`, `"lil"`, `"dok"`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csr => "csr",
            Format::Csc => "csc",
            Format::Coo => "coo",
            Format::Dia => "dia",
            Format::Bsr => "bsr",
            Format::Lil => "lil",
            Format::Dok => "dok",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        Ok(match s {
            "csr" => Format::Csr,
            "csc" => Format::Csc,
            "coo" => Format::Coo,
            "dia" => Format::Dia,
            "bsr" => Format::Bsr,
            "lil" => Format::Lil,
            "dok" => Format::Dok,
            _ => {
                return Err(Error::invalid(
                    "scipy.sparse",
                    format!(
                        "unknown or unsupported sparse format {s:?} (csr, csc, coo, dia, bsr, lil, dok)"
                    ),
                ))
            }
        })
    }
}

/// The methods every format has (SciPy's `_spbase`). Conversions return new matrices whose
/// arrays live on the same device; the provided methods convert through CSR or COO.
pub trait SparseMatrix {
    /// `(rows, columns)`.
    fn shape(&self) -> (usize, usize);
    /// The value dtype (float32, float64, complex64 or complex128).
    fn dtype(&self) -> DType;
    /// The number of stored values, explicit zeros and duplicates included (SciPy's `nnz`).
    fn nnz(&self) -> usize;
    /// The format.
    fn format(&self) -> Format;
    /// The device the arrays live on.
    fn device(&self) -> &Device;
    /// `A.tocoo()`.
    ///
    /// # Errors
    /// Device errors.
    fn tocoo(&self) -> Result<CooMatrix>;
    /// This matrix as a [`CsrMatrix`] when it is one (no conversion, its cached facts
    /// shared); `None` for the other formats.
    fn as_csr(&self) -> Option<&CsrMatrix> {
        None
    }
    /// `A.tocsr()`, as SciPy converts: from COO (and DIA) canonical (sorted, duplicates
    /// summed); from CSC sorted with duplicates kept; a CSR matrix is returned as it is.
    ///
    /// # Errors
    /// Device errors.
    fn tocsr(&self) -> Result<CsrMatrix> {
        self.tocoo()?.tocsr()
    }
    /// `A.tocsc()` (the rules of [`SparseMatrix::tocsr`]).
    ///
    /// # Errors
    /// Device errors.
    fn tocsc(&self) -> Result<CscMatrix> {
        self.tocoo()?.tocsc()
    }
    /// `A.todia()`.
    ///
    /// # Errors
    /// Device errors.
    fn todia(&self) -> Result<DiaMatrix> {
        self.tocoo()?.todia()
    }
    /// `A.tobsr(blocksize)` (`None`: SciPy's `estimate_blocksize`; see
    /// [`super::bsr_matrix`]).
    ///
    /// # Errors
    /// As [`super::bsr_matrix`].
    fn tobsr(&self, blocksize: Option<(usize, usize)>) -> Result<BsrMatrix> {
        BsrMatrix::from_csr("tobsr", &self.tocsr()?, blocksize)
    }
    /// `A.tolil()` (one read to the host).
    ///
    /// # Errors
    /// Device errors.
    fn tolil(&self) -> Result<LilMatrix> {
        LilMatrix::from_csr(&self.tocsr()?)
    }
    /// `A.todok()` (one read to the host).
    ///
    /// # Errors
    /// Device errors.
    fn todok(&self) -> Result<DokMatrix> {
        DokMatrix::from_csr(&self.tocsr()?)
    }
    /// `A.toarray()`: the dense C-order matrix (duplicates summed).
    ///
    /// # Errors
    /// Device errors.
    fn toarray(&self) -> Result<Array> {
        self.tocsr()?.toarray()
    }
    /// `A.asformat(format)`.
    ///
    /// # Errors
    /// Device errors.
    fn asformat(&self, format: Format) -> Result<Sparse> {
        Ok(match format {
            Format::Csr => Sparse::Csr(self.tocsr()?),
            Format::Csc => Sparse::Csc(self.tocsc()?),
            Format::Coo => Sparse::Coo(self.tocoo()?),
            Format::Dia => Sparse::Dia(self.todia()?),
            Format::Bsr => Sparse::Bsr(self.tobsr(None)?),
            Format::Lil => Sparse::Lil(self.tolil()?),
            Format::Dok => Sparse::Dok(self.todok()?),
        })
    }
}

/// A sparse matrix of any format (SciPy returns different classes from one function depending
/// on `format=`; Rust returns this enum).
#[derive(Clone, Debug)]
pub enum Sparse {
    /// A [`CsrMatrix`].
    Csr(CsrMatrix),
    /// A [`CscMatrix`].
    Csc(CscMatrix),
    /// A [`CooMatrix`].
    Coo(CooMatrix),
    /// A [`DiaMatrix`].
    Dia(DiaMatrix),
    /// A [`BsrMatrix`].
    Bsr(BsrMatrix),
    /// A [`LilMatrix`].
    Lil(LilMatrix),
    /// A [`DokMatrix`].
    Dok(DokMatrix),
}

impl Sparse {
    fn inner(&self) -> &dyn SparseMatrix {
        match self {
            Sparse::Csr(a) => a,
            Sparse::Csc(a) => a,
            Sparse::Coo(a) => a,
            Sparse::Dia(a) => a,
            Sparse::Bsr(a) => a,
            Sparse::Lil(a) => a,
            Sparse::Dok(a) => a,
        }
    }
}

impl SparseMatrix for Sparse {
    fn shape(&self) -> (usize, usize) {
        self.inner().shape()
    }
    fn dtype(&self) -> DType {
        self.inner().dtype()
    }
    fn nnz(&self) -> usize {
        self.inner().nnz()
    }
    fn format(&self) -> Format {
        self.inner().format()
    }
    fn device(&self) -> &Device {
        self.inner().device()
    }
    fn tocoo(&self) -> Result<CooMatrix> {
        self.inner().tocoo()
    }
    fn tocsr(&self) -> Result<CsrMatrix> {
        self.inner().tocsr()
    }
    fn as_csr(&self) -> Option<&CsrMatrix> {
        self.inner().as_csr()
    }
    fn tocsc(&self) -> Result<CscMatrix> {
        self.inner().tocsc()
    }
    fn todia(&self) -> Result<DiaMatrix> {
        self.inner().todia()
    }
    fn toarray(&self) -> Result<Array> {
        self.inner().toarray()
    }
    fn tobsr(&self, blocksize: Option<(usize, usize)>) -> Result<BsrMatrix> {
        self.inner().tobsr(blocksize)
    }
    fn tolil(&self) -> Result<LilMatrix> {
        self.inner().tolil()
    }
    fn todok(&self) -> Result<DokMatrix> {
        self.inner().todok()
    }
}

macro_rules! sparse_from {
    ($($v:ident($t:ty)),*) => {$(
        impl From<$t> for Sparse {
            fn from(a: $t) -> Sparse {
                Sparse::$v(a)
            }
        }
    )*};
}
sparse_from!(
    Csr(CsrMatrix),
    Csc(CscMatrix),
    Coo(CooMatrix),
    Dia(DiaMatrix),
    Bsr(BsrMatrix),
    Lil(LilMatrix),
    Dok(DokMatrix)
);

/// The value dtype a sparse matrix stores for data of dtype `t`: the four float and complex
/// dtypes are kept; bool and integer data are converted to float64 (SciPy keeps integer data;
/// see docs/differences.md); float16/bfloat16 are refused as SciPy refuses float16.
pub(crate) fn value_dtype(op: &str, t: DType) -> Result<DType> {
    match t {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(t),
        t if t.is_bool() || t.is_integer() => Ok(DType::Float64),
        _ => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: format!("scipy.sparse does not support dtype {t}"),
        }),
    }
}

/// The index dtype for given index arrays of dtype `t`: int32 and int64 are kept, other
/// integer dtypes become int64; anything else is a TypeError.
pub(crate) fn index_dtype(op: &str, what: &str, t: DType) -> Result<DType> {
    match t {
        DType::Int32 | DType::Int64 => Ok(t),
        t if t.is_integer() => Ok(DType::Int64),
        _ => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: format!("{what} must be an integer array, got {t}"),
        }),
    }
}

/// `prefer` (int32 or int64), widened to int64 when `maxval` does not fit int32.
pub(crate) fn fit_index(prefer: DType, maxval: usize) -> DType {
    if maxval > i32::MAX as usize {
        DType::Int64
    } else {
        prefer
    }
}

/// The wider of two index dtypes.
pub(crate) fn wider_index(a: DType, b: DType) -> DType {
    if a == DType::Int64 || b == DType::Int64 {
        DType::Int64
    } else {
        DType::Int32
    }
}

/// Checks that `a` is 1-d.
pub(crate) fn check_1d(op: &str, what: &str, a: &Array) -> Result<()> {
    if a.ndim() != 1 {
        return Err(Error::invalid(
            op,
            format!("{what} must be 1-d, got shape {:?}", a.shape()),
        ));
    }
    Ok(())
}

/// `a` cast to `t` (no copy when it already is).
pub(crate) fn cast(a: &Array, t: DType) -> Result<Array> {
    if a.dtype() == t {
        Ok(a.clone())
    } else {
        a.astype(t)
    }
}

/// `a[start..start + len]` of a 1-d array (a view).
pub(crate) fn sub(a: &Array, start: usize, len: usize) -> Array {
    narrow(a, 0, start, len, 1)
}

/// Reads a few int64 values back at once (one synchronisation): the arrays are cast to int64,
/// flattened and joined.
pub(crate) fn read_i64s(parts: &[&Array]) -> Result<Vec<i64>> {
    if parts.is_empty() {
        return Ok(vec![]);
    }
    let cast: Vec<Array> = parts
        .iter()
        .map(|a| cast(a, DType::Int64)?.reshape(&[-1]))
        .collect::<Result<_>>()?;
    let refs: Vec<&Array> = cast.iter().collect();
    let joined = crate::manipulation::join::concatenate(&refs, None)?;
    joined.to_vec::<i64>()
}

/// `0..n` as `t` on `dev`.
pub(crate) fn arange(dev: &Device, n: usize, t: DType) -> Result<Array> {
    if n == 0 {
        return Array::empty_on(dev, &[0], t);
    }
    Array::arange_on(dev, 0.0, n as f64, 1.0, t)
}

/// Checks that every array is on `dev`.
pub(crate) fn same_device(op: &str, dev: &Device, arrays: &[&Array]) -> Result<()> {
    for a in arrays {
        if a.device() != dev {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: dev.label(),
                rhs: a.device().label(),
            });
        }
    }
    Ok(())
}
