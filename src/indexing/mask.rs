//! Mask and choice routines: `putmask`, `place` (a select kernel; `place` numbers the true
//! elements with an inclusive scan), `compress`/`extract` (`nonzero` then `take`), `choose`
//! (one kernel selecting among the broadcast choices) and `select` (a chain of `where`).

use super::take_put::IndexMode;
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::ufunc::Arg;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
use cupy_core::layout::broadcast_shapes;
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

fn shape_isize(s: &[usize]) -> Vec<isize> {
    s.iter().map(|&d| d as isize).collect()
}

/// NumPy 2's `putmask`/`place` cast their values with the 'safe' rule.
fn safe_values(op: &str, values: &Array, target: &Array) -> Result<()> {
    use cupy_core::promote::{can_cast, Casting};
    if can_cast(values.dtype(), target.dtype(), Casting::Safe) {
        return Ok(());
    }
    Err(Error::TypeError {
        op: op.into(),
        dtypes: vec![values.dtype(), target.dtype()],
        msg: format!(
            "Cannot cast array data from {} to {} according to the rule 'safe'",
            values.dtype(),
            target.dtype()
        ),
    })
}

/// `values` flattened into a contiguous array (the raw operand the select kernels read).
fn flat_values(values: &Array, target: &Array) -> Result<Array> {
    let v = values.reshape(&[-1])?;
    let v = super::detached(&v, target)?;
    if v.is_c_contiguous() {
        Ok(v)
    } else {
        v.copy()
    }
}

