//! Preambles with C++ `template` functions and `struct`s (issue 19): the kernel language
//! instantiates them for the IR (cpu, wgpu, and the C++ emitters), and `RawModule` passes them
//! to hipRTC untouched. Scenarios of CuPy's user-kernel tests, translated (helpers in the
//! preamble, a struct with fields used in the body); values computed by hand (small integers,
//! exact in every dtype).

use crate::common::CaseError;
use crate::userkernel::{compile_with_hiprtc, ensure, on_each};
use cupy::{Array, DType, ElementwiseKernel, Error, ReductionKernel};

const SQ: &str = "template<typename T> __device__ T sq(T x) { return x * x; }";

fn pre_opts(preamble: &str) -> cupy::ElementwiseOptions<'_> {
    cupy::ElementwiseOptions {
        preamble,
        ..Default::default()
    }
}

fn f64s(a: &Array) -> std::result::Result<Vec<f64>, CaseError> {
    Ok(a.astype(DType::Float64)?.to_vec::<f64>()?)
}

/// `template<typename T> __device__ T sq(T x)`: T deduced from the argument, per dtype.
#[test]
fn template_function_deduced_per_dtype() {
    on_each("tmpl_sq", |dev| {
        let k =
            ElementwiseKernel::new("T x", "T y", "y = sq(x) + sq(2)", "tsq")?.with_preamble(SQ)?;
        let vals = [-3.0f64, -1.0, 0.0, 2.0, 5.0];
        for dt in [
            DType::Float32,
            DType::Float64,
            DType::Int32,
            DType::Int64,
            DType::Int16,
        ] {
            let x = Array::from_slice_on(dev, &vals, &[5])?.astype(dt)?;
            let y = k.call(&[(&x).into()])?;
            ensure(y.dtype() == dt, format!("{dt}: dtype {}", y.dtype()))?;
            let want: Vec<f64> = vals.iter().map(|v| v * v + 4.0).collect();
            ensure(f64s(&y)? == want, format!("{dt}: {:?}", f64s(&y)?))?;
        }
        Ok(())
    });
}

/// Two type parameters, explicit arguments (`cvt<float>(x)`), a non-type parameter in a loop
/// bound (`powi<3>(x)`), a template calling a template, and `complex<T>` deduction.
#[test]
fn template_arguments_explicit_and_non_type() {
    on_each("tmpl_args", |dev| {
        let pre = "template<typename T, typename U>\n\
                   __device__ U axpy(T a, U x, U y) { return (U)(a * x) + y; }\n\
                   template<class T> __device__ inline T cvt(double v) { return (T)v; }\n\
                   template<int N> __device__ float powi(float x) {\n\
                     float r = 1;\n\
                     for (int k = 0; k < N; k++) { r *= x; }\n\
                     return r;\n\
                   }\n\
                   template<typename T> __device__ T quad(const T& x) { return sq<T>(sq(x)); }\n"
            .to_string()
            + SQ;
        let k = ElementwiseKernel::new_with(
            "float32 x, int32 n",
            "float32 y, float64 w",
            "y = axpy(n, x, 1.0f) + powi<3>(x) + cvt<float>(0.5); w = quad(x) + quad<double>(n)",
            "targs",
            pre_opts(&pre),
        )?;
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, -1.0], &[3])?;
        let out = k.call_with(&[(&x).into(), 3i32.into()], &[], None)?;
        ensure(
            out[0].to_vec::<f32>()?
                == [
                    1.0 * 3.0 + 1.0 + 1.0 + 0.5,
                    6.0 + 1.0 + 8.0 + 0.5,
                    -3.0 + 1.0 - 1.0 + 0.5,
                ],
            format!("y {:?}", out[0].to_vec::<f32>()?),
        )?;
        ensure(
            out[1].to_vec::<f64>()? == [1.0 + 81.0, 16.0 + 81.0, 1.0 + 81.0],
            format!("w {:?}", out[1].to_vec::<f64>()?),
        )?;
        Ok(())
    });
}

