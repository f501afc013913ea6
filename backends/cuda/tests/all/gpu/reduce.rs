//! Reductions on a real CUDA device: full, inner, outer and empty axes; vectorized inner rows.

use super::*;

fn reduce(
    be: &CudaBackend,
    k: &ReduceKernel,
    x: &Buffer,
    xl: Layout,
    out_shape: &[usize],
    red: &[usize],
    params: Vec<Scalar>,
) -> Vec<Scalar> {
    let n: usize = out_shape.iter().product();
    let out = be.alloc(k.output, n).unwrap();
    let call = ReductionCall {
        kernel: k,
        out_shape: out_shape.to_vec(),
        reduce_shape: red.to_vec(),
        inputs: vec![Operand {
            buffer: x,
            layout: xl,
        }],
        output: Operand {
            buffer: &out,
            layout: Layout::contiguous(out_shape),
        },
        params,
        extra_outputs: vec![],
    };
    be.reduce(&call).unwrap_or_else(|e| panic!("{e}"));
    download(be, &out)
}

#[test]
fn reductions_full_inner_outer_empty() {
    let Some(be) = backend() else { return };
    let f = DType::Float32;
    let sum = ReduceKernel::simple("sum_f32", f, f, BinaryOp::Add, Scalar::Float32(0.0), f);
    // full, large (split + finish path), integer-valued so exact
    let n = (1 << 22) + 77;
    let vals: Vec<Scalar> = (0..n).map(|i| Scalar::Float32((i % 3) as f32)).collect();
    let x = upload(&be, &vals, f);
    let want: f64 = (0..n).map(|i| (i % 3) as f64).sum();
    let got = reduce(&be, &sum, &x, Layout::contiguous(&[n]), &[], &[n], vec![]);
    assert_eq!(got[0].to_f64(), want);
    // inner axis [300, 1000] -> [300]; outer axis via transposed view [1000, 300] reducing axis 0
    let (r, c) = (300usize, 1000usize);
    let m: Vec<Scalar> = (0..r * c)
        .map(|i| Scalar::Float32((i % 11) as f32))
        .collect();
    let xm = upload(&be, &m, f);
    let got = reduce(
        &be,
        &sum,
        &xm,
        Layout::contiguous(&[r, c]),
        &[r],
        &[c],
        vec![],
    );
    for i in 0..r {
        let w: f64 = (0..c).map(|j| ((i * c + j) % 11) as f64).sum();
        assert_eq!(got[i].to_f64(), w, "inner row {i}");
    }
    let outer = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    let got = reduce(&be, &sum, &xm, outer, &[c], &[r], vec![]);
    for j in 0..c {
        let w: f64 = (0..r).map(|i| ((i * c + j) % 11) as f64).sum();
        assert_eq!(got[j].to_f64(), w, "outer column {j}");
    }
    // tall outer reduction with splits: [200000, 3] sum axis 0
    let tall: Vec<Scalar> = (0..600000)
        .map(|i| Scalar::Float32((i % 5) as f32))
        .collect();
    let xt = upload(&be, &tall, f);
    let tl = Layout {
        shape: vec![3, 200000],
        strides: vec![1, 3],
        offset: 0,
    };
    let got = reduce(&be, &sum, &xt, tl, &[3], &[200000], vec![]);
    for j in 0..3 {
        let w: f64 = (0..200000).map(|i| ((i * 3 + j) % 5) as f64).sum();
        assert_eq!(got[j].to_f64(), w);
    }
    // empty reduce: zero-size -> identity; no reduced axes -> post(map(x))
    let e = be.alloc(f, 0).unwrap();
    let got = reduce(
        &be,
        &sum,
        &e,
        Layout::contiguous(&[4, 0]),
        &[4],
        &[0],
        vec![],
    );
    assert_eq!(got, vec![Scalar::Float32(0.0); 4]);
    let got = reduce(&be, &sum, &xm, Layout::contiguous(&[5]), &[5], &[], vec![]);
    assert_eq!(
        got,
        (0..5)
            .map(|i| Scalar::Float32(i as f32))
            .collect::<Vec<_>>()
    );
    // max propagates NaN; int sum into int64; f16 sum with f32 accumulator; mean with a param
    let mx = ReduceKernel::simple(
        "max_f32",
        f,
        f,
        BinaryOp::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        f,
    );
    let mut v: Vec<Scalar> = (0..5000).map(|i| Scalar::Float32(i as f32)).collect();
    assert_eq!(
        reduce(
            &be,
            &mx,
            &upload(&be, &v, f),
            Layout::contiguous(&[5000]),
            &[],
            &[5000],
            vec![]
        )[0]
        .to_f64(),
        4999.0
    );
    v[1234] = Scalar::Float32(f32::NAN);
    assert!(reduce(
        &be,
        &mx,
        &upload(&be, &v, f),
        Layout::contiguous(&[5000]),
        &[],
        &[5000],
        vec![]
    )[0]
    .to_f64()
    .is_nan());
    let isum = ReduceKernel::simple(
        "sum_i32",
        DType::Int32,
        DType::Int64,
        BinaryOp::Add,
        Scalar::Int64(0),
        DType::Int64,
    );
    let iv: Vec<Scalar> = (0..100000).map(|_| Scalar::Int32(i32::MAX)).collect();
    let got = reduce(
        &be,
        &isum,
        &upload(&be, &iv, DType::Int32),
        Layout::contiguous(&[100000]),
        &[],
        &[100000],
        vec![],
    );
    assert_eq!(got[0], Scalar::Int64(i32::MAX as i64 * 100000));
    let hsum = ReduceKernel::simple(
        "sum_f16",
        DType::Float16,
        f,
        BinaryOp::Add,
        Scalar::Float32(0.0),
        DType::Float16,
    );
    let hv: Vec<Scalar> = (0..4096).map(|_| Scalar::Float16(f16::ONE)).collect();
    let got = reduce(
        &be,
        &hsum,
        &upload(&be, &hv, DType::Float16),
        Layout::contiguous(&[4096]),
        &[],
        &[4096],
        vec![],
    );
    assert_eq!(got[0], Scalar::Float16(f16::from_f32(4096.0)));
    let mean = catalogue::reductions()
        .into_iter()
        .find(|k| k.name == "mean_f32")
        .unwrap();
    let got = reduce(
        &be,
        &mean,
        &xm,
        Layout::contiguous(&[r, c]),
        &[r],
        &[c],
        vec![Scalar::Float32(c as f32)],
    );
    let w: f64 = (0..c).map(|j| (j % 11) as f64).sum::<f64>() / c as f64;
    assert!((got[0].to_f64() - w).abs() < 1e-5);
}

