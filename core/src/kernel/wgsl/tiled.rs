//! Tiled elementwise shaders ([`emit_tiled`]): transposes and other strided launches whose
//! operands run fast along different axes, walked in square tiles of the last two axes staged
//! through workgroup memory (the cuda backend's tiled class, `kernel::cpp`'s `Tiled`).
//!
//! One workgroup of [`super::WORKGROUP_SIZE`] invocations per `T x T` tile (`T` = 32, or 16
//! where workgroup memory is short), laid out as `T` columns by `256 / T` rows that step down
//! the tile. The iteration shape's last two axes are the tile's (the backend moves the axes it
//! wants there; `ndim - 2` leading axes are a batch, one tile grid per batch index). An operand
//! is *staged* when its fast axis is the tile's first axis (`ndim - 2`, a transposed view): its
//! elements go through a padded `T x (T + 1)` workgroup array so that global loads (inputs) or
//! stores (outputs) walk its fast axis, whatever the others do. Unstaged operands are read and
//! written in the compute phase, whose invocations walk the last axis. A plain transpose copy
//! thus reads a column-major tile into workgroup memory, waits once, and writes rows.
//!
//! What a tiled launch cannot have (the backend uses the strided launch instead): raw operands,
//! packed (8/16-bit) outputs (their words would be shared across tiles), a staged output not
//! stored exactly once at the top level of the body (its tile would hold garbage where the body
//! skipped the store), loop guards or windows (llvmpipe's budget), and a user's block size.
//! Packed inputs are loaded as in the strided launch. Meta words are the strided launch's
//! ([`super::elementwise_words`] without the owned-words flag).

use super::emitter::{iword, word, Ctx, WgslEmitter};
use super::interface::{bindings_decl, elementwise_narrow, meta_decl, MAIN_SIG};
use super::{packed_bits, BindingPlan, WgslOptions, WgslShader, WORKGROUP_SIZE};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{Kernel, Stmt};
use std::fmt::Write;

/// Specialisation of a tiled elementwise launch (the pipeline cache key, with the kernel).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledSpec {
    /// Axes of the iteration shape (at least 2): the last two are the tile's, the others a
    /// batch.
    pub ndim: usize,
    /// Tile edge: 32 or 16 (a divisor of the workgroup size whose square is a multiple of it).
    pub tile: u32,
    /// Per operand (inputs, then outputs): staged through workgroup memory.
    pub staged: Vec<bool>,
    /// See [`super::ElementwiseSpec::wide_int64`].
    pub wide_int64: bool,
    /// Buffer bindings (every one plain: no atomics).
    pub bindings: BindingPlan,
}

/// Whether output `o` is stored exactly once, unconditionally, at the top level of the body.
fn stored_once(k: &Kernel, o: usize) -> bool {
    let top = k
        .body
        .iter()
        .filter(|s| matches!(s, Stmt::Store { output, .. } if *output == o))
        .count();
    let mut all = 0;
    Stmt::visit_all(&k.body, &mut |s| {
        all += usize::from(matches!(s, Stmt::Store { output, .. } if *output == o));
    });
    top == 1 && all == 1
}

/// Whether a launch of `k` may be tiled with operands `staged` (inputs, then outputs): no raw
/// operands, no packed outputs, every staged output stored once at top level.
pub fn tiled_eligible(k: &Kernel, staged: &[bool]) -> bool {
    let nin = k.inputs.len();
    k.raws.is_empty()
        && staged.len() == nin + k.outputs.len()
        && k.outputs.iter().all(|d| packed_bits(*d).is_none())
        && (0..k.outputs.len()).all(|o| !staged[nin + o] || stored_once(k, o))
}

/// Bytes of one workgroup-memory element for operand dtype `d` (its value, or a bool as `u32`).
fn tile_elem_bytes(d: DType) -> usize {
    match d {
        DType::Float64 | DType::Int64 | DType::UInt64 | DType::Complex64 => 8,
        DType::Complex128 => 16,
        _ => 4,
    }
}

/// Workgroup memory (bytes) of a tiled launch of `k` with edge `tile` and operands `staged`.
pub fn tiled_bytes(k: &Kernel, staged: &[bool], tile: u32) -> usize {
    let t = tile as usize;
    k.inputs
        .iter()
        .chain(&k.outputs)
        .zip(staged)
        .filter(|(_, s)| **s)
        .map(|(d, _)| t * (t + 1) * tile_elem_bytes(*d))
        .sum()
}

