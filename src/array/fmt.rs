//! Printing arrays as NumPy does: `Display` like `str(a)` (`[0 1 2]`, aligned rows, `...` past
//! 1000 elements), `Debug` like `repr(a)` (`array([0., 1.], dtype=float32)`). Follows NumPy's
//! `arrayprint` defaults: precision 8, `floatmode='maxprec'`, line width 75, threshold 1000,
//! edge items 3.

use crate::array::Array;
use cupy_core::{DType, Scalar};
use std::fmt;

const THRESHOLD: usize = 1000;
const EDGE: usize = 3;
const LINE_WIDTH: usize = 75;
const PRECISION: usize = 8;

/// Digits after the point of the shortest round-trip text of `v` in positional notation,
/// capped at `PRECISION` (NumPy's `unique=True` with `maxprec`).
fn frac_digits(v: f64, single: bool) -> usize {
    let s = if single {
        format!("{}", v as f32)
    } else {
        format!("{v}")
    };
    let s = if s.contains('e') {
        format!("{:.*}", PRECISION, v)
    } else {
        s
    };
    let d = s
        .split_once('.')
        .map_or(0, |(_, f)| f.trim_end_matches('0').len());
    if d > PRECISION {
        // Round to PRECISION digits and drop trailing zeros again.
        let r = format!("{:.*}", PRECISION, v);
        r.split_once('.')
            .map_or(0, |(_, f)| f.trim_end_matches('0').len())
    } else {
        d
    }
}

