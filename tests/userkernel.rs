//! The rest of CuPy's user-kernel contract (issue 19): `size=` only with raw arrays, memory
//! orders of new arrays and copies, and the `ElementwiseKernel`/`ReductionKernel` options
//! (scenarios of CuPy's test_userkernel.py, test_elementwise.py and test_reduction.py,
//! translated; values computed by hand or by NumPy).

use crate::common::{self, CaseError};
use cupy::{Array, Creation, DType, Device, ElementwiseKernel, Error, Order};

/// Runs `f` on every listed backend, one tally entry per backend.
pub fn on_each(name: &str, f: impl Fn(&Device) -> std::result::Result<(), CaseError>) {
    let mut t = common::Tally::new(name);
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || f(&dev));
        t.check(&dev, name, r);
    }
    t.finish();
}

/// `Err` with a message unless `cond`.
pub fn ensure(cond: bool, msg: impl Into<String>) -> std::result::Result<(), CaseError> {
    if cond {
        Ok(())
    } else {
        Err(msg.into().into())
    }
}

/// CuPy: "Specified 'size' can be used only if all of the ndarray are 'raw'", even when the
/// size agrees with the arrays.
#[test]
fn size_needs_raw_arrays() {
    on_each("size_raw_only", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let k = ElementwiseKernel::new("T x", "T y", "y = x * 2", "double_it")?;
        for size in [3, 4] {
            let e = k.call_with(&[(&x).into()], &[], Some(size)).unwrap_err();
            ensure(
                matches!(e, Error::InvalidArgument { .. })
                    && e.to_string().contains(
                        "Specified 'size' can be used only if all of the ndarray are 'raw'",
                    ),
                format!("size={size}: {e}"),
            )?;
        }
        // A non-raw out array counts too.
        let out = Array::zeros_on(dev, &[3], DType::Float32)?;
        let e = k.call_with(&[(&x).into()], &[&out], Some(3)).unwrap_err();
        ensure(e.to_string().contains("'raw'"), format!("{e}"))?;
        // Raw arrays with scalars: size decides the loop.
        let r = ElementwiseKernel::new("raw T x, T s", "T y", "y = x[i] * s", "raw_scale")?;
        let y = r.call_with(&[(&x).into(), 2.0f32.into()], &[], Some(2))?;
        ensure(y[0].to_vec::<f32>()? == [2.0, 4.0], "raw size=2")?;
        Ok(())
    });
}