/// Emits the WGSL compute shader of a tiled launch (see the module docs). Dispatch one
/// workgroup per tile: `batch * ceil(s0 / T) * ceil(s1 / T)` workgroups over a 2-D grid, where
/// `s0, s1` are the last two extents and `batch` the product of the others.
///
/// # Errors
/// As [`super::emit_elementwise`]; `InvalidArgument` for a spec [`tiled_eligible`] refuses,
/// fewer than two axes, or a tile edge other than 16 or 32.
pub fn emit_tiled(k: &Kernel, spec: &TiledSpec, opts: &WgslOptions) -> Result<WgslShader> {
    let bad = |why: &str| Error::invalid(format!("wgsl:{}", k.name), why.to_string());
    k.validate()?;
    if spec.ndim < 2 {
        return Err(bad("a tiled launch needs two axes"));
    }
    if !matches!(spec.tile, 16 | 32) {
        return Err(bad("a tiled launch's tile edge is 16 or 32"));
    }
    if !tiled_eligible(k, &spec.staged) {
        return Err(bad(
            "a kernel with raw operands, packed outputs or a staged output not stored once \
             cannot be tiled",
        ));
    }
    let narrow = elementwise_narrow(k, spec.wide_int64);
    let mut em = WgslEmitter::new(opts, narrow, &k.name);
    for d in k.dtypes() {
        em.check(d)?;
    }
    let nd = spec.ndim;
    let nin = k.inputs.len();
    let nops = nin + k.outputs.len();
    let n_words = 1 + nd + nops * (nd + 1);
    let (mut decls, layout) = meta_decl(&em, &k.params, n_words);
    let atomic = vec![false; spec.bindings.buffers.len()];
    decls.push_str(&bindings_decl(&em, &spec.bindings, false, &atomic));
    let t = spec.tile;
    let rows = WORKGROUP_SIZE / t;
    let pitch = t + 1;
    let dtype_of = |o: usize| {
        if o < nin {
            k.inputs[o]
        } else {
            k.outputs[o - nin]
        }
    };
    let binding_of = |o: usize| {
        if o < nin {
            spec.bindings.inputs[o]
        } else {
            spec.bindings.outputs[o - nin]
        }
    };
    for o in (0..nops).filter(|&o| spec.staged[o]) {
        let d = dtype_of(o);
        let ty = if d == DType::Bool { "u32" } else { em.vty(d) };
        let _ = writeln!(decls, "var<workgroup> tl{o}: array<{ty}, {}>;", t * pitch);
    }
    let shape_w = |ax: usize| word(1 + ax);
    let base_w = |o: usize| 1 + nd + o * (nd + 1);
    let (a0, a1) = (nd - 2, nd - 1);
    let mut m = String::from(MAIN_SIG);
    let _ = writeln!(
        m,
        "  let tid = wid.y * nwg.x + wid.x;
  let total = {};
  let s0 = {};
  let s1 = {};
  let nt1 = (s1 + {tm}u) / {t}u;
  let nt = ((s0 + {tm}u) / {t}u) * nt1;
  let nb = total / (s0 * s1);
  if (tid >= nt * nb) {{ return; }}
  let tb = tid / nt;
  let tr = tid % nt;
  let to0 = (tr / nt1) * {t}u;
  let to1 = (tr % nt1) * {t}u;
  let tx = lid % {t}u;
  let ty = lid / {t}u;",
        word(0),
        shape_w(a0),
        shape_w(a1),
        tm = t - 1,
    );
    // Batch coordinates, then each operand's element offset at this batch index.
    if nd > 2 {
        m.push_str("  var brem = tb;\n");
        for ax in (0..nd - 2).rev() {
            if ax == 0 {
                m.push_str("  let c0 = brem;\n");
            } else {
                let sh = shape_w(ax);
                let _ = writeln!(m, "  let c{ax} = brem % {sh};\n  brem = brem / {sh};");
            }
        }
    }
    for o in 0..nops {
        let b = base_w(o);
        let mut e = format!("bitcast<i32>({})", word(b));
        for ax in 0..nd - 2 {
            let _ = write!(e, " + i32(c{ax}) * {}", iword(b + 1 + ax));
        }
        let _ = writeln!(m, "  let base{o} = {e};");
    }
    let addr = |o: usize| {
        let b = base_w(o);
        format!(
            "u32(base{o} + i32(gq0) * {} + i32(gq1) * {})",
            iword(b + 1 + a0),
            iword(b + 1 + a1)
        )
    };
    // Invocations along the tile's first axis (`col`: staging) or its last (compute).
    let walk = |col: bool, body: &str| -> String {
        let (l0, l1) = if col {
            ("tx", "ty + kk")
        } else {
            ("ty + kk", "tx")
        };
        format!(
            "  for (var kk = 0u; kk < {t}u; kk = kk + {rows}u) {{
    let lq0 = {l0};
    let lq1 = {l1};
    let gq0 = to0 + lq0;
    let gq1 = to1 + lq1;
    if (gq0 < s0 && gq1 < s1) {{
{body}    }}
  }}
"
        )
    };
    let slot = |o: usize| format!("tl{o}[lq0 * {pitch}u + lq1]");
    let staged_in: Vec<usize> = (0..nin).filter(|&i| spec.staged[i]).collect();
    if !staged_in.is_empty() {
        let mut body = String::new();
        for &i in &staged_in {
            let b = binding_of(i);
            let d = k.inputs[i];
            let v = em.load_elem(b, false, d, &addr(i));
            let v = if d == DType::Bool {
                format!("select(0u, 1u, {v})")
            } else {
                v
            };
            let _ = writeln!(body, "      {} = {v};", slot(i));
        }
        m.push_str(&walk(true, &body));
        m.push_str("  workgroupBarrier();\n");
    }
    // The compute phase.
    let mut body = String::new();
    let _ = writeln!(body, "      let i = (tb * s0 + gq0) * s1 + gq1;");
    for o in (0..nops).filter(|&o| !spec.staged[o]) {
        let _ = writeln!(body, "      let a{o} = {};", addr(o));
    }
    let mut inputs = vec![];
    for i in 0..nin {
        let d = k.inputs[i];
        let v = if spec.staged[i] {
            em.load_conv(d, slot(i))
        } else {
            em.load_elem(binding_of(i), false, d, &format!("a{i}"))
        };
        let _ = writeln!(body, "      let x{i} = {v};");
        inputs.push(format!("x{i}"));
    }
    let params: Vec<String> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, d)| em.param_expr(i, *d))
        .collect();
    let ctx = Ctx {
        inputs,
        params,
        vars: (0..k.locals.len()).map(|i| format!("l{i}")).collect(),
        index: "i".into(),
        raws: vec![],
    };
    body.push_str("      {\n");
    for (i, d) in k.locals.iter().enumerate() {
        let _ = writeln!(body, "        var l{i}: {};", em.vty(*d));
    }
    let staged = spec.staged.clone();
    let outs_binding: Vec<usize> = spec.bindings.outputs.clone();
    let store = move |em: &mut WgslEmitter, o: usize, d: DType, v: String| -> String {
        let sv = em.store_conv(d, v);
        if staged[nin + o] {
            format!("tl{}[lq0 * {pitch}u + lq1] = {sv};", nin + o)
        } else {
            format!("b{}[a{}] = {sv};", outs_binding[o], nin + o)
        }
    };
    em.stmts(&k.body, &ctx, &store, &k.outputs, 4, &mut body)?;
    body.push_str("      }\n");
    m.push_str(&walk(false, &body));
    let staged_out: Vec<usize> = (nin..nops).filter(|&o| spec.staged[o]).collect();
    if !staged_out.is_empty() {
        m.push_str("  workgroupBarrier();\n");
        let mut body = String::new();
        for &o in &staged_out {
            let _ = writeln!(body, "      b{}[{}] = {};", binding_of(o), addr(o), slot(o));
        }
        m.push_str(&walk(true, &body));
    }
    m.push_str("}\n");
    Ok(WgslShader {
        source: em.finish(&decls, &m),
        meta: layout,
    })
}

/// The meta words of a tiled launch: total, the shape, then per operand (inputs, then outputs)
/// its offset and strides (the strided launch's words, [`super::elementwise_words`]).
pub fn tiled_words(shape: &[usize], operands: &[&crate::layout::Layout]) -> Vec<u32> {
    let total: usize = shape.iter().product();
    let mut w = vec![total as u32];
    w.extend(shape.iter().map(|&x| x as u32));
    for l in operands {
        w.push(l.offset as u32);
        w.extend(l.strides.iter().map(|&x| x as i32 as u32));
    }
    w
}
