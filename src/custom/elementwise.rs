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
//! - Arguments are [`Arg`]s: arrays, Rust numbers (weak scalars) or typed [`Scalar`]s.
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

use crate::array::{same_device, Array};
use crate::device::Device;
use crate::launch::{broadcast_all, Elementwise};
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::{
    lower_elementwise, parse_params, Binding, ElementwiseSource, LoweredElementwise, Name,
    ParamSpec, RawMeta, TypeSpec,
};
use cupy_core::layout::broadcast_shapes;
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::params::*;

/// Where a raw operand comes from.
#[derive(Clone, Copy, Debug)]
enum RawSrc {
    /// Input argument `k`.
    Arg(usize),
    /// `out_params` entry `k`.
    Out(usize),
}

/// One call's binding of names (see `ElementwiseKernel::bind`).
struct Bound {
    names: Vec<Name>,
    types: Vec<(String, DType)>,
    input_idx: Vec<usize>,
    /// Raw operands in `Binding::Raw` order.
    raw_src: Vec<RawSrc>,
    params: Vec<Scalar>,
    /// Per `out_params` entry: its dtype and whether it is `raw`.
    outs: Vec<(DType, bool)>,
}

/// What a lowering depends on: the bound names and the placeholder values.
type LoweringKey = (Vec<Name>, Vec<(String, DType)>);

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

    /// When every type is concrete, lowers once with every non-raw parameter bound as a scalar
    /// (the binding under which the most kernels are valid: a scalar may bound a loop, an
    /// array may not), so errors in the operation surface at construction. With placeholders,
    /// errors surface at the first call (as CuPy's do), since typing depends on the arguments.
    fn check_syntax(&self) -> Result<()> {
        let types: Vec<(String, DType)> = vec![];
        if self
            .ins
            .iter()
            .chain(&self.outs)
            .any(|p| matches!(p.ty, TypeSpec::Placeholder(_)))
        {
            return Ok(());
        }
        let mut names = vec![];
        let (mut np, mut nr) = (0, 0);
        for p in &self.ins {
            let dtype = type_of(&self.name, p, &types)?;
            let binding = if p.raw {
                nr += 1;
                Binding::Raw(nr - 1)
            } else {
                np += 1;
                Binding::Param(np - 1)
            };
            names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        let mut no = 0;
        for p in &self.outs {
            let binding = if p.raw {
                nr += 1;
                Binding::Raw(nr - 1)
            } else {
                no += 1;
                Binding::Output(no - 1)
            };
            names.push(Name {
                name: p.name.clone(),
                dtype: type_of(&self.name, p, &types)?,
                binding,
            });
        }
        lower_elementwise(&ElementwiseSource {
            name: &self.name,
            operation: &self.source_text(),
            preamble: &self.preamble_text(),
            names: &names,
            types: &types,
            size_param: Some(np),
        })
        .map(|_| ())
        .map_err(|e| self.remap(e))
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
    /// its elements; cupy-rs runs it for each element (the same results for code that computes
    /// values; state carried from one element of a thread to the next is not kept).
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

    /// The preamble lowered: the `-D` macros of the options, one `#define` a line, then the
    /// preamble.
    fn preamble_text(&self) -> String {
        format!("{}{}", option_defines(&self.options), self.preamble)
    }

    /// The code lowered: `loop_prep`, the operation and `after_loop`, each on its own lines
    /// (errors are mapped back to their part by [`ElementwiseKernel::remap`]).
    fn source_text(&self) -> String {
        if self.loop_prep.is_empty() && self.after_loop.is_empty() {
            return self.operation.clone();
        }
        let mut t = String::new();
        if !self.loop_prep.is_empty() {
            t.push_str(&self.loop_prep);
            t.push_str(";\n");
        }
        t.push_str(&self.operation);
        if !self.after_loop.is_empty() {
            t.push_str(";\n");
            t.push_str(&self.after_loop);
        }
        t
    }

    /// Maps a parse error in [`ElementwiseKernel::source_text`] to its part and line.
    fn remap(&self, e: Error) -> Error {
        match e {
            Error::Parse {
                kernel,
                part,
                line,
                column,
                msg,
                snippet,
            } if part == "preamble" => Error::Parse {
                kernel,
                part,
                line: line.saturating_sub(option_defines(&self.options).matches('\n').count()),
                column,
                msg,
                snippet,
            },
            Error::Parse {
                kernel,
                part,
                mut line,
                column,
                msg,
                snippet,
            } if part == "operation" => {
                let lines = |t: &str| t.matches('\n').count() + 1;
                let prep = if self.loop_prep.is_empty() {
                    0
                } else {
                    lines(&self.loop_prep)
                };
                let op = lines(&self.operation);
                let part = if line <= prep {
                    "loop_prep".to_string()
                } else if line <= prep + op {
                    line -= prep;
                    part
                } else {
                    line -= prep + op;
                    "after_loop".to_string()
                };
                Error::Parse {
                    kernel,
                    part,
                    line,
                    column,
                    msg,
                    snippet,
                }
            }
            e => e,
        }
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

    /// Binds the arguments: resolves placeholders, assigns each name its dtype and binding,
    /// converts scalar arguments to parameters. Arrays are not touched.
    fn bind(&self, args: &[Arg<'_>], out: &[&Array]) -> Result<Bound> {
        let op = self.name.as_str();
        check_arg_count(op, self.ins.len(), args.len())?;
        if !out.is_empty() && out.len() != self.outs.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "takes {} out arrays (or none), got {}",
                    self.outs.len(),
                    out.len()
                ),
            ));
        }
        let types = resolve_types(op, &self.ins, args, &self.outs, out)?;
        let mut b = Bound {
            names: Vec::with_capacity(self.ins.len() + self.outs.len()),
            types: vec![],
            input_idx: vec![],
            raw_src: vec![],
            params: vec![],
            outs: vec![],
        };
        for (k, (p, a)) in self.ins.iter().zip(args).enumerate() {
            let dtype = type_of(op, p, &types)?;
            let binding = match a {
                Arg::Array(_) if p.raw => {
                    b.raw_src.push(RawSrc::Arg(k));
                    Binding::Raw(b.raw_src.len() - 1)
                }
                Arg::Array(_) => {
                    b.input_idx.push(k);
                    Binding::Input(b.input_idx.len() - 1)
                }
                _ if p.raw => {
                    return Err(Error::invalid(
                        op,
                        format!("raw parameter {} needs an array, got a scalar", p.name),
                    ))
                }
                a => {
                    b.params.push(scalar_value(op, a, dtype)?);
                    Binding::Param(b.params.len() - 1)
                }
            };
            b.names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        for (k, p) in self.outs.iter().enumerate() {
            let dtype = type_of(op, p, &types)?;
            if let Some(o) = out.get(k) {
                if o.dtype() != dtype {
                    return Err(Error::TypeError {
                        op: op.into(),
                        dtypes: vec![dtype, o.dtype()],
                        msg: format!(
                            "out array for {} is {} but the kernel writes {dtype}",
                            p.name,
                            o.dtype()
                        ),
                    });
                }
            }
            let binding = if p.raw {
                b.raw_src.push(RawSrc::Out(k));
                Binding::Raw(b.raw_src.len() - 1)
            } else {
                Binding::Output(b.outs.iter().filter(|o| !o.1).count())
            };
            b.outs.push((dtype, p.raw));
            b.names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        b.types = types;
        Ok(b)
    }

    /// Lowers a binding to the IR (cached per names and placeholder values).
    fn lowered(&self, b: &Bound) -> Result<Arc<LoweredElementwise>> {
        let key = (b.names.clone(), b.types.clone());
        if let Some(l) = self.cache.lock().expect("kernel cache").get(&key) {
            return Ok(l.clone());
        }
        let l = Arc::new(
            lower_elementwise(&ElementwiseSource {
                name: &self.name,
                operation: &self.source_text(),
                preamble: &self.preamble_text(),
                names: &b.names,
                types: &b.types,
                size_param: Some(b.params.len()),
            })
            .map_err(|e| self.remap(e))?,
        );
        self.cache
            .lock()
            .expect("kernel cache")
            .insert(key, l.clone());
        Ok(l)
    }

    /// `kernel(*args, out=..., size=..., block_size=...)`: [`ElementwiseKernel::call_with`]
    /// with CuPy's keywords in one struct. `block_size` (threads per block) must be 1 to 1024,
    /// as CuPy checks it; the backends choose their own launch shape, which changes no result,
    /// so it has no other effect.
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call_with`]; [`Error::InvalidArgument`] for a block size out of
    /// range.
    pub fn call_args(&self, args: &[Arg<'_>], kw: ElementwiseArgs<'_>) -> Result<Vec<Array>> {
        if let Some(b) = kw.block_size {
            if !(1..=1024).contains(&b) {
                return Err(Error::invalid(
                    &self.name,
                    format!("block_size must be between 1 and 1024, got {b}"),
                ));
            }
        }
        self.call_with(args, kw.out, kw.size)
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

    /// Runs the kernel: `args` are the inputs (one per `in_params` entry), `out` is empty (new
    /// outputs are allocated) or one array per `out_params` entry (written in place and
    /// returned), `size` sets the iteration size when no non-raw array decides it. Every output
    /// is returned, `raw` ones included, in `out_params` order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a wrong argument count, a scalar passed as `raw`, an
    /// undecidable size or placeholder; [`Error::TypeError`] for conflicting placeholder
    /// bindings, or an array argument or `out` array whose dtype is not its parameter's
    /// declared type; [`Error::ShapeMismatch`] when arrays do not broadcast;
    /// [`Error::Parse`] for type errors in the operation; dtype and device errors.
    pub fn call_with(
        &self,
        args: &[Arg<'_>],
        out: &[&Array],
        size: Option<usize>,
    ) -> Result<Vec<Array>> {
        let op = self.name.as_str();
        let bound = self.bind(args, out)?;
        let lowered = self.lowered(&bound)?;
        let Bound {
            input_idx,
            raw_src,
            mut params,
            outs: out_specs,
            ..
        } = bound;
        let kernel = &lowered.kernel;
        let writes = |r: usize| kernel.writes_raw(r);
        // Array dtypes are the declared ones (checked in `resolve_types`).
        let arrays: Vec<Option<&Array>> = args
            .iter()
            .map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        let inputs: Vec<&Array> = input_idx
            .iter()
            .map(|&k| arrays[k].expect("array"))
            .collect();
        let raw_args: Vec<&Array> = raw_src
            .iter()
            .filter_map(|s| match s {
                RawSrc::Arg(k) => Some(arrays[*k].expect("array")),
                RawSrc::Out(_) => None,
            })
            .collect();
        // Device and iteration shape (raw arrays do not broadcast).
        let all: Vec<&Array> = inputs
            .iter()
            .chain(&raw_args)
            .copied()
            .chain(out.iter().copied())
            .collect();
        let device = if all.is_empty() {
            Device::current()?
        } else {
            same_device(op, all.iter().copied())?
        };
        let shaped: Vec<&Array> = inputs
            .iter()
            .copied()
            .chain(
                out.iter()
                    .zip(&out_specs)
                    .filter(|(_, s)| !s.1)
                    .map(|(o, _)| *o),
            )
            .collect();
        let shape = if shaped.is_empty() {
            match size {
                Some(n) => vec![n],
                None => {
                    return Err(Error::invalid(
                        op,
                        "loop size is undecided: no non-raw array argument; pass size",
                    ))
                }
            }
        } else if size.is_some() {
            // CuPy's rule: the loop size comes from the arrays, so `size` is refused (even an
            // agreeing one).
            return Err(Error::invalid(
                op,
                "Specified 'size' can be used only if all of the ndarray are 'raw'",
            ));
        } else {
            broadcast_all(op, &shaped)?
        };
        for (o, spec) in out.iter().zip(&out_specs) {
            if !spec.1 && o.shape() != shape.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: format!("{op} (out)"),
                    lhs: shape.clone(),
                    rhs: o.shape().to_vec(),
                });
            }
        }
        for x in &inputs {
            broadcast_shapes(op, x.shape(), &shape)?;
        }
        // Outputs: the given ones, or new (zeros when the operation reads them, and for raw
        // outputs, which the kernel may write only in part).
        let mut outputs: Vec<Array> = Vec::with_capacity(self.outs.len());
        let mut elem_out = 0;
        for (k, &(dt, raw)) in out_specs.iter().enumerate() {
            outputs.push(match out.get(k) {
                Some(o) => (*o).clone(),
                None if raw || lowered.output_reads.contains(&elem_out) => {
                    Array::zeros_on(&device, &shape, dt)?
                }
                None => Array::empty_on(&device, &shape, dt)?,
            });
            if !raw {
                elem_out += 1;
            }
        }
        // Raw operands in kernel order; written ones become contiguous targets (copied back
        // after the launch when they are not the array itself).
        let mut targets: Vec<Array> = Vec::with_capacity(raw_src.len());
        let mut write_back: Vec<(Array, usize)> = vec![];
        for (r, src) in raw_src.iter().enumerate() {
            let a = match src {
                RawSrc::Arg(k) => arrays[*k].expect("array").clone(),
                RawSrc::Out(k) => outputs[*k].clone(),
            };
            if writes(r) && !a.is_c_contiguous() {
                targets.push(a.copy()?);
                write_back.push((a, r));
            } else {
                targets.push(a);
            }
        }
        let written: Vec<&Array> = targets
            .iter()
            .enumerate()
            .filter(|(r, _)| writes(*r))
            .map(|(_, a)| a)
            .collect();
        let aliases = |a: &Array| written.iter().any(|w| w.shares_memory_with(a));
        // Any other operand that shares memory with a written raw array reads a copy.
        let mut detached: Vec<Option<Array>> = Vec::with_capacity(targets.len());
        for (r, t) in targets.iter().enumerate() {
            detached.push(if !writes(r) && aliases(t) {
                Some(t.copy()?)
            } else {
                None
            });
        }
        let raws: Vec<&Array> = targets
            .iter()
            .zip(&detached)
            .map(|(t, d)| d.as_ref().unwrap_or(t))
            .collect();
        let mut owned_inputs: Vec<Array> = Vec::with_capacity(inputs.len());
        for x in &inputs {
            owned_inputs.push(if aliases(x) { x.copy()? } else { (*x).clone() });
        }
        let elem_outs: Vec<&Array> = outputs
            .iter()
            .zip(&out_specs)
            .filter(|(_, s)| !s.1)
            .map(|(o, _)| o)
            .collect();
        let mut kernel_inputs: Vec<&Array> = owned_inputs.iter().collect();
        for &k in &lowered.output_reads {
            kernel_inputs.push(elem_outs[k]);
        }
        // Params: the scalar arguments, `_ind.size()`, then the raw lengths the kernel asks for.
        params.push(Scalar::Int64(shape.iter().product::<usize>() as i64));
        for &(r, what) in &lowered.raw_lens {
            let a = raws[r];
            let dim = |d: usize, what: &str| {
                if d < a.ndim() {
                    Ok(d)
                } else {
                    Err(Error::invalid(
                        op,
                        format!(
                            "{what}()[{d}] of a raw array of {} dimensions (shape {:?})",
                            a.ndim(),
                            a.shape()
                        ),
                    ))
                }
            };
            params.push(Scalar::Int64(match what {
                RawMeta::Size => a.size() as i64,
                RawMeta::Shape(d) => a.shape()[dim(d, "shape")?] as i64,
                // The kernel reads a C-contiguous array (a copy when the argument is not).
                RawMeta::Stride(d) => {
                    let d = dim(d, "strides")?;
                    (a.shape()[d + 1..].iter().product::<usize>() * a.dtype().itemsize()) as i64
                }
                RawMeta::Rank(n) if n == a.ndim() => n as i64,
                RawMeta::Rank(n) => {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "a raw array of {} dimensions (shape {:?}) is indexed with {n} indices",
                            a.ndim(),
                            a.shape()
                        ),
                    ))
                }
            }));
        }
        if params.len() != kernel.params.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "internal error: {} parameters for a kernel of {}; please report",
                    params.len(),
                    kernel.params.len()
                ),
            ));
        }
        Elementwise {
            op,
            kernel,
            inputs: &kernel_inputs,
            raws: &raws,
            params,
            outs: elem_outs.iter().map(|o| Some(*o)).collect(),
            device: Some(&device),
            shape: Some(&shape),
        }
        .run()?;
        for (a, r) in &write_back {
            a.copy_from(&targets[*r])?;
        }
        Ok(if self.no_return { vec![] } else { outputs })
    }
}

/// The compiler flags `options=` takes (CuPy passes them to NVRTC): `-D`/`--define-macro`
/// macro definitions, `--use_fast_math`/`-use_fast_math`, `-std=`/`--std=` and `-O0`..`-O3`.
/// Anything else (include paths, architecture flags, which the backends choose) is refused.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the kernel and the flag.
pub(crate) fn check_options(kernel: &str, options: &[&str]) -> Result<Vec<String>> {
    options
        .iter()
        .map(|o| {
            let ok = o.starts_with("-D")
                || o.starts_with("--define-macro")
                || matches!(*o, "--use_fast_math" | "-use_fast_math")
                || o.starts_with("-std=")
                || o.starts_with("--std=")
                || matches!(*o, "-O0" | "-O1" | "-O2" | "-O3");
            if ok {
                Ok(o.to_string())
            } else {
                Err(Error::invalid(
                    kernel,
                    format!(
                        "compiler option {o:?} is not taken (only -D..., --use_fast_math, \
                         -std=... and -O0..-O3; the backend sets the architecture and includes)"
                    ),
                ))
            }
        })
        .collect()
}

/// The `#define` lines of the `-D`/`--define-macro` options (`-DN=4` is `#define N 4`, `-DN` is
/// `#define N 1`, as C compilers take them).
pub(crate) fn option_defines(options: &[String]) -> String {
    let mut out = String::new();
    for o in options {
        let def = o
            .strip_prefix("--define-macro=")
            .or_else(|| o.strip_prefix("--define-macro"))
            .or_else(|| o.strip_prefix("-D"));
        if let Some(d) = def {
            let d = d.trim();
            match d.split_once('=') {
                Some((n, v)) => out.push_str(&format!("#define {n} {v}\n")),
                None => out.push_str(&format!("#define {d} 1\n")),
            }
        }
    }
    out
}

/// Keyword arguments of [`ElementwiseKernel::call_args`]: CuPy's `out=`, `size=` and
/// `block_size=`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementwiseArgs<'a> {
    /// Arrays to write the outputs into (`out=`), one per `out_params` entry, or empty.
    pub out: &'a [&'a Array],
    /// The loop size when only raw arrays are passed (`size=`).
    pub size: Option<usize>,
    /// Threads per block (`block_size=`, 1 to 1024).
    pub block_size: Option<u32>,
}

/// The keywords of CuPy's `ElementwiseKernel` constructor, for
/// [`ElementwiseKernel::new_with`] (`reduce_dims` is not here: it changes nothing, see
/// [`ElementwiseKernel::with_reduce_dims`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementwiseOptions<'a> {
    /// Compiler options (`options=`, see [`ElementwiseKernel::with_options`]).
    pub options: &'a [&'a str],
    /// Helper functions and macros (`preamble=`).
    pub preamble: &'a str,
    /// Code before the operation (`loop_prep=`).
    pub loop_prep: &'a str,
    /// Code after the operation (`after_loop=`).
    pub after_loop: &'a str,
    /// The call returns no arrays (`no_return=`).
    pub no_return: bool,
}
