//! The ops of [`super`]: LU (solve, inv, det, slogdet), Cholesky, eigh, SVD and QR. The layout
//! reasoning of each is in the parent module's docs.

use super::*;
use cs::cublasFillMode_t::{CUBLAS_FILL_MODE_LOWER as LOWER, CUBLAS_FILL_MODE_UPPER as UPPER};
use cs::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
use cs::cusolverEigMode_t::{CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR};

fn host_ptr(h: &mut [u8]) -> *mut c_void {
    if h.is_empty() {
        std::ptr::null_mut()
    } else {
        h.as_mut_ptr() as *mut c_void
    }
}

fn vp(p: u64) -> *mut c_void {
    p as *mut c_void
}

fn ip(p: u64) -> *mut i32 {
    p as *mut i32
}

impl Ctx<'_, '_> {
    fn cb<'b>(&self, b: &'b Buffer) -> Result<&'b CudaBuffer> {
        self.be.buf(b, self.call.op.name())
    }

    /// Zeros `info` (ops that succeed trivially).
    fn info_zero(&self) -> Result<()> {
        self.zero(self.bufs.info.ptr, self.call.batch * 4)
    }

    /// `getrf` of each column-major `n x n` matrix at `a` (batch stride `n * n`): 64-bit pivots
    /// at `ipiv` (`[batch, n]`), status at `info` (`[batch]`).
    fn getrf(&self, a: u64, ipiv: u64, info: u64) -> Result<()> {
        let (n, batch) = (self.call.n as i64, self.call.batch as u64);
        let (h, p, ty) = (self.s.handle, self.s.params, self.ty());
        let (mut dev, mut host) = (0usize, 0usize);
        // SAFETY: valid handle; `a` covers the matrix; out-parameters.
        let s = unsafe {
            cs::cusolverDnXgetrf_bufferSize(h, p, n, n, ty, vp(a), n, ty, &mut dev, &mut host)
        };
        self.ok("cusolverDnXgetrf_bufferSize", s)?;
        let (_ws, wp, mut hw) = self.workspace(dev, host)?;
        let nn = (n * n) as u64;
        for b in 0..batch {
            // SAFETY: matrix b, its pivots and info lie in their buffers; workspaces as queried.
            let s = unsafe {
                cs::cusolverDnXgetrf(
                    h,
                    p,
                    n,
                    n,
                    ty,
                    vp(a + b * nn * self.isz()),
                    n,
                    (ipiv + b * n as u64 * 8) as *mut i64,
                    ty,
                    vp(wp),
                    dev,
                    host_ptr(&mut hw),
                    host,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXgetrf", s)?;
        }
        self.host_done(&hw)
    }

    /// `getrs(op)` with `nrhs` column-major right-hand sides at `x` (batch stride `n * nrhs`).
    fn getrs(
        &self,
        op: cs::cublasOperation_t,
        a: u64,
        ipiv: u64,
        x: u64,
        nrhs: usize,
    ) -> Result<()> {
        let (n, batch) = (self.call.n as i64, self.call.batch);
        let (h, p, ty) = (self.s.handle, self.s.params, self.ty());
        // getrs reports only argument errors; keep getrf's info.
        let (_ib, info) = self.scratch(DType::Int32, batch)?;
        let (nn, nk) = ((n * n) as u64, n as u64 * nrhs as u64);
        for b in 0..batch as u64 {
            // SAFETY: matrix b's factors, pivots and right-hand sides lie in their buffers.
            let s = unsafe {
                cs::cusolverDnXgetrs(
                    h,
                    p,
                    op,
                    n,
                    nrhs as i64,
                    ty,
                    vp(a + b * nn * self.isz()),
                    n,
                    (ipiv + b * n as u64 * 8) as *const i64,
                    ty,
                    vp(x + b * nk * self.isz()),
                    n,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXgetrs", s)?;
        }
        Ok(())
    }

    /// solve, inv, det and slogdet: LU of `A` (copied transposed: column-major `A`).
    pub(super) fn lu_ops(&self) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        let a = self.bufs.ins[0];
        let info = self.bufs.info.ptr;
        let (lu, lup) = self.scratch(dt, batch * n * n)?;
        let (_pb, piv) = self.scratch(DType::Int64, batch * n)?;
        if n > 0 {
            self.transpose((a, 0), (self.cb(&lu)?, 0), (batch, n, n), false)?;
            self.getrf(lup, piv, info)?;
        } else {
            self.info_zero()?;
        }
        let outs = &self.bufs.outs;
        let (nb, bb) = (n as u64, batch as u64);
        match self.call.op {
            LinalgOp::Det => self.kernel("det", dt, batch, &[nb, bb, lup, piv, outs[0].ptr, info]),
            LinalgOp::Slogdet => self.kernel(
                "slogdet",
                dt,
                batch,
                &[nb, bb, lup, piv, outs[0].ptr, outs[1].ptr, info],
            ),
            LinalgOp::Inv if n > 0 => {
                // getrs(T) on I solves A^T Y = I: Y = A^-T column-major, A^-1 row-major.
                self.eye(outs[0].ptr, batch, n, n)?;
                self.getrs(CUBLAS_OP_T, lup, piv, outs[0].ptr, n)
            }
            LinalgOp::Solve if n > 0 && self.call.nrhs > 0 => {
                let (b, x, k) = (self.bufs.ins[1], outs[0], self.call.nrhs);
                if k == 1 {
                    // One right-hand side: row-major [n, 1] is column-major n x 1.
                    self.copy(b.ptr, x.ptr, batch * n)?;
                    return self.getrs(CUBLAS_OP_N, lup, piv, x.ptr, 1);
                }
                let (t, tp) = self.scratch(dt, batch * n * k)?;
                let tb = self.cb(&t)?;
                self.transpose((b, 0), (tb, 0), (batch, n, k), false)?;
                self.getrs(CUBLAS_OP_N, lup, piv, tp, k)?;
                self.transpose((tb, 0), (x, 0), (batch, k, n), false)
            }
            _ => Ok(()),
        }
    }

    /// Cholesky: potrf on the plain copy with the other triangle, then zeros.
    pub(super) fn cholesky(&self, upper: bool) -> Result<()> {
        let (n, batch) = (self.call.n, self.call.batch);
        if n == 0 {
            return self.info_zero();
        }
        let (a, out) = (self.bufs.ins[0].ptr, self.bufs.outs[0].ptr);
        self.copy(a, out, batch * n * n)?;
        let uplo = if upper { LOWER } else { UPPER };
        let (h, p, ty, ni) = (self.s.handle, self.s.params, self.ty(), n as i64);
        let (mut dev, mut host) = (0usize, 0usize);
        // SAFETY: valid handle; out-parameters.
        let s = unsafe {
            cs::cusolverDnXpotrf_bufferSize(
                h,
                p,
                uplo,
                ni,
                ty,
                vp(out),
                ni,
                ty,
                &mut dev,
                &mut host,
            )
        };
        self.ok("cusolverDnXpotrf_bufferSize", s)?;
        let (_ws, wp, mut hw) = self.workspace(dev, host)?;
        let info = self.bufs.info.ptr;
        for b in 0..batch as u64 {
            // SAFETY: matrix b and its info lie in their buffers; workspaces as queried.
            let s = unsafe {
                cs::cusolverDnXpotrf(
                    h,
                    p,
                    uplo,
                    ni,
                    ty,
                    vp(out + b * (n * n) as u64 * self.isz()),
                    ni,
                    ty,
                    vp(wp),
                    dev,
                    host_ptr(&mut hw),
                    host,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXpotrf", s)?;
        }
        self.host_done(&hw)?;
        let total = batch * n * n;
        self.kernel(
            "tri_zero",
            self.dt,
            total,
            &[total as u64, n as u64, upper as u64, out],
        )
    }

    /// eigh/eigvalsh: syevd/heevd on the plain copy (the other triangle), vectors copied out
    /// conjugate-transposed; non-finite matrices give NaN with info 0.
    pub(super) fn eigh(&self, upper: bool, vectors: bool) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        if n == 0 {
            return self.info_zero();
        }
        let nn = n * n;
        let (a, w) = (self.bufs.ins[0], self.bufs.outs[0]);
        let (work, wk) = self.scratch(dt, batch * nn)?;
        self.copy(a.ptr, wk, batch * nn)?;
        let (_fb, flags) = self.nonfinite(a.ptr, wk, nn)?;
        let uplo = if upper { LOWER } else { UPPER };
        let jobz = if vectors {
            CUSOLVER_EIG_MODE_VECTOR
        } else {
            CUSOLVER_EIG_MODE_NOVECTOR
        };
        let (h, p, ty, rty, ni) = (
            self.s.handle,
            self.s.params,
            self.ty(),
            self.rty(),
            n as i64,
        );
        let (mut dev, mut host) = (0usize, 0usize);
        // SAFETY: valid handle; out-parameters.
        let s = unsafe {
            cs::cusolverDnXsyevd_bufferSize(
                h,
                p,
                jobz,
                uplo,
                ni,
                ty,
                vp(wk),
                ni,
                rty,
                vp(w.ptr),
                ty,
                &mut dev,
                &mut host,
            )
        };
        self.ok("cusolverDnXsyevd_bufferSize", s)?;
        let (_ws, wp, mut hw) = self.workspace(dev, host)?;
        let info = self.bufs.info.ptr;
        let rsz = dt.real_dtype().itemsize() as u64;
        for b in 0..batch as u64 {
            // SAFETY: matrix b, its eigenvalues and info lie in their buffers.
            let s = unsafe {
                cs::cusolverDnXsyevd(
                    h,
                    p,
                    jobz,
                    uplo,
                    ni,
                    ty,
                    vp(wk + b * nn as u64 * self.isz()),
                    ni,
                    rty,
                    vp(w.ptr + b * n as u64 * rsz),
                    ty,
                    vp(wp),
                    dev,
                    host_ptr(&mut hw),
                    host,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXsyevd", s)?;
        }
        self.host_done(&hw)?;
        self.nan_flagged(flags, w.ptr, n, dt.real_dtype())?;
        if vectors {
            let v = self.bufs.outs[1];
            self.transpose((self.cb(&work)?, 0), (v, 0), (batch, n, n), true)?;
            self.nan_flagged(flags, v.ptr, nn, dt)?;
        }
        self.info_flagged(flags, 0)
    }

    /// svd: gesvd on a column-major matrix with rows >= cols (the plain copy when `m <= n`,
    /// the transposed copy otherwise); non-finite matrices give NaN with info 1.
    pub(super) fn svd(&self, full: bool, vectors: bool) -> Result<()> {
        let (m, n, batch, dt) = (self.call.m, self.call.n, self.call.batch, self.dt);
        let k = m.min(n);
        let (um, vn) = if full { (m, n) } else { (k, k) };
        let outs = &self.bufs.outs;
        if k == 0 {
            if vectors && full {
                self.eye(outs[1].ptr, batch, m, m)?;
                self.eye(outs[2].ptr, batch, n, n)?;
            }
            return self.info_zero();
        }
        let a = self.bufs.ins[0];
        let wide = m <= n;
        let (work, wk) = self.scratch(dt, batch * m * n)?;
        if wide {
            self.copy(a.ptr, wk, batch * m * n)?;
        } else {
            self.transpose((a, 0), (self.cb(&work)?, 0), (batch, m, n), false)?;
        }
        let (_fb, flags) = self.nonfinite(a.ptr, wk, m * n)?;
        // Column-major rows x cols, rows >= cols = k.
        let (rows, cols) = if wide { (n, m) } else { (m, n) };
        let ucols = if full { rows } else { cols };
        let job = if !vectors {
            b'N'
        } else if full {
            b'A'
        } else {
            b'S'
        } as std::ffi::c_schar;
        // gesvd's U (rows x ucols) and VT (cols x cols): our vh and u in place when wide,
        // temporaries transposed out otherwise.
        let tmp = |len: usize| -> Result<Option<(Buffer, u64)>> {
            if vectors && !wide {
                self.scratch(dt, len).map(Some)
            } else {
                Ok(None)
            }
        };
        let tu = tmp(batch * rows * ucols)?;
        let tv = tmp(batch * cols * cols)?;
        let (u_at, vt_at) = match (vectors, wide) {
            (false, _) => (0, 0),
            (true, true) => (outs[2].ptr, outs[1].ptr),
            (true, false) => (
                tu.as_ref().map_or(0, |t| t.1),
                tv.as_ref().map_or(0, |t| t.1),
            ),
        };
        let (h, p, ty, rty) = (self.s.handle, self.s.params, self.ty(), self.rty());
        let (ri, ci) = (rows as i64, cols as i64);
        let (mut dev, mut host) = (0usize, 0usize);
        // SAFETY: valid handle; out-parameters.
        let s = unsafe {
            cs::cusolverDnXgesvd_bufferSize(
                h,
                p,
                job,
                job,
                ri,
                ci,
                ty,
                vp(wk),
                ri,
                rty,
                vp(outs[0].ptr),
                ty,
                vp(u_at),
                ri,
                ty,
                vp(vt_at),
                ci,
                ty,
                &mut dev,
                &mut host,
            )
        };
        self.ok("cusolverDnXgesvd_bufferSize", s)?;
        let (_ws, wp, mut hw) = self.workspace(dev, host)?;
        let info = self.bufs.info.ptr;
        let (isz, rsz) = (self.isz(), dt.real_dtype().itemsize() as u64);
        let at = |base: u64, b: u64, len: usize| {
            if base == 0 {
                0
            } else {
                base + b * len as u64 * isz
            }
        };
        for b in 0..batch as u64 {
            // SAFETY: matrix b, its singular values, vectors and info lie in their buffers.
            let s = unsafe {
                cs::cusolverDnXgesvd(
                    h,
                    p,
                    job,
                    job,
                    ri,
                    ci,
                    ty,
                    vp(wk + b * (m * n) as u64 * isz),
                    ri,
                    rty,
                    vp(outs[0].ptr + b * k as u64 * rsz),
                    ty,
                    vp(at(u_at, b, rows * ucols)),
                    ri,
                    ty,
                    vp(at(vt_at, b, cols * cols)),
                    ci,
                    ty,
                    vp(wp),
                    dev,
                    host_ptr(&mut hw),
                    host,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXgesvd", s)?;
        }
        self.host_done(&hw)?;
        if let (Some(tu), Some(tv)) = (&tu, &tv) {
            // U (m x um column-major) -> u [m, um]; VT (n x n) -> vh [n, n].
            self.transpose((self.cb(&tu.0)?, 0), (outs[1], 0), (batch, um, m), false)?;
            self.transpose((self.cb(&tv.0)?, 0), (outs[2], 0), (batch, n, n), false)?;
        }
        self.nan_flagged(flags, outs[0].ptr, k, dt.real_dtype())?;
        if vectors {
            self.nan_flagged(flags, outs[1].ptr, m * um, dt)?;
            self.nan_flagged(flags, outs[2].ptr, vn * n, dt)?;
        }
        self.info_flagged(flags, 1)
    }

    /// qr: geqrf on the transposed copy (NumPy's raw `h`), then `R` and orgqr/ungqr's `Q`.
    pub(super) fn qr(&self, mode: QrMode) -> Result<()> {
        let (m, n, batch, dt) = (self.call.m, self.call.n, self.call.batch, self.dt);
        let k = m.min(n);
        let outs = &self.bufs.outs;
        if k == 0 {
            if mode == QrMode::Complete {
                self.eye(outs[0].ptr, batch, m, m)?;
                self.zero(outs[1].ptr, batch * m * n * dt.itemsize())?;
            }
            return self.info_zero();
        }
        let a = self.bufs.ins[0];
        let raw = mode == QrMode::Raw;
        let owned_work = if raw {
            None
        } else {
            Some(self.scratch(dt, batch * m * n)?)
        };
        let (wbuf, wk) = match &owned_work {
            Some((b, p)) => (self.cb(b)?, *p),
            None => (outs[0], outs[0].ptr),
        };
        self.transpose((a, 0), (wbuf, 0), (batch, m, n), false)?;
        let owned_tau = if raw {
            None
        } else {
            Some(self.scratch(dt, batch * k)?)
        };
        let tau = owned_tau.as_ref().map_or(outs[1].ptr, |t| t.1);
        let (h, p, ty, mi, ni) = (self.s.handle, self.s.params, self.ty(), m as i64, n as i64);
        let (mut dev, mut host) = (0usize, 0usize);
        // SAFETY: valid handle; out-parameters.
        let s = unsafe {
            cs::cusolverDnXgeqrf_bufferSize(
                h,
                p,
                mi,
                ni,
                ty,
                vp(wk),
                mi,
                ty,
                vp(tau),
                ty,
                &mut dev,
                &mut host,
            )
        };
        self.ok("cusolverDnXgeqrf_bufferSize", s)?;
        let (_ws, wp, mut hw) = self.workspace(dev, host)?;
        let info = self.bufs.info.ptr;
        let isz = self.isz();
        for b in 0..batch as u64 {
            // SAFETY: matrix b, its tau and info lie in their buffers.
            let s = unsafe {
                cs::cusolverDnXgeqrf(
                    h,
                    p,
                    mi,
                    ni,
                    ty,
                    vp(wk + b * (m * n) as u64 * isz),
                    mi,
                    ty,
                    vp(tau + b * k as u64 * isz),
                    ty,
                    vp(wp),
                    dev,
                    host_ptr(&mut hw),
                    host,
                    ip(info + b * 4),
                )
            };
            self.ok("cusolverDnXgeqrf", s)?;
        }
        self.host_done(&hw)?;
        if raw {
            return Ok(());
        }
        let (q, r) = (outs[0], outs[1]);
        let (qc, rr) = if mode == QrMode::Complete {
            (m, m)
        } else {
            (k, k)
        };
        let total = batch * rr * n;
        self.kernel(
            "qr_r",
            dt,
            total,
            &[total as u64, m as u64, n as u64, rr as u64, wk, r.ptr],
        )?;
        let (qb, qp) = self.scratch(dt, batch * m * qc)?;
        let total = batch * m * qc;
        self.kernel(
            "qr_q",
            dt,
            total,
            &[
                total as u64,
                m as u64,
                n as u64,
                qc as u64,
                k as u64,
                wk,
                qp,
            ],
        )?;
        self.orgqr(qp, tau, m, qc, k)?;
        self.transpose((self.cb(&qb)?, 0), (q, 0), (batch, qc, m), false)
    }

    /// orgqr/ungqr (the typed 32-bit API: there is no generic one) in place on the
    /// column-major `m x qc` matrices at `q` with `k` reflectors.
    fn orgqr(&self, q: u64, tau: u64, m: usize, qc: usize, k: usize) -> Result<()> {
        let (h, batch, isz) = (self.s.handle, self.call.batch as u64, self.isz());
        let (mi, ci, ki) = (m as i32, qc as i32, k as i32);
        let mut lwork = 0i32;
        macro_rules! typed {
            ($size:ident, $run:ident, $t:ty) => {{
                // SAFETY: valid handle; out-parameter.
                let s = unsafe {
                    cs::$size(
                        h,
                        mi,
                        ci,
                        ki,
                        q as *const $t,
                        mi,
                        tau as *const $t,
                        &mut lwork,
                    )
                };
                self.ok(stringify!($size), s)?;
                let (_ws, wp) = self.scratch(self.dt, lwork.max(1) as usize)?;
                let (_ib, info) = self.scratch(DType::Int32, batch as usize)?;
                for b in 0..batch {
                    // SAFETY: matrix b and its tau lie in their buffers; workspace as queried.
                    let s = unsafe {
                        cs::$run(
                            h,
                            mi,
                            ci,
                            ki,
                            (q + b * (m * qc) as u64 * isz) as *mut $t,
                            mi,
                            (tau + b * k as u64 * isz) as *const $t,
                            wp as *mut $t,
                            lwork,
                            ip(info + b * 4),
                        )
                    };
                    self.ok(stringify!($run), s)?;
                }
            }};
        }
        match self.dt {
            DType::Float32 => typed!(cusolverDnSorgqr_bufferSize, cusolverDnSorgqr, f32),
            DType::Float64 => typed!(cusolverDnDorgqr_bufferSize, cusolverDnDorgqr, f64),
            DType::Complex64 => {
                typed!(cusolverDnCungqr_bufferSize, cusolverDnCungqr, cs::cuComplex)
            }
            _ => typed!(
                cusolverDnZungqr_bufferSize,
                cusolverDnZungqr,
                cs::cuDoubleComplex
            ),
        }
        Ok(())
    }
}
