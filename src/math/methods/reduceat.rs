//! `ufunc.reduceat`: an in-order fold per row and segment, the segments computed on the host
//! from the indices (see the parent module).

use super::accumulate::{check_out, scalar_error, UfuncAccumulate};
use super::{axis_last, check_binary, fold_step, one_axis, reduce_loop, write_out};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::options::Loop;
use crate::math::ufunc::Ufunc;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;

impl Ufunc {
    /// `numpy.<ufunc>.reduceat(a, indices)` along axis 0. See [`Ufunc::reduceat_with`].
    ///
    /// # Errors
    /// As [`Ufunc::reduceat_with`].
    pub fn reduceat(&self, a: &Array, indices: &Array) -> Result<Array> {
        reduceat(self, a, indices, &UfuncAccumulate::default())
    }

    /// `numpy.<ufunc>.reduceat(a, indices, axis=..., dtype=..., out=...)`: for each `i`, the
    /// reduction of `a[indices[i]:indices[i+1]]` along `axis` (to the end for the last index),
    /// or `a[indices[i]]` where `indices[i] >= indices[i+1]`. The result has `len(indices)`
    /// along `axis`. The indices (a 1-D integer array) are read on the host (one
    /// synchronisation).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] for an index outside `0..a.shape[axis]` (NumPy's
    /// `IndexError`); [`Error::TypeError`] for non-integer indices or a 0-d array;
    /// [`Error::InvalidArgument`] for indices of more than one dimension; as
    /// [`Ufunc::accumulate_with`].
    pub fn reduceat_with(
        &self,
        a: &Array,
        indices: &Array,
        opts: impl Into<UfuncAccumulate>,
    ) -> Result<Array> {
        reduceat(self, a, indices, &opts.into())
    }
}

/// `numpy.<u>.reduceat(a, indices, **opts)` (see [`Ufunc::reduceat_with`]).
pub(crate) fn reduceat(
    u: &Ufunc,
    a: &Array,
    indices: &Array,
    opts: &UfuncAccumulate,
) -> Result<Array> {
    check_binary(u, "reduceat")?;
    let op = format!("{}.reduceat", u.name());
    let op = op.as_str();
    if a.ndim() == 0 {
        return Err(scalar_error(op, "reduceat", a));
    }
    if !indices.dtype().is_integer() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![indices.dtype()],
            msg: format!(
                "indices must be integers (cannot cast {} to int64 according to the rule 'safe')",
                indices.dtype()
            ),
        });
    }
    if indices.ndim() > 1 {
        return Err(Error::invalid(
            op,
            format!(
                "object too deep for desired array (indices of shape {:?}; reduceat takes 1-D indices)",
                indices.shape()
            ),
        ));
    }
    let ax = one_axis(op, opts.axis, a)?;
    let lp = reduce_loop(
        u,
        "reduceat",
        a.dtype(),
        opts.dtype,
        opts.out.as_ref().map(|o| o.dtype()),
    )?;
    let n = a.shape()[ax];
    let idx: Vec<i64> = indices.reshape(&[-1])?.astype(DType::Int64)?.to_vec()?;
    if let Some(&bad) = idx.iter().find(|&&i| i < 0 || i as usize >= n) {
        return Err(Error::IndexOutOfBounds {
            op: format!("{op} (index {bad} out-of-bounds in [0, {n}))"),
            index: bad as isize,
            axis: ax,
            size: n,
        });
    }
    let nidx = idx.len();
    let mut out_shape = a.shape().to_vec();
    out_shape[ax] = nidx;
    check_out(op, opts.out.as_ref(), &out_shape)?;
    let res = if nidx == 0 || a.size() == 0 {
        Array::empty_on(a.device(), &out_shape, lp.output)?
    } else {
        // Segment k: its start and length (1 where the next index does not exceed it).
        let mut seg = Vec::with_capacity(2 * nidx);
        for k in 0..nidx {
            let len = match idx.get(k + 1) {
                Some(&next) if next > idx[k] => next - idx[k],
                Some(_) => 1,
                None => n as i64 - idx[k],
            };
            seg.extend([idx[k], len]);
        }
        let maxlen = seg.iter().skip(1).step_by(2).copied().max().unwrap_or(1);
        ordered_segments(u, a, ax, &lp, &seg, maxlen)?
    };
    match &opts.out {
        Some(out) => write_out(op, &res, out),
        None => Ok(res),
    }
}

