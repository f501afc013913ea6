//! `a[index]` (reading, [`Array::get`]), `a[index] = value` ([`Array::set`]) and
//! `a[index] op= value` ([`Array::index_add`] and the others), with NumPy's rules.
//!
//! A basic index is a view; an advanced one is one gather kernel (raw loads at the addresses
//! the index arrays give) or one scatter kernel (raw stores). `a[mask] = value` with a mask
//! over leading axes and a value that broadcasts to the remaining axes is one elementwise
//! select, with no count read.

use super::index::{resolve, Plan, Resolved};
use crate::array::index::{AsIndexItem, IndexItem};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::math::ufunc::{apply, Arg, Ufunc};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::layout::Layout;
use cupy_core::promote::WeakScalar;
use cupy_core::scalar::Scalar;

/// `j < 0 ? j + n : j` as `Int64`, comparing in the index's own dtype (llvmpipe mis-compares
/// narrow negative integers widened to 64 bits, FACTS.md).
pub(crate) fn wrap_native(j: Expr, n: Expr) -> Expr {
    let t = j.ty;
    let j64 = j.clone().cast(DType::Int64);
    if t.is_unsigned_integer() || t == DType::Bool {
        return j64;
    }
    Expr::select(
        Expr::binary(BinaryOp::Lt, j, Expr::constant(Scalar::zero(t))),
        Expr::binary(BinaryOp::Add, j64.clone(), n),
        j64,
    )
}

/// The whole buffer of `a` as a contiguous 1-D array (a raw operand addressed by strides).
pub(crate) fn whole_buffer(a: &Array) -> Result<Array> {
    Array::from_parts(
        a.device().clone(),
        a.buffer().clone(),
        Layout::contiguous(&[a.buffer().len()]),
    )
}

/// The buffer address of the result element at the current index of a launch over
/// `plan.shape`, where input `k` is index array `k`; the parameters it reads; and, with
/// `check`, for `plan.unchecked` arrays, the condition that one of them is out of range (their
/// positions replaced by 0 there, [`super::checked_position`]).
fn address(plan: &Plan, check: bool) -> (Expr, Vec<Scalar>, Option<Expr>) {
    let p = |k: usize| Expr::param(k, DType::Int64);
    let mut params = vec![Scalar::Int64(plan.view.layout().offset as i64)];
    let mut addr = p(0);
    let nb = plan.bshape.len();
    let vs = &plan.view.layout().strides;
    for (k, ax) in plan.rest_axes().into_iter().enumerate() {
        let pos = if k < plan.insert { k } else { k + nb };
        let ext = plan.shape[pos];
        if ext <= 1 {
            continue;
        }
        let div: usize = plan.shape[pos + 1..].iter().product();
        let base = params.len();
        params.extend([
            Scalar::Int64(div as i64),
            Scalar::Int64(ext as i64),
            Scalar::Int64(vs[ax] as i64),
        ]);
        let c = Expr::binary(
            BinaryOp::Mod,
            Expr::binary(BinaryOp::Div, Expr::index(), p(base)),
            p(base + 1),
        );
        addr = Expr::binary(
            BinaryOp::Add,
            addr,
            Expr::binary(BinaryOp::Mul, c, p(base + 2)),
        );
    }
    let mut bad = None;
    for (k, (ax, x)) in plan.adv.iter().enumerate() {
        let base = params.len();
        params.extend([
            Scalar::Int64(plan.view.shape()[*ax] as i64),
            Scalar::Int64(vs[*ax] as i64),
        ]);
        let x = Expr::input(k, x.dtype());
        let j = if check && plan.unchecked.iter().any(|u| u.0 == k) {
            let (j, b) = super::checked_position(x, p(base));
            bad = Some(match bad {
                None => b,
                Some(a) => Expr::binary(BinaryOp::Or, a, b),
            });
            j
        } else {
            wrap_native(x, p(base))
        };
        addr = Expr::binary(
            BinaryOp::Add,
            addr,
            Expr::binary(BinaryOp::Mul, j, p(base + 1)),
        );
    }
    (addr, params, bad)
}

/// The index arrays of `plan` viewed over its result shape.
fn index_inputs(plan: &Plan) -> Result<Vec<Array>> {
    (0..plan.adv.len())
        .map(|k| plan.index_over_result(k))
        .collect()
}

