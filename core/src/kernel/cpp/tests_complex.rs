//! The C++ emitter's complex kernels: prelude helpers, casts, refusals, every class and
//! reductions (split from `tests.rs`, which shares its helpers).
use super::tests::{add, spec};
use super::*;
use crate::dtype::DType;
use crate::error::Error;
use crate::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel, Stmt, UnaryOp};
use crate::scalar::Scalar;
#[test]
fn complex_elementwise_uses_the_prelude_helpers() {
    use num_complex::Complex;
    let c = DType::Complex64;
    let z = DType::Complex128;
    let e = emit_elementwise(
        &add(c),
        &spec(2, ElementwiseClass::Strided, false),
        Flavor::Cuda,
    )
    .unwrap();
    let s = &e.source;
    assert!(
        s.contains("struct alignas(2 * sizeof(T)) cp_cx"),
        "prelude defines cp_cx"
    );
    assert!(s.contains("const cp_c64* in0;"));
    assert!(s.contains("cp_c64* out0;"));
    assert!(s.contains("const cp_c64 x0"));
    assert!(s.contains("cp_cadd(x0, x1)"));
    assert!(s.contains("cp_c64 y0 = cp_cmake(0.0f, 0.0f);"), "{s}");
    // Every binary op the IR defines for complex.
    for (op, want) in [
        (BinaryOp::Sub, "cp_csub(x0, x1)"),
        (BinaryOp::Mul, "cp_cmul(x0, x1)"),
        (BinaryOp::Div, "cp_cdiv(x0, x1)"),
        (BinaryOp::Pow, "cp_cpow(x0, x1)"),
        (BinaryOp::Max, "cp_cmax(x0, x1)"),
        (BinaryOp::Min, "cp_cmin(x0, x1)"),
        (BinaryOp::FMax, "cp_cfmax(x0, x1)"),
        (BinaryOp::FMin, "cp_cfmin(x0, x1)"),
        (BinaryOp::Eq, "cp_ceq(x0, x1)"),
        (BinaryOp::Ne, "cp_cne(x0, x1)"),
        (BinaryOp::Lt, "cp_clt(x0, x1)"),
        (BinaryOp::Le, "cp_cle(x0, x1)"),
        (BinaryOp::Gt, "cp_clt(x1, x0)"),
        (BinaryOp::Ge, "cp_cle(x1, x0)"),
    ] {
        let k = Kernel::map(
            "b",
            vec![z, z],
            vec![],
            Expr::binary(op, Expr::input(0, z), Expr::input(1, z)),
        );
        let e = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Hip,
        )
        .unwrap();
        assert!(e.source.contains(want), "{op:?}: {want}");
        if op.is_comparison() {
            assert!(e.source.contains("bool& y0"), "{op:?} returns bool");
        }
    }
    for (op, want) in [
        (UnaryOp::Neg, "cp_cneg(x0)"),
        (UnaryOp::Sqrt, "cp_csqrt(x0)"),
        (UnaryOp::Exp, "cp_cexp(x0)"),
        (UnaryOp::Log, "cp_clog(x0)"),
        (UnaryOp::Sin, "cp_csin(x0)"),
        (UnaryOp::Cos, "cp_ccos(x0)"),
        (UnaryOp::Tan, "cp_ctan(x0)"),
        (UnaryOp::Tanh, "cp_ctanh(x0)"),
        (UnaryOp::Abs, "cp_cmake(cp_cabs(x0), (float)0)"),
        (UnaryOp::Not, "(!cp_cnonzero(x0))"),
        (UnaryOp::IsNan, "cp_cnan(x0)"),
        (UnaryOp::IsInf, "cp_cisinf(x0)"),
        (UnaryOp::IsFinite, "cp_cisfinite(x0)"),
    ] {
        let k = Kernel::map("u", vec![c], vec![], Expr::unary(op, Expr::input(0, c)));
        let e = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Cuda,
        )
        .unwrap();
        assert!(e.source.contains(want), "{op:?}: {want}");
    }
    // |z| typed real (NumPy's absolute loop F->f).
    let abs_real = Expr {
        ty: DType::Float32,
        kind: crate::kernel::ir::ExprKind::Unary(UnaryOp::Abs, Box::new(Expr::input(0, c))),
    };
    let e = emit_elementwise(
        &Kernel::map("absr", vec![c], vec![], abs_real),
        &spec(1, ElementwiseClass::Contiguous, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("y0 = cp_cabs(x0);"), "{}", e.source);
    // Complex constants and parameters.
    let k = Kernel::map(
        "axpy",
        vec![z],
        vec![z],
        Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, Expr::param(0, z), Expr::input(0, z)),
            Expr::constant(Scalar::Complex128(Complex::new(1.5, f64::INFINITY))),
        ),
    );
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Contiguous, true),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("cp_c128 p0;"));
    assert!(e
        .source
        .contains("cp_cmake((1.5), __longlong_as_double(0x7ff0000000000000ll))"));
    // The complex128 parameter is 16-byte aligned in the argument struct.
    let f = e
        .args
        .fields
        .iter()
        .find(|f| f.slot == Slot::Param(0))
        .unwrap();
    assert_eq!((f.offset % 16, f.size), (0, 16));
}

