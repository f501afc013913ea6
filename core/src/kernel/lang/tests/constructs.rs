//! Lowering of each construct of the language: parameters, literals, conversions, loops,
//! branches, casts, preamble functions, reductions.

use super::*;

#[test]
fn params() {
    let p = parse_params("k", "in_params", "float32 x, raw T y, int32 n").unwrap();
    assert_eq!(
        p,
        vec![
            ParamSpec {
                name: "x".into(),
                ty: TypeSpec::DType(Float32),
                raw: false
            },
            ParamSpec {
                name: "y".into(),
                ty: TypeSpec::Placeholder("T".into()),
                raw: true
            },
            ParamSpec {
                name: "n".into(),
                ty: TypeSpec::DType(Int32),
                raw: false
            },
        ]
    );
    assert!(parse_params("k", "in_params", "  ").unwrap().is_empty());
    let p = parse_params(
        "k",
        "out_params",
        "unsigned long long a, float b, double c, half d",
    )
    .unwrap();
    let tys: Vec<_> = p.iter().map(|p| p.ty.clone()).collect();
    assert_eq!(
        tys,
        vec![
            TypeSpec::DType(UInt64),
            TypeSpec::DType(Float32),
            TypeSpec::DType(Float64),
            TypeSpec::DType(Float16)
        ]
    );
    let (part, line, col, msg, snip) = parse_err(parse_params("k", "in_params", "float32 x, T x"));
    assert_eq!((part.as_str(), line, col), ("in_params", 1, 14));
    assert!(msg.contains("duplicate"), "{msg}");
    assert_eq!(snip, "float32 x, T x\n             ^");
    let (_, _, col, msg, _) = parse_err(parse_params("k", "in_params", "int32 i"));
    assert_eq!(col, 7);
    assert!(msg.contains("reserved"), "{msg}");
    let (_, _, col, _, _) = parse_err(parse_params("k", "in_params", "float32 x,"));
    assert_eq!(col, 11);
    let (_, _, _, msg, _) = parse_err(parse_params("k", "in_params", "float32"));
    assert!(msg.contains("type and a name"), "{msg}");
    let (_, _, _, msg, _) = parse_err(parse_params("k", "in_params", "int32 _ind"));
    assert!(msg.contains("reserved"), "{msg}");
}

#[test]
fn squared_diff() {
    let l = ew("z = (x - y) * (x - y)", &xyz()).unwrap();
    assert_eq!(l.output_reads, Vec::<usize>::new());
    assert!(!l.uses_size);
    let d = Expr::binary(B::Sub, Expr::input(0, Float32), Expr::input(1, Float32));
    assert_eq!(stored(&l), Expr::binary(B::Mul, d.clone(), d));
    assert_eq!(l.kernel.inputs, vec![Float32, Float32]);
    assert_eq!(l.kernel.outputs, vec![Float32]);
    // Output local initialised to zero (not read), stored at the end.
    assert_eq!(
        l.kernel.body[0],
        Stmt::Let {
            var: 0,
            value: Expr::constant(Scalar::Float32(0.0))
        }
    );
    assert_eq!(
        *l.kernel.body.last().unwrap(),
        Stmt::Store {
            output: 0,
            value: Expr::var(0, Float32)
        }
    );
}

#[test]
fn weak_literals() {
    // 2.0 * x on float32 stays float32, no float64 anywhere.
    let l = ew("z = 2.0 * x + 1", &xyz()).unwrap();
    assert!(!l.kernel.dtypes().contains(&Float64), "{:?}", l.kernel);
    let e = stored(&l);
    assert_eq!(
        e,
        Expr::binary(
            B::Add,
            Expr::binary(
                B::Mul,
                Expr::constant(Scalar::Float32(2.0)),
                Expr::input(0, Float32)
            ),
            Expr::constant(Scalar::Float32(1.0))
        )
    );
    // Folded literal arithmetic (M_PI / 180.0) stays weak.
    let l = ew("z = x * (M_PI / 180.0)", &xyz()).unwrap();
    assert!(!l.kernel.dtypes().contains(&Float64));
    // 1.0f is strong float32; a double param promotes.
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("s", Float64, Binding::Param(0)),
        n("z", Float32, Binding::Output(0)),
    ];
    let l = ew("z = x * s", &names).unwrap();
    assert!(matches!(stored(&l).kind, ExprKind::Cast(_)));
    // int literal with int8 promotes to int32 (C).
    let names = vec![
        n("a", Int8, Binding::Input(0)),
        n("z", Int32, Binding::Output(0)),
    ];
    let l = ew("z = a + 300", &names).unwrap();
    assert_eq!(stored(&l).ty, Int32);
    // A literal that does not fit the other operand's type is typed as in C.
    let names = vec![
        n("k", Int32, Binding::Input(0)),
        n("z", Int64, Binding::Output(0)),
    ];
    let e = stored(&ew("z = k + 3000000000", &names).unwrap());
    assert!(matches!(e.kind, ExprKind::Binary(B::Add, ..)), "{e:?}");
    let e = stored(&ew("z = k + 30", &names).unwrap());
    assert!(matches!(e.kind, ExprKind::Cast(_)), "{e:?}"); // int32 sum, cast on store
                                                           // Literal alone: int32; too big: int64; float: float64.
    let names = vec![n("z", Float64, Binding::Output(0))];
    let l = ew(
        "auto t = 1; auto u = 3000000000; auto v = 1.5; z = t + u + v;",
        &names,
    )
    .unwrap();
    assert_eq!(&l.kernel.locals[1..4], &[Int32, Int64, Float64]);
}

