//! `cupyx.scipy.sparse`, third group, against SciPy 1.17.1 goldens
//! (tests/golden/gen/sparse3.py): the structure of SpGEMM results (canonical CSR without
//! exact-zero sums) from both native algorithms (row-wise merge, expand-sort-compress), on each
//! backend.

use crate::common::{self, Golden, Operand};
use cupy::scipy::sparse::{self as sp, CsrMatrix, SparseMatrix};
use cupy::{Array, DType, Device, Result};
use serde_json::Value;

/// Matrix `i` of the case (operands `3i..3i+3`: CSR data, indices, indptr), shape `key`.
fn csr(k: &Value, ops: &[Operand], i: usize, key: &str) -> Result<CsrMatrix> {
    let s = common::usizes(&k[key]);
    let a = |j: usize| ops[3 * i + j].array();
    sp::csr_matrix((a(0), a(1), a(2)), Some((s[0], s[1])))
}

fn exec(_: &Golden, case: &Value, ops: &[Operand], _dev: &Device) -> Result<Array> {
    let k = &case["kwargs"];
    match case["op"].as_str().unwrap() {
        "spgemm" => {
            let a = csr(k, ops, 0, "sa")?;
            let b = csr(k, ops, 1, "sb")?;
            let c = a.matmul(&b)?;
            match k["part"].as_str().unwrap() {
                "parts" => cupy::concatenate(
                    &[
                        &c.indptr().astype(DType::Int64)?,
                        &c.indices().astype(DType::Int64)?,
                    ],
                    0,
                ),
                "data" => Ok(c.data().clone()),
                _ => c.toarray(),
            }
        }
        other => panic!("sparse3 golden op {other}"),
    }
}

#[test]
fn sparse3_matches_scipy() {
    common::run_group(
        "sparse3",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        common::generic_error_match,
    );
}
