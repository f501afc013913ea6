//! # cupy-rs
//!
//! NumPy/CuPy-compatible n-dimensional arrays for Rust that run the same program on NVIDIA
//! (CUDA), AMD (HIP), any Vulkan/Metal/DX12 GPU (wgpu) and the CPU, chosen at run time by
//! device discovery or `CUPY_BACKEND=cuda|hip|wgpu|cpu`.
//!
//! ```no_run
//! use cupy as cp;
//! # fn main() -> cp::Result<()> {
//! let x = cp::arange(10)?;                    // int32 here: Rust's integer literal type
//! println!("{x}");                            // [0 1 2 3 4 5 6 7 8 9]
//! let a = cp::linspace(0.0, 1.0, 5, true, cp::DType::Float32)?;
//! let b = ((&a * 2.0)? + &a)?;               // operators return Result; scalars are weak
//! let m = cp::matmul(&a.reshape(&[5, 1])?, &b.reshape(&[1, 5])?)?;
//! println!("{}", m.sum()?);
//! # Ok(()) }
//! ```
//!
//! Names and semantics follow NumPy 2 (NEP 50 promotion, broadcasting, `axis`/`keepdims`);
//! differences are listed in `docs/differences.md`.
#![warn(missing_docs)]

pub mod array;
mod backends;
pub mod creation;
pub mod custom;
pub mod device;
pub mod indexing;
pub mod launch;
pub mod linalg;
pub mod math;
pub mod registry;
pub mod scipy;
pub mod sorting;
pub mod statistics;

pub use array::index;

pub use array::Array;
pub use cupy_core::{
    Backend, BackendKind, BackendProvider, DType, DeviceInfo, Element, Error, Kind, Layout, Result,
    Scalar, SliceItem, WeakScalar,
};
pub use custom::elementwise::{ElementwiseKernel, ReductionKernel};
pub use custom::fuse::{fuse, where_, Fused, Sym};
pub use custom::raw::{Dim3, KernelArg, RawKernel, RawModule};
pub use device::{config_string, set_default_device, show_config, with_device, Device};
pub use index::{SliceArg, ELLIPSIS, NEW_AXIS};
pub use indexing::{
    add_at, maximum_at, minimum_at, put, scatter_add, scatter_max, scatter_min, take,
};
pub use linalg::{dot, matmul};
pub use math::ufunc::*;
pub use sorting::search::{argmax, argmax_axis, argmax_with, argmin, argmin_axis, argmin_with};
pub use sorting::{argsort, cumprod, cumsum, sort};
pub use statistics::moments::{std, std_with, var, var_with};
pub use statistics::reduction::{max, mean, min, prod, reduce, sum, Axes, Reduction};

/// Re-export of the vendor-neutral core (IR, layouts, Backend trait) for backend authors.
pub use cupy_core as core;
/// The `half` crate, for `f16`/`bf16` host data (`cupy::half::f16`).
pub use half;
/// The `num-complex` crate, for complex host data (`cupy::num_complex::Complex<f32>`).
pub use num_complex;

// ----- creation on the current device -----

/// `cupy.empty(shape, dtype)` on the current device (contents unspecified).
///
/// # Errors
/// Discovery errors ([`Error::BackendUnavailable`]), [`Error::DTypeNotSupported`],
/// [`Error::OutOfMemory`].
pub fn empty(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::empty_on(&Device::current()?, shape, dtype)
}

/// `cupy.zeros(shape, dtype)` on the current device.
///
/// # Errors
/// As [`empty`].
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::zeros_on(&Device::current()?, shape, dtype)
}

/// `cupy.ones(shape, dtype)` on the current device.
///
/// # Errors
/// As [`empty`].
pub fn ones(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::ones_on(&Device::current()?, shape, dtype)
}

/// `cupy.full(shape, fill_value, dtype)` on the current device.
///
/// # Errors
/// As [`empty`].
pub fn full(shape: &[usize], fill_value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
    Array::full_on(&Device::current()?, shape, fill_value, dtype)
}

/// `cupy.zeros_like(a)`.
///
/// # Errors
/// As [`empty`].
pub fn zeros_like(a: &Array) -> Result<Array> {
    a.zeros_like()
}
/// `cupy.ones_like(a)`.
///
/// # Errors
/// As [`empty`].
pub fn ones_like(a: &Array) -> Result<Array> {
    a.ones_like()
}
/// `cupy.full_like(a, fill_value)`.
///
/// # Errors
/// As [`empty`].
pub fn full_like(a: &Array, fill_value: impl Into<Scalar>) -> Result<Array> {
    a.full_like(fill_value)
}
/// `cupy.empty_like(a)`.
///
/// # Errors
/// As [`empty`].
pub fn empty_like(a: &Array) -> Result<Array> {
    a.empty_like()
}

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
/// [`Error::InvalidArgument`] for `step == 0`; as [`empty`].
pub fn arange_with(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Array> {
    Array::arange_on(&Device::current()?, start, stop, step, dtype)
}

/// `cupy.linspace(start, stop, num, endpoint, dtype)`.
///
/// # Errors
/// As [`empty`] (the values are computed in float64, which the device must support).
pub fn linspace(start: f64, stop: f64, num: usize, endpoint: bool, dtype: DType) -> Result<Array> {
    Array::linspace_on(&Device::current()?, start, stop, num, endpoint, dtype)
}

/// `cupy.eye(N, M, k, dtype)`: a 2-D array with ones on the `k`-th diagonal.
///
/// # Errors
/// As [`empty`].
pub fn eye(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    Array::eye_on(&Device::current()?, n, m, k, dtype)
}

/// `cupy.identity(n, dtype)`.
///
/// # Errors
/// As [`empty`].
pub fn identity(n: usize, dtype: DType) -> Result<Array> {
    eye(n, None, 0, dtype)
}

/// Copies a host slice to the current device with `shape` (`cupy.asarray(numpy_array)`).
///
/// # Errors
/// [`Error::InvalidArgument`] if the length does not match the shape; as [`empty`].
pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
    Array::from_slice_on(&Device::current()?, data, shape)
}

