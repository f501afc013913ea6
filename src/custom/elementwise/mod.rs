//! `cupy.ElementwiseKernel` and `cupy.ReductionKernel`: CuPy's kernel strings, parsed into the
//! kernel IR by [`cupy_core::kernel::lang`] and run on every backend (CuPy's own run only on
//! CUDA/HIP).
//!
//! ```
//! use cupy::ElementwiseKernel;
//! # fn main() -> cupy::Result<()> {
//! let squared_diff = ElementwiseKernel::new(
//!     "float32 x, float32 y",
//!     "float32 z",
//!     "z = (x - y) * (x - y)",
//!     "squared_diff",
//! )?;
//! let x = cupy::arange(5.0f32)?;
//! let y = cupy::from_slice(&[1.0f32], &[1])?;
//! let z = squared_diff.call(&[(&x).into(), (&y).into()])?;
//! assert_eq!(z.to_vec::<f32>()?, vec![1.0, 0.0, 1.0, 4.0, 9.0]);
//! # Ok(()) }
//! ```
//!
//! # Arguments and types (as CuPy)
//! - Arguments are [`Arg`]s: arrays, Rust numbers (weak scalars) or typed [`Scalar`](cupy_core::scalar::Scalar)s.
//! - A placeholder type (`T`) is bound by the first *array* argument declared with it; then by
//!   `out` arrays; then by scalar arguments (a weak float is `float64`, a weak int `int64`).
//!   Two arrays binding one placeholder to different dtypes is a [`Error::TypeError`].
//! - An array argument of a concretely typed parameter (`float32 x`) must have that dtype, raw
//!   or not: another dtype (a float64 or an int32 array for `float32 x`) is a
//!   [`Error::TypeError`] naming the kernel, the parameter and both dtypes (CuPy's "Type is
//!   mismatched"), never a silent cast. Scalar arguments are cast to the parameter's type (a
//!   weak scalar that does not fit an integer type is a [`Error::ScalarOverflow`]).
//! - Non-raw array arguments and `out` arrays broadcast together; that shape is the iteration
//!   space (`i` runs over it in C order, `_ind.size()` is its size). With no such array, pass
//!   `size` to [`ElementwiseKernel::call_with`].
//! - `raw` arguments are indexed by the flat C-order element number of the array (`x[j]`);
//!   non-contiguous raw arrays are made contiguous first. Reading past the end is the kernel
//!   author's bug (undefined on GPUs, as in CuPy). `x.size()` is a raw array's element count.
//! - **Raw writes** (`y[j] = v`, `y[j] += v`) go to `raw` outputs and `raw` inputs alike, in
//!   place. A write outside `0..y.size()` is dropped on every backend (CuPy: undefined
//!   behaviour). A compound write reads, combines and writes back: it is not atomic, so
//!   elements that update one raw element race (as in CuPy). When several elements write one
//!   raw element, one of the values wins (the last element's on the cpu backend).
//! - A `raw` output without `out` is allocated with the iteration shape and filled with zeros
//!   (CuPy: uninitialised, and it requires `size`). A written raw array that is not
//!   C-contiguous is written through a contiguous copy, copied back after the launch. Any
//!   other argument that shares memory with a written raw array is copied first, so it reads
//!   the values from before the launch.
//! - Outputs the operation reads (`y += x`) are read from the `out` array passed, or from zeros
//!   when none is (CuPy would read uninitialised memory).

mod bind;
mod launch;
mod options;
mod source;

use crate::array::Array;
use crate::math::ufunc::Arg;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::{parse_params, LoweredElementwise, ParamSpec};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bind::LoweringKey;
pub(crate) use options::{check_options, option_defines};
pub use options::{ElementwiseArgs, ElementwiseOptions};

