//! The block interpreter of the kernel IR: every node is one loop over a block of lanes.

use crate::column::{self, Col, D};
use crate::mem::{RawView, View};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, ExprKind, Kernel, Stmt};
use cupy_core::DType;
use std::borrow::Cow;

/// Evaluation state of one block.
pub struct Env<'a> {
    /// Lanes in the block.
    pub n: usize,
    /// Elementwise inputs (one column each).
    pub inputs: Vec<Col<'a>>,
    /// Parameters (uniform columns).
    pub params: &'a [Col<'static>],
    /// Locals (and a reduction's `Var(0)`/`Var(1)`).
    pub vars: Vec<Option<Col<'a>>>,
    /// Logical dtypes of the locals (for zero-initialising).
    pub var_types: &'a [DType],
    /// `Index` of lane `j` is `index.0 + j * index.1`...
    pub index: (i64, i64),
    /// ... unless it is `index_lanes[j]` (a compacted block, see `compact.rs`).
    pub index_lanes: Option<Vec<i64>>,
    /// How the whole kernel uses its locals (lets a compacted branch skip its temporaries).
    pub var_use: Option<&'a crate::compact::KernelVarUse>,
    /// Raw operands.
    pub raws: &'a [RawView],
    /// Type-checking pass: no memory is touched, both arms of every `If` and one trip of every
    /// `For` run.
    pub dry: bool,
}

/// Where `Store` goes.
pub trait Sink {
    /// Stores `value` to output `k` for the active lanes.
    fn store(&self, k: usize, value: &Col<'_>, mask: Option<&[u8]>) -> Result<(), String>;
    /// Output `k`'s lanes of this block as one contiguous run of `dtype` elements, when they
    /// are (a C-contiguous view of exactly that dtype): the address of lane 0, for results
    /// computed straight into the output.
    fn direct(&self, _k: usize, _dtype: DType) -> Option<*mut u8> {
        None
    }
    /// Takes a `StoreRaw` of raw operand `raw` (index and value columns of `n` lanes, the
    /// active ones in `mask`) instead of the interpreter writing it now: `Ok(true)` when taken
    /// (`deferred::DeferredSink` logs it), `Ok(false)` to have it written at once.
    fn raw_store(
        &self,
        _raw: usize,
        _idx: &Col<'_>,
        _val: &Col<'_>,
        _mask: Option<&[u8]>,
        _n: usize,
    ) -> Result<bool, String> {
        Ok(false)
    }
}

/// Outputs of an elementwise launch: the block `start..start + n` of each view.
pub struct BlockSink<'v> {
    /// Output views.
    pub outs: &'v [View],
    /// First flat index.
    pub start: usize,
    /// Lanes.
    pub n: usize,
}

impl Sink for BlockSink<'_> {
    fn store(&self, k: usize, value: &Col<'_>, mask: Option<&[u8]>) -> Result<(), String> {
        let v = self
            .outs
            .get(k)
            .ok_or_else(|| format!("store to missing output {k}"))?;
        // SAFETY: the launch checked the layouts and gives each block to one thread.
        unsafe { v.scatter(self.start, self.n, value, mask) }
    }
    fn direct(&self, k: usize, dtype: DType) -> Option<*mut u8> {
        let v = self.outs.get(k)?;
        // SAFETY: a contiguous view's block start..start + n lies inside its checked buffer.
        (v.contig && v.dtype == dtype)
            .then(|| unsafe { v.ptr.add((v.layout.offset + self.start) * dtype.itemsize()) })
    }
}

/// A sink that discards (dry runs).
pub struct NullSink;
impl Sink for NullSink {
    fn store(&self, _: usize, _: &Col<'_>, _: Option<&[u8]>) -> Result<(), String> {
        Ok(())
    }
}

