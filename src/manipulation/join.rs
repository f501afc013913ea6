//! Joining arrays (CuPy's `cupy/_manipulation/join.py` and `append`): `concatenate`, `stack`,
//! `hstack`, `vstack`, `dstack`, `column_stack`, `append`. One allocation for the result and
//! one strided copy (`copy_from`) per input into its slice; no host round trip. Each routine's
//! registry row is the `routine!` line after it.

use super::narrow;
use crate::array::{same_device, Array};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::normalize_axis;
use cupy_core::promote::promote_types;

/// Keyword arguments of [`concatenate`]: NumPy's `axis=` (default 0; `None` flattens every
/// input first) and `dtype=` (default: the inputs' promoted dtype; the inputs are cast to it
/// under the `same_kind` rule). An axis converts into it: `concatenate(&[&a, &b], 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Concat {
    /// The axis to join along (`axis=`); `None`: the flattened inputs.
    pub axis: Option<isize>,
    /// The result dtype (`dtype=`); `None`: NumPy's promotion of the inputs' dtypes.
    pub dtype: Option<DType>,
}

impl Default for Concat {
    /// `axis=0`, `dtype=None`.
    fn default() -> Concat {
        Concat {
            axis: Some(0),
            dtype: None,
        }
    }
}
axis_options!(Concat);

/// `cupy.concatenate(arrays, axis=0)`: joins `arrays` along an existing axis (see [`Concat`]).
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) for no arrays, 0-d arrays, differing
/// numbers of dimensions or sizes off the axis, each naming the shapes; [`Error::AxisOutOfRange`];
/// [`Error::TypeError`] when a `dtype=` is not a `same_kind` cast; [`Error::DeviceMismatch`].
pub fn concatenate(arrays: &[&Array], opts: impl Into<Concat>) -> Result<Array> {
    concat_impl("concatenate", arrays, opts.into())
}
routine!(concatenate, Manipulation, notes: "one strided copy per input");

/// `numpy.concat(arrays, axis=0)` (NumPy 2, the array API's name): [`concatenate`], with errors
/// naming `concat`.
///
/// # Errors
/// As [`concatenate`].
pub fn concat(arrays: &[&Array], opts: impl Into<Concat>) -> Result<Array> {
    concat_impl("concat", arrays, opts.into())
}
routine!(concat, Manipulation, notes: "concatenate's array-API name");

