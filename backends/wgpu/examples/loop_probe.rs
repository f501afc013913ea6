//! Measures how a Vulkan driver limits shader loops (Mesa's llvmpipe stops every loop of an
//! invocation after a shared budget of about 65,535 back-edges). Each probe counts the loop
//! iterations that really ran and prints them next to the expected count.
//! `cargo run -p cupy-wgpu --example loop_probe`
use cupy_core::backend::{GemmCall, Operand, RawArg, RawLaunch};
use cupy_core::{Backend, BackendProvider, DType, Element, Layout, Scalar};
use std::sync::Arc;

fn run(d: &Arc<dyn Backend>, body: &str, a: u32, b: u32, wg: u32, groups: u32) -> Vec<u32> {
    let src = format!(
        "struct P {{ a: u32, b: u32 }}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size({wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let t = gid.x;
  var c = 0u;
{body}
  out[t] = c;
}}
"
    );
    let n = (wg * groups) as usize;
    let buf = d.alloc(DType::UInt32, n).unwrap();
    d.write(&buf, 0, u32::slice_as_bytes(&vec![0u32; n]))
        .unwrap();
    let args = [
        RawArg::Buffer {
            buffer: &buf,
            offset: 0,
        },
        RawArg::Scalar(Scalar::UInt32(a)),
        RawArg::Scalar(Scalar::UInt32(b)),
    ];
    d.raw_launch(&RawLaunch {
        source: &src,
        name: "main",
        options: &[],
        grid: [groups, 1, 1],
        block: [wg, 1, 1],
        shared_mem: 0,
        args: &args,
        name_expressions: &[],
    })
    .unwrap();
    u32::vec_from_bytes(&d.read(&buf, 0, n).unwrap())
}

