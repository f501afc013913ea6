//! Dense linear algebra through cuSOLVER (`Backend::linalg`), loaded at run time on the first
//! call: one `cusolverDn` handle per backend, bound to its stream, and cuSOLVER's 64-bit
//! generic API (`cusolverDnX*`, one code path for float32/float64/complex64/complex128).
//! Every call is queued on the stream with no synchronization; `info` is written on the device.
//!
//! Layouts: our matrices are row-major (C order), cuSOLVER's column-major. A row-major buffer
//! read column-major is the transpose, so each op either works on that transpose directly or
//! first copies the matrix transposed on the device (an elementwise copy kernel):
//!
//! - `solve`, `inv`, `det`, `slogdet`: `A` is copied transposed, so `getrf` factors `A` itself
//!   with LAPACK's (and NumPy's) pivots; `solve` transposes `b` in and `x` out (no copy for one
//!   right-hand side) and calls `getrs(N)`; `inv` calls `getrs(T)` (the plain transpose, for
//!   complex too) on the identity, whose column-major result `A^-T` is `A^-1` in row-major.
//!   `det`/`slogdet` come from the factors by a small NVRTC kernel ([`crate::solver_kernels`]).
//! - `cholesky` (potrf) runs on the plain copy (`A^T = conj(A)` for Hermitian `A`): the lower
//!   factor of `A` is the transposed upper factor of `A^T`, so `potrf(UPPER)` on the copy leaves
//!   `L` in row-major order; the other triangle is then zeroed.
//! - `eigh` (syevd/heevd) also runs on the plain copy with the other triangle; its vectors are
//!   those of `conj(A)`, copied out conjugate-transposed. A matrix holding NaN or infinity gives
//!   NaN outputs with info 0 (as the cpu backend), and the solver sees zeros instead.
//! - `svd` (gesvd, which needs rows >= cols): for `m <= n` the plain copy is the `n x m`
//!   column-major `A^T = conj(V) S U^T`, so gesvd's `U` is our `vh` and its `VT` our `u`, both
//!   written in place; for `m > n`, `A` is copied transposed and `U`/`VT` are transposed out.
//!   Non-finite input: NaN outputs and info 1 (NumPy's "SVD did not converge").
//! - `qr` (geqrf + orgqr/ungqr): on the transposed copy, whose geqrf result read row-major is
//!   exactly NumPy's `mode="raw"` `h`; `R` and `Q` are extracted by kernels.
//! - `eig` is not native: it answers `Unsupported` and the frontend runs it on the host.
//!
//! Batches loop the per-matrix calls on the stream with one workspace (from the backend's
//! pool, sized by the `_bufferSize` query), since the calls are ordered.
//! A missing libcusolver, or any cuSOLVER symbol, makes the call `Unsupported`, as does
//! `CUPY_CUSOLVER=0` (to compare with, or fall back to, the host round trip).

use crate::solver_kernels as sk;
use crate::{CudaBackend, CudaBuffer};
use cudarc::cusolver::sys as cs;
use cudarc::driver::result;
use cupy_core::backend::{Backend, Buffer, LinalgCall, LinalgOp, QrMode};
use cupy_core::kernel::ir::{Expr, Kernel, UnaryOp};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result};
use std::ffi::c_void;

mod ops;

/// A cuSOLVER dense handle and its (default) parameter object.
pub(crate) struct Solver {
    handle: cs::cusolverDnHandle_t,
    params: cs::cusolverDnParams_t,
}

// SAFETY: the handle is only used with the backend's one stream, in submission order.
unsafe impl Send for Solver {}
// SAFETY: as above.
unsafe impl Sync for Solver {}

impl Drop for Solver {
    fn drop(&mut self) {
        // SAFETY: created by cusolverDnCreate/CreateParams, destroyed once.
        let _ = std::panic::catch_unwind(|| unsafe {
            cs::cusolverDnDestroyParams(self.params);
            cs::cusolverDnDestroy(self.handle);
        });
    }
}

