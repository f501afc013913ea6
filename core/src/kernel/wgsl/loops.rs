//! Shader loop budgets: the cost model of drivers that cap loops, and the split of an elementwise
//! kernel into windows (one dispatch each) that stay under the cap.
//!
//! # Mesa's llvmpipe (measured with Mesa 22.3.6 / LLVM 15, `examples/loop_probe.rs` of cupy-wgpu)
//! gallivm compiles a shader to SIMD code over a vector of invocations (8 lanes on a 256-bit CPU)
//! and gives each call of that code one *loop limiter* of 65,535 (`LP_MAX_TGSI_LOOP_ITERATIONS`,
//! initialised in `lp_exec_mask_function_init`, decremented at every loop back-edge in
//! `lp_exec_endloop`). So:
//! - the budget is shared by **every loop** the vector runs (sequential loops, nested loops, loops
//!   in called functions): `for 40,000` then `for 40,000` runs 40,000 + 25,534 iterations;
//!   nested `300 x 300` stops after 65,101;
//! - it is counted in loop **passes**: a loop entered with `n` iterations costs `n + 1` passes
//!   (the last one finds the condition false), and every pass of an outer loop enters the inner
//!   loops again. Unrolling a body four times lets a loop run four times as many iterations;
//! - control flow is uniform for the vector: both arms of an `if` run (masked), so a loop inside
//!   an `if` that no lane takes still costs a pass each time it is reached;
//! - it is per vector of lanes and per dispatch: neighbouring invocations share it, the next
//!   workgroup and the next dispatch start afresh;
//! - when it runs out, the loop that was running and every loop after it exit early (the latter
//!   after one pass) and the shader goes on with wrong values. No error is reported.
//!   `for`, `while` and `loop { if (..) { break; } }` behave alike; constant bounds too.
//!
//! The model here bounds the passes of a kernel from above with the loop bounds evaluated on the
//! host (bounds of [`Stmt::For`] are uniform: constants, parameters and enclosing loop
//! variables), counting both arms of every `if` and the data-dependent loops of the emitter's
//! helper functions at their worst case.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{BinaryOp, Expr, ExprKind, Kernel, Stmt, UnaryOp};
use crate::scalar::Scalar;

/// Loop passes llvmpipe allows one vector of invocations in one dispatch.
pub const LLVMPIPE_LOOP_BUDGET: u64 = 65_535;

/// Host evaluation steps allowed while costing one launch (beyond them the cost is unknown).
const MAX_EFFORT: u64 = 4_000_000;

/// Worst-case passes of the helper loops an expression calls (float `floor_divide`/`remainder`
/// run a binary long division over the exponent difference; integer `power` squares once per
/// exponent bit).
pub fn helper_passes(e: &Expr, narrow: bool) -> u64 {
    let mut n = 0u64;
    e.visit(&mut |x| {
        if let ExprKind::Binary(op, a, _) = &x.kind {
            let d = a.ty;
            n += match op {
                BinaryOp::FloorDiv | BinaryOp::Mod if d == DType::Float64 => 2 * 2100,
                BinaryOp::FloorDiv | BinaryOp::Mod if d.is_float() => 2 * 280,
                BinaryOp::Pow if d.is_integer() => {
                    if narrow || d.bits() <= 32 {
                        34
                    } else {
                        66
                    }
                }
                // Complex `**` squares once per bit of an integer exponent below 100.
                BinaryOp::Pow if d.is_complex() => 8,
                _ => 0,
            };
        }
    });
    n
}

/// Passes of the compare-and-swap loop of one non-native atomic update (assumed; the loop guard
/// catches a longer one).
const CAS_PASSES: u64 = 64;

/// Loop statements of the helper functions an expression calls: what they cost when reached
/// with every lane inactive (one pass each).
fn helper_loops(e: &Expr) -> u64 {
    let mut n = 0u64;
    e.visit(&mut |x| {
        if let ExprKind::Binary(op, a, _) = &x.kind {
            n += match op {
                BinaryOp::FloorDiv | BinaryOp::Mod if a.ty.is_float() => 2,
                BinaryOp::Pow if a.ty.is_integer() || a.ty.is_complex() => 1,
                _ => 0,
            };
        }
    });
    n
}

