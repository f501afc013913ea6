//! Layouts (strided, broadcast, reversed, size 0, 0-d), refusals, loads out of range, loops,
//! ifs and selects, complex ops.

use super::*;

#[test]
fn strided_broadcast_reversed() {
    let be = be();
    // a: 3x2 buffer viewed transposed as 2x3; b: a row of 3 broadcast over 2 rows;
    // out: 2x3 written with both axes reversed.
    let a = up(&be, &[1i32, 2, 3, 4, 5, 6]); // [[1,2],[3,4],[5,6]] -> T = [[1,3,5],[2,4,6]]
    let b = up(&be, &[10i32, 20, 30]);
    let out = be.alloc(Int32, 6).unwrap();
    let k = Kernel::map(
        "add",
        vec![Int32, Int32],
        vec![],
        bin(B::Add, inp(0, Int32), inp(1, Int32)),
    );
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![2, 3],
        inputs: vec![
            Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![2, 3],
                    strides: vec![1, 2],
                    offset: 0,
                },
            },
            Operand {
                buffer: &b,
                layout: Layout {
                    shape: vec![2, 3],
                    strides: vec![0, 1],
                    offset: 0,
                },
            },
        ],
        outputs: vec![Operand {
            buffer: &out,
            layout: Layout {
                shape: vec![2, 3],
                strides: vec![-3, -1],
                offset: 5,
            },
        }],
        raws: vec![],
        params: vec![],
    };
    be.elementwise(&call).unwrap();
    // logical result [[11,23,35],[12,24,36]] stored reversed
    assert_eq!(down::<i32>(&be, &out), vec![36, 24, 12, 35, 23, 11]);

    // Large strided + in-place (input aliases output element for element), parallel path.
    let n = 300_000usize;
    let x: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
    let xb = up(&be, &x);
    let k = Kernel::map(
        "inc",
        vec![Float64],
        vec![],
        bin(B::Add, inp(0, Float64), k1(Float64, 1.0)),
    );
    let lay = Layout {
        shape: vec![n],
        strides: vec![-2],
        offset: 2 * n - 1,
    };
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![Operand {
            buffer: &xb,
            layout: lay.clone(),
        }],
        outputs: vec![Operand {
            buffer: &xb,
            layout: lay,
        }],
        raws: vec![],
        params: vec![],
    };
    be.elementwise(&call).unwrap();
    let r = down::<f64>(&be, &xb);
    for (i, v) in r.iter().enumerate() {
        assert_eq!(*v, i as f64 + (i % 2) as f64);
    }
}

#[test]
fn size_zero_zero_d_and_fill() {
    let be = be();
    let k = Kernel::map("fill", vec![], vec![Float32], Expr::param(0, Float32));
    // size 0: no-op
    let e = be.alloc(Float32, 0).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![0],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &e,
            layout: c1(0),
        }],
        raws: vec![],
        params: vec![Scalar::Float32(1.0)],
    })
    .unwrap();
    // 0-d as shape [1]
    let o = be.alloc(Float32, 1).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![1],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &o,
            layout: c1(1),
        }],
        raws: vec![],
        params: vec![Scalar::Float32(2.5)],
    })
    .unwrap();
    assert_eq!(down::<f32>(&be, &o), vec![2.5]);
    // large fill (parallel, zero inputs)
    let o = run_map(&be, &k, &[], 100_000, vec![Scalar::Float32(-1.0)]);
    assert!(down::<f32>(&be, &o).iter().all(|&x| x == -1.0));
    // arange: start + Index * step, cast to int32
    let body = bin(
        B::Add,
        Expr::param(0, Float64),
        bin(B::Mul, Expr::index().cast(Float64), Expr::param(1, Float64)),
    )
    .cast(Int32);
    let k = Kernel::map("arange", vec![], vec![Float64, Float64], body);
    let o = run_map(
        &be,
        &k,
        &[],
        50_000,
        vec![Scalar::Float64(3.0), Scalar::Float64(0.5)],
    );
    let r = down::<i32>(&be, &o);
    for (i, v) in r.iter().enumerate() {
        assert_eq!(*v, (3.0 + i as f64 * 0.5) as i32);
    }
}

