//! Averages and variances (NumPy's "Averages and variances"): `mean`, `var`, `std` as
//! reductions, and `average` (weights, `returned`).
//!
//! `var`/`std` are one tuple-accumulator reduction (count, mean, M2;
//! [`cupy_core::kernel::reductions::moments`]) folded with Chan et al.'s parallel combine, so
//! a long array with a large mean keeps its digits (`E[x^2] - E[x]^2` would not). NumPy's
//! rules: the divisor is `max(n - ddof, 0)` ([`Reduce::ddof`]), so `n - ddof <= 0` gives inf
//! (or NaN where every element equals the mean) and an empty reduction gives NaN, as NumPy's
//! values (NumPy also warns); integers and bool give float64; float16 accumulates in float32
//! and returns float16; complex input gives the real variance (`mean(|x - mean(x)|^2)`) in
//! its real dtype. `dtype=` (a float or complex dtype) is the dtype the moments are computed
//! in and the result's dtype, as NumPy's.
//!
//! With `where=`, `mean` is a (sum, count) tuple reduction, so it divides by the number of
//! true mask elements (NaN where there are none, as NumPy).

use super::reduction::{acc_of, normalize_axes, Axes, Reduce};
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel, UnaryOp};
use cupy_core::kernel::reductions::{moments, Moment};
use cupy_core::promote::{promote_types, result_type};
use cupy_core::scalar::Scalar;

/// NumPy's result dtype of `mean` of `t` with `dtype=`: integers and bool give float64.
fn mean_dtype(t: DType, opts: &Reduce) -> DType {
    opts.dtype.unwrap_or(if t.is_integer() || t.is_bool() {
        DType::Float64
    } else {
        t
    })
}

/// `mean` of `count` elements of `t`: the sum in the accumulator, divided by `count` in the
/// post-map; integers give float64 (NumPy), an integer `dtype=` sums in it and divides in
/// float64. With `where=` the (sum, count) tuple of [`mean_pair`].
pub(crate) fn mean_kernel(
    t: DType,
    opts: &Reduce,
    count: usize,
) -> Result<(ReduceKernel, Vec<Scalar>)> {
    if opts.where_.is_some() {
        return Ok((mean_pair("mean", t, opts, false), vec![]));
    }
    let out = mean_dtype(t, opts);
    let acc = acc_of(out);
    let mut k = ReduceKernel::simple("mean", t, acc, BinaryOp::Add, Scalar::zero(acc), out);
    Ok(if acc.is_inexact() {
        k.params = vec![acc];
        k.post = Expr::binary(BinaryOp::Div, Expr::var(0, acc), Expr::param(0, acc)).cast(out);
        (k, vec![Scalar::Float64(count as f64).cast(acc)])
    } else {
        let f = DType::Float64;
        k.params = vec![f];
        k.post =
            Expr::binary(BinaryOp::Div, Expr::var(0, acc).cast(f), Expr::param(0, f)).cast(out);
        (k, vec![Scalar::Float64(count as f64)])
    })
}

/// A (sum, count) tuple reduction for `mean` with `where=` and `nanmean` (`skip_nan`: NaN
/// elements count as masked out): the sum in the accumulator of NumPy's result dtype, divided
/// by the count in float64 (complex128), as NumPy's `true_divide` by an integer count, then
/// rounded to the result dtype. A count of 0 gives NaN.
pub(crate) fn mean_pair(name: &str, t: DType, opts: &Reduce, skip_nan: bool) -> ReduceKernel {
    let out = mean_dtype(t, opts);
    let acc = acc_of(out);
    let it = DType::Int64;
    let x = Expr::input(0, t);
    let mut map = vec![x.clone().cast(acc), Expr::constant(Scalar::Int64(1))];
    if skip_nan && (t.is_float() || t.is_complex()) {
        let nan = Expr::unary(UnaryOp::IsNan, x);
        map = vec![
            Expr::select(
                nan.clone(),
                Expr::constant(Scalar::zero(acc)),
                map[0].clone(),
            ),
            Expr::select(nan, Expr::constant(Scalar::Int64(0)), map[1].clone()),
        ];
    }
    let wide = if acc.is_complex() {
        DType::Complex128
    } else {
        DType::Float64
    };
    let (s, n) = (Expr::var(0, acc), Expr::var(1, it));
    let post = if acc.is_inexact() {
        Expr::binary(BinaryOp::Div, s.cast(wide), n.cast(wide)).cast(out)
    } else {
        Expr::binary(
            BinaryOp::Div,
            s.cast(DType::Float64),
            n.cast(DType::Float64),
        )
        .cast(out)
    };
    ReduceKernel {
        name: name.into(),
        inputs: vec![t],
        params: vec![],
        acc: vec![acc, it],
        map,
        combine: vec![
            Expr::binary(BinaryOp::Add, Expr::var(0, acc), Expr::var(2, acc)),
            Expr::binary(BinaryOp::Add, Expr::var(1, it), Expr::var(3, it)),
        ],
        fold: vec![],
        identity: vec![Scalar::zero(acc), Scalar::Int64(0)],
        post,
        output: out,
        extra_posts: vec![],
    }
}

