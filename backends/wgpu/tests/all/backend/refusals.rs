//! Refusals: dtypes the adapter lacks (complex128 needs SHADER_F64, as float64).

use super::*;

#[test]
fn refusals_without_features() {
    assert_eq!(
        dtype_refusal(wgpu::Features::empty(), DType::Float64).unwrap(),
        "float64 on a wgpu adapter without SHADER_F64"
    );
    assert!(dtype_refusal(wgpu::Features::empty(), DType::Int64)
        .unwrap()
        .contains("SHADER_INT64"));
    assert!(dtype_refusal(wgpu::Features::SHADER_F64, DType::Float64).is_none());
    assert!(dtype_refusal(wgpu::Features::empty(), DType::Float32).is_none());
    assert!(dtype_refusal(wgpu::Features::empty(), DType::Complex64).is_none());
    assert_eq!(
        dtype_refusal(wgpu::Features::empty(), DType::Complex128).unwrap(),
        "complex128 on a wgpu adapter without SHADER_F64"
    );
    assert!(dtype_refusal(wgpu::Features::SHADER_F64, DType::Complex128).is_none());
    let d = dev_or_skip!();
    // complex128 storage where the adapter has SHADER_F64 (llvmpipe has it), refused without.
    match d.alloc(DType::Complex128, 4) {
        Ok(_) => {}
        Err(e) => assert!(
            matches!(
                e,
                Error::DTypeNotSupported {
                    dtype: DType::Complex128,
                    ..
                }
            ),
            "{e}"
        ),
    }
    let info = d.info();
    eprintln!(
        "device {} software={} details={}",
        info.label(),
        info.software,
        info.details
    );
}
