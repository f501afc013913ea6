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

    /// Builds the kernel for an input dtype and the number of reduced elements.
    pub fn kernel(self, t: DType, count: usize) -> Result<(ReduceKernel, Vec<Scalar>)> {
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
                let out = widen(t);
                let acc = acc_of(out);
                let (op, id) = if self == Reduction::Sum {
                    (BinaryOp::Add, Scalar::zero(acc))
                } else {
                    (BinaryOp::Mul, Scalar::one(acc))
                };
                (
                    ReduceKernel::simple(self.name(), t, acc, op, id, out),
                    vec![],
                )
            }
            Reduction::Max | Reduction::Min => {
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
                let out = if t.is_integer() || t.is_bool() {
                    DType::Float64
                } else {
                    t
                };
                let acc = acc_of(out);
                let mut k =
                    ReduceKernel::simple("mean", t, acc, BinaryOp::Add, Scalar::zero(acc), out);
                k.params = vec![acc];
                k.post =
                    Expr::binary(BinaryOp::Div, Expr::var(0, acc), Expr::param(0, acc)).cast(out);
                (k, vec![Scalar::Float64(count as f64).cast(acc)])
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

/// Applies a built-in reduction (`numpy.sum(a, axis=..., keepdims=...)` and friends).
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for `max`/`min` of an empty selection
/// ("zero-size array to reduction operation maximum which has no identity"); dtype and device errors.
pub fn reduce(r: Reduction, a: &Array, axes: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    let axes = axes.into();
    let red = normalize_axes(r.name(), &axes, a.ndim())?;
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
    let (kernel, params) = r.kernel(a.dtype(), count)?;
    reduce_with(r.name(), &kernel, params, &[a], &axes, keepdims)
}

impl Array {
    /// Sum of all elements (`a.sum()`), a 0-d array.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn sum(&self) -> Result<Array> {
        reduce(Reduction::Sum, self, Axes::All, false)
    }
    /// `a.sum(axis=axis, keepdims=keepdims)`.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn sum_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        reduce(Reduction::Sum, self, axis, keepdims)
    }
    /// Product of all elements (`a.prod()`).
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn prod(&self) -> Result<Array> {
        reduce(Reduction::Prod, self, Axes::All, false)
    }
    /// `a.prod(axis=axis, keepdims=keepdims)`.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn prod_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        reduce(Reduction::Prod, self, axis, keepdims)
    }
    /// Maximum (`a.max()`); NaN propagates.
    ///
    /// # Errors
    /// As [`reduce`] (an empty array has no maximum).
    pub fn max(&self) -> Result<Array> {
        reduce(Reduction::Max, self, Axes::All, false)
    }
    /// `a.max(axis=axis, keepdims=keepdims)`.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn max_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        reduce(Reduction::Max, self, axis, keepdims)
    }
    /// Minimum (`a.min()`); NaN propagates.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn min(&self) -> Result<Array> {
        reduce(Reduction::Min, self, Axes::All, false)
    }
    /// `a.min(axis=axis, keepdims=keepdims)`.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn min_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        reduce(Reduction::Min, self, axis, keepdims)
    }
    /// Arithmetic mean (`a.mean()`); integers give float64.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn mean(&self) -> Result<Array> {
        reduce(Reduction::Mean, self, Axes::All, false)
    }
    /// `a.mean(axis=axis, keepdims=keepdims)`.
    ///
    /// # Errors
    /// As [`reduce`].
    pub fn mean_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
        reduce(Reduction::Mean, self, axis, keepdims)
    }
}

/// `numpy.sum(a, axis, keepdims)`. See [`reduce`].
///
/// # Errors
/// As [`reduce`].
pub fn sum(a: &Array, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    reduce(Reduction::Sum, a, axis, keepdims)
}
/// `numpy.prod(a, axis, keepdims)`.
///
/// # Errors
/// As [`reduce`].
pub fn prod(a: &Array, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    reduce(Reduction::Prod, a, axis, keepdims)
}
/// `numpy.max(a, axis, keepdims)` (`amax`).
///
/// # Errors
/// As [`reduce`].
pub fn max(a: &Array, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    reduce(Reduction::Max, a, axis, keepdims)
}
/// `numpy.min(a, axis, keepdims)` (`amin`).
///
/// # Errors
/// As [`reduce`].
pub fn min(a: &Array, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    reduce(Reduction::Min, a, axis, keepdims)
}
/// `numpy.mean(a, axis, keepdims)`.
///
/// # Errors
/// As [`reduce`].
pub fn mean(a: &Array, axis: impl Into<Axes>, keepdims: bool) -> Result<Array> {
    reduce(Reduction::Mean, a, axis, keepdims)
}