const PT: &str = "struct Pt { float x; float y; };\n\
                  __device__ float norm2(Pt p) { return p.x * p.x + p.y * p.y; }\n\
                  __device__ Pt mk(float a, float b) { Pt p = {a, b}; return p; }\n\
                  __device__ Pt swap(const Pt& p) { Pt q; q.x = p.y; q.y = p.x; return q; }\n";

/// A struct in the preamble, its fields read and written in the body, passed to and returned
/// from functions, copied, initialised from a `{...}` list, and a field of a returned value.
#[test]
fn struct_fields_in_the_body() {
    on_each("struct_fields", |dev| {
        let k = ElementwiseKernel::new_with(
            "float32 a, float32 b",
            "float32 z",
            "Pt p; p.x = a; p.y = b;\n\
             Pt q = swap(mk(a, b)); q.x += 1;\n\
             Pt r = q; r.y = 0; q = p;\n\
             z = norm2(p) + q.x * 10 + r.x * 100 + mk(a, 0).x * 1000 + swap(p).x * 10000",
            "pts",
            pre_opts(PT),
        )?;
        let a = Array::from_slice_on(dev, &[1.0f32, 2.0, 0.0], &[3])?;
        let b = Array::from_slice_on(dev, &[3.0f32, -1.0, 2.0], &[3])?;
        let z = k.call(&[(&a).into(), (&b).into()])?;
        let want: Vec<f32> = [(1.0f32, 3.0f32), (2.0, -1.0), (0.0, 2.0)]
            .iter()
            .map(|&(a, b)| a * a + b * b + a * 10.0 + (b + 1.0) * 100.0 + a * 1000.0 + b * 10000.0)
            .collect();
        ensure(
            z.to_vec::<f32>()? == want,
            format!("{:?} != {want:?}", z.to_vec::<f32>()?),
        )?;
        Ok(())
    });
}

/// Struct fields of the kernel's placeholder type, an array field, a nested struct, a
/// template function taking a struct, and a struct in a `ReductionKernel`'s map.
#[test]
fn struct_with_placeholder_array_and_nested_fields() {
    on_each("struct_nested", |dev| {
        let pre = "struct Acc { T s; T v[2]; };\n\
                   struct Two { Acc a; int n; };\n\
                   template<typename U> __device__ U total(Two t, U w) {\n\
                     return (t.a.s + t.a.v[0] + t.a.v[1]) * w + t.n;\n\
                   }\n";
        let k = ElementwiseKernel::new(
            "T x",
            "T y",
            "Two t = {x, 1, 2, 3}; t.a.v[1] += x; Acc c = t.a; c.s = 0;\n\
             for (int j = 0; j < 2; j++) { t.a.v[j] *= 2; }\n\
             y = total(t, (T)2) + c.v[1]",
            "nested",
        )?
        .with_preamble(pre)?;
        for dt in [DType::Float32, DType::Int32] {
            let x = Array::from_slice_on(dev, &[1.0f64, 4.0, -2.0], &[3])?.astype(dt)?;
            let y = k.call(&[(&x).into()])?;
            ensure(y.dtype() == dt, format!("{dt}: {}", y.dtype()))?;
            // t = {s: x, v: [1, 2 + x], n: 3}, v doubled: [2, 4 + 2x]; c.v[1] = 2 + x.
            let want: Vec<f64> = [1.0f64, 4.0, -2.0]
                .iter()
                .map(|x| (x + 2.0 + 4.0 + 2.0 * x) * 2.0 + 3.0 + 2.0 + x)
                .collect();
            ensure(
                f64s(&y)? == want,
                format!("{dt}: {:?} != {want:?}", f64s(&y)?),
            )?;
        }
        let r = ReductionKernel::new(
            "T x",
            "T y",
            "norm2(mk(x, sq(x)))",
            "a + b",
            "y = a",
            Some("0"),
            "ptsum",
        )?
        .with_preamble(&format!("{SQ}\n{PT}"));
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, -1.0, 0.0], &[2, 2])?;
        let s = r.call(&[(&x).into()], 1, false)?;
        ensure(
            s.to_vec::<f32>()? == [1.0 + 1.0 + 4.0 + 16.0, 1.0 + 1.0],
            format!("reduction {:?}", s.to_vec::<f32>()?),
        )?;
        Ok(())
    });
}