#[test]
fn bad_layouts_and_dtypes_rejected() {
    let be = be();
    let a = up(&be, &[1.0f32; 4]);
    let out = be.alloc(Float32, 4).unwrap();
    let k = Kernel::map(
        "neg",
        vec![Float32],
        vec![],
        Expr::unary(U::Neg, inp(0, Float32)),
    );
    let mk = |lay: Layout, olay: Layout| ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &a,
            layout: lay,
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: olay,
        }],
        raws: vec![],
        params: vec![],
    };
    let bad = [
        (
            Layout {
                shape: vec![4],
                strides: vec![2],
                offset: 0,
            },
            c1(4),
        ),
        (
            Layout {
                shape: vec![4],
                strides: vec![-1],
                offset: 2,
            },
            c1(4),
        ),
        (
            c1(4),
            Layout {
                shape: vec![4],
                strides: vec![1],
                offset: 1,
            },
        ),
        (
            Layout {
                shape: vec![4],
                strides: vec![isize::MAX],
                offset: 0,
            },
            c1(4),
        ),
        (c1(5), c1(4)),
    ];
    for (l, o) in bad {
        match be.elementwise(&mk(l.clone(), o.clone())) {
            Err(Error::InvalidArgument { .. }) => {}
            other => panic!("{l:?} {o:?}: {other:?}"),
        }
    }
    // dtype mismatch between kernel and buffer
    let i = up(&be, &[1i32; 4]);
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &i,
            layout: c1(4),
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::InvalidArgument { .. })
    ));
    // unsupported op: nothing written
    be.write(&out, 0, f32::slice_as_bytes(&[7.0; 4])).unwrap();
    let k2 = Kernel::map(
        "bad",
        vec![Float32],
        vec![],
        bin(B::Shl, inp(0, Float32), inp(0, Float32)),
    );
    let call = ElementwiseCall {
        kernel: &k2,
        shape: vec![4],
        inputs: vec![Operand {
            buffer: &a,
            layout: c1(4),
        }],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::Unsupported { .. })
    ));
    assert_eq!(down::<f32>(&be, &out), vec![7.0; 4]);
}

#[test]
fn load_out_of_range_is_zero() {
    let be = be();
    let r = up(&be, &[1.0f64, 2.0, 3.0]);
    // out[i] = raw[i * 2 - 1]
    let idx = bin(
        B::Sub,
        bin(B::Mul, Expr::index(), k1(Int64, 2)),
        k1(Int64, 1),
    );
    let mut k = Kernel::map("ld", vec![], vec![], Expr::load(0, Float64, idx));
    k.raws = vec![Float64];
    let out = be.alloc(Float64, 4).unwrap();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![RawOperand {
            buffer: &r,
            offset: 0,
            len: 3,
        }],
        params: vec![],
    })
    .unwrap();
    assert_eq!(down::<f64>(&be, &out), vec![0.0, 2.0, 0.0, 0.0]);
    // raw range outside its buffer is refused
    let call = ElementwiseCall {
        kernel: &k,
        shape: vec![4],
        inputs: vec![],
        outputs: vec![Operand {
            buffer: &out,
            layout: c1(4),
        }],
        raws: vec![RawOperand {
            buffer: &r,
            offset: 1,
            len: 3,
        }],
        params: vec![],
    };
    assert!(matches!(
        be.elementwise(&call),
        Err(Error::InvalidArgument { .. })
    ));
}

