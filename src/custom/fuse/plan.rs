//! The kernels of a traced fused function and their launches.
//!
//! A trace is a program over shared values (every op's result is a kernel local, see
//! [`Traced::lets`]) with reductions in it ([`Stage`]). It runs as:
//! - one reduction kernel per reduction, whose map is the elementwise work it reduces, inlined
//!   (a reduction kernel has no locals), or one kernel of several outputs for independent
//!   reductions of one iteration space (stages.rs); when that inlined expression would be very
//!   large (a value reused many times over, as `s = s + s` repeated), the map is first
//!   computed by an elementwise kernel into a temporary array, which the reduction then reads;
//! - one elementwise kernel for the outputs that share a shape (each reads the arguments and the
//!   reduced values it needs, broadcast); an output that is a reduction's result is that result.
//!
//! Each kernel takes only the inputs and locals its expressions reach, so a kernel after a
//! reduction broadcasts over the shapes it uses, as the unfused chain would.

use super::lets::compact;
use super::stages::{stages, Stages};
use super::{Axes, Reduction};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::ufunc::kernel_with_lets_n;
use crate::statistics::reduction::reduce_into_multi;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, ExprKind, Kernel, ReduceKernel, Stmt};
use cupy_core::kernel::math::Lets;
use cupy_core::layout::{broadcast_shapes, SliceItem};
use cupy_core::scalar::Scalar;

/// The op name of a reduction's `out=` write (`Sym::reduce_out`), whose shape must match exactly.
pub(crate) const REDUCTION_OUT: &str = "reduction (out=)";

/// A reduction inside a fused function.
#[derive(Clone, Debug)]
pub(crate) struct Stage {
    /// The reduced expression (over the trace's inputs, parameters and locals).
    pub map: Expr,
    pub r: Reduction,
    pub axes: Axes,
    pub keepdims: bool,
    /// `dtype=` of the reduction.
    pub dtype: Option<DType>,
    /// `ddof=` of the reduction (`var`, `std`).
    pub ddof: usize,
    /// The result's dtype.
    pub out: DType,
}

/// A value the kernels of a fused function read besides its arguments: a reduction's result
/// or a view of another input.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    Reduce(Stage),
    View(View),
}

/// A view of input `base` (an argument, a reduction's result or another view): `base`, padded
/// with leading length-1 axes to the rank of the broadcast shape of the inputs `pad_of` (the
/// inputs of the indexed expression; `None`: no padding), or broadcast to that shape
/// (`full`), indexed with `items`.
#[derive(Clone, Debug)]
pub(crate) struct View {
    pub base: usize,
    pub pad_of: Option<Vec<usize>>,
    pub items: Vec<SliceItem>,
    /// Broadcast `base` to the whole broadcast shape of `pad_of` first (not only padded to its
    /// rank): for items that pick elements (integers, partial slices), so every input of an
    /// indexed expression is indexed as the expression's value would be.
    pub full: bool,
}

/// An in-place write (`op`): `value` must broadcast to `target`'s shape.
#[derive(Clone, Debug)]
pub(crate) struct ShapeCheck {
    pub op: String,
    pub target: Expr,
    pub value: Expr,
}

/// A traced fused function for one argument signature.
#[derive(Clone, Debug)]
pub(crate) struct Traced {
    /// The outputs, in the closure's order.
    pub outputs: Vec<Expr>,
    /// The array arguments written in place: (input number, its new value in its dtype).
    pub writes: Vec<(usize, Expr)>,
    /// The shape checks of the in-place writes.
    pub checks: Vec<ShapeCheck>,
    /// Reductions written into array arguments (`Sym::reduce_out`): (input number, source
    /// number, the argument's value after that write).
    pub reduce_outs: Vec<(usize, usize, Expr)>,
    /// The reductions and views, in trace order: `sources[j]` is input `n_arrays + j`.
    pub sources: Vec<Source>,
    /// Number of array arguments (inputs `0..n_arrays`).
    pub n_arrays: usize,
    /// Per parameter: which weak source it comes from (an argument, or past them a derived
    /// value), and its dtype.
    pub param_slots: Vec<(usize, DType)>,
    /// The shared values: every op's result, as kernel locals from 0.
    pub lets: Lets,
    /// Weak scalars derived from scalar arguments (see `Trace::derived`).
    pub derived: Vec<Expr>,
}