/// A `ReductionKernel` whose map (an expression: struct locals are substituted values there)
/// calls a function using a template struct, an array of structs, a member function and an
/// operator; the same helpers in an `ElementwiseKernel` with a loop over the array.
#[test]
fn reduction_map_with_template_struct_methods() {
    on_each("struct_methods_reduction", |dev| {
        let pre = "template<typename T> struct V2 {\n\
                     T x, y;\n\
                     __device__ T n2() const { return x * x + y * y; }\n\
                     __device__ V2 operator+(const V2& o) const { V2 r = {x + o.x, y + o.y}; return r; }\n\
                   };\n\
                   template<typename T> __device__ T mag(T v) {\n\
                     V2<T> ps[2] = {v, 1, 1, v};\n\
                     V2<T> s = ps[0] + ps[1];\n\
                     return s.n2() - ps[1].n2();\n\
                   }";
        // (v + 1)^2 * 2 - (1 + v^2) = v^2 + 4v + 1
        let r = ReductionKernel::new("T x", "T y", "mag(x)", "a + b", "y = a", Some("0"), "m")?
            .with_preamble(pre);
        let xs = [1.0f32, 2.0, -1.0, 0.0, 3.0, -2.0];
        let x = Array::from_slice_on(dev, &xs, &[2, 3])?;
        let got = r.call(&[(&x).into()], 1, false)?.to_vec::<f32>()?;
        let want: Vec<f32> = xs
            .chunks(3)
            .map(|c| c.iter().map(|v| v * v + 4.0 * v + 1.0).sum())
            .collect();
        ensure(got == want, format!("reduction {got:?} != {want:?}"))?;
        let k = ElementwiseKernel::new(
            "T x",
            "T y",
            "V2<T> acc = {0, 0};\n\
             V2<T> ps[3];\n\
             for (int j = 0; j < 3; j++) { ps[j].x = x * j; ps[j].y = j; acc = acc + ps[j]; }\n\
             y = acc.n2() + mag(x)",
            "acc",
        )?
        .with_preamble(pre)?;
        let y = k.call(&[(&x).into()])?.to_vec::<f32>()?;
        // acc = (3x, 3): 9x^2 + 9, plus x^2 + 4x + 1.
        let want: Vec<f32> = xs.iter().map(|v| 10.0 * v * v + 4.0 * v + 10.0).collect();
        ensure(y == want, format!("elementwise {y:?} != {want:?}"))?;
        Ok(())
    });
}

