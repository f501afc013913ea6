//! The per-op plans of [`super`]: LU (solve, inv, det, slogdet), Cholesky, eigh, SVD and QR.
//! The layout reasoning of each is in the parent module's docs.

use super::ctx::Ctx;
use super::{Fill, Lapack, SolverDriver, SvdJob, Trans};
use crate::backend::{LinalgOp, QrMode};
use crate::dtype::DType;
use crate::error::Result;

/// `info` of a matrix holding NaN or infinity (the cpu backend's `INFO_NONFINITE`: NumPy's
/// "Array must not contain infs or NaNs" for `eig`).
const INFO_NONFINITE: i32 = -1;

impl<D: SolverDriver> Ctx<'_, '_, D> {
    /// solve, inv, det and slogdet: LU of `A` (copied transposed: column-major `A`).
    pub(super) fn lu_ops(&self) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        let a = self.bufs.ins[0];
        let info = self.bufs.info.ptr;
        let (_lu, lu) = self.scratch(dt, batch * n * n)?;
        let (_pb, pv) = self.scratch(D::PIVOT, batch * n)?;
        let (lup, piv) = (lu.ptr, pv.ptr);
        // A matrix holding NaN or infinity is factored as zeros and its outputs are NaN with
        // info 0 (NumPy's LAPACK propagates NaN; cuSOLVER's getrf pivoted past a NaN and
        // returned finite factors on the H200).
        let mut flags = None;
        if n > 0 {
            self.transpose(a, lu, (batch, n, n), false)?;
            flags = Some(self.nonfinite(a.ptr, lup, n * n)?);
            self.lapack(self.call(Lapack::Getrf {
                n,
                a: lup,
                ipiv: piv,
                info,
            }))?;
        } else {
            self.info_zero()?;
        }
        self.lu_outputs(lup, piv)?;
        if let Some((_fb, f)) = flags {
            let outs = &self.bufs.outs;
            let (k, real) = (self.call.nrhs, dt.real_dtype());
            match self.call.op {
                LinalgOp::Det => self.nan_flagged(f, outs[0].ptr, 1, dt)?,
                LinalgOp::Slogdet => {
                    self.nan_flagged(f, outs[0].ptr, 1, dt)?;
                    self.nan_flagged(f, outs[1].ptr, 1, real)?;
                }
                LinalgOp::Inv => self.nan_flagged(f, outs[0].ptr, n * n, dt)?,
                LinalgOp::Solve if k > 0 => self.nan_flagged(f, outs[0].ptr, n * k, dt)?,
                _ => {}
            }
            self.info_flagged(f, 0)?;
        }
        Ok(())
    }

    /// The outputs of [`Ctx::lu_ops`] from the factors at `lup` and the pivots at `piv`.
    fn lu_outputs(&self, lup: u64, piv: u64) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        let info = self.bufs.info.ptr;
        let outs = &self.bufs.outs;
        let (nb, bb) = (n as u64, batch as u64);
        let piv32 = (D::PIVOT == DType::Int32) as u64;
        let getrs = |trans: Trans, x: u64, nrhs: usize| -> Result<()> {
            // getrs reports only argument errors; keep getrf's info.
            let (_ib, scratch_info) = self.scratch(DType::Int32, batch)?;
            self.lapack(self.call(Lapack::Getrs {
                trans,
                n,
                nrhs,
                a: lup,
                ipiv: piv,
                b: x,
                info: scratch_info.ptr,
            }))
        };
        match self.call.op {
            LinalgOp::Det => self.kernel(
                "det",
                dt,
                batch,
                &[nb, bb, lup, piv, outs[0].ptr, info, piv32],
            ),
            LinalgOp::Slogdet => self.kernel(
                "slogdet",
                dt,
                batch,
                &[nb, bb, lup, piv, outs[0].ptr, outs[1].ptr, info, piv32],
            ),
            LinalgOp::Inv if n > 0 => {
                // getrs(T) on I solves A^T Y = I: Y = A^-T column-major, A^-1 row-major.
                self.eye(outs[0].ptr, batch, n, n)?;
                getrs(Trans::T, outs[0].ptr, n)
            }
            LinalgOp::Solve if n > 0 && self.call.nrhs > 0 => {
                let (b, x, k) = (self.bufs.ins[1], outs[0], self.call.nrhs);
                if k == 1 {
                    // One right-hand side: row-major [n, 1] is column-major n x 1.
                    self.copy(b.ptr, x.ptr, batch * n)?;
                    return getrs(Trans::N, x.ptr, 1);
                }
                let (_t, t) = self.scratch(dt, batch * n * k)?;
                self.transpose(b, t, (batch, n, k), false)?;
                getrs(Trans::N, t.ptr, k)?;
                self.transpose(t, x, (batch, k, n), false)
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
        let uplo = if upper { Fill::Lower } else { Fill::Upper };
        self.lapack(self.call(Lapack::Potrf {
            uplo,
            n,
            a: out,
            info: self.bufs.info.ptr,
        }))?;
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
        let (_work, work) = self.scratch(dt, batch * nn)?;
        let wk = work.ptr;
        self.copy(a.ptr, wk, batch * nn)?;
        let (_fb, flags) = self.nonfinite(a.ptr, wk, nn)?;
        let uplo = if upper { Fill::Lower } else { Fill::Upper };
        self.lapack(self.call(Lapack::Syevd {
            vectors,
            uplo,
            n,
            a: wk,
            w: w.ptr,
            info: self.bufs.info.ptr,
        }))?;
        self.nan_flagged(flags, w.ptr, n, dt.real_dtype())?;
        if vectors {
            let v = self.bufs.outs[1];
            self.transpose(work, v, (batch, n, n), true)?;
            self.nan_flagged(flags, v.ptr, nn, dt)?;
        }
        self.info_flagged(flags, 0)
    }

    /// eig/eigvals: geev of the transposed copy (column-major `A`), the right eigenvectors
    /// transposed into the row-major output (a real matrix's packed pairs unpacked by
    /// `geev_vr`); a non-finite matrix gives info [`INFO_NONFINITE`] (NumPy's "Array must not
    /// contain infs or NaNs") and is factored as zeros.
    pub(super) fn eig(&self, vectors: bool) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        if n == 0 {
            return self.info_zero();
        }
        let nn = n * n;
        let (a, w) = (self.bufs.ins[0], self.bufs.outs[0]);
        let (_work, work) = self.scratch(dt, batch * nn)?;
        self.transpose(a, work, (batch, n, n), false)?;
        let (_fb, flags) = self.nonfinite(a.ptr, work.ptr, nn)?;
        let (_vb, vr) = self.scratch(dt, if vectors { batch * nn } else { 1 })?;
        self.lapack(self.call(Lapack::Geev {
            vectors,
            n,
            a: work.ptr,
            w: w.ptr,
            vr: if vectors { vr.ptr } else { 0 },
            info: self.bufs.info.ptr,
        }))?;
        if vectors {
            let v = self.bufs.outs[1];
            if dt.is_complex() {
                self.transpose(vr, v, (batch, n, n), false)?;
            } else {
                let total = batch * nn;
                self.kernel(
                    "geev_vr",
                    dt,
                    total,
                    &[total as u64, n as u64, w.ptr, vr.ptr, v.ptr],
                )?;
            }
        }
        self.info_flagged(flags, INFO_NONFINITE)
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
        if m == n && D::HAS_GESVDP && use_gesvdp(n) {
            // gesvdp refused (a status error at the call): gesvd below.
            if self.svd_polar(vectors).is_ok() {
                return Ok(());
            }
        }
        let a = self.bufs.ins[0];
        let wide = m <= n;
        let (_work, work) = self.scratch(dt, batch * m * n)?;
        let wk = work.ptr;
        if wide {
            self.copy(a.ptr, wk, batch * m * n)?;
        } else {
            self.transpose(a, work, (batch, m, n), false)?;
        }
        let (_fb, flags) = self.nonfinite(a.ptr, wk, m * n)?;
        // Column-major rows x cols, rows >= cols = k.
        let (rows, cols) = if wide { (n, m) } else { (m, n) };
        let job = if !vectors {
            SvdJob::None
        } else if full {
            SvdJob::All
        } else {
            SvdJob::Some
        };
        let ucols = Lapack::gesvd_ucols(job, rows, cols);
        // gesvd's U (rows x ucols) and VT (cols x cols): our vh and u in place when wide,
        // temporaries transposed out otherwise.
        let tmp = |len: usize| {
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
                tu.as_ref().map_or(0, |t| t.1.ptr),
                tv.as_ref().map_or(0, |t| t.1.ptr),
            ),
        };
        self.lapack(self.call(Lapack::Gesvd {
            job,
            rows,
            cols,
            a: wk,
            s: outs[0].ptr,
            u: u_at,
            vt: vt_at,
            info: self.bufs.info.ptr,
        }))?;
        if let (Some(tu), Some(tv)) = (&tu, &tv) {
            // U (m x um column-major) -> u [m, um]; VT (n x n) -> vh [n, n].
            self.transpose(tu.1, outs[1], (batch, um, m), false)?;
            self.transpose(tv.1, outs[2], (batch, n, n), false)?;
        }
        self.nan_flagged(flags, outs[0].ptr, k, dt.real_dtype())?;
        if vectors {
            self.nan_flagged(flags, outs[1].ptr, m * um, dt)?;
            self.nan_flagged(flags, outs[2].ptr, vn * n, dt)?;
        }
        self.info_flagged(flags, 1)
    }

    /// svd of square matrices by gesvdp on the plain copy (column-major `X = A^T = U S V^H`,
    /// so `A = conj(V) S U^T`): `U` lands in `vh` as it is (row-major reading transposes it),
    /// `V` goes to a temporary and is conjugate-transposed into `u`. Non-finite matrices as
    /// [`Ctx::svd`].
    fn svd_polar(&self, vectors: bool) -> Result<()> {
        let (n, batch, dt) = (self.call.n, self.call.batch, self.dt);
        let nn = n * n;
        let (a, outs) = (self.bufs.ins[0], &self.bufs.outs);
        let (_work, work) = self.scratch(dt, batch * nn)?;
        self.copy(a.ptr, work.ptr, batch * nn)?;
        let (_fb, flags) = self.nonfinite(a.ptr, work.ptr, nn)?;
        let (_vb, vt) = self.scratch(dt, if vectors { batch * nn } else { 1 })?;
        self.lapack(self.call(Lapack::Gesvdp {
            vectors,
            n,
            a: work.ptr,
            s: outs[0].ptr,
            u: if vectors { outs[2].ptr } else { 0 },
            v: if vectors { vt.ptr } else { 0 },
            info: self.bufs.info.ptr,
        }))?;
        self.nan_flagged(flags, outs[0].ptr, n, dt.real_dtype())?;
        if vectors {
            self.transpose(vt, outs[1], (batch, n, n), true)?;
            self.nan_flagged(flags, outs[1].ptr, nn, dt)?;
            self.nan_flagged(flags, outs[2].ptr, nn, dt)?;
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
        let work = owned_work.as_ref().map_or(outs[0], |w| w.1);
        let wk = work.ptr;
        self.transpose(a, work, (batch, m, n), false)?;
        let owned_tau = if raw {
            None
        } else {
            Some(self.scratch(dt, batch * k)?)
        };
        let tau = owned_tau.as_ref().map_or(outs[1].ptr, |t| t.1.ptr);
        self.lapack(self.call(Lapack::Geqrf {
            m,
            n,
            a: wk,
            tau,
            info: self.bufs.info.ptr,
        }))?;
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
        let (_qb, qb) = self.scratch(dt, batch * m * qc)?;
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
                qb.ptr,
            ],
        )?;
        let (_ib, scratch_info) = self.scratch(DType::Int32, batch)?;
        self.lapack(self.call(Lapack::Orgqr {
            m,
            n: qc,
            k,
            a: qb.ptr,
            tau,
            info: scratch_info.ptr,
        }))?;
        self.transpose(qb, q, (batch, qc, m), false)
    }
}

/// The smallest order at which square `svd` takes gesvdp by default (see
/// [`SolverDriver::HAS_GESVDP`]): below it gesvd is as fast, and gesvdp failed on a 3x3.
const GESVDP_MIN_ORDER: usize = 64;

/// Whether a square `svd` of order `n` takes gesvdp: from [`GESVDP_MIN_ORDER`] on, or always
/// (never) with `CUPY_CUSOLVER_SVD=gesvdp` (`gesvd`).
fn use_gesvdp(n: usize) -> bool {
    match std::env::var("CUPY_CUSOLVER_SVD").as_deref() {
        Ok("gesvdp") => true,
        Ok("gesvd") => false,
        _ => n >= GESVDP_MIN_ORDER,
    }
}
