use super::*;

fn i64c(v: i64) -> Expr {
    Expr::constant(Scalar::Int64(v))
}
fn v(k: usize) -> Expr {
    Expr::var(k, DType::Int64)
}
fn p(k: usize) -> Expr {
    Expr::param(k, DType::Int64)
}
fn for_(var: usize, start: Expr, end: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::For {
        var,
        start,
        end,
        body,
    }
}
fn add1(var: usize) -> Stmt {
    Stmt::Assign {
        var,
        value: Expr::binary(BinaryOp::Add, v(var), i64c(1)),
    }
}
fn kernel(body: Vec<Stmt>) -> Kernel {
    Kernel {
        name: "k".into(),
        inputs: vec![],
        outputs: vec![DType::Int64],
        raws: vec![],
        params: vec![DType::Int64, DType::Int64],
        locals: vec![DType::Int64; 4],
        body,
    }
}

#[test]
fn uniform_evaluation_follows_the_ir() {
    let ev = |e: Expr| eval_uniform(&e, &[Scalar::Int64(-7), Scalar::Int64(2)], &[(3, 5)]);
    let b = |op, a, c| Expr::binary(op, a, c);
    assert_eq!(
        ev(b(BinaryOp::FloorDiv, p(0), p(1))),
        Some(Scalar::Int64(-4))
    );
    assert_eq!(ev(b(BinaryOp::Mod, p(0), p(1))), Some(Scalar::Int64(1)));
    assert_eq!(ev(b(BinaryOp::Div, p(0), p(1))), Some(Scalar::Int64(-3)));
    assert_eq!(ev(b(BinaryOp::Div, p(0), i64c(0))), Some(Scalar::Int64(0)));
    assert_eq!(ev(b(BinaryOp::Mul, v(3), p(1))), Some(Scalar::Int64(10)));
    assert_eq!(
        ev(b(BinaryOp::Shl, i64c(1), i64c(70))),
        Some(Scalar::Int64(0))
    );
    assert_eq!(ev(b(BinaryOp::Shr, p(0), i64c(1))), Some(Scalar::Int64(-4)));
    assert_eq!(
        ev(b(BinaryOp::Pow, p(1), i64c(10))),
        Some(Scalar::Int64(1024))
    );
    let wrap = Expr::binary(
        BinaryOp::Add,
        Expr::constant(Scalar::Int8(120)),
        Expr::constant(Scalar::Int8(10)),
    );
    assert_eq!(ev(wrap), Some(Scalar::Int8(-126)));
    let f = Expr::binary(
        BinaryOp::Div,
        Expr::constant(Scalar::Float32(7.0)),
        Expr::constant(Scalar::Float32(2.0)),
    );
    assert_eq!(
        ev(Expr::unary(UnaryOp::Floor, f).cast(DType::Int64)),
        Some(Scalar::Int64(3))
    );
    let sel = Expr::select(Expr::binary(BinaryOp::Lt, p(0), i64c(0)), i64c(1), i64c(2));
    assert_eq!(ev(sel), Some(Scalar::Int64(1)));
    assert_eq!(ev(Expr::index()), None);
    assert_eq!(ev(v(9)), None);
}

