//! Correlating (NumPy's "Correlating", CuPy's `cupy/_statistics/correlation.py`): `cov`
//! (rowvar, bias, ddof, fweights, aweights, dtype) and `corrcoef`, NumPy's algorithm over
//! [`average_returned`], ufuncs and one `matmul`, so dtypes and rounding follow NumPy's.

use super::averages::{average_returned, Average};
use crate::array::Array;
use crate::launch::elementwise;
use crate::linalg::matmul;
use crate::math::arithmetic::{multiply, subtract, true_divide};
use crate::math::complex::conjugate;
use crate::math::misc::sqrt;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, UnaryOp as U};
use cupy_core::layout::Layout;
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

/// Keyword arguments of [`cov_with`] (`numpy.cov(m, y=None, rowvar=True, bias=False,
/// ddof=None, fweights=None, aweights=None, dtype=None)`).
#[derive(Clone, Debug)]
pub struct Cov {
    /// More variables (`y=`), stacked after `m`'s.
    pub y: Option<Array>,
    /// Each row is a variable and each column an observation (`rowvar=`, default true);
    /// false: the transpose.
    pub rowvar: bool,
    /// Normalize by `N` instead of `N - 1` (`bias=`); overridden by `ddof`.
    pub bias: bool,
    /// Delta degrees of freedom (`ddof=`); `None`: 1, or 0 with `bias`.
    pub ddof: Option<i64>,
    /// Integer frequency weights per observation (`fweights=`, 1-d).
    pub fweights: Option<Array>,
    /// Observation weights (`aweights=`, 1-d).
    pub aweights: Option<Array>,
    /// The computation and result dtype (`dtype=`); `None`: `result_type(m, y, float64)`.
    pub dtype: Option<DType>,
}

impl Default for Cov {
    fn default() -> Cov {
        Cov {
            y: None,
            rowvar: true,
            bias: false,
            ddof: None,
            fweights: None,
            aweights: None,
            dtype: None,
        }
    }
}

/// `a` as at least 2-d (`ndmin=2`: a 1-d array is one row).
fn at_least_2d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1, 1]),
        1 => a.reshape(&[1, a.size() as isize]),
        _ => Ok(a.clone()),
    }
}

/// The host values of 1-d weights, checked as NumPy checks them.
fn weights(op: &str, w: &Array, n: usize, what: &str, integer: bool) -> Result<Vec<f64>> {
    if w.ndim() > 1 {
        return Err(Error::invalid(
            op,
            format!("cannot handle multidimensional {what} (NumPy's RuntimeError)"),
        ));
    }
    if w.size() != n {
        return Err(Error::invalid(
            op,
            format!("incompatible numbers of samples and {what} (NumPy's RuntimeError)"),
        ));
    }
    let v = w.astype(DType::Float64)?.ravel()?.to_vec::<f64>()?;
    if integer && v.iter().any(|x| *x != x.round_ties_even()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![w.dtype()],
            msg: "fweights must be integer".into(),
        });
    }
    if v.iter().any(|x| *x < 0.0) {
        return Err(Error::invalid(op, format!("{what} cannot be negative")));
    }
    Ok(v)
}

/// `numpy.cov(m)`: the covariance matrix of the rows of `m` (squeezed: a 0-d array for one
/// variable).
///
/// # Errors
/// As [`cov_with`].
pub fn cov(m: &Array) -> Result<Array> {
    cov_with(m, Cov::default())
}