/// CuPy's `ElementwiseKernel`: a C-like operation run once per element, on every backend.
///
/// The strings are parsed when the kernel is built (syntax errors surface here) and lowered to
/// the IR per distinct argument signature (cached in the kernel; the backend caches the
/// compiled code in memory and on disk, keyed by the IR, so editing a string never reuses a
/// stale binary).
pub struct ElementwiseKernel {
    ins: Vec<ParamSpec>,
    outs: Vec<ParamSpec>,
    operation: String,
    name: String,
    preamble: String,
    no_return: bool,
    /// Compiler options (`options=`).
    options: Vec<String>,
    /// CuPy's `loop_prep` and `after_loop` code.
    loop_prep: String,
    after_loop: String,
    cache: Mutex<HashMap<LoweringKey, Arc<LoweredElementwise>>>,
}
routine!(
    ElementwiseKernel,
    CustomKernels,
    notes: "CuPy's strings parsed to the IR; raw outputs and scatter writes (bounds-checked); complex<T> math on every backend"
);

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElementwiseKernel")
            .field("name", &self.name)
            .field("in_params", &self.ins)
            .field("out_params", &self.outs)
            .finish()
    }
}

impl ElementwiseKernel {
    /// `cupy.ElementwiseKernel(in_params, out_params, operation, name)`.
    ///
    /// # Errors
    /// [`Error::Parse`] for a malformed parameter list or operation (with line, column and a
    /// caret); [`Error::InvalidArgument`] for a name that is not a C identifier or a name
    /// declared twice.
    pub fn new(in_params: &str, out_params: &str, operation: &str, name: &str) -> Result<Self> {
        Self::new_with(
            in_params,
            out_params,
            operation,
            name,
            ElementwiseOptions::default(),
        )
    }

    /// CuPy's whole constructor: `ElementwiseKernel(in_params, out_params, operation, name,
    /// reduce_dims, options, preamble, loop_prep, after_loop, no_return)`, the keywords in
    /// `opts`. Needed when the operation uses what a keyword provides (a `-D` macro, a preamble
    /// function) and every type is concrete: such kernels are checked when built, so the
    /// `with_*` forms after [`ElementwiseKernel::new`] would come too late.
    ///
    /// # Errors
    /// As [`ElementwiseKernel::new`], [`ElementwiseKernel::with_options`] and the parts'
    /// parse errors.
    pub fn new_with(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        opts: ElementwiseOptions<'_>,
    ) -> Result<Self> {
        super::check_identifier("ElementwiseKernel", name)?;
        let ins = parse_params(name, "in_params", in_params)?;
        let outs = parse_params(name, "out_params", out_params)?;
        if let Some(p) = outs.iter().find(|p| ins.iter().any(|q| q.name == p.name)) {
            return Err(Error::invalid(
                name,
                format!("{} is declared in both in_params and out_params", p.name),
            ));
        }
        let k = ElementwiseKernel {
            ins,
            outs,
            operation: operation.into(),
            name: name.into(),
            preamble: opts.preamble.into(),
            no_return: opts.no_return,
            options: check_options(name, opts.options)?,
            loop_prep: opts.loop_prep.into(),
            after_loop: opts.after_loop.into(),
            cache: Mutex::new(HashMap::new()),
        };
        k.check_syntax()?;
        Ok(k)
    }

    /// Sets the `preamble`: helper functions the operation may call (inlined).
    ///
    /// # Errors
    /// [`Error::Parse`] if the preamble or the operation with it does not parse.
    pub fn with_preamble(mut self, preamble: &str) -> Result<Self> {
        self.preamble = preamble.into();
        self.cache.lock().expect("kernel cache").clear();
        self.check_syntax()?;
        Ok(self)
    }

    /// CuPy's `reduce_dims`: accepted for compatibility; cupy-rs always merges contiguous
    /// dimensions (the flat index `i` is unaffected).
    pub fn with_reduce_dims(self, _reduce_dims: bool) -> Self {
        self
    }

    /// CuPy's `options=` (compiler flags). `-DNAME=VALUE` / `-DNAME` (and `--define-macro`)
    /// define a macro for the kernel's code on every backend, as the flag does for NVRTC in
    /// CuPy. `--use_fast_math`, `-std=...` and `-O0`..`-O3` are accepted and have no effect:
    /// the code each backend compiles is generated from the kernel's IR (NumPy's accuracy, one
    /// language level), not from the kernel's text. Anything else (include paths, architecture
    /// flags) is refused.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a flag that is not taken.
    pub fn with_options(mut self, options: &[&str]) -> Result<Self> {
        self.options = check_options(&self.name, options)?;
        self.cache.lock().expect("kernel cache").clear();
        self.check_syntax()?;
        Ok(self)
    }