/// Opens cuSOLVER; `Err` says why it is unavailable.
pub(crate) fn create(be: &CudaBackend) -> std::result::Result<Solver, String> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: only tries to open the library.
        if !unsafe { cs::is_culib_present() } {
            return Err("libcusolver not found (install cuSOLVER, e.g. libcusolver.so.12)".into());
        }
        be.bind().map_err(|e| e.to_string())?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: out-parameter; the context is bound.
        let s = unsafe { cs::cusolverDnCreate(&mut handle) };
        if s != cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            return Err(format!("cusolverDnCreate failed: {s:?}"));
        }
        let mut params = std::ptr::null_mut();
        // SAFETY: valid handle and stream; out-parameter.
        let s = unsafe {
            let s = cs::cusolverDnSetStream(handle, be.stream_ptr() as cs::cudaStream_t);
            if s == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
                cs::cusolverDnCreateParams(&mut params)
            } else {
                s
            }
        };
        if s != cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            // SAFETY: created above.
            unsafe { cs::cusolverDnDestroy(handle) };
            return Err(format!("cusolverDnSetStream/CreateParams failed: {s:?}"));
        }
        Ok(Solver { handle, params })
    }));
    r.unwrap_or_else(|_| Err("libcusolver failed to load".into()))
}

fn unsupported(be: &CudaBackend, op: &str, reason: impl Into<String>) -> Error {
    Error::Unsupported {
        op: op.into(),
        backend: be.info().label(),
        reason: reason.into(),
    }
}

/// cuSOLVER's data type of a linalg dtype.
fn cuda_type(dt: DType) -> cs::cudaDataType {
    match dt {
        DType::Float32 => cs::cudaDataType::CUDA_R_32F,
        DType::Float64 => cs::cudaDataType::CUDA_R_64F,
        DType::Complex64 => cs::cudaDataType::CUDA_C_32F,
        _ => cs::cudaDataType::CUDA_C_64F,
    }
}

/// The dtype of each output of `op` for a matrix of dtype `t`.
fn out_dtypes(op: LinalgOp, t: DType) -> Vec<DType> {
    let r = t.real_dtype();
    match op {
        LinalgOp::Slogdet => vec![t, r],
        LinalgOp::Eigh { .. } => vec![r, t],
        LinalgOp::Svd { .. } => vec![r, t, t],
        _ => vec![t, t],
    }
}

/// The checked device buffers of a call: inputs and outputs.
pub(crate) struct Bufs<'a> {
    pub ins: Vec<&'a CudaBuffer>,
    pub outs: Vec<&'a CudaBuffer>,
    pub info: &'a CudaBuffer,
}

fn check<'a>(be: &CudaBackend, call: &LinalgCall<'a>) -> Result<Bufs<'a>> {
    let op = call.op.name();
    let (ins, outs) = call.lens();
    let odt = out_dtypes(call.op, call.dtype);
    if call.inputs.len() != ins.len() || call.outputs.len() != outs.len() {
        return Err(Error::invalid(
            op,
            format!(
                "linalg call needs {} inputs and {} outputs, got {} and {}",
                ins.len(),
                outs.len(),
                call.inputs.len(),
                call.outputs.len()
            ),
        ));
    }
    let get = |what: &str, i: usize, b: &'a Buffer, len: usize, dt: DType| {
        let cb = be.buf(b, op)?;
        if cb.len < len || cb.dtype != dt {
            return Err(Error::invalid(
                op,
                format!(
                    "linalg {what} {i}: needs {len} x {dt}, got {} x {}",
                    cb.len, cb.dtype
                ),
            ));
        }
        Ok(cb)
    };
    let mut bi = Vec::new();
    for (i, (b, &l)) in call.inputs.iter().zip(&ins).enumerate() {
        bi.push(get("input", i, b, l, call.dtype)?);
    }
    let mut bo = Vec::new();
    for (i, (b, &l)) in call.outputs.iter().zip(&outs).enumerate() {
        bo.push(get("output", i, b, l, odt[i])?);
    }
    let info = get("info", 0, call.info, call.batch, DType::Int32)?;
    Ok(Bufs {
        ins: bi,
        outs: bo,
        info,
    })
}

