//! The FFT primitive's call ([`FftCall`], queued by [`crate::Backend::fft`]): a batched 1-D
//! discrete Fourier transform along the last, contiguous axis of a `[batch, len]` buffer.
//!
//! Conventions (those of NumPy's `pocketfft`, cuFFT and rocFFT): the forward transform is
//! `X[k] = sum_j x[j] exp(-2 pi i j k / n)`, the inverse uses `exp(+2 pi i j k / n)`; neither is
//! scaled (the frontend applies `norm=`). Single precision is complex64 with float32 real sides,
//! double precision complex128 with float64.

use crate::backend::Operand;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The smallest `n >= target` whose prime factors all lie in `{2} + odd_primes` (a length
/// whose FFT splits into those radices): the frontend's `next_fast_len` (pocketfft's
/// `good_size`: 3, 5, 7, 11) and wgpu's Bluestein padding (3, 5, 7). `0`, `1` and `2` are
/// returned as they are. Every product of the odd primes below the best length so far is
/// doubled up to `target` (a few thousand products near 2^60 with four primes), in u128 so
/// no product overflows. `target` must be at most `usize::MAX / 2` (the result fits).
pub fn next_smooth(target: usize, odd_primes: &[u64]) -> usize {
    debug_assert!(target <= usize::MAX / 2);
    if target <= 2 {
        return target;
    }
    fn walk(f: u128, primes: &[u64], target: u128, best: &mut u128) {
        let mut v = f;
        while v < target {
            v *= 2;
        }
        *best = (*best).min(v);
        // Each product once: primes taken in non-decreasing order.
        for (i, &p) in primes.iter().enumerate() {
            let g = f * p as u128;
            if g < *best {
                walk(g, &primes[i..], target, best);
            }
        }
    }
    let t = target as u128;
    let mut best = t.next_power_of_two();
    walk(1, odd_primes, t, &mut best);
    best as usize
}

/// Which transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftKind {
    /// Complex to complex, `n` points in and out; `inverse` picks the sign of the exponent.
    C2C {
        /// `exp(+2 pi i ...)` (unscaled inverse) instead of the forward `exp(-2 pi i ...)`.
        inverse: bool,
    },
    /// Real to complex (forward): `n` reals in, the `n / 2 + 1` non-negative frequencies out.
    R2C,
    /// Complex to real (inverse of [`FftKind::R2C`]): `n / 2 + 1` complex values in (a
    /// Hermitian half-spectrum), `n` reals out. The caller passes a scratch input that the
    /// backend may overwrite (cuFFT and rocFFT do) whose zero and, for even `n`, Nyquist terms
    /// have zero imaginary parts (NumPy ignores them; the frontend zeroes them).
    C2R,
}

impl FftKind {
    /// `(input, output)` row lengths of an `n`-point transform of this kind.
    pub fn row_lens(self, n: usize) -> (usize, usize) {
        match self {
            FftKind::C2C { .. } => (n, n),
            FftKind::R2C => (n, n / 2 + 1),
            FftKind::C2R => (n / 2 + 1, n),
        }
    }

    /// `(input, output)` dtypes for the complex dtype `complex` (complex64 or complex128).
    pub fn dtypes(self, complex: DType) -> (DType, DType) {
        let real = if complex == DType::Complex64 {
            DType::Float32
        } else {
            DType::Float64
        };
        match self {
            FftKind::C2C { .. } => (complex, complex),
            FftKind::R2C => (real, complex),
            FftKind::C2R => (complex, real),
        }
    }

    /// A short name for messages and plan keys: `c2c`, `c2c-inverse`, `r2c`, `c2r`.
    pub fn name(self) -> &'static str {
        match self {
            FftKind::C2C { inverse: false } => "c2c",
            FftKind::C2C { inverse: true } => "c2c-inverse",
            FftKind::R2C => "r2c",
            FftKind::C2R => "c2r",
        }
    }
}

/// A batched 1-D FFT of `n` points along the last axis. Both operands have C-contiguous
/// layouts of shape `[batch, len]` (`len` from [`FftKind::row_lens`]) in distinct buffers; the
/// dtypes are [`FftKind::dtypes`] of `complex`. `batch` and `n` are at least 1.
#[derive(Clone, Debug)]
pub struct FftCall<'a> {
    /// The transform.
    pub kind: FftKind,
    /// The transform length (the logical, full-spectrum length).
    pub n: usize,
    /// Complex64 or complex128: the precision.
    pub complex: DType,
    /// Input rows.
    pub input: Operand<'a>,
    /// Output rows.
    pub output: Operand<'a>,
}

