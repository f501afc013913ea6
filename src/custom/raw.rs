//! `cupy.RawKernel` / `cupy.RawModule`: kernels written in the device's own language, launched
//! with an explicit grid and block.
//!
//! The source is backend-native (see [`crate::core::backend::NativeLanguage`]):
//!
//! | backend | language | compiled by |
//! | --- | --- | --- |
//! | cuda | CUDA C++ (`extern "C" __global__ void f(...)`) | NVRTC, for the device's exact `sm_XX` |
//! | hip | HIP C++ (`extern "C" __global__ void f(...)`) | hipRTC, for the device's `gfx` target |
//! | wgpu | WGSL (`@compute @workgroup_size(...) fn f(...)`) | naga / wgpu |
//! | cpu | none: launching returns [`Error::Unsupported`] (use `ElementwiseKernel`) | |
//!
//! Compiled modules are cached per device by (source, options) in memory, and for CUDA/HIP on
//! disk under `CUPY_CACHE_DIR` (default `~/.cache/cupy-rs`). Compilation happens at the first
//! launch on a device (as CuPy does); [`RawKernel::compile`] / [`RawModule::compile`] compile
//! eagerly to surface errors, which come back as [`Error::Compile`] with the compiler's log
//! (with line and column) and the source.
//!
//! # Arguments ([`KernelArg`])
//! - An array passes a pointer to its first element (the view's offset included) on CUDA/HIP,
//!   or binds as a storage buffer from that element on wgpu. The array must be C-contiguous
//!   (CuPy would pass the raw pointer of a strided view and let the kernel read the wrong
//!   elements; cupy-rs refuses with [`Error::InvalidArgument`]: pass `a.copy()`-style contiguous
//!   data). All arrays of one launch must be on one device ([`Error::DeviceMismatch`]).
//! - A scalar is passed **by value with its own dtype**: build it from a typed Rust value
//!   (`5i32` -> int32, `7u32` -> uint32, `2.0f32` -> float32, `2.0f64` -> float64, `true` ->
//!   bool, `half::f16` -> float16, `Complex<f32>` -> complex64) or a [`Scalar`]. It must match the
//!   kernel's parameter type exactly; nothing is converted. A weak ufunc [`Arg`] converts as CuPy
//!   converts Python scalars: integer -> int64, float -> float64, bool -> bool, complex ->
//!   complex128.
//! - On CUDA/HIP a scalar has its C size: bool 1 byte, float16/bfloat16 2 bytes (`__half`,
//!   `__nv_bfloat16` / `hip_bfloat16`), complex as two floats (`float2`/`double2`-like
//!   `struct { T re, im; }`).
//!
//! # The wgpu binding convention
//! WGSL has no kernel parameters, so arguments bind by position:
//!
//! - Array arguments, in argument order and counting arrays only, bind to `@group(0)
//!   @binding(0)`, `@binding(1)`, ... as storage buffers (`var<storage, read>` or
//!   `var<storage, read_write>` as the shader declares). The binding starts at the array's first
//!   element and ends at the end of its buffer, so `arrayLength(&x)` is the element count of a
//!   whole array. The view's offset in bytes must be a multiple of the adapter's
//!   `min_storage_buffer_offset_alignment` (usually 256; otherwise pass a contiguous copy).
//! - All scalar arguments, in order, are packed into one uniform buffer bound at
//!   `@group(0) @binding(n_arrays)`, laid out as a WGSL struct of the scalars' types (each
//!   member aligned to its size, the struct rounded up to 16 bytes), which the shader declares:
//!   `struct Params { a: f32, n: u32 }` + `@group(0) @binding(2) var<uniform> p: Params;` for
//!   `(x, y, 2.0f32, n as u32)`. A mismatch between the declared struct and the scalars passed is
//!   refused with the expected struct in the message.
//! - wgpu stores small types widened to 32-bit words, and raw WGSL sees those words: bool is `u32`
//!   (0/1), int8/int16 are `i32`, uint8/uint16 `u32`, float16/bfloat16 `f32` (holding a value of
//!   the type; a kernel writing one should round it). The same widening applies to scalars.
//!   int64/uint64/float64 are `i64`/`u64`/`f64` where the adapter has them.
//! - `grid` is the number of workgroups dispatched (`dispatch_workgroups(x, y, z)`); `block` must
//!   equal the entry point's `@workgroup_size` (it is fixed by the shader), and `shared_mem` must
//!   be 0 (declare `var<workgroup>` arrays instead). Compiler options are ignored.
//! - Only the bindings the entry point uses are bound; storage element types are checked against
//!   the arrays' (widened) dtypes.
//!
//! ```no_run
//! use cupy as cp;
//! # fn main() -> cp::Result<()> {
//! let x = cp::arange(1024.0f32)?;
//! let y = cp::ones_with(&[1024], cp::DType::Float32)?;
//! let k = cp::RawKernel::new(
//!     r#"extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned n) {
//!         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
//!         if (i < n) y[i] = a * x[i] + y[i];
//!     }"#,
//!     "saxpy",
//! );
//! k.launch(4, 256, &[(&x).into(), (&y).into(), 2.0f32.into(), 1024u32.into()])?;
//! # Ok(()) }
//! ```

