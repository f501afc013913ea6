//! `cupyx.scipy.fft` (SciPy's `scipy.fft`): `dct idct dst idst` (types 1-4, norm "backward",
//! "ortho", "forward") and `next_fast_len`.
//!
//! Each transform is composed from the FFT primitive (through [`crate::fft`]) and elementwise
//! kernels, by the textbook reductions to one complex FFT along the last axis (FFTPACK's
//! `cost`/`cosqf`/`sint` reductions; Makhoul, "A fast cosine transform in one and two
//! dimensions", IEEE TASSP 28(1), 1980, for the twiddled type-2/3 forms):
//!
//! - DCT-I: the real part of the FFT of the even extension `[x0..x(N-1), x(N-2)..x1]` (length
//!   `2(N-1)`).
//! - DCT-II: `Re(exp(-i pi k / 2N) * FFT([x, reversed x])[k])`.
//! - DCT-III: `Re(sum_n c_n x_n exp(i pi n / 2N) exp(+2 pi i n k / 2N))` (`c_0 = 1`, else 2): an
//!   unscaled inverse FFT of length `2N`.
//! - DCT-IV: `Re(2 exp(-i pi (2k+1) / 4N) * FFT_2N(x_n exp(-i pi n / 2N))[k])`.
//! - DST-I: `-Im(FFT([0, x, 0, -reversed x]))[k+1]` (length `2(N+1)`).
//! - DST-II/III/IV from the DCTs: `DST2(x)_k = DCT2((-1)^n x_n)_(N-1-k)`,
//!   `DST3(x)_k = (-1)^k DCT3(reversed x)_k`, `DST4(x)_k = (-1)^k DCT4(reversed x)_k`.
//!
//! SciPy's orthonormal scalings (norm="ortho", `orthogonalize=True`) and inverse mappings
//! (`idct` type 2 is `dct` type 3 scaled by `1/2N`, ...) follow `scipy.fft`'s documentation.
//! Precision as SciPy: float16 computes in float32, integers in float64; complex input is
//! transformed part by part.

use crate::array::Array;
use crate::fft::{fft_with, ifft_with, Fft, Norm};
use crate::manipulation::join::concatenate;
use crate::manipulation::narrow;
use crate::manipulation::rearrange::flip;
use crate::math::complex::{imag, real};
use cupy_core::layout::normalize_axis;
use cupy_core::{DType, Error, Result};
use num_complex::Complex;

/// The keywords of `dct`/`idct`/`dst`/`idst` (`type=2, n=None, axis=-1, norm=None`).
#[derive(Clone, Copy, Debug)]
pub struct Dct {
    /// The transform type, 1 to 4 (default 2).
    pub kind: u8,
    /// The length: the input is cropped or zero-padded to it (`None`: the axis length).
    pub n: Option<isize>,
    /// The axis (default the last).
    pub axis: isize,
    /// `Backward` (SciPy's default, `norm=None`), `Ortho` (orthonormal, `orthogonalize`) or
    /// `Forward`.
    pub norm: Norm,
}

impl Default for Dct {
    fn default() -> Self {
        Dct {
            kind: 2,
            n: None,
            axis: -1,
            norm: Norm::Backward,
        }
    }
}