/// One kernel of a fused function (see [`crate::Fused::kernels`]).
#[derive(Clone, Debug)]
pub enum FusedKernel {
    /// An elementwise kernel (one output per array it writes).
    Elementwise(Kernel),
    /// A reduction kernel.
    Reduction(ReduceKernel),
}

pub(crate) struct Step {
    /// The kernel it runs (`None`: a view, no kernel).
    pub kernel: Option<FusedKernel>,
    pub(super) what: What,
}

pub(super) enum What {
    /// A stage's map into a temporary array, from these sources at this shape.
    Materialize {
        inputs: Vec<usize>,
        shape: Vec<usize>,
    },
    /// Reductions over `axes` of these sources at this shape (`None`: of the temporary array
    /// the step before made), one kernel with an output per reduction (input `srcs[j]`, with
    /// its `keepdims[j]`), with the reductions' own parameters after the fused ones.
    Reduce {
        axes: Axes,
        keepdims: Vec<bool>,
        inputs: Option<Vec<usize>>,
        shape: Vec<usize>,
        rparams: Vec<Scalar>,
        srcs: Vec<usize>,
        /// Per output: the array argument it is written into (`Sym::reduce_out`).
        into: Vec<Option<usize>>,
    },
    /// A view source (input `src`): `base` broadcast to `padded`, indexed with `items`.
    View {
        src: usize,
        base: usize,
        padded: Vec<usize>,
        items: Vec<SliceItem>,
    },
    /// Outputs `outputs` and the writes of arguments `writes` (input number, and whether it is
    /// written directly rather than through a temporary copied afterwards) from these sources
    /// at this shape.
    Outputs {
        inputs: Vec<usize>,
        outputs: Vec<usize>,
        writes: Vec<(usize, bool)>,
        shape: Vec<usize>,
    },
}

/// The launches of one call.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Outputs that are a reduction's result: (output, source).
    direct: Vec<(usize, usize)>,
    /// Outputs that are an array argument a reduction wrote in place: (output, argument).
    arg_outs: Vec<(usize, usize)>,
    n_outputs: usize,
    /// Number of inputs (arguments and sources).
    n_inputs: usize,
}

/// Makes a built-in reduction kernel reduce `map` (the fused expression) instead of its input:
/// the fused inputs and parameters come first, the reduction's own parameters after.
pub(super) fn splice_reduction(
    mut rk: ReduceKernel,
    map: &Expr,
    name: &str,
    in_dtypes: Vec<DType>,
    param_dtypes: Vec<DType>,
) -> ReduceKernel {
    let shift = param_dtypes.len();
    let mut fix = |e: &Expr| -> Option<Expr> {
        match e.kind {
            ExprKind::Input(0) => Some(map.clone()),
            ExprKind::Param(k) => Some(Expr::param(k + shift, e.ty)),
            _ => None,
        }
    };
    rk.map = rk.map.iter().map(|m| m.rewrite(&mut fix)).collect();
    rk.post = rk.post.rewrite(&mut fix);
    rk.name = name.into();
    rk.inputs = in_dtypes;
    let mut all_params = param_dtypes;
    all_params.extend(rk.params.iter().copied());
    rk.params = all_params;
    rk
}

pub(super) fn broadcast_of(
    op: &str,
    shapes: &[Vec<usize>],
    inputs: &[usize],
) -> Result<Vec<usize>> {
    let mut shape: Vec<usize> = vec![];
    for &k in inputs {
        shape = broadcast_shapes(op, &shape, &shapes[k]).map_err(|_| Error::ShapeMismatch {
            op: op.into(),
            lhs: shape.clone(),
            rhs: shapes[k].clone(),
        })?;
    }
    Ok(shape)
}

/// The elementwise kernel storing `values`, whose shared subexpressions are the locals
/// `locals` set by `body` (the ufunc table's assembler, [`kernel_with_lets_n`]).
pub(super) fn elementwise_kernel(
    name: &str,
    inputs: Vec<DType>,
    params: Vec<DType>,
    locals: Vec<DType>,
    body: Vec<Stmt>,
    values: Vec<Expr>,
) -> Kernel {
    let lets = Lets {
        first_local: 0,
        locals,
        stmts: body,
    };
    kernel_with_lets_n(name, inputs, params, lets, values)
}

