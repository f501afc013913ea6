//! Test harness: backend selection (`CUPY_TEST_BACKENDS`), golden loading (`tests/golden/*.json`
//! + `*.npys`), device-side view recipes, dtype-aware comparison and per-backend tallies.
//!
//! # Tolerances (see [`Tol`])
//! - Integers and bools: always exact (NumPy's wrapping semantics).
//! - [`Tol::Exact`]: bit-exact floats (NaN positions must match, the sign of zero too unless the
//!   op is `maximum`/`minimum`/`fmax`/`fmin`, whose choice between `0.0` and `-0.0` is
//!   unspecified). Used for results IEEE 754 defines exactly: `+ - *`, `/` and `sqrt` (correctly
//!   rounded) on the cpu/cuda/hip backends, comparisons, `floor`/`ceil`, casts, copies/views and
//!   creation of exactly representable values.
//! - [`Tol::Ulps`]: at most N units in the last place of the result dtype (infinities must match
//!   exactly). Transcendentals (`exp log sin cos tan tanh arctan2`): float16 1 ulp (NumPy computes
//!   them in float32 and rounds), float32/float64 4 ulps. `power` 4 ulps. `remainder` on floats
//!   2 ulps. Float `arange`/`linspace` 1 ulp (NumPy's fill works in the target dtype, we in
//!   float64). On wgpu, Vulkan only guarantees 2.5 ulps for `/` and ~3 for `sqrt` (and leaves
//!   transcendentals looser: float32 exp/log/sin/cos/tan/tanh 32 ulps or 2^-21 absolute,
//!   arctan2 256 ulps where Vulkan allows 4096; see `ufuncs::tol`), so these get 3 ulps there.
//! - [`Tol::UlpsOrAbs`]: N ulps or an absolute error (Vulkan states `sin`/`cos`/`log` precision as
//!   an absolute error near their zeros).
//! - [`Tol::Scaled`]: sums, means, products, matmul and convolutions: `|got - want| <= 2 * n *
//!   eps(dtype) * scale + 1 ulp(want)`, where `n` is the reduction length and `scale` is the same
//!   reduction over the absolute values (per element for reductions, the largest entry for
//!   matmul/convolve2d): the worst-case bound of any summation order, so a result off by more
//!   is wrong rather than differently rounded.
//! - Complex results are compared part by part in the precision of the parts (float32 for
//!   complex64): NaN and infinity positions exactly, [`Tol::Exact`]/[`Tol::Ulps`] per part,
//!   [`Tol::Scaled`] with one scale per complex element, and [`Tol::Complex`] (complex math
//!   functions) as each part within N ulps *or* within N ulps of the value's largest part
//!   (normwise: a part near zero next to a large one carries the large one's rounding).

#![allow(dead_code)]

use cupy::{Array, BackendKind, DType, Device, Error, Result, Scalar, SliceItem, WeakScalar};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;

mod compare;
mod tally;
pub use compare::*;
pub use tally::*;

// ---------------- backends ----------------

/// The devices every test runs on: `CUPY_TEST_BACKENDS` (comma list of cpu,wgpu,cuda,hip), each of
/// which must open (else the calling test fails naming the reason); when unset, the cpu plus any
/// other backend that opens (a notice is printed for the others).
pub fn backends() -> Vec<Device> {
    static B: OnceLock<std::result::Result<Vec<Device>, String>> = OnceLock::new();
    B.get_or_init(|| {
        let listed = std::env::var("CUPY_TEST_BACKENDS").ok().filter(|s| !s.trim().is_empty());
        let mut out = vec![];
        match listed {
            Some(list) => {
                for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let kind = match BackendKind::parse(name) {
                        Ok(Some(k)) => k,
                        Ok(None) => return Err(format!("CUPY_TEST_BACKENDS: {name:?} is not a backend")),
                        Err(e) => return Err(format!("CUPY_TEST_BACKENDS: {e}")),
                    };
                    match Device::get(kind, 0) {
                        Ok(d) => out.push(d),
                        Err(e) => {
                            return Err(format!(
                                "CUPY_TEST_BACKENDS lists {name} but it does not open: {e}"
                            ))
                        }
                    }
                }
            }
            None => {
                match Device::get(BackendKind::Cpu, 0) {
                    Ok(d) => out.push(d),
                    Err(e) => return Err(format!("the cpu backend does not open: {e}")),
                }
                for kind in [BackendKind::Cuda, BackendKind::Hip, BackendKind::Wgpu] {
                    match Device::get(kind, 0) {
                        Ok(d) => out.push(d),
                        Err(e) => println!(
                            "notice: backend {} skipped (not listed in CUPY_TEST_BACKENDS and unavailable: {e})",
                            kind.name()
                        ),
                    }
                }
            }
        }
        let labels: Vec<String> = out.iter().map(|d| d.label()).collect();
        println!("testing on: {}", labels.join(", "));
        Ok(out)
    })
    .clone()
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `body` with wgpu's native factorizations forced on (llvmpipe's default is the host
/// hybrid) and, when a wgpu device is listed (and `CUPY_WGPU_LINALG` is not `0`), asserts that
/// some factorization took them (`cupy_wgpu::native_linalg_calls`).
pub fn with_native_wgpu_linalg(body: impl FnOnce()) {
    use cupy_wgpu::{
        native_linalg_calls, native_linalg_expected, with_native_linalg, NativeLinalg,
    };
    let before = native_linalg_calls();
    let expected = with_native_linalg(NativeLinalg::On, || {
        body();
        backends()
            .iter()
            .any(|d| d.kind() == BackendKind::Wgpu && native_linalg_expected(d.info().software))
    });
    if expected {
        assert!(
            native_linalg_calls() > before,
            "no factorization took wgpu's native kernels (the host hybrid ran instead)"
        );
    }
}

