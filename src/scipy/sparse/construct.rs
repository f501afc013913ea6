//! SciPy's construction functions: `eye identity diags spdiags kron hstack vstack tril triu
//! find`, composed of COO triplets built with array ops on the device.

use super::base::{arange, cast, fit_index, value_dtype, Format, Sparse, SparseMatrix};
use super::{CooMatrix, DiaMatrix};
use crate::array::Array;
use crate::device::Device;
use crate::indexing::{flatnonzero, take};
use crate::manipulation::join::concatenate;
use crate::manipulation::tiling::tile;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// The keywords of [`eye_with`] (SciPy's `eye(m, n=None, k=0, dtype=float, format=None)`).
#[derive(Clone, Debug)]
pub struct SpEye {
    /// Columns (`n=`; `None`: square).
    pub n: Option<usize>,
    /// The diagonal of ones (`k=`).
    pub k: isize,
    /// The value dtype (`dtype=`, default float64).
    pub dtype: DType,
    /// The format (`format=`, default DIA as SciPy's).
    pub format: Format,
    /// The device (`None`: the current one).
    pub device: Option<Device>,
}

impl Default for SpEye {
    fn default() -> SpEye {
        SpEye {
            n: None,
            k: 0,
            dtype: DType::Float64,
            format: Format::Dia,
            device: None,
        }
    }
}

impl From<Format> for SpEye {
    fn from(format: Format) -> SpEye {
        SpEye {
            format,
            ..Default::default()
        }
    }
}

/// SciPy's `eye(m)`: the `m x m` identity (DIA, float64).
///
/// # Errors
/// Device errors.
pub fn eye(m: usize) -> Result<Sparse> {
    eye_with(m, SpEye::default())
}

/// SciPy's `eye(m, n, k, dtype, format)`: ones on diagonal `k` of an `m x n` matrix.
///
/// # Errors
/// [`Error::InvalidArgument`] for `k > n` or `-k > m` (SciPy's "Offset out of bounds");
/// [`Error::TypeError`] for an unsupported dtype; device errors.
pub fn eye_with(m: usize, opts: impl Into<SpEye>) -> Result<Sparse> {
    let o = opts.into();
    let dev = match o.device {
        Some(d) => d,
        None => Device::current()?,
    };
    let n = o.n.unwrap_or(m);
    let t = value_dtype("eye", o.dtype)?;
    let it = fit_index(DType::Int32, m.max(n));
    if o.k > n as isize || -o.k > m as isize {
        return Err(Error::invalid(
            "eye",
            format!(
                "Offset {} (index 0) out of bounds for shape ({m}, {n})",
                o.k
            ),
        ));
    }
    let k = o.k as i64;
    let lo = (-k).max(0);
    let hi = (m as i64).min(n as i64 - k).max(lo);
    let len = (hi - lo) as usize;
    let rows = (&arange(&dev, len, DType::Int64)? + lo)?;
    let cols = (&rows + k)?;
    let coo = CooMatrix::new_unchecked(
        Array::ones_on(&dev, &[len], t)?,
        cast(&rows, it)?,
        cast(&cols, it)?,
        (m, n),
        Some(true),
    );
    coo.asformat(o.format)
}
routine!(eye as "cupyx.scipy.sparse.eye / identity", Sparse, probe: super::probe, notes: "format= csr/csc/coo/dia (default dia)");

/// SciPy's `identity(n)`: the `n x n` identity (DIA, float64); [`eye_with`] for the keywords.
///
/// # Errors
/// Device errors.
pub fn identity(n: usize) -> Result<Sparse> {
    eye(n)
}

/// The keywords of [`diags_with`] (SciPy's `diags(diagonals, offsets=0, shape=None,
/// format=None, dtype=None)`).
#[derive(Clone, Debug)]
pub struct Diags {
    /// One offset per diagonal (`offsets=`, default `[0]`).
    pub offsets: Vec<isize>,
    /// The shape (`None`: square, `len(diagonals[0]) + |offsets[0]|`).
    pub shape: Option<(usize, usize)>,
    /// The format (default DIA).
    pub format: Format,
    /// The value dtype (`None`: the promoted dtype of the diagonals).
    pub dtype: Option<DType>,
}

