//! The plans of the wgpu FFT ([`crate::fft`]): how a 7-smooth length `n = 2^a 3^b 5^c 7^d` splits
//! into Stockham passes of combined radix `L` (each one dispatch of `shaders/fft.wgsl`'s `block`,
//! its `L`-point sub-transforms a sequence of radix 2/3/4/5/7/8 stages in workgroup memory), the
//! host-computed (float64) twiddle tables of those passes, and the WGSL of the radix stages.

use num_complex::Complex;
use std::f64::consts::PI;
use std::fmt::Write as _;

/// The radices a stage may have (one WGSL stage function each).
pub(crate) const RADICES: [usize; 6] = [2, 3, 4, 5, 7, 8];

/// One dispatch: a Stockham pass of combined radix `l` and span `s` (the product of the earlier
/// passes' radices), its `l`-point sub-transforms done as the stages `radices` (product `l`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    /// Combined radix.
    pub l: usize,
    /// Span: the product of the earlier passes' `l`.
    pub s: usize,
    /// Columns (sub-transforms) per workgroup: `t * l <= tlmax`.
    pub t: usize,
    /// The stage radices, first stage first.
    pub radices: Vec<usize>,
    /// Offset in the plan's table of this pass's stage twiddles (`l - 1` entries).
    pub stage_tw: usize,
    /// Offsets in the table of the pass twiddle halves (`hi`, `lo`) and `log2` of `lo`'s length
    /// (unused when `s == 1`).
    pub hi: usize,
    /// See `hi`.
    pub lo: usize,
    /// See `hi`.
    pub lo_bits: u32,
}

/// The passes of an `n`-point transform and their twiddle table's length.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The passes in order (empty for `n == 1`).
    pub passes: Vec<Pass>,
    /// Entries of the table [`Plan::table`] builds.
    pub table_len: usize,
}

/// The prime factors of `n` if all are in {2, 3, 5, 7} (largest first), else `None`.
pub(crate) fn smooth_factors(mut n: usize) -> Option<Vec<usize>> {
    let mut f = vec![];
    for p in [7usize, 5, 3, 2] {
        while n > 1 && n.is_multiple_of(p) {
            f.push(p);
            n /= p;
        }
    }
    (n == 1).then_some(f)
}

/// The smallest `2^a 3^b 5^c 7^d >= target` (Bluestein's padded length; 1 for 0).
pub(crate) fn next_smooth(target: usize) -> usize {
    cupy_core::fft::next_smooth(target.max(1), &[3, 5, 7])
}

/// The stage radices of a combined radix made of the primes `f`: 7s, 5s and 3s as they are,
/// the 2s as 8s, then one 4 or 2.
fn stage_radices(f: &[usize]) -> Vec<usize> {
    let mut r: Vec<usize> = f.iter().copied().filter(|&p| p != 2).collect();
    let mut twos = f.iter().filter(|&&p| p == 2).count();
    while twos >= 3 {
        r.push(8);
        twos -= 3;
    }
    match twos {
        2 => r.push(4),
        1 => r.push(2),
        _ => {}
    }
    r
}

/// Splits the primes `f` (largest first) into `p` groups each of product at most `lmax`
/// (largest factor into the group of least product that still fits), or `None`.
fn pack(f: &[usize], p: usize, lmax: usize) -> Option<Vec<Vec<usize>>> {
    let mut bins: Vec<(usize, Vec<usize>)> = vec![(1, vec![]); p];
    for &x in f {
        let b = bins
            .iter_mut()
            .filter(|(prod, _)| prod * x <= lmax)
            .min_by_key(|(prod, _)| *prod)?;
        b.0 *= x;
        b.1.push(x);
    }
    Some(bins.into_iter().map(|(_, v)| v).collect())
}

