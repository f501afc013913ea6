//! GEMM through cooperative matrices (`shaders/gemm_coop.wgsl`): float16 inputs with float32
//! accumulation where the adapter exposes wgpu's `EXPERIMENTAL_COOPERATIVE_MATRIX` with a square
//! float16 x float16 -> float32 configuration (NVIDIA's tensor cores through
//! `VK_KHR_cooperative_matrix`), and float32 inputs through them only with `CUPY_TF32=1` and a
//! float32 configuration, as the cuda backend does. Everything else, and any adapter without the
//! feature (Mesa's llvmpipe), takes the tiled kernel of `gemm.rs`.

use crate::{hash_of, WgpuBackend};
use cupy_core::backend::{GemmCall, Operand};
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{DType, Error, Layout, Result};
use std::sync::atomic::{AtomicBool, Ordering};

const COOP_WGSL: &str = include_str!("../../../shaders/gemm_coop.wgsl");

/// What the adapter's cooperative matrices offer the GEMM: the square fragment size of each
/// input type with float32 accumulation (naga's `coop_mat8x8` and `coop_mat16x16`), and the
/// subgroup size the kernel's workgroups are planned for.
#[derive(Clone, Debug, Default)]
pub struct CoopInfo {
    /// Fragment size (16 or 8) of float16 x float16 -> float32, if the adapter has one.
    pub f16: Option<u32>,
    /// Fragment size of float32 x float32 -> float32 (used only with `CUPY_TF32=1`).
    pub f32: Option<u32>,
    /// The adapter's subgroup size (its minimum and maximum agree; else no cooperative path).
    pub subgroup: u32,
    /// Every configuration wgpu reports, `MxNxK A->C` (for reports and the tests' output).
    pub exposed: Vec<String>,
}

impl CoopInfo {
    /// The GEMM's view of `props` on an adapter whose subgroups are `sg_min` to `sg_max` wide.
    pub fn new(props: &[wgpu::CooperativeMatrixProperties], sg_min: u32, sg_max: u32) -> Self {
        use wgpu::CooperativeScalarType as T;
        let size = |ab: T| {
            [16, 8].into_iter().find(|&s| {
                props.iter().any(|p| {
                    (p.m_size, p.n_size, p.k_size) == (s, s, s)
                        && p.ab_type == ab
                        && p.cr_type == T::F32
                })
            })
        };
        let usable = sg_min == sg_max && sg_min >= 8;
        CoopInfo {
            f16: size(T::F16).filter(|_| usable),
            f32: size(T::F32).filter(|_| usable),
            subgroup: sg_min,
            exposed: props
                .iter()
                .map(|p| {
                    format!(
                        "{}x{}x{} {:?}->{:?}",
                        p.m_size, p.n_size, p.k_size, p.ab_type, p.cr_type
                    )
                })
                .collect(),
        }
    }
}

/// The cooperative kernel's shape: `wm` x `wn` subgroups per workgroup, each computing `fm` x
/// `fn_` fragments of C. `CUPY_WGPU_COOP_SHAPE=WMxWNxFMxFN` sets it (default `2x2x4x4`:
/// 128x128 tiles of 16x16 fragments).
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
}

impl CoopShape {
    /// Parses `WMxWNxFMxFN` (each 1 to 8, at most 16 subgroups).
    pub fn parse(s: &str) -> Option<CoopShape> {
        let v: Vec<u32> = s
            .trim()
            .split('x')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        let &[wm, wn, fm, fn_] = v.as_slice() else {
            return None;
        };
        let ok = [wm, wn, fm, fn_].iter().all(|x| (1..=8).contains(x)) && wm * wn <= 16;
        ok.then_some(CoopShape { wm, wn, fm, fn_ })
    }
}

impl Default for CoopShape {
    fn default() -> Self {
        CoopShape {
            wm: 2,
            wn: 2,
            fm: 4,
            fn_: 4,
        }
    }
}

