//! The custom-kernel language: CuPy's `ElementwiseKernel`/`ReductionKernel` strings (parameter
//! lists, a C-like operation, a preamble of helper functions, reduction expressions) parsed and
//! type-checked into the kernel IR ([`crate::kernel::ir`]), so one user kernel runs on every
//! backend.
//!
//! CONTRACT (owned by the lead; the implementation behind it belongs to the parser work):
//! the frontend (`cupy::ElementwiseKernel`, `cupy::ReductionKernel`) resolves type placeholders
//! and decides per call how each name is bound ([`Binding`]); this module turns the strings into
//! IR. Every rejection is an [`crate::Error::Parse`] with a line, a column and a caret snippet.
//!
//! # The language
//! A C subset, parsed with a pest grammar (`grammar.pest`) and lowered by `lower.rs`:
//! - **Parameters**: `[raw] TYPE NAME, ...`; TYPE is a NumPy name (`float32`, `int64`, ...), a C
//!   name (`float`, `double`, `int`, `unsigned int`, `long long`, `size_t`, `half`, ...),
//!   `complex<float>`/`complex<double>` (also `thrust::`/`std::`), or a placeholder (any other
//!   identifier).
//! - **Statements**: declarations (`T x = e;`, `float a, b = 2;`, `const`, `auto`),
//!   `=` and compound assignment, `x++`/`--x`, `if`/`else if`/`else`, blocks with C scoping,
//!   counted `for` loops whose bounds are uniform (constants, parameters, const locals,
//!   enclosing loop variables; steps `j++`, `j--`, `j += c`, `j -= c`; conditions `<`, `<=`, `>`,
//!   `>=`), `#pragma` lines (ignored) and object-like `#define NAME value`. The last statement's
//!   `;` is optional, as CuPy appends one. No `while`, `do`, `break`, `continue`, `switch`.
//! - **Expressions**: C precedence; literals (suffixes `u`, `l`, `ll`, `f`; hex; octal);
//!   `i` (the flat index, int64); `_ind.size()` (`_in_ind.size()`, `_out_ind.size()` in
//!   reductions; any other use of `_ind` is refused with a message saying so); `raw[j]` and
//!   `raw.size()`; casts `(T)x`, `T(x)`, `static_cast<T>(x)`; `?:`; math functions
//!   (`sqrt exp log sin cos tan tanh floor ceil fabs abs fmax fmin max min pow atan2 isnan isinf
//!   isfinite signbit rsqrt exp2 exp10 log2 log10 log1p expm1 sinh cosh asin acos atan asinh
//!   acosh atanh trunc round rint nearbyint fmod hypot fma copysign`, their `f` forms and
//!   `__expf`-style intrinsics) and constants (`M_PI`, `M_E`, `INFINITY`, `NAN`, `CUDART_INF_F`,
//!   `FLT_MAX`, `INT_MAX`, ...). Functions missing from the IR are composed from its ops.
//! - **Types**: C's usual arithmetic conversions, except that unsuffixed literals are *weak* as
//!   Python scalars are in NumPy: `2.0 * x` on float32 stays float32. `%` is C's truncated
//!   remainder on integers (an error on floats: use `fmod`); `&&`/`||` take any scalar; a raw
//!   read under `c && ...` or a `?:` arm reads element 0 where the guard is false (C would not
//!   read at all). `max`/`min` on floats ignore NaN, as CUDA's do.
//! - **Raw writes**: `raw[j] = e`, `raw[j] op= e`, `raw[j]++` on any raw name (input or
//!   output) lower to [`Stmt::StoreRaw`] inside `if (0 <= j && j < len)`, `len` being a param
//!   the caller passes ([`LoweredElementwise::raw_lens`]), so out-of-range writes are dropped
//!   on every backend. `j` is evaluated once; compound forms load, combine and store (not
//!   atomic: CuPy's semantics).
//! - **Complex**: `complex<float>(re, im)`, `T(re, im)` (T complex), `polar(r, t)`; `real imag
//!   conj abs arg norm exp log log10 sqrt pow sin cos tan sinh cosh tanh isnan isinf isfinite`,
//!   `z.real()`, `z.imag()`; `+ - * /`, `==`, `!=` with the real operand converted (C's usual
//!   conversions: float64 or complex128 anywhere gives complex128). Ordering, `%`, bit ops,
//!   complex conditions and implicit complex-to-real conversions are errors. The IR ops
//!   [`crate::kernel::ir::UnaryOp::Real`]/`Imag`/`Conj` and
//!   [`crate::kernel::ir::BinaryOp::Complex`] carry the exact parts.
//! - **Outputs** are locals stored at the end; an output read before it is assigned on every
//!   path gets its incoming value through an extra input ([`LoweredElementwise::output_reads`]).
//! - **Preamble**: functions (`[__device__] [inline] TYPE f(TYPE a, ...) { ...; return e; }`),
//!   inlined at each call (early returns allowed, not inside loops; no recursion), and
//!   `#define` constants.
//! - **Reductions**: `map_expr`, `reduce_expr` (of `a`, `b`) and `identity` are expressions;
//!   `post_map_expr` statements (no loops) are folded into one expression, `if`/`else` into
//!   selects; the identity must fold to a constant. Without identity (`None`), the kernel
//!   gets `acc`'s zero (CuPy's `T()`); the frontend folds from the first element instead.
//! - **Errors** carry the part, line and column; a snippet line longer than 80 characters is
//!   cut to a window around the caret.

