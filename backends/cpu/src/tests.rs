//! Unit tests calling the backend directly with hand-built IR kernels and layouts.

use crate::*;
use cupy_core::backend::{ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, ReduceKernel, Stmt, UnaryOp as U};
use cupy_core::{DType, Element, Layout, Scalar};
use half::{bf16, f16};
use num_complex::Complex;

use DType::*;

fn be() -> CpuBackend {
    CpuBackend::new()
}

fn up<T: Element>(be: &CpuBackend, v: &[T]) -> Buffer {
    let b = be.alloc(T::DTYPE, v.len()).unwrap();
    be.write(&b, 0, T::slice_as_bytes(v)).unwrap();
    b
}

fn down<T: Element>(be: &CpuBackend, b: &Buffer) -> Vec<T> {
    T::vec_from_bytes(&be.read(b, 0, b.len()).unwrap())
}

fn c1(n: usize) -> Layout {
    Layout::contiguous(&[n])
}

fn inp(k: usize, t: DType) -> Expr {
    Expr::input(k, t)
}
fn bin(op: B, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn k1(t: DType, c: impl Into<Scalar>) -> Expr {
    Expr::constant(c.into().cast(t))
}

/// Runs a kernel over contiguous 1-D operands; returns output 0's buffer.
fn run_map(be: &CpuBackend, k: &Kernel, ins: &[&Buffer], n: usize, params: Vec<Scalar>) -> Buffer {
    let out = be.alloc(k.outputs[0], n).unwrap();
    let call = ElementwiseCall {
        kernel: k,
        shape: vec![n],
        inputs: ins
            .iter()
            .map(|b| Operand {
                buffer: b,
                layout: c1(n),
            })
            .collect(),
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(n),
        }],
        raws: vec![],
        params,
    };
    be.elementwise(&call).unwrap();
    out
}

/// `op(a, b)` elementwise over two vectors of `T`, result of type `R`.
fn binop<T: Element, R: Element>(op: B, a: &[T], b: &[T]) -> Vec<R> {
    let be = be();
    let t = T::DTYPE;
    let k = Kernel::map("t", vec![t, t], vec![], bin(op, inp(0, t), inp(1, t)));
    let (x, y) = (up(&be, a), up(&be, b));
    let o = run_map(&be, &k, &[&x, &y], a.len(), vec![]);
    down(&be, &o)
}

fn unop<T: Element, R: Element>(op: U, a: &[T]) -> Vec<R> {
    let be = be();
    let k = Kernel::map(
        "t",
        vec![T::DTYPE],
        vec![],
        Expr::unary(op, inp(0, T::DTYPE)),
    );
    let x = up(&be, a);
    let o = run_map(&be, &k, &[&x], a.len(), vec![]);
    down(&be, &o)
}

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
    let r: Vec<f32> = unop(U::Exp, &[0.0f32, 1.0]);
    assert_eq!(r, vec![1.0, 1f32.exp()]);
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
        assert_eq!(r, vec![f(0.7)], "{op:?}");
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

#[test]
fn strided_broadcast_reversed() {
    let be = be();
    // a: 3x2 buffer viewed transposed as 2x3; b: a row of 3 broadcast over 2 rows;
    // out: 2x3 written with both axes reversed.
    let a = up(&be, &[1i32, 2, 3, 4, 5, 6]); // [[1,2],[3,4],[5,6]] -> T = [[1,3,5],[2,4,6]]
    let b = up(&be, &[10i32, 20, 30]);
    let out = be.alloc(Int32, 6).unwrap();
    let k = Kernel::map(
        "add",
        vec![Int32, Int32],
        vec![],
        bin(B::Add, inp(0, Int32), inp(1, Int32)),
    );
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![2, 3],
        inputs: vec![
            Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![2, 3],
                    strides: vec![1, 2],
                    offset: 0,
                },
            },
            Operand {
                buffer: &b,
                layout: Layout {
                    shape: vec![2, 3],
                    strides: vec![0, 1],
                    offset: 0,
                },
            },
        ],
        outputs: vec![Operand {
            buffer: &out,
            layout: Layout {
                shape: vec![2, 3],
                strides: vec![-3, -1],
                offset: 5,
            },
        }],
        raws: vec![],
        params: vec![],
    };
    be.elementwise(&call).unwrap();
    // logical result [[11,23,35],[12,24,36]] stored reversed
    assert_eq!(down::<i32>(&be, &out), vec![36, 24, 12, 35, 23, 11]);

    // Large strided + in-place (input aliases output element for element), parallel path.
    let n = 300_000usize;
    let x: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
    let xb = up(&be, &x);
    let k = Kernel::map(
        "inc",
        vec![Float64],
        vec![],
        bin(B::Add, inp(0, Float64), k1(Float64, 1.0)),
    );
    let lay = Layout {
        shape: vec![n],
        strides: vec![-2],
        offset: 2 * n - 1,
    };
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![Operand {
            buffer: &xb,
            layout: lay.clone(),
        }],
        outputs: vec![Operand {
            buffer: &xb,
            layout: lay,
        }],
        raws: vec![],
        params: vec![],
    };
    be.elementwise(&call).unwrap();
    let r = down::<f64>(&be, &xb);
    for (i, v) in r.iter().enumerate() {
        assert_eq!(*v, i as f64 + (i % 2) as f64);
    }
}

