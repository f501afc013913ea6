//! `cupyx.scipy.sparse` (SciPy's `scipy.sparse`): CSR, CSC, COO, DIA and BSR matrices whose
//! arrays (`data`, `indices`/`indptr` or `row`/`col`, `offsets`) are cupy [`Array`]s on one
//! device, so every backend (cpu, wgpu, cuda, hip) runs them; LIL and DOK (SciPy's, not
//! CuPy's) are host-side builders that convert to the others.
//!
//! - Values: float32, float64, complex64, complex128 (bool and integer data are stored as
//!   float64; docs/differences.md). Indices: int32 or int64, kept as given (SciPy may narrow
//!   int64 index arrays whose values fit int32); conversions widen to int64 only past 2^31.
//! - Construction: [`csr_matrix`] and the others take a dense array, `(data, (row, col))`,
//!   `(data, indices, indptr)` or a shape ([`SparseInput`]), validated as SciPy's
//!   `check_format(full_check=True)`: bad input is an `Err` naming the op and the shapes.
//! - Conversions and canonical form (`tocsr tocsc tocoo todia toarray`, `sum_duplicates`,
//!   `sort_indices`, `eliminate_zeros`) are composed of frontend array ops (lexsort, take,
//!   searchsorted, flatnonzero, put) and the row kernels of `kernels.rs`; `@` with a dense
//!   vector or matrix is one IR kernel each (CSR, a row per invocation).
//! - [`SparseMatrix`] is the trait every format implements; [`Sparse`] holds a matrix of any
//!   format (returned by the constructors that take a [`Format`]).
//!
//! Results that depend on the data (the number of unique entries, the longest row, validation
//! of given index arrays) are read back: one small read each, as CuPy does.

mod arith;
mod base;
mod blocks;
mod bsr;
mod compressed;
mod construct;
mod coo;
mod csc;
mod csr;
mod dia;
mod dok;
mod index;
mod io;
mod kernels;
mod library;
mod lil;
mod lildok_index;
pub mod linalg;
mod minmax;
mod products;
mod random;
mod setdiag;

pub use arith::Axis;
pub use base::{Format, Sparse, SparseMatrix};
pub use blocks::{block_diag, bmat, kronsum};
pub use bsr::{bsr_array, bsr_matrix, BsrMatrix};
pub use construct::{
    diags, diags_with, eye, eye_with, find, hstack, identity, kron, spdiags, tril, triu, vstack,
    Diags, SpEye,
};
pub use coo::{coo_array, coo_matrix, CooMatrix};
pub use csc::{csc_array, csc_matrix, CscMatrix};
pub use csr::{csr_array, csr_matrix, CsrMatrix};
pub use dia::{dia_array, dia_matrix, DiaMatrix};
pub use dok::{dok_array, dok_matrix, DokMatrix};
pub use lil::{lil_array, lil_matrix, LilMatrix};

pub use io::{load_npz, save_npz};
pub use kernels::sparse_kernels;
pub use library::{library, vendor_calls, with_library, Library};
pub use random::{rand, random, random_from, random_with, SpRandom};

use crate::array::Array;
use crate::registry::Need;
use compressed::Compressed;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// The first argument of SciPy's sparse constructors (`arg1`).
#[derive(Clone, Copy, Debug)]
pub enum SparseInput<'a> {
    /// A dense 2-d array (its nonzeros are stored).
    Dense(&'a Array),
    /// `(data, (row, col))`: triplets, duplicates allowed.
    Coo {
        /// Values.
        data: &'a Array,
        /// Row indices.
        row: &'a Array,
        /// Column indices.
        col: &'a Array,
    },
    /// `(data, indices, indptr)`: the compressed form of the target format.
    Compressed {
        /// Values.
        data: &'a Array,
        /// Minor indices (columns for CSR, rows for CSC).
        indices: &'a Array,
        /// Line starts.
        indptr: &'a Array,
    },
    /// `(M, N)`: an empty float64 matrix on the current device.
    Shape(usize, usize),
}

impl<'a> From<&'a Array> for SparseInput<'a> {
    fn from(a: &'a Array) -> Self {
        SparseInput::Dense(a)
    }
}
impl<'a> From<(&'a Array, (&'a Array, &'a Array))> for SparseInput<'a> {
    fn from((data, (row, col)): (&'a Array, (&'a Array, &'a Array))) -> Self {
        SparseInput::Coo { data, row, col }
    }
}
impl<'a> From<(&'a Array, &'a Array, &'a Array)> for SparseInput<'a> {
    fn from((data, indices, indptr): (&'a Array, &'a Array, &'a Array)) -> Self {
        SparseInput::Compressed {
            data,
            indices,
            indptr,
        }
    }
}
impl From<(usize, usize)> for SparseInput<'_> {
    fn from((m, n): (usize, usize)) -> Self {
        SparseInput::Shape(m, n)
    }
}

