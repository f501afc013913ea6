//! Elementwise kernels in CuPy's kernel language: arithmetic, loops, branches, casts, integer
//! and float semantics, raw arrays, multiple outputs, preambles.

use super::*;

#[test]
fn squared_diff() {
    let y: Vec<f32> = XS32.iter().map(|v| v * 0.5 + 1.0).collect();
    let r = ew(
        "float32 x, float32 y",
        "float32 z",
        "z = (x - y) * (x - y)",
        vec![arr(&XS32), arr(&y)],
        8,
    );
    let want: Vec<f64> = XS32
        .iter()
        .zip(&y)
        .map(|(a, b)| ((a - b) * (a - b)) as f64)
        .collect();
    close(&r, &want, 0);
}

#[test]
fn add_reverse_raw() {
    let x: Vec<i32> = (0..10).collect();
    let y: Vec<i32> = (0..10).map(|v| v * 100).collect();
    let r = ew(
        "T x, raw T y",
        "T z",
        "z = x + y[_ind.size() - i - 1]",
        vec![arr(&x), raw(&y)],
        10,
    );
    let want: Vec<i128> = (0..10).map(|i| (i + (9 - i) * 100) as i128).collect();
    assert_eq!(ints(&r), want);
    assert_eq!(r[0].dtype(), Int32);
}

#[test]
fn polynomial_horner_loop() {
    let x: Vec<f64> = (0..7).map(|k| k as f64 * 0.3 - 1.0).collect();
    let coef = [1.0f64, -2.0, 0.5, 3.0];
    let r = ew(
        "T x, raw T coef, int32 n",
        "T y",
        "T acc = 0; for (int j = n - 1; j >= 0; j--) { acc = acc * x + coef[j]; } y = acc;",
        vec![arr(&x), raw(&coef), s(4i32)],
        7,
    );
    let want: Vec<f64> = x
        .iter()
        .map(|&v| coef.iter().rev().fold(0.0, |a, c| a * v + c))
        .collect();
    close(&r, &want, 0);
}

#[test]
fn clamp_if_else_scalars() {
    let r = ew(
        "T x, T lo, T hi",
        "T y",
        "if (x < lo) y = lo; else if (x > hi) y = hi; else y = x;",
        vec![arr(&XS32), s(-1.0f32), s(2.0f32)],
        8,
    );
    let want: Vec<f64> = XS32.iter().map(|v| v.clamp(-1.0, 2.0) as f64).collect();
    close(&r, &want, 0);
}

#[test]
fn relu_sigmoid_logit_softplus() {
    let r = ew("T x", "T y", "y = x > 0 ? x : 0", vec![arr(&XS32)], 8);
    close(
        &r,
        &XS32.iter().map(|v| v.max(0.0) as f64).collect::<Vec<_>>(),
        0,
    );
    let r = ew("T x", "T y", "y = 1 / (1 + exp(-x))", vec![arr(&XS32)], 8);
    let want: Vec<f64> = XS32
        .iter()
        .map(|v| (1.0 / (1.0 + (-v).exp())) as f64)
        .collect();
    close(&r, &want, 4);
    assert_eq!(r[0].dtype(), Float32);
    let p: Vec<f64> = (1..10).map(|k| k as f64 / 10.0).collect();
    let r = ew("T x", "T y", "y = log(x / (1 - x))", vec![arr(&p)], 9);
    close(
        &r,
        &p.iter().map(|v| (v / (1.0 - v)).ln()).collect::<Vec<_>>(),
        4,
    );
    let xs: Vec<f64> = vec![-30.0, -5.0, -1e-10, 0.0, 1e-8, 3.0, 25.0];
    let r = ew(
        "T x",
        "T y",
        "y = x > 20 ? x : log1p(exp(x))",
        vec![arr(&xs)],
        7,
    );
    let want: Vec<f64> = xs
        .iter()
        .map(|&v| if v > 20.0 { v } else { v.exp().ln_1p() })
        .collect();
    close(&r, &want, 4);
}

