//! Reduction shaders: [`emit_reduction`] and their meta words.
//!
//! A tuple of accumulators is one WGSL value: `struct Acc { v0: T0, v1: T1, .. }` (a single
//! accumulator is its plain type, as before), so `combine(a: Acc, b: Acc) -> Acc`, the
//! workgroup tree and the per-thread fold are the same code for any tuple; a partial launch
//! writes member `j` to output binding `j` (one partial buffer per accumulator).

use super::emitter::{iword, word, Ctx, WgslEmitter};
use super::interface::{bindings_decl, meta_decl, reduce_narrow, MAIN_SIG};
use super::{packed_bits, LoopMode, ReduceMode, ReduceSpec, WgslOptions, WgslShader};
use crate::error::Result;
use crate::kernel::ir::ReduceKernel;
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
    decls.push_str(&bindings_decl(&em, &spec.bindings, false, &atomic));
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
    let group = spec.mode == ReduceMode::GroupPerOutput;
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
    let mut m = String::from(MAIN_SIG);
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
    let ident = pack(k.identity.iter().map(|v| em.lit(*v)).collect());
    let _ = writeln!(m, "  var acc: {acc_t} = {ident};\n  var fresh = true;");
    m.push_str("  let r0 = ch * clen;\n  let r1 = min(r0 + clen, n_red);\n");
    if group {
        m.push_str("  var r = r0 + lid;\n  for (; r < r1; r = r + 256u) {\n");
    } else {
        m.push_str("  var r = r0;\n  for (; r < r1; r = r + 1u) {\n");
    }
    if r_nd >= 2 {
        m.push_str("    var rrem = r;\n");
        for ax in (0..r_nd).rev() {
            if ax == 0 {
                m.push_str("    let cr0 = rrem;\n");
            } else {
                let sh = word(w_rshape + ax);
                let _ = writeln!(m, "    let cr{ax} = rrem % {sh};\n    rrem = rrem / {sh};");
            }
        }
    }
    for i in 0..nin {
        let base = w_in(i);
        let mut e = format!("base{i}");
        if r_nd == 1 {
            let _ = write!(e, " + i32(r) * {}", iword(base + 1 + o_nd));
        } else {
            for ax in 0..r_nd {
                let _ = write!(e, " + i32(cr{ax}) * {}", iword(base + 1 + o_nd + ax));
            }
        }
        let _ = writeln!(m, "    let a{i} = u32({e});");
    }
    let mut inputs = vec![];
    for i in 0..nin {
        let b = spec.bindings.inputs[i];
        let v = em.load_elem(b, atomic[b], k.inputs[i], &format!("a{i}"));
        let _ = writeln!(m, "    let x{i} = {v};");
        inputs.push(format!("x{i}"));
    }
    let ctx = Ctx {
        inputs,
        params: params.clone(),
        vars: vec![],
        // `Index` in a reduction's map: the flat index within the reduced axes.
        index: "r".into(),
        raws: vec![],
    };
    let mv = pack(
        k.map
            .iter()
            .map(|e| em.expr(e, &ctx))
            .collect::<Result<Vec<_>>>()?,
    );
    em.flush_pre("    ", &mut m);
    // NumPy's reduce (and the cpu backend) folds from the first element; the identity only
    // stands for an empty range (fmax's NaN identity is not neutral for a NaN element).
    let _ = writeln!(
        m,
        "    let v = {mv};\n    if (fresh) {{ acc = v; fresh = false; }} else {{ acc = combine(acc, v); }}\n  }}"
    );
    em.guard_after("r < r1", "  ", &mut m);
    if group {
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