/// The writes of array arguments that their reduction kernel can do itself
/// (`Sym::reduce_out`): (write number, source number). The argument's final value must be
/// that write, the argument C-contiguous with the result's dtype and shape, and nothing else
/// in the function may read the argument (the reduction writes it before the other kernels
/// run).
fn direct_reduction_writes(
    traced: &Traced,
    arrays: &[&Array],
    shapes: &[Vec<usize>],
    root: &[Option<usize>],
    reduction_reads: &[usize],
) -> Vec<(usize, usize)> {
    let mut out = vec![];
    for (w, (a, e)) in traced.writes.iter().enumerate() {
        let Some(&(_, src, _)) = traced
            .reduce_outs
            .iter()
            .rev()
            .find(|(ra, _, after)| ra == a && after == e)
        else {
            continue;
        };
        let Source::Reduce(st) = &traced.sources[src] else {
            continue;
        };
        let arr = arrays[*a];
        let k = traced.n_arrays + src;
        if arr.dtype() != st.out || arr.shape() != &shapes[k][..] || !arr.is_c_contiguous() {
            continue;
        }
        let reads_arg = |inputs: &[usize]| inputs.iter().any(|&i| root[i] == Some(*a));
        // An output that is the argument after the write is the argument itself.
        let others: Vec<Expr> = traced
            .outputs
            .iter()
            .filter(|o| *o != e)
            .cloned()
            .chain(
                traced
                    .writes
                    .iter()
                    .enumerate()
                    .filter(|(v, _)| *v != w)
                    .map(|(_, (_, x))| x.clone()),
            )
            .collect();
        // Reads of the argument's value after the write read what the reduction wrote: only
        // reads of its old value keep the write out of the reduction.
        let mut lets = traced.lets.clone();
        if let ExprKind::Var(l) = e.kind {
            for st in &mut lets.stmts {
                if let Stmt::Let { var, value } = st {
                    if *var == l {
                        *value = Expr::input(k, value.ty);
                    }
                }
            }
        }
        if reads_arg(reduction_reads) || reads_arg(&compact(&lets, &others).3) {
            continue;
        }
        out.push((w, src));
    }
    out
}