/// `Backend::linalg` of the CUDA backend.
pub(crate) fn linalg(be: &CudaBackend, call: &LinalgCall<'_>) -> Result<()> {
    let op = call.op.name();
    if sk::suffix(call.dtype).is_none() {
        return Err(unsupported(
            be,
            op,
            format!(
                "cuSOLVER is used for float32, float64, complex64 and complex128, not {}",
                call.dtype
            ),
        ));
    }
    if std::env::var("CUPY_CUSOLVER").is_ok_and(|v| v == "0") {
        return Err(unsupported(
            be,
            op,
            "CUPY_CUSOLVER=0 (host round trip requested)",
        ));
    }
    if matches!(call.op, LinalgOp::Eig { .. }) {
        return Err(unsupported(
            be,
            op,
            "eig is not native on cuda (host round trip)",
        ));
    }
    let big = [call.m, call.n, call.nrhs, call.batch]
        .iter()
        .any(|&v| v > i32::MAX as usize);
    if big {
        return Err(unsupported(be, op, "matrix dimensions beyond 2^31-1"));
    }
    let bufs = check(be, call)?;
    if call.batch == 0 {
        return Ok(());
    }
    be.bind()?;
    let solver = match be.solver.get_or_init(|| create(be)) {
        Ok(s) => s,
        Err(reason) => return Err(unsupported(be, op, reason.clone())),
    };
    let ctx = Ctx {
        be,
        s: solver,
        call,
        dt: call.dtype,
        bufs,
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.run())) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            Err(unsupported(be, op, format!("cuSOLVER: {msg}")))
        }
    }
}

/// One call's state: the backend, the handle, the call and its checked buffers.
pub(crate) struct Ctx<'a, 'c> {
    pub be: &'a CudaBackend,
    pub s: &'a Solver,
    pub call: &'a LinalgCall<'c>,
    pub dt: DType,
    pub bufs: Bufs<'c>,
}

impl Ctx<'_, '_> {
    fn run(&self) -> Result<()> {
        match self.call.op {
            LinalgOp::Solve | LinalgOp::Inv | LinalgOp::Det | LinalgOp::Slogdet => self.lu_ops(),
            LinalgOp::Cholesky { upper } => self.cholesky(upper),
            LinalgOp::Eigh { upper, vectors } => self.eigh(upper, vectors),
            LinalgOp::Svd { full, vectors } => self.svd(full, vectors),
            LinalgOp::Qr { mode } => self.qr(mode),
            LinalgOp::Eig { .. } => Err(unsupported(self.be, "eig", "not native")),
        }
    }

    /// `cudaDataType` of the call's dtype.
    fn ty(&self) -> cs::cudaDataType {
        cuda_type(self.dt)
    }

    /// `cudaDataType` of the call's real dtype.
    fn rty(&self) -> cs::cudaDataType {
        cuda_type(self.dt.real_dtype())
    }

    /// Bytes of one element of the call's dtype.
    fn isz(&self) -> u64 {
        self.dt.itemsize() as u64
    }

    fn err(&self, what: &str, s: cs::cusolverStatus_t) -> Error {
        self.be.err(format!(
            "{} ({}, batch {}, {}x{}): {what} failed: {s:?}",
            self.call.op.name(),
            self.dt,
            self.call.batch,
            self.call.m,
            self.call.n
        ))
    }