/// Two distinct backends, if available (for cross-backend comparisons).
pub fn backend_pair() -> Option<(Device, Device)> {
    let b = backends();
    if b.len() >= 2 {
        Some((b[0].clone(), b[1].clone()))
    } else {
        None
    }
}

// ---------------- data files ----------------

/// `tests/<rel>` resolved from the crate's manifest dir, falling back to the current directory
/// (test binaries copied to another machine run from the repository root).
pub fn data_path(rel: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(rel);
    if p.exists() {
        return p;
    }
    PathBuf::from("tests").join(rel)
}

/// An array as NumPy stored it: dtype, shape, C-order little-endian bytes.
#[derive(Clone, Debug)]
pub struct HostArray {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl HostArray {
    pub fn upload(&self, dev: &Device) -> Result<Array> {
        Array::from_bytes_on(dev, &self.bytes, &self.shape, self.dtype)
    }
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn f64s(&self) -> Vec<f64> {
        decode_f64(self.dtype, &self.bytes)
    }
}

/// One golden group: the manifest and the packed arrays.
pub struct Golden {
    pub group: String,
    pub cases: Vec<Value>,
    pack: Vec<u8>,
    index: HashMap<String, (usize, usize)>,
}

impl Golden {
    pub fn load(group: &str) -> Golden {
        let jp = data_path(&format!("golden/{group}.json"));
        let text = std::fs::read_to_string(&jp).unwrap_or_else(|e| panic!("{}: {e}", jp.display()));
        let man: Value = serde_json::from_str(&text).expect("golden manifest is JSON");
        let pp = data_path(&format!("golden/{group}.npys"));
        let pack = std::fs::read(&pp).unwrap_or_else(|e| panic!("{}: {e}", pp.display()));
        let index = man["arrays"]
            .as_object()
            .expect("arrays")
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    (
                        v[0].as_u64().unwrap() as usize,
                        v[1].as_u64().unwrap() as usize,
                    ),
                )
            })
            .collect();
        let mut cases = man["cases"].as_array().expect("cases").clone();
        if let Ok(f) = std::env::var("CUPY_TEST_FILTER") {
            cases.retain(|c| c["id"].as_str().unwrap_or("").contains(&f));
        }
        Golden {
            group: group.into(),
            cases,
            pack,
            index,
        }
    }

    /// Reads one stored array (a complete .npy file inside the pack) with npyz.
    pub fn array(&self, name: &str) -> HostArray {
        let (off, len) = self.index[name];
        let mut r: &[u8] = &self.pack[off..off + len];
        let h = npyz::NpyHeader::from_reader(&mut r).expect("npy header");
        assert_eq!(h.order(), npyz::Order::C, "{name}: goldens are C order");
        let descr = match h.dtype() {
            npyz::DType::Plain(ts) => ts.to_string(),
            other => panic!("{name}: unexpected npy dtype {}", other.descr()),
        };
        let dtype = DType::from_name(&descr[1..])
            .unwrap_or_else(|| panic!("{name}: unknown npy dtype {descr}"));
        // Read the shape tuple from the header text too (a 0-d array must stay 0-d).
        let text = String::from_utf8_lossy(&self.pack[off..off + len.min(256)]);
        let tuple = text
            .split("'shape': (")
            .nth(1)
            .and_then(|t| t.split(')').next())
            .unwrap_or_else(|| panic!("{name}: no shape in the npy header"));
        let shape: Vec<usize> = tuple
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().expect("shape entry"))
            .collect();
        let hs: Vec<usize> = h.shape().iter().map(|&d| d as usize).collect();
        assert!(
            hs == shape || (shape.is_empty() && hs == [1]),
            "{name}: npy shape {hs:?} vs {shape:?}"
        );
        let n: usize = shape.iter().product();
        assert_eq!(r.len(), n * dtype.itemsize(), "{name}: data length");
        HostArray {
            dtype,
            shape,
            bytes: r.to_vec(),
        }
    }
}

