//! Unit tests of the kernel language: lowering of each construct, and errors with positions.

use super::*;
use crate::kernel::ir::{BinaryOp as B, ExprKind, UnaryOp as U};
use DType::*;

fn n(name: &str, dtype: DType, binding: Binding) -> Name {
    Name {
        name: name.into(),
        dtype,
        binding,
    }
}

fn ew_full(
    op: &str,
    pre: &str,
    names: &[Name],
    types: &[(String, DType)],
    size: Option<usize>,
) -> Result<LoweredElementwise> {
    lower_elementwise(&ElementwiseSource {
        name: "k",
        operation: op,
        preamble: pre,
        names,
        types,
        size_param: size,
    })
}

fn ew(op: &str, names: &[Name]) -> Result<LoweredElementwise> {
    ew_full(op, "", names, &[], None)
}

/// x: f32 input 0, y: f32 input 1, z: f32 output 0.
fn xyz() -> Vec<Name> {
    vec![
        n("x", Float32, Binding::Input(0)),
        n("y", Float32, Binding::Input(1)),
        n("z", Float32, Binding::Output(0)),
    ]
}

/// The value stored to output 0, when the body is `Let out; Assign out = v; Store`.
fn stored(l: &LoweredElementwise) -> Expr {
    let mut v = None;
    for s in &l.kernel.body {
        if let Stmt::Assign { var: 0, value } = s {
            v = Some(value.clone());
        }
    }
    v.expect("assignment to the output")
}

