//! The provider, buffers, and the arithmetic of every op and cast (NumPy semantics).

use super::*;

#[test]
fn provider_and_info() {
    let p = CpuProvider;
    let d = p.probe().unwrap();
    assert_eq!(d.len(), 1);
    assert!(d[0].name.starts_with("cpu ("), "{}", d[0].name);
    assert!(p.open(0).is_ok());
    assert!(p.open(1).is_err());
}

#[test]
fn alloc_write_read_and_errors() {
    let be = be();
    let b = up(&be, &[1.0f64, 2.0, 3.0]);
    assert_eq!(down::<f64>(&be, &b), vec![1.0, 2.0, 3.0]);
    assert!(be.write(&b, 2, &[0u8; 16]).is_err());
    assert!(be.read(&b, 1, 3).is_err());
    assert!(be.write(&b, 0, &[0u8; 5]).is_err());
    match be.alloc(Float64, usize::MAX / 4) {
        Err(Error::OutOfMemory { .. }) => {}
        other => panic!("{other:?}"),
    }
    match be.alloc(Float64, 1 << 58) {
        Err(Error::OutOfMemory { .. }) => {}
        other => panic!("{other:?}"),
    }
    let z = be.alloc(Complex128, 0).unwrap();
    assert_eq!(be.read(&z, 0, 0).unwrap().len(), 0);
    be.synchronize().unwrap();
}

#[test]
fn add_f32_small_and_large() {
    let a: Vec<f32> = (0..100_003).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..100_003).map(|i| 1.0 - i as f32).collect();
    let r: Vec<f32> = binop(B::Add, &a, &b);
    for i in 0..a.len() {
        assert_eq!(r[i], a[i] + b[i]);
    }
    let r: Vec<f32> = binop(B::Mul, &a[..3], &b[..3]);
    assert_eq!(r, vec![0.0, 0.0, -1.0]);
}

#[test]
fn integer_wraparound() {
    assert_eq!(
        binop::<i8, i8>(B::Add, &[100, -128], &[100, -1]),
        vec![-56, 127]
    );
    assert_eq!(binop::<u8, u8>(B::Sub, &[0, 5], &[1, 3]), vec![255, 2]);
    assert_eq!(binop::<i32, i32>(B::Mul, &[i32::MAX], &[2]), vec![-2]);
    assert_eq!(unop::<i8, i8>(U::Neg, &[-128, 5]), vec![-128, -5]);
    assert_eq!(unop::<i16, i16>(U::Abs, &[i16::MIN, -3]), vec![i16::MIN, 3]);
    assert_eq!(unop::<u16, u16>(U::BitNot, &[0]), vec![65535]);
}

#[test]
fn integer_division_numpy() {
    let a = [7i32, -7, 7, -7, 5, i32::MIN, 0];
    let b = [2i32, 2, -2, -2, 0, -1, 3];
    assert_eq!(
        binop::<i32, i32>(B::Div, &a, &b),
        vec![3, -3, -3, 3, 0, i32::MIN, 0]
    );
    assert_eq!(
        binop::<i32, i32>(B::FloorDiv, &a, &b),
        vec![3, -4, -4, 3, 0, i32::MIN, 0]
    );
    assert_eq!(
        binop::<i32, i32>(B::Mod, &a, &b),
        vec![1, 1, -1, -1, 0, 0, 0]
    );
    assert_eq!(binop::<u8, u8>(B::FloorDiv, &[7, 9], &[2, 0]), vec![3, 0]);
    assert_eq!(binop::<u64, u64>(B::Mod, &[7, 9], &[4, 0]), vec![3, 0]);
    assert_eq!(
        binop::<i64, i64>(B::Mod, &[-1], &[i64::MAX]),
        vec![i64::MAX - 1]
    );
}

