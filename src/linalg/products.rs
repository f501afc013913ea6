//! Products composed from `matmul`, elementwise ops, reductions and views, so they run on every
//! backend: `vdot`, `inner`, `outer`, `tensordot`, `kron`, `cross`, `trace`, `matrix_power`,
//! `multi_dot`, `vecdot`, `matrix_transpose`, `linalg.diagonal`, `linalg.trace`.

use super::matmul;
use crate::array::{same_device, Array};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::layout::{normalize_axis, SliceItem};
use cupy_core::promote::promote_types;

fn isz(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&d| d as isize).collect()
}

/// `numpy.vdot(a, b)`: the dot product of the flattened operands, conjugating `a` first; a 0-d
/// array.
///
/// # Errors
/// [`Error::InvalidArgument`] when the sizes differ (NumPy's "vectors have different lengths").
pub fn vdot(a: &Array, b: &Array) -> Result<Array> {
    let op = "vdot";
    same_device(op, [a, b])?;
    if a.size() != b.size() {
        return Err(Error::invalid(
            op,
            format!(
                "vectors have different lengths: {} (shape {:?}) and {} (shape {:?})",
                a.size(),
                a.shape(),
                b.size(),
                b.shape()
            ),
        ));
    }
    let ac = if a.dtype().is_complex() {
        crate::math::complex::conjugate(a)?
    } else {
        a.clone()
    };
    matmul(&ac.reshape(&[-1])?, &b.reshape(&[-1])?)
}
routine!(vdot, Linalg, probe: super::gemm);

/// `numpy.inner(a, b)`: the sum product over the last axes; shape `a.shape[:-1] +
/// b.shape[:-1]`; a 0-d operand multiplies.
///
/// # Errors
/// [`Error::ShapeMismatch`] when the last axes differ.
pub fn inner(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::math::arithmetic::multiply(a, b);
    }
    tensordot(a, b, TensorAxes::Pairs(vec![-1], vec![-1]))
}
routine!(inner, Linalg, probe: super::gemm);

/// `numpy.outer(a, b)`: `a.ravel()[:, None] * b.ravel()[None, :]`.
///
/// # Errors
/// Device and dtype errors.
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    same_device("outer", [a, b])?;
    crate::math::arithmetic::multiply(&a.reshape(&[-1, 1])?, &b.reshape(&[1, -1])?)
}
routine!(outer, Linalg);

/// The `axes` argument of [`tensordot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorAxes {
    /// `axes=N`: the last `N` axes of `a` with the first `N` of `b`.
    Count(usize),
    /// `axes=(a_axes, b_axes)`: pairs summed over.
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensorAxes {
    fn from(n: usize) -> TensorAxes {
        TensorAxes::Count(n)
    }
}

/// `numpy.tensordot(a, b, axes)`: sums products over the paired axes; the result has `a`'s
/// free axes then `b`'s. One transpose/reshape per operand and one `matmul`.
///
/// # Errors
/// [`Error::InvalidArgument`] when paired axes differ in length (NumPy's "shape-mismatch for
/// sum", naming the axes and shapes) or `axes` exceeds an operand's ndim;
/// [`Error::AxisOutOfRange`].
pub fn tensordot(a: &Array, b: &Array, axes: impl Into<TensorAxes>) -> Result<Array> {
    let op = "tensordot";
    same_device(op, [a, b])?;
    let (ax, bx): (Vec<usize>, Vec<usize>) = match axes.into() {
        TensorAxes::Count(n) => {
            if n > a.ndim() || n > b.ndim() {
                return Err(Error::invalid(
                    op,
                    format!("axes={n} exceeds an operand's ndim"),
                ));
            }
            ((a.ndim() - n..a.ndim()).collect(), (0..n).collect())
        }
        TensorAxes::Pairs(x, y) => {
            if x.len() != y.len() {
                return Err(Error::invalid(op, "shape-mismatch for sum"));
            }
            let x: Result<Vec<usize>> =
                x.iter().map(|&i| normalize_axis(op, i, a.ndim())).collect();
            let y: Result<Vec<usize>> =
                y.iter().map(|&i| normalize_axis(op, i, b.ndim())).collect();
            (x?, y?)
        }
    };
    for (&i, &j) in ax.iter().zip(&bx) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::invalid(
                op,
                format!(
                    "shape-mismatch for sum: axis {i} of a (shape {:?}) has length {}, axis {j} \
                     of b (shape {:?}) has length {}",
                    a.shape(),
                    a.shape()[i],
                    b.shape(),
                    b.shape()[j]
                ),
            ));
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !ax.contains(i)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|i| !bx.contains(i)).collect();
    let k: usize = ax.iter().map(|&i| a.shape()[i]).product();
    let ma: usize = free_a.iter().map(|&i| a.shape()[i]).product();
    let nb: usize = free_b.iter().map(|&i| b.shape()[i]).product();
    let pa: Vec<isize> = free_a.iter().chain(&ax).map(|&i| i as isize).collect();
    let pb: Vec<isize> = bx.iter().chain(&free_b).map(|&i| i as isize).collect();
    let a2 = a.transpose(&pa)?.reshape(&[ma as isize, k as isize])?;
    let b2 = b.transpose(&pb)?.reshape(&[k as isize, nb as isize])?;
    let c = matmul(&a2, &b2)?;
    let shape: Vec<usize> = free_a
        .iter()
        .map(|&i| a.shape()[i])
        .chain(free_b.iter().map(|&i| b.shape()[i]))
        .collect();
    c.reshape(&isz(&shape))
}
routine!(tensordot, Linalg, probe: super::gemm, notes: "one matmul after transposes");