#[test]
fn passes_match_the_measured_cap() {
    // llvmpipe ran nested 255 x 255 (65,280 iterations) and cut 256 x 255 and 300 x 300.
    let nest = |a: i64, b: i64| {
        vec![for_(
            1,
            i64c(0),
            i64c(a),
            vec![for_(2, i64c(0), i64c(b), vec![add1(0)])],
        )]
    };
    let c = |a, b| body_passes(&nest(a, b), &[], true).unwrap();
    assert!(c(255, 255) <= LLVMPIPE_LOOP_BUDGET + 2, "{}", c(255, 255));
    assert!(c(256, 255) > LLVMPIPE_LOOP_BUDGET);
    assert!(c(300, 300) > LLVMPIPE_LOOP_BUDGET);
    // One loop of 65,535 ran, 65,536 did not.
    let one = |n| body_passes(&[for_(1, i64c(0), i64c(n), vec![])], &[], true).unwrap();
    assert_eq!(one(65_535), LLVMPIPE_LOOP_BUDGET + 1);
    // A loop that no lane enters still costs a pass per visit (both arms of an `if` run).
    let skip = vec![for_(
        1,
        i64c(0),
        i64c(40_000),
        vec![Stmt::If {
            cond: Expr::constant(Scalar::Bool(false)),
            then_body: vec![for_(2, i64c(0), i64c(5), vec![])],
            else_body: vec![],
        }],
    )];
    assert!(body_passes(&skip, &[], true).unwrap() > LLVMPIPE_LOOP_BUDGET);
    // Helper loops count: a float remainder per iteration.
    let fm = vec![for_(
        1,
        i64c(0),
        i64c(200),
        vec![Stmt::Let {
            var: 3,
            value: Expr::binary(
                BinaryOp::Mod,
                Expr::constant(Scalar::Float32(1.0)),
                Expr::constant(Scalar::Float32(0.1)),
            )
            .cast(DType::Int64),
        }],
    )];
    assert!(body_passes(&fm, &[], true).unwrap() > 200 * 560);
    // Unknown bounds.
    let unk = vec![for_(1, i64c(0), Expr::index(), vec![])];
    assert_eq!(body_passes(&unk, &[], true), None);
}

/// Each window's passes (recounted) stay under `budget`, and the windows run every
/// top-level statement, and every iteration of a top-level loop, exactly once.
fn check_windows(k: &Kernel, params: &[Scalar], budget: u64, ws: &[Window]) {
    let mut done: Vec<(u32, u64)> = vec![];
    for w in ws {
        let mut sub = vec![];
        for idx in w.lo..=w.hi {
            let s = &k.body[idx as usize];
            match s {
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let a = eval_uniform(start, params, &[]).unwrap().to_i128() as i64;
                    let b = eval_uniform(end, params, &[]).unwrap().to_i128() as i64;
                    let n = (b - a).max(0) as u64;
                    let j0 = if idx == w.lo { w.it_lo as u64 } else { 0 };
                    let j1 = if idx == w.hi && w.it_hi != u32::MAX {
                        w.it_hi as u64
                    } else {
                        n
                    };
                    for j in j0..j1 {
                        done.push((idx, j));
                    }
                    // The window's part of the loop, as a loop of its own.
                    sub.push(Stmt::For {
                        var: *var,
                        start: i64c(a + j0 as i64),
                        end: i64c(a + j1 as i64),
                        body: body.clone(),
                    });
                }
                s => {
                    done.push((idx, u64::MAX));
                    sub.push(s.clone());
                }
            }
        }
        let c = body_passes(&sub, params, true).unwrap();
        assert!(c <= budget, "window {w:?}: {c} passes > {budget}");
    }
    let mut want = vec![];
    for (idx, s) in k.body.iter().enumerate() {
        match s {
            Stmt::For { start, end, .. } => {
                let a = eval_uniform(start, params, &[]).unwrap().to_i128() as i64;
                let b = eval_uniform(end, params, &[]).unwrap().to_i128() as i64;
                for j in 0..(b - a).max(0) as u64 {
                    want.push((idx as u32, j));
                }
            }
            _ => want.push((idx as u32, u64::MAX)),
        }
    }
    assert_eq!(done, want);
}

