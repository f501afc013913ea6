//! Reductions (`sum`, `prod`, `max`, `min`, `mean`) over any set of axes, as CuPy's
//! `ReductionKernel` model: map, combine with identity, post-map (DESIGN.md).

use crate::array::{check_dtype, Array};
use cupy_core::backend::{Operand, ReductionCall};
use cupy_core::dtype::{DType, Kind};
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, ReduceKernel};
use cupy_core::layout::{merge_axes, normalize_axis, Layout};
use cupy_core::scalar::Scalar;

/// The `axis` argument of a reduction: all axes (`None` in NumPy), one axis, or several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axes {
    /// Reduce over every axis (`axis=None`).
    All,
    /// Reduce over these axes (negative counts from the end).
    Some(Vec<isize>),
}

impl Default for Axes {
    /// `axis=None`: every axis.
    fn default() -> Axes {
        Axes::All
    }
}

impl From<isize> for Axes {
    fn from(a: isize) -> Axes {
        Axes::Some(vec![a])
    }
}
impl From<i32> for Axes {
    fn from(a: i32) -> Axes {
        Axes::Some(vec![a as isize])
    }
}
impl From<usize> for Axes {
    fn from(a: usize) -> Axes {
        Axes::Some(vec![a as isize])
    }
}
impl From<&[isize]> for Axes {
    fn from(a: &[isize]) -> Axes {
        Axes::Some(a.to_vec())
    }
}
impl<const N: usize> From<[isize; N]> for Axes {
    fn from(a: [isize; N]) -> Axes {
        Axes::Some(a.to_vec())
    }
}
impl From<Vec<isize>> for Axes {
    fn from(a: Vec<isize>) -> Axes {
        Axes::Some(a)
    }
}
impl From<Option<isize>> for Axes {
    fn from(a: Option<isize>) -> Axes {
        a.map_or(Axes::All, |a| Axes::Some(vec![a]))
    }
}

/// Keyword arguments of the reductions (`sum`, `prod`, `max`, `min`, `mean`, and the
/// statistics that come after them), named as NumPy's: one options struct for the family,
/// passed to the `_with` forms.
///
/// ```no_run
/// use cupy as cp;
/// use cp::{DType, Reduce};
/// # fn main() -> cp::Result<()> {
/// let a = cp::ones(&[2, 3, 4])?;
/// let total = a.sum()?; // axis=None
/// let cols = a.sum_axis(0)?; // axis=0, keepdims=False
/// let s = cp::sum_with(&a, Reduce { axis: [0, 2].into(), keepdims: true, ..Default::default() })?;
/// assert_eq!(s.shape(), [1, 3, 1]);
/// let f32s = a.mean_with(Reduce { dtype: Some(DType::Float32), ..Default::default() })?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Reduce {
    /// The axes to reduce (`axis=`): [`Axes::All`] (the default, `axis=None`), one axis
    /// (`0.into()`, negative from the end) or several (`[0, 2].into()`).
    pub axis: Axes,
    /// Keep the reduced axes as length-1 axes (`keepdims=`), so the result broadcasts against
    /// the input.
    pub keepdims: bool,
    /// The accumulation and result dtype (`dtype=`): `sum`/`prod` of int8 with
    /// `Some(DType::Int8)` accumulate and wrap in int8, as NumPy; `mean` of integers with
    /// `Some(DType::Float32)` gives float32. `None` is NumPy's default (small integers sum in
    /// (u)int64, integers average in float64). `max`/`min` take no `dtype` (an error, as in
    /// NumPy).
    pub dtype: Option<DType>,
    /// An array to write the result into (`out=`): its shape must be the result's (with
    /// `keepdims` applied); the result is cast to its dtype under NumPy's `same_kind` rule and
    /// the returned array is `out` itself.
    pub out: Option<Array>,
    /// Delta degrees of freedom (`ddof=`) for `var`/`std`; the divisor is `N - ddof`. The
    /// reductions here (`sum`, `prod`, `max`, `min`, `mean`) do not use it.
    pub ddof: usize,
}

impl From<Axes> for Reduce {
    fn from(axis: Axes) -> Reduce {
        Reduce {
            axis,
            ..Default::default()
        }
    }
}

/// The reductions cupy-rs implements, with NumPy's dtype rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `numpy.sum`: small integers accumulate in (u)int64, float16/bfloat16 in float32.
    Sum,
    /// `numpy.prod`: as `sum`.
    Prod,
    /// `numpy.max` (`amax`): NaN propagates; no identity (empty input is an error).
    Max,
    /// `numpy.min` (`amin`).
    Min,
    /// `numpy.mean`: integers give float64; float16 accumulates in float32.
    Mean,
}

impl Reduction {
    /// Every reduction (for the API coverage table).
    pub const ALL: [Reduction; 5] = [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Max,
        Reduction::Min,
        Reduction::Mean,
    ];

