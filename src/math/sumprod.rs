//! Sums, products and differences beyond the reductions (NumPy's "Sums, products,
//! differences", CuPy's `cupy/_math/sumprod.py`): `nancumsum`, `nancumprod`, `diff`,
//! `ediff1d`, `gradient`, `trapezoid`.
//!
//! Each is NumPy's algorithm over views and ufunc calls (so dtypes, NEP 50 promotion and
//! integer wrap-around are NumPy's): `diff` is `a[1:] - a[:-1]` along the axis, `n` times
//! (`!=` for bool); `gradient` central differences inside and one- or two-sided differences at
//! the ends (`edge_order` 1 or 2, uniform or coordinate spacing); `trapezoid` the sum of
//! `d * (y[1:] + y[:-1]) / 2`.

use crate::array::Array;
use crate::launch::elementwise;
use crate::math::arithmetic::{add, multiply, negative, subtract, true_divide};
use crate::math::logic::{equal, not_equal};
use crate::math::ufunc::Arg;
use crate::sorting::{cumprod_with, cumsum_with, Scan};
use crate::statistics::reduction::Axes;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, Kernel, UnaryOp};
use cupy_core::layout::{normalize_axis, SliceItem};
use cupy_core::promote::{can_cast_same_kind, promote_types};
use cupy_core::scalar::Scalar;

/// `a` with NaN (for complex, a NaN in either part) replaced by `v`, as NumPy's `_replace_nan`
/// (a view of `a` itself for dtypes without NaN).
fn replace_nan(a: &Array, v: f64) -> Result<Array> {
    let t = a.dtype();
    if !(t.is_float() || t.is_complex()) {
        return Ok(a.clone());
    }
    let x = Expr::input(0, t);
    let body = Expr::select(
        Expr::unary(UnaryOp::IsNan, x.clone()),
        Expr::constant(Scalar::Float64(v).cast(t)),
        x,
    );
    let k = Kernel::map("replace_nan", vec![t], vec![], body);
    Ok(elementwise(&k, &[a], &[], vec![])?.remove(0))
}

/// `numpy.nancumsum(a)`: running sums over the flattened array with NaN read as 0.
///
/// # Errors
/// As [`nancumsum_with`].
pub fn nancumsum(a: &Array) -> Result<Array> {
    nancumsum_with(a, Scan::default())
}

/// `numpy.nancumsum(a, axis=..., dtype=...)`: [`cumsum_with`] of `a` with NaN read as 0.
///
/// # Errors
/// As [`cumsum_with`].
pub fn nancumsum_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    cumsum_with(&replace_nan(a, 0.0)?, opts)
}
routine!(nancumsum, Sorting, probe: scan_probe, notes: "axis None/int, dtype=");

/// `numpy.nancumprod(a)`: running products over the flattened array with NaN read as 1.
///
/// # Errors
/// As [`nancumsum_with`].
pub fn nancumprod(a: &Array) -> Result<Array> {
    nancumprod_with(a, Scan::default())
}

/// `numpy.nancumprod(a, axis=..., dtype=...)`: [`cumprod_with`] of `a` with NaN read as 1.
///
/// # Errors
/// As [`cumsum_with`].
pub fn nancumprod_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    cumprod_with(&replace_nan(a, 1.0)?, opts)
}
routine!(nancumprod, Sorting, probe: scan_probe, notes: "axis None/int, dtype=");

/// The registry probe of the scans: the backend's scan primitive.
fn scan_probe(_: DType) -> Option<crate::registry::Need> {
    Some(crate::registry::Need::Primitive(
        cupy_core::backend::Primitive::Scan,
    ))
}

/// The registry probe of the differences: a subtraction kernel of the dtype.
fn sub_probe(t: DType) -> Option<crate::registry::Need> {
    let (x, y) = (Expr::input(0, t), Expr::input(1, t));
    let body = if t.is_bool() {
        Expr::binary(cupy_core::kernel::ir::BinaryOp::Ne, x, y)
    } else {
        Expr::binary(cupy_core::kernel::ir::BinaryOp::Sub, x, y)
    };
    Some(crate::registry::Need::Kernel(Kernel::map(
        "diff",
        vec![t, t],
        vec![],
        body,
    )))
}