/// `empty`/`zeros`/`ones`/`full` with `order=` and `copy` with 'C'/'F'/'A'/'K' (NumPy's strides).
#[test]
fn orders_of_new_arrays_and_copies() {
    on_each("orders", |dev| {
        let f = |order| Creation {
            dtype: DType::Float32,
            order,
            device: Some(dev.clone()),
        };
        let z = cupy::zeros_with(&[2, 3], f(Order::F))?;
        ensure(
            z.strides() == [4, 8] && z.is_f_contiguous(),
            "zeros F strides",
        )?;
        ensure(z.to_vec::<f32>()? == [0.0; 6], "zeros F values")?;
        let o = cupy::ones_with(&[2, 3, 4], f(Order::C))?;
        ensure(o.strides() == [48, 16, 4], "ones C strides")?;
        let e = cupy::empty_with(&[2, 3], f(Order::F))?;
        ensure(e.strides() == [4, 8], "empty F strides")?;
        let full = cupy::full_with(
            &[2, 2],
            1.5,
            cupy::Full {
                dtype: Some(DType::Float32),
                order: Order::F,
                device: Some(dev.clone()),
            },
        )?;
        ensure(
            full.strides() == [4, 8] && full.to_vec::<f32>()? == [1.5; 4],
            "full F",
        )?;
        for bad in [Order::A, Order::K] {
            let e = cupy::zeros_with(&[2, 3], f(bad)).unwrap_err();
            ensure(
                e.to_string().contains("only 'C' or 'F' order is permitted"),
                format!("{e}"),
            )?;
        }
        // Copies: a (2, 3, 4) int32 array, transposed to (4, 3, 2) (F-contiguous) and permuted.
        let vals: Vec<i32> = (0..24).collect();
        let a = Array::from_slice_on(dev, &vals, &[2, 3, 4])?;
        let at = a.t();
        let want_t: Vec<i32> = {
            let mut v = vec![];
            for k in 0..4 {
                for j in 0..3 {
                    for i in 0..2 {
                        v.push(vals[i * 12 + j * 4 + k]);
                    }
                }
            }
            v
        };
        // (copy source, order, NumPy's strides of the copy)
        let p = a.transpose(&[1, 0, 2])?; // shape (3, 2, 4), strides (16, 48, 4) bytes
        let cases: Vec<(&Array, Order, Vec<isize>)> = vec![
            (&a, Order::C, vec![48, 16, 4]),
            (&a, Order::F, vec![4, 8, 24]),
            (&a, Order::A, vec![48, 16, 4]),
            (&a, Order::K, vec![48, 16, 4]),
            (&at, Order::C, vec![24, 8, 4]),
            (&at, Order::A, vec![4, 16, 48]),
            (&at, Order::K, vec![4, 16, 48]),
            (&p, Order::K, vec![16, 48, 4]),
            (&p, Order::A, vec![32, 16, 4]),
        ];
        for (src, order, strides) in cases {
            let c = src.copy_with(order)?;
            ensure(
                c.strides() == strides,
                format!(
                    "copy {order:?} of {:?}: strides {:?}",
                    src.strides(),
                    c.strides()
                ),
            )?;
            ensure(
                c.to_vec::<i32>()? == src.to_vec::<i32>()?,
                format!("copy {order:?} values"),
            )?;
            ensure(!c.shares_memory_with(src), "copy is new memory")?;
        }
        ensure(at.to_vec::<i32>()? == want_t, "transposed values")?;
        // cupy.copy keeps the layout (order='K'); a reversed view copies to positive strides.
        let c = cupy::copy(&at)?;
        ensure(c.is_f_contiguous(), "cupy.copy keeps F order")?;
        let r = a.slice(&[cupy::SliceItem::Slice {
            start: None,
            stop: None,
            step: -1,
        }])?;
        let c = cupy::copy_with(&r, Order::K)?;
        ensure(
            c.strides() == [48, 16, 4],
            format!("reversed K {:?}", c.strides()),
        )?;
        ensure(c.to_vec::<i32>()? == r.to_vec::<i32>()?, "reversed values")?;
        Ok(())
    });
}

/// Emits `kernels` as HIP C++ and compiles them with hipRTC for gfx90a and gfx1030 (skipped
/// with a notice when hipRTC does not load, unless `CUPY_REQUIRE_HIP=1`).
pub fn compile_with_hiprtc(tag: &str, kernels: Vec<cupy::FusedKernel>) {
    compile_with_hiprtc_opts(tag, kernels, &[]);
}

/// [`compile_with_hiprtc`] with a user kernel's `options=`, translated as the hip backend
/// does (`cupy_hip::kernels::user_flags`, `compile_options_with`).
pub fn compile_with_hiprtc_opts(tag: &str, kernels: Vec<cupy::FusedKernel>, options: &[String]) {
    use cupy::core::kernel::cpp::{
        emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
        ReduceSpec,
    };
    let Some(rtc) = common::hiprtc_or_skip() else {
        return;
    };
    let pre = prelude(Flavor::Hip);
    let mut body = String::new();
    let n = kernels.len();
    for (k, kern) in kernels.into_iter().enumerate() {
        let emitted = match kern {
            cupy::FusedKernel::Elementwise(mut kern) => {
                kern.name = format!("{tag}_{k}");
                let spec = ElementwiseSpec {
                    ndim: 2,
                    class: ElementwiseClass::Strided,
                    index64: k % 2 == 0,
                };
                emit_elementwise(&kern, &spec, Flavor::Hip)
            }
            cupy::FusedKernel::Reduction(mut kern) => {
                kern.name = format!("{tag}_{k}");
                let spec = ReduceSpec {
                    out_ndim: 1,
                    red_ndim: 1 + k % 2,
                    index64: k % 2 == 0,
                };
                emit_reduce(&kern, &spec, Flavor::Hip)
            }
        };
        let e = emitted.unwrap_or_else(|e| panic!("{tag}: HIP emission of kernel {k} failed: {e}"));
        body.push_str(&e.source[pre.len()..]);
    }
    for target in ["gfx90a", "gfx1030"] {
        let flags = cupy_hip::kernels::user_flags(options);
        let opts = cupy_hip::kernels::compile_options_with(target, &flags);
        let src = format!("{pre}{body}");
        if let Err(e) = rtc.compile(&src, &format!("{tag}.hip"), &opts) {
            let log: Vec<&str> = e.log.lines().take(60).collect();
            panic!("hipRTC ({target}) failed: {}\n{}", e.text, log.join("\n"));
        }
        eprintln!("hipRTC {target}: {n} {tag} kernels compiled");
    }
}

