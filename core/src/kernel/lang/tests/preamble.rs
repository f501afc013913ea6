//! Preamble C++ beyond function templates and plain structs: template structs, arrays of
//! structs, member functions and operators, expression template arguments, array lengths
//! from template parameters, forward declarations; and their errors.

use super::*;

fn ok(op: &str, pre: &str) -> LoweredElementwise {
    let l = ew_full(op, pre, &xyz(), &[], None).unwrap_or_else(|e| panic!("{op}: {e}"));
    l.kernel.validate().unwrap();
    l
}

fn msg(op: &str, pre: &str) -> (String, usize, String) {
    let (part, line, _, m, _) = parse_err(ew_full(op, pre, &xyz(), &[], None));
    (part, line, m)
}

#[test]
fn template_structs_instantiate_per_argument() {
    let pre = "template<typename T> struct P { T a; T b; };\n\
               template<typename T, int N> struct V { T v[N]; };\n\
               template<typename T> T sum(const P<T>& p) { return p.a + p.b; }\n\
               template<typename T> P<T> mk(T a, T b) { P<T> p = {a, b}; return p; }";
    // P<float> and P<double> are two instances; sum deduces T from P<T>.
    let l = ok(
        "P<float> p = {x, y}; P<double> q = mk(1.5, 2.0); V<float, 3> v; v.v[2] = x;\n\
         z = sum(p) + (float)sum(q) + v.v[2]",
        pre,
    );
    assert_eq!(stored(&l).ty, Float32);
    // Member functions of a template struct see its parameters; its bare name is the instance.
    let tv = "template<typename T, int N> struct Acc {\n\
                T v[N];\n\
                Acc operator+(const Acc& o) const { Acc r; for (int k = 0; k < N; k++) { r.v[k] = v[k] + o.v[k]; } return r; }\n\
                T total() const { T s = 0; for (int k = 0; k < N; k++) { s += v[k]; } return s; }\n\
              };\n\
              struct Pair { Acc<float, 2> a; Acc<double, 3> b; };";
    let l = ok(
        "Acc<float, 2> a = {x, y}; Acc<float, 2> b = a + a; Pair p; p.a = b; p.b.v[2] = 1.0;\n\
         z = b.total() + p.a.total() + (float)p.b.total()",
        tv,
    );
    assert_eq!(stored(&l).ty, Float32);
    let (_, _, m) = msg("P p; z = 0", pre);
    assert!(
        m.contains("template struct `P` needs its template arguments"),
        "{m}"
    );
    let (_, _, m) = msg("P<float, 2> p; z = 0", pre);
    assert!(m.contains("takes 1 template arguments, 2 given"), "{m}");
    let (_, _, m) = msg("V<float, 100> v; z = 0", pre);
    assert!(m.contains("array field `v` has 100 elements"), "{m}");
    let (_, _, m) = msg("P<q> p; z = 0", pre);
    assert!(
        m.contains("template argument `q` of `P` is not a type"),
        "{m}"
    );
}

#[test]
fn arrays_of_structs_and_struct_array_fields() {
    let pre = "struct Pt { float x; float y; };\n\
               struct Poly { Pt p[3]; int n; };\n\
               float len2(const Pt& q) { return q.x * q.x + q.y * q.y; }";
    // Constant and loop indices, whole-element copies, fields of elements, an element passed.
    let l = ok(
        "Pt ps[3] = {1, 2, 3, 4};\n\
         for (int k = 0; k < 3; k++) { ps[k].y += x; }\n\
         Poly g; g.p[1] = ps[0]; g.p[2].x = len2(ps[1]);\n\
         Pt q = g.p[(int)y];\n\
         z = q.x + g.p[2].x + ps[2].y",
        pre,
    );
    assert_eq!(stored(&l).ty, Float32);
    let (_, _, m) = msg("Pt ps[2]; z = ps[0].w", pre);
    assert!(m.contains("has no field `w`"), "{m}");
    let (_, _, m) = msg("Pt ps[2] = {1, 2, 3, 4, 5}; z = 0", pre);
    assert!(m.contains("5 initialisers for `Pt ps[2]`"), "{m}");
    let (_, _, m) = msg("Pt ps[2]; ps = ps; z = 0", pre);
    assert!(m.contains("must be indexed"), "{m}");
    let (_, _, m) = msg("Pt ps[0]; z = 0", pre);
    assert!(m.contains("array `ps` has 0 elements"), "{m}");
    let (_, _, m) = msg("Pt ps[2]; z = ps[2].x", pre);
    assert!(m.contains("index 2 is out of bounds"), "{m}");
}

