//! `ufunc.reduce`: one [`ReduceKernel`] for reorderable ufuncs with a seed, an in-order fold
//! per output for the rest (see the parent module).

use super::{check_binary, fold_step, reduce_loop, write_out};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::options::{check_mask, Loop};
use crate::math::ufunc::Ufunc;
use crate::statistics::reduction::{normalize_axes, reduce_with, Axes};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel, Stmt};
use cupy_core::kernel::math::Inline;
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`Ufunc::reduce_with`] (`numpy.add.reduce(a, axis=0, dtype=None,
/// out=None, keepdims=False, initial=<no value>, where=True)`). An axis converts into it.
#[derive(Clone, Debug)]
pub struct UfuncReduce {
    /// The axes to reduce (`axis=`): NumPy's default is axis 0 (`Axes::Some(vec![0])`, the
    /// `Default`); [`Axes::All`] is `axis=None`; several axes only for reorderable ufuncs.
    pub axis: Axes,
    /// The loop's dtype (`dtype=`): the input is cast to it and it is the result's dtype.
    pub dtype: Option<DType>,
    /// The array to write the result into (`out=`; cast with `casting='unsafe'`), returned.
    pub out: Option<Array>,
    /// Keep the reduced axes as length-1 axes (`keepdims=`).
    pub keepdims: bool,
    /// The value the reduction starts from (`initial=`), a Rust scalar converted to the loop's
    /// dtype as a Python scalar is (an integer out of range is an error). It is the result of
    /// an empty reduction, and NumPy requires it for `where=` on ufuncs without an identity.
    pub initial: Option<WeakScalar>,
    /// A bool mask broadcast to the input's shape (`where=`): only its true elements are
    /// reduced.
    pub where_: Option<Array>,
}

impl Default for UfuncReduce {
    /// NumPy's defaults: axis 0, no dtype, out, initial or mask, keepdims false.
    fn default() -> UfuncReduce {
        UfuncReduce {
            axis: Axes::Some(vec![0]),
            dtype: None,
            out: None,
            keepdims: false,
            initial: None,
            where_: None,
        }
    }
}

impl From<Axes> for UfuncReduce {
    fn from(axis: Axes) -> UfuncReduce {
        UfuncReduce {
            axis,
            ..Default::default()
        }
    }
}
impl From<isize> for UfuncReduce {
    fn from(axis: isize) -> UfuncReduce {
        Axes::from(axis).into()
    }
}
impl From<i32> for UfuncReduce {
    fn from(axis: i32) -> UfuncReduce {
        Axes::from(axis).into()
    }
}
impl From<Option<isize>> for UfuncReduce {
    fn from(axis: Option<isize>) -> UfuncReduce {
        Axes::from(axis).into()
    }
}

/// NumPy's `ufunc.identity` and whether the ufunc is reorderable (its reduction may combine
/// elements in any order and over several axes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Identity {
    /// Reorderable with this identity (NumPy's `0`, `1`, `-1`, `-inf`, as a float64 cast to the
    /// loop's dtype: `-1` is all ones for `bitwise_and` of unsigned types and `True` for bool).
    Value(f64),
    /// Reorderable without an identity (maximum, minimum, fmax, fmin).
    ReorderableNone,
    /// Neither (subtract, divide, power, comparisons, ...).
    None,
}

/// NumPy's identity of the ufunc named `name`.
pub(crate) fn identity_of(name: &str) -> Identity {
    match name {
        "add" | "bitwise_or" | "bitwise_xor" | "logical_or" | "logical_xor" | "gcd" | "hypot" => {
            Identity::Value(0.0)
        }
        "multiply" | "logical_and" => Identity::Value(1.0),
        "bitwise_and" => Identity::Value(-1.0),
        "logaddexp" | "logaddexp2" => Identity::Value(f64::NEG_INFINITY),
        "maximum" | "minimum" | "fmax" | "fmin" => Identity::ReorderableNone,
        _ => Identity::None,
    }
}

impl Identity {
    /// Whether NumPy reorders the reduction.
    pub(crate) fn reorderable(self) -> bool {
        self != Identity::None
    }

