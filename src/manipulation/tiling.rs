//! Repeating, inserting and deleting elements (CuPy's `tile`, `repeat`, `insert`, `delete`,
//! `resize`): `tile`, `resize` and a scalar `repeat` are one copy of a broadcast view; `repeat`
//! with per-element counts, `delete` and `insert` are one gather ([`take_with`]) with indices
//! computed on the host from the arguments (never from the data); `insert` at a scalar index
//! is a concatenation; `trim_zeros` a view after two small reductions. Each routine's registry
//! row is the `routine!` line after it.

use super::join::{concatenate, Concat};
use crate::array::Array;
use crate::indexing::take_with;
use crate::registry::Need;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel};
use cupy_core::layout::{normalize_axis, Layout};

/// The array and axis an `axis=None`-or-axis routine works on (`None`: the flattened array).
fn along(op: &str, a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((a.ravel()?, 0)),
        Some(ax) => Ok((a.clone(), normalize_axis(op, ax, a.ndim())?)),
    }
}

/// The registry probe of the gathering routines: `take`'s raw load at an int64 index.
fn gather_probe(t: DType) -> Option<Need> {
    let mut k = Kernel::map(
        "take",
        vec![DType::Int64],
        vec![],
        Expr::load(0, t, Expr::input(0, DType::Int64)),
    );
    k.raws = vec![t];
    Some(Need::Kernel(k))
}

/// Gathers `idx` along `ax` of `a` (an empty result without a launch).
fn gather(a: &Array, idx: &[i64], ax: usize) -> Result<Array> {
    let mut shape = a.shape().to_vec();
    shape[ax] = idx.len();
    if cupy_core::layout::shape_size(&shape) == 0 {
        return Array::empty_on(a.device(), &shape, a.dtype());
    }
    let i = Array::from_slice_on(a.device(), idx, &[idx.len()])?;
    take_with(a, &i, ax as isize)
}

impl Array {
    /// Repeats each element (`a.repeat(repeats, axis)`): `repeats` has one count (every
    /// element) or one per element along the axis; `axis=None` works on the flattened array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `repeats` has neither 1 nor `len(axis)` counts;
    /// [`Error::AxisOutOfRange`]; device errors.
    pub fn repeat(&self, repeats: &[usize], axis: Option<isize>) -> Result<Array> {
        let op = "repeat";
        // NumPy 2 repeats a 0-d array as the 1-d array of its one element, axis 0 (or -1)
        // included.
        let (src, ax) = if self.ndim() == 0 {
            (
                self.reshape(&[1])?,
                normalize_axis(op, axis.unwrap_or(0), 1)?,
            )
        } else {
            along(op, self, axis)?
        };
        let n = src.shape()[ax];
        // The result's length along the axis, refused before anything is allocated when it
        // (or the whole result) does not fit.
        let total = if repeats.len() == 1 {
            n.checked_mul(repeats[0])
        } else if repeats.len() == n {
            repeats.iter().try_fold(0usize, |t, &r| t.checked_add(r))
        } else {
            return Err(Error::invalid(
                op,
                format!(
                    "operands could not be broadcast together with shape ({n},) ({},)",
                    repeats.len()
                ),
            ));
        };
        let mut shape = src.shape().to_vec();
        shape[ax] = total.ok_or_else(|| {
            Error::invalid(
                op,
                format!(
                    "repeats {repeats:?} along axis {ax} of shape {:?}: the result is too big",
                    src.shape()
                ),
            )
        })?;
        cupy_core::layout::checked_size(op, &shape, src.dtype().itemsize())?;
        if repeats.len() == 1 {
            let r = repeats[0];
            let mut l = src.layout.clone();
            l.shape.insert(ax + 1, r);
            l.strides.insert(ax + 1, 0);
            let shape: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
            return src.with_layout(l).copy()?.reshape(&shape);
        }
        let mut idx: Vec<i64> = Vec::new();
        cupy_core::host::reserve_exact(op, &mut idx, shape[ax], "the host indices")?;
        idx.extend(
            repeats
                .iter()
                .enumerate()
                .flat_map(|(i, &r)| std::iter::repeat_n(i as i64, r)),
        );
        gather(&src, &idx, ax)
    }
}

