//! Reductions (`sum`, `prod`, `max`, `min`, `mean`) over any set of axes, as CuPy's
//! `ReductionKernel` model: map, combine with identity, post-map (DESIGN.md).

use crate::array::{check_dtype, Array};
use cupy_core::backend::{Operand, ReductionCall};
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::ReduceKernel;
use cupy_core::layout::{merge_axes, normalize_axis, Layout};
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// The `axis` argument of a reduction: all axes (`None` in NumPy), one axis, or several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axes {
    /// Reduce over every axis (`axis=None`).
    All,
    /// Reduce over these axes (negative counts from the end).
    Some(Vec<isize>),
}

impl Default for Axes {
    /// `axis=None`: every axis.
    fn default() -> Axes {
        Axes::All
    }
}

impl From<isize> for Axes {
    fn from(a: isize) -> Axes {
        Axes::Some(vec![a])
    }
}
impl From<i32> for Axes {
    fn from(a: i32) -> Axes {
        Axes::Some(vec![a as isize])
    }
}
impl From<usize> for Axes {
    fn from(a: usize) -> Axes {
        Axes::Some(vec![a as isize])
    }
}
impl From<&[isize]> for Axes {
    fn from(a: &[isize]) -> Axes {
        Axes::Some(a.to_vec())
    }
}
impl<const N: usize> From<[isize; N]> for Axes {
    fn from(a: [isize; N]) -> Axes {
        Axes::Some(a.to_vec())
    }
}
impl From<Vec<isize>> for Axes {
    fn from(a: Vec<isize>) -> Axes {
        Axes::Some(a)
    }
}
impl From<Option<isize>> for Axes {
    fn from(a: Option<isize>) -> Axes {
        a.map_or(Axes::All, |a| Axes::Some(vec![a]))
    }
}

/// Keyword arguments of the reductions (`sum`, `prod`, `max`, `min`, `mean`, and the
/// statistics that come after them), named as NumPy's: one options struct for the family,
/// passed to the `_with` forms.
///
/// ```no_run
/// use cupy as cp;
/// use cp::{DType, Reduce};
/// # fn main() -> cp::Result<()> {
/// let a = cp::ones(&[2, 3, 4])?;
/// let total = a.sum()?; // axis=None
/// let cols = a.sum_axis(0)?; // axis=0, keepdims=False
/// let s = cp::sum_with(&a, Reduce { axis: [0, 2].into(), keepdims: true, ..Default::default() })?;
/// assert_eq!(s.shape(), [1, 3, 1]);
/// let f32s = a.mean_with(Reduce { dtype: Some(DType::Float32), ..Default::default() })?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Reduce {
    /// The axes to reduce (`axis=`): [`Axes::All`] (the default, `axis=None`), one axis
    /// (`0.into()`, negative from the end) or several (`[0, 2].into()`).
    pub axis: Axes,
    /// Keep the reduced axes as length-1 axes (`keepdims=`), so the result broadcasts against
    /// the input.
    pub keepdims: bool,
    /// The accumulation and result dtype (`dtype=`): `sum`/`prod` of int8 with
    /// `Some(DType::Int8)` accumulate and wrap in int8, as NumPy; `mean` of integers with
    /// `Some(DType::Float32)` gives float32. `None` is NumPy's default (small integers sum in
    /// (u)int64, integers average in float64). `max`/`min` take no `dtype` (an error, as in
    /// NumPy).
    pub dtype: Option<DType>,
    /// An array to write the result into (`out=`): its shape must be the result's (with
    /// `keepdims` applied); the result is cast to its dtype under NumPy's `same_kind` rule and
    /// the returned array is `out` itself.
    pub out: Option<Array>,
    /// Delta degrees of freedom (`ddof=`) for `var`/`std` (and `nanvar`/`nanstd`); the
    /// divisor is `N - ddof`. The other reductions do not use it.
    pub ddof: usize,
    /// The value the reduction starts from (`initial=`), converted to the reduction's dtype as
    /// NumPy converts a Python scalar: `sum`, `prod`, `max`, `min` and their `nan*` forms take
    /// it (an empty `max` is then `initial`); the others refuse it with [`Error::TypeError`],
    /// as NumPy's "unexpected keyword argument".
    pub initial: Option<WeakScalar>,
    /// A bool mask broadcast to the input (`where=`): only its true elements are reduced
    /// (`mean`/`var` divide by their number). Taken by `sum prod max min mean var std any all`
    /// and the `nan*` reductions; `max`/`min` need `initial` with it (NumPy's ValueError).
    pub where_: Option<Array>,
}

