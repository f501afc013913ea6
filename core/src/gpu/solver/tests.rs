//! Unit tests of the solver plumbing that needs no GPU (the plans run on the H200 and, for HIP,
//! are compiled; their kernels are compiled by hipRTC in cupy-hip's tests).

use super::kernels::{
    entries, entry, SolverArgs, DTYPES, FAMILIES, NF_INFO, REAL_FAMILIES, SOLVER_CU,
};
use super::*;

#[test]
fn source_declares_every_entry() {
    let e = entries();
    assert_eq!(
        e.len(),
        FAMILIES.len() * DTYPES.len() + REAL_FAMILIES.len() * 2 + 1
    );
    for f in REAL_FAMILIES {
        for d in ["float32", "float64"] {
            assert!(SOLVER_CU.contains(&format!("void cupy_solver_{f}_{d}(SolverArgs a)")));
        }
        assert!(entry(f, DType::Complex64).is_err());
    }
    assert!(SOLVER_CU.contains(&format!("void {NF_INFO}(SolverArgs a)")));
    for f in FAMILIES {
        assert!(
            SOLVER_CU.contains(&format!("void cupy_solver_{f}_##S(SolverArgs a)")),
            "{f}"
        );
    }
    for d in DTYPES {
        assert!(SOLVER_CU.contains(&format!("SK_ENTRIES({d},")), "{d}");
    }
    assert_eq!(
        entry("det", DType::Complex64).unwrap(),
        "cupy_solver_det_complex64"
    );
    assert_eq!(entry("nf_info", DType::Float32).unwrap(), NF_INFO);
    assert!(entry("det", DType::Int32).is_err());
    assert!(entry("eye", DType::Float16).is_err());
}

#[test]
fn solver_args_pack_eight_native_slots() {
    let a = SolverArgs::new(&[1, 2, 0xdead_beef_0000_0001]).unwrap();
    let b = a.bytes();
    assert_eq!(b.len(), 64);
    assert_eq!(
        u64::from_ne_bytes(b[16..24].try_into().unwrap()),
        0xdead_beef_0000_0001
    );
    assert_eq!(u64::from_ne_bytes(b[56..64].try_into().unwrap()), 0);
    assert!(SolverArgs::new(&[0; 9]).is_err());
    assert_eq!(std::mem::size_of::<SolverArgs>(), 64);
}

#[test]
fn output_dtypes_follow_numpy() {
    let eigh = LinalgOp::Eigh {
        upper: false,
        vectors: true,
    };
    assert_eq!(
        eigh.out_dtypes(DType::Complex64),
        vec![DType::Float32, DType::Complex64]
    );
    assert_eq!(
        LinalgOp::Slogdet.out_dtypes(DType::Complex128),
        vec![DType::Complex128, DType::Float64]
    );
    let svd = LinalgOp::Svd {
        full: true,
        vectors: true,
    };
    assert_eq!(
        svd.out_dtypes(DType::Float32),
        vec![DType::Float32, DType::Float32, DType::Float32]
    );
    assert_eq!(LinalgOp::Inv.out_dtypes(DType::Float64)[0], DType::Float64);
}

#[test]
fn gesvd_u_columns() {
    assert_eq!(Lapack::gesvd_ucols(SvdJob::All, 5, 3), 5);
    assert_eq!(Lapack::gesvd_ucols(SvdJob::Some, 5, 3), 3);
    assert_eq!(Lapack::gesvd_ucols(SvdJob::None, 5, 3), 3);
}
