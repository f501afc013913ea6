//! Tiled launches (transposes through workgroup-memory tiles): odd extents, batch axes, offsets,
//! reversed and transposed outputs, two operands fast along different axes, the flat index.

use super::*;

/// The strides of `shape` (C order) permuted by `perm`: the view `x.transpose(perm)`.
fn permuted(shape: &[usize], perm: &[usize], offset: usize) -> Layout {
    let c = Layout::contiguous(shape);
    Layout {
        shape: perm.iter().map(|&a| shape[a]).collect(),
        strides: perm.iter().map(|&a| c.strides[a]).collect(),
        offset,
    }
}

/// Element `idx` (C order of `l.shape`) of the view `l`: its address.
fn addr(l: &Layout, mut flat: usize) -> usize {
    let mut a = l.offset as isize;
    for ax in (0..l.shape.len()).rev() {
        a += (flat % l.shape[ax]) as isize * l.strides[ax];
        flat /= l.shape[ax];
    }
    a as usize
}

/// Runs `f` and asserts it recorded at least `n` tiled launches (other tests may add theirs).
fn tiled(n: u64, f: impl FnOnce()) {
    let before = cupy_wgpu::tiled_launches();
    f();
    let got = cupy_wgpu::tiled_launches() - before;
    let off = std::env::var("CUPY_WGPU_TILED").is_ok_and(|v| v.trim() == "0");
    assert!(off || got >= n, "{got} tiled launches, expected {n}");
}

fn copy_k(t: DType) -> Kernel {
    Kernel::map("copy", vec![t], vec![], Expr::input(0, t))
}

#[test]
fn transposed_copies_of_odd_shapes_and_batches() {
    let d = dev_or_skip!();
    // (shape, permutation, tiled): extents under 16 on a tile axis, or one fast axis for
    // both operands, keep the strided launch.
    let cases: Vec<(Vec<usize>, Vec<usize>, u64)> = vec![
        (vec![16, 16], vec![1, 0], 1),
        (vec![33, 17], vec![1, 0], 1),
        (vec![1000, 33], vec![1, 0], 1),
        (vec![17, 1000], vec![1, 0], 1),
        (vec![7, 40], vec![1, 0], 0),
        (vec![3, 33, 47], vec![0, 2, 1], 1),
        (vec![33, 3, 47], vec![2, 1, 0], 1),
        (vec![20, 18, 3], vec![1, 0, 2], 0),
        (vec![2, 3, 17, 19], vec![1, 0, 3, 2], 1),
        (vec![17, 2, 3, 19], vec![3, 1, 2, 0], 1),
    ];
    for (shape, perm, n_tiled) in cases {
        let n: usize = shape.iter().product();
        let off = 5;
        let a: Vec<f32> = (0..n + off).map(|i| i as f32 * 0.25 - 3.0).collect();
        let x = up(&d, &a);
        let v = permuted(&shape, &perm, off);
        let oshape = v.shape.clone();
        let out = d.alloc(DType::Float32, n).unwrap();
        tiled(n_tiled, || {
            run(
                &d,
                &copy_k(DType::Float32),
                &oshape,
                vec![op(&x, v.clone())],
                vec![op(&out, Layout::contiguous(&oshape))],
                vec![],
            )
        });
        let o: Vec<f32> = down(&d, &out);
        for (i, &g) in o.iter().enumerate() {
            assert_eq!(g, a[addr(&v, i)], "shape {shape:?} perm {perm:?} at {i}");
        }
    }
}

