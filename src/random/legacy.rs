//! NumPy's legacy module-level functions (`numpy.random.rand`, `randn`, `randint`,
//! `random_sample`, `seed`) on one global [`Generator`] (seed 0 until [`seed`] is called).
//! They take the generator's next counter value like any other call, so a seeded program
//! gives the same arrays on every backend.

use super::generator::{default_rng, Generator, Sample};
use super::Integers;
use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::error::Result;
use std::sync::Mutex;

static GLOBAL: Mutex<Option<Generator>> = Mutex::new(None);

/// Runs `f` on the global generator.
pub fn with_global<R>(f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(|| default_rng(0)))
}

/// `numpy.random.seed(seed)`: re-keys the global generator (as `default_rng(seed)`).
pub fn seed(seed: u64) {
    *GLOBAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(default_rng(seed));
}
routine!(seed as "cupy.random.seed", Random);

/// `numpy.random.rand(*shape)`: float64 uniforms in `[0, 1)`.
///
/// # Errors
/// As [`Generator::random`].
pub fn rand(shape: &[usize]) -> Result<Array> {
    with_global(|g| g.random(shape))
}
routine!(rand as "cupy.random.rand", Random, probe: super::kernels::probe_float);

/// `numpy.random.random_sample(size)` (also `random`): float64 uniforms in `[0, 1)`;
/// `dtype=float32` is CuPy's extension.
///
/// # Errors
/// As [`Generator::random_with`].
pub fn random_sample(shape: &[usize], opts: impl Into<Sample>) -> Result<Array> {
    with_global(|g| g.random_with(shape, opts))
}
routine!(random_sample as "cupy.random.random_sample", Random, probe: super::kernels::probe_float);

/// `numpy.random.randn(*shape)`: float64 standard normals.
///
/// # Errors
/// As [`Generator::standard_normal`].
pub fn randn(shape: &[usize]) -> Result<Array> {
    with_global(|g| g.standard_normal(shape))
}
routine!(randn as "cupy.random.randn", Random, probe: super::kernels::probe_float);

/// `cupy.random.randn` with `dtype=` (CuPy's extension: float32 or float64).
///
/// # Errors
/// As [`Generator::standard_normal_with`].
pub fn randn_with(shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.standard_normal_with(shape, dtype))
}

/// `numpy.random.randint(low, high, size)`: int64 values in `[low, high)`.
///
/// # Errors
/// As [`Generator::integers`].
pub fn randint(low: i64, high: i64, shape: &[usize]) -> Result<Array> {
    with_global(|g| g.integers(low, high, shape))
}
routine!(randint as "cupy.random.randint", Random, probe: super::kernels::probe_int);

/// `numpy.random.randint(low, high, size, dtype=)`.
///
/// # Errors
/// As [`Generator::integers_with`].
pub fn randint_with(low: i64, high: i64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| {
        g.integers_with(
            low as i128,
            high as i128,
            shape,
            Integers {
                dtype,
                ..Default::default()
            },
        )
    })
}
