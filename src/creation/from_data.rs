//! `cupy.array` and `cupy.asarray` from anything array-like ([`AsArray`]): host scalars, slices,
//! `Vec`s and nested arrays, `ndarray` arrays and views of any dimension, and device
//! [`Array`]s; `from_slice`, `from_ndarray` and `asnumpy`.
//!
//! ```no_run
//! use cupy as cp;
//! # fn main() -> cp::Result<()> {
//! let a = cp::asarray([[1.0, 2.0], [3.0, 4.0]])?; // float64, shape (2, 2)
//! let h = cp::ndarray::Array2::<f32>::eye(3);
//! let b = cp::asarray(&h)?; // an ndarray array, copied to the device
//! let c = cp::asarray(h.slice(cp::ndarray::s![.., 1]))?; // a view: its elements, in order
//! let d = cp::asarray(&b)?; // a device array: the same buffer, no copy
//! assert!(d.shares_memory_with(&b));
//! let e = cp::array(&b)?; // cupy.array copies
//! assert!(!e.shares_memory_with(&b));
//! # Ok(()) }
//! ```

use crate::array::Array;
use crate::device::Device;
use cupy_core::dtype::Element;
use cupy_core::error::{Error, Result};

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

impl<U: IntoHostArray, const N: usize> IntoHostArray for &[U; N] {
    type Elem = U::Elem;
    fn shape_into(&self, shape: &mut Vec<usize>) {
        nested_shape(&self[..], shape)
    }
    fn flatten_into(&self, out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
        nested_flatten(&self[..], out, shape)
    }
}
impl<U: IntoHostArray> IntoHostArray for &Vec<U> {
    type Elem = U::Elem;
    fn shape_into(&self, shape: &mut Vec<usize>) {
        nested_shape(self, shape)
    }
    fn flatten_into(&self, out: &mut Vec<U::Elem>, shape: &[usize]) -> bool {
        nested_flatten(self, out, shape)
    }
}

/// Anything [`array()`] and [`asarray`] accept (NumPy's "array-like"):
/// - host data ([`IntoHostArray`]: scalars, slices, `Vec`s, nested arrays), copied;
/// - `ndarray` arrays and views of any dimension (`&ArrayD<f32>`, `ArrayView2<f64>`, a
///   transposed or strided view, ...), copied in their logical (C) order;
/// - device arrays (`&Array`, `Array`): `asarray` returns a view of the same buffer when the
///   array is already on the target device and copies it there otherwise; `array` always copies.
pub trait AsArray {
    /// Converts to an array on `device`; `copy` asks for a new buffer even when the data is
    /// already there (`cupy.array`'s `copy=True`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for ragged nested host data; device errors.
    fn into_array_on(self, device: &Device, copy: bool) -> Result<Array>;
}

impl<A: IntoHostArray> AsArray for A {
    fn into_array_on(self, device: &Device, _copy: bool) -> Result<Array> {
        let mut shape = vec![];
        self.shape_into(&mut shape);
        let mut v = Vec::with_capacity(shape.iter().product());
        if !self.flatten_into(&mut v, &shape) {
            return Err(Error::invalid(
                "array",
                "setting an array element with a sequence: the nested rows have different lengths (ragged)",
            ));
        }
        Array::from_slice_on(device, &v, &shape)
    }
}

impl<T, S, D> AsArray for &ndarray::ArrayBase<S, D>
where
    T: Element,
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn into_array_on(self, device: &Device, _copy: bool) -> Result<Array> {
        Array::from_ndarray_on(device, self)
    }
}

impl<T, S, D> AsArray for ndarray::ArrayBase<S, D>
where
    T: Element,
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn into_array_on(self, device: &Device, _copy: bool) -> Result<Array> {
        Array::from_ndarray_on(device, &self)
    }
}

impl AsArray for &Array {
    fn into_array_on(self, device: &Device, copy: bool) -> Result<Array> {
        if self.device() != device {
            self.to_device(device)
        } else if copy {
            self.copy()
        } else {
            Ok(self.clone())
        }
    }
}

impl AsArray for Array {
    fn into_array_on(self, device: &Device, copy: bool) -> Result<Array> {
        (&self).into_array_on(device, copy)
    }
}

/// `cupy.array(obj)`: a new array on the current device from anything [`AsArray`] takes (host
/// data, an `ndarray` array or view, a device array). Always a new buffer, as NumPy's
/// `copy=True`.
///
/// # Errors
/// [`Error::InvalidArgument`] for ragged nested data; discovery, dtype and device errors.
pub fn array(obj: impl AsArray) -> Result<Array> {
    obj.into_array_on(&Device::current()?, true)
}
routine!(array, Creation);

/// `cupy.asarray(obj)`: as [`array()`], but a device array already on the current device is
/// returned as a view of the same buffer (no copy); one on another device is copied to the
/// current device.
///
/// # Errors
/// As [`array()`].
pub fn asarray(obj: impl AsArray) -> Result<Array> {
    obj.into_array_on(&Device::current()?, false)
}
routine!(asarray, Creation);

/// Copies a host slice to the current device with `shape` (`cupy.asarray(numpy_array)`).
///
/// # Errors
/// [`Error::InvalidArgument`] if the length does not match the shape; as [`array()`].
pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
    Array::from_slice_on(&Device::current()?, data, shape)
}

/// Copies an `ndarray` array to the current device (what [`asarray`] does with one).
///
/// # Errors
/// As [`array()`].
pub fn from_ndarray<T: Element, S: ndarray::Data<Elem = T>, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<S, D>,
) -> Result<Array> {
    Array::from_ndarray_on(&Device::current()?, a)
}

/// `cupy.asnumpy(a)` in ndarray form.
///
/// # Errors
/// As [`Array::to_ndarray`].
pub fn asnumpy<T: Element>(a: &Array) -> Result<ndarray::ArrayD<T>> {
    a.to_ndarray()
}
routine!(asnumpy as "cupy.asnumpy / ndarray.get", Transfer, notes: "to_vec, to_ndarray, to_bytes");
