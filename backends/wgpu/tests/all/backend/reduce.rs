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