/// ReductionKernel: `out=` (its dtype binds the output placeholder), raw parameters, the
/// `_raw_x` view of an input with `_in_ind.get()`, a `reduce_type` placeholder,
/// `reduce_dims` and `options`.
#[test]
fn reduction_kernel_out_raw_and_types() {
    use cupy::{ReductionArgs, ReductionKernel};
    on_each("reduction_kernel_contract", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let sum = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "ksum")?
            .with_reduce_dims(false)
            .with_options(&["-DFOO=1", "--use_fast_math"])?;
        ensure(
            sum.options() == ["-DFOO=1", "--use_fast_math"],
            "options kept",
        )?;
        let out = Array::zeros_on(dev, &[2], DType::Float32)?;
        let r = sum.call_with(
            &[(&x).into()],
            ReductionArgs {
                axis: 1.into(),
                out: Some(&out),
                ..Default::default()
            },
        )?;
        ensure(out.to_vec::<f32>()? == [6.0, 15.0], "written into out")?;
        ensure(r.shares_memory_with(&out), "out returned")?;
        // The out array decides U (CuPy: placeholders bound by the output).
        let xi = Array::from_slice_on(dev, &[1i32, 2, 3, 4], &[4])?;
        let conv = ReductionKernel::new("T x", "U y", "x", "a + b", "y = a", Some("0"), "conv")?;
        ensure(
            conv.call(&[(&xi).into()], cupy::Axes::All, false).is_err(),
            "U unbound",
        )?;
        let o = Array::zeros_on(dev, &[], DType::Int64)?;
        conv.call_with(
            &[(&xi).into()],
            ReductionArgs {
                out: Some(&o),
                ..Default::default()
            },
        )?;
        ensure(o.to_vec::<i64>()? == [10], "U = int64 from out")?;
        // Wrong dtype or shape of out.
        let bad = Array::zeros_on(dev, &[2], DType::Float64)?;
        let e = sum
            .call_with(
                &[(&x).into()],
                ReductionArgs {
                    axis: 1.into(),
                    out: Some(&bad),
                    ..Default::default()
                },
            )
            .unwrap_err();
        ensure(matches!(e, cupy::Error::TypeError { .. }), format!("{e}"))?;
        let bad = Array::zeros_on(dev, &[3], DType::Float32)?;
        let e = sum
            .call_with(
                &[(&x).into()],
                ReductionArgs {
                    axis: 1.into(),
                    out: Some(&bad),
                    ..Default::default()
                },
            )
            .unwrap_err();
        ensure(matches!(e, Error::ShapeMismatch { .. }), format!("{e}"))?;
        // A raw weight array indexed by the input position.
        let w = Array::from_slice_on(dev, &[1.0f32, 10.0, 100.0], &[3])?;
        let wsum = ReductionKernel::new(
            "T x, raw T w",
            "T y",
            "x * w[_in_ind.get() % w.size()]",
            "a + b",
            "y = a",
            Some("0"),
            "wsum",
        )?;
        let r = wsum.call(&[(&x).into(), (&w).into()], 1, false)?;
        ensure(r.to_vec::<f32>()? == [321.0, 654.0], "raw weights")?;
        // `_raw_x`: the input itself as a raw array (here read backwards).
        let rev = ReductionKernel::new(
            "T x",
            "T y",
            "_raw_x[_in_ind.size() - 1 - _in_ind.get()]",
            "a + b",
            "y = a",
            Some("0"),
            "revsum",
        )?;
        let r = rev.call(&[(&x).into()], 1, true)?;
        ensure(
            r.shape() == [2, 1] && r.to_vec::<f32>()? == [15.0, 6.0],
            "_raw_x",
        )?;
        // A scalar for a raw parameter is refused.
        let e = wsum
            .call(&[(&x).into(), 1.0f32.into()], 1, false)
            .unwrap_err();
        ensure(e.to_string().contains("raw"), format!("{e}"))?;
        // reduce_type as a placeholder: U (float64, from the weak float) accumulates, so the
        // halves are not truncated per element (int32 accumulation would give 0 + 1 + 1 = 2).
        let half = ReductionKernel::new(
            "T x, U s",
            "T y",
            "x * s",
            "a + b",
            "y = a",
            Some("0"),
            "half",
        )?
        .with_reduce_type("U")?;
        let xi3 = Array::from_slice_on(dev, &[1i32, 2, 3], &[3])?;
        match half.call(&[(&xi3).into(), 0.5.into()], cupy::Axes::All, false) {
            Ok(r) => ensure(
                r.dtype() == DType::Int32 && r.to_vec::<i32>()? == [3],
                "acc U",
            )?,
            Err(Error::DTypeNotSupported { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        let e = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "o")?
            .with_options(&["-I/tmp"])
            .unwrap_err();
        ensure(e.to_string().contains("not taken"), format!("{e}"))?;
        // `_ind.get()` of an ElementwiseKernel is the flat index `i`.
        let k = ElementwiseKernel::new("T x", "int64 y", "y = _ind.get() * 10 + i", "ind_get")?;
        ensure(
            k.call(&[(&x).into()])?.to_vec::<i64>()? == [0, 11, 22, 33, 44, 55],
            "_ind.get()",
        )?;
        Ok(())
    });
}

