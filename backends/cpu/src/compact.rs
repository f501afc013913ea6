//! Compacted branches: an `If` whose taken lanes are few (a rejection sampler's slow path, a
//! rare special case) runs its body over just those lanes, gathered into a small block, instead
//! of over the whole block under a mask. The locals the body reads or writes are gathered, the
//! ones it writes are scattered back, and its stores reach the outer sink at the original lanes.

use crate::column::{zero_col, Col, D};
use crate::eval::{Env, Sink};
use cupy_core::kernel::ir::{ExprKind, Stmt};
use std::borrow::Cow;

/// Run a branch compacted when at most one lane in `SPARSE` is taken (and the block has at
/// least `MIN_LANES` lanes).
const SPARSE: usize = 8;
const MIN_LANES: usize = 64;

/// True when `taken` of `n` lanes are few enough to compact.
pub(crate) fn worth_compacting(taken: usize, n: usize) -> bool {
    n >= MIN_LANES && taken * SPARSE <= n
}

/// How a body uses each local: reads (expressions naming it), writes (`Let`, `Assign`, loop
/// variables), and whether every write is a `Let`.
#[derive(Clone, Debug, Default)]
pub struct VarUse {
    reads: Vec<u32>,
    writes: Vec<u32>,
    let_only: Vec<bool>,
}

/// The kernel-wide [`VarUse`] and that of every `If` arm (keyed by the arm's address), computed
/// once per launch.
#[derive(Debug, Default)]
pub struct KernelVarUse {
    all: VarUse,
    arms: std::collections::HashMap<usize, VarUse>,
}

impl KernelVarUse {
    /// The uses of the locals of a kernel `body` with `nvars` locals.
    pub fn of(body: &[Stmt], nvars: usize) -> KernelVarUse {
        let mut arms = std::collections::HashMap::new();
        Stmt::visit_all(body, &mut |s| {
            if let Stmt::If {
                then_body,
                else_body,
                ..
            } = s
            {
                for arm in [then_body, else_body] {
                    arms.entry(arm.as_ptr() as usize)
                        .or_insert_with(|| VarUse::of(arm, nvars));
                }
            }
        });
        KernelVarUse {
            all: VarUse::of(body, nvars),
            arms,
        }
    }
}

impl VarUse {
    /// The uses in `body` of locals `0..nvars`.
    pub fn of(body: &[Stmt], nvars: usize) -> VarUse {
        let mut u = VarUse {
            reads: vec![0; nvars],
            writes: vec![0; nvars],
            let_only: vec![true; nvars],
        };
        Stmt::visit_all(body, &mut |s| {
            match s {
                Stmt::Let { var, .. } | Stmt::Assign { var, .. } | Stmt::For { var, .. }
                    if *var < nvars =>
                {
                    u.writes[*var] += 1;
                    u.let_only[*var] &= matches!(s, Stmt::Let { .. });
                }
                Stmt::AtomicRaw { old: Some(var), .. } if *var < nvars => {
                    u.writes[*var] += 1;
                    u.let_only[*var] = false;
                }
                _ => {}
            }
            for e in s.exprs() {
                e.visit(&mut |n| {
                    if let ExprKind::Var(k) = n.kind {
                        if k < nvars {
                            u.reads[k] += 1;
                        }
                    }
                });
            }
        });
        u
    }
    /// True when local `k` is used by `body` (this [`VarUse`]) only: written by `Let`s in the
    /// body and read nowhere else in the kernel (`all`). Such a temporary is dead before and
    /// after the body, so a compacted run neither gathers nor scatters it.
    fn local_to(&self, k: usize, all: &VarUse) -> bool {
        self.writes[k] > 0
            && all.let_only[k]
            && self.writes[k] == all.writes[k]
            && self.reads[k] == all.reads[k]
    }
}

fn gather_d<T: Copy + 'static>(d: &D<'_, T>, lanes: &[usize]) -> D<'static, T> {
    match d {
        D::U(x) => D::U(*x),
        D::V(v) => D::V(Cow::Owned(lanes.iter().map(|&i| v[i]).collect())),
    }
}

