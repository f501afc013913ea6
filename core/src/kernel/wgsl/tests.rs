use super::*;
use crate::kernel::ir::{BinaryOp as B, UnaryOp as U};

const INTS: [DType; 8] = [
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
];
const FLOATS: [DType; 4] = [
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

fn opts() -> WgslOptions {
    WgslOptions {
        shader_f64: true,
        shader_int64: true,
        device: "wgpu:0 (test)".into(),
    }
}

fn validate(src: &str) {
    let module = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_INT64,
    );
    v.validate(&module)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
}

fn specs(k: &Kernel) -> Vec<ElementwiseSpec> {
    let b = BindingPlan::distinct_for(k);
    let mut v = vec![];
    for (ndim, contiguous) in [(1, true), (1, false), (2, false), (4, false)] {
        v.push(ElementwiseSpec {
            ndim,
            contiguous,
            vec4: false,
            wide_int64: false,
            bindings: b.clone(),
        });
    }
    v.push(ElementwiseSpec {
        ndim: 3,
        contiguous: false,
        vec4: false,
        wide_int64: true,
        bindings: b.clone(),
    });
    if vec4_eligible(k) {
        v.push(ElementwiseSpec {
            ndim: 1,
            contiguous: true,
            vec4: true,
            wide_int64: false,
            bindings: b,
        });
    }
    v
}

/// Every spec, plain, with a loop guard, and (not vec4) windowed with a guard.
fn check_kernel(k: &Kernel) -> usize {
    let mut n = 0;
    for s in specs(k) {
        for (guard, window) in [(false, false), (true, false), (true, true), (false, true)] {
            if window && s.vec4 {
                continue;
            }
            let mode = LoopMode { guard, window };
            let sh = emit_elementwise_with(k, &s, &opts(), mode)
                .unwrap_or_else(|e| panic!("kernel {} spec {s:?} {mode:?}: {e}", k.name));
            validate(&sh.source);
            let words = elementwise_n_words(k, &s) + mode.extra_words();
            assert_eq!(sh.meta.n_words, words.div_ceil(4) * 4);
            n += 1;
        }
    }
    n
}

fn bin(op: BinaryOp, d: DType) -> Kernel {
    Kernel::map(
        "bin",
        vec![d, d],
        vec![],
        Expr::binary(op, Expr::input(0, d), Expr::input(1, d)),
    )
}

const BINOPS: [BinaryOp; 23] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::FloorDiv,
    B::Mod,
    B::Pow,
    B::Max,
    B::Min,
    B::FMax,
    B::FMin,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::Shl,
    B::Shr,
    B::Atan2,
];

#[test]
fn every_binary_op_every_dtype_validates() {
    let mut n = 0;
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        for op in BINOPS {
            let float_only = matches!(op, B::Atan2);
            let int_only = matches!(op, B::And | B::Or | B::Xor | B::Shl | B::Shr);
            if (float_only && !d.is_float()) || (int_only && d.is_float()) {
                continue;
            }
            let k = bin(op, *d);
            let r = emit_elementwise(&k, &specs(&k)[0], &opts());
            if *d == DType::Float64 && matches!(op, B::Pow | B::Atan2) {
                assert!(matches!(r, Err(Error::DTypeNotSupported { .. })), "{op:?}");
                continue;
            }
            if *d == DType::Bool
                && matches!(op, B::Div | B::FloorDiv | B::Mod | B::Pow | B::Shl | B::Shr)
            {
                assert!(r.is_err());
                continue;
            }
            n += check_kernel(&k);
        }
    }
    assert!(n > 400, "{n}");
}

