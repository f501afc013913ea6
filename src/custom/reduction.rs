//! `cupy.ReductionKernel`: CuPy's reduction strings (map, reduce and post-map expressions, an
//! identity) parsed into a [`ReduceKernel`] and run on every backend.

use super::params::*;
use crate::array::Array;
use crate::launch::broadcast_all;
use crate::math::ufunc::Arg;
use crate::statistics::reduction::{reduce_with_opts, Axes};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::kernel::lang::{
    lower_reduction, parse_params, Binding, Name, ParamSpec, ReductionSource, TypeSpec,
};
use cupy_core::scalar::Scalar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
    /// Compiler options (CuPy's `options=`), see [`ReductionKernel::with_options`].
    options: Vec<String>,
    /// The names of the non-raw inputs whose raw view (`_raw_x`) `map_expr` reads.
    raw_views: Vec<usize>,
    /// The map passes of a kernel with raw arrays, per accumulator dtype.
    map_passes: Mutex<HashMap<DType, Arc<super::elementwise::ElementwiseKernel>>>,
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
        super::check_identifier("ReductionKernel", name)?;
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
        if outs[0].raw {
            return Err(Error::invalid(
                name,
                format!(
                    "the output {} of a ReductionKernel cannot be raw",
                    outs[0].name
                ),
            ));
        }
        let raw_views: Vec<usize> = ins
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.raw && mentions(map_expr, &format!("_raw_{}", p.name)))
            .map(|(k, _)| k)
            .collect();
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
            options: vec![],
            raw_views,
            map_passes: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// True when `map_expr` reads raw arrays (`raw` parameters or `_raw_x` views) or the input
    /// index (`_in_ind.get()`): the map then runs as an elementwise pass into a temporary
    /// array, which the reduction reads.
    fn has_raw(&self) -> bool {
        !self.raw_views.is_empty()
            || self.ins.iter().any(|p| p.raw)
            || self.map_expr.contains("_in_ind.get")
    }

    /// CuPy's `options=`, as
    /// [`ElementwiseKernel::with_options`](super::elementwise::ElementwiseKernel::with_options)
    /// takes them: `-D` macros for the kernel's expressions on every backend; the other flags
    /// reach the compiler of the C++ backends (`Backend::reduce_opts`, and the map and
    /// combine passes through `Backend::elementwise_opts`): NVRTC gets `--use_fast_math`,
    /// hipRTC `-ffast-math` and `-O` levels; cpu and wgpu ignore them. The reduction is
    /// compiled and cached apart per option list.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a flag that is not taken.
    pub fn with_options(mut self, options: &[&str]) -> Result<Self> {
        self.options = super::elementwise::check_options(&self.name, options)?;
        self.cache.lock().expect("kernel cache").clear();
        self.map_passes.lock().expect("kernel cache").clear();
        Ok(self)
    }

    /// The compiler options set with [`ReductionKernel::with_options`].
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// CuPy's `reduce_dims`: accepted for compatibility; cupy-rs always merges the axes that
    /// are contiguous together before a launch, which changes no result.
    pub fn with_reduce_dims(self, _reduce_dims: bool) -> Self {
        self
    }

    /// Sets `reduce_type` (a type name or a placeholder), the accumulator type.
    ///
    /// # Errors
    /// [`Error::Parse`] if it is not a type.
    pub fn with_reduce_type(mut self, reduce_type: &str) -> Result<Self> {
        let p = parse_params(&self.name, "reduce_type", &format!("{reduce_type} _acc"))?;
        self.reduce_type = p.into_iter().next().map(|p| p.ty);
        self.cache.lock().expect("kernel cache").clear();
        self.map_passes.lock().expect("kernel cache").clear();
        Ok(self)
    }

    /// Sets the preamble (helper functions).
    pub fn with_preamble(mut self, preamble: &str) -> Self {
        self.preamble = preamble.into();
        self.cache.lock().expect("kernel cache").clear();
        self.map_passes.lock().expect("kernel cache").clear();
        self
    }

    /// Binds the arguments and lowers the strings: the kernel (inputs = the array arguments,
    /// params = the scalar arguments then `_in_ind.size()`, `_out_ind.size()`) and the scalar
    /// parameter values.
    fn lower_call(
        &self,
        args: &[Arg<'_>],
        out: Option<&Array>,
    ) -> Result<(ReduceKernel, Vec<Scalar>, Path)> {
        let op = self.name.as_str();
        check_arg_count(op, self.ins.len(), args.len())?;
        let outs: Vec<&Array> = out.into_iter().collect();
        let types = resolve_types(op, &self.ins, args, std::slice::from_ref(&self.out), &outs)?;
        let mut names = vec![];
        let mut n_arrays = 0;
        let mut params = vec![];
        for (p, a) in self.ins.iter().zip(args) {
            let dtype = type_of(op, p, &types)?;
            if p.raw {
                if !matches!(a, Arg::Array(_)) {
                    return Err(Error::invalid(
                        op,
                        format!("raw parameter {} takes an array, not a scalar", p.name),
                    ));
                }
                continue;
            }
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
            // With raw arrays the map is a pass of its own, whose result is the one input.
            if self.has_raw() && matches!(binding, Binding::Input(_)) {
                continue;
            }
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
        if let Some(o) = out {
            if o.dtype() != out_dtype {
                return Err(Error::TypeError {
                    op: op.into(),
                    dtypes: vec![out_dtype, o.dtype()],
                    msg: format!(
                        "type is mismatched: output {} is {out_dtype} but the out array is {}",
                        self.out.name,
                        o.dtype()
                    ),
                });
            }
        }
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
        if self.has_raw() {
            names.push(Name {
                name: MAP_NAME.into(),
                dtype: acc,
                binding: Binding::Input(0),
            });
        }
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
            map_expr: if self.has_raw() {
                MAP_NAME
            } else {
                &self.map_expr
            },
            reduce_expr: &self.reduce_expr,
            post_map_expr: &self.post_map_expr,
            identity: self.identity.as_deref(),
            preamble: &format!(
                "{}{}",
                super::elementwise::option_defines(&self.options),
                self.preamble
            ),
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
        Ok(self.lower_call(args, None)?.0)
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
        match self.lower_call(args, None)? {
            (_, _, Path::Identity) => Ok(vec![]),
            (k, _, Path::First(initial)) => Ok(super::reduce_first::pass_kernels(&k, initial)),
        }
    }

    /// Reduces over `axis` (`Axes::All` for every axis, as CuPy's `axis=None`).
    ///
    /// # Errors
    /// [`Error::Parse`] for type errors in the expressions; argument, shape, axis, dtype and
    /// device errors as [`ElementwiseKernel::call_with`](super::elementwise::ElementwiseKernel::call_with) and [`crate::sum`] give them.
    pub fn call(&self, args: &[Arg<'_>], axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        self.call_with(
            args,
            ReductionArgs {
                axis: axis.into(),
                keepdims,
                out: None,
            },
        )
    }

    /// `kernel(*args, axis=..., keepdims=..., out=...)`: with `out`, the result is written into
    /// it (its shape must be the result's) and `out` is returned; its dtype binds the output's
    /// placeholder, as in CuPy, and must equal the output's declared type.
    ///
    /// # Errors
    /// As [`ReductionKernel::call`]; [`Error::TypeError`] for an `out` of another dtype,
    /// [`Error::ShapeMismatch`] for one of another shape.
    pub fn call_with(&self, args: &[Arg<'_>], opts: ReductionArgs<'_>) -> Result<Array> {
        let op = self.name.as_str();
        let ReductionArgs {
            axis: axes,
            keepdims,
            out,
        } = opts;
        let (kernel, mut params, path) = self.lower_call(args, out)?;
        // The map pass of a kernel with raw arrays: its result is the one input.
        let mapped;
        let mut arrays: Vec<&Array> = vec![];
        if self.has_raw() {
            mapped = self.map_pass(args, kernel.acc[0])?;
            arrays.push(&mapped);
        } else {
            // Array dtypes are the declared ones (checked in `resolve_types`).
            arrays.extend(args.iter().filter_map(|a| match a {
                Arg::Array(x) => Some(*x),
                _ => None,
            }));
        }
        let shape = broadcast_all(op, &arrays)?;
        let views: Vec<Array> = arrays
            .iter()
            .map(|a| a.broadcast_to(&shape))
            .collect::<Result<_>>()?;
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
        let r = match path {
            Path::Identity => reduce_with_opts(
                op,
                &kernel,
                params,
                &view_refs,
                (&axes, keepdims),
                &self.options,
            ),
            Path::First(initial) => super::reduce_first::reduce_first(
                op,
                &kernel,
                params,
                &view_refs,
                (&axes, keepdims),
                initial,
                &self.options,
            ),
        }?;
        match out {
            None => Ok(r),
            Some(o) => {
                if o.shape() != r.shape() {
                    return Err(Error::ShapeMismatch {
                        op: format!("{op} (out=)"),
                        lhs: r.shape().to_vec(),
                        rhs: o.shape().to_vec(),
                    });
                }
                o.copy_from(&r)?;
                Ok(o.clone())
            }
        }
    }

    /// The elementwise IR kernel of the map pass a call with these arguments runs first when
    /// `map_expr` reads raw arrays or `_in_ind.get()` (`None` otherwise). For inspection and
    /// ahead-of-time compilation.
    ///
    /// # Errors
    /// As [`ReductionKernel::ir`].
    pub fn map_pass_ir(&self, args: &[Arg<'_>]) -> Result<Option<cupy_core::kernel::ir::Kernel>> {
        if !self.has_raw() {
            return Ok(None);
        }
        let acc = self.lower_call(args, None)?.0.acc[0];
        let k = self.map_pass_kernel(acc)?;
        let all = self.map_pass_args(args);
        Ok(Some(k.ir(&all, &[])?))
    }

    fn map_pass_args<'a>(&self, args: &[Arg<'a>]) -> Vec<Arg<'a>> {
        let mut all: Vec<Arg<'a>> = args.to_vec();
        for &k in &self.raw_views {
            all.push(args[k].clone());
        }
        all
    }

    /// Runs `map_expr` as an elementwise kernel over the arguments (raw parameters and the
    /// `_raw_x` views as raw arrays) into a temporary array of the accumulator dtype.
    fn map_pass(&self, args: &[Arg<'_>], acc: DType) -> Result<Array> {
        let kernel = self.map_pass_kernel(acc)?;
        Ok(kernel
            .call_with(&self.map_pass_args(args), &[], None)?
            .remove(0))
    }

    /// The map pass's kernel for accumulator dtype `acc` (built once per dtype).
    fn map_pass_kernel(&self, acc: DType) -> Result<Arc<super::elementwise::ElementwiseKernel>> {
        let kernel = {
            let mut passes = self.map_passes.lock().expect("kernel cache");
            match passes.get(&acc) {
                Some(k) => k.clone(),
                None => {
                    let spec = |p: &ParamSpec, name: &str, raw: bool| {
                        let ty = match &p.ty {
                            TypeSpec::DType(d) => d.name().to_string(),
                            TypeSpec::Placeholder(t) => t.clone(),
                        };
                        format!("{}{ty} {name}", if raw { "raw " } else { "" })
                    };
                    let mut ins: Vec<String> =
                        self.ins.iter().map(|p| spec(p, &p.name, p.raw)).collect();
                    for &k in &self.raw_views {
                        let p = &self.ins[k];
                        ins.push(spec(p, &format!("_raw_{}", p.name), true));
                    }
                    let op = replace_ident(&self.map_expr, "_in_ind", "_ind");
                    let k = super::elementwise::ElementwiseKernel::new(
                        &ins.join(", "),
                        &format!("{} {MAP_NAME}", acc.name()),
                        &format!("{MAP_NAME} = {op};"),
                        &self.name,
                    )?
                    .with_preamble(&self.preamble)?;
                    let opts: Vec<&str> = self.options.iter().map(String::as_str).collect();
                    let k = k.with_options(&opts)?;
                    let k = Arc::new(k);
                    passes.insert(acc, k.clone());
                    k
                }
            }
        };
        Ok(kernel)
    }
}

/// The name the map pass's result has in the reduction of a kernel with raw arrays.
const MAP_NAME: &str = "_cupy_map";

/// Keyword arguments of [`ReductionKernel::call_with`]: CuPy's `axis=` (default: every axis),
/// `keepdims=` and `out=`.
#[derive(Clone, Debug, Default)]
pub struct ReductionArgs<'a> {
    /// The reduced axes (`axis=`; `Axes::All` is CuPy's `None`).
    pub axis: Axes,
    /// Keep the reduced axes with length 1 (`keepdims=`).
    pub keepdims: bool,
    /// The array to write the result into (`out=`).
    pub out: Option<&'a Array>,
}

/// True when `text` has `ident` as a whole identifier.
fn mentions(text: &str, ident: &str) -> bool {
    text.match_indices(ident).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + ident.len()..].chars().next();
        let id = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !id(before) && !id(after)
    })
}

/// `text` with each whole identifier `from` replaced by `to`.
fn replace_ident(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices(from) {
        let before = text[..at].chars().next_back();
        let after = text[at + from.len()..].chars().next();
        let id = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if at >= last && !id(before) && !id(after) {
            out.push_str(&text[last..at]);
            out.push_str(to);
            last = at + from.len();
        }
    }
    out.push_str(&text[last..]);
    out
}