/// ElementwiseKernel: `loop_prep`/`after_loop`, `options` (`-D` macros), `block_size`, and
/// `x.shape()[d]` / `x.strides()[d]` of raw arrays (2-D indexing through them).
#[test]
fn elementwise_kernel_prep_options_and_raw_shapes() {
    use cupy::ElementwiseArgs;
    on_each("elementwise_kernel_contract", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let k = ElementwiseKernel::new("T x", "T y", "y = x * scale", "prep")?
            .with_loop_prep("T scale = 3")?
            .with_after_loop("y = y + 1;")?;
        ensure(
            k.call(&[(&x).into()])?.to_vec::<f32>()? == [4.0, 7.0, 10.0],
            "prep/after",
        )?;
        // Errors name their part and line.
        let part_line = |e: Error| match e {
            Error::Parse { part, line, .. } => (part, line),
            e => (format!("{e}"), 0),
        };
        let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "p")?
            .with_loop_prep("float a = 1;\nfloat b = +;")
            .unwrap_err();
        ensure(part_line(e) == ("loop_prep".into(), 2), "loop_prep error")?;
        let e = ElementwiseKernel::new("T x", "T y", "y = x;\ny = y * ;", "p")?
            .with_loop_prep("T a = 1;\nT b = 2;")?
            .call(&[(&x).into()])
            .unwrap_err();
        ensure(part_line(e) == ("operation".into(), 2), "operation error")?;
        let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "p")?
            .with_after_loop("y = q;")
            .unwrap_err();
        ensure(part_line(e) == ("after_loop".into(), 1), "after_loop error")?;
        // -D macros on every backend; the other taken flags change nothing.
        let d = ElementwiseKernel::new_with(
            "float32 x",
            "float32 y",
            "y = x * N + FLAG",
            "defs",
            cupy::ElementwiseOptions {
                options: &["-DN=4", "-DFLAG", "--use_fast_math", "-O3", "-std=c++17"],
                ..Default::default()
            },
        )?;
        let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x * N", "defs").unwrap_err();
        ensure(e.to_string().contains("unknown name `N`"), format!("{e}"))?;
        ensure(
            d.call(&[(&x).into()])?.to_vec::<f32>()? == [5.0, 9.0, 13.0],
            "-D macros",
        )?;
        let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "o")?
            .with_options(&["-arch=sm_90"])
            .unwrap_err();
        ensure(e.to_string().contains("not taken"), format!("{e}"))?;
        // block_size (CuPy: 0 is a ValueError).
        let add = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add_bs")?;
        let kw = |b| ElementwiseArgs {
            block_size: Some(b),
            ..Default::default()
        };
        let r = add.call_args(&[(&x).into(), 1.0f32.into()], kw(1))?;
        ensure(r[0].to_vec::<f32>()? == [2.0, 3.0, 4.0], "block_size=1")?;
        ensure(
            add.call_args(&[(&x).into(), 1.0f32.into()], kw(0)).is_err(),
            "block_size=0",
        )?;
        // Raw shapes and strides: a (2, 3) array read transposed.
        let m = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let meta = ElementwiseKernel::new(
            "raw T x",
            "int64 y",
            "y = x.shape()[0] * 100 + x.shape()[1] * 10 + x.strides()[0] / x.strides()[1]",
            "meta",
        )?;
        let r = meta.call_args(
            &[(&m).into()],
            ElementwiseArgs {
                size: Some(1),
                ..Default::default()
            },
        )?;
        ensure(r[0].to_vec::<i64>()? == [233], "shape/strides")?;
        let tr = ElementwiseKernel::new(
            "raw T x",
            "T y",
            "long long r = i % x.shape()[0], c = i / x.shape()[0]; y = x[r * x.shape()[1] + c]",
            "transpose_read",
        )?;
        let r = tr.call_with(&[(&m).into()], &[], Some(6))?;
        ensure(
            r[0].to_vec::<f32>()? == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
            "2-D read",
        )?;
        // A transposed view reads as its C-ordered copy: strides of that copy.
        let r = meta.call_with(&[(&m.t()).into()], &[], Some(1))?;
        ensure(r[0].to_vec::<i64>()? == [320 + 2], "view shape/strides")?;
        let bad = ElementwiseKernel::new("raw T x", "int64 y", "y = x.shape()[2]", "bad_dim")?;
        let e = bad.call_with(&[(&m).into()], &[], Some(1)).unwrap_err();
        ensure(e.to_string().contains("shape()[2]"), format!("{e}"))?;
        let e = ElementwiseKernel::new("raw float32 x", "int64 y", "y = x.shape()[i]", "nc")
            .unwrap_err();
        ensure(e.to_string().contains("constant"), format!("{e}"))?;
        // Local arrays: constant and per-element indices, compound writes, a loop over them.
        let la = ElementwiseKernel::new(
            "T x",
            "T y",
            "T b[3] = {x, x * 2, x * 3}; T s = 0;\n\
             for (int j = 0; j < 3; j++) { s += b[j]; }\n\
             b[i % 3] = s; b[0] += 0; y = b[0] + b[1] + b[2]",
            "local_array",
        )?;
        ensure(
            la.call(&[(&x).into()])?.to_vec::<f32>()? == [11.0, 20.0, 27.0],
            "local array",
        )?;
        // A multi-dimensional index of a raw array: `ptrdiff_t idx[2]` (CuPy's `x[idx]`).
        let md = ElementwiseKernel::new(
            "raw T x",
            "T y",
            "ptrdiff_t idx[2] = {i % x.shape()[0], i / x.shape()[0]}; y = x[idx]",
            "md_index",
        )?;
        let r = md.call_with(&[(&m).into()], &[], Some(6))?;
        ensure(
            r[0].to_vec::<f32>()? == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
            "x[idx]",
        )?;
        let e = md.call_with(&[(&x).into()], &[], Some(3)).unwrap_err();
        ensure(
            e.to_string().contains("indexed with 2 indices"),
            format!("{e}"),
        )?;
        for (op, what) in [
            ("float b[2] = {1, 2, 3}; y = x", "initialisers"),
            ("float b[2]; y = b[2]", "out of bounds"),
            ("float b[100]; y = x", "1 to 64"),
            ("float b[2]; y = b", "must be indexed"),
        ] {
            let e = ElementwiseKernel::new("float32 x", "float32 y", op, "la_bad").unwrap_err();
            ensure(
                matches!(e, Error::Parse { .. }) && e.to_string().contains(what),
                format!("{op}: {e}"),
            )?;
        }
        // Template preambles are instantiated (tests/usertemplates.rs has the rest).
        let t = ElementwiseKernel::new_with(
            "float32 x",
            "float32 y",
            "y = twice(x)",
            "tp",
            cupy::ElementwiseOptions {
                preamble: "template <typename T> T twice(T v) { return v + v; }",
                ..Default::default()
            },
        )?;
        let y = t.call(&[(&x).into()])?;
        let want: Vec<f32> = x.to_vec::<f32>()?.iter().map(|v| v + v).collect();
        ensure(y.to_vec::<f32>()? == want, "template twice")?;
        // A plain preamble function works with new_with on a concrete kernel.
        let p = ElementwiseKernel::new_with(
            "float32 x",
            "float32 y",
            "y = twice(x)",
            "pre",
            cupy::ElementwiseOptions {
                preamble: "float twice(float v) { return v + v; }",
                ..Default::default()
            },
        )?;
        ensure(
            p.call(&[(&x).into()])?.to_vec::<f32>()? == [2.0, 4.0, 6.0],
            "preamble",
        )?;
        Ok(())
    });
}

