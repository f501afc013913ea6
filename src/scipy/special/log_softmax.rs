//! `logsumexp`, `softmax` and `log_softmax` (`cupyx.scipy.special`), composed from reductions
//! and ufuncs as SciPy writes them (`scipy/special/_logsumexp.py`): the inputs are shifted by
//! their maximum along the axes (a non-finite maximum by 0) before `exp`, so nothing overflows.
//! Results agree with SciPy 1.17 within a few ulps; SciPy also sums around the maximum's own
//! term with `log1p`, which this does not.

use crate::array::Array;
use crate::statistics::reduction::{normalize_axes, Axes, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// Keyword arguments of [`logsumexp_with`] (`scipy.special.logsumexp(a, axis=None, b=None,
/// keepdims=False, return_sign=False)`).
#[derive(Clone, Debug, Default)]
pub struct LogSumExp {
    /// The axes summed over (`axis=`; [`Axes::All`]: every axis).
    pub axis: Axes,
    /// Scale factors broadcast against `a` (`b=`): the result is `log(sum(b * exp(a)))`.
    pub b: Option<Array>,
    /// Keep the reduced axes as length 1 (`keepdims=`).
    pub keepdims: bool,
    /// Also return the sign of the sum (`return_sign=`); the result is then `log|sum|`, where
    /// a negative sum would otherwise give NaN.
    pub return_sign: bool,
}

impl From<Axes> for LogSumExp {
    fn from(axis: Axes) -> LogSumExp {
        LogSumExp {
            axis,
            ..Default::default()
        }
    }
}

/// The float dtype `op` computes `a` in: float inputs as they are, bool and integers as
/// float64 (NumPy's `exp` of the shifted values after SciPy's `force_floating`), float16 as
/// float32 would round: kept. Complex inputs are refused.
fn floating(op: &str, a: &Array) -> Result<Array> {
    let t = a.dtype();
    if t.is_complex() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: "complex inputs are not supported here yet".into(),
        });
    }
    if t.is_inexact() {
        Ok(a.clone())
    } else {
        a.astype(DType::Float64)
    }
}

/// The maximum of `a` over `axis` with the reduced axes kept, non-finite maxima replaced by 0
/// (SciPy's shift).
fn shift(op: &str, a: &Array, axis: &Axes) -> Result<Array> {
    if reduces_nothing(op, a, axis)? {
        return Err(Error::invalid(
            op,
            format!(
                "zero-size array to reduction operation maximum which has no identity \
                 (shape {:?}, axis {axis:?})",
                a.shape()
            ),
        ));
    }
    let m = crate::max_with(
        a,
        Reduce {
            axis: axis.clone(),
            keepdims: true,
            ..Default::default()
        },
    )?;
    crate::where_(&crate::isfinite(&m)?, &m, 0.0)
}

/// Whether the slices reduced over `axis` are empty (a reduced axis of length 0).
fn reduces_nothing(op: &str, a: &Array, axis: &Axes) -> Result<bool> {
    let axes = normalize_axes(op, axis, a.ndim())?;
    Ok(axes.iter().any(|&ax| a.shape()[ax] == 0))
}

fn sum_keep(a: &Array, axis: &Axes) -> Result<Array> {
    crate::sum_with(
        a,
        Reduce {
            axis: axis.clone(),
            keepdims: true,
            ..Default::default()
        },
    )
}

/// `a` with the length-1 axes `axis` of a keepdims result removed.
fn drop_axes(op: &str, a: &Array, axis: &Axes) -> Result<Array> {
    let axes = normalize_axes(op, axis, a.ndim())?;
    let shape: Vec<isize> = a
        .shape()
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &d)| d as isize)
        .collect();
    a.reshape(&shape)
}

/// `log(sum(exp(a)))` over `axis` without overflow (`cupyx.scipy.special.logsumexp(a,
/// axis)`). See [`logsumexp_with`].
///
/// # Errors
/// As [`logsumexp_with`].
pub fn logsumexp(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    Ok(logsumexp_with(a, axis.into())?.0)
}
routine!(logsumexp as "cupyx.scipy.special.logsumexp", Special, notes: "axis, b=, keepdims, return_sign (logsumexp_with); real inputs");

/// `scipy.special.logsumexp` with its keywords ([`LogSumExp`]): `log(sum(b * exp(a)))` over
/// the axes, computed as `m + log(sum(b * exp(a - m)))` with `m` the maximum (0 where it is
/// not finite). Returns the result and, with `return_sign`, the sign of the sum (the result
/// is then `log|sum|`). Float inputs keep their dtype; bool and integers compute in float64.
///
/// # Errors
/// [`Error::TypeError`] for complex inputs; [`Error::AxisOutOfRange`]; broadcasting errors of
/// `b`. Empty slices give `-inf`, as SciPy.
pub fn logsumexp_with(a: &Array, opts: impl Into<LogSumExp>) -> Result<(Array, Option<Array>)> {
    let op = "logsumexp";
    let o = opts.into();
    let a = floating(op, a)?;
    // Empty slices sum nothing: log(0) = -inf, as SciPy.
    let m = if reduces_nothing(op, &a, &o.axis)? {
        sum_keep(&a, &o.axis)?
    } else {
        shift(op, &a, &o.axis)?
    };
    let mut e = crate::exp(&crate::subtract(&a, &m)?)?;
    if let Some(b) = &o.b {
        e = crate::multiply(&e, b)?;
    }
    let mut s = sum_keep(&e, &o.axis)?;
    let sign = if o.return_sign {
        let sg = crate::sign(&s)?;
        s = crate::absolute(&s)?;
        Some(sg)
    } else {
        None
    };
    let mut out = crate::add(&crate::log(&s)?, &m)?;
    let mut sign = sign;
    if !o.keepdims {
        out = drop_axes(op, &out, &o.axis)?;
        sign = sign.map(|s| drop_axes(op, &s, &o.axis)).transpose()?;
    }
    Ok((out, sign))
}

/// The softmax `exp(x) / sum(exp(x))` over `axis` (`cupyx.scipy.special.softmax(x, axis)`;
/// `None`: every axis), from `x` shifted by its maximum. Float inputs keep their dtype; bool
/// and integers compute in float64.
///
/// # Errors
/// [`Error::TypeError`] for complex inputs; [`Error::AxisOutOfRange`]; `InvalidArgument` where
/// a reduced axis has length 0 (NumPy's "zero-size array to reduction operation maximum").
pub fn softmax(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let op = "softmax";
    let axis = axis.into();
    let x = floating(op, x)?;
    let m = shift(op, &x, &axis)?;
    let e = crate::exp(&crate::subtract(&x, &m)?)?;
    crate::divide(&e, &sum_keep(&e, &axis)?)
}
routine!(softmax as "cupyx.scipy.special.softmax", Special, notes: "real inputs");

/// The log of the softmax, `x - logsumexp(x)` over `axis` (`cupyx.scipy.special.log_softmax(x,
/// axis)`), computed as `(x - m) - log(sum(exp(x - m)))`. Dtypes and errors as [`softmax`].
///
/// # Errors
/// As [`softmax`].
pub fn log_softmax(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let op = "log_softmax";
    let axis = axis.into();
    let x = floating(op, x)?;
    let m = shift(op, &x, &axis)?;
    let t = crate::subtract(&x, &m)?;
    let s = sum_keep(&crate::exp(&t)?, &axis)?;
    crate::subtract(&t, &crate::log(&s)?)
}
routine!(log_softmax as "cupyx.scipy.special.log_softmax", Special, notes: "real inputs");
