//! `cupyx.scipy.signal`: 2-D convolution as one IR kernel (a uniform loop over the kernel window
//! per output element), so every backend runs it on its device.

use crate::array::{same_device, Array};
use crate::launch::Elementwise;
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt};
use cupy_core::promote::promote_types;
use cupy_core::scalar::Scalar;

/// Output size rule of a convolution (`scipy.signal.convolve2d`'s `mode`); `"full"`, `"same"`
/// and `"valid"` parse into it (`"same".parse::<Mode>()?`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The full discrete linear convolution: `(M + P - 1, N + Q - 1)` (SciPy's default).
    #[default]
    Full,
    /// The size of `in1`, centred on the full output.
    Same,
    /// Only elements that do not rely on zero-padding: `(M - P + 1, N - Q + 1)`.
    Valid,
}

impl std::str::FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Mode> {
        match s {
            "full" => Ok(Mode::Full),
            "same" => Ok(Mode::Same),
            "valid" => Ok(Mode::Valid),
            _ => Err(Error::invalid(
                "convolve2d",
                format!("acceptable mode flags are 'valid', 'same', or 'full', not {s:?}"),
            )),
        }
    }
}

/// Keyword arguments of [`convolve2d_with`] (`scipy.signal.convolve2d(in1, in2, mode=...)`;
/// `boundary="fill"` with `fillvalue=0` is the only boundary so far). A [`Mode`] converts into
/// it: `convolve2d_with(&x, &k, Mode::Same)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Convolve2d {
    /// The output size rule (`mode=`, default [`Mode::Full`]).
    pub mode: Mode,
}

impl From<Mode> for Convolve2d {
    fn from(mode: Mode) -> Convolve2d {
        Convolve2d { mode }
    }
}

/// The IR kernel: for output `(i, j)`, `sum_{p,q} in1[i + oi - p, j + oj - q] * in2[p, q]` over
/// the in-bounds taps (boundary="fill", fillvalue=0). Params: M, N, P, Q, output width, oi, oj.
pub(crate) fn kernel(t: DType) -> Kernel {
    let i64t = DType::Int64;
    let p = |k: usize| Expr::param(k, i64t);
    let (m, n, kp, kq, w, oi, oj) = (p(0), p(1), p(2), p(3), p(4), p(5), p(6));
    let bin = Expr::binary;
    // locals: 0 acc (t), 1 row (i64), 2 col (i64), 3 p, 4 q, 5 r, 6 c
    let v = |k: usize| Expr::var(k, i64t);
    let zero = || Expr::constant(Scalar::Int64(0));
    let r = bin(BinaryOp::Sub, bin(BinaryOp::Add, v(1), oi), v(3));
    let c = bin(BinaryOp::Sub, bin(BinaryOp::Add, v(2), oj), v(4));
    let inside = bin(
        BinaryOp::And,
        bin(
            BinaryOp::And,
            bin(BinaryOp::Ge, v(5), zero()),
            bin(BinaryOp::Lt, v(5), m),
        ),
        bin(
            BinaryOp::And,
            bin(BinaryOp::Ge, v(6), zero()),
            bin(BinaryOp::Lt, v(6), n.clone()),
        ),
    );
    let idx1 = bin(BinaryOp::Add, bin(BinaryOp::Mul, v(5), n), v(6));
    let idx2 = bin(BinaryOp::Add, bin(BinaryOp::Mul, v(3), kq.clone()), v(4));
    let tap = bin(
        BinaryOp::Mul,
        Expr::load(0, t, idx1),
        Expr::load(1, t, idx2),
    );
    let body = vec![
        Stmt::Let {
            var: 0,
            value: Expr::constant(Scalar::zero(t)),
        },
        Stmt::Let {
            var: 1,
            value: bin(BinaryOp::FloorDiv, Expr::index(), w.clone()),
        },
        Stmt::Let {
            var: 2,
            value: bin(BinaryOp::Mod, Expr::index(), w),
        },
        Stmt::Let {
            var: 5,
            value: zero(),
        },
        Stmt::Let {
            var: 6,
            value: zero(),
        },
        Stmt::For {
            var: 3,
            start: zero(),
            end: kp,
            body: vec![Stmt::For {
                var: 4,
                start: zero(),
                end: kq,
                body: vec![
                    Stmt::Assign { var: 5, value: r },
                    Stmt::Assign { var: 6, value: c },
                    Stmt::If {
                        cond: inside,
                        then_body: vec![Stmt::Assign {
                            var: 0,
                            value: bin(BinaryOp::Add, Expr::var(0, t), tap),
                        }],
                        else_body: vec![],
                    },
                ],
            }],
        },
        Stmt::Store {
            output: 0,
            value: Expr::var(0, t),
        },
    ];
    Kernel {
        name: "convolve2d".into(),
        inputs: vec![],
        outputs: vec![t],
        raws: vec![t, t],
        params: vec![i64t; 7],
        locals: vec![t, i64t, i64t, i64t, i64t, i64t, i64t],
        body,
    }
}

