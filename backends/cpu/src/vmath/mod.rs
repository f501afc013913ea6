//! Vectorized transcendental functions over slices: `exp`, `log`, `sin`, `cos`, `tanh` and
//! `pow` for float32 and float64.
//!
//! Each function is one branch-free *lane* routine (range reduction, a polynomial, selects for
//! the special values) that LLVM vectorizes when it is inlined into a loop compiled for a wider
//! instruction set. The loop is compiled three times on x86-64, for AVX-512 (F/DQ/VL/BW), for
//! AVX2+FMA and for the SSE2 baseline, and the widest one the CPU has is picked at run time
//! (`is_x86_feature_detected!`); other architectures run the portable loop (which uses fused
//! multiply-adds where the target has them, as aarch64 does).
//!
//! A lane that the vector routine does not cover exactly (a sine of a huge argument, `pow` of a
//! zero, infinity or NaN) raises a flag; a block of [`CHUNK`] lanes with a raised flag is
//! revisited on the scalar path (the C library, through `std`), lane by lane, for the flagged
//! lanes only. Random data never takes that path.
//!
//! `CUPY_CPU_SIMD=avx512|avx2|base|libm` forces one path (`libm`: the scalar C library for
//! every lane, the behaviour before this module), for measurements and tests; an unknown value
//! or a set the CPU lacks falls back to detection.
//!
//! float32 `pow` on AVX-512 has a loop of its own written with intrinsics (`pow_avx512.rs`:
//! register-held tables, which the portable code cannot express without slow gathers).
//!
//! The algorithms (Cody & Waite range reduction, the exponent/mantissa split and the
//! `2 atanh(s)` series of fdlibm's `log`, Taylor series, Chebyshev interpolants) and every
//! constant are documented where they are used; the constants are reproduced by
//! `bench/vmath_constants.py`. Accuracy (this module's tests, against the C library in float64
//! rounded once for float32 and the C library itself for float64; `docs/performance.md`):
//! float32 within 1 ulp for all six (exp, log, sin, cos, tanh over all 2^32 inputs); float64
//! within 1 ulp for exp, log, sin, cos and pow on the samples, 2 for tanh (the tests allow 2
//! for pow).

mod f32x;
mod f64x;
mod pow;
#[cfg(target_arch = "x86_64")]
mod pow_avx512;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

/// Lanes per block whose slow-path flags are checked together.
pub const CHUNK: usize = 256;

/// The instruction set a loop was compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The scalar C library for every lane (no vector code).
    Libm,
    /// The portable loop (SSE2 on x86-64).
    Base,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512 F, DQ, VL and BW.
    Avx512,
}

impl Isa {
    /// The widest set this CPU runs, or the one `CUPY_CPU_SIMD` names (when the CPU has it).
    pub fn current() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| {
            let best = Isa::detect();
            match std::env::var("CUPY_CPU_SIMD").as_deref() {
                Ok("libm") => Isa::Libm,
                Ok("base") => Isa::Base,
                Ok("avx2") if Isa::available(Isa::Avx2) => Isa::Avx2,
                Ok("avx512") if Isa::available(Isa::Avx512) => Isa::Avx512,
                _ => best,
            }
        })
    }

    /// The widest set this CPU has.
    pub fn detect() -> Isa {
        if Isa::available(Isa::Avx512) {
            Isa::Avx512
        } else if Isa::available(Isa::Avx2) {
            Isa::Avx2
        } else {
            Isa::Base
        }
    }

    /// Whether this CPU runs loops compiled for `isa`.
    pub fn available(isa: Isa) -> bool {
        match isa {
            Isa::Libm | Isa::Base => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::available(Isa::Avx2)
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512dq")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Lower-case name (`CUPY_CPU_SIMD`'s spelling).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Libm => "libm",
            Isa::Base => "base",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }
}

/// Whether the portable loop may use fused multiply-adds (single instructions on the target).
const BASE_FMA: bool = cfg!(any(target_arch = "aarch64", target_feature = "fma"));