/// `a[..., item, ...]` with `item` at `axis` and full slices elsewhere.
fn along(a: &Array, axis: usize, item: SliceItem) -> Result<Array> {
    let mut items = vec![
        SliceItem::Slice {
            start: None,
            stop: None,
            step: 1
        };
        a.ndim()
    ];
    items[axis] = item;
    a.slice(&items)
}

/// `start:stop` (Python semantics).
fn range(start: Option<isize>, stop: Option<isize>) -> SliceItem {
    SliceItem::Slice {
        start,
        stop,
        step: 1,
    }
}

/// `numpy.concatenate(arrays, axis)` for the arrays of one call here (same shape except along
/// `axis`; the dtype promoted).
fn concatenate(op: &str, arrays: &[Array], axis: usize) -> Result<Array> {
    let first = &arrays[0];
    let dt = arrays
        .iter()
        .map(|a| a.dtype())
        .reduce(promote_types)
        .unwrap_or(first.dtype());
    let mut shape = first.shape().to_vec();
    shape[axis] = 0;
    for a in arrays {
        let ok = a.ndim() == first.ndim()
            && (0..a.ndim()).all(|i| i == axis || a.shape()[i] == first.shape()[i]);
        if !ok {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: first.shape().to_vec(),
                rhs: a.shape().to_vec(),
            });
        }
        shape[axis] += a.shape()[axis];
    }
    let out = Array::empty_on(first.device(), &shape, dt)?;
    let mut at = 0isize;
    for a in arrays {
        let n = a.shape()[axis] as isize;
        if n > 0 {
            along(&out, axis, range(Some(at), Some(at + n)))?.copy_from(a)?;
        }
        at += n;
    }
    Ok(out)
}

/// Keyword arguments of [`diff_with`] (`numpy.diff(a, n=1, axis=-1, prepend=, append=)`). An
/// axis converts into it.
#[derive(Clone, Debug)]
pub struct Diff {
    /// How many times to difference (`n=`); 0 returns `a`.
    pub n: usize,
    /// The axis (`axis=`, default -1).
    pub axis: isize,
    /// Values put before `a` along the axis (`prepend=`): a 0-d array is broadcast to one
    /// slice, others must match `a` except along the axis.
    pub prepend: Option<Array>,
    /// Values put after `a` along the axis (`append=`), as `prepend`.
    pub append: Option<Array>,
}

impl Default for Diff {
    fn default() -> Diff {
        Diff {
            n: 1,
            axis: -1,
            prepend: None,
            append: None,
        }
    }
}

impl From<isize> for Diff {
    fn from(axis: isize) -> Diff {
        Diff {
            axis,
            ..Default::default()
        }
    }
}
impl From<i32> for Diff {
    fn from(axis: i32) -> Diff {
        (axis as isize).into()
    }
}

/// `numpy.diff(a)`: `a[..., 1:] - a[..., :-1]` along the last axis (`!=` for bool; integers
/// wrap in their dtype).
///
/// # Errors
/// As [`diff_with`].
pub fn diff(a: &Array) -> Result<Array> {
    diff_with(a, Diff::default())
}

/// `numpy.diff(a, n=..., axis=..., prepend=..., append=...)`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d `a` (NumPy's ValueError); [`Error::AxisOutOfRange`];
/// [`Error::ShapeMismatch`] for `prepend`/`append` that do not fit; dtype and device errors.
pub fn diff_with(a: &Array, opts: impl Into<Diff>) -> Result<Array> {
    let o = opts.into();
    let op = "diff";
    if o.n == 0 {
        return Ok(a.clone());
    }
    if a.ndim() == 0 {
        return Err(Error::invalid(
            op,
            "diff requires input that is at least one dimensional",
        ));
    }
    let axis = normalize_axis(op, o.axis, a.ndim())?;
    let slab = |v: &Array| -> Result<Array> {
        if v.ndim() == 0 {
            let mut s = a.shape().to_vec();
            s[axis] = 1;
            v.broadcast_to(&s)
        } else {
            Ok(v.clone())
        }
    };
    let mut parts = vec![];
    if let Some(p) = &o.prepend {
        parts.push(slab(p)?);
    }
    parts.push(a.clone());
    if let Some(p) = &o.append {
        parts.push(slab(p)?);
    }
    let mut x = if parts.len() > 1 {
        concatenate(op, &parts, axis)?
    } else {
        a.clone()
    };
    for _ in 0..o.n {
        let hi = along(&x, axis, range(Some(1), None))?;
        let lo = along(&x, axis, range(None, Some(-1)))?;
        x = if x.dtype().is_bool() {
            not_equal(&hi, &lo)?
        } else {
            subtract(&hi, &lo)?
        };
    }
    Ok(x)
}
routine!(diff, Statistics, probe: sub_probe, notes: "n, axis, prepend, append");