impl Plan {
    /// The launches of `traced` on these array arguments.
    ///
    /// # Errors
    /// Shape mismatches between the values an op combines, bad reduction axes, an empty
    /// reduction without identity, a reduction of no array.
    pub(crate) fn new(op: &str, traced: &Traced, arrays: &[&Array]) -> Result<Plan> {
        let param_dtypes: Vec<DType> = traced.param_slots.iter().map(|s| s.1).collect();
        let Stages {
            mut steps,
            shapes,
            dtypes,
            reduce_step,
            reduction_reads,
        } = stages(
            op,
            traced,
            arrays.iter().map(|a| a.shape().to_vec()).collect(),
            arrays.iter().map(|a| a.dtype()).collect(),
        )?;
        let shape_of = |e: &Expr| -> Result<Vec<usize>> {
            let (_, _, _, inputs) = compact(&traced.lets, std::slice::from_ref(e));
            broadcast_of(op, &shapes, &inputs)
        };
        // In-place writes keep their target's shape (NumPy's "non-broadcastable output"); a
        // reduction's `out=` must have the result's shape exactly (NumPy: "output parameter
        // for reduction operation ... has the wrong number of dimensions" / wrong shape).
        for c in &traced.checks {
            let (t, v) = (shape_of(&c.target)?, shape_of(&c.value)?);
            let exact = c.op == REDUCTION_OUT;
            if exact && t != v {
                return Err(Error::ShapeMismatch {
                    op: format!(
                        "{} (the output of shape {t:?} must have the reduction's shape {v:?})",
                        c.op
                    ),
                    lhs: t,
                    rhs: v,
                });
            }
            if broadcast_shapes(op, &t, &v).ok().as_deref() != Some(&t[..]) {
                return Err(Error::ShapeMismatch {
                    op: format!("{} (non-broadcastable output operand of shape {t:?})", c.op),
                    lhs: t,
                    rhs: v,
                });
            }
        }
        // The argument each input views (a reduction's result views none).
        let mut root: Vec<Option<usize>> = (0..traced.n_arrays).map(Some).collect();
        for src in &traced.sources {
            root.push(match src {
                Source::View(v) => root[v.base],
                Source::Reduce(_) => None,
            });
        }
        let into = direct_reduction_writes(traced, arrays, &shapes, &root, &reduction_reads);
        for &(w, src) in &into {
            let (step, o) = reduce_step[src].expect("a reduction's step");
            if let What::Reduce { into, .. } = &mut steps[step].what {
                into[o] = Some(traced.writes[w].0);
            }
        }
        // Outputs: a reduction's result as it is; the rest, and the writes of arguments,
        // grouped by shape, one kernel each.
        let mut direct = vec![];
        let mut groups: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> = vec![];
        let mut arg_outs = vec![];
        for (o, e) in traced.outputs.iter().enumerate() {
            if let Some(&(w, _)) = into.iter().find(|(w, _)| traced.writes[*w].1 == *e) {
                arg_outs.push((o, traced.writes[w].0));
                continue;
            }
            if let ExprKind::Input(k) = e.kind {
                if k >= traced.n_arrays {
                    direct.push((o, k));
                    continue;
                }
            }
            let shape = shape_of(e)?;
            match groups.iter_mut().find(|g| g.0 == shape) {
                Some(g) => g.1.push(o),
                None => groups.push((shape, vec![o], vec![])),
            }
        }
        for (w, (k, _)) in traced.writes.iter().enumerate() {
            if into.iter().any(|&(d, _)| d == w) {
                continue;
            }
            let shape = shapes[*k].clone();
            match groups.iter_mut().find(|g| g.0 == shape) {
                Some(g) => g.2.push(w),
                None => groups.push((shape, vec![], vec![w])),
            }
        }
        // Groups that write arguments run last, after every group that reads the arguments'
        // old values; one that another later group still reads writes through temporaries.
        groups.sort_by_key(|g| !g.2.is_empty());
        // (shape, outputs, writes, the expressions they store)
        type Group = (Vec<usize>, Vec<usize>, Vec<usize>, Vec<Expr>);
        let planned: Vec<Group> = groups
            .into_iter()
            .map(|(shape, outs, writes)| {
                let mut roots: Vec<Expr> =
                    outs.iter().map(|&o| traced.outputs[o].clone()).collect();
                roots.extend(writes.iter().map(|&w| traced.writes[w].1.clone()));
                (shape, outs, writes, roots)
            })
            .collect();
        let reads: Vec<Vec<usize>> = planned
            .iter()
            .map(|g| compact(&traced.lets, &g.3).3)
            .collect();
        for (gi, (shape, outs, writes, roots)) in planned.iter().enumerate() {
            let (locals, stmts, roots, inputs) = compact(&traced.lets, roots);
            let in_dtypes = inputs.iter().map(|&k| dtypes[k]).collect();
            let k = elementwise_kernel(op, in_dtypes, param_dtypes.clone(), locals, stmts, roots);
            let writes = writes
                .iter()
                .map(|&w| {
                    let arg = traced.writes[w].0;
                    let later = reads[gi + 1..]
                        .iter()
                        .any(|r| r.iter().any(|&i| root[i] == Some(arg)));
                    (arg, !later)
                })
                .collect();
            steps.push(Step {
                kernel: Some(FusedKernel::Elementwise(k)),
                what: What::Outputs {
                    inputs,
                    outputs: outs.clone(),
                    writes,
                    shape: shape.clone(),
                },
            });
        }
        Ok(Plan {
            steps,
            direct,
            arg_outs,
            n_outputs: traced.outputs.len(),
            n_inputs: shapes.len(),
        })
    }

