//! Reduction shaders: [`emit_reduction`] and their meta words.
//!
//! A tuple of accumulators is one WGSL value: `struct Acc { v0: T0, v1: T1, .. }` (a single
//! accumulator is its plain type, as before), so `combine(a: Acc, b: Acc) -> Acc`, the
//! workgroup tree and the per-thread fold are the same code for any tuple; a partial launch
//! writes member `j` to output binding `j` (one partial buffer per accumulator).

use super::emitter::{iword, word, Ctx, WgslEmitter};
use super::interface::{bindings_decl_per, meta_decl, reduce_narrow, MAIN_SIG, MAIN_SIG_SUBGROUP};
use super::{
    packed_bits, storage_bytes, LoopMode, ReduceMode, ReduceSpec, WgslOptions, WgslShader,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::{ExprKind, ReduceKernel};
use crate::layout::Layout;
use std::fmt::Write;

/// The members of accumulator variable `name`: itself for one accumulator, `name.vj` for a
/// tuple.
fn members(name: &str, n: usize) -> Vec<String> {
    if n == 1 {
        vec![name.into()]
    } else {
        (0..n).map(|j| format!("{name}.v{j}")).collect()
    }
}

/// An accumulator value from its members' values.
fn pack(vals: Vec<String>) -> String {
    if vals.len() == 1 {
        vals.into_iter().next().expect("one value")
    } else {
        format!("Acc({})", vals.join(", "))
    }
}

/// The accumulator's WGSL type, and the declaration of `struct Acc` for a tuple.
fn acc_type(em: &WgslEmitter, k: &ReduceKernel) -> (String, String) {
    if k.acc.len() == 1 {
        return (em.vty(k.acc[0]).into(), String::new());
    }
    let fields: Vec<String> = k
        .acc
        .iter()
        .enumerate()
        .map(|(j, d)| format!("v{j}: {}", em.vty(*d)))
        .collect();
    (
        "Acc".into(),
        format!("struct Acc {{ {} }}\n", fields.join(", ")),
    )
}

/// The reduction's combine as a WGSL function `combine(a, b)`.
fn emit_combine(em: &mut WgslEmitter, k: &ReduceKernel, params: &[String]) -> Result<String> {
    let n = k.acc.len();
    let mut vars = members("a", n);
    vars.extend(members("b", n));
    let ctx = Ctx {
        inputs: vec![],
        params: params.to_vec(),
        vars,
        index: "0u".into(),
        raws: vec![],
    };
    let bodies = k
        .combine
        .iter()
        .map(|c| em.expr(c, &ctx))
        .collect::<Result<Vec<_>>>()?;
    let mut lets = String::new();
    em.flush_pre("  ", &mut lets);
    let (t, _) = acc_type(em, k);
    Ok(format!(
        "fn combine(a: {t}, b: {t}) -> {t} {{\n{lets}  return {};\n}}\n",
        pack(bodies)
    ))
}

/// `vec4` loads a reduction invocation issues per unrolled step, all before their combines:
/// 2, or `CUPY_WGPU_REDUCE_STEP` (2, 4 or 8; read once), for timing deeper unrolling on a GPU.
fn vec4_step() -> usize {
    static STEP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *STEP.get_or_init(|| {
        std::env::var("CUPY_WGPU_REDUCE_STEP")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|s| [2, 4, 8].contains(s))
            .unwrap_or(2)
    })
}

/// Whether a reduction's inputs may be loaded as `vec4`s ([`ReduceSpec::vec4`]): every input
/// is a 32-bit type held in whole words (int32, uint32, float32) and the map does not read
/// `Index` (the layouts are the backend's to check).
pub fn reduce_vec4_eligible(k: &ReduceKernel) -> bool {
    let mut index = false;
    for e in &k.map {
        e.visit(&mut |x| index |= matches!(x.kind, ExprKind::Index));
    }
    !index
        && k.inputs.iter().all(|d| {
            storage_bytes(*d) == Some(4)
                && matches!(d, DType::Int32 | DType::UInt32 | DType::Float32)
        })
}

