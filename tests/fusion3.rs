//! `out=` of a fused reduction (`Sym::reduce_out`, CuPy's `cupy.sum(x, axis=0, out=z)` inside
//! `cupy.fuse`), and `ReductionKernel`'s `options=` beyond `-D` and the `_type_reduce` type
//! (issue 19). Values are small integers, exact in every dtype.

use crate::userkernel::{compile_with_hiprtc_opts, ensure, on_each};
use cupy::{fuse, Array, DType, Error, Reduce, ReductionKernel, Sym};

/// `sum(x, axis=0, out=z)`: the reduction kernel writes `z` itself (one kernel); the result
/// is `z`; work after it reads the written values.
#[test]
fn fused_reduction_out_writes_the_argument() {
    on_each("fuse_reduce_out", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let z = Array::zeros_on(dev, &[3], DType::Float32)?;
        let f = fuse(|x: Sym, z: Sym| Sym::reduce_out(x.sum_axis(0), z));
        let args = [(&x).into(), (&z).into()];
        ensure(f.kernel_count(&args)? == 1, "sum(out=z): one kernel")?;
        let r = f.call(&args)?;
        ensure(z.to_vec::<f32>()? == [5.0, 7.0, 9.0], "z written")?;
        ensure(r.to_vec::<f32>()? == [5.0, 7.0, 9.0], "the result is z")?;
        // The reduced values used after the write; no return value.
        let z = Array::zeros_on(dev, &[2], DType::Float32)?;
        let w = Array::zeros_on(dev, &[2, 3], DType::Float32)?;
        let g = fuse(|x: Sym, z: Sym, w: Sym| {
            let m = x.max_axis(1);
            Sym::reduce_out(m, z);
            w.assign(x / m.slice(&cupy::s![.., cupy::NEW_AXIS]));
        });
        let args = [(&x).into(), (&z).into(), (&w).into()];
        ensure(
            g.kernel_count(&args)? == 2,
            "max(out=z), then x / max: two kernels",
        )?;
        ensure(g.call_multi(&args)?.is_empty(), "no outputs")?;
        let want = [1.0 / 3.0, 2.0 / 3.0, 1.0, 4.0 / 6.0, 5.0 / 6.0, 1.0];
        ensure(z.to_vec::<f32>()? == [3.0, 6.0], "z = max")?;
        ensure(
            w.to_vec::<f32>()? == want,
            format!("w {:?}", w.to_vec::<f32>()?),
        )?;
        // Reading `z` itself after the write: the write moves to z's output kernel.
        let z = Array::zeros_on(dev, &[2], DType::Float32)?;
        let w = Array::zeros_on(dev, &[2, 3], DType::Float32)?;
        let h = fuse(|x: Sym, z: Sym, w: Sym| {
            let m = Sym::reduce_out(x.max_axis(1), z);
            w.assign(x / m.slice(&cupy::s![.., cupy::NEW_AXIS]));
        });
        let args = [(&x).into(), (&z).into(), (&w).into()];
        ensure(h.kernel_count(&args)? == 3, "z read after: three kernels")?;
        h.call_multi(&args)?;
        ensure(z.to_vec::<f32>()? == [3.0, 6.0], "z = max (read after)")?;
        ensure(
            w.to_vec::<f32>()? == want,
            format!("w (read after) {:?}", w.to_vec::<f32>()?),
        )?;
        Ok(())
    });
}

/// `out=` of another dtype (same_kind) or a strided `out` goes through the output kernel;
/// a float result into an int32 `out` is NumPy's TypeError; a non-reduction is refused.
#[test]
fn fused_reduction_out_casts_and_refusals() {
    on_each("fuse_reduce_out_rules", |dev| {
        let x = Array::from_slice_on(dev, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        // int64 sum into a float64 out: same_kind, through the output kernel.
        let z = Array::zeros_on(dev, &[2], DType::Float64)?;
        let f = fuse(|x: Sym, z: Sym| Sym::reduce_out(x.sum_axis(1), z));
        let args = [(&x).into(), (&z).into()];
        ensure(f.kernel_count(&args)? == 2, "cast: reduction + write")?;
        f.call(&args)?;
        ensure(z.to_vec::<f64>()? == [6.0, 15.0], "z float64")?;
        // A strided out (every other element).
        let big = Array::zeros_on(dev, &[6], DType::Int64)?;
        let view = big.slice(&cupy::s![0..6;2])?;
        let g = fuse(|x: Sym, z: Sym| {
            Sym::reduce_out(x.sum_with(Reduce::from(cupy::Axes::from(0))), z);
        });
        g.call_multi(&[(&x).into(), (&view).into()])?;
        ensure(big.to_vec::<i64>()? == [5, 0, 7, 0, 9, 0], "strided out")?;
        // float32 mean into int32: not same_kind.
        let xf = Array::from_slice_on(dev, &[1.0f32, 2.0], &[2])?;
        let zi = Array::zeros_on(dev, &[], DType::Int32)?;
        let h = fuse(|x: Sym, z: Sym| Sym::reduce_out(x.mean(), z));
        let e = h.call(&[(&xf).into(), (&zi).into()]).unwrap_err();
        ensure(
            matches!(e, Error::TypeError { .. }) && e.to_string().contains("same_kind"),
            format!("{e}"),
        )?;
        // An out the result would broadcast into: NumPy refuses it (no broadcasting of a
        // reduction's result), and the out keeps its values.
        let z13 = Array::from_slice_on(dev, &[7i64, 8, 9], &[1, 3])?;
        let b = fuse(|x: Sym, z: Sym| Sym::reduce_out(x.sum_axis(0), z));
        let e = b.call(&[(&x).into(), (&z13).into()]).unwrap_err();
        ensure(
            matches!(e, Error::ShapeMismatch { .. }) && e.to_string().contains("[1, 3]"),
            format!("{e}"),
        )?;
        ensure(z13.to_vec::<i64>()? == [7, 8, 9], "refused out unchanged")?;
        // Not a reduction's result.
        let k = fuse(|x: Sym, z: Sym| Sym::reduce_out(x * 2.0, z));
        let e = k.call(&[(&xf).into(), (&xf).into()]).unwrap_err();
        ensure(e.to_string().contains("reduction's result"), format!("{e}"))?;
        Ok(())
    });
}

/// An `out` that the function also reads keeps its old values for those reads: the write goes
/// through the output kernel, after the reads.
#[test]
fn fused_reduction_out_read_elsewhere() {
    on_each("fuse_reduce_out_read", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        let z = Array::from_slice_on(dev, &[10.0f32, 20.0], &[2])?;
        let f = fuse(|x: Sym, z: Sym| {
            let old = z + 0.0;
            Sym::reduce_out(x.sum_axis(0), z);
            old
        });
        let old = f.call(&[(&x).into(), (&z).into()])?;
        ensure(old.to_vec::<f32>()? == [10.0, 20.0], "old z read")?;
        ensure(z.to_vec::<f32>()? == [4.0, 6.0], "z written")?;
        Ok(())
    });
}

