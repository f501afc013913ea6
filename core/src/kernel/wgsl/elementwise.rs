//! Elementwise shaders: [`emit_elementwise`] and their meta words.

use super::atomic::{atomic_lock, atomic_refusal};
use super::emitter::{iword, word, Ctx, RawCtx, WgslEmitter};
use super::interface::{bindings_decl, elementwise_narrow, meta_decl, MAIN_SIG};
use super::{packed_bits, vec4_eligible, ElementwiseSpec, LoopMode, WgslOptions, WgslShader};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{Kernel, Stmt};
use crate::layout::Layout;
use std::fmt::Write;

/// Number of meta words of an elementwise launch (see [`elementwise_words`]).
pub(super) fn elementwise_n_words(k: &Kernel, spec: &ElementwiseSpec) -> usize {
    let nops = k.inputs.len() + k.outputs.len();
    let per = if spec.contiguous { 1 } else { spec.ndim + 1 };
    let shape = if spec.contiguous { 0 } else { spec.ndim };
    1 + shape + nops * per + usize::from(packed_flag_word(k, spec)) + k.raws.len()
}

/// Emits the WGSL compute shader of an elementwise launch.
///
/// # Errors
/// [`Error::DTypeNotSupported`] for a dtype or op the adapter cannot do (complex; float64
/// without `SHADER_F64`; 64-bit integer operands, and the software float64 transcendental
/// functions, without `SHADER_INT64`), [`Error::InvalidArgument`] for an invalid kernel.
pub fn emit_elementwise(
    k: &Kernel,
    spec: &ElementwiseSpec,
    opts: &WgslOptions,
) -> Result<WgslShader> {
    emit_elementwise_with(k, spec, opts, LoopMode::default())
}

/// Emits an elementwise launch with a [`LoopMode`] (see the module docs, "Loop budgets").
///
/// # Errors
/// As [`emit_elementwise`]; a windowed `vec4` launch, or a windowed kernel with a 64-bit local on
/// an adapter without `SHADER_INT64`, is refused.
pub fn emit_elementwise_with(
    k: &Kernel,
    spec: &ElementwiseSpec,
    opts: &WgslOptions,
    mode: LoopMode,
) -> Result<WgslShader> {
    emit_elementwise_sized(k, spec, opts, mode, super::WORKGROUP_SIZE)
}