#[test]
fn size_zero_zero_d_and_fill() {
    let be = be();
    let k = Kernel::map("fill", vec![], vec![Float32], Expr::param(0, Float32));
    // size 0: no-op
    let e = be.alloc(Float32, 0).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![0],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &e,
            layout: c1(0),
        }],
        raws: vec![],
        params: vec![Scalar::Float32(1.0)],
    })
    .unwrap();
    // 0-d as shape [1]
    let o = be.alloc(Float32, 1).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![1],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &o,
            layout: c1(1),
        }],
        raws: vec![],
        params: vec![Scalar::Float32(2.5)],
    })
    .unwrap();
    assert_eq!(down::<f32>(&be, &o), vec![2.5]);
    // large fill (parallel, zero inputs)
    let o = run_map(&be, &k, &[], 100_000, vec![Scalar::Float32(-1.0)]);
    assert!(down::<f32>(&be, &o).iter().all(|&x| x == -1.0));
    // arange: start + Index * step, cast to int32
    let body = bin(
        B::Add,
        Expr::param(0, Float64),
        bin(B::Mul, Expr::index().cast(Float64), Expr::param(1, Float64)),
    )
    .cast(Int32);
    let k = Kernel::map("arange", vec![], vec![Float64, Float64], body);
    let o = run_map(
        &be,
        &k,
        &[],
        50_000,
        vec![Scalar::Float64(3.0), Scalar::Float64(0.5)],
    );
    let r = down::<i32>(&be, &o);
    for (i, v) in r.iter().enumerate() {
        assert_eq!(*v, (3.0 + i as f64 * 0.5) as i32);
    }
}

#[test]
fn bad_layouts_and_dtypes_rejected() {
    let be = be();
    let a = up(&be, &[1.0f32; 4]);
    let out = be.alloc(Float32, 4).unwrap();
    let k = Kernel::map(
        "neg",
        vec![Float32],
        vec![],
        Expr::unary(U::Neg, inp(0, Float32)),
    );
    let mk = |lay: Layout, olay: Layout| ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &a,
            layout: lay,
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: olay,
        }],
        raws: vec![],
        params: vec![],
    };
    let bad = [
        (
            Layout {
                shape: vec![4],
                strides: vec![2],
                offset: 0,
            },
            c1(4),
        ),
        (
            Layout {
                shape: vec![4],
                strides: vec![-1],
                offset: 2,
            },
            c1(4),
        ),
        (
            c1(4),
            Layout {
                shape: vec![4],
                strides: vec![1],
                offset: 1,
            },
        ),
        (
            Layout {
                shape: vec![4],
                strides: vec![isize::MAX],
                offset: 0,
            },
            c1(4),
        ),
        (c1(5), c1(4)),
    ];
    for (l, o) in bad {
        match be.elementwise(&mk(l.clone(), o.clone())) {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!("{l:?} {o:?}: {other:?}"),
        }
    }
    // dtype mismatch between kernel and buffer
    let i = up(&be, &[1i32; 4]);
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &i,
            layout: c1(4),
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::InvalidArgument { .. })
    ));
    // unsupported op: nothing written
    be.write(&out, 0, f32::slice_as_bytes(&[7.0; 4])).unwrap();
    let k2 = Kernel::map(
        "bad",
        vec![Float32],
        vec![],
        bin(B::Shl, inp(0, Float32), inp(0, Float32)),
    );
    let call = ElementwiseCall {
        kernel: &k2,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &a,
            layout: c1(4),
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::Unsupported { .. })
    ));
    assert_eq!(down::<f32>(&be, &out), vec![7.0; 4]);
}

#[test]
fn load_out_of_range_is_zero() {
    let be = be();
    let r = up(&be, &[1.0f64, 2.0, 3.0]);
    // out[i] = raw[i * 2 - 1]
    let idx = bin(
        B::Sub,
        bin(B::Mul, Expr::index(), k1(Int64, 2)),
        k1(Int64, 1),
    );
    let mut k = Kernel::map("ld", vec![], vec![], Expr::load(0, Float64, idx));
    k.raws = vec![Float64];
    let out = be.alloc(Float64, 4).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![RawOperand {
            buffer: &r,
            offset: 0,
            len: 3,
        }],
        params: vec![],
    })
    .unwrap();
    assert_eq!(down::<f64>(&be, &out), vec![0.0, 2.0, 0.0, 0.0]);
    // raw range outside its buffer is refused
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![RawOperand {
            buffer: &r,
            offset: 1,
            len: 3,
        }],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::InvalidArgument { .. })
    ));
}