#[test]
fn every_unary_op_every_dtype_validates() {
    let ops = [
        U::Neg,
        U::Abs,
        U::Not,
        U::BitNot,
        U::Sqrt,
        U::Exp,
        U::Log,
        U::Sin,
        U::Cos,
        U::Tan,
        U::Tanh,
        U::Floor,
        U::Ceil,
        U::IsNan,
        U::IsInf,
        U::IsFinite,
    ];
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        for op in ops {
            let math = matches!(
                op,
                U::Sqrt | U::Exp | U::Log | U::Sin | U::Cos | U::Tan | U::Tanh
            );
            if (math && !d.is_float()) || (op == U::BitNot && d.is_float()) {
                continue;
            }
            let k = Kernel::map("un", vec![*d], vec![], Expr::unary(op, Expr::input(0, *d)));
            if *d == DType::Float64 && op.is_transcendental() {
                let e = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap_err();
                let msg = e.to_string();
                assert!(matches!(e, Error::DTypeNotSupported { .. }), "{msg}");
                assert!(msg.contains(&format!("{op:?}").to_lowercase()), "{msg}");
                continue;
            }
            check_kernel(&k);
        }
    }
}

#[test]
fn every_cast_validates() {
    let all: Vec<DType> = [DType::Bool]
        .iter()
        .chain(&INTS)
        .chain(&FLOATS)
        .copied()
        .collect();
    for &a in &all {
        for &b in &all {
            let k = Kernel::map("cast", vec![a], vec![], Expr::input(0, a).cast(b));
            check_kernel(&k);
        }
    }
}

#[test]
fn params_constants_fill_arange() {
    for d in [DType::Bool].iter().chain(&INTS).chain(&FLOATS) {
        // fill: zero inputs.
        let k = Kernel::map("fill", vec![], vec![*d], Expr::param(0, *d));
        check_kernel(&k);
        // constants of every kind
        for v in [
            Scalar::Int64(0),
            Scalar::Int64(-1),
            Scalar::Int64(i64::MIN),
            Scalar::Float64(f64::NAN),
            Scalar::Float64(f64::NEG_INFINITY),
            Scalar::Float64(-0.0),
            Scalar::Float64(1e-310),
            Scalar::Float64(3.5e300),
        ] {
            let k = Kernel::map("c", vec![], vec![], Expr::constant(v.cast(*d)));
            check_kernel(&k);
        }
    }
    // arange: Param(0) + Cast(Index) * Param(1), cast to the dtype.
    for d in [
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Float64,
        DType::UInt8,
    ] {
        let f = DType::Float64;
        let v = Expr::binary(
            B::Add,
            Expr::param(0, f),
            Expr::binary(B::Mul, Expr::index().cast(f), Expr::param(1, f)),
        )
        .cast(d);
        let k = Kernel::map("arange", vec![], vec![f, f], v);
        check_kernel(&k);
    }
    // mixed params alignment: f32, f64, i64, bool, u8
    let k = Kernel::map(
        "mixed",
        vec![DType::Float32],
        vec![
            DType::Float32,
            DType::Float64,
            DType::Int64,
            DType::Bool,
            DType::UInt8,
        ],
        Expr::select(
            Expr::param(3, DType::Bool),
            Expr::binary(
                B::Add,
                Expr::input(0, DType::Float32),
                Expr::param(0, DType::Float32),
            ),
            Expr::param(1, DType::Float64).cast(DType::Float32),
        ),
    );
    check_kernel(&k);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert_eq!(sh.meta.params[1].0, 8);
    assert_eq!(sh.meta.words_offset % 16, 0);
}

