//! GEMM through the tiled WGSL kernel (`shaders/gemm.wgsl`), K in slices on capped drivers.

use crate::{hash_of, plan_budget, WgpuBackend};
use cupy_core::backend::{dtype_unsupported, Buffer, GemmCall, Operand};
use cupy_core::kernel::wgsl::{self, MetaLayout};
use cupy_core::{DType, Error, Layout, Result};

const GEMM_WGSL: &str = include_str!("../../../shaders/gemm.wgsl");

/// The shape of the GEMM kernel's work: each invocation of a 16x16 workgroup computes an
/// `rm` x `rn` block of C (so a workgroup a `16 rm` x `16 rn` tile), K advances in slices of
/// `bk` staged through workgroup memory, in two buffers when `double` (the next slice's global
/// loads issued before the current slice's products: one barrier per slice). Written
/// `RMxRNxBK`, with a trailing `d` when double-buffered (`8x4x16d`), in
/// `CUPY_WGPU_GEMM_SHAPE` and `CUPY_WGPU_GEMM_SHAPE_F64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmShape {
    /// Rows of C per invocation (1 to 8).
    pub rm: usize,
    /// Columns of C per invocation (1 to 8).
    pub rn: usize,
    /// The k slice (4, 8, 16 or 32; `16 rm bk` and `16 rn bk` multiples of 256).
    pub bk: usize,
    /// Two workgroup tile buffers, the next slice loaded while this one is multiplied.
    pub double: bool,
}

impl GemmShape {
    /// A square `rt` x `rt` block with the k slice the kernel has used for it (16 for 4x4, 8
    /// for 8x8), single-buffered.
    pub const fn square(rt: usize) -> GemmShape {
        GemmShape {
            rm: rt,
            rn: rt,
            bk: if rt >= 8 { 8 } else { 16 },
            double: false,
        }
    }

    /// Parses `RMxRNxBK` with an optional trailing `d` (double-buffered), e.g. `8x4x16d`.
    pub fn parse(s: &str) -> Option<GemmShape> {
        let s = s.trim();
        let (s, double) = match s.strip_suffix('d') {
            Some(r) => (r, true),
            None => (s, false),
        };
        let v: Vec<usize> = s
            .split('x')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        let &[rm, rn, bk] = v.as_slice() else {
            return None;
        };
        let sh = GemmShape { rm, rn, bk, double };
        sh.valid().then_some(sh)
    }

    /// Whether the generator can write this shape: blocks of 1 to 8 rows and columns, a k
    /// slice of 4 to 32 (a power of two) whose tiles split evenly over the 256 invocations.
    pub fn valid(&self) -> bool {
        (1..=8).contains(&self.rm)
            && (1..=8).contains(&self.rn)
            && matches!(self.bk, 4 | 8 | 16 | 32)
            && (16 * self.rm * self.bk).is_multiple_of(256)
            && (16 * self.rn * self.bk).is_multiple_of(256)
    }

    /// Workgroup memory of the tiles for elements of `elem` bytes.
    pub fn workgroup_bytes(&self, elem: usize) -> usize {
        (1 + usize::from(self.double)) * 16 * (self.rm + self.rn) * self.bk * elem
    }
}

impl std::fmt::Display for GemmShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = if self.double { "d" } else { "" };
        write!(f, "{}x{}x{}{d}", self.rm, self.rn, self.bk)
    }
}