impl Plan {
    /// The plan of an `n`-point transform when a workgroup holds `tlmax` points (per half of
    /// its ping-pong memory) and a pass should keep `min_cols` columns per workgroup (so its
    /// global reads and writes come in runs); `None` when `n` has a prime factor above 7.
    /// A row that fits (`n <= tlmax`) is one pass; longer ones take the fewest passes of
    /// combined radix at most `tlmax / min_cols`.
    pub(crate) fn new(n: usize, tlmax: usize, min_cols: usize) -> Option<Plan> {
        let f = smooth_factors(n)?;
        let groups = if n <= 1 {
            vec![]
        } else if n <= tlmax {
            vec![f.clone()]
        } else {
            let lmax = (tlmax / min_cols.max(1)).max(8);
            let mut p = ((n as f64).ln() / (lmax as f64).ln()).ceil().max(2.0) as usize;
            loop {
                if let Some(g) = pack(&f, p, lmax) {
                    break g;
                }
                p += 1;
            }
        };
        let mut passes = vec![];
        let mut s = 1usize;
        // Pass twiddles first (the telescoping offsets below), then the stage twiddles.
        let mut off = 0usize;
        for g in groups.iter().filter(|g| !g.is_empty()) {
            let l: usize = g.iter().product();
            let (mut hi, mut lo, mut lo_bits) = (0, 0, 0);
            if s > 1 {
                let (nh, nl, bits) = split(s, l);
                hi = off;
                lo = off + nh;
                lo_bits = bits;
                off += nh + nl;
            }
            passes.push(Pass {
                l,
                s,
                t: (tlmax / l).max(1),
                radices: stage_radices(g),
                stage_tw: 0,
                hi,
                lo,
                lo_bits,
            });
            s *= l;
        }
        for p in &mut passes {
            p.stage_tw = off;
            off += p.l - 1;
        }
        Some(Plan {
            passes,
            table_len: off,
        })
    }

    /// The twiddle table, float64: per pass with `s > 1`, `hi[a] = exp(-2 pi i a 2^b / N)` and
    /// `lo[c] = exp(-2 pi i c / N)` (`N = s l`, `b = lo_bits`), whose product at `a = t >> b`,
    /// `c = t mod 2^b` is the twiddle of `t = r k`; per pass its stage twiddles, the stage of
    /// span `ss` and radix `q` at `ss - 1`: `exp(-2 pi i r kk / (ss q))` at `kk (q - 1) + r - 1`.
    pub(crate) fn table(&self) -> Vec<Complex<f64>> {
        let mut t = vec![Complex::new(0.0, 0.0); self.table_len.max(1)];
        for p in &self.passes {
            if p.s > 1 {
                let big = p.s * p.l;
                let (nh, nl, b) = split(p.s, p.l);
                for a in 0..nh {
                    t[p.hi + a] = root((a << b) % big, big);
                }
                for c in 0..nl {
                    t[p.lo + c] = root(c, big);
                }
            }
            let mut ss = 1usize;
            for &q in &p.radices {
                for kk in 0..ss {
                    for r in 1..q {
                        t[p.stage_tw + ss - 1 + kk * (q - 1) + r - 1] = root(r * kk, ss * q);
                    }
                }
                ss *= q;
            }
        }
        t
    }
}

/// `(hi length, lo length, log2 lo length)` of a pass of span `s` and radix `l`: the twiddle
/// exponents `t = r k` run to `(l - 1)(s - 1)`; `lo` has about `sqrt(s l)` entries.
fn split(s: usize, l: usize) -> (usize, usize, u32) {
    let tmax = (l - 1) * (s - 1);
    let bits = ((s * l) as f64).sqrt().log2().ceil() as u32;
    ((tmax >> bits) + 1, 1usize << bits, bits)
}

/// `exp(-2 pi i t / m)` in float64 (`t < m`).
fn root(t: usize, m: usize) -> Complex<f64> {
    let a = -2.0 * PI * t as f64 / m as f64;
    Complex::new(a.cos(), a.sin())
}

