//! Array creation on a given device (`zeros`, `ones`, `full`, `arange`, `linspace`, `eye`).
//! The `cupy` facade wraps these with the current device: [`basic`] (NumPy's defaults and
//! options structs) and [`from_data`] (`array`/`asarray` from anything array-like).

pub mod basic;
pub mod from_data;

use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
use cupy_core::scalar::Scalar;

fn generate(
    device: &Device,
    op: &str,
    shape: &[usize],
    kernel: &Kernel,
    params: Vec<Scalar>,
) -> Result<Array> {
    Elementwise {
        op,
        kernel,
        inputs: &[],
        raws: &[],
        params,
        outs: vec![None],
        device: Some(device),
        shape: Some(shape),
    }
    .run_one()
}

/// `value` cast to `dtype` for filling: NumPy 2 refuses an integer value that an integer dtype
/// cannot hold (`np.full((2,), 300, np.int8)` and `a.fill(300)` raise OverflowError) instead of
/// wrapping it.
///
/// # Errors
/// [`Error::ScalarOverflow`] naming `op`.
pub(crate) fn fill_value(op: &str, value: Scalar, dtype: DType) -> Result<Scalar> {
    if dtype.is_integer() && value.dtype().is_integer() {
        let (lo, hi) = cupy_core::promote::int_range(dtype);
        let v = value.to_i128();
        if v < lo || v > hi {
            return Err(Error::ScalarOverflow {
                op: op.into(),
                value: v.to_string(),
                dtype,
            });
        }
    }
    Ok(value.cast(dtype))
}

/// A new array of `shape` filled with `value` cast to `dtype`; errors name `op` (the routine
/// the user called: `zeros`, `ones`, `full`).
fn fill_on(
    device: &Device,
    op: &str,
    shape: &[usize],
    value: Scalar,
    dtype: DType,
) -> Result<Array> {
    let value = fill_value(op, value, dtype)?;
    let k = Kernel::map(op, vec![], vec![dtype], Expr::param(0, dtype));
    generate(device, op, shape, &k, vec![value])
}

impl Array {
    /// `cupy.full(shape, value, dtype)` on `device`; `value` is cast to `dtype`.
    ///
    /// # Errors
    /// [`Error::DTypeNotSupported`], [`Error::OutOfMemory`].
    pub fn full_on(
        device: &Device,
        shape: &[usize],
        value: impl Into<Scalar>,
        dtype: DType,
    ) -> Result<Array> {
        fill_on(device, "full", shape, value.into(), dtype)
    }

    /// `cupy.zeros(shape, dtype)` on `device`.
    ///
    /// # Errors
    /// As [`Array::full_on`].
    pub fn zeros_on(device: &Device, shape: &[usize], dtype: DType) -> Result<Array> {
        fill_on(device, "zeros", shape, Scalar::zero(dtype), dtype)
    }

    /// `cupy.ones(shape, dtype)` on `device`.
    ///
    /// # Errors
    /// As [`Array::full_on`].
    pub fn ones_on(device: &Device, shape: &[usize], dtype: DType) -> Result<Array> {
        fill_on(device, "ones", shape, Scalar::one(dtype), dtype)
    }

