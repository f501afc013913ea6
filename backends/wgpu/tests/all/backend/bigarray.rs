//! Arrays past one storage binding: a device whose bindings hold at most 64 KiB
//! (`open_with_binding_limit`) runs elementwise kernels, reductions and sorts on arrays of a few
//! hundred KiB, split into windows.

use super::*;
use cupy_core::backend::SortCall;

const CAP: u64 = 64 << 10;

fn small_dev() -> Option<Arc<dyn Backend>> {
    dev()?;
    Some(WgpuProvider.open_with_binding_limit(0, CAP).unwrap())
}

macro_rules! small_or_skip {
    () => {
        match small_dev() {
            Some(d) => d,
            None => return,
        }
    };
}

#[test]
fn elementwise_contiguous_strided_packed_and_indexed() {
    let d = small_or_skip!();
    // Contiguous float32 add, 400 KB per operand (7 windows), output at an offset.
    let n = 100_003;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.5).collect();
    let (x, y) = (up(&d, &a), up(&d, &b));
    let z = d.alloc(DType::Float32, n + 5).unwrap();
    let l = Layout::contiguous(&[n]);
    let zl = Layout {
        offset: 5,
        ..l.clone()
    };
    run(
        &d,
        &bin(B::Add, DType::Float32),
        &[n],
        vec![op(&x, l.clone()), op(&y, l.clone())],
        vec![op(&z, zl)],
        vec![],
    );
    let got: Vec<f32> = down(&d, &z);
    for i in 0..n {
        assert_eq!(got[i + 5], a[i] + b[i], "i={i}");
    }
    // Strided: a transposed 300 x 500 view plus a broadcast row (axis 0 of the view has stride 1).
    let (r, c) = (300usize, 500usize);
    let m: Vec<f32> = (0..r * c).map(|i| (i % 1013) as f32).collect();
    let row: Vec<f32> = (0..r).map(|i| i as f32 * 1000.0).collect();
    let (xm, xr) = (up(&d, &m), up(&d, &row));
    let t = Layout {
        shape: vec![c, r],
        strides: vec![1, c as isize],
        offset: 0,
    };
    let bl = Layout {
        shape: vec![c, r],
        strides: vec![0, 1],
        offset: 0,
    };
    let out = d.alloc(DType::Float32, r * c).unwrap();
    run(
        &d,
        &bin(B::Add, DType::Float32),
        &[c, r],
        vec![op(&xm, t), op(&xr, bl)],
        vec![op(&out, Layout::contiguous(&[c, r]))],
        vec![],
    );
    let got: Vec<f32> = down(&d, &out);
    for i in 0..c {
        for j in 0..r {
            assert_eq!(got[i * r + j], m[j * c + i] + row[j], "({i}, {j})");
        }
    }
    // Packed uint8 (1 byte per element: 300 KB) wrapping add.
    let n8 = 300_001;
    let u: Vec<u8> = (0..n8).map(|i| (i % 251) as u8).collect();
    let xu = up(&d, &u);
    let zu = d.alloc(DType::UInt8, n8).unwrap();
    let l8 = Layout::contiguous(&[n8]);
    run(
        &d,
        &bin(B::Add, DType::UInt8),
        &[n8],
        vec![op(&xu, l8.clone()), op(&xu, l8.clone())],
        vec![op(&zu, l8)],
        vec![],
    );
    let got: Vec<u8> = down(&d, &zu);
    assert!(got.iter().zip(&u).all(|(g, v)| *g == v.wrapping_add(*v)));
    // A kernel reading its index (arange): every piece is rebased.
    let f = DType::Float64;
    if d.supports_dtype(f).is_ok() {
        let body = Expr::binary(
            B::Add,
            Expr::param(0, f),
            Expr::binary(B::Mul, Expr::index().cast(f), Expr::param(1, f)),
        )
        .cast(DType::Float32);
        let k = Kernel::map("arange", vec![], vec![f, f], body);
        let za = d.alloc(DType::Float32, n).unwrap();
        run(
            &d,
            &k,
            &[n],
            vec![],
            vec![op(&za, Layout::contiguous(&[n]))],
            vec![Scalar::Float64(-3.0), Scalar::Float64(2.0)],
        );
        let got: Vec<f32> = down(&d, &za);
        assert!(got
            .iter()
            .enumerate()
            .all(|(i, g)| *g == (-3.0 + 2.0 * i as f64) as f32));
    }
    // A slice read from the middle of a buffer past the cap.
    let mid = d.read(&x, 70_000, 3).unwrap();
    assert_eq!(
        f32::vec_from_bytes(&mid),
        vec![70_000.0, 70_001.0, 70_002.0]
    );
}