/// The WGSL of the radix stages (from the `stage_tpl` section `tpl`) and their forward DFTs
/// (`dftR(v)` of `array<C, 8>`; `C`, `R` and `cmul` from the header), and the `switch` cases of
/// the `block` kernel calling them.
pub(crate) fn stages_wgsl(tpl: &str) -> (String, String) {
    let mut fns = String::new();
    let mut cases = String::new();
    fns.push_str(
        "fn mi(a: C) -> C { return C(a.y, -a.x); }\n\
         fn dft2(v: array<C, 8>) -> array<C, 8> {\n  var o: array<C, 8>;\n  \
         o[0] = v[0] + v[1];\n  o[1] = v[0] - v[1];\n  return o;\n}\n\
         fn dft4(v: array<C, 8>) -> array<C, 8> {\n  var o: array<C, 8>;\n  \
         let t0 = v[0] + v[2];\n  let t1 = v[0] - v[2];\n  let t2 = v[1] + v[3];\n  \
         let t3 = mi(v[1] - v[3]);\n  o[0] = t0 + t2;\n  o[2] = t0 - t2;\n  o[1] = t1 + t3;\n  \
         o[3] = t1 - t3;\n  return o;\n}\n\
         fn dft8(v: array<C, 8>) -> array<C, 8> {\n  var e: array<C, 8>;\n  var d: array<C, 8>;\n  \
         e[0] = v[0]; e[1] = v[2]; e[2] = v[4]; e[3] = v[6];\n  \
         d[0] = v[1]; d[1] = v[3]; d[2] = v[5]; d[3] = v[7];\n  \
         e = dft4(e);\n  d = dft4(d);\n  let h = R(0.7071067811865476);\n  \
         d[1] = C(h * (d[1].x + d[1].y), h * (d[1].y - d[1].x));\n  d[2] = mi(d[2]);\n  \
         d[3] = C(h * (d[3].y - d[3].x), -h * (d[3].x + d[3].y));\n  var o: array<C, 8>;\n  \
         for (var k = 0u; k < 4u; k++) { o[k] = e[k] + d[k]; o[k + 4u] = e[k] - d[k]; }\n  \
         return o;\n}\n",
    );
    for q in [3usize, 5, 7] {
        // X_k = v0 + sum_r (p_r cos(2 pi r k / q) - i m_r sin(2 pi r k / q)), p_r / m_r the
        // sums / differences of v_r and v_(q-r); X_(q-k) flips the sine part.
        let h = (q - 1) / 2;
        let _ = writeln!(
            fns,
            "fn dft{q}(v: array<C, 8>) -> array<C, 8> {{\n  var o: array<C, 8>;"
        );
        let mut sum = String::from("v[0]");
        for r in 1..=h {
            let _ = writeln!(
                fns,
                "  let p{r} = v[{r}] + v[{}];\n  let m{r} = v[{r}] - v[{}];",
                q - r,
                q - r
            );
            let _ = write!(sum, " + p{r}");
        }
        let _ = writeln!(fns, "  o[0] = {sum};");
        for k in 1..=h {
            let (mut a, mut b) = (String::from("v[0]"), String::from("C(R(0), R(0))"));
            for r in 1..=h {
                let ang = 2.0 * PI * ((r * k) % q) as f64 / q as f64;
                let _ = write!(a, " + R({:?}) * p{r}", ang.cos());
                let _ = write!(b, " + R({:?}) * m{r}", ang.sin());
            }
            let _ = writeln!(
                fns,
                "  let a{k} = {a};\n  let b{k} = {b};\n  o[{k}] = a{k} + mi(b{k});\n  \
                 o[{}] = a{k} - mi(b{k});",
                q - k
            );
        }
        fns.push_str("  return o;\n}\n");
    }
    for q in RADICES {
        // The loops over a stage's points written out (constant indices keep `v` in registers).
        let (mut load, mut tw, mut store) = (String::new(), String::new(), String::new());
        for r in 0..q {
            let _ = write!(load, "v[{r}] = sh[ib + {r}u * per]; ");
            if r > 0 {
                let _ = write!(tw, "v[{r}] = cmul(v[{r}], W[tb + {}u]); ", r - 1);
            }
            let _ = write!(store, "sh[ob + {r}u * s] = v[{r}]; ");
        }
        fns.push_str(
            &tpl.replace("//LOAD", &load)
                .replace("//TWIDDLE", &tw)
                .replace("//STORE", &store)
                .replace("RADIX", &q.to_string()),
        );
        let _ = writeln!(
            cases,
            "      case {q}u: {{ stage{q}(src, dst, s, L, T, lid); }}"
        );
    }
    (fns, cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan's passes multiply to `n`, spans accumulate, every pass fits the workgroup, and
    /// each combined radix is the product of its stages (which are all known radices).
    fn check(n: usize, tlmax: usize, min_cols: usize) -> Plan {
        let p = Plan::new(n, tlmax, min_cols).unwrap();
        let mut s = 1;
        for q in &p.passes {
            assert_eq!(q.s, s, "n {n}");
            assert_eq!(q.radices.iter().product::<usize>(), q.l, "n {n}");
            assert!(q.radices.iter().all(|r| RADICES.contains(r)));
            assert!(q.t * q.l <= tlmax && q.t >= 1, "n {n}: {q:?}");
            assert!(q.radices.len() <= 8);
            s *= q.l;
        }
        assert_eq!(s, n);
        p
    }

    #[test]
    fn plans_cover_smooth_lengths() {
        for n in 1..5000usize {
            if smooth_factors(n).is_some() {
                // llvmpipe's 32 KiB (complex64 / complex128), a 16 KiB device, NVIDIA's 48 KiB.
                check(n, 2048, 8);
                check(n, 1024, 4);
                check(n, 512, 4);
                check(n, 3072, 8);
                check(n, 1536, 4);
            }
        }
        assert!(Plan::new(11, 2048, 8).is_none());
        assert!(Plan::new(2 * 1009, 2048, 8).is_none());
        // Pass counts: 2^24 in three passes of 256, a row of 1024 in one, 3^13 in three.
        assert_eq!(check(1 << 24, 2048, 8).passes.len(), 3);
        assert_eq!(check(1024, 2048, 8).passes.len(), 1);
        assert_eq!(check(1594323, 2048, 8).passes.len(), 3);
        assert_eq!(check(3 << 20, 2048, 8).passes.len(), 3);
        assert_eq!(check(1 << 24, 1024, 4).passes.len(), 3);
        assert_eq!(check(1 << 24, 3072, 8).passes.len(), 3);
        assert_eq!(check(1 << 24, 1536, 4).passes.len(), 3);
        // Bluestein's inner length for 2^20 + 7.
        assert_eq!(next_smooth(2 * ((1 << 20) + 7) - 1), 2099520);
        assert_eq!(check(2099520, 2048, 8).passes.len(), 3);
    }

    #[test]
    fn next_smooth_is_smallest() {
        let brute = |t: usize| (t..).find(|&v| smooth_factors(v).is_some()).unwrap();
        for t in (1..3000).chain([2097165, 1 << 21]) {
            assert_eq!(next_smooth(t), brute(t), "target {t}");
        }
    }

    /// The split pass twiddles multiply back to `exp(-2 pi i t / (s l))` for every `t = r k`.
    #[test]
    fn twiddle_halves_multiply_to_the_root() {
        let p = Plan::new(3 * 5 * 7 * 64 * 9, 256, 4).unwrap();
        let t = p.table();
        for q in p.passes.iter().filter(|q| q.s > 1) {
            for k in 0..q.s {
                for r in 1..q.l {
                    let e = r * k;
                    let w = t[q.hi + (e >> q.lo_bits)] * t[q.lo + (e & ((1 << q.lo_bits) - 1))];
                    assert!((w - root(e, q.s * q.l)).norm() < 1e-14);
                }
            }
        }
    }
}