    /// The identity in dtype `t`, if there is one.
    pub(crate) fn value(self, t: DType) -> Option<Scalar> {
        match self {
            // -1 through an integer: all ones for unsigned types, true for bool.
            Identity::Value(v) if v < 0.0 && v.is_finite() => Some(Scalar::Int64(v as i64).cast(t)),
            Identity::Value(v) => Some(Scalar::Float64(v).cast(t)),
            _ => None,
        }
    }
}

/// A seed of a reorderable reduction in the compute dtype `c`: the identity, or a value neutral
/// for the combine (`-inf` for maximum, NaN for fmax, the type's extremes for integers);
/// `None` where none is known (complex extremes), which then fold in order.
pub(crate) fn seed(name: &str, id: Identity, c: DType) -> Option<Scalar> {
    if let Some(v) = id.value(c) {
        return Some(v);
    }
    if id != Identity::ReorderableNone || c.is_complex() {
        return None;
    }
    let max = matches!(name, "maximum" | "fmax");
    let nan_ignoring = matches!(name, "fmax" | "fmin");
    Some(if c.is_float() && nan_ignoring {
        Scalar::Float64(f64::NAN).cast(c)
    } else if max {
        Scalar::min_value(c)
    } else {
        Scalar::max_value(c)
    })
}

impl Ufunc {
    /// `numpy.<ufunc>.reduce(a)`: reduces axis 0 (NumPy's default) by repeated application of
    /// the ufunc. See [`Ufunc::reduce_with`].
    ///
    /// # Errors
    /// As [`Ufunc::reduce_with`].
    pub fn reduce(&self, a: &Array) -> Result<Array> {
        reduce(self, a, &UfuncReduce::default())
    }

    /// `numpy.<ufunc>.reduce(a, axis=..., dtype=..., out=..., keepdims=..., initial=...,
    /// where=...)`; an axis converts into the options (`add.reduce_with(&a, 1)`).
    ///
    /// Add and multiply of bool and small integers accumulate in (u)int64 (as `sum`) unless
    /// `dtype=` or `out=` is given; `add.reduce_with(&a, Axes::All)` is `sum`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (NumPy's `ValueError`) for a ufunc that is not binary, several
    /// axes of a ufunc that is not reorderable, an empty reduction without identity or
    /// `initial` ("zero-size array to reduction operation maximum which has no identity"),
    /// `where=` without identity or `initial`, or an `out` of the wrong shape;
    /// [`Error::TypeError`] where NumPy has no `T, T -> T` loop (`less.reduce` of integers) or
    /// for a non-bool mask; [`Error::ScalarOverflow`] for an `initial` out of the loop dtype's
    /// range; axis, dtype and device errors.
    pub fn reduce_with(&self, a: &Array, opts: impl Into<UfuncReduce>) -> Result<Array> {
        reduce(self, a, &opts.into())
    }
}

