//! Reductions: one pass, or chunked partials then a final pass. A tuple of accumulators has
//! one partial buffer per accumulator; the final pass reads them as its inputs.

use crate::buffer::word_bytes;
use crate::queue::Bound;
use crate::window::{piece_windows, split_boxes, Piece};
use crate::{fits32, hash_of, plan_budget, WgpuBackend, WgpuBuffer};
use cupy_core::backend::{Backend, Buffer, Operand, ReductionCall};
use cupy_core::kernel::ir::{Expr, ReduceKernel};
use cupy_core::kernel::wgsl::{self, BindingPlan, ReduceMode, ReduceSpec};
use cupy_core::layout::{contiguous_strides, Layout};
use cupy_core::{Error, Result, Scalar};
use std::sync::Arc;

impl WgpuBackend {
    #[allow(clippy::too_many_arguments)]
    fn launch_reduce(
        &self,
        k: &ReduceKernel,
        out_shape: &[usize],
        reduce_shape: &[usize],
        inputs: &[(&WgpuBuffer, &Layout)],
        // The outputs and their layouts, or (layouts `None`) one partial buffer per accumulator.
        output: (&[&WgpuBuffer], Option<&[&Layout]>),
        params: &[Scalar],
        mode: ReduceMode,
        chunks: usize,
        chunk_len: usize,
        wide: bool,
    ) -> Result<()> {
        let partial = output.1.is_none();
        let outs: Vec<_> = if partial {
            output
                .0
                .iter()
                .zip(&k.acc)
                .map(|(b, d)| (b.id, *d))
                .collect()
        } else {
            output
                .0
                .iter()
                .zip(k.outputs())
                .map(|(b, d)| (b.id, d))
                .collect()
        };
        let plan = BindingPlan::new(
            &inputs
                .iter()
                .map(|(b, _)| (b.id, b.dtype))
                .collect::<Vec<_>>(),
            &outs,
            &[],
        );
        let group = mode == ReduceMode::GroupPerOutput;
        let past = |b: &wgpu::Buffer| b.size() > self.binding_cap;
        let big = inputs.iter().any(|(b, _)| past(&b.buf)) || output.0.iter().any(|b| past(&b.buf));
        let spec = ReduceSpec {
            out_ndim: out_shape.len(),
            red_ndim: reduce_shape.len(),
            mode,
            partial,
            wide_int64: wide,
            vec4: group
                && !big
                && (chunks == 1 || chunk_len.is_multiple_of(4))
                && vec4_layouts(k, reduce_shape, inputs)
                && inputs
                    .iter()
                    .all(|(b, _)| output.0.iter().all(|o| o.id != b.id)),
            subgroup: group && self.subgroups && wgsl::reduce_subgroup_eligible(k),
            bindings: plan.clone(),
        };
        let lmode = wgsl::LoopMode {
            guard: self.loop_budget.is_some(),
            window: false,
        };
        let key = hash_of(&("reduce", k, &spec, lmode));
        let opts = &self.opts;
        let pipe = self.pipeline(key, &k.name, &|| {
            let sh = wgsl::emit_reduction_with(k, &spec, opts, lmode)?;
            let mut rw: Vec<bool> = plan.buffers.iter().map(|b| b.1).collect();
            rw.extend(std::iter::repeat_n(true, lmode.extra_bindings()));
            Ok((sh.source, sh.meta, rw))
        })?;
        let mut words = wgsl::reduction_words(
            out_shape,
            reduce_shape,
            chunks,
            chunk_len,
            &inputs.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
            &(0..k.n_outputs())
                .map(|j| output.1.map(|ls| ls[j]))
                .collect::<Vec<_>>(),
        );
        let chb_word = words.len() - 1;
        if lmode.guard {
            words.extend(self.guard_word(&k.name));
        }
        let mut bufs: Vec<&wgpu::Buffer> = vec![&output.0[0].buf; plan.buffers.len()];
        for (i, (b, _)) in inputs.iter().enumerate() {
            bufs[plan.inputs[i]] = &b.buf;
        }
        for (j, b) in output.0.iter().enumerate() {
            bufs[plan.outputs[j]] = &b.buf;
        }
        if let (true, Some(g)) = (lmode.guard, &self.guard) {
            bufs.push(&g.buf);
        }
        let n_out: usize = out_shape.iter().product();
        let groups_of = |units: u64| match mode {
            ReduceMode::GroupPerOutput => units,
            ReduceMode::ThreadPerOutput => units.div_ceil(wgsl::WORKGROUP_SIZE as u64),
        };
        if !big {
            let meta = pipe.meta.pack(params, &words);
            return self.dispatch(&pipe, &meta, &bufs, groups_of((n_out * chunks) as u64));
        }
        // Operands past one storage binding: ranges of chunks whose elements fit one window
        // of each operand, a dispatch each (window.rs).
        let (o_nd, r_nd) = (out_shape.len(), reduce_shape.len());
        let n_red: usize = reduce_shape.iter().product::<usize>().max(1);
        let binds: Vec<(usize, u64)> = plan
            .buffers
            .iter()
            .enumerate()
            .map(|(b, (d, _))| (word_bytes(*d), bufs[b].size()))
            .collect();
        let windows_of = |c0: usize, c1: usize| {
            let (rs, rl) = range_box(reduce_shape, c0 * chunk_len, (c1 * chunk_len).min(n_red));
            let piece = Piece {
                start: [vec![0; o_nd], rs].concat(),
                shape: [out_shape.to_vec(), rl].concat(),
            };
            let mut ops: Vec<(Layout, usize)> = inputs
                .iter()
                .enumerate()
                .map(|(i, (_, l))| (piece.sub(l), plan.inputs[i]))
                .collect();
            for (j, l) in output.1.unwrap_or_default().iter().enumerate() {
                ops.push(((*l).clone(), plan.outputs[j]));
            }
            let w = piece_windows(&ops, &binds, self.binding_cap)?;
            Some(
                w.into_iter()
                    .enumerate()
                    .map(|(b, w)| w.filter(|_| binds[b].1 > self.binding_cap))
                    .collect::<Vec<_>>(),
            )
        };
        let mut c0 = 0;
        while c0 < chunks {
            // The longest range from c0 that fits (doubling, then halving back).
            let mut n = 1;
            if windows_of(c0, c0 + 1).is_none() {
                return Err(Error::Unsupported {
                    op: k.name.clone(),
                    backend: self.label(),
                    reason: format!(
                        "a chunk of {chunk_len} reduced elements over the output shape \
                         {out_shape:?} spans more than one storage binding ({} bytes)",
                        self.binding_cap
                    ),
                });
            }
            while c0 + n < chunks && windows_of(c0, (c0 + 2 * n).min(chunks)).is_some() {
                n = (2 * n).min(chunks - c0);
            }
            let wins = windows_of(c0, c0 + n).unwrap_or_default();
            let mut w = words.clone();
            w[2] = n as u32;
            w[chb_word] = c0 as u32;
            let w_in = |i: usize| 4 + o_nd + r_nd + i * (1 + o_nd + r_nd);
            for (i, (_, l)) in inputs.iter().enumerate() {
                if let Some(win) = wins[plan.inputs[i]] {
                    // May be negative: the shader's i32 address arithmetic wraps.
                    w[w_in(i)] = (l.offset as i64 - win.elem0 as i64) as i32 as u32;
                }
            }
            for (j, l) in output.1.unwrap_or_default().iter().enumerate() {
                if let Some(win) = wins[plan.outputs[j]] {
                    let at = w_in(inputs.len()) + j * (1 + o_nd);
                    w[at] = (l.offset as i64 - win.elem0 as i64) as i32 as u32;
                }
            }
            let bound: Vec<Bound<'_>> = bufs
                .iter()
                .enumerate()
                .map(|(b, buf)| (*buf, wins.get(b).copied().flatten()))
                .collect();
            let meta = pipe.meta.pack(params, &w);
            self.dispatch_bound(&pipe, &meta, &bound, groups_of((n_out * n) as u64))?;
            c0 += n;
        }
        Ok(())
    }

