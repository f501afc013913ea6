//! What the CUDA and HIP backends can run, answered without a device: the C++ emitter's
//! verdict (shared by both). Used for `docs/api-coverage.md`.

use crate::backend::Primitive;
use crate::dtype::DType;
use crate::kernel::cpp::{self, ElementwiseClass, ElementwiseSpec, Flavor, ReduceSpec};
use crate::kernel::ir::{Kernel, ReduceKernel};

/// `Ok` when the C++ emitter accepts `k` as a contiguous elementwise launch.
///
/// # Errors
/// The emitter's refusal, as text.
pub fn check_kernel(k: &Kernel, flavor: Flavor) -> Result<(), String> {
    k.validate().map_err(|e| e.to_string())?;
    let spec = ElementwiseSpec {
        ndim: 1,
        class: ElementwiseClass::Contiguous,
        index64: false,
    };
    cpp::emit_elementwise(k, &spec, flavor)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `Ok` when the C++ emitter accepts `k` as a one-axis reduction.
///
/// # Errors
/// The emitter's refusal, as text.
pub fn check_reduction(k: &ReduceKernel, flavor: Flavor) -> Result<(), String> {
    let spec = ReduceSpec {
        out_ndim: 1,
        red_ndim: 1,
        index64: false,
    };
    cpp::emit_reduce(k, &spec, flavor)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The primitives of the CUDA and HIP backends: cuBLAS/rocBLAS GEMM for float16, bfloat16,
/// float32, float64, complex64 and complex128; the hip-kernels/ scan for every dtype and radix
/// sort for every non-complex dtype (no complex instantiation); raw kernels in CUDA/HIP C++.
///
/// # Errors
/// Why not, as text.
pub fn check_primitive(primitive: Primitive, dtype: DType) -> Result<(), String> {
    match primitive {
        Primitive::Gemm => match dtype {
            DType::Float16
            | DType::BFloat16
            | DType::Float32
            | DType::Float64
            | DType::Complex64
            | DType::Complex128 => Ok(()),
            d => Err(format!("BLAS GEMM has no {d} routine")),
        },
        Primitive::Sort if dtype.is_complex() => {
            Err("the GPU radix sort (hip-kernels/) has no complex instantiation".into())
        }
        Primitive::Sort | Primitive::Scan | Primitive::RawKernel | Primitive::ExternalMemory => {
            Ok(())
        }
        // Dense factorizations: cuSOLVER on cuda (eig, and a missing libcusolver, fall back),
        // elsewhere the cpu backend's faer through a host round trip (the "hybrid" of
        // docs/backends.md); NumPy promotes integers.
        Primitive::Linalg => match dtype {
            DType::Float16 | DType::BFloat16 => {
                Err("array type float16 is unsupported in linalg".into())
            }
            _ => Ok(()),
        },
        Primitive::Fft => fft_precision(dtype),
    }
}

/// The FFT primitive's answer for operands of `dtype` on every backend that has one: the
/// transform runs in complex64 (float16, float32, complex64 operands) or complex128 (every other
/// numeric dtype, as NumPy promotes them), both implemented; bfloat16 has no NumPy loop.
///
/// # Errors
/// Why not, as text.
pub fn fft_precision(dtype: DType) -> Result<(), String> {
    match dtype {
        DType::BFloat16 => Err("numpy.fft has no bfloat16 loop".into()),
        _ => Ok(()),
    }
}

/// The message of a caught panic (`String` or `&str` payloads; otherwise "panic").
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}
