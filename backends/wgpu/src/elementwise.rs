//! Elementwise launches: plain, `vec4`, and windowed (long loops split across dispatches).

use crate::buffer::word_bytes;
use crate::queue::Bound;
use crate::window::{piece_windows, split_boxes};
use crate::{hash_of, plan_budget, Pipe, WgpuBackend, WgpuBuffer};
use cupy_core::backend::{dtype_unsupported, ElementwiseCall};
use cupy_core::kernel::ir::{BinaryOp, Expr, ExprKind, Kernel, Stmt};
use cupy_core::kernel::wgsl::loops::LoopPlan;
use cupy_core::kernel::wgsl::{self, BindingPlan, ElementwiseSpec};
use cupy_core::layout::Layout;
use cupy_core::{DType, Error, Result, Scalar};

/// True if the kernel's WGSL has loops: `For`s, or helper functions that loop (float
/// floor-divide/remainder, integer power, compare-and-swap atomics).
fn kernel_loops(k: &Kernel) -> bool {
    let mut l = false;
    Stmt::visit_all(&k.body, &mut |s| {
        l |= matches!(s, Stmt::For { .. } | Stmt::AtomicRaw { .. })
            || s.exprs()
                .iter()
                .any(|e| wgsl::loops::helper_passes(e, false) > 0);
    });
    l
}

pub(crate) fn fits32(d: DType, v: &Scalar) -> bool {
    match (d, v) {
        (DType::Int64, s) => i32::try_from(s.to_i128()).is_ok(),
        (DType::UInt64, s) => u32::try_from(s.to_i128()).is_ok(),
        _ => true,
    }
}

/// True if the kernel reads its element's flat index (`Index`).
fn uses_index(k: &Kernel) -> bool {
    let mut u = false;
    Stmt::visit_all(&k.body, &mut |s| {
        for e in s.exprs() {
            e.visit(&mut |x| u |= matches!(x.kind, ExprKind::Index));
        }
    });
    u
}

/// `k` with `Index` read as `Index + base`, `base` a new last `Int64` parameter (a launch split
/// into pieces passes each piece's first flat index).
fn rebase_index(k: &Kernel) -> Kernel {
    let p = k.params.len();
    let f = &mut |e: &Expr| -> Option<Expr> {
        matches!(e.kind, ExprKind::Index)
            .then(|| Expr::binary(BinaryOp::Add, Expr::index(), Expr::param(p, DType::Int64)))
    };
    fn stmts(body: &[Stmt], f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Vec<Stmt> {
        body.iter()
            .map(|s| match s {
                Stmt::Let { var, value } => Stmt::Let {
                    var: *var,
                    value: value.rewrite(f),
                },
                Stmt::Assign { var, value } => Stmt::Assign {
                    var: *var,
                    value: value.rewrite(f),
                },
                Stmt::Store { output, value } => Stmt::Store {
                    output: *output,
                    value: value.rewrite(f),
                },
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => Stmt::If {
                    cond: cond.rewrite(f),
                    then_body: stmts(then_body, f),
                    else_body: stmts(else_body, f),
                },
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => Stmt::For {
                    var: *var,
                    start: start.rewrite(f),
                    end: end.rewrite(f),
                    body: stmts(body, f),
                },
                Stmt::StoreRaw { raw, index, value } => Stmt::StoreRaw {
                    raw: *raw,
                    index: index.rewrite(f),
                    value: value.rewrite(f),
                },
                Stmt::AtomicRaw {
                    raw,
                    op,
                    index,
                    value,
                    old,
                } => Stmt::AtomicRaw {
                    raw: *raw,
                    op: *op,
                    index: index.rewrite(f),
                    value: value.rewrite(f),
                    old: *old,
                },
            })
            .collect()
    }
    let mut k2 = k.clone();
    k2.name = format!("{}_rebased", k.name);
    k2.params.push(DType::Int64);
    k2.body = stmts(&k.body, f);
    k2
}

/// What a launch split into pieces needs besides the call (see `run_pieces`).
struct PieceLaunch<'a> {
    pipe: &'a Pipe,
    spec: &'a ElementwiseSpec,
    plan: &'a BindingPlan,
    /// The plan's buffers, then the extra bindings (lock, guard).
    bufs: &'a [&'a wgpu::Buffer],
    raw_offsets: &'a [usize],
    guard_word: Option<u32>,
    /// The last parameter is the index base (`rebase_index`).
    index_param: bool,
    mode: wgsl::LoopMode,
    /// Invocations per workgroup of the pipeline.
    wg: u32,
}