    /// NumPy's name.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Prod => "prod",
            Reduction::Max => "max",
            Reduction::Min => "min",
            Reduction::Mean => "mean",
        }
    }

    /// Builds the kernel for an input dtype and the number of reduced elements, with NumPy's
    /// default accumulation and result dtypes.
    ///
    /// # Errors
    /// [`Error::TypeError`] for `max`/`min` of complex.
    pub fn kernel(self, t: DType, count: usize) -> Result<(ReduceKernel, Vec<Scalar>)> {
        self.kernel_with(t, None, count)
    }

    /// As [`Reduction::kernel`], with NumPy's `dtype=`: the input is cast to `dtype`, which is
    /// also the accumulator (float16/bfloat16 accumulate in float32) and the result.
    ///
    /// # Errors
    /// As [`Reduction::kernel`]; [`Error::InvalidArgument`] for a `dtype` given to `max`/`min`.
    pub fn kernel_with(
        self,
        t: DType,
        dtype: Option<DType>,
        count: usize,
    ) -> Result<(ReduceKernel, Vec<Scalar>)> {
        let widen = |t: DType| match t.kind() {
            Kind::Bool | Kind::Int => DType::Int64,
            Kind::UInt => DType::UInt64,
            _ => t,
        };
        let acc_of = |t: DType| match t {
            DType::Float16 | DType::BFloat16 => DType::Float32,
            t => t,
        };
        Ok(match self {
            Reduction::Sum | Reduction::Prod => {
                let out = dtype.unwrap_or_else(|| widen(t));
                let acc = acc_of(out);
                let sum = self == Reduction::Sum;
                // bool arithmetic is logical, as NumPy's add/multiply loops for `?`.
                let (op, id) = match (sum, acc.is_bool()) {
                    (true, false) => (BinaryOp::Add, Scalar::zero(acc)),
                    (false, false) => (BinaryOp::Mul, Scalar::one(acc)),
                    (true, true) => (BinaryOp::Or, Scalar::Bool(false)),
                    (false, true) => (BinaryOp::And, Scalar::Bool(true)),
                };
                (
                    ReduceKernel::simple(self.name(), t, acc, op, id, out),
                    vec![],
                )
            }
            Reduction::Max | Reduction::Min => {
                if let Some(d) = dtype {
                    return Err(Error::invalid(
                        self.name(),
                        format!(
                            "numpy.{} takes no dtype= (got {d}); cast the input with astype first",
                            self.name()
                        ),
                    ));
                }
                let max = self == Reduction::Max;
                let op = match (t.is_bool(), max) {
                    (true, true) => BinaryOp::Or,
                    (true, false) => BinaryOp::And,
                    (false, true) => BinaryOp::Max,
                    (false, false) => BinaryOp::Min,
                };
                if t.is_complex() {
                    return Err(Error::TypeError {
                        op: self.name().into(),
                        dtypes: vec![t],
                        msg: "ordering of complex numbers is not supported yet".into(),
                    });
                }
                let id = if max {
                    Scalar::min_value(t)
                } else {
                    Scalar::max_value(t)
                };
                (ReduceKernel::simple(self.name(), t, t, op, id, t), vec![])
            }
            Reduction::Mean => {
                let out = dtype.unwrap_or(if t.is_integer() || t.is_bool() {
                    DType::Float64
                } else {
                    t
                });
                let acc = acc_of(out);
                let mut k =
                    ReduceKernel::simple("mean", t, acc, BinaryOp::Add, Scalar::zero(acc), out);
                if acc.is_inexact() {
                    k.params = vec![acc];
                    k.post = Expr::binary(BinaryOp::Div, Expr::var(0, acc), Expr::param(0, acc))
                        .cast(out);
                    (k, vec![Scalar::Float64(count as f64).cast(acc)])
                } else {
                    // An integer dtype= (NumPy: the sum in that dtype, divided, cast back).
                    let f = DType::Float64;
                    k.params = vec![f];
                    k.post =
                        Expr::binary(BinaryOp::Div, Expr::var(0, acc).cast(f), Expr::param(0, f))
                            .cast(out);
                    (k, vec![Scalar::Float64(count as f64)])
                }
            }
        })
    }
}

/// Normalizes `axes` for an array of `ndim` dimensions: sorted, unique, in range.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis.
pub fn normalize_axes(op: &str, axes: &Axes, ndim: usize) -> Result<Vec<usize>> {
    match axes {
        Axes::All => Ok((0..ndim).collect()),
        Axes::Some(v) => {
            let mut out = Vec::with_capacity(v.len());
            for &a in v {
                let n = normalize_axis(op, a, ndim)?;
                if out.contains(&n) {
                    return Err(Error::invalid(op, "duplicate value in 'axis'"));
                }
                out.push(n);
            }
            out.sort_unstable();
            Ok(out)
        }
    }
}

