//! Norms (`norm`, `vector_norm`, `matrix_norm`) and `cond`, composed from `absolute`,
//! reductions and `svdvals`, so they run on every backend.

use super::products::norm_input;
use crate::array::Array;
use crate::statistics::reduction::{Axes, Reduce};
use cupy_core::error::{Error, Result};
use cupy_core::layout::normalize_axis;
use cupy_core::promote::WeakScalar;

/// The `ord` of a norm: a number (`inf` and `-inf` included), `"fro"` or `"nuc"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// A number: `1`, `2`, `-1`, `f64::INFINITY`, `0` (vectors: count of non-zeros), ...
    P(f64),
    /// The Frobenius norm (matrices).
    Fro,
    /// The nuclear norm, the sum of the singular values (matrices).
    Nuc,
}

impl From<f64> for NormOrd {
    fn from(p: f64) -> NormOrd {
        NormOrd::P(p)
    }
}

/// NumPy's keyword arguments of [`norm_with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Norm {
    /// `ord=` (`None`: the 2-norm of vectors, Frobenius of matrices).
    pub ord: Option<NormOrd>,
    /// `axis=`: `None` (a 1-D or 2-D input, or any input with `ord=None`), one axis (vector
    /// norms) or two (matrix norms).
    pub axis: Option<Vec<isize>>,
    /// `keepdims=`.
    pub keepdims: bool,
}

fn red(axis: Vec<isize>, keepdims: bool) -> Reduce {
    Reduce {
        axis: Axes::Some(axis),
        keepdims,
        ..Default::default()
    }
}

/// `sum(|x|^2)` then `sqrt`, over `axis`.
fn two_norm(x: &Array, axes: Axes, keepdims: bool) -> Result<Array> {
    let a = crate::math::misc::absolute(x)?;
    let sq = crate::math::arithmetic::multiply(&a, &a)?;
    let s = sq.sum_with(Reduce {
        axis: axes,
        keepdims,
        ..Default::default()
    })?;
    crate::math::misc::sqrt(&s)
}

/// `numpy.linalg.vector_norm(x, axis, keepdims, ord)`: over every axis (`axis = None`) or the
/// given ones; `ord` = `inf` (max |x|), `-inf` (min), `0` (count of non-zeros), `1`, `2`
/// (default) or any `p` (`sum(|x|^p)^(1/p)`). Integers compute in float64.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; an empty input with `ord = -inf` (NumPy's min of an empty
/// array; `ord = inf` gives 0 there, NumPy's `initial=0`).
pub fn vector_norm(x: &Array, axis: Option<&[isize]>, keepdims: bool, ord: f64) -> Result<Array> {
    let x = norm_input(x)?;
    let axes = match axis {
        None => Axes::All,
        Some(a) => Axes::Some(a.to_vec()),
    };
    let opts = Reduce {
        axis: axes.clone(),
        keepdims,
        ..Default::default()
    };
    let real = x.dtype().real_dtype();
    let a = crate::math::misc::absolute(&x)?;
    if ord == 2.0 {
        two_norm(&x, axes, keepdims)
    } else if ord == f64::INFINITY {
        // NumPy's `initial=0`: the norm of an empty vector is 0
        a.max_with(Reduce {
            initial: Some(WeakScalar::Int(0)),
            ..opts
        })
    } else if ord == f64::NEG_INFINITY {
        a.min_with(opts)
    } else if ord == 0.0 {
        crate::not_equal(&a, 0.0)?.astype(real)?.sum_with(opts)
    } else if ord == 1.0 {
        a.sum_with(opts)
    } else {
        let p = crate::math::arithmetic::power(&a, ord)?;
        let s = p.sum_with(opts)?;
        crate::math::arithmetic::power(&s, 1.0 / ord)
    }
}
routine!(vector_norm as "cupy.linalg.vector_norm", Linalg);

