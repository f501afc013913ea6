//! The one-axis transforms: `fft ifft rfft irfft hfft ihfft`.

use super::{finish, pass, probe, probe_real, Norm};
use crate::array::Array;
use crate::math::complex::conjugate;
use cupy_core::fft::FftKind;
use cupy_core::Result;

/// The keywords of the one-axis transforms (`n=None, axis=-1, norm=None, out=None`).
#[derive(Clone, Copy, Debug)]
pub struct Fft<'a> {
    /// The transform length: the input is cropped or zero-padded to it (for `irfft`/`hfft`:
    /// the output length, default `2 * (m - 1)`). `None`: the axis length. Below 1 is an error.
    pub n: Option<isize>,
    /// The axis (default the last, -1).
    pub axis: isize,
    /// Which direction is scaled.
    pub norm: Norm,
    /// Where to write the result (its shape, a dtype the result casts to as "same_kind").
    pub out: Option<&'a Array>,
}

impl Default for Fft<'_> {
    fn default() -> Self {
        Fft {
            n: None,
            axis: -1,
            norm: Norm::Backward,
            out: None,
        }
    }
}

impl From<Norm> for Fft<'_> {
    fn from(norm: Norm) -> Self {
        Fft {
            norm,
            ..Default::default()
        }
    }
}

/// `numpy.fft.fft(a)`: the 1-D discrete Fourier transform along the last axis.
///
/// # Errors
/// As [`fft_with`].
pub fn fft(a: &Array) -> Result<Array> {
    fft_with(a, Fft::default())
}

/// `numpy.fft.fft(a, n, axis, norm, out)`.
///
/// # Errors
/// [`cupy_core::Error::InvalidArgument`] for `n < 1` (or an empty axis without `n`);
/// [`cupy_core::Error::AxisOutOfRange`]; [`cupy_core::Error::ShapeMismatch`] /
/// [`cupy_core::Error::TypeError`] for an `out` of the wrong shape or dtype; device errors.
pub fn fft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let r = pass(
        "fft",
        a,
        FftKind::C2C { inverse: false },
        o.n,
        o.axis,
        o.norm,
    )?;
    finish("fft", r, o.out)
}
routine!(fft as "cupy.fft.fft", Fft, probe: probe);

/// `numpy.fft.ifft(a)`: the inverse 1-D transform along the last axis (scaled by `1/n`).
///
/// # Errors
/// As [`fft_with`].
pub fn ifft(a: &Array) -> Result<Array> {
    ifft_with(a, Fft::default())
}

/// `numpy.fft.ifft(a, n, axis, norm, out)`.
///
/// # Errors
/// As [`fft_with`].
pub fn ifft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let r = pass(
        "ifft",
        a,
        FftKind::C2C { inverse: true },
        o.n,
        o.axis,
        o.norm,
    )?;
    finish("ifft", r, o.out)
}
routine!(ifft as "cupy.fft.ifft", Fft, probe: probe);

/// `numpy.fft.rfft(a)`: the transform of real input, the `n / 2 + 1` non-negative frequencies.
///
/// # Errors
/// As [`fft_with`]; [`cupy_core::Error::TypeError`] for complex input.
pub fn rfft(a: &Array) -> Result<Array> {
    rfft_with(a, Fft::default())
}

/// `numpy.fft.rfft(a, n, axis, norm, out)`.
///
/// # Errors
/// As [`rfft`].
pub fn rfft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let r = pass("rfft", a, FftKind::R2C, o.n, o.axis, o.norm)?;
    finish("rfft", r, o.out)
}
routine!(rfft as "cupy.fft.rfft", Fft, probe: probe_real);

/// `numpy.fft.irfft(a)`: the inverse of [`rfft`]; `n` (default `2 * (m - 1)`) real outputs
/// from the first `n / 2 + 1` inputs (zero-padded when fewer). The imaginary parts of the zero
/// and (even `n`) Nyquist terms are ignored.
///
/// # Errors
/// As [`fft_with`].
pub fn irfft(a: &Array) -> Result<Array> {
    irfft_with(a, Fft::default())
}

/// `numpy.fft.irfft(a, n, axis, norm, out)`.
///
/// # Errors
/// As [`fft_with`].
pub fn irfft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let r = pass("irfft", a, FftKind::C2R, o.n, o.axis, o.norm)?;
    finish("irfft", r, o.out)
}
routine!(irfft as "cupy.fft.irfft", Fft, probe: probe);

/// `numpy.fft.hfft(a)`: the transform of a Hermitian-symmetric signal given by its first half;
/// a real result of `n` (default `2 * (m - 1)`) points: `irfft(conj(a))` with the norm swapped.
///
/// # Errors
/// As [`fft_with`].
pub fn hfft(a: &Array) -> Result<Array> {
    hfft_with(a, Fft::default())
}

/// `numpy.fft.hfft(a, n, axis, norm, out)`.
///
/// # Errors
/// As [`fft_with`].
pub fn hfft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let c = conjugate(a)?;
    let r = pass("hfft", &c, FftKind::C2R, o.n, o.axis, o.norm.swap())?;
    finish("hfft", r, o.out)
}
routine!(hfft as "cupy.fft.hfft", Fft, probe: probe);

/// `numpy.fft.ihfft(a)`: the inverse of [`hfft`] for real input: `conj(rfft(a))` with the
/// norm swapped (`n / 2 + 1` outputs).
///
/// # Errors
/// As [`rfft`].
pub fn ihfft(a: &Array) -> Result<Array> {
    ihfft_with(a, Fft::default())
}

/// `numpy.fft.ihfft(a, n, axis, norm, out)`.
///
/// # Errors
/// As [`rfft`].
pub fn ihfft_with(a: &Array, o: Fft<'_>) -> Result<Array> {
    let r = pass("ihfft", a, FftKind::R2C, o.n, o.axis, o.norm.swap())?;
    finish("ihfft", conjugate(&r)?, o.out)
}
routine!(ihfft as "cupy.fft.ihfft", Fft, probe: probe_real);
