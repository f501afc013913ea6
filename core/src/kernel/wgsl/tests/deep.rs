//! Deep expressions go through `let` temporaries.

use super::*;

#[test]
fn deep_expressions_go_through_let_temporaries() {
    // Flat chains of 500 terms (fuse or `x + x + ... + x` in a user kernel) nest 500 deep; naga's
    // parser stops at 200 levels, so deep subtrees are bound to `let`s first.
    for d in [DType::Float32, DType::Int8, DType::Float64, DType::UInt64] {
        let x = Expr::input(0, d);
        let (mut left, mut right) = (x.clone(), x.clone());
        for _ in 0..499 {
            left = Expr::binary(B::Add, left, x.clone());
            right = Expr::binary(B::Mul, x.clone(), right);
        }
        for (name, e) in [("left", left), ("right", right)] {
            let k = Kernel::map(name, vec![d], vec![], e);
            check_kernel(&k);
            let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
            assert!(sh.source.contains("let t0 = "), "{}", sh.source);
        }
    }
    // Operands the emitted code repeats (sqrt's, a shift's amount) are bound once: a 300-deep
    // sqrt chain stays linear in size.
    let x = Expr::input(0, DType::Float32);
    let mut e = x.clone();
    for _ in 0..300 {
        e = Expr::unary(U::Sqrt, Expr::binary(B::Add, e, x.clone()));
    }
    let k = Kernel::map("sqrts", vec![DType::Float32], vec![], e);
    check_kernel(&k);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.len() < 100_000, "{}", sh.source.len());
    let xi = Expr::input(0, DType::Int32);
    let mut e = xi.clone();
    for _ in 0..200 {
        e = Expr::binary(B::Shr, xi.clone(), Expr::binary(B::And, e, xi.clone()));
    }
    let k = Kernel::map("shifts", vec![DType::Int32], vec![], e);
    check_kernel(&k);
    // Deep map, combine and post of a reduction; deep statements with loops and ifs.
    let f = DType::Float32;
    let mut r = ReduceKernel::simple("deep", f, f, B::Add, Scalar::Float32(0.0), f);
    let (mut m, mut c, mut p) = (Expr::input(0, f), Expr::var(0, f), Expr::var(0, f));
    for _ in 0..300 {
        m = Expr::binary(B::Add, m, Expr::input(0, f));
        c = Expr::binary(B::Add, c, Expr::var(1, f));
        p = Expr::binary(B::Mul, p, Expr::constant(Scalar::Float32(1.0)));
    }
    (r.map, r.combine, r.post) = (vec![m], vec![c], p);
    for s in rspecs(&r) {
        let g = LoopMode {
            guard: true,
            window: false,
        };
        validate(&emit_reduction_with(&r, &s, &opts(), g).unwrap().source);
    }
    let mut k = convolve_kernel(f);
    let mut deep = Expr::var(0, f);
    for _ in 0..300 {
        deep = Expr::binary(B::Add, deep, Expr::constant(Scalar::Float32(0.5)));
    }
    let mut end = Expr::param(2, DType::Int64);
    for _ in 0..300 {
        end = Expr::binary(B::Max, end, Expr::param(2, DType::Int64));
    }
    Stmt::visit_all(&k.body.clone(), &mut |_| {});
    fn deepen(body: &mut [Stmt], deep: &Expr, end: &Expr) {
        for s in body {
            match s {
                Stmt::For { end: e, body, .. } => {
                    *e = end.clone();
                    deepen(body, deep, end);
                }
                Stmt::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    deepen(then_body, deep, end);
                    deepen(else_body, deep, end);
                }
                Stmt::Store { value, .. } => *value = deep.clone(),
                _ => {}
            }
        }
    }
    deepen(&mut k.body, &deep, &end);
    check_kernel(&k);
}