/// The gather of an advanced index: a new array of `plan.shape`. Index arrays left unchecked
/// by [`resolve`] are checked by the gather kernel itself: an out-of-range entry sets a flag
/// (read once afterwards) and loads element 0 instead; only the new array was written, so the
/// error leaves every user array as it was.
pub(crate) fn gather_plan(op: &str, plan: &Plan) -> Result<Array> {
    let a = &plan.view;
    let out = Array::empty_on(a.device(), &plan.shape, a.dtype())?;
    let check_all = || -> Result<()> {
        for &(k, n, ax) in &plan.unchecked {
            super::check_bounds(op, &plan.adv[k].1, n, ax)?;
        }
        Ok(())
    };
    if out.size() == 0 {
        check_all()?;
        return Ok(out);
    }
    if gather_into(op, plan, &out, true)? {
        // Some index is out of range: the reduction's check names it (NumPy's IndexError);
        // should it find none, the unchecked gather runs again.
        check_all()?;
        gather_into(op, plan, &out, false)?;
    }
    Ok(out)
}

/// The gather kernel of [`gather_plan`] into `out`; with `check`, the bounds of
/// `plan.unchecked` too: true if one of them was out of range.
fn gather_into(op: &str, plan: &Plan, out: &Array, check: bool) -> Result<bool> {
    let a = &plan.view;
    let inputs = index_inputs(plan)?;
    let (addr, params, bad) = address(plan, check);
    let mut k = Kernel::map(
        "getitem",
        inputs.iter().map(|x| x.dtype()).collect(),
        vec![DType::Int64; params.len()],
        Expr::load(0, a.dtype(), addr),
    );
    k.raws = vec![a.dtype()];
    let src = whole_buffer(a)?;
    let mut raws = vec![&src];
    let flag = match bad {
        Some(bad) => Some(super::arm_flag(op, &mut k, bad, a)?),
        None => None,
    };
    raws.extend(flag.as_ref());
    let refs: Vec<&Array> = inputs.iter().collect();
    Elementwise {
        op,
        kernel: &k,
        inputs: &refs,
        raws: &raws,
        params,
        outs: vec![Some(out)],
        device: Some(a.device()),
        shape: Some(&plan.shape),
    }
    .run()?;
    flag.as_ref().map_or(Ok(false), super::flag_set)
}

/// `value` with leading length-1 axes dropped until it has at most `ndim` axes (NumPy's
/// assignment does this), broadcast to `shape`.
fn value_to(op: &str, value: &Array, shape: &[usize]) -> Result<Array> {
    let mut v = value.clone();
    while v.ndim() > shape.len() && v.shape()[0] == 1 {
        v = v.slice(&[cupy_core::layout::SliceItem::Index(0)])?;
    }
    v.broadcast_to(shape).map_err(|_| Error::ShapeMismatch {
        op: format!("{op} (value array could not be broadcast to the indexing result)"),
        lhs: value.shape().to_vec(),
        rhs: shape.to_vec(),
    })
}

/// The scatter of an advanced index: `view[plan] = value` (broadcast, cast to the dtype).
pub(crate) fn scatter_plan(op: &str, plan: &Plan, value: &Array) -> Result<()> {
    let a = &plan.view;
    // nothing is written before every index is checked
    for &(k, n, ax) in &plan.unchecked {
        super::check_bounds(op, &plan.adv[k].1, n, ax)?;
    }
    let v = value_to(op, value, &plan.shape)?;
    if v.size() == 0 {
        return Ok(());
    }
    let v = super::detached(&v, a)?;
    // Index arrays that live in the target's buffer are read before anything is written.
    let mut inputs = index_inputs(plan)?
        .iter()
        .map(|x| super::detached(x, a))
        .collect::<Result<Vec<_>>>()?;
    let nidx = inputs.len();
    inputs.push(v);
    let (addr, params, _) = address(plan, true);
    let k = Kernel {
        name: "setitem".into(),
        inputs: inputs.iter().map(|x| x.dtype()).collect(),
        outputs: vec![],
        raws: vec![a.dtype()],
        params: vec![DType::Int64; params.len()],
        locals: vec![],
        body: vec![Stmt::StoreRaw {
            raw: 0,
            index: addr,
            value: Expr::input(nidx, inputs[nidx].dtype()).cast(a.dtype()),
        }],
    };
    let dst = whole_buffer(a)?;
    let refs: Vec<&Array> = inputs.iter().collect();
    Elementwise {
        op,
        kernel: &k,
        inputs: &refs,
        raws: &[&dst],
        params,
        outs: vec![],
        device: Some(a.device()),
        shape: Some(&plan.shape),
    }
    .run()?;
    Ok(())
}

