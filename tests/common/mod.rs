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

fn isizes(v: &Value) -> Vec<isize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_i64().unwrap() as isize)
        .collect()
}
fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
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

// ---------------- comparison ----------------

/// How closely a float result must match NumPy's (integers and bools are always exact).
#[derive(Clone, Debug)]
pub enum Tol {
    /// Bit-exact; `zero_sign` also checks the sign of zeros.
    Exact { zero_sign: bool },
    /// At most this many ulps of the result dtype.
    Ulps(u64),
    /// At most this many ulps, or an absolute error up to the second value.
    UlpsOrAbs(u64, f64),
    /// `|d| <= 2 * n * eps * scale[i] + 1 ulp` (scale per element or one for all).
    Scaled { n: usize, scale: Scale },
    /// Complex values: each part within N ulps, or within N ulps of the largest part.
    Complex(u64),
}

#[derive(Clone, Debug)]
pub enum Scale {
    PerElement(Vec<f64>),
    Max(f64),
}

impl Tol {
    pub const EXACT: Tol = Tol::Exact { zero_sign: true };
}

pub fn decode_f64(dtype: DType, b: &[u8]) -> Vec<f64> {
    match dtype {
        DType::Float16 => b
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::Float32 => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        DType::Float64 => b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        d => b
            .chunks_exact(d.itemsize())
            .map(|c| Scalar::from_le_bytes(d, c).to_f64())
            .collect(),
    }
}

fn decode_int(dtype: DType, b: &[u8]) -> Vec<i128> {
    b.chunks_exact(dtype.itemsize())
        .map(|c| Scalar::from_le_bytes(dtype, c).to_i128())
        .collect()
}

/// Ordered integer key of a float in its own precision (so ulps are key differences).
fn key(dtype: DType, x: f64) -> i128 {
    match dtype {
        DType::Float16 => {
            let b = half::f16::from_f64(x).to_bits() as i16;
            (if b < 0 {
                i16::MIN as i32 - b as i32
            } else {
                b as i32
            }) as i128
        }
        DType::Float32 => {
            let b = (x as f32).to_bits() as i32;
            (if b < 0 {
                i32::MIN as i64 - b as i64
            } else {
                b as i64
            }) as i128
        }
        _ => {
            let b = x.to_bits() as i64;
            if b < 0 {
                i64::MIN as i128 - b as i128
            } else {
                b as i128
            }
        }
    }
}

pub fn ulps(dtype: DType, a: f64, b: f64) -> u128 {
    (key(dtype, a) - key(dtype, b)).unsigned_abs()
}

pub fn eps(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2f64.powi(-10),
        DType::BFloat16 => 2f64.powi(-7),
        DType::Float32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

fn ulp_of(dtype: DType, x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let e = eps(dtype);
    let min_normal = match dtype {
        DType::Float16 => 2f64.powi(-14),
        DType::Float32 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    };
    x.abs().max(min_normal) * e
}

/// Compares a device result with NumPy's: dtype, shape, then values under `tol`.
pub fn compare(got: &Array, want: &HostArray, tol: &Tol) -> std::result::Result<(), String> {
    if got.dtype() != want.dtype {
        return Err(format!("dtype: got {}, NumPy {}", got.dtype(), want.dtype));
    }
    if got.shape() != want.shape.as_slice() {
        return Err(format!(
            "shape: got {:?}, NumPy {:?}",
            got.shape(),
            want.shape
        ));
    }
    let bytes = got
        .to_bytes()
        .map_err(|e| format!("reading the result: {e}"))?;
    compare_bytes(want.dtype, &bytes, &want.bytes, tol)
}

pub fn compare_bytes(
    dtype: DType,
    got: &[u8],
    want: &[u8],
    tol: &Tol,
) -> std::result::Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "byte length: got {}, want {}",
            got.len(),
            want.len()
        ));
    }
    if dtype.is_complex() {
        return compare_complex(dtype, got, want, tol);
    }
    let mut bad = vec![];
    if !dtype.is_float() {
        let (g, w) = (decode_int(dtype, got), decode_int(dtype, want));
        for (i, (x, y)) in g.iter().zip(&w).enumerate() {
            if x != y {
                bad.push(format!("[{i}] got {x}, want {y}"));
            }
        }
    } else {
        let (g, w) = (decode_f64(dtype, got), decode_f64(dtype, want));
        for (i, (&x, &y)) in g.iter().zip(&w).enumerate() {
            let ok = if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                match tol {
                    Tol::Exact { zero_sign } => {
                        x == y
                            && (!zero_sign
                                || x != 0.0
                                || x.is_sign_negative() == y.is_sign_negative())
                    }
                    Tol::Ulps(n) => ulps(dtype, x, y) <= *n as u128,
                    Tol::UlpsOrAbs(n, a) => ulps(dtype, x, y) <= *n as u128 || (x - y).abs() <= *a,
                    Tol::Scaled { n, scale } => {
                        let s = match scale {
                            Scale::PerElement(v) => v.get(i).copied().unwrap_or(0.0),
                            Scale::Max(m) => *m,
                        };
                        (x - y).abs() <= 2.0 * *n as f64 * eps(dtype) * s + ulp_of(dtype, y)
                    }
                    Tol::Complex(n) => ulps(dtype, x, y) <= *n as u128,
                }
            };
            if !ok {
                bad.push(format!(
                    "[{i}] got {x:e}, want {y:e} ({} ulps)",
                    ulps(dtype, x, y)
                ));
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        let n = bad.len();
        bad.truncate(6);
        Err(format!(
            "{n} element(s) differ ({:?}): {}",
            tol,
            bad.join("; ")
        ))
    }
}

