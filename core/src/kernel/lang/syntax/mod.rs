//! Parsing: the pest grammar (`grammar.pest`), source pre-checks (nesting depth, unsupported
//! keywords), and the abstract syntax tree the lowering works on.

use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;

mod ast;
mod build;
pub(crate) use ast::*;
pub(crate) use build::*;

/// The generated pest parser.
#[derive(Parser)]
#[grammar = "kernel/lang/grammar.pest"]
pub(crate) struct LangParser;

/// Deepest bracket / `?:` nesting accepted (guards the parser's and lowering's recursion).
pub(crate) const MAX_NESTING: usize = 64;
/// Deepest expression tree accepted (long operator chains, prefix chains).
pub(crate) const MAX_EXPR_DEPTH: u32 = 256;

/// A located problem, converted to [`crate::Error::Parse`] by the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PErr {
    /// Which string (`operation`, `preamble`, ...).
    pub part: &'static str,
    /// Byte offset in that string.
    pub pos: usize,
    /// What is wrong.
    pub msg: String,
}

pub(crate) type PResult<T> = std::result::Result<T, PErr>;

/// Builds a [`PErr`].
pub(crate) fn perr<T>(part: &'static str, pos: usize, msg: impl Into<String>) -> PResult<T> {
    Err(PErr {
        part,
        pos,
        msg: msg.into(),
    })
}

/// Characters of a source line shown in an error snippet; longer lines are cut to a window
/// around the caret, with `...` marking what was cut.
pub(crate) const SNIPPET_WIDTH: usize = 80;

/// Line and column (both from 1, column in characters) of byte offset `pos`, and the snippet
/// (the line, then a caret under the column). A line longer than [`SNIPPET_WIDTH`] characters
/// is shown as a window of that many characters around the caret (`...` on the cut sides); the
/// column still counts from the start of the real line.
pub(crate) fn locate(src: &str, pos: usize) -> (usize, usize, String) {
    let mut pos = pos.min(src.len());
    while !src.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &src[..pos];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    let end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    let text = src[start..end].trim_end_matches('\r');
    let col0 = src[start..pos].chars().count();
    let column = col0 + 1;
    let n = text.chars().count();
    let (w0, w1) = if n <= SNIPPET_WIDTH {
        (0, n)
    } else {
        let w0 = col0
            .saturating_sub(SNIPPET_WIDTH / 2)
            .min(n - SNIPPET_WIDTH);
        (w0, w0 + SNIPPET_WIDTH)
    };
    let cut_left = if w0 > 0 { "..." } else { "" };
    let cut_right = if w1 < n { "..." } else { "" };
    let shown: String = text.chars().skip(w0).take(w1 - w0).collect();
    let prefix: String = " ".repeat(cut_left.len())
        + &text
            .chars()
            .skip(w0)
            .take(col0.saturating_sub(w0))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect::<String>();
    (
        line,
        column,
        format!("{cut_left}{shown}{cut_right}\n{prefix}^"),
    )
}

/// The message for a use of `_ind` (or `_in_ind`, `_out_ind`) other than `.size()`; `text` is
/// what was written.
pub(crate) fn ind_misuse(obj: &str, text: &str) -> String {
    let shown: String = if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    };
    let what = if obj == "_ind" {
        "`_ind.size()` (the number of elements the kernel runs over; `i` is the current \
         element's flat index)"
    } else {
        "`_in_ind.size()` and `_out_ind.size()` (in a ReductionKernel: the number of input \
         and output elements)"
    };
    format!("`{shown}` is not supported: the only supported use of `{obj}` is {what}")
}

/// Handles preprocessor lines, keeping byte offsets: `#pragma ...` lines are ignored and
/// `#define NAME value` lines are collected as macros (both blanked out). Other directives
/// are left in place, for [`precheck`] to refuse.
pub(crate) fn preprocess(part: &'static str, src: &str) -> PResult<(String, Vec<Macro>)> {
    let mut out = String::with_capacity(src.len());
    let mut macros = vec![];
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let body_len = line.trim_end_matches(['\n', '\r']).len();
        let t = line.trim_start();
        let lead = line.len() - t.len();
        let blank = |out: &mut String| {
            out.push_str(&" ".repeat(body_len));
            out.push_str(&line[body_len..]);
        };
        match t.strip_prefix('#').map(|r| (r, r.trim_start())) {
            Some((_, d)) if d.starts_with("pragma") => blank(&mut out),
            Some((r, d))
                if d.starts_with("define")
                    && !d[6..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let after = &d[6..];
                let name_off = offset
                    + lead
                    + 1
                    + (r.len() - d.len())
                    + 6
                    + (after.len() - after.trim_start().len());
                let a = after.trim_start();
                let name: String = a
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                    return perr(part, name_off, "expected a macro name after #define");
                }
                let rest = &a[name.len()..];
                if rest.starts_with('(') {
                    return perr(
                        part,
                        name_off + name.len(),
                        "function-like macros are not supported (write a function instead)",
                    );
                }
                let body = rest.trim_end_matches(['\n', '\r']);
                if body.trim_end().ends_with('\\') {
                    return perr(part, name_off, "multi-line macros are not supported");
                }
                if body.trim().is_empty() {
                    return perr(part, name_off, format!("macro `{name}` has no value"));
                }
                let body_off = name_off + name.len();
                macros.push((name, name_off, format!("{}{body}", " ".repeat(body_off))));
                blank(&mut out);
            }
            _ => out.push_str(line),
        }
        offset += line.len();
    }
    Ok((out, macros))
}

