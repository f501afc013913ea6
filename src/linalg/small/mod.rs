//! Batched small matrices in one kernel: `solve`, `inv`, `det`, `slogdet`, `cholesky` and
//! `eigh`/`eigvalsh` of real float32/float64 `n x n` matrices with `n <= SMALL_MAX_N`, one IR
//! kernel invocation per matrix, the matrix fully unrolled in kernel locals (registers on a GPU).
//!
//! A library call per matrix (cuSOLVER's loop over the batch) or a host round trip (wgpu, hip)
//! is hundreds of times slower than the arithmetic for 100,000 3x3 matrices; here the whole batch
//! is one launch that reads each matrix once (contiguous), computes in locals and writes each
//! output once. The kernels are written once in the kernel IR, so every backend (cuda and hip
//! through the C++ emitter, wgpu through WGSL, cpu through the IR evaluator) runs the same
//! arithmetic. There are no data-dependent branches: pivot choices are selects.
//!
//! Algorithms (Golub & Van Loan, *Matrix Computations*, 4th ed.):
//! - **LU with partial pivoting** (GVL Algorithm 3.4.1, Gaussian elimination with row
//!   interchanges; LAPACK's `getf2`): the pivot is the first entry of largest magnitude in the
//!   column, whole rows are swapped, the multipliers are scaled by the pivot's reciprocal, and a
//!   zero pivot leaves its column unscaled (LAPACK). `info` is `i + 1` for the first exactly
//!   zero `U[i, i]`, as the cpu backend (faer) reports it. `solve` applies the interchanges to
//!   each right-hand-side column (a loop over the `k` columns) and substitutes forward (unit
//!   `L`) and back (`U`); `inv` does the same for the identity's columns; `det` is the product of
//!   the pivots times the interchanges' sign, `slogdet` sums their logs (a zero pivot gives
//!   `(0, -inf)`).
//! - **Cholesky** (GVL Algorithm 4.2.1, the row-oriented `L L^T`): `info` is `j + 1` for the
//!   first pivot that is not positive (NaN included, as LAPACK's `potrf`).
//! - **Cyclic Jacobi** (GVL Algorithm 8.5.3, with the rotation of its Algorithm 8.5.1,
//!   `sym.schur2`): a fixed number of row-cyclic sweeps ([`jacobi_sweeps`]), every rotation
//!   unrolled; then the diagonal is sorted ascending by a compare-exchange network that carries
//!   `V`'s columns (unit-norm eigenvectors: `V` is a product of rotations).
//!
//! Non-finite input follows the cpu backend (`docs/backends.md`, "Non-finite input"): LU and Cholesky propagate NaN as LAPACK does (Cholesky reports a NaN
//! pivot as not positive definite); `eigh` returns NaN eigenvalues and vectors for a matrix
//! holding NaN or inf anywhere, with `info` 0. Nothing loops on data, so nothing can hang.
//! Failed matrices (`info != 0`) of `solve`/`inv`/`cholesky` get NaN outputs, as on cpu, and
//! the call reads back one failure code for the whole batch (NumPy's batched `LinAlgError`).
//!
//! Where it runs is [`SmallMode`]: `CUPY_LINALG_SMALL=auto` (default) uses these kernels on
//! every backend but cpu (which keeps faer, parallel over the batch); `1` forces them on every
//! backend (tests run them on cpu that way), `0` turns them off. Complex dtypes are not covered
//! yet (they take the backend's `linalg`).

// The unrolled matrix code reads rows and columns by index, as the algorithms are written.
#![allow(clippy::needless_range_loop)]

mod jacobi;
mod lu;

use crate::array::Array;
use crate::device::Device;
use crate::launch::Elementwise;
use crate::random::builder::{add, fc, mul, Builder};
use cupy_core::backend::{BackendKind, LinalgOp};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel, Stmt, UnaryOp};
use cupy_core::scalar::Scalar;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use jacobi::jacobi_sweeps;

/// The largest `n` of the one-kernel path: every op is unrolled over `n`, so its code (and
/// register use) grows as `n^3`; at 4 a float64 `eigh` with vectors holds about 40 values.
pub const SMALL_MAX_N: usize = 4;

