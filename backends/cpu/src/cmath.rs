//! Complex arithmetic and functions with NumPy's results, the same algorithms as the CUDA/HIP
//! prelude (`core/src/kernel/cpp/prelude.h`), so every backend agrees.
//!
//! - `*` is NumPy's SIMD multiply loop on x86-64 (each part one fused multiply-add), `/` its
//!   Smith division (a zero divisor gives `re/|0|, im/|0|`), comparisons its `CLT`/`CLE` macros
//!   (an ordered comparison of the real parts needs both imaginary parts to be non-NaN), `**`
//!   its `npy_cpow`.
//! - `sqrt exp log sin cos tan tanh` follow C99 Annex G for every special value, with the signs
//!   glibc (which NumPy calls) picks where the standard leaves them open; `abs` is `hypot`
//!   with an infinite part winning over a NaN one.

// `y - y` is deliberate throughout: NaN from an infinite or NaN `y` (C's idiom, as the prelude).
#![allow(clippy::eq_op)]

use num_complex::Complex;
use num_traits::Float;

/// A per-precision constant: `single` for f32, `double` for f64.
#[inline(always)]
fn k<T: Float>(single: f64, double: f64) -> T {
    let v = if std::mem::size_of::<T>() == 4 {
        single
    } else {
        double
    };
    T::from(v).unwrap_or_else(T::zero)
}

#[inline(always)]
fn c<T: Float>(re: T, im: T) -> Complex<T> {
    Complex::new(re, im)
}

#[inline(always)]
fn half<T: Float>() -> T {
    k(0.5, 0.5)
}

/// NumPy's complex multiply: `re = fma(ar, br, -(ai*bi))`, `im = fma(ar, bi, ai*br)`.
#[inline(always)]
pub fn mul<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    c(
        a.re.mul_add(b.re, -(a.im * b.im)),
        a.re.mul_add(b.im, a.im * b.re),
    )
}

/// The unfused product of NumPy's `cmul` (used by `pow`).
#[inline(always)]
fn mul_nf<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

/// NumPy's complex division (Smith's method).
#[inline(always)]
pub fn div<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let (abr, abi) = (b.re.abs(), b.im.abs());
    let one = T::one();
    if abr >= abi {
        if abr == T::zero() && abi == T::zero() {
            return c(a.re / abr, a.im / abi);
        }
        let rat = b.im / b.re;
        let scl = one / (b.re + b.im * rat);
        return c((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    let rat = b.re / b.im;
    let scl = one / (b.im + b.re * rat);
    c((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
}

/// True if either part is NaN.
#[inline(always)]
pub fn isnan<T: Float>(a: Complex<T>) -> bool {
    a.re.is_nan() || a.im.is_nan()
}

/// NumPy's `CLT`.
#[inline(always)]
pub fn lt<T: Float>(a: Complex<T>, b: Complex<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im < b.im)
}

/// NumPy's `CLE`.
#[inline(always)]
pub fn le<T: Float>(a: Complex<T>, b: Complex<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im <= b.im)
}

/// NumPy's `maximum`: a NaN operand wins (the first if both).
#[inline(always)]
pub fn max<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if isnan(a) || le(b, a) {
        a
    } else {
        b
    }
}

/// NumPy's `minimum`.
#[inline(always)]
pub fn min<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if isnan(a) || le(a, b) {
        a
    } else {
        b
    }
}

/// NumPy's `fmax`: the non-NaN operand wins.
#[inline(always)]
pub fn fmax<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if isnan(b) || le(b, a) {
        a
    } else {
        b
    }
}

/// NumPy's `fmin`.
#[inline(always)]
pub fn fmin<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if isnan(b) || le(a, b) {
        a
    } else {
        b
    }
}

/// `|z|` as C's `cabs`.
#[inline(always)]
pub fn abs<T: Float>(z: Complex<T>) -> T {
    if z.re.is_infinite() || z.im.is_infinite() {
        return T::infinity();
    }
    z.re.hypot(z.im)
}

/// `cexp`.
pub fn exp<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if y == T::zero() {
        return c(x.exp(), y);
    }
    if !y.is_finite() {
        if x == T::neg_infinity() {
            return c(T::zero(), T::zero());
        }
        if x == T::infinity() {
            return c(x, y - y);
        }
        return c(y - y, y - y);
    }
    let (s, co) = (y.sin(), y.cos());
    if x > k(88.0, 709.0) {
        let e = (x * half()).exp();
        return c((e * co) * e, (e * s) * e);
    }
    let e = x.exp();
    c(e * co, e * s)
}

