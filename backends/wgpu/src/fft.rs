//! The FFT primitive on wgpu (`shaders/fft.wgsl`), complex64 always, complex128 where the
//! adapter has SHADER_F64.
//!
//! - Lengths `n = 2^a 3^b 5^c 7^d`: Stockham autosort passes ([`crate::fft_plan`]). Each pass is
//!   one dispatch of combined radix `L` whose `L`-point sub-transforms run in workgroup memory as
//!   radix 2/3/4/5/7/8 stages (2s grouped as 8s, then a 4 or 2). A row that fits a workgroup
//!   (`n <= TLMAX`: 2048 complex64 / 1024 complex128 points on 32 KiB of workgroup storage, from
//!   the device's limit at run time, at most 4096) is one dispatch for the whole batch; longer
//!   rows take the fewest passes of `L <= TLMAX / 8` (complex64; `/ 4` complex128: at least 64
//!   bytes of consecutive columns per workgroup), e.g. 2^24 in three passes of 256 (it was 24
//!   radix-2 passes), 3^13 in three.
//! - Other lengths: Bluestein's chirp-z (Bluestein 1970; Rabiner, Schafer and Rader 1969)
//!   through transforms of the smallest 7-smooth `m >= 2n - 1` (for 2^20 + 7: m = 2099520 =
//!   2^6 3^8 5, three passes each way), the products with the chirp and the kernel's spectrum
//!   fused into the first and last passes: six dispatches for 2^20 + 7 (it was 47: radix 2 with
//!   `m = 2^22` and separate chirp/product kernels).
//!   On llvmpipe (a CPU, bound by arithmetic, not by passes) power-of-two rows run about 1.5x
//!   slower than the earlier radix-2 passes did, 3/5/7-smooth ones 3-4.5x faster, Bluestein
//!   lengths 1.3x faster (2026-12-03).
//! - Real transforms through complex ones of the full length (r2c: real rows widened; c2r: the
//!   Hermitian spectrum completed).
//!
//! Tables are computed on the host in float64 and uploaded (WGSL's float32 `sin`/`cos` are not
//! accurate enough and its float64 ones are garbage on Vulkan: FACTS.md): per plan the stage
//! twiddles and each pass's twiddles `exp(-2 pi i r k / (S L))` as the product of two tables of
//! about `sqrt(S L)` entries (hi/lo halves of the exponent, so the last pass does not read a table
//! as large as the data), and for Bluestein the chirp `exp(-i pi k^2 / n)` (with `k^2 mod 2n`,
//! exact in integers) and the transformed convolution kernel (rustfft, float64). They are cached
//! per (length, direction, precision) on the device. The inverse conjugates on load and store,
//! sharing the forward tables.

use crate::fft_plan::{next_smooth, smooth_factors, stages_wgsl, Pass, Plan};
use crate::{WgpuBackend, WgpuBuffer};
use cupy_core::fft::{FftCall, FftKind};
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{DType, Error, Result};
use num_complex::Complex;
use std::sync::Arc;

const FFT_WGSL: &str = include_str!("../../../shaders/fft.wgsl");

/// The cached tables of one (length, direction, precision).
pub(crate) type Tables =
    std::sync::Mutex<std::collections::HashMap<(usize, bool, bool, u8), Arc<WgpuBuffer>>>;

/// The body of one section of `fft.wgsl` (after its marker line).
fn section(name: &str) -> Result<&'static str> {
    let body = FFT_WGSL
        .split("//@@ ")
        .skip(1)
        .find(|p| p.lines().next().map(str::trim) == Some(name))
        .ok_or_else(|| Error::invalid("fft", format!("no section {name} in fft.wgsl")))?;
    Ok(body.split_once('\n').map_or("", |(_, b)| b))
}

/// The WGSL of one kernel: the header and a section, `REAL` replaced.
fn source(name: &str, real: &str) -> Result<String> {
    let header = FFT_WGSL.split("//@@ ").next().unwrap_or_default();
    Ok(format!("{}\n{}", header, section(name)?).replace("REAL", real))
}

/// The 24 meta words of every FFT kernel.
fn meta_layout() -> MetaLayout {
    MetaLayout {
        params: vec![],
        words_offset: 0,
        n_words: 24,
    }
}

/// Eight meta words padded to 24.
fn words8(w: [u32; 8]) -> [u32; 24] {
    let mut o = [0; 24];
    o[..8].copy_from_slice(&w);
    o
}

struct Ctx<'a> {
    be: &'a WgpuBackend,
    real: &'static str,
    cdt: DType,
}