#[test]
fn tiled_outputs_reversed_and_transposed() {
    let d = dev_or_skip!();
    // out.T[...] = x with x contiguous: the output is the staged operand.
    let (r, c) = (45usize, 70usize);
    let a: Vec<f64> = (0..r * c).map(|i| i as f64 + 0.5).collect();
    let x = up(&d, &a);
    let out = d.alloc(DType::Float64, r * c).unwrap();
    let ot = Layout {
        shape: vec![r, c],
        strides: vec![1, r as isize],
        offset: 0,
    };
    tiled(1, || {
        run(
            &d,
            &copy_k(DType::Float64),
            &[r, c],
            vec![op(&x, Layout::contiguous(&[r, c]))],
            vec![op(&out, ot.clone())],
            vec![],
        )
    });
    let o: Vec<f64> = down(&d, &out);
    for i in 0..r * c {
        assert_eq!(o[addr(&ot, i)], a[i]);
    }
    // A transposed input reversed along both axes.
    let v = Layout {
        shape: vec![c, r],
        strides: vec![-1, -(c as isize)],
        offset: r * c - 1,
    };
    let out2 = d.alloc(DType::Float64, r * c).unwrap();
    tiled(1, || {
        run(
            &d,
            &copy_k(DType::Float64),
            &[c, r],
            vec![op(&x, v.clone())],
            vec![op(&out2, Layout::contiguous(&[c, r]))],
            vec![],
        )
    });
    let o2: Vec<f64> = down(&d, &out2);
    for (i, &g) in o2.iter().enumerate() {
        assert_eq!(g, a[addr(&v, i)]);
    }
}

#[test]
fn tiled_two_inputs_and_the_flat_index() {
    let d = dev_or_skip!();
    // z = x + y.T + Index (int32), x contiguous, y transposed: Index keeps the axis order.
    let t = DType::Int32;
    let k = Kernel::map(
        "add_index",
        vec![t, t],
        vec![],
        Expr::binary(
            B::Add,
            Expr::binary(B::Add, Expr::input(0, t), Expr::input(1, t)),
            Expr::index().cast(t),
        ),
    );
    for (r, c) in [(33usize, 65usize), (64, 16), (100, 300)] {
        let a: Vec<i32> = (0..(r * c) as i32).collect();
        let b: Vec<i32> = (0..(r * c) as i32).map(|i| i * 7 - 100).collect();
        let (x, y) = (up(&d, &a), up(&d, &b));
        let yt = Layout {
            shape: vec![r, c],
            strides: vec![1, r as isize],
            offset: 0,
        };
        let out = d.alloc(t, r * c).unwrap();
        tiled(1, || {
            run(
                &d,
                &k,
                &[r, c],
                vec![op(&x, Layout::contiguous(&[r, c])), op(&y, yt.clone())],
                vec![op(&out, Layout::contiguous(&[r, c]))],
                vec![],
            )
        });
        let o: Vec<i32> = down(&d, &out);
        for i in 0..r * c {
            assert_eq!(o[i], a[i] + b[addr(&yt, i)] + i as i32, "{r}x{c} at {i}");
        }
    }
}

#[test]
fn tiled_casts_from_packed_and_wide_types() {
    let d = dev_or_skip!();
    let (r, c) = (37usize, 29usize);
    let v = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    // int8 (packed, staged input) -> float32.
    let a: Vec<i8> = (0..r * c).map(|i| (i % 251) as i8).collect();
    let x = up(&d, &a);
    let k = Kernel::map(
        "cast",
        vec![DType::Int8],
        vec![],
        Expr::input(0, DType::Int8).cast(DType::Float32),
    );
    let out = d.alloc(DType::Float32, r * c).unwrap();
    tiled(1, || {
        run(
            &d,
            &k,
            &[c, r],
            vec![op(&x, v.clone())],
            vec![op(&out, Layout::contiguous(&[c, r]))],
            vec![],
        )
    });
    let o: Vec<f32> = down(&d, &out);
    for (i, &g) in o.iter().enumerate() {
        assert_eq!(g, a[addr(&v, i)] as f32);
    }
    // complex128 (16-byte tiles) copied.
    let z: Vec<num_complex::Complex64> = (0..r * c)
        .map(|i| num_complex::Complex64::new(i as f64, -(i as f64) * 0.5))
        .collect();
    let x = up(&d, &z);
    let out = d.alloc(DType::Complex128, r * c).unwrap();
    tiled(1, || {
        run(
            &d,
            &copy_k(DType::Complex128),
            &[c, r],
            vec![op(&x, v.clone())],
            vec![op(&out, Layout::contiguous(&[c, r]))],
            vec![],
        )
    });
    let o: Vec<num_complex::Complex64> = down(&d, &out);
    for (i, &g) in o.iter().enumerate() {
        assert_eq!(g, z[addr(&v, i)]);
    }
}