/// `clog`, with `log1p` near the unit circle (`|z|^2 - 1` formed with exact products).
pub fn log<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let im = y.atan2(x);
    let (mut ax, mut ay) = (x.abs(), y.abs());
    if ax.is_infinite() || ay.is_infinite() {
        return c(T::infinity(), im);
    }
    if ax.is_nan() || ay.is_nan() {
        return c(T::nan(), im);
    }
    if ax < ay {
        std::mem::swap(&mut ax, &mut ay);
    }
    if ax == T::zero() {
        return c(T::neg_infinity(), im);
    }
    let one = T::one();
    if ax >= half() && ax <= k(1.5, 1.5) && ay < one {
        let s = ax * ax;
        let es = ax.mul_add(ax, -s);
        let p = ay * ay;
        let ep = ay.mul_add(ay, -p);
        let r2 = s + p;
        if r2 > half() && r2 < k(2.0, 2.0) {
            let t = ((s - one) + p) + (es + ep);
            return c(half::<T>() * t.ln_1p(), im);
        }
    }
    c(ax.hypot(ay).ln(), im)
}

/// `csqrt` (Kahan's algorithm, with scaling of huge and tiny arguments).
pub fn sqrt<T: Float>(z: Complex<T>) -> Complex<T> {
    let (mut x, mut y) = (z.re, z.im);
    let zero = T::zero();
    if x == zero && y == zero {
        return c(zero, y);
    }
    if y.is_infinite() {
        return c(T::infinity(), y);
    }
    if x.is_nan() {
        return c(x, (y - y) / (y - y));
    }
    if x.is_infinite() {
        if x.is_sign_negative() {
            return c((y - y).abs(), T::infinity().copysign(y));
        }
        return c(x, (y - y).copysign(y));
    }
    if y.is_nan() {
        return c(y, y);
    }
    let big: T = k(1e37, 1e307);
    let tiny: T = k(1e-37, 1e-307);
    let mut scale = T::one();
    if x.abs() >= big || y.abs() >= big {
        let q: T = k(0.25, 0.25);
        x = x * q;
        y = y * q;
        scale = k(2.0, 2.0);
    } else if x.abs() < tiny && y.abs() < tiny {
        let up: T = k(16777216.0, 18014398509481984.0);
        x = x * up;
        y = y * up;
        scale = k(2.44140625e-4, 7.450_580_596_923_828e-9); // 2^-12, 2^-27
    }
    if x >= zero {
        let t = ((x + x.hypot(y)) * half()).sqrt();
        return c(t * scale, (y / (t + t)) * scale);
    }
    let t = ((-x + x.hypot(y)) * half()).sqrt();
    c((y.abs() / (t + t)) * scale, t.copysign(y) * scale)
}

fn sinh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == T::zero() {
            return c(x.sinh(), y);
        }
        let (s, co) = (y.sin(), y.cos());
        let ax = x.abs();
        if ax < k(9.0, 20.0) {
            return c(x.sinh() * co, x.cosh() * s);
        }
        if ax < k(88.0, 709.0) {
            let h = ax.exp() * half();
            return c(h.copysign(x) * co, h * s);
        }
        let e = (ax * half()).exp();
        let h = e * half();
        return c((h.copysign(x) * co) * e, (h * s) * e);
    }
    if x == T::zero() {
        return c(x, y - y);
    }
    if y == T::zero() {
        return c(x, y);
    }
    if x.is_finite() {
        return c(y - y, x * (y - y));
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return c(x * x, x * (y - y));
        }
        return c(x * y.cos(), T::infinity() * y.sin());
    }
    c((x * x) * (y - y), (x + x) * (y - y))
}

fn cosh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == T::zero() {
            return c(x.cosh(), x * y);
        }
        let (s, co) = (y.sin(), y.cos());
        let ax = x.abs();
        if ax < k(9.0, 20.0) {
            return c(x.cosh() * co, x.sinh() * s);
        }
        if ax < k(88.0, 709.0) {
            let h = ax.exp() * half();
            return c(h * co, h.copysign(x) * s);
        }
        let e = (ax * half()).exp();
        let h = e * half();
        return c((h * co) * e, (h.copysign(x) * s) * e);
    }
    if x == T::zero() {
        return c(y - y, T::zero());
    }
    if y == T::zero() {
        return c(
            x * x,
            if x.is_nan() {
                y
            } else {
                T::zero().copysign(x) * y
            },
        );
    }
    if x.is_finite() {
        return c(y - y, x * (y - y));
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return c(x * x, x * (y - y));
        }
        return c((x * x) * y.cos(), x * y.sin());
    }
    c((x * x) * (y - y), (x + x) * (y - y))
}

