//! `ufunc.at` (`add_at`, `maximum_at`, `minimum_at`) and CuPy's `scatter_add/max/min`: atomic
//! read-modify-write kernels, every occurrence of a repeated index applied.

use super::{check_bounds, detached, scatter, scatter_target, wrapped_index};
use crate::array::{same_device, Array};
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// `a[(:,)*axis + (indices,)] op= values` with every occurrence of a repeated index applied
/// (NumPy's `ufunc.at`, CuPy's `cupyx.scatter_add`/`scatter_max`/`scatter_min`), in place.
/// `values` broadcast to `a.shape[:axis] + indices.shape + a.shape[axis+1:]` (the shape
/// `take(a, indices, axis)` returns) and are cast to `a`'s dtype first (`casting='unsafe'`).
pub(crate) fn scatter_op(
    op: &str,
    aop: AtomicOp,
    a: &Array,
    indices: &Array,
    values: &Array,
    axis: Option<isize>,
) -> Result<()> {
    let device = same_device(op, [a, indices, values])?;
    if !(indices.dtype().is_integer() || indices.dtype().is_bool()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![indices.dtype()],
            msg: "arrays used as indices must be of integer (or boolean) type".into(),
        });
    }
    let (full, ax) = match axis {
        None => (a.ravel()?, 0),
        Some(ax) => (a.clone(), normalize_axis(op, ax, a.ndim())?),
    };
    let shape = full.shape().to_vec();
    let n_axis = shape[ax];
    // A boolean index is a mask along the axis (NumPy's `add.at(a, mask, v)` is `a[mask] += v`
    // per selected element): its positions, never the integers 0 and 1.
    let mask_positions;
    let indices = if indices.dtype().is_bool() {
        if indices.shape() != [n_axis] {
            return Err(super::index::index_error(
                op,
                format!(
                    "boolean index did not match indexed array along axis {ax}; size of axis is {n_axis} but the boolean index has shape {:?}",
                    indices.shape()
                ),
            ));
        }
        mask_positions = super::nonzero::flatnonzero(indices)?;
        &mask_positions
    } else {
        indices
    };
    let post: usize = shape[ax + 1..].iter().product();
    let nidx = indices.size();
    let mut out_shape: Vec<usize> = shape[..ax].to_vec();
    out_shape.extend(indices.shape());
    out_shape.extend(&shape[ax + 1..]);
    if values.broadcast_to(&out_shape).is_err() {
        return Err(Error::ShapeMismatch {
            op: format!("{op} (values are not broadcastable to the indexed shape)"),
            lhs: values.shape().to_vec(),
            rhs: out_shape,
        });
    }
    check_bounds(op, indices, n_axis, ax)?;
    if out_shape.iter().product::<usize>() == 0 {
        return Ok(());
    }
    // The flat target, written through a contiguous copy when `a` is not contiguous (or when
    // `axis=None` needed a copy to flatten it).
    let (target, write_back) = scatter_target(a)?;
    let idx = indices.reshape(&[nidx as isize])?;
    let idx = detached(&idx, &target)?;
    let idx = if idx.is_c_contiguous() {
        idx
    } else {
        idx.copy()?
    };
    let vals = detached(values, &target)?;
    // Iteration space: the indexed shape; the indices viewed over it with zero strides on the
    // axes of `a`.
    let it_shape = if out_shape.is_empty() {
        vec![1]
    } else {
        out_shape.clone()
    };
    let mut strides = vec![0isize; ax];
    let mut s = 1isize;
    let mut idx_strides = vec![0isize; indices.ndim()];
    for d in (0..indices.ndim()).rev() {
        idx_strides[d] = s;
        s *= indices.shape()[d] as isize;
    }
    strides.extend(idx_strides);
    strides.extend(vec![0isize; shape.len() - ax - 1]);
    if out_shape.is_empty() {
        strides = vec![0];
    }
    let idx_view = Array::from_parts(
        device.clone(),
        idx.buffer.clone(),
        Layout {
            shape: it_shape.clone(),
            strides,
            offset: idx.layout.offset,
        },
    )?;
    let vals = vals.broadcast_to(&it_shape)?;
    let i64e = |e: Expr| e.cast(DType::Int64);
    let p = |k: usize| Expr::param(k, DType::Int64);
    let bin = Expr::binary;
    let i = Expr::index();
    // Params: nidx*post, post, n_axis.
    let wrapped = wrapped_index(i64e(Expr::input(0, idx.dtype())), p(2));
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
    let k = Kernel {
        name: op.replace('.', "_"),
        inputs: vec![idx.dtype(), vals.dtype()],
        outputs: vec![],
        raws: vec![a.dtype()],
        params: vec![DType::Int64; 3],
        locals: vec![],
        body: vec![Stmt::AtomicRaw {
            raw: 0,
            op: aop,
            index: addr,
            value: Expr::input(1, vals.dtype()).cast(a.dtype()),
            old: None,
        }],
    };
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&idx_view, &vals],
        raws: &[&target],
        params: vec![
            Scalar::Int64((nidx * post) as i64),
            Scalar::Int64(post as i64),
            Scalar::Int64(n_axis as i64),
        ],
        outs: vec![],
        device: Some(&device),
        shape: Some(&it_shape),
    }
    .run()?;
    if write_back {
        a.copy_from(&target)?;
    }
    Ok(())
}