/// ReductionKernel `options=`: `-D` macros on every backend, the other flags accepted (they
/// reach NVRTC/hipRTC; cpu and wgpu ignore them) and results unchanged; `_type_reduce` names
/// the accumulator type (CuPy's typedef).
#[test]
fn reduction_kernel_options_and_type_reduce() {
    on_each("redk_options", |dev| {
        let x = Array::from_slice_on(dev, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        let k = ReductionKernel::new(
            "T x",
            "U y",
            "(_type_reduce)x * SCALE",
            "a + b",
            "y = (U)(a / (_type_reduce)2)",
            Some("0"),
            "opts_sum",
        )?
        .with_reduce_type("float64")?
        .with_options(&["-DSCALE=3", "--use_fast_math", "-O2"])?;
        let out = Array::zeros_on(dev, &[2], DType::Float32)?;
        let r = k.call_with(
            &[(&x).into()],
            cupy::ReductionArgs {
                axis: 1.into(),
                keepdims: false,
                out: Some(&out),
            },
        )?;
        ensure(
            r.to_vec::<f32>()? == [9.0, 22.5],
            format!("{:?}", r.to_vec::<f32>()?),
        )?;
        // Without identity: the combine passes take the options too.
        let m = ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a + OFF", None, "mx")?
            .with_options(&["-DOFF=1", "--use_fast_math"])?;
        let r = m.call(&[(&x).into()], 0, false)?;
        ensure(
            r.to_vec::<i32>()? == [5, 6, 7],
            format!("{:?}", r.to_vec::<i32>()?),
        )?;
        Ok(())
    });
}

/// The reduction of a kernel with options compiles with hipRTC under those flags.
#[test]
fn reduction_kernel_options_compile_with_hiprtc() {
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let x = Array::from_slice_on(&cpu, &[1.0f32, 2.0], &[2]).unwrap();
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "(_type_reduce)x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "fast_norm",
    )
    .unwrap()
    .with_options(&["--use_fast_math", "-O1"])
    .unwrap();
    let opts: Vec<String> = k.options().to_vec();
    let ir = k.ir(&[(&x).into()]).unwrap();
    compile_with_hiprtc_opts("redk_opts", vec![cupy::FusedKernel::Reduction(ir)], &opts);
}

/// A fused reduction's `out=` on another device than the input: `DeviceMismatch` naming both
/// (it was an `InvalidArgument` about dtypes and shapes), and the out unchanged.
#[test]
fn fused_reduction_out_on_another_device() {
    let Some((d0, d1)) = crate::common::backend_pair() else {
        println!("fuse_reduce_out_device: skipped (needs two backends, e.g. CUPY_TEST_BACKENDS=cpu,wgpu)");
        return;
    };
    let x = Array::from_slice_on(&d0, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let z = Array::from_slice_on(&d1, &[7.0f32, 8.0], &[2]).unwrap();
    let f = fuse(|x: Sym, z: Sym| Sym::reduce_out(x.sum_axis(0), z));
    let e = f.call(&[(&x).into(), (&z).into()]).unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(e, Error::DeviceMismatch { .. })
            && m.contains(&d0.label())
            && m.contains(&d1.label()),
        "{m}"
    );
    assert_eq!(z.to_vec::<f32>().unwrap(), [7.0, 8.0]);
}

/// True division of a 64-bit integer array by an integer scalar inside `fuse` (the review of
/// 2026-12-07: on wgpu the shader cast the literal, `f64(2li)`, which naga refuses): float64
/// results, NumPy's `x / 2`.
#[test]
fn fused_int64_true_division_by_a_scalar() {
    on_each("fuse_int64_div", |dev| {
        let f = fuse(|x: Sym| x / 2);
        let i = Array::from_slice_on(dev, &[1i64, 0, 3, -7], &[4])?;
        let u = Array::from_slice_on(dev, &[1u64, 0, 3, 9], &[4])?;
        let ri = f.call(&[(&i).into()])?;
        ensure(ri.dtype() == DType::Float64, "int64 / 2 is float64")?;
        ensure(ri.to_vec::<f64>()? == [0.5, 0.0, 1.5, -3.5], "int64 / 2")?;
        let ru = f.call(&[(&u).into()])?;
        ensure(ru.to_vec::<f64>()? == [0.5, 0.0, 1.5, 4.5], "uint64 / 2")?;
        Ok(())
    });
}
