//! Accuracy of the vector lanes on every instruction set this CPU has: float32 against the C
//! library in float64 rounded once (within 0.5 ulp plus float64's error: a reference), over a
//! stride through every float32 bit pattern; float64 against the C library itself (glibc's
//! exp, log, sin, cos, pow are within 1 ulp, mostly correctly rounded) over log-uniform samples;
//! special values exactly. `exhaustive_f32` (ignored: minutes in a release build) walks all
//! 2^32 float32 inputs.

use super::*;

fn isas() -> Vec<Isa> {
    [Isa::Base, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&i| Isa::available(i))
        .collect()
}

/// Distance in ulps (0 for two NaNs, `u64::MAX` for one NaN; +0 and -0 are one apart).
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let ord = |x: f32| {
        let i = x.to_bits() as i32 as i64;
        if i < 0 {
            -(i & 0x7fff_ffff) - 1
        } else {
            i
        }
    };
    ord(a).abs_diff(ord(b))
}

fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let ord = |x: f64| {
        let i = x.to_bits() as i64 as i128;
        if i < 0 {
            -(i & 0x7fff_ffff_ffff_ffff) - 1
        } else {
            i
        }
    };
    ord(a).abs_diff(ord(b)) as u64
}

/// Max ulps and the worst input of `K` against `reference` over `xs`.
fn worst1_32<K: Fn1<T = f32>>(isa: Isa, xs: &[f32], reference: fn(f64) -> f64) -> (u64, f32) {
    let mut y = vec![0f32; xs.len()];
    map1::<K>(isa, xs, &mut y);
    let mut w = (0, 0f32);
    let mut off = 0usize;
    for (&x, &v) in xs.iter().zip(&y) {
        let d = ulps32(v, reference(x as f64) as f32);
        off += (d > 0) as usize;
        if d > w.0 {
            w = (d, x);
        }
    }
    if std::env::var_os("VMATH_VERBOSE").is_some() {
        eprintln!(
            "  {:.4}% of {} differ",
            100.0 * off as f64 / xs.len() as f64,
            xs.len()
        );
    }
    w
}

fn worst1_64<K: Fn1<T = f64>>(isa: Isa, xs: &[f64], reference: fn(f64) -> f64) -> (u64, f64) {
    let mut y = vec![0f64; xs.len()];
    map1::<K>(isa, xs, &mut y);
    let mut w = (0, 0f64);
    let mut off = 0usize;
    for (&x, &v) in xs.iter().zip(&y) {
        let d = ulps64(v, reference(x));
        off += (d > 0) as usize;
        if d > w.0 {
            w = (d, x);
        }
    }
    if std::env::var_os("VMATH_VERBOSE").is_some() {
        eprintln!(
            "  {:.4}% of {} differ",
            100.0 * off as f64 / xs.len() as f64,
            xs.len()
        );
    }
    w
}

/// Every `stride`-th float32 bit pattern (both signs, subnormals, infinities, NaNs).
fn f32_sweep(stride: u32) -> Vec<f32> {
    (0..=u32::MAX / stride)
        .map(|i| f32::from_bits(i.wrapping_mul(stride).wrapping_add(i % 7)))
        .collect()
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-uniform magnitude in [2^lo, 2^hi), random sign.
    fn logu(&mut self, lo: f64, hi: f64) -> f64 {
        let m = (lo + (hi - lo) * self.unit()).exp2();
        if self.next() & 1 == 0 {
            m
        } else {
            -m
        }
    }
}

