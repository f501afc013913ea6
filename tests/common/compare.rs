//! Dtype-aware comparison of a result against NumPy's (the tolerances of the module doc).

use super::*;

/// How closely a float result must match NumPy's (integers and bools are always exact).
#[derive(Clone, Debug)]
pub enum Tol {
    /// Bit-exact; `zero_sign` also checks the sign of zeros.
    Exact { zero_sign: bool },
    /// At most this many ulps of the result dtype.
    Ulps(u64),
    /// At most this many ulps, or an absolute error up to the second value.
    UlpsOrAbs(u64, f64),
    /// `|d| <= 2 * n * eps * scale[i] + 1 ulp` (scale per element or one for all).
    Scaled { n: usize, scale: Scale },
    /// Complex values: each part within N ulps, or within N ulps of the largest part.
    Complex(u64),
}

#[derive(Clone, Debug)]
pub enum Scale {
    PerElement(Vec<f64>),
    Max(f64),
}

impl Tol {
    pub const EXACT: Tol = Tol::Exact { zero_sign: true };
}

pub fn decode_f64(dtype: DType, b: &[u8]) -> Vec<f64> {
    match dtype {
        DType::Float16 => b
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::Float32 => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        DType::Float64 => b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        d => b
            .chunks_exact(d.itemsize())
            .map(|c| Scalar::from_le_bytes(d, c).to_f64())
            .collect(),
    }
}

fn decode_int(dtype: DType, b: &[u8]) -> Vec<i128> {
    b.chunks_exact(dtype.itemsize())
        .map(|c| Scalar::from_le_bytes(dtype, c).to_i128())
        .collect()
}

/// Ordered integer key of a float in its own precision (so ulps are key differences).
fn key(dtype: DType, x: f64) -> i128 {
    match dtype {
        DType::Float16 => {
            let b = half::f16::from_f64(x).to_bits() as i16;
            (if b < 0 {
                i16::MIN as i32 - b as i32
            } else {
                b as i32
            }) as i128
        }
        DType::Float32 => {
            let b = (x as f32).to_bits() as i32;
            (if b < 0 {
                i32::MIN as i64 - b as i64
            } else {
                b as i64
            }) as i128
        }
        _ => {
            let b = x.to_bits() as i64;
            if b < 0 {
                i64::MIN as i128 - b as i128
            } else {
                b as i128
            }
        }
    }
}

pub fn ulps(dtype: DType, a: f64, b: f64) -> u128 {
    (key(dtype, a) - key(dtype, b)).unsigned_abs()
}

