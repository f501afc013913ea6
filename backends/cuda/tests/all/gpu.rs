//! Tests on a real CUDA device; each skips with a notice when none is present.

use crate::catalogue::{self, REAL};
use cupy_core::backend::{
    Backend, BackendProvider, Buffer, ElementwiseCall, GemmCall, Operand, RawOperand, ReductionCall,
};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, ReduceKernel, Stmt};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Scalar};
use cupy_cuda::{CudaBackend, CudaProvider};
use half::{bf16, f16};

fn backend() -> Option<CudaBackend> {
    match CudaProvider.probe() {
        Ok(devs) => {
            eprintln!(
                "CUDA devices: {:?}",
                devs.iter()
                    .map(|d| d.label() + " " + &d.details)
                    .collect::<Vec<_>>()
            );
            Some(CudaBackend::open(0).expect("open cuda:0"))
        }
        Err(why) => {
            eprintln!("NOTICE: no CUDA device ({why}); skipping GPU test");
            None
        }
    }
}

#[test]
fn probe_never_panics() {
    match CudaProvider.probe() {
        Ok(d) => assert!(!d.is_empty()),
        Err(why) => assert!(!why.is_empty()),
    }
    if CudaProvider.probe().is_err() {
        let e = CudaBackend::open(0).unwrap_err();
        assert!(matches!(e, Error::BackendUnavailable { .. }), "{e}");
    }
}

fn upload(be: &CudaBackend, vals: &[Scalar], d: DType) -> Buffer {
    let buf = be.alloc(d, vals.len()).unwrap();
    let mut bytes = vec![0u8; vals.len() * d.itemsize()];
    for (i, v) in vals.iter().enumerate() {
        v.cast(d)
            .write_le_bytes(&mut bytes[i * d.itemsize()..(i + 1) * d.itemsize()]);
    }
    be.write(&buf, 0, &bytes).unwrap();
    buf
}

fn download(be: &CudaBackend, b: &Buffer) -> Vec<Scalar> {
    let d = b.dtype();
    let bytes = be.read(b, 0, b.len()).unwrap();
    bytes
        .chunks(d.itemsize())
        .map(|c| Scalar::from_le_bytes(d, c))
        .collect()
}