impl Default for Diags {
    fn default() -> Diags {
        Diags {
            offsets: vec![0],
            shape: None,
            format: Format::Dia,
            dtype: None,
        }
    }
}

/// SciPy's `diags(diagonals, offsets)`: the matrix with `diagonals[i]` on diagonal
/// `offsets[i]` (square, DIA).
///
/// # Errors
/// As [`diags_with`].
pub fn diags(diagonals: &[&Array], offsets: &[isize]) -> Result<Sparse> {
    diags_with(
        diagonals,
        Diags {
            offsets: offsets.to_vec(),
            ..Default::default()
        },
    )
}

/// SciPy's `diags(diagonals, offsets, shape, format, dtype)`. A diagonal of one element is
/// broadcast along its whole length (SciPy's scalar rule), a longer one is cut to the length
/// the shape allows; stored zeros are kept.
///
/// # Errors
/// [`Error::InvalidArgument`] for a number of diagonals other than the number of offsets,
/// repeated offsets, an offset outside the shape, or a diagonal shorter than the shape needs (SciPy's "Diagonal
/// length (index i: n at offset k) does not agree with array size (m, n)").
pub fn diags_with(diagonals: &[&Array], opts: Diags) -> Result<Sparse> {
    let op = "diags";
    if diagonals.len() != opts.offsets.len() {
        return Err(Error::invalid(
            op,
            format!(
                "Different number of diagonals ({}) and offsets ({})",
                diagonals.len(),
                opts.offsets.len()
            ),
        ));
    }
    let Some(first) = diagonals.first() else {
        return Err(Error::invalid(op, "no diagonals given"));
    };
    let mut sorted = opts.offsets.clone();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::invalid(op, "Offset array contains duplicate values"));
    }
    let dev = first.device().clone();
    let (m, n) = opts.shape.unwrap_or_else(|| {
        let s = first.size() + opts.offsets[0].unsigned_abs();
        (s, s)
    });
    let mut t = first.dtype();
    for d in diagonals {
        t = cupy_core::promote::promote_types(t, d.dtype());
    }
    let t = value_dtype(op, opts.dtype.unwrap_or(t))?;
    let it = fit_index(DType::Int32, m.max(n));
    let (mut rows, mut cols, mut vals) = (vec![], vec![], vec![]);
    for (i, (d, &k)) in diagonals.iter().zip(&opts.offsets).enumerate() {
        let d = d.reshape(&[-1])?;
        let (lo_r, lo_c) = ((-k).max(0) as usize, k.max(0) as usize);
        let len = m.saturating_sub(lo_r).min(n.saturating_sub(lo_c));
        if k > n as isize || -k > m as isize {
            return Err(Error::invalid(
                op,
                format!("Offset {k} (index {i}) out of bounds for shape ({m}, {n})"),
            ));
        }
        let d = if d.size() == 1 && len != 1 {
            tile(&d, &[len])?
        } else if d.size() >= len {
            // SciPy cuts longer diagonals to the length the shape allows.
            super::base::sub(&d, 0, len)
        } else {
            return Err(Error::invalid(
                op,
                format!(
                    "Diagonal length (index {i}: {} at offset {k}) does not agree with array size ({m}, {n})",
                    d.size()
                ),
            ));
        };
        let j = arange(&dev, len, DType::Int64)?;
        rows.push(cast(&(&j + lo_r as i64)?, it)?);
        cols.push(cast(&(&j + lo_c as i64)?, it)?);
        vals.push(cast(&d, t)?);
    }
    let cat = |v: &[Array]| -> Result<Array> {
        let r: Vec<&Array> = v.iter().collect();
        concatenate(&r, 0)
    };
    let coo = CooMatrix::new_unchecked(cat(&vals)?, cat(&rows)?, cat(&cols)?, (m, n), None);
    coo.asformat(opts.format)
}
routine!(diags as "cupyx.scipy.sparse.diags / spdiags", Sparse, probe: super::probe);