/// Where the small-matrix kernels run (environment variable `CUPY_LINALG_SMALL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallMode {
    /// `0`: never; every op takes `Backend::linalg` (or its host hybrid).
    Off,
    /// `1`: on every backend, cpu included (how the tests check the kernels on cpu).
    On,
    /// `auto` (default): on every backend but cpu, which keeps faer.
    Auto,
}

impl SmallMode {
    /// Parses `0`/`off`, `1`/`on`, `auto` (case-insensitive).
    pub fn parse(s: &str) -> Option<SmallMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "0" | "off" | "false" => Some(SmallMode::Off),
            "1" | "on" | "true" => Some(SmallMode::On),
            "auto" | "" => Some(SmallMode::Auto),
            _ => None,
        }
    }
}

thread_local! {
    static OVERRIDE: Cell<Option<SmallMode>> = const { Cell::new(None) };
}

/// The mode in effect on this thread: a [`with_small_kernels`] override, else
/// `CUPY_LINALG_SMALL` (read once per process; an unknown value counts as `auto`).
pub fn small_mode() -> SmallMode {
    if let Some(m) = OVERRIDE.with(Cell::get) {
        return m;
    }
    static ENV: OnceLock<SmallMode> = OnceLock::new();
    *ENV.get_or_init(|| {
        std::env::var("CUPY_LINALG_SMALL")
            .ok()
            .and_then(|v| SmallMode::parse(&v))
            .unwrap_or(SmallMode::Auto)
    })
}

/// Runs `f` with the small-matrix mode set to `mode` on this thread (restored afterwards, also
/// when `f` panics): tests force the kernels on the cpu backend this way.
pub fn with_small_kernels<R>(mode: SmallMode, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<SmallMode>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|c| c.replace(Some(mode))));
    f()
}

/// True when the kernels implement `op` for `n x n` matrices of `dtype`: `Solve`, `Inv`, `Det`,
/// `Slogdet`, `Cholesky` and `Eigh` of float32/float64 with `1 <= n <= SMALL_MAX_N`.
pub fn covers(op: LinalgOp, dtype: DType, n: usize) -> bool {
    matches!(
        op,
        LinalgOp::Solve
            | LinalgOp::Inv
            | LinalgOp::Det
            | LinalgOp::Slogdet
            | LinalgOp::Cholesky { .. }
            | LinalgOp::Eigh { .. }
    ) && matches!(dtype, DType::Float32 | DType::Float64)
        && (1..=SMALL_MAX_N).contains(&n)
}

/// Whether [`crate::linalg`]'s `factor` takes the small path for this call.
pub(crate) fn wanted(device: &Device, op: LinalgOp, dtype: DType, m: usize, n: usize) -> bool {
    m == n
        && covers(op, dtype, n)
        && match small_mode() {
            SmallMode::Off => false,
            SmallMode::On => true,
            SmallMode::Auto => device.kind() != BackendKind::Cpu,
        }
}

/// True for the ops whose matrices can fail (`solve`, `inv`, `cholesky`): their kernels report
/// a failure. `det`, `slogdet` and `eigh` cannot fail here (a singular matrix has determinant 0,
/// Jacobi runs a fixed number of sweeps), so their calls read nothing back (no synchronization).
pub fn reports_info(op: LinalgOp) -> bool {
    matches!(
        op,
        LinalgOp::Solve | LinalgOp::Inv | LinalgOp::Cholesky { .. }
    )
}

/// Runs `op` on the batch: `a [batch, n, n]` (and `b [batch, n, k]` for `Solve`), dense from
/// element 0, into `outs` (in [`LinalgOp`]'s order, already allocated). For the ops of
/// [`reports_info`] it returns an `int32 [1]` array that holds 0, or the code of a failed matrix
/// (`info` as [`LinalgOp`] documents it; which one when several failed is unspecified): NumPy's
/// batched rule needs only whether any matrix failed, and one element is a 4-byte read where a
/// per-matrix `info` would be `4 * batch` bytes. `None` for the other ops.
///
/// # Errors
/// Launch errors (a dtype the device lacks: `DTypeNotSupported`).
pub(crate) fn run(
    op: LinalgOp,
    a: &Array,
    b: Option<&Array>,
    outs: &[Array],
) -> Result<Option<Array>> {
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let batch: usize = a.shape()[..nd - 2].iter().product();
    let (kernel, dtypes) = cached(op, n, a.dtype())?;
    let failure = if reports_info(op) {
        Some(Array::zeros_on(a.device(), &[1], DType::Int32)?)
    } else {
        None
    };
    let mut raws: Vec<&Array> = vec![a];
    let mut params = vec![];
    if let Some(b) = b {
        raws.push(b);
        params.push(Scalar::Int64(b.shape()[b.ndim() - 1] as i64));
    }
    raws.extend(outs);
    raws.extend(failure.as_ref());
    Elementwise {
        op: op.name(),
        kernel: &kernel,
        inputs: &[],
        raws: &raws,
        params,
        outs: vec![],
        device: Some(a.device()),
        shape: Some(&[batch]),
    }
    .run_validated(&dtypes)?;
    Ok(failure)
}