#[test]
fn complex_casts_follow_scalar_cast() {
    let c = DType::Complex64;
    let z = DType::Complex128;
    for (from, to, want) in [
        (z, c, "cp_to_c64(x0)"),
        (c, z, "cp_to_c128(x0)"),
        (c, DType::Bool, "cp_cnonzero(x0)"),
        (z, DType::Float64, "(x0).re"),
        (c, DType::Float16, "cp_rh((x0).re)"),
        (z, DType::Int8, "cp_d2i8((double)((x0).re))"),
        (c, DType::UInt64, "cp_d2u64((double)((x0).re))"),
        (DType::Float64, c, "cp_cmake(((float)(x0)), (float)0)"),
        (DType::Int64, z, "cp_cmake(((double)(x0)), (double)0)"),
        (DType::Bool, c, "cp_cmake(((float)(x0)), (float)0)"),
        (DType::Float16, z, "cp_cmake(((double)(x0)), (double)0)"),
    ] {
        let k = Kernel::map("cast", vec![from], vec![], Expr::input(0, from).cast(to));
        let e = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Cuda,
        )
        .unwrap();
        assert!(e.source.contains(want), "{from} -> {to}: {want}");
    }
}

#[test]
fn complex_ops_numpy_lacks_are_refused_by_name() {
    let c = DType::Complex128;
    for op in [
        BinaryOp::FloorDiv,
        BinaryOp::Mod,
        BinaryOp::And,
        BinaryOp::Atan2,
        BinaryOp::Shl,
    ] {
        let k = Kernel::map(
            "b",
            vec![c, c],
            vec![],
            Expr::binary(op, Expr::input(0, c), Expr::input(1, c)),
        );
        let err = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Cuda,
        )
        .unwrap_err();
        match err {
            Error::DTypeNotSupported {
                op: o, dtype: d, ..
            } => assert_eq!((o, d), (format!("{op:?}"), c)),
            e => panic!("{op:?}: {e}"),
        }
    }
    for op in [UnaryOp::Floor, UnaryOp::Ceil, UnaryOp::BitNot] {
        let k = Kernel::map("u", vec![c], vec![], Expr::unary(op, Expr::input(0, c)));
        let err = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Hip,
        )
        .unwrap_err();
        assert!(
            matches!(&err, Error::DTypeNotSupported { op: o, .. } if *o == format!("{op:?}")),
            "{err}"
        );
    }
    // Atomic updates of complex elements stay refused.
    let k = Kernel {
        name: "scatter_add".into(),
        inputs: vec![DType::Int64, c],
        outputs: vec![],
        raws: vec![c],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::AtomicRaw {
            raw: 0,
            op: crate::kernel::ir::AtomicOp::Add,
            index: Expr::input(0, DType::Int64),
            value: Expr::input(1, c),
            old: None,
        }],
    };
    let err = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Contiguous, false),
        Flavor::Cuda,
    )
    .unwrap_err();
    assert!(matches!(err, Error::DTypeNotSupported { .. }), "{err}");
}

#[test]
fn complex_every_class_and_reductions() {
    let c = DType::Complex64;
    let z = DType::Complex128;
    let v = emit_elementwise(
        &add(c),
        &spec(1, ElementwiseClass::Vectorized, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert_eq!(v.vector, 2);
    assert!(v.source.contains("cp_vec<cp_c64, 2>"));
    let u = Kernel::map(
        "neg",
        vec![z],
        vec![],
        Expr::unary(UnaryOp::Neg, Expr::input(0, z)),
    );
    assert!(tiled_fits(&u));
    assert!(
        !tiled_fits(&add(z)),
        "two complex128 inputs and an output exceed 40 KiB"
    );
    let t = emit_elementwise(&u, &spec(2, ElementwiseClass::Tiled, false), Flavor::Hip).unwrap();
    assert!(t.source.contains("__shared__ cp_c128 t_in0[32][33];"));
    // sum and mean (complex division by the count) of complex128.
    let sum = ReduceKernel::simple("sum", z, z, BinaryOp::Add, Scalar::zero(z), z);
    let mut mean = sum.clone();
    mean.name = "mean".into();
    mean.params = vec![z];
    mean.post = Expr::binary(BinaryOp::Div, Expr::var(0, z), Expr::param(0, z));
    for k in [sum, mean] {
        let e = emit_reduce(
            &k,
            &ReduceSpec {
                out_ndim: 1,
                red_ndim: 2,
                index64: false,
            },
            Flavor::Cuda,
        )
        .unwrap();
        let s = &e.source;
        assert!(s.contains("__shared__ cp_c128 sm[8];"));
        assert!(s.contains("cp_cadd(v0, v1)"));
        assert!(s.contains("#define cupy_"));
        assert!(s.contains("(cp_cmake((0.0), (0.0)))"), "identity literal");
        assert!(s.contains("cp_c128 cp_shfl_down(cp_c128 v, int off)"));
        assert!(s.contains("cp_vec<cp_c128, 1>"));
        if k.name == "mean" {
            assert!(s.contains("cp_cdiv(v0, p0)"), "{s}");
        }
    }
}
