//! `numpy.einsum` over views, `sum`, `diagonal` and batched `matmul`: subscripts with `->` or
//! implicit output, `...` (broadcast dimensions, right-aligned), repeated labels in one operand
//! (diagonals), labels summed out early, and pairwise contraction in the greedy order of
//! `optimize="greedy"` (the pair whose result is smallest first), so it runs on every backend.

use super::matmul;
use crate::array::{same_device, Array};
use cupy_core::error::{Error, Result};

/// A subscript label: a letter, or `ELL + k` for the `k`-th broadcast (ellipsis) dimension.
type Label = u32;
const ELL: Label = 1 << 20;

fn bad(msg: impl Into<String>) -> Error {
    Error::invalid("einsum", msg)
}

/// Parses one term into labels, expanding `...` to `ndim - letters` broadcast labels of the
/// `ell`-dimension ellipsis (right-aligned).
fn term(t: &str, ndim: Option<usize>, ell: usize) -> Result<(Vec<Label>, usize)> {
    let mut out = vec![];
    let mut rest = t;
    let mut seen_ell = false;
    let mut n_ell = 0;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if seen_ell {
                return Err(bad(format!("more than one ellipsis in subscript '{t}'")));
            }
            seen_ell = true;
            let letters = t.chars().filter(|c| c.is_ascii_alphabetic()).count();
            n_ell = match ndim {
                Some(nd) => nd.checked_sub(letters).ok_or_else(|| {
                    bad(format!(
                        "operand has more dimensions than subscripts given in '{t}'"
                    ))
                })?,
                None => ell,
            };
            for k in 0..n_ell {
                out.push(ELL + (ell - n_ell + k) as Label);
            }
            rest = r;
            continue;
        }
        let c = rest.chars().next().expect("non-empty");
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!("invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters")));
        }
        out.push(c as Label);
        rest = &rest[c.len_utf8()..];
    }
    if let Some(nd) = ndim {
        if !seen_ell && out.len() != nd {
            return Err(bad(format!(
                "operand has {nd} dimensions but subscripts '{t}' name {}",
                out.len()
            )));
        }
    }
    Ok((out, n_ell))
}

/// An operand with one label per axis.
#[derive(Clone)]
struct Term {
    a: Array,
    l: Vec<Label>,
}

/// Takes the diagonal of repeated labels and sums labels no one else needs.
fn simplify(mut t: Term, keep: &dyn Fn(Label) -> bool) -> Result<Term> {
    // Repeated labels: diagonal over the pair (moves it last).
    loop {
        let dup = (0..t.l.len()).find_map(|i| {
            (i + 1..t.l.len())
                .find(|&j| t.l[j] == t.l[i])
                .map(|j| (i, j))
        });
        let Some((i, j)) = dup else { break };
        let lab = t.l[i];
        if t.a.shape()[i] != t.a.shape()[j] {
            return Err(bad("dimensions of a repeated subscript differ"));
        }
        t.a = crate::diagonal(&t.a, 0, i as isize, j as isize)?;
        t.l =
            t.l.iter()
                .enumerate()
                .filter(|&(k, _)| k != i && k != j)
                .map(|(_, &x)| x)
                .chain([lab])
                .collect();
    }
    let drop: Vec<isize> = (0..t.l.len())
        .filter(|&k| !keep(t.l[k]))
        .map(|k| k as isize)
        .collect();
    if !drop.is_empty() {
        t.a = t.a.sum_axis(drop.clone())?;
        t.l =
            t.l.iter()
                .enumerate()
                .filter(|(k, _)| !drop.contains(&(*k as isize)))
                .map(|(_, &x)| x)
                .collect();
    }
    Ok(t)
}

fn size_of(t: &Term, l: Label) -> usize {
    t.l.iter()
        .position(|&x| x == l)
        .map_or(1, |i| t.a.shape()[i])
}

/// Contracts two operands over their shared labels that `keep` does not need.
fn contract(x: &Term, y: &Term, keep: &dyn Fn(Label) -> bool) -> Result<Term> {
    let shared: Vec<Label> = x.l.iter().copied().filter(|l| y.l.contains(l)).collect();
    let batch: Vec<Label> = shared.iter().copied().filter(|&l| keep(l)).collect();
    let summed: Vec<Label> = shared.iter().copied().filter(|&l| !keep(l)).collect();
    let xo: Vec<Label> =
        x.l.iter()
            .copied()
            .filter(|l| !shared.contains(l))
            .collect();
    let yo: Vec<Label> =
        y.l.iter()
            .copied()
            .filter(|l| !shared.contains(l))
            .collect();
    let dim = |l: Label| size_of(x, l).max(size_of(y, l));
    for &l in &shared {
        let (a, b) = (size_of(x, l), size_of(y, l));
        if a != b && a != 1 && b != 1 {
            return Err(bad(format!(
                "operands could not be broadcast together ({a} vs {b})"
            )));
        }
    }
    let arrange = |t: &Term, order: &[Label], groups: [&[Label]; 3]| -> Result<Array> {
        let perm: Vec<isize> = order
            .iter()
            .map(|l| t.l.iter().position(|x| x == l).expect("label") as isize)
            .collect();
        let v = t.a.transpose(&perm)?;
        let full: Vec<usize> = order.iter().map(|&l| dim(l)).collect();
        let v = v.broadcast_to(&full)?;
        let g: Vec<isize> = groups
            .iter()
            .map(|g| g.iter().map(|&l| dim(l)).product::<usize>() as isize)
            .collect();
        v.reshape(&g)
    };
    let ox: Vec<Label> = batch.iter().chain(&xo).chain(&summed).copied().collect();
    let oy: Vec<Label> = batch.iter().chain(&summed).chain(&yo).copied().collect();
    let a = arrange(x, &ox, [&batch, &xo, &summed])?;
    let b = arrange(y, &oy, [&batch, &summed, &yo])?;
    let c = matmul(&a, &b)?;
    let l: Vec<Label> = batch.iter().chain(&xo).chain(&yo).copied().collect();
    let shape: Vec<isize> = l.iter().map(|&q| dim(q) as isize).collect();
    Ok(Term {
        a: c.reshape(&shape)?,
        l,
    })
}