/// `numpy.cov(m, y=..., rowvar=..., bias=..., ddof=..., fweights=..., aweights=...,
/// dtype=...)`. `N - ddof <= 0` gives inf/NaN (NumPy warns).
///
/// # Errors
/// [`Error::InvalidArgument`] for more than 2 dimensions, weights of the wrong shape or
/// negative (NumPy's ValueError/RuntimeError), `m` and `y` with different numbers of
/// observations; [`Error::TypeError`] for non-integer `fweights` and an integer or bool
/// `dtype=` (NumPy's UFuncTypeError); dtype and device errors
/// (complex on wgpu; GEMM dtypes).
pub fn cov_with(m: &Array, opts: Cov) -> Result<Array> {
    let op = "cov";
    if m.ndim() > 2 {
        return Err(Error::invalid(op, "m has more than 2 dimensions"));
    }
    if let Some(y) = &opts.y {
        if y.ndim() > 2 {
            return Err(Error::invalid(op, "y has more than 2 dimensions"));
        }
    }
    if let Some(d) = opts.dtype.filter(|d| !d.is_inexact()) {
        // NumPy casts the data to `dtype` and subtracts the float64 mean in place, which
        // `same_kind` refuses for integer and bool types (UFuncTypeError).
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![d],
            msg: format!(
                "Cannot cast ufunc 'subtract' output from dtype('float64') to dtype('{}') with casting rule 'same_kind'",
                d.name()
            ),
        });
    }
    let dtype = opts.dtype.unwrap_or_else(|| {
        let mut t = promote_types(m.dtype(), DType::Float64);
        if let Some(y) = &opts.y {
            t = promote_types(t, y.dtype());
        }
        t
    });
    let mut x = at_least_2d(&m.astype(dtype)?)?;
    if !opts.rowvar && m.ndim() != 1 {
        x = x.t();
    }
    if x.shape()[0] == 0 {
        return Array::zeros_on(m.device(), &[0, 0], DType::Float64);
    }
    if let Some(y) = &opts.y {
        let mut y = at_least_2d(&y.astype(dtype)?)?;
        if !opts.rowvar && y.shape()[0] != 1 {
            y = y.t();
        }
        if y.shape()[1] != x.shape()[1] {
            return Err(Error::invalid(
                op,
                format!(
                    "all the input array dimensions except for the concatenation axis must match: m has {} observations, y {}",
                    x.shape()[1],
                    y.shape()[1]
                ),
            ));
        }
        let (a, b) = (x.shape()[0], y.shape()[0]);
        let both = Array::empty_on(m.device(), &[a + b, x.shape()[1]], dtype)?;
        both.slice(&crate::s![..a as isize])?.copy_from(&x)?;
        both.slice(&crate::s![a as isize..])?.copy_from(&y)?;
        x = both;
    }
    let nobs = x.shape()[1];
    let ddof = opts.ddof.unwrap_or(if opts.bias { 0 } else { 1 });
    let fw = match &opts.fweights {
        Some(w) => Some(weights(op, w, nobs, "fweights", true)?),
        None => None,
    };
    let aw = match &opts.aweights {
        Some(w) => Some(weights(op, w, nobs, "aweights", false)?),
        None => None,
    };
    let w: Option<Vec<f64>> = match (&fw, &aw) {
        (None, None) => None,
        (Some(f), None) => Some(f.clone()),
        (None, Some(a)) => Some(a.clone()),
        (Some(f), Some(a)) => Some(f.iter().zip(a).map(|(f, a)| f * a).collect()),
    };
    let w_arr = match &w {
        Some(v) => Some(Array::from_slice_on(m.device(), v, &[nobs])?),
        None => None,
    };
    let (avg, w_sum) = average_returned(
        &x,
        Average {
            axis: 1.into(),
            weights: w_arr.clone(),
            keepdims: false,
        },
    )?;
    let w_sum = if w_sum.dtype().is_complex() {
        w_sum
            .astype(DType::Complex128)?
            .to_vec::<num_complex::Complex<f64>>()?[0]
            .re
    } else {
        w_sum.astype(DType::Float64)?.to_vec::<f64>()?[0]
    };
    let fact = match (&w, &aw) {
        (None, _) => nobs as f64 - ddof as f64,
        _ if ddof == 0 => w_sum,
        (Some(_), None) => w_sum - ddof as f64,
        (Some(w), Some(a)) => {
            let s: f64 = w.iter().zip(a).map(|(w, a)| w * a).sum();
            w_sum - ddof as f64 * s / w_sum
        }
    };
    let fact = if fact <= 0.0 { 0.0 } else { fact };
    // X -= avg[:, None] (in place: the difference cast back to X's dtype)
    let xc = subtract(&x, &avg.reshape(&[-1, 1])?)?.astype(dtype)?;
    let xt = match &w_arr {
        None => xc.t(),
        Some(w) => multiply(&xc, w)?.t(),
    };
    let c = matmul(&xc, &conjugate(&xt)?)?;
    // c *= np.true_divide(1, fact): a float64 scalar, the product cast back to c's dtype
    let scale = Scalar::Float64(1.0 / fact);
    let c = multiply(&c, scale)?.astype(c.dtype())?;
    Ok(c.squeeze())
}
routine!(
    cov,
    Statistics,
    probe: gemm_probe,
    notes: "y, rowvar, bias, ddof, fweights, aweights, dtype"
);

