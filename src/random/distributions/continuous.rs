//! Continuous distributions: `Generator.random`, `uniform`, `standard_normal`, `normal`,
//! `lognormal`, `standard_exponential`, `exponential`, `laplace`, `logistic`, `gumbel`,
//! `weibull`, `pareto`, `standard_gamma`, `gamma`, `chisquare`, `beta`. Each is one kernel;
//! scalar parameters are kernel parameters (computed on the host in float64, then rounded to
//! the output dtype once).

use super::{
    deferred, gamma_mt, neg_log1m, table_types, tables, uniform01, zig_lanes, ziggurat_lanes,
    Defer, Zig,
};
use crate::array::Array;
use crate::launch::Elementwise;
use crate::random::builder::{add, bin, div, fc, lt, mul, sub, u32c, Builder};
use crate::random::fmath::{exp, log, pow};
use crate::random::generator::{float_dtype, no_raws, Generator, Sample};
use crate::random::philox::Stream;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp as B, Expr};
use cupy_core::scalar::Scalar;

/// Parameter `k` (after the stream's) of dtype `t`.
fn p(k: usize, t: DType) -> Expr {
    Expr::param(crate::random::philox::STREAM_PARAMS + k, t)
}
fn pv(t: DType, v: f64) -> (DType, Scalar) {
    (t, Scalar::Float64(v).cast(t))
}
/// NumPy's non-negative parameter rule (`CONS_NON_NEGATIVE`): a value with the sign bit set,
/// `-0.0` included, is refused; NaN is taken (the samples are NaN, as NumPy's).
fn non_negative(op: &str, v: f64, name: &str) -> Result<()> {
    check(
        op,
        v.is_nan() || !v.is_sign_negative(),
        &format!("{name} < 0"),
    )
}
fn check(op: &str, ok: bool, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(op, what.to_string()))
    }
}

impl Generator {
    /// A one-uniform sampler: `f(builder, u)` maps a uniform in `[0, 1)` to the output.
    fn sample_uniform(
        &mut self,
        op: &str,
        shape: &[usize],
        opts: Sample,
        params: &[f64],
        f: &dyn Fn(&mut Builder, Expr, DType) -> Expr,
    ) -> Result<Array> {
        let t = float_dtype(op, &opts)?;
        let extra = params.iter().map(|&v| pv(t, v)).collect();
        // Packed: float32 takes one word a lane (4 lanes), float64 two (2 lanes).
        let per = if t == DType::Float32 { 1 } else { 2 };
        let lanes = 4 / per;
        self.launch_packed(
            op,
            shape,
            t,
            opts.out.as_ref(),
            extra,
            &no_raws,
            lanes,
            1,
            &|b, _, l| {
                Ok((0..lanes)
                    .map(|q| {
                        let u = b.let_(uniform01(t, &l.words, q * per));
                        let v = f(b, u, t);
                        b.let_(v)
                    })
                    .collect())
            },
            None,
        )
    }

