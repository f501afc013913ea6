//! `ReductionKernel` with `identity=None`: the fold starts from each output's first element, as
//! NumPy's `ufunc.reduce` does for ufuncs without an identity. The same passes serve an
//! identity that is not neutral for the combine (`'1'` with `a + b`): it is NumPy's `initial=`,
//! combined once per output after the fold (see [`identity_is_neutral`]).
//!
//! The IR's [`ReduceKernel`] needs an identity (GPU reductions seed every thread with it), so
//! these reductions are composed from elementwise IR kernels, which every backend runs:
//! 1. a map pass writes `map(x)` for every element, in (output, reduced) order, as one
//!    contiguous `[n_out, n_red]` array of the accumulator type;
//! 2. combine passes shrink each row 32-fold: element `j` of a row folds elements
//!    `32j .. 32j + 31` (those that exist) with `combine`, starting from element `32j`;
//! 3. the pass that leaves one element per row applies `post` and writes the output.
//!
//! Every pass is one launch; a row of `n` elements takes `ceil(log32 n)` combine passes (one for
//! up to 32 elements, 5 for up to 2^25). The fold order is a 32-ary tree, which is exact for the
//! associative, commutative combines CuPy requires.

use crate::array::{check_dtype, Array};
use crate::launch::Elementwise;
use crate::statistics::reduction::{Axes, ReduceAxes};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ExprKind, Kernel, ReduceKernel, Stmt};
use cupy_core::scalar::Scalar;

/// Elements one combine pass folds into one.
const FAN_IN: i64 = 32;

