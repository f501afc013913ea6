//! `bsr_matrix` / `bsr_array`: block sparse rows. Block row `i` holds the blocks
//! `indptr[i]..indptr[i+1]`; block `b` sits at block column `indices[b]` with values `data[b]`
//! (`R x C`, the blocksize), so entry `(i * R + r, indices[b] * C + c)` is `data[b, r, c]`.
//! Every array lives on the device; products and arithmetic go through CSR, as SciPy's do
//! for most of them.

use super::base::{
    cast, fit_index, index_dtype, read_i64s, sub, value_dtype, Format, SparseMatrix,
};
use super::{CooMatrix, CsrMatrix, SparseInput};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::put;
use crate::sorting::{searchsorted_with, unique_inverse, SearchSorted, Side};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// A block sparse row matrix (SciPy's `bsr_matrix`, `bsr_array`).
#[derive(Clone, Debug)]
pub struct BsrMatrix {
    data: Array,
    indices: Array,
    indptr: Array,
    shape: (usize, usize),
}

/// SciPy's `bsr_matrix(arg1, shape=None, blocksize=None)`: from a dense 2-d array,
/// `(data, (row, col))` or `(data, indices, indptr)` with `data` of shape `[n_blocks, R, C]`
/// (the blocksize is then `(R, C)`), or a shape (an empty float64 matrix). Dense and triplet
/// input are converted through CSR with `blocksize` (SciPy's `estimate_blocksize` picks one
/// when it is `None`). Blocks come sorted by block column in every block row (SciPy keeps the
/// order in which `tobsr` meets them: docs/differences.md).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the shapes when the shape is not a multiple of the
/// blocksize, lengths disagree, `indptr` is not monotone, an index is out of range, or `data`
/// is not 3-d; [`Error::TypeError`] for unsupported dtypes.
pub fn bsr_matrix<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
    blocksize: Option<(usize, usize)>,
) -> Result<BsrMatrix> {
    BsrMatrix::from_input("bsr_matrix", arg.into(), shape, blocksize)
}

/// SciPy's `bsr_array` (the same type here).
///
/// # Errors
/// As [`bsr_matrix`].
pub fn bsr_array<'a>(
    arg: impl Into<SparseInput<'a>>,
    shape: Option<(usize, usize)>,
    blocksize: Option<(usize, usize)>,
) -> Result<BsrMatrix> {
    BsrMatrix::from_input("bsr_array", arg.into(), shape, blocksize)
}
routine!(bsr_matrix as "cupyx.scipy.sparse.bsr_matrix / bsr_array", Sparse, probe: super::probe, notes: "device arrays; products and arithmetic through CSR; blocks sorted by block column");

fn check_blocksize(op: &str, shape: (usize, usize), (r, c): (usize, usize)) -> Result<()> {
    if r == 0 || c == 0 || !shape.0.is_multiple_of(r) || !shape.1.is_multiple_of(c) {
        return Err(Error::invalid(
            op,
            format!(
                "shape ({}, {}) must be a multiple of the blocksize ({r}, {c}), which must be positive",
                shape.0, shape.1
            ),
        ));
    }
    Ok(())
}

impl BsrMatrix {
    fn from_input(
        op: &str,
        arg: SparseInput<'_>,
        shape: Option<(usize, usize)>,
        blocksize: Option<(usize, usize)>,
    ) -> Result<BsrMatrix> {
        match arg {
            SparseInput::Compressed {
                data,
                indices,
                indptr,
            } => BsrMatrix::from_parts(op, data, indices, indptr, shape, blocksize),
            SparseInput::Shape(m, n) => {
                let bs = blocksize.unwrap_or((1, 1));
                check_blocksize(op, (m, n), bs)?;
                let dev = Device::current()?;
                let it = fit_index(DType::Int32, m.max(n));
                Ok(BsrMatrix {
                    data: Array::empty_on(&dev, &[0, bs.0, bs.1], DType::Float64)?,
                    indices: Array::empty_on(&dev, &[0], it)?,
                    indptr: Array::zeros_on(&dev, &[m / bs.0 + 1], it)?,
                    shape: (m, n),
                })
            }
            other => {
                let csr = CsrMatrix::from_input(op, other, shape)?;
                BsrMatrix::from_csr(op, &csr, blocksize)
            }
        }
    }

