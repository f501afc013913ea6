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
    let pairs = WgslOptions {
        int64_atomics: false,
        fused_fma: true,
        ..opts()
    };
    for d in all {
        for op in [
            None,
            Some(AtomicOp::Add),
            Some(AtomicOp::Max),
            Some(AtomicOp::Min),
        ] {
            for read_back in [false, true] {
                let k = scatter_kernel(d, op, read_back);
                n += check_kernel(&k);
                if storage_bytes(d) == Some(8) {
                    n += check_kernel_with(&k, &pairs);
                }
            }
        }
    }
    // Complex atomics are refused with the reason.
    for d in [DType::Complex64, DType::Complex128] {
        let k = scatter_kernel(d, Some(AtomicOp::Add), false);
        let e = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap_err();
        assert!(
            matches!(e, Error::DTypeNotSupported { .. }) && e.to_string().contains("complex"),
            "{e}"
        );
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
    // Packed int8: a compare-and-swap on the element's u32 word, changing its 8 bits only.
    assert!(
        sh.source.contains("array<atomic<u32>>")
            && sh.source.contains("insertBits(old, ")
            && sh.source.contains("let wi = i >> 2u;"),
        "{}",
        sh.source
    );
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
    // 64-bit atomics on an adapter with them: atomic<i64>/<u64> words, native integer ops, a
    // compare-and-swap loop for float64; no lock buffer.
    let k = scatter_kernel(DType::Int64, Some(AtomicOp::Max), true);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.contains("read_write> b3: array<atomic<i64>>"));
    assert!(sh.source.contains("atomicMax(&b3[i], v)"));
    assert!(!sh.source.contains("alk"));
    let k = scatter_kernel(DType::Float64, Some(AtomicOp::Add), true);
    assert!(!atomic_lock(&k, true) && atomic_lock(&k, false));
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh.source.contains("read_write> b3: array<atomic<u64>>"));
    assert!(sh
        .source
        .contains("atomicCompareExchangeWeak(&b3[i], old, nw)"));
    assert!(sh.source.contains("bitcast<f64>(atomicLoad(&b3["));
    // Without them: int64 Add is two 32-bit atomic adds with carry on a pair-of-words binding.
    let k = scatter_kernel(DType::Int64, Some(AtomicOp::Add), true);
    assert!(!atomic_lock(&k, false));
    let sh = emit_elementwise(&k, &specs(&k)[0], &pairs).unwrap();
    assert!(sh.source.contains("read_write> b3: array<atomic<u32>>"));
    assert!(sh
        .source
        .contains("let carry = select(0u, 1u, old + lo < old);"));
    assert!(sh.source.contains("bitcast<i64>(b3_pair_ld("));
    assert!(!sh.source.contains("alk"));
    // ... and the other 64-bit updates take the lock bound after the plan's buffers, before
    // the loop guard's.
    for (d, op) in [
        (DType::Float64, AtomicOp::Add),
        (DType::Float64, AtomicOp::Min),
        (DType::UInt64, AtomicOp::Max),
        (DType::Int64, AtomicOp::Min),
    ] {
        let k = scatter_kernel(d, Some(op), true);
        assert!(atomic_lock(&k, false));
        let s = &specs(&k)[0];
        let lb = lock_binding(s.bindings.buffers.len());
        let mode = LoopMode {
            guard: true,
            window: false,
        };
        let sh = emit_elementwise_with(&k, s, &pairs, mode).unwrap();
        assert!(sh.source.contains(&format!(
            "@binding({lb}) var<storage, read_write> alk: array<atomic<u32>>"
        )));
        assert!(sh
            .source
            .contains(&format!("@binding({}) var<storage, read_write> lg", lb + 1)));
        assert!(sh
            .source
            .contains("if (atomicCompareExchangeWeak(&alk[lk], 0u, 1u).exchanged) {"));
        assert!(sh.source.contains("atomicStore(&alk[lk], 0u);"));
        assert!(sh.source.contains("if (!done) { lg[0]"), "{}", sh.source);
    }
    // Plain stores of 64-bit types are fine.
    let k = scatter_kernel(DType::Float64, None, true);
    let sh = emit_elementwise(&k, &specs(&k)[0], &opts()).unwrap();
    assert!(sh
        .source
        .contains("var<storage, read_write> b3: array<f64>"));
}
