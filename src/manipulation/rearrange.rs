//! Rearranging elements (CuPy's `cupy/_manipulation/rearrange.py`): `flip`, `fliplr`, `flipud`
//! and `rot90` (views, as in NumPy) and `roll` (one strided copy per block). Each routine's
//! registry row is the `routine!` line after it.

use super::narrow;
use crate::array::Array;
use crate::statistics::reduction::Axes;
use cupy_core::error::{Error, Result};
use cupy_core::layout::normalize_axis;

/// Normalizes `axes` against `ndim`, refusing repeats (NumPy's `normalize_axis_tuple`).
pub(crate) fn axis_list(op: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = normalize_axis(op, a, ndim)?;
        if out.contains(&a) {
            return Err(Error::invalid(op, format!("repeated axis in {axes:?}")));
        }
        out.push(a);
    }
    Ok(out)
}

/// The view of `a` reversed along `axis` (normalized).
fn reversed(a: &Array, axis: usize) -> Array {
    let n = a.shape()[axis];
    if n == 0 {
        return a.clone();
    }
    narrow(a, axis, n - 1, n, -1)
}

impl Array {
    /// Reverses the order of elements along `axis` (`flip`; [`Axes::All`]: every axis): a view.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis.
    pub fn flip(&self, axis: impl Into<Axes>) -> Result<Array> {
        let axes = match axis.into() {
            Axes::All => (0..self.ndim()).collect(),
            Axes::Some(v) => axis_list("flip", &v, self.ndim())?,
        };
        Ok(axes
            .into_iter()
            .fold(self.clone(), |a, ax| reversed(&a, ax)))
    }
}

/// `cupy.flip(a, axis=None)`: a view with the order of elements along `axis` reversed; the
/// function form of [`Array::flip`].
///
/// # Errors
/// As [`Array::flip`].
pub fn flip(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    a.flip(axis)
}
routine!(flip, Manipulation, notes: "views");

/// `cupy.fliplr(a)`: reversed along axis 1, a view.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 2 dimensions.
pub fn fliplr(a: &Array) -> Result<Array> {
    if a.ndim() < 2 {
        return Err(Error::invalid(
            "fliplr",
            format!("Input must be >= 2-d (shape {:?}).", a.shape()),
        ));
    }
    Ok(reversed(a, 1))
}
routine!(fliplr, Manipulation, notes: "views");

/// `cupy.flipud(a)`: reversed along axis 0, a view.
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array.
pub fn flipud(a: &Array) -> Result<Array> {
    if a.ndim() < 1 {
        return Err(Error::invalid("flipud", "Input must be >= 1-d."));
    }
    Ok(reversed(a, 0))
}
routine!(flipud, Manipulation, notes: "views");

/// `cupy.roll(a, shift, axis)`: elements shifted by `shift` along `axis` (wrapping around);
/// `axis=None` rolls the flattened array and restores the shape. A new array.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; device errors.
pub fn roll(a: &Array, shift: isize, axis: Option<isize>) -> Result<Array> {
    match axis {
        Some(ax) => roll_axes(a, &[shift], &[ax]),
        None => {
            let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
            roll_axes(&a.ravel()?, &[shift], &[0])?.reshape(&shape)
        }
    }
}
routine!(roll, Manipulation, notes: "one strided copy per block (2 per rolled axis)");

/// `cupy.roll(a, shifts, axes)` with sequences: `shifts[i]` along `axes[i]` (one of them may
/// have length 1 and is broadcast; shifts on a repeated axis add up). A new array.
///
/// # Errors
/// [`Error::InvalidArgument`] when the lengths do not broadcast; [`Error::AxisOutOfRange`];
/// device errors.
pub fn roll_axes(a: &Array, shifts: &[isize], axes: &[isize]) -> Result<Array> {
    let op = "roll";
    let n = shifts.len().max(axes.len());
    if (shifts.len() != n && shifts.len() != 1) || (axes.len() != n && axes.len() != 1) {
        return Err(Error::invalid(
            op,
            format!(
                "shape mismatch: objects cannot be broadcast to a single shape: shift {shifts:?} \
                 and axis {axes:?}"
            ),
        ));
    }
    // Each axis's total shift modulo its length (shifts on a repeated axis add up exactly, as
    // NumPy's Python integers do: reduced one by one, so extreme shifts can't wrap).
    let mut total = vec![0usize; a.ndim()];
    for i in 0..n {
        let s = shifts[if shifts.len() == 1 { 0 } else { i }];
        let ax = normalize_axis(op, axes[if axes.len() == 1 { 0 } else { i }], a.ndim())?;
        let d = a.shape()[ax];
        if d > 0 {
            total[ax] = (total[ax] + s.rem_euclid(d as isize) as usize) % d;
        }
    }
    let out = Array::empty_on(a.device(), a.shape(), a.dtype())?;
    if a.size() == 0 {
        return Ok(out);
    }
    // Per axis, the (source start, destination start, length) blocks.
    let blocks: Vec<Vec<(usize, usize, usize)>> = total
        .iter()
        .zip(a.shape())
        .map(|(&s, &d)| {
            if s == 0 {
                vec![(0, 0, d)]
            } else {
                vec![(0, s, d - s), (d - s, 0, s)]
            }
        })
        .collect();
    let mut combo = vec![0usize; a.ndim()];
    loop {
        let (mut src, mut dst) = (a.clone(), out.clone());
        for (ax, &c) in combo.iter().enumerate() {
            let (s, d, len) = blocks[ax][c];
            src = narrow(&src, ax, s, len, 1);
            dst = narrow(&dst, ax, d, len, 1);
        }
        dst.copy_from(&src)?;
        // Next combination (odometer over the blocks of each axis).
        let mut ax = a.ndim();
        loop {
            if ax == 0 {
                return Ok(out);
            }
            ax -= 1;
            combo[ax] += 1;
            if combo[ax] < blocks[ax].len() {
                break;
            }
            combo[ax] = 0;
        }
    }
}
routine!(
    roll_axes as "cupy.roll (several axes)",
    Manipulation,
    notes: "one strided copy per block"
);

/// `cupy.rot90(a, k=1, axes=(0, 1))`: rotated by 90 degrees `k` times in the plane of `axes`
/// (from the first axis towards the second), a view.
///
/// # Errors
/// [`Error::InvalidArgument`] (NumPy's `ValueError`) for equal axes or axes out of range.
pub fn rot90(a: &Array, k: isize, axes: [isize; 2]) -> Result<Array> {
    let op = "rot90";
    let n = a.ndim() as isize;
    // NumPy's order of checks; the difference is taken in i128 so extreme axes can't overflow.
    if axes[0] == axes[1] || (axes[0] as i128 - axes[1] as i128).abs() == n as i128 {
        return Err(Error::invalid(op, "Axes must be different."));
    }
    if axes[0] >= n || axes[0] < -n || axes[1] >= n || axes[1] < -n {
        return Err(Error::invalid(
            op,
            format!("Axes={axes:?} out of range for array of ndim={n}."),
        ));
    }
    let (a0, a1) = (
        normalize_axis(op, axes[0], a.ndim())?,
        normalize_axis(op, axes[1], a.ndim())?,
    );
    let mut perm: Vec<isize> = (0..n).collect();
    perm.swap(a0, a1);
    match k.rem_euclid(4) {
        0 => Ok(a.clone()),
        2 => Ok(reversed(&reversed(a, a0), a1)),
        1 => reversed(a, a1).transpose(&perm),
        _ => Ok(reversed(&a.transpose(&perm)?, a1)),
    }
}
routine!(rot90, Manipulation, notes: "views");
