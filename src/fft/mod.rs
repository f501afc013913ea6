//! `cupy.fft` (NumPy's `numpy.fft`): discrete Fourier transforms.
//!
//! Every transform is one or more batched 1-D passes of the backend's FFT primitive
//! ([`cupy_core::Backend::fft`]) along the last, contiguous axis: the transformed axis is moved
//! last (a view), cropped or zero-padded to the length asked and copied contiguous in the
//! precision NumPy 2 computes in (a copy only when the view is not already that), transformed,
//! scaled for `norm=` and moved back. Multi-axis transforms are repeated passes, last axis first,
//! as NumPy's `_raw_fftnd` does.
//!
//! Precision (NumPy 2): complex64, float32 and float16 compute in single precision (complex64
//! results; `irfft`/`hfft` of them float32, float16 for float16 input), everything else (float64,
//! integers, bool, complex128) in double precision.
//!
//! - [`one`]: `fft ifft rfft irfft hfft ihfft` (one axis).
//! - [`multi`]: `fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn`.
//! - [`helper`]: `fftfreq rfftfreq fftshift ifftshift`.
//! - [`config`]: the plan cache (`get_plan_cache`).

pub mod config;
pub mod helper;
pub mod multi;
pub mod one;

pub use helper::{fftfreq, fftshift, fftshift_axes, ifftshift, ifftshift_axes, rfftfreq};
pub use multi::{
    fft2, fft2_with, fftn, fftn_with, ifft2, ifft2_with, ifftn, ifftn_with, irfft2, irfft2_with,
    irfftn, irfftn_with, rfft2, rfft2_with, rfftn, rfftn_with, FftN,
};
pub use one::{
    fft, fft_with, hfft, hfft_with, ifft, ifft_with, ihfft, ihfft_with, irfft, irfft_with, rfft,
    rfft_with, Fft,
};

use crate::array::Array;
use crate::manipulation::narrow;
use crate::math::complex::real;
use cupy_core::backend::{Operand, Primitive};
use cupy_core::fft::{FftCall, FftKind};
use cupy_core::layout::normalize_axis;
use cupy_core::promote::can_cast_same_kind;
use cupy_core::{DType, Error, Layout, Result};

/// NumPy's `norm=`: which direction is scaled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Norm {
    /// `"backward"` (NumPy's default, `norm=None`): the inverse is scaled by `1/n`.
    #[default]
    Backward,
    /// `"ortho"`: both directions are scaled by `1/sqrt(n)`.
    Ortho,
    /// `"forward"`: the forward transform is scaled by `1/n`.
    Forward,
}

impl std::str::FromStr for Norm {
    type Err = Error;
    /// `"backward"`, `"ortho"`, `"forward"` (NumPy's spellings).
    fn from_str(s: &str) -> Result<Norm> {
        match s {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            _ => Err(Error::invalid(
                "fft",
                format!(
                    "Invalid norm value {s}; should be \"backward\", \"ortho\" or \"forward\"."
                ),
            )),
        }
    }
}

impl Norm {
    /// The norm of the opposite direction (NumPy's `_swap_direction`, for `hfft`/`ihfft`).
    pub fn swap(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }

    /// The scale of an `n`-point transform in direction `forward`, as f64 (then rounded to the
    /// real dtype by the caller, as NumPy computes it in that dtype).
    fn factor(self, n: usize, forward: bool) -> f64 {
        match (self, forward) {
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0,
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0 / n as f64,
        }
    }
}

/// The complex dtype NumPy 2 computes a transform of `dtype` in (`result_type(dtype, 1j)`).
pub(crate) fn precision(op: &str, dtype: DType) -> Result<DType> {
    match dtype {
        DType::Complex64 | DType::Float32 | DType::Float16 => Ok(DType::Complex64),
        DType::BFloat16 => Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![dtype],
            msg: "numpy.fft has no bfloat16 loop".into(),
        }),
        _ => Ok(DType::Complex128),
    }
}

/// `result_type(dtype.real, 1.0)`: the dtype of a real result and of the norm factor.
pub(crate) fn real_result(dtype: DType) -> DType {
    match dtype {
        DType::Float16 => DType::Float16,
        DType::Float32 | DType::Complex64 => DType::Float32,
        _ => DType::Float64,
    }
}

/// Rounds a norm factor to `real` (NumPy computes `1/n` and `1/sqrt(n)` in that dtype).
fn round_to(x: f64, real: DType) -> f64 {
    match real {
        DType::Float16 => half::f16::from_f64(x).to_f64(),
        DType::Float32 => x as f32 as f64,
        _ => x,
    }
}