/// `numpy.<u>.reduce(a, **opts)` (see [`Ufunc::reduce_with`]).
pub(crate) fn reduce(u: &Ufunc, a: &Array, opts: &UfuncReduce) -> Result<Array> {
    check_binary(u, "reduce")?;
    let name = u.name();
    let op = format!("{name}.reduce");
    let op = op.as_str();
    // A 0-d array has axis 0 (and -1) as NumPy's reduce sees it, which reduce nothing.
    let red = if a.ndim() == 0 {
        normalize_axes(op, &opts.axis, 1)?;
        vec![]
    } else {
        normalize_axes(op, &opts.axis, a.ndim())?
    };
    let lp = reduce_loop(
        u,
        "reduce",
        a.dtype(),
        opts.dtype,
        opts.out.as_ref().map(|o| o.dtype()),
    )?;
    let id = identity_of(name);
    if !id.reorderable() && red.len() > 1 {
        return Err(Error::invalid(
            op,
            format!(
                "reduction operation '{name}' is not reorderable, so at most one axis may be specified"
            ),
        ));
    }
    if let Some(w @ WeakScalar::Complex(_)) = opts.initial {
        if !lp.input.is_complex() {
            // NumPy: float() argument must be a string or a real number, not 'complex'.
            return Err(Error::TypeError {
                op: op.to_string(),
                dtypes: vec![a.dtype()],
                msg: format!("initial={w:?} is complex; the loop is {}", lp.input),
            });
        }
    }
    let initial = opts
        .initial
        .map(|w| w.to_scalar(op, lp.input))
        .transpose()?;
    let mask = match &opts.where_ {
        None => None,
        Some(m) => {
            check_mask(op, m)?;
            if id.value(lp.input).is_none() && initial.is_none() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "reduction operation '{name}' does not have an identity, so to use a where mask one has to specify 'initial'"
                    ),
                ));
            }
            Some(
                m.broadcast_to(a.shape())
                    .map_err(|_| Error::ShapeMismatch {
                        op: format!("{op} (where=)"),
                        lhs: a.shape().to_vec(),
                        rhs: m.shape().to_vec(),
                    })?,
            )
        }
    };
    let start = initial.or_else(|| id.value(lp.input));
    let shape = a.shape();
    let count: usize = red.iter().map(|&i| shape[i]).product();
    if count == 0 && start.is_none() {
        return Err(Error::invalid(
            op,
            format!("zero-size array to reduction operation {name} which has no identity"),
        ));
    }
    let keep: Vec<usize> = (0..a.ndim()).filter(|i| !red.contains(i)).collect();
    let final_shape: Vec<usize> = (0..a.ndim())
        .filter(|i| opts.keepdims || !red.contains(i))
        .map(|i| if red.contains(&i) { 1 } else { shape[i] })
        .collect();
    if let Some(out) = &opts.out {
        if out.shape() != final_shape.as_slice() {
            return Err(Error::invalid(
                op,
                format!(
                    "output parameter has shape {:?}, the reduction of shape {shape:?} gives {final_shape:?}",
                    out.shape()
                ),
            ));
        }
    }
    let n_out: usize = keep.iter().map(|&i| shape[i]).product();
    let device = a.device().clone();
    let res = if n_out == 0 {
        Array::empty_on(&device, &final_shape, lp.output)?
    } else if count == 0 {
        let r = Array::empty_on(&device, &final_shape, lp.output)?;
        r.fill(start.expect("checked above"))?;
        r
    } else {
        let seeded = seed(name, id, lp.compute)
            .filter(|_| id.reorderable() && !red.is_empty())
            .and_then(|s| seeded_kernel(u, a.dtype(), &lp, s, initial, mask.is_some()));
        let final_isize: Vec<isize> = final_shape.iter().map(|&d| d as isize).collect();
        match seeded {
            Some(kernel) => {
                kernel.validate()?;
                let axes = Axes::Some(red.iter().map(|&i| i as isize).collect());
                let inputs: Vec<&Array> = std::iter::once(a).chain(mask.as_ref()).collect();
                reduce_with(name, &kernel, vec![], &inputs, &axes, false)?.reshape(&final_isize)?
            }
            // In order from the identity where there is one (NumPy: `hypot.reduce(x, axis=())`
            // is `|x|`), else from the first element.
            _ => ordered_reduce(u, a, mask.as_ref(), &lp, start, &keep, &red)?
                .reshape(&final_isize)?,
        }
    };
    match &opts.out {
        Some(out) => write_out(op, &res, out),
        None => Ok(res),
    }
}

/// The one-kernel reduction's [`ReduceKernel`] over an input of dtype `t` (and a bool mask as
/// input 1 with `masked`): `map` casts to the compute dtype (masked-out elements give the seed),
/// `combine` is the ufunc's body, `post` combines `initial` once and rounds to the loop's dtype.
/// `None` when the body does not keep the compute dtype (then the reduction folds in order).
pub(crate) fn seeded_kernel(
    u: &Ufunc,
    t: DType,
    lp: &Loop,
    seed: Scalar,
    initial: Option<Scalar>,
    masked: bool,
) -> Option<ReduceKernel> {
    let c = lp.compute;
    let combine = u.body(&mut Inline, c, vec![Expr::var(0, c), Expr::var(1, c)]);
    if combine.ty != c {
        return None;
    }
    let x = Expr::input(0, t).cast(lp.input).cast(c);
    let map = if masked {
        Expr::select(Expr::input(1, DType::Bool), x, Expr::constant(seed))
    } else {
        x
    };
    let post = match initial {
        Some(i) => u
            .body(
                &mut Inline,
                c,
                vec![Expr::constant(i.cast(c)), Expr::var(0, c)],
            )
            .cast(c),
        None => Expr::var(0, c),
    };
    let mut inputs = vec![t];
    if masked {
        inputs.push(DType::Bool);
    }
    Some(ReduceKernel {
        name: format!("{}_reduce", u.name()),
        inputs,
        params: vec![],
        acc: vec![c],
        map: vec![map],
        combine: vec![combine],
        fold: vec![],
        identity: vec![seed],
        post: post.cast(lp.output),
        output: lp.output,
        extra_posts: vec![],
    })
}

