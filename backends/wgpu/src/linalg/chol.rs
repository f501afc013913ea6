//! Cholesky (LAPACK's blocked right-looking potrf, lower): per block column `k0` of `NB`
//! columns, the diagonal block's unblocked factorization (`shaders/linalg_chol.wgsl`, a copy
//! of L11 to `L11b`), `L21 = A21 L11^-T` by the triangular solve (`linalg_trsm.wgsl`, the rows
//! of A21 as its right-hand sides, a copy to `P`), and the trailing update
//! `A22 -= L21 L21^T` by the GEMM (the whole block: only its lower triangle is read later).
//! `upper` factors the transpose of `a` (its upper triangle read as the lower one) and returns
//! `L^T`.

use super::{dense, Fill, NB};
use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::backend::LinalgCall;
use cupy_core::{DType, Result};

const CHOL_WGSL: &str = include_str!("../../../../shaders/linalg_chol.wgsl");

impl WgpuBackend {
    /// `cholesky(a, upper)`; failed matrices (info `j + 1`) get NaN outputs.
    pub(super) fn cholesky(
        &self,
        d: DType,
        call: &LinalgCall<'_>,
        upper: bool,
        inb: &[&WgpuBuffer],
        outb: &[&WgpuBuffer],
        info: &WgpuBuffer,
    ) -> Result<()> {
        let (batch, n) = (call.batch, call.n);
        let nn = (n * n) as i32;
        let ni = n as i32;
        // W = A (lower) or A^T (upper).
        let w = self.work(d, batch * n * n)?;
        let src = if upper {
            [0, nn, 1, ni]
        } else {
            dense(0, n, n)
        };
        self.mat_copy(
            d,
            (&inb[0].buf, src),
            (&w.buf, dense(0, n, n)),
            [batch, n, n],
            Fill::All,
            None,
        )?;
        self.clear_words(&info.buf)?;
        let l11 = self.work(d, batch * NB * NB)?;
        let p = self.work(d, batch * n * NB)?;
        let pipe = self.linalg_pipe("linalg_chol", CHOL_WGSL, d, &[], 4, &[true, true, true])?;
        for k0 in (0..n).step_by(NB) {
            let kb = NB.min(n - k0);
            self.linalg_dispatch(
                &pipe,
                &[batch as u32, n as u32, k0 as u32, kb as u32],
                &[&w.buf, &l11.buf, &info.buf],
                batch,
            )?;
            let h2 = n - k0 - kb;
            if h2 == 0 {
                continue;
            }
            let (kbi, pb) = (kb as i32, (n * kb) as i32);
            // L21^T = L11^-1 A21^T: column c of the solve is row k0 + kb + c of A21.
            self.trsm(
                d,
                (&l11.buf, [0, kbi * kbi, kbi, 1]),
                (&w.buf, [((k0 + kb) * n + k0) as i32, nn, 1, ni]),
                Some((&p.buf, [kbi * kbi, pb, 1, kbi])),
                [batch, kb, h2],
                false,
                false,
            )?;
            // A22 -= L21 L21^T.
            self.gemm_strided(
                d,
                [&p.buf, &p.buf, &w.buf],
                [
                    [kbi * kbi, pb, kbi, 1],
                    [kbi * kbi, pb, 1, kbi],
                    [((k0 + kb) * (n + 1)) as i32, nn, ni, 1],
                ],
                [batch, h2, h2, kb],
                true,
            )?;
        }
        let src = if upper {
            [0, nn, 1, ni]
        } else {
            dense(0, n, n)
        };
        self.mat_copy(
            d,
            (&w.buf, src),
            (&outb[0].buf, dense(0, n, n)),
            [batch, n, n],
            if upper { Fill::Upper } else { Fill::Lower },
            Some(&info.buf),
        )
    }
}
