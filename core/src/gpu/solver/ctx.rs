//! One linalg call's state ([`Ctx`]) and the pieces every plan uses: scratch buffers from the
//! pool, the workspace flow of a library call, transposed copies (an elementwise IR kernel),
//! device copies and fills, and the helper-kernel wrappers (identity, non-finite checks).

use super::{kernels, LapackCall, SolverDriver, Work};
use crate::backend::{Buffer, LinalgCall, LinalgOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::launch::{run_elementwise, DevBuf};
use crate::kernel::ir::{Expr, Kernel, UnaryOp};
use crate::layout::Layout;

/// The checked device buffers of a call: inputs, outputs, info.
pub(super) struct Bufs {
    pub ins: Vec<DevBuf>,
    pub outs: Vec<DevBuf>,
    pub info: DevBuf,
}

/// One call's state: the backend, the call and its checked buffers.
pub(super) struct Ctx<'a, 'c, D: SolverDriver> {
    pub be: &'a D,
    pub call: &'a LinalgCall<'c>,
    pub dt: DType,
    pub bufs: Bufs,
}

impl<D: SolverDriver> Ctx<'_, '_, D> {
    pub(super) fn run(&self) -> Result<()> {
        match self.call.op {
            LinalgOp::Solve | LinalgOp::Inv | LinalgOp::Det | LinalgOp::Slogdet => self.lu_ops(),
            LinalgOp::Cholesky { upper } => self.cholesky(upper),
            LinalgOp::Eigh { upper, vectors } => self.eigh(upper, vectors),
            LinalgOp::Svd { full, vectors } => self.svd(full, vectors),
            LinalgOp::Qr { mode } => self.qr(mode),
            LinalgOp::Eig { vectors } => self.eig(vectors),
        }
    }

    /// The backend's error for a failed library call (`what`: the function and its status).
    pub(super) fn err(&self, what: &str) -> Error {
        Error::Backend {
            backend: self.be.info().label(),
            msg: format!(
                "{} ({}, batch {}, {}x{}): {what}",
                self.call.op.name(),
                self.dt,
                self.call.batch,
                self.call.m,
                self.call.n
            ),
        }
    }

    /// A new device buffer of `len` elements of `dt` (from the pool) and its address.
    pub(super) fn scratch(&self, dt: DType, len: usize) -> Result<(Buffer, DevBuf)> {
        let b = self.be.alloc(dt, len.max(1))?;
        let d = self.be.dev_buf(&b, self.call.op.name())?;
        Ok((b, d))
    }

    /// Sizes, allocates and passes the workspace of one library call, queues it, and waits for
    /// the stream when a host workspace was used (the library may read it until the queued
    /// work has run).
    pub(super) fn lapack(&self, call: LapackCall) -> Result<()> {
        let size = self.be.workspace(&call).map_err(|e| self.err(&e))?;
        let (_ws, wp) = self.scratch(DType::UInt8, size.device)?;
        let mut host = vec![0u8; size.host];
        let work = Work {
            device: wp.ptr,
            device_bytes: size.device,
            host: &mut host,
        };
        // SAFETY: the plans build `call` from checked operands and scratch buffers of the
        // sizes each variant documents; the workspace is as sized above.
        unsafe { self.be.lapack(&call, work) }.map_err(|e| self.err(&e))?;
        if host.is_empty() {
            Ok(())
        } else {
            self.be.synchronize()
        }
    }

    /// A [`LapackCall`] of the call's dtype and batch.
    pub(super) fn call(&self, op: super::Lapack) -> LapackCall {
        LapackCall {
            dtype: self.dt,
            batch: self.call.batch,
            op,
        }
    }

    /// `dst[b] = src[b]^T` (conjugated when `conj`) for `[batch, rows, cols]` row-major
    /// matrices (`dst` is `[batch, cols, rows]`).
    pub(super) fn transpose(
        &self,
        src: DevBuf,
        dst: DevBuf,
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
            offset: 0,
        };
        let ol = Layout::contiguous(&shape);
        run_elementwise(self.be, &k, &shape, &[(src, &il)], &[(dst, &ol)], &[], &[])
    }

    /// Copies `elems` elements of the call's dtype from `src` to `dst` (device addresses).
    pub(super) fn copy(&self, src: u64, dst: u64, elems: usize) -> Result<()> {
        if elems == 0 {
            return Ok(());
        }
        // SAFETY: both ranges lie in live buffers of at least `elems` elements (the plans'
        // checked operands and scratch).
        unsafe { self.be.copy_device(dst, src, elems * self.dt.itemsize()) }
    }

    /// Sets `bytes` bytes at `dst` to zero.
    pub(super) fn zero(&self, dst: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the range lies in a live buffer (the plans' checked operands and scratch).
        unsafe { self.be.zero_device(dst, bytes) }
    }

    /// Zeros `info` (ops that succeed trivially).
    pub(super) fn info_zero(&self) -> Result<()> {
        self.zero(self.bufs.info.ptr, self.call.batch * 4)
    }

    /// Launches solver kernel `family` (for dtype `dt`) over `threads` threads.
    pub(super) fn kernel(
        &self,
        family: &str,
        dt: DType,
        threads: usize,
        args: &[u64],
    ) -> Result<()> {
        // SAFETY: the plans pass each kernel's documented slots with live addresses covering
        // `threads` elements (solver.cu).
        unsafe { kernels::launch(self.be, family, dt, threads, args) }
    }

    /// Identity matrices `[batch, rows, cols]` at `dst` (the call's dtype).
    pub(super) fn eye(&self, dst: u64, batch: usize, rows: usize, cols: usize) -> Result<()> {
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
    pub(super) fn nonfinite(&self, a: u64, work: u64, per: usize) -> Result<(Buffer, u64)> {
        let batch = self.call.batch;
        let (fb, flags) = self.scratch(DType::Int32, batch)?;
        self.zero(flags.ptr, batch * 4)?;
        let total = (batch * per) as u64;
        self.kernel(
            "nf_flag",
            self.dt,
            batch * per,
            &[total, per as u64, a, flags.ptr],
        )?;
        self.kernel(
            "nf_zero",
            self.dt,
            batch * per,
            &[total, per as u64, flags.ptr, work],
        )?;
        Ok((fb, flags.ptr))
    }

    /// NaN in the flagged matrices of output `dst` (`per` elements of `dt` each).
    pub(super) fn nan_flagged(&self, flags: u64, dst: u64, per: usize, dt: DType) -> Result<()> {
        let total = self.call.batch * per;
        self.kernel("nf_nan", dt, total, &[total as u64, per as u64, flags, dst])
    }

    /// `info[b] = value` for the flagged matrices.
    pub(super) fn info_flagged(&self, flags: u64, value: i32) -> Result<()> {
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