/// Passes of `body` run with every lane inactive (the last pass of a loop, which finds its
/// condition false, runs its body so): each loop reached costs one pass.
fn masked_passes(body: &[Stmt]) -> u64 {
    let mut n = 0u64;
    Stmt::visit_all(body, &mut |s| {
        n += s.exprs().iter().map(|e| helper_loops(e)).sum::<u64>();
        n += u64::from(matches!(s, Stmt::For { .. } | Stmt::AtomicRaw { .. }));
    });
    n
}

fn stmt_helpers(s: &Stmt, narrow: bool) -> u64 {
    let mut n: u64 = s.exprs().iter().map(|e| helper_passes(e, narrow)).sum();
    if let Stmt::AtomicRaw { .. } = s {
        n += CAS_PASSES;
    }
    n
}

/// Evaluates a uniform expression (constants, parameters, loop variables in `env`) with the IR's
/// semantics; `None` for anything else.
pub fn eval_uniform(e: &Expr, params: &[Scalar], env: &[(usize, i64)]) -> Option<Scalar> {
    let v = match &e.kind {
        ExprKind::Const(v) => *v,
        ExprKind::Param(k) => params.get(*k)?.cast(e.ty),
        ExprKind::Var(k) => {
            let (_, v) = env.iter().rev().find(|(var, _)| var == k)?;
            Scalar::Int64(*v).cast(e.ty)
        }
        ExprKind::Cast(a) => eval_uniform(a, params, env)?.cast(e.ty),
        ExprKind::Select(c, a, b) => {
            if eval_uniform(c, params, env)?.is_nonzero() {
                eval_uniform(a, params, env)?
            } else {
                eval_uniform(b, params, env)?
            }
        }
        ExprKind::Unary(op, a) => unary(*op, eval_uniform(a, params, env)?, e.ty)?,
        ExprKind::Binary(op, a, b) => binary(
            *op,
            eval_uniform(a, params, env)?,
            eval_uniform(b, params, env)?,
            e.ty,
        )?,
        ExprKind::Input(_) | ExprKind::Index | ExprKind::Load { .. } => return None,
    };
    Some(v)
}

/// An integer scalar of dtype `t` from `v`, wrapped to the type.
fn int_of(t: DType, v: i128) -> Scalar {
    if t == DType::UInt64 {
        Scalar::UInt64(v as u64)
    } else {
        Scalar::Int64(v as i64).cast(t)
    }
}

fn unary(op: UnaryOp, a: Scalar, t: DType) -> Option<Scalar> {
    let d = a.dtype();
    Some(match op {
        UnaryOp::Not => Scalar::Bool(!a.is_nonzero()),
        UnaryOp::Neg if d.is_integer() => int_of(t, -a.to_i128()),
        UnaryOp::Abs if d.is_integer() => int_of(t, a.to_i128().abs()),
        UnaryOp::BitNot if d.is_integer() => int_of(t, !a.to_i128()),
        UnaryOp::Neg if d.is_float() => Scalar::Float64(-a.to_f64()).cast(t),
        UnaryOp::Abs if d.is_float() => Scalar::Float64(a.to_f64().abs()).cast(t),
        UnaryOp::Floor if d.is_float() => Scalar::Float64(a.to_f64().floor()).cast(t),
        UnaryOp::Ceil if d.is_float() => Scalar::Float64(a.to_f64().ceil()).cast(t),
        UnaryOp::Floor | UnaryOp::Ceil if d.is_integer() => a,
        UnaryOp::Sqrt if d.is_float() => Scalar::Float64(a.to_f64().sqrt()).cast(t),
        _ => return None,
    })
}

