//! Tuple-accumulator reduction kernels shared by the frontend and the backends' tests:
//! arg-extremes (`argmax`/`argmin`: value and index) and moments (`var`/`std`: count, mean and
//! M2, combined with Chan et al.'s parallel formula).
//!
//! Both are plain [`ReduceKernel`]s: a backend that folds tuples runs them with nothing
//! specific to either.

use crate::dtype::{DType, Kind};
use crate::kernel::ir::{complex_of, BinaryOp as B, Expr, ReduceKernel, UnaryOp as U};
use crate::scalar::Scalar;
use num_complex::Complex;

/// Which extreme an arg-reduction looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extreme {
    /// `argmax`.
    Max,
    /// `argmin`.
    Min,
}

impl Extreme {
    /// NumPy's name of the arg-reduction (`"argmax"`, `"argmin"`).
    pub fn name(self) -> &'static str {
        match self {
            Extreme::Max => "argmax",
            Extreme::Min => "argmin",
        }
    }
}

/// The dtype an arg-reduction compares `input` in: bool and 8/16-bit integers widen to int32,
/// float16/bfloat16 to float32 (exact, and the same order); others stay.
pub fn arg_value_dtype(input: DType) -> DType {
    match input {
        DType::Bool | DType::Int8 | DType::UInt8 | DType::Int16 | DType::UInt16 => DType::Int32,
        DType::Float16 | DType::BFloat16 => DType::Float32,
        d => d,
    }
}

/// `argmax`/`argmin` of `input` over the reduced axes, as NumPy: the flat C-order index (within
/// the reduced axes, `Int64`) of the first extreme element; a NaN (for complex, a NaN in either
/// part) is extreme, so the first NaN wins; complex values compare lexicographically (real
/// part, then imaginary part); `-0.0` and `0.0` tie (the first wins).
///
/// Accumulators: the value (in [`arg_value_dtype`]) and its index. The identity's index is
/// `i64::MAX`, so it loses every tie. An empty reduction gives `i64::MAX`: NumPy refuses it
/// ("attempt to get argmax of an empty sequence") and so must the caller.
pub fn arg_extreme(input: DType, which: Extreme) -> ReduceKernel {
    let vt = arg_value_dtype(input);
    let it = DType::Int64;
    let (va, ia, vb, ib) = (
        Expr::var(0, vt),
        Expr::var(1, it),
        Expr::var(2, vt),
        Expr::var(3, it),
    );
    let bin = Expr::binary;
    let better = match which {
        Extreme::Max => B::Gt,
        Extreme::Min => B::Lt,
    };
    let b_first = bin(B::Lt, ib.clone(), ia.clone());
    let ordered = bin(
        B::Or,
        bin(better, vb.clone(), va.clone()),
        bin(B::And, bin(B::Eq, vb.clone(), va.clone()), b_first.clone()),
    );
    let b_wins = if vt.is_float() || vt.is_complex() {
        let (an, bn) = (
            Expr::unary(U::IsNan, va.clone()),
            Expr::unary(U::IsNan, vb.clone()),
        );
        Expr::select(
            an,
            bin(B::And, bn.clone(), b_first),
            bin(B::Or, bn, ordered),
        )
    } else {
        ordered
    };
    // The fold: b is the next element (a later index), so ties keep a, unless a is still the
    // identity (index i64::MAX), which every element replaces; NaN: the first one stays.
    let seq_better = bin(
        B::Or,
        bin(better, vb.clone(), va.clone()),
        bin(B::Eq, ia.clone(), Expr::constant(Scalar::Int64(i64::MAX))),
    );
    let b_next = if vt.is_float() || vt.is_complex() {
        Expr::select(
            Expr::unary(U::IsNan, va.clone()),
            Expr::constant(Scalar::Bool(false)),
            bin(B::Or, Expr::unary(U::IsNan, vb.clone()), seq_better),
        )
    } else {
        seq_better
    };
    let fold = vec![
        Expr::select(b_next.clone(), vb.clone(), va.clone()),
        Expr::select(b_next, ib.clone(), ia.clone()),
    ];
    let identity = match (vt, which) {
        (DType::Complex64, Extreme::Max) => {
            Scalar::Complex64(Complex::new(f32::NEG_INFINITY, f32::NEG_INFINITY))
        }
        (DType::Complex64, Extreme::Min) => {
            Scalar::Complex64(Complex::new(f32::INFINITY, f32::INFINITY))
        }
        (DType::Complex128, Extreme::Max) => {
            Scalar::Complex128(Complex::new(f64::NEG_INFINITY, f64::NEG_INFINITY))
        }
        (DType::Complex128, Extreme::Min) => {
            Scalar::Complex128(Complex::new(f64::INFINITY, f64::INFINITY))
        }
        (d, Extreme::Max) => Scalar::min_value(d),
        (d, Extreme::Min) => Scalar::max_value(d),
    };
    ReduceKernel {
        name: which.name().into(),
        inputs: vec![input],
        params: vec![],
        acc: vec![vt, it],
        map: vec![Expr::input(0, input).cast(vt), Expr::index()],
        combine: vec![
            Expr::select(b_wins.clone(), vb, va),
            Expr::select(b_wins, ib, ia),
        ],
        fold,
        identity: vec![identity, Scalar::Int64(i64::MAX)],
        post: Expr::var(1, it),
        output: it,
        extra_posts: vec![],
    }
}

