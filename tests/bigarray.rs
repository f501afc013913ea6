//! Arrays past one storage binding on wgpu (llvmpipe's cap is 128 MiB): a 200 MiB float32 array
//! made, added, summed, sliced and read back, against closed-form values. The sort of arrays
//! past the cap is tested at a small cap in cupy-wgpu (`backend::bigarray`): a 200 MiB bitonic
//! sort is too slow on llvmpipe for CI.

use crate::common;
use cupy::{Array, BackendKind, DType};

#[test]
fn float32_200mib_add_sum_slice_on_wgpu() {
    for dev in common::backends() {
        if dev.kind() != BackendKind::Wgpu {
            continue;
        }
        let n = 200usize << 18; // 200 MiB of float32
        let a = Array::arange_on(&dev, 0.0, n as f64, 1.0, DType::Float32).unwrap();
        let want = |i: usize| i as f32; // arange's float32 values (rounded past 2^24)
                                        // add: every element
        let c = (&a + &a).unwrap();
        let got = c.to_vec::<f32>().unwrap();
        assert_eq!(got.len(), n);
        let bad = (0..n).find(|&i| got[i] != 2.0 * want(i));
        assert_eq!(bad, None, "a + a");
        drop(got);
        // sum against the float64 sum of the same float32 values
        let exact: f64 = (0..n).map(|i| want(i) as f64).sum();
        let s = a.sum().unwrap().to_vec::<f32>().unwrap()[0] as f64;
        assert!(((s - exact) / exact).abs() < 1e-5, "sum {s} vs {exact}");
        // a strided slice across the windows, summed, and a slice read back
        let v = a.slice(&cupy::s![1000..;7]).unwrap();
        let exact: f64 = (1000..n).step_by(7).map(|i| want(i) as f64).sum();
        let s = v.sum().unwrap().to_vec::<f32>().unwrap()[0] as f64;
        assert!(
            ((s - exact) / exact).abs() < 1e-5,
            "slice sum {s} vs {exact}"
        );
        let mid = (128usize << 18) - 2; // straddles the 128 MiB binding
        let w = a
            .slice(&cupy::s![mid as isize..(mid + 4) as isize])
            .unwrap();
        let w2 = (&w + 1.0f32).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(
            w2,
            (mid..mid + 4).map(|i| want(i) + 1.0).collect::<Vec<_>>()
        );
    }
}