/// Keyword arguments of [`ediff1d_with`] (`numpy.ediff1d(ary, to_end=None, to_begin=None)`).
#[derive(Clone, Debug, Default)]
pub struct Ediff1d {
    /// Values appended after the differences (`to_end=`, flattened).
    pub to_end: Option<Array>,
    /// Values put before the differences (`to_begin=`, flattened).
    pub to_begin: Option<Array>,
}

/// `numpy.ediff1d(ary)`: the differences of consecutive elements of the flattened array, in
/// its dtype.
///
/// # Errors
/// As [`ediff1d_with`].
pub fn ediff1d(a: &Array) -> Result<Array> {
    ediff1d_with(a, Ediff1d::default())
}

/// `numpy.ediff1d(ary, to_end=..., to_begin=...)`.
///
/// # Errors
/// [`Error::TypeError`] for bool input (NumPy's subtract has no bool loop) and for `to_begin`
/// / `to_end` not castable to `ary`'s dtype under `same_kind`; device errors.
pub fn ediff1d_with(a: &Array, opts: Ediff1d) -> Result<Array> {
    let op = "ediff1d";
    let x = a.ravel()?;
    let t = x.dtype();
    if t.is_bool() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: "numpy boolean subtract, the `-` operator, is not supported".into(),
        });
    }
    let n = x.size();
    let body = |x: &Array| -> Result<Array> {
        if n == 0 {
            return Array::empty_on(x.device(), &[0], t);
        }
        subtract(
            &x.slice(&[range(Some(1), None)])?,
            &x.slice(&[range(None, Some(-1))])?,
        )
    };
    if opts.to_begin.is_none() && opts.to_end.is_none() {
        return body(&x);
    }
    let check = |v: &Array, what: &str| -> Result<Array> {
        if !can_cast_same_kind(v.dtype(), t) {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![v.dtype(), t],
                msg: format!(
                    "dtype of `{what}` must be compatible with input `ary` under the `same_kind` rule."
                ),
            });
        }
        v.ravel()
    };
    let begin = opts
        .to_begin
        .as_ref()
        .map(|v| check(v, "to_begin"))
        .transpose()?;
    let end = opts
        .to_end
        .as_ref()
        .map(|v| check(v, "to_end"))
        .transpose()?;
    let (lb, le, ld) = (
        begin.as_ref().map_or(0, |v| v.size()),
        end.as_ref().map_or(0, |v| v.size()),
        n.saturating_sub(1),
    );
    let out = Array::empty_on(x.device(), &[lb + ld + le], t)?;
    if let Some(b) = &begin {
        out.slice(&[range(None, Some(lb as isize))])?.copy_from(b)?;
    }
    if let Some(e) = &end {
        out.slice(&[range(Some((lb + ld) as isize), None)])?
            .copy_from(e)?;
    }
    if ld > 0 {
        out.slice(&[range(Some(lb as isize), Some((lb + ld) as isize))])?
            .copy_from(&body(&x)?)?;
    }
    Ok(out)
}
routine!(ediff1d, Statistics, probe: sub_probe, notes: "to_begin, to_end");

/// The spacing of one axis of [`gradient_with`] (NumPy's `varargs`).
#[derive(Clone, Debug)]
pub enum Spacing {
    /// A uniform step (a Python scalar in NumPy: it does not change the result's dtype).
    Uniform(f64),
    /// The coordinates along the axis (a 1-d array of the axis' length).
    Coordinates(Array),
}

