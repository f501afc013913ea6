//! Elementwise shaders: every op, dtype and cast; parameters, constants, loops, refusals.

use super::*;

#[test]
fn every_binary_op_every_dtype_validates() {
    let mut n = 0;
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        for op in BINOPS {
            let float_only = matches!(op, B::Atan2);
            let int_only = matches!(op, B::And | B::Or | B::Xor | B::Shl | B::Shr);
            if (float_only && !d.is_float()) || (int_only && d.is_float()) {
                continue;
            }
            let k = bin(op, *d);
            let r = emit_elementwise(&k, &specs(&k)[0], &opts());
            if *d == DType::Float64 && matches!(op, B::Pow | B::Atan2) {
                assert_no_f64_builtin(&r.as_ref().unwrap().source);
            }
            if *d == DType::Bool
                && matches!(op, B::Div | B::FloorDiv | B::Mod | B::Pow | B::Shl | B::Shr)
            {
                assert!(r.is_err());
                continue;
            }
            n += check_kernel(&k);
        }
    }
    assert!(n > 400, "{n}");
}

#[test]
fn every_unary_op_every_dtype_validates() {
    let ops = [
        U::Neg,
        U::Abs,
        U::Not,
        U::BitNot,
        U::Sqrt,
        U::Exp,
        U::Log,
        U::Sin,
        U::Cos,
        U::Tan,
        U::Tanh,
        U::Floor,
        U::Ceil,
        U::IsNan,
        U::IsInf,
        U::IsFinite,
    ];
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        for op in ops {
            let math = matches!(
                op,
                U::Sqrt | U::Exp | U::Log | U::Sin | U::Cos | U::Tan | U::Tanh
            );
            if (math && !d.is_float()) || (op == U::BitNot && d.is_float()) {
                continue;
            }
            let k = Kernel::map("un", vec![*d], vec![], Expr::unary(op, Expr::input(0, *d)));
            if *d == DType::Float64 && op.is_transcendental() {
                // Software float64 (no GLSL.std.450 builtin), and refused without SHADER_INT64.
                let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
                assert_no_f64_builtin(&src);
                let mut o = opts();
                o.shader_int64 = false;
                let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
                let msg = e.to_string();
                assert!(matches!(e, Error::DTypeNotSupported { .. }), "{msg}");
                assert!(msg.contains("SHADER_INT64"), "{msg}");
            }
            check_kernel(&k);
        }
    }
}

#[test]
fn every_cast_validates() {
    let all: Vec<DType> = [DType::Bool]
        .iter()
        .chain(&INTS)
        .chain(&FLOATS)
        .copied()
        .collect();
    for &a in &all {
        for &b in &all {
            let k = Kernel::map("cast", vec![a], vec![], Expr::input(0, a).cast(b));
            check_kernel(&k);
        }
    }
}

#[test]
fn params_constants_fill_arange() {
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        // fill: zero inputs.
        let k = Kernel::map("fill", vec![], vec![*d], Expr::param(0, *d));
        check_kernel(&k);
        // constants of every kind
        for v in [
            Scalar::Int64(0),
            Scalar::Int64(-1),
            Scalar::Int64(i64::MIN),
            Scalar::Float64(f64::NAN),
            Scalar::Float64(f64::NEG_INFINITY),
            Scalar::Float64(-0.0),
            Scalar::Float64(1e-310),
            Scalar::Float64(3.5e300),
        ] {
            let k = Kernel::map("c", vec![], vec![], Expr::constant(v.cast(*d)));
            check_kernel(&k);
        }
    }
    // arange: Param(0) + Cast(Index) * Param(1), cast to the dtype.
    for d in [
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Float64,
        DType::UInt8,
    ] {
        let f = DType::Float64;
        let v = Expr::binary(
            B::Add,
            Expr::param(0, f),
            Expr::binary(B::Mul, Expr::index().cast(f), Expr::param(1, f)),
        )
        .cast(d);
        let k = Kernel::map("arange", vec![], vec![f, f], v);
        check_kernel(&k);
    }
    // mixed params alignment: f32, f64, i64, bool, u8
    let k = Kernel::map(
        "mixed",
        vec![DType::Float32],
        vec![
            DType::Float32,
            DType::Float64,
            DType::Int64,
            DType::Bool,
            DType::UInt8,
        ],
        Expr::select(
            Expr::param(3, DType::Bool),
            Expr::binary(
                B::Add,
                Expr::input(0, DType::Float32),
                Expr::param(0, DType::Float32),
            ),
            Expr::param(1, DType::Float64).cast(DType::Float32),
        ),
    );
    check_kernel(&k);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert_eq!(sh.meta.params[1].0, 8);
    assert_eq!(sh.meta.words_offset % 16, 0);
}