fn binary(op: BinaryOp, a: Scalar, b: Scalar, t: DType) -> Option<Scalar> {
    use BinaryOp as B;
    let d = a.dtype();
    if op.is_comparison() {
        let o = if d.is_float() {
            a.to_f64().partial_cmp(&b.to_f64())
        } else {
            Some(a.to_i128().cmp(&b.to_i128()))
        };
        use std::cmp::Ordering::*;
        return Some(Scalar::Bool(match op {
            B::Eq => o == Some(Equal),
            B::Ne => o != Some(Equal),
            B::Lt => o == Some(Less),
            B::Le => matches!(o, Some(Less | Equal)),
            B::Gt => o == Some(Greater),
            _ => matches!(o, Some(Greater | Equal)),
        }));
    }
    if d == DType::Bool {
        let (x, y) = (a.is_nonzero(), b.is_nonzero());
        return Some(Scalar::Bool(match op {
            B::And | B::Mul | B::Min | B::FMin => x & y,
            B::Or | B::Add | B::Max | B::FMax => x | y,
            B::Xor | B::Sub => x != y,
            _ => return None,
        }));
    }
    if d.is_integer() {
        let (x, y) = (a.to_i128(), b.to_i128());
        let bits = d.bits() as i128;
        let v = match op {
            B::Add => x + y,
            B::Sub => x - y,
            B::Mul => x.wrapping_mul(y),
            B::Div => {
                if y == 0 {
                    0
                } else {
                    x / y
                }
            }
            B::FloorDiv => {
                if y == 0 {
                    0
                } else {
                    x.div_euclid(y) - i128::from(y < 0 && x.rem_euclid(y) != 0)
                }
            }
            B::Mod => {
                if y == 0 {
                    0
                } else {
                    let r = x % y;
                    if r != 0 && ((r < 0) != (y < 0)) {
                        r + y
                    } else {
                        r
                    }
                }
            }
            B::Max | B::FMax => x.max(y),
            B::Min | B::FMin => x.min(y),
            B::And => x & y,
            B::Or => x | y,
            B::Xor => x ^ y,
            B::Shl => {
                if y < 0 || y >= bits {
                    0
                } else {
                    x << y
                }
            }
            B::Shr => {
                if y < 0 || y >= bits {
                    if d.is_signed_integer() && x < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    x >> y
                }
            }
            B::Pow => {
                if y < 0 {
                    match x {
                        1 => 1,
                        -1 => {
                            if y % 2 == 0 {
                                1
                            } else {
                                -1
                            }
                        }
                        _ => 0,
                    }
                } else {
                    let m = 1i128 << bits;
                    let (mut r, mut base, mut e) = (1i128, x.rem_euclid(m), y);
                    while e > 0 {
                        if e & 1 == 1 {
                            r = (r * base).rem_euclid(m);
                        }
                        base = (base * base).rem_euclid(m);
                        e >>= 1;
                    }
                    r
                }
            }
            B::Atan2 => return None,
            _ => return None,
        };
        return Some(int_of(t, v));
    }
    if d.is_float() {
        let (x, y) = (a.to_f64(), b.to_f64());
        let v = match op {
            B::Add => x + y,
            B::Sub => x - y,
            B::Mul => x * y,
            B::Div => x / y,
            B::Max | B::Min if x.is_nan() || y.is_nan() => f64::NAN,
            B::Max | B::FMax => x.max(y),
            B::Min | B::FMin => x.min(y),
            _ => return None,
        };
        return Some(Scalar::Float64(v).cast(t));
    }
    None
}

/// Costing state: parameters, loop variable values, effort spent.
struct Coster<'a> {
    params: &'a [Scalar],
    narrow: bool,
    env: Vec<(usize, i64)>,
    effort: u64,
}

/// True if a loop bound anywhere in `body` reads loop variable `var`.
fn bounds_read(body: &[Stmt], var: usize) -> bool {
    let mut hit = false;
    Stmt::visit_all(body, &mut |s| {
        if let Stmt::For { start, end, .. } = s {
            for e in [start, end] {
                e.visit(&mut |x| {
                    if matches!(x.kind, ExprKind::Var(v) if v == var) {
                        hit = true
                    }
                });
            }
        }
    });
    hit
}

impl Coster<'_> {
    fn bounds(&mut self, start: &Expr, end: &Expr) -> Option<(i64, i64)> {
        let s = eval_uniform(start, self.params, &self.env)?.to_i128();
        let e = eval_uniform(end, self.params, &self.env)?.to_i128();
        Some((i64::try_from(s).ok()?, i64::try_from(e).ok()?))
    }

    fn body(&mut self, body: &[Stmt]) -> Option<u64> {
        let mut c = 0u64;
        for s in body {
            c = c.saturating_add(self.stmt(s)?);
        }
        Some(c)
    }

    /// Passes of one iteration of `For { var, body }` with `var = v`, the back-edge included.
    fn iteration(&mut self, var: usize, body: &[Stmt], v: i64) -> Option<u64> {
        self.env.push((var, v));
        let c = self.body(body);
        self.env.pop();
        Some(c?.saturating_add(1))
    }

    fn stmt(&mut self, s: &Stmt) -> Option<u64> {
        self.effort += 1;
        if self.effort > MAX_EFFORT {
            return None;
        }
        let h = stmt_helpers(s, self.narrow);
        Some(match s {
            Stmt::If {
                then_body,
                else_body,
                ..
            } => h
                .saturating_add(self.body(then_body)?)
                .saturating_add(self.body(else_body)?),
            Stmt::For {
                var,
                start,
                end,
                body,
            } => {
                let (a, b) = self.bounds(start, end)?;
                let n = (b as i128 - a as i128).max(0) as u64;
                // `end` is evaluated on every pass; the last pass runs the body masked.
                let per_end = helper_passes(end, self.narrow);
                let loop_cost = if bounds_read(body, *var) {
                    if n > MAX_EFFORT {
                        return None;
                    }
                    let mut c = 0u64;
                    for v in a..b {
                        c = c.saturating_add(self.iteration(*var, body, v)?);
                    }
                    c
                } else {
                    let it = self.iteration(*var, body, a)?;
                    n.saturating_mul(it)
                };
                h.saturating_add(loop_cost)
                    .saturating_add(1 + masked_passes(body))
                    .saturating_add((n + 1).saturating_mul(per_end))
            }
            _ => h,
        })
    }
}

