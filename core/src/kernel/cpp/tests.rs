use super::types::literal;
use super::*;
use crate::dtype::DType;
use crate::error::Error;
use crate::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel, Stmt, UnaryOp};
use crate::scalar::Scalar;

pub(super) fn add(d: DType) -> Kernel {
    Kernel::map(
        "add",
        vec![d, d],
        vec![],
        Expr::binary(BinaryOp::Add, Expr::input(0, d), Expr::input(1, d)),
    )
}

pub(super) fn spec(ndim: usize, class: ElementwiseClass, index64: bool) -> ElementwiseSpec {
    ElementwiseSpec {
        ndim,
        class,
        index64,
    }
}

#[test]
fn elementwise_strided_has_args_struct_and_grid_stride() {
    let e = emit_elementwise(
        &add(DType::Float32),
        &spec(3, ElementwiseClass::Strided, false),
        Flavor::Cuda,
    )
    .unwrap();
    let s = &e.source;
    assert!(s.contains("__shfl_down_sync"), "CUDA prelude");
    assert!(s.contains("struct cupy_add_args"));
    assert!(s.contains("cp_i32 shape2;"));
    assert!(s.contains("cp_i32 st_in1_2;"));
    assert!(s.contains(
        "extern \"C\" __global__ void __launch_bounds__(256) cupy_add(const cupy_add_args a)"
    ));
    assert!(s.contains("i += step"));
    assert!(s.contains("((x0) + (x1))"));
    assert_eq!(e.entries, vec!["cupy_add".to_string()]);
    // size, 3 shape, 3 operands * (ptr + 3 strides)
    assert_eq!(e.args.fields.len(), 1 + 3 + 3 * 4);
    // no concrete sizes baked in
    assert!(!s.contains("1024"));
    let e64 = emit_elementwise(
        &add(DType::Float32),
        &spec(3, ElementwiseClass::Strided, true),
        Flavor::Hip,
    )
    .unwrap();
    assert!(e64.source.contains("cp_i64 shape2;"));
    assert!(e64.source.contains("__shfl_down((v), (off))"));
    assert!(!e64.source.contains("__shfl_down_sync"));
}

#[test]
fn vectorized_has_vector_loads_and_tail() {
    let e = emit_elementwise(
        &add(DType::Float32),
        &spec(1, ElementwiseClass::Vectorized, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert_eq!(e.vector, 4);
    assert!(e.source.contains("cp_vec<float, 4>"));
    assert!(e.source.contains("nv * 4u + tid"), "{}", e.source);
    let h = emit_elementwise(
        &add(DType::Float16),
        &spec(1, ElementwiseClass::Vectorized, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert_eq!(h.vector, 8);
    assert!(h.source.contains("cp_rh(((x0) + (x1)))"));
    assert!(h.source.contains("cp_f2h(y0)"));
    assert!(h.source.contains("cp_h2f(vx0.v[j])"));
}

#[test]
fn semantics_helpers_are_used() {
    for (op, want) in [
        (BinaryOp::Div, "cp_idiv<cp_i32>"),
        (BinaryOp::FloorDiv, "cp_ifloordiv<cp_i32>"),
        (BinaryOp::Mod, "cp_imod<cp_i32>"),
        (BinaryOp::Pow, "cp_ipow<cp_i32>"),
        (BinaryOp::Add, "cp_wadd<cp_i32>"),
        (BinaryOp::Shl, "cp_shl<cp_i32, cp_i32>"),
    ] {
        let k = Kernel::map(
            "k",
            vec![DType::Int32; 2],
            vec![],
            Expr::binary(
                op,
                Expr::input(0, DType::Int32),
                Expr::input(1, DType::Int32),
            ),
        );
        let e = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Cuda,
        )
        .unwrap();
        assert!(e.source.contains(want), "{op:?}");
    }
    for (op, want) in [
        (BinaryOp::Max, "cp_max<float>"),
        (BinaryOp::FMin, "cp_fmin<float>"),
        (BinaryOp::FloorDiv, "cp_f32_floordiv"),
        (BinaryOp::Mod, "cp_f32_mod"),
        (BinaryOp::Pow, "powf"),
    ] {
        let k = Kernel::map(
            "k",
            vec![DType::Float32; 2],
            vec![],
            Expr::binary(
                op,
                Expr::input(0, DType::Float32),
                Expr::input(1, DType::Float32),
            ),
        );
        let e = emit_elementwise(
            &k,
            &spec(1, ElementwiseClass::Contiguous, false),
            Flavor::Cuda,
        )
        .unwrap();
        assert!(e.source.contains(want), "{op:?}");
    }
    // casts: float -> int saturates, f64 -> f16 rounds directly
    let k = Kernel::map(
        "c",
        vec![DType::Float64],
        vec![],
        Expr::input(0, DType::Float64).cast(DType::UInt8),
    );
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Contiguous, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("cp_d2u8((double)(x0))"));
    let k = Kernel::map(
        "c",
        vec![DType::Float64],
        vec![],
        Expr::input(0, DType::Float64).cast(DType::Float16),
    );
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Contiguous, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("cp_h2f(cp_d2h((double)(x0)))"));
}

#[test]
fn zero_input_fill_and_params() {
    let k = Kernel::map(
        "fill",
        vec![],
        vec![DType::Float16],
        Expr::param(0, DType::Float16),
    );
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Vectorized, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("cp_u16 p0;"));
    assert!(e.source.contains("const float p0 = cp_h2f(a.p0);"));
    let bytes = e
        .args
        .pack(|s| match s {
            Slot::Size => ArgValue::Int(10),
            Slot::Ptr(_) => ArgValue::Ptr(0x1000),
            Slot::Param(_) => ArgValue::Scalar(Scalar::Float64(1.0)),
            _ => ArgValue::Int(0),
        })
        .unwrap();
    // size(4) pad(4) ptr(8) param(2) -> 18 rounded to 24
    assert_eq!(bytes.len(), 24);
    assert_eq!(&bytes[0..4], &10i32.to_le_bytes());
    assert_eq!(&bytes[8..16], &0x1000u64.to_le_bytes());
    assert_eq!(
        &bytes[16..18],
        &half::f16::from_f32(1.0).to_bits().to_le_bytes()
    );
    // 32-bit index overflow is refused
    assert!(e
        .args
        .pack(|s| match s {
            Slot::Size => ArgValue::Int(1 << 40),
            Slot::Ptr(_) => ArgValue::Ptr(0),
            Slot::Param(_) => ArgValue::Scalar(Scalar::Float16(half::f16::ONE)),
            _ => ArgValue::Int(0),
        })
        .is_err());
}

