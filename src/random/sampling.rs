//! Sampling and shuffling: `Generator.permutation`, `shuffle`, `permuted`, `choice`,
//! `bytes`, `multinomial`, `multivariate_normal`. Permutations are the stable `argsort` of
//! float64 random keys (ties, below 2^-20 for 2^16 elements, keep index order), so they are
//! bit-identical wherever the keys and the sort are; weighted sampling without replacement
//! takes the `size` smallest `e_i / p_i` for standard exponentials `e_i` (Efraimidis and
//! Spirakis, "Weighted random sampling with a reservoir", IPL 97(5), 2006).

use super::builder::{add, bin, lt, mul, sub, Builder};
use super::distributions::uniform01;
use super::generator::Generator;
use super::philox::STREAM_PARAMS;
use super::Integers;
use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr, Kernel, Stmt};
use cupy_core::scalar::Scalar;

const F: DType = DType::Float64;

fn indices(device: &Device, n: usize) -> Result<Array> {
    let v: Vec<i64> = (0..n as i64).collect();
    Array::from_slice_on(device, &v, &[n])
}

/// `out[r, c] = x[r, perm[r, c]]` for contiguous `(rows, len)` arrays.
fn gather_rows(x: &Array, perm: &Array, len: usize) -> Result<Array> {
    let t = x.dtype();
    let i = Expr::index();
    let l = Expr::param(0, DType::Int64);
    let row = bin(B::Sub, i.clone(), bin(B::Mod, i.clone(), l.clone()));
    let src = bin(B::Add, row, Expr::load(1, DType::Int64, i));
    let k = Kernel {
        name: "permuted_gather".into(),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![t, DType::Int64],
        params: vec![DType::Int64],
        locals: vec![],
        body: vec![Stmt::Store {
            output: 0,
            value: Expr::load(0, t, src),
        }],
    };
    Elementwise {
        op: "permuted",
        kernel: &k,
        inputs: &[],
        raws: &[x, perm],
        params: vec![Scalar::Int64(len as i64)],
        outs: vec![None],
        device: Some(x.device()),
        shape: Some(x.shape()),
    }
    .run_one()
}

/// The largest `n` [`Generator::multinomial`] takes: each row makes `n` categorical draws,
/// so the work grows with `n` (a million draws of two categories took 10 s on the 2-core cpu
/// backend in a debug build, and `n = 2^62` would not finish).
pub const MULTINOMIAL_N_MAX: u64 = 1 << 20;

impl Generator {
    /// A permutation of `0..n` (int64).
    fn perm_indices(&mut self, n: usize) -> Result<Array> {
        let keys = self.random(&[n])?;
        crate::sorting::argsort(&keys)
    }

    /// `Generator.permutation(n)`: a random permutation of `0..n` (int64).
    ///
    /// # Errors
    /// Device errors.
    pub fn permutation(&mut self, n: usize) -> Result<Array> {
        self.perm_indices(n)
    }

    /// `Generator.permutation(x)`: a copy of `x` shuffled along axis 0.
    ///
    /// # Errors
    /// A 0-d `x`; device errors.
    pub fn permutation_of(&mut self, x: &Array) -> Result<Array> {
        if x.ndim() == 0 {
            return Err(Error::invalid("permutation", "x must be at least 1-d"));
        }
        let p = self.perm_indices(x.shape()[0])?;
        crate::indexing::take_with(x, &p, 0)
    }

    /// `Generator.shuffle(x)`: shuffles `x` in place along axis 0.
    ///
    /// # Errors
    /// As [`Generator::permutation_of`].
    pub fn shuffle(&mut self, x: &Array) -> Result<()> {
        let y = self.permutation_of(x)?;
        x.copy_from(&y)
    }

    /// `Generator.permuted(x, axis=)`: each 1-d slice along `axis` shuffled independently
    /// (`None`: the flattened array).
    ///
    /// # Errors
    /// An axis out of range; device errors.
    pub fn permuted(&mut self, x: &Array, axis: Option<isize>) -> Result<Array> {
        let (y, ax) = match axis {
            None => (x.reshape(&[-1])?, 0isize),
            Some(a) => (x.clone(), a),
        };
        let nd = y.ndim() as isize;
        let a = if ax < 0 { ax + nd } else { ax };
        if a < 0 || a >= nd {
            return Err(Error::AxisOutOfRange {
                op: "permuted".into(),
                axis: ax,
                ndim: nd as usize,
            });
        }
        let moved = y.moveaxis(&[a], &[-1])?;
        let moved = crate::manipulation::basic::ascontiguousarray(&moved)?;
        let len = *moved.shape().last().unwrap_or(&1);
        let keys = self.random(moved.shape())?;
        let perm = crate::sorting::argsort_with(&keys, -1)?;
        let g = gather_rows(&moved, &perm, len.max(1))?;
        let back = g.moveaxis(&[-1], &[a])?;
        match axis {
            None => back.reshape(&x.shape().iter().map(|&d| d as isize).collect::<Vec<_>>()),
            Some(_) => Ok(back),
        }
    }