use std::collections::HashMap;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{Expr, Kernel, ReduceKernel, Stmt};
use crate::scalar::Scalar;

mod lower;
mod syntax;
#[cfg(test)]
mod tests;
mod types;

use lower::{fold, Lowering, Sym};
use syntax::{locate, parse, Builder, PErr, Rule};

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
    /// Raw operands whose length (element count) the kernel needs: for bounds checks of raw
    /// writes (`y[j] = v` is dropped unless `0 <= j < len`) and for `y.size()`. The caller
    /// passes each length as an `Int64` parameter, in this order, after the declared params
    /// and `size_param`: `kernel.params[n_before + m]` holds `raw_lens[m]`'s length.
    pub raw_lens: Vec<usize>,
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
    /// `identity`: a constant expression (`"0"`, `"-INFINITY"`, `"1.0"`), converted to `acc`;
    /// `None` (CuPy's `identity=None`) gives the kernel `acc`'s zero (CuPy's `T()`) as its
    /// identity, which the caller must not rely on: it reduces from the first element instead.
    pub identity: Option<&'a str>,
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
    run_big_stack(|| {
        params_inner(src).map_err(|e| to_error(kernel, &[(PART_PARAMS, part, src)], e))
    })
}

const PART_PARAMS: &str = "params";

fn params_inner(src: &str) -> std::result::Result<Vec<ParamSpec>, PErr> {
    let top = parse(PART_PARAMS, Rule::param_list, src)?
        .next()
        .expect("param_list");
    let mut out: Vec<ParamSpec> = vec![];
    for p in top.into_inner().filter(|p| p.as_rule() == Rule::param) {
        let mut words: Vec<(usize, String)> = p
            .into_inner()
            .map(|w| {
                let at = w.as_span().start();
                if w.as_rule() == Rule::tmpl_type {
                    (at, Builder::words_of_one(w))
                } else {
                    (at, w.as_str().to_string())
                }
            })
            .collect();
        let raw = words.first().is_some_and(|w| w.1 == "raw");
        if raw {
            words.remove(0);
        }
        if words.len() < 2 {
            let at = words.first().map_or(0, |w| w.0);
            return syntax::perr(PART_PARAMS, at, "expected a type and a name (`float32 x`)");
        }
        let (npos, name) = words.pop().expect("name");
        let tpos = words[0].0;
        let name = name.as_str();
        let tw: Vec<&str> = words.iter().map(|w| w.1.as_str()).collect();
        let ty = match types::resolve_type(&tw, &[]) {
            Some(types::Ty::D(d)) => TypeSpec::DType(d),
            Some(types::Ty::Auto) => {
                return syntax::perr(PART_PARAMS, tpos, "`auto` is not a parameter type")
            }
            None if tw.len() == 1
                && !types::is_reserved_name(tw[0])
                && tw[0].chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                TypeSpec::Placeholder(tw[0].to_string())
            }
            None => {
                return syntax::perr(
                    PART_PARAMS,
                    tpos,
                    format!("unknown type `{}`", tw.join(" ")),
                )
            }
        };
        if types::is_reserved_name(name) {
            return syntax::perr(PART_PARAMS, npos, format!("`{name}` is a reserved name"));
        }
        if out.iter().any(|q| q.name == name) {
            return syntax::perr(
                PART_PARAMS,
                npos,
                format!("duplicate parameter name `{name}`"),
            );
        }
        out.push(ParamSpec {
            name: name.to_string(),
            ty,
            raw,
        });
    }
    Ok(out)
}