fn parse_msg(r: cupy::Result<impl std::fmt::Debug>) -> String {
    match r {
        Err(e @ Error::Parse { .. }) => e.to_string(),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Clear errors: conflicting deduction, an undeducible parameter, a missing field, a struct
/// used as a number, structs and templates outside the preamble, template structs.
#[test]
fn template_and_struct_errors() {
    let x = cupy::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let two = "template<typename T> __device__ T add(T a, T b) { return a + b; }";
    let k = ElementwiseKernel::new("T x, U w", "T y", "y = add(x, w)", "k")
        .unwrap()
        .with_preamble(two)
        .unwrap();
    let w = cupy::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
    let m = parse_msg(k.call(&[(&x).into(), (&w).into()]));
    assert!(
        m.contains("conflicting types for template parameter `T`"),
        "{m}"
    );
    // A literal does not conflict with a strong argument (weak, as NumPy's scalars).
    let k = ElementwiseKernel::new_with(
        "float32 x",
        "float32 y",
        "y = add(x, 1.5)",
        "k",
        pre_opts(two),
    )
    .unwrap();
    assert_eq!(
        k.call(&[(&x).into()]).unwrap().to_vec::<f32>().unwrap(),
        [2.5, 3.5]
    );
    let m = parse_msg(ElementwiseKernel::new_with(
        "float32 x",
        "float32 y",
        "y = cvt(x)",
        "k",
        pre_opts("template<typename T> T cvt(float v) { return (T)v; }"),
    ));
    assert!(m.contains("cannot deduce template parameter `T`"), "{m}");
    let pt = pre_opts("struct Pt { float x, y; };");
    let m = parse_msg(ElementwiseKernel::new_with(
        "float32 x",
        "float32 y",
        "Pt p; y = p.z",
        "k",
        pt,
    ));
    assert!(m.contains("struct `Pt` has no field `z`"), "{m}");
    let m = parse_msg(ElementwiseKernel::new_with(
        "float32 x",
        "float32 y",
        "Pt p; y = p",
        "k",
        pt,
    ));
    assert!(m.contains("`p` is a `Pt` struct"), "{m}");
    let m = parse_msg(ElementwiseKernel::new(
        "float32 x",
        "float32 y",
        "struct P { float a; }; y = x",
        "k",
    ));
    assert!(
        m.contains("define templates and structs in the preamble"),
        "{m}"
    );
    let m = parse_msg(ElementwiseKernel::new_with(
        "float32 x",
        "float32 y",
        "P p = {x}; y = p.a",
        "k",
        pre_opts("template<typename T> struct P { T a; };"),
    ));
    assert!(
        m.contains("template struct `P` needs its template arguments"),
        "{m}"
    );
    // `a < b > (c)` is still a comparison when `a` is not a template function.
    let k = ElementwiseKernel::new(
        "int32 a, int32 b, int32 c",
        "int32 y",
        "y = a < b > (c)",
        "k",
    )
    .unwrap();
    let one = cupy::from_slice(&[1i32], &[1]).unwrap();
    let y = k.call(&[(&one).into(), 2i32.into(), 0i32.into()]).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [1]);
}

/// The template and struct kernels' IR compiles with hipRTC (gfx90a, gfx1030); and a
/// `RawModule` with C++ templates and structs reaches hipRTC untouched.
#[test]
fn templates_and_structs_compile_with_hiprtc() {
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let x = Array::from_slice_on(&cpu, &[1.0f32, 2.0], &[2]).unwrap();
    let k = ElementwiseKernel::new(
        "T x",
        "T y",
        "Pt p = mk(x, sq(x)); Pt q = swap(p); y = norm2(q) + powi<2>(x)",
        "tmpl_struct",
    )
    .unwrap()
    .with_preamble(&format!(
        "{SQ}\n{PT}\ntemplate<int N> float powi(float x) {{ float r = 1; \
         for (int k = 0; k < N; k++) {{ r *= x; }} return r; }}"
    ))
    .unwrap();
    let mut ks = vec![cupy::FusedKernel::Elementwise(
        k.ir(&[(&x).into()], &[]).unwrap(),
    )];
    let r = ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", Some("0"), "tsum")
        .unwrap()
        .with_preamble(SQ);
    ks.push(cupy::FusedKernel::Reduction(r.ir(&[(&x).into()]).unwrap()));
    compile_with_hiprtc("tmpl19", ks);
    let raw = "template<typename T> __device__ T sq(T x) { return x * x; }\n\
               struct Pair { float a; int b; };\n\
               extern \"C\" __global__ void pairs(const float* x, Pair* out, int n) {\n\
                 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 if (i < n) { Pair p; p.a = sq(x[i]); p.b = sq<int>(i); out[i] = p; }\n\
               }\n";
    let m = cupy::RawModule::new(raw);
    assert_eq!(m.code(), raw, "RawModule keeps the source");
    if crate::common::hiprtc_or_skip().is_none() {
        return;
    }
    for arch in ["gfx90a", "gfx1030"] {
        let code = cupy_hip::raw::compile_raw("test", "pairs", m.code(), arch, &[])
            .unwrap_or_else(|e| panic!("hipRTC {arch}: {e}"));
        assert!(!code.is_empty());
    }
}
