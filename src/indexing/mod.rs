//! Integer-array indexing (gather): `numpy.take` and `a[indices]` along an axis, as one IR
//! kernel with raw loads on every backend.

use crate::array::{same_device, Array};
use crate::launch::Elementwise;
use crate::registry::Need;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`take_with`]: NumPy's `axis=` (default `None`: index the flattened
/// array). An axis converts into it: `a.take_with(&idx, 0)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Take {
    /// The axis to gather along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
}
axis_options!(Take);

/// `numpy.take(a, indices)`: elements of the flattened `a` at `indices` (shape
/// `indices.shape`). Negative indices count from the end (NumPy's default `mode='raise'`).
///
/// # Errors
/// [`Error::TypeError`] for non-integer indices (NumPy: cannot cast safely to intp);
/// [`Error::IndexOutOfBounds`] naming the first offending index (checked on the device before
/// the gather, which costs one synchronisation); device errors.
pub fn take(a: &Array, indices: &Array) -> Result<Array> {
    take_with(a, indices, Take::default())
}

/// `numpy.take(a, indices, axis=...)`: elements of `a` at `indices` along `axis`; the result
/// has shape `a.shape[:axis] + indices.shape + a.shape[axis+1:]` and `a`'s dtype.
///
/// # Errors
/// As [`take`]; [`Error::AxisOutOfRange`].
pub fn take_with(a: &Array, indices: &Array, opts: impl Into<Take>) -> Result<Array> {
    let axis = opts.into().axis;
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
routine!(
    take as "cupy.take / ndarray.take",
    Indexing,
    probe: gather,
    notes: "gather as one IR kernel; bounds checked first (one synchronisation), negative indices wrap"
);

impl Array {
    /// `a.take(indices)` (of the flattened array); see [`take`].
    ///
    /// # Errors
    /// As [`take`].
    pub fn take(&self, indices: &Array) -> Result<Array> {
        take(self, indices)
    }

    /// `a.take(indices, axis=...)`; see [`take_with`].
    ///
    /// # Errors
    /// As [`take_with`].
    pub fn take_with(&self, indices: &Array, opts: impl Into<Take>) -> Result<Array> {
        take_with(self, indices, opts)
    }
}

/// Integer (or bool) indices, or NumPy's `TypeError`.
fn check_index_dtype(op: &str, indices: &Array) -> Result<()> {
    if indices.dtype().is_integer() || indices.dtype().is_bool() {
        return Ok(());
    }
    Err(Error::TypeError {
        op: op.into(),
        dtypes: vec![indices.dtype()],
        msg: format!(
            "cannot cast array data from {} to int64 according to the rule 'safe'",
            indices.dtype()
        ),
    })
}

/// NumPy's `mode='raise'`: every index in `-n..n`, checked (min and max, one synchronisation)
/// before anything is written.
pub(crate) fn check_bounds(op: &str, indices: &Array, n: usize, axis: usize) -> Result<()> {
    if indices.size() == 0 {
        return Ok(());
    }
    let as_i128 = |s: Scalar| match s.cast(DType::Int64) {
        Scalar::Int64(v) if indices.dtype() != DType::UInt64 => v as i128,
        _ => match s.cast(DType::UInt64) {
            Scalar::UInt64(v) => v as i128,
            _ => 0,
        },
    };
    let lo = as_i128(indices.min()?.item()?);
    let hi = as_i128(indices.max()?.item()?);
    // NumPy reports the first offending index; with two candidates, the low one is reported
    // when it is out of range (the scan order of the data is not recovered).
    for v in [lo, hi] {
        if v >= n as i128 || v < -(n as i128) {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: v.clamp(isize::MIN as i128, isize::MAX as i128) as isize,
                axis,
                size: n,
            });
        }
    }
    Ok(())
}

/// A C-contiguous array to scatter into: `a` itself, or a copy to write back afterwards.
pub(crate) fn scatter_target(a: &Array) -> Result<(Array, bool)> {
    if a.is_c_contiguous() {
        Ok((a.clone(), false))
    } else {
        Ok((a.copy()?, true))
    }
}

/// `a` unless it shares memory with `target` (then a copy, so reads see the old values).
pub(crate) fn detached(a: &Array, target: &Array) -> Result<Array> {
    if a.shares_memory_with(target) {
        a.copy()
    } else {
        Ok(a.clone())
    }
}

