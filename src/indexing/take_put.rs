//! `take` and `put` (gather and scatter IR kernels) with NumPy's `mode`, and
//! `take_along_axis`/`put_along_axis`.

use super::{check_bounds, check_index_dtype, detached, gather, scatter, scatter_target};
use crate::array::{same_device, Array};
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::{normalize_axis, Layout};
use cupy_core::promote::{can_cast, Casting};
use cupy_core::scalar::Scalar;

/// NumPy's `mode=` of `take`, `put`, `choose` and `ravel_multi_index`: what an index outside
/// `-n..n` does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexMode {
    /// An `IndexOutOfBounds` error, nothing written (`'raise'`, the default); negative indices
    /// count from the end.
    #[default]
    Raise,
    /// Wrapped around modulo `n` (`'wrap'`).
    Wrap,
    /// Clipped to `0..n` (`'clip'`; a negative index becomes 0).
    Clip,
}

impl IndexMode {
    /// NumPy's mode name.
    pub fn name(self) -> &'static str {
        match self {
            IndexMode::Raise => "raise",
            IndexMode::Wrap => "wrap",
            IndexMode::Clip => "clip",
        }
    }

    /// Parses `'raise'`, `'wrap'` or `'clip'`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another name.
    pub fn parse(s: &str) -> Result<IndexMode> {
        match s {
            "raise" => Ok(IndexMode::Raise),
            "wrap" => Ok(IndexMode::Wrap),
            "clip" => Ok(IndexMode::Clip),
            _ => Err(Error::invalid(
                "mode",
                format!("clipmode must be one of 'clip', 'raise', or 'wrap' (got {s:?})"),
            )),
        }
    }

    /// The `Int64` position in `0..n` of index `j` (an expression of the index's own dtype)
    /// under this mode (`Raise`: the index was checked, negative ones count from the end).
    /// `Wrap` and `Clip` take a uint64 index as NumPy does, cast to intp: one of 2^63 or more
    /// is negative (clipped to 0, or wrapped from the end), never a position past the axis.
    pub(crate) fn position(self, j: Expr, n: Expr) -> Expr {
        let t = j.ty;
        let may_be_negative = t.is_signed_integer() || t == DType::UInt64;
        match self {
            IndexMode::Raise => super::get::wrap_native(j, n),
            IndexMode::Wrap => Expr::binary(BinaryOp::Mod, j.cast(DType::Int64), n),
            IndexMode::Clip => {
                let j64 = j.cast(DType::Int64);
                let lo = if may_be_negative {
                    Expr::select(
                        Expr::binary(BinaryOp::Lt, j64.clone(), Expr::constant(Scalar::Int64(0))),
                        Expr::constant(Scalar::Int64(0)),
                        j64,
                    )
                } else {
                    j64
                };
                let last = Expr::binary(BinaryOp::Sub, n, Expr::constant(Scalar::Int64(1)));
                Expr::binary(BinaryOp::Min, lo, last)
            }
        }
    }

    /// The checks of this mode for `indices` into an axis of length `n`: bounds for `Raise`, a
    /// non-empty axis for the others (when there are indices).
    pub(crate) fn check(self, op: &str, indices: &Array, n: usize, axis: usize) -> Result<()> {
        match self {
            IndexMode::Raise => check_bounds(op, indices, n, axis),
            _ if n == 0 && indices.size() > 0 => Err(Error::IndexError {
                op: op.into(),
                msg: "cannot do a non-empty take from an empty axes.".into(),
            }),
            _ => Ok(()),
        }
    }
}

/// Keyword arguments of [`take_with`]: NumPy's `axis=` (default `None`: index the flattened
/// array), `mode=` and `out=`. An axis or a mode converts into it: `a.take_with(&idx, 0)`.
#[derive(Clone, Debug, Default)]
pub struct Take {
    /// The axis to gather along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
    /// Out-of-bounds indices (`mode=`, default `'raise'`).
    pub mode: IndexMode,
    /// An array to write the result into (`out=`), returned: it must have the result's shape,
    /// and a dtype that casts to `a`'s under NumPy's `safe` rule (see [`take_with`]).
    pub out: Option<Array>,
}
axis_options!(Take);