impl<'a> Env<'a> {
    /// The environment of lanes `start..start + n` of an elementwise launch of `k` (its inputs
    /// gathered from `ins`), as the plain and the deferred block loops run them.
    ///
    /// # Safety
    /// The layouts of `ins` were checked and `start + n` is within the launch's size.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn block(
        k: &'a Kernel,
        ins: &'a [View],
        params: &'a [Col<'static>],
        var_use: &'a crate::compact::KernelVarUse,
        raws: &'a [RawView],
        start: usize,
        n: usize,
    ) -> Env<'a> {
        Env {
            n,
            // SAFETY: the caller's contract.
            inputs: ins.iter().map(|v| unsafe { v.gather(start, n) }).collect(),
            params,
            vars: vec![None; k.locals.len()],
            var_types: &k.locals,
            index: (start as i64, 1),
            index_lanes: None,
            var_use: Some(var_use),
            raws,
            dry: false,
        }
    }

    /// Evaluates an expression over the block.
    pub fn eval<'s>(&'s self, e: &Expr) -> Result<Col<'s>, String> {
        Ok(match &e.kind {
            ExprKind::Const(s) => column::scalar_col(*s),
            ExprKind::Input(k) => self
                .inputs
                .get(*k)
                .ok_or_else(|| format!("missing input {k}"))?
                .view(),
            ExprKind::Param(k) => self
                .params
                .get(*k)
                .ok_or_else(|| format!("missing param {k}"))?
                .view(),
            ExprKind::Var(k) => match self.vars.get(*k) {
                Some(Some(c)) => c.view(),
                Some(None) => column::zero_col(e.ty),
                None => return Err(format!("missing local {k}")),
            },
            ExprKind::Index => {
                let (s, st) = self.index;
                if let Some(l) = &self.index_lanes {
                    Col::I64(D::V(Cow::Borrowed(&l[..])))
                } else if self.dry {
                    Col::I64(D::U(s))
                } else {
                    Col::I64(D::V(Cow::Owned(
                        (0..self.n as i64).map(|j| s + j * st).collect(),
                    )))
                }
            }
            ExprKind::Load { raw, index } => {
                let r = self
                    .raws
                    .get(*raw)
                    .ok_or_else(|| format!("missing raw operand {raw}"))?;
                let ix = self.eval(index)?;
                if self.dry {
                    if !matches!(ix, Col::I64(_)) {
                        return Err("load index is not int64".into());
                    }
                    column::zero_col(e.ty)
                } else {
                    r.load(&ix)?
                }
            }
            ExprKind::Unary(op, a) => {
                let a = self.eval(a)?;
                column::round_narrow(column::unary(*op, &a, e.ty)?, e.ty)
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                let r = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) && a.ty != b.ty {
                    column::binary(*op, &x, &column::cast(&y, b.ty, a.ty))?
                } else {
                    column::binary(*op, &x, &y)?
                };
                column::round_narrow(r, e.ty)
            }
            ExprKind::Cast(a) => {
                let x = self.eval(a)?;
                column::cast(&x, a.ty, e.ty)
            }
            ExprKind::Select(c, a, b) => {
                let c = self.eval(c)?;
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                column::select(&c, &x, &y)?
            }
        })
    }

    /// `var = v` for the lanes in `mask` (`None`: all lanes); `ty` is `v`'s dtype.
    fn assign_masked(
        &mut self,
        var: usize,
        v: Col<'static>,
        ty: DType,
        mask: Option<&[u8]>,
    ) -> Result<(), String> {
        let slot = self
            .vars
            .get(var)
            .ok_or_else(|| format!("missing local {var}"))?;
        let newv = match mask {
            None => v,
            Some(m) => {
                let old = match slot {
                    Some(c) => c.view(),
                    None => column::zero_col(*self.var_types.get(var).unwrap_or(&ty)),
                };
                let mc = Col::B(D::V(Cow::Borrowed(m)));
                column::select(&mc, &v, &old)?
            }
        };
        self.vars[var] = Some(newv);
        Ok(())
    }

    /// Runs statements for the lanes in `mask` (`None`: all lanes).
    pub fn exec(
        &mut self,
        body: &[Stmt],
        mask: Option<&[u8]>,
        sink: &dyn Sink,
    ) -> Result<(), String> {
        for s in body {
            match s {
                Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                    let v = self.eval(value)?.owned();
                    self.assign_masked(*var, v, value.ty, mask)?;
                }
                Stmt::Store { output, value } => {
                    if mask.is_none() && !self.dry && self.store_direct(*output, value, sink)? {
                        continue;
                    }
                    let v = self.eval(value)?;
                    sink.store(*output, &v, mask)?;
                }
                Stmt::StoreRaw { raw, index, value }
                | Stmt::AtomicRaw {
                    raw, index, value, ..
                } => {
                    let r = self
                        .raws
                        .get(*raw)
                        .ok_or_else(|| format!("missing raw operand {raw}"))?;
                    let ix = self.eval(index)?;
                    let v = self.eval(value)?;
                    if !matches!(ix, Col::I64(_)) {
                        return Err("raw store index is not int64".into());
                    }
                    if let Stmt::AtomicRaw { op, .. } = s {
                        if r.dtype.is_complex() && *op != AtomicOp::Add {
                            return Err(format!(
                                "atomic {op:?} of complex elements is not implemented"
                            ));
                        }
                    }
                    if let Stmt::AtomicRaw { old: Some(var), .. } = s {
                        let olds = if self.dry {
                            column::zero_col(value.ty)
                        } else {
                            // SAFETY: the launch runs kernels that write raw operands on one
                            // thread.
                            unsafe { r.fetch_add(&ix, &v, mask, self.n)? }
                        };
                        self.assign_masked(*var, olds, value.ty, mask)?;
                    } else if !self.dry {
                        // SAFETY: the launch runs kernels that write raw operands on one thread,
                        // or has the sink log their plain stores (`DeferredSink`).
                        unsafe {
                            match s {
                                Stmt::AtomicRaw { op, .. } => {
                                    r.update(*op, &ix, &v, mask, self.n)?
                                }
                                _ => {
                                    if !sink.raw_store(*raw, &ix, &v, mask, self.n)? {
                                        r.store(&ix, &v, mask, self.n)?
                                    }
                                }
                            }
                        }
                    }
                }
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = self.eval(cond)?.owned();
                    if self.dry {
                        if !matches!(c, Col::B(_)) {
                            return Err("if condition is not bool".into());
                        }
                        self.exec(then_body, mask, sink)?;
                        self.exec(else_body, mask, sink)?;
                        continue;
                    }
                    match c {
                        Col::B(D::U(c)) => {
                            let body = if c != 0 { then_body } else { else_body };
                            self.exec(body, mask, sink)?;
                        }
                        Col::B(D::V(c)) => {
                            let (tm, em): (Vec<u8>, Vec<u8>) = match mask {
                                None => (c.to_vec(), c.iter().map(|&x| x ^ 1).collect()),
                                Some(m) => (
                                    c.iter().zip(m).map(|(&c, &m)| c & m).collect(),
                                    c.iter().zip(m).map(|(&c, &m)| (c ^ 1) & m).collect(),
                                ),
                            };
                            for (body, m) in [(then_body, &tm), (else_body, &em)] {
                                let taken = m.iter().map(|&x| x as usize).sum::<usize>();
                                if body.is_empty() || taken == 0 {
                                    continue;
                                }
                                if taken == m.len() {
                                    self.exec(body, None, sink)?;
                                } else if crate::compact::worth_compacting(taken, self.n) {
                                    self.exec_compact(body, m, sink)?;
                                } else {
                                    self.exec(body, Some(m), sink)?;
                                }
                            }
                        }
                        _ => return Err("if condition is not bool".into()),
                    }
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let (s, e) = match (self.eval(start)?, self.eval(end)?) {
                        (Col::I64(s), Col::I64(e)) => (s.get(0), e.get(0)),
                        _ => return Err("loop bounds are not int64".into()),
                    };
                    if *var >= self.vars.len() {
                        return Err(format!("missing local {var}"));
                    }
                    if self.dry {
                        self.vars[*var] = Some(Col::I64(D::U(s)));
                        self.exec(body, mask, sink)?;
                    } else {
                        let mut i = s;
                        while i < e {
                            self.vars[*var] = Some(Col::I64(D::U(i)));
                            self.exec(body, mask, sink)?;
                            i += 1;
                        }
                    }
                    self.vars[*var] = Some(Col::I64(D::U(s.max(e))));
                }
            }
        }
        Ok(())
    }
}