/// The registry probe of the sparse routines: the SpMV kernel of the dtype (int32 indices).
pub(crate) fn probe(t: DType) -> Option<Need> {
    matches!(
        t,
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128
    )
    .then(|| Need::Kernel(kernels::spmv(t, DType::Int32)))
}

/// A shape as Python prints a tuple: `(4, 4)`, `(3,)`, `()`.
pub(crate) fn py_shape(s: &[usize]) -> String {
    match s {
        [n] => format!("({n},)"),
        _ => {
            let d: Vec<String> = s.iter().map(|d| d.to_string()).collect();
            format!("({})", d.join(", "))
        }
    }
}

/// SciPy's `ValueError` for two operands whose sizes do not fit together (not a broadcast
/// failure), as [`Error::InvalidArgument`] naming the op, both operands and their shapes, and
/// what was needed: "cg: A has shape (4, 4) but b has shape (3,); b must have 4 elements".
pub(crate) fn shapes_error(
    op: &str,
    (a, sa): (&str, &[usize]),
    (b, sb): (&str, &[usize]),
    need: impl std::fmt::Display,
) -> Error {
    Error::invalid(
        op,
        format!(
            "{a} has shape {} but {b} has shape {}; {need}",
            py_shape(sa),
            py_shape(sb)
        ),
    )
}

/// SciPy's `ValueError` for an operand that must be square, as [`Error::InvalidArgument`]:
/// "cg: A must be a square matrix, but its shape is (3, 4)".
pub(crate) fn not_square(op: &str, name: &str, (r, c): (usize, usize)) -> Error {
    Error::invalid(
        op,
        format!(
            "{name} must be a square matrix, but its shape is {}",
            py_shape(&[r, c])
        ),
    )
}

/// A given `shape` must equal the one the input implies.
fn check_shape(op: &str, got: (usize, usize), want: Option<(usize, usize)>) -> Result<()> {
    match want {
        Some(w) if w != got => Err(Error::invalid(
            op,
            format!(
                "shape={} does not match the shape {} of the input",
                py_shape(&[w.0, w.1]),
                py_shape(&[got.0, got.1])
            ),
        )),
        _ => Ok(()),
    }
}

/// SciPy's inferred minor dimension of `(data, indices, indptr)` without a shape:
/// `max(indices) + 1` (0 when empty). One read.
fn infer_minor(op: &str, indices: &Array) -> Result<usize> {
    if indices.size() == 0 {
        return Ok(0);
    }
    let v = base::read_i64s(&[&indices.max()?])?[0];
    if v < 0 {
        return Err(Error::invalid(op, "index values must be >= 0"));
    }
    Ok(v as usize + 1)
}

/// The same structure with `f(data)` as values.
fn map_data(c: &Compressed, f: impl Fn(&Array) -> Result<Array>) -> Result<Compressed> {
    let data = f(&c.data)?;
    let out = Compressed::new_unchecked(
        data,
        c.indices.clone(),
        c.indptr.clone(),
        c.major,
        c.minor,
        c.canonical.get().copied(),
    );
    if let Some(&m) = c.max_len.get() {
        let _ = out.max_len.set(m);
    }
    Ok(out)
}

/// NumPy's result dtype of a product of sparse values of `t` and the dense `x` (a sparse value
/// dtype, so integer `x` promotes into it).
fn product_dtype(op: &str, t: DType, x: &Array) -> Result<DType> {
    let r = cupy_core::promote::promote_types(t, base::value_dtype(op, x.dtype())?);
    base::value_dtype(op, r)
}

/// `x` must be `[cols]` or `[cols, k]` for a matrix of `shape`.
fn check_matvec(op: &str, shape: (usize, usize), x: &Array) -> Result<()> {
    let ok = match x.ndim() {
        1 | 2 => x.shape()[0] == shape.1,
        _ => {
            return Err(Error::invalid(
                op,
                format!(
                    "the dense operand must be 1-d or 2-d, got shape {:?}",
                    x.shape()
                ),
            ))
        }
    };
    if !ok {
        return Err(shapes_error(
            op,
            ("A", &[shape.0, shape.1]),
            ("x", x.shape()),
            format!(
                "x's first dimension must be {} (dimension mismatch)",
                shape.1
            ),
        ));
    }
    Ok(())
}