impl From<IndexMode> for Take {
    fn from(mode: IndexMode) -> Take {
        Take {
            mode,
            ..Default::default()
        }
    }
}

/// `numpy.take(a, indices)`: elements of the flattened `a` at `indices` (shape
/// `indices.shape`). Negative indices count from the end (NumPy's default `mode='raise'`).
///
/// # Errors
/// [`Error::TypeError`] for non-integer indices (NumPy: cannot cast safely to intp);
/// [`Error::IndexOutOfBounds`] naming the first offending index (checked on the device by the
/// gather kernel itself, which records an out-of-range index in a flag read once afterwards:
/// one synchronisation); device errors.
pub fn take(a: &Array, indices: &Array) -> Result<Array> {
    take_with(a, indices, Take::default())
}

/// `numpy.take(a, indices, axis=..., out=..., mode=...)`: elements of `a` at `indices` along
/// `axis`; the result has shape `a.shape[:axis] + indices.shape + a.shape[axis+1:]` and `a`'s
/// dtype (a 0-d `a` counts as 1-d, as NumPy's).
///
/// With `out`: NumPy 2.2's `PyArray_TakeFrom`, which gathers into a buffer of `a`'s dtype and
/// writes it back into `out` (returned). `out` must have exactly the result's shape (any
/// strides), and its dtype must cast to `a`'s under the `safe` rule (NumPy's check of the
/// buffer): `out` of `a`'s dtype, or narrower, takes the values cast as the write-back casts
/// them (`unsafe`: a float64 `a` into a float32 or bool `out`, int32 into int16, wrapping),
/// while a wider or other-kind `out` (an int64 `out` of int32 data, complex of real data) is
/// refused. `out` may be `a` itself; nothing is written when an error is returned.
///
/// # Errors
/// As [`take`]; [`Error::AxisOutOfRange`]; [`Error::ShapeMismatch`] for an `out` of another
/// shape (NumPy's ValueError "output array does not match result of ndarray.take");
/// [`Error::TypeError`] for an `out` dtype that does not cast safely to `a`'s.
pub fn take_with(a: &Array, indices: &Array, opts: impl Into<Take>) -> Result<Array> {
    let Take { axis, mode, out } = opts.into();
    let r = take_new(a, indices, axis, mode, out.as_ref())?;
    match out {
        Some(o) => {
            let r = if r.dtype() == o.dtype() {
                r
            } else {
                r.astype(o.dtype())?
            };
            o.copy_from(&r)?;
            Ok(o)
        }
        None => Ok(r),
    }
}

/// Whether `a` is a broadcast view (an axis longer than 1 with stride 0): NumPy's read-only
/// output arrays.
fn broadcast_view(a: &Array) -> bool {
    let l = a.layout();
    l.shape
        .iter()
        .zip(&l.strides)
        .any(|(&d, &s)| d > 1 && s == 0)
}