/// Whether the accumulators can travel through subgroup shuffles ([`ReduceSpec::subgroup`]):
/// every member is a 32-bit scalar (`f32`, `i32`, `u32`) or a complex64 (`vec2<f32>`) in the
/// emitted code: not bool, 64-bit or complex128.
pub fn reduce_subgroup_eligible(k: &ReduceKernel) -> bool {
    k.acc.iter().all(|d| {
        !matches!(
            d,
            DType::Bool | DType::Int64 | DType::UInt64 | DType::Float64 | DType::Complex128
        )
    })
}

/// Number of meta words of a reduction launch.
fn reduce_n_words(k: &ReduceKernel, spec: &ReduceSpec) -> usize {
    let (o, r) = (spec.out_ndim, spec.red_ndim);
    4 + o + r + k.inputs.len() * (1 + o + r) + k.n_outputs() * (1 + o) + 1
}

/// Emits the WGSL compute shader of a reduction launch (see [`ReduceSpec`]).
///
/// # Errors
/// As [`emit_elementwise`](super::emit_elementwise).
pub fn emit_reduction(
    k: &ReduceKernel,
    spec: &ReduceSpec,
    opts: &WgslOptions,
) -> Result<WgslShader> {
    emit_reduction_with(k, spec, opts, LoopMode::default())
}