#[test]
fn usual_conversions() {
    use super::types::usual;
    assert_eq!(usual(Int32, Float32), Float32);
    assert_eq!(usual(Float32, Float64), Float64);
    assert_eq!(usual(Int32, UInt32), UInt32);
    assert_eq!(usual(Int64, UInt32), Int64);
    assert_eq!(usual(UInt8, Int8), Int32);
    assert_eq!(usual(Bool, Bool), Int32);
    assert_eq!(usual(Float16, Float16), Float16);
    assert_eq!(usual(Float16, Int64), Float16);
}

#[test]
fn c_remainder_and_division() {
    let names = vec![
        n("a", Int32, Binding::Input(0)),
        n("b", Int32, Binding::Input(1)),
        n("z", Int32, Binding::Output(0)),
    ];
    let l = ew("z = a % b", &names).unwrap();
    let (a, b) = (Expr::input(0, Int32), Expr::input(1, Int32));
    assert_eq!(
        stored(&l),
        Expr::binary(
            B::Sub,
            a.clone(),
            Expr::binary(B::Mul, Expr::binary(B::Div, a, b.clone()), b)
        )
    );
    let (_, _, col, msg, _) = parse_err(ew("z = x % y", &xyz()));
    assert_eq!(col, 5);
    assert!(msg.contains("fmod"), "{msg}");
}

#[test]
fn output_read_appends_input() {
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("y", Float32, Binding::Output(0)),
    ];
    let l = ew("y += x", &names).unwrap();
    assert_eq!(l.output_reads, vec![0]);
    assert_eq!(l.kernel.inputs, vec![Float32, Float32]);
    assert_eq!(
        l.kernel.body[0],
        Stmt::Let {
            var: 0,
            value: Expr::input(1, Float32)
        }
    );
    // Assigned on only one path: needs its incoming value.
    let l = ew("if (x > 0) y = x;", &names).unwrap();
    assert_eq!(l.output_reads, vec![0]);
    // Assigned on both paths, then read: no input.
    let l = ew("if (x > 0) y = x; else y = -x; y = y * 2;", &names).unwrap();
    assert_eq!(l.output_reads, Vec::<usize>::new());
    // A loop that surely runs assigns; one that may not does not.
    let l = ew("for (int j = 0; j < 3; j++) y = x * j;", &names).unwrap();
    assert_eq!(l.output_reads, Vec::<usize>::new());
    let l = ew("for (int j = 3; j < 3; j++) y = x * j;", &names).unwrap();
    assert_eq!(l.output_reads, vec![0]);
    // Never assigned: still stores its incoming value.
    let l = ew(";", &names).unwrap();
    assert_eq!(l.output_reads, vec![0]);
}