impl From<u8> for Dct {
    fn from(kind: u8) -> Self {
        Dct {
            kind,
            ..Default::default()
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Cos,
    Sin,
}

/// A complex table `f(k)` for `k < len`, in the complex dtype `c`.
fn ctable(x: &Array, len: usize, c: DType, f: impl Fn(usize) -> (f64, f64)) -> Result<Array> {
    let v: Vec<Complex<f64>> = (0..len)
        .map(|k| {
            let (re, im) = f(k);
            Complex::new(re, im)
        })
        .collect();
    Array::from_slice_on(x.device(), &v, &[len])?.astype(c)
}

/// A real table `f(k)` for `k < len`, in the real dtype `r`.
fn rtable(x: &Array, len: usize, r: DType, f: impl Fn(usize) -> f64) -> Result<Array> {
    let v: Vec<f64> = (0..len).map(f).collect();
    Array::from_slice_on(x.device(), &v, &[len])?.astype(r)
}

fn last(x: &Array) -> usize {
    x.ndim() - 1
}

fn cdtype(r: DType) -> DType {
    if r == DType::Float32 {
        DType::Complex64
    } else {
        DType::Complex128
    }
}

fn zeros_col(x: &Array) -> Result<Array> {
    let mut s = x.shape().to_vec();
    let l = s.len() - 1;
    s[l] = 1;
    Array::zeros_on(x.device(), &s, x.dtype())
}

/// The unnormalized DCT of type `t` of real `x` (dtype `r`) along its last axis.
fn dct_raw(op: &str, x: &Array, t: u8) -> Result<Array> {
    let ax = last(x);
    let n = x.shape()[ax];
    let r = x.dtype();
    let c = cdtype(r);
    let pi = std::f64::consts::PI;
    let nf = n as f64;
    match t {
        1 => {
            if n < 2 {
                return Err(Error::invalid(
                    op,
                    "zero-length FFT requested (DCT-I needs n >= 2)",
                ));
            }
            let inner = flip(&narrow(x, ax, 1, n - 2, 1), ax as isize)?;
            let ext = concatenate(&[x, &inner], ax as isize)?;
            real(&narrow(&fft_with(&ext, Fft::default())?, ax, 0, n, 1))
        }
        2 => {
            let ext = concatenate(&[x, &flip(x, ax as isize)?], ax as isize)?;
            let f = narrow(&fft_with(&ext, Fft::default())?, ax, 0, n, 1);
            let tw = ctable(x, n, c, |k| {
                let a = -pi * k as f64 / (2.0 * nf);
                (a.cos(), a.sin())
            })?;
            real(&(&f * &tw)?)
        }
        3 => {
            let tw = ctable(x, n, c, |k| {
                let a = pi * k as f64 / (2.0 * nf);
                let s = if k == 0 { 1.0 } else { 2.0 };
                (s * a.cos(), s * a.sin())
            })?;
            let v = (x * &tw)?;
            let f = ifft_with(
                &v,
                Fft {
                    n: Some(2 * n as isize),
                    norm: Norm::Forward,
                    ..Default::default()
                },
            )?;
            real(&narrow(&f, ax, 0, n, 1))
        }
        4 => {
            let pre = ctable(x, n, c, |k| {
                let a = -pi * k as f64 / (2.0 * nf);
                (a.cos(), a.sin())
            })?;
            let post = ctable(x, n, c, |k| {
                let a = -pi * (2 * k + 1) as f64 / (4.0 * nf);
                (2.0 * a.cos(), 2.0 * a.sin())
            })?;
            let f = fft_with(
                &(x * &pre)?,
                Fft {
                    n: Some(2 * n as isize),
                    ..Default::default()
                },
            )?;
            real(&(&narrow(&f, ax, 0, n, 1) * &post)?)
        }
        _ => Err(Error::invalid(op, "invalid DCT type")),
    }
}

/// `(-1)^k` along the last axis.
fn signs(x: &Array, n: usize) -> Result<Array> {
    rtable(x, n, x.dtype(), |k| if k % 2 == 0 { 1.0 } else { -1.0 })
}

/// The unnormalized DST of type `t`.
fn dst_raw(op: &str, x: &Array, t: u8) -> Result<Array> {
    let ax = last(x);
    let n = x.shape()[ax];
    match t {
        1 => {
            let z = zeros_col(x)?;
            let neg = (&flip(x, ax as isize)? * -1.0)?;
            let ext = concatenate(&[&z, x, &z, &neg], ax as isize)?;
            let f = narrow(&fft_with(&ext, Fft::default())?, ax, 1, n, 1);
            &imag(&f)? * -1.0
        }
        2 => {
            let y = dct_raw(op, &(x * &signs(x, n)?)?, 2)?;
            flip(&y, ax as isize)
        }
        3 | 4 => {
            let y = dct_raw(op, &flip(x, ax as isize)?, t)?;
            &y * &signs(x, n)?
        }
        _ => Err(Error::invalid(op, "invalid DST type")),
    }
}

/// The type-`t` transform of `fam` along the last axis, with SciPy's `norm` for the forward
/// transform (`inverse`: the `idct`/`idst` of type `t`).
fn transform(op: &str, x: &Array, fam: Family, t: u8, norm: Norm, inverse: bool) -> Result<Array> {
    if !(1..=4).contains(&t) {
        return Err(Error::invalid(
            op,
            format!(
                "invalid {} type {t}",
                if fam == Family::Cos { "DCT" } else { "DST" }
            ),
        ));
    }
    let ax = last(x);
    let n = x.shape()[ax];
    let r = x.dtype();
    // The inverse of type 2 is type 3 and vice versa; 1 and 4 are their own.
    let tt = if inverse {
        match t {
            2 => 3,
            3 => 2,
            t => t,
        }
    } else {
        t
    };
    // SciPy's `2(N-1)` / `2N` / `2(N+1)` factor of the unnormalized pair.
    let big = match (fam, t) {
        (Family::Cos, 1) => 2.0 * (n as f64 - 1.0),
        (Family::Sin, 1) => 2.0 * (n as f64 + 1.0),
        _ => 2.0 * n as f64,
    };
    let raw = |x: &Array| match fam {
        Family::Cos => dct_raw(op, x, tt),
        Family::Sin => dst_raw(op, x, tt),
    };
    match norm {
        Norm::Backward | Norm::Forward => {
            if fam == Family::Cos && t == 1 && n < 2 {
                return Err(Error::invalid(
                    op,
                    "zero-length FFT requested (DCT-I needs n >= 2)",
                ));
            }
            let y = raw(x)?;
            let scaled = (norm == Norm::Backward) == inverse;
            if scaled {
                &y * (1.0 / big)
            } else {
                Ok(y)
            }
        }
        Norm::Ortho => {
            let s2 = std::f64::consts::SQRT_2;
            // Pre- and post-scalings of the orthonormal forms (`tt` is the type computed).
            let (pre, post): (Option<Vec<f64>>, Vec<f64>) = match (fam, tt) {
                (Family::Cos, 1) => {
                    if n < 2 {
                        return Err(Error::invalid(
                            op,
                            "zero-length FFT requested (DCT-I needs n >= 2)",
                        ));
                    }
                    let f = 1.0 / (2.0 * (n as f64 - 1.0)).sqrt();
                    let ends = |k: usize, v: f64| if k == 0 || k == n - 1 { v } else { 1.0 };
                    (
                        Some((0..n).map(|k| ends(k, s2)).collect()),
                        (0..n).map(|k| ends(k, 1.0 / s2) * f).collect(),
                    )
                }
                (Family::Cos, 2) => (
                    None,
                    (0..n)
                        .map(|k| {
                            if k == 0 {
                                (1.0 / (4.0 * n as f64)).sqrt()
                            } else {
                                (1.0 / (2.0 * n as f64)).sqrt()
                            }
                        })
                        .collect(),
                ),
                (Family::Cos, 3) => (
                    Some((0..n).map(|k| if k == 0 { s2 } else { 1.0 }).collect()),
                    vec![1.0 / (2.0 * n as f64).sqrt(); n],
                ),
                (Family::Sin, 1) => (None, vec![1.0 / (2.0 * (n as f64 + 1.0)).sqrt(); n]),
                (Family::Sin, 2) => (
                    None,
                    (0..n)
                        .map(|k| {
                            if k == n - 1 {
                                (1.0 / (4.0 * n as f64)).sqrt()
                            } else {
                                (1.0 / (2.0 * n as f64)).sqrt()
                            }
                        })
                        .collect(),
                ),
                (Family::Sin, 3) => (
                    Some((0..n).map(|k| if k == n - 1 { s2 } else { 1.0 }).collect()),
                    vec![1.0 / (2.0 * n as f64).sqrt(); n],
                ),
                (_, _) => (None, vec![1.0 / (2.0 * n as f64).sqrt(); n]),
            };
            let xin = match pre {
                Some(p) => (x * &rtable(x, n, r, |k| p[k])?)?,
                None => x.clone(),
            };
            let y = raw(&xin)?;
            &y * &rtable(x, n, r, |k| post[k])?
        }
    }
}

/// Moves `axis` last, crops or zero-pads it to `n`, casts to SciPy's precision, applies `f`
/// to the real (and imaginary) parts and moves the axis back.
fn along(op: &str, x: &Array, o: Dct, f: impl Fn(&Array) -> Result<Array>) -> Result<Array> {
    let ax = normalize_axis(op, o.axis, x.ndim())?;
    let m = x.shape()[ax];
    let n = o.n.unwrap_or(m as isize);
    if n < 1 {
        return Err(Error::invalid(
            op,
            format!("invalid number of data points ({n}) specified"),
        ));
    }
    let n = n as usize;
    let (r, complex) = match x.dtype() {
        DType::Complex64 => (DType::Float32, true),
        DType::Complex128 => (DType::Float64, true),
        DType::Float32 | DType::Float16 => (DType::Float32, false),
        DType::BFloat16 => {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![x.dtype()],
                msg: "scipy.fft has no bfloat16 loop".into(),
            })
        }
        _ => (DType::Float64, false),
    };
    let moved = x.moveaxis(&[ax as isize], &[-1])?;
    let l = moved.ndim() - 1;
    let fit = |p: &Array| -> Result<Array> {
        let mut s = p.shape().to_vec();
        s[l] = n;
        let b = Array::zeros_on(x.device(), &s, r)?;
        let k = m.min(n);
        narrow(&b, l, 0, k, 1).copy_from(&narrow(p, l, 0, k, 1))?;
        Ok(b)
    };
    let y = if complex {
        let re = f(&fit(&real(&moved)?)?)?;
        let im = f(&fit(&imag(&moved)?)?)?;
        let c = cdtype(r);
        let j = Array::from_slice_on(x.device(), &[Complex::new(0.0f64, 1.0)], &[])?.astype(c)?;
        (&re.astype(c)? + &(&im.astype(c)? * &j)?)?
    } else {
        f(&fit(&moved)?)?
    };
    y.moveaxis(&[-1], &[ax as isize])
}