#[test]
fn float32_sweep_within_one_ulp() {
    let xs = f32_sweep(1021);
    for isa in isas() {
        let checks: [(&str, (u64, f32), u64); 5] = [
            ("exp", worst1_32::<f32x::Exp>(isa, &xs, f64::exp), 1),
            ("log", worst1_32::<f32x::Log>(isa, &xs, f64::ln), 1),
            ("sin", worst1_32::<f32x::Sin>(isa, &xs, f64::sin), 1),
            ("cos", worst1_32::<f32x::Cos>(isa, &xs, f64::cos), 1),
            ("tanh", worst1_32::<f32x::Tanh>(isa, &xs, f64::tanh), 2),
        ];
        for (name, (u, x), max) in checks {
            eprintln!("{} {name} f32: max {u} ulps at {x:e}", isa.name());
            assert!(u <= max, "{} {name}({x:e}): {u} ulps", isa.name());
        }
    }
}

#[test]
fn float64_samples_within_one_ulp() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let wide: Vec<f64> = (0..200_000).map(|_| rng.logu(-1030.0, 10.0)).collect();
    let trig: Vec<f64> = (0..200_000).map(|_| rng.logu(-30.0, 22.0)).collect();
    let pos: Vec<f64> = (0..200_000)
        .map(|_| rng.logu(-1074.0, 1024.0).abs())
        .collect();
    for isa in isas() {
        let checks: [(&str, (u64, f64), u64); 5] = [
            ("exp", worst1_64::<f64x::Exp>(isa, &wide, f64::exp), 1),
            ("log", worst1_64::<f64x::Log>(isa, &pos, f64::ln), 1),
            ("sin", worst1_64::<f64x::Sin>(isa, &trig, f64::sin), 1),
            ("cos", worst1_64::<f64x::Cos>(isa, &trig, f64::cos), 1),
            ("tanh", worst1_64::<f64x::Tanh>(isa, &wide, f64::tanh), 2),
        ];
        for (name, (u, x), max) in checks {
            eprintln!("{} {name} f64: max {u} ulps at {x:e}", isa.name());
            assert!(u <= max, "{} {name}({x:e}): {u} ulps", isa.name());
        }
    }
}

#[test]
fn pow_samples() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let n = 200_000;
    let mut xs64 = Vec::with_capacity(n);
    let mut ys64 = Vec::with_capacity(n);
    for i in 0..n {
        // |y log x| spread up to the overflow range; every fourth exponent an integer (so
        // negative bases give signed results, not NaN); every eighth base within a few
        // thousand ulps of +-1 with a large exponent (where log's absolute error counts).
        let mut x = rng.logu(-60.0, 60.0);
        let mut y = rng.logu(-10.0, 9.0);
        if i % 8 == 1 {
            let k = (rng.next() % 4000) as f64 - 2000.0;
            x = (1.0 + k * f32::EPSILON as f64).copysign(x);
            y = rng.logu(5.0, 28.0);
        }
        if i % 4 == 0 {
            y = y.round();
        }
        xs64.push(x);
        ys64.push(y);
    }
    let xs32: Vec<f32> = xs64.iter().map(|&v| v as f32).collect();
    let ys32: Vec<f32> = ys64.iter().map(|&v| v as f32).collect();
    for isa in isas() {
        let mut o32 = vec![0f32; n];
        map2::<pow::PowF32>(isa, &xs32, &ys32, &mut o32);
        let mut o64 = vec![0f64; n];
        map2::<pow::PowF64>(isa, &xs64, &ys64, &mut o64);
        let (mut w32, mut w64) = ((0, 0.0, 0.0), (0, 0.0, 0.0));
        for i in 0..n {
            let r32 = (xs32[i] as f64).powf(ys32[i] as f64) as f32;
            let d = ulps32(o32[i], r32);
            if d > w32.0 {
                w32 = (d, xs32[i] as f64, ys32[i] as f64);
            }
            let d = ulps64(o64[i], xs64[i].powf(ys64[i]));
            if d > w64.0 {
                w64 = (d, xs64[i], ys64[i]);
            }
        }
        eprintln!(
            "{} pow f32: max {} ulps at {:e} ** {:e}",
            isa.name(),
            w32.0,
            w32.1,
            w32.2
        );
        eprintln!(
            "{} pow f64: max {} ulps at {:e} ** {:e}",
            isa.name(),
            w64.0,
            w64.1,
            w64.2
        );
        assert!(w32.0 <= 1, "{} pow f32 {w32:?}", isa.name());
        assert!(w64.0 <= 2, "{} pow f64 {w64:?}", isa.name());
    }
}

