//! Native dense factorizations ([`Backend::linalg`](cupy_core::backend::Backend::linalg)) on
//! wgpu: blocked LU with partial pivoting (solve, inv, det, slogdet), blocked Cholesky and
//! blocked Householder QR (reduced, complete, raw) of float32 matrices, and float64 ones where
//! the adapter has `SHADER_F64`, batched over the call's matrices. Hand-written WGSL in
//! `shaders/linalg_*.wgsl`; the trailing updates go through the tiled GEMM (`gemm.rs`,
//! [`WgpuBackend::gemm_strided`] with `sub`).
//!
//! Every kernel takes the whole batch: a panel kernel runs one workgroup per matrix, the
//! triangular solves and row interchanges one invocation per (matrix, column), and each GEMM is
//! one batched dispatch, so a call costs a dispatch chain per block column (`NB` = 32 columns;
//! 16 for QR), not per matrix. `info` is written on the device (LAPACK's codes, as
//! [`LinalgOp`] documents; nothing is read back here): a failed matrix's outputs are NaN, as on
//! the cpu backend.
//!
//! What stays on the host hybrid (`Unsupported` here, so the frontend runs the cpu backend's
//! faer through a round trip, `docs/backends.md`): complex dtypes, `eig`, `eigh` and `svd`; a
//! float64 call on an adapter without `SHADER_F64`; sizes whose panel kernels would pass a
//! driver's loop budget (Mesa's llvmpipe: about 2,200 rows for QR, 7,600 for LU) or whose
//! work buffers pass one storage binding; every call on a software adapter unless forced
//! (`CUPY_WGPU_LINALG=1` or [`with_native_linalg`]: llvmpipe's GEMM is far slower than faer on
//! the same cores), and every call when `CUPY_WGPU_LINALG=0` ([`NativeLinalg`]).
//!
//! Files: `lu.rs` (getrf, getrs, solve, inv, det, slogdet), `chol.rs` (potrf), `qr.rs` (geqrf,
//! larft, orgqr, the output modes).

mod chol;
mod lu;
mod qr;

use crate::{hash_of, plan_budget, Pipe, WgpuBackend, WgpuBuffer};
use cupy_core::backend::{LinalgCall, LinalgOp, QrMode};
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{DType, Error, Result};
use std::cell::Cell;
use std::sync::{Arc, OnceLock};

/// Block columns of LU, Cholesky and the triangular solves (the trsm kernel holds 32 values).
pub(crate) const NB: usize = 32;
/// Block columns of QR (`QKB` of `shaders/linalg_qr.wgsl`: its reduction array is `QKB x 64`).
pub(crate) const NBQ: usize = 16;

const COPY_WGSL: &str = include_str!("../../../../shaders/linalg_copy.wgsl");
const TRSM_WGSL: &str = include_str!("../../../../shaders/linalg_trsm.wgsl");

thread_local! {
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// How many `linalg` calls this thread's wgpu backends queued natively (on the GPU) so far:
/// tests check that a factorization took this path and not the host hybrid.
pub fn native_linalg_calls() -> u64 {
    CALLS.with(Cell::get)
}

/// Where the native factorizations run (`CUPY_WGPU_LINALG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeLinalg {
    /// `0` (`off`, `false`): never; every factorization takes the host hybrid.
    Off,
    /// `1` (`on`, `true`): on every adapter, software ones (llvmpipe) included.
    On,
    /// `auto` (default): on hardware adapters; a software adapter (llvmpipe, SwiftShader) keeps
    /// the host hybrid, which is faster there (its GEMM runs at about 0.2 GFLOP/s on 2 cores).
    Auto,
}

thread_local! {
    static OVERRIDE: Cell<Option<NativeLinalg>> = const { Cell::new(None) };
}

fn env_mode() -> NativeLinalg {
    static MODE: OnceLock<NativeLinalg> = OnceLock::new();
    *MODE.get_or_init(|| {
        match std::env::var("CUPY_WGPU_LINALG")
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
            .as_str()
        {
            "0" | "off" | "false" => NativeLinalg::Off,
            "1" | "on" | "true" => NativeLinalg::On,
            _ => NativeLinalg::Auto,
        }
    })
}