/// [`emit_elementwise_with`] with workgroups of `workgroup_size` invocations (a user's
/// `block_size`; [`super::WORKGROUP_SIZE`] by default). The dispatch then runs
/// `ceil(invocations / workgroup_size)` workgroups.
///
/// # Errors
/// As [`emit_elementwise_with`]; `InvalidArgument` for a size outside 1..=1024.
pub fn emit_elementwise_sized(
    k: &Kernel,
    spec: &ElementwiseSpec,
    opts: &WgslOptions,
    mode: LoopMode,
    workgroup_size: u32,
) -> Result<WgslShader> {
    if !(1..=1024).contains(&workgroup_size) {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            format!("workgroup size {workgroup_size} is outside 1..=1024"),
        ));
    }
    k.validate()?;
    let narrow = elementwise_narrow(k, spec.wide_int64);
    let mut em = WgslEmitter::new(opts, narrow, &k.name);
    for d in k.dtypes() {
        em.check(d)?;
    }
    if spec.vec4 && !(spec.contiguous && vec4_eligible(k)) {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "vec4 launch of a kernel that is not vec4-eligible or not contiguous",
        ));
    }
    if spec.vec4 && mode.window {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "a windowed launch cannot be vec4",
        ));
    }
    let base_words = elementwise_n_words(k, spec);
    let n_words = base_words + mode.extra_words();
    let (meta, layout) = meta_decl(&em, &k.params, n_words);
    let wb = base_words; // first window word
    let guard_word = base_words + if mode.window { 6 } else { 0 };
    let extra_binding = spec.bindings.buffers.len() + 1;
    if mode.guard {
        em.guard = Some(format!("lg[0] = {};", word(guard_word)));
    }
    let nd = spec.ndim.max(1);
    let nin = k.inputs.len();
    let nops = nin + k.outputs.len();
    let mut decls = meta;
    // Raw operands written: their bindings must be read-write; a binding updated atomically is
    // declared `array<atomic<..>>` and must not also serve an elementwise operand.
    let mut atomic = vec![false; spec.bindings.buffers.len()];
    for (j, &b) in spec.bindings.raws.iter().enumerate() {
        if k.writes_raw(j) && !spec.bindings.buffers[b].1 {
            return Err(Error::invalid(
                format!("wgsl:{}", k.name),
                format!(
                    "raw operand {j} is written but its binding is read-only \
                     (BindingPlan::mark_raw_writes)"
                ),
            ));
        }
        if k.atomic_raw(j) {
            let d = k.raws[j];
            let mut bad: Option<String> = None;
            Stmt::visit_all(&k.body, &mut |st| {
                if let Stmt::AtomicRaw { raw, op, .. } = st {
                    if *raw == j && bad.is_none() {
                        bad = atomic_refusal(d, *op);
                    }
                }
            });
            if let Some(r) = bad {
                return Err(em.unsupported(&k.name, d, &r));
            }
            atomic[b] = true;
        }
    }
    if spec
        .bindings
        .inputs
        .iter()
        .chain(&spec.bindings.outputs)
        .any(|b| atomic[*b])
    {
        return Err(Error::invalid(
            format!("wgsl:{}", k.name),
            "a raw operand updated atomically shares its buffer with an elementwise operand",
        ));
    }
    // Packed (8/16-bit) bindings that are written: each invocation owns the words of the lead
    // output (contiguous launches), every other written packed binding is atomic.
    let lead = packed_lead(k, spec, mode);
    // Contiguous launches always own the lead's words (a plain binding); strided ones do when
    // the flag word says the lead output is C-contiguous (the binding stays atomic, the owned
    // word is read and written with atomicLoad/atomicStore).
    let lead_binding = lead
        .filter(|_| spec.contiguous)
        .map(|(o, _)| spec.bindings.outputs[o]);
    for (b, &(d, rw)) in spec.bindings.buffers.iter().enumerate() {
        if rw && packed_bits(d).is_some() && Some(b) != lead_binding {
            atomic[b] = true;
        }
    }
    decls.push_str(&bindings_decl(&em, &spec.bindings, spec.vec4, &atomic));
    let mut extra_binding = extra_binding;
    if atomic_lock(k, opts.int64_atomics) {
        let _ = writeln!(
            decls,
            "@group(0) @binding({extra_binding}) var<storage, read_write> alk: array<atomic<u32>>;"
        );
        extra_binding += 1;
    }
    decls.push_str(&mode.bindings_decl(extra_binding));
    let params: Vec<String> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, d)| em.param_expr(i, *d))
        .collect();
    let vars: Vec<String> = (0..k.locals.len()).map(|i| format!("l{i}")).collect();
    let raw_base = base_words - k.raws.len();
    let raws: Vec<RawCtx> = spec
        .bindings
        .raws
        .iter()
        .enumerate()
        .map(|(j, &b)| RawCtx {
            binding: b,
            off: word(raw_base + j),
            atomic: atomic[b],
        })
        .collect();
    let op_binding = |i: usize| -> usize {
        if i < nin {
            spec.bindings.inputs[i]
        } else {
            spec.bindings.outputs[i - nin]
        }
    };
    let locals_decl = |em: &WgslEmitter| -> String {
        let mut s = String::new();
        for (i, d) in k.locals.iter().enumerate() {
            let _ = writeln!(s, "    var l{i}: {};", em.vty(*d));
        }
        s
    };
    // The element addresses `a{o}` of element `i`, at indentation `pad`.
    let addresses = |pad: &str| -> String {
        let mut s = String::new();
        if spec.contiguous {
            for o in 0..nops {
                let _ = writeln!(s, "{pad}let a{o} = {} + i;", word(1 + o));
            }
        } else {
            let _ = writeln!(s, "{pad}var rem = i;");
            for ax in (0..nd).rev() {
                if ax == 0 {
                    let _ = writeln!(s, "{pad}let c0 = rem;");
                } else {
                    let sh = word(1 + ax);
                    let _ = writeln!(s, "{pad}let c{ax} = rem % {sh};\n{pad}rem = rem / {sh};");
                }
            }
            for o in 0..nops {
                let base = 1 + nd + o * (nd + 1);
                let mut e = format!("bitcast<i32>({})", word(base));
                for ax in 0..nd {
                    let _ = write!(e, " + i32(c{ax}) * {}", iword(base + 1 + ax));
                }
                let _ = writeln!(s, "{pad}let a{o} = u32({e});");
            }
        }
        s
    };
    // Inputs are loaded once, before the body.
    let input_lets = |em: &mut WgslEmitter, pad: &str| -> (String, Vec<String>) {
        let mut s = String::new();
        let mut names = vec![];
        for i in 0..nin {
            let b = op_binding(i);
            let v = em.load_elem(b, atomic[b], k.inputs[i], &format!("a{i}"));
            let _ = writeln!(s, "{pad}let x{i} = {v};");
            names.push(format!("x{i}"));
        }
        (s, names)
    };
    // A store of output `o` outside the lead's owned words.
    let plain_store = |em: &mut WgslEmitter, o: usize, d: DType, v: String| -> String {
        let b = op_binding(nin + o);
        if packed_bits(d).is_some() {
            em.store_packed_atomic(b, d, &format!("a{}", nin + o), v)
        } else {
            let sv = em.store_conv(d, v);
            format!("b{b}[a{}] = {sv};", nin + o)
        }
    };
    let mut main = MAIN_SIG.replace(
        "@workgroup_size(256)",
        &format!("@workgroup_size({workgroup_size})"),
    );
    let _ = writeln!(
        main,
        "  let gid = (wid.y * nwg.x + wid.x) * {workgroup_size}u + lid;"
    );
    let _ = writeln!(main, "  let total = {};", word(0));
    // Invocation `gid` owns word `off / per + gid` of the lead output: its elements
    // `gid * per - off % per ..` (those inside the launch are computed, the others kept).
    let owned = |em: &mut WgslEmitter,
                 lo: usize,
                 per: u32,
                 off: &str,
                 out: &mut String|
     -> Result<()> {
        let lb = op_binding(nin + lo);
        let bits = 32 / per;
        let (ld, st) = if lead_binding.is_some() {
            (format!("b{lb}[wa]"), format!("b{lb}[wa] = wl;"))
        } else {
            (
                format!("atomicLoad(&b{lb}[wa])"),
                format!("atomicStore(&b{lb}[wa], wl);"),
            )
        };
        let _ = writeln!(
            out,
            "  let ib = i32(gid * {per}u) - i32({off} % {per}u);\n  if (ib >= i32(total)) {{ return; }}\n  let wa = {off} / {per}u + gid;\n  var wl = {ld};"
        );
        for lane in 0..per {
            let _ = writeln!(
                out,
                "  if (ib + {lane}i >= 0i && ib + {lane}i < i32(total)) {{\n    let i = u32(ib + {lane}i);"
            );
            out.push_str(&addresses("    "));
            let (lets, inputs) = input_lets(em, "    ");
            out.push_str(&lets);
            let ctx = Ctx {
                inputs,
                params: params.clone(),
                vars: vars.clone(),
                index: "i".into(),
                raws: raws.clone(),
            };
            out.push_str(&locals_decl(em));
            let store = move |em: &mut WgslEmitter, o: usize, d: DType, v: String| -> String {
                if o == lo {
                    let pv = em.packed_value(d, v);
                    format!("wl = insertBits(wl, {pv}, {}u, {bits}u);", lane * bits)
                } else {
                    plain_store(em, o, d, v)
                }
            };
            em.stmts(&k.body, &ctx, &store, &k.outputs, 2, out)?;
            out.push_str("  }\n");
        }
        let _ = writeln!(out, "  {st}");
        Ok(())
    };
    if let (Some((lo, per)), true) = (lead, spec.contiguous) {
        owned(&mut em, lo, per, &word(1 + nin + lo), &mut main)?;
        main.push_str("}\n");
    } else if !spec.vec4 {
        if let Some((lo, per)) = lead {
            // Strided launch: the backend sets the flag word when the lead output is
            // C-contiguous (and then dispatches one invocation per word).
            let _ = writeln!(main, "  if ({} != 0u) {{", word(1 + nd + nops * (nd + 1)));
            owned(
                &mut em,
                lo,
                per,
                &word(1 + nd + (nin + lo) * (nd + 1)),
                &mut main,
            )?;
            main.push_str("  return;\n  }\n");
        }
        if mode.window {
            let _ = writeln!(
                main,
                "  if (gid >= total) {{ return; }}\n  let i = gid + {};",
                word(wb + 5)
            );
        } else {
            main.push_str("  if (gid >= total) { return; }\n  let i = gid;\n");
        }
        main.push_str(&addresses("  "));
        let (lets, inputs) = input_lets(&mut em, "  ");
        main.push_str(&lets);
        let ctx = Ctx {
            inputs,
            params: params.clone(),
            vars: vars.clone(),
            index: "i".into(),
            raws: raws.clone(),
        };
        main.push_str("  {\n");
        main.push_str(&locals_decl(&em));
        let store = plain_store;
        if mode.window {
            let (restore, save) = em.scratch_io(&k.locals)?;
            let _ = writeln!(
                main,
                "    if (({} & 1u) != 0u) {{\n{restore}    }}",
                word(wb + 4)
            );
            em.stmts_windowed(&k.body, &ctx, &store, &k.outputs, wb, &mut main)?;
            let _ = writeln!(
                main,
                "    if (({} & 2u) != 0u) {{\n{save}    }}",
                word(wb + 4)
            );
        } else {
            em.stmts(&k.body, &ctx, &store, &k.outputs, 2, &mut main)?;
        }
        main.push_str("  }\n}\n");
    } else {
        main.push_str(
            "  let n4 = total / 4u;\n  let rem4 = total % 4u;\n  if (gid > n4 || (gid == n4 && rem4 == 0u)) { return; }\n",
        );
        for o in 0..nops {
            let _ = writeln!(main, "  let a{o} = {} + gid;", word(1 + o));
        }
        for i in 0..nin {
            let _ = writeln!(main, "  let v{i} = b{}[a{i}];", op_binding(i));
        }
        for tail in [false, true] {
            if tail {
                main.push_str("  } else {\n");
                for o in 0..k.outputs.len() {
                    let _ = writeln!(
                        main,
                        "    var r{o} = b{}[a{}];",
                        op_binding(nin + o),
                        nin + o
                    );
                }
            } else {
                main.push_str("  if (gid < n4) {\n");
                for (o, d) in k.outputs.iter().enumerate() {
                    let _ = writeln!(main, "    var r{o}: vec4<{}>;", em.sty(*d));
                }
            }
            for lane in 0..4 {
                if tail {
                    let _ = writeln!(main, "    if ({lane}u < rem4) {{");
                } else {
                    main.push_str("    {\n");
                }
                let _ = writeln!(main, "    let i = gid * 4u + {lane}u;");
                let inputs: Vec<String> = (0..nin)
                    .map(|i| em.load_conv(k.inputs[i], format!("v{i}[{lane}]")))
                    .collect();
                let ctx = Ctx {
                    inputs,
                    params: params.clone(),
                    vars: vars.clone(),
                    index: "i".into(),
                    raws: raws.clone(),
                };
                main.push_str(&locals_decl(&em));
                let store = move |em: &mut WgslEmitter, o: usize, d: DType, v: String| -> String {
                    let sv = em.store_conv(d, v);
                    format!("r{o}[{lane}] = {sv};")
                };
                em.stmts(&k.body, &ctx, &store, &k.outputs, 3, &mut main)?;
                main.push_str("    }\n");
            }
            for o in 0..k.outputs.len() {
                let _ = writeln!(main, "    b{}[a{}] = r{o};", op_binding(nin + o), nin + o);
            }
        }
        main.push_str("  }\n}\n");
    }
    Ok(WgslShader {
        source: em.finish(&decls, &main),
        meta: layout,
    })
}