/// A convolve2d-style kernel: loops over a window, `If` bounds, raw loads, index arithmetic.
pub(crate) fn convolve_kernel(d: DType) -> Kernel {
    let i64_ = DType::Int64;
    let c = |v: i64| Expr::constant(Scalar::Int64(v));
    let (w, kh, kw) = (
        Expr::param(0, i64_),
        Expr::param(1, i64_),
        Expr::param(2, i64_),
    );
    let h = Expr::param(3, i64_);
    let row = Expr::binary(B::Div, Expr::index(), w.clone());
    let col = Expr::binary(B::Mod, Expr::index(), w.clone());
    // locals: 0 acc (d), 1 ky, 2 kx, 3 y, 4 x
    let y = Expr::binary(B::Sub, Expr::binary(B::Add, row, Expr::var(1, i64_)), c(1));
    let x = Expr::binary(B::Sub, Expr::binary(B::Add, col, Expr::var(2, i64_)), c(1));
    let inb = Expr::binary(
        B::And,
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(3, i64_), c(0)),
            Expr::binary(B::Lt, Expr::var(3, i64_), h),
        ),
        Expr::binary(
            B::And,
            Expr::binary(B::Ge, Expr::var(4, i64_), c(0)),
            Expr::binary(B::Lt, Expr::var(4, i64_), w.clone()),
        ),
    );
    let img = Expr::load(
        0,
        d,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(3, i64_), w),
            Expr::var(4, i64_),
        ),
    );
    let ker = Expr::load(
        1,
        d,
        Expr::binary(
            B::Add,
            Expr::binary(B::Mul, Expr::var(1, i64_), kw.clone()),
            Expr::var(2, i64_),
        ),
    );
    Kernel {
        name: "convolve2d".into(),
        inputs: vec![],
        outputs: vec![d],
        raws: vec![d, d],
        params: vec![i64_, i64_, i64_, i64_],
        locals: vec![d, i64_, i64_, i64_, i64_],
        body: vec![
            Stmt::Let {
                var: 0,
                value: Expr::constant(Scalar::zero(d)),
            },
            Stmt::For {
                var: 1,
                start: c(0),
                end: kh,
                body: vec![Stmt::For {
                    var: 2,
                    start: c(0),
                    end: kw,
                    body: vec![
                        Stmt::Let { var: 3, value: y },
                        Stmt::Let { var: 4, value: x },
                        Stmt::If {
                            cond: inb,
                            then_body: vec![Stmt::Assign {
                                var: 0,
                                value: Expr::binary(
                                    B::Add,
                                    Expr::var(0, d),
                                    Expr::binary(B::Mul, img, ker),
                                ),
                            }],
                            else_body: vec![],
                        },
                    ],
                }],
            },
            Stmt::Store {
                output: 0,
                value: Expr::var(0, d),
            },
        ],
    }
}

#[test]
fn loops_ifs_loads_and_multiple_outputs() {
    for d in [DType::Float32, DType::Float64, DType::Int32, DType::Float16] {
        let k = convolve_kernel(d);
        assert!(!vec4_eligible(&k));
        check_kernel(&k);
    }
    // two outputs, conditional store, aliasing input/output binding
    let f = DType::Float32;
    let k = Kernel {
        name: "divmod".into(),
        inputs: vec![f, f],
        outputs: vec![f, f],
        raws: vec![],
        params: vec![],
        locals: vec![],
        body: vec![
            Stmt::Store {
                output: 0,
                value: Expr::binary(B::FloorDiv, Expr::input(0, f), Expr::input(1, f)),
            },
            Stmt::Store {
                output: 1,
                value: Expr::binary(B::Mod, Expr::input(0, f), Expr::input(1, f)),
            },
        ],
    };
    assert!(vec4_eligible(&k));
    check_kernel(&k);
    let plan = BindingPlan::new(&[(1, f), (2, f)], &[(1, f), (3, f)], &[]);
    assert_eq!(plan.buffers.len(), 3);
    assert_eq!(plan.inputs[0], plan.outputs[0]);
    let s = ElementwiseSpec {
        ndim: 2,
        contiguous: false,
        vec4: false,
        wide_int64: false,
        bindings: plan,
    };
    validate(&emit_elementwise(&k, &s, &opts()).unwrap().source);
}