/// 'same'-mode 2-D correlation of an HxW image with a KxK kernel, in IR: a nested uniform `For`
/// over the window, `If` for bounds, `Load` from two raw operands, index arithmetic.
fn conv_kernel() -> Kernel {
    let i64c = |v: i64| k1(Int64, v);
    let var = |k: usize| Expr::var(k, Int64);
    // locals: 0 = acc (f64), 1 = ky, 2 = kx, 3 = y, 4 = x, 5 = sy, 6 = sx
    let (h, w, kk) = (
        Expr::param(0, Int64),
        Expr::param(1, Int64),
        Expr::param(2, Int64),
    );
    let half = bin(B::FloorDiv, kk.clone(), i64c(2));
    let sy = bin(
        B::Sub,
        bin(B::Add, var(3), Expr::var(1, Int64)),
        half.clone(),
    );
    let sx = bin(B::Sub, bin(B::Add, var(4), Expr::var(2, Int64)), half);
    let inb = |v: Expr, lim: Expr| bin(B::And, bin(B::Ge, v.clone(), i64c(0)), bin(B::Lt, v, lim));
    let cond = bin(B::And, inb(var(5), h.clone()), inb(var(6), w.clone()));
    let img = Expr::load(
        0,
        Float64,
        bin(B::Add, bin(B::Mul, var(5), w.clone()), var(6)),
    );
    let wt = Expr::load(
        1,
        Float64,
        bin(
            B::Add,
            bin(B::Mul, Expr::var(1, Int64), kk.clone()),
            Expr::var(2, Int64),
        ),
    );
    let acc = Expr::var(0, Float64);
    Kernel {
        name: "conv2d".into(),
        inputs: vec![],
        outputs: vec![Float64],
        raws: vec![Float64, Float64],
        params: vec![Int64, Int64, Int64],
        locals: vec![Float64, Int64, Int64, Int64, Int64, Int64, Int64],
        body: vec![
            Stmt::Let {
                var: 0,
                value: k1(Float64, 0.0),
            },
            Stmt::Let {
                var: 3,
                value: bin(B::Div, Expr::index(), w.clone()),
            },
            Stmt::Let {
                var: 4,
                value: bin(B::Mod, Expr::index(), w.clone()),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: kk.clone(),
                body: vec![Stmt::For {
                    var: 2,
                    start: i64c(0),
                    end: kk.clone(),
                    body: vec![
                        Stmt::Let { var: 5, value: sy },
                        Stmt::Let { var: 6, value: sx },
                        Stmt::If {
                            cond,
                            then_body: vec![Stmt::Assign {
                                var: 0,
                                value: bin(B::Add, acc.clone(), bin(B::Mul, img, wt)),
                            }],
                            else_body: vec![],
                        },
                    ],
                }],
            },
            Stmt::Store {
                output: 0,
                value: acc,
            },
        ],
    }
}

#[test]
fn conv2d_kernel_with_loops_if_load() {
    let be = be();
    let k = conv_kernel();
    k.validate().unwrap();
    for (h, w, kk) in [(5usize, 7usize, 3usize), (40, 33, 5), (1, 1, 3)] {
        let img: Vec<f64> = (0..h * w).map(|i| ((i * 7) % 11) as f64 - 3.0).collect();
        let wt: Vec<f64> = (0..kk * kk).map(|i| (i as f64) * 0.25 - 1.0).collect();
        let (ib, wb) = (up(&be, &img), up(&be, &wt));
        let out = be.alloc(Float64, h * w).unwrap();
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![h * w],
            inputs: vec![],
            outputs: vec![Operand {
                buffer: &out,
                layout: c1(h * w),
            }],
            raws: vec![
                RawOperand {
                    buffer: &ib,
                    offset: 0,
                    len: h * w,
                },
                RawOperand {
                    buffer: &wb,
                    offset: 0,
                    len: kk * kk,
                },
            ],
            params: vec![
                Scalar::Int64(h as i64),
                Scalar::Int64(w as i64),
                Scalar::Int64(kk as i64),
            ],
        })
        .unwrap();
        let got = down::<f64>(&be, &out);
        let r = kk as i64 / 2;
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let mut acc = 0.0;
                for ky in 0..kk as i64 {
                    for kx in 0..kk as i64 {
                        let (sy, sx) = (y + ky - r, x + kx - r);
                        if sy >= 0 && sy < h as i64 && sx >= 0 && sx < w as i64 {
                            acc += img[(sy * w as i64 + sx) as usize]
                                * wt[(ky * kk as i64 + kx) as usize];
                        }
                    }
                }
                assert_eq!(
                    got[(y * w as i64 + x) as usize],
                    acc,
                    "{h}x{w} k{kk} at {y},{x}"
                );
            }
        }
    }
}

#[test]
fn if_else_masks_and_select() {
    let be = be();
    // out0 = x > 0 ? x * 2 : -x ; out1 stored only where x is even (else untouched)
    let t = Int32;
    let x = inp(0, t);
    let k = Kernel {
        name: "ifelse".into(),
        inputs: vec![t],
        outputs: vec![t, t],
        raws: vec![],
        params: vec![],
        locals: vec![t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: k1(t, 100),
            },
            Stmt::If {
                cond: bin(B::Gt, x.clone(), k1(t, 0)),
                then_body: vec![Stmt::Assign {
                    var: 0,
                    value: bin(B::Mul, x.clone(), k1(t, 2)),
                }],
                else_body: vec![Stmt::Assign {
                    var: 0,
                    value: Expr::unary(U::Neg, x.clone()),
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, t),
            },
            Stmt::If {
                cond: bin(B::Eq, bin(B::Mod, x.clone(), k1(t, 2)), k1(t, 0)),
                then_body: vec![Stmt::Store {
                    output: 1,
                    value: Expr::select(bin(B::Lt, x.clone(), k1(t, -2)), k1(t, -1), x.clone()),
                }],
                else_body: vec![],
            },
        ],
    };
    let xs = up(&be, &[3i32, -4, 0, 7, -6, 2]);
    let o0 = be.alloc(t, 6).unwrap();
    let o1 = up(&be, &[9i32; 6]);
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![6],
        inputs: vec![Operand {
            buffer: &xs,
            layout: c1(6),
        }],
        outputs: vec![
            Operand {
                buffer: &o0,
                layout: c1(6),
            },
            Operand {
                buffer: &o1,
                layout: c1(6),
            },
        ],
        raws: vec![],
        params: vec![],
    })
    .unwrap();
    assert_eq!(down::<i32>(&be, &o0), vec![6, 4, 0, 14, 6, 4]);
    assert_eq!(down::<i32>(&be, &o1), vec![9, -1, 0, 9, -1, 2]);
}