/// Keyword arguments of [`gradient_with`] (`numpy.gradient(f, *varargs, axis=None,
/// edge_order=1)`).
#[derive(Clone, Debug)]
pub struct Gradient {
    /// The spacing (`varargs`): empty for 1 along every axis, one entry for every axis (a
    /// uniform step only), or one per axis.
    pub spacing: Vec<Spacing>,
    /// The axes (`axis=`; [`Axes::All`] is `None`).
    pub axis: Axes,
    /// The accuracy at the ends (`edge_order=`): 1 or 2.
    pub edge_order: usize,
}

impl Default for Gradient {
    fn default() -> Gradient {
        Gradient {
            spacing: vec![],
            axis: Axes::All,
            edge_order: 1,
        }
    }
}

/// The step of one axis as `gradient` uses it: a weak scalar, a strong scalar (coordinates
/// with a constant step: NumPy's `diffx[0]`, a NumPy scalar of the coordinates' dtype) or the
/// differences of the coordinates.
enum Step {
    Weak(f64),
    Strong(Array),
    Diffs(Array),
}

impl Step {
    fn arg(&self) -> Arg<'_> {
        match self {
            Step::Weak(v) => Arg::from(*v),
            Step::Strong(a) | Step::Diffs(a) => Arg::from(a),
        }
    }
}

/// `numpy.gradient(f)`: the gradient along every axis with unit spacing, one array per axis.
///
/// # Errors
/// As [`gradient_with`].
pub fn gradient(f: &Array) -> Result<Vec<Array>> {
    gradient_with(f, Gradient::default())
}