#[test]
fn saxpy_scalar_param() {
    let y: Vec<f32> = XS32.iter().map(|v| v * 3.0).collect();
    let r = ew(
        "float32 a, float32 x, float32 y",
        "float32 z",
        "z = a * x + y",
        vec![s(2.5f32), arr(&XS32), arr(&y)],
        8,
    );
    let want: Vec<f64> = XS32
        .iter()
        .zip(&y)
        .map(|(x, y)| (2.5f32 * x + y) as f64)
        .collect();
    close(&r, &want, 0);
}

#[test]
fn integer_bit_tricks() {
    let x: Vec<u32> = vec![0, 1, 2, 3, 7, 8, 255, 0xdead_beef, u32::MAX];
    let r = ew(
        "uint32 x",
        "int32 c",
        "int n = 0; unsigned v = x; for (int b = 0; b < 32; b++) { n += (v >> b) & 1; } c = n;",
        vec![arr(&x)],
        9,
    );
    assert_eq!(
        ints(&r),
        x.iter().map(|v| v.count_ones() as i128).collect::<Vec<_>>()
    );
    let r = ew(
        "uint32 x",
        "bool p",
        "p = x != 0 && (x & (x - 1)) == 0",
        vec![arr(&x)],
        9,
    );
    assert_eq!(
        ints(&r),
        x.iter()
            .map(|v| v.is_power_of_two() as i128)
            .collect::<Vec<_>>()
    );
    let r = ew("uint32 x", "uint32 g", "g = x ^ (x >> 1)", vec![arr(&x)], 9);
    assert_eq!(
        ints(&r),
        x.iter().map(|v| (v ^ (v >> 1)) as i128).collect::<Vec<_>>()
    );
    let r = ew(
        "int32 x",
        "int32 y",
        "int v = x; v <<= 2; v |= 1; v ^= 3; v %= 7; v -= 1; y = ~v;",
        vec![arr(&[5i32, -9, 100, 0])],
        4,
    );
    let f = |x: i32| {
        let mut v = x << 2;
        v |= 1;
        v ^= 3;
        v %= 7;
        v -= 1;
        !v
    };
    assert_eq!(ints(&r), [5, -9, 100, 0].map(|v| f(v) as i128).to_vec());
}

#[test]
fn c_remainder_and_truncating_division() {
    let a = [-7i32, 7, -7, 7, 0, i32::MIN];
    let b = [3i32, -3, -3, 3, 5, -1];
    let out = ew_init(
        "int32 a, int32 b",
        "int32 q, int32 m",
        "q = a / b; m = a % b",
        "",
        vec![arr(&a), arr(&b)],
        vec![],
        6,
    );
    let wq: Vec<i128> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| x.wrapping_div(*y) as i128)
        .collect();
    let wm: Vec<i128> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| x.wrapping_rem(*y) as i128)
        .collect();
    assert_eq!(ints(&out[0]), wq);
    assert_eq!(ints(&out[1]), wm);
    assert_eq!(ints(&out[1])[..4], [-1, 1, -1, 1]);
}

#[test]
fn weak_literals_keep_float32() {
    let r = ew(
        "float32 x",
        "float32 y",
        "y = x * 0.1 + 1.5 - 2 * M_PI",
        vec![arr(&XS32)],
        8,
    );
    let c = (2.0 * std::f64::consts::PI) as f32;
    let want: Vec<f64> = XS32
        .iter()
        .map(|v| (v * 0.1f32 + 1.5f32 - c) as f64)
        .collect();
    close(&r, &want, 0);
    // The same with a double cast computes in float64.
    let r = ew(
        "float32 x",
        "float64 y",
        "y = (double)x * 0.1",
        vec![arr(&XS32)],
        8,
    );
    close(
        &r,
        &XS32.iter().map(|&v| v as f64 * 0.1).collect::<Vec<_>>(),
        0,
    );
}

#[test]
fn float16_kernel() {
    let x: Vec<f16> = XS32.iter().map(|&v| f16::from_f32(v)).collect();
    let r = ew("T x", "T y", "y = x * 2.0 + 1", vec![arr(&x)], 8);
    assert_eq!(r[0].dtype(), Float16);
    let want: Vec<f64> = x
        .iter()
        .map(|v| f16::from_f32(v.to_f32() * 2.0 + 1.0).to_f64())
        .collect();
    assert_eq!(f64s(&r), want);
}

