//! Statements: kernel bodies (stores, locals, loops, ifs, raw stores and atomics).

use super::atomic::atomic_name;
use super::expr::{expr, Names};
use super::types::store_conv;
use crate::error::Result;
use crate::kernel::ir::{Kernel, Stmt};
use std::fmt::Write as _;

pub(super) fn stmts(
    body: &[Stmt],
    n: &Names<'_>,
    outs: &dyn Fn(usize) -> String,
    ind: usize,
    s: &mut String,
) -> Result<()> {
    let pad = "  ".repeat(ind);
    for st in body {
        match st {
            Stmt::StoreRaw { raw, index, value } => {
                let _ = writeln!(
                    s,
                    "{pad}a.r{raw}[{}] = {};",
                    expr(index, n)?,
                    store_conv(value.ty, &expr(value, n)?)
                );
            }
            Stmt::AtomicRaw {
                value,
                index,
                raw,
                old: Some(var),
                ..
            } => {
                // Fetch-and-add of an int32/uint32 (validated): CUDA's and HIP's own atomicAdd.
                let t = if value.ty == crate::dtype::DType::Int32 {
                    "int"
                } else {
                    "unsigned int"
                };
                let _ = writeln!(
                    s,
                    "{pad}v{var} = atomicAdd(({t}*)&a.r{raw}[{}], ({t})({}));",
                    expr(index, n)?,
                    expr(value, n)?
                );
            }
            Stmt::AtomicRaw {
                raw,
                op,
                index,
                value,
                old: None,
            } => {
                let _ = writeln!(
                    s,
                    "{pad}{}(&a.r{raw}[{}], {});",
                    atomic_name(&n.entry, value.ty, *op),
                    expr(index, n)?,
                    expr(value, n)?
                );
            }
            Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                let _ = writeln!(s, "{pad}v{var} = {};", expr(value, n)?);
            }
            Stmt::Store { output, value } => {
                let _ = writeln!(s, "{pad}{} = {};", outs(*output), expr(value, n)?);
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let _ = writeln!(s, "{pad}if ({}) {{", expr(cond, n)?);
                stmts(then_body, n, outs, ind + 1, s)?;
                if else_body.is_empty() {
                    let _ = writeln!(s, "{pad}}}");
                } else {
                    let _ = writeln!(s, "{pad}}} else {{");
                    stmts(else_body, n, outs, ind + 1, s)?;
                    let _ = writeln!(s, "{pad}}}");
                }
            }
            Stmt::For {
                var,
                start,
                end,
                body,
            } => {
                let _ = writeln!(s, "{pad}{{");
                let _ = writeln!(s, "{pad}  const cp_i64 e{var} = {};", expr(end, n)?);
                // A long body is not unrolled: NVRTC unrolls constant-trip loops, and nested
                // rejection loops (the ziggurat's, each attempt a Philox block and a log or
                // exp) then grow the kernel past the instruction cache.
                let mut len = 0usize;
                Stmt::visit_all(body, &mut |_| len += 1);
                if len > UNROLL_MAX_STATEMENTS {
                    let _ = writeln!(s, "{pad}  #pragma unroll 1");
                }
                let _ = writeln!(
                    s,
                    "{pad}  for (v{var} = {}; v{var} < e{var}; ++v{var}) {{",
                    expr(start, n)?
                );
                stmts(body, n, outs, ind + 2, s)?;
                let _ = writeln!(s, "{pad}  }}");
                let _ = writeln!(s, "{pad}}}");
            }
        }
    }
    Ok(())
}

/// The longest loop body (in statements, nested ones counted) left to the compiler to unroll.
const UNROLL_MAX_STATEMENTS: usize = 64;

/// Outputs stored by a top-level (unconditional) `Store`.
pub(super) fn definitely_stored(k: &Kernel) -> Vec<bool> {
    let mut v = vec![false; k.outputs.len()];
    for s in &k.body {
        if let Stmt::Store { output, .. } = s {
            if *output < v.len() {
                v[*output] = true;
            }
        }
    }
    v
}