fn same(a: Scalar, b: Scalar) -> bool {
    if a.dtype().is_float() {
        let (x, y) = (a.to_f64(), b.to_f64());
        (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits() || x == y
    } else {
        a == b
    }
}

fn run_ew(
    be: &CudaBackend,
    k: &Kernel,
    shape: &[usize],
    ins: Vec<(&Buffer, Layout)>,
    outs: Vec<(&Buffer, Layout)>,
    params: Vec<Scalar>,
) {
    let call = ElementwiseCall {
        kernel: k,
        shape: shape.to_vec(),
        inputs: ins
            .into_iter()
            .map(|(buffer, layout)| Operand { buffer, layout })
            .collect(),
        outputs: outs
            .into_iter()
            .map(|(buffer, layout)| Operand { buffer, layout })
            .collect(),
        raws: vec![],
        params,
    };
    be.elementwise(&call).unwrap_or_else(|e| panic!("{e}"));
}

/// add/or of every dtype over contiguous (vector + tail), strided, broadcast, reversed, size-0, 0-d.
#[test]
fn elementwise_layouts_every_dtype() {
    let Some(be) = backend() else { return };
    for d in REAL {
        let op = if d == DType::Bool {
            BinaryOp::Or
        } else {
            BinaryOp::Add
        };
        let k = catalogue::binary(op, d);
        let n = 1003;
        let av: Vec<Scalar> = (0..n)
            .map(|i| Scalar::Int64((i % 50) as i64).cast(d))
            .collect();
        let bv: Vec<Scalar> = (0..n)
            .map(|i| Scalar::Int64((i % 7) as i64).cast(d))
            .collect();
        let a = upload(&be, &av, d);
        let b = upload(&be, &bv, d);
        let want = |x: Scalar, y: Scalar| {
            if d == DType::Bool {
                Scalar::Bool(x.is_nonzero() || y.is_nonzero())
            } else {
                Scalar::Float64(x.to_f64() + y.to_f64()).cast(d)
            }
        };
        // contiguous
        let c = be.alloc(d, n).unwrap();
        let l = Layout::contiguous(&[n]);
        run_ew(
            &be,
            &k,
            &[n],
            vec![(&a, l.clone()), (&b, l.clone())],
            vec![(&c, l.clone())],
            vec![],
        );
        let got = download(&be, &c);
        for i in 0..n {
            assert!(
                same(got[i], want(av[i], bv[i])),
                "{d} contiguous at {i}: {:?}",
                got[i]
            );
        }
        // offset by one element (unaligned -> scalar contiguous path)
        let l1 = Layout {
            shape: vec![n - 1],
            strides: vec![1],
            offset: 1,
        };
        let c1 = be.alloc(d, n - 1).unwrap();
        run_ew(
            &be,
            &k,
            &[n - 1],
            vec![(&a, l1.clone()), (&b, l1.clone())],
            vec![(&c1, Layout::contiguous(&[n - 1]))],
            vec![],
        );
        let got = download(&be, &c1);
        for i in 0..n - 1 {
            assert!(
                same(got[i], want(av[i + 1], bv[i + 1])),
                "{d} offset at {i}"
            );
        }
        // strided 2-D: a as [17, 59] transposed -> [59, 17]; b broadcast row [17]; reversed output rows
        let (r, cc) = (59usize, 17usize);
        let at = Layout {
            shape: vec![r, cc],
            strides: vec![1, r as isize],
            offset: 0,
        };
        let bb = Layout {
            shape: vec![r, cc],
            strides: vec![0, 1],
            offset: 0,
        };
        let out = be.alloc(d, r * cc).unwrap();
        let rev = Layout {
            shape: vec![r, cc],
            strides: vec![-(cc as isize), 1],
            offset: (r - 1) * cc,
        };
        run_ew(
            &be,
            &k,
            &[r, cc],
            vec![(&a, at), (&b, bb)],
            vec![(&out, rev)],
            vec![],
        );
        let got = download(&be, &out);
        for i in 0..r {
            for j in 0..cc {
                let w = want(av[j * r + i], bv[j]);
                let g = got[(r - 1 - i) * cc + j];
                assert!(same(g, w), "{d} strided at ({i},{j}): {g:?} vs {w:?}");
            }
        }
        // size 0 and 0-d
        let e = be.alloc(d, 0).unwrap();
        let l0 = Layout::contiguous(&[0]);
        run_ew(
            &be,
            &k,
            &[0],
            vec![(&e, l0.clone()), (&e, l0.clone())],
            vec![(&e, l0)],
            vec![],
        );
        let o1 = be.alloc(d, 1).unwrap();
        let s1 = Layout::contiguous(&[1]);
        run_ew(
            &be,
            &k,
            &[1],
            vec![
                (
                    &a,
                    Layout {
                        shape: vec![1],
                        strides: vec![1],
                        offset: 5,
                    },
                ),
                (&b, s1.clone()),
            ],
            vec![(&o1, s1)],
            vec![],
        );
        assert!(same(download(&be, &o1)[0], want(av[5], bv[0])));
    }
}

fn binop(be: &CudaBackend, op: BinaryOp, d: DType, x: &[Scalar], y: &[Scalar]) -> Vec<Scalar> {
    let k = catalogue::binary(op, d);
    let a = upload(be, x, d);
    let b = upload(be, y, d);
    let out_d = k.outputs[0];
    let c = be.alloc(out_d, x.len()).unwrap();
    let l = Layout::contiguous(&[x.len()]);
    run_ew(
        be,
        &k,
        &[x.len()],
        vec![(&a, l.clone()), (&b, l.clone())],
        vec![(&c, l)],
        vec![],
    );
    download(be, &c)
}

#[test]
fn integer_and_float_semantics() {
    let Some(be) = backend() else { return };
    let i = |v: &[i64]| {
        v.iter()
            .map(|&x| Scalar::Int32(x as i32))
            .collect::<Vec<_>>()
    };
    let x = i(&[7, -7, 7, -7, 5, i32::MIN as i64, i32::MIN as i64, 0]);
    let y = i(&[2, 2, -2, -2, 0, -1, 1, 0]);
    let g = binop(&be, BinaryOp::Div, DType::Int32, &x, &y);
    assert_eq!(
        g,
        i(&[3, -3, -3, 3, 0, i32::MIN as i64, i32::MIN as i64, 0])
    );
    let g = binop(&be, BinaryOp::FloorDiv, DType::Int32, &x, &y);
    assert_eq!(
        g,
        i(&[3, -4, -4, 3, 0, i32::MIN as i64, i32::MIN as i64, 0])
    );
    let g = binop(&be, BinaryOp::Mod, DType::Int32, &x, &y);
    assert_eq!(g, i(&[1, 1, -1, -1, 0, 0, 0, 0]));
    let g = binop(
        &be,
        BinaryOp::Pow,
        DType::Int32,
        &i(&[3, 2, -1, -1, 2, 1]),
        &i(&[5, 31, -3, -2, -1, -5]),
    );
    assert_eq!(g, i(&[243, i32::MIN as i64, -1, 1, 0, 1]));
    let b8: Vec<Scalar> = [3i8, 100].iter().map(|&v| Scalar::Int8(v)).collect();
    let e8: Vec<Scalar> = [5i8, 2].iter().map(|&v| Scalar::Int8(v)).collect();
    assert_eq!(
        binop(&be, BinaryOp::Pow, DType::Int8, &b8, &e8),
        vec![Scalar::Int8(-13), Scalar::Int8(16)]
    );
    assert_eq!(
        binop(
            &be,
            BinaryOp::Add,
            DType::Int8,
            &[Scalar::Int8(127)],
            &[Scalar::Int8(1)]
        ),
        vec![Scalar::Int8(-128)]
    );
    // float floor_divide / remainder signs, NaN-propagating max, fmax
    let f = |v: &[f64]| v.iter().map(|&x| Scalar::Float64(x)).collect::<Vec<_>>();
    let g = binop(
        &be,
        BinaryOp::FloorDiv,
        DType::Float64,
        &f(&[7.0, -7.0, 7.0, 1.0]),
        &f(&[2.0, 2.0, -2.0, 0.0]),
    );
    assert_eq!(g, f(&[3.0, -4.0, -4.0, f64::INFINITY]));
    let g = binop(
        &be,
        BinaryOp::Mod,
        DType::Float64,
        &f(&[7.0, -7.0, 7.0, -0.0]),
        &f(&[2.0, 2.0, -2.0, 3.0]),
    );
    assert_eq!(g, f(&[1.0, 1.0, -1.0, 0.0]));
    let nan = f64::NAN;
    let g = binop(
        &be,
        BinaryOp::Max,
        DType::Float32,
        &f(&[nan, 1.0, 2.0])
            .iter()
            .map(|s| s.cast(DType::Float32))
            .collect::<Vec<_>>(),
        &f(&[1.0, nan, 1.0])
            .iter()
            .map(|s| s.cast(DType::Float32))
            .collect::<Vec<_>>(),
    );
    assert!(g[0].to_f64().is_nan() && g[1].to_f64().is_nan() && g[2].to_f64() == 2.0);
    let g = binop(
        &be,
        BinaryOp::FMax,
        DType::Float64,
        &f(&[nan, 1.0]),
        &f(&[1.0, nan]),
    );
    assert_eq!(g, f(&[1.0, 1.0]));
    // float16: each op rounds like numpy (2048 + 1 = 2048 in f16)
    let h = |v: &[f32]| {
        v.iter()
            .map(|&x| Scalar::Float16(f16::from_f32(x)))
            .collect::<Vec<_>>()
    };
    let g = binop(
        &be,
        BinaryOp::Add,
        DType::Float16,
        &h(&[2048.0, 0.1, 65504.0]),
        &h(&[1.0, 0.2, 65504.0]),
    );
    let want: Vec<Scalar> = [
        2048.0f32,
        f16::from_f32(0.1).to_f32() + f16::from_f32(0.2).to_f32(),
        f32::INFINITY,
    ]
    .iter()
    .map(|&v| Scalar::Float16(f16::from_f32(v)))
    .collect();
    assert_eq!(g, want);
    let bh = |v: &[f32]| {
        v.iter()
            .map(|&x| Scalar::BFloat16(bf16::from_f32(x)))
            .collect::<Vec<_>>()
    };
    let g = binop(
        &be,
        BinaryOp::Mul,
        DType::BFloat16,
        &bh(&[3.0, 1.1]),
        &bh(&[1.1, 1.1]),
    );
    let want: Vec<Scalar> = [(3.0f32, 1.1f32), (1.1, 1.1)]
        .iter()
        .map(|&(a, b)| {
            Scalar::BFloat16(bf16::from_f32(
                bf16::from_f32(a).to_f32() * bf16::from_f32(b).to_f32(),
            ))
        })
        .collect();
    assert_eq!(g, want);
}

#[test]
fn casts_match_scalar_cast() {
    let Some(be) = backend() else { return };
    let vals = [
        -3.7,
        -1.0,
        -0.0,
        0.0,
        0.5,
        1.5,
        2.5,
        100.2,
        300.0,
        -300.0,
        70000.0,
        1e10,
        -1e10,
        3e38,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-8,
        65519.0,
        65520.0,
    ];
    for from in REAL {
        let xs: Vec<Scalar> = vals
            .iter()
            .map(|&v| Scalar::Float64(v).cast(from))
            .collect();
        let a = upload(&be, &xs, from);
        for to in REAL {
            if to == from {
                continue;
            }
            let k = catalogue::cast(from, to);
            let c = be.alloc(to, xs.len()).unwrap();
            let l = Layout::contiguous(&[xs.len()]);
            run_ew(
                &be,
                &k,
                &[xs.len()],
                vec![(&a, l.clone())],
                vec![(&c, l)],
                vec![],
            );
            let got = download(&be, &c);
            for (x, g) in xs.iter().zip(&got) {
                let w = x.cast(to);
                assert!(
                    same(*g, w),
                    "cast {from} -> {to} of {x:?}: got {g:?}, want {w:?}"
                );
            }
        }
    }
}

#[test]
fn every_catalogue_kernel_compiles_and_runs() {
    let Some(be) = backend() else { return };
    // NVRTC compiles every catalogue kernel (one program, all classes rotating) ...
    use cupy_core::kernel::cpp::{
        emit_elementwise, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
    };
    let pre = prelude(Flavor::Cuda);
    let classes = [
        ElementwiseSpec {
            ndim: 3,
            class: ElementwiseClass::Strided,
            index64: false,
        },
        ElementwiseSpec {
            ndim: 2,
            class: ElementwiseClass::Strided,
            index64: true,
        },
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Contiguous,
            index64: false,
        },
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Vectorized,
            index64: false,
        },
    ];
    let mut src = pre.clone();
    let mut entries = vec![];
    let t0 = std::time::Instant::now();
    for (i, k) in catalogue::elementwise().iter().enumerate() {
        let mut k = k.clone();
        k.name = format!("{}_{i}", k.name);
        let e = emit_elementwise(&k, &classes[i % classes.len()], Flavor::Cuda).unwrap();
        src.push_str(&e.source[pre.len()..]);
        entries.extend(e.entries);
    }
    be.compile_raw("catalogue", &src, &entries)
        .unwrap_or_else(|e| panic!("{}", e.to_string().chars().take(4000).collect::<String>()));
    eprintln!(
        "NVRTC compiled {} catalogue kernels in one program in {:?}",
        entries.len(),
        t0.elapsed()
    );
    // ... and a sample of them runs through the backend.
    let mut n = 0;
    for k in catalogue::elementwise().into_iter().step_by(9) {
        let len = 37;
        let ins: Vec<Buffer> = k
            .inputs
            .iter()
            .map(|d| {
                let v: Vec<Scalar> = (0..len)
                    .map(|i| Scalar::Int64(i as i64 % 5 + 1).cast(*d))
                    .collect();
                upload(&be, &v, *d)
            })
            .collect();
        let outs: Vec<Buffer> = k
            .outputs
            .iter()
            .map(|d| be.alloc(*d, len).unwrap())
            .collect();
        let l = Layout::contiguous(&[len]);
        let params: Vec<Scalar> = k.params.iter().map(|d| Scalar::one(*d)).collect();
        run_ew(
            &be,
            &k,
            &[len],
            ins.iter().map(|b| (b, l.clone())).collect(),
            outs.iter().map(|b| (b, l.clone())).collect(),
            params,
        );
        n += 1;
    }
    be.synchronize().unwrap();
    eprintln!("ran {n} catalogue kernels");
    // arange: params[0] + index * params[1]
    let k = catalogue::elementwise()
        .into_iter()
        .find(|k| k.name == "arange_f32")
        .unwrap();
    let c = be.alloc(DType::Float32, 10).unwrap();
    run_ew(
        &be,
        &k,
        &[10],
        vec![],
        vec![(&c, Layout::contiguous(&[10]))],
        vec![Scalar::Float64(1.0), Scalar::Float64(0.5)],
    );
    let got: Vec<f64> = download(&be, &c).iter().map(|s| s.to_f64()).collect();
    assert_eq!(
        got,
        (0..10).map(|i| 1.0 + 0.5 * i as f64).collect::<Vec<_>>()
    );
}

