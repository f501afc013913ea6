//! Sparse @ sparse (SpGEMM), device-resident, two native algorithms:
//!
//! - **row-wise** (the `spgemm` kernels of `kernels.rs`) for the rows of `A` holding at most
//!   [`SPGEMM_SLOTS`] entries: a *symbolic* pass counts each row's entries of `C` (one row per
//!   invocation, merging the rows of `B` that `A`'s row picks with a cursor each), a `cumsum`
//!   makes `indptr`, and a *numeric* pass writes the sorted columns and their sums. Memory:
//!   `C` and two counts per row; work: `steps * slots` per row.
//! - **ESC** for the longer rows (their rows of `A` gathered; all of `A` when every row is
//!   long), composed of array ops, its entries then copied into `C`'s rows: *expand* every
//!   product `A[i, j] * B[j, :]` into triplets, *sort* them by `(i, col)`, *compress* equal keys
//!   by a segment sum:
//!   1. per stored `A[i, j]`, the length of row `j` of `B` (`counts`), and their running sums
//!      `ends` (one read: the number of products);
//!   2. product `p` belongs to the `A` entry `s = searchsorted(ends, p, 'right')`, and takes
//!      `B`'s entry `indptr_B[j] + p - (ends[s] - counts[s])`;
//!   3. the triplets `(i, col_B, a * b)` become canonical CSR (lexsort + segment sum).
//!
//! With `CUPY_SPARSE_LIBRARY=vendor` (`library.rs`) the device's vendor SpGEMM runs instead
//! where it takes the dtypes (cuSPARSE: int32 indices), its exact-zero sums removed after.
//!
//! Both give canonical CSR (sorted columns, no duplicates) without the exact-zero sums (as
//! SciPy's `csr_matmat` drops them), summing each entry's products in the same order (`A`'s
//! storage order), so their results are the same bits.

use super::base::{cast, fit_index, read_i64s, sub, wider_index, SparseMatrix};
use super::compressed::{segment_reduce, Compressed};
use super::kernels::{self, Seg, Which, SPGEMM_SLOTS};
use super::CsrMatrix;
use crate::array::Array;
use crate::indexing::{flatnonzero, put, take};
use crate::launch::Elementwise;
use crate::manipulation::join::concatenate;
use crate::sorting::{cumsum, searchsorted_with, SearchSorted, Side};
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use cupy_core::scalar::Scalar;

routine!("cupyx.scipy.sparse @ (SpMV, SpMM: one IR kernel each; SpGEMM)", Sparse, probe: super::probe, notes: "CSR row per invocation (loop bound: the longest row); SpGEMM row-wise (symbolic + numeric merge kernels) for A's rows of <= 32 entries, expand-sort-compress with array ops for longer ones");

/// Steps of the symbolic pass up to which `slots * (longest row of B)` is used as the loop
/// bound as it is; past it, the exact most products of a row are computed (one more read).
const LOOSE_STEPS: usize = 1024;

