//! The cooperative GEMM's kernel text (`shaders/gemm_coop.wgsl` filled in for a shape, a
//! fragment size and a staging) and the layout rules that pick a staging; `gemm_coop.rs`
//! dispatches it.

const COOP_WGSL: &str = include_str!("../../../shaders/gemm_coop.wgsl");

/// The cooperative kernel's shape: `wm` x `wn` subgroups per workgroup, each computing `fm` x
/// `fn_` fragments of C, staging K slices of `bk`. `CUPY_WGPU_COOP_SHAPE=WMxWNxFMxFN[xBK]` sets
/// it (default
/// [`CoopShape::WIDE`] where the adapter's limits allow, else `2x2x4x4`: both 128x128 tiles
/// of 16x16 fragments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CoopShape {
    /// Subgroups along M.
    pub wm: u32,
    /// Subgroups along N.
    pub wn: u32,
    /// Fragments of C per subgroup along M.
    pub fm: u32,
    /// Fragments of C per subgroup along N.
    pub fn_: u32,
    /// The K slice staged per step (16, 32 or 64; a multiple of the fragment size): a fifth
    /// component of `CUPY_WGPU_COOP_SHAPE` (`4x4x2x2x64`), 32 without one.
    pub bk: u32,
}

impl CoopShape {
    /// Parses `WMxWNxFMxFN` (each 1 to 8, at most 16 subgroups), optionally `xBK` (16, 32 or
    /// 64).
    pub fn parse(s: &str) -> Option<CoopShape> {
        let v: Vec<u32> = s
            .trim()
            .split('x')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        let (wm, wn, fm, fn_, bk) = match *v.as_slice() {
            [wm, wn, fm, fn_] => (wm, wn, fm, fn_, 32),
            [wm, wn, fm, fn_, bk] => (wm, wn, fm, fn_, bk),
            _ => return None,
        };
        let ok = [wm, wn, fm, fn_].iter().all(|x| (1..=8).contains(x))
            && wm * wn <= 16
            && matches!(bk, 16 | 32 | 64);
        ok.then_some(CoopShape {
            wm,
            wn,
            fm,
            fn_,
            bk,
        })
    }

    /// 16 subgroups of 2x2 fragments (128x128 tiles, 512 invocations on 32-wide subgroups):
    /// the default where the adapter's limits allow it. On the H100's Vulkan driver
    /// (2026-12-07, float16 8192, the element-wise staging of then) it ran at 52 TFLOP/s
    /// against 17 for [`CoopShape::default`]: the staging loads are shared by more invocations.
    pub const WIDE: CoopShape = CoopShape {
        wm: 4,
        wn: 4,
        fm: 2,
        fn_: 2,
        bk: 32,
    };
}

impl Default for CoopShape {
    fn default() -> Self {
        CoopShape {
            wm: 2,
            wn: 2,
            fm: 4,
            fn_: 4,
            bk: 32,
        }
    }
}

/// How the cooperative kernel brings A and B to its fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoopStaging {
    /// Element pairs staged through workgroup tiles, any strides, every element checked.
    Pairs,
    /// `vec4`s along A's k axis and B's n axis staged through workgroup tiles ([`coop_vec4`]
    /// says when the layouts allow), `double`-buffered or not ([`coop_tile_bytes`]).
    Vec4 {
        /// Two copies of each tile: the next slice's loads overlap this slice's fragments.
        double: bool,
    },
    /// No workgroup tiles: each subgroup loads its fragments straight from the operands
    /// (row-major A and B, whole tiles only: [`coop_direct`]); the subgroups of a workgroup
    /// share them through the cache.
    Direct {
        /// The next K slice's fragments are loaded before this slice's products (twice the
        /// fragment registers).
        prefetch: bool,
    },
    /// A timing probe, never a GEMM (C is not A @ B): with `tiles`, the workgroup tiles are
    /// staged for the first K slice only and every slice loads its fragments from them (the
    /// fragment loads and products without the global reads); without, each subgroup loads its
    /// fragments once and every slice only multiplies (the products alone: the ceiling of the
    /// adapter's cooperative matrices through this kernel). Same layouts as `Direct`.
    Probe {
        /// Fragments from the workgroup tiles each slice (else held in registers).
        tiles: bool,
    },
}

