//! `cupy.empty`, `zeros`, `ones`, `full`, their `_like` forms, `eye`, `identity`, `arange` and
//! `linspace` on the current device, with NumPy's defaults (float64; `full`'s dtype from the
//! fill value) and their keyword arguments in one options struct per routine, passed to a
//! `_with` form (DESIGN.md, "API shape"). Each routine's registry row is the `routine!` line
//! after it.
//!
//! ```no_run
//! use cupy as cp;
//! use cp::{Creation, DType, Eye, Linspace};
//! # fn main() -> cp::Result<()> {
//! let a = cp::zeros(&[3, 3])?; // float64, as numpy.zeros((3, 3))
//! let b = cp::zeros_with(&[3, 3], DType::Float32)?; // dtype=float32
//! let c = cp::ones_with(&[2], Creation { dtype: DType::Int8, ..Default::default() })?;
//! let f = cp::full(&[2], 7)?; // int64, as numpy.full(2, 7)
//! let l = cp::linspace_with(0.0, 1.0, 5, Linspace { endpoint: false, ..Default::default() })?;
//! let e = cp::eye_with(3, Eye { m: Some(4), k: 1, ..Default::default() })?;
//! # Ok(()) }
//! ```

use crate::array::Array;
use crate::device::Device;
use crate::manipulation::shape::Order;
use cupy_core::dtype::{DType, Element};
use cupy_core::error::Result;
use cupy_core::scalar::Scalar;

/// The device an options struct names, or the current one.
fn device_of(device: &Option<Device>) -> Result<Device> {
    match device {
        Some(d) => Ok(d.clone()),
        None => Device::current(),
    }
}

/// Keyword arguments of [`empty_with`], [`zeros_with`], [`ones_with`] and [`identity_with`]:
/// NumPy's `dtype=` (default float64), `order=` (default C) and `device=` (default: the current
/// device).
///
/// A [`DType`] converts into it, so the common keyword is short: `cp::zeros_with(&[3],
/// DType::Int32)`.
#[derive(Clone, Debug)]
pub struct Creation {
    /// The element type (`dtype=`, default float64).
    pub dtype: DType,
    /// The memory order (`order=`): [`Order::C`] (row-major, the default) or [`Order::F`]
    /// (column-major); `A` and `K` are refused, as NumPy refuses them for a new array.
    pub order: Order,
    /// The device (`device=`); `None` is the current device ([`Device::current`]).
    pub device: Option<Device>,
}

impl Default for Creation {
    fn default() -> Creation {
        Creation {
            dtype: DType::Float64,
            order: Order::C,
            device: None,
        }
    }
}

impl From<Order> for Creation {
    fn from(order: Order) -> Creation {
        Creation {
            order,
            ..Default::default()
        }
    }
}

/// Makes a new array of `shape` in memory order `order` (C or F) with `make`, which builds a
/// C-ordered array of the shape it is given: F order is the transpose of a C-ordered array of
/// the reversed shape, as NumPy lays it out.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for `A` or `K` (NumPy: "only 'C' or 'F' order is
/// permitted"); `make`'s errors.
pub(crate) fn ordered(
    op: &str,
    shape: &[usize],
    order: Order,
    make: impl FnOnce(&[usize]) -> Result<Array>,
) -> Result<Array> {
    match order {
        Order::C => make(shape),
        Order::F => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            Ok(make(&rev)?.t())
        }
        Order::A | Order::K => Err(crate::Error::invalid(
            op,
            format!("only 'C' or 'F' order is permitted, got {order:?}"),
        )),
    }
}

impl From<DType> for Creation {
    fn from(dtype: DType) -> Creation {
        Creation {
            dtype,
            ..Default::default()
        }
    }
}

/// Keyword arguments of [`full_with`]: `dtype=` (default: from the fill value, see [`full`]),
/// `order=` (default C) and `device=`.
#[derive(Clone, Debug, Default)]
pub struct Full {
    /// The element type (`dtype=`); `None` takes it from the fill value.
    pub dtype: Option<DType>,
    /// The memory order (`order=`, C or F; see [`Creation::order`]).
    pub order: Order,
    /// The device (`device=`); `None` is the current device.
    pub device: Option<Device>,
}

impl From<DType> for Full {
    fn from(dtype: DType) -> Full {
        Full {
            dtype: Some(dtype),
            ..Default::default()
        }
    }
}

