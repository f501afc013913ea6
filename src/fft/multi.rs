//! The multi-axis transforms: `fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn`, as repeated
//! 1-D passes (NumPy's `_raw_fftnd`, `rfftn`, `irfftn`).

use super::{finish, pass, probe, probe_real, Norm};
use crate::array::Array;
use cupy_core::fft::FftKind;
use cupy_core::layout::normalize_axis;
use cupy_core::{Error, Result};

/// The keywords of the multi-axis transforms (`s=None, axes=None, norm=None, out=None`).
#[derive(Clone, Debug, Default)]
pub struct FftN<'a> {
    /// The transform length along each of `axes` (`-1`: that axis's length). Without `axes`,
    /// the last `len(s)` axes.
    pub s: Option<Vec<isize>>,
    /// The axes (default: all, or the last two for the `*2` forms; the last `len(s)` when only
    /// `s` is given). A repeated axis is transformed twice, as in NumPy.
    pub axes: Option<Vec<isize>>,
    /// Which direction is scaled.
    pub norm: Norm,
    /// Where to write the result.
    pub out: Option<&'a Array>,
}

impl From<Norm> for FftN<'_> {
    fn from(norm: Norm) -> Self {
        FftN {
            norm,
            ..Default::default()
        }
    }
}

/// NumPy's `_cook_nd_args`: the lengths (`None`: the pass's default) and axes of the passes.
fn cook(
    op: &str,
    a: &Array,
    o: &FftN<'_>,
    two: bool,
    inverse_real: bool,
) -> Result<(Vec<Option<isize>>, Vec<isize>)> {
    let nd = a.ndim();
    let axes: Vec<isize> = match (&o.axes, &o.s) {
        (Some(ax), _) => ax.clone(),
        (None, Some(s)) => (-(s.len() as isize)..0).collect(),
        (None, None) if two => vec![-2, -1],
        (None, None) => (-(nd as isize)..0).collect(),
    };
    let mut norm_axes = Vec::with_capacity(axes.len());
    for &ax in &axes {
        norm_axes.push(normalize_axis(op, ax, nd)?);
    }
    let shapeless = o.s.is_none();
    let mut s: Vec<Option<isize>> = match &o.s {
        Some(s) => {
            if s.len() != axes.len() {
                return Err(Error::invalid(op, "Shape and axes have different lengths."));
            }
            s.iter()
                .zip(&norm_axes)
                .map(|(&v, &ax)| Some(if v == -1 { a.shape()[ax] as isize } else { v }))
                .collect()
        }
        None => norm_axes
            .iter()
            .map(|&ax| Some(a.shape()[ax] as isize))
            .collect(),
    };
    if inverse_real && shapeless {
        if let (Some(last), Some(&ax)) = (s.last_mut(), norm_axes.last()) {
            *last = Some((a.shape()[ax] as isize - 1) * 2);
        }
    }
    // (The passes check n >= 1, as NumPy's `_raw_fft` does.)
    Ok((s, axes))
}

fn c2c_nd(op: &str, a: &Array, o: &FftN<'_>, two: bool, inverse: bool) -> Result<Array> {
    let (s, axes) = cook(op, a, o, two, false)?;
    if axes.is_empty() {
        return finish(op, a.clone(), o.out);
    }
    let mut r = a.clone();
    for i in (0..axes.len()).rev() {
        r = pass(op, &r, FftKind::C2C { inverse }, s[i], axes[i], o.norm)?;
    }
    finish(op, r, o.out)
}

fn r2c_nd(op: &str, a: &Array, o: &FftN<'_>, two: bool) -> Result<Array> {
    let (s, axes) = cook(op, a, o, two, false)?;
    let Some(&last) = axes.last() else {
        return Err(Error::invalid(op, "rfftn needs at least one axis"));
    };
    let mut r = pass(op, a, FftKind::R2C, s[axes.len() - 1], last, o.norm)?;
    for i in (0..axes.len() - 1).rev() {
        r = pass(
            op,
            &r,
            FftKind::C2C { inverse: false },
            s[i],
            axes[i],
            o.norm,
        )?;
    }
    finish(op, r, o.out)
}

