//! `fftfreq rfftfreq fftshift ifftshift`.

use crate::array::Array;
use crate::device::Device;
use crate::manipulation::rearrange::roll_axes;
use cupy_core::layout::normalize_axis;
use cupy_core::{Error, Result};

fn freq_scale(op: &str, n: usize, d: f64) -> Result<f64> {
    if n == 0 || d == 0.0 {
        return Err(Error::invalid(op, "float division by zero (n * d == 0)"));
    }
    Ok(1.0 / (n as f64 * d))
}

/// `numpy.fft.fftfreq(n, d)`: the sample frequencies of an `n`-point transform with sample
/// spacing `d` (float64, on the current device): `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] /
/// (n * d)`, computed as NumPy does (`i * (1 / (n * d))`).
///
/// # Errors
/// [`Error::InvalidArgument`] when `n * d` is 0; device errors.
pub fn fftfreq(n: usize, d: f64) -> Result<Array> {
    let val = freq_scale("fftfreq", n, d)?;
    let pos = (n - 1) / 2 + 1;
    let v: Vec<f64> = (0..n)
        .map(|i| {
            let k = if i < pos {
                i as f64
            } else {
                i as f64 - n as f64
            };
            k * val
        })
        .collect();
    Array::from_slice_on(&Device::current()?, &v, &[n])
}
routine!(fftfreq as "cupy.fft.fftfreq", Fft, notes: "computed on the host");

/// `numpy.fft.rfftfreq(n, d)`: the `n / 2 + 1` non-negative frequencies of [`super::rfft`].
///
/// # Errors
/// As [`fftfreq`].
pub fn rfftfreq(n: usize, d: f64) -> Result<Array> {
    let val = freq_scale("rfftfreq", n, d)?;
    let v: Vec<f64> = (0..n / 2 + 1).map(|i| i as f64 * val).collect();
    Array::from_slice_on(&Device::current()?, &v, &[v.len()])
}
routine!(rfftfreq as "cupy.fft.rfftfreq", Fft, notes: "computed on the host");

fn shift(op: &str, x: &Array, axes: Option<&[isize]>, inverse: bool) -> Result<Array> {
    let axes: Vec<isize> = match axes {
        Some(a) => a.to_vec(),
        None => (0..x.ndim() as isize).collect(),
    };
    let mut shifts = Vec::with_capacity(axes.len());
    for &a in &axes {
        let d = (x.shape()[normalize_axis(op, a, x.ndim())?] / 2) as isize;
        shifts.push(if inverse { -d } else { d });
    }
    if axes.is_empty() {
        return x.copy();
    }
    roll_axes(x, &shifts, &axes)
}

/// `numpy.fft.fftshift(x)`: moves the zero frequency to the centre of every axis (a roll by
/// `n / 2`).
///
/// # Errors
/// Device errors.
pub fn fftshift(x: &Array) -> Result<Array> {
    shift("fftshift", x, None, false)
}
routine!(fftshift as "cupy.fft.fftshift", Fft);

/// `numpy.fft.fftshift(x, axes)`.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; device errors.
pub fn fftshift_axes(x: &Array, axes: &[isize]) -> Result<Array> {
    shift("fftshift", x, Some(axes), false)
}

/// `numpy.fft.ifftshift(x)`: the inverse of [`fftshift`] (a roll by `-(n / 2)`).
///
/// # Errors
/// Device errors.
pub fn ifftshift(x: &Array) -> Result<Array> {
    shift("ifftshift", x, None, true)
}
routine!(ifftshift as "cupy.fft.ifftshift", Fft);

/// `numpy.fft.ifftshift(x, axes)`.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; device errors.
pub fn ifftshift_axes(x: &Array, axes: &[isize]) -> Result<Array> {
    shift("ifftshift", x, Some(axes), true)
}
