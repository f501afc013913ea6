//! Custom kernels written in CuPy's kernel language, lowered by `cupy_core::kernel::lang` and
//! run on the CPU backend; each result is checked against the same computation done in Rust.

use cupy_core::backend::{Backend, ElementwiseCall, Operand, RawOperand, ReductionCall};
use cupy_core::kernel::lang::{
    lower_elementwise, lower_reduction, parse_params, Binding, ElementwiseSource, Name,
    ReductionSource, TypeSpec,
};
use cupy_core::{Buffer, DType, Layout, Scalar};
use cupy_cpu::CpuBackend;
use half::f16;

use DType::*;

mod elementwise;

/// A call argument.
#[derive(Clone)]
enum A {
    /// An elementwise array.
    Arr(Vec<Scalar>),
    /// A raw array.
    Raw(Vec<Scalar>),
    /// A scalar parameter.
    S(Scalar),
}

fn arr<T: Into<Scalar> + Copy>(v: &[T]) -> A {
    A::Arr(v.iter().map(|&x| x.into()).collect())
}
fn raw<T: Into<Scalar> + Copy>(v: &[T]) -> A {
    A::Raw(v.iter().map(|&x| x.into()).collect())
}
fn s<T: Into<Scalar>>(v: T) -> A {
    A::S(v.into())
}

fn upload(be: &CpuBackend, v: &[Scalar], dtype: DType) -> Buffer {
    let b = be.alloc(dtype, v.len()).unwrap();
    let mut bytes = vec![0u8; v.len() * dtype.itemsize()];
    for (k, x) in v.iter().enumerate() {
        x.cast(dtype)
            .write_le_bytes(&mut bytes[k * dtype.itemsize()..(k + 1) * dtype.itemsize()]);
    }
    be.write(&b, 0, &bytes).unwrap();
    b
}

fn download(be: &CpuBackend, b: &Buffer, dtype: DType, n: usize) -> Vec<Scalar> {
    let bytes = be.read(b, 0, n).unwrap();
    bytes
        .chunks(dtype.itemsize())
        .map(|c| Scalar::from_le_bytes(dtype, c))
        .collect()
}

fn dtype_of(a: &A) -> DType {
    match a {
        A::Arr(v) | A::Raw(v) => v[0].dtype(),
        A::S(x) => x.dtype(),
    }
}

/// Binds the placeholders of `in_params` from the arguments (CuPy's type resolution).
fn resolve(in_params: &str, args: &[A]) -> Vec<(String, DType)> {
    let ps = parse_params("k", "in_params", in_params).unwrap();
    let mut types: Vec<(String, DType)> = vec![];
    for (p, a) in ps.iter().zip(args) {
        if let TypeSpec::Placeholder(t) = &p.ty {
            if !types.iter().any(|(n, _)| n == t) {
                types.push((t.clone(), dtype_of(a)));
            }
        }
    }
    types
}

fn dt(ty: &TypeSpec, types: &[(String, DType)]) -> DType {
    match ty {
        TypeSpec::DType(d) => *d,
        TypeSpec::Placeholder(t) => types.iter().find(|(n, _)| n == t).unwrap().1,
    }
}