    /// `Generator.choice(n, size, replace, p)`: int64 indices into `0..n`. With replacement:
    /// uniform integers, or (with `p`) a binary search of a uniform in `p`'s cumulative sums
    /// (taken in float64 on the host). Without: the first `size` of a permutation, or (with
    /// `p`) the `size` smallest `e_i / p_i`.
    ///
    /// # Errors
    /// `size > n` without replacement, `p` of the wrong length or not a distribution (checked
    /// for an empty `size` too), `n` above `i64::MAX`.
    pub fn choice(
        &mut self,
        n: usize,
        shape: &[usize],
        replace: bool,
        p: Option<&[f64]>,
    ) -> Result<Array> {
        let op = "choice";
        let size = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::invalid(op, format!("size {shape:?} overflows")))?;
        if i64::try_from(n).is_err() {
            return Err(Error::invalid(
                op,
                format!("n = {n} is out of bounds for int64"),
            ));
        }
        // `p` is checked before an empty size returns (NumPy's order)
        if let Some(p) = p {
            if p.len() != n {
                return Err(Error::invalid(
                    op,
                    format!("p has {} entries for n = {n}: they must match", p.len()),
                ));
            }
            let s: f64 = p.iter().sum();
            if p.iter().any(|&x| x.is_nan() || x < 0.0) || (s - 1.0).abs() > 1e-8 {
                return Err(Error::invalid(
                    op,
                    "probabilities must be >= 0 and sum to 1",
                ));
            }
        }
        if size == 0 {
            return crate::zeros_with(shape, DType::Int64);
        }
        if n == 0 && size > 0 {
            return Err(Error::invalid(op, "n == 0 and size > 0"));
        }
        let shp: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        if !replace {
            if size > n {
                return Err(Error::invalid(
                    op,
                    "cannot take a larger sample than the population without replacement",
                ));
            }
            if let Some(p) = p {
                if p.iter().filter(|&&x| x > 0.0).count() < size {
                    return Err(Error::invalid(op, "fewer non-zero entries in p than size"));
                }
            }
            let perm = match p {
                None => self.perm_indices(n)?,
                Some(p) => {
                    let e = self.standard_exponential(&[n])?;
                    let device = e.device().clone();
                    let pa = Array::from_slice_on(&device, p, &[n])?;
                    let keys = (&e / &pa)?;
                    crate::sorting::argsort(&keys)?
                }
            };
            let first = indices(perm.device(), size)?;
            return crate::indexing::take(&perm, &first)?.reshape(&shp);
        }
        match p {
            None => self.integers(0, n as i64, shape),
            Some(p) => {
                let mut cdf = Vec::with_capacity(n);
                let mut acc = 0.0;
                for &x in p {
                    acc += x;
                    cdf.push(acc);
                }
                let total = acc;
                let steps = (usize::BITS - n.leading_zeros()) as i64 + 1;
                let extra = vec![
                    (DType::Int64, Scalar::Int64(n as i64)),
                    (F, Scalar::Float64(total)),
                ];
                let cdf2 = cdf.clone();
                self.launch(
                    op,
                    shape,
                    DType::Int64,
                    None,
                    extra,
                    &move |d| Ok(vec![Array::from_slice_on(d, &cdf2, &[n])?]),
                    &|b: &mut Builder, st| {
                        let w = st.block_at(b, 0);
                        let u = b.let_(mul(uniform01(F, &w, 0), Expr::param(STREAM_PARAMS + 1, F)));
                        // First index with cdf[i] > u: lo..hi search.
                        let lo = b.var(Expr::constant(Scalar::Int64(0)));
                        let hi = b.var(sub(
                            Expr::param(STREAM_PARAMS, DType::Int64),
                            Expr::constant(Scalar::Int64(1)),
                        ));
                        b.for_(steps, |b, _| {
                            b.if_(lt(lo.clone(), hi.clone()), |b| {
                                let mid = b.let_(bin(
                                    B::FloorDiv,
                                    add(lo.clone(), hi.clone()),
                                    Expr::constant(Scalar::Int64(2)),
                                ));
                                let c = Expr::load(0, F, mid.clone());
                                b.if_else(
                                    bin(B::Gt, c, u.clone()),
                                    |b| b.assign(&hi, mid.clone()),
                                    |b| {
                                        b.assign(
                                            &lo,
                                            add(mid.clone(), Expr::constant(Scalar::Int64(1))),
                                        )
                                    },
                                );
                            });
                        });
                        b.store(lo.clone());
                        Ok(())
                    },
                )
            }
        }
    }

    /// `Generator.bytes(length)`: `length` random bytes.
    ///
    /// # Errors
    /// Device errors.
    pub fn bytes(&mut self, length: usize) -> Result<Vec<u8>> {
        let a = self.integers_with(0, 256, &[length], Integers::from(DType::UInt8))?;
        a.to_vec::<u8>()
    }

    /// `Generator.multinomial(n, pvals, size)`: int64 counts of shape `size + [k]`. Each row
    /// makes `n` categorical draws (a binary search of `pvals`' cumulative sums) from its own
    /// Philox stream, and every element of the row counts the draws of its category: `O(n k)`
    /// work per row, for moderate `n` (at most [`MULTINOMIAL_N_MAX`]).
    ///
    /// # Errors
    /// `pvals` empty, outside `[0, 1]`, or all but the last summing above 1 (+1e-12: the
    /// last is the remainder, as in NumPy); `Unsupported` for `n` above
    /// [`MULTINOMIAL_N_MAX`] (NumPy draws large `n` by conditional binomials, which is not
    /// here yet).
    pub fn multinomial(&mut self, n: u64, pvals: &[f64], shape: &[usize]) -> Result<Array> {
        let op = "multinomial";
        if n > MULTINOMIAL_N_MAX {
            return Err(Error::Unsupported {
                op: op.into(),
                backend: "every backend".into(),
                reason: format!(
                    "n = {n} > {MULTINOMIAL_N_MAX}: each row makes n categorical draws (O(n k) work); larger n needs the conditional-binomial method"
                ),
            });
        }
        let k = pvals.len();
        if k == 0 || pvals.iter().any(|&x| !(0.0..=1.0).contains(&x)) {
            return Err(Error::invalid(
                op,
                "pvals must be in [0, 1] (and not empty)",
            ));
        }
        // NumPy: the last entry is ignored (the remainder), so only the others must sum to 1
        let s: f64 = pvals[..k - 1].iter().sum();
        if s > 1.0 + 1e-12 {
            return Err(Error::invalid(op, format!("sum(pvals[:-1]) = {s} > 1.0")));
        }
        // The last category takes the remainder (NumPy's rule).
        let mut cdf = Vec::with_capacity(k);
        let mut acc = 0.0;
        for &x in &pvals[..k - 1] {
            acc += x;
            cdf.push(acc);
        }
        cdf.push(f64::INFINITY);
        let mut full = shape.to_vec();
        full.push(k);
        let steps = (usize::BITS - k.leading_zeros()) as i64 + 1;
        let extra = vec![
            (DType::Int64, Scalar::Int64(k as i64)),
            (DType::Int64, Scalar::Int64(n as i64)),
        ];
        let draws = (n as i64 + 1) / 2; // two float64 uniforms per block
        self.launch(
            op,
            &full,
            DType::Int64,
            None,
            extra,
            &move |d| Ok(vec![Array::from_slice_on(d, &cdf, &[k])?]),
            &|b: &mut Builder, st| {
                let kk = Expr::param(STREAM_PARAMS, DType::Int64);
                let i = Expr::index();
                let cat = b.let_(bin(B::Mod, i.clone(), kk.clone()));
                let row = b.let_(bin(B::FloorDiv, i, kk.clone()).cast(DType::UInt32));
                let count = b.var(Expr::constant(Scalar::Int64(0)));
                let _ = draws;
                let nn = Expr::param(STREAM_PARAMS + 1, DType::Int64);
                // The loop bound must be uniform: a parameter-free constant bound is not
                // enough for large n, so the loop runs over the parameter n.
                let var = b.locals.len();
                let _ = var;
                b.for_param(nn, |b, d| {
                    let blk = b.let_(d.cast(DType::UInt32));
                    let w = st.block_with_index(b, row.clone(), blk);
                    let u = b.let_(uniform01(F, &w, 0));
                    let lo = b.var(Expr::constant(Scalar::Int64(0)));
                    let hi = b.var(sub(kk.clone(), Expr::constant(Scalar::Int64(1))));
                    b.for_(steps, |b, _| {
                        b.if_(lt(lo.clone(), hi.clone()), |b| {
                            let mid = b.let_(bin(
                                B::FloorDiv,
                                add(lo.clone(), hi.clone()),
                                Expr::constant(Scalar::Int64(2)),
                            ));
                            let c = Expr::load(0, F, mid.clone());
                            b.if_else(
                                bin(B::Gt, c, u.clone()),
                                |b| b.assign(&hi, mid.clone()),
                                |b| {
                                    b.assign(
                                        &lo,
                                        add(mid.clone(), Expr::constant(Scalar::Int64(1))),
                                    )
                                },
                            );
                        });
                    });
                    b.if_(bin(B::Eq, lo.clone(), cat.clone()), |b| {
                        b.assign(&count, add(count.clone(), Expr::constant(Scalar::Int64(1))))
                    });
                });
                b.store(count.clone());
                Ok(())
            },
        )
    }

    /// `Generator.multivariate_normal(mean, cov, size, method="cholesky")`: float64 rows
    /// `mean + L z` of shape `size + [d]`, `L` the Cholesky factor of `cov` (computed on the
    /// host in float64; `cov` must be symmetric positive definite), `z` standard normals; the
    /// product is one kernel summing in index order, so it is bit-identical too.
    ///
    /// # Errors
    /// Mismatched `mean`/`cov`; a `cov` that is not symmetric (NumPy's `allclose(cov, cov.T)`
    /// tolerances) or not positive definite.
    pub fn multivariate_normal(
        &mut self,
        mean: &[f64],
        cov: &[f64],
        shape: &[usize],
    ) -> Result<Array> {
        let op = "multivariate_normal";
        let d = mean.len();
        if d == 0 || cov.len() != d * d {
            return Err(Error::invalid(op, "mean must have d entries and cov d*d"));
        }
        // NumPy warns for a cov that is not symmetric positive semi-definite and samples
        // anyway; a Cholesky factor reads only the lower triangle, so an asymmetric cov is
        // refused rather than sampled from a matrix the caller did not give.
        for i in 0..d {
            for j in 0..i {
                let (a, b) = (cov[i * d + j], cov[j * d + i]);
                // (NaN entries are not close either)
                let close = (a - b).abs() <= 1e-8 + 1e-5 * b.abs();
                if !close {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "cov is not symmetric: cov[{i}, {j}] = {a} but cov[{j}, {i}] = {b}"
                        ),
                    ));
                }
            }
        }
        let mut l = vec![0.0f64; d * d];
        for i in 0..d {
            for j in 0..=i {
                let mut s = cov[i * d + j];
                for k in 0..j {
                    s -= l[i * d + k] * l[j * d + k];
                }
                if i == j {
                    if s.is_nan() || s <= 0.0 {
                        return Err(Error::invalid(op, "cov is not positive definite"));
                    }
                    l[i * d + i] = s.sqrt();
                } else {
                    l[i * d + j] = s / l[j * d + j];
                }
            }
        }
        let mut full = shape.to_vec();
        full.push(d);
        let z = self.standard_normal(&full)?;
        let device = z.device().clone();
        let la = Array::from_slice_on(&device, &l, &[d * d])?;
        let ma = Array::from_slice_on(&device, mean, &[d])?;
        let mut b = Builder::new();
        let dd = Expr::param(0, DType::Int64);
        let i = Expr::index();
        let comp = b.let_(bin(B::Mod, i.clone(), dd.clone()));
        let base = b.let_(sub(i, comp.clone()));
        let acc = b.var(Expr::load(1, F, comp.clone()));
        b.for_param(dd.clone(), |b, j| {
            b.if_(bin(B::Le, j.clone(), comp.clone()), |b| {
                let lij = Expr::load(2, F, add(mul(comp.clone(), dd.clone()), j.clone()));
                let zj = Expr::load(0, F, add(base.clone(), j.clone()));
                b.assign(&acc, add(acc.clone(), mul(lij, zj)));
            });
        });
        b.store(acc.clone());
        let k = b.finish("multivariate_normal", F, vec![DType::Int64], vec![F, F, F]);
        Elementwise {
            op,
            kernel: &k,
            inputs: &[],
            raws: &[&z, &ma, &la],
            params: vec![Scalar::Int64(d as i64)],
            outs: vec![None],
            device: Some(&device),
            shape: Some(&full),
        }
        .run_one()
    }
}

routine!(
    "cupy.random.Generator.permutation",
    Random, probe: crate::random::kernels::probe_int64,
    notes: "stable argsort of float64 random keys"
);
routine!("cupy.random.Generator.shuffle", Random, probe: crate::random::kernels::probe_int64, notes: "in place, along axis 0");
routine!("cupy.random.Generator.permuted", Random, probe: crate::random::kernels::probe_int64, notes: "axis= or flattened");
routine!(
    "cupy.random.Generator.choice",
    Random, probe: crate::random::kernels::probe_int64,
    notes: "integer population; p= (binary search of the cdf; without replacement: Efraimidis-Spirakis keys)"
);
routine!("cupy.random.Generator.bytes", Random, probe: crate::random::kernels::probe_int64);
routine!(
    "cupy.random.Generator.multinomial",
    Random, probe: crate::random::kernels::probe_int64,
    notes: "n categorical draws per row (O(n k) per row)"
);
routine!(
    "cupy.random.Generator.multivariate_normal",
    Random, probe: crate::random::kernels::probe_int64,
    notes: "method='cholesky' (host Cholesky of cov, float64)"
);