    /// `cupy.arange(start, stop, step, dtype)` on `device`, NumPy's algorithm: `n =
    /// ceil((stop - start) / step)` values; the first is `start` and the second `start + step`,
    /// each converted to `dtype` (truncated for integer dtypes, where it must fit:
    /// `arange(-5, 5, 3)` as uint8 is an overflow error, as NumPy's), and value `i` is
    /// `first + i * (second - first)`, the difference taken in `dtype` (so `arange(4, 1, -1.2)`
    /// as int64 is `[4, 2, 0]`, and integer values wrap around as NumPy's do). Computed in int64
    /// (int32 for dtypes of at most 32 bits on a device without int64) for integer dtypes and
    /// float64 (float32 on a device without it) for float and complex ones, then cast. A bool
    /// `arange` may have at most two values (`[bool(start), bool(start + step)]`), as NumPy's.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `step == 0` or a non-finite bound;
    /// [`Error::ScalarOverflow`] for an integer first/second value outside `dtype`;
    /// [`Error::TypeError`] for a bool `arange` of more than two values; dtype and device
    /// errors.
    pub fn arange_on(
        device: &Device,
        start: f64,
        stop: f64,
        step: f64,
        dtype: DType,
    ) -> Result<Array> {
        if step == 0.0 {
            return Err(Error::invalid(
                "arange",
                "step must not be zero (division by zero)",
            ));
        }
        if !(start.is_finite() && stop.is_finite() && step.is_finite()) {
            return Err(Error::invalid(
                "arange",
                "arange requires finite start, stop and step",
            ));
        }
        // `as` saturates: a length past the address space is refused by the launch.
        let n = ((stop - start) / step).ceil().max(0.0) as usize;
        let second = start + step;
        if dtype.is_bool() {
            if n > 2 {
                return Err(Error::TypeError {
                    op: "arange".into(),
                    dtypes: vec![DType::Bool],
                    msg: "arange() is only supported for booleans when the result has at most \
                          length 2"
                        .into(),
                });
            }
            let v = [start != 0.0, second != 0.0];
            return Array::from_slice_on(device, &v[..n], &[n]);
        }
        let has = |d: DType| device.backend().supports_dtype(d).is_ok();
        let (ct, first, delta, exact_second) = if dtype.is_integer() {
            // NumPy converts the first two values as Python ints (truncation) and refuses one
            // the dtype cannot hold; the fill then wraps around in the dtype, which int64 (or
            // int32) arithmetic reproduces modulo the dtype's width.
            let (lo, hi) = cupy_core::promote::int_range(dtype);
            let fit = |v: f64| -> Result<i128> {
                let t = v.trunc() as i128;
                if t < lo || t > hi {
                    return Err(Error::ScalarOverflow {
                        op: "arange".into(),
                        value: t.to_string(),
                        dtype,
                    });
                }
                Ok(t)
            };
            let v0 = if n > 0 { fit(start)? } else { 0 };
            let v1 = if n > 1 { fit(second)? } else { v0 };
            let ct = if dtype.bits() <= 32 && !has(DType::Int64) {
                DType::Int32
            } else {
                DType::Int64
            };
            let wrap = |v: i128| Scalar::Int64(v as i64).cast(ct);
            (ct, wrap(v0), wrap(v1.wrapping_sub(v0)), None)
        } else {
            // The first two values are `start` and `start + step` in `dtype`; the step is their
            // difference in `dtype`'s precision (float16/bfloat16: in float32, as NumPy's fill).
            let real = if dtype.is_complex() {
                dtype.real_dtype()
            } else {
                dtype
            };
            let v0 = Scalar::Float64(start).cast(real).to_f64();
            let v1 = Scalar::Float64(second).cast(real).to_f64();
            let d = match real {
                DType::Float64 => v1 - v0,
                _ => (v1 as f32 - v0 as f32) as f64,
            };
            let ct = if has(DType::Float64) || real == DType::Float64 {
                DType::Float64
            } else {
                DType::Float32
            };
            let c = |v: f64| Scalar::Float64(v).cast(ct);
            (ct, c(v0), c(d), Some(c(v1)))
        };
        let i = Expr::index().cast(ct);
        let mut value = Expr::binary(
            BinaryOp::Add,
            Expr::param(0, ct),
            Expr::binary(BinaryOp::Mul, i.clone(), Expr::param(1, ct)),
        );
        let mut params = vec![first, delta];
        if let Some(v1) = exact_second {
            // Value 1 is `start + step` itself, not `first + 1 * delta`.
            value = Expr::select(
                Expr::binary(
                    BinaryOp::Eq,
                    i,
                    Expr::constant(Scalar::Float64(1.0).cast(ct)),
                ),
                Expr::param(2, ct),
                value,
            );
            params.push(v1);
        }
        let k = Kernel::map(
            "arange",
            vec![],
            params.iter().map(|p| p.dtype()).collect(),
            value.cast(dtype),
        );
        generate(device, "arange", &[n], &k, params)
    }

