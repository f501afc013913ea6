//! [`sampler_kernels`]: the IR kernel of every sampler (float32 and float64 where they
//! apply), built without launching, for emitter tests (hipRTC and NVRTC compile checks).

use super::generator::default_rng;
use super::Integers;
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::Kernel;
use std::cell::RefCell;

thread_local! {
    static COLLECT: RefCell<Option<Vec<Kernel>>> = const { RefCell::new(None) };
}

/// True (and the kernel kept) while [`sampler_kernels`] collects on this thread.
pub(crate) fn collect(k: &Kernel) -> bool {
    COLLECT.with(|c| match c.borrow_mut().as_mut() {
        Some(v) => {
            v.push(k.clone());
            true
        }
        None => false,
    })
}

/// True while [`sampler_kernels`] (or a probe) collects on this thread.
pub(crate) fn collecting() -> bool {
    COLLECT.with(|c| c.borrow().is_some())
}

/// The kernels `f` builds on this thread (launching none).
fn collect_from(f: impl FnOnce(&mut super::Generator)) -> Vec<Kernel> {
    COLLECT.with(|c| *c.borrow_mut() = Some(vec![]));
    let mut g = default_rng(0);
    f(&mut g);
    COLLECT.with(|c| c.borrow_mut().take().unwrap_or_default())
}

/// Registry probe of the continuous samplers: float32 and float64 (the `random` kernel).
pub(crate) fn probe_float(t: DType) -> Option<crate::registry::Need> {
    if !matches!(t, DType::Float32 | DType::Float64) {
        return None;
    }
    let k = collect_from(|g| {
        let _ = g.random_with(&[1], t);
    });
    k.into_iter().next().map(crate::registry::Need::Kernel)
}

/// Registry probe of `integers`: every integer dtype (its kernel for the dtype).
pub(crate) fn probe_int(t: DType) -> Option<crate::registry::Need> {
    if !t.is_integer() {
        return None;
    }
    let k = collect_from(|g| {
        let _ = g.integers_with(0, 2, &[1], Integers::from(t));
    });
    k.into_iter().next().map(crate::registry::Need::Kernel)
}

/// Registry probe of the int64 samplers (Poisson's kernel: int64 output, float64 inside).
pub(crate) fn probe_int64(t: DType) -> Option<crate::registry::Need> {
    if t != DType::Int64 {
        return None;
    }
    let k = collect_from(|g| {
        let _ = g.poisson(2.0, &[1]);
    });
    k.into_iter().next().map(crate::registry::Need::Kernel)
}

/// Every sampler's kernel: random, uniform, the normal and exponential ziggurats and their
/// transforms, gamma (shape below and above 1), integers (narrow and wide ranges), geometric,
/// Poisson and binomial (both methods each), weighted choice and multinomial, in float32 and
/// float64 where the sampler takes a dtype. The cpu device holds the ziggurat tables' operands
/// meanwhile (nothing is launched).
pub fn sampler_kernels() -> Vec<Kernel> {
    collect_from(sampler_calls)
}

fn sampler_calls(g: &mut super::Generator) {
    let s: &[usize] = &[4];
    for t in [DType::Float32, DType::Float64] {
        let _ = g.random_with(s, t);
        let _ = g.uniform(0.0, 2.0, s, t);
        let _ = g.standard_normal_with(s, t);
        let _ = g.normal(1.0, 2.0, s, t);
        let _ = g.lognormal(0.0, 1.0, s, t);
        let _ = g.standard_exponential_with(s, t);
        let _ = g.exponential(2.0, s, t);
        let _ = g.laplace(0.0, 1.0, s, t);
        let _ = g.logistic(0.0, 1.0, s, t);
        let _ = g.gumbel(0.0, 1.0, s, t);
        let _ = g.weibull(1.5, s, t);
        let _ = g.pareto(2.0, s, t);
        let _ = g.standard_gamma(0.5, s, t);
        let _ = g.gamma(2.5, 1.0, s, t);
    }
    let _ = g.integers(0, 10, s);
    let _ = g.integers_with(0, 200, s, Integers::from(DType::UInt8));
    let _ = g.integers(i64::MIN, i64::MAX, s);
    let _ = g.geometric(0.3, s);
    let _ = g.poisson(3.0, s);
    let _ = g.poisson(300.0, s);
    let _ = g.binomial(10, 0.3, s);
    let _ = g.binomial(1000, 0.3, s);
    let _ = g.choice(3, s, true, Some(&[0.2, 0.3, 0.5]));
    let _ = g.multinomial(5, &[0.5, 0.5], s);
}