/// 'same'-mode 2-D correlation of an HxW image with a KxK kernel, in IR: a nested uniform `For`
/// over the window, `If` for bounds, `Load` from two raw operands, index arithmetic.
fn conv_kernel() -> Kernel {
    let i64c = |v: i64| k1(Int64, v);
    let var = |k: usize| Expr::var(k, Int64);
    // locals: 0 = acc (f64), 1 = ky, 2 = kx, 3 = y, 4 = x, 5 = sy, 6 = sx
    let (h, w, kk) = (
        Expr::param(0, Int64),
        Expr::param(1, Int64),
        Expr::param(2, Int64),
    );
    let half = bin(B::FloorDiv, kk.clone(), i64c(2));
    let sy = bin(
        B::Sub,
        bin(B::Add, var(3), Expr::var(1, Int64)),
        half.clone(),
    );
    let sx = bin(B::Sub, bin(B::Add, var(4), Expr::var(2, Int64)), half);
    let inb = |v: Expr, lim: Expr| bin(B::And, bin(B::Ge, v.clone(), i64c(0)), bin(B::Lt, v, lim));
    let cond = bin(B::And, inb(var(5), h.clone()), inb(var(6), w.clone()));
    let img = Expr::load(
        0,
        Float64,
        bin(B::Add, bin(B::Mul, var(5), w.clone()), var(6)),
    );
    let wt = Expr::load(
        1,
        Float64,
        bin(
            B::Add,
            bin(B::Mul, Expr::var(1, Int64), kk.clone()),
            Expr::var(2, Int64),
        ),
    );
    let acc = Expr::var(0, Float64);
    Kernel {
        name: "conv2d".into(),
        inputs: vec![],
        outputs: vec![Float64],
        raws: vec![Float64, Float64],
        params: vec![Int64, Int64, Int64],
        locals: vec![Float64, Int64, Int64, Int64, Int64, Int64, Int64],
        body: vec![
            Stmt::Let {
                var: 0,
                value: k1(Float64, 0.0),
            },
            Stmt::Let {
                var: 3,
                value: bin(B::Div, Expr::index(), w.clone()),
            },
            Stmt::Let {
                var: 4,
                value: bin(B::Mod, Expr::index(), w.clone()),
            },
            Stmt::For {
                var: 1,
                start: i64c(0),
                end: kk.clone(),
                body: vec![Stmt::For {
                    var: 2,
                    start: i64c(0),
                    end: kk.clone(),
                    body: vec![
                        Stmt::Let { var: 5, value: sy },
                        Stmt::Let { var: 6, value: sx },
                        Stmt::If {
                            cond,
                            then_body: vec![Stmt::Assign {
                                var: 0,
                                value: bin(B::Add, acc.clone(), bin(B::Mul, img, wt)),
                            }],
                            else_body: vec![],
                        },
                    ],
                }],
            },
            Stmt::Store {
                output: 0,
                value: acc,
            },
        ],
    }
}

#[test]
fn conv2d_kernel_with_loops_if_load() {
    let be = be();
    let k = conv_kernel();
    k.validate().unwrap();
    for (h, w, kk) in [(5usize, 7usize, 3usize), (40, 33, 5), (1, 1, 3)] {
        let img: Vec<f64> = (0..h * w).map(|i| ((i * 7) % 11) as f64 - 3.0).collect();
        let wt: Vec<f64> = (0..kk * kk).map(|i| (i as f64) * 0.25 - 1.0).collect();
        let (ib, wb) = (up(&be, &img), up(&be, &wt));
        let out = be.alloc(Float64, h * w).unwrap();
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![h * w],
            inputs: vec![],
            outputs: vec![Operand {
                buffer: &out,
                layout: c1(h * w),
            }],
            raws: vec![
                RawOperand {
                    buffer: &ib,
                    offset: 0,
                    len: h * w,
                },
                RawOperand {
                    buffer: &wb,
                    offset: 0,
                    len: kk * kk,
                },
            ],
            params: vec![
                Scalar::Int64(h as i64),
                Scalar::Int64(w as i64),
                Scalar::Int64(kk as i64),
            ],
        })
        .unwrap();
        let got = down::<f64>(&be, &out);
        let r = kk as i64 / 2;
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let mut acc = 0.0;
                for ky in 0..kk as i64 {
                    for kx in 0..kk as i64 {
                        let (sy, sx) = (y + ky - r, x + kx - r);
                        if sy >= 0 && sy < h as i64 && sx >= 0 && sx < w as i64 {
                            acc += img[(sy * w as i64 + sx) as usize]
                                * wt[(ky * kk as i64 + kx) as usize];
                        }
                    }
                }
                assert_eq!(
                    got[(y * w as i64 + x) as usize],
                    acc,
                    "{h}x{w} k{kk} at {y},{x}"
                );
            }
        }
    }
}