/// `numpy.kron(a, b)`: the Kronecker product (block `a[i] * b`), shapes padded with leading 1s
/// to a common ndim.
///
/// # Errors
/// Device and dtype errors.
pub fn kron(a: &Array, b: &Array) -> Result<Array> {
    same_device("kron", [a, b])?;
    let nd = a.ndim().max(b.ndim());
    let pad = |x: &Array| -> Vec<usize> {
        let mut s = vec![1; nd - x.ndim()];
        s.extend(x.shape());
        s
    };
    let (sa, sb) = (pad(a), pad(b));
    let mut ea = Vec::with_capacity(2 * nd);
    let mut eb = Vec::with_capacity(2 * nd);
    for i in 0..nd {
        ea.extend([sa[i], 1]);
        eb.extend([1, sb[i]]);
    }
    let p = crate::math::arithmetic::multiply(&a.reshape(&isz(&ea))?, &b.reshape(&isz(&eb))?)?;
    let out: Vec<usize> = (0..nd).map(|i| sa[i] * sb[i]).collect();
    p.reshape(&isz(&out))
}
routine!(kron, Linalg);

/// `numpy.cross(a, b)` along the last axes (`axis=-1`): 3-component vectors give vectors, 2-
/// component ones the z component (as NumPy, which deprecates them); a 2-vector with a
/// 3-vector treats the missing z as 0. Batch axes broadcast.
///
/// # Errors
/// [`Error::InvalidArgument`] for another vector length.
pub fn cross(a: &Array, b: &Array) -> Result<Array> {
    let op = "cross";
    same_device(op, [a, b])?;
    let (la, lb) = (
        a.shape().last().copied().unwrap_or(0),
        b.shape().last().copied().unwrap_or(0),
    );
    if !(la == 2 || la == 3) || !(lb == 2 || lb == 3) {
        return Err(Error::invalid(
            op,
            "incompatible dimensions for cross product (dimension must be 2 or 3)",
        ));
    }
    let c = |x: &Array, i: isize| x.slice(&[SliceItem::Ellipsis, SliceItem::Index(i)]);
    use crate::math::arithmetic::{multiply as mul, subtract as sub};
    if la == 2 && lb == 2 {
        return sub(&mul(&c(a, 0)?, &c(b, 1)?)?, &mul(&c(a, 1)?, &c(b, 0)?)?);
    }
    let t = promote_types(a.dtype(), b.dtype());
    let zero = |x: &Array| Array::zeros_on(x.device(), &x.shape()[..x.ndim() - 1], t);
    let comp = |x: &Array, l: usize, i: isize| if i == 2 && l == 2 { zero(x) } else { c(x, i) };
    let (a0, a1, a2) = (comp(a, la, 0)?, comp(a, la, 1)?, comp(a, la, 2)?);
    let (b0, b1, b2) = (comp(b, lb, 0)?, comp(b, lb, 1)?, comp(b, lb, 2)?);
    let x = sub(&mul(&a1, &b2)?, &mul(&a2, &b1)?)?;
    let y = sub(&mul(&a2, &b0)?, &mul(&a0, &b2)?)?;
    let z = sub(&mul(&a0, &b1)?, &mul(&a1, &b0)?)?;
    crate::manipulation::join::stack(&[&x, &y, &z], -1)
}
routine!(cross, Linalg, notes: "axis=-1 (axisa/axisb/axisc not taken)");

/// `numpy.trace(a, offset, axis1, axis2)`: the sum along a diagonal (NumPy's sum dtype rules).
///
/// # Errors
/// As [`crate::diagonal`].
pub fn trace(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    crate::diagonal(a, offset, axis1, axis2)?.sum_axis(-1isize)
}
routine!(trace, Linalg);

/// `numpy.linalg.trace(x, offset)`: the trace of each matrix of the stack (last two axes).
///
/// # Errors
/// As [`trace`].
pub fn linalg_trace(x: &Array, offset: isize) -> Result<Array> {
    trace(x, offset, -2, -1)
}
routine!(linalg_trace as "cupy.linalg.trace", Linalg);

/// `numpy.linalg.diagonal(x, offset)`: the diagonals of each matrix of the stack.
///
/// # Errors
/// As [`crate::diagonal`].
pub fn diagonal(x: &Array, offset: isize) -> Result<Array> {
    crate::diagonal(x, offset, -2, -1)
}
routine!(diagonal as "cupy.linalg.diagonal", Linalg);