/// One 1-D pass: the `kind` transform of `x` along `axis` with `n` points (`None`: NumPy's
/// default: the axis length, or `2 * (m - 1)` for [`FftKind::C2R`]), scaled for `norm`.
/// `forward` is the direction `norm` refers to (c2c forward and r2c: true).
pub(crate) fn pass(
    op: &str,
    x: &Array,
    kind: FftKind,
    n: Option<isize>,
    axis: isize,
    norm: Norm,
) -> Result<Array> {
    let dev = x.device().clone();
    let ax = normalize_axis(op, axis, x.ndim())?;
    let m = x.shape()[ax];
    let n = match n {
        Some(v) => v,
        None if kind == FftKind::C2R => 2 * (m as isize - 1),
        None => m as isize,
    };
    if n < 1 {
        return Err(Error::invalid(
            op,
            format!("Invalid number of FFT data points ({n}) specified."),
        ));
    }
    let n = n as usize;
    if kind == FftKind::R2C && x.dtype().is_complex() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![x.dtype()],
            msg: "a real transform takes real input (NumPy's rfft has no complex loop)".into(),
        });
    }
    let complex = precision(op, x.dtype())?;
    let forward = !matches!(kind, FftKind::C2C { inverse: true } | FftKind::C2R);
    let (ti, to) = kind.dtypes(complex);
    let (li, lo) = kind.row_lens(n);
    let moved = if ax + 1 == x.ndim() {
        x.clone()
    } else {
        x.moveaxis(&[ax as isize], &[-1])?
    };
    let last = moved.ndim() - 1;
    let mut shape = moved.shape().to_vec();
    shape[last] = li;
    let input = if li <= m {
        let v = narrow(&moved, last, 0, li, 1);
        // C2R inputs are scratch (cuFFT and rocFFT overwrite them): always a fresh copy.
        if v.dtype() == ti && v.is_c_contiguous() && kind != FftKind::C2R {
            v
        } else {
            let b = Array::empty_on(&dev, &shape, ti)?;
            b.copy_from(&v)?;
            b
        }
    } else {
        let b = Array::zeros_on(&dev, &shape, ti)?;
        if m > 0 {
            narrow(&b, last, 0, m, 1).copy_from(&moved)?;
        }
        b
    };
    if kind == FftKind::C2R && input.size() > 0 {
        // NumPy ignores the imaginary parts of the zero and (even n) Nyquist terms.
        let mut cols = vec![0];
        if n.is_multiple_of(2) {
            cols.push(li - 1);
        }
        for c in cols {
            let col = narrow(&input, last, c, 1, 1);
            col.copy_from(&real(&col)?)?;
        }
    }
    let batch = input.size() / li;
    shape[last] = lo;
    let out = Array::empty_on(&dev, &shape, to)?;
    if batch > 0 {
        let layout = |off: usize, len: usize| Layout {
            shape: vec![batch, len],
            strides: vec![len as isize, 1],
            offset: off,
        };
        crate::cuda::order::order(&dev, &[&input.buffer], &[&out.buffer])?;
        let call = FftCall {
            kind,
            n,
            complex,
            input: Operand {
                buffer: &input.buffer,
                layout: layout(input.layout.offset, li),
            },
            output: Operand {
                buffer: &out.buffer,
                layout: layout(0, lo),
            },
        };
        crate::cuda::record::submit(&dev, crate::cuda::record::Call::Fft(&call))?;
    }
    let fct = round_to(norm.factor(n, forward), real_result(x.dtype()));
    let mut r = if fct != 1.0 { (&out * fct)? } else { out };
    if kind == FftKind::C2R && x.dtype() == DType::Float16 {
        r = r.astype(DType::Float16)?;
    }
    if ax + 1 == x.ndim() {
        Ok(r)
    } else {
        r.moveaxis(&[-1], &[ax as isize])
    }
}

/// Writes `r` into `out` when given (NumPy's `out=`: the result's shape, a dtype `r` casts to
/// with casting="same_kind") and returns what the routine returns.
pub(crate) fn finish(op: &str, r: Array, out: Option<&Array>) -> Result<Array> {
    let Some(o) = out else { return Ok(r) };
    if o.shape() != r.shape() {
        return Err(Error::ShapeMismatch {
            op: format!("{op} (output array has wrong shape)"),
            lhs: o.shape().to_vec(),
            rhs: r.shape().to_vec(),
        });
    }
    if !can_cast_same_kind(r.dtype(), o.dtype()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![r.dtype(), o.dtype()],
            msg: format!(
                "Cannot cast ufunc '{op}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                r.dtype(),
                o.dtype()
            ),
        });
    }
    o.copy_from(&r)?;
    Ok(o.clone())
}

/// The registry probe of the transforms: the FFT primitive at the dtype's precision.
pub(crate) fn probe(t: DType) -> Option<crate::registry::Need> {
    (t != DType::BFloat16).then_some(crate::registry::Need::Primitive(Primitive::Fft))
}

/// The registry probe of the real-input transforms (`rfft`, `ihfft`, ...): NumPy has no complex
/// loop.
pub(crate) fn probe_real(t: DType) -> Option<crate::registry::Need> {
    if t.is_complex() {
        None
    } else {
        probe(t)
    }
}