#[test]
fn locals_loops_ifs_loads() {
    let i64t = DType::Int64;
    let k = Kernel {
        name: "conv".into(),
        inputs: vec![],
        outputs: vec![DType::Float32],
        raws: vec![DType::Float32],
        params: vec![i64t],
        locals: vec![DType::Float32, i64t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::Float32(0.0)),
            },
            Stmt::For {
                var: 1,
                start: Expr::constant(Scalar::Int64(0)),
                end: Expr::param(0, i64t),
                body: vec![Stmt::If {
                    cond: Expr::binary(
                        BinaryOp::Lt,
                        Expr::binary(BinaryOp::Add, Expr::index(), Expr::var(1, i64t)),
                        Expr::param(0, i64t),
                    ),
                    then_body: vec![Stmt::Assign {
                        var: 0,
                        value: Expr::binary(
                            BinaryOp::Add,
                            Expr::var(0, DType::Float32),
                            Expr::load(
                                0,
                                DType::Float32,
                                Expr::binary(BinaryOp::Add, Expr::index(), Expr::var(1, i64t)),
                            ),
                        ),
                    }],
                    else_body: vec![],
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, DType::Float32),
            },
        ],
    };
    let e = emit_elementwise(&k, &spec(2, ElementwiseClass::Strided, true), Flavor::Cuda).unwrap();
    assert!(
        e.source.contains("for (v1 = ((cp_i64)0ll); v1 < e1; ++v1)"),
        "{}",
        e.source
    );
    assert!(e.source.contains("a.r0["));
    assert!(e.source.contains("float* r0;"));
    // A looping body is never vectorized (NVRTC unrolls the lanes around it; see vector_width).
    assert_eq!(vector_width(&k), 1);
    assert_eq!(vector_width(&add(DType::Float32)), 4);
}

#[test]
fn raw_operands_count_in_the_vector_width() {
    // bools from float32 read at the item's index (unique's run starts): 16 bytes of the raw
    // operand a thread, 4 items, not 16 bools
    let i = Expr::index();
    let value = Expr::binary(
        BinaryOp::Ne,
        Expr::load(0, DType::Float32, i.clone()),
        Expr::load(0, DType::Float32, i),
    );
    let mut k = Kernel::map("runs", vec![], vec![], value);
    assert_eq!(k.outputs, vec![DType::Bool]);
    assert_eq!(vector_width(&k), 16);
    k.raws = vec![DType::Float32];
    assert_eq!(vector_width(&k), 4);
    k.raws = vec![DType::Complex128];
    assert_eq!(vector_width(&k), 1);
}

