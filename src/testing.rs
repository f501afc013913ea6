//! Helpers shared by the frontend's unit tests (compiled only for `cargo test`).

use cupy_core::kernel::cpp::{
    emit_elementwise, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
};
use cupy_core::kernel::ir::Kernel;

/// The C++ of `kernels` as elementwise kernels of `flavor`, without the prelude: kernel `j` is
/// renamed `<name>_<j>` (so many fit in one module) and emitted strided, of rank 1 or 2 and with
/// 32- or 64-bit indexing in turn, so every launch form is covered. Panics naming the kernel
/// the emitter refuses.
pub(crate) fn elementwise_cpp_sources(kernels: Vec<Kernel>, flavor: Flavor) -> Vec<String> {
    let pre = prelude(flavor).len();
    kernels
        .into_iter()
        .enumerate()
        .map(|(j, mut k)| {
            k.name = format!("{}_{j}", k.name);
            let spec = ElementwiseSpec {
                ndim: 1 + j % 2,
                class: ElementwiseClass::Strided,
                index64: j % 3 == 0,
            };
            let e =
                emit_elementwise(&k, &spec, flavor).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            e.source[pre..].to_string()
        })
        .collect()
}
