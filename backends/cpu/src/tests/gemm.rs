//! GEMM: float, narrow int, bool and complex; transposed, batched, broadcast, in-place.

use super::*;

fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    c
}

fn gemm_run(be: &CpuBackend, a: (&Buffer, Layout), b: (&Buffer, Layout), c: (&Buffer, Layout)) {
    be.gemm(&GemmCall {
        a: Operand {
            buffer: a.0,
            layout: a.1,
        },
        b: Operand {
            buffer: b.0,
            layout: b.1,
        },
        c: Operand {
            buffer: c.0,
            layout: c.1,
        },
    })
    .unwrap();
}

#[test]
fn gemm_f32_f64_odd_transposed_batched() {
    let be = be();
    for (m, k, n) in [
        (2usize, 3usize, 2usize),
        (7, 5, 3),
        (1, 1, 1),
        (65, 33, 17),
        (130, 70, 90),
    ] {
        let a: Vec<f64> = (0..m * k).map(|i| ((i * 3) % 7) as f64 - 2.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| ((i * 5) % 11) as f64 * 0.5).collect();
        let want = naive(&a, &b, m, k, n);
        let (ab, bb) = (up(&be, &a), up(&be, &b));
        let c = be.alloc(Float64, m * n).unwrap();
        gemm_run(
            &be,
            (&ab, Layout::contiguous(&[1, m, k])),
            (&bb, Layout::contiguous(&[1, k, n])),
            (&c, Layout::contiguous(&[1, m, n])),
        );
        assert_eq!(down::<f64>(&be, &c), want, "{m}x{k}x{n}");
        // a stored transposed (k x m buffer), c written reversed rows
        let at: Vec<f32> = (0..k * m).map(|i| a[(i % m) * k + i / m] as f32).collect();
        let atb = up(&be, &at);
        let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let bb32 = up(&be, &b32);
        let c32 = be.alloc(Float32, m * n).unwrap();
        gemm_run(
            &be,
            (
                &atb,
                Layout {
                    shape: vec![1, m, k],
                    strides: vec![0, 1, m as isize],
                    offset: 0,
                },
            ),
            (&bb32, Layout::contiguous(&[1, k, n])),
            (
                &c32,
                Layout {
                    shape: vec![1, m, n],
                    strides: vec![0, -(n as isize), 1],
                    offset: (m - 1) * n,
                },
            ),
        );
        let got = down::<f32>(&be, &c32);
        for i in 0..m {
            for j in 0..n {
                let w = want[i * n + j];
                let g = got[(m - 1 - i) * n + j] as f64;
                assert!(
                    (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                    "{m}x{k}x{n} {i},{j}: {g} vs {w}"
                );
            }
        }
    }
    // batched: 3 batches of a, b shared with batch stride 0
    let (m, k, n, nb) = (4usize, 3usize, 5usize, 3usize);
    let a: Vec<f64> = (0..nb * m * k).map(|i| i as f64 * 0.25).collect();
    let b: Vec<f64> = (0..k * n).map(|i| 1.0 - i as f64).collect();
    let (ab, bb) = (up(&be, &a), up(&be, &b));
    let c = be.alloc(Float64, nb * m * n).unwrap();
    gemm_run(
        &be,
        (&ab, Layout::contiguous(&[nb, m, k])),
        (
            &bb,
            Layout {
                shape: vec![nb, k, n],
                strides: vec![0, n as isize, 1],
                offset: 0,
            },
        ),
        (&c, Layout::contiguous(&[nb, m, n])),
    );
    let got = down::<f64>(&be, &c);
    for bi in 0..nb {
        let want = naive(&a[bi * m * k..(bi + 1) * m * k], &b, m, k, n);
        assert_eq!(&got[bi * m * n..(bi + 1) * m * n], &want[..]);
    }
    // k = 0 gives zeros
    let e = be.alloc(Float64, 0).unwrap();
    let c = up(&be, &[5.0f64; 4]);
    gemm_run(
        &be,
        (&e, Layout::contiguous(&[1, 2, 0])),
        (&e, Layout::contiguous(&[1, 0, 2])),
        (&c, Layout::contiguous(&[1, 2, 2])),
    );
    assert_eq!(down::<f64>(&be, &c), vec![0.0; 4]);
}

#[test]
fn gemm_narrow_int_bool_complex() {
    let be = be();
    let h = |x: f32| f16::from_f32(x);
    let a = up(&be, &[h(1.0), h(2.0), h(3.0), h(4.0)]);
    let b = up(&be, &[h(0.5), h(1.0), h(1.5), h(2.0)]);
    let c = be.alloc(Float16, 4).unwrap();
    let l = Layout::contiguous(&[1, 2, 2]);
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<f16>(&be, &c), vec![h(3.5), h(5.0), h(7.5), h(11.0)]);
    let a = up(&be, &[100i8, 100, 1, 2]);
    let b = up(&be, &[2i8, 0, 1, 1]);
    let c = be.alloc(Int8, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<i8>(&be, &c), vec![(300i32 as i8), 100, 4, 2]);
    let a = up(&be, &[true, false, false, false]);
    let b = up(&be, &[false, true, true, true]);
    let c = be.alloc(Bool, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(down::<bool>(&be, &c), vec![false, true, false, false]);
    let z = |r: f64, i: f64| Complex::new(r, i);
    let a = up(&be, &[z(1.0, 1.0), z(0.0, 0.0), z(0.0, 0.0), z(1.0, 0.0)]);
    let b = up(&be, &[z(0.0, 1.0), z(2.0, 0.0), z(1.0, 0.0), z(0.0, -1.0)]);
    let c = be.alloc(Complex128, 4).unwrap();
    gemm_run(&be, (&a, l.clone()), (&b, l.clone()), (&c, l.clone()));
    assert_eq!(
        down::<Complex<f64>>(&be, &c),
        vec![z(-1.0, 1.0), z(2.0, 2.0), z(1.0, 0.0), z(0.0, -1.0)]
    );
    // i64 larger, parallel path
    let (m, k, n) = (50usize, 40usize, 60usize);
    let av: Vec<i64> = (0..m * k).map(|i| (i as i64 % 9) - 4).collect();
    let bv: Vec<i64> = (0..k * n).map(|i| (i as i64 % 5) - 2).collect();
    let (ab, bb) = (up(&be, &av), up(&be, &bv));
    let c = be.alloc(Int64, m * n).unwrap();
    gemm_run(
        &be,
        (&ab, Layout::contiguous(&[1, m, k])),
        (&bb, Layout::contiguous(&[1, k, n])),
        (&c, Layout::contiguous(&[1, m, n])),
    );
    let af: Vec<f64> = av.iter().map(|&x| x as f64).collect();
    let bf: Vec<f64> = bv.iter().map(|&x| x as f64).collect();
    let want: Vec<i64> = naive(&af, &bf, m, k, n).iter().map(|&x| x as i64).collect();
    assert_eq!(down::<i64>(&be, &c), want);
}

#[test]
fn gemm_rejects_bad_layouts() {
    let be = be();
    let a = up(&be, &[1.0f32; 4]);
    let c = be.alloc(Float32, 4).unwrap();
    let l = Layout::contiguous(&[1, 2, 2]);
    let bad_c = Layout {
        shape: vec![1, 2, 2],
        strides: vec![0, 0, 1],
        offset: 0,
    };
    let r = be.gemm(&GemmCall {
        a: Operand {
            buffer: &a,
            layout: l.clone(),
        },
        b: Operand {
            buffer: &a,
            layout: l.clone(),
        },
        c: Operand {
            buffer: &c,
            layout: bad_c,
        },
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
    let r = be.gemm(&GemmCall {
        a: Operand {
            buffer: &a,
            layout: Layout::contiguous(&[1, 2, 3]),
        },
        b: Operand {
            buffer: &a,
            layout: Layout::contiguous(&[1, 3, 2]),
        },
        c: Operand {
            buffer: &c,
            layout: l,
        },
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
}

#[test]
fn tiled_transpose_paths() {
    let be = be();
    for (r, c) in [(130usize, 200usize), (257, 129), (300, 300)] {
        let v: Vec<i32> = (0..(r * c) as i32).collect();
        let a = up(&be, &v);
        let out = be.alloc(Int32, r * c).unwrap();
        // out (c x r, contiguous) = a.T, plus a broadcast row added in a second kernel
        let k = Kernel::map("copy", vec![Int32], vec![], inp(0, Int32));
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![c, r],
            inputs: vec![Operand {
                buffer: &a,
                layout: Layout {
                    shape: vec![c, r],
                    strides: vec![1, c as isize],
                    offset: 0,
                },
            }],
            outputs: vec![Operand {
                buffer: &out,
                layout: Layout::contiguous(&[c, r]),
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap();
        let got = down::<i32>(&be, &out);
        for i in 0..c {
            for j in 0..r {
                assert_eq!(got[i * r + j], v[j * c + i]);
            }
        }
        // transposed output with reversed rows, two inputs (one broadcast)
        let row = up(&be, &(0..c as i32).map(|x| x * 1000).collect::<Vec<_>>());
        let k = Kernel::map(
            "add",
            vec![Int32, Int32],
            vec![],
            bin(B::Add, inp(0, Int32), inp(1, Int32)),
        );
        let out2 = be.alloc(Int32, r * c).unwrap();
        be.elementwise(&ElementwiseCall {
            kernel: &k,
            shape: vec![r, c],
            inputs: vec![
                Operand {
                    buffer: &a,
                    layout: Layout::contiguous(&[r, c]),
                },
                Operand {
                    buffer: &row,
                    layout: Layout {
                        shape: vec![r, c],
                        strides: vec![0, 1],
                        offset: 0,
                    },
                },
            ],
            outputs: vec![Operand {
                buffer: &out2,
                layout: Layout {
                    shape: vec![r, c],
                    strides: vec![-1, r as isize],
                    offset: r - 1,
                },
            }],
            raws: vec![],
            params: vec![],
        })
        .unwrap();
        let got = down::<i32>(&be, &out2);
        for i in 0..r {
            for j in 0..c {
                assert_eq!(got[j * r + (r - 1 - i)], v[i * c + j] + 1000 * j as i32);
            }
        }
    }
}

#[test]
fn gemm_broadcast_and_inplace() {
    let be = be();
    // a: one row [1, 2, 3] broadcast to 4 rows (row stride 0); b: 3x2
    let a = up(&be, &[1.0f32, 2.0, 3.0]);
    let b = up(&be, &[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let c = be.alloc(Float32, 8).unwrap();
    gemm_run(
        &be,
        (
            &a,
            Layout {
                shape: vec![1, 4, 3],
                strides: vec![0, 0, 1],
                offset: 0,
            },
        ),
        (&b, Layout::contiguous(&[1, 3, 2])),
        (&c, Layout::contiguous(&[1, 4, 2])),
    );
    assert_eq!(
        down::<f32>(&be, &c),
        vec![4.0, 5.0, 4.0, 5.0, 4.0, 5.0, 4.0, 5.0]
    );
    // c = c @ b2 in place (c aliases a)
    let x = up(&be, &[1.0f64, 2.0, 3.0, 4.0]);
    let i2 = up(&be, &[0.0f64, 1.0, 1.0, 0.0]);
    let l = Layout::contiguous(&[1, 2, 2]);
    gemm_run(&be, (&x, l.clone()), (&i2, l.clone()), (&x, l));
    assert_eq!(down::<f64>(&be, &x), vec![2.0, 1.0, 4.0, 3.0]);
}