use crate::math::ufunc::Arg;
use crate::{Array, Device, Error, Result, Scalar, WeakScalar};
use cupy_core::backend::{RawArg, RawLaunch};
use half::{bf16, f16};
use num_complex::Complex;
use std::sync::Arc;

/// A grid or block size: `(x, y, z)`, each at least 1. Built from one number (`256` is
/// `(256, 1, 1)`), a tuple of two or three, or an array of three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3([x, 1, 1])
    }
}
impl From<i32> for Dim3 {
    fn from(x: i32) -> Dim3 {
        Dim3([x.max(0) as u32, 1, 1])
    }
}
impl From<usize> for Dim3 {
    fn from(x: usize) -> Dim3 {
        Dim3([u32::try_from(x).unwrap_or(u32::MAX), 1, 1])
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3([x, y, 1])
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3([x, y, z])
    }
}
impl From<[u32; 3]> for Dim3 {
    fn from(v: [u32; 3]) -> Dim3 {
        Dim3(v)
    }
}

/// An argument of a raw kernel launch: an array or a typed scalar (see the module docs).
#[derive(Clone, Debug)]
pub enum KernelArg<'a> {
    /// A C-contiguous array, passed as a pointer to its first element / a storage binding.
    Array(&'a Array),
    /// A scalar passed by value with its dtype.
    Scalar(Scalar),
    /// A weak (untyped) scalar from a ufunc [`Arg`]: int64, float64, bool or complex128.
    Weak(WeakScalar),
}

impl<'a> From<&'a Array> for KernelArg<'a> {
    fn from(a: &'a Array) -> KernelArg<'a> {
        KernelArg::Array(a)
    }
}
impl<'a> From<&'a mut Array> for KernelArg<'a> {
    fn from(a: &'a mut Array) -> KernelArg<'a> {
        KernelArg::Array(a)
    }
}
impl From<Scalar> for KernelArg<'_> {
    fn from(s: Scalar) -> Self {
        KernelArg::Scalar(s)
    }
}
impl<'a> From<Arg<'a>> for KernelArg<'a> {
    fn from(a: Arg<'a>) -> KernelArg<'a> {
        match a {
            Arg::Array(x) => KernelArg::Array(x),
            Arg::Typed(s) => KernelArg::Scalar(s),
            Arg::Weak(w) => KernelArg::Weak(w),
        }
    }
}
macro_rules! typed_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for KernelArg<'_> {
            fn from(v: $t) -> Self {
                KernelArg::Scalar(Scalar::from(v))
            }
        }
    )*};
}
typed_arg!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f16,
    bf16,
    f32,
    f64,
    Complex<f32>,
    Complex<f64>
);

impl KernelArg<'_> {
    /// The scalar this argument passes (weak scalars take CuPy's Python-scalar dtypes).
    fn scalar(&self, op: &str, i: usize) -> Result<Option<Scalar>> {
        Ok(match self {
            KernelArg::Array(_) => None,
            KernelArg::Scalar(s) => Some(*s),
            KernelArg::Weak(WeakScalar::Bool(b)) => Some(Scalar::Bool(*b)),
            KernelArg::Weak(WeakScalar::Int(v)) => {
                Some(Scalar::Int64(i64::try_from(*v).map_err(|_| {
                    Error::invalid(
                        op,
                        format!(
                            "argument {i}: integer {v} does not fit int64; pass a typed scalar \
                             (e.g. {v}u64)"
                        ),
                    )
                })?))
            }
            KernelArg::Weak(WeakScalar::Float(v)) => Some(Scalar::Float64(*v)),
            KernelArg::Weak(WeakScalar::Complex(c)) => Some(Scalar::Complex128(*c)),
        })
    }
}

fn valid_name(op: &str, name: &str) -> Result<()> {
    super::check_identifier(op, name)
}