/// An upper bound of the loop passes of one invocation of `body` (a kernel body or part of one)
/// with these parameter values; `None` when a bound cannot be evaluated on the host.
pub fn body_passes(body: &[Stmt], params: &[Scalar], narrow: bool) -> Option<u64> {
    Coster {
        params,
        narrow,
        env: vec![],
        effort: 0,
    }
    .body(body)
}

/// One dispatch of a windowed elementwise launch: top-level statements `lo..=hi` of the kernel
/// body run; when statement `lo` is a [`Stmt::For`] it starts at iteration `it_lo` (counted from
/// its first), and when statement `hi` is one it stops before iteration `it_hi` (`u32::MAX`:
/// runs to its end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// First top-level statement.
    pub lo: u32,
    /// Last top-level statement.
    pub hi: u32,
    /// First iteration of statement `lo` (if a loop).
    pub it_lo: u32,
    /// End iteration of statement `hi` (if a loop); `u32::MAX` for its natural end.
    pub it_hi: u32,
}

impl Window {
    /// The six meta words of this window in dispatch `index` of `count`, for the slab of
    /// elements starting at `base` (see `emit_elementwise_with`).
    pub fn words(&self, index: usize, count: usize, base: usize) -> [u32; 6] {
        let restore = u32::from(index > 0);
        let save = u32::from(index + 1 < count) << 1;
        [
            self.lo,
            self.hi,
            self.it_lo,
            self.it_hi,
            restore | save,
            base as u32,
        ]
    }
}

/// A top-level loop that windows may split: bounds known on the host, its variable not written
/// by its body.
fn splittable(s: &Stmt) -> bool {
    let Stmt::For { var, body, .. } = s else {
        return false;
    };
    let mut writes = false;
    Stmt::visit_all(body, &mut |x| {
        if let Stmt::Let { var: v, .. }
        | Stmt::Assign { var: v, .. }
        | Stmt::AtomicRaw { old: Some(v), .. } = x
        {
            writes |= v == var;
        }
    });
    !writes
}

/// How an elementwise launch meets a loop budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopPlan {
    /// One dispatch stays under the budget (or the cost is unknown: the launch then relies on
    /// the loop guard).
    Single,
    /// These windows, one dispatch each, in order.
    Windows(Vec<Window>),
}

fn too_long(k: &Kernel, what: String, cost: u64, budget: u64, device: &str) -> Error {
    Error::Unsupported {
        op: k.name.clone(),
        backend: device.into(),
        reason: format!(
            "{what} needs about {cost} shader loop iterations in one invocation, more than this \
             driver runs ({budget} per invocation, shared by all loops: Mesa's llvmpipe stops \
             loops there and returns wrong results); use the cpu backend or a hardware GPU for \
             this size"
        ),
    }
}

