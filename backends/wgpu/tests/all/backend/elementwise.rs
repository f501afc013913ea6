//! Elementwise launches: vec4 and tails, strided/broadcast/reversed/transposed operands, integer
//! and float semantics, casts, fills, size 0 and 0-d.

use super::*;

#[test]
fn add_f32_contiguous_vec4_and_tail() {
    let d = dev_or_skip!();
    for n in [1usize, 3, 4, 5, 1003, 70000] {
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
        let r: Vec<f32> = bin_vals(&d, B::Add, &a, &b);
        for i in 0..n {
            assert_eq!(r[i], a[i] + b[i], "n={n} i={i}");
        }
    }
}

#[test]
fn strided_operands_broadcast_reversed_transposed_offset() {
    let d = dev_or_skip!();
    let k = bin(B::Sub, DType::Float32);
    let (r, c) = (37usize, 53usize);
    let a: Vec<f32> = (0..r * c).map(|i| i as f32).collect();
    let row: Vec<f32> = (0..c).map(|i| (i * 1000) as f32).collect();
    let (ab, rb) = (up(&d, &a), up(&d, &row));
    let out = d.alloc(DType::Float32, r * c).unwrap();
    // broadcast row (stride 0 on axis 0), a reversed on axis 0
    let a_rev = Layout {
        shape: vec![r, c],
        strides: vec![-(c as isize), 1],
        offset: (r - 1) * c,
    };
    let row_b = Layout {
        shape: vec![r, c],
        strides: vec![0, 1],
        offset: 0,
    };
    run(
        &d,
        &k,
        &[r, c],
        vec![op(&ab, a_rev), op(&rb, row_b)],
        vec![op(&out, Layout::contiguous(&[r, c]))],
        vec![],
    );
    let o: Vec<f32> = down(&d, &out);
    for i in 0..r {
        for j in 0..c {
            assert_eq!(o[i * c + j], a[(r - 1 - i) * c + j] - row[j]);
        }
    }
    // transposed input (shape [c, r], strides [1, c]) into a contiguous output
    let t = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    let zero = Layout {
        shape: vec![c, r],
        strides: vec![0, 0],
        offset: 0,
    };
    let zb = up(&d, &[0.0f32]);
    run(
        &d,
        &k,
        &[c, r],
        vec![op(&ab, t), op(&zb, zero)],
        vec![op(&out, Layout::contiguous(&[c, r]))],
        vec![],
    );
    let o: Vec<f32> = down(&d, &out);
    for i in 0..c {
        for j in 0..r {
            assert_eq!(o[i * r + j], a[j * c + i]);
        }
    }
    // offset views (not a multiple of 4: scalar contiguous path), output a strided view
    let n = 100;
    let l_in = Layout {
        shape: vec![n],
        strides: vec![1],
        offset: 3,
    };
    let l_out = Layout {
        shape: vec![n],
        strides: vec![2],
        offset: 1,
    };
    let out2 = up(&d, &vec![-1.0f32; 2 * n + 1]);
    run(
        &d,
        &k,
        &[n],
        vec![op(&ab, l_in.clone()), op(&ab, Layout { offset: 1, ..l_in })],
        vec![op(&out2, l_out)],
        vec![],
    );
    let o: Vec<f32> = down(&d, &out2);
    for i in 0..n {
        assert_eq!(o[1 + 2 * i], 2.0);
        assert_eq!(o[2 * i], -1.0);
    }
}