impl WgpuBackend {
    /// `Backend::elementwise`.
    pub(crate) fn run_elementwise(&self, call: &ElementwiseCall<'_>) -> Result<()> {
        self.run_elementwise_sized(call, wgsl::WORKGROUP_SIZE, true)
    }

    /// `Backend::elementwise_block`: workgroups of `block` invocations, within the adapter's
    /// `max_compute_workgroup_size_x` and `max_compute_invocations_per_workgroup`.
    ///
    /// # Errors
    /// `InvalidArgument` for a block that is not a power of two up to 1024 or beyond those
    /// limits (named with their values); as [`WgpuBackend::run_elementwise`].
    pub(crate) fn run_elementwise_block(
        &self,
        call: &ElementwiseCall<'_>,
        block: u32,
    ) -> Result<()> {
        let k = call.kernel;
        cupy_core::gpu::launch::check_block_size(&k.name, block)?;
        let lim = &self.limits;
        for (what, max) in [
            (
                "max_compute_workgroup_size_x",
                lim.max_compute_workgroup_size_x,
            ),
            (
                "max_compute_invocations_per_workgroup",
                lim.max_compute_invocations_per_workgroup,
            ),
        ] {
            if block > max {
                return Err(Error::invalid(
                    &k.name,
                    format!(
                        "block_size {block} is more than the adapter's {what} ({max}) on {}",
                        self.label()
                    ),
                ));
            }
        }
        self.run_elementwise_sized(call, block, false)
    }

    /// [`WgpuBackend::run_elementwise`] with workgroups of `wg` invocations; `tile`: a tiled
    /// launch may run instead (never for a user's block size).
    fn run_elementwise_sized(&self, call: &ElementwiseCall<'_>, wg: u32, tile: bool) -> Result<()> {
        let past = |b: &cupy_core::Buffer| {
            b.len() as u64 * word_bytes(b.dtype()) as u64 > self.binding_cap
        };
        let big = call
            .inputs
            .iter()
            .chain(&call.outputs)
            .any(|o| past(o.buffer))
            || call.raws.iter().any(|o| past(o.buffer));
        if big && uses_index(call.kernel) {
            let k2 = rebase_index(call.kernel);
            let total: usize = call.shape.iter().product();
            let mut params = call.params.clone();
            // The largest base decides whether the parameter needs 64-bit arithmetic.
            params.push(Scalar::Int64(total as i64));
            let c2 = ElementwiseCall {
                kernel: &k2,
                params,
                ..call.clone()
            };
            return self.elementwise_inner(&c2, true, true, wg, false);
        }
        self.elementwise_inner(call, big, false, wg, tile)
    }