/// `numpy.linalg.matrix_norm(x, keepdims, ord)` over the last two axes: `Fro` (default),
/// `Nuc`, `P(1)`/`P(-1)` (max/min column sum), `P(inf)`/`P(-inf)` (max/min row sum), `P(2)` /
/// `P(-2)` (largest/smallest singular value).
///
/// # Errors
/// [`Error::InvalidArgument`] for another ord; [`Error::LinAlgError`] for fewer than two
/// dimensions.
pub fn matrix_norm(x: &Array, keepdims: bool, ord: NormOrd) -> Result<Array> {
    super::primitive::assert_stacked_2d("matrix_norm", x)?;
    matrix_norm_axes(x, -2, -1, keepdims, ord)
}
routine!(matrix_norm as "cupy.linalg.matrix_norm", Linalg, probe: super::solve::linalg_probe);

fn matrix_norm_axes(x: &Array, r: isize, c: isize, keepdims: bool, ord: NormOrd) -> Result<Array> {
    let op = "norm";
    let x = norm_input(x)?;
    let nd = x.ndim();
    let (r, c) = (normalize_axis(op, r, nd)?, normalize_axis(op, c, nd)?);
    if r == c {
        return Err(Error::invalid(op, "Duplicate axes given."));
    }
    let a = crate::math::misc::absolute(&x)?;
    // Reduce over one axis then the other (the second index shifts if it came after the
    // first without keepdims).
    let two = |first: usize,
               second: usize,
               f1: &dyn Fn(&Array, Reduce) -> Result<Array>,
               f2: &dyn Fn(&Array, Reduce) -> Result<Array>|
     -> Result<Array> {
        let s = f1(&a, red(vec![first as isize], true))?;
        let m = f2(&s, red(vec![second as isize], true))?;
        if keepdims {
            Ok(m)
        } else {
            let shape: Vec<isize> = (0..nd)
                .filter(|&i| i != first && i != second)
                .map(|i| x.shape()[i] as isize)
                .collect();
            m.reshape(&shape)
        }
    };
    let sum = |x: &Array, o: Reduce| x.sum_with(o);
    // NumPy's `initial=0` for the maxima: an empty matrix's 1-, inf- and 2-norms are 0
    let max = |x: &Array, o: Reduce| {
        x.max_with(Reduce {
            initial: Some(WeakScalar::Int(0)),
            ..o
        })
    };
    let min = |x: &Array, o: Reduce| x.min_with(o);
    match ord {
        NormOrd::Fro => two_norm(&x, Axes::Some(vec![r as isize, c as isize]), keepdims),
        NormOrd::P(1.0) => two(r, c, &sum, &max),
        NormOrd::P(-1.0) => two(r, c, &sum, &min),
        NormOrd::P(p) if p == f64::INFINITY => two(c, r, &sum, &max),
        NormOrd::P(p) if p == f64::NEG_INFINITY => two(c, r, &sum, &min),
        NormOrd::Nuc | NormOrd::P(_) => {
            let p = match ord {
                NormOrd::P(p) => p,
                _ => 0.0,
            };
            if ord != NormOrd::Nuc && p != 2.0 && p != -2.0 {
                return Err(Error::invalid(op, "Invalid norm order for matrices."));
            }
            let moved = x.moveaxis(&[r as isize, c as isize], &[-2, -1])?;
            let s = super::eigen::svdvals(&moved)?;
            let v = match ord {
                NormOrd::Nuc => s.sum_axis(-1isize)?,
                _ if p == 2.0 => max(&s, red(vec![-1], false))?,
                _ => s.min_axis(-1isize)?,
            };
            if keepdims {
                let mut shape: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
                shape[r] = 1;
                shape[c] = 1;
                v.reshape(&shape)
            } else {
                Ok(v)
            }
        }
    }
}

/// `numpy.linalg.norm(x)`: the 2-norm of the flattened input.
///
/// # Errors
/// As [`norm_with`].
pub fn norm(x: &Array) -> Result<Array> {
    norm_with(x, Norm::default())
}
routine!(norm as "cupy.linalg.norm", Linalg, notes: "every ord, axis tuples, keepdims (norm_with)");