/// Keyword arguments of [`eye_with`]: `M=` (columns, default `N`), `k=` (the diagonal: 0 the
/// main one, positive above, negative below), `dtype=` (default float64), `device=`.
#[derive(Clone, Debug)]
pub struct Eye {
    /// Number of columns (`M=`); `None` makes the array square.
    pub m: Option<usize>,
    /// The diagonal that holds the ones (`k=`).
    pub k: isize,
    /// The element type (`dtype=`, default float64).
    pub dtype: DType,
    /// The device (`device=`); `None` is the current device.
    pub device: Option<Device>,
}

impl Default for Eye {
    fn default() -> Eye {
        Eye {
            m: None,
            k: 0,
            dtype: DType::Float64,
            device: None,
        }
    }
}

impl From<DType> for Eye {
    fn from(dtype: DType) -> Eye {
        Eye {
            dtype,
            ..Default::default()
        }
    }
}

/// Keyword arguments of [`linspace_with`]: `endpoint=` (default true), `dtype=` (default
/// float64, the type of the `f64` bounds) and `device=`.
#[derive(Clone, Debug)]
pub struct Linspace {
    /// Whether `stop` is the last sample (`endpoint=`).
    pub endpoint: bool,
    /// The element type (`dtype=`); `None` is float64.
    pub dtype: Option<DType>,
    /// The device (`device=`); `None` is the current device.
    pub device: Option<Device>,
}

impl Default for Linspace {
    fn default() -> Linspace {
        Linspace {
            endpoint: true,
            dtype: None,
            device: None,
        }
    }
}

impl From<DType> for Linspace {
    fn from(dtype: DType) -> Linspace {
        Linspace {
            dtype: Some(dtype),
            ..Default::default()
        }
    }
}

/// `cupy.empty(shape)`: float64, contents unspecified, on the current device.
///
/// # Errors
/// Discovery errors ([`crate::Error::BackendUnavailable`]), [`crate::Error::DTypeNotSupported`]
/// (e.g. float64 on a wgpu adapter without it: use [`empty_with`] and a dtype it has),
/// [`crate::Error::OutOfMemory`].
pub fn empty(shape: &[usize]) -> Result<Array> {
    empty_with(shape, Creation::default())
}

/// `cupy.empty(shape, dtype=..., device=...)`: `cp::empty_with(&[2, 2], DType::Float32)`.
///
/// # Errors
/// As [`empty`].
pub fn empty_with(shape: &[usize], opts: impl Into<Creation>) -> Result<Array> {
    let o = opts.into();
    let device = device_of(&o.device)?;
    ordered("empty", shape, o.order, |s| {
        Array::empty_on(&device, s, o.dtype)
    })
}
routine!(empty, Creation);

/// `cupy.zeros(shape)`: float64 zeros on the current device (`cp::zeros(&[3, 3])`).
///
/// # Errors
/// As [`empty`].
pub fn zeros(shape: &[usize]) -> Result<Array> {
    zeros_with(shape, Creation::default())
}

/// `cupy.zeros(shape, dtype=..., device=...)`: `cp::zeros_with(&[3, 3], DType::Float32)`.
///
/// # Errors
/// As [`empty`].
pub fn zeros_with(shape: &[usize], opts: impl Into<Creation>) -> Result<Array> {
    let o = opts.into();
    let device = device_of(&o.device)?;
    ordered("zeros", shape, o.order, |s| {
        Array::zeros_on(&device, s, o.dtype)
    })
}
routine!(zeros, Creation);

/// `cupy.ones(shape)`: float64 ones on the current device.
///
/// # Errors
/// As [`empty`].
pub fn ones(shape: &[usize]) -> Result<Array> {
    ones_with(shape, Creation::default())
}

/// `cupy.ones(shape, dtype=..., device=...)`.
///
/// # Errors
/// As [`empty`].
pub fn ones_with(shape: &[usize], opts: impl Into<Creation>) -> Result<Array> {
    let o = opts.into();
    let device = device_of(&o.device)?;
    ordered("ones", shape, o.order, |s| {
        Array::ones_on(&device, s, o.dtype)
    })
}
routine!(ones, Creation);

/// The dtype NumPy gives `full(shape, value)` without `dtype=`: a Rust `i32`/`i64` is a Python
/// int (int64), an `f64` a Python float (float64), a `bool` bool; other Rust types (`f32`, `u8`,
/// `Complex<f64>`, ...) are NumPy scalars of that type and keep it.
fn fill_dtype(v: &Scalar) -> DType {
    match v {
        Scalar::Int32(_) => DType::Int64,
        v => v.dtype(),
    }
}