type Cached = (Arc<Kernel>, Arc<Vec<DType>>);
type Cache = HashMap<(LinalgOp, usize, DType), Cached>;

/// The kernel of `(op, n, dtype)`, built and validated once per process.
fn cached(op: LinalgOp, n: usize, t: DType) -> Result<Cached> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let lock = || {
        CACHE
            .get_or_init(|| Mutex::new(HashMap::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    };
    if let Some(k) = lock().get(&(op, n, t)) {
        return Ok(k.clone());
    }
    let k = kernel(op, n, t)?;
    k.validate()?;
    let entry = (Arc::new(k.clone()), Arc::new(k.dtypes()));
    lock().insert((op, n, t), entry.clone());
    Ok(entry)
}

/// The IR kernel of `op` for `n x n` matrices of `t` (see the module docs). Its raw operands are
/// `a`, (`b`), the outputs in [`LinalgOp`]'s order and, for the ops of [`reports_info`], an
/// `int32 [1]` failure code (zeroed before the launch, written only by failed matrices);
/// `Solve` has one `Int64` parameter, the number of right-hand sides.
///
/// # Errors
/// [`Error::InvalidArgument`] when [`covers`] is false.
pub fn kernel(op: LinalgOp, n: usize, t: DType) -> Result<Kernel> {
    if !covers(op, t, n) {
        return Err(Error::invalid(
            op.name(),
            format!("no small-matrix kernel for {n}x{n} {t}"),
        ));
    }
    let mut b = Builder::new();
    let mut k = Ctx {
        n,
        t,
        base: Expr::constant(Scalar::Int64(0)),
    };
    k.base = b.let_(mul(Expr::index(), i64c((n * n) as i64)));
    let a = k.load(&mut b);
    let (raws, params) = match op {
        LinalgOp::Solve => {
            lu::solve(&mut b, &k, a);
            (vec![t, t, t, DType::Int32], vec![DType::Int64])
        }
        LinalgOp::Inv => {
            lu::inv(&mut b, &k, a);
            (vec![t, t, DType::Int32], vec![])
        }
        LinalgOp::Det | LinalgOp::Slogdet => {
            let slog = op == LinalgOp::Slogdet;
            lu::det(&mut b, &k, a, slog);
            (vec![t; 2 + slog as usize], vec![])
        }
        LinalgOp::Cholesky { upper } => {
            lu::cholesky(&mut b, &k, a, upper);
            (vec![t, t, DType::Int32], vec![])
        }
        LinalgOp::Eigh { upper, vectors } => {
            jacobi::eigh(&mut b, &k, a, upper, vectors);
            (vec![t; 2 + vectors as usize], vec![])
        }
        _ => unreachable!("covers() admits only the ops above"),
    };
    let name = format!(
        "linalg_small_{}{}_{n}_{}",
        op.name(),
        match op {
            LinalgOp::Cholesky { upper: true } | LinalgOp::Eigh { upper: true, .. } => "_u",
            _ => "",
        },
        t.name()
    );
    let name = match op {
        LinalgOp::Eigh { vectors: false, .. } => name.replace("eigh", "eigvalsh"),
        _ => name,
    };
    Ok(b.finish_raw(&name, params, raws))
}

/// Every small-matrix kernel (each op, flag, `n` and dtype), for emitter tests (hipRTC, NVRTC).
pub fn small_kernels() -> Vec<Kernel> {
    let mut ops = vec![
        LinalgOp::Solve,
        LinalgOp::Inv,
        LinalgOp::Det,
        LinalgOp::Slogdet,
    ];
    for upper in [false, true] {
        ops.push(LinalgOp::Cholesky { upper });
        for vectors in [false, true] {
            ops.push(LinalgOp::Eigh { upper, vectors });
        }
    }
    let mut out = vec![];
    for t in [DType::Float32, DType::Float64] {
        for n in 1..=SMALL_MAX_N {
            for &op in &ops {
                out.push(kernel(op, n, t).expect("covered"));
            }
        }
    }
    out
}

/// What every op's builder shares: the size, the dtype and the matrix's first element.
pub(super) struct Ctx {
    /// Rows (= columns).
    pub n: usize,
    /// The dtype.
    pub t: DType,
    /// `index * n * n` (an `Int64` local).
    pub base: Expr,
}

impl Ctx {
    /// The matrix of raw operand 0 in locals, `a[i][j]`.
    fn load(&self, b: &mut Builder) -> Vec<Vec<Expr>> {
        let n = self.n;
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let at = add(self.base.clone(), i64c((i * n + j) as i64));
                        b.let_(Expr::load(0, self.t, at))
                    })
                    .collect()
            })
            .collect()
    }
    /// Stores the `n x n` matrix `m` (row-major) into raw operand `raw`.
    pub fn store_matrix(&self, b: &mut Builder, raw: usize, m: &[Vec<Expr>]) {
        for (i, row) in m.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                let index = add(self.base.clone(), i64c((i * self.n + j) as i64));
                b.push_stmt(Stmt::StoreRaw {
                    raw,
                    index,
                    value: v.clone(),
                });
            }
        }
    }
    /// Stores one value per matrix (`det`, `sign`, `logabsdet`) into raw operand `raw`.
    pub fn store_scalar(&self, b: &mut Builder, raw: usize, v: Expr) {
        b.push_stmt(Stmt::StoreRaw {
            raw,
            index: Expr::index(),
            value: v,
        });
    }
    /// A failed matrix (`info != 0`) writes its `info` into element 0 of raw operand `raw`; the
    /// others write nothing (racing writers all write non-zero codes).
    pub fn report(&self, b: &mut Builder, raw: usize, info: Expr) {
        let failed = bin(BinaryOp::Ne, info.clone(), i32c(0));
        b.if_(failed, |b| {
            b.push_stmt(Stmt::StoreRaw {
                raw,
                index: i64c(0),
                value: info,
            })
        });
    }
    /// A constant of the dtype.
    pub fn c(&self, v: f64) -> Expr {
        fc(self.t, v)
    }
}