/// The meta words of an elementwise launch: total, then (strided) the shape, then per operand
/// (inputs, then outputs) its offset and (strided) strides, then the owned-words flag
/// (`owned_flag`: `Some` exactly when [`packed_flag_word`]), then the raw operands' offsets.
/// For a `vec4` launch offsets are in units of four elements.
pub fn elementwise_words(
    spec: &ElementwiseSpec,
    shape: &[usize],
    operands: &[&Layout],
    raw_offsets: &[usize],
    owned_flag: Option<bool>,
) -> Vec<u32> {
    let total: usize = shape.iter().product();
    let mut w = vec![total as u32];
    let nd = spec.ndim.max(1);
    if spec.contiguous {
        for l in operands {
            let off = if spec.vec4 { l.offset / 4 } else { l.offset };
            w.push(off as u32);
        }
    } else {
        let mut sh = shape.to_vec();
        while sh.len() < nd {
            sh.insert(0, 1);
        }
        w.extend(sh.iter().map(|&x| x as u32));
        for l in operands {
            w.push(l.offset as u32);
            let mut st = l.strides.clone();
            while st.len() < nd {
                st.insert(0, 0);
            }
            w.extend(st.iter().map(|&x| x as i32 as u32));
        }
    }
    w.extend(owned_flag.map(u32::from));
    w.extend(raw_offsets.iter().map(|&x| x as u32));
    w
}