/// Turns a located problem into [`Error::Parse`]; `parts` maps internal part tags to the
/// caller's part names and sources.
fn to_error(kernel: &str, parts: &[(&'static str, &str, &str)], e: PErr) -> Error {
    let (name, src) = parts
        .iter()
        .find(|p| p.0 == e.part)
        .map_or((e.part, ""), |p| (p.1, p.2));
    let (line, column, snippet) = locate(src, e.pos);
    Error::Parse {
        kernel: kernel.to_string(),
        part: name.to_string(),
        line,
        column,
        msg: e.msg,
        snippet,
    }
}

/// Runs `f` on a thread with a large stack (the parser and lowering recurse on nesting, which
/// is capped, but test threads have small stacks); inline if no thread can be started.
fn run_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let cell = std::sync::Mutex::new(Some(f));
    let ran = std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("cupy-kernel-lang".into())
            .stack_size(64 << 20)
            .spawn_scoped(s, || {
                let f = cell.lock().ok()?.take()?;
                Some(f())
            });
        h.ok().map(|h| h.join())
    });
    match ran {
        Some(Ok(Some(v))) => v,
        Some(Err(p)) => std::panic::resume_unwind(p),
        _ => {
            // No thread could be started: run here.
            let f = cell
                .into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .expect("closure not run");
            f()
        }
    }
}

fn is_type_fn(types: &[(String, DType)]) -> impl Fn(&[String]) -> bool + '_ {
    move |w: &[String]| types::resolve_type(w, types).is_some()
}

/// Macros visible to the kernel: name -> (part, body).
type Macros = HashMap<String, (&'static str, syntax::Ex)>;

/// Preprocesses `src` (part `part`), adding its `#define`s to `macros`; returns the text to parse.
fn directives(
    part: &'static str,
    src: &str,
    types: &[(String, DType)],
    macros: &mut Macros,
) -> std::result::Result<String, PErr> {
    let (text, defs) = syntax::preprocess(part, src)?;
    let is_type = is_type_fn(types);
    let b = Builder {
        part,
        is_type: &is_type,
    };
    for (name, pos, body) in defs {
        let mut p = parse(part, Rule::expr_only, &body)?;
        let top = p.next().expect("expr_only");
        let e = b.expr(top.into_inner().next().expect("expr"))?;
        if macros.insert(name.clone(), (part, e)).is_some() {
            return syntax::perr(part, pos, format!("macro `{name}` defined twice"));
        }
    }
    Ok(text)
}

fn parse_preamble(
    src: &str,
    types: &[(String, DType)],
    macros: &mut Macros,
) -> std::result::Result<HashMap<String, syntax::Func>, PErr> {
    let mut map = HashMap::new();
    if src.trim().is_empty() {
        return Ok(map);
    }
    let text = directives("preamble", src, types, macros)?;
    let is_type = is_type_fn(types);
    let b = Builder {
        part: "preamble",
        is_type: &is_type,
    };
    let top = parse("preamble", Rule::preamble, &text)?
        .next()
        .expect("preamble");
    for f in b.funcs(top)? {
        if map.contains_key(&f.name) {
            return syntax::perr(
                "preamble",
                f.pos,
                format!("function `{}` defined twice", f.name),
            );
        }
        map.insert(f.name.clone(), f);
    }
    Ok(map)
}

fn new_cx<'a>(
    part: &'static str,
    types: &'a [(String, DType)],
    funcs: &'a HashMap<String, syntax::Func>,
    macros: &'a Macros,
    stmt_mode: bool,
) -> Lowering<'a> {
    Lowering {
        part,
        types,
        funcs,
        macros,
        expanding: vec![],
        stmt_mode,
        locals: vec![],
        env: vec![],
        scopes: vec![HashMap::new()],
        sinks: vec![vec![]],
        guards: vec![],
        index_ok: false,
        size_ind: None,
        size_in: None,
        size_out: None,
        uses_size: false,
        out_read: vec![],
        out_def: vec![],
        decl_depth: vec![],
        substituted: vec![],
        loop_vars: vec![],
        bound_mode: None,
        inline: vec![],
        raw_len_base: None,
        raw_lens: vec![],
    }
}

