//! Tiled elementwise shaders: every dtype width, staging patterns, batch axes, tile edges.

use super::*;

fn copy(src: DType, dst: DType) -> Kernel {
    Kernel::map("copy", vec![src], vec![], Expr::input(0, src).cast(dst))
}

fn spec(k: &Kernel, ndim: usize, tile: u32, staged: Vec<bool>) -> TiledSpec {
    TiledSpec {
        ndim,
        tile,
        staged,
        wide_int64: false,
        bindings: BindingPlan::distinct_for(k),
    }
}

#[test]
fn tiled_copies_of_every_dtype_validate() {
    let all = [
        DType::Bool,
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::Float16,
        DType::BFloat16,
        DType::Int32,
        DType::UInt32,
        DType::Float32,
        DType::Int64,
        DType::UInt64,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];
    let mut n = 0;
    for src in all {
        for dst in [src, DType::Float32, DType::Complex128] {
            let k = copy(src, dst);
            if packed_bits(dst).is_some() {
                assert!(!tiled_eligible(&k, &[true, false]));
                assert!(emit_tiled(&k, &spec(&k, 2, 32, vec![true, false]), &opts()).is_err());
                continue;
            }
            for (nd, tile, staged) in [
                (2, 32, vec![true, false]),
                (2, 32, vec![false, true]),
                (3, 32, vec![true, false]),
                (4, 16, vec![true, true]),
            ] {
                let s = spec(&k, nd, tile, staged);
                let sh = emit_tiled(&k, &s, &opts()).unwrap_or_else(|e| panic!("{src} {dst}: {e}"));
                validate(&sh.source);
                assert!(sh.source.contains("workgroupBarrier"));
                assert_eq!(sh.meta.n_words, (1 + nd + 2 * (nd + 1)).div_ceil(4) * 4);
                n += 1;
            }
        }
    }
    assert!(n > 80, "{n}");
}

#[test]
fn tiled_binary_ops_with_params_and_index_validate() {
    let d = DType::Float32;
    // x * p0 + y + Index: two inputs, a parameter, the flat index.
    let k = Kernel::map(
        "fma_index",
        vec![d, d],
        vec![d],
        Expr::binary(
            B::Add,
            Expr::binary(
                B::Add,
                Expr::binary(B::Mul, Expr::input(0, d), Expr::param(0, d)),
                Expr::input(1, d),
            ),
            Expr::index().cast(d),
        ),
    );
    for staged in [
        vec![true, false, false],
        vec![false, true, false],
        vec![true, true, true],
    ] {
        let sh = emit_tiled(&k, &spec(&k, 2, 32, staged), &opts()).unwrap();
        validate(&sh.source);
    }
    // Two bound words of the shape, then per operand: offset + strides.
    let l = Layout {
        shape: vec![3, 5],
        strides: vec![1, 3],
        offset: 7,
    };
    assert_eq!(tiled_words(&[3, 5], &[&l]), vec![15, 3, 5, 7, 1, 3]);
}

#[test]
fn tiled_refusals() {
    let d = DType::Float32;
    let k = copy(d, d);
    assert!(emit_tiled(&k, &spec(&k, 1, 32, vec![true, false]), &opts()).is_err());
    assert!(emit_tiled(&k, &spec(&k, 2, 8, vec![true, false]), &opts()).is_err());
    // A staged output stored under a condition keeps the strided launch.
    let cond = Kernel {
        name: "cond".into(),
        inputs: vec![d],
        outputs: vec![d],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::binary(
                B::Gt,
                Expr::input(0, d),
                Expr::constant(Scalar::Float32(0.0)),
            ),
            then_body: vec![Stmt::Store {
                output: 0,
                value: Expr::input(0, d),
            }],
            else_body: vec![],
        }],
    };
    assert!(!tiled_eligible(&cond, &[false, true]));
    assert!(tiled_eligible(&cond, &[true, false]));
    assert_eq!(tiled_bytes(&k, &[true, false], 32), 32 * 33 * 4);
    assert_eq!(
        tiled_bytes(
            &copy(DType::Complex128, DType::Complex128),
            &[true, true],
            16
        ),
        2 * 16 * 17 * 16
    );
}