/// An `Int64` constant.
pub(super) fn i64c(v: i64) -> Expr {
    Expr::constant(Scalar::Int64(v))
}

/// An `Int32` constant.
pub(super) fn i32c(v: i32) -> Expr {
    Expr::constant(Scalar::Int32(v))
}

/// `select(c, a, b)`.
pub(super) fn sel(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::select(c, a, b)
}

/// A binary node.
pub(super) fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// A unary node.
pub(super) fn un(op: UnaryOp, a: Expr) -> Expr {
    Expr::unary(op, a)
}

/// `info = select(info == 0 && failed, code, info)`: the first failure's code wins.
pub(super) fn first_failure(b: &mut Builder, info: Expr, failed: Expr, code: i32) -> Expr {
    let fresh = bin(BinaryOp::Eq, info.clone(), i32c(0));
    b.let_(sel(bin(BinaryOp::And, fresh, failed), i32c(code), info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_validates() {
        let ks = small_kernels();
        assert_eq!(ks.len(), 2 * SMALL_MAX_N * 10);
        for k in &ks {
            k.validate().unwrap_or_else(|e| panic!("{}: {e}", k.name));
        }
    }

    #[test]
    fn modes_parse() {
        assert_eq!(SmallMode::parse("0"), Some(SmallMode::Off));
        assert_eq!(SmallMode::parse(" ON "), Some(SmallMode::On));
        assert_eq!(SmallMode::parse("auto"), Some(SmallMode::Auto));
        assert_eq!(SmallMode::parse("maybe"), None);
        let inner = with_small_kernels(SmallMode::Off, || {
            with_small_kernels(SmallMode::On, small_mode)
        });
        assert_eq!(inner, SmallMode::On);
    }
}