/// `cupy.repeat(a, repeats, axis)`; the function form of [`Array::repeat`].
///
/// # Errors
/// As [`Array::repeat`].
pub fn repeat(a: &Array, repeats: &[usize], axis: Option<isize>) -> Result<Array> {
    a.repeat(repeats, axis)
}
routine!(
    repeat as "cupy.repeat / ndarray.repeat",
    Manipulation,
    probe: gather_probe,
    notes: "one count: a broadcast copy; per-element counts: one gather"
);

/// `cupy.tile(a, reps)`: `a` repeated `reps[i]` times along each axis (`reps` and `a.shape`
/// are padded with leading 1s to the same length). One copy of a broadcast view.
///
/// # Errors
/// Device errors; [`Error::InvalidArgument`] for a result of more than 64 dimensions.
pub fn tile(a: &Array, reps: &[usize]) -> Result<Array> {
    let d = reps.len().max(a.ndim());
    cupy_core::layout::check_ndim("tile", d)?;
    if d == 0 {
        return a.copy();
    }
    let pad = |v: &[usize]| -> Vec<usize> {
        let mut p = vec![1; d - v.len()];
        p.extend_from_slice(v);
        p
    };
    let (reps, shape) = (pad(reps), pad(a.shape()));
    let mut strides = vec![0isize; d - a.ndim()];
    strides.extend(a.layout.strides.iter());
    let mut l = Layout {
        shape: vec![],
        strides: vec![],
        offset: a.layout.offset,
    };
    for i in 0..d {
        l.shape.extend([reps[i], shape[i]]);
        l.strides.extend([0, strides[i]]);
    }
    let out: Vec<usize> = (0..d)
        .map(|i| {
            reps[i].checked_mul(shape[i]).ok_or_else(|| {
                Error::invalid(
                    "tile",
                    format!(
                        "reps {reps:?} of an array of shape {:?}: the result is too big",
                        a.shape()
                    ),
                )
            })
        })
        .collect::<Result<_>>()?;
    cupy_core::layout::checked_size("tile", &out, a.dtype().itemsize())?;
    let out: Vec<isize> = out.iter().map(|&d| d as isize).collect();
    a.with_layout(l).copy()?.reshape(&out)
}
routine!(tile, Manipulation, notes: "one copy of a broadcast view");

/// `cupy.resize(a, new_shape)`: a new array of `new_shape` filled with the flattened `a`
/// repeated cyclically (zeros when `a` is empty).
///
/// # Errors
/// Device errors.
pub fn resize(a: &Array, new_shape: &[usize]) -> Result<Array> {
    let total = cupy_core::layout::checked_size("resize", new_shape, a.dtype().itemsize())?;
    let shape: Vec<isize> = new_shape.iter().map(|&d| d as isize).collect();
    if a.size() == 0 || total == 0 {
        return Array::zeros_on(a.device(), new_shape, a.dtype());
    }
    let flat = a.ravel()?;
    let reps = total.div_ceil(a.size());
    let t = tile(&flat, &[reps])?;
    super::narrow(&t, 0, 0, total, 1).reshape(&shape)
}
routine!(resize, Manipulation, notes: "one copy of a broadcast view");

/// `cupy.delete(arr, obj, axis)`: a new array without the entries at indices `obj` along
/// `axis` (`None`: of the flattened array). Negative indices count from the end; repeats are
/// deleted once.
///
/// # Errors
/// [`Error::IndexOutOfBounds`]; [`Error::AxisOutOfRange`]; device errors.
pub fn delete(arr: &Array, obj: &[isize], axis: Option<isize>) -> Result<Array> {
    let op = "delete";
    let (src, ax) = delete_operand(arr, axis)?;
    let n = src.shape()[ax];
    let mut keep = vec![true; n];
    for &i in obj {
        let j = if i < 0 { i + n as isize } else { i };
        if j < 0 || j >= n as isize {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: i,
                axis: ax,
                size: n,
            });
        }
        keep[j as usize] = false;
    }
    keep_only(&src, ax, &keep)
}
routine!(delete, Manipulation, probe: gather_probe, notes: "one gather");

