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
#[allow(unused_imports)] // doc links
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
