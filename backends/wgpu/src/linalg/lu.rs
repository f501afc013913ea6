//! LU with partial pivoting (LAPACK's blocked right-looking getrf) and what is built on it:
//! getrs (`solve`; `inv` solves against the identity), `det` and `slogdet`.
//!
//! getrf, per block column `k0` of `NB` columns: the panel kernel (`shaders/linalg_lu.wgsl`:
//! pivot search as a workgroup reduction, whole-row interchanges, scaling, the panel's rank-1
//! updates; a copy of the panel to `P`), the unit-lower triangular solve for the block row U12
//! (`linalg_trsm.wgsl`, its copy to `Ub`), and the trailing update `A22 -= L21 U12` by the GEMM.
//! getrs: the interchanges on the right-hand sides (`linalg_laswp.wgsl`), then block forward and
//! back substitution, each block a triangular solve and a GEMM update of the rows after (before)
//! it, so many right-hand sides (`inv`) run at GEMM speed.

use super::{dense, Fill, NB};
use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::backend::{LinalgCall, LinalgOp};
use cupy_core::{DType, Result};

const LU_WGSL: &str = include_str!("../../../../shaders/linalg_lu.wgsl");
const LASWP_WGSL: &str = include_str!("../../../../shaders/linalg_laswp.wgsl");
const DET_WGSL: &str = include_str!("../../../../shaders/linalg_det.wgsl");

/// Workgroup size of the LU panel kernel for `n x n` matrices (small matrices: 64 invocations,
/// so a batch of them does not leave most of each workgroup idle).
pub(super) fn lu_wg(n: usize) -> usize {
    if n > 64 {
        256
    } else {
        64
    }
}

/// An LU factorization on the device: `w` the factors (`[batch, n, n]`, L below the unit
/// diagonal, U on and above), `ipiv` the 0-based pivot rows (`int32 [batch, n]`).
pub(super) struct Lu {
    pub(super) w: WgpuBuffer,
    pub(super) ipiv: WgpuBuffer,
}

impl WgpuBackend {
    /// getrf of the `[batch, n, n]` stack in `a` (not modified); `info` (`int32 [batch]`) is
    /// cleared and gets `i + 1` for the first exactly zero `U[i, i]`.
    pub(super) fn getrf(
        &self,
        d: DType,
        a: &wgpu::Buffer,
        batch: usize,
        n: usize,
        info: &wgpu::Buffer,
    ) -> Result<Lu> {
        let w = self.work(d, batch * n * n)?;
        let ipiv = self.work(DType::Int32, batch * n)?;
        self.copy_elems_raw(d, a, &w.buf, batch * n * n)?;
        self.clear_words(info)?;
        let p = self.work(d, batch * n * NB.min(n.max(1)))?;
        let ub = self.work(d, batch * NB * n)?;
        let wg = lu_wg(n);
        let pipe = self.linalg_pipe(
            "linalg_lu_panel",
            LU_WGSL,
            d,
            &[("WGSIZE", wg.to_string())],
            4,
            &[true, true, true, true],
        )?;
        let nn = n * n;
        for k0 in (0..n).step_by(NB) {
            let kb = NB.min(n - k0);
            self.linalg_dispatch(
                &pipe,
                &[batch as u32, n as u32, k0 as u32, kb as u32],
                &[&w.buf, &p.buf, &ipiv.buf, info],
                batch,
            )?;
            let n2 = n - k0 - kb;
            if n2 == 0 {
                continue;
            }
            // U12 = L11^-1 A12 (L11 from the panel's copy), copied to Ub for the GEMM.
            self.trsm(
                d,
                (&p.buf, [0, (n * kb) as i32, kb as i32, 1]),
                (&w.buf, [(k0 * n + k0 + kb) as i32, nn as i32, n as i32, 1]),
                Some((&ub.buf, [0, (NB * n) as i32, n as i32, 1])),
                [batch, kb, n2],
                false,
                true,
            )?;
            // A22 -= L21 U12.
            self.gemm_strided(
                d,
                [&p.buf, &ub.buf, &w.buf],
                [
                    [(kb * kb) as i32, (n * kb) as i32, kb as i32, 1],
                    [0, (NB * n) as i32, n as i32, 1],
                    [((k0 + kb) * n + k0 + kb) as i32, nn as i32, n as i32, 1],
                ],
                [batch, n2, n2, kb],
                true,
            )?;
        }
        Ok(Lu { w, ipiv })
    }

