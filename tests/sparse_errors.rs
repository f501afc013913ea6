//! Size mismatches in `cupyx.scipy.sparse` and its `linalg` (a right-hand side of another length
//! than `A`'s order, a non-square operator, operands of unequal shapes) are SciPy's
//! `ValueError`s, `Error::InvalidArgument` here, naming the op and both shapes as Python prints
//! them; "could not be broadcast" is kept for real broadcast failures. One test per family, on
//! every backend.

use crate::common;
use cupy::scipy::sparse::linalg::{self as sla, LinearOperator};
use cupy::scipy::sparse::{self as sp, CsrMatrix, Format, SparseMatrix};
use cupy::{Array, DType, Device, Error, Result};

/// An all-ones CSR matrix of `shape` on `dev`.
fn ones(dev: &Device, shape: [usize; 2]) -> CsrMatrix {
    sp::csr_matrix(&Array::ones_on(dev, &shape, DType::Float64).unwrap(), None).unwrap()
}

/// A float64 vector of ones, `[n]`.
fn vec1(dev: &Device, n: usize) -> Array {
    Array::ones_on(dev, &[n], DType::Float64).unwrap()
}

/// `r` is an `InvalidArgument` whose message is `msg` exactly (it names the op and the shapes),
/// with no word of broadcasting.
fn expect<T: std::fmt::Debug>(r: Result<T>, msg: &str) {
    let e = r.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    assert_eq!(e.to_string(), msg);
    assert!(!e.to_string().contains("broadcast"), "{e}");
}

#[test]
fn iterative_solvers_name_a_b_x0_and_m() {
    for dev in common::backends() {
        let a = ones(&dev, [4, 4]);
        let b = vec1(&dev, 3);
        expect(
            sla::cg(&a, &b, sla::Solve::default()),
            "cg: A has shape (4, 4) but b has shape (3,); b must have 4 elements (shape (4,) or (4, 1))",
        );
        let b2 = Array::ones_on(&dev, &[3, 1], DType::Float64).unwrap();
        expect(
            sla::gmres(&a, &b2, sla::Solve::default()),
            "gmres: A has shape (4, 4) but b has shape (3, 1); b must have 4 elements (shape (4,) or (4, 1))",
        );
        expect(
            sla::minres(ones(&dev, [2, 3]), &vec1(&dev, 2), sla::Solve::default()),
            "minres: A must be a square matrix, but its shape is (2, 3)",
        );
        let o = sla::Solve {
            x0: Some(vec1(&dev, 5)),
            ..Default::default()
        };
        expect(
            sla::cg(&a, &vec1(&dev, 4), o),
            "cg: A has shape (4, 4) but x0 has shape (5,); x0 must have 4 elements",
        );
        let o = sla::Solve {
            m: Some(LinearOperator::from(&ones(&dev, [3, 3]))),
            ..Default::default()
        };
        expect(
            sla::cg(&a, &vec1(&dev, 4), o),
            "cg: A has shape (4, 4) but the preconditioner M has shape (3, 3); M must have A's shape",
        );
    }
}

#[test]
fn least_squares_name_a_b_and_x0() {
    for dev in common::backends() {
        let a = ones(&dev, [4, 3]);
        expect(
            sla::lsqr(&a, &vec1(&dev, 3), sla::Lsqr::default()),
            "lsqr: A has shape (4, 3) but b has shape (3,); b must have 4 elements (shape (4,) or (4, 1))",
        );
        let o = sla::Lsqr {
            x0: Some(vec1(&dev, 4)),
            ..Default::default()
        };
        expect(
            sla::lsqr(&a, &vec1(&dev, 4), o),
            "lsqr: A has shape (4, 3) but x0 has shape (4,); x0 must have 3 elements",
        );
        expect(
            sla::lsmr(&a, &vec1(&dev, 2), sla::Lsmr::default()),
            "lsmr: A has shape (4, 3) but b has shape (2,); b must have 4 elements (shape (4,) or (4, 1))",
        );
    }
}

#[test]
fn spsolve_triangular_names_a_and_b() {
    for dev in common::backends() {
        expect(
            sla::spsolve_triangular(&ones(&dev, [3, 3]), &vec1(&dev, 2), true, false),
            "spsolve_triangular: A has shape (3, 3) but b has shape (2,); b's first dimension must be 3",
        );
        expect(
            sla::spsolve_triangular(&ones(&dev, [2, 3]), &vec1(&dev, 2), true, false),
            "spsolve_triangular: A must be a square matrix, but its shape is (2, 3)",
        );
    }
}

