//! Unit tests of the kernel language: lowering of each construct, and errors with positions.

use super::*;
use crate::kernel::ir::{BinaryOp as B, ExprKind, UnaryOp as U};
use DType::*;

mod constructs;
mod edges;
mod fuzz;
mod preamble;
mod templates;

fn n(name: &str, dtype: DType, binding: Binding) -> Name {
    Name {
        name: name.into(),
        dtype,
        binding,
    }
}

fn ew_full(
    op: &str,
    pre: &str,
    names: &[Name],
    types: &[(String, DType)],
    size: Option<usize>,
) -> Result<LoweredElementwise> {
    lower_elementwise(&ElementwiseSource {
        name: "k",
        operation: op,
        preamble: pre,
        names,
        types,
        size_param: size,
    })
}

fn ew(op: &str, names: &[Name]) -> Result<LoweredElementwise> {
    ew_full(op, "", names, &[], None)
}

/// x: f32 input 0, y: f32 input 1, z: f32 output 0.
fn xyz() -> Vec<Name> {
    vec![
        n("x", Float32, Binding::Input(0)),
        n("y", Float32, Binding::Input(1)),
        n("z", Float32, Binding::Output(0)),
    ]
}

/// The value stored to output 0, when the body is `Let out; Assign out = v; Store`.
fn stored(l: &LoweredElementwise) -> Expr {
    let mut v = None;
    for s in &l.kernel.body {
        if let Stmt::Assign { var: 0, value } = s {
            v = Some(value.clone());
        }
    }
    v.expect("assignment to the output")
}

fn parse_err(r: Result<impl std::fmt::Debug>) -> (String, usize, usize, String, String) {
    match r {
        Err(Error::Parse {
            part,
            line,
            column,
            msg,
            snippet,
            ..
        }) => (part, line, column, msg, snippet),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

fn red(
    map: &str,
    reduce: &str,
    post: &str,
    identity: &str,
    acc: DType,
    out: DType,
) -> Result<ReduceKernel> {
    let names = vec![n("x", Float32, Binding::Input(0))];
    lower_reduction(&ReductionSource {
        name: "r",
        map_expr: map,
        reduce_expr: reduce,
        post_map_expr: post,
        identity: Some(identity),
        preamble: "",
        names: &names,
        output: ("y", out),
        acc,
        types: &[],
        size_params: Some((0, 1)),
    })
}