    /// A reduction whose inputs, over every output, span more than one storage binding: the
    /// outputs are split into boxes whose inputs (one reduced element each) fit half a window,
    /// each box reduced on its own (window.rs).
    fn reduce_output_pieces(
        &self,
        call: &ReductionCall<'_>,
        ins: &[(&WgpuBuffer, &Layout)],
        outs: &[&WgpuBuffer],
    ) -> Result<()> {
        let o_nd = call.out_shape.len();
        let outer = |l: &Layout| Layout {
            shape: call.out_shape.clone(),
            strides: l.strides[..o_nd].to_vec(),
            offset: l.offset,
        };
        let mut layouts: Vec<Layout> = ins.iter().map(|(_, l)| outer(l)).collect();
        let mut binds: Vec<(usize, u64)> = ins
            .iter()
            .map(|(b, _)| (word_bytes(b.dtype), b.buf.size()))
            .collect();
        for (j, out) in outs.iter().enumerate() {
            layouts.push(call.output_of(j).layout.clone());
            binds.push((word_bytes(out.dtype), out.buf.size()));
        }
        let ops: Vec<(&Layout, usize)> = layouts.iter().enumerate().map(|(i, l)| (l, i)).collect();
        let pieces = split_boxes(
            &call.out_shape,
            &ops,
            &binds,
            self.binding_cap / 2,
            false,
            usize::MAX,
        )
        .map_err(|why| Error::Unsupported {
            op: call.kernel.name.clone(),
            backend: self.label(),
            reason: format!(
                "a reduction to shape {:?} past one storage binding cannot be split: {why}",
                call.out_shape
            ),
        })?;
        let r_nd = call.reduce_shape.len();
        for p in pieces {
            let full = Piece {
                start: [p.start.clone(), vec![0; r_nd]].concat(),
                shape: [p.shape.clone(), call.reduce_shape.clone()].concat(),
            };
            self.run_reduce(&ReductionCall {
                kernel: call.kernel,
                out_shape: p.shape.clone(),
                reduce_shape: call.reduce_shape.clone(),
                inputs: call
                    .inputs
                    .iter()
                    .map(|o| Operand {
                        buffer: o.buffer,
                        layout: full.sub(&o.layout),
                    })
                    .collect(),
                output: Operand {
                    buffer: call.output.buffer,
                    layout: p.sub(&call.output.layout),
                },
                extra_outputs: call
                    .extra_outputs
                    .iter()
                    .map(|o| Operand {
                        buffer: o.buffer,
                        layout: p.sub(&o.layout),
                    })
                    .collect(),
                params: call.params.clone(),
            })?;
        }
        Ok(())
    }