/// The gather of [`take_with`] into a new array, `dest` (the `out=` to be written) checked
/// against its shape and dtype before anything runs.
fn take_new(
    a: &Array,
    indices: &Array,
    axis: Option<isize>,
    mode: IndexMode,
    dest: Option<&Array>,
) -> Result<Array> {
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
        // NumPy's take counts a 0-d array as 1-d when an axis is given.
        Some(ax) if a.ndim() == 0 => (a.reshape(&[1])?, normalize_axis(op, ax, 1)?),
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
    if let Some(d) = dest {
        same_device(op, [a, d])?;
        if broadcast_view(d) {
            return Err(Error::invalid(
                op,
                "out: output array is read-only (a broadcast view)",
            ));
        }
        if d.shape() != out_shape {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: out_shape,
                rhs: d.shape().to_vec(),
            });
        }
        if !can_cast(d.dtype(), a.dtype(), Casting::Safe) {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![d.dtype(), a.dtype()],
                msg: format!(
                    "out: cannot cast array data from {} to {} according to the rule 'safe'",
                    d.dtype(),
                    a.dtype()
                ),
            });
        }
    }
    let out = Array::empty_on(&device, &out_shape, a.dtype())?;
    // mode='raise' with a non-empty result: the bounds check folded into the gather (a flag
    // read once afterwards) instead of a min/max pass over the indices before it.
    let fold = mode == IndexMode::Raise && out.size() > 0 && super::foldable_check(indices, n_axis);
    if !fold {
        mode.check(op, indices, n_axis, ax)?;
    }
    if out.size() == 0 {
        return Ok(out);
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
    let run = |fold: bool| -> Result<bool> {
        let p = |k: usize| Expr::param(k, DType::Int64);
        let bin = Expr::binary;
        let i = Expr::index();
        // Params: nidx*post, post, n_axis.
        let j = Expr::input(0, indices.dtype());
        let (wrapped, bad) = if fold {
            let (pos, bad) = super::checked_position(j, p(2));
            (pos, Some(bad))
        } else {
            (mode.position(j, p(2)), None)
        };
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
        let mut k = Kernel::map(
            "take",
            vec![indices.dtype()],
            vec![DType::Int64; 3],
            Expr::load(0, a.dtype(), addr),
        );
        k.raws = vec![a.dtype()];
        let flag = match bad {
            Some(bad) => Some(super::arm_flag(op, &mut k, bad, indices)?),
            None => None,
        };
        let flat_out = out.reshape(&[pre as isize, nidx as isize, post as isize])?;
        let mut raws = vec![&src];
        raws.extend(flag.as_ref());
        Elementwise {
            op,
            kernel: &k,
            inputs: &[&idx_view],
            raws: &raws,
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
        flag.as_ref().map_or(Ok(false), super::flag_set)
    };
    if run(fold)? {
        // Some index is out of range: the reduction's check names it (NumPy's IndexError);
        // should it find none, the unchecked gather runs again.
        mode.check(op, indices, n_axis, ax)?;
        run(false)?;
    }
    Ok(out)
}
routine!(
    take as "cupy.take / ndarray.take",
    Indexing,
    probe: gather,
    notes: "gather as one IR kernel; mode raise (bounds checked in the gather, one flag read), wrap, clip; out= (NumPy 2.2's safe-cast rule)"
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
    put_with(a, indices, values, IndexMode::Raise)
}

/// `numpy.put(a, indices, values, mode=...)`: as [`put`], out-of-bounds indices handled by
/// `mode`.
///
/// # Errors
/// As [`put`]; [`Error::IndexError`] for a non-empty `indices` into an empty `a` with
/// `Wrap`/`Clip`.
pub fn put_with(a: &Array, indices: &Array, values: &Array, mode: IndexMode) -> Result<()> {
    let op = "put";
    let device = same_device(op, [a, indices, values])?;
    check_index_dtype(op, indices)?;
    if broadcast_view(a) {
        return Err(Error::invalid(
            op,
            "output array is read-only (a broadcast view)",
        ));
    }
    let n = a.size();
    mode.check(op, indices, n, 0)?;
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
    let at = mode.position(Expr::input(0, idx.dtype()), p(0));
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
    notes: "scatter (raw stores) as one IR kernel; put_with: modes raise, wrap, clip; repeated indices: cpu keeps the last value, GPUs one of them"
);

impl Array {
    /// `a.put(indices, values)`; see [`put`].
    ///
    /// # Errors
    /// As [`put`].
    pub fn put(&self, indices: &Array, values: &Array) -> Result<()> {
        put(self, indices, values)
    }
}

/// The index `take_along_axis` and `put_along_axis` apply: `indices` at `axis`, and on every
/// other axis `d` an `arange(shape[d])` shaped to broadcast against it (NumPy's
/// `_make_along_axis_idx`).
fn along_axis_index(
    op: &str,
    arr: &Array,
    indices: &Array,
    axis: Option<isize>,
) -> Result<(Array, Vec<crate::IndexItem>)> {
    if !indices.dtype().is_integer() {
        return Err(Error::IndexError {
            op: op.into(),
            msg: "`indices` must be an integer array".into(),
        });
    }
    let (arr, ax) = match axis {
        None => {
            if indices.ndim() != 1 {
                return Err(Error::invalid(
                    op,
                    "when axis=None, `indices` must have a single dimension.",
                ));
            }
            (arr.reshape(&[-1])?, 0)
        }
        Some(ax) => (arr.clone(), normalize_axis(op, ax, arr.ndim())?),
    };
    if indices.ndim() != arr.ndim() {
        return Err(Error::invalid(
            op,
            format!(
                "`indices` and `arr` must have the same number of dimensions (got {} and {})",
                indices.ndim(),
                arr.ndim()
            ),
        ));
    }
    let mut items = Vec::with_capacity(arr.ndim());
    for d in 0..arr.ndim() {
        if d == ax {
            items.push(crate::IndexItem::Array(indices.clone()));
            continue;
        }
        let n = arr.shape()[d];
        let mut shape = vec![1isize; arr.ndim()];
        shape[d] = n as isize;
        let r =
            Array::arange_on(arr.device(), 0.0, n as f64, 1.0, DType::Int64)?.reshape(&shape)?;
        items.push(crate::IndexItem::Array(r));
    }
    Ok((arr, items))
}

/// `numpy.take_along_axis(arr, indices, axis)`: `arr[..., indices[i, j], ...]` along `axis`
/// (`None`: the flattened array, with 1-d `indices`), `indices` broadcast against `arr` on the
/// other axes; the result has the broadcast shape. Pairs with `argsort`/`argpartition`.
///
/// # Errors
/// [`Error::IndexError`] for non-integer indices; [`Error::InvalidArgument`] when the numbers
/// of dimensions differ; [`Error::IndexOutOfBounds`]; [`Error::AxisOutOfRange`].
pub fn take_along_axis(arr: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "take_along_axis";
    let (arr, items) = along_axis_index(op, arr, indices, axis)?;
    arr.get_as(op, &items)
}
routine!(take_along_axis, Indexing, probe: gather, notes: "one gather kernel (Array::get with broadcast aranges)");

/// `numpy.put_along_axis(arr, indices, values, axis)`: `arr[..., indices[i, j], ...] =
/// values` along `axis`, in place; `values` broadcast to the index's shape.
///
/// # Errors
/// As [`take_along_axis`]; [`Error::ShapeMismatch`] when `values` do not broadcast.
pub fn put_along_axis(
    arr: &Array,
    indices: &Array,
    values: &Array,
    axis: Option<isize>,
) -> Result<()> {
    let op = "put_along_axis";
    let (view, items) = along_axis_index(op, arr, indices, axis)?;
    if axis.is_none() && !arr.is_c_contiguous() {
        let flat = arr.copy()?.reshape(&[-1])?;
        flat.set_as(op, &items, values)?;
        return arr.copy_from(
            &flat.reshape(&arr.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?,
        );
    }
    view.set_as(op, &items, values)
}
routine!(put_along_axis, Indexing, probe: |t| Some(scatter(t, None)), notes: "one scatter kernel (Array::set with broadcast aranges)");

impl Array {
    /// `a.put(indices, values, mode=...)`; see [`put_with`].
    ///
    /// # Errors
    /// As [`put_with`].
    pub fn put_with(&self, indices: &Array, values: &Array, mode: IndexMode) -> Result<()> {
        put_with(self, indices, values, mode)
    }
}