#[test]
fn reductions_full_and_axis() {
    let d = small_or_skip!();
    let f = DType::Float32;
    let sum = ReduceKernel::simple("sum", f, f, B::Add, Scalar::Float32(0.0), f);
    let (r, c) = (400usize, 300usize);
    let v: Vec<f32> = (0..r * c).map(|i| (i % 13) as f32).collect();
    let x = up(&d, &v);
    let red = |out_shape: &[usize], red: &[usize], xl: Layout| -> Vec<f32> {
        let n: usize = out_shape.iter().product();
        let o = d.alloc(f, n).unwrap();
        d.reduce(&ReductionCall {
            kernel: &sum,
            out_shape: out_shape.to_vec(),
            reduce_shape: red.to_vec(),
            inputs: vec![op(&x, xl)],
            output: op(&o, Layout::contiguous(out_shape)),
            params: vec![],
            extra_outputs: vec![],
        })
        .unwrap();
        down(&d, &o)
    };
    let total: f32 = v.iter().sum();
    assert_eq!(
        red(&[], &[r * c], Layout::contiguous(&[r * c])),
        vec![total]
    );
    // Rows (inner axis) and columns (outer axis: out axis first, then the reduced one).
    let rows = red(&[r], &[c], Layout::contiguous(&[r, c]));
    for i in 0..r {
        assert_eq!(
            rows[i],
            v[i * c..(i + 1) * c].iter().sum::<f32>(),
            "row {i}"
        );
    }
    let cols = red(
        &[c],
        &[r],
        Layout {
            shape: vec![c, r],
            strides: vec![1, c as isize],
            offset: 0,
        },
    );
    for j in 0..c {
        assert_eq!(
            cols[j],
            (0..r).map(|i| v[i * c + j]).sum::<f32>(),
            "col {j}"
        );
    }
    // A slice of the big buffer that fits one window.
    let s = red(
        &[],
        &[1000],
        Layout {
            shape: vec![1000],
            strides: vec![1],
            offset: 90_000,
        },
    );
    assert_eq!(s, vec![v[90_000..91_000].iter().sum::<f32>()]);
}

#[test]
fn sorts_rows_and_long_rows_with_positions() {
    // The bitonic sort at these lengths, then the radix sort forced for every row.
    sorts_rows_body();
    cupy_wgpu::with_sort_radix_min(1, sorts_rows_body);
}

fn sorts_rows_body() {
    let d = small_or_skip!();
    // One long row (400 KB): blocks and merge-splits; argsort positions stable.
    let n = 100_000;
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as u64 * 2_654_435_761) % 1000) as f32 - 500.0)
        .collect();
    let mut want: Vec<(f32, i64)> = v.iter().copied().zip(0..).collect();
    want.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    let k = up(&d, &v);
    let pos: Vec<i64> = (0..n as i64).collect();
    let p = up(&d, &pos);
    let l = Layout::contiguous(&[1, n]);
    d.sort(&SortCall {
        keys: op(&k, l.clone()),
        values: Some(op(&p, l)),
        values_are_positions: true,
        source: None,
        discard_keys: false,
    })
    .unwrap();
    let (gk, gp): (Vec<f32>, Vec<i64>) = (down(&d, &k), down(&d, &p));
    assert!(gk.iter().zip(&want).all(|(g, w)| *g == w.0));
    assert!(
        gp.iter().zip(&want).all(|(g, w)| *g == w.1),
        "stable positions"
    );
    // Many short rows: groups of rows.
    let (b, m) = (50usize, 3000usize);
    let v: Vec<i32> = (0..b * m)
        .map(|i| ((i * 7919) % 10007) as i32 - 5000)
        .collect();
    let k = up(&d, &v);
    d.sort(&SortCall {
        keys: op(&k, Layout::contiguous(&[b, m])),
        values: None,
        values_are_positions: false,
        source: None,
        discard_keys: false,
    })
    .unwrap();
    let got: Vec<i32> = down(&d, &k);
    for r in 0..b {
        let mut w = v[r * m..(r + 1) * m].to_vec();
        w.sort();
        assert_eq!(&got[r * m..(r + 1) * m], &w[..], "row {r}");
    }
}
