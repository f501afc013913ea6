//! Index grids and flat/multi-index conversion: `indices`, `ix_`, `ravel_multi_index`,
//! `unravel_index` (elementwise IR kernels of index arithmetic).

use super::take_put::IndexMode;
use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use crate::manipulation::shape::Order;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::{shape_size, SliceItem};
use cupy_core::scalar::Scalar;

/// `numpy.indices(dimensions, dtype)`: an array of shape `(len(dimensions), *dimensions)`
/// whose `d`-th sub-array holds the `d`-th coordinate of each position, on the current device.
///
/// # Errors
/// [`Error::DTypeNotSupported`]; device errors.
pub fn indices(dimensions: &[usize], dtype: DType) -> Result<Array> {
    let device = Device::current()?;
    let mut shape = vec![dimensions.len()];
    shape.extend(dimensions);
    let out = Array::empty_on(&device, &shape, dtype)?;
    if out.size() == 0 {
        return Ok(out);
    }
    for (d, &n) in dimensions.iter().enumerate() {
        let mut s = vec![1isize; dimensions.len()];
        s[d] = n as isize;
        let r = Array::arange_on(&device, 0.0, n as f64, 1.0, dtype)?.reshape(&s)?;
        out.slice(&[SliceItem::Index(d as isize)])?.copy_from(&r)?;
    }
    Ok(out)
}
routine!(indices, Indexing, notes: "one broadcast copy of an arange per axis");

/// `numpy.ix_(*args)`: open-mesh index arrays: the `k`-th 1-d argument reshaped to length 1
/// on every axis but `k` (a boolean argument becomes its `nonzero` indices), so that
/// `a.get(&ix)` picks the cross product.
///
/// # Errors
/// [`Error::InvalidArgument`] for an argument that is not 1-d; [`Error::TypeError`] for a
/// non-integer, non-bool argument.
pub fn ix_(args: &[&Array]) -> Result<Vec<Array>> {
    let n = args.len();
    let mut out = Vec::with_capacity(n);
    for (k, a) in args.iter().enumerate() {
        if a.ndim() != 1 {
            return Err(Error::invalid("ix_", "Cross index must be 1 dimensional"));
        }
        let a = if a.dtype() == DType::Bool {
            super::nonzero::nonzero_rows("ix_", a)?.remove(0)
        } else if a.dtype().is_integer() {
            (*a).clone()
        } else {
            return Err(Error::TypeError {
                op: "ix_".into(),
                dtypes: vec![a.dtype()],
                msg: "Cross index must be an integer or boolean array".into(),
            });
        };
        let mut s = vec![1isize; n];
        s[k] = a.size() as isize;
        out.push(a.reshape(&s)?);
    }
    Ok(out)
}
routine!(ix_, Indexing, notes: "reshaped views (nonzero for a boolean argument)");

/// Element strides of `dims` in `order` (C or F).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` and `dims` when the product of the nonzero
/// dimensions does not fit in int64 (NumPy's ValueError), or for an order other than C/F.
fn order_strides(op: &str, dims: &[usize], order: Order) -> Result<Vec<i64>> {
    let fits = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1i64, |a, &d| {
            i64::try_from(d).ok().and_then(|d| a.checked_mul(d))
        })
        .is_some();
    if !fits {
        return Err(Error::invalid(
            op,
            format!(
                "invalid dims {dims:?}: array size defined by dims is larger than the maximum \
                 possible size"
            ),
        ));
    }
    // Every partial product is at most the (checked) product of the nonzero dimensions.
    let mut st = vec![0i64; dims.len()];
    let mut acc = 1i64;
    let axes: Vec<usize> = match order {
        Order::C => (0..dims.len()).rev().collect(),
        Order::F => (0..dims.len()).collect(),
        _ => return Err(Error::invalid(op, "only 'C' or 'F' order is permitted")),
    };
    for d in axes {
        st[d] = acc;
        acc *= dims[d] as i64;
    }
    Ok(st)
}

/// `x` as an index array: integers as they are, booleans as int64 0/1 (NumPy casts them
/// safely to intp).
fn index_operand(op: &str, x: &Array) -> Result<Array> {
    match x.dtype() {
        DType::Bool => x.astype(DType::Int64),
        t if t.is_integer() => Ok(x.clone()),
        t => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: format!("Cannot cast array data from {t} to int64 according to the rule 'safe'"),
        }),
    }
}