impl Env<'_> {
    /// The `Index` of lane `j`.
    pub(crate) fn index_of(&self, j: usize) -> i64 {
        match &self.index_lanes {
            Some(l) => l[j],
            None => self.index.0 + j as i64 * self.index.1,
        }
    }

    /// `Store` of exp, log, sin, cos, tanh or pow of float32/float64 operands straight into a
    /// contiguous output of the same dtype (the vector routines write the output block, no
    /// temporary column and no copy); false (nothing stored) when the pattern does not fit.
    fn store_direct(&self, output: usize, value: &Expr, sink: &dyn Sink) -> Result<bool, String> {
        let ty = value.ty;
        if !matches!(ty, DType::Float32 | DType::Float64) {
            return Ok(false);
        }
        let (op, a, b) = match &value.kind {
            ExprKind::Unary(op, a) if column::VOp::of(*op).is_some() && a.ty == ty => {
                (column::VOp::of(*op), a, None)
            }
            ExprKind::Binary(BinaryOp::Pow, a, b) if a.ty == ty && b.ty == ty => {
                (Some(column::VOp::Pow), a, Some(b))
            }
            _ => return Ok(false),
        };
        let (Some(op), Some(dst)) = (op, sink.direct(output, ty)) else {
            return Ok(false);
        };
        let a = self.eval(a)?;
        let b = match b {
            Some(b) => Some(self.eval(b)?),
            None => None,
        };
        // SAFETY: `dst` is this block's run of n lanes of the output (one thread per block);
        // `into` refuses operands whose memory overlaps it.
        Ok(unsafe { column::vmath_into(op, &a, b.as_ref(), dst, self.n) })
    }
}