/// Runs an ElementwiseKernel over `n` elements; `init` gives outputs' incoming values.
fn ew_init(
    in_params: &str,
    out_params: &str,
    op: &str,
    pre: &str,
    args: Vec<A>,
    init: Vec<Vec<Scalar>>,
    n: usize,
) -> Vec<Vec<Scalar>> {
    let be = CpuBackend::new();
    let types = resolve(in_params, &args);
    let ins = parse_params("k", "in_params", in_params).unwrap();
    let outs = parse_params("k", "out_params", out_params).unwrap();
    let (mut ni, mut np, mut nr) = (0, 0, 0);
    let mut names = vec![];
    for (p, a) in ins.iter().zip(&args) {
        let binding = match (a, p.raw) {
            (A::Raw(_), true) => {
                nr += 1;
                Binding::Raw(nr - 1)
            }
            (A::Arr(_), false) => {
                ni += 1;
                Binding::Input(ni - 1)
            }
            (A::S(_), false) => {
                np += 1;
                Binding::Param(np - 1)
            }
            _ => panic!("argument kind mismatch for {}", p.name),
        };
        names.push(Name {
            name: p.name.clone(),
            dtype: dt(&p.ty, &types),
            binding,
        });
    }
    for (k, p) in outs.iter().enumerate() {
        names.push(Name {
            name: p.name.clone(),
            dtype: dt(&p.ty, &types),
            binding: Binding::Output(k),
        });
    }
    let l = lower_elementwise(&ElementwiseSource {
        name: "k",
        operation: op,
        preamble: pre,
        names: &names,
        types: &types,
        size_param: Some(np),
    })
    .unwrap_or_else(|e| panic!("{op}: {e}"));
    let k = &l.kernel;
    k.validate().unwrap();
    let in_bufs: Vec<Buffer> = args
        .iter()
        .filter_map(|a| match a {
            A::Arr(v) => Some(v),
            _ => None,
        })
        .zip(&k.inputs)
        .map(|(v, d)| upload(&be, v, *d))
        .collect();
    let raw_bufs: Vec<Buffer> = args
        .iter()
        .filter_map(|a| match a {
            A::Raw(v) => Some(v),
            _ => None,
        })
        .zip(&k.raws)
        .map(|(v, d)| upload(&be, v, *d))
        .collect();
    let out_bufs: Vec<Buffer> = k
        .outputs
        .iter()
        .enumerate()
        .map(|(j, d)| match init.get(j) {
            Some(v) => upload(&be, v, *d),
            None => be.alloc(*d, n).unwrap(),
        })
        .collect();
    let mut params: Vec<Scalar> = args
        .iter()
        .filter_map(|a| match a {
            A::S(x) => Some(*x),
            _ => None,
        })
        .zip(&k.params)
        .map(|(x, d)| x.cast(*d))
        .collect();
    params.push(Scalar::Int64(n as i64));
    let lay = Layout::contiguous(&[n]);
    let mut inputs: Vec<Operand<'_>> = in_bufs
        .iter()
        .map(|b| Operand {
            buffer: b,
            layout: lay.clone(),
        })
        .collect();
    for &o in &l.output_reads {
        inputs.push(Operand {
            buffer: &out_bufs[o],
            layout: lay.clone(),
        });
    }
    be.elementwise(&ElementwiseCall {
        kernel: k,
        shape: vec![n],
        inputs,
        outputs: out_bufs
            .iter()
            .map(|b| Operand {
                buffer: b,
                layout: lay.clone(),
            })
            .collect(),
        raws: raw_bufs
            .iter()
            .map(|b| RawOperand {
                buffer: b,
                offset: 0,
                len: b.len(),
            })
            .collect(),
        params,
    })
    .unwrap();
    out_bufs
        .iter()
        .zip(&k.outputs)
        .map(|(b, d)| download(&be, b, *d, n))
        .collect()
}

fn ew(in_params: &str, out_params: &str, op: &str, args: Vec<A>, n: usize) -> Vec<Scalar> {
    ew_init(in_params, out_params, op, "", args, vec![], n).remove(0)
}

