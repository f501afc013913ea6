//! The abstract syntax tree of the kernel language: operators, expressions, statements,
//! functions and macros, as the parser builds them and the lowering reads them.

use super::*;

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
    pub(crate) fn prec(self) -> u8 {
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
    pub(crate) fn from_rule(r: Rule) -> Option<BOp> {
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
    /// `_ind.get()` (`_in_ind.get()`, `_out_ind.get()`): the object's name.
    IndGet(String),
    /// `name[index]`.
    Index(Box<Ex>, Box<Ex>),
    /// `value.member(args)` (`z.real()`, `z.imag()`, a struct's member function).
    Member(Box<Ex>, String, Vec<Ex>),
    Call(String, Vec<Ex>),
    /// `f<targs>(args)`: a call with explicit template arguments.
    TCall(String, Vec<TArg>, Vec<Ex>),
    /// `value.field` of a struct value that is not a name (`make(x).a`); fields of named
    /// structs are names (`p.x` is the name `p.x`).
    Field(Box<Ex>, String),
    /// A cast to the type written with these words.
    Cast(Vec<String>, Box<Ex>),
    Unary(UOp, Box<Ex>),
    Binary(BOp, Box<Ex>, Box<Ex>),
    Cond(Box<Ex>, Box<Ex>, Box<Ex>),
}

impl Ex {
    pub(crate) fn new(part: &'static str, pos: usize, k: ExK) -> PResult<Ex> {
        let d = match &k {
            ExK::Index(a, b) | ExK::Binary(_, a, b) => a.depth.max(b.depth),
            ExK::Cast(_, a) | ExK::Unary(_, a) | ExK::Field(a, _) => a.depth,
            ExK::Member(a, _, args) => args.iter().map(|x| x.depth).max().unwrap_or(0).max(a.depth),
            ExK::Cond(a, b, c) => a.depth.max(b.depth).max(c.depth),
            ExK::Call(_, args) | ExK::TCall(_, _, args) => {
                args.iter().map(|a| a.depth).max().unwrap_or(0)
            }
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

/// An assignable place: a name (`x`, a struct field `p.a.x`), `name[index]` (a raw or local
/// array's element), and past the first index of a path through arrays of structs its other
/// steps (`ps[j].v[k]`: name `ps`, tail `[j]`, `.v`, `[k]`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LVal {
    pub pos: usize,
    pub name: String,
    pub index: Option<Ex>,
    pub tail: Vec<Seg>,
}

/// A step of a path to a place: a field or an index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seg {
    Field(String),
    Index(Ex),
}

/// One declared variable: position, name, initialiser, and for a local array `T a[n] = {..}`
/// its length (a constant expression) and initialiser list; a `{...}` list of a struct has no
/// length.
pub(crate) type Declarator = (usize, String, Option<Ex>, Option<(Option<Ex>, Vec<Ex>)>);

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

/// An explicit template argument: a type's words, or a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TArg {
    Type(Vec<String>),
    Expr(Ex),
}

/// A template parameter: `typename T` (`kind: None`) or a non-type `int N` (its type's words).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TParam {
    pub pos: usize,
    pub name: String,
    pub kind: Option<Vec<String>>,
}

/// A preamble `struct` (a template when `tparams` is not empty): its fields in order (type
/// words, name, array length, position) and its member functions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StructDef {
    pub pos: usize,
    pub name: String,
    pub tparams: Vec<TParam>,
    pub fields: Vec<(Vec<String>, String, Option<Ex>, usize)>,
    pub methods: Vec<Func>,
}

/// A preamble function.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Func {
    pub pos: usize,
    pub name: String,
    /// Template parameters (empty: not a template).
    pub tparams: Vec<TParam>,
    pub ret: Vec<String>,
    pub ret_pos: usize,
    pub params: Vec<(Vec<String>, String, usize)>,
    pub body: Vec<St>,
    /// A `const` member function (it cannot write the object's fields).
    pub is_const: bool,
}

/// A forward declaration of a preamble function or struct: position, name, and for a function
/// its number of parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decl {
    pub pos: usize,
    pub name: String,
    pub params: Option<usize>,
}

/// An object-like macro: `#define NAME body`; `body` is the source with everything before the
/// body blanked, so positions in it are positions in the original string.
pub(crate) type Macro = (String, usize, String);