    /// A ziggurat sampler: `f(builder, z)` maps a standard normal/exponential to the output.
    /// Two launches: the packed one, and one finishing the slow lanes it deferred
    /// (`deferred.rs`).
    fn sample_ziggurat(
        &mut self,
        op: &str,
        zig: Zig,
        shape: &[usize],
        opts: Sample,
        params: &[f64],
        f: &dyn Fn(&mut Builder, Expr, DType) -> Expr,
    ) -> Result<Array> {
        let t = float_dtype(op, &opts)?;
        let (lanes, _, blocks) = zig_lanes(t);
        let (_, _, n) = Self::target(op, shape, opts.out.as_ref())?;
        let (segments, capacity) = deferred::plan(zig, t, n.div_ceil(lanes));
        let mut extra: Vec<(DType, Scalar)> = params.iter().map(|&v| pv(t, v)).collect();
        extra.push((DType::UInt32, Scalar::UInt32(segments - 1)));
        extra.push((DType::UInt32, Scalar::UInt32(capacity)));
        let own = crate::random::philox::STREAM_PARAMS + params.len();
        let defer = Defer {
            counters: 3,
            list: 4,
            segment_mask: Expr::param(own, DType::UInt32),
            capacity: Expr::param(own + 1, DType::UInt32),
        };
        let mut param_types: Vec<DType> = extra.iter().map(|(d, _)| *d).collect();
        param_types.extend([DType::UInt32, DType::UInt32]);
        let mut raw_types = table_types(t).to_vec();
        raw_types.extend([DType::UInt32, DType::UInt32, t]);
        let after =
            |d: &crate::device::Device, launched: Option<(&[Scalar], &[&Array])>| -> Result<()> {
                let launched = launched.map(|(v, r)| (v, r, segments, capacity, n.div_ceil(lanes)));
                deferred::finish(op, zig, t, d, &param_types, &raw_types, f, launched)
            };
        self.launch_packed(
            op,
            shape,
            t,
            opts.out.as_ref(),
            extra,
            &|d| {
                let mut r = tables(d, zig, t)?;
                r.extend(deferred::operands(d, segments, capacity)?);
                Ok(r)
            },
            lanes,
            blocks,
            &|b, _, l| {
                let z = ziggurat_lanes(b, zig, t, 0, l, &defer);
                Ok(z.into_iter()
                    .map(|z| {
                        let v = f(b, z, t);
                        b.let_(v)
                    })
                    .collect())
            },
            Some(&after),
        )
    }

    /// `Generator.random(size)`: float64 uniforms in `[0, 1)` (53 random bits each).
    ///
    /// # Errors
    /// Device errors; a shape of 2^32 elements or more.
    pub fn random(&mut self, shape: &[usize]) -> Result<Array> {
        self.random_with(shape, Sample::default())
    }
    /// `Generator.random(size, dtype=, out=)`: float32 takes 24 bits, float64 53.
    ///
    /// # Errors
    /// As [`Generator::random`]; a dtype other than float32/float64.
    pub fn random_with(&mut self, shape: &[usize], opts: impl Into<Sample>) -> Result<Array> {
        self.sample_uniform("random", shape, opts.into(), &[], &|_, u, _| u)
    }

    /// `Generator.uniform(low, high, size)`: `low + (high - low) u`.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; non-finite bounds.
    pub fn uniform(
        &mut self,
        low: f64,
        high: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        let opts = opts.into();
        check(
            "uniform",
            (high - low).is_finite(),
            "high - low must be finite",
        )?;
        // float32 samples compute `low + (high - low) u` in float32: the range must be finite
        // there too (else every sample is infinite).
        let single = float_dtype("uniform", &opts)? == DType::Float32;
        check(
            "uniform",
            !single || (((high - low) as f32).is_finite() && (low as f32).is_finite()),
            "high - low must be finite in float32 for dtype=float32",
        )?;
        self.sample_uniform("uniform", shape, opts, &[low, high - low], &|_, u, t| {
            add(p(0, t), mul(p(1, t), u))
        })
    }

    /// `Generator.standard_normal(size)`: float64 standard normals (the 256-layer ziggurat; float32
    /// takes 1024 layers).
    ///
    /// # Errors
    /// As [`Generator::random`].
    pub fn standard_normal(&mut self, shape: &[usize]) -> Result<Array> {
        self.standard_normal_with(shape, Sample::default())
    }
    /// `Generator.standard_normal(size, dtype=, out=)`.
    ///
    /// # Errors
    /// As [`Generator::random_with`].
    pub fn standard_normal_with(
        &mut self,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        self.sample_ziggurat(
            "standard_normal",
            Zig::Normal,
            shape,
            opts.into(),
            &[],
            &|_, z, _| z,
        )
    }

    /// `Generator.normal(loc, scale, size)`: `loc + scale z`.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `scale < 0`.
    pub fn normal(
        &mut self,
        loc: f64,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("normal", scale, "scale")?;
        self.sample_ziggurat(
            "normal",
            Zig::Normal,
            shape,
            opts.into(),
            &[loc, scale],
            &|_, z, t| add(p(0, t), mul(p(1, t), z)),
        )
    }