/// Emits a reduction launch with a [`LoopMode`] (only `guard` applies to reductions).
///
/// # Errors
/// As [`emit_reduction`].
pub fn emit_reduction_with(
    k: &ReduceKernel,
    spec: &ReduceSpec,
    opts: &WgslOptions,
    mode: LoopMode,
) -> Result<WgslShader> {
    let mode = LoopMode {
        window: false,
        ..mode
    };
    let narrow = reduce_narrow(k, spec.wide_int64);
    let mut em = WgslEmitter::new(opts, narrow, &k.name);
    for d in k.dtypes() {
        em.check(d)?;
    }
    k.validate()?;
    let n_acc = k.acc.len();
    let (o_nd, r_nd) = (spec.out_ndim, spec.red_ndim);
    let n_words = reduce_n_words(k, spec);
    let (meta, layout) = meta_decl(&em, &k.params, n_words + mode.extra_words());
    if mode.guard {
        em.guard = Some(format!("lg[0] = {};", word(n_words)));
    }
    let mut decls = meta;
    // Written packed (8/16-bit) bindings are atomic: neighbouring outputs share words.
    let atomic: Vec<bool> = spec
        .bindings
        .buffers
        .iter()
        .map(|&(d, rw)| rw && packed_bits(d).is_some())
        .collect();
    let group = spec.mode == ReduceMode::GroupPerOutput;
    // vec4 inputs: their bindings (read-only, not shared with the output) are `vec4<T>` arrays.
    let vec4 = spec.vec4
        && group
        && r_nd == 1
        && reduce_vec4_eligible(k)
        && spec
            .bindings
            .inputs
            .iter()
            .all(|&b| !spec.bindings.buffers[b].1);
    let subgroup = spec.subgroup && group && reduce_subgroup_eligible(k);
    let vec_bindings: Vec<bool> = (0..spec.bindings.buffers.len())
        .map(|b| vec4 && spec.bindings.inputs.contains(&b))
        .collect();
    decls.push_str(&bindings_decl_per(
        &em,
        &spec.bindings,
        &vec_bindings,
        &atomic,
    ));
    decls.push_str(&mode.bindings_decl(spec.bindings.buffers.len() + 1));
    let params: Vec<String> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, d)| em.param_expr(i, *d))
        .collect();
    let combine = emit_combine(&mut em, k, &params)?;
    let (acc_t, acc_decl) = acc_type(&em, k);
    decls.push_str(&acc_decl);
    if group {
        let _ = writeln!(decls, "var<workgroup> sh: array<{acc_t}, 256>;");
        let _ = writeln!(decls, "var<workgroup> shv: array<u32, 256>;");
    }
    let nin = k.inputs.len();
    // word positions
    let w_oshape = 4;
    let w_rshape = 4 + o_nd;
    let w_in = |i: usize| 4 + o_nd + r_nd + i * (1 + o_nd + r_nd);
    let w_out = |m: usize| 4 + o_nd + r_nd + nin * (1 + o_nd + r_nd) + m * (1 + o_nd);
    let mut m = String::from(if subgroup {
        MAIN_SIG_SUBGROUP
    } else {
        MAIN_SIG
    });
    let _ = writeln!(
        m,
        "  let n_out = {};\n  let n_red = {};\n  let chunks = {};\n  let clen = {};\n  let chb = {};",
        word(0),
        word(1),
        word(2),
        word(3),
        word(n_words - 1)
    );
    if group {
        m.push_str("  let t = wid.y * nwg.x + wid.x;\n");
    } else {
        m.push_str("  let t = (wid.y * nwg.x + wid.x) * 256u + lid;\n");
    }
    m.push_str(
        "  if (t >= n_out * chunks) { return; }\n  let o = t % n_out;\n  let ch = t / n_out + chb;\n",
    );
    m.push_str("  var orem = o;\n");
    for ax in (0..o_nd).rev() {
        if ax == 0 {
            m.push_str("  let co0 = orem;\n");
        } else {
            let sh = word(w_oshape + ax);
            let _ = writeln!(m, "  let co{ax} = orem % {sh};\n  orem = orem / {sh};");
        }
    }
    for i in 0..nin {
        let base = w_in(i);
        let mut e = format!("bitcast<i32>({})", word(base));
        for ax in 0..o_nd {
            let _ = write!(e, " + i32(co{ax}) * {}", iword(base + 1 + ax));
        }
        let _ = writeln!(m, "  let base{i} = {e};");
    }
    // The map, once, as a function of the inputs' values and the flat reduced index `rr`.
    let mut mp_args: Vec<String> = vec![];
    let mut xs = vec![];
    for (i, d) in k.inputs.iter().enumerate() {
        mp_args.push(format!("x{i}: {}", em.vty(*d)));
        xs.push(format!("x{i}"));
    }
    mp_args.push("rr: u32".into());
    let ctx = Ctx {
        inputs: xs,
        params: params.clone(),
        vars: vec![],
        // `Index` in a reduction's map: the flat index within the reduced axes.
        index: "rr".into(),
        raws: vec![],
    };
    let mv = pack(
        k.map
            .iter()
            .map(|e| em.expr(e, &ctx))
            .collect::<Result<Vec<_>>>()?,
    );
    let mut mp_fn = format!("fn mp({}) -> {acc_t} {{\n", mp_args.join(", "));
    em.flush_pre("  ", &mut mp_fn);
    let _ = writeln!(mp_fn, "  return {mv};\n}}");
    // Element `r` (a u32 expression) of every input, mapped: statements, and the value's name.
    let elem = |em: &mut WgslEmitter, r: &str, sfx: &str, pad: &str| -> (String, String) {
        let mut c = String::new();
        let _ = writeln!(c, "{pad}let rr{sfx} = {r};");
        if r_nd >= 2 {
            let _ = writeln!(c, "{pad}var rrem{sfx} = rr{sfx};");
            for ax in (0..r_nd).rev() {
                if ax == 0 {
                    let _ = writeln!(c, "{pad}let cr0{sfx} = rrem{sfx};");
                } else {
                    let sh = word(w_rshape + ax);
                    let _ = writeln!(
                        c,
                        "{pad}let cr{ax}{sfx} = rrem{sfx} % {sh};\n{pad}rrem{sfx} = rrem{sfx} / {sh};"
                    );
                }
            }
        }
        let mut args = vec![];
        for i in 0..nin {
            let base = w_in(i);
            let mut e = format!("base{i}");
            if r_nd == 1 {
                let _ = write!(e, " + i32(rr{sfx}) * {}", iword(base + 1 + o_nd));
            } else {
                for ax in 0..r_nd {
                    let _ = write!(e, " + i32(cr{ax}{sfx}) * {}", iword(base + 1 + o_nd + ax));
                }
            }
            let b = spec.bindings.inputs[i];
            let v = if vec4 {
                // A scalar of a vec4 binding (the tail of a vec4 launch).
                format!("b{b}[u32({e}) >> 2u][u32({e}) & 3u]")
            } else {
                let _ = writeln!(c, "{pad}let a{i}{sfx} = u32({e});");
                em.load_elem(b, atomic[b], k.inputs[i], &format!("a{i}{sfx}"))
            };
            args.push(v);
        }
        args.push(format!("rr{sfx}"));
        let _ = writeln!(c, "{pad}let v{sfx} = mp({});", args.join(", "));
        (c, format!("v{sfx}"))
    };
    let ident = pack(k.identity.iter().map(|v| em.lit(*v)).collect());
    let _ = writeln!(m, "  var acc: {acc_t} = {ident};\n  var fresh = true;");
    m.push_str("  let r0 = ch * clen;\n  let r1 = min(r0 + clen, n_red);\n");
    // NumPy's reduce (and the cpu backend) folds from the first element; the identity only
    // stands for an empty range (fmax's NaN identity is not neutral for a NaN element). Each
    // invocation's first element is peeled off; then unrolled steps whose loads are all issued
    // before their combines (memory-level parallelism), in element order.
    let fold = |v: &str| format!("acc = combine(acc, {v});");
    if vec4 {
        // Invocation `lid` takes vectors `lid, lid + 256, ..` of the chunk (elements in
        // groups of 4), two per step; the chunk's last 0..3 elements go to invocations 0..3.
        let vload = |sfx: &str, q: &str| -> (String, Vec<String>) {
            let mut c = String::new();
            for i in 0..nin {
                let b = spec.bindings.inputs[i];
                let _ = writeln!(c, "      let e{i}{sfx} = b{b}[u32(base{i}) / 4u + {q}];");
            }
            let lanes = ["x", "y", "z", "w"]
                .iter()
                .enumerate()
                .map(|(l, c4)| {
                    let mut args: Vec<String> = (0..nin)
                        .map(|i| em.load_conv(k.inputs[i], format!("e{i}{sfx}.{c4}")))
                        .collect();
                    args.push(format!("{q} * 4u + {l}u"));
                    format!("mp({})", args.join(", "))
                })
                .collect();
            (c, lanes)
        };
        m.push_str("  let q1 = r1 / 4u;\n  var q = r0 / 4u + lid;\n  if (q < q1) {\n");
        let (c, lanes) = vload("p", "q");
        m.push_str(&c);
        let _ = writeln!(m, "    acc = {};", lanes[0]);
        for l in &lanes[1..] {
            let _ = writeln!(m, "    {}", fold(l));
        }
        m.push_str("    fresh = false;\n    q = q + 256u;\n  }\n");
        let step = vec4_step();
        let cond = format!("q + {}u < q1", (step - 1) * 256);
        let _ = writeln!(m, "  for (; {cond}; q = q + {}u) {{", step * 256);
        let mut folds = vec![];
        for j in 0..step {
            let (c, l) = vload(&j.to_string(), &format!("(q + {}u)", j * 256));
            m.push_str(&c);
            folds.extend(l);
        }
        for l in &folds {
            let _ = writeln!(m, "    {}", fold(l));
        }
        m.push_str("  }\n");
        em.guard_after(&cond, "  ", &mut m);
        m.push_str("  for (; q < q1; q = q + 256u) {\n");
        let (c, lanes) = vload("t", "q");
        m.push_str(&c);
        for l in &lanes {
            let _ = writeln!(m, "    {}", fold(l));
        }
        m.push_str("  }\n");
        em.guard_after("q < q1", "  ", &mut m);
        m.push_str("  if (q1 * 4u + lid < r1) {\n");
        let (c, v) = elem(&mut em, "q1 * 4u + lid", "e", "    ");
        m.push_str(&c);
        let _ = writeln!(
            m,
            "    if (fresh) {{ acc = {v}; fresh = false; }} else {{ {} }}\n  }}",
            fold(&v)
        );
    } else {
        let (start, step) = if group {
            ("r0 + lid", 256u32)
        } else {
            ("r0", 1)
        };
        const UNROLL: u32 = 4;
        let _ = writeln!(m, "  var r = {start};\n  if (r < r1) {{");
        let (c, v) = elem(&mut em, "r", "p", "    ");
        m.push_str(&c);
        let _ = writeln!(
            m,
            "    acc = {v};\n    fresh = false;\n    r = r + {step}u;\n  }}"
        );
        let cond = format!("r + {}u < r1", (UNROLL - 1) * step);
        let _ = writeln!(m, "  for (; {cond}; r = r + {}u) {{", UNROLL * step);
        let mut vs = vec![];
        for u in 0..UNROLL {
            let r = if u == 0 {
                "r".to_string()
            } else {
                format!("r + {}u", u * step)
            };
            let (c, v) = elem(&mut em, &r, &u.to_string(), "    ");
            m.push_str(&c);
            vs.push(v);
        }
        for v in &vs {
            let _ = writeln!(m, "    {}", fold(v));
        }
        m.push_str("  }\n");
        em.guard_after(&cond, "  ", &mut m);
        let _ = writeln!(m, "  for (; r < r1; r = r + {step}u) {{");
        let (c, v) = elem(&mut em, "r", "t", "    ");
        m.push_str(&c);
        let _ = writeln!(m, "    {}\n  }}", fold(&v));
        em.guard_after("r < r1", "  ", &mut m);
    }
    if subgroup {
        // Every invocation is here (the barrier), then each subgroup folds its invocations'
        // accumulators by shuffles (offsets above the subgroup size, and lanes past its end,
        // take nothing), its first invocation writes the result, and invocation 0 folds those.
        m.push_str("  var valid = select(1u, 0u, fresh);\n  workgroupBarrier();\n");
        let shuffled = |off: u32| -> String {
            pack(
                members("acc", n_acc)
                    .iter()
                    .map(|a| format!("subgroupShuffleDown({a}, {off}u)"))
                    .collect(),
            )
        };
        for off in [64u32, 32, 16, 8, 4, 2, 1] {
            let _ = writeln!(
                m,
                "  {{\n    let so = {};\n    let sv = subgroupShuffleDown(valid, {off}u);\n    if ({off}u < sgs && sgl + {off}u < sgs && sv != 0u) {{\n      if (valid != 0u) {{ acc = combine(acc, so); }} else {{ acc = so; valid = 1u; }}\n    }}\n  }}",
                shuffled(off)
            );
        }
        m.push_str(
            "  if (sgl == 0u) { sh[sgid] = acc; shv[sgid] = valid; }\n  workgroupBarrier();\n  if (lid != 0u) { return; }\n  fresh = true;\n  var s = 0u;\n  for (; s < nsg; s = s + 1u) {\n    if (shv[s] != 0u) {\n      if (fresh) { acc = sh[s]; fresh = false; } else { acc = combine(acc, sh[s]); }\n    }\n  }\n",
        );
        em.guard_after("s < nsg", "  ", &mut m);
    } else if group {
        m.push_str(
            "  sh[lid] = acc;\n  shv[lid] = select(1u, 0u, fresh);\n  workgroupBarrier();\n  var s = 128u;\n  for (; s > 0u; s = s >> 1u) {\n    if (lid < s && shv[lid + s] != 0u) {\n      if (shv[lid] != 0u) { sh[lid] = combine(sh[lid], sh[lid + s]); } else { sh[lid] = sh[lid + s]; shv[lid] = 1u; }\n    }\n    workgroupBarrier();\n  }\n",
        );
        em.guard_after("s > 0u", "  ", &mut m);
        m.push_str("  if (lid != 0u) { return; }\n  acc = sh[0];\n");
    }
    if spec.partial {
        for (j, v) in members("acc", n_acc).into_iter().enumerate() {
            let b = spec.bindings.outputs[j];
            if atomic[b] {
                let st = em.store_packed_atomic(b, k.acc[j], "(t + chb * n_out)", v);
                let _ = writeln!(m, "  {st}");
            } else {
                let sv = em.store_conv(k.acc[j], v);
                let _ = writeln!(m, "  b{b}[t + chb * n_out] = {sv};");
            }
        }
    } else {
        for j in 0..k.n_outputs() {
            let ob = spec.bindings.outputs[j];
            let mut e = format!("bitcast<i32>({})", word(w_out(j)));
            for ax in 0..o_nd {
                let _ = write!(e, " + i32(co{ax}) * {}", iword(w_out(j) + 1 + ax));
            }
            let pctx = Ctx {
                inputs: vec![],
                params: params.clone(),
                vars: members("acc", n_acc),
                index: "o".into(),
                raws: vec![],
            };
            let pv = em.expr(k.post_of(j), &pctx)?;
            em.flush_pre("  ", &mut m);
            let d = k.output_of(j);
            if atomic[ob] {
                let st = em.store_packed_atomic(ob, d, &format!("u32({e})"), pv);
                let _ = writeln!(m, "  {st}");
            } else {
                let sv = em.store_conv(d, pv);
                let _ = writeln!(m, "  b{ob}[u32({e})] = {sv};");
            }
        }
    }
    m.push_str("}\n");
    let mut all = combine;
    all.push_str(&mp_fn);
    all.push_str(&m);
    Ok(WgslShader {
        source: em.finish(&decls, &all),
        meta: layout,
    })
}

