//! `nonzero`, `argwhere`, `flatnonzero`: an inclusive scan of the truth values gives each true
//! element its output slot, and one kernel scatters the coordinates there; on a backend that
//! compacts itself (cuda, hip, cpu) its compaction gives the flat positions and a kernel per
//! axis the coordinates. The count (the output length) is one small read, as in CuPy.

use crate::array::Array;
use crate::launch::Elementwise;
use crate::registry::Need;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::SliceItem;
use cupy_core::scalar::Scalar;

/// The coordinates of the true (nonzero) elements of `a` (any ndim ≥ 1) in C order, as an
/// int64 array of shape `(a.ndim, count)`.
pub(crate) fn nonzero_matrix(op: &str, a: &Array) -> Result<Array> {
    let device = a.device().clone();
    let k = a.ndim();
    let b = if a.dtype() == DType::Bool {
        a.clone()
    } else {
        a.astype(DType::Bool)?
    };
    if a.size() == 0 {
        return Array::empty_on(&device, &[k, 0], DType::Int64);
    }
    if let Some(m) = compacted(op, &b)? {
        return Ok(m);
    }
    let cs = crate::sorting::cumsum(&b)?;
    let count = match cs.slice(&[SliceItem::Index(-1)])?.item()? {
        Scalar::Int64(c) => c as usize,
        s => s.to_i128() as usize,
    };
    let out = Array::empty_on(&device, &[k, count], DType::Int64)?;
    if count == 0 {
        return Ok(out);
    }
    let cs = cs.reshape(&a.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let p = |j: usize| Expr::param(j, DType::Int64);
    let mut params = vec![Scalar::Int64(count as i64)];
    let mut stores = vec![];
    let slot = Expr::binary(
        BinaryOp::Sub,
        Expr::input(1, DType::Int64),
        Expr::constant(Scalar::Int64(1)),
    );
    for d in 0..k {
        let div: usize = a.shape()[d + 1..].iter().product();
        let base = params.len();
        params.extend([
            Scalar::Int64(div as i64),
            Scalar::Int64(a.shape()[d] as i64),
        ]);
        let coord = Expr::binary(
            BinaryOp::Mod,
            Expr::binary(BinaryOp::Div, Expr::index(), p(base)),
            p(base + 1),
        );
        let at = Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, Expr::constant(Scalar::Int64(d as i64)), p(0)),
            slot.clone(),
        );
        stores.push(Stmt::StoreRaw {
            raw: 0,
            index: at,
            value: coord,
        });
    }
    let kernel = Kernel {
        name: "nonzero".into(),
        inputs: vec![DType::Bool, DType::Int64],
        outputs: vec![],
        raws: vec![DType::Int64],
        params: vec![DType::Int64; params.len()],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::input(0, DType::Bool),
            then_body: stores,
            else_body: vec![],
        }],
    };
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[&b, &cs],
        raws: &[&out],
        params,
        outs: vec![],
        device: Some(&device),
        shape: Some(a.shape()),
    }
    .run()?;
    Ok(out)
}

/// [`nonzero_matrix`] by the backend's own compaction ([`cupy_core::Backend::compresses`]: the
/// flat positions of the true elements), then one kernel per further axis turning
/// them into coordinates; `None` where the backend has none.
fn compacted(op: &str, b: &Array) -> Result<Option<Array>> {
    let device = b.device().clone();
    let flat = b.reshape(&[-1])?;
    let Some((count, pos)) = crate::sorting::compact_positions(op, &flat)? else {
        return Ok(None);
    };
    let k = b.ndim();
    if k == 1 {
        return Ok(Some(pos.reshape(&[1, count as isize])?));
    }
    let out = Array::empty_on(&device, &[k, count], DType::Int64)?;
    if count == 0 {
        return Ok(Some(out));
    }
    let i = DType::Int64;
    let coord = Expr::binary(
        BinaryOp::Mod,
        Expr::binary(BinaryOp::Div, Expr::input(0, i), Expr::param(0, i)),
        Expr::param(1, i),
    );
    let kernel = Kernel::map("nonzero_coords", vec![i], vec![i, i], coord);
    for d in 0..k {
        let div: usize = b.shape()[d + 1..].iter().product();
        let row = out.slice(&[SliceItem::Index(d as isize)])?;
        Elementwise {
            op,
            kernel: &kernel,
            inputs: &[&pos],
            raws: &[],
            params: vec![
                Scalar::Int64(div as i64),
                Scalar::Int64(b.shape()[d] as i64),
            ],
            outs: vec![Some(&row)],
            device: Some(&device),
            shape: None,
        }
        .run()?;
    }
    Ok(Some(out))
}

/// The rows of [`nonzero_matrix`]: one int64 index array per axis.
pub(crate) fn nonzero_rows(op: &str, a: &Array) -> Result<Vec<Array>> {
    let m = nonzero_matrix(op, a)?;
    (0..a.ndim())
        .map(|d| m.slice(&[SliceItem::Index(d as isize)]))
        .collect()
}

/// `numpy.nonzero(a)`: one int64 array per axis holding the coordinates of the nonzero
/// elements in C order (NaN is nonzero; complex: either part).
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array (NumPy 2: "Calling nonzero on 0d arrays is not
/// allowed"); device errors.
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "nonzero",
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.",
        ));
    }
    nonzero_rows("nonzero", a)
}
routine!(
    nonzero as "cupy.nonzero / ndarray.nonzero",
    Indexing,
    probe: nonzero_probe,
    notes: "cuda/hip/cpu: a count, the backend's compaction of the positions, a coordinate kernel per axis; wgpu: an inclusive scan + one scatter kernel; the count is one small read"
);

/// `numpy.argwhere(a)`: the coordinates of the nonzero elements as an int64 array of shape
/// `(count, a.ndim)` (a 0-d `a` gives shape `(1, 0)` or `(0, 0)`, as NumPy).
///
/// # Errors
/// Device errors.
pub fn argwhere(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        let n = usize::from(a.item()?.is_nonzero());
        return Array::empty_on(a.device(), &[n, 0], DType::Int64);
    }
    nonzero_matrix("argwhere", a)?.transpose(&[1, 0])?.copy()
}
routine!(argwhere, Indexing, probe: nonzero_probe, notes: "nonzero's kernel, transposed");

/// `numpy.flatnonzero(a)`: the flat (C-order) indices of the nonzero elements, int64.
///
/// # Errors
/// Device errors.
pub fn flatnonzero(a: &Array) -> Result<Array> {
    let flat = a.reshape(&[-1])?;
    Ok(nonzero_rows("flatnonzero", &flat)?.remove(0))
}
routine!(flatnonzero, Indexing, probe: nonzero_probe, notes: "nonzero of the flattened array");

impl Array {
    /// `a.nonzero()`; see [`nonzero`].
    ///
    /// # Errors
    /// As [`nonzero`].
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        nonzero(self)
    }
}

/// The registry probe: a truth test and an int64 raw store.
fn nonzero_probe(t: DType) -> Option<Need> {
    Some(Need::Kernel(Kernel {
        name: "nonzero".into(),
        inputs: vec![t],
        outputs: vec![],
        raws: vec![DType::Int64],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::StoreRaw {
            raw: 0,
            index: Expr::index(),
            value: Expr::input(0, t).cast(DType::Int64),
        }],
    }))
}