/// Reduces `inputs` (broadcast to one shape) over `axes` with `kernel`'s map, combine and post,
/// without seeding partial results with its identity. With `initial` (NumPy's `initial=`), each
/// output is `post(combine(initial, fold))`, and `post(initial)` for an empty reduction.
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty reduction without `initial` ("zero-size array to
/// reduction operation ... which has no identity"), as NumPy; axis, dtype and device errors.
pub(crate) fn reduce_first(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    (axes, keepdims): (&Axes, bool),
    initial: Option<Scalar>,
    options: &[String],
) -> Result<Array> {
    let ReduceAxes {
        device,
        red,
        keep,
        out_shape,
        final_shape,
    } = ReduceAxes::new(op, inputs, axes, keepdims)?;
    let shape = inputs[0].shape().to_vec();
    let n_out: usize = out_shape.iter().product();
    let n_red: usize = red.iter().map(|&i| shape[i]).product();
    if n_red == 0 && initial.is_none() {
        return Err(Error::invalid(
            op,
            format!("zero-size array to reduction operation {op} which has no identity"),
        ));
    }
    let (base, folded) = (kernel, initial.map(|id| with_initial(kernel, id)));
    let kernel = folded.as_ref().unwrap_or(kernel);
    let mut uses_input = false;
    kernel
        .post
        .visit(&mut |e| uses_input |= matches!(e.kind, ExprKind::Input(_) | ExprKind::Index));
    if uses_input {
        return Err(Error::invalid(
            op,
            "post_map_expr reads an input, which has no value after the reduction",
        ));
    }
    for d in kernel.dtypes() {
        check_dtype(&device, op, d)?;
    }
    if n_out == 0 {
        return Array::empty_on(&device, &out_shape, kernel.output)?.reshape(&final_shape);
    }
    if n_red == 0 {
        // Only with `initial`: every output is post(initial).
        let id = initial.expect("checked above");
        let value = base
            .post
            .rewrite(&mut |e| matches!(e.kind, ExprKind::Var(0)).then(|| Expr::constant(id)));
        let fill = Kernel::map(
            &format!("{}_initial", kernel.name),
            vec![],
            kernel.params.clone(),
            value,
        );
        return Elementwise {
            op,
            kernel: &fill,
            inputs: &[],
            raws: &[],
            params,
            outs: vec![None],
            device: Some(&device),
            shape: Some(&out_shape),
        }
        .run_one()?
        .reshape(&final_shape);
    }

    // 1. map(x) in (kept axes, reduced axes) order, contiguous.
    let perm: Vec<isize> = keep.iter().chain(&red).map(|&i| i as isize).collect();
    let views: Vec<Array> = inputs
        .iter()
        .map(|x| x.transpose(&perm))
        .collect::<Result<_>>()?;
    let view_refs: Vec<&Array> = views.iter().collect();
    let map_kernel = map_pass(kernel);
    let perm_shape: Vec<usize> = perm.iter().map(|&i| shape[i as usize]).collect();
    let mut cur = Elementwise {
        op,
        kernel: &map_kernel,
        inputs: &view_refs,
        raws: &[],
        params: params.clone(),
        outs: vec![None],
        device: Some(&device),
        shape: Some(&perm_shape),
    }
    .run_opts(None, options)?
    .remove(0);

    // 2./3. 32-way combine passes; the last one applies post.
    let mut n = n_red as i64;
    loop {
        let m = (n + FAN_IN - 1) / FAN_IN;
        let last = m == 1;
        let pass = combine_pass(kernel, last);
        let mut p = params.clone();
        p.push(Scalar::Int64(n));
        p.push(Scalar::Int64(m));
        let len = [n_out * m as usize];
        cur = Elementwise {
            op,
            kernel: &pass,
            inputs: &[],
            raws: &[&cur],
            params: p,
            outs: vec![None],
            device: Some(&device),
            shape: Some(&len),
        }
        .run_opts(None, options)?
        .remove(0);
        if last {
            return cur.reshape(&final_shape);
        }
        n = m;
    }
}

/// The IR kernels an identity-less reduction runs: the map pass, a combine pass and the last
/// combine pass (with `post`, after combining `initial` when given).
pub(crate) fn pass_kernels(kernel: &ReduceKernel, initial: Option<Scalar>) -> Vec<Kernel> {
    let folded = initial.map(|id| with_initial(kernel, id));
    let last = folded.as_ref().unwrap_or(kernel);
    vec![
        map_pass(kernel),
        combine_pass(kernel, false),
        combine_pass(last, true),
    ]
}

/// `kernel` with `post(a)` replaced by `post(combine(initial, a))`: NumPy's `initial=`, counted
/// once per output.
fn with_initial(kernel: &ReduceKernel, initial: Scalar) -> ReduceKernel {
    let acc = kernel.acc[0];
    let c = kernel.combine[0].rewrite(&mut |e| match e.kind {
        ExprKind::Var(0) => Some(Expr::constant(initial)),
        ExprKind::Var(1) => Some(Expr::var(0, acc)),
        _ => None,
    });
    let post = kernel
        .post
        .rewrite(&mut |e| matches!(e.kind, ExprKind::Var(0)).then(|| c.clone()));
    ReduceKernel {
        post,
        ..kernel.clone()
    }
}

/// Whether `kernel.identity` is neutral for `kernel.combine`: `combine(identity, v) == v` and
/// `combine(v, identity) == v` for probe values `v` of the accumulator type (zeros of both
/// signs, small and large magnitudes, the type's extremes, infinities; not NaN, whose results
/// under `max`-like selects depend on the operand order). Then seeding every partial result
/// with the identity (what the one-kernel reductions do) gives the same value as counting it
/// once; otherwise the kernel's reduction counts it once, as NumPy's `initial=`. Evaluated on
/// the host with the IR's semantics; an evaluation error counts as not neutral (the slower
/// path is exact either way).
pub(crate) fn identity_is_neutral(kernel: &ReduceKernel) -> bool {
    let id = Expr::constant(kernel.identity[0]);
    let sub = |x: &Expr, y: &Expr| {
        kernel.combine[0].rewrite(&mut |e| match e.kind {
            ExprKind::Var(0) => Some(x.clone()),
            ExprKind::Var(1) => Some(y.clone()),
            _ => None,
        })
    };
    let mut all: Option<Expr> = None;
    for p in probes(kernel.acc[0]) {
        let v = Expr::constant(p);
        let eq = |a: Expr| Expr::binary(BinaryOp::Eq, a, v.clone());
        let ok = Expr::binary(BinaryOp::And, eq(sub(&id, &v)), eq(sub(&v, &id)));
        all = Some(match all {
            None => ok,
            Some(a) => Expr::binary(BinaryOp::And, a, ok),
        });
    }
    let Some(all) = all else { return false };
    matches!(
        super::eval_host(&kernel.name, vec![all]).as_deref(),
        Ok([Scalar::Bool(true)])
    )
}

/// Probe values of dtype `t` for [`identity_is_neutral`].
fn probes(t: DType) -> Vec<Scalar> {
    if t.is_bool() {
        return vec![Scalar::Bool(false), Scalar::Bool(true)];
    }
    if t.is_integer() {
        let (lo, hi) = cupy_core::promote::int_range(t);
        let int = |v: i128| {
            if t == DType::UInt64 {
                Scalar::UInt64(v as u64)
            } else {
                Scalar::Int64(v as i64).cast(t)
            }
        };
        return [0, 1, 2, 3, 7, 100, -1, -5, lo, lo + 1, hi, hi - 1]
            .into_iter()
            .filter(|v| (lo..=hi).contains(v))
            .map(int)
            .collect();
    }
    if t.is_complex() {
        // Finite values only: complex products with an infinite part make NaNs (NumPy's too).
        return [
            (0.0, 0.0),
            (-0.0, 0.0),
            (1.0, 0.0),
            (0.0, 1.0),
            (-2.5, 0.75),
            (1e3, -3.0),
        ]
        .into_iter()
        .map(|(re, im)| Scalar::Complex128(num_complex::Complex::new(re, im)).cast(t))
        .collect();
    }
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.75,
        3.0,
        1e3,
        -1e-3,
        1e30,
        -1e30,
        f32::MAX as f64,
        f64::MAX,
        1e-45,
        5e-324,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ]
    .into_iter()
    .map(|v| Scalar::Float64(v).cast(t))
    .collect()
}