#[test]
fn float_division_numpy() {
    let a = [7.5f64, -7.5, 7.5, -7.5, 0.0, 1.0, -1.0, 1.0, 6.0];
    let b = [2.0f64, 2.0, -2.0, -2.0, -2.0, 0.0, 0.0, f64::INFINITY, 3.0];
    let fd: Vec<f64> = binop(B::FloorDiv, &a, &b);
    let md: Vec<f64> = binop(B::Mod, &a, &b);
    assert_eq!(&fd[..4], &[3.0, -4.0, -4.0, 3.0]);
    assert_eq!(&md[..4], &[1.5, 0.5, -0.5, -1.5]);
    // 0 // -2 = -0.0, 0 % -2 = -0.0 (sign of divisor)
    assert!(fd[4] == 0.0 && fd[4].is_sign_negative());
    assert!(md[4] == 0.0 && md[4].is_sign_negative());
    assert_eq!(fd[5], f64::INFINITY);
    assert_eq!(fd[6], f64::NEG_INFINITY);
    assert!(md[5].is_nan() && md[6].is_nan());
    assert_eq!(fd[7], 0.0);
    assert_eq!(md[7], 1.0);
    assert_eq!((fd[8], md[8]), (2.0, 0.0));
    let r: Vec<f32> = binop(B::Mod, &[-1.0f32, 5.0], &[f32::INFINITY, -3.0]);
    assert_eq!(r, vec![f32::INFINITY, -1.0]);
}

#[test]
fn max_min_nan() {
    let n = f64::NAN;
    let a = [1.0, n, 3.0, n];
    let b = [2.0, 1.0, n, n];
    let mx: Vec<f64> = binop(B::Max, &a, &b);
    assert!(mx[0] == 2.0 && mx[1].is_nan() && mx[2].is_nan() && mx[3].is_nan());
    let mn: Vec<f64> = binop(B::Min, &a, &b);
    assert!(mn[0] == 1.0 && mn[1].is_nan() && mn[2].is_nan());
    let fx: Vec<f64> = binop(B::FMax, &a, &b);
    assert!(fx[0] == 2.0 && fx[1] == 1.0 && fx[2] == 3.0 && fx[3].is_nan());
    let fm: Vec<f64> = binop(B::FMin, &a, &b);
    assert!(fm[0] == 1.0 && fm[1] == 1.0 && fm[2] == 3.0 && fm[3].is_nan());
    assert_eq!(binop::<i16, i16>(B::Max, &[-3, 4], &[2, 1]), vec![2, 4]);
    assert_eq!(binop::<u32, u32>(B::Min, &[3, 4], &[2, 9]), vec![2, 4]);
}

#[test]
fn integer_pow() {
    assert_eq!(
        binop::<i32, i32>(
            B::Pow,
            &[3, 2, -1, -1, 1, 5, 0, -2],
            &[4, -1, -3, -2, -5, 0, 0, 3]
        ),
        vec![81, 0, -1, 1, 1, 1, 1, -8]
    );
    assert_eq!(binop::<i8, i8>(B::Pow, &[2, 3], &[7, 5]), vec![-128, -13]);
    assert_eq!(binop::<u8, u8>(B::Pow, &[3, 2], &[5, 8]), vec![243, 0]);
    assert_eq!(
        binop::<i64, i64>(B::Pow, &[3], &[40]),
        vec![3i64.wrapping_pow(40)]
    );
    let r: Vec<f64> = binop(B::Pow, &[2.0f64, 4.0], &[0.5, -1.0]);
    assert_eq!(r, vec![2f64.sqrt(), 0.25]);
}