/// The registry probe of `cov`/`corrcoef`: they compute in `result_type(m, float64)`, so
/// complex input needs the complex GEMM and real input float64 (the cast probes it).
fn gemm_probe(t: DType) -> Option<crate::registry::Need> {
    Some(if t.is_complex() {
        crate::registry::Need::Primitive(cupy_core::backend::Primitive::Gemm)
    } else {
        crate::registry::Need::Kernel(Kernel::map(
            "cov_cast",
            vec![t],
            vec![],
            Expr::input(0, t).cast(DType::Float64),
        ))
    })
}

/// Keyword arguments of [`corrcoef_with`] (`numpy.corrcoef(x, y=None, rowvar=True,
/// dtype=None)`).
#[derive(Clone, Debug)]
pub struct Corrcoef {
    /// More variables (`y=`).
    pub y: Option<Array>,
    /// Rows are variables (`rowvar=`, default true).
    pub rowvar: bool,
    /// The computation and result dtype (`dtype=`).
    pub dtype: Option<DType>,
}

impl Default for Corrcoef {
    fn default() -> Corrcoef {
        Corrcoef {
            y: None,
            rowvar: true,
            dtype: None,
        }
    }
}

/// `numpy.corrcoef(x)`: Pearson correlation coefficients of the rows of `x`.
///
/// # Errors
/// As [`corrcoef_with`].
pub fn corrcoef(x: &Array) -> Result<Array> {
    corrcoef_with(x, Corrcoef::default())
}

/// `numpy.corrcoef(x, y=..., rowvar=..., dtype=...)`: `cov / sqrt(diag * diag^T)`, each part
/// clipped to `[-1, 1]` (NaN kept), as NumPy.
///
/// # Errors
/// As [`cov_with`].
pub fn corrcoef_with(x: &Array, opts: Corrcoef) -> Result<Array> {
    let c = cov_with(
        x,
        Cov {
            y: opts.y,
            rowvar: opts.rowvar,
            dtype: opts.dtype,
            ..Default::default()
        },
    )?;
    if c.ndim() != 2 {
        // a scalar covariance: NaN for nan/inf/0, else 1
        return true_divide(&c, &c);
    }
    let k = c.shape()[0];
    let l = c.layout();
    let diag = c.with_layout(Layout {
        shape: vec![k],
        strides: vec![l.strides[0] + l.strides[1]],
        offset: l.offset,
    });
    let t = c.dtype();
    let real = if t.is_complex() {
        real_part(&diag)?
    } else {
        diag
    };
    let sd = sqrt(&real)?;
    // in place: c /= stddev[:, None]; c /= stddev[None, :] (each quotient back in c's dtype)
    let c = true_divide(&c, &sd.reshape(&[-1, 1])?)?.astype(t)?;
    let c = true_divide(&c, &sd.reshape(&[1, -1])?)?.astype(t)?;
    clip_unit(&c)
}
routine!(corrcoef, Statistics, probe: gemm_probe, notes: "y, rowvar, dtype");

/// The kernel of the real part of a complex dtype.
fn real_kernel(t: DType) -> Kernel {
    Kernel::map(
        "real",
        vec![t],
        vec![],
        Expr::unary(U::Real, Expr::input(0, t)),
    )
}

/// The real part of a complex array.
fn real_part(a: &Array) -> Result<Array> {
    Ok(elementwise(&real_kernel(a.dtype()), &[a], &[], vec![])?.remove(0))
}

/// The kernel clipping each part to `[-1, 1]`, NaN kept.
fn clip_kernel(t: DType) -> Kernel {
    let clip = |x: Expr| {
        let d = x.ty;
        let one = Expr::constant(Scalar::one(d));
        let neg = Expr::constant(Scalar::Float64(-1.0).cast(d));
        Expr::binary(B::Min, Expr::binary(B::Max, x, neg), one)
    };
    let x = Expr::input(0, t);
    let body = if t.is_complex() {
        Expr::complex(
            clip(Expr::unary(U::Real, x.clone())),
            clip(Expr::unary(U::Imag, x)),
        )
    } else {
        clip(x)
    };
    Kernel::map("clip_unit", vec![t], vec![], body)
}

/// Each part clipped to `[-1, 1]`, NaN kept (NumPy's `clip` of `c.real` and `c.imag`).
fn clip_unit(a: &Array) -> Result<Array> {
    Ok(elementwise(&clip_kernel(a.dtype()), &[a], &[], vec![])?.remove(0))
}

/// The elementwise kernels of this family (for the backends' compile checks).
#[cfg(test)]
pub(crate) fn every_kernel() -> Vec<Kernel> {
    let mut v = vec![];
    for t in [
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        if t.is_complex() {
            v.push(real_kernel(t));
        }
        v.push(clip_kernel(t));
    }
    v
}