#[test]
fn refusals() {
    let k = bin(B::Add, DType::Complex64);
    let e = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap_err();
    assert!(matches!(
        e,
        Error::DTypeNotSupported {
            dtype: DType::Complex64,
            ..
        }
    ));
    let k = bin(B::Add, DType::Float64);
    let mut o = opts();
    o.shader_f64 = false;
    let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
    assert!(
        e.to_string()
            .contains("float64 on a wgpu adapter without SHADER_F64"),
        "{e}"
    );
    let k = bin(B::Add, DType::Int64);
    o.shader_int64 = false;
    let e = emit_elementwise(&k, &specs(&k)[0], &o).unwrap_err();
    assert!(e.to_string().contains("SHADER_INT64"), "{e}");
    // index arithmetic works without SHADER_INT64 (narrow)
    let k = Kernel::map(
        "idx",
        vec![],
        vec![],
        Expr::binary(B::Mod, Expr::index(), Expr::constant(Scalar::Int64(7))).cast(DType::Float32),
    );
    emit_elementwise(&k, &specs(&k)[0], &o).unwrap();
    assert_eq!(
        storage_refusal(DType::Float64, false, true).unwrap(),
        "float64 on a wgpu adapter without SHADER_F64"
    );
    assert!(storage_refusal(DType::Float64, true, false).is_none());
}

fn rspecs(k: &ReduceKernel) -> Vec<ReduceSpec> {
    let mut v = vec![];
    for mode in [ReduceMode::ThreadPerOutput, ReduceMode::GroupPerOutput] {
        for (o, r) in [(0, 1), (1, 1), (2, 0), (1, 2), (0, 3)] {
            for partial in [false, true] {
                let out = if partial { k.acc[0] } else { k.output };
                v.push(ReduceSpec {
                    out_ndim: o,
                    red_ndim: r,
                    mode,
                    partial,
                    wide_int64: false,
                    bindings: BindingPlan::distinct(&k.inputs, &[out], &[]),
                });
            }
        }
    }
    v
}

#[test]
fn reductions_validate() {
    let mut ks = vec![];
    for d in [DType::Float32, DType::Float64, DType::Int32, DType::Float16] {
        ks.push(ReduceKernel::simple(
            "sum",
            d,
            d,
            B::Add,
            Scalar::zero(d),
            d,
        ));
        ks.push(ReduceKernel::simple(
            "max",
            d,
            d,
            B::Max,
            Scalar::min_value(d),
            d,
        ));
    }
    ks.push(ReduceKernel::simple(
        "sum_bool",
        DType::Bool,
        DType::Int64,
        B::Add,
        Scalar::Int64(0),
        DType::Int64,
    ));
    ks.push(ReduceKernel::simple(
        "any",
        DType::Float32,
        DType::Bool,
        B::Or,
        Scalar::Bool(false),
        DType::Bool,
    ));
    let mut mean = ReduceKernel::simple(
        "mean",
        DType::Float32,
        DType::Float32,
        B::Add,
        Scalar::Float32(0.0),
        DType::Float32,
    );
    mean.params = vec![DType::Float32];
    mean.post = Expr::binary(
        B::Div,
        Expr::var(0, DType::Float32),
        Expr::param(0, DType::Float32),
    );
    ks.push(mean);
    let mut fm = ReduceKernel::simple(
        "sum_mod",
        DType::Float32,
        DType::Float32,
        B::Add,
        Scalar::Float32(0.0),
        DType::Float32,
    );
    fm.map[0] = Expr::binary(
        B::Mod,
        Expr::input(0, DType::Float32),
        Expr::constant(Scalar::Float32(0.3)),
    );
    ks.push(fm);
    for k in &ks {
        for s in rspecs(k) {
            let sh = emit_reduction(k, &s, &opts()).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            validate(&sh.source);
            assert!(!sh.source.contains("lg["));
            let g = LoopMode {
                guard: true,
                window: false,
            };
            let sh = emit_reduction_with(k, &s, &opts(), g)
                .unwrap_or_else(|e| panic!("{}: {e}", k.name));
            validate(&sh.source);
            assert!(sh.source.contains("if (r < r1) { lg[0] = mt.w["));
            if k.name == "sum_mod" {
                assert!(sh.source.contains("if (s != ay) { lg[0]"), "{}", sh.source);
            }
        }
    }
}