#[test]
fn complex_ops() {
    let c = |r: f64, i: f64| Complex::new(r, i);
    let a = [c(1.0, 2.0), c(0.0, 1.0)];
    let b = [c(3.0, -1.0), c(0.0, 1.0)];
    let r: Vec<Complex<f64>> = binop(B::Mul, &a, &b);
    assert_eq!(r, vec![c(5.0, 5.0), c(-1.0, 0.0)]);
    let r: Vec<Complex<f64>> = binop(B::Add, &a, &b);
    assert_eq!(r, vec![c(4.0, 1.0), c(0.0, 2.0)]);
    let r: Vec<bool> = binop(B::Lt, &a, &b);
    assert_eq!(r, vec![true, false]);
    let be = be();
    let k = Kernel::map(
        "abs",
        vec![Complex64],
        vec![],
        Expr {
            ty: Float32,
            kind: cupy_core::kernel::ir::ExprKind::Unary(U::Abs, Box::new(inp(0, Complex64))),
        },
    );
    let x = up(&be, &[Complex::new(3.0f32, 4.0)]);
    let o = run_map(&be, &k, &[&x], 1, vec![]);
    assert_eq!(down::<f32>(&be, &o), vec![5.0]);
}

// ------------------------------------------------------------------------------------------
// Reductions

fn reduce_run<T: Element>(
    be: &CpuBackend,
    k: &ReduceKernel,
    input: &Buffer,
    layout: Layout,
    out_shape: Vec<usize>,
    reduce_shape: Vec<usize>,
    params: Vec<Scalar>,
) -> Vec<T> {
    let n: usize = out_shape.iter().product();
    let out = be.alloc(k.output, n).unwrap();
    be.reduce(&ReductionCall {
        kernel: k,
        out_shape: out_shape.clone(),
        reduce_shape,
        inputs: vec![Operand {
            buffer: input,
            layout,
        }],
        output: Operand {
            buffer: &out,
            layout: Layout::contiguous(&out_shape),
        },
        params,
    })
    .unwrap();
    down(be, &out)
}

#[test]
fn sum_full_f32_pairwise() {
    let be = be();
    let n = 1_000_003usize;
    let v: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32) * 0.001 + 0.1).collect();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let b = up(&be, &v);
    let k = ReduceKernel::simple("sum", Float32, Float32, B::Add, Scalar::Int64(0), Float32);
    let r = reduce_run::<f32>(&be, &k, &b, c1(n), vec![], vec![n], vec![]);
    let rel = ((r[0] as f64 - exact) / exact).abs();
    assert!(rel < 1e-6, "sum {} vs {exact} (rel {rel})", r[0]);
    // A naive f32 loop is visibly worse.
    let naive: f32 = v.iter().sum();
    assert!(((naive as f64 - exact) / exact).abs() > rel);
    // ints wrap
    let vi: Vec<i8> = vec![100; 10];
    let bi = up(&be, &vi);
    let k = ReduceKernel::simple("sum", Int8, Int8, B::Add, Scalar::Int64(0), Int8);
    let r = reduce_run::<i8>(&be, &k, &bi, c1(10), vec![], vec![10], vec![]);
    assert_eq!(r, vec![(1000i32 as i8)]);
    let k = ReduceKernel::simple("sum", Int8, Int64, B::Add, Scalar::Int64(0), Int64);
    let r = reduce_run::<i64>(&be, &k, &bi, c1(10), vec![], vec![10], vec![]);
    assert_eq!(r, vec![1000]);
}

#[test]
fn reduce_axes_inner_outer_strided() {
    let be = be();
    let (r, c) = (37usize, 300usize);
    let v: Vec<f64> = (0..r * c).map(|i| (i % 17) as f64 - 4.0).collect();
    let b = up(&be, &v);
    let k = ReduceKernel::simple("sum", Float64, Float64, B::Add, Scalar::Int64(0), Float64);
    // axis=1 (inner)
    let got = reduce_run::<f64>(
        &be,
        &k,
        &b,
        Layout::contiguous(&[r, c]),
        vec![r],
        vec![c],
        vec![],
    );
    for i in 0..r {
        assert_eq!(got[i], (0..c).map(|j| v[i * c + j]).sum::<f64>());
    }
    // axis=0 (outer): out over columns, reduce over rows
    let lay = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    let got = reduce_run::<f64>(&be, &k, &b, lay, vec![c], vec![r], vec![]);
    for j in 0..c {
        assert_eq!(got[j], (0..r).map(|i| v[i * c + j]).sum::<f64>());
    }
    // reversed rows, every other column, reduce both axes of a 3-D view
    let lay = Layout {
        shape: vec![r, c / 2],
        strides: vec![-(c as isize), 2],
        offset: (r - 1) * c,
    };
    let got = reduce_run::<f64>(&be, &k, &b, lay, vec![], vec![r, c / 2], vec![]);
    let want: f64 = (0..r)
        .flat_map(|i| (0..c / 2).map(move |j| (i, j)))
        .map(|(i, j)| v[i * c + 2 * j])
        .sum();
    assert_eq!(got, vec![want]);
    // large outer reduction (parallel over output blocks)
    let (r2, c2) = (64usize, 4096usize);
    let v2: Vec<f32> = (0..r2 * c2).map(|i| (i % 13) as f32).collect();
    let b2 = up(&be, &v2);
    let k32 = ReduceKernel::simple("sum", Float32, Float32, B::Add, Scalar::Int64(0), Float32);
    let lay = Layout {
        shape: vec![c2, r2],
        strides: vec![1, c2 as isize],
        offset: 0,
    };
    let got = reduce_run::<f32>(&be, &k32, &b2, lay, vec![c2], vec![r2], vec![]);
    for j in 0..c2 {
        assert_eq!(got[j], (0..r2).map(|i| v2[i * c2 + j]).sum::<f32>());
    }
    // large inner reduction with many outputs (parallel over outputs)
    let got = reduce_run::<f32>(
        &be,
        &k32,
        &b2,
        Layout::contiguous(&[r2, c2]),
        vec![r2],
        vec![c2],
        vec![],
    );
    for i in 0..r2 {
        assert_eq!(got[i], (0..c2).map(|j| v2[i * c2 + j]).sum::<f32>());
    }
}