/// `numpy.gradient(f, *varargs, axis=..., edge_order=...)`: one array per axis of `axis`, in
/// the dtype of `f` (float64 for integer and bool `f`).
///
/// # Errors
/// [`Error::InvalidArgument`] for `edge_order` above 2, coordinates that are not 1-d or not of
/// the axis' length, or an axis shorter than `edge_order + 1` (NumPy's ValueErrors);
/// [`Error::TypeError`] for a spacing list of the wrong length; axis, dtype and device errors.
pub fn gradient_with(f: &Array, opts: Gradient) -> Result<Vec<Array>> {
    let op = "gradient";
    let nd = f.ndim();
    let axes = crate::statistics::reduction::normalize_axes(op, &opts.axis, nd)?;
    let mut steps: Vec<Step> = match opts.spacing.len() {
        0 => axes.iter().map(|_| Step::Weak(1.0)).collect(),
        1 if matches!(opts.spacing[0], Spacing::Uniform(_)) => {
            let Spacing::Uniform(v) = opts.spacing[0] else {
                unreachable!()
            };
            axes.iter().map(|_| Step::Weak(v)).collect()
        }
        n if n == axes.len() => vec![],
        _ => {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![f.dtype()],
                msg: "invalid number of arguments".into(),
            })
        }
    };
    if steps.is_empty() {
        for (i, s) in opts.spacing.iter().enumerate() {
            steps.push(match s {
                Spacing::Uniform(v) => Step::Weak(*v),
                Spacing::Coordinates(x) => {
                    if x.ndim() != 1 {
                        return Err(Error::invalid(op, "distances must be either scalars or 1d"));
                    }
                    if x.size() != f.shape()[axes[i]] {
                        return Err(Error::invalid(
                            op,
                            "when 1d, distances must match the length of the corresponding dimension",
                        ));
                    }
                    let x = if x.dtype().is_integer() {
                        x.astype(DType::Float64)?
                    } else {
                        x.clone()
                    };
                    let d = diff(&x)?;
                    let uniform = d.size() > 0
                        && crate::statistics::truth::all(&equal(&d, &d.slice(&[SliceItem::Index(0)])?)?)?
                            .to_vec::<bool>()?[0];
                    if uniform {
                        Step::Strong(d.slice(&[SliceItem::Index(0)])?)
                    } else {
                        Step::Diffs(d)
                    }
                }
            });
        }
    }
    if opts.edge_order > 2 {
        return Err(Error::invalid(
            op,
            "'edge_order' greater than 2 not supported",
        ));
    }
    let (f, otype) = match f.dtype() {
        t if t.is_inexact() => (f.clone(), t),
        t if t.is_integer() => (f.astype(DType::Float64)?, DType::Float64),
        _ => (f.clone(), DType::Float64),
    };
    let mut outs = vec![];
    for (&axis, dx) in axes.iter().zip(&steps) {
        let len = f.shape()[axis];
        if len < opts.edge_order + 1 {
            return Err(Error::invalid(
                op,
                "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are required.",
            ));
        }
        let out = Array::empty_on(f.device(), f.shape(), otype)?;
        let at = |i: isize| along(&f, axis, SliceItem::Index(i));
        let sl = |a: Option<isize>, b: Option<isize>| along(&f, axis, range(a, b));
        let put = |item: SliceItem, v: &Array| along(&out, axis, item)?.copy_from(v);
        // a 1-d array along `axis` (the other axes 1) for broadcasting
        let shaped = |a: &Array| -> Result<Array> {
            let shape: Vec<isize> = (0..nd).map(|i| if i == axis { -1 } else { 1 }).collect();
            a.reshape(&shape)
        };
        // interior: central differences
        if len > 2 {
            let v = match dx {
                Step::Diffs(d) => {
                    let dx1 = d.slice(&[range(Some(0), Some(-1))])?;
                    let dx2 = d.slice(&[range(Some(1), None)])?;
                    let sum = add(&dx1, &dx2)?;
                    let a = true_divide(&negative(&dx2)?, &multiply(&dx1, &sum)?)?;
                    let b = true_divide(&subtract(&dx2, &dx1)?, &multiply(&dx1, &dx2)?)?;
                    let c = true_divide(&dx1, &multiply(&dx2, &sum)?)?;
                    let (a, b, c) = (shaped(&a)?, shaped(&b)?, shaped(&c)?);
                    add(
                        &add(
                            &multiply(&a, &sl(None, Some(-2))?)?,
                            &multiply(&b, &sl(Some(1), Some(-1))?)?,
                        )?,
                        &multiply(&c, &sl(Some(2), None)?)?,
                    )?
                }
                s => {
                    let num = subtract(&sl(Some(2), None)?, &sl(None, Some(-2))?)?;
                    match s {
                        // two Python floats multiply on the host
                        Step::Weak(h) => true_divide(&num, 2.0 * h)?,
                        _ => true_divide(&num, &multiply(2.0, s.arg())?)?,
                    }
                }
            };
            put(range(Some(1), Some(-1)), &v)?;
        }
        let first = |d: &Array| d.slice(&[SliceItem::Index(0)]);
        let last = |d: &Array, k: isize| d.slice(&[SliceItem::Index(k)]);
        if opts.edge_order == 1 {
            let (d0, dn) = match dx {
                Step::Diffs(d) => (Step::Strong(first(d)?), Step::Strong(last(d, -1)?)),
                Step::Weak(v) => (Step::Weak(*v), Step::Weak(*v)),
                Step::Strong(a) => (Step::Strong(a.clone()), Step::Strong(a.clone())),
            };
            put(
                SliceItem::Index(0),
                &true_divide(&subtract(&at(1)?, &at(0)?)?, d0.arg())?,
            )?;
            put(
                SliceItem::Index(-1),
                &true_divide(&subtract(&at(-1)?, &at(-2)?)?, dn.arg())?,
            )?;
        } else {
            // coefficients of the two-sided second-order ends
            let (c0, cn): ([Step; 3], [Step; 3]) = match dx {
                Step::Diffs(d) => {
                    let (dx1, dx2) = (first(d)?, last(d, 1)?);
                    let s = add(&dx1, &dx2)?;
                    let a = true_divide(
                        &negative(&add(&multiply(2.0, &dx1)?, &dx2)?)?,
                        &multiply(&dx1, &s)?,
                    )?;
                    let b = true_divide(&s, &multiply(&dx1, &dx2)?)?;
                    let c = true_divide(&negative(&dx1)?, &multiply(&dx2, &s)?)?;
                    let (dx1, dx2) = (last(d, -2)?, last(d, -1)?);
                    let s = add(&dx1, &dx2)?;
                    let a2 = true_divide(&dx2, &multiply(&dx1, &s)?)?;
                    let b2 = true_divide(&negative(&add(&dx2, &dx1)?)?, &multiply(&dx1, &dx2)?)?;
                    let c2 = true_divide(&add(&multiply(2.0, &dx2)?, &dx1)?, &multiply(&dx2, &s)?)?;
                    let st = Step::Strong;
                    ([st(a), st(b), st(c)], [st(a2), st(b2), st(c2)])
                }
                // a Python float step gives Python float coefficients (weak)
                Step::Weak(h) => {
                    let w = |v: f64| Step::Weak(v / h);
                    ([w(-1.5), w(2.0), w(-0.5)], [w(0.5), w(-2.0), w(1.5)])
                }
                Step::Strong(h) => {
                    let k = |v: f64| true_divide(v, h).map(Step::Strong);
                    ([k(-1.5)?, k(2.0)?, k(-0.5)?], [k(0.5)?, k(-2.0)?, k(1.5)?])
                }
            };
            let comb = |c: &[Step; 3], i: [isize; 3]| -> Result<Array> {
                add(
                    &add(
                        &multiply(c[0].arg(), &at(i[0])?)?,
                        &multiply(c[1].arg(), &at(i[1])?)?,
                    )?,
                    &multiply(c[2].arg(), &at(i[2])?)?,
                )
            };
            put(SliceItem::Index(0), &comb(&c0, [0, 1, 2])?)?;
            put(SliceItem::Index(-1), &comb(&cn, [-3, -2, -1])?)?;
        }
        outs.push(out);
    }
    Ok(outs)
}
routine!(gradient, Statistics, probe: sub_probe, notes: "spacing (uniform or coordinates per axis), axis, edge_order 1/2");