/// `j < 0 ? j + n : j` for an index of `dtype` read by `e`, as `Int64`.
pub(crate) fn wrapped_index(e: Expr, n: Expr) -> Expr {
    let j = e.cast(DType::Int64);
    Expr::select(
        Expr::binary(BinaryOp::Lt, j.clone(), Expr::constant(Scalar::Int64(0))),
        Expr::binary(BinaryOp::Add, j.clone(), n),
        j,
    )
}

/// `numpy.put(a, indices, values)` (`mode='raise'`): `a.flat[indices[k]] = values[k % len]`
/// for every `k`, in place. Indices count in `a`'s C order (also for a non-contiguous `a`, which
/// is written through a contiguous copy), negative ones from the end; `values` (any shape,
/// flattened) repeat to the number of indices and are cast to `a`'s dtype as NumPy does
/// (`casting='unsafe'`). Empty `indices` or `values` change nothing.
///
/// Repeated indices: NumPy keeps the value of the last occurrence; the cpu backend does the
/// same, GPU backends keep one of the values written (which one is unspecified).
///
/// # Errors
/// [`Error::TypeError`] for non-integer indices; [`Error::IndexOutOfBounds`] (checked before
/// anything is written); [`Error::InvalidArgument`] for a broadcast (read-only) `a`; device
/// errors.
pub fn put(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    let op = "put";
    let device = same_device(op, [a, indices, values])?;
    check_index_dtype(op, indices)?;
    let n = a.size();
    check_bounds(op, indices, n, 0)?;
    if indices.size() == 0 || values.size() == 0 {
        return Ok(());
    }
    let (target, write_back) = scatter_target(a)?;
    let idx = detached(&indices.ravel()?, &target)?;
    let vals = detached(&values.ravel()?, &target)?;
    let vals = if vals.is_c_contiguous() {
        vals
    } else {
        vals.copy()?
    };
    let p = |k: usize| Expr::param(k, DType::Int64);
    let at = wrapped_index(Expr::input(0, idx.dtype()), p(0));
    let value = Expr::load(
        1,
        vals.dtype(),
        Expr::binary(BinaryOp::Mod, Expr::index(), p(1)),
    )
    .cast(a.dtype());
    let k = Kernel {
        name: "put".into(),
        inputs: vec![idx.dtype()],
        outputs: vec![],
        raws: vec![a.dtype(), vals.dtype()],
        params: vec![DType::Int64; 2],
        locals: vec![],
        body: vec![Stmt::StoreRaw {
            raw: 0,
            index: at,
            value,
        }],
    };
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&idx],
        raws: &[&target, &vals],
        params: vec![Scalar::Int64(n as i64), Scalar::Int64(vals.size() as i64)],
        outs: vec![],
        device: Some(&device),
        shape: None,
    }
    .run()?;
    if write_back {
        a.copy_from(&target)?;
    }
    Ok(())
}
routine!(
    put as "cupy.put / ndarray.put",
    Indexing,
    probe: |t| Some(scatter(t, None)),
    notes: "scatter (raw stores) as one IR kernel; mode='raise' only; repeated indices: cpu keeps the last value, GPUs one of them"
);

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
/// rounding). On wgpu only dtypes held in 32-bit words are supported (64-bit types are refused
/// with [`Error::DTypeNotSupported`]: WGSL has only 32-bit atomics). Tuple and slice indices of
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
    notes: "atomic read-modify-write kernel (WGSL has 32-bit atomics only; int64 add is split with carry)"
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
    /// `a.put(indices, values)`; see [`put`].
    ///
    /// # Errors
    /// As [`put`].
    pub fn put(&self, indices: &Array, values: &Array) -> Result<()> {
        put(self, indices, values)
    }

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

/// The registry probe of `take`: a raw load at an integer index.
fn gather(t: DType) -> Option<Need> {
    let mut k = Kernel::map(
        "take",
        vec![DType::Int64],
        vec![],
        Expr::load(0, t, Expr::input(0, DType::Int64)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

/// The registry probe of `put` (a raw write at an integer index) and of `add.at` and the
/// `scatter_*` routines (an atomic update with `op`).
fn scatter(t: DType, op: Option<AtomicOp>) -> Need {
    let (index, value) = (Expr::input(0, DType::Int64), Expr::input(1, t));
    let stmt = match op {
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index,
            value,
        },
        None => Stmt::StoreRaw {
            raw: 0,
            index,
            value,
        },
    };
    Need::Kernel(Kernel {
        name: "scatter".into(),
        inputs: vec![DType::Int64, t],
        outputs: vec![],
        raws: vec![t],
        params: vec![],
        locals: vec![],
        body: vec![stmt],
    })
}