#[test]
fn conditional_store_preloads_output() {
    let k = Kernel {
        name: "relu_inplace".into(),
        inputs: vec![DType::Float32],
        outputs: vec![DType::Float32],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::binary(
                BinaryOp::Lt,
                Expr::input(0, DType::Float32),
                Expr::constant(Scalar::Float32(0.0)),
            ),
            then_body: vec![Stmt::Store {
                output: 0,
                value: Expr::constant(Scalar::Float32(0.0)),
            }],
            else_body: vec![],
        }],
    };
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Vectorized, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e
        .source
        .contains("vy0 = *(cp_vec<float, 4>*)(a.out0 + base)"));
}

#[test]
fn special_float_constants() {
    assert_eq!(
        literal(Scalar::Float32(f32::INFINITY)),
        "__uint_as_float(0x7f800000u)"
    );
    assert_eq!(literal(Scalar::Float32(1.0)), "(1.0f)");
    assert_eq!(literal(Scalar::Float64(0.1)), "(0.1)");
    assert_eq!(literal(Scalar::Float64(1e300)), "(1e300)");
    assert_eq!(
        literal(Scalar::Int64(i64::MIN)),
        "((cp_i64)(-9223372036854775807ll - 1))"
    );
    assert!(literal(Scalar::Float64(f64::NAN)).starts_with("__longlong_as_double(0x7ff8"));
}

#[test]
fn reduction_has_three_entries() {
    let k = ReduceKernel::simple(
        "sum",
        DType::Float16,
        DType::Float32,
        BinaryOp::Add,
        Scalar::Float32(0.0),
        DType::Float16,
    );
    let e = emit_reduce(
        &k,
        &ReduceSpec {
            out_ndim: 2,
            red_ndim: 1,
            index64: false,
        },
        Flavor::Cuda,
    )
    .unwrap();
    assert_eq!(
        e.entries,
        vec![
            "cupy_sum_inner",
            "cupy_sum_outer",
            "cupy_sum_finish",
            "cupy_sum_inner_vec"
        ]
    );
    let s = &e.source;
    assert!(s.contains("cp_shfl_down(v, off)"));
    assert!(s.contains("__shared__ float sm[8]"));
    assert!(s.contains("__shared__ float sm[8][33]"));
    assert!(s.contains("a.partial["));
    assert!(s.contains("cp_f2h(cupy_sum_post0(a, acc))"));
    assert!(s.contains("cp_i32 rst_in0_0;"));
    // identity must be of the accumulator type
    let mut bad = k.clone();
    bad.identity = vec![Scalar::Int32(0)];
    assert!(emit_reduce(
        &bad,
        &ReduceSpec {
            out_ndim: 1,
            red_ndim: 1,
            index64: false
        },
        Flavor::Cuda
    )
    .is_err());
    let _ = UnaryOp::Exp;
}

#[test]
fn scatter_stores_and_atomics() {
    use crate::kernel::ir::AtomicOp;
    use crate::kernel::wgsl::tests::scatter_kernel;
    let sp = spec(1, ElementwiseClass::Contiguous, false);
    let src = |d: DType, op: Option<AtomicOp>| {
        emit_elementwise(&scatter_kernel(d, op, true), &sp, Flavor::Cuda)
            .unwrap()
            .source
    };
    let s = src(DType::Float32, None);
    assert!(s.contains("float* r0;"), "raw pointers are writable");
    assert!(s.contains("a.r0[x0] = x1;"), "{s}");
    let s = src(DType::Float32, Some(AtomicOp::Add));
    assert!(s.contains("atomicAdd((float*)p, (float)v)"));
    assert!(s.contains("cupy_scatter_float32_Some_Add__atomic_add_float32(&a.r0[x0], x1);"));
    let s = src(DType::Int64, Some(AtomicOp::Add));
    assert!(s.contains("atomicAdd((unsigned long long*)p, (unsigned long long)v)"));
    let s = src(DType::Int32, Some(AtomicOp::Max));
    assert!(s.contains("atomicMax((int*)p, (int)v)"));
    let s = src(DType::Int64, Some(AtomicOp::Min));
    assert!(s.contains("atomicCAS(w, old, nb)") && s.contains("cp_min(cur, v)"));
    let s = src(DType::Float64, Some(AtomicOp::Max));
    assert!(s.contains("__longlong_as_double") && s.contains("cp_max(cur, v)"));
    let s = src(DType::Int8, Some(AtomicOp::Add));
    assert!(s.contains("addr & ~3ull") && s.contains("cp_wadd(cur, v)"));
    let s = src(DType::Float16, Some(AtomicOp::Add));
    assert!(s.contains("cp_rh((cur + v))") && s.contains("0xffffu"));
    let s = src(DType::Bool, Some(AtomicOp::Min));
    assert!(s.contains("(cur && v)"));
    let e = emit_elementwise(
        &scatter_kernel(DType::Complex64, Some(AtomicOp::Add), false),
        &sp,
        Flavor::Hip,
    )
    .unwrap_err();
    assert!(matches!(e, Error::DTypeNotSupported { .. }));
}

