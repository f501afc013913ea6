//! Reductions: pairwise sums, axes, empty and size-0 cases, NaN max, mean, generic combines.

use super::*;

fn reduce_run<T: Element>(
    be: &CpuBackend,
    k: &ReduceKernel,
    input: &Buffer,
    layout: Layout,
    out_shape: Vec<usize>,
    reduce_shape: Vec<usize>,
    params: Vec<Scalar>,
) -> Vec<T> {
    let n: usize = out_shape.iter().product();
    let out = be.alloc(k.output, n).unwrap();
    be.reduce(&ReductionCall {
        kernel: k,
        out_shape: out_shape.clone(),
        reduce_shape,
        inputs: vec![Operand {
            buffer: input,
            layout,
        }],
        output: Operand {
            buffer: &out,
            layout: Layout::contiguous(&out_shape),
        },
        params,
        extra_outputs: vec![],
    })
    .unwrap();
    down(be, &out)
}

#[test]
fn sum_full_f32_pairwise() {
    let be = be();
    let n = 1_000_003usize;
    let v: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32) * 0.001 + 0.1).collect();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let b = up(&be, &v);
    let k = ReduceKernel::simple("sum", Float32, Float32, B::Add, Scalar::Int64(0), Float32);
    let r = reduce_run::<f32>(&be, &k, &b, c1(n), vec![], vec![n], vec![]);
    let rel = ((r[0] as f64 - exact) / exact).abs();
    assert!(rel < 1e-6, "sum {} vs {exact} (rel {rel})", r[0]);
    // A naive f32 loop is visibly worse.
    let naive: f32 = v.iter().sum();
    assert!(((naive as f64 - exact) / exact).abs() > rel);
    // ints wrap
    let vi: Vec<i8> = vec![100; 10];
    let bi = up(&be, &vi);
    let k = ReduceKernel::simple("sum", Int8, Int8, B::Add, Scalar::Int64(0), Int8);
    let r = reduce_run::<i8>(&be, &k, &bi, c1(10), vec![], vec![10], vec![]);
    assert_eq!(r, vec![(1000i32 as i8)]);
    let k = ReduceKernel::simple("sum", Int8, Int64, B::Add, Scalar::Int64(0), Int64);
    let r = reduce_run::<i64>(&be, &k, &bi, c1(10), vec![], vec![10], vec![]);
    assert_eq!(r, vec![1000]);
}

#[test]
fn reduce_axes_inner_outer_strided() {
    let be = be();
    let (r, c) = (37usize, 300usize);
    let v: Vec<f64> = (0..r * c).map(|i| (i % 17) as f64 - 4.0).collect();
    let b = up(&be, &v);
    let k = ReduceKernel::simple("sum", Float64, Float64, B::Add, Scalar::Int64(0), Float64);
    // axis=1 (inner)
    let got = reduce_run::<f64>(
        &be,
        &k,
        &b,
        Layout::contiguous(&[r, c]),
        vec![r],
        vec![c],
        vec![],
    );
    for i in 0..r {
        assert_eq!(got[i], (0..c).map(|j| v[i * c + j]).sum::<f64>());
    }
    // axis=0 (outer): out over columns, reduce over rows
    let lay = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    let got = reduce_run::<f64>(&be, &k, &b, lay, vec![c], vec![r], vec![]);
    for j in 0..c {
        assert_eq!(got[j], (0..r).map(|i| v[i * c + j]).sum::<f64>());
    }
    // reversed rows, every other column, reduce both axes of a 3-D view
    let lay = Layout {
        shape: vec![r, c / 2],
        strides: vec![-(c as isize), 2],
        offset: (r - 1) * c,
    };
    let got = reduce_run::<f64>(&be, &k, &b, lay, vec![], vec![r, c / 2], vec![]);
    let want: f64 = (0..r)
        .flat_map(|i| (0..c / 2).map(move |j| (i, j)))
        .map(|(i, j)| v[i * c + 2 * j])
        .sum();
    assert_eq!(got, vec![want]);
    // large outer reduction (parallel over output blocks)
    let (r2, c2) = (64usize, 4096usize);
    let v2: Vec<f32> = (0..r2 * c2).map(|i| (i % 13) as f32).collect();
    let b2 = up(&be, &v2);
    let k32 = ReduceKernel::simple("sum", Float32, Float32, B::Add, Scalar::Int64(0), Float32);
    let lay = Layout {
        shape: vec![c2, r2],
        strides: vec![1, c2 as isize],
        offset: 0,
    };
    let got = reduce_run::<f32>(&be, &k32, &b2, lay, vec![c2], vec![r2], vec![]);
    for j in 0..c2 {
        assert_eq!(got[j], (0..r2).map(|i| v2[i * c2 + j]).sum::<f32>());
    }
    // large inner reduction with many outputs (parallel over outputs)
    let got = reduce_run::<f32>(
        &be,
        &k32,
        &b2,
        Layout::contiguous(&[r2, c2]),
        vec![r2],
        vec![c2],
        vec![],
    );
    for i in 0..r2 {
        assert_eq!(got[i], (0..c2).map(|j| v2[i * c2 + j]).sum::<f32>());
    }
}