macro_rules! trig {
    ($(#[$doc:meta])* $f:ident, $fw:ident, $fam:expr, $inv:expr, $name:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// As the `_with` form.
        pub fn $f(x: &Array) -> Result<Array> {
            $fw(x, Dct::default())
        }

        #[doc = concat!("`scipy.fft.", stringify!($f), "(x, type, n, axis, norm)`.")]
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] for a type outside 1-4, `n < 1`, a type-1 DCT of one
        /// point; [`Error::AxisOutOfRange`]; device errors.
        pub fn $fw(x: &Array, o: impl Into<Dct>) -> Result<Array> {
            let o = o.into();
            let op = stringify!($f);
            along(op, x, o, |p| transform(op, p, $fam, o.kind, o.norm, $inv))
        }
        routine!($f as $name, Fft, probe: crate::fft::probe, notes: "composed from the FFT primitive");
    };
}

trig!(
    /// `scipy.fft.dct(x)`: the type-2 discrete cosine transform along the last axis.
    dct, dct_with, Family::Cos, false, "cupyx.scipy.fft.dct"
);
trig!(
    /// `scipy.fft.idct(x)`: the inverse of [`dct`] (type 2: a scaled type-3 DCT).
    idct, idct_with, Family::Cos, true, "cupyx.scipy.fft.idct"
);
trig!(
    /// `scipy.fft.dst(x)`: the type-2 discrete sine transform along the last axis.
    dst, dst_with, Family::Sin, false, "cupyx.scipy.fft.dst"
);
trig!(
    /// `scipy.fft.idst(x)`: the inverse of [`dst`].
    idst, idst_with, Family::Sin, true, "cupyx.scipy.fft.idst"
);

/// `scipy.fft.next_fast_len(target, real)`: the smallest length `>= target` whose prime
/// factors are 2, 3, 5, 7 and 11 (`real`: 2, 3 and 5), as pocketfft's `good_size` finds it.
/// `0` for `0` ([`cupy_core::fft::next_smooth`]).
///
/// # Errors
/// [`Error::InvalidArgument`] for a target above `usize::MAX / 11` (SciPy's ValueError
/// "Target length is too large to perform an FFT").
pub fn next_fast_len(target: usize, real: bool) -> Result<usize> {
    if target > usize::MAX / 11 {
        return Err(Error::invalid(
            "next_fast_len",
            format!("Target length is too large to perform an FFT: {target}"),
        ));
    }
    let primes: &[u64] = if real { &[3, 5] } else { &[3, 5, 7, 11] };
    Ok(cupy_core::fft::next_smooth(target, primes))
}
routine!(next_fast_len as "cupyx.scipy.fft.next_fast_len", Fft, notes: "host arithmetic");
