//! complex64/complex128: every operator, function, cast and reduction the IR has for complex
//! emits WGSL that naga validates; complex128 functions use the software float64 library (no
//! transcendental builtin); helpers are emitted only when used.

use super::*;

const CX: [DType; 2] = [DType::Complex64, DType::Complex128];

fn un(op: U, d: DType) -> Kernel {
    Kernel::map("un", vec![d], vec![], Expr::unary(op, Expr::input(0, d)))
}

const UNARY: [U; 17] = [
    U::Neg,
    U::Abs,
    U::Not,
    U::Sqrt,
    U::Exp,
    U::Log,
    U::Sin,
    U::Cos,
    U::Tan,
    U::Tanh,
    U::IsNan,
    U::IsInf,
    U::IsFinite,
    U::Real,
    U::Imag,
    U::Conj,
    U::Floor,
];

fn transcendental(op: U) -> bool {
    matches!(op, U::Exp | U::Log | U::Sin | U::Cos | U::Tan | U::Tanh)
}

#[test]
fn complex_unary_ops_validate_or_refuse() {
    let mut n = 0;
    for d in CX {
        for op in UNARY {
            let k = un(op, d);
            let r = emit_elementwise(&k, &specs(&k)[0], &opts());
            if op == U::Floor {
                let e = r.unwrap_err();
                assert!(e.to_string().contains("not defined for complex"), "{e}");
            } else if d == DType::Complex128 && transcendental(op) {
                let src = r.unwrap().source;
                super::elementwise::assert_no_f64_builtin(&src);
                n += check_kernel(&k);
            } else {
                n += check_kernel(&k);
            }
        }
    }
    assert!(n > 100);
}

#[test]
fn complex_binary_ops_validate_or_refuse() {
    for d in CX {
        for op in BINOPS {
            let k = bin(op, d);
            let r = emit_elementwise(&k, &specs(&k)[0], &opts());
            let undefined = matches!(
                op,
                B::FloorDiv | B::Mod | B::And | B::Or | B::Xor | B::Shl | B::Shr | B::Atan2
            );
            if undefined {
                assert!(matches!(r, Err(Error::DTypeNotSupported { .. })), "{op:?}");
            } else if d == DType::Complex128 && op == B::Pow {
                super::elementwise::assert_no_f64_builtin(&r.unwrap().source);
                check_kernel(&k);
            } else {
                check_kernel(&k);
            }
        }
    }
}

#[test]
fn complex_casts_constants_and_params_validate() {
    let all = [
        DType::Bool,
        DType::Int8,
        DType::UInt16,
        DType::Int32,
        DType::Int64,
        DType::UInt64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];
    for &from in &all {
        for to in CX {
            let k = Kernel::map("cast", vec![from], vec![], Expr::input(0, from).cast(to));
            check_kernel(&k);
            let k = Kernel::map("cast", vec![to], vec![], Expr::input(0, to).cast(from));
            check_kernel(&k);
        }
    }
    for d in CX {
        // x * (1.5 - 2j) + p0, parameters as vec2 members of the uniform.
        let c = Scalar::Complex128(num_complex::Complex::new(1.5, -2.0)).cast(d);
        let body = Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::input(0, d), Expr::constant(c)),
            Expr::param(0, d),
        );
        let k = Kernel::map("affine", vec![d], vec![d], body);
        let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
        validate(&sh.source);
        assert_eq!(
            sh.meta.params[0].1,
            if d == DType::Complex64 {
                ParamRepr::C64
            } else {
                ParamRepr::C128
            }
        );
        let bytes = sh.meta.pack(
            &[Scalar::Complex128(num_complex::Complex::new(3.0, -4.0))],
            &[1],
        );
        let w = if d == DType::Complex64 { 4 } else { 8 };
        let part = |o: usize| -> f64 {
            if w == 4 {
                f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) as f64
            } else {
                f64::from_le_bytes(bytes[o..o + 8].try_into().unwrap())
            }
        };
        assert_eq!((part(0), part(w)), (3.0, -4.0));
        // complex(re, im) from two reals
        let r = d.real_dtype();
        let k = Kernel::map(
            "make",
            vec![r, r],
            vec![],
            Expr::complex(Expr::input(0, r), Expr::input(1, r)),
        );
        check_kernel(&k);
    }
}