/// `numpy.linalg.matrix_transpose(x)` (`x.mT`): swaps the last two axes (a view).
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two dimensions.
pub fn matrix_transpose(x: &Array) -> Result<Array> {
    if x.ndim() < 2 {
        return Err(Error::invalid(
            "matrix_transpose",
            format!(
                "Input array must be at least 2-dimensional, but it is {}",
                x.ndim()
            ),
        ));
    }
    let n = x.ndim() as isize;
    x.swapaxes(n - 2, n - 1)
}
routine!(matrix_transpose as "cupy.linalg.matrix_transpose", Linalg);

/// `numpy.linalg.vecdot(x1, x2, axis=-1)`: `sum(conj(x1) * x2, axis)`, broadcasting.
///
/// # Errors
/// [`Error::ShapeMismatch`] when the operands do not broadcast.
pub fn vecdot(x1: &Array, x2: &Array, axis: isize) -> Result<Array> {
    let c = if x1.dtype().is_complex() {
        crate::math::complex::conjugate(x1)?
    } else {
        x1.clone()
    };
    crate::math::arithmetic::multiply(&c, x2)?.sum_axis(axis)
}
routine!(vecdot as "cupy.linalg.vecdot", Linalg);

/// `numpy.linalg.matrix_power(a, n)`: `a` multiplied by itself `n` times by repeated squaring;
/// `n == 0` gives the identity, `n < 0` the power of the inverse.
///
/// # Errors
/// [`Error::LinAlgError`] for non-square input, or a singular `a` with `n < 0`.
pub fn matrix_power(a: &Array, n: i64) -> Result<Array> {
    let op = "matrix_power";
    super::primitive::assert_stacked_square(op, a)?;
    let m = a.shape()[a.ndim() - 1];
    if n == 0 {
        let e = Array::eye_on(a.device(), m, None, 0, a.dtype())?;
        return e.broadcast_to(a.shape())?.copy();
    }
    let base = if n < 0 {
        super::solve::inv(a)?
    } else {
        a.clone()
    };
    let mut k = n.unsigned_abs();
    let mut result: Option<Array> = None;
    let mut z = base;
    loop {
        if k & 1 == 1 {
            result = Some(match result {
                None => z.clone(),
                Some(r) => matmul(&r, &z)?,
            });
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        z = matmul(&z, &z)?;
    }
    let r = result.expect("n != 0");
    if r.shares_memory_with(a) {
        r.copy()
    } else {
        Ok(r)
    }
}
routine!(matrix_power as "cupy.linalg.matrix_power", Linalg, probe: super::gemm);

/// `numpy.linalg.multi_dot(arrays)`: the chained product in the cheapest association order
/// (dynamic programming over the flop counts, as NumPy); a 1-D first (last) operand is a row
/// (column) vector and its axis is removed from the result.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two arrays or inner operands that are not 2-D;
/// as [`matmul`].
pub fn multi_dot(arrays: &[&Array]) -> Result<Array> {
    let op = "multi_dot";
    let n = arrays.len();
    if n < 2 {
        return Err(Error::invalid(op, "Expecting at least two arrays."));
    }
    if n == 2 {
        return matmul(arrays[0], arrays[1]);
    }
    let first_1d = arrays[0].ndim() == 1;
    let last_1d = arrays[n - 1].ndim() == 1;
    let mut ms: Vec<Array> = arrays.iter().map(|a| (*a).clone()).collect();
    if first_1d {
        ms[0] = ms[0].reshape(&[1, -1])?;
    }
    if last_1d {
        ms[n - 1] = ms[n - 1].reshape(&[-1, 1])?;
    }
    for (i, m) in ms.iter().enumerate() {
        if m.ndim() != 2 {
            return Err(Error::linalg(
                op,
                format!(
                    "{}-dimensional array given. Array must be two-dimensional",
                    arrays[i].ndim()
                ),
            ));
        }
    }
    // p[i] x p[i+1] is matrix i.
    let mut p: Vec<u128> = ms.iter().map(|m| m.shape()[0] as u128).collect();
    p.push(ms[n - 1].shape()[1] as u128);
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            cost[i][j] = u128::MAX;
            for k in i..j {
                let c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = k;
                }
            }
        }
    }
    fn chain(ms: &[Array], split: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
        if i == j {
            return Ok(ms[i].clone());
        }
        let k = split[i][j];
        matmul(&chain(ms, split, i, k)?, &chain(ms, split, k + 1, j)?)
    }
    let r = chain(&ms, &split, 0, n - 1)?;
    match (first_1d, last_1d) {
        (true, true) => r.reshape(&[]),
        (true, false) => r.reshape(&[-1]),
        (false, true) => r.reshape(&[-1]),
        _ => Ok(r),
    }
}
routine!(multi_dot as "cupy.linalg.multi_dot", Linalg, probe: super::gemm, notes: "optimal chain order");

/// The dtype NumPy's norms compute in: inexact inputs keep theirs, others become float64.
pub(crate) fn norm_input(x: &Array) -> Result<Array> {
    if x.dtype().is_inexact() {
        Ok(x.clone())
    } else {
        x.astype(DType::Float64)
    }
}