/// The new kernel forms compile with hipRTC: raw shapes/strides, loop_prep/after_loop, a
/// reduction's map pass over raw arrays.
#[test]
fn new_kernel_forms_compile_with_hiprtc() {
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let m = Array::from_slice_on(&cpu, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Array::from_slice_on(&cpu, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let mut ks = vec![];
    let tr = ElementwiseKernel::new(
        "raw T x",
        "T y",
        "long long r = i % x.shape()[0]; y = x[r * x.shape()[1] + i / x.shape()[0]] + x.strides()[1]",
        "transpose_read",
    )
    .unwrap();
    ks.push(tr.ir(&[(&m).into()], &[]).unwrap());
    let k = ElementwiseKernel::new("T x", "T y", "y = x * s + _ind.get()", "prep")
        .unwrap()
        .with_loop_prep("T s = N")
        .unwrap()
        .with_after_loop("y += 1")
        .unwrap()
        .with_options(&["-DN=3"])
        .unwrap();
    ks.push(k.ir(&[(&m).into()], &[]).unwrap());
    let la = ElementwiseKernel::new(
        "raw T x",
        "T y",
        "T b[3] = {1, 2, 3}; for (int j = 0; j < 3; j++) { b[j] += j; }\n\
         ptrdiff_t idx[2] = {i % x.shape()[0], i / x.shape()[0]}; b[i % 3] = x[idx]; y = b[i % 3] + b[0]",
        "local_arrays",
    )
    .unwrap();
    ks.push(la.ir(&[(&m).into()], &[]).unwrap());
    let r = cupy::ReductionKernel::new(
        "T x, raw T w",
        "T y",
        "x * w[_in_ind.get() % w.size()] + _raw_x[0]",
        "a + b",
        "y = a",
        Some("0"),
        "wsum",
    )
    .unwrap();
    let args = [(&m).into(), (&w).into()];
    ks.push(r.map_pass_ir(&args).unwrap().expect("a map pass"));
    let mut all: Vec<cupy::FusedKernel> =
        ks.into_iter().map(cupy::FusedKernel::Elementwise).collect();
    all.push(cupy::FusedKernel::Reduction(r.ir(&args).unwrap()));
    compile_with_hiprtc("kernels19", all);
    // options= reach hipRTC: fast math, an -O level, macros.
    let opts: Vec<String> = [
        "--use_fast_math",
        "-O1",
        "-DN=3",
        "--define-macro=M=2",
        "-std=c++11",
    ]
    .map(String::from)
    .to_vec();
    let f = ElementwiseKernel::new("T x", "T y", "y = sqrt(x) * N + M", "fast")
        .unwrap()
        .with_options(&opts.iter().map(|s| s.as_str()).collect::<Vec<_>>())
        .unwrap();
    let ks = vec![cupy::FusedKernel::Elementwise(
        f.ir(&[(&m).into()], &[]).unwrap(),
    )];
    compile_with_hiprtc_opts("kernels19_opts", ks, &opts);
}

/// The compiler flags `options=` becomes on each C++ backend (NVRTC, hipRTC): the pure
/// translation, checked without a GPU.
#[test]
fn options_become_compiler_flags() {
    let user: Vec<String> = [
        "-DN=4",
        "--define-macro=M=2",
        "--use_fast_math",
        "-use_fast_math",
        "-O2",
        "-std=c++11",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        cupy_cuda::compile::user_flags(&user),
        ["--use_fast_math", "--use_fast_math"]
    );
    let hip = cupy_hip::kernels::user_flags(&user);
    assert_eq!(hip, ["-ffast-math", "-ffast-math", "-O2"]);
    let all = cupy_hip::kernels::compile_options_with("gfx90a", &hip);
    assert!(all.contains(&"-O2".to_string()) && !all.contains(&"-O3".to_string()));
    assert!(!all.contains(&"-ffp-contract=off".to_string()));
    assert_eq!(
        cupy_hip::kernels::compile_options_with("gfx90a", &[]),
        cupy_hip::kernels::compile_options("gfx90a")
    );
}
