//! Scans: `cumsum`, `cumprod` (NumPy's API and dtype rules), on the backend's
//! [`Backend::scan`](cupy_core::Backend::scan) primitive over `[batch, n]` rows (see
//! [`super`]).
//!
//! Bool and signed integers narrower than 64 bits accumulate in int64, unsigned ones in
//! uint64 (as `sum`); float16/bfloat16 stay (each step rounded, as NumPy's float16
//! accumulate); floats and complex stay. Integer overflow wraps.

use super::{back, rows};
use crate::array::Array;
use crate::registry::Need;
use cupy_core::backend::{Operand, Primitive, ScanCall, ScanOp};
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::Error;
use cupy_core::error::Result;

/// Keyword arguments of [`cumsum_with`] and [`cumprod_with`]: NumPy's `axis=` (default `None`:
/// over the flattened array) and `dtype=` (the accumulation and result dtype; `None` is NumPy's
/// default, see [`scan_dtype`]). An axis converts into it: `a.cumsum_with(1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// The axis to accumulate along (`axis=`); `None`: the flattened array.
    pub axis: Option<isize>,
    /// The accumulation and result dtype (`dtype=`): int8 with `Some(DType::Int8)` wraps in int8.
    pub dtype: Option<DType>,
}
axis_options!(Scan);

/// The result dtype of `cumsum`/`cumprod` for an input dtype (NumPy's rule, as `sum`).
pub fn scan_dtype(t: DType) -> DType {
    match t.kind() {
        Kind::Bool | Kind::Int => DType::Int64,
        Kind::UInt => DType::UInt64,
        _ => t,
    }
}

fn scan(a: &Array, opts: Scan, op: ScanOp) -> Result<Array> {
    let name = match op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let axis = opts.axis;
    let dt = opts.dtype.unwrap_or_else(|| scan_dtype(a.dtype()));
    // NumPy treats a 0-d array as 1-d here: `cumsum(array(5), axis=0)` is `array([5])`.
    let a1;
    let a = if a.ndim() == 0 {
        a1 = a.reshape(&[1])?;
        &a1
    } else {
        a
    };
    let (c, inv, l) = rows(a, name, axis, dt)?;
    if c.size() > 0 {
        let o = Operand {
            buffer: &c.buffer,
            layout: l,
        };
        crate::cuda::order::order(&c.device, &[], &[&c.buffer])?;
        let call = ScanCall {
            op,
            input: o.clone(),
            output: o,
        };
        crate::cuda::record::submit(&c.device, crate::cuda::record::Call::Scan(&call))?;
    }
    back(c, inv)
}

/// `numpy.cumsum(a)`: running sums over the flattened array.
///
/// # Errors
/// Dtype refusals; device errors.
pub fn cumsum(a: &Array) -> Result<Array> {
    cumsum_with(a, Scan::default())
}

/// `numpy.cumsum(a, axis=..., dtype=...)`: `cp::cumsum_with(&a, 0)` along axis 0.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; as [`cumsum`].
pub fn cumsum_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    scan(a, opts.into(), ScanOp::Sum)
}
routine!(
    cumsum,
    Sorting,
    probe: scan_probe,
    notes: "axis None/int, dtype= (cumsum_with); cuda/hip: hip-kernels/ block scan"
);

/// `numpy.cumprod(a)`: running products over the flattened array.
///
/// # Errors
/// As [`cumsum`].
pub fn cumprod(a: &Array) -> Result<Array> {
    cumprod_with(a, Scan::default())
}

/// `numpy.cumprod(a, axis=..., dtype=...)`.
///
/// # Errors
/// As [`cumsum_with`].
pub fn cumprod_with(a: &Array, opts: impl Into<Scan>) -> Result<Array> {
    scan(a, opts.into(), ScanOp::Prod)
}
routine!(cumprod, Sorting, probe: scan_probe, notes: "axis None/int");