/// The kernel text for fragments of `s` x `s` with inputs `ab` (`f16` or `f32`) on subgroups of
/// `sg` invocations, staging the operands as `staging` says.
pub fn coop_text(ab: &str, s: u32, sg: u32, sh: CoopShape, staging: CoopStaging) -> String {
    let vec4 = matches!(staging, CoopStaging::Vec4 { .. });
    let double = matches!(staging, CoopStaging::Vec4 { double: true });
    let resident = staging == CoopStaging::Probe { tiles: false };
    let tiles_only = staging == CoopStaging::Probe { tiles: true };
    let direct = matches!(staging, CoopStaging::Direct { .. }) || resident;
    let prefetch = staging == CoopStaging::Direct { prefetch: true };
    let nbuf = if double { 2 } else { 1 };
    use std::fmt::Write;
    let CoopShape {
        wm,
        wn,
        fm,
        fn_,
        bk,
    } = sh;
    let (bm, bn) = (wm * fm * s, wn * fn_ * s);
    let ty = format!("coop_mat{s}x{s}");
    // The staging loads: pairs of elements (any strides, each checked), or with `vec4` whole
    // `vec4`s along the operand's contiguous axis (`coop_vec4` says when the layouts allow).
    let pair = |f: &str, g: &str| {
        format!(
            "fn {f}(i0: i32, ok0: bool, ok1: bool, s: i32) -> vec2<AB> {{
  var v = vec2<AB>(AB(0));
  if (ok0) {{ v.x = {g}[u32(i0)]; }}
  if (ok1) {{ v.y = {g}[u32(i0 + s)]; }}
  return v;
}}"
        )
    };
    // Fragment `i` of A (`j` of B) for K step `ks` of the slice at `k` (a WGSL expression):
    // straight from the operand (`direct`) or from the staged tile.
    let frag_a = |i: u32, ks: u32, k: &str| {
        if direct {
            format!(
                "coopLoadT<{ty}<AB, A>>(&Ag[arow + {}u * lda + {k} + {}u], lda)",
                i * s,
                ks * s
            )
        } else {
            format!(
                "coopLoadT<{ty}<AB, A>>(&As[ao + (fr + {}u) * LDA + {}u], LDA)",
                i * s,
                ks * s
            )
        }
    };
    let frag_b = |j: u32, ks: u32, k: &str| {
        if direct {
            format!(
                "coopLoadT<{ty}<AB, B>>(&Bg[bcol + ({k} + {}u) * ldb + {}u], ldb)",
                ks * s,
                j * s
            )
        } else {
            format!(
                "coopLoadT<{ty}<AB, B>>(&Bs[bo + {}u * LDB + fc + {}u], LDB)",
                ks * s,
                j * s
            )
        }
    };
    // The K loop: element pairs staged per slice (any layout); or vec4s, loaded into registers
    // and stored to workgroup memory, single-buffered or (`double`) the next slice's loads
    // issued before this slice's fragments and stored after them into the other buffer: one
    // barrier per slice. INNER reads the tiles at `ao`/`bo`.
    let looped = if direct {
        // The fragments loaded before the loop: the first slice's (`prefetch`: `pa`/`pb`,
        // replaced each slice) or the only ones (the `resident` probe: `a`/`b`).
        let mut first = String::new();
        let before = if prefetch {
            Some(("var", "pa", "pb"))
        } else if resident {
            Some(("let", "a", "b"))
        } else {
            None
        };
        if let Some((kw, na, nb)) = before {
            for ks in 0..bk / s {
                for i in 0..fm {
                    let _ = writeln!(first, "  {kw} {na}{ks}_{i} = {};", frag_a(i, ks, "0u"));
                }
                for j in 0..fn_ {
                    let _ = writeln!(first, "  {kw} {nb}{ks}_{j} = {};", frag_b(j, ks, "0u"));
                }
            }
        }
        let next = if prefetch {
            "    let kn = min(k0 + BK, mt.k - BK);\n"
        } else {
            ""
        };
        format!(
            "  let lda = u32(mt.a_sm);
  let ldb = u32(mt.b_sk);
  let arow = u32(abase) + (row0 + fr) * lda;
  let bcol = u32(bbase) + col0 + fc;
{first}  for (var k0 = 0u; k0 < mt.k; k0 += BK) {{
{next}INNER
  }}
"
        )
    } else if !vec4 {
        let pairs = "  for (var k0 = 0u; k0 < mt.k; k0 += BK) {
    if (STAGE) {
    for (var e = li; e < BM * BK / 2u; e += WG) {
      let mm = e / (BK / 2u);
      let kk = 2u * (e % (BK / 2u));
      let gr = row0 + mm;
      let gk = k0 + kk;
      let v = pair_a(abase + i32(gr) * mt.a_sm + i32(gk) * mt.a_sk, gr < mt.m && gk < mt.k,
                     gr < mt.m && gk + 1u < mt.k, mt.a_sk);
      As[mm * LDA + kk] = v.x;
      As[mm * LDA + kk + 1u] = v.y;
    }
    for (var e = li; e < BK * BN / 2u; e += WG) {
      let kb = e / (BN / 2u);
      let nb = 2u * (e % (BN / 2u));
      let gk = k0 + kb;
      let gc = col0 + nb;
      let v = pair_b(bbase + i32(gk) * mt.b_sk + i32(gc) * mt.b_sn, gk < mt.k && gc < mt.n,
                     gk < mt.k && gc + 1u < mt.n, mt.b_sn);
      Bs[kb * LDB + nb] = v.x;
      Bs[kb * LDB + nb + 1u] = v.y;
    }
    }
    workgroupBarrier();
    let ao = 0u;
    let bo = 0u;
INNER
    workgroupBarrier();
  }
