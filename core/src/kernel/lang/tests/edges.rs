//! Emitters accept lowered kernels; directives, pathological inputs, raw writes, complex
//! types and the wording of errors.

use super::*;

/// Lowered kernels are accepted by the WGSL emitter (validated with naga) and the C++ emitter.
#[test]
fn emitters_accept_lowered_kernels() {
    use crate::kernel::{cpp, wgsl};
    fn validate(src: &str) {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
        let mut v = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::FLOAT64
                | naga::valid::Capabilities::SHADER_INT64
                | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
        );
        v.validate(&module)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
    }
    let opts = wgsl::WgslOptions {
        shader_f64: true,
        shader_int64: true,
        int64_atomics: true,
        fused_fma: true,
        device: "test".into(),
    };
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("c", Float32, Binding::Raw(0)),
        n("k", Int32, Binding::Param(0)),
        n("y", Float32, Binding::Output(0)),
        n("m", Int32, Binding::Output(1)),
    ];
    let pre = "float sq(float v) { if (v < 0) return 0; return v * v; }";
    for op in [
        "y = (x - 1) * (x - 1); m = k",
        "y = x + c[_ind.size() - i - 1]; m = i % 7",
        "float s = 0; for (int j = k - 1; j >= 0; j--) s = s * x + c[j]; y = s; m = 1",
        "if (x < 0) y = 0; else if (x > 1) y = 1; else y = x; m = (int)x << 2 | 1",
        "y = 1 / (1 + expf(-x)) + round(x) + fmodf(x, 2.5f) + log1pf(x) + sq(x); m = x > 0 && c[i] > 0",
        "y += x; m = ~k ^ (k >> 1)",
        "for (int r = 0; r < 3; r++) for (int q = r; q < k; q += 2) y += c[r * 3 + q]; m = -k % 3",
        "y = isnan(x) ? 0.0f : (x > 2 ? x : 2); m = max(k, 3) + abs(k)",
        "c[_ind.size() - 1 - i] = x; y = c[i]; m = c.size()",
        "c[k] += x; c[i]++; c[i % 2] *= 2; y = x; m = 0",
    ] {
        let l = ew_full(op, pre, &names, &[], Some(1)).unwrap_or_else(|e| panic!("{op}: {e}"));
        let k = &l.kernel;
        let spec = wgsl::ElementwiseSpec {
            ndim: 2,
            contiguous: false,
            vec4: false,
            wide_int64: false,
            bindings: {
                let mut b = wgsl::BindingPlan::distinct(&k.inputs, &k.outputs, &k.raws);
                b.mark_raw_writes(k);
                b
            },
        };
        let sh = wgsl::emit_elementwise(k, &spec, &opts).unwrap_or_else(|e| panic!("{op}: {e}"));
        validate(&sh.source);
        for flavor in [cpp::Flavor::Cuda, cpp::Flavor::Hip] {
            let spec = cpp::ElementwiseSpec {
                ndim: 1,
                class: cpp::ElementwiseClass::Contiguous,
                index64: false,
            };
            cpp::emit_elementwise(k, &spec, flavor).unwrap_or_else(|e| panic!("{op}: {e}"));
        }
    }
    let r = red(
        "x * x",
        "a + b",
        "y = sqrt(a) / _in_ind.size()",
        "0",
        Float32,
        Float32,
    )
    .unwrap();
    for flavor in [cpp::Flavor::Cuda, cpp::Flavor::Hip] {
        let spec = cpp::ReduceSpec {
            out_ndim: 1,
            red_ndim: 1,
            index64: false,
        };
        cpp::emit_reduce(&r, &spec, flavor).unwrap();
    }
    let spec = wgsl::ReduceSpec {
        out_ndim: 1,
        red_ndim: 1,
        mode: wgsl::ReduceMode::GroupPerOutput,
        partial: false,
        vec4: false,
        subgroup: false,
        wide_int64: false,
        bindings: wgsl::BindingPlan::distinct(&r.inputs, &[r.output], &[]),
    };
    validate(&wgsl::emit_reduction(&r, &spec, &opts).unwrap().source);
}