#[test]
fn raw_index_and_size() {
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("y", Float32, Binding::Raw(0)),
        n("z", Float32, Binding::Output(0)),
    ];
    let l = ew_full("z = x + y[_ind.size() - i - 1]", "", &names, &[], Some(0)).unwrap();
    assert!(l.uses_size);
    assert_eq!(l.kernel.params, vec![Int64]);
    assert_eq!(l.kernel.raws, vec![Float32]);
    let mut loads = 0;
    stored(&l).visit(&mut |e| {
        if let ExprKind::Load { index, .. } = &e.kind {
            loads += 1;
            assert_eq!(index.ty, Int64);
        }
    });
    assert_eq!(loads, 1);
    let (_, _, col, msg, _) = parse_err(ew("z = y", &names));
    assert_eq!(col, 5);
    assert!(msg.contains("must be indexed"), "{msg}");
    let (_, _, col, msg, _) = parse_err(ew("z = x[0]", &names));
    assert_eq!(col, 5);
    assert!(msg.contains("not a raw array"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("z = _ind.size()", &names));
    assert!(msg.contains("not available"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("y = 1;", &names));
    assert!(msg.contains("must be indexed"), "{msg}");
}

#[test]
fn for_loops() {
    let names = vec![
        n("x", Float32, Binding::Input(0)),
        n("c", Float32, Binding::Raw(0)),
        n("n", Int32, Binding::Param(0)),
        n("z", Float32, Binding::Output(0)),
    ];
    let l = ew(
        "float s = 0; for (int j = 0; j < n; j++) { s = s * x + c[j]; } z = s;",
        &names,
    )
    .unwrap();
    let f = l
        .kernel
        .body
        .iter()
        .find_map(|s| match s {
            Stmt::For { start, end, .. } => Some((start.clone(), end.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(f.0, Expr::constant(Scalar::Int64(0)));
    assert_eq!(f.1, Expr::param(0, Int32).cast(Int64));
    // Descending, stepped, <=, const locals as bounds, nested loops.
    for op in [
        "for (int j = n - 1; j >= 0; j--) z += c[j];",
        "for (int j = 0; j <= n; j += 2) z += c[j];",
        "const int m = 3; for (int j = 0; j < m; ++j) for (int k = j; k < m; k++) z += c[k];",
        "for (long j = 10; j > 0; j -= 3) z += c[j];",
        "for (int j = 0; n > j; j = j + 1) z += c[j];",
    ] {
        ew(op, &names).unwrap_or_else(|e| panic!("{op}: {e}"));
    }
    // Non-uniform bounds and unsupported shapes.
    let (_, _, col, msg, _) = parse_err(ew("for (int j = 0; j < (int)x; j++) z += 1;", &names));
    assert_eq!(col, 21);
    assert!(msg.contains("uniform"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("for (int j = 0; j < i; j++) z += 1;", &names));
    assert!(msg.contains("uniform"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew(
        "int m = 3; m = (int)x; for (int j = 0; j < m; j++) z += 1;",
        &names,
    ));
    assert!(msg.contains("uniform"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("int m = 3; for (int j = 0; j < m; j++) m = 2;", &names));
    assert!(msg.contains("loop bound"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("for (int j = 0; j < n; j++) j = 2;", &names));
    assert!(msg.contains("loop variable"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("for (int j = 0; j < n; j *= 2) z += 1;", &names));
    assert!(msg.contains("counted loops"), "{msg}");
    let (_, line, col, msg, _) = parse_err(ew("z = 1;\nwhile (x > 0) z = 2;", &names));
    assert_eq!((line, col), (2, 1));
    assert!(msg.contains("while"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("for (int j = 0; j < n; j++) { break; }", &names));
    assert!(msg.contains("break"), "{msg}");
}

#[test]
fn if_else_and_scoping() {
    let l = ew(
        "if (x > y) { z = x; } else if (x < 0) z = 0; else { float x = 5; z = x; }",
        &xyz(),
    )
    .unwrap();
    assert!(matches!(l.kernel.body[1], Stmt::If { .. }));
    // Shadowing in an inner block; redeclaration in the same scope is an error.
    ew("float t = 1; { float t = 2; z = t; }", &xyz()).unwrap();
    let (_, _, col, msg, _) = parse_err(ew("float t = 1; float t = 2;", &xyz()));
    assert_eq!(col, 20);
    assert!(msg.contains("redeclaration"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("float x = 1;", &xyz()));
    assert!(msg.contains("redeclaration"), "{msg}");
    let (_, _, col, msg, _) = parse_err(ew("x = 1;", &xyz()));
    assert_eq!(col, 1);
    assert!(msg.contains("read-only"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("return;", &xyz()));
    assert!(msg.contains("return"), "{msg}");
}

#[test]
fn casts_and_calls() {
    for op in [
        "z = (float)x",
        "z = (double)x * 2",
        "z = static_cast<float>(x)",
        "z = float(x)",
        "z = (unsigned int)x",
        "z = (T)x + (x) - 1",
        "z = sqrtf(x) + expf(y) + __expf(x)",
        "z = pow(x, 2) + atan2(x, y) + fmax(x, y) + max(x, 1)",
        "z = round(x) + rint(y) + trunc(x) + fmod(x, y) + hypot(x, y) + copysign(x, y)",
        "z = log1p(x) + expm1(x) + sinh(x) + cosh(x) + log2(x) + log10(x) + exp2(x)",
        "z = asin(x) + acos(x) + atan(x) + asinh(x) + acosh(x) + atanh(x) + rsqrt(x)",
        "z = isnan(x) ? 0 : (isinf(x) ? 1 : x)",
        "z = x > 0 && y > 0 || !(x == y)",
        "z = M_PI * x + M_E + INFINITY + CUDART_INF_F",
        "z = fma(x, y, 1.0f)",
    ] {
        let l = ew_full(op, "", &xyz(), &[("T".into(), Float32)], None)
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        assert!(
            !l.kernel.dtypes().contains(&Float64) || op.contains("double"),
            "{op}"
        );
    }
    let (_, _, col, msg, _) = parse_err(ew("z = erf(x)", &xyz()));
    assert_eq!(col, 5);
    assert!(msg.contains("unknown function `erf`"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("z = (x) y", &xyz()));
    assert!(msg.contains("not a type"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("z = (foo)x", &xyz()));
    assert!(
        msg.contains("not a type") || msg.contains("unknown"),
        "{msg}"
    );
    let (_, _, _, msg, _) = parse_err(ew("z = x << 1", &xyz()));
    assert!(msg.contains("integer"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("z = sqrt(x, y)", &xyz()));
    assert!(msg.contains("1 argument"), "{msg}");
    // Integer arguments of math functions convert to double.
    let names = vec![
        n("a", Int32, Binding::Input(0)),
        n("z", Float32, Binding::Output(0)),
    ];
    let l = ew("z = sqrt(a)", &names).unwrap();
    assert!(l.kernel.dtypes().contains(&Float64));
    let l = ew("z = sqrtf(a) + abs(a)", &names).unwrap();
    assert!(!l.kernel.dtypes().contains(&Float64));
}

#[test]
fn preamble_functions() {
    let pre = "__device__ float sq(float v) { return v * v; }\n\
               __device__ inline float clampf(float v, float lo, float hi) {\n\
                 if (v < lo) return lo;\n\
                 if (v > hi) return hi;\n\
                 return v;\n\
               }\n\
               static T twice(T v) { T r = v; r += v; return r; }";
    let l = ew_full(
        "z = sq(x) + clampf(y, 0, 1) + twice(x)",
        pre,
        &xyz(),
        &[("T".into(), Float32)],
        None,
    )
    .unwrap();
    l.kernel.validate().unwrap();
    let (part, line, col, msg, _) = parse_err(ew_full(
        "z = f(x)",
        "float f(float v) {\n  return f(v);\n}",
        &xyz(),
        &[],
        None,
    ));
    assert_eq!(part, "preamble");
    assert_eq!((line, col), (2, 10));
    assert!(msg.contains("recursive"), "{msg}");
    let (part, line, col, _, _) = parse_err(ew_full(
        "z = 1",
        "float f(float v) {\n  return v +;\n}",
        &xyz(),
        &[],
        None,
    ));
    assert_eq!((part.as_str(), line, col), ("preamble", 2, 13));
    let (_, _, _, msg, _) = parse_err(ew_full(
        "z = f(x, y)",
        "float f(float v) { return v; }",
        &xyz(),
        &[],
        None,
    ));
    assert!(msg.contains("takes 1 arguments"), "{msg}");
}

#[test]
fn syntax_errors_have_positions() {
    let (part, line, col, msg, snip) = parse_err(ew("z = x +;\n", &xyz()));
    assert_eq!((part.as_str(), line, col), ("operation", 1, 8));
    assert!(msg.contains("expected an expression"), "{msg}");
    assert_eq!(snip, "z = x +;\n       ^");
    let (_, line, col, _, _) = parse_err(ew("z = x;\n  z = = y;", &xyz()));
    assert_eq!((line, col), (2, 7));
    let (_, line, col, msg, _) = parse_err(ew("z = unknown_thing;", &xyz()));
    assert_eq!((line, col), (1, 5));
    assert!(msg.contains("unknown name"), "{msg}");
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("z = {}x{};", "(".repeat(500), ")".repeat(500));
    let (_, _, _, msg, _) = parse_err(ew(&deep, &xyz()));
    assert!(msg.contains("nesting too deep"), "{msg}");
    let long = format!("z = x{};", " + x".repeat(400));
    let (_, _, _, msg, _) = parse_err(ew(&long, &xyz()));
    assert!(msg.contains("too deeply"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("#include <x>\nz = x;", &xyz()));
    assert!(msg.contains("preprocessor"), "{msg}");
    // Complex ordering and conditions are refused (C++'s complex has neither).
    let names = vec![
        n("x", Complex64, Binding::Input(0)),
        n("z", Complex64, Binding::Output(0)),
    ];
    ew("z = x", &names).unwrap();
    let (_, _, col, msg, _) = parse_err(ew("z = x < x ? x : 0", &names));
    assert_eq!(col, 5);
    assert!(msg.contains("not defined for complex"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew("if (x) z = x;", &names));
    assert!(msg.contains("condition"), "{msg}");
}

#[test]
fn reductions() {
    let r = red("x * x", "a + b", "y = sqrt(a)", "0", Float32, Float32).unwrap();
    assert_eq!(r.identity, vec![Scalar::Float32(0.0)]);
    assert_eq!(
        r.combine,
        vec![Expr::binary(
            B::Add,
            Expr::var(0, Float32),
            Expr::var(1, Float32)
        )]
    );
    assert_eq!(r.post, Expr::unary(U::Sqrt, Expr::var(0, Float32)));
    assert_eq!(r.params, vec![Int64, Int64]);
    let r = red("x", "max(a, b)", "y = a", "-INFINITY", Float32, Float32).unwrap();
    assert_eq!(r.identity, vec![Scalar::Float32(f32::NEG_INFINITY)]);
    let r = red(
        "x",
        "a + b",
        "y = a / (_in_ind.size() / _out_ind.size())",
        "0",
        Float64,
        Float32,
    )
    .unwrap();
    assert_eq!(r.post.ty, Float32);
    // Statement sequences and if/else fold into one expression.
    let r = red(
        "x",
        "a + b",
        "float t = a * 2; if (t > 1) { y = t; } else { y = -t; }",
        "(float)0",
        Float32,
        Float32,
    )
    .unwrap();
    assert!(matches!(r.post.kind, ExprKind::Select(..)));
    assert_eq!(
        red("x", "a + b", "", "0", Float32, Float32).unwrap().post,
        Expr::var(0, Float32)
    );
    let (part, _, _, msg, _) = parse_err(red("x", "a + b", "y = a", "", Float32, Float32));
    assert_eq!(part, "identity");
    assert!(msg.contains("empty"), "{msg}");
    let (part, _, col, msg, _) = parse_err(red("x", "a + b", "y = a", "x", Float32, Float32));
    assert_eq!((part.as_str(), col), ("identity", 1));
    assert!(msg.contains("unknown name"), "{msg}");
    let (part, _, _, msg, _) = parse_err(red("x", "a + b", "y = a", "sqrt(2.0)", Float32, Float32));
    assert_eq!(part, "identity");
    assert!(msg.contains("constant"), "{msg}");
    let (part, _, col, _, _) = parse_err(red("x", "a + c", "y = a", "0", Float32, Float32));
    assert_eq!((part.as_str(), col), ("reduce_expr", 5));
    let (part, _, _, msg, _) = parse_err(red(
        "x",
        "a + b",
        "if (a > 0) y = a;",
        "0",
        Float32,
        Float32,
    ));
    assert_eq!(part, "post_map_expr");
    assert!(msg.contains("every path"), "{msg}");
    let (part, _, _, msg, _) = parse_err(red(
        "x",
        "a + b",
        "for (int j = 0; j < 2; j++) y = a;",
        "0",
        Float32,
        Float32,
    ));
    assert_eq!(part, "post_map_expr");
    assert!(msg.contains("loops"), "{msg}");
    let (part, _, _, msg, _) = parse_err(red("i", "a + b", "y = a", "0", Float32, Float32));
    assert_eq!(part, "map_expr");
    assert!(msg.contains("not available"), "{msg}");
    // Exponential substitution is caught.
    let blow = format!("float t = a;{} y = t;", " t = t * t + t;".repeat(40));
    let (_, _, _, msg, _) = parse_err(red("x", "a + b", &blow, "0", Float32, Float32));
    assert!(msg.contains("too large"), "{msg}");
}