";
        pairs.replace("STAGE", if tiles_only { "k0 == 0u" } else { "true" })
    } else {
        let wg = wm * wn * sg;
        let guard = |total: u32, r: u32| {
            if (r + 1) * wg <= total {
                "true".to_string()
            } else {
                format!("e < {total}u")
            }
        };
        let (mut decl_r, mut load, mut put) = (String::new(), String::new(), String::new());
        // Per operand: its vec4s in a slice, the tile's row width W (in elements), its names,
        // the global row/column of tile row `i` and column `c`, their bounds, the element
        // index, and the mark of the tile's offset. `KK`: the slice's first k.
        for (p, total, w, stride, tile, global, at, inside, index, off) in [
            (
                "a",
                bm * bk / 4,
                "BK",
                "LDA",
                "As",
                "Ag",
                "let gr = row0 + i; let gk = KK + c;",
                "gr < mt.m && gk < mt.k",
                "abase + i32(gr) * mt.a_sm + i32(gk)",
                "AO",
            ),
            (
                "b",
                bk * bn / 4,
                "BN",
                "LDB",
                "Bs",
                "Bg",
                "let gk = KK + i; let gc = col0 + c;",
                "gk < mt.k && gc < mt.n",
                "bbase + i32(gk) * mt.b_sk + i32(gc)",
                "BO",
            ),
        ] {
            for r in 0..total.div_ceil(wg) {
                let g = guard(total, r);
                let v = format!("r{p}{r}");
                let e = format!(
                    "let e = li + {r}u * WG; let i = e / ({w} / 4u); let c = 4u * (e % ({w} / 4u));"
                );
                let _ = writeln!(decl_r, "  var {v} = vec4<AB>(AB(0));");
                let _ = writeln!(
                    load,
                    "    {{ {e} if ({g}) {{ {at} {v} = vec4<AB>(AB(0)); \
                     if ({inside}) {{ {v} = {global}[u32({index}) >> 2u]; }} }} }}"
                );
                let _ = writeln!(
                    put,
                    "    {{ {e} if ({g}) {{ let o = {off} + i * {stride} + c; {tile}[o] = {v}.x; \
                     {tile}[o + 1u] = {v}.y; {tile}[o + 2u] = {v}.z; {tile}[o + 3u] = {v}.w; }} }}"
                );
            }
        }
        let ld = |k: &str| load.replace("KK", k);
        let st = |a: &str, b: &str| put.replace("AO", a).replace("BO", b);
        if double {
            format!(
                "{decl_r}{}{}  workgroupBarrier();
  var cur = 0u;
  for (var k0 = 0u; k0 < mt.k; k0 += BK) {{
    let more = k0 + BK < mt.k;
    if (more) {{
{}    }}
    let ao = cur * ASZ;
    let bo = cur * BSZ;
INNER
    if (more) {{
{}    }}
    workgroupBarrier();
    cur = 1u - cur;
  }}
",
                ld("0u"),
                st("0u", "0u"),
                ld("(k0 + BK)"),
                st("(1u - cur) * ASZ", "(1u - cur) * BSZ"),
            )
        } else {
            format!(
                "{decl_r}  for (var k0 = 0u; k0 < mt.k; k0 += BK) {{
{}{}    workgroupBarrier();
    let ao = 0u;
    let bo = 0u;
INNER
    workgroupBarrier();
  }}
",
                ld("k0"),
                st("0u", "0u"),
            )
        }
    };
    let (mut decl, mut inner, mut store) = (String::new(), String::new(), String::new());
    for i in 0..fm {
        for j in 0..fn_ {
            let _ = writeln!(decl, "  var c_{i}_{j} = {ty}<f32, C>();");
            let _ = writeln!(
                store,
                "  {{ let t = c_{i}_{j}; let ci = cbase + {}u * cld + {}u; coopStoreT(t, &Ct[ci], cld); }}",
                i * s,
                j * s
            );
        }
    }
    for ks in 0..bk / s {
        inner.push_str("    {\n");
        // Without `prefetch` the slice's fragments are loaded and used at once; with it the
        // products use `pa`/`pb` (loaded one slice ahead) while the next slice's (`kn`: the
        // last slice again at the end) are loaded.
        let (load_a, load_b, k, use_a, use_b) = if prefetch {
            ("na", "nb", "kn", "pa", "pb")
        } else {
            ("a", "b", "k0", "a", "b")
        };
        for i in (0..fm).filter(|_| !resident) {
            let _ = writeln!(inner, "      let {load_a}{ks}_{i} = {};", frag_a(i, ks, k));
        }
        for j in (0..fn_).filter(|_| !resident) {
            let _ = writeln!(inner, "      let {load_b}{ks}_{j} = {};", frag_b(j, ks, k));
        }
        for i in 0..fm {
            for j in 0..fn_ {
                let _ = writeln!(
                    inner,
                    "      c_{i}_{j} = coopMultiplyAdd({use_a}{ks}_{i}, {use_b}{ks}_{j}, c_{i}_{j});"
                );
            }
        }
        if prefetch {
            for i in 0..fm {
                let _ = writeln!(inner, "      pa{ks}_{i} = na{ks}_{i};");
            }
            for j in 0..fn_ {
                let _ = writeln!(inner, "      pb{ks}_{j} = nb{ks}_{j};");
            }
        }
        inner.push_str("    }\n");
    }
    let body: String = COOP_WGSL
        .lines()
        .filter(|l| !(l.starts_with("//") || direct && l.starts_with("var<workgroup>")))
        .map(|l| format!("{l}\n"))
        .collect();
    let word = if vec4 { "vec4<AB>" } else { "AB" };
    body.replace("ENABLE_F16", "enable f16;")
        .replace("ABT", ab)
        .replace("WORD", word)
        .replace(
            "PAIR_A",
            &if vec4 {
                String::new()
            } else {
                pair("pair_a", "Ag")
            },
        )
        .replace(
            "PAIR_B",
            &if vec4 {
                String::new()
            } else {
                pair("pair_b", "Bg")
            },
        )
        .replace("LOOP", &looped)
        .replace("ACC_DECL", &decl)
        .replace("INNER", &inner)
        .replace("STORE", &store)
        .replace("ASZ * NBUF", &(bm * (bk + 8) * nbuf).to_string())
        .replace("BSZ * NBUF", &(bk * (bn + 8) * nbuf).to_string())
        .replace("ASZ", &format!("{}u", bm * (bk + 8)))
        .replace("BSZ", &format!("{}u", bk * (bn + 8)))
        .replace("BKV", &bk.to_string())
        .replace("WGSZ", &(wm * wn * sg).to_string())
        .replace("SGV", &sg.to_string())
        .replace("WMV", &wm.to_string())
        .replace("WNV", &wn.to_string())
        .replace("FMV", &fm.to_string())
        .replace("FNV", &fn_.to_string())
        .replace("SV", &s.to_string())
}