    fn ok(&self, what: &str, s: cs::cusolverStatus_t) -> Result<()> {
        if s == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(self.err(what, s))
        }
    }

    /// A new device buffer of `len` elements of `dt` (from the pool) and its address.
    fn scratch(&self, dt: DType, len: usize) -> Result<(Buffer, u64)> {
        let b = self.be.alloc(dt, len.max(1))?;
        let p = self.be.buf(&b, self.call.op.name())?.ptr;
        Ok((b, p))
    }

    /// Device workspace of `bytes` (at least 1) and host workspace of `host` bytes.
    fn workspace(&self, bytes: usize, host: usize) -> Result<(Buffer, u64, Vec<u8>)> {
        let (b, p) = self.scratch(DType::UInt8, bytes)?;
        Ok((b, p, vec![0u8; host]))
    }

    /// Waits for the stream when a host workspace was used (cuSOLVER may read it until the
    /// queued work has run).
    fn host_done(&self, host: &[u8]) -> Result<()> {
        if host.is_empty() {
            Ok(())
        } else {
            self.be.synchronize()
        }
    }

    /// `dst[b] = src[b]^T` (conjugated when `conj`) for `[batch, rows, cols]` row-major
    /// matrices at device addresses `src`/`dst` (`dst` is `[batch, cols, rows]`).
    fn transpose(
        &self,
        src: (&CudaBuffer, usize),
        dst: (&CudaBuffer, usize),
        dims: (usize, usize, usize),
        conj: bool,
    ) -> Result<()> {
        let (batch, rows, cols) = dims;
        if batch * rows * cols == 0 {
            return Ok(());
        }
        let dt = self.dt;
        let x = Expr::input(0, dt);
        let e = if conj && dt.is_complex() {
            Expr::unary(UnaryOp::Conj, x)
        } else {
            x
        };
        let k = Kernel::map("transpose", vec![dt], vec![], e);
        let shape = [batch, cols, rows];
        let il = Layout {
            shape: shape.to_vec(),
            strides: vec![(rows * cols) as isize, 1, cols as isize],
            offset: src.1,
        };
        let mut ol = Layout::contiguous(&shape);
        ol.offset = dst.1;
        self.be
            .run_elementwise(&k, &shape, &[(src.0, &il)], &[(dst.0, &ol)], &[], &[])
    }

    /// Copies `elems` elements of the call's dtype from `src` to `dst` (device addresses).
    fn copy(&self, src: u64, dst: u64, elems: usize) -> Result<()> {
        if elems == 0 {
            return Ok(());
        }
        // SAFETY: both ranges lie in live buffers of at least `elems` elements (the caller's
        // contract); our stream and bound context.
        unsafe {
            result::memcpy_dtod_async(dst, src, elems * self.dt.itemsize(), self.be.stream_ptr())
        }
        .map_err(|e| self.be.err(format!("device copy failed: {e:?}")))
    }

    /// Sets `bytes` bytes at `dst` to zero.
    fn zero(&self, dst: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the range lies in a live buffer (the caller's contract); our stream.
        unsafe { result::memset_d8_async(dst, 0, bytes, self.be.stream_ptr()) }
            .map_err(|e| self.be.err(format!("device memset failed: {e:?}")))
    }

    /// Launches solver kernel `family` (for dtype `dt`) over `threads` threads.
    fn kernel(&self, family: &str, dt: DType, threads: usize, args: &[u64]) -> Result<()> {
        sk::launch(self.be, &sk::entry(family, dt)?, threads, args)
    }

    /// Identity matrices `[batch, rows, cols]` at `dst` (the call's dtype).
    fn eye(&self, dst: u64, batch: usize, rows: usize, cols: usize) -> Result<()> {
        let total = batch * rows * cols;
        self.kernel(
            "eye",
            self.dt,
            total,
            &[total as u64, rows as u64, cols as u64, dst],
        )
    }

    /// Flags (`int32 [batch]`, on the device) of the matrices of `a` (`per` elements each)
    /// that hold NaN or infinity, and zeros those matrices in `work` (same shape).
    fn nonfinite(&self, a: u64, work: u64, per: usize) -> Result<(Buffer, u64)> {
        let batch = self.call.batch;
        let (fb, flags) = self.scratch(DType::Int32, batch)?;
        self.zero(flags, batch * 4)?;
        let total = (batch * per) as u64;
        self.kernel(
            "nf_flag",
            self.dt,
            batch * per,
            &[total, per as u64, a, flags],
        )?;
        self.kernel(
            "nf_zero",
            self.dt,
            batch * per,
            &[total, per as u64, flags, work],
        )?;
        Ok((fb, flags))
    }

    /// NaN in the flagged matrices of output `dst` (`per` elements of `dt` each).
    fn nan_flagged(&self, flags: u64, dst: u64, per: usize, dt: DType) -> Result<()> {
        let total = self.call.batch * per;
        self.kernel("nf_nan", dt, total, &[total as u64, per as u64, flags, dst])
    }

    /// `info[b] = value` for the flagged matrices.
    fn info_flagged(&self, flags: u64, value: i32) -> Result<()> {
        let batch = self.call.batch;
        let info = self.bufs.info.ptr;
        self.kernel(
            "nf_info",
            self.dt,
            batch,
            &[batch as u64, flags, info, value as i64 as u64],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_map_to_cusolver_types() {
        assert_eq!(cuda_type(DType::Float32), cs::cudaDataType::CUDA_R_32F);
        assert_eq!(cuda_type(DType::Complex128), cs::cudaDataType::CUDA_C_64F);
        let eigh = LinalgOp::Eigh {
            upper: false,
            vectors: true,
        };
        assert_eq!(
            out_dtypes(eigh, DType::Complex64),
            vec![DType::Float32, DType::Complex64]
        );
        assert_eq!(
            out_dtypes(LinalgOp::Slogdet, DType::Complex128),
            vec![DType::Complex128, DType::Float64]
        );
    }
}