/// Dtypes of the names bound `pick(binding) = Some(k)`, by k; the numbers must be dense.
fn dense(
    kernel: &str,
    names: &[Name],
    what: &str,
    pick: impl Fn(Binding) -> Option<usize>,
) -> Result<Vec<DType>> {
    let mut v: Vec<Option<DType>> = vec![];
    for n in names {
        if let Some(k) = pick(n.binding) {
            if v.len() <= k {
                v.resize(k + 1, None);
            }
            if v[k].is_some() {
                return Err(Error::invalid(
                    format!("kernel {kernel}"),
                    format!("two names bound to {what} {k}"),
                ));
            }
            v[k] = Some(n.dtype);
        }
    }
    v.into_iter()
        .enumerate()
        .map(|(k, d)| {
            d.ok_or_else(|| {
                Error::invalid(
                    format!("kernel {kernel}"),
                    format!("no name bound to {what} {k}"),
                )
            })
        })
        .collect()
}

fn check_names(kernel: &str, names: &[Name]) -> Result<()> {
    for (k, n) in names.iter().enumerate() {
        if names[..k].iter().any(|m| m.name == n.name) {
            return Err(Error::invalid(
                format!("kernel {kernel}"),
                format!("duplicate name `{}`", n.name),
            ));
        }
    }
    Ok(())
}

/// Parses, type-checks and lowers an elementwise operation to one IR [`Kernel`].
///
/// # Errors
/// [`crate::Error::Parse`] with the position of the first problem.
pub fn lower_elementwise(src: &ElementwiseSource<'_>) -> Result<LoweredElementwise> {
    run_big_stack(|| lower_elementwise_inner(src))
}