impl From<Axes> for Reduce {
    fn from(axis: Axes) -> Reduce {
        Reduce {
            axis,
            ..Default::default()
        }
    }
}

/// How a reduction builds its kernel: from the input dtype, NumPy's keyword arguments
/// ([`Reduce`]: `dtype=`, `ddof`, ...) and the number of reduced elements, the kernel and its
/// parameter values.
pub type Build = fn(DType, &Reduce, usize) -> Result<(ReduceKernel, Vec<Scalar>)>;

/// A NumPy reduction (`numpy.sum`, `numpy.max`, ...), declared once with `reductions!` in its
/// family's file of [`crate::statistics`] (`cupy::reductions::sum` is the object); compared
/// and hashed by name.
#[derive(Clone, Copy)]
pub struct Reduction {
    pub(crate) name: &'static str,
    pub(crate) build: Build,
    /// NumPy's error of an empty reduction, for reductions an empty axis refuses (`max`:
    /// "zero-size array to reduction operation maximum which has no identity"); `None` when an
    /// empty reduction has a value.
    pub(crate) empty_error: Option<&'static str>,
    /// The keywords beyond `axis`, `keepdims`, `dtype`, `out` and `ddof` it takes, as NumPy
    /// spells them (`"initial where"`).
    pub(crate) takes: &'static str,
    /// A check run before the kernel (the all-NaN error of `nanargmax`).
    pub(crate) check: Option<Check>,
    pub(crate) family: &'static str,
    pub(crate) doc: &'static str,
}

/// A reduction's check of its input before the kernel runs (NumPy errors that depend on the
/// values, such as `nanargmax`'s "All-NaN slice encountered").
pub type Check = fn(&Array, &Reduce) -> Result<()>;

impl PartialEq for Reduction {
    fn eq(&self, other: &Reduction) -> bool {
        self.name == other.name
    }
}
impl Eq for Reduction {}
impl std::hash::Hash for Reduction {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h)
    }
}
impl std::fmt::Debug for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<reduction '{}'>", self.name)
    }
}

impl Reduction {
    /// NumPy's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The family (the file of [`crate::statistics`] that declares it).
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// Its documentation.
    pub fn doc(&self) -> &'static str {
        self.doc
    }

    /// Builds the kernel for an input dtype and the number of reduced elements, with NumPy's
    /// default accumulation and result dtypes.
    ///
    /// # Errors
    /// As the reduction refuses the dtype (e.g. [`Error::TypeError`] for `max` of complex).
    pub fn kernel(&self, t: DType, count: usize) -> Result<(ReduceKernel, Vec<Scalar>)> {
        (self.build)(t, &Reduce::default(), count)
    }

    /// As [`Reduction::kernel`], with NumPy's keyword arguments (`dtype=`: the input is cast to
    /// `dtype`, which is also the accumulator (float16/bfloat16 accumulate in float32) and the
    /// result).
    ///
    /// # Errors
    /// As [`Reduction::kernel`]; [`Error::InvalidArgument`] for a keyword the reduction does not
    /// take (`dtype=` of `max`).
    pub fn kernel_with(
        &self,
        t: DType,
        opts: &Reduce,
        count: usize,
    ) -> Result<(ReduceKernel, Vec<Scalar>)> {
        (self.build)(t, opts, count)
    }

    /// The keywords it takes, for the coverage table.
    pub fn notes(&self) -> &'static str {
        match (self.takes("initial"), self.takes("where")) {
            (true, true) => "axis, keepdims, out, initial, where",
            (false, true) => "axis, keepdims, out, where",
            _ => "axis, keepdims, out",
        }
    }

    /// Whether it takes NumPy's keyword `kw` (`"initial"`, `"where"`).
    pub fn takes(&self, kw: &str) -> bool {
        self.takes.split_whitespace().any(|k| k == kw)
    }

    /// The error of an empty reduction that has no identity, if this is one.
    pub(crate) fn empty_error(&self, count: usize) -> Result<()> {
        match self.empty_error {
            Some(msg) if count == 0 => Err(Error::invalid(self.name, msg)),
            _ => Ok(()),
        }
    }
}

/// NumPy's accumulation dtype of `sum`/`prod` without `dtype=`: bool and signed integers in
/// int64, unsigned in uint64, the rest unchanged.
pub(crate) fn widen(t: DType) -> DType {
    match t.kind() {
        Kind::Bool | Kind::Int => DType::Int64,
        Kind::UInt => DType::UInt64,
        _ => t,
    }
}

/// The accumulator of a result dtype: float16/bfloat16 accumulate in float32.
pub(crate) fn acc_of(t: DType) -> DType {
    match t {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        t => t,
    }
}