fn needs_native(device: &Device, op: &str) -> Result<()> {
    if device.backend().native_language().is_none() {
        return Err(Error::Unsupported {
            op: op.into(),
            backend: device.label(),
            reason: "RawKernel/RawModule need a GPU backend with native kernel source (CUDA C++ \
                     on cuda, HIP C++ on hip, WGSL on wgpu); for a kernel that runs on every \
                     backend, including the cpu, use ElementwiseKernel"
                .into(),
        });
    }
    Ok(())
}

/// `cupy.RawModule(code=..., options=...)`: a module of backend-native kernels; kernels are taken
/// out with [`RawModule::get_function`]. Cheap to clone.
#[derive(Clone, Debug)]
pub struct RawModule {
    code: Arc<str>,
    options: Arc<[String]>,
    name_expressions: Arc<[String]>,
}

impl RawModule {
    /// A module from source (CUDA C++, HIP C++ or WGSL for the device it will run on).
    pub fn new(code: impl Into<String>) -> RawModule {
        RawModule {
            code: Arc::from(code.into()),
            options: Arc::from(Vec::new()),
            name_expressions: Arc::from(Vec::new()),
        }
    }

    /// Compiler options (NVRTC/hipRTC flags such as `-DN=4`, `--use_fast_math`; ignored by wgpu).
    pub fn with_options(mut self, options: &[&str]) -> RawModule {
        self.options = options.iter().map(|s| s.to_string()).collect();
        self
    }

    /// CuPy's `name_expressions`: C++ expressions naming kernels of the module, typically a
    /// `__global__` function template's instances (`"my_sqrt<float>"`, `"my_sqrt<int>"`).
    /// The module is compiled with them (NVRTC's `nvrtcAddNameExpression`, hipRTC's
    /// `hiprtcAddNameExpression`), which instantiates the templates, and
    /// [`RawModule::get_function`] takes them as names: the kernel is the expression's lowered
    /// (mangled) name (`nvrtcGetLoweredName` / `hiprtcGetLoweredName`). CUDA and HIP only:
    /// wgpu refuses a module with name expressions (WGSL has no templates).
    pub fn with_name_expressions(mut self, names: &[&str]) -> RawModule {
        self.name_expressions = names.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The name expressions.
    pub fn name_expressions(&self) -> &[String] {
        &self.name_expressions
    }

    /// The source.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The compiler options.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// Compiles the module for `device` now (it is cached), to surface compile errors early.
    ///
    /// # Errors
    /// [`Error::Compile`] with the compiler log; [`Error::Unsupported`] on the cpu backend.
    pub fn compile(&self, device: &Device) -> Result<()> {
        needs_native(device, "RawModule")?;
        device
            .backend()
            .raw_compile(&self.code, &self.options, &self.name_expressions)
    }

    /// The kernel `name` of this module (`RawModule.get_function`): an `extern "C"` kernel's
    /// name, or one of the module's [name expressions](RawModule::with_name_expressions)
    /// (`"my_sqrt<float>"`). Compilation is deferred to the first launch on a device (or
    /// [`RawKernel::compile`]); a name missing from the module is reported then.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `name` is neither an identifier nor a name expression of
    /// the module.
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        if !self.name_expressions.iter().any(|n| n == name) {
            valid_name("RawModule.get_function", name)?;
        }
        Ok(RawKernel {
            code: self.code.clone(),
            name: name.into(),
            options: self.options.clone(),
            name_expressions: self.name_expressions.clone(),
        })
    }
}

/// `cupy.RawKernel(code, name, options)`: one backend-native kernel, launched with an explicit
/// grid and block (see the module docs for arguments and the wgpu binding convention). Cheap to
/// clone.
#[derive(Clone, Debug)]
pub struct RawKernel {
    code: Arc<str>,
    name: String,
    options: Arc<[String]>,
    /// The module's name expressions (see [`RawModule::with_name_expressions`]).
    name_expressions: Arc<[String]>,
}
routine!(
    RawKernel as "cupy.RawKernel / cupy.RawModule",
    CustomKernels,
    probe: |t| (t == cupy_core::DType::Float32)
        .then_some(crate::registry::Need::Primitive(cupy_core::backend::Primitive::RawKernel)),
    notes: "backend-native source: CUDA C++ (NVRTC), HIP C++ (hipRTC), WGSL (bindings by position); name_expressions on cuda and hip; cpu refuses"
);