#[test]
fn output_read_accumulate() {
    let out = ew_init(
        "float32 x",
        "float32 y",
        "y += x",
        "",
        vec![arr(&XS32)],
        vec![(0..8).map(|k| Scalar::Float32(k as f32)).collect()],
        8,
    );
    let want: Vec<f64> = XS32
        .iter()
        .enumerate()
        .map(|(k, v)| (k as f32 + v) as f64)
        .collect();
    close(&out[0], &want, 0);
    // Assigned on one path only: the other keeps the incoming value.
    let out = ew_init(
        "float32 x",
        "float32 y",
        "if (x > 0) y = x;",
        "",
        vec![arr(&XS32)],
        vec![vec![Scalar::Float32(-9.0); 8]],
        8,
    );
    let want: Vec<f64> = XS32
        .iter()
        .map(|&v| if v > 0.0 { v as f64 } else { -9.0 })
        .collect();
    close(&out[0], &want, 0);
}

#[test]
fn casts() {
    let r = ew("float32 x", "int32 y", "y = (int)x", vec![arr(&XS32)], 8);
    assert_eq!(
        ints(&r),
        XS32.iter().map(|&v| v as i32 as i128).collect::<Vec<_>>()
    );
    let r = ew(
        "int32 x",
        "int32 y",
        "y = (unsigned char)x + static_cast<short>(x) * 0 + int(1.9)",
        vec![arr(&[300i32, -1, 5])],
        3,
    );
    assert_eq!(ints(&r), vec![44 + 1, 255 + 1, 5 + 1]);
    let r = ew(
        "uint32 x",
        "uint32 y",
        "y = x - 1u",
        vec![arr(&[0u32, 5])],
        2,
    );
    assert_eq!(ints(&r), vec![u32::MAX as i128, 4]);
}

#[test]
fn ternaries_and_logic() {
    let r = ew(
        "float32 x",
        "int32 y",
        "y = x < -1 ? -2 : x < 0 ? -1 : x == 0 ? 0 : x <= 1 ? 1 : 2",
        vec![arr(&XS32)],
        8,
    );
    let f = |v: f32| {
        if v < -1.0 {
            -2
        } else if v < 0.0 {
            -1
        } else if v == 0.0 {
            0
        } else if v <= 1.0 {
            1
        } else {
            2
        }
    };
    assert_eq!(
        ints(&r),
        XS32.iter().map(|&v| f(v) as i128).collect::<Vec<_>>()
    );
    let y: Vec<f32> = XS32.iter().rev().copied().collect();
    let r = ew(
        "float32 x, float32 y",
        "bool z",
        "z = (x > 0 && y > 0) || !(x != y)",
        vec![arr(&XS32), arr(&y)],
        8,
    );
    let want: Vec<i128> = XS32
        .iter()
        .zip(&y)
        .map(|(a, b)| ((*a > 0.0 && *b > 0.0) || a == b) as i128)
        .collect();
    assert_eq!(ints(&r), want);
}

#[test]
fn guarded_raw_load() {
    let x = [3.0f32, -1.0, 2.0, 5.0];
    let r = ew(
        "raw float32 x",
        "int32 y",
        "y = (i > 0 && x[i - 1] > 0) ? 1 : 0",
        vec![raw(&x)],
        4,
    );
    assert_eq!(ints(&r), vec![0, 1, 0, 1]);
}