/// `dtype=` refused by a reduction that takes none (`max`, `min`, ...): NumPy's TypeError
/// "unexpected keyword argument".
pub(crate) fn no_dtype(name: &str, opts: &Reduce) -> Result<()> {
    match opts.dtype {
        Some(d) => Err(Error::TypeError {
            op: name.into(),
            dtypes: vec![d],
            msg: format!(
                "{name}() got an unexpected keyword argument 'dtype'; cast the input with astype first"
            ),
        }),
        None => Ok(()),
    }
}

/// Normalizes `axes` for an array of `ndim` dimensions: sorted, unique, in range.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis.
pub fn normalize_axes(op: &str, axes: &Axes, ndim: usize) -> Result<Vec<usize>> {
    match axes {
        Axes::All => Ok((0..ndim).collect()),
        Axes::Some(v) => {
            let mut out = Vec::with_capacity(v.len());
            for &a in v {
                let n = normalize_axis(op, a, ndim)?;
                if out.contains(&n) {
                    return Err(Error::invalid(op, "duplicate value in 'axis'"));
                }
                out.push(n);
            }
            out.sort_unstable();
            Ok(out)
        }
    }
}

/// The axes of a reduction over `inputs` (all of one shape): shared by [`reduce_with`] and the
/// identity-less `ReductionKernel` passes.
pub(crate) struct ReduceAxes {
    /// The inputs' device.
    pub device: crate::Device,
    /// Reduced axes (normalized, ascending).
    pub red: Vec<usize>,
    /// Kept axes (ascending).
    pub keep: Vec<usize>,
    /// Extents of the kept axes.
    pub out_shape: Vec<usize>,
    /// The result's shape (`keepdims` puts 1 where an axis was reduced).
    pub final_shape: Vec<isize>,
}

impl ReduceAxes {
    /// # Errors
    /// [`Error::InvalidArgument`] without inputs; device mismatch; [`Error::ShapeMismatch`]
    /// when the inputs' shapes differ; axis errors.
    pub(crate) fn new(op: &str, inputs: &[&Array], axes: &Axes, keepdims: bool) -> Result<Self> {
        let a = inputs
            .first()
            .ok_or_else(|| Error::invalid(op, "no input"))?;
        let device = crate::array::same_device(op, inputs.iter().copied())?;
        if let Some(x) = inputs.iter().find(|x| x.shape() != a.shape()) {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: x.shape().to_vec(),
            });
        }
        let shape = a.shape();
        let red = normalize_axes(op, axes, shape.len())?;
        let keep: Vec<usize> = (0..shape.len()).filter(|i| !red.contains(i)).collect();
        let out_shape: Vec<usize> = keep.iter().map(|&i| shape[i]).collect();
        let final_shape: Vec<isize> = (0..shape.len())
            .filter(|i| keepdims || !red.contains(i))
            .map(|i| {
                if red.contains(&i) {
                    1
                } else {
                    shape[i] as isize
                }
            })
            .collect();
        Ok(ReduceAxes {
            device,
            red,
            keep,
            out_shape,
            final_shape,
        })
    }
}

/// Runs a reduction kernel over `axes` of the kernel's inputs (all of one shape).
///
/// # Errors
/// Axis errors, dtype refusals, device errors.
pub fn reduce_with(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    axes: &Axes,
    keepdims: bool,
) -> Result<Array> {
    reduce_with_opts(op, kernel, params, inputs, (axes, keepdims), &[])
}

/// [`reduce_with`] with a user kernel's compiler `options` (`ReductionKernel`'s `options=`,
/// passed to `Backend::reduce_opts`: NVRTC/hipRTC take them, cpu and wgpu ignore them).
///
/// # Errors
/// As [`reduce_with`].
pub fn reduce_with_opts(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    (axes, keepdims): (&Axes, bool),
    options: &[String],
) -> Result<Array> {
    reduce_into(op, kernel, params, inputs, (axes, keepdims), options, None)
}

/// [`reduce_with_opts`] writing into `into` (a C-contiguous array of the kernel's output dtype
/// and the result's size on the inputs' device) instead of a new array; the result is a view
/// of it.
///
/// # Errors
/// As [`reduce_with`]; `InvalidArgument` when `into` does not fit.
pub(crate) fn reduce_into(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    (axes, keepdims): (&Axes, bool),
    options: &[String],
    into: Option<&Array>,
) -> Result<Array> {
    let mut r = reduce_into_multi(
        op,
        kernel,
        params,
        inputs,
        axes,
        &[keepdims],
        options,
        &[into],
    )?;
    Ok(r.remove(0))
}