#[test]
fn defines_and_pragmas() {
    let pre = "#define SCALE 2.0f\n#define OFFSET (SCALE + 1)  // a comment\n\
               float f(float v) { return v * SCALE; }";
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("c", Float32, Binding::Raw(0)),
        n("z", Float32, Binding::Output(0)),
    ];
    let l = ew_full(
        "#define N 4\nfloat s = 0;\n#pragma unroll\nfor (int j = 0; j < N; j++) s += c[j];\nz = f(x) + OFFSET + s;",
        pre,
        &names,
        &[],
        None,
    )
    .unwrap();
    assert!(!l.kernel.dtypes().contains(&Float64));
    let (part, line, col, msg, _) = parse_err(ew_full(
        "z = 1",
        "#define SQ(a) ((a)*(a))",
        &names,
        &[],
        None,
    ));
    assert_eq!((part.as_str(), line, col), ("preamble", 1, 11));
    assert!(msg.contains("function-like"), "{msg}");
    let (part, line, col, msg, _) =
        parse_err(ew_full("z = 1", "\n#include <math.h>", &names, &[], None));
    assert_eq!((part.as_str(), line, col), ("preamble", 2, 1));
    assert!(msg.contains("directive"), "{msg}");
    let (part, line, col, msg, _) =
        parse_err(ew_full("z = BAD", "#define BAD (1 +)", &names, &[], None));
    assert_eq!((part.as_str(), line, col), ("preamble", 1, 17));
    assert!(msg.contains("expression"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full(
        "z = A",
        "#define A B\n#define B A",
        &names,
        &[],
        None,
    ));
    assert!(msg.contains("recursively"), "{msg}");
    let (part, _, _, msg, _) = parse_err(ew_full("z = U", "#define U zz", &names, &[], None));
    assert_eq!(part, "preamble");
    assert!(msg.contains("unknown name `zz`"), "{msg}");
}

/// Inputs that could make a backtracking parser slow or a recursive one overflow.
#[test]
fn pathological_inputs_are_fast() {
    let cases = vec![
        format!("z = {}x", "f(".repeat(63)),
        format!("z = {}x", "(".repeat(63)),
        format!("z = {}x", "sqrt(".repeat(60)),
        format!("z = {}x{}", "sqrt(".repeat(60), ")".repeat(60)),
        format!("z = {}x{}", "(float)(".repeat(30), ")".repeat(30)),
        format!("z = x{}", "[x".repeat(30)),
        format!("z = {}x", "x ? ".repeat(60)),
        format!("z = {}x", "x ? x : ".repeat(200)),
        format!("z = {}x;", "- ".repeat(300)),
        format!("z = {}x;", "!".repeat(300)),
        format!("{}z = x;", "if (x > 0) ".repeat(60)),
        format!("{}z = x;", "{".repeat(63)),
        "z = x;\n".repeat(5000),
        format!("z = x{};", " + x".repeat(200)),
        format!("float t = x; {}", "t = t * t + t; ".repeat(500)),
        format!("{} z = x;", "for (int j = 0; j < 2; j++) ".repeat(30)),
    ];
    for op in cases {
        let t = std::time::Instant::now();
        let r = ew(&op, &xyz());
        if let Err(e) = &r {
            assert!(matches!(e, Error::Parse { .. }), "{e}");
        }
        assert!(
            t.elapsed().as_secs_f64() < 2.0,
            "{:.40}... took {:?}",
            op,
            t.elapsed()
        );
    }
}

/// `x - -1`, `- -x` and `x + +1` are C: the lookahead that tells `-` from `--` must not skip
/// whitespace (a fresh-clone review found `x - -1` rejected).
#[test]
fn spaced_unary_after_binary_operator() {
    use crate::dtype::DType;
    for op in [
        "z = x - -1",
        "z = - -x",
        "z = x + +1",
        "z = x * - -2",
        "z = !!x",
    ] {
        let names = [
            Name {
                name: "x".into(),
                dtype: DType::Int32,
                binding: Binding::Input(0),
            },
            Name {
                name: "z".into(),
                dtype: DType::Int32,
                binding: Binding::Output(0),
            },
        ];
        let r = lower_elementwise(&ElementwiseSource {
            name: "k",
            operation: op,
            preamble: "",
            names: &names,
            types: &[],
            size_param: None,
        });
        assert!(r.is_ok(), "{op}: {:?}", r.err());
    }
}