/// [`compare_bytes`] for complex dtypes (see the module docs).
fn compare_complex(
    dtype: DType,
    got: &[u8],
    want: &[u8],
    tol: &Tol,
) -> std::result::Result<(), String> {
    let part = dtype.real_dtype();
    let (g, w) = (decode_f64(part, got), decode_f64(part, want));
    let mut bad = vec![];
    for e in 0..g.len() / 2 {
        let big = w[2 * e].abs().max(w[2 * e + 1].abs());
        let ok = (0..2).all(|p| {
            let (x, y) = (g[2 * e + p], w[2 * e + p]);
            if x.is_nan() || y.is_nan() {
                return x.is_nan() && y.is_nan();
            }
            if x.is_infinite() || y.is_infinite() {
                return x == y;
            }
            match tol {
                Tol::Exact { zero_sign } => {
                    x == y
                        && (!zero_sign || x != 0.0 || x.is_sign_negative() == y.is_sign_negative())
                }
                Tol::Ulps(n) => ulps(part, x, y) <= *n as u128,
                Tol::UlpsOrAbs(n, a) => ulps(part, x, y) <= *n as u128 || (x - y).abs() <= *a,
                Tol::Complex(n) => {
                    ulps(part, x, y) <= *n as u128
                        || (big.is_finite() && (x - y).abs() <= *n as f64 * eps(part) * big)
                }
                Tol::Scaled { n, scale } => {
                    let s = match scale {
                        Scale::PerElement(v) => v.get(e).copied().unwrap_or(0.0),
                        Scale::Max(m) => *m,
                    };
                    (x - y).abs() <= 2.0 * *n as f64 * eps(part) * s + ulp_of(part, y)
                }
            }
        });
        if !ok {
            bad.push(format!(
                "[{e}] got ({:e}, {:e}), want ({:e}, {:e})",
                g[2 * e],
                g[2 * e + 1],
                w[2 * e],
                w[2 * e + 1]
            ));
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let n = bad.len();
    bad.truncate(6);
    Err(format!(
        "{n} element(s) differ ({tol:?}): {}",
        bad.join("; ")
    ))
}

// ---------------- tallies ----------------

#[derive(Default, Debug, Clone, Copy)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// Per-backend counts of one test, with the failures; [`Tally::finish`] prints and asserts.
pub struct Tally {
    name: String,
    per: BTreeMap<String, Counts>,
    failures: Vec<String>,
    skips: Vec<String>,
}

impl Tally {
    pub fn new(name: &str) -> Tally {
        Tally {
            name: name.into(),
            per: BTreeMap::new(),
            failures: vec![],
            skips: vec![],
        }
    }
    fn c(&mut self, dev: &Device) -> &mut Counts {
        self.per.entry(dev.label()).or_default()
    }
    pub fn pass(&mut self, dev: &Device) {
        self.c(dev).passed += 1;
    }
    pub fn fail(&mut self, dev: &Device, case: &str, msg: impl std::fmt::Display) {
        self.c(dev).failed += 1;
        self.failures
            .push(format!("FAIL [{}] {case}: {msg}", dev.label()));
    }
    pub fn skip(&mut self, dev: &Device, case: &str, why: impl std::fmt::Display) {
        self.c(dev).skipped += 1;
        self.skips
            .push(format!("skip [{}] {case}: {why}", dev.label()));
    }
    /// Records `r`: Ok passes; `DTypeNotSupported` skips; other errors fail.
    pub fn check(&mut self, dev: &Device, case: &str, r: std::result::Result<(), CaseError>) {
        match r {
            Ok(()) => self.pass(dev),
            Err(CaseError::Skip(w)) => self.skip(dev, case, w),
            Err(CaseError::Fail(w)) => self.fail(dev, case, w),
        }
    }
    pub fn finish(self) {
        for s in &self.skips {
            println!("{s}");
        }
        for f in &self.failures {
            println!("{f}");
        }
        for (dev, c) in &self.per {
            let line = format!(
                "{}: [{dev}] {} passed, {} failed, {} skipped (DTypeNotSupported)",
                self.name, c.passed, c.failed, c.skipped
            );
            println!("{line}");
            report(&format!("{} {line}", dev.split(':').next().unwrap_or("?")));
        }
        if !self.failures.is_empty() {
            let mut head: Vec<&String> = self.failures.iter().take(25).collect();
            let more = self.failures.len().saturating_sub(head.len());
            let extra = format!("... and {more} more (run with --nocapture to see all)");
            if more > 0 {
                head.push(&extra);
            }
            panic!(
                "{}: {} case(s) failed:\n{}",
                self.name,
                self.failures.len(),
                head.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// Why one case did not pass.
pub enum CaseError {
    Skip(String),
    Fail(String),
}

impl From<Error> for CaseError {
    fn from(e: Error) -> CaseError {
        match e {
            Error::DTypeNotSupported { .. } => CaseError::Skip(e.to_string()),
            e => CaseError::Fail(format!("unexpected error: {e}")),
        }
    }
}
impl From<String> for CaseError {
    fn from(s: String) -> CaseError {
        CaseError::Fail(s)
    }
}

/// Runs every case of a golden group on every backend.
///
/// `exec` computes the case's result on the device; `tol` picks the float tolerance;
/// `expect_err` says whether an error matches the NumPy exception the case records.
pub fn run_group(
    group: &str,
    exec: impl Fn(&Golden, &Value, &[Operand], &Device) -> Result<Array>,
    tol: impl Fn(&Golden, &Value, &Device) -> Tol,
    expect_err: impl Fn(&Value, &Error) -> bool,
) {
    let g = Golden::load(group);
    let mut t = Tally::new(group);
    // Bisecting a driver hang: CUPY_GOLDEN_TRACE prints each case id before it runs (the last
    // one printed is the culprit); CUPY_GOLDEN_SKIP lists case ids (comma-separated) to leave out.
    let trace = std::env::var_os("CUPY_GOLDEN_TRACE").is_some();
    let skip = std::env::var("CUPY_GOLDEN_SKIP").unwrap_or_default();
    let skip: Vec<&str> = skip.split(',').filter(|s| !s.is_empty()).collect();
    for dev in backends() {
        for case in &g.cases {
            let id = case["id"].as_str().unwrap();
            if skip.contains(&id) {
                continue;
            }
            if trace {
                use std::io::Write;
                eprintln!("golden {group} {} {id}", dev.label());
                let _ = std::io::stderr().flush();
            }
            let r = run_case(&g, case, &dev, &exec, &tol, &expect_err);
            t.check(&dev, id, r);
        }
    }
    t.finish();
}

fn run_case(
    g: &Golden,
    case: &Value,
    dev: &Device,
    exec: &impl Fn(&Golden, &Value, &[Operand], &Device) -> Result<Array>,
    tol: &impl Fn(&Golden, &Value, &Device) -> Tol,
    expect_err: &impl Fn(&Value, &Error) -> bool,
) -> std::result::Result<(), CaseError> {
    let ops = match operands(g, case, dev) {
        Ok(o) => o,
        Err(e) if case.get("error").is_some() && expect_err(case, &e) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let r = exec(g, case, &ops, dev);
    if let Some(err) = case.get("error") {
        return match r {
            Ok(a) => Err(CaseError::Fail(format!(
                "NumPy raises {} ({}), got a {} array of shape {:?}",
                err,
                case["message"].as_str().unwrap_or(""),
                a.dtype(),
                a.shape()
            ))),
            Err(e) if expect_err(case, &e) => Ok(()),
            Err(e @ Error::DTypeNotSupported { .. }) => Err(CaseError::Skip(e.to_string())),
            Err(e) => Err(CaseError::Fail(format!(
                "NumPy raises {err} ({}), got a different error: {e:?}",
                case["message"].as_str().unwrap_or("")
            ))),
        };
    }
    let got = r?;
    let want = g.array(case["expected"].as_str().unwrap());
    let tol = tol(g, case, dev);
    compare(&got, &want, &tol).map_err(|m| {
        // A DTypeNotSupported surfacing on read is still a skip.
        CaseError::Fail(m)
    })?;
    // Inputs must be unchanged by the op (they are views of fresh uploads).
    Ok(())
}

/// Maps NumPy's generic exception names to our variants (groups refine ValueError).
pub fn generic_error_match(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "TypeError" => matches!(e, Error::TypeError { .. }),
        "OverflowError" => matches!(e, Error::ScalarOverflow { .. }),
        _ => false,
    }
}

/// `Tol::Scaled` from a case's `scale` (array) or `scale_max` (number) and `n`.
pub fn scaled_tol(g: &Golden, case: &Value) -> Tol {
    let n = case["n"].as_u64().unwrap_or(1) as usize;
    let scale = if let Some(s) = case.get("scale") {
        Scale::PerElement(g.array(s.as_str().unwrap()).f64s())
    } else if let Some(m) = case.get("scale_max") {
        Scale::Max(m.as_f64().unwrap())
    } else {
        return Tol::EXACT;
    };
    Tol::Scaled { n, scale }
}

/// True if `dev` is a wgpu device.
pub fn is_wgpu(dev: &Device) -> bool {
    dev.kind() == BackendKind::Wgpu
}

/// Appends a line to the file named by `CUPY_TEST_REPORT` (CI checks which backends ran).
pub fn report(line: &str) {
    if let Some(path) = std::env::var_os("CUPY_TEST_REPORT") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}
