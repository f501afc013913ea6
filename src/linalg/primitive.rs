//! The one path of every factorization to the backend: NumPy's linalg dtype rule, the
//! stacked-matrix checks, a C-contiguous `[batch, m, n]` operand, one [`Backend::linalg`] call
//! and one read of the batch's `info`.
//!
//! Square float32/float64 matrices up to [`crate::linalg::small::SMALL_MAX_N`] take the one-kernel path of
//! [`crate::linalg::small`] instead (on every backend but cpu by default; `CUPY_LINALG_SMALL`).
//!
//! A backend without a native `linalg` for the call answers `Unsupported` (today: wgpu for
//! complex dtypes and `eig`/`eigh`/`svd`, for sizes past its loop budget or one storage binding,
//! and for everything with `CUPY_WGPU_LINALG=0`; its real `solve inv det slogdet cholesky qr` are
//! native WGSL, `cupy_wgpu`'s `linalg` module; hip for `eig` or without rocSOLVER; cuda for `eig`
//! or when libcusolver cannot be loaded); the call then runs on the host through the cpu
//! backend's faer implementation ([`cupy_cpu::linalg::via_host`]: read the buffers, factor,
//! write back). This hybrid is listed in `docs/backends.md`.
//!
//! [`Backend::linalg`]: cupy_core::backend::Backend::linalg

use crate::array::Array;
use crate::device::Device;
use cupy_core::backend::{Buffer, LinalgCall, LinalgOp};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// NumPy's `_commonType` for linalg: integers and bool compute in float64, float16 (and
/// bfloat16) are refused, float32/float64/complex64/complex128 stay.
///
/// # Errors
/// [`Error::TypeError`] "array type float16 is unsupported in linalg".
pub(crate) fn linalg_dtype(op: &str, dtypes: &[DType]) -> Result<DType> {
    let mut t = DType::Float32;
    let mut complex = false;
    for &d in dtypes {
        match d {
            DType::Float16 | DType::BFloat16 => {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![d],
                    msg: format!("array type {d} is unsupported in linalg"),
                })
            }
            DType::Float32 => {}
            DType::Complex64 => complex = true,
            DType::Complex128 => {
                complex = true;
                t = DType::Float64;
            }
            _ => t = DType::Float64,
        }
    }
    Ok(match (t, complex) {
        (DType::Float32, true) => DType::Complex64,
        (_, true) => DType::Complex128,
        (t, false) => t,
    })
}

/// The real dtype of `t` (float32 for complex64).
pub(crate) fn real_of(t: DType) -> DType {
    t.real_dtype()
}

/// The complex dtype of `t` (complex64 for float32).
pub(crate) fn complex_of(t: DType) -> DType {
    cupy_core::kernel::ir::complex_of(t.real_dtype())
}

/// NumPy's `_assert_stacked_2d`.
///
/// # Errors
/// [`Error::LinAlgError`] "N-dimensional array given. Array must be at least two-dimensional".
pub(crate) fn assert_stacked_2d(op: &str, a: &Array) -> Result<()> {
    if a.ndim() < 2 {
        return Err(Error::linalg(
            op,
            format!(
                "{}-dimensional array given. Array must be at least two-dimensional",
                a.ndim()
            ),
        ));
    }
    Ok(())
}

/// NumPy's `_assert_stacked_square` (after [`assert_stacked_2d`]).
///
/// # Errors
/// [`Error::LinAlgError`] "Last 2 dimensions of the array must be square".
pub(crate) fn assert_stacked_square(op: &str, a: &Array) -> Result<()> {
    assert_stacked_2d(op, a)?;
    let n = a.ndim();
    if a.shape()[n - 1] != a.shape()[n - 2] {
        return Err(Error::linalg(
            op,
            "Last 2 dimensions of the array must be square",
        ));
    }
    Ok(())
}

/// `a` as dtype `t`, C-contiguous from element 0 of its own buffer (a copy when it is not).
pub(crate) fn dense(a: &Array, t: DType) -> Result<Array> {
    let a = if a.dtype() != t {
        a.astype(t)?
    } else {
        a.clone()
    };
    if a.is_c_contiguous() && a.layout.offset == 0 {
        Ok(a)
    } else {
        a.copy()
    }
}

