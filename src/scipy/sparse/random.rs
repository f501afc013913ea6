//! SciPy's `random` / `rand`: a matrix of `round(density * m * n)` entries at distinct random
//! positions with uniform `[0, 1)` values.
//!
//! The values and positions come from cupy-rs's Philox generator ([`Generator`]), so they are
//! the same on every backend but differ from SciPy's (NumPy's PCG64): only the structure
//! (shape, nnz, format, dtype, distinct in-range positions) matches SciPy. Positions: the first
//! `k` of a random permutation of `0..m n` when `m n` is small (at most 2^22 or 4 k), else
//! rounds of random integers made unique until `k` are drawn, then a random `k` of them, so the
//! memory stays `O(k)` for large, very sparse matrices.

use super::base::{fit_index, Format, Sparse, SparseMatrix};
use super::CooMatrix;
use crate::array::Array;
use crate::device::Device;
use crate::indexing::take;
use crate::random::Generator;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};

/// The keywords of [`random_with`] (SciPy's `random(m, n, density=0.01, format='coo',
/// dtype=None, rng=None)`).
#[derive(Clone, Debug)]
pub struct SpRandom {
    /// The fraction of entries stored (`0 <= density <= 1`).
    pub density: f64,
    /// The format (default COO, as SciPy's).
    pub format: Format,
    /// float32, float64 (default), complex64 or complex128 (real and imaginary parts uniform).
    pub dtype: DType,
    /// A seed for a fresh [`crate::random::default_rng`]; `None`: the global generator.
    pub seed: Option<u64>,
    /// The device (`None`: the current one).
    pub device: Option<Device>,
}

impl Default for SpRandom {
    fn default() -> SpRandom {
        SpRandom {
            density: 0.01,
            format: Format::Coo,
            dtype: DType::Float64,
            seed: None,
            device: None,
        }
    }
}

/// SciPy's `random(m, n, density)` (COO, float64, the global generator).
///
/// # Errors
/// As [`random_with`].
pub fn random(m: usize, n: usize, density: f64) -> Result<Sparse> {
    random_with(
        m,
        n,
        SpRandom {
            density,
            ..Default::default()
        },
    )
}
routine!(random as "cupyx.scipy.sparse.random / rand", Sparse, probe: super::probe, notes: "Philox values and positions (not SciPy's PCG64 stream): same structure, other numbers");

/// SciPy's `rand(m, n, density)`: the same as [`random`].
///
/// # Errors
/// As [`random_with`].
pub fn rand(m: usize, n: usize, density: f64) -> Result<Sparse> {
    random(m, n, density)
}

/// SciPy's `random(m, n, density, format, dtype, rng)` with [`SpRandom`]'s keywords.
///
/// # Errors
/// [`Error::InvalidArgument`] for a density outside `[0, 1]` (naming it and the shape);
/// [`Error::TypeError`] for a dtype other than the four float and complex ones.
pub fn random_with(m: usize, n: usize, opts: SpRandom) -> Result<Sparse> {
    let dev = match &opts.device {
        Some(d) => d.clone(),
        None => Device::current()?,
    };
    let run = |g: &mut Generator| crate::device::with_device(&dev, || sample(g, m, n, &opts));
    let coo = match opts.seed {
        Some(s) => run(&mut crate::random::default_rng(s)),
        None => crate::random::legacy::with_global(run),
    }?;
    coo.asformat(opts.format)
}

/// [`random_with`] drawing from a given generator (SciPy's `rng=` a `Generator`); the
/// `seed` keyword is ignored.
///
/// # Errors
/// As [`random_with`].
pub fn random_from(g: &mut Generator, m: usize, n: usize, opts: SpRandom) -> Result<Sparse> {
    let dev = match &opts.device {
        Some(d) => d.clone(),
        None => Device::current()?,
    };
    crate::device::with_device(&dev, || sample(g, m, n, &opts))?.asformat(opts.format)
}

fn sample(g: &mut Generator, m: usize, n: usize, o: &SpRandom) -> Result<CooMatrix> {
    let op = "sparse.random";
    if !(0.0..=1.0).contains(&o.density) {
        return Err(Error::invalid(
            op,
            format!(
                "density expected to be 0 <= density <= 1, got {} for shape ({m}, {n})",
                o.density
            ),
        ));
    }
    let t = o.dtype;
    if !matches!(
        t,
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128
    ) {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![t],
            msg: "sparse.random draws float32/float64/complex64/complex128 values".into(),
        });
    }
    let mn = m
        .checked_mul(n)
        .ok_or_else(|| Error::invalid(op, format!("shape ({m}, {n}) overflows")))?;
    // Python's round(): ties to even (round(10.5) == 10).
    let k = (o.density * mn as f64).round_ties_even() as usize;
    let it = fit_index(DType::Int32, m.max(n));
    let dev = Device::current()?;
    if k == 0 {
        return Ok(CooMatrix::new_unchecked(
            Array::empty_on(&dev, &[0], t)?,
            Array::empty_on(&dev, &[0], it)?,
            Array::empty_on(&dev, &[0], it)?,
            (m, n),
            Some(true),
        ));
    }
    let flat = if mn <= (1 << 22) || mn <= 4 * k {
        g.choice(mn, &[k], false, None)?
    } else {
        // Rounds of random integers, made unique, until k distinct ones are drawn.
        let mut have = Array::empty_on(&dev, &[0], DType::Int64)?;
        while have.size() < k {
            let want = k - have.size();
            let draw = g.integers(0, mn as i64, &[want + want / 4 + 16])?;
            have = crate::sorting::unique(&crate::concatenate(&[&have, &draw], 0)?)?;
        }
        // The unique values are sorted: a random k of them, in random order.
        let pick = g.choice(have.size(), &[k], false, None)?;
        take(&have, &pick)?
    };
    // SciPy unravels in Fortran order: row = flat % m, col = flat / m.
    let flat = flat.astype(DType::Int64)?;
    let row = flat.remainder(m as i64)?.astype(it)?;
    let col = flat.floor_divide(m as i64)?.astype(it)?;
    let data = if t.is_complex() {
        let rt = if t == DType::Complex64 {
            DType::Float32
        } else {
            DType::Float64
        };
        let re = g.random_with(&[k], rt)?;
        let im = g.random_with(&[k], rt)?;
        let i = re.astype(t)?;
        (&i + &im
            .astype(t)?
            .multiply(num_complex::Complex::new(0.0f64, 1.0))?)?
            .astype(t)?
    } else {
        g.random_with(&[k], t)?
    };
    Ok(CooMatrix::new_unchecked(data, row, col, (m, n), None))
}
