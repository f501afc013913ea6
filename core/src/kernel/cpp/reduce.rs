//! Reduction modules: the inner, outer, finish and inner-vector entries.
//!
//! A tuple of accumulators is one C++ value, `struct <entry>_acc { T0 v0; T1 v1; .. }` (a plain
//! aggregate, so it lives in registers, `__shared__` arrays and warp shuffles member by
//! member); one accumulator is its plain compute type, as before. The partial buffer of a
//! split tuple reduction holds one segment per accumulator (structure of arrays, each segment
//! 16-byte aligned; [`partial_bytes`] sizes it).

use super::args::{param_fields, param_loads, OperandRef, Slot, StructBuilder};
use super::dialect::{prelude, Flavor};
use super::expr::{expr, Names};
use super::types::{compute_type, literal, load_conv, storage_type, store_conv};
use super::{entry_name, Emitted, ReduceSpec, BLOCK, OUTER_BLOCK};
use crate::error::Result;
use crate::kernel::ir::ReduceKernel;
use std::fmt::Write as _;

/// Vector loads in flight per thread in the `inner_vec` reduction.
const RED_UNROLL: usize = 4;

/// Elements per vector load of the `<name>_inner_vec` reduction entry: 16 bytes of the widest
/// input (at least 1). The launcher may use that entry only when every input's reduced axis is
/// one merged axis of stride 1 and every row start is aligned to this many elements.
pub fn reduce_vector_width(k: &ReduceKernel) -> usize {
    let widest = k.inputs.iter().map(|d| d.itemsize()).max().unwrap_or(1);
    (16 / widest).max(1)
}

/// Bytes of the partial buffer of `k` for `n` partial accumulators (`out_size * splits`): one
/// segment of `n` elements per accumulator, each starting on a 16-byte boundary.
pub fn partial_bytes(k: &ReduceKernel, n: usize) -> usize {
    k.acc
        .iter()
        .map(|d| (n * d.itemsize()).div_ceil(16) * 16)
        .sum()
}

/// The accumulator type's declarations for a tuple (the struct, its warp shuffle, its identity
/// and the partial-buffer accessors); empty for one accumulator.
fn tuple_decls(k: &ReduceKernel, entry: &str, sname: &str) -> String {
    let mut s = String::new();
    if k.acc.len() == 1 {
        return s;
    }
    let t = format!("{entry}_acc");
    let _ = write!(s, "struct {t} {{");
    for (j, d) in k.acc.iter().enumerate() {
        let _ = write!(s, " {} v{j};", compute_type(*d));
    }
    s.push_str(" };\n");
    let _ = writeln!(s, "CP_DEV {t} cp_shfl_down({t} v, int off) {{");
    for j in 0..k.acc.len() {
        let _ = writeln!(s, "  v.v{j} = cp_shfl_down(v.v{j}, off);");
    }
    s.push_str("  return v;\n}\n");
    let _ = writeln!(s, "CP_DEV {t} {entry}_ident() {{\n  {t} r;");
    for (j, v) in k.identity.iter().enumerate() {
        let _ = writeln!(s, "  r.v{j} = {};", literal(*v));
    }
    s.push_str("  return r;\n}\n");
    // Segment j of the partial buffer starts after the (16-byte rounded) segments before it.
    let _ = writeln!(
        s,
        "CP_DEV unsigned char* {entry}_seg(const {sname}& a, int j) {{
  const unsigned long long n = (unsigned long long)a.out_size * (unsigned long long)a.splits;
  unsigned char* p = a.partial;"
    );
    for (j, d) in k.acc.iter().enumerate().take(k.acc.len() - 1) {
        let _ = writeln!(
            s,
            "  if (j > {j}) p += (n * {}ull + 15ull) / 16ull * 16ull;",
            d.itemsize()
        );
    }
    s.push_str("  return p;\n}\n");
    let _ = writeln!(
        s,
        "CP_DEV void {entry}_pw(const {sname}& a, unsigned long long i, {t} v) {{"
    );
    for (j, d) in k.acc.iter().enumerate() {
        let st = storage_type(*d);
        let _ = writeln!(
            s,
            "  (({st}*){entry}_seg(a, {j}))[i] = {};",
            store_conv(*d, &format!("v.v{j}"))
        );
    }
    s.push_str("}\n");
    let _ = writeln!(
        s,
        "CP_DEV {t} {entry}_pr(const {sname}& a, unsigned long long i) {{\n  {t} r;"
    );
    for (j, d) in k.acc.iter().enumerate() {
        let st = storage_type(*d);
        let _ = writeln!(
            s,
            "  r.v{j} = {};",
            load_conv(*d, &format!("(({st}*){entry}_seg(a, {j}))[i]"))
        );
    }
    s.push_str("  return r;\n}\n");
    s
}