/// Copies an `ndarray` array to the current device.
///
/// # Errors
/// As [`empty`].
pub fn from_ndarray<T: Element, S: ndarray::Data<Elem = T>, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<S, D>,
) -> Result<Array> {
    Array::from_ndarray_on(&Device::current()?, a)
}

/// Host data accepted by [`array()`]/[`asarray`]: scalars, slices, `Vec`s and nested arrays of
/// [`Element`]s (`[1.0, 2.0]`, `[[1, 2], [3, 4]]`, `vec![vec![true], vec![false]]`).
pub trait IntoHostArray {
    /// The element type.
    type Elem: Element;
    /// Appends the shape (outermost first) of this level.
    fn shape_into(&self, shape: &mut Vec<usize>);
    /// Appends the elements in C order; returns false if nested rows are ragged.
    fn flatten_into(&self, out: &mut Vec<Self::Elem>, shape: &[usize]) -> bool;
}

macro_rules! host_leaf {
    ($($t:ty),*) => {$(
        impl IntoHostArray for $t {
            type Elem = $t;
            fn shape_into(&self, _: &mut Vec<usize>) {}
            fn flatten_into(&self, out: &mut Vec<$t>, shape: &[usize]) -> bool {
                out.push(*self);
                shape.is_empty()
            }
        }
    )*};
}
host_leaf!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    half::f16,
    half::bf16,
    f32,
    f64,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

fn nested_shape<U: IntoHostArray>(items: &[U], shape: &mut Vec<usize>) {
    shape.push(items.len());
    if let Some(first) = items.first() {
        first.shape_into(shape);
    }
}
fn nested_flatten<U: IntoHostArray>(items: &[U], out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
    if shape.first() != Some(&items.len()) {
        return false;
    }
    items.iter().all(|it| it.flatten_into(out, &shape[1..]))
}

impl<U: IntoHostArray> IntoHostArray for &[U] {
    type Elem = U::Elem;
    fn shape_into(&self, shape: &mut Vec<usize>) {
        nested_shape(self, shape)
    }
    fn flatten_into(&self, out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
        nested_flatten(self, out, shape)
    }
}
impl<U: IntoHostArray> IntoHostArray for Vec<U> {
    type Elem = U::Elem;
    fn shape_into(&self, shape: &mut Vec<usize>) {
        nested_shape(self, shape)
    }
    fn flatten_into(&self, out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
        nested_flatten(self, out, shape)
    }
}
impl<U: IntoHostArray, const N: usize> IntoHostArray for [U; N] {
    type Elem = U::Elem;
    fn shape_into(&self, shape: &mut Vec<usize>) {
        nested_shape(self, shape)
    }
    fn flatten_into(&self, out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
        nested_flatten(self, out, shape)
    }
}

/// `cupy.array(obj)`: copies host data (slices, `Vec`s, nested arrays) to the current device.
///
/// # Errors
/// [`Error::InvalidArgument`] for ragged nested data; as [`empty`].
pub fn array<A: IntoHostArray>(data: A) -> Result<Array> {
    let mut shape = vec![];
    data.shape_into(&mut shape);
    let mut v = Vec::with_capacity(shape.iter().product());
    if !data.flatten_into(&mut v, &shape) {
        return Err(Error::invalid(
            "array",
            "setting an array element with a sequence: the nested rows have different lengths (ragged)",
        ));
    }
    from_slice(&v, &shape)
}

/// `cupy.asarray(obj)`: as [`array()`] for host data.
///
/// # Errors
/// As [`array()`].
pub fn asarray<A: IntoHostArray>(data: A) -> Result<Array> {
    array(data)
}

/// `cupy.asnumpy(a)` in ndarray form.
///
/// # Errors
/// As [`Array::to_ndarray`].
pub fn asnumpy<T: Element>(a: &Array) -> Result<ndarray::ArrayD<T>> {
    a.to_ndarray()
}

/// `cupy.transpose(a)`: reversed axes, a view.
pub fn transpose(a: &Array) -> Array {
    a.t()
}

/// `cupy.reshape(a, shape)`.
///
/// # Errors
/// As [`Array::reshape`].
pub fn reshape(a: &Array, shape: &[isize]) -> Result<Array> {
    a.reshape(shape)
}

/// `cupy.ravel(a)`.
///
/// # Errors
/// As [`Array::ravel`].
pub fn ravel(a: &Array) -> Result<Array> {
    a.ravel()
}
