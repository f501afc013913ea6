//! [`ReduceKernel`]: CuPy's `ReductionKernel` model with a tuple of accumulators, and its
//! validation.

use super::{node_problem, BinaryOp, Expr, ExprKind};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A reduction kernel (CuPy's `ReductionKernel`), generalized to a tuple of `n >= 1`
/// accumulators: `out = post(fold(combine, identity, map(x_i)))`.
///
/// Accumulator `j` has dtype `acc[j]`; a tuple of them is folded as one value:
/// - `map[j]` is accumulator `j` of one element. It reads `Input`, `Param`, constants and
///   `Index`, which in a reduction's map is the element's flat C-order position within the
///   *reduced* axes (0 for the first reduced element of every output; `argmax` keeps it).
/// - `combine[j]` is accumulator `j` of the combination of two tuples: `a` is `Var(0..n)`,
///   `b` is `Var(n..2n)` (`Var(j)` and `Var(n + j)` are both of dtype `acc[j]`). The combine
///   must be associative and commutative on the values it meets (backends fold in any order and
///   any grouping), and `identity` must be its identity. It reads only vars and constants.
/// - `post` is the output from the folded tuple `Var(0..n)`, with params and constants.
/// - `extra_posts` are further outputs, each a post-map as `post` of its own dtype: CuPy's
///   `ReductionKernel` writes one output, but a fused function merges independent reductions
///   over one iteration space into one kernel of several outputs ([`ReduceKernel::merge`]).
///
/// Single-accumulator kernels (`sum`, `max`, ...) are the common case: see
/// [`ReduceKernel::simple`]. Backends that cannot fold tuples refuse them with
/// [`Error::Unsupported`] before any work is queued.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReduceKernel {
    /// A C identifier.
    pub name: String,
    /// Input dtypes (read with `Input(k)` in `map`).
    pub inputs: Vec<DType>,
    /// Uniform parameter dtypes (readable in `map` and `post`).
    pub params: Vec<DType>,
    /// Accumulator dtypes, one per tuple member (at least one).
    pub acc: Vec<DType>,
    /// Per-element value of each accumulator (`map[j]` of dtype `acc[j]`).
    pub map: Vec<Expr>,
    /// Combine of tuples `a = Var(0..n)` and `b = Var(n..2n)`, one expression per accumulator
    /// (`combine[j]` of dtype `acc[j]`).
    pub combine: Vec<Expr>,
    /// Optional (empty: `combine`): the tuple after folding one element into a running tuple,
    /// `a = Var(0..n)` the running tuple, `b = Var(n..2n)` the element's `map`, where `b`'s
    /// element comes after every element already in `a` (a higher reduced index) and `a` may
    /// be the identity. It must give what `combine(a, b)` gives on such operands, up to float
    /// rounding. A backend may use it in each thread's sequential loop, where it is cheaper
    /// (`argmax` need not compare indices; `var` is Welford's update instead of Chan's merge);
    /// backends that do not use it stay correct. Transforms that change what one mapped element
    /// means (`where=` masking) must clear it.
    pub fold: Vec<Expr>,
    /// Identity of `combine`, one value per accumulator (`identity[j]` of dtype `acc[j]`).
    pub identity: Vec<Scalar>,
    /// Final value from `Var(0..n)` (the reduced tuple), of dtype `output`.
    pub post: Expr,
    /// Output dtype.
    pub output: DType,
    /// Outputs `1..` (output 0 is `post`): each a post-map over `Var(0..n)` and the params,
    /// of its output's dtype (the expression's). Empty for one output.
    pub extra_posts: Vec<Expr>,
}

impl ReduceKernel {
    /// A plain reduction over one input: map = cast to `acc`, post = cast to `output`.
    pub fn simple(
        name: &str,
        input: DType,
        acc: DType,
        combine: BinaryOp,
        identity: Scalar,
        output: DType,
    ) -> ReduceKernel {
        ReduceKernel {
            name: name.into(),
            inputs: vec![input],
            params: vec![],
            acc: vec![acc],
            map: vec![Expr::input(0, input).cast(acc)],
            combine: vec![Expr::binary(combine, Expr::var(0, acc), Expr::var(1, acc))],
            fold: vec![],
            identity: vec![identity.cast(acc)],
            post: Expr::var(0, acc).cast(output),
            output,
            extra_posts: vec![],
        }
    }

    /// The number of outputs (`1 + extra_posts.len()`).
    pub fn n_outputs(&self) -> usize {
        1 + self.extra_posts.len()
    }

