//! A convolve2d-style kernel: loops, ifs and raw loads.

use super::*;

fn convolve_kernel(t: DType) -> Kernel {
    let i = DType::Int64;
    let c = |v: i64| Expr::constant(Scalar::Int64(v));
    let (w, kh, kw, h) = (
        Expr::param(0, i),
        Expr::param(1, i),
        Expr::param(2, i),
        Expr::param(3, i),
    );
    let row = Expr::binary(B::Div, Expr::index(), w.clone());
    let col = Expr::binary(B::Mod, Expr::index(), w.clone());
    let y = Expr::binary(B::Sub, Expr::binary(B::Add, row, Expr::var(1, i)), c(1));
    let x = Expr::binary(B::Sub, Expr::binary(B::Add, col, Expr::var(2, i)), c(1));
    let inb = Expr::binary(
        B::And,
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(3, i), c(0)),
            Expr::binary(B::Lt, Expr::var(3, i), h),
        ),
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(4, i), c(0)),
            Expr::binary(B::Lt, Expr::var(4, i), w.clone()),
        ),
    );
    let img = Expr::load(
        0,
        t,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(3, i), w),
            Expr::var(4, i),
        ),
    );
    let ker = Expr::load(
        1,
        t,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(1, i), kw.clone()),
            Expr::var(2, i),
        ),
    );
    Kernel {
        name: "convolve2d".into(),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![t, t],
        params: vec![i, i, i, i],
        locals: vec![t, i, i, i, i],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::zero(t)),
            },
            Stmt::For {
                var: 1,
                start: c(0),
                end: kh,
                body: vec![Stmt::For {
                    var: 2,
                    start: c(0),
                    end: kw,
                    body: vec![
                        Stmt::Let { var: 3, value: y },
                        Stmt::Let { var: 4, value: x },
                        Stmt::If {
                            cond: inb,
                            then_body: vec![Stmt::Assign {
                                var: 0,
                                value: Expr::binary(
                                    B::Add,
                                    Expr::var(0, t),
                                    Expr::binary(B::Mul, img, ker),
                                ),
                            }],
                            else_body: vec![],
                        },
                    ],
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, t),
            },
        ],
    }
}

#[test]
fn convolve2d_loops_ifs_raw_loads() {
    let d = dev_or_skip!();
    let (h, w) = (19usize, 23usize);
    let img: Vec<f32> = (0..h * w).map(|i| ((i * 7) % 13) as f32).collect();
    let ker: Vec<f32> = vec![1.0, 2.0, 0.5, -1.0, 3.0, 0.25, 1.5, 0.0, -2.0];
    let (ib, kb) = (up(&d, &img), up(&d, &ker));
    let out = d.alloc(DType::Float32, h * w).unwrap();
    let k = convolve_kernel(DType::Float32);
    let p = |v: usize| Scalar::Int64(v as i64);
    d.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![h * w],
        inputs: vec![],
        outputs: vec![op(&out, Layout::contiguous(&[h * w]))],
        raws: vec![
            RawOperand {
                buffer: &ib,
                offset: 0,
                len: h * w,
            },
            RawOperand {
                buffer: &kb,
                offset: 0,
                len: 9,
            },
        ],
        params: vec![p(w), p(3), p(3), p(h)],
    })
    .unwrap();
    let got: Vec<f32> = down(&d, &out);
    for r in 0..h {
        for c in 0..w {
            let mut acc = 0.0f32;
            for ky in 0..3 {
                for kx in 0..3 {
                    let (y, x) = (r as i64 + ky - 1, c as i64 + kx - 1);
                    if y >= 0 && y < h as i64 && x >= 0 && x < w as i64 {
                        acc += img[y as usize * w + x as usize] * ker[(ky * 3 + kx) as usize];
                    }
                }
            }
            assert_eq!(got[r * w + c], acc, "({r},{c})");
        }
    }
}
