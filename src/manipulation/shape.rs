//! Changing the shape (CuPy's `cupy/_manipulation/shape.py`): `reshape` and `ravel` (in C, F,
//! A or K order), `flatten`, views where NumPy makes views. Each routine's registry row is the `routine!` line after it.

use crate::array::Array;
use cupy_core::error::{Error, Result};
use cupy_core::layout::Layout;

/// The index order of `reshape`, `ravel` and `flatten` (`order=`): NumPy's 'C', 'F', 'A', 'K'.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Row-major: the last index changes fastest (the default).
    #[default]
    C,
    /// Column-major (Fortran): the first index changes fastest.
    F,
    /// 'F' when the array is Fortran-contiguous (and not C-contiguous), else 'C'.
    A,
    /// The order the elements lie in memory (axes by decreasing stride magnitude); `reshape`
    /// refuses it, as NumPy does.
    K,
}

impl Array {
    /// Gives a new shape without changing the data; one axis may be -1 (inferred). A view when
    /// the strides allow (NumPy's rules), otherwise a copy (`cupy.reshape`).
    ///
    /// # Errors
    /// [`Error::InvalidReshape`] when sizes differ; [`Error::InvalidArgument`] when more than one
    /// axis is -1 or `shape` has more than 64 dimensions (NumPy's limit).
    pub fn reshape(&self, shape: &[isize]) -> Result<Array> {
        cupy_core::layout::check_ndim("reshape", shape.len())?;
        let err = || Error::InvalidReshape {
            from: self.shape().to_vec(),
            to: shape.to_vec(),
            size: self.size(),
        };
        let mut infer = None;
        let mut known = 1usize;
        for (i, &d) in shape.iter().enumerate() {
            if d == -1 {
                if infer.is_some() {
                    return Err(Error::invalid(
                        "reshape",
                        "can only specify one unknown dimension",
                    ));
                }
                infer = Some(i);
            } else if d < 0 {
                return Err(err());
            } else {
                known = known.checked_mul(d as usize).ok_or_else(err)?;
            }
        }
        let mut new: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(i) = infer {
            if known == 0 || !self.size().is_multiple_of(known) {
                return Err(err());
            }
            new[i] = self.size() / known;
        } else if known != self.size() {
            return Err(err());
        }
        match self.layout.reshape_view(&new) {
            Some(l) => Ok(self.with_layout(l)),
            None => Ok(self.copy()?.with_layout(Layout::contiguous(&new))),
        }
    }

    /// Flattens to 1-D (`ravel`): a view when contiguous, else a copy.
    ///
    /// # Errors
    /// Device errors from the copy.
    pub fn ravel(&self) -> Result<Array> {
        self.reshape(&[-1])
    }

    /// True if the elements lie in Fortran (column-major) order without gaps.
    pub fn is_f_contiguous(&self) -> bool {
        self.layout.transposed().is_c_contiguous()
    }

    /// [`Array::reshape`] with `order=`: 'F' reads and writes the elements with the first index
    /// fastest; 'A' is 'F' for a Fortran-contiguous array, else 'C'.
    ///
    /// # Errors
    /// As [`Array::reshape`]; [`Error::InvalidArgument`] for [`Order::K`] (NumPy: "order 'K' is
    /// not permitted for reshaping").
    pub fn reshape_with(&self, shape: &[isize], order: Order) -> Result<Array> {
        match self.effective_order(order) {
            Order::C => self.reshape(shape),
            Order::F => {
                let rev: Vec<isize> = shape.iter().rev().copied().collect();
                Ok(self.t().reshape(&rev)?.t())
            }
            _ => Err(Error::invalid(
                "reshape",
                "order 'K' is not permitted for reshaping",
            )),
        }
    }

    /// [`Array::ravel`] with `order=` (a view when the elements already lie in that order):
    /// 'K' takes them in memory order (axes by decreasing stride magnitude).
    ///
    /// # Errors
    /// Device errors from the copy.
    pub fn ravel_with(&self, order: Order) -> Result<Array> {
        match self.effective_order(order) {
            Order::K => {
                let mut axes: Vec<usize> = (0..self.ndim()).collect();
                let st = &self.layout.strides;
                axes.sort_by_key(|&i| std::cmp::Reverse(st[i].unsigned_abs()));
                let perm: Vec<isize> = axes.into_iter().map(|a| a as isize).collect();
                self.transpose(&perm)?.reshape(&[-1])
            }
            o => self.reshape_with(&[-1], o),
        }
    }

    /// A flattened copy (`a.flatten(order='C')`), never a view.
    ///
    /// # Errors
    /// Device errors.
    pub fn flatten(&self) -> Result<Array> {
        self.flatten_with(Order::C)
    }

    /// A flattened copy in `order` (`a.flatten(order=...)`), never a view.
    ///
    /// # Errors
    /// Device errors.
    pub fn flatten_with(&self, order: Order) -> Result<Array> {
        let r = self.ravel_with(order)?;
        if r.shares_memory_with(self) {
            r.copy()
        } else {
            Ok(r)
        }
    }

    /// 'A' resolved against the layout.
    fn effective_order(&self, order: Order) -> Order {
        match order {
            Order::A if self.is_f_contiguous() && !self.is_c_contiguous() => Order::F,
            Order::A => Order::C,
            o => o,
        }
    }
}

/// `cupy.reshape(a, shape)`.
///
/// # Errors
/// As [`Array::reshape`].
pub fn reshape(a: &Array, shape: &[isize]) -> Result<Array> {
    a.reshape(shape)
}
routine!(reshape, Manipulation, notes: "views where NumPy makes views");

/// `cupy.ravel(a)`.
///
/// # Errors
/// As [`Array::ravel`].
pub fn ravel(a: &Array) -> Result<Array> {
    a.ravel()
}
routine!(ravel, Manipulation, notes: "views where NumPy makes views");

/// `cupy.reshape(a, shape, order=...)`; see [`Array::reshape_with`].
///
/// # Errors
/// As [`Array::reshape_with`].
pub fn reshape_with(a: &Array, shape: &[isize], order: Order) -> Result<Array> {
    a.reshape_with(shape, order)
}
routine!(
    reshape_with as "cupy.reshape (order)",
    Manipulation,
    notes: "order C/F/A; views where NumPy makes views"
);

/// `cupy.ravel(a, order=...)`; see [`Array::ravel_with`].
///
/// # Errors
/// As [`Array::ravel_with`].
pub fn ravel_with(a: &Array, order: Order) -> Result<Array> {
    a.ravel_with(order)
}
routine!(
    ravel_with as "cupy.ravel (order)",
    Manipulation,
    notes: "order C/F/A/K; views where NumPy makes views"
);
routine!("ndarray.flatten", Manipulation, notes: "order C/F/A/K; always a copy");