/// `cupy.full(shape, fill_value)`: the dtype comes from the fill value as in NumPy
/// (`full(&[2], 7.0)` is float64, `full(&[2], 7)` int64, `full(&[2], true)` bool,
/// `full(&[2], 7.0f32)` float32).
///
/// # Errors
/// As [`empty`].
pub fn full(shape: &[usize], fill_value: impl Into<Scalar>) -> Result<Array> {
    full_with(shape, fill_value, Full::default())
}

/// `cupy.full(shape, fill_value, dtype=..., device=...)`: the value is cast to `dtype`
/// (`cp::full_with(&[3], 0.5, DType::Float32)`).
///
/// # Errors
/// [`crate::Error::ScalarOverflow`] for an integer value the integer dtype cannot hold; as
/// [`empty`].
pub fn full_with(
    shape: &[usize],
    fill_value: impl Into<Scalar>,
    opts: impl Into<Full>,
) -> Result<Array> {
    let o = opts.into();
    let v: Scalar = fill_value.into();
    let dtype = o.dtype.unwrap_or_else(|| fill_dtype(&v));
    let device = device_of(&o.device)?;
    ordered("full", shape, o.order, |s| {
        Array::full_on(&device, s, v, dtype)
    })
}
routine!(full, Creation);

/// `cupy.empty_like(a)`: shape, dtype and device of `a`, contents unspecified.
///
/// # Errors
/// As [`empty`].
pub fn empty_like(a: &Array) -> Result<Array> {
    a.empty_like()
}
routine!(empty_like, Creation, notes: "dtype=, shape= (empty_like_with)");

/// `cupy.zeros_like(a)`.
///
/// # Errors
/// As [`empty`].
pub fn zeros_like(a: &Array) -> Result<Array> {
    a.zeros_like()
}
routine!(zeros_like, Creation, notes: "dtype=, shape= (zeros_like_with)");

/// `cupy.ones_like(a)`.
///
/// # Errors
/// As [`empty`].
pub fn ones_like(a: &Array) -> Result<Array> {
    a.ones_like()
}
routine!(ones_like, Creation, notes: "dtype=, shape= (ones_like_with)");

/// `cupy.full_like(a, fill_value)`.
///
/// # Errors
/// As [`empty`].
pub fn full_like(a: &Array, fill_value: impl Into<Scalar>) -> Result<Array> {
    a.full_like(fill_value)
}
routine!(full_like, Creation, notes: "dtype=, shape= (full_like_with)");

/// Keyword arguments of the `_like` routines ([`empty_like_with`], [`zeros_like_with`],
/// [`ones_like_with`], [`full_like_with`]): NumPy's `dtype=` and `shape=` (each `None`: the
/// prototype's). The result is C-ordered on the prototype's device (NumPy's `order='K'` keeps
/// the prototype's memory order; see the README's list of what is not here yet).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Like {
    /// The result's dtype (`dtype=`); `None`: the prototype's.
    pub dtype: Option<DType>,
    /// The result's shape (`shape=`); `None`: the prototype's.
    pub shape: Option<Vec<usize>>,
}

impl From<DType> for Like {
    fn from(dtype: DType) -> Like {
        Like {
            dtype: Some(dtype),
            shape: None,
        }
    }
}

fn like_of(a: &Array, opts: &Like) -> (Vec<usize>, DType) {
    (
        opts.shape.clone().unwrap_or_else(|| a.shape().to_vec()),
        opts.dtype.unwrap_or(a.dtype()),
    )
}

/// `cupy.empty_like(a, dtype=..., shape=...)`: `empty_like_with(&a, DType::Float32)`.
///
/// # Errors
/// As [`empty`].
pub fn empty_like_with(a: &Array, opts: impl Into<Like>) -> Result<Array> {
    let (shape, dtype) = like_of(a, &opts.into());
    Array::empty_on(a.device(), &shape, dtype)
}

/// `cupy.zeros_like(a, dtype=..., shape=...)`.
///
/// # Errors
/// As [`empty`].
pub fn zeros_like_with(a: &Array, opts: impl Into<Like>) -> Result<Array> {
    let (shape, dtype) = like_of(a, &opts.into());
    Array::zeros_on(a.device(), &shape, dtype)
}