#[test]
fn integer_semantics() {
    let d = dev_or_skip!();
    // int8 wrap, floor division, modulo, division by zero, pow, shifts
    let a: Vec<i8> = vec![100, -7, -7, 7, 3, 1, -128, 5, -128, 127];
    let b: Vec<i8> = vec![100, 2, -2, 0, 5, 7, 10, 0, -1, 1];
    let r: Vec<i8> = bin_vals(&d, B::Add, &a, &b);
    assert_eq!(
        r,
        a.iter()
            .zip(&b)
            .map(|(x, y)| x.wrapping_add(*y))
            .collect::<Vec<_>>()
    );
    let r: Vec<i8> = bin_vals(&d, B::FloorDiv, &a, &b);
    assert_eq!(r, vec![1, -4, 3, 0, 0, 0, -13, 0, -128, 127]);
    let r: Vec<i8> = bin_vals(&d, B::Mod, &a, &b);
    assert_eq!(r, vec![0, 1, -1, 0, 3, 1, 2, 0, 0, 0]);
    let r: Vec<i8> = bin_vals(&d, B::Div, &a, &b);
    assert_eq!(r, vec![1, -3, 3, 0, 0, 0, -12, 0, -128, 127]);
    let r: Vec<i8> = bin_vals(&d, B::Pow, &a, &b);
    let exp: Vec<i8> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| {
            if y < 0 {
                if x == 1 {
                    1
                } else if x == -1 {
                    if y % 2 != 0 {
                        -1
                    } else {
                        1
                    }
                } else {
                    0
                }
            } else {
                x.wrapping_pow(y as u32)
            }
        })
        .collect();
    assert_eq!(r, exp);
    let r: Vec<i8> = bin_vals(&d, B::Shl, &[1i8, 1, 3, 1], &[7, 8, 2, -1]);
    assert_eq!(r, vec![-128, 0, 12, 0]);
    let r: Vec<i8> = bin_vals(&d, B::Shr, &[-128i8, 64, -1, 64], &[10, 3, 1, 9]);
    assert_eq!(r, vec![-1, 8, -1, 0]);
    // uint8 / uint16 wrap
    let r: Vec<u8> = bin_vals(&d, B::Sub, &[3u8, 200], &[5, 100]);
    assert_eq!(r, vec![254, 100]);
    let r: Vec<u16> = bin_vals(&d, B::Mul, &[300u16, 2], &[300, 3]);
    assert_eq!(r, vec![(300u32 * 300 % 65536) as u16, 6]);
    // int32 / uint32 corner cases
    let r: Vec<i32> = bin_vals(&d, B::FloorDiv, &[i32::MIN, -1, 7], &[-1, 0, -2]);
    assert_eq!(r, vec![i32::MIN, 0, -4]);
    let r: Vec<u32> = bin_vals(&d, B::Mod, &[7u32, 5], &[0, 3]);
    assert_eq!(r, vec![0, 2]);
    let r: Vec<i32> = bin_vals(&d, B::Max, &[1, -5], &[-1, 3]);
    assert_eq!(r, vec![1, 3]);
    // int64 / uint64 (if supported)
    if d.supports_dtype(DType::Int64).is_ok() {
        let r: Vec<i64> = bin_vals(&d, B::Mul, &[i64::MAX, 1 << 40, -3], &[2, 1 << 20, 7]);
        assert_eq!(r, vec![i64::MAX.wrapping_mul(2), 1 << 60, -21]);
        let r: Vec<i64> = bin_vals(&d, B::FloorDiv, &[-7i64, 1 << 50], &[2, 3]);
        assert_eq!(r, vec![-4, (1i64 << 50) / 3]);
        let r: Vec<u64> = bin_vals(&d, B::Add, &[u64::MAX, 1 << 63], &[2, 1]);
        assert_eq!(r, vec![1, (1 << 63) + 1]);
    }
    // comparisons give bool
    let r: Vec<bool> = bin_vals(&d, B::Lt, &[1i16, 5, -3], &[2, 5, -4]);
    assert_eq!(r, vec![true, false, false]);
    let r: Vec<bool> = bin_vals(&d, B::Xor, &[true, true, false], &[true, false, false]);
    assert_eq!(r, vec![false, true, false]);
}