#[test]
fn raw_loads_loops_and_conditional_stores() {
    let Some(be) = backend() else { return };
    // out[i] = sum_{j<3, i+j<n} raw[i+j]  (a 1-D box filter with bounds check)
    let (f, i64t) = (DType::Float32, DType::Int64);
    let k = Kernel {
        name: "box3".into(),
        inputs: vec![],
        outputs: vec![f],
        raws: vec![f],
        params: vec![i64t],
        locals: vec![f, i64t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::Float32(0.0)),
            },
            Stmt::For {
                var: 1,
                start: Expr::constant(Scalar::Int64(0)),
                end: Expr::constant(Scalar::Int64(3)),
                body: vec![Stmt::If {
                    cond: Expr::binary(
                        BinaryOp::Lt,
                        Expr::binary(BinaryOp::Add, Expr::index(), Expr::var(1, i64t)),
                        Expr::param(0, i64t),
                    ),
                    then_body: vec![Stmt::Assign {
                        var: 0,
                        value: Expr::binary(
                            BinaryOp::Add,
                            Expr::var(0, f),
                            Expr::load(
                                0,
                                f,
                                Expr::binary(BinaryOp::Add, Expr::index(), Expr::var(1, i64t)),
                            ),
                        ),
                    }],
                    else_body: vec![],
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, f),
            },
        ],
    };
    let n = 10;
    let src = upload(
        &be,
        &(0..n)
            .map(|i| Scalar::Float32(i as f32))
            .collect::<Vec<_>>(),
        f,
    );
    let out = be.alloc(f, n).unwrap();
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &out,
            layout: Layout::contiguous(&[n]),
        }],
        raws: vec![RawOperand {
            buffer: &src,
            offset: 0,
            len: n,
        }],
        params: vec![Scalar::Int64(n as i64)],
    };
    be.elementwise(&call).unwrap();
    let got: Vec<f64> = download(&be, &out).iter().map(|s| s.to_f64()).collect();
    let want: Vec<f64> = (0..n)
        .map(|i| (i..(i + 3).min(n)).map(|j| j as f64).sum())
        .collect();
    assert_eq!(got, want);
    // conditional store keeps old values: relu in place on a strided view
    let kr = Kernel {
        name: "neg_to_zero".into(),
        inputs: vec![f],
        outputs: vec![f],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::binary(
                BinaryOp::Lt,
                Expr::input(0, f),
                Expr::constant(Scalar::Float32(0.0)),
            ),
            then_body: vec![Stmt::Store {
                output: 0,
                value: Expr::constant(Scalar::Float32(0.0)),
            }],
            else_body: vec![],
        }],
    };
    let vals: Vec<Scalar> = (0..16).map(|i| Scalar::Float32(i as f32 - 8.0)).collect();
    let x = upload(&be, &vals, f);
    let y = upload(
        &be,
        &vals
            .iter()
            .map(|_| Scalar::Float32(7.0))
            .collect::<Vec<_>>(),
        f,
    );
    let l = Layout::contiguous(&[16]);
    run_ew(
        &be,
        &kr,
        &[16],
        vec![(&x, l.clone())],
        vec![(&y, l)],
        vec![],
    );
    let got: Vec<f64> = download(&be, &y).iter().map(|s| s.to_f64()).collect();
    assert_eq!(
        got,
        (0..16)
            .map(|i| if i < 8 { 0.0 } else { 7.0 })
            .collect::<Vec<_>>()
    );
}

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