/// The generated parts of `shaders/gemm.wgsl` for `sh` (the marks `ACC_DECL`, `PROLOGUE`,
/// `FETCH`, `INNER`, `COMMIT`, `STORE`): with `straight`, the accumulators are `rm rn` named
/// scalars and the block's loads, products and stores straight-line code; else loops over
/// function-local arrays (which a driver must unroll to keep the block in registers;
/// `CUPY_WGPU_GEMM_LOOPS=1`, for comparison). The tile loads are straight-line in both.
fn gemm_block_text(sh: GemmShape, straight: bool) -> [String; 6] {
    use std::fmt::Write;
    let GemmShape { rm, rn, bk, double } = sh;
    let (la, lb) = (rm * bk / 16, rn * bk / 16);
    let (abuf, bbuf) = (16 * rm * bk, 16 * rn * bk);
    // Workgroup index of A-tile element `e` (As is [BK][BM]; e walks k fastest) and of B-tile
    // element `e` (Bs is [BK][BN], as e walks it).
    let a_at = |l: usize, buf: &str| {
        format!(
            "{buf}(li + {}u) % BK * BM + (li + {}u) / BK",
            l * 256,
            l * 256
        )
    };
    let b_at = |l: usize, buf: &str| format!("{buf}li + {}u", l * 256);
    // The loads of slice `k`'s tile elements that this invocation stages, one line each (A's
    // then B's), into `a_dst(l)` and `b_dst(l)`.
    let loads = |indent: &str,
                 k: &str,
                 a_dst: &dyn Fn(usize) -> String,
                 b_dst: &dyn Fn(usize) -> String| {
        let mut s = String::new();
        for l in 0..la {
            let _ = writeln!(
                s,
                "{indent}{} = load_a(abase, row0, {k}, li + {}u);",
                a_dst(l),
                l * 256
            );
        }
        for l in 0..lb {
            let _ = writeln!(
                s,
                "{indent}{} = load_b(bbase, col0, {k}, li + {}u);",
                b_dst(l),
                l * 256
            );
        }
        s
    };
    let a_tile = |l: usize| format!("As[{}]", a_at(l, ""));
    let b_tile = |l: usize| format!("Bs[{}]", b_at(l, ""));
    let (mut prologue, mut fetch, mut commit) = (String::new(), String::new(), String::new());
    if double {
        prologue.push_str("  var buf = 0u;\n  if (mt.kb < mt.ke) {\n");
        prologue.push_str(&loads("    ", "mt.kb", &a_tile, &b_tile));
        prologue.push_str("  }\n  workgroupBarrier();");
        fetch.push_str("    let kn = k0 + BK;\n");
        for l in 0..la {
            let _ = writeln!(fetch, "    var pa{l} = T(0);");
        }
        for l in 0..lb {
            let _ = writeln!(fetch, "    var pb{l} = T(0);");
        }
        fetch.push_str("    if (kn < mt.ke) {\n");
        fetch.push_str(&loads("      ", "kn", &|l| format!("pa{l}"), &|l| {
            format!("pb{l}")
        }));
        let _ = write!(
            fetch,
            "    }}\n    let ao = buf * {abuf}u;\n    let bo = buf * {bbuf}u;"
        );
        commit.push_str("    let nbuf = 1u - buf;\n");
        for l in 0..la {
            let _ = writeln!(
                commit,
                "    As[{}] = pa{l};",
                a_at(l, &format!("nbuf * {abuf}u + "))
            );
        }
        for l in 0..lb {
            let _ = writeln!(
                commit,
                "    Bs[{}] = pb{l};",
                b_at(l, &format!("nbuf * {bbuf}u + "))
            );
        }
        commit.push_str("    workgroupBarrier();\n    buf = nbuf;");
    } else {
        fetch.push_str(&loads("    ", "k0", &a_tile, &b_tile));
        fetch.push_str("    workgroupBarrier();\n    let ao = 0u;\n    let bo = 0u;");
        commit.push_str("    workgroupBarrier();");
    }
    if !straight {
        return [
            format!(
                "  var acc: array<T, {}>;\n  for (var i = 0u; i < RM * RN; i++) {{ acc[i] = T(0); }}",
                rm * rn
            ),
            prologue,
            fetch,
            format!(
                "      var a: array<T, {rm}>;
      var b: array<T, {rn}>;
      for (var i = 0u; i < RM; i++) {{ a[i] = As[ao + kk * BM + lid.y + 16u * i]; }}
      for (var j = 0u; j < RN; j++) {{ b[j] = Bs[bo + kk * BN + lid.x + 16u * j]; }}
      for (var i = 0u; i < RM; i++) {{
        for (var j = 0u; j < RN; j++) {{
          acc[i * RN + j] = madd(acc[i * RN + j], a[i], b[j]);
        }}
      }}"
            ),
            commit,
            "  for (var i = 0u; i < RM; i++) {
    let r = row0 + lid.y + 16u * i;
    for (var j = 0u; j < RN; j++) {
      let c = col0 + lid.x + 16u * j;
      if (r < mt.m && c < mt.n) {
        let ci = u32(cbase + i32(r) * mt.c_sm + i32(c) * mt.c_sn);
        if (mt.accum != 0u) {
          C[ci] = fin(C[ci] + acc[i * RN + j]);
        } else {
          C[ci] = fin(acc[i * RN + j]);
        }
      }
    }
  }"
            .into(),
        ];
    }
    let (mut decl, mut inner, mut store) = (String::new(), String::new(), String::new());
    for i in 0..rm {
        let o = 16 * i;
        let _ = writeln!(inner, "      let a{i} = As[ao + kk * BM + lid.y + {o}u];");
        let _ = writeln!(store, "  let r{i} = row0 + lid.y + {o}u;");
    }
    for j in 0..rn {
        let o = 16 * j;
        let _ = writeln!(inner, "      let b{j} = Bs[bo + kk * BN + lid.x + {o}u];");
        let _ = writeln!(store, "  let c{j} = col0 + lid.x + {o}u;");
    }
    for i in 0..rm {
        for j in 0..rn {
            let _ = writeln!(decl, "  var acc_{i}_{j} = T(0);");
            let _ = writeln!(inner, "      acc_{i}_{j} = madd(acc_{i}_{j}, a{i}, b{j});");
            let _ = writeln!(
                store,
                "  if (r{i} < mt.m && c{j} < mt.n) {{
    let ci = u32(cbase + i32(r{i}) * mt.c_sm + i32(c{j}) * mt.c_sn);
    if (mt.accum != 0u) {{ C[ci] = fin(C[ci] + acc_{i}_{j}); }} else {{ C[ci] = fin(acc_{i}_{j}); }}
  }}"
            );
        }
    }
    [decl, prologue, fetch, inner, commit, store]
}

