//! Integer-array indexing (gather): `numpy.take` and `a[indices]` along an axis, as one IR
//! kernel with raw loads on every backend.

use crate::array::{same_device, Array};
use crate::ops::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// `numpy.take(a, indices, axis)`: elements of `a` at `indices` along `axis` (`None`: of the
/// flattened array). The result has shape `a.shape[:axis] + indices.shape + a.shape[axis+1:]`
/// and `a`'s dtype. Negative indices count from the end (NumPy's default `mode='raise'`).
///
/// # Errors
/// [`Error::TypeError`] for non-integer indices (NumPy: cannot cast safely to intp);
/// [`Error::IndexOutOfBounds`] naming the first offending index (checked on the device before
/// the gather, which costs one synchronisation); [`Error::AxisOutOfRange`]; device errors.
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "take";
    let device = same_device(op, [a, indices])?;
    if !(indices.dtype().is_integer() || indices.dtype().is_bool()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![indices.dtype()],
            msg: format!(
                "cannot cast array data from {} to int64 according to the rule 'safe'",
                indices.dtype()
            ),
        });
    }
    let (src, ax) = match axis {
        None => (a.ravel()?, 0),
        Some(ax) => (a.clone(), normalize_axis(op, ax, a.ndim())?),
    };
    let shape = src.shape().to_vec();
    let n_axis = shape[ax];
    let pre: usize = shape[..ax].iter().product();
    let post: usize = shape[ax + 1..].iter().product();
    let nidx = indices.size();
    let mut out_shape: Vec<usize> = shape[..ax].to_vec();
    out_shape.extend(indices.shape());
    out_shape.extend(&shape[ax + 1..]);
    let out = Array::empty_on(&device, &out_shape, a.dtype())?;
    if out.size() == 0 {
        if nidx > 0 && n_axis == 0 {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: 0,
                axis: ax,
                size: 0,
            });
        }
        return Ok(out);
    }
    // Bounds: NumPy raises before writing anything.
    let lo = indices.min()?.item()?;
    let hi = indices.max()?.item()?;
    let as_i128 = |s: Scalar| match s.cast(DType::Int64) {
        Scalar::Int64(v) if indices.dtype() != DType::UInt64 => v as i128,
        _ => match s.cast(DType::UInt64) {
            Scalar::UInt64(v) => v as i128,
            _ => unreachable!("cast to uint64"),
        },
    };
    for v in [as_i128(lo), as_i128(hi)] {
        if v >= n_axis as i128 || v < -(n_axis as i128) {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: v.clamp(isize::MIN as i128, isize::MAX as i128) as isize,
                axis: ax,
                size: n_axis,
            });
        }
    }
    // Indices as a contiguous vector, viewed over the iteration space [pre, nidx, post].
    let idx = indices.reshape(&[nidx as isize])?;
    let idx = if idx.is_c_contiguous() {
        idx
    } else {
        idx.copy()?
    };
    let idx_view = Array::from_parts(
        device.clone(),
        idx.buffer.clone(),
        Layout {
            shape: vec![pre, nidx, post],
            strides: vec![0, 1, 0],
            offset: idx.layout.offset,
        },
    )?;
    let i64e = |e: Expr| e.cast(DType::Int64);
    let p = |k: usize| Expr::param(k, DType::Int64);
    let bin = Expr::binary;
    let i = Expr::index();
    // Params: nidx*post, post, n_axis.
    let j = i64e(Expr::input(0, indices.dtype()));
    let wrapped = Expr::select(
        bin(BinaryOp::Lt, j.clone(), Expr::constant(Scalar::Int64(0))),
        bin(BinaryOp::Add, j.clone(), p(2)),
        j,
    );
    let outer = bin(BinaryOp::Div, i.clone(), p(0));
    let inner = bin(BinaryOp::Mod, i, p(1));
    let addr = bin(
        BinaryOp::Add,
        bin(
            BinaryOp::Mul,
            bin(BinaryOp::Add, bin(BinaryOp::Mul, outer, p(2)), wrapped),
            p(1),
        ),
        inner,
    );
    let kernel = Kernel::map(
        "take",
        vec![indices.dtype()],
        vec![DType::Int64; 3],
        Expr::load(0, a.dtype(), addr),
    );
    let mut k = kernel;
    k.raws = vec![a.dtype()];
    let flat_out = out.reshape(&[pre as isize, nidx as isize, post as isize])?;
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&idx_view],
        raws: &[&src],
        params: vec![
            Scalar::Int64((nidx * post) as i64),
            Scalar::Int64(post as i64),
            Scalar::Int64(n_axis as i64),
        ],
        outs: vec![Some(&flat_out)],
        device: Some(&device),
        shape: Some(&[pre, nidx, post]),
    }
    .run()?;
    Ok(out)
}

impl Array {
    /// `a.take(indices, axis)`; see [`take`].
    ///
    /// # Errors
    /// As [`take`].
    pub fn take(&self, indices: &Array, axis: Option<isize>) -> Result<Array> {
        take(self, indices, axis)
    }
}
