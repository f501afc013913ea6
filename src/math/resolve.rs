//! NumPy's loop selection for one ufunc call: [`Ufunc::loop_for`] gives the [`Loop`] (what each
//! operand is converted to, the compute dtype, the output dtypes). Besides the one-dtype rules of
//! [`Rule`], it resolves the loops NumPy picks per operand (`ldexp`'s `fi->f`/`fl->f`, the
//! condition of `where`) and NumPy 2's exact integer comparisons: a comparison with a Python int
//! outside the integer loop's range (`int64_array < 2**63`, `uint8_array == -1`) and a signed
//! integer against a uint64 (`qQ->?`) give the mathematically right answer, never a float64
//! comparison that rounds `2**63 - 1` to `2**63`.

use super::ufunc::{kernel_with_lets_n, Rule, Ufunc};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel};
use cupy_core::kernel::math::{Bind, Lets};
use cupy_core::promote::{int_range, result_type, WeakScalar};
use cupy_core::scalar::Scalar;

/// An operand as loop selection sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopOperand {
    /// An array or a typed scalar of this dtype (strong).
    Strong(DType),
    /// A Rust scalar (weak, as a Python scalar in NumPy 2).
    Weak(WeakScalar),
}

/// NumPy's loop for one call of a ufunc.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// Per operand, the dtype a weak scalar operand is converted to (with NumPy's range check
    /// for Python ints); unused for strong operands.
    pub params: Vec<DType>,
    /// Per operand, the dtype it is cast to before the body.
    pub inputs: Vec<DType>,
    /// The compute dtype the body is built for (float16 and bfloat16 compute in float32, as
    /// NumPy's loops, except for the rules that work in their ulps).
    pub compute: DType,
    /// The output dtypes, one per output of the ufunc.
    pub outputs: Vec<DType>,
    /// An exact integer comparison's rewrite of the operands ([`Loop::operands`]).
    pub(crate) exact: Exact,
}

/// How [`Loop::operands`] rewrites the cast operands of an exact integer comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exact {
    /// Operands as they are.
    No,
    /// Weak operand `weak` lies outside the integer loop's range, above it or below: every
    /// element compares with it as `1` (above) or `0` (below) compares with the other value,
    /// so the operands become those two constants.
    OutOfRange { weak: usize, above: bool },
    /// A signed integer (as int64) against a uint64: where the signed value is negative or the
    /// unsigned one exceeds `i64::MAX`, the signed side is the smaller (the pair becomes 0 and
    /// 1); elsewhere both fit int64.
    MixedSign,
}

impl Loop {
    /// The operands the body gets, from the operands cast to [`Loop::inputs`]: unchanged, except
    /// for the exact integer comparisons (see the module docs), whose operands become int64
    /// values (or int8 constants) that compare as the originals do mathematically.
    pub fn operands(&self, b: &mut dyn Bind, exprs: Vec<Expr>) -> Vec<Expr> {
        match self.exact {
            Exact::No => exprs,
            Exact::OutOfRange { weak, above } => (0..exprs.len())
                .map(|k| Expr::constant(Scalar::Int8(((k == weak) == above) as i8)))
                .collect(),
            Exact::MixedSign => {
                let mut it = exprs.into_iter();
                let x = b.bind(it.next().expect("two operands"));
                let y = b.bind(it.next().expect("two operands"));
                let signed_first = x.ty == DType::Int64;
                let (s, u) = if signed_first { (x, y) } else { (y, x) };
                let cond = b.bind(Expr::binary(
                    B::Or,
                    Expr::binary(B::Lt, s.clone(), Expr::constant(Scalar::Int64(0))),
                    Expr::binary(
                        B::Gt,
                        u.clone(),
                        Expr::constant(Scalar::UInt64(i64::MAX as u64)),
                    ),
                ));
                let s = Expr::select(cond.clone(), Expr::constant(Scalar::Int64(0)), s);
                let u = Expr::select(cond, Expr::constant(Scalar::Int64(1)), u.cast(DType::Int64));
                if signed_first {
                    vec![s, u]
                } else {
                    vec![u, s]
                }
            }
        }
    }
}

/// The compute dtype of a loop over `c`: float16 and bfloat16 compute in float32 (NumPy's
/// float16 loops convert, compute in float32 and round once), unless the rule works in the
/// dtype's own ulps ([`Rule::FloatBits`]).
fn widen(rule: Rule, c: DType) -> DType {
    match c {
        DType::Float16 | DType::BFloat16 if !matches!(rule, Rule::FloatBits | Rule::Round) => {
            DType::Float32
        }
        c => c,
    }
}