/// `dst[...] = value` with NumPy's assignment casting ('unsafe'), `value` broadcast.
fn assign(op: &str, dst: &Array, value: &Array) -> Result<()> {
    let v = value_to(op, value, dst.shape())?;
    let k = Kernel::map(
        "assign",
        vec![v.dtype()],
        vec![],
        Expr::input(0, v.dtype()).cast(dst.dtype()),
    );
    Elementwise {
        op,
        kernel: &k,
        inputs: &[&v],
        raws: &[],
        params: vec![],
        outs: vec![Some(dst)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(())
}

/// A value argument as an array on `a`'s device (a Rust scalar becomes a 0-d array of `a`'s
/// dtype, refused if it does not fit, as NumPy 2 refuses `uint8_array[0] = 300`).
pub(crate) fn value_array(op: &str, a: &Array, value: Arg<'_>) -> Result<Array> {
    match value_scalar(op, a, &value)? {
        Some(s) => Array::full_on(a.device(), &[], s, s.dtype()),
        None => match value {
            Arg::Array(v) => Ok(v.clone()),
            _ => unreachable!("value_scalar takes every scalar"),
        },
    }
}

/// The scalar of an assignment's value (`None` for an array): a weak scalar in `a`'s dtype, a
/// typed one as given (cast in the kernel).
fn value_scalar(op: &str, a: &Array, value: &Arg<'_>) -> Result<Option<Scalar>> {
    match *value {
        Arg::Array(_) => Ok(None),
        // NumPy: `int_array[i] = nan` is "cannot convert float NaN to integer" (and likewise
        // infinities), not the 0 an unsafe cast gives.
        Arg::Weak(WeakScalar::Float(f)) if !f.is_finite() && a.dtype().is_integer() => {
            Err(Error::invalid(
                op,
                format!(
                    "cannot convert float {} to integer (assignment into a {} array)",
                    if f.is_nan() { "NaN" } else { "infinity" },
                    a.dtype()
                ),
            ))
        }
        Arg::Weak(w) => w.to_scalar(op, a.dtype()).map(Some),
        Arg::Typed(s) => Ok(Some(s)),
    }
}

/// NumPy refuses to write through a broadcast view.
fn check_writeable(op: &str, a: &Array) -> Result<()> {
    let l = a.layout();
    if l.shape
        .iter()
        .zip(&l.strides)
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(Error::invalid(
            op,
            "assignment destination is read-only (a broadcast view)",
        ));
    }
    Ok(())
}

/// `a[mask] = value` for a single boolean mask over `a`'s leading axes and a value that
/// broadcasts to the remaining axes: one select kernel. `None` when the index is not of that
/// form.
fn set_by_mask(op: &str, a: &Array, items: &[IndexItem], value: &Array) -> Result<Option<()>> {
    let Some(m) = leading_mask(a, items) else {
        return Ok(None);
    };
    if value.ndim() > a.ndim() - m.ndim() {
        return Ok(None);
    }
    select_into(op, a, m, Fill::Array(value)).map(Some)
}

/// What [`select_into`] writes: an array broadcast to the target, or one scalar.
enum Fill<'v> {
    Array(&'v Array),
    Scalar(Scalar),
}

/// The mask of an index that is one boolean array over `a`'s leading axes.
fn leading_mask<'i>(a: &Array, items: &'i [IndexItem]) -> Option<&'i Array> {
    let [IndexItem::Array(m)] = items else {
        return None;
    };
    let k = m.ndim();
    if m.dtype() != DType::Bool || k == 0 || k > a.ndim() || m.shape() != &a.shape()[..k] {
        return None;
    }
    Some(m)
}