fn c2r_nd(op: &str, a: &Array, o: &FftN<'_>, two: bool) -> Result<Array> {
    let (s, axes) = cook(op, a, o, two, true)?;
    let Some(&last) = axes.last() else {
        return Err(Error::invalid(op, "irfftn needs at least one axis"));
    };
    let mut r = a.clone();
    for i in 0..axes.len() - 1 {
        r = pass(
            op,
            &r,
            FftKind::C2C { inverse: true },
            s[i],
            axes[i],
            o.norm,
        )?;
    }
    let r = pass(op, &r, FftKind::C2R, s[axes.len() - 1], last, o.norm)?;
    finish(op, r, o.out)
}

macro_rules! nd {
    ($(#[$doc:meta])* $f:ident, $fw:ident, $name:literal, $probe:ident, |$a:ident, $o:ident| $body:expr) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// As the `_with` form.
        pub fn $f(a: &Array) -> Result<Array> {
            $fw(a, FftN::default())
        }

        #[doc = concat!("`numpy.fft.", stringify!($f), "(a, s, axes, norm, out)`.")]
        ///
        /// # Errors
        /// [`cupy_core::Error::AxisOutOfRange`]; [`cupy_core::Error::InvalidArgument`] when
        /// `s` and `axes` differ in length or a length is below 1; an `out` of the wrong shape
        /// or dtype; device errors.
        pub fn $fw($a: &Array, $o: FftN<'_>) -> Result<Array> {
            $body
        }
        routine!($f as $name, Fft, probe: $probe);
    };
}

nd!(
    /// `numpy.fft.fft2(a)`: the 2-D transform over the last two axes.
    fft2, fft2_with, "cupy.fft.fft2", probe, |a, o| c2c_nd("fft2", a, &o, true, false)
);
nd!(
    /// `numpy.fft.ifft2(a)`: the inverse 2-D transform over the last two axes.
    ifft2, ifft2_with, "cupy.fft.ifft2", probe, |a, o| c2c_nd("ifft2", a, &o, true, true)
);
nd!(
    /// `numpy.fft.fftn(a)`: the N-D transform over every axis (`axes=[]` returns `a`).
    fftn, fftn_with, "cupy.fft.fftn", probe, |a, o| c2c_nd("fftn", a, &o, false, false)
);
nd!(
    /// `numpy.fft.ifftn(a)`: the inverse N-D transform over every axis.
    ifftn, ifftn_with, "cupy.fft.ifftn", probe, |a, o| c2c_nd("ifftn", a, &o, false, true)
);
nd!(
    /// `numpy.fft.rfft2(a)`: the 2-D transform of real input (half spectrum on the last axis).
    rfft2, rfft2_with, "cupy.fft.rfft2", probe_real, |a, o| r2c_nd("rfft2", a, &o, true)
);
nd!(
    /// `numpy.fft.irfft2(a)`: the inverse of [`rfft2`].
    irfft2, irfft2_with, "cupy.fft.irfft2", probe, |a, o| c2r_nd("irfft2", a, &o, true)
);
nd!(
    /// `numpy.fft.rfftn(a)`: the N-D transform of real input (half spectrum on the last axis).
    rfftn, rfftn_with, "cupy.fft.rfftn", probe_real, |a, o| r2c_nd("rfftn", a, &o, false)
);
nd!(
    /// `numpy.fft.irfftn(a)`: the inverse of [`rfftn`]; the last axis has `2 * (m - 1)`
    /// points unless `s` says otherwise.
    irfftn, irfftn_with, "cupy.fft.irfftn", probe, |a, o| c2r_nd("irfftn", a, &o, false)
);