/// The output whose words each invocation of a packed launch may own, and its elements per word
/// (4 for 8-bit, 2 for 16-bit dtypes): the first output of a packed dtype of an unwindowed,
/// non-`vec4` launch whose binding no raw operand or other output shares. A contiguous launch
/// always owns its words, a strided one when its flag word says the lead output is
/// C-contiguous ([`packed_flag_word`]); an owning launch runs one invocation per word of that
/// output (`ceil((total + offset % per) / per)` invocations; the backend dispatches that many),
/// every other written packed binding is updated with atomics. `None`: one invocation per
/// element, packed writes all atomic.
pub fn packed_lead(k: &Kernel, spec: &ElementwiseSpec, mode: LoopMode) -> Option<(usize, u32)> {
    if mode.window {
        return None;
    }
    lead_output(k, spec)
}

/// True when a strided launch of `k` has the *owned-words flag* meta word (before the raw
/// operands' offsets, see [`elementwise_words`]): it has a lead output ([`packed_lead`]
/// without the window condition). The backend passes 1 when the lead output is C-contiguous
/// over the iteration shape (the launch then owns its words, one invocation per word), else 0.
pub fn packed_flag_word(k: &Kernel, spec: &ElementwiseSpec) -> bool {
    !spec.contiguous && lead_output(k, spec).is_some()
}

fn lead_output(k: &Kernel, spec: &ElementwiseSpec) -> Option<(usize, u32)> {
    if spec.vec4 {
        return None;
    }
    let o = k.outputs.iter().position(|d| packed_bits(*d).is_some())?;
    let b = spec.bindings.outputs[o];
    let shared = spec.bindings.raws.contains(&b)
        || spec
            .bindings
            .outputs
            .iter()
            .enumerate()
            .any(|(j, x)| j != o && *x == b);
    if shared {
        return None;
    }
    Some((o, 32 / packed_bits(k.outputs[o])?))
}