/// Bit-exact agreement with the C library on special values (NaN-ness, infinities, zero signs,
/// the edges of overflow and underflow, subnormals).
#[test]
fn special_values() {
    let s32: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        1e-40,
        88.72283,
        88.72284,
        -87.33654,
        -103.97208,
        -103.97209,
        -104.0,
        89.0,
        1.0,
        -1.0,
        f32::MAX,
        f32::MIN,
        1e30,
        -1e30,
        1e6,
        1048576.0,
        1048577.0,
        9.0,
        -9.0,
        0.55,
        -0.55,
        1e-20,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
    ];
    let s64: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        709.782712893384,
        709.7827128933841,
        -708.3964185322641,
        -745.1332191019411,
        -745.1332191019412,
        -746.0,
        710.0,
        1.0,
        -1.0,
        f64::MAX,
        f64::MIN,
        1e300,
        -1e300,
        1e6,
        1048576.0,
        1048577.0,
        22.0,
        -22.0,
        0.55,
        1e-200,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        6381956970095103.0 * 2f64.powi(797),
    ];
    for isa in isas() {
        let tol = |name: &str| if name == "tanh" { 2 } else { 1 };
        for (name, (u, x)) in [
            ("exp", worst1_32::<f32x::Exp>(isa, &s32, f64::exp)),
            ("log", worst1_32::<f32x::Log>(isa, &s32, f64::ln)),
            ("sin", worst1_32::<f32x::Sin>(isa, &s32, f64::sin)),
            ("cos", worst1_32::<f32x::Cos>(isa, &s32, f64::cos)),
            ("tanh", worst1_32::<f32x::Tanh>(isa, &s32, f64::tanh)),
        ] {
            assert!(
                u <= tol(name),
                "{} {name} f32 ({x:e}): {u} ulps",
                isa.name()
            );
        }
        for (name, (u, x)) in [
            ("exp", worst1_64::<f64x::Exp>(isa, &s64, f64::exp)),
            ("log", worst1_64::<f64x::Log>(isa, &s64, f64::ln)),
            ("sin", worst1_64::<f64x::Sin>(isa, &s64, f64::sin)),
            ("cos", worst1_64::<f64x::Cos>(isa, &s64, f64::cos)),
            ("tanh", worst1_64::<f64x::Tanh>(isa, &s64, f64::tanh)),
        ] {
            assert!(
                u <= tol(name),
                "{} {name} f64 ({x:e}): {u} ulps",
                isa.name()
            );
        }
        // Zero signs and NaN exactly.
        let mut o = vec![0f32; s32.len()];
        map1::<f32x::Tanh>(isa, &s32, &mut o);
        assert_eq!(o[1].to_bits(), (-0.0f32).to_bits(), "tanh(-0)");
        map1::<f32x::Sin>(isa, &s32, &mut o);
        assert_eq!(o[1].to_bits(), (-0.0f32).to_bits(), "sin(-0)");
        let mut o = vec![0f64; s64.len()];
        map1::<f64x::Sin>(isa, &s64, &mut o);
        assert_eq!(o[1].to_bits(), (-0.0f64).to_bits(), "sin(-0)");
        map1::<f64x::Tanh>(isa, &s64, &mut o);
        assert_eq!(o[1].to_bits(), (-0.0f64).to_bits(), "tanh(-0)");
        // pow over every pair of specials, against the C library.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let p32: Vec<f32> = [s32.clone(), vec![2.0, 0.5, -0.5, 3.0, -3.0, -2.0, 1.5]].concat();
        for &x in &p32 {
            for &y in &p32 {
                a.push(x);
                b.push(y);
            }
        }
        let mut o = vec![0f32; a.len()];
        map2::<pow::PowF32>(isa, &a, &b, &mut o);
        for i in 0..a.len() {
            let want = a[i].powf(b[i]);
            assert!(
                ulps32(o[i], want) <= 1,
                "{} pow f32 {:e} ** {:e}: {:e}, want {want:e}",
                isa.name(),
                a[i],
                b[i],
                o[i]
            );
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let p64: Vec<f64> = [s64.clone(), vec![2.0, 0.5, -0.5, 3.0, -3.0, -2.0, 1.5]].concat();
        for &x in &p64 {
            for &y in &p64 {
                a.push(x);
                b.push(y);
            }
        }
        let mut o = vec![0f64; a.len()];
        map2::<pow::PowF64>(isa, &a, &b, &mut o);
        for i in 0..a.len() {
            let want = a[i].powf(b[i]);
            assert!(
                ulps64(o[i], want) <= 2,
                "{} pow f64 {:e} ** {:e}: {:e}, want {want:e}",
                isa.name(),
                a[i],
                b[i],
                o[i]
            );
        }
    }
}

