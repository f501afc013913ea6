//! Property tests: random sources never panic, and errors point inside the source.

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
    '}', '[', ']', ';', ',', '+', '-', '*', '/', '%', '<', '>', '=', '!', '&', '|', '^', '~', '?',
    ':', '#', '_', '"', 'é', '\u{7f}',
];

fn random() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(CHARS), 0..60).prop_map(|v| v.into_iter().collect())
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
            "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", "<=", ">", ">=",
            "==", "!=",
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