fn lower_elementwise_inner(src: &ElementwiseSource<'_>) -> Result<LoweredElementwise> {
    let kernel = src.name;
    check_names(kernel, src.names)?;
    let inputs = dense(kernel, src.names, "input", |b| match b {
        Binding::Input(k) => Some(k),
        _ => None,
    })?;
    let outputs = dense(kernel, src.names, "output", |b| match b {
        Binding::Output(k) => Some(k),
        _ => None,
    })?;
    let raws = dense(kernel, src.names, "raw operand", |b| match b {
        Binding::Raw(k) => Some(k),
        _ => None,
    })?;
    let mut params: Vec<Option<DType>> = src
        .names
        .iter()
        .filter_map(|n| match n.binding {
            Binding::Param(k) => Some((k, n.dtype)),
            _ => None,
        })
        .fold(vec![], |mut v, (k, d)| {
            if v.len() <= k {
                v.resize(k + 1, None);
            }
            v[k] = Some(d);
            v
        });
    if let Some(k) = src.size_param {
        if params.len() <= k {
            params.resize(k + 1, None);
        }
        if params[k].is_some() {
            return Err(Error::invalid(
                format!("kernel {kernel}"),
                format!("size_param {k} is also a declared parameter"),
            ));
        }
        params[k] = Some(DType::Int64);
    }
    let params: Vec<DType> = params
        .into_iter()
        .enumerate()
        .map(|(k, d)| {
            d.ok_or_else(|| {
                Error::invalid(
                    format!("kernel {kernel}"),
                    format!("no name bound to param {k}"),
                )
            })
        })
        .collect::<Result<_>>()?;
    let parts = [
        ("operation", "operation", src.operation),
        ("preamble", "preamble", src.preamble),
    ];
    let err = |e: PErr| to_error(kernel, &parts, e);
    let mut macros = Macros::new();
    let funcs = parse_preamble(src.preamble, src.types, &mut macros).map_err(err)?;
    let op_text = directives("operation", src.operation, src.types, &mut macros).map_err(err)?;
    let is_type = is_type_fn(src.types);
    let b = Builder {
        part: "operation",
        is_type: &is_type,
    };
    let body_ast = parse("operation", Rule::operation, &op_text)
        .and_then(|mut p| b.stmts(p.next().expect("operation")))
        .map_err(err)?;

    let mut cx = new_cx("operation", src.types, &funcs, &macros, true);
    cx.index_ok = true;
    cx.size_ind = src.size_param;
    cx.raw_len_base = Some(params.len());
    cx.out_read = vec![false; outputs.len()];
    cx.out_def = vec![false; outputs.len()];
    // Output locals first: slots 0..n_out.
    for (k, &d) in outputs.iter().enumerate() {
        cx.locals.push(d);
        cx.decl_depth.push(0);
        cx.substituted.push(false);
        let _ = k;
    }
    for n in src.names {
        let sym = match n.binding {
            Binding::Input(k) => Sym::Fixed {
                e: Expr::input(k, n.dtype),
                what: "inputs",
            },
            Binding::Param(k) => Sym::Fixed {
                e: Expr::param(k, n.dtype),
                what: "inputs",
            },
            Binding::Raw(k) => Sym::Raw { k, ty: n.dtype },
            Binding::Output(k) => Sym::Local {
                slot: k,
                ty: n.dtype,
                out: Some(k),
                uniform: None,
            },
        };
        cx.scopes[0].insert(n.name.clone(), sym);
    }
    cx.stmts(&body_ast).map_err(err)?;
    let lowered = cx.sinks.pop().expect("body");
    let mut kin = inputs.clone();
    let mut output_reads = vec![];
    let mut body = vec![];
    for (k, &d) in outputs.iter().enumerate() {
        let value = if cx.out_read[k] || !cx.out_def[k] {
            output_reads.push(k);
            kin.push(d);
            Expr::input(kin.len() - 1, d)
        } else {
            Expr::constant(Scalar::zero(d))
        };
        body.push(Stmt::Let { var: k, value });
    }
    body.extend(lowered);
    for (k, &d) in outputs.iter().enumerate() {
        body.push(Stmt::Store {
            output: k,
            value: Expr::var(k, d),
        });
    }
    let mut params = params;
    params.extend(cx.raw_lens.iter().map(|_| DType::Int64));
    let raw_lens: Vec<usize> = cx.raw_lens.iter().map(|&(r, _)| r).collect();
    let kernel_ir = Kernel {
        name: kernel.to_string(),
        inputs: kin,
        outputs,
        raws,
        params,
        locals: cx.locals,
        body,
    };
    kernel_ir.validate().map_err(|e| {
        Error::invalid(
            format!("kernel {kernel}"),
            format!("internal error: lowered kernel is invalid ({e}); please report"),
        )
    })?;
    Ok(LoweredElementwise {
        kernel: kernel_ir,
        output_reads,
        uses_size: cx.uses_size,
        raw_lens,
    })
}