/// [`reduce_into`] of a kernel with several outputs ([`ReduceKernel::extra_posts`]): one
/// launch writes every output. Per output: its `keepdims` and the array it is written into
/// (`None`: a new one).
///
/// # Errors
/// As [`reduce_into`]; `InvalidArgument` when the counts of `keepdims` or `into` are not the
/// kernel's number of outputs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_into_multi(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    axes: &Axes,
    keepdims: &[bool],
    options: &[String],
    into: &[Option<&Array>],
) -> Result<Vec<Array>> {
    let n_outs = kernel.n_outputs();
    if keepdims.len() != n_outs || into.len() != n_outs {
        return Err(Error::invalid(
            op,
            format!("a reduction of {n_outs} outputs takes {n_outs} keepdims and out values"),
        ));
    }
    let ReduceAxes {
        device,
        red,
        keep,
        out_shape,
        ..
    } = ReduceAxes::new(op, inputs, axes, false)?;
    let a = inputs[0];
    let red_shape: Vec<usize> = red.iter().map(|&i| a.shape()[i]).collect();
    for d in kernel.dtypes() {
        check_dtype(&device, op, d)?;
    }
    let mut outs = Vec::with_capacity(n_outs);
    for (j, into) in into.iter().enumerate() {
        let dt = kernel.output_of(j);
        outs.push(match into {
            None => Array::empty_on(&device, &out_shape, dt)?,
            Some(o) => {
                let n: usize = out_shape.iter().product();
                if o.device() != &device {
                    return Err(Error::DeviceMismatch {
                        op: op.into(),
                        lhs: device.label(),
                        rhs: o.device().label(),
                    });
                }
                if o.dtype() != dt || o.size() != n || !o.is_c_contiguous() {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "the out array ({} {:?}) does not take the reduction's {dt} result \
                             of shape {out_shape:?} in place",
                            o.dtype(),
                            o.shape(),
                        ),
                    ));
                }
                let dims: Vec<isize> = out_shape.iter().map(|&d| d as isize).collect();
                o.reshape(&dims)?
            }
        });
    }
    let finish = |outs: Vec<Array>| -> Result<Vec<Array>> {
        outs.into_iter()
            .zip(keepdims)
            .map(|(o, &kd)| {
                let final_shape: Vec<isize> = (0..a.ndim())
                    .filter(|i| kd || !red.contains(i))
                    .map(|i| {
                        if red.contains(&i) {
                            1
                        } else {
                            a.shape()[i] as isize
                        }
                    })
                    .collect();
                o.reshape(&final_shape)
            })
            .collect()
    };
    if outs[0].size() == 0 {
        return finish(outs);
    }
    // Split every input layout into its kept part and its reduced part, and simplify each.
    let part = |l: &Layout, axes: &[usize]| Layout {
        shape: axes.iter().map(|&i| l.shape[i]).collect(),
        strides: axes.iter().map(|&i| l.strides[i]).collect(),
        offset: l.offset,
    };
    let mut keep_layouts: Vec<Layout> = inputs.iter().map(|x| part(&x.layout, &keep)).collect();
    keep_layouts.extend(outs.iter().map(|o| o.layout.clone()));
    let (m_out, m_keep) = merge_axes(&out_shape, &keep_layouts);
    let red_layouts: Vec<Layout> = inputs.iter().map(|x| part(&x.layout, &red)).collect();
    let (m_red, m_red_l) = if red_shape.is_empty() {
        (vec![], red_layouts)
    } else {
        merge_axes(&red_shape, &red_layouts)
    };
    let in_layouts: Vec<Layout> = (0..inputs.len())
        .map(|k| {
            let mut shape = m_out.clone();
            shape.extend(&m_red);
            let mut strides = m_keep[k].strides.clone();
            strides.extend(&m_red_l[k].strides);
            Layout {
                shape,
                strides,
                offset: inputs[k].layout.offset,
            }
        })
        .collect();
    let mut out_ops: Vec<Operand<'_>> = outs
        .iter()
        .enumerate()
        .map(|(j, o)| Operand {
            buffer: &o.buffer,
            layout: m_keep[inputs.len() + j].clone(),
        })
        .collect();
    let extra_outputs = out_ops.split_off(1);
    let call = ReductionCall {
        kernel,
        out_shape: m_out.clone(),
        reduce_shape: m_red,
        inputs: inputs
            .iter()
            .zip(in_layouts)
            .map(|(x, l)| Operand {
                buffer: &x.buffer,
                layout: l,
            })
            .collect(),
        output: out_ops.remove(0),
        extra_outputs,
        params,
    };
    if crate::cuda::order::needed() {
        let reads: Vec<&cupy_core::backend::Buffer> =
            call.inputs.iter().map(|o| o.buffer).collect();
        let writes: Vec<&cupy_core::backend::Buffer> = outs.iter().map(|o| &o.buffer).collect();
        crate::cuda::order::order(&device, &reads, &writes)?;
    }
    crate::cuda::record::submit(&device, crate::cuda::record::Call::Reduce(&call, options))?;
    finish(outs)
}