    /// `Backend::reduce`.
    pub(crate) fn run_reduce(&self, call: &ReductionCall<'_>) -> Result<()> {
        let k = call.kernel;
        k.validate()?;
        for d in k.dtypes() {
            self.check_dtype(&k.name, d)?;
        }
        let n_out: usize = call.out_shape.iter().product();
        if n_out == 0 {
            return Ok(());
        }
        let n_red: usize = call.reduce_shape.iter().product();
        self.check_len(&k.name, n_out.saturating_mul(n_red.max(1)))?;
        let ins: Vec<(&WgpuBuffer, &Layout)> = call
            .inputs
            .iter()
            .map(|o| Ok((self.buf(o.buffer, &k.name)?, &o.layout)))
            .collect::<Result<_>>()?;
        call.check_outputs()?;
        let outs: Vec<&WgpuBuffer> = (0..k.n_outputs())
            .map(|j| self.buf(call.output_of(j).buffer, &k.name))
            .collect::<Result<_>>()?;
        let out_layouts: Vec<&Layout> = (0..k.n_outputs())
            .map(|j| &call.output_of(j).layout)
            .collect();
        if outs.iter().zip(k.outputs()).any(|(b, d)| b.dtype != d)
            || ins.len() != k.inputs.len()
            || ins.iter().zip(&k.inputs).any(|((b, _), d)| b.dtype != *d)
        {
            return Err(Error::invalid(
                &k.name,
                "operand dtypes or count do not match the reduction kernel",
            ));
        }
        let narrow = wgsl::reduce_narrow(k, false);
        let wide = narrow
            && k.params
                .iter()
                .zip(&call.params)
                .any(|(d, v)| !fits32(*d, v));
        let r_nd = call.reduce_shape.len();
        let inner_contig = r_nd > 0
            && call.reduce_shape[r_nd - 1] > 1
            && ins
                .first()
                .is_some_and(|(_, l)| l.strides.last().is_some_and(|s| s.abs() == 1));
        let (mode, mut chunks) = if n_red <= 1 {
            (ReduceMode::ThreadPerOutput, 1)
        } else if inner_contig && n_red >= 256 {
            let c = if n_out >= 2048 {
                1
            } else {
                (group_target().div_ceil(n_out)).min(n_red.div_ceil(8192))
            };
            (ReduceMode::GroupPerOutput, c.max(1))
        } else {
            let c = if n_out >= 65536 {
                1
            } else {
                (262144usize.div_ceil(n_out)).min(n_red.div_ceil(512))
            };
            (ReduceMode::ThreadPerOutput, c.max(1))
        };
        if let (Some(b), true) = (self.loop_budget, n_red > 0) {
            // Each invocation's loop stays under the driver's loop budget: its passes are the
            // chunk's elements it visits (one per pass, with the map's and combine's helper
            // loops), plus 8 tree steps.
            let narrow = wgsl::reduce_narrow(k, wide);
            let passes_of = |es: &[cupy_core::kernel::ir::Expr]| -> u64 {
                es.iter()
                    .map(|e| wgsl::loops::helper_passes(e, narrow))
                    .sum()
            };
            let per = 1 + passes_of(&k.map) + passes_of(&k.combine);
            let fixed =
                16 + 9 * (1 + passes_of(&k.combine)) + wgsl::loops::helper_passes(&k.post, narrow);
            let passes = (plan_budget(b).saturating_sub(fixed) / per).max(2) - 1;
            let stride = if mode == ReduceMode::GroupPerOutput {
                wgsl::WORKGROUP_SIZE as u64
            } else {
                1
            };
            let max_chunk = (passes * stride) as usize;
            chunks = chunks.max(n_red.div_ceil(max_chunk));
        }
        let big = ins.iter().any(|(b, _)| b.buf.size() > self.binding_cap)
            || outs.iter().any(|b| b.buf.size() > self.binding_cap);
        if big && n_red > 0 {
            // Inputs past one storage binding: chunks small enough that one chunk's elements
            // (over every output) take at most half a window of each input (window.rs).
            let o_nd = call.out_shape.len();
            let fits = |c: usize| {
                let clen = n_red.div_ceil(c);
                let (rs, rl) = range_box(&call.reduce_shape, 0, clen.min(n_red));
                let piece = Piece {
                    start: [vec![0; o_nd], rs].concat(),
                    shape: [call.out_shape.clone(), rl].concat(),
                };
                ins.iter().all(|(b, l)| {
                    let (lo, hi) = piece.sub(l).extent();
                    b.buf.size() <= self.binding_cap
                        || crate::window::window(
                            lo as usize,
                            hi as usize,
                            word_bytes(b.dtype),
                            b.buf.size(),
                            self.binding_cap / 2,
                        )
                        .is_some()
                })
            };
            if n_out > 1 && !fits(n_red) {
                return self.reduce_output_pieces(call, &ins, &outs);
            }
            while chunks < n_red && !fits(chunks) {
                chunks = (chunks * 2).min(n_red);
            }
        }
        let mut chunk_len = if n_red == 0 {
            1
        } else {
            n_red.div_ceil(chunks)
        };
        if mode == ReduceMode::GroupPerOutput
            && chunks > 1
            && !big
            && vec4_layouts(k, &call.reduce_shape, &ins)
        {
            // Chunks of whole vectors for the vec4 loads.
            chunk_len = chunk_len.next_multiple_of(4);
        }
        if n_red > 0 {
            chunks = n_red.div_ceil(chunk_len);
        }
        if chunks == 1 {
            return self.launch_reduce(
                k,
                &call.out_shape,
                &call.reduce_shape,
                &ins,
                (&outs, Some(&out_layouts)),
                &call.params,
                mode,
                1,
                chunk_len,
                wide,
            );
        }
        // Two passes: partial accumulators at [chunk * n_out + o] (one buffer per accumulator),
        // then a reduction over chunks that reads them as its inputs.
        let partial_bufs: Vec<Buffer> = k
            .acc
            .iter()
            .map(|d| Ok(Arc::new(self.alloc_words(*d, n_out * chunks)?) as Buffer))
            .collect::<Result<_>>()?;
        let partials: Vec<&WgpuBuffer> = partial_bufs
            .iter()
            .map(|b| self.buf(b, &k.name))
            .collect::<Result<_>>()?;
        self.launch_reduce(
            k,
            &call.out_shape,
            &call.reduce_shape,
            &ins,
            (&partials, None),
            &call.params,
            mode,
            chunks,
            chunk_len,
            wide,
        )?;
        let k2 = ReduceKernel {
            name: format!("{}_pass2", k.name),
            inputs: k.acc.clone(),
            params: k.params.clone(),
            acc: k.acc.clone(),
            map: k
                .acc
                .iter()
                .enumerate()
                .map(|(j, d)| Expr::input(j, *d))
                .collect(),
            combine: k.combine.clone(),
            fold: vec![],
            identity: k.identity.clone(),
            post: k.post.clone(),
            output: k.output,
            extra_posts: k.extra_posts.clone(),
        };
        let mut shape = call.out_shape.clone();
        shape.push(chunks);
        let mut strides = contiguous_strides(&call.out_shape);
        strides.push(n_out as isize);
        let pl = Layout {
            shape,
            strides,
            offset: 0,
        };
        if self.loop_budget.is_some() && chunks < n_red {
            // Under a loop budget the chunks are reduced like any input (chunked again if many).
            return self.reduce(&ReductionCall {
                kernel: &k2,
                out_shape: call.out_shape.clone(),
                reduce_shape: vec![chunks],
                inputs: partial_bufs
                    .iter()
                    .map(|b| Operand {
                        buffer: b,
                        layout: pl.clone(),
                    })
                    .collect(),
                output: call.output.clone(),
                extra_outputs: call.extra_outputs.clone(),
                params: call.params.clone(),
            });
        }
        let mode2 = if n_out < 64 {
            ReduceMode::GroupPerOutput
        } else {
            ReduceMode::ThreadPerOutput
        };
        let ins2: Vec<(&WgpuBuffer, &Layout)> = partials.iter().map(|b| (*b, &pl)).collect();
        self.launch_reduce(
            &k2,
            &call.out_shape,
            &[chunks],
            &ins2,
            (&outs, Some(&out_layouts)),
            &call.params,
            mode2,
            1,
            chunks,
            wide,
        )
    }
}