fn host_matmul(
    a: &[f64],
    al: &Layout,
    b: &[f64],
    bl: &Layout,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Vec<f64> {
    let at = |buf: &[f64], l: &Layout, z: usize, i: usize, j: usize| {
        let idx = l.offset as isize
            + z as isize * l.strides[0]
            + i as isize * l.strides[1]
            + j as isize * l.strides[2];
        buf[idx as usize]
    };
    let mut c = vec![0.0; batch * m * n];
    for z in 0..batch {
        for i in 0..m {
            for j in 0..n {
                c[(z * m + i) * n + j] = (0..k)
                    .map(|p| at(a, al, z, i, p) * at(b, bl, z, p, j))
                    .sum();
            }
        }
    }
    c
}

#[test]
fn gemm_layouts_and_dtypes() {
    let Some(be) = backend() else { return };
    let (batch, m, k, n) = (3usize, 37usize, 53usize, 29usize);
    let av: Vec<f64> = (0..batch * m * k)
        .map(|i| ((i * 7) % 13) as f64 - 6.0)
        .collect();
    let bv: Vec<f64> = (0..batch * k * n)
        .map(|i| ((i * 5) % 11) as f64 - 5.0)
        .collect();
    let cases: Vec<(&str, Layout, Layout)> = vec![
        (
            "row-major",
            Layout::contiguous(&[batch, m, k]),
            Layout::contiguous(&[batch, k, n]),
        ),
        // A stored as [batch, k, m] and viewed transposed
        (
            "A^T view",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, 1, m as isize],
                offset: 0,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
        (
            "B^T view",
            Layout::contiguous(&[batch, m, k]),
            Layout {
                shape: vec![batch, k, n],
                strides: vec![(k * n) as isize, 1, k as isize],
                offset: 0,
            },
        ),
        (
            "stride-0 batch A",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![0, k as isize, 1],
                offset: 0,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
        // reversed rows of A: needs a copy
        (
            "negative stride A",
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, -(k as isize), 1],
                offset: (m - 1) * k,
            },
            Layout::contiguous(&[batch, k, n]),
        ),
    ];
    for dt in [
        DType::Float32,
        DType::Float64,
        DType::Float16,
        DType::BFloat16,
    ] {
        let a = upload(
            &be,
            &av.iter().map(|&v| Scalar::Float64(v)).collect::<Vec<_>>(),
            dt,
        );
        let b = upload(
            &be,
            &bv.iter().map(|&v| Scalar::Float64(v)).collect::<Vec<_>>(),
            dt,
        );
        for (name, al, bl) in &cases {
            let want = host_matmul(&av, al, &bv, bl, batch, m, k, n);
            let c = be.alloc(dt, batch * m * n).unwrap();
            be.gemm(&GemmCall {
                a: Operand {
                    buffer: &a,
                    layout: al.clone(),
                },
                b: Operand {
                    buffer: &b,
                    layout: bl.clone(),
                },
                c: Operand {
                    buffer: &c,
                    layout: Layout::contiguous(&[batch, m, n]),
                },
            })
            .unwrap_or_else(|e| panic!("{dt} {name}: {e}"));
            let got = download(&be, &c);
            let tol = match dt {
                DType::Float16 => 0.25,
                DType::BFloat16 => 2.0,
                _ => 1e-9,
            };
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g.to_f64() - w).abs()
                        <= tol
                            * w.abs().max(1.0)
                            * if tol < 1.0 && dt.itemsize() == 2 {
                                0.02
                            } else {
                                1.0
                            },
                    "{dt} {name} at {i}: {} vs {w}",
                    g.to_f64()
                );
            }
        }
        // strided output (every other column of a wider buffer) -> temp + copy
        let c = be.alloc(dt, batch * m * n * 2).unwrap();
        let cl = Layout {
            shape: vec![batch, m, n],
            strides: vec![(m * n * 2) as isize, (2 * n) as isize, 2],
            offset: 0,
        };
        be.gemm(&GemmCall {
            a: Operand {
                buffer: &a,
                layout: Layout::contiguous(&[batch, m, k]),
            },
            b: Operand {
                buffer: &b,
                layout: Layout::contiguous(&[batch, k, n]),
            },
            c: Operand {
                buffer: &c,
                layout: cl,
            },
        })
        .unwrap();
        let got = download(&be, &c);
        let want = host_matmul(
            &av,
            &Layout::contiguous(&[batch, m, k]),
            &bv,
            &Layout::contiguous(&[batch, k, n]),
            batch,
            m,
            k,
            n,
        );
        for z in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let g = got[z * m * n * 2 + i * 2 * n + j * 2].to_f64();
                    let w = want[(z * m + i) * n + j];
                    assert!(
                        (g - w).abs()
                            <= 0.05 * w.abs().max(1.0) + if dt.itemsize() == 2 { 2.0 } else { 0.0 },
                        "{dt} strided C"
                    );
                }
            }
        }
    }
    // integer gemm is refused before any work
    let ia = be.alloc(DType::Int32, 4).unwrap();
    let l = Layout::contiguous(&[1, 2, 2]);
    let e = be.gemm(&GemmCall {
        a: Operand {
            buffer: &ia,
            layout: l.clone(),
        },
        b: Operand {
            buffer: &ia,
            layout: l.clone(),
        },
        c: Operand {
            buffer: &ia,
            layout: l,
        },
    });
    assert!(matches!(e, Err(Error::DTypeNotSupported { .. })));
}