/// The kernel text for fragments of `s` x `s` with inputs `ab` (`f16` or `f32`) on subgroups of
/// `sg` invocations.
pub fn coop_text(ab: &str, s: u32, sg: u32, sh: CoopShape) -> String {
    use std::fmt::Write;
    let CoopShape { wm, wn, fm, fn_ } = sh;
    let (bm, bn, bk) = (wm * fm * s, wn * fn_ * s, 32);
    let ty = format!("coop_mat{s}x{s}");
    let pair = |f: &str, g: &str| {
        if ab == "f16" {
            format!(
                "fn {f}(i0: i32, ok0: bool, ok1: bool, s: i32) -> vec2<f16> {{
  var v = vec2<f16>(0.0h);
  if (ok0) {{
    let w = h2({g}[u32(i0) >> 1u]);
    if ((i0 & 1) == 0) {{
      v.x = w.x;
      if (ok1 && s == 1) {{ v.y = w.y; return v; }}
    }} else {{
      v.x = w.y;
    }}
    if (ok1) {{
      let i1 = i0 + s;
      let w1 = h2({g}[u32(i1) >> 1u]);
      v.y = select(w1.x, w1.y, (i1 & 1) == 1);
    }}
  }}
  return v;
}}"
            )
        } else {
            format!(
                "fn {f}(i0: i32, ok0: bool, ok1: bool, s: i32) -> vec2<f32> {{
  var v = vec2<f32>(0.0);
  if (ok0) {{ v.x = {g}[u32(i0)]; }}
  if (ok1) {{ v.y = {g}[u32(i0 + s)]; }}
  return v;
}}"
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
        for i in 0..fm {
            let _ = writeln!(
                inner,
                "      let a{i} = coopLoadT<{ty}<AB, A>>(&As[(fr + {}u) * LDA + {}u], LDA);",
                i * s,
                ks * s
            );
        }
        for j in 0..fn_ {
            let _ = writeln!(
                inner,
                "      let b{j} = coopLoadT<{ty}<AB, B>>(&Bs[{}u * LDB + fc + {}u], LDB);",
                ks * s,
                j * s
            );
        }
        for i in 0..fm {
            for j in 0..fn_ {
                let _ = writeln!(
                    inner,
                    "      c_{i}_{j} = coopMultiplyAdd(a{i}, b{j}, c_{i}_{j});"
                );
            }
        }
        inner.push_str("    }\n");
    }
    let body: String = COOP_WGSL
        .lines()
        .filter(|l| !l.starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    // float16 words -> two f16 values through their float32 values, from the bits (as the
    // kernel IR's `f16_f32`: no builtin whose infinities WGSL leaves open).
    let h2 = if ab == "f16" {
        "fn f16_f32(h: u32) -> f32 {
  let s = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) { return bitcast<f32>(s | bitcast<u32>(f32(m) * bitcast<f32>(0x33800000u))); }
  if (e == 31u) { return bitcast<f32>(s | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}
fn h2(w: u32) -> vec2<f16> {
  return vec2<f16>(f16(f16_f32(w & 0xffffu)), f16(f16_f32(w >> 16u)));
}
"
    } else {
        ""
    };
    body.replace("ENABLE_F16", "enable f16;")
        .replace("PAIR_A", &format!("{h2}PAIR_A"))
        .replace("ABT", ab)
        .replace("WORD", if ab == "f16" { "u32" } else { "f32" })
        .replace("PAIR_A", &pair("pair_a", "Ag"))
        .replace("PAIR_B", &pair("pair_b", "Bg"))
        .replace("ACC_DECL", &decl)
        .replace("INNER", &inner)
        .replace("STORE", &store)
        .replace("ASZ", &(bm * 40).to_string())
        .replace("BSZ", &(bk * (bn + 8)).to_string())
        .replace("WGSZ", &(wm * wn * sg).to_string())
        .replace("SGV", &sg.to_string())
        .replace("WMV", &wm.to_string())
        .replace("WNV", &wn.to_string())
        .replace("FMV", &fm.to_string())
        .replace("FNV", &fn_.to_string())
        .replace("SV", &s.to_string())
}

/// Set once a cooperative pipeline failed to build: every later GEMM takes the tiled kernel.
static COOP_BROKEN: AtomicBool = AtomicBool::new(false);