/// The mode in effect on this thread: `CUPY_WGPU_LINALG` when set to `0` or `1` (read once per
/// process), else a [`with_native_linalg`] override, else `Auto`.
pub fn native_linalg_mode() -> NativeLinalg {
    match env_mode() {
        NativeLinalg::Auto => OVERRIDE.with(Cell::get).unwrap_or(NativeLinalg::Auto),
        m => m,
    }
}

/// Whether a factorization on an adapter (`software`: llvmpipe and the like) takes the native
/// kernels under the mode in effect (the dtype and size rules of the module docs aside).
pub fn native_linalg_expected(software: bool) -> bool {
    match native_linalg_mode() {
        NativeLinalg::Off => false,
        NativeLinalg::On => true,
        NativeLinalg::Auto => !software,
    }
}

/// Runs `f` with the mode set to `mode` on this thread (restored afterwards, also on a panic),
/// unless `CUPY_WGPU_LINALG` is `0` or `1`: the tests force the native kernels on llvmpipe so.
pub fn with_native_linalg<R>(mode: NativeLinalg, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<NativeLinalg>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|c| c.replace(Some(mode))));
    f()
}

/// A matrix operand of the kernels: element offset and batch, row and column strides.
pub(crate) type St = [i32; 4];

/// The strides of a C-contiguous `[batch, rows, cols]` stack at element offset `off`.
pub(crate) fn dense(off: usize, rows: usize, cols: usize) -> St {
    [off as i32, (rows * cols) as i32, cols as i32, 1]
}

/// What [`WgpuBackend::mat_copy`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    /// Every element of the source.
    All = 0,
    /// The lower triangle, zeros above.
    Lower = 1,
    /// The upper triangle (or trapezoid), zeros below.
    Upper = 2,
    /// The identity (the source is not read).
    Identity = 3,
    /// Nothing but the NaNs of failed matrices (the source is not read).
    NanOnly = 4,
}