/// `numpy.einsum(subscripts, *operands, optimize="greedy")`.
///
/// # Errors
/// [`Error::InvalidArgument`] for malformed subscripts, a count of terms that differs from the
/// operands, labels of different lengths, or an output label absent from the inputs.
pub fn einsum(subscripts: &str, operands: &[&Array]) -> Result<Array> {
    let op = "einsum";
    if operands.is_empty() {
        return Err(bad("No input operands"));
    }
    same_device(op, operands.iter().copied())?;
    let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match s.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (s.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(bad(format!(
            "more operands ({}) than subscript terms ({}), or fewer",
            operands.len(),
            terms.len()
        )));
    }
    // The ellipsis rank: the most broadcast dimensions any operand gives it.
    let mut ell = 0;
    for (t, a) in terms.iter().zip(operands) {
        if t.contains("...") {
            let letters = t.chars().filter(|c| c.is_ascii_alphabetic()).count();
            ell = ell.max(a.ndim().saturating_sub(letters));
        }
    }
    let mut ts = vec![];
    for (t, a) in terms.iter().zip(operands) {
        let (l, _) = term(t, Some(a.ndim()), ell)?;
        ts.push(Term { a: (*a).clone(), l });
    }
    let out: Vec<Label> = match &rhs {
        Some(r) => term(r, None, ell)?.0,
        None => {
            // Implicit: broadcast labels, then letters appearing once, alphabetically.
            let mut o: Vec<Label> = (0..ell).map(|k| ELL + k as Label).collect();
            let mut letters: Vec<Label> = ts
                .iter()
                .flat_map(|t| t.l.iter().copied())
                .filter(|&l| l < ELL)
                .collect();
            letters.sort();
            let once: Vec<Label> = letters
                .iter()
                .copied()
                .filter(|&l| letters.iter().filter(|&&x| x == l).count() == 1)
                .collect();
            o.extend(once);
            o
        }
    };
    for (k, &l) in out.iter().enumerate() {
        if l < ELL && out[..k].contains(&l) {
            return Err(bad(format!(
                "einstein sum subscripts string includes output subscript '{}' multiple times",
                char::from_u32(l).unwrap_or('?')
            )));
        }
        if !ts.iter().any(|t| t.l.contains(&l)) && l < ELL {
            return Err(bad(format!(
                "einstein sum subscripts string included output subscript '{}' which never appeared in an input",
                char::from_u32(l).unwrap_or('?')
            )));
        }
    }
    // Each label's length must agree (1 broadcasts).
    for (i, t) in ts.iter().enumerate() {
        for (k, &l) in t.l.iter().enumerate() {
            for u in &ts[i..] {
                if let Some(p) = u.l.iter().position(|&x| x == l) {
                    let (a, b) = (t.a.shape()[k], u.a.shape()[p]);
                    if a != b && a != 1 && b != 1 {
                        return Err(bad(format!(
                            "operands could not be broadcast together with remapped shapes (label length {a} vs {b})"
                        )));
                    }
                }
            }
        }
    }
    let needed = |ts: &[Term], skip: &[usize], l: Label| {
        out.contains(&l)
            || ts
                .iter()
                .enumerate()
                .any(|(i, t)| !skip.contains(&i) && t.l.contains(&l))
    };
    // Sum labels only one operand has and the output does not.
    for i in 0..ts.len() {
        let snapshot = ts.clone();
        let t = ts[i].clone();
        ts[i] = simplify(t, &|l| needed(&snapshot, &[i], l))?;
    }
    while ts.len() > 1 {
        // Greedy: the pair whose contracted result is smallest.
        let mut best: Option<(usize, usize, u128)> = None;
        for i in 0..ts.len() {
            for j in i + 1..ts.len() {
                let mut labels: Vec<Label> = ts[i].l.clone();
                labels.extend(ts[j].l.iter().copied().filter(|l| !ts[i].l.contains(l)));
                let size: u128 = labels
                    .iter()
                    .filter(|&&l| needed(&ts, &[i, j], l))
                    .map(|&l| size_of(&ts[i], l).max(size_of(&ts[j], l)) as u128)
                    .product();
                if best.is_none_or(|b| size < b.2) {
                    best = Some((i, j, size));
                }
            }
        }
        let (i, j, _) = best.expect("two operands");
        let c = contract(&ts[i], &ts[j], &|l| needed(&ts, &[i, j], l))?;
        ts.remove(j);
        ts[i] = c;
    }
    let t = ts.pop().expect("one operand");
    let t = simplify(t, &|l| out.contains(&l))?;
    let perm: Vec<isize> = out
        .iter()
        .map(|l| {
            t.l.iter()
                .position(|x| x == l)
                .map(|p| p as isize)
                .ok_or_else(|| bad("output label lost"))
        })
        .collect::<Result<_>>()?;
    let r = t.a.transpose(&perm)?;
    // Broadcast labels a size-1 operand axis carried: the result keeps NumPy's broadcast size.
    if r.shares_memory_with(operands[0]) || operands.iter().any(|o| r.shares_memory_with(o)) {
        r.copy()
    } else {
        Ok(r)
    }
}
routine!(einsum, Linalg, probe: super::gemm, notes: "ellipsis, repeated labels, greedy contraction order over matmul");