/// The moments kernel of `var`/`std` over input `t`, computed in `dtype=` (a float or complex
/// dtype) when given, with `ddof` as its parameter value.
///
/// # Errors
/// [`Error::InvalidArgument`] for an integer or bool `dtype=` (not supported here).
pub(crate) fn moment(
    name: &str,
    which: Moment,
    t: DType,
    opts: &Reduce,
) -> Result<(ReduceKernel, Vec<Scalar>)> {
    let d = match opts.dtype {
        Some(d) if !d.is_inexact() => {
            return Err(Error::invalid(
                name,
                format!("dtype= ({d}) of numpy.{name} must be a float or complex dtype here"),
            ))
        }
        Some(d) => d,
        None => t,
    };
    let mut k = super::keywords::retype_input(moments(d, which), t);
    k.name = name.into();
    if let Some(d) = opts.dtype {
        // NumPy's result is `dtype=` itself (complex128 gives a complex128 variance)
        k.post = k.post.cast(d);
        k.output = d;
    }
    let ddof = Scalar::Float64(opts.ddof as f64).cast(k.params[0]);
    Ok((k, vec![ddof]))
}

reductions! {
    family: "averages";
    /// The arithmetic mean (`numpy.mean`; integers give float64, float16 accumulates in
    /// float32; with `where=`, the mean of the true elements).
    mean / mean_axis / mean_with, takes "where" => |t, opts, count| mean_kernel(t, opts, count);
    /// The variance (`numpy.var`): `sum(|x - mean|^2) / max(n - ddof, 0)`, `ddof` from
    /// [`Reduce`]; integers give float64, complex its real dtype.
    var / var_axis / var_with, takes "where" => |t, opts, _| moment("var", Moment::Var, t, opts);
    /// The standard deviation (`numpy.std`), the square root of `var`.
    std / std_axis / std_with, takes "where" => |t, opts, _| moment("std", Moment::Std, t, opts);
}

/// Keyword arguments of [`average_with`] (`numpy.average(a, axis=None, weights=None,
/// returned=False, keepdims=False)`). An axis converts into it.
#[derive(Clone, Debug, Default)]
pub struct Average {
    /// The axes to average over (`axis=`; [`Axes::All`] is `None`).
    pub axis: Axes,
    /// The weights (`weights=`): `a`'s shape, or the shape of `a` along `axis` (then `axis`
    /// must be given), e.g. a 1-d array of `a.shape[axis]` weights.
    pub weights: Option<Array>,
    /// Keep the reduced axes as length-1 axes (`keepdims=`).
    pub keepdims: bool,
}

impl<T: Into<Axes>> From<T> for Average {
    fn from(axis: T) -> Average {
        Average {
            axis: axis.into(),
            ..Default::default()
        }
    }
}

/// `numpy.average(a)`: the mean over every axis.
///
/// # Errors
/// As [`average_with`].
pub fn average(a: &Array) -> Result<Array> {
    Ok(average_returned(a, Average::default())?.0)
}

/// `numpy.average(a, axis=..., weights=..., keepdims=...)`: `sum(a * w) / sum(w)` over the
/// axes, in NumPy's dtype (`result_type(a, w)`, at least float64 for integer or bool `a`);
/// without weights, [`mean`].
///
/// # Errors
/// [`Error::TypeError`] for weights of another shape without `axis` (NumPy's TypeError);
/// [`Error::InvalidArgument`] for weights whose shape is not `a`'s along `axis` (ValueError)
/// and for weights that sum to zero (NumPy's ZeroDivisionError, "Weights sum to zero");
/// axis, dtype and device errors.
pub fn average_with(a: &Array, opts: impl Into<Average>) -> Result<Array> {
    Ok(average_returned(a, opts)?.0)
}