    /// The compiler options set with [`ElementwiseKernel::with_options`].
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// CuPy's `loop_prep`: code run before the operation, whose declarations the operation
    /// sees (`T scale = 2;`). CuPy runs it once per GPU thread before the thread's loop over
    /// its elements, and launches one thread per element; cupy-rs runs it once per element
    /// on every backend (its GPU threads loop over several elements, where per-thread state
    /// would depend on the launch; docs/custom-kernels.md).
    ///
    /// # Errors
    /// [`Error::Parse`] (part `loop_prep`) if it does not parse with the operation.
    pub fn with_loop_prep(mut self, code: &str) -> Result<Self> {
        self.loop_prep = code.into();
        self.cache.lock().expect("kernel cache").clear();
        self.check_syntax()?;
        Ok(self)
    }

    /// CuPy's `after_loop`: code run after the operation, which sees the operation's outputs
    /// and the declarations of `loop_prep`. CuPy runs it once per GPU thread after its loop;
    /// cupy-rs runs it for each element (see [`ElementwiseKernel::with_loop_prep`]).
    ///
    /// # Errors
    /// [`Error::Parse`] (part `after_loop`) if it does not parse with the operation.
    pub fn with_after_loop(mut self, code: &str) -> Result<Self> {
        self.after_loop = code.into();
        self.cache.lock().expect("kernel cache").clear();
        self.check_syntax()?;
        Ok(self)
    }

    /// CuPy's `no_return`: the call returns no arrays.
    pub fn with_no_return(mut self, no_return: bool) -> Self {
        self.no_return = no_return;
        self
    }

    /// The kernel name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the kernel on the inputs and returns its single output.
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call_with`]; [`Error::InvalidArgument`] if the kernel has other
    /// than one output or `no_return` is set.
    pub fn call(&self, args: &[Arg<'_>]) -> Result<Array> {
        if self.outs.len() != 1 || self.no_return {
            return Err(Error::invalid(
                &self.name,
                format!(
                    "call() returns one output; this kernel has {}{} (use call_with)",
                    self.outs.len(),
                    if self.no_return { " and no_return" } else { "" }
                ),
            ));
        }
        Ok(self.call_with(args, &[], None)?.remove(0))
    }

    /// `kernel(*args, out=..., size=..., block_size=...)`: [`ElementwiseKernel::call_with`]
    /// with CuPy's keywords in one struct. `block_size` (threads per block) must be a power of
    /// two from 1 to 1024. On cuda/hip the kernel is launched with blocks of that many threads
    /// (compiled with `__launch_bounds__` for it above 256; a block larger than the kernel's
    /// registers and shared memory allow is an error, not a failed launch); on wgpu it is the
    /// workgroup size, within the adapter's `max_compute_workgroup_size_x` and
    /// `max_compute_invocations_per_workgroup`; the cpu backend has no blocks and ignores it.
    /// Results never depend on it.
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call_with`]; [`Error::InvalidArgument`] for a block size that is
    /// not a power of two from 1 to 1024, or that the device or kernel cannot launch (the
    /// message names the limit).
    pub fn call_args(&self, args: &[Arg<'_>], kw: ElementwiseArgs<'_>) -> Result<Vec<Array>> {
        if let Some(b) = kw.block_size {
            if !(b.is_power_of_two() && b <= 1024) {
                return Err(Error::invalid(
                    &self.name,
                    format!("block_size must be a power of two from 1 to 1024, got {b}"),
                ));
            }
        }
        self.launch(args, kw.out, kw.size, kw.block_size)
    }

    /// The IR kernel a call with these arguments runs (for inspection, and for compiling it
    /// ahead of time, e.g. with hipRTC): inputs are the non-raw array arguments followed by the
    /// outputs the operation reads; params the scalar arguments (and `_ind.size()`).
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call_with`], without the shape and device checks.
    pub fn ir(&self, args: &[Arg<'_>], out: &[&Array]) -> Result<cupy_core::kernel::ir::Kernel> {
        let b = self.bind(args, out)?;
        Ok(self.lowered(&b)?.kernel.clone())
    }
}