/// The workgroup memory of the cooperative kernel's staging tiles, in bytes: A's
/// `BM x (BK + 8)` and B's `BK x (BN + 8)` elements of `ab`, twice where `double`.
pub fn coop_tile_bytes(ab: &str, s: u32, sh: CoopShape, double: bool) -> usize {
    let (bm, bn) = ((sh.wm * sh.fm * s) as usize, (sh.wn * sh.fn_ * s) as usize);
    let bk = sh.bk as usize;
    let elem = if ab == "f16" { 2 } else { 4 };
    (bm * (bk + 8) + bk * (bn + 8)) * elem * if double { 2 } else { 1 }
}

/// Whether the cooperative kernel may read A and B as `vec4`s (`coop_text`): A's k axis and
/// B's n axis unit-stride, every other stride and both offsets multiples of 4 elements, and
/// `k`, `n` multiples of 4, so that every vec4 is wholly inside or outside its operand.
/// `a`/`b`: offset and strides (batch, rows, columns) in elements.
pub fn coop_vec4(a: &[i32; 4], b: &[i32; 4], batch: usize, k: usize, n: usize) -> bool {
    let m4 = |x: i32| x % 4 == 0;
    let batch_ok = |sb: i32| batch == 1 || m4(sb);
    a[3] == 1
        && m4(a[0])
        && m4(a[2])
        && batch_ok(a[1])
        && b[3] == 1
        && m4(b[0])
        && m4(b[2])
        && batch_ok(b[1])
        && k.is_multiple_of(4)
        && n.is_multiple_of(4)
}