#[test]
fn loops_ifs_loads_and_multiple_outputs() {
    for d in [DType::Float32, DType::Float64, DType::Int32, DType::Float16] {
        let k = convolve_kernel(d);
        assert!(!vec4_eligible(&k));
        check_kernel(&k);
    }
    // two outputs, conditional store, aliasing input/output binding
    let f = DType::Float32;
    let k = Kernel {
        name: "divmod".into(),
        inputs: vec![f, f],
        outputs: vec![f, f],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![
            Stmt::Store {
                output: 0,
                value: Expr::binary(B::FloorDiv, Expr::input(0, f), Expr::input(1, f)),
            },
            Stmt::Store {
                output: 1,
                value: Expr::binary(B::Mod, Expr::input(0, f), Expr::input(1, f)),
            },
        ],
    };
    assert!(vec4_eligible(&k));
    check_kernel(&k);
    let plan = BindingPlan::new(&[(1, f), (2, f)], &[(1, f), (3, f)], &[]);
    assert_eq!(plan.buffers.len(), 3);
    assert_eq!(plan.inputs[0], plan.outputs[0]);
    let s = ElementwiseSpec {
        ndim: 2,
        contiguous: false,
        vec4: false,
        wide_int64: false,
        bindings: plan,
    };
    validate(&emit_elementwise(&k, &s, &opts()).unwrap().source);
}

#[test]
fn refusals() {
    let k = bin(B::Add, DType::Complex128);
    let mut o = opts();
    o.shader_f64 = false;
    let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
    assert!(
        e.to_string()
            .contains("complex128 on a wgpu adapter without SHADER_F64"),
        "{e}"
    );
    let k = bin(B::Add, DType::Float64);
    let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
    assert!(
        e.to_string()
            .contains("float64 on a wgpu adapter without SHADER_F64"),
        "{e}"
    );
    let k = bin(B::Add, DType::Int64);
    o.shader_int64 = false;
    let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
    assert!(e.to_string().contains("SHADER_INT64"), "{e}");
    // index arithmetic works without SHADER_INT64 (narrow)
    let k = Kernel::map(
        "idx",
        vec![],
        vec![],
        Expr::binary(B::Mod, Expr::index(), Expr::constant(Scalar::Int64(7))).cast(DType::Float32),
    );
    emit_elementwise(&k, &specs(&k)[0], &o).unwrap();
    assert_eq!(
        storage_refusal(DType::Float64, false, true).unwrap(),
        "float64 on a wgpu adapter without SHADER_F64"
    );
    assert!(storage_refusal(DType::Float64, true, false).is_none());
}

/// Comparisons of narrow integers widened to `Int64` are emitted in the 32-bit type when
/// `Int64` is `i64` (a 64-bit integer operand): llvmpipe gets `i64(x) < 0li` wrong for -1.
#[test]
fn widened_narrow_comparisons_are_emitted_narrow() {
    let i64_ = DType::Int64;
    let c = |v: i64| Expr::constant(Scalar::Int64(v));
    let cases = [
        (DType::Int8, B::Lt, c(0), "< 0i)", true),
        (
            DType::Int32,
            B::Ge,
            c(-2147483648),
            ">= (-2147483647i - 1i))",
            true,
        ),
        (DType::UInt16, B::Le, c(70000), "<= 70000u)", true),
        (
            DType::Int16,
            B::Eq,
            c(1 << 40),
            "== 1099511627776li)",
            false,
        ),
        (DType::UInt8, B::Lt, c(-1), "< (-1li))", false),
    ];
    for (d, op, k, text, narrowed) in cases {
        let cmp = Expr::binary(op, Expr::input(0, d).cast(i64_), k);
        let body = Expr::select(cmp, Expr::input(1, i64_), c(0));
        let kern = Kernel::map("cmp", vec![d, i64_], vec![], body);
        let s = &specs(&kern)[0];
        let sh = emit_elementwise(&kern, s, &opts()).unwrap();
        validate(&sh.source);
        assert!(sh.source.contains(text), "{d} {op:?}: {}", sh.source);
        assert_eq!(sh.source.contains("(x0 "), narrowed, "{d}: {}", sh.source);
    }
}

#[test]
fn mulhi_is_a_u32_helper_and_refused_for_other_dtypes() {
    let k = bin(B::MulHi, DType::UInt32);
    let e = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(
        e.source.contains("fn mulhi_u32(a: u32, b: u32) -> u32"),
        "{}",
        e.source
    );
    check_kernel(&k);
    let k = bin(B::MulHi, DType::Int32);
    assert!(emit_elementwise(&k, &specs(&k)[0], &opts()).is_err());
}

/// No call of a GLSL.std.450 transcendental builtin in `src` (a name not preceded by an
/// identifier character, so the library's `r_exp_f64(` does not count).
pub(super) fn assert_no_f64_builtin(full: &str) {
    let code: Vec<&str> = full
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect();
    let src = code.join("\n");
    for f in [
        "exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "atan", "atan2", "pow",
    ] {
        let pat = format!("{f}(");
        for (i, _) in src.match_indices(&pat) {
            let prev = src[..i].chars().last().unwrap_or(' ');
            assert!(
                prev == '_' || prev.is_ascii_alphanumeric(),
                "builtin {f} in\n{full}"
            );
        }
    }
}

