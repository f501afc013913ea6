//! `cupy.fuse`: a closure over symbolic arrays, traced into one IR kernel so a chain of
//! elementwise ops (and an optional final reduction) reads and writes memory once.
//!
//! ```
//! use cupy::{fuse, Sym};
//! # fn main() -> cupy::Result<()> {
//! let x = cupy::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
//! let y = cupy::from_slice(&[0.5f32, 0.5, 0.5], &[3])?;
//! let f = fuse(|x: Sym, y: Sym| (x - y) * (x - y) + x.sin());
//! let z = f.call(&[(&x).into(), (&y).into()])?;
//! assert_eq!(z.dtype(), cupy::DType::Float32);
//! let total = fuse(|x: Sym, y: Sym| ((x - y) * (x - y)).sum());
//! assert_eq!(total.call(&[(&x).into(), (&y).into()])?.to_vec::<f32>()?, vec![8.75]);
//! # Ok(()) }
//! ```
//!
//! Tracing follows the array API exactly: every op on a [`Sym`] resolves its loop with the same
//! NumPy rules (NEP 50 weak scalars, [`Ufunc::loop_types`]) and the same IR bodies
//! ([`Ufunc::body`]) as the op on arrays, so a fused function returns what the unfused chain
//! returns, in one kernel. Rust numbers in the closure (`x * 2.0`) are weak scalars baked into
//! the kernel; scalar *arguments* of `call` become kernel parameters.
//!
//! A reduction (`sum`, `prod`, `max`, `min`, `mean`, ...) becomes one reduction kernel whose
//! `map` is the elementwise work before it; the work after reductions is one elementwise kernel
//! per output shape that reads the reduced values (see [`Fused::kernel_count`]). Values are
//! shared: every traced op is a kernel local.

mod function;
mod ops;
mod plan;
mod weak;

use crate::math::ufunc::Ufunc;
use crate::statistics::reduction::{Axes, Reduce, Reduction};
use cupy_core::dtype::DType;
use cupy_core::error::Error;
use cupy_core::kernel::ir::Expr;
use cupy_core::kernel::math::Lets;
use cupy_core::promote::WeakScalar;
use plan::Stage;
use std::cell::RefCell;
use std::sync::atomic::AtomicU32;

pub use function::{fuse, FuseFn, FuseOutput, Fused};
pub(crate) use ops::where_sym;
pub use ops::Operand;
pub use plan::FusedKernel;

/// A symbolic array inside a [`fuse`] closure. Cheap to copy; only valid during its trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sym {
    trace: u32,
    id: u32,
}

#[derive(Clone, Debug)]
enum Val {
    /// A typed value: an expression over the trace's inputs (the array arguments, then the
    /// results of its reductions, see [`Trace::stages`]), parameters and the locals of
    /// [`Trace::lets`]. Every op's result is bound to a local, so reusing a value shares it.
    Strong(Expr),
    /// A weak scalar: a Rust number in the closure (`None`), a scalar argument of `call`
    /// (`Some(arg number)`) or an op among weak scalars that involves an argument
    /// (`Some(number of arguments + its index in Trace::derived)`), typed at each use by
    /// promotion. The value is the one at trace time (for an argument, the first call's).
    Weak(WeakScalar, Option<usize>),
    /// The first error of the chain.
    Failed(Error),
}

struct Trace {
    id: u32,
    vals: Vec<Val>,
    /// Kernel parameters: (weak source, dtype); the index is the parameter number. A source
    /// below `n_args` is that argument, above it an entry of `derived`.
    param_slots: Vec<(usize, DType)>,
    /// Shared values of the ufunc bodies traced so far, as kernel locals.
    lets: Lets,
    /// Number of arguments of the traced call.
    n_args: usize,
    /// Weak scalars computed from scalar arguments (see [`weak_op`]): expressions in their
    /// Python dtype over `Param(source)` (each source in its own Python dtype), evaluated on
    /// the host per call.
    derived: Vec<Expr>,
    /// Number of array arguments: `Input(k)` below it is array argument `k`, above it the
    /// result of reduction `stages[k - n_arrays]`.
    n_arrays: usize,
    /// The reductions traced so far, in order.
    stages: Vec<Stage>,
}

thread_local! {
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}
static NEXT_TRACE: AtomicU32 = AtomicU32::new(1);

fn with_trace<R>(f: impl FnOnce(&mut Trace) -> R) -> Option<R> {
    TRACE.with(|t| t.borrow_mut().as_mut().map(f))
}

impl Sym {
    fn push(trace: &mut Trace, v: Val) -> Sym {
        trace.vals.push(v);
        Sym {
            trace: trace.id,
            id: (trace.vals.len() - 1) as u32,
        }
    }

    fn get(self, trace: &Trace) -> Val {
        if self.trace != trace.id {
            return Val::Failed(Error::invalid(
                "fuse",
                "a Sym was used outside the trace that created it",
            ));
        }
        trace.vals[self.id as usize].clone()
    }
}