#[test]
fn if_else_masks_and_select() {
    let be = be();
    // out0 = x > 0 ? x * 2 : -x ; out1 stored only where x is even (else untouched)
    let t = Int32;
    let x = inp(0, t);
    let k = Kernel {
        name: "ifelse".into(),
        inputs: vec![t],
        outputs: vec![t, t],
        raws: vec![],
        params: vec![],
        locals: vec![t],
        body: vec![
            Stmt::Let {
                var: 0,
                value: k1(t, 100),
            },
            Stmt::If {
                cond: bin(B::Gt, x.clone(), k1(t, 0)),
                then_body: vec![Stmt::Assign {
                    var: 0,
                    value: bin(B::Mul, x.clone(), k1(t, 2)),
                }],
                else_body: vec![Stmt::Assign {
                    var: 0,
                    value: Expr::unary(U::Neg, x.clone()),
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, t),
            },
            Stmt::If {
                cond: bin(B::Eq, bin(B::Mod, x.clone(), k1(t, 2)), k1(t, 0)),
                then_body: vec![Stmt::Store {
                    output: 1,
                    value: Expr::select(bin(B::Lt, x.clone(), k1(t, -2)), k1(t, -1), x.clone()),
                }],
                else_body: vec![],
            },
        ],
    };
    let xs = up(&be, &[3i32, -4, 0, 7, -6, 2]);
    let o0 = be.alloc(t, 6).unwrap();
    let o1 = up(&be, &[9i32; 6]);
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![6],
        inputs: vec![Operand {
            buffer: &xs,
            layout: c1(6),
        }],
        outputs: vec![
            Operand {
                buffer: &o0,
                layout: c1(6),
            },
            Operand {
                buffer: &o1,
                layout: c1(6),
            },
        ],
        raws: vec![],
        params: vec![],
    })
    .unwrap();
    assert_eq!(down::<i32>(&be, &o0), vec![6, 4, 0, 14, 6, 4]);
    assert_eq!(down::<i32>(&be, &o1), vec![9, -1, 0, 9, -1, 2]);
}

#[test]
fn complex_ops() {
    let c = |r: f64, i: f64| Complex::new(r, i);
    let a = [c(1.0, 2.0), c(0.0, 1.0)];
    let b = [c(3.0, -1.0), c(0.0, 1.0)];
    let r: Vec<Complex<f64>> = binop(B::Mul, &a, &b);
    assert_eq!(r, vec![c(5.0, 5.0), c(-1.0, 0.0)]);
    let r: Vec<Complex<f64>> = binop(B::Add, &a, &b);
    assert_eq!(r, vec![c(4.0, 1.0), c(0.0, 2.0)]);
    let r: Vec<bool> = binop(B::Lt, &a, &b);
    assert_eq!(r, vec![true, false]);
    let be = be();
    let k = Kernel::map(
        "abs",
        vec![Complex64],
        vec![],
        Expr {
            ty: Float32,
            kind: cupy_core::kernel::ir::ExprKind::Unary(U::Abs, Box::new(inp(0, Complex64))),
        },
    );
    let x = up(&be, &[Complex::new(3.0f32, 4.0)]);
    let o = run_map(&be, &k, &[&x], 1, vec![]);
    assert_eq!(down::<f32>(&be, &o), vec![5.0]);
}