#[test]
fn windows_split_long_loops() {
    let budget = 61_440;
    let set = |var| Stmt::Let {
        var,
        value: i64c(0),
    };
    // One long loop between statements.
    let k = kernel(vec![
        set(0),
        for_(1, i64c(3), p(0), vec![add1(0)]),
        Stmt::Store {
            output: 0,
            value: v(0),
        },
    ]);
    let params = [Scalar::Int64(100_003), Scalar::Int64(0)];
    let LoopPlan::Windows(ws) = plan_elementwise(&k, &params, true, budget, "t").unwrap() else {
        panic!("not split")
    };
    assert_eq!(ws.len(), 2);
    check_windows(&k, &params, budget, &ws);
    // Small: one dispatch.
    let small = [Scalar::Int64(1_000), Scalar::Int64(0)];
    assert_eq!(
        plan_elementwise(&k, &small, true, budget, "t").unwrap(),
        LoopPlan::Single
    );
    // Nested (the inner loop stays whole), two long loops, loops with inner bounds that
    // depend on the outer variable, an empty loop.
    let k = kernel(vec![
        set(0),
        for_(
            1,
            i64c(0),
            p(0),
            vec![for_(2, i64c(0), p(1), vec![add1(0)])],
        ),
        for_(1, i64c(0), p(1), vec![add1(0)]),
        for_(1, i64c(5), i64c(2), vec![add1(0)]),
        for_(1, i64c(0), p(0), vec![for_(2, v(1), p(1), vec![add1(0)])]),
        Stmt::Store {
            output: 0,
            value: v(0),
        },
    ]);
    for (a, b) in [(300, 300), (2, 40_000), (70_000, 1), (9_000, 7)] {
        let params = [Scalar::Int64(a), Scalar::Int64(b)];
        match plan_elementwise(&k, &params, true, budget, "t").unwrap() {
            LoopPlan::Windows(ws) => check_windows(&k, &params, budget, &ws),
            LoopPlan::Single => panic!("{a} x {b} not split"),
        }
    }
    // Tiny budgets split into many windows, still exactly.
    let params = [Scalar::Int64(40), Scalar::Int64(9)];
    let LoopPlan::Windows(ws) = plan_elementwise(&k, &params, true, 60, "t").unwrap() else {
        panic!("not split")
    };
    assert!(ws.len() > 10, "{}", ws.len());
    check_windows(&k, &params, 60, &ws);
}

#[test]
fn what_cannot_be_split_is_refused() {
    let budget = 61_440;
    let in_if = kernel(vec![Stmt::If {
        cond: Expr::binary(BinaryOp::Gt, Expr::index(), i64c(3)),
        then_body: vec![for_(1, i64c(0), p(0), vec![add1(0)])],
        else_body: vec![],
    }]);
    let params = [Scalar::Int64(100_000), Scalar::Int64(0)];
    let e = plan_elementwise(&in_if, &params, true, budget, "wgpu:0 (x)").unwrap_err();
    assert!(
        matches!(&e, Error::Unsupported { op, backend, .. } if op == "k" && backend == "wgpu:0 (x)"),
        "{e}"
    );
    assert!(e.to_string().contains("inside an `if`"), "{e}");
    let inner = kernel(vec![for_(
        1,
        i64c(0),
        i64c(3),
        vec![for_(2, i64c(0), p(0), vec![add1(0)])],
    )]);
    let e = plan_elementwise(&inner, &params, true, budget, "t").unwrap_err();
    assert!(e.to_string().contains("one iteration"), "{e}");
    // A loop that writes its own variable is not split.
    let own = kernel(vec![for_(1, i64c(0), p(0), vec![add1(1)])]);
    assert!(plan_elementwise(&own, &params, true, budget, "t").is_err());
    // Bounds the host cannot evaluate: left to the loop guard.
    let unk = kernel(vec![for_(
        1,
        i64c(0),
        Expr::binary(
            BinaryOp::Atan2,
            Expr::constant(Scalar::Float32(1.0)),
            Expr::constant(Scalar::Float32(1.0)),
        )
        .cast(DType::Int64),
        vec![],
    )]);
    assert_eq!(
        plan_elementwise(&unk, &params, true, budget, "t").unwrap(),
        LoopPlan::Single
    );
}