impl CsrMatrix {
    /// `A @ B` for a sparse `B` (SpGEMM): canonical CSR without stored zeros, in the promoted
    /// dtype.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming both shapes when `A`'s columns are not `B`'s rows;
    /// device errors.
    pub fn matmul(&self, other: &dyn SparseMatrix) -> Result<CsrMatrix> {
        let op = "sparse @ sparse";
        let ((m, k), (k2, n)) = (self.shape(), other.shape());
        if k != k2 {
            return Err(super::shapes_error(
                op,
                ("A", &[m, k]),
                ("B", &[k2, n]),
                format!("B must have {k} rows (dimension mismatch)"),
            ));
        }
        let t = cupy_core::promote::promote_types(self.dtype(), other.dtype());
        let converted;
        let b = match other.as_csr() {
            Some(b) => b,
            None => {
                converted = other.tocsr()?;
                &converted
            }
        };
        let it = wider_index(self.c.index_dtype(), b.c.index_dtype());
        let dev = self.device().clone();
        if self.nnz() == 0 || b.nnz() == 0 {
            return CsrMatrix::empty(&dev, (m, n), t);
        }
        if let Some(c) = super::library::spgemm(&self.c, &b.c, t, it)? {
            return Ok(CsrMatrix { c });
        }
        let longest = self.c.max_len()?;
        if longest <= SPGEMM_SLOTS {
            return Ok(CsrMatrix {
                c: rowwise(&self.c, &b.c, t, it, longest, None)?,
            });
        }
        // Rows of A past the slots: their products by ESC, the others row-wise (with as many
        // slots as the longest of them holds).
        let i64t = DType::Int64;
        let ptr = cast(&self.c.indptr, i64t)?;
        let len = (&sub(&ptr, 1, m) - &sub(&ptr, 0, m))?;
        let short = len.less_equal(SPGEMM_SLOTS as i64)?;
        let slots = read_i64s(&[&(&len * &short.astype(i64t)?)?.max()?])?[0] as usize;
        let long = flatnonzero(&short.logical_not()?)?;
        let c = if long.size() == m {
            esc(&self.c, &b.c, t, it)?
        } else {
            let a_long = self.c.fancy_lines(op, &long, "row")?;
            let c_long = esc(&a_long, &b.c, t, it)?;
            rowwise(&self.c, &b.c, t, it, slots, Some((&long, &c_long)))?
        };
        Ok(CsrMatrix { c })
    }
}

/// The row-wise SpGEMM (see the module docs): `a` and `b` with entries, `t` the result dtype,
/// `it` the kernels' index dtype, `slots` (at most [`SPGEMM_SLOTS`]) the longest row of `a` the
/// kernels compute. `long`: the rows of `a` longer than that (int64, ascending) and their
/// product, computed otherwise; the kernels leave those rows out and their entries are copied
/// in. Two reads.
fn rowwise(
    a: &Compressed,
    b: &Compressed,
    t: DType,
    it: DType,
    slots: usize,
    long: Option<(&Array, &Compressed)>,
) -> Result<Compressed> {
    let i64t = DType::Int64;
    let dev = a.device().clone();
    let (m, n) = (a.major, b.minor);
    // Exact up to 8 slots, then 12, 16, 24, 32: few kernel variants to compile.
    let slots = match slots.clamp(1, SPGEMM_SLOTS) {
        s @ 1..=8 => s,
        s => [12, 16, 24, 32]
            .into_iter()
            .find(|&v| v >= s)
            .unwrap_or(SPGEMM_SLOTS),
    };
    let b = b.canonicalized()?;
    let (ap, ai, ad) = (
        cast(&a.indptr, it)?,
        cast(&a.indices, it)?,
        cast(&a.data, t)?,
    );
    let (bp, bi, bd) = (
        cast(&b.indptr, it)?,
        cast(&b.indices, it)?,
        cast(&b.data, t)?,
    );
    let mut bound = slots * b.max_len()?;
    if bound > LOOSE_STEPS {
        // The most products of any row the kernels compute: the sum over the row of A of B's
        // row lengths (rows past the slots count 0).
        let bptr = cast(&bp, i64t)?;
        let blen = (&sub(&bptr, 1, b.major) - &sub(&bptr, 0, b.major))?;
        let counts = take(&blen, &cast(&ai, i64t)?)?;
        let mut per_row = segment_reduce(&ap, &counts, m, Seg::Sum, 0, None)?;
        if long.is_some() {
            let aptr = cast(&ap, i64t)?;
            let alen = (&sub(&aptr, 1, m) - &sub(&aptr, 0, m))?;
            per_row = (&per_row * &alen.less_equal(slots as i64)?.astype(i64t)?)?;
        }
        bound = read_i64s(&[&per_row.max()?])?[0].max(0) as usize;
    }
    let params = |steps: usize| vec![Scalar::Int64(steps as i64), Scalar::Int64(n as i64)];
    let (k, dtypes) = kernels::cached(
        Which::Spgemm {
            numeric: false,
            slots,
        },
        t,
        it,
    )?;
    let mut counted = Elementwise {
        op: "sparse @ sparse (symbolic)",
        kernel: &k,
        inputs: &[],
        raws: &[&ap, &ai, &ad, &bp, &bi, &bd],
        params: params(bound),
        outs: vec![],
        device: Some(&dev),
        shape: Some(&[m]),
    }
    .run_validated(&dtypes)?;
    let (kept, steps) = (counted.remove(0), counted.remove(0));
    if let Some((rows, c)) = long {
        let cptr = cast(&c.indptr, i64t)?;
        put(
            &kept,
            rows,
            &(&sub(&cptr, 1, c.major) - &sub(&cptr, 0, c.major))?,
        )?;
    }
    let ends = cumsum(&kept)?;
    let v = read_i64s(&[&sub(&ends, m - 1, 1), &steps.max()?])?;
    let (total, steps) = (v[0].max(0) as usize, v[1].max(0) as usize);
    let zero = Array::zeros_on(&dev, &[1], i64t)?;
    let indptr = concatenate(&[&zero, &ends], 0)?;
    let cols = Array::empty_on(&dev, &[total], it)?;
    let vals = Array::empty_on(&dev, &[total], t)?;
    if total > 0 && steps > 0 {
        let (k, dtypes) = kernels::cached(
            Which::Spgemm {
                numeric: true,
                slots,
            },
            t,
            it,
        )?;
        Elementwise {
            op: "sparse @ sparse (numeric)",
            kernel: &k,
            inputs: &[],
            raws: &[&ap, &ai, &ad, &bp, &bi, &bd, &indptr, &cols, &vals],
            params: params(steps),
            outs: vec![],
            device: Some(&dev),
            shape: Some(&[m]),
        }
        .run_validated(&dtypes)?;
    }
    if let Some((rows, c)) = long.filter(|(_, c)| c.nnz() > 0) {
        // Entry p of row i of `c` goes to indptr[rows[i]] + p - c.indptr[i].
        let i = cast(&c.major_indices()?, i64t)?;
        let cptr = cast(&c.indptr, i64t)?;
        let start = take(&indptr, &take(rows, &i)?)?;
        let p = super::base::arange(&dev, c.nnz(), i64t)?;
        let dest = (&(&start + &p)? - &take(&cptr, &i)?)?;
        put(&cols, &dest, &cast(&c.indices, it)?)?;
        put(&vals, &dest, &cast(&c.data, t)?)?;
    }
    let out_it = fit_index(it, m.max(n).max(total));
    Ok(Compressed::new_unchecked(
        vals,
        cast(&cols, out_it)?,
        cast(&indptr, out_it)?,
        m,
        n,
        Some(true),
    ))
}