/// Digits of the shortest round-trip mantissa in scientific notation, capped at `PRECISION`.
fn sci_digits(v: f64, single: bool) -> usize {
    let s = if single {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    let m = s.split_once('e').map_or(s.as_str(), |(m, _)| m);
    m.split_once('.').map_or(0, |(_, f)| f.len()).min(PRECISION)
}

/// The decimal exponent of `v` printed with `digits` mantissa digits (`1e-100` gives -100).
fn sci_exp(v: f64, digits: usize) -> i32 {
    let s = format!("{v:.digits$e}");
    s.split_once('e').map_or(0, |(_, e)| e.parse().unwrap_or(0))
}

/// `v` in scientific notation with `digits` mantissa digits and at least `exp_digits` exponent
/// digits (NumPy pads every exponent of an array to the longest: `1.e+005` next to `1.e-100`).
fn sci_text(v: f64, digits: usize, exp_digits: usize) -> String {
    let s = format!("{v:.digits$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let m = if digits == 0 {
        format!("{m}.")
    } else {
        m.to_string()
    };
    format!(
        "{m}e{}{:0exp_digits$}",
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

/// Texts of real floats, NumPy-aligned: positional with the point aligned, or scientific.
fn float_texts(fs: &[f64], single: bool) -> Vec<String> {
    let finite: Vec<f64> = fs.iter().copied().filter(|v| v.is_finite()).collect();
    let abs_nz: Vec<f64> = finite
        .iter()
        .map(|v| v.abs())
        .filter(|&v| v != 0.0)
        .collect();
    let (mn, mx) = abs_nz
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    let sci = !abs_nz.is_empty() && (mx >= 1e8 || mn < 1e-4 || mx / mn > 1000.0);
    let special = |v: f64| {
        if v.is_nan() {
            Some("nan".to_string())
        } else if v.is_infinite() {
            Some(if v > 0.0 {
                "inf".to_string()
            } else {
                "-inf".to_string()
            })
        } else {
            None
        }
    };
    let texts: Vec<(String, String)> = if sci {
        let d = finite
            .iter()
            .map(|&v| sci_digits(v, single))
            .max()
            .unwrap_or(0);
        let exp_digits = finite
            .iter()
            .map(|&v| sci_exp(v, d).unsigned_abs().to_string().len())
            .max()
            .unwrap_or(0)
            .max(2);
        fs.iter()
            .map(|&v| {
                (
                    special(v).unwrap_or_else(|| sci_text(v, d, exp_digits)),
                    String::new(),
                )
            })
            .collect()
    } else {
        fs.iter()
            .map(|&v| match special(v) {
                Some(s) => (s, String::new()),
                None => {
                    let d = frac_digits(v, single);
                    let t = format!("{v:.d$}");
                    let (i, f) = t
                        .split_once('.')
                        .map_or((t.clone(), String::new()), |(i, f)| {
                            (i.to_string(), f.to_string())
                        });
                    (i, format!(".{f}"))
                }
            })
            .collect()
    };
    if sci {
        let w = texts.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
        return texts.into_iter().map(|(a, _)| format!("{a:>w$}")).collect();
    }
    let wf = texts.iter().map(|(_, f)| f.len()).max().unwrap_or(0);
    // NumPy widens the integer part until `nan`/`inf`/`-inf` fit the common width, so finite
    // values line up with them (`[ nan  inf -inf  1.5  0. ]`).
    let wi = texts
        .iter()
        .map(|(a, f)| {
            if f.is_empty() {
                a.len().saturating_sub(wf)
            } else {
                a.len()
            }
        })
        .max()
        .unwrap_or(0);
    let total = texts
        .iter()
        .map(|(a, f)| if f.is_empty() { a.len() } else { wi + wf })
        .max()
        .unwrap_or(0);
    texts
        .into_iter()
        .map(|(a, f)| {
            if f.is_empty() {
                format!("{a:>total$}")
            } else {
                format!("{a:>wi$}{f:<wf$}")
            }
        })
        .collect()
}

/// Texts for every element, aligned to a common width.
fn element_texts(vals: &[Scalar], dtype: DType) -> Vec<String> {
    let raw: Vec<String> = match dtype {
        DType::Bool => vals
            .iter()
            .map(|v| {
                if v.is_nonzero() {
                    "True".into()
                } else {
                    "False".into()
                }
            })
            .collect(),
        d if d.is_integer() => vals.iter().map(|v| v.to_string()).collect(),
        d if d.is_float() => {
            let fs: Vec<f64> = vals.iter().map(|v| v.to_f64()).collect();
            return float_texts(&fs, d != DType::Float64);
        }
        d => {
            let single = d == DType::Complex64;
            let re: Vec<f64> = vals.iter().map(|v| v.to_c128().re).collect();
            let im: Vec<f64> = vals.iter().map(|v| v.to_c128().im).collect();
            let (rt, it) = (
                float_texts(&re, single),
                float_texts(&im.iter().map(|v| v.abs()).collect::<Vec<_>>(), single),
            );
            rt.into_iter()
                .zip(it)
                .zip(&im)
                .map(|((r, i), v)| {
                    format!("{r}{}{}j", if *v < 0.0 { '-' } else { '+' }, i.trim_start())
                })
                .collect()
        }
    };
    let w = raw.iter().map(|s| s.len()).max().unwrap_or(0);
    raw.into_iter().map(|s| format!("{s:>w$}")).collect()
}

/// Index lists per axis, summarised to the first and last `EDGE` entries when asked.
fn axis_indices(n: usize, summarise: bool) -> Vec<Option<usize>> {
    if summarise && n > 2 * EDGE {
        let mut v: Vec<Option<usize>> = (0..EDGE).map(Some).collect();
        v.push(None);
        v.extend((n - EDGE..n).map(Some));
        v
    } else {
        (0..n).map(Some).collect()
    }
}

/// NumPy's `_formatArray`: nested brackets, `sep` between elements (" " or ", "), rows wrapped
/// at `LINE_WIDTH` and indented by `indent` (the width of any prefix such as `array(`).
fn render(
    shape: &[usize],
    text: &dyn Fn(&[usize]) -> String,
    summarise: bool,
    indent: usize,
    sep: &str,
) -> String {
    fn rec(
        shape: &[usize],
        prefix: &mut Vec<usize>,
        text: &dyn Fn(&[usize]) -> String,
        summarise: bool,
        indent: usize,
        sep: &str,
    ) -> String {
        let depth = prefix.len();
        if depth == shape.len() {
            return text(prefix);
        }
        let idx = axis_indices(shape[depth], summarise);
        let next_prefix = " ".repeat(indent + depth + 1);
        if depth + 1 == shape.len() {
            // Last axis: words wrapped at the line width.
            let words: Vec<String> = idx
                .iter()
                .map(|i| match i {
                    Some(i) => {
                        prefix.push(*i);
                        let s = text(prefix);
                        prefix.pop();
                        s
                    }
                    None => "...".to_string(),
                })
                .collect();
            let sep_trim = sep.trim_end();
            let mut out = String::from("[");
            let mut line_len = indent + depth + 1;
            // NumPy's `_formatArray`: every word (with the separator before it) must end
            // before `LINE_WIDTH - ndim` (one column kept per closing bracket level).
            let width = LINE_WIDTH.saturating_sub(shape.len());
            for (k, w) in words.iter().enumerate() {
                let last = k + 1 == words.len();
                let word = if last {
                    w.clone()
                } else {
                    format!("{w}{sep_trim}")
                };
                if k > 0 {
                    if line_len + 1 + w.len() > width {
                        // A wrapped line loses its trailing blanks (NumPy's `rstrip`).
                        out.truncate(out.trim_end_matches(' ').len());
                        out.push('\n');
                        out.push_str(&next_prefix);
                        line_len = next_prefix.len();
                    } else {
                        out.push(' ');
                        line_len += 1;
                    }
                }
                out.push_str(&word);
                line_len += word.len();
            }
            out.push(']');
            return out;
        }
        let blank = "\n".repeat(shape.len().saturating_sub(depth + 2));
        let row_sep = format!("{}\n{blank}{next_prefix}", sep.trim_end());
        let parts: Vec<String> = idx
            .iter()
            .map(|i| match i {
                Some(i) => {
                    prefix.push(*i);
                    let s = rec(shape, prefix, text, summarise, indent, sep);
                    prefix.pop();
                    s
                }
                None => "...".to_string(),
            })
            .collect();
        format!("[{}]", parts.join(&row_sep))
    }
    rec(shape, &mut vec![], text, summarise, indent, sep)
}

/// The printed text of `a` (without `array(...)`), or the read error.
fn body(a: &Array, indent: usize, sep: &str) -> Result<String, cupy_core::Error> {
    let shape = a.shape().to_vec();
    if shape.is_empty() {
        return Ok(element_texts(&a.to_scalars()?, a.dtype())
            .remove(0)
            .trim_start()
            .to_string());
    }
    let summarise = a.size() > THRESHOLD;
    // A summarised array is read only at its edges: the first and last EDGE entries of each
    // longer axis, joined on the device (a 2^28-element array reads at most 6 of them).
    let (vals, kept) = if summarise {
        let edges = edges_of(a)?;
        let kept = edges.shape().to_vec();
        (edges.to_scalars()?, kept)
    } else {
        (a.to_scalars()?, shape.clone())
    };
    // Only the printed elements take part in alignment. `flat`: an index of `a` to its place
    // in `vals` (an index past the first EDGE of a summarised axis comes from its last EDGE).
    let strides = cupy_core::layout::contiguous_strides(&kept);
    let flat = |ix: &[usize]| {
        ix.iter()
            .zip(&strides)
            .zip(shape.iter().zip(&kept))
            .map(|((&i, &st), (&n, &k))| {
                (if i >= EDGE && k < n { i - (n - k) } else { i }) * st as usize
            })
            .sum::<usize>()
    };
    let mut shown: Vec<usize> = vec![];
    fn walk(
        shape: &[usize],
        prefix: &mut Vec<usize>,
        summarise: bool,
        f: &mut dyn FnMut(&[usize]),
    ) {
        if prefix.len() == shape.len() {
            f(prefix);
            return;
        }
        for i in axis_indices(shape[prefix.len()], summarise)
            .into_iter()
            .flatten()
        {
            prefix.push(i);
            walk(shape, prefix, summarise, f);
            prefix.pop();
        }
    }
    walk(&shape, &mut vec![], summarise, &mut |ix| {
        shown.push(flat(ix))
    });
    let shown_vals: Vec<Scalar> = shown.iter().map(|&i| vals[i]).collect();
    let texts = element_texts(&shown_vals, a.dtype());
    let map: std::collections::HashMap<usize, usize> =
        shown.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let lookup = |ix: &[usize]| texts[map[&flat(ix)]].clone();
    Ok(render(&shape, &lookup, summarise, indent, sep))
}

/// `a` with every axis longer than `2 EDGE` cut to its first and last `EDGE` entries (a copy
/// on `a`'s device; what a summarised print shows).
fn edges_of(a: &Array) -> Result<Array, cupy_core::Error> {
    use crate::manipulation::narrow;
    let mut cur = a.clone();
    for (d, &n) in a.shape().iter().enumerate() {
        if n > 2 * EDGE {
            let (head, tail) = (
                narrow(&cur, d, 0, EDGE, 1),
                narrow(&cur, d, n - EDGE, EDGE, 1),
            );
            cur = crate::concatenate(&[&head, &tail], d as isize)?;
        }
    }
    Ok(cur)
}

/// NumPy's `str` of a float scalar (`str(np.float64(x))`, what `str` of a 0-d array prints):
/// the shortest round-trip digits, positional with at least one decimal (`9.0`, `0.1`) for
/// `1e-4 <= |x| < 1e16` and zero, scientific otherwise (`1e-05`, `1.5e+16`).
fn float_scalar_str(v: f64, single: bool) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = v.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        let s = if single {
            format!("{}", v as f32)
        } else {
            format!("{v}")
        };
        return if s.contains('.') { s } else { s + ".0" };
    }
    let s = if single {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// NumPy's `str` of a scalar: `True`, `-3`, `9.0`, `1e-05`, `(1+2j)`, `2j`.
fn scalar_str(v: Scalar) -> String {
    let single = !matches!(v.dtype(), DType::Float64 | DType::Complex128);
    let part = |x: f64| {
        let t = float_scalar_str(x, single);
        t.strip_suffix(".0").map_or(t.clone(), str::to_string)
    };
    let complex = |re: f64, im: f64| {
        let sign = if im < 0.0 || (im == 0.0 && im.is_sign_negative()) {
            ""
        } else {
            "+"
        };
        if re == 0.0 && re.is_sign_positive() {
            format!("{}j", part(im))
        } else {
            format!("({}{sign}{}j)", part(re), part(im))
        }
    };
    match v {
        Scalar::Bool(b) => if b { "True" } else { "False" }.into(),
        Scalar::Float16(x) => float_scalar_str(x.to_f64(), true),
        Scalar::BFloat16(x) => float_scalar_str(x.to_f64(), true),
        Scalar::Float32(x) => float_scalar_str(x as f64, true),
        Scalar::Float64(x) => float_scalar_str(x, false),
        Scalar::Complex64(c) => complex(c.re as f64, c.im as f64),
        Scalar::Complex128(c) => complex(c.re, c.im),
        v => v.to_string(),
    }
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ndim() == 0 {
            // NumPy's str of a 0-d array is its scalar's (`9.0`, not `9.`; the repr keeps `9.`).
            return match self.item() {
                Ok(v) => f.write_str(&scalar_str(v)),
                Err(e) => write!(
                    f,
                    "<array () {} on {}: unreadable: {e}>",
                    self.dtype(),
                    self.device().label()
                ),
            };
        }
        match body(self, 0, " ") {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(
                f,
                "<array {:?} {} on {}: unreadable: {e}>",
                self.shape(),
                self.dtype(),
                self.device().label()
            ),
        }
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let default = matches!(
            self.dtype(),
            DType::Float64 | DType::Int64 | DType::Bool | DType::Complex128
        );
        // NumPy's `_array_repr_implementation`: the shape when summarised or empty (except
        // `(0,)`), the dtype when not implied or empty; on a new line when they would pass the
        // line width.
        let empty = self.size() == 0;
        let mut extras = vec![];
        if self.size() > THRESHOLD || (empty && self.shape() != [0]) {
            let dims: Vec<String> = self.shape().iter().map(|d| d.to_string()).collect();
            let comma = if dims.len() == 1 { "," } else { "" };
            extras.push(format!("shape=({}{comma})", dims.join(", ")));
        }
        if !default || empty {
            extras.push(format!("dtype={}", self.dtype()));
        }
        let text = if empty && self.ndim() > 0 {
            Ok("[]".to_string())
        } else {
            body(self, 6, ", ")
        };
        match text {
            Ok(t) => {
                if extras.is_empty() {
                    return write!(f, "array({t})");
                }
                let head = format!("array({t},");
                let extra = format!("{})", extras.join(", "));
                let last_line = head.len() - head.rfind('\n').map_or(0, |i| i + 1);
                let spacer = if last_line + extra.len() + 1 > LINE_WIDTH {
                    "\n      "
                } else {
                    " "
                };
                write!(f, "{head}{spacer}{extra}")
            }
            Err(e) => write!(
                f,
                "array(<unreadable on {}: {e}>, shape={:?}, dtype={})",
                self.device().label(),
                self.shape(),
                self.dtype()
            ),
        }
    }
}
