//! Atomic updates of raw operands: helpers per (dtype, op), native atomics or compare-and-swap
//! loops.

use super::types::{compute_type, load_conv, round_to, storage_type, store_conv};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::ir::AtomicOp;

/// Name of the helper doing an atomic `op` on one element of dtype `d`.
pub(super) fn atomic_name(entry: &str, d: DType, op: AtomicOp) -> String {
    format!(
        "{entry}_atomic_{}_{}",
        format!("{op:?}").to_lowercase(),
        d.name()
    )
}

/// The helper `CP_DEV void NAME(storage* p, compute v)` doing `*p = op(*p, v)` atomically:
/// native atomics where CUDA and HIP both have them, else a compare-and-swap loop on the bit
/// pattern (on the containing 32-bit word for 8/16-bit types).
pub(super) fn atomic_helper(entry: &str, d: DType, op: AtomicOp) -> Result<String> {
    if d.is_complex() {
        return Err(Error::DTypeNotSupported {
            op: format!("{entry} (atomic {op:?})"),
            dtype: d,
            device: "C++ emitter".into(),
            reason: "atomic updates of complex elements are not implemented".into(),
        });
    }
    let name = atomic_name(entry, d, op);
    let st = storage_type(d);
    let ct = compute_type(d);
    let head = format!("CP_DEV void {name}({st}* p, {ct} v) {{");
    let native = |f: &str, t: &str| format!("{head} {f}(({t}*)p, ({t})v); }}\n");
    match (op, d) {
        (AtomicOp::Add, DType::Int32) => return Ok(native("atomicAdd", "int")),
        (AtomicOp::Add, DType::UInt32) => return Ok(native("atomicAdd", "unsigned int")),
        (AtomicOp::Add, DType::Int64 | DType::UInt64) => {
            return Ok(native("atomicAdd", "unsigned long long"))
        }
        (AtomicOp::Add, DType::Float32) => return Ok(native("atomicAdd", "float")),
        (AtomicOp::Add, DType::Float64) => return Ok(native("atomicAdd", "double")),
        (AtomicOp::Max, DType::Int32) => return Ok(native("atomicMax", "int")),
        (AtomicOp::Min, DType::Int32) => return Ok(native("atomicMin", "int")),
        (AtomicOp::Max, DType::UInt32) => return Ok(native("atomicMax", "unsigned int")),
        (AtomicOp::Min, DType::UInt32) => return Ok(native("atomicMin", "unsigned int")),
        (AtomicOp::Max, DType::UInt64) => return Ok(native("atomicMax", "unsigned long long")),
        (AtomicOp::Min, DType::UInt64) => return Ok(native("atomicMin", "unsigned long long")),
        _ => {}
    }
    let apply = |cur: &str| -> String {
        match (op, d) {
            (AtomicOp::Add, DType::Bool) | (AtomicOp::Max, DType::Bool) => {
                format!("({cur} || v)")
            }
            (AtomicOp::Min, DType::Bool) => format!("({cur} && v)"),
            (AtomicOp::Add, _) if d.is_integer() => format!("cp_wadd({cur}, v)"),
            (AtomicOp::Add, _) => round_to(d, format!("({cur} + v)")),
            (AtomicOp::Max, _) => format!("cp_max({cur}, v)"),
            (AtomicOp::Min, _) => format!("cp_min({cur}, v)"),
        }
    };
    let r = apply("cur");
    Ok(match d.itemsize() {
        1 | 2 => {
            let mask = if d.itemsize() == 1 {
                "0xffu"
            } else {
                "0xffffu"
            };
            format!(
                "{head}
  const cp_u64 addr = (cp_u64)p;
  cp_u32* w = (cp_u32*)(addr & ~3ull);
  const cp_u32 sh = (cp_u32)(addr & 3ull) * 8u;
  const cp_u32 mask = {mask} << sh;
  cp_u32 old = *(volatile cp_u32*)w;
  while (true) {{
    const {st} cur_s = ({st})((old >> sh) & {mask});
    const {ct} cur = {load};
    const {ct} r = {r};
    const cp_u32 nw = (old & ~mask) | ((((cp_u32){store}) & {mask}) << sh);
    if (nw == old) return;
    const cp_u32 prev = atomicCAS(w, old, nw);
    if (prev == old) return;
    old = prev;
  }}
}}
",
                load = load_conv(d, "cur_s"),
                store = store_conv(d, "r"),
            )
        }
        _ => {
            let (wt, from, to) = match d {
                DType::Float32 => ("unsigned int", "__uint_as_float(old)", "__float_as_uint(r)"),
                DType::Float64 => (
                    "unsigned long long",
                    "__longlong_as_double((long long)old)",
                    "(unsigned long long)__double_as_longlong(r)",
                ),
                DType::Int64 => ("unsigned long long", "(cp_i64)old", "(unsigned long long)r"),
                _ => {
                    return Err(Error::invalid(
                        format!("kernel {entry}"),
                        format!("no atomic {op:?} for {d}"),
                    ))
                }
            };
            format!(
                "{head}
  {wt}* w = ({wt}*)p;
  {wt} old = *(volatile {wt}*)w;
  while (true) {{
    const {ct} cur = {from};
    const {ct} r = {r};
    const {wt} nb = {to};
    if (nb == old) return;
    const {wt} prev = atomicCAS(w, old, nb);
    if (prev == old) return;
    old = prev;
  }}
}}
"
            )
        }
    })
}
