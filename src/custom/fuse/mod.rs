//! `cupy.fuse`: a closure over symbolic arrays, traced into IR kernels so a chain of
//! elementwise ops (and the reductions in it) reads and writes memory as few times as the data
//! dependencies allow.
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
//! `map` is the elementwise work before it, and independent reductions over one shape and one
//! set of axes share that kernel (one output each); the work after reductions is one
//! elementwise kernel per output shape that reads the reduced values (see
//! [`Fused::kernel_count`]). Values are shared: every traced op is a kernel local.
//!
//! A `Sym` is a variable, as a Python name bound to an array is: `x += y` (and `x.assign(v)`,
//! CuPy's `x[...] = v`, [`Sym::ufunc_out`], `out=`, and [`Sym::reduce_out`], a reduction's
//! `out=`) changes the value every copy of `x` sees, and on an array argument writes the
//! argument in place when the function runs.
//! `x.slice(&s![.., NEW_AXIS])` indexes a value for broadcasting (see [`Sym::slice`]).

mod function;
mod index;
mod inplace;
mod lets;
mod ops;
mod plan;
mod stages;
mod weak;

use crate::math::ufunc::Ufunc;
use crate::statistics::reduction::{Axes, Reduce, Reduction};
use cupy_core::dtype::DType;
use cupy_core::error::Error;
use cupy_core::kernel::ir::Expr;
use cupy_core::kernel::math::Lets;
use cupy_core::promote::WeakScalar;
use plan::{ShapeCheck, Source, Stage};
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
    /// Number of array arguments: `Input(k)` below it is array argument `k`, above it
    /// `sources[k - n_arrays]` (a reduction's result or a view).
    n_arrays: usize,
    /// The reductions and views traced so far, in order.
    sources: Vec<Source>,
    /// Per argument (value number `k < n_args`): its input number when it is an array.
    arg_inputs: Vec<Option<usize>>,
    /// The array arguments written in place (`x += y`, `x[...] = v`, `out=`), as input
    /// numbers, in the order of their first write.
    written: Vec<usize>,
    /// Shape checks of in-place writes, done when the shapes are known.
    checks: Vec<ShapeCheck>,
    /// `Sym::reduce_out` writes of a reduction's result into an array argument: (input
    /// number, source number of the reduction, the argument's value after the write).
    reduce_outs: Vec<(usize, usize, Expr)>,
}

impl Trace {
    /// Adds a source; its input expression.
    fn push_source(&mut self, s: Source, dtype: DType) -> Expr {
        self.sources.push(s);
        Expr::input(self.n_arrays + self.sources.len() - 1, dtype)
    }
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
