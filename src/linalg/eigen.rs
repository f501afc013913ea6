//! QR, eigen- and singular value decompositions (`qr`, `eigh`, `eigvalsh`, `eig`, `eigvals`,
//! `svd`, `svdvals`), batched over leading axes.

use super::primitive::{
    assert_stacked_2d, assert_stacked_square, check_info, complex_of, dense, factor, linalg_dtype,
    real_of, Factor,
};
use super::solve::linalg_probe;
use crate::array::Array;
use cupy_core::backend::{LinalgOp, QrMode};
use cupy_core::error::{Error, Result};

/// `numpy.linalg.qr(a)` (mode `"reduced"`): `(q, r)` with `a = q @ r`, `q [..., M, K]` with
/// orthonormal columns, `r [..., K, N]` upper triangular, `K = min(M, N)`. The signs of `r`'s
/// diagonal follow Householder's convention (as LAPACK's, not necessarily bit-equal to it).
///
/// # Errors
/// [`Error::LinAlgError`] for 1-D input; [`Error::TypeError`] for float16.
pub fn qr(a: &Array) -> Result<(Array, Array)> {
    let mut v = qr_mode(a, "reduced")?;
    let r = v.pop().expect("r");
    Ok((v.pop().expect("q"), r))
}
routine!(qr as "cupy.linalg.qr", Linalg, probe: linalg_probe, notes: "modes reduced, complete, r, raw (qr_mode)");

