//! `ufunc.accumulate`: the scan primitive for add/multiply, an in-order fold per row for the
//! rest (see the parent module).

use super::{axis_last, check_binary, fold_step, one_axis, reduce_loop, write_out};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::options::Loop;
use crate::math::ufunc::Ufunc;
use crate::sorting::{cumprod_with, cumsum_with, Scan};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`Ufunc::accumulate_with`] and [`Ufunc::reduceat_with`]
/// (`numpy.add.accumulate(a, axis=0, dtype=None, out=None)`, `reduceat(a, indices, axis=0,
/// dtype=None, out=None)`). An axis converts into it.
#[derive(Clone, Debug, Default)]
pub struct UfuncAccumulate {
    /// The axis (`axis=`, default 0, negative from the end); one axis only, as NumPy.
    pub axis: isize,
    /// The loop's dtype (`dtype=`).
    pub dtype: Option<DType>,
    /// The array to write the result into (`out=`; cast with `casting='unsafe'`), returned.
    pub out: Option<Array>,
}

impl From<isize> for UfuncAccumulate {
    fn from(axis: isize) -> UfuncAccumulate {
        UfuncAccumulate {
            axis,
            ..Default::default()
        }
    }
}
impl From<i32> for UfuncAccumulate {
    fn from(axis: i32) -> UfuncAccumulate {
        (axis as isize).into()
    }
}

impl Ufunc {
    /// `numpy.<ufunc>.accumulate(a)`: the running reduction along axis 0 (`add.accumulate` is
    /// `cumsum`). See [`Ufunc::accumulate_with`].
    ///
    /// # Errors
    /// As [`Ufunc::accumulate_with`].
    pub fn accumulate(&self, a: &Array) -> Result<Array> {
        accumulate(self, a, &UfuncAccumulate::default())
    }

    /// `numpy.<ufunc>.accumulate(a, axis=..., dtype=..., out=...)`: `r[0] = a[0]`,
    /// `r[i] = ufunc(r[i-1], a[i])` along `axis`; an axis converts into the options.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ufunc that is not binary or an `out` of the wrong shape;
    /// [`Error::TypeError`] for a 0-d array ("cannot accumulate on a scalar") or where NumPy has
    /// no `T, T -> T` loop; axis, dtype and device errors.
    pub fn accumulate_with(&self, a: &Array, opts: impl Into<UfuncAccumulate>) -> Result<Array> {
        accumulate(self, a, &opts.into())
    }
}

/// NumPy's `TypeError` of a reduce-like method on a 0-d array.
pub(crate) fn scalar_error(op: &str, method: &str, a: &Array) -> Error {
    Error::TypeError {
        op: op.into(),
        dtypes: vec![a.dtype()],
        msg: format!("cannot {method} on a scalar"),
    }
}

/// The shape check of `out=` for a result of `shape`.
pub(crate) fn check_out(op: &str, out: Option<&Array>, shape: &[usize]) -> Result<()> {
    match out {
        Some(o) if o.shape() != shape => Err(Error::invalid(
            op,
            format!(
                "output parameter has shape {:?}, the result has shape {shape:?}",
                o.shape()
            ),
        )),
        _ => Ok(()),
    }
}

/// `numpy.<u>.accumulate(a, **opts)` (see [`Ufunc::accumulate_with`]).
pub(crate) fn accumulate(u: &Ufunc, a: &Array, opts: &UfuncAccumulate) -> Result<Array> {
    check_binary(u, "accumulate")?;
    let op = format!("{}.accumulate", u.name());
    let op = op.as_str();
    if a.ndim() == 0 {
        return Err(scalar_error(op, "accumulate", a));
    }
    let ax = one_axis(op, opts.axis, a)?;
    let lp = reduce_loop(
        u,
        "accumulate",
        a.dtype(),
        opts.dtype,
        opts.out.as_ref().map(|o| o.dtype()),
    )?;
    check_out(op, opts.out.as_ref(), a.shape())?;
    let res = if a.size() == 0 {
        Array::empty_on(a.device(), a.shape(), lp.output)?
    } else {
        let opts = Scan {
            axis: Some(ax as isize),
            dtype: Some(lp.input),
        };
        let scanned = match u.name() {
            "add" if !lp.input.is_bool() => Some(cumsum_with(a, opts)),
            "multiply" if !lp.input.is_bool() => Some(cumprod_with(a, opts)),
            _ => None,
        };
        match scanned {
            Some(Ok(r)) => r,
            // A scan the backend refuses (complex on some GPUs) folds in order instead.
            None | Some(Err(Error::Unsupported { .. } | Error::DTypeNotSupported { .. })) => {
                ordered_accumulate(u, a, ax, &lp)?
            }
            Some(Err(e)) => return Err(e),
        }
    };
    match &opts.out {
        Some(out) => write_out(op, &res, out),
        None => Ok(res),
    }
}

/// One thread per row: `r[0] = x[0]`, `r[k] = u(r[k-1], x[k])`, written with raw stores.
fn ordered_accumulate(u: &Ufunc, a: &Array, ax: usize, lp: &Loop) -> Result<Array> {
    let n = a.shape()[ax];
    let rows = a.size() / n;
    let (x, inv) = axis_last(a, ax, lp.input)?;
    let res = Array::empty_on(a.device(), x.shape(), lp.output)?;
    let kernel = accumulate_kernel(u, lp);
    Elementwise {
        op: u.name(),
        kernel: &kernel,
        inputs: &[],
        raws: &[&x, &res],
        params: vec![Scalar::Int64(n as i64)],
        outs: vec![],
        device: Some(a.device()),
        shape: Some(&[rows]),
    }
    .run()?;
    res.transpose(&inv)
}

/// The kernel of [`ordered_accumulate`]: raw 0 the `[rows, n]` input, raw 1 the result (both
/// in the loop's dtype), param 0 `n`; element `i` accumulates row `i`.
pub(crate) fn accumulate_kernel(u: &Ufunc, lp: &Loop) -> Kernel {
    let t = lp.output;
    let i64 = DType::Int64;
    let bin = Expr::binary;
    let np = Expr::param(0, i64);
    // Locals: 0 acc, 1 base, 2 loop counter.
    let (acc, base, k) = (Expr::var(0, t), Expr::var(1, i64), Expr::var(2, i64));
    let at = bin(BinaryOp::Add, base.clone(), k.clone());
    Kernel {
        name: format!("{}_accumulate", u.name()),
        inputs: vec![],
        outputs: vec![],
        raws: vec![lp.input, t],
        params: vec![i64],
        locals: vec![t, i64, i64],
        body: vec![
            Stmt::Let {
                var: 1,
                value: bin(BinaryOp::Mul, Expr::index(), np.clone()),
            },
            Stmt::Let {
                var: 0,
                value: Expr::load(0, lp.input, base.clone()).cast(t),
            },
            Stmt::StoreRaw {
                raw: 1,
                index: base,
                value: acc.clone(),
            },
            Stmt::For {
                var: 2,
                start: Expr::constant(Scalar::Int64(1)),
                end: np,
                body: vec![
                    Stmt::Assign {
                        var: 0,
                        value: fold_step(u, lp, acc.clone(), Expr::load(0, lp.input, at.clone())),
                    },
                    Stmt::StoreRaw {
                        raw: 1,
                        index: at,
                        value: acc,
                    },
                ],
            },
        ],
    }
}
