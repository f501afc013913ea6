//! What the wgpu backend can run, answered without a device: the WGSL emitter's verdict for an
//! adapter with `SHADER_F64` and `SHADER_INT64` (llvmpipe and the NVIDIA/AMD Vulkan drivers
//! have both). Used for `docs/api-coverage.md`.

use cupy_core::backend::Primitive;
use cupy_core::kernel::ir::{Kernel, ReduceKernel};
use cupy_core::kernel::wgsl::{
    self, BindingPlan, ElementwiseSpec, ReduceMode, ReduceSpec, WgslOptions,
};
use cupy_core::DType;

fn options() -> WgslOptions {
    WgslOptions {
        shader_f64: true,
        shader_int64: true,
        int64_atomics: true,
        fused_fma: true,
        device: "wgpu (an adapter with SHADER_F64 and SHADER_INT64)".into(),
    }
}

/// `Ok` when the emitter accepts `k` as a contiguous elementwise launch.
pub(crate) fn check_kernel(k: &Kernel) -> Result<(), String> {
    let spec = ElementwiseSpec {
        ndim: 1,
        contiguous: true,
        vec4: false,
        wide_int64: false,
        bindings: BindingPlan::distinct_for(k),
    };
    wgsl::emit_elementwise(k, &spec, &options())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `Ok` when the emitter accepts `k` as a one-axis reduction.
pub(crate) fn check_reduction(k: &ReduceKernel) -> Result<(), String> {
    let spec = ReduceSpec {
        out_ndim: 1,
        red_ndim: 1,
        mode: ReduceMode::ThreadPerOutput,
        partial: false,
        vec4: false,
        subgroup: false,
        wide_int64: false,
        bindings: BindingPlan::distinct(&k.inputs, &[k.output], &[]),
    };
    wgsl::emit_reduction(k, &spec, &options())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The wgpu primitives: the WGSL GEMM for float16/bfloat16 (float32 accumulation, one rounding),
/// float32, float64, complex64 and complex128, the WGSL scan and sort for every dtype (complex128 needs SHADER_F64, which the
/// assumed adapter has), raw WGSL kernels.
pub(crate) fn check_primitive(primitive: Primitive, dtype: DType) -> Result<(), String> {
    match primitive {
        Primitive::Gemm => match dtype {
            DType::Float16
            | DType::BFloat16
            | DType::Float32
            | DType::Float64
            | DType::Complex64
            | DType::Complex128 => Ok(()),
            d => Err(format!(
                "the wgpu GEMM kernel handles float16, bfloat16, float32, float64, complex64 and \
                 complex128, not {d}"
            )),
        },
        Primitive::Sort | Primitive::Scan | Primitive::RawKernel => Ok(()),
        Primitive::ExternalMemory => {
            Err("wgpu buffers have no address another library can use".into())
        }
        // shaders/fft.wgsl: complex64, and complex128 with SHADER_F64 (assumed here).
        Primitive::Fft => cupy_core::gpu::support::fft_precision(dtype),
        // Dense factorizations: native WGSL for real solve/inv/det/slogdet/cholesky/qr
        // (`linalg/`), the cpu backend's faer through a host round trip (the "hybrid" of
        // docs/backends.md) for the rest; NumPy promotes integers.
        Primitive::Linalg => match dtype {
            DType::Float16 | DType::BFloat16 => {
                Err("array type float16 is unsupported in linalg".into())
            }
            _ => Ok(()),
        },
    }
}