fn concat_impl(op: &str, arrays: &[&Array], opts: Concat) -> Result<Array> {
    if arrays.is_empty() {
        return Err(Error::invalid(op, "need at least one array to concatenate"));
    }
    let device = same_device(op, arrays.iter().copied())?;
    let flat: Vec<Array>;
    let (arrays, axis): (Vec<&Array>, isize) = match opts.axis {
        None => {
            flat = arrays.iter().map(|a| a.ravel()).collect::<Result<_>>()?;
            (flat.iter().collect(), 0)
        }
        Some(ax) => (arrays.to_vec(), ax),
    };
    let first = arrays[0];
    if first.ndim() == 0 {
        return Err(Error::invalid(
            op,
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    let ax = normalize_axis(op, axis, first.ndim())?;
    let mut shape = first.shape().to_vec();
    shape[ax] = 0;
    let mut dtype = first.dtype();
    for (i, a) in arrays.iter().enumerate() {
        if a.ndim() != first.ndim() {
            return Err(Error::invalid(
                op,
                format!(
                    "all the input arrays must have same number of dimensions, but the array at \
                     index 0 has {} dimension(s) (shape {:?}) and the array at index {i} has {} \
                     dimension(s) (shape {:?})",
                    first.ndim(),
                    first.shape(),
                    a.ndim(),
                    a.shape()
                ),
            ));
        }
        for d in 0..first.ndim() {
            if d != ax && a.shape()[d] != first.shape()[d] {
                return Err(Error::invalid(
                    op,
                    format!(
                        "all the input array dimensions except for the concatenation axis must \
                         match exactly, but along dimension {d}, the array at index 0 has size \
                         {} (shape {:?}) and the array at index {i} has size {} (shape {:?})",
                        first.shape()[d],
                        first.shape(),
                        a.shape()[d],
                        a.shape()
                    ),
                ));
            }
        }
        shape[ax] = shape[ax].checked_add(a.shape()[ax]).ok_or_else(|| {
            Error::invalid(
                op,
                format!(
                    "the result is too big: axis {ax} lengths overflow after the array at index \
                     {i} (shape {:?})",
                    a.shape()
                ),
            )
        })?;
        dtype = promote_types(dtype, a.dtype());
    }
    let dtype = opts.dtype.unwrap_or(dtype);
    for a in &arrays {
        if !cupy_core::promote::can_cast_same_kind(a.dtype(), dtype) {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![a.dtype(), dtype],
                msg: format!(
                    "cannot cast array data from {} to {dtype} according to the rule 'same_kind'",
                    a.dtype()
                ),
            });
        }
    }
    let out = Array::empty_on(&device, &shape, dtype)?;
    let mut at = 0;
    for a in &arrays {
        let n = a.shape()[ax];
        if n > 0 && a.size() > 0 {
            narrow(&out, ax, at, n, 1).copy_from(a)?;
        }
        at += n;
    }
    Ok(out)
}

/// `cupy.stack(arrays, axis=0)`: joins arrays of one shape along a new axis `axis` (of the
/// result, negative from the end).
///
/// # Errors
/// [`Error::InvalidArgument`] for no arrays or differing shapes; [`Error::AxisOutOfRange`];
/// as [`concatenate`].
pub fn stack(arrays: &[&Array], axis: isize) -> Result<Array> {
    let op = "stack";
    let first = arrays
        .first()
        .ok_or_else(|| Error::invalid(op, "need at least one array to stack"))?;
    if let Some(a) = arrays.iter().find(|a| a.shape() != first.shape()) {
        return Err(Error::invalid(
            op,
            format!(
                "all input arrays must have the same shape, got {:?} and {:?}",
                first.shape(),
                a.shape()
            ),
        ));
    }
    let ax = normalize_axis(op, axis, first.ndim() + 1)?;
    let ex: Vec<Array> = arrays
        .iter()
        .map(|a| a.expand_dims(ax as isize))
        .collect::<Result<_>>()?;
    concat_impl(
        op,
        &ex.iter().collect::<Vec<_>>(),
        Concat::from(ax as isize),
    )
}
routine!(stack, Manipulation, notes: "one strided copy per input");

/// `cupy.hstack(arrays)`: joins along axis 1 (axis 0 for 1-D inputs); 0-d inputs become 1-D.
///
/// # Errors
/// As [`concatenate`].
pub fn hstack(arrays: &[&Array]) -> Result<Array> {
    let at: Vec<Array> = arrays.iter().map(|a| a.atleast_1d()).collect();
    let axis = if at.first().is_some_and(|a| a.ndim() == 1) {
        0
    } else {
        1
    };
    concat_impl("hstack", &at.iter().collect::<Vec<_>>(), Concat::from(axis))
}
routine!(hstack, Manipulation, notes: "one strided copy per input");

/// `cupy.vstack(arrays)`: joins along axis 0 after [`Array::atleast_2d`] (1-D inputs become
/// rows).
///
/// # Errors
/// As [`concatenate`].
pub fn vstack(arrays: &[&Array]) -> Result<Array> {
    let at: Vec<Array> = arrays.iter().map(|a| a.atleast_2d()).collect();
    concat_impl("vstack", &at.iter().collect::<Vec<_>>(), Concat::from(0))
}
routine!(vstack, Manipulation, notes: "one strided copy per input");

/// `cupy.dstack(arrays)`: joins along axis 2 after [`Array::atleast_3d`].
///
/// # Errors
/// As [`concatenate`].
pub fn dstack(arrays: &[&Array]) -> Result<Array> {
    let at: Vec<Array> = arrays.iter().map(|a| a.atleast_3d()).collect();
    concat_impl("dstack", &at.iter().collect::<Vec<_>>(), Concat::from(2))
}
routine!(dstack, Manipulation, notes: "one strided copy per input");

/// `cupy.column_stack(arrays)`: 1-D (and 0-d) inputs become columns, 2-D inputs are joined as
/// they are, along axis 1.
///
/// # Errors
/// As [`concatenate`].
pub fn column_stack(arrays: &[&Array]) -> Result<Array> {
    let at: Vec<Array> = arrays
        .iter()
        .map(|a| {
            if a.ndim() < 2 {
                a.atleast_2d().t()
            } else {
                (*a).clone()
            }
        })
        .collect();
    concat_impl(
        "column_stack",
        &at.iter().collect::<Vec<_>>(),
        Concat::from(1),
    )
}
routine!(column_stack, Manipulation, notes: "one strided copy per input");

/// `cupy.append(arr, values, axis=None)`: `values` joined after `arr`; with `axis=None` both
/// are flattened first.
///
/// # Errors
/// As [`concatenate`].
pub fn append(arr: &Array, values: &Array, axis: Option<isize>) -> Result<Array> {
    concat_impl(
        "append",
        &[arr, values],
        Concat {
            axis,
            ..Concat::default()
        },
    )
}
routine!(append, Manipulation, notes: "one strided copy per input");

/// One item of [`block`]'s nested lists: an array, or a list of items (`np.block`'s nesting).
#[derive(Clone)]
pub enum Block {
    /// A leaf array.
    Array(Array),
    /// A list, joined along the axis its depth gives (the innermost along the last axis).
    List(Vec<Block>),
}

impl From<&Array> for Block {
    fn from(a: &Array) -> Block {
        Block::Array(a.clone())
    }
}
impl From<Array> for Block {
    fn from(a: Array) -> Block {
        Block::Array(a)
    }
}
impl<T: Into<Block>> From<Vec<T>> for Block {
    fn from(v: Vec<T>) -> Block {
        Block::List(v.into_iter().map(Into::into).collect())
    }
}

/// Checks every leaf lies at the same list depth (`first` records the first leaf's) and no
/// list is empty; returns the largest leaf ndim.
fn block_depth(b: &Block, path: &str, depth: usize, first: &mut Option<usize>) -> Result<usize> {
    match b {
        Block::Array(a) => {
            if let Some(f) = *first {
                if f != depth {
                    return Err(Error::invalid(
                        "block",
                        format!(
                            "List depths are mismatched. First element was at depth {f}, but \
                             there is an element at depth {depth} ({path})"
                        ),
                    ));
                }
            }
            *first = Some(depth);
            Ok(a.ndim())
        }
        Block::List(v) if v.is_empty() => Err(Error::invalid(
            "block",
            format!("List at {path} cannot be empty"),
        )),
        Block::List(v) => {
            let mut nd = 0;
            for (i, c) in v.iter().enumerate() {
                nd = nd.max(block_depth(c, &format!("{path}[{i}]"), depth + 1, first)?);
            }
            Ok(nd)
        }
    }
}

/// `a` with length-1 axes prepended up to `nd` dimensions.
fn lift(a: &Array, nd: usize) -> Result<Array> {
    let mut a = a.clone();
    while a.ndim() < nd {
        a = a.expand_dims(0)?;
    }
    Ok(a)
}

/// The shape (and promoted dtype) of a block at list depth `depth` in a result of `nd` axes.
fn block_shape(b: &Block, depth: usize, list_nd: usize, nd: usize) -> Result<(Vec<usize>, DType)> {
    match b {
        Block::Array(a) => Ok((lift(a, nd)?.shape().to_vec(), a.dtype())),
        Block::List(v) => {
            let ax = nd - list_nd + depth;
            let (mut shape, mut dtype) = block_shape(&v[0], depth + 1, list_nd, nd)?;
            for c in &v[1..] {
                let (s, t) = block_shape(c, depth + 1, list_nd, nd)?;
                if let Some(d) = (0..nd).find(|&d| d != ax && s[d] != shape[d]) {
                    return Err(Error::invalid(
                        "block",
                        format!(
                            "all the input array dimensions except for the concatenation axis \
                             must match exactly, but along dimension {d}, the blocks have shapes \
                             {shape:?} and {s:?}"
                        ),
                    ));
                }
                shape[ax] = shape[ax].checked_add(s[ax]).ok_or_else(|| {
                    Error::invalid(
                        "block",
                        format!(
                            "the result is too big: blocks of shapes {shape:?} and {s:?} along \
                             axis {ax}"
                        ),
                    )
                })?;
                dtype = promote_types(dtype, t);
            }
            Ok((shape, dtype))
        }
    }
}

/// Copies the leaves of `b` into their slices of `out`.
fn block_place(b: &Block, out: &Array, depth: usize, list_nd: usize, nd: usize) -> Result<()> {
    match b {
        Block::Array(a) => {
            if out.size() > 0 {
                out.copy_from(&lift(a, nd)?)?;
            }
            Ok(())
        }
        Block::List(v) => {
            let ax = nd - list_nd + depth;
            let mut at = 0;
            for c in v {
                let (s, _) = block_shape(c, depth + 1, list_nd, nd)?;
                block_place(c, &narrow(out, ax, at, s[ax], 1), depth + 1, list_nd, nd)?;
                at += s[ax];
            }
            Ok(())
        }
    }
}

/// `cupy.block(arrays)`: assembles an array from nested lists of blocks; the innermost lists
/// join along the last axis, the next ones along the one before, ... (arrays get leading
/// length-1 axes up to the result's dimensions). One allocation, one copy per leaf.
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty list, mismatched list depths or block shapes that
/// do not fit; device errors.
pub fn block(arrays: impl Into<Block>) -> Result<Array> {
    let b = arrays.into();
    let mut first = None;
    let max_nd = block_depth(&b, "arrays", 0, &mut first)?;
    let list_nd = first.unwrap_or(0);
    let nd = max_nd.max(list_nd);
    let (shape, dtype) = block_shape(&b, 0, list_nd, nd)?;
    let device = first_leaf(&b).device().clone();
    let out = Array::empty_on(&device, &shape, dtype)?;
    block_place(&b, &out, 0, list_nd, nd)?;
    Ok(out)
}
routine!(block, Manipulation, notes: "one copy per block");

fn first_leaf(b: &Block) -> &Array {
    match b {
        Block::Array(a) => a,
        Block::List(v) => first_leaf(&v[0]),
    }
}