    fn elementwise_inner(
        &self,
        call: &ElementwiseCall<'_>,
        big: bool,
        index_param: bool,
        wg: u32,
        tile: bool,
    ) -> Result<()> {
        let k = call.kernel;
        for d in k.dtypes() {
            self.check_dtype(&k.name, d)?;
        }
        let total: usize = call.shape.iter().product();
        if total == 0 {
            return Ok(());
        }
        if !big {
            self.check_len(&k.name, total)?;
        }
        if call.inputs.len() != k.inputs.len()
            || call.outputs.len() != k.outputs.len()
            || call.raws.len() != k.raws.len()
            || call.params.len() != k.params.len()
        {
            return Err(Error::invalid(
                &k.name,
                "operand or parameter count does not match the kernel",
            ));
        }
        let ins: Vec<&WgpuBuffer> = call
            .inputs
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let outs: Vec<&WgpuBuffer> = call
            .outputs
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let raws: Vec<&WgpuBuffer> = call
            .raws
            .iter()
            .map(|o| self.buf(o.buffer, &k.name))
            .collect::<Result<_>>()?;
        let mismatch = ins
            .iter()
            .zip(&k.inputs)
            .chain(outs.iter().zip(&k.outputs))
            .chain(raws.iter().zip(&k.raws))
            .find(|(b, d)| b.dtype != **d);
        if let Some((b, d)) = mismatch {
            return Err(Error::invalid(
                &k.name,
                format!(
                    "operand buffer of dtype {} where the kernel expects {d}",
                    b.dtype
                ),
            ));
        }
        let layouts: Vec<&Layout> = call
            .inputs
            .iter()
            .chain(&call.outputs)
            .map(|o| &o.layout)
            .collect();
        let contiguous = layouts.iter().all(|l| l.is_c_contiguous());
        let narrow = wgsl::elementwise_narrow(k, false);
        let wide = narrow
            && k.params
                .iter()
                .zip(&call.params)
                .any(|(d, v)| !fits32(*d, v));
        if wide && !self.opts.shader_int64 {
            return Err(dtype_unsupported(
                &k.name,
                DType::Int64,
                &self.info,
                "an int64 parameter beyond 32 bits on a wgpu adapter without SHADER_INT64",
            ));
        }
        // Loops on a driver that caps them (llvmpipe): guard every loop; split kernels whose
        // loops go past the budget into windows; no vec4 (four bodies per invocation).
        let has_for = {
            let mut f = false;
            Stmt::visit_all(&k.body, &mut |s| f |= matches!(s, Stmt::For { .. }));
            f
        };
        let lplan = match self.loop_budget {
            Some(b) if has_for => wgsl::loops::plan_elementwise(
                k,
                &call.params,
                wgsl::elementwise_narrow(k, wide),
                plan_budget(b),
                &self.label(),
            )?,
            _ => LoopPlan::Single,
        };
        let mode = wgsl::LoopMode {
            guard: self.loop_budget.is_some() && kernel_loops(k),
            window: matches!(lplan, LoopPlan::Windows(_)),
        };
        let vec4 = contiguous
            && wgsl::vec4_eligible(k)
            && layouts.iter().all(|l| l.offset % 4 == 0)
            && total >= 4
            && !(self.loop_budget.is_some() && has_for);
        let mut plan = BindingPlan::new(
            &ins.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
            &outs.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
            &raws.iter().map(|b| (b.id, b.dtype)).collect::<Vec<_>>(),
        );
        // Raw operands the kernel writes (scatter) are bound read_write.
        plan.mark_raw_writes(k);
        // Transposes and other launches whose operands run fast along different axes: tiles
        // staged through workgroup memory (tiled.rs).
        let lock = wgsl::atomic_lock(k, self.opts.int64_atomics);
        if tile && !big && !contiguous && mode == wgsl::LoopMode::default() && !lock {
            if let Some(tp) = crate::tiled::plan(
                k,
                &call.shape,
                &layouts,
                &plan,
                uses_index(k),
                wide,
                self.limits.max_compute_workgroup_storage_size,
            ) {
                return self.run_tiled(call, &tp, &ins, &outs);
            }
        }
        let spec = ElementwiseSpec {
            ndim: call.shape.len().max(1),
            contiguous,
            vec4,
            wide_int64: wide,
            bindings: plan.clone(),
        };
        // 64-bit atomics on pairs of 32-bit words take locks in the device's lock buffer,
        // bound after the plan's buffers (`lock`, above).
        let key = hash_of(&("elementwise", k, &spec, mode, wg));
        let opts = &self.opts;
        let pipe = self.pipeline(key, &k.name, &|| {
            let sh = wgsl::emit_elementwise_sized(k, &spec, opts, mode, wg)?;
            let mut rw: Vec<bool> = plan.buffers.iter().map(|b| b.1).collect();
            rw.extend(std::iter::repeat_n(
                true,
                usize::from(lock) + mode.extra_bindings(),
            ));
            Ok((sh.source, sh.meta, rw))
        })?;
        let raw_offsets: Vec<usize> = call.raws.iter().map(|r| r.offset).collect();
        // Packed outputs: a C-contiguous lead output is written a word per invocation.
        let owned = wgsl::packed_lead(k, &spec, mode)
            .filter(|(o, _)| contiguous || call.outputs[*o].layout.is_c_contiguous());
        let flag = wgsl::packed_flag_word(k, &spec).then_some(owned.is_some());
        let mut words = wgsl::elementwise_words(&spec, &call.shape, &layouts, &raw_offsets, flag);
        let guard_word = if mode.guard {
            self.guard_word(&k.name)
        } else {
            None
        };
        let mut bufs: Vec<&wgpu::Buffer> = vec![
            &ins.first()
                .or(outs.first())
                .or(raws.first())
                .ok_or_else(|| Error::invalid(&k.name, "a kernel without operands"))?
                .buf;
            plan.buffers.len()
        ];
        for (i, b) in ins.iter().enumerate() {
            bufs[plan.inputs[i]] = &b.buf;
        }
        for (i, b) in outs.iter().enumerate() {
            bufs[plan.outputs[i]] = &b.buf;
        }
        for (i, b) in raws.iter().enumerate() {
            bufs[plan.raws[i]] = &b.buf;
        }
        if lock {
            bufs.push(self.atomic_lock.get_or_init(|| {
                // Zero-initialised by wgpu; every update releases its lock.
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("cupy-atomic-lock"),
                    size: u64::from(wgsl::ATOMIC_LOCK_WORDS) * 4,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            }));
        }
        if let (true, Some(g)) = (mode.guard, &self.guard) {
            bufs.push(&g.buf);
        }
        if big {
            if let LoopPlan::Windows(_) = lplan {
                return Err(Error::Unsupported {
                    op: k.name.clone(),
                    backend: self.label(),
                    reason: "a kernel whose loops run in windows (llvmpipe's loop budget) on an \
                             operand past one storage binding"
                        .into(),
                });
            }
            if let Some(r) = raws.iter().find(|r| r.buf.size() > self.binding_cap) {
                return Err(Error::Unsupported {
                    op: k.name.clone(),
                    backend: self.label(),
                    reason: format!(
                        "a raw (indexed) operand of {} bytes is past one storage binding ({} \
                         bytes); only elementwise operands are split across bindings",
                        r.buf.size(),
                        self.binding_cap
                    ),
                });
            }
            return self.run_pieces(
                call,
                &PieceLaunch {
                    pipe: &pipe,
                    spec: &spec,
                    plan: &plan,
                    bufs: &bufs,
                    raw_offsets: &raw_offsets,
                    guard_word,
                    index_param,
                    mode,
                    wg,
                },
            );
        }
        let LoopPlan::Windows(windows) = lplan else {
            words.extend(guard_word);
            let meta = pipe.meta.pack(&call.params, &words);
            // A packed launch runs one invocation per word of its lead output.
            let threads = match owned {
                Some((o, per)) => {
                    let per = per as usize;
                    (total + call.outputs[o].layout.offset % per).div_ceil(per)
                }
                None if vec4 => total.div_ceil(4),
                None => total,
            } as u64;
            return self.dispatch(&pipe, &meta, &bufs, threads.div_ceil(wg as u64));
        };
        // Windowed: every window is one dispatch over a slab of elements whose locals fit one
        // scratch binding; locals travel between windows through the scratch buffer.
        let sw = wgsl::scratch_words(k, wide).max(1);
        let max_bytes = self.binding_cap as usize;
        let slab = (max_bytes / 16 / sw).min(total).max(1);
        let scratch = self.alloc_words(DType::UInt32, slab * sw)?;
        bufs.push(&scratch.buf);
        let mut base = 0usize;
        while base < total {
            let len = slab.min(total - base);
            for (wi, w) in windows.iter().enumerate() {
                let mut ws = words.clone();
                ws[0] = len as u32;
                ws.extend(w.words(wi, windows.len(), base));
                ws.extend(guard_word);
                let meta = pipe.meta.pack(&call.params, &ws);
                self.dispatch(&pipe, &meta, &bufs, (len as u64).div_ceil(wg as u64))?;
            }
            base += len;
        }
        Ok(())
    }

