//! GEMM through the tiled WGSL kernel (`shaders/gemm.wgsl`), K in slices on capped drivers.

use crate::{hash_of, plan_budget, WgpuBackend};
use cupy_core::backend::{dtype_unsupported, Buffer, GemmCall, Operand};
use cupy_core::kernel::wgsl::{self, MetaLayout};
use cupy_core::{DType, Error, Layout, Result};

const GEMM_WGSL: &str = include_str!("../../../shaders/gemm.wgsl");

/// The accumulator declarations, the block product of one k and the stores of C for an
/// `rt` x `rt` invocation block (`shaders/gemm.wgsl`'s `ACC_DECL`, `INNER`, `STORE`): with
/// `straight`, the accumulators are `rt^2` named scalars and the loads, products and stores
/// straight-line code; else loops over a function-local array (which a driver must unroll to
/// keep the block in registers; `CUPY_WGPU_GEMM_LOOPS=1`, for comparison).
fn gemm_block_text(rt: usize, straight: bool) -> [String; 3] {
    use std::fmt::Write;
    if !straight {
        return [
            "  var acc: array<T, RTSQ>;\n  for (var i = 0u; i < RT * RT; i++) { acc[i] = T(0); }"
                .into(),
            "      var a: array<T, RTV>;
      var b: array<T, RTV>;
      for (var i = 0u; i < RT; i++) {
        a[i] = As[kk * BM + lid.y + 16u * i];
        b[i] = Bs[kk * BN + lid.x + 16u * i];
      }
      for (var i = 0u; i < RT; i++) {
        for (var j = 0u; j < RT; j++) {
          acc[i * RT + j] = madd(acc[i * RT + j], a[i], b[j]);
        }
      }"
            .into(),
            "  for (var i = 0u; i < RT; i++) {
    let r = row0 + lid.y + 16u * i;
    for (var j = 0u; j < RT; j++) {
      let c = col0 + lid.x + 16u * j;
      if (r < mt.m && c < mt.n) {
        let ci = u32(cbase + i32(r) * mt.c_sm + i32(c) * mt.c_sn);
        if (mt.accum != 0u) {
          C[ci] = fin(C[ci] + acc[i * RT + j]);
        } else {
          C[ci] = fin(acc[i * RT + j]);
        }
      }
    }
  }"
            .into(),
        ];
    }
    let (mut decl, mut inner, mut store) = (String::new(), String::new(), String::new());
    for i in 0..rt {
        let o = 16 * i;
        let _ = writeln!(inner, "      let a{i} = As[kk * BM + lid.y + {o}u];");
        let _ = writeln!(inner, "      let b{i} = Bs[kk * BN + lid.x + {o}u];");
        let _ = writeln!(store, "  let r{i} = row0 + lid.y + {o}u;");
        let _ = writeln!(store, "  let c{i} = col0 + lid.x + {o}u;");
    }
    for i in 0..rt {
        for j in 0..rt {
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
    [decl, inner, store]
}

thread_local! {
    static BLOCK_OVERRIDE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with this thread's wgpu GEMM launches using `block` x `block` invocation blocks (4 or
/// 8; 8 applies to float32 and float64 only), whatever the adapter and sizes, then restores the
/// previous choice: lets the tests run the 8x8 variant, which the automatic choice gives only to
/// large products on hardware adapters, on llvmpipe at small sizes. `CUPY_WGPU_GEMM_BLOCK` does
/// the same for a whole process.
pub fn with_gemm_block<R>(block: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BLOCK_OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(BLOCK_OVERRIDE.with(|c| c.replace(Some(block))));
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
        if matches!(d, DType::Float16 | DType::BFloat16) {
            return self.gemm_widened(call);
        }
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
        let rt = self.gemm_block(d, dims);
        let bk = if d == DType::Complex128 || rt == 8 {
            8
        } else {
            16
        };
        let tile = 16 * rt;
        static STRAIGHT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let straight = *STRAIGHT.get_or_init(|| {
            std::env::var("CUPY_WGPU_GEMM_LOOPS").map_or(true, |v| v.trim() != "1")
        });
        let key = hash_of(&("gemm", elem, round.map(|r| r.0), sub, rt, straight));
        let name = if sub {
            format!("gemm_sub_{}", d.name())
        } else {
            format!("gemm_{}", d.name())
        };
        let pipe = self.pipeline(key, &name, &|| {
            let text = gemm_block_text(rt, straight);
            Ok((
                GEMM_WGSL
                    .replace("ELEM", elem)
                    .replace("MADD", madd)
                    .replace("ACC_DECL", &text[0])
                    .replace("INNER", &text[1])
                    .replace("STORE", &text[2])
                    .replace("RTSQ", &(rt * rt).to_string())
                    .replace("RTV", &rt.to_string())
                    .replace("BKV", &bk.to_string())
                    .replace("TILE", &(tile * bk).to_string())
                    .replace("LOADS", &(tile * bk / 256).to_string())
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
        // shader runs about LOADS + 1 + bk (2 rt + rt^2 + 8) + rt + 1 loop passes (522 for the
        // 4x4 blocks and slices of 16: 5 + 16 * 32 + 4 + 1); 64 more cover the set-up and store
        // loops (rt^2 + rt of them).
        let per_slice = (tile * bk / 256 + 1 + bk * (2 * rt + rt * rt + 8) + rt + 1 + 8) as u64;
        let kc = match self.loop_budget {
            Some(b) => {
                let fixed = 64 + (rt * rt) as u64;
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
                    (n.div_ceil(tile) as u32, m.div_ceil(tile) as u32, nb as u32),
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

    /// The invocation's block of the GEMM kernel for `dims` (`[batch, m, n, k]`): 8x8 (tiles of
    /// 128x128) for float32 and float64 on adapters that do not cap loops when the product has
    /// at least 256 such tiles (on the H200's Vulkan driver float32 8192^3 went from 69.6 ms with
    /// 4x4 blocks to the figure in docs/performance.md), else 4x4 (tiles of 64x64: more
    /// workgroups for small products, complex types, and llvmpipe, whose loop budget the K
    /// slices are planned for). `CUPY_WGPU_GEMM_BLOCK=4` or `8` forces one (8 only where the
    /// dtype allows it).
    fn gemm_block(&self, d: DType, dims: [usize; 4]) -> usize {
        let [batch, m, n, _] = dims;
        let real = matches!(d, DType::Float32 | DType::Float64);
        static ENV_BLOCK: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
        let forced = BLOCK_OVERRIDE.with(|c| c.get()).or_else(|| {
            *ENV_BLOCK.get_or_init(|| {
                std::env::var("CUPY_WGPU_GEMM_BLOCK")
                    .ok()
                    .and_then(|v| v.trim().parse().ok())
            })
        });
        match forced {
            Some(4) => return 4,
            Some(8) if real => return 8,
            _ => {}
        }
        let tiles = batch
            .saturating_mul(m.div_ceil(128))
            .saturating_mul(n.div_ceil(128));
        if real && self.loop_budget.is_none() && tiles >= 256 {
            8
        } else {
            4
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
        self.run_gemm(&GemmCall {
            a: op(&a, &al),
            b: op(&b, &bl),
            c: op(&c, &cl),
        })?;
        self.cast_into(&c, &cl, call.c.buffer, &call.c.layout)
    }
}