/// Plans an elementwise launch of `k` under a budget of `budget` loop passes per invocation
/// (`vec4`: four elements per invocation, so four times the body).
///
/// # Errors
/// [`Error::Unsupported`] when the kernel cannot be split under the budget: a top-level
/// statement that is not a splittable loop, or one iteration of a top-level loop, exceeds it.
pub fn plan_elementwise(
    k: &Kernel,
    params: &[Scalar],
    narrow: bool,
    budget: u64,
    device: &str,
) -> Result<LoopPlan> {
    let has_loop = {
        let mut l = false;
        Stmt::visit_all(&k.body, &mut |s| l |= matches!(s, Stmt::For { .. }));
        l
    };
    if !has_loop {
        return Ok(LoopPlan::Single);
    }
    let mut c = Coster {
        params,
        narrow,
        env: vec![],
        effort: 0,
    };
    match c.body(&k.body) {
        None => return Ok(LoopPlan::Single),
        Some(total) if total <= budget => return Ok(LoopPlan::Single),
        Some(_) => {}
    }
    let mut windows = vec![];
    let mut cur = Window {
        lo: 0,
        hi: 0,
        it_lo: 0,
        it_hi: u32::MAX,
    };
    let mut used = 0u64;
    for (idx, s) in k.body.iter().enumerate() {
        let idx = idx as u32;
        if let (
            true,
            Stmt::For {
                var,
                start,
                end,
                body,
            },
        ) = (splittable(s), s)
        {
            let Some((a, b)) = c.bounds(start, end) else {
                return Ok(LoopPlan::Single);
            };
            let n = (b as i128 - a as i128).max(0) as u64;
            if n >= u32::MAX as u64 {
                return Err(too_long(
                    k,
                    format!("a loop of {n} iterations"),
                    n,
                    budget,
                    device,
                ));
            }
            // Passes of iteration j: the body, the back-edge, and `end` evaluated again.
            let per_end = helper_passes(end, narrow);
            let head = stmt_helpers(s, narrow);
            let costs: Option<Vec<u64>> = if bounds_read(body, *var) {
                if n > MAX_EFFORT {
                    return Ok(LoopPlan::Single);
                }
                (0..n)
                    .map(|j| c.iteration(*var, body, a + j as i64).map(|x| x + per_end))
                    .collect()
            } else {
                c.iteration(*var, body, a).map(|x| vec![x + per_end])
            };
            let Some(costs) = costs else {
                return Ok(LoopPlan::Single);
            };
            let it = |j: u64| costs[if costs.len() == 1 { 0 } else { j as usize }];
            // Reserved in every window holding part of the loop: the entry's helpers and the
            // pass that ends it (at its natural end or at the window's), whose body runs masked.
            let reserve = head + per_end + 1 + masked_passes(body);
            if reserve > budget {
                return Err(too_long(
                    k,
                    format!("the loop at top-level statement {idx}"),
                    reserve,
                    budget,
                    device,
                ));
            }
            let first = if n > 0 { it(0) } else { 0 };
            if used > 0 && used + first + reserve > budget {
                // Start the loop in a fresh window.
                cur.hi = idx - 1;
                cur.it_hi = u32::MAX;
                windows.push(cur);
                cur = Window {
                    lo: idx,
                    hi: idx,
                    it_lo: 0,
                    it_hi: u32::MAX,
                };
                used = 0;
            }
            let mut j = 0u64;
            while j < n {
                if it(j) + reserve > budget {
                    return Err(too_long(
                        k,
                        format!("one iteration of a loop (top-level statement {idx})"),
                        it(j) + reserve,
                        budget,
                        device,
                    ));
                }
                if used + it(j) + reserve > budget {
                    // Close the window before iteration j of this loop.
                    cur.hi = idx;
                    cur.it_hi = j as u32;
                    windows.push(cur);
                    cur = Window {
                        lo: idx,
                        hi: idx,
                        it_lo: j as u32,
                        it_hi: u32::MAX,
                    };
                    used = 0;
                }
                // Iterations of a fixed cost are taken at once.
                let take = if costs.len() == 1 {
                    ((budget - reserve - used) / it(j)).clamp(1, n - j)
                } else {
                    1
                };
                used += take * it(j);
                j += take;
            }
            used += reserve;
        } else {
            let Some(cost) = c.stmt(s) else {
                return Ok(LoopPlan::Single);
            };
            if cost > budget {
                return Err(too_long(
                    k,
                    format!("top-level statement {idx} (a loop inside an `if`, or a loop the host cannot split)"),
                    cost,
                    budget,
                    device,
                ));
            }
            if used + cost > budget {
                cur.hi = idx - 1;
                cur.it_hi = u32::MAX;
                windows.push(cur);
                cur = Window {
                    lo: idx,
                    hi: idx,
                    it_lo: 0,
                    it_hi: u32::MAX,
                };
                used = 0;
            }
            used += cost;
        }
    }
    cur.hi = (k.body.len() as u32).saturating_sub(1);
    cur.it_hi = u32::MAX;
    windows.push(cur);
    if windows.len() == 1 {
        return Ok(LoopPlan::Single);
    }
    Ok(LoopPlan::Windows(windows))
}

#[cfg(test)]
mod tests;