    /// The post-map of output `j` (`post` for 0).
    pub fn post_of(&self, j: usize) -> &Expr {
        if j == 0 {
            &self.post
        } else {
            &self.extra_posts[j - 1]
        }
    }

    /// The dtype of output `j`.
    pub fn output_of(&self, j: usize) -> DType {
        self.post_of(j).ty
    }

    /// The dtypes of every output, in order.
    pub fn outputs(&self) -> Vec<DType> {
        (0..self.n_outputs()).map(|j| self.output_of(j)).collect()
    }

    /// The same reduction writing output `j` alone (a backend that cannot write several
    /// outputs in one pass runs one of these per output).
    pub fn single_output(&self, j: usize) -> ReduceKernel {
        let mut k = self.clone();
        k.post = self.post_of(j).clone();
        k.output = k.post.ty;
        k.extra_posts.clear();
        k
    }

    /// One reduction computing every output of `parts`, in order: their accumulator tuples are
    /// concatenated and folded together, so one pass over the inputs gives every part's
    /// outputs. Every part must read the same inputs (same dtypes, in order). The first
    /// `shared_params` parameters are common to every part (same dtypes); the rest of each
    /// part's parameters follow, part by part. The result is named `name`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no part, parts with other inputs or shared parameters,
    /// or a part that does not validate.
    pub fn merge(name: &str, parts: &[ReduceKernel], shared_params: usize) -> Result<ReduceKernel> {
        let bad = |msg: String| Err(Error::invalid(format!("reduction {name}"), msg));
        let Some(first) = parts.first() else {
            return bad("merge of no reduction".into());
        };
        if first.params.len() < shared_params {
            return bad(format!("fewer than {shared_params} shared parameters"));
        }
        let shared = &first.params[..shared_params];
        for p in parts {
            p.validate()?;
            if p.inputs != first.inputs || p.params.get(..shared_params) != Some(shared) {
                return bad(format!(
                    "merged reductions read other inputs or parameters ({} {:?} vs {} {:?})",
                    p.name, p.inputs, first.name, first.inputs
                ));
            }
        }
        let n: usize = parts.iter().map(|p| p.acc.len()).sum();
        let mut out = ReduceKernel {
            name: name.into(),
            inputs: first.inputs.clone(),
            params: shared.to_vec(),
            acc: vec![],
            map: vec![],
            combine: vec![],
            fold: vec![],
            identity: vec![],
            post: first.post.clone(),
            output: first.output,
            extra_posts: vec![],
        };
        let any_fold = parts.iter().any(|p| !p.fold.is_empty());
        let mut posts = vec![];
        for p in parts {
            let (off, m) = (out.acc.len(), p.acc.len());
            let pshift = out.params.len() - shared_params;
            let mut fix = |e: &Expr| -> Option<Expr> {
                match e.kind {
                    ExprKind::Var(v) if v < m => Some(Expr::var(off + v, e.ty)),
                    ExprKind::Var(v) => Some(Expr::var(n + off + v - m, e.ty)),
                    ExprKind::Param(k) if k >= shared_params => Some(Expr::param(k + pshift, e.ty)),
                    _ => None,
                }
            };
            out.acc.extend(&p.acc);
            out.identity.extend(&p.identity);
            out.map.extend(p.map.iter().map(|e| e.rewrite(&mut fix)));
            out.combine
                .extend(p.combine.iter().map(|e| e.rewrite(&mut fix)));
            if any_fold {
                let f = if p.fold.is_empty() {
                    &p.combine
                } else {
                    &p.fold
                };
                out.fold.extend(f.iter().map(|e| e.rewrite(&mut fix)));
            }
            posts.extend((0..p.n_outputs()).map(|j| p.post_of(j).rewrite(&mut fix)));
            out.params.extend(&p.params[shared_params..]);
        }
        let mut posts = posts.into_iter();
        out.post = posts.next().expect("a part's output");
        out.output = out.post.ty;
        out.extra_posts = posts.collect();
        out.validate()?;
        Ok(out)
    }

    /// The number of accumulators (the tuple's length).
    pub fn n_acc(&self) -> usize {
        self.acc.len()
    }

    /// True for a tuple of more than one accumulator.
    pub fn is_tuple(&self) -> bool {
        self.acc.len() > 1
    }

    /// `Var(j)`: accumulator `j` of the combine's left tuple `a` (and of `post`'s tuple).
    pub fn a(&self, j: usize) -> Expr {
        Expr::var(j, self.acc[j])
    }