impl WgpuBackend {
    /// `Backend::linalg`: the native path, or `Unsupported` for what stays on the host hybrid
    /// (module docs).
    pub(crate) fn run_linalg(&self, call: &LinalgCall<'_>) -> Result<()> {
        let op = call.op;
        let unsupported = |reason: String| Error::Unsupported {
            op: op.name().into(),
            backend: self.label(),
            reason,
        };
        if !native_linalg_expected(self.info.software) {
            return Err(unsupported(format!(
                "native factorizations are off ({:?}; CUPY_WGPU_LINALG=1 forces them)",
                native_linalg_mode()
            )));
        }
        match call.dtype {
            DType::Float32 => {}
            DType::Float64 if self.features.contains(wgpu::Features::SHADER_F64) => {}
            d => {
                return Err(unsupported(format!(
                    "the wgpu factorization kernels take float32 (float64 with SHADER_F64), not \
                     {d}"
                )))
            }
        }
        if matches!(
            op,
            LinalgOp::Eig { .. } | LinalgOp::Eigh { .. } | LinalgOp::Svd { .. }
        ) {
            return Err(unsupported(
                "eig, eigh and svd run on the host (docs/backends.md)".into(),
            ));
        }
        let (ins, outs) = call.checked_lens()?;
        let odt = op.out_dtypes(call.dtype);
        fn check<'b>(
            be: &WgpuBackend,
            op: LinalgOp,
            what: &str,
            b: &'b cupy_core::Buffer,
            len: usize,
            dt: DType,
        ) -> Result<&'b WgpuBuffer> {
            let w = be.buf(b, op.name())?;
            if w.len < len || w.dtype != dt {
                return Err(Error::invalid(
                    op.name(),
                    format!(
                        "linalg {what}: needs {len} x {dt}, got {} x {}",
                        w.len, w.dtype
                    ),
                ));
            }
            Ok(w)
        }
        let mut inb = Vec::new();
        for (b, &l) in call.inputs.iter().zip(&ins) {
            inb.push(check(self, op, "input", b, l, call.dtype)?);
        }
        let mut outb = Vec::new();
        for ((b, &l), &dt) in call.outputs.iter().zip(&outs).zip(&odt) {
            outb.push(check(self, op, "output", b, l, dt)?);
        }
        let info = check(self, op, "info", call.info, call.batch, DType::Int32)?;
        // Work buffers past one storage binding, or panels past the driver's loop budget: the
        // host hybrid (nothing has been queued yet).
        let biggest = work_elems(call)
            .into_iter()
            .chain(ins.iter().copied())
            .chain(outs.iter().copied())
            .max()
            .unwrap_or(0) as u64
            * call.dtype.itemsize() as u64;
        if biggest > self.binding_cap {
            return Err(unsupported(format!(
                "a work buffer of {biggest} bytes is past one storage binding ({} bytes)",
                self.binding_cap
            )));
        }
        if let Some(b) = self.loop_budget {
            let cost = loop_cost(call);
            if cost > plan_budget(b) * 3 / 4 {
                return Err(unsupported(format!(
                    "the panel kernels would run about {cost} loop passes per invocation, past \
                     this driver's loop budget ({b})"
                )));
            }
        }
        let d = call.dtype;
        match op {
            LinalgOp::Solve | LinalgOp::Inv => self.lu_solve(call, &inb, &outb, info)?,
            LinalgOp::Det | LinalgOp::Slogdet => self.lu_det(call, &inb, &outb, info)?,
            LinalgOp::Cholesky { upper } => self.cholesky(d, call, upper, &inb, &outb, info)?,
            LinalgOp::Qr { mode } => self.qr(d, call, mode, &inb, &outb, info)?,
            _ => unreachable!("refused above"),
        }
        CALLS.with(|c| c.set(c.get() + 1));
        Ok(())
    }

    /// The pipeline of a linalg shader `src` for element type `d`, after `repl`'s replacements
    /// (`ELEM` is replaced too); `n_words` meta words, `rw` the storage bindings' writability.
    pub(crate) fn linalg_pipe(
        &self,
        name: &str,
        src: &'static str,
        d: DType,
        repl: &[(&str, String)],
        n_words: usize,
        rw: &[bool],
    ) -> Result<Arc<Pipe>> {
        let elem = if d == DType::Float64 { "f64" } else { "f32" };
        let key = hash_of(&("linalg", name, elem, repl));
        let kname = format!("{name}_{}", d.name());
        self.pipeline(key, &kname, &|| {
            let mut s = src.replace("ELEM", elem);
            for (a, b) in repl {
                s = s.replace(a, b);
            }
            Ok((
                s,
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words,
                },
                rw.to_vec(),
            ))
        })
    }

    /// Records one dispatch of `groups` workgroups of a linalg kernel with meta words `w`.
    pub(crate) fn linalg_dispatch(
        &self,
        pipe: &Pipe,
        w: &[u32],
        bufs: &[&wgpu::Buffer],
        groups: usize,
    ) -> Result<()> {
        let meta = pipe.meta.pack(&[], w);
        self.dispatch(pipe, &meta, bufs, groups as u64)
    }

    /// A work buffer of `len` elements of `d` (contents unspecified).
    pub(crate) fn work(&self, d: DType, len: usize) -> Result<WgpuBuffer> {
        self.alloc_words(d, len)
    }

    /// Records the zeroing of `b` (the info array before the kernels set failures).
    pub(crate) fn clear_words(&self, b: &wgpu::Buffer) -> Result<()> {
        let mut p = self.lock_pending()?;
        let enc = p.encoder(&self.device);
        enc.clear_buffer(b, 0, None);
        Ok(())
    }

    /// Records a copy of the first `elems` elements of `src` to `dst` (same dtype `d`).
    pub(crate) fn copy_elems_raw(
        &self,
        d: DType,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        elems: usize,
    ) -> Result<()> {
        let bytes = (elems * d.itemsize()) as u64;
        if bytes == 0 {
            return Ok(());
        }
        let mut p = self.lock_pending()?;
        let enc = p.encoder(&self.device);
        enc.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
        Ok(())
    }

    /// `D(b, i, j) = S(b, i, j)` for a `[batch, rows, cols]` stack through strides `ss`/`ds`,
    /// masked by `fill`; with `info`, NaN in the matrices whose info is non-zero
    /// (`shaders/linalg_copy.wgsl`). `s` must not be `dst` (it is not read for `Identity` and
    /// `NanOnly`, but still bound).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mat_copy(
        &self,
        d: DType,
        (s, ss): (&wgpu::Buffer, St),
        (dst, ds): (&wgpu::Buffer, St),
        [batch, rows, cols]: [usize; 3],
        fill: Fill,
        info: Option<&wgpu::Buffer>,
    ) -> Result<()> {
        let total = batch * rows * cols;
        if total == 0 {
            return Ok(());
        }
        let pipe = self.linalg_pipe("linalg_copy", COPY_WGSL, d, &[], 16, &[false, true, false])?;
        let mut w = vec![batch as u32, rows as u32, cols as u32, fill as u32];
        w.extend(ss.iter().map(|&x| x as u32));
        w.extend(ds.iter().map(|&x| x as u32));
        w.extend([u32::from(info.is_some()), 0, 0, 0]);
        // Without info, the kernel's INFO binding is any other buffer (it is not read).
        let ib = info.unwrap_or(s);
        self.linalg_dispatch(&pipe, &w, &[s, dst, ib], total.div_ceil(64))
    }

    /// `x = T^-1 x` for `ncols` columns of each matrix (`shaders/linalg_trsm.wgsl`): `t` the
    /// `kb x kb` triangle (`upper`, `unit`), `x` the right-hand sides, and with `y` a copy of
    /// the solution there.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn trsm(
        &self,
        d: DType,
        (tb, ts): (&wgpu::Buffer, St),
        (xb, xs): (&wgpu::Buffer, St),
        y: Option<(&wgpu::Buffer, St)>,
        [batch, kb, ncols]: [usize; 3],
        upper: bool,
        unit: bool,
    ) -> Result<()> {
        debug_assert!(kb <= NB);
        if batch * ncols == 0 || kb == 0 {
            return Ok(());
        }
        let pipe = self.linalg_pipe("linalg_trsm", TRSM_WGSL, d, &[], 16, &[false, true, true])?;
        let flags = u32::from(upper) | (u32::from(unit) << 1) | (u32::from(y.is_some()) << 2);
        let mut w = vec![batch as u32, kb as u32, ncols as u32, flags];
        w.extend(ts.iter().map(|&x| x as u32));
        w.extend(xs.iter().map(|&x| x as u32));
        // Without a copy, Y is a small buffer of its own (never written then).
        let dummy;
        let (yb, ys) = match y {
            Some(v) => v,
            None => {
                dummy = self.work(d, 4)?;
                (&dummy.buf, [0; 4])
            }
        };
        w.extend(ys.iter().map(|&x| x as u32));
        self.linalg_dispatch(&pipe, &w, &[tb, xb, yb], (batch * ncols).div_ceil(64))
    }
}