/// The entries of `src` along `ax` where `keep` is true (a copy).
fn keep_only(src: &Array, ax: usize, keep: &[bool]) -> Result<Array> {
    let idx: Vec<i64> = (0..keep.len() as i64)
        .filter(|&i| keep[i as usize])
        .collect();
    if idx.len() == keep.len() {
        return src.copy();
    }
    gather(src, &idx, ax)
}

/// `src` and its axis for `delete_*`, refusing a 0-d array.
fn delete_operand(arr: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let (src, ax) = along("delete", arr, axis)?;
    if src.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: "delete".into(),
            axis: 0,
            ndim: 0,
        });
    }
    Ok((src, ax))
}

/// `cupy.delete(arr, mask, axis)` with a boolean `obj`: the entries where `mask` is true
/// removed along `axis` (`None`: of the flattened array).
///
/// # Errors
/// [`Error::InvalidArgument`] unless `mask` has the axis's length; [`Error::AxisOutOfRange`];
/// device errors.
pub fn delete_mask(arr: &Array, mask: &[bool], axis: Option<isize>) -> Result<Array> {
    let (src, ax) = delete_operand(arr, axis)?;
    let n = src.shape()[ax];
    if mask.len() != n {
        return Err(Error::invalid(
            "delete",
            format!(
                "boolean array argument obj to delete must be one dimensional and match the \
                 axis length of {n} (got {} values)",
                mask.len()
            ),
        ));
    }
    let keep: Vec<bool> = mask.iter().map(|&m| !m).collect();
    keep_only(&src, ax, &keep)
}
routine!(
    delete_mask as "cupy.delete (boolean obj)",
    Manipulation,
    probe: gather_probe,
    notes: "one gather"
);

/// `cupy.delete(arr, slice(start, stop, step), axis)`: the entries the slice selects (Python
/// semantics) removed along `axis` (`None`: of the flattened array).
///
/// # Errors
/// [`Error::InvalidArgument`] for a zero step; [`Error::AxisOutOfRange`]; device errors.
pub fn delete_slice(
    arr: &Array,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    axis: Option<isize>,
) -> Result<Array> {
    let (src, ax) = delete_operand(arr, axis)?;
    let n = src.shape()[ax];
    let sel = Layout::contiguous(&[n]).slice(&[cupy_core::layout::SliceItem::Slice {
        start,
        stop,
        step,
    }])?;
    let mut keep = vec![true; n];
    for k in 0..sel.shape[0] {
        keep[(sel.offset as isize + k as isize * sel.strides[0]) as usize] = false;
    }
    keep_only(&src, ax, &keep)
}
routine!(
    delete_slice as "cupy.delete (slice obj)",
    Manipulation,
    probe: gather_probe,
    notes: "one gather"
);