fn main() {
    let p = cupy_wgpu::WgpuProvider;
    println!("{:?}", p.probe().expect("no wgpu adapter"));
    let d = p.open(0).unwrap();
    let show = |name: &str, body: &str, a: u32, b: u32, want: u64| {
        let v = run(&d, body, a, b, 64, 1);
        println!(
            "{name:<48} a={a:<7} b={b:<7} want={want:<8} got={:<8} {}",
            v[0],
            if v[0] as u64 == want { "ok" } else { "CUT" }
        );
    };
    let for1 = "  for (var i = 0u; i < p.a; i++) { c += 1u; }";
    for a in [65533, 65534, 65535, 65536, 70000, 1_000_000] {
        show("one for loop", for1, a, 0, a as u64);
    }
    let brk = "  var i = 0u;\n  loop { if (i >= p.a) { break; } c += 1u; i++; }";
    for a in [65534, 65535, 70000] {
        show("loop { if (i >= n) { break; } }", brk, a, 0, a as u64);
    }
    let wh = "  var i = 0u;\n  while (i < p.a) { c += 1u; i++; }";
    show("while", wh, 70000, 0, 70000);
    let seq = "  for (var i = 0u; i < p.a; i++) { c += 1u; }\n  for (var j = 0u; j < p.b; j++) { c += 1u; }";
    for (a, b) in [
        (30000, 30000),
        (40000, 40000),
        (32767, 32766),
        (32767, 32767),
    ] {
        show("two loops in sequence", seq, a, b, (a + b) as u64);
    }
    let nest = "  for (var i = 0u; i < p.a; i++) { for (var j = 0u; j < p.b; j++) { c += 1u; } }";
    for (a, b) in [(300, 300), (255, 255), (256, 255), (100, 1000), (2, 40000)] {
        show("nested a x b", nest, a, b, (a * b) as u64);
    }
    // Constant trip counts (the compiler may unroll or count differently).
    show(
        "constant bound 70000",
        "  for (var i = 0u; i < 70000u; i++) { c += 1u; }",
        0,
        0,
        70000,
    );
    show(
        "constant 300 x 300",
        "  for (var i = 0u; i < 300u; i++) { for (var j = 0u; j < 300u; j++) { c += 1u; } }",
        0,
        0,
        90000,
    );
    // Manually unrolled body: does the budget count back-edges or body passes?
    let unr = "  var i = 0u;\n  loop { if (i + 4u > p.a) { break; } c += 4u; i += 4u; }\n  for (; i < p.a; i++) { c += 1u; }";
    show("unrolled x4", unr, 200000, 0, 200000);
    // Divergent bound: lane t loops a + t times; which lanes are cut, and where?
    let div = "  for (var i = 0u; i < p.a + t * p.b; i++) { c += 1u; }";
    let v = run(&d, div, 65000, 100, 64, 1);
    println!("divergent: lane t loops 65000 + 100 t; got per lane: {v:?}");
    let v = run(&d, div, 60000, 1000, 64, 2);
    println!("divergent: lane t loops 60000 + 1000 t; got per lane: {v:?}");
    // Only lane 0 loops long: are its neighbours (same SIMD vector) affected?
    let one = "  let n = select(10u, p.a, t == 0u);\n  for (var i = 0u; i < n; i++) { c += 1u; }\n  for (var j = 0u; j < p.b; j++) { c += 1u; }";
    let v = run(&d, one, 70000, 5, 64, 1);
    println!(
        "lane 0 loops 70000 then 5, others 10 then 5: {:?}",
        &v[..16]
    );
    // With a workgroup barrier between two loops.
    let bar = "  for (var i = 0u; i < p.a; i++) { c += 1u; }\n  workgroupBarrier();\n  for (var j = 0u; j < p.b; j++) { c += 1u; }";
    show("two loops with a barrier between", bar, 40000, 40000, 80000);
    // A loop inside an if that no lane takes, inside a long loop: does the skipped loop cost?
    let skip = "  for (var i = 0u; i < p.a; i++) { c += 1u; if (t > 100000u) { for (var j = 0u; j < p.b; j++) { c += 1000000u; } } }";
    show("40000 x (if never { loop })", skip, 40000, 5, 40000);
    show("20000 x (if never { loop })", skip, 20000, 5, 20000);
    // A uniform-false if (the condition is a uniform).
    let skipu = "  for (var i = 0u; i < p.a; i++) { c += 1u; if (p.b > 100000u) { for (var j = 0u; j < p.b; j++) { c += 1000000u; } } }";
    show(
        "40000 x (if uniform-false { loop })",
        skipu,
        40000,
        5,
        40000,
    );
    // The tiled GEMM shader (shaders/gemm.wgsl) in one dispatch: the largest K it gets right.
    let raw = p.open_with_loop_budget(0, None).unwrap();
    let gemm_ok = |k: usize| {
        let a = vec![1f32; k];
        let ab = raw.alloc(DType::Float32, k).unwrap();
        raw.write(&ab, 0, f32::slice_as_bytes(&a)).unwrap();
        let c = raw.alloc(DType::Float32, 1).unwrap();
        let o = |b, s: &[usize]| Operand {
            buffer: b,
            layout: Layout::contiguous(s),
        };
        raw.gemm(&GemmCall {
            a: o(&ab, &[1, 1, k]),
            b: o(&ab, &[1, k, 1]),
            c: o(&c, &[1, 1, 1]),
        })
        .unwrap();
        f32::vec_from_bytes(&raw.read(&c, 0, 1).unwrap())[0] == k as f32
    };
    let (mut lo, mut hi) = (16usize, 1 << 20);
    while hi - lo > 16 {
        let mid = (lo + hi) / 2;
        if gemm_ok(mid) {
            lo = mid
        } else {
            hi = mid
        }
    }
    println!("one-dispatch GEMM right up to K = {lo} (wrong at {hi})");
    // Time per budget: many workgroups each loop 60000.
    let t = std::time::Instant::now();
    let v = run(&d, for1, 60000, 0, 256, 64);
    println!(
        "256x64 invocations x 60000 iterations: all ok = {}, {:.1} ms",
        v.iter().all(|&x| x == 60000),
        t.elapsed().as_secs_f64() * 1e3
    );
}