/// Whether the cooperative kernel may load its fragments straight from A and B
/// ([`CoopStaging::Direct`]): both row-major with unit-stride k (A) and n (B) axes, positive row
/// strides, and every offset and stride a multiple of 8 elements (each fragment row starts on
/// 16 bytes), with m, n and k whole tiles of `bm`, `bn` and `bk` (the loads are not checked).
/// `a`/`b`: offset and strides (batch, rows, columns) in elements.
pub fn coop_direct(a: &[i32; 4], b: &[i32; 4], dims: [usize; 4], tile: [usize; 3]) -> bool {
    let [batch, m, k, n] = dims;
    let [bm, bn, bk] = tile;
    let m8 = |x: i32| x % 8 == 0;
    let batch_ok = |sb: i32| batch == 1 || m8(sb);
    let operand = |o: &[i32; 4]| o[3] == 1 && o[2] > 0 && m8(o[0]) && m8(o[2]) && batch_ok(o[1]);
    operand(a) && operand(b) && m.is_multiple_of(bm) && n.is_multiple_of(bn) && k.is_multiple_of(bk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cooperative kernels naga must accept and write as SPIR-V on adapters that have the
    /// feature (none of the machines CI runs on: llvmpipe has no cooperative matrices), checked
    /// here without a device: float16 and float32 inputs, both fragment sizes, two shapes.
    #[test]
    fn coop_kernels_validate_and_write_spirv() {
        use naga::valid::{Capabilities, ValidationFlags, Validator};
        for (ab, s, sg, sh, vec4, double) in [
            ("f16", 16, 32, CoopShape::default(), false, false),
            ("f16", 16, 32, CoopShape::WIDE, true, true),
            ("f16", 16, 32, CoopShape::WIDE, true, false),
            (
                "f16",
                8,
                32,
                CoopShape::parse("2x2x2x4").unwrap(),
                false,
                true,
            ),
            (
                "f16",
                16,
                32,
                CoopShape::parse("1x1x3x1").unwrap(),
                true,
                true,
            ),
            // 96 invocations for B's 128 vec4s: the second round is guarded.
            (
                "f16",
                16,
                32,
                CoopShape::parse("3x1x1x1").unwrap(),
                true,
                true,
            ),
            ("f32", 16, 32, CoopShape::default(), true, true),
            // K slices of 64 and 16 (the shape's fifth part), element-wise and vec4.
            (
                "f16",
                16,
                32,
                CoopShape::parse("4x4x2x2x64").unwrap(),
                false,
                false,
            ),
            (
                "f16",
                16,
                32,
                CoopShape::parse("2x2x2x2x64").unwrap(),
                true,
                true,
            ),
            (
                "f16",
                16,
                32,
                CoopShape::parse("2x2x2x2x16").unwrap(),
                false,
                false,
            ),
            (
                "f32",
                8,
                32,
                CoopShape::parse("2x2x2x2x64").unwrap(),
                true,
                false,
            ),
            ("f32", 16, 32, CoopShape::default(), false, false),
            (
                "f16",
                16,
                64,
                CoopShape::parse("1x2x4x2").unwrap(),
                true,
                false,
            ),
        ] {
            let staging = if vec4 {
                CoopStaging::Vec4 { double }
            } else {
                CoopStaging::Pairs
            };
            let direct = [false, true].map(|prefetch| CoopStaging::Direct { prefetch });
            let probes = [true, false].map(|tiles| CoopStaging::Probe { tiles });
            for staging in [staging, direct[0], direct[1], probes[0], probes[1]] {
                let text = coop_text(ab, s, sg, sh, staging);
                let module = naga::front::wgsl::parse_str(&text)
                    .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
                let info = Validator::new(
                    ValidationFlags::all(),
                    Capabilities::COOPERATIVE_MATRIX
                        | Capabilities::SHADER_FLOAT16
                        | Capabilities::SUBGROUP,
                )
                .validate(&module)
                .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
                // As wgpu writes it for the backend's modules (`runtime_checks`: indices restricted).
                let policy = naga::proc::BoundsCheckPolicy::Restrict;
                let opts = naga::back::spv::Options {
                    capabilities: None,
                    bounds_check_policies: naga::proc::BoundsCheckPolicies {
                        index: policy,
                        buffer: policy,
                        image_load: policy,
                        binding_array: policy,
                    },
                    ..Default::default()
                };
                let words = naga::back::spv::write_vec(&module, &info, &opts, None)
                    .unwrap_or_else(|e| panic!("{ab} {s}: {e}"));
                assert!(words.len() > 100);
            }
        }
        // vec4 reads: contiguous row-major operands with k and n multiples of 4, not others.
        let (a, b) = ([0, 64 * 32, 32, 1], [8, 32 * 64, 64, 1]);
        assert!(coop_vec4(&a, &b, 3, 32, 64));
        assert!(!coop_vec4(&a, &b, 3, 32, 62));
        assert!(!coop_vec4(&[2, 64 * 32, 32, 1], &b, 1, 32, 64));
        assert!(!coop_vec4(&[0, 64 * 32, 1, 64], &b, 1, 32, 64));
        assert!(!coop_vec4(&a, &[8, 6, 64, 1], 2, 32, 64));
        assert!(coop_vec4(&a, &[8, 6, 64, 1], 1, 32, 64));
        // Direct fragment loads: row-major operands of whole tiles, rows on 16 bytes.
        let (da, db) = ([0, 256 * 64, 64, 1], [8, 64 * 128, 128, 1]);
        let tile = [128, 128, 32];
        assert!(coop_direct(&da, &db, [2, 256, 64, 128], tile));
        assert!(!coop_direct(&da, &db, [2, 256, 64, 120], tile));
        assert!(!coop_direct(&da, &db, [2, 200, 64, 128], tile));
        assert!(!coop_direct(&da, &db, [2, 256, 48, 128], tile));
        assert!(!coop_direct(
            &[4, 256 * 64, 64, 1],
            &db,
            [1, 256, 64, 128],
            tile
        ));
        assert!(!coop_direct(
            &[0, 256 * 64, 1, 256],
            &db,
            [1, 256, 64, 128],
            tile
        ));
        assert!(!coop_direct(&da, &[8, 4, 128, 1], [2, 256, 64, 128], tile));
        assert!(coop_direct(&da, &[8, 4, 128, 1], [1, 256, 64, 128], tile));
        assert!(CoopShape::parse("2x2x4").is_none());
        assert_eq!(CoopShape::parse("4x4x2x2"), Some(CoopShape::WIDE));
        assert_eq!(CoopShape::parse("4x4x2x2x64").map(|s| s.bk), Some(64));
        assert!(CoopShape::parse("4x4x2x2x48").is_none());
        assert!(CoopShape::parse("4x4x2x2x64x1").is_none());
        // The tiles of a 64-wide K slice: A 128 x 72, B 64 x 136 float16 elements.
        let wide64 = CoopShape::parse("4x4x2x2x64").unwrap();
        assert_eq!(
            coop_tile_bytes("f16", 16, wide64, false),
            (128 * 72 + 64 * 136) * 2
        );
        assert_eq!(
            coop_tile_bytes("f16", 16, CoopShape::WIDE, true),
            (128 * 40 + 32 * 136) * 2 * 2
        );
        assert!(CoopShape::parse("4x8x1x1").is_none());
    }
}