    /// Runs the plan on the array arguments with the fused parameters' values.
    ///
    /// # Errors
    /// Launch errors (dtype refusals, out of memory).
    pub(crate) fn run(
        &self,
        op: &str,
        arrays: &[&Array],
        params: Vec<Scalar>,
    ) -> Result<Vec<Array>> {
        let device = arrays[0].device().clone();
        // Every input: the arguments, then the sources as their steps compute them.
        let mut sources: Vec<Option<Array>> = arrays.iter().map(|a| Some((*a).clone())).collect();
        sources.resize(self.n_inputs, None);
        let mut temp: Option<Array> = None;
        let mut outs: Vec<Option<Array>> = vec![None; self.n_outputs];
        let mut copies: Vec<(usize, Array)> = vec![];
        fn get(sources: &[Option<Array>], k: usize) -> &Array {
            sources[k]
                .as_ref()
                .expect("a source computed before its readers")
        }
        let views =
            |sources: &[Option<Array>], inputs: &[usize], shape: &[usize]| -> Result<Vec<Array>> {
                inputs
                    .iter()
                    .map(|&k| get(sources, k).broadcast_to(shape))
                    .collect()
            };
        for step in &self.steps {
            match (&step.what, &step.kernel) {
                (
                    What::View {
                        src,
                        base,
                        padded,
                        items,
                    },
                    None,
                ) => {
                    let v = get(&sources, *base).broadcast_to(padded)?.slice(items)?;
                    sources[*src] = Some(v);
                }
                (What::Materialize { inputs, shape }, Some(FusedKernel::Elementwise(k))) => {
                    let v = views(&sources, inputs, shape)?;
                    let refs: Vec<&Array> = v.iter().collect();
                    temp = Some(
                        Elementwise {
                            op,
                            kernel: k,
                            inputs: &refs,
                            raws: &[],
                            params: params.clone(),
                            outs: vec![None],
                            device: Some(&device),
                            shape: Some(shape),
                        }
                        .run_one()?,
                    );
                }
                (
                    What::Reduce {
                        axes,
                        keepdims,
                        inputs,
                        shape,
                        rparams,
                        srcs,
                        into,
                    },
                    Some(FusedKernel::Reduction(rk)),
                ) => {
                    let into: Vec<Option<&Array>> =
                        into.iter().map(|a| a.map(|a| arrays[a])).collect();
                    let (p, v) = match inputs {
                        Some(inputs) => {
                            let mut all = params.clone();
                            all.extend(rparams.iter().copied());
                            (all, views(&sources, inputs, shape)?)
                        }
                        None => (
                            rparams.clone(),
                            vec![temp.take().expect("materialized map")],
                        ),
                    };
                    let refs: Vec<&Array> = v.iter().collect();
                    let r = reduce_into_multi(op, rk, p, &refs, axes, keepdims, &[], &into)?;
                    for (&k, a) in srcs.iter().zip(r) {
                        sources[k] = Some(a);
                    }
                }
                (
                    What::Outputs {
                        inputs,
                        outputs,
                        writes,
                        shape,
                    },
                    Some(FusedKernel::Elementwise(k)),
                ) => {
                    let v = views(&sources, inputs, shape)?;
                    let refs: Vec<&Array> = v.iter().collect();
                    let mut targets = vec![None; outputs.len()];
                    targets.extend(
                        writes
                            .iter()
                            .map(|&(a, direct)| direct.then_some(arrays[a])),
                    );
                    let mut res = Elementwise {
                        op,
                        kernel: k,
                        inputs: &refs,
                        raws: &[],
                        params: params.clone(),
                        outs: targets,
                        device: Some(&device),
                        shape: Some(shape),
                    }
                    .run()?;
                    let written = res.split_off(outputs.len());
                    for (&o, a) in outputs.iter().zip(res) {
                        outs[o] = Some(a);
                    }
                    for (&(a, direct), t) in writes.iter().zip(written) {
                        if !direct {
                            copies.push((a, t));
                        }
                    }
                }
                _ => unreachable!("step kinds match their kernels"),
            }
        }
        for (a, t) in copies {
            arrays[a].copy_from(&t)?;
        }
        for &(o, k) in &self.direct {
            outs[o] = Some(get(&sources, k).clone());
        }
        for &(o, a) in &self.arg_outs {
            outs[o] = Some(arrays[a].clone());
        }
        Ok(outs
            .into_iter()
            .map(|o| o.expect("every output computed"))
            .collect())
    }
}