/// Parses, type-checks and lowers a reduction to one IR [`ReduceKernel`].
///
/// # Errors
/// [`crate::Error::Parse`] with the position of the first problem.
pub fn lower_reduction(src: &ReductionSource<'_>) -> Result<ReduceKernel> {
    run_big_stack(|| lower_reduction_inner(src))
}

fn lower_reduction_inner(src: &ReductionSource<'_>) -> Result<ReduceKernel> {
    let kernel = src.name;
    check_names(kernel, src.names)?;
    for n in src.names {
        if !matches!(n.binding, Binding::Input(_) | Binding::Param(_)) {
            return Err(Error::invalid(
                format!("kernel {kernel}"),
                format!("reduction name `{}` must be an input or a param", n.name),
            ));
        }
    }
    let inputs = dense(kernel, src.names, "input", |b| match b {
        Binding::Input(k) => Some(k),
        _ => None,
    })?;
    let mut params: Vec<Option<DType>> = vec![];
    for n in src.names {
        if let Binding::Param(k) = n.binding {
            if params.len() <= k {
                params.resize(k + 1, None);
            }
            params[k] = Some(n.dtype);
        }
    }
    if let Some((a, b)) = src.size_params {
        for k in [a, b] {
            if params.len() <= k {
                params.resize(k + 1, None);
            }
            if params[k].is_some() && params[k] != Some(DType::Int64) || (a == b) {
                return Err(Error::invalid(
                    format!("kernel {kernel}"),
                    format!("size param {k} clashes with another parameter"),
                ));
            }
            params[k] = Some(DType::Int64);
        }
    }
    let params: Vec<DType> = params
        .into_iter()
        .enumerate()
        .map(|(k, d)| {
            d.ok_or_else(|| {
                Error::invalid(
                    format!("kernel {kernel}"),
                    format!("no name bound to param {k}"),
                )
            })
        })
        .collect::<Result<_>>()?;
    let parts = [
        ("map_expr", "map_expr", src.map_expr),
        ("reduce_expr", "reduce_expr", src.reduce_expr),
        ("post_map_expr", "post_map_expr", src.post_map_expr),
        ("identity", "identity", src.identity.unwrap_or("")),
        ("preamble", "preamble", src.preamble),
    ];
    let err = |e: PErr| to_error(kernel, &parts, e);
    let acc = src.acc;
    let (out_name, out_ty) = src.output;
    let mut macros = Macros::new();
    let funcs = parse_preamble(src.preamble, src.types, &mut macros).map_err(err)?;
    let is_type = is_type_fn(src.types);
    let one_expr = |part: &'static str, text: &str| -> std::result::Result<syntax::Ex, PErr> {
        let b = Builder {
            part,
            is_type: &is_type,
        };
        let mut p = parse(part, Rule::expr_only, text)?;
        let top = p.next().expect("expr_only");
        b.expr(top.into_inner().next().expect("expr"))
    };
    let set_sizes = |cx: &mut Lowering<'_>| {
        if let Some((a, b)) = src.size_params {
            cx.size_in = Some(a);
            cx.size_out = Some(b);
        }
    };
    let add_names = |cx: &mut Lowering<'_>| {
        for n in src.names {
            let sym = match n.binding {
                Binding::Input(k) => Sym::Fixed {
                    e: Expr::input(k, n.dtype),
                    what: "inputs",
                },
                Binding::Param(k) => Sym::Fixed {
                    e: Expr::param(k, n.dtype),
                    what: "inputs",
                },
                _ => unreachable!("checked"),
            };
            cx.scopes[0].insert(n.name.clone(), sym);
        }
    };
    let ab = |cx: &mut Lowering<'_>, with_b: bool| {
        cx.scopes.push(HashMap::new());
        cx.scopes[1].insert(
            "a".into(),
            Sym::Fixed {
                e: Expr::var(0, acc),
                what: "accumulators",
            },
        );
        if with_b {
            cx.scopes[1].insert(
                "b".into(),
                Sym::Fixed {
                    e: Expr::var(1, acc),
                    what: "accumulators",
                },
            );
        }
    };

    // map
    let map_ast = one_expr("map_expr", src.map_expr).map_err(err)?;
    let mut cx = new_cx("map_expr", src.types, &funcs, &macros, false);
    set_sizes(&mut cx);
    add_names(&mut cx);
    let v = cx.expr(&map_ast).map_err(err)?;
    let map = conv_to(&cx, &v, acc, "map_expr", map_ast.pos).map_err(err)?;

    // combine
    let red_ast = one_expr("reduce_expr", src.reduce_expr).map_err(err)?;
    let mut cx = new_cx("reduce_expr", src.types, &funcs, &macros, false);
    ab(&mut cx, true);
    let v = cx.expr(&red_ast).map_err(err)?;
    let combine = conv_to(&cx, &v, acc, "reduce_expr", red_ast.pos).map_err(err)?;

    // identity
    let identity = match src.identity {
        None => Scalar::zero(acc),
        Some(text) => {
            if text.trim().is_empty() {
                return Err(err(PErr {
                    part: "identity",
                    pos: 0,
                    msg: "the identity is empty (pass no identity instead)".into(),
                }));
            }
            let id_ast = one_expr("identity", text).map_err(err)?;
            let mut cx = new_cx("identity", src.types, &funcs, &macros, false);
            let v = cx.expr(&id_ast).map_err(err)?;
            let ide = conv_to(&cx, &v, acc, "identity", id_ast.pos).map_err(err)?;
            fold(&ide).ok_or_else(|| {
                err(PErr {
                    part: "identity",
                    pos: id_ast.pos,
                    msg: "the identity must be a constant (a literal, a cast of one, or a \
                          constant such as INFINITY)"
                        .into(),
                })
            })?
        }
    };

    // post
    let post_text = if src.post_map_expr.trim().is_empty() {
        None
    } else {
        Some(src.post_map_expr)
    };
    let post = match post_text {
        None => Expr::var(0, acc).cast(out_ty),
        Some(text) => {
            let b = Builder {
                part: "post_map_expr",
                is_type: &is_type,
            };
            let ast = parse("post_map_expr", Rule::post_stmts, text)
                .and_then(|mut p| b.stmts(p.next().expect("post_stmts")))
                .map_err(err)?;
            let mut cx = new_cx("post_map_expr", src.types, &funcs, &macros, false);
            set_sizes(&mut cx);
            add_names(&mut cx);
            ab(&mut cx, false);
            cx.out_read = vec![false];
            cx.out_def = vec![false];
            cx.env.push(None);
            cx.scopes[1].insert(
                out_name.to_string(),
                Sym::Local {
                    slot: 0,
                    ty: out_ty,
                    out: Some(0),
                    uniform: None,
                },
            );
            cx.scopes.push(HashMap::new());
            cx.stmts(&ast).map_err(err)?;
            match cx.env[0].clone() {
                Some(e) => e,
                None => {
                    return Err(err(PErr {
                        part: "post_map_expr",
                        pos: 0,
                        msg: format!(
                            "post_map_expr must assign the output `{out_name}` on every path"
                        ),
                    }))
                }
            }
        }
    };
    Ok(ReduceKernel {
        name: kernel.to_string(),
        inputs,
        params,
        acc: vec![acc],
        map: vec![map],
        combine: vec![combine],
        identity: vec![identity],
        post,
        output: out_ty,
    })
}

fn conv_to(
    cx: &Lowering<'_>,
    v: &lower::Val,
    t: DType,
    part: &'static str,
    pos: usize,
) -> std::result::Result<Expr, PErr> {
    if v.e.ty.is_complex() && !t.is_complex() {
        return syntax::perr(part, pos, lower::COMPLEX_TO_REAL);
    }
    Ok(cx.conv_pub(v, t))
}