/// SciPy's `spdiags(data, diags, m, n)`: the DIA matrix of `data` (`[n_diagonals, L]`, indexed
/// by column) with the given offsets.
///
/// # Errors
/// As [`super::dia_matrix`].
pub fn spdiags(data: &Array, diags: &[isize], m: usize, n: usize) -> Result<DiaMatrix> {
    let offs: Vec<i64> = diags.iter().map(|&k| k as i64).collect();
    let offsets = Array::from_slice_on(data.device(), &offs, &[offs.len()])?;
    DiaMatrix::new(data, &offsets, (m, n))
}

/// SciPy's `kron(A, B)`: the Kronecker product, COO (`A[i, j] * B` blocks).
///
/// # Errors
/// Device errors; [`Error::DeviceMismatch`].
pub fn kron(a: &dyn SparseMatrix, b: &dyn SparseMatrix) -> Result<CooMatrix> {
    let (a, b) = (a.tocoo()?, b.tocoo()?);
    let ((ma, na), (mb, nb)) = (a.shape(), b.shape());
    let shape = (ma * mb, na * nb);
    let t = cupy_core::promote::promote_types(a.dtype(), b.dtype());
    let it = fit_index(DType::Int32, shape.0.max(shape.1).max(a.nnz() * b.nnz()));
    let (ka, kb) = (a.nnz(), b.nnz());
    if ka == 0 || kb == 0 {
        return Ok(CooMatrix::new_unchecked(
            Array::empty_on(a.device(), &[0], t)?,
            Array::empty_on(a.device(), &[0], it)?,
            Array::empty_on(a.device(), &[0], it)?,
            shape,
            Some(true),
        ));
    }
    let rep = |x: &Array| cast(x, DType::Int64)?.repeat(&[kb], None);
    let til = |x: &Array| tile(&cast(x, DType::Int64)?, &[ka]);
    let row = (&(&rep(a.row())? * mb as i64)? + &til(b.row())?)?;
    let col = (&(&rep(a.col())? * nb as i64)? + &til(b.col())?)?;
    let data = (&cast(a.data(), t)?.repeat(&[kb], None)? * &tile(&cast(b.data(), t)?, &[ka])?)?;
    Ok(CooMatrix::new_unchecked(
        data,
        cast(&row, it)?,
        cast(&col, it)?,
        shape,
        None,
    ))
}
routine!(kron as "cupyx.scipy.sparse.kron", Sparse, probe: super::probe);

/// Joins blocks along `axis` (0: vstack, 1: hstack).
fn stack(op: &str, blocks: &[&dyn SparseMatrix], axis: usize, format: Format) -> Result<Sparse> {
    let Some(first) = blocks.first() else {
        return Err(Error::invalid(op, "blocks must not be empty"));
    };
    let other = 1 - axis;
    let want = if other == 0 {
        first.shape().0
    } else {
        first.shape().1
    };
    let mut t = first.dtype();
    for (i, b) in blocks.iter().enumerate() {
        let s = b.shape();
        let got = if other == 0 { s.0 } else { s.1 };
        if got != want {
            let f = first.shape();
            return Err(super::shapes_error(
                op,
                ("blocks[0]", &[f.0, f.1]),
                (&format!("blocks[{i}]"), &[s.0, s.1]),
                format!(
                    "the blocks must have the same number of {}",
                    if other == 0 { "rows" } else { "columns" }
                ),
            ));
        }
        t = cupy_core::promote::promote_types(t, b.dtype());
    }
    let total: usize = blocks
        .iter()
        .map(|b| if axis == 0 { b.shape().0 } else { b.shape().1 })
        .sum();
    let shape = if axis == 0 {
        (total, want)
    } else {
        (want, total)
    };
    let it = fit_index(
        DType::Int32,
        shape
            .0
            .max(shape.1)
            .max(blocks.iter().map(|b| b.nnz()).sum()),
    );
    let (mut rows, mut cols, mut vals) = (vec![], vec![], vec![]);
    let mut at = 0usize;
    for b in blocks {
        let c = b.tocoo()?;
        let (mut r, mut k) = (cast(c.row(), DType::Int64)?, cast(c.col(), DType::Int64)?);
        if axis == 0 {
            r = (&r + at as i64)?;
        } else {
            k = (&k + at as i64)?;
        }
        at += if axis == 0 { b.shape().0 } else { b.shape().1 };
        rows.push(cast(&r, it)?);
        cols.push(cast(&k, it)?);
        vals.push(cast(c.data(), t)?);
    }
    let cat = |v: &[Array]| -> Result<Array> {
        let r: Vec<&Array> = v.iter().collect();
        concatenate(&r, 0)
    };
    CooMatrix::new_unchecked(cat(&vals)?, cat(&rows)?, cat(&cols)?, shape, None).asformat(format)
}