    /// `Var(n + j)`: accumulator `j` of the combine's right tuple `b`.
    pub fn b(&self, j: usize) -> Expr {
        Expr::var(self.acc.len() + j, self.acc[j])
    }

    /// The error a backend returns for a tuple reduction it cannot run yet.
    pub fn tuple_unsupported(&self, backend: &str) -> Error {
        Error::Unsupported {
            op: self.name.clone(),
            backend: backend.into(),
            reason: format!(
                "reductions with a tuple of {} accumulators ({:?}) are not emitted for this backend yet",
                self.acc.len(),
                self.acc
            ),
        }
    }

    /// Every dtype the kernel touches.
    pub fn dtypes(&self) -> Vec<DType> {
        let mut out = self.inputs.clone();
        let outs = self.outputs();
        for d in self.params.iter().chain(&self.acc).chain(&outs) {
            if !out.contains(d) {
                out.push(*d);
            }
        }
        for e in self
            .map
            .iter()
            .chain(&self.combine)
            .chain(&self.fold)
            .chain([&self.post])
            .chain(&self.extra_posts)
        {
            e.dtypes(&mut out);
        }
        out
    }

    /// Checks the kernel is well formed: one map, combine and identity per accumulator, each of
    /// its accumulator's dtype, `post` of the output dtype; operand numbers in range and typed
    /// as declared; `Input` and `Index` only in `map`, `Param` not in `combine`, vars only in
    /// `combine` (`0..2n`) and `post` (`0..n`), no raw loads. Backends may rely on it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the kernel and the first problem found.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::invalid(format!("reduction {}", self.name), msg));
        let n = self.acc.len();
        if n == 0 {
            return bad("no accumulator".into());
        }
        if self.map.len() != n || self.combine.len() != n || self.identity.len() != n {
            return bad(format!(
                "{n} accumulators but {} map, {} combine and {} identity values",
                self.map.len(),
                self.combine.len(),
                self.identity.len()
            ));
        }
        for j in 0..n {
            let t = self.acc[j];
            let (m, c, i) = (&self.map[j], &self.combine[j], self.identity[j]);
            if m.ty != t || c.ty != t || i.dtype() != t {
                return bad(format!(
                    "accumulator {j} is {t} but its map is {}, its combine {} and its identity {i:?}",
                    m.ty, c.ty
                ));
            }
        }
        if !self.fold.is_empty() {
            if self.fold.len() != n {
                return bad(format!(
                    "{n} accumulators but {} fold values",
                    self.fold.len()
                ));
            }
            for (j, f) in self.fold.iter().enumerate() {
                if f.ty != self.acc[j] {
                    return bad(format!(
                        "accumulator {j} is {} but its fold is {}",
                        self.acc[j], f.ty
                    ));
                }
            }
        }
        if self.post.ty != self.output {
            return bad(format!(
                "post has dtype {} (output {})",
                self.post.ty, self.output
            ));
        }
        let ab: Vec<DType> = self.acc.iter().chain(&self.acc).copied().collect();
        let none: [DType; 0] = [];
        let parts: Vec<(&str, &Expr, &[DType], bool)> = self
            .map
            .iter()
            .map(|e| ("map", e, &none[..], true))
            .chain(self.combine.iter().map(|e| ("combine", e, &ab[..], false)))
            .chain(self.fold.iter().map(|e| ("fold", e, &ab[..], false)))
            .chain([("post", &self.post, &self.acc[..], false)])
            .chain(
                self.extra_posts
                    .iter()
                    .map(|e| ("post", e, &self.acc[..], false)),
            )
            .collect();
        for (what, e, vars, in_map) in parts {
            let mut problem = None;
            e.visit(&mut |node| {
                if problem.is_some() {
                    return;
                }
                problem = match &node.kind {
                    ExprKind::Input(_) | ExprKind::Index if !in_map => {
                        Some(format!("{what} reads {:?} (only map may)", node.kind))
                    }
                    ExprKind::Param(_) if what == "combine" || what == "fold" => {
                        Some(format!("{what} reads a parameter (only map and post may)"))
                    }
                    ExprKind::Load { .. } => Some(format!("{what} loads a raw operand")),
                    _ => node_problem(node, &self.inputs, &self.params, vars, &[]),
                };
            });
            if let Some(p) = problem {
                return bad(format!("{what}: {p}"));
            }
        }
        Ok(())
    }
}
