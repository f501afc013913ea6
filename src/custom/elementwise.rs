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
use crate::statistics::reduction::{reduce_with, Axes};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::kernel::lang::{
    lower_elementwise, lower_reduction, parse_params, Binding, ElementwiseSource,
    LoweredElementwise, Name, ParamSpec, ReductionSource, TypeSpec,
};
use cupy_core::layout::broadcast_shapes;
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Checks a kernel name is a C identifier.
fn check_name(name: &str) -> Result<()> {
    super::check_identifier("ElementwiseKernel", name)
}

/// Checks the number of input arguments.
fn check_arg_count(op: &str, want: usize, got: usize) -> Result<()> {
    if want == got {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("takes {want} input arguments, got {got}"),
        ))
    }
}

/// The dtype a weak scalar takes when it alone decides a placeholder.
fn weak_default(w: &WeakScalar) -> DType {
    w.default_dtype()
}

/// Resolves placeholders from the arguments, CuPy's order: arrays, then `out` arrays, then
/// scalars.
fn resolve_types(
    kernel: &str,
    ins: &[ParamSpec],
    args: &[Arg<'_>],
    outs: &[ParamSpec],
    out_arrays: &[&Array],
) -> Result<Vec<(String, DType)>> {
    for (p, a) in ins.iter().zip(args) {
        if let (TypeSpec::DType(d), Arg::Array(x)) = (&p.ty, a) {
            if x.dtype() != *d {
                return Err(Error::TypeError {
                    op: kernel.into(),
                    dtypes: vec![*d, x.dtype()],
                    msg: format!(
                        "type is mismatched: parameter {} is {d} but the array passed is {} \
                         (cast it with astype)",
                        p.name,
                        x.dtype()
                    ),
                });
            }
        }
    }
    let mut types: Vec<(String, DType)> = vec![];
    let mut bind = |name: &str, d: DType, strict: bool| -> Result<()> {
        match types.iter().find(|(n, _)| n == name) {
            Some((_, have)) if *have != d && strict => Err(Error::TypeError {
                op: kernel.into(),
                dtypes: vec![*have, d],
                msg: format!("type is mismatched: placeholder {name} is {have} and {d}"),
            }),
            Some(_) => Ok(()),
            None => {
                types.push((name.to_string(), d));
                Ok(())
            }
        }
    };
    for (p, a) in ins.iter().zip(args) {
        if let (TypeSpec::Placeholder(t), Arg::Array(x)) = (&p.ty, a) {
            bind(t, x.dtype(), true)?;
        }
    }
    for (p, o) in outs.iter().zip(out_arrays) {
        if let TypeSpec::Placeholder(t) = &p.ty {
            bind(t, o.dtype(), true)?;
        }
    }
    for (p, a) in ins.iter().zip(args) {
        if let TypeSpec::Placeholder(t) = &p.ty {
            match a {
                Arg::Typed(s) => bind(t, s.dtype(), false)?,
                Arg::Weak(w) => bind(t, weak_default(w), false)?,
                Arg::Array(_) => {}
            }
        }
    }
    Ok(types)
}

fn type_of(kernel: &str, p: &ParamSpec, types: &[(String, DType)]) -> Result<DType> {
    match &p.ty {
        TypeSpec::DType(d) => Ok(*d),
        TypeSpec::Placeholder(t) => types
            .iter()
            .find(|(n, _)| n == t)
            .map(|(_, d)| *d)
            .ok_or_else(|| {
                Error::invalid(
                    kernel,
                    format!(
                        "cannot determine the type of {} (placeholder {t}): no argument binds it",
                        p.name
                    ),
                )
            }),
    }
}

/// The value of a scalar argument as a parameter of dtype `d`.
fn scalar_value(kernel: &str, a: &Arg<'_>, d: DType) -> Result<Scalar> {
    match a {
        Arg::Typed(s) => Ok(s.cast(d)),
        Arg::Weak(w) => w.to_scalar(kernel, d),
        Arg::Array(_) => unreachable!("scalars only"),
    }
}

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
    cache: Mutex<HashMap<LoweringKey, Arc<LoweredElementwise>>>,
}
routine!(
    ElementwiseKernel,
    CustomKernels,
    notes: "CuPy's strings parsed to the IR; raw outputs and scatter writes (bounds-checked); complex<T> math on cpu only"
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
        check_name(name)?;
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
            preamble: String::new(),
            no_return: false,
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
            operation: &self.operation,
            preamble: &self.preamble,
            names: &names,
            types: &types,
            size_param: Some(np),
        })
        .map(|_| ())
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
        let l = Arc::new(lower_elementwise(&ElementwiseSource {
            name: &self.name,
            operation: &self.operation,
            preamble: &self.preamble,
            names: &b.names,
            types: &b.types,
            size_param: Some(b.params.len()),
        })?);
        self.cache
            .lock()
            .expect("kernel cache")
            .insert(key, l.clone());
        Ok(l)
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
        } else {
            let s = broadcast_all(op, &shaped)?;
            if let Some(n) = size {
                if n != s.iter().product::<usize>() {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "size {n} disagrees with the broadcast shape {s:?} of the arguments"
                        ),
                    ));
                }
            }
            s
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
        for &r in &lowered.raw_lens {
            params.push(Scalar::Int64(raws[r].size() as i64));
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

/// CuPy's `ReductionKernel`: `post_map(reduce(map(x...)))` over `axis`, on every backend.
///
/// ```
/// use cupy::ReductionKernel;
/// # fn main() -> cupy::Result<()> {
/// let l2norm = ReductionKernel::new(
///     "T x", "T y", "x * x", "a + b", "y = sqrt(a)", Some("0"), "l2norm",
/// )?;
/// let x = cupy::from_slice(&[3.0f32, 4.0, 0.0, 12.0], &[2, 2])?;
/// let n = l2norm.call(&[(&x).into()], 1, false)?;
/// assert_eq!(n.to_vec::<f32>()?, vec![5.0, 12.0]);
/// # Ok(()) }
/// ```
pub struct ReductionKernel {
    ins: Vec<ParamSpec>,
    out: ParamSpec,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: Option<String>,
    name: String,
    reduce_type: Option<TypeSpec>,
    preamble: String,
    /// Lowered kernels per (names, placeholder values, accumulator, output dtype), each with
    /// whether its identity is neutral for its combine (see [`ReductionKernel::new`]).
    cache: Mutex<HashMap<ReductionKey, (Arc<ReduceKernel>, bool)>>,
}
routine!(
    ReductionKernel,
    CustomKernels,
    notes: "identity=None folds from the first element (NumPy's rule); reduce_type defaults to the output type"
);

/// How a [`ReductionKernel`] call reduces.
#[derive(Clone, Copy, Debug)]
enum Path {
    /// One reduction kernel seeded with the identity (neutral for the combine).
    Identity,
    /// The identity-less passes; `Some(initial)` combines a non-neutral identity once per
    /// output at the end.
    First(Option<Scalar>),
}

/// What a reduction's lowering depends on.
type ReductionKey = (Vec<Name>, Vec<(String, DType)>, DType, DType);

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReductionKernel")
            .field("name", &self.name)
            .field("in_params", &self.ins)
            .field("out_params", &self.out)
            .finish()
    }
}