    /// `cupy.linspace(start, stop, num, endpoint, dtype)` on `device`: NumPy's values bit for bit
    /// (computed in float64, `start + i * step`, the last value exactly `stop` when `endpoint`,
    /// floored for integer dtypes), then cast to `dtype`.
    ///
    /// # Errors
    /// Dtype and device errors.
    pub fn linspace_on(
        device: &Device,
        start: f64,
        stop: f64,
        num: usize,
        endpoint: bool,
        dtype: DType,
    ) -> Result<Array> {
        // The values are computed on the host with NumPy's exact algorithm (`numpy.linspace`:
        // `arange(num) * step + start` in float64, the last value `stop`, floored for integer
        // dtypes) and uploaded: a device kernel would be free to contract `i * step + start` into
        // an FMA and round differently (seen on NVIDIA), and this is a creation routine whose cost
        // is the upload anyway.
        cupy_core::layout::checked_size("linspace", &[num], dtype.itemsize())?;
        crate::array::check_dtype(device, "linspace", dtype)?;
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let delta = stop - start;
        let step = if div > 0 {
            delta / div as f64
        } else {
            f64::NAN
        };
        let mut bytes: Vec<u8> = Vec::new();
        cupy_core::host::reserve_exact(
            "linspace",
            &mut bytes,
            num.saturating_mul(dtype.itemsize()),
            "the values, computed on the host before the upload",
        )?;
        let mut buf = [0u8; 16];
        for i in 0..num {
            let mut y = i as f64;
            if div > 0 {
                y = if step == 0.0 {
                    y / div as f64 * delta
                } else {
                    y * step
                };
            } else {
                y *= delta;
            }
            y += start;
            if endpoint && num > 1 && i == num - 1 {
                y = stop;
            }
            if dtype.is_integer() {
                y = y.floor();
            }
            let v = Scalar::Float64(y).cast(dtype);
            let n = dtype.itemsize();
            v.write_le_bytes(&mut buf[..n]);
            bytes.extend_from_slice(&buf[..n]);
        }
        Array::from_bytes_on(device, &bytes, &[num], dtype)
    }

    /// `cupy.eye(n, m, k, dtype)` on `device`: ones on the `k`-th diagonal.
    ///
    /// # Errors
    /// Dtype and device errors.
    pub fn eye_on(
        device: &Device,
        n: usize,
        m: Option<usize>,
        k: isize,
        dtype: DType,
    ) -> Result<Array> {
        let m = m.unwrap_or(n);
        let i64t = DType::Int64;
        let cols = Expr::param(0, i64t);
        let row = Expr::binary(BinaryOp::FloorDiv, Expr::index(), cols.clone());
        let col = Expr::binary(BinaryOp::Mod, Expr::index(), cols);
        let on = Expr::binary(
            BinaryOp::Eq,
            Expr::binary(BinaryOp::Sub, col, row),
            Expr::param(1, i64t),
        );
        let body = Expr::select(
            on,
            Expr::constant(Scalar::one(dtype)),
            Expr::constant(Scalar::zero(dtype)),
        );
        let kern = Kernel::map("eye", vec![], vec![i64t, i64t], body);
        generate(
            device,
            "eye",
            &[n, m],
            &kern,
            vec![Scalar::Int64(m.max(1) as i64), Scalar::Int64(k as i64)],
        )
    }

    /// `cupy.zeros_like(a)`: same shape and dtype, on the same device.
    ///
    /// # Errors
    /// As [`Array::full_on`].
    pub fn zeros_like(&self) -> Result<Array> {
        Array::zeros_on(&self.device, self.shape(), self.dtype)
    }
    /// `cupy.ones_like(a)`.
    ///
    /// # Errors
    /// As [`Array::full_on`].
    pub fn ones_like(&self) -> Result<Array> {
        Array::ones_on(&self.device, self.shape(), self.dtype)
    }
    /// `cupy.full_like(a, value)`.
    ///
    /// # Errors
    /// As [`Array::full_on`].
    pub fn full_like(&self, value: impl Into<Scalar>) -> Result<Array> {
        Array::full_on(&self.device, self.shape(), value, self.dtype)
    }
    /// `cupy.empty_like(a)`.
    ///
    /// # Errors
    /// As [`Array::empty_on`].
    pub fn empty_like(&self) -> Result<Array> {
        Array::empty_on(&self.device, self.shape(), self.dtype)
    }
}