impl RawKernel {
    /// The kernel `name` (the `extern "C" __global__` function, or the WGSL `@compute` entry
    /// point) of `code`.
    pub fn new(code: impl Into<String>, name: impl Into<String>) -> RawKernel {
        RawKernel {
            code: Arc::from(code.into()),
            name: name.into(),
            options: Arc::from(Vec::new()),
            name_expressions: Arc::from(Vec::new()),
        }
    }

    /// Compiler options (NVRTC/hipRTC flags; ignored by wgpu).
    pub fn with_options(mut self, options: &[&str]) -> RawKernel {
        self.options = options.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The kernel name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module source.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The compiler options.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    fn op(&self) -> String {
        format!("RawKernel {}", self.name)
    }

    /// Compiles the module for `device` now (cached), to surface compile errors early. On wgpu
    /// this validates the WGSL; the entry point is looked up at launch.
    ///
    /// # Errors
    /// [`Error::Compile`] with the compiler log; [`Error::Unsupported`] on the cpu backend.
    pub fn compile(&self, device: &Device) -> Result<()> {
        needs_native(device, &self.op())?;
        device
            .backend()
            .raw_compile(&self.code, &self.options, &self.name_expressions)
    }

    /// Launches on the device of the array arguments (the current device when there are none),
    /// with no dynamic shared memory: `kernel((grid,), (block,), args)` in CuPy.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] for arrays on different devices; [`Error::InvalidArgument`] for
    /// a non-contiguous array, a zero or oversized grid/block (or, on wgpu, a block other than
    /// the `@workgroup_size`, or mismatching bindings); [`Error::Compile`]; [`Error::Unsupported`]
    /// on the cpu backend; [`Error::Backend`] when the driver refuses the launch.
    pub fn launch(
        &self,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let op = self.op();
        let mut arrays = args.iter().filter_map(|a| match a {
            KernelArg::Array(x) => Some(*x),
            _ => None,
        });
        let device = match arrays.next() {
            Some(first) => {
                for a in arrays {
                    if a.device() != first.device() {
                        return Err(Error::DeviceMismatch {
                            op,
                            lhs: first.device().label(),
                            rhs: a.device().label(),
                        });
                    }
                }
                first.device().clone()
            }
            None => Device::current()?,
        };
        self.launch_with(&device, grid, block, 0, args)
    }

    /// Launches on `device` with `shared_mem` bytes of dynamic shared memory (CUDA/HIP; must be
    /// 0 on wgpu). Every array argument must live on `device`.
    ///
    /// # Errors
    /// As [`RawKernel::launch`].
    pub fn launch_with(
        &self,
        device: &Device,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        shared_mem: u32,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let op = self.op();
        let (grid, block) = (grid.into().0, block.into().0);
        let mut raw: Vec<RawArg<'_>> = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            match a {
                KernelArg::Array(x) => {
                    if x.device() != device {
                        return Err(Error::DeviceMismatch {
                            op,
                            lhs: device.label(),
                            rhs: x.device().label(),
                        });
                    }
                    if !x.is_c_contiguous() {
                        return Err(Error::invalid(
                            op,
                            format!(
                                "argument {i}: array of shape {:?} with strides {:?} is not \
                                 C-contiguous; a raw kernel sees only a pointer to the first \
                                 element, so pass a contiguous copy",
                                x.shape(),
                                x.strides()
                            ),
                        ));
                    }
                    raw.push(RawArg::Buffer {
                        buffer: x.buffer(),
                        offset: x.layout().offset,
                    });
                }
                other => {
                    let s = other.scalar(&op, i)?.expect("not an array");
                    raw.push(RawArg::Scalar(s));
                }
            }
        }
        needs_native(device, &op)?;
        if grid.contains(&0) || block.contains(&0) {
            return Err(Error::invalid(
                op,
                format!("grid {grid:?} and block {block:?} must be at least 1 in every dimension"),
            ));
        }
        let writes: Vec<&cupy_core::backend::Buffer> = raw
            .iter()
            .filter_map(|a| match a {
                cupy_core::backend::RawArg::Buffer { buffer, .. } => Some(*buffer),
                cupy_core::backend::RawArg::Scalar(_) => None,
            })
            .collect();
        crate::cuda::order::order(device, &[], &writes)?;
        let call = RawLaunch {
            source: &self.code,
            name: &self.name,
            options: &self.options,
            name_expressions: &self.name_expressions,
            grid,
            block,
            shared_mem,
            args: &raw,
        };
        crate::cuda::record::submit(device, crate::cuda::record::Call::Raw(&call))
    }
}