#[test]
fn complex_helpers_only_when_used() {
    let k = bin(B::Add, DType::Complex64);
    let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
    assert!(!src.contains("fn cx_") && !src.contains("fn r_"), "{src}");
    let k = bin(B::Div, DType::Complex64);
    let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
    assert!(src.contains("fn cx_div_f32") && src.contains("fn r_div0_f32"));
    assert!(
        !src.contains("fn cx_mul_f32") && !src.contains("exp("),
        "{src}"
    );
    // Each helper once, even when used many times.
    let k = un(U::Tan, DType::Complex64);
    let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
    assert_eq!(src.matches("fn r_isfin_f32").count(), 1);
    // complex128 sqrt and absolute use no transcendental builtin.
    for op in [U::Sqrt, U::Abs] {
        let k = un(op, DType::Complex128);
        let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
        for f in ["exp(", "log(", "sin(", "cos(", "atan2("] {
            assert!(!src.contains(f), "{op:?} uses {f}");
        }
    }
}

#[test]
fn complex_reductions_validate() {
    for d in CX {
        for (name, op) in [("sum", B::Add), ("prod", B::Mul)] {
            let id = if op == B::Add {
                Scalar::zero(d)
            } else {
                Scalar::one(d)
            };
            let k = ReduceKernel::simple(name, d, d, op, id, d);
            for s in rspecs(&k) {
                validate(&emit_reduction(&k, &s, &opts()).unwrap().source);
            }
        }
    }
}

#[test]
fn payne_hanek_table_is_two_over_pi() {
    let src = super::super::real_lib::sincos_large(true);
    // ARM optimized-routines' __inv_pio4: windows of 2/pi's bits, 8 bits apart.
    assert!(src.contains("0xa2u, 0xa2f9u, 0xa2f983u, 0xa2f9836eu, 0xf9836e4eu, 0x836e4e44u"));
    assert!(src.contains("0x95993c43u, 0x993c4390u, 0x3c439041u)"));
    assert!(!super::super::real_lib::sincos_large(false).contains("u64"));
}

/// Guards against llvmpipe's fast-math folds: `x * 0` keeps the sign from the bits, constants
/// of sums are hidden (each use distinct), reductions fold from the first element.
#[test]
fn fold_guards_are_emitted() {
    let f = DType::Float32;
    let mul0 = Kernel::map(
        "mul0",
        vec![f],
        vec![],
        Expr::binary(
            B::Mul,
            Expr::input(0, f),
            Expr::constant(Scalar::Float32(-0.0)),
        ),
    );
    let src = emit_elementwise(&mul0, &specs(&mul0)[0], &opts())
        .unwrap()
        .source;
    assert!(src.contains("^ 0x80000000u) & 0x80000000u"), "{src}");
    check_kernel(&mul0);
    // (1 + x) - 1: two distinct opaque ones.
    let one = || Expr::constant(Scalar::Float32(1.0));
    let k = Kernel::map(
        "kahan",
        vec![f],
        vec![],
        Expr::binary(
            B::Sub,
            Expr::binary(B::Add, one(), Expr::input(0, f)),
            one(),
        ),
    );
    let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
    assert!(src.contains(">> 0u)") && src.contains(">> 1u)"), "{src}");
    check_kernel(&k);
    let r = ReduceKernel::simple(
        "fmax",
        DType::Complex64,
        DType::Complex64,
        B::FMax,
        Scalar::Complex64(num_complex::Complex::new(f32::NAN, f32::NAN)),
        DType::Complex64,
    );
    let s = &rspecs(&r)[0];
    let src = emit_reduction(&r, s, &opts()).unwrap().source;
    assert!(
        // Each invocation's first element starts its accumulator (NumPy folds from the first).
        src.contains("acc = vp;\n    fresh = false;"),
        "{src}"
    );
}