/// One factorization of a stack of matrices.
pub(crate) struct Factor<'a> {
    /// The op.
    pub op: LinalgOp,
    /// The (already [`dense`]) matrix stack `[..batch, m, n]` of the call's dtype.
    pub a: &'a Array,
    /// `Solve`'s right-hand sides `[..batch, n, k]` (dense, same dtype, same batch shape).
    pub b: Option<&'a Array>,
    /// Per-matrix output shapes and dtypes, in [`LinalgOp`]'s order.
    pub outs: Vec<(Vec<usize>, DType)>,
}

/// Runs `f`: allocates the outputs (batch shape prepended), calls the backend (or the host
/// hybrid) and reads `info` once. Returns the outputs and the per-matrix info (empty for an
/// empty batch, whose outputs are empty arrays), or, on the small-matrix path, one entry: 0, or
/// the code of a failed matrix. Callers test it with [`check_info`] (any non-zero entry).
///
/// # Errors
/// Backend errors.
pub(crate) fn factor(f: Factor<'_>) -> Result<(Vec<Array>, Vec<i32>)> {
    let a = f.a;
    let device: &Device = a.device();
    // Every backend, every size: a factorization's status is read to the host.
    crate::cuda::graph::refuse(
        device,
        f.op.name(),
        "a factorization's status is read to the host (LinAlgError)",
    )?;
    let nd = a.ndim();
    let batch_shape = &a.shape()[..nd - 2];
    let batch: usize = batch_shape.iter().product();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let nrhs = f.b.map_or(0, |b| b.shape()[b.ndim() - 1]);
    let mut outs = Vec::with_capacity(f.outs.len());
    for (shape, dt) in &f.outs {
        let mut s = batch_shape.to_vec();
        s.extend(shape);
        outs.push(Array::empty_on(device, &s, *dt)?);
    }
    if batch == 0 {
        return Ok((outs, Vec::new()));
    }
    if super::small::wanted(device, f.op, a.dtype(), m, n) {
        match super::small::run(f.op, a, f.b, &outs) {
            // One code for the whole batch (0: none failed).
            Ok(Some(code)) => return Ok((outs, code.to_vec::<i32>()?)),
            // det, slogdet, eigh: nothing to read back.
            Ok(None) => return Ok((outs, vec![0])),
            // A device without the dtype (float64 on some wgpu adapters) keeps the usual path
            // unless the kernels were forced on.
            Err(Error::DTypeNotSupported { .. } | Error::Unsupported { .. })
                if super::small::small_mode() == super::small::SmallMode::Auto => {}
            Err(e) => return Err(e),
        }
    }
    let info = Array::empty_on(device, &[batch], DType::Int32)?;
    let mut inputs = vec![&a.buffer];
    if let Some(b) = f.b {
        inputs.push(&b.buffer);
    }
    let call = LinalgCall {
        op: f.op,
        dtype: a.dtype(),
        batch,
        m,
        n,
        nrhs,
        inputs,
        outputs: outs.iter().map(|o| &o.buffer).collect(),
        info: &info.buffer,
    };
    let writes: Vec<&Buffer> = call.outputs.iter().copied().chain([call.info]).collect();
    crate::cuda::order::order(device, &call.inputs, &writes)?;
    let be = device.backend();
    match be.linalg(&call) {
        Err(Error::Unsupported { .. }) => cupy_cpu::linalg::via_host(be.as_ref(), &call)?,
        r => r?,
    }
    let info = info.to_vec::<i32>()?;
    Ok((outs, info))
}

/// NumPy's rule for a batch: the call fails if any matrix failed.
///
/// # Errors
/// [`Error::LinAlgError`] with `reason` when any info is non-zero.
pub(crate) fn check_info(op: &str, info: &[i32], reason: &str) -> Result<()> {
    if info.iter().any(|&i| i != 0) {
        return Err(Error::linalg(op, reason));
    }
    Ok(())
}