    /// `Generator.lognormal(mean, sigma, size)`: `exp(mean + sigma z)`.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `sigma < 0`.
    pub fn lognormal(
        &mut self,
        mean: f64,
        sigma: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("lognormal", sigma, "sigma")?;
        self.sample_ziggurat(
            "lognormal",
            Zig::Normal,
            shape,
            opts.into(),
            &[mean, sigma],
            &|b, z, t| exp(b, add(p(0, t), mul(p(1, t), z))),
        )
    }

    /// `Generator.standard_exponential(size)`: float64 (the exponential ziggurat).
    ///
    /// # Errors
    /// As [`Generator::random`].
    pub fn standard_exponential(&mut self, shape: &[usize]) -> Result<Array> {
        self.standard_exponential_with(shape, Sample::default())
    }
    /// `Generator.standard_exponential(size, dtype=, out=)` (`method="zig"`).
    ///
    /// # Errors
    /// As [`Generator::random_with`].
    pub fn standard_exponential_with(
        &mut self,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        self.sample_ziggurat(
            "standard_exponential",
            Zig::Exponential,
            shape,
            opts.into(),
            &[],
            &|_, z, _| z,
        )
    }

    /// `Generator.exponential(scale, size)`: `scale e`.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `scale < 0`.
    pub fn exponential(
        &mut self,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("exponential", scale, "scale")?;
        self.sample_ziggurat(
            "exponential",
            Zig::Exponential,
            shape,
            opts.into(),
            &[scale],
            &|_, z, t| mul(p(0, t), z),
        )
    }

    /// `Generator.laplace(loc, scale, size)` by inversion: `u < 1/2`: `loc + scale log(2u)`,
    /// else `loc - scale log(2 - 2u)` (NumPy's formula; `u = 0` is redrawn as the smallest
    /// positive uniform).
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `scale < 0`.
    pub fn laplace(
        &mut self,
        loc: f64,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("laplace", scale, "scale")?;
        self.sample_uniform("laplace", shape, opts.into(), &[loc, scale], &|b, u, t| {
            let tiny = if t == DType::Float32 {
                2f64.powi(-24)
            } else {
                2f64.powi(-53)
            };
            let u = b.let_(bin(B::Max, u, fc(t, tiny)));
            let lo = bin(B::Lt, u.clone(), fc(t, 0.5));
            let a = b.let_(Expr::select(
                lo.clone(),
                add(u.clone(), u.clone()),
                sub(fc(t, 2.0), add(u.clone(), u)),
            ));
            let l = log(b, a);
            let l = b.let_(l);
            Expr::select(
                lo,
                add(p(0, t), mul(p(1, t), l.clone())),
                sub(p(0, t), mul(p(1, t), l)),
            )
        })
    }

    /// `Generator.logistic(loc, scale, size)`: `loc + scale log(u / (1 - u))` (`u = 0`
    /// redrawn as the smallest positive uniform).
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `scale < 0`.
    pub fn logistic(
        &mut self,
        loc: f64,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("logistic", scale, "scale")?;
        self.sample_uniform("logistic", shape, opts.into(), &[loc, scale], &|b, u, t| {
            let tiny = if t == DType::Float32 {
                2f64.powi(-24)
            } else {
                2f64.powi(-53)
            };
            let u = b.let_(bin(B::Max, u, fc(t, tiny)));
            let l = log(b, div(u.clone(), sub(fc(t, 1.0), u)));
            add(p(0, t), mul(p(1, t), l))
        })
    }

    /// `Generator.gumbel(loc, scale, size)`: `loc - scale log(-log(1 - u))` (`u = 0` redrawn
    /// as the smallest positive uniform).
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `scale < 0`.
    pub fn gumbel(
        &mut self,
        loc: f64,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("gumbel", scale, "scale")?;
        self.sample_uniform("gumbel", shape, opts.into(), &[loc, scale], &|b, u, t| {
            let tiny = if t == DType::Float32 {
                2f64.powi(-24)
            } else {
                2f64.powi(-53)
            };
            let u = b.let_(bin(B::Max, u, fc(t, tiny)));
            let e = neg_log1m(b, u);
            let e = b.let_(e);
            let l = log(b, e);
            sub(p(0, t), mul(p(1, t), l))
        })
    }

