//! The NaN-ignoring reductions (NumPy's `nan*` functions, CuPy's `cupy/_math/sumprod.py` and
//! `cupy/_statistics`), each the kernel of its plain reduction rewritten:
//!
//! - `nansum`/`nanprod`: NaN reads as the identity (0, 1), as NumPy's `_replace_nan`; all-NaN
//!   gives 0 (1).
//! - `nanmax`/`nanmin`: NumPy's `fmax.reduce`/`fmin.reduce`: NaN loses to any number, and the
//!   identity is NaN, so an all-NaN slice gives NaN (NumPy also warns); an empty axis is an
//!   error unless `initial` is given.
//! - `nanmean`: a (sum, count) tuple over the non-NaN elements (NaN where there are none).
//! - `nanvar`/`nanstd`: the moments kernel with NaN elements counted out; `n - ddof <= 0`
//!   gives NaN, as NumPy's `nanvar` (where `var` gives inf).
//! - `nanargmax`/`nanargmin`: NaN reads as -inf (+inf), as NumPy, and a slice of only NaN is
//!   NumPy's ValueError "All-NaN slice encountered" (checked by one bool reduction first).
//!
//! Integer and bool inputs have no NaN: each is its plain reduction.

use super::keywords::replace_nan;
use super::order::extreme;
use super::reduction::{no_dtype, reduce_with, Axes, Reduce};
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel, UnaryOp};
use cupy_core::kernel::reductions::{arg_extreme, Extreme, Moment};
use cupy_core::scalar::Scalar;
use num_complex::Complex;

/// True for dtypes that hold NaN.
fn has_nan(t: DType) -> bool {
    t.is_float() || t.is_complex()
}

/// NaN in dtype `t` (both parts for complex).
fn nan_of(t: DType) -> Scalar {
    match t {
        DType::Complex64 => Scalar::Complex64(Complex::new(f32::NAN, f32::NAN)),
        DType::Complex128 => Scalar::Complex128(Complex::new(f64::NAN, f64::NAN)),
        t => Scalar::Float64(f64::NAN).cast(t),
    }
}

/// `nansum`/`nanprod`: the plain kernel reading NaN as its identity.
fn nan_sum_or_prod(name: &str, sum: bool, t: DType, opts: &Reduce) -> Result<Kernel> {
    let (mut k, p) = super::sums::sum_or_prod(name, sum, t, opts)?;
    let id = if sum { 0.0 } else { 1.0 };
    k = replace_nan(k, Scalar::Float64(id));
    Ok((k, p))
}

/// A built kernel and its parameter values.
type Kernel = (ReduceKernel, Vec<Scalar>);

/// `nanmax`/`nanmin`: `fmax`/`fmin` with a NaN identity for float and complex inputs.
fn nan_extreme(name: &str, max: bool, t: DType, opts: &Reduce) -> Result<Kernel> {
    if !has_nan(t) {
        return extreme(name, max, t, opts);
    }
    no_dtype(name, opts)?;
    let op = if max { BinaryOp::FMax } else { BinaryOp::FMin };
    let mut k = ReduceKernel::simple(name, t, t, op, nan_of(t), t);
    if t.is_complex() {
        // NumPy's fmax.reduce returns the first NaN of an all-NaN slice (`nan+0j`, not a NaN
        // of our making): the identity is `nan + MAX j` (MAX the largest finite real),
        // recognised by value and passed over by the combine, so a backend's empty partials
        // never win over an element. (An element that is itself `nan + MAX j` is passed over
        // too: it is returned only where nothing else is there, and then the value is the
        // same.)
        let (identity, max) = match t {
            DType::Complex64 => (
                Scalar::Complex64(Complex::new(f32::NAN, f32::MAX)),
                Scalar::Float32(f32::MAX),
            ),
            _ => (
                Scalar::Complex128(Complex::new(f64::NAN, f64::MAX)),
                Scalar::Float64(f64::MAX),
            ),
        };
        k.identity = vec![identity];
        let (a, b) = (Expr::var(0, t), Expr::var(1, t));
        let is_identity = Expr::binary(
            BinaryOp::And,
            Expr::unary(UnaryOp::IsNan, Expr::unary(UnaryOp::Real, a.clone())),
            Expr::binary(
                BinaryOp::Eq,
                Expr::unary(UnaryOp::Imag, a.clone()),
                Expr::constant(max),
            ),
        );
        k.combine = vec![Expr::select(is_identity, b.clone(), Expr::binary(op, a, b))];
    }
    Ok((k, vec![]))
}

/// `nanmean`: [`super::averages::mean_pair`] skipping NaN (integers: `mean`).
fn nanmean_kernel(t: DType, opts: &Reduce, count: usize) -> Result<Kernel> {
    if !has_nan(t) {
        let (mut k, p) = super::averages::mean_kernel(t, opts, count)?;
        k.name = "nanmean".into();
        return Ok((k, p));
    }
    Ok((super::averages::mean_pair("nanmean", t, opts, true), vec![]))
}