impl Ctx<'_> {
    fn run(
        &self,
        section: &str,
        words: [u32; 24],
        bufs: &[&wgpu::Buffer],
        threads: usize,
    ) -> Result<()> {
        let nb = bufs.len();
        let key = crate::hash_of(&("fft", section, self.real, nb));
        let real = self.real;
        let pipe = self.be.pipeline(key, &format!("fft_{section}"), &|| {
            let mut rw = vec![false; nb];
            rw[1] = true;
            Ok((source(section, real)?, meta_layout(), rw))
        })?;
        let m = pipe.meta.pack(&[], &words);
        self.be
            .dispatch(&pipe, &m, bufs, threads.div_ceil(256) as u64)
    }

    /// A complex table uploaded in the call's precision.
    fn upload(&self, v: &[Complex<f64>]) -> Result<WgpuBuffer> {
        let b = self.be.alloc_words(self.cdt, v.len())?;
        let bytes: Vec<u8> = if self.cdt == DType::Complex64 {
            v.iter()
                .flat_map(|c| [c.re as f32, c.im as f32])
                .flat_map(f32::to_le_bytes)
                .collect()
        } else {
            v.iter()
                .flat_map(|c| [c.re, c.im])
                .flat_map(f64::to_le_bytes)
                .collect()
        };
        let mut p = self.be.lock_pending()?;
        self.be.submit_locked(&mut p);
        self.be.queue.write_buffer(&b.buf, 0, &bytes);
        Ok(b)
    }

    /// A cached table: `what` 0 twiddles of `m`, 1 Bluestein chirp of `n` (scaled by `scale`
    /// when `scaled`), 2 Bluestein kernel spectrum of `n` padded to `m`.
    fn table(
        &self,
        what: u8,
        len: usize,
        inverse: bool,
        make: impl FnOnce() -> Vec<Complex<f64>>,
    ) -> Result<Arc<WgpuBuffer>> {
        let key = (len, inverse, self.cdt == DType::Complex128, what);
        if let Some(t) = self
            .be
            .fft_tables
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(t);
        }
        let t = Arc::new(self.upload(&make())?);
        if let Ok(mut m) = self.be.fft_tables.lock() {
            if m.len() > 64 {
                m.clear();
            }
            m.insert(key, t.clone());
        }
        Ok(t)
    }

    /// Points per half of the `block` kernel's workgroup memory: as many as the device's
    /// workgroup storage holds twice, at most 4096.
    fn tlmax(&self) -> usize {
        let bytes = if self.cdt == DType::Complex64 { 8 } else { 16 };
        (self.be.limits.max_compute_workgroup_storage_size as usize / (2 * bytes)).min(4096)
    }

    /// The plan of a 7-smooth length (passes of at least 64 bytes of consecutive columns).
    fn plan(&self, n: usize) -> Result<Plan> {
        let min_cols = if self.cdt == DType::Complex64 { 8 } else { 4 };
        Plan::new(n, self.tlmax(), min_cols).ok_or_else(|| {
            Error::invalid(
                "fft",
                format!("{n} has a prime factor above 7 (no Stockham plan)"),
            )
        })
    }

    /// One `block` pass `p` of `batch` rows of `n` points from `src` to `dst`, with what
    /// `ends` fuses into it (this pass's share: the caller clears what is not its own).
    fn pass(&self, batch: usize, n: usize, p: &Pass, io: &PassIo<'_>) -> Result<()> {
        let tlmax = self.tlmax();
        let cols = n / p.l;
        let radices = p
            .radices
            .iter()
            .enumerate()
            .fold(0u32, |a, (i, &r)| a | (r as u32) << (4 * i));
        let flags = (cols == 1) as u32 | ((p.s == 1) as u32) << 1;
        let e = &io.ends;
        let fused = e.pre.is_some() as u32 | (e.post.is_some() as u32) << 1;
        let words = [
            batch as u32,
            n as u32,
            p.l as u32,
            p.s as u32,
            io.src.1 as u32,
            io.dst.1 as u32,
            io.inverse as u32,
            p.t as u32,
            radices,
            p.radices.len() as u32,
            p.stage_tw as u32,
            flags,
            p.hi as u32,
            p.lo as u32,
            p.lo_bits,
            fused,
            e.src_len.unwrap_or(n) as u32,
            e.dst_len.unwrap_or(n) as u32,
            e.pre.unwrap_or(0) as u32,
            e.post.unwrap_or(0) as u32,
            0,
            0,
            0,
            0,
        ];
        let groups = (batch * cols).div_ceil(p.t) as u64;
        let key = crate::hash_of(&("fft", "block", self.real, tlmax));
        let real = self.real;
        let pipe = self.be.pipeline(key, "fft_block", &|| {
            let (fns, cases) = stages_wgsl(&section("stage_tpl")?.replace("REAL", real));
            let src = source("block", real)?
                .replace("TLMAX_VALUE", &tlmax.to_string())
                .replace("//STAGES", &fns)
                .replace("//SWITCH", &cases);
            Ok((src, meta_layout(), vec![false, true, false, false]))
        })?;
        let m = pipe.meta.pack(&[], &words);
        let aux = io.aux.unwrap_or(io.tw);
        self.be
            .dispatch(&pipe, &m, &[io.src.0, io.dst.0, io.tw, aux], groups)
    }

    /// A transform of `batch` rows of a 7-smooth `n` from `src` into `dst` (distinct buffers),
    /// the plan's passes: the last writes `dst`, the ones before alternate through `pool`
    /// (back from the last: `pool[0]`, `pool[1]`, ...; by default a scratch buffer and `dst`),
    /// `ends` fused into the first and last passes (`aux` their table).
    #[allow(clippy::too_many_arguments)]
    fn smooth(
        &self,
        batch: usize,
        n: usize,
        inverse: bool,
        src: (&wgpu::Buffer, usize),
        dst: (&wgpu::Buffer, usize),
        ends: Ends,
        aux: Option<&wgpu::Buffer>,
        pool: Option<[&wgpu::Buffer; 2]>,
    ) -> Result<()> {
        let plan = self.plan(n)?;
        if plan.passes.is_empty() {
            let w = words8([batch as u32, 1, 0, 0, src.1 as u32, dst.1 as u32, 0, 0]);
            return self.run("copy", w, &[src.0, dst.0], batch);
        }
        let tw = self.table(4, n, false, || plan.table())?;
        let scratch = if plan.passes.len() > 1 && pool.is_none() {
            Some(self.be.alloc_words(self.cdt, batch * n)?)
        } else {
            None
        };
        let last = plan.passes.len() - 1;
        let mut cur = src;
        for (i, p) in plan.passes.iter().enumerate() {
            let out = if i == last {
                dst
            } else {
                match (pool, &scratch) {
                    (Some(b), _) => (b[(last - 1 - i) % 2], 0),
                    (None, Some(s)) if (last - i) % 2 == 1 => (&s.buf, 0),
                    _ => dst,
                }
            };
            let ends = Ends {
                src_len: ends.src_len.filter(|_| i == 0),
                pre: ends.pre.filter(|_| i == 0),
                dst_len: ends.dst_len.filter(|_| i == last),
                post: ends.post.filter(|_| i == last),
            };
            let io = PassIo {
                inverse,
                tw: &tw.buf,
                aux,
                src: cur,
                dst: out,
                ends,
            };
            self.pass(batch, n, p, &io)?;
            cur = out;
        }
        Ok(())
    }

    /// Any-length complex transform: `src` rows of `n` into `dst` rows of `n` (distinct
    /// buffers). 7-smooth lengths through [`Ctx::smooth`]; others by Bluestein:
    /// `X_k = w_k sum_j (x_j w_j) conj(w_(k-j))`, `w_t = exp(-+ i pi t^2 / n)`, the convolution
    /// through transforms of the smallest 7-smooth `m >= 2n - 1`: the product with `w` (and the
    /// zero padding) fused into the forward transform's first pass, the product with the
    /// kernel's spectrum into the inverse's first, the scaled product with `w` into its last.
    fn c2c(
        &self,
        batch: usize,
        n: usize,
        inverse: bool,
        src: (&wgpu::Buffer, usize),
        dst: (&wgpu::Buffer, usize),
    ) -> Result<()> {
        if smooth_factors(n).is_some() {
            return self.smooth(batch, n, inverse, src, dst, Ends::default(), None, None);
        }
        let m = next_smooth(2 * n - 1);
        let sign = if inverse { 1.0 } else { -1.0 };
        let chirp = |k: usize| {
            let q = ((k as u128 * k as u128) % (2 * n as u128)) as f64;
            let a = sign * std::f64::consts::PI * q / n as f64;
            Complex::new(a.cos(), a.sin())
        };
        // [w (n) | w / m (n) | FFT of the kernel conj(w_|k|) (m)].
        let aux = self.table(5, n, inverse, || {
            let mut b = vec![Complex::new(0.0, 0.0); m];
            for k in 0..n {
                let c = chirp(k).conj();
                b[k] = c;
                if k > 0 {
                    b[m - k] = c;
                }
            }
            let mut planner = rustfft::FftPlanner::<f64>::new();
            planner.plan_fft_forward(m).process(&mut b);
            let mut t: Vec<Complex<f64>> = (0..n).map(chirp).collect();
            t.extend((0..n).map(|k| chirp(k) / m as f64));
            t.extend(b);
            t
        })?;
        let a = self.be.alloc_words(self.cdt, batch * m)?;
        let b = self.be.alloc_words(self.cdt, batch * m)?;
        // A third buffer only where the inverse has three passes or more (its first reads `a`).
        let c = if self.plan(m)?.passes.len() > 2 {
            Some(self.be.alloc_words(self.cdt, batch * m)?)
        } else {
            None
        };
        let fwd = Ends {
            src_len: Some(n),
            pre: Some(0),
            ..Ends::default()
        };
        let pool = Some([&b.buf, &a.buf]);
        self.smooth(batch, m, false, src, (&a.buf, 0), fwd, Some(&aux.buf), pool)?;
        let inv = Ends {
            pre: Some(2 * n),
            dst_len: Some(n),
            post: Some(n),
            ..Ends::default()
        };
        let pool = Some([&b.buf, c.as_ref().map_or(&b.buf, |c| &c.buf)]);
        self.smooth(batch, m, true, (&a.buf, 0), dst, inv, Some(&aux.buf), pool)
    }
}