/// Every float32 input, every function (one with `VMATH_FN=tanh`), on the widest instruction
/// set (all of them with `VMATH_ALL_ISAS=1`): the figures of `docs/performance.md`.
/// `cargo test --release -p cupy-cpu exhaustive_f32 -- --ignored --nocapture`.
#[test]
#[ignore]
fn exhaustive_f32() {
    use rayon::prelude::*;
    let only = std::env::var("VMATH_FN").ok();
    let names: Vec<&str> = ["exp", "log", "sin", "cos", "tanh"]
        .into_iter()
        .filter(|n| only.as_deref().is_none_or(|o| o == *n))
        .collect();
    let sets = if std::env::var_os("VMATH_ALL_ISAS").is_some() {
        isas()
    } else {
        vec![Isa::detect()]
    };
    for isa in sets {
        for &name in &names {
            let worst = (0..256u32)
                .into_par_iter()
                .map(|hi| {
                    let xs: Vec<f32> = (0..1u32 << 24)
                        .map(|lo| f32::from_bits(hi << 24 | lo))
                        .collect();
                    match name {
                        "exp" => worst1_32::<f32x::Exp>(isa, &xs, f64::exp),
                        "log" => worst1_32::<f32x::Log>(isa, &xs, f64::ln),
                        "sin" => worst1_32::<f32x::Sin>(isa, &xs, f64::sin),
                        "cos" => worst1_32::<f32x::Cos>(isa, &xs, f64::cos),
                        _ => worst1_32::<f32x::Tanh>(isa, &xs, f64::tanh),
                    }
                })
                .reduce(|| (0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
            println!(
                "{} {name} f32, all 2^32 inputs: max {} ulps at {:e}",
                isa.name(),
                worst.0,
                worst.1
            );
        }
    }
}

/// float32 pow over a stride through every float32 base (subnormals, both signs, specials)
/// with a few exponents, against float64's pow rounded once.
#[test]
fn pow_f32_sweep() {
    let xs = f32_sweep(4093);
    for isa in isas() {
        for y in [0.5f32, 2.5, -1.5, 7.0, -3.0, 33.3, 1e-3, -100.0, 0.0] {
            let ys = vec![y; xs.len()];
            let mut o = vec![0f32; xs.len()];
            map2::<pow::PowF32>(isa, &xs, &ys, &mut o);
            for (&x, &v) in xs.iter().zip(&o) {
                if x.is_nan() && y == 0.0 {
                    // C gives 1 for a quiet NaN, NaN for a signaling one (widening quiets it).
                    assert!(v == 1.0 || v.is_nan());
                    continue;
                }
                let want = (x as f64).powf(y as f64) as f32;
                let d = ulps32(v, want);
                assert!(
                    d <= 1,
                    "{} pow f32 {x:e} ** {y:e}: {v:e}, want {want:e}",
                    isa.name()
                );
            }
        }
    }
}