#[test]
fn direct_solvers_name_a_and_b() -> Result<()> {
    for dev in common::backends() {
        let a = sp::csr_matrix(&Array::eye_on(&dev, 3, None, 0, DType::Float64)?, None)?;
        expect(
            sla::spsolve(&a, &vec1(&dev, 4)),
            "spsolve: A has shape (3, 3) but b has shape (4,); b must have shape (3,) or (3, k)",
        );
        expect(
            sla::spsolve(&ones(&dev, [2, 3]), &vec1(&dev, 2)),
            "spsolve: A must be a square matrix, but its shape is (2, 3)",
        );
        expect(
            sla::splu(&ones(&dev, [2, 3])),
            "splu: A must be a square matrix, but its shape is (2, 3)",
        );
        expect(
            sla::splu(&a)?.solve(&vec1(&dev, 2)),
            "SuperLU.solve: A has shape (3, 3) but b has shape (2,); b must have shape (3,) or (3, k)",
        );
    }
    Ok(())
}

#[test]
fn eigsh_names_a_m_and_v0() {
    for dev in common::backends() {
        let a = ones(&dev, [4, 4]);
        expect(
            sla::eigsh(ones(&dev, [3, 5]), 1, sla::Eigsh::default()),
            "eigsh: A must be a square matrix, but its shape is (3, 5)",
        );
        let o = sla::Eigsh {
            v0: Some(vec1(&dev, 3)),
            ..Default::default()
        };
        expect(
            sla::eigsh(&a, 1, o),
            "eigsh: A has shape (4, 4) but v0 has shape (3,); v0 must have 4 elements",
        );
        let o = sla::Eigsh {
            m: Some(LinearOperator::from(&ones(&dev, [3, 3]))),
            ..Default::default()
        };
        expect(
            sla::eigsh(&a, 1, o),
            "eigsh: A has shape (4, 4) but M has shape (3, 3); M must have A's shape",
        );
    }
}

#[test]
fn expm_family_and_linear_operator_name_the_shapes() {
    for dev in common::backends() {
        let a = ones(&dev, [3, 3]);
        expect(
            sla::expm_multiply(&a, &vec1(&dev, 4)),
            "expm_multiply: A has shape (3, 3) but B has shape (4,); B's first dimension must be 3",
        );
        expect(
            sla::onenormest(ones(&dev, [2, 3])),
            "onenormest: A must be a square matrix, but its shape is (2, 3)",
        );
        let op = LinearOperator::from(&ones(&dev, [2, 3]));
        expect(
            op.matvec(&vec1(&dev, 2)),
            "LinearOperator.matvec: A has shape (2, 3) but x has shape (2,); x must have shape (3,)",
        );
        expect(
            op.rmatvec(&vec1(&dev, 3)),
            "LinearOperator.rmatvec: A has shape (2, 3) but x has shape (3,); x must have shape (2,)",
        );
    }
}

#[test]
fn sparse_products_sums_and_stacks_name_both_shapes() {
    for dev in common::backends() {
        let (a, b) = (ones(&dev, [2, 3]), ones(&dev, [3, 3]));
        expect(
            a.dot(&vec1(&dev, 2)),
            "csr_matrix @: A has shape (2, 3) but x has shape (2,); x's first dimension must be 3 (dimension mismatch)",
        );
        expect(
            b.matmul(&a),
            "sparse @ sparse: A has shape (3, 3) but B has shape (2, 3); B must have 3 rows (dimension mismatch)",
        );
        let sum = "A has shape (2, 3) but B has shape (3, 3); the shapes must be equal (inconsistent shapes)";
        expect(a.add(&b), &format!("sparse +: {sum}"));
        expect(a.maximum(&b), &format!("maximum: {sum}"));
        expect(
            sp::hstack(&[&a as &dyn SparseMatrix, &b], Format::Csr),
            "hstack: blocks[0] has shape (2, 3) but blocks[1] has shape (3, 3); the blocks must have the same number of rows",
        );
        expect(
            a.multiply_dense(&vec1(&dev, 2)),
            "multiply: A has shape (2, 3) but the dense operand has shape (2,) (inconsistent shapes)",
        );
        expect(
            sp::kronsum(&a, &b, Format::Csr),
            "kronsum: A must be a square matrix, but its shape is (2, 3)",
        );
        expect(
            sp::bmat(&[vec![Some(&a as &dyn SparseMatrix), Some(&b)]], Format::Csr),
            "bmat: blocks[0,:] has incompatible row dimensions. Got blocks[0,1].shape[0] == 3, expected 2 (blocks[0,1] has shape (3, 3))",
        );
    }
}