/// `numpy.putmask(a, mask, values)`, in place: `a.flat[n] = values.flat[n % len(values)]`
/// where `mask.flat[n]` is true (so a value is picked by the element's position, not by its
/// rank among the true elements: that is [`place`]). `mask` has `a`'s size (taken in C order
/// and as bool); `values` must cast to `a`'s dtype safely (NumPy 2). Empty `values` change
/// nothing.
///
/// # Errors
/// [`Error::InvalidArgument`] when the sizes differ; [`Error::TypeError`] when `values` do not
/// cast safely; device errors.
pub fn putmask(a: &Array, mask: &Array, values: &Array) -> Result<()> {
    let op = "putmask";
    safe_values(op, values, a)?;
    if mask.size() != a.size() {
        return Err(Error::invalid(
            op,
            "putmask: mask and data must be the same size",
        ));
    }
    if a.size() == 0 || values.size() == 0 {
        return Ok(());
    }
    let mask = super::detached(&mask.reshape(&shape_isize(a.shape()))?, a)?;
    let vals = flat_values(values, a)?;
    let value = Expr::load(
        0,
        vals.dtype(),
        Expr::binary(BinaryOp::Mod, Expr::index(), Expr::param(0, DType::Int64)),
    )
    .cast(a.dtype());
    let mut k = Kernel::map(
        "putmask",
        vec![a.dtype(), mask.dtype()],
        vec![DType::Int64],
        Expr::select(
            Expr::input(1, mask.dtype()).cast(DType::Bool),
            value,
            Expr::input(0, a.dtype()),
        ),
    );
    k.raws = vec![vals.dtype()];
    Elementwise {
        op,
        kernel: &k,
        inputs: &[a, &mask],
        raws: &[&vals],
        params: vec![Scalar::Int64(vals.size() as i64)],
        outs: vec![Some(a)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(())
}
routine!(putmask, Indexing, probe: super::gather, notes: "one select kernel with a raw load of the values");

/// `numpy.place(arr, mask, vals)`, in place: the `k`-th true element of `mask` (C order) gets
/// `vals.flat[k % len(vals)]` (`vals` must cast to `arr`'s dtype safely).
///
/// # Errors
/// [`Error::TypeError`] when `vals` do not cast safely;
/// [`Error::InvalidArgument`] when `mask`'s size differs from `arr`'s, or `vals` is empty while
/// `mask` has a true element (NumPy: "Cannot insert from an empty array!"); device errors.
pub fn place(arr: &Array, mask: &Array, vals: &Array) -> Result<()> {
    let op = "place";
    safe_values(op, vals, arr)?;
    if mask.size() != arr.size() {
        return Err(Error::invalid(
            op,
            "place: mask and data must be the same size",
        ));
    }
    if arr.size() == 0 {
        return Ok(());
    }
    let m = mask
        .reshape(&shape_isize(arr.shape()))?
        .astype(DType::Bool)?;
    if vals.size() == 0 {
        if m.any()?.item()?.is_nonzero() {
            return Err(Error::invalid(op, "Cannot insert from an empty array!"));
        }
        return Ok(());
    }
    let cs = crate::sorting::cumsum(&m)?.reshape(&shape_isize(arr.shape()))?;
    let vals = flat_values(vals, arr)?;
    let rank = Expr::binary(
        BinaryOp::Sub,
        Expr::input(2, DType::Int64),
        Expr::constant(Scalar::Int64(1)),
    );
    let value = Expr::load(
        0,
        vals.dtype(),
        Expr::binary(BinaryOp::Mod, rank, Expr::param(0, DType::Int64)),
    )
    .cast(arr.dtype());
    let mut k = Kernel::map(
        "place",
        vec![arr.dtype(), DType::Bool, DType::Int64],
        vec![DType::Int64],
        Expr::select(
            Expr::input(1, DType::Bool),
            value,
            Expr::input(0, arr.dtype()),
        ),
    );
    k.raws = vec![vals.dtype()];
    Elementwise {
        op,
        kernel: &k,
        inputs: &[arr, &m, &cs],
        raws: &[&vals],
        params: vec![Scalar::Int64(vals.size() as i64)],
        outs: vec![Some(arr)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(())
}
routine!(place, Indexing, probe: super::gather, notes: "inclusive scan of the mask + one select kernel");

/// The error of the `take` that `compress`/`extract` end in, named after `op` (the routine the
/// user called).
fn named(op: &str, e: Error) -> Error {
    match e {
        Error::IndexOutOfBounds {
            op: o,
            index,
            axis,
            size,
        } if o == "take" => Error::IndexOutOfBounds {
            op: op.into(),
            index,
            axis,
            size,
        },
        Error::AxisOutOfRange { op: o, axis, ndim } if o == "take" => Error::AxisOutOfRange {
            op: op.into(),
            axis,
            ndim,
        },
        Error::IndexError { op: o, msg } if o == "take" => Error::IndexError { op: op.into(), msg },
        e => e,
    }
}

/// `numpy.compress(condition, a, axis)`: the slices of `a` along `axis` (`None`: the
/// flattened array) where the 1-d `condition` is true (a shorter `condition` leaves the rest
/// out, as NumPy). A 0-d `a` counts as 1-d when an axis is given (NumPy's `compress`).
///
/// # Errors
/// [`Error::InvalidArgument`] unless `condition` is 1-d; [`Error::IndexOutOfBounds`] for a
/// true entry beyond the axis; [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`] (each
/// naming `compress`).
pub fn compress(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "compress";
    if condition.ndim() != 1 {
        return Err(Error::invalid(op, "condition must be a 1-d array"));
    }
    crate::array::same_device(op, [condition, a])?;
    let a = match axis {
        Some(_) if a.ndim() == 0 => a.reshape(&[1])?,
        _ => a.clone(),
    };
    let idx = super::nonzero::nonzero_rows(op, condition)?.remove(0);
    super::take_with(&a, &idx, axis).map_err(|e| named(op, e))
}
routine!(compress as "cupy.compress / ndarray.compress", Indexing, probe: super::gather, notes: "nonzero + take");

/// `numpy.extract(condition, arr)`: the elements of the flattened `arr` where the flattened
/// `condition` is true (1-d).
///
/// # Errors
/// [`Error::IndexOutOfBounds`] (naming `extract`) when `condition` has a true entry beyond
/// `arr`'s size; [`Error::DeviceMismatch`].
pub fn extract(condition: &Array, arr: &Array) -> Result<Array> {
    crate::array::same_device("extract", [condition, arr])?;
    let idx = super::nonzero::nonzero_rows("extract", &condition.reshape(&[-1])?)?.remove(0);
    super::take(arr, &idx).map_err(|e| named("extract", e))
}
routine!(extract, Indexing, probe: super::gather, notes: "nonzero + take");

/// `numpy.choose(a, choices, mode)`: `choices[a[i]][i]` with `a` (integers) and every choice
/// broadcast together; the result dtype is the choices' common type. `mode` handles entries
/// outside `0..len(choices)` (`Raise`: an error; negative entries are invalid there, as NumPy).
///
/// # Errors
/// [`Error::InvalidArgument`] for an entry outside the choices (mode `Raise`) or no choices;
/// [`Error::TypeError`] for a non-integer `a`; [`Error::ShapeMismatch`]; device errors.
pub fn choose(a: &Array, choices: &[&Array], mode: IndexMode) -> Result<Array> {
    let op = "choose";
    if !(a.dtype().is_integer() || a.dtype().is_bool()) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![a.dtype()],
            msg: format!(
                "Cannot cast array data from {} to int64 according to the rule 'safe'",
                a.dtype()
            ),
        });
    }
    let Some(first) = choices.first() else {
        return Err(Error::invalid(op, "choices must not be empty"));
    };
    let n = choices.len();
    if mode == IndexMode::Raise && a.size() > 0 {
        let lo = a.min()?.item()?.to_i128();
        let hi = a.max()?.item()?.to_i128();
        if lo < 0 || hi >= n as i128 {
            return Err(Error::invalid(op, "invalid entry in choice array"));
        }
    }
    let dt = choices
        .iter()
        .skip(1)
        .fold(first.dtype(), |d, c| promote_types(d, c.dtype()));
    if n <= CHOOSE_CHUNK {
        let mut inputs: Vec<&Array> = vec![a];
        inputs.extend(choices.iter().copied());
        return choose_chunk(a, &inputs, None, 0, dt, mode, n);
    }
    // More choices than one kernel binds: every operand broadcast to the result's shape,
    // then one kernel per chunk, each keeping the previous result where `a` picks no choice
    // of its chunk.
    let mut shape = a.shape().to_vec();
    for c in choices {
        shape = broadcast_shapes(op, &shape, c.shape())?;
    }
    let a = a.broadcast_to(&shape)?;
    let mut acc: Option<Array> = None;
    for (i, chunk) in choices.chunks(CHOOSE_CHUNK).enumerate() {
        let cs = chunk
            .iter()
            .map(|c| c.broadcast_to(&shape))
            .collect::<Result<Vec<_>>>()?;
        let mut inputs: Vec<&Array> = vec![&a];
        inputs.extend(&cs);
        let r = choose_chunk(&a, &inputs, acc.as_ref(), i * CHOOSE_CHUNK, dt, mode, n)?;
        acc = Some(r);
    }
    acc.ok_or_else(|| Error::invalid(op, "choices must not be empty"))
}

/// Choices per `choose` kernel (each is a storage binding; wgpu adapters allow few, 32 on
/// llvmpipe).
const CHOOSE_CHUNK: usize = 16;

/// One `choose` kernel over `inputs` (`a`, then choices `base..` of the `n`): the choice `a`
/// picks among them, else `prev` (an earlier chunk's result), else the last of them.
fn choose_chunk(
    a: &Array,
    inputs: &[&Array],
    prev: Option<&Array>,
    base: usize,
    dt: DType,
    mode: IndexMode,
    n: usize,
) -> Result<Array> {
    let m = inputs.len() - 1;
    let j = mode.position(Expr::input(0, a.dtype()), Expr::param(0, DType::Int64));
    let mut all: Vec<&Array> = inputs.to_vec();
    let mut e = match prev {
        Some(p) => {
            all.push(p);
            Expr::input(m + 1, dt)
        }
        None => Expr::input(m, inputs[m].dtype()).cast(dt),
    };
    let last = if prev.is_some() { m } else { m - 1 };
    for k in (0..last).rev() {
        e = Expr::select(
            Expr::binary(
                BinaryOp::Eq,
                j.clone(),
                Expr::constant(Scalar::Int64((base + k) as i64)),
            ),
            Expr::input(k + 1, inputs[k + 1].dtype()).cast(dt),
            e,
        );
    }
    let k = Kernel::map(
        "choose",
        all.iter().map(|x| x.dtype()).collect(),
        vec![DType::Int64],
        e,
    );
    Elementwise {
        op: "choose",
        kernel: &k,
        inputs: &all,
        raws: &[],
        params: vec![Scalar::Int64(n as i64)],
        outs: vec![None],
        device: None,
        shape: None,
    }
    .run_one()
}
routine!(choose as "cupy.choose / ndarray.choose", Indexing, notes: "one select kernel over the broadcast choices; modes raise, wrap, clip");

/// `numpy.select(condlist, choicelist, default)`: for each element, the choice of the first
/// true condition, else `default` (a Rust scalar or array); everything broadcast together,
/// the choices and `default` promoted together.
///
/// # Errors
/// [`Error::InvalidArgument`] for lists of different lengths or empty lists;
/// [`Error::TypeError`] for a non-bool condition; [`Error::ShapeMismatch`].
pub fn select<'v>(
    condlist: &[&Array],
    choicelist: &[&Array],
    default: impl Into<Arg<'v>>,
) -> Result<Array> {
    let op = "select";
    if condlist.len() != choicelist.len() {
        return Err(Error::invalid(
            op,
            "list of cases must be same length as list of conditions",
        ));
    }
    if condlist.is_empty() {
        return Err(Error::invalid(
            op,
            "select with an empty condition list is not possible",
        ));
    }
    for (k, c) in condlist.iter().enumerate() {
        if c.dtype() != DType::Bool {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![c.dtype()],
                msg: format!("invalid entry {k} in condlist: should be boolean ndarray"),
            });
        }
    }
    let default = default.into();
    // The result dtype: the choices and the default together (NEP 50 for a scalar default).
    let strong: Vec<DType> = choicelist.iter().map(|c| c.dtype()).collect();
    let dt = match &default {
        Arg::Array(d) => strong.iter().fold(d.dtype(), |a, &b| promote_types(a, b)),
        Arg::Typed(s) => strong.iter().fold(s.dtype(), |a, &b| promote_types(a, b)),
        Arg::Weak(w) => cupy_core::promote::result_type(op, &strong, &[*w])?,
    };
    let n = choicelist.len();
    let mut acc = crate::where_(condlist[n - 1], choicelist[n - 1], default)?;
    for k in (0..n - 1).rev() {
        acc = crate::where_(condlist[k], choicelist[k], &acc)?;
    }
    if acc.dtype() != dt {
        acc = acc.astype(dt)?;
    }
    Ok(acc)
}
routine!(select, Indexing, notes: "a chain of where kernels");

impl Array {
    /// `a.compress(condition, axis)`; see [`compress`].
    ///
    /// # Errors
    /// As [`compress`].
    pub fn compress(&self, condition: &Array, axis: Option<isize>) -> Result<Array> {
        compress(condition, self, axis)
    }

    /// `a.choose(choices, mode)` (`a` holds the choice numbers); see [`choose`].
    ///
    /// # Errors
    /// As [`choose`].
    pub fn choose(&self, choices: &[&Array], mode: IndexMode) -> Result<Array> {
        choose(self, choices, mode)
    }
}