/// Scans `src` (outside comments) for nesting deeper than [`MAX_NESTING`] and for keywords of
/// unsupported statements, so the parser never recurses without bound and such kernels get a
/// clear message.
pub(crate) fn precheck(part: &'static str, src: &str) -> PResult<()> {
    let b = src.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            continue;
        }
        match c {
            b'(' | b'[' | b'{' | b'?' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return perr(
                        part,
                        i,
                        format!("nesting too deep (more than {MAX_NESTING} levels)"),
                    );
                }
            }
            b')' | b']' | b'}' | b':' => depth = depth.saturating_sub(1),
            b'#' => {
                return perr(
                    part,
                    i,
                    "this preprocessor directive is not supported (only `#define NAME value` \
                     and `#pragma` lines are)",
                )
            }
            b'"' | b'\'' => {
                return perr(part, i, "string and character literals are not supported")
            }
            _ => {}
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &src[s..i];
            let msg = match w {
                "while" | "do" => Some(format!(
                    "`{w}` loops are not supported: only counted `for` loops with uniform bounds \
                     (constants, parameters, enclosing loop variables)"
                )),
                "break" | "continue" | "goto" => Some(format!(
                    "`{w}` is not supported: loops always run their full trip count"
                )),
                "switch" | "case" => Some("`switch` is not supported: use if/else".to_string()),
                "template" | "typename" | "struct" | "class" if part == "preamble" => None,
                "template" | "typename" | "struct" | "class" => Some(format!(
                    "`{w}` is not supported here: define templates and structs in the preamble"
                )),
                "typedef" | "namespace" => Some(format!("`{w}` is not supported in kernel code")),
                _ => None,
            };
            if let Some(m) = msg {
                return perr(part, s, m);
            }
            continue;
        }
        i += 1;
    }
    Ok(())
}

pub(crate) fn describe(r: &Rule) -> &'static str {
    use Rule::*;
    match r {
        expr | bin_expr | unary | postfix_expr | float_lit | int_lit | bool_lit | static_cast
        | ind_size | call | paren | cast_prefix | op_neg | op_pos | op_not | op_bitnot
        | for_cond | expr_only => "an expression",
        op_lor | op_land | op_bitor | op_bitxor | op_bitand | op_eq | op_ne | op_shl | op_shr
        | op_le | op_ge | op_lt | op_gt | op_add | op_sub | op_mul | op_div | op_rem => {
            "an operator"
        }
        ident | word | type_words | type_spec | ind_name | tmpl_type | kw_complex | ns_prefix => {
            "a name"
        }
        ind_other | tmpl_call => "an expression",
        member_suffix => "",
        param | param_list => "a parameter (`TYPE NAME`)",
        block | if_stmt | for_stmt | return_stmt | empty_stmt | decl_stmt | incdec_stmt
        | assign_stmt | expr_stmt | decl_core | assign_core | incdec_core | operation
        | post_stmts | for_init | for_step => "a statement",
        assign_op => "an assignment operator",
        op_inc | op_dec => "`++` or `--`",
        declarator => "a declarator",
        lvalue => "an assignable name",
        index_suffix => "",
        else_if | else_part | kw_else => "`else`",
        kw_if => "`if`",
        kw_for => "`for`",
        kw_return => "`return`",
        func_def | preamble | func_decl | method_def | fname | op_name | kw_operator | op_sym
        | kw_const | access => "a function definition",
        struct_fwd => "a struct definition",
        tmpl_name | deref_this => "a name",
        targ_expr => "an expression",
        struct_def | field_decl | field_name | kw_struct => "a struct definition",
        template_head | tparam | tparam_kind | kw_template => "a template parameter list",
        fparam_ty | ref_mark => "a function parameter",
        field_suffix => "",
        targ_call | targ => "an expression",
        fparam | fparam_decl => "a function parameter",
        EOI => "end of input",
        p_lparen => "`(`",
        p_rparen => "`)`",
        p_rbrack => "`]`",
        p_rbrace => "`}`",
        p_semi => "`;`",
        p_colon => "`:`",
        _ => "a token",
    }
}

/// Parses `src` with rule `rule`; a failure becomes a [`PErr`] with a readable message.
pub(crate) fn parse<'i>(
    part: &'static str,
    rule: Rule,
    src: &'i str,
) -> PResult<pest::iterators::Pairs<'i, Rule>> {
    precheck(part, src)?;
    LangParser::parse(rule, src).map_err(|e| {
        let pos = match e.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((p, _)) => p,
        };
        let mut wanted: Vec<&str> = vec![];
        if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
            for r in positives {
                let d = describe(r);
                if !d.is_empty() && !wanted.contains(&d) {
                    wanted.push(d);
                }
            }
        }
        // Punctuation first (the most likely fix), then the rest.
        wanted.sort_by_key(|w| !w.starts_with('`'));
        let found = match src[pos.min(src.len())..].chars().next() {
            Some(c) => format!("found `{c}`"),
            None => "found end of input".to_string(),
        };
        let msg = match wanted.len() {
            0 => format!("syntax error ({found})"),
            1 => format!("syntax error: expected {} ({found})", wanted[0]),
            n => format!(
                "syntax error: expected {} or {} ({found})",
                wanted[..n - 1].join(", "),
                wanted[n - 1]
            ),
        };
        PErr { part, pos, msg }
    })
}

/// False for punctuation tokens (kept in the grammar only for error messages).
pub(crate) fn not_punct(p: &Pair<'_, Rule>) -> bool {
    !matches!(
        p.as_rule(),
        Rule::p_lparen
            | Rule::p_rparen
            | Rule::p_rbrack
            | Rule::p_rbrace
            | Rule::p_semi
            | Rule::p_colon
    )
}