/// `cupy.ones_like(a, dtype=..., shape=...)`.
///
/// # Errors
/// As [`empty`].
pub fn ones_like_with(a: &Array, opts: impl Into<Like>) -> Result<Array> {
    let (shape, dtype) = like_of(a, &opts.into());
    Array::ones_on(a.device(), &shape, dtype)
}

/// `cupy.full_like(a, fill_value, dtype=..., shape=...)`: `fill_value` cast to the result's
/// dtype.
///
/// # Errors
/// [`crate::Error::ScalarOverflow`] for an integer value the integer dtype cannot hold; as
/// [`empty`].
pub fn full_like_with(
    a: &Array,
    fill_value: impl Into<Scalar>,
    opts: impl Into<Like>,
) -> Result<Array> {
    let (shape, dtype) = like_of(a, &opts.into());
    let value = super::fill_value("full_like", fill_value.into(), dtype)?;
    Array::full_on(a.device(), &shape, value, dtype)
}

/// `cupy.eye(N)`: an `N x N` float64 array with ones on the main diagonal.
///
/// # Errors
/// As [`empty`].
pub fn eye(n: usize) -> Result<Array> {
    eye_with(n, Eye::default())
}

/// `cupy.eye(N, M=..., k=..., dtype=..., device=...)`:
/// `cp::eye_with(3, Eye { m: Some(4), k: 1, ..Default::default() })`.
///
/// # Errors
/// As [`empty`].
pub fn eye_with(n: usize, opts: impl Into<Eye>) -> Result<Array> {
    let o = opts.into();
    Array::eye_on(&device_of(&o.device)?, n, o.m, o.k, o.dtype)
}
routine!(eye, Creation);

/// `cupy.identity(n)`: the float64 `n x n` identity.
///
/// # Errors
/// As [`empty`].
pub fn identity(n: usize) -> Result<Array> {
    identity_with(n, Creation::default())
}

/// `cupy.identity(n, dtype=..., device=...)`.
///
/// # Errors
/// As [`empty`].
pub fn identity_with(n: usize, opts: impl Into<Creation>) -> Result<Array> {
    let o = opts.into();
    let device = device_of(&o.device)?;
    ordered("identity", &[n, n], o.order, |_| {
        Array::eye_on(&device, n, None, 0, o.dtype)
    })
}
routine!(identity, Creation);

/// `cupy.arange(stop)`: `0, 1, ..., stop-1` with the dtype of `T` (`arange(10)` gives int32 since
/// Rust's integer literals are i32; `arange(10i64)` gives int64, `arange(10.0)` float64).
///
/// # Errors
/// As [`empty`].
pub fn arange<T: Element + Into<Scalar>>(stop: T) -> Result<Array> {
    let s: Scalar = stop.into();
    Array::arange_on(&Device::current()?, 0.0, s.to_f64(), 1.0, T::DTYPE)
}

/// `cupy.arange(start, stop, step, dtype)`: `ceil((stop - start) / step)` values.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for `step == 0`; as [`empty`].
pub fn arange_with(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Array> {
    Array::arange_on(&Device::current()?, start, stop, step, dtype)
}
routine!(
    arange,
    Creation,
    notes: "int64/float64 arithmetic (int32/float32 on a device without them, when the values allow)"
);

/// `cupy.linspace(start, stop, num)`: `num` evenly spaced float64 values from `start` to `stop`
/// inclusive (NumPy's values bit for bit).
///
/// # Errors
/// As [`empty`].
pub fn linspace(start: f64, stop: f64, num: usize) -> Result<Array> {
    linspace_with(start, stop, num, Linspace::default())
}

/// `cupy.linspace(start, stop, num, endpoint=..., dtype=..., device=...)`:
/// `cp::linspace_with(0.0, 1.0, 5, DType::Float32)` or
/// `cp::linspace_with(0.0, 1.0, 5, Linspace { endpoint: false, ..Default::default() })`.
///
/// # Errors
/// As [`empty`].
pub fn linspace_with(
    start: f64,
    stop: f64,
    num: usize,
    opts: impl Into<Linspace>,
) -> Result<Array> {
    let o = opts.into();
    let dtype = o.dtype.unwrap_or(DType::Float64);
    Array::linspace_on(&device_of(&o.device)?, start, stop, num, o.endpoint, dtype)
}
routine!(
    linspace,
    Creation,
    notes: "values computed on the host in float64 (NumPy's rule), then uploaded"
);