/// Statements of `body` and its nested bodies, flattened (pre-order).
fn all_stmts(body: &[Stmt]) -> Vec<Stmt> {
    let mut v = vec![];
    Stmt::visit_all(body, &mut |s| v.push(s.clone()));
    v
}

#[test]
fn raw_writes_are_guarded_store_raws() {
    let names = vec![
        n("x", Float32, Binding::Raw(0)),
        n("n", Int32, Binding::Param(0)),
        n("y", Float32, Binding::Raw(1)),
    ];
    // CuPy's reverse: y[_ind.size() - 1 - i] = x[i].
    let l = ew_full("y[_ind.size() - 1 - i] = x[i]", "", &names, &[], Some(1)).unwrap();
    assert_eq!(l.raw_lens, vec![(1, RawMeta::Size)]);
    assert_eq!(l.kernel.params, vec![Int32, Int64, Int64]);
    assert!(l.kernel.writes_raw(1) && !l.kernel.writes_raw(0));
    let Stmt::If {
        cond, then_body, ..
    } = l.kernel.body.last().unwrap()
    else {
        panic!("{:?}", l.kernel.body)
    };
    // 0 <= j && j < len(y), len(y) being param 2.
    let mut reads_len = false;
    cond.visit(&mut |e| reads_len |= matches!(e.kind, ExprKind::Param(2)));
    assert!(reads_len, "{cond:?}");
    assert!(matches!(
        &then_body[..],
        [Stmt::StoreRaw { raw: 1, value, .. }] if matches!(value.kind, ExprKind::Load { raw: 0, .. })
    ));
    // The index is evaluated once (bound to a local before the guard).
    assert!(l
        .kernel
        .body
        .iter()
        .any(|s| matches!(s, Stmt::Let { value, .. } if value.ty == Int64)));

    // Compound assignment: read, combine, write back (not atomic); `++`; a raw input written.
    let l = ew("y[i % n] += x[i] * 2; y[0]++; x[i] = 0;", &names).unwrap();
    assert_eq!(l.raw_lens, vec![(1, RawMeta::Size), (0, RawMeta::Size)]);
    let stores: Vec<Stmt> = all_stmts(&l.kernel.body)
        .into_iter()
        .filter(|s| matches!(s, Stmt::StoreRaw { .. }))
        .collect();
    assert_eq!(stores.len(), 3);
    let Stmt::StoreRaw { value, .. } = &stores[0] else {
        unreachable!()
    };
    assert!(
        matches!(&value.kind, ExprKind::Binary(B::Add, a, _) if matches!(a.kind, ExprKind::Load { raw: 1, .. })),
        "{value:?}"
    );
    l.kernel.validate().unwrap();

    // `y.size()` is the raw array's length, usable as a uniform loop bound.
    let l = ew(
        "float s = 0; for (int j = 0; j < x.size(); j++) s += x[j]; y[i] = s;",
        &names,
    )
    .unwrap();
    assert_eq!(l.raw_lens, vec![(0, RawMeta::Size), (1, RawMeta::Size)]);
    let (_, _, _, msg, _) = parse_err(ew("y[i] = x.shape()", &names));
    assert!(msg.contains("x.size()"), "{msg}");

    // Errors: a non-raw name indexed, a float index, complex into a real raw array.
    let (_, _, col, msg, _) = parse_err(ew("n[0] = 1", &names));
    assert_eq!(col, 1);
    assert!(msg.contains("not a raw array"), "{msg}");
    let (_, _, col, msg, _) = parse_err(ew("y[1.5f] = 1", &names));
    assert_eq!(col, 3);
    assert!(msg.contains("integer"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("y[0] = complex<float>(1, 2)", &names));
    assert!(msg.contains("real(z)"), "{msg}");
}

fn cx_names(t: DType) -> Vec<Name> {
    vec![
        n("z", t, Binding::Input(0)),
        n("r", t.real_dtype(), Binding::Input(1)),
        n("w", t, Binding::Output(0)),
    ]
}

#[test]
fn complex_types_and_functions() {
    let names = cx_names(Complex64);
    let ok = |op: &str| -> Expr {
        let l = ew(op, &names).unwrap_or_else(|e| panic!("{op}: {e}"));
        l.kernel.validate().unwrap();
        stored(&l)
    };
    // Arithmetic mixing real and complex: the real operand is converted (weak literals too).
    let e = ok("w = z * r + 2.0 * z - 1");
    assert_eq!(e.ty, Complex64);
    // Declarations, constructors, parts.
    let e = ok("complex<float> u = complex<float>(r, 2 * r); w = conj(u) + u.real() - imag(z)");
    assert_eq!(e.ty, Complex64);
    let l = ew("complex<float> u = complex<float>(r, 1); w = u", &names).unwrap();
    let mut made = false;
    for s in all_stmts(&l.kernel.body) {
        for ex in s.exprs() {
            ex.visit(&mut |n| made |= matches!(n.kind, ExprKind::Binary(B::Complex, _, _)));
        }
    }
    assert!(made);
    ok("w = thrust::complex<float>(abs(z), arg(z)) + polar(r, 0.5f) + polar(r)");
    ok("w = exp(z) + log(z) + sqrt(z) + sin(z) + cos(z) + tan(z) + tanh(z) + log10(z)");
    ok("w = sinh(z) * cosh(z) + pow(z, 2) + pow(z, z) + thrust::exp(z)");
    ok("w = static_cast<complex<float>>(r) + (complex<float>)r + complex<float>(z)");
    ok("w = norm(z) + (isnan(z) || isinf(z) ? 0 : 1) + (z == w ? 1 : 0)");
    ok("w = -z; w += z; w *= 2; w /= z; w -= r");
    // A placeholder bound to a complex dtype, and complex<T> of a float placeholder.
    let t = vec![("T".to_string(), Complex128), ("F".to_string(), Float64)];
    let names128 = cx_names(Complex128);
    let l = ew_full(
        "T u = T(r, r); complex<F> v = complex<F>(1, 2); w = u * v",
        "",
        &names128,
        &t,
        None,
    )
    .unwrap();
    assert_eq!(stored(&l).ty, Complex128);
    // abs(z) is real; real(x) of a real is x.
    let names2 = vec![
        n("z", Complex64, Binding::Input(0)),
        n("y", Float32, Binding::Output(0)),
    ];
    let l = ew("y = abs(z) + real(z) + imag(z) + arg(z) + norm(z)", &names2).unwrap();
    assert_eq!(stored(&l).ty, Float32);
    let l = ew("y = real(real(z)) + imag(abs(z))", &names2).unwrap();
    assert_eq!(stored(&l).ty, Float32);
    // Complex in the preamble.
    ew_full(
        "w = twice(z)",
        "complex<float> twice(complex<float> a) { return a + a; }",
        &names,
        &[],
        None,
    )
    .unwrap();

    // Errors.
    let err = |op: &str, names: &[Name]| parse_err(ew(op, names)).3;
    assert!(err("y = z", &names2).contains("real(z)"));
    assert!(err("y = (float)z", &names2).contains("real(z)"));
    assert!(err("w = fabs(z)", &names).contains("not supported for complex"));
    assert!(err("w = fmod(z, z)", &names).contains("not supported for complex"));
    assert!(err("w = z % z", &names).contains("integer"));
    assert!(err("w = z >= z ? z : w", &names).contains("not defined for complex"));
    assert!(err("w = complex<float>(z, 1)", &names).contains("real parts"));
    assert!(err("w = complex<float>(1, 2, 3)", &names).contains("at most two"));
    assert!(err("w = r.real()", &names).contains("needs a complex"));
    assert!(err("w = z.foo()", &names).contains(".foo()"));
    assert!(err("complex<int> u = 1; w = u", &names).contains("unknown type"));
    assert!(err("w = polar(z)", &names).contains("real arguments"));
}

#[test]
fn ind_misuse_says_what_is_supported() {
    let names = xyz();
    for op in [
        "z = _ind.size",
        "z = _ind",
        "z = x + _ind.size(1)",
        "_ind = 3",
    ] {
        let (part, _, _, msg, _) = parse_err(ew_full(op, "", &names, &[], Some(0)));
        assert_eq!(part, "operation");
        assert!(msg.contains("`_ind.size()`"), "{op}: {msg}");
    }
    // `_ind.get()` is the flat index; `_in_ind.get()` only in a reduction's map pass.
    ew_full("z = x + _ind.get()", "", &names, &[], Some(0)).expect("_ind.get()");
    let (_, _, col, msg, _) = parse_err(ew_full("z = _ind.get()[0]", "", &names, &[], Some(0)));
    assert_eq!(col, 5);
    assert!(
        msg.contains("only raw array parameters can be indexed"),
        "{msg}"
    );
    let r = red("x", "a + b", "y = a / _in_ind.get()", "0", Float32, Float32);
    let (part, _, _, msg, _) = parse_err(r);
    assert_eq!(part, "post_map_expr");
    assert!(msg.contains("`_in_ind.get()`"), "{msg}");
    let r = red("x", "a + b", "y = a / _ind.size()", "0", Float32, Float32);
    let (_, _, _, msg, _) = parse_err(r);
    assert!(
        msg.contains("ReductionKernel has `_in_ind.size()`"),
        "{msg}"
    );
}

#[test]
fn long_lines_give_a_window_around_the_caret() {
    // The caret column counts from the start of the real line; the snippet is cut to a window.
    let long = format!("z = x{} +* 2;", " + x".repeat(25_000));
    let (_, line, col, _, snip) = parse_err(ew(&long, &xyz()));
    assert_eq!(line, 1);
    let at = long.find("+*").unwrap();
    assert_eq!(col, at + 2, "{snip}");
    let (text, caret) = snip.split_once('\n').unwrap();
    assert!(text.starts_with("...") && text.ends_with("2;"), "{text}");
    assert!(
        text.chars().count() <= syntax::SNIPPET_WIDTH + 6,
        "{}",
        text.len()
    );
    // The caret sits under the character the column names.
    let caret_at = caret.chars().count() - 1;
    assert_eq!(
        text.chars().nth(caret_at),
        long.chars().nth(col - 1),
        "{snip}"
    );
    // A problem at the start of a long line, and one in the middle of a long second line.
    let long2 = format!("z = @{}", "x".repeat(100_000));
    let (_, _, col, _, snip) = parse_err(ew(&long2, &xyz()));
    assert_eq!(col, 5);
    assert!(
        snip.starts_with("z = @xxx") && snip.contains("...\n    ^"),
        "{snip}"
    );
    let mid = format!(
        "z = x;\nz = {} @ {};",
        "x + ".repeat(20_000),
        "x + ".repeat(20_000)
    );
    let (_, line, col, _, snip) = parse_err(ew(&mid, &xyz()));
    assert_eq!((line, col), (2, 5 + 4 * 20_000 + 1));
    let (text, caret) = snip.split_once('\n').unwrap();
    assert!(text.starts_with("...") && text.ends_with("..."), "{text}");
    assert_eq!(text.chars().nth(caret.chars().count() - 1), Some('@'));
    // Short lines are unchanged.
    let (_, _, _, _, snip) = parse_err(ew("z = x +;", &xyz()));
    assert_eq!(snip, "z = x +;\n       ^");
}

#[test]
fn reductions_without_identity_get_a_zero_placeholder() {
    let names = vec![n("x", Float32, Binding::Input(0))];
    let r = lower_reduction(&ReductionSource {
        name: "r",
        map_expr: "x",
        reduce_expr: "max(a, b)",
        post_map_expr: "y = a",
        identity: None,
        preamble: "",
        names: &names,
        output: ("y", Float32),
        acc: Float32,
        types: &[],
        size_params: None,
    })
    .unwrap();
    assert_eq!(r.identity, vec![Scalar::Float32(0.0)]);
}