    /// `Generator.weibull(a, size)`: `e^(1/a)` for a standard exponential `e` (0 for `a = 0`).
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `a < 0` (`-0.0` too, as NumPy's `signbit`; a NaN `a`
    /// gives NaN samples, as in NumPy).
    pub fn weibull(&mut self, a: f64, shape: &[usize], opts: impl Into<Sample>) -> Result<Array> {
        non_negative("weibull", a, "a")?;
        let inv = if a == 0.0 { 0.0 } else { 1.0 / a };
        self.sample_ziggurat(
            "weibull",
            Zig::Exponential,
            shape,
            opts.into(),
            &[inv, a],
            &|b, z, t| {
                let v = pow(b, z, p(0, t));
                Expr::select(bin(B::Eq, p(1, t), fc(t, 0.0)), fc(t, 0.0), v)
            },
        )
    }

    /// `Generator.pareto(a, size)`: `exp(e / a) - 1` (Lomax, NumPy's form).
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `a <= 0` (a NaN `a` gives NaN samples, as in NumPy).
    pub fn pareto(&mut self, a: f64, shape: &[usize], opts: impl Into<Sample>) -> Result<Array> {
        check("pareto", a > 0.0 || a.is_nan(), "a <= 0")?;
        self.sample_ziggurat(
            "pareto",
            Zig::Exponential,
            shape,
            opts.into(),
            &[1.0 / a],
            &|b, z, t| sub(exp(b, mul(z, p(0, t))), fc(t, 1.0)),
        )
    }

    /// `Generator.standard_gamma(shape_param, size)`: Marsaglia and Tsang's method; for
    /// `k < 1`, `gamma(k + 1) u^(1/k)`; `k = 0` gives 0.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `k < 0`.
    pub fn standard_gamma(
        &mut self,
        k: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        self.gamma_op("standard_gamma", k, 1.0, shape, opts.into(), None)
    }

    /// `Generator.gamma(shape_param, scale, size)`: `scale` times [`Generator::standard_gamma`].
    ///
    /// # Errors
    /// As [`Generator::standard_gamma`]; `scale < 0`.
    pub fn gamma(
        &mut self,
        k: f64,
        scale: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        non_negative("gamma", scale, "scale")?;
        self.gamma_op("gamma", k, scale, shape, opts.into(), None)
    }

    /// `Generator.chisquare(df, size)`: `2 gamma(df / 2)`.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `df <= 0`.
    pub fn chisquare(
        &mut self,
        df: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        check("chisquare", df > 0.0 || df.is_nan(), "df <= 0")?;
        self.gamma_op("chisquare", df / 2.0, 2.0, shape, opts.into(), None)
    }

    /// `scale` times a `gamma(k)` sample; with `log_scale = Some(s)` (`beta`), `s log(X)`
    /// instead (`scale` unused), which neither underflows for a shape below 1 (`u^(1/k)`)
    /// nor overflows (`1/k` becomes `s/k <= 1` for `s <= k`).
    fn gamma_op(
        &mut self,
        op: &str,
        k: f64,
        scale: f64,
        shape: &[usize],
        opts: Sample,
        log_scale: Option<f64>,
    ) -> Result<Array> {
        check(op, k >= 0.0 || k.is_nan(), "shape < 0")?;
        let t = float_dtype(op, &opts)?;
        if !k.is_finite() {
            // NumPy: a NaN shape gives NaN samples, an infinite one infinite samples (times the
            // scale)
            let value = k * scale;
            return self.launch(
                op,
                shape,
                t,
                opts.out.as_ref(),
                vec![],
                &no_raws,
                &|b, _s: &Stream| {
                    b.store(fc(t, value));
                    Ok(())
                },
            );
        }
        let boost = k < 1.0;
        let kk = if boost { k + 1.0 } else { k };
        let inv = if k > 0.0 { 1.0 / k } else { 0.0 };
        let extra = match log_scale {
            Some(s) => vec![pv(t, kk), pv(t, s / k), pv(t, s), pv(t, k)],
            None => vec![pv(t, kk), pv(t, inv), pv(t, scale), pv(t, k)],
        };
        let logs = log_scale.is_some();
        self.launch(
            op,
            shape,
            t,
            opts.out.as_ref(),
            extra,
            &|d| tables(d, Zig::Normal, t),
            &|b, s: &Stream| {
                let g = gamma_mt(b, s, t, 0, p(0, t), u32c(0), 16);
                if logs {
                    // s log(g u^(1/k)) = s log(g) + (s/k) log(u)
                    let lg = log(b, g);
                    let mut v = mul(p(2, t), lg);
                    if boost {
                        let w = s.block_at(b, 256);
                        let u = b.let_(uniform01(t, &w, 0));
                        let lu = log(b, bin(B::Max, u, fc(t, tiny(t))));
                        v = add(v, mul(lu, p(1, t)));
                    }
                    b.store(v);
                    return Ok(());
                }
                let v = if boost {
                    // u^(1/k) from block 256 (past every attempt's blocks).
                    let w = s.block_at(b, 256);
                    let u = b.let_(uniform01(t, &w, 0));
                    let u = bin(B::Max, u, fc(t, tiny(t)));
                    let f = pow(b, u, p(1, t));
                    mul(g, f)
                } else {
                    g
                };
                let v = b.let_(mul(v, p(2, t)));
                b.store(Expr::select(bin(B::Eq, p(3, t), fc(t, 0.0)), fc(t, 0.0), v));
                Ok(())
            },
        )
    }

    /// `Generator.beta(a, b, size)`: `x / (x + y)` for `x ~ gamma(a)`, `y ~ gamma(b)` (two
    /// gamma calls and one division). With a shape below 1 (both finite) the gammas are
    /// drawn as scaled logarithms and combined as `exp(lx - m) / (exp(lx - m) + exp(ly -
    /// m))`, `m = max(lx, ly)` (NumPy's Johnk step in log space): `u^(1/a)` underflows to
    /// 0 for small shapes (a quarter of the draws for `a = b = 0.001`), and `0 / 0` gave NaN.
    ///
    /// # Errors
    /// As [`Generator::random_with`]; `a <= 0` or `b <= 0` (a NaN parameter gives NaN
    /// samples, as in NumPy).
    pub fn beta(
        &mut self,
        a: f64,
        b: f64,
        shape: &[usize],
        opts: impl Into<Sample>,
    ) -> Result<Array> {
        let positive = |v: f64| v > 0.0 || v.is_nan();
        check("beta", positive(a) && positive(b), "a <= 0 or b <= 0")?;
        let opts = opts.into();
        let t = float_dtype("beta", &opts)?;
        let shape: Vec<usize> = match &opts.out {
            Some(o) => o.shape().to_vec(),
            None => shape.to_vec(),
        };
        if a.is_finite() && b.is_finite() && (a < 1.0 || b < 1.0) {
            let s = a.min(b);
            let x = self.gamma_op("beta", a, 1.0, &shape, Sample::from(t), Some(s))?;
            let y = self.gamma_op("beta", b, 1.0, &shape, Sample::from(t), Some(s))?;
            return beta_from_logs(&x, &y, s, opts.out.as_ref());
        }
        let x = self.gamma_op("beta", a, 1.0, &shape, Sample::from(t), None)?;
        let y = self.gamma_op("beta", b, 1.0, &shape, Sample::from(t), None)?;
        let s = (&x + &y)?;
        match &opts.out {
            Some(o) => {
                o.copy_from(&(&x / &s)?)?;
                Ok(o.clone())
            }
            None => &x / &s,
        }
    }
}

/// The smallest uniform `u^(1/k)` takes (`log(0)` would be `-inf`).
fn tiny(t: DType) -> f64 {
    if t == DType::Float32 {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    }
}

/// `X / (X + Y)` from `lx = s log(X)`, `ly = s log(Y)` (contiguous, of one dtype): with `m =
/// max(lx, ly)`, `ex = exp((lx - m) / s)` (1 for the larger, 0 below exp's range) and the
/// same for `y`, `ex / (ex + ey)`. The own `exp`, so every backend gives the same bits.
fn beta_from_logs(lx: &Array, ly: &Array, s: f64, out: Option<&Array>) -> Result<Array> {
    let t = lx.dtype();
    let lo = if t == DType::Float32 { -87.0 } else { -708.0 };
    let mut b = Builder::new();
    let (x, y) = (Expr::input(0, t), Expr::input(1, t));
    let m = b.let_(bin(B::Max, x.clone(), y.clone()));
    let e = |b: &mut Builder, v: Expr| {
        // (v - m) / s is -inf, not NaN, where s rounds to 0 in float32
        let d = b.let_(Expr::select(
            bin(B::Eq, v.clone(), m.clone()),
            fc(t, 0.0),
            div(sub(v, m.clone()), Expr::param(0, t)),
        ));
        let ed = exp(b, d.clone());
        b.let_(Expr::select(lt(d, fc(t, lo)), fc(t, 0.0), ed))
    };
    let ex = e(&mut b, x);
    let ey = e(&mut b, y);
    b.store(div(ex.clone(), add(ex, ey)));
    let mut k = b.finish("beta_from_logs", t, vec![t], vec![]);
    k.inputs = vec![t, t];
    Elementwise {
        op: "beta",
        kernel: &k,
        inputs: &[lx, ly],
        raws: &[],
        params: vec![Scalar::Float64(s).cast(t)],
        outs: vec![out],
        device: Some(lx.device()),
        shape: None,
    }
    .run_one()
}

routine!("cupy.random.Generator.random", Random, probe: crate::random::kernels::probe_float, notes: "float32 (24 bits) / float64 (53 bits), out=");
routine!("cupy.random.Generator.uniform", Random, probe: crate::random::kernels::probe_float);
routine!(
    "cupy.random.Generator.standard_normal",
    Random, probe: crate::random::kernels::probe_float,
    notes: "ziggurat of 1024 layers (float32) or 256 (float64), tables in the source"
);
routine!("cupy.random.Generator.normal", Random, probe: crate::random::kernels::probe_float);
routine!("cupy.random.Generator.lognormal", Random, probe: crate::random::kernels::probe_float, notes: "the project's own exp");
routine!(
    "cupy.random.Generator.standard_exponential",
    Random, probe: crate::random::kernels::probe_float,
    notes: "256-layer ziggurat"
);
routine!("cupy.random.Generator.exponential", Random, probe: crate::random::kernels::probe_float);
routine!("cupy.random.Generator.laplace", Random, probe: crate::random::kernels::probe_float, notes: "inversion, own log");
routine!("cupy.random.Generator.logistic", Random, probe: crate::random::kernels::probe_float, notes: "inversion, own log");
routine!("cupy.random.Generator.gumbel", Random, probe: crate::random::kernels::probe_float, notes: "inversion, own log");
routine!("cupy.random.Generator.weibull", Random, probe: crate::random::kernels::probe_float, notes: "exp(log(e)/a), own log/exp");
routine!("cupy.random.Generator.pareto", Random, probe: crate::random::kernels::probe_float);
routine!(
    "cupy.random.Generator.standard_gamma",
    Random, probe: crate::random::kernels::probe_float,
    notes: "Marsaglia-Tsang; shape < 1 boosted by u^(1/k)"
);
routine!("cupy.random.Generator.gamma", Random, probe: crate::random::kernels::probe_float);
routine!("cupy.random.Generator.chisquare", Random, probe: crate::random::kernels::probe_float);
routine!("cupy.random.Generator.beta", Random, probe: crate::random::kernels::probe_float, notes: "x / (x + y) of two gammas");
