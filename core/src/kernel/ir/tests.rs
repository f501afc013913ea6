use super::*;

#[test]
fn validate_catches_mismatches() {
    let k = Kernel::map(
        "add",
        vec![DType::Float32, DType::Float32],
        vec![],
        Expr::binary(
            BinaryOp::Add,
            Expr::input(0, DType::Float32),
            Expr::input(1, DType::Float32),
        ),
    );
    k.validate().unwrap();
    let mut bad = k.clone();
    bad.inputs[1] = DType::Int32;
    assert!(bad.validate().is_err());
    let lp = Kernel {
        name: "loop".into(),
        inputs: vec![DType::Float32],
        outputs: vec![DType::Float32],
        raws: vec![],
        params: vec![],
        locals: vec![DType::Int64],
        body: vec![Stmt::For {
            var: 0,
            start: Expr::constant(Scalar::Int64(0)),
            end: Expr::input(0, DType::Float32).cast(DType::Int64),
            body: vec![],
        }],
    };
    assert!(lp
        .validate()
        .unwrap_err()
        .to_string()
        .contains("non-uniform"));
}

#[test]
fn complex_parts_are_typed() {
    let z = Expr::input(0, DType::Complex64);
    assert_eq!(Expr::unary(UnaryOp::Real, z.clone()).ty, DType::Float32);
    assert_eq!(Expr::unary(UnaryOp::Imag, z.clone()).ty, DType::Float32);
    assert_eq!(Expr::unary(UnaryOp::Conj, z.clone()).ty, DType::Complex64);
    let re = Expr::input(1, DType::Float64);
    assert_eq!(Expr::complex(re.clone(), re.clone()).ty, DType::Complex128);
    let k = |value: Expr| Kernel {
        name: "c".into(),
        inputs: vec![DType::Complex64, DType::Float64],
        outputs: vec![value.ty],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::Store { output: 0, value }],
    };
    k(Expr::unary(UnaryOp::Imag, z.clone())).validate().unwrap();
    k(Expr::complex(re.clone(), re.clone())).validate().unwrap();
    // Parts of a real operand, or a complex of mistyped parts, are refused.
    assert!(k(Expr::unary(UnaryOp::Real, re.clone()))
        .validate()
        .is_err());
    let bad = Expr {
        ty: DType::Complex64,
        kind: ExprKind::Binary(BinaryOp::Complex, Box::new(re.clone()), Box::new(re)),
    };
    assert!(k(bad).validate().is_err());
}

#[test]
fn raw_writes_validate_and_report() {
    let f = DType::Float32;
    let k = Kernel {
        name: "scatter".into(),
        inputs: vec![DType::Int64, f],
        outputs: vec![],
        raws: vec![f, f],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::AtomicRaw {
            raw: 1,
            op: AtomicOp::Add,
            index: Expr::input(0, DType::Int64),
            value: Expr::input(1, f),
            old: None,
        }],
    };
    k.validate().unwrap();
    assert!(!k.writes_raw(0) && k.writes_raw(1) && k.atomic_raw(1) && k.writes_raws());
    // Fetch-and-add: only Add of int32/uint32, into a local of that dtype.
    let fetch = |raw: DType, local: DType, op: AtomicOp| Kernel {
        name: "append".into(),
        inputs: vec![],
        outputs: vec![],
        raws: vec![raw],
        params: vec![],
        locals: vec![local],
        body: vec![Stmt::AtomicRaw {
            raw: 0,
            op,
            index: Expr::constant(Scalar::Int64(0)),
            value: Expr::constant(Scalar::UInt32(1)).cast(raw),
            old: Some(0),
        }],
    };
    let u = DType::UInt32;
    fetch(u, u, AtomicOp::Add).validate().unwrap();
    fetch(DType::Int32, DType::Int32, AtomicOp::Add)
        .validate()
        .unwrap();
    for bad in [
        fetch(u, DType::Int64, AtomicOp::Add),
        fetch(u, u, AtomicOp::Max),
        fetch(f, f, AtomicOp::Add),
    ] {
        assert!(bad.validate().unwrap_err().to_string().contains("fetched"));
    }
    let mut bad = k.clone();
    bad.raws[1] = DType::Int32;
    assert!(bad.validate().unwrap_err().to_string().contains("raw 1"));
    let mut bad = k.clone();
    bad.body = vec![Stmt::StoreRaw {
        raw: 0,
        index: Expr::input(1, f),
        value: Expr::input(1, f),
    }];
    assert!(bad.validate().is_err());
    bad.body = vec![Stmt::StoreRaw {
        raw: 0,
        index: Expr::input(0, DType::Int64),
        value: Expr::input(1, f),
    }];
    bad.validate().unwrap();
    assert!(bad.writes_raw(0) && !bad.atomic_raw(0));
}

/// `ReduceKernel::merge`: accumulators, identities and maps concatenated; the combine's `a`
/// and `b` tuples renumbered (`Var(j)` of part 2 becomes `Var(n1 + j)`, its `b` side
/// `Var(n + n1 + j)`); per-part parameters after the shared ones; a part without fold folds
/// with its combine when another part has one; outputs in order, each of its own dtype.
#[test]
fn merge_concatenates_parts() {
    use crate::kernel::reductions::{moments, Moment};
    let f = DType::Float32;
    let mut mean = ReduceKernel::simple("mean", f, f, BinaryOp::Add, Scalar::Float32(0.0), f);
    mean.params = vec![DType::Int64, f];
    mean.post = Expr::binary(BinaryOp::Div, Expr::var(0, f), Expr::param(1, f));
    let var = moments(f, Moment::Var); // 3 accumulators, a fold, one parameter (ddof)
    let k = ReduceKernel::merge("m", &[mean.clone(), var.clone()], 0).unwrap();
    assert_eq!(k.acc.len(), 4);
    assert_eq!(k.n_outputs(), 2);
    assert_eq!(k.outputs(), [f, var.output]);
    assert_eq!(k.params, [DType::Int64, f, var.params[0]]);
    assert_eq!(
        k.combine[0],
        Expr::binary(BinaryOp::Add, Expr::var(0, f), Expr::var(4, f))
    );
    // mean's fold is its combine; var's parameter (ddof) moved from 0 to 2.
    assert_eq!(k.fold.len(), 4);
    assert_eq!(k.fold[0], k.combine[0]);
    let mut reads = vec![];
    k.extra_posts[0].visit(&mut |e| {
        if let ExprKind::Var(v) | ExprKind::Param(v) = e.kind {
            reads.push(v);
        }
    });
    assert!(reads.iter().all(|&v| (1..4).contains(&v)), "{reads:?}");
    assert_eq!(k.single_output(1).post, k.extra_posts[0]);
    // Parts must read the same inputs and shared parameters.
    let other = ReduceKernel::simple(
        "s",
        DType::Int32,
        DType::Int64,
        BinaryOp::Add,
        Scalar::Int64(0),
        DType::Int64,
    );
    assert!(ReduceKernel::merge("m", &[mean.clone(), other], 0).is_err());
    assert!(ReduceKernel::merge("m", &[mean.clone(), var], 1).is_err());
    // Shared parameters stay once.
    let two = ReduceKernel::merge("m", &[mean.clone(), mean], 2).unwrap();
    assert_eq!(two.params.len(), 2);
    assert!(ReduceKernel::merge("m", &[], 0).is_err());
    // An extra post must be well formed.
    let mut bad = k.clone();
    bad.extra_posts[0] = Expr::input(0, f);
    assert!(bad.validate().is_err());
}