impl Ufunc {
    /// The output dtypes of a loop whose first output is `o`: `frexp` gives `(o, int32)`, the
    /// other two-output ufuncs `(o, o)`.
    pub fn out_dtypes(&self, o: DType) -> Vec<DType> {
        match (self.nout(), self.rule()) {
            (1, _) => vec![o],
            (_, Rule::Frexp) => vec![o, DType::Int32],
            (n, _) => vec![o; n],
        }
    }

    /// NumPy's loop for operands of these kinds, in order (NEP 50 promotion of strong dtypes
    /// and weak scalars, then the ufunc's type rule).
    ///
    /// # Errors
    /// [`Error::TypeError`] when NumPy has no loop; [`Error::InvalidArgument`] for a wrong
    /// operand count or no operand.
    pub fn loop_for(&self, ops: &[LoopOperand]) -> Result<Loop> {
        let op = self.name();
        if ops.len() != self.nin() {
            return Err(Error::invalid(
                op,
                format!("takes {} operands, got {}", self.nin(), ops.len()),
            ));
        }
        let (strong, weak) = split(ops);
        match self.rule() {
            Rule::Ldexp => return self.ldexp_loop(ops),
            Rule::Where => return self.where_loop(ops),
            Rule::Compare => {
                if let Some(l) = exact_compare(op, ops, &strong, &weak)? {
                    return Ok(l);
                }
            }
            _ => {}
        }
        let t = if self.rule() == Rule::TrueDivide && divides_by_out_of_range(&strong, &weak) {
            // NumPy's true_divide of integer arrays loops in float64 whatever the Python int
            // (`uint8_array / -2` is `[-1.5, ...]`, not an overflow of uint8).
            DType::Float64
        } else {
            result_type(op, &strong, &weak)?
        };
        // SciPy's loops listed float64 first: float32 only when every operand is a float32
        // array (its exact loop); any other mix, a Python float included, searches the loops in
        // order and takes float64.
        let t = match self.rule() {
            Rule::SpecialDoubleFirst
                if !t.is_complex()
                    && (!weak.is_empty() || strong.iter().any(|&d| d != DType::Float32)) =>
            {
                DType::Float64
            }
            _ => t,
        };
        let (c, o) = self.resolve(t)?;
        let c = widen(self.rule(), c);
        Ok(Loop {
            params: vec![t; ops.len()],
            inputs: vec![c; ops.len()],
            compute: c,
            outputs: self.out_dtypes(o),
            exact: Exact::No,
        })
    }

    /// The elementwise kernel [`crate::apply_outs`] builds for array operands of these dtypes
    /// (no `out=`), named `name`: NumPy's loop, the ufunc's IR, one store per output.
    ///
    /// # Errors
    /// As [`Ufunc::loop_for`].
    pub fn kernel(&self, dtypes: &[DType], name: &str) -> Result<Kernel> {
        let ops: Vec<LoopOperand> = dtypes.iter().map(|&d| LoopOperand::Strong(d)).collect();
        let lp = self.loop_for(&ops)?;
        let exprs = dtypes
            .iter()
            .enumerate()
            .map(|(k, &d)| Expr::input(k, d).cast(lp.inputs[k]))
            .collect();
        let mut lets = Lets::default();
        let exprs = lp.operands(&mut lets, exprs);
        let values = self
            .bodies(&mut lets, lp.compute, exprs)
            .into_iter()
            .zip(&lp.outputs)
            .map(|(v, &o)| v.cast(o))
            .collect();
        Ok(kernel_with_lets_n(
            name,
            dtypes.to_vec(),
            vec![],
            lets,
            values,
        ))
    }

