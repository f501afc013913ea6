//! Arithmetic and reductions of CSR matrices (other formats: `tocsr()` first): `+ -` with
//! sparse and dense operands, elementwise `multiply`, scalar multiply/divide, `power`,
//! `sum mean max min` with an axis, `diagonal`, `count_nonzero`. Sparse results are canonical
//! CSR without stored zeros, as SciPy's `csr_binop_csr` makes them.

use super::base::{cast, read_i64s, sub, value_dtype, SparseMatrix};
use super::compressed::Compressed;
use super::kernels::Seg;
use super::CsrMatrix;
use crate::array::Array;
use crate::indexing::{flatnonzero, take};
use crate::manipulation::join::concatenate;
use crate::math::ufunc::Arg;
use crate::sorting::lexsort;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::promote::WeakScalar;

/// The axis of a sparse reduction: `None` (every entry), `Some(0)` (down the columns: one value
/// per column), `Some(1)` (along the rows); -2 and -1 count from the end.
pub type Axis = Option<isize>;

fn same_shape(op: &str, a: (usize, usize), b: (usize, usize)) -> Result<()> {
    if a != b {
        return Err(super::shapes_error(
            op,
            ("A", &[a.0, a.1]),
            ("B", &[b.0, b.1]),
            "the shapes must be equal (inconsistent shapes)",
        ));
    }
    Ok(())
}

fn norm_axis(op: &str, axis: isize) -> Result<usize> {
    match axis {
        0 | -2 => Ok(0),
        1 | -1 => Ok(1),
        _ => Err(Error::AxisOutOfRange {
            op: op.into(),
            axis,
            ndim: 2,
        }),
    }
}

/// The operand of a scalar op (`A * s`, `A / s`, `A.power(p)`) must be a scalar or a 0-d
/// array: a longer array would pair elementwise with the stored values (whatever their
/// positions) whenever its length happened to broadcast against `nnz`.
fn scalar_operand(op: &str, s: &Arg<'_>) -> Result<()> {
    match s {
        Arg::Array(a) if a.ndim() > 0 => Err(Error::invalid(
            op,
            format!(
                "the operand must be a scalar or a 0-d array, got an array of shape {} \
                 (multiply_dense takes arrays)",
                super::py_shape(a.shape())
            ),
        )),
        _ => Ok(()),
    }
}

routine!("cupyx.scipy.sparse arithmetic (+ - multiply power scalar ops, sum mean max min diagonal count_nonzero)", Sparse, probe: super::probe, notes: "CSR methods (other formats: tocsr); sum/mean/max/min with axis None/0/1 return 1-d arrays");

impl CsrMatrix {
    fn combine(&self, other: &dyn SparseMatrix, negate: bool, op: &str) -> Result<CsrMatrix> {
        same_shape(op, self.shape(), other.shape())?;
        let t = cupy_core::promote::promote_types(self.dtype(), other.dtype());
        let (a, b) = (self.tocoo()?, other.tocoo()?);
        let it = super::base::wider_index(a.index_dtype(), b.index_dtype());
        let bd = cast(b.data(), t)?;
        let bd = if negate { bd.negative()? } else { bd };
        let data = concatenate(&[&cast(a.data(), t)?, &bd], 0)?;
        let row = concatenate(&[&cast(a.row(), it)?, &cast(b.row(), it)?], 0)?;
        let col = concatenate(&[&cast(a.col(), it)?, &cast(b.col(), it)?], 0)?;
        let (m, n) = self.shape();
        let c = Compressed::from_triplets(&row, &col, &data, m, n, it, true)?;
        Ok(CsrMatrix {
            c: c.without_zeros()?,
        })
    }

    /// `A + B` for a sparse `B` of the same shape (canonical CSR, zeros dropped).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming both shapes; device errors.
    pub fn add(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        self.combine(other, false, "sparse +")
    }

