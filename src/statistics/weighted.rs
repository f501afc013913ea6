//! `quantile`/`percentile` with `weights=` (NumPy 2.0's weighted `method='inverted_cdf'`),
//! composed of array ops that every backend has: the rows sorted stably with their
//! permutation, the weights gathered along, their running sums in float64 (normalised by the
//! row's total and cast to the probabilities' dtype, as NumPy's `cdf`), and per probability
//! `q` the first position whose `cdf >= q`, counted as the number of positions with `cdf < q`
//! (NumPy's `searchsorted(cdf, q, side='left')`, capped at the last position), leading zero
//! weights skipped (NumPy sets their zero `cdf` to -1).

use super::quantile::QuantileMethod;
use super::reduction::Axes;
use crate::array::Array;
use crate::sorting::sort::{sort_impl, Want};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::scalar::Scalar;

/// The weighted quantile problem after `order_stat`'s common checks: `a` (real), its reduced
/// axes `red` (ascending), the probabilities `qs` (in `[0, 1]`, rounded to `g`) of shape
/// `q_shape`, and the result's shape without the `q` axes (`kept_shape`, keepdims applied).
pub(super) struct Weighted<'a> {
    pub op: &'a str,
    pub a: &'a Array,
    pub weights: &'a Array,
    pub method: QuantileMethod,
    pub axis: &'a Axes,
    pub red: &'a [usize],
    pub qs: &'a [f64],
    pub g: DType,
    pub q_shape: &'a [usize],
    pub kept_shape: &'a [usize],
    pub out: Option<&'a Array>,
}

impl Weighted<'_> {
    /// NumPy's checks of the weights (`_weights_are_valid` and the sign), then the quantiles.
    pub(super) fn run(&self) -> Result<Array> {
        let op = self.op;
        if self.method != QuantileMethod::InvertedCdf {
            return Err(Error::invalid(
                op,
                format!(
                    "Only method 'inverted_cdf' supports weights. Got: {}.",
                    self.method.name()
                ),
            ));
        }
        let w = self.broadcast_weights()?;
        if crate::any(&crate::less(&w, 0)?)?.item()?.is_nonzero() {
            return Err(Error::invalid(op, "Weights must be non-negative."));
        }
        let r = self.quantiles(&w)?;
        match self.out {
            Some(o) => self.write(&r, o),
            None => Ok(r),
        }
    }

    /// The weights broadcast to `a`'s shape: `a`'s own shape, or (with `axis` given) the
    /// lengths of the axes in the order `axis` names them.
    fn broadcast_weights(&self) -> Result<Array> {
        let (a, w) = (self.a, self.weights);
        crate::array::same_device(self.op, [a, w])?;
        super::averages::weights_along(self.op, a, w, self.axis)?.broadcast_to(a.shape())
    }

    /// The quantiles of the rows (a new array of `a`'s dtype, shape `q_shape + kept_shape`).
    fn quantiles(&self, w: &Array) -> Result<Array> {
        let (a, red) = (self.a, self.red);
        let v = a.dtype();
        let keep: Vec<usize> = (0..a.ndim()).filter(|i| !red.contains(i)).collect();
        let n: usize = red.iter().map(|&i| a.shape()[i]).product();
        let batch: usize = keep.iter().map(|&i| a.shape()[i]).product();
        let shape: Vec<isize> = self
            .q_shape
            .iter()
            .chain(self.kept_shape)
            .map(|&d| d as isize)
            .collect();
        if n == 0 {
            // NumPy's `cdf[-1]` of an empty axis
            return Err(Error::IndexOutOfBounds {
                op: self.op.into(),
                index: -1,
                axis: 0,
                size: 0,
            });
        }
        let k = self.qs.len();
        if batch == 0 || k == 0 {
            let full: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            return Array::empty_on(a.device(), &full, v);
        }
        // rows [batch, n]: the kept axes first, the reduced ones flattened last
        let perm: Vec<isize> = keep.iter().chain(red).map(|&i| i as isize).collect();
        let rows2 = [batch as isize, n as isize];
        let rows = a.transpose(&perm)?.reshape(&rows2)?;
        let wrows = w.transpose(&perm)?.reshape(&rows2)?;
        let (sorted, idx) = sort_impl(&rows, Some(-1), Want::Both)?;
        let idx = idx.ok_or_else(|| Error::invalid(self.op, "the sort returned no permutation"))?;
        let ws = crate::take_along_axis(&wrows, &idx, Some(-1))?;
        let cdf = crate::cumsum_with(
            &ws,
            crate::Scan {
                axis: Some(-1),
                dtype: Some(DType::Float64),
            },
        )?;
        let total = cdf.slice(&crate::s![.., (n - 1)..n])?;
        let cdf = crate::true_divide(&cdf, &total)?;
        let cdf = if self.g == DType::Float64 {
            cdf
        } else {
            cdf.astype(self.g)?
        };
        // leading zero weights: a zero cdf is below every q (NumPy's -1)
        let zero = crate::equal(&cdf, Scalar::zero(self.g))?;
        let last = Scalar::Int64(n as i64 - 1);
        let mut picked = Vec::with_capacity(k);
        for &q in self.qs {
            let below = crate::less(&cdf, Scalar::Float64(q).cast(self.g))?;
            let count = crate::logical_or(&below, &zero)?.sum_axis(-1isize)?;
            let at = crate::minimum(&count, last)?.reshape(&[batch as isize, 1])?;
            picked
                .push(crate::take_along_axis(&sorted, &at, Some(-1))?.reshape(&[batch as isize])?);
        }
        let picked_refs: Vec<&Array> = picked.iter().collect();
        let mut r = crate::stack(&picked_refs, 0)?;
        if v.is_float() {
            // a row holding NaN (sorted last) gives that NaN, as NumPy's `slices_having_nans`
            let tail = sorted
                .slice(&crate::s![.., (n - 1)..n])?
                .reshape(&[1, batch as isize])?;
            r = crate::where_(&crate::isnan(&tail)?, &tail, &r)?;
        }
        r.reshape(&shape)
    }

    /// NumPy's `result = out; result[...] = ...`: `out` of exactly the result's shape takes the
    /// values cast unsafely, except a NaN of a row holding one, which NumPy's `copyto` writes
    /// under `same_kind` (an integer `out` of float data with a NaN row is its TypeError).
    fn write(&self, r: &Array, o: &Array) -> Result<Array> {
        if o.shape() != r.shape() {
            return Err(Error::invalid(
                self.op,
                format!(
                    "Wrong shape of argument 'out', shape={:?} is required; got shape={:?}.",
                    r.shape(),
                    o.shape()
                ),
            ));
        }
        let v = r.dtype();
        if v.is_float()
            && !cupy_core::promote::can_cast_same_kind(v, o.dtype())
            && crate::any(&crate::isnan(r)?)?.item()?.is_nonzero()
        {
            return Err(Error::TypeError {
                op: self.op.into(),
                dtypes: vec![v, o.dtype()],
                msg: format!(
                    "a slice holding NaN: cannot cast its NaN from {v} to out's {} according to \
                     the rule 'same_kind'",
                    o.dtype()
                ),
            });
        }
        let r = if o.dtype() == v {
            r.clone()
        } else {
            r.astype(o.dtype())?
        };
        o.copy_from(&r)?;
        Ok(o.clone())
    }
}