#[test]
fn compile_cache_hits_disk_and_reports_errors() {
    let Some(be) = backend() else { return };
    let dir = std::env::temp_dir().join(format!("cupy-rs-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CUPY_CACHE_DIR", &dir);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let k = Kernel::map(
        "cache_probe",
        vec![DType::UInt64],
        vec![],
        Expr::binary(
            BinaryOp::Xor,
            Expr::input(0, DType::UInt64),
            Expr::constant(Scalar::UInt64(stamp)),
        ),
    );
    let x = upload(&be, &[Scalar::UInt64(1)], DType::UInt64);
    let y = be.alloc(DType::UInt64, 1).unwrap();
    let l = Layout::contiguous(&[1]);
    run_ew(
        &be,
        &k,
        &[1],
        vec![(&x, l.clone())],
        vec![(&y, l.clone())],
        vec![],
    );
    assert_eq!(download(&be, &y)[0], Scalar::UInt64(1 ^ stamp));
    let s = be.compile_stats();
    assert_eq!(s.compiles.load(std::sync::atomic::Ordering::Relaxed), 1);
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert!(files >= 1, "a cubin was written to {dir:?}");
    // a second backend has an empty memory cache: the module comes from disk
    let be2 = CudaBackend::open(0).unwrap();
    let x2 = upload(&be2, &[Scalar::UInt64(2)], DType::UInt64);
    let y2 = be2.alloc(DType::UInt64, 1).unwrap();
    run_ew(
        &be2,
        &k,
        &[1],
        vec![(&x2, l.clone())],
        vec![(&y2, l)],
        vec![],
    );
    assert_eq!(download(&be2, &y2)[0], Scalar::UInt64(2 ^ stamp));
    let s2 = be2.compile_stats();
    assert_eq!(s2.disk_hits.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(s2.compiles.load(std::sync::atomic::Ordering::Relaxed), 0);
    // compile errors carry the log and the source
    let e = be
        .compile_raw(
            "broken",
            "extern \"C\" __global__ void broken() { this is not C++; }",
            &["broken".into()],
        )
        .unwrap_err();
    match e {
        Error::Compile {
            log,
            source_code,
            kernel,
            ..
        } => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("error"), "{log}");
            assert!(source_code.contains("this is not C++"));
        }
        e => panic!("expected a compile error, got {e}"),
    }
    std::env::remove_var("CUPY_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn out_of_memory_is_an_error_and_keeps_other_buffers() {
    let Some(be) = backend() else { return };
    let keep = upload(
        &be,
        &(0..1000).map(|i| Scalar::Int32(i)).collect::<Vec<_>>(),
        DType::Int32,
    );
    // a cached block exists too
    drop(be.alloc(DType::Float32, 1 << 20).unwrap());
    let e = be.alloc(DType::UInt8, 1usize << 50).unwrap_err();
    match &e {
        Error::OutOfMemory {
            requested, detail, ..
        } => {
            assert_eq!(*requested, 1usize << 50);
            assert!(detail.contains("in use"), "{detail}");
            eprintln!("OOM message: {e}");
        }
        e => panic!("expected OutOfMemory, got {e}"),
    }
    let got = download(&be, &keep);
    assert_eq!(got, (0..1000).map(|i| Scalar::Int32(i)).collect::<Vec<_>>());
    // the device still works
    let k = catalogue::binary(BinaryOp::Add, DType::Int32);
    let c = be.alloc(DType::Int32, 1000).unwrap();
    let l = Layout::contiguous(&[1000]);
    run_ew(
        &be,
        &k,
        &[1000],
        vec![(&keep, l.clone()), (&keep, l.clone())],
        vec![(&c, l)],
        vec![],
    );
    assert_eq!(download(&be, &c)[999], Scalar::Int32(1998));
}

#[test]
fn dtype_refusal_before_work() {
    let Some(be) = backend() else { return };
    // Complex buffers exist; the radix sort has no complex instantiation and refuses it by
    // dtype, before any work is queued. The scans take complex (short and multi-tile rows).
    let b = be.alloc(DType::Complex64, 4).unwrap();
    let l = Layout::contiguous(&[1, 4]);
    let op = || Operand {
        buffer: &b,
        layout: l.clone(),
    };
    let sort = be.sort(&cupy_core::backend::SortCall {
        keys: op(),
        values: None,
        values_are_positions: false,
    });
    let e = sort.unwrap_err();
    assert!(
        matches!(
            e,
            Error::DTypeNotSupported {
                dtype: DType::Complex64,
                ..
            }
        ),
        "{e}"
    );
    for d in [DType::Complex64, DType::Complex128] {
        for n in [5usize, 20000] {
            let x: Vec<Scalar> = (0..n)
                .map(|i| {
                    let z = num_complex::Complex::new(
                        ((i * 7 % 5) as f64 - 2.0) * 0.25,
                        ((i * 3 % 4) as f64 - 1.5) * 0.5,
                    );
                    Scalar::Complex128(z).cast(d)
                })
                .collect();
            for sop in [
                cupy_core::backend::ScanOp::Sum,
                cupy_core::backend::ScanOp::Prod,
            ] {
                // products of unit-modulus values stay finite over a long row
                let x: Vec<Scalar> = if sop == cupy_core::backend::ScanOp::Prod {
                    (0..n)
                        .map(|i| {
                            let t = i as f64 * 0.37;
                            Scalar::Complex128(num_complex::Complex::new(t.cos(), t.sin())).cast(d)
                        })
                        .collect()
                } else {
                    x.clone()
                };
                let xb = upload(&be, &x, d);
                let yb = be.alloc(d, n).unwrap();
                let l = Layout::contiguous(&[1, n]);
                be.scan(&cupy_core::backend::ScanCall {
                    op: sop,
                    input: Operand {
                        buffer: &xb,
                        layout: l.clone(),
                    },
                    output: Operand {
                        buffer: &yb,
                        layout: l,
                    },
                })
                .unwrap();
                let got = download(&be, &yb);
                let mut acc = if sop == cupy_core::backend::ScanOp::Sum {
                    num_complex::Complex::new(0.0, 0.0)
                } else {
                    num_complex::Complex::new(1.0, 0.0)
                };
                let tol = if d == DType::Complex64 { 1e-3 } else { 1e-9 };
                for j in 0..n {
                    let v = x[j].to_c128();
                    acc = if sop == cupy_core::backend::ScanOp::Sum {
                        acc + v
                    } else {
                        acc * v
                    };
                    let g = got[j].to_c128();
                    assert!(
                        (g - acc).norm() <= tol * acc.norm().max(1.0),
                        "{d} {sop:?} n={n} [{j}]: got {g}, want {acc}"
                    );
                }
            }
        }
    }
}

/// Tiled 2-D elementwise path: transposed and reversed views of several sizes and dtypes.
#[test]
fn tiled_transpose_copies() {
    let Some(be) = backend() else { return };
    for (d, r, c) in [
        (DType::Float64, 1000usize, 777usize),
        (DType::UInt8, 33, 65),
        (DType::Float32, 16, 4099),
    ] {
        let k = Kernel::map(
            "copy_t",
            vec![d],
            vec![],
            cupy_core::kernel::ir::Expr::input(0, d),
        );
        let vals: Vec<Scalar> = (0..r * c)
            .map(|i| Scalar::Int64((i % 251) as i64).cast(d))
            .collect();
        let x = upload(&be, &vals, d);
        // out[i, j] = x[j, i] read through a transposed view of x ([c, r] storage)
        let xt = Layout {
            shape: vec![r, c],
            strides: vec![1, r as isize],
            offset: 0,
        };
        let out = be.alloc(d, r * c).unwrap();
        run_ew(
            &be,
            &k,
            &[r, c],
            vec![(&x, xt)],
            vec![(&out, Layout::contiguous(&[r, c]))],
            vec![],
        );
        let got = download(&be, &out);
        for i in 0..r {
            for j in 0..c {
                assert!(
                    same(got[i * c + j], vals[j * r + i]),
                    "{d} {r}x{c} at ({i},{j})"
                );
            }
        }
        // contiguous input, transposed + reversed output
        let out2 = be.alloc(d, r * c).unwrap();
        let ol = Layout {
            shape: vec![r, c],
            strides: vec![-1, r as isize],
            offset: r - 1,
        };
        run_ew(
            &be,
            &k,
            &[r, c],
            vec![(&x, Layout::contiguous(&[r, c]))],
            vec![(&out2, ol)],
            vec![],
        );
        let got = download(&be, &out2);
        for i in 0..r {
            for j in 0..c {
                assert!(
                    same(got[j * r + (r - 1 - i)], vals[i * c + j]),
                    "{d} {r}x{c} out-transposed at ({i},{j})"
                );
            }
        }
    }
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