/// Lanes `lanes` of `c` (a uniform column stays uniform).
fn gather(c: &Col<'_>, lanes: &[usize]) -> Col<'static> {
    crate::column::map_col!(c, d => gather_d(d, lanes))
}

fn scatter_d<T: Copy + 'static>(
    old: D<'_, T>,
    new: &D<'_, T>,
    lanes: &[usize],
    n: usize,
) -> D<'static, T> {
    // An owned vector is updated in place: O(lanes), not O(n).
    let mut v = match old {
        D::U(x) => vec![x; n],
        D::V(v) => v.into_owned(),
    };
    for (j, &i) in lanes.iter().enumerate() {
        v[i] = new.get(j);
    }
    D::V(Cow::Owned(v))
}

/// `old` (of `n` lanes) with lane `lanes[j]` replaced by lane `j` of `new`.
fn scatter(old: Col<'_>, new: &Col<'_>, lanes: &[usize], n: usize) -> Result<Col<'static>, String> {
    macro_rules! pairs {
        ($($v:ident),*) => {
            match (old, new) {
                $((Col::$v(o), &Col::$v(ref s)) => Ok(Col::$v(scatter_d(o, s, lanes, n))),)*
                _ => Err("compacted branch: a local changed its column type".into()),
            }
        };
    }
    pairs!(B, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C32, C64)
}

/// The outer sink, seen from a compacted block: lane `j` is lane `lanes[j]` of the outer block.
struct CompactSink<'s> {
    inner: &'s dyn Sink,
    lanes: &'s [usize],
    n: usize,
}

impl Sink for CompactSink<'_> {
    fn store(&self, k: usize, value: &Col<'_>, mask: Option<&[u8]>) -> Result<(), String> {
        let base = crate::column::map_col!(value, d => D::U(d.get(0)));
        let full = scatter(base, value, self.lanes, self.n)?;
        let mut m = vec![0u8; self.n];
        for (j, &i) in self.lanes.iter().enumerate() {
            m[i] = mask.map_or(1, |mk| mk[j]);
        }
        self.inner.store(k, &full, Some(&m))
    }
    fn raw_store(
        &self,
        raw: usize,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
    ) -> Result<bool, String> {
        // A raw store names its elements by index, not by lane: forwarded as it is.
        self.inner.raw_store(raw, idx, val, mask, n)
    }
}

impl Env<'_> {
    /// Runs `body` for the lanes set in `mask` (few of them; see [`worth_compacting`]) over a
    /// compacted block.
    pub(crate) fn exec_compact(
        &mut self,
        body: &[Stmt],
        mask: &[u8],
        sink: &dyn Sink,
    ) -> Result<(), String> {
        let lanes: Vec<usize> = (0..self.n).filter(|&i| mask[i] != 0).collect();
        let nvars = self.vars.len();
        let cached = self.var_use.and_then(|u| {
            u.arms
                .get(&(body.as_ptr() as usize))
                .map(|arm| (arm, &u.all))
        });
        let fresh;
        let (used, all) = match cached {
            Some((arm, all)) => (arm, Some(all)),
            None => {
                fresh = VarUse::of(body, nvars);
                (&fresh, None)
            }
        };
        let keep: Vec<bool> = (0..nvars)
            .map(|k| {
                (used.reads[k] > 0 || used.writes[k] > 0)
                    && !all.is_some_and(|all| used.local_to(k, all))
            })
            .collect();
        let vars: Vec<Option<Col<'static>>> = self
            .vars
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Some(c) if keep[k] => Some(gather(c, &lanes)),
                _ => None,
            })
            .collect();
        let index: Vec<i64> = lanes.iter().map(|&j| self.index_of(j)).collect();
        let mut sub = Env {
            n: lanes.len(),
            inputs: self.inputs.iter().map(|c| gather(c, &lanes)).collect(),
            params: self.params,
            vars,
            var_types: self.var_types,
            index: (0, 1),
            index_lanes: Some(index),
            var_use: self.var_use,
            raws: self.raws,
            dry: false,
        };
        let csink = CompactSink {
            inner: sink,
            lanes: &lanes,
            n: self.n,
        };
        sub.exec(body, None, &csink)?;
        for (k, &kept) in keep.iter().enumerate() {
            if !kept || used.writes[k] == 0 {
                continue;
            }
            let Some(new) = sub.vars[k].take() else {
                continue;
            };
            let old = match self.vars[k].take() {
                Some(c) => c,
                None => zero_col(*self.var_types.get(k).ok_or("missing local type")?),
            };
            self.vars[k] = Some(scatter(old, &new, &lanes, self.n)?);
        }
        Ok(())
    }
}