thread_local! {
    static SHAPE_OVERRIDE: std::cell::Cell<Option<GemmShape>> = const { std::cell::Cell::new(None) };
    static LAST_SHAPE: std::cell::Cell<Option<GemmShape>> = const { std::cell::Cell::new(None) };
}

/// The shape of this thread's last tiled GEMM launch on any wgpu device (for the tests: a
/// forced shape whose tiles do not fit the adapter's workgroup memory is replaced).
pub fn last_gemm_shape() -> Option<GemmShape> {
    LAST_SHAPE.with(|c| c.get())
}

/// Runs `f` with this thread's wgpu GEMM launches using `block` x `block` invocation blocks (4 or
/// 8, single-buffered with the k slice [`GemmShape::square`] gives), whatever the dtype, adapter
/// and sizes, then restores the previous choice: lets the tests run the 8x8 variant, which the
/// automatic choice gives only to large products on hardware adapters, on llvmpipe at small
/// sizes. `CUPY_WGPU_GEMM_BLOCK` does the same for a whole process.
pub fn with_gemm_block<R>(block: usize, f: impl FnOnce() -> R) -> R {
    with_gemm_shape(GemmShape::square(block), f)
}

/// Runs `f` with this thread's wgpu GEMM launches using `shape` (where the dtype's tiles fit the
/// adapter's workgroup memory; else the automatic choice), then restores the previous choice.
/// `CUPY_WGPU_GEMM_SHAPE` (float32 and float64) and `CUPY_WGPU_GEMM_SHAPE_F64` (float64) do the
/// same for a whole process.
pub fn with_gemm_shape<R>(shape: GemmShape, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<GemmShape>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SHAPE_OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(SHAPE_OVERRIDE.with(|c| c.replace(Some(shape))));
    f()
}