#[test]
fn reduce_empty_and_zero_size() {
    let be = be();
    let b = up(&be, &[1.5f32, -2.0, 3.0]);
    // empty reduce_shape: post(map(x)) per element; map = x*x, post = acc + 1
    let k = ReduceKernel {
        name: "sq".into(),
        inputs: vec![Float32],
        params: vec![],
        acc: vec![Float64],
        map: vec![bin(B::Mul, inp(0, Float32), inp(0, Float32)).cast(Float64)],
        combine: vec![bin(B::Add, Expr::var(0, Float64), Expr::var(1, Float64))],
        fold: vec![],
        identity: vec![Scalar::Float64(0.0)],
        post: bin(B::Add, Expr::var(0, Float64), k1(Float64, 1.0)),
        output: Float64,
        extra_posts: vec![],
    };
    let got = reduce_run::<f64>(&be, &k, &b, c1(3), vec![3], vec![], vec![]);
    assert_eq!(got, vec![3.25, 5.0, 10.0]);
    // zero-size reduce_shape: post(identity)
    let e = be.alloc(Float32, 0).unwrap();
    let lay = Layout {
        shape: vec![4, 0],
        strides: vec![0, 1],
        offset: 0,
    };
    let got = reduce_run::<f64>(&be, &k, &e, lay, vec![4], vec![0], vec![]);
    assert_eq!(got, vec![1.0; 4]);
    // max of empty: identity -inf
    let km = ReduceKernel::simple(
        "max",
        Float32,
        Float32,
        B::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    let got = reduce_run::<f32>(&be, &km, &e, c1(0), vec![], vec![0], vec![]);
    assert_eq!(got, vec![f32::NEG_INFINITY]);
    // zero outputs: no-op
    let got = reduce_run::<f32>(
        &be,
        &km,
        &e,
        Layout::contiguous(&[0, 5]),
        vec![0],
        vec![5],
        vec![],
    );
    assert!(got.is_empty());
}

#[test]
fn reduce_max_nan_mean_and_generic_combine() {
    let be = be();
    let mut v: Vec<f32> = (0..50_000).map(|i| (i % 977) as f32).collect();
    let b = up(&be, &v);
    let km = ReduceKernel::simple(
        "max",
        Float32,
        Float32,
        B::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    assert_eq!(
        reduce_run::<f32>(&be, &km, &b, c1(v.len()), vec![], vec![v.len()], vec![]),
        vec![976.0]
    );
    v[31_337] = f32::NAN;
    let b = up(&be, &v);
    assert!(
        reduce_run::<f32>(&be, &km, &b, c1(v.len()), vec![], vec![v.len()], vec![])[0].is_nan()
    );
    let kf = ReduceKernel::simple(
        "fmax",
        Float32,
        Float32,
        B::FMax,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    assert_eq!(
        reduce_run::<f32>(&be, &kf, &b, c1(v.len()), vec![], vec![v.len()], vec![]),
        vec![976.0]
    );
    // mean: post = acc / param
    let x: Vec<f64> = (1..=100).map(|i| i as f64).collect();
    let bx = up(&be, &x);
    let mut kmean =
        ReduceKernel::simple("mean", Float64, Float64, B::Add, Scalar::Int64(0), Float64);
    kmean.params = vec![Float64];
    kmean.post = bin(B::Div, Expr::var(0, Float64), Expr::param(0, Float64));
    let got = reduce_run::<f64>(
        &be,
        &kmean,
        &bx,
        Layout::contiguous(&[4, 25]),
        vec![4],
        vec![25],
        vec![Scalar::Float64(25.0)],
    );
    assert_eq!(got, vec![13.0, 38.0, 63.0, 88.0]);
    // generic combine (interpreted tree): max via select, and argmax-free "count nonzero"
    let a = Expr::var(0, Int64);
    let bb = Expr::var(1, Int64);
    let ks = ReduceKernel {
        name: "selmax".into(),
        inputs: vec![Int64],
        params: vec![],
        acc: vec![Int64],
        map: vec![inp(0, Int64)],
        combine: vec![Expr::select(bin(B::Gt, a.clone(), bb.clone()), a, bb)],
        fold: vec![],
        identity: vec![Scalar::Int64(i64::MIN)],
        post: Expr::var(0, Int64),
        output: Int64,
        extra_posts: vec![],
    };
    let xi: Vec<i64> = (0..70_001).map(|i| (i * 7919) % 100_003).collect();
    let bi = up(&be, &xi);
    let want = *xi.iter().max().unwrap();
    assert_eq!(
        reduce_run::<i64>(&be, &ks, &bi, c1(xi.len()), vec![], vec![xi.len()], vec![]),
        vec![want]
    );
    let lay = Layout {
        shape: vec![7, 10_000],
        strides: vec![10_000, 1],
        offset: 0,
    };
    let got = reduce_run::<i64>(&be, &ks, &bi, lay, vec![7], vec![10_000], vec![]);
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, *xi[i * 10_000..(i + 1) * 10_000].iter().max().unwrap());
    }
    // count nonzero of bools: map = cast(x != 0), uniform-free
    let bools: Vec<bool> = (0..1000).map(|i| i % 3 == 0).collect();
    let bb = up(&be, &bools);
    let kc = ReduceKernel::simple("count", Bool, Int64, B::Add, Scalar::Int64(0), Int64);
    assert_eq!(
        reduce_run::<i64>(&be, &kc, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![334]
    );
    let ka = ReduceKernel::simple("any", Bool, Bool, B::Or, Scalar::Bool(false), Bool);
    assert_eq!(
        reduce_run::<bool>(&be, &ka, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![true]
    );
    let kall = ReduceKernel::simple("all", Bool, Bool, B::And, Scalar::Bool(true), Bool);
    assert_eq!(
        reduce_run::<bool>(&be, &kall, &bb, c1(1000), vec![], vec![1000], vec![]),
        vec![false]
    );
}

/// A merged reduction of several outputs (`ReduceKernel::merge`) gives each output exactly
/// what its own kernel gives (per-accumulator native folds keep NumPy's pairwise sum), on the
/// inner (axis 1), outer (axis 0) and full strategies.
#[test]
fn merged_outputs_equal_their_own_kernels() {
    use cupy_core::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    let be = be();
    let (r, c) = (37usize, 300usize);
    let v: Vec<f32> = (0..r * c)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.37 - 150.0)
        .collect();
    let b = up(&be, &v);
    let sum = ReduceKernel::simple("sum", Float32, Float32, B::Add, Scalar::Int64(0), Float32);
    let max = ReduceKernel::simple(
        "max",
        Float32,
        Float32,
        B::Max,
        Scalar::Float32(f32::NEG_INFINITY),
        Float32,
    );
    let parts = [
        sum,
        max,
        arg_extreme(Float32, Extreme::Min),
        moments(Float32, Moment::Var),
    ];
    let k = ReduceKernel::merge("merged", &parts, 0).unwrap();
    let params = vec![Scalar::Float64(0.0)];
    let cases = [
        (Layout::contiguous(&[r, c]), vec![r], vec![c]),
        (
            Layout {
                shape: vec![c, r],
                strides: vec![1, c as isize],
                offset: 0,
            },
            vec![c],
            vec![r],
        ),
        (c1(r * c), vec![], vec![r * c]),
    ];
    for (layout, out_shape, red_shape) in cases {
        let n: usize = out_shape.iter().product();
        let outs: Vec<Buffer> = k
            .outputs()
            .iter()
            .map(|d| be.alloc(*d, n).unwrap())
            .collect();
        let op = |o| Operand {
            buffer: o,
            layout: Layout::contiguous(&out_shape),
        };
        be.reduce(&ReductionCall {
            kernel: &k,
            out_shape: out_shape.clone(),
            reduce_shape: red_shape.clone(),
            inputs: vec![Operand {
                buffer: &b,
                layout: layout.clone(),
            }],
            output: op(&outs[0]),
            extra_outputs: outs[1..].iter().map(op).collect(),
            params: params.clone(),
        })
        .unwrap();
        for (j, part) in parts.iter().enumerate() {
            let p = if part.params.is_empty() {
                vec![]
            } else {
                params.clone()
            };
            let (got, want) = if part.output == Int64 {
                let w = reduce_run::<i64>(
                    &be,
                    part,
                    &b,
                    layout.clone(),
                    out_shape.clone(),
                    red_shape.clone(),
                    p,
                );
                (
                    down::<i64>(&be, &outs[j])
                        .iter()
                        .map(|&x| x as f64)
                        .collect::<Vec<_>>(),
                    w.iter().map(|&x| x as f64).collect::<Vec<_>>(),
                )
            } else {
                let w = reduce_run::<f32>(
                    &be,
                    part,
                    &b,
                    layout.clone(),
                    out_shape.clone(),
                    red_shape.clone(),
                    p,
                );
                (
                    down::<f32>(&be, &outs[j])
                        .iter()
                        .map(|&x| x as f64)
                        .collect(),
                    w.iter().map(|&x| x as f64).collect(),
                )
            };
            assert_eq!(got, want, "output {j} ({}) over {out_shape:?}", part.name);
        }
    }
}
