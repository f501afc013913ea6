//! Refusals: dtypes the adapter lacks, complex.

use super::*;

#[test]
fn refusals_without_features_and_complex() {
    assert_eq!(
        dtype_refusal(wgpu::Features::empty(), DType::Float64).unwrap(),
        "float64 on a wgpu adapter without SHADER_F64"
    );
    assert!(dtype_refusal(wgpu::Features::empty(), DType::Int64)
        .unwrap()
        .contains("SHADER_INT64"));
    assert!(dtype_refusal(wgpu::Features::SHADER_F64, DType::Float64).is_none());
    assert!(dtype_refusal(wgpu::Features::empty(), DType::Float32).is_none());
    assert!(dtype_refusal(wgpu::Features::all(), DType::Complex64).is_some());
    let d = dev_or_skip!();
    let e = d.alloc(DType::Complex128, 4).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DTypeNotSupported {
                dtype: DType::Complex128,
                ..
            }
        ),
        "{e}"
    );
    let info = d.info();
    eprintln!(
        "device {} software={} details={}",
        info.label(),
        info.software,
        info.details
    );
}