/// `numpy.linalg.qr(a, mode)`: `"reduced"` and `"complete"` give `[q, r]`, `"r"` gives `[r]`,
/// `"raw"` gives `[h, tau]` (LAPACK geqrf's reflectors, `h` transposed as NumPy returns it).
///
/// # Errors
/// [`Error::InvalidArgument`] for another mode; as [`qr`].
pub fn qr_mode(a: &Array, mode: &str) -> Result<Vec<Array>> {
    let op = "qr";
    let (qm, keep_q) = match mode {
        "reduced" => (QrMode::Reduced, true),
        "complete" => (QrMode::Complete, true),
        "r" => (QrMode::Reduced, false),
        "raw" => (QrMode::Raw, true),
        m => return Err(Error::invalid(op, format!("Unrecognized mode '{m}'"))),
    };
    assert_stacked_2d(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let ad = dense(a, t)?;
    let outs = match qm {
        QrMode::Reduced => vec![(vec![m, k], t), (vec![k, n], t)],
        QrMode::Complete => vec![(vec![m, m], t), (vec![m, n], t)],
        QrMode::Raw => vec![(vec![n, m], t), (vec![k], t)],
    };
    let (mut outs, _) = factor(Factor {
        op: LinalgOp::Qr { mode: qm },
        a: &ad,
        b: None,
        outs,
    })?;
    if !keep_q {
        outs.remove(0);
    }
    Ok(outs)
}

fn uplo(op: &str, s: &str) -> Result<bool> {
    match s {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        _ => Err(Error::invalid(op, "UPLO argument must be 'L' or 'U'")),
    }
}

fn eigh_impl(op: &str, a: &Array, uplo_s: &str, vectors: bool) -> Result<Vec<Array>> {
    let upper = uplo(op, uplo_s)?;
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let n = a.shape()[a.ndim() - 1];
    let ad = dense(a, t)?;
    let mut outs = vec![(vec![n], real_of(t))];
    if vectors {
        outs.push((vec![n, n], t));
    }
    let (outs, info) = factor(Factor {
        op: LinalgOp::Eigh { upper, vectors },
        a: &ad,
        b: None,
        outs,
    })?;
    check_info(op, &info, "Eigenvalues did not converge")?;
    Ok(outs)
}

/// `numpy.linalg.eigh(a)` (UPLO `"L"`): `(w, v)` of each Hermitian `[..., M, M]` matrix,
/// eigenvalues ascending (real dtype), eigenvectors in the columns of `v`. Only the lower
/// triangle is read. Non-finite input gives NaN `w` and `v` (NumPy's LAPACK result for NaN
/// varies; see `docs/differences.md`).
///
/// # Errors
/// [`Error::LinAlgError`] "Eigenvalues did not converge", or for non-square input.
pub fn eigh(a: &Array) -> Result<(Array, Array)> {
    eigh_with(a, "L")
}
routine!(eigh as "cupy.linalg.eigh", Linalg, probe: linalg_probe, notes: "UPLO in eigh_with (faer; cuda: cuSOLVER; hip/wgpu: host hybrid; n <= 4 float32/float64 off cpu: Jacobi in one IR kernel)");

/// `numpy.linalg.eigh(a, UPLO)`: reads the `"L"`ower or `"U"`pper triangle.
///
/// # Errors
/// [`Error::InvalidArgument`] for another UPLO; as [`eigh`].
pub fn eigh_with(a: &Array, uplo: &str) -> Result<(Array, Array)> {
    let mut v = eigh_impl("eigh", a, uplo, true)?;
    let vecs = v.pop().expect("v");
    Ok((v.pop().expect("w"), vecs))
}

/// `numpy.linalg.eigvalsh(a)`: the eigenvalues of each Hermitian matrix, ascending.
///
/// # Errors
/// As [`eigh`].
pub fn eigvalsh(a: &Array) -> Result<Array> {
    eigvalsh_with(a, "L")
}
routine!(eigvalsh as "cupy.linalg.eigvalsh", Linalg, probe: linalg_probe, notes: "UPLO in eigvalsh_with");

/// `numpy.linalg.eigvalsh(a, UPLO)`.
///
/// # Errors
/// As [`eigh_with`].
pub fn eigvalsh_with(a: &Array, uplo: &str) -> Result<Array> {
    Ok(eigh_impl("eigvalsh", a, uplo, false)?.pop().expect("w"))
}

fn eig_impl(op: &str, a: &Array, vectors: bool) -> Result<Vec<Array>> {
    assert_stacked_square(op, a)?;
    let t = linalg_dtype(op, &[a.dtype()])?;
    let c = complex_of(t);
    let n = a.shape()[a.ndim() - 1];
    let ad = dense(a, t)?;
    let mut outs = vec![(vec![n], c)];
    if vectors {
        outs.push((vec![n, n], c));
    }
    let (outs, info) = factor(Factor {
        op: LinalgOp::Eig { vectors },
        a: &ad,
        b: None,
        outs,
    })?;
    if info.contains(&cupy_cpu::linalg::INFO_NONFINITE) {
        return Err(Error::linalg(op, "Array must not contain infs or NaNs"));
    }
    check_info(op, &info, "Eigenvalues did not converge")?;
    if t.is_complex() || outs[0].size() == 0 {
        return if t.is_complex() {
            Ok(outs)
        } else {
            outs.iter().map(crate::math::complex::real).collect()
        };
    }
    // NumPy: real input whose eigenvalues are all real gives real arrays (one read decides).
    let imag = crate::math::complex::imag(&outs[0])?;
    let any_complex = crate::not_equal(&imag, 0.0)?.any()?.item()?.to_f64() != 0.0;
    if any_complex {
        Ok(outs)
    } else {
        outs.iter().map(crate::math::complex::real).collect()
    }
}

/// `numpy.linalg.eig(a)`: `(w, v)` of each `[..., M, M]` matrix, `a @ v[:, i] = w[i] v[:, i]`,
/// eigenvectors of unit norm. Real input gives complex results unless every eigenvalue of the
/// batch is real (then real arrays, as NumPy).
///
/// # Errors
/// [`Error::LinAlgError`] "Array must not contain infs or NaNs", "Eigenvalues did not
/// converge", or for non-square input.
pub fn eig(a: &Array) -> Result<(Array, Array)> {
    let mut v = eig_impl("eig", a, true)?;
    let vecs = v.pop().expect("v");
    Ok((v.pop().expect("w"), vecs))
}
routine!(eig as "cupy.linalg.eig", Linalg, probe: linalg_probe, notes: "faer's QR algorithm; cuda: cuSOLVER Xgeev; hip/wgpu: host hybrid");

/// `numpy.linalg.eigvals(a)`: the eigenvalues of each matrix (in no particular order).
///
/// # Errors
/// As [`eig`].
pub fn eigvals(a: &Array) -> Result<Array> {
    Ok(eig_impl("eigvals", a, false)?.pop().expect("w"))
}
routine!(eigvals as "cupy.linalg.eigvals", Linalg, probe: linalg_probe);

/// NumPy's keyword arguments of `svd`.
#[derive(Clone, Copy, Debug)]
pub struct Svd {
    /// `full_matrices=` (NumPy's default `true`): `u [M, M]`, `vh [N, N]`; else `[M, K]`,
    /// `[K, N]`.
    pub full_matrices: bool,
    /// `compute_uv=` (default `true`).
    pub compute_uv: bool,
    /// `hermitian=` (default `false`): the input is Hermitian; the SVD comes from `eigh`.
    pub hermitian: bool,
}

impl Default for Svd {
    fn default() -> Svd {
        Svd {
            full_matrices: true,
            compute_uv: true,
            hermitian: false,
        }
    }
}

/// What [`svd_with`] returns: `u` and `vh` are `None` when `compute_uv` is false.
#[derive(Clone)]
pub struct SvdResult {
    /// Left singular vectors (columns).
    pub u: Option<Array>,
    /// Singular values, descending, real dtype.
    pub s: Array,
    /// Right singular vectors (rows).
    pub vh: Option<Array>,
}

/// `numpy.linalg.svd(a)` (full matrices): `(u, s, vh)` with `a = u[..., :K] * s @ vh[..., :K,
/// :]`.
///
/// # Errors
/// [`Error::LinAlgError`] "SVD did not converge" (also for NaN/inf input), or for 1-D input.
pub fn svd(a: &Array) -> Result<(Array, Array, Array)> {
    let r = svd_with(a, Svd::default())?;
    Ok((r.u.expect("u"), r.s, r.vh.expect("vh")))
}
routine!(svd as "cupy.linalg.svd", Linalg, probe: linalg_probe, notes: "full_matrices, compute_uv, hermitian in svd_with");

/// `numpy.linalg.svd(a, full_matrices, compute_uv, hermitian)`.
///
/// # Errors
/// As [`svd`].
pub fn svd_with(a: &Array, opts: Svd) -> Result<SvdResult> {
    let op = "svd";
    assert_stacked_2d(op, a)?;
    if opts.hermitian {
        return svd_hermitian(a, opts.compute_uv);
    }
    let t = linalg_dtype(op, &[a.dtype()])?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let ad = dense(a, t)?;
    let mut outs = vec![(vec![k], real_of(t))];
    if opts.compute_uv {
        if opts.full_matrices {
            outs.push((vec![m, m], t));
            outs.push((vec![n, n], t));
        } else {
            outs.push((vec![m, k], t));
            outs.push((vec![k, n], t));
        }
    }
    let (outs, info) = factor(Factor {
        op: LinalgOp::Svd {
            full: opts.full_matrices,
            vectors: opts.compute_uv,
        },
        a: &ad,
        b: None,
        outs,
    })?;
    check_info(op, &info, "SVD did not converge")?;
    let mut it = outs.into_iter();
    let s = it.next().expect("s");
    Ok(SvdResult {
        u: it.next(),
        s,
        vh: it.next(),
    })
}

/// NumPy's `hermitian=True` SVD: from `eigh`, `s = |w|` sorted descending, the signs moved
/// into `vh`.
fn svd_hermitian(a: &Array, compute_uv: bool) -> Result<SvdResult> {
    let last = |x: &Array| -> Result<Array> { x.flip(-1isize) };
    if !compute_uv {
        let w = crate::math::misc::absolute(&eigvalsh(a)?)?;
        let s = last(&crate::sorting::sort::sort(&w)?)?;
        return Ok(SvdResult {
            u: None,
            s,
            vh: None,
        });
    }
    let (w, v) = eigh(a)?;
    let sgn = crate::sign(&w)?;
    let aw = crate::math::misc::absolute(&w)?;
    let sidx = last(&crate::sorting::sort::argsort(&aw)?)?;
    let sgn = crate::take_along_axis(&sgn, &sidx, Some(-1))?;
    let s = crate::take_along_axis(&aw, &sidx, Some(-1))?;
    let u = crate::take_along_axis(&v, &sidx.expand_dims(-2)?, Some(-1))?;
    let us = crate::multiply(&u, &sgn.expand_dims(-2)?)?;
    let us = if us.dtype() != u.dtype() {
        us.astype(u.dtype())?
    } else {
        us
    };
    let vh = super::solve::adjoint(&us)?;
    Ok(SvdResult {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}

/// `numpy.linalg.svdvals(x)`: the singular values of each matrix, descending.
///
/// # Errors
/// As [`svd`].
pub fn svdvals(a: &Array) -> Result<Array> {
    Ok(svd_with(
        a,
        Svd {
            compute_uv: false,
            ..Default::default()
        },
    )?
    .s)
}
routine!(svdvals as "cupy.linalg.svdvals", Linalg, probe: linalg_probe);
