//! The launch interface shared by elementwise and reduction shaders: index width (narrow
//! `Int64`), storage binding and `Meta` uniform declarations, the entry point's signature.

use super::atomic::atomic_word;
use super::emitter::WgslEmitter;
use super::{BindingPlan, MetaLayout, ParamRepr};
use crate::dtype::DType;
use crate::kernel::ir::{Expr, ExprKind, Kernel, ReduceKernel, Stmt};
use crate::scalar::Scalar;
use std::fmt::Write;

fn kernel_narrow(operands: &[DType], consts: &[Scalar], wide: bool) -> bool {
    if wide {
        return false;
    }
    if operands
        .iter()
        .any(|d| matches!(d, DType::Int64 | DType::UInt64))
    {
        return false;
    }
    consts.iter().all(|c| match c {
        Scalar::Int64(v) => i32::try_from(*v).is_ok(),
        Scalar::UInt64(v) => u32::try_from(*v).is_ok(),
        _ => true,
    })
}

fn consts_of(exprs: &[&Expr]) -> Vec<Scalar> {
    let mut out = vec![];
    for e in exprs {
        e.visit(&mut |n| {
            if let ExprKind::Const(v) = n.kind {
                out.push(v)
            }
        });
    }
    out
}

/// True when the kernel's index-like `Int64` values are emitted as 32-bit integers for this
/// spec (see the module docs); the backend checks `Int64` parameter values against it.
pub fn elementwise_narrow(k: &Kernel, wide_int64: bool) -> bool {
    let mut consts = vec![];
    Stmt::visit_all(&k.body, &mut |s| {
        for e in s.exprs() {
            consts.extend(consts_of(&[e]));
        }
    });
    let ops: Vec<DType> = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .chain(&k.raws)
        .copied()
        .collect();
    kernel_narrow(&ops, &consts, wide_int64)
}

/// True when a reduction's index-like `Int64` values are emitted as 32-bit integers.
pub fn reduce_narrow(k: &ReduceKernel, wide_int64: bool) -> bool {
    let mut ops = k.inputs.clone();
    ops.extend(&k.acc);
    ops.extend(k.outputs());
    let exprs: Vec<&Expr> = k
        .map
        .iter()
        .chain(&k.combine)
        .chain([&k.post])
        .chain(&k.extra_posts)
        .collect();
    let mut c = consts_of(&exprs);
    c.extend(&k.identity);
    kernel_narrow(&ops, &c, wide_int64)
}

pub(super) fn bindings_decl(
    em: &WgslEmitter,
    plan: &BindingPlan,
    vec4: bool,
    atomic: &[bool],
) -> String {
    bindings_decl_per(em, plan, &vec![vec4; plan.buffers.len()], atomic)
}

/// [`bindings_decl`] with `vec4` per binding (`array<vec4<T>>` where set).
pub(super) fn bindings_decl_per(
    em: &WgslEmitter,
    plan: &BindingPlan,
    vec4: &[bool],
    atomic: &[bool],
) -> String {
    let mut s = String::new();
    for (i, &(d, rw)) in plan.buffers.iter().enumerate() {
        let st = em.sty(d);
        let ty = if atomic.get(i).copied().unwrap_or(false) {
            format!("atomic<{}>", atomic_word(d, em.opts.int64_atomics))
        } else if vec4.get(i).copied().unwrap_or(false) {
            format!("vec4<{st}>")
        } else {
            st.to_string()
        };
        let acc = if rw { "read_write" } else { "read" };
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, {acc}> b{i}: array<{ty}>;",
            i + 1
        );
    }
    s
}

pub(super) fn meta_decl(
    em: &WgslEmitter,
    params: &[DType],
    n_words: usize,
) -> (String, MetaLayout) {
    let reprs: Vec<ParamRepr> = params.iter().map(|d| em.param_repr(*d)).collect();
    let layout = MetaLayout::new(&reprs, n_words);
    let mut s = String::new();
    s.push_str("struct Meta {\n");
    for (k, r) in reprs.iter().enumerate() {
        let t = match r {
            ParamRepr::U32 => "u32",
            ParamRepr::I32 => "i32",
            ParamRepr::F32 => "f32",
            ParamRepr::F64 => "f64",
            ParamRepr::I64 => "i64",
            ParamRepr::U64 => "u64",
            ParamRepr::C64 => "vec2<f32>",
            ParamRepr::C128 => "vec2<f64>",
        };
        let _ = writeln!(s, "  p{k}: {t},");
    }
    let _ = writeln!(s, "  w: array<vec4<u32>, {}>,", layout.n_words / 4);
    s.push_str("}\n@group(0) @binding(0) var<uniform> mt: Meta;\n");
    (s, layout)
}

pub(super) const MAIN_SIG: &str = "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
";

/// [`MAIN_SIG`] with the subgroup builtins (`sgl`: the invocation's index in its subgroup,
/// `sgs`: the subgroup size, `sgid`: the subgroup's index, `nsg`: subgroups per workgroup).
pub(super) const MAIN_SIG_SUBGROUP: &str = "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sgl: u32, @builtin(subgroup_size) sgs: u32, @builtin(subgroup_id) sgid: u32, @builtin(num_subgroups) nsg: u32) {
";