/// Which moment a moments reduction returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Moment {
    /// `var`: `M2 / max(n - ddof, 0)`.
    Var,
    /// `std`: the square root of `var`.
    Std,
}

impl Moment {
    /// NumPy's name (`"var"`, `"std"`).
    pub fn name(self) -> &'static str {
        match self {
            Moment::Var => "var",
            Moment::Std => "std",
        }
    }
}

/// The result dtype of `var`/`std` of `input` (NumPy's): bool and integers give float64,
/// complex gives its real dtype, floats stay.
pub fn moments_dtype(input: DType) -> DType {
    match input.kind() {
        Kind::Bool | Kind::Int | Kind::UInt => DType::Float64,
        Kind::Complex => input.real_dtype(),
        Kind::Float => input,
    }
}

/// The real dtype `var`/`std` accumulate in: float32 for float16/bfloat16/float32/complex64,
/// float64 otherwise.
pub fn moments_acc_dtype(input: DType) -> DType {
    match moments_dtype(input) {
        DType::Float16 | DType::BFloat16 | DType::Float32 => DType::Float32,
        _ => DType::Float64,
    }
}

/// `var`/`std` of `input` over the reduced axes, with `ddof` as parameter 0 (of dtype
/// [`moments_acc_dtype`]): `M2 / max(n - ddof, 0)` (NumPy's value, so `n - ddof <= 0` gives inf,
/// or NaN when `M2` is 0, and an empty reduction NaN), `std` its square root, in
/// [`moments_dtype`].
///
/// Accumulators: the count `n` (`Int64`, exact), the mean (complex for complex input) and `M2`
/// (the sum of `|x - mean|^2`), combined as Chan, Golub and LeVeque:
/// `delta = mean_b - mean_a`, `n = n_a + n_b`, `mean = mean_a + delta * n_b / n`,
/// `M2 = M2_a + M2_b + |delta|^2 * n_a * n_b / n`. A side with `n = 0` (the identity) is
/// passed through exactly, so the fold's grouping never adds rounding of empty partials. A
/// mean that is not finite (an infinite or NaN element) gives NaN, as NumPy's `x - mean`.
pub fn moments(input: DType, which: Moment) -> ReduceKernel {
    let f = moments_acc_dtype(input);
    let mt = if input.is_complex() { complex_of(f) } else { f };
    let it = DType::Int64;
    let bin = Expr::binary;
    let (na, ma, qa) = (Expr::var(0, it), Expr::var(1, mt), Expr::var(2, f));
    let (nb, mb, qb) = (Expr::var(3, it), Expr::var(4, mt), Expr::var(5, f));
    let n = bin(B::Add, na.clone(), nb.clone());
    // w = n_b / n (n = 0 only where both sides are empty, which the selects below pass by)
    let w = bin(B::Div, nb.clone().cast(f), n.clone().cast(f));
    let delta = bin(B::Sub, mb.clone(), ma.clone());
    let mean = bin(
        B::Add,
        ma.clone(),
        bin(B::Mul, delta.clone(), w.clone().cast(mt)),
    );
    let d2 = if mt.is_complex() {
        let (re, im) = (
            Expr::unary(U::Real, delta.clone()),
            Expr::unary(U::Imag, delta),
        );
        bin(
            B::Add,
            bin(B::Mul, re.clone(), re),
            bin(B::Mul, im.clone(), im),
        )
    } else {
        bin(B::Mul, delta.clone(), delta)
    };
    let q = bin(
        B::Add,
        bin(B::Add, qa.clone(), qb.clone()),
        bin(B::Mul, bin(B::Mul, d2, na.clone().cast(f)), w),
    );
    let zero = Expr::constant(Scalar::Int64(0));
    let b_empty = bin(B::Eq, nb.clone(), zero.clone());
    let a_empty = bin(B::Eq, na.clone(), zero);
    let pass = |a: Expr, b: Expr, both: Expr| {
        Expr::select(b_empty.clone(), a, Expr::select(a_empty.clone(), b, both))
    };
    let fzero = Expr::constant(Scalar::zero(f));
    let dof = bin(
        B::Max,
        bin(B::Sub, Expr::var(0, it).cast(f), Expr::param(0, f)),
        fzero,
    );
    // NumPy's `x - mean` is NaN wherever the mean is not finite (an infinite element): the
    // variance is NaN then, where the merge's M2 may be infinite.
    let var = Expr::select(
        Expr::unary(U::IsFinite, Expr::var(1, mt)),
        bin(B::Div, Expr::var(2, f), dof),
        Expr::constant(Scalar::Float64(f64::NAN).cast(f)),
    );
    // The fold (real input): Welford's update with the element x = mean_b (n_b = 1, M2_b = 0):
    // n = n_a + 1, mean = mean_a + (x - mean_a) / n, M2 = M2_a + (x - mean_a)(x - mean).
    // From the identity it gives (1, x, 0) exactly. Complex input keeps the merge.
    let fold = if mt.is_complex() {
        vec![]
    } else {
        let n1 = bin(B::Add, na.clone(), nb.clone());
        let d = bin(B::Sub, mb.clone(), ma.clone());
        let mean1 = bin(
            B::Add,
            ma.clone(),
            bin(B::Div, d.clone(), n1.clone().cast(f)),
        );
        let q1 = bin(
            B::Add,
            qa.clone(),
            bin(B::Mul, d, bin(B::Sub, mb.clone(), mean1.clone())),
        );
        vec![n1, mean1, q1]
    };
    let out = moments_dtype(input);
    let post = match which {
        Moment::Var => var,
        Moment::Std => Expr::unary(U::Sqrt, var),
    }
    .cast(out);
    ReduceKernel {
        name: which.name().into(),
        inputs: vec![input],
        params: vec![f],
        acc: vec![it, mt, f],
        map: vec![
            Expr::constant(Scalar::Int64(1)),
            Expr::input(0, input).cast(mt),
            Expr::constant(Scalar::zero(f)),
        ],
        combine: vec![n, pass(ma, mb, mean), pass(qa, qb, q)],
        fold,
        identity: vec![Scalar::Int64(0), Scalar::zero(mt), Scalar::zero(f)],
        post,
        output: out,
        extra_posts: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_validate_for_every_dtype() {
        use DType::*;
        for d in [
            Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, BFloat16,
            Float32, Float64, Complex64, Complex128,
        ] {
            for w in [Extreme::Max, Extreme::Min] {
                let k = arg_extreme(d, w);
                k.validate().unwrap_or_else(|e| panic!("{d} {w:?}: {e}"));
                assert_eq!((k.output, k.n_acc()), (Int64, 2));
            }
            for m in [Moment::Var, Moment::Std] {
                let k = moments(d, m);
                k.validate().unwrap_or_else(|e| panic!("{d} {m:?}: {e}"));
                assert_eq!(k.output, moments_dtype(d));
                assert_eq!(k.acc[0], Int64);
            }
        }
        assert_eq!(moments_dtype(Complex64), Float32);
        assert_eq!(moments_dtype(Int8), Float64);
        assert_eq!(moments_acc_dtype(Float16), Float32);
        assert_eq!(moments(Complex128, Moment::Var).acc[1], Complex128);
    }

    #[test]
    fn validate_refuses_malformed_tuples() {
        let k = moments(DType::Float32, Moment::Var);
        let mut bad = k.clone();
        bad.identity.pop();
        assert!(bad.validate().unwrap_err().to_string().contains("identity"));
        let mut bad = k.clone();
        // b's mean read with the wrong dtype
        bad.combine[1] = Expr::var(4, DType::Float64).cast(DType::Float32);
        assert!(bad.validate().unwrap_err().to_string().contains("local 4"));
        let mut bad = k.clone();
        bad.post = Expr::input(0, DType::Float32);
        assert!(bad.validate().unwrap_err().to_string().contains("only map"));
        let mut bad = k;
        bad.map[0] = Expr::var(0, DType::Int64);
        assert!(bad.validate().is_err());
    }
}