/// Vectorized inner reductions: odd row lengths (fallback), narrow inputs, f64.
#[test]
fn inner_reductions_vectorized_and_fallback() {
    let Some(be) = backend() else { return };
    for (din, dacc, r, c) in [
        (DType::Float32, DType::Float32, 50usize, 1001usize),
        (DType::Float32, DType::Float32, 64, 4096),
        (DType::Int8, DType::Int64, 37, 4099),
        (DType::Int8, DType::Int64, 8, 4096),
        (DType::Float64, DType::Float64, 3, 100003),
    ] {
        let sum = ReduceKernel::simple(
            "sum_v",
            din,
            dacc,
            BinaryOp::Add,
            Scalar::Int64(0).cast(dacc),
            dacc,
        );
        let vals: Vec<Scalar> = (0..r * c)
            .map(|i| Scalar::Int64((i % 13) as i64 - 3).cast(din))
            .collect();
        let x = upload(&be, &vals, din);
        let got = reduce(
            &be,
            &sum,
            &x,
            Layout::contiguous(&[r, c]),
            &[r],
            &[c],
            vec![],
        );
        for i in 0..r {
            let w: f64 = (0..c).map(|j| ((i * c + j) % 13) as f64 - 3.0).sum();
            assert_eq!(got[i].to_f64(), w, "{din} {r}x{c} row {i}");
        }
        // full reduction of everything but the first element (unaligned start)
        let n = r * c - 1;
        let l = Layout {
            shape: vec![n],
            strides: vec![1],
            offset: 1,
        };
        let got = reduce(&be, &sum, &x, l, &[], &[n], vec![]);
        let w: f64 = (1..r * c).map(|i| (i % 13) as f64 - 3.0).sum();
        assert_eq!(got[0].to_f64(), w, "{din} full from 1");
    }
}