impl FftCall<'_> {
    /// The number of rows.
    pub fn batch(&self) -> usize {
        self.input.layout.shape.first().copied().unwrap_or(0)
    }

    /// Checks the call's contract (dtypes, shapes, contiguity, `n >= 1`), so every backend
    /// refuses a malformed call with the same message.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming what is wrong.
    pub fn validate(&self) -> Result<()> {
        let op = "fft";
        if !matches!(self.complex, DType::Complex64 | DType::Complex128) {
            return Err(Error::invalid(
                op,
                format!(
                    "the precision must be complex64 or complex128, not {}",
                    self.complex
                ),
            ));
        }
        if self.n == 0 {
            return Err(Error::invalid(
                op,
                "the transform length must be at least 1",
            ));
        }
        let (li, lo) = self.kind.row_lens(self.n);
        let (ti, to) = self.kind.dtypes(self.complex);
        let batch = self.batch();
        for (what, o, len, t) in [
            ("input", &self.input, li, ti),
            ("output", &self.output, lo, to),
        ] {
            if o.buffer.dtype() != t {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{} {what}: expected {t}, got {}",
                        self.kind.name(),
                        o.buffer.dtype()
                    ),
                ));
            }
            let l = &o.layout;
            if l.shape != [batch, len] || !l.is_c_contiguous() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{} {what}: expected a C-contiguous [{batch}, {len}] layout, got {l:?}",
                        self.kind.name()
                    ),
                ));
            }
            if l.offset + batch * len > o.buffer.len() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{what}: the layout {l:?} runs past the buffer's {} elements",
                        o.buffer.len()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// What [`crate::Backend::fft_plan_cache`] does (CuPy's `cupy.fft.config.get_plan_cache()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanCacheOp {
    /// Only report.
    Query,
    /// Sets the capacity in plans, evicting the least recently used plans beyond it (0: only
    /// the plan of the latest call is kept, until the next call replaces it).
    SetSize(usize),
    /// Destroys every cached plan.
    Clear,
}

/// The state of a backend's FFT plan cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanCacheInfo {
    /// Plans cached now.
    pub cached: usize,
    /// The capacity in plans.
    pub capacity: usize,
    /// Device bytes the cached plans hold (work areas), where the library reports them.
    pub bytes: usize,
}

/// The key of a cached plan: length, batch, kind and precision (the device is the cache's
/// owner; layouts are always the contiguous `[batch, len]` of [`FftCall`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanKey {
    /// The transform length.
    pub n: usize,
    /// The number of rows.
    pub batch: usize,
    /// The transform.
    pub kind: FftKind,
    /// complex64 or complex128.
    pub complex: DType,
}

impl PlanKey {
    /// The key of a call.
    pub fn of(call: &FftCall<'_>) -> PlanKey {
        PlanKey {
            n: call.n,
            batch: call.batch(),
            kind: call.kind,
            complex: call.complex,
        }
    }
}

/// A least-recently-used cache of vendor FFT plans (cuFFT, rocFFT), shared by the GPU
/// backends: plans are dropped (destroyed) when evicted or cleared. The default capacity is 16
/// plans, as CuPy's.
#[derive(Debug)]
pub struct PlanCache<P> {
    capacity: usize,
    /// Most recently used last.
    entries: Vec<(PlanKey, P, usize)>,
}

impl<P> Default for PlanCache<P> {
    fn default() -> Self {
        PlanCache {
            capacity: 16,
            entries: Vec::new(),
        }
    }
}

impl<P> PlanCache<P> {
    /// The cached plan of `key`, made by `make` (which returns the plan and its work-area
    /// bytes) when absent; the plan becomes the most recently used.
    ///
    /// # Errors
    /// `make`'s.
    pub fn get_or_make(
        &mut self,
        key: PlanKey,
        make: impl FnOnce() -> Result<(P, usize)>,
    ) -> Result<&P> {
        if let Some(i) = self.entries.iter().position(|e| e.0 == key) {
            let e = self.entries.remove(i);
            self.entries.push(e);
        } else {
            let (p, bytes) = make()?;
            self.entries.push((key, p, bytes));
            // Keep at least the plan just made, even with capacity 0 (it is used right away and
            // evicted by the next call).
            while self.entries.len() > self.capacity.max(1) {
                self.entries.remove(0);
            }
        }
        Ok(&self.entries.last().expect("just pushed").1)
    }

    /// Applies `op` and reports the state.
    pub fn control(&mut self, op: PlanCacheOp) -> PlanCacheInfo {
        match op {
            PlanCacheOp::Query => {}
            PlanCacheOp::SetSize(n) => {
                self.capacity = n;
                while self.entries.len() > n {
                    self.entries.remove(0);
                }
            }
            PlanCacheOp::Clear => self.entries.clear(),
        }
        PlanCacheInfo {
            cached: self.entries.len(),
            capacity: self.capacity,
            bytes: self.entries.iter().map(|e| e.2).sum(),
        }
    }
}