/// `map(x)` elementwise, stored as the accumulator type.
fn map_pass(kernel: &ReduceKernel) -> Kernel {
    Kernel {
        name: format!("{}_map", kernel.name),
        inputs: kernel.inputs.clone(),
        outputs: vec![kernel.acc[0]],
        raws: vec![],
        params: kernel.params.clone(),
        locals: vec![],
        body: vec![Stmt::Store {
            output: 0,
            value: kernel.map[0].clone(),
        }],
    }
}

/// The kernel of one combine pass over rows of `n` elements (param `P`) held in raw operand 0,
/// each shrunk to `m` (param `P + 1`) elements; with `last`, `post` is applied.
///
/// Locals: 0 = `a` (the accumulator), 1 = `b`, 2 = the row element index `j`, 3 = the first
/// element's position, 4 = the loop counter. `combine` reads `Var(0)`/`Var(1)` and `post`
/// reads `Var(0)`, so both are used unchanged.
fn combine_pass(k: &ReduceKernel, last: bool) -> Kernel {
    let i64c = |v: i64| Expr::constant(Scalar::Int64(v));
    let np = k.params.len();
    let (n, m) = (
        Expr::param(np, DType::Int64),
        Expr::param(np + 1, DType::Int64),
    );
    let a = Expr::var(0, k.acc[0]);
    let (j, base, t) = (
        Expr::var(2, DType::Int64),
        Expr::var(3, DType::Int64),
        Expr::var(4, DType::Int64),
    );
    let bin = Expr::binary;
    let mut params = k.params.clone();
    params.extend([DType::Int64, DType::Int64]);
    let out = if last { k.output } else { k.acc[0] };
    let value = if last { k.post.clone() } else { a.clone() };
    Kernel {
        name: format!("{}_fold{}", k.name, if last { "_post" } else { "" }),
        inputs: vec![],
        outputs: vec![out],
        raws: vec![k.acc[0]],
        params,
        locals: vec![k.acc[0], k.acc[0], DType::Int64, DType::Int64, DType::Int64],
        body: vec![
            // j = i % m; base = (i / m) * n + j * 32
            Stmt::Let {
                var: 2,
                value: bin(BinaryOp::Mod, Expr::index(), m.clone()),
            },
            Stmt::Let {
                var: 3,
                value: bin(
                    BinaryOp::Add,
                    bin(
                        BinaryOp::Mul,
                        bin(BinaryOp::Div, Expr::index(), m),
                        n.clone(),
                    ),
                    bin(BinaryOp::Mul, j.clone(), i64c(FAN_IN)),
                ),
            },
            Stmt::Let {
                var: 0,
                value: Expr::load(0, k.acc[0], base.clone()),
            },
            Stmt::Let {
                var: 1,
                value: Expr::constant(Scalar::zero(k.acc[0])),
            },
            Stmt::For {
                var: 4,
                start: i64c(1),
                end: i64c(FAN_IN),
                body: vec![Stmt::If {
                    cond: bin(
                        BinaryOp::Lt,
                        bin(
                            BinaryOp::Add,
                            bin(BinaryOp::Mul, j, i64c(FAN_IN)),
                            t.clone(),
                        ),
                        n,
                    ),
                    then_body: vec![
                        Stmt::Assign {
                            var: 1,
                            value: Expr::load(0, k.acc[0], bin(BinaryOp::Add, base, t)),
                        },
                        Stmt::Assign {
                            var: 0,
                            value: k.combine[0].clone(),
                        },
                    ],
                    else_body: vec![],
                }],
            },
            Stmt::Store { output: 0, value },
        ],
    }
}