#[test]
fn float_semantics_f32_f16_bf16_f64() {
    let d = dev_or_skip!();
    let nan = f32::NAN;
    let r: Vec<f32> = bin_vals(
        &d,
        B::Max,
        &[1.0f32, nan, 2.0, -0.5],
        &[nan, 1.0, 3.0, -1.0],
    );
    assert!(r[0].is_nan() && r[1].is_nan());
    assert_eq!(&r[2..], &[3.0, -0.5]);
    let r: Vec<f32> = bin_vals(&d, B::FMin, &[1.0f32, nan, 2.0], &[nan, 1.0, 3.0]);
    assert_eq!(r, vec![1.0, 1.0, 2.0]);
    let r: Vec<f32> = bin_vals(
        &d,
        B::Mod,
        &[7.0f32, -7.0, 7.0, 5.5],
        &[3.0, 3.0, -3.0, 0.0],
    );
    assert_eq!(&r[..3], &[1.0, 2.0, -2.0]);
    assert!(r[3].is_nan());
    let r: Vec<f32> = bin_vals(&d, B::FloorDiv, &[7.0f32, -7.0], &[2.0, 2.0]);
    assert_eq!(r, vec![3.0, -4.0]);
    let r: Vec<f32> = bin_vals(
        &d,
        B::Pow,
        &[-2.0f32, 2.0, -8.0, 0.0, 3.0],
        &[3.0, 0.5, 1.0 / 3.0, -1.0, 2.0],
    );
    assert_eq!(r[0], -8.0);
    assert!((r[1] - 2f32.sqrt()).abs() < 1e-6);
    assert!(r[2].is_nan());
    assert_eq!(r[3], f32::INFINITY);
    assert_eq!(r[4], 9.0);
    let r: Vec<bool> = bin_vals(&d, B::Ne, &[nan, 1.0], &[nan, 1.0]);
    assert_eq!(r, vec![true, false]);
    // float16: computed in f32, rounded on store
    let a: Vec<f16> = [1.0f32, 65504.0, 0.1, 1e-7]
        .iter()
        .map(|&x| f16::from_f32(x))
        .collect();
    let b: Vec<f16> = [0.0004f32, 32.0, 0.2, 1e-7]
        .iter()
        .map(|&x| f16::from_f32(x))
        .collect();
    let r: Vec<f16> = bin_vals(&d, B::Add, &a, &b);
    for i in 0..4 {
        assert_eq!(
            r[i].to_bits(),
            f16::from_f32(a[i].to_f32() + b[i].to_f32()).to_bits(),
            "{i}"
        );
    }
    let a: Vec<bf16> = [1.0f32, 3.0e38, 0.1]
        .iter()
        .map(|&x| bf16::from_f32(x))
        .collect();
    let b: Vec<bf16> = [0.003f32, 3.0e38, 0.2]
        .iter()
        .map(|&x| bf16::from_f32(x))
        .collect();
    let r: Vec<bf16> = bin_vals(&d, B::Mul, &a, &b);
    for i in 0..3 {
        assert_eq!(
            r[i].to_bits(),
            bf16::from_f32(a[i].to_f32() * b[i].to_f32()).to_bits(),
            "{i}"
        );
    }
    if d.supports_dtype(DType::Float64).is_ok() {
        let r: Vec<f64> = bin_vals(&d, B::Div, &[1.0f64, 2.0], &[3.0, 7.0]);
        assert_eq!(r, vec![1.0 / 3.0, 2.0 / 7.0]);
        let k = Kernel::map(
            "sqrt",
            vec![DType::Float64],
            vec![],
            Expr::unary(U::Sqrt, Expr::input(0, DType::Float64)),
        );
        let x = up(&d, &[2.0f64, 1e300]);
        let z = d.alloc(DType::Float64, 2).unwrap();
        run(
            &d,
            &k,
            &[2],
            vec![op(&x, Layout::contiguous(&[2]))],
            vec![op(&z, Layout::contiguous(&[2]))],
            vec![],
        );
        assert_eq!(down::<f64>(&d, &z), vec![2f64.sqrt(), 1e150]);
        // exp on f64 runs in software (Vulkan's builtin is float32-only): e^2, e^1e300 = inf.
        let k = Kernel::map(
            "exp",
            vec![DType::Float64],
            vec![],
            Expr::unary(U::Exp, Expr::input(0, DType::Float64)),
        );
        run(
            &d,
            &k,
            &[2],
            vec![op(&x, Layout::contiguous(&[2]))],
            vec![op(&z, Layout::contiguous(&[2]))],
            vec![],
        );
        assert_eq!(down::<f64>(&d, &z), vec![2f64.exp(), f64::INFINITY]);
    }
    // f32 math functions
    let k = Kernel::map(
        "exp",
        vec![DType::Float32],
        vec![],
        Expr::unary(U::Exp, Expr::input(0, DType::Float32)),
    );
    let xs = [0.0f32, 1.0, -2.5, 10.0];
    let x = up(&d, &xs);
    let z = d.alloc(DType::Float32, 4).unwrap();
    run(
        &d,
        &k,
        &[4],
        vec![op(&x, Layout::contiguous(&[4]))],
        vec![op(&z, Layout::contiguous(&[4]))],
        vec![],
    );
    for (g, x) in down::<f32>(&d, &z).iter().zip(xs) {
        assert!((g - x.exp()).abs() <= 1e-5 * x.exp(), "{g} vs {}", x.exp());
    }
}