#[test]
fn float64_binary_math_is_software() {
    for op in [B::Pow, B::Atan2] {
        let d = DType::Float64;
        let k = Kernel::map(
            "bin",
            vec![d, d],
            vec![],
            Expr::binary(op, Expr::input(0, d), Expr::input(1, d)),
        );
        let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
        assert_no_f64_builtin(&src);
        check_kernel(&k);
    }
}

#[test]
fn packed_outputs_own_words_when_contiguous_and_are_atomic_otherwise() {
    for (d, per, q) in [
        (DType::Int8, 4, "a >> 2u"),
        (DType::Bool, 4, "a >> 2u"),
        (DType::UInt16, 2, "a >> 1u"),
    ] {
        let k = bin(B::Max, d);
        let s = &specs(&k)[0];
        assert!(s.contiguous);
        assert_eq!(packed_lead(&k, s, LoopMode::default()), Some((0, per)));
        let sh = emit_elementwise(&k, s, &opts()).unwrap().source;
        validate(&sh);
        // One invocation per output word: the word is read, its lanes inserted, written once.
        assert!(sh.contains("var wl = b") && sh.contains("= wl;"), "{sh}");
        assert!(sh.contains("wl = insertBits(wl, "), "{sh}");
        assert!(!sh.contains("atomic"), "{sh}");
        assert!(sh.contains(q), "{sh}");
        // Strided: owned words behind the flag word (the output C-contiguous), else one
        // invocation per element, the output's bits cleared and set atomically.
        let s = &specs(&k)[1];
        assert_eq!(packed_lead(&k, s, LoopMode::default()), Some((0, per)));
        assert!(packed_flag_word(&k, s) && !packed_flag_word(&k, &specs(&k)[0]));
        let sh = emit_elementwise(&k, s, &opts()).unwrap().source;
        validate(&sh);
        assert!(
            sh.contains("array<atomic<u32>>") && sh.contains("atomicAnd(&b0["),
            "{sh}"
        );
        assert!(sh.contains("atomicOr(&b0["), "{sh}");
        assert!(sh.contains("var wl = atomicLoad(&b0[wa]);"), "{sh}");
        assert!(sh.contains("atomicStore(&b0[wa], wl);"), "{sh}");
        let layout = Layout::contiguous(&[5]);
        let w = elementwise_words(s, &[5], &[&layout; 3], &[], Some(true));
        assert_eq!(w.len(), elementwise_n_words(&k, s));
        assert_eq!(w[1 + 1 + 3 * 2], 1);
        // Windowed launches (llvmpipe's loop budget) take the atomic path too.
        let w = LoopMode {
            guard: true,
            window: true,
        };
        assert_eq!(packed_lead(&k, &specs(&k)[0], w), None);
    }
}

/// Shifts of 64-bit integers by 64-bit constant amounts (32, 40, 300, -5, `i64::MIN`): naga's
/// constant evaluator cannot convert a 64-bit constant to u32, so the emitter clamps the amount
/// to a u32 literal itself (a negative amount counts as too large: 255).
#[test]
fn shifts_by_64_bit_constants_validate() {
    for d in [DType::Int64, DType::UInt64] {
        for amount in [32i64, 40, 300, -5, i64::MIN] {
            for op in [B::Shl, B::Shr] {
                let k = Kernel::map(
                    "shift",
                    vec![d],
                    vec![],
                    Expr::binary(
                        op,
                        Expr::input(0, d),
                        Expr::constant(Scalar::Int64(amount).cast(d)),
                    ),
                );
                let src = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap().source;
                let want = format!(
                    "{}u",
                    if amount < 0 && d == DType::Int64 {
                        255
                    } else {
                        (amount as u64).min(255)
                    }
                );
                assert!(src.contains(&want), "{d} {op:?} {amount}: {src}");
                check_kernel(&k);
            }
        }
    }
}

/// A body past `VEC4_MAX_NODES` runs one element per invocation (four copies of a long body
/// cost the shader compiler far more than they gain).
#[test]
fn long_bodies_are_not_vec4() {
    let f = DType::Float32;
    let body = |n: usize| {
        let mut e = Expr::input(0, f);
        for _ in 0..n {
            e = Expr::binary(B::Add, e, Expr::input(0, f));
        }
        Kernel::map("chain", vec![f], vec![], e)
    };
    // a chain of n additions has 2n + 1 nodes
    assert!(vec4_eligible(&body((VEC4_MAX_NODES - 1) / 2)));
    assert!(!vec4_eligible(&body(VEC4_MAX_NODES / 2 + 1)));
}