/// `numpy.linalg.norm(x, ord, axis, keepdims)`.
///
/// # Errors
/// [`Error::InvalidArgument`] for an ord the input's rank has no norm for ("Improper number of
/// dimensions to norm.", "Invalid norm order ..."), or more than two axes.
pub fn norm_with(x: &Array, opts: Norm) -> Result<Array> {
    let op = "norm";
    let nd = x.ndim() as isize;
    let axis: Vec<isize> = match (&opts.axis, opts.ord) {
        (None, None) => {
            let r = two_norm(&norm_input(x)?, Axes::All, opts.keepdims)?;
            return Ok(r);
        }
        (None, Some(_)) => match nd {
            1 => vec![0],
            2 => vec![0, 1],
            _ => return Err(Error::invalid(op, "Improper number of dimensions to norm.")),
        },
        (Some(a), _) => a.clone(),
    };
    match axis.len() {
        1 => {
            let p = match opts.ord {
                None => 2.0,
                Some(NormOrd::P(p)) => p,
                Some(_) => return Err(Error::invalid(op, "Invalid norm order for vectors.")),
            };
            normalize_axis(op, axis[0], x.ndim())?;
            vector_norm(x, Some(&axis), opts.keepdims, p)
        }
        2 => matrix_norm_axes(
            x,
            axis[0],
            axis[1],
            opts.keepdims,
            opts.ord.unwrap_or(NormOrd::Fro),
        ),
        _ => Err(Error::invalid(op, "Improper number of dimensions to norm.")),
    }
}

/// `numpy.linalg.cond(x)`: the 2-norm condition number `s_max / s_min` of each matrix.
///
/// # Errors
/// As [`cond_with`].
pub fn cond(x: &Array) -> Result<Array> {
    cond_with(x, None)
}
routine!(cond as "cupy.linalg.cond", Linalg, probe: super::solve::linalg_probe, notes: "p in cond_with");

/// `numpy.linalg.cond(x, p)`: `p = None`/`2` (`s_max / s_min`), `-2` (`s_min / s_max`), or any
/// matrix-norm order (`norm(x, p) * norm(inv(x), p)`, square input; a singular matrix gives
/// inf as NumPy; the result has the input's dtype, complex included, as NumPy's).
///
/// # Errors
/// [`Error::LinAlgError`] "cond is not defined on empty arrays", or non-square input for a
/// non-2 order.
pub fn cond_with(x: &Array, p: Option<NormOrd>) -> Result<Array> {
    let op = "cond";
    super::primitive::assert_stacked_2d(op, x)?;
    // NumPy's `_is_empty_2d`: empty matrices, not an empty batch of them
    let nd = x.ndim();
    if x.shape()[nd - 2] * x.shape()[nd - 1] == 0 {
        return Err(Error::linalg(op, "cond is not defined on empty arrays"));
    }
    match p {
        None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
            let s = super::eigen::svdvals(x)?;
            let hi = s.slice(&[
                cupy_core::layout::SliceItem::Ellipsis,
                cupy_core::layout::SliceItem::Index(0),
            ])?;
            let lo = s.slice(&[
                cupy_core::layout::SliceItem::Ellipsis,
                cupy_core::layout::SliceItem::Index(-1),
            ])?;
            if p == Some(NormOrd::P(-2.0)) {
                crate::math::arithmetic::true_divide(&lo, &hi)
            } else {
                crate::math::arithmetic::true_divide(&hi, &lo)
            }
        }
        Some(ord) => {
            super::primitive::assert_stacked_square(op, x)?;
            let inv = match super::solve::inv(x) {
                Ok(i) => i,
                Err(Error::LinAlgError { .. }) => {
                    let t = super::primitive::linalg_dtype(op, &[x.dtype()])?;
                    return Array::full_on(
                        x.device(),
                        &x.shape()[..x.ndim() - 2],
                        f64::INFINITY,
                        t.real_dtype(),
                    );
                }
                Err(e) => return Err(e),
            };
            let a = matrix_norm(x, false, ord)?;
            let b = matrix_norm(&inv, false, ord)?;
            // NumPy casts this branch's result to the input's (complex) dtype.
            let t = super::primitive::linalg_dtype(op, &[x.dtype()])?;
            crate::math::arithmetic::multiply(&a, &b)?.astype(t)
        }
    }
}