#[test]
fn casts_like_numpy_astype() {
    let d = dev_or_skip!();
    let cast = |xs: &[f32], to: DType| -> Vec<u8> {
        let k = Kernel::map(
            "cast",
            vec![DType::Float32],
            vec![],
            Expr::input(0, DType::Float32).cast(to),
        );
        let x = up(&d, xs);
        let z = d.alloc(to, xs.len()).unwrap();
        let l = Layout::contiguous(&[xs.len()]);
        run(
            &d,
            &k,
            &[xs.len()],
            vec![op(&x, l.clone())],
            vec![op(&z, l)],
            vec![],
        );
        d.read(&z, 0, xs.len()).unwrap()
    };
    let xs = [-1.0f32, 300.7, 3e9, -3e9, f32::NAN, 0.5, -0.9];
    for to in [
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::Bool,
        DType::Float16,
        DType::BFloat16,
    ] {
        let got = cast(&xs, to);
        let mut exp = vec![0u8; xs.len() * to.itemsize()];
        for (i, x) in xs.iter().enumerate() {
            Scalar::Float32(*x)
                .cast(to)
                .write_le_bytes(&mut exp[i * to.itemsize()..(i + 1) * to.itemsize()]);
        }
        if to == DType::Float16 || to == DType::BFloat16 {
            // NaN payloads may differ; compare as values
            for i in 0..xs.len() {
                let g = Scalar::from_le_bytes(to, &got[i * 2..]).to_f64();
                let e = Scalar::from_le_bytes(to, &exp[i * 2..]).to_f64();
                assert!(g == e || (g.is_nan() && e.is_nan()), "{to} {i}: {g} vs {e}");
            }
        } else {
            assert_eq!(got, exp, "cast to {to}");
        }
    }
    // int -> float, bool -> int, int -> narrower int
    let k = Kernel::map(
        "cast",
        vec![DType::Int32],
        vec![],
        Expr::input(0, DType::Int32).cast(DType::UInt8),
    );
    let x = up(&d, &[-1i32, 256, 300]);
    let z = d.alloc(DType::UInt8, 3).unwrap();
    let l = Layout::contiguous(&[3]);
    run(
        &d,
        &k,
        &[3],
        vec![op(&x, l.clone())],
        vec![op(&z, l.clone())],
        vec![],
    );
    assert_eq!(down::<u8>(&d, &z), vec![255, 0, 44]);
    let k = Kernel::map(
        "cast",
        vec![DType::Bool],
        vec![],
        Expr::input(0, DType::Bool).cast(DType::Float32),
    );
    let x = up(&d, &[true, false, true]);
    let z = d.alloc(DType::Float32, 3).unwrap();
    run(
        &d,
        &k,
        &[3],
        vec![op(&x, l.clone())],
        vec![op(&z, l)],
        vec![],
    );
    assert_eq!(down::<f32>(&d, &z), vec![1.0, 0.0, 1.0]);
}

#[test]
fn fill_arange_size0_and_0d() {
    let d = dev_or_skip!();
    for t in [
        DType::Bool,
        DType::Int8,
        DType::UInt16,
        DType::Int32,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Int64,
        DType::UInt64,
    ] {
        if d.supports_dtype(t).is_err() {
            continue;
        }
        let k = Kernel::map("fill", vec![], vec![t], Expr::param(0, t));
        let n = 1030;
        let z = d.alloc(t, n).unwrap();
        let v = Scalar::Float64(7.0).cast(t);
        run(
            &d,
            &k,
            &[n],
            vec![],
            vec![op(&z, Layout::contiguous(&[n]))],
            vec![v],
        );
        let got = d.read(&z, 0, n).unwrap();
        let mut one = vec![0u8; t.itemsize()];
        v.write_le_bytes(&mut one);
        assert_eq!(got, one.repeat(n), "fill {t}");
    }
    // arange in float64 params cast to int32 and f32
    let f = DType::Float64;
    for t in [DType::Int32, DType::Float32] {
        let body = Expr::binary(
            B::Add,
            Expr::param(0, f),
            Expr::binary(B::Mul, Expr::index().cast(f), Expr::param(1, f)),
        )
        .cast(t);
        let k = Kernel::map("arange", vec![], vec![f, f], body);
        if d.supports_dtype(f).is_err() {
            break;
        }
        let n = 1000;
        let z = d.alloc(t, n).unwrap();
        run(
            &d,
            &k,
            &[n],
            vec![],
            vec![op(&z, Layout::contiguous(&[n]))],
            vec![Scalar::Float64(-3.0), Scalar::Float64(0.5)],
        );
        let got = d.read(&z, 0, n).unwrap();
        for i in 0..n {
            let e = Scalar::Float64(-3.0 + i as f64 * 0.5).cast(t);
            assert_eq!(Scalar::from_le_bytes(t, &got[i * t.itemsize()..]), e);
        }
    }
    // size-0 launch is a no-op; 0-d is shape [1]
    let k = bin(B::Add, DType::Float32);
    let x = up(&d, &[1.0f32, 2.0]);
    let z = up(&d, &[5.0f32, 5.0]);
    run(
        &d,
        &k,
        &[0],
        vec![
            op(&x, Layout::contiguous(&[0])),
            op(&x, Layout::contiguous(&[0])),
        ],
        vec![op(&z, Layout::contiguous(&[0]))],
        vec![],
    );
    let l = Layout {
        shape: vec![1],
        strides: vec![0],
        offset: 1,
    };
    run(
        &d,
        &k,
        &[1],
        vec![op(&x, l.clone()), op(&x, l.clone())],
        vec![op(&z, Layout::contiguous(&[1]))],
        vec![],
    );
    assert_eq!(down::<f32>(&d, &z), vec![4.0, 5.0]);
    // in-place (input aliases output)
    let l = Layout::contiguous(&[2]);
    run(
        &d,
        &k,
        &[2],
        vec![op(&z, l.clone()), op(&x, l.clone())],
        vec![op(&z, l)],
        vec![],
    );
    assert_eq!(down::<f32>(&d, &z), vec![5.0, 7.0]);
}