#[test]
fn nested_and_stepped_loops() {
    let w: Vec<f64> = (0..9).map(|k| k as f64).collect();
    let r = ew(
        "float64 x, raw float64 w",
        "float64 y",
        "double s = 0;\n\
         for (int r = 0; r < 3; r++)\n\
           for (int c = 0; c < 3; ++c)\n\
             s += w[r * 3 + c] * x + r - c;\n\
         y = s;",
        vec![arr(&[1.0f64, 2.0]), raw(&w)],
        2,
    );
    let f = |x: f64| {
        let mut s = 0.0;
        for r in 0..3 {
            for c in 0..3 {
                s += w[r * 3 + c] * x + r as f64 - c as f64;
            }
        }
        s
    };
    close(&r, &[f(1.0), f(2.0)], 0);
    let r = ew(
        "int32 x, raw int32 v, int32 n",
        "int32 y",
        "int s = 0; for (int j = 1; j <= n; j += 2) s += v[j]; for (int j = n; j > 0; j -= 3) s += 100 * v[j]; y = s + x;",
        vec![arr(&[0i32]), raw(&(0..10).collect::<Vec<i32>>()), s(8i32)],
        1,
    );
    // j = 1,3,5,7 -> 16; j = 8,5,2 -> 1500.
    assert_eq!(ints(&r), vec![16 + 1500]);
}

#[test]
fn index_arithmetic_int64() {
    let r = ew(
        "int64 x",
        "int64 y",
        "y = i * i + x",
        vec![arr(&[0i64; 5])],
        5,
    );
    assert_eq!(ints(&r), vec![0, 1, 4, 9, 16]);
}

#[test]
fn multiple_outputs() {
    let y: Vec<f32> = XS32.iter().map(|v| v + 1.0).collect();
    let out = ew_init(
        "float32 x, float32 y",
        "float32 s, float32 d",
        "s = x + y; d = x - y;",
        "",
        vec![arr(&XS32), arr(&y)],
        vec![],
        8,
    );
    close(
        &out[0],
        &XS32
            .iter()
            .zip(&y)
            .map(|(a, b)| (a + b) as f64)
            .collect::<Vec<_>>(),
        0,
    );
    close(&out[1], &[-1.0; 8], 0);
}

#[test]
fn preamble_functions() {
    let pre = "__device__ float sq(float v) { return v * v; }\n\
               __device__ inline T clip(T v, T lo, T hi) {\n\
                 if (v < lo) return lo;\n\
                 if (v > hi) { return hi; }\n\
                 return v;\n\
               }";
    let out = ew_init(
        "T x",
        "T y",
        "y = sq(x) + clip(x, -1, 1)",
        pre,
        vec![arr(&XS32)],
        vec![],
        8,
    );
    let want: Vec<f64> = XS32
        .iter()
        .map(|v| (v * v + v.clamp(-1.0, 1.0)) as f64)
        .collect();
    close(&out[0], &want, 0);
}