/// Bluestein's steps fused into a transform's first pass (`src_len`: its input rows' length,
/// read as zero past it; `pre`: loads multiplied by the aux table from this offset) and last
/// (`dst_len`: the output rows' length, later points dropped; `post`: stores multiplied).
#[derive(Clone, Copy, Debug, Default)]
struct Ends {
    src_len: Option<usize>,
    pre: Option<usize>,
    dst_len: Option<usize>,
    post: Option<usize>,
}

/// The operands of one pass.
struct PassIo<'b> {
    inverse: bool,
    tw: &'b wgpu::Buffer,
    aux: Option<&'b wgpu::Buffer>,
    src: (&'b wgpu::Buffer, usize),
    dst: (&'b wgpu::Buffer, usize),
    ends: Ends,
}

/// [`cupy_core::Backend::fft`] on wgpu.
pub(crate) fn fft(be: &WgpuBackend, call: &FftCall<'_>) -> Result<()> {
    call.validate()?;
    let op = "fft";
    be.check_dtype(op, call.complex)?;
    let x = be.buf(call.input.buffer, op)?;
    let y = be.buf(call.output.buffer, op)?;
    let batch = call.batch();
    let n = call.n;
    if batch == 0 {
        return Ok(());
    }
    if x.id == y.id {
        return Err(Error::invalid(op, "the input and output share a buffer"));
    }
    let total = batch.max(1) * next_smooth(2 * n) * 2;
    if total >= 1 << 31 {
        return Err(Error::Unsupported {
            op: op.into(),
            backend: be.info.label(),
            reason: format!(
                "{batch} rows of {n} points exceed the 32-bit indexing of the WGSL FFT"
            ),
        });
    }
    let ctx = Ctx {
        be,
        real: if call.complex == DType::Complex64 {
            "f32"
        } else {
            "f64"
        },
        cdt: call.complex,
    };
    let (io, oo) = (call.input.layout.offset, call.output.layout.offset);
    match call.kind {
        FftKind::C2C { inverse } => ctx.c2c(batch, n, inverse, (&x.buf, io), (&y.buf, oo)),
        FftKind::R2C => {
            let full = be.alloc_words(call.complex, batch * n)?;
            let spec = be.alloc_words(call.complex, batch * n)?;
            let b = batch as u32;
            ctx.run(
                "real_in",
                words8([b, n as u32, 0, 0, io as u32, 0, 0, 0]),
                &[&x.buf, &full.buf],
                batch * n,
            )?;
            ctx.c2c(batch, n, false, (&full.buf, 0), (&spec.buf, 0))?;
            let lo = n / 2 + 1;
            ctx.run(
                "half_out",
                words8([b, n as u32, lo as u32, 0, 0, oo as u32, 0, 0]),
                &[&spec.buf, &y.buf],
                batch * lo,
            )
        }
        FftKind::C2R => {
            let full = be.alloc_words(call.complex, batch * n)?;
            let sig = be.alloc_words(call.complex, batch * n)?;
            let b = batch as u32;
            let li = n / 2 + 1;
            ctx.run(
                "herm_in",
                words8([b, n as u32, li as u32, 0, io as u32, 0, 0, 0]),
                &[&x.buf, &full.buf],
                batch * n,
            )?;
            ctx.c2c(batch, n, true, (&full.buf, 0), (&sig.buf, 0))?;
            ctx.run(
                "real_out",
                words8([b, n as u32, 0, 0, 0, oo as u32, 0, 0]),
                &[&sig.buf, &y.buf],
                batch * n,
            )
        }
    }
}