/// Elements of the largest work buffer of `call` (for the storage binding check).
fn work_elems(call: &LinalgCall<'_>) -> Vec<usize> {
    let (b, m, n, r) = (call.batch, call.m, call.n, call.nrhs);
    let k = m.min(n);
    match call.op {
        LinalgOp::Qr { mode } => {
            let mq = if mode == QrMode::Complete { m } else { k };
            vec![b * m * n, b * m * k, b * NBQ * n.max(mq), b * m * mq]
        }
        _ => vec![b * n * n, b * n * NB, b * NB * n.max(r)],
    }
}

/// Loop passes the costliest kernel of `call` runs per invocation (an upper bound of the sum of
/// all its loops' passes, as Mesa's llvmpipe counts them; the GEMM slices K itself).
fn loop_cost(call: &LinalgCall<'_>) -> u64 {
    let (m, n) = (call.m as u64, call.n as u64);
    let nb = NB as u64;
    let trsm = nb * nb + 2 * nb;
    match call.op {
        LinalgOp::Qr { .. } => {
            let (kb, rows) = (NBQ as u64, m.div_ceil(64));
            // Per column: the norm, V, dot-product and update loops over the rows, two trees
            // of 6 steps over up to kb columns, and larft's loops over the rows.
            kb * (rows * (6 + 4 * kb) + 24 * kb + 24)
        }
        LinalgOp::Cholesky { .. } => 2 * nb * nb + trsm,
        _ => {
            let kb = nb.min(n.max(1));
            let rows = n.div_ceil(lu::lu_wg(call.n) as u64);
            let panel = kb * (4 * rows + 9 + rows * kb) + rows * kb;
            // det: n pivots, each two bounded normalizing loops (at least a pass each).
            panel.max(trsm).max(6 * n + 64)
        }
    }
}