/// `a = where(m, value, a)` with the leading mask `m` broadcast over `a`'s other axes and
/// `value` broadcast to `a`'s shape, cast to `a`'s dtype: one kernel.
fn select_into(op: &str, a: &Array, m: &Array, value: Fill<'_>) -> Result<()> {
    let k = m.ndim();
    let rest = a.ndim() - k;
    let mut shape = m.shape().to_vec();
    shape.extend(vec![1; rest]);
    let mut strides = m.layout().strides.clone();
    strides.extend(vec![0; rest]);
    let mask = m
        .with_layout(Layout {
            shape,
            strides,
            offset: m.layout().offset,
        })
        .broadcast_to(a.shape())?;
    let mask = super::detached(&mask, a)?;
    // The fill: input 2 (the value broadcast to `a`), or parameter 0 (the scalar).
    let (v, params, fill) = match value {
        Fill::Array(value) => {
            let v = value_to(op, value, a.shape())?;
            let fill = Expr::input(2, v.dtype());
            (Some(v), vec![], fill)
        }
        Fill::Scalar(s) => (None, vec![s], Expr::param(0, s.dtype())),
    };
    let mut dtypes = vec![a.dtype(), DType::Bool];
    dtypes.extend(v.as_ref().map(|v| v.dtype()));
    let kernel = Kernel::map(
        "setitem_mask",
        dtypes,
        params.iter().map(|s| s.dtype()).collect(),
        Expr::select(
            Expr::input(1, DType::Bool),
            fill.cast(a.dtype()),
            Expr::input(0, a.dtype()),
        ),
    );
    let mut inputs = vec![a, &mask];
    inputs.extend(v.as_ref());
    Elementwise {
        op,
        kernel: &kernel,
        inputs: &inputs,
        raws: &[],
        params,
        outs: vec![Some(a)],
        device: None,
        shape: None,
    }
    .run()?;
    Ok(())
}

impl Array {
    /// NumPy's `a[index]`: integers, slices with steps, `NEW_AXIS`, `ELLIPSIS`, integer arrays
    /// of any integer dtype (broadcast together; negative entries count from the end), boolean
    /// arrays and boolean scalars, mixed in one index built with [`crate::s!`]:
    /// `a.get(&s![&rows, 1..;2, NEW_AXIS])` is `a[rows, 1::2, None]`. A basic index gives a
    /// view, as NumPy; an advanced one a new array, with the broadcast index axes where NumPy
    /// puts them (in place of the advanced items when they are adjacent, first otherwise; an
    /// integer next to an array counts as advanced). A boolean array costs one read of its
    /// count (as CuPy's).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] for an integer (or integer-array entry) outside its axis;
    /// [`Error::IndexError`] for too many indices, a boolean index of the wrong shape, index
    /// arrays that do not broadcast, a float index array, two ellipses;
    /// [`Error::InvalidArgument`] for a zero step; device errors.
    pub fn get<I: AsIndexItem>(&self, index: &[I]) -> Result<Array> {
        self.get_as("getitem", index)
    }

    /// [`Array::get`] with its errors naming `op` (the routine built on it).
    pub(crate) fn get_as<I: AsIndexItem>(&self, op: &str, index: &[I]) -> Result<Array> {
        match resolve(op, self, index, true)? {
            Resolved::Basic(v) => Ok(v),
            Resolved::Advanced(plan) => gather_plan(op, &plan),
        }
    }