/// The meta words of a reduction launch: `n_out, n_red, chunks, chunk_len`, the out shape, the
/// reduce shape, per input its offset and strides (out axes then reduce axes), then per output
/// (one entry per output of the kernel) its offset and strides (`None`: a partial launch, which
/// ignores them), then the first chunk of the launch
/// (0 here: a launch split into ranges of chunks sets it; `chunks` is then the range's length
/// and the partials of chunk `c` stay at `c * n_out + o`).
#[allow(clippy::too_many_arguments)]
pub fn reduction_words(
    out_shape: &[usize],
    reduce_shape: &[usize],
    chunks: usize,
    chunk_len: usize,
    inputs: &[&Layout],
    outputs: &[Option<&Layout>],
) -> Vec<u32> {
    let n_out: usize = out_shape.iter().product();
    let n_red: usize = reduce_shape.iter().product();
    let mut w = vec![n_out as u32, n_red as u32, chunks as u32, chunk_len as u32];
    w.extend(out_shape.iter().map(|&x| x as u32));
    w.extend(reduce_shape.iter().map(|&x| x as u32));
    for l in inputs {
        w.push(l.offset as u32);
        w.extend(l.strides.iter().map(|&x| x as i32 as u32));
    }
    for output in outputs {
        match output {
            Some(l) => {
                w.push(l.offset as u32);
                w.extend(l.strides.iter().map(|&x| x as i32 as u32));
            }
            None => w.extend(std::iter::repeat_n(0, 1 + out_shape.len())),
        }
    }
    w.push(0);
    w
}