// ---------------- operands and views ----------------

/// A case operand on a device.
pub enum Operand {
    Arr(Array),
    Weak(WeakScalar),
}

impl Operand {
    pub fn arg(&self) -> cupy::Arg<'_> {
        match self {
            Operand::Arr(a) => cupy::Arg::Array(a),
            Operand::Weak(w) => cupy::Arg::Weak(*w),
        }
    }
    pub fn array(&self) -> &Array {
        match self {
            Operand::Arr(a) => a,
            Operand::Weak(_) => panic!("operand is a scalar"),
        }
    }
}

/// A float from JSON: a number or "nan"/"inf"/"-inf".
pub fn json_f64(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("bad float {other}"),
        },
        Value::Bool(b) => *b as u8 as f64,
        v => v.as_f64().expect("number"),
    }
}

/// Builds the operands of a case on `dev`: uploads base arrays and applies their view recipes.
pub fn operands(g: &Golden, case: &Value, dev: &Device) -> Result<Vec<Operand>> {
    let mut out = vec![];
    for inp in case["inputs"].as_array().expect("inputs") {
        if let Some(name) = inp.get("array") {
            let base = g.array(name.as_str().unwrap()).upload(dev)?;
            out.push(Operand::Arr(apply_view(&base, &inp["view"])?));
        } else {
            let v = &inp["value"];
            let w = match inp["weak"].as_str().unwrap() {
                "int" => {
                    let i = v
                        .as_i64()
                        .map(|i| i as i128)
                        .or_else(|| v.as_u64().map(|u| u as i128))
                        // Beyond 64 bits serde_json keeps a float (exact for the powers of two
                        // the goldens use).
                        .or_else(|| v.as_f64().map(|f| f as i128))
                        .expect("int");
                    WeakScalar::Int(i)
                }
                "bool" => WeakScalar::Bool(v.as_bool().unwrap()),
                "float" => WeakScalar::Float(json_f64(v)),
                k => panic!("weak kind {k}"),
            };
            out.push(Operand::Weak(w));
        }
    }
    Ok(out)
}

/// A JSON list of integers as `isize`s.
pub fn isizes(v: &Value) -> Vec<isize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_i64().unwrap() as isize)
        .collect()
}
/// A JSON list of non-negative integers as `usize`s.
pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// A golden case's `axis`: null (all axes), one integer or a list.
pub fn axes(v: &Value) -> cupy::Axes {
    match v {
        Value::Null => cupy::Axes::All,
        Value::Number(n) => cupy::Axes::Some(vec![n.as_i64().unwrap() as isize]),
        Value::Array(_) => cupy::Axes::Some(isizes(v)),
        other => panic!("axis {other}"),
    }
}

/// Converts one JSON slice item (int, [start, stop, step], "newaxis", "...").
pub fn slice_item(it: &Value) -> SliceItem {
    match it {
        Value::Number(n) => SliceItem::Index(n.as_i64().unwrap() as isize),
        Value::String(s) if s == "newaxis" => SliceItem::NewAxis,
        Value::String(s) if s == "..." => SliceItem::Ellipsis,
        Value::Array(v) => {
            let get = |i: usize| v.get(i).and_then(|x| x.as_i64()).map(|x| x as isize);
            SliceItem::Slice {
                start: get(0),
                stop: get(1),
                step: get(2).unwrap_or(1),
            }
        }
        other => panic!("bad slice item {other}"),
    }
}

