//! `logsumexp`, `softmax` and `log_softmax` (`cupyx.scipy.special`), composed from reductions
//! and ufuncs as SciPy writes them (`scipy/special/_logsumexp.py`): the inputs are shifted by
//! their maximum along the axes (in `logsumexp` and `log_softmax` a non-finite maximum by 0)
//! before `exp`, so nothing overflows.
//! Results agree with SciPy 1.17 within a few ulps; SciPy also sums around the maximum's own
//! term with `log1p`, which this does not.

use crate::array::Array;
use crate::statistics::reduction::{normalize_axes, Axes, Reduce};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::broadcast_shapes;
use cupy_core::promote::promote_types;

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

/// The maximum of `a` over `axis` with the reduced axes kept; with `finite`, non-finite maxima
/// replaced by 0 (SciPy's shift in `logsumexp` and `log_softmax`; its `softmax` subtracts the
/// maximum as it is, so a row holding `inf` is NaN there).
fn shift(op: &str, a: &Array, axis: &Axes, finite: bool) -> Result<Array> {
    let axes = normalize_axes(op, axis, a.ndim())?;
    if axes.iter().any(|&i| a.shape()[i] == 0) {
        return Err(Error::invalid(
            op,
            format!(
                "an empty reduction (shape {:?}, axis {axes:?}) has no maximum to shift by",
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
    if finite {
        crate::where_(&crate::isfinite(&m)?, &m, 0.0)
    } else {
        Ok(m)
    }
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
/// As SciPy, `a` and `b` are broadcast together and promoted to a float dtype first, terms
/// whose `b` is 0 are left out (`a` there taken as `-inf`), a 0-d `a` counts as 1-d, and an
/// empty `a` sums to 0 (`-inf`, sign -1).
///
/// # Errors
/// [`Error::TypeError`] for complex inputs; [`Error::AxisOutOfRange`];
/// [`Error::ShapeMismatch`] naming logsumexp for a `b` that does not broadcast with `a`.
pub fn logsumexp_with(a: &Array, opts: impl Into<LogSumExp>) -> Result<(Array, Option<Array>)> {
    let op = "logsumexp";
    let o = opts.into();
    // SciPy's xp_promote(a, b, broadcast=True, force_floating=True) and atleast_nd(a, 1).
    let (a, b) = match &o.b {
        Some(b) => {
            let t = promote_types(a.dtype(), b.dtype());
            let t = if t.is_inexact() { t } else { DType::Float64 };
            let shape = broadcast_shapes(op, a.shape(), b.shape())?;
            let a = floating(op, &a.astype(t)?.broadcast_to(&shape)?)?;
            let b = b.astype(t)?.broadcast_to(&shape)?;
            // SciPy's `a[b == 0] = -inf`: a zero-weighted term neither shifts nor adds.
            let a = crate::where_(&crate::equal(&b, 0.0)?, f64::NEG_INFINITY, &a)?;
            (a, Some(b))
        }
        None => (floating(op, a)?, None),
    };
    let a = if a.ndim() == 0 { a.reshape(&[1])? } else { a };
    let (mut out, mut sign) = if a.size() == 0 {
        // SciPy: an empty `a` sums to 0, whose log is `-inf` (sign -1, as `sign(-inf)`).
        let axes = normalize_axes(op, &o.axis, a.ndim())?;
        let shape: Vec<usize> = (0..a.ndim())
            .map(|i| if axes.contains(&i) { 1 } else { a.shape()[i] })
            .collect();
        let out = Array::full_on(a.device(), &shape, f64::NEG_INFINITY, a.dtype())?;
        let sign = o
            .return_sign
            .then(|| Array::full_on(a.device(), &shape, -1.0, a.dtype()))
            .transpose()?;
        (out, sign)
    } else {
        let m = shift(op, &a, &o.axis, true)?;
        let mut e = crate::exp(&crate::subtract(&a, &m)?)?;
        if let Some(b) = &b {
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
        (crate::add(&crate::log(&s)?, &m)?, sign)
    };
    if !o.keepdims {
        out = drop_axes(op, &out, &o.axis)?;
        sign = sign.map(|s| drop_axes(op, &s, &o.axis)).transpose()?;
    }
    Ok((out, sign))
}

/// The softmax `exp(x) / sum(exp(x))` over `axis` (`cupyx.scipy.special.softmax(x, axis)`;
/// `None`: every axis), from `x` shifted by its maximum (as it is, as SciPy: a slice holding
/// `inf` is NaN). Float inputs keep their dtype; bool and integers compute in float64.
///
/// # Errors
/// [`Error::TypeError`] for complex inputs; [`Error::AxisOutOfRange`]; `InvalidArgument` for
/// an empty reduction (an axis of length 0 among `axis`; NumPy's maximum has no identity).
pub fn softmax(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let op = "softmax";
    let axis = axis.into();
    let x = floating(op, x)?;
    let m = shift(op, &x, &axis, false)?;
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
    let m = shift(op, &x, &axis, true)?;
    let t = crate::subtract(&x, &m)?;
    let s = sum_keep(&crate::exp(&t)?, &axis)?;
    crate::subtract(&t, &crate::log(&s)?)
}
routine!(log_softmax as "cupyx.scipy.special.log_softmax", Special, notes: "real inputs");
