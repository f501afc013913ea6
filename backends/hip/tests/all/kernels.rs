//! Compiles every generated kernel family with AMD's hipRTC (through cupy-hip's own compile
//! path and options) for several gfx targets, and every file of `hip-kernels/` if any exist.

#[path = "../../../cuda/tests/all/catalogue.rs"]
#[allow(dead_code)]
pub(crate) mod catalogue;

use crate::hk_sources;

use cupy_core::kernel::cpp::{
    emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor, ReduceSpec,
};
use cupy_core::kernel::ir::{AtomicOp, BinaryOp, Expr, Kernel, Stmt};
use cupy_core::{DType, Scalar};
use cupy_hip::kernels::compile_options;
use cupy_hip::result::Rtc;
use std::path::PathBuf;

/// One dtype per class, as the CI brief lists them.
const DTYPES: [DType; 9] = [
    DType::Bool,
    DType::Int8,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

const SPECS: [(&str, ElementwiseSpec); 5] = [
    (
        "s1",
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Strided,
            index64: false,
        },
    ),
    (
        "s3",
        ElementwiseSpec {
            ndim: 3,
            class: ElementwiseClass::Strided,
            index64: true,
        },
    ),
    (
        "c",
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Contiguous,
            index64: false,
        },
    ),
    (
        "v",
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Vectorized,
            index64: false,
        },
    ),
    (
        "v64",
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Vectorized,
            index64: true,
        },
    ),
];

/// `out[y, x] = sum_{ky, kx} img[y + ky - KH/2, x + kx - KW/2] * ker[ky, kx]` with zero padding:
/// locals, nested uniform `For`, `If` and `Select` for bounds, two raw `Load`s, index arithmetic.
pub fn convolve2d(d: DType) -> Kernel {
    use BinaryOp::*;
    let i64_ = DType::Int64;
    let p = |k| Expr::param(k, i64_);
    let v = |k, t| Expr::var(k, t);
    let b = Expr::binary;
    let c = |x: i64| Expr::constant(Scalar::Int64(x));
    let (h, w, kh, kw) = (p(0), p(1), p(2), p(3));
    let inside = |e: Expr, lim: Expr| b(And, b(Ge, e.clone(), c(0)), b(Lt, e, lim));
    let prod = b(
        Mul,
        Expr::load(0, d, b(Add, b(Mul, v(5, i64_), w.clone()), v(6, i64_))),
        Expr::load(1, d, b(Add, b(Mul, v(1, i64_), kw.clone()), v(2, i64_))),
    );
    let body = vec![
        Stmt::Let {
            var: 3,
            value: b(FloorDiv, Expr::index(), w.clone()),
        },
        Stmt::Let {
            var: 4,
            value: b(Mod, Expr::index(), w.clone()),
        },
        Stmt::Let {
            var: 0,
            value: Expr::constant(Scalar::zero(d)),
        },
        Stmt::For {
            var: 1,
            start: c(0),
            end: kh.clone(),
            body: vec![Stmt::For {
                var: 2,
                start: c(0),
                end: kw.clone(),
                body: vec![
                    Stmt::Let {
                        var: 5,
                        value: b(
                            Sub,
                            b(Add, v(3, i64_), v(1, i64_)),
                            b(FloorDiv, kh.clone(), c(2)),
                        ),
                    },
                    Stmt::Let {
                        var: 6,
                        value: b(
                            Sub,
                            b(Add, v(4, i64_), v(2, i64_)),
                            b(FloorDiv, kw.clone(), c(2)),
                        ),
                    },
                    Stmt::If {
                        cond: inside(v(5, i64_), h.clone()),
                        then_body: vec![Stmt::Assign {
                            var: 0,
                            value: b(
                                Add,
                                v(0, d),
                                Expr::select(
                                    inside(v(6, i64_), w.clone()),
                                    prod,
                                    Expr::constant(Scalar::zero(d)),
                                ),
                            ),
                        }],
                        else_body: vec![],
                    },
                ],
            }],
        },
        Stmt::Store {
            output: 0,
            value: v(0, d),
        },
    ];
    Kernel {
        name: format!("convolve2d_{}", catalogue::short(d)),
        inputs: vec![],
        outputs: vec![d],
        raws: vec![d, d],
        params: vec![i64_; 4],
        locals: vec![d, i64_, i64_, i64_, i64_, i64_, i64_],
        body,
    }
}