#[test]
fn member_functions_and_operators() {
    let pre = "struct V2 {\n\
                 float x, y;\n\
                 float dot(const V2& o) const { return x * o.x + y * o.y; }\n\
                 float norm2() const { return dot(*this); }\n\
                 void scale(float s) { x *= s; this->y = y * s; }\n\
                 V2 operator+(const V2& o) const { V2 r = {x + o.x, y + o.y}; return r; }\n\
                 V2 operator-() const { V2 r = {-x, -y}; return r; }\n\
                 bool operator==(const V2& o) const { return x == o.x && y == o.y; }\n\
                 void operator+=(const V2& o) { x += o.x; y += o.y; }\n\
               };\n\
               V2 operator*(float s, const V2& v) { V2 r = {s * v.x, s * v.y}; return r; }";
    let l = ok(
        "V2 a = {x, y}; V2 b = {1, 2}; a.scale(2); V2 c = a + -b; c += 2.0f * b;\n\
         V2 vs[2]; vs[1] = c; vs[(int)x].scale(y);\n\
         z = c.norm2() + (a == b ? 1 : 0) + vs[1].dot(a)",
        pre,
    );
    assert_eq!(stored(&l).ty, Float32);
    // A const member function cannot write its fields.
    let bad = "struct S { float x; float f() const { x = 1; return x; } };";
    let (part, _, m) = msg("S s; z = s.f()", bad);
    assert_eq!(part, "preamble");
    assert!(m.contains("cannot assign to `x`"), "{m}");
    let (_, _, m) = msg("V2 a; z = a.nope()", pre);
    assert!(
        m.contains("struct `V2` has no member function `nope`"),
        "{m}"
    );
    let (_, _, m) = msg("V2 a; z = a.dot()", pre);
    assert!(m.contains("`V2::dot` takes 1 arguments, 0 given"), "{m}");
    let (_, _, m) = msg("V2 a; z = a * a", pre);
    assert!(m.contains("no `operator*` for struct `V2`"), "{m}");
    let (_, _, m) = msg("V2 a; z = a.scale(2)", pre);
    assert!(m.contains("returns nothing (`void`)"), "{m}");
}

#[test]
fn template_arguments_are_constant_expressions() {
    let pre = "template<int N> float powi(float v) { float r = 1; for (int k = 0; k < N; k++) { r *= v; } return r; }\n\
               template<int N> float fact() { float r = 1; float t[N + 1]; for (int k = 1; k <= N; k++) { r *= k; t[k] = r; } return t[N]; }\n\
               template<int N> float down(float v) { return powi<N - 1>(v) + powi<2 * N>(v); }\n\
               #define M 2";
    let l = ok(
        "float buf[M + 1] = {x}; z = powi<1 + 2>(x) + down<M>(y) + fact<3>() + buf[0]",
        pre,
    );
    assert_eq!(stored(&l).ty, Float32);
    // `a < b > (c)` of a non-template still compares, with `+` binding tighter.
    ok("z = (x < y + 1 > (x))", "");
    let (_, _, m) = msg("z = powi<x>(y)", pre);
    assert!(m.contains("template argument `x` is not a constant"), "{m}");
    let (_, _, m) = msg("float a[(int)x]; z = 0", pre);
    assert!(m.contains("must be a constant integer"), "{m}");
}

#[test]
fn forward_declarations() {
    let pre = "float g(float);\n\
               struct P;\n\
               float f(float v) { return g(v) + 1; }\n\
               float g(float v) { return v * 2; }\n\
               struct P { float a; };";
    ok("P p = {x}; z = f(p.a)", pre);
    let (part, line, m) = msg(
        "z = x",
        "float h(float, int);\nfloat h(float v) { return v; }",
    );
    assert_eq!((part.as_str(), line), ("preamble", 1));
    assert!(
        m.contains("declared with 2 parameters but defined with 1"),
        "{m}"
    );
    let (_, _, m) = msg("z = x", "float h(float);");
    assert!(
        m.contains("function `h` is declared but not defined"),
        "{m}"
    );
    let (_, _, m) = msg("z = x", "struct Q;");
    assert!(m.contains("struct `Q` is declared but not defined"), "{m}");
}