/// The in-order fold: one thread per output reads its `count` elements (the input moved to
/// `[kept axes..., reduced axes...]`, contiguous in the loop's dtype) and folds them with the
/// ufunc from `start` (`initial` or the identity) or else from the first element, skipping
/// masked-out ones.
fn ordered_reduce(
    u: &Ufunc,
    a: &Array,
    mask: Option<&Array>,
    lp: &Loop,
    start: Option<Scalar>,
    keep: &[usize],
    red: &[usize],
) -> Result<Array> {
    let shape = a.shape();
    let n_out: usize = keep.iter().map(|&i| shape[i]).product();
    let count: usize = red.iter().map(|&i| shape[i]).product();
    let perm: Vec<isize> = keep.iter().chain(red).map(|&i| i as isize).collect();
    let x = a.transpose(&perm)?.astype(lp.input)?;
    let m = match mask {
        Some(m) => Some(m.transpose(&perm)?.copy()?),
        None => None,
    };
    let kernel = ordered_kernel(u, lp, start, m.is_some());
    let raws: Vec<&Array> = std::iter::once(&x).chain(m.as_ref()).collect();
    Elementwise {
        op: u.name(),
        kernel: &kernel,
        inputs: &[],
        raws: &raws,
        params: vec![Scalar::Int64(count as i64)],
        outs: vec![None],
        device: Some(a.device()),
        shape: Some(&[n_out]),
    }
    .run_one()
}

/// The kernel of [`ordered_reduce`]: raw 0 the `[n_out, count]` input in the loop's dtype, raw
/// 1 the mask (with `masked`), param 0 `count`; output element `i` folds row `i`.
pub(crate) fn ordered_kernel(u: &Ufunc, lp: &Loop, start: Option<Scalar>, masked: bool) -> Kernel {
    let t = lp.output;
    let i64 = DType::Int64;
    let bin = Expr::binary;
    let n = Expr::param(0, i64);
    // Locals: 0 acc, 1 base, 2 loop counter.
    let (acc, base, k) = (Expr::var(0, t), Expr::var(1, i64), Expr::var(2, i64));
    let at = bin(BinaryOp::Add, base.clone(), k.clone());
    let step = Stmt::Assign {
        var: 0,
        value: fold_step(u, lp, acc.clone(), Expr::load(0, lp.input, at.clone())),
    };
    let step = if masked {
        Stmt::If {
            cond: Expr::load(1, DType::Bool, at),
            then_body: vec![step],
            else_body: vec![],
        }
    } else {
        step
    };
    let (first, from) = match start {
        Some(i) => (Expr::constant(i.cast(t)), 0),
        None => (Expr::load(0, lp.input, base.clone()).cast(t), 1),
    };
    let mut raws = vec![lp.input];
    if masked {
        raws.push(DType::Bool);
    }
    Kernel {
        name: format!("{}_reduce_ordered", u.name()),
        inputs: vec![],
        outputs: vec![t],
        raws,
        params: vec![i64],
        locals: vec![t, i64, i64],
        body: vec![
            Stmt::Let {
                var: 1,
                value: bin(BinaryOp::Mul, Expr::index(), n.clone()),
            },
            Stmt::Let {
                var: 0,
                value: first,
            },
            Stmt::For {
                var: 2,
                start: Expr::constant(Scalar::Int64(from)),
                end: n,
                body: vec![step],
            },
            Stmt::Store {
                output: 0,
                value: acc,
            },
        ],
    }
}