/// The expand-sort-compress SpGEMM (see the module docs): both with entries, `t` the result
/// dtype, `it` the preferred index dtype.
fn esc(a: &Compressed, b: &Compressed, t: DType, it: DType) -> Result<Compressed> {
    let (m, k, n) = (a.major, a.minor, b.minor);
    let dev = a.device().clone();
    let i64t = DType::Int64;
    let bptr = cast(&b.indptr, i64t)?;
    let blen = (&sub(&bptr, 1, k) - &sub(&bptr, 0, k))?;
    let aj = cast(&a.indices, i64t)?;
    let counts = take(&blen, &aj)?;
    let ends = cumsum(&counts)?;
    let total = read_i64s(&[&sub(&ends, a.nnz() - 1, 1)])?[0] as usize;
    if total == 0 {
        return Ok(CsrMatrix::empty(&dev, (m, n), t)?.c);
    }
    let p = super::base::arange(&dev, total, i64t)?;
    let src = searchsorted_with(
        &ends,
        &p,
        SearchSorted {
            side: Side::Right,
            sorter: None,
        },
    )?;
    let start = (&take(&ends, &src)? - &take(&counts, &src)?)?;
    let bpos = (&(&take(&bptr, &take(&aj, &src)?)? + &p)? - &start)?;
    let rows = take(&cast(&a.major_indices()?, i64t)?, &src)?;
    let cols = take(&b.indices, &bpos)?;
    let vals = (&take(&cast(&a.data, t)?, &src)? * &take(&cast(&b.data, t)?, &bpos)?)?;
    Compressed::from_triplets(&rows, &cols, &vals, m, n, it, true)?.without_zeros()
}