/// `numpy.add.at(a, indices, values)` for an integer-array index into axis 0: adds `values`
/// (broadcast to `indices.shape + a.shape[1:]`, cast to `a`'s dtype) at `a[indices]`, every
/// occurrence of a repeated index counted, in place, as one kernel of atomic adds.
///
/// Integer sums wrap; bool "sums" are logical or. Float sums of repeated indices are added in
/// an unspecified order on GPUs (results may differ from NumPy's sequential order by
/// rounding). On wgpu int64/uint64/float64 updates are 64-bit atomics where the adapter has
/// them, else pairs of 32-bit words (carry adds; a spin lock for float64: see
/// docs/differences.md); complex is refused with [`Error::DTypeNotSupported`]. Tuple and slice indices of
/// NumPy's `ufunc.at` are not supported: use [`scatter_add`] with an axis.
///
/// # Errors
/// [`Error::TypeError`] for non-integer indices; [`Error::IndexOutOfBounds`] (checked before
/// anything is written); [`Error::ShapeMismatch`] when `values` do not broadcast; dtype and
/// device errors.
pub fn add_at(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    scatter_op("add.at", AtomicOp::Add, a, indices, values, Some(0))
}
routine!(
    add_at as "numpy.add.at (integer-array index, axis 0)",
    Indexing,
    probe: |t| Some(scatter(t, Some(AtomicOp::Add))),
    notes: "atomic read-modify-write kernel (wgpu without 64-bit atomics: 32-bit word pairs, carry adds and a spin lock)"
);

/// `numpy.maximum.at(a, indices, values)` (NaN propagates); see [`add_at`].
///
/// # Errors
/// As [`add_at`].
pub fn maximum_at(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    scatter_op("maximum.at", AtomicOp::Max, a, indices, values, Some(0))
}

/// `numpy.minimum.at(a, indices, values)` (NaN propagates); see [`add_at`].
///
/// # Errors
/// As [`add_at`].
pub fn minimum_at(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    scatter_op("minimum.at", AtomicOp::Min, a, indices, values, Some(0))
}
routine!(
    maximum_at as "numpy.maximum.at / minimum.at (integer-array index, axis 0)",
    Indexing,
    probe: |t| Some(scatter(t, Some(AtomicOp::Max))),
    notes: "atomic read-modify-write kernel"
);

/// CuPy's `cupyx.scatter_add(a, slices, value)` for an integer-array index along `axis`
/// (`None`: into the flattened array): `a[(:,)*axis + (indices,)] += values` with repeated
/// indices accumulated (as `numpy.add.at`). `values` broadcast to the shape
/// `take(a, indices, axis)` returns. See [`add_at`] for dtypes and ordering.
///
/// # Errors
/// As [`add_at`]; [`Error::AxisOutOfRange`].
pub fn scatter_add(a: &Array, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
    scatter_op("scatter_add", AtomicOp::Add, a, indices, values, axis)
}
routine!(
    scatter_add as "cupyx.scatter_add (integer-array index along one axis)",
    Indexing,
    probe: |t| Some(scatter(t, Some(AtomicOp::Add))),
    notes: "atomic kernel; float order of repeated indices unspecified"
);

/// CuPy's `cupyx.scatter_max`: as [`scatter_add`] with NumPy's `maximum` (NaN propagates).
///
/// # Errors
/// As [`scatter_add`].
pub fn scatter_max(a: &Array, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
    scatter_op("scatter_max", AtomicOp::Max, a, indices, values, axis)
}

/// CuPy's `cupyx.scatter_min`: as [`scatter_add`] with NumPy's `minimum` (NaN propagates).
///
/// # Errors
/// As [`scatter_add`].
pub fn scatter_min(a: &Array, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
    scatter_op("scatter_min", AtomicOp::Min, a, indices, values, axis)
}
routine!(
    scatter_max as "cupyx.scatter_max / scatter_min",
    Indexing,
    probe: |t| Some(scatter(t, Some(AtomicOp::Max))),
    notes: "atomic kernel"
);

impl Array {
    /// CuPy's `a.scatter_add(indices, values)` along `axis`; see [`scatter_add`].
    ///
    /// # Errors
    /// As [`scatter_add`].
    pub fn scatter_add(&self, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
        scatter_add(self, indices, values, axis)
    }

    /// CuPy's `a.scatter_max(indices, values)` along `axis`; see [`scatter_max`].
    ///
    /// # Errors
    /// As [`scatter_max`].
    pub fn scatter_max(&self, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
        scatter_max(self, indices, values, axis)
    }

    /// CuPy's `a.scatter_min(indices, values)` along `axis`; see [`scatter_min`].
    ///
    /// # Errors
    /// As [`scatter_min`].
    pub fn scatter_min(&self, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
        scatter_min(self, indices, values, axis)
    }
}
