//! `fuse` (issue 19): independent reductions over one iteration space run as one reduction
//! kernel of several outputs (`(sum(x), max(x))`, a batch-norm's `mean(x)` and `mean(x*x)`),
//! shown by kernel counts; dependent ones, other axes or other shapes stay apart. Values are
//! small integers or checked against f64 references computed here; the NumPy goldens of the
//! same functions are the `fuse/merged_*` cases of tests/golden/gen/custom.py.

use crate::userkernel::{ensure, on_each};
use cupy::{fuse, Array, DType, FusedKernel, Reduce, Sym};

/// The number of outputs of each reduction kernel of `f` on `args`.
fn reduction_outputs(ks: &[FusedKernel]) -> Vec<usize> {
    ks.iter()
        .filter_map(|k| match k {
            FusedKernel::Reduction(r) => Some(r.n_outputs()),
            FusedKernel::Elementwise(_) => None,
        })
        .collect()
}

/// CuPy's `fuse(lambda x: (cupy.sum(x), cupy.max(x)))`: one kernel with two outputs, of
/// different dtypes for an integer input (sum widens to int64, max stays int32).
#[test]
fn sum_and_max_in_one_kernel() {
    on_each("fuse_merge_sum_max", |dev| {
        let x = Array::from_slice_on(dev, &[3i32, -7, 12, 5, 0, -2], &[2, 3])?;
        let f = fuse(|x: Sym| (x.sum(), x.max(), x.min_axis(-1)));
        let args = [(&x).into()];
        // sum and max over every axis share a kernel; min over the last axis is another.
        let ks = f.kernels(&args)?;
        ensure(ks.len() == 2, format!("{} kernels", ks.len()))?;
        ensure(reduction_outputs(&ks) == [2, 1], "outputs per kernel")?;
        let out = f.call_multi(&args)?;
        ensure(out[0].dtype() == DType::Int64, "sum dtype")?;
        ensure(out[0].to_vec::<i64>()? == [11], "sum")?;
        ensure(out[1].dtype() == DType::Int32, "max dtype")?;
        ensure(out[1].to_vec::<i32>()? == [12], "max")?;
        ensure(out[2].to_vec::<i32>()? == [-7, -2], "min axis -1")?;
        // Axes spelled differently are the same axes.
        let g = fuse(|x: Sym| (x.sum_axis(1), x.max_axis(-1), x.prod_axis(1)));
        ensure(g.kernel_count(&args)? == 1, "axis 1 == axis -1")?;
        let out = g.call_multi(&args)?;
        ensure(out[0].to_vec::<i64>()? == [8, 3], "sum axis 1")?;
        ensure(out[1].to_vec::<i32>()? == [12, 5], "max axis 1")?;
        ensure(out[2].to_vec::<i64>()? == [-252, 0], "prod axis 1")?;
        Ok(())
    });
}

/// A batch-norm with one-pass statistics: `mean(x)` and `mean(x * x)` in one reduction
/// kernel, then the normalization: 2 kernels (3 before the merge). The two-pass form's
/// variance reads the mean, so it keeps 3.
#[test]
fn one_pass_batchnorm_in_two_kernels() {
    on_each("fuse_merge_batchnorm", |dev| {
        let (n, c) = (6usize, 3usize);
        let v: Vec<f32> = (0..n * c)
            .map(|i| ((i * 7) % 5) as f32 - 0.25 * i as f32)
            .collect();
        let a = Array::from_slice_on(dev, &v, &[n, c])?;
        let args = [(&a).into()];
        let bn = fuse(|x: Sym| {
            let m = x.mean_axis(0);
            let var = (x * x).mean_axis(0) - m * m;
            (x - m) / (var + 1e-5).sqrt()
        });
        ensure(bn.kernel_count(&args)? == 2, "one-pass batch-norm in 2")?;
        ensure(
            reduction_outputs(&bn.kernels(&args)?) == [2],
            "one merged kernel",
        )?;
        let two_pass = fuse(|x: Sym| {
            let d = x - x.mean_axis(0);
            d / ((d * d).mean_axis(0) + 1e-5).sqrt()
        });
        ensure(
            two_pass.kernel_count(&args)? == 3,
            "two-pass batch-norm in 3",
        )?;
        let got = bn.call(&args)?.to_vec::<f32>()?;
        for j in 0..c {
            let col: Vec<f64> = (0..n).map(|i| v[i * c + j] as f64).collect();
            let m = col.iter().sum::<f64>() / n as f64;
            let var = col.iter().map(|x| x * x).sum::<f64>() / n as f64 - m * m;
            for i in 0..n {
                let w = (col[i] - m) / (var + 1e-5).sqrt();
                let g = got[i * c + j] as f64;
                ensure(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    format!("bn[{i},{j}] = {g} want {w}"),
                )?;
            }
        }
        Ok(())
    });
}