/// The axes of a reduction over `inputs` (all of one shape): shared by [`reduce_with`] and the
/// identity-less `ReductionKernel` passes.
pub(crate) struct ReduceAxes {
    /// The inputs' device.
    pub device: crate::Device,
    /// Reduced axes (normalized, ascending).
    pub red: Vec<usize>,
    /// Kept axes (ascending).
    pub keep: Vec<usize>,
    /// Extents of the kept axes.
    pub out_shape: Vec<usize>,
    /// The result's shape (`keepdims` puts 1 where an axis was reduced).
    pub final_shape: Vec<isize>,
}

impl ReduceAxes {
    /// # Errors
    /// [`Error::InvalidArgument`] without inputs; device mismatch; [`Error::ShapeMismatch`]
    /// when the inputs' shapes differ; axis errors.
    pub(crate) fn new(op: &str, inputs: &[&Array], axes: &Axes, keepdims: bool) -> Result<Self> {
        let a = inputs
            .first()
            .ok_or_else(|| Error::invalid(op, "no input"))?;
        let device = crate::array::same_device(op, inputs.iter().copied())?;
        if let Some(x) = inputs.iter().find(|x| x.shape() != a.shape()) {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: x.shape().to_vec(),
            });
        }
        let shape = a.shape();
        let red = normalize_axes(op, axes, shape.len())?;
        let keep: Vec<usize> = (0..shape.len()).filter(|i| !red.contains(i)).collect();
        let out_shape: Vec<usize> = keep.iter().map(|&i| shape[i]).collect();
        let final_shape: Vec<isize> = (0..shape.len())
            .filter(|i| keepdims || !red.contains(i))
            .map(|i| {
                if red.contains(&i) {
                    1
                } else {
                    shape[i] as isize
                }
            })
            .collect();
        Ok(ReduceAxes {
            device,
            red,
            keep,
            out_shape,
            final_shape,
        })
    }
}

/// Runs a reduction kernel over `axes` of the kernel's inputs (all of one shape).
///
/// # Errors
/// Axis errors, dtype refusals, device errors.
pub fn reduce_with(
    op: &str,
    kernel: &ReduceKernel,
    params: Vec<Scalar>,
    inputs: &[&Array],
    axes: &Axes,
    keepdims: bool,
) -> Result<Array> {
    let ReduceAxes {
        device,
        red,
        keep,
        out_shape,
        final_shape,
    } = ReduceAxes::new(op, inputs, axes, keepdims)?;
    let a = inputs[0];
    let red_shape: Vec<usize> = red.iter().map(|&i| a.shape()[i]).collect();
    for d in kernel.dtypes() {
        check_dtype(&device, op, d)?;
    }
    let out = Array::empty_on(&device, &out_shape, kernel.output)?;
    let finish = |o: Array| -> Result<Array> { o.reshape(&final_shape) };
    if out.size() == 0 {
        return finish(out);
    }
    // Split every input layout into its kept part and its reduced part, and simplify each.
    let part = |l: &Layout, axes: &[usize]| Layout {
        shape: axes.iter().map(|&i| l.shape[i]).collect(),
        strides: axes.iter().map(|&i| l.strides[i]).collect(),
        offset: l.offset,
    };
    let mut keep_layouts: Vec<Layout> = inputs.iter().map(|x| part(&x.layout, &keep)).collect();
    keep_layouts.push(out.layout.clone());
    let (m_out, m_keep) = merge_axes(&out_shape, &keep_layouts);
    let red_layouts: Vec<Layout> = inputs.iter().map(|x| part(&x.layout, &red)).collect();
    let (m_red, m_red_l) = if red_shape.is_empty() {
        (vec![], red_layouts)
    } else {
        merge_axes(&red_shape, &red_layouts)
    };
    let in_layouts: Vec<Layout> = (0..inputs.len())
        .map(|k| {
            let mut shape = m_out.clone();
            shape.extend(&m_red);
            let mut strides = m_keep[k].strides.clone();
            strides.extend(&m_red_l[k].strides);
            Layout {
                shape,
                strides,
                offset: inputs[k].layout.offset,
            }
        })
        .collect();
    let call = ReductionCall {
        kernel,
        out_shape: m_out.clone(),
        reduce_shape: m_red,
        inputs: inputs
            .iter()
            .zip(in_layouts)
            .map(|(x, l)| Operand {
                buffer: &x.buffer,
                layout: l,
            })
            .collect(),
        output: Operand {
            buffer: &out.buffer,
            layout: m_keep[inputs.len()].clone(),
        },
        params,
    };
    device.backend().reduce(&call)?;
    finish(out)
}