/// Runs a ReductionKernel: input shape `out_shape ++ reduce_shape`.
#[allow(clippy::too_many_arguments)]
fn red(
    in_params: &str,
    out_param: &str,
    map: &str,
    reduce: &str,
    post: &str,
    identity: &str,
    acc: DType,
    args: Vec<A>,
    out_shape: &[usize],
    reduce_shape: &[usize],
) -> Vec<Scalar> {
    let be = CpuBackend::new();
    let types = resolve(in_params, &args);
    let ins = parse_params("k", "in_params", in_params).unwrap();
    let out = parse_params("k", "out_params", out_param)
        .unwrap()
        .remove(0);
    let (mut ni, mut np) = (0, 0);
    let mut names = vec![];
    for (p, a) in ins.iter().zip(&args) {
        let binding = match a {
            A::Arr(_) => {
                ni += 1;
                Binding::Input(ni - 1)
            }
            A::S(_) => {
                np += 1;
                Binding::Param(np - 1)
            }
            A::Raw(_) => panic!("raw in reduction"),
        };
        names.push(Name {
            name: p.name.clone(),
            dtype: dt(&p.ty, &types),
            binding,
        });
    }
    let out_ty = dt(&out.ty, &types);
    let k = lower_reduction(&ReductionSource {
        name: "r",
        map_expr: map,
        reduce_expr: reduce,
        post_map_expr: post,
        identity: Some(identity),
        preamble: "",
        names: &names,
        output: (&out.name, out_ty),
        acc,
        types: &types,
        size_params: Some((np, np + 1)),
    })
    .unwrap_or_else(|e| panic!("{map} / {reduce} / {post}: {e}"));
    let mut shape = out_shape.to_vec();
    shape.extend_from_slice(reduce_shape);
    let bufs: Vec<Buffer> = args
        .iter()
        .filter_map(|a| match a {
            A::Arr(v) => Some(v),
            _ => None,
        })
        .zip(&k.inputs)
        .map(|(v, d)| upload(&be, v, *d))
        .collect();
    let mut params: Vec<Scalar> = args
        .iter()
        .filter_map(|a| match a {
            A::S(x) => Some(*x),
            _ => None,
        })
        .zip(&k.params)
        .map(|(x, d)| x.cast(*d))
        .collect();
    let total: usize = shape.iter().product();
    let nout: usize = out_shape.iter().product();
    params.push(Scalar::Int64(total as i64));
    params.push(Scalar::Int64(nout as i64));
    let o = be.alloc(out_ty, nout).unwrap();
    be.reduce(&ReductionCall {
        kernel: &k,
        out_shape: out_shape.to_vec(),
        reduce_shape: reduce_shape.to_vec(),
        inputs: bufs
            .iter()
            .map(|b| Operand {
                buffer: b,
                layout: Layout::contiguous(&shape),
            })
            .collect(),
        output: Operand {
            buffer: &o,
            layout: Layout::contiguous(out_shape),
        },
        params,
        extra_outputs: vec![],
    })
    .unwrap();
    download(&be, &o, out_ty, nout)
}

fn f64s(v: &[Scalar]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}
fn ints(v: &[Scalar]) -> Vec<i128> {
    v.iter().map(|x| x.to_i128()).collect()
}

/// Distance in units in the last place between two floats of `dtype` (given as f64).
fn ulps(a: f64, b: f64, dtype: DType) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    match dtype {
        Float32 => {
            let k = |x: f32| {
                let i = x.to_bits() as i32;
                if i < 0 {
                    i64::from(i32::MIN) - i64::from(i)
                } else {
                    i64::from(i)
                }
            };
            (k(a as f32) - k(b as f32)).unsigned_abs()
        }
        _ => {
            let k = |x: f64| {
                let i = x.to_bits() as i64;
                if i < 0 {
                    i64::MIN as i128 - i as i128
                } else {
                    i as i128
                }
            };
            (k(a) - k(b)).unsigned_abs() as u64
        }
    }
}

fn close(got: &[Scalar], want: &[f64], max_ulps: u64) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let d = ulps(g.to_f64(), *w, g.dtype());
        assert!(d <= max_ulps, "element {k}: got {g:?}, want {w} ({d} ulps)");
    }
}

const XS32: [f32; 8] = [-3.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.75, 10.0];