/// `a * b + c`, fused when `F` (the loop's instruction set has FMA), else two roundings.
#[inline(always)]
fn fma32<const F: bool>(a: f32, b: f32, c: f32) -> f32 {
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `a * b + c`, fused when `F`.
#[inline(always)]
fn fma64<const F: bool>(a: f64, b: f64, c: f64) -> f64 {
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// One group of up to four coefficients `c0 + c1 x + c2 x^2 + c3 x^3`, as two independent
/// multiply-adds joined by x^2.
#[inline(always)]
fn group32<const F: bool>(x: f32, x2: f32, c: &[f32]) -> f32 {
    match c.len() {
        1 => c[0],
        2 => fma32::<F>(c[1], x, c[0]),
        3 => fma32::<F>(c[2], x2, fma32::<F>(c[1], x, c[0])),
        _ => fma32::<F>(fma32::<F>(c[3], x, c[2]), x2, fma32::<F>(c[1], x, c[0])),
    }
}

/// `c[0] + c[1] x + ... ` by groups of four (Estrin's scheme one level up: each group is
/// evaluated independently, the groups by Horner's scheme in x^4). The dependency chain is
/// about n/4 + 2 multiply-adds long instead of Horner's n, so that the out-of-order core keeps
/// more vectors in flight (the loops here are latency-bound otherwise).
#[inline(always)]
fn poly32<const F: bool>(x: f32, c: &[f32]) -> f32 {
    let x2 = x * x;
    let x4 = x2 * x2;
    let m = c.len().div_ceil(4);
    let mut acc = group32::<F>(x, x2, &c[4 * (m - 1)..]);
    for i in (0..m - 1).rev() {
        acc = fma32::<F>(acc, x4, group32::<F>(x, x2, &c[4 * i..4 * i + 4]));
    }
    acc
}

/// [`group32`] in float64.
#[inline(always)]
fn group64<const F: bool>(x: f64, x2: f64, c: &[f64]) -> f64 {
    match c.len() {
        1 => c[0],
        2 => fma64::<F>(c[1], x, c[0]),
        3 => fma64::<F>(c[2], x2, fma64::<F>(c[1], x, c[0])),
        _ => fma64::<F>(fma64::<F>(c[3], x, c[2]), x2, fma64::<F>(c[1], x, c[0])),
    }
}

/// [`poly32`] in float64.
#[inline(always)]
fn poly64<const F: bool>(x: f64, c: &[f64]) -> f64 {
    let x2 = x * x;
    let x4 = x2 * x2;
    let m = c.len().div_ceil(4);
    let mut acc = group64::<F>(x, x2, &c[4 * (m - 1)..]);
    for i in (0..m - 1).rev() {
        acc = fma64::<F>(acc, x4, group64::<F>(x, x2, &c[4 * i..4 * i + 4]));
    }
    acc
}

/// A one-argument function: its vector lane and its scalar path.
pub(crate) trait Fn1 {
    /// The element type.
    type T: Copy + Send + Sync + 'static;
    /// Whether a lane can ask for the scalar path.
    const SLOW: bool;
    /// The vector routine: the value and whether the lane needs the scalar path instead.
    fn lane<const F: bool>(x: Self::T) -> (Self::T, bool);
    /// The scalar path (the C library).
    fn libm(x: Self::T) -> Self::T;
}

/// A two-argument function.
pub(crate) trait Fn2 {
    /// The element type.
    type T: Copy + Send + Sync + 'static;
    /// Whether a lane can ask for the scalar path.
    const SLOW: bool;
    /// The vector routine.
    fn lane<const F: bool>(x: Self::T, y: Self::T) -> (Self::T, bool);
    /// The scalar path.
    fn libm(x: Self::T, y: Self::T) -> Self::T;
    /// A loop written for AVX-512 with intrinsics, when the function has one: true if it ran.
    fn avx512(_a: &[Self::T], _b: &[Self::T], _y: &mut [Self::T]) -> bool {
        false
    }
}

#[inline(always)]
fn drive1<K: Fn1, const F: bool>(x: &[K::T], y: &mut [K::T]) {
    for (xc, yc) in x.chunks(CHUNK).zip(y.chunks_mut(CHUNK)) {
        let mut bad = false;
        for (o, &v) in yc.iter_mut().zip(xc) {
            let (r, b) = K::lane::<F>(v);
            *o = r;
            bad |= b;
        }
        if K::SLOW && bad {
            for (o, &v) in yc.iter_mut().zip(xc) {
                if K::lane::<F>(v).1 {
                    *o = K::libm(v);
                }
            }
        }
    }
}

#[inline(always)]
fn drive2<K: Fn2, const F: bool>(a: &[K::T], b: &[K::T], y: &mut [K::T]) {
    for ((ac, bc), yc) in a
        .chunks(CHUNK)
        .zip(b.chunks(CHUNK))
        .zip(y.chunks_mut(CHUNK))
    {
        let mut bad = false;
        for ((o, &u), &v) in yc.iter_mut().zip(ac).zip(bc) {
            let (r, f) = K::lane::<F>(u, v);
            *o = r;
            bad |= f;
        }
        if K::SLOW && bad {
            for ((o, &u), &v) in yc.iter_mut().zip(ac).zip(bc) {
                if K::lane::<F>(u, v).1 {
                    *o = K::libm(u, v);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// # Safety
    /// The CPU must have AVX-512 F/DQ/VL/BW, AVX2 and FMA.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")]
    pub(super) unsafe fn d1_avx512<K: Fn1>(x: &[K::T], y: &mut [K::T]) {
        drive1::<K, true>(x, y)
    }
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn d1_avx2<K: Fn1>(x: &[K::T], y: &mut [K::T]) {
        drive1::<K, true>(x, y)
    }
    /// # Safety
    /// As [`d1_avx512`].
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")]
    pub(super) unsafe fn d2_avx512<K: Fn2>(a: &[K::T], b: &[K::T], y: &mut [K::T]) {
        drive2::<K, true>(a, b, y)
    }
    /// # Safety
    /// As [`d1_avx2`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn d2_avx2<K: Fn2>(a: &[K::T], b: &[K::T], y: &mut [K::T]) {
        drive2::<K, true>(a, b, y)
    }
}

/// `y[i] = K(x[i])` on the loop for `isa` (which the caller checked with [`Isa::available`]).
pub(crate) fn map1<K: Fn1>(isa: Isa, x: &[K::T], y: &mut [K::T]) {
    assert_eq!(x.len(), y.len(), "vmath: operand lengths differ");
    match isa {
        Isa::Libm => {
            for (o, &v) in y.iter_mut().zip(x) {
                *o = K::libm(v);
            }
        }
        // SAFETY: `Isa::current`/`Isa::available` checked the CPU's features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::d1_avx512::<K>(x, y) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::d1_avx2::<K>(x, y) },
        _ => drive1::<K, BASE_FMA>(x, y),
    }
}

/// `y[i] = K(a[i], b[i])` on the loop for `isa`.
pub(crate) fn map2<K: Fn2>(isa: Isa, a: &[K::T], b: &[K::T], y: &mut [K::T]) {
    assert!(
        a.len() == y.len() && b.len() == y.len(),
        "vmath: operand lengths differ"
    );
    match isa {
        Isa::Libm => {
            for ((o, &u), &v) in y.iter_mut().zip(a).zip(b) {
                *o = K::libm(u, v);
            }
        }
        // SAFETY: as in `map1`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            if !K::avx512(a, b, y) {
                unsafe { x86::d2_avx512::<K>(a, b, y) }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::d2_avx2::<K>(a, b, y) },
        _ => drive2::<K, BASE_FMA>(a, b, y),
    }
}

/// The functions of this module over slices, by element type (what the column evaluator
/// calls): `y[i] = f(x[i])`; the slices have equal lengths (else a panic).
pub trait VMath: Copy + Sized + Send + Sync + 'static {
    /// `y = exp(x)`.
    fn vexp(x: &[Self], y: &mut [Self]);
    /// `y = log(x)` (natural).
    fn vlog(x: &[Self], y: &mut [Self]);
    /// `y = sin(x)`.
    fn vsin(x: &[Self], y: &mut [Self]);
    /// `y = cos(x)`.
    fn vcos(x: &[Self], y: &mut [Self]);
    /// `y = tanh(x)`.
    fn vtanh(x: &[Self], y: &mut [Self]);
    /// `y = a ** b` (C's `pow`).
    fn vpow(a: &[Self], b: &[Self], y: &mut [Self]);
}

macro_rules! vmath_impl {
    ($t:ty, $exp:ty, $log:ty, $sin:ty, $cos:ty, $tanh:ty, $pow:ty) => {
        impl VMath for $t {
            fn vexp(x: &[Self], y: &mut [Self]) {
                map1::<$exp>(Isa::current(), x, y)
            }
            fn vlog(x: &[Self], y: &mut [Self]) {
                map1::<$log>(Isa::current(), x, y)
            }
            fn vsin(x: &[Self], y: &mut [Self]) {
                map1::<$sin>(Isa::current(), x, y)
            }
            fn vcos(x: &[Self], y: &mut [Self]) {
                map1::<$cos>(Isa::current(), x, y)
            }
            fn vtanh(x: &[Self], y: &mut [Self]) {
                map1::<$tanh>(Isa::current(), x, y)
            }
            fn vpow(a: &[Self], b: &[Self], y: &mut [Self]) {
                map2::<$pow>(Isa::current(), a, b, y)
            }
        }
    };
}
vmath_impl!(
    f32,
    f32x::Exp,
    f32x::Log,
    f32x::Sin,
    f32x::Cos,
    f32x::Tanh,
    pow::PowF32
);
vmath_impl!(
    f64,
    f64x::Exp,
    f64x::Log,
    f64x::Sin,
    f64x::Cos,
    f64x::Tanh,
    pow::PowF64
);
