//! Reduction shaders and the meta word layout.

use super::*;

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
            assert!(
                sh.source.contains("if (r < r1) { lg[0] = mt.w[")
                    || sh.source.contains("if (q < q1) { lg[0] = mt.w[")
            );
            if k.name == "sum_mod" {
                assert!(sh.source.contains("if (s > ay) { lg[0]"), "{}", sh.source);
            }
        }
    }
}

/// Tuple reductions (argmax/argmin, var/std) over every spec: a `struct Acc`, one partial
/// output binding per accumulator, the reduced index in the map; naga validates each.
/// Merged reductions of several outputs (`ReduceKernel::merge`): one output binding and one
/// meta entry per output in the final launch, the partial launch as for any tuple.
#[test]
fn merged_reductions_validate() {
    use crate::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    for d in [DType::Int8, DType::Float16, DType::Float32, DType::Float64] {
        let acc = if d == DType::Float16 {
            DType::Float32
        } else {
            d
        };
        let sum = ReduceKernel::simple("sum", d, acc, B::Add, Scalar::zero(acc), d);
        let parts = [sum, arg_extreme(d, Extreme::Min), moments(d, Moment::Std)];
        let k = ReduceKernel::merge("merged", &parts, 0).unwrap();
        assert_eq!(k.n_outputs(), 3);
        for s in rspecs(&k) {
            let sh = emit_reduction(&k, &s, &opts()).unwrap_or_else(|e| panic!("{d}: {e}"));
            validate(&sh.source);
            if !s.partial {
                for j in 0..3 {
                    let b = s.bindings.outputs[j];
                    assert!(sh.source.contains(&format!("b{b}[")), "{}", sh.source);
                }
            }
        }
        let w = reduction_words(
            &[2],
            &[5],
            1,
            5,
            &[&Layout::contiguous(&[2, 5])],
            &[None; 3],
        );
        assert_eq!(w.len(), 4 + 1 + 1 + 3 + 3 * 2 + 1);
    }
}

#[test]
fn tuple_reductions_validate() {
    use crate::kernel::reductions::{arg_extreme, moments, Extreme, Moment};
    let mut ks = vec![];
    for d in [
        DType::Bool,
        DType::Int8,
        DType::UInt16,
        DType::Int64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
    ] {
        ks.push(arg_extreme(d, Extreme::Max));
        ks.push(arg_extreme(d, Extreme::Min));
        ks.push(moments(d, Moment::Var));
        ks.push(moments(d, Moment::Std));
    }
    for k in &ks {
        for s in rspecs(k) {
            let sh = emit_reduction(k, &s, &opts()).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            validate(&sh.source);
            assert!(sh.source.contains("struct Acc { v0: "), "{}", sh.source);
            if s.partial {
                for j in 0..k.n_acc() {
                    let b = s.bindings.outputs[j];
                    assert!(
                        sh.source.contains(&format!("  b{b}[t + chb * n_out] = ")),
                        "{}",
                        sh.source
                    );
                }
            }
        }
    }
    // The identity's index loses every tie: i64::MAX, so the kernel is not narrow.
    let k = arg_extreme(DType::Float32, Extreme::Max);
    let sh = emit_reduction(&k, &rspecs(&k)[0], &opts()).unwrap();
    assert!(
        sh.source.contains(
            "Acc((-bitcast<f32>(0x7f800000u + (mt.w[0][0] >> 31u))), 9223372036854775807li)"
        ),
        "{}",
        sh.source
    );
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
    let w = elementwise_words(&spec, &[3, 4], &[&a, &c, &c], &[], None);
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
