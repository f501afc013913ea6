//! Checks the NCCL declarations (`cupy_core::gpu::nccl::NcclFns`, the enum values of
//! `cupy_core::backend::collective`) against an installed `nccl.h`: a generated C++ file assigns
//! every function to a pointer of the type cupy-rs calls it with and `static_assert`s every
//! value and size, compiled with `-fsyntax-only` (CUDA's own headers replaced by a two-line
//! stand-in: only `cudaStream_t` is needed). The header is looked for in `CUPY_NCCL_INCLUDE`,
//! next to `CUPY_NCCL_PATH` (pip's `nvidia/nccl/{lib,include}`), `/usr/include`; without one
//! the test prints a notice and passes (no NCCL here in CI; the declarations were checked by
//! hand, see backends/cuda/src/nccl.rs).

use cupy_core::backend::collective::{ReduceOp, WireType};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

fn nccl_include() -> Option<PathBuf> {
    let mut dirs = vec![];
    if let Some(p) = std::env::var_os("CUPY_NCCL_INCLUDE") {
        dirs.push(PathBuf::from(p));
    }
    if let Some(p) = std::env::var_os("CUPY_NCCL_PATH") {
        let p = PathBuf::from(p);
        let lib = if p.is_dir() {
            p
        } else {
            p.parent()?.to_path_buf()
        };
        dirs.push(lib.join("include"));
        if let Some(up) = lib.parent() {
            dirs.push(up.join("include"));
        }
    }
    dirs.push(PathBuf::from("/usr/include"));
    dirs.push(PathBuf::from("/usr/local/cuda/include"));
    dirs.into_iter().find(|d| d.join("nccl.h").exists())
}

/// (symbol, the C pointer type `NcclFns` calls it through).
const FNS: &[(&str, &str)] = &[
    ("ncclGetVersion", "ncclResult_t (*)(int*)"),
    ("ncclGetUniqueId", "ncclResult_t (*)(ncclUniqueId*)"),
    ("ncclCommInitRank", "ncclResult_t (*)(ncclComm_t*, int, ncclUniqueId, int)"),
    ("ncclCommDestroy", "ncclResult_t (*)(ncclComm_t)"),
    ("ncclGetErrorString", "const char* (*)(ncclResult_t)"),
    ("ncclGetLastError", "const char* (*)(ncclComm_t)"),
    ("ncclAllReduce", "ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)"),
    ("ncclReduce", "ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t)"),
    ("ncclBroadcast", "ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)"),
    ("ncclReduceScatter", "ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)"),
    ("ncclAllGather", "ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t)"),
    ("ncclSend", "ncclResult_t (*)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)"),
    ("ncclRecv", "ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)"),
    ("ncclGroupStart", "ncclResult_t (*)()"),
    ("ncclGroupEnd", "ncclResult_t (*)()"),
];

#[test]
fn nccl_declarations_match_the_header() {
    let Some(inc) = nccl_include() else {
        eprintln!(
            "NOTICE: nccl.h not found (set CUPY_NCCL_INCLUDE or CUPY_NCCL_PATH): NCCL \
             declarations not compiled against a header"
        );
        return;
    };
    let mut src = String::from(
        "#include <stddef.h>\n#include <nccl.h>\n#include <type_traits>\nvoid cupy_nccl_check() {\n",
    );
    for (name, ty) in FNS {
        let _ = writeln!(src, "  {{ using T = {ty}; T p = &{name}; (void)p; }}");
    }
    src.push_str("}\n");
    let types = [
        ("ncclInt8", WireType::Int8),
        ("ncclUint8", WireType::UInt8),
        ("ncclInt32", WireType::Int32),
        ("ncclUint32", WireType::UInt32),
        ("ncclInt64", WireType::Int64),
        ("ncclUint64", WireType::UInt64),
        ("ncclFloat16", WireType::Float16),
        ("ncclFloat32", WireType::Float32),
        ("ncclFloat64", WireType::Float64),
        ("ncclBfloat16", WireType::BFloat16),
    ];
    let mut values: Vec<(String, i64)> = types
        .iter()
        .map(|(n, t)| (n.to_string(), t.nccl_value() as i64))
        .collect();
    for (n, o) in [
        ("ncclSum", ReduceOp::Sum),
        ("ncclProd", ReduceOp::Prod),
        ("ncclMax", ReduceOp::Max),
        ("ncclMin", ReduceOp::Min),
        ("ncclAvg", ReduceOp::Avg),
    ] {
        values.push((n.into(), o.nccl_value() as i64));
    }
    for (c, v) in [
        ("ncclSuccess", 0),
        ("sizeof(ncclUniqueId)", 128),
        ("sizeof(ncclResult_t)", 4),
        ("sizeof(ncclDataType_t)", 4),
        ("sizeof(ncclRedOp_t)", 4),
    ] {
        values.push((c.into(), v));
    }
    for (c, v) in &values {
        let _ = writeln!(
            src,
            "static_assert((long long)({c}) == {v}LL, \"{c} != {v}\");"
        );
    }
    let dir = std::env::temp_dir().join(format!("cupy-nccl-h-{}", std::process::id()));
    let stub = dir.join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(
        stub.join("cuda_runtime.h"),
        "#pragma once\ntypedef struct CUstream_st* cudaStream_t;\n",
    )
    .unwrap();
    std::fs::write(stub.join("cuda_fp16.h"), "#pragma once\n").unwrap();
    let file = dir.join("nccl_check.cpp");
    std::fs::write(&file, &src).unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = match Command::new(&cxx)
        .args(["-std=c++17", "-fsyntax-only", "-Werror"])
        .arg(format!("-I{}", stub.display()))
        .arg(format!("-I{}", inc.display()))
        .arg(&file)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("NOTICE: C++ compiler {cxx:?} could not run: {e}");
            return;
        }
    };
    assert!(
        out.status.success(),
        "our NCCL declarations disagree with {}/nccl.h:\n{}\n--- generated ---\n{src}",
        inc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "NCCL declarations match {}/nccl.h: {} functions, {} values",
        inc.display(),
        FNS.len(),
        values.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