/// `numpy.average(..., returned=True)`: the average and the sum of the weights (the number of
/// elements averaged without weights), broadcast to the average's shape.
///
/// # Errors
/// As [`average_with`].
pub fn average_returned(a: &Array, opts: impl Into<Average>) -> Result<(Array, Array)> {
    let op = "average";
    let opts = opts.into();
    normalize_axes(op, &opts.axis, a.ndim())?;
    let reduce = Reduce {
        axis: opts.axis.clone(),
        keepdims: opts.keepdims,
        ..Default::default()
    };
    let Some(w) = &opts.weights else {
        let avg = mean_with(a, reduce)?;
        let n = if avg.size() == 0 {
            0.0
        } else {
            (a.size() / avg.size()) as f64
        };
        let scl = Array::full_on(a.device(), avg.shape(), Scalar::Float64(n), avg.dtype())?;
        return Ok((avg, scl));
    };
    crate::array::same_device(op, [a, w])?;
    let wgt = weights_along(op, a, w, &opts.axis)?;
    let rt = if a.dtype().is_integer() || a.dtype().is_bool() {
        result_type(op, &[a.dtype(), wgt.dtype(), DType::Float64], &[])?
    } else {
        promote_types(a.dtype(), wgt.dtype())
    };
    let wsum = wgt.sum_with(Reduce {
        dtype: Some(rt),
        ..reduce.clone()
    })?;
    let zero = crate::math::logic::equal(&wsum, 0.0)?;
    if zero.size() > 0 && super::truth::any(&zero)?.to_vec::<bool>()?[0] {
        return Err(Error::invalid(
            op,
            "Weights sum to zero, can't be normalized (NumPy's ZeroDivisionError)",
        ));
    }
    let prod = crate::math::arithmetic::multiply(&a.astype(rt)?, &wgt.astype(rt)?)?;
    let avg = crate::math::arithmetic::true_divide(&prod.sum_with(reduce)?, &wsum)?;
    let scl = if wsum.shape() != avg.shape() {
        wsum.broadcast_to(avg.shape())?.copy()?
    } else {
        wsum
    };
    Ok((avg, scl))
}
routine!(
    average,
    Statistics,
    probe: average_probe,
    notes: "axis, weights, returned (average_returned), keepdims"
);

/// The registry probe of `average`: the weighted sum's reduction.
fn average_probe(t: DType) -> Option<crate::registry::Need> {
    let rt = if t.is_integer() || t.is_bool() {
        DType::Float64
    } else {
        t
    };
    let (k, _) = super::sums::sum_or_prod("sum", true, rt, &Reduce::default()).ok()?;
    Some(crate::registry::Need::Reduction(k))
}

/// NumPy's weights of `a` over `axis` (`average`'s and `quantile`'s `weights=`): of `a`'s own
/// shape, or, with `axis` given, of the lengths of those axes in the order `axis` names them;
/// returned reshaped to broadcast against `a` (the given axes in ascending order, 1 elsewhere).
///
/// # Errors
/// `TypeError` when the shapes differ and no axis is given; `InvalidArgument` when the weights'
/// shape is not the axes' lengths; `AxisOutOfRange`.
pub(crate) fn weights_along(op: &str, a: &Array, w: &Array, axis: &Axes) -> Result<Array> {
    if w.shape() == a.shape() {
        return Ok(w.clone());
    }
    let Axes::Some(given) = axis else {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![a.dtype(), w.dtype()],
            msg: "Axis must be specified when shapes of a and weights differ.".into(),
        });
    };
    // the given axes, normalized but in the caller's order
    let given: Vec<usize> = given
        .iter()
        .map(|&x| cupy_core::layout::normalize_axis(op, x, a.ndim()))
        .collect::<Result<_>>()?;
    let along: Vec<usize> = given.iter().map(|&x| a.shape()[x]).collect();
    if w.shape() != along.as_slice() {
        return Err(Error::invalid(
            op,
            format!(
                "Shape of weights must be consistent with shape of a along specified axis \
                 (weights {:?}, a {:?}, axis {given:?})",
                w.shape(),
                a.shape()
            ),
        ));
    }
    // transpose the weights to ascending axis order, then put 1s at the other axes
    let mut order: Vec<usize> = (0..given.len()).collect();
    order.sort_by_key(|&i| given[i]);
    let perm: Vec<isize> = order.iter().map(|&i| i as isize).collect();
    let shape: Vec<isize> = (0..a.ndim())
        .map(|ax| {
            if given.contains(&ax) {
                a.shape()[ax] as isize
            } else {
                1
            }
        })
        .collect();
    w.transpose(&perm)?.reshape(&shape)
}
