//! Parsing: the pest grammar (`grammar.pest`), source pre-checks (nesting depth, unsupported
//! keywords), and the abstract syntax tree the lowering works on.

use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;

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

/// Binary operators of the surface language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum BOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LAnd,
    LOr,
}

impl BOp {
    fn prec(self) -> u8 {
        use BOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            LAnd => 2,
            LOr => 1,
        }
    }
    /// The C spelling.
    pub(crate) fn symbol(self) -> &'static str {
        use BOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            LAnd => "&&",
            LOr => "||",
        }
    }
    fn from_rule(r: Rule) -> Option<BOp> {
        use BOp::*;
        Some(match r {
            Rule::op_lor => LOr,
            Rule::op_land => LAnd,
            Rule::op_bitor => BitOr,
            Rule::op_bitxor => BitXor,
            Rule::op_bitand => BitAnd,
            Rule::op_eq => Eq,
            Rule::op_ne => Ne,
            Rule::op_shl => Shl,
            Rule::op_shr => Shr,
            Rule::op_le => Le,
            Rule::op_ge => Ge,
            Rule::op_lt => Lt,
            Rule::op_gt => Gt,
            Rule::op_add => Add,
            Rule::op_sub => Sub,
            Rule::op_mul => Mul,
            Rule::op_div => Div,
            Rule::op_rem => Rem,
            _ => return None,
        })
    }
}

/// Unary operators of the surface language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UOp {
    Neg,
    Pos,
    Not,
    BitNot,
}

/// An expression with its byte position and tree depth.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ex {
    pub pos: usize,
    pub depth: u32,
    pub k: ExK,
}

/// Expression kinds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExK {
    /// Integer literal text.
    Int(String),
    /// Float literal text.
    Float(String),
    Bool(bool),
    Name(String),
    /// `_ind.size()`, `_in_ind.size()`, `_out_ind.size()`: the object's name.
    IndSize(String),
    /// `name[index]`.
    Index(Box<Ex>, Box<Ex>),
    /// `value.member()` (`z.real()`, `z.imag()`).
    Member(Box<Ex>, String),
    Call(String, Vec<Ex>),
    /// A cast to the type written with these words.
    Cast(Vec<String>, Box<Ex>),
    Unary(UOp, Box<Ex>),
    Binary(BOp, Box<Ex>, Box<Ex>),
    Cond(Box<Ex>, Box<Ex>, Box<Ex>),
}

impl Ex {
    fn new(part: &'static str, pos: usize, k: ExK) -> PResult<Ex> {
        let d = match &k {
            ExK::Index(a, b) | ExK::Binary(_, a, b) => a.depth.max(b.depth),
            ExK::Cast(_, a) | ExK::Unary(_, a) | ExK::Member(a, _) => a.depth,
            ExK::Cond(a, b, c) => a.depth.max(b.depth).max(c.depth),
            ExK::Call(_, args) => args.iter().map(|a| a.depth).max().unwrap_or(0),
            _ => 0,
        } + 1;
        if d > MAX_EXPR_DEPTH {
            return perr(
                part,
                pos,
                format!("expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)"),
            );
        }
        Ok(Ex { pos, depth: d, k })
    }
}

/// An assignable place: a name (or `name[index]`, rejected when lowered).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LVal {
    pub pos: usize,
    pub name: String,
    pub index: Option<Ex>,
}

/// One declared variable: position, name, initialiser.
pub(crate) type Declarator = (usize, String, Option<Ex>);

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum St {
    Decl {
        pos: usize,
        ty: Vec<String>,
        vars: Vec<Declarator>,
    },
    /// `lv = value` or `lv op= value`.
    Assign {
        pos: usize,
        lv: LVal,
        op: Option<BOp>,
        value: Ex,
    },
    IncDec {
        pos: usize,
        lv: LVal,
        inc: bool,
    },
    Expr(Ex),
    If {
        pos: usize,
        cond: Ex,
        then: Box<St>,
        els: Option<Box<St>>,
    },
    For {
        pos: usize,
        init: Option<Box<St>>,
        cond: Option<Ex>,
        step: Option<Box<St>>,
        body: Box<St>,
    },
    Block(Vec<St>),
    Empty,
    Return {
        pos: usize,
        value: Option<Ex>,
    },
}

/// A preamble function.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Func {
    pub pos: usize,
    pub name: String,
    pub ret: Vec<String>,
    pub ret_pos: usize,
    pub params: Vec<(Vec<String>, String, usize)>,
    pub body: Vec<St>,
}