/// Only independent reductions merge: one that reads another's result runs after it (but
/// joins nothing earlier it depends on), and other axes or shapes are other kernels.
#[test]
fn dependent_reductions_stay_apart() {
    on_each("fuse_merge_dependent", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 6.0], &[2, 2])?;
        let y = Array::from_slice_on(dev, &[1.0f32, 1.0, 1.0], &[3])?;
        let args = [(&x).into(), (&y).into()];
        // mean and sum merge; the max of (x - mean) needs the mean: 2 kernels.
        let f = fuse(|x: Sym, _y: Sym| {
            let m = x.mean();
            (x.sum(), (x - m).max(), m)
        });
        ensure(f.kernel_count(&args)? == 2, "mean+sum, then max")?;
        ensure(reduction_outputs(&f.kernels(&args)?) == [2, 1], "outputs")?;
        let out = f.call_multi(&args)?;
        ensure(out[0].to_vec::<f32>()? == [12.0], "sum")?;
        ensure(out[1].to_vec::<f32>()? == [3.0], "max(x - mean)")?;
        ensure(out[2].to_vec::<f32>()? == [3.0], "mean")?;
        // Two independent reductions after a first one both join one kernel.
        let g = fuse(|x: Sym, _y: Sym| {
            let s = x.sum();
            let d = x - s;
            (d.min(), d.max(), s)
        });
        ensure(g.kernel_count(&args)? == 2, "sum, then min+max")?;
        let out = g.call_multi(&args)?;
        ensure(out[0].to_vec::<f32>()? == [-11.0], "min")?;
        ensure(out[1].to_vec::<f32>()? == [-6.0], "max")?;
        // Other axes, other shapes: separate kernels.
        let h = fuse(|x: Sym, y: Sym| (x.sum_axis(0), x.sum_axis(1), y.sum(), x.sum()));
        ensure(h.kernel_count(&args)? == 4, "four iteration spaces")?;
        let out = h.call_multi(&args)?;
        ensure(out[0].to_vec::<f32>()? == [4.0, 8.0], "axis 0")?;
        ensure(out[1].to_vec::<f32>()? == [3.0, 9.0], "axis 1")?;
        ensure(out[2].to_vec::<f32>()? == [3.0], "y")?;
        Ok(())
    });
}

/// A merged kernel of tuple reductions (`var` folds a Welford tuple), keyword forms
/// (`dtype=`, `keepdims=`, `ddof=`) and maps over several arguments broadcast together.
#[test]
fn merged_tuples_and_keywords() {
    on_each("fuse_merge_tuples", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 4.0, 8.0, 3.0, 5.0], &[2, 3])?;
        let w = Array::from_slice_on(dev, &[1.0f32, 0.5, 2.0], &[3])?;
        let args = [(&x).into(), (&w).into()];
        let f = fuse(|x: Sym, w: Sym| {
            let keep = Reduce {
                axis: 1.into(),
                keepdims: true,
                ..Default::default()
            };
            let ddof1 = Reduce {
                axis: 1.into(),
                ddof: 1,
                ..Default::default()
            };
            let f64sum = Reduce {
                axis: 1.into(),
                dtype: Some(DType::Float64),
                ..Default::default()
            };
            (
                x.var_with(ddof1),
                (x * w).sum_with(keep),
                x.mean_axis(1),
                (x - w).sum_with(f64sum),
            )
        });
        ensure(f.kernel_count(&args)? == 1, "one kernel")?;
        ensure(reduction_outputs(&f.kernels(&args)?) == [4], "four outputs")?;
        let out = f.call_multi(&args)?;
        let close = |a: &[f32], b: &[f64]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(&a, &b)| (a as f64 - b).abs() <= 1e-6 * b.abs().max(1.0))
        };
        // var(ddof=1) of [1 2 4] = 7/3, of [8 3 5] = 19/3.
        ensure(
            close(&out[0].to_vec::<f32>()?, &[7.0 / 3.0, 19.0 / 3.0]),
            "var",
        )?;
        ensure(out[1].shape() == [2, 1], "keepdims shape")?;
        ensure(out[1].to_vec::<f32>()? == [10.0, 19.5], "sum(x * w)")?;
        ensure(
            close(&out[2].to_vec::<f32>()?, &[7.0 / 3.0, 16.0 / 3.0]),
            "mean",
        )?;
        ensure(out[3].dtype() == DType::Float64, "dtype=float64")?;
        ensure(out[3].to_vec::<f64>()? == [3.5, 12.5], "sum(x - w)")?;
        Ok(())
    });
}

/// `out=` of merged reductions (`Sym::reduce_out`): the one kernel writes both arguments.
#[test]
fn merged_reductions_write_their_outs() {
    on_each("fuse_merge_out", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 9.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let s = Array::zeros_on(dev, &[3], DType::Float32)?;
        let m = Array::zeros_on(dev, &[3], DType::Float32)?;
        let f = fuse(|x: Sym, s: Sym, m: Sym| {
            Sym::reduce_out(x.sum_axis(0), s);
            Sym::reduce_out(x.max_axis(0), m);
        });
        let args = [(&x).into(), (&s).into(), (&m).into()];
        ensure(f.kernel_count(&args)? == 1, "one kernel writes s and m")?;
        f.call_multi(&args)?;
        ensure(s.to_vec::<f32>()? == [5.0, 14.0, 9.0], "s")?;
        ensure(m.to_vec::<f32>()? == [4.0, 9.0, 6.0], "m")?;
        Ok(())
    });
}