    /// getrs: overwrites `x` (`[batch, n, r]`, row-major) with `A^-1 x` from `lu`.
    fn getrs(
        &self,
        d: DType,
        lu: &Lu,
        x: &wgpu::Buffer,
        batch: usize,
        n: usize,
        r: usize,
    ) -> Result<()> {
        if batch * n * r == 0 {
            return Ok(());
        }
        let pipe = self.linalg_pipe("linalg_laswp", LASWP_WGSL, d, &[], 4, &[false, true])?;
        self.linalg_dispatch(
            &pipe,
            &[batch as u32, n as u32, r as u32, 0],
            &[&lu.ipiv.buf, x],
            (batch * r).div_ceil(64),
        )?;
        let xt = self.work(d, batch * NB * r)?;
        let xts = [0, (NB * r) as i32, r as i32, 1];
        let nn = (n * n) as i32;
        let (ni, ri, nr) = (n as i32, r as i32, (n * r) as i32);
        let blocks: Vec<usize> = (0..n).step_by(NB).collect();
        // Forward: L (unit lower), block by block, updating the rows below.
        for &i0 in &blocks {
            let kb = NB.min(n - i0);
            let below = n - i0 - kb;
            self.trsm(
                d,
                (&lu.w.buf, [(i0 * n + i0) as i32, nn, ni, 1]),
                (x, [(i0 * r) as i32, nr, ri, 1]),
                (below > 0).then_some((&xt.buf, xts)),
                [batch, kb, r],
                false,
                true,
            )?;
            if below > 0 {
                self.gemm_strided(
                    d,
                    [&lu.w.buf, &xt.buf, x],
                    [
                        [((i0 + kb) * n + i0) as i32, nn, ni, 1],
                        xts,
                        [((i0 + kb) * r) as i32, nr, ri, 1],
                    ],
                    [batch, below, r, kb],
                    true,
                )?;
            }
        }
        // Back: U (non-unit upper), last block first, updating the rows above.
        for &i0 in blocks.iter().rev() {
            let kb = NB.min(n - i0);
            self.trsm(
                d,
                (&lu.w.buf, [(i0 * n + i0) as i32, nn, ni, 1]),
                (x, [(i0 * r) as i32, nr, ri, 1]),
                (i0 > 0).then_some((&xt.buf, xts)),
                [batch, kb, r],
                true,
                false,
            )?;
            if i0 > 0 {
                self.gemm_strided(
                    d,
                    [&lu.w.buf, &xt.buf, x],
                    [[i0 as i32, nn, ni, 1], xts, [0, nr, ri, 1]],
                    [batch, i0, r, kb],
                    true,
                )?;
            }
        }
        Ok(())
    }

    /// `solve` and `inv`: getrf, then getrs on `b` (copied to the output) or the identity;
    /// failed matrices get NaN outputs.
    pub(super) fn lu_solve(
        &self,
        call: &LinalgCall<'_>,
        inb: &[&WgpuBuffer],
        outb: &[&WgpuBuffer],
        info: &WgpuBuffer,
    ) -> Result<()> {
        let (d, batch, n) = (call.dtype, call.batch, call.n);
        let lu = self.getrf(d, &inb[0].buf, batch, n, &info.buf)?;
        let x = &outb[0].buf;
        let r = if call.op == LinalgOp::Solve {
            self.copy_elems_raw(d, &inb[1].buf, x, batch * n * call.nrhs)?;
            call.nrhs
        } else {
            self.mat_copy(
                d,
                (&lu.w.buf, [0; 4]),
                (x, dense(0, n, n)),
                [batch, n, n],
                Fill::Identity,
                None,
            )?;
            n
        };
        self.getrs(d, &lu, x, batch, n, r)?;
        self.mat_copy(
            d,
            (&lu.w.buf, [0; 4]),
            (x, dense(0, n, r)),
            [batch, n, r],
            Fill::NanOnly,
            Some(&info.buf),
        )
    }

    /// `det` (one output) and `slogdet` (sign, log|det|) from getrf; `info` is all zeros (a
    /// singular matrix has determinant 0).
    pub(super) fn lu_det(
        &self,
        call: &LinalgCall<'_>,
        inb: &[&WgpuBuffer],
        outb: &[&WgpuBuffer],
        info: &WgpuBuffer,
    ) -> Result<()> {
        let (d, batch, n) = (call.dtype, call.batch, call.n);
        let singular = self.work(DType::Int32, batch)?;
        let lu = self.getrf(d, &inb[0].buf, batch, n, &singular.buf)?;
        self.clear_words(&info.buf)?;
        let log = call.op == LinalgOp::Slogdet;
        let dummy;
        let second = if log {
            &outb[1].buf
        } else {
            dummy = self.work(d, 4)?;
            &dummy.buf
        };
        let pipe = self.linalg_pipe(
            "linalg_det",
            DET_WGSL,
            d,
            &[],
            4,
            &[false, false, true, true],
        )?;
        self.linalg_dispatch(
            &pipe,
            &[batch as u32, n as u32, u32::from(log), 0],
            &[&lu.w.buf, &lu.ipiv.buf, &outb[0].buf, second],
            batch.div_ceil(64),
        )
    }
}