/// Applies a view recipe (see gen.py) on the device.
pub fn apply_view(a: &Array, steps: &Value) -> Result<Array> {
    let mut a = a.clone();
    for s in steps.as_array().map(|v| v.as_slice()).unwrap_or(&[]) {
        a = match s["op"].as_str().unwrap() {
            "T" => a.t(),
            "transpose" => a.transpose(&isizes(&s["axes"]))?,
            "slice" => {
                let items: Vec<SliceItem> = s["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(slice_item)
                    .collect();
                a.slice(&items)?
            }
            "broadcast_to" => a.broadcast_to(&usizes(&s["shape"]))?,
            "reshape" => a.reshape(&isizes(&s["shape"]))?,
            "swapaxes" => a.swapaxes(
                s["a"].as_i64().unwrap() as isize,
                s["b"].as_i64().unwrap() as isize,
            )?,
            "expand_dims" => a.expand_dims(s["axis"].as_i64().unwrap() as isize)?,
            "squeeze" => a.squeeze(),
            op => panic!("unknown view op {op}"),
        };
    }
    Ok(a)
}

pub fn dtype_of(v: &Value) -> DType {
    DType::from_name(v.as_str().expect("dtype name")).expect("known dtype")
}

/// Whether `dev` flushes float32 subnormals to zero in arithmetic (NVIDIA's Vulkan driver does:
/// its SPIR-V runs without `DenormPreserve`, which naga cannot request): the smallest subnormal
/// added to itself on the device gives 0 there. Probed once per device.
pub fn flushes_f32_subnormals(dev: &Device) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let key = dev.label();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(&f) = seen.lock().unwrap().get(&key) {
        return f;
    }
    let tiny = f32::from_bits(1);
    let flushes = Array::from_bytes_on(dev, &tiny.to_le_bytes(), &[1], DType::Float32)
        .and_then(|x| cupy::add(&x, &x))
        .and_then(|y| y.to_vec::<f32>())
        .map(|v| v[0] == 0.0)
        .unwrap_or(false);
    seen.lock().unwrap().insert(key, flushes);
    flushes
}

/// Whether a golden float32 array holds a subnormal value.
pub fn has_f32_subnormal(a: &HostArray) -> bool {
    a.dtype == DType::Float32
        && a.f64s()
            .iter()
            .any(|&v| v != 0.0 && (v as f32).abs() < f32::MIN_POSITIVE)
}

/// Emits elementwise `kernels` as CUDA C++ (checked only) and as HIP C++, and compiles the HIP
/// module with hipRTC for gfx90a (skipped with a notice when hipRTC does not load, unless
/// `CUPY_REQUIRE_HIP=1`). Each kernel is renamed `{name}_{n}` so repeated names cannot clash;
/// `tag` names the module and the report line.
pub fn elementwise_kernels_compile_with_hiprtc(tag: &str, kernels: &[cupy::core::kernel::Kernel]) {
    use cupy::core::kernel::cpp::{
        emit_elementwise, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
    };
    let spec = ElementwiseSpec {
        ndim: 1,
        class: ElementwiseClass::Strided,
        index64: false,
    };
    for k in kernels {
        k.validate().unwrap_or_else(|e| panic!("{}: {e}", k.name));
        emit_elementwise(k, &spec, Flavor::Cuda)
            .unwrap_or_else(|e| panic!("{}: CUDA emission: {e}", k.name));
    }
    let Some(rtc) = hiprtc_or_skip() else {
        return;
    };
    let pre = prelude(Flavor::Hip);
    let mut body = String::new();
    for (n, k) in kernels.iter().enumerate() {
        let mut k = k.clone();
        k.name = format!("{}_{n}", k.name);
        let e = emit_elementwise(&k, &spec, Flavor::Hip)
            .unwrap_or_else(|e| panic!("{}: HIP emission: {e}", k.name));
        body.push_str(&e.source[pre.len()..]);
    }
    let opts = cupy_hip::kernels::compile_options("gfx90a");
    if let Err(e) = rtc.compile(&format!("{pre}{body}"), &format!("{tag}.hip"), &opts) {
        let log: Vec<&str> = e.log.lines().take(60).collect();
        panic!("hipRTC failed: {}\n{}", e.text, log.join("\n"));
    }
    report(&format!("hip {tag} gfx90a {} kernels", kernels.len()));
}

/// AMD's hipRTC for the kernel-compile tests, or `None` (a notice printed, the test to return)
/// when it does not load; with `CUPY_REQUIRE_HIP=1` (as CI sets it) a missing hipRTC fails.
pub fn hiprtc_or_skip() -> Option<std::sync::Arc<cupy_hip::result::Rtc>> {
    match cupy_hip::result::Rtc::get() {
        Ok(r) => Some(r),
        Err(e) => {
            assert!(
                std::env::var("CUPY_REQUIRE_HIP").as_deref() != Ok("1"),
                "CUPY_REQUIRE_HIP=1 but hipRTC is not loadable: {e}"
            );
            eprintln!("NOTICE: skipping: hipRTC not loadable: {e}");
            None
        }
    }
}

/// Runs the ignored test `name` (module path, e.g. `memory::memory_limit_zero_child`) of this
/// test binary in a child process with the environment variables `env` set (for variables read
/// once per process), and panics with the child's output unless it passed.
pub fn run_ignored_child(name: &str, env: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["--exact", name, "--ignored", "--nocapture"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{name} with {env:?}: {text}"
    );
}