#[test]
fn rounding_and_composed_functions() {
    let xs: Vec<f64> = vec![
        -2.5,
        -1.5,
        -0.5,
        -0.49999999999999994,
        0.5,
        1.5,
        2.5,
        3.7,
        -3.7,
        1e300,
        -0.0,
    ];
    let n = xs.len();
    let r = ew("float64 x", "float64 y", "y = round(x)", vec![arr(&xs)], n);
    close(&r, &xs.iter().map(|v| v.round()).collect::<Vec<_>>(), 0);
    let r = ew("float64 x", "float64 y", "y = rint(x)", vec![arr(&xs)], n);
    close(
        &r,
        &xs.iter().map(|v| v.round_ties_even()).collect::<Vec<_>>(),
        0,
    );
    let r = ew("float64 x", "float64 y", "y = trunc(x)", vec![arr(&xs)], n);
    close(&r, &xs.iter().map(|v| v.trunc()).collect::<Vec<_>>(), 0);
    let ys: Vec<f64> = vec![0.75, -2.0, 0.3, 1.0, -1.25, 7.0, 0.1, 2.0, 2.0, 3.0, 1.0];
    let r = ew(
        "float64 x, float64 y",
        "float64 z",
        "z = fmod(x, y)",
        vec![arr(&xs), arr(&ys)],
        n,
    );
    let want: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| a % b).collect();
    close(&r, &want, 0);
    assert!(f64s(&r)[10].is_sign_negative()); // fmod(-0.0, 1) = -0.0
    let r = ew(
        "float64 x, float64 y",
        "float64 z",
        "z = hypot(x, y) + copysign(1.0, x)",
        vec![arr(&xs[..10]), arr(&ys[..10])],
        10,
    );
    let want: Vec<f64> = xs[..10]
        .iter()
        .zip(&ys)
        .map(|(a, b)| a.hypot(*b) + 1f64.copysign(*a))
        .collect();
    close(&r, &want, 2);
    let hx = [f64::NAN, f64::INFINITY, 0.0, -3.0];
    let hy = [1.0, f64::NAN, 0.0, 4.0];
    let r = ew(
        "float64 x, float64 y",
        "float64 z",
        "z = hypot(x, y)",
        vec![arr(&hx), arr(&hy)],
        4,
    );
    let want: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| a.hypot(*b)).collect();
    close(&r, &want, 0);
    let ts: Vec<f64> = vec![-0.9, -0.3, -1e-9, 1e-12, 0.2, 0.7, 0.95];
    let m = ts.len();
    type F = fn(f64) -> f64;
    let cases: [(&str, F, u64); 10] = [
        ("log1p", f64::ln_1p, 2),
        ("expm1", f64::exp_m1, 2),
        ("sinh", f64::sinh, 4),
        ("cosh", f64::cosh, 2),
        ("asinh", f64::asinh, 4),
        ("atanh", f64::atanh, 4),
        ("atan", f64::atan, 1),
        ("asin", f64::asin, 2),
        ("acos", f64::acos, 2),
        ("log2", f64::log2, 2),
    ];
    for (name, f, tol) in cases {
        let r = ew(
            "float64 x",
            "float64 y",
            &format!("y = {name}(x)"),
            vec![arr(&ts)],
            m,
        );
        let want: Vec<f64> = ts.iter().map(|&v| f(v)).collect();
        for (g, w) in r.iter().zip(&want) {
            let d = ulps(g.to_f64(), *w, Float64);
            assert!(d <= tol, "{name}: got {g:?}, want {w} ({d} ulps)");
        }
    }
    // Large arguments: no spurious overflow in the compositions.
    let big = [800.0f64, -800.0, 1e200, -1e300, 3e8];
    for (name, f, tol) in [
        ("sinh", f64::sinh as F, 2u64),
        ("cosh", f64::cosh, 2),
        ("asinh", f64::asinh, 2),
    ] {
        let r = ew(
            "float64 x",
            "float64 y",
            &format!("y = {name}(x)"),
            vec![arr(&big)],
            5,
        );
        let want: Vec<f64> = big.iter().map(|&v| f(v)).collect();
        close(&r, &want, tol);
    }
    let r = ew(
        "float64 x",
        "float64 y",
        "y = acosh(x)",
        vec![arr(&[1e200f64, 3e8, 1.0])],
        3,
    );
    close(&r, &[1e200f64.acosh(), 3e8f64.acosh(), 0.0], 2);
    let r = ew(
        "float64 x",
        "float64 y",
        "y = acosh(x) + log10(x) + exp2(x) + rsqrt(x)",
        vec![arr(&[1.5f64, 10.0, 100.0])],
        3,
    );
    let want: Vec<f64> = [1.5f64, 10.0, 100.0]
        .iter()
        .map(|v| v.acosh() + v.log10() + v.exp2() + 1.0 / v.sqrt())
        .collect();
    close(&r, &want, 4);
}

#[test]
fn nan_inf_tests() {
    let xs = [f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0, 0.0];
    let r = ew(
        "float32 x",
        "int32 y",
        "y = isnan(x) ? -1 : (isinf(x) ? 1 : (isfinite(x) ? 2 : 3))",
        vec![arr(&xs)],
        5,
    );
    assert_eq!(ints(&r), vec![-1, 1, 1, 2, 2]);
    let r = ew(
        "float32 x",
        "float32 y",
        "y = fmax(x, 0.5f) + fminf(x, INFINITY)",
        vec![arr(&xs)],
        5,
    );
    let want: Vec<f64> = xs
        .iter()
        .map(|v| (v.max(0.5) + v.min(f32::INFINITY)) as f64)
        .collect();
    close(&r, &want, 0);
}
