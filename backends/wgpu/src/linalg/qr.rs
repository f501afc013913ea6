//! Householder QR (LAPACK's blocked geqrf with larft's compact WY form, and orgqr), so
//! `mode="raw"` returns LAPACK's reflectors and `tau` (NumPy's `h` and `tau`).
//!
//! geqrf, per block column `k0` of `NBQ` columns: the panel kernel (`shaders/linalg_qr.wgsl`:
//! geqr2's reflectors, their explicit `V` and larft's `T`, kept for every panel), then the
//! trailing matrix `A2 = (I - V T V^T)^T A2` by three GEMMs (`W1 = V^T A2`, `W2 = T^T W1`,
//! `A2 -= V W2`). orgqr builds `Q = H_0 .. H_k-1` on the identity's first `mq` columns, last
//! panel first, each panel three GEMMs on `Q[k0.., k0..]` (the columns left of `k0` are
//! still the identity's there).

use super::{dense, Fill, NBQ};
use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::backend::{LinalgCall, QrMode};
use cupy_core::{DType, Result};

const QR_WGSL: &str = include_str!("../../../../shaders/linalg_qr.wgsl");

impl WgpuBackend {
    /// `qr(a, mode)`; `info` is all zeros (QR does not fail).
    pub(super) fn qr(
        &self,
        d: DType,
        call: &LinalgCall<'_>,
        mode: QrMode,
        inb: &[&WgpuBuffer],
        outb: &[&WgpuBuffer],
        info: &WgpuBuffer,
    ) -> Result<()> {
        let (batch, m, n) = (call.batch, call.m, call.n);
        let k = m.min(n);
        let mq = if mode == QrMode::Complete { m } else { k };
        self.clear_words(&info.buf)?;
        let w = self.work(d, batch * m * n)?;
        self.copy_elems_raw(d, &inb[0].buf, &w.buf, batch * m * n)?;
        let v = self.work(d, batch * m * k)?;
        let tt = self.work(d, batch * k * NBQ)?;
        let tau_tmp;
        let tau = if mode == QrMode::Raw {
            &outb[1].buf
        } else {
            tau_tmp = self.work(d, batch * k)?;
            &tau_tmp.buf
        };
        let ld = n.max(mq);
        let w1 = self.work(d, batch * NBQ * ld)?;
        let w2 = self.work(d, batch * NBQ * ld)?;
        let ws = [0, (NBQ * ld) as i32, ld as i32, 1];
        let pipe = self.linalg_pipe(
            "linalg_qr_panel",
            QR_WGSL,
            d,
            &[("WGSIZE", "64".into()), ("QKB", NBQ.to_string())],
            8,
            &[true, true, true, true],
        )?;
        let (mn, mk, ki, ni) = ((m * n) as i32, (m * k) as i32, k as i32, n as i32);
        let tts = (k * NBQ) as i32;
        let nbq = NBQ as i32;
        let vt = |k0: usize| [(k0 * k + k0) as i32, mk, 1, ki];
        let vv = |k0: usize| [(k0 * k + k0) as i32, mk, ki, 1];
        let panels: Vec<usize> = (0..k).step_by(NBQ).collect();
        for &k0 in &panels {
            let kb = NBQ.min(k - k0);
            self.linalg_dispatch(
                &pipe,
                &[
                    batch as u32,
                    m as u32,
                    n as u32,
                    k as u32,
                    k0 as u32,
                    kb as u32,
                    0,
                    0,
                ],
                &[&w.buf, &v.buf, &tt.buf, tau],
                batch,
            )?;
            let n2 = n - k0 - kb;
            if n2 == 0 {
                continue;
            }
            let m2 = m - k0;
            let a2 = [(k0 * n + k0 + kb) as i32, mn, ni, 1];
            self.gemm_strided(
                d,
                [&v.buf, &w.buf, &w1.buf],
                [vt(k0), a2, ws],
                [batch, kb, n2, m2],
                false,
            )?;
            let tts_t = [(k0 * NBQ) as i32, tts, 1, nbq];
            self.gemm_strided(
                d,
                [&tt.buf, &w1.buf, &w2.buf],
                [tts_t, ws, ws],
                [batch, kb, n2, kb],
                false,
            )?;
            self.gemm_strided(
                d,
                [&v.buf, &w2.buf, &w.buf],
                [vv(k0), ws, a2],
                [batch, m2, n2, kb],
                true,
            )?;
        }
        if mode == QrMode::Raw {
            // h = the factored matrix in column-major order: h(j, i) = W(i, j).
            return self.mat_copy(
                d,
                (&w.buf, [0, mn, 1, ni]),
                (&outb[0].buf, dense(0, n, m)),
                [batch, n, m],
                Fill::All,
                None,
            );
        }
        let q = &outb[0].buf;
        let mqi = mq as i32;
        self.mat_copy(
            d,
            (&w.buf, [0; 4]),
            (q, dense(0, m, mq)),
            [batch, m, mq],
            Fill::Identity,
            None,
        )?;
        for &k0 in panels.iter().rev() {
            let kb = NBQ.min(k - k0);
            let (m2, mc) = (m - k0, mq - k0);
            let qs = [(k0 * mq + k0) as i32, (m * mq) as i32, mqi, 1];
            self.gemm_strided(
                d,
                [&v.buf, q, &w1.buf],
                [vt(k0), qs, ws],
                [batch, kb, mc, m2],
                false,
            )?;
            let tts_n = [(k0 * NBQ) as i32, tts, nbq, 1];
            self.gemm_strided(
                d,
                [&tt.buf, &w1.buf, &w2.buf],
                [tts_n, ws, ws],
                [batch, kb, mc, kb],
                false,
            )?;
            self.gemm_strided(
                d,
                [&v.buf, &w2.buf, q],
                [vv(k0), ws, qs],
                [batch, m2, mc, kb],
                true,
            )?;
        }
        let rr = if mode == QrMode::Complete { m } else { k };
        self.mat_copy(
            d,
            (&w.buf, dense(0, m, n)),
            (&outb[1].buf, dense(0, rr, n)),
            [batch, rr, n],
            Fill::Upper,
            None,
        )
    }
}