impl WgpuBackend {
    /// What the adapter's cooperative matrices offer the GEMM (`None`: no
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX`, or `CUPY_WGPU_COOP` is not `1`).
    pub fn cooperative_matrix(&self) -> Option<&CoopInfo> {
        self.coop.as_ref()
    }

    /// `C = A @ B` through cooperative matrices when the adapter has them for `call`'s dtype
    /// (float16; float32 with `CUPY_TF32=1`): `Ok(true)` when done, `Ok(false)` when the tiled
    /// kernel must do it (no such configuration, or the cooperative pipeline did not build: then
    /// never again in this process).
    pub(crate) fn gemm_coop(&self, call: &GemmCall<'_>) -> Result<bool> {
        let Some(info) = &self.coop else {
            return Ok(false);
        };
        if COOP_BROKEN.load(Ordering::Relaxed) || self.loop_budget.is_some() {
            return Ok(false);
        }
        let d = call.a.buffer.dtype();
        let tf32 = || std::env::var("CUPY_TF32").is_ok_and(|v| v.trim() == "1");
        let (ab, s) = match (d, info.f16, info.f32) {
            (DType::Float16, Some(s), _) => ("f16", s),
            (DType::Float32, _, Some(s)) if tf32() => ("f32", s),
            _ => return Ok(false),
        };
        let sh = std::env::var("CUPY_WGPU_COOP_SHAPE")
            .ok()
            .and_then(|v| CoopShape::parse(&v))
            .unwrap_or_default();
        let sg = info.subgroup;
        let (bm, bn) = ((sh.wm * sh.fm * s) as usize, (sh.wn * sh.fn_ * s) as usize);
        let elem = if ab == "f16" { 2 } else { 4 };
        let wg_bytes = (bm * 40 + 32 * (bn + 8)) * elem;
        if wg_bytes > self.limits.max_compute_workgroup_storage_size as usize
            || sh.wm * sh.wn * sg > self.limits.max_compute_invocations_per_workgroup
        {
            return Ok(false);
        }
        let shape3 = |o: &Operand<'_>| -> Option<[usize; 3]> {
            let s = &o.layout.shape;
            (s.len() == 3).then(|| [s[0], s[1], s[2]])
        };
        let (Some([batch, m, kk]), Some([_, _, n])) = (shape3(&call.a), shape3(&call.b)) else {
            return Ok(false);
        };
        if m == 0 || n == 0 || batch == 0 {
            return Ok(true);
        }
        let (mp, np) = (m.div_ceil(bm) * bm, n.div_ceil(bn) * bn);
        let words = |o: &Operand<'_>| -> Option<[i32; 4]> {
            let l = &o.layout;
            Some([
                i32::try_from(l.offset).ok()?,
                i32::try_from(l.strides[0]).ok()?,
                i32::try_from(l.strides[1]).ok()?,
                i32::try_from(l.strides[2]).ok()?,
            ])
        };
        let (Some(sa), Some(sb), Ok(c_sb)) =
            (words(&call.a), words(&call.b), u32::try_from(mp * np))
        else {
            return Ok(false);
        };
        // Every binding within one storage binding and every index within u32 (else the tiled
        // kernel, which windows large operands).
        let ct_len = batch * mp * np;
        if u32::try_from(ct_len).is_err()
            || (ct_len * 4) as u64 > self.binding_cap
            || [call.a.buffer, call.b.buffer]
                .iter()
                .any(|b| b.len() as u64 * elem as u64 > self.binding_cap)
        {
            return Ok(false);
        }
        let key = hash_of(&("gemm_coop", ab, s, sg, sh));
        let name = format!("gemm_coop_{ab}_{s}");
        let pipe = match self.pipeline(key, &name, &|| {
            Ok((
                coop_text(ab, s, sg, sh),
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 16,
                },
                vec![false, false, true],
            ))
        }) {
            Ok(p) => p,
            Err(e) => {
                eprintln!(
                    "cupy-rs: the cooperative-matrix GEMM did not build on {} ({e}); \
                     the tiled kernel takes over",
                    self.label()
                );
                COOP_BROKEN.store(true, Ordering::Relaxed);
                return Ok(false);
            }
        };
        let ct = self.temp(DType::Float32, ct_len)?;
        let (a, b, c) = (
            self.buf(call.a.buffer, "matmul")?,
            self.buf(call.b.buffer, "matmul")?,
            self.buf(&ct, "matmul")?,
        );
        let maxz = self.limits.max_compute_workgroups_per_dimension as usize;
        let mut b0 = 0;
        while b0 < batch {
            let nb = (batch - b0).min(maxz);
            let mut w: Vec<u32> = vec![m as u32, n as u32, kk as u32, b0 as u32];
            w.extend(sa.iter().chain(&sb).map(|&x| x as u32));
            w.extend([c_sb, np as u32, 0, 0]);
            let meta = pipe.meta.pack(&[], &w);
            self.dispatch3(
                &pipe,
                &meta,
                &[&a.buf, &b.buf, &c.buf],
                ((np / bn) as u32, (mp / bm) as u32, nb as u32),
            )?;
            b0 += nb;
        }
        let cl = Layout {
            shape: vec![batch, m, n],
            strides: vec![(mp * np) as isize, np as isize, 1],
            offset: 0,
        };
        self.cast_into(&ct, &cl, call.c.buffer, &call.c.layout)
            .map_err(|e| Error::invalid("matmul", format!("cooperative GEMM store: {e}")))?;
        Ok(true)
    }
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
        for (ab, s, sg, sh) in [
            ("f16", 16, 32, CoopShape::default()),
            ("f16", 8, 32, CoopShape::parse("2x2x2x4").unwrap()),
            ("f32", 16, 32, CoopShape::default()),
            ("f16", 16, 64, CoopShape::parse("1x2x4x2").unwrap()),
        ] {
            let text = coop_text(ab, s, sg, sh);
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
        assert!(CoopShape::parse("2x2x4").is_none());
        assert!(CoopShape::parse("4x8x1x1").is_none());
    }

    #[test]
    fn coop_info_picks_square_f32_accumulators() {
        use wgpu::CooperativeScalarType as T;
        let p = |m, n, k, ab, cr| wgpu::CooperativeMatrixProperties {
            m_size: m,
            n_size: n,
            k_size: k,
            ab_type: ab,
            cr_type: cr,
            saturating_accumulation: false,
        };
        let props = [
            p(16, 8, 16, T::F16, T::F32),
            p(16, 16, 16, T::F16, T::F16),
            p(16, 16, 16, T::F16, T::F32),
            p(8, 8, 8, T::F32, T::F32),
        ];
        let i = CoopInfo::new(&props, 32, 32);
        assert_eq!((i.f16, i.f32, i.subgroup), (Some(16), Some(8), 32));
        assert_eq!(i.exposed.len(), 4);
        assert_eq!(i.exposed[0], "16x8x16 F16->F32");
        // Subgroups of varying size: the kernel's workgroup plan does not hold.
        let i = CoopInfo::new(&props, 32, 64);
        assert_eq!((i.f16, i.f32), (None, None));
    }
}
