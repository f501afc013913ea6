//! Lowering a whole user kernel: an `ElementwiseKernel`'s or a `ReductionKernel`'s strings to
//! the IR [`Kernel`] or [`ReduceKernel`] (parameters, preamble, body, outputs).

use super::*;

/// Parses, type-checks and lowers an elementwise operation to one IR [`Kernel`].
///
/// # Errors
/// [`crate::Error::Parse`] with the position of the first problem.
pub fn lower_elementwise(src: &ElementwiseSource<'_>) -> Result<LoweredElementwise> {
    run_big_stack(|| lower_elementwise_inner(src))
}

pub(super) fn lower_elementwise_inner(src: &ElementwiseSource<'_>) -> Result<LoweredElementwise> {
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
    let (funcs, structs) = parse_preamble(src.preamble, src.types, &mut macros).map_err(err)?;
    let op_text = directives("operation", src.operation, src.types, &mut macros).map_err(err)?;
    let is_type = is_type_fn(src.types);
    let b = Builder {
        part: "operation",
        is_type: &is_type,
    };
    let body_ast = parse("operation", Rule::operation, &op_text)
        .and_then(|mut p| b.stmts(p.next().expect("operation")))
        .map_err(err)?;

    let mut cx = new_cx("operation", src.types, (&funcs, &structs), &macros, true);
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
    let raw_lens: Vec<(usize, RawMeta)> = cx.raw_lens.iter().map(|&(r, w, _)| (r, w)).collect();
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

pub(super) fn lower_reduction_inner(src: &ReductionSource<'_>) -> Result<ReduceKernel> {
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
    // CuPy's `typedef reduce_type _type_reduce;`: the accumulator type by name.
    let types_ext: Vec<(String, DType)> = src
        .types
        .iter()
        .cloned()
        .chain([("_type_reduce".to_string(), acc)])
        .collect();
    let src = &ReductionSource {
        types: &types_ext,
        ..src.clone()
    };
    let mut macros = Macros::new();
    let (funcs, structs) = parse_preamble(src.preamble, src.types, &mut macros).map_err(err)?;
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
    let mut cx = new_cx("map_expr", src.types, (&funcs, &structs), &macros, false);
    set_sizes(&mut cx);
    add_names(&mut cx);
    let v = cx.expr(&map_ast).map_err(err)?;
    let map = conv_to(&cx, &v, acc, "map_expr", map_ast.pos).map_err(err)?;

    // combine
    let red_ast = one_expr("reduce_expr", src.reduce_expr).map_err(err)?;
    let mut cx = new_cx("reduce_expr", src.types, (&funcs, &structs), &macros, false);
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
            let mut cx = new_cx("identity", src.types, (&funcs, &structs), &macros, false);
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
            let mut cx = new_cx(
                "post_map_expr",
                src.types,
                (&funcs, &structs),
                &macros,
                false,
            );
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
        fold: vec![],
        identity: vec![identity],
        post,
        output: out_ty,
        extra_posts: vec![],
    })
}

pub(super) fn conv_to(
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
