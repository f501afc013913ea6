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

/// A new array of `shape` filled with `value` cast to `dtype`; errors name `op` (the routine
/// the user called: `zeros`, `ones`, `full`).
fn fill_on(
    device: &Device,
    op: &str,
    shape: &[usize],
    value: Scalar,
    dtype: DType,
) -> Result<Array> {
    // NumPy 2 refuses an integer fill value that the integer dtype cannot hold.
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
    let k = Kernel::map(op, vec![], vec![dtype], Expr::param(0, dtype));
    generate(device, op, shape, &k, vec![value.cast(dtype)])
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

    /// `cupy.arange(start, stop, step, dtype)` on `device`: `ceil((stop - start) / step)` values
    /// `start + i * step`, computed in int64 for integer dtypes and float64 otherwise, then cast.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `step == 0` or a non-finite bound; dtype and device errors.
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
        let n = ((stop - start) / step).ceil().max(0.0) as usize;
        // int64/float64 arithmetic as NumPy does, or the 32-bit type on a device without it
        // (e.g. a wgpu adapter without SHADER_INT64/SHADER_F64) when the values allow.
        let has = |d: DType| device.backend().supports_dtype(d).is_ok();
        let fits_i32 = [start, stop, step]
            .iter()
            .all(|v| v.abs() < i32::MAX as f64);
        let ct = if dtype.is_integer() || dtype.is_bool() {
            if has(DType::Int64) || !fits_i32 {
                DType::Int64
            } else {
                DType::Int32
            }
        } else if has(DType::Float64) || dtype == DType::Float64 {
            DType::Float64
        } else {
            DType::Float32
        };
        let body = Expr::binary(
            BinaryOp::Add,
            Expr::param(0, ct),
            Expr::binary(BinaryOp::Mul, Expr::index().cast(ct), Expr::param(1, ct)),
        )
        .cast(dtype);
        let k = Kernel::map("arange", vec![], vec![ct, ct], body);
        let params = vec![
            Scalar::Float64(start).cast(ct),
            Scalar::Float64(step).cast(ct),
        ];
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
        bytes
            .try_reserve_exact(num * dtype.itemsize())
            .map_err(|_| cupy_core::Error::OutOfMemory {
                device: "host".into(),
                requested: num * dtype.itemsize(),
                detail: "linspace computes its values on the host before the upload".into(),
            })?;
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