/// Applies a built-in reduction with NumPy's keyword arguments ([`Reduce`]):
/// `numpy.sum(a, axis=..., keepdims=..., dtype=..., out=...)` and friends.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for `max`/`min` of an empty selection
/// ("zero-size array to reduction operation maximum which has no identity"), for `dtype=` on
/// `max`/`min`, or an `out` of the wrong shape; [`Error::TypeError`] for an `out` dtype the
/// result cannot be cast to (`same_kind`); dtype and device errors.
pub fn reduce(r: Reduction, a: &Array, opts: &Reduce) -> Result<Array> {
    let axes = &opts.axis;
    let red = normalize_axes(r.name(), axes, a.ndim())?;
    let count: usize = red.iter().map(|&i| a.shape()[i]).product();
    if count == 0 && matches!(r, Reduction::Max | Reduction::Min) {
        let name = if r == Reduction::Max {
            "maximum"
        } else {
            "minimum"
        };
        return Err(Error::invalid(
            r.name(),
            format!("zero-size array to reduction operation {name} which has no identity"),
        ));
    }
    let (kernel, params) = r.kernel_with(a.dtype(), opts.dtype, count)?;
    if let Some(out) = &opts.out {
        let shape: Vec<usize> = (0..a.ndim())
            .filter(|i| opts.keepdims || !red.contains(i))
            .map(|i| if red.contains(&i) { 1 } else { a.shape()[i] })
            .collect();
        if out.shape() != shape.as_slice() {
            return Err(Error::invalid(
                r.name(),
                format!(
                    "output parameter has shape {:?}, the reduction of shape {:?} gives {shape:?}",
                    out.shape(),
                    a.shape()
                ),
            ));
        }
        let res = reduce_with(r.name(), &kernel, params, &[a], axes, opts.keepdims)?;
        out.copy_from(&res).map_err(|e| match e {
            Error::TypeError { dtypes, .. } => Error::TypeError {
                op: r.name().into(),
                dtypes,
                msg: format!(
                    "cannot cast the {} result to the out array's {} with casting rule 'same_kind'",
                    res.dtype(),
                    out.dtype()
                ),
            },
            e => e,
        })?;
        return Ok(out.clone());
    }
    reduce_with(r.name(), &kernel, params, &[a], axes, opts.keepdims)
}

macro_rules! reductions {
    ($($r:ident, $name:literal, $f:ident, $axis:ident, $with:ident, $fwith:ident, $what:literal;)*) => {
        impl Array {$(
            #[doc = concat!("`a.", $name, "()`: ", $what, " over every axis, a 0-d array.")]
            ///
            /// # Errors
            /// As [`reduce`].
            pub fn $f(&self) -> Result<Array> {
                reduce(Reduction::$r, self, &Reduce::default())
            }
            #[doc = concat!("`a.", $name, "(axis=axis)`: ", $what, " over `axis` (an `isize`, `[0, 2]`, ...), keepdims false.")]
            ///
            /// # Errors
            /// As [`reduce`].
            pub fn $axis(&self, axis: impl Into<Axes>) -> Result<Array> {
                reduce(Reduction::$r, self, &Reduce::from(axis.into()))
            }
            #[doc = concat!("`a.", $name, "(axis=..., keepdims=..., dtype=..., out=...)`: see [`Reduce`].")]
            ///
            /// # Errors
            /// As [`reduce`].
            pub fn $with(&self, opts: impl Into<Reduce>) -> Result<Array> {
                reduce(Reduction::$r, self, &opts.into())
            }
        )*}
        $(
            #[doc = concat!("`numpy.", $name, "(a)`: ", $what, " over every axis, a 0-d array.")]
            ///
            /// # Errors
            /// As [`reduce`].
            pub fn $f(a: &Array) -> Result<Array> {
                reduce(Reduction::$r, a, &Reduce::default())
            }
            #[doc = concat!("`numpy.", $name, "(a, axis=..., keepdims=..., dtype=..., out=...)`: see [`Reduce`].")]
            ///
            /// # Errors
            /// As [`reduce`].
            pub fn $fwith(a: &Array, opts: impl Into<Reduce>) -> Result<Array> {
                reduce(Reduction::$r, a, &opts.into())
            }
        )*
    };
}

reductions! {
    Sum, "sum", sum, sum_axis, sum_with, sum_with,
        "the sum (small integers accumulate in (u)int64, float16 in float32)";
    Prod, "prod", prod, prod_axis, prod_with, prod_with, "the product (dtypes as `sum`)";
    Max, "max", max, max_axis, max_with, max_with, "the maximum (`amax`; NaN propagates)";
    Min, "min", min, min_axis, min_with, min_with, "the minimum (`amin`; NaN propagates)";
    Mean, "mean", mean, mean_axis, mean_with, mean_with,
        "the arithmetic mean (integers give float64)";
}
