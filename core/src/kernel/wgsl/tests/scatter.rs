//! Raw stores and atomic updates (scatter).

use super::*;

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
