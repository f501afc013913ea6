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
//!   `i` (the flat index, int64); `_ind.size()` and `_ind.get()` (`i`) (`_in_ind.size()`,
//!   `_out_ind.size()` in reductions; any other use of `_ind` is refused with a message saying
//!   so); `raw[j]`, `raw.size()`, `raw.shape()[d]` and `raw.strides()[d]` (constant `d`); casts `(T)x`, `T(x)`, `static_cast<T>(x)`; `?:`; math functions
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
//! - **Preamble**: functions (`[__device__] [inline] TYPE f(TYPE a, const TYPE& b, ...) {
//!   ...; return e; }`), inlined at each call (early returns allowed, not inside loops; no
//!   recursion), `#define` constants, function templates (`template<typename T, int N>`,
//!   instantiated per call: type parameters deduced from the arguments or given, `f<float,
//!   3>(x)`, `f<N - 1>(x)`; non-type parameters given, as constant expressions; they may size
//!   local arrays), structs (`struct P { T a; float v[2]; Q q; Q qs[3]; };`: a struct variable
//!   is one local per scalar field, named `p.a`, `p.v[0]`, `p.q.x`, `p.qs[1].x`; declared
//!   zero, from a `{...}` list of its scalar fields in order, or from a struct value; fields
//!   read and written; whole-struct copies, arguments and return values; see
//!   `lower/structs.rs`), template structs (`P<float, 3>`, an instance per argument list),
//!   arrays of structs (`P ps[3]`, `ps[j].x`: `lower/places.rs`), member functions and
//!   overloaded operators (inlined with the object as `this`: `lower/methods.rs`), `void`
//!   functions, and forward declarations. Pointers (but `*this`), constructors and virtual
//!   functions are refused. `a < b > (c)` parses as a template call and is read back as
//!   comparisons when `a` is not a template function.
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

mod kernels;
mod lower;
mod syntax;
#[cfg(test)]
mod tests;
mod types;

pub use kernels::{lower_elementwise, lower_reduction};

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
    /// Raw operands' sizes the kernel needs: their length (element count) for bounds checks of
    /// raw writes (`y[j] = v` is dropped unless `0 <= j < len`) and for `y.size()`, and the
    /// dimensions `y.shape()[d]` / `y.strides()[d]` read. The caller passes each as an `Int64`
    /// parameter, in this order, after the declared params and `size_param`:
    /// `kernel.params[n_before + m]` holds `raw_lens[m]` (raw operand, which value).
    pub raw_lens: Vec<(usize, RawMeta)>,
}

/// A size of a raw operand a kernel reads (see [`LoweredElementwise::raw_lens`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RawMeta {
    /// Its number of elements (`x.size()`).
    Size,
    /// The length of its axis `d` (`x.shape()[d]`).
    Shape(usize),
    /// The stride in bytes of axis `d` of the C-contiguous array the kernel reads
    /// (`x.strides()[d]`).
    Stride(usize),
    /// Its number of dimensions, which must be this (the kernel indexes it with a local array
    /// of that many indices, `x[idx]`); the caller refuses an array of another rank.
    Rank(usize),
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

pub(crate) fn params_inner(src: &str) -> std::result::Result<Vec<ParamSpec>, PErr> {
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
pub(crate) fn to_error(kernel: &str, parts: &[(&'static str, &str, &str)], e: PErr) -> Error {
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
pub(crate) fn run_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
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

pub(crate) fn is_type_fn(types: &[(String, DType)]) -> impl Fn(&[String]) -> bool + '_ {
    move |w: &[String]| types::resolve_type(w, types).is_some()
}

/// Macros visible to the kernel: name -> (part, body).
type Macros = HashMap<String, (&'static str, syntax::Ex)>;

/// Preprocesses `src` (part `part`), adding its `#define`s to `macros`; returns the text to parse.
pub(crate) fn directives(
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

/// Preamble functions and structs by name.
pub(crate) type Funcs = HashMap<String, syntax::Func>;
/// Preamble structs by name.
pub(crate) type Structs = HashMap<String, syntax::StructDef>;

/// Names the preamble declares as types: template parameters (`typename T`, `class T`) and
/// structs (`struct P`), so casts to them (`(T)x`) parse.
fn declared_type_names(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter(|w| matches!(w[0], "typename" | "class" | "struct"))
        .map(|w| w[1].to_string())
        .collect()
}

pub(crate) fn parse_preamble(
    src: &str,
    types: &[(String, DType)],
    macros: &mut Macros,
) -> std::result::Result<(Funcs, Structs), PErr> {
    let mut map = HashMap::new();
    let mut structs = HashMap::new();
    if src.trim().is_empty() {
        return Ok((map, structs));
    }
    let text = directives("preamble", src, types, macros)?;
    let extra = declared_type_names(&text);
    let base = is_type_fn(types);
    let is_type = |w: &[String]| base(w) || (w.len() == 1 && extra.contains(&w[0]));
    let b = Builder {
        part: "preamble",
        is_type: &is_type,
    };
    let top = parse("preamble", Rule::preamble, &text)?
        .next()
        .expect("preamble");
    for st in b.structs(top.clone())? {
        if types::resolve_type(&[st.name.as_str()], types).is_some()
            || types::is_reserved_name(&st.name)
        {
            return syntax::perr(
                "preamble",
                st.pos,
                format!("`{}` is a type name or reserved word", st.name),
            );
        }
        if structs.contains_key(&st.name) {
            return syntax::perr(
                "preamble",
                st.pos,
                format!("struct `{}` defined twice", st.name),
            );
        }
        structs.insert(st.name.clone(), st);
    }
    for f in b.funcs(top.clone())? {
        if map.contains_key(&f.name) {
            return syntax::perr(
                "preamble",
                f.pos,
                format!("function `{}` defined twice", f.name),
            );
        }
        map.insert(f.name.clone(), f);
    }
    // Forward declarations: every preamble function and struct is visible everywhere in it,
    // so a declaration only has to agree with its definition.
    for d in b.decls(top) {
        match (d.params, map.get(&d.name), structs.get(&d.name)) {
            (Some(n), Some(f), _) if f.params.len() != n => {
                return syntax::perr(
                    "preamble",
                    d.pos,
                    format!(
                        "`{}` is declared with {n} parameters but defined with {}",
                        d.name,
                        f.params.len()
                    ),
                )
            }
            (Some(_), Some(_), _) | (None, _, Some(_)) => {}
            (Some(_), None, _) => {
                return syntax::perr(
                    "preamble",
                    d.pos,
                    format!(
                        "function `{}` is declared but not defined in the preamble",
                        d.name
                    ),
                )
            }
            (None, _, None) => {
                return syntax::perr(
                    "preamble",
                    d.pos,
                    format!(
                        "struct `{}` is declared but not defined in the preamble",
                        d.name
                    ),
                )
            }
        }
    }
    Ok((map, structs))
}

pub(crate) fn new_cx<'a>(
    part: &'static str,
    types: &'a [(String, DType)],
    (funcs, structs): (&'a Funcs, &'a Structs),
    macros: &'a Macros,
    stmt_mode: bool,
) -> Lowering<'a> {
    Lowering {
        part,
        types: std::borrow::Cow::Borrowed(types),
        funcs,
        structs,
        inline_struct: vec![],
        struct_insts: HashMap::new(),
        this_struct: vec![],
        has_operators: !structs.is_empty() || funcs.keys().any(|n| n.starts_with("operator")),
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
pub(crate) fn dense(
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

pub(crate) fn check_names(kernel: &str, names: &[Name]) -> Result<()> {
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