fn parse_err(r: Result<impl std::fmt::Debug>) -> (String, usize, usize, String, String) {
    match r {
        Err(Error::Parse {
            part,
            line,
            column,
            msg,
            snippet,
            ..
        }) => (part, line, column, msg, snippet),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

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

fn red(
    map: &str,
    reduce: &str,
    post: &str,
    identity: &str,
    acc: DType,
    out: DType,
) -> Result<ReduceKernel> {
    let names = vec![n("x", Float32, Binding::Input(0))];
    lower_reduction(&ReductionSource {
        name: "r",
        map_expr: map,
        reduce_expr: reduce,
        post_map_expr: post,
        identity: Some(identity),
        preamble: "",
        names: &names,
        output: ("y", out),
        acc,
        types: &[],
        size_params: Some((0, 1)),
    })
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

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn check(r: Result<impl std::fmt::Debug>, src: &str) {
        if let Err(e) = r {
            match e {
                Error::Parse { line, column, .. } => {
                    let lines = src.split('\n').count();
                    assert!(
                        line >= 1 && line <= lines,
                        "line {line} of {lines}: {src:?}"
                    );
                    let len = src.split('\n').nth(line - 1).unwrap_or("").chars().count();
                    assert!(
                        column >= 1 && column <= len + 1,
                        "col {column} > {len}: {src:?}"
                    );
                }
                other => panic!("non-parse error {other:?} for {src:?}"),
            }
        }
    }

    const VALID: &[&str] = &[
        "z = (x - y) * (x - y);",
        "float t = x; if (t > 0) { z = t; } else z = -t;",
        "for (int j = 0; j < 4; j++) { z += x * j; }",
        "z = x > y ? sqrt(x) : pow(y, 2.0f);",
        "z = (float)(int)x % 3 + static_cast<float>(y);",
        "int k = 3; k <<= 2; k |= 1; z = k ^ ~k;",
        "#define K 2\nz = x * K;",
        "#pragma unroll\nfor (int j = 0; j < 2; j++) z += j;",
    ];

    fn mutated() -> impl Strategy<Value = String> {
        (
            prop::sample::select(VALID),
            prop::collection::vec(
                (any::<prop::sample::Index>(), prop::sample::select(CHARS)),
                1..6,
            ),
        )
            .prop_map(|(base, edits)| {
                let mut s: Vec<char> = base.chars().collect();
                for (ix, c) in edits {
                    let at = ix.index(s.len() + 1);
                    if at < s.len() && c == '\u{7f}' {
                        s.remove(at);
                    } else {
                        s.insert(at.min(s.len()), c);
                    }
                }
                s.into_iter().collect()
            })
    }

    const CHARS: &[char] = &[
        'x', 'y', 'z', 'i', 'j', '0', '1', '9', '.', 'e', 'f', 'u', ' ', '\n', '\t', '(', ')', '{',
        '}', '[', ']', ';', ',', '+', '-', '*', '/', '%', '<', '>', '=', '!', '&', '|', '^', '~',
        '?', ':', '#', '_', '"', 'é', '\u{7f}',
    ];

    fn random() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(CHARS), 0..60)
            .prop_map(|v| v.into_iter().collect())
    }

    /// Random well-formed expressions over typed names: lowering either succeeds with a valid
    /// kernel or gives a Parse error (never an invalid kernel or a panic).
    fn gen_expr() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(vec![
            "x",
            "h",
            "d",
            "k",
            "u",
            "b",
            "s",
            "i",
            "c[k]",
            "c[i % 4]",
            "1",
            "2.5",
            "0.5f",
            "3u",
            "7ll",
            "true",
            "M_PI",
            "INFINITY",
            "-1",
            "0x10",
            "_ind.size()",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(5, 48, 3, |inner| {
            let bin = prop::sample::select(vec![
                "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", "<=", ">",
                ">=", "==", "!=",
            ]);
            let f1 = prop::sample::select(vec![
                "sqrt",
                "expf",
                "log1p",
                "round",
                "rint",
                "trunc",
                "abs",
                "fabs",
                "isnan",
                "sinh",
                "atanh",
                "(float)",
                "(int)",
                "(unsigned char)",
                "(double)",
                "(bool)",
                "-",
                "!",
                "~",
                "+",
                "half",
                "static_cast<long>",
            ]);
            let f2 = prop::sample::select(vec![
                "max", "min", "fmax", "pow", "atan2", "fmod", "hypot", "copysign",
            ]);
            prop_oneof![
                (inner.clone(), bin, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
                (f1, inner.clone()).prop_map(|(f, a)| format!("{f}({a})")),
                (f2, inner.clone(), inner.clone()).prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
                (inner.clone(), inner.clone(), inner)
                    .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            ]
        })
    }

    fn typed_names() -> Vec<Name> {
        vec![
            n("x", Float32, Binding::Input(0)),
            n("h", Float16, Binding::Input(1)),
            n("d", Float64, Binding::Param(0)),
            n("k", Int32, Binding::Input(2)),
            n("u", UInt8, Binding::Param(1)),
            n("b", Bool, Binding::Input(3)),
            n("c", Float32, Binding::Raw(0)),
            n("s", Int64, Binding::Param(2)),
            n("z", Float32, Binding::Output(0)),
            n("w", Int16, Binding::Output(1)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn typed_expressions_lower_to_valid_ir(e in gen_expr(), e2 in gen_expr()) {
            let op = format!("z = {e}; w += {e2}; if ({e2}) {{ z -= 1; }}");
            match ew_full(&op, "", &typed_names(), &[], Some(3)) {
                Ok(l) => l.kernel.validate().unwrap(),
                Err(Error::Parse { .. }) => {}
                Err(other) => panic!("{op}: {other}"),
            }
            let names = vec![n("x", Float32, Binding::Input(0)), n("d", Float64, Binding::Param(0))];
            let m = e.replace("h", "x").replace("k", "x").replace("u", "x").replace("b", "x");
            let r = lower_reduction(&ReductionSource {
                name: "r", map_expr: &m, reduce_expr: "a + b", post_map_expr: &format!("y = a * ({m})"),
                identity: Some("0"), preamble: "", names: &names, output: ("y", Float32), acc: Float32,
                types: &[], size_params: Some((1, 2)),
            });
            if let Err(e) = r { prop_assert!(matches!(e, Error::Parse { .. }), "{}", e); }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]
        #[test]
        fn operation_never_panics(src in prop_oneof![random(), mutated()]) {
            let r = ew(&src, &xyz());
            if let Ok(l) = &r {
                l.kernel.validate().unwrap();
            }
            check(r, &src);
        }

        #[test]
        fn params_and_exprs_never_panic(src in random()) {
            check(parse_params("k", "in_params", &src), &src);
            check(red(&src, "a + b", "y = a", "0", Float32, Float32), &src);
            check(red("x", "a + b", &src, "0", Float32, Float32), &src);
            check(red("x", "a + b", "y = a", &src, Float32, Float32), &src);
            check(ew_full("z = x;", &src, &xyz(), &[], None), &src);
        }
    }
}

/// Lowered kernels are accepted by the WGSL emitter (validated with naga) and the C++ emitter.
#[test]
fn emitters_accept_lowered_kernels() {
    use crate::kernel::{cpp, wgsl};
    fn validate(src: &str) {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
        let mut v = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_INT64,
        );
        v.validate(&module)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
    }
    let opts = wgsl::WgslOptions {
        shader_f64: true,
        shader_int64: true,
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
    assert_eq!(l.raw_lens, vec![1]);
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
    assert_eq!(l.raw_lens, vec![1, 0]);
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
    assert_eq!(l.raw_lens, vec![0, 1]);
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
        "z = _ind.get()[0]",
        "z = _ind.size",
        "z = _ind",
        "z = x + _ind.size(1)",
        "_ind = 3",
    ] {
        let (part, _, _, msg, _) = parse_err(ew_full(op, "", &names, &[], Some(0)));
        assert_eq!(part, "operation");
        assert!(msg.contains("`_ind.size()`"), "{op}: {msg}");
    }
    let (_, _, col, msg, _) = parse_err(ew_full("z = x + _ind.get()", "", &names, &[], Some(0)));
    assert_eq!(col, 9);
    assert!(msg.starts_with("`_ind.get()` is not supported"), "{msg}");
    let r = red("x", "a + b", "y = a / _in_ind.get()", "0", Float32, Float32);
    let (part, _, _, msg, _) = parse_err(r);
    assert_eq!(part, "post_map_expr");
    assert!(
        msg.contains("`_in_ind.size()` and `_out_ind.size()`"),
        "{msg}"
    );
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