pub fn eps(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2f64.powi(-10),
        DType::BFloat16 => 2f64.powi(-7),
        DType::Float32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

fn ulp_of(dtype: DType, x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let e = eps(dtype);
    let min_normal = match dtype {
        DType::Float16 => 2f64.powi(-14),
        DType::Float32 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    };
    x.abs().max(min_normal) * e
}

/// Compares a device result with NumPy's: dtype, shape, then values under `tol`.
pub fn compare(got: &Array, want: &HostArray, tol: &Tol) -> std::result::Result<(), String> {
    if got.dtype() != want.dtype {
        return Err(format!("dtype: got {}, NumPy {}", got.dtype(), want.dtype));
    }
    if got.shape() != want.shape.as_slice() {
        return Err(format!(
            "shape: got {:?}, NumPy {:?}",
            got.shape(),
            want.shape
        ));
    }
    let bytes = got
        .to_bytes()
        .map_err(|e| format!("reading the result: {e}"))?;
    compare_bytes(want.dtype, &bytes, &want.bytes, tol)
}

pub fn compare_bytes(
    dtype: DType,
    got: &[u8],
    want: &[u8],
    tol: &Tol,
) -> std::result::Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "byte length: got {}, want {}",
            got.len(),
            want.len()
        ));
    }
    if dtype.is_complex() {
        return compare_complex(dtype, got, want, tol);
    }
    let mut bad = vec![];
    if !dtype.is_float() {
        let (g, w) = (decode_int(dtype, got), decode_int(dtype, want));
        for (i, (x, y)) in g.iter().zip(&w).enumerate() {
            if x != y {
                bad.push(format!("[{i}] got {x}, want {y}"));
            }
        }
    } else {
        let (g, w) = (decode_f64(dtype, got), decode_f64(dtype, want));
        for (i, (&x, &y)) in g.iter().zip(&w).enumerate() {
            let ok = if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                match tol {
                    Tol::Exact { zero_sign } => {
                        x == y
                            && (!zero_sign
                                || x != 0.0
                                || x.is_sign_negative() == y.is_sign_negative())
                    }
                    Tol::Ulps(n) => ulps(dtype, x, y) <= *n as u128,
                    Tol::UlpsOrAbs(n, a) => ulps(dtype, x, y) <= *n as u128 || (x - y).abs() <= *a,
                    Tol::Scaled { n, scale } => {
                        let s = match scale {
                            Scale::PerElement(v) => v.get(i).copied().unwrap_or(0.0),
                            Scale::Max(m) => *m,
                        };
                        (x - y).abs() <= 2.0 * *n as f64 * eps(dtype) * s + ulp_of(dtype, y)
                    }
                    Tol::Complex(n) => ulps(dtype, x, y) <= *n as u128,
                }
            };
            if !ok {
                bad.push(format!(
                    "[{i}] got {x:e}, want {y:e} ({} ulps)",
                    ulps(dtype, x, y)
                ));
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        let n = bad.len();
        bad.truncate(6);
        Err(format!(
            "{n} element(s) differ ({:?}): {}",
            tol,
            bad.join("; ")
        ))
    }
}

/// [`compare_bytes`] for complex dtypes (see the module docs).
fn compare_complex(
    dtype: DType,
    got: &[u8],
    want: &[u8],
    tol: &Tol,
) -> std::result::Result<(), String> {
    let part = dtype.real_dtype();
    let (g, w) = (decode_f64(part, got), decode_f64(part, want));
    let mut bad = vec![];
    for e in 0..g.len() / 2 {
        let big = w[2 * e].abs().max(w[2 * e + 1].abs());
        let ok = (0..2).all(|p| {
            let (x, y) = (g[2 * e + p], w[2 * e + p]);
            if x.is_nan() || y.is_nan() {
                return x.is_nan() && y.is_nan();
            }
            if x.is_infinite() || y.is_infinite() {
                return x == y;
            }
            match tol {
                Tol::Exact { zero_sign } => {
                    x == y
                        && (!zero_sign || x != 0.0 || x.is_sign_negative() == y.is_sign_negative())
                }
                Tol::Ulps(n) => ulps(part, x, y) <= *n as u128,
                Tol::UlpsOrAbs(n, a) => ulps(part, x, y) <= *n as u128 || (x - y).abs() <= *a,
                Tol::Complex(n) => {
                    ulps(part, x, y) <= *n as u128
                        || (big.is_finite() && (x - y).abs() <= *n as f64 * eps(part) * big)
                }
                Tol::Scaled { n, scale } => {
                    let s = match scale {
                        Scale::PerElement(v) => v.get(e).copied().unwrap_or(0.0),
                        Scale::Max(m) => *m,
                    };
                    (x - y).abs() <= 2.0 * *n as f64 * eps(part) * s + ulp_of(part, y)
                }
            }
        });
        if !ok {
            bad.push(format!(
                "[{e}] got ({:e}, {:e}), want ({:e}, {:e})",
                g[2 * e],
                g[2 * e + 1],
                w[2 * e],
                w[2 * e + 1]
            ));
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let n = bad.len();
    bad.truncate(6);
    Err(format!(
        "{n} element(s) differ ({tol:?}): {}",
        bad.join("; ")
    ))
}