#[test]
fn reductions() {
    let x: Vec<f32> = (0..12).map(|k| k as f32 * 0.5 - 2.0).collect();
    // l2norm along the last axis.
    let r = red(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        "0",
        Float32,
        vec![arr(&x)],
        &[3],
        &[4],
    );
    let want: Vec<f64> = x
        .chunks(4)
        .map(|c| c.iter().map(|v| v * v).sum::<f32>().sqrt() as f64)
        .collect();
    close(&r, &want, 1);
    // max with -INFINITY identity.
    let r = red(
        "T x",
        "T y",
        "x",
        "max(a, b)",
        "y = a",
        "-INFINITY",
        Float32,
        vec![arr(&x)],
        &[],
        &[12],
    );
    close(&r, &[3.5], 0);
    // Empty reduction gives post(identity).
    let r = red(
        "T x",
        "T y",
        "x",
        "max(a, b)",
        "y = a",
        "-INFINITY",
        Float32,
        vec![arr(&x)],
        &[0],
        &[12],
    );
    assert!(r.is_empty());
    // Integer sum into int64, mean with the size objects.
    let xi: Vec<i32> = (1..=10).collect();
    let r = red(
        "int32 x",
        "int64 y",
        "x",
        "a + b",
        "y = a",
        "0",
        Int64,
        vec![arr(&xi)],
        &[],
        &[10],
    );
    assert_eq!(ints(&r), vec![55]);
    let r = red(
        "int32 x",
        "float64 y",
        "x",
        "a + b",
        "y = a / (_in_ind.size() / _out_ind.size())",
        "0",
        Float64,
        vec![arr(&xi)],
        &[2],
        &[5],
    );
    close(&r, &[3.0, 8.0], 0);
    // A weighted sum with a scalar param, a post with if/else.
    let r = red(
        "float32 x, float32 w",
        "float32 y",
        "x * w",
        "a + b",
        "float t = a - 1; if (t > 0) { y = t; } else { y = 0; }",
        "(float)0",
        Float32,
        vec![arr(&x), s(2.0f32)],
        &[3],
        &[4],
    );
    let want: Vec<f64> = x
        .chunks(4)
        .map(|c| (c.iter().map(|v| v * 2.0).sum::<f32>() - 1.0).max(0.0) as f64)
        .collect();
    close(&r, &want, 0);
    // Product with identity 1 and min with INT_MAX.
    let r = red(
        "int32 x",
        "int32 y",
        "x",
        "a * b",
        "y = a",
        "1",
        Int32,
        vec![arr(&[1i32, 2, 3, 4, 5])],
        &[],
        &[5],
    );
    assert_eq!(ints(&r), vec![120]);
    let r = red(
        "int32 x",
        "int32 y",
        "x < 0 ? -x : x",
        "min(a, b)",
        "y = a",
        "INT_MAX",
        Int32,
        vec![arr(&[-7i32, 9, -3, 4])],
        &[],
        &[4],
    );
    assert_eq!(ints(&r), vec![3]);
}

#[test]
fn more_cupy_style_kernels() {
    // absdiff with braces (CuPy docs style).
    let y: Vec<f32> = XS32.iter().rev().copied().collect();
    let r = ew(
        "T x, T y",
        "T z",
        "if (x > y) {\n  z = x - y;\n} else {\n  z = y - x;\n}",
        vec![arr(&XS32), arr(&y)],
        8,
    );
    close(
        &r,
        &XS32
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b).abs() as f64)
            .collect::<Vec<_>>(),
        0,
    );
    // xorshift on uint64 (wrapping shifts).
    let seeds = [1u64, 88172645463325252, u64::MAX];
    let r = ew(
        "uint64 x",
        "uint64 y",
        "unsigned long long v = x; v ^= v << 13; v ^= v >> 7; v ^= v << 17; y = v;",
        vec![arr(&seeds)],
        3,
    );
    let xs = |mut v: u64| {
        v ^= v << 13;
        v ^= v >> 7;
        v ^= v << 17;
        v
    };
    assert_eq!(
        ints(&r),
        seeds.iter().map(|&v| xs(v) as i128).collect::<Vec<_>>()
    );
    // Boolean mask input, int8 wrap-around on store.
    let r = ew(
        "bool m, float32 x",
        "float32 y",
        "y = m ? x : 0",
        vec![
            arr(&[true, false, true, false, true, true, false, true]),
            arr(&XS32),
        ],
        8,
    );
    assert_eq!(f64s(&r)[1], 0.0);
    assert_eq!(f64s(&r)[0], -3.5);
    let r = ew(
        "int8 a, int8 b",
        "int8 c",
        "c = a + b",
        vec![arr(&[100i8, -128, 5]), arr(&[100i8, -1, 5])],
        3,
    );
    assert_eq!(ints(&r), vec![-56, 127, 10]);
    // C precedence: shifts below additive, bitwise below comparisons.
    let r = ew(
        "int32 x",
        "int32 y",
        "y = x + 2 * 3 - 4 / 2 % 3 << 1 & 7 | 8 ^ 2 == 2",
        vec![arr(&[1i32, 5, -3])],
        3,
    );
    let (q, r3) = (4 / 2, 3);
    let f = |x: i32| ((((x + 6 - q % r3) << 1) & 7) | (8 ^ ((2 == 2) as i32))) as i128;
    assert_eq!(ints(&r), vec![f(1), f(5), f(-3)]);
    let r = ew(
        "int32 x",
        "bool y",
        "y = x > 0 == 1 && !(x & 1) || x == -3",
        vec![arr(&[1i32, 4, -3, -4])],
        4,
    );
    assert_eq!(ints(&r), vec![0, 1, 1, 0]);
    // Unsigned/signed mixing as C: -1 < 1u is false (converted to unsigned).
    let r = ew("int32 x", "bool y", "y = x < 1u", vec![arr(&[-1i32, 0])], 2);
    assert_eq!(ints(&r), vec![0, 1]);
}