/// `raw0[idx] (op)= value` then `out0 = raw0[idx]` (`op` None: a plain store).
fn scatter_kernel(d: DType, op: Option<AtomicOp>) -> Kernel {
    let i = Expr::input(0, DType::Int64);
    let v = Expr::input(1, d);
    let w = match op {
        None => Stmt::StoreRaw {
            raw: 0,
            index: i.clone(),
            value: v,
        },
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index: i.clone(),
            value: v,
            old: None,
        },
    };
    Kernel {
        name: format!("scatter_{}_{op:?}", d.name()),
        inputs: vec![DType::Int64, d],
        outputs: vec![d],
        raws: vec![d],
        params: vec![],
        locals: vec![],
        body: vec![
            w,
            Stmt::Store {
                output: 0,
                value: Expr::load(0, d, i),
            },
        ],
    }
}

/// The kernel forms of the frontend's indexing routines (src/indexing/): the `nonzero`
/// scatter (`If` around one raw store per axis), the advanced-index gather (coordinates by
/// `Div`/`Mod` of the flat index, a narrow signed index compared before widening, a raw load),
/// `unravel_index` (one output per axis), `putmask` (a select of a raw load) and the
/// wrap/clip index modes.
fn indexing_kernels() -> Vec<Kernel> {
    let p = |k: usize| Expr::param(k, DType::Int64);
    let bin = Expr::binary;
    let coord = |div: usize, ext: usize| {
        bin(
            BinaryOp::Mod,
            bin(BinaryOp::Div, Expr::index(), p(div)),
            p(ext),
        )
    };
    let slot = bin(
        BinaryOp::Sub,
        Expr::input(1, DType::Int64),
        Expr::constant(Scalar::Int64(1)),
    );
    let nonzero = Kernel {
        name: "ix_nonzero".into(),
        inputs: vec![DType::Bool, DType::Int64],
        outputs: vec![],
        raws: vec![DType::Int64],
        params: vec![DType::Int64; 5],
        locals: vec![],
        body: vec![Stmt::If {
            cond: Expr::input(0, DType::Bool),
            then_body: vec![
                Stmt::StoreRaw {
                    raw: 0,
                    index: slot.clone(),
                    value: coord(1, 2),
                },
                Stmt::StoreRaw {
                    raw: 0,
                    index: bin(BinaryOp::Add, p(0), slot),
                    value: coord(3, 4),
                },
            ],
            else_body: vec![],
        }],
    };
    let j = Expr::input(0, DType::Int8);
    let j64 = j.clone().cast(DType::Int64);
    let wrapped = Expr::select(
        bin(BinaryOp::Lt, j, Expr::constant(Scalar::Int8(0))),
        bin(BinaryOp::Add, j64.clone(), p(4)),
        j64,
    );
    let addr = bin(
        BinaryOp::Add,
        bin(BinaryOp::Add, p(0), bin(BinaryOp::Mul, coord(1, 2), p(3))),
        bin(
            BinaryOp::Add,
            bin(BinaryOp::Mul, wrapped, p(5)),
            bin(
                BinaryOp::Mul,
                Expr::input(1, DType::UInt16).cast(DType::Int64),
                p(6),
            ),
        ),
    );
    let mut gather = Kernel::map(
        "ix_getitem",
        vec![DType::Int8, DType::UInt16],
        vec![DType::Int64; 7],
        Expr::load(0, DType::Float32, addr),
    );
    gather.raws = vec![DType::Float32];
    let unravel = Kernel {
        name: "ix_unravel".into(),
        inputs: vec![DType::Int32],
        outputs: vec![DType::Int64; 2],
        raws: vec![],
        params: vec![DType::Int64; 4],
        locals: vec![],
        body: (0..2)
            .map(|d| Stmt::Store {
                output: d,
                value: bin(
                    BinaryOp::Mod,
                    bin(
                        BinaryOp::Div,
                        Expr::input(0, DType::Int32).cast(DType::Int64),
                        p(2 * d),
                    ),
                    p(2 * d + 1),
                ),
            })
            .collect(),
    };
    let mut putmask = Kernel::map(
        "ix_putmask",
        vec![DType::Int16, DType::Float64],
        vec![DType::Int64],
        Expr::select(
            Expr::input(1, DType::Float64).cast(DType::Bool),
            Expr::load(0, DType::Int8, bin(BinaryOp::Mod, Expr::index(), p(0))).cast(DType::Int16),
            Expr::input(0, DType::Int16),
        ),
    );
    putmask.raws = vec![DType::Int8];
    let wrap = bin(BinaryOp::Mod, Expr::input(0, DType::Int64), p(0));
    let clip = bin(
        BinaryOp::Min,
        Expr::select(
            bin(
                BinaryOp::Lt,
                Expr::input(1, DType::Int16),
                Expr::constant(Scalar::Int16(0)),
            ),
            Expr::constant(Scalar::Int64(0)),
            Expr::input(1, DType::Int16).cast(DType::Int64),
        ),
        bin(BinaryOp::Sub, p(0), Expr::constant(Scalar::Int64(1))),
    );
    let mut modes = Kernel::map(
        "ix_modes",
        vec![DType::Int64, DType::Int16],
        vec![DType::Int64],
        bin(
            BinaryOp::Add,
            Expr::load(0, DType::BFloat16, wrap),
            Expr::load(0, DType::BFloat16, clip),
        ),
    );
    modes.raws = vec![DType::BFloat16];
    vec![nonzero, gather, unravel, putmask, modes]
}