/// Applies a built-in reduction with NumPy's keyword arguments ([`Reduce`]):
/// `numpy.sum(a, axis=..., keepdims=..., dtype=..., out=..., initial=..., where=...)` and
/// friends.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for `max`/`min` of an empty selection
/// without `initial` ("zero-size array to reduction operation maximum which has no identity"),
/// for `where` on `max`/`min` without `initial`, or an `out` of the wrong shape;
/// [`Error::TypeError`] for an `out` dtype the result cannot be cast to (`same_kind`), a
/// keyword the reduction does not take (`dtype=` of `max`), or a non-bool `where`;
/// [`Error::ShapeMismatch`] for a `where` that does not broadcast; dtype and device errors.
pub fn reduce(r: &Reduction, a: &Array, opts: &Reduce) -> Result<Array> {
    let name = r.name();
    let axes = &opts.axis;
    let red = normalize_axes(name, axes, a.ndim())?;
    let count: usize = red.iter().map(|&i| a.shape()[i]).product();
    for (kw, given) in [
        ("initial", opts.initial.is_some()),
        ("where", opts.where_.is_some()),
    ] {
        if given && !r.takes(kw) {
            return Err(Error::TypeError {
                op: name.into(),
                dtypes: vec![a.dtype()],
                msg: format!("{name}() got an unexpected keyword argument '{kw}'"),
            });
        }
    }
    let mask = match &opts.where_ {
        Some(w) => Some(super::keywords::where_mask(name, w, a)?),
        None => None,
    };
    if opts.initial.is_none() {
        if mask.is_some() && r.empty_error.is_some() {
            return Err(Error::invalid(
                name,
                format!(
                    "reduction operation '{name}' does not have an identity, so to use a where mask one has to specify 'initial'"
                ),
            ));
        }
        r.empty_error(count)?;
    }
    if let Some(check) = r.check {
        check(a, opts)?;
    }
    let (mut kernel, params) = r.kernel_with(a.dtype(), opts, count)?;
    if mask.is_some() {
        kernel = super::keywords::masked(kernel);
    }
    if let Some(init) = opts.initial {
        let v = super::keywords::initial_value(name, init, kernel.output)?;
        kernel = super::keywords::with_initial(kernel, v)?;
    }
    let mut inputs = vec![a];
    inputs.extend(mask.as_ref());
    run_into(name, &kernel, params, &inputs, &red, opts)
}

/// Runs a built reduction kernel over `inputs` (all of the first's shape) with `opts`' axes,
/// `keepdims` and `out` (checked against the result's shape, cast `same_kind`): the common
/// tail of every reduction.
///
/// # Errors
/// As [`reduce`].
pub(crate) fn run_into(
    name: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    red: &[usize],
    opts: &Reduce,
) -> Result<Array> {
    let a = inputs[0];
    let axes = &opts.axis;
    if let Some(out) = &opts.out {
        let shape: Vec<usize> = (0..a.ndim())
            .filter(|i| opts.keepdims || !red.contains(i))
            .map(|i| if red.contains(&i) { 1 } else { a.shape()[i] })
            .collect();
        if out.shape() != shape.as_slice() {
            return Err(Error::invalid(
                name,
                format!(
                    "output parameter has shape {:?}, the reduction of shape {:?} gives {shape:?}",
                    out.shape(),
                    a.shape()
                ),
            ));
        }
        let res = reduce_with(name, kernel, params, inputs, axes, opts.keepdims)?;
        return write_out(name, &res, out);
    }
    reduce_with(name, kernel, params, inputs, axes, opts.keepdims)
}

/// Copies a result into `out=` (NumPy's `same_kind` cast) and returns `out`.
///
/// # Errors
/// [`Error::TypeError`] naming the op when the cast is not `same_kind`; shape errors.
pub(crate) fn write_out(name: &str, res: &Array, out: &Array) -> Result<Array> {
    out.copy_from(res).map_err(|e| match e {
        Error::TypeError { dtypes, .. } => Error::TypeError {
            op: name.into(),
            dtypes,
            msg: format!(
                "cannot cast the {} result to the out array's {} with casting rule 'same_kind'",
                res.dtype(),
                out.dtype()
            ),
        },
        e => e,
    })?;
    Ok(out.clone())
}
