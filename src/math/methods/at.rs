//! `ufunc.at`: atomic updates for add/maximum/minimum whose loop is the target's dtype, an
//! unbuffered in-order kernel for every other case (see [`Ufunc::at`]).

use crate::array::{same_device, Array};
use crate::indexing::{check_bounds, detached, scatter_op, scatter_target, wrapped_index};
use crate::launch::Elementwise;
use crate::math::options::{loop_of, Loop};
use crate::math::ufunc::{Arg, Ufunc};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, Stmt};
use cupy_core::kernel::math::Inline;
use cupy_core::scalar::Scalar;

impl Ufunc {
    /// `numpy.<ufunc>.at(a, indices, b)`: unbuffered in place, `a[indices] = ufunc(a[indices],
    /// b)` with every occurrence of a repeated index applied in turn (`b` is `None` for unary
    /// ufuncs: `negative.at(a, indices)`). `indices` is an integer array into axis 0 (negative
    /// from the end); `b` broadcasts to `indices.shape + a.shape[1:]`; a Rust scalar `b` is an
    /// array of its default dtype (int64, float64), as NumPy's `at` converts it; the result is
    /// cast to `a`'s dtype with `casting='unsafe'`.
    ///
    /// add, maximum and minimum whose loop is `a`'s dtype run as atomic updates (float sums of
    /// repeated indices then add in an unspecified order); every other case applies the
    /// indices in order, in parallel over `a.shape[1:]` (one thread per element a single
    /// index addresses, so a 1-D `a` is updated by one thread). Tuple and slice indices are
    /// not taken.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a missing or extra `b` ("second operand needed for
    /// ufunc"), a 0-d or broadcast `a`; [`Error::TypeError`] for non-integer indices or a ufunc
    /// without a loop; [`Error::IndexOutOfBounds`] (checked before anything is written);
    /// [`Error::ShapeMismatch`] when `b` does not broadcast; dtype and device errors.
    pub fn at(&self, a: &Array, indices: &Array, b: Option<Arg<'_>>) -> Result<()> {
        at(self, a, indices, b)
    }
}