    /// An elementwise launch over operands past one storage binding: one dispatch per piece of
    /// the iteration space (window.rs), each operand bound as the window covering its elements.
    fn run_pieces(&self, call: &ElementwiseCall<'_>, pl: &PieceLaunch<'_>) -> Result<()> {
        let k = call.kernel;
        let spec = pl.spec;
        let total: usize = call.shape.iter().product();
        // Contiguous launches split one flat range.
        let flat_layout = |l: &Layout| Layout {
            shape: vec![total],
            strides: vec![1],
            offset: l.offset,
        };
        let (shape, layouts): (Vec<usize>, Vec<Layout>) = if spec.contiguous {
            (
                vec![total],
                call.inputs
                    .iter()
                    .chain(&call.outputs)
                    .map(|o| flat_layout(&o.layout))
                    .collect(),
            )
        } else {
            (
                call.shape.clone(),
                call.inputs
                    .iter()
                    .chain(&call.outputs)
                    .map(|o| o.layout.clone())
                    .collect(),
            )
        };
        let nin = call.inputs.len();
        let binding_of = |i: usize| {
            if i < nin {
                pl.plan.inputs[i]
            } else {
                pl.plan.outputs[i - nin]
            }
        };
        let nb = pl.plan.buffers.len();
        let binds: Vec<(usize, u64)> = (0..nb)
            .map(|b| (word_bytes(pl.plan.buffers[b].0), pl.bufs[b].size()))
            .collect();
        let ops: Vec<(&Layout, usize)> = layouts
            .iter()
            .enumerate()
            .map(|(i, l)| (l, binding_of(i)))
            .collect();
        let pieces = split_boxes(
            &shape,
            &ops,
            &binds,
            self.binding_cap,
            spec.contiguous || pl.index_param,
            1 << 30,
        )
        .map_err(|why| Error::Unsupported {
            op: k.name.clone(),
            backend: self.label(),
            reason: format!(
                "operands of shape {:?} past one storage binding ({} bytes) cannot be split: {why}",
                call.shape, self.binding_cap
            ),
        })?;
        let flag_word = wgsl::packed_flag_word(k, spec);
        for p in &pieces {
            let subs: Vec<(Layout, usize)> = ops.iter().map(|(l, b)| (p.sub(l), *b)).collect();
            let wins = piece_windows(&subs, &binds, self.binding_cap).ok_or_else(|| {
                Error::invalid(
                    &k.name,
                    "a piece of the split launch does not fit its window",
                )
            })?;
            // Buffers that fit a binding are bound whole.
            let wins: Vec<_> = wins
                .into_iter()
                .enumerate()
                .map(|(b, w)| w.filter(|_| binds[b].1 > self.binding_cap))
                .collect();
            let rel: Vec<Layout> = subs
                .iter()
                .map(|(l, b)| Layout {
                    offset: l.offset - wins[*b].map_or(0, |w| w.elem0),
                    ..l.clone()
                })
                .collect();
            let rel_refs: Vec<&Layout> = rel.iter().collect();
            let owned = wgsl::packed_lead(k, spec, pl.mode)
                .filter(|(o, _)| spec.contiguous || rel[nin + *o].is_c_contiguous());
            let flag = flag_word.then_some(owned.is_some());
            let mut words =
                wgsl::elementwise_words(spec, &p.shape, &rel_refs, pl.raw_offsets, flag);
            words.extend(pl.guard_word);
            let mut params = call.params.clone();
            if pl.index_param {
                if let Some(last) = params.last_mut() {
                    *last = Scalar::Int64(p.flat_start(&shape) as i64);
                }
            }
            let meta = pl.pipe.meta.pack(&params, &words);
            let n = p.size();
            let threads = match owned {
                Some((o, per)) => {
                    let per = per as usize;
                    (n + rel[nin + o].offset % per).div_ceil(per)
                }
                None if spec.vec4 => n.div_ceil(4),
                None => n,
            } as u64;
            let bound: Vec<Bound<'_>> = pl
                .bufs
                .iter()
                .enumerate()
                .map(|(b, buf)| (*buf, wins.get(b).copied().flatten()))
                .collect();
            self.dispatch_bound(pl.pipe, &meta, &bound, threads.div_ceil(pl.wg as u64))?;
        }
        Ok(())
    }
}
