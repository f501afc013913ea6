//! Block construction: SciPy's `bmat`, `block_diag` and `kronsum`, composed of COO triplets
//! shifted by block offsets (array ops on the device).

use super::base::{cast, fit_index, Format, Sparse, SparseMatrix};
use super::construct::kron;
use super::CooMatrix;
use crate::array::Array;
use crate::manipulation::join::concatenate;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// COO of the blocks at `(row offset, col offset)` with the given shape and dtype.
fn assemble(
    op: &str,
    placed: &[(&dyn SparseMatrix, usize, usize)],
    shape: (usize, usize),
    t: Option<DType>,
    dev: Option<&crate::device::Device>,
) -> Result<CooMatrix> {
    let dev = match dev {
        Some(d) => d.clone(),
        None => match placed.first() {
            Some((b, _, _)) => b.device().clone(),
            None => return Err(Error::invalid(op, "blocks must not be empty")),
        },
    };
    let mut tt = DType::Float64;
    for (i, (b, _, _)) in placed.iter().enumerate() {
        tt = if i == 0 {
            b.dtype()
        } else {
            cupy_core::promote::promote_types(tt, b.dtype())
        };
    }
    let t = t.unwrap_or(tt);
    let total: usize = placed.iter().map(|(b, _, _)| b.nnz()).sum();
    let it = fit_index(DType::Int32, shape.0.max(shape.1).max(total));
    let (mut rows, mut cols, mut vals) = (vec![], vec![], vec![]);
    for (b, r0, c0) in placed {
        if b.device() != &dev {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: dev.label(),
                rhs: b.device().label(),
            });
        }
        let c = b.tocoo()?;
        if c.nnz() == 0 {
            continue;
        }
        rows.push(cast(&(&cast(c.row(), DType::Int64)? + *r0 as i64)?, it)?);
        cols.push(cast(&(&cast(c.col(), DType::Int64)? + *c0 as i64)?, it)?);
        vals.push(cast(c.data(), t)?);
    }
    if vals.is_empty() {
        return Ok(CooMatrix::new_unchecked(
            Array::empty_on(&dev, &[0], t)?,
            Array::empty_on(&dev, &[0], it)?,
            Array::empty_on(&dev, &[0], it)?,
            shape,
            Some(true),
        ));
    }
    let cat = |v: &[Array]| -> Result<Array> {
        let r: Vec<&Array> = v.iter().collect();
        concatenate(&r, 0)
    };
    Ok(CooMatrix::new_unchecked(
        cat(&vals)?,
        cat(&rows)?,
        cat(&cols)?,
        shape,
        None,
    ))
}

/// SciPy's `bmat(blocks, format)`: the matrix of a grid of blocks (`None`: all zeros). Each
/// block row takes its height from its blocks, each block column its width, as SciPy does
/// (a row or column of `None` only has size 0). The dtype is the promoted one of the blocks.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the block and both shapes for blocks of one row with other
/// heights (or one column with other widths), as SciPy's "`blocks[i,:]` has incompatible row
/// dimensions"; [`Error::InvalidArgument`] for an empty or ragged grid, or no block at all.
pub fn bmat(blocks: &[Vec<Option<&dyn SparseMatrix>>], format: Format) -> Result<Sparse> {
    let op = "bmat";
    let nr = blocks.len();
    let nc = blocks.first().map_or(0, |r| r.len());
    if nr == 0 || nc == 0 || blocks.iter().any(|r| r.len() != nc) {
        return Err(Error::invalid(
            op,
            "blocks must be a non-empty rectangular grid (every row the same length)",
        ));
    }
    let mut heights = vec![0usize; nr];
    let mut widths = vec![0usize; nc];
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            let Some(b) = b else { continue };
            let (h, w) = b.shape();
            if heights[i] == 0 {
                heights[i] = h;
            } else if heights[i] != h {
                return Err(Error::invalid(
                    "bmat",
                    format!(
                        "blocks[{i},:] has incompatible row dimensions. Got blocks[{i},{j}].shape[0] == {h}, expected {} (blocks[{i},{j}] has shape {})",
                        heights[i],
                        super::py_shape(&[h, w])
                    ),
                ));
            }
            if widths[j] == 0 {
                widths[j] = w;
            } else if widths[j] != w {
                return Err(Error::invalid(
                    "bmat",
                    format!(
                        "blocks[:,{j}] has incompatible column dimensions. Got blocks[{i},{j}].shape[1] == {w}, expected {} (blocks[{i},{j}] has shape {})",
                        widths[j],
                        super::py_shape(&[h, w])
                    ),
                ));
            }
        }
    }
    let roff: Vec<usize> = heights
        .iter()
        .scan(0, |a, &h| {
            let r = *a;
            *a += h;
            Some(r)
        })
        .collect();
    let coff: Vec<usize> = widths
        .iter()
        .scan(0, |a, &w| {
            let r = *a;
            *a += w;
            Some(r)
        })
        .collect();
    let mut placed = vec![];
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            if let Some(b) = b {
                placed.push((*b, roff[i], coff[j]));
            }
        }
    }
    if placed.is_empty() {
        return Err(Error::invalid(
            op,
            "every block is None (no dtype or device)",
        ));
    }
    let shape = (heights.iter().sum(), widths.iter().sum());
    assemble(op, &placed, shape, None, None)?.asformat(format)
}
routine!(bmat as "cupyx.scipy.sparse.bmat / block_diag / kronsum", Sparse, probe: super::probe);

/// SciPy's `block_diag(mats, format)`: the blocks along the diagonal (zeros elsewhere).
///
/// # Errors
/// [`Error::InvalidArgument`] for no blocks; [`Error::DeviceMismatch`].
pub fn block_diag(mats: &[&dyn SparseMatrix], format: Format) -> Result<Sparse> {
    let mut placed = vec![];
    let (mut r, mut c) = (0, 0);
    for m in mats {
        placed.push((*m, r, c));
        r += m.shape().0;
        c += m.shape().1;
    }
    assemble("block_diag", &placed, (r, c), None, None)?.asformat(format)
}

/// SciPy's `kronsum(A, B, format)`: `kron(I_n, A) + kron(B, I_m)` for square `A` (`m x m`)
/// and `B` (`n x n`), the sum canonical (duplicates summed, zeros dropped).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the shape of a non-square operand.
pub fn kronsum(a: &dyn SparseMatrix, b: &dyn SparseMatrix, format: Format) -> Result<Sparse> {
    for (name, x) in [("A", a), ("B", b)] {
        let (r, c) = x.shape();
        if r != c {
            return Err(super::not_square("kronsum", name, (r, c)));
        }
    }
    let t = cupy_core::promote::promote_types(a.dtype(), b.dtype());
    let (m, n) = (a.shape().0, b.shape().0);
    let eye = |k: usize| {
        super::construct::eye_with(
            k,
            super::SpEye {
                dtype: t,
                format: Format::Coo,
                device: Some(a.device().clone()),
                ..Default::default()
            },
        )
    };
    let l = kron(&eye(n)?, a)?;
    let r = kron(b, &eye(m)?)?;
    let s = l.tocsr()?.add(&r)?;
    s.asformat(format)
}