impl ReductionKernel {
    /// `cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
    /// identity, name)`. `a` and `b` in `reduce_expr` are the values combined; `a` in
    /// `post_map_expr` is the reduced value. The accumulator type (`reduce_type`) defaults to
    /// the output's type, as in CuPy.
    ///
    /// # Errors
    /// [`Error::Parse`] for malformed strings; [`Error::InvalidArgument`] for a bad name, other
    /// than one output, or a `raw` parameter.
    ///
    /// The `identity` counts exactly once per output, as NumPy's `ufunc.reduce(initial=)`: an
    /// identity that is neutral for `reduce_expr` (`0` for `a + b`, `-INFINITY` for
    /// `max(a, b)`; decided per accumulator type by evaluating `reduce_expr` on probe values)
    /// runs one reduction kernel seeded with it; any other (`1` with `a + b`) reduces without
    /// it and combines it once at the end (`reduce_expr` with `a` the identity, `b` the
    /// reduced value), so `x.sum() + 1` on every backend. An empty reduction gives the
    /// identity. (CuPy seeds every GPU thread's partial result with the identity, so a
    /// non-neutral one is counted a launch-dependent number of times there.)
    ///
    /// `identity` `None` (CuPy's `identity=None`) reduces from each output's first element, as
    /// NumPy's `ufunc.reduce` does for ufuncs without an identity: an empty reduction is then
    /// an error ("zero-size array to reduction operation ... which has no identity"). CuPy
    /// starts such reductions from `T()` (zero) instead, so its `max(a, b)` of negative numbers
    /// gives 0; cupy-rs gives the maximum. The reduction then runs as a map pass and a few
    /// 32-way combine passes (about twice the memory traffic of one with an identity), as does
    /// one with a non-neutral identity.
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<&str>,
        name: &str,
    ) -> Result<Self> {
        check_name(name)?;
        let ins = parse_params(name, "in_params", in_params)?;
        let mut outs = parse_params(name, "out_params", out_params)?;
        if outs.len() != 1 {
            return Err(Error::invalid(
                name,
                format!(
                    "ReductionKernel takes exactly one output, got {}",
                    outs.len()
                ),
            ));
        }
        if let Some(p) = ins.iter().chain(&outs).find(|p| p.raw) {
            return Err(Error::invalid(
                name,
                format!(
                    "raw parameter {} is not supported in a ReductionKernel",
                    p.name
                ),
            ));
        }
        if identity.is_some_and(|t| t.trim().is_empty()) {
            return Err(Error::Parse {
                kernel: name.into(),
                part: "identity".into(),
                line: 1,
                column: 1,
                msg: "the identity is empty (pass None for a reduction without identity)".into(),
                snippet: "\n^".into(),
            });
        }
        Ok(ReductionKernel {
            ins,
            out: outs.remove(0),
            map_expr: map_expr.into(),
            reduce_expr: reduce_expr.into(),
            post_map_expr: post_map_expr.into(),
            identity: identity.map(str::to_string),
            name: name.into(),
            reduce_type: None,
            preamble: String::new(),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// Sets `reduce_type` (a type name or a placeholder), the accumulator type.
    ///
    /// # Errors
    /// [`Error::Parse`] if it is not a type.
    pub fn with_reduce_type(mut self, reduce_type: &str) -> Result<Self> {
        let p = parse_params(&self.name, "reduce_type", &format!("{reduce_type} _acc"))?;
        self.reduce_type = p.into_iter().next().map(|p| p.ty);
        self.cache.lock().expect("kernel cache").clear();
        Ok(self)
    }

    /// Sets the preamble (helper functions).
    pub fn with_preamble(mut self, preamble: &str) -> Self {
        self.preamble = preamble.into();
        self.cache.lock().expect("kernel cache").clear();
        self
    }

    /// Binds the arguments and lowers the strings: the kernel (inputs = the array arguments,
    /// params = the scalar arguments then `_in_ind.size()`, `_out_ind.size()`) and the scalar
    /// parameter values.
    fn lower_call(&self, args: &[Arg<'_>]) -> Result<(ReduceKernel, Vec<Scalar>, Path)> {
        let op = self.name.as_str();
        check_arg_count(op, self.ins.len(), args.len())?;
        let types = resolve_types(op, &self.ins, args, &[], &[])?;
        let mut names = vec![];
        let mut n_arrays = 0;
        let mut params = vec![];
        for (p, a) in self.ins.iter().zip(args) {
            let dtype = type_of(op, p, &types)?;
            let binding = match a {
                Arg::Array(_) => {
                    n_arrays += 1;
                    Binding::Input(n_arrays - 1)
                }
                a => {
                    params.push(scalar_value(op, a, dtype)?);
                    Binding::Param(params.len() - 1)
                }
            };
            names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        if n_arrays == 0 {
            return Err(Error::invalid(op, "a reduction needs an array argument"));
        }
        let out_dtype = type_of(op, &self.out, &types)?;
        let acc = match &self.reduce_type {
            None => out_dtype,
            Some(TypeSpec::DType(d)) => *d,
            Some(TypeSpec::Placeholder(t)) => types
                .iter()
                .find(|(n, _)| n == t)
                .map(|(_, d)| *d)
                .ok_or_else(|| {
                Error::invalid(op, format!("reduce_type placeholder {t} is not bound"))
            })?,
        };
        let n_params = params.len();
        let key = (names.clone(), types.clone(), acc, out_dtype);
        let path = |k: &ReduceKernel, neutral: bool| match (&self.identity, neutral) {
            (None, _) => Path::First(None),
            (Some(_), true) => Path::Identity,
            (Some(_), false) => Path::First(Some(k.identity[0])),
        };
        if let Some((k, neutral)) = self.cache.lock().expect("kernel cache").get(&key) {
            return Ok(((**k).clone(), params, path(k, *neutral)));
        }
        let kernel = lower_reduction(&ReductionSource {
            name: op,
            map_expr: &self.map_expr,
            reduce_expr: &self.reduce_expr,
            post_map_expr: &self.post_map_expr,
            identity: self.identity.as_deref(),
            preamble: &self.preamble,
            names: &names,
            output: (&self.out.name, out_dtype),
            acc,
            types: &types,
            size_params: Some((n_params, n_params + 1)),
        })?;
        let neutral = self.identity.is_some() && super::reduce_first::identity_is_neutral(&kernel);
        self.cache
            .lock()
            .expect("kernel cache")
            .insert(key, (Arc::new(kernel.clone()), neutral));
        let p = path(&kernel, neutral);
        Ok((kernel, params, p))
    }

    /// The IR reduction kernel a call with these arguments runs (for inspection or ahead-of-time
    /// compilation). Without identity its `identity` is a placeholder (zero), and with one that
    /// is not neutral for the combine the call does not seed partial results with it: both run
    /// [`ReductionKernel::pass_kernels`] instead.
    ///
    /// # Errors
    /// As [`ReductionKernel::call`], without the shape and axis checks.
    pub fn ir(&self, args: &[Arg<'_>]) -> Result<ReduceKernel> {
        Ok(self.lower_call(args)?.0)
    }

    /// The elementwise IR kernels a reduction without identity, or with one that is not neutral
    /// for the combine, runs (see [`ReductionKernel::new`]): the map pass, a 32-way combine
    /// pass, and the last combine pass, which combines the identity (if any) and applies
    /// `post_map_expr`; empty for a kernel with a neutral identity (it runs
    /// [`ReductionKernel::ir`]). For inspection and ahead-of-time compilation.
    ///
    /// # Errors
    /// As [`ReductionKernel::ir`].
    pub fn pass_kernels(&self, args: &[Arg<'_>]) -> Result<Vec<cupy_core::kernel::ir::Kernel>> {
        match self.lower_call(args)? {
            (_, _, Path::Identity) => Ok(vec![]),
            (k, _, Path::First(initial)) => Ok(super::reduce_first::pass_kernels(&k, initial)),
        }
    }

    /// Reduces over `axis` (`Axes::All` for every axis, as CuPy's `axis=None`).
    ///
    /// # Errors
    /// [`Error::Parse`] for type errors in the expressions; argument, shape, axis, dtype and
    /// device errors as [`ElementwiseKernel::call_with`] and [`crate::sum`] give them.
    pub fn call(&self, args: &[Arg<'_>], axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        let op = self.name.as_str();
        let (kernel, mut params, path) = self.lower_call(args)?;
        // Array dtypes are the declared ones (checked in `resolve_types`).
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            })
            .collect();
        let shape = broadcast_all(op, &arrays)?;
        let views: Vec<Array> = arrays
            .iter()
            .map(|a| a.broadcast_to(&shape))
            .collect::<Result<_>>()?;
        let axes = axis.into();
        let red = crate::statistics::reduction::normalize_axes(op, &axes, shape.len())?;
        let in_size: usize = shape.iter().product();
        let out_size: usize = shape
            .iter()
            .enumerate()
            .filter(|(i, _)| !red.contains(i))
            .map(|(_, d)| d)
            .product();
        if kernel.params.len() > params.len() {
            params.push(Scalar::Int64(in_size as i64));
            params.push(Scalar::Int64(out_size as i64));
        }
        let view_refs: Vec<&Array> = views.iter().collect();
        match path {
            Path::Identity => reduce_with(op, &kernel, params, &view_refs, &axes, keepdims),
            Path::First(initial) => super::reduce_first::reduce_first(
                op, &kernel, params, &view_refs, &axes, keepdims, initial,
            ),
        }
    }
}