/// Emits a reduction module with three entries sharing one argument struct:
/// - `<name>_inner`: one block per output (grid-stride), `gridDim.y` splits of the reduced
///   range; threads stride over the reduced index, then a warp-shuffle + shared-memory block
///   reduction. With `Splits == 1` it writes `post(acc)` to the output, else `acc` to the partial
///   buffer at `o * splits + blockIdx.y`.
/// - `<name>_outer`: blocks of [`OUTER_BLOCK`] threads, x across consecutive outputs (coalesced
///   when outputs are contiguous in the input), y along the reduced index; same split scheme.
/// - `<name>_finish`: one block per output folds the partials and writes `post(acc)`.
///
/// `map` may read `Index` as the flat reduced index.
///
/// # Errors
/// As [`emit_elementwise`](super::emit_elementwise).
pub fn emit_reduce(k: &ReduceKernel, spec: &ReduceSpec, flavor: Flavor) -> Result<Emitted> {
    k.validate()?;
    let n_acc = k.acc.len();
    let tuple = n_acc > 1;
    let ond = spec.out_ndim.max(1);
    let rnd = spec.red_ndim.max(1);
    let entry = entry_name(&k.name);
    let (it, ut, isz) = if spec.index64 {
        ("cp_i64", "cp_u64", 8)
    } else {
        ("cp_i32", "cp_u32", 4)
    };
    let mut sb = StructBuilder::new();
    sb.add(Slot::OutSize, &format!("{it} out_size"), isz);
    sb.add(Slot::RedSize, &format!("{it} red_size"), isz);
    sb.add(Slot::Splits, &format!("{it} splits"), isz);
    for d in 0..ond {
        sb.add(Slot::Shape(d), &format!("{it} shape{d}"), isz);
    }
    for d in 0..rnd {
        sb.add(Slot::RedShape(d), &format!("{it} rshape{d}"), isz);
    }
    for (i, d) in k.inputs.iter().enumerate() {
        let r = OperandRef::Input(i);
        sb.add(
            Slot::Ptr(r),
            &format!("const {}* in{i}", storage_type(*d)),
            8,
        );
        for ax in 0..ond {
            sb.add(Slot::Stride(r, ax), &format!("{it} st_in{i}_{ax}"), isz);
        }
        for ax in 0..rnd {
            sb.add(Slot::RedStride(r, ax), &format!("{it} rst_in{i}_{ax}"), isz);
        }
    }
    let outs = k.outputs();
    for (m, d) in outs.iter().enumerate() {
        let o = OperandRef::Output(m);
        sb.add(Slot::Ptr(o), &format!("{}* out{m}", storage_type(*d)), 8);
        for ax in 0..ond {
            sb.add(Slot::Stride(o, ax), &format!("{it} st_out{m}_{ax}"), isz);
        }
    }
    let partial_t = if tuple {
        "unsigned char"
    } else {
        storage_type(k.acc[0])
    };
    sb.add(
        Slot::Ptr(OperandRef::Partial),
        &format!("{partial_t}* partial"),
        8,
    );
    param_fields(&mut sb, &k.params);
    let sname = format!("{entry}_args");
    let (sdecl, args) = sb.finish(&sname, k.params.clone());

    let acc = if tuple {
        format!("{entry}_acc")
    } else {
        compute_type(k.acc[0]).to_string()
    };
    let mut src = prelude(flavor);
    let _ = writeln!(
        src,
        "// reduction {} | out ndim {ond} | reduced ndim {rnd} | {}-bit index",
        k.name,
        isz * 8
    );
    src.push_str(&sdecl);
    src.push_str(&tuple_decls(k, &entry, &sname));
    let ident = if tuple {
        format!("{entry}_ident()")
    } else {
        literal(k.identity[0])
    };
    let _ = writeln!(src, "#define {entry}_IDENT ({ident})");

    // map(a, ridx, inputs...)
    let mut sig = vec![format!("const {sname}& a"), "cp_i64 ridx".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        sig.push(format!("const {} x{i}", compute_type(*d)));
    }
    let inputs = |i: usize| format!("x{i}");
    let names = Names {
        inputs: &inputs,
        index: "ridx".into(),
        entry: entry.clone(),
    };
    let _ = writeln!(src, "CP_DEV {acc} {entry}_map({}) {{", sig.join(", "));
    src.push_str(&param_loads(&k.params));
    if tuple {
        let _ = writeln!(src, "  {acc} r;");
        for (j, m) in k.map.iter().enumerate() {
            let _ = writeln!(src, "  r.v{j} = {};", expr(m, &names)?);
        }
        src.push_str("  return r;\n}\n");
    } else {
        let _ = writeln!(src, "  return {};\n}}", expr(&k.map[0], &names)?);
    }
    // combine and fold: functions of two tuples, the IR's Var(0..n) a's members, Var(n..2n)
    // b's. The fold folds one mapped element (b) into a thread's running tuple (a); without
    // its own expressions it is the combine.
    let mut pair_fn = |fname: &str, exprs: &[crate::kernel::ir::Expr]| -> Result<()> {
        if tuple {
            let _ = writeln!(src, "CP_DEV {acc} {entry}_{fname}({acc} a_, {acc} b_) {{");
            for (j, d) in k.acc.iter().enumerate() {
                let t = compute_type(*d);
                let _ = writeln!(src, "  const {t} v{j} = a_.v{j};");
                let _ = writeln!(src, "  const {t} v{} = b_.v{j};", n_acc + j);
            }
            let _ = writeln!(src, "  {acc} r;");
            for (j, c) in exprs.iter().enumerate() {
                let _ = writeln!(src, "  r.v{j} = {};", expr(c, &names)?);
            }
            src.push_str("  return r;\n}\n");
        } else {
            let _ = writeln!(src, "CP_DEV {acc} {entry}_{fname}({acc} v0, {acc} v1) {{");
            let _ = writeln!(src, "  return {};\n}}", expr(&exprs[0], &names)?);
        }
        Ok(())
    };
    pair_fn("combine", &k.combine)?;
    if k.fold.is_empty() {
        let _ = writeln!(
            src,
            "CP_DEV {acc} {entry}_fold({acc} a_, {acc} b_) {{ return {entry}_combine(a_, b_); }}"
        );
    } else {
        pair_fn("fold", &k.fold)?;
    }
    // post{m}: output m from the folded tuple.
    let post_arg = if tuple { "acc_" } else { "v0" };
    for (m, d) in outs.iter().enumerate() {
        let _ = writeln!(
            src,
            "CP_DEV {} {entry}_post{m}(const {sname}& a, {acc} {post_arg}) {{",
            compute_type(*d)
        );
        src.push_str(&param_loads(&k.params));
        if tuple {
            for (j, d) in k.acc.iter().enumerate() {
                let _ = writeln!(src, "  const {} v{j} = acc_.v{j};", compute_type(*d));
            }
        }
        let _ = writeln!(src, "  return {};\n}}", expr(k.post_of(m), &names)?);
    }
    // Every output of the tuple `acc` at output offsets oo0, oo1, ...
    let store_all = |pad: &str| -> String {
        outs.iter()
            .enumerate()
            .map(|(m, d)| {
                format!(
                    "{pad}a.out{m}[oo{m}] = {};\n",
                    store_conv(*d, &format!("{entry}_post{m}(a, acc)"))
                )
            })
            .collect()
    };

    // Block reduction: result in thread 0 (blockDim.x a multiple of the warp size, <= BLOCK).
    let _ = writeln!(
        src,
        "CP_DEV {acc} {entry}_block({acc} v, {acc}* sm) {{
  for (int off = CP_WARP / 2; off > 0; off >>= 1) v = {entry}_combine(v, cp_shfl_down(v, off));
  const int lane = threadIdx.x % CP_WARP, wid = threadIdx.x / CP_WARP, nw = blockDim.x / CP_WARP;
  __syncthreads();
  if (lane == 0) sm[wid] = v;
  __syncthreads();
  if (wid == 0) {{
    v = lane < nw ? sm[lane] : {entry}_IDENT;
    for (int off = CP_WARP / 2; off > 0; off >>= 1) v = {entry}_combine(v, cp_shfl_down(v, off));
  }}
  return v;
}}"
    );
    // Offsets of output index o (per input and the output), and of reduced index r.
    let mut out_off = String::new();
    let _ = writeln!(out_off, "    {ut} orem = o;");
    for i in 0..k.inputs.len() {
        let _ = writeln!(out_off, "    {it} oi{i} = 0;");
    }
    for m in 0..outs.len() {
        let _ = writeln!(out_off, "    {it} oo{m} = 0;");
    }
    for d in (0..ond).rev() {
        if d > 0 {
            let _ = writeln!(
                out_off,
                "    {{ const {ut} c = orem % ({ut})a.shape{d}; orem /= ({ut})a.shape{d};"
            );
        } else {
            let _ = writeln!(out_off, "    {{ const {ut} c = orem;");
        }
        for i in 0..k.inputs.len() {
            let _ = writeln!(out_off, "      oi{i} += ({it})c * a.st_in{i}_{d};");
        }
        for m in 0..outs.len() {
            let _ = writeln!(out_off, "      oo{m} += ({it})c * a.st_out{m}_{d};");
        }
        let _ = writeln!(out_off, "      }}");
    }
    let mut red_val = String::new();
    let _ = writeln!(red_val, "      {ut} rrem = r;");
    for i in 0..k.inputs.len() {
        let _ = writeln!(red_val, "      {it} ri{i} = oi{i};");
    }
    for d in (0..rnd).rev() {
        if d > 0 {
            let _ = writeln!(
                red_val,
                "      {{ const {ut} c = rrem % ({ut})a.rshape{d}; rrem /= ({ut})a.rshape{d};"
            );
        } else {
            let _ = writeln!(red_val, "      {{ const {ut} c = rrem;");
        }
        for i in 0..k.inputs.len() {
            let _ = writeln!(red_val, "        ri{i} += ({it})c * a.rst_in{i}_{d};");
        }
        let _ = writeln!(red_val, "      }}");
    }
    let mut margs = vec!["a".to_string(), "(cp_i64)r".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        margs.push(load_conv(*d, &format!("a.in{i}[ri{i}]")));
    }
    let _ = writeln!(
        red_val,
        "      acc = {entry}_fold(acc, {entry}_map({}));",
        margs.join(", ")
    );
    let write = |pad: &str, split: &str| {
        let part = if tuple {
            format!("{entry}_pw(a, ({ut})o * ({ut})a.splits + {split}, acc);")
        } else {
            format!(
                "a.partial[({ut})o * ({ut})a.splits + {split}] = {};",
                store_conv(k.acc[0], "acc")
            )
        };
        format!(
            "{pad}if (a.splits == 1) {{\n{}{pad}}} else {part}\n",
            store_all(&format!("{pad}  ")),
        )
    };
    let range = format!(
        "  const {ut} nred = ({ut})a.red_size, ns = ({ut})a.splits;
  const {ut} chunk = (nred + ns - 1) / ns;
  const {ut} r0 = ({ut})blockIdx.y * chunk;
  const {ut} r1 = r0 >= nred ? r0 : ((nred - r0 < chunk) ? nred : r0 + chunk);
"
    );
    // inner
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_inner(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    src.push_str(&range);
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(
        src,
        "    for ({ut} r = r0 + threadIdx.x; r < r1; r += blockDim.x) {{"
    );
    src.push_str(&red_val);
    src.push_str("    }\n");
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    src.push_str("    if (threadIdx.x == 0) {\n");
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n  }\n}\n");
    // outer
    let (bx, by) = OUTER_BLOCK;
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_outer(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{by}][{}];", bx + 1);
    src.push_str(&range);
    let _ = writeln!(src, "  for ({ut} ob = ({ut})blockIdx.x * {bx}u; ob < ({ut})a.out_size; ob += ({ut})gridDim.x * {bx}u) {{");
    let _ = writeln!(src, "    const {ut} o = ob + threadIdx.x;");
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(src, "    if (o < ({ut})a.out_size) {{");
    src.push_str(
        &out_off
            .replace("\n    ", "\n      ")
            .replacen("    ", "      ", 1),
    );
    let _ = writeln!(
        src,
        "      for ({ut} r = r0 + threadIdx.y; r < r1; r += {by}u) {{"
    );
    src.push_str(&red_val);
    src.push_str("      }\n    }\n");
    let _ = writeln!(src, "    sm[threadIdx.y][threadIdx.x] = acc;");
    src.push_str("    __syncthreads();\n");
    let _ = writeln!(src, "    if (threadIdx.y == 0 && o < ({ut})a.out_size) {{");
    let _ = writeln!(
        src,
        "      for (int y = 1; y < {by}; ++y) acc = {entry}_combine(acc, sm[y][threadIdx.x]);"
    );
    src.push_str(
        &out_off
            .replace("\n    ", "\n      ")
            .replacen("    ", "      ", 1),
    );
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n    __syncthreads();\n  }\n}\n");
    // inner_vec: as inner, for one merged reduced axis of stride 1 in every input, with each
    // input row aligned to its vector (the launcher checks): 16-byte loads, unrolled.
    let rv = reduce_vector_width(k);
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_inner_vec(const {sname} a) {{"
    );
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    let _ = writeln!(
        src,
        "  const {ut} nred = ({ut})a.red_size, ns = ({ut})a.splits;
  const {ut} chunk = ((nred + ns - 1) / ns + {rv}u - 1) / {rv}u * {rv}u;
  const {ut} r0 = ({ut})blockIdx.y * chunk;
  const {ut} r1 = r0 >= nred ? r0 : ((nred - r0 < chunk) ? nred : r0 + chunk);
  const {ut} nv = (r1 - r0) / {rv}u;
  const {ut} bs = ({ut})blockDim.x;"
    );
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "    {acc} acc{u} = {entry}_IDENT;");
    }
    let _ = writeln!(
        src,
        "    for ({ut} v = threadIdx.x; v < nv; v += {RED_UNROLL}u * bs) {{"
    );
    for (i, d) in k.inputs.iter().enumerate() {
        let st = storage_type(*d);
        for u in 0..RED_UNROLL {
            let _ = writeln!(src, "      cp_vec<{st}, {rv}> x{i}_{u};");
        }
    }
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "      if (v + {u}u * bs < nv) {{");
        for (i, d) in k.inputs.iter().enumerate() {
            let st = storage_type(*d);
            let _ = writeln!(
                src,
                "        x{i}_{u} = *(const cp_vec<{st}, {rv}>*)(a.in{i} + oi{i} + r0 + (v + {u}u * bs) * {rv}u);"
            );
        }
        src.push_str(
            "      }
",
        );
    }
    for u in 0..RED_UNROLL {
        let _ = writeln!(src, "      if (v + {u}u * bs < nv) {{");
        let _ = writeln!(
            src,
            "#pragma unroll
        for (int j = 0; j < {rv}; ++j) {{"
        );
        let mut margs = vec![
            "a".to_string(),
            format!("(cp_i64)(r0 + (v + {u}u * bs) * {rv}u + j)"),
        ];
        for (i, d) in k.inputs.iter().enumerate() {
            margs.push(load_conv(*d, &format!("x{i}_{u}.v[j]")));
        }
        let _ = writeln!(
            src,
            "          acc{u} = {entry}_fold(acc{u}, {entry}_map({}));",
            margs.join(", ")
        );
        src.push_str(
            "        }
      }
",
        );
    }
    src.push_str(
        "    }
",
    );
    let mut margs = vec!["a".to_string(), "(cp_i64)r".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        margs.push(load_conv(*d, &format!("a.in{i}[oi{i} + r]")));
    }
    let _ = writeln!(
        src,
        "    for ({ut} r = r0 + nv * {rv}u + threadIdx.x; r < r1; r += bs) acc0 = {entry}_fold(acc0, {entry}_map({}));",
        margs.join(", ")
    );
    let _ = writeln!(src, "    {acc} acc = acc0;");
    for u in 1..RED_UNROLL {
        let _ = writeln!(src, "    acc = {entry}_combine(acc, acc{u});");
    }
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    src.push_str("    if (threadIdx.x == 0) {\n");
    src.push_str(&write("      ", "blockIdx.y"));
    src.push_str("    }\n  }\n}\n");
    // finish
    let _ = writeln!(src, "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}_finish(const {sname} a) {{");
    let _ = writeln!(src, "  __shared__ {acc} sm[{}];", BLOCK / 32);
    let _ = writeln!(src, "  const {ut} ns = ({ut})a.splits;");
    let _ = writeln!(
        src,
        "  for ({ut} o = blockIdx.x; o < ({ut})a.out_size; o += gridDim.x) {{"
    );
    src.push_str(&out_off);
    let _ = writeln!(src, "    {acc} acc = {entry}_IDENT;");
    let _ = writeln!(
        src,
        "    for ({ut} s = threadIdx.x; s < ns; s += blockDim.x) acc = {entry}_combine(acc, {});",
        if tuple {
            format!("{entry}_pr(a, o * ns + s)")
        } else {
            load_conv(k.acc[0], "a.partial[o * ns + s]")
        }
    );
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    let _ = write!(
        src,
        "    if (threadIdx.x == 0) {{\n{}    }}\n",
        store_all("      ")
    );
    src.push_str("  }\n}\n");
    Ok(Emitted {
        source: src,
        entries: vec![
            format!("{entry}_inner"),
            format!("{entry}_outer"),
            format!("{entry}_finish"),
            format!("{entry}_inner_vec"),
        ],
        args,
        vector: 1,
    })
}