/// Complex kernels (`complex<float>`, thrust-style functions) evaluated on the CPU: the parts
/// (real, imag, conj, the constructor) are exact; the math functions agree with num-complex.
#[test]
fn complex_kernels() {
    use num_complex::Complex;
    let zs: Vec<Complex<f32>> = vec![
        Complex::new(1.5, -2.0),
        Complex::new(-0.0, 3.25),
        Complex::new(-4.0, -0.0),
        Complex::new(f32::INFINITY, 1.0),
        Complex::new(0.5, f32::NAN),
    ];
    let rs: [f32; 5] = [2.0, -1.0, 0.0, 0.5, 3.0];
    let z = A::Arr(zs.iter().map(|&c| Scalar::Complex64(c)).collect());
    let n = zs.len();
    let c64 = |v: &[Scalar]| -> Vec<Complex<f32>> {
        v.iter()
            .map(|s| match s {
                Scalar::Complex64(c) => *c,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    // Parts and the constructor: bit-exact (signs of zero included).
    let got = c64(&ew(
        "complex64 z",
        "complex64 w",
        "w = complex<float>(z.imag(), z.real())",
        vec![z.clone()],
        n,
    ));
    for (g, w) in got.iter().zip(&zs) {
        assert!(same(g.re, w.im) && same(g.im, w.re), "{g} vs {w}");
    }
    let got = c64(&ew("T z", "T w", "w = conj(z)", vec![z.clone()], n));
    for (g, w) in got.iter().zip(&zs) {
        assert!(same(g.re, w.re) && same(g.im, -w.im), "{g} vs {w}");
    }
    let got = c64(&ew(
        "T z, float32 r",
        "T w",
        "w = T(r, -r)",
        vec![z.clone(), arr(&rs)],
        n,
    ));
    for (g, r) in got.iter().zip(&rs) {
        assert!(same(g.re, *r) && same(g.im, -*r), "{g}");
    }
    // abs / arg / norm are real.
    let got = ew(
        "T z",
        "float32 y",
        "y = abs(z) + 0 * arg(z) + 0 * norm(z)",
        vec![z.clone()],
        n,
    );
    for (g, w) in got.iter().zip(&zs) {
        let want = w.norm();
        assert!(
            g.to_f64() == want as f64 || (want.is_nan() && g.to_f64().is_nan()) || !w.is_finite(),
            "{g:?} vs {want}"
        );
    }
    // Math functions: as num-complex computes them, within a few ulps, on finite inputs.
    for (op, f) in [
        (
            "w = exp(z)",
            (|c: Complex<f32>| c.exp()) as fn(Complex<f32>) -> Complex<f32>,
        ),
        ("w = log(z)", |c| c.ln()),
        ("w = sqrt(z)", |c| c.sqrt()),
        ("w = z * z - 2.5f * z + 1", |c| c * c - c * 2.5 + 1.0),
        ("w = z / (z + 1)", |c| c.fdiv(c + 1.0)),
        ("w = polar(abs(z), arg(z))", |c| {
            Complex::from_polar(c.norm(), c.arg())
        }),
        ("w = sinh(z)", |c| c.sinh()),
    ] {
        let got = c64(&ew("T z", "T w", op, vec![z.clone()], n));
        for (k, (g, w)) in got.iter().zip(&zs).enumerate().take(3) {
            let want = f(*w);
            let d = ulps(g.re as f64, want.re as f64, Float32).max(ulps(
                g.im as f64,
                want.im as f64,
                Float32,
            ));
            let tiny = (g - want).norm() <= 1e-6 * want.norm().max(1.0);
            assert!(
                d <= 8 || tiny,
                "{op} [{k}]: got {g}, want {want} ({d} ulps)"
            );
        }
    }
}
