//! Checks of the sorting family's IR kernels without a GPU: each validates, the C++ emitter
//! takes every one for every dtype (the complex ones run only on cuda/hip), hipRTC compiles
//! them (with `CUPY_REQUIRE_HIP=1`, as CI sets it); and on the cpu backend the complex sort
//! composed from real sorts (what cuda/hip run) equals the cpu's own complex sort.

use super::kernels::{
    gather_kernel, row_differs_kernel, run_starts_kernel, search_kernel, singletons_kernel, Find,
};
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::kernel::cpp::{prelude, Flavor};
use cupy_core::kernel::ir::Kernel;
use cupy_core::layout::Layout;

/// Every elementwise kernel of the family for every dtype.
fn every_kernel() -> Vec<Kernel> {
    let mut v = vec![];
    for &t in DType::ALL.iter() {
        for find in [
            Find::Position { right: false },
            Find::Position { right: true },
            Find::Member { invert: false },
            Find::Member { invert: true },
        ] {
            v.push(search_kernel(t, find));
        }
        v.push(gather_kernel(t));
        v.push(super::kernels::take_rows_kernel(t));
        v.push(run_starts_kernel(t, true));
        v.push(run_starts_kernel(t, false));
        v.push(singletons_kernel(t));
        v.push(row_differs_kernel(t));
    }
    for t in [DType::Complex64, DType::Complex128] {
        v.extend(super::sort::complex_key_kernels(t));
    }
    for k in &v {
        k.validate().unwrap_or_else(|e| panic!("{}: {e}", k.name));
    }
    v
}

fn sources(flavor: Flavor) -> Vec<String> {
    crate::testing::elementwise_cpp_sources(every_kernel(), flavor)
}

#[test]
fn sorting_kernels_emit_cpp() {
    assert!(sources(Flavor::Cuda).len() > 100);
}

#[test]
fn hiprtc_compiles_every_sorting_kernel() {
    if std::env::var_os("CUPY_REQUIRE_HIP").is_none() {
        eprintln!("NOTICE: CUPY_REQUIRE_HIP is not set; sorting kernels not compiled with hipRTC");
        return;
    }
    let rtc = cupy_hip::result::Rtc::get()
        .unwrap_or_else(|e| panic!("CUPY_REQUIRE_HIP is set but hipRTC is not loadable: {e}"));
    let pre = prelude(Flavor::Hip);
    let opts = cupy_hip::kernels::compile_options("gfx90a");
    for (n, chunk) in sources(Flavor::Hip).chunks(48).enumerate() {
        let src = format!("{pre}{}", chunk.concat());
        if let Err(e) = rtc.compile(&src, &format!("sorting_{n}.hip"), &opts) {
            panic!("hipRTC refused sorting module {n}: {}", e.text);
        }
    }
}

#[test]
fn composed_complex_sort_equals_native_on_cpu() {
    let dev = crate::device::Device::get(crate::BackendKind::Cpu, 0).unwrap();
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let parts: Vec<(f64, f64)> = vec![
        (nan, nan),
        (1.0, 2.0),
        (1.0, nan),
        (nan, 1.0),
        (1.0, 1.0),
        (nan, -1.0),
        (-1.0, 5.0),
        (-3.0, nan),
        (inf, 0.0),
        (1.0, 1.0),
        (-inf, 2.0),
        (0.0, -0.0),
        (-0.0, 0.0),
        (nan, nan),
        (1.0, nan),
        (2.0, -1.0),
        (-0.0, 0.0),
        (0.0, 0.0),
    ];
    for t in [DType::Complex64, DType::Complex128] {
        let n = parts.len();
        let z: Vec<num_complex::Complex<f64>> = parts
            .iter()
            .map(|&(re, im)| num_complex::Complex::new(re, im))
            .collect();
        let c = Array::from_slice_on(&dev, &z, &[2, n / 2])
            .unwrap()
            .astype(t)
            .unwrap();
        let l = Layout::contiguous(&[2, n / 2]);
        let composed = super::sort::composed_complex_argsort("test", &c, &l).unwrap();
        let native = crate::argsort(&c).unwrap();
        assert_eq!(
            composed.to_vec::<i64>().unwrap(),
            native.to_vec::<i64>().unwrap(),
            "{t}"
        );
    }
}
