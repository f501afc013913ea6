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

mod errors;
mod gemm;
mod reduce;

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