/// `numpy.ravel_multi_index(multi_index, dims, mode, order)`: the flat index (int64) of each
/// coordinate tuple (the arrays of `multi_index` broadcast together) in an array of shape
/// `dims`. `mode` applies to every axis (`Raise`: a coordinate outside `0..dims[d]` is an
/// error; negative coordinates are invalid there, as NumPy).
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong number of arrays, an invalid coordinate (`Raise`), or
/// an order other than C/F; [`Error::TypeError`] for non-integer arrays; [`Error::ShapeMismatch`].
pub fn ravel_multi_index(
    multi_index: &[&Array],
    dims: &[usize],
    mode: IndexMode,
    order: Order,
) -> Result<Array> {
    let op = "ravel_multi_index";
    if multi_index.len() != dims.len() || dims.is_empty() {
        return Err(Error::invalid(
            op,
            format!(
                "parameter multi_index must be a sequence of length {}",
                dims.len()
            ),
        ));
    }
    let st = order_strides(op, dims, order)?;
    let multi_index: Vec<Array> = multi_index
        .iter()
        .map(|x| index_operand(op, x))
        .collect::<Result<_>>()?;
    let multi_index: Vec<&Array> = multi_index.iter().collect();
    for (d, x) in multi_index.iter().enumerate() {
        if mode == IndexMode::Raise && x.size() > 0 {
            let lo = x.min()?.item()?.to_i128();
            let hi = x.max()?.item()?.to_i128();
            if lo < 0 || hi >= dims[d] as i128 {
                return Err(Error::invalid(op, "invalid entry in coordinates array"));
            }
        }
        if mode != IndexMode::Raise && dims[d] == 0 && x.size() > 0 {
            return Err(Error::invalid(
                op,
                "cannot unravel if shape has zero entries (is empty).",
            ));
        }
    }
    let p = |k: usize| Expr::param(k, DType::Int64);
    let mut params = vec![];
    let mut e = Expr::constant(Scalar::Int64(0));
    for (d, x) in multi_index.iter().enumerate() {
        let base = params.len();
        params.extend([Scalar::Int64(dims[d] as i64), Scalar::Int64(st[d])]);
        let j = mode.position(Expr::input(d, x.dtype()), p(base));
        e = Expr::binary(
            BinaryOp::Add,
            e,
            Expr::binary(BinaryOp::Mul, j, p(base + 1)),
        );
    }
    let k = Kernel::map(
        "ravel_multi_index",
        multi_index.iter().map(|x| x.dtype()).collect(),
        vec![DType::Int64; params.len()],
        e,
    );
    Elementwise {
        op,
        kernel: &k,
        inputs: &multi_index,
        raws: &[],
        params,
        outs: vec![None],
        device: None,
        shape: None,
    }
    .run_one()
}
routine!(ravel_multi_index, Indexing, notes: "one index-arithmetic kernel; modes raise, wrap, clip; order C/F");

/// `numpy.unravel_index(indices, shape, order)`: the coordinate arrays (int64, one per axis of
/// `shape`, each of `indices`' shape) of flat indices into an array of `shape`.
///
/// # Errors
/// [`Error::InvalidArgument`] for an index outside `0..prod(shape)` (NumPy's ValueError) or an
/// order other than C/F, or a `shape` whose size does not fit in int64; [`Error::TypeError`]
/// for indices neither integer nor bool (booleans count as 0 and 1, as in NumPy).
pub fn unravel_index(indices: &Array, shape: &[usize], order: Order) -> Result<Vec<Array>> {
    let op = "unravel_index";
    let indices = &index_operand(op, indices)?;
    let st = order_strides(op, shape, order)?;
    let size = shape_size(shape);
    if indices.size() > 0 {
        let lo = indices.min()?.item()?.to_i128();
        let hi = indices.max()?.item()?.to_i128();
        for v in [lo, hi] {
            if v < 0 || v >= size as i128 {
                return Err(Error::invalid(
                    op,
                    format!("index {v} is out of bounds for array with size {size}"),
                ));
            }
        }
    }
    let p = |k: usize| Expr::param(k, DType::Int64);
    let j = Expr::input(0, indices.dtype()).cast(DType::Int64);
    let mut params = vec![];
    let mut body = vec![];
    for (d, &n) in shape.iter().enumerate() {
        let base = params.len();
        params.extend([Scalar::Int64(st[d]), Scalar::Int64(n.max(1) as i64)]);
        body.push(Stmt::Store {
            output: d,
            value: Expr::binary(
                BinaryOp::Mod,
                Expr::binary(BinaryOp::Div, j.clone(), p(base)),
                p(base + 1),
            ),
        });
    }
    let k = Kernel {
        name: "unravel_index".into(),
        inputs: vec![indices.dtype()],
        outputs: vec![DType::Int64; shape.len()],
        raws: vec![],
        params: vec![DType::Int64; params.len()],
        locals: vec![],
        body,
    };
    Elementwise {
        op,
        kernel: &k,
        inputs: &[indices],
        raws: &[],
        params,
        outs: vec![None; shape.len()],
        device: None,
        shape: None,
    }
    .run()
}
routine!(unravel_index, Indexing, notes: "one kernel with an output per axis");

/// `numpy.ndindex(*shape)`: every index of an array of `shape`, in C order, on the host (no
/// device work); one empty index for a 0-d shape, none when an axis is 0.
pub fn ndindex(shape: &[usize]) -> NdIndex {
    NdIndex {
        shape: shape.to_vec(),
        next: (!shape.contains(&0)).then(|| vec![0; shape.len()]),
    }
}
routine!(ndindex, Indexing, notes: "a host iterator of Vec<usize>");

/// The iterator of [`ndindex`].
#[derive(Clone, Debug)]
pub struct NdIndex {
    shape: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for NdIndex {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        // The last axis varies fastest; past the last index there is no next one.
        for d in (0..following.len()).rev() {
            following[d] += 1;
            if following[d] < self.shape[d] {
                self.next = Some(following);
                return Some(current);
            }
            following[d] = 0;
        }
        Some(current)
    }
}

/// `numpy.ndenumerate(a)`: each index of `a` (C order) with its value, read to the host once
/// (`T` must be `a`'s dtype).
///
/// # Errors
/// [`Error::InvalidArgument`] when `T` is not `a`'s dtype (as [`Array::to_vec`]); device errors.
pub fn ndenumerate<T: cupy_core::dtype::Element>(a: &Array) -> Result<Vec<(Vec<usize>, T)>> {
    let values = a.to_vec::<T>()?;
    Ok(ndindex(a.shape()).zip(values).collect())
}
routine!(ndenumerate, Indexing, notes: "read to the host once: Vec<(index, value)>");
