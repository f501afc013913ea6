//! Preamble templates and structs: instantiation, struct locals, and errors with positions.

use super::*;

#[test]
fn templates_instantiate_per_call() {
    let pre = "template<typename T> __device__ T sq(T v) { return v * v; }\n\
               template<class T, int N> T scale(T v) { return v * N; }";
    // sq is instantiated twice: for float32 (x) and for int32 (the literal 3 deduces int).
    let l = ew_full(
        "z = sq(x) + scale<float, 4>(y) + sq(3)",
        pre,
        &xyz(),
        &[],
        None,
    )
    .unwrap();
    l.kernel.validate().unwrap();
    assert_eq!(stored(&l).ty, Float32);
    // A template parameter shadows the kernel's placeholder of the same name.
    let l = ew_full(
        "z = (T)sq((double)x)",
        pre,
        &xyz(),
        &[("T".into(), Float32)],
        None,
    )
    .unwrap();
    l.kernel.validate().unwrap();
    // Non-type parameters must be given; their position is the call's.
    let (part, line, col, msg, _) =
        parse_err(ew_full("z = x +\n  scale(x)", pre, &xyz(), &[], None));
    assert_eq!((part.as_str(), line, col), ("operation", 2, 3));
    assert!(
        msg.contains("cannot deduce the value of template parameter `N`"),
        "{msg}"
    );
    let (_, _, _, msg, _) = parse_err(ew_full("z = scale<1, 2>(x)", pre, &xyz(), &[], None));
    assert!(msg.contains("is a type, not `1`"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full("z = sq<float, int>(x)", pre, &xyz(), &[], None));
    assert!(msg.contains("takes 1 template arguments, 2 given"), "{msg}");
    // A parameter named twice is refused where the second one stands (as C++ does).
    let twice = "template<typename T, typename T> T h(T v) { return v; }";
    let (part, _, _, msg, _) = parse_err(ew_full("z = h(x)", twice, &xyz(), &[], None));
    assert_eq!(part.as_str(), "preamble");
    assert!(
        msg.contains("template parameter `T` is declared twice"),
        "{msg}"
    );
    // A non-const reference parameter is refused where it is declared.
    let (part, line, _, msg, _) = parse_err(ew_full(
        "z = f(x)",
        "float g(float v) { return v; }\nfloat f(float& v) { return v; }",
        &xyz(),
        &[],
        None,
    ));
    assert_eq!((part.as_str(), line), ("preamble", 2));
    assert!(msg.contains("only `const` reference parameters"), "{msg}");
}

#[test]
fn structs_are_locals_per_field() {
    let pre = "struct P { float a; float v[2]; };\n\
               P mk(float x) { P p = {x, 1, 2}; return p; }\n\
               float sum(const P& p) { return p.a + p.v[0] + p.v[1]; }";
    let l = ew_full(
        "P p = mk(x); p.v[1] = y; P q; q = p; z = sum(q) + mk(y).a",
        pre,
        &xyz(),
        &[],
        None,
    )
    .unwrap();
    l.kernel.validate().unwrap();
    // Errors name the struct and the field.
    let (_, _, _, msg, _) = parse_err(ew_full("P p; z = p.b", pre, &xyz(), &[], None));
    assert!(msg.contains("struct `P` has no field `b`"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full("z = 1; x.a = 2", pre, &xyz(), &[], None));
    assert!(msg.contains("`x` is not a struct"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full("P p = {1, 2, 3, 4}; z = 0", pre, &xyz(), &[], None));
    assert!(msg.contains("4 initialisers for struct `P`"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full("P p[2]; z = p", pre, &xyz(), &[], None));
    assert!(msg.contains("`p` must be indexed"), "{msg}");
    let (_, _, _, msg, _) = parse_err(ew_full("P p; p += p; z = 0", pre, &xyz(), &[], None));
    assert!(
        msg.contains("compound assignment of a `P` struct needs `operator+=` or `operator+`"),
        "{msg}"
    );
    let (_, _, _, msg, _) = parse_err(ew_full("float f = {1}; z = f", "", &xyz(), &[], None));
    assert!(msg.contains("needs an array"), "{msg}");
    let (part, _, _, msg, _) = parse_err(ew_full(
        "A s; z = 0",
        "struct A { A inner; };",
        &xyz(),
        &[],
        None,
    ));
    assert_eq!(part, "operation");
    assert!(msg.contains("nests too deeply"), "{msg}");
}