/// (kernel name, body without the prelude) of every kernel compiled per target, in modules.
fn modules() -> Vec<(String, Vec<(String, String)>)> {
    let pre_len = prelude(Flavor::Hip).len();
    let mut ew = vec![];
    let mut i = 0usize;
    for d in DTYPES {
        let mut ks: Vec<Kernel> = vec![];
        ks.extend(
            catalogue::binary_ops(d)
                .into_iter()
                .map(|op| catalogue::binary(op, d)),
        );
        ks.extend(
            catalogue::unary_ops(d)
                .into_iter()
                .map(|op| catalogue::unary(op, d)),
        );
        for t in [
            DType::Bool,
            DType::Int32,
            DType::Float16,
            DType::Float32,
            DType::Float64,
        ] {
            if t != d {
                ks.push(catalogue::cast(d, t));
            }
        }
        ks.push(Kernel::map(
            &format!("fill_{}", catalogue::short(d)),
            vec![],
            vec![d],
            Expr::param(0, d),
        ));
        for k in ks {
            let (tag, spec) = &SPECS[i % SPECS.len()];
            i += 1;
            let mut k = k.clone();
            k.name = format!("{}_{tag}", k.name);
            let e = emit_elementwise(&k, spec, Flavor::Hip)
                .unwrap_or_else(|e| panic!("{}: {e}", k.name));
            ew.push((k.name.clone(), e.source[pre_len..].to_string()));
        }
    }
    let mut red = vec![];
    let keep: Vec<&str> = DTYPES.iter().map(|d| catalogue::short(*d)).collect();
    for (j, k) in catalogue::reductions().into_iter().enumerate() {
        if !keep.iter().any(|s| k.name.ends_with(&format!("_{s}"))) {
            continue;
        }
        let spec = ReduceSpec {
            out_ndim: 1 + j % 3,
            red_ndim: 1 + j % 2,
            index64: j % 2 == 0,
        };
        let e = emit_reduce(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        red.push((k.name.clone(), e.source[pre_len..].to_string()));
    }
    let mut conv = vec![];
    for d in [DType::Float32, DType::Float64, DType::Float16, DType::Int32] {
        let k = convolve2d(d);
        let spec = ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Contiguous,
            index64: d == DType::Float64,
        };
        let e =
            emit_elementwise(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        conv.push((k.name.clone(), e.source[pre_len..].to_string()));
    }
    let mut scatter = vec![];
    let all = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];
    for d in all {
        for op in [
            None,
            Some(AtomicOp::Add),
            Some(AtomicOp::Max),
            Some(AtomicOp::Min),
        ] {
            // Every launch class: strided, tiled (transposed operands), vectorized.
            for (tag, class) in [
                ("s", ElementwiseClass::Strided),
                ("t", ElementwiseClass::Tiled),
                ("v", ElementwiseClass::Vectorized),
            ] {
                let mut k = scatter_kernel(d, op);
                k.name = format!("{}_{tag}", k.name);
                let spec = ElementwiseSpec {
                    ndim: if class == ElementwiseClass::Vectorized {
                        1
                    } else {
                        2
                    },
                    class,
                    index64: d == DType::Float64,
                };
                let e = emit_elementwise(&k, &spec, Flavor::Hip)
                    .unwrap_or_else(|e| panic!("{}: {e}", k.name));
                scatter.push((k.name.clone(), e.source[pre_len..].to_string()));
            }
        }
    }
    let mut mods = vec![];
    for (n, chunk) in ew.chunks(120).enumerate() {
        mods.push((format!("elementwise_{n}"), chunk.to_vec()));
    }
    mods.push(("reductions".into(), red));
    let mut tuple = vec![];
    for (j, k) in catalogue::tuple_reductions().into_iter().enumerate() {
        let spec = ReduceSpec {
            out_ndim: 1 + j % 3,
            red_ndim: 1 + j % 2,
            index64: j % 2 == 1,
        };
        let e = emit_reduce(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        tuple.push((k.name.clone(), e.source[pre_len..].to_string()));
    }
    mods.push(("tuple_reductions".into(), tuple));
    mods.push(("elementwise_complex".into(), complex_kernels(pre_len)));
    mods.push(("convolve2d".into(), conv));
    mods.push(("scatter".into(), scatter));
    let mut ix = vec![];
    for (j, k) in indexing_kernels().into_iter().enumerate() {
        for (tag, spec) in &SPECS[..3] {
            let mut k = k.clone();
            k.name = format!("{}_{j}_{tag}", k.name);
            let e = emit_elementwise(&k, spec, Flavor::Hip)
                .unwrap_or_else(|e| panic!("{}: {e}", k.name));
            ix.push((k.name.clone(), e.source[pre_len..].to_string()));
        }
    }
    mods.push(("indexing".into(), ix));
    mods
}

/// Every complex catalogue kernel, the launch classes rotating over them (strided 1-D and 3-D,
/// contiguous, vectorized with 32- and 64-bit indices, tiled where its tiles fit), and the
/// complex reductions with several output/reduced ranks.
fn complex_kernels(pre_len: usize) -> Vec<(String, String)> {
    let tiled = (
        "t",
        ElementwiseSpec {
            ndim: 2,
            class: ElementwiseClass::Tiled,
            index64: false,
        },
    );
    let mut out = vec![];
    for (i, k) in catalogue::complex_elementwise().into_iter().enumerate() {
        let (tag, spec) = match i % (SPECS.len() + 1) {
            j if j < SPECS.len() => SPECS[j],
            _ if cupy_core::kernel::cpp::tiled_fits(&k) => tiled,
            _ => SPECS[0],
        };
        let mut k = k.clone();
        k.name = format!("{}_{tag}", k.name);
        let e =
            emit_elementwise(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        out.push((k.name.clone(), e.source[pre_len..].to_string()));
    }
    for (j, k) in catalogue::complex_reductions().into_iter().enumerate() {
        for (o, r, i64_) in [(1, 1, false), (2, 1, true), (3, 2, false)] {
            let mut k = k.clone();
            k.name = format!("{}_{o}{r}_{j}", k.name);
            let spec = ReduceSpec {
                out_ndim: o,
                red_ndim: r,
                index64: i64_,
            };
            let e =
                emit_reduce(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            out.push((k.name.clone(), e.source[pre_len..].to_string()));
        }
    }
    out
}

fn hip_kernel_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../hip-kernels");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("hip" | "cu" | "cpp")
                    )
                    // appended to radix_sort.cu (one module), compiled with it
                    && !p.ends_with("radix_select.cu")
                    && !p.ends_with("radix_sort_passes.cu")
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn hiprtc_compiles_every_kernel_family_for_amd_targets() {
    let rtc = match Rtc::get() {
        Ok(r) => r,
        Err(e) => {
            let _ = crate::skip(&format!("hipRTC not loadable: {e}"));
            return;
        }
    };
    let ver = rtc.version().expect("hiprtcVersion");
    eprintln!("hipRTC {}.{} from {}", ver.0, ver.1, rtc.path);
    let mods = modules();
    let files = hip_kernel_files();
    let pre = prelude(Flavor::Hip);
    // gfx942 (MI300) needs ROCm >= 5.7; ROCm 5.2's hipRTC *crashes* (SIGSEGV) on an offload
    // arch it does not know, so it is not even tried there.
    let runtime =
        cupy_hip::result::Hip::get().and_then(|h| h.runtime_version().map_err(|e| e.to_string()));
    let knows_942 = runtime.as_ref().is_ok_and(|v| *v >= 50_700_000);
    // (target, every kernel or one in three): the full set for gfx90a (CDNA2, wave64), a third
    // for RDNA2 gfx1030 (wave32), the probe only for gfx90a with target features.
    let targets = [
        ("gfx90a", Some(1)),
        ("gfx90a:sramecc+:xnack-", None),
        ("gfx942", Some(3)),
        ("gfx1030", Some(3)),
    ];
    for (target, every) in targets {
        if target == "gfx942" && !knows_942 {
            eprintln!("NOTICE: HIP runtime {runtime:?} predates gfx942 (ROCm 5.7); gfx942 skipped");
            continue;
        }
        let required = true;
        let opts = compile_options(target);
        let probe = format!(
            "{pre}extern \"C\" __global__ void cupy_probe(float* x) {{ x[threadIdx.x] = 1.0f; }}\n"
        );
        if let Err(e) = rtc.compile(&probe, "probe.hip", &opts) {
            assert!(
                !required,
                "hipRTC cannot compile a trivial kernel for {target}: {e}"
            );
            eprintln!(
                "NOTICE: hipRTC {}.{} does not support {target}; skipped ({})",
                ver.0, ver.1, e.text
            );
            continue;
        }
        let mut names = vec![];
        let Some(every) = every else {
            eprintln!("hipRTC {target}: options accepted (probe kernel compiled)");
            continue;
        };
        for (mname, kernels) in &mods {
            let kernels: Vec<&(String, String)> = if mname.starts_with("elementwise") {
                kernels.iter().step_by(every).collect()
            } else {
                kernels.iter().collect()
            };
            let body: String = kernels.iter().map(|k| k.1.as_str()).collect();
            let src = format!("{pre}{body}");
            let t0 = std::time::Instant::now();
            let r = rtc.compile(&src, &format!("{mname}.hip"), &opts);
            eprintln!(
                "hipRTC {target}: module {mname} ({} kernels) in {:.1?}",
                kernels.len(),
                t0.elapsed()
            );
            if let Err(e) = r {
                let log: Vec<&str> = e.log.lines().take(60).collect();
                panic!(
                    "hipRTC ({target}) failed on module {mname}: {}\n{}",
                    e.text,
                    log.join("\n")
                );
            }
            names.extend(kernels.iter().map(|k| k.0.clone()));
        }
        // hip-kernels/: assembled as the backend does (portability.h pasted in, the target's
        // wavefront size defined); a warning in our own code fails the test.
        let warp = if target.starts_with("gfx10") || target.starts_with("gfx11") {
            32
        } else {
            64
        };
        for f in &files {
            let text = if f.ends_with("radix_sort.cu") {
                hk_sources::RADIX_SORT_CU.to_string()
            } else {
                std::fs::read_to_string(f).unwrap()
            };
            let src = hk_sources::assemble(&text, warp);
            match rtc.compile(&src, &f.display().to_string(), &opts) {
                Err(e) => panic!(
                    "hipRTC ({target}) failed on {}: {e}\n{}",
                    f.display(),
                    e.log
                ),
                Ok((_, log)) => assert!(
                    !log.contains("warning"),
                    "hipRTC ({target}) warns on {}:\n{log}",
                    f.display()
                ),
            }
            names.push(f.display().to_string());
        }
        eprintln!(
            "hipRTC {target}: compiled {} kernels: {}",
            names.len(),
            names.join(" ")
        );
    }
    if files.is_empty() {
        eprintln!("NOTICE: no hip-kernels/ files exist yet; none compiled");
    }
}
