//! The steps of a fused function's reductions and views, in trace order.
//!
//! Reductions that reduce one iteration space (the same broadcast shape and axes) and do not
//! depend on each other run as one reduction kernel of several outputs
//! ([`ReduceKernel::merge`]): `(x.sum(), x.max())`, or a batch-norm's `mean(x)` and
//! `mean(x * x)`, read `x` once. A reduction joins the kernel of an earlier one when every
//! value it reads exists before that earlier reduction runs (the arguments, and the results
//! and views traced before it), which also proves that it does not depend on it.

use super::lets::{compact, inline};
use super::plan::{broadcast_of, elementwise_kernel, splice_reduction, Source, Stage, Traced};
use super::plan::{FusedKernel, Step, What};
use super::Reduce;
use crate::statistics::reduction::{normalize_axes, Axes};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{Expr, ReduceKernel};
use cupy_core::layout::Layout;
use cupy_core::scalar::Scalar;

/// Inlined reduction maps larger than this many nodes are computed by a kernel of their own.
const INLINE_LIMIT: usize = 4096;

/// A reduction of the trace, planned but not yet given a step.
struct Planned<'t> {
    /// Its source number.
    src: usize,
    st: &'t Stage,
    /// The inputs its map reads, and their broadcast shape.
    inputs: Vec<usize>,
    shape: Vec<usize>,
    /// Normalized reduced axes.
    red: Vec<usize>,
    /// The built-in reduction kernel (over one input) and its own parameters.
    rk: ReduceKernel,
    rparams: Vec<Scalar>,
    /// Whether its map is small enough to inline into the reduction kernel.
    inline: bool,
}

/// The reduction and view steps of `traced`.
pub(super) struct Stages {
    pub steps: Vec<Step>,
    /// The shapes and dtypes of every input (the arguments, then the sources).
    pub shapes: Vec<Vec<usize>>,
    pub dtypes: Vec<DType>,
    /// Per source: the step that computes it and its output number there (`None`: a view).
    pub reduce_step: Vec<Option<(usize, usize)>>,
    /// Every input a reduction reads.
    pub reduction_reads: Vec<usize>,
}