/// A tuple reduction: the accumulator struct, its shuffle and identity, the map/combine/post
/// over its members, and the partial buffer's segments (16-byte aligned, one per accumulator).
#[test]
fn tuple_reduction_emits_a_struct_accumulator() {
    use crate::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    let spec = ReduceSpec {
        out_ndim: 1,
        red_ndim: 1,
        index64: false,
    };
    let k = arg_extreme(DType::Float32, Extreme::Max);
    let s = emit_reduce(&k, &spec, Flavor::Cuda).unwrap().source;
    assert!(
        s.contains("struct cupy_argmax_acc { float v0; cp_i64 v1; };"),
        "{s}"
    );
    assert!(s.contains("CP_DEV cupy_argmax_acc cp_shfl_down(cupy_argmax_acc v, int off)"));
    assert!(s.contains("r.v1 = ((cp_i64)9223372036854775807ll);"), "{s}");
    assert!(s.contains("const float v2 = b_.v0;"));
    assert!(s.contains("unsigned char* partial"));
    assert!(s.contains("cupy_argmax_pw(a, "));
    assert!(s.contains("cupy_argmax_pr(a, o * ns + s)"));
    assert!(s.contains("__shared__ cupy_argmax_acc sm[8]"));
    // (count, mean, M2) of complex64: segments of 8, 8 and 4 bytes per partial
    let k = moments(DType::Complex64, Moment::Var);
    let s = emit_reduce(&k, &spec, Flavor::Hip).unwrap().source;
    assert!(
        s.contains("struct cupy_var_acc { cp_i64 v0; cp_c64 v1; float v2; };"),
        "{s}"
    );
    assert!(s.contains("if (j > 1) p += (n * 8ull + 15ull) / 16ull * 16ull;"));
    assert_eq!(partial_bytes(&k, 3), 32 + 32 + 16);
    // a single accumulator keeps its plain type
    let k = ReduceKernel::simple(
        "s",
        DType::Float32,
        DType::Float32,
        BinaryOp::Add,
        Scalar::Float32(0.0),
        DType::Float32,
    );
    let s = emit_reduce(&k, &spec, Flavor::Cuda).unwrap().source;
    assert!(s.contains("float* partial") && !s.contains("_acc {"));
}

#[test]
fn mulhi_is_a_64_bit_product_shifted() {
    let u = DType::UInt32;
    let k = Kernel::map(
        "mulhi",
        vec![u, u],
        vec![],
        Expr::binary(BinaryOp::MulHi, Expr::input(0, u), Expr::input(1, u)),
    );
    k.validate().unwrap();
    let e = emit_elementwise(
        &k,
        &spec(1, ElementwiseClass::Contiguous, false),
        Flavor::Cuda,
    )
    .unwrap();
    assert!(e.source.contains("(unsigned long long)"), "{}", e.source);
    let i = DType::Int32;
    let bad = Kernel::map(
        "mulhi",
        vec![i, i],
        vec![],
        Expr::binary(BinaryOp::MulHi, Expr::input(0, i), Expr::input(1, i)),
    );
    assert!(bad.validate().is_err(), "MulHi of int32 must not validate");
}

/// A reduction of several outputs: one pointer and stride set per output, a post function per
/// output, every output written by the single-pass and the finish entries.
#[test]
fn merged_reduction_writes_every_output() {
    use crate::kernel::reductions::{arg_extreme, Extreme};
    let f = DType::Float16;
    let sum = ReduceKernel::simple(
        "sum",
        f,
        DType::Float32,
        BinaryOp::Add,
        Scalar::Float32(0.0),
        f,
    );
    let k = ReduceKernel::merge("both", &[sum, arg_extreme(f, Extreme::Max)], 0).unwrap();
    let spec = ReduceSpec {
        out_ndim: 2,
        red_ndim: 1,
        index64: false,
    };
    let s = emit_reduce(&k, &spec, Flavor::Cuda).unwrap().source;
    for want in [
        "cp_u16* out0",
        "cp_i64* out1",
        "cp_i32 st_out1_1",
        "cupy_both_post1(const cupy_both_args& a, cupy_both_acc acc_)",
        "a.out0[oo0] = cp_f2h(cupy_both_post0(a, acc));",
        "a.out1[oo1] = cupy_both_post1(a, acc);",
        "oo1 += (cp_i32)c * a.st_out1_0;",
    ] {
        assert!(s.contains(want), "{want}\n{s}");
    }
    // Written in the single-pass branch of inner/outer/inner_vec and in finish.
    assert_eq!(s.matches("a.out1[oo1] = ").count(), 4, "{s}");
}