/// `cupy.insert(arr, obj, values, axis)` with a sequence `obj`: `values` (cast to `arr`'s
/// dtype, broadcast to `len(obj)` entries along `axis`) inserted before the indices `obj`
/// (`None`: of the flattened array; negative indices count from the end; equal indices keep
/// the order of `values`). A one-element `obj` inserts all of `values` there, as NumPy:
/// `values.shape[axis]` entries (after prepending length-1 axes to `arr.ndim`).
///
/// # Errors
/// [`Error::IndexOutOfBounds`] for an index outside `[-N, N]`; [`Error::ShapeMismatch`] when
/// `values` does not broadcast; [`Error::AxisOutOfRange`]; device errors.
pub fn insert(arr: &Array, obj: &[isize], values: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "insert";
    if let [index] = obj {
        // NumPy: one index in a sequence inserts `values` as a block of
        // `values.shape[axis]` entries (`np.insert([0, 1], [1], [7, 8])` is `[0, 7, 8, 1]`).
        return insert_block(arr, *index, values, axis, false);
    }
    let (src, ax) = along(op, arr, axis)?;
    if src.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: op.into(),
            axis: 0,
            ndim: 0,
        });
    }
    let n = src.shape()[ax];
    let mut idx = Vec::with_capacity(obj.len());
    for &i in obj {
        let j = if i < 0 { i + n as isize } else { i };
        if j < 0 || j > n as isize {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: i,
                axis: ax,
                size: n,
            });
        }
        idx.push(j as usize);
    }
    let k = idx.len();
    let mut target = src.shape().to_vec();
    target[ax] = k;
    let mut v = values.astype(src.dtype())?;
    while v.ndim() < src.ndim() {
        v = v.expand_dims(0)?;
    }
    let v = v.broadcast_to(&target).map_err(|_| Error::ShapeMismatch {
        op: op.into(),
        lhs: values.shape().to_vec(),
        rhs: target.clone(),
    })?;
    // Final positions of the new entries (NumPy: stable order, then += arange).
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by_key(|&i| idx[i]);
    let mut pos = vec![0usize; k];
    for (rank, &i) in order.iter().enumerate() {
        pos[i] = idx[i] + rank;
    }
    let total = n + k;
    let mut perm = vec![-1i64; total];
    for (i, &p) in pos.iter().enumerate() {
        perm[p] = (n + i) as i64;
    }
    for (next, p) in perm.iter_mut().filter(|p| **p < 0).enumerate() {
        *p = next as i64;
    }
    let cat = concatenate(
        &[&src, &v],
        Concat {
            axis: Some(ax as isize),
            dtype: None,
        },
    )?;
    gather(&cat, &perm, ax)
}
routine!(
    insert,
    Manipulation,
    probe: gather_probe,
    notes: "a sequence of indices; one gather"
);

/// `cupy.insert(arr, index, values, axis)` with a scalar `index`: `values` (cast to `arr`'s
/// dtype; its first axis becomes `axis`, as NumPy does for a scalar index) inserted before
/// `index` along `axis` (`None`: of the flattened array). One allocation, three copies.
///
/// # Errors
/// [`Error::IndexOutOfBounds`] for an index outside `[-N, N]`; [`Error::ShapeMismatch`] when
/// `values` does not broadcast; [`Error::AxisOutOfRange`]; device errors.
pub fn insert_at(arr: &Array, index: isize, values: &Array, axis: Option<isize>) -> Result<Array> {
    insert_block(arr, index, values, axis, true)
}
routine!(
    insert_at as "cupy.insert (scalar index)",
    Manipulation,
    notes: "one strided copy per part"
);

/// `values` inserted as a block before `index` along `axis`: with `first_to_axis` (a scalar
/// index) `values`' first axis becomes `axis`, else (a one-element sequence) the block is
/// `values.shape[axis]` long, as NumPy's `insert`.
fn insert_block(
    arr: &Array,
    index: isize,
    values: &Array,
    axis: Option<isize>,
    first_to_axis: bool,
) -> Result<Array> {
    let op = "insert";
    let (src, ax) = along(op, arr, axis)?;
    if src.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: op.into(),
            axis: 0,
            ndim: 0,
        });
    }
    let n = src.shape()[ax];
    let j = if index < 0 { index + n as isize } else { index };
    if j < 0 || j > n as isize {
        return Err(Error::IndexOutOfBounds {
            op: op.into(),
            index,
            axis: ax,
            size: n,
        });
    }
    let j = j as usize;
    let mut v = values.astype(src.dtype())?;
    while v.ndim() < src.ndim() {
        v = v.expand_dims(0)?;
    }
    if first_to_axis {
        v = v.moveaxis(&[0], &[ax as isize])?;
    }
    let mut target = src.shape().to_vec();
    target[ax] = v.shape()[ax];
    let v = v.broadcast_to(&target).map_err(|_| Error::ShapeMismatch {
        op: op.into(),
        lhs: values.shape().to_vec(),
        rhs: target.clone(),
    })?;
    let (head, tail) = (
        super::narrow(&src, ax, 0, j, 1),
        super::narrow(&src, ax, j, n - j, 1),
    );
    concatenate(
        &[&head, &v, &tail],
        Concat {
            axis: Some(ax as isize),
            dtype: None,
        },
    )
}