/// Keyword arguments of [`cumulative_sum`] and [`cumulative_prod`] (NumPy 2.1's array-API
/// scans): `axis=` (required past one dimension), `dtype=` as [`Scan`], and `include_initial=`
/// (the identity, 0 or 1, first along the axis: one more element there). An axis converts into
/// it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cumulative {
    /// The axis to accumulate along; `None` only for 0-d and 1-d arrays.
    pub axis: Option<isize>,
    /// The accumulation and result dtype; `None`: NumPy's default, as [`scan_dtype`].
    pub dtype: Option<DType>,
    /// Whether the identity comes first (`include_initial=True`).
    pub include_initial: bool,
}
axis_options!(Cumulative);

fn cumulative(x: &Array, opts: Cumulative, op: ScanOp) -> Result<Array> {
    let name = match op {
        ScanOp::Sum => "cumulative_sum",
        ScanOp::Prod => "cumulative_prod",
    };
    if opts.axis.is_none() && x.ndim() > 1 {
        return Err(Error::invalid(
            name,
            format!(
                "For arrays which have more than one dimension ``axis`` argument is required \
                 (shape {:?})",
                x.shape()
            ),
        ));
    }
    let axis = opts.axis.unwrap_or(0);
    let x1;
    let x = if x.ndim() == 0 {
        x1 = x.reshape(&[1])?;
        &x1
    } else {
        x
    };
    let ax = cupy_core::layout::normalize_axis(name, axis, x.ndim())?;
    let r = scan(
        x,
        Scan {
            axis: Some(ax as isize),
            dtype: opts.dtype,
        },
        op,
    )?;
    if !opts.include_initial {
        return Ok(r);
    }
    let mut shape = r.shape().to_vec();
    shape[ax] = 1;
    let identity = match op {
        ScanOp::Sum => 0,
        ScanOp::Prod => 1,
    };
    let first = Array::full_on(r.device(), &shape, identity, r.dtype())?;
    crate::manipulation::join::concatenate(&[&first, &r], ax as isize)
}

/// `numpy.cumulative_sum(x, axis=..., dtype=..., include_initial=...)` (NumPy 2.1): running sums
/// along one axis, as [`cumsum_with`]; `cp::cumulative_sum(&x, 1)` along axis 1.
///
/// # Errors
/// [`Error::InvalidArgument`] without an axis past one dimension (NumPy's ValueError);
/// [`Error::AxisOutOfRange`]; as [`cumsum_with`].
pub fn cumulative_sum(x: &Array, opts: impl Into<Cumulative>) -> Result<Array> {
    cumulative(x, opts.into(), ScanOp::Sum)
}
routine!(
    cumulative_sum,
    Sorting,
    probe: scan_probe,
    notes: "axis, dtype=, include_initial= (Cumulative)"
);

/// `numpy.cumulative_prod(x, axis=..., dtype=..., include_initial=...)` (NumPy 2.1): running
/// products along one axis, as [`cumprod_with`].
///
/// # Errors
/// As [`cumulative_sum`].
pub fn cumulative_prod(x: &Array, opts: impl Into<Cumulative>) -> Result<Array> {
    cumulative(x, opts.into(), ScanOp::Prod)
}
routine!(
    cumulative_prod,
    Sorting,
    probe: scan_probe,
    notes: "axis, dtype=, include_initial= (Cumulative)"
);

impl Array {
    /// `a.cumsum()`: see [`cumsum`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumsum(&self) -> Result<Array> {
        cumsum(self)
    }

    /// `a.cumsum(axis=..., dtype=...)`: see [`cumsum_with`].
    ///
    /// # Errors
    /// As [`cumsum_with`].
    pub fn cumsum_with(&self, opts: impl Into<Scan>) -> Result<Array> {
        cumsum_with(self, opts)
    }

    /// `a.cumprod()`: see [`cumprod`].
    ///
    /// # Errors
    /// As [`cumsum`].
    pub fn cumprod(&self) -> Result<Array> {
        cumprod(self)
    }

    /// `a.cumprod(axis=..., dtype=...)`: see [`cumprod_with`].
    ///
    /// # Errors
    /// As [`cumsum_with`].
    pub fn cumprod_with(&self, opts: impl Into<Scan>) -> Result<Array> {
        cumprod_with(self, opts)
    }
}

/// The registry probe of the scans: the backend's scan primitive.
fn scan_probe(_: DType) -> Option<Need> {
    Some(Need::Primitive(Primitive::Scan))
}