/// Keyword arguments of [`trapezoid_with`] (`numpy.trapezoid(y, x=None, dx=1.0, axis=-1)`).
#[derive(Clone, Debug)]
pub struct Trapezoid {
    /// The sample points (`x=`): 1-d of the axis' length, or `y`'s shape.
    pub x: Option<Array>,
    /// The spacing when `x` is not given (`dx=`).
    pub dx: f64,
    /// The axis to integrate along (`axis=`, default -1).
    pub axis: isize,
}

impl Default for Trapezoid {
    fn default() -> Trapezoid {
        Trapezoid {
            x: None,
            dx: 1.0,
            axis: -1,
        }
    }
}

/// `numpy.trapezoid(y)`: the integral along the last axis by the trapezoidal rule, unit
/// spacing.
///
/// # Errors
/// As [`trapezoid_with`].
pub fn trapezoid(y: &Array) -> Result<Array> {
    trapezoid_with(y, Trapezoid::default())
}

/// `numpy.trapezoid(y, x=..., dx=..., axis=...)`: `sum(d * (y[1:] + y[:-1]) / 2)` along the
/// axis, `d` the differences of `x` (or `dx`).
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::ShapeMismatch`] for an `x` that does not broadcast;
/// dtype and device errors.
pub fn trapezoid_with(y: &Array, opts: Trapezoid) -> Result<Array> {
    let op = "trapezoid";
    if y.ndim() == 0 {
        return Err(Error::AxisOutOfRange {
            op: op.into(),
            axis: opts.axis,
            ndim: 0,
        });
    }
    let axis = normalize_axis(op, opts.axis, y.ndim())?;
    let hi = along(y, axis, range(Some(1), None))?;
    let lo = along(y, axis, range(None, Some(-1)))?;
    let s = add(&hi, &lo)?;
    let prod = match &opts.x {
        None => multiply(opts.dx, &s)?,
        Some(x) if x.ndim() == 1 => {
            let d = diff(x)?;
            let shape: Vec<isize> = (0..y.ndim())
                .map(|i| if i == axis { d.size() as isize } else { 1 })
                .collect();
            multiply(&d.reshape(&shape)?, &s)?
        }
        Some(x) => multiply(&diff_with(x, axis as isize)?, &s)?,
    };
    true_divide(&prod, 2.0)?.sum_axis(axis as isize)
}
routine!(trapezoid, Statistics, probe: sub_probe, notes: "x (1-d or y's shape), dx, axis");
