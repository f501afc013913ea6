//! Reduction modules: the inner, outer, finish and inner-vector entries.

use super::args::{param_fields, param_loads, OperandRef, Slot, StructBuilder};
use super::dialect::{prelude, Flavor};
use super::expr::{expr, Names};
use super::types::{compute_type, literal, load_conv, storage_type, store_conv};
use super::{entry_name, Emitted, ReduceSpec, BLOCK, OUTER_BLOCK};
use crate::error::{Error, Result};
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
    for (what, e, want) in [
        ("map", &k.map, k.acc),
        ("combine", &k.combine, k.acc),
        ("post", &k.post, k.output),
    ] {
        if e.ty != want {
            return Err(Error::invalid(
                format!("reduction {}", k.name),
                format!("{what} has dtype {} (expected {want})", e.ty),
            ));
        }
    }
    if k.identity.dtype() != k.acc {
        return Err(Error::invalid(
            format!("reduction {}", k.name),
            format!(
                "identity {:?} is not of the accumulator dtype {}",
                k.identity, k.acc
            ),
        ));
    }
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
    let o = OperandRef::Output(0);
    sb.add(
        Slot::Ptr(o),
        &format!("{}* out0", storage_type(k.output)),
        8,
    );
    for ax in 0..ond {
        sb.add(Slot::Stride(o, ax), &format!("{it} st_out0_{ax}"), isz);
    }
    sb.add(
        Slot::Ptr(OperandRef::Partial),
        &format!("{}* partial", storage_type(k.acc)),
        8,
    );
    param_fields(&mut sb, &k.params);
    let sname = format!("{entry}_args");
    let (sdecl, args) = sb.finish(&sname, k.params.clone());

    let acc = compute_type(k.acc);
    let mut src = prelude(flavor);
    let _ = writeln!(
        src,
        "// reduction {} | out ndim {ond} | reduced ndim {rnd} | {}-bit index",
        k.name,
        isz * 8
    );
    src.push_str(&sdecl);
    let ident = literal(k.identity);
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
    let _ = writeln!(src, "  return {};\n}}", expr(&k.map, &names)?);
    let _ = writeln!(src, "CP_DEV {acc} {entry}_combine({acc} v0, {acc} v1) {{");
    let _ = writeln!(src, "  return {};\n}}", expr(&k.combine, &names)?);
    let _ = writeln!(
        src,
        "CP_DEV {} {entry}_post(const {sname}& a, {acc} v0) {{",
        compute_type(k.output)
    );
    src.push_str(&param_loads(&k.params));
    let _ = writeln!(src, "  return {};\n}}", expr(&k.post, &names)?);

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
    let _ = writeln!(out_off, "    {it} oo = 0;");
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
        let _ = writeln!(out_off, "      oo += ({it})c * a.st_out0_{d}; }}");
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
        "      acc = {entry}_combine(acc, {entry}_map({}));",
        margs.join(", ")
    );
    let write = |pad: &str, split: &str| {
        format!(
            "{pad}if (a.splits == 1) a.out0[oo] = {};\n{pad}else a.partial[({ut})o * ({ut})a.splits + {split}] = {};\n",
            store_conv(k.output, &format!("{entry}_post(a, acc)")),
            store_conv(k.acc, "acc")
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
            "          acc{u} = {entry}_combine(acc{u}, {entry}_map({}));",
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
        "    for ({ut} r = r0 + nv * {rv}u + threadIdx.x; r < r1; r += bs) acc0 = {entry}_combine(acc0, {entry}_map({}));",
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
        load_conv(k.acc, "a.partial[o * ns + s]")
    );
    let _ = writeln!(src, "    acc = {entry}_block(acc, sm);");
    let _ = writeln!(
        src,
        "    if (threadIdx.x == 0) a.out0[oo] = {};",
        store_conv(k.output, &format!("{entry}_post(a, acc)"))
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