/// `ctanh` (Kahan's algorithm, as FreeBSD's).
pub fn tanh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let one = T::one();
    if !x.is_finite() {
        if x.is_nan() {
            return c(x, if y == T::zero() { y } else { x * y });
        }
        let im = if y.is_infinite() {
            y
        } else {
            y.sin() * y.cos()
        };
        return c(one.copysign(x), T::zero().copysign(im));
    }
    if !y.is_finite() {
        return c(if x != T::zero() { y - y } else { x }, y - y);
    }
    if x.abs() >= k(11.0, 22.0) {
        let e = (-x.abs()).exp();
        return c(
            one.copysign(x),
            k::<T>(4.0, 4.0) * y.sin() * y.cos() * e * e,
        );
    }
    let t = y.tan();
    let beta = one + t * t;
    let s = x.sinh();
    let rho = (one + s * s).sqrt();
    let den = one + beta * s * s;
    c((beta * rho * s) / den, t / den)
}

/// `csin` = -i sinh(iz) (glibc's signs where C99 leaves them open).
pub fn sin<T: Float>(z: Complex<T>) -> Complex<T> {
    if !z.re.is_finite() && z.im.is_infinite() {
        return c(z.re - z.re, T::infinity());
    }
    let w = sinh(c(-z.im, z.re));
    c(w.im, -w.re)
}

/// `ccos` = cosh(iz).
pub fn cos<T: Float>(z: Complex<T>) -> Complex<T> {
    cosh(c(-z.im, z.re))
}

/// `ctan` = -i tanh(iz).
pub fn tan<T: Float>(z: Complex<T>) -> Complex<T> {
    let w = tanh(c(-z.im, z.re));
    c(w.im, -w.re)
}

/// NumPy's `npy_cpow`: `z**0 = 1`; `0**w = 0` when `re(w) > 0`, else NaN; integer exponents
/// below 100 in magnitude by repeated (unfused) products, a negative one then `1/...`;
/// otherwise `exp(w log z)` as C's `cpow`.
pub fn pow<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let (zero, one) = (T::zero(), T::one());
    let (br, bi) = (b.re, b.im);
    if br == zero && bi == zero {
        return c(one, zero);
    }
    if a.re == zero && a.im == zero {
        if br > zero {
            return c(zero, zero);
        }
        return c(T::nan(), T::nan());
    }
    if bi == zero && br.abs() < k(100.0, 100.0) && br == br.trunc() {
        let mut n = br.to_i32().unwrap_or(0);
        match n {
            1 => return a,
            2 => return mul_nf(a, a),
            3 => return mul_nf(a, mul_nf(a, a)),
            _ => {}
        }
        n = n.abs();
        let mut aa = c(one, zero);
        let mut p = a;
        let mut mask = 1;
        loop {
            if n & mask != 0 {
                aa = mul_nf(aa, p);
            }
            mask <<= 1;
            if n < mask {
                break;
            }
            p = mul_nf(p, p);
        }
        if br < zero {
            aa = div(c(one, zero), aa);
        }
        return aa;
    }
    exp(mul_nf(b, log(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_reference_values() {
        // Values printed by NumPy 2.2.6 on x86-64 (glibc).
        let z = |re: f64, im: f64| Complex::new(re, im);
        let inf = f64::INFINITY;
        let same = |a: Complex<f64>, b: Complex<f64>| {
            let eq = |x: f64, y: f64| {
                (x.is_nan() && y.is_nan())
                    || (x == y && x.is_sign_negative() == y.is_sign_negative())
            };
            eq(a.re, b.re) && eq(a.im, b.im)
        };
        assert!(same(div(z(1.0, 1.0), z(0.0, 0.0)), z(inf, inf)));
        assert!(same(div(z(1.0, 0.0), z(-0.0, 0.0)), z(inf, f64::NAN)));
        assert!(same(exp(z(inf, 0.0)), z(inf, 0.0)));
        assert!(exp(z(0.0, inf)).re.is_nan());
        assert!(same(log(z(0.0, inf)), z(inf, std::f64::consts::FRAC_PI_2)));
        assert!(same(sqrt(z(0.0, inf)), z(inf, inf)));
        assert!(same(sin(z(0.0, inf)), z(0.0, inf)));
        assert!(same(cos(z(0.0, inf)), z(inf, -0.0)));
        assert!(same(tan(z(0.0, inf)), z(0.0, 1.0)));
        assert!(same(tanh(z(inf, inf)), z(1.0, 0.0)));
        assert!(same(pow(z(0.0, 0.0), z(1.0, 1.0)), z(0.0, 0.0)));
        assert!(pow(z(0.0, 0.0), z(-1.0, 0.0)).re.is_nan());
        assert!(same(pow(z(1.0, 1.0), z(3.0, 0.0)), z(-2.0, 2.0)));
        // (1 + NaN j) < (2 + 0j) is False in NumPy (CLT's NaN rule).
        assert!(!lt(z(1.0, f64::NAN), z(2.0, 0.0)));
        assert!(lt(z(1.0, 5.0), z(2.0, 0.0)));
        // log near the unit circle keeps its relative accuracy.
        let l = log(z(1.0, 0.001));
        assert!((l.re - 4.999997500001667e-07).abs() <= 4e-22, "{l}");
    }
}