impl WgpuBackend {
    /// `Backend::gemm`.
    pub(crate) fn run_gemm(&self, call: &GemmCall<'_>) -> Result<()> {
        let (a, b, c) = (
            self.buf(call.a.buffer, "matmul")?,
            self.buf(call.b.buffer, "matmul")?,
            self.buf(call.c.buffer, "matmul")?,
        );
        let d = a.dtype;
        if b.dtype != d || c.dtype != d {
            return Err(Error::invalid(
                "matmul",
                format!("mixed dtypes {} @ {} -> {}", d, b.dtype, c.dtype),
            ));
        }
        // float16/bfloat16 are packed 16-bit words on wgpu: A and B are widened to float32
        // temporaries, the float32 kernel accumulates in float32 into a float32 C, and the cast
        // back rounds each C element once (as NumPy and cuBLAS do, within tolerance).
        // float16 (and float32 with CUPY_TF32=1) through cooperative matrices where the adapter
        // has them (`gemm_coop.rs`).
        if matches!(d, DType::Float16 | DType::Float32) && self.gemm_coop(call)? {
            return Ok(());
        }
        if matches!(d, DType::Float16 | DType::BFloat16) {
            return self.gemm_widened(call);
        }
        self.gemm_tiled(call)
    }

    /// The tiled kernel on `call`'s operands (float32, float64, complex).
    fn gemm_tiled(&self, call: &GemmCall<'_>) -> Result<()> {
        let d = call.a.buffer.dtype();
        let (a, b, c) = (
            self.buf(call.a.buffer, "matmul")?,
            self.buf(call.b.buffer, "matmul")?,
            self.buf(call.c.buffer, "matmul")?,
        );
        let dims = |o: &Operand<'_>, what: &str| -> Result<[usize; 3]> {
            if o.layout.shape.len() != 3 {
                return Err(Error::invalid(
                    "matmul",
                    format!(
                        "{what} must have layout shape [batch, rows, cols], got {:?}",
                        o.layout.shape
                    ),
                ));
            }
            Ok([o.layout.shape[0], o.layout.shape[1], o.layout.shape[2]])
        };
        let [batch, m, kk] = dims(&call.a, "a")?;
        let [_, _, n] = dims(&call.b, "b")?;
        let st = |o: &Operand<'_>| -> [i32; 4] {
            [
                o.layout.offset as i32,
                o.layout.strides[0] as i32,
                o.layout.strides[1] as i32,
                o.layout.strides[2] as i32,
            ]
        };
        self.gemm_strided(
            d,
            [&a.buf, &b.buf, &c.buf],
            [st(&call.a), st(&call.b), st(&call.c)],
            [batch, m, n, kk],
            false,
        )
    }

    /// The tiled GEMM on raw buffers: `C[z] = A[z] @ B[z]` (or `C[z] -= A[z] @ B[z]` with
    /// `sub`: the blocked factorizations' trailing updates, `linalg/`) for `z < batch`, `A`
    /// `[m, k]`, `B` `[k, n]`, `C` `[m, n]`; `st` holds each operand's element offset and its
    /// batch, row and column strides. `dims` is `[batch, m, n, k]`.
    pub(crate) fn gemm_strided(
        &self,
        d: DType,
        bufs: [&wgpu::Buffer; 3],
        st: [[i32; 4]; 3],
        dims: [usize; 4],
        sub: bool,
    ) -> Result<()> {
        let [batch, m, n, kk] = dims;
        let round = wgsl::round_helper(d);
        let elem = match d {
            DType::Float32 => "f32",
            DType::Complex64 => "vec2<f32>",
            DType::Float64 | DType::Complex128 => {
                self.check_dtype("matmul", d)?;
                if d == DType::Float64 {
                    "f64"
                } else {
                    "vec2<f64>"
                }
            }
            _ => {
                return Err(dtype_unsupported(
                    "matmul",
                    d,
                    &self.info,
                    format!(
                        "the wgpu GEMM kernel handles float16, bfloat16, float32, float64, \
                         complex64 and complex128, not {d}"
                    ),
                ))
            }
        };
        // Complex: the textbook product accumulated part by part (BLAS's cgemm/zgemm order of
        // operations is unspecified too; results are within the summation bound). `sub`
        // accumulates the negated product and adds it to C.
        let madd = match (d.is_complex(), sub) {
            (true, false) => "c + T(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x)",
            (true, true) => "c - T(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x)",
            (false, false) => "c + a * b",
            (false, true) => "c - a * b",
        };
        if m == 0 || n == 0 || batch == 0 {
            return Ok(());
        }
        let sh = self.gemm_shape(d, dims);
        LAST_SHAPE.with(|c| c.set(Some(sh)));
        let (bm, bn, bk) = (16 * sh.rm, 16 * sh.rn, sh.bk);
        static STRAIGHT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let straight = *STRAIGHT.get_or_init(|| {
            std::env::var("CUPY_WGPU_GEMM_LOOPS").map_or(true, |v| v.trim() != "1")
        });
        let key = hash_of(&("gemm", elem, round.map(|r| r.0), sub, sh, straight));
        let name = if sub {
            format!("gemm_sub_{}_{sh}", d.name())
        } else {
            format!("gemm_{}_{sh}", d.name())
        };
        let pipe = self.pipeline(key, &name, &|| {
            let [decl, prologue, fetch, inner, commit, store] = gemm_block_text(sh, straight);
            let nbuf = 1 + usize::from(sh.double);
            // The comments name the marks: left out before the marks are replaced.
            let body: String = GEMM_WGSL
                .lines()
                .filter(|l| !l.starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            Ok((
                body.replace("ELEM", elem)
                    .replace("MADD", madd)
                    .replace("ACC_DECL", &decl)
                    .replace("PROLOGUE", &prologue)
                    .replace("FETCH", &fetch)
                    .replace("INNER", &inner)
                    .replace("COMMIT", &commit)
                    .replace("STORE", &store)
                    .replace("RMV", &sh.rm.to_string())
                    .replace("RNV", &sh.rn.to_string())
                    .replace("BKV", &bk.to_string())
                    .replace("NBUFV", &nbuf.to_string())
                    .replace("ASZ", &(nbuf * bm * bk).to_string())
                    .replace("BSZ", &(nbuf * bn * bk).to_string())
                    .replace(
                        "FIN",
                        &round.map_or("x".to_string(), |(f, _)| format!("{f}(x)")),
                    )
                    .replace("HELPERS", round.map_or("", |r| r.1)),
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 20,
                },
                vec![false, false, true],
            ))
        })?;
        let maxz = self.limits.max_compute_workgroups_per_dimension as usize;
        // K per dispatch: all of it, unless the driver caps loops. Per slice of `bk` k the
        // shader runs at most about 1 + bk (rm + rn + rm rn + 8) + rm + 1 loop passes (the
        // looped form: 530 for the 4x4 blocks and slices of 16); 64 + rm rn more cover the
        // set-up and store loops.
        let (rm, rn) = (sh.rm, sh.rn);
        let per_slice = (1 + bk * (rm + rn + rm * rn + 8) + rm + 1 + 16) as u64;
        let kc = match self.loop_budget {
            Some(b) => {
                let fixed = 64 + (rm * rn) as u64;
                ((plan_budget(b).saturating_sub(fixed) / per_slice).max(1) * bk as u64) as usize
            }
            None => kk.max(1),
        };
        let mut b0 = 0;
        while b0 < batch {
            let nb = (batch - b0).min(maxz);
            let mut kb = 0usize;
            loop {
                let ke = (kb + kc).min(kk);
                let mut w: Vec<u32> = vec![m as u32, n as u32, kk as u32, b0 as u32];
                for s in &st {
                    w.extend(s.iter().map(|&x| x as u32));
                }
                // `sub` always adds into C.
                w.extend([
                    kb as u32,
                    ke as u32,
                    u32::from(kb > 0 || sub),
                    u32::from(ke >= kk),
                ]);
                let meta = pipe.meta.pack(&[], &w);
                self.dispatch3(
                    &pipe,
                    &meta,
                    &bufs,
                    (n.div_ceil(bn) as u32, m.div_ceil(bm) as u32, nb as u32),
                )?;
                kb = ke;
                if kb >= kk {
                    break;
                }
            }
            b0 += nb;
        }
        Ok(())
    }

    /// The kernel shape for `dims` (`[batch, m, n, k]`): 8x8 blocks (tiles of 128x128, k
    /// slices of 8) for float32 on adapters that do not cap loops when the product has at least
    /// 256 such tiles (on the H200's Vulkan driver float32 8192^3 went from 69.6 ms with 4x4
    /// blocks to the figure in docs/performance.md), the same double-buffered for float64, else
    /// 4x4 (tiles of 64x64, k slices of 16, 8 for complex128: more workgroups for small products, complex types,
    /// and llvmpipe, whose loop budget the K slices are planned for). A shape forced by
    /// [`with_gemm_shape`], `CUPY_WGPU_GEMM_SHAPE_F64` (float64), `CUPY_WGPU_GEMM_SHAPE` (float32
    /// and float64) or `CUPY_WGPU_GEMM_BLOCK=4`/`8` (float32 and float64) is taken where its
    /// tiles fit the adapter's workgroup memory.
    fn gemm_shape(&self, d: DType, dims: [usize; 4]) -> GemmShape {
        let [batch, m, n, _] = dims;
        let real = matches!(d, DType::Float32 | DType::Float64);
        let env = |name: &str| -> Option<GemmShape> {
            let v = std::env::var(name).ok()?;
            let sh = GemmShape::parse(&v);
            if sh.is_none() {
                eprintln!("cupy-rs: {name}={v:?} is not a GEMM shape RMxRNxBK[d]; ignored");
            }
            sh
        };
        static ENV: std::sync::OnceLock<[Option<GemmShape>; 3]> = std::sync::OnceLock::new();
        let [f64_shape, shape, block] = *ENV.get_or_init(|| {
            [
                env("CUPY_WGPU_GEMM_SHAPE_F64"),
                env("CUPY_WGPU_GEMM_SHAPE"),
                std::env::var("CUPY_WGPU_GEMM_BLOCK")
                    .ok()
                    .and_then(|v| match v.trim() {
                        "4" => Some(GemmShape::square(4)),
                        "8" => Some(GemmShape::square(8)),
                        _ => None,
                    }),
            ]
        });
        let forced = SHAPE_OVERRIDE.with(|c| c.get()).or(if d == DType::Float64 {
            f64_shape.or(shape).or(block)
        } else if real {
            shape.or(block)
        } else {
            None
        });
        let fits = |sh: &GemmShape| {
            sh.valid()
                && sh.workgroup_bytes(d.itemsize())
                    <= self.limits.max_compute_workgroup_storage_size as usize
        };
        if let Some(sh) = forced.filter(fits) {
            return sh;
        }
        let tiles = batch
            .saturating_mul(m.div_ceil(128))
            .saturating_mul(n.div_ceil(128));
        let big = GemmShape {
            double: d == DType::Float64,
            ..GemmShape::square(8)
        };
        if real && self.loop_budget.is_none() && tiles >= 256 && fits(&big) {
            big
        } else if d == DType::Complex128 {
            // 16 KiB of tiles, WebGPU's default limit.
            GemmShape {
                bk: 8,
                ..GemmShape::square(4)
            }
        } else {
            GemmShape::square(4)
        }
    }

    /// GEMM of float16/bfloat16 through float32 temporaries (see `widen.rs`).
    fn gemm_widened(&self, call: &GemmCall<'_>) -> Result<()> {
        let f = DType::Float32;
        let wide = |o: &Operand<'_>| -> Result<(Buffer, Layout)> {
            let l = Layout::contiguous(&o.layout.shape);
            let t = self.temp(f, l.size())?;
            self.cast_into(o.buffer, &o.layout, &t, &l)?;
            Ok((t, l))
        };
        let (a, al) = wide(&call.a)?;
        let (b, bl) = wide(&call.b)?;
        let cl = Layout::contiguous(&call.c.layout.shape);
        let c = self.temp(f, cl.size())?;
        fn op<'a>(buffer: &'a Buffer, layout: &Layout) -> Operand<'a> {
            Operand {
                buffer,
                layout: layout.clone(),
            }
        }
        self.gemm_tiled(&GemmCall {
            a: op(&a, &al),
            b: op(&b, &bl),
            c: op(&c, &cl),
        })?;
        self.cast_into(&c, &cl, call.c.buffer, &call.c.layout)
    }
}