/// One thread per (row, segment): the in-order fold of the segment's elements.
fn ordered_segments(
    u: &Ufunc,
    a: &Array,
    ax: usize,
    lp: &Loop,
    seg: &[i64],
    maxlen: i64,
) -> Result<Array> {
    let n = a.shape()[ax];
    let nidx = seg.len() / 2;
    let (x, inv) = axis_last(a, ax, lp.input)?;
    let rows = a.size() / n;
    let segs = Array::from_slice_on(a.device(), seg, &[seg.len()])?;
    let kernel = reduceat_kernel(u, lp);
    let r = Elementwise {
        op: u.name(),
        kernel: &kernel,
        inputs: &[],
        raws: &[&x, &segs],
        params: vec![
            Scalar::Int64(nidx as i64),
            Scalar::Int64(n as i64),
            Scalar::Int64(maxlen),
        ],
        outs: vec![None],
        device: Some(a.device()),
        shape: Some(&[rows * nidx]),
    }
    .run_one()?;
    let mut moved: Vec<isize> = x.shape()[..x.ndim() - 1]
        .iter()
        .map(|&d| d as isize)
        .collect();
    moved.push(nidx as isize);
    r.reshape(&moved)?.transpose(&inv)
}

/// The kernel of [`ordered_segments`]: raw 0 the `[rows, n]` input in the loop's dtype, raw 1
/// the (start, length) pairs; params `nidx`, `n`, the longest length; element `i` is segment
/// `i % nidx` of row `i / nidx`.
pub(crate) fn reduceat_kernel(u: &Ufunc, lp: &Loop) -> Kernel {
    let t = lp.output;
    let i64 = DType::Int64;
    let bin = Expr::binary;
    let c = |v: i64| Expr::constant(Scalar::Int64(v));
    let p = |k: usize| Expr::param(k, i64);
    // Params: 0 nidx, 1 n, 2 maxlen. Locals: 0 acc, 1 base, 2 len, 3 j, 4 loop counter.
    let (acc, base, len, j, k) = (
        Expr::var(0, t),
        Expr::var(1, i64),
        Expr::var(2, i64),
        Expr::var(3, i64),
        Expr::var(4, i64),
    );
    let two_j = bin(BinaryOp::Mul, j.clone(), c(2));
    let row_start = bin(BinaryOp::Mul, bin(BinaryOp::Div, Expr::index(), p(0)), p(1));
    let at = bin(BinaryOp::Add, base.clone(), k.clone());
    Kernel {
        name: format!("{}_reduceat", u.name()),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![lp.input, i64],
        params: vec![i64; 3],
        locals: vec![t, i64, i64, i64, i64],
        body: vec![
            Stmt::Let {
                var: 3,
                value: bin(BinaryOp::Mod, Expr::index(), p(0)),
            },
            Stmt::Let {
                var: 1,
                value: bin(BinaryOp::Add, row_start, Expr::load(1, i64, two_j.clone())),
            },
            Stmt::Let {
                var: 2,
                value: Expr::load(1, i64, bin(BinaryOp::Add, two_j, c(1))),
            },
            Stmt::Let {
                var: 0,
                value: Expr::load(0, lp.input, base).cast(t),
            },
            Stmt::For {
                var: 4,
                start: c(1),
                end: p(2),
                body: vec![Stmt::If {
                    cond: bin(BinaryOp::Lt, k, len),
                    then_body: vec![Stmt::Assign {
                        var: 0,
                        value: fold_step(u, lp, acc.clone(), Expr::load(0, lp.input, at)),
                    }],
                    else_body: vec![],
                }],
            },
            Stmt::Store {
                output: 0,
                value: acc,
            },
        ],
    }
}