/// SciPy's `hstack(blocks, format)`: blocks side by side.
///
/// # Errors
/// [`Error::InvalidArgument`] for blocks with different numbers of rows (both shapes named);
/// [`Error::InvalidArgument`] for no blocks.
pub fn hstack(blocks: &[&dyn SparseMatrix], format: Format) -> Result<Sparse> {
    stack("hstack", blocks, 1, format)
}
routine!(hstack as "cupyx.scipy.sparse.hstack / vstack", Sparse, probe: super::probe);

/// SciPy's `vstack(blocks, format)`: blocks on top of each other.
///
/// # Errors
/// As [`hstack`], for columns.
pub fn vstack(blocks: &[&dyn SparseMatrix], format: Format) -> Result<Sparse> {
    stack("vstack", blocks, 0, format)
}

/// The entries of `a` with `col - row` kept by `keep` (COO, duplicates kept).
fn band(a: &dyn SparseMatrix, k: isize, lower: bool, format: Format) -> Result<Sparse> {
    let c = a.tocoo()?;
    let d = (&cast(c.col(), DType::Int64)? - &cast(c.row(), DType::Int64)?)?;
    let mask = if lower {
        d.less_equal(k as i64)?
    } else {
        d.greater_equal(k as i64)?
    };
    let keep = flatnonzero(&mask)?;
    CooMatrix::new_unchecked(
        take(c.data(), &keep)?,
        take(c.row(), &keep)?,
        take(c.col(), &keep)?,
        c.shape(),
        None,
    )
    .asformat(format)
}

/// SciPy's `tril(A, k, format)`: the entries on and below diagonal `k`.
///
/// # Errors
/// Device errors.
pub fn tril(a: &dyn SparseMatrix, k: isize, format: Format) -> Result<Sparse> {
    band(a, k, true, format)
}
routine!(tril as "cupyx.scipy.sparse.tril / triu", Sparse, probe: super::probe);

/// SciPy's `triu(A, k, format)`: the entries on and above diagonal `k`.
///
/// # Errors
/// Device errors.
pub fn triu(a: &dyn SparseMatrix, k: isize, format: Format) -> Result<Sparse> {
    band(a, k, false, format)
}

/// SciPy's `find(A)`: `(row, col, data)` of the nonzero entries, duplicates summed, sorted by
/// row, then column.
///
/// # Errors
/// Device errors.
pub fn find(a: &dyn SparseMatrix) -> Result<(Array, Array, Array)> {
    let mut c = a.tocoo()?;
    c.sum_duplicates()?;
    c.eliminate_zeros()?;
    Ok((c.row().clone(), c.col().clone(), c.data().clone()))
}
routine!(find as "cupyx.scipy.sparse.find", Sparse, probe: super::probe);
