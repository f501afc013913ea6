//! cuBLAS GEMM on a real CUDA device: layouts and dtypes against a host matmul.

use super::*;

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