/// An object-like macro: `#define NAME body`; `body` is the source with everything before the
/// body blanked, so positions in it are positions in the original string.
pub(crate) type Macro = (String, usize, String);

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
                "template" | "typename" | "struct" | "class" | "typedef" | "namespace" => {
                    Some(format!("`{w}` is not supported in kernel code"))
                }
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

fn describe(r: &Rule) -> &'static str {
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
        func_def | preamble => "a function definition",
        fparam => "a function parameter",
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
fn not_punct(p: &Pair<'_, Rule>) -> bool {
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

/// Builds the AST from pest pairs. `is_type` says whether a cast's words name a type (for the
/// C ambiguity of `(x) - 1`: a cast if `x` is a type, a subtraction otherwise).
pub(crate) struct Builder<'a> {
    pub part: &'static str,
    pub is_type: &'a dyn Fn(&[String]) -> bool,
}

enum Tok {
    Operand(Ex),
    Op(BOp, usize),
}

impl Builder<'_> {
    fn pos(p: &Pair<'_, Rule>) -> usize {
        p.as_span().start()
    }

    /// An `expr` pair.
    pub fn expr(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        debug_assert_eq!(p.as_rule(), Rule::expr);
        let mut inner = p.into_inner().filter(not_punct);
        let first = self.bin_expr(inner.next().expect("bin_expr"))?;
        // `c0 ? e0 : c1 ? e1 : last` -- right-associative.
        let mut parts = vec![];
        while let Some(mid) = inner.next() {
            let mid = self.expr(mid)?;
            let rhs = self.bin_expr(inner.next().expect("bin_expr"))?;
            parts.push((mid, rhs));
        }
        if parts.is_empty() {
            return Ok(first);
        }
        let mut conds = vec![first];
        let mut mids = vec![];
        for (m, r) in parts {
            mids.push(m);
            conds.push(r);
        }
        let mut acc = conds.pop().expect("else");
        while let Some(m) = mids.pop() {
            let c = conds.pop().expect("cond");
            let pos = c.pos;
            acc = Ex::new(
                self.part,
                pos,
                ExK::Cond(Box::new(c), Box::new(m), Box::new(acc)),
            )?;
        }
        Ok(acc)
    }

    fn bin_expr(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let mut toks = vec![];
        for q in p.into_inner().filter(not_punct) {
            if q.as_rule() == Rule::unary {
                self.unary_toks(q, &mut toks)?;
            } else {
                let op = BOp::from_rule(q.as_rule()).expect("infix op");
                toks.push(Tok::Op(op, Self::pos(&q)));
            }
        }
        // Shunting-yard (iterative: long chains do not recurse).
        let mut vals: Vec<Ex> = vec![];
        let mut ops: Vec<(BOp, usize)> = vec![];
        let reduce = |vals: &mut Vec<Ex>, op: BOp, pos: usize| -> PResult<()> {
            let b = vals.pop().expect("rhs");
            let a = vals.pop().expect("lhs");
            let _ = pos;
            let at = a.pos;
            vals.push(Ex::new(
                self.part,
                at,
                ExK::Binary(op, Box::new(a), Box::new(b)),
            )?);
            Ok(())
        };
        for t in toks {
            match t {
                Tok::Operand(e) => vals.push(e),
                Tok::Op(op, pos) => {
                    while let Some(&(top, tpos)) = ops.last() {
                        if top.prec() >= op.prec() {
                            ops.pop();
                            reduce(&mut vals, top, tpos)?;
                        } else {
                            break;
                        }
                    }
                    ops.push((op, pos));
                }
            }
        }
        while let Some((op, pos)) = ops.pop() {
            reduce(&mut vals, op, pos)?;
        }
        Ok(vals.pop().expect("value"))
    }

    /// Pushes the tokens of one `unary` pair: usually one operand, but a non-type "cast"
    /// `(x) - y` becomes the operand `x`, the operator `-`, and what follows.
    fn unary_toks(&self, p: Pair<'_, Rule>, toks: &mut Vec<Tok>) -> PResult<()> {
        enum Pre {
            Op(UOp, usize),
            Cast(Vec<String>, usize),
        }
        let mut pres = vec![];
        let mut post = None;
        for q in p.into_inner().filter(not_punct) {
            let pos = Self::pos(&q);
            match q.as_rule() {
                Rule::op_neg => pres.push(Pre::Op(UOp::Neg, pos)),
                Rule::op_pos => pres.push(Pre::Op(UOp::Pos, pos)),
                Rule::op_not => pres.push(Pre::Op(UOp::Not, pos)),
                Rule::op_bitnot => pres.push(Pre::Op(UOp::BitNot, pos)),
                Rule::cast_prefix => {
                    let words = Self::words(q.into_inner().find(not_punct).expect("type_words"));
                    pres.push(Pre::Cast(words, pos));
                }
                Rule::postfix_expr => post = Some(self.postfix(q)?),
                r => unreachable!("unary: {r:?}"),
            }
        }
        let operand = post.expect("postfix_expr");
        let apply = |pres: Vec<Pre>, mut e: Ex| -> PResult<Ex> {
            for pre in pres.into_iter().rev() {
                e = match pre {
                    Pre::Op(op, pos) => Ex::new(self.part, pos, ExK::Unary(op, Box::new(e)))?,
                    Pre::Cast(w, pos) => Ex::new(self.part, pos, ExK::Cast(w, Box::new(e)))?,
                };
            }
            Ok(e)
        };
        let mut cur: Vec<Pre> = vec![];
        let mut iter = pres.into_iter();
        while let Some(pre) = iter.next() {
            match pre {
                Pre::Cast(words, pos) if !(self.is_type)(&words) => {
                    if words.len() != 1 {
                        return perr(
                            self.part,
                            pos + 1,
                            format!("unknown type `{}`", words.join(" ")),
                        );
                    }
                    // `(x) - y`: a parenthesised name followed by a binary operator.
                    let name = Ex::new(self.part, pos + 1, ExK::Name(words[0].clone()))?;
                    toks.push(Tok::Operand(apply(std::mem::take(&mut cur), name)?));
                    match iter.next() {
                        Some(Pre::Op(UOp::Neg, p2)) => toks.push(Tok::Op(BOp::Sub, p2)),
                        Some(Pre::Op(UOp::Pos, p2)) => toks.push(Tok::Op(BOp::Add, p2)),
                        _ => {
                            return perr(
                                self.part,
                                pos + 1,
                                format!(
                                    "`{}` is not a type (expected an operator after `({})`)",
                                    words[0], words[0]
                                ),
                            )
                        }
                    }
                }
                other => cur.push(other),
            }
        }
        toks.push(Tok::Operand(apply(cur, operand)?));
        Ok(())
    }

    fn postfix(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let mut inner = p.into_inner().filter(not_punct);
        let mut e = self.primary(inner.next().expect("primary"))?;
        for suf in inner {
            let at = e.pos;
            if suf.as_rule() == Rule::member_suffix {
                let name = suf
                    .into_inner()
                    .find(|q| q.as_rule() == Rule::ident)
                    .expect("member name")
                    .as_str()
                    .to_string();
                e = Ex::new(self.part, at, ExK::Member(Box::new(e), name))?;
                continue;
            }
            let ix = self.expr(suf.into_inner().find(not_punct).expect("expr"))?;
            e = Ex::new(self.part, at, ExK::Index(Box::new(e), Box::new(ix)))?;
        }
        Ok(e)
    }

    fn primary(&self, p: Pair<'_, Rule>) -> PResult<Ex> {
        let pos = Self::pos(&p);
        let k = match p.as_rule() {
            Rule::float_lit => ExK::Float(p.as_str().to_string()),
            Rule::int_lit => ExK::Int(p.as_str().to_string()),
            Rule::bool_lit => ExK::Bool(p.as_str() == "true"),
            Rule::ident => ExK::Name(p.as_str().to_string()),
            Rule::ind_size => ExK::IndSize(
                p.into_inner()
                    .find(not_punct)
                    .expect("ind_name")
                    .as_str()
                    .to_string(),
            ),
            Rule::paren => return self.expr(p.into_inner().find(not_punct).expect("expr")),
            Rule::call => {
                let mut inner = p
                    .into_inner()
                    .filter(not_punct)
                    .filter(|q| q.as_rule() != Rule::ns_prefix);
                let name = inner.next().expect("ident").as_str().to_string();
                let args = inner.map(|a| self.expr(a)).collect::<PResult<Vec<_>>>()?;
                ExK::Call(name, args)
            }
            Rule::tmpl_call => {
                let mut inner = p.into_inner().filter(not_punct);
                let ty = inner.next().expect("tmpl_type");
                let name = Self::words_of_one(ty);
                let args = inner.map(|a| self.expr(a)).collect::<PResult<Vec<_>>>()?;
                ExK::Call(name, args)
            }
            Rule::ind_other => {
                let text: String = p.as_str().split_whitespace().collect();
                let obj = p
                    .into_inner()
                    .find(|q| q.as_rule() == Rule::ind_name)
                    .map_or("_ind", |q| q.as_str());
                return perr(self.part, pos, ind_misuse(obj, &text));
            }
            Rule::static_cast => {
                let mut inner = p.into_inner().filter(not_punct);
                let words = Self::words(inner.next().expect("type_words"));
                let e = self.expr(inner.next().expect("expr"))?;
                ExK::Cast(words, Box::new(e))
            }
            r => unreachable!("primary: {r:?}"),
        };
        Ex::new(self.part, pos, k)
    }

    /// The words of a `type_words`/`type_spec` pair; `complex<float>` (with any namespace) is
    /// one word, written `complex<float>`.
    fn words(p: Pair<'_, Rule>) -> Vec<String> {
        p.into_inner()
            .filter(not_punct)
            .map(|w| {
                if w.as_rule() == Rule::tmpl_type {
                    Self::words_of_one(w)
                } else {
                    w.as_str().to_string()
                }
            })
            .collect()
    }

    /// `complex<float>` for a `tmpl_type` pair.
    pub(crate) fn words_of_one(p: Pair<'_, Rule>) -> String {
        let inner = p
            .into_inner()
            .find(|q| q.as_rule() == Rule::type_words)
            .map(Self::words)
            .unwrap_or_default();
        format!("complex<{}>", inner.join(" "))
    }

    fn lvalue(&self, p: Pair<'_, Rule>) -> PResult<LVal> {
        let pos = Self::pos(&p);
        let mut inner = p.into_inner().filter(not_punct);
        let name = inner.next().expect("ident").as_str().to_string();
        let index = match inner.next() {
            Some(ix) => Some(self.expr(ix.into_inner().find(not_punct).expect("expr"))?),
            None => None,
        };
        Ok(LVal { pos, name, index })
    }

    fn decl_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut inner = p.into_inner().filter(not_punct);
        let ty = Self::words(inner.next().expect("type_spec"));
        let mut vars = vec![];
        for d in inner {
            let dpos = Self::pos(&d);
            let mut di = d.into_inner().filter(not_punct);
            let name = di.next().expect("ident").as_str().to_string();
            let init = match di.next() {
                Some(e) => Some(self.expr(e)?),
                None => None,
            };
            vars.push((dpos, name, init));
        }
        Ok(St::Decl { pos, ty, vars })
    }

    fn assign_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut inner = p.into_inner().filter(not_punct);
        let lv = self.lvalue(inner.next().expect("lvalue"))?;
        let op = match inner.next().expect("assign_op").as_str() {
            "=" => None,
            "+=" => Some(BOp::Add),
            "-=" => Some(BOp::Sub),
            "*=" => Some(BOp::Mul),
            "/=" => Some(BOp::Div),
            "%=" => Some(BOp::Rem),
            "&=" => Some(BOp::BitAnd),
            "|=" => Some(BOp::BitOr),
            "^=" => Some(BOp::BitXor),
            "<<=" => Some(BOp::Shl),
            ">>=" => Some(BOp::Shr),
            o => unreachable!("assign op {o}"),
        };
        let value = self.expr(inner.next().expect("expr"))?;
        Ok(St::Assign { pos, lv, op, value })
    }

    fn incdec_core(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        let mut lv = None;
        let mut inc = true;
        for q in p.into_inner().filter(not_punct) {
            match q.as_rule() {
                Rule::op_inc => inc = true,
                Rule::op_dec => inc = false,
                Rule::lvalue => lv = Some(self.lvalue(q)?),
                r => unreachable!("incdec: {r:?}"),
            }
        }
        Ok(St::IncDec {
            pos,
            lv: lv.expect("lvalue"),
            inc,
        })
    }

    /// One statement pair (any of the `stmt` alternatives, or a bare core form).
    pub fn stmt(&self, p: Pair<'_, Rule>) -> PResult<St> {
        let pos = Self::pos(&p);
        Ok(match p.as_rule() {
            Rule::block => St::Block(
                p.into_inner()
                    .filter(not_punct)
                    .map(|s| self.stmt(s))
                    .collect::<PResult<_>>()?,
            ),
            Rule::if_stmt => {
                let mut arms: Vec<(usize, Ex, St)> = vec![];
                let mut els = None;
                let mut inner = p.into_inner().filter(not_punct);
                inner.next(); // kw_if
                let c = self.expr(inner.next().expect("cond"))?;
                let t = self.stmt(inner.next().expect("then"))?;
                arms.push((pos, c, t));
                for q in inner {
                    let qpos = Self::pos(&q);
                    match q.as_rule() {
                        Rule::else_if => {
                            let mut qi = q.into_inner().filter(not_punct);
                            qi.next();
                            qi.next();
                            let c = self.expr(qi.next().expect("cond"))?;
                            let t = self.stmt(qi.next().expect("then"))?;
                            arms.push((qpos, c, t));
                        }
                        Rule::else_part => {
                            let mut qi = q.into_inner().filter(not_punct);
                            qi.next();
                            els = Some(Box::new(self.stmt(qi.next().expect("else"))?));
                        }
                        r => unreachable!("if: {r:?}"),
                    }
                }
                let mut acc = els;
                while let Some((ipos, cond, then)) = arms.pop() {
                    acc = Some(Box::new(St::If {
                        pos: ipos,
                        cond,
                        then: Box::new(then),
                        els: acc,
                    }));
                }
                *acc.expect("if")
            }
            Rule::for_stmt => {
                let mut inner = p.into_inner().filter(not_punct);
                inner.next(); // kw_for
                let init = inner.next().expect("init").into_inner().find(not_punct);
                let init = match init {
                    Some(q) if q.as_rule() == Rule::decl_core => Some(Box::new(self.decl_core(q)?)),
                    Some(q) => Some(Box::new(self.assign_core(q)?)),
                    None => None,
                };
                let cond = match inner.next().expect("cond").into_inner().find(not_punct) {
                    Some(q) => Some(self.expr(q)?),
                    None => None,
                };
                let step = match inner.next().expect("step").into_inner().find(not_punct) {
                    Some(q) if q.as_rule() == Rule::incdec_core => {
                        Some(Box::new(self.incdec_core(q)?))
                    }
                    Some(q) => Some(Box::new(self.assign_core(q)?)),
                    None => None,
                };
                let body = Box::new(self.stmt(inner.next().expect("body"))?);
                St::For {
                    pos,
                    init,
                    cond,
                    step,
                    body,
                }
            }
            Rule::return_stmt => {
                let mut inner = p.into_inner().filter(not_punct);
                inner.next();
                let value = match inner.next() {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                St::Return { pos, value }
            }
            Rule::empty_stmt => St::Empty,
            Rule::decl_stmt => self.decl_core(p.into_inner().find(not_punct).expect("decl"))?,
            Rule::incdec_stmt => {
                self.incdec_core(p.into_inner().find(not_punct).expect("incdec"))?
            }
            Rule::assign_stmt => {
                self.assign_core(p.into_inner().find(not_punct).expect("assign"))?
            }
            Rule::expr_stmt => St::Expr(self.expr(p.into_inner().find(not_punct).expect("expr"))?),
            Rule::decl_core => self.decl_core(p)?,
            Rule::assign_core => self.assign_core(p)?,
            Rule::incdec_core => self.incdec_core(p)?,
            Rule::expr => St::Expr(self.expr(p)?),
            r => unreachable!("stmt: {r:?}"),
        })
    }

    /// Statements of an `operation` or `post_stmts` top rule.
    pub fn stmts(&self, top: Pair<'_, Rule>) -> PResult<Vec<St>> {
        top.into_inner()
            .filter(not_punct)
            .filter(|p| p.as_rule() != Rule::EOI)
            .map(|p| self.stmt(p))
            .collect()
    }

    /// Function definitions of a `preamble`.
    pub fn funcs(&self, top: Pair<'_, Rule>) -> PResult<Vec<Func>> {
        let mut out = vec![];
        for f in top
            .into_inner()
            .filter(not_punct)
            .filter(|p| p.as_rule() == Rule::func_def)
        {
            let pos = Self::pos(&f);
            let mut inner = f.into_inner().filter(not_punct);
            let ret_pair = inner.next().expect("type_spec");
            let ret_pos = Self::pos(&ret_pair);
            let ret = Self::words(ret_pair);
            let name_pair = inner.next().expect("ident");
            let name = name_pair.as_str().to_string();
            let mut params = vec![];
            let mut body = vec![];
            for q in inner {
                match q.as_rule() {
                    Rule::fparam => {
                        let ppos = Self::pos(&q);
                        let mut qi = q.into_inner().filter(not_punct);
                        let ty = Self::words(qi.next().expect("type"));
                        let n = qi.next().expect("name").as_str().to_string();
                        params.push((ty, n, ppos));
                    }
                    Rule::block => {
                        body = q
                            .into_inner()
                            .filter(not_punct)
                            .map(|s| self.stmt(s))
                            .collect::<PResult<_>>()?;
                    }
                    r => unreachable!("func: {r:?}"),
                }
            }
            out.push(Func {
                pos,
                name,
                ret,
                ret_pos,
                params,
                body,
            });
        }
        Ok(out)
    }
}