/// `scipy.signal.convolve2d(in1, in2)`: the full 2-D convolution (SciPy's default mode),
/// `boundary="fill", fillvalue=0`, computed on the arrays' device as one kernel. Output shape
/// `(M+P-1, N+Q-1)`; [`convolve2d_with`] takes the other modes. float16/bfloat16 inputs
/// accumulate in float32 and are rounded once (SciPy has no float16 loop; CuPy's weights are
/// float32), on every backend.
///
/// # Errors
/// [`Error::InvalidArgument`] for inputs that are not 2-D or are empty; [`Error::TypeError`]
/// for bool inputs (SciPy: "not available for this type"); dtype and device errors (e.g. float64 on a device without it).
pub fn convolve2d(in1: &Array, in2: &Array) -> Result<Array> {
    convolve2d_with(in1, in2, Convolve2d::default())
}

/// `scipy.signal.convolve2d(in1, in2, mode=...)`: `convolve2d_with(&x, &k, Mode::Same)`.
/// Output shape: full `(M+P-1, N+Q-1)`, same `(M, N)`, valid `(M-P+1, N-Q+1)`.
///
/// # Errors
/// As [`convolve2d`]; [`Error::InvalidArgument`] for a `"valid"` pair where neither input
/// contains the other.
pub fn convolve2d_with(in1: &Array, in2: &Array, opts: impl Into<Convolve2d>) -> Result<Array> {
    let mode = opts.into().mode;
    let op = "convolve2d";
    same_device(op, [in1, in2])?;
    if in1.ndim() != 2 || in2.ndim() != 2 {
        return Err(Error::invalid(
            op,
            format!(
                "in1 and in2 should both be 2-D arrays, got shapes {:?} and {:?}",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    if in1.size() == 0 || in2.size() == 0 {
        return Err(Error::invalid(
            op,
            format!(
                "in1 and in2 must not be empty (shapes {:?} and {:?})",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    let (mut a, mut b) = (in1, in2);
    if mode == Mode::Valid {
        let a_big = a.shape()[0] >= b.shape()[0] && a.shape()[1] >= b.shape()[1];
        let b_big = b.shape()[0] >= a.shape()[0] && b.shape()[1] >= a.shape()[1];
        if !a_big && b_big {
            std::mem::swap(&mut a, &mut b);
        } else if !a_big {
            return Err(Error::invalid(op, format!("for 'valid' mode, one must be at least as large as the other in every dimension ({:?} vs {:?})", in1.shape(), in2.shape())));
        }
    }
    let t = promote_types(a.dtype(), b.dtype());
    if t.is_bool() {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![a.dtype(), b.dtype()],
            msg: "convolve2d not available for bool inputs (integer, float and complex are)".into(),
        });
    }
    // float16/bfloat16 accumulate in float32 and round once (as CuPy's float32 weights do):
    // a float16 running sum would round at every tap on one backend and not on another.
    let w = acc_type(t);
    let a = if a.dtype() != w {
        a.astype(w)?
    } else {
        a.clone()
    };
    let b = if b.dtype() != w {
        b.astype(w)?
    } else {
        b.clone()
    };
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let (p, q) = (b.shape()[0], b.shape()[1]);
    let (rows, cols, oi, oj) = match mode {
        Mode::Full => (m + p - 1, n + q - 1, 0, 0),
        Mode::Same => (m, n, (p - 1) / 2, (q - 1) / 2),
        Mode::Valid => (m - p + 1, n - q + 1, p - 1, q - 1),
    };
    let k = kernel(w);
    let params = [m, n, p, q, cols.max(1), oi, oj]
        .iter()
        .map(|&v| Scalar::Int64(v as i64))
        .collect();
    Elementwise {
        op,
        kernel: &k,
        inputs: &[],
        raws: &[&a, &b],
        params,
        outs: vec![None],
        device: Some(a.device()),
        shape: Some(&[rows, cols]),
    }
    .run_one()
    .and_then(|r| if w == t { Ok(r) } else { r.astype(t) })
}

/// The dtype the kernel computes in for inputs promoted to `t`: float32 for float16/bfloat16.
fn acc_type(t: DType) -> DType {
    match t {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        t => t,
    }
}
routine!(
    convolve2d as "cupyx.scipy.signal.convolve2d",
    Signal,
    probe: |t| (t.is_integer() || t.is_inexact()).then(|| crate::registry::Need::Kernel(kernel(acc_type(t)))),
    notes: "mode 'full' by default (convolve2d_with for 'same'/'valid'); boundary='fill', fillvalue=0"
);