    /// NumPy's `a[index] = value`, in place: `value` (an array or a Rust scalar) broadcast to
    /// the shape `a.get(index)` has and cast to `a`'s dtype as NumPy's assignment casts
    /// ('unsafe'; a Rust integer that does not fit is refused). Repeated integer-array entries:
    /// NumPy keeps the last value written; the cpu backend too, GPU backends one of them.
    /// Nothing is written when the index or value is invalid.
    ///
    /// # Errors
    /// As [`Array::get`]; [`Error::ShapeMismatch`] when the value does not broadcast;
    /// [`Error::InvalidArgument`] for a broadcast (read-only) `a`; [`Error::ScalarOverflow`].
    pub fn set<'v, I: AsIndexItem>(&self, index: &[I], value: impl Into<Arg<'v>>) -> Result<()> {
        self.set_as("setitem", index, value)
    }

    /// [`Array::set`] with its errors naming `op` (the routine built on it).
    pub(crate) fn set_as<'v, I: AsIndexItem>(
        &self,
        op: &str,
        index: &[I],
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        check_writeable(op, self)?;
        let value = value.into();
        let items: Vec<IndexItem> = index.iter().map(|i| i.to_index_item()).collect();
        if let (Some(m), Some(s)) = (leading_mask(self, &items), value_scalar(op, self, &value)?) {
            // `a[mask] = scalar`: the scalar as a kernel parameter, so every operand stays
            // contiguous (a broadcast 0-d operand would make the kernel strided)
            return select_into(op, self, m, Fill::Scalar(s));
        }
        let value = value_array(op, self, value)?;
        if set_by_mask(op, self, &items, &value)?.is_some() {
            return Ok(());
        }
        match resolve(op, self, &items, false)? {
            Resolved::Basic(v) => assign(op, &v, &value),
            Resolved::Advanced(plan) => scatter_plan(op, &plan, &value),
        }
    }

    /// NumPy's `a[index] = ufunc(a[index], value)` (the in-place operators `a[idx] += v` and
    /// the like), in place: the selected elements are read once, combined with `value`
    /// (broadcast) into `a`'s dtype (casting 'same_kind', as the in-place operator), and
    /// written back. A repeated index is therefore applied **once** (the last write wins), unlike
    /// [`crate::add_at`], which applies every occurrence.
    ///
    /// # Errors
    /// As [`Array::set`]; the ufunc's dtype errors ([`Error::TypeError`] when the result does not
    /// cast to `a`'s dtype).
    pub fn index_update<'v, I: AsIndexItem>(
        &self,
        index: &[I],
        ufunc: &Ufunc,
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        let op = "setitem";
        check_writeable(op, self)?;
        let value = value.into();
        let items: Vec<IndexItem> = index.iter().map(|i| i.to_index_item()).collect();
        if let Some(m) = leading_mask(self, &items) {
            // `a[mask] op= v` as `a = where(mask, op(a, v), a)`: no count read. Only when `v`
            // broadcasts to `a`'s trailing axes (the selection's rows), as `set` requires.
            let fits = match &value {
                Arg::Array(v) => v.ndim() <= self.ndim() - m.ndim(),
                _ => true,
            };
            if fits {
                let tmp = Array::empty_on(self.device(), self.shape(), self.dtype())?;
                apply(ufunc, &[Arg::Array(self), value], Some(&tmp))?;
                return select_into(op, self, m, Fill::Array(&tmp));
            }
        }
        match resolve(op, self, &items, false)? {
            Resolved::Basic(v) => {
                apply(ufunc, &[Arg::Array(&v), value], Some(&v))?;
                Ok(())
            }
            Resolved::Advanced(plan) => {
                let tmp = gather_plan(op, &plan)?;
                apply(ufunc, &[Arg::Array(&tmp), value], Some(&tmp))?;
                scatter_plan(op, &plan, &tmp)
            }
        }
    }

    /// `a[index] += value` (repeated indices applied once); see [`Array::index_update`].
    ///
    /// # Errors
    /// As [`Array::index_update`].
    pub fn index_add<'v, I: AsIndexItem>(
        &self,
        index: &[I],
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        self.index_update(index, ufunc("add")?, value)
    }

    /// `a[index] -= value`; see [`Array::index_update`].
    ///
    /// # Errors
    /// As [`Array::index_update`].
    pub fn index_sub<'v, I: AsIndexItem>(
        &self,
        index: &[I],
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        self.index_update(index, ufunc("subtract")?, value)
    }

    /// `a[index] *= value`; see [`Array::index_update`].
    ///
    /// # Errors
    /// As [`Array::index_update`].
    pub fn index_mul<'v, I: AsIndexItem>(
        &self,
        index: &[I],
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        self.index_update(index, ufunc("multiply")?, value)
    }

    /// `a[index] /= value` (true division: an integer `a` is refused, as NumPy's same_kind
    /// rule refuses it); see [`Array::index_update`].
    ///
    /// # Errors
    /// As [`Array::index_update`].
    pub fn index_div<'v, I: AsIndexItem>(
        &self,
        index: &[I],
        value: impl Into<Arg<'v>>,
    ) -> Result<()> {
        self.index_update(index, ufunc("true_divide")?, value)
    }
}

fn ufunc(name: &str) -> Result<&'static Ufunc> {
    crate::math::ufunc(name).ok_or_else(|| Error::invalid("setitem", format!("no ufunc {name}")))
}

routine!(
    "ndarray.__getitem__ (advanced)",
    Indexing,
    probe: super::gather,
    notes: "Array::get: one index type (s![]) mixing ints, slices, newaxis, ellipsis, integer and boolean arrays; one gather kernel; a mask reads its count once"
);
routine!(
    "ndarray.__setitem__",
    Indexing,
    probe: |t| Some(super::scatter(t, None)),
    notes: "Array::set: one scatter kernel (a leading mask with a trailing-broadcast value: one select kernel); repeated indices: last value on cpu, one of them on GPUs"
);
routine!(
    "ndarray.__iadd__ etc. on an index",
    Indexing,
    probe: |t| Some(super::scatter(t, None)),
    notes: "Array::index_add/index_sub/index_mul/index_div/index_update: gather, ufunc, scatter; a repeated index applied once, as NumPy's a[idx] += v"
);
