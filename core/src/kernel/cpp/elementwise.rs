//! Elementwise kernels: the strided, contiguous, vectorized and tiled classes.

use super::args::{param_fields, param_loads, OperandRef, Slot, StructBuilder};
use super::atomic::atomic_helper;
use super::dialect::{prelude, Flavor};
use super::expr::Names;
use super::stmt::{definitely_stored, stmts};
use super::types::{compute_type, load_conv, storage_type, store_conv, zero_value};
use super::{
    entry_name, tiled_fits, ElementwiseClass, ElementwiseSpec, Emitted, BLOCK, TILE_BLOCK,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::{AtomicOp, Kernel, Stmt};
use std::fmt::Write as _;

/// Elements per vector iteration: 16 bytes of the widest operand (at least 1); 1 when the body
/// has a `for` loop. Such a body is compute-bound, and NVRTC unrolls the vector loop around each
/// inlined copy of it: on the H200 an int8 GEMM-like body (a `for` over K) took over 90 s to
/// compile with 16 lanes and 0.8 s without.
pub fn vector_width(k: &Kernel) -> usize {
    let mut looped = false;
    Stmt::visit_all(&k.body, &mut |s| looped |= matches!(s, Stmt::For { .. }));
    if looped {
        return 1;
    }
    let widest = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .map(|d| d.itemsize())
        .max();
    // A kernel without elementwise operands (it writes raw operands only, as the packed random
    // samplers do) runs one item per thread: consecutive threads then write neighbouring
    // elements, where 16 items per thread would scatter each warp's stores. Raw operands count
    // among the widest where there are elementwise ones: a raw operand read at the item's own
    // index (unique's run starts: `s[i] != s[i - 1]` into bools) is read 16 bytes a thread at a
    // time too, not 16 elements (16 float32 a thread spread each warp's loads over 32 lines:
    // 0.27 ms for 2^26 float32 run starts on the H100).
    let raw = k.raws.iter().map(|d| d.itemsize()).max().unwrap_or(1);
    match widest {
        Some(w) => (16 / w.max(raw)).max(1),
        None => 1,
    }
}

/// Emits an elementwise kernel (see the module docs).
///
/// # Errors
/// [`Error::DTypeNotSupported`] for an op NumPy defines no complex loop for (and atomic
/// updates of complex elements); [`Error::InvalidArgument`] for an op the dtype lacks or a
/// malformed kernel.
pub fn emit_elementwise(k: &Kernel, spec: &ElementwiseSpec, flavor: Flavor) -> Result<Emitted> {
    emit_elementwise_bounded(k, spec, flavor, BLOCK)
}

/// [`emit_elementwise`] for launches of up to `max_threads` threads per block (the entry's
/// `__launch_bounds__`; [`BLOCK`] by default, up to 1024 for a user's `block_size`). The tiled
/// class always runs [`TILE_BLOCK`] blocks and ignores it.
///
/// # Errors
/// As [`emit_elementwise`]; `InvalidArgument` for `max_threads` outside 1..=1024.
pub fn emit_elementwise_bounded(
    k: &Kernel,
    spec: &ElementwiseSpec,
    flavor: Flavor,
    max_threads: usize,
) -> Result<Emitted> {
    if !(1..=1024).contains(&max_threads) {
        return Err(Error::invalid(
            format!("kernel {}", k.name),
            format!("{max_threads} threads per block is outside 1..=1024"),
        ));
    }
    k.validate()?;
    let nd = match spec.class {
        ElementwiseClass::Strided => spec.ndim.max(1),
        ElementwiseClass::Tiled => 2,
        _ => 1,
    };
    if spec.class == ElementwiseClass::Tiled && (spec.ndim != 2 || !tiled_fits(k)) {
        return Err(Error::invalid(
            format!("kernel {}", k.name),
            "the tiled class needs two axes and operand tiles within 40 KiB",
        ));
    }
    let entry = entry_name(&k.name);
    let (it, ut, isz) = if spec.index64 {
        ("cp_i64", "cp_u64", 8)
    } else {
        ("cp_i32", "cp_u32", 4)
    };
    let strided = matches!(
        spec.class,
        ElementwiseClass::Strided | ElementwiseClass::Tiled
    );
    let vec = if spec.class == ElementwiseClass::Vectorized {
        vector_width(k)
    } else {
        1
    };

    let mut sb = StructBuilder::new();
    sb.add(Slot::Size, &format!("{it} size"), isz);
    if strided {
        for d in 0..nd {
            sb.add(Slot::Shape(d), &format!("{it} shape{d}"), isz);
        }
    }
    let ops: Vec<(OperandRef, DType, String, bool)> = k
        .inputs
        .iter()
        .enumerate()
        .map(|(i, d)| (OperandRef::Input(i), *d, format!("in{i}"), true))
        .chain(
            k.outputs
                .iter()
                .enumerate()
                .map(|(i, d)| (OperandRef::Output(i), *d, format!("out{i}"), false)),
        )
        .collect();
    for (r, d, name, is_in) in &ops {
        let c = if *is_in { "const " } else { "" };
        sb.add(
            Slot::Ptr(*r),
            &format!("{c}{}* {name}", storage_type(*d)),
            8,
        );
        if strided {
            for ax in 0..nd {
                sb.add(Slot::Stride(*r, ax), &format!("{it} st_{name}_{ax}"), isz);
            }
        }
    }
    for (i, d) in k.raws.iter().enumerate() {
        sb.add(
            Slot::Ptr(OperandRef::Raw(i)),
            &format!("{}* r{i}", storage_type(*d)),
            8,
        );
    }
    param_fields(&mut sb, &k.params);
    let sname = format!("{entry}_args");
    let (sdecl, args) = sb.finish(&sname, k.params.clone());

    let mut src = prelude(flavor);
    let _ = writeln!(
        src,
        "// kernel {} | ndim {nd} | {:?} | {}-bit index | vector {vec}",
        k.name,
        spec.class,
        isz * 8
    );
    src.push_str(&sdecl);

    // Atomic helpers, one per (raw dtype, op) the body uses.
    let mut atomics: Vec<(DType, AtomicOp)> = vec![];
    Stmt::visit_all(&k.body, &mut |st| {
        if let Stmt::AtomicRaw { raw, op, .. } = st {
            let key = (k.raws[*raw], *op);
            if !atomics.contains(&key) {
                atomics.push(key);
            }
        }
    });
    for (d, op) in atomics {
        src.push_str(&atomic_helper(&entry, d, op)?);
    }
    // The per-element body: compute-typed inputs by value, outputs by reference.
    let mut sig = vec![format!("const {sname}& a"), "cp_i64 idx".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        sig.push(format!("const {} x{i}", compute_type(*d)));
    }
    for (i, d) in k.outputs.iter().enumerate() {
        sig.push(format!("{}& y{i}", compute_type(*d)));
    }
    let _ = writeln!(src, "CP_DEV void {entry}_body({}) {{", sig.join(", "));
    src.push_str(&param_loads(&k.params));
    for (v, d) in k.locals.iter().enumerate() {
        let _ = writeln!(src, "  {} v{v} = {};", compute_type(*d), zero_value(*d));
    }
    let inputs = |i: usize| format!("x{i}");
    let names = Names {
        inputs: &inputs,
        index: "idx".into(),
        entry: entry.clone(),
    };
    stmts(&k.body, &names, &|o| format!("y{o}"), 1, &mut src)?;
    src.push_str("}\n");

    let stored = definitely_stored(k);
    // Emits the per-element code given each operand's element expression (pointer + offset).
    let element = |offs: &dyn Fn(&str) -> String, idx: &str, pad: &str| -> String {
        let mut s = String::new();
        let mut call = vec!["a".to_string(), format!("(cp_i64)({idx})")];
        for (i, d) in k.inputs.iter().enumerate() {
            call.push(load_conv(
                *d,
                &format!("a.in{i}[{}]", offs(&format!("in{i}"))),
            ));
        }
        for (i, d) in k.outputs.iter().enumerate() {
            let init = if stored[i] {
                zero_value(*d)
            } else {
                load_conv(*d, &format!("a.out{i}[{}]", offs(&format!("out{i}"))))
            };
            let _ = writeln!(s, "{pad}{} y{i} = {init};", compute_type(*d));
            call.push(format!("y{i}"));
        }
        let _ = writeln!(s, "{pad}{entry}_body({});", call.join(", "));
        for (i, d) in k.outputs.iter().enumerate() {
            let _ = writeln!(
                s,
                "{pad}a.out{i}[{}] = {};",
                offs(&format!("out{i}")),
                store_conv(*d, &format!("y{i}"))
            );
        }
        s
    };

    if spec.class == ElementwiseClass::Tiled {
        emit_tiled(k, &entry, &sname, it, ut, &stored, &mut src);
        return Ok(Emitted {
            source: src,
            entries: vec![entry],
            args,
            vector: 1,
        });
    }
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({max_threads}) {entry}(const {sname} a) {{"
    );
    let _ = writeln!(src, "  const {ut} n = ({ut})a.size;");
    let _ = writeln!(
        src,
        "  const {ut} step = ({ut})gridDim.x * ({ut})blockDim.x;"
    );
    let _ = writeln!(
        src,
        "  const {ut} tid = ({ut})blockIdx.x * ({ut})blockDim.x + ({ut})threadIdx.x;"
    );
    match spec.class {
        ElementwiseClass::Strided => {
            let _ = writeln!(src, "  for ({ut} i = tid; i < n; i += step) {{");
            let names: Vec<&String> = ops.iter().map(|o| &o.2).collect();
            for nm in &names {
                let _ = writeln!(src, "    {it} o_{nm} = 0;");
            }
            let _ = writeln!(src, "    {ut} rem = i;");
            for d in (1..nd).rev() {
                let _ = writeln!(
                    src,
                    "    {{ const {ut} c = rem % ({ut})a.shape{d}; rem /= ({ut})a.shape{d};"
                );
                for nm in &names {
                    let _ = writeln!(src, "      o_{nm} += ({it})c * a.st_{nm}_{d};");
                }
                let _ = writeln!(src, "    }}");
            }
            for nm in &names {
                let _ = writeln!(src, "    o_{nm} += ({it})rem * a.st_{nm}_0;");
            }
            src.push_str(&element(&|nm| format!("o_{nm}"), "i", "    "));
            src.push_str("  }\n");
        }
        ElementwiseClass::Tiled => unreachable!("emitted above"),
        ElementwiseClass::Contiguous => {
            let _ = writeln!(src, "  for ({ut} i = tid; i < n; i += step) {{");
            src.push_str(&element(&|_| "i".to_string(), "i", "    "));
            src.push_str("  }\n");
        }
        ElementwiseClass::Vectorized => {
            let _ = writeln!(src, "  const {ut} nv = n / {vec}u;");
            let _ = writeln!(src, "  for ({ut} v = tid; v < nv; v += step) {{");
            let _ = writeln!(src, "    const {ut} base = v * {vec}u;");
            for (i, d) in k.inputs.iter().enumerate() {
                let st = storage_type(*d);
                let _ = writeln!(src, "    const cp_vec<{st}, {vec}> vx{i} = *(const cp_vec<{st}, {vec}>*)(a.in{i} + base);");
            }
            for (i, d) in k.outputs.iter().enumerate() {
                let st = storage_type(*d);
                if stored[i] {
                    let _ = writeln!(src, "    cp_vec<{st}, {vec}> vy{i};");
                } else {
                    let _ = writeln!(
                        src,
                        "    cp_vec<{st}, {vec}> vy{i} = *(cp_vec<{st}, {vec}>*)(a.out{i} + base);"
                    );
                }
            }
            let _ = writeln!(
                src,
                "#pragma unroll\n    for (int j = 0; j < {vec}; ++j) {{"
            );
            let mut call = vec!["a".to_string(), "(cp_i64)(base + j)".to_string()];
            for (i, d) in k.inputs.iter().enumerate() {
                call.push(load_conv(*d, &format!("vx{i}.v[j]")));
            }
            for (i, d) in k.outputs.iter().enumerate() {
                let init = if stored[i] {
                    zero_value(*d)
                } else {
                    load_conv(*d, &format!("vy{i}.v[j]"))
                };
                let _ = writeln!(src, "      {} y{i} = {init};", compute_type(*d));
                call.push(format!("y{i}"));
            }
            let _ = writeln!(src, "      {entry}_body({});", call.join(", "));
            for (i, d) in k.outputs.iter().enumerate() {
                let _ = writeln!(
                    src,
                    "      vy{i}.v[j] = {};",
                    store_conv(*d, &format!("y{i}"))
                );
            }
            src.push_str("    }\n");
            for (i, d) in k.outputs.iter().enumerate() {
                let st = storage_type(*d);
                let _ = writeln!(src, "    *(cp_vec<{st}, {vec}>*)(a.out{i} + base) = vy{i};");
            }
            src.push_str("  }\n");
            let _ = writeln!(
                src,
                "  for ({ut} i = nv * {vec}u + tid; i < n; i += step) {{"
            );
            src.push_str(&element(&|_| "i".to_string(), "i", "    "));
            src.push_str("  }\n");
        }
    }
    src.push_str("}\n");
    Ok(Emitted {
        source: src,
        entries: vec![entry],
        args,
        vector: vec,
    })
}

/// The body of the [`ElementwiseClass::Tiled`] kernel: per 32x32 tile, every input (and every
/// output not stored unconditionally) is loaded into a padded shared tile along whichever axis is
/// its fast one, the body runs per element out of shared memory, and outputs are written back
/// from their tiles along their own fast axis.
fn emit_tiled(
    k: &Kernel,
    entry: &str,
    sname: &str,
    it: &str,
    ut: &str,
    stored: &[bool],
    src: &mut String,
) {
    let (tx, ty) = TILE_BLOCK;
    let ops: Vec<(String, DType, bool)> = k
        .inputs
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("in{i}"), *d, true))
        .chain(
            k.outputs
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("out{i}"), *d, !stored[i])),
        )
        .collect();
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {entry}(const {sname} a) {{"
    );
    for (nm, d, _) in &ops {
        let _ = writeln!(
            src,
            "  __shared__ {} t_{nm}[{tx}][{}];",
            storage_type(*d),
            tx + 1
        );
    }
    let _ = writeln!(
        src,
        "  const {ut} s0 = ({ut})a.shape0, s1 = ({ut})a.shape1;
  const {ut} nt1 = (s1 + {tx}u - 1) / {tx}u, nt = ((s0 + {tx}u - 1) / {tx}u) * nt1;
  const {ut} tx = threadIdx.x, ty = threadIdx.y;"
    );
    // Per operand: is axis 0 its fast axis?
    for (nm, _, _) in &ops {
        let _ = writeln!(
            src,
            "  const bool col_{nm} = cp_iabs<{it}>(a.st_{nm}_0) < cp_iabs<{it}>(a.st_{nm}_1);"
        );
    }
    let _ = writeln!(
        src,
        "  for ({ut} t = blockIdx.x; t < nt; t += gridDim.x) {{
    const {ut} b0 = (t / nt1) * {tx}u, b1 = (t % nt1) * {tx}u;"
    );
    let mapped = |nm: &str, body: &str| -> String {
        format!(
            "#pragma unroll\n    for (int k = 0; k < {tx}; k += {ty}) {{
      const {ut} l0 = col_{nm} ? tx : ty + k, l1 = col_{nm} ? ty + k : tx;
      const {ut} g0 = b0 + l0, g1 = b1 + l1;
      if (g0 < s0 && g1 < s1) {body}
    }}\n"
        )
    };
    for (nm, _, load) in &ops {
        if *load {
            src.push_str(&mapped(
                nm,
                &format!(
                    "t_{nm}[l0][l1] = a.{nm}[({it})g0 * a.st_{nm}_0 + ({it})g1 * a.st_{nm}_1];"
                ),
            ));
        }
    }
    src.push_str("    __syncthreads();\n");
    let _ = writeln!(
        src,
        "#pragma unroll\n    for (int k = 0; k < {tx}; k += {ty}) {{
      const {ut} l0 = ty + k, l1 = tx, g0 = b0 + l0, g1 = b1 + l1;
      if (g0 < s0 && g1 < s1) {{"
    );
    let mut call = vec!["a".to_string(), "(cp_i64)(g0 * s1 + g1)".to_string()];
    for (i, d) in k.inputs.iter().enumerate() {
        call.push(load_conv(*d, &format!("t_in{i}[l0][l1]")));
    }
    for (i, d) in k.outputs.iter().enumerate() {
        let init = if stored[i] {
            zero_value(*d)
        } else {
            load_conv(*d, &format!("t_out{i}[l0][l1]"))
        };
        let _ = writeln!(src, "        {} y{i} = {init};", compute_type(*d));
        call.push(format!("y{i}"));
    }
    let _ = writeln!(src, "        {entry}_body({});", call.join(", "));
    for (i, d) in k.outputs.iter().enumerate() {
        let _ = writeln!(
            src,
            "        t_out{i}[l0][l1] = {};",
            store_conv(*d, &format!("y{i}"))
        );
    }
    src.push_str("      }\n    }\n    __syncthreads();\n");
    for i in 0..k.outputs.len() {
        let nm = format!("out{i}");
        src.push_str(&mapped(
            &nm,
            &format!("a.{nm}[({it})g0 * a.st_{nm}_0 + ({it})g1 * a.st_{nm}_1] = t_{nm}[l0][l1];"),
        ));
    }
    src.push_str("    __syncthreads();\n  }\n}\n");
}