#[test]
fn reduce_empty_and_zero_size() {
    let be = be();
    let b = up(&be, &[1.5f32, -2.0, 3.0]);
    // empty reduce_shape: post(map(x)) per element; map = x*x, post = acc + 1
    let k = ReduceKernel {
        name: "sq".into(),
        inputs: vec![Float32],
        params: vec![],
        acc: vec![Float64],
        map: vec![bin(B::Mul, inp(0, Float32), inp(0, Float32)).cast(Float64)],
        combine: vec![bin(B::Add, Expr::var(0, Float64), Expr::var(1, Float64))],
        identity: vec![Scalar::Float64(0.0)],
        post: bin(B::Add, Expr::var(0, Float64), k1(Float64, 1.0)),
        output: Float64,
    };
    let got = reduce_run::<f64>(&be, &k, &b, c1(3), vec![3], vec![], vec![]);
    assert_eq!(got, vec![3.25, 5.0, 10.0]);
    // zero-size reduce_shape: post(identity)
    let e = be.alloc(Float32, 0).unwrap();
    let lay = Layout {
        shape: vec![4, 0],
        strides: vec![0, 1],
        offset: 0,
    };
    let got = reduce_run::<f64>(&be, &k, &e, lay, vec![4], vec![0], vec![]);
    assert_eq!(got, vec![1.0; 4]);
    // max of empty: identity -inf
    let km = ReduceKernel::simple(
        "max",
        Float32,
        Float32,
        B::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    let got = reduce_run::<f32>(&be, &km, &e, c1(0), vec![], vec![0], vec![]);
    assert_eq!(got, vec![f32::NEG_INFINITY]);
    // zero outputs: no-op
    let got = reduce_run::<f32>(
        &be,
        &km,
        &e,
        Layout::contiguous(&[0, 5]),
        vec![0],
        vec![5],
        vec![],
    );
    assert!(got.is_empty());
}

#[test]
fn reduce_max_nan_mean_and_generic_combine() {
    let be = be();
    let mut v: Vec<f32> = (0..50_000).map(|i| (i % 977) as f32).collect();
    let b = up(&be, &v);
    let km = ReduceKernel::simple(
        "max",
        Float32,
        Float32,
        B::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    assert_eq!(
        reduce_run::<f32>(&be, &km, &b, c1(v.len()), vec![], vec![v.len()], vec![]),
        vec![976.0]
    );
    v[31_337] = f32::NAN;
    let b = up(&be, &v);
    assert!(
        reduce_run::<f32>(&be, &km, &b, c1(v.len()), vec![], vec![v.len()], vec![])[0].is_nan()
    );
    let kf = ReduceKernel::simple(
        "fmax",
        Float32,
        Float32,
        B::FMax,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    assert_eq!(
        reduce_run::<f32>(&be, &kf, &b, c1(v.len()), vec![], vec![v.len()], vec![]),
        vec![976.0]
    );
    // mean: post = acc / param
    let x: Vec<f64> = (1..=100).map(|i| i as f64).collect();
    let bx = up(&be, &x);
    let mut kmean =
        ReduceKernel::simple("mean", Float64, Float64, B::Add, Scalar::Int64(0), Float64);
    kmean.params = vec![Float64];
    kmean.post = bin(B::Div, Expr::var(0, Float64), Expr::param(0, Float64));
    let got = reduce_run::<f64>(
        &be,
        &kmean,
        &bx,
        Layout::contiguous(&[4, 25]),
        vec![4],
        vec![25],
        vec![Scalar::Float64(25.0)],
    );
    assert_eq!(got, vec![13.0, 38.0, 63.0, 88.0]);
    // generic combine (interpreted tree): max via select, and argmax-free "count nonzero"
    let a = Expr::var(0, Int64);
    let bb = Expr::var(1, Int64);
    let ks = ReduceKernel {
        name: "selmax".into(),
        inputs: vec![Int64],
        params: vec![],
        acc: vec![Int64],
        map: vec![inp(0, Int64)],
        combine: vec![Expr::select(bin(B::Gt, a.clone(), bb.clone()), a, bb)],
        identity: vec![Scalar::Int64(i64::MIN)],
        post: Expr::var(0, Int64),
        output: Int64,
    };
    let xi: Vec<i64> = (0..70_001).map(|i| (i * 7919) % 100_003).collect();
    let bi = up(&be, &xi);
    let want = *xi.iter().max().unwrap();
    assert_eq!(
        reduce_run::<i64>(&be, &ks, &bi, c1(xi.len()), vec![], vec![xi.len()], vec![]),
        vec![want]
    );
    let lay = Layout {
        shape: vec![7, 10_000],
        strides: vec![10_000, 1],
        offset: 0,
    };
    let got = reduce_run::<i64>(&be, &ks, &bi, lay, vec![7], vec![10_000], vec![]);
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, *xi[i * 10_000..(i + 1) * 10_000].iter().max().unwrap());
    }
    // count nonzero of bools: map = cast(x != 0), uniform-free
    let bools: Vec<bool> = (0..1000).map(|i| i % 3 == 0).collect();
    let bb = up(&be, &bools);
    let kc = ReduceKernel::simple("count", Bool, Int64, B::Add, Scalar::Int64(0), Int64);
    assert_eq!(
        reduce_run::<i64>(&be, &kc, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![334]
    );
    let ka = ReduceKernel::simple("any", Bool, Bool, B::Or, Scalar::Bool(false), Bool);
    assert_eq!(
        reduce_run::<bool>(&be, &ka, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![true]
    );
    let kall = ReduceKernel::simple("all", Bool, Bool, B::And, Scalar::Bool(true), Bool);
    assert_eq!(
        reduce_run::<bool>(&be, &kall, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![false]
    );
}

// ------------------------------------------------------------------------------------------
// GEMM

fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    c
}

fn gemm_run(be: &CpuBackend, a: (&Buffer, Layout), b: (&Buffer, Layout), c: (&Buffer, Layout)) {
    be.gemm(&GemmCall {
        a: Operand {
            buffer: a.0,
            layout: a.1,
        },
        b: Operand {
            buffer: b.0,
            layout: b.1,
        },
        c: Operand {
            buffer: c.0,
            layout: c.1,
        },
    })
    .unwrap();
}

#[test]
fn gemm_f32_f64_odd_transposed_batched() {
    let be = be();
    for (m, k, n) in [
        (2usize, 3usize, 2usize),
        (7, 5, 3),
        (1, 1, 1),
        (65, 33, 17),
        (130, 70, 90),
    ] {
        let a: Vec<f64> = (0..m * k).map(|i| ((i * 3) % 7) as f64 - 2.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| ((i * 5) % 11) as f64 * 0.5).collect();
        let want = naive(&a, &b, m, k, n);
        let (ab, bb) = (up(&be, &a), up(&be, &b));
        let c = be.alloc(Float64, m * n).unwrap();
        gemm_run(
            &be,
            (&ab, Layout::contiguous(&[1, m, k])),
            (&bb, Layout::contiguous(&[1, k, n])),
            (&c, Layout::contiguous(&[1, m, n])),
        );
        assert_eq!(down::<f64>(&be, &c), want, "{m}x{k}x{n}");
        // a stored transposed (k x m buffer), c written reversed rows
        let at: Vec<f32> = (0..k * m).map(|i| a[(i % m) * k + i / m] as f32).collect();
        let atb = up(&be, &at);
        let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let bb32 = up(&be, &b32);
        let c32 = be.alloc(Float32, m * n).unwrap();
        gemm_run(
            &be,
            (
                &atb,
                Layout {
                    shape: vec![1, m, k],
                    strides: vec![0, 1, m as isize],
                    offset: 0,
                },
            ),
            (&bb32, Layout::contiguous(&[1, k, n])),
            (
                &c32,
                Layout {
                    shape: vec![1, m, n],
                    strides: vec![0, -(n as isize), 1],
                    offset: (m - 1) * n,
                },
            ),
        );
        let got = down::<f32>(&be, &c32);
        for i in 0..m {
            for j in 0..n {
                let w = want[i * n + j];
                let g = got[(m - 1 - i) * n + j] as f64;
                assert!(
                    (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                    "{m}x{k}x{n} {i},{j}: {g} vs {w}"
                );
            }
        }
    }
    // batched: 3 batches of a, b shared with batch stride 0
    let (m, k, n, nb) = (4usize, 3usize, 5usize, 3usize);
    let a: Vec<f64> = (0..nb * m * k).map(|i| i as f64 * 0.25).collect();
    let b: Vec<f64> = (0..k * n).map(|i| 1.0 - i as f64).collect();
    let (ab, bb) = (up(&be, &a), up(&be, &b));
    let c = be.alloc(Float64, nb * m * n).unwrap();
    gemm_run(
        &be,
        (&ab, Layout::contiguous(&[nb, m, k])),
        (
            &bb,
            Layout {
                shape: vec![nb, k, n],
                strides: vec![0, n as isize, 1],
                offset: 0,
            },
        ),
        (&c, Layout::contiguous(&[nb, m, n])),
    );
    let got = down::<f64>(&be, &c);
    for bi in 0..nb {
        let want = naive(&a[bi * m * k..(bi + 1) * m * k], &b, m, k, n);
        assert_eq!(&got[bi * m * n..(bi + 1) * m * n], &want[..]);
    }
    // k = 0 gives zeros
    let e = be.alloc(Float64, 0).unwrap();
    let c = up(&be, &[5.0f64; 4]);
    gemm_run(
        &be,
        (&e, Layout::contiguous(&[1, 2, 0])),
        (&e, Layout::contiguous(&[1, 0, 2])),
        (&c, Layout::contiguous(&[1, 2, 2])),
    );
    assert_eq!(down::<f64>(&be, &c), vec![0.0; 4]);
}

#[test]
fn gemm_narrow_int_bool_complex() {
    let be = be();
    let h = |x: f32| f16::from_f32(x);
    let a = up(&be, &[h(1.0), h(2.0), h(3.0), h(4.0)]);
    let b = up(&be, &[h(0.5), h(1.0), h(1.5), h(2.0)]);
    let c = be.alloc(Float16, 4).unwrap();
    let l = Layout::contiguous(&[1, 2, 2]);
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<f16>(&be, &c), vec![h(3.5), h(5.0), h(7.5), h(11.0)]);
    let a = up(&be, &[100i8, 100, 1, 2]);
    let b = up(&be, &[2i8, 0, 1, 1]);
    let c = be.alloc(Int8, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<i8>(&be, &c), vec![(300i32 as i8), 100, 4, 2]);
    let a = up(&be, &[true, false, false, false]);
    let b = up(&be, &[false, true, true, true]);
    let c = be.alloc(Bool, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<bool>(&be, &c), vec![false, true, false, false]);
    let z = |r: f64, i: f64| Complex::new(r, i);
    let a = up(&be, &[z(1.0, 1.0), z(0.0, 0.0), z(0.0, 0.0), z(1.0, 0.0)]);
    let b = up(&be, &[z(0.0, 1.0), z(2.0, 0.0), z(1.0, 0.0), z(0.0, -1.0)]);
    let c = be.alloc(Complex128, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(
        down::<Complex<f64>>(&be, &c),
        vec![z(-1.0, 1.0), z(2.0, 2.0), z(1.0, 0.0), z(0.0, -1.0)]
    );
    // i64 larger, parallel path
    let (m, k, n) = (50usize, 40usize, 60usize);
    let av: Vec<i64> = (0..m * k).map(|i| (i as i64 % 9) - 4).collect();
    let bv: Vec<i64> = (0..k * n).map(|i| (i as i64 % 5) - 2).collect();
    let (ab, bb) = (up(&be, &av), up(&be, &bv));
    let c = be.alloc(Int64, m * n).unwrap();
    gemm_run(
        &be,
        (&ab, Layout::contiguous(&[1, m, k])),
        (&bb, Layout::contiguous(&[1, k, n])),
        (&c, Layout::contiguous(&[1, m, n])),
    );
    let af: Vec<f64> = av.iter().map(|&x| x as f64).collect();
    let bf: Vec<f64> = bv.iter().map(|&x| x as f64).collect();
    let want: Vec<i64> = naive(&af, &bf, m, k, n).iter().map(|&x| x as i64).collect();
    assert_eq!(down::<i64>(&be, &c), want);
}

#[test]
fn gemm_rejects_bad_layouts() {
    let be = be();
    let a = up(&be, &[1.0f32; 4]);
    let c = be.alloc(Float32, 4).unwrap();
    let l = Layout::contiguous(&[1, 2, 2]);
    let bad_c = Layout {
        shape: vec![1, 2, 2],
        strides: vec![0, 0, 1],
        offset: 0,
    };
    let r = be.gemm(&GemmCall {
        a: Operand {
            buffer: &a,
            layout: l.clone(),
        },
        b: Operand {
            buffer: &a,
            layout: l.clone(),
        },
        c: Operand {
            buffer: &c,
            layout: bad_c,
        },
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
    let r = be.gemm(&GemmCall {
        a: Operand {
            buffer: &a,
            layout: Layout::contiguous(&[1, 2, 3]),
        },
        b: Operand {
            buffer: &a,
            layout: Layout::contiguous(&[1, 3, 2]),
        },
        c: Operand {
            buffer: &c,
            layout: l,
        },
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
}

#[test]
fn tiled_transpose_paths() {
    let be = be();
    for (r, c) in [(130usize, 200usize), (257, 129), (300, 300)] {
        let v: Vec<i32> = (0..(r * c) as i32).collect();
        let a = up(&be, &v);
        let out = be.alloc(Int32, r * c).unwrap();
        // out (c x r, contiguous) = a.T, plus a broadcast row added in a second kernel
        let k = Kernel::map("copy", vec![Int32], vec![], inp(0, Int32));
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![c, r],
            inputs: vec![Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![c, r],
                    strides: vec![1, c as isize],
                    offset: 0,
                },
            }],
            outputs: vec![Operand {
                buffer: &out,
                layout: Layout::contiguous(&[c, r]),
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap();
        let got = down::<i32>(&be, &out);
        for i in 0..c {
            for j in 0..r {
                assert_eq!(got[i * r + j], v[j * c + i]);
            }
        }
        // transposed output with reversed rows, two inputs (one broadcast)
        let row = up(&be, &(0..c as i32).map(|x| x * 1000).collect::<Vec<_>>());
        let k = Kernel::map(
            "add",
            vec![Int32, Int32],
            vec![],
            bin(B::Add, inp(0, Int32), inp(1, Int32)),
        );
        let out2 = be.alloc(Int32, r * c).unwrap();
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![r, c],
            inputs: vec![
                Operand {
                    buffer: &a,
                    layout: Layout::contiguous(&[r, c]),
                },
                Operand {
                    buffer: &row,
                    layout: Layout {
                        shape: vec![r, c],
                        strides: vec![0, 1],
                        offset: 0,
                    },
                },
            ],
            outputs: vec![Operand {
                buffer: &out2,
                layout: Layout {
                    shape: vec![r, c],
                    strides: vec![-1, r as isize],
                    offset: r - 1,
                },
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap();
        let got = down::<i32>(&be, &out2);
        for i in 0..r {
            for j in 0..c {
                assert_eq!(got[j * r + (r - 1 - i)], v[i * c + j] + 1000 * j as i32);
            }
        }
    }
}

#[test]
fn gemm_broadcast_and_inplace() {
    let be = be();
    // a: one row [1, 2, 3] broadcast to 4 rows (row stride 0); b: 3x2
    let a = up(&be, &[1.0f32, 2.0, 3.0]);
    let b = up(&be, &[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let c = be.alloc(Float32, 8).unwrap();
    gemm_run(
        &be,
        (
            &a,
            Layout {
                shape: vec![1, 4, 3],
                strides: vec![0, 0, 1],
                offset: 0,
            },
        ),
        (&b, Layout::contiguous(&[1, 3, 2])),
        (&c, Layout::contiguous(&[1, 4, 2])),
    );
    assert_eq!(
        down::<f32>(&be, &c),
        vec![4.0, 5.0, 4.0, 5.0, 4.0, 5.0, 4.0, 5.0]
    );
    // c = c @ b2 in place (c aliases a)
    let x = up(&be, &[1.0f64, 2.0, 3.0, 4.0]);
    let i2 = up(&be, &[0.0f64, 1.0, 1.0, 0.0]);
    let l = Layout::contiguous(&[1, 2, 2]);
    gemm_run(&be, (&x, l.clone()), (&i2, l.clone()), (&x, l));
    assert_eq!(down::<f64>(&be, &x), vec![2.0, 1.0, 4.0, 3.0]);
}

/// `raw0[idx] (op)= val` over `idx.len()` elements.
fn scatter_into<T: Element>(
    be: &CpuBackend,
    op: Option<cupy_core::kernel::ir::AtomicOp>,
    target: &[T],
    idx: &[i64],
    val: &[T],
) -> Vec<T> {
    let d = T::DTYPE;
    let (i, v) = (inp(0, Int64), inp(1, d));
    let st = match op {
        None => Stmt::StoreRaw {
            raw: 0,
            index: i,
            value: v,
        },
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index: i,
            value: v,
        },
    };
    let k = Kernel {
        name: "scatter".into(),
        inputs: vec![Int64, d],
        outputs: vec![],
        raws: vec![d],
        params: vec![],
        locals: vec![],
        body: vec![st],
    };
    let t = up(be, target);
    let ib = up(be, idx);
    let vb = up(be, val);
    let n = idx.len();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![
            Operand {
                buffer: &ib,
                layout: c1(n),
            },
            Operand {
                buffer: &vb,
                layout: c1(n),
            },
        ],
        outputs: vec![],
        raws: vec![RawOperand {
            buffer: &t,
            offset: 0,
            len: target.len(),
        }],
        params: vec![],
    })
    .unwrap();
    down(be, &t)
}

#[test]
fn scatter_raw_stores_and_atomics() {
    use cupy_core::kernel::ir::AtomicOp::*;
    let be = be();
    // Many elements onto few targets (past the parallel threshold): no update is lost.
    let n = 100_000;
    let idx: Vec<i64> = (0..n).map(|j| (j * 7919) % 10).collect();
    let got = scatter_into(&be, Some(Add), &[0i32; 10], &idx, &vec![1i32; n as usize]);
    assert_eq!(got, vec![10_000; 10]);
    let got = scatter_into(&be, Some(Add), &[0i8; 10], &idx, &vec![1i8; n as usize]);
    assert_eq!(got, vec![(10_000i32 as u32 % 256) as u8 as i8; 10]);
    // Plain stores: the last element writing an index wins (element order), out of range dropped.
    let got = scatter_into(
        &be,
        None,
        &[0f32; 4],
        &[1, 2, 1, 9, -1],
        &[1., 2., 3., 4., 5.],
    );
    assert_eq!(got, vec![0., 3., 2., 0.]);
    // Max/Min propagate NaN; float16 rounds each update; bool add is or.
    let got = scatter_into(
        &be,
        Some(Max),
        &[0f32, 0., 5.],
        &[0, 0, 1, 2],
        &[3., f32::NAN, -1., 2.],
    );
    assert!(got[0].is_nan() && got[1] == 0. && got[2] == 5.);
    let got = scatter_into(&be, Some(Min), &[0f64, 1.], &[1, 1], &[0.5, 2.]);
    assert_eq!(got, vec![0., 0.5]);
    let h = |x: f32| f16::from_f32(x);
    let got = scatter_into(&be, Some(Add), &[h(2048.)], &[0, 0], &[h(1.), h(1.)]);
    assert_eq!(got, vec![h(2048.)], "each update is rounded to float16");
    let got = scatter_into(&be, Some(Add), &[false, false], &[1, 1], &[true, true]);
    assert_eq!(got, vec![false, true]);
    let got = scatter_into(&be, Some(Min), &[true, true], &[1], &[false]);
    assert_eq!(got, vec![true, false]);
    let got = scatter_into(&be, Some(Max), &[u64::MAX - 1], &[0, 0], &[3, u64::MAX]);
    assert_eq!(got, vec![u64::MAX]);
}