/// The smallest box of `shape` holding the flat C-order range `r0..r1` (non-empty): its start
/// and extent per axis.
fn range_box(shape: &[usize], r0: usize, r1: usize) -> (Vec<usize>, Vec<usize>) {
    let unravel = |mut f: usize| {
        let mut c = vec![0; shape.len()];
        for ax in (0..shape.len()).rev() {
            c[ax] = f % shape[ax].max(1);
            f /= shape[ax].max(1);
        }
        c
    };
    let (a, b) = (unravel(r0), unravel(r1.max(r0 + 1) - 1));
    let mut start = vec![0; shape.len()];
    let mut len = shape.to_vec();
    if let Some(d) = (0..shape.len()).find(|&ax| a[ax] != b[ax]) {
        for ax in 0..d {
            start[ax] = a[ax];
            len[ax] = 1;
        }
        start[d] = a[d];
        len[d] = b[d] - a[d] + 1;
    } else {
        start.clone_from(&a);
        len = vec![1; shape.len()];
    }
    (start, len)
}

/// Whether the inputs' layouts allow `vec4` loads of a reduction ([`ReduceSpec::vec4`]): one
/// reduced axis of unit stride, every output's first element at a multiple of 4 elements, a
/// kernel [`wgsl::reduce_vec4_eligible`] accepts; `CUPY_WGPU_REDUCE_VEC4=0` turns them off.
fn vec4_layouts(
    k: &ReduceKernel,
    reduce_shape: &[usize],
    inputs: &[(&WgpuBuffer, &Layout)],
) -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let on =
        *ON.get_or_init(|| !std::env::var("CUPY_WGPU_REDUCE_VEC4").is_ok_and(|v| v.trim() == "0"));
    let r_nd = reduce_shape.len();
    on && r_nd == 1
        && reduce_shape[0] >= 4
        && wgsl::reduce_vec4_eligible(k)
        && inputs.iter().all(|(_, l)| {
            let o_nd = l.strides.len() - r_nd;
            l.strides[o_nd] == 1
                && l.offset % 4 == 0
                && l.strides[..o_nd].iter().all(|s| s % 4 == 0)
        })
}

/// Workgroups a reduction into few outputs along a contiguous axis aims for (their partials are
/// reduced by a second pass): 4096, or `CUPY_WGPU_REDUCE_GROUPS` (for timing other splits on a
/// GPU, e.g. one wave of workgroups: 1024 on an H100/H200 at 8 workgroups of 256 per SM).
fn group_target() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("CUPY_WGPU_REDUCE_GROUPS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or(4096)
    })
}