    /// `ldexp(x1, x2)`: the float loop of `x1` alone (integers and bool go to the float that
    /// holds them), the exponent as int32 (`fi->f`: bool, int8/16/32, uint8/16 and Python ints,
    /// which must fit int32) or int64 (`fl->f`: int64, uint32); NumPy has no loop for a uint64,
    /// float or complex exponent.
    fn ldexp_loop(&self, ops: &[LoopOperand]) -> Result<Loop> {
        let x = match ops[0] {
            LoopOperand::Strong(d) => d,
            LoopOperand::Weak(w) => w.default_dtype(),
        };
        let (c, o) = self.resolve(x)?;
        let n = match ops[1] {
            LoopOperand::Strong(
                DType::Bool
                | DType::Int8
                | DType::Int16
                | DType::Int32
                | DType::UInt8
                | DType::UInt16,
            )
            | LoopOperand::Weak(WeakScalar::Int(_) | WeakScalar::Bool(_)) => DType::Int32,
            LoopOperand::Strong(DType::Int64 | DType::UInt32) => DType::Int64,
            other => {
                let d = match other {
                    LoopOperand::Strong(d) => d,
                    LoopOperand::Weak(w) => w.default_dtype(),
                };
                return Err(Error::TypeError {
                    op: self.name().into(),
                    dtypes: vec![x, d],
                    msg: format!(
                        "ufunc 'ldexp' needs an integer exponent that casts safely to int64 \
                         (NumPy has no loop for a {d} exponent)"
                    ),
                });
            }
        };
        let c = widen(self.rule(), c);
        Ok(Loop {
            params: vec![x, n],
            inputs: vec![c, n],
            compute: c,
            outputs: vec![o],
            exact: Exact::No,
        })
    }

    /// `where(condition, x, y)`: the condition as bool, `x` and `y` promoted together.
    fn where_loop(&self, ops: &[LoopOperand]) -> Result<Loop> {
        let (strong, weak) = split(&ops[1..]);
        let t = result_type(self.name(), &strong, &weak)?;
        let c = widen(self.rule(), t);
        Ok(Loop {
            params: vec![DType::Bool, t, t],
            inputs: vec![DType::Bool, c, c],
            compute: c,
            outputs: vec![t],
            exact: Exact::No,
        })
    }
}

fn split(ops: &[LoopOperand]) -> (Vec<DType>, Vec<WeakScalar>) {
    let mut strong = vec![];
    let mut weak = vec![];
    for o in ops {
        match *o {
            LoopOperand::Strong(d) => strong.push(d),
            LoopOperand::Weak(w) => weak.push(w),
        }
    }
    (strong, weak)
}

/// True when integer (or bool) arrays meet a Python int outside some array's range.
fn divides_by_out_of_range(strong: &[DType], weak: &[WeakScalar]) -> bool {
    if strong.is_empty() || !strong.iter().all(|d| d.is_integer() || d.is_bool()) {
        return false;
    }
    weak.iter().any(|w| match *w {
        WeakScalar::Int(i) => strong.iter().any(|&d| {
            let (lo, hi) = int_range(if d.is_bool() { DType::Int8 } else { d });
            i < lo || i > hi
        }),
        _ => false,
    })
}

/// NumPy 2's exact loops of the comparisons of integers (see the module docs), or `None` where
/// the ordinary loop is exact.
fn exact_compare(
    op: &str,
    ops: &[LoopOperand],
    strong: &[DType],
    weak: &[WeakScalar],
) -> Result<Option<Loop>> {
    if strong.is_empty() || !strong.iter().all(|d| d.is_integer() || d.is_bool()) {
        return Ok(None);
    }
    let t = result_type(op, strong, weak)?;
    let bool_out = vec![DType::Bool];
    if t.is_integer() {
        let (lo, hi) = int_range(t);
        for (k, o) in ops.iter().enumerate() {
            if let LoopOperand::Weak(WeakScalar::Int(i)) = *o {
                if i < lo || i > hi {
                    // The weak operand converts to float64 (never an overflow); its value is
                    // not used.
                    let params: Vec<DType> = ops
                        .iter()
                        .map(|o| match o {
                            LoopOperand::Weak(_) => DType::Float64,
                            LoopOperand::Strong(_) => t,
                        })
                        .collect();
                    return Ok(Some(Loop {
                        inputs: params.clone(),
                        params,
                        compute: DType::Int8,
                        outputs: bool_out,
                        exact: Exact::OutOfRange {
                            weak: k,
                            above: i > hi,
                        },
                    }));
                }
            }
        }
        return Ok(None);
    }
    // Integer promotion only leaves the integers for float64 with a uint64 and a signed type.
    if let [a, b] = *strong {
        let signed = |d: DType| d.is_signed_integer();
        if weak.is_empty()
            && ((signed(a) && b == DType::UInt64) || (a == DType::UInt64 && signed(b)))
        {
            let side = |d: DType| {
                if signed(d) {
                    DType::Int64
                } else {
                    DType::UInt64
                }
            };
            let inputs = vec![side(a), side(b)];
            return Ok(Some(Loop {
                params: inputs.clone(),
                inputs,
                compute: DType::Int64,
                outputs: bool_out,
                exact: Exact::MixedSign,
            }));
        }
    }
    Ok(None)
}
