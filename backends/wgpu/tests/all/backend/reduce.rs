//! Reductions: full, inner, outer, empty.

use super::*;

fn reduce(
    d: &Arc<dyn Backend>,
    k: &ReduceKernel,
    out_shape: &[usize],
    red: &[usize],
    x: &Buffer,
    xl: Layout,
    params: Vec<Scalar>,
) -> Buffer {
    let n: usize = out_shape.iter().product();
    let out = d.alloc(k.output, n).unwrap();
    d.reduce(&ReductionCall {
        kernel: k,
        out_shape: out_shape.to_vec(),
        reduce_shape: red.to_vec(),
        inputs: vec![op(x, xl)],
        output: op(&out, Layout::contiguous(out_shape)),
        params,
        extra_outputs: vec![],
    })
    .unwrap();
    out
}

#[test]
fn reductions_full_inner_outer_empty() {
    let d = dev_or_skip!();
    let f = DType::Float32;
    let sum = ReduceKernel::simple("sum", f, f, B::Add, Scalar::Float32(0.0), f);
    // full sum (two-pass), integer-valued so the order does not matter
    for n in [1usize, 255, 256, 1000, 1 << 20] {
        let v: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
        let x = up(&d, &v);
        let o = reduce(&d, &sum, &[], &[n], &x, Layout::contiguous(&[n]), vec![]);
        assert_eq!(down::<f32>(&d, &o), vec![v.iter().sum::<f32>()], "n={n}");
        // non-contiguous full reduction: reversed
        let rev = Layout {
            shape: vec![n],
            strides: vec![-1],
            offset: n - 1,
        };
        let o = reduce(&d, &sum, &[], &[n], &x, rev, vec![]);
        assert_eq!(down::<f32>(&d, &o), vec![v.iter().sum::<f32>()], "n={n}");
    }
    // 2-D: inner axis (rows), outer axis (columns)
    for (r, c) in [(3usize, 5usize), (300, 700), (2, 20000), (5000, 3)] {
        let v: Vec<f32> = (0..r * c).map(|i| ((i * 31) % 7) as f32).collect();
        let x = up(&d, &v);
        let o = reduce(
            &d,
            &sum,
            &[r],
            &[c],
            &x,
            Layout::contiguous(&[r, c]),
            vec![],
        );
        let exp: Vec<f32> = (0..r).map(|i| v[i * c..(i + 1) * c].iter().sum()).collect();
        assert_eq!(down::<f32>(&d, &o), exp, "rows {r}x{c}");
        let t = Layout {
            shape: vec![c, r],
            strides: vec![1, c as isize],
            offset: 0,
        };
        let o = reduce(&d, &sum, &[c], &[r], &x, t, vec![]);
        let exp: Vec<f32> = (0..c).map(|j| (0..r).map(|i| v[i * c + j]).sum()).collect();
        assert_eq!(down::<f32>(&d, &o), exp, "cols {r}x{c}");
        // reduce over both axes given as a 2-D reduce_shape
        let o = reduce(
            &d,
            &sum,
            &[],
            &[r, c],
            &x,
            Layout::contiguous(&[r, c]),
            vec![],
        );
        assert_eq!(down::<f32>(&d, &o), vec![v.iter().sum::<f32>()]);
    }
    // empty reduce_shape: post(map(x)) per element; zero-size reduce: post(identity)
    let mut mean = sum.clone();
    mean.name = "mean".into();
    mean.params = vec![f];
    mean.post = Expr::binary(B::Div, Expr::var(0, f), Expr::param(0, f));
    let x = up(&d, &[2.0f32, 4.0, 6.0]);
    let o = reduce(
        &d,
        &mean,
        &[3],
        &[],
        &x,
        Layout::contiguous(&[3]),
        vec![Scalar::Float32(2.0)],
    );
    assert_eq!(down::<f32>(&d, &o), vec![1.0, 2.0, 3.0]);
    let o = reduce(
        &d,
        &mean,
        &[3],
        &[0],
        &x,
        Layout {
            shape: vec![3, 0],
            strides: vec![1, 1],
            offset: 0,
        },
        vec![Scalar::Float32(0.0)],
    );
    assert!(down::<f32>(&d, &o).iter().all(|v| v.is_nan()));
    let o = reduce(
        &d,
        &sum,
        &[2],
        &[0],
        &x,
        Layout {
            shape: vec![2, 0],
            strides: vec![0, 1],
            offset: 0,
        },
        vec![],
    );
    assert_eq!(down::<f32>(&d, &o), vec![0.0, 0.0]);
    // max with NaN propagation, bool sum into int64 / int32
    let max = ReduceKernel::simple("max", f, f, B::Max, Scalar::min_value(f), f);
    let mut v: Vec<f32> = (0..5000).map(|i| i as f32).collect();
    let x = up(&d, &v);
    let o = reduce(
        &d,
        &max,
        &[],
        &[5000],
        &x,
        Layout::contiguous(&[5000]),
        vec![],
    );
    assert_eq!(down::<f32>(&d, &o), vec![4999.0]);
    v[1234] = f32::NAN;
    let x = up(&d, &v);
    let o = reduce(
        &d,
        &max,
        &[],
        &[5000],
        &x,
        Layout::contiguous(&[5000]),
        vec![],
    );
    assert!(down::<f32>(&d, &o)[0].is_nan());
    let acc = if d.supports_dtype(DType::Int64).is_ok() {
        DType::Int64
    } else {
        DType::Int32
    };
    let cnt = ReduceKernel::simple("count", DType::Bool, acc, B::Add, Scalar::zero(acc), acc);
    let bools: Vec<bool> = (0..100000).map(|i| i % 3 == 0).collect();
    let x = up(&d, &bools);
    let o = reduce(
        &d,
        &cnt,
        &[],
        &[100000],
        &x,
        Layout::contiguous(&[100000]),
        vec![],
    );
    let got = Scalar::from_le_bytes(acc, &d.read(&o, 0, 1).unwrap()).to_i128();
    assert_eq!(got, 33334);
}