#[test]
fn words_and_meta_layout() {
    let k = bin(B::Add, DType::Float32);
    let spec = ElementwiseSpec {
        ndim: 2,
        contiguous: false,
        vec4: false,
        wide_int64: false,
        bindings: BindingPlan::distinct(&k.inputs, &k.outputs, &[]),
    };
    let a = Layout {
        shape: vec![3, 4],
        strides: vec![-4, 1],
        offset: 8,
    };
    let c = Layout::contiguous(&[3, 4]);
    let w = elementwise_words(&spec, &[3, 4], &[&a, &c, &c], &[]);
    assert_eq!(w.len(), elementwise_n_words(&k, &spec));
    assert_eq!(&w[..6], &[12, 3, 4, 8, (-4i32) as u32, 1]);
    let m = MetaLayout::new(&[ParamRepr::F32, ParamRepr::F64], 5);
    assert_eq!(m.params, vec![(0, ParamRepr::F32), (8, ParamRepr::F64)]);
    assert_eq!(m.words_offset, 16);
    assert_eq!(m.size(), 16 + 32);
    let b = m.pack(&[Scalar::Float32(1.5), Scalar::Float64(2.5)], &[7, 8]);
    assert_eq!(&b[0..4], &1.5f32.to_le_bytes());
    assert_eq!(&b[8..16], &2.5f64.to_le_bytes());
    assert_eq!(&b[16..20], &7u32.to_le_bytes());
}

/// `raw0[idx] (op)= value` (`op` None: a plain store), optionally also reading the element back
/// into an output.
pub(crate) fn scatter_kernel(d: DType, op: Option<AtomicOp>, read_back: bool) -> Kernel {
    let i = Expr::input(0, DType::Int64);
    let v = Expr::input(1, d);
    let w = match op {
        None => Stmt::StoreRaw {
            raw: 0,
            index: i.clone(),
            value: v,
        },
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index: i.clone(),
            value: v,
        },
    };
    let mut body = vec![w];
    if read_back {
        body.push(Stmt::Store {
            output: 0,
            value: Expr::load(0, d, i),
        });
    }
    Kernel {
        name: format!("scatter_{}_{op:?}", d.name()),
        inputs: vec![DType::Int64, d],
        outputs: if read_back { vec![d] } else { vec![] },
        raws: vec![d],
        params: vec![],
        locals: vec![],
        body,
    }
}

#[test]
fn scatter_stores_and_atomics_validate() {
    let mut n = 0;
    let all: Vec<DType> = [DType::Bool]
        .into_iter()
        .chain(INTS)
        .chain(FLOATS)
        .collect();
    for d in all {
        for op in [
            None,
            Some(AtomicOp::Add),
            Some(AtomicOp::Max),
            Some(AtomicOp::Min),
        ] {
            for read_back in [false, true] {
                let k = scatter_kernel(d, op, read_back);
                let pair_add =
                    matches!(d, DType::Int64 | DType::UInt64) && op == Some(AtomicOp::Add);
                if op.is_some() && storage_bytes(d) == Some(8) && !pair_add {
                    let e = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap_err();
                    assert!(
                        matches!(e, Error::DTypeNotSupported { .. })
                            && e.to_string().contains("32-bit atomics"),
                        "{e}"
                    );
                    continue;
                }
                n += check_kernel(&k);
            }
        }
    }
    assert!(n > 300, "{n}");
    // The written raw is bound read_write and atomics go through atomic<..> words.
    let k = scatter_kernel(DType::Float32, Some(AtomicOp::Max), true);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh
        .source
        .contains("var<storage, read_write> b3: array<atomic<u32>>"));
    assert!(sh.source.contains("atomicCompareExchangeWeak"));
    assert!(sh.source.contains("atomicLoad(&b3["));
    let k = scatter_kernel(DType::Int8, Some(AtomicOp::Add), false);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.contains("array<atomic<i32>>") && sh.source.contains("<< 24u"));
    let k = scatter_kernel(DType::Int32, Some(AtomicOp::Add), false);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.contains("atomicAdd(&b2[i], v)"));
    // A plan that forgot to mark the written raw is refused, not miscompiled.
    let mut s = specs(&k)[0].clone();
    s.bindings = BindingPlan::distinct(&k.inputs, &k.outputs, &k.raws);
    assert!(emit_elementwise(&k, &s, &opts())
        .unwrap_err()
        .to_string()
        .contains("read-only"));
    // int64 Add: two 32-bit atomic adds with carry on a pair-of-words binding.
    let k = scatter_kernel(DType::Int64, Some(AtomicOp::Add), true);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.contains("read_write> b3: array<atomic<u32>>"));
    assert!(sh
        .source
        .contains("let carry = select(0u, 1u, old + lo < old);"));
    assert!(sh.source.contains("bitcast<i64>(b3_pair_ld("));
    // Plain stores of 64-bit types are fine.
    let k = scatter_kernel(DType::Float64, None, true);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh
        .source
        .contains("var<storage, read_write> b3: array<f64>"));
}

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

