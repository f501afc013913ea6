//! Statements: kernel bodies (stores, locals, loops, ifs, raw stores and atomics), windowed
//! bodies and their scratch save/restore, the final assembly of a shader.

use super::emitter::{word, Ctx, WgslEmitter};
use super::packed_bits;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::ir::Stmt;
use std::fmt::Write;

impl WgslEmitter {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stmts(
        &mut self,
        body: &[Stmt],
        c: &Ctx,
        store: &dyn Fn(&mut WgslEmitter, usize, DType, String) -> String,
        outputs: &[DType],
        ind: usize,
        out: &mut String,
    ) -> Result<()> {
        let pad = "  ".repeat(ind);
        for s in body {
            match s {
                Stmt::Let { var, value } | Stmt::Assign { var, value } => {
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let _ = writeln!(out, "{pad}{} = {v};", c.vars[*var]);
                }
                Stmt::StoreRaw { raw, index, value } => {
                    let ix = super::expr::raw_index_text(index, self.expr(index, c)?);
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let r = &c.raws[*raw];
                    let slot = format!("b{}[{} + u32({ix})]", r.binding, r.off);
                    if r.atomic && self.pair_atomic(value.ty) {
                        let h = self.pair_helpers(r.binding);
                        let _ = writeln!(
                            out,
                            "{pad}{h}_st({} + u32({ix}), bitcast<u64>({v}));",
                            r.off
                        );
                    } else if packed_bits(value.ty).is_some() {
                        // Written packed raws are always atomic bindings (see elementwise.rs).
                        let addr = format!("{} + u32({ix})", r.off);
                        let st = self.store_packed_atomic(r.binding, value.ty, &addr, v);
                        let _ = writeln!(out, "{pad}{st}");
                    } else if r.atomic {
                        let w = self.value_word(value.ty, v);
                        let _ = writeln!(out, "{pad}atomicStore(&{slot}, {w});");
                    } else {
                        let sv = self.store_conv(value.ty, v);
                        let _ = writeln!(out, "{pad}{slot} = {sv};");
                    }
                }
                Stmt::AtomicRaw {
                    raw,
                    op,
                    index,
                    value,
                    old,
                } => {
                    let ix = super::expr::raw_index_text(index, self.expr(index, c)?);
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let r = &c.raws[*raw];
                    if let Some(var) = old {
                        // Fetch-and-add of an i32/u32 word (validated): WGSL's atomicAdd.
                        let _ = writeln!(
                            out,
                            "{pad}{} = atomicAdd(&b{}[{} + u32({ix})], {v});",
                            c.vars[*var], r.binding, r.off
                        );
                    } else {
                        let h = self.atomic_helper(r.binding, value.ty, *op)?;
                        let _ = writeln!(out, "{pad}{h}({} + u32({ix}), {v});", r.off);
                    }
                }
                Stmt::Store { output, value } => {
                    let v = self.expr(value, c)?;
                    self.flush_pre(&pad, out);
                    let line = store(self, *output, outputs[*output], v);
                    let _ = writeln!(out, "{pad}{line}");
                }
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let cs = self.expr(cond, c)?;
                    self.flush_pre(&pad, out);
                    let _ = writeln!(out, "{pad}if ({cs}) {{");
                    self.stmts(then_body, c, store, outputs, ind + 1, out)?;
                    if else_body.is_empty() {
                        let _ = writeln!(out, "{pad}}}");
                    } else {
                        let _ = writeln!(out, "{pad}}} else {{");
                        self.stmts(else_body, c, store, outputs, ind + 1, out)?;
                        let _ = writeln!(out, "{pad}}}");
                    }
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let st = self.expr(start, c)?;
                    let en = self.expr(end, c)?;
                    self.flush_pre(&pad, out);
                    let v = &c.vars[*var];
                    let one = self.ilit(DType::Int64, 1);
                    let _ = writeln!(
                        out,
                        "{pad}for ({v} = {st}; {v} < {en}; {v} = {v} + {one}) {{"
                    );
                    self.stmts(body, c, store, outputs, ind + 1, out)?;
                    let _ = writeln!(out, "{pad}}}");
                    self.guard_after(&format!("{v} < {en}"), &pad, out);
                }
            }
        }
        Ok(())
    }

    /// The statements restoring (from `sc`) and saving (to `sc`) the locals of a windowed
    /// launch; see [`LoopMode`](super::LoopMode).
    pub(super) fn scratch_io(&self, locals: &[DType]) -> Result<(String, String)> {
        let (mut rs, mut sv) = (String::new(), String::new());
        let mut w = 0usize;
        for (j, &d) in locals.iter().enumerate() {
            let at = |w: usize| format!("sc[{w}u * total + gid]");
            let l = format!("l{j}");
            let t = self.vty(d);
            match t {
                "bool" => {
                    let _ = writeln!(rs, "      {l} = {} != 0u;", at(w));
                    let _ = writeln!(sv, "      {} = select(0u, 1u, {l});", at(w));
                }
                "u32" => {
                    let _ = writeln!(rs, "      {l} = {};", at(w));
                    let _ = writeln!(sv, "      {} = {l};", at(w));
                }
                "i32" | "f32" => {
                    let _ = writeln!(rs, "      {l} = bitcast<{t}>({});", at(w));
                    let _ = writeln!(sv, "      {} = bitcast<u32>({l});", at(w));
                }
                "i64" | "u64" | "f64" => {
                    if !self.opts.shader_int64 {
                        return Err(self.unsupported(
                            &self.kname,
                            d,
                            "a kernel split across dispatches (a loop past the driver's loop \
                             limit) with a 64-bit local needs SHADER_INT64",
                        ));
                    }
                    let q = if t == "u64" {
                        l.clone()
                    } else {
                        format!("bitcast<u64>({l})")
                    };
                    let r = format!("(u64({}) | (u64({}) << 32u))", at(w), at(w + 1));
                    let r = if t == "u64" {
                        r
                    } else {
                        format!("bitcast<{t}>({r})")
                    };
                    let _ = writeln!(rs, "      {l} = {r};");
                    let _ = writeln!(
                        sv,
                        "      {} = u32({q} & 0xfffffffflu);\n      {} = u32({q} >> 32u);",
                        at(w),
                        at(w + 1)
                    );
                    w += 1;
                }
                "vec2<f32>" => {
                    let _ = writeln!(
                        rs,
                        "      {l} = bitcast<vec2<f32>>(vec2<u32>({}, {}));",
                        at(w),
                        at(w + 1)
                    );
                    let _ = writeln!(
                        sv,
                        "      {{ let q = bitcast<vec2<u32>>({l}); {} = q.x; {} = q.y; }}",
                        at(w),
                        at(w + 1)
                    );
                    w += 1;
                }
                "vec2<f64>" => {
                    if !self.opts.shader_int64 {
                        return Err(self.unsupported(
                            &self.kname,
                            d,
                            "a kernel split across dispatches (a loop past the driver's loop \
                             limit) with a complex128 local needs SHADER_INT64",
                        ));
                    }
                    let part = |k: usize| {
                        format!(
                            "bitcast<f64>(u64({}) | (u64({}) << 32u))",
                            at(w + 2 * k),
                            at(w + 2 * k + 1)
                        )
                    };
                    let _ = writeln!(rs, "      {l} = vec2<f64>({}, {});", part(0), part(1));
                    for (k, c) in ["x", "y"].iter().enumerate() {
                        let _ = writeln!(
                            sv,
                            "      {{ let q = bitcast<u64>({l}.{c}); {} = u32(q & 0xfffffffflu); {} = u32(q >> 32u); }}",
                            at(w + 2 * k),
                            at(w + 2 * k + 1)
                        );
                    }
                    w += 3;
                }
                _ => return Err(self.unsupported(&self.kname, d, "not storable in a window")),
            }
            w += 1;
        }
        Ok((rs, sv))
    }

    /// The top-level statements of a windowed launch (see [`LoopMode`](super::LoopMode)); window words from
    /// meta word `wb`.
    pub(super) fn stmts_windowed(
        &mut self,
        body: &[Stmt],
        c: &Ctx,
        store: &dyn Fn(&mut WgslEmitter, usize, DType, String) -> String,
        outputs: &[DType],
        wb: usize,
        out: &mut String,
    ) -> Result<()> {
        let (lo, hi, itlo, ithi) = (word(wb), word(wb + 1), word(wb + 2), word(wb + 3));
        let pad = "      ";
        for (idx, s) in body.iter().enumerate() {
            let _ = writeln!(out, "    if ({idx}u >= {lo} && {idx}u <= {hi}) {{");
            match s {
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let st = self.expr(start, c)?;
                    let en = self.expr(end, c)?;
                    self.flush_pre(pad, out);
                    let v = &c.vars[*var];
                    let one = self.ilit(DType::Int64, 1);
                    let t = self.vty(DType::Int64);
                    let cond = format!(
                        "{v} < {en} && ({idx}u != {hi} || {ithi} == 0xffffffffu || {v} < {st} + {t}({ithi}))"
                    );
                    let _ = writeln!(
                        out,
                        "{pad}{v} = {st};\n{pad}if ({idx}u == {lo}) {{ {v} = {st} + {t}({itlo}); }}\n{pad}for (; {cond}; {v} = {v} + {one}) {{"
                    );
                    self.stmts(body, c, store, outputs, 4, out)?;
                    let _ = writeln!(out, "{pad}}}");
                    self.guard_after(&cond, pad, out);
                }
                _ => self.stmts(std::slice::from_ref(s), c, store, outputs, 3, out)?,
            }
            out.push_str("    }\n");
        }
        Ok(())
    }

    pub(super) fn finish(&self, decls: &str, main: &str) -> String {
        let mut src = String::new();
        src.push_str(decls);
        for (_, h) in &self.helpers {
            src.push_str(h);
        }
        src.push_str(main);
        src
    }
}