/// `cupy.trim_zeros(filt, trim, axis)`: `filt` without its leading (`trim` "f"), trailing
/// ("b") or both ("fb") zeros: along every axis ([`Axes::All`](crate::Axes::All), NumPy's
/// `axis=None`: the bounding box of the nonzero elements) or along one axis; an all-zero array
/// gives length 0 on those axes. A view. Where the zeros end depends on the data: a few small
/// reductions and one synchronisation per axis.
///
/// # Errors
/// [`Error::InvalidArgument`] for a `trim` other than "f", "b", "fb", "bf" (any case), or
/// several axes; [`Error::AxisOutOfRange`]; device errors.
pub fn trim_zeros(filt: &Array, trim: &str, axis: impl Into<crate::Axes>) -> Result<Array> {
    let op = "trim_zeros";
    let t = trim.to_ascii_lowercase();
    if !["fb", "bf", "f", "b"].contains(&t.as_str()) {
        return Err(Error::invalid(
            op,
            format!("unexpected character(s) in `trim`: {trim:?}"),
        ));
    }
    let nd = filt.ndim();
    let axes: Vec<usize> = match axis.into() {
        crate::Axes::All => (0..nd).collect(),
        crate::Axes::Some(v) if v.len() == 1 => vec![normalize_axis(op, v[0], nd)?],
        crate::Axes::Some(v) => {
            return Err(Error::invalid(
                op,
                format!("axis must be None or one axis, got {v:?}"),
            ))
        }
    };
    if nd == 0 {
        return Ok(filt.clone());
    }
    if filt.size() == 0 {
        return Ok(axes
            .iter()
            .fold(filt.clone(), |a, &ax| super::narrow(&a, ax, 0, 0, 1)));
    }
    let mask = if filt.dtype().is_bool() {
        filt.clone()
    } else {
        crate::math::logic::not_equal(filt, 0)?
    };
    let mut out = filt.clone();
    for &ax in &axes {
        let n = filt.shape()[ax];
        // Along `ax`: does any element of that slice differ from zero?
        let others: Vec<isize> = (0..nd).filter(|&d| d != ax).map(|d| d as isize).collect();
        let m = if others.is_empty() {
            mask.clone()
        } else {
            crate::statistics::order::max_with(&mask, crate::Axes::from(others))?
        };
        let rev = super::narrow(&m, 0, n - 1, n, -1);
        let (f, l) = (
            crate::sorting::search::argmax(&m)?,
            crate::sorting::search::argmax(&rev)?,
        );
        let first = f.item()?.to_i128() as usize;
        if !m
            .slice(&[cupy_core::layout::SliceItem::Index(first as isize)])?
            .item()?
            .is_nonzero()
        {
            // All zero: every trimmed axis becomes empty.
            return Ok(axes
                .iter()
                .fold(filt.clone(), |a, &ax| super::narrow(&a, ax, 0, 0, 1)));
        }
        let last = n - 1 - l.item()?.to_i128() as usize;
        let lo = if t.contains('f') { first } else { 0 };
        let hi = if t.contains('b') { last + 1 } else { n };
        out = super::narrow(&out, ax, lo, hi - lo, 1);
    }
    Ok(out)
}
routine!(
    trim_zeros,
    Manipulation,
    notes: "a view; one synchronisation per axis"
);
