//! Indexing of the host builders `lil_matrix` and `dok_matrix`, on their host lists / map (no
//! device work), as SciPy's: `A[i]` (a `1 x n` matrix), `A[a:b:s]`, `A[:, j]`, `A[:, a:b:s]`
//! and both slices at once (`A[a:b:s, c:d:t]`), each a matrix of the same format; `A[i, j]` is
//! `get`. (SciPy's `bsr_matrix` has no indexing: `tocsr()` first, as there.)

use super::dok::DokMatrix;
use super::index::{slice_indices, wrap};
use super::lil::LilMatrix;
use super::SparseMatrix;
use cupy_core::error::Result;
use cupy_core::scalar::Scalar;

routine!("cupyx.scipy.sparse lil/dok indexing (A[i], A[a:b:s], A[:, j], A[:, a:b:s], A[i, j])", Sparse, probe: super::probe, notes: "host: on the builders' lists / map");

/// A slice `(start, stop, step)` of one axis, Python's rules.
type Slice = (Option<isize>, Option<isize>, isize);

/// The positions one axis keeps: `start + k * step` for `k < count`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick {
    start: isize,
    step: isize,
    count: usize,
}

impl Pick {
    /// A slice of an axis of `len` (Python's rules).
    fn slice(
        op: &str,
        len: usize,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<Pick> {
        let (start, step, count) = slice_indices(op, len, start, stop, step)?;
        Ok(Pick { start, step, count })
    }
    /// The slice `s` of an axis of `len`, or the whole axis.
    fn slice_or_all(op: &str, len: usize, s: Option<Slice>) -> Result<Pick> {
        match s {
            Some((start, stop, step)) => Pick::slice(op, len, start, stop, step),
            None => Ok(Pick::all(len)),
        }
    }
    /// The single index `i` (negative counts from the end).
    fn one(op: &str, i: isize, len: usize, what: &str) -> Result<Pick> {
        Ok(Pick {
            start: wrap(op, i, len, what)? as isize,
            step: 1,
            count: 1,
        })
    }
    /// The whole axis.
    fn all(len: usize) -> Pick {
        Pick {
            start: 0,
            step: 1,
            count: len,
        }
    }
    /// The source position of output position `k`.
    fn at(&self, k: usize) -> usize {
        (self.start + k as isize * self.step) as usize
    }
    /// The output position of source position `c`, if kept.
    fn pos(&self, c: usize) -> Option<usize> {
        let d = c as isize - self.start;
        if d % self.step != 0 {
            return None;
        }
        let k = d / self.step;
        (k >= 0 && (k as usize) < self.count).then_some(k as usize)
    }
}

/// The indexing methods, the same for both builders.
macro_rules! host_indexing {
    ($ty:ident, $name:literal) => {
        impl $ty {
            #[doc = concat!("`A[i]`: row `i` (negative counts from the end) as a `1 x cols` ", $name, ".")]
            ///
            /// # Errors
            /// [`cupy_core::error::Error::IndexOutOfBounds`] naming the row and the number of
            /// rows.
            pub fn row(&self, i: isize) -> Result<$ty> {
                let (m, n) = self.shape();
                let r = Pick::one(concat!($name, "[i]"), i, m, "row")?;
                Ok(self.select(r, Pick::all(n)))
            }

            /// `A[start:stop:step]`: the rows of a slice (Python's rules: `None` ends,
            /// negatives count from the end, any nonzero step).
            ///
            /// # Errors
            /// [`cupy_core::error::Error::InvalidArgument`] for a zero step.
            pub fn row_slice(
                &self,
                start: Option<isize>,
                stop: Option<isize>,
                step: isize,
            ) -> Result<$ty> {
                self.slices(concat!($name, "[a:b:s]"), Some((start, stop, step)), None)
            }

            /// `A[:, j]`: column `j` as a `rows x 1` matrix.
            ///
            /// # Errors
            /// [`cupy_core::error::Error::IndexOutOfBounds`] naming the column and the number
            /// of columns.
            pub fn col(&self, j: isize) -> Result<$ty> {
                let (m, n) = self.shape();
                let c = Pick::one(concat!($name, "[:, j]"), j, n, "column")?;
                Ok(self.select(Pick::all(m), c))
            }

            /// `A[:, start:stop:step]`: the columns of a slice.
            ///
            /// # Errors
            /// As `row_slice`.
            pub fn col_slice(
                &self,
                start: Option<isize>,
                stop: Option<isize>,
                step: isize,
            ) -> Result<$ty> {
                self.slices(concat!($name, "[:, a:b:s]"), None, Some((start, stop, step)))
            }

            /// `A[a:b:s, c:d:t]`: a slice of rows and one of columns, each
            /// `(start, stop, step)`.
            ///
            /// # Errors
            /// As `row_slice`.
            pub fn slice(
                &self,
                rows: (Option<isize>, Option<isize>, isize),
                cols: (Option<isize>, Option<isize>, isize),
            ) -> Result<$ty> {
                self.slices(concat!($name, "[a:b:s, c:d:t]"), Some(rows), Some(cols))
            }

            /// The rows and columns of the slices given (all of an axis without one).
            fn slices(&self, op: &str, rows: Option<Slice>, cols: Option<Slice>) -> Result<$ty> {
                let (m, n) = self.shape();
                let r = Pick::slice_or_all(op, m, rows)?;
                let c = Pick::slice_or_all(op, n, cols)?;
                Ok(self.select(r, c))
            }
        }
    };
}

host_indexing!(LilMatrix, "lil_matrix");
host_indexing!(DokMatrix, "dok_matrix");

impl LilMatrix {
    /// The rows `r` and columns `c` kept (sorted columns in each row).
    fn select(&self, r: Pick, c: Pick) -> LilMatrix {
        let mut out = LilMatrix::empty(self.device(), (r.count, c.count), self.dtype());
        let (rows, data) = out.lists_mut();
        for k in 0..r.count {
            let src = r.at(k);
            let mut e: Vec<(usize, Scalar)> = self.rows()[src]
                .iter()
                .zip(&self.data()[src])
                .filter_map(|(&j, &v)| c.pos(j).map(|p| (p, v)))
                .collect();
            if c.step < 0 {
                e.reverse();
            }
            (rows[k], data[k]) = e.into_iter().unzip();
        }
        out
    }
}

impl DokMatrix {
    /// The rows `r` and columns `c` kept.
    fn select(&self, r: Pick, c: Pick) -> DokMatrix {
        let mut out = DokMatrix::empty(self.device(), (r.count, c.count), self.dtype());
        for ((i, j), v) in self.items() {
            if let (Some(p), Some(q)) = (r.pos(i), c.pos(j)) {
                out.insert_stored(p, q, v);
            }
        }
        out
    }
}
