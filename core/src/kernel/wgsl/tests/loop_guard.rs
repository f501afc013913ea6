//! The loop guard and windowed launches in the emitted text.

use super::*;

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