    /// `A - B` for a sparse `B` of the same shape.
    ///
    /// # Errors
    /// As [`CsrMatrix::add`].
    pub fn sub(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        self.combine(other, true, "sparse -")
    }

    /// `A + X` for a dense `X` (broadcast to the shape): a dense array, as SciPy's.
    ///
    /// # Errors
    /// Broadcasting errors naming the shapes; device errors.
    pub fn add_dense(&self, x: &Array) -> Result<Array> {
        &self.toarray()? + x
    }

    /// `A - X` for a dense `X`: a dense array.
    ///
    /// # Errors
    /// As [`CsrMatrix::add_dense`].
    pub fn sub_dense(&self, x: &Array) -> Result<Array> {
        &self.toarray()? - x
    }

    /// `-A`.
    ///
    /// # Errors
    /// Device errors.
    pub fn neg(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: super::map_data(&self.c, |d| d.negative())?,
        })
    }

    /// `A.multiply(B)` for a sparse `B`: the elementwise product (canonical CSR, zeros dropped).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming both shapes; device errors.
    pub fn multiply(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        let op = "multiply";
        same_shape(op, self.shape(), other.shape())?;
        let (m, n) = self.shape();
        let t = cupy_core::promote::promote_types(self.dtype(), other.dtype());
        let a = self.canonical()?.tocoo()?;
        let b = other.tocsr()?.canonical()?.tocoo()?;
        let it = super::base::wider_index(a.index_dtype(), b.index_dtype());
        let total = a.nnz() + b.nnz();
        if a.nnz() == 0 || b.nnz() == 0 {
            return CsrMatrix::empty(self.device(), (m, n), t);
        }
        let row = concatenate(&[&cast(a.row(), it)?, &cast(b.row(), it)?], 0)?;
        let col = concatenate(&[&cast(a.col(), it)?, &cast(b.col(), it)?], 0)?;
        let data = concatenate(&[&cast(a.data(), t)?, &cast(b.data(), t)?], 0)?;
        let perm = lexsort(&[&col, &row])?;
        let (r, c, d) = (take(&row, &perm)?, take(&col, &perm)?, take(&data, &perm)?);
        // Both inputs are canonical: a key appears at most twice, once per operand.
        let s = |x: &Array, k: usize| sub(x, k, total - 1);
        let both = s(&r, 1)
            .equal(&s(&r, 0))?
            .logical_and(&s(&c, 1).equal(&s(&c, 0))?)?;
        let at = flatnonzero(&both)?;
        let next = (&at + 1i64)?;
        let prod = (&take(&d, &at)? * &take(&d, &next)?)?;
        let cc =
            Compressed::from_triplets(&take(&r, &at)?, &take(&c, &at)?, &prod, m, n, it, false)?;
        Ok(CsrMatrix {
            c: cc.without_zeros()?,
        })
    }

    /// `A.multiply(X)` for a dense `X` broadcast to `A`'s shape: the sparse matrix of
    /// `A[i, j] * X[i, j]` at `A`'s entries (SciPy returns it sparse too).
    ///
    /// # Errors
    /// Broadcasting errors naming the shapes; device errors.
    pub fn multiply_dense(&self, x: &Array) -> Result<CsrMatrix> {
        let (m, n) = self.shape();
        let xb = crate::manipulation::dims::broadcast_to(x, &[m, n]).map_err(|_| {
            Error::invalid(
                "multiply",
                format!(
                    "A has shape ({m}, {n}) but the dense operand has shape {} (inconsistent shapes)",
                    super::py_shape(x.shape())
                ),
            )
        })?;
        let a = self.canonical()?;
        if a.nnz() == 0 {
            let t =
                cupy_core::promote::promote_types(a.dtype(), value_dtype("multiply", x.dtype())?);
            return CsrMatrix::empty(self.device(), (m, n), t);
        }
        let rows = cast(&a.c.major_indices()?, DType::Int64)?;
        let flat = (&(&rows * n as i64)? + &cast(&a.c.indices, DType::Int64)?)?;
        let vals = take(&xb, &flat)?;
        let c = super::map_data(&a.c, |d| d * &vals)?;
        Ok(CsrMatrix {
            c: c.without_zeros()?,
        })
    }

    /// `A * s` for a scalar (or 0-d array) `s`, NumPy's promotion of the values with `s`.
    ///
    /// # Errors
    /// Dtype errors.
    pub fn mul_scalar<'a>(&self, s: impl Into<Arg<'a>>) -> Result<CsrMatrix> {
        let s = s.into();
        scalar_operand("sparse * scalar", &s)?;
        Ok(CsrMatrix {
            c: super::map_data(&self.c, |d| d.multiply(s.clone()))?,
        })
    }

    /// `A / s` for a scalar `s` (true division of the stored values).
    ///
    /// # Errors
    /// Dtype errors.
    pub fn div_scalar<'a>(&self, s: impl Into<Arg<'a>>) -> Result<CsrMatrix> {
        let s = s.into();
        scalar_operand("sparse / scalar", &s)?;
        Ok(CsrMatrix {
            c: super::map_data(&self.c, |d| d.true_divide(s.clone()))?,
        })
    }

    /// `A.power(p)`: the entries raised to `p` (duplicates summed first, as SciPy's; implicit
    /// zeros stay zero).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `p == 0` (SciPy's NotImplementedError: the result
    /// would be dense) and for an array `p` that is not 0-d; dtype errors.
    pub fn power<'a>(&self, p: impl Into<Arg<'a>>) -> Result<CsrMatrix> {
        let p = p.into();
        let op = "sparse power";
        scalar_operand(op, &p)?;
        let zero = match &p {
            Arg::Weak(w) => match *w {
                WeakScalar::Bool(b) => !b,
                WeakScalar::Int(i) => i == 0,
                WeakScalar::Float(f) => f == 0.0,
                WeakScalar::Complex(c) => c.re == 0.0 && c.im == 0.0,
            },
            Arg::Typed(t) => !t.is_nonzero(),
            Arg::Array(a) => !a.item()?.is_nonzero(),
        };
        if zero {
            return Err(Error::invalid(
                op,
                format!(
                    "zero power is not supported as it would densify the matrix (shape {}); \
                     use ones(A.shape, dtype=A.dtype) for this case",
                    super::py_shape(&[self.shape().0, self.shape().1])
                ),
            ));
        }
        let a = self.canonical()?;
        Ok(CsrMatrix {
            c: super::map_data(&a.c, |d| d.power(p.clone()))?,
        })
    }

    /// `A.sum(axis)`: `None` a 0-d array, `Some(0)` the column sums (length `cols`), `Some(1)` the
    /// row sums (length `rows`); 1-d as SciPy's sparse arrays (`csr_matrix` returns
    /// `np.matrix` shapes).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; device errors.
    pub fn sum(&self, axis: Axis) -> Result<Array> {
        match axis {
            None => {
                if self.nnz() == 0 {
                    Array::zeros_on(self.device(), &[], self.dtype())
                } else {
                    self.c.data.sum()
                }
            }
            Some(a) => match norm_axis("sum", a)? {
                1 => self.c.line_reduce(Seg::Sum),
                _ => self.c.swapped()?.line_reduce(Seg::Sum),
            },
        }
    }

    /// `A.mean(axis)`: [`CsrMatrix::sum`] divided by the number of entries summed (implicit
    /// zeros counted).
    ///
    /// # Errors
    /// As [`CsrMatrix::sum`].
    pub fn mean(&self, axis: Axis) -> Result<Array> {
        let (m, n) = self.shape();
        let count = match axis {
            None => m * n,
            Some(a) => {
                if norm_axis("mean", a)? == 0 {
                    m
                } else {
                    n
                }
            }
        };
        self.sum(axis)?.true_divide(count as f64)
    }

    fn extreme(&self, axis: Axis, max: bool) -> Result<Array> {
        let op = if max { "max" } else { "min" };
        if self.dtype().is_complex() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![self.dtype()],
                msg: "complex sparse matrices have no ordering".into(),
            });
        }
        let (m, n) = self.shape();
        let seg = if max { Seg::Max } else { Seg::Min };
        match axis {
            None => {
                if m * n == 0 {
                    return Err(Error::invalid(
                        op,
                        format!("zero-size array to reduction operation {op}imum which has no identity (shape ({m}, {n}))"),
                    ));
                }
                let a = self.canonical()?;
                let zero = Array::zeros_on(self.device(), &[], self.dtype())?;
                if a.nnz() == 0 {
                    return Ok(zero);
                }
                let v = if max {
                    a.c.data.max()?
                } else {
                    a.c.data.min()?
                };
                if a.nnz() < m * n {
                    if max {
                        v.maximum(&zero)
                    } else {
                        v.minimum(&zero)
                    }
                } else {
                    Ok(v)
                }
            }
            Some(ax) => {
                let ax = norm_axis(op, ax)?;
                if (ax == 1 && n == 0) || (ax == 0 && m == 0) {
                    return Err(Error::invalid(
                        op,
                        format!("zero-size array to reduction operation {op}imum which has no identity (shape ({m}, {n}), axis {ax})"),
                    ));
                }
                if ax == 1 {
                    self.c.line_reduce(seg)
                } else {
                    self.c.swapped()?.line_reduce(seg)
                }
            }
        }
    }

    /// `A.max(axis)`: implicit zeros take part (SciPy); NaN propagates.
    ///
    /// # Errors
    /// [`Error::TypeError`] for complex values; [`Error::InvalidArgument`] for an empty
    /// reduction (SciPy's ValueError); [`Error::AxisOutOfRange`].
    pub fn max(&self, axis: Axis) -> Result<Array> {
        self.extreme(axis, true)
    }

    /// `A.min(axis)`: see [`CsrMatrix::max`].
    ///
    /// # Errors
    /// As [`CsrMatrix::max`].
    pub fn min(&self, axis: Axis) -> Result<Array> {
        self.extreme(axis, false)
    }

    /// `A.diagonal(k)`: diagonal `k` (duplicates summed), dense, of length
    /// `max(0, min(rows + min(k, 0), cols - max(k, 0)))`.
    ///
    /// # Errors
    /// Device errors.
    pub fn diagonal(&self, k: isize) -> Result<Array> {
        let (m, n) = (self.shape().0 as isize, self.shape().1 as isize);
        let len = (m + k.min(0)).min(n - k.max(0)).max(0) as usize;
        let out = Array::zeros_on(self.device(), &[len], self.dtype())?;
        if len == 0 || self.nnz() == 0 {
            return Ok(out);
        }
        let a = self.canonical()?;
        let rows = cast(&a.c.major_indices()?, DType::Int64)?;
        let cols = cast(&a.c.indices, DType::Int64)?;
        let on = (&cols - &rows)?.equal(k as i64)?;
        let at = flatnonzero(&on)?;
        if at.size() > 0 {
            let pos = (&take(&rows, &at)? - (-k).max(0) as i64)?;
            crate::indexing::put(&out, &pos, &take(&a.c.data, &at)?)?;
        }
        Ok(out)
    }

    /// `A.count_nonzero()`: the nonzero entries after summing duplicates (one read).
    ///
    /// # Errors
    /// Device errors.
    pub fn count_nonzero(&self) -> Result<usize> {
        let a = self.canonical()?;
        if a.nnz() == 0 {
            return Ok(0);
        }
        Ok(read_i64s(&[&a.c.data.count_nonzero()?])?[0] as usize)
    }
}