/// Plans the reductions and views of `traced` (arguments of these shapes and dtypes).
///
/// # Errors
/// Shape mismatches, bad reduction axes, an empty reduction without identity, a reduction of
/// no array.
pub(super) fn stages(
    op: &str,
    traced: &Traced,
    mut shapes: Vec<Vec<usize>>,
    mut dtypes: Vec<DType>,
) -> Result<Stages> {
    let param_dtypes: Vec<DType> = traced.param_slots.iter().map(|s| s.1).collect();
    let n_arrays = traced.n_arrays;
    // Pass 1: shapes, kernels and view steps, in trace order.
    let mut views: Vec<Option<Step>> = vec![];
    let mut planned: Vec<Planned<'_>> = vec![];
    for (j, src) in traced.sources.iter().enumerate() {
        let st = match src {
            Source::Reduce(st) => st,
            Source::View(v) => {
                let base = &shapes[v.base];
                let padded = match &v.pad_of {
                    None => base.clone(),
                    Some(ins) if v.full => broadcast_of(op, &shapes, ins)?,
                    Some(ins) => {
                        let r = broadcast_of(op, &shapes, ins)?.len();
                        let mut p = vec![1; r.saturating_sub(base.len())];
                        p.extend_from_slice(base);
                        p
                    }
                };
                let shape = Layout::contiguous(&padded).slice(&v.items)?.shape;
                views.push(Some(Step {
                    kernel: None,
                    what: What::View {
                        src: n_arrays + j,
                        base: v.base,
                        padded,
                        items: v.items.clone(),
                    },
                }));
                shapes.push(shape);
                dtypes.push(dtypes[v.base]);
                continue;
            }
        };
        views.push(None);
        let (_, stmts, roots, inputs) = compact(&traced.lets, std::slice::from_ref(&st.map));
        let name = st.r.name();
        if inputs.is_empty() {
            return Err(Error::invalid(
                name,
                "fuse: a reduction needs an array operand, not a constant",
            ));
        }
        let shape = broadcast_of(op, &shapes, &inputs)?;
        let red = normalize_axes(name, &st.axes, shape.len())?;
        let count: usize = red.iter().map(|&i| shape[i]).product();
        st.r.empty_error(count)?;
        let opts = Reduce {
            dtype: st.dtype,
            ddof: st.ddof,
            ..Default::default()
        };
        let (rk, rparams) = st.r.kernel_with(roots[0].ty, &opts, count)?;
        let out_shape: Vec<usize> = (0..shape.len())
            .filter_map(|i| match (red.contains(&i), st.keepdims) {
                (false, _) => Some(shape[i]),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        planned.push(Planned {
            src: j,
            st,
            inline: inline(&stmts, &roots[0], INLINE_LIMIT).is_some(),
            inputs,
            shape,
            red,
            rk,
            rparams,
        });
        shapes.push(out_shape);
        dtypes.push(st.out);
    }
    // Pass 2: each inlined reduction joins the first earlier group it may (see the module
    // docs); groups are lists of indices into `planned`.
    let mut groups: Vec<Vec<usize>> = vec![];
    for (i, p) in planned.iter().enumerate() {
        let joins = groups.iter_mut().find(|g| {
            let f = &planned[g[0]];
            p.inline
                && f.inline
                && f.shape == p.shape
                && f.red == p.red
                && p.inputs
                    .iter()
                    .all(|&k| k < n_arrays || k - n_arrays < f.src)
        });
        match joins {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    // Pass 3: the steps, in trace order (a group's step where its first reduction was).
    let mut steps = vec![];
    let mut reduce_step: Vec<Option<(usize, usize)>> = vec![None; traced.sources.len()];
    let mut reduction_reads = vec![];
    let mut views = views.into_iter();
    let mut next = 0;
    for j in 0..traced.sources.len() {
        if let Some(v) = views.next().flatten() {
            steps.push(v);
            continue;
        }
        let i = next;
        next += 1;
        let Some(g) = groups.iter().find(|g| g[0] == i) else {
            continue; // a later member of an earlier group
        };
        let members: Vec<&Planned<'_>> = g.iter().map(|&m| &planned[m]).collect();
        let maps: Vec<Expr> = members.iter().map(|p| p.st.map.clone()).collect();
        let (locals, stmts, roots, inputs) = compact(&traced.lets, &maps);
        let in_dtypes: Vec<DType> = inputs.iter().map(|&k| dtypes[k]).collect();
        reduction_reads.extend(inputs.iter().copied());
        let first = members[0];
        let reduce = |inputs, rparams: Vec<Scalar>| What::Reduce {
            axes: Axes::Some(first.red.iter().map(|&a| a as isize).collect()),
            keepdims: members.iter().map(|p| p.st.keepdims).collect(),
            inputs,
            shape: first.shape.clone(),
            rparams,
            srcs: members.iter().map(|p| n_arrays + p.src).collect(),
            into: vec![None; members.len()],
        };
        if !first.inline {
            // One reduction whose map is computed into a temporary array first.
            let k = elementwise_kernel(
                op,
                in_dtypes,
                param_dtypes.clone(),
                locals,
                stmts,
                roots.clone(),
            );
            steps.push(Step {
                kernel: Some(FusedKernel::Elementwise(k)),
                what: What::Materialize {
                    inputs,
                    shape: first.shape.clone(),
                },
            });
            let mut rk = first.rk.clone();
            rk.name = op.into();
            steps.push(Step {
                kernel: Some(FusedKernel::Reduction(rk)),
                what: reduce(None, first.rparams.clone()),
            });
            reduce_step[j] = Some((steps.len() - 1, 0));
            continue;
        }
        let mut parts = vec![];
        let mut rparams = vec![];
        for (p, root) in members.iter().zip(&roots) {
            let m = inline(&stmts, root, INLINE_LIMIT).expect("inlined alone, inlined here");
            let rk = p.rk.clone();
            parts.push(splice_reduction(
                rk,
                &m,
                op,
                in_dtypes.clone(),
                param_dtypes.clone(),
            ));
            rparams.extend(p.rparams.iter().copied());
        }
        let kernel = if parts.len() == 1 {
            parts.remove(0)
        } else {
            ReduceKernel::merge(op, &parts, param_dtypes.len())?
        };
        steps.push(Step {
            kernel: Some(FusedKernel::Reduction(kernel)),
            what: reduce(Some(inputs), rparams),
        });
        for (o, p) in members.iter().enumerate() {
            reduce_step[p.src] = Some((steps.len() - 1, o));
        }
    }
    Ok(Stages {
        steps,
        shapes,
        dtypes,
        reduce_step,
        reduction_reads,
    })
}