#[test]
fn loop_guard_and_window_text() {
    let k = convolve_kernel(DType::Float32);
    let s = &specs(&k)[1];
    let plain = emit_elementwise(&k, s, &opts()).unwrap();
    assert!(!plain.source.contains("lg[") && !plain.source.contains("sc["));
    let n = elementwise_n_words(&k, s);
    let g = emit_elementwise_with(
        &k,
        s,
        &opts(),
        LoopMode {
            guard: true,
            window: false,
        },
    )
    .unwrap();
    let gw = format!("lg[0] = {};", word(n));
    assert!(g.source.contains(&gw), "{}", g.source);
    assert!(g.source.contains(&format!(
        "@binding({}) var<storage, read_write> lg: array<u32>;",
        s.bindings.buffers.len() + 1
    )));
    let w = emit_elementwise_with(
        &k,
        s,
        &opts(),
        LoopMode {
            guard: true,
            window: true,
        },
    )
    .unwrap();
    // Window words come after the launch's own, the guard word last; raw offsets stay where
    // they were.
    assert!(w.source.contains(&format!("lg[0] = {};", word(n + 6))));
    assert!(w
        .source
        .contains(&format!("let i = gid + {};", word(n + 5))));
    let raw_off = format!("[{} + u32(", word(n - 1));
    assert!(plain.source.contains(&raw_off) && w.source.contains(&raw_off));
    assert!(w.source.contains(&format!(
        "@binding({}) var<storage, read_write> sc: array<u32>;",
        s.bindings.buffers.len() + 2
    )));
    assert_eq!(w.meta.n_words, (n + 7).div_ceil(4) * 4);
    // Locals of every width travel through the scratch words.
    let mut k2 = k.clone();
    k2.locals
        .extend([DType::Bool, DType::UInt16, DType::Float64, DType::UInt64]);
    k2.raws = vec![DType::Float32, DType::Float32];
    let sh = emit_elementwise_with(
        &k2,
        &ElementwiseSpec {
            wide_int64: true,
            bindings: BindingPlan::distinct_for(&k2),
            ..s.clone()
        },
        &opts(),
        LoopMode {
            guard: false,
            window: true,
        },
    )
    .unwrap();
    validate(&sh.source);
    assert!(sh.source.contains("bitcast<f64>((u64(sc["), "{}", sh.source);
    assert_eq!(
        scratch_words(&k2, true),
        scratch_words(&k, true) + 1 + 1 + 2 + 2
    );
    let mut no64 = opts();
    no64.shader_int64 = false;
    let e = emit_elementwise_with(
        &k2,
        s,
        &no64,
        LoopMode {
            guard: false,
            window: true,
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("SHADER_INT64"), "{e}");
}