/// `nanvar`/`nanstd`: the moments kernel with NaN elements counted out and NumPy's `nanvar`
/// divisor rule (`n - ddof <= 0` gives NaN); integers: `var`/`std`.
fn nan_moment(name: &str, which: Moment, t: DType, opts: &Reduce) -> Result<Kernel> {
    let (mut k, p) = super::averages::moment(name, which, t, opts)?;
    if !has_nan(t) {
        return Ok((k, p));
    }
    let keep = Expr::unary(UnaryOp::Not, Expr::unary(UnaryOp::IsNan, Expr::input(0, t)));
    k.map = k
        .map
        .iter()
        .zip(&k.identity)
        .map(|(e, &id)| Expr::select(keep.clone(), e.clone(), Expr::constant(id)))
        .collect();
    // A NaN element maps to the identity, not to one element: the fold (Welford's update,
    // which takes each mapped element as a count of one) would count it. (The cpu backend
    // does not fold, so only the GPU backends gave NaN here.)
    k.fold.clear();
    // NumPy's nanvar divisor rule on top of the moments kernel's own post (which already
    // gives NaN for a mean that is not finite): `n - ddof <= 0` gives NaN.
    let f = k.params[0];
    let dof = Expr::binary(
        BinaryOp::Sub,
        Expr::var(0, DType::Int64).cast(f),
        Expr::param(0, f),
    );
    k.post = Expr::select(
        Expr::binary(BinaryOp::Gt, dof, Expr::constant(Scalar::zero(f))),
        k.post.clone(),
        Expr::constant(nan_of(f)).cast(k.output),
    );
    Ok((k, p))
}

/// `nanargmax`/`nanargmin`: `argmax`/`argmin` with NaN read as -inf/+inf (complex: `-inf+0j`).
fn nan_arg(which: Extreme, t: DType, opts: &Reduce) -> Result<Kernel> {
    let name = match which {
        Extreme::Max => "nanargmax",
        Extreme::Min => "nanargmin",
    };
    no_dtype(name, opts)?;
    if let Axes::Some(axes) = &opts.axis {
        if axes.len() > 1 {
            return Err(Error::invalid(
                name,
                format!(
                    "axis must be one axis or None, got {axes:?} (numpy.{name} takes no tuple)"
                ),
            ));
        }
    }
    let mut k = arg_extreme(t, which);
    k.name = name.into();
    let fill = match which {
        Extreme::Max => f64::NEG_INFINITY,
        Extreme::Min => f64::INFINITY,
    };
    Ok((replace_nan(k, Scalar::Float64(fill)), vec![]))
}

/// NumPy's "All-NaN slice encountered" of `nanargmax`/`nanargmin`: one `all(isnan)` reduction
/// over the axes, read back.
fn all_nan_check(a: &Array, opts: &Reduce) -> Result<()> {
    let t = a.dtype();
    if !has_nan(t) || a.size() == 0 {
        return Ok(());
    }
    let b = DType::Bool;
    let mut k = ReduceKernel::simple("all_nan", t, b, BinaryOp::And, Scalar::Bool(true), b);
    k.map = vec![Expr::unary(UnaryOp::IsNan, Expr::input(0, t))];
    let r = reduce_with("nanargmax", &k, vec![], &[a], &opts.axis, false)?;
    if r.to_vec::<bool>()?.into_iter().any(|x| x) {
        return Err(Error::invalid("nanargmax", "All-NaN slice encountered"));
    }
    Ok(())
}

reductions! {
    family: "nan";
    /// The sum treating NaN as zero (`numpy.nansum`; dtypes as `sum`).
    nansum / nansum_axis / nansum_with, takes "initial where" => |t, opts, _| nan_sum_or_prod("nansum", true, t, opts);
    /// The product treating NaN as one (`numpy.nanprod`; dtypes as `prod`).
    nanprod / nanprod_axis / nanprod_with, takes "initial where" => |t, opts, _| nan_sum_or_prod("nanprod", false, t, opts);
    /// The maximum ignoring NaN (`numpy.nanmax`: `fmax.reduce`; all-NaN gives NaN; an empty
    /// axis is an error unless `initial` is given).
    nanmax / nanmax_axis / nanmax_with, empty "zero-size array to reduction operation fmax which has no identity", takes "initial where" => |t, opts, _| nan_extreme("nanmax", true, t, opts);
    /// The minimum ignoring NaN (`numpy.nanmin`: `fmin.reduce`; all-NaN gives NaN).
    nanmin / nanmin_axis / nanmin_with, empty "zero-size array to reduction operation fmin which has no identity", takes "initial where" => |t, opts, _| nan_extreme("nanmin", false, t, opts);
    /// The mean of the non-NaN elements (`numpy.nanmean`; NaN where there are none).
    nanmean / nanmean_axis / nanmean_with, takes "where" => |t, opts, count| nanmean_kernel(t, opts, count);
    /// The variance of the non-NaN elements (`numpy.nanvar`; `n - ddof <= 0` gives NaN).
    nanvar / nanvar_axis / nanvar_with, takes "where" => |t, opts, _| nan_moment("nanvar", Moment::Var, t, opts);
    /// The standard deviation of the non-NaN elements (`numpy.nanstd`).
    nanstd / nanstd_axis / nanstd_with, takes "where" => |t, opts, _| nan_moment("nanstd", Moment::Std, t, opts);
    /// The index of the maximum ignoring NaN (`numpy.nanargmax`, int64; an all-NaN slice is an
    /// error).
    nanargmax / nanargmax_axis / nanargmax_with, empty "attempt to get argmax of an empty sequence", check all_nan_check
        => |t, opts, _| nan_arg(Extreme::Max, t, opts);
    /// The index of the minimum ignoring NaN (`numpy.nanargmin`, int64; an all-NaN slice is an
    /// error).
    nanargmin / nanargmin_axis / nanargmin_with, empty "attempt to get argmin of an empty sequence", check all_nan_check
        => |t, opts, _| nan_arg(Extreme::Min, t, opts);
}
