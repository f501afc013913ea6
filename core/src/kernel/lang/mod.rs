//! The custom-kernel language: CuPy's `ElementwiseKernel`/`ReductionKernel` strings (parameter
//! lists, a C-like operation, a preamble of helper functions, reduction expressions) parsed and
//! type-checked into the kernel IR ([`crate::kernel::ir`]), so one user kernel runs on every
//! backend.
//!
//! CONTRACT (owned by the lead; the implementation behind it belongs to the parser work):
//! the frontend (`cupy::ElementwiseKernel`, `cupy::ReductionKernel`) resolves type placeholders
//! and decides per call how each name is bound ([`Binding`]); this module turns the strings into
//! IR. Every rejection is an [`crate::Error::Parse`] with a line, a column and a caret snippet.

use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::{Kernel, ReduceKernel};

/// The type written in a parameter list: a concrete dtype or a placeholder such as `T`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeSpec {
    /// `float32`, `int64`, `float`, `double`, `int`, ...
    DType(DType),
    /// A placeholder (`T`, `U`, any identifier that is not a type name).
    Placeholder(String),
}

/// One parameter of `in_params`/`out_params` (`"raw T y"` is `{ name: y, ty: T, raw: true }`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamSpec {
    /// The name used in the operation.
    pub name: String,
    /// Its declared type.
    pub ty: TypeSpec,
    /// Declared `raw` (indexable with `x[j]`, not read at the current element).
    pub raw: bool,
}

/// How a name is bound in one lowering (chosen by the caller per call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// Elementwise input `k`, read at the current element.
    Input(usize),
    /// Uniform scalar parameter `k`.
    Param(usize),
    /// Raw operand `k`, read as `name[index]`.
    Raw(usize),
    /// Output `k`: readable and writable in the operation, stored at the end of the body.
    Output(usize),
}

/// A name visible to the operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    /// The identifier.
    pub name: String,
    /// Its dtype (placeholders already resolved).
    pub dtype: DType,
    /// What it refers to.
    pub binding: Binding,
}

/// Everything needed to lower an `ElementwiseKernel` call.
#[derive(Clone, Debug)]
pub struct ElementwiseSource<'a> {
    /// Kernel name (a C identifier).
    pub name: &'a str,
    /// The operation (statements).
    pub operation: &'a str,
    /// Helper functions, inlined at their call sites.
    pub preamble: &'a str,
    /// Parameters in order, with their bindings. `Input`/`Param`/`Raw`/`Output` numbers are
    /// dense from 0 and give the order of `Kernel::inputs/params/raws/outputs`.
    pub names: &'a [Name],
    /// Placeholder values (`("T", Float32)`), usable as types inside the operation.
    pub types: &'a [(String, DType)],
    /// The parameter (an `Int64` param number) that holds `_ind.size()`, if the caller passes it.
    pub size_param: Option<usize>,
}

/// The result of [`lower_elementwise`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredElementwise {
    /// The kernel. Its inputs are the declared inputs followed by one input per entry of
    /// `output_reads`; its params are the declared params (and `size_param`).
    pub kernel: Kernel,
    /// Outputs whose incoming value the operation reads (e.g. `y += x`), in the order their
    /// extra inputs were appended: the caller passes those output arrays as those inputs.
    pub output_reads: Vec<usize>,
    /// True if the operation uses `_ind.size()` (the caller must then pass `size_param`).
    pub uses_size: bool,
}

/// Everything needed to lower a `ReductionKernel` call.
#[derive(Clone, Debug)]
pub struct ReductionSource<'a> {
    /// Kernel name.
    pub name: &'a str,
    /// `map_expr`: an expression of the inputs and params.
    pub map_expr: &'a str,
    /// `reduce_expr`: an expression of `a` and `b` (both of `acc`).
    pub reduce_expr: &'a str,
    /// `post_map_expr`: statements assigning the output from `a` (`y = sqrt(a)`,
    /// `y = a / (_in_ind.size() / _out_ind.size())`).
    pub post_map_expr: &'a str,
    /// `identity`: a constant expression (`"0"`, `"-INFINITY"`, `"1.0"`), converted to `acc`.
    pub identity: &'a str,
    /// Helper functions.
    pub preamble: &'a str,
    /// Inputs (`Binding::Input`) and scalar params (`Binding::Param`) with dtypes.
    pub names: &'a [Name],
    /// The output's name and dtype.
    pub output: (&'a str, DType),
    /// The accumulator dtype (CuPy's `reduce_type`).
    pub acc: DType,
    /// Placeholder values.
    pub types: &'a [(String, DType)],
    /// The `Int64` params holding `_in_ind.size()` and `_out_ind.size()`, if passed.
    pub size_params: Option<(usize, usize)>,
}

/// Parses a CuPy parameter list (`"float32 x, raw T y, int32 n"`; empty string = none).
///
/// # Errors
/// [`crate::Error::Parse`] (part `params`) for a malformed list, a duplicate name, or a
/// reserved name (`i`, `_ind`, ...).
pub fn parse_params(kernel: &str, part: &str, src: &str) -> Result<Vec<ParamSpec>> {
    let _ = (kernel, part, src);
    todo!("parser work")
}

/// Parses, type-checks and lowers an elementwise operation to one IR [`Kernel`].
///
/// # Errors
/// [`crate::Error::Parse`] with the position of the first problem.
pub fn lower_elementwise(src: &ElementwiseSource<'_>) -> Result<LoweredElementwise> {
    let _ = src;
    todo!("parser work")
}

/// Parses, type-checks and lowers a reduction to one IR [`ReduceKernel`].
///
/// # Errors
/// [`crate::Error::Parse`] with the position of the first problem.
pub fn lower_reduction(src: &ReductionSource<'_>) -> Result<ReduceKernel> {
    let _ = src;
    todo!("parser work")
}
