//! The FFT primitive on wgpu (`shaders/fft.wgsl`): radix-2 Stockham passes for power-of-two
//! lengths, Bluestein's chirp-z (Bluestein 1970; Rabiner, Schafer and Rader 1969) through
//! power-of-two transforms of length `m >= 2n - 1` for every other length; real transforms
//! through complex ones of the full length (r2c: real rows widened; c2r: the Hermitian
//! spectrum completed). complex64 always, complex128 where the adapter has SHADER_F64.
//!
//! Tables are computed on the host in float64 and uploaded (WGSL's float32 `sin`/`cos` are not
//! accurate enough and its float64 ones are garbage on Vulkan: FACTS.md): the twiddles
//! `exp(-2 pi i t / m)`, and for Bluestein the chirp `exp(-i pi k^2 / n)` (with `k^2 mod 2n`,
//! exact in integers) and the transformed convolution kernel (rustfft, float64). They are
//! cached per (length, direction, precision) on the device.

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

fn source(section: &str, real: &str) -> Result<String> {
    let mut parts = FFT_WGSL.split("//@@ ");
    let header = parts.next().unwrap_or_default();
    let body = parts
        .find(|p| p.lines().next().map(str::trim) == Some(section))
        .ok_or_else(|| Error::invalid("fft", format!("no section {section} in fft.wgsl")))?;
    let body = body.split_once('\n').map_or("", |(_, b)| b);
    Ok(format!(
        "{}\n{}",
        header.replace("REAL", real),
        body.replace("REAL", real)
    ))
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
        words: [u32; 8],
        bufs: &[&wgpu::Buffer],
        threads: usize,
    ) -> Result<()> {
        let nb = bufs.len();
        let key = crate::hash_of(&("fft", section, self.real, nb));
        let real = self.real;
        let pipe = self.be.pipeline(key, &format!("fft_{section}"), &|| {
            let src = source(section, real)?;
            let mut rw = vec![false; nb];
            rw[1] = true;
            Ok((
                src,
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 8,
                },
                rw,
            ))
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

    fn twiddles(&self, m: usize) -> Result<Arc<WgpuBuffer>> {
        self.table(0, m, false, || {
            (0..(m / 2).max(1))
                .map(|t| {
                    let a = -2.0 * std::f64::consts::PI * t as f64 / m as f64;
                    Complex::new(a.cos(), a.sin())
                })
                .collect()
        })
    }

    /// Power-of-two transform of `m` points of `batch` rows: `src` (from element `so`) into
    /// `dst` (from `do_`), ping-ponging through `s0`/`s1` (distinct from both).
    #[allow(clippy::too_many_arguments)]
    fn pow2(
        &self,
        batch: usize,
        m: usize,
        inverse: bool,
        src: (&wgpu::Buffer, usize),
        dst: (&wgpu::Buffer, usize),
        s0: &wgpu::Buffer,
        s1: &wgpu::Buffer,
    ) -> Result<()> {
        let inv = inverse as u32;
        if m == 1 {
            let w = [batch as u32, 1, 0, 0, src.1 as u32, dst.1 as u32, inv, 0];
            return self.run("copy", w, &[src.0, dst.0], batch);
        }
        let tw = self.twiddles(m)?;
        let stages = m.trailing_zeros() as usize;
        let mut cur = src;
        for s in 0..stages {
            let out: (&wgpu::Buffer, usize) = if s + 1 == stages {
                dst
            } else if s % 2 == 0 {
                (s0, 0)
            } else {
                (s1, 0)
            };
            let w = [
                batch as u32,
                m as u32,
                0,
                1u32 << s,
                cur.1 as u32,
                out.1 as u32,
                inv,
                0,
            ];
            self.run("stage", w, &[cur.0, out.0, &tw.buf], batch * m / 2)?;
            cur = out;
        }
        Ok(())
    }

    /// Any-length complex transform: `src` rows of `n` into `dst` rows of `n`.
    fn c2c(
        &self,
        batch: usize,
        n: usize,
        inverse: bool,
        src: (&wgpu::Buffer, usize),
        dst: (&wgpu::Buffer, usize),
    ) -> Result<()> {
        if n.is_power_of_two() {
            let s0 = self.be.alloc_words(self.cdt, batch * n)?;
            let s1 = self.be.alloc_words(self.cdt, batch * n)?;
            return self.pow2(batch, n, inverse, src, dst, &s0.buf, &s1.buf);
        }
        // Bluestein: X_k = w_k sum_j (x_j w_j) conj(w_(k-j)), w_t = exp(-+ i pi t^2 / n).
        let m = (2 * n - 1).next_power_of_two();
        let sign = if inverse { 1.0 } else { -1.0 };
        let chirp = |k: usize| {
            let q = ((k as u128 * k as u128) % (2 * n as u128)) as f64;
            let a = sign * std::f64::consts::PI * q / n as f64;
            Complex::new(a.cos(), a.sin())
        };
        let w = self.table(1, n, inverse, || (0..n).map(chirp).collect())?;
        let wout = self.table(3, n, inverse, || {
            (0..n).map(|k| chirp(k) / m as f64).collect()
        })?;
        let bspec = self.table(2, n, inverse, || {
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
            b
        })?;
        let a = self.be.alloc_words(self.cdt, batch * m)?;
        let s0 = self.be.alloc_words(self.cdt, batch * m)?;
        let s1 = self.be.alloc_words(self.cdt, batch * m)?;
        let (nn, mm, b) = (n as u32, m as u32, batch as u32);
        self.run(
            "chirp_in",
            [b, nn, mm, 0, src.1 as u32, 0, 0, 0],
            &[src.0, &a.buf, &w.buf],
            batch * m,
        )?;
        // Scratch: s1 then `a` (free once the first pass has read it).
        self.pow2(batch, m, false, (&a.buf, 0), (&s0.buf, 0), &s1.buf, &a.buf)?;
        self.run(
            "pointwise",
            [b, nn, mm, 0, 0, 0, 0, 0],
            &[&s0.buf, &a.buf, &bspec.buf],
            batch * m,
        )?;
        self.pow2(batch, m, true, (&a.buf, 0), (&s0.buf, 0), &s1.buf, &a.buf)?;
        self.run(
            "chirp_out",
            [b, nn, mm, 0, 0, dst.1 as u32, 0, 0],
            &[&s0.buf, dst.0, &wout.buf],
            batch * n,
        )
    }
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
    let total = batch.max(1) * (2 * n).next_power_of_two() * 2;
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
                [b, n as u32, 0, 0, io as u32, 0, 0, 0],
                &[&x.buf, &full.buf],
                batch * n,
            )?;
            ctx.c2c(batch, n, false, (&full.buf, 0), (&spec.buf, 0))?;
            let lo = n / 2 + 1;
            ctx.run(
                "half_out",
                [b, n as u32, lo as u32, 0, 0, oo as u32, 0, 0],
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
                [b, n as u32, li as u32, 0, io as u32, 0, 0, 0],
                &[&x.buf, &full.buf],
                batch * n,
            )?;
            ctx.c2c(batch, n, true, (&full.buf, 0), (&sig.buf, 0))?;
            ctx.run(
                "real_out",
                [b, n as u32, 0, 0, 0, oo as u32, 0, 0],
                &[&sig.buf, &y.buf],
                batch * n,
            )
        }
    }
}