    fn from_parts(
        op: &str,
        data: &Array,
        indices: &Array,
        indptr: &Array,
        shape: Option<(usize, usize)>,
        blocksize: Option<(usize, usize)>,
    ) -> Result<BsrMatrix> {
        super::base::same_device(op, data.device(), &[indices, indptr])?;
        super::base::check_1d(op, "indices", indices)?;
        super::base::check_1d(op, "indptr", indptr)?;
        if data.ndim() != 3 {
            return Err(Error::invalid(
                op,
                format!(
                    "data must be 3-d (blocks, R, C), got shape {:?}",
                    data.shape()
                ),
            ));
        }
        let (nb, r, c) = (data.shape()[0], data.shape()[1], data.shape()[2]);
        if let Some(bs) = blocksize {
            if bs != (r, c) {
                return Err(Error::invalid(
                    op,
                    format!("mismatching blocksize={bs:?} vs data blocks ({r}, {c})"),
                ));
            }
        }
        let it = super::base::wider_index(
            index_dtype(op, "indices", indices.dtype())?,
            index_dtype(op, "indptr", indptr.dtype())?,
        );
        let nbr = indptr.size().saturating_sub(1);
        let shape = match shape {
            Some(s) => s,
            None => (nbr * r, super::infer_minor(op, indices)? * c),
        };
        check_blocksize(op, shape, (r, c))?;
        if indptr.size() != shape.0 / r + 1 || indices.size() != nb {
            return Err(Error::invalid(
                op,
                format!(
                    "indptr has {} entries (want {} for shape {shape:?} and blocksize ({r}, {c})), indices {} (want {nb}, the blocks of data)",
                    indptr.size(),
                    shape.0 / r + 1,
                    indices.size()
                ),
            ));
        }
        let t = value_dtype(op, data.dtype())?;
        let indptr = cast(indptr, it)?;
        let indices = cast(indices, it)?;
        let mut parts = vec![sub(&indptr, 0, 1), sub(&indptr, nbr, 1)];
        if nbr > 0 {
            let d = (&sub(&indptr, 1, nbr) - &sub(&indptr, 0, nbr))?;
            parts.push(d.min()?.reshape(&[1])?);
        }
        if nb > 0 {
            parts.push(indices.min()?.reshape(&[1])?);
            parts.push(indices.max()?.reshape(&[1])?);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        let v = read_i64s(&refs)?;
        let bad = v[0] != 0
            || v[1] != nb as i64
            || (nbr > 0 && v[2] < 0)
            || (nb > 0 && (v[v.len() - 2] < 0 || v[v.len() - 1] >= (shape.1 / c) as i64));
        if bad {
            return Err(Error::invalid(
                op,
                format!(
                    "indptr must start at 0, rise, and end at the number of blocks ({nb}); block column indices must lie in 0..{}",
                    shape.1 / c
                ),
            ));
        }
        Ok(BsrMatrix {
            data: cast(data, t)?,
            indices,
            indptr,
            shape,
        })
    }

    /// SciPy's `csr.tobsr(blocksize)`: the blocks holding a stored entry of the canonical
    /// `csr`, sorted by block row, then block column (`blocksize` `None`: SciPy's
    /// `estimate_blocksize`).
    pub(crate) fn from_csr(
        op: &str,
        csr: &CsrMatrix,
        blocksize: Option<(usize, usize)>,
    ) -> Result<BsrMatrix> {
        let csr = csr.canonical()?;
        let shape = csr.shape();
        let bs = match blocksize {
            Some(b) => b,
            None => estimate_blocksize(&csr)?,
        };
        check_blocksize(op, shape, bs)?;
        let (r, c) = bs;
        let dev = csr.device().clone();
        let t = csr.dtype();
        let it = csr.indices().dtype();
        let nbr = shape.0 / r;
        let nbc = (shape.1 / c) as i64;
        if csr.nnz() == 0 {
            return Ok(BsrMatrix {
                data: Array::empty_on(&dev, &[0, r, c], t)?,
                indices: Array::empty_on(&dev, &[0], it)?,
                indptr: Array::zeros_on(&dev, &[nbr + 1], it)?,
                shape,
            });
        }
        let i64t = DType::Int64;
        let rows = cast(&csr.c.major_indices()?, i64t)?;
        let cols = cast(csr.indices(), i64t)?;
        let key = (&(&rows.floor_divide(r as i64)? * nbc)? + &cols.floor_divide(c as i64)?)?;
        let u = unique_inverse(&key)?;
        let nb = u.values.size();
        let indices = cast(&u.values.remainder(nbc)?, it)?;
        let brow = u.values.floor_divide(nbc)?;
        let lines = super::base::arange(&dev, nbr + 1, i64t)?;
        let indptr = cast(
            &searchsorted_with(
                &brow,
                &lines,
                SearchSorted {
                    side: Side::Left,
                    sorter: None,
                },
            )?,
            it,
        )?;
        let at = (&(&(&u.inverse_indices * (r * c) as i64)?
            + &(&rows.remainder(r as i64)? * c as i64)?)?
            + &cols.remainder(c as i64)?)?;
        let data = Array::zeros_on(&dev, &[nb * r * c], t)?;
        put(&data, &at, csr.data())?;
        Ok(BsrMatrix {
            data: data.reshape(&[nb as isize, r as isize, c as isize])?,
            indices,
            indptr,
            shape,
        })
    }

    /// The blocks (`A.data`, `[n_blocks, R, C]`).
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The block column of each block (`A.indices`).
    pub fn indices(&self) -> &Array {
        &self.indices
    }
    /// Block row starts (`A.indptr`, `rows / R + 1` entries).
    pub fn indptr(&self) -> &Array {
        &self.indptr
    }
    /// `A.blocksize`: `(R, C)`.
    pub fn blocksize(&self) -> (usize, usize) {
        (self.data.shape()[1], self.data.shape()[2])
    }

    /// `A @ x` (through CSR; see [`CsrMatrix::dot`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::dot`].
    pub fn dot(&self, x: &Array) -> Result<Array> {
        super::check_matvec("bsr_matrix @", self.shape, x)?;
        self.tocsr()?.dot(x)
    }
}

/// SciPy's `estimate_blocksize(A, efficiency=0.7)` of a canonical CSR matrix: the largest of
/// (6, 6), (4, 4), (3, 3), (2, 2) whose blocks would be filled well enough, else (1, 1).
fn estimate_blocksize(a: &CsrMatrix) -> Result<(usize, usize)> {
    let (m, n) = a.shape();
    if a.nnz() == 0 {
        return Ok((1, 1));
    }
    let (eff, high) = (0.7, 0.85);
    let nnz = a.nnz() as f64;
    let rows = cast(&a.c.major_indices()?, DType::Int64)?;
    let cols = cast(a.indices(), DType::Int64)?;
    let nbc = |k: usize| (n / k) as i64;
    let count = |k: usize| -> Result<f64> {
        let key = (&(&rows.floor_divide(k as i64)? * nbc(k))? + &cols.floor_divide(k as i64)?)?;
        Ok(crate::sorting::unique(&key)?.size() as f64)
    };
    let e = |k: usize| -> Result<f64> {
        if m.is_multiple_of(k) && n.is_multiple_of(k) {
            Ok(nnz / ((k * k) as f64 * count(k)?))
        } else {
            Ok(0.0)
        }
    };
    let (e22, e33) = (e(2)?, e(3)?);
    if e22 > high && e33 > high {
        return Ok(if nnz / (36.0 * count(6)?) > eff {
            (6, 6)
        } else {
            (3, 3)
        });
    }
    let e44 = e(4)?;
    Ok(if e44 > eff {
        (4, 4)
    } else if e33 > eff {
        (3, 3)
    } else if e22 > eff {
        (2, 2)
    } else {
        (1, 1)
    })
}

impl SparseMatrix for BsrMatrix {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// SciPy's count for BSR: every stored block entry (`n_blocks * R * C`).
    fn nnz(&self) -> usize {
        self.data.size()
    }
    fn format(&self) -> Format {
        Format::Bsr
    }
    fn device(&self) -> &Device {
        self.data.device()
    }
    /// Every stored block entry (zeros too, as SciPy's `bsr.tocoo`), block by block, each in
    /// row-major order.
    fn tocoo(&self) -> Result<CooMatrix> {
        let dev = self.device().clone();
        let (r, c) = self.blocksize();
        let nb = self.indices.size();
        let it = fit_index(
            self.indices.dtype(),
            self.shape.0.max(self.shape.1).max(nb * r * c),
        );
        let i64t = DType::Int64;
        if nb * r * c == 0 {
            return Ok(CooMatrix::new_unchecked(
                Array::empty_on(&dev, &[0], self.dtype())?,
                Array::empty_on(&dev, &[0], it)?,
                Array::empty_on(&dev, &[0], it)?,
                self.shape,
                Some(true),
            ));
        }
        let nbr = self.indptr.size() - 1;
        let pos = super::base::arange(&dev, nb, i64t)?;
        let ends = cast(&sub(&self.indptr, 1, nbr), i64t)?;
        let brow = searchsorted_with(
            &ends,
            &pos,
            SearchSorted {
                side: Side::Right,
                sorter: None,
            },
        )?;
        let rr = super::base::arange(&dev, r, i64t)?.reshape(&[1, -1, 1])?;
        let cc = super::base::arange(&dev, c, i64t)?.reshape(&[1, 1, -1])?;
        let base_r = (&cast(&brow, i64t)? * r as i64)?.reshape(&[-1, 1, 1])?;
        let base_c = (&cast(&self.indices, i64t)? * c as i64)?.reshape(&[-1, 1, 1])?;
        let full = [nb, r, c];
        let rows = crate::broadcast_to(&(&base_r + &rr)?, &full)?;
        let cols = crate::broadcast_to(&(&base_c + &cc)?, &full)?;
        Ok(CooMatrix::new_unchecked(
            self.data.reshape(&[-1])?,
            cast(&rows.reshape(&[-1])?, it)?,
            cast(&cols.reshape(&[-1])?, it)?,
            self.shape,
            None,
        ))
    }
    fn tobsr(&self, blocksize: Option<(usize, usize)>) -> Result<BsrMatrix> {
        match blocksize {
            None => Ok(self.clone()),
            Some(b) if b == self.blocksize() => Ok(self.clone()),
            Some(_) => BsrMatrix::from_csr("tobsr", &self.tocsr()?, blocksize),
        }
    }
}