/// `numpy.<u>.at(a, indices, b)` (see [`Ufunc::at`]).
pub(crate) fn at(u: &Ufunc, a: &Array, indices: &Array, b: Option<Arg<'_>>) -> Result<()> {
    let name = u.name();
    let op = format!("{name}.at");
    let op = op.as_str();
    if u.nout() != 1 {
        return Err(Error::invalid(
            op,
            format!("at takes ufuncs with one output ({name} has {})", u.nout()),
        ));
    }
    match (u.nin(), &b) {
        (2, None) => return Err(Error::invalid(op, "second operand needed for ufunc")),
        (1, Some(_)) => {
            return Err(Error::invalid(
                op,
                "second operand provided when ufunc is unary",
            ))
        }
        (1, None) | (2, Some(_)) => {}
        (n, _) => {
            return Err(Error::invalid(
                op,
                format!("at takes unary and binary ufuncs ({name} has {n} inputs)"),
            ))
        }
    }
    if !indices.dtype().is_integer() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![indices.dtype()],
            msg: "arrays used as indices must be of integer type (bool masks and tuple or slice indices are not taken by at)".into(),
        });
    }
    if a.ndim() == 0 {
        return Err(Error::invalid(
            op,
            "a 0-d array cannot be indexed by an integer array",
        ));
    }
    let l = &a.layout;
    if l.shape
        .iter()
        .zip(&l.strides)
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(Error::invalid(
            op,
            "the array has zero strides (a broadcast view) and cannot be written in place",
        ));
    }
    let device = a.device().clone();
    // NumPy's `at` converts `b` to an array: a Rust scalar is strong, of its default dtype.
    let scalar = |s: Scalar| -> Result<Array> {
        let r = Array::empty_on(&device, &[], s.dtype())?;
        r.fill(s)?;
        Ok(r)
    };
    let vals: Option<Array> = match b {
        None => None,
        Some(Arg::Array(x)) => Some(x.clone()),
        Some(Arg::Weak(w)) => Some(scalar(w.to_scalar(op, w.default_dtype())?)?),
        Some(Arg::Typed(s)) => Some(scalar(s)?),
    };
    same_device(op, std::iter::once(a).chain([indices]).chain(vals.as_ref()))?;
    let mut strong = vec![a.dtype()];
    strong.extend(vals.as_ref().map(|v| v.dtype()));
    let (t, _, _) = u.loop_types(&strong, &[])?;
    let lp = loop_of(u, t)?;
    super::check_inlinable(u, "at", &lp)?;
    let shape = a.shape().to_vec();
    let n0 = shape[0];
    let post: usize = shape[1..].iter().product();
    let nidx = indices.size();
    let mut take_shape = indices.shape().to_vec();
    take_shape.extend(&shape[1..]);
    let vals = match vals {
        Some(v) => Some(
            v.broadcast_to(&take_shape)
                .map_err(|_| Error::ShapeMismatch {
                    op: format!("{op} (b is not broadcastable to the indexed shape)"),
                    lhs: v.shape().to_vec(),
                    rhs: take_shape.clone(),
                })?,
        ),
        None => None,
    };
    check_bounds(op, indices, n0, 0)?;
    if nidx == 0 || post == 0 {
        return Ok(());
    }
    // Atomic updates where they give NumPy's values: the loop is a's dtype (float16 loops
    // compute in float32 and round, as the atomics do), or integer adds (which wrap alike).
    let atomic = match name {
        "add" => Some(AtomicOp::Add),
        "maximum" => Some(AtomicOp::Max),
        "minimum" => Some(AtomicOp::Min),
        _ => None,
    };
    if let (Some(aop), Some(v)) = (atomic, &vals) {
        let same = lp.input == a.dtype() && lp.output == a.dtype();
        let int_add = aop == AtomicOp::Add && a.dtype().is_integer() && lp.input.is_integer();
        if same || int_add {
            match scatter_op(op, aop, a, indices, v, Some(0)) {
                Ok(()) => return Ok(()),
                // A backend without that atomic (complex everywhere) runs the ordered kernel.
                Err(Error::Unsupported { .. } | Error::DTypeNotSupported { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    }
    let (target, write_back) = scatter_target(a)?;
    let idx = detached(&indices.reshape(&[-1])?, &target)?;
    let idx = if idx.is_c_contiguous() {
        idx
    } else {
        idx.copy()?
    };
    let vals = match vals {
        Some(v) => Some(v.copy()?),
        None => None,
    };
    let kernel = at_kernel(
        u,
        a.dtype(),
        idx.dtype(),
        vals.as_ref().map(|v| v.dtype()),
        &lp,
    );
    let raw_arrays: Vec<&Array> = [&target, &idx].into_iter().chain(vals.as_ref()).collect();
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &[],
        raws: &raw_arrays,
        params: vec![
            Scalar::Int64(nidx as i64),
            Scalar::Int64(post as i64),
            Scalar::Int64(n0 as i64),
        ],
        outs: vec![],
        device: Some(&device),
        shape: Some(&[post]),
    }
    .run()?;
    if write_back {
        a.copy_from(&target)?;
    }
    Ok(())
}

/// The kernel of the in-order `at`: raw 0 the target (contiguous, dtype `t`), raw 1 the
/// indices (`idx`), raw 2 the values (`vals`, `[nidx, post]` contiguous) for binary ufuncs;
/// params `nidx`, `post`, `a.shape[0]`; element `p` applies every index in turn to
/// `a[idx[k], p]`.
pub(crate) fn at_kernel(u: &Ufunc, t: DType, idx: DType, vals: Option<DType>, lp: &Loop) -> Kernel {
    let i64 = DType::Int64;
    let bin = Expr::binary;
    let p = |k: usize| Expr::param(k, i64);
    // Params: 0 nidx, 1 post, 2 n0. Locals: 0 loop counter k, 1 address.
    let (k, addr) = (Expr::var(0, i64), Expr::var(1, i64));
    let j = wrapped_index(Expr::load(1, idx, k.clone()), p(2));
    let c = lp.compute;
    let operand = |e: Expr| e.cast(lp.input).cast(c);
    let mut args = vec![operand(Expr::load(0, t, addr.clone()))];
    if let Some(v) = vals {
        let at = bin(
            BinaryOp::Add,
            bin(BinaryOp::Mul, k.clone(), p(1)),
            Expr::index(),
        );
        args.push(operand(Expr::load(2, v, at)));
    }
    let new = u.body(&mut Inline, c, args).cast(lp.output).cast(t);
    let mut raws = vec![t, idx];
    raws.extend(vals);
    Kernel {
        name: format!("{}_at", u.name()),
        inputs: vec![],
        outputs: vec![],
        raws,
        params: vec![i64; 3],
        locals: vec![i64, i64],
        body: vec![
            Stmt::Let {
                var: 1,
                value: Expr::constant(Scalar::Int64(0)),
            },
            Stmt::For {
                var: 0,
                start: Expr::constant(Scalar::Int64(0)),
                end: p(0),
                body: vec![
                    Stmt::Assign {
                        var: 1,
                        value: bin(BinaryOp::Add, bin(BinaryOp::Mul, j, p(1)), Expr::index()),
                    },
                    Stmt::StoreRaw {
                        raw: 0,
                        index: addr,
                        value: new,
                    },
                ],
            },
        ],
    }
}