/// Merged reductions long enough to run in two passes (partial accumulators, then a pass over
/// them) on every strategy, and 8-bit outputs (packed words on wgpu). Integer-valued data, so
/// every sum is exact in any order.
#[test]
fn merged_two_pass_and_packed() {
    on_each("fuse_merge_long", |dev| {
        let f = fuse(|x: Sym| (x.sum_axis(1), x.max_axis(1), x.min_axis(1)));
        let g = fuse(|x: Sym| (x.sum_axis(0), x.max_axis(0), x.mean_axis(0)));
        // (2, 20000) over axis 1: long contiguous rows; (600, 3) over axis 0: strided.
        let (r, c) = (2usize, 20000usize);
        let v: Vec<f32> = (0..r * c).map(|i| ((i * 37) % 97) as f32 - 48.0).collect();
        let x = Array::from_slice_on(dev, &v, &[r, c])?;
        let out = f.call_multi(&[(&x).into()])?;
        ensure(f.kernel_count(&[(&x).into()])? == 1, "one kernel")?;
        for i in 0..r {
            let row = &v[i * c..(i + 1) * c];
            ensure(
                out[0].to_vec::<f32>()?[i] == row.iter().sum::<f32>(),
                format!("sum row {i}"),
            )?;
            ensure(out[1].to_vec::<f32>()?[i] == 48.0, "max")?;
            ensure(out[2].to_vec::<f32>()?[i] == -48.0, "min")?;
        }
        let (r, c) = (600usize, 3usize);
        let w: Vec<f32> = (0..r * c).map(|i| ((i * 13) % 31) as f32 - 15.0).collect();
        let y = Array::from_slice_on(dev, &w, &[r, c])?;
        let out = g.call_multi(&[(&y).into()])?;
        for j in 0..c {
            let col: Vec<f32> = (0..r).map(|i| w[i * c + j]).collect();
            let s: f32 = col.iter().sum();
            let m = col.iter().copied().fold(f32::MIN, f32::max);
            ensure(out[0].to_vec::<f32>()?[j] == s, format!("sum col {j}"))?;
            ensure(out[1].to_vec::<f32>()?[j] == m, format!("max col {j}"))?;
            ensure(
                out[2].to_vec::<f32>()?[j] == s / r as f32,
                format!("mean col {j}"),
            )?;
        }
        // int8: max and min are int8 outputs, sum widens to int64.
        let b: Vec<i8> = (0..3 * 50).map(|i| ((i * 29) % 61) as i8 - 30).collect();
        let z = Array::from_slice_on(dev, &b, &[3, 50])?;
        let out = f.call_multi(&[(&z).into()])?;
        ensure(out[1].dtype() == DType::Int8, "int8 max")?;
        for i in 0..3 {
            let row = &b[i * 50..(i + 1) * 50];
            let want_sum: i64 = row.iter().map(|&x| x as i64).sum();
            ensure(out[0].to_vec::<i64>()?[i] == want_sum, "int8 sum")?;
            ensure(
                out[1].to_vec::<i8>()?[i] == *row.iter().max().unwrap(),
                "int8 max",
            )?;
            ensure(
                out[2].to_vec::<i8>()?[i] == *row.iter().min().unwrap(),
                "int8 min",
            )?;
        }
        Ok(())
    });
}

/// The merged kernels of the functions above compile with AMD's hipRTC (CI has no AMD GPU;
/// `CUPY_REQUIRE_HIP=1` makes a missing hipRTC a failure).
#[test]
fn merged_kernels_compile_with_hiprtc() {
    let cpu = cupy::Device::get(cupy::BackendKind::Cpu, 0).expect("cpu");
    let x = Array::from_slice_on(&cpu, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let i = Array::from_slice_on(&cpu, &[1i8, 2, 3, 4], &[2, 2]).unwrap();
    let mut ks = vec![];
    for a in [&x, &i] {
        let args = [(a).into()];
        ks.extend(
            fuse(|x: Sym| (x.sum(), x.max(), x.var_axis(1), x.mean_axis(1)))
                .kernels(&args)
                .unwrap(),
        );
    }
    ks.extend(
        fuse(|x: Sym| {
            let m = x.mean_axis(0);
            (x - m) / ((x * x).mean_axis(0) - m * m + 1e-5).sqrt()
        })
        .kernels(&[(&x).into()])
        .unwrap(),
    );
    assert_eq!(reduction_outputs(&ks), [2, 2, 2, 2, 2]);
    crate::userkernel::compile_with_hiprtc("merged19", ks);
}
