//! Printing arrays as NumPy does: `Display` like `str(a)` (`[0 1 2]`, aligned rows, `...` past
//! 1000 elements), `Debug` like `repr(a)` (`array([0., 1.], dtype=float32)`).

use crate::array::Array;
use cupy_core::dtype::DType;
use cupy_core::scalar::Scalar;
use std::fmt;

const THRESHOLD: usize = 1000;
const EDGE: usize = 3;

fn is_int_valued(v: f64) -> bool {
    !v.is_finite() || v.fract() == 0.0
}

/// Formats one real float NumPy-style (before alignment): `1.`, `0.25`, `nan`, `1.5e+20`.
fn float_text(v: f64, all_int: bool, sci: bool) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if sci {
        let s = format!("{v:.8e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    if all_int {
        return format!("{v:.0}.");
    }
    let s = format!("{v:.8}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        s.to_string()
    } else {
        s.into()
    }
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
            let all_int = fs.iter().all(|&v| is_int_valued(v));
            let finite: Vec<f64> = fs
                .iter()
                .copied()
                .filter(|v| v.is_finite() && *v != 0.0)
                .map(f64::abs)
                .collect();
            let sci =
                finite.iter().any(|&v| v >= 1e16) || (!all_int && finite.iter().any(|&v| v < 1e-4));
            let texts: Vec<String> = fs.iter().map(|&v| float_text(v, all_int, sci)).collect();
            // Align on the decimal point, as NumPy does.
            let split: Vec<(String, String)> = texts
                .iter()
                .map(|t| match t.find('.') {
                    Some(i) if !sci => (t[..i].to_string(), t[i..].to_string()),
                    _ => (t.clone(), String::new()),
                })
                .collect();
            let wi = split.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
            let wf = split.iter().map(|(_, b)| b.len()).max().unwrap_or(0);
            return split
                .into_iter()
                .map(|(a, b)| format!("{a:>wi$}{b:<wf$}"))
                .collect();
        }
        _ => vals
            .iter()
            .map(|v| {
                let c = v.to_c128();
                let re = float_text(c.re, is_int_valued(c.re), false);
                let im = float_text(c.im.abs(), is_int_valued(c.im), false);
                format!("{re}{}{im}j", if c.im < 0.0 { '-' } else { '+' })
            })
            .collect(),
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

fn render(
    shape: &[usize],
    texts: &dyn Fn(&[usize]) -> String,
    summarise: bool,
    indent: usize,
) -> String {
    fn rec(
        shape: &[usize],
        prefix: &mut Vec<usize>,
        texts: &dyn Fn(&[usize]) -> String,
        summarise: bool,
        indent: usize,
    ) -> String {
        let depth = prefix.len();
        if depth == shape.len() {
            return texts(prefix);
        }
        let idx = axis_indices(shape[depth], summarise);
        let last_axis = depth + 1 == shape.len();
        let sep = if last_axis {
            " ".to_string()
        } else {
            let blank = "\n".repeat(shape.len().saturating_sub(depth + 2));
            format!("\n{blank}{}", " ".repeat(indent + depth + 1))
        };
        let parts: Vec<String> = idx
            .iter()
            .map(|i| match i {
                Some(i) => {
                    prefix.push(*i);
                    let s = rec(shape, prefix, texts, summarise, indent);
                    prefix.pop();
                    s
                }
                None => "...".to_string(),
            })
            .collect();
        format!("[{}]", parts.join(&sep))
    }
    rec(shape, &mut vec![], texts, summarise, indent)
}

fn body(a: &Array, indent: usize) -> Result<String, cupy_core::Error> {
    let vals = a.to_scalars()?;
    let shape = a.shape().to_vec();
    let summarise = vals.len() > THRESHOLD;
    // Only the printed elements take part in alignment.
    let strides = cupy_core::layout::contiguous_strides(&shape);
    let flat = |ix: &[usize]| {
        ix.iter()
            .zip(&strides)
            .map(|(i, s)| i * *s as usize)
            .sum::<usize>()
    };
    let mut shown: Vec<usize> = vec![];
    let mut collect = |ix: &[usize]| shown.push(flat(ix));
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
    walk(&shape, &mut vec![], summarise, &mut collect);
    let shown_vals: Vec<Scalar> = shown.iter().map(|&i| vals[i]).collect();
    let texts = element_texts(&shown_vals, a.dtype());
    let map: std::collections::HashMap<usize, usize> =
        shown.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let lookup = |ix: &[usize]| texts[map[&flat(ix)]].clone();
    Ok(render(&shape, &lookup, summarise, indent))
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match body(self, 0) {
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
        let dt = if default {
            String::new()
        } else {
            format!(", dtype={}", self.dtype())
        };
        let text = if self.ndim() == 0 {
            self.to_scalars()
                .ok()
                .map(|v| element_texts(&v, self.dtype()).remove(0))
        } else {
            self.to_vec_debug()
        };
        match text {
            Some(t) => write!(f, "array({t}{dt})"),
            None => write!(
                f,
                "array(<unreadable on {}>, shape={:?}{dt})",
                self.device().label(),
                self.shape()
            ),
        }
    }
}

impl Array {
    fn to_vec_debug(&self) -> Option<String> {
        let s = body(self, 6).ok()?;
        // NumPy's repr separates elements with ", " and rows with ",\n".
        let mut out = String::with_capacity(s.len() * 2);
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            out.push(c);
            if (c == ']' || c.is_alphanumeric() || c == '.') && i + 1 < chars.len() {
                let next = chars[i + 1];
                if next == ' ' || next == '\n' {
                    // Find the next non-space to decide whether a separator belongs here.
                    let mut j = i + 1;
                    while j < chars.len() && (chars[j] == ' ' || chars[j] == '\n') {
                        j += 1;
                    }
                    if j < chars.len() && chars[j] != ']' {
                        out.push(',');
                    }
                }
            }
            i += 1;
        }
        Some(out)
    }
}