#[test]
fn comparisons_logic_shifts() {
    assert_eq!(
        binop::<f32, bool>(B::Lt, &[1.0, 2.0, f32::NAN], &[2.0, 2.0, 1.0]),
        vec![true, false, false]
    );
    assert_eq!(
        binop::<f32, bool>(B::Ne, &[f32::NAN], &[f32::NAN]),
        vec![true]
    );
    assert_eq!(
        binop::<i64, bool>(B::Ge, &[1, 2], &[2, 2]),
        vec![false, true]
    );
    assert_eq!(
        binop::<bool, bool>(B::And, &[true, true, false], &[true, false, false]),
        vec![true, false, false]
    );
    assert_eq!(
        binop::<bool, bool>(B::Xor, &[true, true], &[true, false]),
        vec![false, true]
    );
    assert_eq!(
        binop::<bool, bool>(B::Add, &[true, false], &[true, false]),
        vec![true, false]
    );
    assert_eq!(
        unop::<bool, bool>(U::Not, &[true, false]),
        vec![false, true]
    );
    assert_eq!(binop::<i32, i32>(B::And, &[12], &[10]), vec![8]);
    assert_eq!(binop::<u8, u8>(B::Or, &[12], &[3]), vec![15]);
    assert_eq!(binop::<i16, i16>(B::Xor, &[-1], &[5]), vec![-6]);
    assert_eq!(
        binop::<i32, i32>(B::Shl, &[1, 1, 1, -3], &[3, 31, 40, 1]),
        vec![8, i32::MIN, 0, -6]
    );
    assert_eq!(
        binop::<i32, i32>(B::Shr, &[-8, 8, -1, 5], &[1, 40, 40, -1]),
        vec![-4, 0, -1, 0]
    );
    assert_eq!(binop::<u8, u8>(B::Shr, &[255, 255], &[4, 8]), vec![15, 0]);
    assert_eq!(
        binop::<u32, u32>(
            B::MulHi,
            &[0xffff_ffff, 0xd251_1f53, 3],
            &[0xffff_ffff, 0xcd9e_8d57, 5]
        ),
        vec![
            0xffff_fffe,
            ((0xd251_1f53u64 * 0xcd9e_8d57u64) >> 32) as u32,
            0
        ]
    );
    // Shift amount of another dtype is cast to the shifted type.
    let be = be();
    let k = Kernel::map(
        "shl",
        vec![Int64, Int32],
        vec![],
        bin(B::Shl, inp(0, Int64), inp(1, Int32)),
    );
    let (x, y) = (up(&be, &[1i64, 3]), up(&be, &[40i32, 2]));
    let o = run_map(&be, &k, &[&x, &y], 2, vec![]);
    assert_eq!(down::<i64>(&be, &o), vec![1 << 40, 12]);
}

#[test]
fn float_unary_and_tests() {
    let r: Vec<f64> = unop(U::Sqrt, &[4.0f64, 2.0]);
    assert_eq!(r, vec![2.0, 2f64.sqrt()]);
    // exp, log, sin, cos, tanh run the vector routines (crate::vmath): within 1 ulp of the C
    // library (2 for tanh), exact at exp(0).
    let r: Vec<f32> = unop(U::Exp, &[0.0f32, 1.0]);
    assert_eq!(r[0], 1.0);
    assert!((r[1] - 1f32.exp()).abs() <= f32::EPSILON * 4.0, "{r:?}");
    let r: Vec<f64> = unop(U::Floor, &[-1.5f64, 2.5]);
    assert_eq!(r, vec![-2.0, 2.0]);
    let r: Vec<f64> = unop(U::Ceil, &[-1.5f64, 2.5]);
    assert_eq!(r, vec![-1.0, 3.0]);
    let r: Vec<bool> = unop(U::IsNan, &[f32::NAN, 1.0, f32::INFINITY]);
    assert_eq!(r, vec![true, false, false]);
    let r: Vec<bool> = unop(U::IsInf, &[f32::NAN, 1.0, f32::NEG_INFINITY]);
    assert_eq!(r, vec![false, false, true]);
    let r: Vec<bool> = unop(U::IsFinite, &[f64::NAN, 1.0, f64::INFINITY]);
    assert_eq!(r, vec![false, true, false]);
    let r: Vec<f64> = binop(B::Atan2, &[1.0f64], &[-1.0]);
    assert_eq!(r, vec![1f64.atan2(-1.0)]);
    for (op, f) in [
        (U::Log, f64::ln as fn(f64) -> f64),
        (U::Sin, f64::sin),
        (U::Cos, f64::cos),
        (U::Tan, f64::tan),
        (U::Tanh, f64::tanh),
    ] {
        let r: Vec<f64> = unop(op, &[0.7f64]);
        let ulps = (r[0].to_bits() as i64 - f(0.7).to_bits() as i64).unsigned_abs();
        assert!(ulps <= 2, "{op:?}: {r:?} against {}", f(0.7));
    }
}