/// The vec4 loads and subgroup trees of workgroup reductions: lengths around the vector and
/// workgroup sizes (tails of 1..3 elements), offsets that allow vec4 loads and ones that do not,
/// rows whose starts are (not) multiples of 4, a map (`x * x`), int32 (exact), and `fmax`
/// with NaN (its NaN identity is not neutral: accumulators start from the first element).
#[test]
fn workgroup_reductions_vec4_tails_and_subgroups() {
    let d = dev_or_skip!();
    let f = DType::Float32;
    let sum = ReduceKernel::simple("sum", f, f, B::Add, Scalar::Float32(0.0), f);
    let i = DType::Int32;
    let isum = ReduceKernel::simple("isum", i, i, B::Add, Scalar::Int32(0), i);
    let mut sq = ReduceKernel::simple("sumsq", f, f, B::Add, Scalar::Float32(0.0), f);
    sq.map = vec![Expr::binary(B::Mul, Expr::input(0, f), Expr::input(0, f))];
    for n in [
        4usize,
        5,
        7,
        256,
        257,
        1023,
        1024,
        1027,
        4099,
        65536 + 3,
        300_001,
    ] {
        for off in [0usize, 4, 1, 3] {
            let v: Vec<f32> = (0..n + off).map(|k| (k % 13) as f32 - 6.0).collect();
            let x = up(&d, &v);
            let l = Layout {
                shape: vec![n],
                strides: vec![1],
                offset: off,
            };
            let want: f32 = v[off..].iter().sum();
            let o = reduce(&d, &sum, &[], &[n], &x, l.clone(), vec![]);
            assert_eq!(down::<f32>(&d, &o), vec![want], "sum n={n} off={off}");
            let want: f32 = v[off..].iter().map(|x| x * x).sum();
            let o = reduce(&d, &sq, &[], &[n], &x, l.clone(), vec![]);
            assert_eq!(down::<f32>(&d, &o), vec![want], "sumsq n={n} off={off}");
            let vi: Vec<i32> = (0..n + off)
                .map(|k| ((k * 7919) % 1001) as i32 - 500)
                .collect();
            let xi = up(&d, &vi);
            let o = reduce(&d, &isum, &[], &[n], &xi, l, vec![]);
            let want: i32 = vi[off..].iter().sum();
            assert_eq!(down::<i32>(&d, &o), vec![want], "isum n={n} off={off}");
        }
    }
    // Rows: lengths 260 (a multiple of 4) and 301 (rows start anywhere in a vector).
    for (r, c) in [(9usize, 260usize), (9, 301), (3000, 1028)] {
        let v: Vec<f32> = (0..r * c).map(|k| ((k * 31) % 11) as f32).collect();
        let x = up(&d, &v);
        let o = reduce(
            &d,
            &sum,
            &[r],
            &[c],
            &x,
            Layout::contiguous(&[r, c]),
            vec![],
        );
        let want: Vec<f32> = (0..r).map(|k| v[k * c..(k + 1) * c].iter().sum()).collect();
        assert_eq!(down::<f32>(&d, &o), want, "rows {r}x{c}");
    }
    // fmax with NaN identity: the result is the max, or NaN where an element is NaN.
    let fmax = ReduceKernel::simple("fmax", f, f, B::FMax, Scalar::Float32(f32::NAN), f);
    for (n, nan_at) in [(1000usize, None), (1027, Some(1026usize)), (70000, Some(5))] {
        let mut v: Vec<f32> = (0..n).map(|k| ((k * 37) % 1009) as f32 - 500.0).collect();
        if let Some(p) = nan_at {
            v[p] = f32::NAN;
        }
        let x = up(&d, &v);
        let o = reduce(&d, &fmax, &[], &[n], &x, Layout::contiguous(&[n]), vec![]);
        let want = v.iter().copied().fold(f32::NAN, f32::max);
        assert_eq!(down::<f32>(&d, &o), vec![want], "fmax n={n}");
    }
}