#[test]
fn float16_bfloat16_rounding() {
    let h = |x: f32| f16::from_f32(x);
    // 2048 + 1 is not a float16: rounds to even (2048).
    let r: Vec<f16> = binop(B::Add, &[h(2048.0), h(2048.0)], &[h(1.0), h(3.0)]);
    assert_eq!(r, vec![h(2048.0), h(2052.0)]);
    let r: Vec<f16> = binop(B::Mul, &[h(300.0)], &[h(300.0)]);
    assert_eq!(r, vec![f16::INFINITY]);
    let r: Vec<f16> = binop(B::Div, &[h(1.0)], &[h(3.0)]);
    assert_eq!(r, vec![h(1.0 / 3.0)]);
    // (a + b) + c with rounding after each op, as NumPy's per-ufunc result.
    let be = be();
    let t = Float16;
    let k = Kernel::map(
        "t",
        vec![t, t, t],
        vec![],
        bin(B::Add, bin(B::Add, inp(0, t), inp(1, t)), inp(2, t)),
    );
    let (x, y, z) = (
        up(&be, &[h(2048.0)]),
        up(&be, &[h(1.0)]),
        up(&be, &[h(1.0)]),
    );
    let o = run_map(&be, &k, &[&x, &y, &z], 1, vec![]);
    assert_eq!(down::<f16>(&be, &o), vec![h(2048.0)]);
    let b = |x: f32| bf16::from_f32(x);
    let r: Vec<bf16> = binop(B::Add, &[b(256.0)], &[b(1.0)]);
    assert_eq!(r, vec![b(256.0)]);
    let r: Vec<bf16> = unop(U::Sqrt, &[b(2.0)]);
    assert_eq!(r, vec![b(2f32.sqrt())]);
}

fn cast_run(be: &CpuBackend, v: Scalar, dst: DType) -> Scalar {
    let src = v.dtype();
    let buf = be.alloc(src, 3).unwrap();
    let mut bytes = vec![0u8; 3 * src.itemsize()];
    for i in 0..3 {
        v.write_le_bytes(&mut bytes[i * src.itemsize()..(i + 1) * src.itemsize()]);
    }
    be.write(&buf, 0, &bytes).unwrap();
    let k = Kernel::map("cast", vec![src], vec![], inp(0, src).cast(dst));
    let o = run_map(be, &k, &[&buf], 3, vec![]);
    let r = be.read(&o, 2, 1).unwrap();
    Scalar::from_le_bytes(dst, &r)
}

fn same(a: Scalar, b: Scalar) -> bool {
    let n = a.dtype().itemsize();
    let (mut x, mut y) = (vec![0u8; n], vec![0u8; n]);
    a.write_le_bytes(&mut x);
    b.write_le_bytes(&mut y);
    a.dtype() == b.dtype() && x == y
}

#[test]
fn casts_match_scalar_cast() {
    let be = be();
    let vals = [
        0.0,
        1.0,
        -1.0,
        2.7,
        -2.7,
        255.5,
        300.0,
        -300.0,
        65504.0,
        65520.0,
        1e10,
        -1e10,
        3.0e38,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.0 / 3.0,
        -0.0,
        4294967296.5,
    ];
    let ints = [
        i64::MIN,
        i64::MAX,
        -129,
        128,
        65535,
        65536,
        -1,
        (1 << 53) + 1,
    ];
    let mut n = 0;
    for src in DType::ALL {
        let mut srcs: Vec<Scalar> = vals.iter().map(|&v| Scalar::Float64(v).cast(src)).collect();
        srcs.extend(ints.iter().map(|&v| Scalar::Int64(v).cast(src)));
        srcs.push(Scalar::Complex128(Complex::new(1.5, -2.0)).cast(src));
        srcs.push(Scalar::Complex128(Complex::new(0.0, 1.0)).cast(src));
        for &s in &srcs {
            for dst in DType::ALL {
                let want = s.cast(dst);
                let got = cast_run(&be, s, dst);
                assert!(
                    same(got, want),
                    "{s:?} -> {dst}: got {got:?}, want {want:?}"
                );
                n += 1;
            }
        }
    }
    assert!(n > 6000);
}
